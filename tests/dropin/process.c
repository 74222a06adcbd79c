// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * process.c - fork() and process-shared objects: mutexes and condvars in
 * MAP_SHARED memory used by parent and child, robust ones whose owner
 * process dies (also while the other waits on a condvar), fork() while
 * other threads hold locks (the child sees them held forever, can use
 * everything else, including new threads and condvars), atfork handlers
 * that take locks around fork (glibc: in the child, errorcheck and
 * recursive ones refuse the new TID's unlock and stay locked; uspin: the
 * child's thread owns them), and a shared mutex used from two pid
 * namespaces whose TIDs collide (each kind, against what glibc does).
 */
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "../scenarios/cond.h"
#include "../scenarios/process.h"
#include "util.h"

/* Parent and child take turns on a shared mutex and condvar
   (scenarios/cond.c); robust or not. */
START_TEST(pshared_ping_pong)
{
	struct sc_pair *p = sc_pair_map(_i ? LK_ROBUST : LK_SHARED);

	sc_ping_pong(p, (int)test_scaled(300));
	sc_pair_unmap(p);
}
END_TEST

/* A child dies holding the robust mutex: before we lock, or while we wait
   on the condvar it signalled (scenarios/cond.c). */
START_TEST(pshared_robust_owner_dies)
{
	struct sc_pair *p = sc_pair_map(LK_ROBUST);
	pid_t pid;

	if (_i == 1) {
		sc_owner_dies_after_signal(p, 1, 1);
	} else {
		pid = fork();
		ck_assert_int_ge(pid, 0);
		if (pid == 0)	/* dies holding it */
			_exit(pthread_mutex_lock((pthread_mutex_t *)&p->m) ? 2 : 0);
		ck_assert_int_eq(check_child_status(pid), 0);
		sc_lock_after_owner_died(&p->m);
	}
	sc_pair_unmap(p);
}
END_TEST

/* ---- fork while other threads hold locks ---- */
struct held {
	pthread_mutex_t m;
	volatile int locked, release;
};

static void *hold_it(void *arg)
{
	struct held *h = arg;

	pthread_mutex_lock(&h->m);
	__atomic_store_n(&h->locked, 1, __ATOMIC_RELEASE);
	wait_flag(&h->release);
	pthread_mutex_unlock(&h->m);
	return NULL;
}

struct pc {
	pthread_mutex_t m;
	pthread_cond_t c;
	int items, taken;
};

static void *pc_consume(void *arg)
{
	struct pc *p = arg;
	int i;

	for (i = 0; i < 100; i++) {
		pthread_mutex_lock(&p->m);
		while (p->items == 0)
			pthread_cond_wait(&p->c, &p->m);
		p->items--;
		p->taken++;
		pthread_mutex_unlock(&p->m);
	}
	return NULL;
}

static int child_after_fork(struct held *h, pthread_mutex_t *free_m,
			    pthread_cond_t *old_c)
{
	struct timespec d = deadline_in(CLOCK_REALTIME, 20000000);
	struct pc p = { .m = PTHREAD_MUTEX_INITIALIZER,
			.c = PTHREAD_COND_INITIALIZER };
	pthread_t t;
	int i;

	/* Held by a thread that is not in this process: held for ever. */
	if (pthread_mutex_trylock(&h->m) != EBUSY)
		return 10;
	if (pthread_mutex_timedlock(&h->m, &d) != ETIMEDOUT)
		return 11;
	/* Everything else works, threads and condvars included. */
	if (pthread_mutex_lock(free_m) || pthread_mutex_unlock(free_m))
		return 12;
	if (pthread_cond_signal(old_c) || pthread_cond_broadcast(old_c))
		return 13;
	if (pthread_create(&t, NULL, pc_consume, &p))
		return 14;
	for (i = 0; i < 100; i++) {
		pthread_mutex_lock(&p.m);
		p.items++;
		pthread_cond_signal(&p.c);
		pthread_mutex_unlock(&p.m);
	}
	pthread_join(t, NULL);
	if (p.taken != 100)
		return 15;
	return 0;
}

START_TEST(fork_with_locks_held_by_others)
{
	struct held h = { .m = PTHREAD_MUTEX_INITIALIZER };
	pthread_mutex_t free_m = PTHREAD_ERRORCHECK_MUTEX_INITIALIZER_NP;
	pthread_cond_t old_c = PTHREAD_COND_INITIALIZER;
	pthread_t t;
	pid_t pid;

	ck_assert_int_eq(pthread_create(&t, NULL, hold_it, &h), 0);
	ck_assert(wait_flag(&h.locked));
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0)
		_exit(child_after_fork(&h, &free_m, &old_c));
	ck_assert_int_eq(check_child_status(pid), 0);
	__atomic_store_n(&h.release, 1, __ATOMIC_RELEASE);
	pthread_join(t, NULL);
	ck_assert_int_eq(pthread_mutex_lock(&h.m), 0);
	ck_assert_int_eq(pthread_mutex_unlock(&h.m), 0);
}
END_TEST

