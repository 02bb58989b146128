/*
 * tests/test_transform.c - the FBX transform chain (seed 000) against
 * expectations derived by hand.
 *
 * The expectations never use rigkit's matrix code. Points are pushed through
 * the chain one elementary step at a time with the helpers below, written
 * straight from the textbook rotation matrices:
 *
 *   Rx(a) = [1 0 0; 0 c -s; 0 s c]   Ry(a) = [c 0 s; 0 1 0; -s 0 c]
 *   Rz(a) = [c -s 0; s c 0; 0 0 1]
 *
 * and the chain, read right to left as it acts on a point p:
 *   p -> p - Sp -> S*p -> + Sp -> + Soff -> - Rp -> inv(Rpost) -> R -> Rpre
 *     -> + Rp -> + Roff -> + T
 * where Euler order XYZ applies Rx first, then Ry, then Rz.
 */
#include "rk_test.h"

#include <rigkit/rigkit.h>

#define TOL 1e-12

typedef struct v3 { double x, y, z; } v3;

static v3 rot_x(v3 p, double deg)
{
	double a = deg * RK_PI / 180.0, c = cos(a), s = sin(a);
	return (v3){ p.x, c * p.y - s * p.z, s * p.y + c * p.z };
}

static v3 rot_y(v3 p, double deg)
{
	double a = deg * RK_PI / 180.0, c = cos(a), s = sin(a);
	return (v3){ c * p.x + s * p.z, p.y, -s * p.x + c * p.z };
}

static v3 rot_z(v3 p, double deg)
{
	double a = deg * RK_PI / 180.0, c = cos(a), s = sin(a);
	return (v3){ c * p.x - s * p.y, s * p.x + c * p.y, p.z };
}

static v3 rot_axis(v3 p, int axis, double deg)
{
	return axis == 0 ? rot_x(p, deg) : axis == 1 ? rot_y(p, deg) : rot_z(p, deg);
}

/* Applies Euler angles e (degrees) in `order`; letters name the axes in the
 * order they act on the point. */
static v3 rot_euler(v3 p, rk_vec3 e, const char *order)
{
	for (int k = 0; k < 3; k++) {
		int axis = order[k] - 'x';
		double deg = axis == 0 ? e.x : axis == 1 ? e.y : e.z;
		p = rot_axis(p, axis, deg);
	}
	return p;
}

/* Inverse of rot_euler(.., "xyz"): undo z, then y, then x. */
static v3 rot_euler_xyz_inverse(v3 p, rk_vec3 e)
{
	p = rot_z(p, -e.z);
	p = rot_y(p, -e.y);
	return rot_x(p, -e.x);
}

static v3 add(v3 a, rk_vec3 b) { return (v3){ a.x + b.x, a.y + b.y, a.z + b.z }; }
static v3 sub(v3 a, rk_vec3 b) { return (v3){ a.x - b.x, a.y - b.y, a.z - b.z }; }
static v3 mulv(v3 a, rk_vec3 b) { return (v3){ a.x * b.x, a.y * b.y, a.z * b.z }; }

static const char *const order_names[6] = { "xyz", "xzy", "yzx", "yxz", "zxy", "zyx" };

/* The whole chain by hand (rotation_active honoured). */
static v3 chain_by_hand(const rk_transform_props *p, v3 q)
{
	const char *order = p->rotation_active ? order_names[p->rotation_order % 6] : "xyz";
	q = sub(q, p->scaling_pivot);
	q = mulv(q, p->scaling);
	q = add(q, p->scaling_pivot);
	q = add(q, p->scaling_offset);
	q = sub(q, p->rotation_pivot);
	if (p->rotation_active) q = rot_euler_xyz_inverse(q, p->post_rotation);
	q = rot_euler(q, p->rotation, order);
	if (p->rotation_active) q = rot_euler(q, p->pre_rotation, "xyz");
	q = add(q, p->rotation_pivot);
	q = add(q, p->rotation_offset);
	return add(q, p->translation);
}

static const v3 sample_points[] = {
	{ 0, 0, 0 }, { 1, 0, 0 }, { 0, 1, 0 }, { 0, 0, 1 }, { 1.5, -2.25, 3.75 }, { -7, 0.5, 11 },
};

#define CHECK_CHAIN(props) check_chain(rk_t_, (props), __LINE__)

