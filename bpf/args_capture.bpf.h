/* args_capture.bpf.h - -A: at a traced function's entry inside a session,
 * its arguments as one variable-sized RS_REC_FUNC_ARGS record
 * (bpf/retsnoop_abi.h), by the function's plan in arg_specs
 * (bpf/args_spec.h, made by record/args_spec.c). Included by
 * retsnoop.bpf.c, which calls args_capture() from handle_entry.
 *
 * The argument slots are read in the program (pt_regs registers and the
 * stack words above the return address; fentry: the trampoline's saved
 * registers, the stack is not available), then a global function builds
 * the record in a per-CPU scratch buffer and sends only the bytes captured
 * with bpf_ringbuf_output. The per-argument work is a global function of
 * its own, verified once, so the verifier's effort does not multiply
 * over the 12 arguments (nor over every fentry clone's paths). */
#ifndef RS_ARGS_CAPTURE_BPF_H
#define RS_ARGS_CAPTURE_BPF_H

#include "args_spec.h"

const volatile bool capture_args = false;       /* -A */
#ifdef RS_LEAN   /* bpf/lean_knobs.h */
#define capture_args RS_LEAN_capture_args
#endif
const volatile __u32 args_max_total = 3072;       /* -C args.max-total-args-size */
const volatile __u32 args_max_sized = 256;        /* -C args.max-sized-arg-size */
const volatile __u32 args_max_str = 256;          /* -C args.max-str-arg-size */

#define RS_ARGS_DATA_MAX 65536   /* data[] bound (budget max; u16 offsets keep < 65536) */
#define RS_ARGS_ONE_MAX  16384   /* one argument's bytes at most (the -C ranges' max) */
#define RS_ARGS_SLACK    32768   /* data[] room past RS_ARGS_DATA_MAX: a power of two > ONE_MAX */
#define RS_ARGS_FMT_SCAN 512     /* format bytes scanned for conversions */
#define RS_KERNEL_ADDR_MIN 0xffff800000000000ULL   /* x86-64: the kernel half */

struct args_buf {
	u64 slots[32];                /* RS_ARG_SLOTS used; 32 for a cheap mask */
	u32 slot_ok;                  /* bit i: slots[i] was read */
	u32 off;                      /* bytes of data[] used */
	struct rs_args_spec spec;
	u8 _pad[4];
	u8 rec[sizeof(struct rs_rec_func_args) + RS_ARGS_DATA_MAX + RS_ARGS_SLACK];
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);           /* the recorder: one per possible CPU with -A */
	__type(key, u32);
	__type(value, struct args_buf);
} args_bufs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);           /* the recorder: one per traced function with -A */
	__type(key, u32);
	__type(value, struct rs_args_spec);
} arg_specs SEC(".maps");

static __always_inline struct rs_rec_func_args *args_rec(struct args_buf *b)
{
	return (struct rs_rec_func_args *)b->rec;
}

static __always_inline bool args_is_kernel(u64 p)
{
	return p >= RS_KERNEL_ADDR_MIN;
}

/* slot I's value into *v; false when it was not read */
static __always_inline bool args_slot(struct args_buf *b, u32 i, u64 *v)
{
	if (i >= RS_ARG_SLOTS || !(b->slot_ok & (1u << i)))
		return false;
	asm volatile("" : "+r"(i));   /* keep the mask: clang reuses the unmasked copy */
	*v = b->slots[i & 31];
	return true;
}

/* reads a string or bytes at P into data[off, off+len) of the record;
 * returns the helper's result */
static __always_inline long args_read(void *dst, u32 len, u64 p, bool str)
{
	if (len > RS_ARGS_ONE_MAX)
		return -7;   /* -E2BIG */
	/* a mask the verifier sees on the very register passed (clang may
	 * hand the helper a signed copy of LEN otherwise) */
	asm volatile("" : "+r"(len));
	len &= RS_ARGS_SLACK - 1;
	if (args_is_kernel(p))
		return str ? bpf_probe_read_kernel_str(dst, len, (void *)p)
			   : bpf_probe_read_kernel(dst, len, (void *)p);
	return str ? bpf_probe_read_user_str(dst, len, (void *)p)
		   : bpf_probe_read_user(dst, len, (void *)p);
}

/* what is left of the per-call budget at offset OFF */
static __always_inline u32 args_left(u32 off)
{
	u32 max = args_max_total < RS_ARGS_DATA_MAX - 8 ? args_max_total : RS_ARGS_DATA_MAX - 8;

	return off < max ? max - off : 0;
}

