// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * pingpong.c - what publishing the running state adds to a context switch,
 * and what one query costs.  A measurement, not a test.
 *
 *   pingpong [--toggle sysctl|bpf] [-r reps] [-n round trips] [-c cpu]
 *
 * Two threads pinned to one CPU bounce a byte over two pipes, so every
 * round trip is exactly two context switches between them (pinned to one
 * CPU, no idle task in between).  Rounds alternate publication on / off in
 * one process, so both sides see the same machine state; the median of
 * each side is reported.  The toggle is either the patched kernel's sysctl
 * kernel.sched_running_state (default where it exists) or attaching /
 * detaching the BPF program (stock kernels; only in builds with
 * USPIN_PINGPONG_BPF).  Needs root either way.
 */
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifdef USPIN_PINGPONG_BPF
#include <bpf/bpf.h>
#include "bpf/rs_load.h"
#endif
#include "running_state.h"

#define RS_SYSCTL "/proc/sys/kernel/sched_running_state"

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

/* One way of turning publication on and off. */
struct toggle {
	const char *name;
	const char *provider;	/* whose query cost to measure */
	int (*setup)(void);
	int (*set)(int on);
	void (*report)(int cpu);	/* extra lines after the rounds */
	void (*teardown)(void);
};

static int sysctl_orig = -1;

static int sysctl_write(int on)
{
	FILE *f = fopen(RS_SYSCTL, "w");
	int ok;

	if (!f)
		return -errno;
	ok = fprintf(f, "%d\n", on) > 0;
	ok = (fclose(f) == 0) && ok;
	return ok ? 0 : -EIO;
}

static int sysctl_setup(void)
{
	FILE *f = fopen(RS_SYSCTL, "r");

	if (!f)
		return -errno;
	if (fscanf(f, "%d", &sysctl_orig) != 1)
		sysctl_orig = -1;
	fclose(f);
	return sysctl_orig < 0 ? -EIO : 0;
}

static void sysctl_teardown(void)
{
	if (sysctl_orig >= 0)
		sysctl_write(sysctl_orig);
}

static const struct toggle toggle_sysctl = {
	.name = "sysctl", .provider = "vdso",
	.setup = sysctl_setup, .set = sysctl_write,
	.teardown = sysctl_teardown,
};

#ifdef USPIN_PINGPONG_BPF
static struct uspin_bpf_rs bpf_rs;

static int bpf_setup(void)
{
	return uspin_bpf_rs_load(&bpf_rs, 0);
}

static int bpf_set(int on)
{
	if (on)
		return uspin_bpf_rs_attach(&bpf_rs);
	uspin_bpf_rs_detach(&bpf_rs);
	return 0;
}

/*
 * One more attached round with the kernel's run-time accounting on
 * (it adds two clock reads per run, so not during the rounds above).
 */
static void bpf_report(int cpu)
{
	struct bpf_prog_info info = { 0 };
	__u32 ilen = sizeof(info);
	int stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);

	if (stats_fd >= 0 && uspin_bpf_rs_attach(&bpf_rs) == 0)
		one_round(cpu);
	if (stats_fd >= 0 &&
	    bpf_obj_get_info_by_fd(uspin_bpf_rs_prog_fd(&bpf_rs), &info, &ilen) == 0 &&
	    info.run_cnt)
		printf("  program body (kernel bpf stats): %.1f ns per run, %llu runs\n",
		       (double)info.run_time_ns / info.run_cnt,
		       (unsigned long long)info.run_cnt);
}

static void bpf_teardown(void)
{
	uspin_bpf_rs_destroy(&bpf_rs);
}

static const struct toggle toggle_bpf = {
	.name = "bpf", .provider = "bpf",
	.setup = bpf_setup, .set = bpf_set,
	.report = bpf_report, .teardown = bpf_teardown,
};
#endif

static void usage(FILE *f, const char *argv0)
{
	fprintf(f, "usage: %s [--toggle sysctl|bpf] [-r reps (<=64)] [-n round trips] [-c cpu]\n",
		argv0);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "toggle", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const struct toggle *tg = NULL;
	double on[64], off[64];
	int reps = 7, cpu = 0, i, o, err;

	while ((o = getopt_long(argc, argv, "t:r:n:c:h", longopts, NULL)) != -1) {
		switch (o) {
		case 't':
			if (strcmp(optarg, "sysctl") == 0)
				tg = &toggle_sysctl;
#ifdef USPIN_PINGPONG_BPF
			else if (strcmp(optarg, "bpf") == 0)
				tg = &toggle_bpf;
#endif
			else {
				fprintf(stderr, "pingpong: toggle '%s' not available in this build\n",
					optarg);
				return 2;
			}
			break;
		case 'r': reps = atoi(optarg); break;
		case 'n': iters = atol(optarg); break;
		case 'c': cpu = atoi(optarg); break;
		default:
			usage(o == 'h' ? stdout : stderr, argv[0]);
			return o == 'h' ? 0 : 2;
		}
	}
	if (reps < 1 || reps > 64 || iters < 1) {
		fprintf(stderr, "pingpong: bad -r or -n\n");
		return 2;
	}
	if (!tg) {
		/* the patched kernel's sysctl where it exists, else BPF */
		tg = &toggle_sysctl;
#ifdef USPIN_PINGPONG_BPF
		if (access(RS_SYSCTL, F_OK) != 0)
			tg = &toggle_bpf;
#endif
	}
	if (pipe(ab) || pipe(ba)) {
		perror("pipe");
		return 1;
	}
	err = tg->setup();
	if (err) {
		fprintf(stderr, "pingpong: toggle %s unavailable: %s\n", tg->name,
			strerror(-err));
		return 1;
	}
	pin(cpu);
	for (i = 0; i < reps; i++) {
		if (tg->set(1)) {
			fprintf(stderr, "pingpong: turning %s on failed\n", tg->name);
			tg->teardown();
			return 1;
		}
		on[i] = one_round(cpu);
		if (tg->set(0)) {
			fprintf(stderr, "pingpong: turning %s off failed\n", tg->name);
			tg->teardown();
			return 1;
		}
		off[i] = one_round(cpu);
	}
	printf("context switch, 2 threads on CPU %d, %ld round trips x %d reps, toggle %s:\n",
	       cpu, iters, reps, tg->name);
	/* median() sorts, so [0] and [reps - 1] are the extremes after it */
	printf("  publication off: %.1f ns/switch (median; ", median(off, reps));
	printf("range %.1f-%.1f)\n", off[0], off[reps - 1]);
	printf("  publication on:  %.1f ns/switch (median; ", median(on, reps));
	printf("range %.1f-%.1f)\n", on[0], on[reps - 1]);
	printf("  added by publishing: %.1f ns/switch\n",
	       median(on, reps) - median(off, reps));
	if (tg->report)
		tg->report(cpu);
	tg->teardown();

	setenv("USPIN_RS_PROVIDER", tg->provider, 1);
	if (strcmp(uspin_running_state_init(), tg->provider) == 0)
		printf("query: %.2f ns per uspin_rs_query() (%s provider)\n",
		       query_cost(), tg->provider);
	else
		printf("query: %s provider not attached, not measured\n",
		       tg->provider);
	return 0;
}
