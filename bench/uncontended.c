// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * uncontended.c - `make bench-uncontended`: the cost of an uncontended
 * lock+unlock pair, libuspin against glibc's normal and adaptive mutexes
 * and a bare cmpxchg pair (the floor), called the way applications call
 * them (through the PLT of libuspin.so and libc.so), in two states of the
 * process:
 *   single    no thread was ever created: glibc (>= 2.35) skips its
 *             atomics while __libc_single_threaded is set;
 *   threaded  one idle thread alive, as in every contended program.
 * __libc_single_threaded never goes back to 1, so every round is a fresh
 * process (this program re-executed with --round): it measures every
 * subject single-threaded, starts the idle thread, measures them again,
 * and prints its numbers; the parent interleaves the rounds, rotates the
 * subjects' order, writes them to -o CSV and prints what glibc and the
 * kernel did.  The summary is bench/uncontended_report.py's, under the one
 * verdict rule (`make bench-uncontended` writes both).
 *
 * The pthread drop-in slot: --preload NAME=LIB runs every round once more
 * with LD_PRELOAD=LIB, where the pthread subjects become NAME's (the drop-in
 * libuspin-pthread.so interposes pthread_mutex_*); the round fails if LIB
 * did not interpose pthread_mutex_lock.
 *
 * The time-slice extension: every round runs once more with
 * USPIN_SLICE_EXT=force (libuspin's subjects only, and each preload's),
 * the "slice-force:" rows: lock owners write the request into their rseq
 * area even where the kernel has no extension, so the cost of the
 * bookkeeping shows on any host.  The plain rows are the library's
 * default: off where the kernel has no extension (the round says which).
 *
 * usage: bench-uncontended [-n PAIRS] [-r ROUNDS] [-o CSV] [--preload NAME=LIB]...
 *                          [--no-slice]
 */
#include <dlfcn.h>
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/rseq.h>
#include <sys/single_threaded.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <urcu/uatomic.h>

#include "uspin.h"

#define MAX_ROUNDS	64
#define MAX_PRELOADS	4
#define NR_PHASES	2

/*
 * Each subject on its own cache line: where two shared one, a subject's
 * cost depended on where the linker put it (the drop-in's normal mutex
 * once cost 2 ns more than its adaptive one through the same code).
 */
#define SUBJECT_ALIGNED __attribute__((aligned(64)))
static uint32_t bare_word SUBJECT_ALIGNED;
static uspin_mutex_t uspin_lock SUBJECT_ALIGNED = USPIN_MUTEX_INITIALIZER;
static pthread_mutex_t pthread_normal SUBJECT_ALIGNED = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t pthread_adaptive SUBJECT_ALIGNED =
	PTHREAD_ADAPTIVE_MUTEX_INITIALIZER_NP;

static void pair_bare(void)
{
	uatomic_cmpxchg(&bare_word, 0, 1);
	uatomic_cmpxchg(&bare_word, 1, 0);
}

static void pair_uspin(void)
{
	uspin_mutex_lock(&uspin_lock);
	uspin_mutex_unlock(&uspin_lock);
}

static void pair_pthread(void)
{
	pthread_mutex_lock(&pthread_normal);
	pthread_mutex_unlock(&pthread_normal);
}

static void pair_pthread_adaptive(void)
{
	pthread_mutex_lock(&pthread_adaptive);
	pthread_mutex_unlock(&pthread_adaptive);
}

/* The in-process subjects; `pthread` ones are the drop-in's when preloaded. */
static const struct subject {
	const char *name;
	void (*pair)(void);
	int pthread;
} subjects[] = {
	{ "cmpxchg_pair", pair_bare, 0 },
	{ "uspin", pair_uspin, 0 },
	{ "pthread_mutex", pair_pthread, 1 },
	{ "pthread_mutex_adaptive", pair_pthread_adaptive, 1 },
};
#define NR_SUBJECTS	(sizeof(subjects) / sizeof(subjects[0]))

static const char *const phases[NR_PHASES] = { "single", "threaded" };

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static double measure(const struct subject *s, long pairs)
{
	double t0;
	long i;

	for (i = 0; i < 10000; i++)	/* warm: PLT, TID cache, page */
		s->pair();
	t0 = now_ns();
	for (i = 0; i < pairs; i++)
		s->pair();
	return (now_ns() - t0) / pairs;
}

static int idle_pipe[2];

static void *idle_main(void *arg)
{
	char c;

	while (read(idle_pipe[0], &c, 1) < 0 && errno == EINTR)
		;
	return NULL;
}

/* Did LD_PRELOAD put another pthread_mutex_lock in front of libc's? */
static int interposed(void)
{
	void *libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
	void *ours = dlsym(RTLD_DEFAULT, "pthread_mutex_lock");

	return libc && ours && ours != dlsym(libc, "pthread_mutex_lock");
}

