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
 *                  (both: every slow-path entry picks A or B)
 *   TIMEOUTS       a sleeping waiter may time out and give up the iteration
 *   SEED_RULE      negative control: the 2010 seed's rule - the kernel
 *                  acquires with TID only even when others remain queued,
 *                  and the fallback acquires with TID only
 *   BAD_TIMEOUT    negative control: a waiter that was woken and then sees
 *                  its timeout returns ETIMEDOUT instead of retrying
 *   NO_INV         leave out the invariant monitor (so that a lost wake-up
 *                  must show up as an invalid end state: a thread asleep
 *                  forever after all others finished)
 *   K              iterations per thread (default 2)
 */

#ifndef K
#define K 2
#endif
#if !defined(SLOW_KERNEL) && !defined(SLOW_WAIT)
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
#if defined(SLOW_KERNEL) && defined(SLOW_WAIT)
	if
	:: goto pathA
	:: goto pathB
	fi;
#elif defined(SLOW_KERNEL)
	goto pathA;
#else
	goto pathB;
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
		/* futex_queue(), drop hb, schedule() */
		atomic { queued[me] = 1; nq++; woken[me] = 0; hb = 0; v = 0 }
		if
		:: !queued[me] ->		/* woken: retry */
			goto pathA
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
	v = 0;
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
	atomic { i++; v = 0; ok = 0 }
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
