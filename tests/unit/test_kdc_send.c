/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * The KDC transport (src/krb5/kdc_send.c) against fake KDCs on 127.0.0.1,
 * each a thread of this test with a UDP and a TCP socket on one ephemeral
 * port: a reply over UDP; garbage datagrams dropped; KRB-ERROR 52 over
 * UDP, then TCP; TCP only for a request over udp_limit; a KDC that is down
 * (refused at once), one that is silent (the next answers after the first
 * wait), all silent (GK5_ERR_KDC_UNREACHABLE by timeout_ms); TCP records
 * that are not replies (the reserved bit, over the limit, cut short); a
 * reply of the wrong kind only (GK5_ERR_KDC_REPLY); a name that does not
 * resolve.  Every test checks that no descriptor is left open.
 *
 * Times: only bounds a loaded machine keeps (a wait that must have
 * happened, an upper bound several times the expected time).
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/trace.h"
#include "krb5/krb5_int.h"

#define AS_REP 11
#define TGS_REP 13

/* ---- fake KDCs ---- */

enum fake_mode {
    F_ANSWER,         /* UDP and TCP: the reply */
    F_GARBAGE_FIRST,  /* UDP: datagrams that are not replies, then it */
    F_TOO_BIG,        /* UDP: KRB-ERROR 52; TCP: the reply */
    F_KRB_ERROR,      /* UDP: KRB-ERROR 6 (a reply like any other) */
    F_SILENT,         /* reads and never answers */
    F_WRONG_TAG,      /* UDP: a TGS-REP (0x6d) only */
    F_TCP_HIGH_BIT,   /* TCP: a length with the reserved bit */
    F_TCP_OVER_LIMIT, /* TCP: a length over GK5I_KRB_MAX_MESSAGE */
    F_TCP_SHORT,      /* TCP: a length, part of the body, then close */
    F_TCP_BIG,        /* TCP: a 100000-byte reply */
};

struct fake {
    enum fake_mode mode;
    uint8_t id; /* in the reply, to tell KDCs apart */
    int udp_fd, tcp_fd;
    uint16_t port;
    pthread_t thread;
    atomic_bool stop;
    atomic_uint udp_reqs, tcp_reqs;
    atomic_size_t last_req_len;
};

static int64_t mono_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* An AS-REP-looking message: [APPLICATION tag] { SEQUENCE { INTEGER id,
 * and when pad > 0 an OCTET STRING of pad zero bytes } }, every length in
 * the three-byte long form (not minimal: the transport reads only the
 * framing).  The length: 13, plus 5 + pad with padding. */
static void put_len3(uint8_t *p, size_t len)
{
    p[0] = 0x83;
    p[1] = (uint8_t)(len >> 16);
    p[2] = (uint8_t)(len >> 8);
    p[3] = (uint8_t)len;
}

static size_t make_reply(uint8_t *out, size_t cap, uint8_t tag, uint8_t id,
                         size_t pad)
{
    size_t inner = 3 + (pad > 0 ? 5 + pad : 0);
    size_t n = 0;

    assert_true(10 + inner <= cap);
    out[n++] = 0x60 | tag;
    put_len3(out + n, 5 + inner);
    n += 4;
    out[n++] = 0x30;
    put_len3(out + n, inner);
    n += 4;
    out[n++] = 0x02;
    out[n++] = 0x01;
    out[n++] = id;
    if (pad > 0) {
        out[n++] = 0x04;
        put_len3(out + n, pad);
        n += 4;
        memset(out + n, 0, pad);
        n += pad;
    }
    return n;
}

/* The reply's id, or -1 when it does not look like make_reply's. */
static int reply_id(const uint8_t *r, size_t len)
{
    if (len < 13 || r[1] != 0x83 || r[5] != 0x30 || r[10] != 0x02) {
        return -1;
    }
    return r[12];
}

