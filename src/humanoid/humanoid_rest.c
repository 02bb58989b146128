/*
 * src/humanoid/humanoid_rest.c - rk_rest_pose_eval: a skeleton's rest from
 * its skins' bind matrices or its stored node transforms (rigkit/rest.h
 * states the rules; this file follows them step by step).
 *
 * RESTRICTIONS
 *   A joint's bind matrix is taken as a whole (rotation, scale, shear); the
 *   rest local transform of a bound joint is a matrix (node_to_parent), and
 *   consumers that need a TRS decompose it (exact without shear).
 */
#include "rigkit/rest.h"

#include "core/internal.h"

#include <math.h>
#include <string.h>

static const char *const rki_rest_names[] = { "auto", "bind", "stored" };

const char *rk_rest_mode_name(rk_rest_mode mode)
{
	return (unsigned)mode < 3u ? rki_rest_names[mode] : "";
}

bool rk_rest_mode_parse(const char *name, rk_rest_mode *out)
{
	for (int m = 0; name && m < 3; m++) {
		if (strcmp(name, rki_rest_names[m]) == 0) {
			if (out) *out = (rk_rest_mode)m;
			return true;
		}
	}
	return false;
}

static bool rki_rest_finite(const rk_mat4 *m)
{
	for (int k = 0; k < 16; k++)
		if (!isfinite(m->m[k])) return false;
	return true;
}

/* Angle between the rotations of two affine matrices (scale removed). */
static double rki_rest_angle(rk_mat4 a, rk_mat4 b)
{
	rk_quat qa = rk_quat_normalize(rk_mat4_decompose(a).rotation);
	rk_quat qb = rk_quat_normalize(rk_mat4_decompose(b).rotation);
	return rk_quat_angle_between(qa, qb);
}

static double rki_rest_distance(rk_mat4 a, rk_mat4 b)
{
	return rk_vec3_length(rk_vec3_sub(rk_mat4_get_translation(a), rk_mat4_get_translation(b)));
}

/* The load conversion (rest.h, THE BIND POSE): file world -> scene world. */
static rk_mat4 rki_rest_conversion(const rk_scene *scene)
{
	const rk_node *root = scene->root ? scene->root : &scene->nodes.data[0];
	rk_mat4 k = root->node_to_world;
	if (root->children.count && root->children.data[0])
		k = rk_mat4_mul(k, rk_mat4_rotation(rk_quat_normalize(root->children.data[0]->adjust.pre_rotation)));
	return k;
}

static bool rki_rest_in_scene(const rk_scene *scene, const rk_node *n)
{
	return n && n >= scene->nodes.data && n < scene->nodes.data + scene->nodes.count;
}

/* world_bind of joint j of skin s, false when it has none. */
static bool rki_rest_joint_bind(const rk_scene *scene, const rk_mat4 *conversion, const rk_skin_joint *jt,
	rk_mat4 *out)
{
	rk_mat4 inv;
	if (!rki_rest_finite(&jt->mesh_to_joint) || !rk_mat4_invert(jt->mesh_to_joint, &inv)) return false;
	bool gltf = scene->settings.format == RK_FORMAT_GLTF || scene->settings.format == RK_FORMAT_GLB;
	rk_mat4 mesh;
	if (gltf) mesh = *conversion;
	else rki_mat4_mul_to(&mesh, conversion, &jt->mesh_to_world_bind);
	rki_mat4_mul_to(out, &mesh, &inv);
	return rki_rest_finite(out);
}

