/* The one macro of glibc's internal <atomic.h> that include/allocate_once.h
   (used by support_small_stack_thread_attribute.c) needs, with the same
   acquire semantics.  */
#ifndef USPIN_NPTL_ATOMIC_H
#define USPIN_NPTL_ATOMIC_H 1
#include <stdlib.h>	/* as glibc's atomic.h (abort) */
#define atomic_load_acquire(mem) __atomic_load_n ((mem), __ATOMIC_ACQUIRE)
#endif
