// SPDX-License-Identifier: MIT
/*
 * uspin-fuzz — the driver (see fuzz.h for the interface of the cases).
 *
 *   uspin-fuzz [-s SECONDS] [-t THREADS] [-S SEED] [-v] [-l]
 *
 *   -s  run time (default $USPIN_FUZZ_SECONDS, else 10)
 *   -t  worker threads (default 16)
 *   -S  seed (default: from the clock; printed, so a run can be repeated
 *       as far as scheduling allows)
 *   -v  print every system call's errno counts, not only the totals
 *   -l  list the registered actions and exit
 *
 * Exit status: 0 if no finding (an errno outside an action's list, a broken
 * invariant, a child that crashed) and no hang; 1 otherwise; 2 for usage.
 * The kernel log is checked by kernel/vm-run, not here.
 */
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../../sys_util.h"
#include "fuzz.h"

#define MAX_ACTIONS	64
#define MAX_HOOKS	16
#define MAX_THREADS	256
#define MAX_WHATS	48
#define MAX_ERRNO	134
#define MAX_CHILDREN	4
#define HANG_GRACE_S	60

static const struct fuzz_action *actions[MAX_ACTIONS];
static unsigned int nactions, total_weight;
static void (*setups[MAX_HOOKS])(void), (*teardowns[MAX_HOOKS])(void);
static unsigned int nsetups, nteardowns;

unsigned int fuzz_nthreads = 16;
static pid_t worker_tids[MAX_THREADS];
static const char *worker_action[MAX_THREADS];	/* for the hang report */
static int stopping, verbose, in_child;
static unsigned long findings;

/* Per-thread counts, merged at the end. */
struct what_stats {
	const char *what;
	unsigned long calls;
	unsigned long err[MAX_ERRNO + 1];	/* [0]: successes */
};
struct worker_stats {
	struct what_stats w[MAX_WHATS];
	unsigned long per_action[MAX_ACTIONS];
};
static struct worker_stats *stats;
static __thread struct worker_stats *my_stats;

static pid_t children[MAX_CHILDREN];
static pthread_mutex_t children_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned long forks;

static __thread sigjmp_buf *poke_jb;

void fuzz_register_action(const struct fuzz_action *a)
{
	if (nactions == MAX_ACTIONS) {
		fprintf(stderr, "uspin-fuzz: more than %d actions\n", MAX_ACTIONS);
		exit(2);
	}
	actions[nactions++] = a;
	total_weight += a->weight;
}

void fuzz_register_setup(void (*fn)(void))
{
	if (nsetups < MAX_HOOKS)
		setups[nsetups++] = fn;
}

void fuzz_register_teardown(void (*fn)(void))
{
	if (nteardowns < MAX_HOOKS)
		teardowns[nteardowns++] = fn;
}

uint64_t fuzz_rand(struct fuzz_thread *t)
{
	uint64_t x = t->rng;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	t->rng = x;
	return x * 0x2545f4914f6cdd1dull;
}

int fuzz_stopping(void)
{
	return __atomic_load_n(&stopping, __ATOMIC_RELAXED);
}

pid_t fuzz_worker_tid(unsigned int i)
{
	return i < fuzz_nthreads ? __atomic_load_n(&worker_tids[i], __ATOMIC_RELAXED) : 0;
}

static void finding(void)
{
	__atomic_fetch_add(&findings, 1, __ATOMIC_RELAXED);
}

/* No stdio and no locks: also called in fork()ed children. */
void fuzz_fail(struct fuzz_thread *t, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int n;

	/* Print the first few; count them all. */
	if (__atomic_load_n(&findings, __ATOMIC_RELAXED) >= 20) {
		finding();
		return;
	}
	n = snprintf(buf, sizeof(buf), "uspin-fuzz: FINDING (%s, worker %d): ",
		     in_child ? "child" : "parent",
		     t && t->id != FUZZ_NO_WORKER ? (int)t->id : -1);
	va_start(ap, fmt);
	n += vsnprintf(buf + n, sizeof(buf) - n - 1, fmt, ap);
	va_end(ap);
	if (n > (int)sizeof(buf) - 2)
		n = sizeof(buf) - 2;
	buf[n++] = '\n';
	if (write(2, buf, n) < 0)
		n = 0;
	finding();
}

int fuzz_result(struct fuzz_thread *t, const char *what, long ret, int err,
		const int *allowed)
{
	struct what_stats *ws = NULL;

	t->calls++;
	if (my_stats) {
		for (int i = 0; i < MAX_WHATS; i++) {
			if (my_stats->w[i].what == what || !my_stats->w[i].what) {
				ws = &my_stats->w[i];
				ws->what = what;
				break;
			}
		}
		if (ws) {
			ws->calls++;
			ws->err[err > 0 && err < MAX_ERRNO ? err : err ? MAX_ERRNO : 0]++;
		}
	}
	if (err) {
		for (const int *a = allowed; a && *a; a++)
			if (*a == err)
				return err;
		fuzz_fail(t, "%s returned %ld, errno %d (%s), not an expected error",
			  what, ret, err, strerror(err));
	}
	return err;
}

