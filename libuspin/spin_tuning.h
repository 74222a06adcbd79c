/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * spin_tuning.h - the numbers behind the spin phases and the rule that
 * learns SPIN_BOUNDED's budget; pure functions, unit-tested.
 */
#ifndef USPIN_SPIN_TUNING_H
#define USPIN_SPIN_TUNING_H

#include <stdint.h>

/*
 * A futex sleep plus wake-up costs a few microseconds; spinning much longer
 * than that cannot pay off (the classic 2-competitive bound), so the bounded
 * spin stays within [SPIN_MIN_NS, SPIN_MAX_NS].
 */
#define SPIN_MIN_NS		2000u
#define SPIN_MAX_NS		40000u
/* Owner on a CPU: spin longer, but a long critical section still blocks. */
#define USER_SPIN_MAX_NS	200000u
/* Backoff between reads, in cpu_relax() calls. */
#define SPIN_BACKOFF_MAX	64u

static inline uint64_t spin_budget_ns(uint32_t estimate)
{
	uint64_t b = SPIN_MIN_NS + 3ull * estimate;

	return b > SPIN_MAX_NS ? SPIN_MAX_NS : b;
}

/* EWMA (1/8) of the waits that ended in an acquisition. */
static inline uint32_t spin_estimate_success(uint32_t est, uint64_t waited)
{
	int64_t e = (int64_t)est + ((int64_t)waited - (int64_t)est) / 8;

	if (e < 0)
		e = 0;
	return e > SPIN_MAX_NS ? SPIN_MAX_NS : (uint32_t)e;
}

static inline uint32_t spin_estimate_failure(uint32_t est)
{
	return est / 2;
}

static inline unsigned int spin_backoff_next(unsigned int backoff)
{
	return backoff >= SPIN_BACKOFF_MAX ? SPIN_BACKOFF_MAX : backoff * 2;
}

#endif
