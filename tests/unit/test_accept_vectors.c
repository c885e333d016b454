/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * Real AP-REQs, as MIT krb5 1.20.1's and Heimdal 7.8's initiators wrote
 * them (tests/vectors/mit_ap_req.txt, heimdal_ap_req.txt): the codec
 * decodes them to the fields recorded beside them, and the acceptor,
 * with the service key recorded and at the time they were made (the time
 * seam gk5i_accept_at), accepts them with the names, enctypes, flags and
 * times recorded.  Each also runs as negatives: another key, a later
 * clock, another kvno, a flipped ticket byte, a truncated and an extended
 * token.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <gk5/accept.h>
#include "krb5/krb5_int.h"
#include "mech/gss_framing.h"
#include "vecfile.h"

static char g_dir[] = "/tmp/gk5-accvec.XXXXXX";
static char g_kt[64];

/* A 0x502 keytab of one entry: realm, components of sname split at '/',
 * kvno (8-bit and 32-bit), the key. */
static void write_keytab(const char *realm, const char *sname, uint32_t kvno,
                         int32_t enctype, const uint8_t *key, size_t key_len)
{
    uint8_t e[512], f[600];
    size_t n = 0, ncomp = 1;
    char comps[256];
    FILE *fp;

    snprintf(comps, sizeof(comps), "%s", sname);
    for (const char *p = sname; *p != '\0'; p++) {
        ncomp += *p == '/';
    }
    e[n++] = 0;
    e[n++] = (uint8_t)ncomp;
    e[n++] = 0;
    e[n++] = (uint8_t)strlen(realm);
    memcpy(e + n, realm, strlen(realm));
    n += strlen(realm);
    for (char *save = NULL, *c = strtok_r(comps, "/", &save); c != NULL;
         c = strtok_r(NULL, "/", &save)) {
        e[n++] = 0;
        e[n++] = (uint8_t)strlen(c);
        memcpy(e + n, c, strlen(c));
        n += strlen(c);
    }
    store_be32(e + n, 1); /* KRB5_NT_PRINCIPAL */
    n += 4;
    store_be32(e + n, 0); /* timestamp */
    n += 4;
    e[n++] = (uint8_t)kvno;
    store_be16(e + n, (uint16_t)enctype);
    n += 2;
    store_be16(e + n, (uint16_t)key_len);
    n += 2;
    memcpy(e + n, key, key_len);
    n += key_len;
    store_be32(e + n, kvno);
    n += 4;
    f[0] = 0x05;
    f[1] = 0x02;
    store_be32(f + 2, (uint32_t)n);
    memcpy(f + 6, e, n);
    fp = fopen(g_kt, "wb");
    assert_non_null(fp);
    assert_int_equal(fwrite(f, 1, n + 6, fp), n + 6);
    assert_int_equal(fclose(fp), 0);
}

static gk5_acceptor_cred *cred_new(void)
{
    gk5_acceptor_opts o = {.keytab = g_kt, .flags = GK5_ACC_NO_RCACHE};
    gk5_acceptor_cred *cred = NULL;
    uint32_t minor = 0;

    assert_int_equal(gk5_acceptor_cred_new(&minor, &o, &cred), GK5_S_COMPLETE);
    return cred;
}

/* gk5i_accept_at on token at now; the major status, *minor set. */
static uint32_t accept_at(const uint8_t *tok, size_t len, int64_t now,
                          uint32_t *minor, gk5_accept_info *info,
                          gk5_buffer *out)
{
    gk5_acceptor_cred *cred = cred_new();
    gk5_buffer in = {len, (void *)(uintptr_t)tok};
    gk5_ctx *ctx = NULL;
    uint32_t major;

    major = gk5i_accept_at(minor, cred, &in, NULL, out, &ctx, info, now, 0);
    if (GK5_ERROR(major)) {
        assert_null(ctx);
    } else {
        assert_non_null(ctx);
    }
    gk5_ctx_free(ctx);
    gk5_acceptor_cred_free(cred);
    return major;
}

