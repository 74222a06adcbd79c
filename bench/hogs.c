// SPDX-License-Identifier: LGPL-2.1-or-later
/* hogs.c - see hogs.h. */
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hogs.h"
#include "work.h"

/* In the child of a possibly multi-threaded process: syscalls only. */
static void __attribute__((noreturn)) hog_main(int cpu)
{
	unsigned long x = (unsigned long)cpu + 1;
	cpu_set_t set;

	if (cpu >= 0) {
		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		sched_setaffinity(0, sizeof(set), &set);
	}
	setpriority(PRIO_PROCESS, 0, 0);
	for (;;)
		x = bench_work(1u << 20, x);
}

void bench_hogs_start(struct bench_hogs *h, int n)
{
	int cpus[CPU_SETSIZE], ncpus = 0, i;
	cpu_set_t set;

	h->n = 0;
	h->cpu_s = 0;
	if (n <= 0)
		return;
	if (n > BENCH_MAX_HOGS)
		n = BENCH_MAX_HOGS;
	if (sched_getaffinity(0, sizeof(set), &set) == 0)
		for (i = 0; i < CPU_SETSIZE; i++)
			if (CPU_ISSET(i, &set))
				cpus[ncpus++] = i;
	fflush(NULL);
	for (i = 0; i < n; i++) {
		pid_t pid = fork();

		if (pid < 0) {
			perror("uspin-bench: hog");
			bench_hogs_stop(h);
			exit(1);
		}
		if (pid == 0)
			hog_main(ncpus ? cpus[i % ncpus] : -1);
		h->pid[h->n++] = pid;
	}
}

void bench_hogs_stop(struct bench_hogs *h)
{
	struct rusage ru;
	int i, status;

	for (i = 0; i < h->n; i++)
		kill(h->pid[i], SIGKILL);
	for (i = 0; i < h->n; i++) {
		if (wait4(h->pid[i], &status, 0, &ru) == h->pid[i])
			h->cpu_s += ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6 +
				    ru.ru_stime.tv_sec + ru.ru_stime.tv_usec * 1e-6;
	}
	h->n = 0;
}
