/* src/retarget/contact_internal.h - what contact detection (contact_detect.c),
 * the contact solve (retarget_contact.c) and the contact measures
 * (compare.c) share. The rules are in rigkit/retarget.h (CONTACTS, CONTACT
 * SOLVE, CONTACT MEASURES). */
#ifndef RIGKIT_CONTACT_INTERNAL_H
#define RIGKIT_CONTACT_INTERNAL_H

#include "retarget/retarget_internal.h"

/* opts with every zero replaced by its default (in NULL = all defaults). */
void rki_contact_opts_resolve(rk_contact_opts *out, const rk_contact_opts *in);
/* False with err when a resolved threshold is not finite, negative, or an
 * off threshold is below its on threshold. */
bool rki_contact_opts_check(const rk_contact_opts *o, rk_error *err);

/* The floor points of one skeleton, in its character frame. */
typedef struct rki_contact_rig {
	int bone[RK_CONTACT_POINT_COUNT];   /* humanoid bone of each point, -1 when not usable */
	double rest_height[RK_CONTACT_POINT_COUNT];
	bool has_tip[2];                    /* left / right toes have a child node (the toe tip) */
	rk_vec3 tip_rest[2];                /* its rest position (character units) */
	rk_vec3 heel_rest[2];               /* the heel: under the ankle at the height of the foot's
	                                       lowest rest joint (toes, tip), turning with the foot */
	double floor;                       /* the clip's floor below the rest's (<= 0; rest heights
	                                       include it, tip / heel heights subtract it) */
	size_t sole_vertices[2];            /* > 0: heel / tip measured from the skinned mesh */
	double sole_height[2];              /* the sole's height (character units) */
} rki_contact_rig;

/* The target's sole from its skinned mesh at rest (CONTACT SOLVE): per foot,
 * the vertices whose largest weight is on the foot, the toes or a node below
 * them; the sole is their lowest height, the heel the rearmost and the tip
 * the foremost of those within a third of the ankle's height above it (the
 * heel under the ankle or behind it, the tip under the toes, both at the sole's height,
 * turning with the foot / toes). Feet without such vertices keep the joints'
 * sole. rest_world: node_to_world of the rest the rig was built from; alloc:
 * a per-skin scratch table of the joints (sides, matrices), the sides per
 * scene node, and the foot vertices' heights kept from the one pass over
 * the vertices (without them, the same results: sides derived again, a
 * second pass). */
void rki_contact_rig_mesh_sole(rki_contact_rig *g, const rk_scene *scene, const rk_humanoid *h,
	const rki_char_frame *f, const rk_mat4 *rest_world, const rki_humanoid_pose *rest, rki_alloc *alloc);

/* A source clip that goes below its rest floor (a capture whose floor is
 * lower than its rest pose's): the floor is moved down to the lowest foot
 * point of the poses when that is more than on_height below. */
void rki_contact_rig_fit_floor(rki_contact_rig *g, const rki_humanoid_pose *rest, const rki_humanoid_pose *poses,
	size_t frames, double on_height);

/* `usable[b]`: humanoid bones that may be used (mapped on every side the
 * caller compares). rest: the skeleton's rest pose (character frame), rest_world
 * its node_to_world table (for the toe tips). */
void rki_contact_rig_init(rki_contact_rig *g, const rk_humanoid *h, const bool *usable, const rki_char_frame *f,
	const rk_mat4 *rest_world, const rki_humanoid_pose *rest);

/* Tip of toes `side` at pose p (character units): the rest tip turned with
 * the toes. Only when g->has_tip[side]. */
rk_vec3 rki_contact_tip(const rki_contact_rig *g, const rki_humanoid_pose *rest, const rki_humanoid_pose *p, int side);
/* Heel of foot `side` at pose p (character units). Only when the foot is usable. */
rk_vec3 rki_contact_heel(const rki_contact_rig *g, const rki_humanoid_pose *rest, const rki_humanoid_pose *p, int side);

/* The ground's velocity (CONTACTS), character units per second, y = 0;
 * near: the off_height threshold. */
rk_vec3 rki_ground_velocity(const rki_contact_rig *g, const rki_humanoid_pose *poses, const double *times,
	size_t frames, double near);
