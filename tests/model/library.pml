/*
 * library.pml - Spin model of libuspin's own rules on the stock-kernel
 * path (FUTEX_WAIT), which uspin.pml abstracts away: trylock, the spinners
 * (their bound, a woken waiter spinning again, an unlock that leaves the
 * word to a spinner), the handoff to a starving waiter (m->handoff), robust owner death
 * (FUTEX_OWNER_DIED), EOWNERDEAD / consistent / ENOTRECOVERABLE, and
 * timed waits.  It follows libuspin/mutex_lock.c, mutex_trylock.c and
 * mutex_unlock.c step by step.
 *
 * Three threads (TIDs 1..3) each make K attempts, each a lock (untimed or,
 * with TIMEOUTS, timed) or a trylock, and unlock what they got.  Every
 * access to the word, to m->handoff and to the futex queue is one atomic
 * step; FUTEX_WAIT checks the word and queues in one step (the kernel does
 * both under the hash-bucket lock); a wake picks any matching waiter.
 * Waiters carry a bitset: 1 (USPIN_WAKE_NORMAL) or 2 (USPIN_WAKE_HANDOFF);
 * FUTEX_WAKE matches any, FUTEX_WAKE_BITSET(2) only requesters.  "Blocked
 * for longer than the handoff threshold" is a free choice.
 *
 * Properties: mutual exclusion (and the owner is the word's TID); no lost
 * wake-up (no thread asleep forever: invalid end state); a timed lock never
 * returns ETIMEDOUT while the word holds its TID (a leaked lock); a handoff
 * stores the requester's TID, never 0, so nobody can barge; at most MAXSP
 * spinners.
 *
 * Configuration (spin -D...):
 *   TIMEOUTS    locks may be timed, and a queued waiter may time out
 *   DEATH       thread 3 dies holding the lock in its last attempt; the
 *               kernel marks the word OWNER_DIED and wakes one waiter
 *   K           attempts per thread (default 2)
 *   K1          thread 1's attempts (default K): with K=1 K1=2, thread 1
 *               takes the lock again while a woken waiter has not run
 *   MAXSP       spinners a mutex admits (default 1, as on 2 CPUs)
 *   SHARED      a process-shared mutex (issue 25): a waiter may die alone,
 *               so it never asks for a handoff; list_op_pending names the
 *               word through every lock and unlock call; a FUTEX_OWNER_DIED
 *               word of a non-robust mutex is taken over silently; an
 *               unlock that wakes a waiter leaves the free word WAITERS
 *   WDEATH      thread 3 may be killed while it waits: asleep, woken but
 *               not yet retried, handed the word, or (not SHARED) just
 *               after taking it.  The kernel (list_op_pending) then marks
 *               a word that names it and wakes one waiter, or wakes one if
 *               the word is free.  A SHARED word carries USPIN_WORD_SHARED
 *               beside the TID (libuspin/owner.c), so the kernel takes it
 *               for no task's: a waiter killed just after taking it died
 *               holding a mutex that is not robust (undefined, as in
 *               glibc), and is not modelled
 * Negative controls, each must fail:
 *   NEG_PASS_NO_RECHECK  an unlock that leaves the word to a spinner does
 *                       not look at the count again: the spinner may have
 *                       left, and the sleepers sleep on a free word
 *   NEG_RESPIN_NO_W     a woken waiter that spins again takes the word
 *                       without FUTEX_WAITERS, though others may sleep
 *   NEG_WITHDRAW_STORE  a timed-out requester withdraws with a plain store
 *                       instead of a CAS (it may be handed the lock anyway)
 *   NEG_HANDOFF_READ    the unlocker reads m->handoff and clears it in a
 *                       second step (a withdrawn requester can be handed it)
 *   NEG_HANDOFF_NO_W    the handoff stores the TID without FUTEX_WAITERS
 *   NEG_NO_NOTREC_WAKE  unlocking an EOWNERDEAD lock without consistent()
 *                       wakes nobody
 *   NEG_WAKE_ONE_HANDOFF  the handoff wakes one USPIN_WAKE_HANDOFF waiter:
 *                       the next requester may sleep there too, and get
 *                       the wake-up meant for the thread handed the word
 *   NEG_SHARED_HANDOFF  with SHARED: waiters still ask for the handoff (the
 *                       old rule): a requester killed in its sleep is
 *                       handed the word after its exit, which names it
 *                       for good
 *   NEG_NO_PENDING      with SHARED: list_op_pending is not set, so a
 *                       killed waiter's death does nothing (a woken
 *                       waiter takes the wake-up with it)
 *   NEG_SHARED_FREE_ZERO  with SHARED: the unlock leaves the word 0 while
 *                       the waiter it woke has not retried; a thread that
 *                       takes it meanwhile without WAITERS, then the woken
 *                       one killed: nobody wakes the others (needs K=2)
 */

