// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * micro.c - an uncontended lock+unlock pair of every contender, through
 * the harness's indirect call, for the repetition's length, in a process
 * with one idle thread alive:
 * glibc skips its atomics while a process is single-threaded, which no
 * contended program is, and a child process (a lock with an environment)
 * must not get that advantage over the harness's own.  The single-
 * threaded case, against glibc, is `make bench-uncontended`
 * (bench/uncontended.c).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "locks/lock.h"
#include "workload.h"

/* Pairs between two looks at the clock. */
#define MICRO_CHUNK	10000

static pthread_t idle;
static int idle_pipe[2] = { -1, -1 };

static void *idle_main(void *arg)
{
	char c;

	while (read(idle_pipe[0], &c, 1) < 0)
		;
	return NULL;
}

static int setup(const struct bench_config *cfg)
{
	if (pipe(idle_pipe) || pthread_create(&idle, NULL, idle_main, NULL)) {
		perror("uspin-bench: micro: idle thread");
		return -1;
	}
	return 0;
}

static void teardown(void)
{
	close(idle_pipe[1]);
	pthread_join(idle, NULL);
	close(idle_pipe[0]);
}

static int points(const struct bench_config *cfg, struct bench_point *pts,
		  int max)
{
	bench_axes_init(&pts[0].ax);
	pts[0].ax.threads = 1;
	snprintf(pts[0].id, sizeof(pts[0].id), "uncontended");
	return max > 0;
}

static double pairs_ns(const struct bench_lock *l, void *mem, long pairs)
{
	uint64_t t0 = bench_ticks();
	long i;

	for (i = 0; i < pairs; i++) {
		l->lock(mem);
		l->unlock(mem);
	}
	return (bench_ticks() - t0) * bench_ns_per_tick;
}

/* As many pairs as fit in cfg->seconds, in chunks. */
static int run(const struct bench_config *cfg, const struct bench_point *pt,
	       int round, const struct bench_lock *l,
	       struct bench_result *res)
{
	void *mem = aligned_alloc(BENCH_LOCK_ALIGN, BENCH_LOCK_SIZE);
	double ns = 0, limit = cfg->seconds * 1e9;
	long pairs = 0;

	if (!mem) {
		perror("uspin-bench");
		exit(1);
	}
	memset(mem, 0, BENCH_LOCK_SIZE);
	if (l->init(mem)) {
		fprintf(stderr, "uspin-bench: %s: init failed\n", l->name);
		exit(1);
	}
	pairs_ns(l, mem, 1000);	/* warm: TID caches, first faults */
	while (ns < limit) {
		ns += pairs_ns(l, mem, MICRO_CHUNK);
		pairs += MICRO_CHUNK;
	}
	l->destroy(mem);
	free(mem);
	res->ops = pairs;
	res->wall_s = ns * 1e-9;
	res->ns_per_op = ns / pairs;
	res->ops_per_s = pairs / res->wall_s;
	return 0;
}

const struct bench_workload bench_wl_micro = {
	.name = "micro",
	.summary = "uncontended lock+unlock through the harness's indirect call, one idle thread alive",
	.x_axis = "threads",
	.latency = "(none)",
	.points = points,
	.setup = setup,
	.teardown = teardown,
	.run = run,
};