bool rk_rest_pose_eval(const rk_scene *scene, const rk_rest_opts *opts, rk_mat4 *node_to_world, rk_mat4 *node_to_parent,
	rk_rest_report *report, rk_error *err)
{
	rk_rest_report rep;
	memset(&rep, 0, sizeof(rep));
	rep.used = RK_REST_STORED;
	if (report) *report = rep;
	rk_rest_opts o;
	if (opts) o = *opts;
	else memset(&o, 0, sizeof(o));
	if (!scene || !scene->nodes.data || scene->nodes.count == 0) {
		rki_error_set(err, RK_ERROR_INVALID_ARGUMENT, "rk_rest_pose_eval: a scene with nodes is required");
		return false;
	}
	if ((unsigned)o.mode > (unsigned)RK_REST_STORED) {
		rki_error_set(err, RK_ERROR_INVALID_ARGUMENT, "rk_rest_pose_eval: unknown rest mode %d", (int)o.mode);
		return false;
	}
	if (!(o.angle_tolerance >= 0.0) || !(o.distance_tolerance >= 0.0) || !isfinite(o.angle_tolerance) ||
		!isfinite(o.distance_tolerance)) {
		rki_error_set(err, RK_ERROR_INVALID_ARGUMENT, "rk_rest_pose_eval: tolerances must be finite and >= 0");
		return false;
	}
	if (o.angle_tolerance == 0.0) o.angle_tolerance = 1e-3;
	if (o.distance_tolerance == 0.0) o.distance_tolerance = 1e-4;
	if (!o.memory_limit) o.memory_limit = RKI_DEFAULT_MEMORY_LIMIT;

	size_t count = scene->nodes.count;
	const rk_node *nodes = scene->nodes.data;
	bool any_skin = false;
	for (size_t s = 0; s < scene->skins.count; s++) any_skin |= scene->skins.data[s].joint_count > 0;
	if (!any_skin) {
		for (size_t i = 0; i < count; i++) {
			if (node_to_world) node_to_world[i] = nodes[i].node_to_world;
			if (node_to_parent) node_to_parent[i] = nodes[i].node_to_parent;
		}
		rki_error_clear(err);
		return true;
	}

	/* temporaries: bind[i] (world_bind of node i), local[i], state[i] (the
	 * rest world as children inherit it), bound[i], scaled[i] (a child
	 * inherits other than normally: it reads more of state[i] than its
	 * node_to_world) */
	rki_alloc alloc;
	rki_alloc_init(&alloc, &o.allocator, o.memory_limit, 0);
	size_t per = 2 * sizeof(rk_mat4) + sizeof(rk_world_transform) + sizeof(const rk_skin_joint *) + 2;
	if (count > SIZE_MAX / per) {
		rki_error_set(err, RK_ERROR_LIMIT, "rk_rest_pose_eval: %zu nodes", count);
		return false;
	}
	size_t bytes = count * per;
	unsigned char *mem = (unsigned char *)rki_malloc(&alloc, bytes);
	if (!mem) {
		rki_error_set(err, alloc.limit_hit ? RK_ERROR_LIMIT : RK_ERROR_OUT_OF_MEMORY,
			"rk_rest_pose_eval: cannot allocate %zu bytes for %zu nodes", bytes, count);
		return false;
	}
	rk_mat4 *bind = (rk_mat4 *)mem, *local = bind + count;
	rk_world_transform *state = (rk_world_transform *)(local + count);
	const rk_skin_joint **binder = (const rk_skin_joint **)(state + count);   /* the joint that gave bind[i] */
	unsigned char *bound = (unsigned char *)(binder + count), *scaled = bound + count;
	memset(bound, 0, 2 * count);

	/* 1. the first skin binding each joint gives its bind matrix */
	rk_mat4 conversion = rki_rest_conversion(scene);
	for (size_t s = 0; s < scene->skins.count; s++) {
		const rk_skin_deformer *skin = &scene->skins.data[s];
		bool used = false;
		for (size_t j = 0; j < skin->joint_count; j++) {
			const rk_skin_joint *jt = &skin->joints[j];
			if (!rki_rest_in_scene(scene, jt->node) || jt->node->index == 0 || bound[jt->node->index]) continue;
			rk_mat4 b;
			if (!rki_rest_joint_bind(scene, &conversion, jt, &b)) continue;
			bind[jt->node->index] = b;
			binder[jt->node->index] = jt;
			bound[jt->node->index] = 1;
			used = true;
			rep.joints_bound++;
		}
		rep.skins_used += used;
	}
	/* 2. the skeleton's extent: bounding box of the bound joints */
	rk_vec3 lo = { 0, 0, 0 }, hi = { 0, 0, 0 };
	bool first = true;
	for (size_t i = 0; i < count; i++) {
		if (!bound[i]) continue;
		rk_vec3 p = rk_mat4_get_translation(bind[i]);
		if (first) lo = hi = p;
		lo = (rk_vec3){ fmin(lo.x, p.x), fmin(lo.y, p.y), fmin(lo.z, p.z) };
		hi = (rk_vec3){ fmax(hi.x, p.x), fmax(hi.y, p.y), fmax(hi.z, p.z) };
		first = false;
	}
	rep.extent = rk_vec3_length(rk_vec3_sub(hi, lo));
	double dist_tol = o.distance_tolerance * (rep.extent > 0.0 ? rep.extent : 1.0);
	/* 3. later skins that bind a joint differently */
	for (size_t s = 1; s < scene->skins.count; s++) {
		const rk_skin_deformer *skin = &scene->skins.data[s];
		for (size_t j = 0; j < skin->joint_count; j++) {
			const rk_skin_joint *jt = &skin->joints[j];
			rk_mat4 b;
			if (!rki_rest_in_scene(scene, jt->node) || !bound[jt->node->index]) continue;
			/* the same matrices as the first binding give the same bind (the
			 * usual case: one skeleton skinning several meshes) */
			const rk_skin_joint *fj = binder[jt->node->index];
			if (memcmp(&fj->mesh_to_joint, &jt->mesh_to_joint, sizeof(rk_mat4)) == 0 &&
				memcmp(&fj->mesh_to_world_bind, &jt->mesh_to_world_bind, sizeof(rk_mat4)) == 0)
				continue;
			if (!rki_rest_joint_bind(scene, &conversion, jt, &b)) continue;
			const rk_mat4 *a = &bind[jt->node->index];
			if (rk_mat4_max_diff(*a, b) == 0.0) continue;
			if (rki_rest_angle(*a, b) > o.angle_tolerance || rki_rest_distance(*a, b) > dist_tol) rep.skin_conflicts++;
		}
	}
	/* 4. rest worlds and locals, parents first; how far the stored pose is */
	double worst_angle_node = -1.0, worst_dist_node = -1.0;
	const rk_node *worst_a = NULL, *worst_d = NULL;
	state[0] = (rk_world_transform){ nodes[0].node_to_world, nodes[0].unscaled_node_to_world, nodes[0].inherit_scale };
	local[0] = nodes[0].node_to_parent;
	for (size_t i = 1; i < count; i++) {
		const rk_node *n = &nodes[i];
		size_t p = n->parent && rki_rest_in_scene(scene, n->parent) && n->parent->index < i ? n->parent->index : 0;
		if (n->has_fbx_props && n->props.inherit_mode != RK_INHERIT_NORMAL) scaled[p] = 1;
	}
	for (size_t i = 1; i < count; i++) {
		const rk_node *n = &nodes[i];
		size_t p = n->parent && rki_rest_in_scene(scene, n->parent) && n->parent->index < i ? n->parent->index : 0;
		/* as the evaluator composes (transform.h, INHERIT MODES); the parent's
		 * own scale is its rest local scale */
		const rk_node *pn = &nodes[p];
		rk_inherit_mode mode = n->has_fbx_props ? n->props.inherit_mode : RK_INHERIT_NORMAL;
		/* (normal inheritance reads neither the parent's scale nor, for a
		 * bound joint, more than the stored world) */
		rk_vec3 pls = mode == RK_INHERIT_NORMAL ? (rk_vec3){ 1, 1, 1 }
			: bound[p] ? rk_mat4_decompose(local[p]).scale : pn->has_fbx_props ? pn->props.scaling : pn->local.scale;
		/* normal inheritance composes node_to_world as this product; the
		 * scale parts only when a child reads them */
		rk_world_transform from;
		bool from_full = mode != RK_INHERIT_NORMAL || (!bound[i] && scaled[i]);
		if (from_full) from = rk_world_transform_compose(&state[p], pls, n->node_to_parent, mode);
		else rki_mat4_mul_to(&from.node_to_world, &state[p].node_to_world, &n->node_to_parent);
		rk_mat4 from_stored = from.node_to_world;
		/* a bound joint's local is solved for normal inheritance; other modes
		 * agree with it only where the scale they treat apart is 1 */
		rk_vec3 sc = mode == RK_INHERIT_IGNORE_PARENT_SCALE ? pls : state[p].inherit_scale;
		bool solvable = mode == RK_INHERIT_NORMAL || (fabs(sc.x - 1.0) < 1e-9 && fabs(sc.y - 1.0) < 1e-9 &&
			fabs(sc.z - 1.0) < 1e-9);
		rk_mat4 inv_parent;
		if (bound[i] && (!solvable || !rk_mat4_invert(state[p].node_to_world, &inv_parent))) {
			bound[i] = 0;
			rep.joints_bound--;
		}
		if (bound[i]) {
			rki_mat4_mul_to(&local[i], &inv_parent, &bind[i]);
			if (mode != RK_INHERIT_NORMAL || scaled[i]) state[i] = rk_world_transform_compose(&state[p], pls, local[i], mode);
			else rki_mat4_mul_to(&state[i].node_to_world, &state[p].node_to_world, &local[i]);
			/* compared only below another bound joint (rest.h) */
			bool below_bound = false;
			for (const rk_node *a = n->parent; a && rki_rest_in_scene(scene, a) && !below_bound; a = a->parent)
				below_bound = bound[a->index] != 0;
			if (below_bound) {
				double ang = rki_rest_angle(from_stored, bind[i]), dist = rki_rest_distance(from_stored, bind[i]);
				if (ang > worst_angle_node) {
					worst_angle_node = ang;
					worst_a = n;
				}
				if (dist > worst_dist_node) {
					worst_dist_node = dist;
					worst_d = n;
				}
			}
		} else {
			/* (a joint that lost its binding above may still need the scale parts) */
			state[i] = from_full || !scaled[i] ? from : rk_world_transform_compose(&state[p], pls, n->node_to_parent, mode);
			local[i] = n->node_to_parent;
		}
	}
	rep.max_angle = worst_angle_node > 0.0 ? worst_angle_node : 0.0;
	rep.max_distance = worst_dist_node > 0.0 ? worst_dist_node : 0.0;
	rep.worst_node = rep.max_angle > o.angle_tolerance ? worst_a : rep.max_distance > dist_tol ? worst_d
		: rep.max_angle > 0.0 ? worst_a : worst_d;
	bool disagree = rep.max_angle > o.angle_tolerance || rep.max_distance > dist_tol;
	bool use_bind = rep.joints_bound > 0 && o.mode != RK_REST_STORED && (o.mode == RK_REST_BIND || disagree);
	rep.used = use_bind ? RK_REST_BIND : RK_REST_STORED;
	for (size_t i = 0; i < count; i++) {
		if (use_bind && i > 0) {
			double scale = rep.extent > 0.0 ? rep.extent : 1.0;
			if (rk_mat4_max_diff(local[i], nodes[i].node_to_parent) > 1e-9 * (scale > 1.0 ? scale : 1.0)) rep.nodes_changed++;
		}
		if (node_to_world) node_to_world[i] = use_bind ? state[i].node_to_world : nodes[i].node_to_world;
		if (node_to_parent) node_to_parent[i] = use_bind ? local[i] : nodes[i].node_to_parent;
	}
	rki_free(&alloc, mem, bytes);
	if (report) *report = rep;
	rki_error_clear(err);
	return true;
}
