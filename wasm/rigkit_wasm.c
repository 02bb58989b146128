/* wasm/rigkit_wasm.c - the C API of the WebAssembly module: argument
 * marshalling and JSON descriptions over the public API. The contract of
 * every function is in rigkit_wasm.h. */
#include "rigkit_wasm.h"

#include <rigkit/rigkit.h>
#include <rigkit/export.h>
#include <rigkit/retarget.h>
#include <rigkit/demo.h>

#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


/* ---------------------------------------------------------------------------
 * Status
 * ------------------------------------------------------------------------- */

struct rkw_status {
	rk_error err;
	char text[4 * RK_ERROR_TEXT_MAX + 64];
};

RKW_API rkw_status *rkw_status_create(void)
{
	return (rkw_status *)calloc(1, sizeof(rkw_status));
}

RKW_API void rkw_status_destroy(rkw_status *st)
{
	free(st);
}

/* rk_error_code of the last call (RK_OK = 0 after success). */
RKW_API int rkw_status_code(const rkw_status *st)
{
	return st ? (int)st->err.code : 0;
}

/* The last call's error as text, "" after success. Valid until the next call with st. */
RKW_API const char *rkw_status_text(rkw_status *st)
{
	if (!st) return "";
	if (st->err.code == RK_OK) {
		st->text[0] = '\0';
	} else {
		rk_error_format(st->text, sizeof(st->text), &st->err);
	}
	return st->text;
}

static rk_error *rkw_begin(rkw_status *st)
{
	if (!st) return NULL;
	memset(&st->err, 0, sizeof(st->err));
	return &st->err;
}

static void rkw_fail(rkw_status *st, rk_error_code code, const char *fmt, ...)
{
	if (!st) return;
	memset(&st->err, 0, sizeof(st->err));
	st->err.code = code;
	st->err.description = rk_error_code_name(code);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(st->err.message, sizeof(st->err.message), fmt, ap);
	va_end(ap);
}

RKW_API const char *rkw_version(void)
{
	return rk_version();
}

/* ---------------------------------------------------------------------------
 * JSON text (growable, NUL-terminated, malloc'd)
 * ------------------------------------------------------------------------- */

typedef struct rkw_json {
	char *data;
	size_t len, cap;
	bool oom;
} rkw_json;

static void rkw_json_put(rkw_json *j, const char *s, size_t n)
{
	if (j->oom) return;
	if (n + 1 > j->cap - j->len) {
		size_t cap = j->cap ? j->cap : 1024;
		while (n + 1 > cap - j->len) {
			if (cap > SIZE_MAX / 2) { j->oom = true; return; }
			cap *= 2;
		}
		char *p = (char *)realloc(j->data, cap);
		if (!p) { j->oom = true; return; }
		j->data = p;
		j->cap = cap;
	}
	memcpy(j->data + j->len, s, n);
	j->len += n;
	j->data[j->len] = '\0';
}

static void rkw_json_raw(rkw_json *j, const char *s)
{
	rkw_json_put(j, s, strlen(s));
}

static void rkw_json_str(rkw_json *j, const char *s)
{
	rkw_json_put(j, "\"", 1);
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	for (; *p; p++) {
		char esc[8];
		if (*p == '"' || *p == '\\') {
			esc[0] = '\\';
			esc[1] = (char)*p;
			rkw_json_put(j, esc, 2);
		} else if (*p < 0x20) {
			snprintf(esc, sizeof(esc), "\\u%04x", (unsigned)*p);
			rkw_json_put(j, esc, 6);
		} else {
			rkw_json_put(j, (const char *)p, 1);
		}
	}
	rkw_json_put(j, "\"", 1);
}

/* A number ("null" for NaN / infinities, which JSON cannot hold). */
static void rkw_json_num(rkw_json *j, double v)
{
	char buf[40];
	if (!isfinite(v)) {
		rkw_json_raw(j, "null");
		return;
	}
	snprintf(buf, sizeof(buf), "%.17g", v);
	rkw_json_raw(j, buf);
}

static void rkw_json_size(rkw_json *j, size_t v)
{
	char buf[32];
	snprintf(buf, sizeof(buf), "%zu", v);
	rkw_json_raw(j, buf);
}

/* `"key":` */
static void rkw_json_key(rkw_json *j, const char *key)
{
	rkw_json_str(j, key);
	rkw_json_put(j, ":", 1);
}

