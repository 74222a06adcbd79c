/*
 * uspin.pml - Spin model of the uspin lock-word protocol (design.md §2).
 *
 * Three threads (TIDs 1..3) each take and release one mutex K times.
 * The lock word holds the owner's TID in its low bits and FUTEX_WAITERS;
 * FUTEX_OWNER_DIED is not modelled (no thread dies).
 *
 * Atomicity: every access to the word is one atomic step (a load, a
 * cmpxchg that also returns the current value on failure, or an exchange).
 * Kernel code runs under the futex hash-bucket lock `hb`, which serialises
 * it against FUTEX_WAKE and other kernel lock/wait paths but NOT against
 * user-space accesses to the word, which may interleave between any two
 * kernel word accesses.  Taking/releasing `hb` is folded into the adjacent
 * kernel step; since only kernel code touches `hb` this is equivalent.
 * FUTEX_WAKE dequeues an arbitrary queued waiter (a superset of the
 * kernel's FIFO order).
 *
 * Configuration (cpp macros, given to `spin -D...`):
 *   SLOW_KERNEL    slow path A: the FUTEX_LOCK kernel op
 *   SLOW_WAIT      slow path B: stock-kernel fallback with FUTEX_WAIT
 *   SLOW_ADAPTIVE  slow path C: the FUTEX_LOCK_ADAPTIVE kernel op (a
 *                  kernel spin phase, then path A; a woken waiter whose
 *                  retry under hb fails spins once more before re-queueing)
 *                  (several: every slow-path entry picks one of them)
 *   TIMEOUTS       a sleeping waiter may time out and give up the iteration
 *   SEED_RULE      negative control: the 2010 seed's rule - the kernel
 *                  acquires with TID only even when others remain queued,
 *                  and the fallback acquires with TID only
 *   BAD_TIMEOUT    negative control: a waiter that was woken and then sees
 *                  its timeout returns ETIMEDOUT instead of retrying
 *   RESPIN_NO_W    (path C) the post-wake respin takes 0 -> tid keeping the
 *                  flag bits, without forcing WAITERS - still correct: the
 *                  failed retry under hb before it re-set WAITERS already
 *   RESPIN_FIRST   negative control (path C): a woken waiter spins before
 *                  its retry under hb (the 2010 seed's order); with
 *                  RESPIN_NO_W that take loses a wake-up
 *   NO_INV         leave out the invariant monitor (so that a lost wake-up
 *                  must show up as an invalid end state: a thread asleep
 *                  forever after all others finished)
 *   K              iterations per thread (default 2)
 */

#ifndef K
#define K 2
#endif
#if !defined(SLOW_KERNEL) && !defined(SLOW_WAIT) && !defined(SLOW_ADAPTIVE)
#define SLOW_KERNEL
#endif

#define TIDM	3	/* FUTEX_TID_MASK */
#define WBIT	4	/* FUTEX_WAITERS */

byte word;		/* the lock word */
bool hb;		/* futex hash-bucket lock */
bool queued[4];		/* on the futex queue, indexed by TID */
bool woken[4];		/* dequeued by FUTEX_WAKE, has not yet acquired or re-queued */
byte nq;		/* number of queued waiters */
byte pendwake;		/* unlockers between their exchange and their FUTEX_WAKE */
byte cs;		/* threads in the critical section */

#ifdef SEED_RULE
#define KERNEL_ACQ(me)	(me)
#define WAIT_ACQ(me)	(me)
#else
/* kernel: set WAITERS if futex_top_waiter() finds others queued */
#define KERNEL_ACQ(me)	((me) | (nq > 0 -> WBIT : 0))
/* fallback: a slow-path acquirer always sets WAITERS */
#define WAIT_ACQ(me)	((me) | WBIT)
#endif

#ifdef RESPIN_NO_W
#define RESPIN_W	0
#else
/* post-wake respin: it cannot see the queue, so it always sets WAITERS */
/* (a spare wake at worst; check.sh's respin-unforced shows it redundant) */
#define RESPIN_W	WBIT
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

