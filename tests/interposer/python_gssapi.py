# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The gk5 authors
"""An unmodified python-gssapi program, run by python_gssapi.sh and
bench/programs_bench.sh with MIT alone and with gk5_mech.so.

    python_gssapi.py check
        Establish an initiator and an acceptor krb5 context in this process
        (the initiator's credential from KRB5_CLIENT_KTNAME/KRB5CCNAME, the
        acceptor's from KRB5_KTNAME), then: 64 KiB sealed wrap/unwrap both
        ways, get_mic/verify_mic both ways, a tampered MIC, a tampered wrap
        token, the gap those leave, a replayed MIC and a replayed wrap
        token.  One line per step on stdout: what the call returned, or
        the GSS major status it was refused with (and the exception's
        class).  Nothing on stdout depends on the mechanism's
        implementation, only on what GSS-API says: the same lines are
        expected with MIT alone and with the interposer.  The minor
        status's words go to stderr.

    python_gssapi.py bench SECONDS MAX_CALLS
        64 KiB sealed wrap (initiator) + unwrap (acceptor) for SECONDS or
        MAX_CALLS pairs, whichever comes first; prints
        "calls N bytes B seconds S mbps M" (MB = 10^6 bytes of payload).

Exit status: 0 when every step gave what GSS-API requires (check) or the
bench ran, 1 otherwise, 2 on a usage error.
"""

import hashlib
import sys
import time

import gssapi
import gssapi.raw

TARGET = "gk5@localhost"
SIZE = 64 * 1024
FLAGS = [
    gssapi.RequirementFlag.mutual_authentication,
    gssapi.RequirementFlag.replay_detection,
    gssapi.RequirementFlag.out_of_sequence_detection,
    gssapi.RequirementFlag.confidentiality,
    gssapi.RequirementFlag.integrity,
]
BAD = 0


def establish():
    """An initiator and an acceptor context, tokens passed in memory."""
    target = gssapi.Name(TARGET, gssapi.NameType.hostbased_service)
    icred = gssapi.Credentials(usage="initiate")
    acred = gssapi.Credentials(usage="accept")
    ini = gssapi.SecurityContext(
        name=target, creds=icred, mech=gssapi.MechType.kerberos,
        flags=FLAGS, usage="initiate")
    acc = gssapi.SecurityContext(creds=acred, usage="accept")
    token = ini.step()
    for _ in range(4):
        if token is None:
            break
        token = acc.step(token)
        if token is None or ini.complete:
            break
        token = ini.step(token)
    if not (ini.complete and acc.complete):
        raise SystemExit("python_gssapi: the contexts did not complete "
                         "in 4 legs")
    return ini, acc


def payload(n, seed):
    """n bytes, the same every run (SHA-256 in counter mode)."""
    out = bytearray()
    i = 0
    while len(out) < n:
        out += hashlib.sha256(b"%s %d" % (seed, i)).digest()
        i += 1
    return bytes(out[:n])


def refused(e):
    """The words a GSS refusal prints on stdout: class and major status."""
    return "refused %s major 0x%08x" % (type(e).__name__, e.maj_code)


def step(name, fn, expect):
    """Run fn(); print 'name: result'; expect is 'ok' or the exception
    class that GSS-API requires."""
    global BAD
    try:
        result = fn()
        if result is None:
            line = "ok"
        elif isinstance(result, int):
            line = "ok qop %d" % result
        else:
            line = "ok " + result
        got = "ok"
    except gssapi.raw.misc.GSSError as e:
        line = refused(e)
        got = type(e).__name__
        print("python_gssapi: %s: %s" % (name, e), file=sys.stderr)
    print("%s: %s" % (name, line))
    if got != expect:
        BAD += 1
        print("python_gssapi: %s: expected %s, got %s" % (name, expect, got),
              file=sys.stderr)


def flip(token, at):
    b = bytearray(token)
    b[at] ^= 0x01
    return bytes(b)


