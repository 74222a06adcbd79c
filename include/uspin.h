/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * uspin.h - a futex mutex on a TID word that spins while its owner runs.
 *
 * Every function returns 0 or an errno value, like pthread_mutex_*.
 * The lock word is the kernel's robust/PI layout: owner TID in bits 0-29,
 * FUTEX_OWNER_DIED (bit 30), FUTEX_WAITERS (bit 31).  See uspin(3).
 */
#ifndef USPIN_H
#define USPIN_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>	/* pid_t, clockid_t (strict ISO C) */
#include <time.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * 40 bytes, the size of pthread_mutex_t on LP64, and its fields at the
 * same offsets as glibc's (word = __lock, count = __count, kind = __kind,
 * the robust list pair = __list), so that the pthread drop-in
 * (libuspin-pthread.so) runs on the pthread_mutex_t a program declared.
 * Zero-initialised is a valid private AUTO mutex.
 */
typedef struct uspin_mutex {
	uint32_t word;		/*  0: owner TID | OWNER_DIED | WAITERS */
	uint32_t count;		/*  4: recursion depth (drop-in only) */
	uint32_t flags;		/*  8: policy, USPIN_* flags, state, learned spin */
	uint32_t spinner;	/* 12: when the current spinner stops */
	int32_t kind;		/* 16: pthread kind (drop-in only) */
	uint32_t handoff;	/* 20: TID of a starving waiter, or 0 */
	void *robust_prev;	/* 24: robust list node (robust mutexes) */
	void *robust_next;	/* 32 */
} uspin_mutex_t;

#define USPIN_MUTEX_INITIALIZER { 0, 0, 0, 0, 0, 0, 0, 0 }

enum uspin_policy {
	USPIN_POLICY_AUTO,		/* the best the running kernel offers */
	USPIN_POLICY_BLOCK,		/* no spinning: straight to the kernel */
	USPIN_POLICY_SPIN_BOUNDED,	/* self-tuning bounded spin, then block */
	USPIN_POLICY_KERNEL_ADAPTIVE,	/* FUTEX_LOCK_ADAPTIVE: kernel spins */
	USPIN_POLICY_USER_ADAPTIVE,	/* spin while the owner is on a CPU */
	/* Controls for measuring USER_ADAPTIVE (docs/design.md): */
	USPIN_POLICY_USER_ADAPTIVE_BOUNDED, /* the same within v2's learned budget */
	USPIN_POLICY_SPIN_CAPPED,	/* its stops and cap, blind to the owner */
};
#define USPIN_POLICY_COUNT	7
#define USPIN_POLICY_MASK	0x0fu

/* OR'ed into uspin_mutex_init() flags. */
#define USPIN_PROCESS_SHARED	0x100u	/* shared between processes */
#define USPIN_ROBUST		0x200u	/* EOWNERDEAD when the owner dies */

int uspin_mutex_init(uspin_mutex_t *m, unsigned int flags);
int uspin_mutex_lock(uspin_mutex_t *m);
int uspin_mutex_trylock(uspin_mutex_t *m);
int uspin_mutex_timedlock(uspin_mutex_t *m, const struct timespec *abstime);
int uspin_mutex_clocklock(uspin_mutex_t *m, clockid_t clock,
			  const struct timespec *abstime);
int uspin_mutex_unlock(uspin_mutex_t *m);
int uspin_mutex_destroy(uspin_mutex_t *m);
int uspin_mutex_consistent(uspin_mutex_t *m);

/*
 * Is thread @tid (a TID as this process's pid namespace numbers it) on a
 * CPU now, as the running-state provider libuspin attached sees it:
 * 1 on a CPU, 0 not, -1 unknown (no provider, TID not covered, provider
 * gone).  What USER_ADAPTIVE spinning is decided on.
 */
int uspin_tid_running(pid_t tid);

