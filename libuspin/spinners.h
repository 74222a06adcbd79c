/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * spinners.h - who may spin on a mutex, and in which order (spinners.c):
 * a private mutex's spinners queue (an OSQ: only the head watches the
 * owner and the word), a shared one's are a bounded count.
 */
#ifndef USPIN_SPINNERS_H
#define USPIN_SPINNERS_H

#include "internal.h"

/* A spin phase's place among the spinners of its mutex. */
struct uspin_spinner {
	uspin_mutex_t *m;
	uint32_t tid;
	int queued;		/* in the queue (private), else counted */
	uint64_t alive;		/* counted: when it last said so */
};

enum uspin_spinner_state {
	SPINNER_REFUSED,	/* enough spinners: block */
	SPINNER_HEAD,		/* spin on the owner and the word now */
	SPINNER_QUEUED,		/* wait for uspin_spinner_turn() */
};

/* Setup: map the queue's nodes (a TID-indexed table, never freed). */
void uspin_spinners_setup(void) USPIN_HIDDEN;

enum uspin_spinner_state uspin_spinner_enter(struct uspin_spinner *sp,
					     uspin_mutex_t *m, uint32_t tid)
	USPIN_HIDDEN;
/* Queued: is it our turn (then we are the head)? */
int uspin_spinner_turn(const struct uspin_spinner *sp) USPIN_HIDDEN;
/* Queued: the TID of the spinner ahead of us. */
uint32_t uspin_spinner_ahead(const struct uspin_spinner *sp) USPIN_HIDDEN;
/* Queued: leave before our turn; 1 if it came meanwhile (now the head). */
int uspin_spinner_unqueue(struct uspin_spinner *sp) USPIN_HIDDEN;
/* The head leaves: the next one's turn.  A full barrier. */
void uspin_spinner_leave(struct uspin_spinner *sp) USPIN_HIDDEN;
/* The head of a shared mutex says it is alive, now and then. */
void uspin_spinner_alive(struct uspin_spinner *sp, uint64_t now) USPIN_HIDDEN;
/* For tests: the place in the queue @tid had when it joined (0: none). */
uint32_t uspin_spinner_depth(uint32_t tid) USPIN_HIDDEN;

#endif