static size_t make_krb_error(uint8_t *out, size_t cap, int32_t code)
{
    static const uint8_t realm[] = "EXAMPLE.COM";
    static const uint8_t krbtgt[] = "krbtgt";
    struct gk5i_krb_error e = {0};
    size_t len = 0;

    e.stime = 1767225600; /* 2026-01-01 */
    e.error_code = code;
    e.realm = (struct gk5i_view){realm, sizeof(realm) - 1};
    e.sname.name_type = 2;
    e.sname.ncomp = 2;
    e.sname.comp[0] = (struct gk5i_view){krbtgt, sizeof(krbtgt) - 1};
    e.sname.comp[1] = e.realm;
    assert_int_equal(gk5i_encode_krb_error(&e, out, cap, &len), GK5_OK);
    assert_int_equal(out[0], 0x7e);
    return len;
}

static void send_udp(int fd, const struct sockaddr_storage *to, socklen_t tl,
                     const uint8_t *p, size_t n)
{
    (void)sendto(fd, p, n, MSG_NOSIGNAL, (const struct sockaddr *)to, tl);
}

static void fake_udp(struct fake *f)
{
    static uint8_t buf[70000];
    static const uint8_t junk1[] = {0x00, 0x01, 0x02};
    /* The right tag, a length that does not cover the datagram. */
    static const uint8_t junk2[] = {0x6b, 0x05, 0x30, 0x03};
    /* The right tag, with bytes after the length it gives. */
    static const uint8_t junk4[] = {0x6b, 0x02, 0x30, 0x00, 0xff};
    /* A KRB-ERROR's tag on bytes that are not one. */
    static const uint8_t junk3[] = {0x7e, 0x02, 0x30, 0x00};
    uint8_t out[512];
    struct sockaddr_storage from;
    socklen_t fl = sizeof(from);
    ssize_t n;
    size_t len;

    n = recvfrom(f->udp_fd, buf, sizeof(buf), 0, (struct sockaddr *)&from, &fl);
    if (n < 0) {
        return;
    }
    atomic_fetch_add(&f->udp_reqs, 1);
    atomic_store(&f->last_req_len, (size_t)n);
    switch (f->mode) {
    case F_GARBAGE_FIRST:
        send_udp(f->udp_fd, &from, fl, junk1, sizeof(junk1));
        send_udp(f->udp_fd, &from, fl, junk2, sizeof(junk2));
        send_udp(f->udp_fd, &from, fl, junk3, sizeof(junk3));
        send_udp(f->udp_fd, &from, fl, junk4, sizeof(junk4));
        len = make_reply(out, sizeof(out), TGS_REP, f->id, 0);
        send_udp(f->udp_fd, &from, fl, out, len);
        __attribute__((fallthrough)); /* then the answer itself */
    case F_ANSWER:
        len = make_reply(out, sizeof(out), AS_REP, f->id, 0);
        send_udp(f->udp_fd, &from, fl, out, len);
        break;
    case F_TOO_BIG:
        len = make_krb_error(out, sizeof(out), 52);
        send_udp(f->udp_fd, &from, fl, out, len);
        break;
    case F_KRB_ERROR:
        len = make_krb_error(out, sizeof(out), 6);
        send_udp(f->udp_fd, &from, fl, out, len);
        break;
    case F_WRONG_TAG:
        len = make_reply(out, sizeof(out), TGS_REP, f->id, 0);
        send_udp(f->udp_fd, &from, fl, out, len);
        break;
    default:
        break;
    }
}

/* Read n bytes from a blocking-with-timeout socket; false on EOF, error or
 * 2 s without progress. */
static bool fake_read(int fd, uint8_t *p, size_t n)
{
    while (n > 0) {
        struct pollfd pf = {.fd = fd, .events = POLLIN};
        ssize_t r;

        if (poll(&pf, 1, 2000) <= 0) {
            return false;
        }
        r = recv(fd, p, n, 0);
        if (r <= 0) {
            return false;
        }
        p += r;
        n -= (size_t)r;
    }
    return true;
}

static void fake_write(int fd, const uint8_t *p, size_t n)
{
    while (n > 0) {
        struct pollfd pf = {.fd = fd, .events = POLLOUT};
        ssize_t w;

        if (poll(&pf, 1, 2000) <= 0) {
            return;
        }
        w = send(fd, p, n, MSG_NOSIGNAL);
        if (w <= 0) {
            return;
        }
        p += w;
        n -= (size_t)w;
    }
}

