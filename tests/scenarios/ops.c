// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * ops.c - the table of lock_ops.h on libuspin's own API or, built with
 * -DLOCK_OPS_PTHREAD, on pthread_* (glibc alone, or the drop-in under
 * uspin-run; then without any uspin header).  The calls both APIs spell
 * alike are one set of wrappers; what differs is below each #if: how a
 * mutex or a condvar of a kind is made, and uspin's test hooks.  uspin's
 * mutexes are AUTO, so USPIN_POLICY chooses what they do.
 */
#ifdef LOCK_OPS_PTHREAD
#include <pthread.h>
#define API(call)	pthread_##call
typedef pthread_mutex_t api_mutex_t;
typedef pthread_cond_t api_cond_t;
#else
#include <uspin.h>
#include "../sys_util.h"
#include "setup.h"
#define API(call)	uspin_##call
typedef uspin_mutex_t api_mutex_t;
typedef uspin_cond_t api_cond_t;
#endif

#include "lock_ops.h"

_Static_assert(sizeof(api_mutex_t) <= LOCK_OBJ_BYTES, "mutex fits");
_Static_assert(sizeof(api_cond_t) <= LOCK_OBJ_BYTES, "condvar fits");

#ifdef LOCK_OPS_PTHREAD
static const int types[LT_COUNT] = {
	[LT_DEFAULT] = PTHREAD_MUTEX_NORMAL,
	[LT_ADAPTIVE] = PTHREAD_MUTEX_ADAPTIVE_NP,
	[LT_ERRORCHECK] = PTHREAD_MUTEX_ERRORCHECK,
	[LT_RECURSIVE] = PTHREAD_MUTEX_RECURSIVE,
};

static int mutex_init(void *m, enum lock_kind kind, enum lock_type type)
{
	pthread_mutexattr_t a;
	int r;

	pthread_mutexattr_init(&a);
	pthread_mutexattr_settype(&a, types[type]);
	if (kind != LK_PRIVATE)
		pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED);
	if (kind == LK_ROBUST)
		pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
	r = pthread_mutex_init(m, &a);
	pthread_mutexattr_destroy(&a);
	return r;
}

static int cond_init(void *c, enum lock_kind kind)
{
	pthread_condattr_t a;
	int r;

	pthread_condattr_init(&a);
	if (kind != LK_PRIVATE)
		pthread_condattr_setpshared(&a, PTHREAD_PROCESS_SHARED);
	r = pthread_cond_init(c, &a);
	pthread_condattr_destroy(&a);
	return r;
}
#else
static int mutex_init(void *m, enum lock_kind kind, enum lock_type type)
{
	static const unsigned int flags[] = {
		[LK_PRIVATE] = 0,
		[LK_SHARED] = USPIN_PROCESS_SHARED,
		[LK_ROBUST] = USPIN_PROCESS_SHARED | USPIN_ROBUST,
	};

	return uspin_mutex_init(m, flags[kind]);
}

static int cond_init(void *c, enum lock_kind kind)
{
	return uspin_cond_init(c, kind == LK_PRIVATE ? 0 : USPIN_PROCESS_SHARED);
}

static int held_by_me(void *m)
{
	uint32_t w = __atomic_load_n(&((uspin_mutex_t *)m)->word, __ATOMIC_RELAXED);

	return WORD_TID(w) == sys_gettid();
}

static void set_max_spinners(unsigned int n)
{
	uspin_setup_run();
	uspin_setup_state.max_spinners = n;
}
#endif

static int mutex_destroy(void *m)
{
	return API(mutex_destroy)(m);
}

static int lock(void *m)
{
	return API(mutex_lock)(m);
}

static int trylock(void *m)
{
	return API(mutex_trylock)(m);
}

static int timedlock(void *m, const struct timespec *abstime)
{
	return API(mutex_timedlock)(m, abstime);
}

static int unlock(void *m)
{
	return API(mutex_unlock)(m);
}

static int consistent(void *m)
{
	return API(mutex_consistent)(m);
}

static int cond_destroy(void *c)
{
	return API(cond_destroy)(c);
}

static int cond_wait(void *c, void *m)
{
	return API(cond_wait)(c, m);
}

static int cond_timedwait(void *c, void *m, const struct timespec *abstime)
{
	return API(cond_timedwait)(c, m, abstime);
}

static int cond_clockwait(void *c, void *m, clockid_t clock,
			  const struct timespec *abstime)
{
	return API(cond_clockwait)(c, m, clock, abstime);
}

static int cond_signal(void *c)
{
	return API(cond_signal)(c);
}

static int cond_broadcast(void *c)
{
	return API(cond_broadcast)(c);
}

const struct lock_ops lock_ops = {
#ifdef LOCK_OPS_PTHREAD
	.name = "pthread",
	.nr_types = LT_COUNT,
#else
	.name = "uspin",
	.nr_types = 1,
	.held_by_me = held_by_me,
	.set_max_spinners = set_max_spinners,
#endif
	.mutex_init = mutex_init,
	.mutex_destroy = mutex_destroy,
	.lock = lock,
	.trylock = trylock,
	.timedlock = timedlock,
	.unlock = unlock,
	.consistent = consistent,
	.cond_init = cond_init,
	.cond_destroy = cond_destroy,
	.cond_wait = cond_wait,
	.cond_timedwait = cond_timedwait,
	.cond_clockwait = cond_clockwait,
	.cond_signal = cond_signal,
	.cond_broadcast = cond_broadcast,
};
