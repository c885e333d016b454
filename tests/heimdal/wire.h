/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * The pipe between test_heimdal (Heimdal's GSS-API and libgk5) and
 * mit_peer (MIT's GSS-API and libgk5): MIT and Heimdal export the same
 * gss_* names, so no process links both, and the two halves of an interop
 * case talk over a pair of pipes instead.
 *
 * Both ends are the same build on the same machine: integers travel in
 * host byte order.  A frame is four 32-bit words, two 32-bit lengths, then
 * the two byte strings.  A request's words are {op, arg, 0, 0}; a reply's
 * are {major, minor, out, leaked} (leaked: a failed unwrap handed back
 * bytes all the same), its string a the result and its string b,
 * after a failure, the failing side's words.  Nothing here knows GSS-API
 * types.
 */
#ifndef GK5_TESTS_HEIMDAL_WIRE_H
#define GK5_TESTS_HEIMDAL_WIRE_H

#include <stddef.h>
#include <stdint.h>

/* Longest byte string either side accepts (messages are far shorter). */
#define WIRE_MAX_LEN (1u << 20)

enum wire_op {
    /* a = the initiator's token.  Accept into a fresh context (the old one
     * is deleted); reply out = ret_flags, a = the reply token. */
    WIRE_ACCEPT = 1,
    /* Reply a = struct wire_info of the current context as MIT's lucid
     * export sees it (not consuming it). */
    WIRE_INFO,
    /* arg = enum wire_path: export the MIT context into gk5 by that path;
     * later per-message operations run on gk5.  Reply a = wire_info of
     * the export. */
    WIRE_EXPORT,
    /* arg = conf_req, a = message; reply out = conf_state, a = token. */
    WIRE_WRAP,
    /* a = token; reply out = conf_state, a = message. */
    WIRE_UNWRAP,
    /* a = message; reply a = token. */
    WIRE_GET_MIC,
    /* a = message, b = token. */
    WIRE_VERIFY_MIC,
    /* arg = conf_req, a = message: wrap_iov with HEADER, DATA and PADDING
     * and no TRAILER; reply out = header length, a = the buffers end to
     * end (the token). */
    WIRE_WRAP_IOV,
    /* arg = header length, a = token: unwrap_iov with HEADER = the first
     * arg bytes and DATA = the rest; reply out = conf_state, a = message. */
    WIRE_UNWRAP_IOV,
    WIRE_QUIT
};

/* How a context travels into gk5. */
enum wire_path { WIRE_PATH_LUCID = 0, WIRE_PATH_GSSD = 1 };

/* A lucid export as the MIT side saw it, for the driver's cross-checks. */
struct wire_info {
    uint32_t initiate;
    uint32_t protocol;
    uint32_t have_acceptor_subkey;
    uint32_t ctx_key_type;
    uint32_t acceptor_subkey_type;
    uint32_t keys_equal; /* ctx_key and acceptor_subkey: same bytes */
    uint32_t endtime;
    uint32_t token_enctype; /* the key tokens are made with */
    uint64_t send_seq;
    uint64_t recv_seq;
    uint64_t ctx_key_hash; /* FNV-1a of ctx_key's bytes (wire_fnv1a) */
};

/* 64-bit FNV-1a: lets the two sides tell whether they hold the same key
 * without sending it. */
uint64_t wire_fnv1a(const void *p, size_t n);

struct wire_frame {
    uint32_t w[4];
    uint32_t len[2];
    uint8_t *buf[2]; /* malloc'd on read; NULL when the length is 0 */
};

/* Write the frame to fd (EINTR and short writes handled): 0, or -1. */
int wire_send(int fd, const uint32_t w[4], const void *a, size_t a_len,
              const void *b, size_t b_len);
/* Read one frame from fd into *f (zeroed first): 0, or -1 on EOF, error or
 * a length over WIRE_MAX_LEN. */
int wire_recv(int fd, struct wire_frame *f);
/* Free the frame's byte strings; NULL is fine. */
void wire_frame_free(struct wire_frame *f);

#endif /* GK5_TESTS_HEIMDAL_WIRE_H */
