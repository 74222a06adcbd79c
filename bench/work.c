// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * work.c - the unit of work, and how many instructions it is.
 *
 * A round is one step of a shift-xor-multiply mixer: a dependent chain, so
 * the CPU cannot overlap rounds and the compiler cannot fold them (the
 * caller consumes the result).  Its cost is stable across locks and
 * threads, which is all the sweep needs: periods are expressed in
 * instructions, as in the 2010 series' plots.
 */
#include <linux/perf_event.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "work.h"

/*
 * Unrolling would change the instructions per round, and clang composes
 * rounds of a plain LCG into one (a*(a*x+c)+c is linear): the shift-xor
 * makes rounds non-composable and the pragmas keep one round per trip, so
 * gcc and clang retire the same count (bench/calibrate.sh checks it).
 */
__attribute__((noinline))
unsigned long bench_work(unsigned long rounds, unsigned long x)
{
#if defined(__clang__)
#pragma clang loop unroll(disable)
#else
#pragma GCC unroll 1
#endif
	while (rounds--) {
		x ^= x >> 29;
		x *= 0xbf58476d1ce4e5b9UL;
	}
	return x;
}

/* The harness clock (TSC where there is one): see clock.h. */
static double now_ns(void)
{
	return bench_ticks() * bench_ns_per_tick;
}

/* User-space instructions retired by @rounds rounds, or -1 without PMU. */
static double count_insn(unsigned long rounds)
{
	struct perf_event_attr attr;
	uint64_t count;
	volatile unsigned long sink;
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_HARDWARE;
	attr.config = PERF_COUNT_HW_INSTRUCTIONS;
	attr.disabled = 1;
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
	if (fd < 0)
		return -1;
	ioctl(fd, PERF_EVENT_IOC_RESET, 0);
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	sink = bench_work(rounds, 1);
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	(void)sink;
	if (read(fd, &count, sizeof(count)) != sizeof(count))
		count = 0;
	close(fd);
	return count ? (double)count : -1;
}

/**
 * bench_calibrate() - instructions and nanoseconds per round, here.
 *
 * The difference of two lengths cancels the call and counter overheads.
 * The time is the fastest of a few tries: the unit's cost, not the noise.
 */
void bench_calibrate(struct bench_calibration *cal)
{
	const unsigned long n1 = 100000, n2 = 1100000;
	double a = count_insn(n1), b = count_insn(n2);
	double best = 0, t0, t;
	volatile unsigned long sink;
	int i;

	if (a > 0 && b > a) {
		cal->insn_per_round = (b - a) / (n2 - n1);
		cal->source = "perf";
	} else {
		cal->insn_per_round = BENCH_WORK_INSN_PER_ROUND;
		cal->source = "callgrind";
	}
	for (i = 0; i < 5; i++) {
		t0 = now_ns();
		sink = bench_work(n2, 1);
		t = now_ns() - t0;
		if (i == 0 || t < best)
			best = t;
	}
	(void)sink;
	cal->ns_per_round = best / n2;
}

unsigned long bench_rounds(const struct bench_calibration *cal, double insn)
{
	unsigned long r = (unsigned long)(insn / cal->insn_per_round + 0.5);

	return insn > 0 && r == 0 ? 1 : r;
}
