/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * test_common.h - the small helpers every test program shares: the Check
 * suites on libuspin's API (test_util.h) and on pthread (dropin/util.h),
 * the scenarios both run (scenarios/), the torture test: clocks, sleeps,
 * USPIN_TEST_SCALE, waiting for a flag.  System headers only.
 */
#ifndef USPIN_TEST_COMMON_H
#define USPIN_TEST_COMMON_H

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define NSEC_PER_SEC 1000000000L

static inline int64_t ts_ns(const struct timespec *ts)
{
	return (int64_t)ts->tv_sec * NSEC_PER_SEC + ts->tv_nsec;
}

static inline int64_t now_on(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return ts_ns(&ts);
}

/* The time @ns from now on @clock, as an absolute deadline. */
static inline struct timespec deadline_in(clockid_t clock, int64_t ns)
{
	int64_t t = now_on(clock) + ns;
	struct timespec ts = { t / NSEC_PER_SEC, t % NSEC_PER_SEC };

	return ts;
}

/* Sleep @ns, whatever signals come. */
static inline void sleep_ns(int64_t ns)
{
	struct timespec ts = { ns / NSEC_PER_SEC, ns % NSEC_PER_SEC };

	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

/* Iterations scale with USPIN_TEST_SCALE (percent, default 100). */
static inline long test_scaled(long n)
{
	const char *s = getenv("USPIN_TEST_SCALE");
	long pct = s ? atol(s) : 100;

	n = n * (pct > 0 ? pct : 100) / 100;
	return n > 0 ? n : 1;
}

/* Wait up to 10 s for *flag != 0: 1, or 0 if it stayed 0. */
static inline int wait_flag(volatile int *flag)
{
	int i;

	for (i = 0; i < 100000; i++) {
		if (__atomic_load_n(flag, __ATOMIC_ACQUIRE))
			return 1;
		usleep(100);
	}
	return 0;
}

#endif /* USPIN_TEST_COMMON_H */
