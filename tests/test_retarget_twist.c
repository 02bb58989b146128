/*
 * tests/test_retarget_twist.c - twist distribution onto twist joints and
 * root motion extraction (rigkit/retarget.h, TWIST JOINTS and ROOT MOTION;
 * docs/retarget.md).
 *
 * Fixtures from tests/fixtures/make_twist_rig.py: twist_source.glb (clip
 * "Twist": every rest rotation the identity, local rotations at 1 s listed
 * in the script's POSE) onto twist_rig.glb (the same bone directions,
 * Unreal names, twist joints). With identical bone directions and identity
 * rests the rule gives the target the source's local rotations, so every
 * expected twist below is derived by hand from POSE: e.g. LeftHand at 1 s
 * is Rz(20) Rx(90), a swing about Z after a 90-degree twist about the
 * forearm axis +X.
 *
 * Measured here from evaluated poses of the result written to GLB and read
 * back (world matrices of rk_pose_eval_run, not the library's internals):
 * a twist joint's rotation relative to its bone, Wj Wb^-1, must be a pure
 * rotation about the bone's current axis (joint -> next joint for in-chain
 * joints, bone -> child for leaf joints) by the expected angle; every
 * mapped joint's world position and rotation must be those of the result
 * without twist distribution (--twist off).
 */
#include "rigkit/rigkit.h"
#include "rk_test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FIXTURE_DIR RK_SOURCE_DIR "/tests/fixtures/"
#define DEG (3.14159265358979323846 / 180.0)

static rk_scene *load(const char *name)
{
	char path[1024];
	snprintf(path, sizeof(path), FIXTURE_DIR "%s", name);
	rk_error err;
	rk_scene *s = rk_load_file(path, NULL, &err);
	if (!s) fprintf(stderr, "%s: %s\n", path, err.message);
	return s;
}

static rk_scene *round_trip(const rk_scene *s)
{
	void *data = NULL;
	size_t size = 0;
	rk_error err;
	if (!rk_gltf_write_memory(s, NULL, &data, &size, &err)) return NULL;
	rk_scene *back = rk_load_memory(data, size, NULL, &err);
	rk_gltf_memory_free(data);
	return back;
}

typedef struct posed {
	rk_pose pose;
	void *mem;
} posed;

static bool posed_eval(posed *p, const rk_scene *s, const rk_anim_clip *clip, double t)
{
	if (!p->mem) {
		size_t bytes = rk_pose_memory_size(s);
		p->mem = malloc(bytes);
		if (!p->mem || !rk_pose_init(&p->pose, s, p->mem, bytes)) return false;
	}
	rk_pose_eval_job job;
	memset(&job, 0, sizeof(job));
	job.scene = s;
	job.clip = clip;
	job.time = t;
	job.pose = &p->pose;
	return rk_pose_eval_run(&job);
}

static rk_mat4 world_of(const posed *p, const rk_scene *s, const char *name)
{
	const rk_node *n = rk_scene_find_node(s, name);
	if (!n) {
		rk_mat4 bad = rk_mat4_identity();
		bad.m[0] = NAN;
		return bad;
	}
	return p->pose.node_to_world[n->index];
}

static rk_vec3 pos_of(const posed *p, const rk_scene *s, const char *name)
{
	return rk_mat4_get_translation(world_of(p, s, name));
}

static rk_quat rot_of(const posed *p, const rk_scene *s, const char *name)
{
	return rk_mat4_decompose(world_of(p, s, name)).rotation;
}

/* Retargets twist_source "Twist" onto `target_file` with opts, writes the
 * result to GLB and reads it back; *clip = the result clip. The report's
 * root_node is then the read-back scene's node of that name (the target it
 * pointed into is freed). */
static rk_scene *retargeted(const char *target_file, const rk_retarget_opts *opts, rk_retarget_report *rep,
	const rk_anim_clip **clip)
{
	rk_scene *src = load("twist_source.glb"), *dst = load(target_file);
	rk_scene *back = NULL;
	if (src && dst) {
		rk_error err;
		const rk_anim_clip *c = rk_scene_find_clip(src, "Twist");
		/* the rule with twist / root alone (the contact solve: test_contacts.c) */
		rk_retarget_opts o = opts ? *opts : (rk_retarget_opts){ .name = NULL };
		o.contacts = RK_RETARGET_CONTACTS_OFF;
		if (c && rk_retarget(dst, src, c, &o, rep, &err)) back = round_trip(dst);
		else fprintf(stderr, "retarget: %s\n", c ? err.message : "no clip Twist");
		if (back && rep->root_node) rep->root_node = rk_scene_find_node(back, rep->root_node->name);
	}
	rk_scene_free(src);
	rk_scene_free(dst);
	*clip = back ? rk_scene_find_clip(back, "Twist") : NULL;
	return back;
}

/* Angle (radians) of the rotation Wj * Wb^-1 about `axis`, and how far that
 * rotation is from one about `axis` (the angle of its swing part). */