static void check_chain(rk_test_state *rk_t_, const rk_transform_props *p, int line)
{
	rk_mat4 m = rk_fbx_node_to_parent(p, NULL);
	for (size_t i = 0; i < sizeof(sample_points) / sizeof(sample_points[0]); i++) {
		v3 want = chain_by_hand(p, sample_points[i]);
		rk_vec3 got = rk_mat4_transform_point(m, (rk_vec3){ sample_points[i].x, sample_points[i].y, sample_points[i].z });
		if (fabs(got.x - want.x) > 1e-9 || fabs(got.y - want.y) > 1e-9 || fabs(got.z - want.z) > 1e-9) {
			fprintf(stderr, "line %d: point %zu: got (%g %g %g) want (%g %g %g)\n", line, i,
				got.x, got.y, got.z, want.x, want.y, want.z);
			rk_t_->failed++;
		}
	}
	/* The last row of an affine matrix stays (0 0 0 1). */
	RK_CHECK_NEAR(m.m[3], 0.0, TOL);
	RK_CHECK_NEAR(m.m[7], 0.0, TOL);
	RK_CHECK_NEAR(m.m[11], 0.0, TOL);
	RK_CHECK_NEAR(m.m[15], 1.0, TOL);
}

RK_TEST(test_translation_only)
{
	rk_transform_props p = rk_transform_props_default();
	p.translation = (rk_vec3){ 1, -2, 3.5 };
	rk_mat4 m = rk_fbx_node_to_parent(&p, NULL);
	/* Column-major: translation in elements 12..14, the 3x3 block identity. */
	double want[16] = { 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 1, -2, 3.5, 1 };
	for (int i = 0; i < 16; i++) RK_CHECK_NEAR(m.m[i], want[i], TOL);
}

RK_TEST(test_rotation_orders_against_axis_matrices)
{
	/* Ry(90) maps x to -z: (1,0,0) -> (0,0,-1), the textbook matrix. */
	rk_transform_props p = rk_transform_props_default();
	p.rotation = (rk_vec3){ 0, 90, 0 };
	rk_vec3 r = rk_mat4_transform_point(rk_fbx_node_to_parent(&p, NULL), (rk_vec3){ 1, 0, 0 });
	RK_CHECK_NEAR(r.x, 0.0, TOL);
	RK_CHECK_NEAR(r.y, 0.0, TOL);
	RK_CHECK_NEAR(r.z, -1.0, TOL);

	/* XYZ with (90, 90, 0): x first: (0,1,0) -> Rx90 -> (0,0,1) -> Ry90 -> (1,0,0). */
	p.rotation = (rk_vec3){ 90, 90, 0 };
	r = rk_mat4_transform_point(rk_fbx_node_to_parent(&p, NULL), (rk_vec3){ 0, 1, 0 });
	RK_CHECK_NEAR(r.x, 1.0, TOL);
	RK_CHECK_NEAR(r.y, 0.0, TOL);
	RK_CHECK_NEAR(r.z, 0.0, TOL);

	/* Same angles, order YXZ (rotation active): y first: (0,1,0) -> Ry90 ->
	 * (0,1,0) -> Rx90 -> (0,0,1). Different result proves the order is used. */
	p.rotation_active = true;
	p.rotation_order = RK_ROTATION_YXZ;
	r = rk_mat4_transform_point(rk_fbx_node_to_parent(&p, NULL), (rk_vec3){ 0, 1, 0 });
	RK_CHECK_NEAR(r.x, 0.0, TOL);
	RK_CHECK_NEAR(r.y, 0.0, TOL);
	RK_CHECK_NEAR(r.z, 1.0, TOL);

	/* All six orders with generic angles against the step-by-step helpers. */
	for (int o = 0; o < 6; o++) {
		p = rk_transform_props_default();
		p.rotation_active = true;
		p.rotation_order = (rk_rotation_order)o;
		p.rotation = (rk_vec3){ 23, -61, 137 };
		CHECK_CHAIN(&p);
	}
	/* Spheric XYZ evaluates as XYZ. */
	p.rotation_order = RK_ROTATION_SPHERIC_XYZ;
	rk_transform_props q = p;
	q.rotation_order = RK_ROTATION_XYZ;
	RK_CHECK(rk_mat4_max_diff(rk_fbx_node_to_parent(&p, NULL), rk_fbx_node_to_parent(&q, NULL)) < TOL);
}

