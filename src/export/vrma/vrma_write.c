/*
 * src/export/vrma/vrma_write.c - VRM Animation writer (include/rigkit/vrma.h).
 *
 * One pass: the humanoid bones' rest (static world matrices) and their
 * evaluated world rotations at every frame (rk_pose_eval_job), in glTF space
 * with scale taken out, become local TRS / rotation keys relative to the
 * humanoid parent; then the JSON (rigkit/json.h) and the BIN chunk are put
 * into one GLB. Memory: the pose (rk_pose_memory_size), frames x bones
 * quaternions and the output; all malloc'd and freed before return.
 */
#include "core/internal.h"
#include "rigkit/anim.h"
#include "rigkit/json.h"
#include "rigkit/vrma.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RKI_VRMA_MAX_FRAMES 1000000
#define RKI_VRMA_PI 3.14159265358979323846

typedef struct rki_vrma {
	const rk_scene *scene;
	rk_vrma_write_opts opts;
	rk_error *err;
	size_t warnings;
	rk_humanoid humanoid;
	const rk_anim_clip *clip;
	rk_mat4 space;                    /* scene world -> VRMA world (glTF metres, facing +Z) */
	size_t bones;                     /* written bones */
	int bone_of[RK_HUMANOID_BONE_COUNT];   /* rk_humanoid_bone -> written index, -1 */
	int parent[RK_HUMANOID_BONE_COUNT];    /* written index -> written parent, -1 for hips */
	rk_humanoid_bone which[RK_HUMANOID_BONE_COUNT]; /* written index -> bone */
	size_t frames;
	double duration;
} rki_vrma;

static void rki_vrma_warn(rki_vrma *v, const char *fmt, ...) RKI_PRINTF(2, 3);

