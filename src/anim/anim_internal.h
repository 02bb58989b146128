/*
 * src/anim/anim_internal.h - helpers shared by the anim module's files.
 */
#ifndef RIGKIT_ANIM_INTERNAL_H
#define RIGKIT_ANIM_INTERNAL_H

#include "rigkit/anim.h"

/* True when the track is sampler-based (glTF keyframes): every curves[]
 * slot is NULL and it has keys. */
bool rki_anim_track_is_sampled(const rk_anim_track *track);

/* Component k of a sampler-based track at `time` (k < components), without
 * quaternion handling (plain step/lerp/Hermite). 0 for bad input. */
double rki_anim_sample_component(const rk_anim_track *track, double time, uint32_t k);

/* rk_anim_track_eval with a key cursor for a caller that samples one track
 * at increasing times: *hint (0 at first) is the sampler-based track's last
 * key interval, tried before a binary search and updated. The values are
 * those of rk_anim_track_eval (the same interval on times sorted as the
 * loaders keep them); curve-based tracks ignore it. */
size_t rki_anim_track_eval_hint(const rk_anim_track *track, double time, bool no_extrapolation,
	double *out, size_t out_count, size_t *hint);

/* Where a sampler-based track with times and values (key_count > 0) is at
 * `time`, as rk_anim_track_eval finds it: the key returned alone (*u < 0,
 * STEP keys and the ends included) or blended with the next one at *u in
 * (0, 1). hint as rki_anim_track_eval_hint (NULL: none). */
size_t rki_anim_track_locate(const rk_anim_track *track, double time, size_t *hint, double *u);

/* rk_anim_curve_eval with a key cursor for a caller that samples the curve
 * at increasing times: *hint (0 at first) is tried, then its successor,
 * before the binary search. The same value on times sorted as
 * rki_anim_curve_sorted checks (hint NULL: none). */
double rki_anim_curve_eval_hint(const rk_anim_curve *curve, double time, bool no_extrapolation, size_t *hint);
bool rki_anim_curve_sorted(const rk_anim_curve *curve);

/* rk_pose_eval_run for a subset of the nodes, for a baker that reads their
 * local transforms at many times: nodes[0..count) (each index once; in_set,
 * one byte per scene node, is non-zero exactly for them) get the static
 * values, the clip's tracks on them (layer by layer), their transform
 * limits and node_to_parent, the same values rk_pose_eval_run gives them;
 * local (nodes without FBX properties) and props (FBX nodes) and their
 * blend weights as rk_pose_eval_run leaves them before its matrix step.
 * Not written: every other node, and for these nodes the world matrices
 * (node_to_world, unscaled_node_to_world, inherit_scale, geometry_*) and
 * an FBX node's local. The job must have passed rk_pose_eval_validate
 * (not checked again). No allocation. */
void rki_pose_eval_nodes(const rk_pose_eval_job *job, const uint32_t *nodes, size_t count, const uint8_t *in_set);

#endif
