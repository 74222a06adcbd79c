/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * uspin.h - a futex mutex on a TID word that spins while its owner runs.
 *
 * Every function returns 0 or an errno value, like pthread_mutex_*.
 * The lock word is the kernel's robust/PI layout: owner TID in bits 0-29,
 * FUTEX_OWNER_DIED (bit 30), FUTEX_WAITERS (bit 31).
 */
#ifndef USPIN_H
#define USPIN_H

#include <stdint.h>
#include <time.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * 40 bytes, the size of pthread_mutex_t on LP64.  Zero-initialised is a valid
 * private AUTO mutex.  robust_prev/robust_next let a process-shared mutex sit
 * on the owning thread's robust list (see NOTES.md): they must stay at the
 * offsets glibc's robust list uses relative to the word.
 */
typedef struct uspin_mutex {
	uint32_t word;		/* owner TID | FUTEX_OWNER_DIED | FUTEX_WAITERS */
	uint32_t flags;		/* policy | USPIN_PROCESS_SHARED | state */
	uint32_t spin_estimate;	/* learned spin length (SPIN_BOUNDED) */
	uint32_t reserved[3];
	void *robust_prev;
	void *robust_next;
} uspin_mutex_t;

#define USPIN_MUTEX_INITIALIZER { 0, 0, 0, { 0, 0, 0 }, 0, 0 }

enum uspin_policy {
	USPIN_POLICY_AUTO,		/* the best the running kernel offers */
	USPIN_POLICY_BLOCK,		/* no spinning: straight to the kernel */
	USPIN_POLICY_SPIN_BOUNDED,	/* self-tuning bounded spin, then block */
	USPIN_POLICY_KERNEL_ADAPTIVE,	/* FUTEX_LOCK_ADAPTIVE: kernel spins */
	USPIN_POLICY_USER_ADAPTIVE,	/* spin while the owner is on a CPU */
};
#define USPIN_POLICY_COUNT	5
#define USPIN_POLICY_MASK	0x0fu

#define USPIN_PROCESS_SHARED	0x100u	/* OR'ed into init flags */

int uspin_mutex_init(uspin_mutex_t *m, unsigned int flags);
int uspin_mutex_lock(uspin_mutex_t *m);
int uspin_mutex_trylock(uspin_mutex_t *m);
int uspin_mutex_timedlock(uspin_mutex_t *m, const struct timespec *abstime);
int uspin_mutex_clocklock(uspin_mutex_t *m, clockid_t clock,
			  const struct timespec *abstime);
int uspin_mutex_unlock(uspin_mutex_t *m);
int uspin_mutex_destroy(uspin_mutex_t *m);
int uspin_mutex_consistent(uspin_mutex_t *m);

/* What the running kernel offers and what AUTO resolves to. */
struct uspin_info {
	int futex_lock;			/* FUTEX_LOCK available */
	int futex_lock_adaptive;	/* FUTEX_LOCK_ADAPTIVE available */
	int robust_list;		/* shared mutexes join the robust list */
	const char *running_state;	/* provider: "vdso", "bpf", "none" */
	enum uspin_policy auto_policy;	/* what AUTO resolves to */
	int policy_overridden;		/* USPIN_POLICY set it */
	unsigned int ncpus;		/* CPUs online when probed */
};

int uspin_query(struct uspin_info *info);
/* "auto", "block", "spin", "kernel-adaptive", "user-adaptive"; NULL if bad */
const char *uspin_policy_name(enum uspin_policy policy);

#ifdef __cplusplus
}
#endif

#endif /* USPIN_H */
