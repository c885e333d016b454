/*
 * RFC 3961 5.1 n-fold: OpenSSL has no public n-fold (KRB5KDF folds its
 * constant internally), so this one is by hand.
 */
#include <string.h>

#include "crypto_int.h"

static size_t gcd(size_t a, size_t b)
{
    while (b != 0) {
        size_t t = a % b;

        a = b;
        b = t;
    }
    return a;
}

/*
 * Byte j of the input replicated to the LCM length, each successive copy
 * rotated 13 bits further to the right (RFC 3961 5.1).  Copy r is the input
 * rotated right by 13 * r bits, so its bit p is the input's bit
 * (p - 13 * r) mod 8k.
 */
static uint8_t replicated_byte(const uint8_t *in, size_t k, size_t j)
{
    size_t bits = 8 * k;
    size_t r = j / k;
    size_t b = j % k;
    size_t shift_back = (13 * r) % bits;
    size_t src = (8 * b + bits - shift_back) % bits; /* first source bit */
    size_t byte = src / 8;
    unsigned off = (unsigned)(src % 8);

    if (off == 0) {
        return in[byte];
    }
    return (uint8_t)((in[byte] << off) | (in[(byte + 1) % k] >> (8 - off)));
}

/*
 * RFC 3961 5.1: n-fold(in) to out_len bytes.  The replicated string is cut
 * into out_len-byte big-endian numbers which are added with ones'-complement
 * (end-around carry) addition.
 */
void gk5i_nfold(const uint8_t *in, size_t in_len, uint8_t *out, size_t out_len)
{
    size_t lcm;

    if (out == NULL || out_len == 0) {
        return;
    }
    memset(out, 0, out_len);
    if (in == NULL || in_len == 0) {
        return;
    }
    lcm = in_len / gcd(in_len, out_len) * out_len;

    for (size_t chunk = 0; chunk < lcm; chunk += out_len) {
        unsigned carry = 0;

        for (size_t i = out_len; i-- > 0;) {
            unsigned sum =
                out[i] + replicated_byte(in, in_len, chunk + i) + carry;

            out[i] = (uint8_t)sum;
            carry = sum >> 8;
        }
        /* End-around carry: the bit that fell off the top re-enters at the
         * bottom, possibly rippling again. */
        while (carry != 0) {
            for (size_t i = out_len; i-- > 0 && carry != 0;) {
                unsigned sum = out[i] + carry;

                out[i] = (uint8_t)sum;
                carry = sum >> 8;
            }
        }
    }
}
