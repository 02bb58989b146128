/* src/runtime/runtime_sample.c - local pose memory, clip checks and the
 * sampling job (see rigkit/runtime.h, TRACK SAMPLING): the scalar path (one
 * track at a time, the reference) and the blocked path (4 joints at a time
 * in runtime_simd.h lanes, bit-identical to it). Never allocates. */
#include "runtime_internal.h"
#include "runtime_simd.h"

#include <stdarg.h>
#include <string.h>

/* ---- local poses ------------------------------------------------------------- */

#define RKI_RT_ALIGN 16u

static bool rki_rt_add(size_t *total, size_t count, size_t elem)
{
	size_t bytes;
	if (!rki_mul_size(count, elem, &bytes)) return false;
	if (!rki_add_size(bytes, RKI_RT_ALIGN - 1, &bytes)) return false;
	bytes &= ~(size_t)(RKI_RT_ALIGN - 1);
	return rki_add_size(*total, bytes, total);
}

size_t rk_local_pose_memory_size(size_t joint_count)
{
	size_t total = RKI_RT_ALIGN;
	bool ok = rki_rt_add(&total, joint_count, sizeof(rk_float3))
		&& rki_rt_add(&total, joint_count, sizeof(rk_float4))
		&& rki_rt_add(&total, joint_count, sizeof(rk_float3));
	return ok ? total : 0;
}

bool rk_local_pose_init(rk_local_pose *pose, size_t joint_count, void *memory, size_t size)
{
	if (!pose) return false;
	memset(pose, 0, sizeof(*pose));
	size_t need = rk_local_pose_memory_size(joint_count);
	if (!memory || need == 0 || size < need) return false;
	uintptr_t addr = (uintptr_t)memory;
	size_t pad = (RKI_RT_ALIGN - (addr & (RKI_RT_ALIGN - 1))) & (RKI_RT_ALIGN - 1);
	unsigned char *cur = (unsigned char *)memory + pad;
	size_t t_bytes = (joint_count * sizeof(rk_float3) + RKI_RT_ALIGN - 1) & ~(size_t)(RKI_RT_ALIGN - 1);
	size_t r_bytes = (joint_count * sizeof(rk_float4) + RKI_RT_ALIGN - 1) & ~(size_t)(RKI_RT_ALIGN - 1);
	pose->joint_count = joint_count;
	pose->translation = (rk_float3 *)(void *)cur;
	pose->rotation = (rk_float4 *)(void *)(cur + t_bytes);
	pose->scale = (rk_float3 *)(void *)(cur + t_bytes + r_bytes);
	return true;
}

/* ---- clip checks ---------------------------------------------------------------- */

static bool rki_rt_fail(rk_error *err, const char *fmt, ...) RKI_PRINTF(2, 3);
static bool rki_rt_fail(rk_error *err, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	rki_error_setv(err, RK_ERROR_INVALID_ARGUMENT, fmt, ap);
	va_end(ap);
	return false;
}

