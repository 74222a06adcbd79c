// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * api_program.c - a user of libuspin that knows only uspin.h and
 * `pkg-config --cflags --libs uspin`: 8 threads count to a known total.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <uspin.h>

#define THREADS	8
#define ROUNDS	20000

static uspin_mutex_t lock = USPIN_MUTEX_INITIALIZER;
static long counter;

static void *worker(void *arg)
{
	struct timespec past = { 0, 0 };
	int i, r;

	(void)arg;
	for (i = 0; i < ROUNDS; i++) {
		if (i % 3 == 0)
			while ((r = uspin_mutex_trylock(&lock)) == EBUSY)
				;
		else if (i % 3 == 1)
			while ((r = uspin_mutex_timedlock(&lock, &past)) == ETIMEDOUT)
				;
		else
			r = uspin_mutex_lock(&lock);
		if (r != 0)
			return (void *)1;
		counter++;
		if (uspin_mutex_unlock(&lock) != 0)
			return (void *)1;
	}
	return NULL;
}

int main(void)
{
	pthread_t t[THREADS];
	struct uspin_info info;
	void *ret;
	int i, bad = 0;

	for (i = 0; i < THREADS; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (i = 0; i < THREADS; i++) {
		pthread_join(t[i], &ret);
		bad |= ret != NULL;
	}
	uspin_query(&info);
	printf("api-program: policy %-15s counter %ld/%d %s\n",
	       uspin_policy_name(info.auto_policy), counter, THREADS * ROUNDS,
	       !bad && counter == THREADS * ROUNDS ? "ok" : "FAILED");
	return !bad && counter == THREADS * ROUNDS ? 0 : 1;
}
