// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * futex_lock.c - the raw FUTEX_LOCK and FUTEX_LOCK_ADAPTIVE ops of the
 * patched kernel (kernel/patches), driven directly as the 2010 series'
 * futex_lock test did: user-space fast paths on the TID word, the kernel
 * queues (and, adaptive, spins) on contention.  The two differ only in the
 * op, so they share this file.
 *
 * Their unlock is the 2010 one (clear the word, FUTEX_WAKE one: a woken
 * waiter retries and may lose, the lock never waits for it).
 * futex_lock_unlock and futex_lock_adaptive_unlock unlock with
 * FUTEX_UNLOCK instead, as libuspin does, so a starving waiter is handed
 * the lock (the anti-starvation rule, docs/kernel-futex.md): the kernel's
 * locks with the same fairness as the library.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <urcu/uatomic.h>

#include "futex_lock_abi.h"
#include "futex_sys.h"
#include "lock.h"

/* errno of a probe acquire, or 0: once per op, before any thread starts. */
static const char *fl_probe_op(int op, const char *opname)
{
	static char why[2][96];
	uint32_t word = 0;
	char *buf = why[op == USPIN_FUTEX_LOCK_ADAPTIVE];

	if (bench_futex(&word, op, 0) != 0) {
		snprintf(buf, sizeof(why[0]), "%s absent on this kernel (%s)",
			 opname, strerror(errno));
		return buf;
	}
	if ((word & FUTEX_TID_MASK) != bench_tid()) {
		snprintf(buf, sizeof(why[0]),
			 "%s returned 0 but did not take the word", opname);
		return buf;
	}
	return NULL;
}

static const char *fl_probe(void)
{
	return fl_probe_op(USPIN_FUTEX_LOCK, "FUTEX_LOCK");
}

static const char *fla_probe(void)
{
	return fl_probe_op(USPIN_FUTEX_LOCK_ADAPTIVE, "FUTEX_LOCK_ADAPTIVE");
}

static int fl_init(void *l)
{
	*(uint32_t *)l = 0;
	return 0;
}

static void fl_lock_op(uint32_t *w, int op)
{
	while (uatomic_cmpxchg(w, 0, bench_tid()) != 0) {
		if (bench_futex(w, op, 0) == 0)
			return;
		if (errno != EINTR && errno != EAGAIN) {
			perror("uspin-bench: FUTEX_LOCK");
			abort();
		}
	}
}

static void fl_lock(void *l)
{
	fl_lock_op(l, USPIN_FUTEX_LOCK);
}

static void fla_lock(void *l)
{
	fl_lock_op(l, USPIN_FUTEX_LOCK_ADAPTIVE);
}

static void fl_unlock(void *l)
{
	bench_tid_word_unlock(l);
}

static const char *unlock_probe(const char *why)
{
	uint32_t word = bench_tid();

	if (why)
		return why;
	if (bench_futex(&word, USPIN_FUTEX_UNLOCK, 0) != 0)
		return "FUTEX_UNLOCK absent on this kernel";
	return word == 0 ? NULL : "FUTEX_UNLOCK did not release the word";
}

static const char *flu_probe(void)
{
	return unlock_probe(fl_probe());
}

static const char *flau_probe(void)
{
	return unlock_probe(fla_probe());
}

/* Contended: the kernel releases the word or hands it to a starving waiter. */
static void fl_unlock_kernel(void *l)
{
	uint32_t *w = l;

	if (uatomic_cmpxchg(w, bench_tid(), 0) == bench_tid())
		return;
	if (bench_futex(w, USPIN_FUTEX_UNLOCK, 0) != 0) {
		perror("uspin-bench: FUTEX_UNLOCK");
		abort();
	}
}

static void fl_destroy(void *l)
{
}

const struct bench_lock bench_lock_futex_lock = {
	.name = "futex_lock",
	.probe = fl_probe,
	.init = fl_init,
	.lock = fl_lock,
	.unlock = fl_unlock,
	.destroy = fl_destroy,
};

const struct bench_lock bench_lock_futex_lock_adaptive = {
	.name = "futex_lock_adaptive",
	.probe = fla_probe,
	.init = fl_init,
	.lock = fla_lock,
	.unlock = fl_unlock,
	.destroy = fl_destroy,
};

const struct bench_lock bench_lock_futex_lock_unlock = {
	.name = "futex_lock_unlock",
	.probe = flu_probe,
	.init = fl_init,
	.lock = fl_lock,
	.unlock = fl_unlock_kernel,
	.destroy = fl_destroy,
};

const struct bench_lock bench_lock_futex_lock_adaptive_unlock = {
	.name = "futex_lock_adaptive_unlock",
	.probe = flau_probe,
	.init = fl_init,
	.lock = fla_lock,
	.unlock = fl_unlock_kernel,
	.destroy = fl_destroy,
};