static double twist_about(rk_quat wj, rk_quat wb, rk_vec3 axis, double *off_axis)
{
	rk_quat q = rk_quat_normalize(rk_quat_mul(wj, rk_quat_conjugate(wb)));
	if (q.w < 0) q = (rk_quat){ -q.x, -q.y, -q.z, -q.w };
	rk_vec3 a = rk_vec3_normalize(axis);
	double s = q.x * a.x + q.y * a.y + q.z * a.z;
	rk_vec3 v = { q.x - s * a.x, q.y - s * a.y, q.z - s * a.z };
	*off_axis = 2.0 * asin(fmin(1.0, rk_vec3_length(v)));
	return 2.0 * atan2(s, q.w);
}

typedef struct twist_expect {
	const char *joint, *bone;        /* the twist joint and the mapped bone it is measured against */
	const char *axis_from, *axis_to; /* its axis: axis_from -> axis_to in the pose */
	double degrees;                  /* expected angle of Wj Wb^-1 about that axis at t = 1 */
} twist_expect;

/* Hand-derived from make_twist_rig.py's POSE (see the file comment), default
 * shares i / (n + 1):
 *  - leaf joints of upperArm / upperLeg carry f of the bone's twist
 *    relative to its parent, so relative to the bone -(1 - f) theta:
 *    LeftArm twists 60 about +X: upperarm_twist_01_l (1/3) -40,
 *    upperarm_twist_02_l (2/3) -20; LeftUpLeg twists 30 about +Y, i.e. -30
 *    about the leg axis -Y: thigh_twist_01_l (1/2) +15 about -Y;
 *  - leaf joints of lowerArm / lowerLeg carry f of the child's twist:
 *    LeftHand 90 about +X: lowerarm_twist_01_l (1/2) 45; LeftFoot 40 about
 *    +Y = -40 about -Y: calf_twist_01_l (1/2) -20 about -Y;
 *  - in-chain joints carry f of the child's twist, cumulatively relative to
 *    the bone: RightForeArm Rx(-24) = 24 about the right upper arm's axis
 *    -X: upperarm_twist_01_r (1/2) 12; RightHand twist Rx(-90) = 90 about
 *    -X: lowerarm_twist_01_r (1/3) 30, lowerarm_twist_02_r (2/3) 60. */
static const twist_expect k_expect[] = {
	{ "upperarm_twist_01_l", "upperarm_l", "upperarm_l", "lowerarm_l", -40.0 },
	{ "upperarm_twist_02_l", "upperarm_l", "upperarm_l", "lowerarm_l", -20.0 },
	{ "lowerarm_twist_01_l", "lowerarm_l", "lowerarm_l", "hand_l", 45.0 },
	{ "thigh_twist_01_l", "thigh_l", "thigh_l", "calf_l", 15.0 },
	{ "calf_twist_01_l", "calf_l", "calf_l", "foot_l", -20.0 },
	{ "upperarm_twist_01_r", "upperarm_r", "upperarm_twist_01_r", "lowerarm_r", 12.0 },
	{ "lowerarm_twist_01_r", "lowerarm_r", "lowerarm_twist_01_r", "lowerarm_twist_02_r", 30.0 },
	{ "lowerarm_twist_02_r", "lowerarm_r", "lowerarm_twist_02_r", "hand_r", 60.0 },
};
#define EXPECT_COUNT (sizeof(k_expect) / sizeof(k_expect[0]))

static const char *const k_mapped[] = { "pelvis", "spine_01", "spine_02", "spine_03", "neck_01", "head", "clavicle_l",
	"upperarm_l", "lowerarm_l", "hand_l", "clavicle_r", "upperarm_r", "lowerarm_r", "hand_r", "thigh_l", "calf_l",
	"foot_l", "ball_l", "thigh_r", "calf_r", "foot_r", "ball_r" };
#define MAPPED_COUNT (sizeof(k_mapped) / sizeof(k_mapped[0]))