/* The finished text, or NULL with st set when memory ran out. */
static char *rkw_json_finish(rkw_json *j, rkw_status *st)
{
	if (j->oom || !j->data) {
		free(j->data);
		rkw_fail(st, RK_ERROR_OUT_OF_MEMORY, "out of memory while writing JSON");
		return NULL;
	}
	return j->data;
}

RKW_API void rkw_free_bytes(void *p)
{
	free(p);
}

/* ---------------------------------------------------------------------------
 * Scenes
 * ------------------------------------------------------------------------- */

/* Loads FBX (binary/ASCII), glTF (embedded buffers) or GLB from memory; the
 * format is detected from the bytes. `name` (may be NULL) names the input in
 * errors. No unit or axis conversion (the scene is as the file stores it;
 * the GLB writer converts to glTF space). NULL with st on failure. */
RKW_API rk_scene *rkw_load(const void *data, size_t size, const char *name, rkw_status *st)
{
	rk_load_opts opts;
	memset(&opts, 0, sizeof(opts));
	opts.memory_limit = RKW_MEMORY_LIMIT;
	opts.file_size_limit = RKW_MEMORY_LIMIT;
	opts.filename = name;
	if (!data && size) {
		rkw_fail(st, RK_ERROR_INVALID_ARGUMENT, "rkw_load: NULL data with %zu bytes", size);
		return NULL;
	}
	return rk_load_memory(data, size, &opts, rkw_begin(st));
}

/* rk_demo_scene(kind): 0 = the Mixamo-style source (Idle, Walk), 1 = the
 * Avaturn / Ready Player Me style avatar (include/rigkit/demo.h). */
RKW_API rk_scene *rkw_sample(int kind, rkw_status *st)
{
	rk_demo_opts opts;
	memset(&opts, 0, sizeof(opts));
	opts.memory_limit = RKW_MEMORY_LIMIT;
	return rk_demo_scene((rk_demo_kind)kind, &opts, rkw_begin(st));
}

RKW_API void rkw_free(rk_scene *scene)
{
	rk_scene_free(scene);
}

static const char *rkw_axis_name(rk_axis a)
{
	switch (a) {
	case RK_AXIS_POSITIVE_X: return "+X";
	case RK_AXIS_NEGATIVE_X: return "-X";
	case RK_AXIS_POSITIVE_Y: return "+Y";
	case RK_AXIS_NEGATIVE_Y: return "-Y";
	case RK_AXIS_POSITIVE_Z: return "+Z";
	case RK_AXIS_NEGATIVE_Z: return "-Z";
	default: return "";
	}
}

static size_t rkw_clip_tracks(const rk_anim_clip *c)
{
	size_t n = 0;
	for (size_t l = 0; l < c->layer_count; l++) n += c->layers[l].track_count;
	return n;
}

/* A JSON description of the scene (malloc'd; rkw_free_bytes):
 *   {"format": "FBX"|..., "fbx_version": 7400, "ascii": false, "creator": "...",
 *    "axes": {"right": "+X", "up": "+Y", "front": "+Z"}, "unit_meters": 0.01,
 *    "frame_rate": 30, "nodes": 68, "joints": 65, "skins": 1, "materials": 1,
 *    "textures": 1, "memory_used": bytes,
 *    "meshes": [{"name", "vertices", "faces"}],
 *    "clips": [{"name", "begin", "end", "tracks"}]   (seconds),
 *    "warnings": [{"message", "count"}]} */
