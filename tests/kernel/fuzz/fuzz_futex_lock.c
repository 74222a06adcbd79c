// SPDX-License-Identifier: MIT
/*
 * uspin-fuzz cases for FUTEX_LOCK, FUTEX_LOCK_ADAPTIVE and FUTEX_UNLOCK
 * (kernel/patches/futex/), mixed with the futex ops that share their words
 * (FUTEX_WAIT/WAKE/CMP_REQUEUE, the PI ops, robust lists).
 *
 * Words come from: a stable private page and a MAP_SHARED page (never
 * unmapped; a janitor thread keeps releasing them, so lock calls there may
 * wait without a timeout), a "churn" region whose pages other workers
 * unmap, remap (private or shared), write-protect and zap at any time
 * (finite timeouts only), and bad addresses (NULL, misaligned, read-only,
 * unmapped, kernel).  Values name the caller, other workers, threads that
 * are exiting or gone, kernel threads, init and TIDs that cannot exist,
 * with FUTEX_OWNER_DIED / FUTEX_WAITERS at random.  Protocol words, which
 * no other case touches, check mutual exclusion under the real protocol.
 */
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "../../sys_util.h"
#include "fuzz.h"

#ifndef FUTEX_LOCK
#error "<linux/futex.h> lacks FUTEX_LOCK: compile against the patched kernel's uapi headers"
#endif

#define NWORDS		64		/* per arena page */
#define CHURN_PAGES	16
#define NPROTO		4
#define MAX_SPAWNED	8
#define NGONE		16
#define NKTIDS		16
#define MAX_WAIT_NS	20000000L	/* finite timeouts: at most 20 ms */

static long pagesize;
static uint32_t *stable, *shared, *ro, *hole;
static char *churn;
static uint32_t proto[NPROTO];
static pid_t proto_owner[NPROTO];
static unsigned long proto_count[NPROTO];
static pid_t ktids[NKTIDS], gone[NGONE];
static unsigned int nktids, gone_next;
static int spawned;
static pthread_t janitor;
static int janitor_stop;

static const int lock_errnos[] = { ETIMEDOUT, EDEADLK, EFAULT, EINVAL, ENOSYS, 0 };
static const int unlock_errnos[] = { EPERM, EFAULT, EINVAL, ENOSYS, 0 };

/* --- words and values --------------------------------------------------- */

enum word_kind { W_STABLE, W_SHARED, W_CHURN, W_BAD };

static uint32_t *pick_word(struct fuzz_thread *t, enum word_kind *kind)
{
	uint32_t r = fuzz_below(t, 100);

	if (r < 35) {
		*kind = W_STABLE;
		return &stable[fuzz_below(t, NWORDS)];
	}
	if (r < 55) {
		*kind = W_SHARED;
		return &shared[fuzz_below(t, NWORDS)];
	}
	if (r < 85) {
		*kind = W_CHURN;
		return (uint32_t *)(churn + fuzz_below(t, CHURN_PAGES) * pagesize) +
		       fuzz_below(t, 4);
	}
	*kind = W_BAD;
	switch (fuzz_below(t, 7)) {
	case 0: return NULL;
	case 1: return (uint32_t *)((char *)&stable[fuzz_below(t, NWORDS - 1)] + 1 + fuzz_below(t, 3));
	case 2: return &ro[fuzz_below(t, NWORDS)];
	case 3: return &hole[fuzz_below(t, NWORDS)];
	case 4: return (uint32_t *)0xffffffff81000000ul;
	case 5: return (uint32_t *)0x7ffffffffffcul;
	default: return (uint32_t *)(uintptr_t)(fuzz_rand(t) & ~3ull);
	}
}

