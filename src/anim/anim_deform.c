/* src/anim/anim_deform.c - blend shapes and skinning, reference double path
 * (see rigkit/anim.h, DEFORMATION). */
#include "anim_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Skin joint matrices computed once per call when the skin is small enough;
 * larger skins compute them per influence (same arithmetic, same bits). */
#define RKI_SKIN_CACHE 64

/* The pose to read: an rk_pose or, when pose is NULL, the scene's caches. */
typedef struct rki_view {
	const rk_scene *scene;
	const rk_pose *pose;
} rki_view;

static const rk_mat4 *rki_node_to_world(const rki_view *v, size_t i)
{
	return v->pose ? &v->pose->node_to_world[i] : &v->scene->nodes.data[i].node_to_world;
}

static const rk_mat4 *rki_geometry_to_node(const rki_view *v, size_t i)
{
	return v->pose ? &v->pose->geometry_to_node[i] : &v->scene->nodes.data[i].geometry_to_node;
}

static const rk_mat4 *rki_geometry_to_world(const rki_view *v, size_t i)
{
	return v->pose ? &v->pose->geometry_to_world[i] : &v->scene->nodes.data[i].geometry_to_world;
}

static const rk_transform_props *rki_props(const rki_view *v, size_t i)
{
	return v->pose && v->pose->props ? &v->pose->props[i] : &v->scene->nodes.data[i].props;
}

static bool rki_in_scene(const rk_scene *s, const rk_node *n)
{
	return n && s->nodes.data && n->index < s->nodes.count && &s->nodes.data[n->index] == n;
}

static bool rki_view_init(rki_view *v, const rk_scene *scene, const rk_pose *pose)
{
	v->scene = scene;
	v->pose = pose;
	if (!pose) return true;
	return pose->node_count == scene->nodes.count && pose->node_to_world && pose->geometry_to_node
		&& pose->geometry_to_world;
}

/* Channel c's weight for node n. */
static double rki_channel_weight(const rki_view *v, const rk_node *n, size_t c)
{
	const rk_pose *p = v->pose;
	size_t count = n->mesh->blend_channels.count;
	if (p && p->blend_weights && p->blend_offsets) {
		size_t off = p->blend_offsets[n->index];
		if (off <= p->blend_weight_count && count <= p->blend_weight_count - off) return p->blend_weights[off + c];
	}
	if (n->blend_weights) return n->blend_weights[c];
	return n->mesh->blend_channels.data[c].default_weight;
}

/* ---- blend shapes ------------------------------------------------------------------ */

static double rki_target_full_weight(const rk_blend_channel *ch, size_t k)
{
	if (ch->target_weights) return ch->target_weights[k];
	return (double)(k + 1) / (double)ch->target_count;
}

void rk_blend_channel_factors_eval(const rk_blend_channel *channel, double weight, double *out)
{
	if (!channel || !out) return;
	size_t n = channel->target_count;
	for (size_t k = 0; k < n; k++) out[k] = 0.0;
	if (n == 0 || weight == 0.0) return;
	double w0 = rki_target_full_weight(channel, 0);
	if (n == 1 || weight <= w0) {
		out[0] = w0 > 0.0 ? weight / w0 : (weight > 0.0 ? 1.0 : 0.0);
		return;
	}
	/* Segment j: between target j (at W_j) and j + 1 (at W_{j+1}); the last
	 * segment also covers weights beyond the last target. */
	size_t j = 0;
	while (j + 2 < n && weight > rki_target_full_weight(channel, j + 1)) j++;
	double wa = rki_target_full_weight(channel, j), wb = rki_target_full_weight(channel, j + 1);
	double d = wb - wa;
	if (!(d > 0.0)) {
		out[j + 1] = 1.0;
		return;
	}
	out[j] = (wb - weight) / d;
	out[j + 1] = (weight - wa) / d;
}

/* Factor of target k of a channel at weight w (same rule as above, one entry). */
static double rki_target_factor(const rk_blend_channel *ch, double w, size_t k)
{
	size_t n = ch->target_count;
	if (n == 0 || w == 0.0) return 0.0;
	double w0 = rki_target_full_weight(ch, 0);
	if (n == 1 || w <= w0) {
		if (k != 0) return 0.0;
		return w0 > 0.0 ? w / w0 : (w > 0.0 ? 1.0 : 0.0);
	}
	size_t j = 0;
	while (j + 2 < n && w > rki_target_full_weight(ch, j + 1)) j++;
	if (k != j && k != j + 1) return 0.0;
	double wa = rki_target_full_weight(ch, j), wb = rki_target_full_weight(ch, j + 1);
	double d = wb - wa;
	if (!(d > 0.0)) return k == j + 1 ? 1.0 : 0.0;
	return k == j ? (wb - w) / d : (w - wa) / d;
}

