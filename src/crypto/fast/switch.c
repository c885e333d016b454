/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * The bottom of src/crypto: whether the hand-written paths run, and
 * whether this CPU has the instructions the AES-NI ones need.  Calls
 * nothing of gk5's.
 *
 * The switch is a test and bench seam (gk5i_onepass_set_enabled in
 * paths.c), read per message: off, AES and Camellia run on OpenSSL CBC
 * contexts under cts.c's stealing, the CMACs on EVP_MAC, and nothing runs
 * in one pass.
 */
#include <stdatomic.h>

#include "fast.h"

static atomic_bool g_fast_off;

bool gk5i_fastpaths_on(void)
{
    return !atomic_load_explicit(&g_fast_off, memory_order_relaxed);
}

void gk5i_fastpaths_set(bool on)
{
    atomic_store(&g_fast_off, !on);
}

#ifdef GK5_HAVE_ONEPASS
#include <cpuid.h>

static bool cpu_has_onepass(void)
{
    unsigned int a, b, c, d;

    /* CPUID 1: ECX bit 25 AES-NI, bit 19 SSE4.1, bit 9 SSSE3; CPUID 7.0:
     * EBX bit 29 SHA extensions. */
    if (__get_cpuid(1, &a, &b, &c, &d) == 0 || (c & (1u << 25)) == 0 ||
        (c & (1u << 19)) == 0 || (c & (1u << 9)) == 0) {
        return false;
    }
    if (__get_cpuid_count(7, 0, &a, &b, &c, &d) == 0 || (b & (1u << 29)) == 0) {
        return false;
    }
    return true;
}

/* CPUID once: under a hypervisor each CPUID is a trap to it, which cost
 * more than the rest of a context import. */
bool gk5i_onepass_cpu(void)
{
    static atomic_int cached; /* 0 unknown, 1 yes, 2 no */
    int v = atomic_load_explicit(&cached, memory_order_relaxed);

    if (v == 0) {
        v = cpu_has_onepass() ? 1 : 2;
        atomic_store_explicit(&cached, v, memory_order_relaxed);
    }
    return v == 1;
}

bool gk5i_onepass_available(void)
{
    return gk5i_onepass_cpu() && gk5i_fastpaths_on();
}
#endif /* GK5_HAVE_ONEPASS */
