/* tst-mutex8.c / tst-mutexpi8.c include glibc's internal <elf/dl-tunables.h>
   to ask, under "#if HAVE_TUNABLES", whether glibc.elision.enable is set:
   an elided mutex may be destroyed while locked, so the test then skips
   those checks.  Outside glibc HAVE_TUNABLES stays undefined, so the tests
   assume no elision -- which is true when they run: run-nptl-tests removes
   GLIBC_TUNABLES from their environment (elision is off by default, and
   this CPU family has no RTM).  */
