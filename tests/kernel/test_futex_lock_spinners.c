// SPDX-License-Identifier: MIT
/*
 * test_futex_lock_spinners — FUTEX_LOCK_ADAPTIVE lets a spinner per word
 * spin and queues the others of the same word behind it, as the OSQ of a
 * mutex does (futex series, since v3).  Before, one task per
 * hash bucket spun and every other adaptive caller in the bucket slept at
 * once: the second waiter of a word, and a waiter of an unrelated word
 * that happened to share the bucket.
 *
 * Needs 4 CPUs (vm-check boots this suite alone with --smp 4): the driver,
 * which owns the words, runs on CPU 1 and two waiters on CPUs 2 and 3, all
 * busy, so every owner and every spinner is on a CPU; CPU 0 is left to the
 * kernel, but for the third waiter of the middle-leaving case.  No verdict is a time: a waiter "slept" when its voluntary context
 * switch count (getrusage(RUSAGE_THREAD).ru_nvcsw) grew across its lock
 * call.  A spinner may still sleep now and then (need_resched() when a
 * kernel thread wakes on its CPU ends any spin), so each verdict takes
 * several rounds and asks for a majority, and the old behaviour sleeps in
 * every round.
 */
#include <check.h>
#include <stdlib.h>
#include <sys/sysinfo.h>

#include "futex_lock_test.h"

#define DRIVER_CPU	1
#define WAITER_CPU0	2
#define WAIT_HUNG_SEC	60

/* On the CPU for @ms: the owner of a word must be running for spinners. */
static void busy_ms(long ms)
{
	struct timespec end = deadline_ms(CLOCK_MONOTONIC, ms), now;

	do
		clock_gettime(CLOCK_MONOTONIC, &now);
	while (ts_cmp(&now, &end) < 0);
}

/*
 * A waiter thread, pinned and busy between trials.  The driver publishes
 * a trial by raising ->trial; the waiter says it is about to call
 * FUTEX_LOCK_ADAPTIVE (->entered), takes the word, holds it ->hold_ms on
 * its CPU, unlocks, and reports (->done).
 */
struct waiter {
	int cpu;
	pthread_t thread;
	uint32_t *word;
	long hold_ms;
	int trial, entered, done, quit;
	int slept, err;
};

static void *waiter_main(void *arg)
{
	struct waiter *w = arg;
	int seen = 0;

	pin_to_cpu(w->cpu);
	for (;;) {
		int n;
		long before;

		while ((n = __atomic_load_n(&w->trial, __ATOMIC_ACQUIRE)) == seen)
			if (__atomic_load_n(&w->quit, __ATOMIC_RELAXED))
				return NULL;
		seen = n;
		before = nvcsw_self();
		__atomic_store_n(&w->entered, n, __ATOMIC_RELEASE);
		if (ulock(w->word, FUTEX_LOCK_ADAPTIVE_PRIVATE, NULL) ||
		    (load(w->word) & FUTEX_TID_MASK) != (uint32_t)gettid())
			w->err = 1;
		w->slept = nvcsw_self() - before > 0;
		if (w->hold_ms)
			busy_ms(w->hold_ms);
		if (uunlock_k(w->word, FUTEX_PRIVATE_FLAG))
			w->err = 1;
		__atomic_store_n(&w->done, n, __ATOMIC_RELEASE);
	}
}

static struct waiter waiters[2];

static void start_waiters(void)
{
	ck_assert_msg(get_nprocs() >= 4, "needs 4 CPUs, has %d (vm-check boots "
		      "this suite with --smp 4)", get_nprocs());
	pin_to_cpu(DRIVER_CPU);
	for (int i = 0; i < 2; i++) {
		waiters[i] = (struct waiter){ .cpu = WAITER_CPU0 + i };
		ck_assert_int_eq(pthread_create(&waiters[i].thread, NULL,
						waiter_main, &waiters[i]), 0);
	}
}

static void stop_waiters(void)
{
	for (int i = 0; i < 2; i++) {
		__atomic_store_n(&waiters[i].quit, 1, __ATOMIC_RELAXED);
		ck_assert_msg(join_within(waiters[i].thread, WAIT_HUNG_SEC, NULL) == 0,
			      "waiter %d hung", i);
	}
}

