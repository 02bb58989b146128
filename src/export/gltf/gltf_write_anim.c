/*
 * src/export/gltf/gltf_write_anim.c - glTF writer: animations (see
 * include/rigkit/export.h ANIMATION). glTF sampler tracks are copied; all
 * other animation is baked through the anim module's pose evaluation and
 * reduced to the keys linear interpolation needs.
 */
#include "export/gltf/gltf_write_internal.h"
#include "anim/anim_internal.h"
#include "rigkit/anim.h"

#include <math.h>
#include <string.h>

enum { RKI_GW_PATH_T = 0, RKI_GW_PATH_R, RKI_GW_PATH_S, RKI_GW_PATH_W, RKI_GW_PATHS };

static const char *const rki_gw_path_names[RKI_GW_PATHS] = { "translation", "rotation", "scale", "weights" };

/* Which glTF paths a track changes: bit per RKI_GW_PATH_*; 0 = none. */
static unsigned rki_gw_track_paths(rki_gw *w, const rk_anim_track *t)
{
	switch (t->target) {
	case RK_TARGET_TRANSLATION: return 1u << RKI_GW_PATH_T;
	case RK_TARGET_ROTATION_EULER:
	case RK_TARGET_ROTATION_QUAT: return 1u << RKI_GW_PATH_R;
	case RK_TARGET_SCALE: return 1u << RKI_GW_PATH_S;
	case RK_TARGET_MORPH_WEIGHTS: return 1u << RKI_GW_PATH_W;
	case RK_TARGET_FBX_PROPERTY: {
		const char *p = t->property ? t->property : "";
		if (!strcmp(p, "Lcl Translation")) return 1u << RKI_GW_PATH_T;
		if (!strcmp(p, "Lcl Rotation")) return 1u << RKI_GW_PATH_R;
		if (!strcmp(p, "Lcl Scaling")) return 1u << RKI_GW_PATH_S;
		if (!strcmp(p, "RotationOffset") || !strcmp(p, "RotationPivot") || !strcmp(p, "ScalingOffset")
			|| !strcmp(p, "ScalingPivot") || !strcmp(p, "PreRotation") || !strcmp(p, "PostRotation"))
			return 7u;
		if (!strncmp(p, "Geometric", 9))
			rki_gw_warn(w, "animated %s cannot be expressed in glTF: ignored", p);
		return 0;
	}
	default: return 0;
	}
}

static bool rki_gw_node_in_scene(const rk_scene *s, const rk_node *n)
{
	return n && n->index < s->nodes.count && &s->nodes.data[n->index] == n;
}

/* ---- key reduction ---------------------------------------------------------- */

static double rki_gw_vec_err(const double *a, const double *b, int dim)
{
	double e = 0.0;
	for (int k = 0; k < dim; k++) {
		double d = fabs(a[k] - b[k]);
		if (d > e) e = d;
	}
	return e;
}

static rk_quat rki_gw_q(const double *v) { return (rk_quat){ v[0], v[1], v[2], v[3] }; }

/* Error of reproducing sample j by interpolating samples a and b. */
static double rki_gw_interp_err(const double *t, const double *v, int dim, bool quat, size_t a, size_t b, size_t j)
{
	double u = (t[j] - t[a]) / (t[b] - t[a]);
	if (quat) {
		rk_quat q = rk_quat_slerp(rki_gw_q(v + a * 4), rki_gw_q(v + b * 4), u);
		return rk_quat_angle_between(q, rki_gw_q(v + j * 4));
	}
	double x[64];
	for (int k = 0; k < dim; k++) x[k] = v[a * (size_t)dim + (size_t)k] + (v[b * (size_t)dim + (size_t)k] - v[a * (size_t)dim + (size_t)k]) * u;
	return rki_gw_vec_err(x, v + j * (size_t)dim, dim);
}

