// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * kill.c - SIGKILL injection on a process-shared mutex (issue 25).
 *
 * The record: a and b are incremented one after the other under the
 * mutex, so a != b means a critical section was cut short.  A worker that
 * enters writes its id into marker, then sets in_cs in its own slot, and
 * clears both (in the reverse order) before it unlocks: in_cs found set in
 * a dead worker's slot proves its marker was in the record when it died.
 * Whoever then gets EOWNERDEAD appends the marker to a log, repairs the
 * record and clears the marker; a recoverer killed half-way leaves the
 * marker, so the next one finds it and skips an entry already logged.  At
 * the end every dead worker whose in_cs was set must be in the log
 * exactly once, and nothing else may be.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include <urcu/uatomic.h>

#include "../check_suites.h"
#include "../test_common.h"
#include "kill.h"
#include "lock_ops.h"

#define KILL_MAX_IDS		32768
#define KILL_MAX_WORKERS	16
#define KILL_FINISH_NS		3000000000LL	/* to finish when asked */
#define KILL_LOCK_NS		3000000000LL	/* the parent's timed locks */

struct kill_slot {
	uint32_t id;		/* this worker's marker */
	uint32_t in_cs;		/* its marker is in the record */
	uint64_t iters;
};

struct kill_shm {
	struct lock_obj mutex;
	/* The record, under the mutex. */
	uint64_t a, b;
	uint32_t marker;
	uint32_t log_n;
	uint32_t log[KILL_MAX_IDS];
	/* Updated atomically, outside the mutex. */
	long torn_seen, worker_errors, eownerdead, torn_repaired;
	int stop;
	struct kill_slot slots[KILL_MAX_WORKERS];
};

static void burn(unsigned int n)
{
	while (n--)
		caa_cpu_relax();
}

