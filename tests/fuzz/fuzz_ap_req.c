/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * libFuzzer target: the AP-REQ an acceptor reads (RFC 4120 5.5.1) in its
 * RFC 2743 3.1 framing with TOK_ID 01 00 (RFC 1964 1.1.1), through
 * gk5i_frame_parse_mech and gk5i_decode_ap_req (src/der/rfc4120_decode_ap.c).
 * An input that does not start with 0x60 is the AP-REQ itself.
 *
 * A decoded AP-REQ must hold together: its views inside the input, its
 * ticket_der decoding (gk5i_decode_ticket) to the same ticket, and the
 * DER round trip -- gk5i_encode_ap_req gives the input's bytes back, with
 * the ticket copied from ticket_der and with it encoded from the fields.
 * The ciphertexts are also read as what they hide (EncTicketPart,
 * Authenticator), so that a decrypted part's decoder sees these bytes too.
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "fuzz_krb.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t *p = fuzz_dup(data, size);
    const uint8_t *msg;
    size_t len;
    union fk_msg m, t, want;
    uint32_t ret;

    if (fk_unframe(p, size, 0x01, &msg, &len)) {
        if (fk_decode_checked(FK_AP_REQ, msg, len, &m) == GK5_OK) {
            struct gk5i_view tder = m.ap_req.ticket_der;
            struct gk5i_view tc = m.ap_req.ticket.enc_part.cipher;
            struct gk5i_view ac = m.ap_req.authenticator.cipher;

            want.ticket = m.ap_req.ticket;
            ret = gk5i_decode_ticket(tder.p, tder.len, &t.ticket);
            if (ret != GK5_OK || !fk_equal(FK_TICKET, &t, &want)) {
                fuzz_fail("ap-req: ticket_der decodes to another ticket", ret,
                          0);
            }
            /* The ticket from its fields, not copied. */
            m.ap_req.ticket_der.p = NULL;
            m.ap_req.ticket_der.len = 0;
            fk_check_round_trip(FK_AP_REQ, msg, len, &m);
            fk_check_round_trip(FK_TICKET, tder.p, tder.len, &t);
            (void)fk_decode_checked(FK_ENC_TKT_PART, tc.p, tc.len, &t);
            (void)fk_decode_checked(FK_AUTHENTICATOR, ac.p, ac.len, &t);
        }
    }
    free(p);
    return 0;
}
