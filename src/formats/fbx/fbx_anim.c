/*
 * src/formats/fbx/fbx_anim.c - FBX animation: stacks, layers, curve nodes, curves
 * (7x) and Takes (5000-6100) -> rk_anim_clip (see scene.h, "Animation").
 *
 * FEATURES
 *   7x: every AnimationStack becomes a clip (in object order). Its layers are
 *   the AnimationLayer objects connected to it (OO, connection order); each
 *   AnimationCurveNode connected to a layer becomes one track per target it
 *   is connected to by an OP connection:
 *     Model "Lcl Translation" / "Lcl Rotation" / "Lcl Scaling"
 *        -> RK_TARGET_TRANSLATION / ROTATION_EULER / SCALE
 *     Model, any other property -> RK_TARGET_FBX_PROPERTY (property = name)
 *     BlendShapeChannel "DeformPercent" -> RK_TARGET_MORPH_WEIGHTS, one track
 *        per node whose mesh has that channel (values stay in percent)
 *   AnimationCurves connect OP to the curve node ("d|X", "d|Y", "d|Z",
 *   "d|DeformPercent", ...) and fill curves[0..3]; default_value comes from
 *   the curve node's own "d|..." property, else the target's static value.
 *   5000-6100: every Take becomes a clip with one layer "BaseLayer"; each
 *   "Model" entry animates the Model object of that name: Channel
 *   "Transform" { "T" "R" "S" { "X" "Y" "Z" } } -> translation / rotation /
 *   scale tracks, a channel named like one of the node's blend channels
 *   (optionally with the 5000-era " (Shape)" suffix) -> morph weight track,
 *   any other channel -> RK_TARGET_FBX_PROPERTY with the channel's name.
 *
 * KEY DATA (7x AnimationCurve)
 *   KeyTime (int64 ticks, 46186158000 per second), KeyValueFloat (or
 *   KeyValueDouble), and per run of keys an attribute: KeyAttrFlags,
 *   4 words of KeyAttrDataFloat, KeyAttrRefCount (how many consecutive keys
 *   share it). Flag bits are the FBX SDK's FbxAnimCurveDef values:
 *     0x00000002 constant      (+0x100 "constant next": jump at once)
 *     0x00000004 linear
 *     0x00000008 cubic, with tangent mode
 *        0x100 auto, 0x200 TCB, 0x400 user, 0x800 break (independent
 *        slopes), 0x1000 clamp, 0x2000 time independent,
 *        0x4000|0x2000 clamp progressive
 *     0x01000000 right tangent weighted, 0x02000000 next key's left
 *     tangent weighted; 0x10000000 / 0x20000000 velocity (not supported,
 *     warned).
 *   KeyAttrDataFloat words: [0] right slope, [1] next key's left slope
 *   (value units per second), [2] two 16-bit weights (low half: right,
 *   high half: next left; weight = n / 9999, the SDK's divider, default
 *   3333 = 1/3), [3] velocities. The weights word only means something when
 *   the matching weighted flag is set; otherwise the weight is 1/3. ASCII
 *   files write every word as the int32 bit pattern of the float.
 *   Slopes: user/break keys use the stored slopes as they are (right slope
 *   from the key, left slope from the previous key's "next left" word).
 *   Auto keys store no usable slope (the right word is an "auto" parameter,
 *   often 0 while the curve is not flat), so their slope is computed like
 *   the SDK's time-independent auto tangent: the secant between the two
 *   neighbours, 0 at the first and last key, limited by clamp progressive
 *   so neither tangent handle passes the neighbouring key's value (and 0
 *   with "clamp" when a neighbour has the same value). TCB keys get
 *   Kochanek-Bartels slopes from their tension/continuity/bias words.
 *   Pre-/Post-Extrapolation { Type: C|R|M|K|A, Repetition: n } children map
 *   to CONSTANT, REPEAT, MIRROR, SLOPE, REPEAT_RELATIVE.
 *
 * KEY DATA (5000-6100 "Key:" lists)
 *   Per key: time (ticks), value, then a letter: 'L' linear; 'C' constant
 *   followed (KeyVer >= 4004) by 's' (standard) or 'n' (next); 'U' cubic
 *   followed by a tangent letter: 's'/'b' (user/break: right slope, next
 *   left slope), 'a' (auto: nothing), 't' (TCB: tension, continuity, bias),
 *   'p'/'q' (two numbers) and 'd' (one number), both treated as auto; then
 *   weight entries ('n' none, 'c' none, 'a' right+next-left weight, 'r'
 *   right weight, 'l' next-left weight; weights are plain numbers). The
 *   number of weight entries depends on KeyVer (4003: none after 's'/'b').
 *   Binary files store the letters as one-byte 'C' values, ASCII files as
 *   bare words.
 *
 * RESTRICTIONS
 *   Keys whose time is not after the previous key's are dropped (warned).
 *   Key velocities are ignored (warned). Auto tangents without the
 *   time-independent flag (0x2000) and auto bias values are evaluated as
 *   time-independent auto tangents; 6100 tangent modes 'p', 'q', 'd' as
 *   auto; TCB keys use the time-normalised Kochanek-Bartels slopes above
 *   (an end key uses its one secant's term, doubled, as the SDK does). Animated properties of
 *   objects other than Models and blend shape channels (materials, camera
 *   attributes, geometry properties, ...) are ignored (warned). Channels
 *   stored directly on pre-6000 Models outside any Take are not read.
 *   A 7x file's Takes section only supplies a stack's time range when the
 *   stack has no LocalStart/LocalStop. Times use the 7x tick rate
 *   46186158000 per second throughout.
 *
 * MEMORY
 *   Curves, tracks, layers and clips live in the scene arena; raw key
 *   records and converted arrays are per-curve temporaries
 *   (ctx->curve_scratch, reset for every curve). A curve stores no weight
 *   arrays when every weight is the default 1/3, no slope arrays when every
 *   slope is 0, one array for both slopes when they are equal, and shares
 *   the previous curve's key times when they are equal (a Mixamo stack's
 *   curves all share one time array: measured 152 of 159 on ybot@kick.fbx).
 *   Every count read from the file is checked against the arrays it indexes.
 */
#include "formats/fbx/fbx_anim.h"
#include "formats/fbx/fbx_objects.h"
#include "formats/fbx/fbx_props.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define RKI_KEY_CONSTANT 0x00000002u
#define RKI_KEY_CONSTANT_NEXT 0x00000100u
#define RKI_KEY_LINEAR 0x00000004u
#define RKI_KEY_CUBIC 0x00000008u
#define RKI_KEY_TANGENT_AUTO 0x00000100u
#define RKI_KEY_TANGENT_TCB 0x00000200u
#define RKI_KEY_TANGENT_USER 0x00000400u
#define RKI_KEY_TANGENT_BREAK 0x00000800u
#define RKI_KEY_CLAMP 0x00001000u
#define RKI_KEY_CLAMP_PROGRESSIVE 0x00004000u
#define RKI_KEY_WEIGHTED_RIGHT 0x01000000u
#define RKI_KEY_WEIGHTED_NEXT_LEFT 0x02000000u
#define RKI_KEY_VELOCITY 0x30000000u

#define RKI_WEIGHT_DIVIDER 9999.0
#define RKI_DEFAULT_WEIGHT (1.0 / 3.0)

/* How a key's slopes are found. */
enum { RKI_TAN_EXPLICIT = 0, RKI_TAN_AUTO, RKI_TAN_TCB };

/* One key as read from the file, before slopes are resolved. */
typedef struct rki_raw_key {
	int64_t ticks;
	double value;
	rk_interp interp;
	uint8_t tangent;          /* RKI_TAN_* (cubic keys) */
	bool clamp;               /* auto: flat when a neighbour has the same value */
	bool clamp_progressive;   /* auto: handles stay within the neighbours' values */
	double right_slope;       /* explicit: leaving this key (per second) */
	double next_left_slope;   /* explicit: entering the next key */
	double right_weight;      /* fraction of the segment, default 1/3 */
	double next_left_weight;
	double tcb[3];            /* tension, continuity, bias */
} rki_raw_key;

static bool rki_anim_is(const rki_fbx_object *o, const char *element)
{
	return o->element && strcmp(o->element, element) == 0;
}

static void rki_raw_key_defaults(rki_raw_key *k)
{
	memset(k, 0, sizeof(*k));
	k->interp = RK_INTERP_CUBIC;
	k->tangent = RKI_TAN_AUTO;
	k->right_weight = RKI_DEFAULT_WEIGHT;
	k->next_left_weight = RKI_DEFAULT_WEIGHT;
}