static void fake_tcp(struct fake *f)
{
    static uint8_t req[70000];
    static uint8_t out[100100];
    uint8_t hdr[4];
    uint32_t len;
    size_t n;
    int c;

    c = accept4(f->tcp_fd, NULL, NULL, SOCK_CLOEXEC);
    if (c < 0) {
        return;
    }
    atomic_fetch_add(&f->tcp_reqs, 1);
    if (!fake_read(c, hdr, 4)) {
        goto done;
    }
    len = load_be32(hdr);
    if (len > sizeof(req) || !fake_read(c, req, len)) {
        goto done;
    }
    atomic_store(&f->last_req_len, (size_t)len);
    switch (f->mode) {
    case F_ANSWER:
    case F_TOO_BIG:
    case F_TCP_BIG:
        n = make_reply(out + 4, sizeof(out) - 4, AS_REP, f->id,
                       f->mode == F_TCP_BIG ? 100000 : 0);
        store_be32(out, (uint32_t)n);
        fake_write(c, out, n + 4);
        break;
    case F_TCP_HIGH_BIT:
        n = make_reply(out + 4, sizeof(out) - 4, AS_REP, f->id, 0);
        store_be32(out, (uint32_t)n | 0x80000000u);
        fake_write(c, out, n + 4);
        break;
    case F_TCP_OVER_LIMIT:
        store_be32(out, GK5I_KRB_MAX_MESSAGE + 1);
        fake_write(c, out, 4);
        break;
    case F_TCP_SHORT:
        n = make_reply(out + 4, sizeof(out) - 4, AS_REP, f->id, 0);
        store_be32(out, (uint32_t)n + 10);
        fake_write(c, out, n + 4);
        break;
    case F_SILENT: {
        /* Hold the connection open until told to stop (bounded). */
        int64_t end = mono_ms() + 10000;

        while (!atomic_load(&f->stop) && mono_ms() < end) {
            usleep(10000);
        }
        break;
    }
    default:
        break;
    }
done:
    close(c);
}

static void *fake_main(void *arg)
{
    struct fake *f = arg;
    int64_t end = mono_ms() + 60000;

    for (unsigned i = 0;
         i < 100000 && !atomic_load(&f->stop) && mono_ms() < end; i++) {
        struct pollfd pf[2] = {{.fd = f->udp_fd, .events = POLLIN},
                               {.fd = f->tcp_fd, .events = POLLIN}};

        if (poll(pf, 2, 20) <= 0) {
            continue;
        }
        if (pf[0].revents & POLLIN) {
            fake_udp(f);
        }
        if (pf[1].revents & POLLIN) {
            fake_tcp(f);
        }
    }
    return NULL;
}

static int bind_local(int type, uint16_t port)
{
    struct sockaddr_in a = {.sin_family = AF_INET,
                            .sin_port = htons(port),
                            .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    int fd = socket(AF_INET, type | SOCK_CLOEXEC, 0);

    assert_true(fd >= 0);
    if (type == SOCK_STREAM) {
        int one = 1;

        assert_int_equal(
            setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)), 0);
    }
    if (bind(fd, (struct sockaddr *)&a, sizeof(a)) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

static uint16_t local_port(int fd)
{
    struct sockaddr_in a;
    socklen_t l = sizeof(a);

    assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &l), 0);
    return ntohs(a.sin_port);
}

