/* src/runtime_build/runtime_clip.c - offline: rk_anim_clip -> rk_runtime_clip
 * (see rigkit/runtime.h, FIDELITY).
 *
 * Per joint and channel (translation, rotation, scale) one of three plans:
 *   CONSTANT  nothing animates the channel: one key, the rest value
 *   EXACT     one glTF sampler track drives it: keys copied as they are
 *   RESAMPLE  anything else: values taken from rk_pose_eval_run() at the
 *             union of the involved key times, refined adaptively
 * Morph weights (blend channels of a joint's mesh node) the same way.
 *
 * Resampled keys are CUBIC by default: each key stores the reference value
 * and its one-sided time derivatives (second-order differences over a 5-point
 * stencil t-2h .. t+2h), so kinks at curve keys survive as different in- and
 * out-tangents. The build works in rounds so that one reference pose
 * evaluation serves every channel needing a value at that time:
 *   A. keys without value/tangents: evaluate their stencils
 *   B. pending intervals: evaluate their 1/4, 1/2, 3/4 points; accept the
 *      interval or split it into quarters (check points become new keys)
 * Requests (time, destination) are sorted by time and each distinct time is
 * evaluated once.
 */
#include "runtime_build_internal.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

enum { RKI_CH_T = 0, RKI_CH_R = 1, RKI_CH_S = 2, RKI_CH_W = 3 };
enum { RKI_PLAN_CONSTANT = 0, RKI_PLAN_EXACT, RKI_PLAN_RESAMPLE };

#define RKI_MAX_ROUNDS 64
#define RKI_STENCIL_H 1e-5      /* seconds: derivative step (capped at a quarter of the key gap) */
#define RKI_MERGE_TIME 1e-6     /* seconds: initial key times closer than this merge */

typedef struct rki_key {
	double t;
	double v[4];
	double din[4], dout[4];      /* derivatives per second, left / right of t */
	bool ready;                  /* value (and tangents for CUBIC) known */
} rki_key;

typedef struct rki_channel {
	int kind;                    /* RKI_CH_* */
	uint32_t joint;
	uint32_t node;
	uint32_t weight_index;       /* RKI_CH_W: blend channel */
	double tol;                  /* in the channel's own units */
	double err_scale;            /* local error -> reported units (translation: parent rest scale) */
	rki_key *k;                  /* keys, ascending time */
	size_t n;
	uint8_t *pending;            /* n - 1 interval flags: 0 done, 1 to check */
	double maxdev;               /* largest deviation of a key or check value from the first key */
	bool have_first;
	double first[4];
	double max_err;              /* largest check error of an accepted interval */
} rki_channel;

typedef struct rki_plan {
	int plan;                    /* RKI_PLAN_* */
	const rk_anim_track *track;  /* EXACT */
	int32_t channel;             /* RESAMPLE: index into channels */
} rki_plan;

typedef struct rki_node_info {
	uint32_t transform_tracks;
	uint32_t ch_tracks[3];
	const rk_anim_track *ch_track[3];
	bool ch_exact[3];
	uint32_t morph_tracks;
	const rk_anim_track *morph_track;
	bool morph_exact;
	size_t time_begin, time_count;       /* transform key times in the node-time table */
	size_t mtime_begin, mtime_count;     /* morph key times */
} rki_node_info;

typedef struct rki_node_time {
	uint32_t node;
	uint32_t morph;
	double t;
} rki_node_time;

/* One value wanted from the reference: channel ch at time t into dst. */
typedef struct rki_req {
	double t;
	uint32_t ch;
	bool track_dev;              /* counts for the channel's constant test */
	double *dst;
} rki_req;

typedef struct rki_ctx {
	const rk_scene *scene;
	const rk_anim_clip *clip;
	const rk_skeleton *skel;
	rk_runtime_clip_opts o;
	bool cubic;
	rki_alloc alloc;
	rk_error *err;
	double tb, te;
	rk_pose pose;
	rk_pose_eval_job job;
	uint32_t evaluations;
	/* per-joint local cache for the current evaluation */
	rk_trs *local;
	uint32_t *stamp;
	uint32_t eval_id;
	rki_channel *ch;
	size_t ch_count;
	uint32_t unresolved;
} rki_ctx;

static void *rki_ctx_alloc(rki_ctx *x, size_t count, size_t elem)
{
	size_t bytes;
	if (!rki_mul_size(count, elem, &bytes)) return NULL;
	if (bytes == 0) bytes = 1;
	return rki_malloc(&x->alloc, bytes);
}

static void rki_ctx_free(rki_ctx *x, void *p, size_t count, size_t elem)
{
	size_t bytes = count * elem;
	if (bytes == 0) bytes = 1;
	rki_free(&x->alloc, p, bytes);
}

static bool rki_oom(rki_ctx *x)
{
	rki_error_set(x->err, x->alloc.limit_hit ? RK_ERROR_LIMIT : RK_ERROR_OUT_OF_MEMORY,
		"rk_runtime_clip_build: out of memory");
	return false;
}

/* ---- reference values ------------------------------------------------------------- */

static void rki_eval(rki_ctx *x, double t)
{
	x->job.time = x->tb + t;
	rk_pose_eval_run(&x->job);
	x->evaluations++;
	x->eval_id++;
}

static void rki_channel_value(rki_ctx *x, const rki_channel *c, double v[4])
{
	if (c->kind == RKI_CH_W) {
		size_t at = x->pose.blend_offsets[c->node] + c->weight_index;
		v[0] = at < x->pose.blend_weight_count ? x->pose.blend_weights[at] : 0.0;
		v[1] = v[2] = v[3] = 0.0;
		return;
	}
	if (x->stamp[c->joint] != x->eval_id) {
		x->local[c->joint] = rki_rt_reference_local(&x->pose, &x->scene->nodes.data[c->node]);
		x->stamp[c->joint] = x->eval_id;
	}
	const rk_trs *l = &x->local[c->joint];
	switch (c->kind) {
	case RKI_CH_T: v[0] = l->translation.x; v[1] = l->translation.y; v[2] = l->translation.z; v[3] = 0.0; break;
	case RKI_CH_R: v[0] = l->rotation.x; v[1] = l->rotation.y; v[2] = l->rotation.z; v[3] = l->rotation.w; break;
	default: v[0] = l->scale.x; v[1] = l->scale.y; v[2] = l->scale.z; v[3] = 0.0; break;
	}
}

/* Error of `approx` against the reference `ref`, in the channel's units. */
static double rki_channel_error(const rki_channel *c, const double *approx, const double *ref)
{
	switch (c->kind) {
	case RKI_CH_T: {
		double dx = approx[0] - ref[0], dy = approx[1] - ref[1], dz = approx[2] - ref[2];
		return sqrt(dx * dx + dy * dy + dz * dz);
	}
	case RKI_CH_R:
		return rk_quat_angle_between((rk_quat){ approx[0], approx[1], approx[2], approx[3] },
			(rk_quat){ ref[0], ref[1], ref[2], ref[3] });
	case RKI_CH_S: {
		double e = 0.0;
		for (int k = 0; k < 3; k++) {
			double m = fabs(ref[k]) > 1.0 ? fabs(ref[k]) : 1.0;
			double d = fabs(approx[k] - ref[k]) / m;
			if (d > e) e = d;
		}
		return e;
	}
	default:
		return fabs(approx[0] - ref[0]);
	}
}

/* The runtime's interpolation between keys a and b at u, in double:
 * CUBIC Hermite (rotations per component, then normalised; b's sign aligned
 * to a, as the output keys will be), LINEAR lerp / slerp. */
