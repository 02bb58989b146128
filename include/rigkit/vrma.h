/*
 * rigkit/vrma.h - VRM Animation (.vrma) output: one clip of a humanoid
 * character as a GLB file with the VRMC_vrm_animation 1.0 extension, the
 * format VRM applications exchange motion in (read by @pixiv/three-vrm-
 * animation, UniVRM, the VRM Blender add-on). Reading .vrma needs nothing
 * special: rk_load_file() reads it as glTF and fills scene->hints with its
 * humanoid (docs/vrm.md).
 *
 * WHAT IS WRITTEN
 *   nodes       one per mapped humanoid bone (rk_humanoid order, named as the
 *               scene's node), each the child of the node of its nearest
 *               mapped humanoid ancestor (rk_humanoid_parent); hips is the
 *               scene root. No meshes, skins or materials.
 *   rest        each node's local TRS reproduces the bone's rest world
 *               rotation and position: the scene's static pose (cached
 *               node_to_world) in glTF space (metres, +Y up, the scene's
 *               axes and unit converted as the glTF writer does), with the
 *               scale taken out (unit scale everywhere). A scene that
 *               declares VRM 0.x ("VRM" in scene->extensions) faces -Z: it
 *               is turned 180 degrees about +Y so the animation faces +Z,
 *               as VRM 1.0 and VRMA do.
 *   animation   one glTF animation named as the clip: for every frame
 *               (times from 0 = clip start, every 1 / fps seconds, the
 *               clip end included), a LINEAR rotation track per bone (its
 *               evaluated world rotation relative to its humanoid parent's)
 *               and a LINEAR translation track for the hips (its world
 *               position). Quaternions keep one hemisphere from frame to
 *               frame.
 *   extension   VRMC_vrm_animation {specVersion "1.0", humanoid.humanBones
 *               {bone: {node}}}.
 *   So a player applies to its avatar, per bone, the world rotation the bone
 *   turned by from its rest (VRMC_vrm_animation's rule); played on the same
 *   character (as a VRM) the bones point where rigkit's evaluation points
 *   them (tests/test_vrm_interop.sh checks it with three-vrm-animation).
 *
 * RESTRICTIONS
 *   VRMA players assume the file's rest is a T-pose (VRM's rest): the rest
 *   written is the scene's own, so a character whose rest is not a T-pose
 *   (an A-pose avatar) gives motion relative to that pose; a warning says
 *   so when an upper arm's rest points more than 20 degrees from the
 *   horizontal. No expression or look-at tracks; scale animation is dropped;
 *   one clip per file.
 *
 * THREAD SAFETY
 *   Reads the scene only; any number of writes of one const scene may run
 *   at once. No global state.
 */
#ifndef RIGKIT_VRMA_H
#define RIGKIT_VRMA_H

#include "rigkit/humanoid.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct rk_vrma_write_stats {
	size_t bone_count;            /* humanoid bones written */
	size_t frame_count;           /* keys per track */
	double duration;              /* seconds */
	size_t warning_count;
	size_t size;                  /* bytes of the GLB */
} rk_vrma_write_stats;

/* Zero-initialise; every zero field means its default. */
typedef struct rk_vrma_write_opts {
	const rk_humanoid *humanoid;  /* NULL = rk_humanoid_detect(scene) (the declared map when valid) */
	const rk_anim_clip *clip;     /* a clip of the scene; NULL = the first clip with tracks */
	double fps;                   /* frames per second; 0 = settings.frame_rate, 30 when that is 0 */
	const char *generator;        /* asset.generator; NULL = "rigkit <version>" */
	rk_warning_fn *warning;       /* NULL = warnings only counted (stats.warning_count) */
	void *warning_user;
	rk_vrma_write_stats *stats;   /* NULL = not reported; filled on success */
} rk_vrma_write_opts;

/* Writes `clip` of `scene` as VRM Animation to `path` atomically
 * (rk_file_write_atomic). Returns false with err set: RK_ERROR_INVALID_ARGUMENT
 * (NULL scene or path, no valid humanoid, no clip with tracks, a clip not of
 * this scene, bad fps), RK_ERROR_LIMIT (more than 1e6 frames),
 * RK_ERROR_OUT_OF_MEMORY, RK_ERROR_OUTPUT (the file could not be written;
 * the destination is then untouched). */
bool rk_vrma_write(const rk_scene *scene, const char *path, const rk_vrma_write_opts *opts, rk_error *err);

/* The same GLB in memory: *out_data (malloc'd; free with rk_vrma_memory_free)
 * holds *out_size bytes. On failure *out_data = NULL, *out_size = 0. */
bool rk_vrma_write_memory(const rk_scene *scene, const rk_vrma_write_opts *opts, void **out_data, size_t *out_size,
	rk_error *err);

void rk_vrma_memory_free(void *data);

#ifdef __cplusplus
}
#endif
#endif
