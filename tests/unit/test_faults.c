/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * Every entry point under allocation failure, as a unit test: runs the
 * fuzz target tests/fuzz/fuzz_faults.c (its checks, its failing allocator)
 * on every enctype built, both roles, with and without the acceptor
 * subkey, sealed and not, the Nth allocation failing once or from then on,
 * for each of its operations.  Any broken property aborts (fuzz_fail).
 */
#include <stdio.h>
#include <string.h>

#include "../fuzz/fuzz_common.h"

/* fuzz_faults.c: the number of operations input byte 2 chooses from. */
extern const unsigned fuzz_faults_op_count;

int main(void)
{
    static const uint8_t b1s[] = {0x00, 0x08, 0x10, 0x18, 0x0b, 0x1b};
    static const char msg[] = "a message for the allocation failure sweep";
    uint8_t in[3 + sizeof(msg)];
    int argc = 0;
    char **argv = NULL;
    unsigned runs = 0;

    LLVMFuzzerInitialize(&argc, &argv);
    memcpy(in + 3, msg, sizeof(msg));
    for (unsigned e = 0; e < FUZZ_N_ENCTYPES; e++) {
        for (size_t b = 0; b < sizeof(b1s); b++) {
            for (unsigned op = 0; op < fuzz_faults_op_count; op++) {
                in[0] = (uint8_t)e;
                in[1] = b1s[b];
                in[2] = (uint8_t)op;
                /* Even length: tracing off (fuzz_trace_for). */
                LLVMFuzzerTestOneInput(in, sizeof(in) & ~(size_t)1);
                runs++;
            }
        }
    }
    printf("ok: %u allocation failure sweeps\n", runs);
    return 0;
}
