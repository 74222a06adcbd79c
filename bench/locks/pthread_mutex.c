// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * pthread_mutex.c - glibc's mutexes, what applications use today:
 * normal (0/1/2 word, no spin), adaptive (PTHREAD_MUTEX_ADAPTIVE_NP: bounded
 * spin, learned length) and priority-inheriting (TID word, FUTEX_LOCK_PI,
 * whose rtmutex spins in the kernel while the owner runs — the mainline
 * relative of FUTEX_LOCK_ADAPTIVE).  They differ only in the attributes.
 *
 * The adaptive mutex spins up to glibc.pthread.mutex_spin_count rounds
 * (default 100) before FUTEX_WAIT.  The tunable is read once, at process
 * start, so the 0 and 1,000 variants carry GLIBC_TUNABLES and the harness
 * runs them in processes of their own (child.c), interleaved with the rest.
 */
#include <gnu/libc-version.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lock.h"

_Static_assert(sizeof(pthread_mutex_t) <= BENCH_LOCK_SIZE,
	       "pthread_mutex_t does not fit the lock storage");

static int pm_init_attr(void *l, int type, int protocol)
{
	pthread_mutexattr_t a;
	int err;

	pthread_mutexattr_init(&a);
	err = pthread_mutexattr_settype(&a, type);
	if (!err)
		err = pthread_mutexattr_setprotocol(&a, protocol);
	if (!err)
		err = pthread_mutex_init(l, &a);
	pthread_mutexattr_destroy(&a);
	return err;
}

static int pm_init(void *l)
{
	return pm_init_attr(l, PTHREAD_MUTEX_NORMAL, PTHREAD_PRIO_NONE);
}

static int pma_init(void *l)
{
	return pm_init_attr(l, PTHREAD_MUTEX_ADAPTIVE_NP, PTHREAD_PRIO_NONE);
}

static int pmpi_init(void *l)
{
	return pm_init_attr(l, PTHREAD_MUTEX_NORMAL, PTHREAD_PRIO_INHERIT);
}

/* A failing lock would make every number meaningless: stop loudly. */
static void pm_lock(void *l)
{
	int err = pthread_mutex_lock(l);

	if (err) {
		fprintf(stderr, "uspin-bench: pthread_mutex_lock: %s\n",
			strerror(err));
		abort();
	}
}

static void pm_unlock(void *l)
{
	pthread_mutex_unlock(l);
}

static void pm_destroy(void *l)
{
	pthread_mutex_destroy(l);
}

const struct bench_lock bench_lock_pthread_mutex = {
	.name = "pthread_mutex",
	.init = pm_init,
	.lock = pm_lock,
	.unlock = pm_unlock,
	.destroy = pm_destroy,
};

const struct bench_lock bench_lock_pthread_mutex_adaptive = {
	.name = "pthread_mutex_adaptive",
	.init = pma_init,
	.lock = pm_lock,
	.unlock = pm_unlock,
	.destroy = pm_destroy,
};

/* The tunable has this name since glibc 2.32 (glibc.mutex.* before). */
static const char *tunable_probe(void)
{
	static char why[96];
	int major = 0, minor = 0;

	if (sscanf(gnu_get_libc_version(), "%d.%d", &major, &minor) == 2 &&
	    (major > 2 || (major == 2 && minor >= 32)))
		return NULL;
	snprintf(why, sizeof(why),
		 "glibc %s predates glibc.pthread.mutex_spin_count (2.32)",
		 gnu_get_libc_version());
	return why;
}

static const char *const spin0_env[] = {
	"GLIBC_TUNABLES=glibc.pthread.mutex_spin_count=0", NULL
};
static const char *const spin1000_env[] = {
	"GLIBC_TUNABLES=glibc.pthread.mutex_spin_count=1000", NULL
};

const struct bench_lock bench_lock_pthread_mutex_adaptive_spin0 = {
	.name = "pthread_mutex_adaptive_spin0",
	.probe = tunable_probe,
	.env = spin0_env,
	.init = pma_init,
	.lock = pm_lock,
	.unlock = pm_unlock,
	.destroy = pm_destroy,
};

const struct bench_lock bench_lock_pthread_mutex_adaptive_spin1000 = {
	.name = "pthread_mutex_adaptive_spin1000",
	.probe = tunable_probe,
	.env = spin1000_env,
	.init = pma_init,
	.lock = pm_lock,
	.unlock = pm_unlock,
	.destroy = pm_destroy,
};

const struct bench_lock bench_lock_pthread_mutex_pi = {
	.name = "pthread_mutex_pi",
	.init = pmpi_init,
	.lock = pm_lock,
	.unlock = pm_unlock,
	.destroy = pm_destroy,
};
