/*
 * uspin.pml - Spin model of the uspin lock-word protocol (docs/design.md §10) and
 * of the kernel's FUTEX_LOCK / FUTEX_LOCK_ADAPTIVE / FUTEX_UNLOCK rules
 * (kernel/patches/futex, series A v2).
 *
 * Three threads (TIDs 1..3) each take and release one mutex K times.
 * The lock word holds the owner's TID in its low bits and FUTEX_WAITERS;
 * FUTEX_OWNER_DIED is not modelled (no thread dies).
 *
 * Atomicity: every access to the word is one atomic step (a load, a
 * cmpxchg that also returns the current value on failure, or an exchange).
 * Kernel code runs under the futex hash-bucket lock `hb`, which serialises
 * it against FUTEX_WAKE, FUTEX_UNLOCK and other kernel lock/wait paths but
 * NOT against user-space accesses to the word, which may interleave between
 * any two kernel word accesses.  Taking/releasing `hb` is folded into the
 * adjacent kernel step; since only kernel code touches `hb` this is
 * equivalent.  The futex queue is FIFO (q[0] is the top waiter, as for
 * same-priority tasks on the kernel's plist); plain FUTEX_WAKE dequeues an
 * arbitrary waiter (a superset of the kernel's order).
 *
 * Slow paths (cpp macros, given to `spin -D...`; several: every slow-path
 * entry picks one of them):
 *   SLOW_KERNEL    path A, FUTEX_LOCK: under hb, take 0 -> tid (WAITERS if
 *                  others are queued), else set WAITERS and queue at the
 *                  tail.  A waiter woken by FUTEX_WAKE (dequeued) retries
 *                  from the start; one woken by FUTEX_UNLOCK stays queued
 *                  and retries in place; a failed retry after a
 *                  FUTEX_UNLOCK wake-up makes it starving.
 *   SLOW_WAIT      path B: the stock-kernel fallback with FUTEX_WAIT (also
 *                  what a condvar waiter requeued onto the word is): a
 *                  plain waiter, which FUTEX_UNLOCK wakes and never hands
 *                  the word to.
 *   SLOW_ADAPTIVE  path C, FUTEX_LOCK_ADAPTIVE: if the one spinner slot is
 *                  free, a spin phase not under hb (0 or 1 attempts: load,
 *                  and if the TID part is 0, cmpxchg v -> v|tid keeping the
 *                  flag bits), then path A.  Woken waiters never spin again.
 * Unlocks (user space first tries cmpxchg tid -> 0; if WAITERS is set):
 *   UNLOCK_LEGACY  xchg 0, then FUTEX_WAKE(1)
 *   UNLOCK_KERNEL  FUTEX_UNLOCK, under hb: a starving FUTEX_LOCK top waiter
 *                  is handed the lock (word = its tid | WAITERS if others
 *                  remain; dequeued); another FUTEX_LOCK top waiter: word
 *                  0, woken, stays queued; a plain top waiter: word 0,
 *                  dequeued and woken; none: word 0.
 *                  (neither defined: both, each unlock picks one)
 * Other options:
 *   TIMEOUTS       a waiter's timer may fire; it retries before it leaves
 *   EXPIRED        a FUTEX_LOCK call may come with a deadline that has
 *                  passed: one attempt under hb, never queues, never
 *                  touches an owned word
 *   FAIR           assert the anti-starvation bound: a FUTEX_LOCK waiter
 *                  fails at most one retry after a FUTEX_UNLOCK wake-up
 *                  (meaningful with UNLOCK_KERNEL only and no TIMEOUTS)
 *   K              iterations per thread (default 2)
 *   NO_INV         leave out the invariant monitor (so that a lost wake-up
 *                  must show up as an invalid end state: a thread asleep
 *                  forever after all others finished)
 * Negative controls (Spin must find the error):
 *   SEED_RULE      the 2010 seed's rule: acquire with TID only even when
 *                  others remain queued (kernel and fallback)
 *   BAD_TIMEOUT    a woken waiter that sees its timeout leaves without
 *                  retrying
 *   NO_HANDOFF     FUTEX_UNLOCK never hands over (FAIR must fail)
 *   HANDOFF_NO_W   the handed word lacks WAITERS while others remain
 */