/* ---- slopes ---------------------------------------------------------------- */

static double rki_finite_or(double v, double def)
{
	return isfinite(v) ? v : def;
}

/* Time-independent auto tangent of key i (see the file comment). */
static double rki_auto_slope(const rki_raw_key *keys, const double *t, size_t n, size_t i,
	double left_weight, double right_weight)
{
	if (i == 0 || i + 1 >= n) return 0.0;
	double v0 = keys[i - 1].value, v1 = keys[i].value, v2 = keys[i + 1].value;
	double dt0 = t[i] - t[i - 1], dt1 = t[i + 1] - t[i];
	if (!(dt0 > 0.0) || !(dt1 > 0.0)) return 0.0;
	if (keys[i].clamp && (v0 == v1 || v1 == v2)) return 0.0;
	double s = (v2 - v0) / (dt0 + dt1);
	if (!isfinite(s)) return 0.0;
	if (keys[i].clamp_progressive && s != 0.0) {
		/* The left handle sits at v1 - s * wl * dt0, the right one at
		 * v1 + s * wr * dt1: keep each between v1 and the neighbour it points
		 * to. A neighbour on the "wrong" side (an extremum) makes the key flat. */
		double dir = s > 0.0 ? 1.0 : -1.0;
		double mag = fabs(s);
		double rise_left = (v1 - v0) * dir, rise_right = (v2 - v1) * dir;
		double wl = left_weight > 0.0 ? left_weight : RKI_DEFAULT_WEIGHT;
		double wr = right_weight > 0.0 ? right_weight : RKI_DEFAULT_WEIGHT;
		double max_left = rise_left > 0.0 ? rise_left / (wl * dt0) : 0.0;
		double max_right = rise_right > 0.0 ? rise_right / (wr * dt1) : 0.0;
		if (mag > max_left) mag = max_left;
		if (mag > max_right) mag = max_right;
		s = dir * mag;
	}
	return s;
}

/* Kochanek-Bartels slopes (per second) of key i from its tension,
 * continuity and bias, using the secants of the neighbouring segments (an
 * end key: see below). */
static void rki_tcb_slopes(const rki_raw_key *keys, const double *t, size_t n, size_t i,
	double *left, double *right)
{
	double d0 = 0.0, d1 = 0.0;
	bool has0 = i > 0 && t[i] > t[i - 1], has1 = i + 1 < n && t[i + 1] > t[i];
	if (has0) d0 = (keys[i].value - keys[i - 1].value) / (t[i] - t[i - 1]);
	if (has1) d1 = (keys[i + 1].value - keys[i].value) / (t[i + 1] - t[i]);
	double tn = keys[i].tcb[0], c = keys[i].tcb[1], b = keys[i].tcb[2];
	if (!has0 || !has1) {
		/* An end key: its one secant's term of the Kochanek-Bartels tangent,
		 * doubled, on both sides (measured against the FBX SDK: first key
		 * (1-t)(1-c)(1-b) d1, last key (1-t)(1-c)(1+b) d0). */
		double s = has1 ? (1.0 - tn) * (1.0 - c) * (1.0 - b) * d1 : (1.0 - tn) * (1.0 - c) * (1.0 + b) * d0;
		*left = *right = s;
		return;
	}
	*left = (1.0 - tn) * ((1.0 - c) * (1.0 + b) * 0.5 * d0 + (1.0 + c) * (1.0 - b) * 0.5 * d1);
	*right = (1.0 - tn) * ((1.0 + c) * (1.0 + b) * 0.5 * d0 + (1.0 - c) * (1.0 - b) * 0.5 * d1);
}

/* Turns raw keys into the scene curve: drops keys that do not move forward
 * in time, resolves slopes and weights, copies into the scene arena. `keys`
 * is modified (compacted). `where` names the node for warnings. */
static bool rki_anim_finish_curve(rki_fbx_ctx *ctx, const rki_fbx_node *where, rki_raw_key *keys, size_t n,
	rk_anim_curve *out)
{
	size_t m = 0, dropped = 0;
	for (size_t i = 0; i < n; i++) {
		if (m > 0 && keys[i].ticks <= keys[m - 1].ticks) {
			dropped++;
			continue;
		}
		if (m != i) keys[m] = keys[i];
		m++;
	}
	if (dropped) rki_fbx_warn(ctx, where, "animation curve keys whose time is not after the previous key's were dropped");

	memset(out, 0, sizeof(*out));
	out->pre_repeat_count = -1;
	out->post_repeat_count = -1;
	if (m == 0) return true;

	/* Scene memory, written in full below (no clearing). Arrays every key
	 * would fill with the default are left NULL (scene.h: weights 1/3,
	 * slopes 0), left slopes equal to the right ones share their array, and
	 * key times equal to the previous curve's are shared. */
	rki_arena *ar = ctx->sc->arena;
	size_t bytes_d, bytes_i;
	if (!rki_mul_size(m, sizeof(double), &bytes_d) || !rki_mul_size(m, sizeof(rk_interp), &bytes_i))
		return rki_fbx_oom(ctx);
	double *values = (double *)rki_arena_alloc_uninit(ar, bytes_d);
	rk_interp *interp = (rk_interp *)rki_arena_alloc_uninit(ar, bytes_i);
	/* slopes and weights are worked out in temporary memory first */
	double *tmpd = (double *)rki_arena_array(&ctx->curve_scratch, m, 5 * sizeof(double));
	if (!values || !interp || !tmpd) return rki_fbx_oom(ctx);
	double *times = tmpd, *rs = tmpd + m, *ls = tmpd + 2 * m, *rw = tmpd + 3 * m, *lw = tmpd + 4 * m;

	bool bad_number = false;
	for (size_t i = 0; i < m; i++) {
		times[i] = (double)keys[i].ticks / RKI_FBX_TICKS_PER_SECOND;
		if (!isfinite(keys[i].value)) {
			keys[i].value = 0.0;
			bad_number = true;
		}
		values[i] = keys[i].value;
		interp[i] = keys[i].interp;
	}
	/* Weights: right from the key itself, left from the previous key. */
	bool default_weights = true;
	for (size_t i = 0; i < m; i++) {
		rw[i] = rki_finite_or(keys[i].right_weight, RKI_DEFAULT_WEIGHT);
		lw[i] = i > 0 ? rki_finite_or(keys[i - 1].next_left_weight, RKI_DEFAULT_WEIGHT) : RKI_DEFAULT_WEIGHT;
		if (rw[i] != RKI_DEFAULT_WEIGHT || lw[i] != RKI_DEFAULT_WEIGHT) default_weights = false;
	}
	/* Stored slopes first, then computed ones override per key. */
	for (size_t i = 0; i < m; i++) {
		rs[i] = keys[i].right_slope;
		ls[i] = i > 0 ? keys[i - 1].next_left_slope : keys[0].right_slope;
	}
	for (size_t i = 0; i < m; i++) {
		if (keys[i].interp != RK_INTERP_CUBIC) continue;
		if (keys[i].tangent == RKI_TAN_AUTO) {
			double s = rki_auto_slope(keys, times, m, i, lw[i], rw[i]);
			rs[i] = s;
			ls[i] = s;
		} else if (keys[i].tangent == RKI_TAN_TCB) {
			rki_tcb_slopes(keys, times, m, i, &ls[i], &rs[i]);
		}
	}
	bool zero_slopes = true, same_slopes = true;
	for (size_t i = 0; i < m; i++) {
		if (!isfinite(rs[i]) || !isfinite(ls[i])) bad_number = true;
		rs[i] = rki_finite_or(rs[i], 0.0);
		ls[i] = rki_finite_or(ls[i], 0.0);
		if (rs[i] != 0.0 || ls[i] != 0.0) zero_slopes = false;
		if (rs[i] != ls[i]) same_slopes = false;
	}
	if (bad_number) rki_fbx_warn(ctx, where, "animation curve values or slopes that are not finite numbers were replaced by 0");

	const double *times_out = ctx->last_times;
	if (!times_out || ctx->last_times_count != m || memcmp(times_out, times, bytes_d) != 0) {
		double *t = (double *)rki_arena_alloc_uninit(ar, bytes_d);
		if (!t) return rki_fbx_oom(ctx);
		memcpy(t, times, bytes_d);
		ctx->last_times = times_out = t;
		ctx->last_times_count = m;
	}
	double *rs_out = NULL, *ls_out = NULL, *rw_out = NULL, *lw_out = NULL;
	if (!zero_slopes) {
		rs_out = (double *)rki_arena_alloc_uninit(ar, bytes_d);
		ls_out = same_slopes ? rs_out : (double *)rki_arena_alloc_uninit(ar, bytes_d);
		if (!rs_out || !ls_out) return rki_fbx_oom(ctx);
		memcpy(rs_out, rs, bytes_d);
		if (ls_out != rs_out) memcpy(ls_out, ls, bytes_d);
	}
	if (!default_weights) {
		rw_out = (double *)rki_arena_alloc_uninit(ar, bytes_d);
		lw_out = (double *)rki_arena_alloc_uninit(ar, bytes_d);
		if (!rw_out || !lw_out) return rki_fbx_oom(ctx);
		memcpy(rw_out, rw, bytes_d);
		memcpy(lw_out, lw, bytes_d);
	}

	double lo = values[0], hi = values[0];
	for (size_t i = 1; i < m; i++) {
		if (values[i] < lo) lo = values[i];
		if (values[i] > hi) hi = values[i];
	}
	out->key_count = m;
	out->times = times_out;
	out->values = values;
	out->interp = interp;
	out->right_slope = rs_out;
	out->left_slope = ls_out;
	out->right_weight = rw_out;
	out->left_weight = lw_out;
	out->min_value = lo;
	out->max_value = hi;
	return true;
}