static void rki_blend_positions(const rki_view *v, const rk_node *node, rk_vec3 *pos)
{
	const rk_mesh *mesh = node->mesh;
	for (size_t c = 0; c < mesh->blend_channels.count; c++) {
		const rk_blend_channel *ch = &mesh->blend_channels.data[c];
		double w = rki_channel_weight(v, node, c);
		if (w == 0.0 || !ch->targets) continue;
		for (size_t k = 0; k < ch->target_count; k++) {
			double f = rki_target_factor(ch, w, k);
			const rk_blend_shape *shape = &ch->targets[k];
			if (f == 0.0 || !shape->vertex_indices || (!shape->position_offsets_f64 && !shape->position_offsets_f32)) continue;
			for (size_t j = 0; j < shape->offset_count; j++) {
				uint32_t vi = shape->vertex_indices[j];
				if (vi >= mesh->vertex_count) continue;
				double fj = shape->offset_weights ? f * shape->offset_weights[j] : f;
				pos[vi] = rk_vec3_add(pos[vi], rk_vec3_scale(rk_blend_shape_position_offset(shape, j), fj));
			}
		}
	}
}

static bool rki_ascending(const uint32_t *idx, size_t count)
{
	for (size_t j = 1; j < count; j++)
		if (idx[j] <= idx[j - 1]) return false;
	return true;
}

/* Index j with idx[j] == vi, or SIZE_MAX. */
static size_t rki_find_offset(const uint32_t *idx, size_t count, bool sorted, uint32_t vi)
{
	if (!sorted) {
		for (size_t j = 0; j < count; j++)
			if (idx[j] == vi) return j;
		return SIZE_MAX;
	}
	size_t lo = 0, hi = count;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (idx[mid] < vi) lo = mid + 1;
		else hi = mid;
	}
	return lo < count && idx[lo] == vi ? lo : SIZE_MAX;
}

/* ---- skinning ------------------------------------------------------------------------ */

typedef struct rki_skin_ctx {
	rki_view view;
	const rk_skin_deformer *skin;
	size_t mesh_index;
	bool cached;
	rk_mat4 cache[RKI_SKIN_CACHE];
	bool valid[RKI_SKIN_CACHE];
} rki_skin_ctx;

/* J_j = node_to_world(joint) * mesh_to_joint * geometry_to_node(mesh). */
static bool rki_joint_matrix_compute(const rki_skin_ctx *sc, size_t j, rk_mat4 *out)
{
	const rk_skin_joint *joint = &sc->skin->joints[j];
	if (!rki_in_scene(sc->view.scene, joint->node)) return false;
	*out = rk_mat4_mul(rk_mat4_mul(*rki_node_to_world(&sc->view, joint->node->index), joint->mesh_to_joint),
		*rki_geometry_to_node(&sc->view, sc->mesh_index));
	return true;
}

static bool rki_joint_matrix(const rki_skin_ctx *sc, size_t j, rk_mat4 *out)
{
	if (sc->cached) {
		if (!sc->valid[j]) return false;
		*out = sc->cache[j];
		return true;
	}
	return rki_joint_matrix_compute(sc, j, out);
}

static void rki_skin_ctx_init(rki_skin_ctx *sc, const rki_view *v, const rk_skin_deformer *skin, size_t mesh_index)
{
	sc->view = *v;
	sc->skin = skin;
	sc->mesh_index = mesh_index;
	sc->cached = false;
	if (skin->joints && skin->joint_count <= RKI_SKIN_CACHE) {
		for (size_t j = 0; j < skin->joint_count; j++) sc->valid[j] = rki_joint_matrix_compute(sc, j, &sc->cache[j]);
		sc->cached = true;
	}
}

static rk_quat rki_quat_scale(rk_quat q, double s) { return (rk_quat){ q.x * s, q.y * s, q.z * s, q.w * s }; }
static rk_quat rki_quat_add(rk_quat a, rk_quat b) { return (rk_quat){ a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w }; }

