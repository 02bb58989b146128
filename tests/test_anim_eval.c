/*
 * tests/test_anim_eval.c - animation evaluation (rigkit/anim.h) against
 * expectations derived by hand.
 *
 * Curves: every expected value is written out from the definitions in the
 * header (linear midpoints, the Hermite basis, the Bezier evaluated
 * parametrically here, extrapolation cycles counted by hand). Poses and
 * skinning use small scenes built by hand in this file (no loader); joint
 * positions and skinned vertices were worked out on paper and are quoted in
 * the comments. The only rigkit code used to build expectations is
 * rki_scene_update_matrices() for the "static pose equals the scene's
 * cached matrices" checks, which is exactly what those tests compare with.
 */
#include "rk_test.h"

#include <rigkit/anim.h>
#include <rigkit/rigkit.h>

#include "scene/scene_internal.h"

#include <stdint.h>

#define TOL 1e-12

/* ---------------------------------------------------------------------------
 * Curve helpers
 * ------------------------------------------------------------------------- */

#define MAXK 8

typedef struct tcurve {
	rk_anim_curve c;
	double t[MAXK], v[MAXK], rs[MAXK], ls[MAXK], rw[MAXK], lw[MAXK];
	rk_interp in[MAXK];
} tcurve;

/* Curve with n keys, every segment `mode`, zero slopes, default weights. */
static void tcurve_init(tcurve *tc, size_t n, const double *t, const double *v, rk_interp mode)
{
	memset(tc, 0, sizeof(*tc));
	for (size_t i = 0; i < n; i++) {
		tc->t[i] = t[i];
		tc->v[i] = v[i];
		tc->in[i] = mode;
		tc->rw[i] = tc->lw[i] = 1.0 / 3.0;
	}
	tc->c.key_count = n;
	tc->c.times = tc->t;
	tc->c.values = tc->v;
	tc->c.interp = tc->in;
	tc->c.right_slope = tc->rs;
	tc->c.left_slope = tc->ls;
	tc->c.right_weight = tc->rw;
	tc->c.left_weight = tc->lw;
	tc->c.pre_repeat_count = tc->c.post_repeat_count = -1;
}

static double eval(const tcurve *tc, double t) { return rk_anim_curve_eval(&tc->c, t, false); }

/* Cubic Hermite on [ta, tb] with value tangents (per second) sa, sb. */
static double hermite(double ta, double tb, double va, double vb, double sa, double sb, double t)
{
	double dt = tb - ta, u = (t - ta) / dt;
	double h00 = 2 * u * u * u - 3 * u * u + 1;
	double h10 = u * u * u - 2 * u * u + u;
	double h01 = -2 * u * u * u + 3 * u * u;
	double h11 = u * u * u - u * u;
	return h00 * va + h10 * dt * sa + h01 * vb + h11 * dt * sb;
}

/* ---------------------------------------------------------------------------
 * Curves
 * ------------------------------------------------------------------------- */

RK_TEST(test_curve_constant_and_linear)
{
	tcurve tc;
	const double t[3] = { 0, 1, 3 }, v[3] = { 0, 10, 4 };
	tcurve_init(&tc, 3, t, v, RK_INTERP_LINEAR);
	tc.in[0] = RK_INTERP_CONSTANT;
	RK_CHECK_NEAR(eval(&tc, 0.0), 0.0, TOL);
	RK_CHECK_NEAR(eval(&tc, 0.5), 0.0, TOL);    /* held */
	RK_CHECK_NEAR(eval(&tc, 0.999), 0.0, TOL);
	RK_CHECK_NEAR(eval(&tc, 1.0), 10.0, TOL);   /* on the key */
	RK_CHECK_NEAR(eval(&tc, 2.0), 7.0, TOL);    /* midpoint of 10 -> 4 */
	RK_CHECK_NEAR(eval(&tc, 2.5), 5.5, TOL);
	RK_CHECK_NEAR(eval(&tc, 3.0), 4.0, TOL);

	tc.in[0] = RK_INTERP_CONSTANT_NEXT;
	RK_CHECK_NEAR(eval(&tc, 0.0), 0.0, TOL);    /* exactly on key 0 */
	RK_CHECK_NEAR(eval(&tc, 0.001), 10.0, TOL); /* jumps to the next value */
	RK_CHECK_NEAR(eval(&tc, 0.5), 10.0, TOL);

	/* NULL interp array = linear everywhere. */
	tc.c.interp = NULL;
	RK_CHECK_NEAR(eval(&tc, 0.25), 2.5, TOL);
}

RK_TEST(test_curve_degenerate)
{
	tcurve tc;
	const double t[1] = { 2 }, v[1] = { 7 };
	tcurve_init(&tc, 1, t, v, RK_INTERP_CUBIC);
	tc.c.pre_extrapolation = RK_EXTRAPOLATE_SLOPE;
	RK_CHECK_NEAR(eval(&tc, -100.0), 7.0, 0);
	RK_CHECK_NEAR(eval(&tc, 2.0), 7.0, 0);
	RK_CHECK_NEAR(eval(&tc, 100.0), 7.0, 0);
	tc.c.key_count = 0;
	RK_CHECK_NEAR(eval(&tc, 1.0), 0.0, 0);
	RK_CHECK_NEAR(rk_anim_curve_eval(NULL, 1.0, false), 0.0, 0);

	const double t2[2] = { 0, 1 }, v2[2] = { 3, 5 };
	tcurve_init(&tc, 2, t2, v2, RK_INTERP_LINEAR);
	RK_CHECK_NEAR(eval(&tc, NAN), 3.0, 0);
	RK_CHECK_NEAR(eval(&tc, INFINITY), 5.0, 0);
	RK_CHECK_NEAR(eval(&tc, -INFINITY), 3.0, 0);
	tc.c.post_extrapolation = RK_EXTRAPOLATE_REPEAT;
	RK_CHECK_NEAR(eval(&tc, INFINITY), 5.0, 0);
}

RK_TEST(test_curve_cubic_default_weights_is_hermite)
{
	tcurve tc;
	const double t[3] = { 1, 3, 4 }, v[3] = { 2, 5, -1 };
	tcurve_init(&tc, 3, t, v, RK_INTERP_CUBIC);
	tc.rs[0] = 4.0;   /* leaves key 0 */
	tc.ls[1] = -1.0;  /* enters key 1 */
	tc.rs[1] = 2.5;
	tc.ls[2] = 0.5;
	for (int i = 0; i <= 20; i++) {
		double x = 1.0 + 2.0 * i / 20.0;
		RK_CHECK_NEAR(eval(&tc, x), hermite(1, 3, 2, 5, 4.0, -1.0, x), 1e-12);
		double y = 3.0 + i / 20.0;
		RK_CHECK_NEAR(eval(&tc, y), hermite(3, 4, 5, -1, 2.5, 0.5, y), 1e-12);
	}
	/* One value by hand: t = 2 (u = 0.5, dt = 2): h00 = h01 = 0.5,
	 * h10 = 0.125, h11 = -0.125 -> 1 + 0.125*8 + 2.5 - 0.125*(-2) = 4.75. */
	RK_CHECK_NEAR(eval(&tc, 2.0), 4.75, 1e-12);
	/* NULL weight arrays mean 1/3 too. */
	tc.c.right_weight = tc.c.left_weight = NULL;
	RK_CHECK_NEAR(eval(&tc, 2.0), 4.75, 1e-12);
}

/* Bezier of a cubic segment, evaluated parametrically. */
static void bezier(double ta, double tb, double va, double vb, double sr, double sl, double wr, double wl,
	double s, double *x, double *y)
{
	double dt = tb - ta, is = 1 - s;
	double x1 = ta + wr * dt, x2 = tb - wl * dt;
	double y1 = va + wr * dt * sr, y2 = vb - wl * dt * sl;
	*x = is * is * is * ta + 3 * is * is * s * x1 + 3 * is * s * s * x2 + s * s * s * tb;
	*y = is * is * is * va + 3 * is * is * s * y1 + 3 * is * s * s * y2 + s * s * s * vb;
}

RK_TEST(test_curve_weighted_tangents)
{
	tcurve tc;
	const double t[2] = { 0.5, 2.5 }, v[2] = { 1, -3 };
	tcurve_init(&tc, 2, t, v, RK_INTERP_CUBIC);
	tc.rs[0] = 6.0;
	tc.ls[1] = 2.0;
	tc.rw[0] = 0.6;
	tc.lw[1] = 0.1;
	for (int i = 1; i < 20; i++) {
		double s = i / 20.0, x, y;
		bezier(0.5, 2.5, 1, -3, 6.0, 2.0, 0.6, 0.1, s, &x, &y);
		RK_CHECK_NEAR(eval(&tc, x), y, 1e-9);
	}
	/* Weights summing over 1 are scaled to sum 1: 0.9, 0.6 -> 0.6, 0.4. */
	tc.rw[0] = 0.9;
	tc.lw[1] = 0.6;
	for (int i = 1; i < 20; i++) {
		double s = i / 20.0, x, y;
		bezier(0.5, 2.5, 1, -3, 6.0, 2.0, 0.6, 0.4, s, &x, &y);
		RK_CHECK_NEAR(eval(&tc, x), y, 1e-9);
	}
	/* Zero weights: control points on the keys. */
	tc.rw[0] = 0.0;
	tc.lw[1] = 0.0;
	for (int i = 1; i < 20; i++) {
		double s = i / 20.0, x, y;
		bezier(0.5, 2.5, 1, -3, 6.0, 2.0, 0.0, 0.0, s, &x, &y);
		RK_CHECK_NEAR(eval(&tc, x), y, 1e-9);
	}
}