static void rki_channel_interp(const rki_ctx *x, const rki_channel *c, const rki_key *a, const rki_key *b, double u,
	double *out)
{
	double bs = 1.0;
	if (c->kind == RKI_CH_R) {
		double d = a->v[0] * b->v[0] + a->v[1] * b->v[1] + a->v[2] * b->v[2] + a->v[3] * b->v[3];
		if (d < 0.0) bs = -1.0;
	}
	if (x->cubic) {
		double dt = b->t - a->t, u2 = u * u, u3 = u2 * u;
		double h00 = 2 * u3 - 3 * u2 + 1, h10 = (u3 - 2 * u2 + u) * dt, h01 = -2 * u3 + 3 * u2, h11 = (u3 - u2) * dt;
		for (int k = 0; k < 4; k++)
			out[k] = h00 * a->v[k] + h10 * a->dout[k] + bs * (h01 * b->v[k] + h11 * b->din[k]);
		if (c->kind == RKI_CH_R) {
			rk_quat q = rk_quat_normalize((rk_quat){ out[0], out[1], out[2], out[3] });
			out[0] = q.x; out[1] = q.y; out[2] = q.z; out[3] = q.w;
		}
		return;
	}
	if (c->kind == RKI_CH_R) {
		rk_quat q = rk_quat_slerp((rk_quat){ a->v[0], a->v[1], a->v[2], a->v[3] },
			(rk_quat){ b->v[0], b->v[1], b->v[2], b->v[3] }, u);
		out[0] = q.x; out[1] = q.y; out[2] = q.z; out[3] = q.w;
		return;
	}
	for (int k = 0; k < 4; k++) out[k] = a->v[k] + (b->v[k] - a->v[k]) * u;
}

/* ---- sorting ------------------------------------------------------------------------ */

static int rki_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static int rki_cmp_node_time(const void *a, const void *b)
{
	const rki_node_time *x = (const rki_node_time *)a, *y = (const rki_node_time *)b;
	if (x->node != y->node) return x->node < y->node ? -1 : 1;
	if (x->morph != y->morph) return x->morph < y->morph ? -1 : 1;
	return x->t < y->t ? -1 : x->t > y->t;
}

/* Drops times closer than RKI_MERGE_TIME to the previous kept one (keeping
 * the last time, the clip end). v ascending and unique. */
static size_t rki_merge_close(double *v, size_t n)
{
	if (n < 2) return n;
	size_t w = 1;
	for (size_t i = 1; i < n; i++) {
		if (v[i] - v[w - 1] < RKI_MERGE_TIME) {
			if (i + 1 == n && w > 1) v[w - 1] = v[i];
			continue;
		}
		v[w++] = v[i];
	}
	return w;
}

static size_t rki_unique(double *v, size_t n)
{
	if (n == 0) return 0;
	qsort(v, n, sizeof(double), rki_cmp_double);
	size_t w = 1;
	for (size_t i = 1; i < n; i++)
		if (v[i] != v[w - 1]) v[w++] = v[i];
	return w;
}

/* ---- track classification --------------------------------------------------------- */

static bool rki_track_sampled(const rk_anim_track *tr)
{
	return !tr->curves[0] && !tr->curves[1] && !tr->curves[2] && !tr->curves[3] && tr->key_count > 0;
}

/* Which of T, R, S a track can affect on a non-FBX node (bit mask); 0 = none. */
static unsigned rki_track_channels_gltf(const rk_anim_track *tr)
{
	switch (tr->target) {
	case RK_TARGET_TRANSLATION: return 1u;
	case RK_TARGET_ROTATION_EULER:
	case RK_TARGET_ROTATION_QUAT: return 2u;
	case RK_TARGET_SCALE: return 4u;
	case RK_TARGET_FBX_PROPERTY: {
		const char *p = tr->property ? tr->property : "";
		if (strcmp(p, "Lcl Translation") == 0) return 1u;
		if (strcmp(p, "Lcl Rotation") == 0) return 2u;
		if (strcmp(p, "Lcl Scaling") == 0) return 4u;
		return 0u;
	}
	default: return 0u;
	}
}

static bool rki_times_in_range(const double *t, size_t n, double tb, double te)
{
	for (size_t k = 0; k < n; k++) {
		if (!isfinite(t[k]) || t[k] < tb || t[k] > te) return false;
		if (k && !(t[k] >= t[k - 1])) return false;
	}
	return true;
}

static bool rki_exactable(const rk_anim_track *tr, int ch, double tb, double te)
{
	if (!rki_track_sampled(tr) || !tr->times || !rk_track_has_values(tr) || tr->key_count > UINT32_MAX / 4) return false;
	if (tr->interpolation != RK_INTERP_CONSTANT && tr->interpolation != RK_INTERP_LINEAR && tr->interpolation != RK_INTERP_CUBIC)
		return false;
	switch (ch) {
	case RKI_CH_T: if (tr->target != RK_TARGET_TRANSLATION || tr->components != 3) return false; break;
	case RKI_CH_R: if (tr->target != RK_TARGET_ROTATION_QUAT || tr->components != 4) return false; break;
	case RKI_CH_S: if (tr->target != RK_TARGET_SCALE || tr->components != 3) return false; break;
	default: if (tr->target != RK_TARGET_MORPH_WEIGHTS || tr->components < 1) return false; break;
	}
	return rki_times_in_range(tr->times, tr->key_count, tb, te);
}

static uint32_t rki_interp_of(rk_interp i)
{
	return i == RK_INTERP_CUBIC ? RK_KEY_CUBIC : i == RK_INTERP_LINEAR ? RK_KEY_LINEAR : RK_KEY_STEP;
}

/* Appends a track's key times (clipped to the clip range) to the node table. */
static bool rki_push_times(rki_ctx *x, rki_node_time **tab, size_t *n, size_t *cap, uint32_t node, uint32_t morph,
	const double *t, size_t count)
{
	for (size_t k = 0; k < count; k++) {
		if (!isfinite(t[k]) || t[k] < x->tb || t[k] > x->te) continue;
		if (*n == *cap) {
			size_t nc = *cap ? *cap * 2 : 256;
			rki_node_time *nt = (rki_node_time *)rki_ctx_alloc(x, nc, sizeof(rki_node_time));
			if (!nt) return rki_oom(x);
			if (*n) memcpy(nt, *tab, *n * sizeof(rki_node_time));
			if (*tab) rki_ctx_free(x, *tab, *cap, sizeof(rki_node_time));
			*tab = nt;
			*cap = nc;
		}
		(*tab)[*n].node = node;
		(*tab)[*n].morph = morph;
		(*tab)[*n].t = t[k] - x->tb;
		(*n)++;
	}
	return true;
}

static bool rki_push_track_times(rki_ctx *x, rki_node_time **tab, size_t *n, size_t *cap, const rk_anim_track *tr, uint32_t morph)
{
	uint32_t node = tr->node->index;
	if (rki_track_sampled(tr)) {
		if (!tr->times) return true;
		return rki_push_times(x, tab, n, cap, node, morph, tr->times, tr->key_count);
	}
	for (int k = 0; k < 4; k++) {
		const rk_anim_curve *c = tr->curves[k];
		if (c && c->times && c->key_count)
			if (!rki_push_times(x, tab, n, cap, node, morph, c->times, c->key_count)) return false;
	}
	return true;
}

/* ---- refinement --------------------------------------------------------------------- */

static int rki_cmp_req(const void *a, const void *b)
{
	double x = ((const rki_req *)a)->t, y = ((const rki_req *)b)->t;
	return x < y ? -1 : x > y;
}

static void rki_track_dev(rki_channel *c, const double *v)
{
	if (!c->have_first) {
		memcpy(c->first, v, sizeof(c->first));
		c->have_first = true;
		return;
	}
	double e = rki_channel_error(c, v, c->first);
	if (e > c->maxdev) c->maxdev = e;
}

/* Serves requests: sorted by time, one reference evaluation per distinct time. */
static void rki_serve(rki_ctx *x, rki_req *req, size_t n)
{
	qsort(req, n, sizeof(rki_req), rki_cmp_req);
	for (size_t i = 0; i < n;) {
		rki_eval(x, req[i].t);
		size_t k = i;
		while (k < n && req[k].t == req[i].t) {
			rki_channel *c = &x->ch[req[k].ch];
			rki_channel_value(x, c, req[k].dst);
			k++;
		}
		i = k;
	}
	/* deviation tracking in time order per channel (first key first) */
	for (size_t i = 0; i < n; i++)
		if (req[i].track_dev) rki_track_dev(&x->ch[req[i].ch], req[i].dst);
}

