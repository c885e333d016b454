/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * include/gk5/tickets.h without a KDC: the argument checks, the steps a
 * failure names, ccache types other than FILE refused, a cache written by
 * the internal writer listed and destroyed, kvno answered from the cache,
 * and the initiator's pending state saved, loaded back and refused when
 * damaged.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include <gk5/accept.h>
#include <gk5/gk5.h>
#include <gk5/tickets.h>
#include "krb5/krb5_int.h"

#define ET_AES256 18
#define ET_AES128 17
#define KVNO 7

static char g_dir[64], g_conf[128], g_bad_conf[128], g_cc[128];

static struct gk5i_view sv(const char *s)
{
    struct gk5i_view v = {(const uint8_t *)s, strlen(s)};
    return v;
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    assert_int_equal(fputs(text, f) >= 0, 1);
    assert_int_equal(fclose(f), 0);
}

static int setup(void **state)
{
    (void)state;
    strcpy(g_dir, "/tmp/gk5-tickets-api.XXXXXX");
    if (mkdtemp(g_dir) == NULL) {
        return -1;
    }
    snprintf(g_conf, sizeof(g_conf), "%s/krb5.conf", g_dir);
    snprintf(g_bad_conf, sizeof(g_bad_conf), "%s/bad.conf", g_dir);
    snprintf(g_cc, sizeof(g_cc), "%s/cc", g_dir);
    write_text(g_conf, "[libdefaults]\n default_realm = EX.TEST\n"
                       "[realms]\n EX.TEST = {\n  kdc = 127.0.0.1:9\n }\n");
    write_text(g_bad_conf, "[libdefaults]\n default_realm = {\n");
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    unlink(g_conf);
    unlink(g_bad_conf);
    unlink(g_cc);
    rmdir(g_dir);
    return 0;
}

/* A Ticket's DER for svc/host@EX.TEST, its enc-part of enctype et. */
static size_t make_ticket(uint8_t *out, size_t cap, int32_t et)
{
    static const uint8_t cipher[64] = {1, 2, 3};
    struct gk5i_krb_ticket tk;
    size_t n = 0;

    memset(&tk, 0, sizeof(tk));
    tk.realm = sv("EX.TEST");
    tk.sname.name_type = 2;
    tk.sname.ncomp = 2;
    tk.sname.comp[0] = sv("svc");
    tk.sname.comp[1] = sv("host");
    tk.enc_part.etype = et;
    tk.enc_part.has_kvno = true;
    tk.enc_part.kvno = KVNO;
    tk.enc_part.cipher.p = cipher;
    tk.enc_part.cipher.len = sizeof(cipher);
    assert_int_equal(gk5i_encode_ticket(&tk, out, cap, &n), GK5_OK);
    return n;
}

/* g_cc: alice@EX.TEST with a ticket for svc/host@EX.TEST (aes128 session
 * key, aes256 ticket) and a configuration entry. */
static void write_cache(void)
{
    static uint8_t ticket[512];
    struct gk5i_krb_principal alice, svc, conf;
    struct gk5i_cc_cred c[2];

    memset(&alice, 0, sizeof(alice));
    alice.name_type = 1;
    alice.ncomp = 1;
    alice.comp[0] = sv("alice");
    memset(&svc, 0, sizeof(svc));
    svc.name_type = 2;
    svc.ncomp = 2;
    svc.comp[0] = sv("svc");
    svc.comp[1] = sv("host");
    memset(&conf, 0, sizeof(conf));
    conf.ncomp = 2;
    conf.comp[0] = sv("krb5_ccache_conf_data");
    conf.comp[1] = sv("pa_type");
    memset(c, 0, sizeof(c));
    c[0].client_realm = sv("EX.TEST");
    c[0].client = alice;
    c[0].server_realm = sv("EX.TEST");
    c[0].server = svc;
    c[0].keytype = ET_AES128;
    c[0].key_len = 16;
    memset(c[0].key, 0x5a, 16);
    c[0].authtime = (uint32_t)time(NULL) - 60;
    c[0].starttime = c[0].authtime + 1;
    c[0].endtime = c[0].authtime + 36000;
    c[0].renew_till = c[0].authtime + 72000;
    c[0].flags = GK5_TKT_FLG_FORWARDABLE | GK5_TKT_FLG_RENEWABLE;
    c[0].ticket.p = ticket;
    c[0].ticket.len = make_ticket(ticket, sizeof(ticket), ET_AES256);
    c[1].client_realm = sv("EX.TEST");
    c[1].client = alice;
    c[1].server_realm = sv("X-CACHECONF:");
    c[1].server = conf;
    c[1].ticket = sv("2");
    c[1].config = true;
    assert_int_equal(gk5i_ccache_write(g_cc, sv("EX.TEST"), &alice, c, 2),
                     GK5_OK);
}

