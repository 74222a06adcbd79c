/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * work.h - the calibrated unit of work the sweep's periods are made of.
 */
#ifndef BENCH_WORK_H
#define BENCH_WORK_H

/*
 * Instructions one round of bench_work() retires, measured with callgrind
 * on the host build (bench/calibrate.sh) and used wherever hardware
 * counters are unavailable (this host's PVM guest, the TCG guest).  The
 * loop is six instructions (mov, shr, xor, imul, sub, jne) with gcc and
 * clang alike; `make bench-calibrate` checks the constant.
 */
#define BENCH_WORK_INSN_PER_ROUND	6.0

struct bench_calibration {
	double insn_per_round;	/* instructions retired per round */
	const char *source;	/* "perf" (counted here) or "callgrind" */
	double ns_per_round;	/* wall time, measured here */
};

unsigned long bench_work(unsigned long rounds, unsigned long x);
void bench_calibrate(struct bench_calibration *cal);
/* Rounds that make up @insn instructions (at least 1 when @insn > 0). */
unsigned long bench_rounds(const struct bench_calibration *cal, double insn);

#endif /* BENCH_WORK_H */