/* The codec's view of the AP-REQ inside the framing. */
static void check_decoded(vec_block *b, const uint8_t *tok, size_t len,
                          const char *realm, const char *sname, int32_t key_et,
                          uint32_t kvno, bool mutual)
{
    struct gk5i_krb_ap_req req;
    enum gk5i_frame_mech mech;
    size_t inner = 0;
    char *got = NULL;
    struct gk5i_view r;

    assert_int_equal(gk5i_frame_parse_mech(tok, len, len, &inner, &mech),
                     GK5_OK);
    assert_int_equal(mech, GK5I_MECH_KRB5);
    assert_int_equal(load_be16(tok + inner), 0x0100);
    assert_int_equal(gk5i_decode_ap_req(tok + inner + 2, len - inner - 2, &req),
                     GK5_OK);
    r.p = (const uint8_t *)realm;
    r.len = strlen(realm);
    assert_int_equal(gk5i_principal_unparse(r, &req.ticket.sname, &got),
                     GK5_OK);
    {
        char want[300];

        snprintf(want, sizeof(want), "%s@%s", sname, realm);
        if (strcmp(got, want) != 0) {
            fail_msg("%s: sname %s, want %s", vec_where(b), got, want);
        }
    }
    free(got);
    assert_int_equal(req.ticket.realm.len, strlen(realm));
    assert_memory_equal(req.ticket.realm.p, realm, strlen(realm));
    assert_int_equal(req.ticket.enc_part.etype, key_et);
    assert_true(req.ticket.enc_part.has_kvno);
    assert_int_equal(req.ticket.enc_part.kvno, kvno);
    assert_int_equal((req.ap_options & GK5I_AP_OPT_MUTUAL_REQUIRED) != 0,
                     mutual);
    assert_false(req.ap_options & GK5I_AP_OPT_USE_SESSION_KEY);
}

