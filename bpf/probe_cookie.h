/* probe_cookie.h - the BPF cookie of an injected probe's link (-J), the
 * one thing the recorder (record/probe_attach.c) and the probe programs
 * (bpf/probes.bpf.h) agree on: the probe id, whether its context is cut,
 * and how many context bytes to copy (want; min when reading want bytes
 * faults, e.g. a tracepoint record read past its end). */
#ifndef RS_PROBE_COOKIE_H
#define RS_PROBE_COOKIE_H

#define RS_PROBE_CTX_MAX   16376   /* context bytes one record holds at most (the
				    * BPF side's per-CPU buffer stays below 16 KiB
				    * plus the record; per-CPU values are limited
				    * to 32 KiB) */
#define RS_PROBE_ID_MASK   0x7fff  /* probe ids 0..32767 */
#define RS_PROBE_TRUNC_BIT 0x8000  /* the context is cut to want bytes */

/* want, min <= RS_PROBE_CTX_MAX; want 0: no context */
#define RS_PROBE_COOKIE(id, trunc, want, min) \
	(((unsigned long long)(want) << 32) | ((unsigned long long)(min) << 16) | \
	 ((trunc) ? RS_PROBE_TRUNC_BIT : 0) | ((id) & RS_PROBE_ID_MASK))
#define RS_PROBE_COOKIE_ID(c)    ((unsigned)(c) & RS_PROBE_ID_MASK)
#define RS_PROBE_COOKIE_TRUNC(c) (((unsigned)(c) & RS_PROBE_TRUNC_BIT) != 0)
#define RS_PROBE_COOKIE_MIN(c)   ((unsigned)((c) >> 16) & 0xffff)
#define RS_PROBE_COOKIE_WANT(c)  ((unsigned)((c) >> 32))

#endif
