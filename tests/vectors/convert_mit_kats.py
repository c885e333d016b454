#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The gk5 authors
"""Convert MIT krb5's known-answer data to gk5 vector files.

Reads shared/reference/mit_krb5_kats.txt, a file kept beside the repository
(docs/design.md, "Reference data": one record per line, values from
MIT krb5 1.21.3's crypto tests) and writes, next to this script, one
`name = value` block file per MIT test program:

    mit_krb5_decrypt.txt   DECRYPT  t_decrypt.c
    mit_krb5_cksum.txt     CKSUM    t_cksums.c
    mit_krb5_derive.txt    DERIVE   t_derive.c
    mit_krb5_str2key.txt   STR2KEY  t_str2key.c
    mit_krb5_prf.txt       PRF      t_prf.c
    mit_krb5_nfold.txt     NFOLD    t_nfold.c

Rows for enctypes gk5 refuses by policy (rc4-hmac 23, rc4-hmac-exp 24,
single DES 1-3: RFC 8429, RFC 6649) are kept with `expect = rejected`, so
the tests check that gk5 refuses them.  Not converted, and said so in the
output: unkeyed checksums (gk5 has no unkeyed-checksum API) and STR2KEY rows
whose expected answer is an MIT policy error (MIT refuses iteration counts
below its default unless told otherwise; RFC 3962 and RFC 6803 vectors need
counts down to 1, so gk5 has no such policy).

Usage: convert_mit_kats.py [path/to/mit_krb5_kats.txt]
"""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_INPUT = os.path.join(HERE, "..", "..", "..", "shared", "reference",
                             "mit_krb5_kats.txt")
SOURCE = "MIT krb5 1.21.3 {test} via shared/reference/mit_krb5_kats.txt"
REJECTED = {1, 2, 3, 23, 24}
DES3 = 16
DES3_BLOCK = 8

# record kind -> (output file, MIT test program, header lines)
FILES = {
    "DECRYPT": ("mit_krb5_decrypt.txt", "t_decrypt.c", [
        "test = decrypt: gk5_c_decrypt(key, usage, ciphertext) = plaintext.",
        "The confounders are random and were not recorded: decrypt only.",
        "des3-cbc-sha1 keeps its zero padding (RFC 3961 has no length",
        "field): pad_to = 8 says the output is the plaintext zero-padded",
        "to a multiple of 8 bytes.",
    ]),
    "CKSUM": ("mit_krb5_cksum.txt", "t_cksums.c", [
        "test = checksum: the enctype's mandatory keyed checksum (cksumtype)",
        "with the given key usage.",
    ]),
    "DERIVE": ("mit_krb5_derive.txt", "t_derive.c", [
        "test = derive: DK(key, constant); constants are Kc, Ke, Ki of key",
        "usage 2 (usage || 0x99 / 0xaa / 0x55).",
    ]),
    "STR2KEY": ("mit_krb5_str2key.txt", "t_str2key.c", [
        "test = string-to-key with the raw s2kparams (\"-\" = none, the",
        "default).  Password and salt are hex; for aes-sha2 the salt is the",
        "caller's salt (the enctype name and a zero byte are prefixed",
        "inside string-to-key).",
    ]),
    "PRF": ("mit_krb5_prf.txt", "t_prf.c", [
        "test = prf: the RFC 3961 PRF of the enctype.",
    ]),
    "NFOLD": ("mit_krb5_nfold.txt", "t_nfold.c", [
        "test = nfold: n-fold(input) with n = bits (RFC 3961 5.1).  MIT's",
        "list repeats one RFC 3961 A.1 vector; so does this file.",
    ]),
}