/* ---- extrapolation ------------------------------------------------------------ */

/* First character of a string or one-byte property ('S' bare word in ASCII,
 * 'C' byte in binary), or 0. */
static char rki_anim_prop_char(const rki_fbx_node *n, size_t i)
{
	if (!n || i >= n->prop_count) return 0;
	const rki_fbx_prop *p = &n->props[i];
	if ((p->type == RKI_FBX_STRING || p->type == RKI_FBX_RAW) && p->v.s.len >= 1) return p->v.s.data[0];
	if (p->type == RKI_FBX_BOOL || p->type == RKI_FBX_I16 || p->type == RKI_FBX_I32 || p->type == RKI_FBX_I64)
		return p->v.i > 0 && p->v.i < 128 ? (char)p->v.i : 0;
	return 0;
}

static void rki_anim_read_extrapolation(rki_fbx_ctx *ctx, const rki_fbx_node *n, const char *name,
	rk_extrapolation *mode, int32_t *count)
{
	const rki_fbx_node *e = rki_fbx_find_child(n, name);
	if (!e) return;
	char type = rki_anim_prop_char(rki_fbx_find_child(e, "Type"), 0);
	switch (type) {
	case 'C': *mode = RK_EXTRAPOLATE_CONSTANT; break;
	case 'R': *mode = RK_EXTRAPOLATE_REPEAT; break;
	case 'M': *mode = RK_EXTRAPOLATE_MIRROR; break;
	case 'K': *mode = RK_EXTRAPOLATE_SLOPE; break;
	case 'A': *mode = RK_EXTRAPOLATE_REPEAT_RELATIVE; break;
	default:
		rki_fbx_warn(ctx, e, "unknown animation extrapolation type: using constant");
		*mode = RK_EXTRAPOLATE_CONSTANT;
		break;
	}
	int64_t rep = -1;
	if (!rki_fbx_prop_i64(rki_fbx_find_child(e, "Repetition"), 0, &rep)) rep = -1;
	*count = rep < 0 ? -1 : (rep > INT32_MAX ? INT32_MAX : (int32_t)rep);
}

/* ---- 7x curves ---------------------------------------------------------------- */

/* KeyAttrDataFloat word k as a float value and as its 32 bits. ASCII files
 * write the bit pattern as an integer; plain numbers are taken as values. */
typedef struct rki_attr_words {
	const double *v;
	size_t count;
	bool bits;   /* v[k] is the int32/uint32 bit pattern of a float */
} rki_attr_words;

static void rki_attr_word(const rki_attr_words *w, size_t k, float *value, uint32_t *bits)
{
	*value = 0.0f;
	*bits = 0;
	if (k >= w->count) return;
	double d = w->v[k];
	if (w->bits) {
		int64_t i = (int64_t)d;
		*bits = (uint32_t)(uint64_t)i;
		memcpy(value, bits, sizeof(*value));
	} else {
		*value = (float)d;
		memcpy(bits, value, sizeof(*bits));
	}
}

static bool rki_attr_words_read(rki_fbx_ctx *ctx, const rki_fbx_node *n, rki_attr_words *w)
{
	memset(w, 0, sizeof(*w));
	if (!n) return true;
	if (!rki_fbx_array_f64_any_scratch(n, 0, &ctx->curve_scratch, &w->v, &w->count, ctx->sc->err))
		return rki_fbx_dom_failed(ctx);
	char type = n->prop_count ? n->props[0].type : 0;
	if (type == RKI_FBX_ARRAY_I32 || type == RKI_FBX_ARRAY_I64) {
		w->bits = true;
	} else if (type != RKI_FBX_ARRAY_F32) {
		/* Integers only, and the slope words either 0 or large enough to be
		 * the bits of a normal float (small integers there would be
		 * denormals or NaNs: a writer that printed plain numbers). */
		bool bits = w->count > 0;
		for (size_t k = 0; k < w->count && bits; k++) {
			double d = w->v[k];
			if (d != floor(d) || d < -2147483648.0 || d > 4294967295.0) bits = false;
			else if ((k % 4) < 2 && d != 0.0 && fabs(d) < 8388608.0) bits = false;
		}
		w->bits = bits;
	}
	return true;
}

