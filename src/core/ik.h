/*
 * src/core/ik.h - the two-bone IK solver (not public API), in double.
 *
 * The one implementation of two-bone IK: the public job
 * rk_two_bone_ik_run (rigkit/runtime.h, src/runtime/runtime_ik.c) validates
 * and calls it; the demo walk (formats/demo, which may not include the
 * runtime) and the retargeter's foot IK use it through those. The
 * conventions and formulas are documented on rk_two_bone_ik_job and in
 * docs/runtime.md ("Two-bone IK").
 */
#ifndef RIGKIT_CORE_IK_H
#define RIGKIT_CORE_IK_H

#include "rigkit/math.h"

#include <stdbool.h>

/* Shortest rotation taking unit vector a onto unit vector b: identity when
 * they agree within 1e-12 (dot), a half turn about an axis perpendicular to a
 * (a x X, or a x Y when a is along X) when they are opposite within 1e-12. */
rk_quat rki_quat_from_to(rk_vec3 a, rk_vec3 b);

/* Inputs, all model space except mid_axis. The caller has checked them
 * (finite, unit rotations, bones longer than 0, weight / soften in [0, 1],
 * reach_margin in [0, 0.5)): rk_two_bone_ik_validate's rules. */
typedef struct rki_two_bone {
	rk_vec3 start, mid, end;             /* joint positions */
	rk_quat start_rotation, mid_rotation; /* joint model rotations */
	rk_vec3 target, pole;
	rk_vec3 mid_axis;                    /* hinge in the mid joint's local space; zero = swing mode */
	double weight, soften, twist, reach_margin;
} rki_two_bone;

typedef struct rki_two_bone_result {
	rk_quat start_local, mid_local;      /* local = local * correction */
	rk_quat start_model, mid_model;      /* the same in model space: rotation' = correction * rotation */
	rk_vec3 mid, end;                    /* where the mid and end joints land */
	double miss;                         /* |target - start| - reach, absolute (0 when reachable) */
	bool reached;
} rki_two_bone_result;

void rki_two_bone_solve(const rki_two_bone *in, rki_two_bone_result *out);

#endif