/* Marks the keys to keep (first and last always). Returns the count. */
static size_t rki_gw_reduce(const double *t, const double *v, size_t n, int dim, bool quat, double tol, uint8_t *keep)
{
	for (size_t i = 0; i < n; i++) keep[i] = 1;
	if (n <= 2) return n;
	size_t kept = 2;
	for (size_t i = 1; i + 1 < n; i++) keep[i] = 0;
	size_t last = 0;
	for (size_t i = 1; i + 1 < n; i++) {
		bool ok = i - last < 4096;
		for (size_t j = last + 1; j <= i && ok; j++)
			if (!(rki_gw_interp_err(t, v, dim, quat, last, i + 1, j) <= tol)) ok = false;
		if (!ok) {
			keep[i] = 1;
			kept++;
			last = i;
		}
	}
	return kept;
}

/* ---- writing samplers -------------------------------------------------------- */

typedef struct rki_gw_anim_out {
	rki_gw_section channels, samplers;  /* one sampler per channel: equal counts */
	/* input accessors of this animation, for sharing identical key times */
	int32_t *inputs;
	const float **input_data;
	size_t *input_count;
	size_t input_n, input_cap;
} rki_gw_anim_out;

static int32_t rki_gw_input(rki_gw *w, rki_gw_anim_out *ao, float *times, size_t n)
{
	for (size_t i = 0; i < ao->input_n; i++)
		if (ao->input_count[i] == n && memcmp(ao->input_data[i], times, n * sizeof(float)) == 0) return ao->inputs[i];
	int32_t acc = rki_gw_accessor_add(w, times, RKI_GW_FLOAT, n, 1, 0, true);
	if (acc < 0) return -1;
	rki_gw_accessor_use(w, acc, RKI_GW_USE_ANIM_TIME);
	if (ao->input_n < ao->input_cap) {
		ao->inputs[ao->input_n] = acc;
		ao->input_data[ao->input_n] = times;
		ao->input_count[ao->input_n] = n;
		ao->input_n++;
	}
	return acc;
}

static bool rki_gw_emit_channel(rki_gw *w, rki_gw_anim_out *ao, size_t node, int path, float *times, size_t n,
	const float *values, size_t value_count, uint32_t components, const char *interp)
{
	int32_t in = rki_gw_input(w, ao, times, n);
	int32_t out = rki_gw_accessor_add(w, values, RKI_GW_FLOAT, value_count, components, 0, false);
	if (in < 0 || out < 0) return false;
	rki_gw_accessor_use(w, out, path == RKI_GW_PATH_R && strcmp(interp, "CUBICSPLINE") != 0 ? RKI_GW_USE_ANIM_ROTATION
		: RKI_GW_USE_ANIM_OUTPUT);
	size_t sampler = ao->channels.count;
	rk_json_writer *s = rki_gw_section_json(&ao->samplers);
	rk_json_object_begin(s, NULL);
	rk_json_uint(s, "input", (uint64_t)in);
	if (strcmp(interp, "LINEAR") != 0) rk_json_string(s, "interpolation", interp);
	rk_json_uint(s, "output", (uint64_t)out);
	rk_json_object_end(s);
	rk_json_writer *c = rki_gw_section_json(&ao->channels);
	rk_json_object_begin(c, NULL);
	rk_json_uint(c, "sampler", sampler);
	rk_json_object_begin(c, "target");
	rk_json_uint(c, "node", (uint64_t)w->node_out[node]);
	rk_json_string(c, "path", rki_gw_path_names[path]);
	rk_json_object_end(c);
	rk_json_object_end(c);
	ao->samplers.count++;
	ao->channels.count++;
	w->stats.channel_count++;
	return true;
}

/* The time written as 0 for `clip`: 0 (file times kept), time_begin with
 * opts.rebase_time, or time_begin when it is negative (glTF times are >= 0). */
static double rki_gw_time_base(const rki_gw *w, const rk_anim_clip *clip)
{
	double b = clip->time_begin;
	if (!isfinite(b)) return 0.0;
	return w->opts.rebase_time || b < 0.0 ? b : 0.0;
}

/* Copies a glTF sampler track (keys before time_begin cut, times shifted by
 * -rki_gw_time_base). */
