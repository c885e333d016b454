# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The gk5 authors
# The setup the CLI tests share (sourced, from the test's own directory):
#   cli      GK5_CLI, the gk5 binary, made absolute (the tests run in $tmp)
#   des3     GK5_DES3 (0/1)
#   wrapper  GK5_CLI_WRAPPER, put in front of every gk5 run (valgrind)
#   tmp      a scratch directory, removed on exit, made the current one
# and tests/tap.sh, whose not_ok shows the last lines of $tmp/err.
# shellcheck shell=bash disable=SC2034  # the variables are the caller's
cli=${GK5_CLI:?GK5_CLI must name the gk5 binary}
case $cli in /*) ;; *) cli=$PWD/$cli ;; esac
des3=${GK5_DES3:-0}
wrapper=${GK5_CLI_WRAPPER:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
TAP_ERR=$tmp/err
# shellcheck source=tests/tap.sh
. "$(dirname "${BASH_SOURCE[0]}")/../tap.sh"
cd "$tmp" || exit 1
