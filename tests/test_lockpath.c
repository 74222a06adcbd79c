// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * test_lockpath.c - what libuspin's lock and unlock paths never do: call
 * malloc, stdio, getenv, IPC or dlopen, or read a clock while spinning.
 *
 * Linked with -Wl,--wrap for each of those functions (tests/build.mk), so
 * every call libuspin.a makes to them lands in the counters below; a
 * thread counts only while it is inside a lock, trylock, timedlock or
 * unlock call.  The cases cover every policy on both wait paths, private,
 * robust and shared mutexes, a thread's first lock (the TID slow path and
 * the provider's thread_init) and a fork child's first lock (the
 * new-process path).  A timed lock may read its clock once, at entry, to
 * turn the deadline into cycles.
 *
 * Built for the host and, statically, for the guest, where `make check`
 * runs it on a kernel booted with the jiffies clocksource: there every
 * clock read would be a system call with 4 ms steps.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include "running_state.h"
#include "setup.h"
#include "test_util.h"
#include "uspin_testing.h"

static __thread int watching;
static long clock_reads, forbidden;	/* atomic */
static char forbidden_what[64];

static void note_forbidden(const char *what)
{
	if (!watching)
		return;
	if (__atomic_fetch_add(&forbidden, 1, __ATOMIC_RELAXED) == 0)
		snprintf(forbidden_what, sizeof(forbidden_what), "%s", what);
}

/* ---- the wrapped functions ---- */
int __real_clock_gettime(clockid_t c, struct timespec *ts);
int __wrap_clock_gettime(clockid_t c, struct timespec *ts);
int __wrap_clock_gettime(clockid_t c, struct timespec *ts)
{
	if (watching)
		__atomic_add_fetch(&clock_reads, 1, __ATOMIC_RELAXED);
	return __real_clock_gettime(c, ts);
}