/* Decodes one AnimationCurve object into *out (scene arena). */
static bool rki_anim_read_curve7(rki_fbx_ctx *ctx, const rki_fbx_object *o, rk_anim_curve *out)
{
	const rki_fbx_node *node = o->node;
	const rki_fbx_node *kt = rki_fbx_find_child(node, "KeyTime");
	const rki_fbx_node *kv = rki_fbx_find_child(node, "KeyValueFloat");
	if (!kv) kv = rki_fbx_find_child(node, "KeyValueDouble");
	memset(out, 0, sizeof(*out));
	out->pre_repeat_count = out->post_repeat_count = -1;
	if (!kt && !kv) return true; /* a curve without keys: its default value applies */
	if (!kt || !kv) {
		rki_fbx_error_at_node(ctx, node, RK_ERROR_CORRUPT, "animation curve has %s but no %s", kt ? "KeyTime" : "KeyValueFloat",
			kt ? "KeyValueFloat" : "KeyTime");
		return false;
	}
	rki_arena *tmp = &ctx->curve_scratch;
	rki_arena_reset(tmp);
	rk_error *err = ctx->sc->err;
	const int64_t *ticks;
	const double *vals;
	size_t nt, nv;
	/* read once: pending arrays are decoded into the scratch arena, not the document */
	if (!rki_fbx_array_i64_scratch(kt, 0, tmp, &ticks, &nt, err) || !rki_fbx_array_f64_any_scratch(kv, 0, tmp, &vals, &nv, err))
		return rki_fbx_dom_failed(ctx);
	if (nt != nv) {
		rki_fbx_error_at_node(ctx, node, RK_ERROR_CORRUPT, "animation curve has %zu KeyTime values but %zu key values", nt, nv);
		return false;
	}

	const rki_fbx_node *kf = rki_fbx_find_child(node, "KeyAttrFlags");
	const rki_fbx_node *kd = rki_fbx_find_child(node, "KeyAttrDataFloat");
	const rki_fbx_node *kr = rki_fbx_find_child(node, "KeyAttrRefCount");
	const int64_t *flags = NULL, *refs = NULL;
	size_t nf = 0, nr = 0;
	rki_attr_words words;
	if ((kf && !rki_fbx_array_i64_scratch(kf, 0, tmp, &flags, &nf, err)) ||
		(kr && !rki_fbx_array_i64_scratch(kr, 0, tmp, &refs, &nr, err)))
		return rki_fbx_dom_failed(ctx);
	if (!rki_attr_words_read(ctx, kd, &words)) return false;

	/* attr_of[key] = attribute index, or SIZE_MAX for the default attribute. */
	size_t *attr_of = (size_t *)rki_arena_array(tmp, nt ? nt : 1, sizeof(size_t));
	if (!attr_of) return rki_fbx_oom(ctx);
	if (!kf || nf == 0) {
		for (size_t i = 0; i < nt; i++) attr_of[i] = SIZE_MAX;
	} else if (kr) {
		if (nr != nf) {
			rki_fbx_error_at_node(ctx, kr, RK_ERROR_CORRUPT, "KeyAttrRefCount has %zu entries but KeyAttrFlags has %zu", nr, nf);
			return false;
		}
		size_t at = 0;
		for (size_t a = 0; a < nr; a++) {
			if (refs[a] < 0 || (uint64_t)refs[a] > (uint64_t)(nt - at)) {
				rki_fbx_error_at_node(ctx, kr, RK_ERROR_CORRUPT,
					"KeyAttrRefCount entry %zu (%lld) is negative or runs past the %zu keys", a, (long long)refs[a], nt);
				return false;
			}
			for (int64_t r = 0; r < refs[a]; r++) attr_of[at++] = a;
		}
		if (at < nt) {
			rki_fbx_warn(ctx, kr, "KeyAttrRefCount covers fewer keys than the curve has: the last attribute is repeated");
			for (; at < nt; at++) attr_of[at] = nf - 1;
		}
	} else if (nf == nt || nf == 1) {
		for (size_t i = 0; i < nt; i++) attr_of[i] = nf == 1 ? 0 : i;
	} else {
		rki_fbx_error_at_node(ctx, kf, RK_ERROR_CORRUPT, "%zu KeyAttrFlags for %zu keys and no KeyAttrRefCount", nf, nt);
		return false;
	}
	if (nf > 0 && words.count > 0 && words.count / 4 < nf) {
		rki_fbx_error_at_node(ctx, kd, RK_ERROR_CORRUPT, "KeyAttrDataFloat has %zu values for %zu attributes (4 each)", words.count, nf);
		return false;
	}

	rki_raw_key *keys = (rki_raw_key *)rki_arena_array(tmp, nt ? nt : 1, sizeof(rki_raw_key));
	if (!keys) return rki_fbx_oom(ctx);
	bool velocity = false;
	for (size_t i = 0; i < nt; i++) {
		rki_raw_key *k = &keys[i];
		rki_raw_key_defaults(k);
		k->ticks = ticks[i];
		k->value = vals[i];
		if (attr_of[i] == SIZE_MAX) continue;
		size_t a = attr_of[i];
		uint32_t f = (uint32_t)(uint64_t)flags[a];
		float slope_r, slope_nl, w2f, w3f;
		uint32_t b0, b1, wbits, b3;
		rki_attr_word(&words, a * 4 + 0, &slope_r, &b0);
		rki_attr_word(&words, a * 4 + 1, &slope_nl, &b1);
		rki_attr_word(&words, a * 4 + 2, &w2f, &wbits);
		rki_attr_word(&words, a * 4 + 3, &w3f, &b3);
		if (f & RKI_KEY_CONSTANT) {
			k->interp = (f & RKI_KEY_CONSTANT_NEXT) ? RK_INTERP_CONSTANT_NEXT : RK_INTERP_CONSTANT;
		} else if (f & RKI_KEY_LINEAR) {
			k->interp = RK_INTERP_LINEAR;
		} else {
			k->interp = RK_INTERP_CUBIC;
			if (f & RKI_KEY_TANGENT_USER) k->tangent = RKI_TAN_EXPLICIT;
			else if (f & RKI_KEY_TANGENT_TCB) k->tangent = RKI_TAN_TCB;
			else k->tangent = RKI_TAN_AUTO;
			if (f & RKI_KEY_VELOCITY) velocity = true;
		}
		k->clamp = (f & RKI_KEY_CLAMP) != 0;
		k->clamp_progressive = (f & RKI_KEY_CLAMP_PROGRESSIVE) != 0;
		k->right_slope = slope_r;
		k->next_left_slope = slope_nl;
		if (k->tangent == RKI_TAN_TCB) {
			k->tcb[0] = slope_r;
			k->tcb[1] = slope_nl;
			k->tcb[2] = w2f;
		} else {
			if (f & RKI_KEY_WEIGHTED_RIGHT) k->right_weight = (double)(wbits & 0xffffu) / RKI_WEIGHT_DIVIDER;
			if (f & RKI_KEY_WEIGHTED_NEXT_LEFT) k->next_left_weight = (double)(wbits >> 16) / RKI_WEIGHT_DIVIDER;
		}
	}
	if (velocity) rki_fbx_warn(ctx, node, "animation key velocities are not supported and were ignored");
	if (!rki_anim_finish_curve(ctx, node, keys, nt, out)) return false;
	rki_anim_read_extrapolation(ctx, node, "Pre-Extrapolation", &out->pre_extrapolation, &out->pre_repeat_count);
	rki_anim_read_extrapolation(ctx, node, "Post-Extrapolation", &out->post_extrapolation, &out->post_repeat_count);
	return true;
}

/* The decoded curve of an AnimationCurve object, decoded once (cached in
 * object->out). NULL with *ok true means "no keys". */
static const rk_anim_curve *rki_anim_curve_of(rki_fbx_ctx *ctx, rki_fbx_object *o, bool *ok)
{
	*ok = true;
	if (!o->out) {
		rk_anim_curve *c = (rk_anim_curve *)rki_arena_alloc(ctx->sc->arena, sizeof(rk_anim_curve));
		if (!c) {
			*ok = rki_fbx_oom(ctx);
			return NULL;
		}
		if (!rki_anim_read_curve7(ctx, o, c)) {
			*ok = false;
			return NULL;
		}
		o->out = c;
	}
	const rk_anim_curve *c = (const rk_anim_curve *)o->out;
	return c->key_count > 0 ? c : NULL;
}

/* ---- tracks ------------------------------------------------------------------- */

typedef struct rki_track_list {
	rki_buf buf;   /* rk_anim_track[] */
} rki_track_list;

static bool rki_tracks_push(rki_fbx_ctx *ctx, rki_track_list *l, const rk_anim_track *t)
{
	if (!rki_buf_push(&l->buf, t, sizeof(*t))) return rki_fbx_oom(ctx);
	return true;
}

static bool rki_track_has_curve(const rk_anim_track *t)
{
	for (int k = 0; k < 4; k++)
		if (t->curves[k]) return true;
	return false;
}

static rk_anim_target rki_target_of_property(const char *prop)
{
	if (strcmp(prop, "Lcl Translation") == 0) return RK_TARGET_TRANSLATION;
	if (strcmp(prop, "Lcl Rotation") == 0) return RK_TARGET_ROTATION_EULER;
	if (strcmp(prop, "Lcl Scaling") == 0) return RK_TARGET_SCALE;
	return RK_TARGET_FBX_PROPERTY;
}

/* Static value of a node property (up to 4 numbers) as stored. */
static void rki_static_property(const rki_fbx_object *model, const rk_node *node, const char *prop, double out[4])
{
	out[0] = out[1] = out[2] = out[3] = 0.0;
	rk_anim_target t = rki_target_of_property(prop);
	if (node && node->has_fbx_props && t != RK_TARGET_FBX_PROPERTY) {
		rk_vec3 v = t == RK_TARGET_TRANSLATION ? node->props.translation
			: t == RK_TARGET_ROTATION_EULER ? node->props.rotation : node->props.scaling;
		out[0] = v.x;
		out[1] = v.y;
		out[2] = v.z;
		return;
	}
	if (t == RK_TARGET_SCALE) out[0] = out[1] = out[2] = 1.0;
	if (!model) return;
	size_t vi;
	const rki_fbx_node *p = rki_fbx_obj_prop(model, prop, &vi);
	for (size_t k = 0; p && k < 4; k++) {
		double v;
		if (!rki_fbx_prop_f64(p, vi + k, &v)) break;
		out[k] = v;
	}
}

/* Which curves[] slot a curve-node channel ("d|X", "d|Y", "d|Z", "d|W" or
 * any other name: its position among the curve node's "d|" properties,
 * else the first free slot). Returns -1 when no slot is free. */
static int rki_channel_slot(const rki_fbx_object *cn, const char *name, const bool used[4])
{
	if (strncmp(name, "d|", 2) == 0 && name[2] && !name[3]) {
		switch (name[2]) {
		case 'X': return 0;
		case 'Y': return 1;
		case 'Z': return 2;
		case 'W': return 3;
		default: break;
		}
	}
	if (cn->props) {
		int ord = 0;
		for (size_t i = 0; i < cn->props->child_count && ord < 4; i++) {
			const char *s;
			size_t len;
			if (!rki_fbx_prop_str(&cn->props->children[i], 0, &s, &len) || len < 2 || strncmp(s, "d|", 2) != 0) continue;
			if (strlen(name) == len && memcmp(s, name, len) == 0) return ord;
			ord++;
		}
	}
	for (int k = 0; k < 4; k++)
		if (!used[k]) return k;
	return -1;
}

/* Fills curves[] and default_value[] of a track from an AnimationCurveNode.
 * `fallback` = the target's static value. */