RK_TEST(test_rotation_order_ignored_when_inactive)
{
	rk_transform_props p = rk_transform_props_default();
	p.rotation = (rk_vec3){ 90, 90, 0 };
	p.rotation_order = RK_ROTATION_ZYX;
	p.pre_rotation = (rk_vec3){ 0, 0, 45 };
	p.post_rotation = (rk_vec3){ 10, 0, 0 };
	p.rotation_active = false;
	/* Inactive: behaves as plain XYZ without pre/post: (0,1,0) -> (1,0,0). */
	rk_vec3 r = rk_mat4_transform_point(rk_fbx_node_to_parent(&p, NULL), (rk_vec3){ 0, 1, 0 });
	RK_CHECK_NEAR(r.x, 1.0, TOL);
	RK_CHECK_NEAR(r.y, 0.0, TOL);
	RK_CHECK_NEAR(r.z, 0.0, TOL);
	CHECK_CHAIN(&p);
	p.rotation_active = true;
	CHECK_CHAIN(&p);
}

RK_TEST(test_scaling_pivot_and_offset)
{
	rk_transform_props p = rk_transform_props_default();
	p.scaling = (rk_vec3){ 2, 3, 4 };
	p.scaling_pivot = (rk_vec3){ 1, 1, 1 };
	p.scaling_offset = (rk_vec3){ 0.5, 0, 0 };
	/* (2,2,2): minus pivot (1,1,1), scaled (2,3,4), plus pivot -> (3,4,5), plus offset -> (3.5,4,5). */
	rk_vec3 r = rk_mat4_transform_point(rk_fbx_node_to_parent(&p, NULL), (rk_vec3){ 2, 2, 2 });
	RK_CHECK_NEAR(r.x, 3.5, TOL);
	RK_CHECK_NEAR(r.y, 4.0, TOL);
	RK_CHECK_NEAR(r.z, 5.0, TOL);
	/* The pivot itself only moves by the offset. */
	r = rk_mat4_transform_point(rk_fbx_node_to_parent(&p, NULL), (rk_vec3){ 1, 1, 1 });
	RK_CHECK_NEAR(r.x, 1.5, TOL);
	RK_CHECK_NEAR(r.y, 1.0, TOL);
	RK_CHECK_NEAR(r.z, 1.0, TOL);
	CHECK_CHAIN(&p);
}

RK_TEST(test_rotation_pivot_and_offset)
{
	rk_transform_props p = rk_transform_props_default();
	p.rotation = (rk_vec3){ 0, 0, 90 };
	p.rotation_pivot = (rk_vec3){ 1, 0, 0 };
	p.rotation_offset = (rk_vec3){ 0, 0, 2 };
	/* (2,0,0) about pivot (1,0,0) by Rz90: offset (1,0,0) -> (0,1,0), back -> (1,1,0), + Roff -> (1,1,2). */
	rk_vec3 r = rk_mat4_transform_point(rk_fbx_node_to_parent(&p, NULL), (rk_vec3){ 2, 0, 0 });
	RK_CHECK_NEAR(r.x, 1.0, TOL);
	RK_CHECK_NEAR(r.y, 1.0, TOL);
	RK_CHECK_NEAR(r.z, 2.0, TOL);
	CHECK_CHAIN(&p);
}

RK_TEST(test_pre_and_post_rotation)
{
	rk_transform_props p = rk_transform_props_default();
	p.rotation_active = true;
	p.pre_rotation = (rk_vec3){ 0, 0, 90 };
	/* Pre-rotation alone acts like a rotation: (1,0,0) -> Rz90 -> (0,1,0). */
	rk_vec3 r = rk_mat4_transform_point(rk_fbx_node_to_parent(&p, NULL), (rk_vec3){ 1, 0, 0 });
	RK_CHECK_NEAR(r.x, 0.0, TOL);
	RK_CHECK_NEAR(r.y, 1.0, TOL);
	/* Post-rotation is applied inverted: (1,0,0) -> inv(Rz90) -> (0,-1,0). */
	p.pre_rotation = (rk_vec3){ 0, 0, 0 };
	p.post_rotation = (rk_vec3){ 0, 0, 90 };
	r = rk_mat4_transform_point(rk_fbx_node_to_parent(&p, NULL), (rk_vec3){ 1, 0, 0 });
	RK_CHECK_NEAR(r.x, 0.0, TOL);
	RK_CHECK_NEAR(r.y, -1.0, TOL);
	/* Pre, rotation and post combined, with a non-XYZ order (pre/post stay XYZ). */
	p.pre_rotation = (rk_vec3){ 15, -30, 45 };
	p.post_rotation = (rk_vec3){ -5, 60, 12 };
	p.rotation = (rk_vec3){ 33, 44, -55 };
	p.rotation_order = RK_ROTATION_ZXY;
	CHECK_CHAIN(&p);
}

