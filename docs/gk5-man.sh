#!/bin/bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The gk5 authors
# gk5(1) from the CLI's own --help texts, with help2man.
#
#   gk5-man.sh GK5 HELP2MAN INCLUDE OUTPUT WORKDIR
#
# help2man reads one program's --help, so the page is made in three steps:
#
#   1. WORKDIR/gk5, a stand-in that help2man runs: its --version is the
#      first line of gk5's (the rest describes this build, not the command),
#      its --help is `gk5 --help` with the second usage line written as
#      help2man's "or:" continuation (so that both reach SYNOPSIS) and the
#      "Exit status:" paragraph under help2man's *Exit status* heading.
#   2. WORKDIR/commands.h2m, a COMMANDS section: one subsection for every
#      command that `gk5 --help` lists, and for every operation of a
#      command that has its own --help (`gk5 crypto derive --help`,
#      `gk5 rpc serve --help`), each converted from its --help text to
#      man(7): usage lines to .SY, option and command lists to .TP, the
#      rest to filled paragraphs.
#   3. help2man with commands.h2m and INCLUDE (the hand-written sections:
#      DESCRIPTION, EXIT STATUS, ENVIRONMENT, FILES, EXAMPLES, SEE ALSO),
#      and hyphenation and justification turned off after .TH.
#
# Nothing is hard-coded about the commands: a command added to the CLI
# appears in the page at the next build.
set -eu
set -o pipefail

