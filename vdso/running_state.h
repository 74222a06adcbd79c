/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * running_state.h - "is thread TID on a CPU right now?" for user-space
 * adaptive spinning.
 *
 * A provider (the patched kernel's per-pid-namespace array found through
 * the vDSO, per-thread areas the kernel updates (rseq-style), a BPF program
 * on stock kernels through uspin-stated, or none) publishes one 32-bit
 * entry per TID.  This header is the only thing the lock code sees: a view
 * of the entries and a query that costs a few loads of read-mostly data.
 * Providers live in vdso/provider_*.c and are attached once, by libuspin's
 * setup (a constructor), never on a lock path; adding one never touches
 * lock code.
 *
 * Entry encoding (every provider, and the kernel ABI):
 *   0 (USPIN_RS_ENTRY_UNKNOWN)  no information: not published (thread not
 *                               opted in, not switched since publication
 *                               started, TID free, publication off)
 *   1 (USPIN_RS_ENTRY_OFF)      published, not on a CPU
 *   n >= 2                      on a CPU: CPU n - 2 where the provider
 *                               names it (view.has_cpu: per-thread areas,
 *                               BPF); the kernel array withholds it since
 *                               its version 3 and stores 2
 * Zero meaning "unknown" lets a provider back its entries lazily with
 * zero pages.
 */
#ifndef USPIN_RUNNING_STATE_H
#define USPIN_RUNNING_STATE_H

#include <stdint.h>
#include <urcu/compiler.h>
#include <urcu/system.h>

#define USPIN_RS_ENTRY_UNKNOWN	0u
#define USPIN_RS_ENTRY_OFF	1u
#define USPIN_RS_ENTRY_ON	2u	/* on a CPU, which one withheld */
#define USPIN_RS_ENTRY_CPU0	2u	/* with has_cpu: on CPU c is c + 2 */

enum uspin_rs_answer {
	USPIN_RS_OFF = 0,	/* not on a CPU: spinning on it is pointless */
	USPIN_RS_ON = 1,	/* on a CPU now */
	USPIN_RS_UNKNOWN = 2,	/* no provider, not covered, provider dead */
};

/*
 * What the active provider publishes.  nr_entries == 0 means "no
 * provider": every query answers UNKNOWN without touching the entries.
 *
 * Direct providers (kernel array, BPF map): the entry of TID t is
 * base[uspin_rs_index(view, t) * stride], where uspin_rs_index() transposes
 * t within blocks of 2^block_shift entries so that consecutive TIDs sit in
 * different cache lines of 2^line_shift entries (the kernel array's layout;
 * 0 and 0, a plain array, for everyone else).  Indirect providers (per-thread areas): base is NULL
 * and the entry of t is *ptrs[t] (a NULL slot: UNKNOWN); a slot is
 * published after the area it points to is initialised, and an area is
 * never freed while the view is attached.
 *
 * *alive is a liveness word in the robust-futex format: the provider is
 * live while its TID part is non-zero and FUTEX_OWNER_DIED is clear.  The
 * BPF helper holds a robust lock there, so its death (even SIGKILL) turns
 * every answer into UNKNOWN at once; providers that cannot die point it at
 * uspin_rs_always_alive.
 */
struct uspin_rs_view {
	const volatile uint32_t *base;
	const volatile uint32_t *const volatile *ptrs;
	const volatile uint32_t *alive;
	uint32_t nr_entries;		/* TIDs [0, nr_entries) are covered */
	uint32_t stride;		/* direct only, in uint32_t units, >= 1 */
	uint8_t line_shift;		/* direct only: see uspin_rs_index() */
	uint8_t block_shift;
	uint8_t has_cpu;		/* entries >= 2 name the CPU */
	uint8_t own_process;		/* other processes' TIDs read UNKNOWN */
	/*
	 * Where a provider publishes them (BPF): the tasks runnable on CPU c,
	 * the running one included, at rq[c] for c < nr_rq; else NULL.
	 */
	const volatile uint32_t *rq;
	uint32_t nr_rq;
};

/*
 * A provider.  attach() fills @view and returns 0, or returns an errno
 * value (the next provider is tried); it runs once, in libuspin's setup,
 * and may make system calls and allocate.  The optional hooks run where
 * setup cannot:
 *   thread_init(tid)  once per thread, when libuspin first learns its TID
 *                     (before the thread can own a lock): bounded, no
 *                     malloc, no stdio, no blocking IPC.
 *   new_process(view) once in a new process (fork, _Fork, clone without
 *                     CLONE_VM), detected lazily on its first slow path:
 *                     same rules; may drop the view (nr_entries = 0) when
 *                     the child's TIDs are not the ones the view speaks.
 *   describe()        a line for uspin-info (coverage, helper, ...); NULL
 *                     if nothing to add.
 */
