/*
 * rigkit/anim.h - animation evaluation, double precision reference path.
 *
 * OVERVIEW
 *   Turns the animation data of an rk_scene (scene.h, "Animation") into
 *   values, poses and deformed vertices at a given time:
 *
 *     rk_anim_curve_eval()        one FBX scalar curve at a time
 *     rk_anim_track_eval()        one track (FBX curves or glTF sampler)
 *     rk_pose_eval_job            every node of a scene at a time: animated
 *                                 properties, local and world matrices,
 *                                 blend shape weights -> rk_pose
 *     rk_mesh_world_positions_eval / rk_mesh_world_normals_eval
 *                                 one mesh node's vertices / corner normals in
 *                                 world space for a pose (blend shapes, then
 *                                 linear / dual quaternion skinning)
 *     rk_skin_matrices_eval       per-joint skinning matrices (for runtime
 *                                 skinning elsewhere)
 *
 *   Everything here is the reference path: double precision, scalar, written
 *   for clarity and exactness first. Typical use (what the writers do):
 *
 *     size_t bytes = rk_pose_memory_size(scene);
 *     void *mem = malloc(bytes);                  // once, by the caller
 *     rk_pose pose;
 *     rk_pose_init(&pose, scene, mem, bytes);
 *     rk_pose_eval_job job = { .scene = scene, .clip = clip, .time = t, .pose = &pose };
 *     if (!rk_pose_eval_validate(&job, &err)) ...;
 *     rk_pose_eval_run(&job);                     // every frame: no allocation
 *     for each node with a mesh:
 *         rk_mesh_world_positions_eval(scene, node, &pose, positions);
 *
 * TIME
 *   Times are absolute file time in seconds (the same clock as the key times
 *   and rk_anim_clip.time_begin/time_end), not relative to a clip's start.
 *
 * FBX CURVES (rk_anim_curve_eval)
 *   Key i starts segment [t_i, t_{i+1}] whose shape is interp[i]:
 *     RK_INTERP_CONSTANT       v_i on [t_i, t_{i+1}); v_{i+1} from t_{i+1} on
 *     RK_INTERP_CONSTANT_NEXT  v_i exactly at t_i, v_{i+1} on (t_i, t_{i+1}]
 *     RK_INTERP_LINEAR         v_i + (v_{i+1} - v_i) * (t - t_i) / dt
 *     RK_INTERP_CUBIC          the cubic Bezier in (time, value) with
 *         P0 = (t_i, v_i)
 *         P1 = (t_i + wr * dt, v_i + wr * dt * right_slope[i])
 *         P2 = (t_{i+1} - wl * dt, v_{i+1} - wl * dt * left_slope[i+1])
 *         P3 = (t_{i+1}, v_{i+1})
 *       with dt = t_{i+1} - t_i, wr = right_weight[i], wl = left_weight[i+1].
 *       For wr = wl = 1/3 (the default) time is linear in the Bezier parameter
 *       and the segment is exactly the cubic Hermite spline with tangents
 *       dt * right_slope[i] and dt * left_slope[i+1]. Other weights: the
 *       parameter s with x(s) = t is solved by Newton steps safeguarded by
 *       bisection (at most 64 iterations, converged to ~1e-15 of dt).
 *       Weights are clamped to [0, 1] (NaN -> 1/3) and, when wr + wl > 1,
 *       both are scaled so that wr + wl = 1, which keeps x(s) monotonic.
 *   NULL arrays mean: interp -> every segment LINEAR; slopes -> 0;
 *   weights -> 1/3. Exactly at a key time the curve takes that key's value.
 *   The curve's min_value/max_value are not applied.
 *
 *   Outside [t_first, t_last] (D = t_last - t_first, u = distance beyond the
 *   end, k = ceil(u / D) the cycle number 1, 2, ..., r = u - (k - 1) * D in
 *   (0, D]):
 *     CONSTANT          hold the end value
 *     REPEAT            after the end: curve(t_first + r); before the
 *                       start: curve(t_last - r)
 *     REPEAT_RELATIVE   as REPEAT, plus k * (v_last - v_first) after the end,
 *                       minus k * (v_last - v_first) before the start
 *     MIRROR            odd k reflect, even k repeat: after the end
 *                       curve(t_last - r) for odd k, curve(t_first + r) for
 *                       even k; before the start curve(t_first + r) for odd
 *                       k, curve(t_last - r) for even k
 *     SLOPE             continue linearly with the end slope: the slope of
 *                       the first / last segment at its outer key (CUBIC:
 *                       right_slope[0] / left_slope[last]; LINEAR: the
 *                       segment's secant; CONSTANT*: 0)
 *   pre_repeat_count / post_repeat_count limit REPEAT, REPEAT_RELATIVE and
 *   MIRROR to that many cycles (-1 or any negative value: no limit). Beyond
 *   the last allowed cycle the value reached at its end is held (k = count,
 *   r = D); count 0 means CONSTANT. SLOPE ignores the counts.
 *   no_extrapolation = true replaces all of this by holding v_first before
 *   the first key and v_last after the last one (the conformance corpus'
 *   "no_extrapolation" evaluation option).
 *
 * glTF SAMPLERS (sampler-based rk_anim_track)
 *   CONSTANT (glTF STEP): the value of the last key at or before t.
 *   LINEAR: component-wise lerp; RK_TARGET_ROTATION_QUAT with 4 components
 *   uses shortest-path slerp (glTF's LINEAR rotation).
 *   CUBIC (glTF CUBICSPLINE): values hold (in-tangent, value, out-tangent)
 *   per key; with u = (t - t_k) / dt, dt = t_{k+1} - t_k:
 *     p(u) = (2u^3 - 3u^2 + 1) v_k + (u^3 - 2u^2 + u) dt b_k
 *          + (-2u^3 + 3u^2) v_{k+1} + (u^3 - u^2) dt a_{k+1}
 *   b_k = out-tangent of key k, a_{k+1} = in-tangent of key k+1; quaternion
 *   results are normalised. Outside the key range the end key is held
 *   (glTF clamps; no_extrapolation has no effect on samplers).
 *
 * POSE EVALUATION (rk_pose_eval_job), per node in scene order:
 *   1. Static values: props = node->props, local = node->local, blend
 *      weights = node->blend_weights (or each channel's default_weight).
 *   2. Every track of every layer of the clip, layers in order:
 *        RK_TARGET_TRANSLATION   FBX nodes: props.translation; others: local.translation
 *        RK_TARGET_ROTATION_EULER FBX: props.rotation (degrees); others:
 *                                local.rotation = Euler XYZ (degrees)
 *        RK_TARGET_ROTATION_QUAT others: local.rotation (normalised); FBX:
 *                                converted to Euler angles in the node's
 *                                Lcl rotation order into props.rotation
 *        RK_TARGET_SCALE         FBX: props.scaling; others: local.scale
 *        RK_TARGET_MORPH_WEIGHTS curve-based (FBX DeformPercent): value / 100
 *                                -> weight of blend channel morph_channel;
 *                                sampler-based (glTF): component k -> weight
 *                                of channel k
 *        RK_TARGET_FBX_PROPERTY  by property name, FBX nodes only:
 *          "Lcl Translation", "Lcl Rotation", "Lcl Scaling",
 *          "RotationOffset", "RotationPivot", "ScalingOffset",
 *          "ScalingPivot", "PreRotation", "PostRotation",
 *          "GeometricTranslation", "GeometricRotation", "GeometricScaling";
 *          other names are ignored.
 *      Curve-based tracks give 4 values: curves[k] evaluated, or
 *      default_value[k] where curves[k] is NULL.
 *      Layer blending (w = layer weight clamped to [0, 1]; the FIRST layer
 *      always applies as a full-weight override, like FBX's base layer, so
 *      loaders that leave its weight 0 still animate):
 *        OVERRIDE, OVERRIDE_PASSTHROUGH  value = lerp(previous, layer, w)
 *          (w = 1: plain assignment); Euler rotations component-wise when
 *          rotation_accumulate_by_component, else by quaternion slerp in the
 *          node's rotation order; glTF rotations by slerp.
 *        ADDITIVE  translation-like: previous + w * layer; Euler rotation
 *          component-wise: previous + w * layer, by layer: q_prev *
 *          slerp(identity, q_layer, w); scale: scale_accumulate_multiply ?
 *          previous * layer^w : previous + w * layer (the FBX SDK's
 *          ScaleAccumulationMode additive, docs/fbx.md); weights:
 *          previous + w * layer.
 *      RK_ROTATION_SPHERIC_XYZ nodes interpolate their Euler curves per
 *      component like XYZ (quaternion interpolation of FBX "spheric"
 *      rotation is not implemented). Then nodes with FBX transform limits
 *      (rk_node.has_limits) get their Lcl Translation / Rotation / Scaling
 *      clamped (rk_transform_limits_apply, transform.h), as the FBX SDK does.
 *   3. Matrices, mirroring the scene's cached static matrices exactly:
 *        root (RK_NODE_ROOT): node_to_parent = node->node_to_parent (the
 *          load conversion), geometry_to_node = identity;
 *        FBX nodes: node_to_parent = rk_fbx_node_to_parent(props, adjust),
 *          geometry_to_node = rk_fbx_geometry_to_node(props),
 *          local = rk_mat4_decompose(node_to_parent);
 *        other nodes: node_to_parent = the adjust chain of transform.h
 *          around T * R * S of local, geometry_to_node = identity;
 *        node_to_world etc. by rk_world_transform_compose() with the parent's pose
 *          values and props.inherit_mode (FBX) / NORMAL (others);
 *        geometry_to_world = node_to_world * geometry_to_node.
 *   With clip == NULL the pose equals the scene's cached matrices bit for bit.
 *
 * DEFORMATION (rk_mesh_world_positions_eval / _normals)
 *   1. Blend shapes (mesh space): channel weight w spreads over the
 *      channel's targets by rk_blend_channel_factors_eval(); each target adds
 *      factor * position_offsets[j] to vertex vertex_indices[j] (normals:
 *      factor * normal_offsets[j] when present), the factor multiplied by
 *      offset_weights[j] when the shape has per-offset weights.
 *   2. Skinning when node->skin is set (see scene.h SPACES AND MATRICES):
 *      per joint J_i = pose node_to_world(joint) * mesh_to_joint *
 *      geometry_to_node(mesh node). Weights of joints without a (valid) node
 *      are dropped; the rest are renormalised to sum 1. A vertex without
 *      usable weights uses the mesh node's geometry_to_world.
 *        LINEAR, RIGID:   M = sum w_i J_i
 *        DUAL_QUATERNION: each J_i = T_i * R_i * X_i (rk_mat4_decompose's
 *          rotation R_i and translation T_i, X_i = R_i^T * upper3x3(J_i) the
 *          remaining scale/shear/mirror). The rigid parts blend as unit dual
 *          quaternions (signs aligned to the first influence, normalised);
 *          the X_i blend linearly: M = T_dq * R_dq * sum w_i X_i. Without
 *          scale this is plain DQ skinning; with scale it is T*R*S with the
 *          scales blended linearly, as the conformance corpus expects.
 *        BLENDED_DQ: M = (1 - a) M_linear + a M_dq, a = skin->dq_weights[v]
 *          (clamped to [0, 1]; NULL -> 0).
 *      position = M * p; the skinned mesh node's own transform is not
 *      applied again.
 *      Instancing: when node->mesh is used by two or more nodes and one of
 *      them has a bind pose (the first such in node order, B =
 *      bind_node_to_world, file space), the skinned result is carried to
 *      each instance: position = geometry_to_world(node) * inv(C * B) * M * p,
 *      C = the root's node_to_parent (load conversion). Meshes used by one
 *      node (the common case) are unaffected.
 *   3. Unskinned: position = geometry_to_world * p.
 *   Normals: skinned corners use the inverse-transpose of the vertex's M;
 *   unskinned corners the inverse-transpose of node_to_world * Rg, Rg the
 *   geometric ROTATION alone (geometric translation/scaling do not affect
 *   normals, as the conformance corpus specifies). Results are unit length
 *   (zero for zero input).
 *
 * MEMORY AND THREADS
 *   Nothing in this module allocates: every buffer is the caller's (the
 *   pose arrays, output arrays). The scene is only read, so any number of
 *   threads may evaluate the same const scene concurrently as long as each
 *   uses its own rk_pose and output buffers. No global state.
 *
 * UNTRUSTED DATA
 *   rk_pose_eval_validate() checks the scene's node order, the pose's
 *   arrays and every track of the clip, so a run never reads out of bounds.
 *   The deformation functions check node membership, weight ranges, skin
 *   joint indices and vertex indices; out-of-range entries are skipped.
 */