static void rki_stencil_steps(const rki_channel *c, size_t i, double *hl, double *hr)
{
	double t = c->k[i].t;
	*hl = RKI_STENCIL_H;
	*hr = RKI_STENCIL_H;
	if (i > 0 && (t - c->k[i - 1].t) * 0.25 < *hl) *hl = (t - c->k[i - 1].t) * 0.25;
	if (i + 1 < c->n && (c->k[i + 1].t - t) * 0.25 < *hr) *hr = (c->k[i + 1].t - t) * 0.25;
	if (!(*hl > 0.0)) *hl = RKI_STENCIL_H;
	if (!(*hr > 0.0)) *hr = RKI_STENCIL_H;
}

/* Phase A: value (and one-sided derivatives for CUBIC) of every key not yet known. */
static bool rki_phase_keys(rki_ctx *x)
{
	const size_t per = x->cubic ? 5 : 1;
	size_t need = 0;
	for (size_t c = 0; c < x->ch_count; c++)
		for (size_t i = 0; i < x->ch[c].n; i++)
			if (!x->ch[c].k[i].ready) need += per;
	if (need == 0) return true;
	rki_req *req = (rki_req *)rki_ctx_alloc(x, need, sizeof(rki_req));
	double *buf = (double *)rki_ctx_alloc(x, need, 4 * sizeof(double));
	if (!req || !buf) {
		if (req) rki_ctx_free(x, req, need, sizeof(rki_req));
		if (buf) rki_ctx_free(x, buf, need, 4 * sizeof(double));
		return rki_oom(x);
	}
	size_t w = 0;
	for (size_t c = 0; c < x->ch_count; c++) {
		rki_channel *ch = &x->ch[c];
		for (size_t i = 0; i < ch->n; i++) {
			if (ch->k[i].ready) continue;
			double t = ch->k[i].t;
			if (x->cubic) {
				double hl, hr;
				rki_stencil_steps(ch, i, &hl, &hr);
				const double at[5] = { t - 2.0 * hl, t - hl, t, t + hr, t + 2.0 * hr };
				for (int s = 0; s < 5; s++) {
					req[w].t = at[s];
					req[w].ch = (uint32_t)c;
					req[w].track_dev = s == 2;
					req[w].dst = buf + 4 * w;
					w++;
				}
			} else {
				req[w].t = t;
				req[w].ch = (uint32_t)c;
				req[w].track_dev = true;
				req[w].dst = buf + 4 * w;
				w++;
			}
		}
	}
	/* the request array is sorted by rki_serve; remember each key's values by
	 * writing them through dst, which points into buf in fill order */
	rki_serve(x, req, need);
	w = 0;
	for (size_t c = 0; c < x->ch_count; c++) {
		rki_channel *ch = &x->ch[c];
		for (size_t i = 0; i < ch->n; i++) {
			rki_key *key = &ch->k[i];
			if (key->ready) continue;
			double *f = buf + 4 * w;
			w += per;
			if (!x->cubic) {
				memcpy(key->v, f, sizeof(key->v));
				memset(key->din, 0, sizeof(key->din));
				memset(key->dout, 0, sizeof(key->dout));
				key->ready = true;
				continue;
			}
			double *f0 = f, *f1 = f + 4, *f2 = f + 8, *f3 = f + 12, *f4 = f + 16;
			if (ch->kind == RKI_CH_R) {
				double *side[4] = { f0, f1, f3, f4 };
				for (int s = 0; s < 4; s++) {
					double d = side[s][0] * f2[0] + side[s][1] * f2[1] + side[s][2] * f2[2] + side[s][3] * f2[3];
					if (d < 0.0)
						for (int q = 0; q < 4; q++) side[s][q] = -side[s][q];
				}
			}
			double hl, hr;
			rki_stencil_steps(ch, i, &hl, &hr);
			memcpy(key->v, f2, sizeof(key->v));
			for (int q = 0; q < 4; q++) {
				key->din[q] = (3.0 * f2[q] - 4.0 * f1[q] + f0[q]) / (2.0 * hl);
				key->dout[q] = (-3.0 * f2[q] + 4.0 * f3[q] - f4[q]) / (2.0 * hr);
			}
			if (i == 0) memcpy(key->din, key->dout, sizeof(key->din));
			if (i + 1 == ch->n && i > 0) memcpy(key->dout, key->din, sizeof(key->dout));
			key->ready = true;
		}
	}
	rki_ctx_free(x, req, need, sizeof(rki_req));
	rki_ctx_free(x, buf, need, 4 * sizeof(double));
	return true;
}

/* Phase B: check every pending interval at its quarter points; accept it or
 * split it (the check points become keys, to be completed by phase A).
 * *checked = false when nothing was pending. */
static bool rki_phase_checks(rki_ctx *x, bool *checked)
{
	size_t total = 0;
	for (size_t c = 0; c < x->ch_count; c++) {
		const rki_channel *ch = &x->ch[c];
		for (size_t i = 0; i + 1 < ch->n; i++)
			if (ch->pending[i]) total += 3;
	}
	*checked = total > 0;
	if (total == 0) return true;
	rki_req *req = (rki_req *)rki_ctx_alloc(x, total, sizeof(rki_req));
	double *buf = (double *)rki_ctx_alloc(x, total, 4 * sizeof(double));
	if (!req || !buf) {
		if (req) rki_ctx_free(x, req, total, sizeof(rki_req));
		if (buf) rki_ctx_free(x, buf, total, 4 * sizeof(double));
		return rki_oom(x);
	}
	size_t w = 0;
	for (size_t c = 0; c < x->ch_count; c++) {
		const rki_channel *ch = &x->ch[c];
		for (size_t i = 0; i + 1 < ch->n; i++) {
			if (!ch->pending[i]) continue;
			double a = ch->k[i].t, b = ch->k[i + 1].t;
			for (int k = 1; k <= 3; k++) {
				req[w].t = a + (b - a) * (0.25 * k);
				req[w].ch = (uint32_t)c;
				req[w].track_dev = true;
				req[w].dst = buf + 4 * w;
				w++;
			}
		}
	}
	/* times of the checks, in fill order, before rki_serve sorts the requests */
	double *times = (double *)rki_ctx_alloc(x, total, sizeof(double));
	if (!times) {
		rki_ctx_free(x, req, total, sizeof(rki_req));
		rki_ctx_free(x, buf, total, 4 * sizeof(double));
		return rki_oom(x);
	}
	for (size_t i = 0; i < total; i++) times[i] = req[i].t;
	rki_serve(x, req, total);

	bool ok = true;
	size_t ci = 0;
	for (size_t c = 0; c < x->ch_count && ok; c++) {
		rki_channel *ch = &x->ch[c];
		size_t first_ci = ci, splits = 0;
		for (size_t i = 0; i + 1 < ch->n; i++) {
			if (!ch->pending[i]) continue;
			const rki_key *a = &ch->k[i], *b = &ch->k[i + 1];
			double err = 0.0;
			for (int k = 0; k < 3; k++) {
				double approx[4];
				rki_channel_interp(x, ch, a, b, 0.25 * (k + 1), approx);
				double e = rki_channel_error(ch, approx, buf + 4 * (ci + (size_t)k));
				if (!(e <= err)) err = e;
			}
			ci += 3;
			bool can_split = (b->t - a->t) * 0.25 >= x->o.min_interval;
			if (err <= 0.5 * ch->tol || !can_split) {
				if (!(err <= 0.5 * ch->tol)) x->unresolved++;
				if (!(err <= ch->max_err)) ch->max_err = err;
				ch->pending[i] = 3;
			} else {
				ch->pending[i] = 2;
				splits++;
			}
		}
		if (splits == 0) {
			if (ch->n > 1) memset(ch->pending, 0, ch->n - 1);
			continue;
		}
		size_t nn = ch->n + 3 * splits;
		rki_key *nk = (rki_key *)rki_ctx_alloc(x, nn, sizeof(rki_key));
		uint8_t *np = (uint8_t *)rki_ctx_alloc(x, nn - 1, 1);
		if (!nk || !np) {
			if (nk) rki_ctx_free(x, nk, nn, sizeof(rki_key));
			if (np) rki_ctx_free(x, np, nn - 1, 1);
			ok = rki_oom(x);
			break;
		}
		size_t o = 0, cj = first_ci;
		for (size_t i = 0; i < ch->n; i++) {
			nk[o] = ch->k[i];
			if (i + 1 == ch->n) {
				o++;
				break;
			}
			uint8_t st = ch->pending[i];
			if (st == 2) {
				np[o++] = 1;
				for (int k = 0; k < 3; k++) {
					memset(&nk[o], 0, sizeof(nk[o]));
					nk[o].t = times[cj + (size_t)k];
					memcpy(nk[o].v, buf + 4 * (cj + (size_t)k), sizeof(nk[o].v));
					nk[o].ready = false;
					np[o++] = 1;
				}
			} else {
				np[o++] = 0;
			}
			if (st == 2 || st == 3) cj += 3;
		}
		rki_ctx_free(x, ch->k, ch->n, sizeof(rki_key));
		rki_ctx_free(x, ch->pending, ch->n > 1 ? ch->n - 1 : 1, 1);
		ch->k = nk;
		ch->pending = np;
		ch->n = nn;
	}
	rki_ctx_free(x, times, total, sizeof(double));
	rki_ctx_free(x, req, total, sizeof(rki_req));
	rki_ctx_free(x, buf, total, 4 * sizeof(double));
	return ok;
}