def check():
    ini, acc = establish()
    print("established: initiator %s acceptor %s" % (
        ini.initiator_name, ini.target_name))
    print("acceptor sees: %s" % acc.initiator_name)
    for f in (gssapi.RequirementFlag.confidentiality,
              gssapi.RequirementFlag.integrity,
              gssapi.RequirementFlag.replay_detection,
              gssapi.RequirementFlag.out_of_sequence_detection,
              gssapi.RequirementFlag.mutual_authentication):
        print("flag %s: initiator %s acceptor %s" % (
            f.name, f in ini.actual_flags, f in acc.actual_flags))

    def wrap_unwrap(src, dst, seed):
        def run():
            data = payload(SIZE, seed)
            w = src.wrap(data, True)
            u = dst.unwrap(w.message)
            if u.message != data:
                raise SystemExit("python_gssapi: unwrap gave other bytes")
            return "%d bytes, sealed %s/%s, token longer by %s" % (
                len(u.message), w.encrypted, u.encrypted,
                "some" if len(w.message) > len(data) else "none")
        return run

    step("wrap 64 KiB initiator->acceptor", wrap_unwrap(ini, acc, b"i"), "ok")
    step("wrap 64 KiB acceptor->initiator", wrap_unwrap(acc, ini, b"a"), "ok")

    msg = payload(1000, b"mic")
    mic_i = ini.get_signature(msg)
    mic_a = acc.get_signature(msg)
    step("verify_mic initiator->acceptor",
         lambda: acc.verify_signature(msg, mic_i), "ok")
    step("verify_mic acceptor->initiator",
         lambda: ini.verify_signature(msg, mic_a), "ok")

    # Tampering: the message, then the MIC's last byte (its checksum).
    mic = ini.get_signature(msg)
    step("verify_mic tampered message",
         lambda: acc.verify_signature(flip(msg, 10), mic), "BadMICError")
    mic = ini.get_signature(msg)
    step("verify_mic tampered checksum",
         lambda: acc.verify_signature(msg, flip(mic, len(mic) - 1)),
         "BadMICError")
    w = ini.wrap(payload(SIZE, b"t"), True).message
    step("unwrap tampered token",
         lambda: acc.unwrap(flip(w, len(w) // 2)), "BadMICError")

    # The three refused tokens used three of the initiator's sequence
    # numbers: the next MIC is verified, and reported as coming after a
    # gap (GSS_S_GAP_TOKEN, which python-gssapi raises).  Then replays: a
    # MIC and a wrap token the acceptor has already taken.
    mic = ini.get_signature(msg)
    step("verify_mic after three refused tokens",
         lambda: acc.verify_signature(msg, mic), "TokenTooEarlyError")
    step("verify_mic replayed",
         lambda: acc.verify_signature(msg, mic), "DuplicateTokenError")
    w = ini.wrap(payload(SIZE, b"r"), True).message
    step("unwrap fresh", lambda: (acc.unwrap(w), None)[1], "ok")
    step("unwrap replayed", lambda: (acc.unwrap(w), None)[1],
         "DuplicateTokenError")

    # Deleted here, so that the interposer's trace counts every call.
    del ini, acc
    return 1 if BAD else 0


def bench(seconds, max_calls):
    ini, acc = establish()
    data = payload(SIZE, b"bench")
    # One pair outside the clock: the first call of each kind.
    if acc.unwrap(ini.wrap(data, True).message).message != data:
        raise SystemExit("python_gssapi: unwrap gave other bytes")
    n = 0
    start = time.perf_counter()
    deadline = start + seconds
    while n < max_calls:
        u = acc.unwrap(ini.wrap(data, True).message)
        n += 1
        if time.perf_counter() >= deadline:
            break
    elapsed = time.perf_counter() - start
    if u.message != data:
        raise SystemExit("python_gssapi: unwrap gave other bytes")
    print("calls %d bytes %d seconds %.3f mbps %.1f" % (
        n, n * SIZE, elapsed, n * SIZE / elapsed / 1e6))
    del ini, acc
    return 0


def main(argv):
    if len(argv) == 2 and argv[1] == "check":
        return check()
    if len(argv) == 4 and argv[1] == "bench":
        try:
            seconds = float(argv[2])
            max_calls = int(argv[3])
        except ValueError:
            seconds = max_calls = 0
        if seconds > 0 and max_calls > 0:
            return bench(seconds, max_calls)
        print("python_gssapi: bench wants SECONDS > 0 and MAX_CALLS > 0, "
              "not '%s' '%s'" % (argv[2], argv[3]), file=sys.stderr)
        return 2
    print("usage: python_gssapi.py check | bench SECONDS MAX_CALLS",
          file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
