// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * preempt.c - owners preempted by unrelated load: one thread per CPU
 * contends for the lock while 0, half or one CPU hog per CPU (nice 0,
 * separate processes, hogs.h) compete for the same CPUs.  The scheduler
 * then switches holders out at the end of their slices, and a waiter
 * that keeps spinning on a descheduled holder only delays it further:
 * the case the running-state array exists for.  0 hogs is the control.
 */
#include <stdio.h>

#include "contended.h"
#include "workload.h"

#define PREEMPT_PERIOD	4000

static int points(const struct bench_config *cfg, struct bench_point *pts,
		  int max)
{
	long hogs[3] = { 0, cfg->ncpus / 2, cfg->ncpus };
	long duties[2] = { 10, 50 };
	int nd = cfg->quick ? 1 : 2, h, d, n = 0;

	if (cfg->quick)
		duties[0] = 50;
	for (d = 0; d < nd; d++)
	for (h = 0; h < 3 && n < max; h++) {
		struct bench_point *pt = &pts[n];

		/* Quick: no half; and never the same count twice. */
		if ((h == 1 && (cfg->quick || hogs[1] == 0 ||
				hogs[1] == hogs[2])))
			continue;
		bench_axes_init(&pt->ax);
		bench_axes_period(&pt->ax, PREEMPT_PERIOD, duties[d]);
		pt->ax.threads = bench_cpus_times(cfg, 1);
		pt->ax.hogs = hogs[h];
		snprintf(pt->id, sizeof(pt->id), "d%ld-h%ld", duties[d],
			 hogs[h]);
		n++;
	}
	return n;
}

static int run(const struct bench_config *cfg, const struct bench_point *pt,
	       int round, const struct bench_lock *lock,
	       struct bench_result *res)
{
	return bench_contended_run(cfg, pt, round, lock, 1, res);
}

const struct bench_workload bench_wl_preempt = {
	.name = "preempt",
	.summary = "a thread per CPU on one lock, against 0 / CPUs/2 / CPUs background hogs (nice 0)",
	.x_axis = "hogs",
	.latency = "lock() call to return, 1 acquisition in 2^S per thread",
	.points = points,
	.run = run,
};
