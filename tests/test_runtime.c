/*
 * tests/test_runtime.c - the animation runtime (rigkit/runtime.h).
 *
 * Expectations are independent of the runtime:
 *   - shared clips: anim.h's double-precision reference (rk_pose_eval_run)
 *     at many times, locals against pose.local / node_to_parent and model
 *     matrices against pose.node_to_world;
 *   - hand-built skeletons and clips: values worked out by hand in the
 *     comments (lerps, slerp angles, Hermite basis, root motion distances);
 *   - crossfade: the geometric bound of the issue (a blend is never farther
 *     from either input than the inputs are from each other) and equality of
 *     differently split time steps.
 */
#include "rk_runtime_test.h"

#include <rigkit/anim.h>
#include <rigkit/rigkit.h>
#include <rigkit/runtime.h>

#include <stdint.h>

/* ---------------------------------------------------------------------------
 * Helpers
 * ------------------------------------------------------------------------- */

typedef struct ref_pose {
	rk_pose pose;
	void *mem;
} ref_pose;

static int ref_init(ref_pose *r, const rk_scene *s)
{
	size_t bytes = rk_pose_memory_size(s);
	r->mem = malloc(bytes);
	return r->mem && rk_pose_init(&r->pose, s, r->mem, bytes);
}

static void ref_eval(ref_pose *r, const rk_scene *s, const rk_anim_clip *clip, double file_time)
{
	rk_pose_eval_job job;
	memset(&job, 0, sizeof(job));
	job.scene = s;
	job.clip = clip;
	job.time = file_time;
	job.pose = &r->pose;
	rk_pose_eval_run(&job);
}

static rk_quat qd(rk_float4 q) { return (rk_quat){ q.x, q.y, q.z, q.w }; }
static rk_float4 qf(rk_quat q) { return (rk_float4){ (float)q.x, (float)q.y, (float)q.z, (float)q.w }; }
static double angle_f(rk_float4 a, rk_float4 b) { return rk_quat_angle_between(rk_quat_normalize(qd(a)), rk_quat_normalize(qd(b))); }

static double dist3(rk_float3 a, rk_vec3 b)
{
	double dx = a.x - b.x, dy = a.y - b.y, dz = a.z - b.z;
	return sqrt(dx * dx + dy * dy + dz * dz);
}

static double distf3(rk_float3 a, rk_float3 b) { return dist3(a, rk_vec3_make(b.x, b.y, b.z)); }

/* Rotation part of a column-major float matrix, normalised columns. */
static rk_quat model_rotation(const rk_float4x4 *m)
{
	rk_mat4 d;
	for (int i = 0; i < 16; i++) d.m[i] = m->m[i];
	return rk_mat4_decompose(d).rotation;
}

static int sample(const rk_runtime_clip *c, double t, rk_playback pb, rk_sample_context *ctx, rk_local_pose out,
	float *weights, size_t wcount)
{
	rk_sample_job job;
	memset(&job, 0, sizeof(job));
	job.clip = c;
	job.time = t;
	job.playback = pb;
	job.context = ctx;
	job.output = out;
	job.morph_weights = weights;
	job.morph_weight_count = wcount;
	return rk_sample_run(&job);
}

static int to_model(const rk_skeleton *sk, rk_local_pose p, const rk_float4x4 *root, rk_float4x4 *model)
{
	rk_local_to_model_job job;
	memset(&job, 0, sizeof(job));
	job.skeleton = sk;
	job.input = rk_local_pose_view_of(p);
	job.root_transform = root;
	job.model = model;
	return rk_local_to_model_run(&job);
}

/* Model space extent of the reference pose's joints (bounding-box diagonal). */
static double ref_extent(const ref_pose *r, const rk_skeleton *sk)
{
	rk_vec3 lo = { 1e300, 1e300, 1e300 }, hi = { -1e300, -1e300, -1e300 };
	for (size_t j = 0; j < sk->joint_count; j++) {
		rk_vec3 p = rk_mat4_get_translation(r->pose.node_to_world[sk->node_indices[j]]);
		lo.x = p.x < lo.x ? p.x : lo.x; lo.y = p.y < lo.y ? p.y : lo.y; lo.z = p.z < lo.z ? p.z : lo.z;
		hi.x = p.x > hi.x ? p.x : hi.x; hi.y = p.y > hi.y ? p.y : hi.y; hi.z = p.z > hi.z ? p.z : hi.z;
	}
	double e = rk_vec3_length(rk_vec3_sub(hi, lo));
	return e > 0 ? e : 1.0;
}

/* Errors of one runtime clip against the reference over `count` times. */
typedef struct clip_errors {
	double local_t;      /* |dt| / (1 + |t|) for exact glTF, model units otherwise */
	double local_r;      /* radians */
	double local_s;      /* relative */
	double model_p;      /* / extent */
	double model_r;      /* radians */
	double weight;
	int sample_failures;
	int cursor_mismatch;
} clip_errors;

/* Reference local of node n as runtime.h FIDELITY defines it. */
static rk_trs expected_local(const ref_pose *r, const rk_node *n)
{
	if (n->has_fbx_props && n->props.inherit_mode != RK_INHERIT_NORMAL && n->parent) {
		rk_mat4 inv;
		if (rk_mat4_invert_affine(r->pose.node_to_world[n->parent->index], &inv))
			return rk_mat4_decompose(rk_mat4_mul(inv, r->pose.node_to_world[n->index]));
	}
	if (!n->has_fbx_props && n->kind != RK_NODE_ROOT) return r->pose.local[n->index];
	return rk_mat4_decompose(r->pose.node_to_parent[n->index]);
}

static clip_errors compare_clip(const rk_scene *s, const rk_skeleton *sk, const rk_anim_clip *clip,
	const rk_runtime_clip *rc, int count, bool relative_t)
{
	clip_errors e;
	memset(&e, 0, sizeof(e));
	ref_pose r;
	rk_test_pose a, b;
	if (!ref_init(&r, s) || !rk_test_pose_init(&a, sk->joint_count) || !rk_test_pose_init(&b, sk->joint_count)) {
		e.sample_failures = 1;
		return e;
	}
	size_t ctx_n = rk_sample_context_size(rc);
	uint32_t *cursors = (uint32_t *)malloc(sizeof(uint32_t) * (ctx_n + 1));
	rk_sample_context ctx;
	rk_sample_context_init(&ctx, cursors, ctx_n);
	size_t wn = rc->morph_weight_count;
	float *wa = (float *)malloc(sizeof(float) * (wn + 1)), *wb = (float *)malloc(sizeof(float) * (wn + 1));
	ref_eval(&r, s, NULL, 0.0);
	double extent = ref_extent(&r, sk);
	uint32_t rng = 12345;
	for (int i = 0; i <= count; i++) {
		/* forward playback on a grid, with a pseudo-random jitter every third step */
		double t = rc->duration * i / count;
		if (i % 3 == 1) {
			rng = rng * 1664525u + 1013904223u;
			t = rc->duration * ((double)(rng >> 8) / 16777216.0);
		}
		ref_eval(&r, s, clip, clip->time_begin + t);
		if (!sample(rc, t, RK_PLAYBACK_CLAMP, &ctx, a.pose, wa, wn) || !sample(rc, t, RK_PLAYBACK_CLAMP, NULL, b.pose, wb, wn)
			|| !to_model(sk, a.pose, NULL, a.model)) {
			e.sample_failures++;
			continue;
		}
		for (size_t j = 0; j < sk->joint_count; j++) {
			if (memcmp(&a.pose.translation[j], &b.pose.translation[j], sizeof(rk_float3)) != 0
				|| memcmp(&a.pose.rotation[j], &b.pose.rotation[j], sizeof(rk_float4)) != 0
				|| memcmp(&a.pose.scale[j], &b.pose.scale[j], sizeof(rk_float3)) != 0)
				e.cursor_mismatch++;
			const rk_node *n = &s->nodes.data[sk->node_indices[j]];
			rk_trs L = expected_local(&r, n);
			double dt = dist3(a.pose.translation[j], L.translation);
			if (relative_t) dt /= 1.0 + rk_vec3_length(L.translation);
			else if (sk->parents[j] >= 0) {
				/* model units: times the parent's world scale (rest ~ current here) */
				const double *m = r.pose.node_to_world[n->parent->index].m;
				double sc = sqrt(m[0] * m[0] + m[1] * m[1] + m[2] * m[2]);
				dt *= sc;
			}
			if (dt > e.local_t) e.local_t = dt;
			double dr = rk_quat_angle_between(qd(a.pose.rotation[j]), L.rotation);
			if (dr > e.local_r) e.local_r = dr;
			double sv[3] = { L.scale.x, L.scale.y, L.scale.z }, av[3] = { a.pose.scale[j].x, a.pose.scale[j].y, a.pose.scale[j].z };
			for (int k = 0; k < 3; k++) {
				double ds = fabs(av[k] - sv[k]) / (fabs(sv[k]) > 1 ? fabs(sv[k]) : 1);
				if (ds > e.local_s) e.local_s = ds;
			}
			const rk_mat4 *W = &r.pose.node_to_world[n->index];
			double dp = dist3((rk_float3){ a.model[j].m[12], a.model[j].m[13], a.model[j].m[14] }, rk_mat4_get_translation(*W)) / extent;
			if (dp > e.model_p) e.model_p = dp;
			double dmr = rk_quat_angle_between(model_rotation(&a.model[j]), rk_mat4_decompose(*W).rotation);
			if (dmr > e.model_r) e.model_r = dmr;
		}
		for (size_t bi = 0; bi < rc->morph_block_count; bi++) {
			const rk_morph_block *mb = &rc->morph_blocks[bi];
			const rk_node *n = &s->nodes.data[sk->node_indices[mb->joint]];
			for (uint32_t c = 0; c < mb->channel_count; c++) {
				double ref = r.pose.blend_weights[r.pose.blend_offsets[n->index] + c];
				double d = fabs(wa[mb->weight_offset + c] - ref);
				if (d > e.weight) e.weight = d;
				if (wa[mb->weight_offset + c] != wb[mb->weight_offset + c]) e.cursor_mismatch++;
			}
		}
	}
	free(wa);
	free(wb);
	free(cursors);
	free(r.mem);
	rk_test_pose_free(&a);
	rk_test_pose_free(&b);
	return e;
}

static size_t clip_track_count(const rk_anim_clip *clip)
{
	size_t n = 0;
	for (size_t l = 0; l < clip->layer_count; l++) n += clip->layers[l].track_count;
	return n;
}

/* ---------------------------------------------------------------------------
 * Local poses and skeletons
 * ------------------------------------------------------------------------- */

RK_TEST(test_local_pose_memory)
{
	rk_local_pose p;
	RK_CHECK(!rk_local_pose_init(&p, 3, NULL, 100));
	size_t need = rk_local_pose_memory_size(3);
	RK_CHECK(need >= 3 * (12 + 16 + 12));
	unsigned char *mem = (unsigned char *)malloc(need + 1);
	RK_REQUIRE(mem);
	RK_CHECK(!rk_local_pose_init(&p, 3, mem + 1, need - 1));
	RK_CHECK(p.joint_count == 0 && p.translation == NULL);
	RK_REQUIRE(rk_local_pose_init(&p, 3, mem + 1, need));
	RK_CHECK_INT(p.joint_count, 3);
	RK_CHECK(((uintptr_t)p.translation & 15u) == 0 && ((uintptr_t)p.rotation & 15u) == 0 && ((uintptr_t)p.scale & 15u) == 0);
	RK_CHECK((unsigned char *)(p.scale + 3) <= mem + 1 + need);
	RK_CHECK((unsigned char *)p.rotation >= (unsigned char *)(p.translation + 3));
	RK_CHECK((unsigned char *)p.scale >= (unsigned char *)(p.rotation + 3));
	RK_CHECK(rk_local_pose_memory_size(SIZE_MAX / 4) == 0);
	free(mem);
}

RK_TEST(test_skeleton_build_xbot)
{
	rk_scene *s = rk_test_load_asset("Xbot.glb");
	if (!s) RK_SKIP("shared assets not found");
	rk_error err;
	rk_skeleton *all = rk_skeleton_build(s, NULL, &err);
	RK_REQUIRE(all);
	RK_CHECK_INT(all->joint_count, s->nodes.count);
	for (size_t j = 0; j < all->joint_count; j++) {
		RK_CHECK_INT(all->node_indices[j], j);
		RK_CHECK(all->parents[j] < (int32_t)j);
		RK_CHECK_STR(all->names[j], s->nodes.data[j].name);
		const rk_node *n = &s->nodes.data[j];
		RK_CHECK_INT(all->parents[j], n->parent ? (int32_t)n->parent->index : -1);
		if (n->kind != RK_NODE_ROOT) {
			/* glTF rest = the node's TRS as stored */
			RK_CHECK(dist3(all->rest.translation[j], n->local.translation) <= 1e-6 * (1 + rk_vec3_length(n->local.translation)));
			RK_CHECK(rk_quat_angle_between(qd(all->rest.rotation[j]), n->local.rotation) <= 1e-6);
			RK_CHECK(dist3(all->rest.scale[j], n->local.scale) <= 1e-7);
		}
	}
	RK_CHECK_INT(rk_skeleton_find_joint(all, "mixamorig:Hips"), (int32_t)rk_scene_find_node(s, "mixamorig:Hips")->index);
	RK_CHECK_INT(rk_skeleton_find_joint(all, "nope"), RK_JOINT_NONE);

	/* joints_only drops the two mesh nodes (no joint below them) */
	rk_skeleton_opts o;
	memset(&o, 0, sizeof(o));
	o.joints_only = true;
	rk_skeleton *jo = rk_skeleton_build(s, &o, &err);
	RK_REQUIRE(jo);
	size_t meshes = 0;
	for (size_t i = 0; i < s->nodes.count; i++) meshes += s->nodes.data[i].kind == RK_NODE_MESH;
	RK_CHECK_INT(meshes, 2);
	RK_CHECK_INT(jo->joint_count, s->nodes.count - meshes);
	RK_CHECK_INT(rk_skeleton_find_joint(jo, "Beta_Joints"), RK_JOINT_NONE);
	for (size_t j = 1; j < jo->joint_count; j++) {
		const rk_node *n = &s->nodes.data[jo->node_indices[j]];
		RK_CHECK_INT(jo->node_indices[jo->parents[j]], n->parent->index);
	}

	/* the Hips subtree: every node with Hips on its parent chain */
	const rk_node *hips = rk_scene_find_node(s, "mixamorig:Hips");
	o.joints_only = false;
	o.root = hips;
	rk_skeleton *hs = rk_skeleton_build(s, &o, &err);
	RK_REQUIRE(hs);
	size_t under = 0;
	for (size_t i = 0; i < s->nodes.count; i++)
		for (const rk_node *p = &s->nodes.data[i]; p; p = p->parent)
			if (p == hips) { under++; break; }
	RK_CHECK_INT(hs->joint_count, under);
	RK_CHECK_INT(hs->parents[0], RK_JOINT_NONE);
	RK_CHECK_STR(hs->names[0], "mixamorig:Hips");
	RK_CHECK_INT(rk_skeleton_joint_of_node(hs, hips), 0);

	rk_skeleton_free(all);
	rk_skeleton_free(jo);
	rk_skeleton_free(hs);
	rk_scene_free(s);
}