RKW_API char *rkw_info_json(const rk_scene *scene, rkw_status *st)
{
	rkw_begin(st);
	if (!scene) {
		rkw_fail(st, RK_ERROR_INVALID_ARGUMENT, "rkw_info_json: NULL scene");
		return NULL;
	}
	const rk_scene_settings *s = &scene->settings;
	rkw_json j = { 0 };
	rkw_json_raw(&j, "{");
	rkw_json_key(&j, "format");
	rkw_json_str(&j, rk_format_name(s->format));
	rkw_json_raw(&j, ",");
	rkw_json_key(&j, "fbx_version");
	rkw_json_size(&j, s->fbx_version);
	rkw_json_raw(&j, ",");
	rkw_json_key(&j, "ascii");
	rkw_json_raw(&j, s->ascii ? "true," : "false,");
	rkw_json_key(&j, "creator");
	rkw_json_str(&j, s->creator);
	rkw_json_raw(&j, ",");
	rkw_json_key(&j, "axes");
	rkw_json_raw(&j, "{");
	rkw_json_key(&j, "right");
	rkw_json_str(&j, rkw_axis_name(s->axes.right));
	rkw_json_raw(&j, ",");
	rkw_json_key(&j, "up");
	rkw_json_str(&j, rkw_axis_name(s->axes.up));
	rkw_json_raw(&j, ",");
	rkw_json_key(&j, "front");
	rkw_json_str(&j, rkw_axis_name(s->axes.front));
	rkw_json_raw(&j, "},");
	rkw_json_key(&j, "unit_meters");
	rkw_json_num(&j, s->unit_meters);
	rkw_json_raw(&j, ",");
	rkw_json_key(&j, "frame_rate");
	rkw_json_num(&j, s->frame_rate);
	rkw_json_raw(&j, ",");

	size_t joints = 0;
	for (size_t i = 0; i < scene->nodes.count; i++) joints += scene->nodes.data[i].kind == RK_NODE_JOINT;
	rkw_json_key(&j, "nodes");
	rkw_json_size(&j, scene->nodes.count);
	rkw_json_raw(&j, ",");
	rkw_json_key(&j, "joints");
	rkw_json_size(&j, joints);
	rkw_json_raw(&j, ",");
	rkw_json_key(&j, "skins");
	rkw_json_size(&j, scene->skins.count);
	rkw_json_raw(&j, ",");
	rkw_json_key(&j, "materials");
	rkw_json_size(&j, scene->materials.count);
	rkw_json_raw(&j, ",");
	rkw_json_key(&j, "textures");
	rkw_json_size(&j, scene->textures.count);
	rkw_json_raw(&j, ",");
	rkw_json_key(&j, "memory_used");
	rkw_json_size(&j, scene->memory_used);
	rkw_json_raw(&j, ",");

	rkw_json_key(&j, "meshes");
	rkw_json_raw(&j, "[");
	for (size_t i = 0; i < scene->meshes.count; i++) {
		const rk_mesh *m = &scene->meshes.data[i];
		rkw_json_raw(&j, i ? ",{" : "{");
		rkw_json_key(&j, "name");
		rkw_json_str(&j, m->name);
		rkw_json_raw(&j, ",");
		rkw_json_key(&j, "vertices");
		rkw_json_size(&j, m->vertex_count);
		rkw_json_raw(&j, ",");
		rkw_json_key(&j, "faces");
		rkw_json_size(&j, m->face_count);
		rkw_json_raw(&j, "}");
	}
	rkw_json_raw(&j, "],");

	rkw_json_key(&j, "clips");
	rkw_json_raw(&j, "[");
	for (size_t i = 0; i < scene->clips.count; i++) {
		const rk_anim_clip *c = &scene->clips.data[i];
		rkw_json_raw(&j, i ? ",{" : "{");
		rkw_json_key(&j, "name");
		rkw_json_str(&j, c->name);
		rkw_json_raw(&j, ",");
		rkw_json_key(&j, "begin");
		rkw_json_num(&j, c->time_begin);
		rkw_json_raw(&j, ",");
		rkw_json_key(&j, "end");
		rkw_json_num(&j, c->time_end);
		rkw_json_raw(&j, ",");
		rkw_json_key(&j, "tracks");
		rkw_json_size(&j, rkw_clip_tracks(c));
		rkw_json_raw(&j, "}");
	}
	rkw_json_raw(&j, "],");

	rkw_json_key(&j, "warnings");
	rkw_json_raw(&j, "[");
	for (size_t i = 0; i < scene->warnings.count; i++) {
		const rk_warning *w = &scene->warnings.data[i];
		rkw_json_raw(&j, i ? ",{" : "{");
		rkw_json_key(&j, "message");
		rkw_json_str(&j, w->message);
		rkw_json_raw(&j, ",");
		rkw_json_key(&j, "count");
		rkw_json_size(&j, w->count);
		rkw_json_raw(&j, "}");
	}
	rkw_json_raw(&j, "]}");
	return rkw_json_finish(&j, st);
}

/* rk_humanoid_detect() as JSON (malloc'd; rkw_free_bytes):
 *   {"valid": true, "error": "", "mapped": 54,
 *    "bones": {"hips": "mixamorig:Hips", "spine": ..., ...}}   (mapped bones only)
 * A scene that is not a humanoid is not a failure: "valid" is false and
 * "error" names the first missing required bone. */
