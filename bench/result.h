/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * result.h - what every workload measures and reports: a point of its grid
 * (struct bench_point) and the outcome of one repetition of one lock there
 * (struct bench_result), which becomes one row of repeats.csv.
 *
 * Every field is a double so that the CSV writer (repeats.c) can walk them
 * with one table; NAN means "does not apply to this workload or lock" and
 * is written as an empty cell.  Adding a metric: a field here, a line in
 * repeats.c's column table, a line in docs/benchmarks.md.
 */
#ifndef BENCH_RESULT_H
#define BENCH_RESULT_H

/* Coordinates of a point; -1: the axis does not apply to the workload. */
struct bench_axes {
	long threads;		/* threads taking the lock */
	long period;		/* instructions per iteration (in + out) */
	long duty;		/* percent of the period inside the lock */
	long cs_insn;		/* instructions of work inside the lock */
	long out_insn;		/* instructions of work outside it */
	long hogs;		/* background CPU hog processes */
	long sleep_permille;	/* critical sections that nanosleep() */
	long sleep_us;		/* ... for this long */
	long fault_permille;	/* critical sections that fault a new page */
	long load_pct;		/* open loop: offered load, % of measured capacity */
	long writers;		/* kv: writer threads */
	long readers;		/* kv: reader threads */
	long hold_us;		/* holdtime: critical section, microseconds */
	long tpc10;		/* holdtime: threads per CPU, in tenths */
	long preempt_ppm;	/* holdtime: CSs whose CPU a preemptor takes, per million */
	long preempt_us;	/* ... for this long */
	long long_ppm;		/* holdtime: CSs (per million) that last long_us */
	long long_us;		/* ... instead of hold_us (multi-modal holds) */
};

#define BENCH_POINT_ID_LEN	48

struct bench_point {
	char id[BENCH_POINT_ID_LEN];	/* unique within the workload */
	struct bench_axes ax;
	/*
	 * Open loop: arrivals per second, all threads together; the runner
	 * sets it from the capacity it measured (0: a closed loop).
	 */
	double arrivals_per_s;
};

struct bench_result {
	/* Throughput and cost. */
	double ops;			/* operations completed while measured */
	double wall_s;			/* measured interval */
	double ops_per_s;
	double cpu_us_per_op;		/* user + system, whole process */
	double user_us_per_op, sys_us_per_op;
	double cpus_busy;		/* process CPU time / wall time */
	double vcsw_per_kop, ivcsw_per_kop;	/* context switches / 1,000 ops */
	/* Fairness over threads. */
	double jain;			/* Jain's index: 1 fair, 1/n unfair */
	double min_max;			/* fewest / most ops of a thread */
	/* Latency: what it is measured from is the workload's (docs). */
	double lat_p50_ns, lat_p99_ns, lat_p999_ns;
	double lat_samples;
	/* The holder: critical sections that ran late by >= stretch_us. */
	double holder_preempted_per_kop;
	double holder_late_us_per_op;	/* their lateness, per operation */
	/* libuspin's own per-thread counters (uspin_thread_stats()). */
	double spin_acquired_us_per_op;	/* spinning that got the lock */
	double spin_wasted_us_per_op;	/* spinning that then blocked */
	double spin_phases_per_kop;
	double spin_owner_off_per_kop;	/* spins stopped: owner off CPU */
	double spin_refused_per_kop;	/* no spin: enough spinners */
	double blocks_per_kop;		/* waits in the kernel */
	double handoffs_per_kop;	/* lock handed over to a waiter */
	double spin_preempted_per_kop;	/* spins stopped: spinner descheduled */
	double spin_budget_per_kop;	/* spins stopped: budget or cap */
	double passed_to_spinner_per_kop; /* unlocks that left it to a spinner */
	/* The owner's side: rseq time slice extension (libuspin). */
	double slice_requests_per_kop;	/* sections that asked for it */
	double slice_granted_per_kop;	/* ... extended past a preemption */
	/* Shadow mode (USPIN_SHADOW=1, a blind spin looking on). */
	double shadow_off_per_kop;	/* phases that spun on an owner off CPU */
	double shadow_off_us_per_op;	/* ... that spin: what the rule saves */
	/* Workload-specific. */
	double reads_per_s;		/* kv: lookups */
	double offered_per_s;		/* open loop: arrivals scheduled */
	double wake_late_p99_us;	/* open loop: timer overshoot */
	double ns_per_op;		/* micro: one lock+unlock pair */
	double hog_cpus;		/* CPU the background hogs got */
	/* Controlled owner descheduling (preemptor.h). */
	double preempt_kicks_per_kop;	/* holders that kicked a preemptor */
	double preempt_served_per_kop;	/* ... that ran (busy: not again) */
	double preempt_us_per_op;	/* the preemptors' computing time */
	double preempt_rt;		/* 1: they were SCHED_FIFO */
	/* The interference guard (guard.c), over the whole repetition. */
	double load1;			/* 1-minute load average at the start */
	double steal_pct;		/* steal time, % of all CPU time */
	double busy_cpus;		/* all CPUs busy, system-wide */
	double foreign_cpus;		/* busy, not this process or children */
	double cpus_allowed;		/* CPUs this process may use (lowest) */
	double disturbed;		/* 1: the guard marked it */

	/* Not a column: set by the workload, read by the runner. */
	double broken;			/* 1: the lock broke mutual exclusion */
	char disturbed_why[64];
};

/* Every metric NAN (does not apply), nothing broken or disturbed. */
void bench_result_init(struct bench_result *r);
/* Every axis -1 (does not apply); id empty. */
void bench_axes_init(struct bench_axes *ax);

#endif /* BENCH_RESULT_H */
