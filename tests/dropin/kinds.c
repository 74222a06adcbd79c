// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * kinds.c - every mutex kind glibc has, as a program sees it: the four
 * types (initialised with an attribute and with the static initializers),
 * robust, process-shared, priority inheritance and protection.  Each
 * kind's errors (EDEADLK, EPERM, EBUSY, EAGAIN, ETIMEDOUT, EINVAL after
 * destroy), recursion, and mutual exclusion under contention.  The same
 * checks pass on glibc and on the drop-in, under every policy; on the
 * drop-in the lock word must show uspin's protocol (the owner's TID) for
 * the kinds it runs and glibc's for the priority kinds.
 */
#include <sched.h>
#include <sys/rseq.h>
#include <stdio.h>

#include "util.h"

static const char *const names[MK_COUNT] = {
	"normal", "errorcheck", "recursive", "adaptive", "static-normal",
	"static-recursive", "static-errorcheck", "static-adaptive",
	"robust-normal", "robust-errorcheck", "robust-recursive", "pshared",
	"pshared-robust", "pi", "pp", "pi-robust",
};

const char *mkind_name(enum mkind k)
{
	return names[k];
}

int mkind_type(enum mkind k)
{
	switch (k) {
	case MK_ERRORCHECK: case MK_STATIC_ERRORCHECK: case MK_ROBUST_ERRORCHECK:
		return PTHREAD_MUTEX_ERRORCHECK;
	case MK_RECURSIVE: case MK_STATIC_RECURSIVE: case MK_ROBUST_RECURSIVE:
		return PTHREAD_MUTEX_RECURSIVE;
	case MK_ADAPTIVE: case MK_STATIC_ADAPTIVE:
		return PTHREAD_MUTEX_ADAPTIVE_NP;
	default:
		return PTHREAD_MUTEX_NORMAL;
	}
}

int mkind_robust(enum mkind k)
{
	return k == MK_ROBUST_NORMAL || k == MK_ROBUST_ERRORCHECK ||
	       k == MK_ROBUST_RECURSIVE || k == MK_PSHARED_ROBUST ||
	       k == MK_PI_ROBUST;
}

int mkind_glibc(enum mkind k)
{
	return k == MK_PI || k == MK_PP || k == MK_PI_ROBUST;
}

int mkind_init(pthread_mutex_t *m, enum mkind k)
{
	static const pthread_mutex_t s_normal = PTHREAD_MUTEX_INITIALIZER;
	static const pthread_mutex_t s_rec = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
	static const pthread_mutex_t s_err = PTHREAD_ERRORCHECK_MUTEX_INITIALIZER_NP;
	static const pthread_mutex_t s_adp = PTHREAD_ADAPTIVE_MUTEX_INITIALIZER_NP;
	pthread_mutexattr_t a;
	int r;

	switch (k) {
	case MK_STATIC_NORMAL:
		*m = s_normal;
		return 0;
	case MK_STATIC_RECURSIVE:
		*m = s_rec;
		return 0;
	case MK_STATIC_ERRORCHECK:
		*m = s_err;
		return 0;
	case MK_STATIC_ADAPTIVE:
		*m = s_adp;
		return 0;
	default:
		break;
	}
	pthread_mutexattr_init(&a);
	pthread_mutexattr_settype(&a, mkind_type(k));
	if (mkind_robust(k))
		pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
	if (k == MK_PSHARED || k == MK_PSHARED_ROBUST)
		pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED);
	if (k == MK_PI || k == MK_PI_ROBUST)
		pthread_mutexattr_setprotocol(&a, PTHREAD_PRIO_INHERIT);
	if (k == MK_PP) {
		pthread_mutexattr_setprotocol(&a, PTHREAD_PRIO_PROTECT);
		pthread_mutexattr_setprioceiling(&a, sched_get_priority_min(SCHED_FIFO));
	}
	r = pthread_mutex_init(m, &a);
	pthread_mutexattr_destroy(&a);
	return r;
}

/* PP needs a real-time thread to lock (EINVAL otherwise, on glibc too). */
static int pp_lock_works(pthread_mutex_t *m)
{
	int r = pthread_mutex_lock(m);

	if (r == 0)
		pthread_mutex_unlock(m);
	return r == 0;
}

