// SPDX-License-Identifier: LGPL-2.1-or-later
/* contended.c - see contended.h. */
#include "contended.h"

void bench_axes_period(struct bench_axes *ax, long period, long duty)
{
	ax->period = period;
	ax->duty = duty;
	ax->cs_insn = period * duty / 100;
	ax->out_insn = period - ax->cs_insn;
}

void bench_contended_spec(struct bench_contention *c,
			  const struct bench_config *cfg,
			  const struct bench_point *pt,
			  const struct bench_lock *lock)
{
	const struct bench_axes *ax = &pt->ax;

	*c = (struct bench_contention){
		.lock = lock,
		.threads = ax->threads,
		.in_rounds = bench_rounds(&cfg->cal, ax->cs_insn > 0 ? ax->cs_insn : 0),
		.out_rounds = bench_rounds(&cfg->cal, ax->out_insn > 0 ? ax->out_insn : 0),
		.seconds = cfg->seconds,
		.sample_shift = cfg->sample_shift,
		.hogs = ax->hogs > 0 ? ax->hogs : 0,
		.sleep_permille = ax->sleep_permille > 0 ? ax->sleep_permille : 0,
		.sleep_ns = ax->sleep_us > 0 ? ax->sleep_us * 1000 : 0,
		.fault_permille = ax->fault_permille > 0 ? ax->fault_permille : 0,
		.stretch_ns = cfg->stretch_us * 1e3,
		.ns_per_round = cfg->cal.ns_per_round,
	};
	/* The runner's share of the measured capacity, or a closed loop. */
	c->arrivals_per_s = pt->arrivals_per_s;
}

int bench_contended_run(const struct bench_config *cfg,
			const struct bench_point *pt, int round,
			const struct bench_lock *lock, int measure_holder,
			struct bench_result *res)
{
	struct bench_contention c;

	bench_contended_spec(&c, cfg, pt, lock);
	c.measure_holder = measure_holder;
	c.seed = (unsigned int)round;
	return bench_contention_run(&c, res);
}

long bench_cpus_times(const struct bench_config *cfg, long mult)
{
	long n = cfg->ncpus * mult;

	if (n < 2)
		n = 2;
	return n > BENCH_MAX_THREADS ? BENCH_MAX_THREADS : n;
}
