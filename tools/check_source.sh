#!/bin/bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The gk5 authors
# CI source check (issue 6).
#
#   tools/check_source.sh [path/to/libgk5.so]
#
# 1. MACs are compared only with CRYPTO_memcmp: a memcmp()/bcmp() in src/
#    whose arguments name a MAC, checksum, tag or digest is an error (other
#    memcmp calls, on public bytes such as magic numbers and OIDs, are
#    listed for the reviewer).
# 2. No memset() wipes a secret: a memset(x, 0, ...) in src/ after which the
#    function never reads x again (only frees it or sets it to NULL) is a
#    dead store the compiler may delete -- exactly a wipe -- and must be
#    zap() or OPENSSL_cleanse/OPENSSL_clear_free.  A line may say
#    "/* not a wipe */" to overrule the check, with a reason.
# 3. The exported symbols agree, for each shipped library: the global names
#    of its map (src/libgk5.map, libgk5_mit.map, libgk5_rpc.map) are exactly
#    the functions declared GK5_EXPORT in its public headers, and, given the
#    built libgk5.so (the others are found beside it), exactly its defined
#    dynamic symbols (nm -D --defined-only), apart from the version node.
# 4. The layering holds: src/mech includes no OpenSSL header and calls no
#    OpenSSL function (it asks src/crypto through crypto_int.h), and
#    src/crypto includes nothing of src/mech (it knows nothing of tokens or
#    contexts).
#
# Exit status: 0 clean, 1 findings, 2 usage or tool error.
set -u
set -o pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
lib=${1:-}
if [ $# -gt 1 ] || [ "$lib" = "-h" ] || [ "$lib" = "--help" ]; then
    sed -n '4,26p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
fi
status=0
fail() {
    status=1
}

# ---- 1 and 2: memcmp on MACs, memset as a wipe --------------------------
# Comments and string literals are blanked (newlines kept) before matching,
# so line numbers stay right and text in comments does not count.
scan_c() {
    perl -e '
use strict;
use warnings;
my $findings = 0;
my $secret_cmp = qr/mac|cksum|checksum|hmac|\btag|sgn|\bsig|trailer|digest|icv|hash/i;

sub blank { my ($s) = @_; $s =~ s/[^\n]/ /g; return $s; }

# The text of the balanced (...) starting at $i (the open paren) and the
# index just past it.
sub parens {
    my ($t, $i) = @_;
    my $depth = 0;
    for (my $j = $i; $j < length($t); $j++) {
        my $c = substr($t, $j, 1);
        $depth++ if $c eq "(";
        $depth-- if $c eq ")";
        return (substr($t, $i + 1, $j - $i - 1), $j + 1) if $depth == 0;
    }
    return (substr($t, $i + 1), length($t));
}

# Top-level comma split.
sub args {
    my ($s) = @_;
    my @out;
    my ($depth, $cur) = (0, "");
    for my $c (split //, $s) {
        $depth++ if $c eq "(" || $c eq "[";
        $depth-- if $c eq ")" || $c eq "]";
        if ($c eq "," && $depth == 0) { push @out, $cur; $cur = ""; next; }
        $cur .= $c;
    }
    push @out, $cur;
    return @out;
}

for my $file (@ARGV) {
    open(my $fh, "<", $file) or die "$file: $!\n";
    local $/;
    my $orig = <$fh>;
    close($fh);
    my @lines = split /\n/, $orig, -1;
    my $t = $orig;
    # Blank comments, string and character literals.
    $t =~ s{(/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"|\x27(?:\\.|[^\x27\\\n])*\x27)}{
        my $m = $1;
        ($m =~ m{^/}) ? blank($m)
                      : substr($m, 0, 1) . blank(substr($m, 1, -1)) . substr($m, -1)
    }gse;
    my $line_of = sub { my $n = substr($t, 0, $_[0]) =~ tr/\n//; return $n + 1; };

    # Function bodies: spans between a top-level "{" and its "}".
    my @bodies;
    my ($depth, $start) = (0, -1);
    for (my $i = 0; $i < length($t); $i++) {
        my $c = substr($t, $i, 1);
        if ($c eq "{") { $start = $i if $depth == 0; $depth++; }
        elsif ($c eq "}") { $depth--; push @bodies, [$start, $i] if $depth == 0; }
    }
    my $body_end = sub {
        my ($pos) = @_;
        for my $b (@bodies) { return $b->[1] if $pos > $b->[0] && $pos < $b->[1]; }
        return length($t);
    };

    while ($t =~ /\b(memcmp|bcmp)\s*\(/g) {
        my $fn = $1;
        my $at = $-[0];
        my $open = $+[0] - 1;
        my ($a) = parens($t, $open);
        my $ln = $line_of->($at);
        (my $flat = $a) =~ s/\s+/ /g;
        if ($a =~ $secret_cmp) {
            print "$file:$ln: $fn() on what looks like a MAC ($flat): use CRYPTO_memcmp\n";
            $findings++;
        } else {
            print "note: $file:$ln: $fn($flat) on public data\n";
        }
        pos($t) = $open + 1;
    }

    while ($t =~ /\bmemset\s*\(/g) {
        my $at = $-[0];
        my $open = $+[0] - 1;
        my ($a, $after) = parens($t, $open);
        my @a = args($a);
        my $ln = $line_of->($at);
        pos($t) = $open + 1;
        next unless @a == 3;
        next unless $a[1] =~ /^\s*(0+|0x0+|\\0|\x27\s*\x27|\x27\\0\x27)\s*$/i
                 || $a[1] =~ /^\s*\x27 +\x27\s*$/;
        next if defined $lines[$ln - 1] && $lines[$ln - 1] =~ m{/\*\s*not a wipe};
        # The object written: strip casts, & and *, keep the first name.
        (my $dst = $a[0]) =~ s/\([^()]*\)\s*(?=[&*\w(])//g;
        $dst =~ s/^[\s&*(]+//;
        my ($base) = $dst =~ /^([A-Za-z_]\w*)/;
        next unless defined $base;
        my $rest = substr($t, $after, $body_end->($at) - $after);
        # Freeing it or forgetting the pointer is not a use.
        $rest =~ s/\b(?:free|OPENSSL_free|OPENSSL_clear_free|EVP_\w+_free)\s*\(\s*&?\s*\Q$base\E\b[^;]*;//g;
        $rest =~ s/\b\Q$base\E\s*=\s*NULL\s*;//g;
        if ($rest !~ /\b\Q$base\E\b/) {
            (my $flat = $a) =~ s/\s+/ /g;
            print "$file:$ln: memset($flat) is never read again: a wipe the compiler may drop; use zap()\n";
            $findings++;
        }
    }
}
exit($findings ? 1 : 0);
' "$@"
}

mapfile -t csrc < <(find "$here/src" -name '*.c' -o -name '*.h' | sort)
if [ "${#csrc[@]}" -eq 0 ]; then
    echo "check_source: no sources under $here/src" >&2
    exit 2
fi
echo "== MAC comparisons and wipes (${#csrc[@]} files under src/)"
scan_c "${csrc[@]}" || fail

# ---- 4: layering ---------------------------------------------------------
echo "== layering: src/mech calls no OpenSSL, src/crypto includes no src/mech"
bad=$(grep -nE '#[[:space:]]*include[[:space:]]*<openssl/|\b(OPENSSL|EVP|CRYPTO|RAND|SHA(1|224|256|384|512)?|HMAC|CMAC|AES|Camellia|OSSL)_[A-Za-z]' \
    "$here"/src/mech/*.c "$here"/src/mech/*.h 2> /dev/null)
if [ -n "$bad" ]; then
    echo "$bad" | sed "s|^$here/||; s|^|src/mech reaches OpenSSL directly: |"
    fail
fi
bad=$(grep -nE '#[[:space:]]*include[[:space:]]*"[^"]*mech/|\bgk5_ctx\b|struct gk5_lane' \
    "$here"/src/crypto/*.c "$here"/src/crypto/*.h 2> /dev/null)
if [ -n "$bad" ]; then
    echo "$bad" | sed "s|^$here/||; s|^|src/crypto knows src/mech: |"
    fail
fi

# ---- 3: symbol maps, public headers, built libraries ---------------------
# One map per shipped library, each with its own public headers:
#   libgk5      gk5.h crypto.h   libgk5_mit  mit.h   libgk5_rpc  rpcsec.h
# The other libraries are looked for beside the given libgk5.so.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

check_library() { # map-name so-name header...
    local mapname=$1 soname=$2 map="$here/src/$1" so=""
    shift 2
    [ -n "$lib" ] && so="$(dirname "$lib")/$soname"

    # Global names in the version script (between "global:" and "local:").
    perl -ne '
        s{/\*.*?\*/}{}g; s{#.*}{};
        $in = 1, next if /^\s*global\s*:/;
        $in = 0 if /^\s*local\s*:/ || /^\s*\}/;
        print "$1\n" while $in && /([A-Za-z_]\w*)\s*;/g;
    ' "$map" | sort -u > "$tmp/map"

    # Functions declared GK5_EXPORT in the library's public headers.
    perl -e '
        local $/;
        for my $f (@ARGV) {
            open(my $fh, "<", $f) or die "$f: $!\n";
            my $t = <$fh>;
            $t =~ s{/\*.*?\*/}{ }gs;
            $t =~ s{//[^\n]*}{}g;
            $t =~ s{^\s*#[^\n]*(?:\\\n[^\n]*)*}{}gm;   # the macro definitions
            while ($t =~ /\bGK5_EXPORT\b([^;{]*?)\b([A-Za-z_]\w*)\s*\(/g) {
                print "$2\n";
            }
        }
    ' "$@" | sort -u > "$tmp/hdr"

    echo "== $mapname ($(wc -l < "$tmp/map") names) vs GK5_EXPORT in $(cd "$here" && echo "${@#$here/}") ($(wc -l < "$tmp/hdr"))"
    if [ ! -s "$tmp/map" ] || [ ! -s "$tmp/hdr" ]; then
        echo "check_source: no symbols read from $mapname or its headers" >&2
        exit 2
    fi
    comm -23 "$tmp/map" "$tmp/hdr" | sed "s/^/src\/$mapname: in the map but not declared GK5_EXPORT: /" > "$tmp/d1"
    comm -13 "$tmp/map" "$tmp/hdr" | sed "s/^/include\/gk5: declared GK5_EXPORT but not in $mapname: /" >> "$tmp/d1"
    if [ -s "$tmp/d1" ]; then
        cat "$tmp/d1"
        fail
    fi

    if [ -z "$lib" ]; then
        echo "(no library given: the built library's exports were not checked)"
        return
    fi
    if [ ! -f "$so" ]; then
        if [ "$soname" = libgk5.so ]; then
            echo "check_source: $so: no such file" >&2
            exit 2
        fi
        echo "($so not built: its exports were not checked)"
        return
    fi
    # Version nodes (GK5_0.1) are absolute symbols, not code.
    if ! nm -D --defined-only "$so" > "$tmp/nm"; then
        echo "check_source: nm -D failed on $so" >&2
        exit 2
    fi
    awk '$2 != "A" { sub(/@.*/, "", $3); print $3 }' "$tmp/nm" | sort -u > "$tmp/lib"
    echo "== $mapname vs $(basename "$so") ($(wc -l < "$tmp/lib") defined dynamic symbols)"
    comm -13 "$tmp/map" "$tmp/lib" | sed "s|^|$so: exported but not in the map: |" > "$tmp/d2"
    comm -23 "$tmp/map" "$tmp/lib" | sed "s|^|$so: in the map but not defined in the library: |" >> "$tmp/d2"
    if [ -s "$tmp/d2" ]; then
        cat "$tmp/d2"
        fail
    fi
    # Every exported symbol carries the map's version.
    if awk '$2 != "A" && $3 !~ /@@?GK5_/ { print; bad = 1 } END { exit !bad }' "$tmp/nm"; then
        echo "$so: the symbols above are exported without a GK5_ version"
        fail
    fi
}

check_library libgk5.map libgk5.so "$here/include/gk5/gk5.h" "$here/include/gk5/crypto.h"
check_library libgk5_mit.map libgk5_mit.so "$here/include/gk5/mit.h"
check_library libgk5_rpc.map libgk5_rpc.so "$here/include/gk5/rpcsec.h"

if [ "$status" -eq 0 ]; then
    echo "check_source: OK"
else
    echo "check_source: FAILED"
fi
exit "$status"