/* Per-vertex skinning matrix M (affine). False when the vertex has no usable
 * weights (the caller falls back to geometry_to_world). */
static bool rki_vertex_matrix(const rki_skin_ctx *sc, size_t v, rk_mat4 *out)
{
	const rk_skin_deformer *skin = sc->skin;
	if (v >= skin->vertex_count || !skin->weight_begin || !skin->weights || !skin->joints) return false;
	uint32_t begin = skin->weight_begin[v], end = skin->weight_begin[v + 1];
	if (begin > end || end > skin->weight_count) return false;

	double total = 0.0;
	for (uint32_t k = begin; k < end; k++) {
		const rk_skin_weight *sw = &skin->weights[k];
		double w = (double)sw->weight;
		if (sw->joint >= skin->joint_count || !(w == w) || w == 0.0) continue;
		if (!rki_in_scene(sc->view.scene, skin->joints[sw->joint].node)) continue;
		total += w;
	}
	if (!(total > 0.0) || !isfinite(total)) return false;

	double a = 0.0; /* dual quaternion share */
	if (skin->method == RK_SKINNING_DUAL_QUATERNION) a = 1.0;
	else if (skin->method == RK_SKINNING_BLENDED_DQ && skin->dq_weights) {
		a = (double)skin->dq_weights[v];
		if (!(a > 0.0)) a = 0.0;
		if (a > 1.0) a = 1.0;
	}

	rk_mat4 lin;
	memset(&lin, 0, sizeof(lin));
	rk_quat br = { 0, 0, 0, 0 }, bd = { 0, 0, 0, 0 }, first = { 0, 0, 0, 0 };
	double bx[3][3] = { { 0 } };
	bool have_first = false;

	for (uint32_t k = begin; k < end; k++) {
		const rk_skin_weight *sw = &skin->weights[k];
		double w = (double)sw->weight;
		if (sw->joint >= skin->joint_count || !(w == w) || w == 0.0) continue;
		rk_mat4 jm;
		if (!rki_joint_matrix(sc, sw->joint, &jm)) continue;
		w /= total;
		if (a < 1.0)
			for (int e = 0; e < 16; e++) lin.m[e] += w * jm.m[e];
		if (a > 0.0) {
			rk_trs d = rk_mat4_decompose(jm);
			rk_quat r = d.rotation;
			if (!have_first) {
				first = r;
				have_first = true;
			} else if (rk_quat_dot(first, r) < 0.0) {
				r = rki_quat_scale(r, -1.0);
			}
			/* dual part: 0.5 * (t, 0) * r */
			rk_quat dual = rki_quat_scale(rk_quat_mul((rk_quat){ d.translation.x, d.translation.y, d.translation.z, 0.0 }, r), 0.5);
			br = rki_quat_add(br, rki_quat_scale(r, w));
			bd = rki_quat_add(bd, rki_quat_scale(dual, w));
			/* X = R^T * A: remaining scale / shear / mirror. */
			rk_mat4 rm = rk_mat4_rotation(r);
			for (int row = 0; row < 3; row++)
				for (int col = 0; col < 3; col++) {
					double x = 0.0;
					for (int t = 0; t < 3; t++) x += rm.m[row * 4 + t] * jm.m[col * 4 + t]; /* R^T[row][t] = R[t][row] */
					bx[row][col] += w * x;
				}
		}
	}

	rk_mat4 m = lin;
	if (a > 0.0) {
		double len = sqrt(rk_quat_dot(br, br));
		rk_mat4 dq;
		if (len > 1e-300) {
			br = rki_quat_scale(br, 1.0 / len);
			bd = rki_quat_scale(bd, 1.0 / len);
			rk_quat tq = rk_quat_mul(bd, rk_quat_conjugate(br));
			rk_mat4 rm = rk_mat4_rotation(br);
			memset(&dq, 0, sizeof(dq));
			for (int row = 0; row < 3; row++)
				for (int col = 0; col < 3; col++) {
					double x = 0.0;
					for (int t = 0; t < 3; t++) x += rm.m[t * 4 + row] * bx[t][col];
					dq.m[col * 4 + row] = x;
				}
			dq.m[12] = 2.0 * tq.x;
			dq.m[13] = 2.0 * tq.y;
			dq.m[14] = 2.0 * tq.z;
			dq.m[15] = 1.0;
		} else {
			/* Rotations cancelled out (cannot happen with aligned signs unless
			 * degenerate): fall back to the linear blend. */
			a = 0.0;
			dq = lin;
		}
		if (a >= 1.0) {
			m = dq;
		} else {
			for (int e = 0; e < 16; e++) m.m[e] = (1.0 - a) * lin.m[e] + a * dq.m[e];
		}
	}
	m.m[3] = m.m[7] = m.m[11] = 0.0;
	m.m[15] = 1.0;
	*out = m;
	return true;
}

