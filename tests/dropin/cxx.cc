// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * cxx.cc - test-dropin-cxx: the C++ standard library's mutexes and
 * condition variables, which libstdc++ builds on pthread_mutex_t and
 * pthread_cond_t (std::mutex from PTHREAD_MUTEX_INITIALIZER, timed waits
 * on steady_clock through pthread_cond_clockwait, on system_clock through
 * pthread_cond_timedwait).  Run on glibc and under uspin-run like
 * test-dropin (DROPIN_EXPECT says which).
 */
#include <check.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <future>
#include <mutex>
#include <thread>
#include <vector>

#include "../sys_util.h"

using namespace std::chrono_literals;

static int on_uspin()
{
	std::mutex m;
	std::lock_guard<std::mutex> g(m);
	uint32_t w;

	std::memcpy(&w, m.native_handle(), sizeof(w));
	return (w & 0x3fffffff) == sys_gettid();
}

START_TEST(runs_where_expected)
{
	const char *e = std::getenv("DROPIN_EXPECT");

	if (e)
		ck_assert_int_eq(on_uspin(), std::strcmp(e, "uspin") == 0);
}
END_TEST

START_TEST(mutex_contention)
{
	std::mutex m;
	long counter = 0, per = 20000;
	std::atomic<int> inside{0}, bad{0};
	std::vector<std::thread> t;

	for (int i = 0; i < 4; i++)
		t.emplace_back([&] {
			for (long j = 0; j < per; j++) {
				std::lock_guard<std::mutex> g(m);
				if (inside.exchange(1))
					bad++;
				counter++;
				inside = 0;
			}
		});
	for (auto &x : t)
		x.join();
	ck_assert_int_eq(bad.load(), 0);
	ck_assert_int_eq(counter, 4 * per);
}
END_TEST

START_TEST(recursive_and_try)
{
	std::recursive_mutex r;
	std::mutex a, b;

	r.lock();
	ck_assert(r.try_lock());
	r.lock();
	std::thread([&] { ck_assert(!r.try_lock()); }).join();
	r.unlock();
	r.unlock();
	r.unlock();
	std::thread([&] { ck_assert(r.try_lock()); r.unlock(); }).join();
	/* std::lock's deadlock avoidance runs on try_lock */
	std::thread t([&] {
		for (int i = 0; i < 2000; i++) {
			std::scoped_lock both(b, a);
		}
	});
	for (int i = 0; i < 2000; i++) {
		std::scoped_lock both(a, b);
	}
	t.join();
}
END_TEST

START_TEST(timed_mutexes)
{
	std::timed_mutex tm;
	std::recursive_timed_mutex rtm;

	tm.lock();
	rtm.lock();
	std::thread([&] {
		auto t0 = std::chrono::steady_clock::now();
		ck_assert(!tm.try_lock_for(20ms));
		ck_assert(std::chrono::steady_clock::now() - t0 >= 20ms);
		ck_assert(!tm.try_lock_until(std::chrono::system_clock::now() + 10ms));
		ck_assert(!tm.try_lock_until(std::chrono::steady_clock::now() + 10ms));
		ck_assert(!rtm.try_lock_for(10ms));
	}).join();
	ck_assert(rtm.try_lock_for(1ms));	/* recursive */
	rtm.unlock();
	tm.unlock();
	rtm.unlock();
	std::thread([&] {
		ck_assert(tm.try_lock_for(10ms));
		tm.unlock();
	}).join();
}
END_TEST

START_TEST(condition_variable_queue)
{
	std::mutex m;
	std::condition_variable not_empty, not_full;
	std::deque<int> q;
	long sum = 0, n = 20000;
	bool done = false;

	std::thread consumer([&] {
		std::unique_lock<std::mutex> l(m);
		for (;;) {
			not_empty.wait(l, [&] { return !q.empty() || done; });
			if (q.empty())
				break;
			sum += q.front();
			q.pop_front();
			not_full.notify_one();
		}
	});
	for (int i = 1; i <= n; i++) {
		std::unique_lock<std::mutex> l(m);
		not_full.wait(l, [&] { return q.size() < 4; });
		q.push_back(i);
		not_empty.notify_one();
	}
	{
		std::lock_guard<std::mutex> g(m);
		done = true;
	}
	not_empty.notify_all();
	consumer.join();
	ck_assert_int_eq(sum, n * (n + 1) / 2);
}
END_TEST

START_TEST(condition_variable_timeouts)
{
	std::mutex m;
	std::condition_variable cv;
	std::unique_lock<std::mutex> l(m);

	auto t0 = std::chrono::steady_clock::now();
	ck_assert(cv.wait_for(l, 20ms) == std::cv_status::timeout);
	ck_assert(std::chrono::steady_clock::now() - t0 >= 20ms);
	ck_assert(cv.wait_until(l, std::chrono::steady_clock::now() + 10ms) ==
		  std::cv_status::timeout);
	ck_assert(cv.wait_until(l, std::chrono::system_clock::now() + 10ms) ==
		  std::cv_status::timeout);
	ck_assert(!cv.wait_for(l, 5ms, [] { return false; }));
	ck_assert(l.owns_lock());
}
END_TEST

START_TEST(broadcast_and_any)
{
	std::mutex m;
	std::condition_variable cv;
	std::condition_variable_any cva;
	int phase = 0, arrived = 0;
	std::vector<std::thread> t;

	for (int i = 0; i < 8; i++)
		t.emplace_back([&] {
			for (int r = 0; r < 100; r++) {
				std::unique_lock<std::mutex> l(m);
				int mine = phase;
				if (++arrived == 8) {
					arrived = 0;
					phase++;
					if (r & 1)
						cv.notify_all();
					else
						cva.notify_all();
				} else if (r & 1) {
					cv.wait(l, [&] { return phase != mine; });
				} else {
					cva.wait(l, [&] { return phase != mine; });
				}
			}
		});
	for (auto &x : t)
		x.join();
	ck_assert_int_eq(phase, 100);
}
END_TEST

START_TEST(thread_exit_and_futures)
{
	std::mutex m;
	std::condition_variable cv;
	bool ready = false;

	std::thread([&] {
		std::unique_lock<std::mutex> l(m);
		ready = true;
		std::notify_all_at_thread_exit(cv, std::move(l));
	}).detach();
	{
		std::unique_lock<std::mutex> l(m);
		cv.wait(l, [&] { return ready; });
	}
	std::vector<std::future<long>> f;
	for (int i = 0; i < 8; i++)
		f.push_back(std::async(std::launch::async, [i] { return (long)i * i; }));
	long s = 0;
	for (auto &x : f)
		s += x.get();
	ck_assert_int_eq(s, 140);
	std::once_flag once;
	std::atomic<int> calls{0};
	std::vector<std::thread> t;
	for (int i = 0; i < 4; i++)
		t.emplace_back([&] { std::call_once(once, [&] { calls++; }); });
	for (auto &x : t)
		x.join();
	ck_assert_int_eq(calls.load(), 1);
}
END_TEST

int main()
{
	Suite *s = suite_create("cxx");
	TCase *tc = tcase_create("cxx");
	SRunner *sr;
	int failed;

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, runs_where_expected);
	tcase_add_test(tc, mutex_contention);
	tcase_add_test(tc, recursive_and_try);
	tcase_add_test(tc, timed_mutexes);
	tcase_add_test(tc, condition_variable_queue);
	tcase_add_test(tc, condition_variable_timeouts);
	tcase_add_test(tc, broadcast_and_any);
	tcase_add_test(tc, thread_exit_and_futures);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
