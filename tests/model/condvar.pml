/*
 * condvar.pml - Spin model of uspin_cond_t (docs/condvar.md) together
 * with the uspin mutex it requeues waiters onto.
 *
 * Threads: NW waiters (TIDs 1..NW) and signallers (the others, up to
 * TID 3).  A waiter, KW times (waiter 2: KW2): lock; while no token:
 * cond_wait; take a token; unlock.  A signaller, KS times: lock; add a
 * token; signal or broadcast, inside the mutex or after unlocking it.
 * There are as many tokens as waiters want, so a lost wake-up leaves a
 * waiter asleep forever: an invalid end state.
 *
 * The condvar's bookkeeping runs under its internal lock, which is held
 * for a few instructions and never across a futex call: each critical
 * section is one atomic step here.  Futex calls are atomic with respect
 * to each other (the hash-bucket lock) but not to the user-space word
 * accesses around them.  A futex queue is modelled by fq[t], the word
 * thread t sleeps on (FM the mutex word, FS0 + i the condvar's seq[i]):
 * FUTEX_WAKE and FUTEX_CMP_REQUEUE pick any sleeper of the word (a
 * superset of the kernel's FIFO), a requeued waiter keeps sleeping on the
 * mutex word and is woken there like any mutex waiter.
 *
 * The mutex is uspin's stock-kernel protocol (tests/model/uspin.pml path
 * B): cmpxchg 0 -> tid, one spin attempt, then set FUTEX_WAITERS and
 * FUTEX_WAIT; a slow-path acquisition takes tid|WAITERS; unlock is
 * cmpxchg tid -> 0, else exchange 0 and FUTEX_WAKE(1).  With
 * -DKERNEL_LOCK the slow path is FUTEX_LOCK instead (under the bucket
 * lock: take with WAITERS if anyone, requeued waiters included, still
 * sleeps on the word).  A condvar waiter re-acquires with WAITERS forced.
 *
 * Configuration:
 *   NW, KW, KW2, KS  waiters (1-3), waits of waiter 1 and of the others,
 *                 signals per signaller
 *   TIMEOUTS      a sleeping waiter may time out (it then waits again)
 *   CANCEL        waiter 1 may be cancelled once, asleep or right after
 *                 its futex call returned; it then leaves (cleanup
 *                 handler: leave or pass its signal on, re-acquire,
 *                 unlock) and wants no more tokens, so the signaller
 *                 stops one signal earlier (if it has not finished):
 *                 a signal the cancelled waiter kept is then missed
 *   SHARED        a process-shared condvar: signallers cannot requeue
 *                 (they do not know the mutex), broadcasts leave a duty
 *   KERNEL_LOCK   the mutex slow path is the kernel's FUTEX_LOCK
 *   EXTRA_SIGNAL  the signaller first signals once without a token
 * Negative controls (Spin must find the error):
 *   BAD_NO_WAITERS   requeue onto the mutex without setting WAITERS first
 *   BAD_RELOCK       re-acquire after a wait without forcing WAITERS
 *   BAD_NO_PASS_ON   a waiter woken without a signal does not pass the
 *                    mutex's wake-up on
 *   BAD_STEAL        one group on one futex word: any waiter may take a
 *                    pending signal (glibc before 2.25, bug 13165); with
 *                    EXTRA_SIGNAL so that a waiter can start after one
 *   BAD_NO_SEQ       a signal does not move its group's futex word
 *   BAD_NO_RESIGNAL  a cancelled waiter keeps the signal it took
 *   BAD_NO_DUTY      a broadcast that cannot requeue wakes one waiter and
 *                    nobody requeues or wakes the others
 *   BAD_TIMEOUT_TAKES a timed-out waiter takes a pending signal and still
 *                    returns ETIMEDOUT
 *   NO_INV           leave out the invariant monitor
 */

#ifndef NW
#define NW 2
#endif
#ifndef KW
#define KW 1		/* waits of waiter 1 */
#endif
#ifndef KW2
#define KW2 1		/* waits of waiter 2 */
#endif
#ifndef KS
#define KS 2
#endif

#define TIDM	3	/* FUTEX_TID_MASK */
#define WBIT	4	/* FUTEX_WAITERS */

#define FM	1	/* asleep on the mutex word */
#define FS0	2	/* asleep on seq[0]; FS0 + 1: seq[1] */

#define R_WOKEN		0
#define R_EAGAIN	1
#define R_TIMEDOUT	2
#define R_GONE		3	/* BAD_TIMEOUT_TAKES */