START_TEST(runs_where_expected)
{
	int e = expect_uspin();

	if (e < 0)
		return;	/* not told: nothing to compare */
	ck_assert_int_eq(on_uspin(), e);
}
END_TEST

/* The lock word shows who runs the kind. */
START_TEST(word_protocol)
{
	enum mkind k = (enum mkind)_i;
	pthread_mutex_t m;
	uint32_t w;

	ck_assert_int_eq(mkind_init(&m, k), 0);
	if (k == MK_PP && !pp_lock_works(&m))
		return;
	ck_assert_int_eq(pthread_mutex_lock(&m), 0);
	w = word_of(&m);
	if (mkind_glibc(k) || !on_uspin()) {
		/* glibc: 1 (normal types), or TID for robust and PI, and
		   the owner in __owner */
		if (k != MK_PP)
			ck_assert_uint_eq(owner_field(&m) & 0x3fffffff, sys_gettid());
	} else if (k == MK_PSHARED) {
		/* Shared, not robust: the TID and bit 29 (uspin(3)). */
		ck_assert_uint_eq(w & 0x3fffffff, sys_gettid() | 0x20000000u);
	} else {
		ck_assert_uint_eq(w & 0x3fffffff, sys_gettid());
	}
	ck_assert_int_eq(pthread_mutex_unlock(&m), 0);
	if (!mkind_glibc(k) && on_uspin())
		ck_assert_uint_eq(word_of(&m), 0);
	ck_assert_int_eq(pthread_mutex_destroy(&m), 0);
}
END_TEST

struct other {
	pthread_mutex_t *m;
	int (*op)(pthread_mutex_t *);
	int ret;
};

static void *run_other(void *arg)
{
	struct other *o = arg;

	o->ret = o->op(o->m);
	return NULL;
}

static int in_other_thread(pthread_mutex_t *m, int (*op)(pthread_mutex_t *))
{
	struct other o = { m, op, -1 };
	pthread_t t;

	ck_assert_int_eq(pthread_create(&t, NULL, run_other, &o), 0);
	pthread_join(t, NULL);
	return o.ret;
}

static int relock_timed(pthread_mutex_t *m)
{
	struct timespec d = deadline_in(CLOCK_REALTIME, 20000000);

	return pthread_mutex_timedlock(m, &d);
}

