// SPDX-License-Identifier: MIT
/*
 * test_futex_lock — the semantics of FUTEX_LOCK, in the guest running the
 * patched kernel.  Every test runs for FUTEX_LOCK and FUTEX_LOCK_ADAPTIVE
 * (loop index: 0 = FUTEX_LOCK, 1 = FUTEX_LOCK_ADAPTIVE), since the adaptive
 * op must keep all of FUTEX_LOCK's semantics.  Adaptive-only behaviour
 * (spinning) is in test_futex_lock_adaptive.c.
 */
#include <check.h>
#include <signal.h>
#include <stddef.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "futex_lock_test.h"

static const int ops[] = { FUTEX_LOCK, FUTEX_LOCK_ADAPTIVE };
static const char *const op_names[] = { "FUTEX_LOCK", "FUTEX_LOCK_ADAPTIVE" };

#define OP_PRIVATE(i) (ops[i] | FUTEX_PRIVATE_FLAG)

START_TEST(test_abi_numbers)
{
	/* The uapi numbers are fixed: 13 is FUTEX_LOCK_PI2 in 6.1. */
	ck_assert_int_eq(FUTEX_LOCK, 14);
	ck_assert_int_eq(FUTEX_LOCK_ADAPTIVE, 15);
	ck_assert_int_eq(FUTEX_LOCK_PRIVATE, 14 | 128);
	ck_assert_int_eq(FUTEX_LOCK_ADAPTIVE_PRIVATE, 15 | 128);
	if (!FUTEX_LOCK_ABI_CHECKED)
		fprintf(stderr, "note: libuspin/futex_lock_abi.h absent, ABI assert skipped\n");
}
END_TEST

START_TEST(test_uncontended)
{
	uint32_t w = 0;

	ck_assert_int_eq(futex_lock_op(&w, OP_PRIVATE(_i), NULL), 0);
	ck_assert_uint_eq(w, (uint32_t)gettid());

	/* Shared (non-private) op on a private mapping works as well. */
	w = 0;
	ck_assert_int_eq(futex_lock_op(&w, ops[_i], NULL), 0);
	ck_assert_uint_eq(w, (uint32_t)gettid());

	/* With FUTEX_CLOCK_REALTIME and no timeout. */
	w = 0;
	ck_assert_int_eq(futex_lock_op(&w, OP_PRIVATE(_i) | FUTEX_CLOCK_REALTIME, NULL), 0);
	ck_assert_uint_eq(w, (uint32_t)gettid());
}
END_TEST

START_TEST(test_edeadlk)
{
	uint32_t tid = gettid(), w = tid;

	ck_assert_int_eq(futex_lock_op(&w, OP_PRIVATE(_i), NULL), EDEADLK);
	ck_assert_uint_eq(w, tid);
	w = tid | FUTEX_WAITERS;
	ck_assert_int_eq(futex_lock_op(&w, OP_PRIVATE(_i), NULL), EDEADLK);
	w = tid | FUTEX_OWNER_DIED;
	ck_assert_int_eq(futex_lock_op(&w, OP_PRIVATE(_i), NULL), EDEADLK);
}
END_TEST

