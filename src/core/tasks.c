/* src/core/tasks.c - helper teams and parallel loops (include/rigkit/tasks.h). */
#include "core/thread.h"
#include "rigkit/tasks.h"

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

_Static_assert(sizeof(pthread_t) <= sizeof(uint64_t), "rk_task_team stores a pthread_t in a uint64_t");

/* A helper reads only its slot's team and worker, written before it was
 * created and never changed while it runs. */
static void *rki_team_main(void *p)
{
	const rk_task_slot_ *slot = (const rk_task_slot_ *)p;
	slot->team->fn(slot->team->user, slot->worker);
	return NULL;
}

size_t rk_task_team_start(rk_task_team *team, size_t helpers, void (*fn)(void *user, size_t worker), void *user)
{
	if (!team) return 0;
	team->started = 0;
	team->fn = fn;
	team->user = user;
	if (!fn) return 0;
	if (helpers > RK_TASKS_MAX_HELPERS) helpers = RK_TASKS_MAX_HELPERS;
	for (size_t k = 0; k < helpers; k++) {
		rk_task_slot_ *slot = &team->slots_[team->started];
		slot->team = team;
		slot->worker = team->started + 1;
		pthread_t id;
		if (!rki_thread_start(&id, rki_team_main, slot, k)) break;
		slot->handle = 0;
		memcpy(&slot->handle, &id, sizeof(id));
		team->started++;
	}
	return team->started;
}

void rk_task_team_join(rk_task_team *team)
{
	if (!team) return;
	for (size_t k = 0; k < team->started; k++) {
		pthread_t id;
		memcpy(&id, &team->slots_[k].handle, sizeof(id));
		pthread_join(id, NULL);
	}
	team->started = 0;
}

typedef struct rki_for_shared {
	void (*fn)(void *user, size_t index, size_t worker);
	void *user;
	size_t count;
	atomic_size_t next;
} rki_for_shared;

static void rki_for_worker(void *p, size_t worker)
{
	rki_for_shared *sh = (rki_for_shared *)p;
	for (;;) {
		size_t i = atomic_fetch_add_explicit(&sh->next, 1, memory_order_relaxed);
		if (i >= sh->count) return;
		sh->fn(sh->user, i, worker);
	}
}

size_t rk_parallel_for(size_t count, size_t threads, void (*fn)(void *user, size_t index, size_t worker), void *user)
{
	if (!fn || count == 0) return 0;
	if (threads < 1) threads = 1;
	if (threads > count) threads = count;
	if (threads > RK_TASKS_MAX_HELPERS + 1) threads = RK_TASKS_MAX_HELPERS + 1;
	rki_for_shared sh;
	sh.fn = fn;
	sh.user = user;
	sh.count = count;
	atomic_init(&sh.next, 0);
	if (threads == 1) {
		rki_for_worker(&sh, 0);
		return 1;
	}
	rk_task_team team;
	size_t started = rk_task_team_start(&team, threads - 1, rki_for_worker, &sh);
	rki_for_worker(&sh, 0);
	rk_task_team_join(&team);
	return started + 1;
}

size_t rk_cpu_count(void)
{
	return rki_thread_online_cores();
}