static void test_arguments(void **state)
{
    gk5_kinit_opts ko;
    gk5_kinit_info ki;
    gk5_kvno_info vi;
    gk5_ccache_info *ci = (gk5_ccache_info *)1;
    gk5_buffer buf = {0, NULL};
    gk5_initiator *init = NULL;
    char *path = NULL;
    int32_t et = ET_AES256;
    uint32_t minor = 0;

    (void)state;
    memset(&ko, 0, sizeof(ko));
    assert_int_equal(gk5_kinit(NULL, &ko, NULL), GK5_S_CALL_INACCESSIBLE_WRITE);
    assert_int_equal(gk5_kvno(NULL, "a/b", NULL, NULL),
                     GK5_S_CALL_INACCESSIBLE_WRITE);
    assert_int_equal(gk5_ccache_list(NULL, g_cc, &ci),
                     GK5_S_CALL_INACCESSIBLE_WRITE);
    assert_int_equal(gk5_ccache_destroy(NULL, g_cc),
                     GK5_S_CALL_INACCESSIBLE_WRITE);
    assert_int_equal(gk5_ccache_resolve(NULL, g_cc, &path),
                     GK5_S_CALL_INACCESSIBLE_WRITE);
    assert_int_equal(gk5_initiator_save(NULL, NULL, &buf),
                     GK5_S_CALL_INACCESSIBLE_WRITE);
    assert_int_equal(gk5_initiator_load(NULL, "x", 1, &init),
                     GK5_S_CALL_INACCESSIBLE_WRITE);

    assert_int_equal(gk5_kinit(&minor, NULL, &ki), GK5_S_FAILURE);
    assert_int_equal(minor, GK5_ERR_INVALID_ARGUMENT);
    assert_int_equal(ki.step, GK5_TKT_STEP_ARGUMENTS);
    gk5_kinit_info_release(&ki);
    ko.n_enctypes = 1; /* no list */
    assert_int_equal(gk5_kinit(&minor, &ko, &ki), GK5_S_FAILURE);
    assert_int_equal(ki.step, GK5_TKT_STEP_ARGUMENTS);
    ko.n_enctypes = 0;
    ko.flags = 0x80;
    assert_int_equal(gk5_kinit(&minor, &ko, NULL), GK5_S_FAILURE);
    assert_int_equal(minor, GK5_ERR_INVALID_ARGUMENT);

    assert_int_equal(gk5_kvno(&minor, NULL, NULL, &vi), GK5_S_BAD_NAME);
    assert_int_equal(vi.step, GK5_TKT_STEP_PRINCIPAL);
    gk5_kvno_info_release(&vi);
    {
        gk5_kvno_opts vo = {.enctypes = &et, .n_enctypes = 0};
        assert_int_equal(gk5_kvno(&minor, "a/b", &vo, &vi), GK5_S_FAILURE);
        assert_int_equal(vi.step, GK5_TKT_STEP_ARGUMENTS);
        /* rc4 asked: refused before anything is read (RFC 8429) */
        et = 23;
        vo.n_enctypes = 1;
        assert_int_equal(gk5_kvno(&minor, "a/b", &vo, &vi), GK5_S_UNAVAILABLE);
        assert_int_equal(GK5_ERR_ENCTYPE(minor), 23);
    }

    assert_int_equal(gk5_ccache_list(&minor, g_cc, NULL), GK5_S_FAILURE);
    assert_int_equal(minor, GK5_ERR_INVALID_ARGUMENT);
    assert_int_equal(gk5_ccache_resolve(&minor, g_cc, NULL), GK5_S_FAILURE);
    assert_int_equal(gk5_ccache_resolve(&minor, "FILE:", &path), GK5_S_FAILURE);
    assert_int_equal(minor, GK5_ERR_INVALID_ARGUMENT);
    assert_null(path);
    assert_int_equal(gk5_ccache_resolve(&minor, "FILE:/x/y", &path),
                     GK5_S_COMPLETE);
    assert_string_equal(path, "/x/y");
    free(path);

    assert_int_equal(gk5_initiator_save(&minor, NULL, &buf), GK5_S_FAILURE);
    assert_int_equal(minor, GK5_ERR_INVALID_ARGUMENT);
    assert_int_equal(gk5_initiator_save(&minor, NULL, NULL), GK5_S_FAILURE);
    assert_int_equal(gk5_initiator_load(&minor, "x", 1, NULL), GK5_S_FAILURE);
    assert_int_equal(gk5_initiator_load(&minor, NULL, 0, &init),
                     GK5_S_DEFECTIVE_TOKEN);
    assert_int_equal(minor, GK5_ERR_IMPORT_VERSION);
    assert_null(init);

    gk5_kinit_info_release(NULL);
    gk5_kvno_info_release(NULL);
    gk5_ccache_info_free(NULL);
}

