// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * cond_csw.c - make bench-cond-csw: context switches per broadcast.
 * WAITERS threads wait on one condvar for a generation count to move;
 * ROUNDS times, once all of them are asleep in pthread_cond_wait, the main
 * thread bumps the count and broadcasts, holding the mutex or after
 * unlocking it, and waits until every waiter has woken and taken the
 * mutex.  Each waiter counts its own context switches (RUSAGE_THREAD)
 * over the rounds.  A waiter must block once per round (its wait); a
 * thundering herd shows as a second block per waiter (woken, then
 * blocked on the mutex again).  A plain pthread program: run it alone for
 * glibc, under uspin-run for uspin's condvar.
 * Usage: bench-cond-csw [WAITERS [ROUNDS]]
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t c = PTHREAD_COND_INITIALIZER, done = PTHREAD_COND_INITIALIZER;
static int nwaiters, waiting, woke, gen, stop;
static long vol_total, invol_total;

static void *waiter(void *arg)
{
	struct rusage r0, r1;
	int mine;

	pthread_mutex_lock(&m);
	getrusage(RUSAGE_THREAD, &r0);
	mine = gen;
	while (!stop) {
		waiting++;
		while (gen == mine && !stop)
			pthread_cond_wait(&c, &m);
		waiting--;
		mine = gen;
		if (++woke == nwaiters)
			pthread_cond_signal(&done);
	}
	getrusage(RUSAGE_THREAD, &r1);
	vol_total += r1.ru_nvcsw - r0.ru_nvcsw;
	invol_total += r1.ru_nivcsw - r0.ru_nivcsw;
	pthread_mutex_unlock(&m);
	return arg;
}

static void run(int inside, int rounds)
{
	pthread_t *t = calloc((size_t)nwaiters, sizeof(*t));
	int i, r;

	vol_total = invol_total = 0;
	waiting = woke = gen = stop = 0;
	for (i = 0; i < nwaiters; i++)
		pthread_create(&t[i], NULL, waiter, NULL);
	for (r = 0; r <= rounds; r++) {
		pthread_mutex_lock(&m);
		while (waiting < nwaiters) {	/* all asleep in the wait */
			pthread_mutex_unlock(&m);
			sched_yield();
			pthread_mutex_lock(&m);
		}
		woke = 0;
		gen++;
		if (r == rounds)
			stop = 1;
		if (inside) {
			pthread_cond_broadcast(&c);
		} else {
			pthread_mutex_unlock(&m);
			pthread_cond_broadcast(&c);
			pthread_mutex_lock(&m);
		}
		while (woke < nwaiters && !stop)
			pthread_cond_wait(&done, &m);
		pthread_mutex_unlock(&m);
	}
	for (i = 0; i < nwaiters; i++)
		pthread_join(t[i], NULL);
	/* The last round (stop) is counted too: rounds + 1 broadcasts. */
	printf("%-22s %3d %6d %8.2f %8.2f %8.2f\n",
	       inside ? "broadcast-holding" : "broadcast-after-unlock",
	       nwaiters, rounds + 1, (double)vol_total / (rounds + 1),
	       (double)vol_total / (rounds + 1) / nwaiters,
	       (double)invol_total / (rounds + 1));
	free(t);
}

int main(int argc, char **argv)
{
	int rounds;

	nwaiters = argc > 1 ? atoi(argv[1]) : 32;
	rounds = argc > 2 ? atoi(argv[2]) : 200;
	if (nwaiters <= 0 || rounds <= 0) {
		fprintf(stderr, "usage: bench-cond-csw [WAITERS [ROUNDS]]\n");
		return 2;
	}
	printf("%-22s %3s %6s %8s %8s %8s\n", "mode", "W", "bcasts",
	       "vol/bc", "vol/W/bc", "invol/bc");
	run(1, rounds);
	run(0, rounds);
	return 0;
}
