/* src/core/transform.c - FBX transform chain (see rigkit/transform.h for the formulas). */
#include "rigkit/transform.h"

#include <math.h>

rk_inherit_mode rk_inherit_mode_from_fbx(int64_t inherit_type)
{
	switch (inherit_type) {
	case 0: return RK_INHERIT_COMPONENTWISE_SCALE;
	case 2: return RK_INHERIT_IGNORE_PARENT_SCALE;
	default: return RK_INHERIT_NORMAL;
	}
}

rk_transform_props rk_transform_props_default(void)
{
	rk_transform_props p = { 0 };
	p.scaling = (rk_vec3){ 1, 1, 1 };
	p.geometric_scaling = (rk_vec3){ 1, 1, 1 };
	p.rotation_order = RK_ROTATION_XYZ;
	p.inherit_mode = RK_INHERIT_NORMAL;
	return p;
}

rk_adjust_transform rk_adjust_transform_identity(void)
{
	rk_adjust_transform a;
	a.pre_translation = (rk_vec3){ 0, 0, 0 };
	a.pre_rotation = RK_QUAT_IDENTITY;
	a.pre_scale = 1.0;
	a.post_rotation = RK_QUAT_IDENTITY;
	a.post_scale = 1.0;
	a.translation_scale = 1.0;
	return a;
}

static bool rki_quat_is_identity(rk_quat q)
{
	return q.x == 0.0 && q.y == 0.0 && q.z == 0.0 && fabs(q.w) == 1.0;
}

bool rk_adjust_transform_is_identity(const rk_adjust_transform *a)
{
	return !a || (a->pre_translation.x == 0.0 && a->pre_translation.y == 0.0 && a->pre_translation.z == 0.0
		&& rki_quat_is_identity(a->pre_rotation) && a->pre_scale == 1.0
		&& rki_quat_is_identity(a->post_rotation) && a->post_scale == 1.0 && a->translation_scale == 1.0);
}

rk_quat rk_fbx_lcl_rotation(const rk_transform_props *p)
{
	rk_rotation_order order = p->rotation_active ? p->rotation_order : RK_ROTATION_XYZ;
	return rk_quat_from_euler_deg(p->rotation, order);
}

rk_quat rk_fbx_local_rotation(const rk_transform_props *p)
{
	rk_quat r = rk_fbx_lcl_rotation(p);
	if (!p->rotation_active) return r;
	rk_quat pre = rk_quat_from_euler_deg(p->pre_rotation, RK_ROTATION_XYZ);
	rk_quat post = rk_quat_from_euler_deg(p->post_rotation, RK_ROTATION_XYZ);
	return rk_quat_normalize(rk_quat_mul(pre, rk_quat_mul(r, rk_quat_conjugate(post))));
}

/* The chain is built right to left by pre-multiplying an affine matrix
 * (bottom row 0 0 0 1) with translations, scalings and rotations. Each step
 * touches only what a full 4x4 product would change and sums the same terms
 * in the same order, so results equal the full products (the skipped terms
 * are exact zeros); zero translations and unit scales are skipped. This
 * halved the cost of the chain (ybot@kick.fbx load, perf). */
static void rki_pre_translate(rk_mat4 *m, rk_vec3 t, double sign)
{
	if (t.x == 0.0 && t.y == 0.0 && t.z == 0.0) return;
	m->m[12] += sign * t.x;
	m->m[13] += sign * t.y;
	m->m[14] += sign * t.z;
}

static void rki_pre_scale(rk_mat4 *m, rk_vec3 s)
{
	if (s.x == 1.0 && s.y == 1.0 && s.z == 1.0) return;
	for (int c = 0; c < 4; c++) {
		m->m[c * 4 + 0] *= s.x;
		m->m[c * 4 + 1] *= s.y;
		m->m[c * 4 + 2] *= s.z;
	}
}

static void rki_pre_rotate(rk_mat4 *m, rk_quat q)
{
	rk_mat4 r = rk_mat4_rotation(q);
	for (int c = 0; c < 4; c++) {
		double x = m->m[c * 4 + 0], y = m->m[c * 4 + 1], z = m->m[c * 4 + 2];
		for (int row = 0; row < 3; row++)
			m->m[c * 4 + row] = r.m[row] * x + r.m[4 + row] * y + r.m[8 + row] * z;
	}
}

rk_mat4 rk_fbx_node_to_parent(const rk_transform_props *p, const rk_adjust_transform *adj)
{
	/* Built right to left, i.e. in the order the terms act on a point. */
	rk_mat4 m = rk_mat4_identity();
	bool has_adj = !rk_adjust_transform_is_identity(adj);
	if (has_adj) {
		rki_pre_rotate(&m, adj->post_rotation);
		rki_pre_scale(&m, (rk_vec3){ adj->post_scale, adj->post_scale, adj->post_scale });
	}
	/* Scale about the scaling pivot, then the scaling offset. */
	rki_pre_translate(&m, p->scaling_pivot, -1.0);
	rki_pre_scale(&m, p->scaling);
	rki_pre_translate(&m, p->scaling_pivot, 1.0);
	rki_pre_translate(&m, p->scaling_offset, 1.0);
	/* Rotate about the rotation pivot: Rpre * R * inv(Rpost). */
	rki_pre_translate(&m, p->rotation_pivot, -1.0);
	rki_pre_rotate(&m, rk_fbx_local_rotation(p));
	rki_pre_translate(&m, p->rotation_pivot, 1.0);
	rki_pre_translate(&m, p->rotation_offset, 1.0);
	rki_pre_translate(&m, p->translation, 1.0);
	if (has_adj) {
		rki_pre_translate(&m, adj->pre_translation, 1.0);
		rki_pre_rotate(&m, adj->pre_rotation);
		rki_pre_scale(&m, (rk_vec3){ adj->pre_scale, adj->pre_scale, adj->pre_scale });
		m.m[12] *= adj->translation_scale;
		m.m[13] *= adj->translation_scale;
		m.m[14] *= adj->translation_scale;
	}
	return m;
}

