// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * pingpong.c - what the running-state program adds to a context switch,
 * and what one query costs.  A measurement, not a test.
 *
 * Two threads pinned to one CPU bounce a byte over two pipes, so every
 * round trip is exactly two context switches between them (pinned to one
 * CPU, no idle task in between).  Rounds alternate program attached /
 * detached in one process, so both sides see the same machine state; the
 * median of each side is reported.  Needs root (it loads the program).
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "bpf/rs_load.h"
#include "running_state.h"

static int ab[2], ba[2];
static long iters = 200000;

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

static void *echo(void *arg)
{
	char c;
	long i;

	pin(*(int *)arg);
	for (i = 0; i < iters; i++)
		if (read(ab[0], &c, 1) != 1 || write(ba[1], &c, 1) != 1)
			break;
	return NULL;
}

/* ns per context switch over @iters round trips (2 switches each). */
static double one_round(int cpu)
{
	pthread_t t;
	double t0;
	char c = 'x';
	long i;

	pthread_create(&t, NULL, echo, &cpu);
	t0 = now_ns();
	for (i = 0; i < iters; i++)
		if (write(ab[1], &c, 1) != 1 || read(ba[0], &c, 1) != 1)
			break;
	t0 = now_ns() - t0;
	pthread_join(t, NULL);
	return t0 / iters / 2;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/*
 * ns per uspin_rs_query() through libuspin's view, over the first 4096
 * TIDs (every pid_max covers them; the entries stay in L1/L2).
 */
static double query_cost(void)
{
	long i, reps = 100000000, on = 0;
	double t0;

	t0 = now_ns();
	for (i = 0; i < reps; i++)
		on += uspin_rs_query((uint32_t)i & 4095) == USPIN_RS_ON;
	t0 = now_ns() - t0;
	/* keep the loop alive */
	if (on < 0)
		printf("%ld\n", on);
	return t0 / reps;
}

int main(int argc, char **argv)
{
	struct uspin_bpf_rs rs;
	double on[64], off[64];
	struct bpf_prog_info info = { 0 };
	__u32 ilen = sizeof(info);
	int reps = 7, cpu = 0, i, o, err, stats_fd;

	while ((o = getopt(argc, argv, "r:n:c:h")) != -1) {
		switch (o) {
		case 'r': reps = atoi(optarg); break;
		case 'n': iters = atol(optarg); break;
		case 'c': cpu = atoi(optarg); break;
		default:
			fprintf(stderr, "usage: %s [-r reps (<=64)] [-n round trips] [-c cpu]\n",
				argv[0]);
			return o == 'h' ? 0 : 2;
		}
	}
	if (reps < 1 || reps > 64 || iters < 1) {
		fprintf(stderr, "pingpong: bad -r or -n\n");
		return 2;
	}
	if (pipe(ab) || pipe(ba)) {
		perror("pipe");
		return 1;
	}
	err = uspin_bpf_rs_load(&rs, 0);
	if (err) {
		fprintf(stderr, "pingpong: cannot load the BPF program: %s\n",
			strerror(-err));
		return 1;
	}
	pin(cpu);
	for (i = 0; i < reps; i++) {
		if (uspin_bpf_rs_attach(&rs)) {
			fprintf(stderr, "pingpong: attach failed\n");
			return 1;
		}
		on[i] = one_round(cpu);
		uspin_bpf_rs_detach(&rs);
		off[i] = one_round(cpu);
	}
	printf("context switch, 2 threads on CPU %d, %ld round trips x %d reps:\n",
	       cpu, iters, reps);
	/* median() sorts, so [0] and [reps - 1] are the extremes after it */
	printf("  program detached: %.1f ns/switch (median; ", median(off, reps));
	printf("range %.1f-%.1f)\n", off[0], off[reps - 1]);
	printf("  program attached: %.1f ns/switch (median; ", median(on, reps));
	printf("range %.1f-%.1f)\n", on[0], on[reps - 1]);
	printf("  added by the program: %.1f ns/switch\n",
	       median(on, reps) - median(off, reps));
	/*
	 * One more attached round with the kernel's run-time accounting on
	 * (it adds two clock reads per run, so not during the rounds above).
	 */
	stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
	if (stats_fd >= 0 && uspin_bpf_rs_attach(&rs) == 0)
		one_round(cpu);
	if (stats_fd >= 0 &&
	    bpf_obj_get_info_by_fd(uspin_bpf_rs_prog_fd(&rs), &info, &ilen) == 0 &&
	    info.run_cnt)
		printf("  program body (kernel bpf stats): %.1f ns per run, %llu runs\n",
		       (double)info.run_time_ns / info.run_cnt,
		       (unsigned long long)info.run_cnt);
	uspin_bpf_rs_destroy(&rs);

	setenv("USPIN_RS_PROVIDER", "bpf", 1);
	if (strcmp(uspin_running_state_init(), "bpf") == 0)
		printf("query: %.2f ns per uspin_rs_query()\n", query_cost());
	else
		printf("query: bpf provider not attached, not measured\n");
	return 0;
}