RK_TEST(test_curve_extrapolation)
{
	/* Keys (1, 10), (3, 20), linear: D = 2, value 10 + 5 (t - 1) inside. */
	tcurve tc;
	const double t[2] = { 1, 3 }, v[2] = { 10, 20 };
	tcurve_init(&tc, 2, t, v, RK_INTERP_LINEAR);

	/* CONSTANT (default) */
	RK_CHECK_NEAR(eval(&tc, -5.0), 10.0, TOL);
	RK_CHECK_NEAR(eval(&tc, 9.0), 20.0, TOL);

	/* REPEAT after: t = 4 -> u = 1, cycle 1, phase 1 -> curve(2) = 15;
	 * t = 6.5 -> u = 3.5, cycle 2, phase 1.5 -> curve(2.5) = 17.5. */
	tc.c.post_extrapolation = RK_EXTRAPOLATE_REPEAT;
	RK_CHECK_NEAR(eval(&tc, 4.0), 15.0, TOL);
	RK_CHECK_NEAR(eval(&tc, 6.5), 17.5, TOL);
	/* REPEAT before: t = 0.5 -> u = 0.5 -> curve(3 - 0.5) = 17.5;
	 * t = -1.5 -> u = 2.5, cycle 2, phase 0.5 -> 17.5; t = -2 -> u = 3 -> curve(2) = 15. */
	tc.c.pre_extrapolation = RK_EXTRAPOLATE_REPEAT;
	RK_CHECK_NEAR(eval(&tc, 0.5), 17.5, TOL);
	RK_CHECK_NEAR(eval(&tc, -1.5), 17.5, TOL);
	RK_CHECK_NEAR(eval(&tc, -2.0), 15.0, TOL);

	/* REPEAT_RELATIVE: + k * (20 - 10) after, - k * 10 before. */
	tc.c.post_extrapolation = tc.c.pre_extrapolation = RK_EXTRAPOLATE_REPEAT_RELATIVE;
	RK_CHECK_NEAR(eval(&tc, 4.0), 25.0, TOL);   /* 15 + 10 */
	RK_CHECK_NEAR(eval(&tc, 6.5), 37.5, TOL);   /* 17.5 + 20 */
	RK_CHECK_NEAR(eval(&tc, 0.5), 7.5, TOL);    /* 17.5 - 10 */
	RK_CHECK_NEAR(eval(&tc, -1.5), -2.5, TOL);  /* 17.5 - 20 */

	/* MIRROR after: t = 3.5 (k 1, r .5) -> curve(2.5) = 17.5; t = 5.5 (k 2,
	 * r .5) -> curve(1.5) = 12.5. Before: t = 0.5 (k 1) -> curve(1.5) = 12.5;
	 * t = -1.5 (k 2, r .5) -> curve(2.5) = 17.5. */
	tc.c.post_extrapolation = tc.c.pre_extrapolation = RK_EXTRAPOLATE_MIRROR;
	RK_CHECK_NEAR(eval(&tc, 3.5), 17.5, TOL);
	RK_CHECK_NEAR(eval(&tc, 5.5), 12.5, TOL);
	RK_CHECK_NEAR(eval(&tc, 0.5), 12.5, TOL);
	RK_CHECK_NEAR(eval(&tc, -1.5), 17.5, TOL);

	/* SLOPE: linear segments continue with slope 5. */
	tc.c.post_extrapolation = tc.c.pre_extrapolation = RK_EXTRAPOLATE_SLOPE;
	RK_CHECK_NEAR(eval(&tc, 4.0), 25.0, TOL);
	RK_CHECK_NEAR(eval(&tc, 0.0), 5.0, TOL);

	/* no_extrapolation holds the end values whatever the modes say. */
	RK_CHECK_NEAR(rk_anim_curve_eval(&tc.c, 4.0, true), 20.0, 0);
	RK_CHECK_NEAR(rk_anim_curve_eval(&tc.c, 0.0, true), 10.0, 0);
	tc.c.post_extrapolation = tc.c.pre_extrapolation = RK_EXTRAPOLATE_REPEAT;
	RK_CHECK_NEAR(rk_anim_curve_eval(&tc.c, 4.0, true), 20.0, 0);
	RK_CHECK_NEAR(rk_anim_curve_eval(&tc.c, -1.5, true), 10.0, 0);

	/* Repeat counts: one cycle, then hold the value at its end. */
	tc.c.post_repeat_count = 1;
	tc.c.pre_repeat_count = 1;
	RK_CHECK_NEAR(eval(&tc, 4.0), 15.0, TOL);   /* inside cycle 1 */
	RK_CHECK_NEAR(eval(&tc, 6.5), 20.0, TOL);   /* past it: end of cycle 1 = curve(3) */
	RK_CHECK_NEAR(eval(&tc, 0.5), 17.5, TOL);
	RK_CHECK_NEAR(eval(&tc, -1.5), 10.0, TOL);  /* before cycle 1's start = curve(1) */
	tc.c.post_extrapolation = RK_EXTRAPOLATE_REPEAT_RELATIVE;
	RK_CHECK_NEAR(eval(&tc, 6.5), 30.0, TOL);   /* curve(3) + 1 * 10 */
	tc.c.post_extrapolation = RK_EXTRAPOLATE_MIRROR;
	RK_CHECK_NEAR(eval(&tc, 5.5), 10.0, TOL);   /* end of mirrored cycle 1 = curve(1) */
	tc.c.post_repeat_count = 2;
	RK_CHECK_NEAR(eval(&tc, 5.5), 12.5, TOL);   /* cycle 2 allowed */
	RK_CHECK_NEAR(eval(&tc, 8.0), 20.0, TOL);   /* beyond: end of cycle 2 = curve(3) */
	tc.c.post_repeat_count = 0;                 /* 0 = constant */
	RK_CHECK_NEAR(eval(&tc, 4.0), 20.0, TOL);

	/* SLOPE with cubic ends uses the outer keys' tangents. */
	const double t3[3] = { 0, 1, 2 }, v3[3] = { 0, 1, 0 };
	tcurve_init(&tc, 3, t3, v3, RK_INTERP_CUBIC);
	tc.rs[0] = 3.0;
	tc.ls[2] = -2.0;
	tc.c.post_extrapolation = tc.c.pre_extrapolation = RK_EXTRAPOLATE_SLOPE;
	RK_CHECK_NEAR(eval(&tc, 3.0), -2.0, TOL);   /* 0 + (-2) * 1 */
	RK_CHECK_NEAR(eval(&tc, -0.5), -1.5, TOL);  /* 0 - 3 * 0.5 */
	/* A constant end segment has slope 0. */
	tc.in[1] = RK_INTERP_CONSTANT;
	RK_CHECK_NEAR(eval(&tc, 3.0), 0.0, TOL);
}

/* ---------------------------------------------------------------------------
 * glTF samplers and tracks
 * ------------------------------------------------------------------------- */

RK_TEST(test_sampler_step_and_linear)
{
	const double times[3] = { 0, 1, 2 };
	const double values[9] = { 0, 0, 0, 2, 4, 6, 10, 10, 10 };
	rk_anim_track tr;
	memset(&tr, 0, sizeof(tr));
	tr.target = RK_TARGET_TRANSLATION;
	tr.key_count = 3;
	tr.times = times;
	tr.values_f64 = values;
	tr.components = 3;
	tr.interpolation = RK_INTERP_LINEAR;
	RK_CHECK_INT(rk_anim_track_value_count(&tr), 3);
	RK_CHECK_INT(rk_anim_track_eval(&tr, 0.0, false, NULL, 0), 3);
	double out[3];
	rk_anim_track_eval(&tr, 0.25, false, out, 3);
	RK_CHECK_NEAR(out[0], 0.5, TOL);
	RK_CHECK_NEAR(out[1], 1.0, TOL);
	RK_CHECK_NEAR(out[2], 1.5, TOL);
	rk_anim_track_eval(&tr, 1.5, false, out, 3);
	RK_CHECK_NEAR(out[0], 6.0, TOL);
	RK_CHECK_NEAR(out[1], 7.0, TOL);
	RK_CHECK_NEAR(out[2], 8.0, TOL);
	/* clamped outside */
	rk_anim_track_eval(&tr, -3.0, false, out, 3);
	RK_CHECK_NEAR(out[0], 0.0, 0);
	rk_anim_track_eval(&tr, 7.0, false, out, 3);
	RK_CHECK_NEAR(out[1], 10.0, 0);
	/* out_count smaller than the value count writes only that many. */
	out[1] = -99;
	rk_anim_track_eval(&tr, 0.25, false, out, 1);
	RK_CHECK_NEAR(out[0], 0.5, TOL);
	RK_CHECK_NEAR(out[1], -99.0, 0);

	tr.interpolation = RK_INTERP_CONSTANT; /* glTF STEP */
	rk_anim_track_eval(&tr, 1.5, false, out, 3);
	RK_CHECK_NEAR(out[0], 2.0, 0);
	RK_CHECK_NEAR(out[2], 6.0, 0);
	rk_anim_track_eval(&tr, 0.999, false, out, 3);
	RK_CHECK_NEAR(out[0], 0.0, 0);
	rk_anim_track_eval(&tr, 2.0, false, out, 3);
	RK_CHECK_NEAR(out[0], 10.0, 0);
}

RK_TEST(test_sampler_slerp)
{
	/* 0 and 90 degrees about Y. q(a) = (0, sin(a/2), 0, cos(a/2)). */
	double h = sqrt(0.5);
	const double times[2] = { 0, 1 };
	double values[8] = { 0, 0, 0, 1, 0, h, 0, h };
	rk_anim_track tr;
	memset(&tr, 0, sizeof(tr));
	tr.target = RK_TARGET_ROTATION_QUAT;
	tr.key_count = 2;
	tr.times = times;
	tr.values_f64 = values;
	tr.components = 4;
	tr.interpolation = RK_INTERP_LINEAR;
	double q[4];
	rk_anim_track_eval(&tr, 0.5, false, q, 4);
	/* 45 degrees: half angle 22.5 degrees. */
	RK_CHECK_NEAR(q[0], 0.0, TOL);
	RK_CHECK_NEAR(q[1], sin(RK_PI / 8), TOL);
	RK_CHECK_NEAR(q[2], 0.0, TOL);
	RK_CHECK_NEAR(q[3], cos(RK_PI / 8), TOL);
	/* Constant angular velocity: t = 0.25 -> 22.5 degrees (nlerp would not be). */
	rk_anim_track_eval(&tr, 0.25, false, q, 4);
	RK_CHECK_NEAR(q[1], sin(RK_PI / 16), TOL);
	RK_CHECK_NEAR(q[3], cos(RK_PI / 16), TOL);
	/* Shortest path: the second key negated is the same rotation. */
	for (int k = 4; k < 8; k++) values[k] = -values[k];
	rk_anim_track_eval(&tr, 0.5, false, q, 4);
	double sign = q[3] < 0 ? -1.0 : 1.0;
	RK_CHECK_NEAR(sign * q[1], sin(RK_PI / 8), TOL);
	RK_CHECK_NEAR(sign * q[3], cos(RK_PI / 8), TOL);
}

RK_TEST(test_sampler_cubic_spline)
{
	/* Scalar weights track, two keys at t = 0 and 2 (dt = 2):
	 *   key 0: in 0, value 1, out 3;  key 1: in -1, value 2, out 0.
	 * At t = 0.5, u = 0.25: h00 = 0.84375, h10 = 0.140625, h01 = 0.15625,
	 * h11 = -0.046875 -> 0.84375*1 + 0.140625*2*3 + 0.15625*2
	 * + (-0.046875)*2*(-1) = 0.84375 + 0.84375 + 0.3125 + 0.09375 = 2.09375. */
	const double times[2] = { 0, 2 };
	const double values[6] = { 0, 1, 3, -1, 2, 0 };
	rk_anim_track tr;
	memset(&tr, 0, sizeof(tr));
	tr.target = RK_TARGET_MORPH_WEIGHTS;
	tr.key_count = 2;
	tr.times = times;
	tr.values_f64 = values;
	tr.components = 1;
	tr.interpolation = RK_INTERP_CUBIC;
	double out;
	rk_anim_track_eval(&tr, 0.5, false, &out, 1);
	RK_CHECK_NEAR(out, 2.09375, TOL);
	rk_anim_track_eval(&tr, 0.0, false, &out, 1);
	RK_CHECK_NEAR(out, 1.0, 0);
	rk_anim_track_eval(&tr, 5.0, false, &out, 1);
	RK_CHECK_NEAR(out, 2.0, 0);

	/* Cubic quaternions come out normalised. */
	const double qv[24] = {
		0, 0, 0, 0,   0, 0, 0, 1,   0, 0.5, 0, 0,
		0, 0.5, 0, 0, 0, sqrt(0.5), 0, sqrt(0.5), 0, 0, 0, 0,
	};
	tr.target = RK_TARGET_ROTATION_QUAT;
	tr.components = 4;
	tr.values_f64 = qv;
	double q[4];
	rk_anim_track_eval(&tr, 1.0, false, q, 4);
	RK_CHECK_NEAR(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3], 1.0, 1e-12);
	RK_CHECK(q[1] > 0.0);
}

