/*
 * rigkit/tasks.h - the one small helper-thread facility of rigkit: a team of
 * short-lived helpers working beside the calling thread.
 *
 * OVERVIEW
 *   Two forms, both used inside the library (FBX array decoding, multi-
 *   threaded skinning) and by the CLI (`rigkit batch`):
 *
 *     rk_parallel_for()        run fn(user, index, worker) for every index in
 *                              [0, count) on up to `threads` threads, the
 *                              caller included; returns when all are done.
 *     rk_task_team_start() /   start helpers that each run fn(user, worker)
 *     rk_task_team_join()      once while the caller keeps working (worker 0
 *                              is the caller, helpers are 1..started); join
 *                              waits for all of them.
 *
 *   Helpers are started with a CPU placement hint (Linux/glibc): they may run
 *   on any CPU of the process except the caller's current one, because Linux
 *   first places a new thread on its creator's CPU and short work then runs
 *   after the caller instead of beside it (measured: two ~0.4 ms shares took
 *   1.67-2.00x one share without the hint, 0.90-1.01x with it, on the 2-vCPU
 *   CI machine). Only the first rk_cpu_count() - 1 helpers of a team get the
 *   hint; any more may run on any CPU, the caller's included, so a team
 *   larger than the machine (`rigkit batch --threads 8` on 2 CPUs) still
 *   uses every CPU.
 *
 * GUARANTEES
 *   Work is never lost: when a helper cannot be created, the others (and the
 *   caller) do its share, so results do not depend on how many threads ran.
 *   No allocation other than what thread creation does; no global state; a
 *   team is caller-owned storage and must be joined before it goes out of
 *   scope. Where threads are unavailable (WebAssembly without -pthread),
 *   everything runs on the caller.
 */
#ifndef RIGKIT_TASKS_H
#define RIGKIT_TASKS_H

#include "rigkit/base.h"

#ifdef __cplusplus
extern "C" {
#endif

#define RK_TASKS_MAX_HELPERS 63

/* Caller-owned. Zero-initialise or leave as rk_task_team_start sets it. */
typedef struct rk_task_team rk_task_team;
typedef struct rk_task_slot_ {               /* private: one helper */
	rk_task_team *team;
	size_t worker;
	uint64_t handle;
} rk_task_slot_;
struct rk_task_team {
	size_t started;                          /* helpers running (0..RK_TASKS_MAX_HELPERS) */
	void (*fn)(void *user, size_t worker);
	void *user;
	rk_task_slot_ slots_[RK_TASKS_MAX_HELPERS];
};

/* Starts up to `helpers` threads (clamped to RK_TASKS_MAX_HELPERS), helper k
 * running fn(user, k) for k = 1..started, and returns how many started
 * (team->started). The caller does its own share (worker 0) and must call
 * rk_task_team_join() before reading the helpers' results. */
size_t rk_task_team_start(rk_task_team *team, size_t helpers, void (*fn)(void *user, size_t worker), void *user);

/* Waits for every started helper. Safe on a team that started none. */
void rk_task_team_join(rk_task_team *team);

/* Runs fn(user, index, worker) once for every index in [0, count), on
 * min(threads, count) threads (threads 0 = 1): the caller is worker 0,
 * helpers 1..threads-1; indices are taken in increasing order from a shared
 * atomic counter, so a late or missing helper just does fewer. Returns the
 * number of threads that took part (>= 1; 0 for count 0). fn must be safe
 * to call concurrently for different indices. */
size_t rk_parallel_for(size_t count, size_t threads, void (*fn)(void *user, size_t index, size_t worker), void *user);

/* CPUs this process can use (at least 1): the online CPUs, and on
 * Linux/glibc no more than the calling thread's affinity mask holds (taskset,
 * a container's cpuset). Threads beyond that only take turns. */
size_t rk_cpu_count(void);

#ifdef __cplusplus
}
#endif
#endif