class Output:
    """Blocks and notes for one output file."""

    def __init__(self, kind):
        self.name, self.test, self.header = FILES[kind]
        self.blocks = []
        self.notes = []
        self.rejected = 0

    def block(self, fields, comment=None):
        if ("expect", "rejected") in fields:
            self.rejected += 1
        lines = []
        if comment:
            lines.append("# " + comment)
        lines.append("source = " + SOURCE.format(test=self.test))
        lines.extend("%s = %s" % (k, v) for k, v in fields)
        self.blocks.append("\n".join(lines))

    def text(self):
        head = ["# Converted by tests/vectors/convert_mit_kats.py from",
                "# MIT krb5 1.21.3's %s (docs/design.md, \"Reference data\")."
                % self.test, "#"]
        head += ["# " + line for line in self.header]
        if self.rejected:
            head += ["# Rows for enctypes gk5 refuses by policy (RFC 8429, "
                     "RFC 6649)",
                     "# are kept with expect = rejected: the tests check the "
                     "refusal."]
        for note in self.notes:
            head.append("# Not converted: " + note)
        return "\n".join(head) + "\n\n" + "\n\n".join(self.blocks) + "\n"


def expect(enctype):
    return [("expect", "rejected")] if enctype in REJECTED else []


def convert_decrypt(out, f):
    name, et, usage, key, plain, ct = f
    et = int(et)
    fields = [("test", "decrypt"), ("enctype", et), ("usage", usage),
              ("key", key), ("plaintext", plain), ("ciphertext", ct)]
    if et == DES3:
        fields.append(("pad_to", DES3_BLOCK))
    out.block(fields + expect(et), name)


def convert_cksum(out, f):
    cname, ctype, ename, et, usage, key, plain, cksum = f
    et = int(et)
    if et == 0:
        out.notes.append("unkeyed %s (cksumtype %s): gk5 has no unkeyed "
                         "checksums" % (cname, ctype))
        return
    out.block([("test", "checksum"), ("enctype", et), ("cksumtype", ctype),
               ("usage", usage), ("key", key), ("input", plain),
               ("checksum", cksum)] + expect(et),
              "%s (%s) with %s" % (cname, ctype, ename))


def convert_derive(out, f):
    name, et, alg, key, const, derived = f
    et = int(et)
    out.block([("test", "derive"), ("enctype", et), ("key", key),
               ("constant", const), ("output", derived)] + expect(et),
              "%s, %s" % (name, alg))


def convert_str2key(out, f):
    name, et, pw, salt, params, key, _allow_weak = f
    et = int(et)
    if key.startswith("ERR:"):
        out.notes.append("%s password %s params %s -> %s (an MIT policy "
                         "error)" % (name, pw, params, key[4:]))
        return
    out.block([("test", "string-to-key"), ("enctype", et), ("password", pw),
               ("salt", salt), ("params", params), ("key", key)]
              + expect(et), name)


def convert_prf(out, f):
    name, et, key, inp, outp = f
    et = int(et)
    out.block([("test", "prf"), ("enctype", et), ("key", key),
               ("input", inp), ("output", outp)] + expect(et), name)


def convert_nfold(out, f):
    bits, inp, outp = f
    out.block([("test", "nfold"), ("bits", bits), ("input", inp),
               ("output", outp)])


CONVERTERS = {
    "DECRYPT": (convert_decrypt, 6),
    "CKSUM": (convert_cksum, 8),
    "DERIVE": (convert_derive, 6),
    "STR2KEY": (convert_str2key, 7),
    "PRF": (convert_prf, 5),
    "NFOLD": (convert_nfold, 3),
}


def main(argv):
    path = argv[1] if len(argv) > 1 else DEFAULT_INPUT
    outputs = {kind: Output(kind) for kind in CONVERTERS}
    with open(path, encoding="ascii") as fp:
        for lineno, line in enumerate(fp, 1):
            words = line.split()
            if not words or words[0].startswith("#"):
                continue
            if words[0] not in CONVERTERS:
                continue  # CMAC, CF2, GSS tokens: not crypto-API vectors
            convert, nfields = CONVERTERS[words[0]]
            fields = words[1:]
            if len(fields) != nfields:
                sys.exit("%s:%d: %s record has %d fields, want %d"
                         % (path, lineno, words[0], len(fields), nfields))
            convert(outputs[words[0]], fields)
    for out in outputs.values():
        with open(os.path.join(HERE, out.name), "w", encoding="ascii") as fp:
            fp.write(out.text())
        print("%s: %d vectors" % (out.name, len(out.blocks)))


if __name__ == "__main__":
    main(sys.argv)