/* A UDP and a TCP socket on one ephemeral port, and the thread. */
static void fake_start(struct fake *f, enum fake_mode mode, uint8_t id)
{
    memset(f, 0, sizeof(*f));
    f->mode = mode;
    f->id = id;
    f->tcp_fd = -1;
    for (int tries = 0; tries < 50 && f->tcp_fd < 0; tries++) {
        f->udp_fd = bind_local(SOCK_DGRAM, 0);
        assert_true(f->udp_fd >= 0);
        f->port = local_port(f->udp_fd);
        f->tcp_fd = bind_local(SOCK_STREAM, f->port);
        if (f->tcp_fd < 0) {
            close(f->udp_fd);
        }
    }
    assert_true(f->tcp_fd >= 0);
    assert_int_equal(listen(f->tcp_fd, 8), 0);
    atomic_init(&f->stop, false);
    atomic_init(&f->udp_reqs, 0);
    atomic_init(&f->tcp_reqs, 0);
    atomic_init(&f->last_req_len, 0);
    assert_int_equal(pthread_create(&f->thread, NULL, fake_main, f), 0);
}

static void fake_stop(struct fake *f)
{
    atomic_store(&f->stop, true);
    assert_int_equal(pthread_join(f->thread, NULL), 0);
    close(f->udp_fd);
    close(f->tcp_fd);
}

/* A port where nothing listens: bound, read, closed. */
static uint16_t closed_port(void)
{
    int fd = bind_local(SOCK_DGRAM, 0);
    uint16_t port;

    assert_true(fd >= 0);
    port = local_port(fd);
    close(fd);
    return port;
}

static void set_kdc(struct gk5i_kdc_addr *k, const char *host, uint16_t port)
{
    memset(k, 0, sizeof(*k));
    snprintf(k->host, sizeof(k->host), "%s", host);
    k->port = port;
}

static int count_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    struct dirent *e;
    int n = 0;

    assert_non_null(d);
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] != '.') {
            n++;
        }
    }
    closedir(d);
    return n - 1; /* the directory's own */
}

/* ---- the calls ---- */

static uint8_t small_req[100];
static uint8_t large_req[3000];

struct result {
    uint32_t ret;
    uint8_t *reply;
    size_t len;
    int64_t ms;
};

static struct result send_to(const struct gk5i_kdc_addr *k, size_t n,
                             const uint8_t *req, size_t req_len, uint8_t expect,
                             uint32_t udp_limit, uint32_t timeout_ms)
{
    struct result r = {0};
    int64_t t0 = mono_ms();

    r.ret = gk5i_kdc_send(k, n, req, req_len, expect, udp_limit, timeout_ms,
                          &r.reply, &r.len);
    r.ms = mono_ms() - t0;
    if (r.ret != GK5_OK) {
        assert_null(r.reply);
        assert_int_equal(r.len, 0);
    }
    return r;
}

static char trace_path[64];

static void trace_start(void)
{
    int fd;

    snprintf(trace_path, sizeof(trace_path), "/tmp/gk5-kdcsend-XXXXXX");
    fd = mkstemp(trace_path);
    assert_true(fd >= 0);
    close(fd);
    assert_int_equal(setenv("GK5_TRACE", trace_path, 1), 0);
    gk5i_trace_reset();
}

/* The trace so far, NUL-terminated (free()); tracing off again. */
static char *trace_end(void)
{
    static const size_t cap = 65536;
    char *s = calloc(1, cap);
    FILE *fp = fopen(trace_path, "r");
    size_t n;

    assert_non_null(s);
    assert_non_null(fp);
    n = fread(s, 1, cap - 1, fp);
    s[n] = '\0';
    fclose(fp);
    unlink(trace_path);
    assert_int_equal(unsetenv("GK5_TRACE"), 0);
    gk5i_trace_reset();
    return s;
}

/* ---- the tests ---- */

static void test_udp_reply(void **state)
{
    struct fake f;
    struct gk5i_kdc_addr k;
    struct result r;
    int fds = count_fds();

    (void)state;
    fake_start(&f, F_ANSWER, 7);
    set_kdc(&k, "127.0.0.1", f.port);
    r = send_to(&k, 1, small_req, sizeof(small_req), AS_REP, 1465, 10000);
    assert_int_equal(r.ret, GK5_OK);
    assert_int_equal(reply_id(r.reply, r.len), 7);
    assert_int_equal(r.reply[0], 0x6b);
    free(r.reply);
    fake_stop(&f);
    assert_int_equal(atomic_load(&f.udp_reqs), 1);
    assert_int_equal(atomic_load(&f.tcp_reqs), 0);
    assert_int_equal(atomic_load(&f.last_req_len), sizeof(small_req));
    assert_int_equal(count_fds(), fds);
}

