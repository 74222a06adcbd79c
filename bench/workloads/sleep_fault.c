// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * sleep_fault.c - owners that leave the CPU inside the critical section
 * on their own: in 1 % of sections the holder sleeps (nanosleep, 50 us,
 * timer slack 1 us), or in 5 % it touches a page it never touched before
 * (a minor fault: the kernel zeroes a page; no sleep, but a kernel entry
 * of a few microseconds).  A waiter that spins through the sleep burns
 * CPU for nothing; through the fault it may win.  The running-state array
 * tells the two apart (the sleeper is off its CPU, the faulter is not).
 */
#include <stdio.h>

#include "contended.h"
#include "workload.h"

#define SF_PERIOD		4000
#define SF_DUTY			25
#define SF_SLEEP_PERMILLE	10
#define SF_SLEEP_US		50
#define SF_FAULT_PERMILLE	50

static int points(const struct bench_config *cfg, struct bench_point *pts,
		  int max)
{
	long threads[2] = { bench_cpus_times(cfg, 1), bench_cpus_times(cfg, 4) };
	int nt = cfg->quick ? 1 : 2, kind, t, n = 0;

	if (cfg->quick)
		threads[0] = bench_cpus_times(cfg, 2);
	for (kind = 0; kind < 2; kind++)
	for (t = 0; t < nt && n < max; t++) {
		struct bench_point *pt = &pts[n++];

		bench_axes_init(&pt->ax);
		bench_axes_period(&pt->ax, SF_PERIOD, SF_DUTY);
		pt->ax.threads = threads[t];
		if (kind == 0) {
			pt->ax.sleep_permille = SF_SLEEP_PERMILLE;
			pt->ax.sleep_us = SF_SLEEP_US;
			pt->ax.fault_permille = 0;
			snprintf(pt->id, sizeof(pt->id), "sleep-t%ld",
				 threads[t]);
		} else {
			pt->ax.sleep_permille = 0;
			pt->ax.fault_permille = SF_FAULT_PERMILLE;
			snprintf(pt->id, sizeof(pt->id), "fault-t%ld",
				 threads[t]);
		}
	}
	return n;
}

static int run(const struct bench_config *cfg, const struct bench_point *pt,
	       int round, const struct bench_lock *lock,
	       struct bench_result *res)
{
	return bench_contended_run(cfg, pt, round, lock, 1, res);
}

const struct bench_workload bench_wl_sleep_fault = {
	.name = "sleep_fault",
	.summary = "holders sleep 50 us in 1 % of critical sections, or fault a new page in 5 %",
	.x_axis = "threads",
	.latency = "lock() call to return, 1 acquisition in 2^S per thread",
	.points = points,
	.run = run,
};