static bool rki_gw_copy_track(rki_gw *w, rki_gw_anim_out *ao, const rk_anim_clip *clip, const rk_anim_track *t,
	size_t node, int path)
{
	size_t n = t->key_count;
	uint32_t comp = t->components;
	bool cubic = t->interpolation == RK_INTERP_CUBIC;
	size_t per_key = (size_t)comp * (cubic ? 3 : 1);
	float *times = (float *)rki_gw_tmp_array(w, n + 1, sizeof(float));
	float *vals = (float *)rki_gw_tmp_array(w, n + 1, per_key * sizeof(float));
	if (!times || !vals) return false;
	/* float keys (glTF input) widened once: the loop reads doubles */
	const double *values = t->values_f64;
	if (!values) {
		double *v64 = (double *)rki_gw_tmp_array(w, n + 1, per_key * sizeof(double));
		if (!v64) return false;
		for (size_t i = 0; i < n * per_key; i++) v64[i] = t->values_f32[i];
		values = v64;
	}
	size_t m = 0;
	bool dropped_order = false, cut = false;
	double base = rki_gw_time_base(w, clip), start = clip->time_begin - base; /* output time of time_begin */
	for (size_t k = 0; k < n; k++) {
		double tt = t->times[k] - clip->time_begin;
		if (!isfinite(tt)) { dropped_order = true; continue; }
		const double *src = values + k * per_key;
		if (tt < 0.0) {
			cut = true;
			/* A key at 0 interpolated from this key and the next (STEP/LINEAR). */
			if (!cubic && k + 1 < n && t->times[k + 1] - clip->time_begin > 0.0) {
				double t1 = t->times[k + 1] - clip->time_begin, u = (0.0 - tt) / (t1 - tt);
				const double *nx = values + (k + 1) * per_key;
				double tmp[64];
				uint32_t cc = comp < 64 ? comp : 64;
				if (path == RKI_GW_PATH_R && comp == 4 && t->interpolation == RK_INTERP_LINEAR) {
					rk_quat q = rk_quat_slerp(rki_gw_q(src), rki_gw_q(nx), u);
					tmp[0] = q.x; tmp[1] = q.y; tmp[2] = q.z; tmp[3] = q.w;
				} else {
					for (uint32_t c = 0; c < cc; c++)
						tmp[c] = t->interpolation == RK_INTERP_LINEAR ? src[c] + (nx[c] - src[c]) * u : src[c];
				}
				times[m] = rki_gw_f32(start);
				for (uint32_t c = 0; c < cc; c++) vals[m * per_key + c] = rki_gw_f32(tmp[c]);
				m++;
			}
			continue;
		}
		float ft = rki_gw_f32(t->times[k] - base);
		if (m > 0 && !(ft > times[m - 1])) { dropped_order = true; continue; }
		times[m] = ft;
		for (size_t c = 0; c < per_key; c++) {
			double x = src[c];
			vals[m * per_key + c] = rki_gw_f32(isfinite(x) ? x : 0.0);
		}
		m++;
	}
	if (cut) rki_gw_warn(w, "clip \"%s\": keys before time_begin cut", clip->name);
	if (dropped_order)
		rki_gw_warn(w, "clip \"%s\": keys whose time does not increase in float precision dropped", clip->name);
	if (m == 0) return true;
	if (path == RKI_GW_PATH_R) {
		for (size_t k = 0; k < m; k++) {
			float *q = vals + k * per_key + (cubic ? 4 : 0);
			double len = sqrt((double)q[0] * q[0] + (double)q[1] * q[1] + (double)q[2] * q[2] + (double)q[3] * q[3]);
			if (!(len > 0.0)) { q[0] = q[1] = q[2] = 0.0f; q[3] = 1.0f; continue; }
			for (int c = 0; c < 4; c++) q[c] = (float)((double)q[c] / len);
		}
	}
	const char *interp = cubic ? "CUBICSPLINE" : t->interpolation == RK_INTERP_LINEAR ? "LINEAR" : "STEP";
	size_t value_count = path == RKI_GW_PATH_W ? m * per_key : m * (cubic ? 3 : 1);
	return rki_gw_emit_channel(w, ao, node, path, times, m, vals, value_count, path == RKI_GW_PATH_W ? 1 : comp, interp);
}

/* ---- baking ---------------------------------------------------------------------- */

