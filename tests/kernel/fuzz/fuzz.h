/* SPDX-License-Identifier: MIT */
/*
 * fuzz.h — the action-registration interface of uspin-fuzz, a bounded-time
 * fuzzer for the kernel's new ABI, run in the debug guest (KASAN, UBSAN,
 * lockdep) by `make vm-check KCONFIG=debug`.
 *
 * The binary is every .c file of tests/kernel/fuzz linked together; fuzz_main.c is
 * the driver.  A source file adds cases without editing any other file:
 *
 *   #include "fuzz.h"
 *
 *   static void my_setup(void) { ... }            // once, before workers
 *   FUZZ_SETUP(my_setup);
 *   static void my_teardown(void) { ... }         // once, after workers
 *   FUZZ_TEARDOWN(my_teardown);
 *
 *   static void mremap_it(struct fuzz_thread *t)
 *   {
 *           long r = syscall(...);
 *           fuzz_result(t, "mremap", r, r < 0 ? errno : 0, FUZZ_ERRNOS(EINVAL, EFAULT));
 *   }
 *   FUZZ_ACTION(mremap_it, 10);                   // relative weight
 *
 * Workers (-t, default 16 threads) pick actions at random by weight until
 * the run time (-s, or $USPIN_FUZZ_SECONDS) is over.  An action must come
 * back within about a second (finite timeouts; fuzz_stopping() tells it to
 * hurry); workers that have not come back 60 s after the end are a hang.
 * Every system call is reported with fuzz_result(), which counts it and
 * fails the run if its errno is not among the allowed ones.  Child processes
 * made with fuzz_fork() are killed and reaped at the end.
 */
#ifndef USPIN_FUZZ_H
#define USPIN_FUZZ_H

#include <errno.h>
#include <stdint.h>
#include <sys/types.h>

struct fuzz_thread {
	unsigned int id;	/* worker index; FUZZ_NO_WORKER elsewhere */
	pid_t tid;		/* gettid() of the worker */
	uint64_t rng;		/* fuzz_rand() state */
	unsigned long calls;	/* system calls reported by this thread */
};
#define FUZZ_NO_WORKER (~0u)

struct fuzz_action {
	const char *name;
	unsigned int weight;	/* relative frequency; 0 disables it */
	void (*run)(struct fuzz_thread *t);
};

void fuzz_register_action(const struct fuzz_action *a);
void fuzz_register_setup(void (*fn)(void));
void fuzz_register_teardown(void (*fn)(void));

#define FUZZ_ACTION(fn, weight)						\
	static const struct fuzz_action fuzz_action_##fn = { #fn, weight, fn }; \
	__attribute__((constructor)) static void fuzz_reg_##fn(void)	\
	{								\
		fuzz_register_action(&fuzz_action_##fn);		\
	}
#define FUZZ_SETUP(fn)							\
	__attribute__((constructor)) static void fuzz_reg_setup_##fn(void) \
	{								\
		fuzz_register_setup(fn);				\
	}
#define FUZZ_TEARDOWN(fn)						\
	__attribute__((constructor)) static void fuzz_reg_teardown_##fn(void) \
	{								\
		fuzz_register_teardown(fn);				\
	}

/* Random numbers: a per-thread xorshift64*, seeded from -S SEED. */
uint64_t fuzz_rand(struct fuzz_thread *t);
static inline uint32_t fuzz_below(struct fuzz_thread *t, uint32_t n)
{
	return n ? (uint32_t)(fuzz_rand(t) % n) : 0;
}
static inline int fuzz_chance(struct fuzz_thread *t, unsigned int percent)
{
	return fuzz_below(t, 100) < percent;
}

/*
 * Report one system call: @what names it in the summary (a string literal
 * or other static string), @ret is its return value, @err its errno (0 on
 * success).  A failure whose errno is not in @allowed (a 0-terminated
 * list, see FUZZ_ERRNOS) is a finding: printed, and the run fails.
 * Returns @err.
 */
int fuzz_result(struct fuzz_thread *t, const char *what, long ret, int err,
		 const int *allowed);
#define FUZZ_ERRNOS(...) ((const int[]){ __VA_ARGS__, 0 })

/* A finding that is not an errno (a broken invariant): the run fails. */
void fuzz_fail(struct fuzz_thread *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * Store @val at @addr, which another thread may unmap or write-protect at
 * any time: returns 0, or -1 if the store faulted (SIGSEGV/SIGBUS are
 * caught for this).
 */
int fuzz_poke(volatile uint32_t *addr, uint32_t val);

/* The run time is over: actions should return soon. */
int fuzz_stopping(void);

/*
 * fork() a child that runs @fn(@arg) and _exit()s with its return value;
 * at most a few children are alive at once (returns 0 when the limit is
 * reached, the child's pid otherwise, -1 on error).  The driver reaps
 * them; those alive at the end are killed (SIGKILL).  In the child, @t is
 * a copy: its calls are not counted.
 */
pid_t fuzz_fork(struct fuzz_thread *t, int (*fn)(struct fuzz_thread *, void *),
		void *arg);

/* TIDs of the workers (their thread ids; 0 until a worker has started). */
extern unsigned int fuzz_nthreads;
pid_t fuzz_worker_tid(unsigned int i);

#endif /* USPIN_FUZZ_H */
