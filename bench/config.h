/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * config.h - what one run of uspin-bench was asked to do: the locks, the
 * workloads, their grids, the method (repetitions, length, guard) and
 * where the output goes.  Plain data: main.c fills it from the command
 * line, everything else reads it.
 */
#ifndef BENCH_CONFIG_H
#define BENCH_CONFIG_H

#include "work.h"

#define BENCH_MAX_LIST		16
#define BENCH_MAX_THREADS	256
#define BENCH_MAX_LOCKS		32
#define BENCH_MAX_WORKLOADS	16
#define BENCH_MAX_REPEATS	64

struct bench_lock;
struct bench_workload;

/* A comma-separated list of numbers from the command line; n == 0: unset. */
struct bench_list {
	long v[BENCH_MAX_LIST];
	int n;
};

struct bench_config {
	/* What runs, in run order. */
	const struct bench_lock *locks[BENCH_MAX_LOCKS];
	int nr_locks;
	const struct bench_workload *workloads[BENCH_MAX_WORKLOADS];
	int nr_workloads;

	/* Grids; a workload uses the lists that apply to it. */
	struct bench_list periods;	/* sweep: instructions per iteration */
	struct bench_list duties;	/* sweep: percent of the period locked */
	struct bench_list threads;	/* sweep: thread counts */
	struct bench_list writers;	/* kv: writer threads */
	struct bench_list holds;	/* holdtime: critical sections, us */
	struct bench_list hold_duties;	/* holdtime: percent of a loop locked */
	struct bench_list hold_tpc;	/* holdtime: threads per CPU x 10 */
	struct bench_list hold_hogs;	/* holdtime: CPU hog processes */
	struct bench_list hold_preempt_ppm; /* holdtime: CSs preempted, per million */
	struct bench_list hold_preempt_us; /* holdtime: ... for this long */
	struct bench_list hold_long_ppm; /* holdtime: long CSs, per million */
	struct bench_list hold_long_us;	/* holdtime: ... this long */
	int readers;			/* kv: reader threads */
	long keys;			/* kv: keys in the table */
	long pairs;			/* work mode: rounds */
	int quick;			/* the reduced grids of every workload */

	/* Method. */
	int repeats;			/* rounds per point (every lock once) */
	double seconds;			/* measured length of one repetition */
	int sample_shift;		/* latency of 1 in 2^shift acquisitions */
	int reruns;			/* reruns of a disturbed round */
	double guard_foreign_cpus;	/* disturbed above this foreign load */
	double guard_steal_pct;		/* disturbed above this steal time */
	int isolate;			/* every lock in its own process */
	double stretch_us;		/* holder preempted: CS this much late */
	unsigned long order_seed;	/* seeds each round's lock order */

	/* Machine, measured once at start. */
	int ncpus;			/* CPUs this process may use */
	struct bench_calibration cal;

	/* Output. */
	int quiet;			/* progress per round, not per repetition */
	const char *outdir;
	const char *cmdline;
};

/* The list, or @fallback when the command line left it unset. */
static inline const struct bench_list *
bench_list_or(const struct bench_list *l, const struct bench_list *fallback)
{
	return l->n ? l : fallback;
}

#endif /* BENCH_CONFIG_H */
