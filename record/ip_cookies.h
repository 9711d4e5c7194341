/* ip_cookies.h - the kprobe.multi mode's table of function cookies by
 * address (bpf/retsnoop_abi.h struct rs_ip_cookie, the BPF side's
 * ip_cookies map): its size, chosen so that the fewest functions sit past
 * their first slot (each such one costs every call of it one more probe
 * in the BPF program), and its contents. A table of at most
 * 1 << RS_IPC_DIRECT_BITS slots is the BPF side's global array
 * ipc_direct_tab instead (record/attach.c fills either). */
#ifndef RS_IP_COOKIES_H
#define RS_IP_COOKIES_H

#include "bpf/retsnoop_abi.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* the table's size, 1 << bits, for n functions at ips[0..n) (0 entries
 * are no function; ips NULL: its smallest size): the smallest power of two at least twice n, or up to
 * four times that while the table stays within IPC_MAX_AUTO_BYTES: the
 * smallest of those sizes with the fewest probes past the first slot, in
 * total */
#define IPC_MAX_AUTO_BYTES (1u << 20)
uint32_t ipc_pick_bits(const uint64_t *ips, size_t n);

/* whether a table of 1 << bits slots is the BPF side's global array (the
 * BPF side tells the same by its shift, 64 - bits) */
static inline bool ipc_is_direct(uint32_t bits)
{
	return bits <= RS_IPC_DIRECT_BITS;
}

/* tab[0, 1 << bits) filled (zeroed first) with the cookies of the n
 * functions: cookies[i] for ips[i]; a function without a free slot among
 * its RS_IPC_PROBES is left out (the BPF side falls back to the link's
 * cookie), an address twice keeps its first cookie. Returns the number of
 * probes past the first slot, in total */
size_t ipc_fill(struct rs_ip_cookie *tab, uint32_t bits, const uint64_t *ips,
		const uint64_t *cookies, size_t n);

#endif
