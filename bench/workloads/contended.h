/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * contended.h - what the contention workloads share: a point's axes turned
 * into a run of the contention engine, and grid helpers in units of the
 * CPUs this process may use.
 */
#ifndef BENCH_WORKLOADS_CONTENDED_H
#define BENCH_WORKLOADS_CONTENDED_H

#include "config.h"
#include "contention.h"
#include "result.h"

/* Fills period, duty, cs_insn and out_insn. */
void bench_axes_period(struct bench_axes *ax, long period, long duty);
/*
 * The engine's parameters for @pt: threads, work in and out of the lock,
 * hogs, sleeps, faults, open-loop rate (the point's arrivals_per_s), and
 * the method's settings from @cfg.
 */
void bench_contended_spec(struct bench_contention *c,
			  const struct bench_config *cfg,
			  const struct bench_point *pt,
			  const struct bench_lock *lock);
/*
 * The workloads' run(): the engine with the holder timed or not; @round
 * seeds the threads' random streams (every lock of a round sees the same
 * arrivals and perturbations, every round different ones).
 */
int bench_contended_run(const struct bench_config *cfg,
			const struct bench_point *pt, int round,
			const struct bench_lock *lock, int measure_holder,
			struct bench_result *res);
/* @mult CPUs' worth of threads, at least 2 (a lock needs two sides). */
long bench_cpus_times(const struct bench_config *cfg, long mult);

#endif /* BENCH_WORKLOADS_CONTENDED_H */