typedef struct rki_gw_bake {
	size_t samples;
	double *times;               /* absolute file time */
	/* per baked node (index into `nodes`): T, R, S samples; W samples */
	size_t node_n;
	uint32_t *nodes;             /* rk node indices */
	double *trs;                 /* node_n * samples * 10 (t3 r4 s3) */
	size_t *w_offset;            /* per baked node: offset into wts, SIZE_MAX if no weights */
	double *wts;
	bool *inexact;
} rki_gw_bake;

static bool rki_gw_run_bake(rki_gw *w, const rk_anim_clip *clip, rki_gw_bake *b, const uint8_t *bake_trs,
	const uint8_t *bake_w)
{
	const rk_scene *s = w->scene;
	size_t nn = s->nodes.count;
	double fps = w->opts.bake_fps;
	double dur = clip->time_end - clip->time_begin;
	if (!isfinite(dur) || dur < 0.0) dur = 0.0;
	double steps = floor(dur * fps + 1e-6);
	if (steps + 1.0 > (double)w->opts.max_frames) {
		rki_gw_fail(w, RK_ERROR_LIMIT,
			"clip \"%.80s\" would take %.0f baked samples (%g s at %g fps), more than max_frames %zu (--max-frames N allows more)",
			clip->name ? clip->name : "", steps + 1.0, dur, fps, w->opts.max_frames);
		rki_error_file(w->err, s->source_path);
		return false;
	}
	size_t n = (size_t)steps + 1;
	bool extra = clip->time_begin + steps / fps < clip->time_end - 1e-9 * (1.0 + fabs(clip->time_end));
	if (extra) n++;
	b->samples = n;
	b->times = (double *)rki_gw_tmp_array(w, n, sizeof(double));
	if (!b->times) return false;
	for (size_t k = 0; k < n; k++) b->times[k] = clip->time_begin + (double)k / fps;
	if (extra) b->times[n - 1] = clip->time_end;
	if (n > 1 && !extra && b->times[n - 1] > clip->time_end) b->times[n - 1] = clip->time_end;

	b->node_n = 0;
	b->nodes = (uint32_t *)rki_gw_tmp_array(w, nn, sizeof(uint32_t));
	b->w_offset = (size_t *)rki_gw_tmp_array(w, nn, sizeof(size_t));
	b->inexact = (bool *)rki_gw_tmp_array(w, nn, sizeof(bool));
	if (!b->nodes || !b->w_offset || !b->inexact) return false;
	size_t wtotal = 0;
	for (size_t i = 1; i < nn; i++) {
		if (!bake_trs[i] && !bake_w[i]) continue;
		b->w_offset[b->node_n] = SIZE_MAX;
		if (bake_w[i]) {
			b->w_offset[b->node_n] = wtotal;
			wtotal += s->nodes.data[i].mesh->blend_channels.count * n;
		}
		b->nodes[b->node_n++] = (uint32_t)i;
	}
	size_t cnt;
	if (!rki_mul_size(b->node_n, n, &cnt) || !rki_mul_size(cnt, 10, &cnt))
		return rki_gw_fail(w, RK_ERROR_LIMIT, "clip \"%s\": too much to bake", clip->name);
	b->trs = (double *)rki_gw_tmp_array(w, cnt, sizeof(double));
	b->wts = (double *)rki_gw_tmp_array(w, wtotal, sizeof(double));
	if (!b->trs || !b->wts) return false;

	size_t mem_size = rk_pose_memory_size(s);
	void *mem = mem_size ? rki_gw_tmp_array(w, 1, mem_size) : NULL;
	if (!mem) return mem_size ? false : rki_gw_fail(w, RK_ERROR_INVALID_ARGUMENT, "clip \"%s\": cannot size the pose", clip->name);
	rk_pose pose;
	if (!rk_pose_init(&pose, s, mem, mem_size))
		return rki_gw_fail(w, RK_ERROR_INVALID_ARGUMENT, "clip \"%s\": cannot set up the pose", clip->name);
	rk_pose_eval_job job;
	memset(&job, 0, sizeof(job));
	job.scene = s;
	job.clip = clip;
	job.time = b->times[0];
	job.pose = &pose;
	rk_error perr;
	memset(&perr, 0, sizeof(perr));
	if (!rk_pose_eval_validate(&job, &perr)) {
		rki_gw_warn(w, "clip \"%s\" cannot be evaluated (%s): baked channels skipped", clip->name, perr.message);
		b->node_n = 0;
		return true;
	}
	/* Nodes whose glTF local reads world matrices (FBX inherit modes other
	 * than normal) need the whole scene evaluated per sample; otherwise only
	 * the baked nodes' own tracks and node_to_parent are (the same values). */
	bool subset = true;
	uint8_t *in_set = (uint8_t *)rki_gw_tmp_array(w, nn, 1);
	if (!in_set) return false;
	for (size_t q = 0; q < b->node_n; q++) {
		const rk_node *nd = &s->nodes.data[b->nodes[q]];
		if (nd->has_fbx_props && nd->props.inherit_mode != RK_INHERIT_NORMAL && nd->parent) subset = false;
		in_set[b->nodes[q]] = 1;
	}
	for (size_t k = 0; k < n; k++) {
		job.time = b->times[k];
		if (subset) {
			rki_pose_eval_nodes(&job, b->nodes, b->node_n, in_set);
		} else if (!rk_pose_eval_run(&job)) {
			rki_gw_warn(w, "clip \"%s\" failed to evaluate: baked channels skipped", clip->name);
			b->node_n = 0;
			return true;
		}
		for (size_t q = 0; q < b->node_n; q++) {
			uint32_t i = b->nodes[q];
			const rk_node *nd = &s->nodes.data[i];
			bool exact = true;
			const rk_mat4 *pw = nd->parent ? &pose.node_to_world[nd->parent->index] : NULL;
			rk_trs t = rki_gw_local_trs(w, nd, &pose.node_to_parent[i], &pose.node_to_world[i], pw, &pose.local[i], &exact);
			if (!exact) b->inexact[q] = true;
			double *o = b->trs + (q * n + k) * 10;
			o[0] = t.translation.x; o[1] = t.translation.y; o[2] = t.translation.z;
			o[3] = t.rotation.x; o[4] = t.rotation.y; o[5] = t.rotation.z; o[6] = t.rotation.w;
			o[7] = t.scale.x; o[8] = t.scale.y; o[9] = t.scale.z;
			if (b->w_offset[q] != SIZE_MAX && pose.blend_weights) {
				size_t ch = nd->mesh->blend_channels.count;
				for (size_t c = 0; c < ch; c++) {
					double v = pose.blend_weights[pose.blend_offsets[i] + c];
					b->wts[b->w_offset[q] + k * ch + c] = isfinite(v) ? v : 0.0;
				}
			}
		}
	}
	for (size_t q = 0; q < b->node_n; q++)
		if (b->inexact[q])
			rki_gw_warn(w, "clip \"%s\": node \"%s\" shears while animated; baked as the nearest TRS", clip->name,
				s->nodes.data[b->nodes[q]].name);
	return true;
}

