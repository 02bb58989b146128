/*
 * rigkit/runtime.h - the animation runtime: float skeletons and clips built
 * offline from an rk_scene, and allocation-free per-frame jobs.
 *
 * OVERVIEW
 *   Two halves, like every game animation runtime:
 *
 *   OFFLINE (load time; may allocate, reports rk_error)
 *     rk_skeleton_build()      scene nodes -> rk_skeleton: parents in
 *                              depth-first order (parent < child), names,
 *                              rest local TRS (float)
 *     rk_runtime_clip_build()  rk_anim_clip + skeleton -> rk_runtime_clip:
 *                              per joint one translation, one rotation and
 *                              one scale track of float keys (+ morph weights)
 *     rk_skeleton_skin_binding() skin joints -> skeleton joints + float
 *                              inverse bind matrices (caller arrays)
 *     Each built object is ONE allocation, released with one call
 *     (rk_skeleton_free, rk_runtime_clip_free).
 *
 *   PER FRAME (jobs: a struct of input and output spans, _validate() and
 *   _run(); caller-owned buffers; no allocation, no global state)
 *     rk_sample_job           clip + time -> local pose (+ morph weights)
 *     rk_root_motion_job      keep / in-place / in-place-y / extract the
 *                             hips' locomotion (docs/runtime.md, Root motion)
 *     rk_blend_job            N weighted, masked layers + additive layers
 *                             -> local pose
 *     rk_local_to_model_job   local pose -> model matrices (one pass over
 *                             the depth-first parents) + skinning matrices
 *     rk_crossfade            frame-rate independent A -> B fade controller
 *
 *   Typical frame (see docs/runtime.md for a complete program):
 *
 *     rk_sample_job s = { .clip = walk, .time = t, .playback = RK_PLAYBACK_LOOP,
 *                         .context = &walk_ctx, .output = pose_a };
 *     rk_sample_run(&s);
 *     rk_root_motion_job rm = { .skeleton = skel, .clip = walk, .mode = RK_ROOT_MOTION_IN_PLACE,
 *                               .hips = hips, .time = t, .playback = RK_PLAYBACK_LOOP, .pose = pose_a };
 *     rk_root_motion_run(&rm);
 *     ... rk_blend_run(), then
 *     rk_local_to_model_job m = { .skeleton = skel, .input = rk_local_pose_view_of(out),
 *                                 .model = model, ... };
 *     rk_local_to_model_run(&m);
 *
 * LOCAL POSE LAYOUT (rk_local_pose)
 *   Structure of arrays by attribute: three caller-owned streams of
 *   joint_count entries each, indexed by joint:
 *     translation[j]  rk_float3, in the parent joint's space (units of the scene)
 *     rotation[j]     rk_float4 unit quaternion (x, y, z, w), Hamilton, as rk_quat
 *     scale[j]        rk_float3
 *   The joint's local matrix is T * R * S (column vectors), and
 *     model(j) = model(parent(j)) * T * R * S        (root: root_transform * T * R * S)
 *   i.e. plain matrix composition ("RSrs"): the build folds FBX inherit
 *   modes into the local values (see FIDELITY).
 *
 * MATRICES
 *   rk_float4x4 is column-major, column vectors, m[col * 4 + row], the same
 *   layout as rk_mat4 (base.h) and glTF, in float. Model matrices are affine.
 *
 * TIME
 *   Runtime clips run on their own clock: seconds from the clip's start,
 *   t_runtime = t_file - rk_anim_clip.time_begin, duration = time_end -
 *   time_begin. Key times are stored that way as float (bit-identical to the
 *   file's times when the clip starts at 0, the glTF norm). Jobs take the
 *   time as double and wrap it (RK_PLAYBACK_LOOP: t mod duration in
 *   [0, duration)) or clamp it (RK_PLAYBACK_CLAMP: [0, duration]).
 *
 * TRACK SAMPLING (what rk_sample_run computes per track, in float)
 *   k = the last key with time <= t (key 0 when t is before it; tracks hold
 *   their first / last value outside their key range), u = (t - t_k) /
 *   (t_{k+1} - t_k):
 *     RK_KEY_STEP    value_k
 *     RK_KEY_LINEAR  translation, scale, weights: lerp(value_k, value_{k+1}, u);
 *                    rotation: rk_quat_slerp's definition (shortest path;
 *                    nlerp when the keys' dot product exceeds 0.9995, slerp
 *                    otherwise), the slerp weights from polynomial acos / sin
 *                    (error < 6e-8) instead of libm
 *     RK_KEY_CUBIC   glTF CUBICSPLINE: values hold (in-tangent, value,
 *                    out-tangent) per key, Hermite with dt = t_{k+1} - t_k
 *                    (anim.h "glTF SAMPLERS"); rotations normalised afterwards
 *   All rotation results are normalised. This is anim.h's sampler definition
 *   evaluated in float.
 *
 * SIMD
 *   rk_sample_run and rk_local_to_model_run work on 4 joints at a time in
 *   SSE2 (x86) or wasm simd128 (-msimd128) registers, with the same float
 *   operations in the same order as the one-joint-at-a-time reference code,
 *   so the results are bit-identical to it; builds with RK_SCALAR_ONLY (and
 *   other targets) run the reference code (docs/runtime.md, SIMD paths).
 *
 * FIDELITY (runtime clip versus anim.h's double-precision reference)
 *   glTF sampler tracks (non-FBX nodes, no load adjustment, one override
 *   layer, one track per channel, STEP / LINEAR / CUBICSPLINE) are copied
 *   EXACTLY: same keys, same interpolation; the runtime differs from
 *   rk_anim_track_eval only by float rounding (shared assets: local rotations
 *   within 5e-7 rad, translations within 6e-8 relative, model-space joint
 *   positions within 5e-7 of the skeleton extent).
 *   Everything else (FBX Euler curves with pivots, offsets, pre/post
 *   rotation, inherit modes, layers, load adjustments) is RESAMPLED from
 *   rk_pose_eval_run(): a joint's local value at time t is
 *     inherit NORMAL:      decompose(pose.node_to_parent)   (glTF: pose.local)
 *     other inherit modes: decompose(inverse(parent node_to_world) * node_to_world)
 *   1. Keys start at the union of the key times of every curve/track of the
 *      joint (its ancestors' too when its inherit mode is not NORMAL) inside
 *      the clip range, plus the range ends (times closer than 1e-6 s merge).
 *   2. Each key gets the reference value and, for CUBIC keys (the default),
 *      its left and right time derivatives from one-sided second-order
 *      differences (5-point stencil, h = min(1e-5 s, gap / 4)): the in- and
 *      out-tangents, so a kink at a curve key stays a kink.
 *   3. Every interval between keys is checked at its 1/4, 1/2 and 3/4 points
 *      against the reference; an interval whose interpolation (Hermite, or
 *      lerp / slerp with opts.linear_keys) misses the reference by more than
 *      HALF the tolerance at a check point is split into quarters (the check
 *      points become keys, back to step 2), down to opts.min_interval.
 *   Tolerances (opts; defaults):
 *     translation  1e-4 * skeleton extent (diagonal of the rest pose's
 *                  model-space joint bounding box), model units, converted
 *                  per joint to its parent's units by the parent's rest scale
 *     rotation     1e-4 rad (angle between interpolated and reference local
 *                  rotation)
 *     scale        1e-4 * max(1, |reference|) per component
 *     morph weight 1e-4
 *   Channels whose keys and check values all stay within 1/16 of the
 *   tolerance of the first key collapse to one key. Guarantee: every check
 *   point is within half the tolerance (intervals that reach min_interval
 *   above it are counted in rk_runtime_clip.unresolved_intervals: a jump, an
 *   FBX CONSTANT key, becomes a ramp min_interval wide). The half leaves room
 *   for the unchecked points in between; tests sample the shared clips
 *   densely and require the full tolerance everywhere (docs/runtime.md lists
 *   the measured errors: ybot@kick.fbx stays below 5.1e-5 rad, 1.6e-5 cm).
 *
 * UNTRUSTED DATA
 *   Built objects are consistent. Hand-made skeletons and clips (all structs
 *   are plain data) are checked by the jobs' _validate() functions in
 *   O(joints + tracks): spans, counts, parent order, key and value ranges.
 *   Key times that are not ascending give wrong values but never reads out
 *   of bounds; rk_runtime_clip_validate() also checks them (O(keys)).
 *
 * THREAD SAFETY
 *   Skeletons and clips are read-only after build: any number of threads may
 *   run jobs on them concurrently, each with its own outputs and its own
 *   rk_sample_context. Jobs never allocate and never touch global state.
 */