RK_TEST(humanoid_finds_the_twist_joints)
{
	rk_scene *s = load("twist_rig.glb");
	RK_REQUIRE(s);
	rk_humanoid h;
	rk_error err;
	RK_REQUIRE(rk_humanoid_detect(s, &h, &err));
	rk_humanoid_twists tw;
	RK_CHECK_INT(rk_humanoid_find_twists(s, &h, &tw), 8);
	RK_CHECK_INT(tw.ignored, 0);
	/* left upper arm: two leaf joints, ordered along the arm */
	const rk_humanoid_twist_segment *g = &tw.segments[0];
	RK_CHECK_INT(g->bone, RK_HUMANOID_LEFT_UPPER_ARM);
	RK_REQUIRE(g->count == 2);
	RK_CHECK_STR(g->joints[0]->name, "upperarm_twist_01_l");
	RK_CHECK_STR(g->joints[1]->name, "upperarm_twist_02_l");
	RK_CHECK(!g->in_chain[0] && !g->in_chain[1]);
	/* right lower arm: two in-chain joints */
	g = &tw.segments[3];
	RK_CHECK_INT(g->bone, RK_HUMANOID_RIGHT_LOWER_ARM);
	RK_REQUIRE(g->count == 2);
	RK_CHECK_STR(g->joints[0]->name, "lowerarm_twist_01_r");
	RK_CHECK_STR(g->joints[1]->name, "lowerarm_twist_02_r");
	RK_CHECK(g->in_chain[0] && g->in_chain[1]);
	RK_CHECK_INT(tw.segments[2].count, 1);   /* upperarm_twist_01_r, in chain */
	RK_CHECK(tw.segments[2].in_chain[0]);
	RK_CHECK_INT(tw.segments[6].count, 0);   /* right leg: none */
	RK_CHECK_INT(tw.segments[7].count, 0);
	/* a rig without twist joints has none (the source) */
	rk_scene *src = load("twist_source.glb");
	RK_REQUIRE(src);
	rk_humanoid hs;
	RK_REQUIRE(rk_humanoid_detect(src, &hs, &err));
	RK_CHECK_INT(rk_humanoid_find_twists(src, &hs, &tw), 0);
	RK_CHECK_INT(rk_humanoid_find_twists(NULL, &hs, &tw), 0);
	RK_CHECK_INT(tw.segments[1].bone, RK_HUMANOID_LEFT_LOWER_ARM);
	rk_scene_free(src);
	rk_scene_free(s);
}

/* The naming rule on a hand-written glTF (nodes only): leaf joints named
 * twist / Roll / _roll, a helper that is none, in-chain joints of any name,
 * a chain with more in-chain joints than the cap. */
RK_TEST(twist_joint_names_and_limits)
{
	static const char gltf[] =
		"{\"asset\":{\"version\":\"2.0\"},\"scene\":0,\"scenes\":[{\"nodes\":[0]}],\"nodes\":["
		"{\"name\":\"Hips\",\"translation\":[0,1,0],\"children\":[1,4,20]},"                /* 0 */
		"{\"name\":\"Spine\",\"translation\":[0,0.2,0],\"children\":[2,5,12]},"             /* 1 */
		"{\"name\":\"Neck\",\"translation\":[0,0.3,0],\"children\":[3]},"                   /* 2 */
		"{\"name\":\"Head\",\"translation\":[0,0.1,0]},"                                      /* 3 */
		"{\"name\":\"LeftUpLeg\",\"translation\":[0.1,0,0],\"children\":[18]},"             /* 4 */
		"{\"name\":\"LeftShoulder\",\"translation\":[0.05,0.25,0],\"children\":[6]},"       /* 5 */
		"{\"name\":\"LeftArm\",\"translation\":[0.1,0,0],\"children\":[7,8]},"              /* 6 */
		"{\"name\":\"LeftArmTwist\",\"translation\":[0.1,0,0]},"                              /* 7 */
		"{\"name\":\"LeftForeArm\",\"translation\":[0.25,0,0],\"children\":[9,10,11]},"     /* 8 */
		"{\"name\":\"LeftForeArmRoll\",\"translation\":[0.1,0,0]},"                           /* 9 */
		"{\"name\":\"Controller\",\"translation\":[0.1,0,0]},"                                /* 10 */
		"{\"name\":\"LeftHand\",\"translation\":[0.25,0,0]},"                                 /* 11 */
		"{\"name\":\"RightShoulder\",\"translation\":[-0.05,0.25,0],\"children\":[13]},"    /* 12 */
		"{\"name\":\"RightArm\",\"translation\":[-0.1,0,0],\"children\":[14,15]},"          /* 13 */
		"{\"name\":\"RightArm_roll\",\"translation\":[-0.1,0,0]},"                            /* 14 */
		"{\"name\":\"RightForeArm\",\"translation\":[-0.25,0,0],\"children\":[16]},"        /* 15 */
		"{\"name\":\"Bend\",\"translation\":[-0.12,0,0],\"children\":[17]},"                /* 16 */
		"{\"name\":\"RightHand\",\"translation\":[-0.13,0,0]},"                               /* 17 */
		"{\"name\":\"LeftLeg\",\"translation\":[0,-0.45,0],\"children\":[19]},"             /* 18 */
		"{\"name\":\"LeftFoot\",\"translation\":[0,-0.45,0]},"                                /* 19 */
		"{\"name\":\"RightUpLeg\",\"translation\":[-0.1,0,0],\"children\":[21]},"           /* 20 */
		"{\"name\":\"a1\",\"translation\":[0,-0.05,0],\"children\":[22]},"                  /* 21 */
		"{\"name\":\"a2\",\"translation\":[0,-0.05,0],\"children\":[23]},"
		"{\"name\":\"a3\",\"translation\":[0,-0.05,0],\"children\":[24]},"
		"{\"name\":\"a4\",\"translation\":[0,-0.05,0],\"children\":[25]},"
		"{\"name\":\"a5\",\"translation\":[0,-0.05,0],\"children\":[26]},"                  /* 25 */
		"{\"name\":\"RightLeg\",\"translation\":[0,-0.2,0],\"children\":[27]},"             /* 26 */
		"{\"name\":\"RightFoot\",\"translation\":[0,-0.45,0]}"                                /* 27 */
		"]}";
	rk_load_opts lo;
	memset(&lo, 0, sizeof(lo));
	lo.filename = "names.gltf";
	rk_error err;
	rk_scene *s = rk_load_memory(gltf, sizeof(gltf) - 1, &lo, &err);
	if (!s) fprintf(stderr, "%s\n", err.message);
	RK_REQUIRE(s);
	rk_humanoid h;
	RK_REQUIRE(rk_humanoid_detect(s, &h, &err));
	RK_CHECK_STR(h.bones[RK_HUMANOID_RIGHT_LOWER_ARM]->name, "RightForeArm");
	rk_humanoid_twists tw;
	RK_CHECK_INT(rk_humanoid_find_twists(s, &h, &tw), 4);
	RK_CHECK_INT(tw.ignored, 5);                       /* a1..a5: over the cap of 4 in chain */
	RK_REQUIRE(tw.segments[0].count == 1);
	RK_CHECK_STR(tw.segments[0].joints[0]->name, "LeftArmTwist");
	RK_REQUIRE(tw.segments[1].count == 1);             /* "Controller" is no twist joint */
	RK_CHECK_STR(tw.segments[1].joints[0]->name, "LeftForeArmRoll");
	RK_REQUIRE(tw.segments[2].count == 1);
	RK_CHECK_STR(tw.segments[2].joints[0]->name, "RightArm_roll");
	RK_REQUIRE(tw.segments[3].count == 1);             /* in chain, any name */
	RK_CHECK_STR(tw.segments[3].joints[0]->name, "Bend");
	RK_CHECK(tw.segments[3].in_chain[0]);
	RK_CHECK_INT(tw.segments[6].count, 0);
	rk_scene_free(s);
}