RK_TEST(test_curve_track_defaults)
{
	tcurve tc;
	const double t[2] = { 0, 2 }, v[2] = { 0, 4 };
	tcurve_init(&tc, 2, t, v, RK_INTERP_LINEAR);
	rk_anim_track tr;
	memset(&tr, 0, sizeof(tr));
	tr.target = RK_TARGET_SCALE;
	tr.curves[1] = &tc.c;
	tr.default_value[0] = 7;
	tr.default_value[2] = 9;
	tr.default_value[3] = 11;
	RK_CHECK_INT(rk_anim_track_value_count(&tr), 4);
	double out[4];
	RK_CHECK_INT(rk_anim_track_eval(&tr, 1.0, false, out, 4), 4);
	RK_CHECK_NEAR(out[0], 7.0, 0);
	RK_CHECK_NEAR(out[1], 2.0, TOL);
	RK_CHECK_NEAR(out[2], 9.0, 0);
	RK_CHECK_NEAR(out[3], 11.0, 0);
}

/* ---------------------------------------------------------------------------
 * Hand-built scenes
 * ------------------------------------------------------------------------- */

#define MAXN 16

typedef struct tscene {
	rk_scene scene;
	rk_node nodes[MAXN];
	rk_node *child_pool[MAXN];
} tscene;

static void tscene_init(tscene *ts)
{
	memset(ts, 0, sizeof(*ts));
	ts->scene.nodes.data = ts->nodes;
	rk_node *root = &ts->nodes[0];
	root->name = "";
	root->kind = RK_NODE_ROOT;
	root->props = rk_transform_props_default();
	root->adjust = rk_adjust_transform_identity();
	root->local = rk_trs_identity();
	ts->scene.nodes.count = 1;
	ts->scene.root = root;
}

static rk_node *tscene_add(tscene *ts, size_t parent, const char *name, rk_node_kind kind, bool fbx)
{
	size_t i = ts->scene.nodes.count++;
	rk_node *n = &ts->nodes[i];
	n->index = (uint32_t)i;
	n->name = name;
	n->kind = kind;
	n->parent = &ts->nodes[parent];
	n->has_fbx_props = fbx;
	n->props = rk_transform_props_default();
	n->adjust = rk_adjust_transform_identity();
	n->local = rk_trs_identity();
	n->attribute_type = "";
	n->default_uv_set = "";
	n->visible = true;
	return n;
}

/* Children lists, then the static caches. */
static void tscene_finish(tscene *ts)
{
	size_t used = 0;
	for (size_t p = 0; p < ts->scene.nodes.count; p++) {
		rk_node *pn = &ts->nodes[p];
		pn->children.data = &ts->child_pool[used];
		pn->children.count = 0;
		for (size_t c = p + 1; c < ts->scene.nodes.count; c++)
			if (ts->nodes[c].parent == pn) ts->child_pool[used + pn->children.count++] = &ts->nodes[c];
		used += pn->children.count;
	}
	rki_scene_update_matrices(&ts->scene);
}

/* A pose with its own heap block (allocated by the test, once). */
typedef struct tpose {
	rk_pose pose;
	void *mem;
} tpose;

static bool tpose_init(tpose *tp, const rk_scene *s)
{
	size_t bytes = rk_pose_memory_size(s);
	tp->mem = malloc(bytes);
	return tp->mem && rk_pose_init(&tp->pose, s, tp->mem, bytes);
}

static void tpose_free(tpose *tp) { free(tp->mem); }

static bool eval_pose(const rk_scene *s, const rk_anim_clip *clip, double time, bool noex, rk_pose *pose)
{
	rk_pose_eval_job job = { .scene = s, .clip = clip, .time = time, .no_extrapolation = noex, .pose = pose };
	rk_error err = { 0 };
	if (!rk_pose_eval_validate(&job, &err)) {
		fprintf(stderr, "validate: %s\n", err.message);
		return false;
	}
	return rk_pose_eval_run(&job);
}

static bool mat_equal(rk_mat4 a, rk_mat4 b) { return memcmp(&a, &b, sizeof(a)) == 0; }
static bool vec_equal(rk_vec3 a, rk_vec3 b) { return memcmp(&a, &b, sizeof(a)) == 0; }

#define CHECK_VEC(got, X, Y, Z, tol) do { rk_vec3 g_ = (got); \
	RK_CHECK_NEAR(g_.x, (X), (tol)); RK_CHECK_NEAR(g_.y, (Y), (tol)); RK_CHECK_NEAR(g_.z, (Z), (tol)); } while (0)

static void check_pose_equals_cache(rk_test_state *rk_t_, const rk_scene *s, const rk_pose *p)
{
	for (size_t i = 0; i < s->nodes.count; i++) {
		const rk_node *n = &s->nodes.data[i];
		if (!mat_equal(p->node_to_parent[i], n->node_to_parent)) { fprintf(stderr, "node %zu node_to_parent\n", i); rk_t_->failed++; }
		if (!mat_equal(p->node_to_world[i], n->node_to_world)) { fprintf(stderr, "node %zu node_to_world\n", i); rk_t_->failed++; }
		if (!mat_equal(p->unscaled_node_to_world[i], n->unscaled_node_to_world)) { fprintf(stderr, "node %zu unscaled\n", i); rk_t_->failed++; }
		if (!vec_equal(p->inherit_scale[i], n->inherit_scale)) { fprintf(stderr, "node %zu inherit_scale\n", i); rk_t_->failed++; }
		if (!mat_equal(p->geometry_to_node[i], n->geometry_to_node)) { fprintf(stderr, "node %zu geometry_to_node\n", i); rk_t_->failed++; }
		if (!mat_equal(p->geometry_to_world[i], n->geometry_to_world)) { fprintf(stderr, "node %zu geometry_to_world\n", i); rk_t_->failed++; }
		if (memcmp(&p->local[i], &n->local, sizeof(rk_trs)) != 0) { fprintf(stderr, "node %zu local\n", i); rk_t_->failed++; }
	}
}

/* A scene using every part of the transform chain, inherit modes, adjust
 * terms on FBX and non-FBX nodes, geometric transforms and a converted root. */
static void build_rich_scene(tscene *ts)
{
	tscene_init(ts);
	rk_node *root = &ts->nodes[0];
	root->node_to_parent = rk_mat4_mul(rk_mat4_scaling((rk_vec3){ 0.01, 0.01, 0.01 }),
		rk_mat4_rotation(rk_quat_axis_angle((rk_vec3){ 1, 0, 0 }, -RK_PI / 2)));
	root->local = rk_mat4_decompose(root->node_to_parent);

	rk_node *a = tscene_add(ts, 0, "A", RK_NODE_NULL, true);
	a->props.translation = (rk_vec3){ 1, 2, 3 };
	a->props.rotation = (rk_vec3){ 10, 20, 30 };
	a->props.rotation_order = RK_ROTATION_ZXY;
	a->props.rotation_active = true;
	a->props.pre_rotation = (rk_vec3){ 5, 0, 0 };
	a->props.post_rotation = (rk_vec3){ 0, 7, 0 };
	a->props.rotation_pivot = (rk_vec3){ 0.5, 0, 0 };
	a->props.rotation_offset = (rk_vec3){ 0, 0, 0.25 };
	a->props.scaling_pivot = (rk_vec3){ 0, 1, 0 };
	a->props.scaling_offset = (rk_vec3){ 0.1, 0, 0 };
	a->props.scaling = (rk_vec3){ 2, 1, 0.5 };
	a->props.geometric_translation = (rk_vec3){ 0, 0, 1 };
	a->props.geometric_rotation = (rk_vec3){ 0, 0, 45 };
	a->props.geometric_scaling = (rk_vec3){ 3, 3, 3 };

	rk_node *b = tscene_add(ts, 1, "B", RK_NODE_JOINT, true);
	b->props.inherit_mode = RK_INHERIT_COMPONENTWISE_SCALE;
	b->props.rotation = (rk_vec3){ 0, 45, 0 };
	b->props.translation = (rk_vec3){ 1, 0, 0 };
	b->props.scaling = (rk_vec3){ 1, 3, 1 };

	rk_node *c = tscene_add(ts, 2, "C", RK_NODE_JOINT, true);
	c->props.inherit_mode = RK_INHERIT_IGNORE_PARENT_SCALE;
	c->props.translation = (rk_vec3){ 0, 1, 0 };
	c->props.rotation = (rk_vec3){ 30, 0, 0 };

	rk_node *d = tscene_add(ts, 1, "D", RK_NODE_NULL, false);
	d->local.translation = (rk_vec3){ 0, 2, 0 };
	d->local.rotation = rk_quat_axis_angle((rk_vec3){ 0, 1, 1 }, 0.7);
	d->local.scale = (rk_vec3){ 1, 2, 1 };
	d->adjust.pre_rotation = rk_quat_axis_angle((rk_vec3){ 1, 0, 0 }, 0.3);
	d->adjust.post_scale = 2.0;
	d->adjust.translation_scale = 0.5;

	rk_node *e = tscene_add(ts, 4, "E", RK_NODE_MESH, true);
	e->props.translation = (rk_vec3){ 3, 0, 0 };
	e->adjust.post_rotation = rk_quat_axis_angle((rk_vec3){ 0, 0, 1 }, 0.2);
	e->adjust.pre_scale = 0.5;

	rk_node *f = tscene_add(ts, 0, "F", RK_NODE_NULL, false);
	f->local.translation = (rk_vec3){ -1, 0, 0 };
	f->local.scale = (rk_vec3){ 2, 2, 2 };
	tscene_finish(ts);
}

RK_TEST(test_static_pose_equals_cached_matrices)
{
	tscene ts;
	build_rich_scene(&ts);
	tpose tp;
	RK_REQUIRE(tpose_init(&tp, &ts.scene));
	RK_REQUIRE(eval_pose(&ts.scene, NULL, 0.0, false, &tp.pose));
	check_pose_equals_cache(rk_t_, &ts.scene, &tp.pose);
	/* An empty clip and a clip whose only layer has weight 0 beyond the base
	 * change nothing either. */
	rk_anim_layer layers[2];
	memset(layers, 0, sizeof(layers));
	layers[0].weight = 1.0;
	rk_anim_clip clip;
	memset(&clip, 0, sizeof(clip));
	clip.layer_count = 2;
	clip.layers = layers;
	RK_REQUIRE(eval_pose(&ts.scene, &clip, 1.5, false, &tp.pose));
	check_pose_equals_cache(rk_t_, &ts.scene, &tp.pose);
	tpose_free(&tp);
}

/* ---- the skinned chain ----------------------------------------------------------- */

/*
 * Nodes: 0 root; 1 j0 at the origin; 2 j1 at (0,2,0) under j0; 3 j2 at
 * (0,2,0) under j1; 4 "mesh" at (1,0,0) under the root. All FBX nodes.
 * Mesh-space vertices and weights (bind pose = static pose):
 *   v0 (-1,1,0) j0 1            v1 (-1,3,0) j1 1
 *   v2 ( 0,2,0) j0 .5, j1 .5    v3 (-1,5,0) j0 .6, j2 .2 (raw; renormalised .75/.25)
 * mesh_to_joint_i = inv(joint bind world) * mesh bind world:
 *   j0: T(1,0,0)   j1: T(1,-2,0)   j2: T(1,-4,0)
 * Blend channel: target A fully on at 0.5 moves v0 by (0,0,1), target B at
 * 1.0 by (0,0,4). One face: corners v0 v1 v2 v3 with normals
 * (1,0,0) (1,0,0) (1,0,0) (0,0,1).
 * Clip (one layer, linear curves over t = 0..2):
 *   j0 Lcl Translation x 0 -> 2; j1 Lcl Rotation z 0 -> 180;
 *   mesh DeformPercent 0 -> 150.
 */