static bool rki_refine(rki_ctx *x)
{
	for (int r = 0; r < RKI_MAX_ROUNDS; r++) {
		bool checked = false;
		if (!rki_phase_keys(x)) return false;
		if (!rki_phase_checks(x, &checked)) return false;
		if (!checked) return true;
	}
	/* out of rounds: complete the keys; intervals still pending count as unresolved */
	for (size_t c = 0; c < x->ch_count; c++)
		for (size_t i = 0; i + 1 < x->ch[c].n; i++)
			if (x->ch[c].pending[i]) x->unresolved++;
	return rki_phase_keys(x);
}

/* Keys a channel contributes to the output (1 when it collapses to a constant). */
static size_t rki_channel_keys(const rki_channel *c)
{
	return c->maxdev <= c->tol / 16.0 ? 1 : c->n;
}

/* ---- the build ------------------------------------------------------------------------- */

/* Key and value counts of the result. */
typedef struct rki_clip_sizes {
	size_t times, tv, rv, sv, mv, mt, wc;  /* key times, T/R/S values, morph values, morph tracks, weights */
} rki_clip_sizes;

/* Everything rk_runtime_clip_build holds between its steps. Scratch arrays
 * are freed by rki_build_cleanup whatever step failed; the result block is
 * handed over on success only. */
typedef struct rki_clip_build {
	rki_ctx x;                       /* reference evaluation and refinement state */
	size_t nodes, joints;
	size_t pose_bytes;
	void *pose_mem;
	int32_t *joint_of;               /* per node: joint, RK_JOINT_NONE */
	rki_node_info *info;             /* per node */
	rki_node_time *tab;              /* key times per node, sorted by (node, morph, t) */
	size_t tab_n, tab_cap;
	rki_plan *plan;                  /* 3 per joint */
	double *parent_scale;            /* per joint */
	double *tmp_times;
	size_t tmp_cap;
	uint32_t *morph_block_of;        /* per joint: block index + 1, 0 = none */
	size_t block_count, wchannels;
	size_t nch, total_ch;            /* transform channels; + morph weight channels */
	rki_clip_sizes n;
	/* the result block and its parts */
	rki_rt_layout layout;
	unsigned char *block;
	rk_runtime_clip *rc;
	rk_runtime_track *tracks[3];
	rk_morph_track *mtracks;
	rk_morph_block *mblocks;
	float *times;
	rk_float3 *tv, *sv;
	rk_float4 *rv;
	float *mv;
	const char *name;
	/* fill cursors and statistics */
	size_t at_time, at_val[3], at_mv, at_mt, at_w, at_block;
	uint32_t exact, resampled, constant;
	double max_err[4];
} rki_clip_build;

static rk_float3 rki_f3_of(const double *v) { return rki_f3((float)v[0], (float)v[1], (float)v[2]); }

/* A morph block whose single glTF weights track is copied as it is. */
static bool rki_morph_exact(const rki_clip_build *b, const rki_node_info *in)
{
	return in->morph_tracks == 1 && in->morph_exact && !b->x.o.resample_all;
}

/* Step 1: arguments (no allocation yet). */
static bool rki_build_check_args(const rk_scene *scene, const rk_anim_clip *clip, const rk_skeleton *skel, rk_error *err)
{
	if (!scene || !clip || !skel || !scene->nodes.data || !scene->nodes.count) {
		rki_error_set(err, RK_ERROR_INVALID_ARGUMENT, "rk_runtime_clip_build: scene, clip and skeleton are required");
		return false;
	}
	if (!skel->node_indices || !skel->parents || !skel->rest.translation || !skel->rest.rotation || !skel->rest.scale
		|| skel->rest.joint_count != skel->joint_count || skel->joint_count == 0 || skel->joint_count > (size_t)INT32_MAX) {
		rki_error_set(err, RK_ERROR_INVALID_ARGUMENT, "rk_runtime_clip_build: the skeleton must come from rk_skeleton_build (node_indices, parents, rest pose)");
		return false;
	}
	uintptr_t clip_at = (uintptr_t)clip, clips_at = (uintptr_t)scene->clips.data;
	if (!scene->clips.data || clip_at < clips_at || clip_at >= clips_at + scene->clips.count * sizeof(rk_anim_clip)
		|| (clip_at - clips_at) % sizeof(rk_anim_clip) != 0) {
		rki_error_set(err, RK_ERROR_INVALID_ARGUMENT, "rk_runtime_clip_build: clip is not a clip of the scene");
		return false;
	}
	double tb = clip->time_begin, te = clip->time_end;
	if (!isfinite(tb) || !isfinite(te) || te < tb) {
		rki_error_set(err, RK_ERROR_INVALID_ARGUMENT, "rk_runtime_clip_build: clip time range %g..%g is not valid", tb, te);
		return false;
	}
	const size_t nodes = scene->nodes.count;
	for (size_t j = 0; j < skel->joint_count; j++) {
		if (skel->node_indices[j] >= nodes || skel->parents[j] >= (int32_t)j || skel->parents[j] < RK_JOINT_NONE) {
			rki_error_set(err, RK_ERROR_INVALID_ARGUMENT, "rk_runtime_clip_build: skeleton joint %zu does not fit the scene", j);
			return false;
		}
	}
	return true;
}

/* Step 2: the context, option defaults and the per-node / per-joint scratch arrays. */
static bool rki_build_init(rki_clip_build *b, const rk_scene *scene, const rk_anim_clip *clip, const rk_skeleton *skel)
{
	rki_ctx *x = &b->x;
	x->scene = scene;
	x->clip = clip;
	x->skel = skel;
	x->tb = clip->time_begin;
	x->te = clip->time_end;
	b->nodes = scene->nodes.count;
	b->joints = skel->joint_count;
	if (!(x->o.rotation_tolerance > 0.0)) x->o.rotation_tolerance = 1e-4;
	if (!(x->o.scale_tolerance > 0.0)) x->o.scale_tolerance = 1e-4;
	if (!(x->o.weight_tolerance > 0.0)) x->o.weight_tolerance = 1e-4;
	if (!(x->o.min_interval > 0.0)) x->o.min_interval = 1e-4;
	x->cubic = !x->o.linear_keys;

	const size_t nodes = b->nodes, joints = b->joints;
	b->pose_bytes = rk_pose_memory_size(scene);
	b->pose_mem = b->pose_bytes ? rki_malloc(&x->alloc, b->pose_bytes) : NULL;
	b->joint_of = (int32_t *)rki_ctx_alloc(x, nodes, sizeof(int32_t));
	b->info = (rki_node_info *)rki_ctx_alloc(x, nodes, sizeof(rki_node_info));
	b->plan = (rki_plan *)rki_ctx_alloc(x, joints * 3, sizeof(rki_plan));
	b->parent_scale = (double *)rki_ctx_alloc(x, joints, sizeof(double));
	x->local = (rk_trs *)rki_ctx_alloc(x, joints, sizeof(rk_trs));
	x->stamp = (uint32_t *)rki_ctx_alloc(x, joints, sizeof(uint32_t));
	b->morph_block_of = (uint32_t *)rki_ctx_alloc(x, joints, sizeof(uint32_t));
	if (!b->pose_mem || !b->joint_of || !b->info || !b->plan || !b->parent_scale || !x->local || !x->stamp || !b->morph_block_of)
		return rki_oom(x);
	memset(b->info, 0, nodes * sizeof(rki_node_info));
	memset(b->plan, 0, joints * 3 * sizeof(rki_plan));
	memset(x->stamp, 0xff, joints * sizeof(uint32_t));
	memset(b->morph_block_of, 0, joints * sizeof(uint32_t));
	return true;
}