/* atfork handlers lock everything around fork, while threads use it. */
static pthread_mutex_t af_e = PTHREAD_ERRORCHECK_MUTEX_INITIALIZER_NP;
static pthread_mutex_t af_r = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
static pthread_mutex_t af_n = PTHREAD_MUTEX_INITIALIZER;
static int af_parent[3], af_child[3];
static volatile int af_stop;

static void af_prepare(void)
{
	pthread_mutex_lock(&af_e);
	pthread_mutex_lock(&af_r);
	pthread_mutex_lock(&af_n);
}

static void af_in_parent(void)
{
	af_parent[0] = pthread_mutex_unlock(&af_e);
	af_parent[1] = pthread_mutex_unlock(&af_r);
	af_parent[2] = pthread_mutex_unlock(&af_n);
}

static void af_in_child(void)
{
	af_child[0] = pthread_mutex_unlock(&af_e);
	af_child[1] = pthread_mutex_unlock(&af_r);
	af_child[2] = pthread_mutex_unlock(&af_n);
}

static void *af_user(void *arg)
{
	while (!__atomic_load_n(&af_stop, __ATOMIC_ACQUIRE)) {
		pthread_mutex_lock(&af_e);
		pthread_mutex_lock(&af_r);
		pthread_mutex_lock(&af_r);
		pthread_mutex_lock(&af_n);
		pthread_mutex_unlock(&af_n);
		pthread_mutex_unlock(&af_r);
		pthread_mutex_unlock(&af_r);
		pthread_mutex_unlock(&af_e);
	}
	return arg;
}

