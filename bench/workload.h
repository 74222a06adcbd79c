/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * workload.h - the one interface every workload implements.  A workload
 * is a file under bench/workloads/: a grid of points and a way to run one
 * repetition of one lock at one point.  The runner (runner.c) does the
 * rest the same way for all of them: repetitions, interleaving and
 * rotation of the locks, separate processes where a lock needs one, the
 * interference guard, reruns, and the rows of repeats.csv.
 */
#ifndef BENCH_WORKLOAD_H
#define BENCH_WORKLOAD_H

#include "config.h"
#include "result.h"

struct bench_lock;

#define BENCH_MAX_POINTS	256

struct bench_workload {
	const char *name;	/* on the command line and in repeats.csv */
	const char *summary;	/* one line: what runs (list, meta.json) */
	const char *x_axis;	/* the axis plots put on x ("threads") */
	const char *latency;	/* what lat_* measures here */
	/* The points for @cfg; returns how many (<= @max). */
	int (*points)(const struct bench_config *cfg, struct bench_point *pts,
		      int max);
	/* Once per process before its first point, and after the last. */
	int (*setup)(const struct bench_config *cfg);
	void (*teardown)(void);
	/*
	 * One repetition of @lock at @pt in round @round (which seeds any
	 * randomness: the same for every lock of a round): fills @res.
	 * Returns 0, or -1 if the lock broke mutual exclusion.
	 */
	int (*run)(const struct bench_config *cfg, const struct bench_point *pt,
		   int round, const struct bench_lock *lock,
		   struct bench_result *res);
	/*
	 * Non-zero: a point's load_pct is a share of its capacity, which the
	 * runner measures before the point's rounds (runner.c).
	 */
	int measures_capacity;
};

/* The registry (workloads/registry.c), in the order `all` runs them. */
extern const struct bench_workload *const bench_workloads[];
extern const size_t bench_nr_workloads;

const struct bench_workload *bench_workload_find(const char *name);

#endif /* BENCH_WORKLOAD_H */
