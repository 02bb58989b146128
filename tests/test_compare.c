/*
 * tests/test_compare.c - rk_clip_compare (rigkit/retarget.h, COMPARISON).
 *
 * Expectations are independent of the implementation: a clip against itself
 * and against a copy loaded with another axis system / unit must give zero
 * (the character frame removes both); Walk against Idle, and Walk against
 * itself half a cycle later, are checked number for number against a hand
 * computation from the evaluated world matrices (rk_pose_eval_run) of one
 * bone, with rotation angles from 3x3 rotation matrices (trace formula)
 * rather than quaternions; a T-pose source against an A-pose avatar at rest
 * must show the documented 45 degree arm difference and no rotation
 * relative to rest. Shared assets (Xbot.glb, ybot@kick.fbx) are compared
 * with converted copies of themselves.
 */
#include "rk_test.h"

#include <rigkit/anim.h>
#include <rigkit/load.h>
#include <rigkit/export.h>
#include <rigkit/retarget.h>
#include <rigkit/demo.h>
#include <rigkit/scene.h>

#define PI 3.14159265358979323846
#define DEG (PI / 180.0)

/* ---- helpers ------------------------------------------------------------------- */

static rk_scene *sample_source(void)
{
	rk_demo_opts so = { 0 };
	so.no_mesh = true;
	return rk_demo_scene(RK_DEMO_MIXAMO_SOURCE, &so, NULL);
}

/* The largest value over every compared bone of every measure. */
static double worst_of(const rk_compare_result *r)
{
	double w = 0.0;
	for (int b = 0; b < RK_HUMANOID_BONE_COUNT; b++) {
		const rk_compare_bone *c = &r->bones[b];
		const double v[] = { c->max_direction_angle, c->mean_direction_angle, c->max_rotation_angle,
			c->mean_rotation_angle, c->max_position_error, c->mean_position_error };
		for (size_t k = 0; k < sizeof(v) / sizeof(v[0]); k++)
			if (!(v[k] <= w)) w = v[k];   /* NaN propagates */
	}
	return w;
}

static const rk_anim_clip *first_clip_with_tracks(const rk_scene *s)
{
	for (size_t i = 0; i < s->clips.count; i++)
		for (size_t l = 0; l < s->clips.data[i].layer_count; l++)
			if (s->clips.data[i].layers[l].track_count) return &s->clips.data[i];
	return NULL;
}

typedef struct mat3 { double c[3][3]; } mat3;   /* c[col][row], unit columns */

static mat3 rotation_of(rk_mat4 m)
{
	mat3 r;
	for (int c = 0; c < 3; c++) {
		double l = sqrt(m.m[c * 4] * m.m[c * 4] + m.m[c * 4 + 1] * m.m[c * 4 + 1] + m.m[c * 4 + 2] * m.m[c * 4 + 2]);
		for (int k = 0; k < 3; k++) r.c[c][k] = m.m[c * 4 + k] / l;
	}
	return r;
}

static double at(const mat3 *m, int row, int col) { return m->c[col][row]; }

/* Angle of the rotation (A * B^T) * (C * D^T)^T = A B^T D C^T, from its trace. */
static double relative_angle(mat3 a, mat3 b, mat3 c, mat3 d)
{
	double m1[3][3], m2[3][3], tr = 0.0;
	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 3; j++) {
			m1[i][j] = 0.0, m2[i][j] = 0.0;
			for (int k = 0; k < 3; k++) {
				m1[i][j] += at(&a, i, k) * at(&b, j, k);   /* A B^T */
				m2[i][j] += at(&c, i, k) * at(&d, j, k);   /* C D^T */
			}
		}
	for (int i = 0; i < 3; i++)
		for (int k = 0; k < 3; k++) tr += m1[i][k] * m2[i][k];   /* trace(M1 M2^T) */
	double x = (tr - 1.0) / 2.0;
	return acos(x > 1.0 ? 1.0 : x < -1.0 ? -1.0 : x);
}

