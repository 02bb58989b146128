/* src/formats/demo/demo_rig.c - the sample skeleton: joint names, hierarchy, rest
 * positions of both body plans and their bone rolls (see rigkit/demo.h). */
#include "demo_internal.h"

#include <math.h>

static const char *const rki_sample_names[RKI_SJ_COUNT] = {
	"Hips", "Spine", "Spine1", "Spine2", "Neck", "Head", "HeadTop_End", "LeftEye", "RightEye",
	"LeftShoulder", "LeftArm", "LeftForeArm", "LeftHand",
	"LeftHandThumb1", "LeftHandThumb2", "LeftHandThumb3", "LeftHandThumb4",
	"LeftHandIndex1", "LeftHandIndex2", "LeftHandIndex3", "LeftHandIndex4",
	"LeftHandMiddle1", "LeftHandMiddle2", "LeftHandMiddle3", "LeftHandMiddle4",
	"LeftHandRing1", "LeftHandRing2", "LeftHandRing3", "LeftHandRing4",
	"LeftHandPinky1", "LeftHandPinky2", "LeftHandPinky3", "LeftHandPinky4",
	"RightShoulder", "RightArm", "RightForeArm", "RightHand",
	"RightHandThumb1", "RightHandThumb2", "RightHandThumb3", "RightHandThumb4",
	"RightHandIndex1", "RightHandIndex2", "RightHandIndex3", "RightHandIndex4",
	"RightHandMiddle1", "RightHandMiddle2", "RightHandMiddle3", "RightHandMiddle4",
	"RightHandRing1", "RightHandRing2", "RightHandRing3", "RightHandRing4",
	"RightHandPinky1", "RightHandPinky2", "RightHandPinky3", "RightHandPinky4",
	"LeftUpLeg", "LeftLeg", "LeftFoot", "LeftToeBase", "LeftToe_End",
	"RightUpLeg", "RightLeg", "RightFoot", "RightToeBase", "RightToe_End",
};

const char *rki_sample_joint_name(uint32_t joint)
{
	return joint < RKI_SJ_COUNT ? rki_sample_names[joint] : "";
}

/* Parent within an arm block (offsets), -1 = the block's outside parent. */
static int rki_sample_arm_parent(uint32_t k)
{
	if (k == RKI_ARM_SHOULDER) return -1;
	if (k <= RKI_ARM_HAND) return (int)k - 1;
	uint32_t f = (k - RKI_ARM_FINGER) % 4u;
	return f == 0 ? RKI_ARM_HAND : (int)k - 1;
}

uint32_t rki_sample_joint_parent(uint32_t j)
{
	switch (j) {
	case RKI_SJ_HIPS: return RKI_SAMPLE_NO_PARENT;
	case RKI_SJ_HEAD_TOP:
	case RKI_SJ_LEFT_EYE:
	case RKI_SJ_RIGHT_EYE: return RKI_SJ_HEAD;
	default: break;
	}
	if (j < RKI_SJ_ARM_L) return j - 1; /* Spine .. Head */
	if (j < RKI_SJ_LEG_L) {
		uint32_t base = j < RKI_SJ_ARM_R ? RKI_SJ_ARM_L : RKI_SJ_ARM_R;
		int p = rki_sample_arm_parent(j - base);
		return p < 0 ? RKI_SJ_SPINE2 : base + (uint32_t)p;
	}
	if (j < RKI_SJ_COUNT) {
		uint32_t base = j < RKI_SJ_LEG_R ? RKI_SJ_LEG_L : RKI_SJ_LEG_R;
		return j == base ? RKI_SJ_HIPS : j - 1;
	}
	return RKI_SAMPLE_NO_PARENT;
}

uint32_t rki_sample_mirror_joint(uint32_t j)
{
	if (j >= RKI_SJ_ARM_L && j < RKI_SJ_ARM_R) return j + RKI_ARM_BLOCK;
	if (j >= RKI_SJ_LEG_L && j < RKI_SJ_LEG_R) return j + RKI_LEG_BLOCK;
	if (j == RKI_SJ_LEFT_EYE) return RKI_SJ_RIGHT_EYE;
	return j;
}

rk_quat rki_sample_frame(rk_vec3 y_axis, rk_vec3 z_hint)
{
	rk_vec3 y = rk_vec3_normalize(y_axis);
	rk_vec3 z = rk_vec3_normalize(rk_vec3_sub(z_hint, rk_vec3_scale(y, rk_vec3_dot(z_hint, y))));
	rk_vec3 x = rk_vec3_cross(y, z);
	rk_mat4 m = rk_mat4_identity();
	m.m[0] = x.x; m.m[1] = x.y; m.m[2] = x.z;
	m.m[4] = y.x; m.m[5] = y.y; m.m[6] = y.z;
	m.m[8] = z.x; m.m[9] = z.y; m.m[10] = z.z;
	return rk_quat_normalize(rk_mat4_decompose(m).rotation);
}