RKW_API char *rkw_humanoid_json(const rk_scene *scene, rkw_status *st)
{
	rkw_begin(st);
	if (!scene) {
		rkw_fail(st, RK_ERROR_INVALID_ARGUMENT, "rkw_humanoid_json: NULL scene");
		return NULL;
	}
	rk_humanoid h;
	rk_error derr;
	memset(&derr, 0, sizeof(derr));
	bool valid = rk_humanoid_detect(scene, &h, &derr);
	size_t mapped = 0;
	for (int b = 0; b < RK_HUMANOID_BONE_COUNT; b++) mapped += h.bones[b] != NULL;
	rkw_json j = { 0 };
	rkw_json_raw(&j, "{");
	rkw_json_key(&j, "valid");
	rkw_json_raw(&j, valid ? "true," : "false,");
	rkw_json_key(&j, "error");
	rkw_json_str(&j, valid ? "" : derr.message);
	rkw_json_raw(&j, ",");
	rkw_json_key(&j, "mapped");
	rkw_json_size(&j, mapped);
	rkw_json_raw(&j, ",");
	rkw_json_key(&j, "bones");
	rkw_json_raw(&j, "{");
	bool first = true;
	for (int b = 0; b < RK_HUMANOID_BONE_COUNT; b++) {
		if (!h.bones[b]) continue;
		if (!first) rkw_json_raw(&j, ",");
		first = false;
		rkw_json_key(&j, rk_humanoid_bone_name((rk_humanoid_bone)b));
		rkw_json_str(&j, h.bones[b]->name);
	}
	rkw_json_raw(&j, "}}");
	return rkw_json_finish(&j, st);
}

/* ---------------------------------------------------------------------------
 * Retargeting and writing
 * ------------------------------------------------------------------------- */

/* The clip named `name`, or for NULL / "" the first clip with tracks. */
static const rk_anim_clip *rkw_pick_clip(const rk_scene *scene, const char *name, rkw_status *st)
{
	if (name && name[0]) {
		const rk_anim_clip *c = rk_scene_find_clip(scene, name);
		if (c) return c;
		char list[RK_ERROR_TEXT_MAX / 2] = "";
		size_t used = 0;
		for (size_t i = 0; i < scene->clips.count && used + 1 < sizeof(list); i++) {
			int n = snprintf(list + used, sizeof(list) - used, "%s'%s'", i ? ", " : "", scene->clips.data[i].name);
			if (n < 0) break;
			used += (size_t)n;
		}
		if (used >= sizeof(list)) used = sizeof(list) - 1;
		list[used] = '\0';
		rkw_fail(st, RK_ERROR_INVALID_ARGUMENT, "the source has no clip named '%s' (its clips: %s)", name,
			scene->clips.count ? list : "none");
		return NULL;
	}
	for (size_t i = 0; i < scene->clips.count; i++)
		if (rkw_clip_tracks(&scene->clips.data[i])) return &scene->clips.data[i];
	rkw_fail(st, RK_ERROR_INVALID_ARGUMENT, "the source has no animation clip to retarget");
	return NULL;
}

/* Adds clip `clip_name` of `source` (NULL / "" = its first clip with tracks)
 * to `target`, retargeted by rk_retarget() (include/rigkit/retarget.h; the
 * humanoids are detected). root: rk_retarget_root (0 keep, 1 in-place,
 * 2 lock); fps: key rate, 0 = the source's; new_name: the new clip's name,
 * NULL / "" = the source clip's; flags: RKW_SKIP_FINGERS | RKW_FOOT_IK.
 * Returns the report as JSON (malloc'd; rkw_free_bytes):
 *   {"source_clip", "clip", "mapped_bones", "frames", "tracks",
 *    "source_hips_height", "target_hips_height", "max_direction_error" (rad),
 *    "max_foot_miss", "begin", "end"}
 * NULL with st on failure (not a humanoid, unknown clip, out of memory).
 * `target` changes: its clip list grows (see rk_retarget). */