RK_TEST(test_full_chain_combination)
{
	for (int o = 0; o < 6; o++) {
		rk_transform_props p = rk_transform_props_default();
		p.translation = (rk_vec3){ 10, -20, 30 };
		p.rotation = (rk_vec3){ 12, 34, -56 };
		p.scaling = (rk_vec3){ 1.5, -0.5, 2 };
		p.rotation_order = (rk_rotation_order)o;
		p.rotation_offset = (rk_vec3){ 0.1, 0.2, 0.3 };
		p.rotation_pivot = (rk_vec3){ -1, 2, -3 };
		p.scaling_offset = (rk_vec3){ 4, 0, -4 };
		p.scaling_pivot = (rk_vec3){ 0.5, 0.5, -0.5 };
		p.pre_rotation = (rk_vec3){ -90, 0, 0 };
		p.post_rotation = (rk_vec3){ 0, 0, 30 };
		p.rotation_active = true;
		CHECK_CHAIN(&p);
		p.rotation_active = false;
		CHECK_CHAIN(&p);
	}
}

RK_TEST(test_geometry_to_node)
{
	rk_transform_props p = rk_transform_props_default();
	p.geometric_translation = (rk_vec3){ 1, 2, 3 };
	p.geometric_rotation = (rk_vec3){ 90, 0, 90 };
	p.geometric_scaling = (rk_vec3){ 2, 2, 2 };
	/* (1,0,0): scale -> (2,0,0), Rx90 -> (2,0,0), Rz90 -> (0,2,0), + T -> (1,4,3). */
	rk_vec3 r = rk_mat4_transform_point(rk_fbx_geometry_to_node(&p), (rk_vec3){ 1, 0, 0 });
	RK_CHECK_NEAR(r.x, 1.0, TOL);
	RK_CHECK_NEAR(r.y, 4.0, TOL);
	RK_CHECK_NEAR(r.z, 3.0, TOL);
	/* (0,1,0): scale -> (0,2,0), Rx90 -> (0,0,2), Rz90 keeps -> (0,0,2), + T -> (1,2,5). */
	r = rk_mat4_transform_point(rk_fbx_geometry_to_node(&p), (rk_vec3){ 0, 1, 0 });
	RK_CHECK_NEAR(r.x, 1.0, TOL);
	RK_CHECK_NEAR(r.y, 2.0, TOL);
	RK_CHECK_NEAR(r.z, 5.0, TOL);
	/* The geometric transform never leaks into node_to_parent (children). */
	RK_CHECK(rk_mat4_max_diff(rk_fbx_node_to_parent(&p, NULL), rk_mat4_identity()) < TOL);
}

