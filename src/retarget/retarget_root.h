/* src/retarget/retarget_root.h - root motion extraction of rk_retarget
 * (rigkit/retarget.h, ROOT MOTION): which node carries it and its world
 * transform at each frame. No allocation. */
#ifndef RIGKIT_RETARGET_ROOT_H
#define RIGKIT_RETARGET_ROOT_H

#include "retarget/retarget_internal.h"

typedef struct rki_root {
	bool on;                         /* opts.root == RK_RETARGET_ROOT_EXTRACT */
	size_t node, parent;             /* the root node and its parent (node indices) */
	rk_mat4 rest_world;              /* the root's rest node_to_world */
	rk_mat4 parent_inv;              /* inverse of the parent's rest node_to_world */
	rk_quat rest_rotation;           /* rotation of rest_world */
	rk_vec3 rest_origin;             /* translation of rest_world */
	double yaw, travel;              /* this frame's yaw (radians, unwrapped); largest travel so far
	                                    (character units) */
	bool have_prev;
	/* this frame (rki_root_frame) */
	rk_quat world_rotation;          /* the root's world rotation */
	rk_vec3 world_origin;            /* its world position */
	rk_mat4 world;                   /* its node_to_world */
	rk_vec3 local_position;          /* its origin in its parent's space */
} rki_root;

/* Off unless opts_root is RK_RETARGET_ROOT_EXTRACT; then the hips' parent
 * node (rest matrices `rest_world`, by node index) is the root. False with
 * err when the hips hang from the scene's synthetic root (no node to carry
 * the motion) or the parent's rest matrix is singular. */
bool rki_root_init(rki_root *rt, rk_retarget_root opts_root, const rk_scene *target, const rk_humanoid *ht,
	const rk_mat4 *rest_world, rk_error *err);

/* One frame: `hips_world` is the hips' world rotation (scene world),
 * `hips_rest_world` its rest, `hips_delta` the hips' displacement from
 * rest in character units; fills the frame fields. Frames in order. */
void rki_root_frame(rki_root *rt, const rki_char_frame *ft, rk_quat hips_world, rk_quat hips_rest_world,
	rk_vec3 hips_delta);

#endif
