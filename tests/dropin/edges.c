// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * edges.c - where a mutex or condvar may escape the drop-in, or meet it
 * in a state it did not make:
 *  - "before the preload took effect": the executable's .preinit_array
 *    and a DT_NEEDED library's constructor run before libuspin-pthread's
 *    own constructor (uspin's setup); mutexes they lock (and leave
 *    locked) must behave afterwards (checked from main(), on the thread
 *    that locked them, before Check forks: see early_record());
 *  - mutexes and condvars initialised by glibc itself (its own
 *    pthread_mutex_init, reached around the interposition, as code that
 *    bypasses it or a process without the preload would): robust and
 *    process-shared kinds keep their meaning, a condvar keeps its clock;
 *  - dlopen()ed libraries bind to the drop-in and share objects with the
 *    program; one loaded RTLD_DEEPBIND binds to glibc (a documented
 *    bypass) and its own mutexes stay consistent.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <sys/mman.h>

#include "../scenarios/cond.h"
#include "../scenarios/process.h"
#include "util.h"

/* ---- .preinit_array: the very first user code ---- */
static pthread_mutex_t pre_rec = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
static pthread_mutex_t pre_normal = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t pre_cond = PTHREAD_COND_INITIALIZER;
static int pre_results[4];
static uint32_t pre_word;

static void preinit(int argc, char **argv, char **envp)
{
	pre_results[0] = pthread_mutex_lock(&pre_rec);
	pre_results[1] = pthread_mutex_lock(&pre_rec);
	pre_results[2] = pthread_mutex_lock(&pre_normal);
	pre_word = word_of(&pre_normal);
	pre_results[3] = pthread_cond_broadcast(&pre_cond);
	(void)argc, (void)argv, (void)envp;
}

__attribute__((section(".preinit_array"), used))
static void (*const preinit_entry)(int, char **, char **) = preinit;

/* libearly.so's constructor */
extern pthread_mutex_t early_held, early_rec, early_pi;
extern int early_results[8];
extern uint32_t early_word, early_tid;

/* What main() found, on the thread that locked them (before any fork). */
static int early_after[8];
static int early_on_uspin;

void early_record(void);
void early_record(void)
{
	early_on_uspin = on_uspin();
	/* preinit's locks, released by the same thread */
	early_after[0] = pthread_mutex_unlock(&pre_rec);
	early_after[1] = pthread_mutex_unlock(&pre_rec);
	early_after[2] = pthread_mutex_unlock(&pre_rec);	/* EPERM */
	early_after[3] = pthread_mutex_unlock(&pre_normal);
	/* the library constructor's */
	early_after[4] = pthread_mutex_lock(&early_held);	/* EDEADLK */
	early_after[5] = pthread_mutex_unlock(&early_held);
	early_after[6] = pthread_mutex_unlock(&early_rec) ||
			 pthread_mutex_unlock(&early_rec);
	early_after[7] = pthread_mutex_lock(&early_pi) ||
			 pthread_mutex_unlock(&early_pi);
}

START_TEST(preinit_and_constructor_locks)
{
	int i;

	for (i = 0; i < 4; i++)
		ck_assert_int_eq(pre_results[i], 0);
	for (i = 0; i < 8; i++)
		ck_assert_msg(early_results[i] == 0, "constructor step %d: %d", i,
			      early_results[i]);
	ck_assert_int_eq(early_after[0], 0);
	ck_assert_int_eq(early_after[1], 0);
	ck_assert_int_eq(early_after[2], EPERM);
	ck_assert_int_eq(early_after[3], 0);
	ck_assert_int_eq(early_after[4], EDEADLK);
	ck_assert_int_eq(early_after[5], 0);
	ck_assert_int_eq(early_after[6], 0);
	ck_assert_int_eq(early_after[7], 0);
	/* On the drop-in, those early locks ran uspin's protocol already. */
	if (early_on_uspin) {
		ck_assert_uint_eq(pre_word, early_tid);
		ck_assert_uint_eq(early_word, early_tid);
	} else {
		ck_assert_uint_eq(pre_word, 1);
	}
	/* And they are plain free mutexes now. */
	ck_assert_int_eq(pthread_mutex_trylock(&pre_normal), 0);
	ck_assert_int_eq(pthread_mutex_unlock(&pre_normal), 0);
	ck_assert_int_eq(pthread_mutex_trylock(&early_held), 0);
	ck_assert_int_eq(pthread_mutex_unlock(&early_held), 0);
}
END_TEST