#ifndef RIGKIT_ANIM_H
#define RIGKIT_ANIM_H

#include "rigkit/scene.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------------
 * Curves and tracks
 * ------------------------------------------------------------------------- */

/* Value of `curve` at `time` (seconds), FBX semantics (see FBX CURVES).
 * A curve with one key is that key's value everywhere. Callers must not pass
 * a curve without keys (or NULL, or NULL times/values): it evaluates to 0.
 * A NaN time evaluates to the first key's value; +-infinity to the held end
 * value. Keys must be strictly increasing in time; otherwise the result is
 * some key value or interpolation between neighbours, never a read outside
 * the arrays. Pure, thread safe, no allocation. */
double rk_anim_curve_eval(const rk_anim_curve *curve, double time, bool no_extrapolation);

/* Number of values a track produces: 4 for curve-based tracks (one per
 * curves[] slot, default_value where NULL), `components` for sampler-based
 * ones (glTF: 3 for translation/scale, 4 for rotation, the morph target
 * count for weights). 0 for NULL. */
size_t rk_anim_track_value_count(const rk_anim_track *track);

/* Evaluates a track at `time` into out[0 .. min(out_count, value count)).
 * Curve-based tracks use rk_anim_curve_eval (no_extrapolation applies);
 * sampler-based tracks follow glTF SAMPLERS. Values are raw: FBX
 * DeformPercent stays in percent, Euler angles in degrees. Returns the
 * track's value count (rk_anim_track_value_count), so out == NULL with
 * out_count == 0 asks for the size. A sampler track whose key_count > 0 but
 * whose times/values are NULL yields zeros. Pure, thread safe, no allocation. */
