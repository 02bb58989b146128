/*
 * rigkit/hierarchy.h - a mutable parent/child transform hierarchy
 * (docs/hierarchy.md).
 *
 * OVERVIEW
 *   Game-engine style transforms: each item has a local position, rotation
 *   (unit quaternion) and scale relative to its parent. World values are
 *   derived (column vectors, rightmost applied first):
 *     local_to_world(i) = local_to_world(parent) * T(i) * R(i) * S(i)
 *     world rotation    = world rotation(parent) * local rotation(i)
 *                         (a quaternion product: scale never enters it)
 *     world position    = translation of local_to_world(i)
 *                       = parent.position + parent.rotation *
 *                         (parent scale applied per level) * local position
 *     lossy scale       = diagonal of  R_w^-1 * L,  where L is the upper 3x3
 *                         of local_to_world(i) and R_w the world rotation.
 *   When L = R_w * diag(s) (no shear) the lossy scale is exactly s, signs of
 *   negative scales included. It is APPROXIMATE when a child rotated by a
 *   non-axis-aligned angle sits under a non-uniformly scaled parent: L then
 *   shears, no scale vector describes it, and the lossy scale is only the
 *   stretch along the world rotation's axes (a bit below the lengths of L's
 *   columns). The lossy scale cannot be set (like Unity's lossyScale).
 *
 *   World setters go through the parent's inverse:
 *     local position = inverse(parent local_to_world) * world position
 *     local rotation = inverse(parent world rotation) * world rotation
 *   Re-parenting keeps either the world transform (local recomputed; exact
 *   without shear) or the local values.
 *
 *   "Forward" is local +Z, "up" local +Y, "right" local +X. Directions follow
 *   the world rotation only; vectors and points also get the scales.
 *
 * OWNERSHIP AND THREADS
 *   rk_hierarchy is opaque because parent links must stay acyclic. Created
 *   with rk_hierarchy_create, released with rk_hierarchy_destroy. Storage is
 *   structure-of-arrays (position, rotation, scale, parent), one block from
 *   the allocator, grown by doubling. Readers may run concurrently on a
 *   hierarchy nobody modifies; modification needs exclusive access. World
 *   queries walk the parent chain (O(depth), no recursion) and never
 *   allocate; only rk_hierarchy_add may grow storage. No global state.
 *
 * INDICES
 *   Items are numbered 0, 1, ... in creation order. RK_NO_PARENT (-1) marks
 *   a root. An invalid index (negative, >= count, or h == NULL) reads as an
 *   identity transform: getters return rk_trs_identity() parts (position 0,
 *   rotation identity, scale 1), matrices the identity, point/vector/
 *   direction transforms return their input unchanged, rk_hierarchy_parent
 *   returns RK_NO_PARENT. Functions returning bool return false and change
 *   nothing. Parents always exist before their children are added and
 *   rk_hierarchy_set_parent refuses cycles, so the depth is below count.
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
 * needed; 0 allocates nothing yet). alloc may be NULL (malloc/free); it is
 * copied. NULL on allocation failure or capacity > INT32_MAX. */
rk_hierarchy *rk_hierarchy_create(size_t capacity, const rk_allocator *alloc);
/* Frees everything; NULL is ignored. */
void rk_hierarchy_destroy(rk_hierarchy *h);

/* Adds an item under `parent` (RK_NO_PARENT for a root) with the given local
 * TRS (rotation normalised on store). Returns its index, or -1 when parent
 * is invalid, INT32_MAX items exist, or memory ran out (nothing changes). */
int32_t rk_hierarchy_add(rk_hierarchy *h, int32_t parent, rk_trs local);
size_t rk_hierarchy_count(const rk_hierarchy *h);            /* 0 for NULL */
int32_t rk_hierarchy_parent(const rk_hierarchy *h, int32_t i);

/* Local (parent-space) values. Setters store values as given except that
 * rotations are normalised (a zero quaternion becomes the identity). */
rk_trs rk_hierarchy_get_local(const rk_hierarchy *h, int32_t i);
bool rk_hierarchy_set_local(rk_hierarchy *h, int32_t i, rk_trs local);
rk_vec3 rk_hierarchy_get_local_position(const rk_hierarchy *h, int32_t i);
rk_quat rk_hierarchy_get_local_rotation(const rk_hierarchy *h, int32_t i);
rk_vec3 rk_hierarchy_get_local_scale(const rk_hierarchy *h, int32_t i);
bool rk_hierarchy_set_local_position(rk_hierarchy *h, int32_t i, rk_vec3 p);
bool rk_hierarchy_set_local_rotation(rk_hierarchy *h, int32_t i, rk_quat q);  /* normalised on store */
bool rk_hierarchy_set_local_scale(rk_hierarchy *h, int32_t i, rk_vec3 s);

