/*
 * src/runtime/runtime_internal.h - float math and track sampling shared by
 * the runtime's files (not public API). Everything here is inline, pure and
 * allocation free.
 */
#ifndef RIGKIT_RUNTIME_INTERNAL_H
#define RIGKIT_RUNTIME_INTERNAL_H

#include "rigkit/runtime.h"
#include "rigkit/math.h"
#include "core/internal.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>

/* ---- float vectors and quaternions -------------------------------------- */

static inline rk_float3 rki_f3(float x, float y, float z) { rk_float3 r = { x, y, z }; return r; }
static inline rk_float4 rki_f4(float x, float y, float z, float w) { rk_float4 r = { x, y, z, w }; return r; }

static inline rk_float3 rki_f3_lerp(rk_float3 a, rk_float3 b, float u)
{
	return rki_f3(a.x + (b.x - a.x) * u, a.y + (b.y - a.y) * u, a.z + (b.z - a.z) * u);
}

static inline float rki_f4_dot(rk_float4 a, rk_float4 b) { return a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w; }

/* Unit quaternion; identity for a zero (or non-finite length) input. */
static inline rk_float4 rki_f4_normalize(rk_float4 q)
{
	float len2 = rki_f4_dot(q, q);
	if (!(len2 > 0.0f) || !(len2 < INFINITY)) return rki_f4(0.0f, 0.0f, 0.0f, 1.0f);
	float inv = 1.0f / sqrtf(len2);
	return rki_f4(q.x * inv, q.y * inv, q.z * inv, q.w * inv);
}

static inline rk_float4 rki_f4_mul(rk_float4 a, rk_float4 b)
{
	return rki_f4(a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
		a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
		a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w,
		a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z);
}

static inline rk_float4 rki_f4_conj(rk_float4 q) { return rki_f4(-q.x, -q.y, -q.z, q.w); }

/* acos on [0, 1]: Abramowitz & Stegun 4.4.46 (|error| <= 2e-8). The
 * coefficients are macros so the blocked path (runtime_sample.c) evaluates
 * the same polynomial. */
#define RKI_ACOS_C7 (-0.0012624911f)
#define RKI_ACOS_C6 0.0066700901f
#define RKI_ACOS_C5 (-0.0170881256f)
#define RKI_ACOS_C4 0.0308918810f
#define RKI_ACOS_C3 (-0.0501743046f)
#define RKI_ACOS_C2 0.0889789874f
#define RKI_ACOS_C1 (-0.2145988016f)
#define RKI_ACOS_C0 1.5707963050f
static inline float rki_acos01(float x)
{
	float p = RKI_ACOS_C7;
	p = p * x + RKI_ACOS_C6;
	p = p * x + RKI_ACOS_C5;
	p = p * x + RKI_ACOS_C4;
	p = p * x + RKI_ACOS_C3;
	p = p * x + RKI_ACOS_C2;
	p = p * x + RKI_ACOS_C1;
	p = p * x + RKI_ACOS_C0;
	float r = 1.0f - x;
	return sqrtf(r > 0.0f ? r : 0.0f) * p;
}

/* sin on [0, pi/2]: Taylor series to x^11 (truncation error < 6e-8, below
 * float rounding; < 1e-11 for x < 0.5, the usual distance between keys). */
#define RKI_SIN_C11 (-1.0f / 39916800.0f)
#define RKI_SIN_C9 (1.0f / 362880.0f)
#define RKI_SIN_C7 (-1.0f / 5040.0f)
#define RKI_SIN_C5 (1.0f / 120.0f)
#define RKI_SIN_C3 (-1.0f / 6.0f)
static inline float rki_sin_0_halfpi(float x)
{
	float x2 = x * x;
	float p = RKI_SIN_C11;
	p = p * x2 + RKI_SIN_C9;
	p = p * x2 + RKI_SIN_C7;
	p = p * x2 + RKI_SIN_C5;
	p = p * x2 + RKI_SIN_C3;
	p = p * x2 + 1.0f;
	return x * p;
}

/* Cosine of the quaternion arc above which slerp is replaced by nlerp:
 * the same switch as rk_quat_slerp (math.c), whose result anim.h's glTF
 * LINEAR rotations are. (nlerp's angular error there is below 1.1e-6 rad.) */
