/* tests/rk_runtime_test.h - helpers shared by the runtime tests
 * (test_runtime.c, test_runtime_simd.c): a shared asset loaded by name, and
 * a local pose with its model-matrix array, both owned by the test. */
#ifndef RK_RUNTIME_TEST_H
#define RK_RUNTIME_TEST_H

#include "rk_test.h"

#include <rigkit/rigkit.h>
#include <rigkit/runtime.h>

#include <stdio.h>
#include <stdlib.h>

/* ../shared/assets/<name>, NULL (the reason on stderr) when the shared
 * folder is absent or the load fails. rk_free_scene() it. */
static inline rk_scene *rk_test_load_asset(const char *name)
{
	const char *dir = rk_test_shared_dir();
	if (!dir) return NULL;
	char path[4096];
	snprintf(path, sizeof(path), "%s/assets/%s", dir, name);
	rk_error err;
	rk_scene *s = rk_load_file(path, NULL, &err);
	if (!s) {
		char msg[1024];
		rk_error_format(msg, sizeof(msg), &err);
		fprintf(stderr, "rk_test_load_asset: %s\n", msg);
	}
	return s;
}

/* A local pose of `joints` joints and as many model matrices (at least one). */
typedef struct rk_test_pose {
	rk_local_pose pose;
	void *mem;
	rk_float4x4 *model;
} rk_test_pose;

static inline bool rk_test_pose_init(rk_test_pose *p, size_t joints)
{
	size_t bytes = rk_local_pose_memory_size(joints);
	p->mem = malloc(bytes);
	p->model = (rk_float4x4 *)malloc(sizeof(rk_float4x4) * (joints ? joints : 1));
	return p->mem && p->model && rk_local_pose_init(&p->pose, joints, p->mem, bytes);
}

static inline void rk_test_pose_free(rk_test_pose *p)
{
	free(p->mem);
	free(p->model);
}

#endif