/* ---------------------------------------------------------------------------
 * Sampling against the reference
 * ------------------------------------------------------------------------- */

/* glTF clips convert exactly: the runtime differs from anim.h only by float rounding. */
RK_TEST(test_gltf_clips_match_reference)
{
	static const char *files[] = { "Xbot.glb", "Soldier.glb", "Horse.glb", "Flamingo.glb" };
	int loaded = 0;
	for (size_t f = 0; f < sizeof(files) / sizeof(files[0]); f++) {
		rk_scene *s = rk_test_load_asset(files[f]);
		if (!s) continue;
		loaded++;
		rk_error err;
		rk_skeleton *sk = rk_skeleton_build(s, NULL, &err);
		RK_REQUIRE(sk);
		RK_CHECK(s->clips.count > 0);
		for (size_t c = 0; c < s->clips.count; c++) {
			const rk_anim_clip *clip = &s->clips.data[c];
			rk_runtime_clip *rc = rk_runtime_clip_build(s, clip, sk, NULL, &err);
			RK_REQUIRE(rc);
			RK_CHECK(rk_runtime_clip_validate(rc, &err));
			RK_CHECK_INT(rc->exact_track_count, clip_track_count(clip));
			RK_CHECK_INT(rc->resampled_track_count, 0);
			RK_CHECK_INT(rc->reference_evaluations, 0);
			RK_CHECK_NEAR(rc->duration, clip->time_end - clip->time_begin, 0);
			clip_errors e = compare_clip(s, sk, clip, rc, 600, true);
			fprintf(stderr, "  %s %-12s local t %.2e r %.2e s %.2e | model p %.2e r %.2e | weights %.2e\n", files[f], clip->name,
				e.local_t, e.local_r, e.local_s, e.model_p, e.model_r, e.weight);
			RK_CHECK_INT(e.sample_failures, 0);
			RK_CHECK_INT(e.cursor_mismatch, 0);
			RK_CHECK(e.local_t <= 2e-7);
			RK_CHECK(e.local_r <= 1e-6);
			RK_CHECK(e.local_s <= 2e-7);
			RK_CHECK(e.model_p <= 2e-6);
			RK_CHECK(e.model_r <= 4e-6);
			RK_CHECK(e.weight <= 1e-6);
			if (strcmp(files[f], "Horse.glb") == 0) {
				RK_CHECK_INT(rc->morph_block_count, 1);
				RK_CHECK_INT(rc->morph_weight_count, 15);
			}
			rk_runtime_clip_free(rc);
		}
		rk_skeleton_free(sk);
		rk_scene_free(s);
	}
	if (!loaded) RK_SKIP("shared assets not found");
}

/* FBX Euler curves are resampled; errors stay within the documented tolerances. */
RK_TEST(test_fbx_kick_within_tolerance)
{
	rk_scene *s = rk_test_load_asset("ybot@kick.fbx");
	if (!s) RK_SKIP("shared assets not found");
	rk_error err;
	rk_skeleton *sk = rk_skeleton_build(s, NULL, &err);
	RK_REQUIRE(sk);
	RK_REQUIRE(s->clips.count == 1);
	const rk_anim_clip *clip = &s->clips.data[0];
	for (int linear = 0; linear <= 1; linear++) {
		rk_runtime_clip_opts o;
		memset(&o, 0, sizeof(o));
		o.linear_keys = linear != 0;
		rk_runtime_clip *rc = rk_runtime_clip_build(s, clip, sk, &o, &err);
		RK_REQUIRE(rc);
		RK_CHECK(rk_runtime_clip_validate(rc, &err));
		RK_CHECK_INT(rc->exact_track_count, 0);
		RK_CHECK(rc->resampled_track_count > 0);
		RK_CHECK_INT(rc->unresolved_intervals, 0);
		RK_CHECK_NEAR(rc->rotation_tolerance, 1e-4, 0);
		RK_CHECK(rc->max_rotation_error <= 0.5 * rc->rotation_tolerance);
		RK_CHECK(rc->max_translation_error <= 0.5 * rc->translation_tolerance);
		clip_errors e = compare_clip(s, sk, clip, rc, 3000, false);
		RK_CHECK(rc->memory_size > rc->time_count * sizeof(float));
		fprintf(stderr, "  ybot@kick %s: %zu keys, %zu bytes, %u evaluations; tolerance t %.3g r %.3g | dense local t %.3g r %.3g s %.3g | model p %.3g (of extent) r %.3g\n",
			linear ? "LINEAR" : "CUBIC", rc->time_count, rc->memory_size, rc->reference_evaluations, rc->translation_tolerance,
			rc->rotation_tolerance, e.local_t, e.local_r, e.local_s, e.model_p, e.model_r);
		RK_CHECK_INT(e.sample_failures, 0);
		RK_CHECK_INT(e.cursor_mismatch, 0);
		RK_CHECK(e.local_t <= rc->translation_tolerance);
		RK_CHECK(e.local_r <= rc->rotation_tolerance);
		RK_CHECK(e.local_s <= rc->scale_tolerance);
		RK_CHECK(e.model_p <= 2e-4);
		RK_CHECK(e.model_r <= 2e-3);
		rk_runtime_clip_free(rc);
	}
	rk_skeleton_free(sk);
	rk_scene_free(s);
}

/* The resampling path on glTF clips (forced) also stays within tolerance,
 * including morph weights (Horse). */
RK_TEST(test_resampled_gltf_within_tolerance)
{
	static const char *files[] = { "Xbot.glb", "Horse.glb" };
	int loaded = 0;
	for (size_t f = 0; f < 2; f++) {
		rk_scene *s = rk_test_load_asset(files[f]);
		if (!s) continue;
		loaded++;
		rk_error err;
		rk_skeleton *sk = rk_skeleton_build(s, NULL, &err);
		RK_REQUIRE(sk);
		const rk_anim_clip *clip = f == 0 ? rk_scene_find_clip(s, "walk") : &s->clips.data[0];
		RK_REQUIRE(clip);
		for (int linear = 0; linear <= 1; linear++) {
			rk_runtime_clip_opts o;
			memset(&o, 0, sizeof(o));
			o.resample_all = true;
			o.linear_keys = linear != 0;
			rk_runtime_clip *rc = rk_runtime_clip_build(s, clip, sk, &o, &err);
			RK_REQUIRE(rc);
			RK_CHECK_INT(rc->exact_track_count, 0);
			clip_errors e = compare_clip(s, sk, clip, rc, 1500, false);
			fprintf(stderr, "  %s %s resampled %s: local t %.2e r %.2e | weights %.2e\n", files[f], clip->name,
				linear ? "LINEAR" : "CUBIC", e.local_t, e.local_r, e.weight);
			RK_CHECK_INT(e.sample_failures, 0);
			RK_CHECK(e.local_t <= rc->translation_tolerance);
			RK_CHECK(e.local_r <= rc->rotation_tolerance);
			RK_CHECK(e.weight <= rc->weight_tolerance);
			rk_runtime_clip_free(rc);
		}
		rk_skeleton_free(sk);
		rk_scene_free(s);
	}
	if (!loaded) RK_SKIP("shared assets not found");
}

/* ---------------------------------------------------------------------------
 * Local to model
 * ------------------------------------------------------------------------- */

/* The rest pose through local-to-model equals anim.h's node_to_world of the
 * static scene (FBX chains with componentwise inheritance, glTF with a
 * rotated, scaled root), and skinning matrices equal rk_skin_matrices_eval. */
RK_TEST(test_static_local_to_model)
{
	static const char *files[] = { "ybot.fbx", "Xbot.glb", "Soldier.glb", "readyplayer.me.glb" };
	int loaded = 0;
	for (size_t f = 0; f < sizeof(files) / sizeof(files[0]); f++) {
		rk_scene *s = rk_test_load_asset(files[f]);
		if (!s) continue;
		loaded++;
		rk_error err;
		rk_skeleton *sk = rk_skeleton_build(s, NULL, &err);
		RK_REQUIRE(sk);
		ref_pose r;
		RK_REQUIRE(ref_init(&r, s));
		ref_eval(&r, s, NULL, 0.0);
		double extent = ref_extent(&r, sk);
		rk_float4x4 *model = (rk_float4x4 *)malloc(sizeof(rk_float4x4) * sk->joint_count);
		RK_REQUIRE(model);
		rk_local_to_model_job job;
		memset(&job, 0, sizeof(job));
		job.skeleton = sk;
		job.input = sk->rest;
		job.model = model;
		RK_REQUIRE(rk_local_to_model_run(&job));
		double worst = 0.0;
		for (size_t j = 0; j < sk->joint_count; j++) {
			const rk_mat4 *W = &s->nodes.data[j].node_to_world;
			for (int c = 0; c < 4; c++)
				for (int k = 0; k < 3; k++) {
					double scale = c == 3 ? extent : 1.0;
					double d = fabs(model[j].m[c * 4 + k] - W->m[c * 4 + k]) / scale;
					if (d > worst) worst = d;
				}
		}
		fprintf(stderr, "  %s static model matrices: worst %.2e (rotation-scale entries abs, translation / extent)\n", files[f], worst);
		RK_CHECK(worst <= 2e-6);

		/* skinning palettes */
		for (size_t sn = 0; sn < s->nodes.count; sn++) {
			const rk_node *mn = &s->nodes.data[sn];
			if (!mn->skin) continue;
			const rk_skin_deformer *skin = mn->skin;
			uint32_t *joints = (uint32_t *)malloc(sizeof(uint32_t) * skin->joint_count);
			rk_float4x4 *ibm = (rk_float4x4 *)malloc(sizeof(rk_float4x4) * skin->joint_count);
			rk_float4x4 *pal = (rk_float4x4 *)malloc(sizeof(rk_float4x4) * skin->joint_count);
			rk_mat4 *refm = (rk_mat4 *)malloc(sizeof(rk_mat4) * skin->joint_count);
			RK_REQUIRE(joints && ibm && pal && refm);
			RK_REQUIRE(rk_skeleton_skin_binding(sk, s, skin, mn, joints, ibm, &err));
			job.skin_joint_count = skin->joint_count;
			job.skin_joints = joints;
			job.inverse_bind = ibm;
			job.skinning = pal;
			RK_REQUIRE(rk_local_to_model_run(&job));
			RK_REQUIRE(rk_skin_matrices_eval(s, skin, NULL, mn, refm));
			double sw = 0.0;
			for (size_t k = 0; k < skin->joint_count; k++)
				for (int c = 0; c < 4; c++)
					for (int q = 0; q < 3; q++) {
						double d = fabs(pal[k].m[c * 4 + q] - refm[k].m[c * 4 + q]) / (c == 3 ? extent : 1.0);
						if (d > sw) sw = d;
					}
			RK_CHECK(sw <= 2e-5);
			job.skinning = NULL;
			job.skin_joint_count = 0;
			free(joints);
			free(ibm);
			free(pal);
			free(refm);
		}
		free(model);
		free(r.mem);
		rk_skeleton_free(sk);
		rk_scene_free(s);
	}
	if (!loaded) RK_SKIP("shared assets not found");
}

/* A skeleton rooted at the hips (joints only) with root_transform = the
 * world matrix of the hips' parent gives world matrices too. */