/* ---- body plans --------------------------------------------------------------- */

/* One side of a body plan (left side; the right side is its mirror image). */
typedef struct rki_body_plan {
	rk_vec3 spine[9];        /* Hips, Spine, Spine1, Spine2, Neck, Head, HeadTop_End, LeftEye, (unused) */
	rk_vec3 shoulder, arm;
	double upper_arm, forearm;
	double arm_down_deg;     /* 0 = T-pose (along +X), 45 = A-pose */
	double hand_scale;
	rk_vec3 leg[5];          /* UpLeg, Leg, Foot, ToeBase, Toe_End */
} rki_body_plan;

/* Mixamo-like proportions (Y Bot): about 1.79 m, T-pose. */
static const rki_body_plan rki_plan_source = {
	.spine = {
		{ 0.0, 1.000, 0.000 }, { 0.0, 1.099, -0.012 }, { 0.0, 1.216, -0.026 }, { 0.0, 1.350, -0.040 },
		{ 0.0, 1.500, -0.032 }, { 0.0, 1.603, -0.002 }, { 0.0, 1.790, 0.030 }, { 0.030, 1.680, 0.088 }, { 0, 0, 0 },
	},
	.shoulder = { 0.060, 1.440, -0.030 },
	.arm = { 0.185, 1.440, -0.045 },
	.upper_arm = 0.274,
	.forearm = 0.276,
	.arm_down_deg = 0.0,
	.hand_scale = 1.0,
	.leg = { { 0.091, 0.933, 0.000 }, { 0.091, 0.525, 0.006 }, { 0.091, 0.105, -0.025 }, { 0.091, 0.030, 0.100 },
		{ 0.091, 0.030, 0.195 } },
};

/* Avatar proportions: about 1.70 m, shorter legs, longer arms, bigger head, A-pose. */
static const rki_body_plan rki_plan_avatar = {
	.spine = {
		{ 0.0, 0.860, 0.000 }, { 0.0, 0.955, -0.006 }, { 0.0, 1.065, -0.012 }, { 0.0, 1.175, -0.016 },
		{ 0.0, 1.330, -0.018 }, { 0.0, 1.420, 0.000 }, { 0.0, 1.700, 0.020 }, { 0.036, 1.525, 0.105 }, { 0, 0, 0 },
	},
	.shoulder = { 0.045, 1.300, -0.020 },
	.arm = { 0.165, 1.300, -0.030 },
	.upper_arm = 0.300,
	.forearm = 0.280,
	.arm_down_deg = 45.0,
	.hand_scale = 0.95,
	.leg = { { 0.090, 0.800, 0.000 }, { 0.090, 0.450, 0.008 }, { 0.090, 0.085, -0.018 }, { 0.090, 0.025, 0.092 },
		{ 0.090, 0.025, 0.175 } },
};

/* Finger chains of a left hand pointing along +X, palm down (-Y), thumb
 * forward (+Z): first joint relative to the hand, direction, 3 bone lengths. */
typedef struct rki_finger_plan { rk_vec3 base, dir; double len[3]; } rki_finger_plan;
static const rki_finger_plan rki_fingers[5] = {
	{ { 0.024, -0.010, 0.024 }, { 0.55, -0.30, 0.78 }, { 0.040, 0.033, 0.028 } },
	{ { 0.096, 0.002, 0.026 }, { 1.0, 0.0, 0.06 }, { 0.040, 0.025, 0.022 } },
	{ { 0.100, 0.003, 0.004 }, { 1.0, 0.0, 0.0 }, { 0.044, 0.028, 0.024 } },
	{ { 0.095, 0.001, -0.015 }, { 1.0, 0.0, -0.05 }, { 0.041, 0.026, 0.023 } },
	{ { 0.086, -0.002, -0.033 }, { 1.0, 0.0, -0.12 }, { 0.032, 0.021, 0.020 } },
};

static rk_vec3 rki_mirror(rk_vec3 v) { return (rk_vec3){ -v.x, v.y, v.z }; }