/* ---- the mutex ---- */
byte word;
byte nqm;		/* sleepers on the mutex word */
byte pendwake;		/* unlockers between their exchange and FUTEX_WAKE */
bool woken[4];		/* woken off the mutex word, not yet re-acquired,
			   re-queued or passed the wake-up on */
byte cs;
byte fq[4];		/* the futex word each thread sleeps on, or 0 */

/* ---- the condvar ---- */
byte gen;		/* generation of G2; G1 = gen - 1 */
byte seq[2];
byte unsig;		/* G1 waiters not yet signalled */
byte pend;		/* signals G1 waiters have not taken yet */
byte g2;		/* G2 waiters */
byte members;		/* waiters inside (wrefs >> 3) */
byte duty;		/* STATE_DUTY bits: a broadcast's requeue owed */

/* ---- ghosts ---- */
byte tokens;
byte given;		/* signals that went to a waiter (a broadcast: each) */
byte consumed;		/* signals waiters took */
byte nsigs;		/* signal/broadcast calls that reached a waiter */
byte inflight;		/* signallers between their bookkeeping and futex call */
byte dutyheld;		/* duty bits taken by a waiter, not yet done */
byte ncancel;		/* waiters cancelled: they want no token */
bool mem[4];		/* is a condvar member */
byte mgen[4];		/* its generation */

#ifdef BAD_RELOCK
#define FORCE_W	0
#else
#define FORCE_W	1
#endif

/* FUTEX_WAKE(mutex word, 1): any sleeper, or none if there is none. */
inline wake_mutex_one() {
	if
	:: fq[1] == FM -> fq[1] = 0; nqm--; woken[1] = 1
	:: fq[2] == FM -> fq[2] = 0; nqm--; woken[2] = 1
	:: fq[3] == FM -> fq[3] = 0; nqm--; woken[3] = 1
	:: nqm == 0
	fi
}

/* FUTEX_WAKE(seq[sl], 1) */
inline wake_seq_one(sl) {
	if
	:: fq[1] == FS0 + sl -> fq[1] = 0
	:: fq[2] == FS0 + sl -> fq[2] = 0
	:: fq[3] == FS0 + sl -> fq[3] = 0
	:: fq[1] != FS0 + sl && fq[2] != FS0 + sl && fq[3] != FS0 + sl
	fi
}

/* FUTEX_WAKE(seq[sl], INT_MAX) */
inline wake_seq_all(sl) {
	if :: fq[1] == FS0 + sl -> fq[1] = 0 :: else fi;
	if :: fq[2] == FS0 + sl -> fq[2] = 0 :: else fi;
	if :: fq[3] == FS0 + sl -> fq[3] = 0 :: else fi
}

/* FUTEX_CMP_REQUEUE(seq[sl] -> mutex word, wake 0, requeue 1) */
inline requeue_one(sl) {
	if
	:: fq[1] == FS0 + sl -> fq[1] = FM; nqm++
	:: fq[2] == FS0 + sl -> fq[2] = FM; nqm++
	:: fq[3] == FS0 + sl -> fq[3] = FM; nqm++
	:: fq[1] != FS0 + sl && fq[2] != FS0 + sl && fq[3] != FS0 + sl
	fi
}

/* FUTEX_CMP_REQUEUE(seq[sl] -> mutex word, wake 0, requeue all) */
inline requeue_all(sl) {
	if :: fq[1] == FS0 + sl -> fq[1] = FM; nqm++ :: else fi;
	if :: fq[2] == FS0 + sl -> fq[2] = FM; nqm++ :: else fi;
	if :: fq[3] == FS0 + sl -> fq[3] = FM; nqm++ :: else fi
}

/*
 * Lock the mutex; @force: leave WAITERS set (condvar re-acquisition).
 * Locals used: v, ok.
 */