RK_TEST(test_subtree_root_transform)
{
	rk_scene *s = rk_test_load_asset("Soldier.glb");
	if (!s) RK_SKIP("shared assets not found");
	const rk_node *hips = rk_scene_find_node(s, "mixamorig:Hips");
	RK_REQUIRE(hips && hips->parent);
	rk_skeleton_opts o;
	memset(&o, 0, sizeof(o));
	o.root = hips;
	o.joints_only = true;
	rk_error err;
	rk_skeleton *sk = rk_skeleton_build(s, &o, &err);
	RK_REQUIRE(sk);
	rk_float4x4 root;
	for (int i = 0; i < 16; i++) root.m[i] = (float)hips->parent->node_to_world.m[i];
	rk_float4x4 *model = (rk_float4x4 *)malloc(sizeof(rk_float4x4) * sk->joint_count);
	RK_REQUIRE(model);
	rk_local_to_model_job job;
	memset(&job, 0, sizeof(job));
	job.skeleton = sk;
	job.input = sk->rest;
	job.root_transform = &root;
	job.model = model;
	RK_REQUIRE(rk_local_to_model_run(&job));
	double worst = 0.0;
	for (size_t j = 0; j < sk->joint_count; j++) {
		const rk_mat4 *W = &s->nodes.data[sk->node_indices[j]].node_to_world;
		for (int e = 0; e < 16; e++) {
			double d = fabs(model[j].m[e] - W->m[e]);
			if (d > worst) worst = d;
		}
	}
	RK_CHECK(worst <= 1e-5); /* metres and unit-less rotation entries */
	free(model);
	rk_skeleton_free(sk);

	/* a skeleton that misses skin joints (rooted at the spine: no hips) cannot bind the skin */
	o.root = rk_scene_find_node(s, "mixamorig:Spine");
	RK_REQUIRE(o.root);
	sk = rk_skeleton_build(s, &o, &err);
	RK_REQUIRE(sk);
	const rk_node *mesh_node = NULL;
	for (size_t i = 0; i < s->nodes.count && !mesh_node; i++)
		if (s->nodes.data[i].skin) mesh_node = &s->nodes.data[i];
	RK_REQUIRE(mesh_node);
	uint32_t *jm = (uint32_t *)malloc(sizeof(uint32_t) * mesh_node->skin->joint_count);
	RK_REQUIRE(jm);
	RK_CHECK(!rk_skeleton_skin_binding(sk, s, mesh_node->skin, mesh_node, jm, NULL, &err));
	RK_CHECK(err.code == RK_ERROR_INVALID_ARGUMENT && strstr(err.message, "mixamorig:Hips") != NULL);
	free(jm);
	rk_skeleton_free(sk);
	rk_scene_free(s);
}

/* ---------------------------------------------------------------------------
 * Hand-built clips: interpolation by hand
 * ------------------------------------------------------------------------- */

/* Two joints. Joint 0: T LINEAR keys t = 0, 1, 2: (0,0,0), (1,0,0), (1,2,0);
 * R LINEAR identity -> 90 deg about Z over [0, 1]; S STEP keys 0, 1:
 * (1,1,1), (2,2,2). Joint 1: T CUBIC two keys t = 0 and 2, values (0,0,0)
 * and (1,0,0), out-tangent of key 0 (1,0,0) per second, in-tangent of key 1
 * (0,0,0); R, S constant. */
typedef struct hand_clip {
	rk_runtime_clip c;
	rk_runtime_track tt[2], rt[2], st[2];
	float times[16];
	rk_float3 tv[16], sv[8];
	rk_float4 rv[8];
} hand_clip;

static void hand_clip_init(hand_clip *h)
{
	memset(h, 0, sizeof(*h));
	float *t = h->times;
	/* joint 0 T: keys 0..2 */
	t[0] = 0; t[1] = 1; t[2] = 2;
	h->tt[0] = (rk_runtime_track){ 0, 3, 0, RK_KEY_LINEAR };
	h->tv[0] = (rk_float3){ 0, 0, 0 }; h->tv[1] = (rk_float3){ 1, 0, 0 }; h->tv[2] = (rk_float3){ 1, 2, 0 };
	/* joint 0 R: keys 3..4 */
	t[3] = 0; t[4] = 1;
	h->rt[0] = (rk_runtime_track){ 3, 2, 0, RK_KEY_LINEAR };
	h->rv[0] = (rk_float4){ 0, 0, 0, 1 };
	h->rv[1] = (rk_float4){ 0, 0, (float)sin(RK_PI / 4), (float)cos(RK_PI / 4) };
	/* joint 0 S: keys 5..6 STEP */
	t[5] = 0; t[6] = 1;
	h->st[0] = (rk_runtime_track){ 5, 2, 0, RK_KEY_STEP };
	h->sv[0] = (rk_float3){ 1, 1, 1 }; h->sv[1] = (rk_float3){ 2, 2, 2 };
	/* joint 1 T: keys 7..8 CUBIC, values 3..8 (in, value, out per key) */
	t[7] = 0; t[8] = 2;
	h->tt[1] = (rk_runtime_track){ 7, 2, 3, RK_KEY_CUBIC };
	h->tv[3] = (rk_float3){ 9, 9, 9 };  /* in-tangent of key 0: unused */
	h->tv[4] = (rk_float3){ 0, 0, 0 };
	h->tv[5] = (rk_float3){ 1, 0, 0 };
	h->tv[6] = (rk_float3){ 0, 0, 0 };
	h->tv[7] = (rk_float3){ 1, 0, 0 };
	h->tv[8] = (rk_float3){ 9, 9, 9 };  /* out-tangent of key 1: unused */
	/* joint 1 R, S: one key each */
	t[9] = 0; t[10] = 0;
	h->rt[1] = (rk_runtime_track){ 9, 1, 2, RK_KEY_STEP };
	h->rv[2] = (rk_float4){ 0, 0, 0, 2 }; /* not unit: sampled normalised */
	h->st[1] = (rk_runtime_track){ 10, 1, 2, RK_KEY_STEP };
	h->sv[2] = (rk_float3){ 3, 3, 3 };
	h->c.name = "hand";
	h->c.duration = 2.0;
	h->c.joint_count = 2;
	h->c.translation_tracks = h->tt;
	h->c.rotation_tracks = h->rt;
	h->c.scale_tracks = h->st;
	h->c.time_count = 11;
	h->c.times = h->times;
	h->c.translation_values = h->tv;
	h->c.translation_value_count = 9;
	h->c.rotation_values = h->rv;
	h->c.rotation_value_count = 3;
	h->c.scale_values = h->sv;
	h->c.scale_value_count = 3;
}

RK_TEST(test_sample_hand_clip)
{
	hand_clip h;
	hand_clip_init(&h);
	rk_error err;
	RK_REQUIRE(rk_runtime_clip_validate(&h.c, &err));
	rk_test_pose p;
	RK_REQUIRE(rk_test_pose_init(&p, 2));
	uint32_t cur[6];
	rk_sample_context ctx;
	rk_sample_context_init(&ctx, cur, 6);
	RK_CHECK_INT(rk_sample_context_size(&h.c), 6);

	/* t = 0.25: T = (0.25, 0, 0); R = slerp at 1/4 = 22.5 deg about Z (nlerp would give 18.4);
	 * S = (1,1,1); joint 1 T: Hermite u = 1/8, dt = 2: h10 * dt * 1 + h01 * 1
	 * = (u^3 - 2u^2 + u) * 2 + (3u^2 - 2u^3). */
	RK_REQUIRE(sample(&h.c, 0.25, RK_PLAYBACK_CLAMP, &ctx, p.pose, NULL, 0));
	RK_CHECK_NEAR(p.pose.translation[0].x, 0.25, 1e-7);
	RK_CHECK_NEAR(p.pose.translation[0].y, 0.0, 0);
	double ang = angle_f(p.pose.rotation[0], (rk_float4){ 0, 0, 0, 1 });
	RK_CHECK_NEAR(ang, RK_PI / 8, 2e-7);
	RK_CHECK(p.pose.rotation[0].z > 0);
	RK_CHECK_NEAR(p.pose.scale[0].x, 1.0, 0);
	double u = 0.125;
	double expect = (u * u * u - 2 * u * u + u) * 2.0 + (3 * u * u - 2 * u * u * u);
	RK_CHECK_NEAR(p.pose.translation[1].x, expect, 1e-7);
	RK_CHECK_NEAR(p.pose.rotation[1].w, 1.0, 0);
	RK_CHECK_NEAR(p.pose.scale[1].y, 3.0, 0);

	/* t = 1.5: T = (1, 1, 0); R held at the last key (90 deg); S = 2 (STEP from t = 1) */
	RK_REQUIRE(sample(&h.c, 1.5, RK_PLAYBACK_CLAMP, &ctx, p.pose, NULL, 0));
	RK_CHECK_NEAR(p.pose.translation[0].x, 1.0, 0);
	RK_CHECK_NEAR(p.pose.translation[0].y, 1.0, 1e-7);
	RK_CHECK_NEAR(angle_f(p.pose.rotation[0], (rk_float4){ 0, 0, 0, 1 }), RK_PI / 2, 3e-7);
	RK_CHECK_NEAR(p.pose.scale[0].z, 2.0, 0);
	/* exactly at a STEP key: the new value; just before: the old one */
	RK_REQUIRE(sample(&h.c, 1.0, RK_PLAYBACK_CLAMP, NULL, p.pose, NULL, 0));
	RK_CHECK_NEAR(p.pose.scale[0].z, 2.0, 0);
	RK_REQUIRE(sample(&h.c, 0.9999, RK_PLAYBACK_CLAMP, NULL, p.pose, NULL, 0));
	RK_CHECK_NEAR(p.pose.scale[0].z, 1.0, 0);

	/* clamp and loop */
	RK_REQUIRE(sample(&h.c, 7.0, RK_PLAYBACK_CLAMP, &ctx, p.pose, NULL, 0));
	RK_CHECK_NEAR(p.pose.translation[0].y, 2.0, 0);
	RK_CHECK_NEAR(p.pose.translation[1].x, 1.0, 1e-7);
	RK_REQUIRE(sample(&h.c, -3.0, RK_PLAYBACK_CLAMP, &ctx, p.pose, NULL, 0));
	RK_CHECK_NEAR(p.pose.translation[0].x, 0.0, 0);
	RK_REQUIRE(sample(&h.c, 4.25, RK_PLAYBACK_LOOP, &ctx, p.pose, NULL, 0)); /* = 0.25 */
	RK_CHECK_NEAR(p.pose.translation[0].x, 0.25, 1e-6);
	RK_REQUIRE(sample(&h.c, -0.5, RK_PLAYBACK_LOOP, &ctx, p.pose, NULL, 0)); /* = 1.5 */
	RK_CHECK_NEAR(p.pose.translation[0].y, 1.0, 1e-6);
	RK_CHECK_NEAR(rk_playback_time(-0.5, 2.0, RK_PLAYBACK_LOOP), 1.5, 0);
	RK_CHECK_NEAR(rk_playback_time(4.0, 2.0, RK_PLAYBACK_LOOP), 0.0, 0);
	RK_CHECK_NEAR(rk_playback_time(4.0, 2.0, RK_PLAYBACK_CLAMP), 2.0, 0);
	RK_CHECK_NEAR(rk_playback_time(4.0, 0.0, RK_PLAYBACK_LOOP), 0.0, 0);

	/* cursors are hints: garbage cursors give the same result */
	rk_test_pose q;
	RK_REQUIRE(rk_test_pose_init(&q, 2));
	for (int i = 0; i < 6; i++) cur[i] = 1000000u + (uint32_t)i;
	for (double t = 0.0; t <= 2.0; t += 0.0625) {
		RK_REQUIRE(sample(&h.c, t, RK_PLAYBACK_CLAMP, &ctx, p.pose, NULL, 0));
		RK_REQUIRE(sample(&h.c, t, RK_PLAYBACK_CLAMP, NULL, q.pose, NULL, 0));
		RK_CHECK(memcmp(p.pose.translation, q.pose.translation, 2 * sizeof(rk_float3)) == 0);
		RK_CHECK(memcmp(p.pose.rotation, q.pose.rotation, 2 * sizeof(rk_float4)) == 0);
		RK_CHECK(memcmp(p.pose.scale, q.pose.scale, 2 * sizeof(rk_float3)) == 0);
		cur[1] = 0xffffffffu;
	}
	rk_test_pose_free(&p);
	rk_test_pose_free(&q);
}

/* ---------------------------------------------------------------------------
 * Blending
 * ------------------------------------------------------------------------- */

/* Two-joint skeleton: rest T (0,1,0), R identity, S 1. */
typedef struct tiny_skel {
	rk_skeleton sk;
	int32_t parents[2];
	rk_float3 t[2], s[2];
	rk_float4 r[2];
} tiny_skel;

static void tiny_skel_init(tiny_skel *k)
{
	memset(k, 0, sizeof(*k));
	k->parents[0] = -1;
	k->parents[1] = 0;
	for (int j = 0; j < 2; j++) {
		k->t[j] = (rk_float3){ 0, 1, 0 };
		k->r[j] = (rk_float4){ 0, 0, 0, 1 };
		k->s[j] = (rk_float3){ 1, 1, 1 };
	}
	k->sk.joint_count = 2;
	k->sk.parents = k->parents;
	k->sk.rest = (rk_local_pose_view){ 2, k->t, k->r, k->s };
}

typedef struct pose2 {
	rk_float3 t[2], s[2];
	rk_float4 r[2];
} pose2;

static rk_local_pose_view view2(pose2 *p) { return (rk_local_pose_view){ 2, p->t, p->r, p->s }; }
static rk_local_pose out2(pose2 *p) { return (rk_local_pose){ 2, p->t, p->r, p->s }; }

static void pose2_set(pose2 *p, rk_float3 t, rk_float4 r, rk_float3 s)
{
	for (int j = 0; j < 2; j++) {
		p->t[j] = t;
		p->r[j] = r;
		p->s[j] = s;
	}
}

static int blend(const rk_skeleton *sk, rk_blend_layer *layers, size_t n, rk_blend_layer *add, size_t na, float threshold,
	bool slerp, pose2 *out)
{
	rk_blend_job job;
	memset(&job, 0, sizeof(job));
	job.skeleton = sk;
	job.layers = layers;
	job.layer_count = n;
	job.additive_layers = add;
	job.additive_layer_count = na;
	job.rest_threshold = threshold;
	job.slerp = slerp;
	job.output = out2(out);
	return rk_blend_run(&job);
}

