/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * The AS exchange's reply checks (src/krb5/kdc_client.c) against a fake
 * KDC: a thread on 127.0.0.1 (UDP) answering each AS-REQ with a reply
 * crafted by the codec's encoders and encrypted with a known password's
 * key.  Each crafted flaw must be refused with its own code and leave no
 * credential behind.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "krb5/krb5_int.h"

#define REALM "FAKE.TEST"
#define USER "user"
#define PASSWORD "fake-kdc-password"

enum flaw {
    FLAW_NONE,
    FLAW_GARBAGE,
    FLAW_NONCE,
    FLAW_CNAME,
    FLAW_SNAME,
    FLAW_RC4_KEY,
};

static int kdc_fd = -1;
static uint16_t kdc_port;
static enum flaw flaw;
static pthread_t kdc_thread;
static char conf_path[64];

/* The request's nonce: KDC-REQ-BODY's [7] INTEGER.  The body before it
 * holds only options, names and times, none with the byte 0xa7 (the test
 * names are ASCII), so the first "a7 len 02" is the nonce. */
static uint32_t find_nonce(const uint8_t *p, size_t n)
{
    for (size_t i = 0; i + 4 < n; i++) {
        if (p[i] == 0xa7 && p[i + 2] == 0x02 && p[i + 3] >= 1 &&
            p[i + 3] <= 5 && i + 4 + p[i + 3] <= n) {
            uint32_t v = 0;
            for (size_t k = 0; k < p[i + 3]; k++) {
                v = (v << 8) | p[i + 4 + k];
            }
            return v;
        }
    }
    return 0;
}

static void encrypt3(const uint8_t *key, const uint8_t *plain, size_t plen,
                     uint8_t *out, size_t *out_len)
{
    const struct gk5_enctype *et = gk5i_enctype_get(18);
    struct gk5i_subkeys sk;
    gk5_ukey *uk = NULL;
    gk5_crypto_iov iov[3];
    size_t n = et->conf_bytes + plen + et->mac_bytes;

    assert_int_equal(gk5i_derive_subkeys(et, key, 32, 3, &sk), GK5_OK);
    assert_int_equal(gk5i_ukey_new(et, &sk, &uk), GK5_OK);
    memcpy(out + et->conf_bytes, plain, plen);
    iov[0] = (gk5_crypto_iov){GK5_CRYPTO_IOV_HEADER, out, et->conf_bytes};
    iov[1] = (gk5_crypto_iov){GK5_CRYPTO_IOV_DATA, out + et->conf_bytes, plen};
    iov[2] = (gk5_crypto_iov){GK5_CRYPTO_IOV_TRAILER,
                              out + et->conf_bytes + plen, et->mac_bytes};
    assert_int_equal(gk5i_encrypt_iov(uk, NULL, iov, 3), GK5_OK);
    gk5i_ukey_free(uk);
    *out_len = n;
}