static uint32_t pick_tid(struct fuzz_thread *t)
{
	switch (fuzz_below(t, 9)) {
	case 0: return 0;
	case 1: return t->tid;
	case 2: return fuzz_worker_tid(fuzz_below(t, fuzz_nthreads));
	case 3: return gone[fuzz_below(t, NGONE)];
	case 4: return nktids ? ktids[fuzz_below(t, nktids)] : 2;
	case 5: return 1;
	case 6: return 0x3ffffff0u;			/* above PID_MAX_LIMIT */
	case 7: return 32768 + fuzz_below(t, 4194304 - 32768);
	default: return fuzz_rand(t) & FUTEX_TID_MASK;
	}
}

static uint32_t pick_value(struct fuzz_thread *t)
{
	uint32_t v = pick_tid(t);

	if (fuzz_chance(t, 10))
		v |= FUTEX_OWNER_DIED;
	if (fuzz_chance(t, 25))
		v |= FUTEX_WAITERS;
	return v;
}

static void maybe_set(struct fuzz_thread *t, uint32_t *w, enum word_kind kind)
{
	if (kind != W_BAD && fuzz_chance(t, 50))
		fuzz_poke(w, pick_value(t));
}

/* An op with random flags; rarely bits no op has. */
static int pick_flags(struct fuzz_thread *t)
{
	int f = 0;

	if (fuzz_chance(t, 50))
		f |= FUTEX_PRIVATE_FLAG;
	if (fuzz_chance(t, 20))
		f |= FUTEX_CLOCK_REALTIME;
	if (fuzz_chance(t, 2))
		f |= 1 << (9 + fuzz_below(t, 20));
	return f;
}

/*
 * A timeout for a lock op with @flags: NULL only if @may_block, else in
 * the past, within MAX_WAIT_NS, invalid, or a bad pointer.
 */
static const struct timespec *pick_timeout(struct fuzz_thread *t, int flags,
					   int may_block, struct timespec *ts)
{
	clockid_t clk = (flags & FUTEX_CLOCK_REALTIME) ? CLOCK_REALTIME : CLOCK_MONOTONIC;

	switch (fuzz_below(t, 10)) {
	case 0:
		if (may_block)
			return NULL;
		/* fall through */
	case 1:
	case 2:		/* passed already; sometimes measured on the other clock */
		if (clk == CLOCK_REALTIME && fuzz_chance(t, 30))
			clk = CLOCK_MONOTONIC;
		clock_gettime(clk, ts);
		ts->tv_sec -= fuzz_below(t, 3);
		ts->tv_nsec = fuzz_below(t, 1000000000);
		return ts;
	case 3:
		ts->tv_sec = fuzz_chance(t, 50) ? -1 : 0;
		ts->tv_nsec = fuzz_chance(t, 50) ? 1000000000L : -1;
		return ts;
	case 4:
		return fuzz_chance(t, 50) ? (void *)hole : (void *)0xffffffff81000000ul;
	default:
		clock_gettime(clk, ts);
		ts->tv_nsec += fuzz_below(t, MAX_WAIT_NS);
		if (ts->tv_nsec >= 1000000000L) {
			ts->tv_sec++;
			ts->tv_nsec -= 1000000000L;
		}
		return ts;
	}
}

/* --- actions ------------------------------------------------------------ */

/* Release a word we own after a successful lock, one way or another. */
static void release(struct fuzz_thread *t, uint32_t *w, int flags)
{
	long r;

	switch (fuzz_below(t, 10)) {
	case 0:		/* keep it: others find a live owner that never unlocks */
		return;
	case 1:
	case 2:
	case 3:		/* v1 protocol: store 0, FUTEX_WAKE */
		if (fuzz_poke(w, 0))
			return;
		r = sys_futex6(w, FUTEX_WAKE | (flags & FUTEX_PRIVATE_FLAG), 1, NULL, NULL, 0);
		fuzz_result(t, "FUTEX_WAKE", r, r < 0 ? errno : 0,
			    FUZZ_ERRNOS(EFAULT, EINVAL));
		return;
	default:	/* v2: FUTEX_UNLOCK */
		r = sys_futex6(w, FUTEX_UNLOCK | (flags & FUTEX_PRIVATE_FLAG), 0, NULL, NULL, 0);
		fuzz_result(t, "FUTEX_UNLOCK (owner)", r, r < 0 ? errno : 0, unlock_errnos);
	}
}