/* What the running kernel offers and what AUTO resolves to. */
struct uspin_info {
	int futex_lock;			/* FUTEX_LOCK available */
	int futex_lock_adaptive;	/* FUTEX_LOCK_ADAPTIVE available */
	int futex_unlock;		/* FUTEX_UNLOCK (handoff) available */
	int blocks_in_futex_lock;	/* mutexes wait with FUTEX_LOCK (else
					   FUTEX_WAIT: stock kernel, USPIN_WAIT) */
	int robust_list;		/* robust mutexes join the robust list */
	const char *running_state;	/* provider: "vdso", "rseq", "bpf", "none" */
	const char *running_state_detail; /* provider's own line, or "" */
	uint32_t rs_entries;		/* TIDs the provider covers */
	uint32_t pid_max;		/* kernel.pid_max now (0: unreadable) */
	enum uspin_policy auto_policy;	/* what AUTO resolves to */
	int policy_overridden;		/* USPIN_POLICY set it */
	unsigned int ncpus;		/* CPUs this process may run on */
	uint64_t cycles_per_us;		/* spin time base (TSC) per microsecond */
	int cycles_calibrated;		/* 1 measured, 0 a nominal value */
	int setup_done;			/* setup ran (else mutexes act as BLOCK) */
};

int uspin_query(struct uspin_info *info);
/*
 * "auto", "block", "spin", "kernel-adaptive", "user-adaptive",
 * "user-adaptive-bounded", "spin-capped"; NULL if bad
 */
const char *uspin_policy_name(enum uspin_policy policy);

/*
 * How the spinning policies decide (docs/design.md), as set up in this
 * process.  @size is sizeof(struct uspin_spin_parameters) as the caller
 * knows it.
 */
struct uspin_spin_parameters {
	uint64_t cap_ns;		/* user-adaptive and spin-capped stop here;
					   0: no cap (USPIN_SPIN_CAP_US=0) */
	int cap_from_env;		/* USPIN_SPIN_CAP_US set cap_ns */
	unsigned int max_spinners;	/* waiters spinning on one mutex */
	uint64_t preempt_gap_ns;	/* a longer gap between two reads of the
					   word: the spinner was descheduled */
	uint64_t blind_min_ns;		/* blind budget ("spin", and owners the */
	uint64_t blind_max_ns;		/*   running state cannot tell about) */
	uint64_t learned_max_ns;	/* user-adaptive-bounded's budget cap */
	uint64_t handoff_after_ns;	/* a waiter blocked this long gets the
					   lock handed over; sleepers are
					   passed over for spinners this long */
	int shadow;			/* USPIN_SHADOW=1: blind spins count
					   what the running state would save
					   (uspin_thread_stats' shadow_*) */
	uint64_t shared_max_ns;		/* while other tasks want the spinner's
					   CPU: a spin lasts at most 4 x this
					   mutex's recent successful waits, and
					   never longer than this */
};

int uspin_spin_parameters(struct uspin_spin_parameters *p, size_t size);

/*
 * What the calling thread's slow paths did since it started (or since
 * @reset was last set): the cost of spinning that paid off and of spinning
 * that ended in blocking anyway.  Counting costs a few adds on slow paths
 * only.  @size is sizeof(struct uspin_thread_stats) as the caller knows it.
 */
struct uspin_thread_stats {
	uint64_t slow_paths;		/* lock calls past the fast path */
	uint64_t spin_phases;		/* spin phases entered */
	uint64_t spin_acquired;		/* ... that ended owning the lock */
	uint64_t spin_ns_acquired;	/* time in phases that acquired */
	uint64_t spin_ns_wasted;	/* time in phases that then blocked */
	uint64_t spin_owner_off;	/* phases ended: owner not on a CPU */
	uint64_t spin_refused;		/* no spin: enough spinners already */
	uint64_t blocks;		/* waits in the kernel */
	uint64_t handoffs;		/* acquisitions handed over to us */
	uint64_t spin_preempted;	/* phases ended: we were descheduled */
	uint64_t spin_budget_ended;	/* phases ended: budget or cap reached */
	uint64_t passed_to_spinner;	/* unlocks that left the word to a
					   spinner rather than wake a sleeper */
	/* The time-slice extension (uspin_slice_extension()): */
	uint64_t slice_requests;	/* sections that asked for it */
	uint64_t slice_granted;		/* ... still extended at the unlock */
	uint64_t slice_yields;		/* ... whose rseq_slice_yield() ended
					   an active grant (<= slice_granted) */
	/* Shadow mode (USPIN_SHADOW=1; blind spins only): */
	uint64_t shadow_off_phases;	/* phases that saw the owner off a CPU
					   (or on ours) and spun on */
	uint64_t shadow_ns_off;		/* their time from that sight on: what
					   user-adaptive's rule would not spend */
	uint64_t spin_cpu_wanted;	/* phases ended: another task wanted
					   the spinner's CPU (a slice
					   extension grant, the BPF run queues) */
};

