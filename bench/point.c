// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * point.c - one contention point: N threads, each iteration `out` rounds of
 * work, then lock, `in` rounds, a write to the protected counter, unlock.
 *
 * What is measured and why this way:
 * - throughput over the wall time from the start barrier to the last join;
 * - CPU time and context switches as getrusage(RUSAGE_SELF) deltas, which
 *   include exited threads and the (sleeping) main thread;
 * - lock-acquisition latency on one iteration in 2^shift per thread, the
 *   same for every lock, two clock reads around lock(): the cost is spread
 *   thinly and equally, so it shifts no lock against another;
 * - mutual exclusion, checked for free: the protected counter must equal
 *   the sum of the iterations, or the lock is broken and nothing counts.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>
#include <urcu/compiler.h>
#include <urcu/system.h>

#include "clock.h"
#include "point.h"
#include "stats.h"

#define LAT_SAMPLES_PER_THREAD	(1u << 15)

struct worker {
	const struct bench_point_spec *spec;
	void *lock;
	pthread_barrier_t *start;
	unsigned long iters;
	uint32_t *lat;			/* clock.h ticks, capped at 2^32 */
	unsigned long nlat;
	pthread_t thread;
} __attribute__((aligned(128)));

static int stop;
/* The data the lock protects; on its own line, away from the lock. */
static unsigned long protected_counter __attribute__((aligned(128)));

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	const struct bench_point_spec *s = w->spec;
	const struct bench_lock *l = s->lock;
	unsigned long mask = (1ul << s->sample_shift) - 1;
	unsigned long x = (uintptr_t)w, n = 0, nlat = 0;
	uint64_t t0, dt;

	pthread_barrier_wait(w->start);
	while (!CMM_LOAD_SHARED(stop)) {
		x = bench_work(s->out_rounds, x);
		if ((n & mask) == 0 && nlat < LAT_SAMPLES_PER_THREAD) {
			t0 = bench_ticks();
			l->lock(w->lock);
			dt = bench_ticks() - t0;
			w->lat[nlat++] = dt > UINT32_MAX ? UINT32_MAX : dt;
		} else {
			l->lock(w->lock);
		}
		x = bench_work(s->in_rounds, x);
		protected_counter++;
		l->unlock(w->lock);
		n++;
	}
	w->iters = n;
	w->nlat = nlat;
	/* Keep the work live without a store per iteration. */
	if (x == 42)
		fputc('\0', stderr);
	return NULL;
}

static double tv_s(struct timeval tv)
{
	return tv.tv_sec + tv.tv_usec * 1e-6;
}

static void sleep_s(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - (time_t)s) * 1e9) };

	while (nanosleep(&ts, &ts) != 0)
		;
}

/* Merges the samples, then the order statistics; frees nothing. */
static void latency_stats(struct worker *w, int n,
			  struct bench_point_result *res)
{
	unsigned long total = 0, k = 0;
	uint32_t *all;
	int i;

	for (i = 0; i < n; i++)
		total += w[i].nlat;
	res->lat_samples = total;
	all = malloc((total ? total : 1) * sizeof(*all));
	if (!all) {
		perror("uspin-bench");
		exit(1);
	}
	for (i = 0; i < n; i++) {
		memcpy(all + k, w[i].lat, w[i].nlat * sizeof(*all));
		k += w[i].nlat;
	}
	res->lat_p50_ns = bench_percentile_u32(all, total, 0.50) *
			  bench_ns_per_tick;
	res->lat_p99_ns = bench_percentile_u32(all, total, 0.99) *
			  bench_ns_per_tick;
	res->lat_p999_ns = bench_percentile_u32(all, total, 0.999) *
			   bench_ns_per_tick;
	free(all);
}

int bench_run_point(const struct bench_point_spec *spec,
		    struct bench_point_result *res)
{
	int n = spec->threads, i, err;
	struct worker *w = aligned_alloc(128, n * sizeof(*w));
	void *lock = aligned_alloc(BENCH_LOCK_ALIGN, BENCH_LOCK_SIZE);
	unsigned long per[BENCH_MAX_THREADS], lo = ~0ul, hi = 0;
	pthread_barrier_t start;
	struct rusage r0, r1;
	double t0, cpu;

	if (!w || !lock) {
		perror("uspin-bench");
		exit(1);
	}
	memset(lock, 0, BENCH_LOCK_SIZE);
	err = spec->lock->init(lock);
	if (err) {
		fprintf(stderr, "uspin-bench: %s: init: %s\n", spec->lock->name,
			strerror(err));
		exit(1);
	}
	memset(w, 0, n * sizeof(*w));
	CMM_STORE_SHARED(stop, 0);
	protected_counter = 0;
	pthread_barrier_init(&start, NULL, n + 1);
	for (i = 0; i < n; i++) {
		w[i].spec = spec;
		w[i].lock = lock;
		w[i].start = &start;
		w[i].lat = malloc(LAT_SAMPLES_PER_THREAD * sizeof(uint32_t));
		if (!w[i].lat ||
		    pthread_create(&w[i].thread, NULL, worker_main, &w[i])) {
			perror("uspin-bench: thread");
			exit(1);
		}
	}
	pthread_barrier_wait(&start);
	getrusage(RUSAGE_SELF, &r0);
	t0 = bench_now();
	sleep_s(spec->seconds);
	CMM_STORE_SHARED(stop, 1);
	for (i = 0; i < n; i++)
		pthread_join(w[i].thread, NULL);
	res->wall_s = bench_now() - t0;
	getrusage(RUSAGE_SELF, &r1);
	pthread_barrier_destroy(&start);

	res->iters = 0;
	for (i = 0; i < n; i++) {
		per[i] = w[i].iters;
		res->iters += per[i];
		lo = per[i] < lo ? per[i] : lo;
		hi = per[i] > hi ? per[i] : hi;
	}
	if (protected_counter != res->iters) {
		fprintf(stderr, "uspin-bench: %s broke mutual exclusion: %lu updates for %lu iterations\n",
			spec->lock->name, protected_counter, res->iters);
		err = -1;
	}
	if (res->iters == 0)
		res->iters = 1;	/* avoid dividing by zero; reported as ~0 */
	res->iters_per_s = res->iters / res->wall_s;
	res->user_us_per_iter = (tv_s(r1.ru_utime) - tv_s(r0.ru_utime)) *
				1e6 / res->iters;
	res->sys_us_per_iter = (tv_s(r1.ru_stime) - tv_s(r0.ru_stime)) *
			       1e6 / res->iters;
	cpu = (res->user_us_per_iter + res->sys_us_per_iter) * res->iters * 1e-6;
	res->cpus_busy = cpu / res->wall_s;
	res->vcsw_per_k = (r1.ru_nvcsw - r0.ru_nvcsw) * 1000.0 / res->iters;
	res->ivcsw_per_k = (r1.ru_nivcsw - r0.ru_nivcsw) * 1000.0 / res->iters;
	res->jain = bench_jain(per, n);
	res->min_max = hi ? (double)lo / hi : 0;
	latency_stats(w, n, res);

	for (i = 0; i < n; i++)
		free(w[i].lat);
	free(w);
	spec->lock->destroy(lock);
	free(lock);
	return err;
}
