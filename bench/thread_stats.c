// SPDX-License-Identifier: LGPL-2.1-or-later
/* thread_stats.c - uspin_thread_stats(), which libuspin always exports. */
#include <errno.h>
#include <string.h>

#include "thread_stats.h"

const char *bench_thread_stats_status(void)
{
	struct uspin_thread_stats st;
	int err;

	err = uspin_thread_stats(&st, sizeof(st), 0);
	if (err)
		return strerror(err);
	return "available";
}

int bench_thread_stats_reset(void)
{
	struct uspin_thread_stats st;

	return uspin_thread_stats(&st, sizeof(st), 1) ? -1 : 0;
}

int bench_thread_stats_read(struct uspin_thread_stats *st)
{
	memset(st, 0, sizeof(*st));
	return uspin_thread_stats(st, sizeof(*st), 0) ? -1 : 0;
}

void bench_thread_stats_add(struct uspin_thread_stats *a,
			    const struct uspin_thread_stats *b)
{
	a->slow_paths += b->slow_paths;
	a->spin_phases += b->spin_phases;
	a->spin_acquired += b->spin_acquired;
	a->spin_ns_acquired += b->spin_ns_acquired;
	a->spin_ns_wasted += b->spin_ns_wasted;
	a->spin_owner_off += b->spin_owner_off;
	a->spin_refused += b->spin_refused;
	a->blocks += b->blocks;
	a->handoffs += b->handoffs;
	a->spin_preempted += b->spin_preempted;
	a->spin_budget_ended += b->spin_budget_ended;
	a->passed_to_spinner += b->passed_to_spinner;
	a->slice_requests += b->slice_requests;
	a->slice_granted += b->slice_granted;
	a->slice_yields += b->slice_yields;
	a->shadow_off_phases += b->shadow_off_phases;
	a->shadow_ns_off += b->shadow_ns_off;
}

void bench_thread_stats_fill(struct bench_result *r,
			     const struct uspin_thread_stats *st, double ops)
{
	if (ops <= 0)
		return;
	r->spin_acquired_us_per_op = st->spin_ns_acquired / 1e3 / ops;
	r->spin_wasted_us_per_op = st->spin_ns_wasted / 1e3 / ops;
	r->spin_phases_per_kop = st->spin_phases * 1e3 / ops;
	r->spin_owner_off_per_kop = st->spin_owner_off * 1e3 / ops;
	r->spin_refused_per_kop = st->spin_refused * 1e3 / ops;
	r->blocks_per_kop = st->blocks * 1e3 / ops;
	r->handoffs_per_kop = st->handoffs * 1e3 / ops;
	r->spin_preempted_per_kop = st->spin_preempted * 1e3 / ops;
	r->spin_budget_per_kop = st->spin_budget_ended * 1e3 / ops;
	r->passed_to_spinner_per_kop = st->passed_to_spinner * 1e3 / ops;
	r->slice_requests_per_kop = st->slice_requests * 1e3 / ops;
	r->slice_granted_per_kop = st->slice_granted * 1e3 / ops;
	r->shadow_off_per_kop = st->shadow_off_phases * 1e3 / ops;
	r->shadow_off_us_per_op = st->shadow_ns_off / 1e3 / ops;
}