static void check_twists(rk_test_state *rk_t_, const rk_scene *s, const rk_anim_clip *clip, const char *override,
	double override_deg, double scale)
{
	posed p = { 0 }, rest = { 0 };
	RK_REQUIRE(posed_eval(&p, s, clip, clip->time_begin + 1.0) && posed_eval(&rest, s, NULL, 0.0));
	double worst = 0.0, worst_off = 0.0;
	for (size_t e = 0; e < EXPECT_COUNT; e++) {
		const twist_expect *x = &k_expect[e];
		double off = 0.0;
		rk_vec3 axis = rk_vec3_sub(pos_of(&p, s, x->axis_to), pos_of(&p, s, x->axis_from));
		/* each node's turn from its rest (the rests are the identity on
		 * twist_rig.glb, rolled on twist_rig_rolled.glb) */
		rk_quat tj = rk_quat_mul(rot_of(&p, s, x->joint), rk_quat_conjugate(rot_of(&rest, s, x->joint)));
		rk_quat tb = rk_quat_mul(rot_of(&p, s, x->bone), rk_quat_conjugate(rot_of(&rest, s, x->bone)));
		double ang = twist_about(tj, tb, axis, &off);
		double want = (override && !strcmp(x->joint, override) ? override_deg : x->degrees) * scale;
		if (fabs(ang / DEG - want) > 1e-4) fprintf(stderr, "%s: %.6f deg, expected %.6f\n", x->joint, ang / DEG, want);
		RK_CHECK_NEAR(ang / DEG, want, 1e-4);   /* float keys in the GLB */
		RK_CHECK(off < 1e-5);                   /* a pure twist about the bone */
		worst = fmax(worst, fabs(ang / DEG - want));
		worst_off = fmax(worst_off, off);
	}
	fprintf(stderr, "measured: %zu twist joints, worst %.2g deg off the expected angle, swing %.2g rad\n", EXPECT_COUNT,
		worst, worst_off);
	free(p.mem);
	free(rest.mem);
}

RK_TEST(twist_is_spread_by_the_documented_shares)
{
	rk_retarget_report rep;
	const rk_anim_clip *clip;
	rk_scene *s = retargeted("twist_rig.glb", NULL, &rep, &clip);
	RK_REQUIRE(s && clip);
	RK_CHECK_INT(rep.twist_tracks, 8);
	RK_CHECK_INT(rep.tracks, 22 + 1 + 8);
	check_twists(rk_t_, s, clip, NULL, 0.0, 1.0);
	/* at rest (t = 0) nothing is twisted */
	posed p = { 0 };
	RK_REQUIRE(posed_eval(&p, s, clip, clip->time_begin));
	double off;
	RK_CHECK_NEAR(twist_about(rot_of(&p, s, "lowerarm_twist_01_l"), rot_of(&p, s, "lowerarm_l"), (rk_vec3){ 1, 0, 0 },
		&off), 0.0, 1e-6);
	/* halfway (LINEAR keys of the source: slerp): the hand is twisted by the
	 * slerp's angle; the joint takes half of that, measured against the
	 * hand's own twist */
	RK_REQUIRE(posed_eval(&p, s, clip, clip->time_begin + 0.5));
	rk_vec3 fa = rk_vec3_sub(pos_of(&p, s, "hand_l"), pos_of(&p, s, "lowerarm_l"));
	double hand = twist_about(rot_of(&p, s, "hand_l"), rot_of(&p, s, "lowerarm_l"), fa, &off);
	double joint = twist_about(rot_of(&p, s, "lowerarm_twist_01_l"), rot_of(&p, s, "lowerarm_l"), fa, &off);
	RK_CHECK(hand > 30 * DEG);
	RK_CHECK_NEAR(joint, 0.5 * hand, 1e-5);
	free(p.mem);
	rk_scene_free(s);
}

