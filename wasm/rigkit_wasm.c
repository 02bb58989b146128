/* wasm/rigkit_wasm.c - the C API of the WebAssembly module: argument
 * marshalling and JSON descriptions over the public API. The contract of
 * every function is in rigkit_wasm.h. */
#include "rigkit_wasm.h"

#include <rigkit/rigkit.h>
#include <rigkit/export.h>
#include <rigkit/retarget.h>
#include <rigkit/demo.h>

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
 * JSON text: rk_json_writer (rigkit/json.h), compact, every control byte as
 * \u00XX; the text is malloc'd (the writer's default allocator), so
 * rkw_free_bytes() frees it.
 * ------------------------------------------------------------------------- */

static void rkw_json_init(rk_json_writer *w)
{
	rk_json_writer_init(w, RK_JSON_ESCAPE_CONTROL_HEX);
}

/* The finished text, or NULL with st set when the writer failed (out of memory). */
static char *rkw_json_finish(rk_json_writer *w, rkw_status *st)
{
	char *text = rk_json_writer_finish(w, NULL);
	if (!text) {
		rk_error_code code = rk_json_writer_error(w);
		rk_json_writer_free(w);
		if (code == RK_ERROR_OUT_OF_MEMORY) rkw_fail(st, code, "out of memory while writing JSON");
		else rkw_fail(st, code, "cannot write JSON: %s", rk_error_code_name(code));
	}
	return text;
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
	rk_json_writer j;
	rkw_json_init(&j);
	rk_json_object_begin(&j, NULL);
	rk_json_string(&j, "format", rk_format_name(s->format));
	rk_json_uint(&j, "fbx_version", s->fbx_version);
	rk_json_bool(&j, "ascii", s->ascii);
	rk_json_string(&j, "creator", s->creator);
	rk_json_object_begin(&j, "axes");
	rk_json_string(&j, "right", rkw_axis_name(s->axes.right));
	rk_json_string(&j, "up", rkw_axis_name(s->axes.up));
	rk_json_string(&j, "front", rkw_axis_name(s->axes.front));
	rk_json_object_end(&j);
	rk_json_number(&j, "unit_meters", s->unit_meters);
	rk_json_number(&j, "frame_rate", s->frame_rate);

	size_t joints = 0;
	for (size_t i = 0; i < scene->nodes.count; i++) joints += scene->nodes.data[i].kind == RK_NODE_JOINT;
	rk_json_uint(&j, "nodes", scene->nodes.count);
	rk_json_uint(&j, "joints", joints);
	rk_json_uint(&j, "skins", scene->skins.count);
	rk_json_uint(&j, "materials", scene->materials.count);
	rk_json_uint(&j, "textures", scene->textures.count);
	rk_json_uint(&j, "memory_used", scene->memory_used);

	rk_json_array_begin(&j, "meshes");
	for (size_t i = 0; i < scene->meshes.count; i++) {
		const rk_mesh *m = &scene->meshes.data[i];
		rk_json_object_begin(&j, NULL);
		rk_json_string(&j, "name", m->name);
		rk_json_uint(&j, "vertices", m->vertex_count);
		rk_json_uint(&j, "faces", m->face_count);
		rk_json_object_end(&j);
	}
	rk_json_array_end(&j);

	rk_json_array_begin(&j, "clips");
	for (size_t i = 0; i < scene->clips.count; i++) {
		const rk_anim_clip *c = &scene->clips.data[i];
		rk_json_object_begin(&j, NULL);
		rk_json_string(&j, "name", c->name);
		rk_json_number(&j, "begin", c->time_begin);
		rk_json_number(&j, "end", c->time_end);
		rk_json_uint(&j, "tracks", rkw_clip_tracks(c));
		rk_json_object_end(&j);
	}
	rk_json_array_end(&j);

	rk_json_array_begin(&j, "warnings");
	for (size_t i = 0; i < scene->warnings.count; i++) {
		const rk_warning *w = &scene->warnings.data[i];
		rk_json_object_begin(&j, NULL);
		rk_json_string(&j, "message", w->message);
		rk_json_uint(&j, "count", w->count);
		rk_json_object_end(&j);
	}
	rk_json_array_end(&j);
	rk_json_object_end(&j);
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
	rk_json_writer j;
	rkw_json_init(&j);
	rk_json_object_begin(&j, NULL);
	rk_json_bool(&j, "valid", valid);
	rk_json_string(&j, "error", valid ? "" : derr.message);
	rk_json_uint(&j, "mapped", mapped);
	rk_json_object_begin(&j, "bones");
	for (int b = 0; b < RK_HUMANOID_BONE_COUNT; b++)
		if (h.bones[b]) rk_json_string(&j, rk_humanoid_bone_name((rk_humanoid_bone)b), h.bones[b]->name);
	rk_json_object_end(&j);
	rk_json_object_end(&j);
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

	rk_json_writer j;
	rkw_json_init(&j);
	rk_json_object_begin(&j, NULL);
	rk_json_string(&j, "source_clip", source_clip);
	rk_json_string(&j, "clip", made->name);
	rk_json_number(&j, "begin", made->time_begin);
	rk_json_number(&j, "end", made->time_end);
	rk_json_uint(&j, "mapped_bones", r.mapped_bones);
	rk_json_uint(&j, "frames", r.frames);
	rk_json_uint(&j, "tracks", r.tracks);
	rk_json_number(&j, "source_hips_height", r.source_hips_height);
	rk_json_number(&j, "target_hips_height", r.target_hips_height);
	rk_json_number(&j, "max_direction_error", r.max_direction_error);
	rk_json_number(&j, "max_foot_miss", r.max_foot_miss);
	rk_json_object_end(&j);
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
