/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * process.h - process and thread shapes both test programs make, through
 * lock_ops.h: an owner thread that exits holding a robust mutex; a
 * function run as PID 1 of a new pid namespace (two such processes, both
 * TID 1, share a mutex in test-uspin's shapes suite and test-dropin's
 * process suite).
 */
#ifndef USPIN_SCENARIOS_PROCESS_H
#define USPIN_SCENARIOS_PROCESS_H

#include <sys/types.h>

/* Exit status of a child that its own alarm found hung. */
#define SC_CHILD_HUNG	70

/*
 * @m, a robust mutex whose owner died: our lock says EOWNERDEAD, the
 * mutex ours (where lock_ops can tell); made consistent, it works on.
 */
void sc_lock_after_owner_died(void *m);

/*
 * @m, a robust mutex (initialised, free): a thread of ours locks it and
 * exits; then sc_lock_after_owner_died().
 */
void sc_owner_thread_exits(void *m);

/*
 * Can this process make a pid namespace (root)?  Outside any test (at
 * suite set-up): no assertion.
 */
int sc_can_unshare_pid_ns(void);

/*
 * @first(@area) and @second(@area) at once, each PID 1 of a pid
 * namespace of its own (so both are TID 1; @area is MAP_SHARED memory):
 * both must return 0 (the exit status; 77: no namespace could be made,
 * SC_CHILD_HUNG: one ran 10 s).
 */
void sc_two_pid_namespaces(int (*first)(void *), int (*second)(void *),
			   void *area);

#endif