/*
 * Whether CLOCK_MONOTONIC has passed @end.  Busy waits test it and call
 * ck_abort_msg(), never ck_assert_msg() on every turn: each passing
 * ck_assert writes a message to Check's result file: a long wait beside
 * CPU hogs wrote millions, and Check could not read the result back
 * once ("Error in call to get_result").
 */
static int past(const struct timespec *end)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return ts_cmp(&now, end) >= 0;
}

/* Busy until every waiter's ->field reaches @n (they run on other CPUs). */
static void wait_waiters(size_t field, int n)
{
	struct timespec end = deadline_ms(CLOCK_MONOTONIC, WAIT_HUNG_SEC * 1000L);

	for (int i = 0; i < 2; i++) {
		int *p = (int *)((char *)&waiters[i] + field);

		while (__atomic_load_n(p, __ATOMIC_ACQUIRE) != n)
			if (past(&end))
				ck_abort_msg("waiter %d hung", i);
	}
}

/*
 * One trial: the driver owns @wa and @wb and runs; the waiters call
 * FUTEX_LOCK_ADAPTIVE on them; the driver keeps running @own_ms after both
 * called, so both are in the kernel by then, unlocks, and takes the words
 * back after the waiters are done.  Returns whether a waiter slept.
 */
static int trial(uint32_t *wa, uint32_t *wb, long hold_ms, long own_ms)
{
	static int n;
	int slept;

	n++;
	waiters[0].word = wa;
	waiters[1].word = wb;
	for (int i = 0; i < 2; i++) {
		waiters[i].hold_ms = hold_ms;
		__atomic_store_n(&waiters[i].trial, n, __ATOMIC_RELEASE);
	}
	wait_waiters(offsetof(struct waiter, entered), n);
	busy_ms(own_ms);
	ck_assert_int_eq(uunlock_k(wa, FUTEX_PRIVATE_FLAG), 0);
	if (wb != wa)
		ck_assert_int_eq(uunlock_k(wb, FUTEX_PRIVATE_FLAG), 0);
	wait_waiters(offsetof(struct waiter, done), n);
	ck_assert_int_eq(waiters[0].err + waiters[1].err, 0);
	slept = waiters[0].slept || waiters[1].slept;
	ck_assert_int_eq(ulock(wa, FUTEX_LOCK_PRIVATE, NULL), 0);
	if (wb != wa)
		ck_assert_int_eq(ulock(wb, FUTEX_LOCK_PRIVATE, NULL), 0);
	return slept;
}

/* --- two waiters of one word: the second queues and spins too ---------- */

#define SAME_ROUNDS 10
static uint32_t one_word;

START_TEST(test_second_spinner_waits_its_turn)
{
	int slept = 0;

	start_waiters();
	ck_assert_int_eq(ulock(&one_word, FUTEX_LOCK_PRIVATE, NULL), 0);
	/*
	 * Each waiter holds the word 4 ms once it has it, so the second
	 * spins on the first as it spun on the driver: 8 ms in all, within
	 * the kernel's bound on one call's spinning (FUTEX_LOCK_SPIN_MAX_MS,
	 * 20 ms), past which a waiter sleeps.
	 */
	for (int r = 0; r < SAME_ROUNDS; r++)
		slept += trial(&one_word, &one_word, 4, 4);
	ck_assert_int_eq(uunlock_k(&one_word, FUTEX_PRIVATE_FLAG), 0);
	stop_waiters();
	printf("second spinner: a waiter slept in %d of %d rounds\n", slept, SAME_ROUNDS);
	ck_assert_msg(slept <= SAME_ROUNDS / 2,
		      "a waiter slept in %d of %d rounds: the second waiter of a "
		      "word must spin behind the first", slept, SAME_ROUNDS);
}
END_TEST

/* --- a spinner leaving from the middle of the queue passes its place ---- */

/*
 * Three waiters of one word, queued A, B, C behind the running driver: B's
 * call times out while it waits for its turn behind A, and B then sleeps.
 * C must now wait for A, which runs, and spin: still waiting for B, which
 * does not run, it would give up and sleep.  The queue is a ring hanging
 * off its first spinner; B leaving from its middle is the case that no
 * other trial makes.  The waiters are started and pinned before the
 * rounds, and a round counts only if C called before B's call returned
 * with 1 ms to spare: then B left from the middle.
 */
