// SPDX-License-Identifier: LGPL-2.1-or-later
/* futex_sys.c - the per-thread TID the hand-made contenders put in words. */
#include "futex_sys.h"

__thread uint32_t bench_tid_cache;