RK_TEST(test_adjust_transforms)
{
	rk_transform_props p = rk_transform_props_default();
	p.translation = (rk_vec3){ 1, 0, 0 };
	rk_adjust_transform a = rk_adjust_transform_identity();
	RK_CHECK(rk_adjust_transform_is_identity(&a));
	/* Identity adjust == no adjust. */
	RK_CHECK(rk_mat4_max_diff(rk_fbx_node_to_parent(&p, &a), rk_fbx_node_to_parent(&p, NULL)) < TOL);

	/* pre_scale 0.01 scales everything, translation included: origin -> (0.01,0,0). */
	a.pre_scale = 0.01;
	rk_vec3 r = rk_mat4_transform_point(rk_fbx_node_to_parent(&p, &a), (rk_vec3){ 0, 0, 0 });
	RK_CHECK_NEAR(r.x, 0.01, TOL);
	r = rk_mat4_transform_point(rk_fbx_node_to_parent(&p, &a), (rk_vec3){ 0, 100, 0 });
	RK_CHECK_NEAR(r.y, 1.0, TOL);

	/* pre_rotation -90 about X (Z-up -> Y-up): local +Y goes to -Z... here the
	 * translation (1,0,0) is unaffected and (0,1,0) -> (0,0,-1), then + (1,0,0). */
	a = rk_adjust_transform_identity();
	a.pre_rotation = rk_quat_axis_angle((rk_vec3){ 1, 0, 0 }, -RK_PI / 2);
	r = rk_mat4_transform_point(rk_fbx_node_to_parent(&p, &a), (rk_vec3){ 0, 1, 0 });
	RK_CHECK_NEAR(r.x, 1.0, TOL);
	RK_CHECK_NEAR(r.y, 0.0, TOL);
	RK_CHECK_NEAR(r.z, -1.0, TOL);

	/* pre_translation adds before the pre rotation: T_adj (0,0,2) then Rx(-90): (0,0,2) -> (0,2,0). */
	a.pre_translation = (rk_vec3){ 0, 0, 2 };
	r = rk_mat4_transform_point(rk_fbx_node_to_parent(&p, &a), (rk_vec3){ 0, 0, 0 });
	/* origin -> T (1,0,0) -> + (0,0,2) -> Rx(-90): (x, y, z) -> (x, z, -y) = (1, 2, 0). */
	RK_CHECK_NEAR(r.x, 1.0, TOL);
	RK_CHECK_NEAR(r.y, 2.0, TOL);
	RK_CHECK_NEAR(r.z, 0.0, TOL);

	/* translation_scale scales only the translation column: points around the
	 * node keep their offset from the (scaled) origin. */
	a = rk_adjust_transform_identity();
	a.translation_scale = 0.5;
	r = rk_mat4_transform_point(rk_fbx_node_to_parent(&p, &a), (rk_vec3){ 0, 3, 0 });
	RK_CHECK_NEAR(r.x, 0.5, TOL);
	RK_CHECK_NEAR(r.y, 3.0, TOL);

	/* post_scale and post_rotation act on the node's content first:
	 * (1,0,0) -> Rz90 -> (0,1,0) -> x2 -> (0,2,0) -> + T -> (1,2,0). */
	a = rk_adjust_transform_identity();
	a.post_rotation = rk_quat_axis_angle((rk_vec3){ 0, 0, 1 }, RK_PI / 2);
	a.post_scale = 2.0;
	r = rk_mat4_transform_point(rk_fbx_node_to_parent(&p, &a), (rk_vec3){ 1, 0, 0 });
	RK_CHECK_NEAR(r.x, 1.0, TOL);
	RK_CHECK_NEAR(r.y, 2.0, TOL);
	RK_CHECK_NEAR(r.z, 0.0, TOL);
}

