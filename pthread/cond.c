// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * cond.c - pthread_cond_* on uspin_cond_t, with any mutex the program
 * has: one of ours (the condvar may requeue waiters onto its word), or
 * one glibc runs (priority kinds: the wait releases and re-takes it with
 * glibc's functions and is never requeued).
 *
 * What the mutex goes through is what glibc's pthread_cond_wait does to
 * it: errorcheck, recursive and robust mutexes must be held by the caller
 * (EPERM); a recursive mutex held more than once is only counted down,
 * so it stays locked during the wait, as in glibc; a robust mutex whose
 * owner died while we waited makes the wait return EOWNERDEAD.
 */
#include <errno.h>

#include "dropin.h"

struct dropin_cm {
	struct uspin_cond_mutex cm;	/* first: cond_wait hands us this */
	pthread_mutex_t *pm;
	int kind;
};

static int release_ours(struct uspin_cond_mutex *cm)
{
	struct dropin_cm *d = (struct dropin_cm *)cm;
	int r;

	if (!(d->kind & K_ROBUST))
		uatomic_inc(cond_users(U(d->pm)));
	r = pthread_mutex_unlock(d->pm);
	if (r && !(d->kind & K_ROBUST))
		uatomic_dec(cond_users(U(d->pm)));
	return r;
}

static int reacquire_ours(struct uspin_cond_mutex *cm)
{
	struct dropin_cm *d = (struct dropin_cm *)cm;
	uspin_mutex_t *m = U(d->pm);
	int r;

	if (cm->kept) {
		m->count++;	/* it never left us */
		r = 0;
	} else {
		r = uspin_lock_as_woken(m, kind_mode(d->kind), CLOCK_MONOTONIC,
					NULL);
		if ((d->kind & K_TYPE_MASK) == K_RECURSIVE &&
		    (r == 0 || r == EOWNERDEAD))
			m->count = 1;
	}
	if (!(d->kind & K_ROBUST))
		uatomic_dec(cond_users(m));
	return r;
}

/*
 * glibc's own wait releases with __nusers kept and re-takes without
 * counting it up again (so a mutex with waiters is busy for destroy);
 * its public unlock and lock count, so compensate, while we hold it.
 */
static int release_glibc(struct uspin_cond_mutex *cm)
{
	pthread_mutex_t *pm = ((struct dropin_cm *)cm)->pm;
	int held = (uint32_t)pm->__data.__owner == uspin_self_tid(), r;

	if (held)
		pm->__data.__nusers++;
	r = dropin_real()->mutex_unlock(pm);
	if (r && held)
		pm->__data.__nusers--;
	cm->kept = held && !r;	/* the count to take back */
	return r;
}

static int reacquire_glibc(struct uspin_cond_mutex *cm)
{
	pthread_mutex_t *pm = ((struct dropin_cm *)cm)->pm;
	int r = dropin_real()->mutex_lock(pm);

	if (cm->kept && (r == 0 || r == EOWNERDEAD))
		pm->__data.__nusers--;
	return r;
}

static int dropin_wait(pthread_cond_t *pc, pthread_mutex_t *pm, clockid_t clock,
		       const struct timespec *abstime)
{
	struct dropin_cm d = { .pm = pm, .kind = CMM_LOAD_SHARED(U(pm)->kind) };
	uspin_mutex_t *m = U(pm);
	int r;

	/* glibc's order: a bad time first, then the mutex. */
	r = uspin_cond_check_time(clock, abstime);
	if (r)
		return r;
	if (invalid_kind(d.kind))
		return EINVAL;
	if (d.kind & K_GLIBC) {
		d.cm.release = release_glibc;
		d.cm.reacquire = reacquire_glibc;
	} else {
		sync_flags(m, d.kind);
		if (kind_checks_owner(d.kind) && !uspin_mutex_owned(m))
			return EPERM;
		d.cm.kept = (d.kind & K_TYPE_MASK) == K_RECURSIVE && m->count > 1;
		d.cm.m = d.cm.kept ? NULL : m;
		d.cm.release = release_ours;
		d.cm.reacquire = reacquire_ours;
	}
	return uspin_cond_wait_common((uspin_cond_t *)pc, &d.cm, clock, abstime);
}

_Static_assert(sizeof(uspin_cond_t) == sizeof(pthread_cond_t),
	       "uspin_cond_t has pthread_cond_t's size");
_Static_assert(_Alignof(uspin_cond_t) <= _Alignof(pthread_cond_t),
	       "and fits its alignment");

int pthread_cond_init(pthread_cond_t *pc, const pthread_condattr_t *attr)
{
	int pshared = PTHREAD_PROCESS_PRIVATE;
	clockid_t clock = CLOCK_REALTIME;

	if (attr) {
		pthread_condattr_getpshared(attr, &pshared);
		pthread_condattr_getclock(attr, &clock);
	}
	return uspin_cond_init((uspin_cond_t *)pc,
			       (pshared == PTHREAD_PROCESS_SHARED ?
				USPIN_PROCESS_SHARED : 0) |
			       (clock == CLOCK_MONOTONIC ? USPIN_COND_MONOTONIC : 0));
}

int pthread_cond_destroy(pthread_cond_t *pc)
{
	return uspin_cond_destroy((uspin_cond_t *)pc);
}

int pthread_cond_signal(pthread_cond_t *pc)
{
	return uspin_cond_signal_internal((uspin_cond_t *)pc);
}

int pthread_cond_broadcast(pthread_cond_t *pc)
{
	return uspin_cond_broadcast((uspin_cond_t *)pc);
}

int pthread_cond_wait(pthread_cond_t *pc, pthread_mutex_t *pm)
{
	return dropin_wait(pc, pm, CLOCK_REALTIME, NULL);
}

int pthread_cond_timedwait(pthread_cond_t *pc, pthread_mutex_t *pm,
			   const struct timespec *abstime)
{
	return dropin_wait(pc, pm, uspin_cond_clock((uspin_cond_t *)pc), abstime);
}

int pthread_cond_clockwait(pthread_cond_t *pc, pthread_mutex_t *pm,
			   clockid_t clock, const struct timespec *abstime)
{
	return dropin_wait(pc, pm, clock, abstime);
}
