/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * clock.h - the harness's clocks.  bench_now(): CLOCK_MONOTONIC seconds,
 * for run lengths.  bench_ticks(): a cheap, fine-grained timestamp for
 * latencies, hold times and the micro benchmarks.  CLOCK_MONOTONIC is not
 * enough for those everywhere: the TCG guest
 * marks its TSC unstable and falls back to the jiffies clocksource (4 ms
 * steps), which would read every acquisition as 0 or 4,000 us.  The TSC
 * itself (QEMU derives it from the host clock) is fine-grained there, and
 * on the host it is cheaper than a vDSO clock_gettime(), so samples cost
 * less.  Elsewhere the clock falls back to CLOCK_MONOTONIC.
 */
#ifndef BENCH_CLOCK_H
#define BENCH_CLOCK_H

#include <stdint.h>
#include <time.h>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define BENCH_HAVE_TSC 1
#endif

static inline uint64_t bench_ticks(void)
{
#ifdef BENCH_HAVE_TSC
	return __rdtsc();
#else
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + ts.tv_nsec;
#endif
}

/* CLOCK_MONOTONIC in seconds: wall time of runs, deadlines. */
double bench_now(void);

/* Nanoseconds per tick, measured once against CLOCK_MONOTONIC. */
extern double bench_ns_per_tick;
/* Calibrates over @seconds; long enough to swamp a coarse clocksource. */
void bench_clock_init(double seconds);
/* Sets the calibration a parent process measured (children reuse it). */
void bench_clock_set(double ns_per_tick);
/* "tsc (2.45 GHz)" or "CLOCK_MONOTONIC", and the kernel's clocksource. */
const char *bench_clock_name(void);
const char *bench_clocksource(void);

#endif /* BENCH_CLOCK_H */