#ifndef RIGKIT_RUNTIME_H
#define RIGKIT_RUNTIME_H

#include "rigkit/scene.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------------
 * Float value types
 * ------------------------------------------------------------------------- */

typedef struct rk_float3 { float x, y, z; } rk_float3;
typedef struct rk_float4 { float x, y, z, w; } rk_float4;   /* quaternions: (x, y, z, w) */
typedef struct rk_float4x4 { float m[16]; } rk_float4x4;    /* column-major, m[col * 4 + row] */

/* ---------------------------------------------------------------------------
 * Local poses (caller-owned streams, see LOCAL POSE LAYOUT)
 * ------------------------------------------------------------------------- */

typedef struct rk_local_pose {
	size_t joint_count;
	rk_float3 *translation;          /* joint_count entries */
	rk_float4 *rotation;             /* joint_count unit quaternions */
	rk_float3 *scale;                /* joint_count entries */
} rk_local_pose;

/* Read-only view of a local pose (job inputs). */
typedef struct rk_local_pose_view {
	size_t joint_count;
	const rk_float3 *translation;
	const rk_float4 *rotation;
	const rk_float3 *scale;
} rk_local_pose_view;

static inline rk_local_pose_view rk_local_pose_view_of(rk_local_pose p)
{
	rk_local_pose_view v = { p.joint_count, p.translation, p.rotation, p.scale };
	return v;
}