static void lock_once(struct fuzz_thread *t, uint32_t *w, enum word_kind kind)
{
	int adaptive = fuzz_chance(t, 50), flags = pick_flags(t), err;
	uint32_t val = 0, val3 = 0;
	void *uaddr2 = NULL;
	struct timespec ts;
	const struct timespec *to;
	long r;

	to = pick_timeout(t, flags, kind == W_STABLE || kind == W_SHARED, &ts);
	if (fuzz_chance(t, 5))
		val = fuzz_rand(t);
	if (fuzz_chance(t, 5))
		uaddr2 = &stable[fuzz_below(t, NWORDS)];
	if (fuzz_chance(t, 5))
		val3 = fuzz_rand(t);
	r = sys_futex6(w, (adaptive ? FUTEX_LOCK_ADAPTIVE : FUTEX_LOCK) | flags, val, to,
		   uaddr2, val3);
	err = fuzz_result(t, adaptive ? "FUTEX_LOCK_ADAPTIVE" : "FUTEX_LOCK", r,
			  r < 0 ? errno : 0, lock_errnos);
	if (!err && (val || uaddr2 || val3))
		fuzz_fail(t, "FUTEX_LOCK%s accepted a non-zero unused argument",
			  adaptive ? "_ADAPTIVE" : "");
	if (!err)
		release(t, w, flags);
}

static void fuzz_lock(struct fuzz_thread *t)
{
	enum word_kind kind;
	uint32_t *w = pick_word(t, &kind);

	maybe_set(t, w, kind);
	lock_once(t, w, kind);
}
FUZZ_ACTION(fuzz_lock, 30);

static void fuzz_unlock(struct fuzz_thread *t)
{
	enum word_kind kind;
	uint32_t *w = pick_word(t, &kind), val = 0, val3 = 0;
	int flags = pick_flags(t) & ~FUTEX_CLOCK_REALTIME, err;
	struct timespec ts = { 0, 0 };
	const void *to = NULL;
	void *uaddr2 = NULL;
	long r;

	if (fuzz_chance(t, 5))
		flags |= FUTEX_CLOCK_REALTIME;
	if (kind != W_BAD && fuzz_chance(t, 60))
		fuzz_poke(w, t->tid | (fuzz_chance(t, 70) ? FUTEX_WAITERS : 0) |
			     (fuzz_chance(t, 10) ? FUTEX_OWNER_DIED : 0));
	else
		maybe_set(t, w, kind);
	if (fuzz_chance(t, 5))
		val = fuzz_rand(t);
	if (fuzz_chance(t, 5))
		to = fuzz_chance(t, 50) ? (void *)&ts : (void *)hole;
	if (fuzz_chance(t, 5))
		uaddr2 = &shared[fuzz_below(t, NWORDS)];
	if (fuzz_chance(t, 5))
		val3 = fuzz_rand(t);
	r = sys_futex6(w, FUTEX_UNLOCK | flags, val, to, uaddr2, val3);
	err = fuzz_result(t, "FUTEX_UNLOCK", r, r < 0 ? errno : 0, unlock_errnos);
	if (!err && (val || to || uaddr2 || val3))
		fuzz_fail(t, "FUTEX_UNLOCK accepted a non-zero unused argument");
}
FUZZ_ACTION(fuzz_unlock, 15);

