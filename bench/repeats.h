/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * repeats.h - repeats.csv, one row per repetition of every workload, point
 * and lock, written as the run goes (a run cut short keeps its data).
 * The columns are listed in docs/benchmarks.md; bench/benchlib reads them.
 */
#ifndef BENCH_REPEATS_H
#define BENCH_REPEATS_H

#include <stdio.h>

#include "result.h"

/* Where a row came from, besides the point and the result. */
struct bench_row_id {
	const char *workload;
	const char *lock;
	int rep;		/* round, 0 .. repeats-1 */
	int attempt;		/* 0, then 1.. for reruns of a disturbed round */
	int order;		/* position of the lock within the round */
	int kept;		/* 0: superseded by a rerun of its round */
	int child;		/* 1: ran in a process of its own */
};

void bench_repeats_header(FILE *f);
void bench_repeats_row(FILE *f, const struct bench_row_id *id,
		       const struct bench_point *pt,
		       const struct bench_result *r);

#endif /* BENCH_REPEATS_H */
