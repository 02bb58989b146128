/* src/runtime/runtime_blend.c - blending job and crossfade controller (see
 * rigkit/runtime.h). Never allocates. */
#include "runtime_internal.h"

#include <stdarg.h>
#include <string.h>

static bool rki_blend_fail(rk_error *err, const char *fmt, ...) RKI_PRINTF(2, 3);
static bool rki_blend_fail(rk_error *err, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	rki_error_setv(err, RK_ERROR_INVALID_ARGUMENT, fmt, ap);
	va_end(ap);
	return false;
}

static bool rki_view_ok(const rk_local_pose_view *v, size_t n)
{
	return v->joint_count == n && (n == 0 || (v->translation && v->rotation && v->scale));
}

static bool rki_view_zero(const rk_local_pose_view *v)
{
	return v->joint_count == 0 && !v->translation && !v->rotation && !v->scale;
}

static bool rki_check_layers(const rk_blend_layer *layers, size_t count, bool additive, size_t n, rk_error *err)
{
	const char *kind = additive ? "additive layer" : "layer";
	if (count && !layers) return rki_blend_fail(err, "rk_blend: %zu %ss but no array", count, kind);
	for (size_t i = 0; i < count; i++) {
		const rk_blend_layer *l = &layers[i];
		if (!rki_view_ok(&l->pose, n))
			return rki_blend_fail(err, "rk_blend: %s %zu: pose has %zu joints (skeleton %zu) or NULL streams", kind, i,
				l->pose.joint_count, n);
		if (!isfinite(l->weight)) return rki_blend_fail(err, "rk_blend: %s %zu: weight is not finite", kind, i);
		if (additive && !rki_view_zero(&l->reference) && !rki_view_ok(&l->reference, n))
			return rki_blend_fail(err, "rk_blend: additive layer %zu: reference must be zeroed (rest pose) or complete", i);
	}
	return true;
}

bool rk_blend_validate(const rk_blend_job *job, rk_error *err)
{
	rki_error_clear(err);
	if (!job) return rki_blend_fail(err, "rk_blend: job is NULL");
	const rk_skeleton *sk = job->skeleton;
	if (!sk) return rki_blend_fail(err, "rk_blend: skeleton is NULL");
	size_t n = sk->joint_count;
	if (n == 0 || !rki_view_ok(&sk->rest, n)) return rki_blend_fail(err, "rk_blend: the skeleton has no joints or no rest pose");
	rk_local_pose_view out = rk_local_pose_view_of(job->output);
	if (!rki_view_ok(&out, n))
		return rki_blend_fail(err, "rk_blend: output has %zu joints (skeleton %zu) or NULL streams", job->output.joint_count, n);
	if (!isfinite(job->rest_threshold)) return rki_blend_fail(err, "rk_blend: rest_threshold is not finite");
	if (!rki_check_layers(job->layers, job->layer_count, false, n, err)) return false;
	if (!rki_check_layers(job->additive_layers, job->additive_layer_count, true, n, err)) return false;
	if (job->morph_weight_count && !job->morph_weights)
		return rki_blend_fail(err, "rk_blend: morph_weight_count %zu without morph_weights", job->morph_weight_count);
	return true;
}

static inline float rki_layer_weight(const rk_blend_layer *l, size_t j)
{
	float w = l->weight > 0.0f ? l->weight : 0.0f;
	if (l->joint_weights) {
		float m = l->joint_weights[j];
		m = m > 0.0f ? (m < 1.0f ? m : 1.0f) : 0.0f;
		w *= m;
	}
	return w;
}