/* one named argument, desc I: 0 next, 1 the budget ran out (stop here) */
__noinline int rs_args_one(struct args_buf *b, u32 i)
{
	struct rs_rec_func_args *r;
	struct rs_args_spec_arg *a;
	struct rs_arg_desc *d;
	u32 off, left, len = 0;
	u64 v = 0;
	long ret;

	if (!b || i >= RS_MAX_FUNC_ARGS)
		return 1;
	r = args_rec(b);
	a = &b->spec.args[i];
	d = &r->args[i];
	off = b->off & (RS_ARGS_DATA_MAX - 1);
	left = args_left(off);
	d->kind = a->kind;
	d->flags = 0;
	d->err = 0;
	d->len = 0;
	d->off = off;
	if (a->kind == RS_ARG_NONE) {
		d->flags = RS_ARGF_ERR;
		d->err = -33;   /* -EDOM: a type that cannot be captured */
		return 0;
	}
	if (a->slot + a->nslots > RS_ARG_SLOTS || !args_slot(b, a->slot, &v) ||
	    (a->nslots > 1 && !(b->slot_ok & (1u << ((a->slot + a->nslots - 1) & 31))))) {
		d->flags = RS_ARGF_UNAVAIL;
		return 0;
	}
	if (a->kind == RS_ARG_VALUE || a->kind == RS_ARG_PTR || a->kind == RS_ARG_RAW) {
		len = a->kind == RS_ARG_VALUE ? a->size : 8;
		if (len > args_max_sized) {
			len = args_max_sized;
			d->flags |= RS_ARGF_TRUNC;
		}
		if (len > left)
			return 1;
		asm volatile("" : "+r"(len));
		len &= RS_ARGS_SLACK - 1;
		bpf_probe_read_kernel(r->data + off, len, &b->slots[a->slot & 31]);
	} else {   /* RS_ARG_STR, RS_ARG_PTR_DATA: through the pointer */
		bool str = a->kind == RS_ARG_STR;

		if (!v) {
			d->flags = RS_ARGF_NULL;
			return 0;
		}
		len = str ? args_max_str : a->size;
		if (!str && len > args_max_sized) {
			len = args_max_sized;
			d->flags |= RS_ARGF_TRUNC;
		}
		if (!left)
			return 1;
		if (len > left) {
			len = left;
			d->flags |= RS_ARGF_TRUNC;
		}
		if (!args_is_kernel(v))
			d->flags |= RS_ARGF_USER;
		ret = args_read(r->data + off, len, v, str);
		if (ret < 0) {
			d->flags = (d->flags & RS_ARGF_USER) | RS_ARGF_ERR;
			d->err = ret;
			return 0;
		}
		if (str) {
			if (ret >= len)
				d->flags |= RS_ARGF_TRUNC;
			len = ret > 0 ? ret - 1 : 0;   /* the NUL is not kept */
		}
	}
	d->len = len;
	b->off = off + ((len + 7) & ~7u);
	return 0;
}

/* conversions of the printf format in data[off, off+len): '%' not
 * followed by '%' */
__noinline int rs_args_count_convs(struct args_buf *b, u32 off, u32 len)
{
	struct rs_rec_func_args *r;
	int n = 0;

	if (!b)
		return 0;
	r = args_rec(b);
	off &= RS_ARGS_DATA_MAX - 1;
	for (u32 i = 0; i < RS_ARGS_FMT_SCAN; i++) {
		if (i + 1 >= len)
			break;
		if (r->data[(off + i) & (RS_ARGS_DATA_MAX - 1)] != '%')
			continue;
		if (r->data[(off + i + 1) & (RS_ARGS_DATA_MAX - 1)] == '%')
			i++;
		else
			n++;
	}
	return n;
}

/* vararg slot K (desc I): its 8 bytes, and a string after them when
 * it looks like a kernel address; 0 next, 1 the budget ran out */
__noinline int rs_args_vararg(struct args_buf *b, u32 i, u32 k)
{
	struct rs_rec_func_args *r;
	struct rs_arg_desc *d;
	u32 off, left, slot, len = 8, smax;
	u64 v = 0;
	long ret;

	if (!b || i >= RS_MAX_FUNC_ARGS)
		return 1;
	r = args_rec(b);
	d = &r->args[i];
	off = b->off & (RS_ARGS_DATA_MAX - 1);
	left = args_left(off);
	slot = b->spec.nregs + k < RS_ARG_REG_SLOTS ? b->spec.nregs + k
		: RS_ARG_REG_SLOTS + b->spec.nstack + (k - (RS_ARG_REG_SLOTS - b->spec.nregs));
	d->kind = RS_ARG_VARARG;
	d->flags = 0;
	d->err = 0;
	d->len = 0;
	d->off = off;
	if (!args_slot(b, slot, &v)) {
		d->flags = RS_ARGF_UNAVAIL;
		return 0;
	}
	if (left < 8)
		return 1;
	*(u64 *)(r->data + off) = v;
	smax = left - 8 < args_max_str ? left - 8 : args_max_str;
	if (args_is_kernel(v) && smax > 1) {
		ret = args_read(r->data + ((off + 8) & (RS_ARGS_DATA_MAX - 1)), smax, v, true);
		if (ret > 1) {
			d->flags = RS_ARGF_STRISH | (ret >= smax ? RS_ARGF_TRUNC : 0);
			len = 8 + ret - 1;
		}
	}
	d->len = len;
	b->off = off + ((len + 7) & ~7u);
	return 0;
}

