/* src/anim/anim_curve.c - FBX scalar curves and glTF samplers (see rigkit/anim.h). */
#include "anim_internal.h"

#include <math.h>

#define RKI_THIRD (1.0 / 3.0)

/* Largest i in [0, n-1] with times[i] <= t (0 when t < times[0]). n >= 1. */
static size_t rki_key_at_or_before(const double *times, size_t n, double t)
{
	size_t lo = 0, hi = n; /* answer in [lo, hi) */
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (times[mid] <= t) lo = mid;
		else hi = mid;
	}
	return lo;
}

/* ---- FBX curves --------------------------------------------------------------- */

static double rki_clamp_weight(const double *w, size_t i)
{
	if (!w) return RKI_THIRD;
	double v = w[i];
	if (v != v) return RKI_THIRD;
	if (v < 0.0) return 0.0;
	if (v > 1.0) return 1.0;
	return v;
}

/* Normalised Bezier time x(s) for control times 0, wr, 1 - wl, 1. */
static double rki_bezier_x(double s, double wr, double wl)
{
	double is = 1.0 - s;
	return 3.0 * wr * s * is * is + 3.0 * (1.0 - wl) * s * s * is + s * s * s;
}

static double rki_bezier_dx(double s, double wr, double wl)
{
	double is = 1.0 - s;
	return 3.0 * wr * is * is + 6.0 * (1.0 - wl - wr) * s * is + 3.0 * wl * s * s;
}

/* Bezier parameter s in [0, 1] with x(s) = u (x monotonic: wr + wl <= 1). */
static double rki_solve_bezier_time(double u, double wr, double wl)
{
	double lo = 0.0, hi = 1.0, s = u;
	for (int iter = 0; iter < 64; iter++) {
		double f = rki_bezier_x(s, wr, wl) - u;
		if (fabs(f) <= 1e-15) break;
		if (f > 0.0) hi = s;
		else lo = s;
		double d = rki_bezier_dx(s, wr, wl);
		double next = d > 0.0 ? s - f / d : -1.0;
		if (!(next > lo && next < hi)) next = 0.5 * (lo + hi);
		s = next;
		if (hi - lo <= 1e-16) break;
	}
	return s;
}

static double rki_cubic_segment(const rk_anim_curve *c, size_t i, double t)
{
	double ta = c->times[i], tb = c->times[i + 1];
	double va = c->values[i], vb = c->values[i + 1];
	double dt = tb - ta;
	double sr = c->right_slope ? c->right_slope[i] : 0.0;
	double sl = c->left_slope ? c->left_slope[i + 1] : 0.0;
	double wr = rki_clamp_weight(c->right_weight, i);
	double wl = rki_clamp_weight(c->left_weight, i + 1);
	if (wr + wl > 1.0) {
		double k = 1.0 / (wr + wl);
		wr *= k;
		wl *= k;
	}
	double u = (t - ta) / dt;
	double s = (wr == RKI_THIRD && wl == RKI_THIRD) ? u : rki_solve_bezier_time(u, wr, wl);
	double p1 = va + wr * dt * sr;
	double p2 = vb - wl * dt * sl;
	double is = 1.0 - s;
	return is * is * is * va + 3.0 * is * is * s * p1 + 3.0 * is * s * s * p2 + s * s * s * vb;
}

static size_t rki_key_at_or_before_hint(const double *times, size_t n, double t, size_t *hint);

/* Value inside [times[0], times[n-1]]; n >= 2. hint: NULL or a key cursor
 * (rki_key_at_or_before_hint). */
static double rki_curve_inside_hint(const rk_anim_curve *c, double t, size_t *hint)
{
	size_t n = c->key_count;
	size_t i = hint ? rki_key_at_or_before_hint(c->times, n, t, hint) : rki_key_at_or_before(c->times, n, t);
	if (i >= n - 1) return c->values[n - 1];
	double ta = c->times[i], tb = c->times[i + 1];
	if (t <= ta) return c->values[i];
	if (!(tb > ta)) return c->values[i + 1];
	rk_interp mode = c->interp ? c->interp[i] : RK_INTERP_LINEAR;
	switch (mode) {
	case RK_INTERP_CONSTANT: return c->values[i];
	case RK_INTERP_CONSTANT_NEXT: return c->values[i + 1];
	case RK_INTERP_CUBIC: return rki_cubic_segment(c, i, t);
	case RK_INTERP_LINEAR:
	default: {
		double u = (t - ta) / (tb - ta);
		return c->values[i] + (c->values[i + 1] - c->values[i]) * u;
	}
	}
}

static double rki_curve_inside(const rk_anim_curve *c, double t) { return rki_curve_inside_hint(c, t, NULL); }