static void test_ccache_types(void **state)
{
    static const char *const names[] = {"KEYRING:persistent:0",
                                        "KCM:", "DIR:/tmp/x", "MEMORY:m"};
    gk5_kinit_opts ko;
    gk5_kinit_info ki;
    gk5_kvno_opts vo;
    gk5_kvno_info vi;
    gk5_ccache_info *ci = NULL;
    char *path = NULL;
    uint32_t minor = 0;

    (void)state;
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        assert_int_equal(gk5_ccache_resolve(&minor, names[i], &path),
                         GK5_S_NO_CRED);
        assert_int_equal(minor, GK5_ERR_CCACHE_TYPE);
        assert_int_equal(gk5_ccache_list(&minor, names[i], &ci), GK5_S_NO_CRED);
        assert_int_equal(minor, GK5_ERR_CCACHE_TYPE);
        assert_null(ci);
        assert_int_equal(gk5_ccache_destroy(&minor, names[i]), GK5_S_NO_CRED);
        assert_int_equal(minor, GK5_ERR_CCACHE_TYPE);

        memset(&ko, 0, sizeof(ko));
        ko.config = g_conf;
        ko.ccache = names[i];
        ko.principal = "alice";
        ko.password = "pw";
        assert_int_equal(gk5_kinit(&minor, &ko, &ki), GK5_S_NO_CRED);
        assert_int_equal(minor, GK5_ERR_CCACHE_TYPE);
        assert_int_equal(ki.step, GK5_TKT_STEP_CCACHE);
        assert_string_equal(ki.principal, "alice@EX.TEST");
        assert_null(ki.ccache);
        gk5_kinit_info_release(&ki);

        memset(&vo, 0, sizeof(vo));
        vo.config = g_conf;
        vo.ccache = names[i];
        assert_int_equal(gk5_kvno(&minor, "svc/host", &vo, &vi), GK5_S_NO_CRED);
        assert_int_equal(vi.step, GK5_TKT_STEP_CCACHE);
        gk5_kvno_info_release(&vi);
    }
}

static int g_cb_calls;

static int refuse_password(void *arg, const char *principal, char *buf,
                           size_t len)
{
    g_cb_calls++;
    assert_ptr_equal(arg, &g_cb_calls);
    assert_string_equal(principal, "alice@EX.TEST");
    assert_true(len >= 1024);
    buf[0] = '\0';
    return -1;
}

/* The steps before the KDC, each failure named. */
static void test_kinit_steps(void **state)
{
    gk5_kinit_opts ko;
    gk5_kinit_info ki;
    char kt[160];
    uint32_t minor = 0;

    (void)state;
    memset(&ko, 0, sizeof(ko));
    ko.config = g_bad_conf;
    ko.ccache = g_cc;
    ko.principal = "alice";
    ko.password = "pw";
    assert_int_equal(gk5_kinit(&minor, &ko, &ki), GK5_S_FAILURE);
    assert_int_equal(minor, GK5_ERR_CONFIG);
    assert_int_equal(ki.step, GK5_TKT_STEP_CONFIG);
    assert_non_null(strstr(ki.detail, "bad.conf"));
    gk5_kinit_info_release(&ki);

    ko.config = g_conf;
    snprintf(kt, sizeof(kt), "FILE:%s/no.keytab", g_dir);
    ko.keytab = kt;
    assert_int_equal(gk5_kinit(&minor, &ko, &ki), GK5_S_NO_CRED);
    assert_int_equal(minor, GK5_ERR_KEYTAB_READ);
    assert_int_equal(ki.step, GK5_TKT_STEP_KEYTAB);
    gk5_kinit_info_release(&ki);
    ko.keytab = NULL;

    ko.principal = "a@";
    assert_int_equal(gk5_kinit(&minor, &ko, &ki), GK5_S_BAD_NAME);
    assert_int_equal(minor, GK5_ERR_INVALID_ARGUMENT);
    assert_int_equal(ki.step, GK5_TKT_STEP_PRINCIPAL);
    assert_null(ki.principal);
    gk5_kinit_info_release(&ki);

    /* No realm and no default_realm. */
    ko.principal = "alice";
    ko.config = g_dir; /* a directory: no file read, no default_realm */
    assert_int_equal(gk5_kinit(&minor, &ko, &ki), GK5_S_FAILURE);
    if (ki.step == GK5_TKT_STEP_PRINCIPAL) {
        assert_int_equal(minor, GK5_ERR_CONFIG_REALM);
    } else {
        assert_int_equal(ki.step, GK5_TKT_STEP_CONFIG);
    }
    gk5_kinit_info_release(&ki);
    ko.config = g_conf;

    /* No password and no callback; then a callback that gives none. */
    ko.password = NULL;
    assert_int_equal(gk5_kinit(&minor, &ko, &ki), GK5_S_FAILURE);
    assert_int_equal(minor, GK5_ERR_PASSWORD);
    assert_int_equal(ki.step, GK5_TKT_STEP_PASSWORD);
    assert_string_equal(ki.ccache, g_cc);
    gk5_kinit_info_release(&ki);
    ko.password_cb = refuse_password;
    ko.password_arg = &g_cb_calls;
    assert_int_equal(gk5_kinit(&minor, &ko, &ki), GK5_S_FAILURE);
    assert_int_equal(minor, GK5_ERR_PASSWORD);
    assert_int_equal(ki.step, GK5_TKT_STEP_PASSWORD);
    assert_int_equal(g_cb_calls, 1);
    gk5_kinit_info_release(&ki);
    assert_int_equal(access(g_cc, F_OK), -1); /* nothing written */
}

