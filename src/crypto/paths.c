/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * Which paths run a ukey: two switches, both test and bench seams, and
 * what the build and the CPU offer (gk5_build_features).
 *
 * The fast-path switch (gk5i_onepass_set_enabled, over fast/switch.c) is
 * read per message: off, AES and Camellia run on OpenSSL CBC contexts
 * under cts.c's stealing, and nothing runs in one pass.  The OpenSSL-only
 * switch is read when a ukey is made (ukey.c) and when subkeys are
 * derived (kdf.c): such a ukey runs on OpenSSL's CTS ciphers and EVP_MAC
 * alone, which is all a -Dfastpath=false build has.
 */
#include <stdatomic.h>

#include "crypto_int.h"
#include "internal.h"

static atomic_bool g_openssl_only;

bool gk5i_onepass_set_enabled(bool on)
{
#ifdef GK5_FASTPATH
    gk5i_fastpaths_set(on);
#else
    (void)on;
#endif
#ifdef GK5_HAVE_ONEPASS
    return gk5i_onepass_cpu();
#else
    return false;
#endif
}

/* What gk5 --version reports (gk5.h): the build's paths, and whether this
 * CPU runs the one-pass one while the switch above leaves it on. */
GK5_EXPORT uint32_t gk5_build_features(void)
{
    uint32_t features = 0;

#ifdef GK5_FASTPATH
    features |= GK5_FEATURE_FASTPATH;
#endif
#ifdef GK5_HAVE_ONEPASS
    if (gk5i_onepass_available()) {
        features |= GK5_FEATURE_ONEPASS;
    }
#endif
    return features;
}

bool gk5i_openssl_only_on(void)
{
#ifdef GK5_FASTPATH
    return atomic_load_explicit(&g_openssl_only, memory_order_relaxed);
#else
    return true;
#endif
}

bool gk5i_openssl_only_set(bool on)
{
    atomic_store(&g_openssl_only, on);
#ifdef GK5_FASTPATH
    return true;
#else
    return false;
#endif
}