START_TEST(test_efault)
{
	long pg = sysconf(_SC_PAGESIZE);
	uint32_t *unmapped, *ro;

	unmapped = mmap(NULL, pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ck_assert_ptr_ne(unmapped, MAP_FAILED);
	munmap(unmapped, pg);
	ck_assert_int_eq(futex_lock_op(unmapped, OP_PRIVATE(_i), NULL), EFAULT);
	ck_assert_int_eq(futex_lock_op(unmapped, ops[_i], NULL), EFAULT);

	/* A word we cannot write: the kernel must not take it. */
	ro = mmap(NULL, pg, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ck_assert_ptr_ne(ro, MAP_FAILED);
	ck_assert_int_eq(futex_lock_op(ro, OP_PRIVATE(_i), NULL), EFAULT);
	munmap(ro, pg);

	/* A kernel address. */
	ck_assert_int_eq(futex_lock_op((uint32_t *)0xffffffff81000000ul, OP_PRIVATE(_i), NULL), EFAULT);

	/* The timeout pointer is bad. */
	uint32_t w = NO_SUCH_TID;
	ck_assert_int_eq(futex_lock_op(&w, OP_PRIVATE(_i), (struct timespec *)unmapped), EFAULT);
}
END_TEST

START_TEST(test_einval)
{
	uint32_t buf[2] = { 0, 0 };
	uint32_t w = NO_SUCH_TID;
	struct timespec bad;

	/* Misaligned word. */
	ck_assert_int_eq(futex_lock_op((uint32_t *)((char *)buf + 1), OP_PRIVATE(_i), NULL), EINVAL);
	ck_assert_int_eq(futex_lock_op((uint32_t *)((char *)buf + 2), ops[_i], NULL), EINVAL);
	ck_assert_uint_eq(buf[0], 0);

	/* val is reserved and must be 0. */
	buf[0] = 0;
	ck_assert_int_eq(sys_futex(buf, OP_PRIVATE(_i), 1, NULL), -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_uint_eq(buf[0], 0);

	/* Bad timespecs. */
	bad = deadline_ms(CLOCK_MONOTONIC, 0);
	bad.tv_nsec = 1000000000L;
	ck_assert_int_eq(futex_lock_op(&w, OP_PRIVATE(_i), &bad), EINVAL);
	bad.tv_nsec = -1;
	ck_assert_int_eq(futex_lock_op(&w, OP_PRIVATE(_i), &bad), EINVAL);
	bad.tv_sec = -1;
	bad.tv_nsec = 0;
	ck_assert_int_eq(futex_lock_op(&w, OP_PRIVATE(_i) | FUTEX_CLOCK_REALTIME, &bad), EINVAL);
	ck_assert_uint_eq(w, NO_SUCH_TID);

	/* Op bits that mean nothing: do_futex() answers ENOSYS, as for any op. */
	ck_assert_int_eq(futex_lock_op(&w, OP_PRIVATE(_i) | 512, NULL), ENOSYS);
	/* FUTEX_WAKE with FUTEX_CLOCK_REALTIME is still refused. */
	ck_assert_int_eq(sys_futex(&w, FUTEX_WAKE | FUTEX_CLOCK_REALTIME, 1, NULL), -1);
	ck_assert_int_eq(errno, ENOSYS);
}
END_TEST

static void check_timeout(int op, clockid_t clk, long ms)
{
	uint32_t w = NO_SUCH_TID;
	struct timespec abs = deadline_ms(clk, ms), now;

	ck_assert_int_eq(futex_lock_op(&w, op, &abs), ETIMEDOUT);
	clock_gettime(clk, &now);
	/* The deadline is honoured: never early. */
	ck_assert_msg(ts_cmp(&now, &abs) >= 0, "returned before the deadline");
	/* A waiter that leaves after a failed attempt leaves WAITERS set. */
	ck_assert_uint_eq(w, NO_SUCH_TID | FUTEX_WAITERS);
}

START_TEST(test_timeout_monotonic)
{
	check_timeout(OP_PRIVATE(_i), CLOCK_MONOTONIC, 100);
	check_timeout(ops[_i], CLOCK_MONOTONIC, 50);
	check_timeout(OP_PRIVATE(_i), CLOCK_MONOTONIC, -1000);	/* already past */
}
END_TEST

START_TEST(test_timeout_realtime)
{
	check_timeout(OP_PRIVATE(_i) | FUTEX_CLOCK_REALTIME, CLOCK_REALTIME, 100);
	check_timeout(ops[_i] | FUTEX_CLOCK_REALTIME, CLOCK_REALTIME, 50);
	check_timeout(OP_PRIVATE(_i) | FUTEX_CLOCK_REALTIME, CLOCK_REALTIME, -1000);
}
END_TEST

START_TEST(test_timeout_free_lock_acquires)
{
	/* A free lock is taken even when the deadline has passed. */
	uint32_t w = 0;
	struct timespec abs = deadline_ms(CLOCK_MONOTONIC, -1000);

	ck_assert_int_eq(futex_lock_op(&w, OP_PRIVATE(_i), &abs), 0);
	ck_assert_uint_eq(w, (uint32_t)gettid());
}
END_TEST

/* --- contended acquisition and the FUTEX_WAITERS rule ------------------- */

#define NWAITERS 3
static uint32_t cw;
static int cw_op;
static pid_t cw_tids[NWAITERS];
static uint32_t cw_seen[NWAITERS];
static int cw_order;

static void *contended_waiter(void *arg)
{
	int idx = (int)(long)arg, rc, k;

	cw_tids[idx] = gettid();
	rc = futex_lock_op(&cw, cw_op, NULL);
	if (rc)
		return (void *)(long)rc;
	k = __atomic_fetch_add(&cw_order, 1, __ATOMIC_RELAXED);
	cw_seen[k] = load(&cw);
	if ((cw_seen[k] & FUTEX_TID_MASK) != (uint32_t)gettid())
		cw_seen[k] |= 1u << 29;	/* flag: word does not name us */
	uunlock(&cw, FUTEX_PRIVATE_FLAG);
	return NULL;
}

START_TEST(test_contended_waiters_bit)
{
	pthread_t t[NWAITERS];

	cw = gettid();
	cw_op = OP_PRIVATE(_i);
	cw_order = 0;
	memset(cw_tids, 0, sizeof(cw_tids));
	for (long i = 0; i < NWAITERS; i++)
		ck_assert_int_eq(pthread_create(&t[i], NULL, contended_waiter, (void *)i), 0);
	for (int i = 0; i < NWAITERS; i++) {
		while (!__atomic_load_n(&cw_tids[i], __ATOMIC_RELAXED))
			sleep_ms(1);
		ck_assert_msg(wait_until_sleeping(getpid(), cw_tids[i]), "waiter never slept");
	}
	/* Sleeping waiters have set FUTEX_WAITERS. */
	ck_assert_uint_eq(load(&cw), (uint32_t)gettid() | FUTEX_WAITERS);

	uunlock(&cw, FUTEX_PRIVATE_FLAG);
	for (int i = 0; i < NWAITERS; i++)
		ck_assert_msg(join_within(t[i], 30, NULL) == 0, "waiter %d hung: lost wake-up", i);

	/*
	 * Each woken waiter took the lock under hb->lock: WAITERS set while
	 * others were still queued, clear for the last one.
	 */
	for (int i = 0; i < NWAITERS; i++) {
		ck_assert_msg(!(cw_seen[i] & (1u << 29)), "word did not name the owner");
		if (i < NWAITERS - 1)
			ck_assert_msg(cw_seen[i] & FUTEX_WAITERS,
				      "acquisition %d: WAITERS clear with waiters queued", i);
		else
			ck_assert_msg(!(cw_seen[i] & FUTEX_WAITERS),
				      "last acquisition: WAITERS set with nobody queued");
	}
	ck_assert_uint_eq(load(&cw), 0);
}
END_TEST

/* A timed-out waiter must not take the wake-up of the others with it. */
static void *timed_waiter(void *arg)
{
	struct timespec abs = deadline_ms(CLOCK_MONOTONIC, 300);

	return (void *)(long)futex_lock_op(&cw, cw_op, &abs);
}

static void *plain_waiter(void *arg)
{
	int rc = futex_lock_op(&cw, cw_op, NULL);

	if (!rc)
		uunlock(&cw, FUTEX_PRIVATE_FLAG);
	return (void *)(long)rc;
}

START_TEST(test_timed_out_waiter_keeps_waiters)
{
	pthread_t a, b;
	void *ra, *rb;

	cw = gettid();
	cw_op = OP_PRIVATE(_i);
	ck_assert_int_eq(pthread_create(&a, NULL, plain_waiter, NULL), 0);
	ck_assert_int_eq(pthread_create(&b, NULL, timed_waiter, NULL), 0);
	ck_assert_int_eq(join_within(b, 30, &rb), 0);
	ck_assert_int_eq((long)rb, ETIMEDOUT);
	ck_assert_uint_eq(load(&cw), (uint32_t)gettid() | FUTEX_WAITERS);
	uunlock(&cw, FUTEX_PRIVATE_FLAG);
	ck_assert_msg(join_within(a, 30, &ra) == 0, "remaining waiter hung: lost wake-up");
	ck_assert_int_eq((long)ra, 0);
}
END_TEST

/* Many threads, the user-space protocol, a non-atomic counter. */
#define STRESS_THREADS 6
#define STRESS_ITERS 1500
static uint32_t sw;
static unsigned long scount;
static int sop, sbad;

static void *stress_thread(void *arg)
{
	for (int i = 0; i < STRESS_ITERS; i++) {
		if (ulock(&sw, sop, NULL)) {
			__atomic_store_n(&sbad, 1, __ATOMIC_RELAXED);
			break;
		}
		if ((load(&sw) & FUTEX_TID_MASK) != (uint32_t)gettid())
			__atomic_store_n(&sbad, 1, __ATOMIC_RELAXED);
		scount++;
		if (i % 64 == 0)
			sched_yield();
		uunlock(&sw, FUTEX_PRIVATE_FLAG);
	}
	return NULL;
}

START_TEST(test_no_lost_wakeups)
{
	pthread_t t[STRESS_THREADS];

	sw = 0;
	scount = 0;
	sbad = 0;
	sop = OP_PRIVATE(_i);
	for (int i = 0; i < STRESS_THREADS; i++)
		ck_assert_int_eq(pthread_create(&t[i], NULL, stress_thread, NULL), 0);
	for (int i = 0; i < STRESS_THREADS; i++)
		ck_assert_msg(join_within(t[i], 120, NULL) == 0, "thread %d hung: lost wake-up", i);
	ck_assert_int_eq(sbad, 0);
	ck_assert_uint_eq(scount, STRESS_THREADS * STRESS_ITERS);
	ck_assert_uint_eq(load(&sw), 0);
}
END_TEST

/* --- signals restart transparently -------------------------------------- */

static volatile sig_atomic_t nsig;

static void on_sigusr1(int sig)
{
	nsig++;
}

START_TEST(test_signal_restarts)
{
	struct sigaction sa = { .sa_handler = on_sigusr1 };	/* no SA_RESTART */
	pthread_t t;
	void *r;

	sigaction(SIGUSR1, &sa, NULL);
	nsig = 0;
	cw = gettid();
	cw_op = OP_PRIVATE(_i);
	memset(cw_tids, 0, sizeof(cw_tids));
	ck_assert_int_eq(pthread_create(&t, NULL, plain_waiter, NULL), 0);
	sleep_ms(50);
	for (int i = 0; i < 5; i++) {
		pthread_kill(t, SIGUSR1);
		sleep_ms(20);
	}
	ck_assert_int_ge(nsig, 1);
	/* Still waiting, and the word still says so. */
	ck_assert_uint_eq(load(&cw), (uint32_t)gettid() | FUTEX_WAITERS);
	uunlock(&cw, FUTEX_PRIVATE_FLAG);
	ck_assert_msg(join_within(t, 30, &r) == 0, "waiter hung after signals");
	ck_assert_int_eq((long)r, 0);	/* never EINTR */
}
END_TEST

/* --- owner died ------------------------------------------------------------ */

START_TEST(test_owner_died_takeover)
{
	uint32_t tid = gettid(), w;

	w = FUTEX_OWNER_DIED;
	ck_assert_int_eq(futex_lock_op(&w, OP_PRIVATE(_i), NULL), 0);
	ck_assert_uint_eq(w, tid | FUTEX_OWNER_DIED);

	/* WAITERS may stay (a spurious wake later) but OWNER_DIED must. */
	w = FUTEX_OWNER_DIED | FUTEX_WAITERS;
	ck_assert_int_eq(futex_lock_op(&w, OP_PRIVATE(_i), NULL), 0);
	ck_assert_uint_eq(w & ~FUTEX_WAITERS, tid | FUTEX_OWNER_DIED);

	/* OWNER_DIED with an owner: somebody took over already, it is owned. */
	w = FUTEX_OWNER_DIED | NO_SUCH_TID;
	struct timespec abs = deadline_ms(CLOCK_MONOTONIC, 30);
	ck_assert_int_eq(futex_lock_op(&w, OP_PRIVATE(_i), &abs), ETIMEDOUT);
}
END_TEST

/* A real owner that exits holding the lock, found by the robust list. */
struct robust_lock {
	struct robust_list list;
	uint32_t word;
};

static struct robust_lock rl;
static struct robust_list_head rhead;
static int rl_ready;

static void *dying_owner(void *arg)
{
	rl.word = gettid();
	rhead.list.next = &rl.list;
	rhead.futex_offset = offsetof(struct robust_lock, word) -
			     offsetof(struct robust_lock, list);
	rhead.list_op_pending = NULL;
	rl.list.next = &rhead.list;
	syscall(SYS_set_robust_list, &rhead, sizeof(rhead));
	__atomic_store_n(&rl_ready, 1, __ATOMIC_RELEASE);
	sleep_ms(100);	/* let the main thread block (or not: both are valid) */
	return NULL;	/* exits holding the lock */
}

START_TEST(test_owner_died_robust_exit)
{
	pthread_t t;

	rl_ready = 0;
	ck_assert_int_eq(pthread_create(&t, NULL, dying_owner, NULL), 0);
	while (!__atomic_load_n(&rl_ready, __ATOMIC_ACQUIRE))
		sleep_ms(1);
	ck_assert_int_eq(futex_lock_op(&rl.word, ops[_i], NULL), 0);
	ck_assert_uint_eq(rl.word & ~FUTEX_WAITERS, (uint32_t)gettid() | FUTEX_OWNER_DIED);
	pthread_join(t, NULL);
}
END_TEST

/* --- shared (cross-process) words --------------------------------------- */

START_TEST(test_shared_cross_process)
{
	uint32_t *w = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	int status;
	pid_t child;

	ck_assert_ptr_ne(w, MAP_FAILED);
	*w = gettid();
	child = fork();
	ck_assert_int_ge(child, 0);
	if (child == 0) {
		int rc = futex_lock_op(w, ops[_i], NULL);

		if (rc)
			_exit(10 + rc);
		if (*w != (uint32_t)gettid())	/* nobody else is queued */
			_exit(2);
		uunlock(w, 0);
		_exit(0);
	}
	ck_assert_msg(wait_until_sleeping(child, child), "child never slept");
	ck_assert_uint_eq(load(w), (uint32_t)gettid() | FUTEX_WAITERS);
	uunlock(w, 0);	/* shared FUTEX_WAKE */
	ck_assert_int_eq(waitpid(child, &status, 0), child);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		      "child status %#x", status);
	ck_assert_uint_eq(load(w), 0);
	munmap(w, 4096);
}
END_TEST

static Suite *futex_lock_suite(void)
{
	Suite *s = suite_create("futex_lock");
	TCase *tc;

	tc = tcase_create("abi");
	tcase_add_test(tc, test_abi_numbers);
	suite_add_tcase(s, tc);

#define LOOP_CASE(name, fn)					\
	do {							\
		tc = tcase_create(name);			\
		tcase_set_timeout(tc, 180);			\
		tcase_add_loop_test(tc, fn, 0, 2);		\
		suite_add_tcase(s, tc);				\
	} while (0)

	LOOP_CASE("uncontended", test_uncontended);
	LOOP_CASE("edeadlk", test_edeadlk);
	LOOP_CASE("efault", test_efault);
	LOOP_CASE("einval", test_einval);
	LOOP_CASE("timeout_monotonic", test_timeout_monotonic);
	LOOP_CASE("timeout_realtime", test_timeout_realtime);
	LOOP_CASE("timeout_free_lock", test_timeout_free_lock_acquires);
	LOOP_CASE("contended_waiters_bit", test_contended_waiters_bit);
	LOOP_CASE("timed_out_waiter", test_timed_out_waiter_keeps_waiters);
	LOOP_CASE("no_lost_wakeups", test_no_lost_wakeups);
	LOOP_CASE("signal_restarts", test_signal_restarts);
	LOOP_CASE("owner_died", test_owner_died_takeover);
	LOOP_CASE("owner_died_robust_exit", test_owner_died_robust_exit);
	LOOP_CASE("shared_cross_process", test_shared_cross_process);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(futex_lock_suite());
	int failed;

	(void)op_names;
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
