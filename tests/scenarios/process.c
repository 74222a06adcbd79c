// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * process.c - the process and thread shapes of process.h.
 */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <unistd.h>

#include "../check_suites.h"
#include "lock_ops.h"
#include "process.h"

void sc_lock_after_owner_died(void *m)
{
	ck_assert_int_eq(lock_ops.lock(m), EOWNERDEAD);
	if (lock_ops.held_by_me)
		ck_assert(lock_ops.held_by_me(m));
	ck_assert_int_eq(lock_ops.consistent(m), 0);
	ck_assert_int_eq(lock_ops.unlock(m), 0);
	ck_assert_int_eq(lock_ops.lock(m), 0);
	ck_assert_int_eq(lock_ops.unlock(m), 0);
}

static void *lock_and_exit(void *m)
{
	return (void *)(long)lock_ops.lock(m);
}

void sc_owner_thread_exits(void *m)
{
	pthread_t t;
	void *ret;

	ck_assert_int_eq(pthread_create(&t, NULL, lock_and_exit, m), 0);
	ck_assert_int_eq(pthread_join(t, &ret), 0);
	ck_assert_int_eq((long)ret, 0);
	sc_lock_after_owner_died(m);
}

int sc_can_unshare_pid_ns(void)
{
	pid_t pid = fork();
	int st;

	if (pid == 0)
		_exit(unshare(CLONE_NEWPID) == 0 ? 0 : 1);
	return pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) &&
	       WEXITSTATUS(st) == 0;
}

static void child_hung(int sig)
{
	_exit(SC_CHILD_HUNG);
}

/* @fn(@arg) as PID 1 of a new pid namespace: fork, unshare, fork; the
   middle process passes the status on. */
static pid_t spawn_in_new_pid_ns(int (*fn)(void *), void *arg)
{
	pid_t pid = fork(), inner;
	int st;

	if (pid != 0)
		return pid;
	if (unshare(CLONE_NEWPID) != 0)
		_exit(77);
	inner = fork();
	if (inner == 0) {
		signal(SIGALRM, child_hung);
		alarm(10);
		_exit(fn(arg));
	}
	if (inner < 0 || waitpid(inner, &st, 0) != inner)
		_exit(78);
	_exit(WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
}

void sc_two_pid_namespaces(int (*first)(void *), int (*second)(void *),
			   void *area)
{
	pid_t a = spawn_in_new_pid_ns(first, area);
	pid_t b = spawn_in_new_pid_ns(second, area);

	ck_assert_int_gt(a, 0);
	ck_assert_int_gt(b, 0);
	ck_assert_int_eq(check_child_status(b), 0);
	ck_assert_int_eq(check_child_status(a), 0);
}