RK_TEST(test_blend_weighted_layers)
{
	tiny_skel k;
	tiny_skel_init(&k);
	pose2 a, b, o;
	const float s45 = (float)sin(RK_PI / 4), c45 = (float)cos(RK_PI / 4);
	pose2_set(&a, (rk_float3){ 0, 0, 0 }, (rk_float4){ 0, 0, 0, 1 }, (rk_float3){ 1, 1, 1 });
	pose2_set(&b, (rk_float3){ 4, 8, 0 }, (rk_float4){ 0, 0, s45, c45 }, (rk_float3){ 3, 3, 3 });
	rk_blend_layer L[2];
	memset(L, 0, sizeof(L));
	L[0].pose = view2(&a);
	L[0].weight = 1.0f;
	L[1].pose = view2(&b);
	L[1].weight = 3.0f;
	/* weights normalise to 1/4, 3/4: T = (3, 6, 0), S = 2.5;
	 * nlerp: normalize(0.25 (0,0,0,1) + 0.75 (0,0,s45,c45)) -> angle 2 atan(0.75 s45 / (0.25 + 0.75 c45)) */
	RK_REQUIRE(blend(&k.sk, L, 2, NULL, 0, 0.0f, false, &o));
	RK_CHECK_NEAR(o.t[0].x, 3.0, 1e-6);
	RK_CHECK_NEAR(o.t[1].y, 6.0, 1e-6);
	RK_CHECK_NEAR(o.s[0].z, 2.5, 1e-6);
	double expect = 2.0 * atan(0.75 * sin(RK_PI / 4) / (0.25 + 0.75 * cos(RK_PI / 4)));
	RK_CHECK_NEAR(angle_f(o.r[0], (rk_float4){ 0, 0, 0, 1 }), expect, 1e-6);
	RK_CHECK(o.r[0].z > 0);
	/* slerp: exactly 3/4 of 90 degrees */
	RK_REQUIRE(blend(&k.sk, L, 2, NULL, 0, 0.0f, true, &o));
	RK_CHECK_NEAR(angle_f(o.r[1], (rk_float4){ 0, 0, 0, 1 }), 0.75 * RK_PI / 2, 1e-6);

	/* the other hemisphere: -q is the same rotation, the blend must not flip */
	pose2 bn = b;
	for (int j = 0; j < 2; j++) bn.r[j] = (rk_float4){ -b.r[j].x, -b.r[j].y, -b.r[j].z, -b.r[j].w };
	L[1].pose = view2(&bn);
	RK_REQUIRE(blend(&k.sk, L, 2, NULL, 0, 0.0f, false, &o));
	RK_CHECK_NEAR(angle_f(o.r[0], (rk_float4){ 0, 0, 0, 1 }), expect, 1e-6);
	RK_REQUIRE(blend(&k.sk, L, 2, NULL, 0, 0.0f, true, &o));
	RK_CHECK_NEAR(angle_f(o.r[0], (rk_float4){ 0, 0, 0, 1 }), 0.75 * RK_PI / 2, 1e-6);
	L[1].pose = view2(&b);

	/* per-joint mask: joint 1 takes nothing from b */
	float mask[2] = { 1.0f, 0.0f };
	L[1].joint_weights = mask;
	RK_REQUIRE(blend(&k.sk, L, 2, NULL, 0, 0.0f, false, &o));
	RK_CHECK_NEAR(o.t[0].x, 3.0, 1e-6);
	RK_CHECK_NEAR(o.t[1].x, 0.0, 0);
	RK_CHECK_NEAR(o.s[1].x, 1.0, 0);
	L[1].joint_weights = NULL;

	/* rest pose fallback: no weight at all -> rest exactly */
	L[0].weight = 0.0f;
	L[1].weight = 0.0f;
	RK_REQUIRE(blend(&k.sk, L, 2, NULL, 0, 0.0f, false, &o));
	RK_CHECK_NEAR(o.t[0].y, 1.0, 0);
	RK_CHECK_NEAR(o.r[0].w, 1.0, 0);
	/* threshold 0.5 with total 0.25 of b: rest gets 0.25 -> half/half: T = (2, 4.5, 0) */
	L[1].weight = 0.25f;
	RK_REQUIRE(blend(&k.sk, L, 2, NULL, 0, 0.5f, false, &o));
	RK_CHECK_NEAR(o.t[0].x, 2.0, 1e-6);
	RK_CHECK_NEAR(o.t[0].y, 4.5, 1e-6);
	RK_CHECK_NEAR(angle_f(o.r[0], (rk_float4){ 0, 0, 0, 1 }), RK_PI / 4, 1e-6);
	/* no layers at all: rest */
	RK_REQUIRE(blend(&k.sk, NULL, 0, NULL, 0, 0.0f, false, &o));
	RK_CHECK_NEAR(o.t[1].y, 1.0, 0);

	/* output aliasing an input */
	L[0].weight = 1.0f;
	L[1].weight = 3.0f;
	pose2 alias = b;
	L[1].pose = view2(&alias);
	RK_REQUIRE(blend(&k.sk, L, 2, NULL, 0, 0.0f, false, &alias));
	RK_CHECK_NEAR(alias.t[0].x, 3.0, 1e-6);
	RK_CHECK_NEAR(alias.t[1].y, 6.0, 1e-6);
}

RK_TEST(test_blend_additive)
{
	tiny_skel k;
	tiny_skel_init(&k);
	pose2 base, ref, add, o;
	const float s45 = (float)sin(RK_PI / 4), c45 = (float)cos(RK_PI / 4);
	/* base: T (1,0,0), R 90 deg about Z, S 2 */
	pose2_set(&base, (rk_float3){ 1, 0, 0 }, (rk_float4){ 0, 0, s45, c45 }, (rk_float3){ 2, 2, 2 });
	/* reference: T (0,1,0), R identity, S 1; additive pose: T (0,3,0), R 90 deg about X, S 2 */
	pose2_set(&ref, (rk_float3){ 0, 1, 0 }, (rk_float4){ 0, 0, 0, 1 }, (rk_float3){ 1, 1, 1 });
	pose2_set(&add, (rk_float3){ 0, 3, 0 }, (rk_float4){ s45, 0, 0, c45 }, (rk_float3){ 2, 2, 2 });
	rk_blend_layer L, A;
	memset(&L, 0, sizeof(L));
	memset(&A, 0, sizeof(A));
	L.pose = view2(&base);
	L.weight = 1.0f;
	A.pose = view2(&add);
	A.reference = view2(&ref);
	A.weight = 0.5f;
	/* T = (1,0,0) + 0.5 (0,2,0) = (1,1,0); S = 2 * (1 + 0.5 (2 - 1)) = 3;
	 * R = Rz(90) * Rx(45) (the delta at half weight: nlerp(id, Rx(90), 0.5) = Rx(45)) */
	RK_REQUIRE(blend(&k.sk, &L, 1, &A, 1, 0.0f, false, &o));
	RK_CHECK_NEAR(o.t[0].x, 1.0, 1e-6);
	RK_CHECK_NEAR(o.t[0].y, 1.0, 1e-6);
	RK_CHECK_NEAR(o.s[1].x, 3.0, 1e-6);
	rk_quat expect = rk_quat_mul(rk_quat_axis_angle(rk_vec3_make(0, 0, 1), RK_PI / 2), rk_quat_axis_angle(rk_vec3_make(1, 0, 0), RK_PI / 4));
	RK_CHECK(angle_f(o.r[0], qf(expect)) <= 1e-6);
	/* zeroed reference = the skeleton's rest pose (T (0,1,0), identity, 1): same numbers */
	memset(&A.reference, 0, sizeof(A.reference));
	RK_REQUIRE(blend(&k.sk, &L, 1, &A, 1, 0.0f, true, &o));
	RK_CHECK_NEAR(o.t[1].y, 1.0, 1e-6);
	RK_CHECK(angle_f(o.r[1], qf(expect)) <= 1e-6);
	/* mask 0 on joint 1: base unchanged there */
	float mask[2] = { 1.0f, 0.0f };
	A.joint_weights = mask;
	RK_REQUIRE(blend(&k.sk, &L, 1, &A, 1, 0.0f, false, &o));
	RK_CHECK_NEAR(o.t[1].y, 0.0, 0);
	RK_CHECK_NEAR(o.s[1].x, 2.0, 0);
	RK_CHECK(angle_f(o.r[1], base.r[1]) <= 1e-7);
	RK_CHECK_NEAR(o.s[0].x, 3.0, 1e-6);

	/* morph weights: normalised by the layer weights */
	float mw0[2] = { 0.0f, 1.0f }, mw1[2] = { 1.0f, 1.0f }, mo[2] = { -1, -1 };
	rk_blend_layer M[2];
	memset(M, 0, sizeof(M));
	M[0].pose = view2(&base);
	M[0].weight = 1.0f;
	M[0].morph_weights = mw0;
	M[1].pose = view2(&ref);
	M[1].weight = 3.0f;
	M[1].morph_weights = mw1;
	rk_blend_job job;
	memset(&job, 0, sizeof(job));
	job.skeleton = &k.sk;
	job.layers = M;
	job.layer_count = 2;
	job.output = out2(&o);
	job.morph_weights = mo;
	job.morph_weight_count = 2;
	RK_REQUIRE(rk_blend_run(&job));
	RK_CHECK_NEAR(mo[0], 0.75, 1e-7);
	RK_CHECK_NEAR(mo[1], 1.0, 1e-7);
}

/* ---------------------------------------------------------------------------
 * Crossfade
 * ------------------------------------------------------------------------- */

/* Issue: crossfading idle -> walk never produces a pose farther from both
 * inputs than either is from the other (per joint rotation angles). */
RK_TEST(test_crossfade_idle_walk_stays_between)
{
	rk_scene *s = rk_test_load_asset("Xbot.glb");
	if (!s) RK_SKIP("shared assets not found");
	rk_error err;
	rk_skeleton *sk = rk_skeleton_build(s, NULL, &err);
	RK_REQUIRE(sk);
	const rk_anim_clip *idle = rk_scene_find_clip(s, "idle"), *walk = rk_scene_find_clip(s, "walk");
	RK_REQUIRE(idle && walk);
	rk_runtime_clip *ci = rk_runtime_clip_build(s, idle, sk, NULL, &err);
	rk_runtime_clip *cw = rk_runtime_clip_build(s, walk, sk, NULL, &err);
	RK_REQUIRE(ci && cw);
	rk_test_pose a, b, o;
	RK_REQUIRE(rk_test_pose_init(&a, sk->joint_count) && rk_test_pose_init(&b, sk->joint_count) && rk_test_pose_init(&o, sk->joint_count));
	uint32_t *cur_a = (uint32_t *)calloc(rk_sample_context_size(ci), sizeof(uint32_t));
	uint32_t *cur_b = (uint32_t *)calloc(rk_sample_context_size(cw), sizeof(uint32_t));
	rk_sample_context xa, xb;
	rk_sample_context_init(&xa, cur_a, rk_sample_context_size(ci));
	rk_sample_context_init(&xb, cur_b, rk_sample_context_size(cw));
	for (int mode = 0; mode < 2; mode++) {
		rk_crossfade cf;
		rk_crossfade_start(&cf, 1.3, 0.0, 0.5);
		int steps = 0, violations = 0;
		double worst = 0.0;
		float prev_w = -1.0f;
		for (int f = 0; f <= 45; f++) {
			if (f) rk_crossfade_advance(&cf, 1.0 / 60.0);
			RK_REQUIRE(sample(ci, cf.from_time, RK_PLAYBACK_LOOP, &xa, a.pose, NULL, 0));
			RK_REQUIRE(sample(cw, cf.to_time, RK_PLAYBACK_LOOP, &xb, b.pose, NULL, 0));
			rk_blend_layer L[2];
			rk_crossfade_layers(&cf, rk_local_pose_view_of(a.pose), rk_local_pose_view_of(b.pose), L);
			RK_CHECK(L[0].weight + L[1].weight == 1.0f);
			RK_CHECK(L[1].weight >= prev_w);
			prev_w = L[1].weight;
			rk_blend_job job;
			memset(&job, 0, sizeof(job));
			job.skeleton = sk;
			job.layers = L;
			job.layer_count = 2;
			job.slerp = mode == 1;
			job.output = o.pose;
			RK_REQUIRE(rk_blend_run(&job));
			for (size_t j = 0; j < sk->joint_count; j++) {
				double ab = angle_f(a.pose.rotation[j], b.pose.rotation[j]);
				double oa = angle_f(o.pose.rotation[j], a.pose.rotation[j]);
				double ob = angle_f(o.pose.rotation[j], b.pose.rotation[j]);
				double excess = (oa > ob ? oa : ob) - ab;
				if (excess > worst) worst = excess;
				if (excess > 2e-6) violations++;
				double tab = distf3(a.pose.translation[j], b.pose.translation[j]);
				double toa = distf3(o.pose.translation[j], a.pose.translation[j]);
				double tob = distf3(o.pose.translation[j], b.pose.translation[j]);
				if (toa > tab * (1 + 1e-5) + 1e-5 || tob > tab * (1 + 1e-5) + 1e-5) violations++;
			}
			steps++;
		}
		RK_CHECK_INT(violations, 0);
		RK_CHECK(rk_crossfade_done(&cf));
		RK_CHECK_NEAR(rk_crossfade_weight(&cf), 1.0, 0);
		fprintf(stderr, "  crossfade idle->walk (%s): %d steps, worst excess %.2e rad\n", mode ? "slerp" : "nlerp", steps, worst);
	}
	free(cur_a);
	free(cur_b);
	rk_test_pose_free(&a);
	rk_test_pose_free(&b);
	rk_test_pose_free(&o);
	rk_runtime_clip_free(ci);
	rk_runtime_clip_free(cw);
	rk_skeleton_free(sk);
	rk_scene_free(s);
}