typedef struct tchain {
	tscene ts;
	rk_mesh mesh;
	rk_vec3 positions[4];
	uint32_t vertex_indices[4];
	rk_face face;
	rk_vec3 normal_values[2];
	uint32_t normal_indices[4];
	rk_blend_channel channel;
	rk_blend_shape shapes[2];
	uint32_t shape_idx[2][1];
	rk_vec3 shape_off[2][1];
	double target_weights[2];
	rk_skin_deformer skin;
	rk_skin_joint joints[3];
	uint32_t weight_begin[5];
	rk_skin_weight weights[6];
	float dq_weights[4];
	/* animation */
	tcurve cx, crz, cmorph;
	rk_anim_track tracks[3];
	rk_anim_layer layer;
	rk_anim_clip clip;
} tchain;

static void build_chain(tchain *tc)
{
	memset(tc, 0, sizeof(*tc));
	tscene *ts = &tc->ts;
	tscene_init(ts);
	rk_node *j0 = tscene_add(ts, 0, "j0", RK_NODE_JOINT, true);
	rk_node *j1 = tscene_add(ts, 1, "j1", RK_NODE_JOINT, true);
	j1->props.translation = (rk_vec3){ 0, 2, 0 };
	rk_node *j2 = tscene_add(ts, 2, "j2", RK_NODE_JOINT, true);
	j2->props.translation = (rk_vec3){ 0, 2, 0 };
	rk_node *mn = tscene_add(ts, 0, "mesh", RK_NODE_MESH, true);
	mn->props.translation = (rk_vec3){ 1, 0, 0 };

	rk_mesh *m = &tc->mesh;
	m->name = "mesh";
	m->vertex_count = 4;
	tc->positions[0] = (rk_vec3){ -1, 1, 0 };
	tc->positions[1] = (rk_vec3){ -1, 3, 0 };
	tc->positions[2] = (rk_vec3){ 0, 2, 0 };
	tc->positions[3] = (rk_vec3){ -1, 5, 0 };
	m->positions_f64 = tc->positions;
	for (uint32_t i = 0; i < 4; i++) tc->vertex_indices[i] = i;
	m->index_count = 4;
	m->vertex_indices = tc->vertex_indices;
	tc->face = (rk_face){ 0, 4 };
	m->face_count = 1;
	m->faces = &tc->face;
	tc->normal_values[0] = (rk_vec3){ 1, 0, 0 };
	tc->normal_values[1] = (rk_vec3){ 0, 0, 1 };
	tc->normal_indices[0] = tc->normal_indices[1] = tc->normal_indices[2] = 0;
	tc->normal_indices[3] = 1;
	m->normals = (rk_attrib_vec3){ true, tc->normal_values, 2, tc->normal_indices, NULL };

	tc->shape_idx[0][0] = 0;
	tc->shape_off[0][0] = (rk_vec3){ 0, 0, 1 };
	tc->shape_idx[1][0] = 0;
	tc->shape_off[1][0] = (rk_vec3){ 0, 0, 4 };
	for (int k = 0; k < 2; k++) {
		tc->shapes[k].name = k ? "B" : "A";
		tc->shapes[k].offset_count = 1;
		tc->shapes[k].vertex_indices = tc->shape_idx[k];
		tc->shapes[k].position_offsets_f64 = tc->shape_off[k];
	}
	tc->target_weights[0] = 0.5;
	tc->target_weights[1] = 1.0;
	tc->channel.name = "smile";
	tc->channel.target_count = 2;
	tc->channel.targets = tc->shapes;
	tc->channel.target_weights = tc->target_weights;
	m->blend_channels.data = &tc->channel;
	m->blend_channels.count = 1;

	rk_skin_deformer *s = &tc->skin;
	s->name = "skin";
	s->method = RK_SKINNING_LINEAR;
	s->joint_count = 3;
	s->joints = tc->joints;
	tc->joints[0] = (rk_skin_joint){ j0, rk_mat4_translation((rk_vec3){ 1, 0, 0 }), rk_mat4_identity(), rk_mat4_identity() };
	tc->joints[1] = (rk_skin_joint){ j1, rk_mat4_translation((rk_vec3){ 1, -2, 0 }), rk_mat4_identity(), rk_mat4_identity() };
	tc->joints[2] = (rk_skin_joint){ j2, rk_mat4_translation((rk_vec3){ 1, -4, 0 }), rk_mat4_identity(), rk_mat4_identity() };
	const uint32_t wb[5] = { 0, 1, 2, 4, 6 };
	memcpy(tc->weight_begin, wb, sizeof(wb));
	tc->weights[0] = (rk_skin_weight){ 0, 1.0f };
	tc->weights[1] = (rk_skin_weight){ 1, 1.0f };
	tc->weights[2] = (rk_skin_weight){ 0, 0.5f };
	tc->weights[3] = (rk_skin_weight){ 1, 0.5f };
	tc->weights[4] = (rk_skin_weight){ 0, 0.6f };
	tc->weights[5] = (rk_skin_weight){ 2, 0.2f };
	s->vertex_count = 4;
	s->weight_begin = tc->weight_begin;
	s->weight_count = 6;
	s->weights = tc->weights;
	s->max_weights_per_vertex = 2;
	m->skin_count = 0;
	mn->mesh = m;
	mn->skin = s;
	tscene_finish(ts);

	/* Clip */
	const double t[2] = { 0, 2 };
	const double vx[2] = { 0, 2 }, vrz[2] = { 0, 180 }, vm[2] = { 0, 150 };
	tcurve_init(&tc->cx, 2, t, vx, RK_INTERP_LINEAR);
	tcurve_init(&tc->crz, 2, t, vrz, RK_INTERP_LINEAR);
	tcurve_init(&tc->cmorph, 2, t, vm, RK_INTERP_LINEAR);
	rk_anim_track *tr = tc->tracks;
	tr[0].node = j0;
	tr[0].target = RK_TARGET_TRANSLATION;
	tr[0].property = "Lcl Translation";
	tr[0].curves[0] = &tc->cx.c;
	tr[1].node = j1;
	tr[1].target = RK_TARGET_ROTATION_EULER;
	tr[1].property = "Lcl Rotation";
	tr[1].curves[2] = &tc->crz.c;
	tr[2].node = mn;
	tr[2].target = RK_TARGET_MORPH_WEIGHTS;
	tr[2].property = "DeformPercent";
	tr[2].morph_channel = 0;
	tr[2].curves[0] = &tc->cmorph.c;
	tc->layer.name = "BaseLayer";
	tc->layer.weight = 1.0;
	tc->layer.track_count = 3;
	tc->layer.tracks = tr;
	tc->clip.name = "Take 001";
	tc->clip.time_end = 2.0;
	tc->clip.layer_count = 1;
	tc->clip.layers = &tc->layer;
}

RK_TEST(test_chain_static_pose)
{
	static tchain tc;
	build_chain(&tc);
	rk_scene *s = &tc.ts.scene;
	tpose tp;
	RK_REQUIRE(tpose_init(&tp, s));
	RK_CHECK_INT(tp.pose.blend_weight_count, 1);
	RK_CHECK_INT(tp.pose.blend_offsets[4], 0);
	RK_REQUIRE(eval_pose(s, NULL, 0.0, false, &tp.pose));
	check_pose_equals_cache(rk_t_, s, &tp.pose);
	RK_CHECK_NEAR(tp.pose.blend_weights[0], 0.0, 0);

	/* Static skinning: every cluster matrix is T(1,0,0) at bind. */
	rk_vec3 pos[4], pos_static[4];
	RK_REQUIRE(rk_mesh_world_positions_eval(s, &tc.ts.nodes[4], &tp.pose, pos));
	RK_REQUIRE(rk_mesh_world_positions_eval(s, &tc.ts.nodes[4], NULL, pos_static));
	CHECK_VEC(pos[0], 0, 1, 0, TOL);
	CHECK_VEC(pos[1], 0, 3, 0, TOL);
	CHECK_VEC(pos[2], 1, 2, 0, TOL);
	CHECK_VEC(pos[3], 0, 5, 0, TOL);
	RK_CHECK(memcmp(pos, pos_static, sizeof(pos)) == 0);
	tpose_free(&tp);
}

RK_TEST(test_chain_animated_pose_and_skinning)
{
	static tchain tc;
	build_chain(&tc);
	rk_scene *s = &tc.ts.scene;
	tpose tp;
	RK_REQUIRE(tpose_init(&tp, s));
	RK_REQUIRE(eval_pose(s, &tc.clip, 1.0, false, &tp.pose));

	/* t = 1: j0 at (1,0,0); j1 at (1,2,0) turned 90 about Z; j2 = j1 + Rz90 (0,2,0) = (-1,2,0). */
	CHECK_VEC(rk_mat4_get_translation(tp.pose.node_to_world[1]), 1, 0, 0, TOL);
	CHECK_VEC(rk_mat4_get_translation(tp.pose.node_to_world[2]), 1, 2, 0, TOL);
	CHECK_VEC(rk_mat4_get_translation(tp.pose.node_to_world[3]), -1, 2, 0, TOL);
	/* j2's x axis points along +Y after the 90 degree turn. */
	CHECK_VEC(rk_mat4_transform_vector(tp.pose.node_to_world[3], (rk_vec3){ 1, 0, 0 }), 0, 1, 0, TOL);
	RK_CHECK_NEAR(tp.pose.props[2].rotation.z, 90.0, TOL);
	RK_CHECK_NEAR(tp.pose.props[1].translation.x, 1.0, TOL);
	/* DeformPercent 75 -> 0.75 */
	RK_CHECK_NEAR(tp.pose.blend_weights[0], 0.75, TOL);
	/* mesh node not animated */
	RK_CHECK(mat_equal(tp.pose.node_to_world[4], tc.ts.nodes[4].node_to_world));

	/* Skinned (see build_chain):
	 *   v0: (-1,1,0) + blend 0.75 (half-way A -> B: (0,0,2.5)) -> j0 T(2,0,0) -> (1,1,2.5)
	 *   v1: T(1,-2,0) -> (0,1,0) -> Rz90 (-1,0,0) -> + (1,2,0) -> (0,2,0)
	 *   v2: j0 (2,2,0), j1 (1,0,0) -> (0,1,0) -> (1,3,0); mean (1.5,2.5,0)
	 *   v3: j0 (1,5,0) * .75 + j2 ((0,1,0) -> (-1,0,0) -> (-2,2,0)) * .25 = (0.25,4.25,0) */
	rk_vec3 pos[4];
	RK_REQUIRE(rk_mesh_world_positions_eval(s, &tc.ts.nodes[4], &tp.pose, pos));
	CHECK_VEC(pos[0], 1, 1, 2.5, 1e-12);
	CHECK_VEC(pos[1], 0, 2, 0, 1e-12);
	CHECK_VEC(pos[2], 1.5, 2.5, 0, 1e-12);
	CHECK_VEC(pos[3], 0.25, 4.25, 0, 1e-7); /* float weights 0.6f / 0.2f */

	/* Normals: corner 1 rides j1: (1,0,0) -> (0,1,0). Corner 2: M3 = .5 I +
	 * .5 Rz90 = (1/sqrt2) Rz45 -> (1,0,0) -> (sqrt.5, sqrt.5, 0). Corner 3:
	 * z stays z. Corner 0: j0 translation only. */
	rk_vec3 nrm[4];
	RK_REQUIRE(rk_mesh_world_normals_eval(s, &tc.ts.nodes[4], &tp.pose, nrm));
	CHECK_VEC(nrm[0], 1, 0, 0, 1e-12);
	CHECK_VEC(nrm[1], 0, 1, 0, 1e-12);
	CHECK_VEC(nrm[2], sqrt(0.5), sqrt(0.5), 0, 1e-12);
	CHECK_VEC(nrm[3], 0, 0, 1, 1e-12);

	/* Skinning matrices: J1 * B1 * G maps v1 to (0,2,0). */
	rk_mat4 sm[3];
	RK_REQUIRE(rk_skin_matrices_eval(s, &tc.skin, &tp.pose, &tc.ts.nodes[4], sm));
	CHECK_VEC(rk_mat4_transform_point(sm[1], tc.positions[1]), 0, 2, 0, 1e-12);
	CHECK_VEC(rk_mat4_transform_point(sm[0], tc.positions[0]), 1, 1, 0, 1e-12);

	/* no_extrapolation and time beyond the keys: t = 3 holds t = 2 values:
	 * j1 turned 180: j2 at (2,0,0) + (0,2,0) + Rz180 (0,2,0) = (2,0,0). */
	RK_REQUIRE(eval_pose(s, &tc.clip, 3.0, true, &tp.pose));
	CHECK_VEC(rk_mat4_get_translation(tp.pose.node_to_world[3]), 2, 0, 0, 1e-12);
	tpose_free(&tp);
}

