/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * dropin.h - what the pthread drop-in's files share: glibc's mutex kinds
 * (__kind, where the program's initializer or pthread_mutex_init put
 * them), the decision a kind implies, and glibc's own functions for the
 * mutexes it keeps (docs/pthread-dropin.md).  The locking itself is
 * libuspin's, through libuspin/internal.h and uspin.h only.
 *
 * The drop-in runs on the program's pthread_mutex_t: uspin_mutex_t
 * mirrors its layout (word = __lock, count = __count, kind = __kind, the
 * robust list pair = __list), and the uspin flags live where glibc keeps
 * __owner.  A kind with priority inheritance or protection goes to glibc,
 * every call, for the life of the object: the kind never changes after
 * init, so one object is never run by both.
 */
#ifndef USPIN_DROPIN_H
#define USPIN_DROPIN_H

#include <pthread.h>
#include <time.h>

#include "internal.h"

/* glibc's __kind bits (nptl/pthreadP.h, stable since 2.4). */
#define K_TYPE_MASK	3
#define K_NORMAL	0	/* PTHREAD_MUTEX_TIMED_NP */
#define K_RECURSIVE	1
#define K_ERRORCHECK	2
#define K_ADAPTIVE	3
#define K_ROBUST	16
#define K_PI		32
#define K_PP		64
#define K_PSHARED	128
#define K_ELISION	256
#define K_NO_ELISION	512
#define K_GLIBC		(K_PI | K_PP)	/* glibc runs these */
/* Bits a kind we run may have; anything else is glibc's or garbage. */
#define K_OURS		(K_TYPE_MASK | K_ROBUST | K_PSHARED | K_ELISION | \
			 K_NO_ELISION)

_Static_assert(sizeof(uspin_mutex_t) == sizeof(pthread_mutex_t),
	       "uspin_mutex_t has pthread_mutex_t's size");
_Static_assert(offsetof(uspin_mutex_t, kind) ==
	       offsetof(pthread_mutex_t, __data.__kind), "kind is __kind");
_Static_assert(offsetof(uspin_mutex_t, count) ==
	       offsetof(pthread_mutex_t, __data.__count), "count is __count");
_Static_assert(offsetof(uspin_mutex_t, robust_prev) ==
	       offsetof(pthread_mutex_t, __data.__list), "the robust list pair");

static inline uspin_mutex_t *U(pthread_mutex_t *m)
{
	return (uspin_mutex_t *)m;
}

/* Destroyed (glibc stores -1) or not a kind glibc makes. */
static inline int invalid_kind(int kind)
{
	return kind < 0 || (!(kind & K_GLIBC) && (kind & ~K_OURS));
}

/* The uspin flags a kind means (where glibc initialised it: flags 0). */
static inline uint32_t kind_flags(int kind)
{
	return (kind & K_PSHARED ? USPIN_PROCESS_SHARED : 0) |
	       (kind & K_ROBUST ? USPIN_ROBUST : 0);
}

/*
 * Slow paths only: make the flags say what the kind says.  A mutex that
 * glibc initialised (mtx_init, another process, before a preload) has
 * __owner, our flags, at 0; one glibc is holding right now is a mix the
 * drop-in cannot support (docs/pthread-dropin.md).
 */
static inline void sync_flags(uspin_mutex_t *m, int kind)
{
	uint32_t want = kind_flags(kind);

	if (caa_unlikely((mutex_flags(m) & USPIN_SLOW_FLAGS) != want))
		uatomic_or(&m->flags, want);
}

/* What pthread_mutex_lock does on relock, unlock by others (per kind). */
static inline unsigned int kind_mode(int kind)
{
	return (kind & K_TYPE_MASK) == K_ERRORCHECK ? USPIN_MODE_ERRORCHECK : 0;
}

/* Does the type check the owner on unlock (errorcheck, recursive, robust)? */
static inline int kind_checks_owner(int kind)
{
	int type = kind & K_TYPE_MASK;

	return type == K_ERRORCHECK || type == K_RECURSIVE || (kind & K_ROBUST);
}

/*
 * glibc counts a condvar waiter as a user of its mutex (__nusers: its
 * wait releases the lock without counting down), and refuses to destroy
 * a mutex with users (EBUSY).  Our kinds keep that count of waiters in
 * the robust-list pair, which a non-robust mutex never uses (a robust
 * one needs no count: glibc destroys robust mutexes without looking).
 */
static inline uint32_t *cond_users(uspin_mutex_t *m)
{
	return (uint32_t *)&m->robust_prev;
}

/* ---- real.c: glibc's functions, for the kinds glibc runs ---- */
struct dropin_real {
	int (*mutex_init)(pthread_mutex_t *, const pthread_mutexattr_t *);
	int (*mutex_destroy)(pthread_mutex_t *);
	int (*mutex_lock)(pthread_mutex_t *);
	int (*mutex_trylock)(pthread_mutex_t *);
	int (*mutex_timedlock)(pthread_mutex_t *, const struct timespec *);
	int (*mutex_clocklock)(pthread_mutex_t *, clockid_t,
			       const struct timespec *);
	int (*mutex_unlock)(pthread_mutex_t *);
	int (*mutex_consistent)(pthread_mutex_t *);
};
/* Resolved on first use (dlsym may allocate: never on a path of ours). */
const struct dropin_real *dropin_real(void) USPIN_HIDDEN;

#endif
