/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * The checks every IOV list passes before a key touches it (RFC 3961 5.3's
 * lengths: confounder, padding, MAC; a checksum list's one CHECKSUM), the
 * cursor the cipher engines and one-pass drivers walk the cipher stream
 * with, and the wipe after a failed integrity check.
 */
#include <string.h>

#include "crypto_int.h"
#include "internal.h"

/* ---- IOV validation ---- */

/* RFC 3961 5.3: with a plain block mode the confounder and data are padded
 * to a whole number of blocks; with CTS (RFC 3962 5, RFC 6803, RFC 8009)
 * there is no padding. */
size_t gk5i_padding_length(const struct gk5_enctype *et, size_t data_len)
{
    size_t used;

    if (et->cts_cipher != NULL || et->block_bytes == 0) {
        return 0;
    }
    used = (et->conf_bytes % et->block_bytes + data_len % et->block_bytes) %
           et->block_bytes;
    return used == 0 ? 0 : et->block_bytes - used;
}

/*
 * An encrypt/decrypt list holds exactly one HEADER (the confounder,
 * conf_bytes), exactly one TRAILER (the MAC, mac_bytes), at most one
 * PADDING, any number of DATA and SIGN_ONLY segments of any length, and
 * EMPTY segments, which are ignored.  On encrypt PADDING must be exactly
 * gk5i_padding_length() (it may be left out when that is 0); on decrypt the
 * cipher input must be at least one block and, without CTS, whole blocks.
 */
/* (The slot check for singleton segments is the one validate_iov in
 * src/mech/iov.c makes for GSS buffers: a different type on the other
 * side of the crypto/mech line, which shares no code.) */
uint32_t gk5i_iov_check(const struct gk5_enctype *et, gk5_crypto_iov *iov,
                        size_t n, bool encrypt, struct gk5i_iov_info *info)
{
    struct gk5i_iov_info in;
    size_t sign_len = 0;

    memset(info, 0, sizeof(*info));
    memset(&in, 0, sizeof(in));
    if (iov == NULL) {
        return GK5_ERR_BAD_IOV;
    }
    for (size_t i = 0; i < n; i++) {
        gk5_crypto_iov *v = &iov[i];
        gk5_crypto_iov **slot = NULL; /* a segment there may be only one of */

        if (v->length != 0 && v->data == NULL) {
            return GK5_ERR_BAD_IOV;
        }
        switch (v->flags) {
        case GK5_CRYPTO_IOV_EMPTY:
            break;
        case GK5_CRYPTO_IOV_HEADER:
            slot = &in.header;
            break;
        case GK5_CRYPTO_IOV_TRAILER:
            slot = &in.trailer;
            break;
        case GK5_CRYPTO_IOV_PADDING:
            slot = &in.padding;
            break;
        case GK5_CRYPTO_IOV_DATA:
            if (!gk5i_add_len(&in.data_len, v->length)) {
                return GK5_ERR_BAD_IOV;
            }
            break;
        case GK5_CRYPTO_IOV_SIGN_ONLY:
            if (!gk5i_add_len(&sign_len, v->length)) {
                return GK5_ERR_BAD_IOV;
            }
            break;
        default:
            return GK5_ERR_BAD_IOV;
        }
        if (slot != NULL) {
            if (*slot != NULL) {
                return GK5_ERR_BAD_IOV;
            }
            *slot = v;
        }
    }
    if (in.header == NULL || in.header->length != et->conf_bytes ||
        in.trailer == NULL || in.trailer->length != et->mac_bytes) {
        return GK5_ERR_BAD_IOV;
    }
    in.stream_len = in.header->length;
    if (!gk5i_add_len(&in.stream_len, in.data_len) ||
        (in.padding != NULL &&
         !gk5i_add_len(&in.stream_len, in.padding->length))) {
        return GK5_ERR_BAD_IOV;
    }
    if (encrypt) {
        size_t pad = gk5i_padding_length(et, in.data_len);
        size_t have = in.padding != NULL ? in.padding->length : 0;

        if (have != pad) {
            return GK5_ERR_BAD_IOV;
        }
    } else {
        if (et->cts_cipher != NULL && in.padding != NULL &&
            in.padding->length != 0) {
            return GK5_ERR_BAD_IOV;
        }
        if (in.stream_len < et->block_bytes ||
            (et->cts_cipher == NULL && in.stream_len % et->block_bytes != 0)) {
            return GK5_ERR_BAD_CIPHERTEXT_LENGTH;
        }
    }
    *info = in;
    return GK5_OK;
}

/* ---- A cursor over the cipher stream ---- */

static bool cursor_wants(const struct gk5i_cursor *c, uint32_t flags)
{
    return flags < 32 && (c->mask & GK5I_TYPE_BIT(flags)) != 0;
}

/* The bytes left in the current segment (skipping used-up and unwanted
 * segments); NULL at the end. */
uint8_t *gk5i_cursor_peek(struct gk5i_cursor *c, size_t *avail)
{
    while (c->i < c->n && (!cursor_wants(c, c->iov[c->i].flags) ||
                           c->off >= c->iov[c->i].length)) {
        c->i++;
        c->off = 0;
    }
    if (c->i >= c->n) {
        *avail = 0;
        return NULL;
    }
    *avail = c->iov[c->i].length - c->off;
    return (uint8_t *)c->iov[c->i].data + c->off;
}

/* Copies len stream bytes out of (to_buf) or into (!to_buf) buf. */
void gk5i_cursor_copy(struct gk5i_cursor *c, uint8_t *buf, size_t len,
                      bool to_buf)
{
    while (len > 0) {
        size_t avail;
        uint8_t *p = gk5i_cursor_peek(c, &avail);
        size_t k = avail < len ? avail : len;

        if (p == NULL) {
            return; /* callers never ask for more than the stream holds */
        }
        if (to_buf) {
            memcpy(buf, p, k);
        } else {
            memcpy(p, buf, k);
        }
        buf += k;
        len -= k;
        c->off += k;
    }
}

void gk5i_iov_wipe_stream(gk5_crypto_iov *iov, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (gk5i_in_stream(iov[i].flags)) {
            zap(iov[i].data, iov[i].length);
        }
    }
}

/* A checksum list: exactly one CHECKSUM (1..cksum_bytes long); DATA,
 * SIGN_ONLY, and as in MIT's IOV semantics HEADER and PADDING, are the
 * input; EMPTY is ignored; a TRAILER has no place here. */
uint32_t gk5i_checksum_iov_check(const struct gk5_enctype *et,
                                 const gk5_crypto_iov *iov, size_t n,
                                 const gk5_crypto_iov **cksum)
{
    const gk5_crypto_iov *found = NULL;

    *cksum = NULL;
    if (iov == NULL) {
        return GK5_ERR_BAD_IOV;
    }
    for (size_t i = 0; i < n; i++) {
        if (iov[i].length != 0 && iov[i].data == NULL) {
            return GK5_ERR_BAD_IOV;
        }
        if (iov[i].flags == GK5_CRYPTO_IOV_CHECKSUM) {
            if (found != NULL) {
                return GK5_ERR_BAD_IOV;
            }
            found = &iov[i];
        } else if (iov[i].flags != GK5_CRYPTO_IOV_EMPTY &&
                   !gk5i_in_mac(iov[i].flags)) {
            return GK5_ERR_BAD_IOV;
        }
    }
    if (found == NULL || found->length == 0 ||
        found->length > et->cksum_bytes) {
        return GK5_ERR_BAD_IOV;
    }
    *cksum = found;
    return GK5_OK;
}
