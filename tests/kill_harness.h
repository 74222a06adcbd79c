/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * kill_harness.h - SIGKILL injection on a process-shared mutex (issue 25).
 *
 * Worker processes take a mutex in shared memory and update a two-word
 * record under it; the parent SIGKILLs random workers many times a second
 * and starts new ones.  The harness knows the mutex only through the
 * callbacks below, so the same run drives a uspin_mutex_t
 * (tests/test_kill.c) and a pthread mutex under uspin-run or glibc
 * (tests/dropin/kill.c).  It returns what it saw; the suites assert.
 */
#ifndef USPIN_KILL_HARNESS_H
#define USPIN_KILL_HARNESS_H

#include <stdint.h>
#include <time.h>

/* Room for the mutex: uspin_mutex_t and pthread_mutex_t are 40 bytes. */
#define KILL_MUTEX_BYTES	64

struct kill_config {
	const char *name;
	/*
	 * Robust: kill anywhere, inside the critical section too, and
	 * expect EOWNERDEAD for every death in it.  Not robust: kill only
	 * workers that are not inside (the parent holds the mutex while it
	 * kills), since a dead owner is undefined there; a dead waiter must
	 * still never strand the mutex or the other waiters.
	 */
	int robust;
	int workers;
	long run_ms;
	int (*init)(void *m);
	int (*lock)(void *m);
	int (*timedlock)(void *m, const struct timespec *abstime); /* REALTIME */
	int (*unlock)(void *m);
	int (*consistent)(void *m);
};

struct kill_report {
	unsigned long seed;
	long kills;		/* workers SIGKILLed during the run */
	long kills_in_cs;	/* ... with their record marker set */
	long reported;		/* dead workers named by an EOWNERDEAD */
	long eownerdead;	/* EOWNERDEAD returned (also outside markers) */
	long torn_repaired;	/* torn records a recoverer found and fixed */
	long iterations;	/* critical sections completed */
	/* Failures; all must be 0. */
	long torn_seen;		/* a lock returned 0 on a torn or marked record */
	long worker_errors;	/* a worker got an unexpected return */
	long unreported;	/* died with its marker set, never reported */
	long misreported;	/* reported but never killed, or twice */
	long stranded;		/* the parent's timed lock ran out mid-run */
	long stuck;		/* workers that could not finish when asked */
	int final_lock;		/* the parent's timed lock at the end */
	uint32_t word;		/* the lock word (offset 0) if that failed */
	int word_owner_alive;	/* its TID names a live task */
};

/* Run @cfg; 0, or -1 if the harness itself failed (mmap, fork). */
int kill_run(const struct kill_config *cfg, struct kill_report *rep);

#endif