static bool rki_anim_curve_node_channels(rki_fbx_ctx *ctx, rki_fbx_object *cn, const double fallback[4], rk_anim_track *t)
{
	bool used[4] = { false, false, false, false };
	for (int k = 0; k < 4; k++) t->default_value[k] = fallback[k];
	/* Defaults from the curve node's own "d|..." properties. */
	if (cn->props) {
		bool seen[4] = { false, false, false, false };
		for (size_t i = 0; i < cn->props->child_count; i++) {
			const rki_fbx_node *p = &cn->props->children[i];
			const char *s;
			size_t len;
			double v;
			if (!rki_fbx_prop_str(p, 0, &s, &len) || len < 2 || strncmp(s, "d|", 2) != 0) continue;
			int slot = rki_channel_slot(cn, s, seen);
			if (slot < 0) continue;
			seen[slot] = true;
			if (rki_fbx_prop_f64(p, cn->props60 ? 3 : 4, &v) && isfinite(v)) t->default_value[slot] = v;
		}
	}
	for (uint32_t c = 0; c < cn->children_count; c++) {
		const rki_fbx_conn *cc = &ctx->conns[cn->children_begin + c];
		rki_fbx_object *co = &ctx->objects[cc->other];
		if (!rki_anim_is(co, "AnimationCurve")) continue;
		const char *name = cc->prop ? cc->prop : "";
		int slot = rki_channel_slot(cn, name, used);
		if (slot < 0) {
			rki_fbx_warn(ctx, co->node, "animation curve node has more than 4 curves: extra curves ignored");
			continue;
		}
		if (used[slot]) {
			rki_fbx_warn(ctx, co->node, "two animation curves drive the same channel: the later one is ignored");
			continue;
		}
		bool ok;
		const rk_anim_curve *curve = rki_anim_curve_of(ctx, co, &ok);
		if (!ok) return false;
		used[slot] = true;
		t->curves[slot] = curve;
	}
	return true;
}

/* Every node whose mesh carries blend channel `ch`. */
static bool rki_anim_morph_tracks(rki_fbx_ctx *ctx, rki_track_list *l, const rki_fbx_node *where,
	const rk_blend_channel *ch, const rk_anim_track *proto)
{
	const rk_scene *s = ctx->sc->scene;
	size_t emitted = 0;
	for (size_t i = 0; i < s->nodes.count; i++) {
		rk_node *nd = &s->nodes.data[i];
		const rk_mesh *mesh = nd->mesh;
		/* ch->index is its position in its own mesh's list */
		if (!mesh || ch->index >= mesh->blend_channels.count || &mesh->blend_channels.data[ch->index] != ch) continue;
		rk_anim_track t = *proto;
		t.node = nd;
		t.morph_channel = ch->index;
		if (!rki_tracks_push(ctx, l, &t)) return false;
		emitted++;
	}
	if (!emitted) rki_fbx_warn(ctx, where, "animated blend shape channel is not used by any node: animation ignored");
	return true;
}

/* Tracks of one AnimationCurveNode: one per OP target. */
static bool rki_anim_curve_node_tracks(rki_fbx_ctx *ctx, rki_fbx_object *cn, rki_track_list *l)
{
	for (uint32_t p = 0; p < cn->parents_count; p++) {
		const rki_fbx_conn *pc = &ctx->conns[cn->parents_begin + p];
		if (!pc->prop || pc->other >= ctx->object_count) continue;
		rki_fbx_object *target = &ctx->objects[pc->other];
		rk_anim_track t;
		memset(&t, 0, sizeof(t));
		double fallback[4] = { 0, 0, 0, 0 };
		if (rki_anim_is(target, "Model")) {
			rk_node *node = (rk_node *)target->out;
			if (!node) {
				rki_fbx_warn(ctx, target->node, "animated Model has no scene node: animation ignored");
				continue;
			}
			const char *prop = rki_arena_strndup(ctx->sc->arena, pc->prop, strlen(pc->prop));
			if (!prop) return rki_fbx_oom(ctx);
			t.node = node;
			t.target = rki_target_of_property(prop);
			t.property = prop;
			rki_static_property(target, node, prop, fallback);
			if (!rki_anim_curve_node_channels(ctx, cn, fallback, &t)) return false;
			if (rki_track_has_curve(&t) && !rki_tracks_push(ctx, l, &t)) return false;
		} else if (rki_anim_is(target, "Deformer") && target->sub_class && strcmp(target->sub_class, "BlendShapeChannel") == 0) {
			if (strcmp(pc->prop, "DeformPercent") != 0) {
				rki_fbx_warn(ctx, cn->node, "animated blend shape channel property other than DeformPercent ignored");
				continue;
			}
			const rk_blend_channel *ch = (const rk_blend_channel *)target->out;
			if (!ch) {
				rki_fbx_warn(ctx, target->node, "animated blend shape channel was not loaded: animation ignored");
				continue;
			}
			t.target = RK_TARGET_MORPH_WEIGHTS;
			t.property = "DeformPercent";
			fallback[0] = ch->default_weight * 100.0;
			if (!rki_anim_curve_node_channels(ctx, cn, fallback, &t)) return false;
			if (rki_track_has_curve(&t) && !rki_anim_morph_tracks(ctx, l, cn->node, ch, &t)) return false;
		} else {
			rki_fbx_warn(ctx, cn->node, "animated properties of objects other than Models and blend shape channels are ignored");
		}
	}
	return true;
}

/* ---- clips ---------------------------------------------------------------------- */

/* Copies the collected tracks into the scene arena and frees the buffer. */
static bool rki_tracks_commit(rki_fbx_ctx *ctx, rki_track_list *l, rk_anim_layer *layer)
{
	size_t n = l->buf.size / sizeof(rk_anim_track);
	rk_anim_track *tracks = (rk_anim_track *)rki_arena_array(ctx->sc->arena, n, sizeof(rk_anim_track));
	if (!tracks) {
		rki_buf_free(&l->buf);
		return rki_fbx_oom(ctx);
	}
	if (n) memcpy(tracks, l->buf.data, n * sizeof(rk_anim_track));
	rki_buf_free(&l->buf);
	layer->tracks = tracks;
	layer->track_count = n;
	return true;
}

/* Earliest first key and latest last key of the clip's curves. */
static bool rki_clip_key_range(const rk_anim_clip *clip, double *begin, double *end)
{
	bool any = false;
	for (size_t l = 0; l < clip->layer_count; l++) {
		const rk_anim_layer *layer = &clip->layers[l];
		for (size_t i = 0; i < layer->track_count; i++) {
			for (int k = 0; k < 4; k++) {
				const rk_anim_curve *c = layer->tracks[i].curves[k];
				if (!c || !c->key_count) continue;
				double a = c->times[0], b = c->times[c->key_count - 1];
				if (!any || a < *begin) *begin = a;
				if (!any || b > *end) *end = b;
				any = true;
			}
		}
	}
	return any;
}

/* Sets time_begin/time_end from the stored range (if any) or the keys. */
static void rki_clip_set_range(rki_fbx_ctx *ctx, const rki_fbx_node *where, rk_anim_clip *clip, bool has_range,
	int64_t start, int64_t stop)
{
	double kb = 0.0, ke = 0.0;
	bool has_keys = rki_clip_key_range(clip, &kb, &ke);
	if (has_range && stop < start) {
		rki_fbx_warn(ctx, where, "animation stack ends before it starts: using the key range");
		has_range = false;
	}
	if (has_range) {
		clip->time_begin = (double)start / RKI_FBX_TICKS_PER_SECOND;
		clip->time_end = (double)stop / RKI_FBX_TICKS_PER_SECOND;
	} else if (has_keys) {
		clip->time_begin = kb;
		clip->time_end = ke;
	}
}

/* Two int64 numbers of a "LocalTime: a,b" style node. */
static bool rki_anim_time_pair(const rki_fbx_node *n, int64_t *a, int64_t *b)
{
	return n && rki_fbx_prop_i64(n, 0, a) && rki_fbx_prop_i64(n, 1, b);
}

/* Takes/Take named `name` (7x files may keep them for time ranges). */
static const rki_fbx_node *rki_anim_find_take(rki_fbx_ctx *ctx, const char *name)
{
	const rki_fbx_node *takes = rki_fbx_find_child(&ctx->doc.root, "Takes");
	for (size_t i = 0; takes && i < takes->child_count; i++) {
		const rki_fbx_node *t = &takes->children[i];
		const char *s;
		size_t len;
		if (strcmp(t->name, "Take") != 0 || !rki_fbx_prop_str(t, 0, &s, &len)) continue;
		if (strlen(name) == len && memcmp(s, name, len) == 0) return t;
	}
	return NULL;
}

