// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * test_process.c - the TID libuspin writes into a lock word is the
 * caller's, whatever made the process: fork(), _Fork() and a raw clone()
 * without CLONE_VM (neither runs atfork handlers), vfork()+exec; and a
 * child that dies holding a robust shared mutex leaves it OWNER_DIED, so
 * the parent's next lock gets EOWNERDEAD, not EDEADLK under a stale TID.
 */
#include <errno.h>
#include <linux/futex.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <sys/mman.h>

#include "scenarios/process.h"
#include "test_util.h"

/* Make the parent's TID cache valid and used before it forks. */
static void warm_tid_cache(void)
{
	uspin_mutex_t m = USPIN_MUTEX_INITIALIZER;

	ck_assert_int_eq(uspin_mutex_lock(&m), 0);
	ck_assert_uint_eq(m.word, sys_gettid());
	ck_assert_int_eq(uspin_mutex_unlock(&m), 0);
}

/*
 * In a child: lock a private and a robust mutex; the words must hold the
 * child's own TID, and unlock must accept it.  Exit status says which
 * step failed.
 */
static int child_checks_its_tid(void)
{
	uspin_mutex_t m = USPIN_MUTEX_INITIALIZER, r;
	uint32_t self = sys_gettid();

	if (uspin_mutex_lock(&m) != 0)
		return 10;
	if (m.word != self)
		return 11;
	if (uspin_mutex_unlock(&m) != 0)
		return 12;
	if (uspin_mutex_init(&r, USPIN_ROBUST) != 0 || uspin_mutex_lock(&r) != 0)
		return 13;
	if ((r.word & FUTEX_TID_MASK) != self)
		return 14;
	if (uspin_mutex_unlock(&r) != 0)
		return 15;
	if (uspin_mutex_trylock(&m) != 0 || m.word != self ||
	    uspin_mutex_unlock(&m) != 0)
		return 16;
	return 0;
}

enum how { HOW_FORK, HOW__FORK, HOW_CLONE };

static pid_t make_child(enum how how)
{
	switch (how) {
	case HOW_FORK:
		return fork();
	case HOW__FORK:
		return _Fork();
	case HOW_CLONE:
		/* No CLONE_VM, no CLONE_CHILD_SETTID: glibc learns nothing. */
		return (pid_t)syscall(SYS_clone, SIGCHLD, NULL, NULL, NULL, 0);
	}
	return -1;
}

START_TEST(child_locks_with_its_own_tid)
{
	pid_t pid;

	warm_tid_cache();
	pid = make_child((enum how)_i);
	ck_assert_int_ge(pid, 0);
	if (pid == 0)
		_exit(child_checks_its_tid());
	ck_assert_int_eq(check_child_status(pid), 0);
	/* ... and the parent's cache is still its own. */
	warm_tid_cache();
}
END_TEST

struct shared_mutex {
	uspin_mutex_t m;
	volatile int locked;
};

static struct shared_mutex *map_shared_robust(void)
{
	struct shared_mutex *s = mmap(NULL, sizeof(*s), PROT_READ | PROT_WRITE,
				      MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	ck_assert_ptr_ne(s, MAP_FAILED);
	ck_assert_int_eq(uspin_mutex_init(&s->m, USPIN_PROCESS_SHARED |
					  USPIN_ROBUST), 0);
	return s;
}

START_TEST(child_dying_with_robust_mutex_held)
{
	struct shared_mutex *s = map_shared_robust();
	pid_t pid;

	warm_tid_cache();
	pid = make_child((enum how)_i);
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		if (uspin_mutex_lock(&s->m) != 0)
			_exit(2);
		if ((s->m.word & FUTEX_TID_MASK) != sys_gettid())
			_exit(3);
		_exit(0);	/* dies holding it */
	}
	ck_assert_int_eq(check_child_status(pid), 0);
	sc_lock_after_owner_died(&s->m);
	munmap(s, sizeof(*s));
}
END_TEST

/* `test-uspin --hold-robust FD`: lock the robust mutex in FD's memory, exit. */
int test_process_hold_robust_main(const char *fd)
{
	struct shared_mutex *s = mmap(NULL, sizeof(*s), PROT_READ | PROT_WRITE,
				      MAP_SHARED, atoi(fd), 0);

	if (s == MAP_FAILED || uspin_mutex_lock(&s->m) != 0)
		return 2;
	return (s->m.word & FUTEX_TID_MASK) == sys_gettid() ? 0 : 3;
}

