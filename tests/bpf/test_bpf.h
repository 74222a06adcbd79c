/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * test_bpf.h - shared by the BPF provider's Check suites (test-bpf).
 *
 * run-check-bpf.sh starts a private uspin-stated and exports
 * USPIN_STATED_SOCKET, USPIN_STATED_PIDFILE and USPIN_INFO_BIN.  Check has
 * no skip status: main() leaves out the test cases whose precondition
 * (root, a helper answering) does not hold, prints "SKIP: ..." for each
 * and counts them in its summary.
 */
#ifndef USPIN_TEST_BPF_H
#define USPIN_TEST_BPF_H

#include <stddef.h>

#include "stated/proto.h"
#include "test_util.h"

#define NOBODY_ID	65534

/*
 * One raw exchange with the helper: send @len bytes of @req (nothing if
 * @len is 0).  Returns the reply length or -errno; *fd gets the passed fd
 * or -1.
 */
int helper_exchange(const void *req, size_t len,
		    struct uspin_stated_reply *rep, int *fd);
/* A well-formed request. */
struct uspin_stated_req good_request(void);
/* Drop to uid/gid 65534 with no supplementary groups; 0 or -errno. */
int become_nobody(void);

TCase *tcase_helper_protocol(void);
TCase *tcase_unprivileged(void);
TCase *tcase_provider(void);
TCase *tcase_root_only(void);
TCase *tcase_uspin_info(void);

#endif