bool rki_rt_clip_check(const rk_runtime_clip *c, const char *who, rk_error *err)
{
	if (!c) return rki_rt_fail(err, "%s: clip is NULL", who);
	if (!isfinite(c->duration) || c->duration < 0.0)
		return rki_rt_fail(err, "%s: clip duration %g is not a finite value >= 0", who, c->duration);
	if (c->joint_count > (size_t)INT32_MAX) return rki_rt_fail(err, "%s: clip has %zu joints", who, c->joint_count);
	if (c->joint_count && (!c->translation_tracks || !c->rotation_tracks || !c->scale_tracks))
		return rki_rt_fail(err, "%s: clip has %zu joints but no track arrays", who, c->joint_count);
	if (c->time_count && !c->times) return rki_rt_fail(err, "%s: clip has %zu key times but no array", who, c->time_count);
	if (c->translation_value_count && !c->translation_values)
		return rki_rt_fail(err, "%s: clip translation_values is NULL", who);
	if (c->rotation_value_count && !c->rotation_values) return rki_rt_fail(err, "%s: clip rotation_values is NULL", who);
	if (c->scale_value_count && !c->scale_values) return rki_rt_fail(err, "%s: clip scale_values is NULL", who);
	if (c->morph_value_count && !c->morph_values) return rki_rt_fail(err, "%s: clip morph_values is NULL", who);
	if (c->morph_track_count && !c->morph_tracks) return rki_rt_fail(err, "%s: clip morph_tracks is NULL", who);
	for (size_t j = 0; j < c->joint_count; j++) {
		if (!rki_rt_track_ok(&c->translation_tracks[j], c->time_count, c->translation_value_count, 1))
			return rki_rt_fail(err, "%s: joint %zu: translation track keys/values out of range", who, j);
		if (!rki_rt_track_ok(&c->rotation_tracks[j], c->time_count, c->rotation_value_count, 1))
			return rki_rt_fail(err, "%s: joint %zu: rotation track keys/values out of range", who, j);
		if (!rki_rt_track_ok(&c->scale_tracks[j], c->time_count, c->scale_value_count, 1))
			return rki_rt_fail(err, "%s: joint %zu: scale track keys/values out of range", who, j);
	}
	for (size_t m = 0; m < c->morph_track_count; m++) {
		const rk_morph_track *mt = &c->morph_tracks[m];
		if (mt->weight_count == 0 || (uint64_t)mt->weight_offset + mt->weight_count > (uint64_t)c->morph_weight_count)
			return rki_rt_fail(err, "%s: morph track %zu: weights %u..%u outside morph_weight_count %zu", who, m,
				(unsigned)mt->weight_offset, (unsigned)(mt->weight_offset + mt->weight_count), c->morph_weight_count);
		if (!rki_rt_track_ok(&mt->keys, c->time_count, c->morph_value_count, mt->weight_count))
			return rki_rt_fail(err, "%s: morph track %zu: keys/values out of range", who, m);
	}
	return true;
}

static bool rki_rt_times_ok(const rk_runtime_clip *c, const rk_runtime_track *tr)
{
	const float *t = c->times + tr->key_begin;
	for (uint32_t k = 0; k < tr->key_count; k++) {
		if (!isfinite(t[k])) return false;
		if (k && !(t[k] >= t[k - 1])) return false;
	}
	return true;
}

bool rk_runtime_clip_validate(const rk_runtime_clip *clip, rk_error *err)
{
	rki_error_clear(err);
	if (!rki_rt_clip_check(clip, "rk_runtime_clip", err)) return false;
	if (clip->morph_block_count && !clip->morph_blocks) return rki_rt_fail(err, "rk_runtime_clip: morph_blocks is NULL");
	for (size_t b = 0; b < clip->morph_block_count; b++) {
		const rk_morph_block *mb = &clip->morph_blocks[b];
		if (mb->joint >= clip->joint_count || (uint64_t)mb->weight_offset + mb->channel_count > clip->morph_weight_count)
			return rki_rt_fail(err, "rk_runtime_clip: morph block %zu out of range", b);
	}
	for (size_t j = 0; j < clip->joint_count; j++) {
		if (!rki_rt_times_ok(clip, &clip->translation_tracks[j]) || !rki_rt_times_ok(clip, &clip->rotation_tracks[j])
			|| !rki_rt_times_ok(clip, &clip->scale_tracks[j]))
			return rki_rt_fail(err, "rk_runtime_clip: joint %zu: key times are not finite and ascending", j);
	}
	for (size_t m = 0; m < clip->morph_track_count; m++)
		if (!rki_rt_times_ok(clip, &clip->morph_tracks[m].keys))
			return rki_rt_fail(err, "rk_runtime_clip: morph track %zu: key times are not finite and ascending", m);
	return true;
}

/* ---- context ---------------------------------------------------------------------- */

size_t rk_sample_context_size(const rk_runtime_clip *clip)
{
	if (!clip) return 0;
	return 3 * clip->joint_count + clip->morph_track_count;
}

void rk_sample_context_init(rk_sample_context *ctx, uint32_t *cursors, size_t capacity)
{
	if (!ctx) return;
	ctx->cursors = cursors;
	ctx->capacity = cursors ? capacity : 0;
	ctx->clip_ = NULL;
	for (size_t i = 0; i < ctx->capacity; i++) ctx->cursors[i] = 0;
}

double rk_playback_time(double time, double duration, rk_playback playback)
{
	return rki_rt_wrap(time, duration, playback);
}

/* ---- the job ------------------------------------------------------------------------ */

