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
 *   rest        VRM Animation's rest is VRM's T-pose (facing +Z, arms,
 *               hands and fingers along +-X, thumbs 45 degrees between X
 *               and Z, legs straight down). From the scene's static pose
 *               (cached node_to_world) in glTF space (metres, +Y up, the
 *               scene's axes and unit converted as the glTF writer does,
 *               scale taken out), turned about +Y to face +Z: VRM 1.0 and
 *               VRMA scenes as they are (they face +Z), VRM 0.x ones half a
 *               turn (they face -Z), any other scene by the turn that takes
 *               its left (left minus right upper leg, else upper arm, made
 *               horizontal) to +X:
 *                 RK_VRMA_REST_SCENE  that pose as it is;
 *                 RK_VRMA_REST_TPOSE  that pose made the T-pose: for each
 *                   bone the T-pose fixes (upper/lower arm, hand, finger and
 *                   thumb segments but the distal ones, upper/lower leg),
 *                   the shortest rotation turning its direction (to its
 *                   humanoid child) into the T-pose direction, carried to
 *                   its subtree (lengths and twists stay);
 *                 RK_VRMA_REST_AUTO (default) SCENE when the scene declares
 *                   VRM 1.0 / 0.x / VRMA (its stored pose is VRM's T-pose by
 *                   definition, and players measure from it), else TPOSE.
 *               Each node's local TRS reproduces that rest's world rotation
 *               and position.
 *   animation   one glTF animation named as the clip: for every frame
 *               (times from 0 = clip start, every 1 / fps seconds, the
 *               clip end included), a LINEAR rotation track per bone (its
 *               evaluated world rotation relative to its humanoid parent's)
 *               and a LINEAR translation track for the hips (its world
 *               position). Quaternions keep one hemisphere from frame to
 *               frame.
 *   extension   VRMC_vrm_animation {specVersion "1.0", humanoid.humanBones
 *               {bone: {node}}, expressions (below)}.
 *   EXPRESSIONS When opts.expression_source (default: the scene) declares
 *               VRMC_vrm_animation.expressions (a .vrma read by rk_load_file)
 *               and its clip animates an expression node's translation: one
 *               node per such expression (after the bones, a scene root,
 *               named as the source's node), a LINEAR translation track
 *               (w, 0, 0) at the frames above, w = the source node's
 *               translation x at the source clip's begin + the frame time,
 *               and expressions.preset / .custom {name: {node}} as the source
 *               groups them. So `rigkit convert a.vrma b.vrma` and a
 *               retarget of a .vrma written as .vrma keep the expressions.
 *   The keys hold the evaluated world rotations whatever the rest, so the
 *   file's animated bones point where the scene's do. A player applies to
 *   its avatar, per bone, the world rotation the bone turned by from the
 *   file's rest (VRMC_vrm_animation's rule); a VRM avatar's own retarget,
 *   written with its own rest, plays back exactly as rigkit evaluates it
 *   (tests/test_vrm_interop.sh checks it with three-vrm-animation).
 *
 * RESTRICTIONS
 *   The stored pose written (SCENE, or AUTO on a VRM) on a character whose
 *   rest is not a T-pose gives motion relative to that pose (warned when an
 *   upper arm's rest points more than 20 degrees from the horizontal). The T-pose fixes bone
 *   directions, not palm roll or the spine, shoulders, feet and head. No
 *   look-at track; expressions only from a VRM Animation source (not from
 *   an avatar's morph weights); scale animation is dropped; one clip per
 *   file.
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
	size_t expression_count;      /* expressions written (EXPRESSIONS) */
} rk_vrma_write_stats;

typedef enum rk_vrma_rest {
	RK_VRMA_REST_AUTO = 0,        /* SCENE for VRM / VRMA scenes, else TPOSE */
	RK_VRMA_REST_SCENE,           /* the scene's static pose */
	RK_VRMA_REST_TPOSE            /* the static pose turned into VRM's T-pose */
} rk_vrma_rest;

/* Zero-initialise; every zero field means its default. */
typedef struct rk_vrma_write_opts {
	const rk_humanoid *humanoid;  /* NULL = rk_humanoid_detect(scene) (the declared map when valid) */
	const rk_anim_clip *clip;     /* a clip of the scene; NULL = the first clip with tracks */
	double fps;                   /* frames per second; 0 = settings.frame_rate, 30 when that is 0 */
	rk_vrma_rest rest;            /* the rest written (see WHAT IS WRITTEN); default AUTO */
	const char *generator;        /* asset.generator; NULL = "rigkit <version>" */
	rk_allocator allocator;       /* zero = malloc/free (the output too: see rk_vrma_memory_free) */
	size_t memory_limit;          /* bytes of temporaries + output; 0 = 4 GiB (1.5 GiB with 32-bit size_t) */
	rk_warning_fn *warning;       /* NULL = warnings only counted (stats.warning_count) */
	void *warning_user;
	rk_vrma_write_stats *stats;   /* NULL = not reported; filled on success */
	bool force;                   /* default false: a symbolic link or special file at the output
	                                 path is refused (rk_file_write_opts.force) */
	const rk_scene *expression_source;   /* the VRM Animation whose expressions are written (EXPRESSIONS);
	                                        NULL = the scene itself */
	const rk_anim_clip *expression_clip; /* a clip of expression_source sampled for them; NULL = `clip`
	                                        when the source is the scene, else the source's first clip
	                                        with tracks */
} rk_vrma_write_opts;

/* Writes `clip` of `scene` as VRM Animation to `path` atomically
 * (rk_file_write_atomic). opts may be NULL (defaults). Returns false with err set: RK_ERROR_INVALID_ARGUMENT
 * (NULL scene or path, no valid humanoid, no clip with tracks, a clip not of
 * this scene, bad fps, unknown rest), RK_ERROR_LIMIT (more than 1e6 frames),
 * RK_ERROR_OUT_OF_MEMORY, RK_ERROR_OUTPUT (the file could not be written;
 * the destination is then untouched). */
bool rk_vrma_write(const rk_scene *scene, const char *path, const rk_vrma_write_opts *opts, rk_error *err);

/* The same GLB in memory: *out_data holds *out_size bytes, from
 * opts->allocator; release it with rk_vrma_memory_free (it remembers the
 * allocator). On failure *out_data = NULL, *out_size = 0. RK_ERROR_LIMIT
 * also when memory_limit is exceeded. */
bool rk_vrma_write_memory(const rk_scene *scene, const rk_vrma_write_opts *opts, void **out_data, size_t *out_size,
	rk_error *err);

/* Frees bytes returned by rk_vrma_write_memory(). NULL is fine. */
void rk_vrma_memory_free(void *data);

#ifdef __cplusplus
}
#endif
#endif
