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
 *     extension grant, the user-space need_resched()); or, where it
 *     cannot say, the spinner was descheduled already: two reads of the
 *     word further apart than preempt_gap;
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
#include "mutex_impl.h"
#include "running_state.h"
#include "spin_tuning.h"

/*
 * m->spinner: bits 0-7 count the spin phases under way, at most
 * max_spinners (CPUs - 1, as many as can run beside the owner).  The
 * kernel's OSQ queues spinners in order behind one that spins on the
 * owner, but it relies on preemption being off while queued; in user
 * space a queued spinner can be preempted and stall everyone behind it,
 * so spinners here are a bounded, unordered set that polls the word with
 * backoff.
 *
 * Private mutexes: bits 8-29 hold the TID of one spinner, the lead (the
 * first to enter while there was none; 0 once it left), so that an
 * unlocker can ask the running-state provider whether a spinner runs
 * before it leaves the word to one (uspin_pass_to_spinner()); the time
 * since when unlockers have been passing sleepers over for spinners (the
 * starvation bound) is in robust_next, on the cycle counter.  A fork
 * child's first slow path clears all of it (claims.c).
 *
 * Shared mutexes, which never pass sleepers over: bits 8-31 hold a time on
 * the cycle counter, in STAMP_UNITs, when a spinner last entered or said
 * it is alive, so that the count of a process killed while spinning lapses
 * after STALE_AFTER instead of keeping others from spinning.
 */
#define SPINNERS_MASK		0xffu
#define LEAD_SHIFT		8
#define LEAD_MASK		0x3fffffu	/* TIDs < 2^22 (PID_MAX_LIMIT) */
#define STAMP_SHIFT		8
#define STAMP_MASK		0xffffffu
#define STAMP_UNIT_SHIFT	14	/* 16384 cycles: ~5-8 us */
#define STALE_AFTER_US		1000000u
#define ALIVE_EVERY_US		(STALE_AFTER_US / 4)

static inline uint32_t spinners_of(uint32_t s)
{
	return s & SPINNERS_MASK;
}

static inline uint32_t stamp_of(uint32_t s)
{
	return s >> STAMP_SHIFT;
}

static uint32_t stamp_now(void)
{
	uint32_t st = (uint32_t)(uspin_cycles() >> STAMP_UNIT_SHIFT) & STAMP_MASK;

	return st ? st : 1;
}

/* Age of a non-zero stamp in cycles (the stamp wraps in minutes). */
static uint64_t stamp_age(uint32_t st)
{
	return (uint64_t)((stamp_now() - st) & STAMP_MASK) << STAMP_UNIT_SHIFT;
}

static inline uint64_t us_to_cycles(uint64_t us)
{
	return us * uspin_setup()->cycles_per_us;
}

static inline uint32_t lead_of(uint32_t s)
{
	return s >> LEAD_SHIFT & LEAD_MASK;
}

/* Count one more spinner; a private mutex's may become the lead. */
static int spinners_enter(uspin_mutex_t *m, int shared, uint32_t tid)
{
	unsigned int max = uspin_setup()->max_spinners;
	uint32_t s = CMM_LOAD_SHARED(m->spinner), n, seen;

	for (;;) {
		uint32_t count = spinners_of(s), st = stamp_of(s);

		if (shared && count && (!st ||
		    stamp_age(st) > us_to_cycles(STALE_AFTER_US)))
			count = 0;	/* spinners that died */
		if (count >= max)
			return 0;
		if (shared)
			n = stamp_now() << STAMP_SHIFT | (count + 1);
		else if (!lead_of(s) && tid <= LEAD_MASK)
			n = tid << LEAD_SHIFT | (count + 1);
		else
			n = s + 1;
		seen = uatomic_cmpxchg(&m->spinner, s, n);
		if (seen == s)
			return 1;
		s = seen;
	}
}

/*
 * Full barrier (a successful cmpxchg): pairs with uspin_pass_to_spinner().
 * A private mutex's lead leaves its place empty.
 */