/* The other futex ops on the same words: wait, wake, requeue. */
static void fuzz_wait_wake(struct fuzz_thread *t)
{
	enum word_kind k1, k2;
	uint32_t *w = pick_word(t, &k1), *w2 = pick_word(t, &k2), v = 0;
	int priv = fuzz_chance(t, 50) ? FUTEX_PRIVATE_FLAG : 0;
	struct timespec ts = { 0, fuzz_below(t, MAX_WAIT_NS) };
	long r;

	maybe_set(t, w, k1);
	switch (fuzz_below(t, 4)) {
	case 0:
		if (k1 == W_STABLE || k1 == W_SHARED)
			v = __atomic_load_n(w, __ATOMIC_RELAXED);
		r = sys_futex6(w, FUTEX_WAIT | priv, v, &ts, NULL, 0);	/* relative */
		fuzz_result(t, "FUTEX_WAIT", r, r < 0 ? errno : 0,
			    FUZZ_ERRNOS(EAGAIN, ETIMEDOUT, EFAULT, EINVAL, EINTR));
		break;
	case 1:
		r = sys_futex6(w, FUTEX_WAKE | priv, fuzz_below(t, 4) ? 1 : INT_MAX, NULL, NULL, 0);
		fuzz_result(t, "FUTEX_WAKE", r, r < 0 ? errno : 0, FUZZ_ERRNOS(EFAULT, EINVAL));
		break;
	default:
		/* FUTEX_LOCK waiters are never requeued (-EINVAL). */
		if (k1 == W_STABLE || k1 == W_SHARED)
			v = __atomic_load_n(w, __ATOMIC_RELAXED);
		r = sys_futex6(w, FUTEX_CMP_REQUEUE | priv, fuzz_below(t, 3),
			   (void *)(long)fuzz_below(t, 3), w2, v);
		fuzz_result(t, "FUTEX_CMP_REQUEUE", r, r < 0 ? errno : 0,
			    FUZZ_ERRNOS(EAGAIN, EFAULT, EINVAL));
		break;
	}
}
FUZZ_ACTION(fuzz_wait_wake, 15);

/* PI ops on the same words: mixing PI and non-PI waiters must fail cleanly. */
static void fuzz_pi(struct fuzz_thread *t)
{
	enum word_kind kind;
	uint32_t *w = pick_word(t, &kind);
	int priv = fuzz_chance(t, 50) ? FUTEX_PRIVATE_FLAG : 0, op, err;
	struct timespec ts;
	long r;

	maybe_set(t, w, kind);
	switch (fuzz_below(t, 3)) {
	case 0:
		op = FUTEX_LOCK_PI;
		clock_gettime(CLOCK_REALTIME, &ts);
		break;
	case 1:
		op = FUTEX_LOCK_PI2;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		break;
	default:
		op = FUTEX_TRYLOCK_PI;
		break;
	}
	ts.tv_nsec += fuzz_below(t, MAX_WAIT_NS);
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	r = sys_futex6(w, op | priv, 0, op == FUTEX_TRYLOCK_PI ? NULL : &ts, NULL, 0);
	err = fuzz_result(t, op == FUTEX_LOCK_PI ? "FUTEX_LOCK_PI" :
			     op == FUTEX_LOCK_PI2 ? "FUTEX_LOCK_PI2" : "FUTEX_TRYLOCK_PI",
			  r, r < 0 ? errno : 0,
			  FUZZ_ERRNOS(ETIMEDOUT, EDEADLK, EFAULT, EINVAL, ESRCH, EPERM,
				      EAGAIN, ENOMEM, EBUSY, EWOULDBLOCK));
	if (err && fuzz_chance(t, 70))
		return;
	/* Unlock as PI (the right way), or with FUTEX_UNLOCK (the wrong one). */
	if (fuzz_chance(t, 80)) {
		r = sys_futex6(w, FUTEX_UNLOCK_PI | priv, 0, NULL, NULL, 0);
		fuzz_result(t, "FUTEX_UNLOCK_PI", r, r < 0 ? errno : 0,
			    FUZZ_ERRNOS(EPERM, EFAULT, EINVAL, EAGAIN));
	} else {
		r = sys_futex6(w, FUTEX_UNLOCK | priv, 0, NULL, NULL, 0);
		fuzz_result(t, "FUTEX_UNLOCK", r, r < 0 ? errno : 0, unlock_errnos);
	}
}
FUZZ_ACTION(fuzz_pi, 6);