/* the varargs after NARGS named arguments: as many slots as the format
 * has conversions (a raw format pointer: every slot left) */
static __always_inline u32 args_varargs(struct args_buf *b, u32 nargs)
{
	struct rs_rec_func_args *r = args_rec(b);
	struct rs_arg_desc *fmt;
	u32 n, k;

	if (!nargs || nargs > RS_MAX_FUNC_ARGS)
		return nargs;
	fmt = &r->args[(nargs - 1) & 15];
	if (fmt->kind == RS_ARG_STR && !fmt->flags)
		n = rs_args_count_convs(b, fmt->off, fmt->len + 1);
	else if (fmt->kind == RS_ARG_PTR)
		n = RS_MAX_FUNC_ARGS;
	else
		return nargs;
	for (k = 0; k < RS_MAX_FUNC_ARGS; k++) {
		if (k >= n || nargs >= RS_MAX_FUNC_ARGS)
			break;
		if (rs_args_vararg(b, nargs, k)) {
			r->flags |= RS_ARGS_BUDGET;
			break;
		}
		nargs++;
	}
	return nargs;
}

/* builds and sends the record of the call whose slots are in B */
__noinline int rs_args_emit(struct args_buf *b)
{
	struct rs_rec_func_args *r;
	u32 i, n, size;

	if (!b)
		return 0;
	r = args_rec(b);
	b->off = 0;
	r->flags = b->spec.flags & RS_ARGS_SPEC_NO_BTF ? RS_ARGS_NO_BTF : 0;
	n = b->spec.nargs;
	for (i = 0; i < RS_MAX_FUNC_ARGS; i++) {
		if (i >= n)
			break;
		if (rs_args_one(b, i)) {
			r->flags |= RS_ARGS_BUDGET;
			break;
		}
	}
	if (i == n && (b->spec.flags & RS_ARGS_SPEC_VARARGS))
		i = args_varargs(b, i);
	r->nargs = i;
	r->data_len = b->off;
	r->_pad = 0;
	size = sizeof(*r) + (b->off & (RS_ARGS_DATA_MAX - 1));
	r->hdr.type = RS_REC_FUNC_ARGS;
	r->hdr.size = size;
	if (size > sizeof(b->rec) ||
	    bpf_ringbuf_output(&rb, r, size, BPF_RB_NO_WAKEUP))
		stat_inc(&stats.args_dropped);
	return 0;
}

/* the hook of handle_entry: the call SEQ_ID of function FUNC_ID */
static __always_inline void args_capture(void *ctx, u64 sess_id, u32 seq_id, u32 func_id)
{
	u32 cpu = bpf_get_smp_processor_id();
	struct rs_args_spec *spec;
	struct args_buf *b;

	if (!capture_args)
		return;
	b = bpf_map_lookup_elem(&args_bufs, &cpu);
	spec = bpf_map_lookup_elem(&arg_specs, &func_id);
	if (!b || !spec)
		return;
	b->spec = *spec;
	b->slot_ok = 0;
	if (fentry_mode) {
		for (u32 i = 0; i < RS_ARG_REG_SLOTS; i++)
			if (!bpf_get_func_arg(ctx, i, &b->slots[i]))
				b->slot_ok |= 1u << i;
	} else {
#if defined(__TARGET_ARCH_x86)
		struct pt_regs *regs = ctx;

		/* x86-64 (the recorder refuses -A elsewhere) */
		b->slots[0] = regs->di;
		b->slots[1] = regs->si;
		b->slots[2] = regs->dx;
		b->slots[3] = regs->cx;
		b->slots[4] = regs->r8;
		b->slots[5] = regs->r9;
		b->slot_ok = (1u << RS_ARG_REG_SLOTS) - 1;
		/* the stack words above the return address */
		if ((spec->nstack || (spec->flags & RS_ARGS_SPEC_VARARGS)) &&
		    !bpf_probe_read_kernel(&b->slots[RS_ARG_REG_SLOTS], RS_ARG_STACK_SLOTS * 8,
					   (void *)(regs->sp + 8)))
			b->slot_ok |= ((1u << RS_ARG_STACK_SLOTS) - 1) << RS_ARG_REG_SLOTS;
#endif
	}
	args_rec(b)->sess_id = sess_id;
	args_rec(b)->seq_id = seq_id;
	args_rec(b)->func_id = func_id;
	rs_args_emit(b);
}

#endif