static bool rki_anim_own_i64(const rki_fbx_object *o, const char *name, int64_t *out)
{
	rki_fbx_object own = *o;
	own.templ = NULL; /* the stack's own value, not its template's default */
	size_t vi;
	double d;
	const rki_fbx_node *p = rki_fbx_obj_prop(&own, name, &vi);
	if (!p) return false;
	if (rki_fbx_prop_i64(p, vi, out)) return true;
	if (rki_fbx_prop_f64(p, vi, &d) && d > -9.2e18 && d < 9.2e18) {
		*out = (int64_t)d;
		return true;
	}
	return false;
}

static bool rki_anim_read_layer7(rki_fbx_ctx *ctx, rki_fbx_object *lo, rk_anim_layer *layer)
{
	layer->name = lo->name ? lo->name : "";
	layer->weight = rki_fbx_obj_f64(lo, "Weight", 100.0) / 100.0;
	if (!isfinite(layer->weight)) layer->weight = 1.0;
	int64_t mode = rki_fbx_obj_i64(lo, "BlendMode", 0);
	switch (mode) {
	case 0: layer->blend = RK_LAYER_ADDITIVE; break;
	case 1: layer->blend = RK_LAYER_OVERRIDE; break;
	case 2: layer->blend = RK_LAYER_OVERRIDE_PASSTHROUGH; break;
	default:
		rki_fbx_warn(ctx, lo->node, "unknown animation layer BlendMode: using override");
		layer->blend = RK_LAYER_OVERRIDE;
		break;
	}
	layer->rotation_accumulate_by_component = rki_fbx_obj_i64(lo, "RotationAccumulationMode", 0) == 1;
	layer->scale_accumulate_multiply = rki_fbx_obj_i64(lo, "ScaleAccumulationMode", 0) != 1;

	rki_track_list l;
	rki_buf_init(&l.buf, ctx->sc->alloc);
	for (uint32_t c = 0; c < lo->children_count; c++) {
		const rki_fbx_conn *cc = &ctx->conns[lo->children_begin + c];
		rki_fbx_object *cn = &ctx->objects[cc->other];
		/* OO membership only: an OP connection from a curve node to the
		 * layer animates the layer's own property (e.g. Weight). */
		if (cc->prop || !rki_anim_is(cn, "AnimationCurveNode")) continue;
		if (!rki_anim_curve_node_tracks(ctx, cn, &l)) {
			rki_buf_free(&l.buf);
			return false;
		}
	}
	return rki_tracks_commit(ctx, &l, layer);
}

static bool rki_anim_read_stacks7(rki_fbx_ctx *ctx)
{
	rk_scene *s = ctx->sc->scene;
	size_t count = 0;
	for (size_t i = 0; i < ctx->object_count; i++)
		if (rki_anim_is(&ctx->objects[i], "AnimationStack")) count++;
	if (!count) return true;
	rk_anim_clip *clips = (rk_anim_clip *)rki_arena_array(ctx->sc->arena, count, sizeof(rk_anim_clip));
	if (!clips) return rki_fbx_oom(ctx);
	size_t ci = 0;
	for (size_t i = 0; i < ctx->object_count; i++) {
		rki_fbx_object *so = &ctx->objects[i];
		if (!rki_anim_is(so, "AnimationStack")) continue;
		rk_anim_clip *clip = &clips[ci];
		clip->index = (uint32_t)ci;
		clip->name = so->name ? so->name : "";
		size_t layers = 0;
		for (uint32_t c = 0; c < so->children_count; c++) {
			const rki_fbx_conn *cc = &ctx->conns[so->children_begin + c];
			if (!cc->prop && rki_anim_is(&ctx->objects[cc->other], "AnimationLayer")) layers++;
		}
		rk_anim_layer *ls = (rk_anim_layer *)rki_arena_array(ctx->sc->arena, layers, sizeof(rk_anim_layer));
		if (!ls) return rki_fbx_oom(ctx);
		size_t li = 0;
		for (uint32_t c = 0; c < so->children_count; c++) {
			const rki_fbx_conn *cc = &ctx->conns[so->children_begin + c];
			rki_fbx_object *lo = &ctx->objects[cc->other];
			if (cc->prop || !rki_anim_is(lo, "AnimationLayer")) continue;
			if (!rki_anim_read_layer7(ctx, lo, &ls[li])) return false;
			/* FbxAnimLayer Mute: the SDK leaves a muted layer out. */
			if (rki_fbx_obj_i64(lo, "Mute", 0) != 0) {
				if (li == 0) rki_fbx_warn(ctx, lo->node, "the first animation layer is muted: it is evaluated anyway");
				else ls[li].weight = 0.0;
			}
			li++;
		}
		clip->layers = ls;
		clip->layer_count = li;

		int64_t a = 0, b = 0;
		bool has = rki_anim_own_i64(so, "LocalStart", &a) && rki_anim_own_i64(so, "LocalStop", &b);
		if (!has) {
			const rki_fbx_node *take = rki_anim_find_take(ctx, clip->name);
			has = take && rki_anim_time_pair(rki_fbx_find_child(take, "LocalTime"), &a, &b);
		}
		if (!has) has = rki_anim_own_i64(so, "ReferenceStart", &a) && rki_anim_own_i64(so, "ReferenceStop", &b);
		rki_clip_set_range(ctx, so->node, clip, has, a, b);
		ci++;
	}
	s->clips.data = clips;
	s->clips.count = ci;
	return true;
}

/* ---- 5000-6100 takes ---------------------------------------------------------------- */

/* Reads a "Key:" list: individual scalar properties (letters as 'S' words
 * or 'C' bytes), or, from some writers, one numeric array with letters as
 * small integers. */
typedef struct rki_key_cursor {
	const rki_fbx_node *n;
	const double *arr;   /* array form, else NULL */
	size_t count;
	size_t pos;
} rki_key_cursor;

static bool rki_cursor_done(const rki_key_cursor *c)
{
	return c->pos >= c->count;
}

static bool rki_cursor_number(rki_key_cursor *c, double *out)
{
	if (c->pos >= c->count) return false;
	if (c->arr) {
		*out = c->arr[c->pos++];
		return true;
	}
	const rki_fbx_prop *p = &c->n->props[c->pos];
	if (p->type == RKI_FBX_STRING || p->type == RKI_FBX_RAW || p->type == RKI_FBX_BOOL) return false;
	if (!rki_fbx_prop_f64(c->n, c->pos, out)) return false;
	c->pos++;
	return true;
}

static bool rki_cursor_ticks(rki_key_cursor *c, int64_t *out)
{
	if (c->pos >= c->count) return false;
	if (!c->arr && rki_fbx_prop_i64(c->n, c->pos, out) && c->n->props[c->pos].type != RKI_FBX_BOOL) {
		c->pos++;
		return true;
	}
	double d;
	size_t save = c->pos;
	if (!rki_cursor_number(c, &d) || d != floor(d) || d < -9.2e18 || d > 9.2e18) {
		c->pos = save;
		return false;
	}
	*out = (int64_t)d;
	return true;
}

static bool rki_cursor_letter(rki_key_cursor *c, char *out)
{
	if (c->pos >= c->count) return false;
	if (c->arr) {
		double d = c->arr[c->pos];
		if (!(d >= 1.0 && d < 128.0) || d != floor(d)) return false;
		*out = (char)(int)d;
		c->pos++;
		return true;
	}
	const rki_fbx_prop *p = &c->n->props[c->pos];
	char ch = 0;
	if ((p->type == RKI_FBX_STRING || p->type == RKI_FBX_RAW) && p->v.s.len == 1) ch = p->v.s.data[0];
	else if (p->type == RKI_FBX_BOOL && p->v.i > 0 && p->v.i < 128) ch = (char)p->v.i;
	if (!ch) return false;
	*out = ch;
	c->pos++;
	return true;
}