/* ---- objects glibc initialised ---- */
static void *libc_sym(const char *name)
{
	void *libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
	void *f;

	ck_assert_ptr_nonnull(libc);
	f = dlsym(libc, name);
	ck_assert_ptr_nonnull(f);
	return f;
}

static int glibc_mutex_init(pthread_mutex_t *m, int type, int robust,
			    int pshared)
{
	int (*init)(pthread_mutex_t *, const pthread_mutexattr_t *) =
		(int (*)(pthread_mutex_t *, const pthread_mutexattr_t *))
		libc_sym("pthread_mutex_init");
	pthread_mutexattr_t a;
	int r;

	pthread_mutexattr_init(&a);
	pthread_mutexattr_settype(&a, type);
	if (robust)
		pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
	if (pshared)
		pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED);
	r = init(m, &a);
	pthread_mutexattr_destroy(&a);
	return r;
}

START_TEST(glibc_initialised_robust)
{
	pthread_mutex_t m;

	ck_assert_int_eq(glibc_mutex_init(&m, PTHREAD_MUTEX_ERRORCHECK, 1, 0), 0);
	ck_assert_int_eq(pthread_mutex_lock(&m), 0);
	ck_assert_int_eq(pthread_mutex_lock(&m), EDEADLK);
	ck_assert_int_eq(pthread_mutex_unlock(&m), 0);
	sc_owner_thread_exits(&m);
}
END_TEST

