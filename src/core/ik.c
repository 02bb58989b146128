/* src/core/ik.c - two-bone IK (see core/ik.h; conventions in rigkit/runtime.h,
 * rk_two_bone_ik_job, and docs/runtime.md). Pure double math, no allocation.
 *
 * Steps: the reach (soften, clamp), the bend direction v (the pole's part
 * perpendicular to start->target), the mid joint's place from the law of
 * cosines in the plane (u, v), then the corrections: the start joint swings
 * its bone onto the new mid joint (and, with a hinge, rolls so the hinge is
 * the plane's normal), the mid joint swings (or turns about the hinge) its
 * bone onto the reach point. Weight and local spaces last.
 *
 * The vector and quaternion operations are core/internal.h's inline forms of
 * rigkit/math.h's (rki_v3*, rki_qmul, rki_qrot, rki_qnorm_exact): the same
 * formulas in the same order, so the same bits as the out-of-line calls. */
#include "core/ik.h"

#include "core/internal.h"

#include <math.h>

rk_quat rki_quat_from_to(rk_vec3 a, rk_vec3 b)
{
	double d = rki_v3dot(a, b);
	if (d > 1.0 - 1e-12) return RK_QUAT_IDENTITY;
	if (d < -1.0 + 1e-12) {
		rk_vec3 axis = rki_v3cross(a, (rk_vec3){ 1, 0, 0 });
		if (rki_v3len(axis) < 1e-6) axis = rki_v3cross(a, (rk_vec3){ 0, 1, 0 });
		return rk_quat_axis_angle(rki_v3norm(axis), RK_PI);
	}
	rk_vec3 c = rki_v3cross(a, b);
	return rki_qnorm_exact((rk_quat){ c.x, c.y, c.z, 1.0 + d });
}

/* Rotation about unit `axis` taking `from` (perpendicular to axis) towards `to`
 * (its part perpendicular to axis). */
static rk_quat rki_turn_about(rk_vec3 axis, rk_vec3 from, rk_vec3 to)
{
	double ang = atan2(rki_v3dot(rki_v3cross(from, to), axis), rki_v3dot(from, to));
	return rk_quat_axis_angle(axis, ang);
}

/* Any unit vector perpendicular to unit u. */
static rk_vec3 rki_perpendicular(rk_vec3 u)
{
	rk_vec3 a = fabs(u.x) <= fabs(u.y) && fabs(u.x) <= fabs(u.z) ? (rk_vec3){ 1, 0, 0 }
		: fabs(u.y) <= fabs(u.z) ? (rk_vec3){ 0, 1, 0 } : (rk_vec3){ 0, 0, 1 };
	return rki_v3norm(rki_v3cross(u, a));
}

static rk_vec3 rki_reject(rk_vec3 v, rk_vec3 unit)
{
	return rki_v3sub(v, rki_v3scale(unit, rki_v3dot(v, unit)));
}

/* q on the w >= 0 half, then slerped from identity by t. */
static rk_quat rki_weighted(rk_quat q, double t)
{
	if (q.w < 0.0) q = (rk_quat){ -q.x, -q.y, -q.z, -q.w };
	return rki_qnorm_exact(rk_quat_slerp(RK_QUAT_IDENTITY, q, t));
}

/* q^-1 * r * q for unit q: the model-space rotation r seen in q's frame. */
static rk_quat rki_to_local(rk_quat q, rk_quat r)
{
	return rki_qnorm_exact(rki_qmul(rki_qconj(q), rki_qmul(r, q)));
}

static rk_quat rki_to_model(rk_quat q, rk_quat l)
{
	return rki_qnorm_exact(rki_qmul(q, rki_qmul(l, rki_qconj(q))));
}

