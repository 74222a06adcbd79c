// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * mutex.c - pthread_mutex_* on uspin, for every kind glibc has but the
 * priority ones (docs/pthread-dropin.md).
 *
 * The fast paths are libuspin's (internal.h: one CAS, a plain store while
 * the process is single-threaded), behind one test of __kind: a private,
 * non-robust mutex of any type (normal, errorcheck, adaptive; recursive
 * too for lock) touches nothing else, not even glibc's __owner and
 * __nusers, which uspin has no use for.  Everything else is a tail call:
 * the kind decides, per call, which semantics apply (glibc's: a normal
 * mutex relocked by its owner blocks, anyone may unlock it; an errorcheck
 * one says EDEADLK / EPERM; a recursive one counts in __count; a robust
 * one says EOWNERDEAD after its owner died).
 */
#include <errno.h>

#include "dropin.h"

/* ---- slow paths ---- */

/* A recursive mutex its owner takes again: one more in __count. */
static int lock_again(uspin_mutex_t *m)
{
	if (m->count + 1 == 0)
		return EAGAIN;
	m->count++;
	return 0;
}

static __attribute__((noinline)) int lock_slow(uspin_mutex_t *m, int kind,
					      int timed, clockid_t clock,
					      const struct timespec *abstime)
{
	const struct dropin_real *real;
	int recursive = (kind & K_TYPE_MASK) == K_RECURSIVE, r;

	if (caa_unlikely(kind & K_GLIBC)) {
		if (invalid_kind(kind))
			return EINVAL;
		real = dropin_real();
		if (!timed)
			return real->mutex_lock((pthread_mutex_t *)m);
		if (clock == CLOCK_REALTIME)
			return real->mutex_timedlock((pthread_mutex_t *)m, abstime);
		return real->mutex_clocklock((pthread_mutex_t *)m, clock, abstime);
	}
	if (invalid_kind(kind))
		return EINVAL;
	sync_flags(m, kind);
	if (recursive && uspin_mutex_owned(m))
		return lock_again(m);
	if (timed)
		r = uspin_lock_timed(m, kind_mode(kind), clock, abstime);
	else
		r = uspin_lock_contended(m, kind_mode(kind), clock, NULL);
	if (recursive && (r == 0 || r == EOWNERDEAD))
		m->count = 1;
	return r;
}

/* Out of line: inlined, it would cost the fast path a stack frame. */
static __attribute__((noinline)) int unlock_slow(uspin_mutex_t *m, int kind)
{
	uint32_t v;

	if (caa_unlikely(kind & K_GLIBC)) {
		if (invalid_kind(kind))
			return EINVAL;
		return dropin_real()->mutex_unlock((pthread_mutex_t *)m);
	}
	if (invalid_kind(kind))
		return EINVAL;
	sync_flags(m, kind);
	v = CMM_LOAD_SHARED(m->word);
	if (kind_checks_owner(kind) && !uspin_mutex_owned(m))
		return EPERM;
	/*
	 * glibc: a robust recursive mutex taken with EOWNERDEAD and not made
	 * consistent says ENOTRECOVERABLE on every unlock but the last.
	 */
	if ((kind & K_TYPE_MASK) == K_RECURSIVE && --m->count != 0)
		return (kind & K_ROBUST) && (v & FUTEX_OWNER_DIED) ?
		       ENOTRECOVERABLE : 0;
	return uspin_unlock_contended(m, kind_mode(kind));
}

/* ---- the interposed functions ---- */

int pthread_mutex_lock(pthread_mutex_t *pm)
{
	uspin_mutex_t *m = U(pm);
	int kind = CMM_LOAD_SHARED(m->kind);
	uint32_t tid = uspin_self_tid_cached();

	if (caa_likely(!(kind & ~K_TYPE_MASK) && tid) && uspin_fast_lock(m, tid)) {
		if (kind == K_RECURSIVE)
			m->count = 1;
		return 0;
	}
	return lock_slow(m, kind, 0, CLOCK_REALTIME, NULL);
}

int pthread_mutex_unlock(pthread_mutex_t *pm)
{
	uspin_mutex_t *m = U(pm);
	int kind = CMM_LOAD_SHARED(m->kind);
	uint32_t tid = uspin_self_tid_cached();

	if (caa_likely(!(kind & ~K_TYPE_MASK) && tid)) {
		if (caa_unlikely(kind == K_RECURSIVE)) {
			/* Not ours, or our forking thread's (unlock_slow()). */
			if (WORD_TID(CMM_LOAD_SHARED(m->word)) != tid)
				return unlock_slow(m, kind);
			if (m->count > 1) {
				m->count--;
				return 0;
			}
			m->count = 0;
			if (uspin_fast_unlock(m, tid))
				return 0;
			return uspin_unlock_contended(m, 0);	/* ours */
		}
		/* Normal, errorcheck, adaptive: only the owner's word is tid. */
		if (uspin_fast_unlock(m, tid))
			return 0;
	}
	return unlock_slow(m, kind);
}