/* ---- public entry points ------------------------------------------------------------------ */

static bool rki_instance_matrix(const rk_scene *scene, const rk_node *node, const rk_mat4 *g2w, rk_mat4 *out);

bool rk_skin_matrices_eval(const rk_scene *scene, const rk_skin_deformer *skin, const rk_pose *pose,
	const rk_node *mesh_node, rk_mat4 *out)
{
	if (!scene || !skin || !out || !rki_in_scene(scene, mesh_node)) return false;
	rki_view v;
	if (!rki_view_init(&v, scene, pose)) return false;
	if (skin->joint_count && !skin->joints) return false;
	rki_skin_ctx sc;
	sc.view = v;
	sc.skin = skin;
	sc.mesh_index = mesh_node->index;
	sc.cached = false;
	const rk_mat4 *g2w = rki_geometry_to_world(&v, mesh_node->index);
	rk_mat4 extra;
	bool has_extra = mesh_node->mesh && rki_instance_matrix(scene, mesh_node, g2w, &extra);
	for (size_t j = 0; j < skin->joint_count; j++) {
		if (!rki_joint_matrix_compute(&sc, j, &out[j])) out[j] = *g2w;
		else if (has_extra) out[j] = rk_mat4_mul(extra, out[j]);
	}
	return true;
}

static bool rki_deform_args(const rk_scene *scene, const rk_node *node, const rk_pose *pose, const void *out, rki_view *v)
{
	if (!scene || !out || !rki_in_scene(scene, node) || !node->mesh) return false;
	if (!rki_view_init(v, scene, pose)) return false;
	const rk_mesh *mesh = node->mesh;
	if (mesh->vertex_count && !mesh->positions_f64 && !mesh->positions_f32) return false;
	if (mesh->blend_channels.count && !mesh->blend_channels.data) return false;
	return true;
}

/* A skinned mesh shared by several nodes (instancing) is deformed in the
 * space of the instance it was bound with; every instance then carries the
 * result by its own transform relative to that bind:
 *   world = geometry_to_world * inv(conversion * B) * skinned,
 * B = bind-pose matrix of the first instance that has one. Returns false
 * (identity) for meshes used by one node, the common case. */
static bool rki_instance_matrix(const rk_scene *scene, const rk_node *node, const rk_mat4 *g2w, rk_mat4 *out)
{
	*out = rk_mat4_identity();
	const rk_node *bound = NULL;
	size_t instances = 0;
	for (size_t k = 0; k < scene->nodes.count; k++) {
		const rk_node *o = &scene->nodes.data[k];
		if (o->mesh != node->mesh) continue;
		instances++;
		if (!bound && o->has_bind_pose) bound = o;
	}
	if (instances < 2 || !bound) return false;
	rk_mat4 conv = scene->root ? scene->root->node_to_parent : rk_mat4_identity();
	if (conv.m[15] == 0.0) conv = rk_mat4_identity();
	rk_mat4 cb = rk_mat4_mul(conv, bound->bind_node_to_world), icb;
	if (!rk_mat4_invert(cb, &icb)) return false;
	*out = rk_mat4_mul(*g2w, icb);
	return true;
}

