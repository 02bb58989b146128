/* examples/orbit.c - an object orbiting a target while facing it (seed 003).
 *
 * Object 2 (the target) sits at (3,-1,2), rotated 30 deg about X then 20 deg
 * about Z, scaled (2, 0.5, 1.5). Object 1 circles it at distance 5 in the
 * plane perpendicular to the target's world up axis, always looking at it.
 *
 * Object 1 is a root, not a child of the target: a child would inherit the
 * target's non-uniform scale, turning the circle into an ellipse and
 * squashing object 1 itself (see docs/hierarchy.md).
 *
 * Build (CMake does not build examples yet):
 *   gcc -std=c11 -Iinclude examples/orbit.c build/librigkit.a -lm
 */
#include <rigkit/rigkit.h>

#include <stdio.h>

/* Prints tiny rounding residue (e.g. -1e-17) as 0 instead of "-0.000000". */
static double clean(double x) { return (x < 5e-7 && x > -5e-7) ? 0.0 : x; }

int main(void)
{
	rk_hierarchy *h = rk_hierarchy_create(2, NULL);
	if (!h) return 1;

	const double deg = RK_PI / 180.0;
	rk_quat target_rot = rk_quat_mul(rk_quat_axis_angle(rk_vec3_make(0, 0, 1), 20 * deg),
		rk_quat_axis_angle(rk_vec3_make(1, 0, 0), 30 * deg));
	rk_trs target_trs = { { 3, -1, 2 }, target_rot, { 2, 0.5, 1.5 } };
	int32_t target = rk_hierarchy_add(h, RK_NO_PARENT, target_trs);
	int32_t obj = rk_hierarchy_add(h, RK_NO_PARENT, rk_trs_identity());
	if (target < 0 || obj < 0) {
		rk_hierarchy_destroy(h);
		return 1;
	}

	/* The target's world frame: position, up (local +Y) and right (local +X). */
	rk_vec3 center = rk_hierarchy_get_world_position(h, target);
	rk_vec3 up = rk_vec3_normalize(rk_hierarchy_transform_vector(h, target, rk_vec3_make(0, 1, 0)));
	rk_vec3 right = rk_vec3_normalize(rk_hierarchy_transform_vector(h, target, rk_vec3_make(1, 0, 0)));
	const double radius = 5.0;

	printf("target at (%.6f, %.6f, %.6f), world up (%.6f, %.6f, %.6f)\n",
		center.x, center.y, center.z, up.x, up.y, up.z);
	printf("angle  position                          forward                       distance\n");
	for (int k = 0; k < 8; k++) {
		double angle = 45.0 * k;
		/* Turn the right axis about the up axis, scale to the radius. */
		rk_quat turn = rk_quat_axis_angle(up, angle * deg);
		rk_vec3 offset = rk_quat_rotate(turn, rk_vec3_scale(right, radius));
		rk_hierarchy_set_world_position(h, obj, rk_vec3_add(center, offset));
		rk_hierarchy_look_at(h, obj, center, up);

		rk_vec3 p = rk_hierarchy_get_world_position(h, obj);
		rk_vec3 f = rk_hierarchy_transform_direction(h, obj, rk_vec3_make(0, 0, 1));
		double dist = rk_vec3_length(rk_vec3_sub(p, center));
		printf("%5.0f  (%9.6f, %9.6f, %9.6f)  (%9.6f, %9.6f, %9.6f)  %.6f\n",
			angle, clean(p.x), clean(p.y), clean(p.z), clean(f.x), clean(f.y), clean(f.z), dist);
	}

	rk_hierarchy_destroy(h);
	return 0;
}
