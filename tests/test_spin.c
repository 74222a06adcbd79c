// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * test_spin.c - the spin phase of libuspin v3 (libuspin/spin.c): what
 * stops a spinner, how many spin, and the unlock that leaves the word to a
 * spinner.  Times are read on the cycle counter (cycles.h), so the checks
 * hold on a jiffies clocksource too.
 *
 * Owners, waiters and preemptors are pinned to two CPUs of our mask; a
 * preemptor is a SCHED_FIFO thread, so it takes its CPU at once.  Checks
 * that need the running state run only with a provider attached (the
 * guest's array, uspin-stated on the host: make check-bpf), checks that
 * need SCHED_FIFO only where it is allowed; the suite says which it left
 * out.
 */
#include <errno.h>
#include <linux/futex.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cycles.h"
#include "running_state.h"
#include "setup.h"
#include "spin.h"
#include "spin_tuning.h"
#include "spinners.h"
#include "test_util.h"
#include "uspin_testing.h"

static int cpu_a = -1, cpu_b = -1;

static uint64_t us_cycles(uint64_t us)
{
	return us * uspin_setup()->cycles_per_us;
}

static double cycles_us(uint64_t c)
{
	return (double)c / uspin_setup()->cycles_per_us;
}

static int make_fifo(void)
{
	struct sched_param p = { .sched_priority = 1 };

	return pthread_setschedparam(pthread_self(), SCHED_FIFO, &p);
}

static void busy_until(uint64_t end)
{
	while (uspin_cycles() < end)
		caa_cpu_relax();
}

static void *try_fifo(void *arg)
{
	*(int *)arg = make_fifo();
	return NULL;
}

static int fifo_allowed(void)
{
	pthread_t t;
	int r = -1;

	if (pthread_create(&t, NULL, try_fifo, &r) != 0)
		return 0;
	pthread_join(t, NULL);
	return r == 0;
}

static int provider_attached(void)
{
	return strcmp(uspin_running_state_provider(), "none") != 0;
}

/* USPIN_RS_REQUIRE: the informed checks must not be left out unseen. */
START_TEST(required_provider_is_attached)
{
	const char *want = getenv("USPIN_RS_REQUIRE");

	ck_assert_msg(strcmp(uspin_running_state_provider(), want) == 0,
		      "provider %s attached, USPIN_RS_REQUIRE=%s",
		      uspin_running_state_provider(), want);
}
END_TEST

/* The spin knobs a check changes, restored after it. */
struct knobs {
	uint64_t spin_cap, preempt_gap;
	unsigned int max_spinners;
};

static struct knobs knobs_set(uint64_t cap_us, unsigned int max_spinners)
{
	struct knobs old = { uspin_setup_state.spin_cap,
			     uspin_setup_state.preempt_gap,
			     uspin_setup_state.max_spinners };

	uspin_setup_state.spin_cap = us_cycles(cap_us);
	uspin_setup_state.max_spinners = max_spinners;
	return old;
}

static void knobs_restore(struct knobs old)
{
	uspin_setup_state.spin_cap = old.spin_cap;
	uspin_setup_state.preempt_gap = old.preempt_gap;
	uspin_setup_state.max_spinners = old.max_spinners;
}

/* A waiter spins on @m or sleeps on it. */
static int waiter_arrived(uspin_mutex_t *m)
{
	return (__atomic_load_n(&m->spinner, __ATOMIC_ACQUIRE) & 0xff) ||
	       (__atomic_load_n(&m->word, __ATOMIC_ACQUIRE) & FUTEX_WAITERS);
}

/* Until a waiter arrives on @m, or for 5 s. */
static void await_waiter(uspin_mutex_t *m, int busy)
{
	uint64_t end = uspin_cycles() + us_cycles(5000000);

	while (!waiter_arrived(m) && uspin_cycles() < end)
		if (!busy)
			usleep(100);
}

/*
 * An owner pinned to @cpu that holds @m, running or asleep, for hold_us
 * once a waiter has arrived (timing from the start would race a loaded
 * machine); hold_us 0: until told to release.
 */
struct owner {
	pthread_t thread;
	uspin_mutex_t *m;
	int cpu, asleep;
	uint64_t hold_us;
	volatile int locked, release;
	struct uspin_thread_stats st;	/* of its unlock */
};

static void *owner_main(void *arg)
{
	struct owner *o = arg;

	pin_self(o->cpu);
	ck_assert_int_eq(uspin_mutex_lock(o->m), 0);
	__atomic_store_n(&o->locked, 1, __ATOMIC_RELEASE);
	if (!o->hold_us) {
		while (!__atomic_load_n(&o->release, __ATOMIC_ACQUIRE))
			if (o->asleep)
				usleep(100);
	} else {
		await_waiter(o->m, !o->asleep);
		if (o->asleep)
			usleep(o->hold_us);
		else
			busy_until(uspin_cycles() + us_cycles(o->hold_us));
	}
	uspin_thread_stats(&o->st, sizeof(o->st), 1);
	ck_assert_int_eq(uspin_mutex_unlock(o->m), 0);
	uspin_thread_stats(&o->st, sizeof(o->st), 0);
	return NULL;
}

static void owner_start(struct owner *o, uspin_mutex_t *m, int cpu, int asleep,
			uint64_t hold_us)
{
	memset(o, 0, sizeof(*o));
	o->m = m;
	o->cpu = cpu;
	o->asleep = asleep;
	o->hold_us = hold_us;
	ck_assert_int_eq(pthread_create(&o->thread, NULL, owner_main, o), 0);
	while (!__atomic_load_n(&o->locked, __ATOMIC_ACQUIRE))
		usleep(100);
}

/*
 * A SCHED_FIFO thread pinned to @cpu: once a waiter is on @o's mutex, it
 * runs busy_us (the thread it finds on that CPU is switched out at @ran),
 * then, 5 ms later, tells @o to release (so that the thread it preempted
 * finds the lock still taken).
 */
struct preemptor {
	pthread_t thread;
	int cpu;
	uint64_t busy_us;
	struct owner *o;
	volatile int pinned;
	volatile uint64_t ran;
};

static void *preemptor_main(void *arg)
{
	struct preemptor *p = arg;

	pin_self(p->cpu);
	ck_assert_int_eq(make_fifo(), 0);
	__atomic_store_n(&p->pinned, 1, __ATOMIC_RELEASE);
	await_waiter(p->o->m, 0);
	p->ran = uspin_cycles();
	busy_until(p->ran + us_cycles(p->busy_us));
	usleep(5000);
	__atomic_store_n(&p->o->release, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void preemptor_start(struct preemptor *p, int cpu, uint64_t busy_us,
			    struct owner *o)
{
	memset(p, 0, sizeof(*p));
	p->cpu = cpu;
	p->busy_us = busy_us;
	p->o = o;
	ck_assert_int_eq(pthread_create(&p->thread, NULL, preemptor_main, p), 0);
	/* Not first woken on the spinner's CPU, where it would want that CPU. */
	while (!__atomic_load_n(&p->pinned, __ATOMIC_ACQUIRE))
		usleep(100);
}

/* Lock @m on @cpu; the stats of that one call, and when it started. */
static uint64_t waiter_lock(uspin_mutex_t *m, int cpu, struct uspin_thread_stats *st)
{
	uint64_t start;

	pin_self(cpu);
	uspin_thread_stats(st, sizeof(*st), 1);
	start = uspin_cycles();
	ck_assert_int_eq(uspin_mutex_lock(m), 0);
	uspin_thread_stats(st, sizeof(*st), 0);
	ck_assert_int_eq(uspin_mutex_unlock(m), 0);
	return start;
}

static uint64_t spun_ns(const struct uspin_thread_stats *st)
{
	return st->spin_ns_acquired + st->spin_ns_wasted;
}

/*
 * An owner asleep in its critical section costs a waiter ~no spin.  A
 * waiter descheduled by other load between its start and its first look
 * counts that time as spin too: the shortest of three tries must be short.
 */
START_TEST(sleeping_owner_costs_no_spin)
{
	uint64_t best = UINT64_MAX;
	int try;

	for (try = 0; try < 3 && best > 200000; try++) {
		uspin_mutex_t m;
		struct uspin_thread_stats st;
		struct owner o;

		ck_assert_int_eq(uspin_mutex_init(&m, USPIN_POLICY_USER_ADAPTIVE), 0);
		owner_start(&o, &m, cpu_a, 1, 30000);
		waiter_lock(&m, cpu_b, &st);
		pthread_join(o.thread, NULL);
		printf("spin: owner asleep 30 ms: waiter spun %.1f us (%llu phases, %llu owner-off stops)\n",
		       spun_ns(&st) / 1e3, (unsigned long long)st.spin_phases,
		       (unsigned long long)st.spin_owner_off);
		ck_assert_uint_le(st.spin_phases, 2);
		if (spun_ns(&st) < best)
			best = spun_ns(&st);
	}
	ck_assert_uint_le(best, 200000);
}
END_TEST

/*
 * Shadow mode (USPIN_SHADOW=1): the blind spin-capped waiter on an owner
 * asleep in its critical section spins toward its cap as ever, and counts
 * the spin from its first sight of the sleeping owner: most of it.  Off,
 * it counts nothing.  Loop index 0: shadow on, 1: off.  A waiter
 * descheduled by other load before its first look counts that time as
 * spin, not as seen, and one that stops (self-preemption gap) while the
 * owner is still awake between its polls for a waiter (usleep(100) is
 * 100 us on a high-resolution kernel) sees nothing at all: the best of
 * three tries must show it.
 */
START_TEST(shadow_counts_the_spin_on_a_sleeping_owner)
{
	struct knobs k = knobs_set(3000, uspin_setup()->max_spinners);
	int saved = uspin_setup_state.shadow, try;
	double best = 0;

	uspin_setup_state.shadow = _i == 0;
	for (try = 0; try < 3 && best < 0.5; try++) {
		uspin_mutex_t m;
		struct uspin_thread_stats st;
		struct owner o;

		ck_assert_int_eq(uspin_mutex_init(&m, USPIN_POLICY_SPIN_CAPPED), 0);
		owner_start(&o, &m, cpu_a, 1, 20000);
		waiter_lock(&m, cpu_b, &st);
		pthread_join(o.thread, NULL);
		printf("spin: shadow %s, owner asleep 20 ms: blind waiter spun %.1f us, %llu phases; shadow: %llu phases, %.1f us with the owner off\n",
		       _i == 0 ? "on" : "off", spun_ns(&st) / 1e3,
		       (unsigned long long)st.spin_phases,
		       (unsigned long long)st.shadow_off_phases,
		       st.shadow_ns_off / 1e3);
		ck_assert_uint_eq(st.spin_owner_off, 0);	/* blind: never acted */
		/* It spun (a spinner descheduled stops short of the cap). */
		ck_assert_uint_ge(st.spin_phases, 1);
		if (_i == 1) {
			ck_assert_uint_eq(st.shadow_off_phases, 0);
			ck_assert_uint_eq(st.shadow_ns_off, 0);
			best = 1;
			continue;
		}
		ck_assert_uint_le(st.shadow_off_phases, st.spin_phases);
		ck_assert_uint_le(st.shadow_ns_off, spun_ns(&st));
		if (spun_ns(&st) && (double)st.shadow_ns_off / spun_ns(&st) > best)
			best = (double)st.shadow_ns_off / spun_ns(&st);
	}
	uspin_setup_state.shadow = saved;
	knobs_restore(k);
	ck_assert_msg(best >= 0.5, "best share of the spin seen with the owner off: %.2f", best);
}
END_TEST

/*
 * An owner preempted mid-hold stops the spinner within 1 ms of its switch
 * out (the provider updates at the switch; the spinner polls every few
 * us).  On a busy machine the owner may be switched out by other load
 * first, which stops the spin sooner, or the spinner itself, which then
 * notices late (or gives its CPU to a task that wants it, which ends the
 * spin for another reason): of three tries one must stop in time, for
 * the owner's switch-out, and none may spin
 * on until the owner lets go (what a spinner blind to the owner does).
 */
START_TEST(preempted_owner_stops_the_spinner)
{
	struct knobs k = knobs_set(0, uspin_setup()->max_spinners);
	int try, in_time = 0;

	for (try = 0; try < 3 && !in_time; try++) {
		uspin_mutex_t m;
		struct uspin_thread_stats st;
		struct preemptor p;
		struct owner o;
		uint64_t start, end;

		ck_assert_int_eq(uspin_mutex_init(&m, USPIN_POLICY_USER_ADAPTIVE), 0);
		owner_start(&o, &m, cpu_a, 0, 0);
		preemptor_start(&p, cpu_a, 20000, &o);
		start = waiter_lock(&m, cpu_b, &st);
		pthread_join(p.thread, NULL);
		pthread_join(o.thread, NULL);
		end = start + us_cycles(spun_ns(&st) / 1000);
		printf("spin: owner preempted at +%.0f us: spinner stopped at +%.0f us (%.0f us after), owner-off stops %llu, self-preemption %llu, CPU wanted %llu\n",
		       cycles_us(p.ran - start), cycles_us(end - start),
		       p.ran <= end ? cycles_us(end - p.ran) : -cycles_us(p.ran - end),
		       (unsigned long long)st.spin_owner_off,
		       (unsigned long long)st.spin_preempted,
		       (unsigned long long)st.spin_cpu_wanted);
		ck_assert_uint_eq(st.spin_phases, 1);
		ck_assert_uint_le(st.spin_owner_off + st.spin_preempted +
				  st.spin_cpu_wanted, 1);
		/* The preemptor ran 20 ms and let the owner go 5 ms later. */
		ck_assert_uint_lt(end, p.ran + us_cycles(20000));
		in_time |= st.spin_owner_off + st.spin_preempted == 1 &&
			   end <= p.ran + us_cycles(1000);
	}
	knobs_restore(k);
	ck_assert_msg(in_time, "no spin of 3 stopped within 1 ms of the owner's switch-out");
}
END_TEST

/*
 * A running owner is spun on up to the cap (USPIN_SPIN_CAP_US, 500 us
 * here) and no further: loop index 0 user-adaptive (needs a provider),
 * 1 spin-capped (blind).  On a busy machine the owner or the spinner may
 * be descheduled first, or another task want the spinner's CPU, which
 * ends the spin sooner, as it should: of ten tries, one must reach the
 * cap, and none may pass it by much.
 */
START_TEST(running_owner_is_spun_on_up_to_the_cap)
{
	static const enum uspin_policy policies[] = {
		USPIN_POLICY_USER_ADAPTIVE, USPIN_POLICY_SPIN_CAPPED };
	struct knobs k = knobs_set(500, uspin_setup()->max_spinners);
	uint64_t best = UINT64_MAX, capped = 0;
	int rep;

	for (rep = 0; rep < 10 && capped < 3; rep++) {
		uspin_mutex_t m;
		struct uspin_thread_stats st;
		struct owner o;

		ck_assert_int_eq(uspin_mutex_init(&m, policies[_i]), 0);
		owner_start(&o, &m, cpu_a, 0, 30000);
		waiter_lock(&m, cpu_b, &st);
		pthread_join(o.thread, NULL);
		ck_assert_uint_eq(st.spin_phases, 1);
		/*
		 * Only a descheduled spinner or owner, or another task
		 * wanting the spinner's CPU, may end it sooner.
		 */
		ck_assert_uint_eq(st.spin_budget_ended + st.spin_preempted +
				  st.spin_owner_off + st.spin_cpu_wanted, 1);
		if (!st.spin_budget_ended)
			continue;
		capped++;
		ck_assert_uint_ge(spun_ns(&st), 500000);
		if (spun_ns(&st) < best)
			best = spun_ns(&st);
	}
	knobs_restore(k);
	printf("spin: %s, owner running 30 ms, cap 500 us: %llu of %d spins ended at the cap, the shortest after %.1f us\n",
	       uspin_policy_name(policies[_i]), (unsigned long long)capped,
	       rep, best / 1e3);
	ck_assert_uint_ge(capped, 1);
	ck_assert_uint_le(best, 1000000);
}
END_TEST

/*
 * A spinner whose own CPU is taken blocks, and does not spin again: it
 * notices the preemption afterwards (the gap), or before (a slice
 * extension grant, the BPF run queues: libuspin/cpu_wanted.h).  A loaded
 * machine can upset one try (the preemptor gives up waiting for the
 * waiter after 5 s and runs before the spin); a spinner that does not
 * notice its preemption fails every try (it spins until the owner lets go
 * and takes the lock spinning), so one of three must show the stop.
 */
START_TEST(spinner_blocks_after_its_own_preemption)
{
	struct knobs k = knobs_set(0, uspin_setup()->max_spinners);
	int try, stopped = 0;

	for (try = 0; try < 3 && !stopped; try++) {
		uspin_mutex_t m;
		struct uspin_thread_stats st;
		struct preemptor p;
		struct owner o;

		ck_assert_int_eq(uspin_mutex_init(&m, USPIN_POLICY_SPIN_CAPPED), 0);
		owner_start(&o, &m, cpu_a, 0, 0);
		preemptor_start(&p, cpu_b, 10000, &o);
		waiter_lock(&m, cpu_b, &st);
		pthread_join(p.thread, NULL);
		pthread_join(o.thread, NULL);
		printf("spin: spinner preempted: %llu phases, %llu self-preemption stops, %llu CPU-wanted stops, %llu acquired spinning, %llu blocks, spun %.1f ms\n",
		       (unsigned long long)st.spin_phases,
		       (unsigned long long)st.spin_preempted,
		       (unsigned long long)st.spin_cpu_wanted,
		       (unsigned long long)st.spin_acquired,
		       (unsigned long long)st.blocks, spun_ns(&st) / 1e6);
		ck_assert_uint_le(st.spin_phases, 1);
		stopped = st.spin_preempted + st.spin_cpu_wanted == 1 &&
			  st.blocks >= 1;
	}
	knobs_restore(k);
	ck_assert_msg(stopped, "no spin of 3 stopped at the spinner's preemption");
}
END_TEST

/* Where the kernel tells a spinner that its CPU is wanted (cpu_wanted.h). */
static int cpu_demand_signal(void)
{
	return uspin_rs_view.rq || (uspin_thread.slice.on && uspin_thread.slice.kernel);
}

/*
 * The user-space need_resched(): with a hog beside it on its CPU, a
 * spinner on a running owner (user-adaptive, no cap) gives its CPU up
 * instead of spinning until the owner lets go 200 ms later: at once where
 * the run queues show the hog (the mutex has no hold measured yet: the
 * 2 us minimum), or when the kernel would preempt it (a slice grant,
 * within a scheduler slice; or, where the spin loop missed the 5 us
 * grant under TCG, the request the kernel withdrew when it switched the
 * spinner out).  Either way it is counted and the waiter blocks (the gap
 * is off).  Three tries, for a machine that runs the hog elsewhere once.
 */
START_TEST(spinner_gives_way_to_a_task_on_its_cpu)
{
	struct knobs k = knobs_set(0, uspin_setup()->max_spinners);
	int try, stopped = 0;

	uspin_setup_state.preempt_gap = UINT64_MAX;	/* not the gap */
	for (try = 0; try < 3 && !stopped; try++) {
		uspin_mutex_t m;
		struct uspin_thread_stats st;
		struct hog h;
		struct owner o;

		ck_assert_int_eq(uspin_mutex_init(&m, USPIN_POLICY_USER_ADAPTIVE), 0);
		/* Pinned before the owner starts: not first woken on the
		   owner's CPU, switching the owner out. */
		hog_start(&h, cpu_b);
		owner_start(&o, &m, cpu_a, 0, 200000);
		waiter_lock(&m, cpu_b, &st);
		pthread_join(o.thread, NULL);
		hog_stop(&h);
		printf("spin: hog on the spinner's CPU: %llu CPU-wanted stops, %llu withdrawn requests, %llu owner-off, %llu budget stops, %llu blocks, spun %.1f ms\n",
		       (unsigned long long)st.spin_cpu_wanted,
		       (unsigned long long)st.spin_preempted,
		       (unsigned long long)st.spin_owner_off,
		       (unsigned long long)st.spin_budget_ended,
		       (unsigned long long)st.blocks, spun_ns(&st) / 1e6);
		fflush(stdout);
		stopped = st.spin_cpu_wanted + st.spin_preempted >= 1 &&
			  st.blocks >= 1 && spun_ns(&st) < 50000000;
	}
	knobs_restore(k);
	ck_assert_msg(stopped, "no spin of 3 gave its CPU up to the hog beside it");
}
END_TEST

/*
 * A shared mutex's full spinner count refuses the next spinner; it is
 * not changed (a fresh stamp: spinners that died would lapse).
 */
START_TEST(spinner_count_refuses_past_the_bound)
{
	uspin_mutex_t m;
	struct uspin_thread_stats st;
	struct holder h;
	struct timespec ts;
	uint32_t full;

	ck_assert_int_eq(uspin_mutex_init(&m, USPIN_POLICY_SPIN_CAPPED |
					  USPIN_PROCESS_SHARED), 0);
	holder_start(&h, &m);
	full = (uint32_t)(uspin_cycles() >> 14 & 0xffffff) << 8 |
	       uspin_setup()->max_spinners;
	m.spinner = full;
	uspin_thread_stats(&st, sizeof(st), 1);
	ts = deadline_in(CLOCK_REALTIME, 20 * 1000000LL);
	ck_assert_int_eq(uspin_mutex_timedlock(&m, &ts), ETIMEDOUT);
	uspin_thread_stats(&st, sizeof(st), 0);
	ck_assert_uint_eq(st.spin_phases, 0);
	ck_assert_uint_ge(st.spin_refused, 1);
	ck_assert_uint_eq(m.spinner, full);
	m.spinner = 0;
	holder_stop(&h);
}
END_TEST

/*
 * Many waiters on long holds: never more spinners than the bound.  A
 * shared mutex counts them (m->spinner's count); a private one queues
 * them, and a spinner joins no deeper than one past the bound (which it
 * leaves at once): the depth of every tail seen.  Loop index: shared (0),
 * private with the machine's bound (1), private with 6 (2), more than
 * this machine's CPUs, so that spinners wait their turn in the queue.
 */
struct crowd {
	uspin_mutex_t m;
	volatile int stop;
	long acquisitions;
};


static void *crowd_main(void *arg)
{
	struct crowd *c = arg;

	while (!__atomic_load_n(&c->stop, __ATOMIC_RELAXED)) {
		ck_assert_int_eq(uspin_mutex_lock(&c->m), 0);
		busy_until(uspin_cycles() + us_cycles(50));
		c->acquisitions++;
		ck_assert_int_eq(uspin_mutex_unlock(&c->m), 0);
	}
	return NULL;
}

START_TEST(spinners_never_exceed_the_bound)
{
	enum { THREADS = 8 };
	struct knobs k = knobs_set(5000, _i == 2 ? 6 : uspin_setup()->max_spinners);
	unsigned int bound = uspin_setup()->max_spinners;
	struct crowd c = { .stop = 0 };
	pthread_t t[THREADS];
	uint32_t most = 0, n;
	uint64_t end;
	int i;

	ck_assert_int_eq(uspin_mutex_init(&c.m, USPIN_POLICY_SPIN_CAPPED |
					  (_i ? 0 : USPIN_PROCESS_SHARED)), 0);
	for (i = 0; i < THREADS; i++)
		ck_assert_int_eq(pthread_create(&t[i], NULL, crowd_main, &c), 0);
	end = uspin_cycles() + us_cycles(300000);
	while (uspin_cycles() < end) {
		n = __atomic_load_n(&c.m.spinner, __ATOMIC_RELAXED);
		if (_i == 0)
			n &= 0xff;
		else if (n)
			n = uspin_spinner_depth(n) - 1;
		if (n > most)
			most = n;
	}
	__atomic_store_n(&c.stop, 1, __ATOMIC_RELAXED);
	for (i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	knobs_restore(k);
	printf("spin: %d threads, 50 us holds, %s: at most %u spinners seen (bound %u), %ld acquisitions\n",
	       THREADS, _i ? "queued" : "counted", most, bound, c.acquisitions);
	ck_assert_uint_le(most, bound);
	ck_assert_uint_eq(c.m.spinner & (_i ? ~0u : 0xffu), 0);
	ck_assert_int_gt(c.acquisitions, 0);
}
END_TEST

/*
 * Owner, one spinner, one sleeper: the unlock leaves the word to the
 * spinner (no wake-up), which takes it with FUTEX_WAITERS kept, and whose
 * unlock wakes the sleeper.  Loop index: 0 the default path, 1 FUTEX_WAIT.
 * A loaded machine may deschedule the spinner first (then it blocks, as
 * it should): such a round counts only if nothing is lost, and at least
 * one of 20 rounds must see the word left to the spinner.  The spinner
 * must outlast a few 4 ms sleeps of a jiffies guest, and a loaded host
 * stalls a TCG vCPU for longer than the self-preemption gap: the gap is
 * off here (the spinner keeps its slot while descheduled), or no round
 * would get that far.
 */
struct taker {
	pthread_t thread;
	uspin_mutex_t *m;
	int cpu;
	struct uspin_thread_stats st;
};

static void *taker_main(void *arg)
{
	struct taker *t = arg;

	waiter_lock(t->m, t->cpu, &t->st);
	return NULL;
}

/*
 * Until @cond holds or a second passes (on the cycle counter: a jiffies
 * guest sleeps 4 ms for usleep(100)); whether it held.
 */
#define WAIT_FOR(cond) ({						\
	uint64_t end_ = uspin_cycles() + us_cycles(1000000);		\
	while (!(cond) && uspin_cycles() < end_)			\
		usleep(100);						\
	(cond);								\
})

/*
 * The owner leaves the word to a spinner only if the provider says the
 * lead spinner runs (loop index bit 1: it reads OFF), so that the word
 * never lies free for a spinner that is off its CPU while others sleep.
 * Bit 0: the default path, FUTEX_WAIT.
 */
START_TEST(unlock_leaves_the_word_to_a_spinner)
{
	struct knobs k = knobs_set(0, 1);
	int round, passed = 0, on = !(_i & 2), rounds = on ? 20 : 5;
	struct uspin_rs_view real = uspin_rs_view;

	/*
	 * This thread polls while the spinner spins: woken on the spinner's
	 * CPU it would want that CPU, and the spinner would give way to it
	 * (the run queues the BPF provider publishes at every wake-up).  That
	 * is another test's subject: here no run queue is read.
	 */
	uspin_rs_view.rq = NULL;
	uspin_rs_view.nr_rq = 0;
	uspin_setup_state.preempt_gap = UINT64_MAX;
	uspin_force_stock_kernel = _i & 1;
	for (round = 0; round < rounds && !passed; round++) {
		struct taker sp = { .cpu = cpu_b }, sl = { .cpu = cpu_a };
		struct uspin_rs_view saved;
		uint32_t *entries;
		uspin_mutex_t m;
		struct owner o;

		ck_assert_int_eq(uspin_mutex_init(&m, USPIN_POLICY_SPIN_CAPPED), 0);
		sp.m = sl.m = &m;
		owner_start(&o, &m, cpu_a, 1, 0);
		ck_assert_int_eq(pthread_create(&sp.thread, NULL, taker_main, &sp), 0);
		WAIT_FOR(__atomic_load_n(&m.spinner, __ATOMIC_ACQUIRE));
		ck_assert_int_eq(pthread_create(&sl.thread, NULL, taker_main, &sl), 0);
		WAIT_FOR(__atomic_load_n(&m.word, __ATOMIC_ACQUIRE) & FUTEX_WAITERS);
		/* The head spinner's TID (robust_next's second u32). */
		entries = fake_view_install(&saved,
			__atomic_load_n((uint32_t *)(void *)&m.robust_next + 1,
					__ATOMIC_ACQUIRE),
			on ? USPIN_RS_ENTRY_ON : USPIN_RS_ENTRY_OFF);
		__atomic_store_n(&o.release, 1, __ATOMIC_RELEASE);
		pthread_join(o.thread, NULL);
		pthread_join(sp.thread, NULL);
		pthread_join(sl.thread, NULL);
		uspin_rs_view = saved;
		free(entries);
		ck_assert_uint_eq(m.word, 0);
		ck_assert_uint_eq(m.spinner, 0);
		if (!o.st.passed_to_spinner)
			continue;
		passed = 1;
		printf("spin: %s path, round %d: the owner left the word to a spinner; acquired spinning %llu + %llu, blocks %llu + %llu\n",
		       _i & 1 ? "FUTEX_WAIT" : "default", round,
		       (unsigned long long)sp.st.spin_acquired,
		       (unsigned long long)sl.st.spin_acquired,
		       (unsigned long long)sp.st.blocks,
		       (unsigned long long)sl.st.blocks);
		ck_assert_uint_eq(sp.st.spin_acquired + sl.st.spin_acquired, 1);
	}
	uspin_force_stock_kernel = 0;
	knobs_restore(k);
	uspin_rs_view = real;
	if (on)
		ck_assert_msg(passed, "no unlock of 20 left the word to a running spinner");
	else
		ck_assert_msg(!passed, "an unlock left the word to a spinner that was off");
}
END_TEST

/*
 * Spinners that stop at any moment (a 2 us cap, deadlines) while unlocks
 * leave the word to them: no wake-up is lost, every thread finishes.
 * Loop index: bit 0 the default path, FUTEX_WAIT; bit 1 the machine's
 * spinner bound, or 6: spinners queue and leave the queue from the middle.
 */
struct churn {
	uspin_mutex_t m;
	long left;			/* atomic */
	long counter;
};

static void *churn_main(void *arg)
{
	struct churn *c = arg;
	int i = 0;

	while (__atomic_fetch_sub(&c->left, 1, __ATOMIC_RELAXED) > 0) {
		struct timespec ts = deadline_in(CLOCK_REALTIME, 50000);
		int r = ++i % 4 ? uspin_mutex_lock(&c->m) :
				  uspin_mutex_timedlock(&c->m, &ts);

		if (r == ETIMEDOUT)
			continue;
		ck_assert_int_eq(r, 0);
		c->counter++;
		busy_until(uspin_cycles() + us_cycles(i % 3 ? 1 : 20));
		ck_assert_int_eq(uspin_mutex_unlock(&c->m), 0);
	}
	return NULL;
}

START_TEST(spinners_that_stop_lose_no_wakeup)
{
	enum { THREADS = 6 };
	struct knobs k = knobs_set(2, _i & 2 ? 6 : uspin_setup()->max_spinners);
	struct churn c = { .left = test_scaled(60000) };
	pthread_t t[THREADS];
	int i;

	uspin_force_stock_kernel = _i & 1;
	ck_assert_int_eq(uspin_mutex_init(&c.m, USPIN_POLICY_SPIN_CAPPED), 0);
	for (i = 0; i < THREADS; i++)
		ck_assert_int_eq(pthread_create(&t[i], NULL, churn_main, &c), 0);
	for (i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	uspin_force_stock_kernel = 0;
	knobs_restore(k);
	ck_assert_uint_eq(c.m.word, 0);
	ck_assert_uint_eq(c.m.spinner, 0);
	ck_assert_int_gt(c.counter, 0);
}
END_TEST

/*
 * A hold is timed from a slow-path acquisition to its unlock.  A fast
 * unlock in between forgets the timing (one byte of unlock work, no store
 * while nothing is timed), so the next contended unlock of a hold that a
 * fast lock began records nothing: a stale start would read as one long
 * hold and push the typical hold up.
 */
/* Longer than the shortest typical hold, so that timing it moves it. */
static void hold_for_cycles(uint64_t n)
{
	uint64_t t0 = uspin_cycles();

	while (uspin_cycles() - t0 < n)
		caa_cpu_relax();
}

START_TEST(fast_unlock_forgets_the_hold_timing)
{
	uspin_mutex_t m = USPIN_MUTEX_INITIALIZER;
	uint32_t flags;

	ck_assert_int_eq(uspin_thread.unlock_work & USPIN_UNLOCK_HOLD, 0);
	ck_assert_int_eq(uspin_mutex_lock(&m), 0);
	uspin_hold_begin(&m);		/* as a slow-path acquisition does */
	ck_assert_ptr_eq(uspin_thread.held.m, &m);
	ck_assert(uspin_thread.unlock_work & USPIN_UNLOCK_HOLD);
	ck_assert_int_eq(uspin_mutex_unlock(&m), 0);	/* the fast path */
	ck_assert_ptr_null(uspin_thread.held.m);
	ck_assert_int_eq(uspin_thread.unlock_work & USPIN_UNLOCK_HOLD, 0);

	/* A later contended unlock of a fast-locked hold: nothing recorded. */
	flags = m.flags;
	ck_assert_int_eq(uspin_mutex_lock(&m), 0);
	hold_for_cycles(4 * SPIN_HOLD_UNIT);
	uspin_hold_end(&m);
	ck_assert_uint_eq(m.flags, flags);
	ck_assert_int_eq(uspin_mutex_unlock(&m), 0);

	/* A timed hold that ends through the contended unlock is recorded. */
	ck_assert_int_eq(uspin_mutex_lock(&m), 0);
	uspin_hold_begin(&m);
	hold_for_cycles(4 * SPIN_HOLD_UNIT);
	uspin_hold_end(&m);
	ck_assert_ptr_null(uspin_thread.held.m);
	ck_assert_int_eq(uspin_thread.unlock_work & USPIN_UNLOCK_HOLD, 0);
	ck_assert_uint_ne(m.flags, flags);
	ck_assert_int_eq(uspin_mutex_unlock(&m), 0);
}
END_TEST

Suite *suite_spin(void)
{
	TCase *tc;
	Suite *s = check_suite_one("spin", 120, &tc);
	cpu_set_t set;
	int cpu;

	tcase_add_test(tc, fast_unlock_forgets_the_hold_timing);
	CPU_ZERO(&set);
	sched_getaffinity(0, sizeof(set), &set);
	for (cpu = 0; cpu < CPU_SETSIZE; cpu++)
		if (CPU_ISSET(cpu, &set)) {
			if (cpu_a < 0)
				cpu_a = cpu;
			else if (cpu_b < 0)
				cpu_b = cpu;
		}
	if (cpu_b < 0 || uspin_setup()->ncpus < 2) {
		printf("SKIP: spin: one usable CPU, nothing spins (9 checks not run)\n");
		return s;
	}
	if (getenv("USPIN_RS_REQUIRE") && *getenv("USPIN_RS_REQUIRE"))
		tcase_add_test(tc, required_provider_is_attached);
	tcase_add_loop_test(tc, running_owner_is_spun_on_up_to_the_cap,
			    provider_attached() ? 0 : 1, 2);
	tcase_add_test(tc, spinner_count_refuses_past_the_bound);
	tcase_add_loop_test(tc, spinners_never_exceed_the_bound, 0, 3);
	tcase_add_loop_test(tc, unlock_leaves_the_word_to_a_spinner, 0, 4);
	tcase_add_loop_test(tc, spinners_that_stop_lose_no_wakeup, 0, 4);
	if (provider_attached()) {
		tcase_add_test(tc, sleeping_owner_costs_no_spin);
		tcase_add_loop_test(tc, shadow_counts_the_spin_on_a_sleeping_owner, 0, 2);
	} else {
		printf("SKIP: spin: no running-state provider: sleeping_owner_costs_no_spin, shadow_counts_the_spin_on_a_sleeping_owner, preempted_owner_stops_the_spinner and user-adaptive's cap not checked (make check-bpf, the guest)\n");
	}
	if (cpu_demand_signal())
		tcase_add_test(tc, spinner_gives_way_to_a_task_on_its_cpu);
	else
		printf("SKIP: spin: nothing tells a spinner that its CPU is wanted (no BPF run queues, no slice extension): spinner_gives_way_to_a_task_on_its_cpu not run (make check-bpf, the guest)\n");
	if (fifo_allowed()) {
		tcase_add_test(tc, spinner_blocks_after_its_own_preemption);
		if (provider_attached())
			tcase_add_test(tc, preempted_owner_stops_the_spinner);
	} else {
		printf("SKIP: spin: SCHED_FIFO not allowed: the preemption checks not run\n");
	}
	return s;
}
