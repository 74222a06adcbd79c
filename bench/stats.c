// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * stats.c - medians over repeats, percentiles over latency samples,
 * fairness over threads, bootstrap intervals over repetitions.  Nothing
 * clever: the sets are small.
 */
#include <stdlib.h>
#include <string.h>

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

double bench_median(const double *v, size_t n)
{
	double tmp[BENCH_STATS_MAX];

	if (!n)
		return 0;
	if (n > BENCH_STATS_MAX)
		n = BENCH_STATS_MAX;
	memcpy(tmp, v, n * sizeof(*v));
	return bench_spread_of(tmp, n).median;
}

/* xorshift64*: a fixed, portable stream for the resampling. */
static uint64_t boot_next(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dULL;
}

/*
 * The percentile bootstrap of the median: the median of @resamples
 * resamples of @v, then its 2.5 and 97.5 percentiles.  Without memory
 * for the resamples the interval is the point itself.
 */
struct bench_interval bench_bootstrap_median_r(const double *v, size_t n,
					       unsigned int resamples)
{
	struct bench_interval ci;
	uint64_t seed = BENCH_BOOTSTRAP_SEED;
	double tmp[BENCH_STATS_MAX], *boot;
	size_t i, b;

	if (n > BENCH_STATS_MAX)
		n = BENCH_STATS_MAX;
	ci.median = bench_median(v, n);
	ci.lo = ci.hi = ci.median;
	if (n < 2 || resamples < 2)
		return ci;
	boot = malloc(resamples * sizeof(*boot));
	if (!boot)
		return ci;
	for (b = 0; b < resamples; b++) {
		for (i = 0; i < n; i++)
			tmp[i] = v[boot_next(&seed) % n];
		boot[b] = bench_spread_of(tmp, n).median;
	}
	qsort(boot, resamples, sizeof(*boot), cmp_double);
	ci.lo = boot[(size_t)(0.025 * (resamples - 1) + 0.5)];
	ci.hi = boot[(size_t)(0.975 * (resamples - 1) + 0.5)];
	free(boot);
	return ci;
}
