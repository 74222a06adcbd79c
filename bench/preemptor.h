/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * preemptor.h - controlled owner descheduling (holdtime's -p axis).  One
 * process pinned to each CPU this process may use sleeps on a futex in
 * shared memory, at SCHED_FIFO where the system allows it.  A lock holder
 * that draws a preemption kicks the preemptor of the CPU it runs on,
 * which takes that CPU from it at once (a real-time wake-up preempts a
 * normal task) and computes for the time asked before it sleeps again:
 * the owner is off its CPU for that long, at a rate the workload sets,
 * instead of whenever a hog's slice happens to end.  Where real-time is
 * not allowed the preemptors run at nice -20 if they may, else nice 0,
 * and whether a wake-up preempts the owner at once is then the
 * scheduler's choice: the rt column of repeats.csv says which it was.
 * Processes, not threads, so that their CPU is not the benchmark's.
 */
#ifndef BENCH_PREEMPTOR_H
#define BENCH_PREEMPTOR_H

#include <stdint.h>
#include <sys/types.h>

#define BENCH_MAX_PREEMPTORS	256

struct bench_preemptor_slot;

struct bench_preemptors {
	int n;
	pid_t pid[BENCH_MAX_PREEMPTORS];
	struct bench_preemptor_slot *slots;	/* shared with the children */
	int16_t slot_of_cpu[BENCH_MAX_PREEMPTORS]; /* -1: none there */
};

/*
 * Starts one preemptor per allowed CPU and waits until each is asleep;
 * before any thread exists (fork).  Exits with a message on failure.
 */
void bench_preemptors_start(struct bench_preemptors *p);

/*
 * From a lock holder: take this thread's CPU away for @us microseconds.
 * Returns 1 if the CPU's preemptor was kicked, 0 if it was still busy
 * (the previous kick has not ended) or the CPU has none.
 */
int bench_preemptor_kick(struct bench_preemptors *p, uint32_t us);

struct bench_preemptor_totals {
	unsigned long runs;	/* kicks a preemptor served */
	double busy_s;		/* time the preemptors computed */
	int rt;			/* 1: every preemptor was SCHED_FIFO */
};

/* Kills and reaps them; fills @t. */
void bench_preemptors_stop(struct bench_preemptors *p,
			   struct bench_preemptor_totals *t);

#endif /* BENCH_PREEMPTOR_H */
