#!/bin/bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The gk5 authors
# CI source check.
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
# 3. The exported symbols agree with the maps and the public headers
#    (tools/check_symbols.sh, given the built libgk5.so if any).
# 4. The layering holds: src/mech includes no OpenSSL header and calls no
#    OpenSSL function (it asks src/crypto through crypto_int.h), and
#    src/crypto includes nothing of src/mech (it knows nothing of tokens or
#    contexts).
# 5. Comments and build files speak to readers: no tracker numbers
#    ("issue 12") in any tracked source, script or build file.
# 6. Inside src/crypto every file has its layer and src/crypto/fast/
#    includes nothing above it (tools/check_crypto_layers.sh; the meson
#    test meta/crypto-layers checks the built objects' calls too).
#
# Exit status: 0 clean, 1 findings, 2 usage or tool error.
set -u
set -o pipefail

# The same prologue as check_symbols.sh (usage from the header, fail()):
# each check script runs on its own, so they do not source a shared file.
here=$(cd "$(dirname "$0")/.." && pwd)
lib=${1:-}
if [ $# -gt 1 ] || [ "$lib" = "-h" ] || [ "$lib" = "--help" ]; then
    sed -n '4,29p' "$0" | sed 's/^# \{0,1\}//'
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
    "$here"/src/crypto/*.c "$here"/src/crypto/*.h \
    "$here"/src/crypto/fast/*.c "$here"/src/crypto/fast/*.h 2> /dev/null)
if [ -n "$bad" ]; then
    echo "$bad" | sed "s|^$here/||; s|^|src/crypto knows src/mech: |"
    fail
fi

# ---- 5: tracker numbers ---------------------------------------------------
echo "== no tracker numbers in sources, scripts and build files"
if git -C "$here" rev-parse --git-dir > /dev/null 2>&1; then
    bad=$(git -C "$here" grep -n -i -E '\bissues? #?[0-9]+' -- \
        '*.c' '*.h' '*.sh' '*.py' 'meson.build' '*/meson.build' \
        'meson_options.txt' '*.map' '*.in' ':!tools/check_source.sh')
    if [ -n "$bad" ]; then
        echo "$bad" | sed 's|^|names a tracker issue: |'
        fail
    fi
else
    echo "   (not a git checkout: skipped)"
fi

# ---- 6: the chain inside src/crypto ---------------------------------------
echo "== layers of src/crypto"
bash "$here/tools/check_crypto_layers.sh"
case $? in
0) ;;
1) fail ;;
*) exit 2 ;;
esac

# ---- 3: symbol maps, public headers, built libraries ---------------------
# tools/check_symbols.sh, also the meson test meta/symbols.
bash "$here/tools/check_symbols.sh" ${lib:+"$lib"}
case $? in
0) ;;
1) fail ;;
*) exit 2 ;;
esac

if [ "$status" -eq 0 ]; then
    echo "check_source: OK"
else
    echo "check_source: FAILED"
fi
exit "$status"
