/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * Frames on the pipe between test_heimdal and mit_peer (wire.h).
 */
#include "wire.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int write_all(int fd, const void *p, size_t n)
{
    const uint8_t *b = p;

    while (n > 0) {
        ssize_t w = write(fd, b, n);
        if (w < 0 && errno == EINTR) {
            continue;
        }
        if (w <= 0) {
            return -1;
        }
        b += w;
        n -= (size_t)w;
    }
    return 0;
}

static int read_all(int fd, void *p, size_t n)
{
    uint8_t *b = p;

    while (n > 0) {
        ssize_t r = read(fd, b, n);
        if (r < 0 && errno == EINTR) {
            continue;
        }
        if (r <= 0) {
            return -1;
        }
        b += r;
        n -= (size_t)r;
    }
    return 0;
}

int wire_send(int fd, const uint32_t w[4], const void *a, size_t a_len,
              const void *b, size_t b_len)
{
    uint32_t head[6];

    if (a_len > WIRE_MAX_LEN || b_len > WIRE_MAX_LEN) {
        return -1;
    }
    memcpy(head, w, 4 * sizeof(uint32_t));
    head[4] = (uint32_t)a_len;
    head[5] = (uint32_t)b_len;
    if (write_all(fd, head, sizeof(head)) != 0 ||
        (a_len > 0 && write_all(fd, a, a_len) != 0) ||
        (b_len > 0 && write_all(fd, b, b_len) != 0)) {
        return -1;
    }
    return 0;
}

int wire_recv(int fd, struct wire_frame *f)
{
    uint32_t head[6];

    memset(f, 0, sizeof(*f));
    if (read_all(fd, head, sizeof(head)) != 0) {
        return -1;
    }
    memcpy(f->w, head, sizeof(f->w));
    for (int i = 0; i < 2; i++) {
        f->len[i] = head[4 + i];
        if (f->len[i] > WIRE_MAX_LEN) {
            goto fail;
        }
        if (f->len[i] == 0) {
            continue;
        }
        f->buf[i] = malloc(f->len[i]);
        if (f->buf[i] == NULL || read_all(fd, f->buf[i], f->len[i]) != 0) {
            goto fail;
        }
    }
    return 0;

fail:
    wire_frame_free(f);
    return -1;
}

void wire_frame_free(struct wire_frame *f)
{
    if (f == NULL) {
        return;
    }
    for (int i = 0; i < 2; i++) {
        free(f->buf[i]);
        f->buf[i] = NULL;
        f->len[i] = 0;
    }
}

uint64_t wire_fnv1a(const void *p, size_t n)
{
    const uint8_t *b = p;
    uint64_t h = 0xcbf29ce484222325u;

    for (size_t i = 0; i < n; i++) {
        h = (h ^ b[i]) * 0x100000001b3u;
    }
    return h;
}
