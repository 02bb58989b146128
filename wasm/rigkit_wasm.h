/*
 * wasm/rigkit_wasm.h - the C API of rigkit's WebAssembly module (docs/wasm.md).
 *
 * OVERVIEW
 *   A thin layer over the public API (include/rigkit/) for JavaScript: every
 *   argument is a number, a pointer into the module's memory or a UTF-8
 *   string; every result a pointer the caller frees with the matching
 *   function. wasm/rigkit.mjs wraps it: use that from JS. In C terms:
 *     rkw_status *st = rkw_status_create();
 *     rk_scene *src = rkw_load(fbx, fbx_size, "walk.fbx", st);
 *     rk_scene *dst = rkw_load(glb, glb_size, "avatar.glb", st);
 *     size_t size; char *report;
 *     uint8_t *out = rkw_retarget(src, "mixamo.com", dst, 0, 0, NULL, 0, &size, &report, st);
 *     if (!out) puts(rkw_status_text(st));
 *     rkw_free_glb(out); rkw_free_bytes(report); rkw_free(src); rkw_free(dst);
 *     rkw_status_destroy(st);
 *   The work is the library's (rk_load_memory, rk_demo_scene,
 *   rk_humanoid_detect, rk_retarget, rk_gltf_write_memory) with the same
 *   rules; this layer adds argument marshalling and JSON descriptions.
 *
 * ERRORS
 *   Each call takes an rkw_status (a fixed-size rk_error plus room for its
 *   formatted text): failing calls return NULL (0) and fill it, successful
 *   ones clear it. rkw_status_text() gives "FILE: message (at byte N, node
 *   A/B)" as rk_error_format() does, "" after success. st may be NULL
 *   (failures are then only signalled by the NULL result).
 *
 * MEMORY
 *   Scenes are freed with rkw_free(), GLB bytes with rkw_free_glb(), JSON
 *   strings with rkw_free_bytes(). Limits are explicit (RKW_MEMORY_LIMIT per
 *   load, sample or write) because the library's defaults ("0 = 4 GiB") do
 *   not fit a 32-bit size_t. The module's memory grows on demand up to 2 GiB.
 *
 * THREADS
 *   The module is built without pthreads: the library's helper threads (FBX
 *   array decoding, skinning) cannot start and the calling thread does all
 *   the work, as on a one-core machine. No global state: several module
 *   instances (e.g. one per Web Worker) never interfere; one instance is
 *   used by one thread at a time, as JS does.
 */
#ifndef RIGKIT_WASM_H
#define RIGKIT_WASM_H

#include <rigkit/scene.h>

#include <stddef.h>
#include <stdint.h>

#ifdef __EMSCRIPTEN__
#include <emscripten/emscripten.h>
#define RKW_API EMSCRIPTEN_KEEPALIVE
#else
#define RKW_API
#endif

#define RKW_MEMORY_LIMIT ((size_t)1536 << 20)   /* bytes per load / sample / write (1.5 GiB) */

/* rkw_retarget*() flags */
#define RKW_SKIP_FINGERS 1u   /* rk_retarget_opts.skip_fingers: fingers stay at rest */
#define RKW_FOOT_IK 2u        /* rk_retarget_opts.foot_ik: planted feet stay planted */

typedef struct rkw_status rkw_status;

/* A zeroed status (NULL when out of memory); free with rkw_status_destroy. */
RKW_API rkw_status *rkw_status_create(void);
RKW_API void rkw_status_destroy(rkw_status *st);
/* rk_error_code of the last call with st (RK_OK = 0 after success). */
RKW_API int rkw_status_code(const rkw_status *st);
/* The last call's error as text, "" after success; valid until st is used again. */
RKW_API const char *rkw_status_text(rkw_status *st);

/* rk_version(): "0.1.0". */
RKW_API const char *rkw_version(void);

/* Loads FBX (binary or ASCII), glTF (embedded buffers) or GLB bytes; the
 * format is detected from the bytes, `data` is not retained. `name` (may be
 * NULL) names the input in errors. No unit or axis conversion: the scene is
 * as the file stores it (the GLB writer converts to glTF space). NULL with
 * st on failure (the library's rk_error: code, message, byte offset, FBX
 * node path or JSON pointer). */