#define RKI_NLERP_COS 0.9995f

/* Shortest-path slerp of unit quaternions, float, normalised result. */
static inline rk_float4 rki_f4_slerp(rk_float4 a, rk_float4 b, float u)
{
	float d = rki_f4_dot(a, b);
	float sgn = 1.0f;
	if (d < 0.0f) { d = -d; sgn = -1.0f; }
	if (d > 1.0f) d = 1.0f;
	float wa = 1.0f - u, wb = u;
	if (!(d > RKI_NLERP_COS)) {
		/* slerp weights are sin((1-u) arc) / sin(arc) and sin(u arc) / sin(arc);
		 * the common 1 / sin(arc) cancels in the normalisation below */
		float arc = rki_acos01(d);
		wa = rki_sin_0_halfpi((1.0f - u) * arc);
		wb = rki_sin_0_halfpi(u * arc);
	}
	wb *= sgn;
	return rki_f4_normalize(rki_f4(wa * a.x + wb * b.x, wa * a.y + wb * b.y, wa * a.z + wb * b.z, wa * a.w + wb * b.w));
}

/* Shortest-path nlerp. */
static inline rk_float4 rki_f4_nlerp(rk_float4 a, rk_float4 b, float u)
{
	float wb = rki_f4_dot(a, b) < 0.0f ? -u : u;
	float wa = 1.0f - u;
	return rki_f4_normalize(rki_f4(wa * a.x + wb * b.x, wa * a.y + wb * b.y, wa * a.z + wb * b.z, wa * a.w + wb * b.w));
}

static inline rk_float3 rki_f4_rotate(rk_float4 q, rk_float3 v)
{
	/* v + 2w (q x v) + 2 q x (q x v) */
	float cx = q.y * v.z - q.z * v.y, cy = q.z * v.x - q.x * v.z, cz = q.x * v.y - q.y * v.x;
	cx *= 2.0f; cy *= 2.0f; cz *= 2.0f;
	return rki_f3(v.x + q.w * cx + (q.y * cz - q.z * cy),
		v.y + q.w * cy + (q.z * cx - q.x * cz),
		v.z + q.w * cz + (q.x * cy - q.y * cx));
}

/* ---- double helpers ---------------------------------------------------------- */

static inline rk_vec3 rki_d3(rk_float3 v) { return rk_vec3_make(v.x, v.y, v.z); }
static inline rk_quat rki_dq(rk_float4 q) { rk_quat r = { q.x, q.y, q.z, q.w }; return r; }
static inline rk_float3 rki_to_f3(rk_vec3 v) { return rki_f3((float)v.x, (float)v.y, (float)v.z); }
static inline rk_float4 rki_to_f4(rk_quat q) { return rki_f4((float)q.x, (float)q.y, (float)q.z, (float)q.w); }

/* ---- track sampling ------------------------------------------------------------ */

/* Last key k in [0, n) with times[k] <= t (0 when t < times[0]), starting
 * from the hint c: the hint itself and its successor are tried first (a
 * forward playback's cursor), then a branch-free binary search over the
 * whole track (as many steps for every t, no mispredicted branches). Any
 * hint works; ascending times give the right key, other orders some key in
 * range. n >= 1. */
static inline uint32_t rki_rt_find_key(const float *times, uint32_t n, float t, uint32_t c)
{
	if (c < n && times[c] <= t) {
		if (c + 1 >= n || !(times[c + 1] <= t)) return c;
		if (c + 2 >= n || !(times[c + 2] <= t)) return c + 1;
	}
	/* invariant: the answer is in [lo, lo + len) */
	uint32_t lo = 0, len = n;
	while (len > 1) {
		uint32_t half = len / 2;
		lo = times[lo + half] <= t ? lo + half : lo;
		len -= half;
	}
	return lo;
}

/* Where t falls in a track: key k alone (u < 0), or between k and k + 1 at
 * u in [0, 1] with key spacing dt. */
typedef struct rki_rt_pos {
	uint32_t k;
	float u;
	float dt;
} rki_rt_pos;

