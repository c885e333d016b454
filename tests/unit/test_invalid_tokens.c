/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * The t_invalid-style negative corpus (tests/vectors/invalid_tokens.txt):
 * MIT krb5's fixed-key CFX tokens and tokens built from fixed fields with
 * the RFC 3961 crypto API, each mutated as its case says; every case has
 * the exact major status a receiver must return.  After each case a good
 * token from a peer shows whether the receive window moved: not at all
 * after a failure, by exactly the token's number after a success.
 */
#include <ctype.h>

#include "tokutil.h"
#include "vecfile.h"

#define MAX_BASES 64
#define HDR 16

struct base {
    char name[64];
    bool mic; /* verify_mic, else unwrap */
    int32_t enctype;
    uint8_t key[64];
    size_t key_len;
    bool initiator; /* the receiver's role */
    bool subkey;
    int conf;
    uint8_t msg[256];
    size_t msg_len;
    uint8_t *token;
    size_t token_len;
};

static struct base bases[MAX_BASES];
static size_t n_bases;

static uint32_t receiver_flags(bool initiator, bool subkey)
{
    return TOK_GSSD_CFX | (initiator ? TOK_GSSD_INITIATOR : 0) |
           (subkey ? TOK_GSSD_SUBKEY : 0);
}

static uint32_t major_by_name(const char *s)
{
    if (strcmp(s, "GSS_S_COMPLETE") == 0) {
        return GK5_S_COMPLETE;
    }
    if (strcmp(s, "GSS_S_BAD_SIG") == 0) {
        return GK5_S_BAD_SIG;
    }
    if (strcmp(s, "GSS_S_DEFECTIVE_TOKEN") == 0) {
        return GK5_S_DEFECTIVE_TOKEN;
    }
    fail_msg("unknown status name %s", s);
    return GK5_S_FAILURE;
}

static void copy_bytes(vec_block *b, const char *field, uint8_t *dst,
                       size_t cap, size_t *len)
{
    const uint8_t *p;

    *len = vec_bytes(b, field, &p);
    assert_true(*len <= cap);
    memcpy(dst, p, *len);
}

/* A token built from the block's fields with the crypto API only. */
static void build_token(vec_block *b, struct base *bs, const char *kind)
{
    uint8_t pt[512], out[1024], header[HDR], cksum[64];
    size_t hlen, plen = 0, out_len = sizeof(out), clen = sizeof(cksum), n;
    uint32_t usage = (uint32_t)vec_int(b, "usage", 1, 1000);

    copy_bytes(b, "header", header, sizeof(header), &hlen);
    assert_int_equal(hlen, HDR);
    memcpy(pt, bs->msg, bs->msg_len);
    plen = bs->msg_len;
    if (strcmp(kind, "sealed") == 0) {
        /* RFC 4121 4.2.4: E(data | filler | header copy) */
        copy_bytes(b, "filler", pt + plen, sizeof(pt) - plen, &n);
        plen += n;
        copy_bytes(b, "copy", pt + plen, sizeof(pt) - plen, &n);
        assert_int_equal(n, HDR);
        plen += n;
        assert_int_equal(gk5_c_encrypt(bs->enctype, bs->key, bs->key_len, usage,
                                       pt, plen, out, &out_len),
                         0);
        bs->token_len = HDR + out_len;
        bs->token = malloc(bs->token_len);
        assert_non_null(bs->token);
        memcpy(bs->token, header, HDR);
        memcpy(bs->token + HDR, out, out_len);
        return;
    }
    if (strcmp(kind, "integrity") == 0) {
        copy_bytes(b, "cksum_header", pt + plen, sizeof(pt) - plen, &n);
        assert_int_equal(n, HDR);
    } else {
        assert_string_equal(kind, "mic");
        memcpy(pt + plen, header, HDR);
    }
    plen += HDR;
    assert_int_equal(gk5_c_checksum(bs->enctype, bs->key, bs->key_len, usage,
                                    pt, plen, cksum, &clen),
                     0);
    n = strcmp(kind, "integrity") == 0 ? bs->msg_len : 0;
    bs->token_len = HDR + n + clen;
    bs->token = malloc(bs->token_len);
    assert_non_null(bs->token);
    memcpy(bs->token, header, HDR);
    memcpy(bs->token + HDR, bs->msg, n);
    memcpy(bs->token + HDR + n, cksum, clen);
}

/* The receiving side's own token (a context of the receiver's role). */
static void reflect_token(struct base *bs, const char *kind)
{
    gk5_ctx *self =
        tok_ctx(bs->enctype, receiver_flags(bs->initiator, bs->subkey), 0,
                bs->key, bs->key_len);
    gk5_buffer in = {bs->msg_len, bs->msg}, tok = {0, NULL};
    uint32_t minor = 0, major;

    if (strcmp(kind, "reflect-mic") == 0) {
        major = gk5_get_mic(&minor, self, 0, &in, &tok);
    } else {
        major = gk5_wrap(&minor, self, strcmp(kind, "reflect-sealed") == 0, 0,
                         &in, NULL, &tok);
    }
    tok_assert_major(major, GK5_S_COMPLETE, minor);
    bs->token = malloc(tok.length);
    assert_non_null(bs->token);
    memcpy(bs->token, tok.value, tok.length);
    bs->token_len = tok.length;
    gk5_buffer_release(&tok);
    gk5_ctx_free(self);
}

