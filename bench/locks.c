// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * locks.c - the registry of contenders, in the order outputs list them:
 * the 2010 series' set first, then glibc, then libuspin's policies.
 */
#include <string.h>

#include "futex_sys.h"
#include "lock.h"

extern const struct bench_lock bench_lock_futex_wait,
	bench_lock_futex_wait_adaptive, bench_lock_futex_wait_tid,
	bench_lock_futex_lock, bench_lock_futex_lock_adaptive,
	bench_lock_pthread_mutex, bench_lock_pthread_mutex_adaptive,
	bench_lock_pthread_mutex_pi, bench_lock_uspin_block,
	bench_lock_uspin_spin, bench_lock_uspin_kernel_adaptive,
	bench_lock_uspin_user_adaptive;

const struct bench_lock *const bench_locks[] = {
	&bench_lock_futex_wait,
	&bench_lock_futex_wait_adaptive,
	&bench_lock_futex_wait_tid,
	&bench_lock_futex_lock,
	&bench_lock_futex_lock_adaptive,
	&bench_lock_pthread_mutex,
	&bench_lock_pthread_mutex_adaptive,
	&bench_lock_pthread_mutex_pi,
	&bench_lock_uspin_block,
	&bench_lock_uspin_spin,
	&bench_lock_uspin_kernel_adaptive,
	&bench_lock_uspin_user_adaptive,
};
const size_t bench_nr_locks = sizeof(bench_locks) / sizeof(bench_locks[0]);

const struct bench_lock *bench_lock_find(const char *name)
{
	size_t i;

	for (i = 0; i < bench_nr_locks; i++)
		if (strcmp(bench_locks[i]->name, name) == 0)
			return bench_locks[i];
	return NULL;
}

/* The per-thread TID the hand-made contenders put in their words. */
__thread uint32_t bench_tid_cache;
