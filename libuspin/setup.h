/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * setup.h - what setup.c probes once, in a constructor, outside every
 * lock: the kernel's futex ops, the cycle counter, the spin budgets.
 */
#ifndef USPIN_SETUP_H
#define USPIN_SETUP_H

#include "internal.h"

/* ---- setup.c: probed once, in a constructor, outside every lock ---- */
enum uspin_cycles_quality {
	CYCLES_NOMINAL,		/* no way to measure: an assumed rate */
	CYCLES_CPUID,		/* the rate the CPU or hypervisor reports */
	CYCLES_MEASURED,	/* against CLOCK_MONOTONIC_RAW at setup */
};

/* USPIN_SLICE_EXT: 0, 1 (the default), force (tests, benchmarks). */
enum uspin_slice_policy {
	SLICE_OFF,
	SLICE_USE,		/* where the kernel has it */
	SLICE_FORCE,		/* also where not: the request is written anyway */
};

struct uspin_setup {
	int done;			/* release-stored last */
	int futex_lock;
	int futex_lock_adaptive;
	int futex_unlock;
	unsigned int ncpus;		/* in our affinity mask at setup */
	enum uspin_policy auto_policy;	/* AUTO after USPIN_POLICY */
	int policy_overridden;
	uint64_t cycles_per_us;
	enum uspin_cycles_quality cycles_quality;
	/* Spin budgets and the handoff threshold, in cycles. */
	uint64_t spin_min, spin_max, user_spin_max, handoff_after;
	uint64_t shared_spin_max;	/* while other tasks want our CPU */
	/*
	 * Spinning on a running owner (spin.c): the safety cap (0: none),
	 * the gap between two reads of the word that means the spinner
	 * itself was descheduled, both in cycles, and how many waiters may
	 * spin on one mutex at a time.
	 */
	uint64_t spin_cap, preempt_gap;
	int spin_cap_from_env;
	unsigned int max_spinners;
	/*
	 * Shadow mode (USPIN_SHADOW=1): the blind spins (spin, spin-capped)
	 * look up the owner's running state as user-adaptive does, without
	 * acting on it, and count what stopping would have saved.
	 */
	int shadow;
	/* The rseq time-slice extension (slice_ext.c). */
	enum uspin_slice_policy slice_policy;	/* USPIN_SLICE_EXT */
	int slice_available;		/* the kernel would enable it */
	const char *slice_reason;	/* why not, or "" */
};
extern struct uspin_setup uspin_setup_state USPIN_HIDDEN;

static inline const struct uspin_setup *uspin_setup(void)
{
	return &uspin_setup_state;
}

static inline uint64_t uspin_cycles_to_ns(uint64_t cycles)
{
	uint64_t per_us = uspin_setup_state.cycles_per_us;

	return per_us ? cycles * 1000 / per_us : 0;
}

/* Acquire: the results are visible once done reads 1. */
static inline int uspin_setup_done(void)
{
	int done = uatomic_read(&uspin_setup_state.done);

	cmm_smp_rmb();
	return done;
}

/* slice_ext.c: USPIN_SLICE_EXT and what the kernel offers, into @s. */
void uspin_slice_setup(struct uspin_setup *s) USPIN_HIDDEN;

/* Runs setup if the constructor has not (idempotent, thread-safe). */
void uspin_setup_run(void) USPIN_HIDDEN;

/* Test hook (uspin_testing.h): take the stock-kernel paths. */
extern int uspin_force_stock_kernel USPIN_HIDDEN;

#endif
