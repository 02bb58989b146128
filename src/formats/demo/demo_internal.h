/*
 * src/formats/demo/demo_internal.h - pieces shared by the sample character
 * generator (rigkit/demo.h).
 *
 *   sample_rig.c      joint table (names, parents), rest positions and rolls
 *   sample_anim.c     Idle / Walk poses and clips
 *   sample_mesh.c     capsule body mesh, skin weights, skin
 *   sample_texture.c  checker PNG (stb_image_write)
 *   sample.c          rk_demo_scene(): nodes, material, assembly
 *
 * Coordinates: "world" is the character's space in metres, Y up, facing +Z,
 * feet on y = 0. A pose is given per joint as a world position and a world
 * orientation (the joint frame's axes in world space); local node values are
 * derived from those (rki_sample_local).
 */
#ifndef RIGKIT_SAMPLE_INTERNAL_H
#define RIGKIT_SAMPLE_INTERNAL_H

#include "scene/scene_internal.h"
#include "rigkit/demo.h"

/* Canonical joint order (depth-first pre-order, parents first). Arm blocks
 * hold Shoulder, Arm, ForeArm, Hand, then finger f (0 thumb, 1 index, 2
 * middle, 3 ring, 4 pinky) joint k (0..3) at RKI_ARM_FINGER + 4 f + k. Leg
 * blocks hold UpLeg, Leg, Foot, ToeBase, Toe_End. */
enum {
	RKI_SJ_HIPS = 0,
	RKI_SJ_SPINE,
	RKI_SJ_SPINE1,
	RKI_SJ_SPINE2,
	RKI_SJ_NECK,
	RKI_SJ_HEAD,
	RKI_SJ_HEAD_TOP,
	RKI_SJ_LEFT_EYE,
	RKI_SJ_RIGHT_EYE,
	RKI_SJ_ARM_L = 9,
	RKI_SJ_ARM_R = 33,
	RKI_SJ_LEG_L = 57,
	RKI_SJ_LEG_R = 62,
	RKI_SJ_COUNT = 67
};
enum { RKI_ARM_SHOULDER = 0, RKI_ARM_ARM, RKI_ARM_FOREARM, RKI_ARM_HAND, RKI_ARM_FINGER, RKI_ARM_BLOCK = 24 };
enum { RKI_LEG_UPLEG = 0, RKI_LEG_LEG, RKI_LEG_FOOT, RKI_LEG_TOEBASE, RKI_LEG_TOE_END, RKI_LEG_BLOCK = 5 };

/* Node layout of every sample scene. */
enum { RKI_SN_ROOT = 0, RKI_SN_ARMATURE = 1, RKI_SN_JOINT0 = 2, RKI_SN_BODY = RKI_SN_JOINT0 + RKI_SJ_COUNT };

#define RKI_SAMPLE_NO_PARENT 0xFFu

typedef struct rki_sample_rig {
	rk_demo_kind kind;
	double armature_scale;           /* 0.01 (source, centimetres) or 1 */
	rk_quat armature_rotation;       /* identity, or -90 deg about X (z_up_armature) */
	rk_vec3 rest_pos[RKI_SJ_COUNT];  /* world, metres */
	rk_quat rest_rot[RKI_SJ_COUNT];  /* world orientation of each joint frame */
	double body_radius_scale;        /* mesh radii factor */
	double head_radius_scale;
} rki_sample_rig;

/* Base joint name ("Hips", "LeftHandThumb1", ...) and parent (canonical index,
 * RKI_SAMPLE_NO_PARENT for Hips). */
const char *rki_sample_joint_name(uint32_t joint);
uint32_t rki_sample_joint_parent(uint32_t joint);
/* Left-side joint -> its right-side twin (others unchanged). */
uint32_t rki_sample_mirror_joint(uint32_t joint);

void rki_sample_rig_init(rki_sample_rig *rig, rk_demo_kind kind, bool z_up_armature);

/* Local TRS of joint j (node->local) for a world pose (pos/rot per joint):
 * rotation = inv(parent world rotation) * rot[j], translation =
 * inv(parent world rotation) * (pos[j] - parent pos) / armature_scale. The
 * parent of Hips is Armature (rotation armature_rotation, at the origin). */
rk_trs rki_sample_local(const rki_sample_rig *rig, const rk_vec3 *pos, const rk_quat *rot, uint32_t j);

/* Rotation whose frame has +Y along y_axis and +Z as close as possible to
 * z_hint (both need not be unit; z_hint must not be parallel to y_axis). */
rk_quat rki_sample_frame(rk_vec3 y_axis, rk_vec3 z_hint);

/* Clips (sample_anim.c): fills scene->clips with Idle and Walk. */
bool rki_sample_build_clips(rki_scene_ctx *sc, const rki_sample_rig *rig, rk_node *joint_nodes);

/* Mesh + skin (sample_mesh.c). joint_nodes[j] is joint j's node, whose
 * node_to_world must be computed already. Sets body->mesh/skin, fills
 * scene->meshes and scene->skins. `material` is the single slot (may be NULL). */
bool rki_sample_build_mesh(rki_scene_ctx *sc, const rki_sample_rig *rig, rk_node *joint_nodes, rk_node *body,
	rk_material *material);

/* Checker PNG (sample_texture.c): size x size RGB pixels, `cell` pixel
 * squares alternating colours a and b (RGB bytes; a at the top-left). The
 * pixels live in `tmp`, the PNG is copied into `arena`. False on allocation
 * failure. */
bool rki_sample_checker_png(rki_arena *arena, rki_arena *tmp, uint32_t size, uint32_t cell, const unsigned char a[3],
	const unsigned char b[3], const unsigned char **out_data, size_t *out_size);

#endif