bool rk_blend_run(const rk_blend_job *job)
{
	if (!rk_blend_validate(job, NULL)) return false;
	const rk_skeleton *sk = job->skeleton;
	const size_t n = sk->joint_count;
	const rk_local_pose_view rest = sk->rest;
	const float threshold = job->rest_threshold;
	const bool slerp = job->slerp;
	for (size_t j = 0; j < n; j++) {
		float W = 0.0f;
		float tx = 0.0f, ty = 0.0f, tz = 0.0f, sx = 0.0f, sy = 0.0f, sz = 0.0f;
		rk_float4 acc = { 0.0f, 0.0f, 0.0f, 0.0f }, qref = { 0.0f, 0.0f, 0.0f, 1.0f };
		bool any = false;
		for (size_t i = 0; i < job->layer_count; i++) {
			const rk_blend_layer *l = &job->layers[i];
			float w = rki_layer_weight(l, j);
			if (!(w > 0.0f)) continue;
			rk_float3 t = l->pose.translation[j], s = l->pose.scale[j];
			rk_float4 q = l->pose.rotation[j];
			tx += w * t.x; ty += w * t.y; tz += w * t.z;
			sx += w * s.x; sy += w * s.y; sz += w * s.z;
			W += w;
			if (!any) {
				any = true;
				qref = q;
				acc = slerp ? q : rki_f4(w * q.x, w * q.y, w * q.z, w * q.w);
			} else if (slerp) {
				acc = rki_f4_slerp(acc, q, w / W);
			} else {
				float sw = rki_f4_dot(q, qref) < 0.0f ? -w : w;
				acc.x += sw * q.x; acc.y += sw * q.y; acc.z += sw * q.z; acc.w += sw * q.w;
			}
		}
		float r = threshold - W;
		if (!(r > 0.0f)) r = 0.0f;
		rk_float3 ot, os;
		rk_float4 oq;
		if (!(W + r > 0.0f)) {
			ot = rest.translation[j];
			oq = rest.rotation[j];
			os = rest.scale[j];
		} else {
			if (r > 0.0f) {
				rk_float3 t = rest.translation[j], s = rest.scale[j];
				rk_float4 q = rest.rotation[j];
				tx += r * t.x; ty += r * t.y; tz += r * t.z;
				sx += r * s.x; sy += r * s.y; sz += r * s.z;
				if (!any) {
					acc = q;
				} else if (slerp) {
					acc = rki_f4_slerp(acc, q, r / (W + r));
				} else {
					float sw = rki_f4_dot(q, qref) < 0.0f ? -r : r;
					acc.x += sw * q.x; acc.y += sw * q.y; acc.z += sw * q.z; acc.w += sw * q.w;
				}
			}
			float inv = 1.0f / (W + r);
			ot = rki_f3(tx * inv, ty * inv, tz * inv);
			os = rki_f3(sx * inv, sy * inv, sz * inv);
			oq = rki_f4_normalize(acc);
		}
		for (size_t a = 0; a < job->additive_layer_count; a++) {
			const rk_blend_layer *l = &job->additive_layers[a];
			float w = rki_layer_weight(l, j);
			if (!(w > 0.0f)) continue;
			bool use_rest = l->reference.joint_count == 0;
			rk_float3 rt = use_rest ? rest.translation[j] : l->reference.translation[j];
			rk_float4 rq = use_rest ? rest.rotation[j] : l->reference.rotation[j];
			rk_float3 rs = use_rest ? rest.scale[j] : l->reference.scale[j];
			rk_float3 t = l->pose.translation[j], s = l->pose.scale[j];
			rk_float4 q = l->pose.rotation[j];
			ot.x += w * (t.x - rt.x);
			ot.y += w * (t.y - rt.y);
			ot.z += w * (t.z - rt.z);
			rk_float4 d = rki_f4_mul(rki_f4_conj(rq), q);
			if (d.w < 0.0f) d = rki_f4(-d.x, -d.y, -d.z, -d.w);
			rk_float4 id = { 0.0f, 0.0f, 0.0f, 1.0f };
			rk_float4 dw = slerp ? rki_f4_slerp(id, d, w) : rki_f4_nlerp(id, d, w);
			oq = rki_f4_normalize(rki_f4_mul(oq, dw));
			os.x *= 1.0f + w * ((rs.x != 0.0f ? s.x / rs.x : 1.0f) - 1.0f);
			os.y *= 1.0f + w * ((rs.y != 0.0f ? s.y / rs.y : 1.0f) - 1.0f);
			os.z *= 1.0f + w * ((rs.z != 0.0f ? s.z / rs.z : 1.0f) - 1.0f);
		}
		job->output.translation[j] = ot;
		job->output.rotation[j] = oq;
		job->output.scale[j] = os;
	}
	if (job->morph_weights) {
		float W = 0.0f;
		for (size_t i = 0; i < job->layer_count; i++) {
			const rk_blend_layer *l = &job->layers[i];
			if (l->morph_weights && l->weight > 0.0f) W += l->weight;
		}
		for (size_t k = 0; k < job->morph_weight_count; k++) {
			float acc = 0.0f;
			for (size_t i = 0; i < job->layer_count; i++) {
				const rk_blend_layer *l = &job->layers[i];
				if (l->morph_weights && l->weight > 0.0f) acc += l->weight * l->morph_weights[k];
			}
			job->morph_weights[k] = W > 0.0f ? acc / W : 0.0f;
		}
	}
	return true;
}

/* ---- crossfade ------------------------------------------------------------------------ */

void rk_crossfade_start(rk_crossfade *cf, double from_time, double to_time, double duration)
{
	if (!cf) return;
	memset(cf, 0, sizeof(*cf));
	cf->from_time = from_time;
	cf->to_time = to_time;
	cf->from_speed = 1.0;
	cf->to_speed = 1.0;
	cf->duration = duration;
	cf->elapsed = 0.0;
}

void rk_crossfade_advance(rk_crossfade *cf, double dt)
{
	if (!cf || !(dt > 0.0) || !isfinite(dt)) return;
	cf->elapsed += dt;
	cf->from_time += dt * cf->from_speed;
	cf->to_time += dt * cf->to_speed;
}

float rk_crossfade_weight(const rk_crossfade *cf)
{
	if (!cf) return 0.0f;
	if (!(cf->duration > 0.0)) return 1.0f;
	double x = cf->elapsed / cf->duration;
	if (!(x > 0.0)) return 0.0f;
	if (x >= 1.0) return 1.0f;
	return (float)(x * x * (3.0 - 2.0 * x));
}

bool rk_crossfade_done(const rk_crossfade *cf)
{
	return !cf || !(cf->elapsed < cf->duration);
}

void rk_crossfade_layers(const rk_crossfade *cf, rk_local_pose_view from_pose, rk_local_pose_view to_pose,
	rk_blend_layer layers[2])
{
	if (!layers) return;
	float w = rk_crossfade_weight(cf);
	memset(layers, 0, 2 * sizeof(rk_blend_layer));
	layers[0].pose = from_pose;
	layers[0].weight = 1.0f - w;
	layers[1].pose = to_pose;
	layers[1].weight = w;
}
