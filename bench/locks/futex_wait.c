// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * futex_wait.c - the classic three-state futex mutex (Drepper, "Futexes Are
 * Tricky", mutex 3): 0 free, 1 locked, 2 locked with possible waiters.
 * The 2010 series' "futex_wait" baseline; its word carries no owner, so no
 * one can tell whether the owner runs.
 */
#include <urcu/uatomic.h>

#include "futex_sys.h"
#include "futex_wait.h"
#include "lock.h"

/* Shared with futex_wait_adaptive.c, which only adds a spin before it. */
void futex_wait_lock_slow(uint32_t *w, uint32_t c)
{
	if (c != 2)
		c = uatomic_xchg(w, 2);
	while (c != 0) {
		bench_futex_wait(w, 2);
		c = uatomic_xchg(w, 2);
	}
}

static int fw_init(void *l)
{
	*(uint32_t *)l = 0;
	return 0;
}

static void fw_lock(void *l)
{
	uint32_t c = uatomic_cmpxchg((uint32_t *)l, 0, 1);

	if (c != 0)
		futex_wait_lock_slow(l, c);
}

void futex_wait_unlock(void *l)
{
	uint32_t *w = l;

	/* 1 -> 0 needs no syscall; from 2 someone may sleep. */
	if (uatomic_add_return(w, -1) != 0) {
		uatomic_set(w, 0);
		bench_futex_wake(w, 1);
	}
}

static void fw_destroy(void *l)
{
}

const struct bench_lock bench_lock_futex_wait = {
	.name = "futex_wait",
	.init = fw_init,
	.lock = fw_lock,
	.unlock = futex_wait_unlock,
	.destroy = fw_destroy,
};