/* The same expectations on a rig whose joints rest turned every which way
 * (same positions): the shares are about each bone's axis, whatever its
 * local axes. */
RK_TEST(twist_on_a_rig_with_rolled_rests)
{
	rk_retarget_report rep;
	const rk_anim_clip *clip;
	rk_scene *s = retargeted("twist_rig_rolled.glb", NULL, &rep, &clip);
	RK_REQUIRE(s && clip);
	RK_CHECK_INT(rep.twist_tracks, 8);
	RK_CHECK(rep.max_direction_error < 1e-6);
	check_twists(rk_t_, s, clip, NULL, 0.0, 1.0);
	rk_scene_free(s);
}

RK_TEST(twist_weights_set_the_shares)
{
	rk_twist_weight w[] = { { "lowerarm_twist_01_l", 0.8 }, { "not_a_twist_joint", 0.5 } };
	rk_retarget_opts o;
	memset(&o, 0, sizeof(o));
	o.twist_weights = w;
	o.twist_weight_count = 2;
	const rk_anim_clip *clip;
	rk_retarget_report rep;
	rk_scene *s = retargeted("twist_rig.glb", &o, &rep, &clip);
	RK_REQUIRE(s && clip);
	check_twists(rk_t_, s, clip, "lowerarm_twist_01_l", 72.0, 1.0);   /* 0.8 x 90 */
	rk_scene_free(s);
	/* a share outside 0..1 is refused, nothing is added */
	rk_scene *src = load("twist_source.glb"), *dst = load("twist_rig.glb");
	RK_REQUIRE(src && dst);
	w[0].share = 1.5;
	rk_error err;
	size_t clips = dst->clips.count;
	RK_CHECK(!rk_retarget(dst, src, rk_scene_find_clip(src, "Twist"), &o, NULL, &err));
	RK_CHECK_INT(err.code, RK_ERROR_INVALID_ARGUMENT);
	RK_CHECK(strstr(err.message, "lowerarm_twist_01_l") != NULL);
	RK_CHECK_INT(dst->clips.count, clips);
	o.twist_weights = NULL;
	RK_CHECK(!rk_retarget(dst, src, rk_scene_find_clip(src, "Twist"), &o, NULL, &err));
	o.twist_weight_count = 0;
	o.twist = (rk_retarget_twist)7;
	RK_CHECK(!rk_retarget(dst, src, rk_scene_find_clip(src, "Twist"), &o, NULL, &err));
	RK_CHECK_INT(dst->clips.count, clips);
	rk_scene_free(src);
	rk_scene_free(dst);
}

/* Every mapped joint's world position and rotation with and without twist
 * distribution, at every key; the twist joints of --twist off stay at rest
 * relative to their parents. */
RK_TEST(twist_moves_no_bone)
{
	rk_retarget_opts off;
	memset(&off, 0, sizeof(off));
	off.twist = RK_RETARGET_TWIST_OFF;
	const rk_anim_clip *c_on, *c_off;
	rk_retarget_report r_on, r_off;
	rk_scene *on = retargeted("twist_rig.glb", NULL, &r_on, &c_on);
	rk_scene *none = retargeted("twist_rig.glb", &off, &r_off, &c_off);
	RK_REQUIRE(on && none && c_on && c_off);
	RK_CHECK_INT(r_off.twist_tracks, 0);
	RK_CHECK_INT(r_off.tracks, 22 + 1);
	RK_CHECK(r_on.max_direction_error < 1e-6);
	posed pa = { 0 }, pb = { 0 };
	double worst_pos = 0.0, worst_rot = 0.0, worst_rest = 0.0;
	for (int k = 0; k <= 30; k++) {
		double t = k / 30.0;
		RK_REQUIRE(posed_eval(&pa, on, c_on, c_on->time_begin + t) && posed_eval(&pb, none, c_off, c_off->time_begin + t));
		for (size_t i = 0; i < MAPPED_COUNT; i++) {
			double d = rk_vec3_length(rk_vec3_sub(pos_of(&pa, on, k_mapped[i]), pos_of(&pb, none, k_mapped[i])));
			double a = rk_quat_angle_between(rot_of(&pa, on, k_mapped[i]), rot_of(&pb, none, k_mapped[i]));
			if (d > worst_pos) worst_pos = d;
			if (a > worst_rot) worst_rot = a;
		}
		for (size_t e = 0; e < EXPECT_COUNT; e++) {
			const rk_node *n = rk_scene_find_node(none, k_expect[e].joint);
			RK_REQUIRE(n && n->parent);
			double a = rk_quat_angle_between(rot_of(&pb, none, k_expect[e].joint), rot_of(&pb, none, n->parent->name));
			if (a > worst_rest) worst_rest = a;
		}
	}
	fprintf(stderr, "measured: mapped joints with / without twist: %.2g m, %.2g rad; --twist off joints %.2g rad\n",
		worst_pos, worst_rot, worst_rest);
	RK_CHECK(worst_pos < 1e-6 * 0.9);   /* hips height 0.9 m */
	RK_CHECK(worst_rot < 1e-6);
	RK_CHECK(worst_rest < 1e-6);        /* identity rest locals */
	free(pa.mem);
	free(pb.mem);
	rk_scene_free(on);
	rk_scene_free(none);
}

