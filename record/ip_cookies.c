/* ip_cookies.c - the kprobe.multi mode's cookie table by address: its
 * size and contents (ip_cookies.h). */
#include "record/ip_cookies.h"
#include <stdlib.h>
#include <string.h>

size_t ipc_fill(struct rs_ip_cookie *tab, uint32_t bits, const uint64_t *ips,
		const uint64_t *cookies, size_t n)
{
	uint32_t size = 1U << bits;
	size_t extra = 0;

	memset(tab, 0, size * sizeof(*tab));
	for (size_t i = 0; i < n; i++) {
		uint64_t ip = ips[i];
		uint32_t slot = RS_IPC_SLOT(ip, bits);

		for (uint32_t k = 0; ip && k < RS_IPC_PROBES; k++) {
			struct rs_ip_cookie *c = &tab[(slot + k) & (size - 1)];

			if (c->ip == ip)
				break;   /* an address twice: its first cookie, as the link's */
			if (!c->ip) {
				c->ip = ip;
				c->cookie = cookies ? cookies[i] : 0;
				extra += k;
				break;
			}
		}
	}
	return extra;
}

uint32_t ipc_pick_bits(const uint64_t *ips, size_t n)
{
	uint32_t min = 1, best, max;
	size_t best_extra = (size_t)-1;
	struct rs_ip_cookie *tab;

	while (min < 24 && (1ULL << min) < 2ULL * n)
		min++;
	max = min;
	while (max < min + 2 && max < 24 &&
	       (sizeof(*tab) << (max + 1)) <= IPC_MAX_AUTO_BYTES)
		max++;
	best = min;
	if (!ips || max == min || !(tab = malloc(sizeof(*tab) << max)))
		return min;
	for (uint32_t b = min; b <= max && best_extra; b++) {
		size_t extra = ipc_fill(tab, b, ips, NULL, n);

		if (extra < best_extra) {
			best = b;
			best_extra = extra;
		}
	}
	free(tab);
	return best;
}