#ifndef K
#define K 2
#endif
#if !defined(SLOW_KERNEL) && !defined(SLOW_WAIT) && !defined(SLOW_ADAPTIVE)
#define SLOW_KERNEL
#endif
#if !defined(UNLOCK_LEGACY) && !defined(UNLOCK_KERNEL)
#define UNLOCK_LEGACY
#define UNLOCK_KERNEL
#endif

#define TIDM	3	/* FUTEX_TID_MASK */
#define WBIT	4	/* FUTEX_WAITERS */

byte word;		/* the lock word */
bool hb;		/* futex hash-bucket lock */
byte q[3];		/* the futex queue, FIFO: q[0] is the top waiter */
byte qlen;
bool queued[4];		/* in q, indexed by TID */
bool lockw[4];		/* queued by FUTEX_LOCK (else FUTEX_WAIT) */
bool woken[4];		/* dequeued by a wake-up, has not yet retried */
bool wokenq[4];		/* woken by FUTEX_UNLOCK while queued, not yet retried */
bool starving[4];	/* FUTEX_LOCK waiter that lost after a wake-up */
bool handed[4];		/* FUTEX_UNLOCK handed it the lock */
byte spinner;		/* the one FUTEX_LOCK_ADAPTIVE spinner, or 0 */
byte pendwake;		/* legacy unlockers between their exchange and FUTEX_WAKE */
byte cs;		/* threads in the critical section */
byte k_;		/* scratch for deq() */

#ifdef SEED_RULE
#define KERNEL_ACQ(me)	(me)
#define WAIT_ACQ(me)	(me)
#else
/* kernel: WAITERS if another waiter is queued (the caller is not, here) */
#define KERNEL_ACQ(me)	((me) | (qlen > 0 -> WBIT : 0))
/* fallback: a slow-path acquirer always sets WAITERS */
#define WAIT_ACQ(me)	((me) | WBIT)
#endif

#ifdef HANDOFF_NO_W
#define HANDOFF_W	0
#else
#define HANDOFF_W	(qlen > 0 -> WBIT : 0)
#endif

/* cmpxchg(word, old, new): ok tells success; on failure v = current value */
inline cas(old, new) {
	atomic {
		if
		:: word == old -> word = new; ok = 1
		:: else -> ok = 0; v = word
		fi
	}
}

inline enq(t, lock) {
	q[qlen] = t; qlen++; queued[t] = 1; lockw[t] = lock
}

/* remove t from the queue, keeping the order of the others */
inline deq(t) {
	k_ = 0;
	do
	:: k_ < qlen && q[k_] != t -> k_++
	:: else -> break
	od;
	do
	:: k_ + 1 < qlen -> q[k_] = q[k_ + 1]; k_++
	:: else -> break
	od;
	q[qlen - 1] = 0; qlen--; queued[t] = 0; k_ = 0
}

/* plain FUTEX_WAKE(1) under hb: any queued waiter (or none) */
inline futex_wake1() {
	if
	:: queued[1] -> deq(1); woken[1] = 1; wokenq[1] = 0
	:: queued[2] -> deq(2); woken[2] = 1; wokenq[2] = 0
	:: queued[3] -> deq(3); woken[3] = 1; wokenq[3] = 0
	:: qlen == 0
	fi
}

/* FUTEX_UNLOCK under hb, by the owner */
inline futex_unlock() {
	if
	:: qlen == 0 -> word = 0
#ifndef NO_HANDOFF
	:: qlen > 0 && lockw[q[0]] && starving[q[0]] ->
		t_ = q[0]; deq(t_);
		word = t_ | HANDOFF_W;
		handed[t_] = 1; starving[t_] = 0; wokenq[t_] = 0; t_ = 0
	:: qlen > 0 && lockw[q[0]] && !starving[q[0]] ->
#else
	:: qlen > 0 && lockw[q[0]] ->
#endif
		word = 0; wokenq[q[0]] = 1
	:: qlen > 0 && !lockw[q[0]] ->
		t_ = q[0]; deq(t_); word = 0; woken[t_] = 1; t_ = 0
	fi
}