bool rk_sample_validate(const rk_sample_job *job, rk_error *err)
{
	rki_error_clear(err);
	if (!job) return rki_rt_fail(err, "rk_sample: job is NULL");
	const rk_runtime_clip *c = job->clip;
	/* a context set up for this clip by a previous run has seen it pass */
	bool known = c && job->context && job->context->clip_ == c && job->context->cursors
		&& job->context->capacity >= rk_sample_context_size(c);
	if (!known && !rki_rt_clip_check(c, "rk_sample", err)) return false;
	if (!isfinite(job->time)) return rki_rt_fail(err, "rk_sample: time is not finite");
	if ((unsigned)job->playback > (unsigned)RK_PLAYBACK_LOOP)
		return rki_rt_fail(err, "rk_sample: unknown playback mode %d", (int)job->playback);
	const rk_local_pose *o = &job->output;
	if (o->joint_count != c->joint_count)
		return rki_rt_fail(err, "rk_sample: output.joint_count is %zu, the clip has %zu joints", o->joint_count, c->joint_count);
	if (c->joint_count && (!o->translation || !o->rotation || !o->scale))
		return rki_rt_fail(err, "rk_sample: output streams must be non-NULL");
	if (job->context) {
		const rk_sample_context *ctx = job->context;
		if (!ctx->cursors || ctx->capacity < rk_sample_context_size(c))
			return rki_rt_fail(err, "rk_sample: context has %zu cursors, the clip needs %zu", ctx->cursors ? ctx->capacity : 0,
				rk_sample_context_size(c));
	}
	if (job->morph_weights && job->morph_weight_count < c->morph_weight_count)
		return rki_rt_fail(err, "rk_sample: morph_weight_count %zu < the clip's %zu", job->morph_weight_count, c->morph_weight_count);
	return true;
}

/* ---- blocked path ----------------------------------------------------------------- */

/* Four tracks at time t, one per lane, reduced to "value a, value b,
 * weight u" so one lerp / slerp serves STEP, LINEAR and one-key tracks:
 * a = key k, b = key k + 1 and u as rki_rt_locate gives them; where the
 * scalar path takes key k alone (u < 0) the lane has b = a, u = 0 and its
 * `alone` mask set, and the blend below returns a exactly there. CUBIC
 * tracks with more keys are left to the scalar path (bit `cubic`). */
typedef struct rki_rt_lanes {
	uint32_t a[4], b[4];             /* value indices (within the attribute's array) */
	rki_v4 u;
	rki_v4 alone;
	int any_alone;                   /* some lane of `alone` is set */
	int cubic;
} rki_rt_lanes;

/* One lane: the value index a of key k and the interval [lo, hi] around t
 * such that t > lo && hi - lo > 0 holds exactly where rki_rt_locate blends
 * keys k and k + 1 (then lo = t_k, hi = t_k+1); elsewhere (key k alone)
 * lo = hi = t. CUBIC tracks with more than one key set the lane's bit in
 * *cubic (the caller takes the scalar path there). */
RKI_RT_INLINE void rki_rt_lane(const float *times, const rk_runtime_track *x, float t, uint32_t *cur, int l,
	uint32_t *a, float *lo, float *hi, int *cubic)
{
	const uint32_t n = x->key_count;
	*lo = *hi = t;
	if (cur && x->interp == RK_KEY_LINEAR && *cur < n - 1) {
		/* forward playback: rki_rt_find_key's first two tests */
		uint32_t k = *cur;
		const float *tk = times + x->key_begin + k;
		if (tk[0] <= t) {
			if (!(tk[1] <= t)) {
				*a = x->value_begin + k;
				*lo = tk[0];
				*hi = tk[1];
				return;
			}
			if (k + 2 < n && !(tk[2] <= t)) {
				*cur = k + 1;
				*a = x->value_begin + k + 1;
				*lo = tk[1];
				*hi = tk[2];
				return;
			}
		}
	}
	if (n == 1 || x->interp == RK_KEY_CUBIC) {
		if (n > 1) *cubic |= 1 << l;
		*a = x->value_begin + (x->interp == RK_KEY_CUBIC ? 1u : 0u);
		return;
	}
	const float *tt = times + x->key_begin;
	uint32_t k = rki_rt_find_key(tt, n, t, cur ? *cur : n);
	if (cur) *cur = k;
	*a = x->value_begin + k;
	if (x->interp != RK_KEY_STEP && k + 1 < n) {
		*lo = tt[k];
		*hi = tt[k + 1];
	}
}

/* u and the alone mask of lanes whose interval is [lo, hi] around t (see
 * rki_rt_lane); returns the mask of lanes that blend keys k and k + 1. */