/* The weight and clocks depend on elapsed seconds only, never on frame splits. */
RK_TEST(test_crossfade_frame_rate_independent)
{
	/* binary fractions: the sums are exact, results identical bit for bit */
	const double steps_a[] = { 1.0 / 64 }, steps_b[] = { 1.0 / 32 }, steps_c[] = { 1.0 / 128, 3.0 / 128, 1.0 / 16 };
	const double *seqs[3] = { steps_a, steps_b, steps_c };
	const size_t lens[3] = { 1, 1, 3 };
	rk_crossfade res[3];
	for (int q = 0; q < 3; q++) {
		rk_crossfade cf;
		rk_crossfade_start(&cf, 0.5, 0.0, 0.75);
		double total = 0.0;
		size_t i = 0;
		while (total < 0.5) {
			double dt = seqs[q][i++ % lens[q]];
			rk_crossfade_advance(&cf, dt);
			total += dt;
		}
		RK_CHECK_NEAR(total, 0.5, 0);
		res[q] = cf;
	}
	for (int q = 1; q < 3; q++) {
		RK_CHECK(rk_crossfade_weight(&res[q]) == rk_crossfade_weight(&res[0]));
		RK_CHECK(res[q].from_time == res[0].from_time && res[q].to_time == res[0].to_time);
	}
	/* smoothstep(0.5 / 0.75 = 2/3) = 4/9 * (3 - 4/3) = 20/27 */
	RK_CHECK_NEAR(rk_crossfade_weight(&res[0]), 20.0 / 27.0, 1e-7);
	RK_CHECK_NEAR(res[0].from_time, 1.0, 0);

	/* 30, 60, 144 fps and uneven frames: equal up to double rounding of the sums */
	const double fps[3] = { 30, 60, 144 };
	for (int q = 0; q < 3; q++) {
		rk_crossfade cf;
		rk_crossfade_start(&cf, 0.0, 2.0, 1.0);
		int frames = (int)fps[q] / 2; /* half a second */
		for (int f = 0; f < frames; f++) rk_crossfade_advance(&cf, 1.0 / fps[q]);
		RK_CHECK_NEAR(rk_crossfade_weight(&cf), 0.5, 1e-7); /* smoothstep(1/2) */
		RK_CHECK_NEAR(cf.to_time, 2.5, 1e-12);
	}
	rk_crossfade cf;
	rk_crossfade_start(&cf, 0.0, 0.0, 1.0);
	const double uneven[] = { 0.001, 0.1, 0.033, 0.016, 0.25, 0.0, -1.0, 0.1 }; /* negative: ignored */
	double sum = 0.0;
	for (size_t i = 0; i < sizeof(uneven) / sizeof(uneven[0]); i++) {
		rk_crossfade_advance(&cf, uneven[i]);
		if (uneven[i] > 0) sum += uneven[i];
		double x = sum;
		RK_CHECK_NEAR(rk_crossfade_weight(&cf), x * x * (3 - 2 * x), 1e-7);
	}
	rk_crossfade_advance(&cf, NAN);
	RK_CHECK_NEAR(cf.elapsed, sum, 1e-15);
	/* duration 0: instant */
	rk_crossfade_start(&cf, 0.0, 0.0, 0.0);
	RK_CHECK_NEAR(rk_crossfade_weight(&cf), 1.0, 0);
	RK_CHECK(rk_crossfade_done(&cf));
}

/* ---------------------------------------------------------------------------
 * Root motion
 * ------------------------------------------------------------------------- */

/* Three joints: root (0), hips (1, rest (0,1,0)), spine (2, rest (0,0.5,0)).
 * Hips translation keys at t = 0, .25, .5, .75, 1: z = t (1 m/s forward),
 * y = 1, 1.05, 1, 1.05, 1 (bobbing), x = 0. Hips rotation: yaw about Y by
 * yaw_deg * t (keys at 0, .5, 1), optionally. Root rest rotation root_rot. */
typedef struct walk_rig {
	rk_skeleton sk;
	int32_t parents[3];
	rk_float3 rt[3], rs[3];
	rk_float4 rr[3];
	rk_runtime_clip c;
	rk_runtime_track tt[3], rtk[3], st[3];
	float times[16];
	rk_float3 tv[8], sv[3];
	rk_float4 rv[6];
} walk_rig;

static void walk_rig_init(walk_rig *w, double yaw_deg, rk_float4 root_rot, double x0)
{
	memset(w, 0, sizeof(*w));
	w->parents[0] = -1; w->parents[1] = 0; w->parents[2] = 1;
	w->rt[0] = (rk_float3){ 0, 0, 0 }; w->rt[1] = (rk_float3){ 0, 1, 0 }; w->rt[2] = (rk_float3){ 0, 0.5f, 0 };
	for (int j = 0; j < 3; j++) {
		w->rr[j] = (rk_float4){ 0, 0, 0, 1 };
		w->rs[j] = (rk_float3){ 1, 1, 1 };
	}
	w->rr[0] = root_rot;
	w->sk.joint_count = 3;
	w->sk.parents = w->parents;
	w->sk.rest = (rk_local_pose_view){ 3, w->rt, w->rr, w->rs };
	float *t = w->times;
	/* constant tracks for root and spine (times 0..3) */
	w->tt[0] = (rk_runtime_track){ 0, 1, 0, RK_KEY_STEP }; w->tv[0] = w->rt[0]; t[0] = 0;
	w->tt[2] = (rk_runtime_track){ 1, 1, 1, RK_KEY_STEP }; w->tv[1] = w->rt[2]; t[1] = 0;
	w->rtk[0] = (rk_runtime_track){ 2, 1, 0, RK_KEY_STEP }; w->rv[0] = root_rot; t[2] = 0;
	w->rtk[2] = (rk_runtime_track){ 3, 1, 1, RK_KEY_STEP }; w->rv[1] = (rk_float4){ 0, 0, 0, 1 }; t[3] = 0;
	for (int j = 0; j < 3; j++) {
		w->st[j] = (rk_runtime_track){ 4, 1, 0, RK_KEY_STEP };
	}
	t[4] = 0;
	w->sv[0] = (rk_float3){ 1, 1, 1 };
	/* hips translation: keys 5..9 */
	w->tt[1] = (rk_runtime_track){ 5, 5, 2, RK_KEY_LINEAR };
	const float ys[5] = { 1, 1.05f, 1, 1.05f, 1 };
	for (int k = 0; k < 5; k++) {
		t[5 + k] = 0.25f * (float)k;
		w->tv[2 + k] = (rk_float3){ (float)x0, ys[k], 0.25f * (float)k };
	}
	/* hips rotation: keys 10..12 */
	w->rtk[1] = (rk_runtime_track){ 10, 3, 2, RK_KEY_LINEAR };
	for (int k = 0; k < 3; k++) {
		t[10 + k] = 0.5f * (float)k;
		w->rv[2 + k] = qf(rk_quat_axis_angle(rk_vec3_make(0, 1, 0), yaw_deg * RK_PI / 180.0 * 0.5 * k));
	}
	w->c.duration = 1.0;
	w->c.joint_count = 3;
	w->c.translation_tracks = w->tt;
	w->c.rotation_tracks = w->rtk;
	w->c.scale_tracks = w->st;
	w->c.time_count = 13;
	w->c.times = w->times;
	w->c.translation_values = w->tv;
	w->c.translation_value_count = 7;
	w->c.rotation_values = w->rv;
	w->c.rotation_value_count = 5;
	w->c.scale_values = w->sv;
	w->c.scale_value_count = 1;
}

static int root_motion(walk_rig *w, rk_root_motion_mode mode, double time, rk_playback pb, rk_float3 up,
	rk_local_pose pose, rk_float3 *motion_translation)
{
	rk_root_motion_job job;
	memset(&job, 0, sizeof(job));
	job.skeleton = &w->sk;
	job.clip = &w->c;
	job.mode = mode;
	job.hips = 1;
	job.root = 0;
	job.up = up;
	job.time = time;
	job.playback = pb;
	job.pose = pose;
	job.motion_translation = motion_translation;
	return rk_root_motion_run(&job);
}

RK_TEST(test_root_motion_modes)
{
	walk_rig w;
	walk_rig_init(&w, 0.0, (rk_float4){ 0, 0, 0, 1 }, 0.0);
	rk_error err;
	RK_REQUIRE(rk_runtime_clip_validate(&w.c, &err));
	rk_test_pose p, keep;
	RK_REQUIRE(rk_test_pose_init(&p, 3) && rk_test_pose_init(&keep, 3));
	const rk_float3 up0 = { 0, 0, 0 };

	/* t = 0.6: u = 0.4 in [0.5, 0.75]: z = 0.6, y = 1 + 0.05 * 0.4 = 1.02 */
	RK_REQUIRE(sample(&w.c, 0.6, RK_PLAYBACK_LOOP, NULL, keep.pose, NULL, 0));
	RK_REQUIRE(root_motion(&w, RK_ROOT_MOTION_KEEP, 0.6, RK_PLAYBACK_LOOP, up0, keep.pose, NULL));
	RK_CHECK_NEAR(keep.pose.translation[1].z, 0.6, 1e-6);
	RK_CHECK_NEAR(keep.pose.translation[1].y, 1.02, 1e-6);

	/* in place: the forward motion is gone, the bobbing stays */
	RK_REQUIRE(sample(&w.c, 0.6, RK_PLAYBACK_LOOP, NULL, p.pose, NULL, 0));
	RK_REQUIRE(root_motion(&w, RK_ROOT_MOTION_IN_PLACE, 0.6, RK_PLAYBACK_LOOP, up0, p.pose, NULL));
	RK_CHECK_NEAR(p.pose.translation[1].z, 0.0, 1e-7);
	RK_CHECK_NEAR(p.pose.translation[1].x, 0.0, 1e-7);
	RK_CHECK_NEAR(p.pose.translation[1].y, 1.02, 1e-6);
	/* in place y: everything locked at the clip start (seed 004's fix) */
	for (double t = 0.0; t < 2.0; t += 0.05) {
		RK_REQUIRE(sample(&w.c, t, RK_PLAYBACK_LOOP, NULL, p.pose, NULL, 0));
		RK_REQUIRE(root_motion(&w, RK_ROOT_MOTION_IN_PLACE_Y, t, RK_PLAYBACK_LOOP, up0, p.pose, NULL));
		RK_CHECK_NEAR(p.pose.translation[1].y, 1.0, 0);
		RK_CHECK_NEAR(p.pose.translation[1].z, 0.0, 0);
	}

	/* extract: hips in place, root carries the forward motion, model space unchanged */
	rk_float3 motion;
	RK_REQUIRE(sample(&w.c, 0.6, RK_PLAYBACK_LOOP, NULL, p.pose, NULL, 0));
	RK_REQUIRE(root_motion(&w, RK_ROOT_MOTION_EXTRACT, 0.6, RK_PLAYBACK_LOOP, up0, p.pose, &motion));
	RK_CHECK_NEAR(p.pose.translation[1].z, 0.0, 1e-6);
	RK_CHECK_NEAR(p.pose.translation[1].y, 1.02, 1e-6);
	RK_CHECK_NEAR(p.pose.translation[0].z, 0.6, 1e-6);
	RK_CHECK_NEAR(p.pose.translation[0].y, 0.0, 1e-7);
	RK_CHECK_NEAR(motion.z, 0.6, 1e-6);
	RK_REQUIRE(to_model(&w.sk, p.pose, NULL, p.model) && to_model(&w.sk, keep.pose, NULL, keep.model));
	for (int j = 1; j < 3; j++)
		for (int e = 0; e < 16; e++) RK_CHECK_NEAR(p.model[j].m[e], keep.model[j].m[e], 1e-6);

	/* looping: 2 loops + 0.6 -> the root has walked 2.6 m; backwards too */
	RK_REQUIRE(sample(&w.c, 2.6, RK_PLAYBACK_LOOP, NULL, p.pose, NULL, 0));
	RK_REQUIRE(root_motion(&w, RK_ROOT_MOTION_EXTRACT, 2.6, RK_PLAYBACK_LOOP, up0, p.pose, NULL));
	RK_CHECK_NEAR(p.pose.translation[0].z, 2.6, 1e-5);
	RK_CHECK_NEAR(p.pose.translation[1].z, 0.0, 1e-6);
	RK_CHECK_NEAR(p.pose.translation[1].y, 1.02, 1e-5);
	RK_REQUIRE(sample(&w.c, -0.4, RK_PLAYBACK_LOOP, NULL, p.pose, NULL, 0));
	RK_REQUIRE(root_motion(&w, RK_ROOT_MOTION_EXTRACT, -0.4, RK_PLAYBACK_LOOP, up0, p.pose, NULL));
	RK_CHECK_NEAR(p.pose.translation[0].z, -0.4, 1e-6);
	/* continuous over the loop seam: t = 1 - eps and 1 + eps */
	RK_REQUIRE(sample(&w.c, 0.999, RK_PLAYBACK_LOOP, NULL, p.pose, NULL, 0));
	RK_REQUIRE(root_motion(&w, RK_ROOT_MOTION_EXTRACT, 0.999, RK_PLAYBACK_LOOP, up0, p.pose, NULL));
	double before = p.pose.translation[0].z;
	RK_REQUIRE(sample(&w.c, 1.001, RK_PLAYBACK_LOOP, NULL, p.pose, NULL, 0));
	RK_REQUIRE(root_motion(&w, RK_ROOT_MOTION_EXTRACT, 1.001, RK_PLAYBACK_LOOP, up0, p.pose, NULL));
	RK_CHECK_NEAR(p.pose.translation[0].z - before, 0.002, 1e-5);
	/* clamp: no accumulation */
	RK_REQUIRE(sample(&w.c, 2.6, RK_PLAYBACK_CLAMP, NULL, p.pose, NULL, 0));
	RK_REQUIRE(root_motion(&w, RK_ROOT_MOTION_EXTRACT, 2.6, RK_PLAYBACK_CLAMP, up0, p.pose, NULL));
	RK_CHECK_NEAR(p.pose.translation[0].z, 1.0, 1e-6);
	rk_test_pose_free(&p);
	rk_test_pose_free(&keep);
}

/* Z-up armature (root rotated -90 deg about X, like Soldier.glb's "Character"):
 * model up +Y is local +Z below the root, so in-place keeps local z motion. */
