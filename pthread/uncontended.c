// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * uncontended.c - dropin-uncontended: ns per uncontended lock + unlock
 * pair through the drop-in against glibc's, in one process: run under
 * uspin-run, it calls pthread_mutex_lock/unlock as the program sees them
 * (the drop-in) and as libc.so.6 defines them (glibc), both through
 * function pointers (as a PLT call is), on separate mutexes, alternating
 * repetitions so that noise hits both alike.  Single-threaded, and with
 * one idle thread alive (glibc and uspin both drop their atomics while
 * the process is single-threaded).  Run without uspin-run it measures
 * glibc twice (a control: the ratio must come out 1).
 * Usage: dropin-uncontended [PAIRS [REPS]]
 * Prints: KIND MODE GLIBC_NS DROPIN_NS RATIO (medians over REPS)
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

typedef int (*mfn)(pthread_mutex_t *);

struct impl {
	mfn lock, unlock;
};

static uint64_t now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double measure(const struct impl *volatile im, pthread_mutex_t *m,
		      long n)
{
	mfn lock = im->lock, unlock = im->unlock;
	uint64_t t0 = now();
	long i;

	for (i = 0; i < n; i++) {
		lock(m);
		unlock(m);
	}
	return (double)(now() - t0) / (double)n;
}

static pthread_mutex_t idle_m = PTHREAD_MUTEX_INITIALIZER;

static void *idle(void *arg)
{
	pthread_mutex_lock(&idle_m);	/* held by main: asleep to the end */
	pthread_mutex_unlock(&idle_m);
	return arg;
}

#define MAXREPS 101

static void run(const char *kind, const pthread_mutex_t *init,
		const struct impl *g, const struct impl *d, const char *mode,
		long n, int reps)
{
	pthread_mutex_t mg = *init, md = *init;
	double rg[MAXREPS], rd[MAXREPS];
	int i;

	measure(g, &mg, n / 10);	/* warm up both */
	measure(d, &md, n / 10);
	for (i = 0; i < reps; i++) {
		if (i & 1) {
			rd[i] = measure(d, &md, n);
			rg[i] = measure(g, &mg, n);
		} else {
			rg[i] = measure(g, &mg, n);
			rd[i] = measure(d, &md, n);
		}
	}
	qsort(rg, (size_t)reps, sizeof(rg[0]), cmp);
	qsort(rd, (size_t)reps, sizeof(rd[0]), cmp);
	printf("%-10s %-8s %7.2f %7.2f %6.2f\n", kind, mode, rg[reps / 2],
	       rd[reps / 2], rd[reps / 2] / rg[reps / 2]);
}

int main(int argc, char **argv)
{
	static const pthread_mutex_t normal = PTHREAD_MUTEX_INITIALIZER;
	static const pthread_mutex_t adaptive = PTHREAD_ADAPTIVE_MUTEX_INITIALIZER_NP;
	static const pthread_mutex_t recursive = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
	static const pthread_mutex_t errorcheck = PTHREAD_ERRORCHECK_MUTEX_INITIALIZER_NP;
	long n = argc > 1 ? atol(argv[1]) : 2000000;
	int reps = argc > 2 ? atoi(argv[2]) : 21, pass;
	void *libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
	struct impl g, d;
	pthread_t t;

	if (n <= 0 || reps <= 0 || reps > MAXREPS || !libc) {
		fprintf(stderr, "usage: dropin-uncontended [PAIRS [REPS<=%d]]\n",
			MAXREPS);
		return 2;
	}
	*(void **)&g.lock = dlsym(libc, "pthread_mutex_lock");
	*(void **)&g.unlock = dlsym(libc, "pthread_mutex_unlock");
	*(void **)&d.lock = dlsym(RTLD_DEFAULT, "pthread_mutex_lock");
	*(void **)&d.unlock = dlsym(RTLD_DEFAULT, "pthread_mutex_unlock");
	printf("# %s; ns per lock+unlock pair, median of %d x %ld pairs\n",
	       d.lock == g.lock ? "no drop-in: glibc against itself" :
	       "glibc against the drop-in", reps, n);
	printf("%-10s %-8s %7s %7s %6s\n", "kind", "mode", "glibc", "dropin",
	       "ratio");
	for (pass = 0; pass < 2; pass++) {
		const char *mode = pass ? "threaded" : "single";

		if (pass) {
			pthread_mutex_lock(&idle_m);
			if (pthread_create(&t, NULL, idle, NULL) != 0)
				return 1;
		}
		run("normal", &normal, &g, &d, mode, n, reps);
		run("adaptive", &adaptive, &g, &d, mode, n, reps);
		run("recursive", &recursive, &g, &d, mode, n, reps);
		run("errorcheck", &errorcheck, &g, &d, mode, n, reps);
	}
	pthread_mutex_unlock(&idle_m);
	pthread_join(t, NULL);
	return 0;
}