RKI_RT_INLINE rki_v4 rki_rt_lanes_weights(rki_rt_lanes *L, rki_v4 tv, rki_v4 lo, rki_v4 hi)
{
	const rki_v4 zero = rki_v4_set1(0.0f), one = rki_v4_set1(1.0f);
	const rki_v4 dt = rki_v4_sub(hi, lo);
	const rki_v4 lin = rki_v4_and(rki_v4_gt(tv, lo), rki_v4_gt(dt, zero));
	L->any_alone = rki_v4_mask_bits(lin) != 0xf;
	if (L->any_alone) {
		const rki_v4 num = rki_v4_select(lin, rki_v4_sub(tv, lo), zero), den = rki_v4_select(lin, dt, one);
		L->u = rki_v4_min(rki_v4_div(num, den), one);
		L->alone = rki_v4_select(lin, zero, rki_v4_mask_from_bits(0xf));
	} else {
		/* the selects above with every lane of lin set */
		L->u = rki_v4_min(rki_v4_div(rki_v4_sub(tv, lo), dt), one);
		L->alone = zero;
	}
	return lin;
}

/* Four tracks at once: value indices, u and the alone mask (see rki_rt_lanes). */
RKI_RT_INLINE void rki_rt_lanes_find(rki_rt_lanes *L, const float *times, const rk_runtime_track *tr, float t,
	uint32_t *cur)
{
	/* scalars, then one vector each: four scalar stores read back as one
	 * vector load would stall store forwarding */
	float lo0, lo1, lo2, lo3, hi0, hi1, hi2, hi3;
	L->cubic = 0;
	rki_rt_lane(times, &tr[0], t, cur ? cur + 0 : NULL, 0, &L->a[0], &lo0, &hi0, &L->cubic);
	rki_rt_lane(times, &tr[1], t, cur ? cur + 1 : NULL, 1, &L->a[1], &lo1, &hi1, &L->cubic);
	rki_rt_lane(times, &tr[2], t, cur ? cur + 2 : NULL, 2, &L->a[2], &lo2, &hi2, &L->cubic);
	rki_rt_lane(times, &tr[3], t, cur ? cur + 3 : NULL, 3, &L->a[3], &lo3, &hi3, &L->cubic);
	const rki_v4 lin = rki_rt_lanes_weights(L, rki_v4_set1(t), rki_v4_set(lo0, lo1, lo2, lo3), rki_v4_set(hi0, hi1, hi2, hi3));
	const int blend = L->any_alone ? rki_v4_mask_bits(lin) : 0xf;
	L->b[0] = L->a[0] + (uint32_t)(blend & 1);
	L->b[1] = L->a[1] + (uint32_t)((blend >> 1) & 1);
	L->b[2] = L->a[2] + (uint32_t)((blend >> 2) & 1);
	L->b[3] = L->a[3] + (uint32_t)((blend >> 3) & 1);
}

/* rki_rt_sample_f3 for four tracks (lanes without the cubic bit). Values
 * are read 16 bytes at a time when every key read has a successor in the
 * array (the 4th float, the next value's x, is ignored), 12 otherwise; the
 * results are written 16 bytes at a time except the last when `wide_end`
 * is false (the 4th float lands on the next joint's x, written after). */
