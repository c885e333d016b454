/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/* gk5 bench --contexts N (bench/contexts.c). */
#ifndef GK5_BENCH_CONTEXTS_H
#define GK5_BENCH_CONTEXTS_H

#include <stddef.h>
#include <stdint.h>

#include "bridge/mit_realm.h"

/* N contexts of each enctype, gk5 and MIT, printed as a table; the number
 * of enctypes that failed. */
int bench_contexts(gk5_mit_realm *realm, const int32_t *enctypes,
                   size_t n_enctypes, unsigned n);

#endif /* GK5_BENCH_CONTEXTS_H */