static void rki_vrma_warn(rki_vrma *v, const char *fmt, ...)
{
	char msg[RK_ERROR_TEXT_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	v->warnings++;
	if (!v->opts.warning) return;
	rk_warning w = { msg, UINT64_MAX, "", 1 };
	v->opts.warning(v->opts.warning_user, &w);
}

static bool rki_vrma_clip_tracks(const rk_anim_clip *c)
{
	for (size_t l = 0; l < c->layer_count; l++)
		if (c->layers[l].track_count) return true;
	return false;
}

static bool rki_vrma_is_vrm0(const rk_scene *s)
{
	for (size_t i = 0; i < s->extensions.count; i++)
		if (s->extensions.data[i].owner == RK_EXT_OWNER_SCENE && s->extensions.data[i].name
			&& strcmp(s->extensions.data[i].name, "VRM") == 0)
			return true;
	return false;
}

static bool rki_vrma_setup(rki_vrma *v)
{
	const rk_scene *s = v->scene;
	if (v->opts.humanoid) {
		v->humanoid = *v->opts.humanoid;
		if (!rk_humanoid_validate(&v->humanoid, s, v->err)) return false;
	} else if (!rk_humanoid_detect(s, &v->humanoid, v->err)) {
		return false;
	}
	v->clip = v->opts.clip;
	if (v->clip) {
		uintptr_t p = (uintptr_t)v->clip, b = (uintptr_t)s->clips.data;
		if (!s->clips.data || p < b || p >= b + s->clips.count * sizeof(rk_anim_clip) || (p - b) % sizeof(rk_anim_clip)) {
			rki_error_set(v->err, RK_ERROR_INVALID_ARGUMENT, "VRMA writer: the clip is not a clip of this scene");
			return false;
		}
	} else {
		for (size_t i = 0; i < s->clips.count && !v->clip; i++)
			if (rki_vrma_clip_tracks(&s->clips.data[i])) v->clip = &s->clips.data[i];
		if (!v->clip) {
			rki_error_set(v->err, RK_ERROR_INVALID_ARGUMENT, "VRMA writer: the scene has no animation clip with tracks");
			return false;
		}
	}
	double fps = v->opts.fps;
	if (fps == 0.0) fps = s->settings.frame_rate > 0.0 && isfinite(s->settings.frame_rate) ? s->settings.frame_rate : 30.0;
	if (!(fps > 0.0) || !isfinite(fps) || fps > 1e4) {
		rki_error_set(v->err, RK_ERROR_INVALID_ARGUMENT, "VRMA writer: fps must be in (0, 10000], got %g", fps);
		return false;
	}
	v->opts.fps = fps;
	double d = v->clip->time_end - v->clip->time_begin;
	v->duration = d > 0.0 && isfinite(d) ? d : 0.0;
	double n = floor(v->duration * fps + 1e-6);
	if (n + 2.0 > (double)RKI_VRMA_MAX_FRAMES) {
		rki_error_set(v->err, RK_ERROR_LIMIT, "VRMA writer: %.0f frames (%g s at %g fps), more than %d", n + 1.0, v->duration,
			fps, RKI_VRMA_MAX_FRAMES);
		return false;
	}
	v->frames = (size_t)n + 1;
	if ((double)(v->frames - 1) / fps < v->duration - 1e-9) v->frames++; /* the end, off the grid */

	/* space: axes and unit as the glTF writer converts them, then VRM 0.x's half turn */
	rk_mat4 c = rk_mat4_identity();
	if (rk_axes_valid(s->settings.axes)) c = rk_axes_conversion(s->settings.axes, RK_AXES_RIGHT_HANDED_Y_UP);
	double u = s->settings.unit_meters;
	if (!(u > 0.0) || !isfinite(u)) u = 1.0;
	c = rk_mat4_mul(rk_mat4_scaling((rk_vec3){ u, u, u }), c);
	if (rki_vrma_is_vrm0(s)) c = rk_mat4_mul(rk_mat4_rotation(rk_quat_axis_angle((rk_vec3){ 0, 1, 0 }, RKI_VRMA_PI)), c);
	v->space = c;

	v->bones = 0;
	for (int b = 0; b < RK_HUMANOID_BONE_COUNT; b++) {
		v->bone_of[b] = -1;
		if (!v->humanoid.bones[b]) continue;
		int p = rk_humanoid_parent(&v->humanoid, (rk_humanoid_bone)b);
		v->parent[v->bones] = p >= 0 ? v->bone_of[p] : -1;
		v->which[v->bones] = (rk_humanoid_bone)b;
		v->bone_of[b] = (int)v->bones++;
	}
	return true;
}

/* World rotation and position of a node matrix in VRMA space (no scale). */
static void rki_vrma_rigid(const rki_vrma *v, const rk_mat4 *node_to_world, rk_quat *r, rk_vec3 *p)
{
	rk_mat4 m = rk_mat4_mul(v->space, *node_to_world);
	rk_trs t = rk_mat4_decompose(m);
	*r = rk_quat_normalize(t.rotation);
	*p = t.translation;
}

static rk_quat rki_vrma_relative(rk_quat parent, rk_quat child)
{
	return rk_quat_normalize(rk_quat_mul(rk_quat_conjugate(parent), child));
}

/* Rest local TRS (rest_r, rest_t per written bone) and the keys: rot[f * bones
 * + i], hips[f]. */
static bool rki_vrma_sample(rki_vrma *v, rk_quat *rest_r, rk_vec3 *rest_t, rk_quat *rot, rk_vec3 *hips)
{
	const rk_scene *s = v->scene;
	size_t nb = v->bones;
	rk_quat wr[RK_HUMANOID_BONE_COUNT];
	rk_vec3 wp[RK_HUMANOID_BONE_COUNT];
	for (size_t i = 0; i < nb; i++) rki_vrma_rigid(v, &v->humanoid.bones[v->which[i]]->node_to_world, &wr[i], &wp[i]);
	for (size_t i = 0; i < nb; i++) {
		int p = v->parent[i];
		if (p < 0) {
			rest_r[i] = wr[i];
			rest_t[i] = wp[i];
		} else {
			rest_r[i] = rki_vrma_relative(wr[p], wr[i]);
			rk_vec3 d = { wp[i].x - wp[p].x, wp[i].y - wp[p].y, wp[i].z - wp[p].z };
			rest_t[i] = rk_quat_rotate(rk_quat_conjugate(wr[p]), d);
		}
	}
	/* the T-pose VRMA players assume */
	for (int side = 0; side < 2; side++) {
		int ua = v->bone_of[side ? RK_HUMANOID_RIGHT_UPPER_ARM : RK_HUMANOID_LEFT_UPPER_ARM];
		int la = v->bone_of[side ? RK_HUMANOID_RIGHT_LOWER_ARM : RK_HUMANOID_LEFT_LOWER_ARM];
		if (ua < 0 || la < 0) continue;
		rk_vec3 d = { wp[la].x - wp[ua].x, wp[la].y - wp[ua].y, wp[la].z - wp[ua].z };
		double len = sqrt(d.x * d.x + d.y * d.y + d.z * d.z);
		double deg = len > 0.0 ? asin(fabs(d.y) / len) * 180.0 / RKI_VRMA_PI : 0.0;
		if (deg > 20.0) {
			rki_vrma_warn(v, "VRMA: the rest pose is not a T-pose (the %s upper arm points %.0f degrees from the horizontal); "
				"VRM Animation players assume a T-pose rest", side ? "right" : "left", deg);
			break;
		}
	}

	size_t bytes = rk_pose_memory_size(s);
	void *mem = malloc(bytes ? bytes : 1);
	if (!mem) {
		rki_error_set(v->err, RK_ERROR_OUT_OF_MEMORY, "VRMA writer: out of memory (pose)");
		return false;
	}
	rk_pose pose;
	if (!rk_pose_init(&pose, s, mem, bytes)) {
		free(mem);
		rki_error_set(v->err, RK_ERROR_OUT_OF_MEMORY, "VRMA writer: pose memory");
		return false;
	}
	rk_pose_eval_job job;
	memset(&job, 0, sizeof(job));
	job.scene = s;
	job.clip = v->clip;
	job.pose = &pose;
	job.time = v->clip->time_begin;
	if (!rk_pose_eval_validate(&job, v->err)) {
		free(mem);
		return false;
	}
	for (size_t f = 0; f < v->frames; f++) {
		double t = f + 1 == v->frames ? v->duration : (double)f / v->opts.fps;
		job.time = v->clip->time_begin + t;
		rk_pose_eval_run(&job);
		for (size_t i = 0; i < nb; i++)
			rki_vrma_rigid(v, &pose.node_to_world[v->humanoid.bones[v->which[i]]->index], &wr[i], &wp[i]);
		hips[f] = wp[0];
		for (size_t i = 0; i < nb; i++) {
			int p = v->parent[i];
			rk_quat q = p < 0 ? wr[i] : rki_vrma_relative(wr[p], wr[i]);
			if (f > 0 && rk_quat_dot(q, rot[(f - 1) * nb + i]) < 0.0) q = (rk_quat){ -q.x, -q.y, -q.z, -q.w };
			rot[f * nb + i] = q;
		}
	}
	free(mem);
	return true;
}

static void rki_vrma_put_u32(unsigned char *p, uint32_t x)
{
	p[0] = (unsigned char)x;
	p[1] = (unsigned char)(x >> 8);
	p[2] = (unsigned char)(x >> 16);
	p[3] = (unsigned char)(x >> 24);
}

static void rki_vrma_put_f32(unsigned char *p, double x)
{
	float f = isfinite(x) ? (float)x : 0.0f;
	uint32_t u;
	memcpy(&u, &f, sizeof(u));
	rki_vrma_put_u32(p, u);
}

static void rki_vrma_json(const rki_vrma *v, rk_json_writer *j, const rk_quat *rest_r, const rk_vec3 *rest_t, size_t bin_size)
{
	size_t nb = v->bones, nf = v->frames;
	rk_json_object_begin(j, NULL);
	rk_json_object_begin(j, "asset");
	rk_json_string(j, "generator", v->opts.generator);
	rk_json_string(j, "version", "2.0");
	rk_json_object_end(j);
	rk_json_array_begin(j, "extensionsUsed");
	rk_json_string(j, NULL, "VRMC_vrm_animation");
	rk_json_array_end(j);
	rk_json_object_begin(j, "extensions");
	rk_json_object_begin(j, "VRMC_vrm_animation");
	rk_json_string(j, "specVersion", "1.0");
	rk_json_object_begin(j, "humanoid");
	rk_json_object_begin(j, "humanBones");
	for (size_t i = 0; i < nb; i++) {
		rk_json_object_begin(j, rk_humanoid_bone_name(v->which[i]));
		rk_json_uint(j, "node", i);
		rk_json_object_end(j);
	}
	rk_json_object_end(j);
	rk_json_object_end(j);
	rk_json_object_end(j);
	rk_json_object_end(j);
	rk_json_uint(j, "scene", 0);
	rk_json_array_begin(j, "scenes");
	rk_json_object_begin(j, NULL);
	rk_json_array_begin(j, "nodes");
	rk_json_uint(j, NULL, 0);
	rk_json_array_end(j);
	rk_json_object_end(j);
	rk_json_array_end(j);

	rk_json_array_begin(j, "nodes");
	for (size_t i = 0; i < nb; i++) {
		const rk_node *n = v->humanoid.bones[v->which[i]];
		rk_json_object_begin(j, NULL);
		rk_json_string(j, "name", n->name && n->name[0] ? n->name : rk_humanoid_bone_name(v->which[i]));
		size_t kids = 0;
		for (size_t c = i + 1; c < nb; c++) kids += v->parent[c] == (int)i;
		if (kids) {
			rk_json_array_begin(j, "children");
			for (size_t c = i + 1; c < nb; c++)
				if (v->parent[c] == (int)i) rk_json_uint(j, NULL, c);
			rk_json_array_end(j);
		}
		rk_json_vec3(j, "translation", rest_t[i]);
		rk_json_quat(j, "rotation", rest_r[i]);
		rk_json_object_end(j);
	}
	rk_json_array_end(j);

	/* accessors: 0 times, 1 hips translation, 2 + i rotations of bone i */
	rk_json_array_begin(j, "animations");
	rk_json_object_begin(j, NULL);
	rk_json_string(j, "name", v->clip->name ? v->clip->name : "");
	rk_json_array_begin(j, "samplers");
	for (size_t k = 0; k < nb + 1; k++) {
		rk_json_object_begin(j, NULL);
		rk_json_uint(j, "input", 0);
		rk_json_uint(j, "output", k + 1);
		rk_json_string(j, "interpolation", "LINEAR");
		rk_json_object_end(j);
	}
	rk_json_array_end(j);
	rk_json_array_begin(j, "channels");
	for (size_t k = 0; k < nb + 1; k++) {
		rk_json_object_begin(j, NULL);
		rk_json_uint(j, "sampler", k);
		rk_json_object_begin(j, "target");
		rk_json_uint(j, "node", k == 0 ? 0 : k - 1);
		rk_json_string(j, "path", k == 0 ? "translation" : "rotation");
		rk_json_object_end(j);
		rk_json_object_end(j);
	}
	rk_json_array_end(j);
	rk_json_object_end(j);
	rk_json_array_end(j);

	rk_json_array_begin(j, "accessors");
	size_t offset = 0;
	for (size_t k = 0; k < nb + 2; k++) {
		rk_json_object_begin(j, NULL);
		rk_json_uint(j, "bufferView", k);
		rk_json_uint(j, "componentType", 5126);
		rk_json_uint(j, "count", nf);
		rk_json_string(j, "type", k == 0 ? "SCALAR" : k == 1 ? "VEC3" : "VEC4");
		if (k == 0) {
			double lo = 0.0, hi = (double)(float)v->duration;
			rk_json_numbers(j, "min", &lo, 1);
			rk_json_numbers(j, "max", &hi, 1);
		}
		rk_json_object_end(j);
	}
	rk_json_array_end(j);
	rk_json_array_begin(j, "bufferViews");
	for (size_t k = 0; k < nb + 2; k++) {
		size_t len = nf * 4 * (k == 0 ? 1 : k == 1 ? 3 : 4);
		rk_json_object_begin(j, NULL);
		rk_json_uint(j, "buffer", 0);
		if (offset) rk_json_uint(j, "byteOffset", offset);
		rk_json_uint(j, "byteLength", len);
		rk_json_object_end(j);
		offset += len;
	}
	rk_json_array_end(j);
	rk_json_array_begin(j, "buffers");
	rk_json_object_begin(j, NULL);
	rk_json_uint(j, "byteLength", bin_size);
	rk_json_object_end(j);
	rk_json_array_end(j);
	rk_json_object_end(j);
}

/* The GLB: JSON chunk (space-padded) and BIN chunk (the keys). */
static bool rki_vrma_build(rki_vrma *v, const rk_quat *rest_r, const rk_vec3 *rest_t, const rk_quat *rot, const rk_vec3 *hips,
	void **out_data, size_t *out_size)
{
	size_t nb = v->bones, nf = v->frames;
	size_t bin_size = nf * 4 * (1 + 3 + 4 * nb); /* frames <= 1e6, bones <= 55: no overflow */
	rk_json_writer j;
	rk_json_writer_init(&j, RK_JSON_SHORTEST | RK_JSON_NONFINITE_ZERO);
	rki_vrma_json(v, &j, rest_r, rest_t, bin_size);
	size_t json_len = 0;
	char *json = rk_json_writer_finish(&j, &json_len);
	if (!json) {
		rk_error_code code = rk_json_writer_error(&j);
		rk_json_writer_free(&j);
		rki_error_set(v->err, code == RK_ERROR_LIMIT ? RK_ERROR_LIMIT : RK_ERROR_OUT_OF_MEMORY, "VRMA writer: JSON failed");
		return false;
	}
	size_t json_pad = (4 - json_len % 4) % 4;
	size_t total = 12 + 8 + json_len + json_pad + 8 + bin_size;
	if (total > 0xFFFFFFFFu) {
		rk_json_free_text(NULL, json, json_len);
		rki_error_set(v->err, RK_ERROR_LIMIT, "VRMA writer: %zu bytes, more than a GLB holds", total);
		return false;
	}
	unsigned char *out = (unsigned char *)malloc(total);
	if (!out) {
		rk_json_free_text(NULL, json, json_len);
		rki_error_set(v->err, RK_ERROR_OUT_OF_MEMORY, "VRMA writer: out of memory (%zu bytes)", total);
		return false;
	}
	memcpy(out, "glTF", 4);
	rki_vrma_put_u32(out + 4, 2);
	rki_vrma_put_u32(out + 8, (uint32_t)total);
	rki_vrma_put_u32(out + 12, (uint32_t)(json_len + json_pad));
	rki_vrma_put_u32(out + 16, 0x4E4F534Au);
	memcpy(out + 20, json, json_len);
	memset(out + 20 + json_len, ' ', json_pad);
	rk_json_free_text(NULL, json, json_len);
	unsigned char *b = out + 20 + json_len + json_pad;
	rki_vrma_put_u32(b, (uint32_t)bin_size);
	rki_vrma_put_u32(b + 4, 0x004E4942u);
	b += 8;
	for (size_t f = 0; f < nf; f++, b += 4) rki_vrma_put_f32(b, f + 1 == nf ? v->duration : (double)f / v->opts.fps);
	for (size_t f = 0; f < nf; f++, b += 12) {
		rki_vrma_put_f32(b, hips[f].x);
		rki_vrma_put_f32(b + 4, hips[f].y);
		rki_vrma_put_f32(b + 8, hips[f].z);
	}
	for (size_t i = 0; i < nb; i++) {
		for (size_t f = 0; f < nf; f++, b += 16) {
			const rk_quat *q = &rot[f * nb + i];
			rki_vrma_put_f32(b, q->x);
			rki_vrma_put_f32(b + 4, q->y);
			rki_vrma_put_f32(b + 8, q->z);
			rki_vrma_put_f32(b + 12, q->w);
		}
	}
	*out_data = out;
	*out_size = total;
	return true;
}

bool rk_vrma_write_memory(const rk_scene *scene, const rk_vrma_write_opts *opts, void **out_data, size_t *out_size,
	rk_error *err)
{
	if (out_data) *out_data = NULL;
	if (out_size) *out_size = 0;
	rki_error_clear(err);
	if (!scene || !out_data || !out_size || !scene->nodes.count) {
		rki_error_set(err, RK_ERROR_INVALID_ARGUMENT, "rk_vrma_write: scene (with nodes) and outputs are required");
		return false;
	}
	rki_vrma v;
	memset(&v, 0, sizeof(v));
	v.scene = scene;
	if (opts) v.opts = *opts;
	if (!v.opts.generator) v.opts.generator = "rigkit " RK_VERSION_STRING;
	v.err = err;
	if (!rki_vrma_setup(&v)) return false;
	size_t nb = v.bones, nf = v.frames;
	rk_quat *rot = (rk_quat *)calloc(nf * nb + 1, sizeof(rk_quat));
	rk_vec3 *hips = (rk_vec3 *)calloc(nf, sizeof(rk_vec3));
	rk_quat rest_r[RK_HUMANOID_BONE_COUNT];
	rk_vec3 rest_t[RK_HUMANOID_BONE_COUNT];
	bool ok = rot && hips;
	if (!ok) rki_error_set(err, RK_ERROR_OUT_OF_MEMORY, "VRMA writer: out of memory (%zu frames)", nf);
	ok = ok && rki_vrma_sample(&v, rest_r, rest_t, rot, hips);
	ok = ok && rki_vrma_build(&v, rest_r, rest_t, rot, hips, out_data, out_size);
	free(rot);
	free(hips);
	if (ok && v.opts.stats) {
		v.opts.stats->bone_count = nb;
		v.opts.stats->frame_count = nf;
		v.opts.stats->duration = v.duration;
		v.opts.stats->warning_count = v.warnings;
		v.opts.stats->size = *out_size;
	}
	return ok;
}

void rk_vrma_memory_free(void *data)
{
	free(data);
}

bool rk_vrma_write(const rk_scene *scene, const char *path, const rk_vrma_write_opts *opts, rk_error *err)
{
	if (!path) {
		rki_error_set(err, RK_ERROR_INVALID_ARGUMENT, "rk_vrma_write: path is required");
		return false;
	}
	void *data = NULL;
	size_t size = 0;
	if (!rk_vrma_write_memory(scene, opts, &data, &size, err)) return false;
	bool ok = rk_file_write_atomic(path, data, size, err);
	free(data);
	return ok;
}
