// SPDX-License-Identifier: LGPL-2.1-or-later
/* static_hello.c - a statically linked program, for uspin-run's warning. */
#include <pthread.h>
#include <stdio.h>

int main(void)
{
	pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

	pthread_mutex_lock(&m);
	/* glibc's protocol: the word is 1, LD_PRELOAD did not reach us */
	printf("word %u\n", *(unsigned int *)&m);
	pthread_mutex_unlock(&m);
	return 0;
}