/* Bytes rk_local_pose_init() needs for joint_count joints (the three streams,
 * 16-byte aligned, plus alignment slack); 0 on overflow. */
size_t rk_local_pose_memory_size(size_t joint_count);

/* Points the three streams of *pose into `memory` (size >= the value above,
 * any alignment) and sets joint_count. Contents are left unset. The pose
 * does not own the memory. Returns false (pose zeroed) for NULL arguments or
 * a too small block. No allocation. */
bool rk_local_pose_init(rk_local_pose *pose, size_t joint_count, void *memory, size_t size);

/* ---------------------------------------------------------------------------
 * Skeleton (offline build)
 * ------------------------------------------------------------------------- */

#define RK_JOINT_NONE (-1)

/* A skeleton: plain read-only data. Built ones live in one block released by
 * rk_skeleton_free(); a hand-filled struct is fine for the jobs (they
 * validate it) but must not be passed to rk_skeleton_free(). */
typedef struct rk_skeleton {
	size_t joint_count;
	const int32_t *parents;          /* joint_count entries: parent joint, RK_JOINT_NONE for roots;
	                                    always parents[j] < j (depth-first pre-order) */
	const char *const *names;        /* joint_count node names ("" when unnamed); may be NULL when hand-made */
	const uint32_t *node_indices;    /* scene node index of each joint (rk_node.index); NULL when hand-made */
	rk_local_pose_view rest;         /* rest local transforms: the scene's static values (see FIDELITY
	                                    for the FBX inherit-mode folding) */
	void *internal_;                 /* owned by rigkit (built skeletons only) */
} rk_skeleton;

typedef struct rk_skeleton_opts {
	rk_allocator allocator;          /* zero = malloc/free */
	const rk_node *root;             /* top joint; NULL = the scene's synthetic root, i.e. every node
	                                    (then joint j == node j and model space == world space). The
	                                    root joint's rest transform is its node_to_parent, so model
	                                    space is the space of root->parent (world when NULL). */
	bool joints_only;                /* drop subtrees that contain no RK_NODE_JOINT node (meshes,
	                                    cameras...); the root itself always stays. Default false. */
} rk_skeleton_opts;

/* Builds the skeleton of the subtree under opts->root (default every node)
 * in scene node order, which is depth-first pre-order. opts may be NULL.
 * Returns NULL with err set (RK_ERROR_INVALID_ARGUMENT for a bad scene/root,
 * RK_ERROR_OUT_OF_MEMORY, RK_ERROR_LIMIT for more than INT32_MAX joints).
 * Evaluates the static pose once with rk_pose_eval_run (double) and rounds
 * the rest TRS to float. One allocation; thread safe for distinct outputs. */
rk_skeleton *rk_skeleton_build(const rk_scene *scene, const rk_skeleton_opts *opts, rk_error *err);

/* Frees a built skeleton (NULL is fine). */
void rk_skeleton_free(rk_skeleton *skeleton);

/* Index of the first joint named `name`, or RK_JOINT_NONE (also for NULL
 * arguments or a skeleton without names). O(joints). */
int32_t rk_skeleton_find_joint(const rk_skeleton *skeleton, const char *name);

/* Joint of a scene node (node->index looked up in node_indices), or
 * RK_JOINT_NONE. O(joints). */
int32_t rk_skeleton_joint_of_node(const rk_skeleton *skeleton, const rk_node *node);

/* Skinning setup for rk_local_to_model_job: for each of skin->joint_count
 * joints k, out_joints[k] = the skeleton joint of skin->joints[k].node and
 * out_inverse_bind[k] = float(joints[k].mesh_to_joint * geometry_to_node of
 * mesh_node) (mesh_node = the node carrying the skinned mesh; its static
 * geometric transform is used). With a skeleton rooted at the scene root,
 * model * inverse_bind is anim.h's rk_skin_matrices_eval (for non-instanced
 * meshes): skinned positions land in world space; with another root they
 * land in the skeleton's model space. Either output may be NULL. Returns
 * false with err set when a skin joint has no node or its node is not in the
 * skeleton, or for NULL/foreign arguments. No allocation. */
bool rk_skeleton_skin_binding(const rk_skeleton *skeleton, const rk_scene *scene, const rk_skin_deformer *skin,
	const rk_node *mesh_node, uint32_t *out_joints, rk_float4x4 *out_inverse_bind, rk_error *err);

/* ---------------------------------------------------------------------------
 * Runtime clip (offline build)
 * ------------------------------------------------------------------------- */

typedef enum rk_key_interp {
	RK_KEY_STEP = 0,                 /* glTF STEP */
	RK_KEY_LINEAR = 1,               /* lerp; rotations slerp */
	RK_KEY_CUBIC = 2                 /* glTF CUBICSPLINE: 3 values per key (in-tangent, value, out-tangent) */
} rk_key_interp;