/* Stores into memory that another thread may unmap at any time. */
static void poke_fault(int sig)
{
	if (poke_jb)
		siglongjmp(*poke_jb, 1);
	signal(sig, SIG_DFL);
	raise(sig);
}

int fuzz_poke(volatile uint32_t *addr, uint32_t val)
{
	sigjmp_buf jb;

	if (sigsetjmp(jb, 1)) {
		poke_jb = NULL;
		return -1;
	}
	poke_jb = &jb;
	__atomic_store_n(addr, val, __ATOMIC_RELAXED);
	poke_jb = NULL;
	return 0;
}

static void reap_children(int block)
{
	pthread_mutex_lock(&children_lock);
	for (int i = 0; i < MAX_CHILDREN; i++) {
		int status;
		pid_t p;

		if (!children[i])
			continue;
		p = waitpid(children[i], &status, block ? 0 : WNOHANG);
		if (p != children[i])
			continue;
		children[i] = 0;
		if (WIFSIGNALED(status) && WTERMSIG(status) != SIGKILL)
			fuzz_fail(NULL, "child %d died of signal %d", p, WTERMSIG(status));
		else if (WIFEXITED(status) && WEXITSTATUS(status))
			fuzz_fail(NULL, "child %d exited with %d", p, WEXITSTATUS(status));
	}
	pthread_mutex_unlock(&children_lock);
}

pid_t fuzz_fork(struct fuzz_thread *t, int (*fn)(struct fuzz_thread *, void *),
		void *arg)
{
	int slot = -1;
	pid_t p;

	reap_children(0);
	pthread_mutex_lock(&children_lock);
	for (int i = 0; i < MAX_CHILDREN; i++) {
		if (!children[i]) {
			slot = i;
			break;
		}
	}
	if (slot < 0 || fuzz_stopping()) {
		pthread_mutex_unlock(&children_lock);
		return 0;
	}
	p = fork();
	if (p == 0) {
		struct fuzz_thread copy = *t;
		int rc;

		in_child = 1;
		my_stats = NULL;
		findings = 0;
		rc = fn(&copy, arg);
		_exit(rc || findings ? 1 : 0);
	}
	if (p > 0) {
		children[slot] = p;
		forks++;
	}
	pthread_mutex_unlock(&children_lock);
	fuzz_result(t, "fork", p, p < 0 ? errno : 0, FUZZ_ERRNOS(EAGAIN, ENOMEM));
	return p;
}

static void *worker(void *arg)
{
	struct fuzz_thread *t = arg;

	t->tid = sys_gettid();
	__atomic_store_n(&worker_tids[t->id], t->tid, __ATOMIC_RELAXED);
	my_stats = &stats[t->id];
	while (!fuzz_stopping()) {
		uint32_t r = fuzz_below(t, total_weight);
		unsigned int i;

		for (i = 0; i < nactions; i++) {
			if (r < actions[i]->weight)
				break;
			r -= actions[i]->weight;
		}
		my_stats->per_action[i]++;
		__atomic_store_n(&worker_action[t->id], actions[i]->name, __ATOMIC_RELAXED);
		actions[i]->run(t);
	}
	return NULL;
}