int uspin_thread_stats(struct uspin_thread_stats *st, size_t size, int reset);

/*
 * The rseq time-slice extension (Linux 7.0): a thread that holds a lock
 * asks the kernel to let it finish the critical section rather than
 * preempt it at the end of its slice, and gives the CPU back at the
 * unlock if the kernel did.  Used per USPIN_SLICE_EXT (0, 1: the default,
 * where available).  @size is sizeof(struct uspin_slice_info) as the
 * caller knows it.
 */
struct uspin_slice_info {
	int available;		/* the kernel offers it (else: reason) */
	int in_use;		/* the calling thread asks for it */
	int enabled_by_policy;	/* USPIN_SLICE_EXT is not 0 */
	int forced;		/* USPIN_SLICE_EXT=force where it is not
				   available: asked for, never granted */
	const char *reason;	/* why it is not available, or "" */
};

int uspin_slice_extension(struct uspin_slice_info *p, size_t size);

/*
 * Condition variables, for any uspin mutex (private, process-shared,
 * robust).  48 bytes, the size and alignment of pthread_cond_t, so that the
 * pthread drop-in runs on the pthread_cond_t a program declared.
 * Zero-initialised is a valid private condvar whose timed waits measure
 * CLOCK_REALTIME (as pthread_cond_t's default).  The fields are private:
 * see docs/condvar.md for the protocol.
 *
 * A signal wakes one thread that was waiting when it was called, never one
 * that started waiting after it; a broadcast wakes all of them, but moves
 * them onto the mutex so that they run one after another as it is handed
 * on, instead of all waking to block on it again.  A wait is a
 * cancellation point: a cancelled waiter re-acquires the mutex before the
 * cleanup handlers run, and a signal it may have taken is passed on.
 */
typedef struct uspin_cond {
	uint32_t lock;		/*  0: internal lock (0, 1, 2) */
	uint32_t state;		/*  4: flavour, requeue duty, mixed use */
	uint64_t gen;		/*  8: generation new waiters join */
	uint32_t seq[2];	/* 16: futex words, one per group */
	uint32_t g1_unsignalled;	/* 24: old group, not yet signalled */
	uint32_t g1_pending;	/* 28: old group, signals not yet taken */
	uint32_t g2_size;	/* 32: new group's waiters */
	uint32_t wrefs;		/* 36: waiters << 3 | flags (glibc's __wrefs) */
	void *mutex;		/* 40: the waiters' mutex (private condvars) */
} uspin_cond_t;

#define USPIN_COND_INITIALIZER { 0, 0, 0, { 0, 0 }, 0, 0, 0, 0, 0 }

/* uspin_cond_init() flags: USPIN_PROCESS_SHARED, and ... */
#define USPIN_COND_MONOTONIC	0x400u	/* timedwait measures CLOCK_MONOTONIC */

int uspin_cond_init(uspin_cond_t *c, unsigned int flags);
int uspin_cond_destroy(uspin_cond_t *c);
int uspin_cond_wait(uspin_cond_t *c, uspin_mutex_t *m);
int uspin_cond_timedwait(uspin_cond_t *c, uspin_mutex_t *m,
			 const struct timespec *abstime);
int uspin_cond_clockwait(uspin_cond_t *c, uspin_mutex_t *m, clockid_t clock,
			 const struct timespec *abstime);
int uspin_cond_signal(uspin_cond_t *c);
int uspin_cond_broadcast(uspin_cond_t *c);

#ifdef __cplusplus
}
#endif

#endif /* USPIN_H */