/* One track: keys key_begin .. key_begin + key_count - 1 of clip->times,
 * values starting at value_begin of the attribute's value array:
 * key k's value is values[value_begin + k * n + c] for component c of n
 * (n = 1 for translation/rotation/scale entries, weight_count for morph
 * tracks); CUBIC: values[value_begin + (3k + {0 in, 1 value, 2 out}) * n + c]. */
typedef struct rk_runtime_track {
	uint32_t key_begin;
	uint32_t key_count;              /* >= 1; one key = constant */
	uint32_t value_begin;
	uint32_t interp;                 /* rk_key_interp */
} rk_runtime_track;

/* Morph weight track: writes weights[weight_offset .. weight_offset + weight_count). */
typedef struct rk_morph_track {
	rk_runtime_track keys;           /* values in clip->morph_values */
	uint32_t weight_offset;
	uint32_t weight_count;
} rk_morph_track;

/* The morph weights of one joint's mesh node: blend channel c of that node's
 * mesh is the sampled weight weights[weight_offset + c], c < channel_count. */
typedef struct rk_morph_block {
	uint32_t joint;
	uint32_t weight_offset;
	uint32_t channel_count;
} rk_morph_block;

typedef struct rk_runtime_clip {
	const char *name;
	double duration;                 /* seconds (time_end - time_begin of the source clip), >= 0 */
	double source_time_begin;        /* the source clip's time_begin (file seconds) */
	size_t joint_count;              /* == skeleton joint count */

	/* joint_count tracks each, indexed by joint */
	const rk_runtime_track *translation_tracks;
	const rk_runtime_track *rotation_tracks;
	const rk_runtime_track *scale_tracks;

	size_t time_count;
	const float *times;              /* seconds from the clip start, ascending within each track */
	size_t translation_value_count, rotation_value_count, scale_value_count, morph_value_count;
	const rk_float3 *translation_values;
	const rk_float4 *rotation_values;
	const rk_float3 *scale_values;
	const float *morph_values;

	size_t morph_track_count;
	const rk_morph_track *morph_tracks;
	size_t morph_block_count;
	const rk_morph_block *morph_blocks;
	size_t morph_weight_count;       /* entries of the sampled morph weight array */

	/* Build report (see FIDELITY). Tolerances actually used; largest error
	 * seen at the check points of accepted intervals of resampled tracks
	 * (at most half the tolerance unless unresolved_intervals > 0). */
	uint32_t exact_track_count;      /* copied sampler tracks (incl. morph) */
	uint32_t resampled_track_count;  /* resampled tracks with more than one key (CUBIC, or LINEAR
	                                    with opts.linear_keys) */
	uint32_t constant_track_count;   /* one-key tracks (unanimated or collapsed) */
	uint32_t unresolved_intervals;   /* intervals accepted at min_interval above half the tolerance */
	uint32_t reference_evaluations;  /* rk_pose_eval_run calls made by the build */
	double translation_tolerance;    /* model units */
	double rotation_tolerance;       /* radians */
	double scale_tolerance;          /* relative */
	double weight_tolerance;
	double max_translation_error;    /* model units (local error * parent rest scale) */
	double max_rotation_error;       /* radians */
	double max_scale_error;          /* relative */
	double max_weight_error;
	size_t memory_size;              /* bytes of the clip's single allocation (0 when hand-made) */
	void *internal_;                 /* owned by rigkit (built clips only) */
} rk_runtime_clip;

typedef struct rk_runtime_clip_opts {
	rk_allocator allocator;          /* zero = malloc/free (result and temporaries) */
	double translation_tolerance;    /* model units; 0 = 1e-4 * skeleton extent (1e-4 if the extent is 0) */
	double rotation_tolerance;       /* radians; 0 = 1e-4 */
	double scale_tolerance;          /* relative; 0 = 1e-4 */
	double weight_tolerance;         /* 0 = 1e-4 */
	double min_interval;             /* seconds; intervals are not split below it; 0 = 1e-4 */
	bool linear_keys;                /* resampled tracks get LINEAR keys (lerp / slerp) instead of CUBIC
	                                    Hermite keys with measured tangents; default false */
	bool resample_all;               /* resample exact-copyable tracks too (testing); default false */
	bool skip_morph_weights;         /* no morph tracks; default false (morph weights included) */
} rk_runtime_clip_opts;

/* Converts `clip` (a clip of `scene`) for `skeleton` (built from the same
 * scene: node_indices required) as described in FIDELITY. Joints the clip
 * does not animate get one-key tracks holding their rest value. Morph
 * blocks: every skeleton joint whose node's mesh has blend channels and is
 * animated by a RK_TARGET_MORPH_WEIGHTS track gets a block of all its
 * channels (unanimated channels: their static weight). opts may be NULL.
 * Returns NULL with err set (RK_ERROR_INVALID_ARGUMENT for bad arguments or
 * a clip failing rk_pose_eval_validate, RK_ERROR_LIMIT beyond 2^32 keys,
 * RK_ERROR_OUT_OF_MEMORY). The result is one allocation; temporaries are
 * freed before returning. Cost: about (key times + refinements) reference
 * pose evaluations. Thread safe for distinct outputs. */