/* Parses one legacy channel's keys into *out. */
static bool rki_anim_read_legacy_keys(rki_fbx_ctx *ctx, const rki_fbx_node *channel, rk_anim_curve *out)
{
	memset(out, 0, sizeof(*out));
	out->pre_repeat_count = out->post_repeat_count = -1;
	const rki_fbx_node *kn = rki_fbx_find_child(channel, "Key");
	if (!kn || kn->prop_count == 0) return true;

	rki_arena *tmp = &ctx->curve_scratch;
	rki_arena_reset(tmp);
	rki_key_cursor c;
	memset(&c, 0, sizeof(c));
	c.n = kn;
	char t0 = kn->props[0].type;
	if (kn->prop_count == 1 && (t0 == RKI_FBX_ARRAY_F64 || t0 == RKI_FBX_ARRAY_F32 || t0 == RKI_FBX_ARRAY_I64 || t0 == RKI_FBX_ARRAY_I32)) {
		if (!rki_fbx_array_f64(kn, 0, tmp, &c.arr, &c.count, ctx->sc->err)) return rki_fbx_dom_failed(ctx);
	} else {
		c.count = kn->prop_count;
	}

	int64_t key_ver = 0;
	if (!rki_fbx_prop_i64(rki_fbx_find_child(channel, "KeyVer"), 0, &key_ver) || key_ver <= 0)
		key_ver = ctx->doc.version < 5000 ? 4003 : ctx->doc.version < 6000 ? 4004 : 4005;

	size_t cap = c.count / 3; /* every key takes at least 3 values */
	rki_raw_key *keys = (rki_raw_key *)rki_arena_array(tmp, cap ? cap : 1, sizeof(rki_raw_key));
	if (!keys) return rki_fbx_oom(ctx);
	size_t n = 0;
	while (!rki_cursor_done(&c)) {
		if (n >= cap) goto corrupt;
		rki_raw_key *k = &keys[n];
		rki_raw_key_defaults(k);
		char mode, ch;
		if (!rki_cursor_ticks(&c, &k->ticks) || !rki_cursor_number(&c, &k->value) || !rki_cursor_letter(&c, &mode))
			goto corrupt;
		int weights = 0;
		if (mode == 'L') {
			k->interp = RK_INTERP_LINEAR;
		} else if (mode == 'C') {
			k->interp = RK_INTERP_CONSTANT;
			if (key_ver >= 4004) {
				if (!rki_cursor_letter(&c, &ch)) goto corrupt;
				if (ch == 'n') k->interp = RK_INTERP_CONSTANT_NEXT;
			}
		} else if (mode == 'U') {
			double skip;
			k->interp = RK_INTERP_CUBIC;
			if (!rki_cursor_letter(&c, &ch)) goto corrupt;
			switch (ch) {
			case 's': case 'b':
				k->tangent = RKI_TAN_EXPLICIT;
				if (!rki_cursor_number(&c, &k->right_slope) || !rki_cursor_number(&c, &k->next_left_slope)) goto corrupt;
				weights = key_ver == 4003 ? 0 : 1;
				break;
			case 'a':
				k->clamp_progressive = true;
				weights = key_ver <= 4004 ? 0 : 1;
				break;
			case 'p': case 'q':
				k->clamp_progressive = true;
				if (!rki_cursor_number(&c, &skip) || !rki_cursor_number(&c, &skip)) goto corrupt;
				weights = key_ver <= 4004 ? 1 : 2;
				break;
			case 'd':
				k->clamp_progressive = true;
				if (!rki_cursor_number(&c, &skip)) goto corrupt;
				weights = 1;
				break;
			case 't':
				k->tangent = RKI_TAN_TCB;
				for (int q = 0; q < 3; q++)
					if (!rki_cursor_number(&c, &k->tcb[q])) goto corrupt;
				break;
			default:
				rki_fbx_error_at_node(ctx, kn, RK_ERROR_CORRUPT, "animation key %zu has unknown tangent mode '%c'", n, ch);
				return false;
			}
			for (int w = 0; w < weights; w++) {
				if (!rki_cursor_letter(&c, &ch)) goto corrupt;
				switch (ch) {
				case 'n': case 'c': break;
				case 'a':
					if (!rki_cursor_number(&c, &k->right_weight) || !rki_cursor_number(&c, &k->next_left_weight)) goto corrupt;
					break;
				case 'r':
					if (!rki_cursor_number(&c, &k->right_weight)) goto corrupt;
					break;
				case 'l':
					if (!rki_cursor_number(&c, &k->next_left_weight)) goto corrupt;
					break;
				default:
					rki_fbx_error_at_node(ctx, kn, RK_ERROR_CORRUPT, "animation key %zu has unknown weight mode '%c'", n, ch);
					return false;
				}
			}
		} else {
			rki_fbx_error_at_node(ctx, kn, RK_ERROR_CORRUPT, "animation key %zu has unknown interpolation '%c'", n, mode);
			return false;
		}
		n++;
	}
	int64_t declared;
	if (rki_fbx_prop_i64(rki_fbx_find_child(channel, "KeyCount"), 0, &declared) && declared != (int64_t)n)
		rki_fbx_warn(ctx, kn, "animation channel KeyCount differs from the number of keys in its Key list");
	if (!rki_anim_finish_curve(ctx, kn, keys, n, out)) return false;
	rki_anim_read_extrapolation(ctx, channel, "Pre-Extrapolation", &out->pre_extrapolation, &out->pre_repeat_count);
	rki_anim_read_extrapolation(ctx, channel, "Post-Extrapolation", &out->post_extrapolation, &out->post_repeat_count);
	return true;
corrupt:
	rki_fbx_error_at_node(ctx, kn, RK_ERROR_CORRUPT, "animation Key list is malformed at value %zu (key %zu)", c.pos, n);
	return false;
}

/* Curve of a legacy channel node, or NULL when it has no keys. */
static bool rki_anim_legacy_curve(rki_fbx_ctx *ctx, const rki_fbx_node *channel, const rk_anim_curve **out)
{
	*out = NULL;
	rk_anim_curve *c = (rk_anim_curve *)rki_arena_alloc(ctx->sc->arena, sizeof(rk_anim_curve));
	if (!c) return rki_fbx_oom(ctx);
	if (!rki_anim_read_legacy_keys(ctx, channel, c)) return false;
	if (c->key_count) *out = c;
	return true;
}

static bool rki_channel_name(const rki_fbx_node *ch, const char **s, size_t *len)
{
	return strcmp(ch->name, "Channel") == 0 && rki_fbx_prop_str(ch, 0, s, len);
}

/* One legacy property channel: either a curve itself (has Key/Default) or
 * X/Y/Z (or other) sub-channels. */
static bool rki_anim_legacy_track(rki_fbx_ctx *ctx, const rki_fbx_node *channel, rk_anim_track *t)
{
	bool single = rki_fbx_find_child(channel, "Key") || rki_fbx_find_child(channel, "Default");
	double d;
	if (single) {
		if (rki_fbx_prop_f64(rki_fbx_find_child(channel, "Default"), 0, &d) && isfinite(d)) t->default_value[0] = d;
		return rki_anim_legacy_curve(ctx, channel, &t->curves[0]);
	}
	bool used[4] = { false, false, false, false };
	for (size_t i = 0; i < channel->child_count; i++) {
		const rki_fbx_node *sub = &channel->children[i];
		const char *s;
		size_t len;
		if (!rki_channel_name(sub, &s, &len)) continue;
		int slot = -1;
		if (rki_fbx_str_eq(s, len, "X")) slot = 0;
		else if (rki_fbx_str_eq(s, len, "Y")) slot = 1;
		else if (rki_fbx_str_eq(s, len, "Z")) slot = 2;
		else if (rki_fbx_str_eq(s, len, "W")) slot = 3;
		else
			for (int k = 0; k < 4 && slot < 0; k++)
				if (!used[k]) slot = k;
		if (slot < 0 || used[slot]) {
			rki_fbx_warn(ctx, sub, "animation channel has extra or repeated sub-channels: ignored");
			continue;
		}
		used[slot] = true;
		if (rki_fbx_prop_f64(rki_fbx_find_child(sub, "Default"), 0, &d) && isfinite(d)) t->default_value[slot] = d;
		if (!rki_anim_legacy_curve(ctx, sub, &t->curves[slot])) return false;
	}
	return true;
}

/* Blend channel of node's mesh named like a legacy channel ("name" or
 * "name (Shape)"), or NULL. */
static const rk_blend_channel *rki_anim_find_blend_channel(const rk_node *node, const char *s, size_t len)
{
	if (!node || !node->mesh) return NULL;
	static const char suffix[] = " (Shape)";
	size_t sl = sizeof(suffix) - 1;
	size_t base = len >= sl && memcmp(s + len - sl, suffix, sl) == 0 ? len - sl : len;
	const rk_blend_channel_list *bl = &node->mesh->blend_channels;
	for (size_t k = 0; k < bl->count; k++) {
		const char *nm = bl->data[k].name ? bl->data[k].name : "";
		size_t nl = strlen(nm);
		if ((nl == len && memcmp(nm, s, len) == 0) || (nl == base && memcmp(nm, s, base) == 0)) return &bl->data[k];
	}
	return NULL;
}

