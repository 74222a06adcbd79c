// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * test_shapes.c - the program shapes whose rules live in libuspin/owner.c
 * and libuspin/claims.c, each made to happen on purpose (the torture test,
 * tests/torture, makes them happen at random):
 *   - fork with threads: the child's thread owns the private mutexes its
 *     forking thread held (the pthread_atfork pattern), not robust or
 *     shared ones; and a parent thread's handoff request or spinner,
 *     copied into the child, is dropped there;
 *   - pid namespaces (root): two processes that are both TID 1, in
 *     namespaces of their own, share a process-shared mutex: neither takes
 *     the other's lock for its own (no EDEADLK, no EPERM, no two owners).
 */
#include <errno.h>
#include <linux/futex.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>

#include "process_state.h"
#include "scenarios/process.h"
#include "test_util.h"

static void child_hung(int sig)
{
	_exit(SC_CHILD_HUNG);
}

/* ---- fork ---- */

/*
 * After fork, the child's thread releases and relocks what its forking
 * thread held: a private mutex is its own (EDEADLK on relock), a robust
 * or a shared one still its parent thread's (EPERM).
 */
START_TEST(fork_child_owns_what_its_forking_thread_held)
{
	uspin_mutex_t m = USPIN_MUTEX_INITIALIZER, r, *s;
	pid_t pid;

	s = mmap(NULL, sizeof(*s), PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ck_assert_ptr_ne(s, MAP_FAILED);
	ck_assert_int_eq(uspin_mutex_init(&r, USPIN_ROBUST), 0);
	ck_assert_int_eq(uspin_mutex_init(s, USPIN_PROCESS_SHARED), 0);
	ck_assert_int_eq(uspin_mutex_lock(&m), 0);
	ck_assert_int_eq(uspin_mutex_lock(&r), 0);
	ck_assert_int_eq(uspin_mutex_lock(s), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		if (uspin_mutex_lock(&m) != EDEADLK)
			_exit(10);
		if (uspin_mutex_trylock(&m) != EBUSY)
			_exit(11);
		if (uspin_mutex_unlock(&m) != 0)
			_exit(12);
		if (uspin_mutex_unlock(&m) != EPERM)
			_exit(13);
		if (uspin_mutex_lock(&m) != 0 || m.word != sys_gettid() ||
		    uspin_mutex_unlock(&m) != 0)
			_exit(14);
		if (uspin_mutex_unlock(&r) != EPERM)
			_exit(15);
		if (uspin_mutex_unlock(s) != EPERM)
			_exit(16);
		_exit(0);
	}
	ck_assert_int_eq(check_child_status(pid), 0);
	ck_assert_int_eq(uspin_mutex_unlock(s), 0);
	ck_assert_int_eq(uspin_mutex_unlock(&r), 0);
	ck_assert_int_eq(uspin_mutex_unlock(&m), 0);
	munmap(s, sizeof(*s));
}
END_TEST

struct contender {
	uspin_mutex_t *m;
	int rounds;
	int failed;
};

static void *contend(void *arg)
{
	struct contender *c = arg;

	for (int i = 0; i < c->rounds; i++) {
		if (uspin_mutex_lock(c->m) != 0) {
			c->failed = 1;
			return NULL;
		}
		usleep(300);	/* the other one blocks */
		if (uspin_mutex_unlock(c->m) != 0)
			c->failed = 1;
	}
	return NULL;
}

/* In a child: two threads take turns, each blocking on the other. */
static int child_contends(uspin_mutex_t *m)
{
	struct contender c[2] = { { m, 3, 0 }, { m, 3, 0 } };
	pthread_t t[2];

	signal(SIGALRM, child_hung);
	alarm(10);
	for (int k = 0; k < 2; k++)
		if (pthread_create(&t[k], NULL, contend, &c[k]))
			return 20;
	for (int k = 0; k < 2; k++)
		pthread_join(t[k], NULL);
	return c[0].failed || c[1].failed ? 21 : 0;
}

/*
 * What a parent thread left in the private mutex its forking thread holds
 * across fork: a starving waiter's handoff request (loop index bit 0 = 0)
 * or a spinner (1) that the provider shows running (as the BPF provider,
 * which sees every process, would show the parent's).  Whichever, the
 * child releases the mutex and
 * its two threads take it in turn without hanging, under each policy
 * (bits 1-2: block, spin-capped, user-adaptive).  Before claims.c the
 * child's unlock handed the word to the parent's waiter, or left it free
 * for the parent's spinner, and a child thread slept for good.
 */
START_TEST(fork_child_drops_its_parents_claims)
{
	static const enum uspin_policy policies[] = {
		USPIN_POLICY_BLOCK, USPIN_POLICY_SPIN_CAPPED,
		USPIN_POLICY_USER_ADAPTIVE,
	};
	uspin_mutex_t m;
	uint32_t parent_waiter = sys_gettid() + 1;
	pid_t pid;

	ck_assert_int_eq(uspin_mutex_init(&m, policies[_i >> 1]), 0);
	ck_assert_int_eq(uspin_mutex_lock(&m), 0);
	/* As a waiter of this process would leave them (spin.c, mutex_lock.c). */
	uspin_claims_current(&m);
	if (_i & 1) {
		/* The queue's tail and its head (libuspin/spinners.c). */
		m.spinner = parent_waiter;
		((uint32_t *)(void *)&m.robust_next)[1] = parent_waiter;
	} else {
		m.handoff = parent_waiter;
	}
	m.word |= FUTEX_WAITERS;
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		struct uspin_rs_view saved;

		if (_i & 1)
			fake_view_install(&saved, parent_waiter, USPIN_RS_ENTRY_ON);
		if (uspin_mutex_unlock(&m) != 0)
			_exit(30);
		_exit(child_contends(&m));
	}
	ck_assert_int_eq(check_child_status(pid), 0);
	m.spinner = 0;
	m.handoff = 0;
	m.robust_next = NULL;
	ck_assert_int_eq(uspin_mutex_unlock(&m), 0);
}
END_TEST