rk_runtime_clip *rk_runtime_clip_build(const rk_scene *scene, const rk_anim_clip *clip,
	const rk_skeleton *skeleton, const rk_runtime_clip_opts *opts, rk_error *err);

/* Frees a built clip (NULL is fine). */
void rk_runtime_clip_free(rk_runtime_clip *clip);

/* Full check of a (hand-made) clip: arrays present for their counts, every
 * track's keys and values in range, interp known, key times finite and
 * non-decreasing within each track, duration finite and >= 0, morph tracks
 * within morph_weight_count. O(keys). The jobs check everything except the
 * time order, per run, in O(tracks). No allocation. */
bool rk_runtime_clip_validate(const rk_runtime_clip *clip, rk_error *err);

/* ---------------------------------------------------------------------------
 * Sampling job
 * ------------------------------------------------------------------------- */

typedef enum rk_playback {
	RK_PLAYBACK_CLAMP = 0,           /* t clamped to [0, duration] */
	RK_PLAYBACK_LOOP = 1             /* t wrapped to [0, duration) (duration 0: t = 0) */
} rk_playback;

/* Caller-owned key cursor cache: one uint32 per track (3 * joint_count +
 * morph_track_count, rk_sample_context_size()). Cursors are HINTS: any value
 * gives the correct result. Playing forward from the previous time finds
 * each key in O(1) (steps forward over at most 4 keys, then a binary
 * search); jumping backward or far is a binary search. One context per
 * (clip, playing instance); it remembers its clip and resets on a change.
 * It also remembers that the clip passed the per-track checks of
 * rk_sample_validate(), which later runs with the same context skip (O(1)
 * instead of O(tracks)): after modifying a hand-made clip in place, call
 * rk_sample_context_init() again. */
typedef struct rk_sample_context {
	uint32_t *cursors;               /* capacity entries (caller memory) */
	size_t capacity;
	const rk_runtime_clip *clip_;    /* the clip the cursors were set for (rigkit's) */
} rk_sample_context;

/* Entries a context needs for `clip` (0 for NULL). */
size_t rk_sample_context_size(const rk_runtime_clip *clip);
/* Sets up a context over caller memory (cursors reset). ctx must be non-NULL. */
void rk_sample_context_init(rk_sample_context *ctx, uint32_t *cursors, size_t capacity);

typedef struct rk_sample_job {
	const rk_runtime_clip *clip;     /* required */
	double time;                     /* seconds on the clip's clock; finite */
	rk_playback playback;            /* default CLAMP */
	rk_sample_context *context;      /* optional; NULL = binary search every track */
	rk_local_pose output;            /* required: joint_count == clip->joint_count, three streams */
	float *morph_weights;            /* optional: morph_weight_count >= clip->morph_weight_count */
	size_t morph_weight_count;
} rk_sample_job;

/* Rules (one message each, RK_ERROR_INVALID_ARGUMENT; err may be NULL):
 * job and clip non-NULL; clip arrays present for their counts; every track's
 * keys/values inside the arrays, key_count >= 1, interp known; duration
 * finite and >= 0; time finite; playback known; output.joint_count ==
 * clip->joint_count and its three streams non-NULL; a context (if given)
 * has cursors and capacity >= rk_sample_context_size(clip); morph_weights
 * (if given) has room for clip->morph_weight_count. O(tracks); O(1) when
 * the context already ran this clip. */
bool rk_sample_validate(const rk_sample_job *job, rk_error *err);
/* Validates, then writes every joint's T, R, S (and the morph weights when
 * requested). Returns false (nothing written) when validation fails. */
bool rk_sample_run(const rk_sample_job *job);

/* Wraps / clamps a time as the sampling job does (double). */
double rk_playback_time(double time, double duration, rk_playback playback);

/* ---------------------------------------------------------------------------
 * Blending job
 * ------------------------------------------------------------------------- */

typedef struct rk_blend_layer {
	rk_local_pose_view pose;         /* required: joint_count == skeleton joint_count */
	float weight;                    /* >= 0 (negative / NaN count as 0) */
	const float *joint_weights;      /* optional per-joint mask (joint_count entries, clamped to [0, 1]);
	                                    NULL = 1 everywhere */
	/* additive layers only: the pose the difference is taken from;
	 * joint_count 0 (zeroed) = the skeleton's rest pose */
	rk_local_pose_view reference;
	const float *morph_weights;      /* optional (normal layers): morph_weight_count entries */
} rk_blend_layer;