/* Errors and recursion, per type, as glibc defines them. */
START_TEST(type_semantics)
{
	enum mkind k = (enum mkind)_i;
	int type = mkind_type(k), robust = mkind_robust(k);
	struct timespec past = { 0, 0 }, bad = { 0, 1000000000L };
	pthread_mutex_t m;

	ck_assert_int_eq(mkind_init(&m, k), 0);
	if (k == MK_PP && !pp_lock_works(&m))
		return;
	ck_assert_int_eq(pthread_mutex_lock(&m), 0);
	/* Others see it taken. */
	ck_assert_int_eq(in_other_thread(&m, pthread_mutex_trylock), EBUSY);
	ck_assert_int_eq(in_other_thread(&m, relock_timed), ETIMEDOUT);
	switch (type) {
	case PTHREAD_MUTEX_ERRORCHECK:
		ck_assert_int_eq(pthread_mutex_lock(&m), EDEADLK);
		ck_assert_int_eq(pthread_mutex_timedlock(&m, &past), EDEADLK);
		/* glibc: EDEADLK for robust ones, EBUSY for the others */
		ck_assert_int_eq(pthread_mutex_trylock(&m), robust ? EDEADLK : EBUSY);
		ck_assert_int_eq(in_other_thread(&m, pthread_mutex_unlock), EPERM);
		break;
	case PTHREAD_MUTEX_RECURSIVE:
		ck_assert_int_eq(pthread_mutex_lock(&m), 0);
		ck_assert_int_eq(pthread_mutex_trylock(&m), 0);
		ck_assert_int_eq(pthread_mutex_timedlock(&m, &past), 0);
		ck_assert_int_eq(in_other_thread(&m, pthread_mutex_unlock), EPERM);
		ck_assert_int_eq(pthread_mutex_unlock(&m), 0);
		ck_assert_int_eq(pthread_mutex_unlock(&m), 0);
		ck_assert_int_eq(pthread_mutex_unlock(&m), 0);
		/* Still held once. */
		ck_assert_int_eq(in_other_thread(&m, pthread_mutex_trylock), EBUSY);
		break;
	default:	/* normal, adaptive: a relock waits (here: times out) */
		ck_assert_int_eq(pthread_mutex_trylock(&m), EBUSY);
		if (!robust || !mkind_glibc(k))
			ck_assert_int_eq(relock_timed(&m), ETIMEDOUT);
		break;
	}
	/* Timed lock checks abstime only when it would block. */
	ck_assert_int_eq(in_other_thread(&m, relock_timed), ETIMEDOUT);
	if (!robust && !mkind_glibc(k))
		ck_assert_int_eq(pthread_mutex_destroy(&m), EBUSY);
	ck_assert_int_eq(pthread_mutex_unlock(&m), 0);
	if (type != PTHREAD_MUTEX_NORMAL && type != PTHREAD_MUTEX_ADAPTIVE_NP)
		ck_assert_int_eq(pthread_mutex_unlock(&m), EPERM);
	ck_assert_int_eq(pthread_mutex_timedlock(&m, &bad), 0);	/* free */
	ck_assert_int_eq(pthread_mutex_unlock(&m), 0);
	ck_assert_int_eq(pthread_mutex_clocklock(&m, CLOCK_MONOTONIC, &past), 0);
	ck_assert_int_eq(pthread_mutex_unlock(&m), 0);
	ck_assert_int_eq(pthread_mutex_clocklock(&m, CLOCK_PROCESS_CPUTIME_ID,
						 &past), EINVAL);
	ck_assert_int_eq(pthread_mutex_destroy(&m), 0);
	/* Destroyed: EINVAL (glibc's -1 kind), and init makes it new. */
	if (!mkind_glibc(k))
		ck_assert_int_eq(pthread_mutex_lock(&m), EINVAL);
	ck_assert_int_eq(mkind_init(&m, k), 0);
	ck_assert_int_eq(pthread_mutex_lock(&m), 0);
	ck_assert_int_eq(pthread_mutex_unlock(&m), 0);
	ck_assert_int_eq(pthread_mutex_destroy(&m), 0);
}
END_TEST

/* A recursive mutex counts; a count that would overflow is EAGAIN. */
START_TEST(recursion_depth)
{
	pthread_mutex_t m = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
	int i, n = 1000;

	for (i = 0; i < n; i++)
		ck_assert_int_eq(pthread_mutex_lock(&m), 0);
	ck_assert_uint_eq(m.__data.__count, (unsigned int)n);
	for (i = 0; i < n; i++)
		ck_assert_int_eq(pthread_mutex_unlock(&m), 0);
	ck_assert_int_eq(pthread_mutex_unlock(&m), EPERM);
	ck_assert_int_eq(pthread_mutex_lock(&m), 0);
	m.__data.__count = UINT32_MAX;
	ck_assert_int_eq(pthread_mutex_lock(&m), EAGAIN);
	ck_assert_int_eq(pthread_mutex_trylock(&m), EAGAIN);
	m.__data.__count = 1;
	ck_assert_int_eq(pthread_mutex_unlock(&m), 0);
}
END_TEST

/*
 * Under USPIN_SLICE_EXT=force (check.sh's slice run): the time-slice
 * request (byte 28 of the thread's rseq area) is set while the thread
 * holds a lock word, and a recursive mutex is one word however deep.
 */
static int slice_request(void)
{
	return *(volatile uint8_t *)((char *)__builtin_thread_pointer() +
				     __rseq_offset + 28);
}

START_TEST(slice_request_follows_words)
{
	pthread_mutex_t r = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
	pthread_mutex_t n = PTHREAD_MUTEX_INITIALIZER;

	ck_assert_uint_gt(__rseq_size, 0);
	ck_assert_int_eq(slice_request(), 0);
	ck_assert_int_eq(pthread_mutex_lock(&r), 0);
	ck_assert_int_eq(slice_request(), 1);
	ck_assert_int_eq(pthread_mutex_lock(&r), 0);
	ck_assert_int_eq(pthread_mutex_trylock(&r), 0);
	ck_assert_int_eq(pthread_mutex_unlock(&r), 0);
	ck_assert_int_eq(pthread_mutex_unlock(&r), 0);
	ck_assert_int_eq(slice_request(), 1);	/* still held once */
	ck_assert_int_eq(pthread_mutex_lock(&n), 0);
	ck_assert_int_eq(pthread_mutex_unlock(&r), 0);
	ck_assert_int_eq(slice_request(), 1);	/* n still held */
	ck_assert_int_eq(pthread_mutex_unlock(&n), 0);
	ck_assert_int_eq(slice_request(), 0);
	ck_assert_int_eq(pthread_mutex_trylock(&n), 0);
	ck_assert_int_eq(pthread_mutex_trylock(&n), EBUSY);
	ck_assert_int_eq(slice_request(), 1);
	ck_assert_int_eq(pthread_mutex_unlock(&n), 0);
	ck_assert_int_eq(slice_request(), 0);
}
END_TEST