/* Parent and child take turns on them (scenarios/cond.c). */
START_TEST(glibc_initialised_pshared)
{
	struct sc_pair *p = mmap(NULL, sizeof(*p), PROT_READ | PROT_WRITE,
				 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	int (*cinit)(pthread_cond_t *, const pthread_condattr_t *) =
		(int (*)(pthread_cond_t *, const pthread_condattr_t *))
		libc_sym("pthread_cond_init");
	pthread_condattr_t ca;

	ck_assert_ptr_ne(p, MAP_FAILED);
	ck_assert_int_eq(glibc_mutex_init((pthread_mutex_t *)&p->m,
					  PTHREAD_MUTEX_NORMAL, 0, 1), 0);
	pthread_condattr_init(&ca);
	pthread_condattr_setpshared(&ca, PTHREAD_PROCESS_SHARED);
	ck_assert_int_eq(cinit((pthread_cond_t *)&p->c, &ca), 0);
	sc_ping_pong(p, 100);
	sc_pair_unmap(p);
}
END_TEST

/* A condvar glibc initialised for CLOCK_MONOTONIC keeps that clock. */
START_TEST(glibc_initialised_cond_clock)
{
	int (*cinit)(pthread_cond_t *, const pthread_condattr_t *) =
		(int (*)(pthread_cond_t *, const pthread_condattr_t *))
		libc_sym("pthread_cond_init");
	pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
	pthread_condattr_t ca;
	pthread_cond_t c;
	struct timespec d;

	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	ck_assert_int_eq(cinit(&c, &ca), 0);
	pthread_mutex_lock(&m);
	d = deadline_in(CLOCK_MONOTONIC, 30000000);
	ck_assert_int_eq(pthread_cond_timedwait(&c, &m, &d), ETIMEDOUT);
	ck_assert_int_ge(now_on(CLOCK_MONOTONIC), ts_ns(&d));
	pthread_mutex_unlock(&m);
	ck_assert_int_eq(pthread_cond_destroy(&c), 0);
}
END_TEST

/* ---- dlopen ---- */
struct helper {
	void *h;
	uint32_t (*own_word)(void);
	int (*lock)(pthread_mutex_t *);
	int (*unlock)(pthread_mutex_t *);
	int (*wait)(pthread_cond_t *, pthread_mutex_t *);
	int (*signal)(pthread_cond_t *);
};

static void helper_open(struct helper *x, const char *name, int flags)
{
	char path[4096];
	const char *dir = getenv("DROPIN_HELPER_DIR");

	snprintf(path, sizeof(path), "%s/%s", dir ? dir : ".", name);
	x->h = dlopen(path, flags);
	ck_assert_msg(x->h != NULL, "dlopen %s: %s", path, dlerror());
	*(void **)&x->own_word = dlsym(x->h, "helper_own_word");
	*(void **)&x->lock = dlsym(x->h, "helper_lock");
	*(void **)&x->unlock = dlsym(x->h, "helper_unlock");
	*(void **)&x->wait = dlsym(x->h, "helper_wait");
	*(void **)&x->signal = dlsym(x->h, "helper_signal");
	ck_assert(x->own_word && x->lock && x->unlock && x->wait && x->signal);
}

struct pingpong {
	struct helper *x;
	pthread_mutex_t m;
	pthread_cond_t c;
	int turn, rounds;
};

static void *helper_side(void *arg)
{
	struct pingpong *p = arg;
	int i;

	for (i = 0; i < p->rounds; i++) {
		p->x->lock(&p->m);
		while (p->turn != 1)
			p->x->wait(&p->c, &p->m);
		p->turn = 0;
		p->x->signal(&p->c);
		p->x->unlock(&p->m);
	}
	return NULL;
}

START_TEST(dlopened_library_shares_objects)
{
	struct helper x;
	struct pingpong p = { .x = &x, .m = PTHREAD_ERRORCHECK_MUTEX_INITIALIZER_NP,
			      .c = PTHREAD_COND_INITIALIZER, .rounds = 200 };
	pthread_t t;
	int i;

	helper_open(&x, "libhelper.so", RTLD_NOW | RTLD_LOCAL);
	/* It binds where the program does. */
	if (on_uspin())
		ck_assert_uint_eq(x.own_word() & 0x3fffffff, sys_gettid());
	else
		ck_assert_uint_eq(x.own_word(), 1);
	/* Objects pass both ways: the program locks, the library unlocks. */
	ck_assert_int_eq(pthread_mutex_lock(&p.m), 0);
	ck_assert_int_eq(x.lock(&p.m), EDEADLK);
	ck_assert_int_eq(x.unlock(&p.m), 0);
	ck_assert_int_eq(pthread_create(&t, NULL, helper_side, &p), 0);
	for (i = 0; i < p.rounds; i++) {
		pthread_mutex_lock(&p.m);
		while (p.turn != 0)
			pthread_cond_wait(&p.c, &p.m);
		p.turn = 1;
		pthread_cond_signal(&p.c);
		pthread_mutex_unlock(&p.m);
	}
	pthread_join(t, NULL);
	dlclose(x.h);
}
END_TEST

/* RTLD_DEEPBIND: the library's own scope (libc) first - glibc runs its
   calls.  Its own objects stay consistent; sharing one with the program
   would mix two protocols on one word (docs/pthread-dropin.md). */
START_TEST(deepbind_library_bypasses)
{
	struct helper x;
	pthread_mutex_t m;
	int i;

	helper_open(&x, "libhelper-deep.so", RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
	ck_assert_uint_eq(x.own_word(), 1);	/* glibc's protocol, always */
	pthread_mutex_init(&m, NULL);		/* ... so give it its own */
	for (i = 0; i < 100; i++) {
		ck_assert_int_eq(x.lock(&m), 0);
		ck_assert_int_eq(x.unlock(&m), 0);
	}
	dlclose(x.h);
}
END_TEST

Suite *suite_edges(void)
{
	TCase *tc;
	Suite *s = check_suite_one("edges", 60, &tc);

	tcase_add_test(tc, preinit_and_constructor_locks);
	tcase_add_test(tc, glibc_initialised_robust);
	tcase_add_test(tc, glibc_initialised_pshared);
	tcase_add_test(tc, glibc_initialised_cond_clock);
	tcase_add_test(tc, dlopened_library_shares_objects);
	tcase_add_test(tc, deepbind_library_bypasses);
	return s;
}