RK_TEST(test_skin_missing_weights_and_joints)
{
	static tchain tc;
	build_chain(&tc);
	rk_scene *s = &tc.ts.scene;
	tpose tp;
	RK_REQUIRE(tpose_init(&tp, s));
	RK_REQUIRE(eval_pose(s, &tc.clip, 1.0, false, &tp.pose));
	rk_vec3 pos[4];

	/* Joint 2 without a node: v3's j2 weight is dropped, v3 rides j0 alone -> (1,5,0). */
	tc.joints[2].node = NULL;
	RK_REQUIRE(rk_mesh_world_positions_eval(s, &tc.ts.nodes[4], &tp.pose, pos));
	CHECK_VEC(pos[3], 1, 5, 0, 1e-12);
	/* The skinning matrix of a node-less joint is the mesh's geometry_to_world. */
	rk_mat4 sm[3];
	RK_REQUIRE(rk_skin_matrices_eval(s, &tc.skin, &tp.pose, &tc.ts.nodes[4], sm));
	RK_CHECK(mat_equal(sm[2], tp.pose.geometry_to_world[4]));
	tc.joints[2].node = &tc.ts.nodes[3];

	/* v3 without weights: placed by the mesh node's geometry_to_world: (0,5,0). */
	tc.weight_begin[4] = 4;
	RK_REQUIRE(rk_mesh_world_positions_eval(s, &tc.ts.nodes[4], &tp.pose, pos));
	CHECK_VEC(pos[3], 0, 5, 0, 1e-12);
	CHECK_VEC(pos[1], 0, 2, 0, 1e-12);
	/* A skin shorter than the mesh: vertices past it are unskinned too. */
	tc.skin.vertex_count = 2;
	RK_REQUIRE(rk_mesh_world_positions_eval(s, &tc.ts.nodes[4], &tp.pose, pos));
	CHECK_VEC(pos[2], 1, 2, 0, 1e-12);
	/* Out-of-range weight ranges / joint indices are skipped, never read. */
	tc.skin.vertex_count = 4;
	tc.weight_begin[4] = 99;
	tc.weights[1].joint = 77;
	RK_REQUIRE(rk_mesh_world_positions_eval(s, &tc.ts.nodes[4], &tp.pose, pos));
	CHECK_VEC(pos[1], 0, 3, 0, 1e-12);   /* no usable weight -> geometry_to_world */
	CHECK_VEC(pos[3], 0, 5, 0, 1e-12);
	tpose_free(&tp);
}

RK_TEST(test_large_skin_matches_cached_path)
{
	/* 70 joints (beyond the 64-joint stack cache): joint 69 = j1 with j1's
	 * bind matrix, the others j0. v1 bound to joint 69 must land where the
	 * 3-joint skin puts it, bit for bit. */
	static tchain tc;
	build_chain(&tc);
	rk_scene *s = &tc.ts.scene;
	tpose tp;
	RK_REQUIRE(tpose_init(&tp, s));
	RK_REQUIRE(eval_pose(s, &tc.clip, 1.0, false, &tp.pose));
	rk_vec3 small[4], large[4];
	RK_REQUIRE(rk_mesh_world_positions_eval(s, &tc.ts.nodes[4], &tp.pose, small));

	static rk_skin_joint joints[70];
	for (int j = 0; j < 70; j++) joints[j] = tc.joints[0];
	joints[69] = tc.joints[1];
	joints[42] = tc.joints[2];
	tc.skin.joints = joints;
	tc.skin.joint_count = 70;
	tc.weights[1].joint = 69;
	tc.weights[3].joint = 69;
	tc.weights[5].joint = 42;
	RK_REQUIRE(rk_mesh_world_positions_eval(s, &tc.ts.nodes[4], &tp.pose, large));
	RK_CHECK(memcmp(small, large, sizeof(small)) == 0);
	tpose_free(&tp);
}

RK_TEST(test_instanced_skinned_mesh)
{
	/* The chain's skinned mesh shared by a second node at (0,0,5). The first
	 * instance was bound at T(1,0,0) (its bind pose), so the second carries
	 * the skinned result by T(0,0,5) * inv(T(1,0,0)) = T(-1,0,5):
	 * static v0 (0,1,0) -> (-1,1,5), v1 (0,3,0) -> (-1,3,5); the first
	 * instance is unchanged. */
	static tchain tc;
	build_chain(&tc);
	rk_scene *s = &tc.ts.scene;
	rk_node *first = &tc.ts.nodes[4];
	first->has_bind_pose = true;
	first->bind_node_to_world = rk_mat4_translation((rk_vec3){ 1, 0, 0 });
	rk_node *second = tscene_add(&tc.ts, 0, "mesh2", RK_NODE_MESH, true);
	second->props.translation = (rk_vec3){ 0, 0, 5 };
	second->mesh = &tc.mesh;
	second->skin = &tc.skin;
	tscene_finish(&tc.ts);

	rk_vec3 pos[4];
	RK_REQUIRE(rk_mesh_world_positions_eval(s, first, NULL, pos));
	CHECK_VEC(pos[0], 0, 1, 0, 1e-12);
	CHECK_VEC(pos[1], 0, 3, 0, 1e-12);
	RK_REQUIRE(rk_mesh_world_positions_eval(s, second, NULL, pos));
	CHECK_VEC(pos[0], -1, 1, 5, 1e-12);
	CHECK_VEC(pos[1], -1, 3, 5, 1e-12);
	rk_mat4 sm[3];
	RK_REQUIRE(rk_skin_matrices_eval(s, &tc.skin, NULL, second, sm));
	CHECK_VEC(rk_mat4_transform_point(sm[1], tc.positions[1]), -1, 3, 5, 1e-12);
	/* Normals follow the instance too (a translation: unchanged). */
	rk_vec3 nrm[4];
	RK_REQUIRE(rk_mesh_world_normals_eval(s, second, NULL, nrm));
	CHECK_VEC(nrm[1], 1, 0, 0, 1e-12);
}

RK_TEST(test_blend_channel_factors)
{
	double tw[3] = { 0.25, 0.5, 1.0 };
	rk_blend_shape shapes[3];
	memset(shapes, 0, sizeof(shapes));
	rk_blend_channel ch;
	memset(&ch, 0, sizeof(ch));
	ch.target_count = 3;
	ch.targets = shapes;
	ch.target_weights = tw;
	double f[3];
	rk_blend_channel_factors_eval(&ch, 0.125, f);   /* half of target 0 */
	RK_CHECK_NEAR(f[0], 0.5, TOL);
	RK_CHECK_NEAR(f[1], 0.0, 0);
	RK_CHECK_NEAR(f[2], 0.0, 0);
	rk_blend_channel_factors_eval(&ch, 0.25, f);    /* exactly target 0 */
	RK_CHECK_NEAR(f[0], 1.0, TOL);
	RK_CHECK_NEAR(f[1], 0.0, TOL);
	rk_blend_channel_factors_eval(&ch, 0.375, f);   /* between 0 and 1 */
	RK_CHECK_NEAR(f[0], 0.5, TOL);
	RK_CHECK_NEAR(f[1], 0.5, TOL);
	rk_blend_channel_factors_eval(&ch, 0.875, f);   /* 3/4 of the way 1 -> 2 */
	RK_CHECK_NEAR(f[0], 0.0, 0);
	RK_CHECK_NEAR(f[1], 0.25, TOL);
	RK_CHECK_NEAR(f[2], 0.75, TOL);
	rk_blend_channel_factors_eval(&ch, 1.25, f);    /* last segment extended */
	RK_CHECK_NEAR(f[1], -0.5, TOL);
	RK_CHECK_NEAR(f[2], 1.5, TOL);
	rk_blend_channel_factors_eval(&ch, -0.25, f);   /* below zero: target 0 negative */
	RK_CHECK_NEAR(f[0], -1.0, TOL);
	/* Single target: factor = weight / its full weight. */
	ch.target_count = 1;
	tw[0] = 1.0;
	rk_blend_channel_factors_eval(&ch, 0.3, f);
	RK_CHECK_NEAR(f[0], 0.3, TOL);
	/* NULL target_weights: (k+1)/n -> 0.5, 1.0 for two targets. */
	ch.target_count = 2;
	ch.target_weights = NULL;
	rk_blend_channel_factors_eval(&ch, 0.75, f);
	RK_CHECK_NEAR(f[0], 0.5, TOL);
	RK_CHECK_NEAR(f[1], 0.5, TOL);
}

RK_TEST(test_blend_shapes_unskinned_and_in_between)
{
	static tchain tc;
	build_chain(&tc);
	rk_scene *s = &tc.ts.scene;
	rk_node *mn = &tc.ts.nodes[4];
	mn->skin = NULL;
	tpose tp;
	RK_REQUIRE(tpose_init(&tp, s));
	/* t = 1/3: DeformPercent 25 -> 0.25: half of target A -> (0,0,0.5). */
	RK_REQUIRE(eval_pose(s, &tc.clip, 1.0 / 3.0, false, &tp.pose));
	RK_CHECK_NEAR(tp.pose.blend_weights[0], 0.25, 1e-12);
	rk_vec3 pos[4];
	RK_REQUIRE(rk_mesh_world_positions_eval(s, mn, &tp.pose, pos));
	CHECK_VEC(pos[0], 0, 1, 0.5, 1e-12);   /* + node (1,0,0) */
	CHECK_VEC(pos[1], 0, 3, 0, 1e-12);
	/* Static weights on the node are used with pose == NULL. */
	static const double w_static[1] = { 1.0 };
	mn->blend_weights = w_static;
	RK_REQUIRE(rk_mesh_world_positions_eval(s, mn, NULL, pos));
	CHECK_VEC(pos[0], 0, 1, 4, 1e-12);
	/* ...and by a static pose evaluation. */
	RK_REQUIRE(eval_pose(s, NULL, 0.0, false, &tp.pose));
	RK_CHECK_NEAR(tp.pose.blend_weights[0], 1.0, 0);
	/* A pose without blend weights falls back to the node's. */
	double *saved = tp.pose.blend_weights;
	tp.pose.blend_weights = NULL;
	RK_REQUIRE(eval_pose(s, &tc.clip, 1.0, false, &tp.pose));
	RK_REQUIRE(rk_mesh_world_positions_eval(s, mn, &tp.pose, pos));
	CHECK_VEC(pos[0], 0, 1, 4, 1e-12);
	tp.pose.blend_weights = saved;
	tpose_free(&tp);
}