static unsigned long next_rand(unsigned long *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/* After EOWNERDEAD, with the mutex held: log the dead marker, repair. */
static void recover(struct kill_shm *s)
{
	uint32_t dead = CMM_LOAD_SHARED(s->marker), n = s->log_n;

	uatomic_inc(&s->eownerdead);
	if (dead && !(n && s->log[n - 1] == dead) && n < KILL_MAX_IDS) {
		s->log[n] = dead;
		cmm_barrier();
		CMM_STORE_SHARED(s->log_n, n + 1);
	}
	if (s->a != s->b) {
		uatomic_inc(&s->torn_repaired);
		s->b = s->a;
	}
	cmm_barrier();
	CMM_STORE_SHARED(s->marker, 0);
}

static void worker(const struct kill_config *cfg, struct kill_shm *s,
		   struct kill_slot *slot)
{
	void *m = s->mutex.bytes;
	int r;

	while (!CMM_LOAD_SHARED(s->stop)) {
		r = lock_ops.lock(m);
		if (r == EOWNERDEAD && cfg->robust) {
			recover(s);
			if (lock_ops.consistent(m) != 0) {
				uatomic_inc(&s->worker_errors);
				_exit(3);
			}
		} else if (r != 0) {
			uatomic_inc(&s->worker_errors);
			_exit(2);
		} else if (s->a != s->b || CMM_LOAD_SHARED(s->marker)) {
			uatomic_inc(&s->torn_seen);
		}
		CMM_STORE_SHARED(s->marker, slot->id);
		cmm_barrier();
		CMM_STORE_SHARED(slot->in_cs, 1);
		cmm_barrier();
		s->a++;
		burn(200);
		s->b++;
		cmm_barrier();
		CMM_STORE_SHARED(slot->in_cs, 0);
		cmm_barrier();
		CMM_STORE_SHARED(s->marker, 0);
		cmm_barrier();
		if (lock_ops.unlock(m) != 0) {
			uatomic_inc(&s->worker_errors);
			_exit(4);
		}
		CMM_STORE_SHARED(slot->iters, slot->iters + 1);
		burn(50);
	}
	_exit(0);
}

static pid_t start(const struct kill_config *cfg, struct kill_shm *s, int i,
		   uint32_t id)
{
	pid_t pid;

	s->slots[i].id = id;
	s->slots[i].in_cs = 0;
	pid = fork();
	if (pid == 0)
		worker(cfg, s, &s->slots[i]);
	return pid;
}

/* @pid (slot @i) is dead and reaped: note whether it died marked. */
static void note_death(struct kill_shm *s, int i, uint8_t *state,
		       struct kill_report *rep)
{
	uint32_t id = s->slots[i].id;

	state[id] |= 1;
	if (CMM_LOAD_SHARED(s->slots[i].in_cs)) {
		state[id] |= 2;
		rep->kills_in_cs++;
	}
	rep->iterations += s->slots[i].iters;
	s->slots[i].iters = 0;
}

static int reap(pid_t pid)
{
	int st;

	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return st;
}

/* The end: let every worker finish; kill those that cannot. */
static void finish(const struct kill_config *cfg, struct kill_shm *s,
		   pid_t *pids, uint8_t *state, struct kill_report *rep)
{
	int64_t until = now_on(CLOCK_MONOTONIC) + KILL_FINISH_NS;
	int left = cfg->workers, i, st;

	CMM_STORE_SHARED(s->stop, 1);
	while (left && now_on(CLOCK_MONOTONIC) < until) {
		for (i = 0; i < cfg->workers; i++) {
			if (!pids[i] || waitpid(pids[i], &st, WNOHANG) != pids[i])
				continue;
			if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
				rep->worker_errors++;
			rep->iterations += s->slots[i].iters;
			pids[i] = 0;
			left--;
		}
		if (left)
			sleep_ns(1000000);
	}
	for (i = 0; i < cfg->workers; i++) {
		if (!pids[i])
			continue;
		rep->stuck++;
		kill(pids[i], SIGKILL);
		reap(pids[i]);
		note_death(s, i, state, rep);
	}
}

/* The log against the deaths: each marked death once, nothing else. */
static void account(struct kill_shm *s, uint32_t ids, uint8_t *state,
		    struct kill_report *rep)
{
	uint32_t n = s->log_n, k, id;

	for (k = 0; k < n; k++) {
		id = s->log[k];
		if (!id || id >= ids || !(state[id] & 1) || (state[id] & 4)) {
			rep->misreported++;
			continue;
		}
		state[id] |= 4;
		rep->reported++;
	}
	for (id = 1; id < ids; id++)
		if ((state[id] & 3) == 3 && !(state[id] & 4))
			rep->unreported++;
}

int kill_run(const struct kill_config *cfg, struct kill_report *rep)
{
	struct kill_shm *s;
	pid_t pids[KILL_MAX_WORKERS] = { 0 };
	uint8_t *state;
	uint32_t next_id = 1;
	int64_t until;
	unsigned long x;
	const char *seed = getenv("USPIN_KILL_SEED");
	void *m;
	int i, r, held;

	memset(rep, 0, sizeof(*rep));
	if (cfg->workers < 2 || cfg->workers > KILL_MAX_WORKERS)
		return -1;
	x = seed ? strtoul(seed, NULL, 0) :
		   (unsigned long)now_on(CLOCK_MONOTONIC) ^ ((unsigned long)getpid() << 20);
	rep->seed = x = x ? x : 1;
	s = mmap(NULL, sizeof(*s), PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	state = calloc(KILL_MAX_IDS, 1);
	if (s == MAP_FAILED || !state)
		return -1;
	m = s->mutex.bytes;
	if ((cfg->init ? cfg->init(m) :
	     lock_ops.mutex_init(m, cfg->robust ? LK_ROBUST : LK_SHARED,
				 LT_DEFAULT)) != 0)
		return -1;
	for (i = 0; i < cfg->workers; i++)
		if ((pids[i] = start(cfg, s, i, next_id++)) < 0)
			return -1;

	until = now_on(CLOCK_MONOTONIC) + cfg->run_ms * 1000000LL;
	while (now_on(CLOCK_MONOTONIC) < until && next_id < KILL_MAX_IDS) {
		sleep_ns((int64_t)(next_rand(&x) % 1500) * 1000);
		held = 0;
		if (!cfg->robust) {
			/* Nobody is inside while we hold it: kill waiters only. */
			struct timespec dl = deadline_in(CLOCK_REALTIME, KILL_LOCK_NS);

			r = lock_ops.timedlock(m, &dl);
			if (r != 0) {
				if (r == ETIMEDOUT)
					rep->stranded++;
				else
					rep->worker_errors++;
				break;
			}
			held = 1;
			/*
			 * Hold it a while: woken waiters that find it taken
			 * after a millisecond ask for a handoff, and one of
			 * them may be the one killed below.
			 */
			sleep_ns((int64_t)(next_rand(&x) % 2000) * 1000);
		}
		i = (int)(next_rand(&x) % (unsigned long)cfg->workers);
		kill(pids[i], SIGKILL);
		reap(pids[i]);
		rep->kills++;
		note_death(s, i, state, rep);
		if (held) {
			if (s->a != s->b || s->marker || (state[s->slots[i].id] & 2))
				rep->torn_seen++;
			lock_ops.unlock(m);
		}
		if ((pids[i] = start(cfg, s, i, next_id++)) < 0)
			return -1;
	}
	finish(cfg, s, pids, state, rep);

	/* Whatever happened, the mutex must be ours within the deadline. */
	{
		struct timespec dl = deadline_in(CLOCK_REALTIME, KILL_LOCK_NS);

		rep->final_lock = r = lock_ops.timedlock(m, &dl);
	}
	if (r != 0 && r != EOWNERDEAD) {
		/* Both layouts keep the TID word at offset 0. */
		uint32_t w = CMM_LOAD_SHARED(*(uint32_t *)m);
		/* The TID, without a shared word's mark (bit 29, uspin(3)). */
		pid_t tid = (pid_t)(w & 0x1fffffff);

		rep->word = w;
		rep->word_owner_alive = tid && kill(tid, 0) == 0;
	}
	if (r == EOWNERDEAD && cfg->robust) {
		recover(s);
		lock_ops.consistent(m);
	} else if (r == 0 && (s->a != s->b || s->marker)) {
		rep->torn_seen++;
	}
	if (r == 0 || r == EOWNERDEAD)
		lock_ops.unlock(m);

	account(s, next_id, state, rep);
	rep->torn_seen += s->torn_seen;
	rep->worker_errors += s->worker_errors;
	rep->eownerdead = s->eownerdead;
	rep->torn_repaired = s->torn_repaired;
	munmap(s, sizeof(*s));
	free(state);
	return 0;
}

void kill_check(const struct kill_config *cfg, const struct kill_report *r,
		const char *label)
{
	printf("%s: kill %s (seed %#lx): %ld kills, %ld in the critical "
	       "section, %ld reported, %ld EOWNERDEAD, %ld repaired, %ld "
	       "iterations; torn %ld, errors %ld, unreported %ld, misreported "
	       "%ld, stranded %ld, stuck %ld, final lock %d",
	       label, cfg->name, r->seed, r->kills, r->kills_in_cs, r->reported,
	       r->eownerdead, r->torn_repaired, r->iterations, r->torn_seen,
	       r->worker_errors, r->unreported, r->misreported, r->stranded,
	       r->stuck, r->final_lock);
	if (r->final_lock && r->final_lock != EOWNERDEAD)
		printf(" (word %#x, owner %s)", r->word,
		       r->word_owner_alive ? "alive" : "gone");
	printf("\n");
	fflush(stdout);
	ck_assert_int_eq(r->final_lock == 0 ||
			 (cfg->robust && r->final_lock == EOWNERDEAD), 1);
	ck_assert_int_eq(r->stranded, 0);
	ck_assert_int_eq(r->stuck, 0);
	ck_assert_int_eq(r->torn_seen, 0);
	ck_assert_int_eq(r->worker_errors, 0);
	ck_assert_int_eq(r->unreported, 0);
	ck_assert_int_eq(r->misreported, 0);
	/* The run did what it is for. */
	ck_assert_int_ge(r->kills, 20);
	ck_assert_int_gt(r->iterations, 0);
	if (cfg->robust)
		ck_assert_int_gt(r->kills_in_cs, 0);
}