/* ---- root motion ----------------------------------------------------------- */

/* Hand-derived from make_twist_rig.py: the source's hips move by HIPS_MOVE
 * (0.33, 0.044, 0.66) with hips height 0.99, the target's hips height is
 * 0.9, so at 1 s the hips are displaced (0.3, 0.04, 0.6); the hips' world
 * rotation is Ry(40) Rx(10), whose yaw (twist about +Y) is 40 degrees. */
RK_TEST(root_extract_moves_travel_and_yaw_onto_the_root)
{
	rk_retarget_opts ox;
	memset(&ox, 0, sizeof(ox));
	ox.root = RK_RETARGET_ROOT_EXTRACT;
	const rk_anim_clip *ck, *cx;
	rk_retarget_report rk, rx;
	rk_scene *keep = retargeted("twist_rig.glb", NULL, &rk, &ck);
	rk_scene *ext = retargeted("twist_rig.glb", &ox, &rx, &cx);
	RK_REQUIRE(keep && ext && ck && cx);
	RK_REQUIRE(rx.root_node);
	RK_CHECK_STR(rx.root_node->name, "root");
	RK_CHECK_INT(rx.tracks, rk.tracks + 2);
	RK_CHECK_NEAR(rx.root_travel, sqrt(0.3 * 0.3 + 0.6 * 0.6) / 0.9, 1e-6);   /* float keys */
	RK_CHECK(!rk.root_node);
	posed pk = { 0 }, px = { 0 };
	double worst_hips = 0.0, worst_joint = 0.0, worst_vertical = 0.0, worst_tilt = 0.0;
	for (int k = 0; k <= 30; k++) {
		double t = k / 30.0;
		RK_REQUIRE(posed_eval(&pk, keep, ck, ck->time_begin + t) && posed_eval(&px, ext, cx, cx->time_begin + t));
		worst_hips = fmax(worst_hips, rk_vec3_length(rk_vec3_sub(pos_of(&pk, keep, "pelvis"), pos_of(&px, ext, "pelvis"))));
		worst_hips = fmax(worst_hips, rk_quat_angle_between(rot_of(&pk, keep, "pelvis"), rot_of(&px, ext, "pelvis")));
		for (size_t i = 0; i < MAPPED_COUNT; i++)
			worst_joint = fmax(worst_joint,
				rk_vec3_length(rk_vec3_sub(pos_of(&pk, keep, k_mapped[i]), pos_of(&px, ext, k_mapped[i]))));
		rk_vec3 root = pos_of(&px, ext, "root");
		worst_vertical = fmax(worst_vertical, fabs(root.y));
		rk_quat q = rot_of(&px, ext, "root");   /* rest: identity */
		if (q.w < 0) q = (rk_quat){ -q.x, -q.y, -q.z, -q.w };
		worst_tilt = fmax(worst_tilt, 2.0 * asin(fmin(1.0, sqrt(q.x * q.x + q.z * q.z))));
		/* the root carries the hips' horizontal travel */
		rk_vec3 hips = pos_of(&pk, keep, "pelvis");
		RK_CHECK_NEAR(root.x, hips.x, 1e-6);
		RK_CHECK_NEAR(root.z, hips.z, 1e-6);
	}
	fprintf(stderr, "measured: extract vs keep: hips %.2g, joints %.2g; root vertical %.2g m, tilt %.2g rad\n", worst_hips,
		worst_joint, worst_vertical, worst_tilt);
	RK_CHECK(worst_hips < 1e-6);
	RK_CHECK(worst_joint < 1e-6);
	RK_CHECK(worst_vertical < 1e-9);
	RK_CHECK(worst_tilt < 1e-6);
	/* at 1 s: travel (0.3, 0, 0.6), yaw 40 degrees; the hips keep their
	 * height and pitch relative to the root */
	RK_REQUIRE(posed_eval(&px, ext, cx, cx->time_begin + 1.0));
	rk_vec3 root = pos_of(&px, ext, "root");
	RK_CHECK_NEAR(root.x, 0.3, 1e-6);
	RK_CHECK_NEAR(root.y, 0.0, 1e-9);
	RK_CHECK_NEAR(root.z, 0.6, 1e-6);
	rk_quat q = rot_of(&px, ext, "root");
	double off;
	RK_CHECK_NEAR(twist_about(q, RK_QUAT_IDENTITY, (rk_vec3){ 0, 1, 0 }, &off) / DEG, 40.0, 1e-4);
	rk_quat local = rk_quat_mul(rk_quat_conjugate(q), rot_of(&px, ext, "pelvis"));
	RK_CHECK_NEAR(rk_quat_angle_between(local, rk_quat_axis_angle((rk_vec3){ 1, 0, 0 }, 10 * DEG)), 0.0, 1e-5);
	rk_vec3 rel = rk_vec3_sub(pos_of(&px, ext, "pelvis"), root);
	RK_CHECK_NEAR(rel.y, 0.94, 1e-6);
	RK_CHECK_NEAR(hypot(rel.x, rel.z), 0.0, 1e-6);
	free(pk.mem);
	free(px.mem);
	rk_scene_free(keep);
	rk_scene_free(ext);
}