RK_TEST(test_blend_shape_normals)
{
	static tchain tc;
	build_chain(&tc);
	rk_scene *s = &tc.ts.scene;
	rk_node *mn = &tc.ts.nodes[4];
	mn->skin = NULL;
	/* Target B tilts v0's normal by (0,1,0) fully on; at weight 1.0 the
	 * corner 0 normal (1,0,0) becomes (1,1,0)/sqrt2. */
	static const rk_vec3 noff[1] = { { 0, 1, 0 } };
	tc.shapes[1].normal_offsets_f64 = noff;
	static const double w_static[1] = { 1.0 };
	mn->blend_weights = w_static;
	rk_vec3 nrm[4];
	RK_REQUIRE(rk_mesh_world_normals_eval(s, mn, NULL, nrm));
	CHECK_VEC(nrm[0], sqrt(0.5), sqrt(0.5), 0, 1e-12);
	CHECK_VEC(nrm[1], 1, 0, 0, 1e-12);

	/* Per-offset weights scale each offset: 0.25 -> position offset
	 * (0,0,1), normal (1,0.25,0) normalised. */
	static const double ow[1] = { 0.25 };
	tc.shapes[1].offset_weights = ow;
	rk_vec3 pos[4];
	RK_REQUIRE(rk_mesh_world_positions_eval(s, mn, NULL, pos));
	CHECK_VEC(pos[0], 0, 1, 1, 1e-12);
	RK_REQUIRE(rk_mesh_world_normals_eval(s, mn, NULL, nrm));
	double len = sqrt(1.0 + 0.0625);
	CHECK_VEC(nrm[0], 1 / len, 0.25 / len, 0, 1e-12);
}

/* ---- normals of unskinned meshes (README formula) ----------------------------------- */

RK_TEST(test_unskinned_normals_use_geometric_rotation_only)
{
	/* Node: Rz90 * S(2,1,1); geometric: T(5,5,5) * Rx90 * S(5,5,5).
	 * n' = normalize(inverse-transpose(Rz90 * S * Rx90) n), geometric T/S ignored:
	 *   n = (0,0,1): Rx90 -> (0,-1,0); S^-1 -> (0,-1,0); Rz90 -> (1,0,0).
	 *   n = (1,0,0): Rx90 keeps it; S^-1 -> (0.5,0,0); Rz90 -> (0,0.5,0) -> (0,1,0).
	 *   n = (1,1,0)/sqrt2: Rx90 -> (1,0,1)/sqrt2; S^-1 -> (0.5,0,1); Rz90 -> (0,0.5,1)
	 *     -> (0,1,2)/sqrt5. */
	tscene ts;
	tscene_init(&ts);
	rk_node *n = tscene_add(&ts, 0, "m", RK_NODE_MESH, true);
	n->props.rotation = (rk_vec3){ 0, 0, 90 };
	n->props.scaling = (rk_vec3){ 2, 1, 1 };
	n->props.geometric_translation = (rk_vec3){ 5, 5, 5 };
	n->props.geometric_rotation = (rk_vec3){ 90, 0, 0 };
	n->props.geometric_scaling = (rk_vec3){ 5, 5, 5 };
	rk_vec3 positions[1] = { { 0, 0, 1 } };
	uint32_t vi[3] = { 0, 0, 0 };
	rk_vec3 nv[3] = { { 0, 0, 1 }, { 1, 0, 0 }, { sqrt(0.5), sqrt(0.5), 0 } };
	uint32_t ni[3] = { 0, 1, 2 };
	rk_mesh mesh;
	memset(&mesh, 0, sizeof(mesh));
	mesh.vertex_count = 1;
	mesh.positions_f64 = positions;
	mesh.index_count = 3;
	mesh.vertex_indices = vi;
	mesh.normals = (rk_attrib_vec3){ true, nv, 3, ni, NULL };
	n->mesh = &mesh;
	tscene_finish(&ts);

	rk_vec3 out[3];
	RK_REQUIRE(rk_mesh_world_normals_eval(&ts.scene, n, NULL, out));
	CHECK_VEC(out[0], 1, 0, 0, 1e-12);
	CHECK_VEC(out[1], 0, 1, 0, 1e-12);
	CHECK_VEC(out[2], 0, 1 / sqrt(5), 2 / sqrt(5), 1e-12);
	/* Position: geometric T*R*S fully: (0,0,1) -> S5 (0,0,5) -> Rx90 (0,-5,0)
	 * -> +5 (5,0,5) -> S(2,1,1) (10,0,5) -> Rz90 (0,10,5). */
	rk_vec3 p;
	RK_REQUIRE(rk_mesh_world_positions_eval(&ts.scene, n, NULL, &p));
	CHECK_VEC(p, 0, 10, 5, 1e-12);
	/* No normals in the mesh: false, nothing written. */
	mesh.normals.exists = false;
	RK_CHECK(!rk_mesh_world_normals_eval(&ts.scene, n, NULL, out));
}

/* ---- dual quaternion skinning ---------------------------------------------------------- */

/* Root; a at the origin; b at (0,2,0) under a, turned 90 degrees about Y
 * (the bone axis) in the static pose; mesh node at the origin with one
 * vertex (1,2,0) weighted .5/.5. Bind: a identity, b T(0,-2,0). So
 * J_b * B_b = T(0,2,0) Ry90 T(0,-2,0) = Ry90 (the axis passes (0,2,0)). */
typedef struct ttwist {
	tscene ts;
	rk_mesh mesh;
	rk_vec3 pos[1];
	uint32_t vi[1];
	rk_skin_deformer skin;
	rk_skin_joint joints[2];
	uint32_t wb[2];
	rk_skin_weight w[2];
	float dqw[1];
} ttwist;

static void build_twist(ttwist *t, rk_skinning_method method)
{
	memset(t, 0, sizeof(*t));
	tscene_init(&t->ts);
	rk_node *a = tscene_add(&t->ts, 0, "a", RK_NODE_JOINT, true);
	rk_node *b = tscene_add(&t->ts, 1, "b", RK_NODE_JOINT, true);
	b->props.translation = (rk_vec3){ 0, 2, 0 };
	b->props.rotation = (rk_vec3){ 0, 90, 0 };
	rk_node *m = tscene_add(&t->ts, 0, "m", RK_NODE_MESH, true);
	t->pos[0] = (rk_vec3){ 1, 2, 0 };
	t->mesh.vertex_count = 1;
	t->mesh.positions_f64 = t->pos;
	t->mesh.index_count = 1;
	t->mesh.vertex_indices = t->vi;
	t->joints[0] = (rk_skin_joint){ a, rk_mat4_identity(), rk_mat4_identity(), rk_mat4_identity() };
	t->joints[1] = (rk_skin_joint){ b, rk_mat4_translation((rk_vec3){ 0, -2, 0 }), rk_mat4_identity(), rk_mat4_identity() };
	t->wb[0] = 0;
	t->wb[1] = 2;
	t->w[0] = (rk_skin_weight){ 0, 0.5f };
	t->w[1] = (rk_skin_weight){ 1, 0.5f };
	t->skin.method = method;
	t->skin.joint_count = 2;
	t->skin.joints = t->joints;
	t->skin.vertex_count = 1;
	t->skin.weight_begin = t->wb;
	t->skin.weight_count = 2;
	t->skin.weights = t->w;
	t->skin.dq_weights = t->dqw;
	m->mesh = &t->mesh;
	m->skin = &t->skin;
	tscene_finish(&t->ts);
}

static double axis_distance(rk_vec3 p) { return sqrt(p.x * p.x + p.z * p.z); }

RK_TEST(test_dq_twist_keeps_volume)
{
	static ttwist t;
	rk_vec3 lin, dq, mix;
	build_twist(&t, RK_SKINNING_LINEAR);
	RK_REQUIRE(rk_mesh_world_positions_eval(&t.ts.scene, &t.ts.nodes[3], NULL, &lin));
	/* Linear: mean of (1,2,0) and Ry90 (1,2,0) = (0,2,-1) -> (0.5,2,-0.5), 0.707 from the axis. */
	CHECK_VEC(lin, 0.5, 2, -0.5, 1e-12);
	RK_CHECK(axis_distance(lin) < 0.75);

	build_twist(&t, RK_SKINNING_DUAL_QUATERNION);
	RK_REQUIRE(rk_mesh_world_positions_eval(&t.ts.scene, &t.ts.nodes[3], NULL, &dq));
	/* DQ: half-way rotation Ry45: (1,2,0) -> (cos45, 2, -sin45), still 1 from the axis. */
	CHECK_VEC(dq, sqrt(0.5), 2, -sqrt(0.5), 1e-12);
	RK_CHECK_NEAR(axis_distance(dq), 1.0, 1e-12);

	build_twist(&t, RK_SKINNING_BLENDED_DQ);
	t.dqw[0] = 0.0f;
	RK_REQUIRE(rk_mesh_world_positions_eval(&t.ts.scene, &t.ts.nodes[3], NULL, &mix));
	CHECK_VEC(mix, 0.5, 2, -0.5, 1e-12);
	t.dqw[0] = 1.0f;
	RK_REQUIRE(rk_mesh_world_positions_eval(&t.ts.scene, &t.ts.nodes[3], NULL, &mix));
	CHECK_VEC(mix, sqrt(0.5), 2, -sqrt(0.5), 1e-12);
	t.dqw[0] = 0.5f;
	RK_REQUIRE(rk_mesh_world_positions_eval(&t.ts.scene, &t.ts.nodes[3], NULL, &mix));
	CHECK_VEC(mix, 0.5 * (0.5 + sqrt(0.5)), 2, -0.5 * (0.5 + sqrt(0.5)), 1e-12);
	/* NULL dq_weights: linear. */
	t.skin.dq_weights = NULL;
	RK_REQUIRE(rk_mesh_world_positions_eval(&t.ts.scene, &t.ts.nodes[3], NULL, &mix));
	CHECK_VEC(mix, 0.5, 2, -0.5, 1e-12);
}

RK_TEST(test_dq_with_scale_matches_linear_without_rotation)
{
	/* b scaled by 2 instead of twisted: J_b B_b = T(0,2,0) S2 T(0,-2,0).
	 * (1,2,0): a -> (1,2,0); b -> T(0,2,0) S2 (1,0,0) = (2,2,0). Linear mean
	 * (1.5,2,0). DQ: rigid parts identity and T(0,-2,0), scales 1 and 2:
	 * T(0,-1,0) * 1.5 (1,2,0) = (1.5,2,0), the same. */
	static ttwist t;
	build_twist(&t, RK_SKINNING_DUAL_QUATERNION);
	t.ts.nodes[2].props.rotation = (rk_vec3){ 0, 0, 0 };
	t.ts.nodes[2].props.scaling = (rk_vec3){ 2, 2, 2 };
	rki_scene_update_matrices(&t.ts.scene);
	rk_vec3 p;
	RK_REQUIRE(rk_mesh_world_positions_eval(&t.ts.scene, &t.ts.nodes[3], NULL, &p));
	CHECK_VEC(p, 1.5, 2, 0, 1e-12);
	/* A single influence reproduces its matrix exactly, scale and rotation included. */
	t.ts.nodes[2].props.rotation = (rk_vec3){ 0, 90, 0 };
	t.ts.nodes[2].props.scaling = (rk_vec3){ 1, 3, 2 };
	rki_scene_update_matrices(&t.ts.scene);
	t.w[0].weight = 0.0f;
	t.w[1].weight = 1.0f;
	/* T(0,2,0) Ry90 S(1,3,2) (1,0,0) = T(0,2,0) Ry90 (1,0,0) = (0,2,-1). */
	RK_REQUIRE(rk_mesh_world_positions_eval(&t.ts.scene, &t.ts.nodes[3], NULL, &p));
	CHECK_VEC(p, 0, 2, -1, 1e-12);
	/* Skinned normal: inverse-transpose; normal (1,1,0) -> S^-1 (1,1/3,0) -> Ry90 (0,1/3,-1). */
	rk_vec3 nv[1] = { { sqrt(0.5), sqrt(0.5), 0 } };
	uint32_t ni[1] = { 0 };
	t.mesh.normals = (rk_attrib_vec3){ true, nv, 1, ni, NULL };
	rk_vec3 n;
	RK_REQUIRE(rk_mesh_world_normals_eval(&t.ts.scene, &t.ts.nodes[3], NULL, &n));
	double len = sqrt(1.0 / 9.0 + 1.0);
	CHECK_VEC(n, 0, (1.0 / 3.0) / len, -1.0 / len, 1e-12);
}