/* A normal mutex may be unlocked by another thread (glibc allows it). */
START_TEST(normal_unlock_by_other)
{
	pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

	ck_assert_int_eq(pthread_mutex_lock(&m), 0);
	ck_assert_int_eq(in_other_thread(&m, pthread_mutex_unlock), 0);
	ck_assert_int_eq(pthread_mutex_trylock(&m), 0);
	ck_assert_int_eq(pthread_mutex_unlock(&m), 0);
}
END_TEST

/*
 * glibc: a normal mutex relocked by its owner sleeps until another thread
 * unlocks it (allowed for normal mutexes), then takes it (tst-cond14).
 */
struct relock {
	pthread_mutex_t m;
	volatile int asleep;
	int ret;
};

static void *relock_self(void *arg)
{
	struct relock *r = arg;

	pthread_mutex_lock(&r->m);
	__atomic_store_n(&r->asleep, 1, __ATOMIC_RELEASE);
	r->ret = pthread_mutex_lock(&r->m);	/* sleeps */
	if (r->ret == 0)
		pthread_mutex_unlock(&r->m);
	return NULL;
}

START_TEST(normal_relock_waits_for_other_unlock)
{
	enum mkind k = (enum mkind)_i;
	struct relock r = { .ret = -1 };
	pthread_t t;

	if (mkind_type(k) != PTHREAD_MUTEX_NORMAL &&
	    mkind_type(k) != PTHREAD_MUTEX_ADAPTIVE_NP)
		return;
	if (mkind_robust(k) || mkind_glibc(k))
		return;		/* robust: only the owner may unlock */
	ck_assert_int_eq(mkind_init(&r.m, k), 0);
	ck_assert_int_eq(pthread_create(&t, NULL, relock_self, &r), 0);
	ck_assert(wait_flag(&r.asleep));
	usleep(20000);
	ck_assert_int_eq(r.ret, -1);
	ck_assert_int_eq(pthread_mutex_unlock(&r.m), 0);	/* not ours */
	pthread_join(t, NULL);
	ck_assert_int_eq(r.ret, 0);
	ck_assert_int_eq(pthread_mutex_trylock(&r.m), 0);
	ck_assert_int_eq(pthread_mutex_unlock(&r.m), 0);
}
END_TEST

/* Contention: mutual exclusion and progress, every kind. */
struct hammer {
	pthread_mutex_t m;
	long counter, per_thread, violations;
	volatile int inside;
	int recursive;
};

static void *hammer_main(void *arg)
{
	struct hammer *h = arg;
	long i, c;

	for (i = 0; i < h->per_thread; i++) {
		int r = (i % 7 == 0) ? pthread_mutex_trylock(&h->m) :
			(i % 5 == 0) ? relock_timed(&h->m) :
			pthread_mutex_lock(&h->m);

		if (r == EBUSY || r == ETIMEDOUT) {
			i--;
			continue;
		}
		if (r != 0) {
			h->violations++;
			continue;
		}
		if (h->recursive && i % 3 == 0) {
			pthread_mutex_lock(&h->m);
			pthread_mutex_unlock(&h->m);
		}
		if (__atomic_exchange_n(&h->inside, 1, __ATOMIC_ACQUIRE))
			__atomic_add_fetch(&h->violations, 1, __ATOMIC_RELAXED);
		c = h->counter;
		if (i % 64 == 0)
			sched_yield();
		h->counter = c + 1;
		__atomic_store_n(&h->inside, 0, __ATOMIC_RELEASE);
		pthread_mutex_unlock(&h->m);
	}
	return NULL;
}