/* The calling thread's rseq slice_ctrl.request byte (offset 28). */
static int slice_request(void)
{
	if (__rseq_size == 0)
		return -1;
	return *(volatile unsigned char *)((char *)__builtin_thread_pointer() +
					   __rseq_offset + 28);
}

/*
 * Under USPIN_SLICE_EXT=force the subject's lock must set the request:
 * else the slice rows would measure nothing new.
 */
static int slice_forced(int preloaded)
{
	int held;

	if (preloaded) {
		pthread_mutex_lock(&pthread_normal);
		held = slice_request();
		pthread_mutex_unlock(&pthread_normal);
	} else {
		uspin_mutex_lock(&uspin_lock);
		held = slice_request();
		uspin_mutex_unlock(&uspin_lock);
	}
	return held == 1 && slice_request() == 0;
}

/* One round, in a fresh process: "phase subject ns" lines on stdout. */
static int round_main(int round, long pairs, int preloaded, int slice)
{
	pthread_t idle;
	size_t k, s;
	int ph;

	if (preloaded && !interposed()) {
		fprintf(stderr, "bench-uncontended: LD_PRELOAD=%s did not interpose pthread_mutex_lock\n",
			getenv("LD_PRELOAD"));
		return 1;
	}
	if (slice && !slice_forced(preloaded)) {
		fprintf(stderr, "bench-uncontended: USPIN_SLICE_EXT=force set no time-slice request\n");
		return 1;
	}
	if (!slice && !preloaded) {
		struct uspin_slice_info si;

		uspin_slice_extension(&si, sizeof(si));
		printf("slice %d\n", si.in_use);
	}
	for (ph = 0; ph < NR_PHASES; ph++) {
		if (ph == 1 && (pipe(idle_pipe) ||
				pthread_create(&idle, NULL, idle_main, NULL))) {
			perror("bench-uncontended: idle thread");
			return 1;
		}
		/* What glibc believes; "single" is meaningless without it. */
		printf("flag %s %d\n", phases[ph], (int)__libc_single_threaded);
		for (k = 0; k < NR_SUBJECTS; k++) {
			s = (k + round) % NR_SUBJECTS;
			if (preloaded && !subjects[s].pthread)
				continue;
			/* Forced, only libuspin's own subject changes. */
			if (slice && !preloaded && strcmp(subjects[s].name, "uspin"))
				continue;
			printf("%s %zu %.4f\n", phases[ph], s,
			       measure(&subjects[s], pairs));
		}
	}
	close(idle_pipe[1]);
	pthread_join(idle, NULL);
	return 0;
}

/* Rounds where __libc_single_threaded was not what the phase says. */
static int single_threaded_wrong[NR_PHASES];
/* Plain rounds whose threads used the time-slice extension. */
static int slice_in_use;

struct column {
	char name[80];
	double ns[NR_PHASES][MAX_ROUNDS];
	int n[NR_PHASES];
};

/* Runs one round in a child; fills the columns it measured. */
static int run_round(char *self, int round, long pairs, const char *preload,
		     int slice, struct column *cols, int base_col)
{
	char rbuf[16], nbuf[32], line[256], phase[32];
	int fds[2], status, ph;
	size_t s;
	double ns;
	FILE *f;
	pid_t pid;

	snprintf(rbuf, sizeof(rbuf), "%d", round);
	snprintf(nbuf, sizeof(nbuf), "%ld", pairs);
	if (pipe(fds))
		return -1;
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		char *argv[] = { self, "--round", rbuf, "-n", nbuf,
				 slice ? "--slice" : "--no-slice",
				 preload ? "--preloaded" : NULL, NULL };

		dup2(fds[1], 1);
		close(fds[0]);
		close(fds[1]);
		if (preload)
			setenv("LD_PRELOAD", preload, 1);
		if (slice)
			setenv("USPIN_SLICE_EXT", "force", 1);
		execv("/proc/self/exe", argv);
		_exit(127);
	}
	close(fds[1]);
	f = fdopen(fds[0], "r");
	while (f && fgets(line, sizeof(line), f)) {
		int flag;

		if (sscanf(line, "slice %d", &flag) == 1) {
			slice_in_use += flag;
			continue;
		}
		if (sscanf(line, "flag %31s %d", phase, &flag) == 2) {
			ph = strcmp(phase, phases[0]) == 0 ? 0 : 1;
			if (flag != (ph == 0))
				single_threaded_wrong[ph]++;
			continue;
		}
		if (sscanf(line, "%31s %zu %lf", phase, &s, &ns) != 3 ||
		    s >= NR_SUBJECTS)
			continue;
		ph = strcmp(phase, phases[0]) == 0 ? 0 : 1;
		cols[base_col + s].ns[ph][cols[base_col + s].n[ph]++] = ns;
	}
	if (f)
		fclose(f);
	waitpid(pid, &status, 0);
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