/* Reduces and emits one baked channel. v: samples * dim. */
static bool rki_gw_emit_baked(rki_gw *w, rki_gw_anim_out *ao, const rk_anim_clip *clip, const rki_gw_bake *b,
	size_t node, int path, double *v, int dim, const double *static_value)
{
	size_t n = b->samples;
	bool quat = path == RKI_GW_PATH_R;
	if (quat) {
		for (size_t k = 1; k < n; k++) {
			double *p = v + (k - 1) * 4, *q = v + k * 4;
			if (p[0] * q[0] + p[1] * q[1] + p[2] * q[2] + p[3] * q[3] < 0.0)
				for (int c = 0; c < 4; c++) q[c] = -q[c];
		}
	}
	double tol;
	if (quat) {
		tol = w->opts.rotation_tolerance;
	} else {
		double extent = path == RKI_GW_PATH_W ? 1.0 : 0.0;
		for (size_t k = 0; k < n * (size_t)dim; k++) if (fabs(v[k]) > extent) extent = fabs(v[k]);
		tol = w->opts.translation_tolerance * (extent > 0.0 ? extent : 1e-30);
	}
	/* Constant and equal to the static value: no channel needed. */
	if (static_value) {
		bool same = true;
		for (size_t k = 0; k < n && same; k++) {
			double e = quat ? rk_quat_angle_between(rki_gw_q(v + k * 4), rki_gw_q(static_value))
				: rki_gw_vec_err(v + k * (size_t)dim, static_value, dim);
			if (!(e <= tol)) same = false;
		}
		if (same) return true;
	}
	uint8_t *keep = (uint8_t *)rki_gw_tmp_array(w, n, 1);
	if (!keep) return false;
	double *rel = (double *)rki_gw_tmp_array(w, n, sizeof(double));
	if (!rel) return false;
	double base = rki_gw_time_base(w, clip);
	for (size_t k = 0; k < n; k++) rel[k] = b->times[k] - base;
	size_t m = n;
	if (w->opts.no_key_reduction) for (size_t k = 0; k < n; k++) keep[k] = 1;
	else m = rki_gw_reduce(rel, v, n, dim, quat, tol, keep);
	float *times = (float *)rki_gw_tmp_array(w, m, sizeof(float));
	float *vals = (float *)rki_gw_tmp_array(w, m, (size_t)dim * sizeof(float));
	if (!times || !vals) return false;
	size_t o = 0;
	for (size_t k = 0; k < n; k++) {
		if (!keep[k]) continue;
		float ft = rki_gw_f32(rel[k]);
		if (o > 0 && !(ft > times[o - 1])) continue; /* collapsed in float precision */
		times[o] = ft;
		for (int c = 0; c < dim; c++) vals[o * (size_t)dim + (size_t)c] = rki_gw_f32(v[k * (size_t)dim + (size_t)c]);
		o++;
	}
	if (quat) {
		for (size_t k = 0; k < o; k++) {
			float *q = vals + k * 4;
			double len = sqrt((double)q[0] * q[0] + (double)q[1] * q[1] + (double)q[2] * q[2] + (double)q[3] * q[3]);
			for (int c = 0; c < 4; c++) q[c] = len > 0.0 ? (float)((double)q[c] / len) : (c == 3 ? 1.0f : 0.0f);
		}
	}
	w->stats.baked_channel_count++;
	if (path == RKI_GW_PATH_W)
		return rki_gw_emit_channel(w, ao, node, path, times, o, vals, o * (size_t)dim, 1, "LINEAR");
	return rki_gw_emit_channel(w, ao, node, path, times, o, vals, o, (uint32_t)dim, "LINEAR");
}