/* World values (see OVERVIEW for the formulas). */
rk_mat4 rk_hierarchy_local_to_world(const rk_hierarchy *h, int32_t i);
rk_mat4 rk_hierarchy_world_to_local(const rk_hierarchy *h, int32_t i);  /* inverse; identity if singular */
rk_vec3 rk_hierarchy_get_world_position(const rk_hierarchy *h, int32_t i);
rk_quat rk_hierarchy_get_world_rotation(const rk_hierarchy *h, int32_t i);  /* unit */
rk_vec3 rk_hierarchy_get_lossy_scale(const rk_hierarchy *h, int32_t i);     /* approximate under shear */
/* Sets the world position/rotation by solving for the local value through
 * the parent's inverse. Position: false (no change) if the parent's matrix
 * is singular (a zero scale somewhere above). Rotation never fails for a
 * valid index; the quaternion is normalised. The world rotation reads back
 * exactly; under a non-uniformly scaled parent the rendered axes
 * (local_to_world columns) still shear, see OVERVIEW. */
bool rk_hierarchy_set_world_position(rk_hierarchy *h, int32_t i, rk_vec3 p);
bool rk_hierarchy_set_world_rotation(rk_hierarchy *h, int32_t i, rk_quat q);

/* Points, vectors and directions in and out of an item's space.
 * transform_point:   local_to_world(i) * p (scale, rotation, translation).
 * inverse_transform_point: world_to_local(i) * p (p unchanged if singular).
 * transform_vector:  local_to_world(i) without translation (scale and
 *                    rotation; lengths change, shear shows).
 * transform_direction / inverse_transform_direction: world rotation only
 *                    (lengths kept), e.g. the world forward is
 *                    transform_direction(h, i, (0, 0, 1)). */
rk_vec3 rk_hierarchy_transform_point(const rk_hierarchy *h, int32_t i, rk_vec3 local_point);
rk_vec3 rk_hierarchy_inverse_transform_point(const rk_hierarchy *h, int32_t i, rk_vec3 world_point);
rk_vec3 rk_hierarchy_transform_vector(const rk_hierarchy *h, int32_t i, rk_vec3 local_vector);
rk_vec3 rk_hierarchy_transform_direction(const rk_hierarchy *h, int32_t i, rk_vec3 local_dir);
rk_vec3 rk_hierarchy_inverse_transform_direction(const rk_hierarchy *h, int32_t i, rk_vec3 world_dir);

/* Moves item i under new_parent (RK_NO_PARENT for none). keep_world = true
 * keeps its world position and world rotation exactly and its lossy scale
 * when the result has no shear: local position = inverse(new parent
 * local_to_world) * world position, local rotation = inverse(new parent
 * world rotation) * world rotation, local scale = diagonal of
 * local_rotation^-1 * (upper 3x3 of inverse(new parent) * old
 * local_to_world). keep_world = false keeps the local values (so the item
 * moves in the world). Returns false, and changes nothing, if new_parent is
 * i or one of its descendants (a cycle), an index is invalid, or (keep_world
 * only) the new parent's matrix is singular. Descendants of i keep their
 * local values (they follow i). Setting the current parent again returns
 * true and changes nothing. */
bool rk_hierarchy_set_parent(rk_hierarchy *h, int32_t i, int32_t new_parent, bool keep_world);

/* Sets item i's world rotation to rk_quat_look_rotation(target - position,
 * world_up): its forward (transform_direction of +Z) points at
 * `world_target`, its up (+Y) as close as possible to `world_up` (another up
 * is picked when they are parallel). The position does not change. False
 * (no change) if the target is at the item's position (distance below
 * 1e-12 * max(1, |position|, |target|)) or not finite. */
bool rk_hierarchy_look_at(rk_hierarchy *h, int32_t i, rk_vec3 world_target, rk_vec3 world_up);

/* Rotates item i about the world-space line through `world_point` along
 * `world_axis` (need not be unit) by `radians`, right-handed (counter-
 * clockwise looking against the axis):
 *   world position = point + q * (position - point), world rotation = q *
 *   world rotation, q = rk_quat_axis_angle(world_axis, radians).
 * False (no change) for a zero axis or when the parent's matrix is singular. */
bool rk_hierarchy_rotate_around(rk_hierarchy *h, int32_t i, rk_vec3 world_point, rk_vec3 world_axis, double radians);

#ifdef __cplusplus
}
#endif
#endif
