/*
 * tests/test_rest.c - rest poses from the bind pose (rigkit/rest.h) and what
 * retargeting, comparison and the character frame make of them.
 *
 * Fixtures (tests/fixtures/make_bind_pose.py, committed): humanoid_bind.glb,
 * a 21-joint humanoid stored in its bind pose (every rest rotation the
 * identity, so the rest worlds are the sums of the translations the script
 * lists), and humanoid_crouch.glb, the same skins with the node transforms
 * stored crouched (legs folded by up to 110 degrees, hips 0.35 m lower).
 * Expectations are written from the script's numbers: the hips 1.0 m above
 * the origin, the lowest foot joint (the toes) at 0.02 m, so a hips height of
 * 0.98 m in the bind pose; and from the bind fixture itself: the crouched
 * file taken in its bind rest must behave exactly like the bind file, node
 * for node, when a clip is retargeted onto it (with --root lock and foot IK
 * too). The clip is the built-in Mixamo-style walk.
 */
#include "rigkit/rigkit.h"
#include "rk_test.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FIXTURE_DIR RK_SOURCE_DIR "/tests/fixtures/"

static rk_scene *load(const char *name)
{
	rk_error err;
	char path[512];
	snprintf(path, sizeof(path), FIXTURE_DIR "%s", name);
	rk_scene *s = rk_load_file(path, NULL, &err);
	if (!s) fprintf(stderr, "%s: %s\n", path, err.message);
	return s;
}

static rk_mat4 *rest_world(const rk_scene *s, rk_rest_mode mode, rk_rest_report *rep)
{
	rk_mat4 *w = (rk_mat4 *)malloc(s->nodes.count * sizeof(rk_mat4));
	rk_rest_opts o;
	memset(&o, 0, sizeof(o));
	o.mode = mode;
	rk_error err;
	if (!w || !rk_rest_pose_eval(s, &o, w, NULL, rep, &err)) {
		free(w);
		return NULL;
	}
	return w;
}

/* Largest distance between same-named nodes' positions in two world tables. */
static double worst_position(const rk_scene *a, const rk_mat4 *wa, const rk_scene *b, const rk_mat4 *wb, size_t *pairs)
{
	double worst = 0.0;
	*pairs = 0;
	for (size_t i = 1; i < a->nodes.count; i++) {
		const rk_node *nb = rk_scene_find_node(b, a->nodes.data[i].name);
		if (!nb) continue;
		double d = rk_vec3_length(rk_vec3_sub(rk_mat4_get_translation(wa[i]), rk_mat4_get_translation(wb[nb->index])));
		if (d > worst) worst = d;
		(*pairs)++;
	}
	return worst;
}