/*
 * Rounds until MIDDLE_COUNTED have counted, at most MIDDLE_ROUNDS: on a
 * loaded host a vCPU can be away longer than B's deadline, so that C
 * calls after B left and the round shows nothing.
 */
#define MIDDLE_COUNTED	12
#define MIDDLE_ROUNDS	96
#define MIDDLE_CPU	0	/* B: the fourth CPU, shared with the kernel */
static uint32_t middle_word;

struct middle_waiter {
	int cpu;
	long deadline_us;	/* 0: none */
	long hold_ms;		/* the word, once taken, on the CPU */
	pthread_t thread;
	int round, done, quit;
	struct timespec called, returned;
	int err, timed_out, slept;
};

static void middle_call(struct middle_waiter *w)
{
	struct timespec abs, *to = NULL;
	long before;
	int err;

	before = nvcsw_self();
	clock_gettime(CLOCK_MONOTONIC, &w->called);
	if (w->deadline_us) {
		abs = w->called;
		abs.tv_nsec += w->deadline_us * 1000L;
		abs.tv_sec += abs.tv_nsec / 1000000000L;
		abs.tv_nsec %= 1000000000L;
		to = &abs;
	}
	err = futex_lock_op(&middle_word, FUTEX_LOCK_ADAPTIVE_PRIVATE, to);
	clock_gettime(CLOCK_MONOTONIC, &w->returned);
	w->slept = nvcsw_self() - before > 0;
	w->timed_out = err == ETIMEDOUT;
	if (w->timed_out) {
		usleep(30 * 1000);	/* off its CPU while C still waits */
		return;
	}
	if (err || (load(&middle_word) & FUTEX_TID_MASK) != (uint32_t)gettid()) {
		w->err = 1;
		return;
	}
	busy_ms(w->hold_ms);
	if (uunlock_k(&middle_word, FUTEX_PRIVATE_FLAG))
		w->err = 1;
}

/* Pinned and busy between rounds, so that a round starts at once. */
static void *middle_main(void *arg)
{
	struct middle_waiter *w = arg;
	int seen = 0, n;

	pin_to_cpu(w->cpu);
	for (;;) {
		while ((n = __atomic_load_n(&w->round, __ATOMIC_ACQUIRE)) == seen)
			if (__atomic_load_n(&w->quit, __ATOMIC_RELAXED))
				return NULL;
		seen = n;
		middle_call(w);
		__atomic_store_n(&w->done, n, __ATOMIC_RELEASE);
	}
}

/* Start round @n of @w, and run until it has called, then @settle_ms more. */
static void middle_go(struct middle_waiter *w, int n, long settle_ms)
{
	struct timespec end = deadline_ms(CLOCK_MONOTONIC, WAIT_HUNG_SEC * 1000L);

	w->called.tv_sec = 0;
	__atomic_store_n(&w->round, n, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&w->called.tv_sec, __ATOMIC_ACQUIRE))
		if (past(&end))
			ck_abort_msg("a waiter hung");
	busy_ms(settle_ms);
}

static void middle_wait_done(struct middle_waiter *w, int n)
{
	struct timespec end = deadline_ms(CLOCK_MONOTONIC, WAIT_HUNG_SEC * 1000L);

	while (__atomic_load_n(&w->done, __ATOMIC_ACQUIRE) != n)
		if (past(&end))
			ck_abort_msg("a waiter hung");
}

