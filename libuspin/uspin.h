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
};
#define USPIN_POLICY_COUNT	5
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
/* "auto", "block", "spin", "kernel-adaptive", "user-adaptive"; NULL if bad */
const char *uspin_policy_name(enum uspin_policy policy);

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
};

int uspin_thread_stats(struct uspin_thread_stats *st, size_t size, int reset);

#ifdef __cplusplus
}
#endif

#endif /* USPIN_H */
