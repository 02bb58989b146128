/* tests/test_tasks.c - rk_parallel_for and rk_task_team (rigkit/tasks.h):
 * every index runs exactly once whatever the thread count, worker numbers
 * stay in range, helpers run beside the caller, bad arguments are harmless,
 * the CPU count follows the affinity mask and a team larger than the
 * machine can use every CPU. */
#if defined(__linux__) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE
#endif
#include "rigkit/tasks.h"
#include "rk_test.h"

#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <unistd.h>

typedef struct counts {
	atomic_uint hits[4096];
	atomic_uint workers_seen[RK_TASKS_MAX_HELPERS + 1];
	size_t threads;
	atomic_uint bad_worker;
} counts;

static void count_index(void *user, size_t index, size_t worker)
{
	counts *c = (counts *)user;
	atomic_fetch_add(&c->hits[index], 1u);
	if (worker >= c->threads) atomic_fetch_add(&c->bad_worker, 1u);
	else atomic_fetch_add(&c->workers_seen[worker], 1u);
}

RK_TEST(every_index_once)
{
	static counts c;
	const size_t sizes[] = { 1, 2, 3, 7, 64, 1000, 4096 };
	const size_t threads[] = { 0, 1, 2, 3, 8, 64, 200 };
	for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++) {
		for (size_t ti = 0; ti < sizeof(threads) / sizeof(threads[0]); ti++) {
			memset(&c, 0, sizeof(c));
			size_t want = threads[ti] ? threads[ti] : 1;
			if (want > sizes[si]) want = sizes[si];
			if (want > RK_TASKS_MAX_HELPERS + 1) want = RK_TASKS_MAX_HELPERS + 1;
			c.threads = want;
			size_t used = rk_parallel_for(sizes[si], threads[ti], count_index, &c);
			RK_CHECK(used >= 1 && used <= want);
			size_t wrong = 0;
			for (size_t i = 0; i < sizes[si]; i++) wrong += atomic_load(&c.hits[i]) != 1u;
			RK_CHECK_INT(wrong, 0);
			RK_CHECK_INT(atomic_load(&c.bad_worker), 0);
			unsigned total = 0;
			for (size_t w = 0; w < want; w++) total += atomic_load(&c.workers_seen[w]);
			RK_CHECK_INT(total, sizes[si]);
		}
	}
}

RK_TEST(empty_and_null)
{
	RK_CHECK_INT(rk_parallel_for(0, 4, count_index, NULL), 0);
	RK_CHECK_INT(rk_parallel_for(10, 4, NULL, NULL), 0);
	RK_CHECK_INT(rk_task_team_start(NULL, 3, NULL, NULL), 0);
	rk_task_team t;
	RK_CHECK_INT(rk_task_team_start(&t, 3, NULL, NULL), 0);
	rk_task_team_join(&t);
	rk_task_team_join(NULL);
	RK_CHECK(rk_cpu_count() >= 1);
}

/* Helpers run concurrently with the caller: each helper waits until the
 * caller has raised a flag, which only works if they are not run after the
 * caller's share (a serialising implementation would hang; the wait is
 * bounded and counted as a failure instead). */
typedef struct rendezvous {
	atomic_int go;
	atomic_uint arrived;
	atomic_uint timed_out;
	atomic_uint worker_sum;
} rendezvous;

static void wait_for_caller(void *user, size_t worker)
{
	rendezvous *r = (rendezvous *)user;
	atomic_fetch_add(&r->worker_sum, (unsigned)worker);
	for (long spin = 0; !atomic_load(&r->go); spin++) {
		if (spin > 2000000000L) {
			atomic_fetch_add(&r->timed_out, 1u);
			return;
		}
	}
	atomic_fetch_add(&r->arrived, 1u);
}