RK_TEST(test_root_motion_up_axis)
{
	walk_rig w;
	rk_float4 rx = qf(rk_quat_axis_angle(rk_vec3_make(1, 0, 0), -RK_PI / 2));
	walk_rig_init(&w, 0.0, rx, 0.0);
	/* the clip moves along local z, which is model up here, and bobs along local y (model -z) */
	rk_test_pose p;
	RK_REQUIRE(rk_test_pose_init(&p, 3));
	RK_REQUIRE(sample(&w.c, 0.6, RK_PLAYBACK_LOOP, NULL, p.pose, NULL, 0));
	RK_REQUIRE(root_motion(&w, RK_ROOT_MOTION_IN_PLACE, 0.6, RK_PLAYBACK_LOOP, (rk_float3){ 0, 1, 0 }, p.pose, NULL));
	RK_CHECK_NEAR(p.pose.translation[1].z, 0.6, 1e-6); /* vertical in model space: kept */
	RK_CHECK_NEAR(p.pose.translation[1].y, 1.0, 1e-6); /* horizontal: locked at its start value */
	/* with up = +Z in model space, local y is vertical (model up maps to local -y... it is rotated back) */
	RK_REQUIRE(sample(&w.c, 0.6, RK_PLAYBACK_LOOP, NULL, p.pose, NULL, 0));
	RK_REQUIRE(root_motion(&w, RK_ROOT_MOTION_IN_PLACE, 0.6, RK_PLAYBACK_LOOP, (rk_float3){ 0, 0, 2 }, p.pose, NULL));
	RK_CHECK_NEAR(p.pose.translation[1].z, 0.0, 1e-6);
	RK_CHECK_NEAR(p.pose.translation[1].y, 1.02, 1e-6);
	rk_test_pose_free(&p);
}

/* A turning walk: the yaw goes to the root and keeps accumulating per loop. */
RK_TEST(test_root_motion_yaw_extract)
{
	walk_rig w;
	walk_rig_init(&w, 90.0, (rk_float4){ 0, 0, 0, 1 }, 0.2);
	rk_test_pose p, keep;
	RK_REQUIRE(rk_test_pose_init(&p, 3) && rk_test_pose_init(&keep, 3));
	const rk_float3 up0 = { 0, 0, 0 };
	for (double t = 0.0; t < 1.0; t += 0.1) {
		RK_REQUIRE(sample(&w.c, t, RK_PLAYBACK_LOOP, NULL, keep.pose, NULL, 0));
		RK_REQUIRE(sample(&w.c, t, RK_PLAYBACK_LOOP, NULL, p.pose, NULL, 0));
		RK_REQUIRE(root_motion(&w, RK_ROOT_MOTION_EXTRACT, t, RK_PLAYBACK_LOOP, up0, p.pose, NULL));
		/* hips: horizontal position back at the start value (0.2, *, 0), yaw removed */
		RK_CHECK_NEAR(p.pose.translation[1].x, 0.2, 1e-6);
		RK_CHECK_NEAR(p.pose.translation[1].z, 0.0, 1e-6);
		RK_CHECK(angle_f(p.pose.rotation[1], (rk_float4){ 0, 0, 0, 1 }) <= 1e-6);
		/* root: the yaw so far (90 deg per second) */
		RK_CHECK_NEAR(angle_f(p.pose.rotation[0], (rk_float4){ 0, 0, 0, 1 }), t * RK_PI / 2, 1e-5);
		/* model space of hips and spine unchanged */
		RK_REQUIRE(to_model(&w.sk, p.pose, NULL, p.model) && to_model(&w.sk, keep.pose, NULL, keep.model));
		for (int j = 1; j < 3; j++)
			for (int e = 0; e < 16; e++) RK_CHECK_NEAR(p.model[j].m[e], keep.model[j].m[e], 2e-6);
	}
	/* 1.5 s: one full loop (90 deg) + half a loop (45 deg) = 135 deg about +Y */
	RK_REQUIRE(sample(&w.c, 1.5, RK_PLAYBACK_LOOP, NULL, p.pose, NULL, 0));
	RK_REQUIRE(root_motion(&w, RK_ROOT_MOTION_EXTRACT, 1.5, RK_PLAYBACK_LOOP, up0, p.pose, NULL));
	rk_quat expect = rk_quat_axis_angle(rk_vec3_make(0, 1, 0), 0.75 * RK_PI);
	RK_CHECK(angle_f(p.pose.rotation[0], qf(expect)) <= 1e-5);
	/* four loops: a full turn, and the hips come back where they started:
	 * F_end^4 = identity for a 90 degree loop */
	RK_REQUIRE(sample(&w.c, 4.0, RK_PLAYBACK_LOOP, NULL, p.pose, NULL, 0));
	RK_REQUIRE(root_motion(&w, RK_ROOT_MOTION_EXTRACT, 4.0, RK_PLAYBACK_LOOP, up0, p.pose, NULL));
	RK_CHECK(angle_f(p.pose.rotation[0], (rk_float4){ 0, 0, 0, 1 }) <= 1e-5);
	RK_CHECK(distf3(p.pose.translation[0], (rk_float3){ 0, 0, 0 }) <= 1e-5);
	rk_test_pose_free(&p);
	rk_test_pose_free(&keep);
}

/* ---------------------------------------------------------------------------
 * Memory
 * ------------------------------------------------------------------------- */

typedef struct counting {
	size_t live, total, fail_at; /* fail_at: fail the n-th allocation (1-based), 0 = never */
} counting;

static void *count_alloc(void *user, size_t size)
{
	counting *c = (counting *)user;
	c->total++;
	if (c->fail_at && c->total == c->fail_at) return NULL;
	void *p = malloc(size);
	if (p) c->live++;
	return p;
}

static void count_free(void *user, void *ptr, size_t size)
{
	(void)size;
	counting *c = (counting *)user;
	if (ptr) c->live--;
	free(ptr);
}

/* Builds are one allocation each (temporaries freed before returning);
 * every failed allocation fails cleanly; the per-frame jobs never allocate
 * (they take no allocator, and their sources call no allocation function). */
RK_TEST(test_allocations)
{
	rk_scene *s = rk_test_load_asset("ybot@kick.fbx");
	if (!s) RK_SKIP("shared assets not found");
	counting c = { 0, 0, 0 };
	rk_allocator a = { count_alloc, count_free, &c };
	rk_skeleton_opts so;
	memset(&so, 0, sizeof(so));
	so.allocator = a;
	rk_error err;
	rk_skeleton *sk = rk_skeleton_build(s, &so, &err);
	RK_REQUIRE(sk);
	RK_CHECK_INT(c.live, 1);
	size_t skel_allocs = c.total;
	rk_runtime_clip_opts co;
	memset(&co, 0, sizeof(co));
	co.allocator = a;
	rk_runtime_clip *rc = rk_runtime_clip_build(s, &s->clips.data[0], sk, &co, &err);
	RK_REQUIRE(rc);
	RK_CHECK_INT(c.live, 2);

	/* failure injection: every allocation of a skeleton build */
	for (size_t k = 1; k <= skel_allocs; k++) {
		counting f = { 0, 0, k };
		rk_skeleton_opts fo = so;
		fo.allocator.user = &f;
		rk_skeleton *x = rk_skeleton_build(s, &fo, &err);
		RK_CHECK(x == NULL);
		RK_CHECK(err.code == RK_ERROR_OUT_OF_MEMORY);
		RK_CHECK_INT(f.live, 0);
	}
	/* ... and of clip builds taking every path (exact, resampled CUBIC and
	 * LINEAR, morph weights) on short clips */
	static const char *sweep_files[] = { "Xbot.glb", "Horse.glb" };
	for (size_t fi = 0; fi < 2; fi++) {
		rk_scene *fs = rk_test_load_asset(sweep_files[fi]);
		RK_REQUIRE(fs);
		rk_skeleton *fsk = rk_skeleton_build(fs, NULL, &err);
		RK_REQUIRE(fsk);
		const rk_anim_clip *fclip = fi == 0 ? rk_scene_find_clip(fs, "sad_pose") : &fs->clips.data[0];
		RK_REQUIRE(fclip);
		for (int variant = 0; variant < 3; variant++) {
			counting f0 = { 0, 0, 0 };
			rk_runtime_clip_opts fo;
			memset(&fo, 0, sizeof(fo));
			fo.allocator = (rk_allocator){ count_alloc, count_free, &f0 };
			fo.resample_all = variant > 0;
			fo.linear_keys = variant == 2;
			rk_runtime_clip *ok = rk_runtime_clip_build(fs, fclip, fsk, &fo, &err);
			RK_REQUIRE(ok);
			RK_CHECK_INT(f0.live, 1);
			rk_runtime_clip_free(ok);
			RK_CHECK_INT(f0.live, 0);
			size_t total = f0.total;
			for (size_t k = 1; k <= total; k++) {
				counting f = { 0, 0, k };
				fo.allocator.user = &f;
				rk_runtime_clip *x = rk_runtime_clip_build(fs, fclip, fsk, &fo, &err);
				RK_CHECK(x == NULL);
				RK_CHECK(err.code == RK_ERROR_OUT_OF_MEMORY);
				RK_CHECK_INT(f.live, 0);
			}
		}
		rk_skeleton_free(fsk);
		rk_scene_free(fs);
	}

	/* frames: sample, root motion, blend, local-to-model; the counter stays put */
	rk_test_pose p, q, o;
	RK_REQUIRE(rk_test_pose_init(&p, sk->joint_count) && rk_test_pose_init(&q, sk->joint_count) && rk_test_pose_init(&o, sk->joint_count));
	uint32_t *cur = (uint32_t *)calloc(rk_sample_context_size(rc), sizeof(uint32_t));
	rk_sample_context ctx;
	rk_sample_context_init(&ctx, cur, rk_sample_context_size(rc));
	size_t before = c.total;
	int hips = rk_skeleton_find_joint(sk, "mixamorig:Hips");
	RK_REQUIRE(hips > 0);
	for (int f = 0; f < 200; f++) {
		double t = f / 60.0;
		RK_REQUIRE(sample(rc, t, RK_PLAYBACK_LOOP, &ctx, p.pose, NULL, 0));
		RK_REQUIRE(sample(rc, t * 0.5, RK_PLAYBACK_LOOP, NULL, q.pose, NULL, 0));
		rk_root_motion_job rm;
		memset(&rm, 0, sizeof(rm));
		rm.skeleton = sk;
		rm.clip = rc;
		rm.mode = RK_ROOT_MOTION_EXTRACT;
		rm.hips = hips;
		rm.root = 0;
		rm.time = t;
		rm.playback = RK_PLAYBACK_LOOP;
		rm.pose = p.pose;
		RK_REQUIRE(rk_root_motion_run(&rm));
		rk_blend_layer L[2];
		memset(L, 0, sizeof(L));
		L[0].pose = rk_local_pose_view_of(p.pose);
		L[0].weight = 0.3f;
		L[1].pose = rk_local_pose_view_of(q.pose);
		L[1].weight = 0.7f;
		rk_blend_job bj;
		memset(&bj, 0, sizeof(bj));
		bj.skeleton = sk;
		bj.layers = L;
		bj.layer_count = 2;
		bj.output = o.pose;
		RK_REQUIRE(rk_blend_run(&bj));
		RK_REQUIRE(to_model(sk, o.pose, NULL, o.model));
	}
	RK_CHECK_INT(c.total, before);
	RK_CHECK_INT(c.live, 2);

	/* by construction: the per-frame sources never call an allocator */
	static const char *job_sources[] = { "runtime/runtime_sample.c", "runtime/runtime_blend.c", "runtime/runtime_model.c",
		"runtime/runtime_motion.c", "runtime/runtime_ik.c", "core/ik.c" };
	static const char *forbidden[] = { "malloc", "calloc", "realloc", "free(", "alloca(", "rki_arena", "rki_buf" };
	for (size_t i = 0; i < sizeof(job_sources) / sizeof(job_sources[0]); i++) {
		char path[4096];
		snprintf(path, sizeof(path), "%s/src/%s", RK_SOURCE_DIR, job_sources[i]);
		FILE *fp = fopen(path, "rb");
		RK_REQUIRE(fp);
		static char text[1 << 17];
		size_t len = fread(text, 1, sizeof(text) - 1, fp);
		fclose(fp);
		text[len] = 0;
		for (size_t k = 0; k < sizeof(forbidden) / sizeof(forbidden[0]); k++) {
			if (strstr(text, forbidden[k])) fprintf(stderr, "  %s mentions %s\n", job_sources[i], forbidden[k]);
			RK_CHECK(strstr(text, forbidden[k]) == NULL);
		}
	}
	free(cur);
	rk_test_pose_free(&p);
	rk_test_pose_free(&q);
	rk_test_pose_free(&o);
	rk_runtime_clip_free(rc);
	rk_skeleton_free(sk);
	RK_CHECK_INT(c.live, 0);
	rk_scene_free(s);
}

/* ---------------------------------------------------------------------------
 * Bad inputs
 * ------------------------------------------------------------------------- */

