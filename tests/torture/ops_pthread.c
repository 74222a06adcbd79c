// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * ops_pthread.c - the torture test on pthread_*: glibc when run alone
 * (the control), libuspin's drop-in under uspin-run.  Built without any
 * uspin header.
 */
#include <pthread.h>

#include "torture.h"

_Static_assert(sizeof(pthread_mutex_t) <= TORTURE_OBJ_BYTES, "mutex fits");
_Static_assert(sizeof(pthread_cond_t) <= TORTURE_OBJ_BYTES, "condvar fits");

static const int types[TT_COUNT] = {
	[TT_DEFAULT] = PTHREAD_MUTEX_NORMAL,
	[TT_ADAPTIVE] = PTHREAD_MUTEX_ADAPTIVE_NP,
	[TT_ERRORCHECK] = PTHREAD_MUTEX_ERRORCHECK,
	[TT_RECURSIVE] = PTHREAD_MUTEX_RECURSIVE,
};

static int mutex_init(void *m, enum torture_kind kind, enum torture_type type)
{
	pthread_mutexattr_t a;
	int r;

	pthread_mutexattr_init(&a);
	pthread_mutexattr_settype(&a, types[type]);
	if (kind != TK_PRIVATE)
		pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED);
	if (kind == TK_ROBUST)
		pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
	r = pthread_mutex_init(m, &a);
	pthread_mutexattr_destroy(&a);
	return r;
}

static int mutex_destroy(void *m)
{
	return pthread_mutex_destroy(m);
}

static int lock(void *m)
{
	return pthread_mutex_lock(m);
}

static int trylock(void *m)
{
	return pthread_mutex_trylock(m);
}

static int timedlock(void *m, const struct timespec *abstime)
{
	return pthread_mutex_timedlock(m, abstime);
}

static int unlock(void *m)
{
	return pthread_mutex_unlock(m);
}

static int consistent(void *m)
{
	return pthread_mutex_consistent(m);
}

static int cond_init(void *c, enum torture_kind kind)
{
	pthread_condattr_t a;
	int r;

	pthread_condattr_init(&a);
	if (kind != TK_PRIVATE)
		pthread_condattr_setpshared(&a, PTHREAD_PROCESS_SHARED);
	r = pthread_cond_init(c, &a);
	pthread_condattr_destroy(&a);
	return r;
}

static int cond_destroy(void *c)
{
	return pthread_cond_destroy(c);
}

static int cond_wait(void *c, void *m)
{
	return pthread_cond_wait(c, m);
}

static int cond_timedwait(void *c, void *m, const struct timespec *abstime)
{
	return pthread_cond_timedwait(c, m, abstime);
}

static int cond_signal(void *c)
{
	return pthread_cond_signal(c);
}

static int cond_broadcast(void *c)
{
	return pthread_cond_broadcast(c);
}

const struct torture_ops torture_ops = {
	.name = "pthread",
	.nr_types = TT_COUNT,
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
	.cond_signal = cond_signal,
	.cond_broadcast = cond_broadcast,
};