/* Blends, per joint j with w_i = weight_i * joint_weights_i[j] and W = sum w_i
 * over the normal layers:
 *   rest pose weight r = max(0, rest_threshold - W); if W + r == 0 the
 *   output is the rest pose.
 *   translation, scale = (sum w_i x_i + r x_rest) / (W + r)
 *   rotation: nlerp: q_i sign-aligned to the first contributing layer's
 *     rotation (dot >= 0), summed with weights, normalised (shortest
 *     hemisphere); slerp (opts): q = q_first, then for each further layer
 *     q = slerp(q, q_i, w_i / (weights so far including w_i)), exact for two
 *     layers.
 * Then each additive layer a (w = weight_a * joint_weights_a[j], not
 * normalised), with reference pose P:
 *   translation += w * (t_a - t_P)
 *   rotation     = rotation * nlerp(identity, conj(q_P) * q_a, w)   (slerp when opts.slerp;
 *                  delta sign-aligned to w >= 0)
 *   scale       *= lerp(1, s_a / s_P, w)   (component-wise; s_P == 0 -> factor 1)
 * anim.h's additive convention (q_prev * delta^w). Morph weights (when
 * output morph_weights is set): sum w_l m_l / sum w_l over normal layers
 * with morph_weights (w_l = layer weight; masks do not apply); all zero when
 * that sum is 0. The output may alias any input: each joint is read before
 * it is written. */
typedef struct rk_blend_job {
	const rk_skeleton *skeleton;     /* required: joint count and rest pose */
	const rk_blend_layer *layers;    /* layer_count normal layers (may be 0) */
	size_t layer_count;
	const rk_blend_layer *additive_layers;
	size_t additive_layer_count;
	float rest_threshold;            /* see above; default 0: rest pose only where W == 0 */
	bool slerp;                      /* rotations by slerp instead of nlerp; default false */
	rk_local_pose output;            /* required */
	float *morph_weights;            /* optional output, morph_weight_count entries */
	size_t morph_weight_count;
} rk_blend_job;

/* Rules: job, skeleton, output streams non-NULL; skeleton rest streams
 * present with joint_count > 0; output and every layer pose have the
 * skeleton's joint count and non-NULL streams (a layer reference is either
 * zeroed or complete); layer arrays present for their counts; weights and
 * rest_threshold finite; morph_weights output given with a count, and then
 * layers' morph_weights are read for that count. O(layers). */
bool rk_blend_validate(const rk_blend_job *job, rk_error *err);
bool rk_blend_run(const rk_blend_job *job);

/* ---------------------------------------------------------------------------
 * Crossfade controller (instant switches flicker; docs/runtime.md, Crossfade)
 * ------------------------------------------------------------------------- */

/* Advances two clip clocks and a fade weight by real time. The weight of the
 * target clip at fade time e is smoothstep(e / duration), s(x) = x^2 (3 - 2x)
 * clamped to [0, 1]: a function of the elapsed seconds only, so any split
 * of the same total time into steps (30 fps, 144 fps, uneven frames) gives
 * the same weights and clip times, up to double rounding of the sums.
 * (Never "move 10% of the way each frame", whose result depends on the
 * frame rate.) Plain data: zero-initialise, then rk_crossfade_start(). */
typedef struct rk_crossfade {
	double from_time;                /* clock of the clip being faded out, seconds */
	double to_time;                  /* clock of the clip being faded in, seconds */
	double from_speed, to_speed;     /* playback rates (1 = real time); set by start */
	double duration;                 /* fade length, seconds (<= 0: instant) */
	double elapsed;                  /* seconds since the fade started */
} rk_crossfade;

/* Starts a fade from a clip at from_time to a clip at to_time lasting
 * duration seconds (speeds 1). */
void rk_crossfade_start(rk_crossfade *cf, double from_time, double to_time, double duration);
/* Advances both clocks and the fade by dt seconds (dt < 0 or NaN: 0). */
void rk_crossfade_advance(rk_crossfade *cf, double dt);
/* Weight of the `to` clip in [0, 1]; the `from` clip gets 1 - weight. */
float rk_crossfade_weight(const rk_crossfade *cf);
/* True once elapsed >= duration. */
bool rk_crossfade_done(const rk_crossfade *cf);
/* Fills layers[0] (from_pose, 1 - w) and layers[1] (to_pose, w) for rk_blend_job. */
void rk_crossfade_layers(const rk_crossfade *cf, rk_local_pose_view from_pose, rk_local_pose_view to_pose,
	rk_blend_layer layers[2]);

/* ---------------------------------------------------------------------------
 * Root motion job (bobbing / drifting hips; docs/runtime.md, Root motion)
 * ------------------------------------------------------------------------- */

typedef enum rk_root_motion_mode {
	RK_ROOT_MOTION_KEEP = 0,         /* pose unchanged */
	RK_ROOT_MOTION_IN_PLACE,         /* hips' horizontal translation locked to its clip-start value;
	                                    vertical motion (bobbing) kept */
	RK_ROOT_MOTION_IN_PLACE_Y,       /* hips' whole translation locked to its clip-start value */
	RK_ROOT_MOTION_EXTRACT           /* hips' horizontal translation and yaw move to the root joint */
} rk_root_motion_mode;