#ifndef K
#define K 2
#endif
#ifndef K1
#define K1 K	/* thread 1's attempts: one more lets it come back */
#endif

#define TIDM	3	/* FUTEX_TID_MASK */
#define ODBIT	4	/* FUTEX_OWNER_DIED */
#define WBIT	8	/* FUTEX_WAITERS */
#define NORMAL	1	/* USPIN_WAKE_NORMAL */
#define HANDOFF	2	/* USPIN_WAKE_HANDOFF */
#define ANY	3	/* FUTEX_WAKE */

byte word;		/* the lock word */
byte handoff;		/* m->handoff: a requester's TID, or 0 */
bool notrec;		/* USPIN_NOTRECOVERABLE in m->flags */
byte spinners;		/* threads in a spin phase (m->spinner's count) */
bool queued[4];		/* on the futex queue of the word */
byte qbits[4];		/* ... waiting with this bitset */
byte cs;		/* threads in the critical section */

/* FUTEX_WAKE(_BITSET) of one waiter matching @bits; woke says if any. */
inline wake_one(bits)
{
	atomic {
		woke = 1;
		if
		:: queued[1] && (qbits[1] & (bits)) -> queued[1] = 0
		:: queued[2] && (qbits[2] & (bits)) -> queued[2] = 0
		:: queued[3] && (qbits[3] & (bits)) -> queued[3] = 0
		:: else -> woke = 0
		fi
	}
}

/* FUTEX_WAKE(_BITSET) of every waiter matching @bits. */
inline wake_all(bits)
{
	atomic {
		queued[1] = queued[1] && !(qbits[1] & (bits));
		queued[2] = queued[2] && !(qbits[2] & (bits));
		queued[3] = queued[3] && !(qbits[3] & (bits))
	}
}

/* cmpxchg(word, old, new): ok tells success; on failure v = current value */
inline cas(old, new)
{
	atomic {
		if
		:: word == old -> word = new; ok = 1
		:: else -> ok = 0; v = word
		fi
	}
}

#if defined(SHARED) && !defined(NEG_SHARED_HANDOFF)
#define MAY_ASK	0
#else
#define MAY_ASK	1
#endif

/*
 * The kernel at the death of waiter @me whose list_op_pending names the
 * word (handle_futex_death(), HANDLE_DEATH_PENDING): a word naming it is
 * marked and a waiter woken if WAITERS is set; a free word gets one wake-up
 * passed on; a word owned by another is left alone.
 */
inline waiter_dies(me)
{
#ifndef NEG_NO_PENDING
	atomic {
		if
#ifndef SHARED
		:: (word & TIDM) == me ->
			word = (word & WBIT) | ODBIT; ok = (word & WBIT) != 0
#endif
		:: (word & TIDM) == 0 -> ok = 1
		:: else -> ok = 0
		fi
	}
	if
	:: ok -> wake_one(ANY)
	:: else
	fi
#else
	skip
#endif
}

#ifndef MAXSP
#define MAXSP	1	/* max_spinners: CPUs - 1 */
#endif

/*
 * libuspin/spin.c: a spin phase that takes a free word as word | @take
 * (ok = 1).  Entered only under the spinner bound; the spinner reads the
 * word up to twice (any number of reads is a run of these steps) and may
 * stop at any point: the owner off its CPU, its own preemption, the cap,
 * the deadline, a handoff request.  On the way out it leaves the count,
 * then looks at the word once more: an unlocker may have left it free
 * for a spinner (uspin_pass_to_spinner()).
 */
inline spin_phase(take)
{
	ok = 0;
	if
	:: skip				/* no spin, or refused: the count is full */
	:: atomic { spinners < MAXSP -> spinners++ };
		assert(spinners <= MAXSP);
		h = 0;
		do
		:: atomic { (word & TIDM) == 0 && !(word & ODBIT) ->
				word = word | (take); ok = 1 };
			break
		:: h < 2 && (word & TIDM) != 0 -> h++	/* held: read again */
		:: break			/* stopped */
		od;
		atomic { spinners-- };
#ifndef NEG_NO_LAST_LOOK
		if
		:: !ok ->
			atomic {
				if
				:: (word & TIDM) == 0 && !(word & ODBIT) ->
					word = word | (take); ok = 1
				:: else
				fi
			}
		:: else
		fi;
#endif
		h = 0
	fi
}