inline mlock(force) {
	atomic { if :: word == 0 -> word = me; ok = 1 :: else -> ok = 0 fi };
	if	/* the spin phase: one more attempt, only on a free word */
	:: !ok -> atomic { if :: word == 0 -> word = me; ok = 1 :: else fi }
	:: !ok -> skip
	:: ok
	fi;
	do
	:: ok -> break
	:: else ->
#ifdef KERNEL_LOCK
		/* FUTEX_LOCK, under the bucket lock */
		atomic {
			if
			:: (word & TIDM) == 0 ->
				word = me | (nqm > 0 -> WBIT : 0);
				woken[me] = 0; ok = 1
			:: else ->
				word = word | WBIT;
				fq[me] = FM; nqm++; woken[me] = 0
			fi
		}
		if
		:: ok
		:: else -> fq[me] != FM		/* asleep until woken */
		fi
#else
		v = word;
		if
		:: (v & TIDM) == 0 ->
			atomic { if :: word == v -> word = me | WBIT; woken[me] = 0; ok = 1 :: else fi }
		:: else ->
			if
			:: (v & WBIT) == 0 ->
				atomic { if :: word == v -> word = v | WBIT; v = v | WBIT :: else -> v = 0 fi }
			:: else
			fi;
			if
			:: v != 0 ->
				/* FUTEX_WAIT(word, v): compare and queue */
				atomic { if :: word == v -> fq[me] = FM; nqm++; woken[me] = 0 :: else fi };
				fq[me] != FM	/* asleep until woken */
			:: else
			fi
		fi
#endif
	od;
	v = 0;
	if
	:: force -> atomic { word = word | WBIT; woken[me] = 0 }
	:: else -> woken[me] = 0
	fi
}

inline munlock() {
	atomic { if :: word == me -> word = 0; ok = 1 :: else -> ok = 0 fi };
	if
	:: ok
	:: else ->
		atomic { word = 0; pendwake++ };
		atomic { wake_mutex_one(); pendwake-- }
	fi;
	ok = 0
}

/*
 * Under the condvar's lock, as one step: is there a signal for this
 * waiter?  Takes it (sets took).
 */
inline take_signal() {
#ifdef BAD_STEAL
	/* one group: whoever comes first takes a pending signal */
	if
	:: mgen[me] + 2 <= gen -> took = 1
	:: pend > 0 -> pend--; took = 1;
		if :: mgen[me] == gen -> g2--; unsig++ :: else fi
	:: else -> took = 0
	fi
#else
	if
	:: mgen[me] + 2 <= gen -> took = 1
	:: mgen[me] + 1 == gen && pend > 0 -> pend--; took = 1
	:: else -> took = 0
	fi
#endif
}

inline leave_group() {
	if
	:: mgen[me] + 1 == gen -> assert(unsig > 0); unsig--
	:: else -> assert(g2 > 0); g2--
	fi
}

/* Signal: the bookkeeping, then requeue (if we hold the mutex) or wake. */
inline do_signal() {
	atomic {
		if
		:: unsig == 0 && g2 == 0 -> sl = 2
		:: else ->
			if
			:: unsig == 0 -> unsig = g2; g2 = 0; pend = 0; gen++
			:: else
			fi;
			unsig--; pend++; given++; nsigs++;
#ifdef BAD_STEAL
			sl = 0;
#else
			sl = (gen - 1) & 1;
#endif
#ifndef BAD_NO_SEQ
			seq[sl]++;
#endif
			sv = seq[sl];
#ifdef SHARED
			owner = 0;
#else
			owner = ((word & TIDM) == me);
#endif
			inflight++
		fi
	}
	if
	:: sl == 2
	:: else ->
		if
		:: owner ->
#ifndef BAD_NO_WAITERS
			atomic { word = word | WBIT };
#endif
			atomic {
				if
				:: seq[sl] == sv -> requeue_one(sl); ok = 1
				:: else -> ok = 0	/* EAGAIN: wake instead */
				fi;
				if :: ok -> inflight-- :: else fi
			}
			if
			:: ok
			:: else -> atomic { wake_seq_one(sl); inflight-- }
			fi
		:: else -> atomic { wake_seq_one(sl); inflight-- }
		fi
	fi;
	sl = 0; sv = 0; owner = 0; ok = 0
}

