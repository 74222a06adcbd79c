/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * guard.h - the interference guard.  Around every repetition it records
 * what else the machine did, and marks the repetition disturbed when the
 * lock under test cannot have had the machine it was promised:
 * - fewer CPUs allowed to this process than at the start of the run
 *   (sched_getaffinity: cpusets, taskset, hotplug);
 * - steal time (/proc/stat) above a threshold: the hypervisor ran
 *   something else on our CPUs;
 * - foreign load: CPU time the whole system spent busy (/proc/stat) minus
 *   what this process and its children used (getrusage SELF + CHILDREN,
 *   which covers the background hogs and child processes), above a
 *   threshold.  /proc/stat counts in USER_HZ ticks, so the threshold is
 *   never below two ticks per CPU over the repetition's length.
 * The 1-minute load average is recorded as context only (it lags, and
 * counts our own threads).
 */
#ifndef BENCH_GUARD_H
#define BENCH_GUARD_H

#include "result.h"

struct bench_guard_limits {
	int cpus_expected;	/* CPUs allowed at the start of the run */
	double foreign_cpus;	/* disturbed above this many CPUs of others */
	double steal_pct;	/* disturbed above this share of steal */
};

struct bench_guard_snap {
	double t;			/* bench_now() */
	unsigned long long busy, steal, total;	/* /proc/stat, all CPUs */
	double own_s;			/* CPU of self + waited-for children */
	int allowed;			/* CPUs in our affinity mask */
	double load1;
	int have_stat;
};

/* CPUs this process may run on now. */
int bench_cpus_allowed(void);
void bench_guard_begin(struct bench_guard_snap *s);
/* Fills the guard columns of @r and, when disturbed, its reasons. */
void bench_guard_end(const struct bench_guard_snap *begin,
		     const struct bench_guard_limits *lim,
		     struct bench_result *r);

#endif /* BENCH_GUARD_H */
