// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * spinners.c - who may spin on a mutex, and in which order; and the
 * unlocker's side: leaving the word to a spinner rather than waking a
 * sleeper.
 *
 * Private mutexes queue their spinners as the kernel's OSQ queues mutex
 * spinners (kernel/locking/osq_lock.c, ported): an MCS queue whose tail is
 * m->spinner; only the head watches the owner and the word (spin.c), every
 * other spinner waits on its own node until the one ahead passes the turn
 * on.  Joining costs one exchange of the tail; waiting writes nothing to
 * the lock word's cache line.  A spinner may leave from the middle (it was
 * preempted, its CPU is wanted, the one ahead is off its CPU, its deadline
 * passed) with the OSQ's three-step unqueue, and one that would be more
 * than max_spinners deep leaves at once (the bound the unordered set of
 * libuspin v3 kept, without its counter in the lock word's line).
 *
 * Nodes are not on the spinner's stack or in its TLS but in a table
 * indexed by TID, mapped once at setup and never freed, as the kernel's
 * nodes are per CPU: a successor may still read the node of a spinner
 * that passed it the turn and moved on, and that read must hit memory
 * that exists whatever that thread did meanwhile (exited, its stack
 * unmapped).  A node is reused by the next thread with the TID, as a
 * kernel node by the next spinner on the CPU.  Links are TIDs, 0 none.
 * The head publishes its TID (robust_next, below) so that an unlocker can
 * ask the running-state provider whether it runs.
 *
 * The protocol's waits on another thread (a successor that swapped the
 * tail but has not linked itself yet) are bounded in the kernel by
 * preemption being off; here that thread may be preempted, so the waiter
 * yields its CPU now and then, which lets it run if it waits there.
 *
 * Process-shared and robust mutexes cannot reach nodes of other
 * processes: they keep a bounded, unordered count of spinners in
 * m->spinner, with a time stamp so that the count of a process killed
 * while spinning lapses (below).
 *
 * Private, non-robust mutexes: m->spinner is the tail's TID (0: empty);
 * robust_next holds two u32 slots, [0] since when unlockers have been
 * passing sleepers over for spinners (cycles >> PASS_UNIT_SHIFT, 0: not),
 * [1] the head's TID (0: none).  A fork child's first slow path clears all
 * of it (claims.c).
 */
#include <sched.h>
#include <stdio.h>
#include <sys/mman.h>

#include "cycles.h"
#include "process_state.h"
#include "running_state.h"
#include "setup.h"
#include "slow_stats.h"
#include "spin.h"
#include "spinners.h"

/* ---- the queue's nodes ---- */

struct qnode {
	uint32_t next;		/* TID queued behind us, 0: none (yet) */
	uint32_t prev;		/* TID ahead of us, 0: we were first */
	uint32_t locked;	/* our turn: the one ahead passed it on */
	uint32_t depth;		/* our place when we joined: 1 the head */
};

static struct qnode *nodes;
static uint32_t nr_nodes;

/* Waits on another thread yield after this many reads. */
#define YIELD_EVERY	1024u

