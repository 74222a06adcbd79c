/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * mutex_impl.h - what the library's files share: the lock-word and flag
 * layout, the calling thread's identity, the setup's results, the plan a
 * mutex follows when it must wait, and the slow paths.
 */
#ifndef USPIN_MUTEX_IMPL_H
#define USPIN_MUTEX_IMPL_H

#include "internal.h"

/* ---- m->flags (USPIN_SLOW_FLAGS: internal.h) ---- */
#define USPIN_INIT_FLAGS	(USPIN_POLICY_MASK | USPIN_PROCESS_SHARED | \
				 USPIN_ROBUST)
#define USPIN_NOTRECOVERABLE	0x400u	/* unlocked after EOWNERDEAD */
/* Bits 12-19: the typical contended hold (spin_tuning.h, log scale). */
#define USPIN_HOLD_SHIFT	12
#define USPIN_HOLD_MASK		0xffu
/* Bits 20-31: the learned spin length, in units of 1024 cycles. */
#define USPIN_ESTIMATE_SHIFT	20
#define USPIN_ESTIMATE_UNIT	1024u

/*
 * Shared futex ops for process-shared and for robust mutexes: the kernel
 * wakes a dead owner's waiters with a shared key (handle_futex_death()),
 * as glibc assumes for its robust mutexes too.
 */
static inline int mutex_futex_shared(const uspin_mutex_t *m)
{
	return (mutex_flags(m) & USPIN_SLOW_FLAGS) != 0;
}

static inline int mutex_is_robust(const uspin_mutex_t *m)
{
	return (mutex_flags(m) & USPIN_ROBUST) != 0;
}

/*
 * A private mutex's starving waiter asks for the word in m->handoff
 * (mutex_lock.c); a process-shared one keeps its owner's tag there
 * (owner.c).  The TID of a pending request, or 0.
 */
static inline uint32_t mutex_handoff_request(const uspin_mutex_t *m)
{
	return mutex_flags(m) & USPIN_PROCESS_SHARED ? 0 :
	       CMM_LOAD_SHARED(m->handoff);
}

/* ---- thread_self.c (the TID itself: internal.h) ---- */
void uspin_thread_self_setup(void) USPIN_HIDDEN;

/*
 * The process, as its mutexes see it; set up again in every new process
 * (fork, _Fork, clone without CLONE_VM) before any of its threads uses a
 * mutex past the fast path.
 */
#define USPIN_GEN_MASK		0x7fffffffu
struct uspin_process {
	uint32_t gen;		/* fork generation: one more in every child */
	uint32_t pid_ns;	/* tag of the pid namespace, 0: not looked up */
	uint32_t inherited_tid;	/* the forking thread's TID in the parent */
	uint32_t inherited_by;	/* ... and here; 0 0: not a fork child */
};
extern struct uspin_process uspin_process USPIN_HIDDEN;

/* Random tags stay below every nsfs inode number (0xEFFFFFFA and up). */
#define USPIN_NSFS_INO_MIN	0xE0000000u
uint32_t uspin_pid_ns_tag_slow(void) USPIN_HIDDEN;

/* This process's pid namespace, as owners of shared mutexes tag it. */
static inline uint32_t uspin_pid_ns_tag(void)
{
	uint32_t tag = CMM_LOAD_SHARED(uspin_process.pid_ns);

	return caa_likely(tag) ? tag : uspin_pid_ns_tag_slow();
}

/* ---- owner.c (uspin_mutex_owned(): internal.h) ---- */
/*
 * A process-shared mutex keeps its owner's pid-namespace tag in
 * m->handoff, which only private mutexes use for handoff requests: set
 * once the word is taken, cleared before it is released.
 */
void uspin_owner_tag_set(uspin_mutex_t *m) USPIN_HIDDEN;
void uspin_owner_tag_clear(uspin_mutex_t *m) USPIN_HIDDEN;

/* ---- claims.c: what a private mutex's waiters leave in it ---- */
/*
 * A handoff request (m->handoff), the spinners (m->spinner) and the
 * passing-over stamp belong to threads of one process.  A fork child has
 * none of those threads: the first slow path of any of its threads on a
 * mutex whose claims carry an older generation clears them.
 */
void uspin_claims_renew(uspin_mutex_t *m) USPIN_HIDDEN;

/*
 * Private mutexes that are not robust leave the robust-list pair unused:
 * the drop-in counts condvar users in its first 4 bytes (pthread/dropin.h),
 * the claims' generation lives in the next 4, the passing-over stamp in
 * robust_next.
 */
static inline uint32_t *mutex_claims_gen(uspin_mutex_t *m)
{
	return (uint32_t *)(void *)&m->robust_prev + 1;
}