START_TEST(atfork_handlers)
{
	pthread_t t[2];
	int i, n = (int)test_scaled(20);
	pid_t pid;

	ck_assert_int_eq(pthread_atfork(af_prepare, af_in_parent, af_in_child), 0);
	for (i = 0; i < 2; i++)
		ck_assert_int_eq(pthread_create(&t[i], NULL, af_user, NULL), 0);
	for (i = 0; i < n; i++) {
		pid = fork();
		ck_assert_int_ge(pid, 0);
		if (pid == 0) {
			/*
			 * glibc: the child's TID is new, so errorcheck and
			 * recursive unlocks say EPERM and those stay locked;
			 * the normal one unlocked.  uspin: the child's thread
			 * owns what its forking thread held (POSIX's atfork
			 * pattern), so all three are unlocked.
			 */
			int owns = on_uspin();

			if (af_child[0] != (owns ? 0 : EPERM) ||
			    af_child[1] != (owns ? 0 : EPERM) || af_child[2] != 0)
				_exit(20);
			if (pthread_mutex_trylock(&af_e) != (owns ? 0 : EBUSY) ||
			    pthread_mutex_trylock(&af_r) != (owns ? 0 : EBUSY))
				_exit(21);
			if (owns && (pthread_mutex_unlock(&af_e) ||
				     pthread_mutex_unlock(&af_r)))
				_exit(23);
			if (pthread_mutex_lock(&af_n) || pthread_mutex_unlock(&af_n))
				_exit(22);
			_exit(0);
		}
		ck_assert_int_eq(af_parent[0], 0);
		ck_assert_int_eq(af_parent[1], 0);
		ck_assert_int_eq(af_parent[2], 0);
		ck_assert_int_eq(check_child_status(pid), 0);
	}
	__atomic_store_n(&af_stop, 1, __ATOMIC_RELEASE);
	for (i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
}
END_TEST

/*
 * Pid namespaces: A, TID 1 in a namespace of its own, holds a shared
 * mutex; B, TID 1 in another, tries it: trylock, a 50 ms timedlock, an
 * unlock; then A unlocks.  What each kind says, on glibc (which compares
 * TIDs of the two namespaces as one: spurious EDEADLK, recursive kinds
 * take the lock a second time, and B's unlock releases A's lock, so A's
 * own says EPERM) and on uspin (its owner is told apart: docs/design.md;
 * a normal mutex may be unlocked by anyone, on both).  Root only.
 */
struct ns_area {
	pthread_mutex_t m;
	int held, done;
	int r[4];		/* B's trylock, timedlock, unlock; A's unlock */
};

static void ns_wait(int *flag)
{
	while (!__atomic_load_n(flag, __ATOMIC_ACQUIRE))
		usleep(100);
}

static int ns_holder(void *arg)
{
	struct ns_area *a = arg;

	if (pthread_mutex_lock(&a->m))
		return 1;
	__atomic_store_n(&a->held, 1, __ATOMIC_RELEASE);
	ns_wait(&a->done);
	a->r[3] = pthread_mutex_unlock(&a->m);
	return 0;
}

static int ns_other(void *arg)
{
	struct ns_area *a = arg;
	struct timespec ts = deadline_in(CLOCK_REALTIME, 50000000);

	ns_wait(&a->held);
	a->r[0] = pthread_mutex_trylock(&a->m);
	a->r[1] = pthread_mutex_timedlock(&a->m, &ts);
	a->r[2] = pthread_mutex_unlock(&a->m);
	__atomic_store_n(&a->done, 1, __ATOMIC_RELEASE);
	return 0;
}

static const struct {
	const char *name;
	enum lock_type type;
	int robust;
	int glibc[4], uspin[4];	/* as struct ns_area's r[] */
} ns_kinds[] = {
	{ "normal", LT_DEFAULT, 0,
	  { EBUSY, ETIMEDOUT, 0, 0 }, { EBUSY, ETIMEDOUT, 0, 0 } },
	{ "recursive", LT_RECURSIVE, 0,
	  { 0, 0, 0, 0 }, { EBUSY, ETIMEDOUT, EPERM, 0 } },
	{ "errorcheck", LT_ERRORCHECK, 0,
	  { EBUSY, EDEADLK, 0, EPERM }, { EBUSY, ETIMEDOUT, EPERM, 0 } },
	{ "robust normal", LT_DEFAULT, 1,
	  { EBUSY, ETIMEDOUT, 0, EPERM }, { EBUSY, ETIMEDOUT, EPERM, 0 } },
	{ "robust recursive", LT_RECURSIVE, 1,
	  { 0, 0, 0, 0 }, { EBUSY, ETIMEDOUT, EPERM, 0 } },
	{ "robust errorcheck", LT_ERRORCHECK, 1,
	  { EDEADLK, EDEADLK, 0, EPERM }, { EBUSY, ETIMEDOUT, EPERM, 0 } },
};
#define NR_NS_KINDS ((int)(sizeof(ns_kinds) / sizeof(ns_kinds[0])))

START_TEST(pid_namespaces)
{
	struct ns_area *a = mmap(NULL, sizeof(*a), PROT_READ | PROT_WRITE,
				 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	const int *want = on_uspin() ? ns_kinds[_i].uspin : ns_kinds[_i].glibc;

	ck_assert_ptr_ne(a, MAP_FAILED);
	ck_assert_int_eq(lock_ops.mutex_init(&a->m, ns_kinds[_i].robust ?
					     LK_ROBUST : LK_SHARED,
					     ns_kinds[_i].type), 0);
	sc_two_pid_namespaces(ns_holder, ns_other, a);
	printf("dropin pid namespaces, %s: trylock %s, timedlock %s, unlock %s, owner's unlock %s (%s)\n",
	       ns_kinds[_i].name, a->r[0] ? strerrorname_np(a->r[0]) : "0",
	       a->r[1] ? strerrorname_np(a->r[1]) : "0",
	       a->r[2] ? strerrorname_np(a->r[2]) : "0",
	       a->r[3] ? strerrorname_np(a->r[3]) : "0",
	       on_uspin() ? "uspin" : "glibc");
	for (int k = 0; k < 4; k++)
		ck_assert_int_eq(a->r[k], want[k]);
	munmap(a, sizeof(*a));
}
END_TEST

Suite *suite_process(void)
{
	TCase *tc;
	Suite *s = check_suite_one("process", 60, &tc);

	tcase_add_loop_test(tc, pshared_ping_pong, 0, 2);
	tcase_add_loop_test(tc, pshared_robust_owner_dies, 0, 2);
	tcase_add_test(tc, fork_with_locks_held_by_others);
	tcase_add_test(tc, atfork_handlers);
	if (sc_can_unshare_pid_ns())
		tcase_add_loop_test(tc, pid_namespaces, 0, NR_NS_KINDS);
	else
		printf("SKIP: dropin process: cannot unshare a pid namespace (root only): pid_namespaces not run\n");
	return s;
}