#define WRAP(ret, name, params, args)			\
	ret __real_##name params;			\
	ret __wrap_##name params;			\
	ret __wrap_##name params			\
	{						\
		note_forbidden(#name);			\
		return __real_##name args;		\
	}

WRAP(void *, malloc, (size_t n), (n))
WRAP(void *, calloc, (size_t n, size_t s), (n, s))
WRAP(void *, realloc, (void *p, size_t n), (p, n))
WRAP(char *, getenv, (const char *n), (n))
WRAP(char *, secure_getenv, (const char *n), (n))
WRAP(FILE *, fopen, (const char *p, const char *m), (p, m))
WRAP(int, vfprintf, (FILE *f, const char *fmt, va_list ap), (f, fmt, ap))
WRAP(int, fputs, (const char *s, FILE *f), (s, f))
WRAP(size_t, fwrite, (const void *p, size_t s, size_t n, FILE *f), (p, s, n, f))
WRAP(int, socket, (int d, int t, int p), (d, t, p))
WRAP(int, connect, (int fd, const struct sockaddr *a, socklen_t l), (fd, a, l))
WRAP(ssize_t, sendmsg, (int fd, const struct msghdr *m, int f), (fd, m, f))
WRAP(ssize_t, recvmsg, (int fd, struct msghdr *m, int f), (fd, m, f))
WRAP(ssize_t, send, (int fd, const void *b, size_t n, int f), (fd, b, n, f))
WRAP(ssize_t, recv, (int fd, void *b, size_t n, int f), (fd, b, n, f))
WRAP(int, gettimeofday, (struct timeval *tv, void *tz), (tv, tz))

void __real_free(void *p);
void __wrap_free(void *p);
void __wrap_free(void *p)
{
	note_forbidden("free");
	__real_free(p);
}

int __real_fprintf(FILE *f, const char *fmt, ...);
int __wrap_fprintf(FILE *f, const char *fmt, ...);
int __wrap_fprintf(FILE *f, const char *fmt, ...)
{
	va_list ap;
	int r;

	note_forbidden("fprintf");
	va_start(ap, fmt);
	r = vfprintf(f, fmt, ap);
	va_end(ap);
	return r;
}

/* ---- watched calls ---- */
static void reset_counts(void)
{
	clock_reads = 0;
	forbidden = 0;
	forbidden_what[0] = '\0';
}

static void assert_nothing_forbidden(const char *where)
{
	ck_assert_msg(forbidden == 0, "%s: %ld forbidden call(s), first: %s",
		      where, forbidden, forbidden_what);
}

enum op { OP_LOCK, OP_TRYLOCK, OP_TIMEDLOCK, NR_OPS };

/* One watched acquisition by @op, then a watched unlock. */
static int watched_cycle(uspin_mutex_t *m, enum op op)
{
	struct timespec ts;
	int r;

	if (op == OP_TIMEDLOCK)
		ts = deadline_in(CLOCK_MONOTONIC, 200 * 1000000LL);
	watching = 1;
	switch (op) {
	case OP_TRYLOCK:
		while ((r = uspin_mutex_trylock(m)) == EBUSY)
			;
		break;
	case OP_TIMEDLOCK:
		r = uspin_mutex_clocklock(m, CLOCK_MONOTONIC, &ts);
		break;
	default:
		r = uspin_mutex_lock(m);
		break;
	}
	if (r == 0)
		r = uspin_mutex_unlock(m);
	watching = 0;
	return r;
}

struct crowd {
	uspin_mutex_t *m;
	long rounds;
	long timed;		/* atomic: timed acquisitions made */
	long errors;		/* atomic */
};

static void *crowd_main(void *arg)
{
	struct crowd *c = arg;
	long i;

	for (i = 0; i < c->rounds; i++) {
		enum op op = (enum op)(i % NR_OPS);

		if (watched_cycle(c->m, op) != 0)
			__atomic_add_fetch(&c->errors, 1, __ATOMIC_RELAXED);
		if (op == OP_TIMEDLOCK)
			__atomic_add_fetch(&c->timed, 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

static const unsigned int kinds[] = { 0, USPIN_ROBUST,
				      USPIN_PROCESS_SHARED | USPIN_ROBUST };

/* Loop index: policy x kind x wait path. */
START_TEST(contended_paths_call_nothing_forbidden)
{
	enum { THREADS = 4 };
	unsigned int policy = policy_nr(_i % NR_POLICIES);
	unsigned int kind = kinds[(_i / NR_POLICIES) % 3];
	struct crowd c = { .rounds = test_scaled(3000) };
	uspin_mutex_t *m = mmap(NULL, sizeof(*m), PROT_READ | PROT_WRITE,
				MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	pthread_t t[THREADS];
	int i;

	ck_assert_ptr_ne(m, MAP_FAILED);
	uspin_force_stock_kernel = _i / (NR_POLICIES * 3);
	ck_assert_int_eq(uspin_mutex_init(m, policy | kind), 0);
	c.m = m;
	reset_counts();
	/* New threads: their first lock learns the TID (and thread_init). */
	for (i = 0; i < THREADS; i++)
		ck_assert_int_eq(pthread_create(&t[i], NULL, crowd_main, &c), 0);
	for (i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	ck_assert_int_eq(c.errors, 0);
	assert_nothing_forbidden("contended threads");
	ck_assert_msg(clock_reads <= c.timed,
		      "%ld clock reads for %ld timed locks", clock_reads, c.timed);
	munmap(m, sizeof(*m));
}
END_TEST

/* A fork child's first lock runs the new-process path: also clean. */
START_TEST(first_lock_in_a_fork_child_calls_nothing_forbidden)
{
	uspin_mutex_t m = USPIN_MUTEX_INITIALIZER;
	int status;
	pid_t pid;

	ck_assert_int_eq(watched_cycle(&m, OP_LOCK), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		reset_counts();
		if (watched_cycle(&m, OP_LOCK) != 0)
			_exit(2);
		_exit(forbidden ? 3 : clock_reads ? 4 : 0);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		      "child status %d (3: forbidden call, 4: clock read)", status);
}
END_TEST

/*
 * A waiter on an owner that holds the lock for 30 ms, running or asleep:
 * no clock read, and the spin stays within its budget (the cap is 500 us
 * here, as with USPIN_SPIN_CAP_US=500; v2's learned budget and the blind
 * one where the running state is unknown).  Prints the
 * waiter's CPU time per acquisition (the kernel's accounting: tick-sampled,
 * so 0 on a jiffies guest) and its spin time (the library's TSC count).
 */
struct long_holder {
	uspin_mutex_t *m;
	int sleep;
	volatile int locked, done;
};

static void *long_holder_main(void *arg)
{
	struct long_holder *h = arg;
	int64_t t0;

	uspin_mutex_lock(h->m);
	__atomic_store_n(&h->locked, 1, __ATOMIC_RELEASE);
	t0 = now_on(CLOCK_MONOTONIC);
	if (h->sleep)
		usleep(30000);
	else
		while (now_on(CLOCK_MONOTONIC) - t0 < 30 * 1000000LL)
			;
	uspin_mutex_unlock(h->m);
	return NULL;
}

static int64_t thread_cpu_ns(void)
{
	return now_on(CLOCK_THREAD_CPUTIME_ID);
}

/* The longest a spin of @policy may last here, in cycles. */
static uint64_t spin_limit(unsigned int policy)
{
	const struct uspin_setup *s = uspin_setup();
	int informed = strcmp(uspin_running_state_provider(), "none") != 0;

	switch (policy) {
	case USPIN_POLICY_USER_ADAPTIVE:
		return informed ? s->spin_cap : s->spin_max;
	case USPIN_POLICY_USER_ADAPTIVE_BOUNDED:
		return informed ? s->user_spin_max : s->spin_max;
	case USPIN_POLICY_SPIN_CAPPED:
		return s->spin_cap;
	}
	return s->spin_max;
}

/* Loop index: spinning policy x owner runs/sleeps. */
START_TEST(long_hold_spin_is_bounded_and_clock_free)
{
	static const unsigned int policies[] = {
		USPIN_POLICY_SPIN_BOUNDED, USPIN_POLICY_USER_ADAPTIVE,
		USPIN_POLICY_USER_ADAPTIVE_BOUNDED, USPIN_POLICY_SPIN_CAPPED };
	enum { REPS = 5, NP = sizeof(policies) / sizeof(policies[0]) };
	unsigned int policy = policies[_i % NP];
	int sleep = _i / NP, rep;
	const struct uspin_setup *s = uspin_setup();
	uint64_t saved_cap = s->spin_cap, cap_ns;
	uint64_t best_spin = UINT64_MAX, spin_total = 0;
	int64_t cpu_total = 0;
	uspin_mutex_t m;

	uspin_setup_state.spin_cap = 500 * s->cycles_per_us;
	cap_ns = spin_limit(policy) * 1000 / s->cycles_per_us;

	for (rep = 0; rep < REPS; rep++) {
		struct long_holder h = { .m = &m, .sleep = sleep };
		struct uspin_thread_stats st;
		pthread_t t;
		int64_t cpu;

		ck_assert_int_eq(uspin_mutex_init(&m, policy), 0);
		ck_assert_int_eq(pthread_create(&t, NULL, long_holder_main, &h), 0);
		while (!__atomic_load_n(&h.locked, __ATOMIC_ACQUIRE))
			sched_yield();
		uspin_thread_stats(&st, sizeof(st), 1);
		reset_counts();
		cpu = thread_cpu_ns();
		ck_assert_int_eq(watched_cycle(&m, OP_LOCK), 0);
		cpu_total += thread_cpu_ns() - cpu;
		uspin_thread_stats(&st, sizeof(st), 0);
		pthread_join(t, NULL);
		ck_assert_int_eq(clock_reads, 0);
		assert_nothing_forbidden("long hold");
		spin_total += st.spin_ns_wasted + st.spin_ns_acquired;
		if (st.spin_ns_wasted + st.spin_ns_acquired < best_spin)
			best_spin = st.spin_ns_wasted + st.spin_ns_acquired;
	}
	uspin_setup_state.spin_cap = saved_cap;
	printf("lockpath: %s, owner %s through a 30 ms hold: per acquisition waiter CPU %.3f ms, spin %.3f ms; shortest spin %.3f ms (cap %.3f ms)\n",
	       uspin_policy_name(policy), sleep ? "asleep" : "running",
	       cpu_total / 1e6 / REPS, spin_total / 1e6 / REPS, best_spin / 1e6,
	       cap_ns / 1e6);
	/* Preemption can stretch one spin; the shortest of 5 cannot all be. */
	ck_assert_uint_le(best_spin, cap_ns + cap_ns / 2 + 100000);
	/* Never spun through the hold. */
	ck_assert_int_lt(cpu_total / REPS, 15 * 1000000LL);
}
END_TEST

static Suite *suite_lockpath(void)
{
	Suite *s = suite_create("lockpath");
	TCase *tc = tcase_create("lockpath");

	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, contended_paths_call_nothing_forbidden, 0,
			    NR_POLICIES * 3 * 2);
	tcase_add_test(tc, first_lock_in_a_fork_child_calls_nothing_forbidden);
	if (uspin_setup()->ncpus >= 2)
		tcase_add_loop_test(tc, long_hold_spin_is_bounded_and_clock_free,
				    0, 8);
	else
		printf("SKIP: lockpath/long-hold: one usable CPU, nothing spins\n");
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(suite_lockpath());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
