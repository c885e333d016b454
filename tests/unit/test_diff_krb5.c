/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * The RFC 4120 decoders against MIT's, as a unit test: replays the fuzz
 * target tests/fuzz/fuzz_diff_krb5.c (its checks, its classes of allowed
 * disagreement) over its committed seed corpus, given as the one argument,
 * so that every build with MIT runs the differential on real MIT messages
 * and gk5's own encodings.  Any broken property aborts (fuzz_fail).
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../fuzz/fuzz_common.h"

#define MAX_SEED (300u * 1024u)

int main(int argc, char **argv)
{
    static uint8_t buf[MAX_SEED];
    int fargc = 0;
    char **fargv = NULL;
    unsigned runs = 0;
    struct dirent *e;
    DIR *d;

    if (argc != 2) {
        fprintf(stderr, "usage: test_diff_krb5 CORPUS_DIR\n");
        return 2;
    }
    d = opendir(argv[1]);
    if (d == NULL) {
        fprintf(stderr, "test_diff_krb5: cannot open %s\n", argv[1]);
        return 1;
    }
    LLVMFuzzerInitialize(&fargc, &fargv);
    while ((e = readdir(d)) != NULL) {
        char path[4096];
        size_t n;
        FILE *f;

        if (e->d_name[0] == '.') {
            continue;
        }
        snprintf(path, sizeof(path), "%s/%s", argv[1], e->d_name);
        f = fopen(path, "rb");
        if (f == NULL) {
            fprintf(stderr, "test_diff_krb5: cannot read %s\n", path);
            closedir(d);
            return 1;
        }
        n = fread(buf, 1, sizeof(buf), f);
        fclose(f);
        LLVMFuzzerTestOneInput(buf, n);
        runs++;
    }
    closedir(d);
    if (runs == 0) {
        fprintf(stderr, "test_diff_krb5: no inputs in %s\n", argv[1]);
        return 1;
    }
    printf("ok: %u inputs, gk5 and MIT agree or differ only as classified\n",
           runs);
    return 0;
}
