/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * runner.h - the method, the same for every workload:
 *
 *	for each point of the workload's grid:
 *	  for each round r of cfg->repeats:
 *	    every lock once, in the registry order rotated by r
 *	    (a lock with an environment, or every lock with -X, in a process
 *	    of its own), each repetition inside the interference guard;
 *	    if the guard marked one and reruns are left, the whole round
 *	    again (its rows stay in repeats.csv with kept = 0).
 *
 * Rounds are what the report pairs: the ratio of a lock to the baseline is
 * taken per round, between repetitions that ran seconds apart.
 */
#ifndef BENCH_RUNNER_H
#define BENCH_RUNNER_H

#include <stdio.h>

#include "config.h"
#include "guard.h"

struct bench_workload;

struct bench_runner {
	const struct bench_config *cfg;
	FILE *repeats;			/* repeats.csv, header written */
	struct bench_guard_limits limits;
	/* Tallies over the run, for the log and meta. */
	int rows, disturbed, reruns, broken;
};

/* Runs every point of @wl; returns 0, or 1 if a lock broke exclusion. */
int bench_runner_workload(struct bench_runner *r,
			  const struct bench_workload *wl);

#endif /* BENCH_RUNNER_H */