static void run_file(const char *name)
{
    vec_file *f = vec_open(name);
    vec_block *b;
    unsigned ran = 0;

    while ((b = vec_next(f)) != NULL) {
        const char *realm = vec_str(b, "realm");
        const char *sname = vec_str(b, "sname");
        const char *cname = vec_str(b, "cname");
        int32_t key_et = (int32_t)vec_int(b, "key_enctype", 1, 65535);
        uint32_t kvno = (uint32_t)vec_int(b, "kvno", 0, 0xffffffffLL);
        int32_t ses_et = (int32_t)vec_int(b, "session_enctype", 1, 65535);
        int32_t ctx_et = (int32_t)vec_int(b, "context_enctype", 1, 65535);
        bool mutual = vec_int(b, "mutual", 0, 1) != 0;
        uint32_t flags = (uint32_t)vec_int(b, "gss_flags", 0, 0xffffffffLL);
        int64_t t = vec_int(b, "time", 0, INT64_MAX);
        int64_t endtime = vec_int(b, "endtime", 0, INT64_MAX);
        const uint8_t *key, *tok;
        size_t key_len = vec_bytes(b, "key", &key);
        size_t len = vec_bytes(b, "token", &tok);
        gk5_accept_info info;
        gk5_buffer out = {0, NULL};
        uint8_t *bad, svc[300], bad_key[64];
        uint32_t minor = 0;

        (void)vec_str(b, "name");
        vec_done(b);
        if (gk5_enctype_check(key_et) != GK5_OK ||
            gk5_enctype_check(ses_et) != GK5_OK) {
            continue; /* des3 in a build without it */
        }
        ran++;
        check_decoded(b, tok, len, realm, sname, key_et, kvno, mutual);

        /* Accepted at its time, with the fields recorded. */
        write_keytab(realm, sname, kvno, key_et, key, key_len);
        if (accept_at(tok, len, t, &minor, &info, &out) != GK5_S_COMPLETE) {
            fail_msg("%s: %s", vec_where(b),
                     gk5_display_status(GK5_S_FAILURE, minor));
        }
        assert_string_equal(info.initiator, cname);
        snprintf((char *)svc, sizeof(svc), "%s@%s", sname, realm);
        assert_string_equal(info.acceptor, (char *)svc);
        assert_int_equal(info.ticket_enctype, key_et);
        assert_int_equal(info.session_enctype, ses_et);
        assert_int_equal(info.context_enctype, ctx_et);
        assert_int_equal(info.gss_flags, flags);
        assert_int_equal(info.endtime, endtime);
        assert_int_equal(out.length != 0, mutual);
        gk5_accept_info_release(&info);
        gk5_buffer_release(&out);

        /* A clock one skew later: the authenticator is too old. */
        assert_int_equal(accept_at(tok, len, t + 301, &minor, NULL, &out),
                         GK5_S_FAILURE);
        assert_int_equal(minor, GK5_ERR_AP_SKEW);
        /* A mutual initiator waits: it gets a KRB-ERROR. */
        assert_int_equal(out.length != 0, mutual);
        gk5_buffer_release(&out);
        /* Past the ticket's end (and the authenticator's skew). */
        assert_true(
            GK5_ERROR(accept_at(tok, len, endtime + 301, &minor, NULL, &out)));
        gk5_buffer_release(&out);

        /* Another key of the same kvno: the ticket does not open. */
        memcpy(bad_key, key, key_len);
        bad_key[0] ^= 0x01;
        write_keytab(realm, sname, kvno, key_et, bad_key, key_len);
        assert_int_equal(accept_at(tok, len, t, &minor, NULL, &out),
                         GK5_S_BAD_SIG);
        assert_int_equal(minor, GK5_ERR_AP_MODIFIED);
        gk5_buffer_release(&out);
        /* Only a later kvno in the keytab. */
        write_keytab(realm, sname, kvno + 1, key_et, key, key_len);
        assert_int_equal(accept_at(tok, len, t, &minor, NULL, &out),
                         GK5_S_NO_CRED);
        assert_int_equal(minor, GK5_ERR_AP_BADKEYVER);
        gk5_buffer_release(&out);

        /* The right key again; the token changed. */
        write_keytab(realm, sname, kvno, key_et, key, key_len);
        bad = malloc(len + 1);
        assert_non_null(bad);
        memcpy(bad, tok, len);
        bad[len - 40] ^= 0x80; /* inside the authenticator's cipher */
        assert_int_equal(accept_at(bad, len, t, &minor, NULL, &out),
                         GK5_S_BAD_SIG);
        assert_int_equal(minor, GK5_ERR_AP_MODIFIED);
        gk5_buffer_release(&out);
        memcpy(bad, tok, len);
        assert_int_equal(accept_at(bad, len - 1, t, &minor, NULL, &out),
                         GK5_S_DEFECTIVE_TOKEN);
        gk5_buffer_release(&out);
        bad[len] = 0;
        assert_int_equal(accept_at(bad, len + 1, t, &minor, NULL, &out),
                         GK5_S_DEFECTIVE_TOKEN);
        gk5_buffer_release(&out);
        free(bad);
    }
    vec_close(f);
    if (ran == 0) {
        fail_msg("%s: no vector ran", name);
    }
}

static void test_mit(void **state)
{
    (void)state;
    run_file("mit_ap_req.txt");
}

static void test_heimdal(void **state)
{
    (void)state;
    run_file("heimdal_ap_req.txt");
}

static int setup(void **state)
{
    (void)state;
    if (mkdtemp(g_dir) == NULL) {
        return -1;
    }
    snprintf(g_kt, sizeof(g_kt), "%s/krb5.keytab", g_dir);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    unlink(g_kt);
    rmdir(g_dir);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mit),
        cmocka_unit_test(test_heimdal),
    };

    return cmocka_run_group_tests(tests, setup, teardown);
}