/* A KRB-ERROR other than 52 is the KDC's answer, returned as it is. */
static void test_udp_krb_error(void **state)
{
    struct fake f;
    struct gk5i_kdc_addr k;
    struct gk5i_krb_error e;
    struct result r;
    int fds = count_fds();

    (void)state;
    fake_start(&f, F_KRB_ERROR, 1);
    set_kdc(&k, "127.0.0.1", f.port);
    r = send_to(&k, 1, small_req, sizeof(small_req), AS_REP, 1465, 10000);
    assert_int_equal(r.ret, GK5_OK);
    assert_int_equal(gk5i_decode_krb_error(r.reply, r.len, &e), GK5_OK);
    assert_int_equal(e.error_code, 6);
    free(r.reply);
    fake_stop(&f);
    assert_int_equal(atomic_load(&f.tcp_reqs), 0);
    assert_int_equal(count_fds(), fds);
}

static void test_garbage_dropped(void **state)
{
    struct fake f;
    struct gk5i_kdc_addr k;
    struct result r;
    int fds = count_fds();

    (void)state;
    fake_start(&f, F_GARBAGE_FIRST, 9);
    set_kdc(&k, "127.0.0.1", f.port);
    r = send_to(&k, 1, small_req, sizeof(small_req), AS_REP, 1465, 10000);
    assert_int_equal(r.ret, GK5_OK);
    assert_int_equal(r.reply[0], 0x6b);
    assert_int_equal(reply_id(r.reply, r.len), 9);
    free(r.reply);
    fake_stop(&f);
    assert_int_equal(atomic_load(&f.udp_reqs), 1);
    assert_int_equal(count_fds(), fds);
}

static void test_too_big_then_tcp(void **state)
{
    struct fake f;
    struct gk5i_kdc_addr k;
    struct result r;
    int fds = count_fds();

    (void)state;
    fake_start(&f, F_TOO_BIG, 3);
    set_kdc(&k, "127.0.0.1", f.port);
    r = send_to(&k, 1, small_req, sizeof(small_req), AS_REP, 1465, 10000);
    assert_int_equal(r.ret, GK5_OK);
    assert_int_equal(r.reply[0], 0x6b);
    assert_int_equal(reply_id(r.reply, r.len), 3);
    free(r.reply);
    fake_stop(&f);
    assert_int_equal(atomic_load(&f.udp_reqs), 1);
    assert_int_equal(atomic_load(&f.tcp_reqs), 1);
    assert_int_equal(atomic_load(&f.last_req_len), sizeof(small_req));
    assert_int_equal(count_fds(), fds);
}

static void test_tcp_when_large(void **state)
{
    struct fake f;
    struct gk5i_kdc_addr k;
    struct result r;
    int fds = count_fds();

    (void)state;
    fake_start(&f, F_ANSWER, 4);
    set_kdc(&k, "127.0.0.1", f.port);
    r = send_to(&k, 1, large_req, sizeof(large_req), AS_REP, 1465, 10000);
    assert_int_equal(r.ret, GK5_OK);
    assert_int_equal(reply_id(r.reply, r.len), 4);
    free(r.reply);
    assert_int_equal(atomic_load(&f.udp_reqs), 0);
    assert_int_equal(atomic_load(&f.tcp_reqs), 1);
    assert_int_equal(atomic_load(&f.last_req_len), sizeof(large_req));
    /* At the limit: UDP; udp_limit 0: TCP for all. */
    r = send_to(&k, 1, small_req, sizeof(small_req), AS_REP, sizeof(small_req),
                10000);
    assert_int_equal(r.ret, GK5_OK);
    free(r.reply);
    assert_int_equal(atomic_load(&f.udp_reqs), 1);
    r = send_to(&k, 1, small_req, sizeof(small_req), AS_REP, 0, 10000);
    assert_int_equal(r.ret, GK5_OK);
    free(r.reply);
    fake_stop(&f);
    assert_int_equal(atomic_load(&f.udp_reqs), 1);
    assert_int_equal(atomic_load(&f.tcp_reqs), 2);
    assert_int_equal(count_fds(), fds);
}