START_TEST(test_middle_spinner_leaves_its_place)
{
	struct middle_waiter w[3] = {
		{ .cpu = WAITER_CPU0, .hold_ms = 1 },		/* A */
		{ .cpu = MIDDLE_CPU, .deadline_us = 8000 },	/* B */
		{ .cpu = WAITER_CPU0 + 1 },			/* C */
	};
	int slept = 0, rounds = 0;

	ck_assert_msg(get_nprocs() >= 4, "needs 4 CPUs, has %d (vm-check boots "
		      "this suite with --smp 4)", get_nprocs());
	pin_to_cpu(DRIVER_CPU);
	for (int i = 0; i < 3; i++)
		ck_assert_int_eq(pthread_create(&w[i].thread, NULL, middle_main, &w[i]), 0);
	for (int n = 1; n <= MIDDLE_ROUNDS && rounds < MIDDLE_COUNTED; n++) {
		struct timespec c_by;

		ck_assert_int_eq(ulock(&middle_word, FUTEX_LOCK_PRIVATE, NULL), 0);
		/*
		 * B calls 2 ms after A and C 2 ms after B; B's deadline passes
		 * about 6 ms after C called, and the driver runs 12 ms after
		 * C called: C waits about 13 ms, within the 20 ms bound.
		 */
		middle_go(&w[0], n, 2);
		middle_go(&w[1], n, 2);
		middle_go(&w[2], n, 12);
		ck_assert_int_eq(uunlock_k(&middle_word, FUTEX_PRIVATE_FLAG), 0);
		for (int i = 0; i < 3; i++)
			middle_wait_done(&w[i], n);
		ck_assert_int_eq(w[0].err + w[1].err + w[2].err, 0);
		c_by = w[2].called;
		c_by.tv_nsec += 1000000L;
		if (c_by.tv_nsec >= 1000000000L) {
			c_by.tv_sec++;
			c_by.tv_nsec -= 1000000000L;
		}
		fprintf(stderr, "middle round %d: B timed out %d, B returned %ld us after "
		       "C called, C slept %d\n", n, w[1].timed_out,
		       (long)((w[1].returned.tv_sec - w[2].called.tv_sec) * 1000000L +
			      (w[1].returned.tv_nsec - w[2].called.tv_nsec) / 1000),
		       w[2].slept);
		if (!w[1].timed_out || ts_cmp(&c_by, &w[1].returned) >= 0)
			continue;
		rounds++;
		slept += w[2].slept;
	}
	for (int i = 0; i < 3; i++) {
		__atomic_store_n(&w[i].quit, 1, __ATOMIC_RELAXED);
		ck_assert_int_eq(join_within(w[i].thread, WAIT_HUNG_SEC, NULL), 0);
	}
	printf("middle spinner: B left from the middle in %d rounds; "
	       "C slept in %d of them\n", rounds, slept);
	ck_assert_msg(rounds >= MIDDLE_COUNTED, "B left from the middle in "
		      "only %d of %d rounds", rounds, MIDDLE_ROUNDS);
	ck_assert_msg(slept <= rounds / 2, "C slept in %d of %d rounds: when B "
		      "left, C kept waiting for it instead of for A", slept, rounds);
}
END_TEST

/* --- waiters of two words: both spin, whatever their hash buckets ------- */

/*
 * A futex hash bucket is picked by a hash of the mm and the address, so
 * user space cannot choose two words that share one; it can try enough.
 * One waiter spins on word A throughout; the other tries each of NWORDS
 * words in turn with a deadline SCAN_US ahead, the driver owning and
 * running all of them.  It spins until the deadline unless the kernel
 * makes it sleep.  A guest with 4 possible CPUs has 1024 buckets, so
 * about 8 words share A's (none do with probability e^-8).  Words it
 * slept on are tried RETRIES more times; one it sleeps on every time was
 * kept from spinning by the spinner of another word.
 */
#define NWORDS	8192
#define SCAN_US	300
#define RETRIES	3
static uint32_t word_a, words[NWORDS];
static int a_entered, a_calls, a_slept, a_errors, scan_done;
static int scan_slept[NWORDS];

/*
 * FUTEX_LOCK_ADAPTIVE on @w, owned by a running task, until @us from now:
 * whether the caller slept, or -1 if the call did not time out.
 */
static int try_with_deadline(uint32_t *w, long us)
{
	struct timespec abs;
	long before;
	int err;

	clock_gettime(CLOCK_MONOTONIC, &abs);
	abs.tv_nsec += us * 1000L;
	if (abs.tv_nsec >= 1000000000L) {
		abs.tv_sec++;
		abs.tv_nsec -= 1000000000L;
	}
	before = nvcsw_self();
	err = futex_lock_op(w, FUTEX_LOCK_ADAPTIVE_PRIVATE, &abs);
	if (err != ETIMEDOUT)
		return -1;
	return nvcsw_self() - before > 0;
}