proctype T(byte me)
{
	byte i;		/* iterations done */
	byte v;		/* last value read from the word */
	bool ok;
#ifdef SLOW_ADAPTIVE
	byte c;		/* path C: 0 not in C (or first spin not done yet),
			   1 in C, 2 woken (respin due if the retry fails),
			   3 post-wake respin */
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
	/* spin phase: 0 or 1 extra attempts while the TID part reads 0 */
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
	if
#ifdef SLOW_KERNEL
	:: goto pathA
#endif
#ifdef SLOW_WAIT
	:: goto pathB
#endif
#ifdef SLOW_ADAPTIVE
	:: goto pathC
#endif
	fi;

#ifdef SLOW_ADAPTIVE
	/*
	 * ---- slow path C: FUTEX_LOCK_ADAPTIVE ----
	 * Spin phase, not under hb: 0 or 1 attempts (the owner stops running
	 * or not), each a load and, if the TID part is 0, a cmpxchg
	 * v -> v|tid that keeps the flag bits; a post-wake respin (c == 3)
	 * adds WAITERS.  Then path A, remembering that we are in C.
	 */
pathC:
	if
	:: atomic { c = 1 }
	:: atomic { (word & TIDM) == 0 -> v = word } ->
		atomic {
			if
			:: word == v ->
				word = v | me | (c == 3 -> RESPIN_W : 0);
				woken[me] = 0; ok = 1
			:: else -> ok = 0
			fi;
			c = 1; v = 0
		}
		if
		:: ok -> goto acquired
		:: else
		fi
	fi;
#endif

	/* ---- slow path A: FUTEX_LOCK, all of it under hb ---- */
pathA:
	atomic { !hb -> hb = 1; v = word }
A_retry:				/* hb held, v = last read */
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
		:: else -> goto A_retry
		fi
	:: else ->
		if
		:: (v & WBIT) == 0 ->
			cas(v, v | WBIT);
			if
			:: !ok -> goto A_retry
			:: else
			fi
		:: else
		fi;
#ifdef SLOW_ADAPTIVE
		/*
		 * C: woken, retried under hb, lost (WAITERS is set now, so the
		 * woken state ends here): drop hb, spin once more.  Not after a
		 * timeout: the kernel returns ETIMEDOUT before this point.
		 */
		if
		:: atomic { c == 2 -> c = 3; woken[me] = 0; hb = 0; v = 0 };
			goto pathC
		:: else
		fi;
#endif
		/* futex_queue(), drop hb, schedule() */
		atomic { queued[me] = 1; nq++; woken[me] = 0; hb = 0; v = 0 }
		if
#ifdef SLOW_ADAPTIVE
		:: atomic { !queued[me] && c == 0 } ->	/* woken: retry */
			goto pathA
#ifdef RESPIN_FIRST
		:: atomic { !queued[me] && c != 0 -> c = 3 } ->
			goto pathC	/* spin first, then retry */
#else
		:: atomic { !queued[me] && c != 0 -> c = 2 } ->
			goto pathA	/* retry, then maybe respin */
#endif
#else
		:: !queued[me] ->		/* woken: retry */
			goto pathA
#endif
#ifdef TIMEOUTS
		:: atomic {			/* timer fired: take hb */
			!hb -> hb = 1;
			if
			:: queued[me] ->	/* still queued: unqueue, ETIMEDOUT */
				queued[me] = 0; nq--; hb = 0; ok = 1
#ifdef BAD_TIMEOUT
			:: else -> woken[me] = 0; hb = 0; ok = 1
#else
			:: else -> v = word; ok = 0	/* woken: retry, hb held */
#endif
			fi
		   }
		   if
		   :: ok -> goto gaveup
		   :: else -> goto A_retry
		   fi
#endif
		fi
	fi;

	/* ---- slow path B: stock-kernel fallback with FUTEX_WAIT ---- */
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
		atomic { queued[me] = 1; nq++; woken[me] = 0; hb = 0; v = 0 }
		if
		:: !queued[me] ->		/* woken: loop */
			goto pathB
#ifdef TIMEOUTS
		:: atomic {
			!hb -> hb = 1;
			if
			:: queued[me] ->
				queued[me] = 0; nq--; ok = 1
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
#ifdef SLOW_ADAPTIVE
	atomic { v = 0; c = 0 };
#else
	v = 0;
#endif
	cs++;
	assert(cs == 1);			/* mutual exclusion */
	assert((word & TIDM) == me);
	cs--;

	/* unlock: cmpxchg tid -> 0; if WAITERS was set, exchange 0 and wake one */
	cas(me, 0);
	if
	:: ok
	:: else ->
		atomic { word = 0; pendwake++ }
		atomic {			/* FUTEX_WAKE(1) under hb */
			!hb ->
			if
			:: queued[1] -> queued[1] = 0; woken[1] = 1; nq--
			:: queued[2] -> queued[2] = 0; woken[2] = 1; nq--
			:: queued[3] -> queued[3] = 0; woken[3] = 1; nq--
			:: nq == 0
			fi;
			pendwake--
		}
	fi;
gaveup:
	atomic {
		i++; v = 0; ok = 0;
#ifdef SLOW_ADAPTIVE
		c = 0
#endif
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
 *    (it will re-set WAITERS before sleeping or acquiring).
 */
active proctype monitor()
{
end:	atomic {
		(((word & TIDM) == 0 && word != 0) ||
		 (nq > 0 && (word & WBIT) == 0 && pendwake == 0 &&
		  !woken[1] && !woken[2] && !woken[3])) ->
		assert(false)
	}
}
#endif

init
{
	atomic { run T(1); run T(2); run T(3) }
}
