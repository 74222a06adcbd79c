// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * futex_wait_adaptive.c - the 0/1/2 mutex with a bounded user-space spin
 * before FUTEX_WAIT: what an application can do without knowing whether
 * the owner runs.  The bound is glibc's default for adaptive mutexes
 * (100 rounds), so this and pthread_mutex_adaptive spin alike.
 */
#include <urcu/arch.h>
#include <urcu/uatomic.h>

#include "futex_wait.h"
#include "lock.h"

#define FWA_SPIN_ROUNDS	100

static int fwa_init(void *l)
{
	*(uint32_t *)l = 0;
	return 0;
}

static void fwa_lock(void *l)
{
	uint32_t *w = l;
	uint32_t c = uatomic_cmpxchg(w, 0, 1);
	int i;

	if (c == 0)
		return;
	/* Read-only spin: a CAS per round would bounce the line. */
	for (i = 0; i < FWA_SPIN_ROUNDS; i++) {
		caa_cpu_relax();
		if (uatomic_read(w) == 0) {
			c = uatomic_cmpxchg(w, 0, 1);
			if (c == 0)
				return;
		}
	}
	futex_wait_lock_slow(w, uatomic_read(w));
}

static void fwa_destroy(void *l)
{
}

const struct bench_lock bench_lock_futex_wait_adaptive = {
	.name = "futex_wait_adaptive",
	.init = fwa_init,
	.lock = fwa_lock,
	.unlock = futex_wait_unlock,
	.destroy = fwa_destroy,
};