bool rk_mesh_world_positions_eval(const rk_scene *scene, const rk_node *node, const rk_pose *pose,
	rk_vec3 *out_positions)
{
	rki_view v;
	if (!rki_deform_args(scene, node, pose, out_positions, &v)) return false;
	const rk_mesh *mesh = node->mesh;
	size_t n = mesh->vertex_count;
	for (size_t i = 0; i < n; i++) out_positions[i] = rk_mesh_position(mesh, i);
	rki_blend_positions(&v, node, out_positions);

	rk_mat4 g2w = *rki_geometry_to_world(&v, node->index);
	if (!node->skin) {
		for (size_t i = 0; i < n; i++) out_positions[i] = rk_mat4_transform_point(g2w, out_positions[i]);
		return true;
	}
	rki_skin_ctx sc;
	rki_skin_ctx_init(&sc, &v, node->skin, node->index);
	rk_mat4 extra;
	bool has_extra = rki_instance_matrix(scene, node, &g2w, &extra);
	for (size_t i = 0; i < n; i++) {
		rk_mat4 m;
		if (!rki_vertex_matrix(&sc, i, &m)) m = g2w;
		else if (has_extra) m = rk_mat4_mul(extra, m);
		out_positions[i] = rk_mat4_transform_point(m, out_positions[i]);
	}
	return true;
}

bool rk_mesh_world_normals_eval(const rk_scene *scene, const rk_node *node, const rk_pose *pose,
	rk_vec3 *out_normals)
{
	rki_view v;
	if (!rki_deform_args(scene, node, pose, out_normals, &v)) return false;
	const rk_mesh *mesh = node->mesh;
	const rk_attrib_vec3 *nrm = &mesh->normals;
	if (!nrm->exists || (!nrm->values_f64 && !nrm->values_f32)) return false;
	if (mesh->index_count && !mesh->vertex_indices) return false;

	/* Matrix for unskinned corners: node_to_world * geometric rotation. */
	rk_mat4 unskinned = *rki_node_to_world(&v, node->index);
	if (node->has_fbx_props) {
		rk_quat rg = rk_quat_from_euler_deg(rki_props(&v, node->index)->geometric_rotation, RK_ROTATION_XYZ);
		unskinned = rk_mat4_mul(unskinned, rk_mat4_rotation(rg));
	}

	/* 1. stored normals */
	for (size_t c = 0; c < mesh->index_count; c++) {
		size_t ni = nrm->indices ? nrm->indices[c] : c;
		out_normals[c] = ni < nrm->value_count ? rk_attrib_vec3_value(nrm, ni) : (rk_vec3){ 0, 0, 0 };
	}

	/* 2. blend shape normal offsets, target by target */
	for (size_t ch = 0; ch < mesh->blend_channels.count; ch++) {
		const rk_blend_channel *bc = &mesh->blend_channels.data[ch];
		double w = rki_channel_weight(&v, node, ch);
		if (w == 0.0 || !bc->targets) continue;
		for (size_t k = 0; k < bc->target_count; k++) {
			const rk_blend_shape *shape = &bc->targets[k];
			if (!rk_blend_shape_has_normals(shape) || !shape->vertex_indices || shape->offset_count == 0) continue;
			double f = rki_target_factor(bc, w, k);
			if (f == 0.0) continue;
			bool sorted = rki_ascending(shape->vertex_indices, shape->offset_count);
			for (size_t c = 0; c < mesh->index_count; c++) {
				size_t j = rki_find_offset(shape->vertex_indices, shape->offset_count, sorted, mesh->vertex_indices[c]);
				if (j != SIZE_MAX)
					out_normals[c] = rk_vec3_add(out_normals[c], rk_vec3_scale(rk_blend_shape_normal_offset(shape, j),
						shape->offset_weights ? f * shape->offset_weights[j] : f));
			}
		}
	}

	/* 3. transform */
	rki_skin_ctx sc;
	rk_mat4 extra;
	bool has_extra = false;
	if (node->skin) {
		rki_skin_ctx_init(&sc, &v, node->skin, node->index);
		has_extra = rki_instance_matrix(scene, node, rki_geometry_to_world(&v, node->index), &extra);
	}
	for (size_t c = 0; c < mesh->index_count; c++) {
		size_t ni = nrm->indices ? nrm->indices[c] : c;
		if (ni >= nrm->value_count) {
			out_normals[c] = (rk_vec3){ 0, 0, 0 };
			continue;
		}
		uint32_t vi = mesh->vertex_indices[c];
		rk_mat4 m;
		if (node->skin && vi < mesh->vertex_count && rki_vertex_matrix(&sc, vi, &m))
			out_normals[c] = rk_mat4_transform_normal(has_extra ? rk_mat4_mul(extra, m) : m, out_normals[c]);
		else
			out_normals[c] = rk_mat4_transform_normal(unskinned, out_normals[c]);
	}
	return true;
}
