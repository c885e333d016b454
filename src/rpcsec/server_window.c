/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * The RPCSEC_GSS server's per-context sequence window (RFC 2203 5.3.3.1).
 * It moves only for a call whose header MIC verified: a forged call never
 * changes state.
 */
#include <string.h>

#include "rpcsec/server_int.h"

static bool seen_get(const struct sctx *sc, uint32_t seq)
{
    uint32_t bit = seq % GK5I_SRV_MAX_WINDOW;

    return (sc->seen[bit / 64] >> (bit % 64)) & 1u;
}

static void seen_put(struct sctx *sc, uint32_t seq, bool on)
{
    uint32_t bit = seq % GK5I_SRV_MAX_WINDOW;
    uint64_t mask = (uint64_t)1 << (bit % 64);

    if (on) {
        sc->seen[bit / 64] |= mask;
    } else {
        sc->seen[bit / 64] &= ~mask;
    }
}

/* RFC 2203 5.3.3.1: a number above the highest seen is new (and moves the
 * window up); one `window` or more below it is discarded; one inside the
 * window is new unless seen.  With record, a new number is marked (and
 * the window moved); without, nothing changes.  seq < MAXSEQ, so the
 * arithmetic never wraps. */
enum seq_verdict gk5i_srv_window_check(struct sctx *sc, uint32_t window,
                                       uint32_t seq, bool record)
{
    enum seq_verdict v = SEQ_NEW;

    (void)pthread_mutex_lock(&sc->lock);
    if (!sc->seq_started || seq > sc->seq_top) {
        if (record) {
            uint32_t s;

            if (!sc->seq_started || seq - sc->seq_top >= GK5I_SRV_MAX_WINDOW) {
                memset(sc->seen, 0, sizeof(sc->seen));
            } else {
                /* The bits of the numbers now above the old top held
                 * numbers GK5I_SRV_MAX_WINDOW lower, which have left the
                 * window. */
                for (s = sc->seq_top + 1; s != seq; s++) {
                    seen_put(sc, s, false);
                }
            }
            seen_put(sc, seq, true);
            sc->seq_top = seq;
            sc->seq_started = true;
        }
    } else if (sc->seq_top - seq >= window) {
        v = SEQ_BELOW;
    } else if (seen_get(sc, seq)) {
        v = SEQ_SEEN;
    } else if (record) {
        seen_put(sc, seq, true);
    }
    (void)pthread_mutex_unlock(&sc->lock);
    return v;
}
