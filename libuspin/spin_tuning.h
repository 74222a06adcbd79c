/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * spin_tuning.h - the rules behind the spin phases, as pure functions of
 * cycles (the time base of cycles.h) so that the tests can check them.
 *
 * A futex sleep plus wake-up costs a few microseconds; spinning much longer
 * than that cannot pay off (the classic 2-competitive bound), so a bounded
 * spin stays within [spin_min, spin_max] (2-40 us).  When the owner is
 * known to be on a CPU the spin may be longer, up to user_spin_max
 * (200 us): a long critical section still blocks.
 *
 * Both budgets follow what this mutex's recent waits cost: an estimate
 * (an EWMA, 1/8, of the spin time that ended in an acquisition) kept in
 * the mutex in units of USPIN_ESTIMATE_UNIT cycles; a spin that outlasts
 * its budget halves the estimate, so long holds stop being spun on within
 * a few acquisitions and short ones are learned back quickly.
 */
#ifndef USPIN_SPIN_TUNING_H
#define USPIN_SPIN_TUNING_H

#include <stdint.h>

/* Backoff between reads of the word, in cpu_relax() calls. */
#define SPIN_BACKOFF_MAX	64u

/* Estimates are stored in 12 bits of units. */
#define SPIN_ESTIMATE_MAX	0xfffu

static inline uint64_t spin_clamp(uint64_t v, uint64_t lo, uint64_t hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

/*
 * Budget: min + slope x the estimate, at most max.  Blind spinning
 * (SPIN_BOUNDED) uses slope 3 and max = spin_max; spinning on an owner
 * known to run uses slope 4 and max = user_spin_max.  Either way a wait
 * of up to slope x the estimate is seen through, so the estimate can grow
 * towards the waits this mutex really has.
 */
static inline uint64_t spin_budget(uint32_t est, uint64_t unit, uint64_t min,
				   uint64_t max, unsigned int slope)
{
	return spin_clamp(min + (uint64_t)slope * est * unit, min, max);
}

/*
 * EWMA (1/8) of the waits that ended in an acquisition, in units; the
 * step rounds away from zero so the estimate reaches a steady wait.
 */
static inline uint32_t spin_estimate_success(uint32_t est, uint64_t waited,
					     uint64_t unit)
{
	int64_t w = (int64_t)(waited / unit), d = w - (int64_t)est;
	int64_t e = (int64_t)est + (d > 0 ? d + 7 : d - 7) / 8;

	if (e < 0)
		e = 0;
	return e > SPIN_ESTIMATE_MAX ? SPIN_ESTIMATE_MAX : (uint32_t)e;
}

static inline uint32_t spin_estimate_failure(uint32_t est)
{
	return est / 2;
}

/*
 * The typical contended hold of a mutex, as its owners measure it: 8 bits
 * on a log scale, v standing for 2^(v / 16) x SPIN_HOLD_UNIT cycles (from
 * 0.1 us to a few ms, in steps of 4.4 %), moved one step towards each new
 * hold: a streaming median, half the holds above it and half below, which
 * a few rare long holds do not move (the multi-modal case).
 */
#define SPIN_HOLD_UNIT		256u
#define SPIN_HOLD_MAX		0xffu

static inline uint64_t spin_hold_cycles(uint32_t v)
{
	static const uint16_t frac[16] = {	/* 2^(i / 16) x 2^15 */
		32768, 34219, 35734, 37316, 38968, 40693, 42495, 44376,
		46341, 48393, 50535, 52773, 55109, 57549, 60097, 62757,
	};

	return ((uint64_t)SPIN_HOLD_UNIT << (v >> 4)) * frac[v & 15] >> 15;
}

static inline uint32_t spin_hold_update(uint32_t v, uint64_t held)
{
	if (held > spin_hold_cycles(v))
		return v < SPIN_HOLD_MAX ? v + 1 : v;
	return v ? v - 1 : 0;
}

static inline unsigned int spin_backoff_next(unsigned int backoff)
{
	return backoff >= SPIN_BACKOFF_MAX ? SPIN_BACKOFF_MAX : backoff * 2;
}

#endif
