/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * stats.h - order statistics, fairness, and the percentile bootstrap the
 * C tools print intervals with (bench/benchlib/stats.py is the same
 * method for the reports: same resample count, a fixed seed).
 */
#ifndef BENCH_STATS_H
#define BENCH_STATS_H

#include <stddef.h>
#include <stdint.h>

#define BENCH_BOOTSTRAP_RESAMPLES	2000
#define BENCH_BOOTSTRAP_SEED		20101	/* recorded with every interval */
/* The medians and intervals below use the first BENCH_STATS_MAX values. */
#define BENCH_STATS_MAX			256

struct bench_spread {
	double median, min, max;
};

struct bench_interval {
	double median;		/* of the values */
	double lo, hi;		/* 95 % percentile bootstrap interval */
};

/* Sorts @v in place. */
struct bench_spread bench_spread_of(double *v, size_t n);
/* Median of @n values, @v left as it was. */
double bench_median(const double *v, size_t n);
/* @q in [0, 1]; sorts @v in place; 0 when @n == 0. */
double bench_percentile_u32(uint32_t *v, size_t n, double q);
/* Jain's index (sum x)^2 / (n sum x^2): 1 fair, 1/n one thread has all. */
double bench_jain(const unsigned long *x, size_t n);

/*
 * Median of @v[0..n) with its 95 % percentile-bootstrap interval
 * (@resamples resamples of the n values, with replacement, from
 * BENCH_BOOTSTRAP_SEED; at least 100).
 */
struct bench_interval bench_bootstrap_median_r(const double *v, size_t n,
					       unsigned int resamples);

#endif /* BENCH_STATS_H */
