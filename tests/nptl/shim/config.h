/* config.h for building glibc's test programs and support/ library outside a
   glibc build (tests/nptl).  glibc compiles tests with -include
   libc-symbols.h, which defines _GNU_SOURCE and pulls in the generated
   config.h; in the testsuite module (_ISOMAC) nothing else of it applies.
   These are the only settings the NPTL tests and support/ read.  */
#ifndef USPIN_NPTL_CONFIG_H
#define USPIN_NPTL_CONFIG_H 1

#define _GNU_SOURCE 1

/* config.h.in: integer that scales the timeout of test programs; the
   environment variable TIMEOUTFACTOR overrides it at run time.  */
#define TIMEOUTFACTOR 1

/* Internal symbol-visibility annotation used by include/scratch_buffer.h and
   include/allocate_once.h.  Outside libc the symbols are plain (GLIBC_PRIVATE)
   exports of libc.so.6, so the annotation is empty.  */
#define libc_hidden_proto(name, ...)

/* glibc's internal header wrappers pull <limits.h> in everywhere;
   support/temp_file.c (NAME_MAX) and support_descriptors.c (INT_MAX) rely
   on that.  */
#include <limits.h>

#endif
