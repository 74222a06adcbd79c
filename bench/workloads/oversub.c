// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * oversub.c - more threads than CPUs, with background load: 2, 4 and 8
 * threads per CPU on one lock while a CPU hog per CPU (nice 0) competes
 * for the same CPUs.  Holders are preempted both by other waiters and by
 * unrelated work; every spin on a descheduled holder is CPU taken from
 * someone who could have run.
 */
#include <stdio.h>

#include "contended.h"
#include "workload.h"

#define OVERSUB_PERIOD	4000

static int points(const struct bench_config *cfg, struct bench_point *pts,
		  int max)
{
	long full_mult[3] = { 2, 4, 8 }, quick_mult[2] = { 2, 8 };
	long duties[2] = { 10, 50 };
	const long *mult = cfg->quick ? quick_mult : full_mult;
	int nm = cfg->quick ? 2 : 3, nd = cfg->quick ? 1 : 2, m, d, n = 0;

	if (cfg->quick)
		duties[0] = 50;
	for (d = 0; d < nd; d++)
	for (m = 0; m < nm && n < max; m++) {
		struct bench_point *pt = &pts[n++];

		bench_axes_init(&pt->ax);
		bench_axes_period(&pt->ax, OVERSUB_PERIOD, duties[d]);
		pt->ax.threads = bench_cpus_times(cfg, mult[m]);
		pt->ax.hogs = cfg->ncpus;
		snprintf(pt->id, sizeof(pt->id), "d%ld-t%ld", duties[d],
			 pt->ax.threads);
	}
	return n;
}

static int run(const struct bench_config *cfg, const struct bench_point *pt,
	       int round, const struct bench_lock *lock,
	       struct bench_result *res)
{
	return bench_contended_run(cfg, pt, round, lock, 1, res);
}

const struct bench_workload bench_wl_oversub = {
	.name = "oversub",
	.summary = "2-8 threads per CPU on one lock, plus a CPU hog per CPU (nice 0)",
	.x_axis = "threads",
	.latency = "lock() call to return, 1 acquisition in 2^S per thread",
	.points = points,
	.run = run,
};
