/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * futex_sys.h - the futex calls the hand-made contenders use, and the
 * caller's TID, cached.  Kept apart so the lock files read like the
 * algorithms; the system calls themselves are tests/sys_util.h's.
 */
#ifndef BENCH_FUTEX_SYS_H
#define BENCH_FUTEX_SYS_H

#include <errno.h>
#include <linux/futex.h>
#include <stdint.h>
#include <urcu/uatomic.h>

#include "../../tests/sys_util.h"

static inline long bench_futex(uint32_t *uaddr, int op, uint32_t val)
{
	return sys_futex(uaddr, op | FUTEX_PRIVATE_FLAG, val, NULL);
}

static inline void bench_futex_wait(uint32_t *uaddr, uint32_t val)
{
	/* EAGAIN (word changed) and EINTR both mean: look again. */
	bench_futex(uaddr, FUTEX_WAIT, val);
}

static inline void bench_futex_wake(uint32_t *uaddr, uint32_t nr)
{
	bench_futex(uaddr, FUTEX_WAKE, nr);
}

/* gettid() is a syscall; the lock paths read this per-thread copy. */
extern __thread uint32_t bench_tid_cache;

static inline uint32_t bench_tid(void)
{
	if (__builtin_expect(bench_tid_cache == 0, 0))
		bench_tid_cache = sys_gettid();
	return bench_tid_cache;
}

/*
 * Unlock of a TID|FUTEX_WAITERS word (futex_wait_tid, futex_lock*): CAS
 * TID -> 0 when nobody waits, else clear the word and wake one waiter,
 * which retries (and re-sets WAITERS if others still wait).
 */
static inline void bench_tid_word_unlock(uint32_t *w)
{
	uint32_t tid = bench_tid();

	if (uatomic_cmpxchg(w, tid, 0) == tid)
		return;
	uatomic_xchg(w, 0);
	bench_futex_wake(w, 1);
}

#endif /* BENCH_FUTEX_SYS_H */
