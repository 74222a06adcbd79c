// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * test_slice_ext.c - the rseq time-slice extension on the owner's side
 * (libuspin/slice_ext.h): the request byte of the thread's rseq area is
 * set exactly while the thread holds a lock word, on every path that
 * takes or gives one up, and the kernel (Linux 7.0, our patched 6.12
 * guest) grants extensions to a lock holder with a CPU hog beside it.
 *
 * Anywhere: what setup reports, and the bookkeeping in the test-only
 * forced mode (uspin_slice_force(): the request is written even where the
 * kernel ignores it).  Where the kernel has the extension: the enable,
 * the kernel's flag, and grants.  Without it those print one
 * "SKIP: slice: ..." line (nothing counted as passed), unless
 * USPIN_SLICE_REQUIRE=1 (the guest run) makes its absence a failure.
 */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/rseq.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "cycles.h"
#include "setup.h"
#include "test_util.h"
#include "uspin_testing.h"

/* The calling thread's slice_ctrl, where glibc registered its area. */
static struct uspin_rseq_slice_ctrl *rseq_ctrl(void)
{
	ck_assert_msg(__rseq_size > 0, "glibc registered no rseq area");
	return (struct uspin_rseq_slice_ctrl *)((char *)__builtin_thread_pointer() +
						__rseq_offset +
						USPIN_RSEQ_SLICE_CTRL_OFFSET);
}

static uint32_t rseq_flags(void)
{
	return *(volatile uint32_t *)((char *)__builtin_thread_pointer() +
				      __rseq_offset + USPIN_RSEQ_FLAGS_OFFSET);
}

static int request(void)
{
	return CMM_LOAD_SHARED(rseq_ctrl()->request);
}

static unsigned int depth(void)
{
	return uspin_thread.slice.depth;
}

static struct uspin_slice_info slice_info(void)
{
	struct uspin_slice_info si;

	ck_assert_int_eq(uspin_slice_extension(&si, sizeof(si)), 0);
	return si;
}

static struct uspin_thread_stats thread_stats(int reset)
{
	struct uspin_thread_stats st;

	ck_assert_int_eq(uspin_thread_stats(&st, sizeof(st), reset), 0);
	return st;
}

/* Involuntary switches of the calling thread so far. */
static long preemptions(void)
{
	struct rusage ru;

	ck_assert_int_eq(getrusage(RUSAGE_THREAD, &ru), 0);
	return ru.ru_nivcsw;
}

/*
 * The request is set at every acquisition; the kernel may consume it
 * before we look: a grant turns it into granted, a preemption (or a
 * grant that ran out, which preempts) clears it.  Only a request missing
 * with neither is the library's fault.
 */
static int request_missing(long preempted_before)
{
	const struct uspin_rseq_slice_ctrl *ctrl = uspin_thread.slice.ctrl;

	return !ctrl->request && !ctrl->granted &&
	       preemptions() == preempted_before;
}

/* This thread's preemptions when force_on() or assert_held() last looked. */
static long preempted_at_check;

/* The forced mode, on the calling thread, on the real rseq area. */
static void force_on(void)
{
	uspin_slice_force(1);
	ck_assert(uspin_thread.slice.on);
	ck_assert(uspin_thread.unlock_work & USPIN_UNLOCK_SLICE);
	ck_assert_ptr_eq(uspin_thread.slice.ctrl, rseq_ctrl());
	ck_assert_int_eq(depth(), 0);
	ck_assert_int_eq(request(), 0);
	preempted_at_check = preemptions();
}

/*
 * Depth @d, and the request set while d > 0 unless the kernel consumed
 * it since the last check (a preemptible kernel grants or preempts at
 * any tick, not only when the thread sleeps).
 */
static void assert_held(unsigned int d)
{
	ck_assert_int_eq(depth(), d);
	if (d > 0 && uspin_thread.slice.kernel)
		ck_assert_msg(!request_missing(preempted_at_check),
			      "no request at depth %u, and the kernel neither granted nor preempted", d);
	else
		ck_assert_int_eq(request(), d > 0);
	preempted_at_check = preemptions();
}

/*
 * The same after the thread may have slept or been signalled since its
 * last lock: a kernel with the extension then cleared the request (its
 * "scheduled anyway"); none is ever left set outside a section.
 */
static void assert_held_after_sleep(unsigned int d)
{
	ck_assert_int_eq(depth(), d);
	if (uspin_thread.slice.kernel && d > 0)
		ck_assert_int_le(request(), 1);
	else
		ck_assert_int_eq(request(), d > 0);
}

