// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * owner.c - who owns a mutex.  The lock word holds a TID, and a TID names
 * a thread only within one process's view of the world:
 *
 *   - pid namespaces: a process-shared mutex may be used from processes of
 *     different namespaces, whose TIDs can be equal.  Its owner therefore
 *     leaves the tag of its namespace (uspin_pid_ns_tag()) in m->handoff,
 *     which a shared mutex has no other use for, once the word is its own,
 *     and clears it before it lets the word go: the pair (TID, tag) is
 *     unique.  Only the owner writes the tag, so a tag equal to the
 *     caller's, beside a word equal to the caller's, is one the caller
 *     wrote and has not cleared: it owns the mutex.  Another namespace's
 *     thread with the same TID sees a tag that is not its own (the owner's,
 *     or 0 before the owner wrote it) and waits like anyone else.
 *   - fork: the forking thread's replica in the child has a new TID, but
 *     its private mutexes are the ones it held in the parent (the
 *     pthread_atfork pattern locks them before fork and releases them in
 *     both processes).  The child's thread owns private words that name
 *     the forking thread's TID in the parent (one generation: what a
 *     grandparent's thread held is the child's only once relocked).
 *     Robust ones are not inherited, as glibc's _Fork empties the child's
 *     robust list; shared ones still belong to the parent's thread.
 */
#include "mutex_flags.h"
#include "process_state.h"

int uspin_mutex_owned(const uspin_mutex_t *m)
{
	uint32_t tid = uspin_self_tid(), w = WORD_TID(CMM_LOAD_SHARED(m->word));

	if (mutex_flags(m) & USPIN_PROCESS_SHARED)
		return w == uspin_word_self(m, tid) &&
		       CMM_LOAD_SHARED(m->handoff) == uspin_pid_ns_tag();
	if (w == tid)
		return 1;
	return w && !mutex_is_robust(m) && w == uspin_process.inherited_tid &&
	       tid == uspin_process.inherited_by;
}

void uspin_owner_tag_set(uspin_mutex_t *m)
{
	if (mutex_flags(m) & USPIN_PROCESS_SHARED)
		CMM_STORE_SHARED(m->handoff, uspin_pid_ns_tag());
}

/* Before the word goes: a release barrier follows (a CAS or an xchg). */
void uspin_owner_tag_clear(uspin_mutex_t *m)
{
	if (mutex_flags(m) & USPIN_PROCESS_SHARED)
		CMM_STORE_SHARED(m->handoff, 0);
}