/* Slope at the outer key of the first (post = false) or last segment. */
static double rki_end_slope(const rk_anim_curve *c, bool post)
{
	size_t n = c->key_count;
	size_t i = post ? n - 2 : 0;
	rk_interp mode = c->interp ? c->interp[i] : RK_INTERP_LINEAR;
	double dt = c->times[i + 1] - c->times[i];
	switch (mode) {
	case RK_INTERP_CUBIC:
		if (post) return c->left_slope ? c->left_slope[n - 1] : 0.0;
		return c->right_slope ? c->right_slope[0] : 0.0;
	case RK_INTERP_LINEAR:
		return dt > 0.0 ? (c->values[i + 1] - c->values[i]) / dt : 0.0;
	default:
		return 0.0;
	}
}

static double rki_curve_extrapolate(const rk_anim_curve *c, double t, bool post)
{
	size_t n = c->key_count;
	double t0 = c->times[0], t1 = c->times[n - 1];
	double v0 = c->values[0], v1 = c->values[n - 1];
	double hold = post ? v1 : v0;
	rk_extrapolation mode = post ? c->post_extrapolation : c->pre_extrapolation;
	int32_t count = post ? c->post_repeat_count : c->pre_repeat_count;
	double u = post ? t - t1 : t0 - t;   /* > 0 */
	double span = t1 - t0;

	if (mode == RK_EXTRAPOLATE_SLOPE) {
		if (!isfinite(u)) return hold;
		double slope = rki_end_slope(c, post);
		return post ? v1 + slope * u : v0 - slope * u;
	}
	if (mode != RK_EXTRAPOLATE_REPEAT && mode != RK_EXTRAPOLATE_MIRROR && mode != RK_EXTRAPOLATE_REPEAT_RELATIVE)
		return hold;
	if (count == 0 || !(span > 0.0) || !isfinite(span) || !isfinite(u)) return hold;

	/* Cycle k = 1, 2, ... and phase r in (0, span]. */
	double r = fmod(u, span);
	if (!(r > 0.0)) r = span;
	double k = floor((u - r) / span + 0.5) + 1.0;
	if (k < 1.0) k = 1.0;
	if (count > 0 && k > (double)count) {
		k = (double)count;
		r = span;
	}
	if (r > span) r = span;

	double x;
	bool odd = fmod(k, 2.0) == 1.0;
	if (mode == RK_EXTRAPOLATE_MIRROR) {
		if (post) x = odd ? t1 - r : t0 + r;
		else x = odd ? t0 + r : t1 - r;
	} else {
		x = post ? t0 + r : t1 - r;
	}
	if (x < t0) x = t0;
	if (x > t1) x = t1;
	double v = rki_curve_inside(c, x);
	if (mode == RK_EXTRAPOLATE_REPEAT_RELATIVE) v += (post ? k : -k) * (v1 - v0);
	return v;
}

double rk_anim_curve_eval(const rk_anim_curve *curve, double time, bool no_extrapolation)
{
	return rki_anim_curve_eval_hint(curve, time, no_extrapolation, NULL);
}

bool rki_anim_curve_sorted(const rk_anim_curve *curve)
{
	if (!curve || !curve->times) return true;
	for (size_t k = 1; k < curve->key_count; k++)
		if (!(curve->times[k] >= curve->times[k - 1])) return false;
	return true;
}

double rki_anim_curve_eval_hint(const rk_anim_curve *curve, double time, bool no_extrapolation, size_t *hint)
{
	if (!curve || curve->key_count == 0 || !curve->times || !curve->values) return 0.0;
	size_t n = curve->key_count;
	if (n == 1 || time != time) return curve->values[0];
	if (time < curve->times[0]) {
		if (no_extrapolation) return curve->values[0];
		return rki_curve_extrapolate(curve, time, false);
	}
	if (time > curve->times[n - 1]) {
		if (no_extrapolation) return curve->values[n - 1];
		return rki_curve_extrapolate(curve, time, true);
	}
	return rki_curve_inside_hint(curve, time, hint);
}

/* ---- glTF samplers ------------------------------------------------------------ */

bool rki_anim_track_is_sampled(const rk_anim_track *track)
{
	return track && !track->curves[0] && !track->curves[1] && !track->curves[2] && !track->curves[3]
		&& track->key_count > 0;
}

/* Where `time` falls: key i alone (*u < 0) or between i and i + 1 at u in (0, 1). */
typedef struct rki_sample_pos {
	size_t i;
	double u;      /* < 0: key i exactly */
	double dt;
	bool cubic;
	uint32_t stride;  /* doubles per key */
	uint32_t offset;  /* of the value inside a key */
} rki_sample_pos;

/* rki_key_at_or_before with a guess: *hint (the previous answer of a
 * caller that samples forward) is checked, then its successor, before the
 * binary search; the answer is stored back. Same result on sorted times. */
static size_t rki_key_at_or_before_hint(const double *times, size_t n, double t, size_t *hint)
{
	size_t h = *hint;
	if (h + 1 < n && times[h] <= t) {
		if (times[h + 1] > t) return h;
		if (h + 2 < n && times[h + 2] > t) return *hint = h + 1;
	}
	return *hint = rki_key_at_or_before(times, n, t);
}

