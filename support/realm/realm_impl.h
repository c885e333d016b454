/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * Inside support/realm only: realm.c's process and file helpers, for the
 * throwaway realms of other KDCs (heimdal_kdc.c, samba_kdc.c), so that
 * there is one spawner, one PID stopper and one port picker (each a thin
 * entry to the static function of realm.c with the same name); and the
 * start all kinds share (start.c).
 */
#ifndef GK5_SUPPORT_REALM_IMPL_H
#define GK5_SUPPORT_REALM_IMPL_H

#include <stddef.h>
#include <sys/types.h>

#include "realm.h"

/* fork + execve: stdin from in_fd (or /dev/null), stdout and stderr
 * appended to log; die_with_parent: SIGKILL when we go.  The PID or -1. */
pid_t gk5_realm_spawn(const char *path, char *const argv[], char *const envp[],
                      int in_fd, const char *log, int die_with_parent);
/* Run a program to completion with input (or none) on its stdin, its
 * output appended to realm->dir/tools.log; 0 when it exited 0. */
int gk5_realm_run_tool(const gk5_mit_realm *realm, char **env,
                       char *const argv[], const char *input);
/* environ with KRB5_CONFIG (and KRB5_KDC_PROFILE) pointing into the
 * realm's folder; NULL when out of memory. */
char **gk5_realm_environ(const gk5_mit_realm *realm);
void gk5_realm_free_environ(char **env);
/* TERM, then KILL after 5 s, and reap: a child of ours. */
void gk5_realm_stop_pid(pid_t pid);
/* Running, and not a zombie? */
int gk5_realm_alive(pid_t pid);
/* Does pid's command line (/proc/PID/cmdline) hold the argument arg, and
 * right after it next (unless next is NULL)?  Before a PID read from a
 * file is signalled: never a recycled one. */
int gk5_realm_cmdline_has(pid_t pid, const char *arg, const char *next);
/* UDP and listening TCP sockets on the local port, IPv4 and IPv6. */
int gk5_realm_port_users(int port);
/* The port to try first (GK5_KDC_PORT) when tries is 0 and it is set,
 * else a random one in the test range. */
int gk5_realm_pick_port(int tries);
int gk5_realm_write_text(const char *path, const char *text);
/* dir/name into out; 0, or -1 when it does not fit. */
int gk5_realm_path_in(char *out, size_t out_len, const char *dir,
                      const char *name);
/* The realm's krb5.conf (realm->dir/krb5.conf): the realm on
 * 127.0.0.1:port, enctypes for every client list, no DNS; made_by names
 * the writer in its first line. */
int gk5_realm_krb5_conf(const gk5_mit_realm *realm, int port,
                        const char *enctypes, const char *made_by);
int gk5_realm_write_number(const gk5_mit_realm *realm, const char *name,
                           long v);
int gk5_realm_make_dirs(const char *dir);
/* KRB5_CONFIG=realm->dir/krb5.conf in this process. */
int gk5_realm_set_krb5_config(const gk5_mit_realm *realm);
/* A realm's enctype when gk5's table has it as supported or not built,
 * or it is rc4-hmac (kept for the refusal cases); the KDC must implement
 * it too, which the caller asks its KDC. */
int gk5_realm_enctype_wanted(int32_t enctype, int state);
/* 1 for the enctypes every realm lists first (RFC 3962 AES). */
int gk5_realm_enctype_first(int32_t enctype);
/* The 10 ms pause of the polling loops. */
void gk5_realm_nap(void);

/* ---- start.c: the start every kind shares ---- */

/* A kind's KDC, tried on ports: start_on(arg, tries) picks its port(s)
 * (gk5_realm_pick_port(tries)) and starts the KDC there: 1 when it
 * listens (realm->port and realm->kdc_pid set), 0 when the port was taken
 * (try another), -1 when it failed for another reason. */
typedef struct {
    const char *name; /* the KDC in words, "krb5kdc" */
    const char *logs; /* its logs in the realm's folder, "kdc.log" */
    int (*start_on)(void *arg, int tries);
} gk5_realm_kdc;

/* start_on over up to 20 ports, then kdc.port and KRB5_CONFIG.  0, or -1
 * with words in err (a KDC that failed is stopped by start_on). */
int gk5_realm_start_on_free_port(gk5_mit_realm *realm, const gk5_realm_kdc *kdc,
                                 void *arg, char *err, size_t err_len);

/* A kind's realm: its tools, its making (configuration, database, KDC
 * started; detached: the KDC outlives us), and its stops. */
typedef struct {
    const char *temp; /* the temporary folder's name, "gk5-realm.XXXXXX" */
    int (*present)(char *err, size_t err_len);
    int (*make)(gk5_mit_realm *realm, int detached, char *err, size_t err_len);
    /* The KDC (and anything it started) that a failed start left; the
     * folder stays. */
    void (*stop_kdc)(gk5_mit_realm *realm);
    /* Everything, the folder too. */
    void (*stop)(gk5_mit_realm *realm);
} gk5_realm_maker;

/* The realm in a new temporary folder, removed again if it fails (kept,
 * with its logs, under GK5_KEEP_REALM). */
int gk5_realm_start_temp(gk5_mit_realm *realm, const gk5_realm_maker *m,
                         char *err, size_t err_len);
/* The realm in dir (made if missing; refused if it holds one), its KDC
 * detached and its PID in dir/kdc.pid. */
int gk5_realm_start_dir(gk5_mit_realm *realm, const char *dir,
                        const gk5_realm_maker *m, char *err, size_t err_len);

#endif /* GK5_SUPPORT_REALM_IMPL_H */