/* ---- anywhere: setup's report ---- */

/* The probe agrees with what the kernel says to the same prctl. */
START_TEST(probe_reports_what_the_kernel_says)
{
	struct uspin_slice_info si = slice_info();
	long mode = prctl(PR_RSEQ_SLICE_EXTENSION, PR_RSEQ_SLICE_EXTENSION_GET,
			  0, 0, 0);

	ck_assert_ptr_nonnull(si.reason);
	if (mode < 0 && errno == EINVAL) {
		ck_assert_int_eq(si.available, 0);
		ck_assert_str_eq(si.reason, "kernel has no PR_RSEQ_SLICE_EXTENSION");
	}
	if (si.available)
		ck_assert_str_eq(si.reason, "");
	else
		ck_assert(*si.reason);
	ck_assert_int_eq(si.enabled_by_policy, 1);	/* the default */
	ck_assert_int_eq(si.in_use, si.available);
}
END_TEST

/* Absent: locking leaves the rseq area and the kernel's mode alone. */
START_TEST(absent_changes_nothing)
{
	uspin_mutex_t m = USPIN_MUTEX_INITIALIZER;
	struct uspin_thread_stats st;

	thread_stats(1);
	ck_assert_int_eq(uspin_mutex_lock(&m), 0);
	ck_assert_int_eq(uspin_thread.slice.on, 0);
	ck_assert_int_eq(uspin_thread.unlock_work & USPIN_UNLOCK_SLICE, 0);
	ck_assert_int_eq(depth(), 0);
	ck_assert_int_eq(request(), 0);
	ck_assert_int_eq(uspin_mutex_unlock(&m), 0);
	ck_assert_int_eq(request(), 0);
	ck_assert_int_eq(prctl(PR_RSEQ_SLICE_EXTENSION, PR_RSEQ_SLICE_EXTENSION_GET,
			       0, 0, 0), -1);
	st = thread_stats(0);
	ck_assert_int_eq(st.slice_requests, 0);
}
END_TEST

/* `test-uspin --slice-info` under @env: key=value lines into @out. */
static void run_slice_info(const char *env, char *out, size_t len, char *err,
			   size_t elen)
{
	int po[2], pe[2], status;
	size_t n = 0, k = 0;
	ssize_t r;
	pid_t pid;

	ck_assert_int_eq(pipe(po), 0);
	ck_assert_int_eq(pipe(pe), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		char *argv[] = { "test-uspin", "--slice-info", NULL };

		dup2(po[1], 1);
		dup2(pe[1], 2);
		if (env)
			putenv((char *)env);
		else
			unsetenv("USPIN_SLICE_EXT");
		execv("/proc/self/exe", argv);
		_exit(127);
	}
	close(po[1]);
	close(pe[1]);
	while (n + 1 < len && (r = read(po[0], out + n, len - 1 - n)) > 0)
		n += (size_t)r;
	out[n] = '\0';
	while (k + 1 < elen && (r = read(pe[0], err + k, elen - 1 - k)) > 0)
		k += (size_t)r;
	err[k] = '\0';
	close(po[0]);
	close(pe[0]);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		      "test-uspin --slice-info failed: %s", err);
}

static void assert_has(const char *out, const char *line)
{
	char want[256];

	snprintf(want, sizeof(want), "%s\n", line);
	ck_assert_msg(strstr(out, want) != NULL, "expected '%s' in:\n%s", line, out);
}

/* USPIN_SLICE_EXT: 0 keeps it off, 1 (or unset) uses it, junk is said. */
START_TEST(policy_env_is_reported)
{
	struct uspin_slice_info si = slice_info();
	char out[2048], err[2048], line[64];

	run_slice_info("USPIN_SLICE_EXT=0", out, sizeof(out), err, sizeof(err));
	assert_has(out, "enabled_by_policy=0");
	assert_has(out, "in_use=0");
	assert_has(out, "forced=0");
	assert_has(out, "request_while_held=0");
	if (si.available)
		assert_has(out, "prctl_get=0");	/* never enabled */
	run_slice_info("USPIN_SLICE_EXT=1", out, sizeof(out), err, sizeof(err));
	assert_has(out, "enabled_by_policy=1");
	snprintf(line, sizeof(line), "in_use=%d", si.available);
	assert_has(out, line);
	snprintf(line, sizeof(line), "request_while_held=%d", si.available);
	assert_has(out, line);
	run_slice_info(NULL, out, sizeof(out), err, sizeof(err));
	assert_has(out, "enabled_by_policy=1");
	run_slice_info("USPIN_SLICE_EXT=force", out, sizeof(out), err, sizeof(err));
	assert_has(out, "request_while_held=1");
	assert_has(out, si.available ? "forced=0" : "forced=1");
	run_slice_info("USPIN_SLICE_EXT=maybe", out, sizeof(out), err, sizeof(err));
	ck_assert_msg(strstr(err, "USPIN_SLICE_EXT=maybe is not one of 0|1|force") != NULL,
		      "no complaint about a bad value: %s", err);
	assert_has(out, "enabled_by_policy=1");
}
END_TEST