int pthread_mutex_trylock(pthread_mutex_t *pm)
{
	uspin_mutex_t *m = U(pm);
	int kind = CMM_LOAD_SHARED(m->kind), r;

	if (caa_unlikely(kind & K_GLIBC)) {
		if (invalid_kind(kind))
			return EINVAL;
		return dropin_real()->mutex_trylock(pm);
	}
	if (invalid_kind(kind))
		return EINVAL;
	sync_flags(m, kind);
	if (uspin_mutex_owned(m)) {
		if ((kind & K_TYPE_MASK) == K_RECURSIVE)
			return lock_again(m);
		/* glibc: a robust errorcheck mutex says so; others EBUSY */
		if ((kind & K_ROBUST) && (kind & K_TYPE_MASK) == K_ERRORCHECK)
			return EDEADLK;
	}
	r = uspin_mutex_trylock(m);
	if ((kind & K_TYPE_MASK) == K_RECURSIVE && (r == 0 || r == EOWNERDEAD))
		m->count = 1;
	return r;
}

int pthread_mutex_clocklock(pthread_mutex_t *pm, clockid_t clock,
			    const struct timespec *abstime)
{
	if (!uspin_clock_supported(clock))
		return EINVAL;
	return lock_slow(U(pm), CMM_LOAD_SHARED(U(pm)->kind), 1, clock, abstime);
}

int pthread_mutex_timedlock(pthread_mutex_t *pm, const struct timespec *abstime)
{
	return lock_slow(U(pm), CMM_LOAD_SHARED(U(pm)->kind), 1, CLOCK_REALTIME,
			 abstime);
}

int pthread_mutex_init(pthread_mutex_t *pm, const pthread_mutexattr_t *attr)
{
	int type = PTHREAD_MUTEX_NORMAL, pshared = PTHREAD_PROCESS_PRIVATE;
	int robust = PTHREAD_MUTEX_STALLED, protocol = PTHREAD_PRIO_NONE, kind;
	uspin_mutex_t *m = U(pm);

	if (attr) {
		pthread_mutexattr_getprotocol(attr, &protocol);
		if (protocol != PTHREAD_PRIO_NONE)
			return dropin_real()->mutex_init(pm, attr);
		pthread_mutexattr_gettype(attr, &type);
		pthread_mutexattr_getpshared(attr, &pshared);
		pthread_mutexattr_getrobust(attr, &robust);
	}
	kind = (type & K_TYPE_MASK) |
	       (robust == PTHREAD_MUTEX_ROBUST ? K_ROBUST : 0) |
	       (pshared == PTHREAD_PROCESS_SHARED ? K_PSHARED : 0);
	uspin_mutex_init(m, kind_flags(kind));	/* valid flags: cannot fail */
	CMM_STORE_SHARED(m->kind, kind);
	return 0;
}

int pthread_mutex_destroy(pthread_mutex_t *pm)
{
	uspin_mutex_t *m = U(pm);
	int kind = CMM_LOAD_SHARED(m->kind);

	if (kind & K_GLIBC && kind >= 0)
		return dropin_real()->mutex_destroy(pm);
	/* As glibc: a locked mutex, or one a condvar waiter will take back,
	   is busy, unless it is robust. */
	if (!(kind & K_ROBUST) && (WORD_TID(CMM_LOAD_SHARED(m->word)) ||
				   uatomic_read(cond_users(m))))
		return EBUSY;
	CMM_STORE_SHARED(m->kind, -1);	/* glibc's "destroyed" */
	return 0;
}

int pthread_mutex_consistent(pthread_mutex_t *pm)
{
	int kind = CMM_LOAD_SHARED(U(pm)->kind);

	if (kind & K_GLIBC && kind >= 0)
		return dropin_real()->mutex_consistent(pm);
	if (invalid_kind(kind) || !(kind & K_ROBUST))
		return EINVAL;
	return uspin_mutex_consistent(U(pm));
}

/* Old names, still bound by old binaries. */
/* <pthread.h> redirects the _np name to the POSIX one: name it by hand. */
int dropin_mutex_consistent_np(pthread_mutex_t *pm)
	__asm__("pthread_mutex_consistent_np")
	__attribute__((alias("pthread_mutex_consistent"), copy(pthread_mutex_consistent)));
int __pthread_mutex_lock(pthread_mutex_t *pm)
	__attribute__((alias("pthread_mutex_lock"), copy(pthread_mutex_lock)));
int __pthread_mutex_unlock(pthread_mutex_t *pm)
	__attribute__((alias("pthread_mutex_unlock"), copy(pthread_mutex_unlock)));
int __pthread_mutex_trylock(pthread_mutex_t *pm)
	__attribute__((alias("pthread_mutex_trylock"), copy(pthread_mutex_trylock)));
int __pthread_mutex_init(pthread_mutex_t *pm, const pthread_mutexattr_t *attr)
	__attribute__((alias("pthread_mutex_init"), copy(pthread_mutex_init)));
int __pthread_mutex_destroy(pthread_mutex_t *pm)
	__attribute__((alias("pthread_mutex_destroy"), copy(pthread_mutex_destroy)));