void rki_two_bone_solve(const rki_two_bone *in, rki_two_bone_result *out)
{
	const rk_vec3 s = in->start;
	const rk_vec3 upper = rki_v3sub(in->mid, s), lower = rki_v3sub(in->end, in->mid);
	const double la = rki_v3len(upper), lb = rki_v3len(lower), chain = la + lb;
	out->start_local = out->mid_local = out->start_model = out->mid_model = RK_QUAT_IDENTITY;
	out->mid = in->mid;
	out->end = in->end;
	out->miss = 0.0;
	out->reached = false;

	rk_vec3 st = rki_v3sub(in->target, s);
	double d = rki_v3len(st);
	if (!(d > 0.0)) {
		/* target on the start joint: no direction to reach along */
		out->miss = rki_v3len(rki_v3sub(in->end, in->target));
		return;
	}
	rk_vec3 u = rki_v3scale(st, 1.0 / d);

	/* reach: softened past soften * chain, then clamped off full fold / extension */
	double dc = d;
	if (in->soften > 0.0 && in->soften < 1.0) {
		double da = in->soften * chain, ds = chain - da;
		if (d > da) dc = da + ds * (1.0 - exp(-(d - da) / ds));
	}
	double dmin = fabs(la - lb) * (1.0 + in->reach_margin), dmax = chain * (1.0 - in->reach_margin);
	dc = dc < dmin ? dmin : dc > dmax ? dmax : dc;
	out->miss = fabs(d - dc);

	/* bend direction: the pole, else the chain's current bend, else any */
	rk_vec3 bend = rki_reject(in->pole, u);
	if (!(rki_v3len(bend) > 1e-12 * rki_v3len(in->pole))) bend = rki_reject(upper, u);
	rk_vec3 v = rki_v3len(bend) > 1e-12 * la ? rki_v3norm(bend) : rki_perpendicular(u);
	if (in->twist != 0.0) v = rki_qrot(rk_quat_axis_angle(u, in->twist), v);

	/* mid joint in the plane (u, v): law of cosines */
	double x = (la * la - lb * lb + dc * dc) / (2.0 * dc);
	double y2 = la * la - x * x;
	rk_vec3 knee = rki_v3add(s, rki_v3add(rki_v3scale(u, x), rki_v3scale(v, y2 > 0.0 ? sqrt(y2) : 0.0)));
	rk_vec3 reach = rki_v3add(s, rki_v3scale(u, dc));

	/* model-space corrections at full weight */
	rk_vec3 d1 = rki_v3norm(rki_v3sub(knee, s));
	rk_quat S = rki_quat_from_to(rki_v3norm(upper), d1), M;
	rk_vec3 hinge = rki_qrot(in->mid_rotation, in->mid_axis);
	if (rki_v3len(hinge) > 0.0) {
		/* hinge mode: roll the start so the hinge (its part across the upper
		 * bone) becomes the plane's normal n = u x v; the mid turns about n */
		rk_vec3 n = rki_v3norm(rki_v3cross(u, v));
		rk_vec3 h0 = rki_reject(rki_v3norm(hinge), rki_v3norm(upper));
		if (rki_v3len(h0) > 1e-9)
			S = rki_qmul(rki_turn_about(d1, rki_qrot(S, rki_v3norm(h0)), n), S);
		rk_vec3 c = rki_qrot(S, lower), want = rki_v3sub(reach, knee);
		rk_vec3 cp = rki_reject(c, n);
		M = rki_v3len(cp) > 1e-9 * lb ? rki_turn_about(n, rki_v3norm(cp), want)
			: rki_quat_from_to(rki_v3norm(c), rki_v3norm(want));
	} else {
		/* swing mode: shortest rotations (the end first follows the start) */
		rk_vec3 e1 = rki_v3add(s, rki_qrot(S, rki_v3sub(in->end, s)));
		M = rki_quat_from_to(rki_v3norm(rki_v3sub(e1, knee)), rki_v3norm(rki_v3sub(reach, knee)));
	}
	rk_quat S_model = S, MS_model = rki_qmul(M, S);

	/* local corrections: start' = start * Cs, mid' = (S mid) * Cm with mid' = M S mid */
	rk_quat cs = rki_to_local(in->start_rotation, S_model);
	rk_quat cm = rki_to_local(in->mid_rotation, rki_qmul(rki_qconj(S_model), MS_model));
	if (in->weight < 1.0) {
		if (!(in->weight > 0.0)) return;   /* identity; mid, end as they are */
		cs = rki_weighted(cs, in->weight);
		cm = rki_weighted(cm, in->weight);
		S_model = rki_to_model(in->start_rotation, cs);
		MS_model = rki_qnorm_exact(rki_qmul(S_model, rki_to_model(in->mid_rotation, cm)));
	}
	out->start_local = cs;
	out->mid_local = cm;
	out->start_model = rki_qnorm_exact(S_model);
	out->mid_model = rki_qnorm_exact(MS_model);
	out->mid = rki_v3add(s, rki_qrot(out->start_model, upper));
	out->end = rki_v3add(out->mid, rki_qrot(out->mid_model, lower));
	out->reached = in->weight >= 1.0 && rki_v3len(rki_v3sub(out->end, in->target)) <= 1e-6 * chain;
}
