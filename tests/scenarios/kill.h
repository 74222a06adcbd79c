/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * kill.h - SIGKILL injection on a process-shared mutex (issue 25).
 *
 * Worker processes take a mutex in shared memory and update a two-word
 * record under it; the parent SIGKILLs random workers many times a second
 * and starts new ones.  The harness knows the mutex only through
 * lock_ops.h, so the same run drives a uspin_mutex_t (tests/test_kill.c)
 * and a pthread mutex under uspin-run or glibc (tests/dropin/kill.c).
 * It returns what it saw; the suites assert.
 */
#ifndef USPIN_SCENARIOS_KILL_H
#define USPIN_SCENARIOS_KILL_H

#include <stdint.h>

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
	/*
	 * Optional: how the mutex is made (a suite's own policy), in place
	 * of lock_ops.mutex_init() of the kind @robust says.
	 */
	int (*init)(void *m);
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

/*
 * Print @rep, a run of @cfg, as "@label: kill ...", and assert it (Check):
 * no failure, and the run did what it is for.
 */
void kill_check(const struct kill_config *cfg, const struct kill_report *rep,
		const char *label);

#endif