size_t rk_anim_track_eval(const rk_anim_track *track, double time, bool no_extrapolation,
	double *out, size_t out_count);

/* ---------------------------------------------------------------------------
 * Poses
 * ------------------------------------------------------------------------- */

/* The evaluated state of every node of one scene. All arrays are owned by
 * the caller and have node_count entries (node_count == scene->nodes.count),
 * indexed by rk_node.index, except blend_weights. rk_pose_init() carves all
 * of them out of one caller-provided block. Spaces as in scene.h. */
typedef struct rk_pose {
	size_t node_count;
	rk_transform_props *props;         /* animated FBX transform properties (non-FBX nodes: copy
	                                      of the static props). Required: it is also the
	                                      working state layers accumulate into. */
	rk_trs *local;                     /* glTF: animated TRS; FBX: node_to_parent decomposed */
	rk_mat4 *node_to_parent;
	rk_mat4 *node_to_world;
	rk_mat4 *unscaled_node_to_world;   /* see transform.h INHERIT MODES */
	rk_vec3 *inherit_scale;
	rk_mat4 *geometry_to_node;         /* animated geometric transform (FBX), identity otherwise */
	rk_mat4 *geometry_to_world;        /* node_to_world * geometry_to_node */
	/* Optional blend shape weights (0..1). When blend_weights is NULL, morph
	 * weight tracks are skipped and deformation uses the static weights.
	 * Node i's channel c is blend_weights[blend_offsets[i] + c]; fill
	 * blend_offsets (node_count entries) with rk_pose_blend_layout(). */
	double *blend_weights;             /* blend_weight_count entries */
	size_t blend_weight_count;
	size_t *blend_offsets;
} rk_pose;