RK_TEST(bind_pose_of_a_crouched_file_is_the_bind_files_pose)
{
	rk_scene *bind = load("humanoid_bind.glb"), *crouch = load("humanoid_crouch.glb");
	RK_REQUIRE(bind && crouch);
	rk_rest_report rb, rc, rs, rbb;
	rk_mat4 *wb = rest_world(bind, RK_REST_AUTO, &rb);
	rk_mat4 *wc = rest_world(crouch, RK_REST_AUTO, &rc);
	rk_mat4 *ws = rest_world(crouch, RK_REST_STORED, &rs);
	rk_mat4 *wbb = rest_world(bind, RK_REST_BIND, &rbb);
	RK_REQUIRE(wb && wc && ws && wbb);

	/* the bind file agrees with its skins: auto keeps it as stored */
	RK_CHECK_INT(rb.used, RK_REST_STORED);
	RK_CHECK_INT(rb.joints_bound, 21);
	RK_CHECK_INT(rb.skin_conflicts, 0);
	RK_CHECK(rb.max_angle < 1e-6);
	RK_CHECK(rb.max_distance < 1e-6);
	RK_CHECK_NEAR(rb.extent, 0.0, 10.0);
	for (size_t i = 0; i < bind->nodes.count; i++)
		RK_CHECK(rk_mat4_max_diff(wb[i], bind->nodes.data[i].node_to_world) == 0.0);
	/* forced bind on it: the same pose up to float inverse bind matrices */
	RK_CHECK_INT(rbb.used, RK_REST_BIND);
	size_t pairs;
	RK_CHECK(worst_position(bind, wbb, bind, wb, &pairs) < 1e-6);

	/* the crouched file: auto takes the bind pose, which is the bind file's */
	RK_CHECK_INT(rc.used, RK_REST_BIND);
	RK_CHECK_INT(rc.joints_bound, 21);
	RK_CHECK_NEAR(rc.max_angle * 180.0 / 3.14159265358979323846, 110.0, 1e-4);
	RK_CHECK(rc.worst_node && strcmp(rc.worst_node->name, "LeftLeg") == 0);
	RK_CHECK(rc.nodes_changed >= 17);        /* 16 turned joints + the lowered hips */
	double d = worst_position(crouch, wc, bind, wb, &pairs);
	printf("crouched file, bind rest vs the bind file: %zu nodes, worst %.3g m\n", pairs, d);
	RK_CHECK_INT(pairs, 21 + 3 + 2 + 1);    /* joints, end joints, mesh nodes, Armature */
	RK_CHECK(d < 1e-6);
	/* the end joints in no skin follow their parents' bind pose */
	const rk_node *top = rk_scene_find_node(crouch, "HeadTop_End");
	RK_REQUIRE(top);
	rk_vec3 p = rk_mat4_get_translation(wc[top->index]);
	RK_CHECK_NEAR(p.y, 1.0 + 0.1 + 0.15 + 0.25 + 0.1 + 0.18, 1e-6);
	RK_CHECK_NEAR(p.x, 0.0, 1e-6);
	/* stored: the crouch as stored, with the same report */
	RK_CHECK_INT(rs.used, RK_REST_STORED);
	RK_CHECK_NEAR(rs.max_angle, rc.max_angle, 1e-12);
	for (size_t i = 0; i < crouch->nodes.count; i++)
		RK_CHECK(rk_mat4_max_diff(ws[i], crouch->nodes.data[i].node_to_world) == 0.0);
	RK_CHECK(worst_position(crouch, ws, bind, wb, &pairs) > 0.3);

	/* local matrices compose to the worlds */
	rk_mat4 *lc = (rk_mat4 *)malloc(crouch->nodes.count * sizeof(rk_mat4));
	RK_REQUIRE(lc);
	rk_error err;
	RK_REQUIRE(rk_rest_pose_eval(crouch, NULL, NULL, lc, NULL, &err));
	for (size_t i = 1; i < crouch->nodes.count; i++) {
		const rk_node *n = &crouch->nodes.data[i];
		rk_mat4 w = rk_mat4_mul(wc[n->parent->index], lc[i]);
		RK_CHECK(rk_mat4_max_diff(w, wc[i]) < 1e-9);
	}
	free(lc);
	free(wb);
	free(wc);
	free(ws);
	free(wbb);
	rk_scene_free(bind);
	rk_scene_free(crouch);
}

RK_TEST(hips_height_and_character_frame)
{
	rk_scene *bind = load("humanoid_bind.glb"), *crouch = load("humanoid_crouch.glb");
	RK_REQUIRE(bind && crouch);
	rk_character_frame fb, fc, fs;
	rk_error err;
	RK_REQUIRE(rk_character_frame_eval(bind, NULL, RK_REST_AUTO, &fb, &err));
	RK_REQUIRE(rk_character_frame_eval(crouch, NULL, RK_REST_AUTO, &fc, &err));
	RK_REQUIRE(rk_character_frame_eval(crouch, NULL, RK_REST_STORED, &fs, &err));
	RK_CHECK_NEAR(fb.hips_height, 0.98, 1e-6);   /* hips at 1.0, toes at 0.02 */
	RK_CHECK_NEAR(fc.hips_height, 0.98, 1e-6);
	RK_CHECK_INT(fc.rest.used, RK_REST_BIND);
	RK_CHECK(fs.hips_height < 0.7);                /* the stored crouch measured: the bug */
	printf("hips height: bind file %.6g, crouched file %.6g (bind rest), %.6g (stored)\n", fb.hips_height,
		fc.hips_height, fs.hips_height);
	/* +X left, +Y up, +Z forward: the fixture's left leg is at +x, the toes at +z */
	RK_CHECK_NEAR(fc.left.x, 1.0, 1e-9);
	RK_CHECK_NEAR(fc.up.y, 1.0, 1e-9);
	RK_CHECK_NEAR(fc.forward.z, 1.0, 1e-9);
	RK_CHECK_NEAR(fc.origin.y, 0.02, 1e-6);
	rk_scene_free(bind);
	rk_scene_free(crouch);
}

