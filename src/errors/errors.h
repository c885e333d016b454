/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * The one error table (errors.c): a gk5 error code's GSS-API major status.
 * Its words are gk5_strerror's (gk5.h).
 */
#ifndef GK5_ERRORS_H
#define GK5_ERRORS_H

#include <stdint.h>

#include "common/util.h"

/* RFC 2744 3.9.1: integrity failure BAD_SIG, a malformed token or context
 * buffer DEFECTIVE_TOKEN, an enctype gk5 will not use UNAVAILABLE, anything
 * else (and a value that is no code) FAILURE. */
GK5_HIDDEN uint32_t gk5i_err_major(uint32_t err);

#endif