/* Blend weight layout: writes offsets[i] = sum of mesh->blend_channels.count
 * over nodes before i (nodes without a mesh count 0) when offsets != NULL,
 * and returns the total (the blend_weights size). 0 for NULL scene.
 * Thread safe, no allocation. */
size_t rk_pose_blend_layout(const rk_scene *scene, size_t *offsets);

/* Bytes rk_pose_init() needs for `scene` (every array, blend weights
 * included, plus alignment slack). 0 for a NULL scene or on size overflow. */
size_t rk_pose_memory_size(const rk_scene *scene);

/* Points every array of *pose into `memory` (size bytes, any alignment;
 * at least rk_pose_memory_size(scene)), sets node_count, fills
 * blend_offsets/blend_weight_count. Contents other than the offsets are
 * left unset until a pose job runs. The pose does not own the memory: free
 * it yourself after the last use. Returns false (pose zeroed) when an
 * argument is NULL or size is too small. No allocation. */
bool rk_pose_init(rk_pose *pose, const rk_scene *scene, void *memory, size_t size);

/* Job: evaluate every node of `scene` at `time` into `pose`.
 * Zero-initialise, then set the fields; see POSE EVALUATION. */
typedef struct rk_pose_eval_job {
	const rk_scene *scene;       /* required; nodes in depth-first order (loaders guarantee it) */
	const rk_anim_clip *clip;    /* NULL = static values (the pose equals the cached matrices) */
	double time;                 /* seconds, absolute file time; must be finite */
	bool no_extrapolation;       /* hold end values of FBX curves instead of extrapolating */
	rk_pose *pose;               /* output, required (see rk_pose for required arrays) */
} rk_pose_eval_job;

