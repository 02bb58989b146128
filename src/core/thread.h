/* src/core/thread.h - starting helper threads (for src/core/tasks.c). */
#ifndef RIGKIT_CORE_THREAD_H
#define RIGKIT_CORE_THREAD_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

/* pthread_create() for short-lived helper `nth` (0-based) of a group that
 * works beside the calling thread (rigkit/tasks.h teams; the only caller is
 * src/core/tasks.c). Where the platform allows (Linux/glibc), the helper may
 * run on any CPU the process may use except the one the caller runs on at
 * this moment: Linux places a new thread on its creator's CPU and moves it
 * to an idle one only at a later balancing tick, so helpers with a few
 * milliseconds of work often ran after the caller instead of beside it.
 * Measured on the 2-vCPU CI machine (two threads of ~0.4 ms of arithmetic,
 * 10 rounds per process, 20 processes): time relative to one thread doing
 * one share, 1.67-2.00 without the hint (mostly serialised), 0.90-1.01 with
 * it; ybot.fbx loads that took 3.3 ms or 6.1 ms depending on the process
 * take 3.3 ms. The hint lasts the helper's whole life, so only helpers
 * 0 .. (CPUs the process may use) - 2 get it; later ones may run anywhere
 * (else, with more helpers than CPUs, all would queue on the other CPUs and
 * leave the caller's idle once it has done its share). Falls back to a
 * plain pthread_create(). */
bool rki_thread_start(pthread_t *thread, void *(*fn)(void *), void *arg, size_t nth);

/* Online CPUs (sysconf), at least 1, and on Linux/glibc no more than the
 * calling thread's affinity mask allows (taskset, a container's cpuset):
 * rk_cpu_count(), the "0 = default" thread count of options that take one. */
size_t rki_thread_online_cores(void);

#endif
