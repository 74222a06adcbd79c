// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * contention.c - see contention.h.  One iteration of a worker:
 *
 *	[open loop: sleep until the next request's arrival]
 *	work(out); lock(); work(in); [sleep | fault]; counter++; unlock();
 *
 * What is measured and why this way:
 * - throughput over the wall time from the start barrier to the last join;
 * - CPU time and context switches as getrusage(RUSAGE_SELF) deltas, which
 *   include exited threads and the (sleeping) main thread, never the hogs
 *   (other processes);
 * - closed loop: lock-acquisition latency on one iteration in 2^shift per
 *   thread, the same for every lock, two TSC reads around lock(); open
 *   loop: every request's time from its scheduled arrival to its unlock,
 *   so a lock that falls behind pays for the queue it builds (no
 *   coordinated omission);
 * - owner descheduling on demand: a holder that draws it (preempt_ppm)
 *   kicks its CPU's preemptor right after it takes the lock, so the rest
 *   of its section waits while the preemptor computes; the kicks served
 *   and the time they took are reported;
 * - the holder (when asked): every critical section timed from acquire to
 *   release; one that ran stretch_ns later than its own work is counted as
 *   a preempted holder (sections that sleep on purpose are not counted);
 * - libuspin's counters, reset after the start barrier and read at the
 *   end by each thread, for the locks built on libuspin;
 * - mutual exclusion, checked for free: the protected counter must equal
 *   the sum of the iterations, or the lock is broken and nothing counts.
 */
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>
#include <urcu/compiler.h>
#include <urcu/system.h>

#include "clock.h"
#include "config.h"
#include "contention.h"
#include "hogs.h"
#include "locks/lock.h"
#include "preemptor.h"
#include "stats.h"
#include "thread_stats.h"
#include "work.h"

#define LAT_SAMPLES_PER_THREAD	(1u << 15)
#define WAKE_SAMPLES_PER_THREAD	(1u << 12)
/* Pages a faulting thread touches before it recycles them (outside). */
#define FAULT_REGION_PAGES	4096

struct run {
	const struct bench_contention *c;
	void *lock;
	pthread_barrier_t start;
	uint64_t start_ticks, end_ticks;	/* open loop: the schedule */
	uint64_t drain_ticks;			/* open loop: serve until */
	double ticks_per_arrival;		/* per thread, mean */
	uint64_t planned_cs_ticks, planned_long_ticks, stretch_ticks;
	int thread_stats;
	struct bench_preemptors preemptors;
};

struct worker {
	struct run *run;
	int index;
	unsigned long iters;
	unsigned long arrivals;
	uint32_t *lat;			/* clock.h ticks, capped at 2^32 */
	unsigned long nlat;
	uint32_t *wake;			/* open loop: timer overshoot, ticks */
	unsigned long nwake;
	unsigned long preempted;
	uint64_t late_ticks;
	unsigned long kicks;		/* preemptors kicked */
	struct uspin_thread_stats st;
	int st_ok;
	char *pages;			/* fault region */
	unsigned long next_page;
	pthread_t thread;
} __attribute__((aligned(128)));

static int stop;
/* The data the lock protects; on its own line, away from the lock. */
static unsigned long protected_counter __attribute__((aligned(128)));

static uint64_t rng_next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* Exponential inter-arrival time with mean @mean (any unit). */
static double rng_exp(uint64_t *s, double mean)
{
	double u = ((rng_next(s) >> 11) + 1) * (1.0 / 9007199254740993.0);

	return -log(u) * mean;
}

static void sleep_ns(long ns)
{
	struct timespec ts = { ns / 1000000000L, ns % 1000000000L };

	while (nanosleep(&ts, &ts) != 0)
		;
}

/*
 * Sleeps until TSC time @t (open loop).  Relative sleeps, again until the
 * TSC says so: where CLOCK_MONOTONIC is coarse (the TCG guest's jiffies
 * clocksource) an absolute deadline converted to it can wake us early.
 */
static void sleep_until(uint64_t t)
{
	uint64_t now;

	while ((now = bench_ticks()) < t)
		sleep_ns((long)((t - now) * bench_ns_per_tick) + 1);
}

static void touch_new_page(struct worker *w)
{
	((volatile char *)w->pages)[w->next_page++ * 4096] = 1;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct run *run = w->run;
	const struct bench_contention *c = run->c;
	const struct bench_lock *l = c->lock;
	const int open = c->arrivals_per_s > 0;
	unsigned long mask = (1ul << c->sample_shift) - 1;
	unsigned long x = (uintptr_t)w, n = 0;
	uint64_t rng = 0x9e3779b97f4a7c15ull * (w->index + 1) +
		       0xbf58476d1ce4e5b9ull * c->seed + 1;
	uint64_t arrival = 0, t0 = 0, t1 = 0, t2, dt;
	int pert_permille = c->sleep_permille + c->fault_permille;
	int slept, long_cs;

	if (c->sleep_permille || open)
		prctl(PR_SET_TIMERSLACK, 1000UL);	/* 1 us, not 50 */
	pthread_barrier_wait(&run->start);
	if (run->thread_stats)
		w->st_ok = bench_thread_stats_reset() == 0;
	arrival = run->start_ticks;
	for (;;) {
		if (!open && CMM_LOAD_SHARED(stop))
			break;
		if (open) {
			/*
			 * Every request that arrives in the measured interval
			 * is served, however late, up to a drain of one more
			 * interval; what is left then is dropped (ops <
			 * offered tells).
			 */
			arrival += (uint64_t)rng_exp(&rng, run->ticks_per_arrival);
			if (arrival >= run->end_ticks)
				break;
			w->arrivals++;
			t0 = bench_ticks();
			if (t0 > run->drain_ticks) {
				/* Count what was offered but never served. */
				while ((arrival += (uint64_t)rng_exp(&rng,
						run->ticks_per_arrival)) <
				       run->end_ticks)
					w->arrivals++;
				break;
			}
			if (t0 < arrival) {
				sleep_until(arrival);
				dt = bench_ticks() - arrival;
				if (w->nwake < WAKE_SAMPLES_PER_THREAD)
					w->wake[w->nwake++] = dt > UINT32_MAX ?
						UINT32_MAX : dt;
			}
		}
		x = bench_work(c->out_rounds, x);
		if (!open && (n & mask) == 0 && w->nlat < LAT_SAMPLES_PER_THREAD) {
			t0 = bench_ticks();
			l->lock(run->lock);
			t1 = bench_ticks();
			dt = t1 - t0;
			w->lat[w->nlat++] = dt > UINT32_MAX ? UINT32_MAX : dt;
		} else {
			l->lock(run->lock);
			if (c->measure_holder)
				t1 = bench_ticks();
		}
		if (c->preempt_ppm &&
		    (long)(rng_next(&rng) % 1000000) < c->preempt_ppm)
			w->kicks += bench_preemptor_kick(&run->preemptors,
							 c->preempt_us);
		/* Multi-modal holds: now and then a long one. */
		long_cs = c->long_ppm &&
			  (long)(rng_next(&rng) % 1000000) < c->long_ppm;
		x = bench_work(long_cs ? c->long_rounds : c->in_rounds, x);
		slept = 0;
		if (pert_permille && (int)(rng_next(&rng) % 1000) < pert_permille) {
			if ((int)(rng_next(&rng) % pert_permille) < c->sleep_permille) {
				sleep_ns(c->sleep_ns);
				slept = 1;
			} else if (w->next_page < FAULT_REGION_PAGES) {
				touch_new_page(w);
			}
		}
		protected_counter++;
		if (c->measure_holder && !slept) {
			t2 = bench_ticks();
			uint64_t planned = long_cs ? run->planned_long_ticks :
						     run->planned_cs_ticks;

			dt = t2 - t1;
			if (dt > planned + run->stretch_ticks) {
				w->preempted++;
				w->late_ticks += dt - planned;
			}
		}
		l->unlock(run->lock);
		if (open) {
			dt = bench_ticks() - arrival;
			if (w->nlat < LAT_SAMPLES_PER_THREAD)
				w->lat[w->nlat++] = dt > UINT32_MAX ? UINT32_MAX : dt;
		}
		if (w->pages && w->next_page == FAULT_REGION_PAGES) {
			madvise(w->pages, FAULT_REGION_PAGES * 4096UL,
				MADV_DONTNEED);
			w->next_page = 0;
		}
		n++;
	}
	w->iters = n;
	if (w->st_ok)
		w->st_ok = bench_thread_stats_read(&w->st) == 0;
	/* Keep the work live without a store per iteration. */
	if (x == 42)
		fputc('\0', stderr);
	return NULL;
}

static double tv_s(struct timeval tv)
{
	return tv.tv_sec + tv.tv_usec * 1e-6;
}

static void *xalloc(size_t n)
{
	void *p = calloc(1, n ? n : 1);

	if (!p) {
		perror("uspin-bench");
		exit(1);
	}
	return p;
}

/* Merges per-thread samples (ticks), then three order statistics in ns. */
static void percentiles(struct worker *w, int n, int wake, double q[3],
			unsigned long *total_out)
{
	static const double qs[3] = { 0.50, 0.99, 0.999 };
	unsigned long total = 0, k = 0;
	uint32_t *all;
	int i;

	for (i = 0; i < n; i++)
		total += wake ? w[i].nwake : w[i].nlat;
	all = xalloc(total * sizeof(*all));
	for (i = 0; i < n; i++) {
		unsigned long m = wake ? w[i].nwake : w[i].nlat;

		memcpy(all + k, wake ? w[i].wake : w[i].lat, m * sizeof(*all));
		k += m;
	}
	for (i = 0; i < 3; i++)
		q[i] = total ? bench_percentile_u32(all, total, qs[i]) *
			       bench_ns_per_tick : NAN;
	free(all);
	*total_out = total;
}

static void setup_fault_region(struct worker *w)
{
	w->pages = mmap(NULL, FAULT_REGION_PAGES * 4096UL,
			PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (w->pages == MAP_FAILED) {
		perror("uspin-bench: fault region");
		exit(1);
	}
	/* One 4 KiB fault per touch, never a 2 MiB one. */
	madvise(w->pages, FAULT_REGION_PAGES * 4096UL, MADV_NOHUGEPAGE);
}

int bench_contention_run(const struct bench_contention *c,
			 struct bench_result *res)
{
	int n = c->threads, i, err;
	struct worker *w = aligned_alloc(128, n * sizeof(*w));
	unsigned long per[BENCH_MAX_THREADS], lo = ~0ul, hi = 0, samples;
	unsigned long arrivals = 0, preempted = 0, kicks = 0;
	uint64_t late = 0;
	struct bench_preemptor_totals pre;
	struct uspin_thread_stats st;
	struct rusage r0, r1;
	struct bench_hogs hogs;
	struct run run;
	double t0, hogs_t0, cpu, q[3], ops;
	int st_all = 1;

	if (!w) {
		perror("uspin-bench");
		exit(1);
	}
	memset(&run, 0, sizeof(run));
	run.c = c;
	run.lock = aligned_alloc(BENCH_LOCK_ALIGN, BENCH_LOCK_SIZE);
	if (!run.lock) {
		perror("uspin-bench");
		exit(1);
	}
	memset(run.lock, 0, BENCH_LOCK_SIZE);
	err = c->lock->init(run.lock);
	if (err) {
		fprintf(stderr, "uspin-bench: %s: init: %s\n", c->lock->name,
			strerror(err));
		exit(1);
	}
	run.thread_stats = c->lock->thread_stats;
	run.planned_cs_ticks = (uint64_t)(c->in_rounds * c->ns_per_round /
					  bench_ns_per_tick);
	run.planned_long_ticks = (uint64_t)(c->long_rounds * c->ns_per_round /
					    bench_ns_per_tick);
	run.stretch_ticks = (uint64_t)(c->stretch_ns / bench_ns_per_tick);
	if (c->arrivals_per_s > 0)
		run.ticks_per_arrival = 1e9 * n / c->arrivals_per_s /
					bench_ns_per_tick;

	/* Hogs and preemptors first: fork before there are worker threads. */
	hogs_t0 = bench_now();
	bench_hogs_start(&hogs, c->hogs);
	if (c->preempt_ppm)
		bench_preemptors_start(&run.preemptors);

	memset(w, 0, n * sizeof(*w));
	CMM_STORE_SHARED(stop, 0);
	protected_counter = 0;
	pthread_barrier_init(&run.start, NULL, n + 1);
	for (i = 0; i < n; i++) {
		w[i].run = &run;
		w[i].index = i;
		w[i].lat = xalloc(LAT_SAMPLES_PER_THREAD * sizeof(uint32_t));
		if (c->arrivals_per_s > 0)
			w[i].wake = xalloc(WAKE_SAMPLES_PER_THREAD *
					   sizeof(uint32_t));
		if (c->fault_permille)
			setup_fault_region(&w[i]);
		if (pthread_create(&w[i].thread, NULL, worker_main, &w[i])) {
			perror("uspin-bench: thread");
			exit(1);
		}
	}
	getrusage(RUSAGE_SELF, &r0);
	run.start_ticks = bench_ticks();
	run.end_ticks = run.start_ticks +
			(uint64_t)(c->seconds * 1e9 / bench_ns_per_tick);
	run.drain_ticks = run.end_ticks + (run.end_ticks - run.start_ticks);
	t0 = bench_now();
	pthread_barrier_wait(&run.start);
	sleep_ns((long)(c->seconds * 1e9));
	CMM_STORE_SHARED(stop, 1);
	for (i = 0; i < n; i++)
		pthread_join(w[i].thread, NULL);
	res->wall_s = bench_now() - t0;
	getrusage(RUSAGE_SELF, &r1);
	pthread_barrier_destroy(&run.start);
	bench_hogs_stop(&hogs);
	if (c->hogs)
		res->hog_cpus = hogs.cpu_s / (bench_now() - hogs_t0);
	if (c->preempt_ppm)
		bench_preemptors_stop(&run.preemptors, &pre);

	memset(&st, 0, sizeof(st));
	ops = 0;
	for (i = 0; i < n; i++) {
		per[i] = w[i].iters;
		ops += per[i];
		lo = per[i] < lo ? per[i] : lo;
		hi = per[i] > hi ? per[i] : hi;
		arrivals += w[i].arrivals;
		preempted += w[i].preempted;
		late += w[i].late_ticks;
		kicks += w[i].kicks;
		st_all &= w[i].st_ok;
		bench_thread_stats_add(&st, &w[i].st);
	}
	res->broken = protected_counter != (unsigned long)ops;
	if (res->broken)
		fprintf(stderr, "uspin-bench: %s broke mutual exclusion: %lu updates for %.0f iterations\n",
			c->lock->name, protected_counter, ops);
	res->ops = ops;
	if (ops == 0)
		ops = 1;	/* avoid dividing by zero; reported as ~0 */
	res->ops_per_s = res->ops / res->wall_s;
	res->user_us_per_op = (tv_s(r1.ru_utime) - tv_s(r0.ru_utime)) * 1e6 / ops;
	res->sys_us_per_op = (tv_s(r1.ru_stime) - tv_s(r0.ru_stime)) * 1e6 / ops;
	res->cpu_us_per_op = res->user_us_per_op + res->sys_us_per_op;
	cpu = res->cpu_us_per_op * ops * 1e-6;
	res->cpus_busy = cpu / res->wall_s;
	res->vcsw_per_kop = (r1.ru_nvcsw - r0.ru_nvcsw) * 1000.0 / ops;
	res->ivcsw_per_kop = (r1.ru_nivcsw - r0.ru_nivcsw) * 1000.0 / ops;
	res->jain = bench_jain(per, n);
	res->min_max = hi ? (double)lo / hi : 0;
	percentiles(w, n, 0, q, &samples);
	res->lat_p50_ns = q[0];
	res->lat_p99_ns = q[1];
	res->lat_p999_ns = q[2];
	res->lat_samples = samples;
	if (c->measure_holder) {
		res->holder_preempted_per_kop = preempted * 1e3 / ops;
		res->holder_late_us_per_op = late * bench_ns_per_tick / 1e3 / ops;
	}
	if (c->preempt_ppm) {
		/* served <= kicks: a run cut by the final kill is not counted. */
		res->preempt_kicks_per_kop = kicks * 1e3 / ops;
		res->preempt_served_per_kop = pre.runs * 1e3 / ops;
		res->preempt_us_per_op = pre.busy_s * 1e6 / ops;
		res->preempt_rt = pre.rt;
	}
	if (run.thread_stats && st_all)
		bench_thread_stats_fill(res, &st, ops);
	if (c->arrivals_per_s > 0) {
		res->offered_per_s = arrivals / c->seconds;
		percentiles(w, n, 1, q, &samples);
		res->wake_late_p99_us = q[1] / 1e3;
	}

	for (i = 0; i < n; i++) {
		free(w[i].lat);
		free(w[i].wake);
		if (w[i].pages)
			munmap(w[i].pages, FAULT_REGION_PAGES * 4096UL);
	}
	free(w);
	c->lock->destroy(run.lock);
	free(run.lock);
	return res->broken ? -1 : 0;
}