static void spinners_leave(uspin_mutex_t *m, int shared, uint32_t tid)
{
	uint32_t s = CMM_LOAD_SHARED(m->spinner), n, seen;

	while (spinners_of(s)) {
		n = s - 1;
		if (!shared && lead_of(s) == tid)
			n &= SPINNERS_MASK;
		seen = uatomic_cmpxchg(&m->spinner, s, n);
		if (seen == s)
			return;
		s = seen;
	}
	cmm_smp_mb();	/* a lapsed count was reset under us */
}

/* A shared mutex's long spinner says it is alive (see STALE_AFTER_US). */
static void spinners_alive(uspin_mutex_t *m)
{
	uint32_t s = CMM_LOAD_SHARED(m->spinner);

	if (spinners_of(s))
		uatomic_cmpxchg(&m->spinner, s,
				stamp_now() << STAMP_SHIFT | spinners_of(s));
}

/*
 * The passing-over stamp of a private mutex (robust_next, see above):
 * only its owner reads and writes it, at its unlock.
 */
static uint64_t pass_over_since(uspin_mutex_t *m)
{
	return (uint64_t)(uintptr_t)CMM_LOAD_SHARED(m->robust_next);
}

static void pass_over_set(uspin_mutex_t *m, uint64_t since)
{
	CMM_STORE_SHARED(m->robust_next, (void *)(uintptr_t)since);
}

/*
 * Called by the owner of a private mutex whose word has FUTEX_WAITERS set
 * (the handoff request and a dead owner are served before).  If a waiter
 * spins and runs, leave the word free with FUTEX_WAITERS, so the spinner
 * takes it and wakes a sleeper at its own unlock, instead of paying for a
 * wake-up now and a sleeper's late start.  Sleepers are passed over for at
 * most handoff_after at a time: then the normal path wakes one (or the
 * kernel hands the lock over), as a starving FUTEX_WAIT waiter would ask.
 *
 * Runs means: the provider says the lead spinner is on a CPU.  A spinner
 * that is preempted (or a provider that cannot tell) gets nothing: the word
 * would lie free while it is off its CPU and the sleepers sleep.  Then the
 * normal path wakes a sleeper, and a spinner that runs may still take the
 * word first.
 *
 * Shared and robust mutexes never pass: a spinner killed after the word
 * was left to it would leave the sleepers asleep on a free word.
 *
 * The store of the word and the read of the count pair with the spinner's
 * decrement and its read of the word (spinners_leave(), then
 * uspin_spin()'s last look): either the unlocker sees the spinner gone
 * and takes the word back to wake someone, or the spinner sees the word
 * free and takes it.
 */
int uspin_pass_to_spinner(uspin_mutex_t *m, uint32_t tid)
{
	uint32_t s = CMM_LOAD_SHARED(m->spinner), lead = lead_of(s);
	uint64_t since = pass_over_since(m), now;

	if (!spinners_of(s) || !lead || uspin_rs_query(lead) != USPIN_RS_ON) {
		if (since)
			pass_over_set(m, 0);
		return 0;
	}
	now = uspin_cycles();
	if (!since) {
		pass_over_set(m, now | 1);
	} else if (now - since >= uspin_setup()->handoff_after) {
		pass_over_set(m, 0);
		return 0;
	}
	uatomic_xchg(&m->word, FUTEX_WAITERS);
	/* Every spinner left meanwhile: take the word back to wake someone. */
	if (!spinners_of(CMM_LOAD_SHARED(m->spinner)) &&
	    uatomic_cmpxchg(&m->word, FUTEX_WAITERS,
			    tid | FUTEX_WAITERS) == FUTEX_WAITERS)
		return 0;
	uspin_stats.passed_to_spinner++;
	return 1;
}

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

/*
 * The typical contended hold (spin_tuning.h): timed by an owner from its
 * slow-path acquisition to its unlock; the fast unlock forgets a timing
 * (internal.h), so a hold begun by a fast lock is never measured.
 */
