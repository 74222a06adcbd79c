// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * uncontended.c - cost of an uncontended lock+unlock pair: libuspin against
 * glibc's pthread mutexes and a bare cmpxchg pair (the floor), in one run,
 * interleaved, median of the repetitions.
 *
 * usage: uncontended [-n PAIRS] [-r REPEATS]
 */
#include <getopt.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <urcu/uatomic.h>

#include "uspin.h"

static uint32_t bare_word;
static uspin_mutex_t uspin_lock = USPIN_MUTEX_INITIALIZER;
static pthread_mutex_t pthread_normal = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t pthread_adaptive = PTHREAD_ADAPTIVE_MUTEX_INITIALIZER_NP;

static void pair_bare(void)
{
	uatomic_cmpxchg(&bare_word, 0, 1);
	uatomic_cmpxchg(&bare_word, 1, 0);
}

static void pair_uspin(void)
{
	uspin_mutex_lock(&uspin_lock);
	uspin_mutex_unlock(&uspin_lock);
}

static void pair_pthread(void)
{
	pthread_mutex_lock(&pthread_normal);
	pthread_mutex_unlock(&pthread_normal);
}

static void pair_pthread_adaptive(void)
{
	pthread_mutex_lock(&pthread_adaptive);
	pthread_mutex_unlock(&pthread_adaptive);
}

static const struct {
	const char *name;
	void (*pair)(void);
} subjects[] = {
	{ "cmpxchg-pair", pair_bare },
	{ "uspin", pair_uspin },
	{ "pthread", pair_pthread },
	{ "pthread-adaptive", pair_pthread_adaptive },
};
#define NR_SUBJECTS (sizeof(subjects) / sizeof(subjects[0]))

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	long pairs = 20000000, i;
	int repeats = 7, r, opt;
	size_t s;
	double ns[NR_SUBJECTS][64];

	while ((opt = getopt(argc, argv, "n:r:h")) != -1) {
		switch (opt) {
		case 'n':
			pairs = atol(optarg);
			break;
		case 'r':
			repeats = atoi(optarg);
			break;
		default:
			fprintf(stderr, "usage: %s [-n PAIRS] [-r REPEATS (1-64)]\n",
				argv[0]);
			return opt == 'h' ? 0 : 2;
		}
	}
	if (pairs <= 0 || repeats < 1 || repeats > 64) {
		fprintf(stderr, "uncontended: PAIRS must be > 0, REPEATS 1-64\n");
		return 2;
	}
	/* Warm up: TID cache, probes, page faults. */
	for (s = 0; s < NR_SUBJECTS; s++)
		for (i = 0; i < 100000; i++)
			subjects[s].pair();
	for (r = 0; r < repeats; r++)
		for (s = 0; s < NR_SUBJECTS; s++) {
			double t0 = now();

			for (i = 0; i < pairs; i++)
				subjects[s].pair();
			ns[s][r] = (now() - t0) * 1e9 / pairs;
		}
	printf("%-18s %10s %10s %10s %8s\n", "lock", "median_ns", "min_ns",
	       "max_ns", "vs_pthr");
	for (s = 0; s < NR_SUBJECTS; s++)
		qsort(ns[s], repeats, sizeof(double), cmp_double);
	for (s = 0; s < NR_SUBJECTS; s++)
		printf("%-18s %10.2f %10.2f %10.2f %8.2f\n", subjects[s].name,
		       ns[s][repeats / 2], ns[s][0], ns[s][repeats - 1],
		       ns[s][repeats / 2] / ns[2][repeats / 2]);
	return 0;
}