void uspin_spinners_setup(void)
{
	unsigned long pid_max = 0;
	FILE *f = fopen("/proc/sys/kernel/pid_max", "re");
	void *p;

	if (f) {
		if (fscanf(f, "%lu", &pid_max) != 1)
			pid_max = 0;
		fclose(f);
	}
	if (pid_max == 0 || pid_max > (1ul << 22))
		pid_max = 1ul << 22;	/* PID_MAX_LIMIT */
	/* Zero pages until a TID's node is first written. */
	p = mmap(NULL, pid_max * sizeof(struct qnode), PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		return;
	nodes = p;
	nr_nodes = (uint32_t)pid_max;
}

static inline struct qnode *node_of(uint32_t tid)
{
	return &nodes[tid];
}

static inline uint32_t *tail_of(uspin_mutex_t *m)
{
	return &m->spinner;
}

/* robust_next's two u32 slots (private, non-robust mutexes). */
static inline uint32_t *pass_slot(uspin_mutex_t *m)
{
	return (uint32_t *)(void *)&m->robust_next;
}

static inline uint32_t *head_slot(uspin_mutex_t *m)
{
	return (uint32_t *)(void *)&m->robust_next + 1;
}

static inline void wait_relax(unsigned int *n)
{
	if (++*n % YIELD_EVERY == 0)
		sched_yield();
	else
		caa_cpu_relax();
}

/*
 * osq_wait_next(): @tid leaves, as the head (@prev 0) or from the middle.
 * If it is the tail, move the tail back to @prev; otherwise wait for its
 * successor to link itself and return it (its ->next cleared).
 */
static uint32_t wait_next(uspin_mutex_t *m, uint32_t tid, uint32_t prev)
{
	struct qnode *node = node_of(tid);
	unsigned int n = 0;
	uint32_t next;

	for (;;) {
		if (CMM_LOAD_SHARED(*tail_of(m)) == tid &&
		    uatomic_cmpxchg(tail_of(m), tid, prev) == tid)
			return 0;	/* last: @prev sees the tail again */
		if (CMM_LOAD_SHARED(node->next)) {
			next = uatomic_xchg(&node->next, 0);
			if (next)
				return next;
		}
		wait_relax(&n);
	}
}

/* Hand the turn to @next: it is the head now, and says so. */
static void pass_turn(uint32_t next)
{
	cmm_smp_mb();	/* our view of the word before its turn (release) */
	CMM_STORE_SHARED(node_of(next)->locked, 1);
}

/* ---- the bounded count of shared mutexes ---- */

/*
 * m->spinner: bits 0-7 count the spin phases under way, at most
 * max_spinners; bits 8-31 hold when a spinner last entered or said it is
 * alive, in STAMP_UNITs of the cycle counter, so that the count of a
 * process killed while spinning lapses after STALE_AFTER instead of
 * keeping others from spinning.
 */
#define SPINNERS_MASK		0xffu
#define STAMP_SHIFT		8
#define STAMP_MASK		0xffffffu
#define STAMP_UNIT_SHIFT	14	/* 16384 cycles: ~5-8 us */
#define STALE_AFTER_US		1000000u
#define ALIVE_EVERY_US		(STALE_AFTER_US / 4)

static inline uint32_t spinners_of(uint32_t s)
{
	return s & SPINNERS_MASK;
}

static inline uint32_t stamp_of(uint32_t s)
{
	return s >> STAMP_SHIFT;
}

static uint32_t stamp_now(void)
{
	uint32_t st = (uint32_t)(uspin_cycles() >> STAMP_UNIT_SHIFT) & STAMP_MASK;

	return st ? st : 1;
}

/* Age of a non-zero stamp in cycles (the stamp wraps in minutes). */
static uint64_t stamp_age(uint32_t st)
{
	return (uint64_t)((stamp_now() - st) & STAMP_MASK) << STAMP_UNIT_SHIFT;
}

static inline uint64_t us_to_cycles(uint64_t us)
{
	return us * uspin_setup()->cycles_per_us;
}

static int count_enter(uspin_mutex_t *m)
{
	unsigned int max = uspin_setup()->max_spinners;
	uint32_t s = CMM_LOAD_SHARED(m->spinner), seen;

	for (;;) {
		uint32_t count = spinners_of(s), st = stamp_of(s);

		if (count && (!st || stamp_age(st) > us_to_cycles(STALE_AFTER_US)))
			count = 0;	/* spinners that died */
		if (count >= max)
			return 0;
		seen = uatomic_cmpxchg(&m->spinner, s,
				       stamp_now() << STAMP_SHIFT | (count + 1));
		if (seen == s)
			return 1;
		s = seen;
	}
}

/* Full barrier (a successful cmpxchg). */
static void count_leave(uspin_mutex_t *m)
{
	uint32_t s = CMM_LOAD_SHARED(m->spinner), seen;

	while (spinners_of(s)) {
		seen = uatomic_cmpxchg(&m->spinner, s, s - 1);
		if (seen == s)
			return;
		s = seen;
	}
	cmm_smp_mb();	/* a lapsed count was reset under us */
}

/* ---- a spin phase's place ---- */

enum uspin_spinner_state uspin_spinner_enter(struct uspin_spinner *sp,
					     uspin_mutex_t *m, uint32_t tid)
{
	struct qnode *node;
	uint32_t prev;

	sp->m = m;
	sp->tid = tid;
	sp->queued = mutex_has_claims(m);
	sp->alive = uspin_cycles();
	if (!sp->queued)
		return count_enter(m) ? SPINNER_HEAD : SPINNER_REFUSED;
	if (tid >= nr_nodes)
		return SPINNER_REFUSED;	/* no table, or pid_max grew */
	node = node_of(tid);
	CMM_STORE_SHARED(node->locked, 0);
	CMM_STORE_SHARED(node->next, 0);
	node->prev = 0;
	node->depth = 1;
	cmm_smp_mb();	/* the node is ready before it is reachable */
	prev = uatomic_xchg(tail_of(m), tid);
	if (!prev) {
		CMM_STORE_SHARED(*head_slot(m), tid);
		return SPINNER_HEAD;
	}
	/* @prev stays in the queue until we link (its wait_next()). */
	node->prev = prev;
	node->depth = node_of(prev)->depth + 1;
	cmm_smp_wmb();
	CMM_STORE_SHARED(node_of(prev)->next, tid);
	if (node->depth > uspin_setup()->max_spinners) {
		if (uspin_spinner_unqueue(sp))
			return SPINNER_HEAD;
		return SPINNER_REFUSED;
	}
	return SPINNER_QUEUED;
}

int uspin_spinner_turn(const struct uspin_spinner *sp)
{
	if (!CMM_LOAD_SHARED(node_of(sp->tid)->locked))
		return 0;
	cmm_smp_mb();	/* acquire: pairs with pass_turn() */
	CMM_STORE_SHARED(*head_slot(sp->m), sp->tid);
	return 1;
}

uint32_t uspin_spinner_ahead(const struct uspin_spinner *sp)
{
	return CMM_LOAD_SHARED(node_of(sp->tid)->prev);
}

/*
 * osq_lock()'s unqueue: leave before our turn.  1 if the turn came
 * meanwhile (we are the head, and must leave as one), 0 once out.
 */
int uspin_spinner_unqueue(struct uspin_spinner *sp)
{
	struct qnode *node = node_of(sp->tid);
	uint32_t prev = CMM_LOAD_SHARED(node->prev), next;
	unsigned int n = 0;

	/*
	 * A: undo prev->next = us, so that prev's leaving waits for a new
	 * ->next; failing it means prev is passing us the turn, or another
	 * unqueue (prev's) is rewriting our ->prev.
	 */
	for (;;) {
		if (CMM_LOAD_SHARED(node_of(prev)->next) == sp->tid &&
		    uatomic_cmpxchg(&node_of(prev)->next, sp->tid, 0) == sp->tid)
			break;
		if (uspin_spinner_turn(sp))
			return 1;
		wait_relax(&n);
		prev = CMM_LOAD_SHARED(node->prev);
	}
	/* B: our successor, or the tail moved back to prev. */
	next = wait_next(sp->m, sp->tid, prev);
	if (!next)
		return 0;
	/* C: prev waits for a ->next, next in its A: link them. */
	CMM_STORE_SHARED(node_of(next)->prev, prev);
	CMM_STORE_SHARED(node_of(prev)->next, next);
	return 0;
}

/*
 * The head leaves (osq_unlock()): the next spinner's turn, or an empty
 * queue.  A full barrier either way (pairs with uspin_pass_to_spinner()).
 */
void uspin_spinner_leave(struct uspin_spinner *sp)
{
	struct qnode *node;
	uint32_t next;

	if (!sp->queued) {
		count_leave(sp->m);
		return;
	}
	node = node_of(sp->tid);
	/* Nobody asks for us once the queue is empty or the turn moved on. */
	uatomic_cmpxchg(head_slot(sp->m), sp->tid, 0);
	if (uatomic_cmpxchg(tail_of(sp->m), sp->tid, 0) == sp->tid)
		return;
	next = uatomic_xchg(&node->next, 0);
	if (!next)
		next = wait_next(sp->m, sp->tid, 0);
	if (next)
		pass_turn(next);
}

uint32_t uspin_spinner_depth(uint32_t tid)
{
	return tid < nr_nodes ? CMM_LOAD_SHARED(node_of(tid)->depth) : 0;
}

/* A shared mutex's long spinner says it is alive (see STALE_AFTER_US). */
void uspin_spinner_alive(struct uspin_spinner *sp, uint64_t now)
{
	uint32_t s;

	if (sp->queued || now - sp->alive < us_to_cycles(ALIVE_EVERY_US))
		return;
	sp->alive = now;
	s = CMM_LOAD_SHARED(sp->m->spinner);
	if (spinners_of(s))
		uatomic_cmpxchg(&sp->m->spinner, s,
				stamp_now() << STAMP_SHIFT | spinners_of(s));
}

/* ---- the unlocker's side ---- */

#define PASS_UNIT_SHIFT	12	/* 4096 cycles: wraps after hours */

static uint32_t pass_now(void)
{
	uint32_t t = (uint32_t)(uspin_cycles() >> PASS_UNIT_SHIFT);

	return t ? t : 1;
}

/*
 * Called by the owner of a private mutex whose word has FUTEX_WAITERS set
 * (the handoff request and a dead owner are served before).  If a waiter
 * spins and runs, leave the word free with FUTEX_WAITERS, so the spinner
 * takes it and wakes a sleeper at its own unlock, instead of paying for a
 * wake-up now and a sleeper's late start.  Sleepers are passed over for at
 * most handoff_after at a time: then the normal path wakes one (or the
 * kernel hands the lock over), as a starving FUTEX_WAIT waiter would ask.
 *
 * Runs means: the provider says the head spinner is on a CPU.  A spinner
 * that is preempted (or a provider that cannot tell) gets nothing: the word
 * would lie free while it is off its CPU and the sleepers sleep.  Then the
 * normal path wakes a sleeper, and a spinner that runs may still take the
 * word first.  The stamp of robust_next is only ever touched by the owner.
 *
 * Shared and robust mutexes never pass: a spinner killed after the word
 * was left to it would leave the sleepers asleep on a free word.
 *
 * The store of the word and the read of the tail pair with the head's
 * leaving and its read of the word (uspin_spinner_leave(), then
 * uspin_spin()'s last look): either the unlocker sees the queue empty and
 * takes the word back to wake someone, or a spinner sees the word free
 * and takes it.
 */
int uspin_pass_to_spinner(uspin_mutex_t *m, uint32_t tid)
{
	uint32_t head = CMM_LOAD_SHARED(*head_slot(m));
	uint32_t since = CMM_LOAD_SHARED(*pass_slot(m)), now;

	if (!head || !CMM_LOAD_SHARED(*tail_of(m)) ||
	    uspin_rs_query(head) != USPIN_RS_ON) {
		if (since)
			CMM_STORE_SHARED(*pass_slot(m), 0);
		return 0;
	}
	now = pass_now();
	if (!since) {
		CMM_STORE_SHARED(*pass_slot(m), now);
	} else if ((uint64_t)(uint32_t)(now - since) << PASS_UNIT_SHIFT >=
		   uspin_setup()->handoff_after) {
		CMM_STORE_SHARED(*pass_slot(m), 0);
		return 0;
	}
	uatomic_xchg(&m->word, FUTEX_WAITERS);
	/* Every spinner left meanwhile: take the word back to wake someone. */
	if (!CMM_LOAD_SHARED(*tail_of(m)) &&
	    uatomic_cmpxchg(&m->word, FUTEX_WAITERS,
			    tid | FUTEX_WAITERS) == FUTEX_WAITERS)
		return 0;
	uspin_stats.passed_to_spinner++;
	return 1;
}
