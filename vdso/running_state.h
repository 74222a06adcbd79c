/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * running_state.h - "is thread TID on a CPU right now?" for user-space
 * adaptive spinning.
 *
 * Some provider (the patched kernel's vDSO array, a BPF program on stock
 * kernels, or none) publishes one 32-bit entry per TID.  This header is the
 * only thing the lock code sees: a view of that array and a query that costs
 * one load of the entry.  Providers live in vdso/provider_*.c and are chosen
 * once by uspin_running_state_init(); adding one never touches lock code.
 *
 * Entry encoding (shared by every provider, and by the kernel ABI):
 *   0                          the thread is not on a CPU
 *   USPIN_RS_ENTRY_UNKNOWN     publication is off / the provider cannot tell
 *   n (anything else)          the thread is on CPU n - 1
 */
#ifndef USPIN_RUNNING_STATE_H
#define USPIN_RUNNING_STATE_H

#include <stdint.h>

#define USPIN_RS_ENTRY_OFF	0u
#define USPIN_RS_ENTRY_UNKNOWN	0xffffffffu

enum uspin_rs_answer {
	USPIN_RS_OFF = 0,	/* not on a CPU: spinning on it is pointless */
	USPIN_RS_ON = 1,	/* on a CPU now */
	USPIN_RS_UNKNOWN = 2,	/* no provider, out of range, publication off */
};

/*
 * What the active provider publishes.  nr_entries == 0 means "no provider":
 * every query answers UNKNOWN without touching memory.
 */
struct uspin_rs_view {
	const volatile uint32_t *base;	/* entry of TID t: base[t * stride] */
	uint32_t nr_entries;		/* TIDs [0, nr_entries) are covered */
	uint32_t stride;		/* in uint32_t units, >= 1 */
};

/* A provider: fills @view and returns 0, or returns an errno value. */
struct uspin_rs_provider {
	const char *name;
	int (*attach)(struct uspin_rs_view *view);
};

extern struct uspin_rs_view uspin_rs_view;

/**
 * uspin_rs_entry() - raw entry of @tid (USPIN_RS_ENTRY_UNKNOWN if uncovered)
 *
 * One load of the entry; the view itself is read-mostly and stays cached.
 * Never faults: out-of-range TIDs are answered without a memory access.
 */
static inline uint32_t uspin_rs_entry(uint32_t tid)
{
	const struct uspin_rs_view *v = &uspin_rs_view;

	if (tid >= v->nr_entries)
		return USPIN_RS_ENTRY_UNKNOWN;
	return v->base[(uintptr_t)tid * v->stride];
}

/** uspin_rs_query() - is @tid on a CPU: ON, OFF or UNKNOWN. */
static inline enum uspin_rs_answer uspin_rs_query(uint32_t tid)
{
	uint32_t e = uspin_rs_entry(tid);

	if (e == USPIN_RS_ENTRY_OFF)
		return USPIN_RS_OFF;
	if (e == USPIN_RS_ENTRY_UNKNOWN)
		return USPIN_RS_UNKNOWN;
	return USPIN_RS_ON;
}

/**
 * uspin_running_state_init() - choose and attach a provider, once.
 *
 * Tries the providers in order (vdso, bpf, none) unless the environment
 * variable USPIN_RS_PROVIDER names one.  Thread-safe and idempotent.
 * Returns the name of the active provider ("none" when nothing attached).
 */
const char *uspin_running_state_init(void);

/* Name of the active provider, or "none" (valid after init). */
const char *uspin_running_state_provider(void);

#endif /* USPIN_RUNNING_STATE_H */
