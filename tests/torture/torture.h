/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * torture.h - the lock API the torture test drives, as a table: one on
 * uspin_* (ops_uspin.c, linked with libuspin.a) and one on pthread_*
 * (ops_pthread.c: glibc alone, or the drop-in under uspin-run).  The same
 * scenarios run through either (torture.c).
 */
#ifndef USPIN_TORTURE_H
#define USPIN_TORTURE_H

#include <time.h>

/* Room for a mutex or a condvar of either API (40 and 48 bytes). */
#define TORTURE_OBJ_BYTES	64

enum torture_kind {
	TK_PRIVATE,	/* threads of one process */
	TK_SHARED,	/* processes, PTHREAD_PROCESS_SHARED */
	TK_ROBUST,	/* processes, shared and robust */
};

/* What a mutex of a round is, beside its kind (pthread types; uspin: 0). */
enum torture_type {
	TT_DEFAULT,	/* uspin's mutex; PTHREAD_MUTEX_NORMAL */
	TT_ADAPTIVE,	/* PTHREAD_MUTEX_ADAPTIVE_NP */
	TT_ERRORCHECK,
	TT_RECURSIVE,
	TT_COUNT,
};

/*
 * Each call returns 0 or an errno value, as pthread does.  Timed calls
 * measure CLOCK_REALTIME.  release_inherited() is the atfork child
 * handler's release of a mutex the forking thread held in the parent.
 */
struct torture_ops {
	const char *name;
	int nr_types;		/* types [0, nr_types) exist */
	int (*mutex_init)(void *m, enum torture_kind kind, enum torture_type type);
	int (*mutex_destroy)(void *m);
	int (*lock)(void *m);
	int (*trylock)(void *m);
	int (*timedlock)(void *m, const struct timespec *abstime);
	int (*unlock)(void *m);
	int (*consistent)(void *m);
	int (*cond_init)(void *c, enum torture_kind kind);
	int (*cond_destroy)(void *c);
	int (*cond_wait)(void *c, void *m);
	int (*cond_timedwait)(void *c, void *m, const struct timespec *abstime);
	int (*cond_signal)(void *c);
	int (*cond_broadcast)(void *c);
	/*
	 * Optional: how many may spin on one mutex (libuspin's max_spinners,
	 * a test hook): the runs draw up to more than this machine's CPUs,
	 * so that spinners queue and leave the queue from the middle.
	 */
	void (*set_max_spinners)(unsigned int n);
};

extern const struct torture_ops torture_ops;

#endif