typedef struct rki_model_ref { const char *name; uint32_t object; } rki_model_ref;

static int rki_model_ref_cmp(const void *a, const void *b)
{
	const rki_model_ref *x = (const rki_model_ref *)a, *y = (const rki_model_ref *)b;
	int c = strcmp(x->name, y->name);
	if (c) return c;
	return x->object < y->object ? -1 : x->object > y->object;
}

static rki_fbx_object *rki_anim_find_model(rki_fbx_ctx *ctx, const rki_model_ref *refs, size_t n, const char *name)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (strcmp(refs[mid].name, name) < 0) lo = mid + 1;
		else hi = mid;
	}
	return lo < n && strcmp(refs[lo].name, name) == 0 ? &ctx->objects[refs[lo].object] : NULL;
}

/* A take entry names its object "Model::name" (ASCII), "name\0\1Model"
 * (binary) or just "name" (binary 6100): false only when another class is
 * named explicitly. */
static bool rki_take_entry_is_model(const char *s, size_t len)
{
	for (size_t i = 0; i + 1 < len; i++) {
		if (s[i] == '\0' && s[i + 1] == '\x01') return rki_fbx_str_eq(s + i + 2, len - i - 2, "Model");
		if (s[i] == ':' && s[i + 1] == ':') return rki_fbx_str_eq(s, i, "Model");
	}
	return true;
}

/* Tracks of one Take "Model" entry. */
static bool rki_anim_take_model(rki_fbx_ctx *ctx, const rki_fbx_node *mn, const rki_model_ref *refs, size_t nrefs,
	rki_track_list *l)
{
	const char *s;
	size_t len;
	if (!rki_fbx_prop_str(mn, 0, &s, &len)) {
		rki_fbx_warn(ctx, mn, "take entry without a model name ignored");
		return true;
	}
	if (!rki_take_entry_is_model(s, len)) {
		rki_fbx_warn(ctx, mn, "take animates an object that is not a Model: ignored");
		return true;
	}
	const char *name = rki_fbx_plain_name(&ctx->sc->tmp, s, len);
	if (!name) return rki_fbx_oom(ctx);
	rki_fbx_object *mo = rki_anim_find_model(ctx, refs, nrefs, name);
	rk_node *node = mo ? (rk_node *)mo->out : NULL;
	if (!node) {
		rki_fbx_warn(ctx, mn, "take animates a model that is not in the scene: ignored");
		return true;
	}
	for (size_t i = 0; i < mn->child_count; i++) {
		const rki_fbx_node *ch = &mn->children[i];
		if (!rki_channel_name(ch, &s, &len)) continue;
		if (rki_fbx_str_eq(s, len, "Transform")) {
			for (size_t j = 0; j < ch->child_count; j++) {
				const rki_fbx_node *sub = &ch->children[j];
				const char *ss;
				size_t sl;
				if (!rki_channel_name(sub, &ss, &sl)) continue;
				const char *prop = rki_fbx_str_eq(ss, sl, "T") ? "Lcl Translation"
					: rki_fbx_str_eq(ss, sl, "R") ? "Lcl Rotation"
					: rki_fbx_str_eq(ss, sl, "S") ? "Lcl Scaling" : NULL;
				if (!prop) {
					rki_fbx_warn(ctx, sub, "unknown Transform sub-channel ignored");
					continue;
				}
				rk_anim_track t;
				memset(&t, 0, sizeof(t));
				t.node = node;
				t.target = rki_target_of_property(prop);
				t.property = prop;
				rki_static_property(mo, node, prop, t.default_value);
				if (!rki_anim_legacy_track(ctx, sub, &t)) return false;
				if (rki_track_has_curve(&t) && !rki_tracks_push(ctx, l, &t)) return false;
			}
			continue;
		}
		rk_anim_track t;
		memset(&t, 0, sizeof(t));
		t.node = node;
		const rk_blend_channel *bc = rki_anim_find_blend_channel(node, s, len);
		if (bc) {
			t.target = RK_TARGET_MORPH_WEIGHTS;
			t.property = "DeformPercent";
			t.morph_channel = bc->index;
			t.default_value[0] = bc->default_weight * 100.0;
		} else {
			const char *prop = rki_arena_strndup(ctx->sc->arena, s, len);
			if (!prop) return rki_fbx_oom(ctx);
			t.target = rki_target_of_property(prop);
			t.property = prop;
			rki_static_property(mo, node, prop, t.default_value);
		}
		if (!rki_anim_legacy_track(ctx, ch, &t)) return false;
		if (rki_track_has_curve(&t) && !rki_tracks_push(ctx, l, &t)) return false;
	}
	return true;
}

static bool rki_anim_read_takes(rki_fbx_ctx *ctx)
{
	const rki_fbx_node *takes = rki_fbx_find_child(&ctx->doc.root, "Takes");
	if (!takes) return true;
	size_t count = 0;
	for (size_t i = 0; i < takes->child_count; i++)
		if (strcmp(takes->children[i].name, "Take") == 0) count++;
	if (!count) return true;

	/* Model objects by name for the take entries. */
	size_t nrefs = 0;
	for (size_t i = 0; i < ctx->object_count; i++)
		if (rki_anim_is(&ctx->objects[i], "Model") && ctx->objects[i].name) nrefs++;
	rki_model_ref *refs = (rki_model_ref *)rki_arena_array(&ctx->sc->tmp, nrefs ? nrefs : 1, sizeof(rki_model_ref));
	rk_anim_clip *clips = (rk_anim_clip *)rki_arena_array(ctx->sc->arena, count, sizeof(rk_anim_clip));
	if (!refs || !clips) return rki_fbx_oom(ctx);
	nrefs = 0;
	for (size_t i = 0; i < ctx->object_count; i++) {
		if (!rki_anim_is(&ctx->objects[i], "Model") || !ctx->objects[i].name) continue;
		refs[nrefs].name = ctx->objects[i].name;
		refs[nrefs].object = (uint32_t)i;
		nrefs++;
	}
	qsort(refs, nrefs, sizeof(rki_model_ref), rki_model_ref_cmp);

	size_t ci = 0;
	for (size_t i = 0; i < takes->child_count; i++) {
		const rki_fbx_node *take = &takes->children[i];
		if (strcmp(take->name, "Take") != 0) continue;
		rk_anim_clip *clip = &clips[ci];
		clip->index = (uint32_t)ci;
		const char *s;
		size_t len;
		if (!rki_fbx_prop_str(take, 0, &s, &len)) { s = ""; len = 0; }
		clip->name = rki_arena_strndup(ctx->sc->arena, s, len);
		rk_anim_layer *layer = (rk_anim_layer *)rki_arena_alloc(ctx->sc->arena, sizeof(rk_anim_layer));
		if (!clip->name || !layer) return rki_fbx_oom(ctx);
		layer->name = "BaseLayer";
		layer->weight = 1.0;
		layer->blend = RK_LAYER_OVERRIDE;
		layer->scale_accumulate_multiply = true;
		rki_track_list l;
		rki_buf_init(&l.buf, ctx->sc->alloc);
		for (size_t j = 0; j < take->child_count; j++) {
			const rki_fbx_node *mn = &take->children[j];
			if (strcmp(mn->name, "Model") != 0) continue;
			if (!rki_anim_take_model(ctx, mn, refs, nrefs, &l)) {
				rki_buf_free(&l.buf);
				return false;
			}
		}
		if (!rki_tracks_commit(ctx, &l, layer)) return false;
		clip->layers = layer;
		clip->layer_count = 1;
		int64_t a = 0, b = 0;
		bool has = rki_anim_time_pair(rki_fbx_find_child(take, "LocalTime"), &a, &b)
			|| rki_anim_time_pair(rki_fbx_find_child(take, "ReferenceTime"), &a, &b);
		rki_clip_set_range(ctx, take, clip, has, a, b);
		ci++;
	}
	ctx->sc->scene->clips.data = clips;
	ctx->sc->scene->clips.count = ci;
	return true;
}

/* ---- entry -------------------------------------------------------------------------- */

bool rki_fbx_read_animation(rki_fbx_ctx *ctx)
{
	rki_arena_init(&ctx->curve_scratch, ctx->sc->alloc);
	bool ok = ctx->v6 ? rki_anim_read_takes(ctx) : rki_anim_read_stacks7(ctx);
	rki_arena_free(&ctx->curve_scratch);
	ctx->last_times = NULL;
	return ok;
}