/* Every node's world position over the frames of `clip` on two targets. */
static double worst_played(const rk_scene *a, const rk_anim_clip *ca, const rk_scene *b, const rk_anim_clip *cb,
	int samples)
{
	size_t ba = rk_pose_memory_size(a), bb = rk_pose_memory_size(b);
	void *ma = malloc(ba), *mb = malloc(bb);
	rk_pose pa, pb;
	if (!ma || !mb || !rk_pose_init(&pa, a, ma, ba) || !rk_pose_init(&pb, b, mb, bb)) {
		free(ma);
		free(mb);
		return INFINITY;
	}
	double worst = 0.0;
	for (int k = 0; k < samples; k++) {
		double t = ca->time_begin + (ca->time_end - ca->time_begin) * k / (samples - 1);
		rk_pose_eval_job ja = { .scene = a, .clip = ca, .time = t, .pose = &pa };
		rk_pose_eval_job jb = { .scene = b, .clip = cb, .time = t, .pose = &pb };
		if (!rk_pose_eval_run(&ja) || !rk_pose_eval_run(&jb)) {
			worst = INFINITY;
			break;
		}
		size_t pairs;
		double d = worst_position(a, pa.node_to_world, b, pb.node_to_world, &pairs);
		if (d > worst) worst = d;
	}
	free(ma);
	free(mb);
	return worst;
}

/* Units and axes: loaded in centimetres and Z-up, by either conversion
 * mode, the crouched file's bind pose is still the bind file's (converted
 * the same way) and its hips height 98 cm. */
RK_TEST(bind_pose_under_load_conversions)
{
	static const rk_space_conversion modes[] = { RK_CONVERT_ADJUST_TRANSFORMS, RK_CONVERT_MODIFY_GEOMETRY };
	for (size_t m = 0; m < 2; m++) {
		for (int z_up = 0; z_up < 2; z_up++) {
			rk_load_opts lo;
			memset(&lo, 0, sizeof(lo));
			lo.target_unit_meters = 0.01;
			lo.space_conversion = modes[m];
			if (z_up) lo.target_axes = RK_AXES_RIGHT_HANDED_Z_UP;
			rk_error err;
			rk_scene *bind = rk_load_file(FIXTURE_DIR "humanoid_bind.glb", &lo, &err);
			rk_scene *crouch = rk_load_file(FIXTURE_DIR "humanoid_crouch.glb", &lo, &err);
			RK_REQUIRE(bind && crouch);
			rk_rest_report rb, rc;
			rk_mat4 *wb = rest_world(bind, RK_REST_AUTO, &rb), *wc = rest_world(crouch, RK_REST_AUTO, &rc);
			RK_REQUIRE(wb && wc);
			RK_CHECK_INT(rb.used, RK_REST_STORED);
			RK_CHECK_INT(rc.used, RK_REST_BIND);
			size_t pairs;
			double d = worst_position(crouch, wc, bind, wb, &pairs);
			RK_CHECK(d < 1e-4);   /* centimetres */
			rk_character_frame f;
			RK_REQUIRE(rk_character_frame_eval(crouch, NULL, RK_REST_AUTO, &f, &err));
			RK_CHECK_NEAR(f.hips_height, 98.0, 1e-4);
			if (z_up) RK_CHECK_NEAR(f.up.z, 1.0, 1e-9);
			printf("conversion %s%s: bind rest within %.3g cm of the bind file, hips %.6g cm\n",
				m ? "modify-geometry" : "adjust-transforms", z_up ? " z-up" : "", d, f.hips_height);
			free(wb);
			free(wc);
			rk_scene_free(bind);
			rk_scene_free(crouch);
		}
	}
}

