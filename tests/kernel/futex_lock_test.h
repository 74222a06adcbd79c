/* SPDX-License-Identifier: MIT */
/*
 * Helpers shared by the in-guest Check suites of FUTEX_LOCK and
 * FUTEX_LOCK_ADAPTIVE.  Compiled against the patched kernel's uapi headers
 * (make headers_install), so FUTEX_LOCK* come from <linux/futex.h> of the
 * kernel under test.
 */
#ifndef USPIN_TESTS_KERNEL_FUTEX_LOCK_TEST_H
#define USPIN_TESTS_KERNEL_FUTEX_LOCK_TEST_H

#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "../sys_util.h"
#include "guest_util.h"

#if !defined(FUTEX_LOCK) || !defined(FUTEX_UNLOCK)
#error "<linux/futex.h> lacks FUTEX_LOCK/FUTEX_UNLOCK: compile against the patched kernel's uapi headers"
#endif

/* The library's single definition of the op numbers must match the kernel's. */
#if __has_include("futex_lock_abi.h")
#include "futex_lock_abi.h"
_Static_assert(USPIN_FUTEX_LOCK == FUTEX_LOCK,
	       "libuspin/futex_lock_abi.h and the kernel disagree on FUTEX_LOCK");
_Static_assert(USPIN_FUTEX_LOCK_ADAPTIVE == FUTEX_LOCK_ADAPTIVE,
	       "libuspin/futex_lock_abi.h and the kernel disagree on FUTEX_LOCK_ADAPTIVE");
_Static_assert(USPIN_FUTEX_UNLOCK == FUTEX_UNLOCK,
	       "libuspin/futex_lock_abi.h and the kernel disagree on FUTEX_UNLOCK");
#define FUTEX_LOCK_ABI_CHECKED 1
#else
#define FUTEX_LOCK_ABI_CHECKED 0
#endif

/* A TID no task can have: above PID_MAX_LIMIT (4M), inside FUTEX_TID_MASK. */
#define NO_SUCH_TID 0x3ffffff0u

/* FUTEX_LOCK* call; returns 0 or the errno. */
static inline int futex_lock_op(uint32_t *w, int op, const struct timespec *abs)
{
	return sys_futex(w, op, 0, abs) ? errno : 0;
}

static inline uint32_t load(uint32_t *w)
{
	return __atomic_load_n(w, __ATOMIC_ACQUIRE);
}

/*
 * The user-space side of the protocol (what libuspin does): fast path
 * 0 -> TID; slow path FUTEX_LOCK*.  Returns 0 or the errno.  *slow counts
 * the calls that entered the kernel.
 */
static inline int ulock(uint32_t *w, int op, unsigned long *slow)
{
	uint32_t zero = 0;

	if (__atomic_compare_exchange_n(w, &zero, (uint32_t)gettid(), 0,
					__ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
		return 0;
	if (slow)
		(*slow)++;
	return futex_lock_op(w, op, NULL);
}

/* Unlock: TID -> 0, or with FUTEX_WAITERS set: store 0 and wake one. */
static inline void uunlock(uint32_t *w, int private_flag)
{
	uint32_t tid = (uint32_t)gettid();

	if (__atomic_compare_exchange_n(w, &tid, 0, 0, __ATOMIC_RELEASE,
					__ATOMIC_RELAXED))
		return;
	__atomic_exchange_n(w, 0, __ATOMIC_RELEASE);
	sys_futex(w, FUTEX_WAKE | private_flag, 1, NULL);
}

/* FUTEX_UNLOCK call; returns 0 or the errno. */
static inline int futex_unlock_op(uint32_t *w, int private_flag)
{
	return sys_futex6(w, FUTEX_UNLOCK | private_flag, 0, NULL, NULL, 0) ? errno : 0;
}

/* Unlock with FUTEX_UNLOCK as the slow path (the v2 library protocol). */
static inline int uunlock_k(uint32_t *w, int private_flag)
{
	uint32_t tid = (uint32_t)gettid();

	if (__atomic_compare_exchange_n(w, &tid, 0, 0, __ATOMIC_RELEASE,
					__ATOMIC_RELAXED))
		return 0;
	return futex_unlock_op(w, private_flag);
}

/* @ms may be negative (a deadline in the past): keep tv_nsec in range. */
static inline void ts_add_ms(struct timespec *ts, long ms)
{
	ts->tv_sec += ms / 1000;
	ts->tv_nsec += (ms % 1000) * 1000000L;
	if (ts->tv_nsec >= 1000000000L) {
		ts->tv_sec++;
		ts->tv_nsec -= 1000000000L;
	} else if (ts->tv_nsec < 0) {
		ts->tv_sec--;
		ts->tv_nsec += 1000000000L;
	}
}

static inline int ts_cmp(const struct timespec *a, const struct timespec *b)
{
	if (a->tv_sec != b->tv_sec)
		return a->tv_sec < b->tv_sec ? -1 : 1;
	if (a->tv_nsec != b->tv_nsec)
		return a->tv_nsec < b->tv_nsec ? -1 : 1;
	return 0;
}

static inline struct timespec deadline_ms(clockid_t clk, long ms)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	ts_add_ms(&ts, ms);
	return ts;
}

static inline void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/*
 * Context switches of a task so far, voluntary and not (from /proc), or
 * -1: an owner that left its CPU stops an adaptive spinner legitimately.
 */
static inline long task_switches(pid_t pid, pid_t tid)
{
	char path[64], line[128];
	long n, sum = 0;
	int found = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/status", pid, tid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "voluntary_ctxt_switches: %ld", &n) == 1 ||
		    sscanf(line, "nonvoluntary_ctxt_switches: %ld", &n) == 1) {
			sum += n;
			found++;
		}
	fclose(f);
	return found == 2 ? sum : -1;
}

/* Wait (sleeping, so adaptive spinners give up) until a task sleeps. */
static inline int wait_until_sleeping(pid_t pid, pid_t tid)
{
	for (int i = 0; i < 2000; i++) {
		if (task_state(pid, tid) == 'S')
			return 1;
		sleep_ms(5);
	}
	return 0;
}

/*
 * pthread_join() that gives up after @sec seconds (a lost wake-up is a
 * hang); the thread's return value goes to *@ret if @ret is not NULL.
 */
static inline int join_within(pthread_t t, int sec, void **ret)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += sec;
	return pthread_timedjoin_np(t, ret, &ts);
}

/* Voluntary context switches of the calling thread: it slept that often. */
static inline long nvcsw_self(void)
{
	struct rusage ru;

	getrusage(RUSAGE_THREAD, &ru);
	return ru.ru_nvcsw;
}

static inline void pin_to_cpu(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

#endif /* USPIN_TESTS_KERNEL_FUTEX_LOCK_TEST_H */