RK_TEST(team_runs_beside_caller)
{
	rendezvous r;
	atomic_init(&r.go, 0);
	atomic_init(&r.arrived, 0);
	atomic_init(&r.timed_out, 0);
	atomic_init(&r.worker_sum, 0);
	rk_task_team team;
	size_t started = rk_task_team_start(&team, 3, wait_for_caller, &r);
	RK_CHECK_INT(team.started, started);
	atomic_store(&r.go, 1);
	rk_task_team_join(&team);
	RK_CHECK_INT(atomic_load(&r.arrived), started);
	RK_CHECK_INT(atomic_load(&r.timed_out), 0);
	/* helpers are workers 1..started */
	RK_CHECK_INT(atomic_load(&r.worker_sum), started * (started + 1) / 2);
	RK_CHECK_INT(team.started, 0);
}

#if defined(__linux__) && defined(__GLIBC__)
#define HAVE_AFFINITY 1
#endif

/* rk_cpu_count counts the CPUs the caller may run on, not the machine's:
 * pinned to one CPU it is 1 (default thread counts then start no helper). */
RK_TEST(cpu_count_follows_affinity)
{
#ifndef HAVE_AFFINITY
	RK_SKIP("no sched_setaffinity");
#else
	cpu_set_t saved, one;
	RK_REQUIRE(sched_getaffinity(0, sizeof(saved), &saved) == 0);
	long online = sysconf(_SC_NPROCESSORS_ONLN);
	RK_CHECK(rk_cpu_count() >= 1 && (long)rk_cpu_count() <= (online > 0 ? online : 1));
	RK_CHECK_INT(rk_cpu_count(), (size_t)CPU_COUNT(&saved) < (size_t)online ? (size_t)CPU_COUNT(&saved) : (size_t)online);
	int cpu = 0;
	while (cpu < CPU_SETSIZE && !CPU_ISSET(cpu, &saved)) cpu++;
	RK_REQUIRE(cpu < CPU_SETSIZE);
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	RK_REQUIRE(sched_setaffinity(0, sizeof(one), &one) == 0);
	size_t pinned = rk_cpu_count();
	RK_REQUIRE(sched_setaffinity(0, sizeof(saved), &saved) == 0);
	RK_CHECK_INT(pinned, 1);
#endif
}

/* The placement hint keeps a helper off the caller's CPU for its whole life.
 * With as many helpers as CPUs, at least one helper may still run on every
 * CPU the caller may use (otherwise the caller's CPU idles once the caller
 * has done its share, while all helpers queue on the others). */
#ifdef HAVE_AFFINITY
typedef struct masks {
	cpu_set_t of[RK_TASKS_MAX_HELPERS + 1];
	atomic_uint failed;
} masks;

static void record_mask(void *user, size_t worker)
{
	masks *m = (masks *)user;
	if (sched_getaffinity(0, sizeof(m->of[worker]), &m->of[worker]) != 0) atomic_fetch_add(&m->failed, 1u);
}
#endif

RK_TEST(oversized_team_reaches_every_cpu)
{
#ifndef HAVE_AFFINITY
	RK_SKIP("no sched_getaffinity");
#else
	size_t cpus = rk_cpu_count();
	if (cpus < 2 || cpus > RK_TASKS_MAX_HELPERS) RK_SKIP("needs 2 to 63 CPUs");
	cpu_set_t caller;
	RK_REQUIRE(sched_getaffinity(0, sizeof(caller), &caller) == 0);
	static masks m;
	memset(&m, 0, sizeof(m));
	rk_task_team team;
	size_t started = rk_task_team_start(&team, cpus, record_mask, &m);
	rk_task_team_join(&team);
	RK_REQUIRE(started == cpus);
	RK_CHECK_INT(atomic_load(&m.failed), 0);
	cpu_set_t all;
	CPU_ZERO(&all);
	for (size_t w = 1; w <= started; w++) CPU_OR(&all, &all, &m.of[w]);
	cpu_set_t missing;
	CPU_XOR(&missing, &all, &caller);
	CPU_AND(&missing, &missing, &caller);
	RK_CHECK_INT(CPU_COUNT(&missing), 0);
#endif
}

RK_TEST_MAIN(
	RK_TEST_ENTRY(every_index_once),
	RK_TEST_ENTRY(empty_and_null),
	RK_TEST_ENTRY(team_runs_beside_caller),
	RK_TEST_ENTRY(cpu_count_follows_affinity),
	RK_TEST_ENTRY(oversized_team_reaches_every_cpu)
)