static void test_tcp_big_reply(void **state)
{
    struct fake f;
    struct gk5i_kdc_addr k;
    struct result r;
    int fds = count_fds();

    (void)state;
    fake_start(&f, F_TCP_BIG, 5);
    set_kdc(&k, "127.0.0.1", f.port);
    r = send_to(&k, 1, large_req, sizeof(large_req), AS_REP, 1465, 10000);
    assert_int_equal(r.ret, GK5_OK);
    assert_int_equal(r.len, 13 + 5 + 100000);
    assert_int_equal(reply_id(r.reply, r.len), 5);
    assert_int_equal(r.reply[0], 0x6b);
    free(r.reply);
    fake_stop(&f);
    assert_int_equal(count_fds(), fds);
}

/* A closed port: ICMP port unreachable, the next KDC at once. */
static void test_down_then_good(void **state)
{
    struct fake f;
    struct gk5i_kdc_addr k[2];
    struct result r;
    char *tr;
    int fds = count_fds();

    (void)state;
    fake_start(&f, F_ANSWER, 2);
    set_kdc(&k[0], "127.0.0.1", closed_port());
    set_kdc(&k[1], "127.0.0.1", f.port);
    trace_start();
    r = send_to(k, 2, small_req, sizeof(small_req), AS_REP, 1465, 10000);
    tr = trace_end();
    assert_int_equal(r.ret, GK5_OK);
    assert_int_equal(reply_id(r.reply, r.len), 2);
    free(r.reply);
    /* Left for the refusal, not for the first wait. */
    assert_non_null(strstr(tr, "Connection refused"));
    assert_non_null(strstr(tr, "reply, "));
    assert_true(r.ms < 5000);
    free(tr);

    /* Over TCP too: the RST. */
    r = send_to(k, 2, large_req, sizeof(large_req), AS_REP, 1465, 10000);
    assert_int_equal(r.ret, GK5_OK);
    assert_int_equal(reply_id(r.reply, r.len), 2);
    free(r.reply);
    fake_stop(&f);
    assert_int_equal(count_fds(), fds);
}

static void test_silent_then_good(void **state)
{
    struct fake s, g;
    struct gk5i_kdc_addr k[2];
    struct result r;
    int fds = count_fds();

    (void)state;
    fake_start(&s, F_SILENT, 1);
    fake_start(&g, F_ANSWER, 2);
    set_kdc(&k[0], "127.0.0.1", s.port);
    set_kdc(&k[1], "127.0.0.1", g.port);
    r = send_to(k, 2, small_req, sizeof(small_req), AS_REP, 1465, 10000);
    assert_int_equal(r.ret, GK5_OK);
    assert_int_equal(reply_id(r.reply, r.len), 2);
    free(r.reply);
    /* The first KDC's wait (1 s) was spent before the second was asked. */
    assert_true(r.ms >= 950);
    assert_true(r.ms < 5000);
    fake_stop(&s);
    fake_stop(&g);
    assert_int_equal(atomic_load(&s.udp_reqs), 1);
    assert_int_equal(atomic_load(&g.udp_reqs), 1);
    assert_int_equal(count_fds(), fds);
}