RK_TEST(test_inherit_modes)
{
	/* Parent: scale (2,1,1), no rotation, at (10,0,0). Child: at (1,0,0)
	 * rotated 90 degrees about Z, unit scale. */
	rk_transform_props pp = rk_transform_props_default();
	pp.translation = (rk_vec3){ 10, 0, 0 };
	pp.scaling = (rk_vec3){ 2, 1, 1 };
	rk_world_transform pw = rk_world_transform_compose(NULL, (rk_vec3){ 1, 1, 1 }, rk_fbx_node_to_parent(&pp, NULL), RK_INHERIT_NORMAL);
	RK_CHECK_NEAR(pw.inherit_scale.x, 2.0, TOL);

	rk_transform_props cp = rk_transform_props_default();
	cp.translation = (rk_vec3){ 1, 0, 0 };
	cp.rotation = (rk_vec3){ 0, 0, 90 };
	rk_mat4 c = rk_fbx_node_to_parent(&cp, NULL);

	/* NORMAL (RSrs): world = P * C. Child's local +X (1,0,0) -> Rz90 -> (0,1,0)
	 * -> + (1,0,0) -> (1,1,0) -> parent scale (2,1,1) -> (2,1,0) -> + (10,0,0) = (12,1,0).
	 * Child's local +Y (0,1,0) -> (-1,0,0) -> (0,0,0) -> (0,0,0) -> (10,0,0):
	 * the child's Y axis is stretched x2 in world X (shear). */
	rk_world_transform w = rk_world_transform_compose(&pw, pp.scaling, c, RK_INHERIT_NORMAL);
	rk_vec3 r = rk_mat4_transform_point(w.node_to_world, (rk_vec3){ 1, 0, 0 });
	RK_CHECK_NEAR(r.x, 12.0, TOL);
	RK_CHECK_NEAR(r.y, 1.0, TOL);
	r = rk_mat4_transform_point(w.node_to_world, (rk_vec3){ 0, 1, 0 });
	RK_CHECK_NEAR(r.x, 10.0, TOL);
	RK_CHECK_NEAR(r.y, 0.0, TOL);

	/* COMPONENTWISE (RrSs): origin at parent's world of (1,0,0) = (12,0,0);
	 * rotation parent*child = Rz90; scale (2,1,1)*(1,1,1) applied in the
	 * child's own axes: local +X (1,0,0) -> scaled (2,0,0) -> Rz90 (0,2,0)
	 * -> + (12,0,0) = (12,2,0). Local +Y -> (0,1,0) -> (-1,0,0) -> (11,0,0). */
	w = rk_world_transform_compose(&pw, pp.scaling, c, RK_INHERIT_COMPONENTWISE_SCALE);
	r = rk_mat4_transform_point(w.node_to_world, (rk_vec3){ 0, 0, 0 });
	RK_CHECK_NEAR(r.x, 12.0, TOL);
	RK_CHECK_NEAR(r.y, 0.0, TOL);
	r = rk_mat4_transform_point(w.node_to_world, (rk_vec3){ 1, 0, 0 });
	RK_CHECK_NEAR(r.x, 12.0, TOL);
	RK_CHECK_NEAR(r.y, 2.0, TOL);
	r = rk_mat4_transform_point(w.node_to_world, (rk_vec3){ 0, 1, 0 });
	RK_CHECK_NEAR(r.x, 11.0, TOL);
	RK_CHECK_NEAR(r.y, 0.0, TOL);
	RK_CHECK_NEAR(w.inherit_scale.x, 2.0, TOL);

	/* IGNORE_PARENT_SCALE (Rrs): translation still scaled -> origin (12,0,0);
	 * the child keeps unit scale: local +X -> (0,1,0) + (12,0,0) = (12,1,0). */
	w = rk_world_transform_compose(&pw, pp.scaling, c, RK_INHERIT_IGNORE_PARENT_SCALE);
	r = rk_mat4_transform_point(w.node_to_world, (rk_vec3){ 0, 0, 0 });
	RK_CHECK_NEAR(r.x, 12.0, TOL);
	r = rk_mat4_transform_point(w.node_to_world, (rk_vec3){ 1, 0, 0 });
	RK_CHECK_NEAR(r.x, 12.0, TOL);
	RK_CHECK_NEAR(r.y, 1.0, TOL);
	RK_CHECK_NEAR(w.inherit_scale.x, 1.0, TOL);
	RK_CHECK_NEAR(w.inherit_scale.y, 1.0, TOL);

	/* FBX InheritType values map 0 -> RrSs, 1 -> RSrs, 2 -> Rrs. */
	RK_CHECK_INT(rk_inherit_mode_from_fbx(0), RK_INHERIT_COMPONENTWISE_SCALE);
	RK_CHECK_INT(rk_inherit_mode_from_fbx(1), RK_INHERIT_NORMAL);
	RK_CHECK_INT(rk_inherit_mode_from_fbx(2), RK_INHERIT_IGNORE_PARENT_SCALE);
}

RK_TEST(test_local_rotation_quaternion)
{
	/* rk_fbx_local_rotation must equal the rotation part of node_to_parent. */
	rk_transform_props p = rk_transform_props_default();
	p.rotation_active = true;
	p.rotation_order = RK_ROTATION_YZX;
	p.rotation = (rk_vec3){ 10, 20, 30 };
	p.pre_rotation = (rk_vec3){ 40, 0, -50 };
	p.post_rotation = (rk_vec3){ 0, 60, 0 };
	rk_quat q = rk_fbx_local_rotation(&p);
	v3 want = chain_by_hand(&p, (v3){ 0.3, -0.7, 0.2 });
	rk_vec3 got = rk_quat_rotate(q, (rk_vec3){ 0.3, -0.7, 0.2 });
	RK_CHECK_NEAR(got.x, want.x, 1e-12);
	RK_CHECK_NEAR(got.y, want.y, 1e-12);
	RK_CHECK_NEAR(got.z, want.z, 1e-12);
}

RK_TEST_MAIN(
	RK_TEST_ENTRY(test_translation_only),
	RK_TEST_ENTRY(test_rotation_orders_against_axis_matrices),
	RK_TEST_ENTRY(test_rotation_order_ignored_when_inactive),
	RK_TEST_ENTRY(test_scaling_pivot_and_offset),
	RK_TEST_ENTRY(test_rotation_pivot_and_offset),
	RK_TEST_ENTRY(test_pre_and_post_rotation),
	RK_TEST_ENTRY(test_full_chain_combination),
	RK_TEST_ENTRY(test_geometry_to_node),
	RK_TEST_ENTRY(test_adjust_transforms),
	RK_TEST_ENTRY(test_inherit_modes),
	RK_TEST_ENTRY(test_local_rotation_quaternion))
