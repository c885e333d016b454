/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * The NFSv4.0 client of `gk5 nfs4` (ls, cat, put, rm, storm) and of
 * gk5-bench's NFSv4 run (`gk5 nfs4 bench`), and the one option parser of
 * them all (cmdline.c).  Every function that can fail prints its error in
 * the CLI's words (cli_error, naming nfs4_args.cmd) and returns -1.
 */
#ifndef GK5_NFS4_CLIENT_H
#define GK5_NFS4_CLIENT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include <gk5/rpcsec.h>

#ifdef GK5_HAVE_TIRPC
#include "nfs4_tirpc.h"
#else
#include "nfs4_xdr.h"
#endif

#define NFS4_DEFAULT_IO (1024u * 1024u)
#define NFS4_MAX_IO (4u * 1024u * 1024u)
#define NFS4_MAX_COMPONENTS 32
#define NFS4_DIR_ENTRIES 256
#define NFS4_TIMEOUT_MS 30000u
#define NFS4_MAX_ENCTYPES 16
/* --inflight: calls kept out on gk5's client (as gk5 rpc echo). */
#define NFS4_MAX_INFLIGHT 1024u
/* The limits of nfs4 bench's and nfs4 storm's options. */
#define BENCH_MAX_THREADS 64
#define BENCH_MAX_SIZES 8
#define STORM_MAX_CONNECTIONS 64
#define STORM_MAX_CONTEXTS 1000000u
#define STORM_MAX_REPEAT 100u

struct nfs4_args {
    const char *cmd; /* "nfs4 cat" */
    char host[256], hostport[300], path[1024];
    const char *sec_name;
    gk5_rpc_service svc;
    bool sys;
    const char *target;
    char default_target[300];
    const char *ccache, *client_keytab, *client_principal;
    int32_t enctypes[NFS4_MAX_ENCTYPES];
    size_t n_enctypes;
    uint32_t rsize, wsize;
    unsigned timeout_ms;
    bool via_libtirpc; /* bench --via libtirpc: rpc_gss_seccreate (MIT) */
    bool native;       /* gk5's own RPC client, not libtirpc's */
    uint32_t inflight; /* --inflight (gk5's client): calls out at once; 0:
                          one at a time */
    gk5_rpc_establish establish; /* who makes gk5's contexts */
    bool have_establish;
};

struct nfs4_client {
    const struct nfs4_args *a;
    gk5_rpc_clnt *rpc; /* gk5's own client (a->native), or NULL */
#ifdef GK5_HAVE_TIRPC
    CLIENT *clnt;
    AUTH *auth;
    struct timeval tv;
#endif
    uint64_t clientid;
    uint32_t lease;       /* seconds */
    time_t renewed;       /* when the lease was last renewed */
    uint32_t owner_seqid; /* the open-owner's next seqid */
    char owner[64];
};

struct nfs4_open_file {
    nfs4_fh fh;
    nfs4_stateid stateid;
};

/* One call kept out on gk5's client (--inflight). */
struct nfs4_io_slot {
    uint64_t id;  /* gk5_rpc_clnt_send's */
    uint64_t off; /* the call's offset */
    size_t len;   /* WRITE: the bytes sent */
    uint8_t *buf; /* its data (rsize or wsize bytes) */
    nfs4_resop r[2];
};

/* ---- client.c ---- */

/* RFC 7530 16.33/16.34: connect (a->native: gk5's client, else libtirpc's
 * clnt_vc), set up a client id of its own, confirmed, and read the lease
 * time.  On failure c still needs nfs4_client_close. */
int nfs4_client_open(struct nfs4_client *c, const struct nfs4_args *a);
/* RPCSEC_GSS_DESTROY, then the connection; c zeroed. */
void nfs4_client_close(struct nfs4_client *c);
/* One COMPOUND of ops[0..n) with its results in r (path, or NULL, names
 * the object in the words). */
int nfs4_client_call(struct nfs4_client *c, const nfs4_argop *ops, uint32_t n,
                     nfs4_resop *r, const char *path);
/* gk5's client only: send a COMPOUND without waiting (*id for
 * nfs4_client_wait), and wait for one and decode its results. */
int nfs4_client_send(struct nfs4_client *c, const nfs4_argop *ops, uint32_t n,
                     nfs4_resop *r, uint64_t *id);
int nfs4_client_wait(struct nfs4_client *c, uint64_t id, nfs4_resop *r,
                     uint32_t n, const char *path);
/* RFC 7530 9.6: RENEW when a third of the lease has passed. */
int nfs4_client_keep_lease(struct nfs4_client *c);
/* path into its components, in place in buf; the count, or -1. */
int nfs4_split_path(const char *path, char *buf, size_t len, const char **comp);
/* The file handle and attributes (type, size) of comp[0..n). */
int nfs4_client_walk(struct nfs4_client *c, const char **comp, int n,
                     const char *path, nfs4_fh *fh, nfs4_attrs *attrs);
/* RFC 7530 16.16: OPEN name in dir (created and truncated when create),
 * then OPEN_CONFIRM when the server asks for it; CLOSE. */
int nfs4_client_open_file(struct nfs4_client *c, const nfs4_fh *dir,
                          const char *name, bool create, const char *path,
                          struct nfs4_open_file *f);
int nfs4_client_close_file(struct nfs4_client *c, struct nfs4_open_file *f,
                           const char *path);
/* "1m", "64k", "4096": bytes, 1..NFS4_MAX_IO; 0 or -1 (nothing printed). */
int nfs4_parse_io_size(const char *s, uint32_t *out);

/* ---- cmdline.c ---- */

/* The subcommands: the one option parser serves them all. */
enum nfs4_op { NFS4_LS, NFS4_CAT, NFS4_PUT, NFS4_RM, NFS4_BENCH, NFS4_STORM };

struct storm_opts {
    unsigned contexts, connections, repeat;
    long server_pid; /* 0: not given */
};

/* A parsed `gk5 nfs4 OP` command line. */
struct nfs4_cmdline {
    char cmd_name[32]; /* "nfs4 cat": a.cmd points here */
    struct nfs4_args a;
    const char *local;                 /* put: LOCALFILE */
    char sec_list[64], size_list[128]; /* bench: --sec, --size */
    double seconds;                    /* bench: --seconds */
    unsigned threads;                  /* bench: --threads */
    struct storm_opts storm;
};

void nfs4_usage(FILE *f);
/* The options and operands of op (argv[0]: the subcommand's name) into
 * *cl.  -1 when the command is to run, else the exit status (the usage
 * printed for --help, an error printed for bad usage). */
int nfs4_cmdline_parse(int op, int argc, char **argv, struct nfs4_cmdline *cl);

#endif /* GK5_NFS4_CLIENT_H */
