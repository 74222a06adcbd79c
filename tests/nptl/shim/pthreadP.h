/* tst-robust8.c and tst-robustpi8.c include glibc's internal <pthreadP.h>
   only to learn __PTHREAD_NPTL, under which a failure message also prints
   the mutex's __nusers field (part of the public pthread_mutex_t).  Nothing
   else of the internal header is used, so the tests' verdicts are the
   same as in a glibc build.  */
#ifndef USPIN_NPTL_PTHREADP_H
#define USPIN_NPTL_PTHREADP_H 1
#define __PTHREAD_NPTL 1
#endif
