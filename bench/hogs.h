/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * hogs.h - background CPU hogs: processes that compute and never block,
 * one pinned to each CPU this process may use (round robin when there are
 * more), at nice 0.  They compete with the benchmark's threads under the
 * normal scheduler, so lock holders get preempted at the end of their
 * slices: the case a running-state array exists for.  Processes, not
 * threads, so that their CPU time is not the benchmark's (it is reported
 * as hog_cpus, and the guard counts it as ours, not as foreign load).
 */
#ifndef BENCH_HOGS_H
#define BENCH_HOGS_H

#include <sys/types.h>

#define BENCH_MAX_HOGS	256

struct bench_hogs {
	int n;
	pid_t pid[BENCH_MAX_HOGS];
	double cpu_s;		/* after stop: CPU the hogs used */
};

/* Starts @n hogs (0: none); exits with a message if fork fails. */
void bench_hogs_start(struct bench_hogs *h, int n);
/* Kills and reaps them; fills h->cpu_s. */
void bench_hogs_stop(struct bench_hogs *h);

#endif /* BENCH_HOGS_H */