/* Checks the job without evaluating. Rules, each reported with its own
 * message in err (code RK_ERROR_INVALID_ARGUMENT; err may be NULL):
 *   job, job->scene and job->pose are non-NULL; the scene has nodes, each
 *   nodes.data[i].index == i and every parent is an earlier node;
 *   pose->node_count == scene->nodes.count; props, local, node_to_parent,
 *   node_to_world, unscaled_node_to_world, inherit_scale, geometry_to_node,
 *   geometry_to_world are non-NULL; when blend_weights is set, blend_offsets
 *   is set and every node's channels fit in blend_weight_count; time is
 *   finite; clip layers/tracks arrays exist for their counts; every track's
 *   node is a node of this scene, its target and interpolation are known
 *   values, sampler tracks have times and values and the component count
 *   their target needs (translation/scale/Euler 3, quaternion 4, FBX property
 *   1..4, weights >= 1), curves have times and values for their keys.
 * O(nodes + tracks + curves). Thread safe, no allocation. */
bool rk_pose_eval_validate(const rk_pose_eval_job *job, rk_error *err);

/* Runs the job: writes every array of job->pose (blend_weights only when
 * set). Returns false without writing anything when rk_pose_eval_validate
 * would fail (run validates; call validate yourself to learn why).
 * O(nodes + tracks * log(keys)). No allocation. Thread safe as long as no
 * other thread uses the same pose. */
bool rk_pose_eval_run(const rk_pose_eval_job *job);

/* ---------------------------------------------------------------------------
 * Deformation (reference, double)
 * ------------------------------------------------------------------------- */

/* How a blend channel at weight w spreads over its targets: out[k] (k <
 * channel->target_count) is the factor applied to target k's offsets.
 * Targets are fully on at target_weights[k] (ascending; NULL -> (k+1)/n).
 * The weights form a piecewise linear path 0 -> target 0 -> target 1 -> ...:
 * for w between target_weights[k] and target_weights[k+1], targets k and
 * k+1 share linearly; below target_weights[0] target 0 alone gets w /
 * target_weights[0]; beyond the last, the last segment is extended linearly.
 * Thread safe, no allocation. Does nothing for NULL arguments. */
void rk_blend_channel_factors_eval(const rk_blend_channel *channel, double weight, double *out);

/* Skinning matrices for runtime skinning: out[j] (skin->joint_count entries)
 * = pose node_to_world(joint j) * joints[j].mesh_to_joint *
 * pose geometry_to_node(mesh_node), times the instancing matrix of
 * DEFORMATION when the mesh is instanced. A joint without a node of this scene
 * gets the mesh node's geometry_to_world. pose == NULL uses the scene's
 * cached static matrices. Returns false (out untouched) for NULL
 * arguments, a mesh_node not in the scene or a pose of another size.
 * Thread safe, no allocation. */
bool rk_skin_matrices_eval(const rk_scene *scene, const rk_skin_deformer *skin, const rk_pose *pose,
	const rk_node *mesh_node, rk_mat4 *out);

/* World-space vertex positions of node->mesh for `pose` (see DEFORMATION):
 * out_positions gets node->mesh->vertex_count entries, in the mesh's vertex
 * order (corner c's position is out_positions[mesh->vertex_indices[c]]).
 * pose == NULL evaluates the static scene (cached matrices, node's static
 * blend weights). Blend weights come from pose->blend_weights when set, else
 * node->blend_weights, else each channel's default_weight.
 * Returns false (nothing written) when scene, node or out_positions is NULL,
 * the node is not in the scene, it has no mesh (or a mesh with vertices but
 * no positions), or pose->node_count differs from the scene. Thread safe
 * (reads only scene and pose), no allocation (uses about 8 KiB of stack).
 * Cost: O(vertices * influences + blend offsets). */
bool rk_mesh_world_positions_eval(const rk_scene *scene, const rk_node *node, const rk_pose *pose,
	rk_vec3 *out_positions);

/* World-space normals, one per corner: out_normals gets
 * node->mesh->index_count entries. Uses the mesh's stored normals
 * (rk_mesh.normals); returns false (nothing written) when the mesh has none,
 * and for the same argument errors as rk_mesh_world_positions_eval. Blend
 * shape normal offsets are added before skinning (a linear scan per corner
 * when a target's vertex_indices are not ascending, a binary search
 * otherwise). Corners whose normal index is out of range get (0, 0, 0).
 * Thread safe, no allocation. */
bool rk_mesh_world_normals_eval(const rk_scene *scene, const rk_node *node, const rk_pose *pose,
	rk_vec3 *out_normals);

#ifdef __cplusplus
}
#endif
#endif
