// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libhelper.c - a library the edges suite dlopen()s (twice: once plain,
 * once with RTLD_DEEPBIND under another name), whose mutex and condvar
 * calls bind wherever the dynamic loader sends them.
 */
#include <pthread.h>
#include <stdint.h>

static pthread_mutex_t own = PTHREAD_MUTEX_INITIALIZER;

/* Lock our own mutex and report its lock word (1 on glibc, TID on uspin). */
uint32_t helper_own_word(void);
uint32_t helper_own_word(void)
{
	uint32_t w;

	pthread_mutex_lock(&own);
	w = *(volatile uint32_t *)&own;
	pthread_mutex_unlock(&own);
	return w;
}

int helper_lock(pthread_mutex_t *m);
int helper_lock(pthread_mutex_t *m)
{
	return pthread_mutex_lock(m);
}

int helper_unlock(pthread_mutex_t *m);
int helper_unlock(pthread_mutex_t *m)
{
	return pthread_mutex_unlock(m);
}

int helper_wait(pthread_cond_t *c, pthread_mutex_t *m);
int helper_wait(pthread_cond_t *c, pthread_mutex_t *m)
{
	return pthread_cond_wait(c, m);
}

int helper_signal(pthread_cond_t *c);
int helper_signal(pthread_cond_t *c)
{
	return pthread_cond_signal(c);
}