RK_TEST(test_bad_inputs_rejected)
{
	hand_clip h;
	hand_clip_init(&h);
	tiny_skel k;
	tiny_skel_init(&k);
	rk_test_pose p;
	RK_REQUIRE(rk_test_pose_init(&p, 2));
	rk_error err;

	/* sampling */
	rk_sample_job sj;
	memset(&sj, 0, sizeof(sj));
	RK_CHECK(!rk_sample_validate(NULL, &err) && err.code == RK_ERROR_INVALID_ARGUMENT);
	RK_CHECK(!rk_sample_validate(&sj, &err));          /* no clip */
	sj.clip = &h.c;
	RK_CHECK(!rk_sample_validate(&sj, &err));          /* no output */
	sj.output = p.pose;
	RK_CHECK(rk_sample_validate(&sj, &err));
	sj.output.joint_count = 3;
	RK_CHECK(!rk_sample_validate(&sj, &err));
	sj.output = p.pose;
	sj.output.rotation = NULL;
	RK_CHECK(!rk_sample_validate(&sj, &err));
	RK_CHECK(!rk_sample_run(&sj));
	sj.output = p.pose;
	sj.time = NAN;
	RK_CHECK(!rk_sample_validate(&sj, &err));
	sj.time = INFINITY;
	RK_CHECK(!rk_sample_validate(&sj, &err));
	sj.time = 0.5;
	sj.playback = (rk_playback)7;
	RK_CHECK(!rk_sample_validate(&sj, &err));
	sj.playback = RK_PLAYBACK_LOOP;
	uint32_t cur[6];
	rk_sample_context ctx;
	rk_sample_context_init(&ctx, cur, 5);
	sj.context = &ctx;
	RK_CHECK(!rk_sample_validate(&sj, &err));          /* context too small */
	rk_sample_context_init(&ctx, cur, 6);
	RK_CHECK(rk_sample_validate(&sj, &err));
	float w[1];
	sj.morph_weights = w;
	sj.morph_weight_count = 1;
	RK_CHECK(rk_sample_validate(&sj, &err));           /* clip has no morph weights */
	sj.morph_weights = NULL;
	h.tt[0].key_begin = 10;                            /* keys beyond times[] */
	RK_CHECK(!rk_sample_validate(&sj, &err));
	h.tt[0].key_begin = 0;
	h.rt[0].key_count = 0;
	RK_CHECK(!rk_sample_validate(&sj, &err));
	h.rt[0].key_count = 2;
	h.st[0].interp = 9;
	RK_CHECK(!rk_sample_validate(&sj, &err));
	h.st[0].interp = RK_KEY_STEP;
	h.tt[1].value_begin = 4;                           /* CUBIC: 6 values from 4 > 9 */
	RK_CHECK(!rk_sample_validate(&sj, &err));
	h.tt[1].value_begin = 3;
	h.c.duration = -1.0;
	RK_CHECK(!rk_sample_validate(&sj, &err));
	h.c.duration = 2.0;
	h.c.times = NULL;
	RK_CHECK(!rk_sample_validate(&sj, &err));
	h.c.times = h.times;
	RK_CHECK(rk_sample_validate(&sj, &err));
	/* full validation also checks the time order */
	RK_CHECK(rk_runtime_clip_validate(&h.c, &err));
	h.times[1] = 5.0f;
	RK_CHECK(!rk_runtime_clip_validate(&h.c, &err));
	RK_CHECK(rk_sample_run(&sj));                      /* wrong values, but in bounds */
	h.times[1] = 1.0f;

	/* blending */
	pose2 a, o;
	pose2_set(&a, (rk_float3){ 0, 0, 0 }, (rk_float4){ 0, 0, 0, 1 }, (rk_float3){ 1, 1, 1 });
	rk_blend_layer L;
	memset(&L, 0, sizeof(L));
	L.pose = view2(&a);
	L.weight = 1.0f;
	rk_blend_job bj;
	memset(&bj, 0, sizeof(bj));
	RK_CHECK(!rk_blend_validate(NULL, &err));
	RK_CHECK(!rk_blend_validate(&bj, &err));           /* no skeleton */
	bj.skeleton = &k.sk;
	RK_CHECK(!rk_blend_validate(&bj, &err));           /* no output */
	bj.output = out2(&o);
	RK_CHECK(rk_blend_validate(&bj, &err));
	bj.layer_count = 1;
	RK_CHECK(!rk_blend_validate(&bj, &err));           /* count without array */
	bj.layers = &L;
	RK_CHECK(rk_blend_validate(&bj, &err));
	L.pose.joint_count = 3;
	RK_CHECK(!rk_blend_validate(&bj, &err));
	L.pose.joint_count = 2;
	L.pose.scale = NULL;
	RK_CHECK(!rk_blend_validate(&bj, &err));
	L.pose = view2(&a);
	L.weight = NAN;
	RK_CHECK(!rk_blend_validate(&bj, &err));
	L.weight = 1.0f;
	bj.additive_layers = &L;
	bj.additive_layer_count = 1;
	L.reference.joint_count = 2;                       /* incomplete reference */
	RK_CHECK(!rk_blend_validate(&bj, &err));
	memset(&L.reference, 0, sizeof(L.reference));
	RK_CHECK(rk_blend_validate(&bj, &err));
	bj.rest_threshold = INFINITY;
	RK_CHECK(!rk_blend_validate(&bj, &err));
	bj.rest_threshold = 0.0f;
	bj.morph_weight_count = 3;
	RK_CHECK(!rk_blend_validate(&bj, &err));
	bj.morph_weight_count = 0;
	k.sk.rest.rotation = NULL;
	RK_CHECK(!rk_blend_validate(&bj, &err));
	RK_CHECK(!rk_blend_run(&bj));
	tiny_skel_init(&k);

	/* local to model */
	rk_float4x4 model[2];
	rk_local_to_model_job mj;
	memset(&mj, 0, sizeof(mj));
	RK_CHECK(!rk_local_to_model_validate(NULL, &err));
	RK_CHECK(!rk_local_to_model_validate(&mj, &err));
	mj.skeleton = &k.sk;
	mj.input = view2(&a);
	RK_CHECK(!rk_local_to_model_validate(&mj, &err)); /* no model output */
	mj.model = model;
	RK_CHECK(rk_local_to_model_validate(&mj, &err));
	k.parents[1] = 1;                                  /* parent order violations */
	RK_CHECK(!rk_local_to_model_validate(&mj, &err));
	k.parents[1] = 5;
	RK_CHECK(!rk_local_to_model_validate(&mj, &err));
	k.parents[1] = -2;
	RK_CHECK(!rk_local_to_model_validate(&mj, &err));
	RK_CHECK(!rk_local_to_model_run(&mj));
	k.parents[1] = 0;
	mj.input.joint_count = 1;
	RK_CHECK(!rk_local_to_model_validate(&mj, &err));
	mj.input = view2(&a);
	mj.input.translation = NULL;
	RK_CHECK(!rk_local_to_model_validate(&mj, &err));
	mj.input = view2(&a);
	uint32_t sj_idx[1] = { 2 };
	rk_float4x4 ibm[1], pal[1];
	mj.skinning = pal;
	mj.skin_joint_count = 1;
	RK_CHECK(!rk_local_to_model_validate(&mj, &err)); /* no skin_joints / inverse_bind */
	mj.skin_joints = sj_idx;
	mj.inverse_bind = ibm;
	RK_CHECK(!rk_local_to_model_validate(&mj, &err)); /* joint 2 of 2 */
	sj_idx[0] = 1;
	RK_CHECK(rk_local_to_model_validate(&mj, &err));

	/* root motion */
	walk_rig wr;
	walk_rig_init(&wr, 0.0, (rk_float4){ 0, 0, 0, 1 }, 0.0);
	rk_test_pose wp;
	RK_REQUIRE(rk_test_pose_init(&wp, 3));
	rk_root_motion_job rm;
	memset(&rm, 0, sizeof(rm));
	RK_CHECK(!rk_root_motion_validate(NULL, &err));
	RK_CHECK(!rk_root_motion_validate(&rm, &err));
	rm.skeleton = &wr.sk;
	rm.clip = &wr.c;
	rm.pose = wp.pose;
	rm.hips = 1;
	rm.mode = RK_ROOT_MOTION_EXTRACT;
	RK_CHECK(rk_root_motion_validate(&rm, &err));
	rm.hips = 3;
	RK_CHECK(!rk_root_motion_validate(&rm, &err));
	rm.hips = 1;
	rm.root = 2;                                       /* not an ancestor */
	RK_CHECK(!rk_root_motion_validate(&rm, &err));
	rm.root = 1;                                       /* not a strict ancestor */
	RK_CHECK(!rk_root_motion_validate(&rm, &err));
	rm.mode = RK_ROOT_MOTION_IN_PLACE;                 /* root only matters for EXTRACT */
	RK_CHECK(rk_root_motion_validate(&rm, &err));
	rm.mode = (rk_root_motion_mode)9;
	RK_CHECK(!rk_root_motion_validate(&rm, &err));
	rm.mode = RK_ROOT_MOTION_IN_PLACE;
	rm.up.x = NAN;
	RK_CHECK(!rk_root_motion_validate(&rm, &err));
	rm.up.x = 0;
	rm.clip = &h.c;                                    /* 2 joints vs 3 */
	RK_CHECK(!rk_root_motion_validate(&rm, &err));
	rm.clip = &wr.c;
	rm.pose.joint_count = 2;
	RK_CHECK(!rk_root_motion_validate(&rm, &err));
	RK_CHECK(!rk_root_motion_run(&rm));
	rk_test_pose_free(&wp);

	/* builders */
	RK_CHECK(rk_skeleton_build(NULL, NULL, &err) == NULL && err.code == RK_ERROR_INVALID_ARGUMENT);
	RK_CHECK(rk_runtime_clip_build(NULL, NULL, NULL, NULL, &err) == NULL && err.code == RK_ERROR_INVALID_ARGUMENT);
	rk_scene *s = rk_test_load_asset("Horse.glb");
	rk_scene *s2 = rk_test_load_asset("Flamingo.glb");
	if (s && s2) {
		rk_skeleton_opts so;
		memset(&so, 0, sizeof(so));
		so.root = s2->root;                            /* a node of another scene */
		RK_CHECK(rk_skeleton_build(s, &so, &err) == NULL && err.code == RK_ERROR_INVALID_ARGUMENT);
		rk_skeleton *sk = rk_skeleton_build(s, NULL, &err);
		RK_REQUIRE(sk);
		RK_CHECK(rk_runtime_clip_build(s, &s2->clips.data[0], sk, NULL, &err) == NULL); /* foreign clip */
		RK_CHECK(rk_runtime_clip_build(s, &s->clips.data[0], &k.sk, NULL, &err) == NULL); /* hand-made skeleton */
		uint32_t jm[1];
		RK_CHECK(!rk_skeleton_skin_binding(sk, s, NULL, s->root, jm, NULL, &err));
		rk_skeleton_free(sk);
	}
	rk_scene_free(s);
	rk_scene_free(s2);
	rk_skeleton_free(NULL);
	rk_runtime_clip_free(NULL);
	rk_test_pose_free(&p);
}

/* ---------------------------------------------------------------------------
 * Two-bone IK job. A leg of two unit bones hangs straight down from the
 * origin: start (0,0,0), mid (0,-1,0), end (0,-2,0), model rotations
 * identity unless said. With a = b = 1 and a target at distance d along u,
 * the mid joint lands at x u + sqrt(1 - x^2) v with x = d / 2 (law of
 * cosines), v the bend side. For the target (0,-sqrt2,0): x = y = sqrt2/2,
 * the knee at (0,-sqrt2/2,sqrt2/2) for the pole +Z; the thigh turns -45
 * degrees about X, the shin (in the thigh's frame) +90 degrees about X.
 * ------------------------------------------------------------------------- */

static rk_two_bone_ik_job ik_leg(rk_quat *cs, rk_quat *cm, bool *reached, double *miss)
{
	rk_two_bone_ik_job j;
	memset(&j, 0, sizeof(j));
	j.start_position = (rk_vec3){ 0, 0, 0 };
	j.mid_position = (rk_vec3){ 0, -1, 0 };
	j.end_position = (rk_vec3){ 0, -2, 0 };
	j.start_rotation = j.mid_rotation = RK_QUAT_IDENTITY;
	j.pole = (rk_vec3){ 0, 0, 1 };
	j.weight = 1.0;
	j.start_correction = cs;
	j.mid_correction = cm;
	j.reached = reached;
	j.miss = miss;
	return j;
}

/* Where the mid and end joints go when the corrections are applied to the
 * local rotations: the start's model rotation becomes Qs * cs (a model-space
 * turn S = Qs cs Qs^-1 of everything below it), the mid's S Qm cm. */
static void ik_apply(const rk_two_bone_ik_job *j, rk_quat cs, rk_quat cm, rk_vec3 *mid, rk_vec3 *end)
{
	rk_quat qs = j->start_rotation, qm = j->mid_rotation;
	rk_quat S = rk_quat_mul(qs, rk_quat_mul(cs, rk_quat_conjugate(qs)));
	rk_quat Mq = rk_quat_mul(S, rk_quat_mul(qm, rk_quat_mul(cm, rk_quat_conjugate(qm))));
	*mid = rk_vec3_add(j->start_position, rk_quat_rotate(S, rk_vec3_sub(j->mid_position, j->start_position)));
	*end = rk_vec3_add(*mid, rk_quat_rotate(Mq, rk_vec3_sub(j->end_position, j->mid_position)));
}

#define CHECK_V3(v, X, Y, Z, tol) do { RK_CHECK_NEAR((v).x, X, tol); RK_CHECK_NEAR((v).y, Y, tol); RK_CHECK_NEAR((v).z, Z, tol); } while (0)
/* q equals the rotation of `deg` degrees about unit axis (x, y, z), either sign */
static bool ik_quat_is(rk_quat q, rk_vec3 axis, double deg)
{
	rk_quat e = rk_quat_axis_angle(axis, deg * RK_PI / 180.0);
	return fabs(fabs(rk_quat_dot(q, e)) - 1.0) < 1e-12;
}