RK_TEST(retargets_onto_the_crouched_file_like_onto_the_bind_file)
{
	rk_error err;
	rk_scene *src = rk_demo_scene(RK_DEMO_MIXAMO_SOURCE, NULL, &err);
	RK_REQUIRE(src);
	const rk_anim_clip *walk = rk_scene_find_clip(src, "Walk");
	RK_REQUIRE(walk);
	static const struct { rk_retarget_root root; bool foot_ik; const char *what; } modes[] = {
		{ RK_RETARGET_ROOT_KEEP, false, "root keep" },
		{ RK_RETARGET_ROOT_LOCK, false, "root lock" },
		{ RK_RETARGET_ROOT_KEEP, true, "foot IK" },
		{ RK_RETARGET_ROOT_IN_PLACE, true, "in place + foot IK" },
	};
	for (size_t m = 0; m < sizeof(modes) / sizeof(modes[0]); m++) {
		rk_scene *bind = load("humanoid_bind.glb"), *crouch = load("humanoid_crouch.glb");
		RK_REQUIRE(bind && crouch);
		rk_retarget_opts o;
		memset(&o, 0, sizeof(o));
		o.root = modes[m].root;
		o.foot_ik = modes[m].foot_ik;
		rk_retarget_report rb, rc;
		rk_anim_clip *cb = rk_retarget(bind, src, walk, &o, &rb, &err);
		RK_REQUIRE(cb);
		rk_anim_clip *cc = rk_retarget(crouch, src, walk, &o, &rc, &err);
		RK_REQUIRE(cc);
		RK_CHECK_INT(rb.target_rest, RK_REST_STORED);
		RK_CHECK_INT(rc.target_rest, RK_REST_BIND);
		RK_CHECK_INT(rb.rest_tracks, 0);
		RK_CHECK(rc.rest_tracks > 0);
		RK_CHECK_INT(rc.mapped_bones, rb.mapped_bones);
		RK_CHECK_NEAR(rc.target_hips_height, rb.target_hips_height, 1e-6);
		RK_CHECK_NEAR(rc.target_hips_height, 0.98, 1e-6);
		RK_CHECK_NEAR(rc.max_direction_error, rb.max_direction_error, 1e-6);
		RK_CHECK_NEAR(rc.max_foot_miss, rb.max_foot_miss, 1e-6);
		double d = worst_played(bind, cb, crouch, cc, 41);
		printf("%s: every node of the crouched file within %.3g m of the bind file's (41 samples)\n", modes[m].what,
			d);
		RK_CHECK(d < 1e-6);

		/* the stored crouch as rest (the old behaviour) plays differently */
		rk_scene *crouch2 = load("humanoid_crouch.glb");
		RK_REQUIRE(crouch2);
		o.rest = RK_REST_STORED;
		rk_retarget_report rs;
		rk_anim_clip *cs = rk_retarget(crouch2, src, walk, &o, &rs, &err);
		RK_REQUIRE(cs);
		RK_CHECK_INT(rs.target_rest, RK_REST_STORED);
		RK_CHECK(rs.target_hips_height < 0.7);
		RK_CHECK(worst_played(bind, cb, crouch2, cs, 11) > 0.01);
		rk_scene_free(crouch2);
		rk_scene_free(bind);
		rk_scene_free(crouch);
	}
	rk_scene_free(src);
}