RK_TEST(root_extract_needs_a_node_above_the_hips)
{
	rk_scene *src = load("twist_source.glb"), *dst = load("twist_rig_noroot.glb");
	RK_REQUIRE(src && dst);
	rk_retarget_opts o;
	memset(&o, 0, sizeof(o));
	o.root = RK_RETARGET_ROOT_EXTRACT;
	rk_error err;
	RK_CHECK(!rk_retarget(dst, src, rk_scene_find_clip(src, "Twist"), &o, NULL, &err));
	RK_CHECK_INT(err.code, RK_ERROR_INVALID_ARGUMENT);
	RK_CHECK(strstr(err.message, "pelvis") != NULL);
	RK_CHECK_INT(dst->clips.count, 0);
	rk_scene_free(src);
	rk_scene_free(dst);
}

/* rk_scene_insert_parent: a "root" above the pelvis of twist_rig_noroot.glb
 * makes it twist_rig.glb: same node order, names, parents, world matrices
 * and skin joints; then --root extract works on it. */
RK_TEST(insert_parent_gives_the_rig_a_root)
{
	rk_scene *a = load("twist_rig_noroot.glb"), *b = load("twist_rig.glb");
	RK_REQUIRE(a && b);
	rk_error err;
	size_t before = a->nodes.count;
	const rk_node *old_pelvis = rk_scene_find_node(a, "pelvis");
	RK_REQUIRE(old_pelvis);
	RK_CHECK(!rk_scene_insert_parent(a, a->root, "x", &err));            /* not the synthetic root */
	RK_CHECK(!rk_scene_insert_parent(a, old_pelvis, NULL, &err));
	RK_CHECK(!rk_scene_insert_parent(a, &b->nodes.data[1], "x", &err));  /* another scene's node */
	RK_CHECK_INT(a->nodes.count, before);
	rk_node *root = rk_scene_insert_parent(a, old_pelvis, "root", &err);
	RK_REQUIRE(root);
	RK_CHECK_INT(a->nodes.count, before + 1);
	RK_REQUIRE(a->nodes.count == b->nodes.count);
	RK_CHECK(a->root == &a->nodes.data[0]);
	for (size_t i = 0; i < a->nodes.count; i++) {
		const rk_node *x = &a->nodes.data[i], *y = &b->nodes.data[i];
		RK_CHECK_INT(x->index, i);
		RK_CHECK_STR(x->name ? x->name : "", y->name ? y->name : "");
		RK_CHECK_INT(x->depth, y->depth);
		if (i == 0) continue;
		RK_CHECK(x->parent >= a->nodes.data && x->parent < a->nodes.data + a->nodes.count);
		RK_CHECK_INT(x->parent->index, y->parent->index);
		RK_CHECK_INT(x->children.count, y->children.count);
		for (size_t c = 0; c < x->children.count && c < y->children.count; c++)
			RK_CHECK_INT(x->children.data[c]->index, y->children.data[c]->index);
		for (int k = 0; k < 16; k++) RK_CHECK_NEAR(x->node_to_world.m[k], y->node_to_world.m[k], 1e-12);
	}
	RK_REQUIRE(a->skins.count == 1);
	for (size_t j = 0; j < a->skins.data[0].joint_count; j++) {
		const rk_node *n = a->skins.data[0].joints[j].node;
		RK_CHECK(n >= a->nodes.data && n < a->nodes.data + a->nodes.count);
	}
	/* the scene writes and reads back, and root motion goes onto the new node */
	rk_scene *src = load("twist_source.glb");
	RK_REQUIRE(src);
	rk_retarget_opts o;
	memset(&o, 0, sizeof(o));
	o.root = RK_RETARGET_ROOT_EXTRACT;
	rk_retarget_report rep;
	RK_REQUIRE(rk_retarget(a, src, rk_scene_find_clip(src, "Twist"), &o, &rep, &err));
	RK_CHECK(rep.root_node == root);
	rk_scene *back = round_trip(a);
	RK_REQUIRE(back);
	RK_CHECK_INT(back->nodes.count, before + 1);
	posed p = { 0 };
	const rk_anim_clip *c = rk_scene_find_clip(back, "Twist");
	RK_REQUIRE(c && posed_eval(&p, back, c, c->time_begin + 1.0));
	rk_vec3 r = pos_of(&p, back, "root");
	RK_CHECK_NEAR(r.x, 0.3, 1e-6);
	RK_CHECK_NEAR(r.y, 0.0, 1e-9);
	RK_CHECK_NEAR(r.z, 0.6, 1e-6);
	free(p.mem);
	rk_scene_free(back);
	rk_scene_free(src);
	rk_scene_free(a);
	rk_scene_free(b);
}