rk_mat4 rk_adjust_transform_apply(rk_mat4 m, const rk_adjust_transform *a)
{
	if (rk_adjust_transform_is_identity(a)) return m;
	rk_mat4 post = rk_mat4_mul(rk_mat4_scaling((rk_vec3){ a->post_scale, a->post_scale, a->post_scale }),
		rk_mat4_rotation(a->post_rotation));
	rk_mat4 pre = rk_mat4_mul(rk_mat4_scaling((rk_vec3){ a->pre_scale, a->pre_scale, a->pre_scale }),
		rk_mat4_mul(rk_mat4_rotation(a->pre_rotation), rk_mat4_translation(a->pre_translation)));
	rk_mat4 full = rk_mat4_mul(pre, rk_mat4_mul(m, post));
	full.m[12] *= a->translation_scale;
	full.m[13] *= a->translation_scale;
	full.m[14] *= a->translation_scale;
	return full;
}

rk_mat4 rk_fbx_geometry_to_node(const rk_transform_props *p)
{
	rk_trs t;
	t.translation = p->geometric_translation;
	t.rotation = rk_quat_from_euler_deg(p->geometric_rotation, RK_ROTATION_XYZ);
	t.scale = p->geometric_scaling;
	return rk_mat4_from_trs(t);
}

rk_world_transform rk_world_transform_compose(const rk_world_transform *parent, rk_vec3 parent_local_scale,
	rk_mat4 node_to_parent, rk_inherit_mode mode)
{
	rk_world_transform w;
	if (!parent || mode == RK_INHERIT_NORMAL) {
		w.node_to_world = parent ? rk_mat4_mul(parent->node_to_world, node_to_parent) : node_to_parent;
		rk_trs d = rk_mat4_decompose(w.node_to_world);
		w.inherit_scale = d.scale;
		d.scale = (rk_vec3){ 1, 1, 1 };
		w.unscaled_node_to_world = rk_mat4_from_trs(d);
		return w;
	}
	if (mode == RK_INHERIT_IGNORE_PARENT_SCALE) {
		/* Maya's segment scale compensation: the parent's own local scale is
		 * undone between the child's translation and the rest of its chain:
		 *   node_to_world = parent.node_to_world * T(t) * inv(S_parent_local) * (node_to_parent - t)
		 * Translation keeps the parent's full scale; ancestors above the
		 * parent still scale the child. */
		rk_vec3 ls = parent_local_scale;
		rk_vec3 inv = { ls.x != 0.0 ? 1.0 / ls.x : 1.0, ls.y != 0.0 ? 1.0 / ls.y : 1.0, ls.z != 0.0 ? 1.0 / ls.z : 1.0 };
		rk_mat4 rs = node_to_parent;
		rk_vec3 tr = { rs.m[12], rs.m[13], rs.m[14] };
		rs.m[12] = rs.m[13] = rs.m[14] = 0.0;
		rk_mat4 local = rk_mat4_mul(rk_mat4_translation(tr), rk_mat4_mul(rk_mat4_scaling(inv), rs));
		w.node_to_world = rk_mat4_mul(parent->node_to_world, local);
		rk_trs d = rk_mat4_decompose(w.node_to_world);
		w.inherit_scale = d.scale;
		d.scale = (rk_vec3){ 1, 1, 1 };
		w.unscaled_node_to_world = rk_mat4_from_trs(d);
		return w;
	}
	rk_trs t = rk_mat4_decompose(node_to_parent);
	t.translation = rk_vec3_mul(t.translation, parent->inherit_scale);
	t.scale = rk_vec3_mul(t.scale, parent->inherit_scale);
	w.inherit_scale = t.scale;
	w.node_to_world = rk_mat4_mul(parent->unscaled_node_to_world, rk_mat4_from_trs(t));
	rk_trs u = t;
	u.scale = (rk_vec3){ 1, 1, 1 };
	w.unscaled_node_to_world = rk_mat4_mul(parent->unscaled_node_to_world, rk_mat4_from_trs(u));
	return w;
}

static double rki_limit1(double v, double lo, double hi, uint8_t lo_mask, uint8_t hi_mask, int axis)
{
	if ((lo_mask >> axis) & 1u && v < lo) v = lo;
	if ((hi_mask >> axis) & 1u && v > hi) v = hi;
	return v;
}

static rk_vec3 rki_limit3(rk_vec3 v, rk_vec3 lo, rk_vec3 hi, uint8_t lo_mask, uint8_t hi_mask)
{
	if (!(lo_mask | hi_mask)) return v;
	return (rk_vec3){ rki_limit1(v.x, lo.x, hi.x, lo_mask, hi_mask, 0), rki_limit1(v.y, lo.y, hi.y, lo_mask, hi_mask, 1),
		rki_limit1(v.z, lo.z, hi.z, lo_mask, hi_mask, 2) };
}

void rk_transform_limits_apply(const rk_transform_limits *l, rk_transform_props *p)
{
	if (!l || !p) return;
	p->translation = rki_limit3(p->translation, l->translation_min, l->translation_max, l->translation_min_mask,
		l->translation_max_mask);
	p->rotation = rki_limit3(p->rotation, l->rotation_min, l->rotation_max, l->rotation_min_mask, l->rotation_max_mask);
	p->scaling = rki_limit3(p->scaling, l->scaling_min, l->scaling_max, l->scaling_min_mask, l->scaling_max_mask);
}