RKI_RT_INLINE void rki_rt_block_f3(const rki_rt_lanes *L, const rk_float3 *values, size_t value_count, rk_float3 *out,
	bool wide_end)
{
	uint32_t top = L->b[0] > L->b[1] ? L->b[0] : L->b[1];
	top = top > L->b[2] ? top : L->b[2];
	top = top > L->b[3] ? top : L->b[3];
	if ((size_t)top + 1 < value_count) {
#define RKI_RT_F3_LANE(l, store)                                                                \
	do {                                                                                    \
		rki_v4 a = rki_v4_load(&values[L->a[l]].x), b = rki_v4_load(&values[L->b[l]].x);   \
		rki_v4 r = rki_v4_add(a, rki_v4_mul(rki_v4_sub(b, a), rki_v4_splat(L->u, l)));    \
		store(&out[l].x, L->any_alone ? rki_v4_select(rki_v4_splat(L->alone, l), a, r) : r); \
	} while (0)
		RKI_RT_F3_LANE(0, rki_v4_store);
		RKI_RT_F3_LANE(1, rki_v4_store);
		RKI_RT_F3_LANE(2, rki_v4_store);
		if (wide_end) RKI_RT_F3_LANE(3, rki_v4_store);
		else RKI_RT_F3_LANE(3, rki_v4_store3);
#undef RKI_RT_F3_LANE
		return;
	}
	/* a + (b - a) u, the same per lane with exact 12-byte loads (b >= a) */
	for (int l = 0; l < 4; l++) {
		rki_v4 a = rki_v4_load3(&values[L->a[l]].x), b = rki_v4_load3(&values[L->b[l]].x);
		rki_v4 ul = l == 0 ? rki_v4_splat(L->u, 0) : l == 1 ? rki_v4_splat(L->u, 1) : l == 2 ? rki_v4_splat(L->u, 2) : rki_v4_splat(L->u, 3);
		rki_v4 al = l == 0 ? rki_v4_splat(L->alone, 0) : l == 1 ? rki_v4_splat(L->alone, 1) : l == 2 ? rki_v4_splat(L->alone, 2)
			: rki_v4_splat(L->alone, 3);
		rki_v4_store3(&out[l].x, rki_v4_select(al, a, rki_v4_add(a, rki_v4_mul(rki_v4_sub(b, a), ul))));
	}
}

/* Polynomials of rki_acos01 and rki_sin_0_halfpi, lane-wise. */
RKI_RT_INLINE rki_v4 rki_v4_acos01(rki_v4 x)
{
	rki_v4 p = rki_v4_set1(RKI_ACOS_C7);
	p = rki_v4_add(rki_v4_mul(p, x), rki_v4_set1(RKI_ACOS_C6));
	p = rki_v4_add(rki_v4_mul(p, x), rki_v4_set1(RKI_ACOS_C5));
	p = rki_v4_add(rki_v4_mul(p, x), rki_v4_set1(RKI_ACOS_C4));
	p = rki_v4_add(rki_v4_mul(p, x), rki_v4_set1(RKI_ACOS_C3));
	p = rki_v4_add(rki_v4_mul(p, x), rki_v4_set1(RKI_ACOS_C2));
	p = rki_v4_add(rki_v4_mul(p, x), rki_v4_set1(RKI_ACOS_C1));
	p = rki_v4_add(rki_v4_mul(p, x), rki_v4_set1(RKI_ACOS_C0));
	rki_v4 zero = rki_v4_set1(0.0f);
	rki_v4 r = rki_v4_sub(rki_v4_set1(1.0f), x);
	return rki_v4_mul(rki_v4_sqrt(rki_v4_select(rki_v4_gt(r, zero), r, zero)), p);
}

RKI_RT_INLINE rki_v4 rki_v4_sin_0_halfpi(rki_v4 x)
{
	rki_v4 x2 = rki_v4_mul(x, x);
	rki_v4 p = rki_v4_set1(RKI_SIN_C11);
	p = rki_v4_add(rki_v4_mul(p, x2), rki_v4_set1(RKI_SIN_C9));
	p = rki_v4_add(rki_v4_mul(p, x2), rki_v4_set1(RKI_SIN_C7));
	p = rki_v4_add(rki_v4_mul(p, x2), rki_v4_set1(RKI_SIN_C5));
	p = rki_v4_add(rki_v4_mul(p, x2), rki_v4_set1(RKI_SIN_C3));
	p = rki_v4_add(rki_v4_mul(p, x2), rki_v4_set1(1.0f));
	return rki_v4_mul(x, p);
}

/* rki_rt_sample_quat for nb (1 to 4) blocks of four tracks (lanes without
 * the cubic bit): the rki_f4_slerp of a and b at u in structure-of-arrays
 * lanes, then rki_f4_normalize; alone lanes get weights (1, 0), i.e.
 * normalize(a). Block h reads L[h] and writes out[4h .. 4h + 3]. Each
 * block's slerp is one long dependent chain (acos, sine and square root,
 * about 160 cycles); with the blocks written side by side (every step a
 * loop over h, unrolled once the function is inlined with a constant nb) the
 * chains run in parallel, where the out-of-order window alone overlapped
 * them only partly. A branch taken when any block needs it runs for both:
 * its selects give the other block's values unchanged (a select with an
 * all-true or all-false mask returns one operand), so the bits do not
 * depend on the pairing. */
