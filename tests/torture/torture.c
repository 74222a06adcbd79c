// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * torture.c - random lock traffic on one API (lock_ops.h), in the spirit of
 * the kernel's locktorture: rounds of threads (or processes, for shared
 * and robust mutexes) doing lock, trylock, timedlock, relock, condvar
 * waits, signals and broadcasts, while others fork (the pthread_atfork
 * pattern: the forking thread holds a mutex across fork and the child
 * releases it), fork and exec, cancel condvar waiters, interrupt waits
 * with signals and SIGKILL waiters.
 *
 * What it asserts:
 *   - mutual exclusion: a guard beside each mutex names the thread inside;
 *     for private mutexes the sections counted inside equal the sum of
 *     what each thread counted;
 *   - nothing hangs: every thread and every fork child makes progress
 *     within the hang limit, and a round ends when asked;
 *   - every call returns what it may (EBUSY, ETIMEDOUT, EDEADLK on a real
 *     relock, EOWNERDEAD after a death); a spurious EDEADLK or EPERM is a
 *     failure.
 * A failure prints the seed and round, and the command that replays that
 * round with the same choices (timing differs, so replay repeats it).
 *
 * usage: uspin-torture [-k private|shared|robust] [-n] [-s SEED] [-r ROUND]
 *                      [-t SECONDS] [-H HANG_MS] [-v]
 *   -n  shared kinds: each worker process in a pid namespace of its own
 *       (root), so that their TIDs collide
 * Exit status: 0 passed, 1 failed, 2 usage, 77 could not run here.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../scenarios/lock_ops.h"
#include "../sys_util.h"
#include "../test_common.h"

#define MAX_MUTEXES	3
#define MAX_PROCS	4	/* worker processes of a shared round */
#define MAX_THREADS	6	/* threads of a private round, or per process */
#define MAX_SLOTS	(MAX_PROCS * MAX_THREADS + 8)
#define CHILD_SLOTS	8	/* slots for fork and exec children */
#define EXIT_SKIP	77
#define CHILD_HUNG	70	/* a fork child's own watchdog fired */
#define CHILD_FAILED	71

#define OPS	lock_ops

enum op {
	OP_IDLE, OP_LOCK, OP_TRYLOCK, OP_TIMEDLOCK, OP_RELOCK, OP_COND,
	OP_FORK, OP_CANCEL_WAIT, OP_NR
};
static const char *const op_names[OP_NR] = {
	"idle", "lock", "trylock", "timedlock", "relock", "cond", "fork",
	"cancel-wait",
};

struct params {
	int nr_mutexes;
	int type[MAX_MUTEXES];
	int procs;		/* worker processes (1: the driver's threads) */
	int threads;		/* threads per process */
	int fork_permille;	/* of operations that fork */
	int exec_pct;		/* of forks that exec */
	int cond;		/* condvar traffic on mutex 0 */
	int cancel;		/* a condvar waiter is cancelled */
	int kill_ms;		/* a worker process is killed every ~ms */
	int signal_ms;		/* a SIGUSR1 every ~ms */
	int long_pct;		/* sections of 0.2-1.5 ms */
	int sleep_pct;		/* the owner sleeps inside */
	long duration_ms;
};

struct guard {
	uint32_t holder;	/* id of the thread inside, 0: nobody */
	uint32_t pad;
	uint64_t count;		/* sections completed */
};

struct slot {
	uint64_t beat;		/* operations done */
	uint32_t op, mutex;	/* what it does now */
	uint64_t tally[MAX_MUTEXES];
};

struct arena {
	unsigned char mutex[MAX_MUTEXES][LOCK_OBJ_BYTES]
		__attribute__((aligned(64)));
	unsigned char cond[LOCK_OBJ_BYTES] __attribute__((aligned(64)));
	struct guard guard[MAX_MUTEXES];
	struct params p;
	uint64_t seed;
	long round;
	int stop;
	int failed;
	char why[512];
	pid_t pid[MAX_PROCS];	/* worker processes (shared kinds) */
	struct slot slot[MAX_SLOTS];
	uint64_t sections, forks, execs, kills, cancels, ownerdead, signals;
	uint64_t timeouts, busy;
};

struct config {
	enum lock_kind kind;
	int pidns;
	uint64_t seed;
	long first_round;
	long max_rounds;	/* 0: until the time is up */
	double seconds;
	long hang_ms;
	int verbose;
	const char *argv0;
};

static struct config cfg = {
	.kind = LK_PRIVATE, .seconds = 5, .hang_ms = 10000,
};
static const char *const kind_names[] = { "private", "shared", "robust" };

/* ---- small things ---- */

static void busy_ns(int64_t ns)
{
	int64_t end = now_on(CLOCK_MONOTONIC) + ns;

	while (now_on(CLOCK_MONOTONIC) < end)
		;
}