proctype T(byte me)
{
	byte i;		/* iterations done */
	byte v;		/* last value read from the word */
	byte t_;	/* scratch */
	bool ok;
	bool wk;	/* a wake-up was lost: queue starving */
	bool exp;	/* this call's deadline has passed already */
	bool to;	/* the timer fired */
#ifdef FAIR
	byte losses;	/* failed retries after FUTEX_UNLOCK wake-ups */
#define LOSSES_RESET	; losses = 0
#else
#define LOSSES_RESET
#endif

top:
	if
	:: i == K -> goto finish
	:: else
	fi;

	/* lock fast path: cmpxchg 0 -> tid */
	cas(0, me);
	if
	:: ok -> goto acquired
	:: else
	fi;
	/* user-space spin phase: 0 or 1 extra attempts while the TID part reads 0 */
	if
	:: skip
	:: (word & TIDM) == 0 ->
		cas(0, me);
		if
		:: ok -> goto acquired
		:: else
		fi
	fi;
	v = 0;
#ifdef EXPIRED
	if
	:: exp = 1
	:: skip
	fi;
#endif
	if
#ifdef SLOW_KERNEL
	:: goto pathA
#endif
#ifdef SLOW_WAIT
	:: exp = 0; goto pathB
#endif
#ifdef SLOW_ADAPTIVE
	:: goto pathC
#endif
	fi;

#ifdef SLOW_ADAPTIVE
	/*
	 * ---- slow path C: FUTEX_LOCK_ADAPTIVE ----
	 * The spin phase, only for the task that gets the spinner slot and
	 * not with a passed deadline: 0 or 1 attempts, not under hb.
	 */
pathC:
	if
	:: atomic { !exp && spinner == 0 -> spinner = me } ->
		if
		:: skip
		:: atomic { (word & TIDM) == 0 -> v = word } ->
			atomic {
				if
				:: word == v -> word = v | me; ok = 1
				:: else -> ok = 0
				fi;
				v = 0
			}
			if
			:: ok -> atomic { assert(spinner == me); spinner = 0 }; goto acquired
			:: else
			fi
		fi;
		atomic { assert(spinner == me); spinner = 0 }
	:: skip
	fi;
#endif

	/* ---- slow path A: FUTEX_LOCK; first attempt, not queued ---- */
pathA:
	atomic { !hb -> hb = 1; v = word }
A_try:					/* hb held, v = last read */
	if
	:: (v & TIDM) == 0 ->
		atomic {
			if
			:: word == v ->
				word = KERNEL_ACQ(me); woken[me] = 0; hb = 0; ok = 1
			:: else -> ok = 0; v = word
			fi
		}
		if
		:: ok -> goto acquired
		:: else -> goto A_try
		fi
	:: else ->
		/* a passed deadline: a trylock, the word is left alone */
		if
		:: exp -> atomic { woken[me] = 0; hb = 0; v = 0 }; goto gaveup
		:: else
		fi;
		if
		:: (v & WBIT) == 0 ->
			cas(v, v | WBIT);
			if
			:: !ok -> goto A_try
			:: else
			fi
		:: else
		fi;
#ifdef TIMEOUTS
		/* the timer has fired (also after a wake-up): leave, WAITERS set */
		if
		:: atomic { woken[me] = 0; hb = 0; v = 0 }; goto gaveup
		:: skip
		fi;
#endif
		/* queue at the tail; starving if it lost a wake-up already */
		atomic {
			enq(me, 1); starving[me] = wk; woken[me] = 0; hb = 0; v = 0
		}
	fi;

A_sleep:
	if
	:: atomic { !queued[me] && handed[me] -> handed[me] = 0 } ->
		goto acquired
	:: atomic { !queued[me] && !handed[me] } ->	/* FUTEX_WAKE: retry */
		wk = 1;
		goto pathA
	:: atomic { queued[me] && wokenq[me] && !hb -> hb = 1; v = word } ->
		goto A_qretry
#ifdef TIMEOUTS
	:: atomic { queued[me] && !hb -> hb = 1; v = word; to = 1 } ->
		goto A_qretry
#endif
#ifdef BAD_TIMEOUT
	:: atomic { (woken[me] || wokenq[me]) && !hb ->	/* no retry */
		if
		:: queued[me] -> deq(me)
		:: else
		fi;
		woken[me] = 0; wokenq[me] = 0; starving[me] = 0; to = 0 } ->
		goto gaveup
#endif
	fi;

	/* ---- retry in place, still queued, hb held ---- */
A_qretry:
	if
	:: (v & TIDM) == 0 ->
		atomic {
			if
			:: word == v ->
				deq(me); word = KERNEL_ACQ(me);
				wokenq[me] = 0; starving[me] = 0; hb = 0; ok = 1
			:: else -> ok = 0; v = word
			fi
		}
		if
		:: ok -> goto acquired
		:: else -> goto A_qretry
		fi
	:: else ->
		if
		:: (v & WBIT) == 0 ->
			cas(v, v | WBIT);
			if
			:: !ok -> goto A_qretry
			:: else
			fi
		:: else
		fi;
		atomic {
			if
			:: wokenq[me] ->	/* lost after a FUTEX_UNLOCK wake-up */
				wokenq[me] = 0; starving[me] = 1
#ifdef FAIR
				; losses++; assert(losses <= 1)
#endif
			:: else
			fi;
			v = 0
		}
		if
		:: atomic { to -> deq(me); starving[me] = 0; hb = 0 } ->
			goto gaveup
		:: atomic { !to -> hb = 0 } ->
			goto A_sleep
		fi
	fi;

	/* ---- slow path B: FUTEX_WAIT, a plain waiter ---- */
pathB:
	v = word;
B_check:
	if
	:: (v & TIDM) == 0 ->
		atomic {
			if
			:: word == v ->
				word = WAIT_ACQ(me); woken[me] = 0; ok = 1
			:: else -> ok = 0; v = word
			fi
		}
		if
		:: ok -> goto acquired
		:: else -> goto B_check
		fi
	:: else ->
		if
		:: (v & WBIT) == 0 ->
			cas(v, v | WBIT);
			if
			:: !ok -> goto B_check
			:: else
			fi
		:: else
		fi;
		/* FUTEX_WAIT(word, v | WAITERS): take hb, compare ... */
		atomic {
			!hb -> hb = 1;
			if
			:: word == (v | WBIT) -> ok = 1
			:: else -> ok = 0; hb = 0		/* EAGAIN */
			fi
		}
		if
		:: !ok -> goto pathB
		:: else
		fi;
		/* ... futex_queue(), drop hb, schedule() */
		atomic { enq(me, 0); woken[me] = 0; hb = 0; v = 0 }
		if
		:: !queued[me] ->		/* woken: loop */
			goto pathB
#ifdef TIMEOUTS
		:: atomic {
			!hb -> hb = 1;
			if
			:: queued[me] -> deq(me); ok = 1
#ifdef BAD_TIMEOUT
			:: else -> woken[me] = 0; ok = 1
#else
			:: else -> ok = 0
#endif
			fi;
			hb = 0
		   }
		   if
		   :: ok -> goto gaveup
		   :: else -> goto pathB
		   fi
#endif
		fi
	fi;

acquired:
	atomic { v = 0; wk = 0; exp = 0; to = 0 LOSSES_RESET };
	cs++;
	assert(cs == 1);			/* mutual exclusion */
	assert((word & TIDM) == me);
	cs--;

	/* unlock: cmpxchg tid -> 0; if WAITERS was set, the slow path */
	cas(me, 0);
	if
	:: ok
	:: else ->
		if
#ifdef UNLOCK_LEGACY
		:: atomic { word = 0; pendwake++ }
		   atomic { !hb -> futex_wake1(); pendwake-- }
#endif
#ifdef UNLOCK_KERNEL
		:: atomic { !hb -> assert((word & TIDM) == me); futex_unlock() }
#endif
		fi
	fi;
gaveup:
	atomic {
		i++; v = 0; ok = 0; wk = 0; exp = 0; to = 0 LOSSES_RESET
	}
	goto top;
finish:
	skip
}

#ifndef NO_INV
/*
 * Invariants, checked in every reachable state:
 *  - a free word is 0 (WAITERS is never left set without an owner), so the
 *    user-space cmpxchg 0 -> tid never loses the bit;
 *  - no lost wake-up: if a waiter is queued, then WAITERS is set, or an
 *    unlocker is about to FUTEX_WAKE, or a woken thread is about to retry
 *    (it will re-set WAITERS before sleeping or acquiring);
 *  - a task handed the lock is named by the word.
 */
active proctype monitor()
{
end:	atomic {
		(((word & TIDM) == 0 && word != 0) ||
		 (qlen > 0 && (word & WBIT) == 0 && pendwake == 0 &&
		  !woken[1] && !woken[2] && !woken[3] &&
		  !wokenq[1] && !wokenq[2] && !wokenq[3]) ||
		 (handed[1] && (word & TIDM) != 1) ||
		 (handed[2] && (word & TIDM) != 2) ||
		 (handed[3] && (word & TIDM) != 3)) ->
		assert(false)
	}
}
#endif

init
{
	atomic { run T(1); run T(2); run T(3) }
}