/* Works on a pose sampled from `clip` at `time` (apply it per clip, right
 * after sampling, before blending). Let h, q be the hips' local translation
 * and rotation, h0, q0 their values at clip time 0 (sampled from the clip),
 * u the up axis mapped into the hips' parent space (by the rotation of the
 * parent's REST model transform), horiz(v) = v - (v . u) u:
 *   IN_PLACE      h' = h - horiz(h - h0)
 *   IN_PLACE_Y    h' = h0
 *   EXTRACT       Y = the twist about u of q * conj(q0) (the yaw since the
 *                 clip start), d = horiz(h) - Y horiz(h0); the motion
 *                 F = (d, Y) leaves the hips: q' = conj(Y) q,
 *                 h' = conj(Y) (h - d) (horizontal position stays at h0's,
 *                 yaw removed), and goes to the root joint:
 *                 root' = root * C F C^-1, C the transform from the root's
 *                 frame to the hips' parent frame (identity when the root is
 *                 the hips' parent; composed from the pose otherwise,
 *                 assuming uniform scales). With RK_PLAYBACK_LOOP and
 *                 time = n * duration + t (n = floor(time / duration), any
 *                 sign): F = F_end^n * F(t), F_end = F at the clip end, so a
 *                 looping walk keeps walking (and a turning one keeps
 *                 turning). The model-space transforms of the hips and all
 *                 its descendants equal KEEP's during the first loop (up to
 *                 float rounding), moved by F_end^n after n loops.
 * The root's scale should be uniform (root' = T_r + R_r (s_r d), R_r Y_root). */
typedef struct rk_root_motion_job {
	const rk_skeleton *skeleton;     /* required */
	const rk_runtime_clip *clip;     /* required: the clip the pose was sampled from */
	rk_root_motion_mode mode;
	int32_t hips;                    /* joint carrying the locomotion (e.g. "Hips") */
	int32_t root;                    /* EXTRACT: a strict ancestor of hips receiving the motion */
	rk_float3 up;                    /* model-space up axis; zero = +Y */
	double time;                     /* the time given to the sampling job (unwrapped) */
	rk_playback playback;
	rk_local_pose pose;              /* in/out, skeleton joint count */
	/* optional outputs (NULL = not written): the motion applied to the
	 * root, in the root's local frame (root' = root * motion); EXTRACT
	 * writes it, the other modes write the identity */
	rk_float3 *motion_translation;
	rk_float4 *motion_rotation;
} rk_root_motion_job;

/* Rules: job, skeleton, clip non-NULL and of the same joint count; pose
 * streams present with that count; mode known; hips a valid joint; for
 * EXTRACT root a strict ancestor of hips; up finite; time finite; playback
 * known; the clip's hips tracks valid. O(depth). */
bool rk_root_motion_validate(const rk_root_motion_job *job, rk_error *err);
bool rk_root_motion_run(const rk_root_motion_job *job);

/* ---------------------------------------------------------------------------
 * Local-to-model job
 * ------------------------------------------------------------------------- */

typedef struct rk_local_to_model_job {
	const rk_skeleton *skeleton;     /* required: parents (depth-first) */
	rk_local_pose_view input;        /* required, skeleton joint count */
	const rk_float4x4 *root_transform; /* optional affine matrix applied above the roots; NULL = identity */
	rk_float4x4 *model;              /* required output: skeleton joint_count matrices */
	/* Optional skinning palette: skinning[k] = model[skin_joints[k]] * inverse_bind[k]
	 * (see rk_skeleton_skin_binding). All three set, or skinning NULL. */
	size_t skin_joint_count;
	const uint32_t *skin_joints;
	const rk_float4x4 *inverse_bind;
	rk_float4x4 *skinning;
} rk_local_to_model_job;

/* Rules: job, skeleton, input streams, model non-NULL; skeleton parents
 * present and parents[j] in [RK_JOINT_NONE, j) for every joint; input
 * joint count == skeleton's; with skinning: skin_joints and inverse_bind
 * present and every skin_joints[k] < joint_count. O(joints + skin joints). */
bool rk_local_to_model_validate(const rk_local_to_model_job *job, rk_error *err);
/* One pass in joint order: model[j] = model[parent] * T * R * S. */
bool rk_local_to_model_run(const rk_local_to_model_job *job);

