/* src/core/thread.c - helper thread start with a CPU placement hint (thread.h). */
#if defined(__linux__) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE
#endif
#include "core/thread.h"

#include <sched.h>
#include <unistd.h>

bool rki_thread_start(pthread_t *thread, void *(*fn)(void *), void *arg, size_t nth)
{
#if defined(__linux__) && defined(__GLIBC__)
	cpu_set_t set;
	int cpu = sched_getcpu();
	if (cpu >= 0 && cpu < CPU_SETSIZE && sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_ISSET(cpu, &set) &&
		(size_t)CPU_COUNT(&set) >= nth + 2) {
		CPU_CLR(cpu, &set);
		pthread_attr_t attr;
		if (pthread_attr_init(&attr) == 0) {
			bool ok = pthread_attr_setaffinity_np(&attr, sizeof(set), &set) == 0 &&
				pthread_create(thread, &attr, fn, arg) == 0;
			pthread_attr_destroy(&attr);
			if (ok) return true;
		}
	}
#endif
	return pthread_create(thread, NULL, fn, arg) == 0;
}

size_t rki_thread_online_cores(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	size_t online = n > 0 ? (size_t)n : 1;
#if defined(__linux__) && defined(__GLIBC__)
	/* A process limited to some CPUs (taskset, a container's cpuset) gets
	 * no more than those from any number of threads. */
	cpu_set_t set;
	if (sched_getaffinity(0, sizeof(set), &set) == 0) {
		int allowed = CPU_COUNT(&set);
		if (allowed >= 1 && (size_t)allowed < online) return (size_t)allowed;
	}
#endif
	return online;
}