inline do_broadcast() {
	atomic {
		slots = 0;
		if :: unsig > 0 -> slots = slots | (1 << ((gen - 1) & 1)) :: else fi;
		if :: g2 > 0 -> slots = slots | (1 << (gen & 1)) :: else fi;
		if
		:: slots != 0 ->
			given = given + unsig + g2; nsigs++;
			g1slot = (gen - 1) & 1;
			gen = gen + 2; unsig = 0; pend = 0; g2 = 0;
#ifndef BAD_NO_SEQ
			if :: slots & 1 -> seq[0]++ :: else fi;
			if :: slots & 2 -> seq[1]++ :: else fi;
#endif
#ifdef SHARED
			owner = 0;
#else
			owner = ((word & TIDM) == me);
#endif
			if :: !owner -> duty = duty | slots :: else fi;
			inflight++
		:: else
		fi
	}
	if
	:: slots == 0
	:: slots != 0 && owner ->
#ifndef BAD_NO_WAITERS
		atomic { word = word | WBIT };
#endif
		/* requeue_all in a retry loop: the successful attempt is atomic */
		atomic { if :: slots & 1 -> requeue_all(0) :: else fi };
		atomic { if :: slots & 2 -> requeue_all(1) :: else fi; inflight-- }
	:: slots != 0 && !owner ->
#ifdef BAD_NO_DUTY
		atomic { duty = 0 };
#endif
		atomic {
			if
			:: slots & (1 << g1slot) -> wake_seq_one(g1slot)
			:: else -> wake_seq_one(1 - g1slot)
			fi;
			inflight--
		}
	fi;
	slots = 0; g1slot = 0; owner = 0
}

/* A broadcast's duty, once the mutex is ours again: requeue onto it. */
inline do_duty() {
	if
	:: dutyb != 0 ->
		atomic { word = word | WBIT };
		atomic { if :: dutyb & 1 -> requeue_all(0) :: else fi };
		atomic { if :: dutyb & 2 -> requeue_all(1) :: else fi;
			 dutyheld = dutyheld & ~dutyb; dutyb = 0 }
	:: else
	fi
}

proctype W(byte me; byte kw)
{
	byte v, s, sl, sv, slots, g1slot, k, r, dutyb, sigs0;
	bool ok, took, owner, cancelled;

top:
	if
	:: k == kw -> goto done
	:: else
	fi;
	mlock(0);
check:
	if
	:: tokens > 0 -> tokens--; munlock(); k++; goto top
	:: else
	fi;

	/* ---- cond_wait: join G2, release the mutex ---- */
	atomic {
		if :: members == 0 -> duty = 0 :: else fi;
		mem[me] = 1; mgen[me] = gen; g2++; members++;
#ifdef BAD_STEAL
		sl = 0;			/* one futex word for everybody */
#else
		sl = gen & 1;
#endif
		s = seq[sl]; sigs0 = nsigs
	}
	munlock();
sleep:
	/* FUTEX_WAIT(seq[sl], s) */
	atomic {
		if
		:: seq[sl] == s -> fq[me] = FS0 + sl; r = R_WOKEN
		:: else -> r = R_EAGAIN
		fi
	}
	if
	:: r == R_EAGAIN
	:: else ->
		if
		:: fq[me] == 0		/* woken, from seq[] or the mutex word */
#ifdef TIMEOUTS
		:: atomic {
			fq[me] != 0 ->
			if :: fq[me] == FM -> nqm-- :: else fi;
			fq[me] = 0; r = R_TIMEDOUT
		   }
#endif
#ifdef CANCEL
		:: atomic {
			me == 1 && !cancelled && fq[me] != 0 ->
			if :: fq[me] == FM -> nqm-- :: else fi;
			fq[me] = 0; cancelled = 1; ncancel++
		   } -> goto cancelled_cleanup
#endif
		fi
	fi;
#ifdef CANCEL
	/* still in the asynchronous-cancellation window after the call */
	if
	:: atomic { me == 1 && !cancelled -> cancelled = 1; ncancel++ };
		goto cancelled_cleanup
	:: true
	fi;
#endif
	atomic {
#ifdef BAD_TIMEOUT_TAKES
		/* a timed-out G1 waiter takes a pending signal, says ETIMEDOUT */
		if
		:: r == R_TIMEDOUT && mgen[me] + 1 == gen && pend > 0 ->
			pend--; took = 0; r = R_GONE
		:: else -> take_signal()
		fi;
#else
		take_signal();
#endif
		if
		:: took ->
			assert(nsigs > sigs0);	/* no stolen signal */
			consumed++; dutyb = duty; duty = 0;
			dutyheld = dutyheld | dutyb
		:: !took && r == R_TIMEDOUT -> leave_group()
		:: !took && r == R_GONE -> r = R_TIMEDOUT
		:: !took && r != R_TIMEDOUT && r != R_GONE -> s = seq[sl]
		fi
	}
	if
	:: took || r == R_TIMEDOUT -> goto relock
	:: else
	fi;
	/* woken without a signal for us: pass the mutex's wake-up on */
#ifndef BAD_NO_PASS_ON
	if
	:: r == R_WOKEN -> atomic { wake_mutex_one(); woken[me] = 0 }
	:: else
	fi;
#endif
	goto sleep;

relock:
	/* done with the condvar, unless a duty is left to do */
	if
	:: dutyb == 0 -> atomic { members--; mem[me] = 0 }
	:: else
	fi;
	mlock(FORCE_W);
	if
	:: dutyb != 0 -> do_duty(); atomic { members--; mem[me] = 0 }
	:: else
	fi;
	atomic { took = 0; r = 0; s = 0; sl = 0; sigs0 = 0 };
	goto check;

#ifdef CANCEL
cancelled_cleanup:
	atomic {
		take_signal();
		if
		:: took -> consumed++; dutyb = duty; duty = 0;
			dutyheld = dutyheld | dutyb
		:: else -> leave_group()
		fi
	}
#ifndef BAD_NO_RESIGNAL
	if
	:: took -> do_signal()
	:: else
	fi;
#endif
	mlock(FORCE_W);
	do_duty();
	atomic { members--; mem[me] = 0; took = 0; r = 0; s = 0; sl = 0 };
	/* the application's cleanup handler unlocks; the thread exits */
	munlock();
	goto done;
#endif
done:
	skip
}