/* ---- anywhere, forced: the request follows the words held ---- */

START_TEST(request_set_while_held)
{
	uspin_mutex_t m = USPIN_MUTEX_INITIALIZER;
	struct uspin_thread_stats st;

	force_on();
	thread_stats(1);
	ck_assert_int_eq(uspin_mutex_lock(&m), 0);
	assert_held(1);
	ck_assert_int_eq(uspin_mutex_unlock(&m), 0);
	assert_held(0);
	st = thread_stats(0);
	ck_assert_int_eq(st.slice_requests, 1);
	ck_assert_int_eq(st.slice_yields, 0);
	uspin_slice_force(0);
	ck_assert_int_eq(uspin_thread.unlock_work & USPIN_UNLOCK_SLICE, 0);
	ck_assert_int_eq(uspin_mutex_lock(&m), 0);
	assert_held(0);
	ck_assert_int_eq(uspin_mutex_unlock(&m), 0);
}
END_TEST

/* Single-threaded and threaded fast paths alike (a thread alive). */
static void *idle_main(void *arg)
{
	return arg;
}

START_TEST(request_set_while_held_threaded)
{
	uspin_mutex_t m = USPIN_MUTEX_INITIALIZER;
	pthread_t t;

	ck_assert_int_eq(pthread_create(&t, NULL, idle_main, NULL), 0);
	pthread_join(t, NULL);
	force_on();
	ck_assert_int_eq(uspin_mutex_lock(&m), 0);
	assert_held(1);
	ck_assert_int_eq(uspin_mutex_unlock(&m), 0);
	assert_held(0);
}
END_TEST

/* Two words: the inner unlock keeps the request, whatever the order. */
START_TEST(nested_locks_count_words)
{
	uspin_mutex_t a = USPIN_MUTEX_INITIALIZER, b = USPIN_MUTEX_INITIALIZER;

	force_on();
	ck_assert_int_eq(uspin_mutex_lock(&a), 0);
	ck_assert_int_eq(uspin_mutex_lock(&b), 0);
	assert_held(2);
	ck_assert_int_eq(uspin_mutex_unlock(&b), 0);
	assert_held(1);
	ck_assert_int_eq(uspin_mutex_unlock(&a), 0);
	assert_held(0);
	/* Not last-in first-out. */
	ck_assert_int_eq(uspin_mutex_lock(&a), 0);
	ck_assert_int_eq(uspin_mutex_lock(&b), 0);
	ck_assert_int_eq(uspin_mutex_unlock(&a), 0);
	assert_held(1);
	ck_assert_int_eq(uspin_mutex_unlock(&b), 0);
	assert_held(0);
	ck_assert_int_eq(thread_stats(0).slice_requests, 2);
}
END_TEST

/* A thread holding @m until told to let go (test_util.h's holder). */
START_TEST(trylock_counts_only_success)
{
	uspin_mutex_t m = USPIN_MUTEX_INITIALIZER, busy = USPIN_MUTEX_INITIALIZER;
	struct holder h;

	force_on();
	ck_assert_int_eq(uspin_mutex_trylock(&m), 0);
	assert_held(1);
	ck_assert_int_eq(uspin_mutex_trylock(&m), EBUSY);	/* ours */
	assert_held(1);
	holder_start(&h, &busy);
	ck_assert_int_eq(uspin_mutex_trylock(&busy), EBUSY);	/* theirs */
	assert_held_after_sleep(1);
	ck_assert_int_eq(uspin_mutex_unlock(&m), 0);
	assert_held(0);
	ck_assert_int_eq(uspin_mutex_trylock(&busy), EBUSY);
	assert_held(0);
	holder_stop(&h);
}
END_TEST