RK_TEST(test_two_bone_ik_reaches)
{
	const double h = sqrt(0.5);
	rk_quat cs, cm;
	bool reached = false;
	double miss = -1;
	rk_vec3 mid, end;
	for (int hinge = 0; hinge < 2; hinge++) {
		rk_two_bone_ik_job j = ik_leg(&cs, &cm, &reached, &miss);
		j.target = (rk_vec3){ 0, -2 * h, 0 };
		if (hinge) j.mid_axis = (rk_vec3){ -1, 0, 0 };   /* (-Y) x (+Z): opening turn, knee to +Z */
		RK_REQUIRE(rk_two_bone_ik_run(&j));
		RK_CHECK(reached);
		RK_CHECK(miss == 0.0);
		RK_CHECK(ik_quat_is(cs, (rk_vec3){ 1, 0, 0 }, -45.0));
		RK_CHECK(ik_quat_is(cm, (rk_vec3){ 1, 0, 0 }, 90.0));
		ik_apply(&j, cs, cm, &mid, &end);
		CHECK_V3(mid, 0, -h, h, 1e-12);
		CHECK_V3(end, 0, -2 * h, 0, 1e-12);
	}
	/* any chain, rotated joints (local != model), unequal bones, a general
	 * target: the end lands on the target, the mid keeps both bone lengths */
	for (int hinge = 0; hinge < 2; hinge++) {
		rk_two_bone_ik_job j = ik_leg(&cs, &cm, &reached, NULL);
		j.start_position = (rk_vec3){ 0.2, 1.0, -0.1 };
		j.mid_position = (rk_vec3){ 0.25, 0.55, 0.0 };
		j.end_position = (rk_vec3){ 0.22, 0.1, -0.05 };
		j.start_rotation = rk_quat_normalize((rk_quat){ 0.1, 0.7, -0.2, 0.6 });
		j.mid_rotation = rk_quat_normalize((rk_quat){ -0.3, 0.2, 0.5, 0.8 });
		j.target = (rk_vec3){ 0.5, 0.4, 0.3 };
		j.pole = (rk_vec3){ 0, 0, 1 };
		if (hinge) {   /* the chain's own hinge: cross(upper, lower) in the mid's local space */
			rk_vec3 n = rk_vec3_cross(rk_vec3_sub(j.mid_position, j.start_position), rk_vec3_sub(j.end_position, j.mid_position));
			j.mid_axis = rk_quat_rotate(rk_quat_conjugate(j.mid_rotation), n);
		}
		RK_REQUIRE(rk_two_bone_ik_run(&j));
		RK_CHECK(reached);
		ik_apply(&j, cs, cm, &mid, &end);
		CHECK_V3(end, 0.5, 0.4, 0.3, 1e-5);
		RK_CHECK_NEAR(rk_vec3_length(rk_vec3_sub(mid, j.start_position)),
			rk_vec3_length(rk_vec3_sub(j.mid_position, j.start_position)), 1e-12);
		RK_CHECK(rk_vec3_dot(rk_vec3_sub(mid, j.start_position), j.pole) > 0.0);   /* knee on the pole side */
	}
}

RK_TEST(test_two_bone_ik_unreachable)
{
	rk_quat cs, cm;
	bool reached = true;
	double miss = 0;
	rk_vec3 mid, end;
	for (int hinge = 0; hinge < 2; hinge++) {
		rk_two_bone_ik_job j = ik_leg(&cs, &cm, &reached, &miss);
		j.target = (rk_vec3){ 3, 0, 0 };        /* 3 away, the chain is 2 long */
		if (hinge) j.mid_axis = (rk_vec3){ -1, 0, 0 };
		RK_REQUIRE(rk_two_bone_ik_run(&j));
		RK_CHECK(!reached);
		RK_CHECK_NEAR(miss, 1.0, 1e-12);
		ik_apply(&j, cs, cm, &mid, &end);       /* straight along +X */
		CHECK_V3(mid, 1, 0, 0, 1e-6);
		CHECK_V3(end, 2, 0, 0, 1e-12);
		/* reach_margin keeps the knee bent: the reach is 2 (1 - 1e-4) */
		j.reach_margin = 1e-4;
		RK_REQUIRE(rk_two_bone_ik_run(&j));
		ik_apply(&j, cs, cm, &mid, &end);
		CHECK_V3(end, 2 * (1 - 1e-4), 0, 0, 1e-12);
		RK_CHECK_NEAR(mid.z, sqrt(1 - (1 - 1e-4) * (1 - 1e-4)), 1e-12);   /* towards the pole */
		RK_CHECK_NEAR(miss, 1 + 2e-4, 1e-12);
	}
}

RK_TEST(test_two_bone_ik_pole_decides_the_side)
{
	const double h = sqrt(0.5);
	rk_quat cs, cm;
	bool reached;
	rk_vec3 mid, end;
	static const rk_vec3 poles[4] = { { 0, 0, 1 }, { 0, 0, -1 }, { 1, 0, 0 }, { -0.5, 7.0, 0 } };
	/* the pole's part perpendicular to u = -Y is the bend side: +Z, -Z, +X, -X */
	static const rk_vec3 knees[4] = { { 0, -1, 1 }, { 0, -1, -1 }, { 1, -1, 0 }, { -1, -1, 0 } };
	for (int hinge = 0; hinge < 2; hinge++)
		for (int p = 0; p < 4; p++) {
			rk_two_bone_ik_job j = ik_leg(&cs, &cm, &reached, NULL);
			j.target = (rk_vec3){ 0, -2 * h, 0 };
			j.pole = poles[p];
			if (hinge) j.mid_axis = (rk_vec3){ -1, 0, 0 };
			RK_REQUIRE(rk_two_bone_ik_run(&j));
			RK_CHECK(reached);
			ik_apply(&j, cs, cm, &mid, &end);
			CHECK_V3(mid, h * knees[p].x, h * knees[p].y, h * knees[p].z, 1e-12);
			CHECK_V3(end, 0, -2 * h, 0, 1e-12);
		}
}

RK_TEST(test_two_bone_ik_weight)
{
	const double h = sqrt(0.5);
	rk_quat cs, cm;
	bool reached = true;
	rk_vec3 mid, end;
	rk_two_bone_ik_job j = ik_leg(&cs, &cm, &reached, NULL);
	j.target = (rk_vec3){ 0, -2 * h, 0 };
	j.weight = 0.0;
	RK_REQUIRE(rk_two_bone_ik_run(&j));
	RK_CHECK(cs.x == 0 && cs.y == 0 && cs.z == 0 && cs.w == 1);
	RK_CHECK(cm.x == 0 && cm.y == 0 && cm.z == 0 && cm.w == 1);
	RK_CHECK(!reached);
	/* halfway: half of each angle (-22.5 and +45 degrees about X) */
	j.weight = 0.5;
	RK_REQUIRE(rk_two_bone_ik_run(&j));
	RK_CHECK(ik_quat_is(cs, (rk_vec3){ 1, 0, 0 }, -22.5));
	RK_CHECK(ik_quat_is(cm, (rk_vec3){ 1, 0, 0 }, 45.0));
	RK_CHECK(!reached);                          /* weight < 1 never reaches */
	ik_apply(&j, cs, cm, &mid, &end);
	/* a turn of t about X takes (0,-1,0) to (0, -cos t, -sin t): the thigh
	 * turns -22.5 degrees, the shin -22.5 + 45 = +22.5 */
	const double c1 = cos(RK_PI / 8), s1 = sin(RK_PI / 8);
	CHECK_V3(mid, 0, -c1, s1, 1e-12);
	CHECK_V3(end, 0, -2 * c1, 0, 1e-12);
}

RK_TEST(test_two_bone_ik_soften)
{
	rk_quat cs, cm;
	bool reached;
	double miss;
	rk_vec3 mid, end;
	/* soften 0.8, chain 2: r0 = 1.6; past it r = 1.6 + 0.4 (1 - exp(-(d - 1.6) / 0.4)) */
	static const double d[5] = { 1.5, 1.6, 1.7, 2.0, 3.0 };
	double prev = 0.0;
	for (int k = 0; k < 5; k++) {
		rk_two_bone_ik_job j = ik_leg(&cs, &cm, &reached, &miss);
		j.soften = 0.8;
		j.target = (rk_vec3){ 0, -d[k], 0 };
		RK_REQUIRE(rk_two_bone_ik_run(&j));
		ik_apply(&j, cs, cm, &mid, &end);
		double r = d[k] <= 1.6 ? d[k] : 1.6 + 0.4 * (1.0 - exp(-(d[k] - 1.6) / 0.4));
		CHECK_V3(end, 0, -r, 0, 1e-12);
		RK_CHECK(reached == (d[k] <= 1.6));
		RK_CHECK_NEAR(miss, d[k] - r, 1e-12);
		RK_CHECK(r > prev && r < 2.0);           /* grows with d, never full extension */
		RK_CHECK(mid.z > 1e-3);                  /* the knee never snaps straight */
		prev = r;
	}
	RK_CHECK_NEAR(prev, 1.6 + 0.4 * (1.0 - exp(-3.5)), 1e-12);   /* d = 3: 1.98792 */
	/* soften 1 (like 0) is off: full extension reached exactly */
	rk_two_bone_ik_job j = ik_leg(&cs, &cm, &reached, &miss);
	j.soften = 1.0;
	j.target = (rk_vec3){ 0, -2, 0.0 };
	j.end_position = (rk_vec3){ 0.5, -1 - sqrt(0.75), 0 };   /* bent start pose, lower bone 1 */
	RK_REQUIRE(rk_two_bone_ik_run(&j));
	RK_CHECK(reached && miss == 0.0);
}

RK_TEST(test_two_bone_ik_twist)
{
	const double h = sqrt(0.5);
	rk_quat cs, cm;
	bool reached;
	rk_vec3 mid, end;
	for (int hinge = 0; hinge < 2; hinge++) {
		rk_two_bone_ik_job j = ik_leg(&cs, &cm, &reached, NULL);
		j.target = (rk_vec3){ 0, -2 * h, 0 };
		if (hinge) j.mid_axis = (rk_vec3){ -1, 0, 0 };
		/* +90 degrees about u = -Y turns the bend side +Z into u x Z = -X */
		j.twist = RK_PI / 2;
		RK_REQUIRE(rk_two_bone_ik_run(&j));
		RK_CHECK(reached);
		ik_apply(&j, cs, cm, &mid, &end);
		CHECK_V3(mid, -h, -h, 0, 1e-12);
		CHECK_V3(end, 0, -2 * h, 0, 1e-12);
		/* 180 degrees: -Z */
		j.twist = RK_PI;
		RK_REQUIRE(rk_two_bone_ik_run(&j));
		ik_apply(&j, cs, cm, &mid, &end);
		CHECK_V3(mid, 0, -h, -h, 1e-12);
	}
}

RK_TEST(test_two_bone_ik_bad_inputs_rejected)
{
	rk_quat cs = { 9, 9, 9, 9 }, cm = { 9, 9, 9, 9 };
	rk_error err;
	RK_CHECK(!rk_two_bone_ik_validate(NULL, &err) && err.code == RK_ERROR_INVALID_ARGUMENT);
	RK_CHECK(!rk_two_bone_ik_run(NULL));
	rk_two_bone_ik_job good = ik_leg(&cs, &cm, NULL, NULL);
	good.target = (rk_vec3){ 0, -1.5, 0 };
	RK_CHECK(rk_two_bone_ik_validate(&good, &err));
	rk_two_bone_ik_job j;
#define IK_BAD(change) do { j = good; change; RK_CHECK(!rk_two_bone_ik_validate(&j, &err)); \
	RK_CHECK(err.code == RK_ERROR_INVALID_ARGUMENT); RK_CHECK(!rk_two_bone_ik_run(&j)); } while (0)
	IK_BAD(j.start_correction = NULL);
	IK_BAD(j.mid_correction = NULL);
	IK_BAD(j.target.y = NAN);
	IK_BAD(j.pole.x = INFINITY);
	IK_BAD(j.mid_axis.z = NAN);
	IK_BAD(j.start_position.x = NAN);
	IK_BAD(j.mid_rotation.w = NAN);
	IK_BAD(j.start_rotation = ((rk_quat){ 0, 0, 0, 2 }));
	IK_BAD(j.mid_position = j.start_position);           /* zero-length upper bone */
	IK_BAD(j.end_position = j.mid_position);             /* zero-length lower bone */
	IK_BAD(j.weight = -0.01);
	IK_BAD(j.weight = 1.01);
	IK_BAD(j.weight = NAN);
	IK_BAD(j.soften = 1.5);
	IK_BAD(j.twist = INFINITY);
	IK_BAD(j.reach_margin = 0.5);
#undef IK_BAD
	RK_CHECK(cs.x == 9 && cm.x == 9);                    /* nothing written */
}

RK_TEST_MAIN(
	RK_TEST_ENTRY(test_local_pose_memory),
	RK_TEST_ENTRY(test_skeleton_build_xbot),
	RK_TEST_ENTRY(test_gltf_clips_match_reference),
	RK_TEST_ENTRY(test_fbx_kick_within_tolerance),
	RK_TEST_ENTRY(test_resampled_gltf_within_tolerance),
	RK_TEST_ENTRY(test_static_local_to_model),
	RK_TEST_ENTRY(test_subtree_root_transform),
	RK_TEST_ENTRY(test_sample_hand_clip),
	RK_TEST_ENTRY(test_blend_weighted_layers),
	RK_TEST_ENTRY(test_blend_additive),
	RK_TEST_ENTRY(test_crossfade_idle_walk_stays_between),
	RK_TEST_ENTRY(test_crossfade_frame_rate_independent),
	RK_TEST_ENTRY(test_root_motion_modes),
	RK_TEST_ENTRY(test_root_motion_up_axis),
	RK_TEST_ENTRY(test_root_motion_yaw_extract),
	RK_TEST_ENTRY(test_allocations),
	RK_TEST_ENTRY(test_bad_inputs_rejected),
	RK_TEST_ENTRY(test_two_bone_ik_reaches),
	RK_TEST_ENTRY(test_two_bone_ik_unreachable),
	RK_TEST_ENTRY(test_two_bone_ik_pole_decides_the_side),
	RK_TEST_ENTRY(test_two_bone_ik_weight),
	RK_TEST_ENTRY(test_two_bone_ik_soften),
	RK_TEST_ENTRY(test_two_bone_ik_twist),
	RK_TEST_ENTRY(test_two_bone_ik_bad_inputs_rejected))
