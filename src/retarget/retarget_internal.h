/* src/retarget/retarget_internal.h - what retargeting and comparison share:
 * character frames (retarget.h, CHARACTER FRAME) and humanoid poses sampled
 * from evaluated scene poses. */
#ifndef RIGKIT_RETARGET_INTERNAL_H
#define RIGKIT_RETARGET_INTERNAL_H

#include "core/internal.h"
#include "scene/scene_internal.h"
#include "rigkit/anim.h"
#include "rigkit/retarget.h"

#include <math.h>

/* A skeleton's character frame: char = rotation * (world - origin) / unit. */
typedef struct rki_char_frame {
	rk_vec3 origin;                  /* world: on the floor under the rest hips */
	rk_quat rotation;                /* world -> character (+X left, +Y up, +Z forward) */
	double unit;                     /* world units per character unit: rest hips height */
} rki_char_frame;

/* From the rest pose `rest` (node_to_world by node index: a rki_rest_table's
 * world). False with err when the rest pose is degenerate (head on the
 * hips, legs and arms on one point, zero height). */
bool rki_char_frame_from_rest(const rk_scene *scene, const rk_humanoid *h, const rk_mat4 *rest, rki_char_frame *out,
	rk_error *err);

rk_vec3 rki_char_point(const rki_char_frame *f, rk_vec3 world);
rk_vec3 rki_char_from_world_point(const rki_char_frame *f, rk_vec3 world_in_char_units);

/* Rotation of an affine matrix (its columns orthonormalised; scale and
 * small shear removed), as a unit quaternion. */
rk_quat rki_matrix_rotation(rk_mat4 m);

/* Every mapped bone's joint position (character units) and world rotation
 * (character frame) for a table of node_to_world matrices indexed by node
 * (rk_pose.node_to_world, or the scene's static ones). */
typedef struct rki_humanoid_pose {
	rk_vec3 position[RK_HUMANOID_BONE_COUNT];
	rk_quat rotation[RK_HUMANOID_BONE_COUNT];
} rki_humanoid_pose;

void rki_humanoid_pose_from(const rk_humanoid *h, const rki_char_frame *f, const rk_mat4 *node_to_world,
	rki_humanoid_pose *out);

/* A scene's rest pose (rigkit/rest.h) in one block from `alloc`: world and
 * local (node_to_parent) matrices by node index, and how it was chosen. */
typedef struct rki_rest_table {
	rk_mat4 *world, *local;
	size_t count;
	rk_rest_report report;
	rki_alloc *alloc;
} rki_rest_table;

/* False with err (RK_ERROR_LIMIT / RK_ERROR_OUT_OF_MEMORY / a bad mode). */
bool rki_rest_table_init(rki_rest_table *t, const rk_scene *scene, rk_rest_mode mode, rki_alloc *alloc, rk_error *err);
void rki_rest_table_free(rki_rest_table *t);

/* The mapped humanoid bone that gives `bone` its direction (upperArm ->
 * lowerArm, hand -> middleProximal, spine -> chest or the next mapped bone
 * up the chain, ...), or -1 (head, toes, distal finger bones, or nothing
 * mapped below). */
int rki_humanoid_direction_child(const rk_humanoid *h, rk_humanoid_bone bone);

/* Resolves opts' humanoids: `given` if not NULL (validated), else detected
 * into *storage. NULL with err on failure. */
const rk_humanoid *rki_humanoid_resolve(const rk_scene *scene, const rk_humanoid *given, rk_humanoid *storage,
	const char *which, rk_error *err);

/* Pose evaluation scratch for one scene: one block from `alloc`. */
typedef struct rki_pose_buffer {
	rk_pose pose;
	void *memory;
	size_t size;
	rki_alloc *alloc;
} rki_pose_buffer;

/* False with err (RK_ERROR_LIMIT when alloc's limit stopped it, else
 * RK_ERROR_OUT_OF_MEMORY). */
bool rki_pose_buffer_init(rki_pose_buffer *b, const rk_scene *scene, rki_alloc *alloc, rk_error *err);
void rki_pose_buffer_free(rki_pose_buffer *b);
/* Evaluates clip (NULL = static pose) at absolute file time t. */
bool rki_pose_buffer_eval(rki_pose_buffer *b, const rk_scene *scene, const rk_anim_clip *clip, double t,
	rk_error *err);

