// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * spin.c - the spin phase a waiter may run before it goes to the kernel,
 * and the unlocker's side of it: leaving the word to a spinner rather
 * than waking a sleeper.
 *
 * USER_ADAPTIVE spins while the owner is on a CPU, as the kernel's
 * mutex_spin_on_owner() does, with no time budget of its own.  It stops
 * when:
 *   - the provider says the owner is off its CPU, or on ours (it waits for
 *     us), or the word names a new owner that is off, or an owner it saw
 *     on a CPU now reads unknown (it exited, its TID was reused, the
 *     provider died);
 *   - the kernel would preempt the spinner now (cpu_wanted.h: a slice
 *     extension grant, the user-space need_resched()), or the spinner was
 *     descheduled already: the kernel withdrew its extension request, or,
 *     where nothing says so, two reads of the word further apart than
 *     preempt_gap;
 *   - other tasks are runnable on the spinner's CPU (the BPF provider's
 *     run queues) and the spin outlasted twice this mutex's typical
 *     contended hold (a streaming median its owners measure; at most
 *     shared_spin_max): a free CPU is spun on while the owner runs, a
 *     wanted one only as long as a hold of this mutex usually lasts, so
 *     that a rare long hold does not take the CPU from others.  Waits
 *     would be the wrong measure: a spinner mostly arrives during the long
 *     holds, and only learns the short waits it survives;
 *   - the caller's deadline passes, a starving waiter asked for the lock
 *     (m->handoff), or the owner died (the slow path reports it);
 *   - the safety cap passes (USPIN_SPIN_CAP_US; none with 0).
 * An owner the provider cannot tell about gets the blind budget.  The
 * controls of the evaluation share all of this but the rule that ends the
 * spin: SPIN_OWNER_LEARNED ends at v2's learned budget, SPIN_CAPPED never
 * looks at the running state, SPIN_BOUNDED does neither.  In shadow mode
 * (USPIN_SHADOW=1) the two blind kinds look it up on every read, as
 * USER_ADAPTIVE does, and only count the spin from the first sight of an
 * owner that user-adaptive would have stopped for: the saving the running
 * state offers at that point, measured by the spinner that lacks it.
 *
 * Time is the cycle counter of cycles.h (no system call, no clock read,
 * whatever the clocksource); budgets come from setup.c and spin_tuning.h.
 * The spinner reads the word with exponential backoff and takes it as
 * soon as its TID part is 0.
 */
#include <sched.h>
#include <urcu/arch.h>

#include "cpu_wanted.h"
#include "cycles.h"
#include "mutex_flags.h"
#include "policy.h"
#include "running_state.h"
#include "setup.h"
#include "slow_stats.h"
#include "spin.h"
#include "spin_tuning.h"
#include "spinners.h"

static inline uint32_t estimate_of(const uspin_mutex_t *m)
{
	return mutex_flags(m) >> USPIN_ESTIMATE_SHIFT;
}

static inline uint32_t hold_of(const uspin_mutex_t *m)
{
	return mutex_flags(m) >> USPIN_HOLD_SHIFT & USPIN_HOLD_MASK;
}

/* Replace @mask << @shift of m->flags by @val, keeping every other bit. */
static void flags_field_store(uspin_mutex_t *m, unsigned int shift,
			      uint32_t mask, uint32_t val)
{
	uint32_t old = mutex_flags(m), seen;

	for (;;) {
		uint32_t want = (old & ~(mask << shift)) | (val & mask) << shift;

		if (want == old)
			return;
		seen = uatomic_cmpxchg(&m->flags, old, want);
		if (seen == old)
			return;
		old = seen;
	}
}

static void estimate_store(uspin_mutex_t *m, uint32_t est)
{
	flags_field_store(m, USPIN_ESTIMATE_SHIFT, SPIN_ESTIMATE_MAX, est);
}

void uspin_hold_begin(uspin_mutex_t *m)
{
	uspin_thread.held.m = m;
	uspin_thread.held.since = uspin_cycles();
	uspin_thread.unlock_work |= USPIN_UNLOCK_HOLD;
}

void uspin_hold_end(uspin_mutex_t *m)
{
	if (uspin_thread.held.m != m)
		return;
	uspin_thread.held.m = NULL;
	uspin_thread.unlock_work &= ~USPIN_UNLOCK_HOLD;
	flags_field_store(m, USPIN_HOLD_SHIFT, USPIN_HOLD_MASK,
			  spin_hold_update(hold_of(m),
					   uspin_cycles() - uspin_thread.held.since));
}

static inline void relax(unsigned int n)
{
	while (n--)
		caa_cpu_relax();
}

/*
 * A free word not left by a dead owner (the slow path reports that).  Even
 * with a handoff request pending: a free word may have been left to us
 * (uspin_pass_to_spinner()), and our unlock serves the request first.
 */
static int take_free(uspin_mutex_t *m, uint32_t v, uint32_t take)
{
	return !WORD_TID(v) && !(v & FUTEX_OWNER_DIED) &&
	       uatomic_cmpxchg(&m->word, v, v | take) == v;
}