static rk_vec3 pos_of(rk_mat4 m) { return (rk_vec3){ m.m[12], m.m[13], m.m[14] }; }
static rk_vec3 sub(rk_vec3 a, rk_vec3 b) { return (rk_vec3){ a.x - b.x, a.y - b.y, a.z - b.z }; }
static double dot(rk_vec3 a, rk_vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
static double len(rk_vec3 a) { return sqrt(dot(a, a)); }

static double vec_angle(rk_vec3 a, rk_vec3 b)
{
	double c = dot(a, b) / (len(a) * len(b));
	return acos(c > 1.0 ? 1.0 : c < -1.0 ? -1.0 : c);
}

typedef struct hand_result {
	double dir_max, dir_mean, rot_max, rot_mean, pos_max, pos_mean, worst_time;
	double dir_at0, rot_at0;
	double unit_skeleton, unit_file_up;   /* world units per hips height */
	size_t frames;
} hand_result;

/* The three measures for joint `bone` (direction to `child`) of one Mixamo
 * scene, side a = clip ca from time ta0, side b = clip cb from tb0, at
 * t = k / fps, k = 0..steps. Both sides are the same skeleton, so the
 * character frame's rotation cancels out of every angle. Positions are
 * kept in world units; the character unit is the rest hips height above
 * the lowest foot joint along up, and two readings of "up" are computed:
 * the upper legs' midpoint -> head (retarget.h) and the file's +Y (which the
 * frame code prefers when the skeleton agrees within 30 degrees; the sample
 * leans 0.2 degrees, a 0.03% difference in the unit). */
static bool hand_compare(const rk_scene *s, const rk_anim_clip *ca, double ta0, const rk_anim_clip *cb, double tb0,
	int steps, double fps, const char *bone, const char *child, hand_result *out)
{
	const rk_node *nb = rk_scene_find_node(s, bone), *nc = rk_scene_find_node(s, child);
	const rk_node *hips = rk_scene_find_node(s, "mixamorig:Hips"), *head = rk_scene_find_node(s, "mixamorig:Head");
	const rk_node *lul = rk_scene_find_node(s, "mixamorig:LeftUpLeg"), *rul = rk_scene_find_node(s, "mixamorig:RightUpLeg");
	if (!nb || !nc || !hips || !head || !lul || !rul) return false;
	rk_vec3 mid = pos_of(lul->node_to_world), r = pos_of(rul->node_to_world);
	mid = (rk_vec3){ (mid.x + r.x) / 2, (mid.y + r.y) / 2, (mid.z + r.z) / 2 };
	rk_vec3 up = sub(pos_of(head->node_to_world), mid);
	up = (rk_vec3){ up.x / len(up), up.y / len(up), up.z / len(up) };
	static const char *const feet[] = { "mixamorig:LeftFoot", "mixamorig:RightFoot", "mixamorig:LeftToeBase",
		"mixamorig:RightToeBase", "mixamorig:LeftLeg", "mixamorig:RightLeg" };
	double low = 0.0, low_y = 0.0;
	for (int k = 0; k < 6; k++) {
		rk_vec3 d = sub(pos_of(rk_scene_find_node(s, feet[k])->node_to_world), pos_of(hips->node_to_world));
		if (dot(d, up) < low) low = dot(d, up);
		if (d.y < low_y) low_y = d.y;
	}
	mat3 rest = rotation_of(nb->node_to_world);

	size_t bytes = rk_pose_memory_size(s);
	void *ma = malloc(bytes), *mb = malloc(bytes);
	rk_pose pa, pb;
	if (!ma || !mb || !rk_pose_init(&pa, s, ma, bytes) || !rk_pose_init(&pb, s, mb, bytes)) {
		free(ma);
		free(mb);
		return false;
	}
	memset(out, 0, sizeof(*out));
	out->unit_skeleton = -low;
	out->unit_file_up = -low_y;
	bool ok = true;
	for (int k = 0; k <= steps && ok; k++) {
		double t = k / fps;
		rk_pose_eval_job ja = { 0 }, jb = { 0 };
		ja.scene = jb.scene = s;
		ja.clip = ca, jb.clip = cb;
		ja.time = ta0 + t, jb.time = tb0 + t;
		ja.pose = &pa, jb.pose = &pb;
		ok = rk_pose_eval_run(&ja) && rk_pose_eval_run(&jb);
		const rk_mat4 *wa = pa.node_to_world, *wb = pb.node_to_world;
		double dir = vec_angle(sub(pos_of(wa[nc->index]), pos_of(wa[nb->index])),
			sub(pos_of(wb[nc->index]), pos_of(wb[nb->index])));
		double rot = relative_angle(rotation_of(wa[nb->index]), rest, rotation_of(wb[nb->index]), rest);
		rk_vec3 ra = sub(pos_of(wa[nb->index]), pos_of(wa[hips->index]));
		rk_vec3 rb = sub(pos_of(wb[nb->index]), pos_of(wb[hips->index]));
		double pos = len(sub(ra, rb));   /* world units */
		if (k == 0) out->dir_at0 = dir, out->rot_at0 = rot;
		if (dir > out->dir_max) out->dir_max = dir;
		if (rot > out->rot_max) out->rot_max = rot, out->worst_time = t;
		if (pos > out->pos_max) out->pos_max = pos;
		out->dir_mean += dir, out->rot_mean += rot, out->pos_mean += pos;
		out->frames++;
	}
	out->dir_mean /= (double)out->frames;
	out->rot_mean /= (double)out->frames;
	out->pos_mean /= (double)out->frames;
	free(ma);
	free(mb);
	return ok;
}

static void check_against_hand(rk_test_state *rk_t_, const rk_compare_result *res, rk_humanoid_bone b,
	const hand_result *h)
{
	const rk_compare_bone *c = &res->bones[b];
	RK_CHECK(c->compared);
	RK_CHECK_INT(res->frames, h->frames);
	RK_CHECK_NEAR(c->max_direction_angle, h->dir_max, 1e-7);
	RK_CHECK_NEAR(c->mean_direction_angle, h->dir_mean, 1e-7);
	RK_CHECK_NEAR(c->max_rotation_angle, h->rot_max, 1e-7);
	RK_CHECK_NEAR(c->mean_rotation_angle, h->rot_mean, 1e-7);
	/* hips heights back to world units, with either reading of the unit */
	bool max_ok = fabs(c->max_position_error * h->unit_skeleton - h->pos_max) < 1e-9
		|| fabs(c->max_position_error * h->unit_file_up - h->pos_max) < 1e-9;
	bool mean_ok = fabs(c->mean_position_error * h->unit_skeleton - h->pos_mean) < 1e-9
		|| fabs(c->mean_position_error * h->unit_file_up - h->pos_mean) < 1e-9;
	if (!max_ok || !mean_ok)
		fprintf(stderr, "  position max %.12g mean %.12g hips heights; by hand %.12g / %.12g m, units %.12g or %.12g m\n",
			c->max_position_error, c->mean_position_error, h->pos_max, h->pos_mean, h->unit_skeleton, h->unit_file_up);
	RK_CHECK(max_ok && mean_ok);
	RK_CHECK(h->pos_max > 0.0);
	RK_CHECK_NEAR(c->worst_time, h->worst_time, 1e-12);
}

/* ---- a clip against itself ---------------------------------------------------- */

RK_TEST(compare_walk_with_itself_is_zero)
{
	rk_scene *a = sample_source(), *b = sample_source();
	RK_REQUIRE(a && b);
	const rk_anim_clip *wa = rk_scene_find_clip(a, "Walk"), *wb = rk_scene_find_clip(b, "Walk");
	RK_REQUIRE(wa && wb);
	rk_compare_result res;
	rk_error err;
	/* the same scene on both sides, and two equal scenes */
	RK_REQUIRE(rk_clip_compare(a, wa, a, wa, NULL, &res, &err));
	RK_CHECK_INT(res.frames, 31);   /* 1 s at 30 fps, both ends */
	RK_CHECK(worst_of(&res) < 1e-9);
	RK_CHECK(res.max_direction_angle < 1e-9 && res.max_rotation_angle < 1e-9 && res.max_position_error < 1e-9);
	RK_REQUIRE(rk_clip_compare(a, wa, b, wb, NULL, &res, &err));
	RK_CHECK_INT(res.frames, 31);
	RK_CHECK(worst_of(&res) < 1e-9);
	/* every bone the detector maps is compared (the sample maps all 15
	 * required bones and more) */
	rk_humanoid h;
	RK_REQUIRE(rk_humanoid_detect(a, &h, &err));
	size_t mapped = 0;
	for (int k = 0; k < RK_HUMANOID_BONE_COUNT; k++) {
		mapped += h.bones[k] != NULL;
		RK_CHECK(res.bones[k].compared == (h.bones[k] != NULL));
	}
	RK_CHECK_INT(res.bones_compared, mapped);
	RK_CHECK(mapped >= 15);
	rk_scene_free(a);
	rk_scene_free(b);
}

RK_TEST(compare_sampling_times)
{
	rk_scene *s = sample_source();
	RK_REQUIRE(s);
	const rk_anim_clip *walk = rk_scene_find_clip(s, "Walk"), *idle = rk_scene_find_clip(s, "Idle");
	RK_REQUIRE(walk && idle);
	rk_compare_result res;
	rk_error err;
	/* Walk (1 s) against Idle (3 s): the shorter clip, 31 frames at 30 fps */
	RK_REQUIRE(rk_clip_compare(s, walk, s, idle, NULL, &res, &err));
	RK_CHECK_INT(res.frames, 31);
	/* 7 fps over 1 s: 0, 1/7 .. 7/7 */
	rk_compare_opts o = { 0 };
	o.fps = 7;
	RK_REQUIRE(rk_clip_compare(s, walk, s, idle, &o, &res, &err));
	RK_CHECK_INT(res.frames, 8);
	/* 0.25 s at 10 fps: 0, 0.1, 0.2 and a last sample exactly at 0.25 */
	o.fps = 10;
	o.duration = 0.25;
	RK_REQUIRE(rk_clip_compare(s, walk, s, idle, &o, &res, &err));
	RK_CHECK_INT(res.frames, 4);
	for (int b = 0; b < RK_HUMANOID_BONE_COUNT; b++) {
		double t = res.bones[b].worst_time;
		if (!res.bones[b].compared) continue;
		RK_CHECK(t == 0.0 || fabs(t - 0.1) < 1e-12 || fabs(t - 0.2) < 1e-12 || t == 0.25);
	}
	/* a static side takes the other's duration; two static sides one frame */
	RK_REQUIRE(rk_clip_compare(s, NULL, s, walk, NULL, &res, &err));
	RK_CHECK_INT(res.frames, 31);
	RK_REQUIRE(rk_clip_compare(s, idle, s, NULL, NULL, &res, &err));
	RK_CHECK_INT(res.frames, 91);
	RK_REQUIRE(rk_clip_compare(s, NULL, s, NULL, NULL, &res, &err));
	RK_CHECK_INT(res.frames, 1);
	RK_CHECK(worst_of(&res) == 0.0);
	o.fps = 0, o.duration = 2.0;   /* an explicit duration for two static sides */
	RK_REQUIRE(rk_clip_compare(s, NULL, s, NULL, &o, &res, &err));
	RK_CHECK_INT(res.frames, 61);
	rk_scene_free(s);
}

/* ---- axes, units and armature transforms do not matter ------------------------ */

RK_TEST(compare_converted_copies_are_zero)
{
	rk_scene *src = sample_source();
	RK_REQUIRE(src);
	void *glb = NULL;
	size_t size = 0;
	rk_error err;
	RK_REQUIRE(rk_gltf_write_memory(src, NULL, &glb, &size, &err));
	rk_load_opts plain = { 0 }, conv = { 0 };
	conv.target_axes = RK_AXES_RIGHT_HANDED_Z_UP;
	conv.target_unit_meters = 0.01;   /* centimetres: everything 100x larger */
	rk_scene *a = rk_load_memory(glb, size, &plain, &err);
	rk_scene *b = rk_load_memory(glb, size, &conv, &err);
	rk_gltf_memory_free(glb);
	RK_REQUIRE(a && b);
	/* the conversion did happen: the hips are 100x further from the origin, on another axis */
	rk_vec3 ha = pos_of(rk_scene_find_node(a, "mixamorig:Hips")->node_to_world);
	rk_vec3 hb = pos_of(rk_scene_find_node(b, "mixamorig:Hips")->node_to_world);
	RK_CHECK_NEAR(ha.y * 100.0, hb.z, 1e-6);
	RK_CHECK(ha.y > 0.8);
	rk_compare_result res;
	RK_REQUIRE(rk_clip_compare(a, rk_scene_find_clip(a, "Walk"), b, rk_scene_find_clip(b, "Walk"), NULL, &res, &err));
	RK_CHECK_INT(res.frames, 31);
	RK_CHECK(worst_of(&res) < 1e-9);
	RK_REQUIRE(rk_clip_compare(a, rk_scene_find_clip(a, "Idle"), b, rk_scene_find_clip(b, "Idle"), NULL, &res, &err));
	RK_CHECK_INT(res.frames, 91);
	RK_CHECK(worst_of(&res) < 1e-9);
	/* the GLB stores floats: against the in-memory original only rounding remains */
	RK_REQUIRE(rk_clip_compare(src, rk_scene_find_clip(src, "Walk"), b, rk_scene_find_clip(b, "Walk"), NULL, &res, &err));
	RK_CHECK(worst_of(&res) < 1e-5);
	RK_CHECK(res.bones_compared >= 15);

	/* Blender's Z-up armature under a Y-up scene: other local transforms, same world poses */
	rk_demo_opts zo = { 0 };
	zo.no_mesh = true;
	zo.z_up_armature = true;
	rk_scene *z = rk_demo_scene(RK_DEMO_MIXAMO_SOURCE, &zo, &err);
	RK_REQUIRE(z);
	RK_REQUIRE(rk_clip_compare(src, rk_scene_find_clip(src, "Walk"), z, rk_scene_find_clip(z, "Walk"), NULL, &res, &err));
	RK_CHECK(worst_of(&res) < 1e-9);
	rk_scene_free(z);
	rk_scene_free(a);
	rk_scene_free(b);
	rk_scene_free(src);
}

/* ---- different clips, checked against a hand computation ---------------------- */

RK_TEST(compare_walk_idle_matches_hand_computation)
{
	rk_scene *s = sample_source();
	RK_REQUIRE(s);
	const rk_anim_clip *walk = rk_scene_find_clip(s, "Walk"), *idle = rk_scene_find_clip(s, "Idle");
	RK_REQUIRE(walk && idle);
	rk_compare_result res;
	rk_error err;
	RK_REQUIRE(rk_clip_compare(s, walk, s, idle, NULL, &res, &err));
	RK_CHECK_INT(res.frames, 31);
	/* large differences: Idle's arms hang ~70 degrees down, Walk's legs stride */
	RK_CHECK(res.max_direction_angle > 20 * DEG);
	RK_CHECK(res.max_rotation_angle > 20 * DEG);
	RK_CHECK(res.max_position_error > 0.1);

	hand_result h;
	RK_REQUIRE(hand_compare(s, walk, walk->time_begin, idle, idle->time_begin, 30, 30.0, "mixamorig:LeftArm",
		"mixamorig:LeftForeArm", &h));
	check_against_hand(rk_t_, &res, RK_HUMANOID_LEFT_UPPER_ARM, &h);
	RK_CHECK(h.dir_at0 > 10 * DEG);   /* t = 0 is already far apart */
	RK_CHECK(h.dir_max >= h.dir_at0);
	RK_REQUIRE(hand_compare(s, walk, walk->time_begin, idle, idle->time_begin, 30, 30.0, "mixamorig:LeftUpLeg",
		"mixamorig:LeftLeg", &h));
	check_against_hand(rk_t_, &res, RK_HUMANOID_LEFT_UPPER_LEG, &h);
	RK_REQUIRE(hand_compare(s, walk, walk->time_begin, idle, idle->time_begin, 30, 30.0, "mixamorig:RightForeArm",
		"mixamorig:RightHand", &h));
	check_against_hand(rk_t_, &res, RK_HUMANOID_RIGHT_LOWER_ARM, &h);

	/* the result is symmetric in a and b */
	rk_compare_result rev;
	RK_REQUIRE(rk_clip_compare(s, idle, s, walk, NULL, &rev, &err));
	for (int b = 0; b < RK_HUMANOID_BONE_COUNT; b++) {
		RK_CHECK_NEAR(rev.bones[b].max_direction_angle, res.bones[b].max_direction_angle, 1e-12);
		RK_CHECK_NEAR(rev.bones[b].max_rotation_angle, res.bones[b].max_rotation_angle, 1e-12);
		RK_CHECK_NEAR(rev.bones[b].mean_position_error, res.bones[b].mean_position_error, 1e-12);
	}
	rk_scene_free(s);
}

RK_TEST(compare_time_offset_matters)
{
	rk_scene *a = sample_source(), *b = sample_source();
	RK_REQUIRE(a && b);
	rk_anim_clip *wa = rk_scene_find_clip(a, "Walk"), *wb = rk_scene_find_clip(b, "Walk");
	RK_REQUIRE(wa && wb);
	/* b's Walk starts half a cycle later: left and right legs swap */
	wb->time_begin = 0.5;
	rk_compare_result res;
	rk_error err;
	RK_REQUIRE(rk_clip_compare(a, wa, b, wb, NULL, &res, &err));
	RK_CHECK_INT(res.frames, 16);   /* the shorter clip: 0.5 s */
	RK_CHECK(res.max_direction_angle > 10 * DEG);
	hand_result h;
	RK_REQUIRE(hand_compare(a, wa, 0.0, wa, 0.5, 15, 30.0, "mixamorig:LeftUpLeg", "mixamorig:LeftLeg", &h));
	check_against_hand(rk_t_, &res, RK_HUMANOID_LEFT_UPPER_LEG, &h);
	RK_CHECK(h.dir_at0 > 10 * DEG);
	/* both started half a cycle in: equal again (times count from each clip's start) */
	wa->time_begin = 0.5;
	RK_REQUIRE(rk_clip_compare(a, wa, b, wb, NULL, &res, &err));
	RK_CHECK_INT(res.frames, 16);
	RK_CHECK(worst_of(&res) < 1e-9);
	rk_scene_free(a);
	rk_scene_free(b);
}

/* ---- across skeletons: T-pose source, A-pose avatar --------------------------- */

RK_TEST(compare_t_pose_against_a_pose)
{
	rk_demo_opts so = { 0 };
	so.no_mesh = true;
	rk_error err;
	rk_scene *src = rk_demo_scene(RK_DEMO_MIXAMO_SOURCE, &so, &err);
	rk_scene *av = rk_demo_scene(RK_DEMO_AVATAR, &so, &err);
	RK_REQUIRE(src && av);
	rk_compare_result res;
	RK_REQUIRE(rk_clip_compare(src, NULL, av, NULL, NULL, &res, &err));
	RK_CHECK_INT(res.frames, 1);
	/* sample.h: the source's arms are horizontal, the avatar's point 45 degrees down */
	const rk_humanoid_bone arms[] = { RK_HUMANOID_LEFT_UPPER_ARM, RK_HUMANOID_LEFT_LOWER_ARM,
		RK_HUMANOID_RIGHT_UPPER_ARM, RK_HUMANOID_RIGHT_LOWER_ARM };
	for (size_t k = 0; k < 4; k++) {
		RK_CHECK(res.bones[arms[k]].compared);
		RK_CHECK_NEAR(res.bones[arms[k]].max_direction_angle, 45 * DEG, 0.01 * DEG);
		RK_CHECK_NEAR(res.bones[arms[k]].mean_direction_angle, 45 * DEG, 0.01 * DEG);
	}
	/* both at rest: no rotation relative to rest, whatever the rolls */
	RK_CHECK(res.max_rotation_angle < 1e-9);
	/* the hands are far apart relative to the hips (different pose and proportions) */
	RK_CHECK(res.bones[RK_HUMANOID_LEFT_HAND].max_position_error > 0.2);
	RK_CHECK_NEAR(res.bones[RK_HUMANOID_HIPS].max_position_error, 0.0, 1e-12);
	rk_scene_free(src);
	rk_scene_free(av);
}

/* ---- bad arguments -------------------------------------------------------------- */

static void check_rejected(rk_test_state *rk_t_, bool ok, const rk_error *err, rk_error_code code,
	const rk_compare_result *res, const char *needle)
{
	RK_CHECK(!ok);
	RK_CHECK_INT(err->code, code);
	RK_CHECK(err->message[0] != '\0');
	if (needle && !strstr(err->message, needle)) {
		fprintf(stderr, "  message \"%s\" lacks \"%s\"\n", err->message, needle);
		rk_t_->failed++;
	}
	if (res) RK_CHECK(res->frames == 0 && res->bones_compared == 0 && !res->bones[0].compared);
}

RK_TEST(compare_rejects_bad_arguments)
{
	rk_scene *a = sample_source(), *b = sample_source();
	RK_REQUIRE(a && b);
	const rk_anim_clip *wa = rk_scene_find_clip(a, "Walk"), *wb = rk_scene_find_clip(b, "Walk");
	rk_compare_result res;
	rk_error err;
	rk_compare_opts o = { 0 };
	check_rejected(rk_t_, rk_clip_compare(NULL, NULL, b, wb, NULL, &res, &err), &err, RK_ERROR_INVALID_ARGUMENT,
		&res, "a = NULL");
	check_rejected(rk_t_, rk_clip_compare(a, wa, NULL, NULL, NULL, &res, &err), &err, RK_ERROR_INVALID_ARGUMENT,
		&res, "b = NULL");
	check_rejected(rk_t_, rk_clip_compare(a, wa, b, wb, NULL, NULL, &err), &err, RK_ERROR_INVALID_ARGUMENT, NULL,
		"out = NULL");
	/* clips of the other scene */
	check_rejected(rk_t_, rk_clip_compare(a, wb, b, wb, NULL, &res, &err), &err, RK_ERROR_INVALID_ARGUMENT, &res,
		"clip a");
	check_rejected(rk_t_, rk_clip_compare(a, wa, b, wa, NULL, &res, &err), &err, RK_ERROR_INVALID_ARGUMENT, &res,
		"clip b");
	const double bad_fps[] = { NAN, INFINITY, -1.0, 20000.0 };
	for (size_t k = 0; k < 4; k++) {
		o.fps = bad_fps[k];
		check_rejected(rk_t_, rk_clip_compare(a, wa, b, wb, &o, &res, &err), &err, RK_ERROR_INVALID_ARGUMENT, &res,
			"fps");
	}
	o.fps = 0;
	const double bad_duration[] = { NAN, INFINITY, -0.5 };
	for (size_t k = 0; k < 3; k++) {
		o.duration = bad_duration[k];
		check_rejected(rk_t_, rk_clip_compare(a, wa, b, wb, &o, &res, &err), &err, RK_ERROR_INVALID_ARGUMENT, &res,
			"duration");
	}
	/* 1000 s at 10000 fps = 10 million frames */
	o.fps = 10000, o.duration = 1000;
	check_rejected(rk_t_, rk_clip_compare(a, wa, b, wb, &o, &res, &err), &err, RK_ERROR_LIMIT, &res, "frames");
	/* a humanoid without hips, and one that belongs to another scene */
	rk_humanoid h;
	RK_REQUIRE(rk_humanoid_detect(a, &h, &err));
	rk_compare_opts ho = { 0 };
	ho.b_humanoid = &h;   /* a's nodes, not b's */
	bool ok = rk_clip_compare(a, wa, b, wb, &ho, &res, &err);
	check_rejected(rk_t_, ok, &err, err.code, &res, "scene b");
	h.bones[RK_HUMANOID_HIPS] = NULL;
	ho.b_humanoid = NULL;
	ho.a_humanoid = &h;
	ok = rk_clip_compare(a, wa, b, wb, &ho, &res, &err);
	check_rejected(rk_t_, ok, &err, err.code, &res, "scene a");
	/* a scene that is no humanoid at all */
	static const char gltf[] = "{\"asset\":{\"version\":\"2.0\"},\"scenes\":[{\"nodes\":[0]}],\"scene\":0,"
		"\"nodes\":[{\"name\":\"Box\",\"children\":[1]},{\"name\":\"Lid\",\"translation\":[0,1,0]}]}";
	rk_scene *box = rk_load_memory(gltf, sizeof(gltf) - 1, NULL, &err);
	RK_REQUIRE(box);
	ok = rk_clip_compare(a, wa, box, NULL, NULL, &res, &err);
	check_rejected(rk_t_, ok, &err, err.code, &res, "scene b");
	/* a clip whose range is not finite */
	rk_anim_clip *wb_mut = rk_scene_find_clip(b, "Walk");
	wb_mut->time_end = INFINITY;
	check_rejected(rk_t_, rk_clip_compare(a, wa, b, wb, NULL, &res, &err), &err, RK_ERROR_INVALID_ARGUMENT, &res,
		"time range");
	/* err may be NULL */
	RK_CHECK(!rk_clip_compare(NULL, NULL, NULL, NULL, NULL, NULL, NULL));
	rk_scene_free(box);
	rk_scene_free(a);
	rk_scene_free(b);
}

/* ---- shared assets --------------------------------------------------------------- */

static rk_scene *load_shared(const char *name, const rk_load_opts *lo, rk_error *err)
{
	const char *dir = rk_test_shared_dir();
	if (!dir) return NULL;
	char path[4096];
	snprintf(path, sizeof(path), "%s/assets/%s", dir, name);
	return rk_load_file(path, lo, err);
}

RK_TEST(compare_shared_xbot_converted)
{
	if (!rk_test_shared_dir()) RK_SKIP("no /work/shared (assets/Xbot.glb)");
	rk_load_opts conv = { 0 };
	conv.target_axes = RK_AXES_RIGHT_HANDED_Z_UP;
	conv.target_unit_meters = 0.01;
	rk_error err;
	rk_scene *a = load_shared("Xbot.glb", NULL, &err), *b = load_shared("Xbot.glb", &conv, &err);
	RK_REQUIRE(a && b);
	const rk_anim_clip *ca = first_clip_with_tracks(a), *cb = first_clip_with_tracks(b);
	RK_REQUIRE(ca && cb);
	rk_compare_result res;
	RK_REQUIRE(rk_clip_compare(a, ca, b, cb, NULL, &res, &err));
	RK_CHECK(res.frames > 1);
	RK_CHECK(res.bones_compared >= 15);
	RK_CHECK(worst_of(&res) < 1e-9);
	rk_scene_free(a);
	rk_scene_free(b);
}

RK_TEST(compare_shared_ybot_kick_in_metres)
{
	if (!rk_test_shared_dir()) RK_SKIP("no /work/shared (assets/ybot@kick.fbx)");
	rk_load_opts metres = { 0 };
	metres.target_unit_meters = 1.0;
	rk_error err;
	rk_scene *a = load_shared("ybot@kick.fbx", NULL, &err), *b = load_shared("ybot@kick.fbx", &metres, &err);
	RK_REQUIRE(a && b);
	const rk_anim_clip *ca = first_clip_with_tracks(a), *cb = first_clip_with_tracks(b);
	RK_REQUIRE(ca && cb);
	rk_compare_result res;
	RK_REQUIRE(rk_clip_compare(a, ca, b, cb, NULL, &res, &err));
	RK_CHECK(res.frames > 10);
	RK_CHECK(res.bones_compared >= 15);
	RK_CHECK(worst_of(&res) < 1e-9);
	/* and the kick is a real motion: against its own static pose it differs */
	RK_REQUIRE(rk_clip_compare(a, ca, b, NULL, NULL, &res, &err));
	RK_CHECK(res.max_rotation_angle > 10 * DEG);
	rk_scene_free(a);
	rk_scene_free(b);
}

RK_TEST_MAIN(
	RK_TEST_ENTRY(compare_walk_with_itself_is_zero),
	RK_TEST_ENTRY(compare_sampling_times),
	RK_TEST_ENTRY(compare_converted_copies_are_zero),
	RK_TEST_ENTRY(compare_walk_idle_matches_hand_computation),
	RK_TEST_ENTRY(compare_time_offset_matters),
	RK_TEST_ENTRY(compare_t_pose_against_a_pose),
	RK_TEST_ENTRY(compare_rejects_bad_arguments),
	RK_TEST_ENTRY(compare_shared_xbot_converted),
	RK_TEST_ENTRY(compare_shared_ybot_kick_in_metres)
)
