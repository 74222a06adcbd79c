// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * pingpong.c - what publishing the running state adds to a context switch,
 * and what one query costs.  A measurement, not a test.
 *
 *   pingpong [--toggle sysctl|key|rseq|bpf] [--on CMD --off CMD] [-r reps]
 *            [-n round trips] [-c cpu] [--cmd CMD] [--preload LIB]
 *            [-B resamples] [--no-query] [--no-opt-in]
 *   pingpong --layout-cost [-r reps]
 *
 * Workload: by default two threads pinned to one CPU bounce a byte over two
 * pipes, so every round trip is exactly two context switches between them
 * (no idle task in between); a sample is ns per switch.  With --cmd, a
 * sample is one run of CMD under sh -c (e.g. "perf bench sched pipe"): the
 * seconds it prints as "Total time: X [sec]", or else its wall time; with
 * --preload, CMD runs with LD_PRELOAD=LIB (librs-optin.so opts the
 * process in, so that its threads and fork children are published).
 *
 * Toggle: publication on / off, alternated in one process in ABBA order,
 * so both sides see the same machine state:
 *   sysctl  the patched kernel's kernel.sched_running_state (1/0); this
 *           process opts in first (PR_SCHED_RS_ENABLE) unless --no-opt-in
 *           (before running-state v3 patch 7 the sysctl also switched the
 *           static key, so that measured the key alone for a process that
 *           is not published; since, the key follows the opted-in
 *           processes and the sysctl no longer moves it); default where
 *           the sysctl exists
 *   key     the array's static key alone, for this process, which never
 *           opts in: on while a helper process is opted in (asleep), off
 *           once it has opted out and the key's deferred decrement has
 *           run (a second later; each "off" waits 1.2 s)
 *   bpf     attach / detach the BPF program (stock kernels; only in
 *           builds with USPIN_PINGPONG_BPF)
 *   rseq    the per-thread areas of kernel/patches/rseq/: both threads
 *           register an area (prctl(PR_SCHED_THREAD_STATE)) or not; "off"
 *           still has the series' static key on: an idle thread keeps an
 *           area registered for the whole run (v3's key is counted and
 *           would turn off a second after the last area goes)
 *   --on CMD --off CMD   any pair of shell commands (e.g. another
 *           publication mechanism's switch), run before each sample
 * Needs root for the first three.
 *
 * Report: for each side the median with a bootstrap 95 % confidence
 * interval (-B resamples of the samples), and the median of the paired
 * differences on - off (rep by rep) with its bootstrap interval; then the
 * raw samples.  Last, the cost of one uspin_rs_query() on the provider that
 * belongs to the toggle.
 *
 * --three-way: nothing / the array / the per-thread areas, in one process,
 * the three rotated rep by rep (ABC, BCA, CAB, then reversed): nothing is
 * sysctl 0 and no area of the two threads (the key holder's area keeps the
 * rseq key on); array is sysctl 1 (this process opted in); rseq is sysctl 0
 * and both threads registered.  Reports each side and the paired
 * differences to nothing.  Needs root and both series.
 *
 * --layout-cost needs no kernel support and no root: on a synthetic array,
 * what the kernel array's transposed layout (entries of consecutive TIDs in
 * different cache lines) costs a query and saves the writers, against a
 * plain array.  Queries: uspin_rs_query() over 4096 consecutive TIDs.
 * Writers: one thread per CPU (CPUs 0 and 1) doing what a context switch
 * does -- store OFF for the task leaving, CPU for the task coming -- for
 * two tasks of its own; the four TIDs are consecutive, like the threads of
 * one process.  Medians over the reps, ns per query / per switch.
 */
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifdef USPIN_PINGPONG_BPF
#include <bpf/bpf.h>
#include "bpf/rs_load.h"
#endif
#include "../tests/sys_util.h"
#include "running_state.h"
#include "running_state_abi.h"
#include "stats.h"

#define RS_SYSCTL	"/proc/sys/kernel/sched_running_state"
#define MAX_REPS	BENCH_STATS_MAX

static int ab[2], ba[2];
static long iters = 200000;
static const char *cmd;		/* --cmd: the workload */
static const char *preload;	/* --preload: LD_PRELOAD for it */
static int opt_in = 1;		/* sysctl toggle: PR_SCHED_RS_ENABLE first */