enum spin_end {
	SPIN_ON,		/* nothing stopped the spin (spin_tick()) */
	SPIN_ACQUIRED,
	SPIN_BUDGET,		/* a learned budget or the cap passed */
	SPIN_GAVE_UP,		/* deadline, handoff request, dead owner */
	SPIN_OWNER_OFF,
	SPIN_PREEMPTED,		/* the spinner itself was descheduled */
	SPIN_CPU_WANTED,	/* the kernel would preempt the spinner */
	SPIN_CPU_SHARED,	/* others want its CPU: the budget for that ran out */
};

/*
 * Would USER_ADAPTIVE stop for the owner @tid now?  Off its CPU, or on
 * ours (it waits for us); @my_cpu is looked up once, when first needed.
 */
static int owner_stops_informed(uint32_t tid, int *my_cpu)
{
	uint32_t e = uspin_rs_entry(tid);

	if (e == USPIN_RS_ENTRY_OFF)
		return 1;
	if (e == USPIN_RS_ENTRY_UNKNOWN)
		return 0;
	if (!uspin_rs_view.has_cpu)
		return 0;
	if (*my_cpu < 0)
		*my_cpu = sched_getcpu();
	return uspin_rs_entry_on_cpu(e, *my_cpu);
}

/* Where a spin of @kind ends unless something stops it first. */
static uint64_t spin_end_of(enum uspin_spin_kind kind, uint64_t start,
			    uint64_t blind, uint32_t est)
{
	const struct uspin_setup *s = uspin_setup();

	switch (kind) {
	case SPIN_OWNER_LEARNED:
		return start + spin_budget(est, USPIN_ESTIMATE_UNIT, s->spin_min,
					   s->user_spin_max, 4);
	case SPIN_OWNER_RUNNING:
	case SPIN_CAPPED:
		return s->spin_cap ? start + s->spin_cap : UINT64_MAX;
	case SPIN_NONE:
	case SPIN_BOUNDED:
		break;
	}
	return start + blind;
}

/*
 * The spinner's view of the owner @tid in the informed kinds: 1 to stop
 * spinning (off its CPU, on ours, or gone after it was seen on one: an
 * owner that exited, a TID reused, a provider that died), else 0, with
 * *@end capped at the blind budget for an owner nobody can tell about.
 */
struct owner_watch {
	uint32_t tid;		/* the owner looked at, 0: none yet */
	int seen_on;		/* the provider said ON for it */
	int my_cpu;		/* looked up once, when first needed */
};

static int owner_stops(struct owner_watch *o, uint32_t tid, uint64_t *end,
		       uint64_t blind_end)
{
	uint32_t e = uspin_rs_entry(tid);

	if (tid != o->tid) {
		o->tid = tid;
		o->seen_on = 0;
		if (e == USPIN_RS_ENTRY_UNKNOWN && blind_end < *end)
			*end = blind_end;	/* nothing to go on */
	}
	if (e == USPIN_RS_ENTRY_OFF)
		return 1;
	if (e == USPIN_RS_ENTRY_UNKNOWN)
		return o->seen_on;
	if (!o->seen_on && uspin_rs_view.has_cpu) {
		if (o->my_cpu < 0)
			o->my_cpu = sched_getcpu();
		if (uspin_rs_entry_on_cpu(e, o->my_cpu))
			return 1;
	}
	o->seen_on = 1;
	return 0;
}

/*
 * What stops any spinner, head or queued, before the end of its budget:
 * the kernel would preempt it (a grant), the budget for a CPU others
 * want ran out, it was descheduled, the deadline or the budget passed.
 * SPIN_ON to go on.
 */
struct spin_clock {
	uint64_t start, end, deadline, prev, wanted_end, shared_budget;
	struct uspin_cpu_want want;
	unsigned int backoff;
};

static enum spin_end spin_tick(struct spin_clock *c)
{
	const struct uspin_setup *s = uspin_setup();
	enum uspin_cpu_demand demand = uspin_cpu_wanted(&c->want);
	uint64_t now;

	if (demand == CPU_RESCHED)
		return SPIN_CPU_WANTED;
	if (demand == CPU_TAKEN)
		return SPIN_PREEMPTED;
	if (demand == CPU_SHARED && c->wanted_end == UINT64_MAX)
		c->wanted_end = uspin_cycles() + c->shared_budget;
	relax(c->backoff);
	c->backoff = spin_backoff_next(c->backoff);
	now = uspin_cycles();
	if (now >= c->wanted_end)
		return SPIN_CPU_SHARED;
	if (now - c->prev > s->preempt_gap)
		return SPIN_PREEMPTED;
	c->prev = now;
	if (now >= c->end)
		return now >= c->deadline ? SPIN_GAVE_UP : SPIN_BUDGET;
	return SPIN_ON;
}

/*
 * A queued spinner waits on its own node for its turn, looking neither at
 * the word nor at the owner (the head does).  It leaves the queue when
 * the one ahead is off its CPU (the turn would wait for it), or for what
 * stops any spinner.  SPIN_ON once it is the head.
 */
static enum spin_end wait_turn(struct uspin_spinner *sp, struct spin_clock *c)
{
	enum spin_end how;

