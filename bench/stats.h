/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* stats.h - order statistics and fairness, for repeats and samples. */
#ifndef BENCH_STATS_H
#define BENCH_STATS_H

#include <stddef.h>
#include <stdint.h>

struct bench_spread {
	double median, min, max;
};

/* Sorts @v in place. */
struct bench_spread bench_spread_of(double *v, size_t n);
/* @q in [0, 1]; sorts @v in place; 0 when @n == 0. */
double bench_percentile_u32(uint32_t *v, size_t n, double q);
/* Jain's index (sum x)^2 / (n sum x^2): 1 fair, 1/n one thread has all. */
double bench_jain(const unsigned long *x, size_t n);

#endif /* BENCH_STATS_H */
