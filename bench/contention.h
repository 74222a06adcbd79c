/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * contention.h - the engine most workloads run on: N threads that take
 * one lock over and over, closed loop (each thread's next request as soon
 * as its last is done) or open loop (requests arrive on a Poisson schedule
 * whether or not the last one is done), optionally against background CPU
 * hogs, with owners that sleep or fault in some critical sections, or
 * whose CPU a preemptor (preemptor.h) takes in some of them.
 */
#ifndef BENCH_CONTENTION_H
#define BENCH_CONTENTION_H

#include "result.h"

struct bench_lock;

struct bench_contention {
	const struct bench_lock *lock;
	int threads;
	unsigned long in_rounds;	/* work inside the lock */
	unsigned long out_rounds;	/* work outside it */
	double seconds;			/* measured length */
	int sample_shift;		/* closed loop: latency of 1 in 2^shift */
	int hogs;			/* background hog processes (hogs.h) */
	int sleep_permille;		/* CSs that nanosleep(sleep_ns) */
	long sleep_ns;
	int fault_permille;		/* CSs that touch a never-used page */
	long preempt_ppm;		/* CSs (per million) whose CPU is taken */
	unsigned int preempt_us;	/* ... for this long */
	long long_ppm;			/* CSs (per million) of long_rounds */
	unsigned long long_rounds;	/* ... instead of in_rounds */
	double arrivals_per_s;		/* > 0: open loop, all threads together */
	int measure_holder;		/* time every CS (two TSC reads inside) */
	double stretch_ns;		/* a CS this late: holder preempted */
	double ns_per_round;		/* calibration, for the planned CS time */
	unsigned int seed;		/* of the threads' random streams */
};

/*
 * Runs the point and fills @res (ops, CPU, switches, fairness, latency,
 * holder and libuspin counters, hog CPU).  Latency is from asking for the
 * lock to getting it (closed loop), or from the request's arrival to its
 * release of the lock (open loop).  Returns 0, or -1 if the lock broke
 * mutual exclusion (res->broken is set too).
 */
int bench_contention_run(const struct bench_contention *c,
			 struct bench_result *res);

#endif /* BENCH_CONTENTION_H */