/*
 * Threads that exit at once owning two words, one listed on their robust
 * list and one as its list_op_pending (each half of the time), or with a
 * list that leads into the arenas: the exit handler marks and wakes.
 */
static void *exiting_thread(void *arg)
{
	uint64_t seed = (uintptr_t)arg;
	struct fuzz_thread me = { .id = FUZZ_NO_WORKER, .rng = seed | 1 };
	struct robust_list_head head;
	struct robust_list ent;
	uint32_t *w[2];
	pid_t tid = sys_gettid();
	long off;

	me.tid = tid;
	for (int i = 0; i < 2; i++) {
		w[i] = fuzz_chance(&me, 50) ? &shared[fuzz_below(&me, NWORDS)] :
					      &stable[fuzz_below(&me, NWORDS)];
		fuzz_poke(w[i], tid | (fuzz_chance(&me, 50) ? FUTEX_WAITERS : 0));
	}
	if (fuzz_chance(&me, 70)) {
		/* The kernel finds a word at entry + futex_offset. */
		off = (char *)w[0] - (char *)&ent;
		head.futex_offset = off;
		ent.next = &head.list;
		head.list.next = fuzz_chance(&me, 50) ? &ent : &head.list;
		head.list_op_pending = fuzz_chance(&me, 50) ?
			(struct robust_list *)((char *)w[1] - off) : NULL;
		if (fuzz_chance(&me, 10))	/* garbage: a word as an entry */
			head.list.next = (struct robust_list *)w[0];
		syscall(SYS_set_robust_list, &head, sizeof(head));
	}
	if (fuzz_chance(&me, 30))
		sched_yield();
	__atomic_store_n(&gone[__atomic_fetch_add(&gone_next, 1, __ATOMIC_RELAXED) % NGONE],
			 tid, __ATOMIC_RELAXED);
	__atomic_fetch_sub(&spawned, 1, __ATOMIC_RELAXED);
	return NULL;	/* exit with the words still naming us */
}

static void fuzz_exiting_owner(struct fuzz_thread *t)
{
	pthread_attr_t attr;
	pthread_t th;
	int r;

	if (__atomic_add_fetch(&spawned, 1, __ATOMIC_RELAXED) > MAX_SPAWNED) {
		__atomic_fetch_sub(&spawned, 1, __ATOMIC_RELAXED);
		return;
	}
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&attr, 64 * 1024);
	r = pthread_create(&th, &attr, exiting_thread, (void *)(uintptr_t)fuzz_rand(t));
	pthread_attr_destroy(&attr);
	fuzz_result(t, "clone (exiting owner)", r ? -1 : 0, r, FUZZ_ERRNOS(EAGAIN, ENOMEM));
	if (r)
		__atomic_fetch_sub(&spawned, 1, __ATOMIC_RELAXED);
}
FUZZ_ACTION(fuzz_exiting_owner, 3);

/* Concurrent unmap, remap, mprotect and zap of the churn region. */
static void fuzz_churn(struct fuzz_thread *t)
{
	char *p = churn + fuzz_below(t, CHURN_PAGES) * pagesize;
	int prot[] = { PROT_NONE, PROT_READ, PROT_READ | PROT_WRITE };
	long r;
	void *m;

	switch (fuzz_below(t, 5)) {
	case 0:
		r = munmap(p, pagesize);
		fuzz_result(t, "munmap", r, r ? errno : 0, FUZZ_ERRNOS(ENOMEM));
		break;
	case 1:
	case 2:
		m = mmap(p, pagesize, PROT_READ | PROT_WRITE,
			 (fuzz_chance(t, 50) ? MAP_SHARED : MAP_PRIVATE) |
			 MAP_ANONYMOUS | MAP_FIXED, -1, 0);
		fuzz_result(t, "mmap", m == MAP_FAILED ? -1 : 0, m == MAP_FAILED ? errno : 0,
			    FUZZ_ERRNOS(ENOMEM));
		if (m != MAP_FAILED)
			for (int i = 0; i < 4; i++)
				fuzz_poke((uint32_t *)p + i, pick_value(t));
		break;
	case 3:
		r = mprotect(p, pagesize, prot[fuzz_below(t, 3)]);
		fuzz_result(t, "mprotect", r, r ? errno : 0, FUZZ_ERRNOS(ENOMEM));
		break;
	default:
		/* ENOSYS: tinyconfig has no ADVISE_SYSCALLS */
		r = madvise(p, pagesize, MADV_DONTNEED);
		fuzz_result(t, "madvise", r, r ? errno : 0, FUZZ_ERRNOS(ENOMEM, EINVAL, ENOSYS));
		break;
	}
}
FUZZ_ACTION(fuzz_churn, 8);