START_TEST(failed_locks_leave_depth_alone)
{
	uspin_mutex_t m = USPIN_MUTEX_INITIALIZER, busy = USPIN_MUTEX_INITIALIZER;
	struct timespec ts;
	struct holder h;

	force_on();
	holder_start(&h, &busy);
	ts = deadline_in(CLOCK_REALTIME, 20 * 1000000L);
	ck_assert_int_eq(uspin_mutex_timedlock(&busy, &ts), ETIMEDOUT);
	assert_held(0);
	ts = deadline_in(CLOCK_MONOTONIC, 1000000L);
	ck_assert_int_eq(uspin_mutex_clocklock(&busy, CLOCK_MONOTONIC, &ts),
			 ETIMEDOUT);
	assert_held(0);
	/* The uspin API is errorcheck: a relock is EDEADLK, lock or timed. */
	ck_assert_int_eq(uspin_mutex_lock(&m), 0);
	ck_assert_int_eq(uspin_mutex_lock(&m), EDEADLK);
	assert_held(1);
	ts = deadline_in(CLOCK_REALTIME, 1000000L);
	ck_assert_int_eq(uspin_mutex_timedlock(&m, &ts), EDEADLK);
	assert_held(1);
	/* A foreign unlock is EPERM and gives nothing up. */
	ck_assert_int_eq(uspin_mutex_unlock(&busy), EPERM);
	assert_held(1);
	ck_assert_int_eq(uspin_mutex_unlock(&m), 0);
	assert_held(0);
	ck_assert_int_eq(uspin_mutex_unlock(&m), EPERM);
	assert_held(0);
	holder_stop(&h);
	/* A timed lock that succeeds after waiting counts once. */
	ts = deadline_in(CLOCK_REALTIME, 1000000000L);
	ck_assert_int_eq(uspin_mutex_timedlock(&busy, &ts), 0);
	assert_held(1);
	ck_assert_int_eq(uspin_mutex_unlock(&busy), 0);
	assert_held(0);
}
END_TEST

/*
 * glibc's normal mutex (the drop-in's mode 0): a relock by the owner
 * waits until another thread unlocks it, then takes it again: one word.
 */
struct relocker {
	uspin_mutex_t *m;
	volatile int blocked;
	unsigned int depth_first, depth_after;
	int ret;
};

static void *relocker_main(void *arg)
{
	struct relocker *r = arg;

	uspin_slice_force(1);
	uspin_lock_contended(r->m, 0, CLOCK_MONOTONIC, NULL);
	r->depth_first = uspin_thread.slice.depth;
	__atomic_store_n(&r->blocked, 1, __ATOMIC_RELEASE);
	r->ret = uspin_lock_contended(r->m, 0, CLOCK_MONOTONIC, NULL);
	r->depth_after = uspin_thread.slice.depth;
	uspin_unlock_contended(r->m, 0);
	r->depth_after += 10 * uspin_thread.slice.depth;
	return NULL;
}

START_TEST(normal_relock_after_foreign_unlock)
{
	uspin_mutex_t m = USPIN_MUTEX_INITIALIZER;
	struct relocker r = { .m = &m };
	pthread_t t;

	force_on();
	ck_assert_int_eq(pthread_create(&t, NULL, relocker_main, &r), 0);
	while (!__atomic_load_n(&r.blocked, __ATOMIC_ACQUIRE))
		usleep(100);
	usleep(20000);	/* asleep in its relock, most likely */
	/* Anyone may unlock a normal mutex: not our word, not our depth. */
	ck_assert_int_eq(uspin_unlock_contended(&m, 0), 0);
	assert_held(0);
	pthread_join(t, NULL);
	ck_assert_int_eq(r.ret, 0);
	ck_assert_int_eq(r.depth_first, 1);
	ck_assert_int_eq(r.depth_after, 1);	/* 1 held, then 0 after unlock */
}
END_TEST

/* Contended: the slow paths (spin or block) take and give the word. */
struct contender {
	uspin_mutex_t *m;
	int rounds;
	int bad;
};

static void *contender_main(void *arg)
{
	struct contender *c = arg;
	int i;

	uspin_slice_force(1);
	for (i = 0; i < c->rounds; i++) {
		long before = preemptions();

		uspin_mutex_lock(c->m);
		if (uspin_thread.slice.depth != 1 || request_missing(before))
			c->bad++;
		if (i % 16 == 0)
			sched_yield();
		uspin_mutex_unlock(c->m);
		if (uspin_thread.slice.depth != 0 || uspin_thread.slice.ctrl->request)
			c->bad++;
	}
	return NULL;
}