static void test_list_kvno_destroy(void **state)
{
    gk5_ccache_info *ci = NULL;
    gk5_kvno_opts vo;
    gk5_kvno_info vi;
    char name[160];
    int32_t et = ET_AES256;
    uint32_t minor = 0;

    (void)state;
    write_cache();
    snprintf(name, sizeof(name), "FILE:%s", g_cc);
    assert_int_equal(gk5_ccache_list(&minor, name, &ci), GK5_S_COMPLETE);
    assert_string_equal(ci->path, g_cc);
    assert_string_equal(ci->principal, "alice@EX.TEST");
    assert_int_equal(ci->version, 4);
    assert_int_equal(ci->n, 2);
    assert_string_equal(ci->creds[0].client, "alice@EX.TEST");
    assert_string_equal(ci->creds[0].server, "svc/host@EX.TEST");
    assert_int_equal(ci->creds[0].session_enctype, ET_AES128);
    assert_true(ci->creds[0].ticket_decoded);
    assert_int_equal(ci->creds[0].ticket_enctype, ET_AES256);
    assert_int_equal(ci->creds[0].flags,
                     GK5_TKT_FLG_FORWARDABLE | GK5_TKT_FLG_RENEWABLE);
    assert_int_equal(ci->creds[0].starttime, ci->creds[0].authtime + 1);
    assert_int_equal(ci->creds[0].renew_till, ci->creds[0].authtime + 72000);
    assert_false(ci->creds[0].config);
    assert_false(ci->creds[0].is_skey);
    assert_true(ci->creds[1].config);
    assert_false(ci->creds[1].ticket_decoded);
    gk5_ccache_info_free(ci);

    /* kvno: the ticket is in the cache, so no KDC is asked. */
    memset(&vo, 0, sizeof(vo));
    vo.config = g_conf;
    vo.ccache = g_cc;
    assert_int_equal(gk5_kvno(&minor, "svc/host", &vo, &vi), GK5_S_COMPLETE);
    assert_int_equal(vi.step, GK5_TKT_STEP_NONE);
    assert_string_equal(vi.server, "svc/host@EX.TEST");
    assert_string_equal(vi.ccache, g_cc);
    assert_int_equal(vi.kvno, KVNO);
    assert_int_equal(vi.session_enctype, ET_AES128);
    assert_int_equal(vi.ticket_enctype, ET_AES256);
    gk5_kvno_info_release(&vi);
    /* An enctype asked: a TGS exchange, and the cache has no TGT. */
    vo.enctypes = &et;
    vo.n_enctypes = 1;
    assert_int_equal(gk5_kvno(&minor, "svc/host", &vo, &vi), GK5_S_NO_CRED);
    assert_int_equal(minor, GK5_ERR_NO_TGT);
    assert_int_equal(vi.step, GK5_TKT_STEP_KDC);
    gk5_kvno_info_release(&vi);
    vo.enctypes = NULL;
    vo.n_enctypes = 0;
    assert_int_equal(gk5_kvno(&minor, "svc//x", &vo, &vi), GK5_S_BAD_NAME);
    assert_int_equal(vi.step, GK5_TKT_STEP_PRINCIPAL);
    gk5_kvno_info_release(&vi);

    assert_int_equal(gk5_ccache_destroy(&minor, g_cc), GK5_S_COMPLETE);
    assert_int_equal(access(g_cc, F_OK), -1);
    assert_int_equal(gk5_ccache_destroy(&minor, g_cc), GK5_S_NO_CRED);
    assert_int_equal(minor, GK5_ERR_CCACHE_NOT_FOUND);
    assert_int_equal(gk5_ccache_list(&minor, g_cc, &ci), GK5_S_NO_CRED);
    assert_int_equal(minor, GK5_ERR_CCACHE_NOT_FOUND);
    assert_int_equal(gk5_kvno(&minor, "svc/host", &vo, &vi), GK5_S_NO_CRED);
    assert_int_equal(vi.step, GK5_TKT_STEP_CCACHE);
    gk5_kvno_info_release(&vi);
}

