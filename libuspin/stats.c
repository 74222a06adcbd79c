// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * stats.c - uspin_thread_stats(): what the calling thread's slow paths
 * did.  Counted in TLS (slow paths only), cycles turned into ns on read;
 * the time-slice counters are slice_ext.h's (counted only while in use).
 */
#include <errno.h>
#include <string.h>

#include "setup.h"
#include "slow_stats.h"

USPIN_TLS struct uspin_stats uspin_stats;

int uspin_thread_stats(struct uspin_thread_stats *st, size_t size, int reset)
{
	const struct uspin_stats *t = &uspin_stats;
	struct uspin_thread_stats out = {
		.slow_paths = t->slow_paths,
		.spin_phases = t->spin_phases,
		.spin_acquired = t->spin_acquired,
		.spin_ns_acquired = uspin_cycles_to_ns(t->spin_cycles_acquired),
		.spin_ns_wasted = uspin_cycles_to_ns(t->spin_cycles_wasted),
		.spin_owner_off = t->spin_owner_off,
		.spin_refused = t->spin_refused,
		.blocks = t->blocks,
		.handoffs = t->handoffs,
		.spin_preempted = t->spin_preempted,
		.spin_budget_ended = t->spin_budget_ended,
		.passed_to_spinner = t->passed_to_spinner,
		.shadow_off_phases = t->shadow_off_phases,
		.shadow_ns_off = uspin_cycles_to_ns(t->shadow_cycles_off),
		.slice_requests = uspin_thread.slice.requests,
		.slice_granted = uspin_thread.slice.granted,
		.slice_yields = uspin_thread.slice.yields,
		.spin_cpu_wanted = t->spin_cpu_wanted,
	};

	if (!st || size == 0)
		return EINVAL;
	memcpy(st, &out, size < sizeof(out) ? size : sizeof(out));
	if (size > sizeof(out))
		memset((char *)st + sizeof(out), 0, size - sizeof(out));
	if (reset) {
		memset(&uspin_stats, 0, sizeof(uspin_stats));
		uspin_thread.slice.requests = 0;
		uspin_thread.slice.granted = 0;
		uspin_thread.slice.yields = 0;
	}
	return 0;
}