START_TEST(contended_paths_balance)
{
	uspin_mutex_t m;
	struct contender c[2];
	pthread_t t[2];
	int i;

	uspin_mutex_init(&m, (unsigned int)_i);
	for (i = 0; i < 2; i++) {
		c[i] = (struct contender){ &m, (int)test_scaled(3000), 0 };
		ck_assert_int_eq(pthread_create(&t[i], NULL, contender_main, &c[i]), 0);
	}
	for (i = 0; i < 2; i++) {
		pthread_join(t[i], NULL);
		ck_assert_int_eq(c[i].bad, 0);
	}
}
END_TEST

/* The condvar releases the word for the wait and takes it back. */
struct waiter {
	uspin_mutex_t *m;
	uspin_cond_t *c;
	volatile int ready, go;
	struct uspin_rseq_slice_ctrl *ctrl;
	struct uspin_slice *slice;
	unsigned int depth_after_wait, request_after_wait, depth_after_unlock;
	int ret;
};

static void *waiter_main(void *arg)
{
	struct waiter *w = arg;

	uspin_slice_force(1);
	w->ctrl = uspin_thread.slice.ctrl;
	w->slice = &uspin_thread.slice;
	uspin_mutex_lock(w->m);
	__atomic_store_n(&w->ready, 1, __ATOMIC_RELEASE);
	while (!w->go)
		w->ret = uspin_cond_wait(w->c, w->m);
	w->depth_after_wait = uspin_thread.slice.depth;
	w->request_after_wait = uspin_thread.slice.ctrl->request;
	uspin_mutex_unlock(w->m);
	w->depth_after_unlock = uspin_thread.slice.depth + uspin_thread.slice.ctrl->request;
	return NULL;
}

START_TEST(cond_wait_releases_and_retakes)
{
	uspin_mutex_t m = USPIN_MUTEX_INITIALIZER;
	uspin_cond_t c = USPIN_COND_INITIALIZER;
	struct waiter w = { .m = &m, .c = &c };
	pthread_t t;

	ck_assert_int_eq(pthread_create(&t, NULL, waiter_main, &w), 0);
	while (!__atomic_load_n(&w.ready, __ATOMIC_ACQUIRE))
		usleep(100);
	/* Ours once the waiter released it inside the wait. */
	ck_assert_int_eq(uspin_mutex_lock(&m), 0);
	ck_assert_int_eq(CMM_LOAD_SHARED(w.ctrl->request), 0);
	ck_assert_int_eq(CMM_LOAD_SHARED(w.slice->depth), 0);
	w.go = 1;
	ck_assert_int_eq(uspin_cond_signal(&c), 0);
	ck_assert_int_eq(uspin_mutex_unlock(&m), 0);
	pthread_join(t, NULL);
	ck_assert_int_eq(w.ret, 0);
	ck_assert_int_eq(w.depth_after_wait, 1);
	ck_assert_int_eq(w.request_after_wait, 1);
	ck_assert_int_eq(w.depth_after_unlock, 0);
}
END_TEST

/* A dead owner's robust word is taken (EOWNERDEAD): it counts. */
static void *lock_and_exit(void *arg)
{
	uspin_mutex_lock(arg);
	return NULL;
}

START_TEST(robust_owner_dead_acquires)
{
	uspin_mutex_t m;
	pthread_t t;

	ck_assert_int_eq(uspin_mutex_init(&m, USPIN_ROBUST), 0);
	ck_assert_int_eq(pthread_create(&t, NULL, lock_and_exit, &m), 0);
	pthread_join(t, NULL);
	force_on();
	ck_assert_int_eq(_i ? uspin_mutex_trylock(&m) : uspin_mutex_lock(&m),
			 EOWNERDEAD);
	assert_held(1);
	ck_assert_int_eq(uspin_mutex_consistent(&m), 0);
	ck_assert_int_eq(uspin_mutex_unlock(&m), 0);
	assert_held(0);
	ck_assert_int_eq(uspin_mutex_lock(&m), 0);
	assert_held(1);
	ck_assert_int_eq(uspin_mutex_unlock(&m), 0);
	assert_held(0);
}
END_TEST

/* Not made consistent: the unlock marks it unrecoverable, and gives it up. */
START_TEST(robust_notrecoverable_leaves_depth)
{
	uspin_mutex_t m;
	pthread_t t;

	ck_assert_int_eq(uspin_mutex_init(&m, USPIN_ROBUST), 0);
	ck_assert_int_eq(pthread_create(&t, NULL, lock_and_exit, &m), 0);
	pthread_join(t, NULL);
	force_on();
	ck_assert_int_eq(uspin_mutex_lock(&m), EOWNERDEAD);
	ck_assert_int_eq(uspin_mutex_unlock(&m), 0);
	assert_held(0);
	ck_assert_int_eq(uspin_mutex_lock(&m), ENOTRECOVERABLE);
	assert_held(0);
	ck_assert_int_eq(uspin_mutex_trylock(&m), ENOTRECOVERABLE);
	assert_held(0);
}
END_TEST

