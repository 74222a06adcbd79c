// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * spin.c - the spin phases run before a waiter goes to the kernel.
 *
 * Both spin with exponential backoff (fewer reads of a contended cache
 * line), only CAS when the word reads 0, and leave an owner-died word to
 * the slow path.  Time is read from CLOCK_MONOTONIC (vDSO), so budgets mean
 * the same thing on every CPU whatever PAUSE costs there.
 */
#include <time.h>
#include <urcu/arch.h>

#include "mutex_impl.h"
#include "running_state.h"
#include "spin_tuning.h"

static inline uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static inline void relax(unsigned int n)
{
	while (n--)
		caa_cpu_relax();
}

/* One probe of the word: 1 = acquired, 0 = keep waiting, -1 = stop. */
static inline int try_take(uspin_mutex_t *m, uint32_t tid, uint32_t *seen)
{
	uint32_t v = CMM_LOAD_SHARED(m->word);

	*seen = v;
	if (v == 0)
		return uatomic_cmpxchg(&m->word, 0, tid) == 0;
	return WORD_TID(v) ? 0 : -1;	/* owner died: the slow path decides */
}

/*
 * Budget from what this lock's recent waits cost (an EWMA of the spin time
 * that ended in an acquisition), between SPIN_MIN_NS and SPIN_MAX_NS.  A
 * wait that outlasts the budget halves the estimate: long holds stop being
 * spun on, short ones are learned back quickly.
 */
int uspin_spin_bounded(uspin_mutex_t *m, uint32_t tid)
{
	uint32_t est = CMM_LOAD_SHARED(m->spin_estimate), seen;
	uint64_t budget = spin_budget_ns(est);
	uint64_t start = now_ns(), waited = 0;
	unsigned int backoff = 1;
	int r;

	for (;;) {
		r = try_take(m, tid, &seen);
		if (r > 0) {
			CMM_STORE_SHARED(m->spin_estimate,
					 spin_estimate_success(est, waited));
			return 1;
		}
		if (r < 0)
			return 0;
		relax(backoff);
		backoff = spin_backoff_next(backoff);
		waited = now_ns() - start;
		if (waited >= budget)
			break;
	}
	CMM_STORE_SHARED(m->spin_estimate, spin_estimate_failure(est));
	return 0;
}

/*
 * Spin while the owner is on a CPU (the running-state provider says so),
 * re-reading the owner whenever the word changes.  Stop as soon as the owner
 * is off its CPU (it cannot release the lock before it runs again: block),
 * or after USER_SPIN_MAX_NS (a long critical section is not worth a CPU).
 * Where the provider cannot tell, behave like SPIN_BOUNDED.
 */
int uspin_spin_owner_running(uspin_mutex_t *m, uint32_t tid)
{
	uint64_t start = 0;
	unsigned int backoff = 1;
	uint32_t seen;
	int r;

	for (;;) {
		r = try_take(m, tid, &seen);
		if (r)
			return r > 0;
		switch (uspin_rs_query(WORD_TID(seen))) {
		case USPIN_RS_OFF:
			return 0;
		case USPIN_RS_UNKNOWN:
			return uspin_spin_bounded(m, tid);
		case USPIN_RS_ON:
			break;
		}
		relax(backoff);
		backoff = spin_backoff_next(backoff);
		if (!start)
			start = now_ns();
		else if (now_ns() - start >= USER_SPIN_MAX_NS)
			return 0;
	}
}