static inline int mutex_has_claims(const uspin_mutex_t *m)
{
	return !(mutex_flags(m) & USPIN_SLOW_FLAGS);
}

/* Before a private mutex's claims are read or made: are they this process's? */
static inline void uspin_claims_current(uspin_mutex_t *m)
{
	if (mutex_has_claims(m) &&
	    caa_unlikely(CMM_LOAD_SHARED(*mutex_claims_gen(m)) != uspin_process.gen))
		uspin_claims_renew(m);
}

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

/* ---- policy.c: what a mutex does when it must wait ---- */
enum uspin_wait_kind {
	WAIT_FUTEX_WAIT,	/* stock kernel: FUTEX_WAIT/FUTEX_WAKE */
	WAIT_FUTEX_LOCK,	/* FUTEX_LOCK */
	WAIT_FUTEX_LOCK_ADAPTIVE,
};
enum uspin_spin_kind {
	SPIN_NONE,
	SPIN_BOUNDED,		/* blind, a learned budget (2-40 us) */
	SPIN_OWNER_RUNNING,	/* while the provider says ON, up to the cap */
	SPIN_OWNER_LEARNED,	/* the same within v2's learned budget */
	SPIN_CAPPED,		/* blind, up to the cap */
};
struct uspin_plan {
	enum uspin_spin_kind spin;
	enum uspin_wait_kind wait;
};
struct uspin_plan uspin_plan_for(const uspin_mutex_t *m) USPIN_HIDDEN;
enum uspin_policy uspin_effective_policy(enum uspin_policy p) USPIN_HIDDEN;

/* ---- stats.c: per-thread slow-path counters (cycles until read) ---- */
struct uspin_stats {
	uint64_t slow_paths, spin_phases, spin_acquired;
	uint64_t spin_cycles_acquired, spin_cycles_wasted;
	uint64_t spin_owner_off, spin_refused, blocks, handoffs;
	uint64_t spin_preempted, spin_budget_ended, passed_to_spinner;
	uint64_t shadow_off_phases, shadow_cycles_off;
	uint64_t spin_cpu_wanted;
};
extern USPIN_TLS struct uspin_stats uspin_stats USPIN_HIDDEN;

/*
 * ---- spin.c: the spin phase; returns 1 once it owns the word ----
 * A free word is taken as word | @take: the caller's TID, plus
 * FUTEX_WAITERS for a waiter that has slept (others may still sleep).
 */
int uspin_spin(uspin_mutex_t *m, uint32_t take, enum uspin_spin_kind kind,
	       uint64_t deadline) USPIN_HIDDEN;
/* Time a contended hold: from a slow-path acquisition to the unlock. */
void uspin_hold_begin(uspin_mutex_t *m) USPIN_HIDDEN;
void uspin_hold_end(uspin_mutex_t *m) USPIN_HIDDEN;

/*
 * The unlocker of a private mutex whose word says others sleep: 1 if it
 * left the word free for a spinner instead of waking a sleeper.
 */
int uspin_pass_to_spinner(uspin_mutex_t *m, uint32_t tid) USPIN_HIDDEN;

/* ---- mutex_lock.c (the entry points: internal.h) ---- */
/*
 * Everything after a failed fast path: spin per plan, then block.  A timed
 * lock converts @abstime to a deadline in cycles once, at entry.
 */
int uspin_lock_slow(uspin_mutex_t *m, uint32_t tid, clockid_t clock,
		    const struct timespec *abstime, unsigned int mode) USPIN_HIDDEN;
/* Outcome of taking the word: 0, or EOWNERDEAD / ENOTRECOVERABLE. */
int uspin_after_acquire(uspin_mutex_t *m, uint32_t tid) USPIN_HIDDEN;
/* Take a free word (TID part 0), keeping its flag bits; 1 on success. */
int uspin_take_free(uspin_mutex_t *m, uint32_t v, uint32_t newbits) USPIN_HIDDEN;

/* ---- mutex_unlock.c ---- */
/* The caller owns the word; give it up (handoff, kernel op or wake). */
void uspin_release_word(uspin_mutex_t *m, uint32_t tid) USPIN_HIDDEN;

/* ---- handoff: FUTEX_WAIT waiters asking for the lock (stock kernels) ---- */
/* Waiters sleep with one of these bitsets; FUTEX_WAKE wakes either. */
#define USPIN_WAKE_NORMAL	0x1u
#define USPIN_WAKE_HANDOFF	0x2u

/* ---- test hooks (uspin_testing.h) ---- */
extern int uspin_force_stock_kernel USPIN_HIDDEN;	/* stock-kernel paths */
int uspin_slice_force(int on) USPIN_HIDDEN;	/* slice_ext.c */

#endif