if [ $# -ne 5 ]; then
    echo "usage: gk5-man.sh GK5 HELP2MAN INCLUDE OUTPUT WORKDIR" >&2
    exit 2
fi
gk5=$1
help2man=$2
include=$3
output=$4
work=$5
case $gk5 in /*) ;; *) gk5=$PWD/$gk5 ;; esac
mkdir -p "$work"

# ---- 1. the stand-in program ----
stand_in=$work/gk5
gk5_q=$(printf '%q' "$gk5")
cat >"$stand_in" <<EOF
#!/bin/bash
# Made by docs/gk5-man.sh for help2man: gk5's --help and --version.
if [ "\${1-}" = --version ]; then
    $gk5_q --version </dev/null | sed -n 1p
    exit
fi
$gk5_q --help </dev/null | awk '
    NR == 1 { print; usage = 1; next }
    usage && /^ +gk5 / { sub(/^ +/, "  or:  "); print; next }
    { usage = 0 }
    /^Exit status: / { print ""; print "*Exit status*"; sub(/^Exit status: /, "") }
    { print }'
EOF
chmod 755 "$stand_in"

# ---- 2. the COMMANDS section ----

# One --help text on stdin to man(7) on stdout.
help_to_roff() {
    awk '
    # Escape for roff text: backslash, hyphen (\- keeps option dashes
    # ASCII and unbroken), a control character at the start, and a "[" or
    # "/" at the start, which help2man would read as a section name or a
    # pattern in the include file.
    function esc(s,    out, i, c) {
        out = ""
        for (i = 1; i <= length(s); i++) {
            c = substr(s, i, 1)
            if (c == "\\") {
                out = out "\\e"
            } else if (c == "-") {
                out = out "\\-"
            } else {
                out = out c
            }
        }
        if (out ~ /^[.\047[\/]/) {
            out = "\\&" out
        }
        return out
    }
    # A list tag: option names bold ("-h, --help" too), their arguments
    # roman; a tag that is no option (a command, a procedure) all bold.
    function tag(s,    n, w, i, out, name, rest) {
        if (s !~ /^-/) {
            return "\\fB" esc(s) "\\fR"
        }
        n = split(s, w, " ")
        out = ""
        for (i = 1; i <= n; i++) {
            if (w[i] ~ /^-/) {
                name = w[i]
                rest = ""
                if (name ~ /,$/) {
                    name = substr(name, 1, length(name) - 1)
                    rest = ","
                }
                w[i] = "\\fB" esc(name) "\\fR" rest
            } else {
                w[i] = esc(w[i])
            }
            out = out (i > 1 ? " " : "") w[i]
        }
        return out
    }
    # A usage line: the literal command words as .SY name, the rest after.
    function usage(u,    n, w, i, name, rest) {
        n = split(u, w, " ")
        name = ""
        rest = ""
        for (i = 1; i <= n; i++) {
            if (rest == "" && w[i] ~ /^[a-z0-9][a-z0-9|-]*$/) {
                name = name (name == "" ? "" : " ") w[i]
            } else {
                rest = rest (rest == "" ? "" : " ") w[i]
            }
        }
        print ".SY \"" esc(name) "\""
        if (rest != "") {
            print esc(rest)
        }
        print ".YS"
    }
    function indent_of(s) {
        return match(s, /[^ ]/) - 1
    }
    { line[NR] = $0 }
    END {
        n = NR
        mode = ""
        for (i = 1; i <= n; i++) {
            l = line[i]
            if (l ~ /^ *$/) {
                mode = ""
                continue
            }
            if (l ~ /^Usage: /) {
                # Usage lines: a new one starts with "gk5 ", anything else
                # indented continues the one before.
                nu = 1
                use[1] = substr(l, 8)
                while (i + 1 <= n && line[i + 1] ~ /^ +[^ ]/) {
                    s = line[++i]
                    sub(/^ +/, "", s)
                    if (s ~ /^gk5 /) {
                        use[++nu] = s
                    } else {
                        use[nu] = use[nu] " " s
                    }
                }
                for (k = 1; k <= nu; k++) {
                    usage(use[k])
                }
                mode = ""
                continue
            }
            if (l !~ /^ /) {
                if (mode != "prose") {
                    print ".PP"
                }
                print esc(l)
                mode = "prose"
                continue
            }
            ind = indent_of(l)
            s = substr(l, ind + 1)
            if (mode == "item" && ind > item_ind) {
                print esc(s) # continues the description above
                continue
            }
            next_ind = i < n && line[i + 1] !~ /^ *$/ ? indent_of(line[i + 1]) : -1
            # Where the description starts: after a gap of two spaces, or
            # after one where the list has its description column (a long
            # "--target SERVICE@HOST" leaves one space).
            col = 0
            if (match(s, /  +/)) {
                col = ind + RSTART + RLENGTH
            } else {
                want = mode == "item" ? item_col : (next_ind > ind ? next_ind + 1 : 0)
                if (want > ind + 2 && substr(l, want - 1, 1) == " " &&
                    substr(l, want, 1) != " ") {
                    col = want
                }
            }
            if (col > 0) {
                # "  TAG   description"
                print ".TP"
                t = substr(l, ind + 1, col - ind - 1)
                sub(/ +$/, "", t)
                print tag(t)
                print esc(substr(l, col))
                mode = "item"
                item_ind = ind
                item_col = col
            } else if (s ~ /^gk5 /) {
                # An operation'"'"'s usage inside the text (gk5 crypto).
                usage(s)
                mode = ""
            } else if (next_ind > ind || s ~ /^-/) {
                # "  TAG" with its description on the lines below (or none)
                print ".TP"
                print tag(s)
                mode = "item"
                item_ind = ind
                item_col = next_ind > ind ? next_ind + 1 : 0
            } else {
                # A line of its own, such as an operation'"'"'s usage.
                print (mode == "line" ? ".br" : ".IP \"\" 4")
                print esc(s)
                mode = "line"
            }
        }
    }'
}

commands=$("$gk5" --help </dev/null | awk '
    /^Commands:/ { in_list = 1; next }
    in_list && /^ *$/ { exit }
    in_list && /^  [a-z0-9]/ { print $1 }')
if [ -z "$commands" ]; then
    echo "gk5-man.sh: no commands in '$gk5 --help'" >&2
    exit 1
fi

{
    echo "This file was made by docs/gk5-man.sh from the --help of every command."
    echo "[COMMANDS]"
    printf '%s\n' 'Every command takes \fB\-\-help\fR;' \
        '\fBgk5 help\fR \fICOMMAND\fR is \fBgk5\fR \fICOMMAND\fR \fB\-\-help\fR.'
    for cmd in $commands; do
        text=$("$gk5" "$cmd" --help </dev/null)
        echo ".SS \"gk5 $cmd\""
        help_to_roff <<<"$text"
        # Operations with a --help of their own: those the usage line lists
        # ("gk5 rpc ping|serve|echo") or the text names ("  gk5 crypto
        # derive ...").  A command that answers every --help with its own
        # text (gk5 nfs4 ls --help) adds nothing.
        ops=$(awk -v cmd="$cmd" '
            NR == 1 && $1 == "Usage:" && $3 == cmd && $4 ~ /^[a-z]/ {
                n = split($4, w, "|"); for (i = 1; i <= n; i++) print w[i]
            }
            $1 == "gk5" && $2 == cmd && $3 ~ /^[a-z][a-z0-9-]*$/ { print $3 }
        ' <<<"$text" | awk '!seen[$0]++')
        for op in $ops; do
            sub_text=$("$gk5" "$cmd" "$op" --help </dev/null 2>/dev/null) ||
                continue
            if [ "$sub_text" = "$text" ] ||
                [ "${sub_text#"Usage: gk5 $cmd $op"}" = "$sub_text" ]; then
                continue
            fi
            echo ".SS \"gk5 $cmd $op\""
            help_to_roff <<<"$sub_text"
        done
    done
} >"$work/commands.h2m"

# ---- 3. help2man ----
"$help2man" --no-info --section=1 \
    --name="Kerberos V5 GSS-API per-message tokens from the command line" \
    --manual="gk5 Manual" \
    --include="$work/commands.h2m" --include="$include" \
    --output="$work/gk5.1" "$stand_in"
# No hyphenation: an option or a file name split at a line end reads as
# something else.  .nh turns it off; HY 0 keeps it off past each .YS, which
# sets hyphenation back to HY (groff's an-ext.tmac).  Without hyphenation a
# justified line can gape: left-adjusted, as scdoc's pages are.
sed '/^\.TH /a\
.nr HY 0\
.nh\
.ad l' "$work/gk5.1" >"$output.tmp"
mv "$output.tmp" "$output"
