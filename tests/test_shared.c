// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * test_shared.c - process-shared mutexes in MAP_SHARED memory across fork,
 * and owners that die holding them: the kernel's robust-list exit handling
 * marks the word and the next acquirer gets EOWNERDEAD.  Also checks that
 * sharing glibc's robust list leaves glibc's own robust mutexes working.
 */
#include <errno.h>
#include <linux/futex.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "test_util.h"
#include "uspin_testing.h"

struct shared_area {
	uspin_mutex_t m;
	pthread_mutex_t glibc_robust[2];
	volatile long counter;
	volatile uint32_t inside;
	long violations;
};

static struct shared_area *map_area(unsigned int flags)
{
	struct shared_area *a = mmap(NULL, sizeof(*a), PROT_READ | PROT_WRITE,
				     MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	ck_assert_ptr_ne(a, MAP_FAILED);
	ck_assert_int_eq(uspin_mutex_init(&a->m, flags | USPIN_PROCESS_SHARED |
					  USPIN_ROBUST), 0);
	return a;
}

static int child_exit_status(pid_t pid)
{
	int status;

	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static void count_under_lock(struct shared_area *a, long n)
{
	uint32_t self = sys_gettid();
	long i, c;

	for (i = 0; i < n; i++) {
		if (uspin_mutex_lock(&a->m) != 0)
			_exit(3);
		if (a->inside)
			__atomic_add_fetch(&a->violations, 1, __ATOMIC_RELAXED);
		a->inside = self;
		c = a->counter;
		if (i % 5 == 0)
			sched_yield();
		a->counter = c + 1;
		a->inside = 0;
		if (uspin_mutex_unlock(&a->m) != 0)
			_exit(4);
	}
}

/* Loop index: policy x (stock-kernel path or not). */
START_TEST(mutual_exclusion_across_processes)
{
	struct shared_area *a = map_area(policy_nr(_i % NR_POLICIES));
	long n = test_scaled(5000);
	pid_t kids[3];
	int i;

	uspin_force_stock_kernel = _i / NR_POLICIES;
	for (i = 0; i < 3; i++) {
		kids[i] = fork();
		ck_assert_int_ge(kids[i], 0);
		if (kids[i] == 0) {
			count_under_lock(a, n);
			_exit(0);
		}
	}
	count_under_lock(a, n);
	for (i = 0; i < 3; i++)
		ck_assert_int_eq(child_exit_status(kids[i]), 0);
	ck_assert_int_eq(a->violations, 0);
	ck_assert_int_eq(a->counter, 4 * n);
	ck_assert_uint_eq(a->m.word, 0);
}
END_TEST

START_TEST(robust_list_is_joined)
{
	struct uspin_info info;

	ck_assert_int_eq(uspin_query(&info), 0);
	ck_assert_msg(info.robust_list,
		      "glibc's robust list could not be joined on this system");
}
END_TEST

/* Loop index: policy x (stock-kernel path or not). */
START_TEST(process_dies_holding_lock)
{
	struct shared_area *a = map_area(policy_nr(_i % NR_POLICIES));
	pid_t pid;

	uspin_force_stock_kernel = _i / NR_POLICIES;
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		if (uspin_mutex_lock(&a->m) != 0)
			_exit(3);
		_exit(0);	/* dies holding it */
	}
	ck_assert_int_eq(child_exit_status(pid), 0);
	ck_assert_uint_eq(a->m.word & FUTEX_TID_MASK, 0);
	ck_assert(a->m.word & FUTEX_OWNER_DIED);
	ck_assert_int_eq(uspin_mutex_lock(&a->m), EOWNERDEAD);
	ck_assert_int_eq(uspin_mutex_consistent(&a->m), 0);
	ck_assert_int_eq(uspin_mutex_unlock(&a->m), 0);
	ck_assert_int_eq(uspin_mutex_lock(&a->m), 0);
	ck_assert_int_eq(uspin_mutex_unlock(&a->m), 0);
}
END_TEST

/* The waiter is asleep in the kernel when the owner dies: it is woken. */
START_TEST(waiter_woken_when_owner_dies)
{
	struct shared_area *a = map_area(policy_nr(_i % NR_POLICIES));
	int pipefd[2];
	char c;
	pid_t pid;

	uspin_force_stock_kernel = _i / NR_POLICIES;
	ck_assert_int_eq(pipe(pipefd), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		struct timespec d = { 0, 50000000 };

		if (uspin_mutex_lock(&a->m) != 0)
			_exit(3);
		if (write(pipefd[1], "x", 1) != 1)
			_exit(4);
		nanosleep(&d, NULL);
		_exit(0);
	}
	ck_assert_int_eq(read(pipefd[0], &c, 1), 1);
	ck_assert_int_eq(uspin_mutex_lock(&a->m), EOWNERDEAD);
	ck_assert_int_eq(child_exit_status(pid), 0);
	ck_assert_int_eq(uspin_mutex_consistent(&a->m), 0);
	ck_assert_int_eq(uspin_mutex_unlock(&a->m), 0);
}
END_TEST

static void *lock_and_exit(void *arg)
{
	uspin_mutex_t *m = arg;

	return (void *)(long)uspin_mutex_lock(m);
}

START_TEST(thread_exits_holding_shared_lock)
{
	struct shared_area *a = map_area(0);
	pthread_t t;
	void *ret;

	ck_assert_int_eq(pthread_create(&t, NULL, lock_and_exit, &a->m), 0);
	pthread_join(t, &ret);
	ck_assert_int_eq((long)ret, 0);
	ck_assert_int_eq(uspin_mutex_lock(&a->m), EOWNERDEAD);
	ck_assert_int_eq(uspin_mutex_consistent(&a->m), 0);
	ck_assert_int_eq(uspin_mutex_unlock(&a->m), 0);
}
END_TEST

/*
 * glibc robust mutexes and uspin ones interleaved on one thread's list,
 * unlocked out of order, then the process dies holding one of each: both
 * libraries must report the death.
 */
START_TEST(coexists_with_glibc_robust_mutexes)
{
	struct shared_area *a = map_area(0);
	pthread_mutexattr_t attr;
	pid_t pid;
	int i;

	pthread_mutexattr_init(&attr);
	pthread_mutexattr_setrobust(&attr, PTHREAD_MUTEX_ROBUST);
	pthread_mutexattr_setpshared(&attr, PTHREAD_PROCESS_SHARED);
	for (i = 0; i < 2; i++)
		ck_assert_int_eq(pthread_mutex_init(&a->glibc_robust[i], &attr), 0);

	/* In one thread: interleave and unlock out of order. */
	ck_assert_int_eq(pthread_mutex_lock(&a->glibc_robust[0]), 0);
	ck_assert_int_eq(uspin_mutex_lock(&a->m), 0);
	ck_assert_int_eq(pthread_mutex_lock(&a->glibc_robust[1]), 0);
	ck_assert_int_eq(uspin_mutex_unlock(&a->m), 0);
	ck_assert_int_eq(pthread_mutex_unlock(&a->glibc_robust[0]), 0);
	ck_assert_int_eq(pthread_mutex_unlock(&a->glibc_robust[1]), 0);

	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		if (pthread_mutex_lock(&a->glibc_robust[0]) ||
		    uspin_mutex_lock(&a->m) ||
		    pthread_mutex_lock(&a->glibc_robust[1]) ||
		    pthread_mutex_unlock(&a->glibc_robust[1]))
			_exit(3);
		_exit(0);	/* dies holding glibc_robust[0] and m */
	}
	ck_assert_int_eq(child_exit_status(pid), 0);
	ck_assert_int_eq(pthread_mutex_lock(&a->glibc_robust[0]), EOWNERDEAD);
	ck_assert_int_eq(uspin_mutex_lock(&a->m), EOWNERDEAD);
	ck_assert_int_eq(pthread_mutex_lock(&a->glibc_robust[1]), 0);
	ck_assert_int_eq(pthread_mutex_consistent(&a->glibc_robust[0]), 0);
	ck_assert_int_eq(uspin_mutex_consistent(&a->m), 0);
	ck_assert_int_eq(uspin_mutex_unlock(&a->m), 0);
	ck_assert_int_eq(pthread_mutex_unlock(&a->glibc_robust[1]), 0);
	ck_assert_int_eq(pthread_mutex_unlock(&a->glibc_robust[0]), 0);
}
END_TEST

Suite *suite_shared(void)
{
	TCase *tc;
	Suite *s = check_suite_one("shared", 300, &tc);

	tcase_add_loop_test(tc, mutual_exclusion_across_processes, 0,
			    NR_POLICIES * 2);
	tcase_add_test(tc, robust_list_is_joined);
	tcase_add_loop_test(tc, process_dies_holding_lock, 0, NR_POLICIES * 2);
	tcase_add_loop_test(tc, waiter_woken_when_owner_dies, 0, NR_POLICIES * 2);
	tcase_add_test(tc, thread_exits_holding_shared_lock);
	tcase_add_test(tc, coexists_with_glibc_robust_mutexes);
	return s;
}