/* A cache truncated: malformed. */
static void test_list_truncated(void **state)
{
    gk5_ccache_info *ci = NULL;
    uint32_t minor = 0;

    (void)state;
    write_cache();
    assert_int_equal(truncate(g_cc, 40), 0);
    assert_int_equal(gk5_ccache_list(&minor, g_cc, &ci), GK5_S_NO_CRED);
    assert_int_equal(minor, GK5_ERR_CCACHE_FORMAT);
    assert_null(ci);
    unlink(g_cc);
}

/* An initiator waiting for the AP-REP, from the cached ticket: saved,
 * loaded back, and damaged bytes refused. */
static void test_pending_state(void **state)
{
    gk5_initiator_opts io;
    gk5_initiator *init = NULL, *back = NULL;
    gk5_buffer tok = {0, NULL}, saved = {0, NULL};
    uint8_t *p;
    uint32_t minor = 0;

    (void)state;
    write_cache();
    memset(&io, 0, sizeof(io));
    io.ccache = g_cc;
    io.config = g_conf;
    io.req_flags = GK5_C_MUTUAL_FLAG | GK5_C_REPLAY_FLAG | GK5_C_SEQUENCE_FLAG;
    assert_int_equal(
        gk5_initiator_create(&minor, "svc/host@EX.TEST", &io, &init),
        GK5_S_COMPLETE);
    /* Nothing to save before the AP-REQ. */
    assert_int_equal(gk5_initiator_save(&minor, init, &saved), GK5_S_FAILURE);
    assert_int_equal(minor, GK5_ERR_INVALID_ARGUMENT);
    assert_null(saved.value);
    assert_int_equal(gk5_initiator_step(&minor, init, NULL, &tok),
                     GK5_S_CONTINUE_NEEDED);
    assert_int_equal(gk5_initiator_save(&minor, init, &saved), GK5_S_COMPLETE);
    assert_true(saved.length > 4);
    p = saved.value;
    assert_memory_equal(p, "gk5I", 4);
    assert_int_equal(gk5_initiator_load(&minor, p, saved.length, &back),
                     GK5_S_COMPLETE);
    assert_non_null(back);
    gk5_initiator_free(back);
    back = NULL;
    for (size_t j = 0; j < saved.length; j += 5) {
        p[j] ^= 0x01;
        assert_int_equal(gk5_initiator_load(&minor, p, saved.length, &back),
                         GK5_S_DEFECTIVE_TOKEN);
        assert_true(minor == GK5_ERR_IMPORT_DIGEST ||
                    minor == GK5_ERR_IMPORT_VERSION);
        assert_null(back);
        p[j] ^= 0x01;
    }
    assert_int_equal(gk5_initiator_load(&minor, p, saved.length - 1, &back),
                     GK5_S_DEFECTIVE_TOKEN);
    assert_int_equal(gk5_initiator_load(&minor, p, 3, &back),
                     GK5_S_DEFECTIVE_TOKEN);
    assert_null(back);
    /* The loaded one takes an answer: garbage is a defective token. */
    assert_int_equal(gk5_initiator_load(&minor, p, saved.length, &back),
                     GK5_S_COMPLETE);
    {
        gk5_buffer junk = {3, "abc"}, out = {0, NULL};
        assert_true(GK5_ERROR(gk5_initiator_step(&minor, back, &junk, &out)));
        gk5_buffer_release(&out);
    }
    gk5_initiator_free(back);
    gk5_buffer_release(&saved);
    gk5_buffer_release(&tok);
    gk5_initiator_free(init);
    unlink(g_cc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_arguments),
        cmocka_unit_test(test_ccache_types),
        cmocka_unit_test(test_kinit_steps),
        cmocka_unit_test(test_list_kvno_destroy),
        cmocka_unit_test(test_list_truncated),
        cmocka_unit_test(test_pending_state),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