/* ---- FBX properties, layers, glTF nodes ------------------------------------------------- */

RK_TEST(test_fbx_property_tracks)
{
	/* Node with static Lcl Rotation z 90; RotationPivot animated to (1,0,0):
	 * origin -> T * Rp * R * inv(Rp) * 0 = (1,0,0) + Rz90 (-1,0,0) = (1,-1,0).
	 * GeometricTranslation animated to (0,0,3) moves only geometry_to_world. */
	tscene ts;
	tscene_init(&ts);
	rk_node *n = tscene_add(&ts, 0, "n", RK_NODE_NULL, true);
	n->props.rotation = (rk_vec3){ 0, 0, 90 };
	rk_node *child = tscene_add(&ts, 1, "child", RK_NODE_NULL, true);
	tscene_finish(&ts);

	rk_anim_track tr[3];
	memset(tr, 0, sizeof(tr));
	tr[0].node = n;
	tr[0].target = RK_TARGET_FBX_PROPERTY;
	tr[0].property = "RotationPivot";
	tr[0].default_value[0] = 1.0;
	tr[1].node = n;
	tr[1].target = RK_TARGET_FBX_PROPERTY;
	tr[1].property = "GeometricTranslation";
	tr[1].default_value[2] = 3.0;
	tr[2].node = n;
	tr[2].target = RK_TARGET_FBX_PROPERTY;
	tr[2].property = "Visibility";   /* ignored */
	tr[2].default_value[0] = 0.0;
	rk_anim_layer layer = { "L", 1.0, RK_LAYER_OVERRIDE, false, true, 3, tr };
	rk_anim_clip clip;
	memset(&clip, 0, sizeof(clip));
	clip.layer_count = 1;
	clip.layers = &layer;

	tpose tp;
	RK_REQUIRE(tpose_init(&tp, &ts.scene));
	RK_REQUIRE(eval_pose(&ts.scene, &clip, 0.0, false, &tp.pose));
	CHECK_VEC(rk_mat4_get_translation(tp.pose.node_to_world[1]), 1, -1, 0, 1e-12);
	CHECK_VEC(rk_mat4_get_translation(tp.pose.geometry_to_world[1]), 1, -1, 3, 1e-12);
	CHECK_VEC(rk_mat4_get_translation(tp.pose.node_to_world[child->index]), 1, -1, 0, 1e-12); /* child: no geometry */
	CHECK_VEC(tp.pose.props[1].rotation_pivot, 1, 0, 0, 0);
	tpose_free(&tp);
}

RK_TEST(test_layer_blending)
{
	tscene ts;
	tscene_init(&ts);
	rk_node *n = tscene_add(&ts, 0, "n", RK_NODE_NULL, true);
	tscene_finish(&ts);

	/* Layer 0 (base, weight ignored): translation x = 2, scale (2,2,2), rot z 0.
	 * Layer 1 override 0.25: x = 10, rot z = 90.
	 * Layer 2 additive 0.5: x = 4, scale x = 4 (multiply mode). */
	rk_anim_track t0[2], t1[2], t2[2];
	memset(t0, 0, sizeof(t0));
	memset(t1, 0, sizeof(t1));
	memset(t2, 0, sizeof(t2));
	t0[0] = (rk_anim_track){ .node = n, .target = RK_TARGET_TRANSLATION, .default_value = { 2, 0, 0 } };
	t0[1] = (rk_anim_track){ .node = n, .target = RK_TARGET_SCALE, .default_value = { 2, 2, 2 } };
	t1[0] = (rk_anim_track){ .node = n, .target = RK_TARGET_TRANSLATION, .default_value = { 10, 0, 0 } };
	t1[1] = (rk_anim_track){ .node = n, .target = RK_TARGET_ROTATION_EULER, .default_value = { 0, 0, 90 } };
	t2[0] = (rk_anim_track){ .node = n, .target = RK_TARGET_TRANSLATION, .default_value = { 4, 0, 0 } };
	t2[1] = (rk_anim_track){ .node = n, .target = RK_TARGET_SCALE, .default_value = { 4, 1, 1 } };
	rk_anim_layer layers[3] = {
		{ "base", 0.3, RK_LAYER_OVERRIDE, false, true, 2, t0 },
		{ "over", 0.25, RK_LAYER_OVERRIDE, false, true, 2, t1 },
		{ "add", 0.5, RK_LAYER_ADDITIVE, false, true, 2, t2 },
	};
	rk_anim_clip clip;
	memset(&clip, 0, sizeof(clip));
	clip.layer_count = 3;
	clip.layers = layers;
	tpose tp;
	RK_REQUIRE(tpose_init(&tp, &ts.scene));
	RK_REQUIRE(eval_pose(&ts.scene, &clip, 0.0, false, &tp.pose));
	const rk_transform_props *p = &tp.pose.props[1];
	/* x: 2 -> 2 + (10 - 2) * .25 = 4 -> + .5 * 4 = 6 */
	RK_CHECK_NEAR(p->translation.x, 6.0, TOL);
	/* rotation z: 0 -> 90 at .25 -> 22.5 (quaternion slerp about one axis) */
	RK_CHECK_NEAR(p->rotation.z, 22.5, 1e-9);
	RK_CHECK_NEAR(p->rotation.x, 0.0, 1e-9);
	/* scale x: 2 (layer 1 has no scale) * 4^.5 = 4; y, z: 2 * 1^.5 = 2 */
	RK_CHECK_NEAR(p->scaling.x, 4.0, TOL);
	RK_CHECK_NEAR(p->scaling.y, 2.0, TOL);
	/* Component-wise rotation accumulation gives the same single-axis angle. */
	layers[1].rotation_accumulate_by_component = true;
	RK_REQUIRE(eval_pose(&ts.scene, &clip, 0.0, false, &tp.pose));
	RK_CHECK_NEAR(tp.pose.props[1].rotation.z, 22.5, TOL);
	/* Additive scale in add mode adds weight x the layer's value, as the FBX
	 * SDK evaluates ScaleAccumulationMode 1 (docs/fbx.md): 2 + .5 * 4 = 4;
	 * y, z: 2 + .5 * 1 = 2.5 */
	layers[2].scale_accumulate_multiply = false;
	RK_REQUIRE(eval_pose(&ts.scene, &clip, 0.0, false, &tp.pose));
	RK_CHECK_NEAR(tp.pose.props[1].scaling.x, 4.0, TOL);
	RK_CHECK_NEAR(tp.pose.props[1].scaling.y, 2.5, TOL);
	/* Weight 0 layers do nothing. */
	layers[1].weight = 0.0;
	layers[2].weight = 0.0;
	RK_REQUIRE(eval_pose(&ts.scene, &clip, 0.0, false, &tp.pose));
	RK_CHECK_NEAR(tp.pose.props[1].translation.x, 2.0, 0);
	RK_CHECK_NEAR(tp.pose.props[1].rotation.z, 0.0, 0);
	tpose_free(&tp);
}

RK_TEST(test_gltf_nodes_and_samplers)
{
	/* Non-FBX nodes: parent P at (0,0,0) rotating 0 -> 90 about Y over 1 s;
	 * child C at local (1,0,0) scaled 1 -> 3 linearly. P has an adjust
	 * translation_scale 2 (like a unit conversion on translation only). */
	tscene ts;
	tscene_init(&ts);
	rk_node *p = tscene_add(&ts, 0, "P", RK_NODE_NULL, false);
	p->local.translation = (rk_vec3){ 0, 1, 0 };
	p->adjust.translation_scale = 2.0;
	rk_node *c = tscene_add(&ts, 1, "C", RK_NODE_MESH, false);
	c->local.translation = (rk_vec3){ 1, 0, 0 };
	rk_blend_channel chans[2];
	memset(chans, 0, sizeof(chans));
	rk_mesh mesh;
	memset(&mesh, 0, sizeof(mesh));
	mesh.blend_channels.data = chans;
	mesh.blend_channels.count = 2;
	c->mesh = &mesh;
	tscene_finish(&ts);

	double h = sqrt(0.5);
	static const double times[2] = { 0, 1 };
	double rot[8] = { 0, 0, 0, 1, 0, h, 0, h };
	static const double scl[6] = { 1, 1, 1, 3, 3, 3 };
	static const double wts[4] = { 0, 1, 1, 0 };
	rk_anim_track tr[3];
	memset(tr, 0, sizeof(tr));
	tr[0] = (rk_anim_track){ .node = p, .target = RK_TARGET_ROTATION_QUAT, .property = "", .key_count = 2,
		.times = times, .components = 4, .values_f64 = rot, .interpolation = RK_INTERP_LINEAR };
	tr[1] = (rk_anim_track){ .node = c, .target = RK_TARGET_SCALE, .property = "", .key_count = 2,
		.times = times, .components = 3, .values_f64 = scl, .interpolation = RK_INTERP_LINEAR };
	tr[2] = (rk_anim_track){ .node = c, .target = RK_TARGET_MORPH_WEIGHTS, .property = "", .key_count = 2,
		.times = times, .components = 2, .values_f64 = wts, .interpolation = RK_INTERP_LINEAR };
	rk_anim_layer layer = { "", 0.0 /* glTF loaders may leave it 0: base layer is full anyway */,
		RK_LAYER_OVERRIDE, false, true, 3, tr };
	rk_anim_clip clip;
	memset(&clip, 0, sizeof(clip));
	clip.layer_count = 1;
	clip.layers = &layer;

	tpose tp;
	RK_REQUIRE(tpose_init(&tp, &ts.scene));
	RK_REQUIRE(eval_pose(&ts.scene, NULL, 0.0, false, &tp.pose));
	check_pose_equals_cache(rk_t_, &ts.scene, &tp.pose);

	/* t = 1: P at (0,2,0) (translation scaled by 2) turned 90 about Y; C's
	 * local (1,0,0) -> Ry90 -> (0,0,-1) -> world (0,2,-1); C scaled 3. */
	RK_REQUIRE(eval_pose(&ts.scene, &clip, 1.0, false, &tp.pose));
	CHECK_VEC(rk_mat4_get_translation(tp.pose.node_to_world[1]), 0, 2, 0, 1e-12);
	CHECK_VEC(rk_mat4_get_translation(tp.pose.node_to_world[2]), 0, 2, -1, 1e-12);
	CHECK_VEC(tp.pose.inherit_scale[2], 3, 3, 3, 1e-12);
	CHECK_VEC(tp.pose.local[2].scale, 3, 3, 3, 0);
	/* t = 0.5: 45 degrees, C at (cos45, 2, -sin45), scale 2, weights (.5, .5). */
	RK_REQUIRE(eval_pose(&ts.scene, &clip, 0.5, false, &tp.pose));
	CHECK_VEC(rk_mat4_get_translation(tp.pose.node_to_world[2]), h, 2, -h, 1e-12);
	CHECK_VEC(tp.pose.local[2].scale, 2, 2, 2, 1e-12);
	RK_CHECK_NEAR(tp.pose.blend_weights[tp.pose.blend_offsets[2]], 0.5, TOL);
	RK_CHECK_NEAR(tp.pose.blend_weights[tp.pose.blend_offsets[2] + 1], 0.5, TOL);
	/* Clamped after the last key. */
	RK_REQUIRE(eval_pose(&ts.scene, &clip, 5.0, false, &tp.pose));
	RK_CHECK_NEAR(tp.pose.blend_weights[tp.pose.blend_offsets[2]], 1.0, 0);
	tpose_free(&tp);
}

