// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * stats.c - uspin_thread_stats(): what the calling thread's slow paths
 * did.  Counted in TLS (slow paths only), cycles turned into ns on read.
 */
#include <errno.h>
#include <string.h>

#include "mutex_impl.h"

USPIN_TLS struct uspin_stats uspin_stats;

static uint64_t cycles_to_ns(uint64_t c)
{
	uint64_t per_us = uspin_setup()->cycles_per_us;

	return per_us ? c * 1000 / per_us : 0;
}

int uspin_thread_stats(struct uspin_thread_stats *st, size_t size, int reset)
{
	const struct uspin_stats *t = &uspin_stats;
	struct uspin_thread_stats out = {
		.slow_paths = t->slow_paths,
		.spin_phases = t->spin_phases,
		.spin_acquired = t->spin_acquired,
		.spin_ns_acquired = cycles_to_ns(t->spin_cycles_acquired),
		.spin_ns_wasted = cycles_to_ns(t->spin_cycles_wasted),
		.spin_owner_off = t->spin_owner_off,
		.spin_refused = t->spin_refused,
		.blocks = t->blocks,
		.handoffs = t->handoffs,
	};

	if (!st || size == 0)
		return EINVAL;
	memcpy(st, &out, size < sizeof(out) ? size : sizeof(out));
	if (size > sizeof(out))
		memset((char *)st + sizeof(out), 0, size - sizeof(out));
	if (reset)
		memset(&uspin_stats, 0, sizeof(uspin_stats));
	return 0;
}
