#!/bin/bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The gk5 authors
# A man page from scdoc(5) source.
#
#   scdoc-man.sh SCDOC INPUT OUTPUT VERSION
#
# @VERSION@ in INPUT becomes VERSION.  scdoc turns hyphenation off before
# .TH, and man(7)'s .TH turns it back on; it is turned off again after .TH,
# so that identifiers such as GK5_S_CALL_INACCESSIBLE_WRITE are never
# broken across lines (a reader copies them).
set -eu
set -o pipefail

if [ $# -ne 4 ]; then
    echo "usage: scdoc-man.sh SCDOC INPUT OUTPUT VERSION" >&2
    exit 2
fi
scdoc=$1
input=$2
output=$3
version=$4

sed "s/@VERSION@/$version/g" "$input" | "$scdoc" | sed '/^\.TH /a\
.nh' >"$output.tmp"
mv "$output.tmp" "$output"