/* Step 3: node -> joint map; two joints may not share a node. */
static bool rki_build_map_joints(rki_clip_build *b)
{
	const rk_skeleton *skel = b->x.skel;
	for (size_t i = 0; i < b->nodes; i++) b->joint_of[i] = RK_JOINT_NONE;
	for (size_t j = 0; j < b->joints; j++) {
		if (b->joint_of[skel->node_indices[j]] != RK_JOINT_NONE) {
			rki_error_set(b->x.err, RK_ERROR_INVALID_ARGUMENT, "rk_runtime_clip_build: skeleton joints %d and %zu share a node",
				(int)b->joint_of[skel->node_indices[j]], j);
			return false;
		}
		b->joint_of[skel->node_indices[j]] = (int32_t)j;
	}
	return true;
}

/* Step 4: the reference pose and its evaluation job; also validates the clip's tracks. */
static bool rki_build_reference(rki_clip_build *b)
{
	rki_ctx *x = &b->x;
	if (!rk_pose_init(&x->pose, x->scene, b->pose_mem, b->pose_bytes)) {
		rki_error_set(x->err, RK_ERROR_INVALID_ARGUMENT, "rk_runtime_clip_build: cannot set up a pose");
		return false;
	}
	x->job.scene = x->scene;
	x->job.clip = x->clip;
	x->job.time = x->tb;
	x->job.pose = &x->pose;
	return rk_pose_eval_validate(&x->job, x->err);
}

/* Step 5: rest model scale of each joint's parent and the skeleton extent
 * (double); the extent gives the default translation tolerance. */
static bool rki_build_rest_scales(rki_clip_build *b)
{
	rki_ctx *x = &b->x;
	const rk_skeleton *skel = x->skel;
	const size_t joints = b->joints;
	rk_mat4 *model = (rk_mat4 *)rki_ctx_alloc(x, joints, sizeof(rk_mat4));
	if (!model) return rki_oom(x);
	rk_vec3 lo = { INFINITY, INFINITY, INFINITY }, hi = { -INFINITY, -INFINITY, -INFINITY };
	for (size_t j = 0; j < joints; j++) {
		rk_trs l = { rki_d3(skel->rest.translation[j]), rk_quat_normalize(rki_dq(skel->rest.rotation[j])), rki_d3(skel->rest.scale[j]) };
		rk_mat4 m = rk_mat4_from_trs(l);
		int32_t p = skel->parents[j];
		double ps = 1.0;
		if (p >= 0) {
			m = rk_mat4_mul(model[p], m);
			const double *a = model[p].m;
			double c0 = sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
			double c1 = sqrt(a[4] * a[4] + a[5] * a[5] + a[6] * a[6]);
			double c2 = sqrt(a[8] * a[8] + a[9] * a[9] + a[10] * a[10]);
			ps = c0 > c1 ? c0 : c1;
			if (c2 > ps) ps = c2;
		}
		model[j] = m;
		b->parent_scale[j] = ps > 0.0 && isfinite(ps) ? ps : 1.0;
		rk_vec3 pos = rk_mat4_get_translation(m);
		if (pos.x < lo.x) lo.x = pos.x;
		if (pos.y < lo.y) lo.y = pos.y;
		if (pos.z < lo.z) lo.z = pos.z;
		if (pos.x > hi.x) hi.x = pos.x;
		if (pos.y > hi.y) hi.y = pos.y;
		if (pos.z > hi.z) hi.z = pos.z;
	}
	rki_ctx_free(x, model, joints, sizeof(rk_mat4));
	double extent = rk_vec3_length(rk_vec3_sub(hi, lo));
	if (!(extent > 0.0) || !isfinite(extent)) extent = 1.0;
	if (!(x->o.translation_tolerance > 0.0)) x->o.translation_tolerance = 1e-4 * extent;
	return true;
}

/* Step 6: the tracks of each node (counts, the single track per channel,
 * whether it can be copied) and the node-time table of their key times. */
static bool rki_build_collect_tracks(rki_clip_build *b)
{
	rki_ctx *x = &b->x;
	const rk_anim_clip *clip = x->clip;
	for (size_t li = 0; li < clip->layer_count; li++) {
		const rk_anim_layer *layer = &clip->layers[li];
		double w = layer->weight;
		if (li > 0 && !(w > 0.0)) continue;
		for (size_t ti = 0; ti < layer->track_count; ti++) {
			const rk_anim_track *tr = &layer->tracks[ti];
			const rk_node *n = tr->node;
			rki_node_info *in = &b->info[n->index];
			if (tr->target == RK_TARGET_MORPH_WEIGHTS) {
				if (x->o.skip_morph_weights || !n->mesh || n->mesh->blend_channels.count == 0) continue;
				in->morph_tracks++;
				in->morph_track = tr;
				in->morph_exact = li == 0 && !n->has_fbx_props && rki_exactable(tr, RKI_CH_W, x->tb, x->te);
				if (!rki_push_track_times(x, &b->tab, &b->tab_n, &b->tab_cap, tr, 1)) return false;
				continue;
			}
			if (n->kind == RK_NODE_ROOT) continue; /* the root keeps the load conversion */
			if (n->has_fbx_props) {
				in->transform_tracks++;
			} else {
				unsigned m = rki_track_channels_gltf(tr);
				if (!m) continue;
				in->transform_tracks++;
				for (int c = 0; c < 3; c++) {
					if (!(m & (1u << c))) continue;
					in->ch_tracks[c]++;
					in->ch_track[c] = tr;
					in->ch_exact[c] = li == 0 && rki_exactable(tr, c, x->tb, x->te);
				}
			}
			if (!rki_push_track_times(x, &b->tab, &b->tab_n, &b->tab_cap, tr, 0)) return false;
		}
	}
	rki_node_time *tab = b->tab;
	const size_t tab_n = b->tab_n;
	if (tab_n) qsort(tab, tab_n, sizeof(rki_node_time), rki_cmp_node_time);
	for (size_t i = 0; i < tab_n;) {
		size_t k = i;
		while (k < tab_n && tab[k].node == tab[i].node && tab[k].morph == tab[i].morph) k++;
		rki_node_info *in = &b->info[tab[i].node];
		if (tab[i].morph) { in->mtime_begin = i; in->mtime_count = k - i; }
		else { in->time_begin = i; in->time_count = k - i; }
		i = k;
	}
	return true;
}

/* Step 7: a plan per joint channel and the morph blocks; allocates the
 * (zeroed) channel array. A node with a non-NORMAL FBX inherit mode follows
 * its ancestors. */
