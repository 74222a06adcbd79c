// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * holdtime.c - the regime the running state exists for: critical sections
 * and the gaps between them set in *time* (microseconds of calibrated
 * work on this side, not instruction counts), from 1 us, where a futex
 * sleep and wake-up costs as much as the hold, to 1 ms, where spinning
 * through a hold costs more CPU than anything else; threads per CPU from
 * 1 to 4; CPU hogs (nice 0) that deschedule owners and spinners when
 * their slices end; and preemptors (preemptor.h) that take the owner's
 * CPU in a chosen share of critical sections for a chosen time.
 * Whether a waiter should spin or sleep turns on the hold time and on
 * whether the owner is on a CPU: this grid varies both.
 *
 * Axes: hold_us (x), duty (percent of a thread's loop inside the lock:
 * the gap is hold_us * (100 - duty) / duty), threads (tpc10 tenths of a
 * thread per CPU), hogs, preempt_ppm and preempt_us (critical sections
 * per million whose CPU is taken, and for how long; 0: no preemptors).
 * Multi-modal holds (long_ppm, long_us): that many critical sections per
 * million last long_us instead, the case statistical spin budgets cannot
 * fit (mostly ~1 us, a few of 0.5 ms: the 2023 rseq sched_state RFC);
 * the gap stays that of hold_us.
 * Options --holds, --hold-duties, --hold-tpc, --hold-hogs,
 * --hold-preempt-ppm, --hold-preempt-us, --hold-long-ppm and
 * --hold-long-us replace the grid's lists.
 */
#include <stdio.h>

#include "contended.h"
#include "workload.h"

static const struct bench_list full_holds = {
	{ 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000 }, 10 };
static const struct bench_list quick_holds = { { 2, 50, 200 }, 3 };
static const struct bench_list full_tpc = { { 10, 20, 40 }, 3 };
static const struct bench_list quick_tpc = { { 10, 20 }, 2 };
static const struct bench_list default_duties = { { 50 }, 1 };
static const struct bench_list default_preempt_ppm = { { 0 }, 1 };
static const struct bench_list default_preempt_us = { { 100 }, 1 };
static const struct bench_list default_long_ppm = { { 0 }, 1 };
static const struct bench_list default_long_us = { { 500 }, 1 };

static int points(const struct bench_config *cfg, struct bench_point *pts,
		  int max)
{
	struct bench_list def_hogs = { { 0, cfg->ncpus }, 2 };
	const struct bench_list *holds = bench_list_or(&cfg->holds,
		cfg->quick ? &quick_holds : &full_holds);
	const struct bench_list *tpc = bench_list_or(&cfg->hold_tpc,
		cfg->quick ? &quick_tpc : &full_tpc);
	const struct bench_list *duties = bench_list_or(&cfg->hold_duties,
							&default_duties);
	const struct bench_list *hogs = bench_list_or(&cfg->hold_hogs, &def_hogs);
	const struct bench_list *pp = bench_list_or(&cfg->hold_preempt_ppm,
						    &default_preempt_ppm);
	const struct bench_list *pu = bench_list_or(&cfg->hold_preempt_us,
						    &default_preempt_us);
	const struct bench_list *lp = bench_list_or(&cfg->hold_long_ppm,
						    &default_long_ppm);
	const struct bench_list *lu = bench_list_or(&cfg->hold_long_us,
						    &default_long_us);
	int h, t, d, g, i, j, k, l, n = 0;

	for (k = 0; k < lp->n; k++)
	for (l = 0; l < lu->n; l++)
	for (i = 0; i < pp->n; i++)
	for (j = 0; j < pu->n; j++)
	for (g = 0; g < hogs->n; g++)
	for (d = 0; d < duties->n; d++)
	for (t = 0; t < tpc->n; t++)
	for (h = 0; h < holds->n && n < max; h++) {
		struct bench_point *pt;
		long threads = (cfg->ncpus * tpc->v[t] + 5) / 10;
		int len;

		/* Without preemptions (long holds) their length means
		   nothing: once. */
		if ((pp->v[i] == 0 && j > 0) || (lp->v[k] == 0 && l > 0))
			continue;
		pt = &pts[n++];
		bench_axes_init(&pt->ax);
		pt->ax.hold_us = holds->v[h];
		pt->ax.duty = duties->v[d];
		pt->ax.threads = threads < 2 ? 2 : threads;
		pt->ax.tpc10 = tpc->v[t];
		pt->ax.hogs = hogs->v[g];
		pt->ax.preempt_ppm = pp->v[i];
		pt->ax.preempt_us = pp->v[i] ? pu->v[j] : 0;
		pt->ax.long_ppm = lp->v[k];
		pt->ax.long_us = lp->v[k] ? lu->v[l] : 0;
		len = snprintf(pt->id, sizeof(pt->id), "h%ld-d%ld-t%ld-g%ld",
			       holds->v[h], duties->v[d], pt->ax.threads,
			       hogs->v[g]);
		if (pp->v[i])
			len += snprintf(pt->id + len, sizeof(pt->id) - len,
					"-p%ld-D%ld", pp->v[i], pu->v[j]);
		if (lp->v[k])
			snprintf(pt->id + len, sizeof(pt->id) - len, "-L%ldx%ld",
				 lu->v[l], lp->v[k]);
	}
	return n;
}

static int run(const struct bench_config *cfg, const struct bench_point *pt,
	       int round, const struct bench_lock *lock,
	       struct bench_result *res)
{
	const struct bench_axes *ax = &pt->ax;
	double in_ns = ax->hold_us * 1e3;
	double out_ns = in_ns * (100 - ax->duty) / (ax->duty ? ax->duty : 1);
	struct bench_contention c;

	bench_contended_spec(&c, cfg, pt, lock);
	c.in_rounds = (unsigned long)(in_ns / cfg->cal.ns_per_round + 0.5);
	c.out_rounds = (unsigned long)(out_ns / cfg->cal.ns_per_round + 0.5);
	if (c.in_rounds == 0)
		c.in_rounds = 1;
	c.measure_holder = 1;
	c.preempt_ppm = ax->preempt_ppm;
	c.preempt_us = (unsigned int)ax->preempt_us;
	c.long_ppm = ax->long_ppm;
	c.long_rounds = (unsigned long)(ax->long_us * 1e3 / cfg->cal.ns_per_round + 0.5);
	c.seed = (unsigned int)round;
	return bench_contention_run(&c, res);
}

const struct bench_workload bench_wl_holdtime = {
	.name = "holdtime",
	.summary = "critical sections of 1 us to 1 ms (calibrated time), 1-4 threads per CPU, 0 or a CPU hog per CPU",
	.x_axis = "hold_us",
	.latency = "lock() call to return, 1 acquisition in 2^S per thread",
	.points = points,
	.run = run,
};