RKI_RT_INLINE void rki_rt_block_quats(const rki_rt_lanes *L, int nb, const rk_float4 *values, rk_float4 *out)
{
	const rki_v4 one = rki_v4_set1(1.0f), zero = rki_v4_set1(0.0f);
	rki_v4 ax[4], ay[4], az[4], aw[4], bx[4], by[4], bz[4], bw[4], d[4], sgn[4], wa[4], wb[4];
	rki_v4 near[4], ok[4], inv[4], rx[4], ry[4], rz[4], rw[4];
	int near_all = 0xf, ok_all = 0xf, any_alone = 0;
	for (int h = 0; h < nb; h++) {
		ax[h] = rki_v4_load(&values[L[h].a[0]].x);
		ay[h] = rki_v4_load(&values[L[h].a[1]].x);
		az[h] = rki_v4_load(&values[L[h].a[2]].x);
		aw[h] = rki_v4_load(&values[L[h].a[3]].x);
		bx[h] = rki_v4_load(&values[L[h].b[0]].x);
		by[h] = rki_v4_load(&values[L[h].b[1]].x);
		bz[h] = rki_v4_load(&values[L[h].b[2]].x);
		bw[h] = rki_v4_load(&values[L[h].b[3]].x);
		rki_v4_transpose(&ax[h], &ay[h], &az[h], &aw[h]);
		rki_v4_transpose(&bx[h], &by[h], &bz[h], &bw[h]);
	}
	for (int h = 0; h < nb; h++) {
		d[h] = rki_v4_add(rki_v4_add(rki_v4_add(rki_v4_mul(ax[h], bx[h]), rki_v4_mul(ay[h], by[h])),
			rki_v4_mul(az[h], bz[h])), rki_v4_mul(aw[h], bw[h]));
		sgn[h] = rki_v4_select(rki_v4_lt(d[h], zero), rki_v4_set1(-1.0f), one);
		d[h] = rki_v4_min(one, rki_v4_mul(d[h], sgn[h])); /* NaN stays NaN, as `if (d > 1) d = 1` */
		wa[h] = rki_v4_sub(one, L[h].u);
		wb[h] = L[h].u;
		near[h] = rki_v4_gt(d[h], rki_v4_set1(RKI_NLERP_COS));
		near_all &= rki_v4_mask_bits(near[h]);
		any_alone |= L[h].any_alone;
	}
	if (near_all != 0xf) {
		for (int h = 0; h < nb; h++) {
			rki_v4 arc = rki_v4_acos01(d[h]);
			wa[h] = rki_v4_select(near[h], wa[h], rki_v4_sin_0_halfpi(rki_v4_mul(rki_v4_sub(one, L[h].u), arc)));
			wb[h] = rki_v4_select(near[h], wb[h], rki_v4_sin_0_halfpi(rki_v4_mul(L[h].u, arc)));
		}
	}
	for (int h = 0; h < nb; h++) wb[h] = rki_v4_mul(wb[h], sgn[h]);
	if (any_alone) {
		/* L[h].alone is all zeros where L[h].any_alone is not set */
		for (int h = 0; h < nb; h++) {
			wa[h] = rki_v4_select(L[h].alone, one, wa[h]);
			wb[h] = rki_v4_select(L[h].alone, zero, wb[h]);
		}
	}
	for (int h = 0; h < nb; h++) {
		rx[h] = rki_v4_add(rki_v4_mul(wa[h], ax[h]), rki_v4_mul(wb[h], bx[h]));
		ry[h] = rki_v4_add(rki_v4_mul(wa[h], ay[h]), rki_v4_mul(wb[h], by[h]));
		rz[h] = rki_v4_add(rki_v4_mul(wa[h], az[h]), rki_v4_mul(wb[h], bz[h]));
		rw[h] = rki_v4_add(rki_v4_mul(wa[h], aw[h]), rki_v4_mul(wb[h], bw[h]));
		/* rki_f4_normalize */
		rki_v4 len2 = rki_v4_add(rki_v4_add(rki_v4_add(rki_v4_mul(rx[h], rx[h]), rki_v4_mul(ry[h], ry[h])),
			rki_v4_mul(rz[h], rz[h])), rki_v4_mul(rw[h], rw[h]));
		ok[h] = rki_v4_and(rki_v4_gt(len2, zero), rki_v4_lt(len2, rki_v4_set1(INFINITY)));
		inv[h] = rki_v4_div(one, rki_v4_sqrt(len2));
		ok_all &= rki_v4_mask_bits(ok[h]);
	}
	for (int h = 0; h < nb; h++) {
		if (ok_all == 0xf) {
			rx[h] = rki_v4_mul(rx[h], inv[h]);
			ry[h] = rki_v4_mul(ry[h], inv[h]);
			rz[h] = rki_v4_mul(rz[h], inv[h]);
			rw[h] = rki_v4_mul(rw[h], inv[h]);
		} else {
			rx[h] = rki_v4_select(ok[h], rki_v4_mul(rx[h], inv[h]), zero);
			ry[h] = rki_v4_select(ok[h], rki_v4_mul(ry[h], inv[h]), zero);
			rz[h] = rki_v4_select(ok[h], rki_v4_mul(rz[h], inv[h]), zero);
			rw[h] = rki_v4_select(ok[h], rki_v4_mul(rw[h], inv[h]), one);
		}
		rki_v4_transpose(&rx[h], &ry[h], &rz[h], &rw[h]);
		/* stored through the rk_float4 (GCC's object size of &out[i].x is one float) */
		rki_v4_store((float *)(void *)(out + 4 * h + 0), rx[h]);
		rki_v4_store((float *)(void *)(out + 4 * h + 1), ry[h]);
		rki_v4_store((float *)(void *)(out + 4 * h + 2), rz[h]);
		rki_v4_store((float *)(void *)(out + 4 * h + 3), rw[h]);
	}
}