RKW_API rk_scene *rkw_load(const void *data, size_t size, const char *name, rkw_status *st);

/* rk_demo_scene(kind): 0 = the Mixamo-style source (T-pose, cm, clips
 * "Idle" and "Walk"), 1 = the Avaturn / Ready Player Me style avatar
 * (A-pose, metres, no clips); include/rigkit/demo.h. NULL with st. */
RKW_API rk_scene *rkw_sample(int kind, rkw_status *st);

/* Frees a scene of rkw_load / rkw_sample. NULL is fine. */
RKW_API void rkw_free(rk_scene *scene);

/* The scene as JSON (malloc'd, rkw_free_bytes; NULL with st on bad
 * arguments or out of memory):
 *   {"format": "FBX"|"glb"|..., "fbx_version": 7400, "ascii": false,
 *    "creator": "...", "axes": {"right": "+X", "up": "+Y", "front": "+Z"},
 *    "unit_meters": 0.01, "frame_rate": 30, "nodes": 68, "joints": 65,
 *    "skins": 1, "materials": 1, "textures": 1, "memory_used": bytes,
 *    "meshes": [{"name", "vertices", "faces"}],
 *    "clips": [{"name", "begin", "end" (seconds), "tracks"}],
 *    "warnings": [{"message", "count"}]} */
RKW_API char *rkw_info_json(const rk_scene *scene, rkw_status *st);

/* rk_humanoid_detect() as JSON (malloc'd, rkw_free_bytes):
 *   {"valid": true, "error": "", "mapped": 54,
 *    "bones": {"hips": "mixamorig:Hips", "spine": "mixamorig:Spine", ...}}
 * with VRM 1.0 bone names, mapped bones only. A scene that is not a
 * humanoid is not a failure: "valid" is false and "error" names the first
 * missing required bone. */
RKW_API char *rkw_humanoid_json(const rk_scene *scene, rkw_status *st);

/* Adds clip `clip_name` of `source` (NULL or "" = its first clip with
 * tracks) to `target`, retargeted by rk_retarget() with detected humanoids
 * (include/rigkit/retarget.h: every mapped bone points where the source's
 * does, hips travel scaled by the hips heights). root: rk_retarget_root (0
 * keep, 1 in-place, 2 lock); fps: key rate in (0, 1000], 0 = the source's;
 * new_name: the new clip's name, NULL or "" = the source clip's; flags:
 * RKW_SKIP_FINGERS | RKW_FOOT_IK. `target` changes: its clip list grows
 * (earlier clip pointers into it become invalid). Returns the report as
 * JSON (malloc'd, rkw_free_bytes):
 *   {"source_clip", "clip", "begin", "end", "mapped_bones", "frames",
 *    "tracks", "source_hips_height", "target_hips_height" (file units),
 *    "max_direction_error" (radians), "max_foot_miss" (hips heights)}
 * NULL with st on failure: unknown clip, not a humanoid (the missing bone is
 * named), bad root/fps, mirrored world, out of memory. */
RKW_API char *rkw_retarget_clip(rk_scene *target, const rk_scene *source, const char *clip_name, int root, double fps,
	const char *new_name, unsigned flags, rkw_status *st);

/* The scene as GLB bytes: rk_gltf_write_memory() with default options (glTF
 * space: metres, +Y up; every clip; textures embedded), the writer of
 * `rigkit convert` and `rigkit retarget`. *out_size receives the byte
 * count. Free with rkw_free_glb(). NULL with st on failure. */
RKW_API uint8_t *rkw_write_glb(const rk_scene *scene, size_t *out_size, rkw_status *st);
RKW_API void rkw_free_glb(uint8_t *data);

/* rkw_retarget_clip() then rkw_write_glb(target): the GLB of the target with
 * the new clip (and the clips it had). *out_report (may be NULL) receives
 * the report JSON (rkw_free_bytes). NULL with st on failure (then nothing is
 * to be freed; the target may already hold the new clip if only writing
 * failed). */
RKW_API uint8_t *rkw_retarget(const rk_scene *source, const char *clip_name, rk_scene *target, int root, double fps,
	const char *new_name, unsigned flags, size_t *out_size, char **out_report, rkw_status *st);

/* Frees JSON strings of this API. NULL is fine. */
RKW_API void rkw_free_bytes(void *p);

#endif
