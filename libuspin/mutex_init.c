// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * mutex_init.c - init, destroy, consistent: the calls around the lock.
 */
#include <errno.h>
#include <string.h>

#include "mutex_flags.h"

int uspin_mutex_init(uspin_mutex_t *m, unsigned int flags)
{
	if (!m || (flags & ~USPIN_INIT_FLAGS) ||
	    (flags & USPIN_POLICY_MASK) >= USPIN_POLICY_COUNT)
		return EINVAL;
	memset(m, 0, sizeof(*m));
	m->flags = flags;
	return 0;
}

int uspin_mutex_destroy(uspin_mutex_t *m)
{
	if (!m)
		return EINVAL;
	if (WORD_TID(CMM_LOAD_SHARED(m->word)))
		return EBUSY;
	return 0;
}

/* After EOWNERDEAD: the owner declares the protected state repaired. */
int uspin_mutex_consistent(uspin_mutex_t *m)
{
	uint32_t v;

	if (!m)
		return EINVAL;
	v = CMM_LOAD_SHARED(m->word);
	if (!uspin_mutex_owned(m) || !(v & FUTEX_OWNER_DIED))
		return EINVAL;
	uatomic_and(&m->word, ~(uint32_t)FUTEX_OWNER_DIED);
	return 0;
}