static void rki_sample_positions(const rki_body_plan *plan, rk_vec3 *pos)
{
	for (uint32_t j = 0; j <= RKI_SJ_LEFT_EYE; j++) pos[j] = plan->spine[j];
	pos[RKI_SJ_RIGHT_EYE] = rki_mirror(plan->spine[RKI_SJ_LEFT_EYE]);

	/* Left arm: the chain points along +X turned down by arm_down_deg about Z. */
	rk_quat down = rk_quat_axis_angle((rk_vec3){ 0, 0, 1 }, -plan->arm_down_deg * RK_PI / 180.0);
	rk_vec3 dir = rk_quat_rotate(down, (rk_vec3){ 1, 0, 0 });
	rk_vec3 *a = pos + RKI_SJ_ARM_L;
	a[RKI_ARM_SHOULDER] = plan->shoulder;
	a[RKI_ARM_ARM] = plan->arm;
	a[RKI_ARM_FOREARM] = rk_vec3_add(plan->arm, rk_vec3_scale(dir, plan->upper_arm));
	a[RKI_ARM_HAND] = rk_vec3_add(a[RKI_ARM_FOREARM], rk_vec3_scale(dir, plan->forearm));
	for (uint32_t f = 0; f < 5; f++) {
		const rki_finger_plan *fp = &rki_fingers[f];
		rk_vec3 d = rk_quat_rotate(down, rk_vec3_normalize(fp->dir));
		rk_vec3 p = rk_vec3_add(a[RKI_ARM_HAND], rk_vec3_scale(rk_quat_rotate(down, fp->base), plan->hand_scale));
		for (uint32_t k = 0; k < 4; k++) {
			a[RKI_ARM_FINGER + 4 * f + k] = p;
			if (k < 3) p = rk_vec3_add(p, rk_vec3_scale(d, fp->len[k] * plan->hand_scale));
		}
	}
	for (uint32_t k = 0; k < RKI_ARM_BLOCK; k++) pos[RKI_SJ_ARM_R + k] = rki_mirror(a[k]);
	for (uint32_t k = 0; k < RKI_LEG_BLOCK; k++) {
		pos[RKI_SJ_LEG_L + k] = plan->leg[k];
		pos[RKI_SJ_LEG_R + k] = rki_mirror(plan->leg[k]);
	}
}

/* Mixamo-style rolls: +Y down the bone to the first child (Hand: to
 * HandMiddle1), +Z towards the front; ends keep the parent's orientation. */
static void rki_sample_mixamo_rolls(const rk_vec3 *pos, rk_quat *rot)
{
	for (uint32_t j = 0; j < RKI_SJ_COUNT; j++) {
		uint32_t child = RKI_SAMPLE_NO_PARENT;
		if (j == RKI_SJ_ARM_L + RKI_ARM_HAND || j == RKI_SJ_ARM_R + RKI_ARM_HAND) {
			child = j + (RKI_ARM_FINGER + 4 * 2 - RKI_ARM_HAND);
		} else {
			for (uint32_t c = j + 1; c < RKI_SJ_COUNT; c++) {
				if (rki_sample_joint_parent(c) == j) {
					child = c;
					break;
				}
			}
		}
		if (child == RKI_SAMPLE_NO_PARENT) {
			rot[j] = rot[rki_sample_joint_parent(j)]; /* parents come first */
			continue;
		}
		rk_vec3 y = rk_vec3_normalize(rk_vec3_sub(pos[child], pos[j]));
		rk_vec3 hint = fabs(y.z) > 0.9 ? (rk_vec3){ 0, 1, 0 } : (rk_vec3){ 0, 0, 1 };
		rot[j] = rki_sample_frame(y, hint);
	}
}

void rki_sample_rig_init(rki_sample_rig *rig, rk_demo_kind kind, bool z_up_armature)
{
	rig->kind = kind;
	if (kind == RK_DEMO_MIXAMO_SOURCE) {
		rig->armature_scale = 0.01;
		rig->armature_rotation = z_up_armature ? rk_quat_axis_angle((rk_vec3){ 1, 0, 0 }, -RK_PI / 2.0) : RK_QUAT_IDENTITY;
		rki_sample_positions(&rki_plan_source, rig->rest_pos);
		rki_sample_mixamo_rolls(rig->rest_pos, rig->rest_rot);
		rig->body_radius_scale = 1.0;
		rig->head_radius_scale = 1.0;
	} else {
		rig->armature_scale = 1.0;
		rig->armature_rotation = RK_QUAT_IDENTITY;
		rki_sample_positions(&rki_plan_avatar, rig->rest_pos);
		for (uint32_t j = 0; j < RKI_SJ_COUNT; j++) rig->rest_rot[j] = RK_QUAT_IDENTITY;
		rig->body_radius_scale = 0.95;
		rig->head_radius_scale = 1.3;
	}
}

rk_trs rki_sample_local(const rki_sample_rig *rig, const rk_vec3 *pos, const rk_quat *rot, uint32_t j)
{
	uint32_t p = rki_sample_joint_parent(j);
	rk_quat parent_rot = p == RKI_SAMPLE_NO_PARENT ? rig->armature_rotation : rot[p];
	rk_vec3 parent_pos = p == RKI_SAMPLE_NO_PARENT ? (rk_vec3){ 0, 0, 0 } : pos[p];
	rk_quat inv = rk_quat_conjugate(parent_rot);
	rk_trs t;
	t.rotation = rk_quat_normalize(rk_quat_mul(inv, rot[j]));
	t.translation = rk_vec3_scale(rk_quat_rotate(inv, rk_vec3_sub(pos[j], parent_pos)), 1.0 / rig->armature_scale);
	t.scale = (rk_vec3){ 1, 1, 1 };
	return t;
}