/* The source side of rk_retarget's frame loop (retarget_sample.c): the
 * humanoid pose of a clip at increasing times from the humanoid bones and
 * their ancestors only, each track with a key cursor. fast is false when the
 * scene or clip needs the full evaluation (load adjustments, FBX inherit
 * modes that scale differently, animated FBX pivots, layers, a clip
 * rk_pose_eval refuses): rki_pose_buffer_eval + rki_humanoid_pose_from
 * then. */
typedef struct rki_affine { double m[12]; } rki_affine;   /* 3x3 column-major, then translation */
typedef struct rki_src_track {
	const rk_anim_track *track;
	uint32_t slot;                   /* node slot it sets */
	uint8_t kind;                    /* which local field */
	uint8_t order;                   /* FBX node: its Lcl Rotation order (rk_rotation_order) */
	bool sorted;                     /* key times non-decreasing: the cursor may be used */
	bool direct;                     /* LINEAR / STEP T, R (quaternion) or S sampler track */
	size_t hint;                     /* key cursor */
	size_t curve_hint[4];            /* curve-based track: each curve's key cursor */
	bool curves_sorted;              /* every curve's key times non-decreasing */
} rki_src_track;
typedef struct rki_src_sampler {
	bool fast;
	size_t count;                    /* nodes evaluated (slots), parents first */
	uint32_t *node;                  /* slot -> node index */
	int32_t *parent;                 /* slot -> parent slot or -1 */
	int32_t *slot_of_node;           /* node index -> slot or -1 */
	rk_trs *local;                   /* [frame in block][slot] -> local TRS (FBX nodes: Lcl Translation,
	                                  * Lcl Rotation degrees in rotation.x/y/z, Lcl Scaling) */
	rk_trs *base;                    /* slot -> local TRS with the constant tracks applied */
	struct rki_src_fbx *fbx;         /* slot -> the constant part of an FBX node's chain (NULL: none) */
	uint8_t *field_set;              /* slot -> fields a track sets (init only) */
	rki_affine *world;               /* slot -> node_to_world at the current time */
	rki_src_track *track;
	size_t track_count;
	int32_t bone_slot[RK_HUMANOID_BONE_COUNT];
	const double *times;             /* frame times (rki_src_sampler_set_times) */
	size_t frames;
	double time_offset;              /* added to times: absolute file time */
	size_t block_first, block_count; /* frames whose local TRS are in local */
	void *block, *block2;            /* by node, by slot */
	size_t block_size, block2_size;
	rki_alloc *alloc;
} rki_src_sampler;

/* False with err only when out of memory; `check` (a pose buffer of scene)
 * is used for rk_pose_eval_validate. */
bool rki_src_sampler_init(rki_src_sampler *s, const rk_scene *scene, const rk_anim_clip *clip, const rk_humanoid *h,
	rki_pose_buffer *check, rki_alloc *alloc, rk_error *err);
/* The frames to sample: absolute file time offset + times[k] for frame k
 * (times stay the caller's). */
void rki_src_sampler_set_times(rki_src_sampler *s, const double *times, size_t frames, double offset);
/* The humanoid pose (character frame f) at frame `frame` (s->fast only;
 * frames in increasing order are cheapest: tracks are evaluated for
 * RKI_SRC_BLOCK frames at once). */
#define RKI_SRC_BLOCK 16
void rki_src_sampler_pose(rki_src_sampler *s, const rk_scene *scene, size_t frame, const rki_char_frame *f,
	rki_humanoid_pose *out);
void rki_src_sampler_free(rki_src_sampler *s);

/* The only places rk_retarget_opts / rk_compare_opts defaults are applied
 * (in NULL = all defaults): fps 0 = the source's frame rate (30 when unset)
 * / 30, memory_limit 0 = RKI_DEFAULT_MEMORY_LIMIT. Other values are copied
 * unchanged (callers validate them). */
void rki_retarget_opts_resolve(rk_retarget_opts *out, const rk_retarget_opts *in, const rk_scene *source);
void rki_compare_opts_resolve(rk_compare_opts *out, const rk_compare_opts *in);

/* Reports each humanoid bone mapped in exactly one of a, b (what) to the
 * rk_warning_fn `fn` (no-op when NULL). */
void rki_warn_unpaired_bones(rk_warning_fn *fn, void *user, const rk_humanoid *a, const rk_humanoid *b,
	const char *a_name, const char *b_name, const char *what);

#endif