static int rseq_on;		/* rseq toggle: both threads register */
/* The two threads' areas and the key holder's, a cache line each. */
static uint32_t rseq_area[3][16] __attribute__((aligned(64)));
static pthread_t key_holder;
static int key_holder_pipe[2] = { -1, -1 };

static int rseq_register(uint32_t *area)
{
	return prctl(USPIN_PR_SCHED_THREAD_STATE, USPIN_PR_SCHED_TS_REGISTER,
		     (unsigned long)area, 0UL, 0UL) ? -errno : 0;
}

static void rseq_unregister(void)
{
	prctl(USPIN_PR_SCHED_THREAD_STATE, USPIN_PR_SCHED_TS_UNREGISTER, 0UL, 0UL, 0UL);
}

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
	if (rseq_on)
		rseq_register(rseq_area[1]);	/* exit unregisters */
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

/*
 * One run of the --cmd workload: "Total time: X [sec]" from its output
 * (perf bench prints it), else its wall time, in seconds; < 0 on failure.
 */
static double one_cmd(void)
{
	char line[512];
	double t0 = now_ns(), total = -1;
	FILE *p;

	if (preload)
		setenv("LD_PRELOAD", preload, 1);
	p = popen(cmd, "r");
	if (preload)
		unsetenv("LD_PRELOAD");
	if (!p)
		return -1;
	while (fgets(line, sizeof(line), p))
		if (total < 0)
			sscanf(line, " Total time: %lf", &total);
	if (pclose(p) != 0)
		return -1;
	return total >= 0 ? total : (now_ns() - t0) / 1e9;
}

static double sample(int cpu)
{
	return cmd ? one_cmd() : one_round(cpu);
}

