// SPDX-License-Identifier: MIT
/*
 * futex-lock-fairness — a measurement, not a test: how fair the lock is
 * with and without FUTEX_UNLOCK's handoff to a starving waiter.
 *
 *   futex-lock-fairness [-t THREADS] [-s SECONDS] [-c CS_LOOPS] [-o OUT_LOOPS]
 *
 * THREADS threads (default 4) take one lock for SECONDS (default 2) each
 * way: {FUTEX_LOCK, FUTEX_LOCK_ADAPTIVE} x {unlock in user space (xchg +
 * FUTEX_WAKE: no handoff possible), FUTEX_UNLOCK (handoff)}.  Each
 * iteration: lock (user fast path, else the kernel op), CS_LOOPS of work,
 * unlock, OUT_LOOPS of work.  Per configuration it prints the acquisitions
 * per second, Jain's fairness index of the per-thread counts (1 = equal
 * shares), the smallest share relative to an equal one, the longest time
 * one slow-path call waited (ms) and the most acquisitions by other threads
 * during one slow-path call (bypasses).
 */
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "futex_lock_test.h"

#define MAX_THREADS 64

struct worker {
	pthread_t thread;
	unsigned long acquired;
	unsigned long slow;
	unsigned long max_bypass;
	double max_wait_ms;
	int err;
};

static uint32_t word;
static unsigned long total_acq;	/* written under the lock */
static int lock_op, kernel_unlock, stop, cs_loops = 200, out_loops = 200;

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void work(int n)
{
	for (volatile int i = 0; i < n; i++)
		;
}

static void *worker_fn(void *arg)
{
	struct worker *w = arg;
	uint32_t tid = gettid();

	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		uint32_t zero = 0;

		if (!__atomic_compare_exchange_n(&word, &zero, tid, 0,
						 __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
			unsigned long before = __atomic_load_n(&total_acq, __ATOMIC_RELAXED);
			double t0 = now_ms(), dt;
			int rc = futex_lock_op(&word, lock_op | FUTEX_PRIVATE_FLAG, NULL);

			if (rc) {
				w->err = rc;
				break;
			}
			dt = now_ms() - t0;
			w->slow++;
			if (dt > w->max_wait_ms)
				w->max_wait_ms = dt;
			if (total_acq - before > w->max_bypass)
				w->max_bypass = total_acq - before;
		}
		total_acq++;
		w->acquired++;
		work(cs_loops);
		if (kernel_unlock) {
			int rc = uunlock_k(&word, FUTEX_PRIVATE_FLAG);

			if (rc) {
				w->err = rc;
				break;
			}
		} else {
			uunlock(&word, FUTEX_PRIVATE_FLAG);
		}
		work(out_loops);
	}
	return NULL;
}

static int run(int nthreads, double seconds, int op, int kunlock, const char *name)
{
	struct worker w[MAX_THREADS];
	double sum = 0, sumsq = 0, minshare = 1e9, maxwait = 0, t0, el;
	unsigned long maxbypass = 0, slow = 0;

	memset(w, 0, sizeof(w));
	word = 0;
	total_acq = 0;
	lock_op = op;
	kernel_unlock = kunlock;
	stop = 0;
	t0 = now_ms();
	for (int i = 0; i < nthreads; i++)
		if (pthread_create(&w[i].thread, NULL, worker_fn, &w[i]))
			return -1;
	sleep_ms((long)(seconds * 1000));
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	for (int i = 0; i < nthreads; i++) {
		if (join_within(w[i].thread, 60, NULL)) {
			fprintf(stderr, "%s: a thread hung\n", name);
			return -1;
		}
	}
	el = (now_ms() - t0) / 1e3;
	for (int i = 0; i < nthreads; i++) {
		if (w[i].err) {
			fprintf(stderr, "%s: %s\n", name, strerror(w[i].err));
			return -1;
		}
		sum += w[i].acquired;
		sumsq += (double)w[i].acquired * w[i].acquired;
		slow += w[i].slow;
		if (w[i].max_wait_ms > maxwait)
			maxwait = w[i].max_wait_ms;
		if (w[i].max_bypass > maxbypass)
			maxbypass = w[i].max_bypass;
	}
	for (int i = 0; i < nthreads; i++) {
		double share = w[i].acquired * nthreads / sum;

		if (share < minshare)
			minshare = share;
	}
	printf("%-32s %10.0f %8.3f %9.3f %10.1f %10lu %9.1f%%\n", name, sum / el,
	       sum * sum / (nthreads * sumsq), minshare, maxwait, maxbypass,
	       100.0 * slow / sum);
	return 0;
}

int main(int argc, char **argv)
{
	int nthreads = 4, c, rc = 0;
	double seconds = 2;

	while ((c = getopt(argc, argv, "t:s:c:o:")) != -1) {
		switch (c) {
		case 't': nthreads = atoi(optarg); break;
		case 's': seconds = atof(optarg); break;
		case 'c': cs_loops = atoi(optarg); break;
		case 'o': out_loops = atoi(optarg); break;
		default:
			fprintf(stderr, "usage: %s [-t THREADS] [-s SECONDS] [-c CS_LOOPS] [-o OUT_LOOPS]\n",
				argv[0]);
			return 2;
		}
	}
	if (nthreads < 2 || nthreads > MAX_THREADS || seconds <= 0) {
		fprintf(stderr, "%s: 2 <= THREADS <= %d, SECONDS > 0\n", argv[0], MAX_THREADS);
		return 2;
	}
	printf("%d threads, %.1f s each, critical section %d loops, outside %d loops\n",
	       nthreads, seconds, cs_loops, out_loops);
	printf("%-32s %10s %8s %9s %10s %10s %10s\n", "configuration", "acq/s", "jain",
	       "min share", "max wait", "max bypass", "slow path");
	rc |= run(nthreads, seconds, FUTEX_LOCK, 0, "FUTEX_LOCK, user unlock");
	rc |= run(nthreads, seconds, FUTEX_LOCK, 1, "FUTEX_LOCK, FUTEX_UNLOCK");
	rc |= run(nthreads, seconds, FUTEX_LOCK_ADAPTIVE, 0, "FUTEX_LOCK_ADAPTIVE, user unlock");
	rc |= run(nthreads, seconds, FUTEX_LOCK_ADAPTIVE, 1, "FUTEX_LOCK_ADAPTIVE, FUTEX_UNLOCK");
	return rc ? 1 : 0;
}
