/*
 * fuzz/fuzz_fbx_common.h - shared body of the scene-level FBX fuzz targets:
 * load through rk_load_memory() with small limits, then evaluate what
 * loaded (static pose, first clip, world positions/normals of every mesh
 * node). Aborts when a failed load has no error code or message.
 */
#ifndef RIGKIT_FUZZ_FBX_COMMON_H
#define RIGKIT_FUZZ_FBX_COMMON_H

#include <rigkit/rigkit.h>

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void rk_fuzz_fbx_scene(const uint8_t *data, size_t size)
{
	rk_error err;
	rk_load_opts o = { 0 };
	o.memory_limit = (size_t)256 << 20;
	o.max_elements = (size_t)1 << 22;
	o.max_depth = 32;
	o.filename = "fuzz.fbx";
	rk_scene *s = rk_load_memory(data, size, &o, &err);
	if (!s) {
		if (err.code == RK_OK || !err.message[0]) abort();
		return;
	}
	size_t ps = rk_pose_memory_size(s);
	void *mem = malloc(ps ? ps : 1);
	size_t maxv = 1, maxc = 1;
	for (size_t i = 0; i < s->meshes.count; i++) {
		if (s->meshes.data[i].vertex_count > maxv) maxv = s->meshes.data[i].vertex_count;
		if (s->meshes.data[i].index_count > maxc) maxc = s->meshes.data[i].index_count;
	}
	rk_vec3 *pos = (rk_vec3 *)malloc(maxv * sizeof(rk_vec3));
	rk_vec3 *nrm = (rk_vec3 *)malloc(maxc * sizeof(rk_vec3));
	rk_pose pose;
	if (mem && pos && nrm && rk_pose_init(&pose, s, mem, ps)) {
		for (int pass = 0; pass < 2; pass++) {
			rk_pose_eval_job job = { 0 };
			job.scene = s;
			job.pose = &pose;
			if (pass == 1) {
				if (!s->clips.count) break;
				job.clip = &s->clips.data[0];
				double t = 0.5 * (job.clip->time_begin + job.clip->time_end);
				job.time = isfinite(t) ? t : 0.0;
			}
			if (!rk_pose_eval_run(&job)) continue;
			for (size_t i = 0; i < s->nodes.count; i++) {
				if (!s->nodes.data[i].mesh) continue;
				rk_mesh_world_positions_eval(s, &s->nodes.data[i], &pose, pos);
				rk_mesh_world_normals_eval(s, &s->nodes.data[i], &pose, nrm);
			}
		}
	}
	free(mem);
	free(pos);
	free(nrm);
	rk_scene_free(s);
}

#endif