/*
 * Process-shared words, and a fork child: the shared word still belongs
 * to the parent's thread (EPERM); the private one the forking thread held
 * is the child's (libuspin/owner.c), but was requested in the parent: the
 * child starts at depth 0 with no request, and its unlock leaves them so.
 * Its own locks count as usual.
 */
START_TEST(shared_and_fork_child)
{
	uspin_mutex_t *m = mmap(NULL, sizeof(*m), PROT_READ | PROT_WRITE,
				MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	uspin_mutex_t priv = USPIN_MUTEX_INITIALIZER, mine = USPIN_MUTEX_INITIALIZER;
	int status;
	pid_t pid;

	ck_assert_ptr_ne(m, MAP_FAILED);
	ck_assert_int_eq(uspin_mutex_init(m, USPIN_PROCESS_SHARED), 0);
	force_on();
	ck_assert_int_eq(uspin_mutex_lock(m), 0);
	ck_assert_int_eq(uspin_mutex_lock(&priv), 0);
	assert_held(2);
	pid = _i ? (pid_t)syscall(SYS_clone, SIGCHLD, 0, 0, 0, 0) : fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		int bad = 0;

		/* fork() cleared at once; a raw clone() at the first slow path. */
		uspin_self_tid();
		bad |= !uspin_thread.slice.on;
		bad |= (depth() != 0 || request()) << 1;
		bad |= (uspin_mutex_unlock(&priv) != 0) << 2;
		bad |= (uspin_mutex_unlock(m) != EPERM) << 3;
		bad |= (depth() != 0 || request()) << 4;
		bad |= (uspin_mutex_lock(&mine) != 0 || depth() != 1 || !request()) << 5;
		bad |= (uspin_mutex_unlock(&mine) != 0 || depth() != 0 || request()) << 6;
		_exit(bad);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		      "fork child's bookkeeping (status %#x)", status);
	assert_held_after_sleep(2);
	ck_assert_int_eq(uspin_mutex_unlock(&priv), 0);
	assert_held_after_sleep(1);
	ck_assert_int_eq(uspin_mutex_unlock(m), 0);
	assert_held(0);
	munmap(m, sizeof(*m));
}
END_TEST

/* A new thread holds nothing: depth 0, whatever its creator holds. */
struct fresh {
	unsigned int depth_before, depth_held, on;
};

static void *fresh_main(void *arg)
{
	struct fresh *f = arg;
	uspin_mutex_t m = USPIN_MUTEX_INITIALIZER;

	f->depth_before = uspin_thread.slice.depth;
	uspin_mutex_lock(&m);
	f->on = uspin_thread.slice.on;
	f->depth_held = uspin_thread.slice.depth;
	uspin_mutex_unlock(&m);
	return NULL;
}

START_TEST(new_thread_starts_empty)
{
	uspin_mutex_t m = USPIN_MUTEX_INITIALIZER;
	struct fresh f;
	pthread_t t;

	force_on();
	ck_assert_int_eq(uspin_mutex_lock(&m), 0);
	ck_assert_int_eq(pthread_create(&t, NULL, fresh_main, &f), 0);
	pthread_join(t, NULL);
	ck_assert_int_eq(f.depth_before, 0);
	/* On only where the kernel enabled it for that thread. */
	ck_assert_int_eq(f.on, slice_info().available);
	ck_assert_int_eq(f.depth_held, f.on);
	assert_held_after_sleep(1);
	ck_assert_int_eq(uspin_mutex_unlock(&m), 0);
}
END_TEST

/* A signal handler that locks and unlocks in between is balanced. */
static uspin_mutex_t handler_m = USPIN_MUTEX_INITIALIZER;
static volatile unsigned int handler_depth, handler_request;

static void handler(int sig)
{
	uspin_mutex_lock(&handler_m);
	handler_depth = uspin_thread.slice.depth;
	handler_request = uspin_thread.slice.ctrl->request;
	uspin_mutex_unlock(&handler_m);
}

START_TEST(signal_handler_is_balanced)
{
	uspin_mutex_t m = USPIN_MUTEX_INITIALIZER;

	force_on();
	signal(SIGUSR1, handler);
	raise(SIGUSR1);
	ck_assert_int_eq(handler_depth, 1);
	ck_assert_int_eq(handler_request, 1);
	assert_held(0);
	ck_assert_int_eq(uspin_mutex_lock(&m), 0);
	raise(SIGUSR1);
	ck_assert_int_eq(handler_depth, 2);
	assert_held(1);
	ck_assert_int_eq(uspin_mutex_unlock(&m), 0);
	assert_held(0);
	signal(SIGUSR1, SIG_DFL);
}
END_TEST

