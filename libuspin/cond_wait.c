// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * cond_wait.c - wait, timedwait, clockwait.
 *
 * A waiter joins G2 under the internal lock (that is what makes it
 * "waiting" for a signal that comes after it), releases the mutex, and
 * sleeps on its group's seq[] word until that word moves.  Then, under
 * the lock, it takes a signal if one is there for it (its generation is
 * older than G1, or it is in G1 and a signal is pending), or leaves on a
 * timeout, or sleeps again.  A taken signal is final: the wait returns 0
 * even if its deadline passed meanwhile, so no signal is ever lost to a
 * timeout.
 *
 * The sleep is a cancellation point: asynchronous cancellation is enabled
 * around the futex call only, and the cleanup handler does what a timeout
 * does, except that a signal it took is passed on (the cancelled thread
 * must not consume it), and re-acquires the mutex before the application's
 * cleanup handlers run.
 *
 * A waiter may wake on the mutex word instead of seq[]: a signaller that
 * held the mutex requeued it there.  It re-acquires the mutex with
 * FUTEX_WAITERS set (others may still sleep there), and if it finds no
 * signal for it (another waiter of its group took it), it passes the
 * mutex's wake-up on before it sleeps again.
 */
#include <pthread.h>

#include "cond_impl.h"
#include "mutex_flags.h"
#include "mutex_slow.h"

struct cond_waiter {
	uspin_cond_t *c;
	struct uspin_cond_mutex *cm;
	uint64_t gen;		/* the generation we joined */
	unsigned int slot;	/* seq[slot] is our futex word */
	int shared;		/* its futex flavour */
	int requeuable;		/* we may be requeued onto cm->m */
	uint32_t seq;		/* the value we sleep on */
	unsigned int duty;	/* a broadcast's requeue we took over */
};

/* Under the lock: is there a signal for generation @g?  Takes it. */
static int take_signal(uspin_cond_t *c, uint64_t g)
{
	if (g + 2 <= c->gen)
		return 1;		/* our group was signalled in full */
	if (g + 1 == c->gen && c->g1_pending) {
		c->g1_pending--;
		return 1;
	}
	return 0;
}

/* Under the lock: leave without a signal (timeout, cancellation). */
static void leave(uspin_cond_t *c, uint64_t g)
{
	if (g + 1 == c->gen)
		c->g1_unsignalled--;	/* >= 1: no signal was pending */
	else
		c->g2_size--;
}

/*
 * Under the lock, after taking a signal: a broadcast's duty, if any.
 * With waiters of different mutexes inside, it is done by waking them.
 */
static void take_duty(uspin_cond_t *c, struct cond_waiter *w)
{
	w->duty = c->state & STATE_DUTY_MASK;
	c->state &= ~STATE_DUTY_MASK;
	if (c->state & STATE_MIXED)
		w->requeuable = 0;
}

static void join(struct cond_waiter *w)
{
	uspin_cond_t *c = w->c;
	uspin_mutex_t *m = w->cm->m;
	int pshared = cond_pshared(c);
	uint32_t want = 0, st;

	if (pshared || (m && mutex_futex_shared(m)))
		want |= STATE_FUTEX_SHARED;
	/*
	 * Never onto a process-shared mutex (issue 25): a requeued waiter
	 * sleeps on its word outside any lock call, so if its process is
	 * killed after an unlock woke it, the wake-up dies with it and the
	 * other processes' waiters sleep on.  Woken here instead, it relocks
	 * inside the lock call, where list_op_pending passes it on.
	 */
	if (m && !(mutex_flags(m) & USPIN_PROCESS_SHARED))
		want |= STATE_REQUEUE_OK;

	cond_lock(c);
	st = c->state;
	if (cond_members(c) == 0) {
		/* Nobody inside: we set what the next waiters must match. */
		st = want;
		c->mutex = pshared ? NULL : m;
	} else if (!pshared && (c->mutex != m ||
				(st & STATE_REQUEUE_OK) != (want & STATE_REQUEUE_OK))) {
		st |= STATE_MIXED;	/* no requeue until everybody left */
	}
	c->state = st;
	w->shared = (st & STATE_FUTEX_SHARED) != 0;
	w->requeuable = (want & STATE_REQUEUE_OK) &&
			!w->shared == !mutex_futex_shared(m);
	w->gen = c->gen;
	w->slot = (unsigned int)w->gen & 1;
	w->seq = c->seq[w->slot];
	c->g2_size++;
	uatomic_add(&c->wrefs, COND_REF);
	cond_unlock(c);
}

/* The futex sleep, a cancellation point. */
static int sleep_cancelable(uint32_t *word, uint32_t val, int shared,
			    clockid_t clock, const struct timespec *abstime)
{
	int old, r;

	/* The kernel refuses negative times; they are long past. */
	if (abstime && abstime->tv_sec < 0)
		return ETIMEDOUT;
	pthread_setcanceltype(PTHREAD_CANCEL_ASYNCHRONOUS, &old);
	r = futex_wait_abs(word, val, shared, USPIN_WAKE_NORMAL, clock, abstime);
	pthread_setcanceltype(old, NULL);
	return r;
}

/*
 * Sleep until signalled (0, with the lock held) or timed out (ETIMEDOUT,
 * with the lock held and the group left).
 */