static bool rki_build_plan(rki_clip_build *b)
{
	rki_ctx *x = &b->x;
	const rk_scene *scene = x->scene;
	const size_t nodes = b->nodes;
	bool *animated = (bool *)rki_ctx_alloc(x, nodes, sizeof(bool));
	if (!animated) return rki_oom(x);
	for (size_t i = 0; i < nodes; i++) {
		const rk_node *n = &scene->nodes.data[i];
		animated[i] = b->info[i].transform_tracks > 0;
		if (n->has_fbx_props && n->props.inherit_mode != RK_INHERIT_NORMAL && n->parent && animated[n->parent->index])
			animated[i] = true;
	}
	for (size_t j = 0; j < b->joints; j++) {
		const rk_node *n = &scene->nodes.data[x->skel->node_indices[j]];
		const rki_node_info *in = &b->info[n->index];
		for (int c = 0; c < 3; c++) {
			rki_plan *p = &b->plan[3 * j + (size_t)c];
			p->plan = RKI_PLAN_CONSTANT;
			p->channel = -1;
			if (n->kind == RK_NODE_ROOT || !animated[n->index]) continue;
			if (n->has_fbx_props || !rk_adjust_transform_is_identity(&n->adjust)) {
				p->plan = RKI_PLAN_RESAMPLE;
			} else if (in->ch_tracks[c] == 1 && in->ch_exact[c] && !x->o.resample_all) {
				p->plan = RKI_PLAN_EXACT;
				p->track = in->ch_track[c];
			} else if (in->ch_tracks[c] > 0) {
				p->plan = RKI_PLAN_RESAMPLE;
			}
			if (p->plan == RKI_PLAN_RESAMPLE) p->channel = (int32_t)b->nch++;
		}
		if (in->morph_tracks) {
			b->morph_block_of[j] = (uint32_t)++b->block_count;
			if (!rki_morph_exact(b, in)) b->wchannels += n->mesh->blend_channels.count;
		}
	}
	rki_ctx_free(x, animated, nodes, sizeof(bool));
	b->total_ch = b->nch + b->wchannels;
	x->ch = (rki_channel *)rki_ctx_alloc(x, b->total_ch + 1, sizeof(rki_channel));
	if (!x->ch) return rki_oom(x);
	memset(x->ch, 0, (b->total_ch + 1) * sizeof(rki_channel));
	return true;
}

/* The initial key times of channel kind c of node n into b->tmp_times: the
 * clip ends, the node's own key times (+ its ancestors' through non-NORMAL
 * inheritance) or its morph key times; sorted, unique, close ones merged.
 * Returns the count, 0 when out of memory. */
static size_t rki_build_initial_times(rki_clip_build *b, const rk_node *n, int c)
{
	rki_ctx *x = &b->x;
	size_t need = 2;
	const rk_node *a = n;
	if (c < 3) {
		for (;;) {
			need += b->info[a->index].time_count;
			if (!(a->has_fbx_props && a->props.inherit_mode != RK_INHERIT_NORMAL && a->parent)) break;
			a = a->parent;
		}
	} else {
		need += b->info[n->index].mtime_count;
	}
	if (need > b->tmp_cap) {
		if (b->tmp_times) rki_ctx_free(x, b->tmp_times, b->tmp_cap, sizeof(double));
		b->tmp_cap = need * 2;
		b->tmp_times = (double *)rki_ctx_alloc(x, b->tmp_cap, sizeof(double));
		if (!b->tmp_times) {
			b->tmp_cap = 0;
			rki_oom(x);
			return 0;
		}
	}
	double *tmp = b->tmp_times;
	size_t m = 0;
	tmp[m++] = 0.0;
	tmp[m++] = x->te - x->tb;
	if (c < 3) {
		a = n;
		for (;;) {
			const rki_node_info *ai = &b->info[a->index];
			for (size_t k = 0; k < ai->time_count; k++) tmp[m++] = b->tab[ai->time_begin + k].t;
			if (!(a->has_fbx_props && a->props.inherit_mode != RK_INHERIT_NORMAL && a->parent)) break;
			a = a->parent;
		}
	} else {
		const rki_node_info *ni = &b->info[n->index];
		for (size_t k = 0; k < ni->mtime_count; k++) tmp[m++] = b->tab[ni->mtime_begin + k].t;
	}
	m = rki_unique(tmp, m);
	return rki_merge_close(tmp, m);
}

/* Step 8: every resampled channel with its tolerance and initial keys (all
 * intervals pending). */
static bool rki_build_channels(rki_clip_build *b)
{
	rki_ctx *x = &b->x;
	const rk_scene *scene = x->scene;
	if (b->wchannels == 0) x->pose.blend_weights = NULL;
	for (size_t j = 0, wc = b->nch; j < b->joints; j++) {
		const rk_node *n = &scene->nodes.data[x->skel->node_indices[j]];
		bool morph_resample = b->morph_block_of[j] && !rki_morph_exact(b, &b->info[n->index]);
		for (int c = 0; c < 4; c++) {
			size_t count_ch = 1, base;
			if (c < 3) {
				if (b->plan[3 * j + (size_t)c].plan != RKI_PLAN_RESAMPLE) continue;
				base = (size_t)b->plan[3 * j + (size_t)c].channel;
			} else {
				if (!morph_resample) continue;
				count_ch = n->mesh->blend_channels.count;
				base = wc;
				wc += count_ch;
			}
			size_t m = rki_build_initial_times(b, n, c);
			if (m == 0) return false;
			for (size_t k = 0; k < count_ch; k++) {
				rki_channel *ch = &x->ch[base + k];
				ch->kind = c;
				ch->joint = (uint32_t)j;
				ch->node = n->index;
				ch->weight_index = (uint32_t)k;
				ch->err_scale = 1.0;
				switch (c) {
				case RKI_CH_T:
					ch->tol = x->o.translation_tolerance / b->parent_scale[j];
					ch->err_scale = b->parent_scale[j];
					break;
				case RKI_CH_R: ch->tol = x->o.rotation_tolerance; break;
				case RKI_CH_S: ch->tol = x->o.scale_tolerance; break;
				default: ch->tol = x->o.weight_tolerance; break;
				}
				ch->k = (rki_key *)rki_ctx_alloc(x, m, sizeof(rki_key));
				ch->pending = (uint8_t *)rki_ctx_alloc(x, m > 1 ? m - 1 : 1, 1);
				ch->n = m;
				if (!ch->k || !ch->pending) return rki_oom(x);
				memset(ch->k, 0, m * sizeof(rki_key));
				for (size_t q = 0; q < m; q++) ch->k[q].t = b->tmp_times[q];
				memset(ch->pending, 1, m > 1 ? m - 1 : 1);
			}
		}
	}
	x->ch_count = b->total_ch;
	return true;
}

/* Step 10: key and value counts of the result. */
static bool rki_build_count(rki_clip_build *b)
{
	rki_ctx *x = &b->x;
	rki_clip_sizes *n = &b->n;
	for (size_t j = 0; j < b->joints; j++) {
		for (int c = 0; c < 3; c++) {
			const rki_plan *p = &b->plan[3 * j + (size_t)c];
			size_t keys = 1, vals = 1;
			if (p->plan == RKI_PLAN_EXACT) {
				keys = p->track->key_count;
				vals = keys * (p->track->interpolation == RK_INTERP_CUBIC ? 3u : 1u);
			} else if (p->plan == RKI_PLAN_RESAMPLE) {
				keys = rki_channel_keys(&x->ch[p->channel]);
				vals = keys * (x->cubic && keys > 1 ? 3u : 1u);
			}
			n->times += keys;
			if (c == 0) n->tv += vals;
			else if (c == 1) n->rv += vals;
			else n->sv += vals;
		}
	}
	for (size_t j = 0, wc = b->nch; j < b->joints; j++) {
		if (!b->morph_block_of[j]) continue;
		const rk_node *nd = &x->scene->nodes.data[x->skel->node_indices[j]];
		const rki_node_info *in = &b->info[nd->index];
		size_t cc = nd->mesh->blend_channels.count;
		n->wc += cc;
		if (rki_morph_exact(b, in)) {
			const rk_anim_track *tr = in->morph_track;
			size_t m = tr->components < cc ? tr->components : cc;
			n->mt += 1 + (cc - m);
			n->times += tr->key_count + (cc - m);
			n->mv += tr->key_count * (tr->interpolation == RK_INTERP_CUBIC ? 3u : 1u) * m + (cc - m);
		} else {
			for (size_t k = 0; k < cc; k++) {
				size_t keys = rki_channel_keys(&x->ch[wc + k]);
				n->mt++;
				n->times += keys;
				n->mv += keys * (x->cubic && keys > 1 ? 3u : 1u);
			}
			wc += cc;
		}
	}
	if (n->times > UINT32_MAX || n->tv > UINT32_MAX || n->rv > UINT32_MAX || n->sv > UINT32_MAX || n->mv > UINT32_MAX
		|| n->wc > UINT32_MAX) {
		rki_error_set(x->err, RK_ERROR_LIMIT, "rk_runtime_clip_build: more than 2^32 keys or values");
		return false;
	}
	return true;
}

