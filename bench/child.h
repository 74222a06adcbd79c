/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * child.h - one repetition in a process of its own.  Locks that need their
 * environment from process start (glibc tunables, libuspin's USPIN_WAIT)
 * get a fresh process for every repetition: the harness re-executes
 * itself with the same command line, the lock's environment, and
 * USPIN_BENCH_CHILD naming the repetition; the child reuses the parent's
 * calibration (USPIN_BENCH_CALIBRATION), runs that one repetition and
 * writes its struct bench_result back through a pipe.
 */
#ifndef BENCH_CHILD_H
#define BENCH_CHILD_H

#include "config.h"
#include "result.h"

struct bench_lock;
struct bench_workload;

/* The command line, kept by main() for the re-execution. */
void bench_child_set_argv(char **argv);
/* Runs the repetition in a child; 0, or -1 (res->broken set). */
int bench_child_run(const struct bench_config *cfg,
		    const struct bench_workload *wl, int point_index,
		    const struct bench_point *pt, int round,
		    const struct bench_lock *l, struct bench_result *res);
/*
 * In main(), after the options: if this process is such a child, run the
 * repetition and return its exit status (0 ok, 1 broken, 2 bad request);
 * else return -1.  Also sets the calibration of @cfg from the parent's.
 */
int bench_child_main(struct bench_config *cfg);

#endif /* BENCH_CHILD_H */
