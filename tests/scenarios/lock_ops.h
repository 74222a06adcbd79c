/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * lock_ops.h - the lock API a test drives, as a table: one on uspin_*
 * (ops.c as it is, linked with libuspin.a: test-uspin, uspin-torture)
 * and one on pthread_* (ops.c built with -DLOCK_OPS_PTHREAD, no uspin
 * header: test-dropin and uspin-torture-pthread, run on glibc alone or
 * on the drop-in under uspin-run).  The same scenarios (cond.c,
 * process.c, the kill harness kill.c, the torture test) run through
 * either.
 */
#ifndef USPIN_LOCK_OPS_H
#define USPIN_LOCK_OPS_H

#include <stdint.h>
#include <time.h>

/* Room for a mutex or a condvar of either API (40 and 48 bytes). */
#define LOCK_OBJ_BYTES	64

struct lock_obj {
	unsigned char bytes[LOCK_OBJ_BYTES];
} __attribute__((aligned(16)));

enum lock_kind {
	LK_PRIVATE,	/* threads of one process */
	LK_SHARED,	/* processes, PTHREAD_PROCESS_SHARED */
	LK_ROBUST,	/* processes, shared and robust */
};

/* What a mutex is, beside its kind (pthread types; uspin: LT_DEFAULT). */
enum lock_type {
	LT_DEFAULT,	/* uspin's mutex; PTHREAD_MUTEX_NORMAL */
	LT_ADAPTIVE,	/* PTHREAD_MUTEX_ADAPTIVE_NP */
	LT_ERRORCHECK,
	LT_RECURSIVE,
	LT_COUNT,
};

/*
 * Each call returns 0 or an errno value, as pthread does.  timedlock()
 * and cond_timedwait() measure CLOCK_REALTIME (a condvar's default
 * clock); cond_clockwait() the clock it is given.
 */
struct lock_ops {
	const char *name;
	int nr_types;		/* types [0, nr_types) exist */
	int (*mutex_init)(void *m, enum lock_kind kind, enum lock_type type);
	int (*mutex_destroy)(void *m);
	int (*lock)(void *m);
	int (*trylock)(void *m);
	int (*timedlock)(void *m, const struct timespec *abstime);
	int (*unlock)(void *m);
	int (*consistent)(void *m);
	int (*cond_init)(void *c, enum lock_kind kind);
	int (*cond_destroy)(void *c);
	int (*cond_wait)(void *c, void *m);
	int (*cond_timedwait)(void *c, void *m, const struct timespec *abstime);
	int (*cond_clockwait)(void *c, void *m, clockid_t clock,
			      const struct timespec *abstime);
	int (*cond_signal)(void *c);
	int (*cond_broadcast)(void *c);
	/*
	 * Optional (uspin only): does @m's lock word hold the caller's TID,
	 * as a robust mutex's does when it owns it?  What a scenario checks
	 * where the API can tell.
	 */
	int (*held_by_me)(void *m);
	/*
	 * Optional: how many may spin on one mutex (libuspin's max_spinners,
	 * a test hook): the torture runs draw up to more than this machine's
	 * CPUs, so that spinners queue and leave the queue from the middle.
	 */
	void (*set_max_spinners)(unsigned int n);
};

extern const struct lock_ops lock_ops;

#endif