static size_t make_reply(uint32_t nonce, uint8_t *out, size_t cap)
{
    static const uint8_t sesskey[32] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
    static const uint8_t tkt_cipher[64] = {0x42};
    uint8_t ckey[32], plain[1024], enc[1200];
    const char *salt = REALM USER;
    struct gk5i_krb_enc_kdc_rep_part part;
    struct gk5i_krb_kdc_rep rep;
    size_t plen = 0, elen = 0, len = 0;
    gk5i_krb_time now = (gk5i_krb_time)time(NULL);

    if (flaw == FLAW_GARBAGE) {
        memcpy(out, "\x6b\x03not a reply", 14);
        return 14;
    }
    assert_int_equal(gk5_c_string_to_key(18, PASSWORD, strlen(PASSWORD), salt,
                                         strlen(salt), NULL, 0, ckey,
                                         sizeof(ckey)),
                     GK5_OK);
    memset(&part, 0, sizeof(part));
    part.tag = 25;
    part.key.keytype = flaw == FLAW_RC4_KEY ? 23 : 18;
    part.key.value.p = sesskey;
    part.key.value.len = flaw == FLAW_RC4_KEY ? 16 : 32;
    part.nonce = flaw == FLAW_NONCE ? nonce ^ 1u : nonce;
    part.flags = GK5I_TKT_FLG_INITIAL;
    part.authtime = now;
    part.endtime = now + 3600;
    part.srealm.p = (const uint8_t *)REALM;
    part.srealm.len = strlen(REALM);
    part.sname.name_type = 2;
    part.sname.ncomp = 2;
    part.sname.comp[0].p = (const uint8_t *)"krbtgt";
    part.sname.comp[0].len = 6;
    part.sname.comp[1] = part.srealm;
    if (flaw == FLAW_SNAME) {
        part.sname.comp[0].p = (const uint8_t *)"evil";
        part.sname.comp[0].len = 4;
    }
    assert_int_equal(
        gk5i_encode_enc_kdc_rep_part(&part, plain, sizeof(plain), &plen),
        GK5_OK);
    encrypt3(ckey, plain, plen, enc, &elen);

    memset(&rep, 0, sizeof(rep));
    rep.msg_type = GK5I_KRB_TAG_AS_REP;
    rep.crealm = part.srealm;
    rep.cname.name_type = 1;
    rep.cname.ncomp = 1;
    rep.cname.comp[0].p =
        (const uint8_t *)(flaw == FLAW_CNAME ? "mallory" : USER);
    rep.cname.comp[0].len = strlen((const char *)rep.cname.comp[0].p);
    rep.ticket.realm = part.srealm;
    rep.ticket.sname = part.sname;
    rep.ticket.enc_part.etype = 18;
    rep.ticket.enc_part.has_kvno = true;
    rep.ticket.enc_part.kvno = 1;
    rep.ticket.enc_part.cipher.p = tkt_cipher;
    rep.ticket.enc_part.cipher.len = sizeof(tkt_cipher);
    rep.enc_part.etype = 18;
    rep.enc_part.cipher.p = enc;
    rep.enc_part.cipher.len = elen;
    assert_int_equal(gk5i_encode_kdc_rep(&rep, out, cap, &len), GK5_OK);
    return len;
}

static void *kdc_main(void *arg)
{
    uint8_t req[4096], rep[4096];
    (void)arg;
    for (;;) {
        struct sockaddr_in from;
        socklen_t fl = sizeof(from);
        ssize_t n = recvfrom(kdc_fd, req, sizeof(req), 0,
                             (struct sockaddr *)&from, &fl);
        size_t rl;
        if (n <= 0) {
            return NULL;
        }
        if (n == 4 && memcmp(req, "stop", 4) == 0) {
            return NULL;
        }
        rl = make_reply(find_nonce(req, (size_t)n), rep, sizeof(rep));
        (void)sendto(kdc_fd, rep, rl, 0, (struct sockaddr *)&from, fl);
    }
}

static int setup(void **state)
{
    struct sockaddr_in a;
    socklen_t al = sizeof(a);
    FILE *f;
    (void)state;

    kdc_fd = socket(AF_INET, SOCK_DGRAM, 0);
    memset(&a, 0, sizeof(a));
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (kdc_fd < 0 || bind(kdc_fd, (struct sockaddr *)&a, sizeof(a)) != 0 ||
        getsockname(kdc_fd, (struct sockaddr *)&a, &al) != 0) {
        return -1;
    }
    kdc_port = ntohs(a.sin_port);
    snprintf(conf_path, sizeof(conf_path), "/tmp/gk5-kdcc-%ld.conf",
             (long)getpid());
    f = fopen(conf_path, "w");
    if (f == NULL) {
        return -1;
    }
    fprintf(f,
            "[libdefaults]\n default_realm = " REALM "\n"
            "[realms]\n " REALM " = {\n  kdc = 127.0.0.1:%u\n }\n",
            (unsigned)kdc_port);
    fclose(f);
    return pthread_create(&kdc_thread, NULL, kdc_main, NULL) == 0 ? 0 : -1;
}

static int teardown(void **state)
{
    int s = socket(AF_INET, SOCK_DGRAM, 0);
    struct sockaddr_in a;
    (void)state;
    memset(&a, 0, sizeof(a));
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = htons(kdc_port);
    (void)sendto(s, "stop", 4, 0, (struct sockaddr *)&a, sizeof(a));
    close(s);
    pthread_join(kdc_thread, NULL);
    close(kdc_fd);
    unlink(conf_path);
    return 0;
}