/* What a hung task does: /proc's state, wchan and syscall lines. */
static void show_task(pid_t tid)
{
	static const char *const files[] = { "stat", "wchan", "syscall" };
	char path[64], buf[512];

	for (unsigned int i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		FILE *f;
		size_t n;

		snprintf(path, sizeof(path), "/proc/self/task/%d/%s", tid, files[i]);
		f = fopen(path, "r");
		if (!f)
			continue;
		n = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
		buf[n] = 0;
		fprintf(stderr, "  %s: %s%s", files[i], buf, n && buf[n - 1] == '\n' ? "" : "\n");
	}
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void report(double secs, unsigned long seed)
{
	const char *names[MAX_WHATS * 4];
	unsigned long total = 0;
	unsigned int nnames = 0;

	/* The distinct whats, sorted by name. */
	for (unsigned int th = 0; th < fuzz_nthreads; th++) {
		for (int i = 0; i < MAX_WHATS && stats[th].w[i].what; i++) {
			const char *w = stats[th].w[i].what;
			unsigned int k;

			for (k = 0; k < nnames && strcmp(names[k], w); k++)
				;
			if (k == nnames && nnames < MAX_WHATS * 4)
				names[nnames++] = w;
		}
	}
	qsort(names, nnames, sizeof(names[0]), cmp_str);
	printf("uspin-fuzz: per call: calls, then count per errno (ok = success)\n");
	for (unsigned int k = 0; k < nnames; k++) {
		unsigned long calls = 0, err[MAX_ERRNO + 1] = { 0 };

		for (unsigned int th = 0; th < fuzz_nthreads; th++) {
			for (int i = 0; i < MAX_WHATS && stats[th].w[i].what; i++) {
				if (strcmp(stats[th].w[i].what, names[k]))
					continue;
				calls += stats[th].w[i].calls;
				for (int e = 0; e <= MAX_ERRNO; e++)
					err[e] += stats[th].w[i].err[e];
			}
		}
		total += calls;
		printf("  %-28s %9lu", names[k], calls);
		for (int e = 0; e <= MAX_ERRNO; e++) {
			if (!err[e] || (!verbose && e && err[e] * 1000 < calls))
				continue;
			if (e == 0)
				printf(" ok:%lu", err[e]);
			else if (e == MAX_ERRNO)
				printf(" other:%lu", err[e]);
			else
				printf(" %s:%lu", strerrorname_np(e) ? strerrorname_np(e) : "?", err[e]);
		}
		printf("\n");
	}
	printf("uspin-fuzz: actions:");
	for (unsigned int i = 0; i < nactions; i++) {
		unsigned long n = 0;

		for (unsigned int th = 0; th < fuzz_nthreads; th++)
			n += stats[th].per_action[i];
		printf(" %s:%lu", actions[i]->name, n);
	}
	printf("\nuspin-fuzz: %lu calls in %.1f s (%.0f/s), %u threads, %lu forks, seed %lu, %lu findings\n",
	       total, secs, total / secs, fuzz_nthreads, forks, seed, findings);
}

int main(int argc, char **argv)
{
	struct fuzz_thread *threads;
	pthread_t *tids;
	unsigned long seed = 0;
	struct timespec t0, t1, end;
	struct sigaction sa = { .sa_handler = poke_fault, .sa_flags = SA_NODEFER };
	double secs = 10, el;
	int c, hung = 0;

	if (getenv("USPIN_FUZZ_SECONDS"))
		secs = atof(getenv("USPIN_FUZZ_SECONDS"));
	while ((c = getopt(argc, argv, "s:t:S:vl")) != -1) {
		switch (c) {
		case 's': secs = atof(optarg); break;
		case 't': fuzz_nthreads = atoi(optarg); break;
		case 'S': seed = strtoul(optarg, NULL, 0); break;
		case 'v': verbose = 1; break;
		case 'l':
			for (unsigned int i = 0; i < nactions; i++)
				printf("%-28s weight %u\n", actions[i]->name, actions[i]->weight);
			return 0;
		default:
			fprintf(stderr, "usage: %s [-s SECONDS] [-t THREADS] [-S SEED] [-v] [-l]\n",
				argv[0]);
			return 2;
		}
	}
	if (secs <= 0 || fuzz_nthreads < 1 || fuzz_nthreads > MAX_THREADS || !total_weight) {
		fprintf(stderr, "uspin-fuzz: need SECONDS > 0, 1..%d threads, an action\n",
			MAX_THREADS);
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (!seed)
		seed = (unsigned long)t0.tv_nsec ^ ((unsigned long)t0.tv_sec << 20) ^ getpid();
	printf("uspin-fuzz: %u threads, %.0f s, seed %lu, %u actions\n",
	       fuzz_nthreads, secs, seed, nactions);
	fflush(stdout);

	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGBUS, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	stats = calloc(fuzz_nthreads, sizeof(*stats));
	threads = calloc(fuzz_nthreads, sizeof(*threads));
	tids = calloc(fuzz_nthreads, sizeof(*tids));
	if (!stats || !threads || !tids)
		return 1;
	for (unsigned int i = 0; i < nsetups; i++)
		setups[i]();
	for (unsigned int i = 0; i < fuzz_nthreads; i++) {
		threads[i].id = i;
		threads[i].rng = (seed + 1) * 0x9e3779b97f4a7c15ull + i * 0x632be59bd9b4e019ull;
		if (!threads[i].rng)
			threads[i].rng = 1;
		if (pthread_create(&tids[i], NULL, worker, &threads[i])) {
			perror("uspin-fuzz: pthread_create");
			return 1;
		}
	}
	end = t0;
	end.tv_sec += (time_t)secs;
	end.tv_nsec += (long)((secs - (time_t)secs) * 1e9);
	if (end.tv_nsec >= 1000000000L) {
		end.tv_sec++;
		end.tv_nsec -= 1000000000L;
	}
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &end, NULL) == EINTR)
		;
	__atomic_store_n(&stopping, 1, __ATOMIC_RELAXED);
	for (unsigned int i = 0; i < fuzz_nthreads; i++) {
		struct timespec dl;

		clock_gettime(CLOCK_REALTIME, &dl);
		dl.tv_sec += HANG_GRACE_S;
		if (pthread_timedjoin_np(tids[i], NULL, &dl)) {
			fprintf(stderr, "uspin-fuzz: FINDING: worker %u (tid %d) hung in %s\n",
				i, worker_tids[i], worker_action[i]);
			show_task(worker_tids[i]);
			hung = 1;
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	el = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	pthread_mutex_lock(&children_lock);
	for (int i = 0; i < MAX_CHILDREN; i++)
		if (children[i])
			kill(children[i], SIGKILL);
	pthread_mutex_unlock(&children_lock);
	reap_children(1);
	if (!hung)
		for (unsigned int i = 0; i < nteardowns; i++)
			teardowns[i]();
	report(el, seed);
	fflush(stdout);
	if (hung)
		_exit(1);	/* hung workers cannot be joined */
	return findings ? 1 : 0;
}
