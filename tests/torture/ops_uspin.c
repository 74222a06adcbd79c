// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * ops_uspin.c - the torture test on libuspin's own API.  Every mutex is
 * AUTO, so USPIN_POLICY chooses what it does (the runner sets it).
 */
#include <uspin.h>

#include "mutex_impl.h"
#include "torture.h"

_Static_assert(sizeof(uspin_mutex_t) <= TORTURE_OBJ_BYTES, "mutex fits");
_Static_assert(sizeof(uspin_cond_t) <= TORTURE_OBJ_BYTES, "condvar fits");

static unsigned int kind_flags(enum torture_kind kind)
{
	switch (kind) {
	case TK_PRIVATE:
		break;
	case TK_SHARED:
		return USPIN_PROCESS_SHARED;
	case TK_ROBUST:
		return USPIN_PROCESS_SHARED | USPIN_ROBUST;
	}
	return 0;
}

static int mutex_init(void *m, enum torture_kind kind, enum torture_type type)
{
	return uspin_mutex_init(m, kind_flags(kind));
}

static int mutex_destroy(void *m)
{
	return uspin_mutex_destroy(m);
}

static int lock(void *m)
{
	return uspin_mutex_lock(m);
}

static int trylock(void *m)
{
	return uspin_mutex_trylock(m);
}

static int timedlock(void *m, const struct timespec *abstime)
{
	return uspin_mutex_timedlock(m, abstime);
}

static int unlock(void *m)
{
	return uspin_mutex_unlock(m);
}

static int consistent(void *m)
{
	return uspin_mutex_consistent(m);
}

static int cond_init(void *c, enum torture_kind kind)
{
	return uspin_cond_init(c, kind == TK_PRIVATE ? 0 : USPIN_PROCESS_SHARED);
}

static int cond_destroy(void *c)
{
	return uspin_cond_destroy(c);
}

static int cond_wait(void *c, void *m)
{
	return uspin_cond_wait(c, m);
}

static int cond_timedwait(void *c, void *m, const struct timespec *abstime)
{
	return uspin_cond_timedwait(c, m, abstime);
}

static int cond_signal(void *c)
{
	return uspin_cond_signal(c);
}

static int cond_broadcast(void *c)
{
	return uspin_cond_broadcast(c);
}

static void set_max_spinners(unsigned int n)
{
	uspin_setup_run();
	uspin_setup_state.max_spinners = n;
}

const struct torture_ops torture_ops = {
	.name = "uspin",
	.nr_types = 1,
	.mutex_init = mutex_init,
	.mutex_destroy = mutex_destroy,
	.lock = lock,
	.trylock = trylock,
	.timedlock = timedlock,
	.unlock = unlock,
	.consistent = consistent,
	.cond_init = cond_init,
	.cond_destroy = cond_destroy,
	.cond_wait = cond_wait,
	.cond_timedwait = cond_timedwait,
	.cond_signal = cond_signal,
	.cond_broadcast = cond_broadcast,
	.set_max_spinners = set_max_spinners,
};