struct uspin_rs_provider {
	const char *name;
	int (*attach)(struct uspin_rs_view *view);
	void (*thread_init)(uint32_t tid);
	void (*new_process)(struct uspin_rs_view *view);
	const char *(*describe)(void);
};

extern struct uspin_rs_view uspin_rs_view;
extern const uint32_t uspin_rs_always_alive;

/* Live iff TID part != 0 and FUTEX_OWNER_DIED (bit 30) clear. */
static inline int uspin_rs_alive_word(uint32_t w)
{
	/* Bit 30 becomes the sign; bit 31 (FUTEX_WAITERS) drops out. */
	return (int32_t)(w << 1) > 0;
}

/*
 * Index of @tid's entry in a direct view: the low block_shift bits of @tid
 * are transposed (a block of 2^block_shift entries read as a matrix of
 * 2^(block_shift - line_shift) rows of 2^line_shift entries, one cache line
 * each).  With line_shift == block_shift == 0 this is @tid.
 */
static inline uint32_t uspin_rs_index(const struct uspin_rs_view *v,
				      uint32_t tid)
{
	unsigned int line = v->line_shift, rows = v->block_shift - line;

	return (tid >> v->block_shift << v->block_shift) |
	       ((tid & ((1u << rows) - 1)) << line) |
	       ((tid >> rows) & ((1u << line) - 1));
}

/**
 * uspin_rs_entry() - raw entry of @tid (USPIN_RS_ENTRY_UNKNOWN if uncovered)
 *
 * Never faults: out-of-range TIDs are answered without a memory access,
 * and a dead provider answers UNKNOWN without reading its entries.
 */
static inline uint32_t uspin_rs_entry(uint32_t tid)
{
	const struct uspin_rs_view *v = &uspin_rs_view;
	const volatile uint32_t *p;

	if (tid >= CMM_LOAD_SHARED(v->nr_entries))
		return USPIN_RS_ENTRY_UNKNOWN;
	if (caa_unlikely(!uspin_rs_alive_word(*v->alive)))
		return USPIN_RS_ENTRY_UNKNOWN;
	if (caa_likely(v->base != NULL))
		return v->base[(uintptr_t)uspin_rs_index(v, tid) * v->stride];
	p = v->ptrs[tid];
	return p ? *p : USPIN_RS_ENTRY_UNKNOWN;
}

static inline enum uspin_rs_answer uspin_rs_answer_of(uint32_t e)
{
	if (e == USPIN_RS_ENTRY_UNKNOWN)
		return USPIN_RS_UNKNOWN;
	return e == USPIN_RS_ENTRY_OFF ? USPIN_RS_OFF : USPIN_RS_ON;
}

/*
 * uspin_rs_entry_on_cpu() - does entry @e say "on CPU @cpu"?  Only where
 * uspin_rs_view.has_cpu: elsewhere 2 means "on some CPU", not CPU 0.
 */
static inline int uspin_rs_entry_on_cpu(uint32_t e, int cpu)
{
	return e >= USPIN_RS_ENTRY_CPU0 && e - USPIN_RS_ENTRY_CPU0 == (uint32_t)cpu;
}

/** uspin_rs_query() - is @tid on a CPU: ON, OFF or UNKNOWN. */
static inline enum uspin_rs_answer uspin_rs_query(uint32_t tid)
{
	return uspin_rs_answer_of(uspin_rs_entry(tid));
}

/**
 * uspin_running_state_init() - choose and attach a provider, once.
 *
 * Tries the providers in order (vdso, rseq, bpf, none) unless the
 * environment variable USPIN_RS_PROVIDER names one.  Called by libuspin's
 * setup; thread-safe and idempotent.  Returns the active provider's name
 * ("none" when nothing attached).
 */
const char *uspin_running_state_init(void);

/* Name of the active provider, or "none"; never attaches. */
const char *uspin_running_state_provider(void);

/* uspin-info's line: what the active provider (or the best one) says. */
const char *uspin_running_state_describe(void);

/* The active provider (never NULL once init ran; provider "none" before). */
const struct uspin_rs_provider *uspin_running_state_active(void);

#endif /* USPIN_RUNNING_STATE_H */