/* A child process on the shared words: lock, unlock, die holding locks. */
static int child_main(struct fuzz_thread *t, void *arg)
{
	t->tid = sys_gettid();
	for (int i = 0; i < 20; i++) {
		uint32_t *w = &shared[fuzz_below(t, NWORDS)];

		if (fuzz_chance(t, 70))
			lock_once(t, w, W_CHURN);	/* finite timeouts only */
		else
			fuzz_unlock(t);
	}
	if (fuzz_chance(t, 50))
		fuzz_poke(&shared[fuzz_below(t, NWORDS)], t->tid | FUTEX_WAITERS);
	return 0;	/* exits, maybe owning shared words */
}

static void fuzz_fork_child(struct fuzz_thread *t)
{
	fuzz_fork(t, child_main, NULL);
}
FUZZ_ACTION(fuzz_fork_child, 1);

/*
 * The protocol, on words no other case touches: mutual exclusion must
 * hold whatever the kernel does elsewhere.
 */
static void fuzz_protocol(struct fuzz_thread *t)
{
	unsigned int k = fuzz_below(t, NPROTO);
	uint32_t *w = &proto[k], zero = 0;
	int op = fuzz_chance(t, 50) ? FUTEX_LOCK_ADAPTIVE : FUTEX_LOCK;
	struct timespec ts;
	const struct timespec *to = NULL;
	long r;

	if (fuzz_chance(t, 50)) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		ts.tv_nsec += fuzz_below(t, MAX_WAIT_NS);
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		to = &ts;
	}
	if (!__atomic_compare_exchange_n(w, &zero, t->tid, 0, __ATOMIC_ACQUIRE,
					 __ATOMIC_RELAXED)) {
		r = sys_futex6(w, op | FUTEX_PRIVATE_FLAG, 0, to, NULL, 0);
		if (fuzz_result(t, "FUTEX_LOCK* (protocol)", r, r < 0 ? errno : 0,
				FUZZ_ERRNOS(ETIMEDOUT)))
			return;
	}
	if ((__atomic_load_n(w, __ATOMIC_RELAXED) & FUTEX_TID_MASK) != (uint32_t)t->tid)
		fuzz_fail(t, "protocol word %u: acquired, but it reads %#x", k, *w);
	if (__atomic_exchange_n(&proto_owner[k], t->tid, __ATOMIC_RELAXED))
		fuzz_fail(t, "protocol word %u: two owners", k);
	proto_count[k]++;
	if (fuzz_chance(t, 10))
		sched_yield();
	__atomic_store_n(&proto_owner[k], 0, __ATOMIC_RELAXED);
	zero = t->tid;
	if (__atomic_compare_exchange_n(w, &zero, 0, 0, __ATOMIC_RELEASE, __ATOMIC_RELAXED))
		return;
	if (fuzz_chance(t, 70)) {
		r = sys_futex6(w, FUTEX_UNLOCK_PRIVATE, 0, NULL, NULL, 0);
		fuzz_result(t, "FUTEX_UNLOCK (protocol)", r, r < 0 ? errno : 0, NULL);
	} else {
		__atomic_store_n(w, 0, __ATOMIC_RELEASE);
		r = sys_futex6(w, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
		fuzz_result(t, "FUTEX_WAKE (protocol)", r, r < 0 ? errno : 0, NULL);
	}
}
FUZZ_ACTION(fuzz_protocol, 20);