RK_TEST(crouched_file_as_retarget_source)
{
	/* the bind file's own retargeted walk, played back as a source through
	 * the crouched skeleton, retargets like the bind file does: the source
	 * rest comes from the bind pose too */
	rk_error err;
	rk_scene *src = rk_demo_scene(RK_DEMO_MIXAMO_SOURCE, NULL, &err);
	rk_scene *bind = load("humanoid_bind.glb"), *crouch = load("humanoid_crouch.glb");
	rk_scene *dst1 = rk_demo_scene(RK_DEMO_AVATAR, NULL, &err), *dst2 = rk_demo_scene(RK_DEMO_AVATAR, NULL, &err);
	RK_REQUIRE(src && bind && crouch && dst1 && dst2);
	const rk_anim_clip *walk = rk_scene_find_clip(src, "Walk");
	RK_REQUIRE(walk);
	rk_anim_clip *cb = rk_retarget(bind, src, walk, NULL, NULL, &err);
	RK_REQUIRE(cb);
	rk_anim_clip *cc = rk_retarget(crouch, src, walk, NULL, NULL, &err);
	RK_REQUIRE(cc);
	rk_retarget_report r1, r2;
	rk_anim_clip *o1 = rk_retarget(dst1, bind, cb, NULL, &r1, &err);
	RK_REQUIRE(o1);
	rk_anim_clip *o2 = rk_retarget(dst2, crouch, cc, NULL, &r2, &err);
	RK_REQUIRE(o2);
	RK_CHECK_INT(r2.source_rest, RK_REST_BIND);
	RK_CHECK_NEAR(r2.source_hips_height, r1.source_hips_height, 1e-6);
	double d = worst_played(dst1, o1, dst2, o2, 21);
	printf("crouched file as source: avatar nodes within %.3g m\n", d);
	RK_CHECK(d < 1e-6);
	rk_scene_free(src);
	rk_scene_free(bind);
	rk_scene_free(crouch);
	rk_scene_free(dst1);
	rk_scene_free(dst2);
}

RK_TEST(compare_in_the_bind_rest)
{
	rk_scene *bind = load("humanoid_bind.glb"), *crouch = load("humanoid_crouch.glb");
	RK_REQUIRE(bind && crouch);
	rk_compare_result r;
	rk_error err;
	rk_compare_opts o;
	memset(&o, 0, sizeof(o));
	/* static sides: the crouched file's static pose in its bind rest is the bind pose */
	RK_REQUIRE(rk_clip_compare(bind, NULL, crouch, NULL, &o, &r, &err));
	RK_CHECK(r.bones_compared >= 20);
	RK_CHECK(r.max_direction_angle < 1e-6);
	RK_CHECK(r.max_rotation_angle < 1e-6);
	RK_CHECK(r.max_position_error < 1e-6);
	RK_CHECK_INT(r.a_rest, RK_REST_STORED);
	RK_CHECK_INT(r.b_rest, RK_REST_BIND);
	/* stored: the crouch shows (the rest is the crouch itself, so rotations
	 * relative to rest are 0, but the bones point elsewhere) */
	o.rest = RK_REST_STORED;
	RK_REQUIRE(rk_clip_compare(bind, NULL, crouch, NULL, &o, &r, &err));
	RK_CHECK(r.max_direction_angle > 1.0);
	o.rest = (rk_rest_mode)7;
	RK_CHECK(!rk_clip_compare(bind, NULL, crouch, NULL, &o, &r, &err));
	RK_CHECK_INT(err.code, RK_ERROR_INVALID_ARGUMENT);
	rk_scene_free(bind);
	rk_scene_free(crouch);
}