/* The kernel at the death of thread @me (exit_robust_list). */
inline die(me)
{
	atomic {
		if
		:: (word & TIDM) == me -> word = (word & WBIT) | ODBIT
		:: else
		fi
	}
	wake_one(ANY)
}

proctype T(byte me)
{
	byte i, v, h;
	bool ok, timed, asked, promised, tmo, woken, woke;

top:
	if
	:: i == (me == 1 -> K1 : K) -> goto finish
	:: else
	fi;
	asked = 0; promised = 0; timed = 0;
	if
	:: goto trylock
	:: goto lock
#ifdef TIMEOUTS
	:: timed = 1; goto lock
#endif
	fi;

	/* ---- mutex_trylock.c ---- */
trylock:
	cas(0, me);
	if
	:: ok -> goto acquired
	:: else
	fi;
	if
	:: (v & TIDM) == 0 && !(v & ODBIT) ->
		cas(v, v | me);			/* free, WAITERS kept */
		if
		:: ok -> goto acquired
		:: else -> goto next		/* EBUSY */
		fi
	:: (v & TIDM) == 0 && (v & ODBIT) && !notrec ->
		cas(v, v | me);			/* take over from the dead */
		if
		:: ok -> goto after_acquire
		:: else -> goto next		/* EBUSY */
		fi
	:: else -> goto next			/* EBUSY / ENOTRECOVERABLE */
	fi;

	/* ---- mutex_lock.c: fast path, spin phase, block_futex_wait ---- */
lock:
	cas(0, me);
	if
	:: ok -> goto acquired
	:: else
	fi;
	if
	:: (word & TIDM) == me -> goto next	/* EDEADLK */
	:: notrec -> goto next			/* ENOTRECOVERABLE */
	:: else
	fi;
	spin_phase(me);
	if
	:: ok -> goto acquired
	:: else
	fi;
B_loop:
#ifdef WDEATH
	if
	:: me == 3 -> goto waiter_killed	/* woken, handed, asked */
	:: skip
	fi;
#endif
	v = word;
	if
	:: (v & TIDM) == me -> goto after_acquire	/* handed over */
	:: (v & TIDM) == 0 ->
		if
		:: asked ->
			asked = 0;
			atomic {
				if
				:: handoff == me -> handoff = 0
				:: else -> promised = 1
				fi
			}
			if
			:: promised -> goto B_loop	/* taken after we read v */
			:: else
			fi
		:: else
		fi;
		if
		:: promised && !(v & ODBIT) -> goto B_loop	/* cannot happen */
		:: else
		fi;
		promised = 0;			/* the unlocker died */
		if
		:: notrec -> goto next
		:: else
		fi;
		cas(v, v | me | WBIT);
		if
		:: ok -> goto after_acquire
		:: else -> goto B_loop
		fi
	:: else
	fi;
	/* owned by another thread: ask for a handoff (blocked long enough) */
	if
	:: MAY_ASK && !asked && !promised ->
		atomic {
			if
			:: handoff == 0 -> handoff = me; asked = 1
			:: else
			fi
		}
		if
		:: asked -> goto B_loop
		:: else
		fi
	:: skip
	fi;
	/* a woken waiter spins again; it may take the word from sleepers */
	if
	:: woken && !asked && !promised ->
		woken = 0;
#ifdef NEG_RESPIN_NO_W
		spin_phase(me);
#else
		spin_phase(me | WBIT);
#endif
		if
		:: ok -> goto acquired
		:: else -> goto B_loop
		fi
	:: else
	fi;
	if
	:: !(v & WBIT) ->
		cas(v, v | WBIT);
		if
		:: !ok -> goto B_loop
		:: else -> v = v | WBIT
		fi
	:: else
	fi;
	/* FUTEX_WAIT_BITSET(word, v, bits, abstime) */
	tmo = 0;
	atomic {
		if
		:: word == v ->
			queued[me] = 1; woken = 1;
			qbits[me] = (asked || promised -> HANDOFF : NORMAL)
		:: else
		fi
	}
	if
	:: !queued[me]
	:: atomic { timed && !promised && queued[me] -> queued[me] = 0; tmo = 1 }
#ifdef WDEATH
	:: atomic { me == 3 && queued[me] -> queued[me] = 0 };
		goto waiter_killed		/* killed in its sleep */
#endif
	fi;
	if
	:: tmo ->
		woken = 0;
		if
		:: !asked -> goto timed_out
		:: else
		fi;
#ifdef NEG_WITHDRAW_STORE
		handoff = 0;
		goto timed_out;
#else
		atomic {
			if
			:: handoff == me -> handoff = 0; ok = 1
			:: else -> ok = 0
			fi
		}
		if
		:: ok -> goto timed_out
		:: else -> asked = 0; promised = 1
		fi
#endif
	:: else
	fi;
	goto B_loop;

timed_out:
	assert((word & TIDM) != me);	/* ETIMEDOUT while owning: leaked */
	goto next;

waiter_killed:
	waiter_dies(me);
	goto finish;

	/* ---- uspin_after_acquire(): we own the word ---- */
after_acquire:
#if defined(WDEATH) && !defined(SHARED)
	if
	:: me == 3 -> goto waiter_killed	/* still inside the lock call */
	:: skip
	fi;
#endif
	if
#ifdef SHARED
	:: word & ODBIT ->			/* died inside a call: no report */
		atomic { word = word & ~ODBIT }
#else
	:: word & ODBIT ->
		if
		:: notrec ->
			atomic { word = ODBIT };
			wake_all(ANY);
			goto next			/* ENOTRECOVERABLE */
		:: else
		fi;
		/* EOWNERDEAD: repair (consistent) or not */
		if
		:: atomic { word = word & ~ODBIT }
		:: skip
		fi
#endif
	:: else
	fi;
acquired:
	atomic { cs++; assert(cs == 1 && (word & TIDM) == me) };
	cs--;
#ifdef DEATH
	if
	:: me == 3 && i == K - 1 -> die(me); goto finish
	:: else
	fi;
#endif

	/* ---- mutex_unlock.c ---- */
	cas(me, 0);
	if
	:: ok -> goto next
	:: else
	fi;
	/* uspin_release_word() */
	if
	:: word & ODBIT ->
		notrec = 1;
		atomic { word = ODBIT };
#ifndef NEG_NO_NOTREC_WAKE
		wake_all(ANY);
#endif
		goto next
	:: else
	fi;
#ifdef NEG_HANDOFF_READ
	h = handoff;
	handoff = 0;
#else
	atomic { h = handoff; handoff = 0 }
#endif
	if
	:: h != 0 ->
#ifdef NEG_HANDOFF_NO_W
		atomic { word = h };
#else
		atomic { word = h | WBIT };
#endif
#ifdef NEG_WAKE_ONE_HANDOFF
		wake_one(HANDOFF);
#else
		wake_all(HANDOFF);
#endif
		goto next
	:: else
	fi;
#ifndef SHARED
	/*
	 * uspin_pass_to_spinner(): others sleep and a waiter spins (and,
	 * the choice below, the provider says the lead spinner runs): leave
	 * the word free with WAITERS for it, unless sleepers have been passed
	 * over long enough or the lead spinner is off its CPU (a free choice
	 * here); take it back to wake someone
	 * if every spinner left meanwhile.
	 */
	if
	:: (word & WBIT) && spinners > 0 ->
		if
		:: atomic { word = WBIT };
#ifdef NEG_PASS_NO_RECHECK
			goto next;
#else
			if
			:: spinners > 0 -> goto next
			:: else
			fi;
			cas(WBIT, me | WBIT);
			if
			:: ok -> skip		/* ours again: wake as usual */
			:: else -> goto next	/* a spinner took it */
			fi
#endif
		:: skip			/* passed over too long: wake */
		fi
	:: else
	fi;
#endif
#if defined(SHARED) && !defined(NEG_SHARED_FREE_ZERO)
	/*
	 * Process-shared: the free word keeps WAITERS until the woken waiter
	 * retries; nobody woken, nobody sleeps: the bit goes.
	 */
	atomic { v = word; word = v & WBIT };
	if
	:: v & WBIT ->
		wake_one(ANY);
		if
		:: !woke -> cas(WBIT, 0)
		:: else
		fi
	:: else
	fi;
#else
	atomic { v = word; word = 0 };
	if
	:: v & WBIT -> wake_one(ANY)
	:: else
	fi;
#endif
next:
	/* dead values: keep the state space small */
	atomic { i++; v = 0; h = 0; ok = 0; tmo = 0; asked = 0; promised = 0;
		 timed = 0; woken = 0; woke = 0 };
	goto top;
finish:
	skip
}

init {
	atomic {
		run T(1);
		run T(2);
		run T(3)
	}
}