	for (;;) {
		if (uspin_spinner_turn(sp))
			return SPIN_ON;
		if (uspin_rs_query(uspin_spinner_ahead(sp)) == USPIN_RS_OFF)
			how = SPIN_OWNER_OFF;
		else
			how = spin_tick(c);
		if (how != SPIN_ON)
			break;
	}
	/* The turn may come while we leave: then leave as the head. */
	if (uspin_spinner_unqueue(sp))
		uspin_spinner_leave(sp);
	return how;
}

int uspin_spin(uspin_mutex_t *m, uint32_t take, enum uspin_spin_kind kind,
	       uint64_t deadline)
{
	const struct uspin_setup *s = uspin_setup();
	int informed = kind == SPIN_OWNER_RUNNING || kind == SPIN_OWNER_LEARNED;
	int shadow = !informed && s->shadow;
	int my_cpu = -1;
	uint32_t est = estimate_of(m), v, tid = WORD_TID(take) & ~USPIN_WORD_SHARED;
	uint64_t blind, now, off_since = 0;
	struct owner_watch watch = { .my_cpu = -1 };
	enum uspin_spinner_state place;
	struct uspin_spinner sp;
	struct spin_clock c;
	enum spin_end how;

	blind = spin_budget(est, USPIN_ESTIMATE_UNIT, s->spin_min, s->spin_max, 3);
	c.start = uspin_cycles();
	c.end = spin_end_of(kind, c.start, blind, est);
	c.deadline = deadline;
	if (deadline < c.end)
		c.end = deadline;
	if (c.end <= c.start)
		return 0;
	place = uspin_spinner_enter(&sp, m, tid);
	if (place == SPINNER_REFUSED) {
		uspin_stats.spin_refused++;
		return 0;
	}
	uspin_stats.spin_phases++;
	c.prev = c.start;
	c.backoff = 1;
	c.wanted_end = UINT64_MAX;
	c.shared_budget = spin_clamp(2 * spin_hold_cycles(hold_of(m)),
				     s->spin_min, s->shared_spin_max);
	uspin_cpu_want_begin(&c.want);
	if (place == SPINNER_QUEUED) {
		how = wait_turn(&sp, &c);
		if (how != SPIN_ON)
			goto stopped;
	}
	c.backoff = 1;

	for (;;) {
		v = CMM_LOAD_SHARED(m->word);
		if (!WORD_TID(v)) {
			if (take_free(m, v, take)) {
				how = SPIN_ACQUIRED;
				break;
			}
			if (v & FUTEX_OWNER_DIED) {
				how = SPIN_GAVE_UP;
				break;
			}
			continue;
		}
		if (mutex_handoff_request(m)) {
			how = SPIN_GAVE_UP;
			break;
		}
		/* The owner's TID, without a shared word's mark (owner.c). */
		v = WORD_TID(v) & ~USPIN_WORD_SHARED;
		if (shadow && !off_since && owner_stops_informed(v, &my_cpu))
			off_since = uspin_cycles();
		if (informed && owner_stops(&watch, v, &c.end, c.start + blind)) {
			how = SPIN_OWNER_OFF;
			break;
		}
		how = spin_tick(&c);
		if (how != SPIN_ON)
			break;
		uspin_spinner_alive(&sp, c.prev);
	}
	uspin_spinner_leave(&sp);
stopped:
	uspin_cpu_want_end(&c.want);
	/*
	 * An unlocker may have left the word to us just as we stopped (see
	 * uspin_pass_to_spinner()): a free word is ours to take, whatever
	 * stopped us, or the sleepers would sleep on a free word.
	 */
	if (how != SPIN_ACQUIRED && take_free(m, CMM_LOAD_SHARED(m->word), take))
		how = SPIN_ACQUIRED;

	if (off_since) {
		uspin_stats.shadow_off_phases++;
		uspin_stats.shadow_cycles_off += uspin_cycles() - off_since;
	}
	now = uspin_cycles() - c.start;
	switch (how) {
	case SPIN_ACQUIRED:
		uspin_stats.spin_acquired++;
		uspin_stats.spin_cycles_acquired += now;
		estimate_store(m, spin_estimate_success(est, now,
							USPIN_ESTIMATE_UNIT));
		return 1;
	case SPIN_BUDGET:
		uspin_stats.spin_budget_ended++;
		/* A learned budget ran out: learn that holds are long. */
		if (kind == SPIN_BOUNDED || kind == SPIN_OWNER_LEARNED ||
		    c.end == c.start + blind)
			estimate_store(m, spin_estimate_failure(est));
		break;
	case SPIN_OWNER_OFF:
		uspin_stats.spin_owner_off++;
		break;
	case SPIN_PREEMPTED:
		uspin_stats.spin_preempted++;
		break;
	case SPIN_CPU_WANTED:
	case SPIN_CPU_SHARED:
		uspin_stats.spin_cpu_wanted++;
		break;
	case SPIN_ON:		/* not an end */
	case SPIN_GAVE_UP:
		break;
	}
	uspin_stats.spin_cycles_wasted += now;
	return 0;
}
