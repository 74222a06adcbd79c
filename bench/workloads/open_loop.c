// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * open_loop.c - requests arrive on a Poisson schedule (exponential gaps,
 * each thread its own stream) at a fixed share of the point's capacity
 * (the best closed-loop rate of the run's locks, measured by the runner
 * before the point), whether or not earlier ones are done, as at a
 * server.  Each request is
 * one critical section of OL_CS_INSN instructions; its latency runs from
 * its scheduled arrival to its unlock, so time spent queued behind a slow
 * handover counts (no coordinated omission).  Threads sleep until their
 * next arrival (nanosleep, timer slack 1 us); how late the timer
 * woke them is reported as wake_late_p99_us, the floor of every latency.
 */
#include <stdio.h>

#include "contended.h"
#include "workload.h"

/* Long enough that the lock, not the wake-ups, limits the rate. */
#define OL_CS_INSN	200000

static int points(const struct bench_config *cfg, struct bench_point *pts,
		  int max)
{
	long full_loads[3] = { 50, 80, 95 }, quick_loads[2] = { 50, 90 };
	long threads[2] = { bench_cpus_times(cfg, 2), bench_cpus_times(cfg, 8) };
	const long *loads = cfg->quick ? quick_loads : full_loads;
	int nl = cfg->quick ? 2 : 3, nt = cfg->quick ? 1 : 2, l, t, n = 0;

	if (cfg->quick)
		threads[0] = bench_cpus_times(cfg, 4);
	for (t = 0; t < nt; t++)
	for (l = 0; l < nl && n < max; l++) {
		struct bench_point *pt = &pts[n++];

		bench_axes_init(&pt->ax);
		pt->ax.threads = threads[t];
		pt->ax.cs_insn = OL_CS_INSN;
		pt->ax.out_insn = 0;
		pt->ax.load_pct = loads[l];
		snprintf(pt->id, sizeof(pt->id), "t%ld-load%ld", threads[t],
			 loads[l]);
	}
	return n;
}

static int run(const struct bench_config *cfg, const struct bench_point *pt,
	       int round, const struct bench_lock *lock,
	       struct bench_result *res)
{
	return bench_contended_run(cfg, pt, round, lock, 1, res);
}

const struct bench_workload bench_wl_open_loop = {
	.name = "open_loop",
	.summary = "Poisson arrivals at 50-95 % of the measured capacity, latency from arrival to unlock",
	.x_axis = "load_pct",
	.latency = "scheduled arrival to unlock (queueing included), every request",
	.points = points,
	.run = run,
	.measures_capacity = 1,
};