/* The waiter of A, in calls of 5 ms: a need_resched() ends one, not all. */
static void *spin_on_a(void *arg)
{
	pin_to_cpu(WAITER_CPU0);
	__atomic_store_n(&a_entered, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&scan_done, __ATOMIC_ACQUIRE)) {
		int slept = try_with_deadline(&word_a, 5000);

		a_calls++;
		a_slept += slept > 0;
		a_errors += slept < 0;
	}
	return NULL;
}

/* The scanning waiter: every word once, then the ones it slept on again. */
static void *scan_words(void *arg)
{
	pin_to_cpu(WAITER_CPU0 + 1);
	for (int i = 0; i < NWORDS; i++)
		scan_slept[i] = try_with_deadline(&words[i], SCAN_US);
	for (int i = 0; i < NWORDS; i++) {
		for (int r = 0; r < RETRIES && scan_slept[i] > 0; r++) {
			int slept = try_with_deadline(&words[i], SCAN_US);

			scan_slept[i] = slept < 0 ? slept : scan_slept[i] + slept;
		}
	}
	__atomic_store_n(&scan_done, 1, __ATOMIC_RELEASE);
	return NULL;
}

START_TEST(test_words_sharing_a_bucket_spin_at_once)
{
	struct timespec end;
	pthread_t a, scan;
	int once = 0, always = 0, errors = 0;

	ck_assert_msg(get_nprocs() >= 4, "needs 4 CPUs, has %d (vm-check boots "
		      "this suite with --smp 4)", get_nprocs());
	pin_to_cpu(DRIVER_CPU);
	ck_assert_int_eq(ulock(&word_a, FUTEX_LOCK_PRIVATE, NULL), 0);
	for (int i = 0; i < NWORDS; i++)
		ck_assert_int_eq(ulock(&words[i], FUTEX_LOCK_PRIVATE, NULL), 0);

	ck_assert_int_eq(pthread_create(&a, NULL, spin_on_a, NULL), 0);
	while (!__atomic_load_n(&a_entered, __ATOMIC_ACQUIRE))
		;
	busy_ms(20);		/* A is in the kernel, spinning on us */
	ck_assert_int_eq(pthread_create(&scan, NULL, scan_words, NULL), 0);
	end = deadline_ms(CLOCK_MONOTONIC, 300 * 1000L);
	while (!__atomic_load_n(&scan_done, __ATOMIC_ACQUIRE))
		if (past(&end))
			ck_abort_msg("the scan hung");
	ck_assert_int_eq(join_within(a, WAIT_HUNG_SEC, NULL), 0);
	ck_assert_int_eq(uunlock_k(&word_a, FUTEX_PRIVATE_FLAG), 0);
	ck_assert_int_eq(join_within(scan, WAIT_HUNG_SEC, NULL), 0);
	for (int i = 0; i < NWORDS; i++) {
		ck_assert_int_eq(uunlock_k(&words[i], FUTEX_PRIVATE_FLAG), 0);
		errors += scan_slept[i] < 0;
		once += scan_slept[i] > 0;
		always += scan_slept[i] == 1 + RETRIES;
	}
	printf("two words: %d words tried for %d us each; slept on %d, "
	       "on %d of them %d times more; the waiter of A slept in %d of "
	       "its %d calls\n", NWORDS, SCAN_US, once, always, RETRIES,
	       a_slept, a_calls);
	ck_assert_msg(errors == 0, "%d calls did not time out", errors);
	ck_assert_msg(a_errors == 0, "%d calls on word A did not time out", a_errors);
	ck_assert_msg(always == 0, "%d words never let their waiter spin while "
		      "word A had a spinner", always);
}
END_TEST

static Suite *spinners_suite(void)
{
	Suite *s = suite_create("futex_lock_spinners");
	TCase *tc;

	tc = tcase_create("second_spinner_waits_its_turn");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_second_spinner_waits_its_turn);
	suite_add_tcase(s, tc);

	tc = tcase_create("middle_spinner_leaves_its_place");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_middle_spinner_leaves_its_place);
	suite_add_tcase(s, tc);

	tc = tcase_create("words_sharing_a_bucket_spin_at_once");
	tcase_set_timeout(tc, 600);
	tcase_add_test(tc, test_words_sharing_a_bucket_spin_at_once);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(spinners_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