static void test_all_silent(void **state)
{
    struct fake s[2];
    struct gk5i_kdc_addr k[2];
    struct result r;
    int fds = count_fds();

    (void)state;
    for (int i = 0; i < 2; i++) {
        fake_start(&s[i], F_SILENT, (uint8_t)i);
        set_kdc(&k[i], "127.0.0.1", s[i].port);
    }
    r = send_to(k, 2, small_req, sizeof(small_req), AS_REP, 1465, 1500);
    assert_int_equal(r.ret, GK5_ERR_KDC_UNREACHABLE);
    assert_true(r.ms >= 1450);
    assert_true(r.ms < 5000);
    assert_int_equal(atomic_load(&s[0].udp_reqs), 1);
    assert_int_equal(atomic_load(&s[1].udp_reqs), 1);

    /* One KDC, time for both rounds: asked twice (1 s, then 2 s). */
    r = send_to(k, 1, small_req, sizeof(small_req), AS_REP, 1465, 20000);
    assert_int_equal(r.ret, GK5_ERR_KDC_UNREACHABLE);
    assert_true(r.ms >= 2900);
    assert_true(r.ms < 10000);
    assert_int_equal(atomic_load(&s[0].udp_reqs), 3);

    /* Over TCP: connected, never answered. */
    r = send_to(k, 2, large_req, sizeof(large_req), AS_REP, 1465, 1500);
    assert_int_equal(r.ret, GK5_ERR_KDC_UNREACHABLE);
    assert_true(r.ms < 5000);
    for (int i = 0; i < 2; i++) {
        fake_stop(&s[i]);
    }
    assert_int_equal(count_fds(), fds);
}

/* Records that are not replies: the KDC is left, the next one asked; with
 * no other, GK5_ERR_KDC_REPLY, without waiting out the time. */
static void test_tcp_not_a_reply(void **state)
{
    static const enum fake_mode bad[] = {F_TCP_HIGH_BIT, F_TCP_OVER_LIMIT,
                                         F_TCP_SHORT};
    struct fake g;
    int fds = count_fds();

    (void)state;
    fake_start(&g, F_ANSWER, 8);
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        struct fake b;
        struct gk5i_kdc_addr k[2];
        struct result r;

        fake_start(&b, bad[i], 1);
        set_kdc(&k[0], "127.0.0.1", b.port);
        set_kdc(&k[1], "127.0.0.1", g.port);
        r = send_to(k, 2, large_req, sizeof(large_req), AS_REP, 1465, 10000);
        assert_int_equal(r.ret, GK5_OK);
        assert_int_equal(reply_id(r.reply, r.len), 8);
        free(r.reply);

        r = send_to(k, 1, large_req, sizeof(large_req), AS_REP, 1465, 10000);
        assert_int_equal(r.ret, GK5_ERR_KDC_REPLY);
        assert_true(r.ms < 5000);
        fake_stop(&b);
        /* Once in the first call, twice (two rounds) in the second. */
        assert_int_equal(atomic_load(&b.tcp_reqs), 3);
    }
    fake_stop(&g);
    assert_int_equal(count_fds(), fds);
}

/* Only replies of the wrong kind (a TGS-REP for an AS-REQ): dropped, and
 * the answer says something came that was never a reply. */
static void test_wrong_tag_only(void **state)
{
    struct fake f;
    struct gk5i_kdc_addr k;
    struct result r;
    int fds = count_fds();

    (void)state;
    fake_start(&f, F_WRONG_TAG, 1);
    set_kdc(&k, "127.0.0.1", f.port);
    r = send_to(&k, 1, small_req, sizeof(small_req), AS_REP, 1465, 1500);
    assert_int_equal(r.ret, GK5_ERR_KDC_REPLY);
    assert_true(r.ms >= 1450);
    assert_true(r.ms < 5000);
    /* The same bytes are the reply to a TGS-REQ. */
    r = send_to(&k, 1, small_req, sizeof(small_req), TGS_REP, 1465, 1500);
    assert_int_equal(r.ret, GK5_OK);
    assert_int_equal(r.reply[0], 0x6d);
    free(r.reply);
    fake_stop(&f);
    assert_int_equal(count_fds(), fds);
}