/* CONTACTS of `frames` poses at `times` (seconds, increasing): out[frames],
 * speeds measured against `ground`. usable: as for rki_contact_rig_init
 * (the body segments). */
void rki_contacts_find(const rki_contact_rig *g, const bool *usable, const rki_humanoid_pose *poses,
	const double *times, size_t frames, const rk_contact_opts *o, rk_vec3 ground, rk_contact_frame *out);

/* The body segments CONTACTS tests hands against: pairs of humanoid bones
 * (usable ones only), at most RKI_BODY_SEGMENTS. Returns the count. */
#define RKI_BODY_SEGMENTS 12
size_t rki_body_segments(const bool *usable, int seg[RKI_BODY_SEGMENTS][2]);
/* The segment of `segs` ending at bone `end` (its name in
 * rk_contact_frame.hand_body), or -1. */
int rki_body_segment_find(int seg[RKI_BODY_SEGMENTS][2], size_t count, int end);
/* Nearest point of segment a-b to p: fraction along it (0..1). */
double rki_segment_fraction(rk_vec3 a, rk_vec3 b, rk_vec3 p);

/* Blend weights of a contact series on[frames]: 1 on contact frames,
 * falling smoothly (smoothstep) to 0 over blend seconds before and after
 * each run of contact frames, shortened to half the gap where two runs are
 * closer; owner[k] = first frame of the run frame k belongs to (-1 where
 * w[k] = 0). */
void rki_contact_weights(const double *times, size_t frames, const uint8_t *on, double blend, double *w,
	int32_t *owner);

/* CONTACT MEASURES of two sequences of poses (a the source, b the result)
 * at the same times; rest poses and frames of both. pb's positions are
 * shifted in place (horizontally, by the hips offset from pa). */
void rki_contact_measure(const rki_contact_rig *ga, const rki_contact_rig *gb, const bool *usable,
	const rki_humanoid_pose *rest_a, const rki_humanoid_pose *rest_b, const rki_humanoid_pose *pa,
	rki_humanoid_pose *pb, const double *times, size_t frames, const rk_contact_opts *o,
	double b_meters_per_unit, rk_contact_frame *scratch_a, rk_contact_frame *scratch_b, rk_compare_contacts *out);

/* ---- the solve (retarget_contact.c) ---------------------------------------- */

typedef struct rki_contact_solver rki_contact_solver;

typedef struct rki_contact_setup {
	const rk_scene *source, *target;
	const rk_anim_clip *clip;
	const rk_humanoid *hs, *ht;
	const bool *use;                     /* bones retargeted */
	const rki_char_frame *fs, *ft;
	const rki_humanoid_pose *rest_s, *rest_t;
	const rk_mat4 *rest_world_s, *rest_world_t;
	const double *times;                 /* frames key times from the clip's start */
	size_t frames;
	const rki_humanoid_pose *src_poses;  /* frames source poses at times (the caller's, kept until
	                                      * destroy), or NULL: the source is evaluated here */
	bool hands;
	bool hips_locked;                    /* RK_RETARGET_ROOT_LOCK: the hips are never lowered */
	const rk_contact_opts *opts;         /* NULL = defaults */
	rk_warning_fn *warning;
	void *warning_user;
} rki_contact_setup;

/* Finds the source's contacts and prepares the solve. NULL with err on
 * memory (from alloc) or a bad source pose. */
rki_contact_solver *rki_contact_solver_create(const rki_contact_setup *s, rki_alloc *alloc, rk_error *err);
/* Frame k (in order 0, 1, ...): wbone (world rotations by the rule, mapped
 * bones) and hips (character units) are changed in place. */
void rki_contact_solver_frame(rki_contact_solver *cs, size_t k, rk_quat *wbone, rk_vec3 *hips);
/* The contact fields of the report (NULL: none), the remaining warnings,
 * and solved[RK_HUMANOID_BONE_COUNT]: the bones the solve turned. */
void rki_contact_solver_report(rki_contact_solver *cs, rk_retarget_report *report, bool *solved);
void rki_contact_solver_destroy(rki_contact_solver *cs);

#endif
