// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * cond_signal.c - signal and broadcast.
 *
 * Both do their bookkeeping under the internal lock and their futex call
 * after it.  Where the caller holds the waiters' mutex (private condvars,
 * which know it), the woken waiters are requeued onto the mutex word with
 * FUTEX_WAITERS set first: they sleep on until the caller unlocks, and
 * then run one after another as the mutex is handed on, never waking only
 * to block on the mutex again.  Otherwise a signal wakes one waiter, and a
 * broadcast wakes one and leaves the rest to be requeued by the first
 * waiter that holds the mutex again (the "duty" in state).
 */
#include "cond_impl.h"
#include "mutex_flags.h"

/*
 * Under the lock: the waiters' mutex, if the caller holds it and waiters
 * can be requeued onto it from seq[] (same futex flavour).
 */
static uspin_mutex_t *owned_mutex(const uspin_cond_t *c)
{
	uspin_mutex_t *m = c->mutex;

	if ((c->state & (STATE_REQUEUE_OK | STATE_MIXED)) != STATE_REQUEUE_OK ||
	    (c->wrefs & COND_SHARED) || !m ||
	    !(c->state & STATE_FUTEX_SHARED) != !mutex_futex_shared(m))
		return NULL;
	return uspin_mutex_owned(m) ? m : NULL;
}

/*
 * Move every sleeper of seq[@slot] onto @m, which the caller holds with
 * FUTEX_WAITERS set.  Whoever sleeps there then is woken by the unlocks
 * of @m (a waiter that was not signalled passes the wake-up on).
 */
static void requeue_all(uspin_cond_t *c, unsigned int slot, uspin_mutex_t *m,
			int shared)
{
	int r;

	do
		r = futex_requeue_to(&c->seq[slot],
				     CMM_LOAD_SHARED(c->seq[slot]), &m->word,
				     INT_MAX, shared);
	while (r == EAGAIN);
	if (r)
		futex_wake(&c->seq[slot], INT_MAX, shared);
}

int uspin_cond_signal_internal(uspin_cond_t *c)
{
	uint32_t val;
	uspin_mutex_t *m;
	unsigned int slot;
	int shared;

	if (cond_members(c) == 0)
		return 0;
	uspin_self_tid();	/* cached outside the lock: owned_mutex() asks */
	cond_lock(c);
	if (!c->g1_unsignalled) {
		if (!c->g2_size) {
			cond_unlock(c);
			return 0;
		}
		/* G1 is all signalled: G2 becomes G1. */
		c->g1_unsignalled = c->g2_size;
		c->g1_pending = 0;
		c->g2_size = 0;
		c->gen++;
	}
	c->g1_unsignalled--;
	c->g1_pending++;
	slot = (unsigned int)(c->gen - 1) & 1;
	val = c->seq[slot] + 1;
	CMM_STORE_SHARED(c->seq[slot], val);
	shared = (c->state & STATE_FUTEX_SHARED) != 0;
	m = owned_mutex(c);
	cond_unlock(c);

	if (m) {
		uatomic_or(&m->word, FUTEX_WAITERS);
		if (futex_requeue_to(&c->seq[slot], val, &m->word, 1, shared) == 0)
			return 0;
	}
	futex_wake(&c->seq[slot], 1, shared);
	return 0;
}

int uspin_cond_signal(uspin_cond_t *c)
{
	if (!c)
		return EINVAL;
	return uspin_cond_signal_internal(c);
}

int uspin_cond_broadcast(uspin_cond_t *c)
{
	unsigned int slots = 0, g1slot, s;
	uspin_mutex_t *m;
	int shared;

	if (!c)
		return EINVAL;
	if (cond_members(c) == 0)
		return 0;
	uspin_self_tid();	/* cached outside the lock: owned_mutex() asks */
	cond_lock(c);
	g1slot = (unsigned int)(c->gen - 1) & 1;
	if (c->g1_unsignalled)
		slots |= 1u << g1slot;
	if (c->g2_size)
		slots |= 1u << (g1slot ^ 1);
	if (!slots) {
		cond_unlock(c);
		return 0;
	}
	/* Both groups are signalled: they are older than the new G1. */
	c->gen += 2;
	c->g1_unsignalled = 0;
	c->g1_pending = 0;
	c->g2_size = 0;
	for (s = 0; s < 2; s++)
		if (slots & (1u << s))
			CMM_STORE_SHARED(c->seq[s], c->seq[s] + 1);
	shared = (c->state & STATE_FUTEX_SHARED) != 0;
	m = owned_mutex(c);
	if (!m)
		c->state |= slots * STATE_DUTY(0);
	cond_unlock(c);

	if (m) {
		uatomic_or(&m->word, FUTEX_WAITERS);
		for (s = 0; s < 2; s++)
			if (slots & (1u << s))
				requeue_all(c, s, m, shared);
		return 0;
	}
	/* One waiter (the oldest group's) takes the duty to requeue the rest. */
	futex_wake(&c->seq[slots & (1u << g1slot) ? g1slot : g1slot ^ 1], 1,
		   shared);
	return 0;
}

/* The duty a broadcast left: requeue onto @m (held, if not NULL) or wake. */
void uspin_cond_do_duty(uspin_cond_t *c, unsigned int duty, uspin_mutex_t *m,
			int shared)
{
	unsigned int s;

	if (m)
		uatomic_or(&m->word, FUTEX_WAITERS);
	for (s = 0; s < 2; s++) {
		if (!(duty & STATE_DUTY(s)))
			continue;
		if (m)
			requeue_all(c, s, m, shared);
		else
			futex_wake(&c->seq[s], INT_MAX, shared);
	}
}