/* ---- memory and bad inputs ---------------------------------------------------------------- */

RK_TEST(test_pose_memory)
{
	static tchain tc;
	build_chain(&tc);
	rk_scene *s = &tc.ts.scene;
	size_t bytes = rk_pose_memory_size(s);
	RK_CHECK(bytes >= 5 * (sizeof(rk_transform_props) + sizeof(rk_trs) + 5 * sizeof(rk_mat4) + sizeof(rk_vec3) + sizeof(size_t)) + sizeof(double));
	unsigned char *mem = malloc(bytes + 1);
	RK_REQUIRE(mem);
	rk_pose pose;
	/* Any alignment of the block works. */
	RK_CHECK(rk_pose_init(&pose, s, mem + 1, bytes));
	RK_CHECK(((uintptr_t)pose.node_to_world & 15u) == 0);
	RK_CHECK(((uintptr_t)pose.props & 15u) == 0);
	RK_CHECK(eval_pose(s, &tc.clip, 1.0, false, &pose));
	RK_CHECK((unsigned char *)(pose.blend_weights + pose.blend_weight_count) <= mem + 1 + bytes);
	RK_CHECK(!rk_pose_init(&pose, s, mem, bytes - 1));
	RK_CHECK(pose.node_to_world == NULL);
	RK_CHECK(!rk_pose_init(&pose, NULL, mem, bytes));
	RK_CHECK(!rk_pose_init(NULL, s, mem, bytes));
	RK_CHECK_INT(rk_pose_memory_size(NULL), 0);
	size_t offsets[5];
	RK_CHECK_INT(rk_pose_blend_layout(s, offsets), 1);
	RK_CHECK_INT(offsets[4], 0);
	free(mem);
}

static bool rejects(const rk_pose_eval_job *job, const char *needle, rk_test_state *rk_t_)
{
	rk_error err = { 0 };
	bool ok = rk_pose_eval_validate(job, &err);
	if (ok) return false;
	if (err.code != RK_ERROR_INVALID_ARGUMENT || !strstr(err.message, needle)) {
		fprintf(stderr, "message \"%s\" lacks \"%s\"\n", err.message, needle);
		rk_t_->failed++;
	}
	rk_pose_eval_job copy = *job;
	return !rk_pose_eval_run(&copy);
}

RK_TEST(test_bad_inputs_rejected)
{
	static tchain tc;
	build_chain(&tc);
	rk_scene *s = &tc.ts.scene;
	tpose tp;
	RK_REQUIRE(tpose_init(&tp, s));
	rk_pose_eval_job job = { .scene = s, .clip = &tc.clip, .time = 1.0, .pose = &tp.pose };
	rk_error err = { 0 };
	RK_REQUIRE(rk_pose_eval_validate(&job, &err));
	RK_CHECK(err.code == RK_OK);

	RK_CHECK(!rk_pose_eval_validate(NULL, &err));
	RK_CHECK(!rk_pose_eval_run(NULL));
	rk_pose_eval_job j = job;
	j.scene = NULL;
	RK_CHECK(rejects(&j, "scene is NULL", rk_t_));
	j = job;
	j.pose = NULL;
	RK_CHECK(rejects(&j, "pose is NULL", rk_t_));
	j = job;
	j.time = NAN;
	RK_CHECK(rejects(&j, "time", rk_t_));
	j.time = INFINITY;
	RK_CHECK(rejects(&j, "time", rk_t_));

	rk_pose bad = tp.pose;
	j = job;
	j.pose = &bad;
	bad.node_count = 4;
	RK_CHECK(rejects(&j, "node_count", rk_t_));
	bad = tp.pose;
	bad.props = NULL;
	RK_CHECK(rejects(&j, "props", rk_t_));
	bad = tp.pose;
	bad.node_to_world = NULL;
	RK_CHECK(rejects(&j, "node_to_world", rk_t_));
	bad = tp.pose;
	bad.geometry_to_world = NULL;
	RK_CHECK(rejects(&j, "geometry_to_world", rk_t_));
	bad = tp.pose;
	bad.blend_offsets = NULL;
	RK_CHECK(rejects(&j, "blend_offsets", rk_t_));
	bad = tp.pose;
	bad.blend_weight_count = 0;
	RK_CHECK(rejects(&j, "blend_weight_count", rk_t_));

	/* Track of a node from another scene. */
	tscene other;
	tscene_init(&other);
	rk_node *foreign = tscene_add(&other, 0, "x", RK_NODE_NULL, true);
	tscene_finish(&other);
	tc.tracks[1].node = foreign;
	RK_CHECK(rejects(&job, "not a node of this scene", rk_t_));
	tc.tracks[1].node = NULL;
	RK_CHECK(rejects(&job, "not a node of this scene", rk_t_));
	tc.tracks[1].node = &tc.ts.nodes[2];
	/* Unknown target. */
	tc.tracks[1].target = (rk_anim_target)42;
	RK_CHECK(rejects(&job, "unknown target", rk_t_));
	tc.tracks[1].target = RK_TARGET_ROTATION_EULER;
	/* Curve with keys but no times. */
	tc.crz.c.times = NULL;
	RK_CHECK(rejects(&job, "curve 2", rk_t_));
	tc.crz.c.times = tc.crz.t;
	/* Sampler tracks: missing arrays, wrong component counts, bad interpolation. */
	static const double times[2] = { 0, 1 };
	static const double vals[8] = { 0 };
	rk_anim_track sampler = { .node = &tc.ts.nodes[1], .target = RK_TARGET_TRANSLATION, .property = "",
		.key_count = 2, .times = NULL, .components = 3, .values_f64 = vals, .interpolation = RK_INTERP_LINEAR };
	rk_anim_layer layer = { "", 1.0, RK_LAYER_OVERRIDE, false, true, 1, &sampler };
	rk_anim_clip clip;
	memset(&clip, 0, sizeof(clip));
	clip.layer_count = 1;
	clip.layers = &layer;
	j = job;
	j.clip = &clip;
	RK_CHECK(rejects(&j, "no times/values", rk_t_));
	sampler.times = times;
	RK_CHECK(rk_pose_eval_validate(&j, NULL));
	sampler.components = 4;
	RK_CHECK(rejects(&j, "components", rk_t_));
	sampler.components = 3;
	sampler.interpolation = (rk_interp)9;
	RK_CHECK(rejects(&j, "interpolation", rk_t_));
	sampler.interpolation = RK_INTERP_LINEAR;
	layer.tracks = NULL;
	RK_CHECK(rejects(&j, "no array", rk_t_));
	layer.tracks = &sampler;
	clip.layers = NULL;
	RK_CHECK(rejects(&j, "no array", rk_t_));
	clip.layers = &layer;

	/* Scene with a child before its parent. */
	rk_node *saved_parent = tc.ts.nodes[2].parent;
	tc.ts.nodes[2].parent = &tc.ts.nodes[3];
	RK_CHECK(rejects(&job, "parent", rk_t_));
	tc.ts.nodes[2].parent = saved_parent;
	tc.ts.nodes[3].index = 7;
	RK_CHECK(rejects(&job, "index", rk_t_));
	tc.ts.nodes[3].index = 3;
	RK_CHECK(rk_pose_eval_validate(&job, NULL));

	/* Deformation entry points. */
	rk_vec3 out[4];
	rk_mat4 sm[3];
	rk_node *mn = &tc.ts.nodes[4];
	RK_CHECK(!rk_mesh_world_positions_eval(NULL, mn, NULL, out));
	RK_CHECK(!rk_mesh_world_positions_eval(s, NULL, NULL, out));
	RK_CHECK(!rk_mesh_world_positions_eval(s, mn, NULL, NULL));
	RK_CHECK(!rk_mesh_world_positions_eval(s, foreign, NULL, out));
	RK_CHECK(!rk_mesh_world_positions_eval(s, &tc.ts.nodes[1], NULL, out)); /* no mesh */
	RK_CHECK(!rk_mesh_world_normals_eval(s, &tc.ts.nodes[1], NULL, out));
	bad = tp.pose;
	bad.node_count = 3;
	RK_CHECK(!rk_mesh_world_positions_eval(s, mn, &bad, out));
	RK_CHECK(!rk_mesh_world_normals_eval(s, mn, &bad, out));
	RK_CHECK(!rk_skin_matrices_eval(s, &tc.skin, &bad, mn, sm));
	RK_CHECK(!rk_skin_matrices_eval(s, NULL, NULL, mn, sm));
	RK_CHECK(!rk_skin_matrices_eval(s, &tc.skin, NULL, foreign, sm));
	/* Blend shape offsets pointing past the mesh are skipped. */
	tc.shape_idx[0][0] = 1000;
	tc.shape_idx[1][0] = 1000;
	static const double w1[1] = { 1.0 };
	mn->blend_weights = w1;
	RK_CHECK(rk_mesh_world_positions_eval(s, mn, NULL, out));
	CHECK_VEC(out[0], 0, 1, 0, 1e-12);
	/* Normal indices out of range give zero normals. */
	tc.normal_indices[2] = 5;
	RK_CHECK(rk_mesh_world_normals_eval(s, mn, NULL, out));
	CHECK_VEC(out[2], 0, 0, 0, 0);
	CHECK_VEC(out[1], 1, 0, 0, 1e-12);
	tpose_free(&tp);
}

RK_TEST_MAIN(
	RK_TEST_ENTRY(test_curve_constant_and_linear),
	RK_TEST_ENTRY(test_curve_degenerate),
	RK_TEST_ENTRY(test_curve_cubic_default_weights_is_hermite),
	RK_TEST_ENTRY(test_curve_weighted_tangents),
	RK_TEST_ENTRY(test_curve_extrapolation),
	RK_TEST_ENTRY(test_sampler_step_and_linear),
	RK_TEST_ENTRY(test_sampler_slerp),
	RK_TEST_ENTRY(test_sampler_cubic_spline),
	RK_TEST_ENTRY(test_curve_track_defaults),
	RK_TEST_ENTRY(test_static_pose_equals_cached_matrices),
	RK_TEST_ENTRY(test_chain_static_pose),
	RK_TEST_ENTRY(test_chain_animated_pose_and_skinning),
	RK_TEST_ENTRY(test_skin_missing_weights_and_joints),
	RK_TEST_ENTRY(test_large_skin_matches_cached_path),
	RK_TEST_ENTRY(test_instanced_skinned_mesh),
	RK_TEST_ENTRY(test_blend_channel_factors),
	RK_TEST_ENTRY(test_blend_shapes_unskinned_and_in_between),
	RK_TEST_ENTRY(test_blend_shape_normals),
	RK_TEST_ENTRY(test_unskinned_normals_use_geometric_rotation_only),
	RK_TEST_ENTRY(test_dq_twist_keeps_volume),
	RK_TEST_ENTRY(test_dq_with_scale_matches_linear_without_rotation),
	RK_TEST_ENTRY(test_fbx_property_tracks),
	RK_TEST_ENTRY(test_layer_blending),
	RK_TEST_ENTRY(test_gltf_nodes_and_samplers),
	RK_TEST_ENTRY(test_pose_memory),
	RK_TEST_ENTRY(test_bad_inputs_rejected))