/* A VRM keeps its declared humanoid and extension references through the
 * insertion (they point into the new node array). */
RK_TEST(insert_parent_keeps_declared_humanoid_and_extensions)
{
	rk_scene *s = load("vroid_vrm1.vrm");
	RK_REQUIRE(s);
	rk_humanoid h;
	rk_error err;
	RK_REQUIRE(rk_humanoid_detect(s, &h, &err));
	const char *hips_name = h.bones[RK_HUMANOID_HIPS]->name;
	RK_REQUIRE(rk_scene_insert_parent(s, h.bones[RK_HUMANOID_HIPS], "root", &err));
	for (size_t i = 0; i < s->hints.count; i++) {
		const rk_node *n = s->hints.data[i].node;
		RK_CHECK(!n || (n >= s->nodes.data && n < s->nodes.data + s->nodes.count));
	}
	for (size_t e = 0; e < s->extensions.count; e++) {
		const rk_node *n = s->extensions.data[e].node;
		RK_CHECK(!n || (n >= s->nodes.data && n < s->nodes.data + s->nodes.count));
	}
	rk_humanoid h2;
	rk_humanoid_explanation why;
	RK_REQUIRE(rk_humanoid_detect_explained(s, &h2, &why, &err));
	RK_CHECK_INT(why.reason[RK_HUMANOID_HIPS], RK_HUMANOID_REASON_DECLARED);
	RK_CHECK_STR(h2.bones[RK_HUMANOID_HIPS]->name, hips_name);
	RK_CHECK_STR(h2.bones[RK_HUMANOID_HIPS]->parent->name, "root");
	rk_scene *back = round_trip(s);
	RK_REQUIRE(back);
	RK_CHECK(rk_humanoid_detect_explained(back, &h2, &why, &err));
	RK_CHECK_INT(why.reason[RK_HUMANOID_HIPS], RK_HUMANOID_REASON_DECLARED);
	RK_CHECK_STR(h2.bones[RK_HUMANOID_HIPS]->name, hips_name);
	rk_scene_free(back);
	rk_scene_free(s);
}

/* --root lock holds the hips at the rest the retarget is taken in: on
 * humanoid_crouch.glb (stored crouched, hips 0.35 m low; bind pose hips at
 * y = 1.0, make_bind_pose.py) that is the bind pose, not the stored one. */
RK_TEST(root_lock_holds_the_hips_at_the_bind_pose)
{
	rk_scene *src = load("twist_source.glb"), *dst = load("humanoid_crouch.glb");
	RK_REQUIRE(src && dst);
	rk_retarget_opts o;
	memset(&o, 0, sizeof(o));
	o.root = RK_RETARGET_ROOT_LOCK;
	rk_error err;
	rk_retarget_report rep;
	rk_anim_clip *c = rk_retarget(dst, src, rk_scene_find_clip(src, "Twist"), &o, &rep, &err);
	RK_REQUIRE(c);
	RK_CHECK_INT(rep.target_rest, RK_REST_BIND);
	posed p = { 0 };
	for (int k = 0; k <= 10; k++) {
		RK_REQUIRE(posed_eval(&p, dst, c, c->time_begin + k / 10.0));
		rk_vec3 h = pos_of(&p, dst, "Hips");
		RK_CHECK_NEAR(h.x, 0.0, 1e-9);
		RK_CHECK_NEAR(h.y, 1.0, 1e-9);
		RK_CHECK_NEAR(h.z, 0.0, 1e-9);
	}
	free(p.mem);
	rk_scene_free(src);
	rk_scene_free(dst);
}

RK_TEST_MAIN(
	RK_TEST_ENTRY(humanoid_finds_the_twist_joints),
	RK_TEST_ENTRY(twist_joint_names_and_limits),
	RK_TEST_ENTRY(twist_is_spread_by_the_documented_shares),
	RK_TEST_ENTRY(twist_on_a_rig_with_rolled_rests),
	RK_TEST_ENTRY(twist_weights_set_the_shares),
	RK_TEST_ENTRY(twist_moves_no_bone),
	RK_TEST_ENTRY(root_extract_moves_travel_and_yaw_onto_the_root),
	RK_TEST_ENTRY(root_extract_needs_a_node_above_the_hips),
	RK_TEST_ENTRY(insert_parent_gives_the_rig_a_root),
	RK_TEST_ENTRY(insert_parent_keeps_declared_humanoid_and_extensions),
	RK_TEST_ENTRY(root_lock_holds_the_hips_at_the_bind_pose)
)