/* Step 11: lays out and allocates the result block (one allocation) and
 * points the parts into it. */
static bool rki_build_allocate(rki_clip_build *b)
{
	rki_ctx *x = &b->x;
	const rki_clip_sizes *n = &b->n;
	const size_t joints = b->joints;
	b->name = x->clip->name ? x->clip->name : "";
	size_t name_len = strlen(b->name) + 1;
	rki_rt_layout *l = &b->layout;
	*l = (rki_rt_layout){ 0, true };
	size_t off_clip = rki_rt_layout_add(l, 1, sizeof(rk_runtime_clip));
	size_t off_tt = rki_rt_layout_add(l, joints, sizeof(rk_runtime_track));
	size_t off_rt = rki_rt_layout_add(l, joints, sizeof(rk_runtime_track));
	size_t off_st = rki_rt_layout_add(l, joints, sizeof(rk_runtime_track));
	size_t off_mt = rki_rt_layout_add(l, n->mt, sizeof(rk_morph_track));
	size_t off_mb = rki_rt_layout_add(l, b->block_count, sizeof(rk_morph_block));
	size_t off_times = rki_rt_layout_add(l, n->times, sizeof(float));
	size_t off_tv = rki_rt_layout_add(l, n->tv, sizeof(rk_float3));
	size_t off_rv = rki_rt_layout_add(l, n->rv, sizeof(rk_float4));
	size_t off_sv = rki_rt_layout_add(l, n->sv, sizeof(rk_float3));
	size_t off_mv = rki_rt_layout_add(l, n->mv, sizeof(float));
	size_t off_name = rki_rt_layout_add(l, name_len, 1);
	if (!l->ok) {
		rki_error_set(x->err, RK_ERROR_LIMIT, "rk_runtime_clip_build: size overflow");
		return false;
	}
	unsigned char *block = (unsigned char *)rki_rt_block_alloc(&x->alloc, l->size);
	if (!block) return rki_oom(x);
	b->block = block;
	b->rc = (rk_runtime_clip *)(void *)(block + off_clip);
	b->tracks[0] = (rk_runtime_track *)(void *)(block + off_tt);
	b->tracks[1] = (rk_runtime_track *)(void *)(block + off_rt);
	b->tracks[2] = (rk_runtime_track *)(void *)(block + off_st);
	b->mtracks = (rk_morph_track *)(void *)(block + off_mt);
	b->mblocks = (rk_morph_block *)(void *)(block + off_mb);
	b->times = (float *)(void *)(block + off_times);
	b->tv = (rk_float3 *)(void *)(block + off_tv);
	b->rv = (rk_float4 *)(void *)(block + off_rv);
	b->sv = (rk_float3 *)(void *)(block + off_sv);
	b->mv = (float *)(void *)(block + off_mv);
	memcpy(block + off_name, b->name, name_len);
	b->name = (const char *)(block + off_name);
	return true;
}

/* Appends one T (c 0), R (1) or S (2) value. */
static void rki_build_put(rki_clip_build *b, int c, rk_float3 t_or_s, rk_float4 r)
{
	if (c == 0) b->tv[b->at_val[0]++] = t_or_s;
	else if (c == 1) b->rv[b->at_val[1]++] = r;
	else b->sv[b->at_val[2]++] = t_or_s;
}

static void rki_build_put_d(rki_clip_build *b, int c, const double *v, double sign)
{
	rk_float4 r = { 0, 0, 0, 0 };
	if (c == 1) r = rki_f4((float)(sign * v[0]), (float)(sign * v[1]), (float)(sign * v[2]), (float)(sign * v[3]));
	rki_build_put(b, c, c == 1 ? rki_f3(0, 0, 0) : rki_f3_of(v), r);
}

/* Step 12a: a joint channel copied from its glTF track. */
static void rki_fill_exact(rki_clip_build *b, rk_runtime_track *tr, int c, const rk_anim_track *src)
{
	size_t per = src->interpolation == RK_INTERP_CUBIC ? 3u : 1u;
	tr->key_count = (uint32_t)src->key_count;
	tr->interp = rki_interp_of(src->interpolation);
	for (size_t k = 0; k < src->key_count; k++) b->times[b->at_time++] = (float)(src->times[k] - b->x.tb);
	for (size_t k = 0; k < src->key_count * per; k++) {
		size_t at = k * src->components;
		double v[4];
		for (uint32_t q = 0; q < 4 && q < src->components; q++) v[q] = rk_track_value(src, at + q);
		rki_build_put_d(b, c, v, 1.0);
	}
	b->exact++;
}

/* Step 12b: a resampled joint channel: its keys (rotation signs made
 * continuous) or, collapsed, its first value as one STEP key. */
static void rki_fill_resampled(rki_clip_build *b, rk_runtime_track *tr, int c, const rki_channel *ch)
{
	const bool cubic = b->x.cubic;
	double e = ch->max_err * ch->err_scale;
	if (e > b->max_err[c]) b->max_err[c] = e;
	if (rki_channel_keys(ch) > 1) {
		tr->key_count = (uint32_t)ch->n;
		tr->interp = cubic ? RK_KEY_CUBIC : RK_KEY_LINEAR;
		double sign = 1.0;
		for (size_t k = 0; k < ch->n; k++) {
			const rki_key *key = &ch->k[k];
			b->times[b->at_time++] = (float)key->t;
			if (c == 1 && k) {
				const double *pv = ch->k[k - 1].v, *v = key->v;
				double d = pv[0] * v[0] + pv[1] * v[1] + pv[2] * v[2] + pv[3] * v[3];
				if (d < 0.0) sign = -sign;
			}
			const double *vals3[3] = { key->din, key->v, key->dout };
			for (int e3 = cubic ? 0 : 1; e3 < (cubic ? 3 : 2); e3++) rki_build_put_d(b, c, vals3[e3], sign);
		}
		b->resampled++;
		return;
	}
	tr->key_count = 1;
	tr->interp = RK_KEY_STEP;
	b->times[b->at_time++] = 0.0f;
	rki_build_put_d(b, c, ch->k[0].v, 1.0);
	b->constant++;
}

/* Step 12: the translation, rotation and scale track of every joint. */
static void rki_build_fill_joints(rki_clip_build *b)
{
	const rk_skeleton *skel = b->x.skel;
	for (size_t j = 0; j < b->joints; j++) {
		for (int c = 0; c < 3; c++) {
			const rki_plan *p = &b->plan[3 * j + (size_t)c];
			rk_runtime_track *tr = &b->tracks[c][j];
			tr->key_begin = (uint32_t)b->at_time;
			tr->value_begin = (uint32_t)b->at_val[c];
			if (p->plan == RKI_PLAN_EXACT) {
				rki_fill_exact(b, tr, c, p->track);
			} else if (p->plan == RKI_PLAN_RESAMPLE) {
				rki_fill_resampled(b, tr, c, &b->x.ch[p->channel]);
			} else {
				tr->key_count = 1;
				tr->interp = RK_KEY_STEP;
				b->times[b->at_time++] = 0.0f;
				rki_build_put(b, c, c == 0 ? skel->rest.translation[j] : skel->rest.scale[j], skel->rest.rotation[j]);
				b->constant++;
			}
		}
	}
}

/* A morph track of weights [weight_offset, +weight_count) starting at the current cursors. */
static rk_morph_track *rki_build_morph_track(rki_clip_build *b, size_t weight_offset, size_t weight_count, size_t keys,
	uint32_t interp)
{
	rk_morph_track *mt = &b->mtracks[b->at_mt++];
	mt->weight_offset = (uint32_t)weight_offset;
	mt->weight_count = (uint32_t)weight_count;
	mt->keys.key_begin = (uint32_t)b->at_time;
	mt->keys.key_count = (uint32_t)keys;
	mt->keys.value_begin = (uint32_t)b->at_mv;
	mt->keys.interp = interp;
	return mt;
}