START_TEST(contention)
{
	enum mkind k = (enum mkind)_i;
	struct hammer h = { .recursive = mkind_type(k) == PTHREAD_MUTEX_RECURSIVE };
	pthread_t t[4];
	int i;

	ck_assert_int_eq(mkind_init(&h.m, k), 0);
	if (k == MK_PP && !pp_lock_works(&h.m))
		return;
	h.per_thread = test_scaled(5000);
	for (i = 0; i < 4; i++)
		ck_assert_int_eq(pthread_create(&t[i], NULL, hammer_main, &h), 0);
	for (i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	ck_assert_int_eq(h.violations, 0);
	ck_assert_int_eq(h.counter, 4 * h.per_thread);
	ck_assert_int_eq(pthread_mutex_destroy(&h.m), 0);
}
END_TEST

/* Robust: the owner thread exits holding it. */
static int lock_only(pthread_mutex_t *m)
{
	return pthread_mutex_lock(m);
}

START_TEST(robust_owner_exits)
{
	enum mkind k = (enum mkind)_i;
	pthread_mutex_t m;

	if (!mkind_robust(k))
		return;
	ck_assert_int_eq(mkind_init(&m, k), 0);
	ck_assert_int_eq(in_other_thread(&m, lock_only), 0);
	ck_assert_int_eq(pthread_mutex_lock(&m), EOWNERDEAD);
	if (mkind_type(k) == PTHREAD_MUTEX_RECURSIVE) {
		/* glibc: counted, but each unlock above 1 says so */
		ck_assert_int_eq(pthread_mutex_lock(&m), 0);
		ck_assert_int_eq(pthread_mutex_unlock(&m), ENOTRECOVERABLE);
	}
	/* Not made consistent: unrecoverable for everybody. */
	ck_assert_int_eq(pthread_mutex_unlock(&m), 0);
	ck_assert_int_eq(pthread_mutex_lock(&m), ENOTRECOVERABLE);
	ck_assert_int_eq(pthread_mutex_trylock(&m), ENOTRECOVERABLE);
	ck_assert_int_eq(pthread_mutex_destroy(&m), 0);

	ck_assert_int_eq(mkind_init(&m, k), 0);
	ck_assert_int_eq(in_other_thread(&m, lock_only), 0);
	ck_assert_int_eq(pthread_mutex_trylock(&m), EOWNERDEAD);
	ck_assert_int_eq(pthread_mutex_consistent(&m), 0);
	ck_assert_int_eq(pthread_mutex_consistent(&m), EINVAL);
	ck_assert_int_eq(pthread_mutex_unlock(&m), 0);
	ck_assert_int_eq(pthread_mutex_lock(&m), 0);
	ck_assert_int_eq(pthread_mutex_unlock(&m), 0);
	ck_assert_int_eq(pthread_mutex_destroy(&m), 0);
}
END_TEST

START_TEST(consistent_needs_robust)
{
	pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

	ck_assert_int_eq(pthread_mutex_lock(&m), 0);
	ck_assert_int_eq(pthread_mutex_consistent(&m), EINVAL);
	ck_assert_int_eq(pthread_mutex_unlock(&m), 0);
}
END_TEST

Suite *suite_kinds(void)
{
	TCase *tc;
	Suite *s = check_suite_one("kinds", 60, &tc);

	tcase_add_test(tc, runs_where_expected);
	tcase_add_loop_test(tc, word_protocol, 0, MK_COUNT);
	tcase_add_loop_test(tc, type_semantics, 0, MK_COUNT);
	tcase_add_test(tc, recursion_depth);
	tcase_add_test(tc, normal_unlock_by_other);
	tcase_add_loop_test(tc, normal_relock_waits_for_other_unlock, 0, MK_COUNT);
	tcase_add_loop_test(tc, contention, 0, MK_COUNT);
	tcase_add_loop_test(tc, robust_owner_exits, 0, MK_COUNT);
	tcase_add_test(tc, consistent_needs_robust);
	if (getenv("USPIN_SLICE_EXT") && !strcmp(getenv("USPIN_SLICE_EXT"), "force") &&
	    getenv("DROPIN_EXPECT") && !strcmp(getenv("DROPIN_EXPECT"), "uspin"))
		tcase_add_test(tc, slice_request_follows_words);
	return s;
}