static uint64_t splitmix(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static unsigned int rnd(uint64_t *x, unsigned int n)
{
	return n ? (unsigned int)(splitmix(x) % n) : 0;
}

static uint32_t load32(const uint32_t *p)
{
	return __atomic_load_n(p, __ATOMIC_RELAXED);
}

static void store32(uint32_t *p, uint32_t v)
{
	__atomic_store_n(p, v, __ATOMIC_RELAXED);
}

static void add64(uint64_t *p, uint64_t v)
{
	__atomic_fetch_add(p, v, __ATOMIC_RELAXED);
}

/* The first failure of a round wins; every one is printed. */
static void fail(struct arena *a, const char *fmt, ...)
{
	char buf[sizeof(a->why)];
	va_list ap;
	int zero = 0;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	dprintf(2, "torture: FAIL (pid %d tid %d): %s\n", getpid(), (int)sys_gettid(),
		buf);
	if (__atomic_compare_exchange_n(&a->failed, &zero, 1, 0,
					__ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
		memcpy(a->why, buf, sizeof(buf));
	__atomic_store_n(&a->stop, 1, __ATOMIC_SEQ_CST);
}

static int stopped(const struct arena *a)
{
	return __atomic_load_n(&a->stop, __ATOMIC_ACQUIRE);
}

static void *mutex_of(struct arena *a, int i)
{
	return a->mutex[i];
}

/* The first words of @obj, for a report. */
static void dump_obj(const char *what, int i, const void *obj, size_t words)
{
	const uint32_t *w = obj;
	char line[256];
	int n = snprintf(line, sizeof(line), "  %s %d:", what, i);

	for (size_t k = 0; k < words && n < (int)sizeof(line) - 12; k++)
		n += snprintf(line + n, sizeof(line) - n, " %08x", load32(&w[k]));
	dprintf(2, "%s\n", line);
}

static void dump(struct arena *a)
{
	for (int i = 0; i < a->p.nr_mutexes; i++) {
		dump_obj("mutex", i, a->mutex[i], 6);
		dprintf(2, "  guard %d: holder %x count %" PRIu64 "\n", i,
			load32(&a->guard[i].holder), a->guard[i].count);
	}
	dump_obj("cond", 0, a->cond, 10);
	for (int s = 0; s < MAX_SLOTS; s++)
		if (a->slot[s].beat || a->slot[s].op)
			dprintf(2, "  slot %d: %s on mutex %u after %" PRIu64 " ops\n",
				s, op_names[a->slot[s].op % OP_NR], a->slot[s].mutex,
				a->slot[s].beat);
}

/* ---- what a round is ---- */

static struct params round_params(uint64_t seed, long round)
{
	uint64_t x = seed ^ (uint64_t)round * 0xd1b54a32d192ed03ull;
	int shared = cfg.kind != LK_PRIVATE;
	struct params p = { 0 };

	splitmix(&x);
	p.nr_mutexes = 1 + rnd(&x, MAX_MUTEXES);
	for (int i = 0; i < p.nr_mutexes; i++)
		p.type[i] = rnd(&x, OPS.nr_types);
	/*
	 * The atfork mutex (0) of a private round: a type whose owner's
	 * child may release it in glibc too (normal or adaptive).
	 */
	if (!shared && p.type[0] != LT_ADAPTIVE)
		p.type[0] = LT_DEFAULT;
	p.procs = shared ? 2 + rnd(&x, MAX_PROCS - 1) : 1;
	p.threads = shared ? 1 + rnd(&x, 3) : 2 + rnd(&x, MAX_THREADS - 1);
	p.fork_permille = rnd(&x, 3) ? 2 + rnd(&x, 20) : 0;
	p.exec_pct = rnd(&x, 3) ? rnd(&x, 40) : 0;
	p.kill_ms = shared && rnd(&x, 4) ? 5 + rnd(&x, 40) : 0;
	/*
	 * Not robust mutexes across pid namespaces: the kernel's exit-time
	 * robust handling compares a word with the dying waiter's TID in
	 * the waiter's namespace, and marks a same-numbered owner of another
	 * namespace dead (glibc alike; docs/design.md, "Pid namespaces").
	 */
	if (cfg.kind == LK_ROBUST && cfg.pidns)
		p.kill_ms = 0;
	/*
	 * A condvar's internal state is not kill-safe (glibc's is not
	 * either): rounds that kill use mutexes only.
	 */
	p.cond = !p.kill_ms;
	p.cancel = p.cond && rnd(&x, 2);
	p.signal_ms = rnd(&x, 2) ? 1 + rnd(&x, 10) : 0;
	p.long_pct = rnd(&x, 12);
	p.sleep_pct = rnd(&x, 30);
	p.duration_ms = 100 + rnd(&x, 300);
	return p;
}

/* A thread's own random stream and identity. */
struct worker {
	struct arena *a;
	int slot;
	uint32_t id;		/* the guard's name for it, never 0 */
	uint64_t x;
	pthread_t thread;
};

/* Time inside a section: mostly short, some long; the owner may sleep. */
static void hold(struct worker *w)
{
	const struct params *p = &w->a->p;
	int64_t ns = rnd(&w->x, 100) < (unsigned int)p->long_pct ?
		     200000 + rnd(&w->x, 1300000) : rnd(&w->x, 20000);

	if (rnd(&w->x, 100) < (unsigned int)p->sleep_pct)
		sleep_ns(ns);
	else
		busy_ns(ns);
}

/*
 * Inside mutex @i: the guard must be free, stays ours while we hold it,
 * and is freed before the unlock.  After EOWNERDEAD a dead holder may
 * still be named: the recoverer clears it (and only then).
 */
static void section(struct worker *w, int i, int ownerdead)
{
	struct guard *g = &w->a->guard[i];
	uint32_t h = load32(&g->holder);

	if (ownerdead) {
		add64(&w->a->ownerdead, 1);
		h = 0;
	}
	if (h)
		fail(w->a, "two owners: mutex %d taken by %x while %x is inside",
		     i, w->id, h);
	store32(&g->holder, w->id);
	hold(w);
	h = load32(&g->holder);
	if (h != w->id)
		fail(w->a, "two owners: mutex %d: %x found %x inside its section",
		     i, w->id, h);
	g->count++;
	w->a->slot[w->slot].tally[i]++;
	add64(&w->a->sections, 1);
	store32(&g->holder, 0);
}

/* A lock call returned @r: did it take the mutex? */
static int took(struct worker *w, int i, int r, const char *call)
{
	if (r == 0)
		return 1;
	if (r == EOWNERDEAD && cfg.kind == LK_ROBUST) {
		int c = OPS.consistent(mutex_of(w->a, i));

		if (c)
			fail(w->a, "mutex %d: consistent() = %d after EOWNERDEAD", i, c);
		section(w, i, 1);
		return 2;	/* held, section done */
	}
	fail(w->a, "mutex %d: %s = %d (%s)", i, call, r, strerror(r));
	return 0;
}

static void unlock_checked(struct worker *w, int i)
{
	int r = OPS.unlock(mutex_of(w->a, i));

	if (r)
		fail(w->a, "mutex %d: unlock = %d (%s)", i, r, strerror(r));
}

/* A relock by the owner: EDEADLK, or one more level of a recursive one. */
static void relock(struct worker *w, int i)
{
	void *m = mutex_of(w->a, i);
	int type = w->a->p.type[i], r;

	if (type == LT_RECURSIVE) {
		r = OPS.lock(m);
		if (r == 0)
			unlock_checked(w, i);
		else
			fail(w->a, "mutex %d: recursive relock = %d", i, r);
	} else if (type == LT_ERRORCHECK ||
		   (type == LT_DEFAULT && OPS.nr_types == 1)) {
		r = OPS.lock(m);
		if (r != EDEADLK)
			fail(w->a, "mutex %d: errorcheck relock = %d, not EDEADLK",
			     i, r);
	}
	/* Normal and adaptive ones would deadlock, by definition. */
}

/* ---- fork ---- */

/* The pthread_atfork pattern on the round's mutex 0 (private rounds). */
static void *atfork_mutex;
static int atfork_error;

static void atfork_prepare(void)
{
	if (atfork_mutex)
		atfork_error = OPS.lock(atfork_mutex);
}

static void atfork_parent(void)
{
	if (atfork_mutex && !atfork_error)
		OPS.unlock(atfork_mutex);
}

static void atfork_child(void)
{
	if (atfork_mutex && !atfork_error)
		atfork_error = OPS.unlock(atfork_mutex);
}

static struct arena *child_arena;

static void child_hung(int sig)
{
	dprintf(2, "torture: FAIL: fork child %d (round %ld) hung; its view:\n",
		getpid(), child_arena->round);
	dump(child_arena);
	_exit(CHILD_HUNG);
}

/* Contention in a fork child: a few rounds of lock, hold, unlock. */
static void *child_thread(void *arg)
{
	struct worker *w = arg;
	int n = 3 + rnd(&w->x, 4);

	for (int k = 0; k < n && !stopped(w->a); k++) {
		int i = cfg.kind == LK_PRIVATE ? 0 : (int)rnd(&w->x, w->a->p.nr_mutexes);
		int t = took(w, i, OPS.lock(mutex_of(w->a, i)), "lock (child)");

		if (t == 1)
			section(w, i, 0);
		if (t)
			unlock_checked(w, i);
		sleep_ns(rnd(&w->x, 200000));
	}
	return NULL;
}

/*
 * A fork child that does not exec.  Private rounds: only mutex 0 may be
 * used (others may be held by threads that do not exist here), and the
 * atfork handler released it.  Shared rounds: it joins in for a while.
 */
static void fork_child(struct worker *parent)
{
	struct worker w[2];
	struct arena *a = parent->a;

	child_arena = a;
	signal(SIGALRM, child_hung);
	alarm((unsigned int)(cfg.hang_ms + 999) / 1000);
	if (atfork_error) {
		dprintf(2, "torture: FAIL: fork child: the atfork handler's release = %d (%s)\n",
			atfork_error, strerror(atfork_error));
		_exit(CHILD_FAILED);
	}
	for (int k = 0; k < 2; k++) {
		w[k] = (struct worker){ .a = a, .id = parent->id | 0x80000000u | k,
					.x = parent->x + k, .slot = MAX_SLOTS - 1 - k };
		if (pthread_create(&w[k].thread, NULL, child_thread, &w[k]))
			_exit(CHILD_FAILED);
	}
	for (int k = 0; k < 2; k++)
		pthread_join(w[k].thread, NULL);
	_exit(a->failed && cfg.kind == LK_PRIVATE ? CHILD_FAILED : 0);
}

/* Wait for child @pid, at most the hang limit; 1 if it exited 0. */
static int reap(struct arena *a, pid_t pid, const char *what)
{
	int64_t end = now_on(CLOCK_MONOTONIC) + cfg.hang_ms * 1000000LL + 1000000000LL;
	int status;
	pid_t r;

	while ((r = waitpid(pid, &status, WNOHANG)) == 0 &&
	       now_on(CLOCK_MONOTONIC) < end)
		sleep_ns(200000);
	if (r == 0) {
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
		fail(a, "%s %d did not exit", what, pid);
		return 0;
	}
	if (r < 0) {
		fail(a, "%s %d: waitpid: %s", what, pid, strerror(errno));
		return 0;
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 1;
	if (WIFEXITED(status))
		fail(a, "%s %d exited with %d%s", what, pid, WEXITSTATUS(status),
		     WEXITSTATUS(status) == CHILD_HUNG ? " (hung)" : "");
	else
		fail(a, "%s %d: signal %d", what, pid, WTERMSIG(status));
	return 0;
}

static int arena_fd = -1;

static void do_fork(struct worker *w)
{
	int exec = rnd(&w->x, 100) < (unsigned int)w->a->p.exec_pct;
	pid_t pid;

	pid = fork();
	if (pid < 0) {
		if (errno != EAGAIN)
			fail(w->a, "fork: %s", strerror(errno));
		return;
	}
	if (pid == 0) {
		if (exec) {
			char fd[16], seed[32], id[16];

			snprintf(fd, sizeof(fd), "%d", arena_fd);
			snprintf(seed, sizeof(seed), "%" PRIu64, w->x);
			snprintf(id, sizeof(id), "%u", w->id | 0x40000000u);
			execl("/proc/self/exe", cfg.argv0, "--exec-child",
			      kind_names[cfg.kind], fd, seed, id, (char *)NULL);
			dprintf(2, "torture: exec: %s\n", strerror(errno));
			_exit(CHILD_FAILED);
		}
		fork_child(w);
	}
	add64(&w->a->forks, 1);
	if (exec)
		add64(&w->a->execs, 1);
	reap(w->a, pid, exec ? "fork+exec child" : "fork child");
}

/* ---- the workers ---- */

static void one_op(struct worker *w)
{
	struct arena *a = w->a;
	struct slot *s = &a->slot[w->slot];
	int i = rnd(&w->x, a->p.nr_mutexes), t = 0, r;
	unsigned int pick = rnd(&w->x, 1000);
	void *m = mutex_of(a, i);
	struct timespec abs;

	store32(&s->mutex, i);
	if (pick < (unsigned int)a->p.fork_permille) {
		store32(&s->op, OP_FORK);
		do_fork(w);
		return;
	}
	pick = rnd(&w->x, 100);
	if (pick < 40) {
		store32(&s->op, OP_LOCK);
		t = took(w, i, OPS.lock(m), "lock");
	} else if (pick < 55) {
		store32(&s->op, OP_TRYLOCK);
		r = OPS.trylock(m);
		if (r == EBUSY)
			add64(&a->busy, 1);
		else
			t = took(w, i, r, "trylock");
	} else if (pick < 70) {
		store32(&s->op, OP_TIMEDLOCK);
		/* Now and then a deadline already past. */
		abs = deadline_in(CLOCK_REALTIME,
				  rnd(&w->x, 8) ? (int64_t)rnd(&w->x, 2000000) :
						  -1000000);
		r = OPS.timedlock(m, &abs);
		if (r == ETIMEDOUT)
			add64(&a->timeouts, 1);
		else
			t = took(w, i, r, "timedlock");
	} else if (pick < 78 || !a->p.cond) {
		store32(&s->op, OP_RELOCK);
		t = took(w, i, OPS.lock(m), "lock");
		if (t == 1)
			relock(w, i);
	} else {
		/* The condvar goes with mutex 0. */
		i = 0;
		m = mutex_of(a, 0);
		store32(&s->op, OP_COND);
		store32(&s->mutex, 0);
		t = took(w, 0, OPS.lock(m), "lock");
		if (t) {
			pick = rnd(&w->x, 10);
			if (pick < 5) {
				abs = deadline_in(CLOCK_REALTIME, 200000 +
						  rnd(&w->x, 3000000));
				r = OPS.cond_timedwait(a->cond, m, &abs);
				if (r == EOWNERDEAD && cfg.kind == LK_ROBUST)
					t = took(w, 0, r, "cond_timedwait");
				else if (r == ETIMEDOUT)
					add64(&a->timeouts, 1);
				else if (r)
					fail(a, "cond_timedwait = %d (%s)", r, strerror(r));
			} else if (pick < 8) {
				OPS.cond_signal(a->cond);
			} else {
				OPS.cond_broadcast(a->cond);
			}
		}
	}
	if (t == 1)
		section(w, i, 0);
	if (t)
		unlock_checked(w, i);
	store32(&s->op, OP_IDLE);
	if (rnd(&w->x, 4) == 0)
		sched_yield();
	else
		busy_ns(rnd(&w->x, 10000));
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;

	while (!stopped(w->a)) {
		one_op(w);
		add64(&w->a->slot[w->slot].beat, 1);
	}
	return NULL;
}

/*
 * The cancelled waiter: takes mutex 0 and waits on the condvar, untimed,
 * until cancelled; its cleanup handler releases the mutex it got back.
 */
static void cancel_cleanup(void *arg)
{
	struct worker *w = arg;

	unlock_checked(w, 0);
}

static void *cancel_main(void *arg)
{
	struct worker *w = arg;
	int r;

	store32(&w->a->slot[w->slot].op, OP_CANCEL_WAIT);
	if (!took(w, 0, OPS.lock(mutex_of(w->a, 0)), "lock (cancel)"))
		return NULL;
	pthread_cleanup_push(cancel_cleanup, w);
	for (;;) {
		r = OPS.cond_wait(w->a->cond, mutex_of(w->a, 0));
		if (r == EOWNERDEAD && cfg.kind == LK_ROBUST)
			took(w, 0, r, "cond_wait");
		else if (r)
			fail(w->a, "cond_wait (cancel) = %d", r);
		add64(&w->a->slot[w->slot].beat, 1);
	}
	pthread_cleanup_pop(1);
	return NULL;
}

static void on_sigusr1(int sig)
{
}

/*
 * The threads of one process (a private round, or one worker process of
 * a shared round): run until stopped, cancel the waiter on the way,
 * interrupt with signals; 0 if every thread finished in time.
 */
static int run_threads(struct arena *a, int proc, uint64_t x, int64_t end)
{
	const struct params *p = &a->p;
	struct worker w[MAX_THREADS + 1];
	int n = p->threads, cancel = p->cancel, ok = 1;
	int64_t start = now_on(CLOCK_MONOTONIC), cancel_at, lim_ns;
	int64_t stuck_ns = 2 * cfg.hang_ms * 1000000LL, seen_at[MAX_THREADS];
	uint64_t seen[MAX_THREADS];

	for (int k = 0; k < n + cancel; k++) {
		w[k] = (struct worker){ .a = a, .slot = proc * MAX_THREADS + k,
					.id = (uint32_t)((a->round & 0xfff) << 16 |
							 proc << 8 | (k + 1)) };
		w[k].x = x + (uint64_t)k * 0x632be59bd9b4e019ull;
		if (pthread_create(&w[k].thread, NULL,
				   k < n ? worker_main : cancel_main, &w[k])) {
			fail(a, "pthread_create: out of threads");
			n = k < n ? k : n;
			cancel = 0;
			break;
		}
	}
	cancel_at = start + (int64_t)rnd(&x, (unsigned int)p->duration_ms) * 1000000;
	for (int k = 0; k < n; k++) {
		seen[k] = 0;
		seen_at[k] = start;
	}
	while (!stopped(a)) {
		int64_t now = now_on(CLOCK_MONOTONIC);

		if (now >= end)
			__atomic_store_n(&a->stop, 1, __ATOMIC_SEQ_CST);
		/* Progress: every thread finishes an operation now and then. */
		for (int k = 0; k < n; k++) {
			uint64_t b = __atomic_load_n(&a->slot[w[k].slot].beat,
						     __ATOMIC_RELAXED);

			if (b != seen[k]) {
				seen[k] = b;
				seen_at[k] = now;
			} else if (now - seen_at[k] > stuck_ns) {
				fail(a, "thread %d of process %d made no progress in %s for %lld ms",
				     k, proc, op_names[a->slot[w[k].slot].op % OP_NR],
				     (long long)(stuck_ns / 1000000));
				dump(a);
			}
		}

		if (cancel && now >= cancel_at) {
			struct timespec lim = deadline_in(CLOCK_REALTIME,
							  cfg.hang_ms * 1000000LL);

			pthread_cancel(w[n].thread);
			if (pthread_timedjoin_np(w[n].thread, NULL, &lim))
				fail(a, "a cancelled condvar waiter did not finish");
			add64(&a->cancels, 1);
			cancel = 0;
		}
		if (p->signal_ms && rnd(&x, (unsigned int)p->signal_ms) == 0) {
			pthread_kill(w[rnd(&x, n)].thread, SIGUSR1);
			add64(&a->signals, 1);
		}
		sleep_ns(1000000);
	}
	/* Every thread must finish when asked (the cancelled waiter too). */
	OPS.cond_broadcast(a->cond);
	lim_ns = now_on(CLOCK_REALTIME) + cfg.hang_ms * 1000000LL;
	for (int k = 0; k < n + cancel; k++) {
		struct timespec lim = { lim_ns / 1000000000LL, lim_ns % 1000000000LL };

		if (k == n) {
			pthread_cancel(w[k].thread);
			OPS.cond_broadcast(a->cond);
		}
		if (pthread_timedjoin_np(w[k].thread, NULL, &lim)) {
			fail(a, "thread %d of process %d is stuck in %s", k, proc,
			     op_names[a->slot[w[k].slot].op % OP_NR]);
			dump(a);
			ok = 0;
			break;
		}
	}
	return ok;
}

/* ---- rounds ---- */

static struct arena *arena_new(void)
{
	struct arena *a;

	if (cfg.kind == LK_PRIVATE) {
		a = mmap(NULL, sizeof(*a), PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		return a == MAP_FAILED ? NULL : a;
	}
	/* A file, so that an exec'd child can map it too. */
	arena_fd = memfd_create("uspin-torture", 0);
	if (arena_fd < 0 || ftruncate(arena_fd, sizeof(*a)) != 0)
		return NULL;
	a = mmap(NULL, sizeof(*a), PROT_READ | PROT_WRITE, MAP_SHARED, arena_fd, 0);
	return a == MAP_FAILED ? NULL : a;
}

static void arena_free(struct arena *a)
{
	munmap(a, sizeof(*a));
	if (arena_fd >= 0)
		close(arena_fd);
	arena_fd = -1;
}

static void round_init(struct arena *a)
{
	const struct params *p = &a->p;

	for (int i = 0; i < p->nr_mutexes; i++) {
		int r = OPS.mutex_init(a->mutex[i], cfg.kind, p->type[i]);

		if (r)
			fail(a, "mutex_init = %d", r);
	}
	if (OPS.cond_init(a->cond, cfg.kind))
		fail(a, "cond_init failed");
	atfork_mutex = cfg.kind == LK_PRIVATE ? a->mutex[0] : NULL;
}

/* A worker process of a shared round; in its own pid namespace with -n. */
static void worker_process(struct arena *a, int proc, uint64_t x)
{
	/* Children see the kernel's SIGKILL; the others end with the round. */
	_exit(run_threads(a, proc, x, INT64_MAX) ? 0 : CHILD_FAILED);
}

static pid_t spawn_worker(struct arena *a, int proc, uint64_t x)
{
	int pipefd[2];
	pid_t pid, inner;

	if (!cfg.pidns) {
		pid = fork();
		if (pid == 0)
			worker_process(a, proc, x);
		a->pid[proc] = pid;
		return pid;
	}
	/*
	 * fork, unshare the pid namespace, fork again: the worker is pid 1
	 * of a namespace of its own, its threads 2, 3, ...: the TIDs of the
	 * workers collide.  The middle process reports the worker's pid (in
	 * ours) and waits for it.
	 */
	if (pipe(pipefd))
		return -1;
	pid = fork();
	if (pid == 0) {
		close(pipefd[0]);
		if (unshare(CLONE_NEWPID) != 0)
			_exit(EXIT_SKIP);
		inner = fork();
		if (inner == 0)
			worker_process(a, proc, x);
		if (write(pipefd[1], &inner, sizeof(inner)) != sizeof(inner))
			_exit(CHILD_FAILED);
		for (;;) {
			int status;

			if (waitpid(inner, &status, 0) == inner)
				_exit(WIFEXITED(status) ? WEXITSTATUS(status) : 0);
		}
	}
	close(pipefd[1]);
	if (pid < 0 || read(pipefd[0], &inner, sizeof(inner)) != sizeof(inner))
		inner = -1;
	close(pipefd[0]);
	if (inner < 0 && pid > 0) {
		int status;

		waitpid(pid, &status, 0);
		if (WIFEXITED(status) && WEXITSTATUS(status) == EXIT_SKIP) {
			dprintf(2, "torture: SKIP: cannot unshare a pid namespace (not root?)\n");
			exit(EXIT_SKIP);
		}
	}
	a->pid[proc] = inner;	/* what to kill */
	return pid;		/* what to reap */
}

/*
 * Kill a worker process.  Robust: anywhere.  Otherwise only as a waiter:
 * the driver holds every mutex while it kills (a dead owner of a mutex
 * that is not robust is undefined).
 */
static void kill_one(struct arena *a, pid_t *reap_pid, uint64_t *x)
{
	int proc = rnd(x, a->p.procs), held = 0, r;
	struct timespec lim;

	if (cfg.kind != LK_ROBUST) {
		for (; held < a->p.nr_mutexes; held++) {
			lim = deadline_in(CLOCK_REALTIME,
					  cfg.hang_ms * 1000000LL);
			r = OPS.timedlock(a->mutex[held], &lim);
			if (r) {
				fail(a, "the driver's timedlock of mutex %d = %d (%s)",
				     held, r, strerror(r));
				break;
			}
		}
	}
	if (!stopped(a)) {
		kill(a->pid[proc], SIGKILL);
		waitpid(reap_pid[proc], NULL, 0);
		add64(&a->kills, 1);
		reap_pid[proc] = spawn_worker(a, proc, splitmix(x));
	}
	while (held--)
		OPS.unlock(a->mutex[held]);
}

static int run_round(struct arena *a, long round)
{
	uint64_t x = cfg.seed ^ (uint64_t)round * 0x8cb92ba72f3d8dd7ull;
	int64_t end;

	memset(a, 0, sizeof(*a));
	a->seed = cfg.seed;
	a->round = round;
	a->p = round_params(cfg.seed, round);
	round_init(a);
	if (a->failed)
		return 0;
	end = now_on(CLOCK_MONOTONIC) + a->p.duration_ms * 1000000;

	if (cfg.kind == LK_PRIVATE) {
		run_threads(a, 0, splitmix(&x), end);
	} else {
		pid_t reap_pid[MAX_PROCS];

		for (int k = 0; k < a->p.procs; k++) {
			reap_pid[k] = spawn_worker(a, k, splitmix(&x));
			if (reap_pid[k] < 0)
				fail(a, "fork: %s", strerror(errno));
		}
		while (!stopped(a) && now_on(CLOCK_MONOTONIC) < end) {
			if (a->p.kill_ms && rnd(&x, (unsigned int)a->p.kill_ms) == 0)
				kill_one(a, reap_pid, &x);
			sleep_ns(1000000);
		}
		__atomic_store_n(&a->stop, 1, __ATOMIC_SEQ_CST);
		for (int k = 0; k < a->p.procs; k++)
			if (reap_pid[k] > 0)
				reap(a, reap_pid[k], "worker process");
	}
	return !a->failed;
}

/* Private rounds: every section counted in the guard was a thread's. */
static void check_counts(struct arena *a)
{
	for (int i = 0; i < a->p.nr_mutexes; i++) {
		uint64_t sum = 0;

		for (int s = 0; s < MAX_SLOTS; s++)
			sum += a->slot[s].tally[i];
		if (sum != a->guard[i].count)
			fail(a, "mutex %d: %" PRIu64 " sections counted inside, %" PRIu64
			     " by the threads: a section overlapped another", i,
			     a->guard[i].count, sum);
	}
}

static void round_end(struct arena *a)
{
	if (!a->failed && cfg.kind == LK_PRIVATE)
		check_counts(a);
	/*
	 * A killed waiter may have left its mark on a shared condvar (glibc's
	 * destroy waits for it forever): those are only unmapped.
	 */
	if (!a->failed && !a->kills) {
		OPS.cond_destroy(a->cond);
		for (int i = 0; i < a->p.nr_mutexes; i++)
			OPS.mutex_destroy(a->mutex[i]);
	}
	atfork_mutex = NULL;
}

/*
 * --exec-child KIND FD SEED ID: a fork child that exec'd this program.
 * Shared rounds: it maps the round's arena and joins in for a few
 * sections; private ones: contention on a mutex of its own.
 */
static int exec_child(char **argv)
{
	struct worker w = { .x = strtoull(argv[2], NULL, 10),
			    .id = (uint32_t)strtoul(argv[3], NULL, 10),
			    .slot = MAX_SLOTS - 3 };
	struct arena *a;
	int fd = atoi(argv[1]), n;

	for (int k = 0; k < 3; k++)
		if (strcmp(argv[0], kind_names[k]) == 0)
			cfg.kind = (enum lock_kind)k;
	if (cfg.kind == LK_PRIVATE) {
		a = arena_new();
		if (!a)
			return CHILD_FAILED;
		memset(a, 0, sizeof(*a));
		a->p.nr_mutexes = 1;
		if (OPS.mutex_init(a->mutex[0], LK_PRIVATE, LT_DEFAULT))
			return CHILD_FAILED;
	} else {
		a = mmap(NULL, sizeof(*a), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (a == MAP_FAILED)
			return CHILD_FAILED;
	}
	w.a = a;
	child_arena = a;
	signal(SIGALRM, child_hung);
	alarm((unsigned int)(cfg.hang_ms + 999) / 1000);
	n = 2 + rnd(&w.x, 4);
	for (int k = 0; k < n && !stopped(a); k++) {
		int i = rnd(&w.x, a->p.nr_mutexes);
		int t = took(&w, i, OPS.lock(a->mutex[i]), "lock (exec child)");

		if (t == 1)
			section(&w, i, 0);
		if (t)
			unlock_checked(&w, i);
	}
	return a->failed && cfg.kind == LK_PRIVATE ? CHILD_FAILED : 0;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: uspin-torture [-k private|shared|robust] [-n] [-s SEED] [-r ROUND]\n"
		"                     [-R ROUNDS] [-t SECONDS] [-H HANG_MS] [-v]\n"
		"  -k KIND     the mutexes: private (threads), shared or robust (processes)\n"
		"  -n          shared kinds: each worker process in a pid namespace of its own\n"
		"  -s SEED     the run's seed (default: from the clock; printed)\n"
		"  -r ROUND    start at this round (replays it with -s)\n"
		"  -R ROUNDS   stop after this many rounds (default: when -t is up)\n"
		"  -t SECONDS  run this long (default 5)\n"
		"  -H HANG_MS  a thread or child this long without progress has hung (10000)\n"
		"  -v          a line per round\n");
	exit(2);
}

static void parse(int argc, char **argv)
{
	int c;

	cfg.seed = (uint64_t)now_on(CLOCK_REALTIME) ^ (uint64_t)getpid() << 32;
	while ((c = getopt(argc, argv, "k:ns:r:R:t:H:v")) != -1) {
		char *end = NULL;

		switch (c) {
		case 'k':
			for (c = 0; c < 3 && strcmp(optarg, kind_names[c]); c++)
				;
			if (c == 3)
				usage();
			cfg.kind = (enum lock_kind)c;
			break;
		case 'n':
			cfg.pidns = 1;
			break;
		case 's':
			cfg.seed = strtoull(optarg, &end, 0);
			break;
		case 'r':
			cfg.first_round = strtol(optarg, &end, 0);
			break;
		case 'R':
			cfg.max_rounds = strtol(optarg, &end, 0);
			break;
		case 't':
			cfg.seconds = strtod(optarg, &end);
			break;
		case 'H':
			cfg.hang_ms = strtol(optarg, &end, 0);
			break;
		case 'v':
			cfg.verbose = 1;
			break;
		default:
			usage();
		}
		if (end && (*end || end == optarg))
			usage();
	}
	if (optind != argc || cfg.seconds <= 0 || cfg.hang_ms <= 0 ||
	    cfg.first_round < 0 || cfg.max_rounds < 0 ||
	    (cfg.pidns && cfg.kind == LK_PRIVATE))
		usage();
}

int main(int argc, char **argv)
{
	const char *policy = getenv("USPIN_POLICY");
	struct sigaction sa = { .sa_handler = on_sigusr1 };
	int64_t end;
	struct arena *a;
	long round, done = 0;
	unsigned int spinners = 0;	/* 0: as the library decides */

	cfg.argv0 = argv[0];
	if (argc == 6 && strcmp(argv[1], "--exec-child") == 0)
		return exec_child(argv + 2);
	parse(argc, argv);
	sigaction(SIGUSR1, &sa, NULL);	/* no SA_RESTART: waits see EINTR */
	if (OPS.set_max_spinners) {
		spinners = 1 + (unsigned int)(cfg.seed % 6);
		OPS.set_max_spinners(spinners);
	}
	pthread_atfork(atfork_prepare, atfork_parent, atfork_child);
	a = arena_new();
	if (!a) {
		perror("torture: the arena");
		return 1;
	}
	end = now_on(CLOCK_MONOTONIC) + (int64_t)(cfg.seconds * 1e9);
	for (round = cfg.first_round;
	     cfg.max_rounds ? done < cfg.max_rounds : now_on(CLOCK_MONOTONIC) < end;
	     round++, done++) {
		int ok = run_round(a, round);

		round_end(a);
		if (cfg.verbose || !ok)
			fprintf(stderr,
				"torture: round %ld: %d mutexes, %d x %d threads, %" PRIu64
				" sections, %" PRIu64 " forks (%" PRIu64 " exec), %" PRIu64
				" kills, %" PRIu64 " cancels, %" PRIu64 " EOWNERDEAD\n",
				round, a->p.nr_mutexes, a->p.procs, a->p.threads,
				a->sections, a->forks, a->execs, a->kills, a->cancels,
				a->ownerdead);
		if (!ok) {
			fprintf(stderr,
				"torture: FAILED: %s\n"
				"torture: %s %s%s, policy %s, seed %#" PRIx64 ", round %ld; replay:\n"
				"  the same command with -s %#" PRIx64 " -r %ld -R 20\n",
				a->why, OPS.name, kind_names[cfg.kind],
				cfg.pidns ? " (pid namespaces)" : "", policy ? policy : "default",
				cfg.seed, round, cfg.seed, round);
			return 1;
		}
	}
	printf("torture: %s %s%s, policy %s, seed %#" PRIx64 ", %u spinners a mutex: %ld rounds passed\n",
	       OPS.name, kind_names[cfg.kind], cfg.pidns ? " (pid namespaces)" : "",
	       policy ? policy : "default", cfg.seed, spinners, done);
	arena_free(a);
	return 0;
}