/* --- setup: arenas, kernel TIDs, the janitor ------------------------------ */

/* Frees the stable and shared words, so lock calls there may block. */
static void *janitor_fn(void *arg)
{
	struct timespec ts = { 0, 5000000 };

	while (!__atomic_load_n(&janitor_stop, __ATOMIC_RELAXED)) {
		for (int i = 0; i < NWORDS; i++) {
			__atomic_store_n(&stable[i], 0, __ATOMIC_RELAXED);
			__atomic_store_n(&shared[i], 0, __ATOMIC_RELAXED);
			sys_futex(&stable[i], FUTEX_WAKE_PRIVATE, INT_MAX, NULL);
			sys_futex(&stable[i], FUTEX_WAKE, INT_MAX, NULL);
			sys_futex(&shared[i], FUTEX_WAKE, INT_MAX, NULL);
			sys_futex(&shared[i], FUTEX_WAKE_PRIVATE, INT_MAX, NULL);
		}
		nanosleep(&ts, NULL);
	}
	return NULL;
}

static void find_kernel_threads(void)
{
	char path[64], buf[512];

	/* kthreadd is 2; its children are kernel threads. */
	ktids[nktids++] = 2;
	for (int pid = 3; pid < 2000 && nktids < NKTIDS; pid++) {
		FILE *f;
		char *p;
		int ppid;

		snprintf(path, sizeof(path), "/proc/%d/stat", pid);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fgets(buf, sizeof(buf), f) && (p = strrchr(buf, ')')) &&
		    sscanf(p + 2, "%*c %d", &ppid) == 1 && ppid == 2)
			ktids[nktids++] = pid;
		fclose(f);
	}
}

static void *map(size_t len, int prot, int flags)
{
	void *p = mmap(NULL, len, prot, flags | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		perror("uspin-fuzz: mmap");
		exit(1);
	}
	return p;
}

static void futex_lock_setup(void)
{
	uint32_t probe = 0;

	if (sys_futex6(&probe, FUTEX_LOCK_PRIVATE, 0, NULL, NULL, 0)) {
		printf("SKIP: uspin-fuzz: this kernel has no FUTEX_LOCK (%s)\n",
		       strerror(errno));
		exit(77);
	}
	pagesize = sysconf(_SC_PAGESIZE);
	stable = map(pagesize, PROT_READ | PROT_WRITE, MAP_PRIVATE);
	shared = map(pagesize, PROT_READ | PROT_WRITE, MAP_SHARED);
	ro = map(pagesize, PROT_READ, MAP_PRIVATE);
	/* Inaccessible, and reserved: an unmapped page could be reused. */
	hole = map(pagesize, PROT_NONE, MAP_PRIVATE);
	churn = map(CHURN_PAGES * pagesize, PROT_READ | PROT_WRITE, MAP_PRIVATE);
	for (int i = 0; i < NGONE; i++)
		gone[i] = 0x3ffffff0u;
	find_kernel_threads();
	if (pthread_create(&janitor, NULL, janitor_fn, NULL)) {
		perror("uspin-fuzz: janitor");
		exit(1);
	}
}
FUZZ_SETUP(futex_lock_setup);

static void futex_lock_teardown(void)
{
	unsigned long n = 0;

	__atomic_store_n(&janitor_stop, 1, __ATOMIC_RELAXED);
	pthread_join(janitor, NULL);
	while (__atomic_load_n(&spawned, __ATOMIC_RELAXED) > 0)
		usleep(1000);
	for (int k = 0; k < NPROTO; k++)
		n += proto_count[k];
	printf("uspin-fuzz: futex_lock: %u kernel threads named, %lu protocol acquisitions\n",
	       nktids, n);
}
FUZZ_TEARDOWN(futex_lock_teardown);
