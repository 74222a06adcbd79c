/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* point.h - one measured run of one lock at one (period, duty, threads). */
#ifndef BENCH_POINT_H
#define BENCH_POINT_H

#include "bench.h"

struct bench_point_spec {
	const struct bench_lock *lock;
	unsigned long out_rounds;	/* work outside the lock */
	unsigned long in_rounds;	/* work inside the lock */
	int threads;
	double seconds;
	int sample_shift;
};

struct bench_point_result {
	unsigned long iters;
	double wall_s;
	double iters_per_s;
	double user_us_per_iter, sys_us_per_iter;
	double cpus_busy;		/* (user + sys) / wall */
	double vcsw_per_k, ivcsw_per_k;	/* per 1,000 iterations */
	double jain;			/* fairness over threads */
	double min_max;			/* fewest / most iterations of a thread */
	double lat_p50_ns, lat_p99_ns, lat_p999_ns;
	unsigned long lat_samples;
};

/* Runs the point; returns 0, or -1 if the lock broke mutual exclusion. */
int bench_run_point(const struct bench_point_spec *spec,
		    struct bench_point_result *res);

#endif /* BENCH_POINT_H */
