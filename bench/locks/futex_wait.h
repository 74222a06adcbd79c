/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* futex_wait.h - the 0/1/2 slow paths futex_wait_adaptive.c reuses. */
#ifndef BENCH_FUTEX_WAIT_H
#define BENCH_FUTEX_WAIT_H

#include <stdint.h>

void futex_wait_lock_slow(uint32_t *w, uint32_t c);
void futex_wait_unlock(void *l);

#endif