static void test_unresolvable_then_good(void **state)
{
    struct fake f;
    struct gk5i_kdc_addr k[2];
    struct result r;
    char *tr;
    int fds = count_fds();

    (void)state;
    fake_start(&f, F_ANSWER, 6);
    set_kdc(&k[0], "nonexistent.invalid", 88);
    set_kdc(&k[1], "127.0.0.1", f.port);
    trace_start();
    r = send_to(k, 2, small_req, sizeof(small_req), AS_REP, 1465, 10000);
    tr = trace_end();
    assert_int_equal(r.ret, GK5_OK);
    assert_int_equal(reply_id(r.reply, r.len), 6);
    free(r.reply);
    assert_non_null(strstr(tr, "nonexistent.invalid:88: cannot resolve"));
    free(tr);
    /* Alone: nothing to ask. */
    r = send_to(k, 1, small_req, sizeof(small_req), AS_REP, 1465, 10000);
    assert_int_equal(r.ret, GK5_ERR_KDC_UNREACHABLE);
    fake_stop(&f);
    assert_int_equal(count_fds(), fds);
}

static void test_bad_arguments(void **state)
{
    struct gk5i_kdc_addr k[GK5I_MAX_KDCS + 1];
    uint8_t *reply = (uint8_t *)1;
    size_t len = 1;

    (void)state;
    for (size_t i = 0; i < GK5I_MAX_KDCS + 1; i++) {
        set_kdc(&k[i], "127.0.0.1", 88);
    }
    assert_int_equal(gk5i_kdc_send(NULL, 1, small_req, sizeof(small_req),
                                   AS_REP, 1465, 100, &reply, &len),
                     GK5_ERR_INVALID_ARGUMENT);
    assert_null(reply);
    assert_int_equal(len, 0);
    assert_int_equal(gk5i_kdc_send(k, 0, small_req, sizeof(small_req), AS_REP,
                                   1465, 100, &reply, &len),
                     GK5_ERR_INVALID_ARGUMENT);
    assert_int_equal(gk5i_kdc_send(k, GK5I_MAX_KDCS + 1, small_req,
                                   sizeof(small_req), AS_REP, 1465, 100, &reply,
                                   &len),
                     GK5_ERR_INVALID_ARGUMENT);
    assert_int_equal(
        gk5i_kdc_send(k, 1, NULL, 10, AS_REP, 1465, 100, &reply, &len),
        GK5_ERR_INVALID_ARGUMENT);
    assert_int_equal(
        gk5i_kdc_send(k, 1, small_req, 0, AS_REP, 1465, 100, &reply, &len),
        GK5_ERR_INVALID_ARGUMENT);
    assert_int_equal(gk5i_kdc_send(k, 1, small_req, GK5I_KRB_MAX_MESSAGE + 1,
                                   AS_REP, 1465, 100, &reply, &len),
                     GK5_ERR_INVALID_ARGUMENT);
    assert_int_equal(gk5i_kdc_send(k, 1, small_req, sizeof(small_req), 31, 1465,
                                   100, &reply, &len),
                     GK5_ERR_INVALID_ARGUMENT);
    assert_int_equal(gk5i_kdc_send(k, 1, small_req, sizeof(small_req), AS_REP,
                                   1465, 100, NULL, &len),
                     GK5_ERR_INVALID_ARGUMENT);
    assert_int_equal(gk5i_kdc_send(k, 1, small_req, sizeof(small_req), AS_REP,
                                   1465, 100, &reply, NULL),
                     GK5_ERR_INVALID_ARGUMENT);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bad_arguments),
        cmocka_unit_test(test_udp_reply),
        cmocka_unit_test(test_udp_krb_error),
        cmocka_unit_test(test_garbage_dropped),
        cmocka_unit_test(test_too_big_then_tcp),
        cmocka_unit_test(test_tcp_when_large),
        cmocka_unit_test(test_tcp_big_reply),
        cmocka_unit_test(test_down_then_good),
        cmocka_unit_test(test_silent_then_good),
        cmocka_unit_test(test_all_silent),
        cmocka_unit_test(test_tcp_not_a_reply),
        cmocka_unit_test(test_wrong_tag_only),
        cmocka_unit_test(test_unresolvable_then_good),
    };

    for (size_t i = 0; i < sizeof(small_req); i++) {
        small_req[i] = (uint8_t)i;
    }
    small_req[0] = 0x6a; /* an AS-REQ's tag; the fakes do not read it */
    large_req[0] = 0x6a;
    return cmocka_run_group_tests(tests, NULL, NULL);
}