static rki_sample_pos rki_sample_locate(const rk_anim_track *tr, double time, size_t *hint)
{
	rki_sample_pos p;
	size_t n = tr->key_count;
	p.cubic = tr->interpolation == RK_INTERP_CUBIC;
	p.stride = p.cubic ? tr->components * 3u : tr->components;
	p.offset = p.cubic ? tr->components : 0u;
	p.dt = 0.0;
	p.u = -1.0;
	if (n == 1 || !(time > tr->times[0])) { p.i = 0; return p; }
	if (time >= tr->times[n - 1]) { p.i = n - 1; return p; }
	p.i = hint ? rki_key_at_or_before_hint(tr->times, n, time, hint) : rki_key_at_or_before(tr->times, n, time);
	if (p.i >= n - 1) { p.i = n - 1; return p; }
	double ta = tr->times[p.i], tb = tr->times[p.i + 1];
	if (time <= ta || tr->interpolation == RK_INTERP_CONSTANT) return p;
	if (tr->interpolation == RK_INTERP_CONSTANT_NEXT) { p.i++; return p; }
	if (!(tb > ta)) { p.i++; return p; }
	p.dt = tb - ta;
	p.u = (time - ta) / p.dt;
	return p;
}

static double rki_sample_value(const rk_anim_track *tr, const rki_sample_pos *p, uint32_t k)
{
	size_t a = p->i * p->stride + p->offset + k;
	double va = rk_track_value(tr, a);
	if (p->u < 0.0) return va;
	size_t b = a + p->stride;
	double u = p->u, vb = rk_track_value(tr, b);
	if (!p->cubic) return va + (vb - va) * u;
	double out_tan = rk_track_value(tr, a + tr->components);      /* out-tangent of key i */
	double in_tan = rk_track_value(tr, b - tr->components);       /* in-tangent of key i + 1 */
	double u2 = u * u, u3 = u2 * u;
	return (2.0 * u3 - 3.0 * u2 + 1.0) * va + (u3 - 2.0 * u2 + u) * p->dt * out_tan
		+ (-2.0 * u3 + 3.0 * u2) * vb + (u3 - u2) * p->dt * in_tan;
}

double rki_anim_sample_component(const rk_anim_track *track, double time, uint32_t k)
{
	if (!rki_anim_track_is_sampled(track) || !track->times || !rk_track_has_values(track) || k >= track->components) return 0.0;
	rki_sample_pos p = rki_sample_locate(track, time, NULL);
	return rki_sample_value(track, &p, k);
}

size_t rki_anim_track_locate(const rk_anim_track *track, double time, size_t *hint, double *u)
{
	rki_sample_pos p = rki_sample_locate(track, time, hint);
	*u = p.u;
	return p.i;
}

size_t rk_anim_track_value_count(const rk_anim_track *track)
{
	if (!track) return 0;
	return rki_anim_track_is_sampled(track) ? track->components : 4u;
}

size_t rk_anim_track_eval(const rk_anim_track *track, double time, bool no_extrapolation,
	double *out, size_t out_count)
{
	return rki_anim_track_eval_hint(track, time, no_extrapolation, out, out_count, NULL);
}

size_t rki_anim_track_eval_hint(const rk_anim_track *track, double time, bool no_extrapolation,
	double *out, size_t out_count, size_t *hint)
{
	size_t count = rk_anim_track_value_count(track);
	if (!track || !out) return count;
	size_t m = out_count < count ? out_count : count;
	if (!rki_anim_track_is_sampled(track)) {
		for (size_t k = 0; k < m; k++)
			out[k] = track->curves[k] ? rk_anim_curve_eval(track->curves[k], time, no_extrapolation) : track->default_value[k];
		return count;
	}
	if (!track->times || !rk_track_has_values(track)) {
		for (size_t k = 0; k < m; k++) out[k] = 0.0;
		return count;
	}
	rki_sample_pos p = rki_sample_locate(track, time, hint);
	if (track->target == RK_TARGET_ROTATION_QUAT && track->components == 4) {
		rk_quat q;
		if (p.u >= 0.0 && !p.cubic) {
			size_t a = p.i * p.stride, b = a + p.stride;
			q = rk_quat_slerp((rk_quat){ rk_track_value(track, a), rk_track_value(track, a + 1), rk_track_value(track, a + 2),
					rk_track_value(track, a + 3) },
				(rk_quat){ rk_track_value(track, b), rk_track_value(track, b + 1), rk_track_value(track, b + 2),
					rk_track_value(track, b + 3) }, p.u);
		} else {
			q = (rk_quat){ rki_sample_value(track, &p, 0), rki_sample_value(track, &p, 1),
				rki_sample_value(track, &p, 2), rki_sample_value(track, &p, 3) };
			q = rk_quat_normalize(q);
		}
		double qv[4] = { q.x, q.y, q.z, q.w };
		for (size_t k = 0; k < m; k++) out[k] = qv[k];
		return count;
	}
	for (size_t k = 0; k < m; k++) out[k] = rki_sample_value(track, &p, (uint32_t)k);
	return count;
}