/* ---------------------------------------------------------------------------
 * Two-bone IK job
 * ---------------------------------------------------------------------------
 * Turns the start (upper) and mid joints of a three-joint chain start -> mid
 * -> end (a leg: hip, knee, ankle; an arm: shoulder, elbow, wrist) so the end
 * joint reaches `target`. The joints need not be direct parent and child
 * (joints in between keep their local transforms). Outputs are LOCAL-space
 * corrections: local_start' = local_start * start_correction, local_mid' =
 * local_mid * mid_correction (quaternion products, correction applied
 * first), after which the chain's model transforms are recomputed
 * (rk_local_to_model_run).
 *
 * PRECISION: double (rk_vec3 / rk_quat from rigkit/math.h), unlike the float
 * jobs above: its two library callers are offline and double throughout
 * (rk_retarget's foot IK bakes double track values; rk_demo_scene's walk is
 * generated in double), and they must give the keys they gave before the
 * job existed (to rounding, ~1e-16). A per-frame user converts a model
 * matrix from rk_local_to_model_run: position = column 3, rotation = the
 * normalised rotation of the upper 3x3 (uniform scale assumed).
 *
 * THE SOLUTION (model space; s, m, e the joint positions, a = |m - s|,
 * b = |e - m|, L = a + b, d = |target - s|, u = (target - s) / d):
 *   reach      r = d, softened when soften is in (0, 1): with r0 = soften L,
 *              past r0 the chain lags behind the target,
 *                r = r0 + (L - r0) (1 - exp(-(d - r0) / (L - r0)))
 *              (continuous with slope 1 at r0, approaches L but never
 *              gets there); then clamped to [|a - b| (1 + reach_margin),
 *              L (1 - reach_margin)]. The end joint lands at s + r u.
 *   bend side  v = the unit part of `pole` perpendicular to u (if the pole
 *              is zero or along u: the chain's current bend m - s, else any
 *              perpendicular), turned by `twist` radians about u
 *              (right-handed). The mid joint lands on v's side:
 *                m' = s + x u + sqrt(a^2 - x^2) v,  x = (a^2 - b^2 + r^2) / (2 r)
 *   start      the shortest rotation taking (m - s) onto (m' - s); in HINGE
 *              mode (mid_axis non-zero) then rolled about (m' - s) so the
 *              hinge, mid_rotation * mid_axis (its part perpendicular to the
 *              upper bone), becomes the solution plane's normal n = u x v.
 *   mid        HINGE mode: a turn about n taking the lower bone (after the
 *              start's correction) onto (s + r u - m'); SWING mode
 *              (mid_axis zero): the shortest rotation doing that.
 *   weight     each local correction is slerped from identity by weight
 *              (weight 0.5: half the angle).
 * mid_axis follows ozz-animation's convention: a positive rotation about it
 * opens the angle between the two bones, so the knee/elbow folds towards
 * u x (-n) = v; for a chain bending in a plane it is normalize(cross(mid -
 * start, end - mid)) seen in the mid joint's local space, when the bend
 * points like v. SWING mode is for chains whose hinge is unknown (the
 * retargeter's knees of any rig): the bones' rolls change least.
 *
 * reached = weight >= 1 and the end joint (after the corrections) within
 * 1e-6 L of the target: false past the (softened, clamped) reach, below the
 * fold limit, and when weight < 1.
 *
 * THREADS: run reads the job and writes only its outputs; any number of
 * jobs may run at once. Never allocates.
 */
typedef struct rk_two_bone_ik_job {
	/* inputs: model space (the space of rk_local_to_model_job.model) */
	rk_vec3 start_position;          /* start (upper) joint, e.g. the hip */
	rk_vec3 mid_position;            /* mid joint, e.g. the knee; |mid - start| > 0 */
	rk_vec3 end_position;            /* end joint, e.g. the ankle; |end - mid| > 0 */
	rk_quat start_rotation;          /* model rotation of the start joint (unit, within 1e-3) */
	rk_quat mid_rotation;            /* model rotation of the mid joint (unit, within 1e-3) */
	rk_vec3 target;                  /* where the end joint should go */
	rk_vec3 pole;                    /* direction the mid joint should point to (any length;
	                                    zero = keep the chain's current bend side) */
	rk_vec3 mid_axis;                /* hinge axis in the mid joint's LOCAL space (any length);
	                                    zero = swing mode (no hinge) */
	double weight;                   /* [0, 1]: 0 = no correction (the zero default), 1 = full IK */
	double soften;                   /* [0, 1]: fraction of the chain length where softening starts;
	                                    0 or 1 = off (the zero default): the chain reaches full
	                                    extension. 0.9: the last 10 % are approached smoothly */
	double twist;                    /* radians about start -> target, applied to the bend side */
	double reach_margin;             /* [0, 0.5): the reach stays this fraction away from full
	                                    extension and full fold (so the hinge plane stays
	                                    defined); default 0: the chain may get straight */
	/* outputs (caller memory) */
	rk_quat *start_correction;       /* required: local_start' = local_start * start_correction */
	rk_quat *mid_correction;         /* required: local_mid' = local_mid * mid_correction */
	bool *reached;                   /* optional */
	double *miss;                    /* optional: |d - reach|, how far the target lies beyond the
	                                    (softened, clamped) reach at full weight; 0 when reachable */
} rk_two_bone_ik_job;

/* Rules (one message each, RK_ERROR_INVALID_ARGUMENT; err may be NULL): job
 * non-NULL; start_correction and mid_correction non-NULL; every input
 * finite; start_rotation and mid_rotation unit within 1e-3; both bones
 * longer than 0 (|mid - start|, |end - mid|); weight and soften in [0, 1];
 * reach_margin in [0, 0.5). O(1). */
bool rk_two_bone_ik_validate(const rk_two_bone_ik_job *job, rk_error *err);
/* Validates, then writes the corrections (and reached, miss). Returns false
 * (nothing written) when validation fails. */
bool rk_two_bone_ik_run(const rk_two_bone_ik_job *job);

#ifdef __cplusplus
}
#endif
#endif
