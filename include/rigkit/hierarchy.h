/*
 * rigkit/hierarchy.h - a mutable parent/child transform hierarchy (seed 003).
 *
 * OVERVIEW
 *   Game-engine style transforms: each item has a local position, rotation
 *   (unit quaternion) and scale relative to its parent. World values are
 *   derived:
 *     local_to_world(i) = local_to_world(parent) * T(i) * R(i) * S(i)
 *     world rotation    = world rotation(parent) * local rotation
 *     world position    = translation of local_to_world(i)
 *     lossy scale       = per-axis scale of local_to_world(i) decomposed;
 *                         APPROXIMATE when a rotated child sits under a
 *                         non-uniformly scaled parent (the world matrix then
 *                         shears and no scale vector describes it exactly).
 *   World setters go through the parent's inverse:
 *     local position = inverse(parent local_to_world) * world position
 *     local rotation = inverse(parent world rotation) * world rotation
 *   Re-parenting keeps either the world transform (local recomputed; exact
 *   without shear) or the local values.
 *
 * OWNERSHIP AND THREADS
 *   rk_hierarchy is opaque because parent links must stay acyclic. Created
 *   with rk_hierarchy_create, released with rk_hierarchy_destroy. Readers may
 *   run concurrently on a hierarchy nobody modifies; modification needs
 *   exclusive access. World queries walk the parent chain (O(depth)) and
 *   never allocate; only rk_hierarchy_add may grow storage.
 *
 * INDICES
 *   Items are numbered 0, 1, ... in creation order. RK_NO_PARENT (-1) marks
 *   a root. Functions taking an invalid index return false / a neutral value
 *   (identity, zero vector) and change nothing.
 */
#ifndef RIGKIT_HIERARCHY_H
#define RIGKIT_HIERARCHY_H

#include "rigkit/math.h"

#ifdef __cplusplus
extern "C" {
#endif

#define RK_NO_PARENT (-1)

typedef struct rk_hierarchy rk_hierarchy;

/* Creates an empty hierarchy with room for `capacity` items (grows as
 * needed). alloc may be NULL (malloc/free). NULL on allocation failure. */
rk_hierarchy *rk_hierarchy_create(size_t capacity, const rk_allocator *alloc);
void rk_hierarchy_destroy(rk_hierarchy *h);

/* Adds an item under `parent` (RK_NO_PARENT for a root) with the given local
 * TRS. Returns its index, or -1 when parent is invalid or memory ran out. */
int32_t rk_hierarchy_add(rk_hierarchy *h, int32_t parent, rk_trs local);
size_t rk_hierarchy_count(const rk_hierarchy *h);
int32_t rk_hierarchy_parent(const rk_hierarchy *h, int32_t i);

/* Local (parent-space) values. */
rk_trs rk_hierarchy_get_local(const rk_hierarchy *h, int32_t i);
bool rk_hierarchy_set_local(rk_hierarchy *h, int32_t i, rk_trs local);
rk_vec3 rk_hierarchy_get_local_position(const rk_hierarchy *h, int32_t i);
rk_quat rk_hierarchy_get_local_rotation(const rk_hierarchy *h, int32_t i);
rk_vec3 rk_hierarchy_get_local_scale(const rk_hierarchy *h, int32_t i);
bool rk_hierarchy_set_local_position(rk_hierarchy *h, int32_t i, rk_vec3 p);
bool rk_hierarchy_set_local_rotation(rk_hierarchy *h, int32_t i, rk_quat q);  /* normalised on store */
bool rk_hierarchy_set_local_scale(rk_hierarchy *h, int32_t i, rk_vec3 s);

/* World values. */
rk_mat4 rk_hierarchy_local_to_world(const rk_hierarchy *h, int32_t i);
rk_mat4 rk_hierarchy_world_to_local(const rk_hierarchy *h, int32_t i);  /* inverse; identity if singular */
rk_vec3 rk_hierarchy_get_world_position(const rk_hierarchy *h, int32_t i);
rk_quat rk_hierarchy_get_world_rotation(const rk_hierarchy *h, int32_t i);
rk_vec3 rk_hierarchy_get_lossy_scale(const rk_hierarchy *h, int32_t i);
/* Sets the world position/rotation by solving for the local value through
 * the parent's inverse. False if the parent's matrix is singular. */
bool rk_hierarchy_set_world_position(rk_hierarchy *h, int32_t i, rk_vec3 p);
bool rk_hierarchy_set_world_rotation(rk_hierarchy *h, int32_t i, rk_quat q);

/* Points in and out of an item's space. */
rk_vec3 rk_hierarchy_transform_point(const rk_hierarchy *h, int32_t i, rk_vec3 local_point);
rk_vec3 rk_hierarchy_inverse_transform_point(const rk_hierarchy *h, int32_t i, rk_vec3 world_point);
rk_vec3 rk_hierarchy_transform_direction(const rk_hierarchy *h, int32_t i, rk_vec3 local_dir); /* rotation only */

/* Moves item i under new_parent (RK_NO_PARENT for none). keep_world = true
 * keeps its world position/rotation/lossy scale (local recomputed);
 * false keeps the local values (so it moves in the world). False, and no
 * change, if that would create a cycle or an index is invalid. */
bool rk_hierarchy_set_parent(rk_hierarchy *h, int32_t i, int32_t new_parent, bool keep_world);

/* Rotates item i so that its local +Z axis points at `world_target`, with
 * its +Y as close as possible to `world_up`. False if the target is at the
 * item's own position. */
bool rk_hierarchy_look_at(rk_hierarchy *h, int32_t i, rk_vec3 world_target, rk_vec3 world_up);

/* Rotates item i about the world-space line through `world_point` along
 * `world_axis` by `radians` (position and rotation both change). */
bool rk_hierarchy_rotate_around(rk_hierarchy *h, int32_t i, rk_vec3 world_point, rk_vec3 world_axis, double radians);

#ifdef __cplusplus
}
#endif
#endif
