/*
 * bench/bench_twist.c - how twist distribution spreads a clip's forearm
 * twist (docs/retarget.md, "Twist joints"). Not a timing: an accuracy
 * measure, reproduced by the command in the docs.
 *
 * usage: bench_twist [SOURCE CLIP]...
 *
 * Each (SOURCE, CLIP) is retargeted onto tests/fixtures/twist_rig.glb
 * twice, --twist off and on (rk_retarget, defaults otherwise), and both
 * results are evaluated at 30 fps. For each forearm, the chain lowerArm ->
 * its twist joints -> hand (left: one leaf joint, right: two in-chain
 * joints) is measured: the turn of each node from its rest relative to the
 * lowerArm's turn, decomposed about the current forearm axis (lowerArm
 * joint -> hand joint) into a twist angle; printed are the largest twist
 * of the hand and the largest step between neighbours on the chain (the
 * candy-wrapper twist one joint's skin has to absorb). CLIP "" = the
 * source's first clip.
 *
 * Without arguments: SHARED/assets ybot@kick.fbx "" and Xbot.glb walk
 * (SHARED = $RIGKIT_SHARED_DIR, else the build's RK_SHARED_DIR), and the
 * fixture's own tests/fixtures/twist_source.glb Twist.
 */
#include "rigkit/rigkit.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef RK_SHARED_DIR
#define RK_SHARED_DIR ""
#endif
#ifndef RK_SOURCE_DIR
#define RK_SOURCE_DIR "."
#endif

static double twist_about(rk_quat a, rk_quat b, rk_vec3 axis)
{
	rk_quat q = rk_quat_normalize(rk_quat_mul(a, rk_quat_conjugate(b)));
	if (q.w < 0) q = (rk_quat){ -q.x, -q.y, -q.z, -q.w };
	rk_vec3 n = rk_vec3_normalize(axis);
	return 2.0 * atan2(q.x * n.x + q.y * n.y + q.z * n.z, q.w);
}

static const char *const k_chains[2][4] = {
	{ "lowerarm_l", "lowerarm_twist_01_l", "hand_l", NULL },
	{ "lowerarm_r", "lowerarm_twist_01_r", "lowerarm_twist_02_r", "hand_r" },
};

/* turn from rest of node `name` at pose p (rest pose p0) */
static rk_quat turn_of(const rk_scene *s, const rk_pose *p, const rk_pose *p0, const char *name)
{
	const rk_node *n = rk_scene_find_node(s, name);
	return rk_quat_mul(rk_mat4_decompose(p->node_to_world[n->index]).rotation,
		rk_quat_conjugate(rk_mat4_decompose(p0->node_to_world[n->index]).rotation));
}

static int measure(const rk_scene *src, const char *src_path, const char *clip_name, const char *target_path)
{
	const rk_anim_clip *clip = clip_name[0] ? rk_scene_find_clip(src, clip_name) : src->clips.count ? &src->clips.data[0] : NULL;
	if (!clip) {
		fprintf(stderr, "%s: no clip '%s'\n", src_path, clip_name);
		return 1;
	}
	for (int mode = 0; mode < 2; mode++) {
		rk_error err;
		rk_scene *dst = rk_load_file(target_path, NULL, &err);
		if (!dst) {
			fprintf(stderr, "%s: %s\n", target_path, err.message);
			return 1;
		}
		rk_retarget_opts o;
		memset(&o, 0, sizeof(o));
		o.twist = mode ? RK_RETARGET_TWIST_ON : RK_RETARGET_TWIST_OFF;
		rk_anim_clip *out = rk_retarget(dst, src, clip, &o, NULL, &err);
		size_t bytes = rk_pose_memory_size(dst);
		void *mem = malloc(bytes), *mem0 = malloc(bytes);
		rk_pose p, p0;
		if (!out || !mem || !mem0 || !rk_pose_init(&p, dst, mem, bytes) || !rk_pose_init(&p0, dst, mem0, bytes)) {
			fprintf(stderr, "%s: %s\n", src_path, out ? "out of memory" : err.message);
			free(mem);
			free(mem0);
			rk_scene_free(dst);
			return 1;
		}
		rk_pose_eval_job job;
		memset(&job, 0, sizeof(job));
		job.scene = dst;
		job.pose = &p0;
		rk_pose_eval_run(&job);
		double hand[2] = { 0, 0 }, step[2] = { 0, 0 };
		int frames = (int)floor((out->time_end - out->time_begin) * 30.0 + 0.5) + 1;
		for (int k = 0; k < frames; k++) {
			job.clip = out;
			job.time = out->time_begin + k / 30.0;
			job.pose = &p;
			rk_pose_eval_run(&job);
			for (int side = 0; side < 2; side++) {
				const char *const *c = k_chains[side];
				int last = c[3] ? 3 : 2;
				rk_vec3 axis = rk_vec3_sub(rk_mat4_get_translation(p.node_to_world[rk_scene_find_node(dst, c[last])->index]),
					rk_mat4_get_translation(p.node_to_world[rk_scene_find_node(dst, c[0])->index]));
				rk_quat tb = turn_of(dst, &p, &p0, c[0]);
				double prev = 0.0;
				for (int i = 1; i <= last; i++) {
					double a = twist_about(turn_of(dst, &p, &p0, c[i]), tb, axis);
					step[side] = fmax(step[side], fabs(a - prev));
					prev = a;
				}
				hand[side] = fmax(hand[side], fabs(prev));
			}
		}
		printf("| %s %s | %s | %.1f | %.1f | %.1f | %.1f |\n", src_path, clip->name ? clip->name : "", mode ? "on" : "off",
			hand[0] * 57.29577951308232, step[0] * 57.29577951308232, hand[1] * 57.29577951308232,
			step[1] * 57.29577951308232);
		free(mem);
		free(mem0);
		rk_scene_free(dst);
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *shared = getenv("RIGKIT_SHARED_DIR");
	if (!shared || !shared[0]) shared = RK_SHARED_DIR;
	char kick[1024], xbot[1024];
	snprintf(kick, sizeof(kick), "%s/assets/ybot@kick.fbx", shared);
	snprintf(xbot, sizeof(xbot), "%s/assets/Xbot.glb", shared);
	const char *defaults[] = { kick, "", xbot, "walk", RK_SOURCE_DIR "/tests/fixtures/twist_source.glb", "Twist" };
	const char *const *pairs = argc > 1 ? (const char *const *)(argv + 1) : defaults;
	int count = argc > 1 ? (argc - 1) / 2 : 3;
	if (argc > 1 && (argc - 1) % 2) {
		fprintf(stderr, "usage: bench_twist [SOURCE CLIP]...\n");
		return 2;
	}
	const char *target = RK_SOURCE_DIR "/tests/fixtures/twist_rig.glb";
	printf("| source clip | twist | left hand deg | left largest step deg | right hand deg | right largest step deg |\n");
	printf("|---|---|---:|---:|---:|---:|\n");
	int rc = 0;
	for (int i = 0; i < count; i++) {
		rk_error err;
		rk_scene *src = rk_load_file(pairs[2 * i], NULL, &err);
		if (!src) {
			fprintf(stderr, "skipped %s: %s\n", pairs[2 * i], err.message);
			continue;
		}
		rc |= measure(src, pairs[2 * i], pairs[2 * i + 1], target);
		rk_scene_free(src);
	}
	return rc;
}
