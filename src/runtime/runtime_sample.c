/* src/runtime/runtime_sample.c - local pose memory, clip checks and the
 * sampling job (see rigkit/runtime.h, TRACK SAMPLING). Never allocates. */
#include "runtime_internal.h"

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

bool rk_sample_run(const rk_sample_job *job)
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
	const float *times = c->times;
	rk_float3 *out_t = job->output.translation;
	rk_float4 *out_r = job->output.rotation;
	rk_float3 *out_s = job->output.scale;
	for (size_t j = 0; j < n; j++)
		out_t[j] = rki_rt_sample_f3(times, &c->translation_tracks[j], c->translation_values, t, cur ? cur + j : NULL);
	for (size_t j = 0; j < n; j++)
		out_r[j] = rki_rt_sample_quat(times, &c->rotation_tracks[j], c->rotation_values, t, cur ? cur + n + j : NULL);
	for (size_t j = 0; j < n; j++)
		out_s[j] = rki_rt_sample_f3(times, &c->scale_tracks[j], c->scale_values, t, cur ? cur + 2 * n + j : NULL);
	if (job->morph_weights) {
		for (size_t m = 0; m < c->morph_track_count; m++) {
			const rk_morph_track *mt = &c->morph_tracks[m];
			rki_rt_sample_floats(times, &mt->keys, c->morph_values, mt->weight_count, t, cur ? cur + 3 * n + m : NULL,
				job->morph_weights + mt->weight_offset);
		}
	}
	return true;
}