/* Percentile bootstrap 95 % interval of the median of @v (bench/stats.c). */
static void boot_ci(const double *v, int n, int resamples, double *lo, double *hi)
{
	struct bench_interval ci = bench_bootstrap_median_r(v, n, resamples);

	*lo = ci.lo;
	*hi = ci.hi;
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


/*
 * ns per uspin_rs_query() of the caller's own TID: an entry that is
 * published (every provider publishes the caller once attached; rseq reads
 * the map slot and the area), hot in L1.
 */
static double query_self_cost(void)
{
	uint32_t self = sys_gettid();
	long i, reps = 100000000, on = 0;
	double t0;

	t0 = now_ns();
	for (i = 0; i < reps; i++)
		on += uspin_rs_query(self) == USPIN_RS_ON;
	t0 = now_ns() - t0;
	if (on < reps / 2)
		printf("query: own TID read ON %ld of %ld times\n", on, reps);
	return t0 / reps;
}

/* ---- --layout-cost ------------------------------------------------------ */

#define LAYOUT_ENTRIES	(1u << 20)

struct writer {
	volatile uint32_t *a;
	uint32_t idx[2];	/* entries of its two tasks */
	int cpu;
	long iters;
	volatile int *go;
	double ns;
};

static void *writer_fn(void *arg)
{
	struct writer *w = arg;
	long i;
	double t0;

	pin(w->cpu);
	while (!*w->go)
		;
	t0 = now_ns();
	for (i = 0; i < w->iters; i++) {
		/* switch from task i&1 to task !(i&1) on this CPU */
		w->a[w->idx[i & 1]] = USPIN_RS_ENTRY_OFF;
		w->a[w->idx[!(i & 1)]] = USPIN_RS_ENTRY_ON;
	}
	w->ns = (now_ns() - t0) / w->iters;
	return NULL;
}

/* ns per simulated switch, both CPUs writing at once, TIDs base..base+3. */
static double bounce(volatile uint32_t *a, unsigned int line, unsigned int block,
		     uint32_t base)
{
	struct uspin_rs_view v = { .line_shift = line, .block_shift = block };
	struct writer w[2];
	volatile int go = 0;
	pthread_t t[2];
	int i;

	for (i = 0; i < 2; i++) {
		w[i] = (struct writer){ .a = a, .cpu = i, .iters = 20000000, .go = &go };
		w[i].idx[0] = uspin_rs_index(&v, base + 2 * i);
		w[i].idx[1] = uspin_rs_index(&v, base + 2 * i + 1);
		pthread_create(&t[i], NULL, writer_fn, &w[i]);
	}
	go = 1;
	for (i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	return (w[0].ns + w[1].ns) / 2;
}

static double query_layout(volatile uint32_t *a, unsigned int line, unsigned int block)
{
	uspin_rs_view.base = a;
	uspin_rs_view.alive = &uspin_rs_always_alive;
	uspin_rs_view.stride = 1;
	uspin_rs_view.line_shift = line;
	uspin_rs_view.block_shift = block;
	uspin_rs_view.nr_entries = LAYOUT_ENTRIES;
	return query_cost();
}

static int layout_cost(int reps)
{
	static double q[2][MAX_REPS], b[2][MAX_REPS];
	volatile uint32_t *a = calloc(LAYOUT_ENTRIES, sizeof(uint32_t));
	static const unsigned int lines[2] = { 0, 4 }, blocks[2] = { 0, 10 };
	static const char *const names[2] = { "plain array", "transposed (kernel v2)" };
	int r, l;

	if (!a)
		return 1;
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		fprintf(stderr, "pingpong: fewer than 2 CPUs, the writers share one\n");
	for (r = 0; r < reps; r++)
		for (l = 0; l < 2; l++) {
			int k = r % 2 ? 1 - l : l;	/* ABBA */

			q[k][r] = query_layout(a, lines[k], blocks[k]);
			b[k][r] = bounce(a, lines[k], blocks[k], 4096 + 17);
		}
	printf("layout cost, %d reps (medians):\n", reps);
	for (l = 0; l < 2; l++)
		printf("  %-24s query %.2f ns; two CPUs switching 4 consecutive TIDs: %.2f ns per switch\n",
		       names[l], bench_median(q[l], reps), bench_median(b[l], reps));
	memset(&uspin_rs_view, 0, sizeof(uspin_rs_view));
	free((void *)a);
	return 0;
}

/* One way of turning publication on and off. */
struct toggle {
	const char *name;
	const char *provider;	/* whose query cost to measure, or NULL */
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
	struct uspin_kernel_rs rs;
	FILE *f = fopen(RS_SYSCTL, "r");

	if (!f)
		return -errno;
	if (fscanf(f, "%d", &sysctl_orig) != 1)
		sysctl_orig = -1;
	fclose(f);
	if (sysctl_orig < 0)
		return -EIO;
	/* Publication costs something only for processes that opted in. */
	if (sysctl_write(1))
		return -EIO;
	if (!opt_in)
		return 0;
	memset(&rs, 0, sizeof(rs));
	if (prctl(USPIN_PR_SCHED_RUNNING_STATE, USPIN_PR_SCHED_RS_ENABLE,
		  (unsigned long)&rs, (unsigned long)sizeof(rs), 0UL))
		return -errno;
	return 0;
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

/* The key's helper: commands on key_cmd ('e' opt in, 'd' out), acks. */
static int key_cmd[2] = { -1, -1 }, key_ack[2] = { -1, -1 };
static pid_t key_helper = -1;

static void key_helper_loop(void)
{
	struct uspin_kernel_rs rs;
	char c, ok;

	close(key_cmd[1]);	/* or the EOF that ends us would never come */
	close(key_ack[0]);
	while (read(key_cmd[0], &c, 1) == 1) {
		memset(&rs, 0, sizeof(rs));
		ok = prctl(USPIN_PR_SCHED_RUNNING_STATE,
			   c == 'e' ? USPIN_PR_SCHED_RS_ENABLE : USPIN_PR_SCHED_RS_DISABLE,
			   (unsigned long)&rs, (unsigned long)sizeof(rs), 0UL) == 0;
		if (write(key_ack[1], ok ? "k" : "x", 1) != 1)
			break;
	}
	_exit(0);
}

static int key_setup(void)
{
	int err;

	opt_in = 0;
	err = sysctl_setup();
	if (err)
		return err;
	if (pipe(key_cmd) || pipe(key_ack))
		return -errno;
	key_helper = fork();
	if (key_helper < 0)
		return -errno;
	if (key_helper == 0)
		key_helper_loop();
	return 0;
}

static int key_set(int on)
{
	struct timespec deferred = { 1, 200000000L };
	char c;

	if (write(key_cmd[1], on ? "e" : "d", 1) != 1 ||
	    read(key_ack[0], &c, 1) != 1 || c != 'k')
		return -EIO;
	if (!on)
		nanosleep(&deferred, NULL);
	return 0;
}

static void key_teardown(void)
{
	if (key_helper > 0) {
		close(key_cmd[1]);	/* EOF ends the helper */
		waitpid(key_helper, NULL, 0);
		key_helper = -1;
	}
	sysctl_teardown();
}

static const struct toggle toggle_key = {
	.name = "key", .provider = NULL,
	.setup = key_setup, .set = key_set,
	.teardown = key_teardown,
};

/* Registered and blocked (never switched) until rseq_teardown(). */
static void *hold_key(void *arg)
{
	char c;

	(void)arg;
	if (rseq_register(rseq_area[2]) == 0)
		while (read(key_holder_pipe[0], &c, 1) < 0 && errno == EINTR)
			;
	return NULL;
}

/* Probe: register and unregister this thread; then hold the key on. */
static int rseq_setup(void)
{
	int err = rseq_register(rseq_area[0]);

	rseq_unregister();
	if (err)
		return err;
	if (pipe(key_holder_pipe))
		return -errno;
	err = -pthread_create(&key_holder, NULL, hold_key, NULL);
	if (err) {
		close(key_holder_pipe[0]);
		close(key_holder_pipe[1]);
		key_holder_pipe[1] = -1;
	}
	return err;
}

/* ABBA sets the same side twice in a row: unregister first. */
static int rseq_set(int on)
{
	rseq_on = on;
	rseq_unregister();
	return on ? rseq_register(rseq_area[0]) : 0;
}

static void rseq_teardown(void)
{
	rseq_on = 0;
	rseq_unregister();
	if (key_holder_pipe[1] >= 0) {
		close(key_holder_pipe[1]);	/* EOF ends hold_key() */
		pthread_join(key_holder, NULL);
		close(key_holder_pipe[0]);
		key_holder_pipe[1] = -1;
	}
}

static const struct toggle toggle_rseq = {
	.name = "rseq", .provider = "rseq",
	.setup = rseq_setup, .set = rseq_set,
	.teardown = rseq_teardown,
};

static const char *on_cmd, *off_cmd;

static int noop_setup(void)
{
	return 0;
}

static int cmd_set(int on)
{
	int st = system(on ? on_cmd : off_cmd);

	return st == 0 ? 0 : -EIO;
}

static void noop_teardown(void)
{
}

static const struct toggle toggle_cmd = {
	.name = "cmd", .provider = NULL,
	.setup = noop_setup, .set = cmd_set,
	.teardown = noop_teardown,
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
	fprintf(f, "usage: %s [--toggle sysctl|key|rseq|bpf] [--on CMD --off CMD] [-r reps (<=%d)]\n"
		"       [-n round trips] [-c cpu] [--cmd CMD] [--preload LIB] [-B resamples]\n"
		"       [--no-query] [--no-opt-in]\n"
		"       %s --three-way [-r reps] [-n round trips] [-c cpu] [-B resamples]\n"
		"       %s --layout-cost [-r reps]\n", argv0, MAX_REPS, argv0, argv0);
}

/* ---- --three-way -------------------------------------------------------- */

/* Condition 0 nothing, 1 the array, 2 the per-thread areas. */
static int three_way_set(int c)
{
	if (sysctl_write(c == 1))
		return -EIO;
	return rseq_set(c == 2);
}

static int three_way(int reps, int cpu, int resamples)
{
	static const char *const names[3] = { "nothing", "array", "rseq" };
	static double v[3][MAX_REPS], d[3][MAX_REPS];
	double base, lo, hi;
	int r, k, c, err;

	err = sysctl_setup();		/* opts this process in */
	if (!err)
		err = rseq_setup();
	if (err) {
		fprintf(stderr, "pingpong: --three-way needs root and both series: %s\n",
			strerror(-err));
		sysctl_teardown();
		return 1;
	}
	pin(cpu);
	for (r = 0; r < reps; r++) {
		for (k = 0; k < 3; k++) {
			/* ABC BCA CAB, then the same reversed */
			c = (r + k) % 3;
			if ((r / 3) % 2)
				c = 2 - c;
			if (three_way_set(c)) {
				fprintf(stderr, "pingpong: setting %s failed\n", names[c]);
				rseq_teardown();
				sysctl_teardown();
				return 1;
			}
			v[c][r] = one_round(cpu);
		}
		for (c = 1; c < 3; c++)
			d[c][r] = v[c][r] - v[0][r];
	}
	rseq_teardown();
	sysctl_teardown();
	printf("context switch, 2 threads on CPU %d, %ld round trips x %d reps, nothing / array / rseq (rotated):\n",
	       cpu, iters, reps);
	for (c = 0; c < 3; c++) {
		boot_ci(v[c], reps, resamples, &lo, &hi);
		printf("  %-8s %10.4g ns/switch (median; 95%% CI %.4g-%.4g)\n",
		       names[c], bench_median(v[c], reps), lo, hi);
	}
	base = bench_median(v[0], reps);
	for (c = 1; c < 3; c++) {
		boot_ci(d[c], reps, resamples, &lo, &hi);
		printf("  %s - nothing, paired: %+.4g ns (median; 95%% CI %+.4g to %+.4g), %+.2f %% (CI %+.2f to %+.2f %%)\n",
		       names[c], bench_median(d[c], reps), lo, hi,
		       100 * bench_median(d[c], reps) / base, 100 * lo / base,
		       100 * hi / base);
	}
	for (c = 0; c < 3; c++) {
		printf("  raw %-8s", names[c]);
		for (r = 0; r < reps; r++)
			printf(" %.6g", v[c][r]);
		printf("\n");
	}
	return 0;
}

static void print_side(const char *name, const double *v, int n, int resamples,
		       const char *unit, double scale)
{
	double lo, hi;

	boot_ci(v, n, resamples, &lo, &hi);
	printf("  publication %-4s %10.4g %s (median; 95%% CI %.4g-%.4g)\n", name,
	       bench_median(v, n) * scale, unit, lo * scale, hi * scale);
}

int main(int argc, char **argv)
{
	enum { OPT_CMD = 256, OPT_PRELOAD, OPT_ON, OPT_OFF, OPT_NOQUERY,
	       OPT_NOOPTIN, OPT_LAYOUT, OPT_THREE };
	static const struct option longopts[] = {
		{ "toggle", required_argument, NULL, 't' },
		{ "cmd", required_argument, NULL, OPT_CMD },
		{ "preload", required_argument, NULL, OPT_PRELOAD },
		{ "on", required_argument, NULL, OPT_ON },
		{ "off", required_argument, NULL, OPT_OFF },
		{ "no-query", no_argument, NULL, OPT_NOQUERY },
		{ "no-opt-in", no_argument, NULL, OPT_NOOPTIN },
		{ "layout-cost", no_argument, NULL, OPT_LAYOUT },
		{ "three-way", no_argument, NULL, OPT_THREE },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const struct toggle *tg = NULL;
	static double on[MAX_REPS], off[MAX_REPS], diff[MAX_REPS];
	int reps = 7, cpu = 0, resamples = 2000, query = 1, layout = 0, i, o, err;
	int three = 0;
	const char *unit = "ns/switch";
	double scale = 1, lo, hi, base;

	while ((o = getopt_long(argc, argv, "t:r:n:c:B:h", longopts, NULL)) != -1) {
		switch (o) {
		case 't':
			if (strcmp(optarg, "sysctl") == 0)
				tg = &toggle_sysctl;
			else if (strcmp(optarg, "rseq") == 0)
				tg = &toggle_rseq;
			else if (strcmp(optarg, "key") == 0)
				tg = &toggle_key;
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
		case 'B': resamples = atoi(optarg); break;
		case OPT_CMD: cmd = optarg; break;
		case OPT_PRELOAD: preload = optarg; break;
		case OPT_ON: on_cmd = optarg; break;
		case OPT_OFF: off_cmd = optarg; break;
		case OPT_NOQUERY: query = 0; break;
		case OPT_NOOPTIN: opt_in = 0; break;
		case OPT_LAYOUT: layout = 1; break;
		case OPT_THREE: three = 1; break;
		default:
			usage(o == 'h' ? stdout : stderr, argv[0]);
			return o == 'h' ? 0 : 2;
		}
	}
	if (reps < 2 || reps > MAX_REPS || iters < 1 || resamples < 100 ||
	    !on_cmd != !off_cmd || (on_cmd && tg)) {
		fprintf(stderr, "pingpong: bad -r, -n or -B, or --on without --off, or both --on and --toggle\n");
		usage(stderr, argv[0]);
		return 2;
	}
	if (layout)
		return layout_cost(reps);
	if (pipe(ab) || pipe(ba)) {
		perror("pipe");
		return 1;
	}
	if (three)
		return three_way(reps, cpu, resamples);
	if (on_cmd)
		tg = &toggle_cmd;
	if (!tg) {
		/* the patched kernel's sysctl where it exists, else BPF */
		tg = &toggle_sysctl;
#ifdef USPIN_PINGPONG_BPF
		if (access(RS_SYSCTL, F_OK) != 0)
			tg = &toggle_bpf;
#endif
	}
	err = tg->setup();
	if (err) {
		fprintf(stderr, "pingpong: toggle %s unavailable: %s\n", tg->name,
			strerror(-err));
		tg->teardown();
		return 1;
	}
	if (!cmd)
		pin(cpu);
	for (i = 0; i < reps; i++) {
		/* ABBA: on first in even reps, off first in odd ones */
		int k, first = i % 2 == 0;

		for (k = 0; k < 2; k++) {
			int side = k == 0 ? first : !first;
			double s;

			err = tg->set(side);
			if (err) {
				fprintf(stderr, "pingpong: turning %s %s failed: %s\n",
					tg->name, side ? "on" : "off", strerror(-err));
				tg->teardown();
				return 1;
			}
			s = sample(cpu);
			if (s < 0) {
				fprintf(stderr, "pingpong: '%s' failed\n", cmd);
				tg->teardown();
				return 1;
			}
			(side ? on : off)[i] = s;
		}
		diff[i] = on[i] - off[i];
	}
	if (cmd) {
		unit = "s";
		printf("workload '%s'%s%s, %d reps, toggle %s (ABBA):\n", cmd,
		       preload ? " with LD_PRELOAD=" : "", preload ? preload : "",
		       reps, tg->name);
	} else {
		printf("context switch, 2 threads on CPU %d, %ld round trips x %d reps, toggle %s%s (ABBA):\n",
		       cpu, iters, reps, tg->name,
		       tg == &toggle_sysctl && !opt_in ? ", not opted in" : "");
	}
	print_side("off:", off, reps, resamples, unit, scale);
	print_side("on:", on, reps, resamples, unit, scale);
	boot_ci(diff, reps, resamples, &lo, &hi);
	base = bench_median(off, reps);
	printf("  on - off, paired:   %+.4g %s (median; 95%% CI %+.4g to %+.4g), %+.2f %% (CI %+.2f to %+.2f %%)\n",
	       bench_median(diff, reps), unit, lo, hi, 100 * bench_median(diff, reps) / base,
	       100 * lo / base, 100 * hi / base);
	printf("  raw off:");
	for (i = 0; i < reps; i++)
		printf(" %.6g", off[i]);
	printf("\n  raw on: ");
	for (i = 0; i < reps; i++)
		printf(" %.6g", on[i]);
	printf("\n");
	if (tg->report)
		tg->report(cpu);

	if (tg == &toggle_sysctl)
		tg->set(1);	/* the vdso provider attaches only while on */
	else
		tg->teardown();
	if (query && tg->provider) {
		setenv("USPIN_RS_PROVIDER", tg->provider, 1);
		if (strcmp(uspin_running_state_init(), tg->provider) == 0) {
			double all = query_cost();

			printf("query: %.2f ns per uspin_rs_query() over TIDs 0-4095, %.2f ns on its own TID (%s provider)\n",
			       all, query_self_cost(), tg->provider);
		} else {
			printf("query: %s provider not attached, not measured\n",
			       tg->provider);
		}
	}
	if (tg == &toggle_sysctl)
		tg->teardown();
	return 0;
}
