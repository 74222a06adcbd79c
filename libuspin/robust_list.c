// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * robust_list.c - take part in the robust futex list glibc registers for
 * every thread (set_robust_list at thread start), instead of registering a
 * second one: the kernel keeps one list head per thread.
 *
 * glibc (LP64) keeps a doubly linked list.  Each node is a pair
 * { prev, next } inside the mutex; list pointers point at the *next* field,
 * and the kernel finds the lock word at (next field + futex_offset).  glibc's
 * futex_offset is offsetof(__lock) - offsetof(__list.__next) = -32, and the
 * list head is preceded in struct pthread by a robust_prev slot so that the
 * head can be unlinked like a node.  uspin_mutex_t puts robust_prev and
 * robust_next at the same offsets from the word as pthread_mutex_t does, and
 * links and unlinks exactly as glibc's ENQUEUE_MUTEX/DEQUEUE_MUTEX do; the
 * list is only ever touched by its own thread (and read by the kernel when
 * the thread exits), so the two never race.  Robust mutexes, private or
 * process-shared, join it; the pthread drop-in puts glibc-layout mutexes
 * on it the same way.  Where the layout cannot be
 * confirmed (another libc, 32-bit, a different futex_offset) the list is
 * left alone and shared mutexes are simply not robust.
 */
#include <linux/futex.h>
#include <stddef.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "robust_list.h"

#define NEXT_TO_WORD_OFFSET \
	((long)offsetof(uspin_mutex_t, word) - \
	 (long)offsetof(uspin_mutex_t, robust_next))

_Static_assert(offsetof(uspin_mutex_t, robust_next) ==
	       offsetof(uspin_mutex_t, robust_prev) + sizeof(void *),
	       "robust_prev must directly precede robust_next");

/* A node as glibc sees it, addressed through a pointer to its next field. */
struct glibc_list_node {
	void *prev;
	void *next;
};

static inline struct glibc_list_node *node_of(void *next_field)
{
	return (struct glibc_list_node *)((char *)((uintptr_t)next_field & ~1ul) -
					  offsetof(struct glibc_list_node, next));
}

static USPIN_TLS struct robust_list_head *self_head;
static USPIN_TLS int self_head_state;	/* 0 unknown, 1 usable, -1 not */

static struct robust_list_head *robust_head(void)
{
	if (caa_likely(self_head_state > 0))
		return self_head;
	if (self_head_state == 0) {
		struct robust_list_head *head = NULL;
		size_t len = 0;

		self_head_state = -1;
#if defined(__GLIBC__) && __SIZEOF_POINTER__ == 8
		if (syscall(SYS_get_robust_list, 0, &head, &len) == 0 && head &&
		    len == sizeof(*head) &&
		    head->futex_offset == NEXT_TO_WORD_OFFSET) {
			self_head = head;
			self_head_state = 1;
		}
#endif
	}
	return self_head_state > 0 ? self_head : NULL;
}

int uspin_robust_list_available(void)
{
	return robust_head() != NULL;
}

void uspin_robust_after_fork(void)
{
	struct robust_list_head *head = NULL, *mine = robust_head();
	size_t len = 0;

	if (!mine || syscall(SYS_get_robust_list, 0, &head, &len) != 0 || head)
		return;
	/* Ownership is not inherited: start empty, as glibc's _Fork does. */
	mine->list.next = &mine->list;
	mine->list_op_pending = NULL;
	node_of(&mine->list)->prev = &mine->list;
	cmm_barrier();
	if (syscall(SYS_set_robust_list, mine, sizeof(*mine)) != 0)
		self_head_state = -1;
}

void uspin_robust_begin(uspin_mutex_t *m)
{
	struct robust_list_head *head = robust_head();

	if (!head)
		return;
	head->list_op_pending = (struct robust_list *)&m->robust_next;
	cmm_barrier();
}

void uspin_robust_end(void)
{
	struct robust_list_head *head = robust_head();

	if (!head)
		return;
	cmm_barrier();
	head->list_op_pending = NULL;
}

void uspin_robust_enqueue(uspin_mutex_t *m)
{
	struct robust_list_head *head = robust_head();

	if (!head)
		return;
	node_of(head->list.next)->prev = &m->robust_next;
	m->robust_next = head->list.next;
	m->robust_prev = &head->list.next;
	/* The node is complete before the kernel can reach it. */
	cmm_barrier();
	head->list.next = (struct robust_list *)&m->robust_next;
}

void uspin_robust_dequeue(uspin_mutex_t *m)
{
	if (!robust_head() || !m->robust_next)
		return;
	node_of(m->robust_next)->prev = m->robust_prev;
	node_of(m->robust_prev)->next = m->robust_next;
	/* Unlinked before the node's own next (read by the kernel) goes. */
	cmm_barrier();
	m->robust_prev = NULL;
	m->robust_next = NULL;
}