RKW_API char *rkw_retarget_clip(rk_scene *target, const rk_scene *source, const char *clip_name, int root, double fps,
	const char *new_name, unsigned flags, rkw_status *st)
{
	rk_error *err = rkw_begin(st);
	if (!target || !source) {
		rkw_fail(st, RK_ERROR_INVALID_ARGUMENT, "rkw_retarget: NULL %s scene", source ? "target" : "source");
		return NULL;
	}
	if (root < 0 || root > (int)RK_RETARGET_ROOT_LOCK) {
		rkw_fail(st, RK_ERROR_INVALID_ARGUMENT, "rkw_retarget: root mode %d (expected 0 keep, 1 in-place, 2 lock)", root);
		return NULL;
	}
	if (!(fps >= 0 && fps <= 1000)) {
		rkw_fail(st, RK_ERROR_INVALID_ARGUMENT, "rkw_retarget: fps %g is not in [0, 1000] (0 = the source's)", fps);
		return NULL;
	}
	const rk_anim_clip *clip = rkw_pick_clip(source, clip_name, st);
	if (!clip) return NULL;
	rk_retarget_opts opts;
	memset(&opts, 0, sizeof(opts));
	opts.fps = fps;
	opts.root = (rk_retarget_root)root;
	opts.name = new_name && new_name[0] ? new_name : NULL;
	opts.skip_fingers = (flags & RKW_SKIP_FINGERS) != 0;
	opts.foot_ik = (flags & RKW_FOOT_IK) != 0;
	rk_retarget_report r;
	memset(&r, 0, sizeof(r));
	const char *source_clip = clip->name;
	const rk_anim_clip *made = rk_retarget(target, source, clip, &opts, &r, err);
	if (!made) return NULL;

	rkw_json j = { 0 };
	rkw_json_raw(&j, "{");
	rkw_json_key(&j, "source_clip");
	rkw_json_str(&j, source_clip);
	rkw_json_raw(&j, ",");
	rkw_json_key(&j, "clip");
	rkw_json_str(&j, made->name);
	rkw_json_raw(&j, ",");
	rkw_json_key(&j, "begin");
	rkw_json_num(&j, made->time_begin);
	rkw_json_raw(&j, ",");
	rkw_json_key(&j, "end");
	rkw_json_num(&j, made->time_end);
	rkw_json_raw(&j, ",");
	rkw_json_key(&j, "mapped_bones");
	rkw_json_size(&j, r.mapped_bones);
	rkw_json_raw(&j, ",");
	rkw_json_key(&j, "frames");
	rkw_json_size(&j, r.frames);
	rkw_json_raw(&j, ",");
	rkw_json_key(&j, "tracks");
	rkw_json_size(&j, r.tracks);
	rkw_json_raw(&j, ",");
	rkw_json_key(&j, "source_hips_height");
	rkw_json_num(&j, r.source_hips_height);
	rkw_json_raw(&j, ",");
	rkw_json_key(&j, "target_hips_height");
	rkw_json_num(&j, r.target_hips_height);
	rkw_json_raw(&j, ",");
	rkw_json_key(&j, "max_direction_error");
	rkw_json_num(&j, r.max_direction_error);
	rkw_json_raw(&j, ",");
	rkw_json_key(&j, "max_foot_miss");
	rkw_json_num(&j, r.max_foot_miss);
	rkw_json_raw(&j, "}");
	return rkw_json_finish(&j, st);
}

/* The scene as GLB bytes (rk_gltf_write_memory with default options: glTF
 * space, every clip, textures embedded). *out_size gets the byte count.
 * Free with rkw_free_glb(). NULL with st on failure. */
RKW_API uint8_t *rkw_write_glb(const rk_scene *scene, size_t *out_size, rkw_status *st)
{
	rk_error *err = rkw_begin(st);
	if (out_size) *out_size = 0;
	if (!scene || !out_size) {
		rkw_fail(st, RK_ERROR_INVALID_ARGUMENT, "rkw_write_glb: NULL %s", scene ? "out_size" : "scene");
		return NULL;
	}
	rk_gltf_write_opts wo;
	memset(&wo, 0, sizeof(wo));
	wo.container = RK_GLTF_CONTAINER_GLB;
	wo.memory_limit = RKW_MEMORY_LIMIT;
	void *data = NULL;
	if (!rk_gltf_write_memory(scene, &wo, &data, out_size, err)) return NULL;
	return (uint8_t *)data;
}

RKW_API void rkw_free_glb(uint8_t *data)
{
	rk_gltf_memory_free(data);
}

/* rkw_retarget_clip() then rkw_write_glb(target): the GLB of the target with
 * the new clip (and the clips it had). *out_report (may be NULL) receives
 * the report JSON (rkw_free_bytes). NULL with st on failure (nothing to free). */
RKW_API uint8_t *rkw_retarget(const rk_scene *source, const char *clip_name, rk_scene *target, int root, double fps,
	const char *new_name, unsigned flags, size_t *out_size, char **out_report, rkw_status *st)
{
	if (out_report) *out_report = NULL;
	if (out_size) *out_size = 0;
	char *report = rkw_retarget_clip(target, source, clip_name, root, fps, new_name, flags, st);
	if (!report) return NULL;
	uint8_t *glb = rkw_write_glb(target, out_size, st);
	if (!glb || !out_report) {
		free(report);
	} else {
		*out_report = report;
	}
	return glb;
}