static inline rki_rt_pos rki_rt_locate(const float *times, const rk_runtime_track *tr, float t, uint32_t *cursor)
{
	rki_rt_pos p;
	const float *tt = times + tr->key_begin;
	uint32_t n = tr->key_count;
	p.k = rki_rt_find_key(tt, n, t, cursor ? *cursor : 0);
	if (cursor) *cursor = p.k;
	p.u = -1.0f;
	p.dt = 0.0f;
	if (tr->interp != RK_KEY_STEP && p.k + 1 < n && t > tt[p.k]) {
		float dt = tt[p.k + 1] - tt[p.k];
		if (dt > 0.0f) {
			float u = (t - tt[p.k]) / dt;
			p.u = u < 1.0f ? u : 1.0f;
			p.dt = dt;
		}
	}
	return p;
}

/* Hermite basis (glTF CUBICSPLINE). */
static inline void rki_rt_hermite(float u, float dt, float h[4])
{
	float u2 = u * u, u3 = u2 * u;
	h[0] = 2.0f * u3 - 3.0f * u2 + 1.0f;
	h[1] = (u3 - 2.0f * u2 + u) * dt;
	h[2] = -2.0f * u3 + 3.0f * u2;
	h[3] = (u3 - u2) * dt;
}

static inline rk_float3 rki_rt_sample_f3(const float *times, const rk_runtime_track *tr, const rk_float3 *values,
	float t, uint32_t *cursor)
{
	if (tr->key_count == 1) return values[tr->value_begin + (tr->interp == RK_KEY_CUBIC ? 1u : 0u)];
	rki_rt_pos p = rki_rt_locate(times, tr, t, cursor);
	if (tr->interp == RK_KEY_CUBIC) {
		const rk_float3 *v = values + tr->value_begin + 3u * p.k;
		if (p.u < 0.0f) return v[1];
		float h[4];
		rki_rt_hermite(p.u, p.dt, h);
		/* v[1] value k, v[2] out-tangent k, v[3] in-tangent k+1, v[4] value k+1 */
		return rki_f3(h[0] * v[1].x + h[1] * v[2].x + h[2] * v[4].x + h[3] * v[3].x,
			h[0] * v[1].y + h[1] * v[2].y + h[2] * v[4].y + h[3] * v[3].y,
			h[0] * v[1].z + h[1] * v[2].z + h[2] * v[4].z + h[3] * v[3].z);
	}
	const rk_float3 *v = values + tr->value_begin + p.k;
	if (p.u < 0.0f) return v[0];
	return rki_f3_lerp(v[0], v[1], p.u);
}

static inline rk_float4 rki_rt_sample_quat(const float *times, const rk_runtime_track *tr, const rk_float4 *values,
	float t, uint32_t *cursor)
{
	if (tr->key_count == 1) return rki_f4_normalize(values[tr->value_begin + (tr->interp == RK_KEY_CUBIC ? 1u : 0u)]);
	rki_rt_pos p = rki_rt_locate(times, tr, t, cursor);
	if (tr->interp == RK_KEY_CUBIC) {
		const rk_float4 *v = values + tr->value_begin + 3u * p.k;
		if (p.u < 0.0f) return rki_f4_normalize(v[1]);
		float h[4];
		rki_rt_hermite(p.u, p.dt, h);
		return rki_f4_normalize(rki_f4(h[0] * v[1].x + h[1] * v[2].x + h[2] * v[4].x + h[3] * v[3].x,
			h[0] * v[1].y + h[1] * v[2].y + h[2] * v[4].y + h[3] * v[3].y,
			h[0] * v[1].z + h[1] * v[2].z + h[2] * v[4].z + h[3] * v[3].z,
			h[0] * v[1].w + h[1] * v[2].w + h[2] * v[4].w + h[3] * v[3].w));
	}
	const rk_float4 *v = values + tr->value_begin + p.k;
	if (p.u < 0.0f) return rki_f4_normalize(v[0]);
	return rki_f4_slerp(v[0], v[1], p.u);
}

