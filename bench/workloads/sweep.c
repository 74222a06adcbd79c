// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * sweep.c - the 2010 series' sweep: period x duty x threads, closed loop,
 * nothing else on the machine.  One iteration is `period` instructions of
 * work, `duty` % of them inside the lock.  The holder is not timed here
 * (two TSC reads would lengthen the shortest critical sections).
 */
#include <stdio.h>

#include "contended.h"
#include "workload.h"

static const struct bench_list def_periods = { { 1000, 10000 }, 2 };
static const struct bench_list def_duties = { { 1, 8, 32, 64 }, 4 };
static const struct bench_list def_threads = { { 1, 2, 4, 8, 16, 32 }, 6 };
static const struct bench_list quick_periods = { { 1000 }, 1 };
static const struct bench_list quick_duties = { { 8, 64 }, 2 };
static const struct bench_list quick_threads = { { 2, 8 }, 2 };

static int points(const struct bench_config *cfg, struct bench_point *pts,
		  int max)
{
	const struct bench_list *per = bench_list_or(&cfg->periods,
		cfg->quick ? &quick_periods : &def_periods);
	const struct bench_list *dut = bench_list_or(&cfg->duties,
		cfg->quick ? &quick_duties : &def_duties);
	const struct bench_list *thr = bench_list_or(&cfg->threads,
		cfg->quick ? &quick_threads : &def_threads);
	int p, d, t, n = 0;

	for (p = 0; p < per->n; p++)
	for (d = 0; d < dut->n; d++)
	for (t = 0; t < thr->n && n < max; t++) {
		struct bench_point *pt = &pts[n++];

		bench_axes_init(&pt->ax);
		bench_axes_period(&pt->ax, per->v[p], dut->v[d]);
		pt->ax.threads = thr->v[t];
		snprintf(pt->id, sizeof(pt->id), "p%ld-d%ld-t%ld", per->v[p],
			 dut->v[d], thr->v[t]);
	}
	return n;
}

static int run(const struct bench_config *cfg, const struct bench_point *pt,
	       int round, const struct bench_lock *lock,
	       struct bench_result *res)
{
	return bench_contended_run(cfg, pt, round, lock, 0, res);
}

const struct bench_workload bench_wl_sweep = {
	.name = "sweep",
	.summary = "period x duty x threads, closed loop, quiet machine (the 2010 plots)",
	.x_axis = "threads",
	.latency = "lock() call to return, 1 acquisition in 2^S per thread",
	.points = points,
	.run = run,
};
