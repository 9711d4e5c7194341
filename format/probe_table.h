/* probe_table.h - the "probes" header blob of a recording (-J): one entry
 * per injected probe id (the id in RS_REC_PROBE records): its kind, the
 * -J spec it came from, its display name, the size of its context and the
 * BTF id of the context's type in the recording's "btf" blob. Encoded by
 * the recorder, decoded (and validated) by the report; layout in
 * docs/format.md. */
#ifndef RS_PROBE_TABLE_H
#define RS_PROBE_TABLE_H

#include <stddef.h>
#include <stdint.h>

enum rsf_probe_kind {
	RSF_PROBE_KPROBE    = 1,   /* context: struct pt_regs */
	RSF_PROBE_KRETPROBE = 2,   /* context: struct pt_regs */
	RSF_PROBE_RAWTP     = 3,   /* context: the tracepoint's u64 arguments
				    * (BTF: the btf_trace_<name> FUNC_PROTO) */
	RSF_PROBE_TP        = 4,   /* context: the raw trace event record
				    * (BTF: struct trace_event_raw_<class>) */
};

#define RSF_PROBES_VERSION 1
#define RSF_PROBES_MAX     4096u     /* probes per recording */

struct rsf_probe {
	uint32_t kind;          /* enum rsf_probe_kind */
	uint32_t btf_id;        /* context type in the "btf" blob, 0 = none */
	uint32_t ctx_size;      /* the context's natural size in bytes (tp: the
				 * fixed part of the event record) */
	const char *spec;       /* the -J text it came from */
	const char *name;       /* row name: kprobe:NAME+0xOFF, tp:CAT:NAME, ... */
};

/* "kprobe", "kretprobe", "rawtp", "tp", or NULL */
const char *rsf_probe_kind_name(uint32_t kind);

/* the blob of N probes: malloc'ed into *blob (*size bytes); 0 or -1 */
int rsf_probes_encode(const struct rsf_probe *v, size_t n, void **blob, size_t *size);

/* entry ID of BLOB (strings pointing into BLOB), validated; 0, or -1 when
 * the blob is damaged or has no such entry */
int rsf_probes_get(const void *blob, size_t size, uint32_t id, struct rsf_probe *out);

/* the row name of probe ID, or "<probe#ID>" in BUF when BLOB has none */
const char *rsf_probe_name(const void *blob, size_t size, uint32_t id, char *buf, size_t len);

/* a decoded table owns its strings */
struct rsf_probe_table {
	struct rsf_probe *v;
	size_t n;
	char *strings;
};
/* validates and decodes BLOB; 0, or -1 with a one-line reason in err */
int rsf_probes_decode(const void *blob, size_t size, struct rsf_probe_table *t,
		      char *err, size_t errlen);
void rsf_probes_free(struct rsf_probe_table *t);

#endif