proctype S(byte me)
{
	byte v, sl, sv, slots, g1slot, k;
	bool ok, owner, inside, bcast;

#ifdef EXTRA_SIGNAL
	do_signal();
#endif
	/* A cancelled waiter wants no token: one signal fewer. */
	do
	:: k + ncancel >= KS -> break
	:: else ->
		mlock(0);
		tokens++;
		if :: inside = 1 :: inside = 0 fi;
		if :: bcast = 1 :: bcast = 0 fi;
		if
		:: inside && bcast -> do_broadcast()
		:: inside && !bcast -> do_signal()
		:: else
		fi;
		munlock();
		if
		:: !inside && bcast -> do_broadcast()
		:: !inside && !bcast -> do_signal()
		:: else
		fi;
		atomic { k++; inside = 0; bcast = 0 }
	od
}

#ifndef NO_INV
/*
 * Invariants, in every state where no signaller is between its
 * bookkeeping and its futex call:
 *  - the mutex: a free word is 0; a sleeper on the word implies WAITERS,
 *    or an unlocker about to wake, or a woken thread about to retry;
 *  - a pending signal has a G1 waiter that is awake (or asleep on the
 *    mutex word, which wakes it), or a broadcast's duty will move the
 *    sleepers of G1's word;
 *  - a waiter of a retired generation asleep on seq[] is covered by a
 *    duty (owed or taken), since nothing else will ever wake it.
 */
#define G1(t)		(mem[t] && mgen[t] + 1 == gen)
#define ON_SEQ(t)	(fq[t] >= FS0)
#define DUTY_COVERS(t)	((duty | dutyheld) & (1 << (fq[t] - FS0)))
#define RETIRED_STUCK(t) (mem[t] && mgen[t] + 2 <= gen && ON_SEQ(t) && !DUTY_COVERS(t))
#define G1_AWAKE(t)	(G1(t) && !ON_SEQ(t))
#define G1_COVERED(t)	(G1(t) && ON_SEQ(t) && DUTY_COVERS(t))

active proctype monitor()
{
end:	atomic {
		inflight == 0 &&
		(((word & TIDM) == 0 && word != 0) ||
		 (nqm > 0 && (word & WBIT) == 0 && pendwake == 0 &&
		  !woken[1] && !woken[2] && !woken[3]) ||
		 (pend > 0 && !G1_AWAKE(1) && !G1_AWAKE(2) && !G1_AWAKE(3) &&
		  !G1_COVERED(1) && !G1_COVERED(2) && !G1_COVERED(3)) ||
		 RETIRED_STUCK(1) || RETIRED_STUCK(2) || RETIRED_STUCK(3)) ->
		assert(false)
	}
}
#endif

init
{
	atomic {
		run W(1, KW);
		if :: NW >= 2 -> run W(2, KW2) :: else -> run S(2) fi;
		if :: NW >= 3 -> run W(3, KW2) :: else -> run S(3) fi
	}
	/* Everybody finished: every signal that went to a waiter was taken. */
#ifdef NO_INV
	(_nr_pr == 1);
#else
	(_nr_pr == 2);		/* init and the monitor */
#endif
	assert(given == consumed);
	assert(unsig == 0 && pend == 0 && g2 == 0 && members == 0);
	assert(nqm == 0 && fq[1] == 0 && fq[2] == 0 && fq[3] == 0);
	assert(word == 0)
}