static void load_base(vec_block *b)
{
    struct base *bs;
    const char *op, *role;

    assert_true(n_bases < MAX_BASES);
    bs = &bases[n_bases++];
    memset(bs, 0, sizeof(*bs));
    snprintf(bs->name, sizeof(bs->name), "%s", vec_str(b, "base"));
    op = vec_str(b, "op");
    bs->mic = strcmp(op, "verify_mic") == 0;
    assert_true(bs->mic || strcmp(op, "unwrap") == 0);
    bs->enctype = (int32_t)vec_int(b, "enctype", 1, 65535);
    copy_bytes(b, "key", bs->key, sizeof(bs->key), &bs->key_len);
    role = vec_str(b, "receiver");
    bs->initiator = strcmp(role, "initiator") == 0;
    assert_true(bs->initiator || strcmp(role, "acceptor") == 0);
    bs->subkey = vec_int(b, "acceptor_subkey", 0, 1) != 0;
    bs->conf = (int)vec_int(b, "conf", 0, 1);
    copy_bytes(b, "msg", bs->msg, sizeof(bs->msg), &bs->msg_len);
    if (vec_has(b, "token")) {
        const uint8_t *t;

        bs->token_len = vec_bytes(b, "token", &t);
        bs->token = malloc(bs->token_len);
        assert_non_null(bs->token);
        memcpy(bs->token, t, bs->token_len);
    } else {
        const char *kind = vec_str(b, "build");

        if (strncmp(kind, "reflect-", 8) == 0) {
            reflect_token(bs, kind);
        } else {
            build_token(b, bs, kind);
        }
    }
    vec_done(b);
}

static struct base *find_base(const char *name)
{
    for (size_t i = 0; i < n_bases; i++) {
        if (strcmp(bases[i].name, name) == 0) {
            return &bases[i];
        }
    }
    fail_msg("no base %s (bases come before the cases)", name);
    return NULL;
}

/* Applies the ';'-separated steps to *tok (reallocated as needed) and to
 * msg; see the file's header. */
static void mutate(const char *spec, uint8_t **tok, size_t *len, uint8_t *msg,
                   size_t msg_len)
{
    char buf[256], *save = NULL, *step;

    snprintf(buf, sizeof(buf), "%s", spec);
    for (step = strtok_r(buf, ";", &save); step != NULL;
         step = strtok_r(NULL, ";", &save)) {
        char op[16], arg1[128] = "", arg2[128] = "";
        int n = sscanf(step, " %15s %127s %127s", op, arg1, arg2);
        unsigned long a = strtoul(arg1, NULL, 10);

        assert_true(n >= 1);
        if (strcmp(op, "none") == 0) {
            continue;
        } else if (strcmp(op, "flip") == 0) {
            assert_true(a < *len);
            (*tok)[a] ^= (uint8_t)strtoul(arg2, NULL, 16);
        } else if (strcmp(op, "msgflip") == 0) {
            assert_true(a < msg_len);
            msg[a] ^= (uint8_t)strtoul(arg2, NULL, 16);
        } else if (strcmp(op, "truncate") == 0) {
            assert_true(a <= *len);
            *len = a;
        } else if (strcmp(op, "append") == 0 || strcmp(op, "set") == 0) {
            const char *hex = strcmp(op, "append") == 0 ? arg1 : arg2;
            size_t at = strcmp(op, "append") == 0 ? *len : a;
            size_t nb = strlen(hex) / 2;

            if (at + nb > *len) {
                *tok = realloc(*tok, at + nb);
                assert_non_null(*tok);
                *len = at + nb;
            }
            for (size_t i = 0; i < nb; i++) {
                char two[3] = {hex[2 * i], hex[2 * i + 1], 0};

                assert_true(isxdigit((unsigned char)two[0]) &&
                            isxdigit((unsigned char)two[1]));
                (*tok)[at + i] = (uint8_t)strtoul(two, NULL, 16);
            }
        } else if (strcmp(op, "rotate") == 0) {
            assert_true(*len > HDR && a <= 65535);
            tok_rotate_right(*tok + HDR, *len - HDR, a);
            store_be16(*tok + 6, (uint16_t)a);
        } else {
            fail_msg("unknown mutation step \"%s\"", step);
        }
    }
}

/* A good token from the peer with SND_SEQ seq, unwrapped by recv. */
static uint32_t follow_up(const struct base *bs, bool subkey, uint64_t seq,
                          gk5_ctx *recv, uint32_t *minor)
{
    static const uint8_t msg[] = "follow-up";
    gk5_ctx *peer = tok_ctx(bs->enctype, receiver_flags(!bs->initiator, subkey),
                            seq, bs->key, bs->key_len);
    gk5_buffer in = {sizeof(msg), (void *)(uintptr_t)msg}, tok, out;
    uint32_t major;

    major = gk5_wrap(minor, peer, 1, 0, &in, NULL, &tok);
    tok_assert_major(major, GK5_S_COMPLETE, *minor);
    major = gk5_unwrap(minor, recv, &tok, &out, NULL, NULL);
    if (!GK5_ERROR(major)) {
        assert_int_equal(out.length, sizeof(msg));
        assert_memory_equal(out.value, msg, sizeof(msg));
    }
    gk5_buffer_release(&out);
    gk5_buffer_release(&tok);
    gk5_ctx_free(peer);
    return major;
}