/* n floats per key (morph weights). */
static inline void rki_rt_sample_floats(const float *times, const rk_runtime_track *tr, const float *values,
	uint32_t n, float t, uint32_t *cursor, float *out)
{
	if (tr->key_count == 1) {
		const float *v = values + tr->value_begin + (tr->interp == RK_KEY_CUBIC ? n : 0u);
		for (uint32_t c = 0; c < n; c++) out[c] = v[c];
		return;
	}
	rki_rt_pos p = rki_rt_locate(times, tr, t, cursor);
	if (tr->interp == RK_KEY_CUBIC) {
		const float *v = values + tr->value_begin + (size_t)3u * n * p.k;
		if (p.u < 0.0f) {
			for (uint32_t c = 0; c < n; c++) out[c] = v[n + c];
			return;
		}
		float h[4];
		rki_rt_hermite(p.u, p.dt, h);
		for (uint32_t c = 0; c < n; c++)
			out[c] = h[0] * v[n + c] + h[1] * v[2 * n + c] + h[2] * v[4 * n + c] + h[3] * v[3 * n + c];
		return;
	}
	const float *v = values + tr->value_begin + (size_t)n * p.k;
	if (p.u < 0.0f) {
		for (uint32_t c = 0; c < n; c++) out[c] = v[c];
		return;
	}
	for (uint32_t c = 0; c < n; c++) out[c] = v[c] + (v[n + c] - v[c]) * p.u;
}

/* Values a track needs in its value array (key_count, *3 for CUBIC, times n). */
static inline bool rki_rt_track_values(const rk_runtime_track *tr, uint32_t n, uint64_t *out)
{
	uint64_t per = tr->interp == RK_KEY_CUBIC ? 3u : 1u;
	*out = (uint64_t)tr->key_count * per * n;
	return true;
}

/* Track sanity against array sizes (no time order check). */
static inline bool rki_rt_track_ok(const rk_runtime_track *tr, size_t time_count, size_t value_count, uint32_t n)
{
	if (tr->key_count == 0 || tr->interp > RK_KEY_CUBIC) return false;
	if ((uint64_t)tr->key_begin + tr->key_count > (uint64_t)time_count) return false;
	uint64_t need;
	rki_rt_track_values(tr, n, &need);
	return (uint64_t)tr->value_begin + need <= (uint64_t)value_count;
}

/* Time on the clip clock after LOOP / CLAMP. */
static inline double rki_rt_wrap(double time, double duration, rk_playback mode)
{
	if (!(duration > 0.0)) return 0.0;
	if (mode == RK_PLAYBACK_LOOP) {
		double r = fmod(time, duration);
		if (r < 0.0) r += duration;
		if (r >= duration) r = 0.0;
		return r;
	}
	if (time < 0.0) return 0.0;
	if (time > duration) return duration;
	return time;
}

/* Shared validation of a clip's arrays and tracks (O(tracks)). */
bool rki_rt_clip_check(const rk_runtime_clip *clip, const char *who, rk_error *err);

/* ---- sampling and local-to-model paths -------------------------------------- */

/* rk_sample_run and rk_local_to_model_run take the BLOCKED path when
 * runtime_simd.h has a vector unit (RKI_V4_SIMD: SSE2, wasm simd128) and the
 * SCALAR path otherwise (RK_SCALAR_ONLY builds, other targets). Both exist
 * in every build (the blocked one over plain-C lanes without a vector unit)
 * so tests can compare them: their results are bit-identical by
 * construction (the same IEEE operations in the same order, no fused
 * multiply-add). */
typedef enum rki_rt_path {
	RKI_RT_PATH_DEFAULT = 0,
	RKI_RT_PATH_SCALAR,              /* one track / joint at a time: the reference */
	RKI_RT_PATH_BLOCKED              /* 4 joints at a time in rki_v4 lanes */
} rki_rt_path;

/* The path the public functions take, and the lanes' implementation
 * ("sse2", "wasm-simd128", "plain C"). */
rki_rt_path rki_rt_default_path(void);
const char *rki_rt_vector_name(void);
/* rk_sample_run / rk_local_to_model_run on a chosen path. */
bool rki_sample_run_path(const rk_sample_job *job, rki_rt_path path);
bool rki_local_to_model_run_path(const rk_local_to_model_job *job, rki_rt_path path);

#endif
