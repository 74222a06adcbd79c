/*
 * spin_queue.pml - Spin model of the queue of a private mutex's spinners
 * (libuspin/spinners.c, the kernel's OSQ ported): join with an exchange of
 * the tail, wait on one's own node for the turn, leave as the head
 * (osq_unlock: pass the turn on, or empty the queue), or leave from the
 * middle before the turn (osq_lock's unqueue, steps A, B and C), at any
 * moment, as a spinner that is preempted, whose CPU is wanted or whose
 * deadline passes does.
 *
 * N threads (TIDs 1..N, the nodes' indices as in spinners.c's table)
 * each make K spin phases: a node is reused by its thread's next phase, as
 * spinners.c reuses it (and a thread that exits, by the next thread with
 * its TID).  Every access to a node field or the tail is one atomic step;
 * cmpxchg and xchg are one atomic step each.
 *
 * Properties:
 *   - one head at a time (the one spinner that watches the owner);
 *   - the turn is only passed to a node that waits for it (not to one that
 *     left: it would be a second head, or its thread's next phase would
 *     find the turn given already);
 *   - nothing waits forever (invalid end state): every wait on another
 *     thread (a successor that has not linked itself, a turn) ends;
 *   - the queue is empty once every phase is over.
 *
 * Configuration (spin -D...):
 *   N, K          threads and phases each (defaults 3 and 1)
 *   NOLEAVE       no spinner leaves before its turn: one that waits must
 *                 get it (with leaving allowed, a lost turn would not show
 *                 as a wait: the waiter could always leave)
 * Negative controls, each must fail:
 *   NEG_NO_WAIT_NEXT  the head that finds no successor linked yet leaves
 *                     anyway: the successor waits for a turn nobody gives
 *                     (with NOLEAVE: an invalid end state)
 *   NEG_NO_STEP_A     a spinner leaving from the middle does not undo its
 *                     predecessor's ->next: the turn goes to a node that
 *                     left, or the queue is left inconsistent
 */
#ifndef N
#define N	3
#endif
#ifndef K
#define K	1
#endif

#define WAITING	1	/* queued, its turn not come */
#define HEAD	2
#define OUT	0

byte tail;		/* TID of the last node, 0: empty */
byte nxt[N + 1];	/* node fields, per TID; 0: none */
byte prv[N + 1];
bit locked[N + 1];
byte state[N + 1];	/* WAITING, HEAD, OUT: what the thread does */
byte heads;		/* threads that are the head now */
byte finished;

/* Hand the turn to @n: it must be waiting for it. */
inline pass_turn(n)
{
	atomic {
		assert(state[n] == WAITING);
		locked[n] = 1
	}
}

/*
 * osq_wait_next(): @me leaves; if it is the tail, move the tail back to
 * @back; else wait until its successor has linked itself, take it.
 */
inline wait_next(me, back, ret)
{
	do
	:: atomic { tail == me -> tail = back; ret = 0 }; break
	:: atomic { nxt[me] != 0 -> ret = nxt[me]; nxt[me] = 0 }; break
	od
}

inline become_head(me)
{
	atomic {
		state[me] = HEAD;
		heads++;
		assert(heads == 1)
	}
}

/* osq_unlock(): the head leaves. */
inline leave_head(me, n)
{
	atomic { heads--; state[me] = OUT };
	if
	:: atomic { tail == me -> tail = 0 }
	:: else ->
		atomic { n = nxt[me]; nxt[me] = 0 };
		if
		:: n != 0 -> pass_turn(n)
		:: else ->
#ifdef NEG_NO_WAIT_NEXT
			skip
#else
			wait_next(me, 0, n);
			if
			:: n != 0 -> pass_turn(n)
			:: else
			fi
#endif
		fi
	fi
}

proctype spinner(byte me)
{
	byte prev, n, k = 0;

phase:
	/* ---- join ---- */
	locked[me] = 0;
	nxt[me] = 0;
	prv[me] = 0;
	atomic { prev = tail; tail = me };
	if
	:: prev == 0 -> become_head(me); goto head
	:: else
	fi;
	state[me] = WAITING;
	prv[me] = prev;
	nxt[prev] = me;

	/* ---- wait for the turn, or leave before it, at any moment ---- */
	if
	:: locked[me] -> become_head(me); goto head
#ifndef NOLEAVE
	:: true -> goto unqueue
#endif
	fi;

unqueue:
	/* A: undo prev->next = me, unless the turn comes meanwhile. */
	prev = prv[me];
	do
#ifdef NEG_NO_STEP_A
	:: true -> break
#endif
	:: atomic { nxt[prev] == me -> nxt[prev] = 0 }; break
	:: locked[me] -> become_head(me); goto head
	:: else -> prev = prv[me]
	od;
	atomic { state[me] = OUT };
	/* B: the successor, or the tail back to prev. */
	wait_next(me, prev, n);
	/* C: link prev and the successor. */
	if
	:: n != 0 -> prv[n] = prev; nxt[prev] = n
	:: else
	fi;
	goto next;

head:
	/* The head spins on the owner, takes the word or stops; leaves. */
	leave_head(me, n);

next:
	k++;
	if
	:: k < K -> goto phase
	:: else
	fi;
	finished++
}

init
{
	byte i;

	atomic {
		for (i : 1 .. N) {
			run spinner(i)
		}
	}
	finished == N;
	assert(tail == 0 && heads == 0)
}