static uint32_t run_as(enum flaw fl, struct gk5i_owned_cred *tgt)
{
    struct gk5i_krb5_config *cfg = NULL;
    struct gk5i_krb_principal client;
    struct gk5i_as_req r;
    char err[256];
    uint32_t ret;

    flaw = fl;
    assert_int_equal(gk5i_config_load(conf_path, &cfg, err, sizeof(err)),
                     GK5_OK);
    memset(&client, 0, sizeof(client));
    client.name_type = 1;
    client.ncomp = 1;
    client.comp[0].p = (const uint8_t *)USER;
    client.comp[0].len = strlen(USER);
    memset(&r, 0, sizeof(r));
    r.cfg = cfg;
    r.realm.p = (const uint8_t *)REALM;
    r.realm.len = strlen(REALM);
    r.client = &client;
    r.password = PASSWORD;
    ret = gk5i_as_exchange(&r, tgt);
    gk5i_config_free(cfg);
    return ret;
}

static void test_good(void **state)
{
    struct gk5i_owned_cred tgt;
    (void)state;
    assert_int_equal(run_as(FLAW_NONE, &tgt), GK5_OK);
    assert_int_equal(tgt.cred.keytype, 18);
    assert_int_equal(tgt.cred.key_len, 32);
    assert_true(tgt.cred.ticket.len > 0);
    assert_int_equal(tgt.cred.server.ncomp, 2);
    gk5i_owned_cred_clear(&tgt);
}

static void expect_refused(enum flaw fl, uint32_t code)
{
    struct gk5i_owned_cred tgt;
    uint32_t err = run_as(fl, &tgt);
    assert_int_equal(GK5_ERR_CODE(err), code);
    assert_null(tgt.buf);
    assert_int_equal(tgt.cred.key_len, 0);
}

static void test_garbage(void **state)
{
    (void)state;
    expect_refused(FLAW_GARBAGE, GK5_ERR_KDC_REPLY);
}

static void test_nonce(void **state)
{
    (void)state;
    expect_refused(FLAW_NONCE, GK5_ERR_KDC_NONCE);
}

static void test_cname(void **state)
{
    (void)state;
    expect_refused(FLAW_CNAME, GK5_ERR_KDC_CNAME);
}

static void test_sname(void **state)
{
    (void)state;
    expect_refused(FLAW_SNAME, GK5_ERR_KDC_SNAME);
}

static void test_rc4_key(void **state)
{
    (void)state;
    expect_refused(FLAW_RC4_KEY, GK5_ERR_ENCTYPE_REJECTED);
    assert_int_equal(
        GK5_ERR_ENCTYPE(run_as(FLAW_RC4_KEY, &(struct gk5i_owned_cred){0})),
        23);
}

static void test_error_words(void **state)
{
    struct gk5i_krb_error e;
    (void)state;
    memset(&e, 0, sizeof(e));
    e.error_code = 24;
    e.has_e_text = true;
    e.e_text.p = (const uint8_t *)"bad\npassword";
    e.e_text.len = 12;
    assert_int_equal(gk5i_krb_error_note(&e, true, 0),
                     GK5_ERR_KDC_PREAUTH_FAILED);
    assert_string_equal(gk5_krb_last_error(),
                        "KDC_ERR_PREAUTH_FAILED (24): bad?password");
    memset(&e, 0, sizeof(e));
    e.error_code = 37;
    e.stime = 1000;
    assert_int_equal(gk5i_krb_error_note(&e, true, 1412), GK5_ERR_AP_SKEW);
    assert_string_equal(gk5_krb_last_error(),
                        "KRB_AP_ERR_SKEW (37): clocks differ by 412 s, more "
                        "than the 300 s allowed");
    gk5i_krb_error_clear();
    assert_null(gk5_krb_last_error());
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_error_words), cmocka_unit_test(test_good),
        cmocka_unit_test(test_garbage),     cmocka_unit_test(test_nonce),
        cmocka_unit_test(test_cname),       cmocka_unit_test(test_sname),
        cmocka_unit_test(test_rc4_key),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
