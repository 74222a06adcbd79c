// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * test_measure.c - test-bpf measure: the numbers in docs/bpf-provider.md,
 * against the helper run-check-bpf.sh started (make bench-bpf-stated).
 * A measurement, not a test: it prints, it does not judge.
 *
 *   attach        the provider's attach() (connect, request, reply, two
 *                 mmaps), idle helper and with 200 silent connections
 *   query         uspin_rs_query() over 4096 TIDs, ns per query
 *   program body  the kernel's BPF run-time accounting of the helper's
 *                 programs while two threads ping-pong for ~1 s
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include <bpf/bpf.h>

#include "test_bpf.h"

#define ATTACHES	31
#define SILENT		200

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

static int attach_times(const char *what)
{
	int64_t t[ATTACHES], t0;
	struct uspin_rs_view v;
	int i, err;

	for (i = 0; i < ATTACHES; i++) {
		t0 = now_on(CLOCK_MONOTONIC);
		err = view_attach(&v);
		t[i] = now_on(CLOCK_MONOTONIC) - t0;
		if (err) {
			fprintf(stderr, "measure: attach: %s\n", strerror(err));
			return -1;
		}
		munmap((void *)v.base, (size_t)v.nr_entries * 4);
		munmap((void *)v.alive, USPIN_STATED_STATUS_BYTES);
	}
	qsort(t, ATTACHES, sizeof(t[0]), cmp_i64);
	printf("attach (%s): median %.1f us, min %.1f, max %.1f (%d attaches)\n",
	       what, t[ATTACHES / 2] / 1e3, t[0] / 1e3, t[ATTACHES - 1] / 1e3,
	       ATTACHES);
	return 0;
}

/* The same loop as bpf-pingpong's query_cost(), for comparison. */
static void query_cost(void)
{
	long i, reps = 100000000, on = 0;
	int64_t t;

	if (strcmp(uspin_running_state_init(), "bpf") != 0) {
		printf("query: bpf provider not attached, not measured\n");
		return;
	}
	t = now_on(CLOCK_MONOTONIC);
	for (i = 0; i < reps; i++)
		on += uspin_rs_query((uint32_t)i & 4095) == USPIN_RS_ON;
	t = now_on(CLOCK_MONOTONIC) - t;
	printf("query: %.2f ns per uspin_rs_query() (TIDs 0-4095, %ld queries, %ld ON; liveness word read each time)\n",
	       (double)t / reps, reps, on);
}

static int pp_ab[2], pp_ba[2];

static void *pong(void *arg)
{
	char b;

	while (read(pp_ab[0], &b, 1) == 1 && b)
		if (write(pp_ba[1], &b, 1) != 1)
			break;
	return NULL;
}

/* Round trips between two threads on one CPU: two switches each. */
static long ping_pong(int64_t ns)
{
	int64_t end = now_on(CLOCK_MONOTONIC) + ns;
	cpu_set_t one;
	pthread_t t;
	char b = 1;
	long n = 0;

	CPU_ZERO(&one);
	CPU_SET(0, &one);
	if (pipe(pp_ab) || pipe(pp_ba))
		return 0;
	pthread_create(&t, NULL, pong, NULL);
	pthread_setaffinity_np(t, sizeof(one), &one);
	pthread_setaffinity_np(pthread_self(), sizeof(one), &one);
	while (now_on(CLOCK_MONOTONIC) < end) {
		if (write(pp_ab[1], &b, 1) != 1 || read(pp_ba[0], &b, 1) != 1)
			break;
		n++;
	}
	b = 0;
	if (write(pp_ab[1], &b, 1) != 1)
		pthread_cancel(t);
	pthread_join(t, NULL);
	return n;
}

struct prog {
	int fd;
	char name[BPF_OBJ_NAME_LEN];
	uint64_t ns, cnt;
};

/* The helper's tracing programs: named uspin_sched_*, using @map_id. */
static int find_progs(uint32_t map_id, struct prog *p, int max)
{
	struct bpf_prog_info info;
	uint32_t id = 0;
	int n = 0, fd;

	while (n < max && (fd = next_prog_using_map(map_id, &id, &info)) >= 0) {
		if (strncmp(info.name, "uspin_sched_", 12) == 0) {
			p[n].fd = fd;
			snprintf(p[n].name, sizeof(p[n].name), "%s", info.name);
			p[n].ns = info.run_time_ns;
			p[n].cnt = info.run_cnt;
			n++;
			continue;
		}
		close(fd);
	}
	return n;
}

static void program_body(void)
{
	struct uspin_rs_view v;
	struct prog p[16];
	int stats, n, i;
	long trips;

	if (view_attach(&v) != 0) {
		printf("program body: cannot attach, not measured\n");
		return;
	}
	stats = bpf_enable_stats(BPF_STATS_RUN_TIME);
	if (stats < 0) {
		printf("program body: BPF_ENABLE_STATS: %s, not measured\n",
		       strerror(errno));
		return;
	}
	n = find_progs(((const struct uspin_stated_status *)v.alive)->map_id, p, 16);
	trips = ping_pong(1000000000LL);
	for (i = 0; i < n; i++) {
		struct bpf_prog_info info;
		__u32 len = sizeof(info);

		memset(&info, 0, sizeof(info));
		if (bpf_obj_get_info_by_fd(p[i].fd, &info, &len) != 0 ||
		    info.run_cnt == p[i].cnt)
			continue;
		printf("program body: %s %.1f ns per run (%llu runs in 1 s, %ld ping-pong round trips; kernel BPF stats)\n",
		       p[i].name,
		       (double)(info.run_time_ns - p[i].ns) / (double)(info.run_cnt - p[i].cnt),
		       (unsigned long long)(info.run_cnt - p[i].cnt), trips);
	}
	if (n == 0)
		printf("program body: the helper's programs not found\n");
	close(stats);
}

int measure_main(void)
{
	int s[SILENT], i;

	if (attach_times("idle helper"))
		return 1;
	for (i = 0; i < SILENT; i++) {
		s[i] = silent_connect(NULL);
		if (s[i] < 0) {
			fprintf(stderr, "measure: connect: %s\n", strerror(-s[i]));
			return 1;
		}
	}
	/* within the helper's 1 s timeout: all 200 still waiting */
	if (attach_times("200 silent connections open"))
		return 1;
	for (i = 0; i < SILENT; i++)
		close(s[i]);
	query_cost();
	program_body();
	return 0;
}
