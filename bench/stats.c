// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * stats.c - medians over repeats, percentiles over latency samples,
 * fairness over threads.  Nothing clever: the sets are small.
 */
#include <stdlib.h>

#include "stats.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

struct bench_spread bench_spread_of(double *v, size_t n)
{
	struct bench_spread s = { 0, 0, 0 };

	if (!n)
		return s;
	qsort(v, n, sizeof(*v), cmp_double);
	s.min = v[0];
	s.max = v[n - 1];
	s.median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	return s;
}

double bench_percentile_u32(uint32_t *v, size_t n, double q)
{
	size_t i;

	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), cmp_u32);
	/* Nearest rank: the smallest sample with >= q of the set below it. */
	i = (size_t)(q * n + 0.999999);
	if (i > 0)
		i--;
	if (i >= n)
		i = n - 1;
	return v[i];
}

double bench_jain(const unsigned long *x, size_t n)
{
	double sum = 0, sq = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		sum += x[i];
		sq += (double)x[i] * x[i];
	}
	return sq > 0 ? sum * sum / (n * sq) : 1;
}