START_TEST(vfork_exec_child_dying_with_robust_mutex_held)
{
	int fd = memfd_create("uspin-test", 0);
	struct shared_mutex *s;
	char fdarg[16];
	pid_t pid;

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(ftruncate(fd, sizeof(*s)), 0);
	s = mmap(NULL, sizeof(*s), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ck_assert_ptr_ne(s, MAP_FAILED);
	ck_assert_int_eq(uspin_mutex_init(&s->m, USPIN_PROCESS_SHARED |
					  USPIN_ROBUST), 0);
	warm_tid_cache();
	snprintf(fdarg, sizeof(fdarg), "%d", fd);
	pid = vfork();
	if (pid == 0) {
		execl("/proc/self/exe", "test-uspin", "--hold-robust", fdarg,
		      (char *)NULL);
		_exit(127);
	}
	ck_assert_int_gt(pid, 0);
	ck_assert_int_eq(check_child_status(pid), 0);
	sc_lock_after_owner_died(&s->m);
	munmap(s, sizeof(*s));
	close(fd);
}
END_TEST

/* A thread of ours exits holding a private robust mutex. */
START_TEST(private_robust_owner_thread_exits)
{
	uspin_mutex_t m;

	ck_assert_int_eq(uspin_mutex_init(&m, USPIN_ROBUST |
					  USPIN_POLICY_BLOCK), 0);
	sc_owner_thread_exits(&m);
}
END_TEST

/* A waiter asleep on a private robust mutex is woken by the owner's death. */
struct sleeper {
	uspin_mutex_t m;
	volatile int owner_locked, owner_may_exit;
	int waiter_ret;
};

static void *robust_owner(void *arg)
{
	struct sleeper *s = arg;

	if (uspin_mutex_lock(&s->m) != 0)
		return (void *)1;
	__atomic_store_n(&s->owner_locked, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&s->owner_may_exit, __ATOMIC_ACQUIRE))
		usleep(1000);
	return NULL;	/* exits holding it */
}

static void *robust_waiter(void *arg)
{
	struct sleeper *s = arg;

	s->waiter_ret = uspin_mutex_lock(&s->m);
	if (s->waiter_ret == EOWNERDEAD) {
		uspin_mutex_consistent(&s->m);
		uspin_mutex_unlock(&s->m);
	}
	return NULL;
}

START_TEST(private_robust_sleeper_woken_by_death)
{
	struct sleeper s = { 0 };
	pthread_t o, w;

	ck_assert_int_eq(uspin_mutex_init(&s.m, USPIN_ROBUST |
					  USPIN_POLICY_BLOCK), 0);
	ck_assert_int_eq(pthread_create(&o, NULL, robust_owner, &s), 0);
	while (!__atomic_load_n(&s.owner_locked, __ATOMIC_ACQUIRE))
		usleep(100);
	ck_assert_int_eq(pthread_create(&w, NULL, robust_waiter, &s), 0);
	/* Let the waiter reach the kernel; it sets WAITERS on the way. */
	while (!(__atomic_load_n(&s.m.word, __ATOMIC_ACQUIRE) & FUTEX_WAITERS))
		usleep(100);
	usleep(20000);
	__atomic_store_n(&s.owner_may_exit, 1, __ATOMIC_RELEASE);
	ck_assert_int_eq(pthread_join(o, NULL), 0);
	ck_assert_int_eq(pthread_join(w, NULL), 0);
	ck_assert_int_eq(s.waiter_ret, EOWNERDEAD);
}
END_TEST

/*
 * The single-threaded fast path (plain stores) hands over to the atomic
 * one when a thread appears while the lock is held.
 */
static void *lock_unlock(void *arg)
{
	uspin_mutex_t *m = arg;
	long r = uspin_mutex_lock(m);

	if (r == 0)
		r = uspin_mutex_unlock(m);
	return (void *)r;
}

START_TEST(lock_held_across_first_pthread_create)
{
	uspin_mutex_t m = USPIN_MUTEX_INITIALIZER;
	pthread_t t;
	void *ret;

	ck_assert_int_eq(uspin_mutex_lock(&m), 0);
	ck_assert_int_eq(pthread_create(&t, NULL, lock_unlock, &m), 0);
	while (!(__atomic_load_n(&m.word, __ATOMIC_ACQUIRE) & FUTEX_WAITERS) &&
	       m.spinner == 0)
		usleep(100);
	ck_assert_int_eq(uspin_mutex_unlock(&m), 0);
	ck_assert_int_eq(pthread_join(t, &ret), 0);
	ck_assert_int_eq((long)ret, 0);
	ck_assert_uint_eq(m.word, 0);
}
END_TEST

Suite *suite_process(void)
{
	TCase *tc;
	Suite *s = check_suite_one("process", 30, &tc);

	tcase_add_loop_test(tc, child_locks_with_its_own_tid, HOW_FORK, HOW_CLONE + 1);
	tcase_add_loop_test(tc, child_dying_with_robust_mutex_held, HOW_FORK,
			    HOW_CLONE + 1);
	tcase_add_test(tc, vfork_exec_child_dying_with_robust_mutex_held);
	tcase_add_test(tc, private_robust_owner_thread_exits);
	tcase_add_test(tc, private_robust_sleeper_woken_by_death);
	tcase_add_test(tc, lock_held_across_first_pthread_create);
	return s;
}
