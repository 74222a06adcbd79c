// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * spin.c - the spin phase a waiter may run before it goes to the kernel.
 *
 * Time is the cycle counter of cycles.h (no system call, no clock read,
 * whatever the clocksource); budgets come from setup.c and spin_tuning.h.
 * One waiter per mutex spins at a time, like the kernel's OSQ lets one
 * task spin on a mutex owner: the others block at once rather than bounce
 * the lock's cache line.  The spinner reads the word with exponential
 * backoff, takes it only when it reads exactly 0, and stops when:
 *   - its budget or the caller's deadline passes;
 *   - the word's owner died (the slow path reports it);
 *   - a starving waiter asked for the lock (m->handoff, see mutex_lock.c);
 *   - SPIN_OWNER_RUNNING: the provider says the owner is off its CPU, or on
 *     ours (then it waits for us); an owner the provider cannot tell about
 *     gets the blind budget.
 */
#include <sched.h>
#include <urcu/arch.h>

#include "cycles.h"
#include "mutex_impl.h"
#include "running_state.h"
#include "spin_tuning.h"

/*
 * The spin slot: m->spinner holds when the current spinner's phase ends,
 * as (cycles >> SLOT_SHIFT) truncated to 32 bits.  A slot whose end passed
 * is free, so a spinner that died (a process-shared mutex) never blocks
 * spinning for longer than one budget.  An end further ahead than any
 * budget (a wrapped or garbage value) counts as passed.
 */
#define SLOT_SHIFT	10

static int slot_busy(uint32_t slot, uint64_t now, uint64_t longest)
{
	int64_t left = (int32_t)(slot - (uint32_t)(now >> SLOT_SHIFT));

	return left > 0 && left <= (int64_t)(longest >> SLOT_SHIFT) + 2;
}

static int slot_claim(uspin_mutex_t *m, uint64_t now, uint64_t end,
		      uint64_t longest, uint32_t *mine)
{
	uint32_t cur = CMM_LOAD_SHARED(m->spinner);

	if (slot_busy(cur, now, longest))
		return 0;
	*mine = (uint32_t)(end >> SLOT_SHIFT) + 1;
	return uatomic_cmpxchg(&m->spinner, cur, *mine) == cur;
}

static void slot_release(uspin_mutex_t *m, uint32_t mine)
{
	uatomic_cmpxchg(&m->spinner, mine,
			(uint32_t)(uspin_cycles() >> SLOT_SHIFT));
}

static inline uint32_t estimate_of(const uspin_mutex_t *m)
{
	return mutex_flags(m) >> USPIN_ESTIMATE_SHIFT;
}

/* Replace the estimate bits, keeping every other bit of m->flags. */
static void estimate_store(uspin_mutex_t *m, uint32_t est)
{
	uint32_t old = mutex_flags(m), seen;

	for (;;) {
		uint32_t want = (old & ((1u << USPIN_ESTIMATE_SHIFT) - 1)) |
				(est << USPIN_ESTIMATE_SHIFT);

		if (want == old)
			return;
		seen = uatomic_cmpxchg(&m->flags, old, want);
		if (seen == old)
			return;
		old = seen;
	}
}

static inline void relax(unsigned int n)
{
	while (n--)
		caa_cpu_relax();
}

enum spin_end { SPIN_ACQUIRED, SPIN_TIMEOUT, SPIN_GAVE_UP, SPIN_OWNER_OFF };

int uspin_spin(uspin_mutex_t *m, uint32_t tid, enum uspin_spin_kind kind,
	       uint64_t deadline)
{
	const struct uspin_setup *s = uspin_setup();
	uint32_t est = estimate_of(m), v, slot, owner = 0;
	uint64_t unit = USPIN_ESTIMATE_UNIT, blind, start, end, now;
	unsigned int backoff = 1;
	enum spin_end how;
	int my_cpu = -1;

	blind = spin_budget(est, unit, s->spin_min, s->spin_max, 3);
	start = uspin_cycles();
	end = start + (kind == SPIN_OWNER_RUNNING ?
		       spin_budget(est, unit, s->spin_min, s->user_spin_max, 4) :
		       blind);
	if (deadline < end)
		end = deadline;
	if (end <= start)
		return 0;
	if (!slot_claim(m, start, end, s->user_spin_max, &slot)) {
		uspin_stats.spin_refused++;
		return 0;
	}
	uspin_stats.spin_phases++;

	for (;;) {
		v = CMM_LOAD_SHARED(m->word);
		if (v == 0) {
			if (uatomic_cmpxchg(&m->word, 0, tid) == 0) {
				how = SPIN_ACQUIRED;
				break;
			}
			continue;
		}
		if (!WORD_TID(v) || CMM_LOAD_SHARED(m->handoff)) {
			how = SPIN_GAVE_UP;
			break;
		}
		if (kind == SPIN_OWNER_RUNNING && WORD_TID(v) != owner) {
			uint32_t e = uspin_rs_entry(WORD_TID(v));

			owner = WORD_TID(v);
			if (e == USPIN_RS_ENTRY_OFF) {
				how = SPIN_OWNER_OFF;
				break;
			}
			if (e == USPIN_RS_ENTRY_UNKNOWN) {
				/* Nothing to go on: spin no longer than blind. */
				if (start + blind < end)
					end = start + blind;
			} else {
				if (my_cpu < 0)
					my_cpu = sched_getcpu();
				if ((int)(e - USPIN_RS_ENTRY_CPU0) == my_cpu) {
					how = SPIN_OWNER_OFF;
					break;
				}
			}
		} else if (kind == SPIN_OWNER_RUNNING &&
			   uspin_rs_entry(owner) == USPIN_RS_ENTRY_OFF) {
			how = SPIN_OWNER_OFF;
			break;
		}
		relax(backoff);
		backoff = spin_backoff_next(backoff);
		now = uspin_cycles();
		if (now >= end) {
			how = now >= deadline ? SPIN_GAVE_UP : SPIN_TIMEOUT;
			break;
		}
	}
	slot_release(m, slot);

	now = uspin_cycles() - start;
	switch (how) {
	case SPIN_ACQUIRED:
		uspin_stats.spin_acquired++;
		uspin_stats.spin_cycles_acquired += now;
		estimate_store(m, spin_estimate_success(est, now, unit));
		return 1;
	case SPIN_TIMEOUT:
		/* The wait outlasted the budget: learn that holds are long. */
		estimate_store(m, spin_estimate_failure(est));
		break;
	case SPIN_OWNER_OFF:
		uspin_stats.spin_owner_off++;
		break;
	case SPIN_GAVE_UP:
		break;
	}
	uspin_stats.spin_cycles_wasted += now;
	return 0;
}