/* ---- pid namespaces ---- */

struct ns_shared {
	uspin_mutex_t m;
	int held, done;		/* steps, under the test's control */
	pid_t tid[2];		/* what each child sees as its TID */
};

static void wait_step(int *step)
{
	while (!__atomic_load_n(step, __ATOMIC_ACQUIRE))
		usleep(100);
}

/* The first child: takes the mutex, holds it until the second is done. */
static int ns_holder(void *arg)
{
	struct ns_shared *s = arg;

	s->tid[0] = (pid_t)sys_gettid();
	if (uspin_mutex_lock(&s->m) != 0)
		return 40;
	__atomic_store_n(&s->held, 1, __ATOMIC_RELEASE);
	wait_step(&s->done);
	return uspin_mutex_unlock(&s->m) ? 41 : 0;
}

/*
 * The second child, the same TID in another namespace: the word names
 * its number, but the lock is not its own.
 */
static int ns_other(void *arg)
{
	struct ns_shared *s = arg;
	struct timespec ts;
	int r;

	s->tid[1] = (pid_t)sys_gettid();
	wait_step(&s->held);
	if ((s->m.word & FUTEX_TID_MASK & ~USPIN_WORD_SHARED) != sys_gettid())
		return 50;	/* no collision: nothing tested */
	if (uspin_mutex_trylock(&s->m) != EBUSY)
		return 51;
	ts = deadline_in(CLOCK_REALTIME, 50000000);
	r = uspin_mutex_timedlock(&s->m, &ts);
	if (r != ETIMEDOUT)
		return 52;
	if (uspin_mutex_unlock(&s->m) != EPERM)
		return 53;
	__atomic_store_n(&s->done, 1, __ATOMIC_RELEASE);
	if (uspin_mutex_lock(&s->m) != 0)
		return 54;
	/* Now its own: a relock is EDEADLK, the unlock is accepted. */
	if (uspin_mutex_lock(&s->m) != EDEADLK)
		return 55;
	return uspin_mutex_unlock(&s->m) ? 56 : 0;
}

/* Loop index: a shared mutex (0) or a shared, robust one (1). */
START_TEST(pid_namespaces_never_share_an_owner)
{
	struct ns_shared *s = mmap(NULL, sizeof(*s), PROT_READ | PROT_WRITE,
				   MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	ck_assert_ptr_ne(s, MAP_FAILED);
	ck_assert_int_eq(uspin_mutex_init(&s->m, USPIN_PROCESS_SHARED |
					  (_i ? USPIN_ROBUST : 0)), 0);
	sc_two_pid_namespaces(ns_holder, ns_other, s);
	ck_assert_int_eq(s->tid[0], 1);
	ck_assert_int_eq(s->tid[1], 1);
	/* And the initial namespace's process takes it after both. */
	ck_assert_int_eq(uspin_mutex_lock(&s->m), 0);
	ck_assert_int_eq(uspin_mutex_unlock(&s->m), 0);
	munmap(s, sizeof(*s));
}
END_TEST

/*
 * The owner's tag is the namespace's inode number; without /proc (a
 * container that mounts none), the one a pidfd of ourselves names: the
 * same number.  In a child with a mount namespace of its own and /proc
 * detached.
 */
START_TEST(pid_ns_tag_without_proc)
{
	struct stat st;
	pid_t pid;

	ck_assert_int_eq(stat("/proc/self/ns/pid", &st), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		struct stat gone;

		if (unshare(CLONE_NEWNS) != 0 ||
		    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0 ||
		    umount2("/proc", MNT_DETACH) != 0)
			_exit(60);
		if (stat("/proc/self/ns/pid", &gone) == 0)
			_exit(61);	/* still there: nothing tested */
		uspin_process.pid_ns = 0;
		_exit(uspin_pid_ns_tag() == (uint32_t)st.st_ino ? 0 : 62);
	}
	ck_assert_int_eq(check_child_status(pid), 0);
}
END_TEST

Suite *suite_shapes(void)
{
	TCase *tc;
	Suite *s = check_suite_one("shapes", 60, &tc);

	tcase_add_test(tc, fork_child_owns_what_its_forking_thread_held);
	tcase_add_loop_test(tc, fork_child_drops_its_parents_claims, 0, 6);
	if (sc_can_unshare_pid_ns()) {
		tcase_add_loop_test(tc, pid_namespaces_never_share_an_owner, 0, 2);
		tcase_add_test(tc, pid_ns_tag_without_proc);
	} else {
		printf("SKIP: shapes: cannot unshare namespaces (root only): pid_namespaces_never_share_an_owner, pid_ns_tag_without_proc not run\n");
	}
	return s;
}
