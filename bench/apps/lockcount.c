// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * apps-lockcount.so - counts an application's lock calls (LD_PRELOAD).
 *
 * `make bench-apps-lockcount` runs every application once under glibc
 * with this library preloaded by apps-util (APPS_LOCKCOUNT_SO), to say
 * what each workload exercises: how many mutex and condvar calls per
 * operation (what the pthread drop-in replaces) against rwlock and
 * sched_yield() calls (what stays glibc's).  Counting only: the atomic
 * counters change the timing, so it is never part of a measured run.
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
	SCHED_YIELD, NCOUNTERS
};

static const char *const names[NCOUNTERS] = {
	"mutex_lock", "mutex_trylock", "mutex_timedlock", "cond_wait",
	"cond_timedwait", "cond_signal", "cond_broadcast", "rwlock_rdlock",
	"rwlock_wrlock", "rwlock_trylock", "spin_lock", "sched_yield",
};

static unsigned long counters[NCOUNTERS];

#define COUNT(i) __atomic_fetch_add(&counters[i], 1, __ATOMIC_RELAXED)
#define NEXT(name) ({							\
	static __typeof__(name) *real;					\
	if (!real)							\
		real = (__typeof__(name) *)dlsym(RTLD_NEXT, #name);	\
	real;								\
})

int pthread_mutex_lock(pthread_mutex_t *m)
{
	COUNT(MUTEX_LOCK);
	return NEXT(pthread_mutex_lock)(m);
}

int pthread_mutex_trylock(pthread_mutex_t *m)
{
	COUNT(MUTEX_TRYLOCK);
	return NEXT(pthread_mutex_trylock)(m);
}

int pthread_mutex_timedlock(pthread_mutex_t *m, const struct timespec *t)
{
	COUNT(MUTEX_TIMEDLOCK);
	return NEXT(pthread_mutex_timedlock)(m, t);
}

int pthread_cond_wait(pthread_cond_t *c, pthread_mutex_t *m)
{
	COUNT(COND_WAIT);
	return NEXT(pthread_cond_wait)(c, m);
}

int pthread_cond_timedwait(pthread_cond_t *c, pthread_mutex_t *m, const struct timespec *t)
{
	COUNT(COND_TIMEDWAIT);
	return NEXT(pthread_cond_timedwait)(c, m, t);
}

int pthread_cond_clockwait(pthread_cond_t *c, pthread_mutex_t *m, clockid_t id,
			   const struct timespec *t)
{
	COUNT(COND_TIMEDWAIT);
	return NEXT(pthread_cond_clockwait)(c, m, id, t);
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