/* Translations or scales of the blocks of joints j0 .. n4 - 1 (n4 a multiple
 * of 4 past j0, n the clip's joint count), block by block (rki_rt_block_f3),
 * CUBIC lanes on the scalar path. */
RKI_RT_INLINE void rki_rt_f3_blocks(const float *times, const rk_runtime_track *tracks, const rk_float3 *values,
	size_t value_count, rk_float3 *out, float t, uint32_t *cur, size_t n, size_t j0, size_t n4)
{
	rki_rt_lanes L;
	for (size_t j = j0; j < n4; j += 4) {
		rki_rt_lanes_find(&L, times, tracks + j, t, cur ? cur + j : NULL);
		rki_rt_block_f3(&L, values, value_count, out + j, j + 4 < n);
		for (int l = 0; L.cubic; l++, L.cubic >>= 1)
			if (L.cubic & 1) out[j + l] = rki_rt_sample_f3(times, &tracks[j + l], values, t, cur ? cur + j + l : NULL);
	}
}

/* Rotation blocks per group: the lanes of a group's blocks are found first,
 * then the group's slerps run side by side (rki_rt_block_quats; a last group
 * of 2 or 3 blocks as a pair and one alone). docs/benchmarks.md, third pass,
 * has the measurements (4 blocks side by side against 2, 1, other groups). */
#define RKI_RT_QUAT_GROUP 4

/* Always inlined into rki_rt_sample_blocked twice, with and without cursors,
 * so that neither copy tests `cur` per track. */
