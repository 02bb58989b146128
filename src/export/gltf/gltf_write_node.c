/*
 * src/export/gltf/gltf_write_node.c - glTF nodes: the local TRS of each node
 * (also used by gltf_write_anim.c to bake poses) and the "nodes" section.
 * A helper of gltf_write.c (see the call graph in gltf_write_internal.h):
 * it calls only gltf_write_buffer.c.
 */
#include "export/gltf/gltf_write_internal.h"

#include <math.h>

bool rki_gw_trs_uses_local(const rk_node *n)
{
	return n->kind != RK_NODE_ROOT && !n->has_fbx_props && rk_adjust_transform_is_identity(&n->adjust);
}

static bool rki_gw_trs_reproduces(rk_trs t, rk_mat4 m)
{
	double mag = 1.0;
	for (int c = 0; c < 4; c++)
		for (int r = 0; r < 3; r++)
			if (fabs(m.m[c * 4 + r]) > mag) mag = fabs(m.m[c * 4 + r]);
	return rk_mat4_max_diff(rk_mat4_from_trs(t), m) <= 1e-6 * mag;
}

/* Non-finite parts become identity parts; the rotation is made unit. */
static rk_trs rki_gw_finite_trs(rk_trs t)
{
	double *tv[3] = { &t.translation.x, &t.translation.y, &t.translation.z };
	double *sv[3] = { &t.scale.x, &t.scale.y, &t.scale.z };
	for (int k = 0; k < 3; k++) {
		if (!isfinite(*tv[k])) *tv[k] = 0.0;
		if (!isfinite(*sv[k])) *sv[k] = 1.0;
	}
	rk_quat q = t.rotation;
	double len = sqrt(q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w);
	if (!(len > 1e-300) || !isfinite(len)) t.rotation = RK_QUAT_IDENTITY;
	else t.rotation = (rk_quat){ q.x / len, q.y / len, q.z / len, q.w / len };
	return t;
}

rk_trs rki_gw_local_trs(const rki_gw *w, const rk_node *n, const rk_mat4 *node_to_parent,
	const rk_mat4 *node_to_world, const rk_mat4 *parent_to_world, const rk_trs *local, bool *exact)
{
	(void)w;
	rk_trs t;
	if (rki_gw_trs_uses_local(n) && local) {
		*exact = true;
		return rki_gw_finite_trs(*local);
	}
	rk_mat4 m = *node_to_parent;
	if (n->has_fbx_props && n->props.inherit_mode != RK_INHERIT_NORMAL && parent_to_world) {
		rk_mat4 inv;
		if (rk_mat4_invert_affine(*parent_to_world, &inv)) m = rk_mat4_mul(inv, *node_to_world);
	}
	t = rki_gw_finite_trs(rk_mat4_decompose(m));
	*exact = rki_gw_trs_reproduces(t, m);
	return t;
}

static void rki_gw_write_trs(rk_json_writer *j, rk_trs t)
{
	if (t.translation.x != 0.0 || t.translation.y != 0.0 || t.translation.z != 0.0) {
		double v[3] = { t.translation.x, t.translation.y, t.translation.z };
		rk_json_numbers(j, "translation", v, 3);
	}
	if (t.rotation.x != 0.0 || t.rotation.y != 0.0 || t.rotation.z != 0.0 || t.rotation.w != 1.0) {
		double v[4] = { t.rotation.x, t.rotation.y, t.rotation.z, t.rotation.w };
		rk_json_numbers(j, "rotation", v, 4);
	}
	if (t.scale.x != 1.0 || t.scale.y != 1.0 || t.scale.z != 1.0) {
		double v[3] = { t.scale.x, t.scale.y, t.scale.z };
		rk_json_numbers(j, "scale", v, 3);
	}
}

bool rki_gw_compute_nodes(rki_gw *w)
{
	const rk_scene *s = w->scene;
	size_t n = s->nodes.count;
	for (size_t i = 0; i < n; i++) {
		const rk_node *nd = &s->nodes.data[i];
		if (i == 0) {
			w->node_out[i] = w->write_root ? 0 : -1;
			bool exact = true;
			w->node_trs[i] = rki_gw_finite_trs(rk_mat4_decompose(w->root_matrix));
			exact = rki_gw_trs_reproduces(w->node_trs[i], w->root_matrix);
			if (!exact) rki_gw_warn(w, "root conversion shears; written as the nearest TRS");
			continue;
		}
		if ((size_t)INT32_MAX <= i) return rki_gw_fail(w, RK_ERROR_UNSUPPORTED, "glTF writer: too many nodes");
		w->node_out[i] = (int32_t)(w->write_root ? i : i - 1);
		bool exact = true;
		const rk_mat4 *pw = nd->parent ? &nd->parent->node_to_world : NULL;
		w->node_trs[i] = rki_gw_local_trs(w, nd, &nd->node_to_parent, &nd->node_to_world, pw, &nd->local, &exact);
		if (!exact)
			rki_gw_warn(w, "node \"%s\": transform shears (FBX inherit mode / parent scale), written as the nearest TRS", nd->name);
	}
	return true;
}

bool rki_gw_write_nodes(rki_gw *w)
{
	const rk_scene *s = w->scene;
	rk_json_writer *j = rki_gw_section_json(&w->nodes);
	for (size_t i = 0; i < s->nodes.count; i++) {
		const rk_node *nd = &s->nodes.data[i];
		if (w->node_out[i] < 0) continue;
		rk_json_object_begin(j, NULL);
		if (i == 0) rk_json_string(j, "name", w->opts.root_name);
		else if (nd->name && nd->name[0]) rk_json_string(j, "name", nd->name);
		bool extra_children = w->attr_child && (w->attr_child[2 * i] >= 0 || w->attr_child[2 * i + 1] >= 0);
		if (nd->children.count > 0 || extra_children) {
			rk_json_array_begin(j, "children");
			for (size_t c = 0; c < nd->children.count; c++)
				rk_json_uint(j, NULL, (uint64_t)w->node_out[nd->children.data[c]->index]);
			rki_gw_attr_children(w, j, nd);
			rk_json_array_end(j);
		}
		rki_gw_write_trs(j, w->node_trs[i]);
		if (w->node_mesh[i] >= 0) {
			rk_json_uint(j, "mesh", (uint64_t)w->node_mesh[i]);
			if (w->node_skin[i] >= 0) rk_json_uint(j, "skin", (uint64_t)w->node_skin[i]);
			const rk_mesh *m = nd->mesh;
			if (nd->blend_weights && m->blend_channels.count > 0) {
				bool differs = false;
				for (size_t c = 0; c < m->blend_channels.count; c++)
					if (nd->blend_weights[c] != m->blend_channels.data[c].default_weight) differs = true;
				if (differs) rk_json_numbers(j, "weights", nd->blend_weights, m->blend_channels.count);
			}
		}
		bool has_light = false;
		if (i > 0) rki_gw_attr_node(w, j, nd, &has_light);
		if (rki_gw_ext_has(w, RK_EXT_OWNER_NODE, nd) || has_light) {
			rk_json_object_begin(j, "extensions");
			rki_gw_ext_write(w, j, RK_EXT_OWNER_NODE, nd);
			if (has_light) rki_gw_attr_node_light(w, j, nd);
			rk_json_object_end(j);
		}
		if (i > 0) rki_gw_extras_write(w, j, nd->extras);
		rk_json_object_end(j);
		w->nodes.count++;
	}
	rki_gw_attr_write_nodes(w, j);
	return true;
}
