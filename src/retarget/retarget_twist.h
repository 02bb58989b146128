/* src/retarget/retarget_twist.h - twist distribution onto a target's twist
 * joints (rigkit/retarget.h, TWIST JOINTS): state set up once per
 * rk_retarget call, applied to each frame's world rotations. No memory is
 * allocated (fixed arrays). */
#ifndef RIGKIT_RETARGET_TWIST_H
#define RIGKIT_RETARGET_TWIST_H

#include "core/internal.h"
#include "rigkit/retarget.h"

#define RKI_TWIST_MAX (RK_HUMANOID_TWIST_SEGMENTS * RK_HUMANOID_MAX_TWIST)

typedef struct rki_twist_joint {
	size_t node, parent;             /* target node indices */
	int seg;                         /* rki_twist.segs index */
	rk_vec3 axis_rest;               /* unit twist axis, rest world */
	double share;                    /* f */
	bool from_bone;                  /* bone twist (else child twist) */
} rki_twist_joint;

typedef struct rki_twist_seg {
	size_t bone, child, parent;      /* node indices of b, c and b's parent */
	rk_vec3 axis_b, axis_p;          /* unit segment axis in b's and in p's rest frame */
	rk_quat rest_cb, rest_bp;        /* Rb^-1 Rc, Rp^-1 Rb (rest world rotations) */
	double theta_c, theta_b;         /* this frame's angles (unwrapped) */
	bool used, have_prev;
} rki_twist_seg;

typedef struct rki_twist {
	size_t count;                    /* joints */
	rki_twist_joint joints[RKI_TWIST_MAX];
	rki_twist_seg segs[RK_HUMANOID_TWIST_SEGMENTS];
} rki_twist;

/* Finds the target's twist joints (none with opts->twist OFF) on the
 * segments whose bone and child are both retargeted (use[bone]), with the
 * rest world rotations / positions of every target node. Shares from
 * opts->twist_weights (a name that is no twist joint: a warning). False
 * with err on a share outside 0..1. */
bool rki_twist_init(rki_twist *t, const rk_scene *target, const rk_humanoid *ht, const bool *use,
	const rk_quat *rest_world, const rk_vec3 *rest_pos, const rk_retarget_opts *opts, rk_error *err);

/* Index of node among t's joints, or -1. */
int rki_twist_index(const rki_twist *t, size_t node);

/* One frame: world[] holds every target node's world rotation by the rule
 * (twist joints following their parents at rest); turns the twist joints'
 * entries (TWIST JOINTS). Frames must come in order (unwrapping). */
void rki_twist_apply(rki_twist *t, rk_quat *world, const rk_quat *rest_world);

/* Twist angle of unit quaternion q about unit axis a (swing-twist), in
 * [-pi, pi]. */
double rki_twist_angle(rk_quat q, rk_vec3 a);

#endif