/* ---- where the kernel has it ---- */

START_TEST(required_extension_is_available)
{
	struct uspin_slice_info si = slice_info();

	ck_assert_msg(si.available,
		      "USPIN_SLICE_REQUIRE is set but the extension is absent: %s",
		      si.reason);
	ck_assert_int_eq(si.in_use, 1);
	ck_assert_int_eq(si.forced, 0);
}
END_TEST

/* A new thread: disabled until its first lock, enabled from then on. */
struct enable_probe {
	long before, after;
	uint32_t flags_before, flags_after;
	int in_use, request_held;
};

static void *enable_main(void *arg)
{
	struct enable_probe *p = arg;
	uspin_mutex_t m = USPIN_MUTEX_INITIALIZER;

	p->before = prctl(PR_RSEQ_SLICE_EXTENSION, PR_RSEQ_SLICE_EXTENSION_GET, 0, 0, 0);
	p->flags_before = rseq_flags();
	uspin_mutex_lock(&m);
	p->request_held = uspin_thread.slice.ctrl->request;
	uspin_mutex_unlock(&m);
	p->after = prctl(PR_RSEQ_SLICE_EXTENSION, PR_RSEQ_SLICE_EXTENSION_GET, 0, 0, 0);
	p->flags_after = rseq_flags();
	p->in_use = slice_info().in_use;
	return NULL;
}

START_TEST(thread_enabled_at_first_lock)
{
	struct enable_probe p;
	pthread_t t;

	ck_assert_int_eq(pthread_create(&t, NULL, enable_main, &p), 0);
	pthread_join(t, NULL);
	ck_assert_int_eq(p.before, 0);
	ck_assert_int_eq(p.after, PR_RSEQ_SLICE_EXT_ENABLE);
	ck_assert(p.flags_before & USPIN_RSEQ_FLAG_SLICE_EXT_AVAILABLE);
	ck_assert(!(p.flags_before & USPIN_RSEQ_FLAG_SLICE_EXT_ENABLED));
	ck_assert(p.flags_after & USPIN_RSEQ_FLAG_SLICE_EXT_ENABLED);
	ck_assert_int_eq(p.in_use, 1);
	ck_assert_int_eq(p.request_held, 1);
	/* This process's main thread too, and the fork child keeps it. */
	ck_assert_int_eq(prctl(PR_RSEQ_SLICE_EXTENSION, PR_RSEQ_SLICE_EXTENSION_GET,
			       0, 0, 0), PR_RSEQ_SLICE_EXT_ENABLE);
}
END_TEST

/*
 * Grants: a lock holder and a CPU hog share CPU 0.  The holder runs short
 * sections back to back (no system call inside: one ends a grant), so
 * the tick that would preempt it for the hog lands in one nearly always;
 * the kernel's grant (5 us by default, 50 at most) must outlast the rest
 * of the section to be seen at the unlock, hence 1-4 us sections rather
 * than tens of microseconds.  Time is read from the cycle counter: on a
 * jiffies clocksource (TCG) clock_gettime is a system call.
 */
START_TEST(holder_beside_a_hog_is_granted)
{
	uspin_mutex_t m = USPIN_MUTEX_INITIALIZER;
	uint64_t per_us = uspin_setup()->cycles_per_us, end, t;
	struct uspin_thread_stats st;
	long sections = 0, bad_request = 0;
	struct hog hog;

	pin_self(0);
	ck_assert_int_eq(uspin_mutex_lock(&m), 0);	/* enables this thread */
	ck_assert_int_eq(uspin_mutex_unlock(&m), 0);
	ck_assert_int_eq(slice_info().in_use, 1);
	hog_start(&hog, 0);
	thread_stats(1);
	/* Up to 5 s of sections, or until 20 grants were seen. */
	end = uspin_cycles() + 5000000 * per_us;
	do {
		uint64_t len = per_us * (1 + (uint64_t)(sections & 3));

		uspin_mutex_lock(&m);
		t = uspin_cycles();
		while (uspin_cycles() - t < len)
			caa_cpu_relax();
		uspin_mutex_unlock(&m);
		bad_request += rseq_ctrl()->request != 0;
		sections++;
	} while (uspin_cycles() < end &&
		 (sections & 1023 || thread_stats(0).slice_granted < 20));
	hog_stop(&hog);
	st = thread_stats(0);
	printf("slice: %ld sections beside a hog: %llu granted, %llu yields\n",
	       sections, (unsigned long long)st.slice_granted,
	       (unsigned long long)st.slice_yields);
	ck_assert_int_eq(bad_request, 0);
	ck_assert_int_eq(st.slice_requests, (uint64_t)sections);
	ck_assert_msg(st.slice_granted > 0, "no grant in %ld sections", sections);
	/*
	 * Every grant seen at an unlock is yielded; the kernel says whether
	 * it was still running (a yield) or ran out in between, which is its
	 * timing (nearly all on the base kernel, 14 of 20 on a
	 * PREEMPT_VOLUNTARY build, 0 of 4 under KASAN), so only none in 20
	 * is a fault here: a yield that never reaches the kernel.
	 */
	ck_assert_uint_le(st.slice_yields, st.slice_granted);
	if (st.slice_granted >= 20)
		ck_assert_msg(st.slice_yields > 0, "no yield ended any of %llu grants",
			      (unsigned long long)st.slice_granted);
}
END_TEST