static void usage(FILE *f, const char *prog)
{
	fprintf(f, "usage: %s [-n PAIRS] [-r ROUNDS (2-%d)] [-o CSV] [--preload NAME=LIB]... [--no-slice]\n",
		prog, MAX_ROUNDS);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "round", required_argument, NULL, 'R' },
		{ "preloaded", no_argument, NULL, 'P' },
		{ "preload", required_argument, NULL, 'L' },
		{ "slice", no_argument, NULL, 'S' },
		{ "no-slice", no_argument, NULL, 'N' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	/* Plain, each preload, then the same again with the slice forced. */
	static struct column cols[NR_SUBJECTS * 2 * (1 + MAX_PRELOADS)];
	const char *preload_lib[MAX_PRELOADS], *csv = NULL;
	long pairs = 5000000;
	int rounds = 10, round = -1, preloaded = 0, npre = 0, opt, r, p, ph;
	int slice = 1, nvar;
	size_t s, ncols;
	FILE *out = NULL;

	while ((opt = getopt_long(argc, argv, "n:r:o:h", opts, NULL)) != -1) {
		switch (opt) {
		case 'n': pairs = atol(optarg); break;
		case 'r': rounds = atoi(optarg); break;
		case 'o': csv = optarg; break;
		case 'R': round = atoi(optarg); break;
		case 'P': preloaded = 1; break;
		case 'S': slice = 1; break;
		case 'N': slice = 0; break;
		case 'L': {
			char *eq = strchr(optarg, '=');

			if (!eq || npre == MAX_PRELOADS) {
				usage(stderr, argv[0]);
				return 2;
			}
			*eq = '\0';
			snprintf(cols[NR_SUBJECTS * (npre + 1)].name,
				 sizeof(cols[0].name), "%s", optarg);
			preload_lib[npre++] = eq + 1;
			break;
		}
		case 'h': usage(stdout, argv[0]); return 0;
		default: usage(stderr, argv[0]); return 2;
		}
	}
	if (pairs <= 0 || rounds < 2 || rounds > MAX_ROUNDS || optind < argc) {
		usage(stderr, argv[0]);
		return 2;
	}
	if (round >= 0)
		return round_main(round, pairs, preloaded, slice);

	/*
	 * Column names: "subject", or "NAME:subject" for a preload; variant
	 * v + npre + 1 is variant v with the slice forced ("slice-force:").
	 */
	nvar = (npre + 1) * (slice ? 2 : 1);
	for (p = npre; p >= 0; p--) {
		char pre[64];

		snprintf(pre, sizeof(pre), "%s", p ? cols[NR_SUBJECTS * p].name : "");
		for (s = 0; s < NR_SUBJECTS; s++) {
			snprintf(cols[NR_SUBJECTS * p + s].name, sizeof(cols[0].name),
				 "%s%s%s", pre, p ? ":" : "", subjects[s].name);
			if (slice)
				snprintf(cols[NR_SUBJECTS * (p + npre + 1) + s].name,
					 sizeof(cols[0].name), "slice-force:%s%s%s",
					 pre, p ? ":" : "", subjects[s].name);
		}
	}
	ncols = NR_SUBJECTS * (size_t)nvar;
	printf("bench-uncontended: %d rounds (a process each%s%s), %ld pairs per subject and phase\n",
		rounds, npre ? ", plus one per preload" : "",
		slice ? ", all again under USPIN_SLICE_EXT=force" : "", pairs);
	for (r = 0; r < rounds; r++) {
		int v;

		for (v = 0; v < nvar; v++) {
			int forced = v > npre, pv = forced ? v - npre - 1 : v;
			const char *lib = pv ? preload_lib[pv - 1] : NULL;

			if (run_round(argv[0], r, pairs, lib, forced, cols,
				      NR_SUBJECTS * v)) {
				fprintf(stderr, "bench-uncontended: round %d%s%s%s failed\n",
					r, lib ? " with " : "", lib ? lib : "",
					forced ? " (USPIN_SLICE_EXT=force)" : "");
				return 1;
			}
		}
	}
	if (csv && !(out = fopen(csv, "w"))) {
		perror(csv);
		return 1;
	}
	if (out) {
		fprintf(out, "phase,subject,round,ns_per_pair\n");
		for (ph = 0; ph < NR_PHASES; ph++)
			for (s = 0; s < ncols; s++)
				for (r = 0; r < cols[s].n[ph]; r++)
					fprintf(out, "%s,%s,%d,%.4f\n", phases[ph],
						cols[s].name, r, cols[s].ns[ph][r]);
	}
	printf("__libc_single_threaded: 1 in every single round: %s; 0 in every threaded round: %s\n",
	       single_threaded_wrong[0] ? "NO (a constructor started a thread?)" : "yes",
	       single_threaded_wrong[1] ? "NO" : "yes");
	printf("time-slice extension in the plain rows: %s; slice-force rows: %s\n",
	       slice_in_use == 0 ? "off (absent or USPIN_SLICE_EXT=0)" :
	       slice_in_use == rounds ? "in use (the kernel grants)" : "MIXED",
	       slice ? "the request written, whatever the kernel" : "not run (--no-slice)");
	if (out)
		fclose(out);
	return 0;
}