/* A copy of the crouched GLB whose second skin binds the neck 5 cm off. */
static rk_scene *load_conflicting(void)
{
	size_t size;
	unsigned char *data = rk_test_read_file(FIXTURE_DIR "humanoid_crouch.glb", &size);
	if (!data || size < 28) {
		free(data);
		return NULL;
	}
	uint32_t json_len;
	memcpy(&json_len, data + 12, 4);
	size_t bin = 20 + (size_t)json_len + 8;
	/* bufferView 1 (skin 1's matrices) follows the 21 matrices of skin 0;
	 * its first matrix is the neck's, element 12 its x translation */
	size_t at = bin + 21 * 64 + 12 * 4;
	rk_scene *s = NULL;
	if (at + 4 <= size) {
		float x;
		memcpy(&x, data + at, 4);
		x += 0.05f;
		memcpy(data + at, &x, 4);
		rk_error err;
		s = rk_load_memory(data, size, NULL, &err);
	}
	free(data);
	return s;
}

RK_TEST(skins_that_disagree)
{
	rk_scene *s = load_conflicting(), *bind = load("humanoid_bind.glb");
	RK_REQUIRE(s && bind);
	rk_rest_report rep;
	rk_mat4 *w = rest_world(s, RK_REST_AUTO, &rep);
	rk_mat4 *wb = rest_world(bind, RK_REST_AUTO, NULL);
	RK_REQUIRE(w && wb);
	RK_CHECK_INT(rep.skin_conflicts, 1);
	RK_CHECK_INT(rep.used, RK_REST_BIND);
	size_t pairs;
	RK_CHECK(worst_position(s, w, bind, wb, &pairs) < 1e-6);   /* the first skin wins */
	free(w);
	free(wb);
	rk_scene_free(s);
	rk_scene_free(bind);
}

/* FBX files of the conformance corpus stored deformed on purpose (their
 * skins bound in another pose): the rest clip rk_rest_clip_add makes, played
 * by the pose evaluator, puts every node where rk_rest_pose_eval says (FBX
 * pre/post rotations, pivots and offsets solved for), and in that pose every
 * skin is undeformed: node_to_world(j) * mesh_to_joint(j) is the same matrix
 * for all joints j of a skin (the definition of a bind pose: each vertex
 * lands where the mesh sat when it was bound, whatever its weights). */
RK_TEST(rest_clip_undeforms_conformance_skins)
{
	static const char *const files[] = {
		"maya_kenney_character_7700_binary.fbx", "max_transformed_skin_7500_binary.fbx",
		"blender_279_sausage_7400_binary.fbx", "maya_dq_weights_7500_binary.fbx",
		"motionbuilder_sausage_rrss_7700_binary.fbx", "synthetic_bind_to_root_7700_ascii.fbx",
		"max7_skin_5000_binary.fbx", "maya_game_sausage_6100_binary_combined.fbx",
	};
	size_t tested = 0;
	for (size_t f = 0; f < sizeof(files) / sizeof(files[0]); f++) {
		char path[512];
		snprintf(path, sizeof(path), "%s/conformance/data/%s", rk_test_shared_dir(), files[f]);
		rk_error err;
		rk_scene *s = rk_load_file(path, NULL, &err);
		if (!s) continue;
		rk_rest_report rep;
		rk_mat4 *w = rest_world(s, RK_REST_AUTO, &rep);
		RK_REQUIRE(w);
		RK_CHECK_INT(rep.used, RK_REST_BIND);
		const rk_anim_clip *clip = rk_rest_clip_add(s, RK_REST_AUTO, NULL, NULL, &err);
		RK_REQUIRE(clip);
		RK_CHECK_STR(clip->name, "rest");
		size_t bytes = rk_pose_memory_size(s);
		void *mem = malloc(bytes);
		rk_pose pose;
		RK_REQUIRE(mem && rk_pose_init(&pose, s, mem, bytes));
		rk_pose_eval_job job = { .scene = s, .clip = clip, .time = 0.0, .pose = &pose };
		RK_REQUIRE(rk_pose_eval_run(&job));
		double scale = rep.extent > 0.0 ? rep.extent : 1.0, worst_node = 0.0, worst_skin = 0.0;
		for (size_t i = 0; i < s->nodes.count; i++) {
			double d = rk_mat4_max_diff(pose.node_to_world[i], w[i]);
			if (d > worst_node) worst_node = d;
		}
		for (size_t k = 0; k < s->skins.count; k++) {
			const rk_skin_deformer *sk = &s->skins.data[k];
			bool have = false;
			rk_mat4 first = rk_mat4_identity();
			for (size_t j = 0; j < sk->joint_count; j++) {
				if (!sk->joints[j].node) continue;
				rk_mat4 m = rk_mat4_mul(pose.node_to_world[sk->joints[j].node->index], sk->joints[j].mesh_to_joint);
				if (!have) first = m;
				have = true;
				double d = rk_mat4_max_diff(m, first);
				if (d > worst_skin) worst_skin = d;
			}
		}
		/* joints kept stored (rest.h: an inherit mode that cannot be solved) leave their skin deformed */
		size_t joints = 0;
		for (size_t i = 0; i < s->nodes.count; i++) {
			bool in_skin = false;
			for (size_t k = 0; k < s->skins.count && !in_skin; k++)
				for (size_t j = 0; j < s->skins.data[k].joint_count; j++)
					in_skin |= s->skins.data[k].joints[j].node == &s->nodes.data[i];
			joints += in_skin;
		}
		printf("%s: %zu of %zu joints bound, stored off by %.3g deg; rest clip %zu tracks: nodes within %.3g, "
			"skin matrices within %.3g of each other (extent %.3g)\n", files[f], rep.joints_bound, joints,
			rep.max_angle * 180.0 / 3.14159265358979323846, clip->layers[0].track_count, worst_node, worst_skin, scale);
		RK_CHECK(worst_node < 1e-6 * scale);
		if (rep.joints_bound == joints) RK_CHECK(worst_skin < 1e-5 * (scale > 1.0 ? scale : 1.0));
		free(mem);
		free(w);
		rk_scene_free(s);
		tested++;
	}
	if (!tested) RK_SKIP("../shared/conformance/data not found");
}

