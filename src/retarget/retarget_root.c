/*
 * src/retarget/retarget_root.c - root motion for game engines
 * (rigkit/retarget.h, ROOT MOTION): the hips' horizontal travel and facing
 * moved onto the target's root node; rk_retarget then solves the hips'
 * local transform against the moving root, so their world motion stays.
 *
 * RESTRICTIONS
 *   The root is the hips' parent node; hips at the top of the scene are
 *   refused (callers add a node with rk_scene_insert_parent first). The
 *   root's parent is assumed not to be animated.
 */
#include "retarget/retarget_root.h"
#include "retarget/retarget_twist.h"

#include <math.h>
#include <string.h>

#define RKI_PI 3.14159265358979323846

bool rki_root_init(rki_root *rt, rk_retarget_root opts_root, const rk_scene *target, const rk_humanoid *ht,
	const rk_mat4 *rest_world, rk_error *err)
{
	memset(rt, 0, sizeof(*rt));
	if (opts_root != RK_RETARGET_ROOT_EXTRACT) return true;
	const rk_node *hips = ht->bones[RK_HUMANOID_HIPS];
	if (!hips->parent || hips->parent->index == 0) {
		rki_error_set(err, RK_ERROR_INVALID_ARGUMENT,
			"root extract: the target's hips \"%.80s\" have no parent node to carry the root motion (rk_scene_insert_parent "
			"adds one; rigkit retarget does)",
			hips->name ? hips->name : "");
		rki_error_file(err, target->source_path);
		return false;
	}
	const rk_node *root = hips->parent;
	rt->on = true;
	rt->node = root->index;
	rt->parent = root->parent ? root->parent->index : 0;
	rt->rest_world = rest_world[rt->node];
	rt->rest_rotation = rki_matrix_rotation(rt->rest_world);
	rt->rest_origin = rk_mat4_get_translation(rt->rest_world);
	if (!rk_mat4_invert(rest_world[rt->parent], &rt->parent_inv)) {
		rki_error_set(err, RK_ERROR_INVALID_ARGUMENT, "root extract: the root node's parent has a singular world matrix");
		rki_error_file(err, target->source_path);
		return false;
	}
	return true;
}

void rki_root_frame(rki_root *rt, const rki_char_frame *ft, rk_quat hips_world, rk_quat hips_rest_world,
	rk_vec3 hips_delta)
{
	/* the hips' rotation relative to rest, in the character frame: its yaw */
	rk_quat rel = rk_quat_normalize(rk_quat_mul(hips_world, rk_quat_conjugate(hips_rest_world)));
	rk_quat rel_char = rk_quat_normalize(rk_quat_mul(ft->rotation, rk_quat_mul(rel, rk_quat_conjugate(ft->rotation))));
	double yaw = rki_twist_angle(rel_char, (rk_vec3){ 0, 1, 0 });
	if (rt->have_prev) yaw += 2.0 * RKI_PI * floor((rt->yaw - yaw) / (2.0 * RKI_PI) + 0.5);
	rt->yaw = yaw;
	rt->have_prev = true;
	rk_quat to_world = rk_quat_conjugate(ft->rotation);
	rk_quat turn = rk_quat_normalize(rk_quat_mul(to_world, rk_quat_mul(rk_quat_axis_angle((rk_vec3){ 0, 1, 0 }, yaw),
		ft->rotation)));
	rk_vec3 travel = { hips_delta.x, 0.0, hips_delta.z };
	double dist = rk_vec3_length(travel);
	if (dist > rt->travel) rt->travel = dist;
	rt->world_origin = rk_vec3_add(rt->rest_origin, rk_vec3_scale(rk_quat_rotate(to_world, travel), ft->unit));
	rt->world_rotation = rk_quat_normalize(rk_quat_mul(turn, rt->rest_rotation));
	/* world = translate(origin) * turn * translate(-rest origin) * rest world */
	rk_mat4 m = rk_mat4_mul(rk_mat4_rotation(turn), rt->rest_world);
	rk_vec3 o = rk_vec3_sub(rt->world_origin, rk_quat_rotate(turn, rt->rest_origin));
	rk_mat4 t = rk_mat4_identity();
	t.m[12] = o.x, t.m[13] = o.y, t.m[14] = o.z;
	rt->world = rk_mat4_mul(t, m);
	rt->local_position = rk_mat4_transform_point(rt->parent_inv, rt->world_origin);
}