/* Step 13: the morph blocks: a copied glTF weights track, or one resampled
 * track per weight; weights the source does not drive stay constant. */
static void rki_build_fill_morphs(rki_clip_build *b)
{
	rki_ctx *x = &b->x;
	for (size_t j = 0, wc = b->nch; j < b->joints; j++) {
		if (!b->morph_block_of[j]) continue;
		const rk_node *n = &x->scene->nodes.data[x->skel->node_indices[j]];
		const rki_node_info *in = &b->info[n->index];
		size_t cc = n->mesh->blend_channels.count;
		rk_morph_block *mb = &b->mblocks[b->at_block++];
		mb->joint = (uint32_t)j;
		mb->weight_offset = (uint32_t)b->at_w;
		mb->channel_count = (uint32_t)cc;
		size_t first_const = 0;
		if (rki_morph_exact(b, in)) {
			const rk_anim_track *src = in->morph_track;
			size_t m = src->components < cc ? src->components : cc;
			size_t per = src->interpolation == RK_INTERP_CUBIC ? 3u : 1u;
			rki_build_morph_track(b, b->at_w, m, src->key_count, rki_interp_of(src->interpolation));
			for (size_t k = 0; k < src->key_count; k++) b->times[b->at_time++] = (float)(src->times[k] - x->tb);
			for (size_t k = 0; k < src->key_count * per; k++)
				for (size_t q = 0; q < m; q++) b->mv[b->at_mv++] = (float)rk_track_value(src, k * src->components + q);
			b->exact++;
			first_const = m;
		} else {
			for (size_t k = 0; k < cc; k++) {
				const rki_channel *ch = &x->ch[wc + k];
				if (ch->max_err > b->max_err[3]) b->max_err[3] = ch->max_err;
				size_t keys = rki_channel_keys(ch);
				bool cub = x->cubic && keys > 1;
				rki_build_morph_track(b, b->at_w + k, 1, keys, keys == 1 ? RK_KEY_STEP : cub ? RK_KEY_CUBIC : RK_KEY_LINEAR);
				for (size_t q = 0; q < keys; q++) {
					const rki_key *key = &ch->k[q];
					b->times[b->at_time++] = keys == 1 ? 0.0f : (float)key->t;
					if (cub) {
						b->mv[b->at_mv++] = (float)key->din[0];
						b->mv[b->at_mv++] = (float)key->v[0];
						b->mv[b->at_mv++] = (float)key->dout[0];
					} else {
						b->mv[b->at_mv++] = (float)key->v[0];
					}
				}
				if (keys == 1) b->constant++;
				else b->resampled++;
			}
			wc += cc;
			first_const = cc;
		}
		for (size_t k = first_const; k < cc; k++) {
			rki_build_morph_track(b, b->at_w + k, 1, 1, RK_KEY_STEP);
			b->times[b->at_time++] = 0.0f;
			b->mv[b->at_mv++] = (float)(n->blend_weights ? n->blend_weights[k] : n->mesh->blend_channels.data[k].default_weight);
			b->constant++;
		}
		b->at_w += cc;
	}
}

/* Step 14: the result header. */
static void rki_build_finish(rki_clip_build *b)
{
	const rki_ctx *x = &b->x;
	const rki_clip_sizes *n = &b->n;
	rk_runtime_clip *rc = b->rc;
	rc->name = b->name;
	rc->duration = x->te - x->tb;
	rc->source_time_begin = x->tb;
	rc->joint_count = b->joints;
	rc->translation_tracks = b->tracks[0];
	rc->rotation_tracks = b->tracks[1];
	rc->scale_tracks = b->tracks[2];
	rc->time_count = n->times;
	rc->times = b->times;
	rc->translation_value_count = n->tv;
	rc->rotation_value_count = n->rv;
	rc->scale_value_count = n->sv;
	rc->morph_value_count = n->mv;
	rc->translation_values = b->tv;
	rc->rotation_values = b->rv;
	rc->scale_values = b->sv;
	rc->morph_values = b->mv;
	rc->morph_track_count = n->mt;
	rc->morph_tracks = b->mtracks;
	rc->morph_block_count = b->block_count;
	rc->morph_blocks = b->mblocks;
	rc->morph_weight_count = n->wc;
	rc->exact_track_count = b->exact;
	rc->resampled_track_count = b->resampled;
	rc->constant_track_count = b->constant;
	rc->unresolved_intervals = x->unresolved;
	rc->reference_evaluations = x->evaluations;
	rc->translation_tolerance = x->o.translation_tolerance;
	rc->rotation_tolerance = x->o.rotation_tolerance;
	rc->scale_tolerance = x->o.scale_tolerance;
	rc->weight_tolerance = x->o.weight_tolerance;
	rc->max_translation_error = b->max_err[0];
	rc->max_rotation_error = b->max_err[1];
	rc->max_scale_error = b->max_err[2];
	rc->max_weight_error = b->max_err[3];
	rc->memory_size = b->layout.size;
	rc->internal_ = b->block;
}

/* The one cleanup path: frees every scratch array (NULL ones skipped). */
static void rki_build_cleanup(rki_clip_build *b)
{
	rki_ctx *x = &b->x;
	const size_t nodes = b->nodes, joints = b->joints;
	if (x->ch) {
		for (size_t c = 0; c < b->total_ch; c++) {
			rki_channel *ch = &x->ch[c];
			if (ch->k) rki_ctx_free(x, ch->k, ch->n, sizeof(rki_key));
			if (ch->pending) rki_ctx_free(x, ch->pending, ch->n > 1 ? ch->n - 1 : 1, 1);
		}
		rki_ctx_free(x, x->ch, b->total_ch + 1, sizeof(rki_channel));
	}
	if (b->tmp_times) rki_ctx_free(x, b->tmp_times, b->tmp_cap, sizeof(double));
	if (b->tab) rki_ctx_free(x, b->tab, b->tab_cap, sizeof(rki_node_time));
	if (b->pose_mem) rki_free(&x->alloc, b->pose_mem, b->pose_bytes);
	if (b->joint_of) rki_ctx_free(x, b->joint_of, nodes, sizeof(int32_t));
	if (b->info) rki_ctx_free(x, b->info, nodes, sizeof(rki_node_info));
	if (b->plan) rki_ctx_free(x, b->plan, joints * 3, sizeof(rki_plan));
	if (b->parent_scale) rki_ctx_free(x, b->parent_scale, joints, sizeof(double));
	if (x->local) rki_ctx_free(x, x->local, joints, sizeof(rk_trs));
	if (x->stamp) rki_ctx_free(x, x->stamp, joints, sizeof(uint32_t));
	if (b->morph_block_of) rki_ctx_free(x, b->morph_block_of, joints, sizeof(uint32_t));
}

rk_runtime_clip *rk_runtime_clip_build(const rk_scene *scene, const rk_anim_clip *clip,
	const rk_skeleton *skel, const rk_runtime_clip_opts *opts, rk_error *err)
{
	rki_error_clear(err);
	rki_clip_build B;
	memset(&B, 0, sizeof(B));
	rki_clip_build *b = &B;
	if (opts) b->x.o = *opts;
	b->x.err = err;
	rki_alloc_init(&b->x.alloc, &b->x.o.allocator, 0, 0);
	if (!rki_build_check_args(scene, clip, skel, err)) return NULL;

	rk_runtime_clip *result = NULL;
	bool ok = rki_build_init(b, scene, clip, skel)
		&& rki_build_map_joints(b)
		&& rki_build_reference(b)
		&& rki_build_rest_scales(b)
		&& rki_build_collect_tracks(b)
		&& rki_build_plan(b)
		&& rki_build_channels(b)
		&& (b->total_ch == 0 || rki_refine(&b->x))   /* step 9: values, tangents, adaptive refinement */
		&& rki_build_count(b)
		&& rki_build_allocate(b);
	if (ok) {
		rki_build_fill_joints(b);
		rki_build_fill_morphs(b);
		rki_build_finish(b);
		result = b->rc;
	}
	rki_build_cleanup(b);
	return result;
}

void rk_runtime_clip_free(rk_runtime_clip *clip)
{
	if (!clip) return;
	rki_rt_block_free(clip->internal_);
}