/* Hostile input: every truncation and a byte flip at every offset of the
 * crouched GLB either fails to load or goes through the rest pose, the rest
 * clip and the character frame without a crash (ASan/UBSan in CI), with the
 * rest worlds finite wherever the stored ones are. */
RK_TEST(corrupted_files_are_survived)
{
	size_t size;
	unsigned char *data = rk_test_read_file(FIXTURE_DIR "humanoid_crouch.glb", &size);
	RK_REQUIRE(data && size > 100);
	unsigned char *copy = (unsigned char *)malloc(size);
	RK_REQUIRE(copy);
	size_t loaded = 0, bind = 0;
	for (size_t k = 0; k < 2 * size; k++) {
		size_t n = k < size ? k : size;
		memcpy(copy, data, size);
		if (k >= size) copy[k - size] ^= 0x5A;
		rk_error err;
		rk_scene *s = rk_load_memory(copy, n, NULL, &err);
		if (!s) continue;
		loaded++;
		rk_mat4 *w = (rk_mat4 *)malloc((s->nodes.count ? s->nodes.count : 1) * sizeof(rk_mat4));
		RK_REQUIRE(w);
		rk_rest_report rep;
		if (rk_rest_pose_eval(s, NULL, w, NULL, &rep, &err)) {
			bind += rep.used == RK_REST_BIND;
			for (size_t i = 0; i < s->nodes.count; i++) {
				bool stored_finite = true, rest_finite = true;
				for (int e = 0; e < 16; e++) {
					stored_finite &= isfinite(s->nodes.data[i].node_to_world.m[e]) != 0;
					rest_finite &= isfinite(w[i].m[e]) != 0;
				}
				if (stored_finite && rep.used == RK_REST_BIND && !rest_finite) {
					fprintf(stderr, "variant %zu: node %zu has a non-finite rest world\n", k, i);
					rk_t_->failed++;
					break;
				}
			}
		}
		rk_character_frame f;
		(void)rk_character_frame_eval(s, NULL, RK_REST_AUTO, &f, &err);
		(void)rk_rest_clip_add(s, RK_REST_AUTO, NULL, NULL, &err);
		free(w);
		rk_scene_free(s);
	}
	printf("corrupted humanoid_crouch.glb: %zu of %zu variants loaded, %zu in their bind pose\n", loaded, 2 * size, bind);
	RK_CHECK(loaded > 0);
	free(copy);
	free(data);
}