RKI_RT_INLINE void rki_rt_sample_blocks(const rk_runtime_clip *c, float t, uint32_t *cur, rk_local_pose out)
{
	const size_t n = c->joint_count, n4 = n & ~(size_t)3;
	const float *times = c->times;
	/* per group of RKI_RT_QUAT_GROUP blocks: the translations; the rotations'
	 * lanes first, then their slerps side by side; the scales (the lerps
	 * of the group's translations and scales overlap its slerp chains) */
	for (size_t j = 0; j < n4; j += 4 * RKI_RT_QUAT_GROUP) {
		rki_rt_lanes R[RKI_RT_QUAT_GROUP];
		const size_t left = (n4 - j) / 4;
		const int nb = left < RKI_RT_QUAT_GROUP ? (int)left : RKI_RT_QUAT_GROUP;
		rki_rt_f3_blocks(times, c->translation_tracks, c->translation_values, c->translation_value_count, out.translation, t,
			cur, n, j, j + 4 * (size_t)nb);
		for (int h = 0; h < nb; h++)
			rki_rt_lanes_find(&R[h], times, c->rotation_tracks + j + 4 * h, t, cur ? cur + n + j + 4 * h : NULL);
		/* constant block counts, so that each call unrolls its loops over h */
		if (nb == 4) {
			rki_rt_block_quats(R, 4, c->rotation_values, out.rotation + j);
		} else {
			int h = 0;
			if (nb >= 2) {
				rki_rt_block_quats(R, 2, c->rotation_values, out.rotation + j);
				h = 2;
			}
			if (h < nb) rki_rt_block_quats(R + h, 1, c->rotation_values, out.rotation + j + 4 * h);
		}
		for (int h = 0; h < nb; h++) {
			const size_t jb = j + 4 * (size_t)h;
			for (int l = 0; R[h].cubic; l++, R[h].cubic >>= 1)
				if (R[h].cubic & 1) out.rotation[jb + l] = rki_rt_sample_quat(times, &c->rotation_tracks[jb + l],
					c->rotation_values, t, cur ? cur + n + jb + l : NULL);
		}
		rki_rt_f3_blocks(times, c->scale_tracks, c->scale_values, c->scale_value_count, out.scale, t, cur ? cur + 2 * n : NULL, n,
			j, j + 4 * (size_t)nb);
	}
	/* the last n % 4 joints one at a time */
	for (size_t j = n4; j < n; j++) {
		out.translation[j] = rki_rt_sample_f3(times, &c->translation_tracks[j], c->translation_values, t, cur ? cur + j : NULL);
		out.rotation[j] = rki_rt_sample_quat(times, &c->rotation_tracks[j], c->rotation_values, t, cur ? cur + n + j : NULL);
		out.scale[j] = rki_rt_sample_f3(times, &c->scale_tracks[j], c->scale_values, t, cur ? cur + 2 * n + j : NULL);
	}
}

static void rki_rt_sample_blocked(const rk_runtime_clip *c, float t, uint32_t *cur, rk_local_pose out)
{
	if (cur) rki_rt_sample_blocks(c, t, cur, out);
	else rki_rt_sample_blocks(c, t, NULL, out);
}

static void rki_rt_sample_scalar(const rk_runtime_clip *c, float t, uint32_t *cur, rk_local_pose out)
{
	const size_t n = c->joint_count;
	const float *times = c->times;
	for (size_t j = 0; j < n; j++)
		out.translation[j] = rki_rt_sample_f3(times, &c->translation_tracks[j], c->translation_values, t, cur ? cur + j : NULL);
	for (size_t j = 0; j < n; j++)
		out.rotation[j] = rki_rt_sample_quat(times, &c->rotation_tracks[j], c->rotation_values, t, cur ? cur + n + j : NULL);
	for (size_t j = 0; j < n; j++)
		out.scale[j] = rki_rt_sample_f3(times, &c->scale_tracks[j], c->scale_values, t, cur ? cur + 2 * n + j : NULL);
}

rki_rt_path rki_rt_default_path(void)
{
	return RKI_V4_SIMD ? RKI_RT_PATH_BLOCKED : RKI_RT_PATH_SCALAR;
}

const char *rki_rt_vector_name(void)
{
	return RKI_V4_NAME;
}

bool rki_sample_run_path(const rk_sample_job *job, rki_rt_path path)
{
	if (!rk_sample_validate(job, NULL)) return false;
	const rk_runtime_clip *c = job->clip;
	const size_t n = c->joint_count;
	const float t = (float)rki_rt_wrap(job->time, c->duration, job->playback);
	uint32_t *cur = NULL;
	if (job->context) {
		rk_sample_context *ctx = job->context;
		cur = ctx->cursors;
		if (ctx->clip_ != c) {
			size_t need = rk_sample_context_size(c);
			for (size_t i = 0; i < need; i++) cur[i] = 0;
			ctx->clip_ = c;
		}
	}
	if (path == RKI_RT_PATH_DEFAULT) path = rki_rt_default_path();
	if (path == RKI_RT_PATH_BLOCKED) rki_rt_sample_blocked(c, t, cur, job->output);
	else rki_rt_sample_scalar(c, t, cur, job->output);
	if (job->morph_weights) {
		const float *times = c->times;
		for (size_t m = 0; m < c->morph_track_count; m++) {
			const rk_morph_track *mt = &c->morph_tracks[m];
			rki_rt_sample_floats(times, &mt->keys, c->morph_values, mt->weight_count, t, cur ? cur + 3 * n + m : NULL,
				job->morph_weights + mt->weight_offset);
		}
	}
	return true;
}

bool rk_sample_run(const rk_sample_job *job)
{
	return rki_sample_run_path(job, RKI_RT_PATH_DEFAULT);
}