static bool run_case(vec_block *b, vec_tally *t)
{
    const char *name = vec_str(b, "case");
    struct base *bs = find_base(vec_str(b, "base"));
    const char *mutation = vec_str(b, "mutation");
    uint32_t want = major_by_name(vec_str(b, "expect"));
    bool subkey = vec_opt_int(b, "receiver_subkey", 0, 1, bs->subkey) != 0;
    uint8_t *tok = malloc(bs->token_len + 1), msg[256];
    size_t len = bs->token_len;
    uint64_t seq = load_be64(bs->token + 8);
    gk5_buffer m, tk, out = {0, NULL};
    uint32_t minor = 0, major, after;
    int conf_state = -1;
    gk5_ctx *recv;
    bool ok = true;
    char what[160];

    vec_done(b);
    assert_non_null(tok);
    memcpy(tok, bs->token, len);
    memcpy(msg, bs->msg, bs->msg_len);
    mutate(mutation, &tok, &len, msg, bs->msg_len);
    recv = tok_ctx(bs->enctype, receiver_flags(bs->initiator, subkey), 0,
                   bs->key, bs->key_len);
    m.length = bs->msg_len;
    m.value = msg;
    tk.length = len;
    tk.value = tok;
    if (bs->mic) {
        major = gk5_verify_mic(&minor, recv, &m, &tk, NULL);
    } else {
        major = gk5_unwrap(&minor, recv, &tk, &out, &conf_state, NULL);
    }
    snprintf(what, sizeof(what), "%s: major (%s)", name,
             gk5_display_status(major, minor));
    ok &= vec_check_rc(t, b, what, major, want);
    if (!bs->mic) {
        if (want == GK5_S_COMPLETE) {
            ok &= vec_check_bytes(t, b, "unwrapped message", out.value,
                                  out.length, bs->msg, bs->msg_len);
            ok &= vec_check_size(t, b, "conf_state", (size_t)conf_state,
                                 (size_t)bs->conf);
        } else {
            ok &= vec_check_size(t, b, "output length after failure",
                                 out.length, 0);
            ok &= vec_check_size(t, b, "conf_state after failure",
                                 (size_t)conf_state, 0);
        }
    }
    gk5_buffer_release(&out);

    /* The receive window: untouched by a failure, holding seq after a
     * success. */
    after = follow_up(bs, subkey, seq, recv, &minor);
    snprintf(what, sizeof(what), "%s: good token #%llu afterwards (%s)", name,
             (unsigned long long)seq, gk5_display_status(after, minor));
    ok &= vec_check_rc(t, b, what, after,
                       want == GK5_S_COMPLETE ? GK5_S_DUPLICATE_TOKEN
                                              : GK5_S_COMPLETE);
    after = follow_up(bs, subkey, seq + 1, recv, &minor);
    snprintf(what, sizeof(what), "%s: good token #%llu next (%s)", name,
             (unsigned long long)(seq + 1), gk5_display_status(after, minor));
    ok &= vec_check_rc(t, b, what, after, GK5_S_COMPLETE);

    gk5_ctx_free(recv);
    free(tok);
    return ok;
}

static void test_invalid_tokens(void **state)
{
    vec_file *f = vec_open("invalid_tokens.txt");
    vec_tally t;
    vec_block *b;
    unsigned cases = 0, by_status[3] = {0, 0, 0};

    (void)state;
    vec_tally_init(&t, "invalid_tokens.txt");
    while ((b = vec_next(f)) != NULL) {
        if (!vec_has(b, "case")) {
            load_base(b);
            continue;
        }
        {
            const char *e = vec_str(b, "expect");

            by_status[strcmp(e, "GSS_S_COMPLETE") == 0  ? 0
                      : strcmp(e, "GSS_S_BAD_SIG") == 0 ? 1
                                                        : 2]++;
        }
        if (gk5_enctype_check(find_base(vec_str(b, "base"))->enctype) != 0) {
            vec_tally_skip(&t);
            continue;
        }
        run_case(b, &t);
        vec_tally_end(&t);
        cases++;
    }
    vec_close(f);
    print_message("invalid_tokens.txt: %u cases (%u COMPLETE, %u BAD_SIG, "
                  "%u DEFECTIVE_TOKEN)\n",
                  cases, by_status[0], by_status[1], by_status[2]);
    assert_true(cases >= 100);
    vec_tally_finish(&t);
    for (size_t i = 0; i < n_bases; i++) {
        free(bases[i].token);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_invalid_tokens),
    };

    return cmocka_run_group_tests_name("invalid_tokens", tests, NULL, NULL);
}