/* `test-uspin --slice-info`: one key=value per line (policy_env_is_reported). */
int test_slice_info_main(void)
{
	struct uspin_slice_info si;
	uspin_mutex_t m = USPIN_MUTEX_INITIALIZER;
	int held;
	long get;

	uspin_mutex_lock(&m);
	held = uspin_thread.slice.on ? uspin_thread.slice.ctrl->request : 0;
	uspin_mutex_unlock(&m);
	get = prctl(PR_RSEQ_SLICE_EXTENSION, PR_RSEQ_SLICE_EXTENSION_GET, 0, 0, 0);
	if (uspin_slice_extension(&si, sizeof(si)) != 0)
		return 1;
	printf("available=%d\nin_use=%d\nenabled_by_policy=%d\nforced=%d\n",
	       si.available, si.in_use, si.enabled_by_policy, si.forced);
	printf("reason=%s\nrequest_while_held=%d\nprctl_get=%ld\n", si.reason,
	       held, get < 0 ? -errno : get);
	return 0;
}

Suite *suite_slice(void)
{
	TCase *tc;
	Suite *s = check_suite_one("slice", 120, &tc);
	const char *req = getenv("USPIN_SLICE_REQUIRE");
	struct uspin_info info;
	struct uspin_slice_info si;

	uspin_query(&info);
	uspin_slice_extension(&si, sizeof(si));
	tcase_add_test(tc, probe_reports_what_the_kernel_says);
	tcase_add_test(tc, policy_env_is_reported);
	if (!si.available)
		tcase_add_test(tc, absent_changes_nothing);
	if (__rseq_size > 0) {
		tcase_add_test(tc, request_set_while_held);
		tcase_add_test(tc, request_set_while_held_threaded);
		tcase_add_test(tc, nested_locks_count_words);
		tcase_add_test(tc, trylock_counts_only_success);
		tcase_add_test(tc, failed_locks_leave_depth_alone);
		tcase_add_test(tc, normal_relock_after_foreign_unlock);
		tcase_add_loop_test(tc, contended_paths_balance, 0, USPIN_POLICY_COUNT);
		tcase_add_test(tc, cond_wait_releases_and_retakes);
		tcase_add_loop_test(tc, robust_owner_dead_acquires, 0, 2);
		tcase_add_test(tc, robust_notrecoverable_leaves_depth);
		tcase_add_loop_test(tc, shared_and_fork_child, 0, 2);
		tcase_add_test(tc, new_thread_starts_empty);
		tcase_add_test(tc, signal_handler_is_balanced);
	} else {
		printf("SKIP: slice: glibc registered no rseq area (glibc.pthread.rseq=0): the forced-mode checks not run\n");
	}
	if (req && strcmp(req, "1") == 0)
		tcase_add_test(tc, required_extension_is_available);
	if (si.available) {
		tcase_add_test(tc, thread_enabled_at_first_lock);
		if (info.ncpus >= 2)
			tcase_add_test(tc, holder_beside_a_hog_is_granted);
		else
			printf("SKIP: slice: holder_beside_a_hog_is_granted: one usable CPU\n");
	} else {
		printf("SKIP: slice: the kernel offers no time-slice extension (%s): thread_enabled_at_first_lock, holder_beside_a_hog_is_granted not run (USPIN_SLICE_REQUIRE=1 test-uspin slice on the patched kernel)\n",
		       si.reason);
	}
	return s;
}