RK_TEST(bad_arguments_and_limits)
{
	rk_scene *crouch = load("humanoid_crouch.glb");
	RK_REQUIRE(crouch);
	rk_error err;
	rk_mat4 *w = (rk_mat4 *)malloc(crouch->nodes.count * sizeof(rk_mat4));
	RK_REQUIRE(w);
	RK_CHECK(!rk_rest_pose_eval(NULL, NULL, w, NULL, NULL, &err));
	RK_CHECK_INT(err.code, RK_ERROR_INVALID_ARGUMENT);
	rk_rest_opts o;
	memset(&o, 0, sizeof(o));
	o.mode = (rk_rest_mode)3;
	RK_CHECK(!rk_rest_pose_eval(crouch, &o, w, NULL, NULL, &err));
	RK_CHECK_INT(err.code, RK_ERROR_INVALID_ARGUMENT);
	o.mode = RK_REST_AUTO;
	o.angle_tolerance = -1.0;
	RK_CHECK(!rk_rest_pose_eval(crouch, &o, w, NULL, NULL, &err));
	o.angle_tolerance = NAN;
	RK_CHECK(!rk_rest_pose_eval(crouch, &o, w, NULL, NULL, &err));
	o.angle_tolerance = 0.0;
	o.memory_limit = 16;
	RK_CHECK(!rk_rest_pose_eval(crouch, &o, w, NULL, NULL, &err));
	RK_CHECK_INT(err.code, RK_ERROR_LIMIT);
	/* a tolerance above the crouch's 110 degrees keeps the stored pose */
	o.memory_limit = 0;
	o.angle_tolerance = 2.0;
	o.distance_tolerance = 1.0;
	rk_rest_report rep;
	RK_CHECK(rk_rest_pose_eval(crouch, &o, w, NULL, &rep, &err));
	RK_CHECK_INT(rep.used, RK_REST_STORED);
	/* names */
	rk_rest_mode m;
	RK_CHECK(rk_rest_mode_parse("bind", &m) && m == RK_REST_BIND);
	RK_CHECK(rk_rest_mode_parse("stored", &m) && m == RK_REST_STORED);
	RK_CHECK(rk_rest_mode_parse("auto", &m) && m == RK_REST_AUTO);
	RK_CHECK(!rk_rest_mode_parse("Bind", &m) && !rk_rest_mode_parse(NULL, &m));
	RK_CHECK_STR(rk_rest_mode_name((rk_rest_mode)9), "");
	/* a file without skins: stored, nothing bound */
	rk_scene *demo = rk_demo_scene(RK_DEMO_MIXAMO_SOURCE, NULL, &err);
	RK_REQUIRE(demo);
	RK_CHECK(rk_rest_pose_eval(demo, NULL, NULL, NULL, &rep, &err));
	RK_CHECK_INT(rep.used, RK_REST_STORED);
	free(w);
	rk_scene_free(demo);
	rk_scene_free(crouch);
}

RK_TEST_MAIN(
	RK_TEST_ENTRY(bind_pose_of_a_crouched_file_is_the_bind_files_pose),
	RK_TEST_ENTRY(hips_height_and_character_frame),
	RK_TEST_ENTRY(bind_pose_under_load_conversions),
	RK_TEST_ENTRY(retargets_onto_the_crouched_file_like_onto_the_bind_file),
	RK_TEST_ENTRY(crouched_file_as_retarget_source),
	RK_TEST_ENTRY(compare_in_the_bind_rest),
	RK_TEST_ENTRY(skins_that_disagree),
	RK_TEST_ENTRY(rest_clip_undeforms_conformance_skins),
	RK_TEST_ENTRY(corrupted_files_are_survived),
	RK_TEST_ENTRY(bad_arguments_and_limits)
)