USPIN_TLS struct uspin_held uspin_held;

void uspin_hold_begin(uspin_mutex_t *m)
{
	uspin_held.m = m;
	uspin_held.since = uspin_cycles();
}

void uspin_hold_end(uspin_mutex_t *m)
{
	if (uspin_held.m != m)
		return;
	uspin_held.m = NULL;
	flags_field_store(m, USPIN_HOLD_SHIFT, USPIN_HOLD_MASK,
			  spin_hold_update(hold_of(m),
					   uspin_cycles() - uspin_held.since));
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

int uspin_spin(uspin_mutex_t *m, uint32_t take, enum uspin_spin_kind kind,
	       uint64_t deadline)
{
	const struct uspin_setup *s = uspin_setup();
	int informed = kind == SPIN_OWNER_RUNNING || kind == SPIN_OWNER_LEARNED;
	int shadow = !informed && s->shadow;
	int shared = mutex_futex_shared(m), my_cpu = -1;
	uint32_t est = estimate_of(m), v, tid = WORD_TID(take) & ~USPIN_WORD_SHARED;
	uint64_t blind, start, end, now, prev, alive, off_since = 0;
	struct owner_watch watch = { .my_cpu = -1 };
	struct uspin_cpu_want want;
	uint64_t wanted_end = UINT64_MAX;
	enum uspin_cpu_demand demand;
	unsigned int backoff = 1;
	enum spin_end how;

	blind = spin_budget(est, USPIN_ESTIMATE_UNIT, s->spin_min, s->spin_max, 3);
	start = uspin_cycles();
	end = spin_end_of(kind, start, blind, est);
	if (deadline < end)
		end = deadline;
	if (end <= start)
		return 0;
	if (!spinners_enter(m, shared, tid)) {
		uspin_stats.spin_refused++;
		return 0;
	}
	uspin_stats.spin_phases++;
	prev = alive = start;
	uspin_cpu_want_begin(&want);

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
		if (informed && owner_stops(&watch, v, &end, start + blind)) {
			how = SPIN_OWNER_OFF;
			break;
		}
		demand = uspin_cpu_wanted(&want);
		if (demand == CPU_RESCHED) {
			how = SPIN_CPU_WANTED;
			break;
		}
		if (demand == CPU_SHARED && wanted_end == UINT64_MAX)
			wanted_end = uspin_cycles() +
				     spin_clamp(2 * spin_hold_cycles(hold_of(m)),
						s->spin_min, s->shared_spin_max);
		relax(backoff);
		backoff = spin_backoff_next(backoff);
		now = uspin_cycles();
		if (now >= wanted_end) {
			how = SPIN_CPU_SHARED;
			break;
		}
		if (now - prev > s->preempt_gap) {
			how = SPIN_PREEMPTED;
			break;
		}
		prev = now;
		if (now >= end) {
			how = now >= deadline ? SPIN_GAVE_UP : SPIN_BUDGET;
			break;
		}
		if (shared && now - alive > us_to_cycles(ALIVE_EVERY_US)) {
			spinners_alive(m);
			alive = now;
		}
	}
	uspin_cpu_want_end(&want);
	spinners_leave(m, shared, tid);
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
	now = uspin_cycles() - start;
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
		    end == start + blind)
			estimate_store(m, spin_estimate_failure(est));
		break;
	case SPIN_OWNER_OFF:
		uspin_stats.spin_owner_off++;
		break;
	case SPIN_PREEMPTED:
		uspin_stats.spin_preempted++;
		break;
	case SPIN_CPU_WANTED:
		uspin_stats.spin_cpu_wanted++;
		break;
	case SPIN_CPU_SHARED:
		uspin_stats.spin_cpu_wanted++;
		break;
	case SPIN_GAVE_UP:
		break;
	}
	uspin_stats.spin_cycles_wasted += now;
	return 0;
}
