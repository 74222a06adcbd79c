// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * apps-lockcount.so - counts an application's lock calls (LD_PRELOAD).
 *
 * `make bench-apps-lockcount` runs every application once under glibc
 * with this library preloaded by apps-util (APPS_LOCKCOUNT_SO), to say
 * what each workload exercises: how many mutex and condvar calls per
 * operation (what the pthread drop-in replaces) against rwlock and
 * sched_yield() calls (what stays glibc's), and how long the mutexes are
 * held (lock to unlock, or to a condvar wait that releases it), in decades
 * from 1 us: what says whether an owner's running state can matter (a
 * futex sleep and wake-up costs a few us; spinning through 50 us pays).
 * Counting only: the counters and clock reads change the timing, so it is
 * never part of a measured run.
 *
 * At exit each process writes one line, "key=value ...", to
 * $APPS_LOCKCOUNT_DIR/<pid>; apps-util renames it next to the rusage.
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

enum {
	MUTEX_LOCK, MUTEX_TRYLOCK, MUTEX_TIMEDLOCK, COND_WAIT, COND_TIMEDWAIT,
	COND_SIGNAL, COND_BROADCAST, RWLOCK_RD, RWLOCK_WR, RWLOCK_TRY, SPIN_LOCK,
	SCHED_YIELD, HOLD_LT1US, HOLD_1US, HOLD_10US, HOLD_100US, HOLD_1MS,
	NCOUNTERS
};

static const char *const names[NCOUNTERS] = {
	"mutex_lock", "mutex_trylock", "mutex_timedlock", "cond_wait",
	"cond_timedwait", "cond_signal", "cond_broadcast", "rwlock_rdlock",
	"rwlock_wrlock", "rwlock_trylock", "spin_lock", "sched_yield",
	"hold_lt1us", "hold_1us", "hold_10us", "hold_100us", "hold_1ms",
};

static unsigned long counters[NCOUNTERS];

#define COUNT(i) __atomic_fetch_add(&counters[i], 1, __ATOMIC_RELAXED)
#define NEXT(name) ({							\
	static __typeof__(name) *real;					\
	if (!real)							\
		real = (__typeof__(name) *)dlsym(RTLD_NEXT, #name);	\
	real;								\
})

/*
 * The mutexes this thread holds, innermost last, with when it took each;
 * deeper nesting than this is not timed.
 */
#define HELD_MAX 16
static __thread struct { pthread_mutex_t *m; long long t0; } held[HELD_MAX];
static __thread int nheld;

static long long now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000LL + t.tv_nsec;
}

static int took(pthread_mutex_t *m, int ret)
{
	if (ret == 0 && nheld < HELD_MAX) {
		held[nheld].m = m;
		held[nheld++].t0 = now_ns();
	}
	return ret;
}

/* @m is released: count how long it was held, in decades from 1 us. */
static void released(pthread_mutex_t *m)
{
	long long ns;
	int i, k;

	for (i = nheld - 1; i >= 0 && held[i].m != m; i--)
		;
	if (i < 0)
		return;
	ns = now_ns() - held[i].t0;
	held[i] = held[--nheld];
	for (k = HOLD_LT1US; k < HOLD_1MS && ns >= 1000; k++)
		ns /= 10;
	COUNT(k);
}

int pthread_mutex_lock(pthread_mutex_t *m)
{
	COUNT(MUTEX_LOCK);
	return took(m, NEXT(pthread_mutex_lock)(m));
}

int pthread_mutex_trylock(pthread_mutex_t *m)
{
	COUNT(MUTEX_TRYLOCK);
	return took(m, NEXT(pthread_mutex_trylock)(m));
}

int pthread_mutex_timedlock(pthread_mutex_t *m, const struct timespec *t)
{
	COUNT(MUTEX_TIMEDLOCK);
	return took(m, NEXT(pthread_mutex_timedlock)(m, t));
}

int pthread_mutex_unlock(pthread_mutex_t *m)
{
	released(m);
	return NEXT(pthread_mutex_unlock)(m);
}

/* A condvar wait releases the mutex and takes it again: two holds. */
int pthread_cond_wait(pthread_cond_t *c, pthread_mutex_t *m)
{
	COUNT(COND_WAIT);
	released(m);
	return took(m, NEXT(pthread_cond_wait)(c, m));
}

int pthread_cond_timedwait(pthread_cond_t *c, pthread_mutex_t *m, const struct timespec *t)
{
	int ret;

	COUNT(COND_TIMEDWAIT);
	released(m);
	ret = NEXT(pthread_cond_timedwait)(c, m, t);
	took(m, 0);	/* held again on ETIMEDOUT too */
	return ret;
}

int pthread_cond_clockwait(pthread_cond_t *c, pthread_mutex_t *m, clockid_t id,
			   const struct timespec *t)
{
	int ret;

	COUNT(COND_TIMEDWAIT);
	released(m);
	ret = NEXT(pthread_cond_clockwait)(c, m, id, t);
	took(m, 0);
	return ret;
}

int pthread_cond_signal(pthread_cond_t *c)
{
	COUNT(COND_SIGNAL);
	return NEXT(pthread_cond_signal)(c);
}

int pthread_cond_broadcast(pthread_cond_t *c)
{
	COUNT(COND_BROADCAST);
	return NEXT(pthread_cond_broadcast)(c);
}

int pthread_rwlock_rdlock(pthread_rwlock_t *l)
{
	COUNT(RWLOCK_RD);
	return NEXT(pthread_rwlock_rdlock)(l);
}

int pthread_rwlock_wrlock(pthread_rwlock_t *l)
{
	COUNT(RWLOCK_WR);
	return NEXT(pthread_rwlock_wrlock)(l);
}

int pthread_rwlock_tryrdlock(pthread_rwlock_t *l)
{
	COUNT(RWLOCK_TRY);
	return NEXT(pthread_rwlock_tryrdlock)(l);
}

int pthread_rwlock_trywrlock(pthread_rwlock_t *l)
{
	COUNT(RWLOCK_TRY);
	return NEXT(pthread_rwlock_trywrlock)(l);
}

int pthread_spin_lock(pthread_spinlock_t *l)
{
	COUNT(SPIN_LOCK);
	return NEXT(pthread_spin_lock)(l);
}

int sched_yield(void)
{
	COUNT(SCHED_YIELD);
	return NEXT(sched_yield)();
}

__attribute__((destructor)) static void lockcount_dump(void)
{
	const char *dir = getenv("APPS_LOCKCOUNT_DIR");
	char path[4096], line[1024];
	int fd, n = 0, i;

	if (!dir)
		return;
	snprintf(path, sizeof(path), "%s/%d", dir, (int)getpid());
	for (i = 0; i < NCOUNTERS; i++)
		n += snprintf(line + n, sizeof(line) - n, "%s=%lu%s", names[i],
			      __atomic_load_n(&counters[i], __ATOMIC_RELAXED),
			      i + 1 < NCOUNTERS ? " " : "\n");
	fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0644);
	if (fd >= 0) {
		if (write(fd, line, n) != n)
			n = -1;
		close(fd);
	}
}
