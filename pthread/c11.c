// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * c11.c - ISO C11 threads' mutexes and condvars: mtx_t and cnd_t are
 * glibc's pthread_mutex_t and pthread_cond_t, and glibc runs mtx_lock and
 * friends through its internal pthread functions, which the drop-in
 * cannot interpose.  So interpose the C11 names too, exactly as glibc
 * maps them (threads.h, nptl/mtx_*.c, thrd_err_map).
 */
#include <errno.h>
#include <threads.h>

#include "dropin.h"

static int thrd_err(int e)
{
	switch (e) {
	case 0:
		return thrd_success;
	case ENOMEM:
		return thrd_nomem;
	case ETIMEDOUT:
		return thrd_timedout;
	case EBUSY:
		return thrd_busy;
	default:
		return thrd_error;
	}
}

int mtx_init(mtx_t *mutex, int type)
{
	pthread_mutexattr_t attr;
	int r;

	pthread_mutexattr_init(&attr);
	switch (type) {
	case mtx_plain | mtx_recursive:
	case mtx_timed | mtx_recursive:
		pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_RECURSIVE);
		break;
	default:	/* mtx_plain, mtx_timed, and (as glibc) anything else */
		break;
	}
	r = pthread_mutex_init((pthread_mutex_t *)mutex, &attr);
	pthread_mutexattr_destroy(&attr);
	return thrd_err(r);
}

int mtx_lock(mtx_t *mutex)
{
	return thrd_err(pthread_mutex_lock((pthread_mutex_t *)mutex));
}

int mtx_timedlock(mtx_t *restrict mutex, const struct timespec *restrict ts)
{
	return thrd_err(pthread_mutex_timedlock((pthread_mutex_t *)mutex, ts));
}

int mtx_trylock(mtx_t *mutex)
{
	return thrd_err(pthread_mutex_trylock((pthread_mutex_t *)mutex));
}

int mtx_unlock(mtx_t *mutex)
{
	return thrd_err(pthread_mutex_unlock((pthread_mutex_t *)mutex));
}

void mtx_destroy(mtx_t *mutex)
{
	pthread_mutex_destroy((pthread_mutex_t *)mutex);
}

int cnd_init(cnd_t *cond)
{
	return thrd_err(pthread_cond_init((pthread_cond_t *)cond, NULL));
}

int cnd_signal(cnd_t *cond)
{
	return thrd_err(pthread_cond_signal((pthread_cond_t *)cond));
}

int cnd_broadcast(cnd_t *cond)
{
	return thrd_err(pthread_cond_broadcast((pthread_cond_t *)cond));
}

int cnd_wait(cnd_t *cond, mtx_t *mutex)
{
	return thrd_err(pthread_cond_wait((pthread_cond_t *)cond,
					  (pthread_mutex_t *)mutex));
}

int cnd_timedwait(cnd_t *restrict cond, mtx_t *restrict mutex,
		  const struct timespec *restrict ts)
{
	return thrd_err(pthread_cond_timedwait((pthread_cond_t *)cond,
					       (pthread_mutex_t *)mutex, ts));
}

void cnd_destroy(cnd_t *cond)
{
	pthread_cond_destroy((pthread_cond_t *)cond);
}
