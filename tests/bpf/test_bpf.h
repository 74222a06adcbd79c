/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * test_bpf.h - shared by the BPF provider's Check suites (test-bpf).
 *
 * run-check-bpf.sh starts a private uspin-stated and exports
 * USPIN_STATED_SOCKET, USPIN_STATED_PID, USPIN_STATED_LOG (its stderr),
 * USPIN_STATED_BIN, USPIN_INFO_BIN, USPIN_BPF_TEST_DIR (scratch space;
 * the pids of helpers the tests start are appended to its file "pids" so
 * the runner can stop them if a test dies) and USPIN_BPF_TEST_PIN (prefix
 * of bpffs pin directories the tests may create; the runner removes them).
 * Check has no skip status: main() leaves out the test cases whose
 * precondition (root, a helper answering) does not hold, prints
 * "SKIP: ..." for each and counts them in its summary.
 */
#ifndef USPIN_TEST_BPF_H
#define USPIN_TEST_BPF_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "running_state.h"
#include "stated/proto.h"
#include "test_util.h"

#define NOBODY_ID	65534

/*
 * One raw exchange with the helper at @sock (the runner's if NULL): send
 * @len bytes of @req (an empty message if @len is 0).  Returns the reply
 * length or -errno; fds[] get the passed fds or -1 (the caller closes).
 */
int helper_exchange_at(const char *sock, const void *req, size_t len,
		       struct uspin_stated_reply *rep, int fds[2]);
int helper_exchange(const void *req, size_t len,
		    struct uspin_stated_reply *rep, int fds[2]);
/* A well-formed request. */
struct uspin_stated_req good_request(void);
/* Connect to @sock (the runner's if NULL) and say nothing; the fd. */
int silent_connect(const char *sock);
/* Drop to uid/gid 65534 with no supplementary groups; 0 or -errno. */
int become_nobody(void);

/* A helper a test starts itself, with its own socket, status and pin. */
struct helper {
	pid_t pid;
	char dir[160];
	char sock[200], status[200], pin[200], log[200];
};
/* Paths under the runner's scratch directory, named @name. */
void helper_paths(struct helper *h, const char *name);
/* Start it (extra options, NULL-terminated) and wait until it serves. */
void helper_start(struct helper *h, const char *const *extra);
/* Signal it and reap it; its exit status. */
int helper_stop(struct helper *h, int sig);
/* uspin-stated --remove for its paths. */
void helper_remove(struct helper *h);
/* The helper's log so far (for messages), in a static buffer. */
const char *helper_log(const char *path);

struct bpf_prog_info;
/*
 * The next loaded BPF program after *@id (0: the first) that uses the map
 * @map_id: its fd, which the caller closes, with *@info filled, or -1
 * when there is none (its map list is not kept).  *@id is that program's id.
 */
int next_prog_using_map(uint32_t map_id, uint32_t *id,
			struct bpf_prog_info *info);

/* Attach the bpf provider into @v, as libuspin's setup would. */
int view_attach(struct uspin_rs_view *v);
/* uspin_rs_query() on a view of our own. */
enum uspin_rs_answer view_query(const struct uspin_rs_view *v, uint32_t tid);
const char *answer_name(enum uspin_rs_answer a);

/* A child running "test-bpf client MODE" with its stdin/stdout as pipes. */
struct client {
	pid_t pid;
	int in;		/* write end of its stdin: close to end it */
	int out;	/* read end of its stdout */
};
/* Start it with @env (NULL-terminated "K=V" list added to ours). */
void client_start(struct client *c, const char *mode, const char *const *env);
/*
 * Read lines until one starts with @prefix, or @timeout_ms passes.
 * Returns 1 and the line (without newline) in @line, or 0.
 */
int client_expect(struct client *c, const char *prefix, char *line,
		  size_t len, int timeout_ms);
void client_stop(struct client *c);
/* The client side: test-bpf client MODE.  Returns the exit status. */
int client_main(const char *mode);
/* test-bpf measure: the numbers for docs/bpf-provider.md. */
int measure_main(void);

/* Ids of loaded BPF programs whose name starts with "uspin_". */
int uspin_prog_ids(uint32_t *ids, int max);

TCase *tcase_helper_protocol(void);
TCase *tcase_unprivileged(void);
TCase *tcase_group(void);
TCase *tcase_liveness(void);
TCase *tcase_provider(void);
TCase *tcase_root_only(void);
TCase *tcase_uspin_info(void);

#endif
