/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * The bridge from MIT krb5's GSS-API to gk5: an established MIT security
 * context leaves MIT through gss_krb5_export_lucid_sec_context() (lucid
 * version 1) and enters gk5 either field by field (gk5_ctx_import_lucid)
 * or as the byte buffer rpc.gssd writes for the Linux kernel
 * (gk5_ctx_import_gssd) -- the path a context takes to the kernel's
 * gss_krb5.  Not part of libgk5: programs that link MIT krb5 anyway (the
 * interop tests, `gk5 demo`, `gk5 bench`) link this static library.
 */
#ifndef GK5_BRIDGE_LUCID_H
#define GK5_BRIDGE_LUCID_H

#include <stddef.h>
#include <stdint.h>

#include <gssapi/gssapi.h>

#include <gk5/gk5.h>

/* Status of a bridge call.  A failure comes either from gk5 (major and a
 * gk5 error code in minor) or from MIT's GSS-API (MIT's major and minor,
 * from_mit set, call naming the MIT function).  Major numbers are RFC
 * 2744's in both domains. */
typedef struct {
    uint32_t major;
    uint32_t minor;
    int from_mit;
    const char *call;
} gk5_mit_status;

/* Words for st in buf (always NUL-terminated); returns buf. */
const char *gk5_mit_status_text(const gk5_mit_status *st, char *buf,
                                size_t buf_len);

/* A lucid export held open: MIT's gss_krb5_lucid_context_v1_t and the same
 * fields in gk5's terms (whose key pointers point into MIT's copy). */
typedef struct gk5_mit_lucid gk5_mit_lucid;

/* Export *mit_ctx as a version 1 lucid context.  Exporting consumes the
 * MIT context: on success *mit_ctx is GSS_C_NO_CONTEXT; on failure it is
 * as MIT left it.  Returns GK5_S_COMPLETE, MIT's major status (from_mit),
 * or GK5_S_FAILURE (minor GK5_ERR_IMPORT_VERSION: not version 1;
 * GK5_ERR_NOMEM). */
GK5_WUR uint32_t gk5_mit_export_lucid(gk5_mit_status *st, gss_ctx_id_t *mit_ctx,
                                      gk5_mit_lucid **out);
/* The same lucid data without consuming mit_ctx: the krb5 mechanism's own
 * answer to gss_inquire_sec_context_by_oid for the lucid OID (the context
 * stays usable with MIT).  Answers as gk5_mit_export_lucid. */
GK5_WUR uint32_t gk5_mit_inquire_lucid(gk5_mit_status *st, gss_ctx_id_t mit_ctx,
                                       gk5_mit_lucid **out);

/* The export's fields, valid until gk5_mit_lucid_free(). */
const gk5_lucid_ctx *gk5_mit_lucid_fields(const gk5_mit_lucid *lucid);
/* The enctype of the key the tokens are made with: the acceptor subkey's
 * when there is one, else the context key's (RFC 1964: rfc1964_kd's). */
int32_t gk5_mit_lucid_enctype(const gk5_mit_lucid *lucid);
/* Wipes the keys (MIT's free does) and frees; NULL is fine. */
void gk5_mit_lucid_free(gk5_mit_lucid *lucid);

/* The buffer rpc.gssd (nfs-utils utils/gssd/context_lucid.c) writes for
 * the kernel from the same lucid context, in host byte order, no padding:
 * u32 flags (GK5_GSSD_FLAG_*), u32 endtime, u64 send_seq, u32 enctype, the
 * raw key.  CFX is set when protocol != 0; ACCEPTOR_SUBKEY when protocol
 * != 0 and have_acceptor_subkey == 1, and then the key and enctype are the
 * subkey's; protocol 0 (DES3, RC4) carries rfc1964_kd's key.  rpc.gssd
 * writes an older layout for single DES (protocol 0, enctype <= 4), which
 * no MIT release since 1.18 can produce and gk5 refuses anyway: that is
 * GK5_S_UNAVAILABLE with the enctype's refusal in minor.  The key is in
 * the buffer: release it with gk5_mit_buffer_free(). */
GK5_WUR uint32_t gk5_mit_lucid_to_gssd(gk5_mit_status *st,
                                       const gk5_mit_lucid *lucid,
                                       gk5_buffer *out);
/* Wipe and free a buffer the bridge allocated; NULL is fine. */
void gk5_mit_buffer_free(gk5_buffer *buf);

/* How a context travels from MIT to gk5. */
enum gk5_mit_path {
    GK5_MIT_PATH_LUCID, /* gk5_ctx_import_lucid() on the lucid fields */
    GK5_MIT_PATH_GSSD   /* gk5_ctx_import_gssd() on rpc.gssd's buffer */
};
/* Returns "lucid" or "gssd". */
const char *gk5_mit_path_name(enum gk5_mit_path path);

/* Import an already exported context into gk5 by path.  The major status
 * and minor code are gk5's import answer (GK5_S_UNAVAILABLE for an
 * enctype gk5 refuses). */
GK5_WUR uint32_t gk5_mit_lucid_import(gk5_mit_status *st,
                                      const gk5_mit_lucid *lucid,
                                      enum gk5_mit_path path, gk5_ctx **ctx);

/* Export *mit_ctx and import it into gk5 by path, in one step (the MIT
 * context is consumed as by gk5_mit_export_lucid).  *enctype, if not
 * NULL, receives the exported token enctype even when gk5 refuses it. */
GK5_WUR uint32_t gk5_mit_import_by_path(gk5_mit_status *st,
                                        gss_ctx_id_t *mit_ctx,
                                        enum gk5_mit_path path,
                                        int32_t *enctype, gk5_ctx **ctx);

#endif /* GK5_BRIDGE_LUCID_H */