static bool rki_gw_write_clip(rki_gw *w, const rk_anim_clip *clip)
{
	const rk_scene *s = w->scene;
	size_t nn = s->nodes.count;
	const rk_anim_track **copy = (const rk_anim_track **)rki_gw_tmp_array(w, nn * RKI_GW_PATHS, sizeof(rk_anim_track *));
	uint8_t *bake_trs = (uint8_t *)rki_gw_tmp_array(w, nn, 1);
	uint8_t *bake_w = (uint8_t *)rki_gw_tmp_array(w, nn, 1);
	if (!copy || !bake_trs || !bake_w) return false;
	bool any_bake = false, dup = false;
	for (size_t l = 0; l < clip->layer_count && clip->layers; l++) {
		const rk_anim_layer *layer = &clip->layers[l];
		for (size_t k = 0; k < layer->track_count && layer->tracks; k++) {
			const rk_anim_track *t = &layer->tracks[k];
			if (!rki_gw_node_in_scene(s, t->node) || t->node->index == 0) continue;
			size_t i = t->node->index;
			unsigned paths = rki_gw_track_paths(w, t);
			if (!paths) continue;
			if ((paths & (1u << RKI_GW_PATH_W)) && w->node_mesh[i] < 0) continue; /* no morph targets written */
			bool sampled = t->key_count > 0 && t->times && rk_track_has_values(t) && !t->curves[0] && !t->curves[1]
				&& !t->curves[2] && !t->curves[3];
			int path = paths == (1u << RKI_GW_PATH_T) ? RKI_GW_PATH_T : paths == (1u << RKI_GW_PATH_R) ? RKI_GW_PATH_R
				: paths == (1u << RKI_GW_PATH_S) ? RKI_GW_PATH_S : paths == (1u << RKI_GW_PATH_W) ? RKI_GW_PATH_W : -1;
			bool copyable = sampled && !w->opts.bake_all && clip->layer_count == 1 && path >= 0
				&& (t->interpolation == RK_INTERP_CONSTANT || t->interpolation == RK_INTERP_LINEAR
					|| t->interpolation == RK_INTERP_CUBIC);
			if (copyable) {
				if (path == RKI_GW_PATH_T || path == RKI_GW_PATH_S) copyable = t->components == 3 && rki_gw_trs_uses_local(t->node);
				else if (path == RKI_GW_PATH_R) copyable = t->target == RK_TARGET_ROTATION_QUAT && t->components == 4 && rki_gw_trs_uses_local(t->node);
				else copyable = t->node->mesh && t->components == t->node->mesh->blend_channels.count;
			}
			if (copyable && !bake_trs[i]) {
				if (copy[i * RKI_GW_PATHS + (size_t)path]) dup = true;
				else copy[i * RKI_GW_PATHS + (size_t)path] = t;
				continue;
			}
			if (paths & 7u) bake_trs[i] = 1;
			if (paths & (1u << RKI_GW_PATH_W)) bake_w[i] = 1;
			any_bake = true;
		}
	}
	if (dup) rki_gw_warn(w, "clip \"%s\": several tracks animate the same node property; the first is kept", clip->name);
	/* A baked node's TRS overrides copies of its other paths (consistent source). */
	for (size_t i = 0; i < nn; i++) {
		if (!bake_trs[i]) continue;
		for (int p = 0; p < 3; p++) copy[i * RKI_GW_PATHS + (size_t)p] = NULL;
	}
	/* Children whose glTF local depends on the parent's world follow it. */
	for (size_t i = 1; i < nn; i++) {
		const rk_node *nd = &s->nodes.data[i];
		if (bake_trs[i] || !nd->parent || !nd->has_fbx_props || nd->props.inherit_mode == RK_INHERIT_NORMAL) continue;
		size_t p = nd->parent->index;
		if (bake_trs[p] || copy[p * RKI_GW_PATHS] || copy[p * RKI_GW_PATHS + 1] || copy[p * RKI_GW_PATHS + 2]) {
			bake_trs[i] = 1;
			any_bake = true;
		}
	}

	rki_gw_anim_out ao;
	memset(&ao, 0, sizeof(ao));
	rki_gw_section_init(w, &ao.channels);
	rki_gw_section_init(w, &ao.samplers);
	ao.input_cap = nn * RKI_GW_PATHS;
	ao.inputs = (int32_t *)rki_gw_tmp_array(w, ao.input_cap, sizeof(int32_t));
	ao.input_data = (const float **)rki_gw_tmp_array(w, ao.input_cap, sizeof(float *));
	ao.input_count = (size_t *)rki_gw_tmp_array(w, ao.input_cap, sizeof(size_t));
	bool ok = ao.inputs && ao.input_data && ao.input_count;

	rki_gw_bake b;
	memset(&b, 0, sizeof(b));
	if (ok && any_bake) ok = rki_gw_run_bake(w, clip, &b, bake_trs, bake_w);
	size_t q = 0; /* walks b.nodes in node order */
	for (size_t i = 1; ok && i < nn; i++) {
		const rk_node *nd = &s->nodes.data[i];
		bool baked = q < b.node_n && b.nodes[q] == i;
		for (int p = 0; p < RKI_GW_PATHS && ok; p++) {
			const rk_anim_track *t = copy[i * RKI_GW_PATHS + (size_t)p];
			if (t) ok = rki_gw_copy_track(w, &ao, clip, t, i, p);
		}
		if (!baked || !ok) continue;
		size_t n = b.samples;
		double *v = (double *)rki_gw_tmp_array(w, n, 4 * sizeof(double));
		if (!v) { ok = false; break; }
		if (bake_trs[i]) {
			static const int off[3] = { 0, 3, 7 }, dims[3] = { 3, 4, 3 };
			const rk_trs st = w->node_trs[i];
			const double sv[3][4] = { { st.translation.x, st.translation.y, st.translation.z, 0 },
				{ st.rotation.x, st.rotation.y, st.rotation.z, st.rotation.w }, { st.scale.x, st.scale.y, st.scale.z, 0 } };
			for (int p = 0; p < 3 && ok; p++) {
				for (size_t k = 0; k < n; k++)
					for (int c = 0; c < dims[p]; c++) v[k * (size_t)dims[p] + (size_t)c] = b.trs[(q * n + k) * 10 + (size_t)(off[p] + c)];
				ok = rki_gw_emit_baked(w, &ao, clip, &b, i, p, v, dims[p], sv[p]);
			}
		}
		if (ok && b.w_offset[q] != SIZE_MAX) {
			size_t ch = nd->mesh->blend_channels.count;
			double *wv = (double *)rki_gw_tmp_array(w, n, ch * sizeof(double));
			if (!wv) { ok = false; break; }
			memcpy(wv, b.wts + b.w_offset[q], n * ch * sizeof(double));
			if (ch > 64) {
				rki_gw_warn(w, "clip \"%s\": node \"%s\" has %zu blend channels; weights baked without reduction", clip->name, nd->name, ch);
				bool saved = w->opts.no_key_reduction;
				w->opts.no_key_reduction = true;
				ok = rki_gw_emit_baked(w, &ao, clip, &b, i, RKI_GW_PATH_W, wv, (int)ch, NULL);
				w->opts.no_key_reduction = saved;
			} else {
				ok = rki_gw_emit_baked(w, &ao, clip, &b, i, RKI_GW_PATH_W, wv, (int)ch, NULL);
			}
		}
		q++;
	}
	if (ok && ao.channels.count == 0 && b.node_n > 0 && bake_trs[b.nodes[0]]) {
		/* Every baked channel held the static pose (a "T-pose" clip): keep
		 * the clip with one constant channel rather than dropping it. */
		size_t n = b.samples;
		double *v = (double *)rki_gw_tmp_array(w, n, 3 * sizeof(double));
		ok = v != NULL;
		for (size_t k = 0; ok && k < n; k++)
			for (int c = 0; c < 3; c++) v[k * 3 + (size_t)c] = b.trs[k * 10 + (size_t)c];
		if (ok) ok = rki_gw_emit_baked(w, &ao, clip, &b, b.nodes[0], RKI_GW_PATH_T, v, 3, NULL);
	}
	if (ok) {
		if (ao.channels.count == 0) {
			rki_gw_warn(w, "clip \"%s\" animates nothing glTF can express: not written", clip->name);
		} else {
			rk_json_writer *j = rki_gw_section_json(&w->animations);
			rk_json_object_begin(j, NULL);
			if (clip->name && clip->name[0]) rk_json_string(j, "name", clip->name);
			ok = rki_gw_section_emit(w, j, "channels", &ao.channels)
				&& rki_gw_section_emit(w, j, "samplers", &ao.samplers);
			rk_json_object_end(j);
			w->animations.count++;
		}
	}
	rki_gw_section_free(&ao.channels);
	rki_gw_section_free(&ao.samplers);
	return ok;
}

bool rki_gw_write_animations(rki_gw *w)
{
	const rk_scene *s = w->scene;
	for (size_t c = 0; c < s->clips.count; c++) {
		const rk_anim_clip *clip = &s->clips.data[c];
		if (!w->opts.rebase_time && clip->time_begin < 0.0)
			rki_gw_warn(w, "clip \"%s\" starts at %g s and glTF times cannot be negative: its times are moved by %g s",
				clip->name, clip->time_begin, -clip->time_begin);
		rki_arena saved = w->tmp;
		rki_arena_init(&w->tmp, &w->alloc);
		bool ok = rki_gw_write_clip(w, &s->clips.data[c]);
		rki_arena_free(&w->tmp);
		w->tmp = saved;
		if (!ok) return false;
	}
	return true;
}