static int wait_for_signal(struct cond_waiter *w, clockid_t clock,
			   const struct timespec *abstime)
{
	uspin_cond_t *c = w->c;
	int r;

	for (;;) {
		r = sleep_cancelable(&c->seq[w->slot], w->seq, w->shared,
				     clock, abstime);
		cond_lock(c);
		if (take_signal(c, w->gen))
			return 0;
		if (r == ETIMEDOUT) {
			leave(c, w->gen);
			return ETIMEDOUT;
		}
		w->seq = c->seq[w->slot];
		cond_unlock(c);
		/*
		 * Woken, but not for us: if it was on the mutex word, the
		 * unlocker meant to wake somebody who takes the mutex.
		 */
		if (r == 0 && w->requeuable)
			futex_wake(&w->cm->m->word, 1, mutex_futex_shared(w->cm->m));
	}
}

/* After the mutex is ours again (or could not be had: @e). */
static void finish_duty(struct cond_waiter *w, int e)
{
	uspin_mutex_t *m = w->cm->m;

	if (!w->duty)
		return;
	if (!w->requeuable || (e != 0 && e != EOWNERDEAD) ||
	    !uspin_mutex_owned(m))
		m = NULL;
	uspin_cond_do_duty(w->c, w->duty, m, w->shared);
}

/* Cancelled while asleep: leave like a timeout, pass a signal on, relock. */
static void cancel_cleanup(void *arg)
{
	struct cond_waiter *w = arg;
	uspin_cond_t *c = w->c;
	int took;

	cond_lock(c);
	took = take_signal(c, w->gen);
	if (took)
		take_duty(c, w);
	else
		leave(c, w->gen);
	cond_unlock(c);
	if (took)
		uspin_cond_signal_internal(c);
	finish_duty(w, w->cm->reacquire(w->cm));
	cond_unref(c);
}

/* glibc's order: the time first, then the clock (then the caller's mutex). */
int uspin_cond_check_time(clockid_t clock, const struct timespec *abstime)
{
	if (abstime && (abstime->tv_nsec < 0 || abstime->tv_nsec >= 1000000000L))
		return EINVAL;
	return uspin_clock_supported(clock) ? 0 : EINVAL;
}

clockid_t uspin_cond_clock(const uspin_cond_t *c)
{
	return CMM_LOAD_SHARED(c->wrefs) & COND_MONOTONIC ? CLOCK_MONOTONIC :
							    CLOCK_REALTIME;
}

int uspin_cond_wait_common(uspin_cond_t *c, struct uspin_cond_mutex *cm,
			   clockid_t clock, const struct timespec *abstime)
{
	struct cond_waiter w = { .c = c, .cm = cm };
	int result, e;

	join(&w);
	e = cm->release(cm);
	if (caa_unlikely(e)) {
		/* Not ours to release: leave; pass on a signal we got. */
		int took;

		cond_lock(c);
		took = take_signal(c, w.gen);
		if (!took)
			leave(c, w.gen);
		else
			take_duty(c, &w);
		cond_unlock(c);
		if (took)
			uspin_cond_signal_internal(c);
		if (w.duty)
			uspin_cond_do_duty(c, w.duty, NULL, w.shared);
		cond_unref(c);
		return e;
	}

	pthread_cleanup_push(cancel_cleanup, &w);
	result = wait_for_signal(&w, clock, abstime);
	pthread_cleanup_pop(0);
	if (result == 0)
		take_duty(c, &w);
	cond_unlock(c);

	if (!w.duty)
		cond_unref(c);
	e = cm->reacquire(cm);
	if (w.duty) {
		finish_duty(&w, e);
		cond_unref(c);
	}
	return e ? e : result;
}

/* ---- the uspin API: the mutex is a uspin mutex the caller owns ---- */

static int release_uspin(struct uspin_cond_mutex *cm)
{
	return uspin_mutex_unlock(cm->m);
}

static int reacquire_uspin(struct uspin_cond_mutex *cm)
{
	return uspin_lock_as_woken(cm->m, USPIN_MODE_ERRORCHECK, CLOCK_MONOTONIC,
				   NULL);
}

int uspin_cond_clockwait(uspin_cond_t *c, uspin_mutex_t *m, clockid_t clock,
			 const struct timespec *abstime)
{
	struct uspin_cond_mutex cm = {
		.m = m, .release = release_uspin, .reacquire = reacquire_uspin,
	};
	int r;

	if (!c || !m || !abstime)
		return EINVAL;
	if (!uspin_mutex_owned(m))
		return EPERM;
	r = uspin_cond_check_time(clock, abstime);
	if (r)
		return r;
	return uspin_cond_wait_common(c, &cm, clock, abstime);
}

int uspin_cond_timedwait(uspin_cond_t *c, uspin_mutex_t *m,
			 const struct timespec *abstime)
{
	if (!c)
		return EINVAL;
	return uspin_cond_clockwait(c, m, uspin_cond_clock(c), abstime);
}

int uspin_cond_wait(uspin_cond_t *c, uspin_mutex_t *m)
{
	struct uspin_cond_mutex cm = {
		.m = m, .release = release_uspin, .reacquire = reacquire_uspin,
	};

	if (!c || !m)
		return EINVAL;
	if (!uspin_mutex_owned(m))
		return EPERM;
	return uspin_cond_wait_common(c, &cm, CLOCK_REALTIME, NULL);
}
