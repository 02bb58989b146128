/* src/hierarchy/hierarchy.c - mutable parent/child transform hierarchy (see rigkit/hierarchy.h).
 *
 * Storage is structure-of-arrays inside one allocation:
 *   [rotation: cap * rk_quat][position: cap * rk_vec3][scale: cap * rk_vec3][parent: cap * int32_t]
 * (largest alignment first, every section size a multiple of 8 bytes).
 * Growing allocates the new block, copies, then frees the old one, so a
 * failed growth leaves the hierarchy untouched.
 *
 * World values are computed by walking the parent chain from the item up to
 * its root; the walk is bounded by `count` steps. set_parent refuses cycles
 * and add only accepts existing parents, so the bound is never reached by a
 * valid hierarchy; it only guards against memory corruption.
 */
#include "rigkit/hierarchy.h"

#include "core/internal.h"

#include <math.h>
#include <string.h>

struct rk_hierarchy {
	rki_alloc alloc;
	size_t count;
	size_t cap;
	void *block;          /* one allocation holding the four arrays below */
	size_t block_size;
	rk_quat *rotation;    /* local rotation, unit */
	rk_vec3 *position;    /* local position (parent space) */
	rk_vec3 *scale;       /* local scale */
	int32_t *parent;      /* RK_NO_PARENT or an index < count */
};

#define RKI_HIER_ITEM_BYTES (sizeof(rk_quat) + 2 * sizeof(rk_vec3) + sizeof(int32_t))
#define RKI_HIER_MAX_ITEMS ((size_t)INT32_MAX)

/* ---- storage -------------------------------------------------------------- */

/* Points the four arrays into `block` laid out for `cap` items. */
static void rki_hier_layout(rk_hierarchy *h, void *block, size_t cap)
{
	unsigned char *p = (unsigned char *)block;
	h->rotation = (rk_quat *)(void *)p;
	p += cap * sizeof(rk_quat);
	h->position = (rk_vec3 *)(void *)p;
	p += cap * sizeof(rk_vec3);
	h->scale = (rk_vec3 *)(void *)p;
	p += cap * sizeof(rk_vec3);
	h->parent = (int32_t *)(void *)p;
}

/* Reallocates storage to exactly `new_cap` items (>= count). False and no
 * change on overflow or allocation failure. */
static bool rki_hier_reserve(rk_hierarchy *h, size_t new_cap)
{
	if (new_cap <= h->cap) return true;
	if (new_cap > RKI_HIER_MAX_ITEMS) return false;
	size_t size;
	if (!rki_mul_size(new_cap, RKI_HIER_ITEM_BYTES, &size)) return false;
	void *block = rki_malloc(&h->alloc, size);
	if (!block) return false;
	rk_quat *old_rot = h->rotation;
	rk_vec3 *old_pos = h->position, *old_scale = h->scale;
	int32_t *old_parent = h->parent;
	void *old_block = h->block;
	size_t old_size = h->block_size, n = h->count;
	rki_hier_layout(h, block, new_cap);
	if (n > 0) {
		memcpy(h->rotation, old_rot, n * sizeof(rk_quat));
		memcpy(h->position, old_pos, n * sizeof(rk_vec3));
		memcpy(h->scale, old_scale, n * sizeof(rk_vec3));
		memcpy(h->parent, old_parent, n * sizeof(int32_t));
	}
	h->block = block;
	h->block_size = size;
	h->cap = new_cap;
	rki_free(&h->alloc, old_block, old_size);
	return true;
}

rk_hierarchy *rk_hierarchy_create(size_t capacity, const rk_allocator *alloc)
{
	if (capacity > RKI_HIER_MAX_ITEMS) return NULL;
	rki_alloc a;
	rki_alloc_init(&a, alloc, 0, 0);
	rk_hierarchy *h = (rk_hierarchy *)rki_malloc(&a, sizeof(rk_hierarchy));
	if (!h) return NULL;
	memset(h, 0, sizeof(*h));
	h->alloc = a;
	if (capacity > 0 && !rki_hier_reserve(h, capacity)) {
		a = h->alloc;
		rki_free(&a, h, sizeof(rk_hierarchy));
		return NULL;
	}
	return h;
}

void rk_hierarchy_destroy(rk_hierarchy *h)
{
	if (!h) return;
	rki_alloc a = h->alloc;
	rki_free(&a, h->block, h->block_size);
	rki_free(&a, h, sizeof(rk_hierarchy));
}

static bool rki_hier_valid(const rk_hierarchy *h, int32_t i)
{
	return h && i >= 0 && (size_t)i < h->count;
}

int32_t rk_hierarchy_add(rk_hierarchy *h, int32_t parent, rk_trs local)
{
	if (!h) return -1;
	if (parent != RK_NO_PARENT && !rki_hier_valid(h, parent)) return -1;
	if (h->count >= RKI_HIER_MAX_ITEMS) return -1;
	if (h->count == h->cap) {
		size_t new_cap = h->cap < 8 ? 16 : h->cap * 2;
		if (new_cap > RKI_HIER_MAX_ITEMS) new_cap = RKI_HIER_MAX_ITEMS;
		if (!rki_hier_reserve(h, new_cap)) return -1;
	}
	size_t i = h->count++;
	h->rotation[i] = rk_quat_normalize(local.rotation);
	h->position[i] = local.translation;
	h->scale[i] = local.scale;
	h->parent[i] = parent;
	return (int32_t)i;
}

size_t rk_hierarchy_count(const rk_hierarchy *h) { return h ? h->count : 0; }

int32_t rk_hierarchy_parent(const rk_hierarchy *h, int32_t i)
{
	return rki_hier_valid(h, i) ? h->parent[i] : RK_NO_PARENT;
}

/* ---- local values ------------------------------------------------------------ */

rk_trs rk_hierarchy_get_local(const rk_hierarchy *h, int32_t i)
{
	if (!rki_hier_valid(h, i)) return rk_trs_identity();
	return (rk_trs){ h->position[i], h->rotation[i], h->scale[i] };
}

bool rk_hierarchy_set_local(rk_hierarchy *h, int32_t i, rk_trs local)
{
	if (!rki_hier_valid(h, i)) return false;
	h->position[i] = local.translation;
	h->rotation[i] = rk_quat_normalize(local.rotation);
	h->scale[i] = local.scale;
	return true;
}

rk_vec3 rk_hierarchy_get_local_position(const rk_hierarchy *h, int32_t i)
{
	return rki_hier_valid(h, i) ? h->position[i] : (rk_vec3){ 0, 0, 0 };
}

rk_quat rk_hierarchy_get_local_rotation(const rk_hierarchy *h, int32_t i)
{
	return rki_hier_valid(h, i) ? h->rotation[i] : RK_QUAT_IDENTITY;
}

rk_vec3 rk_hierarchy_get_local_scale(const rk_hierarchy *h, int32_t i)
{
	return rki_hier_valid(h, i) ? h->scale[i] : (rk_vec3){ 1, 1, 1 };
}

bool rk_hierarchy_set_local_position(rk_hierarchy *h, int32_t i, rk_vec3 p)
{
	if (!rki_hier_valid(h, i)) return false;
	h->position[i] = p;
	return true;
}

bool rk_hierarchy_set_local_rotation(rk_hierarchy *h, int32_t i, rk_quat q)
{
	if (!rki_hier_valid(h, i)) return false;
	h->rotation[i] = rk_quat_normalize(q);
	return true;
}

bool rk_hierarchy_set_local_scale(rk_hierarchy *h, int32_t i, rk_vec3 s)
{
	if (!rki_hier_valid(h, i)) return false;
	h->scale[i] = s;
	return true;
}

/* ---- chain walks ------------------------------------------------------------- */

/* local_to_world of a valid index or RK_NO_PARENT (identity). */
static rk_mat4 rki_hier_l2w(const rk_hierarchy *h, int32_t i)
{
	rk_mat4 m = rk_mat4_identity();
	size_t steps = 0;
	for (int32_t j = i; j != RK_NO_PARENT && steps < h->count; j = h->parent[j], steps++) {
		rk_trs t = { h->position[j], h->rotation[j], h->scale[j] };
		m = rk_mat4_mul(rk_mat4_from_trs(t), m);
	}
	return m;
}

/* World rotation of a valid index or RK_NO_PARENT (identity). */
static rk_quat rki_hier_world_rot(const rk_hierarchy *h, int32_t i)
{
	rk_quat q = RK_QUAT_IDENTITY;
	size_t steps = 0;
	for (int32_t j = i; j != RK_NO_PARENT && steps < h->count; j = h->parent[j], steps++)
		q = rk_quat_mul(h->rotation[j], q);
	return rk_quat_normalize(q);
}

/* Applies T * R * S of every item from i up to the root to p (translation
 * only when `point`). Same result as local_to_world(i) * p, without
 * building matrices. */
static rk_vec3 rki_hier_chain_apply(const rk_hierarchy *h, int32_t i, rk_vec3 p, bool point)
{
	size_t steps = 0;
	for (int32_t j = i; j != RK_NO_PARENT && steps < h->count; j = h->parent[j], steps++) {
		p = rk_quat_rotate(h->rotation[j], rk_vec3_mul(h->scale[j], p));
		if (point) p = rk_vec3_add(p, h->position[j]);
	}
	return p;
}

/* True if `ancestor` is i itself or on i's parent chain. */
static bool rki_hier_is_self_or_ancestor(const rk_hierarchy *h, int32_t ancestor, int32_t i)
{
	size_t steps = 0;
	for (int32_t j = i; j != RK_NO_PARENT && steps <= h->count; j = h->parent[j], steps++)
		if (j == ancestor) return true;
	return false;
}

/* Diagonal of R^T * L for the upper 3x3 L of m and the rotation matrix R of q:
 * entry k is (column k of R) . (column k of L). */
static rk_vec3 rki_scale_along(rk_mat4 m, rk_quat q)
{
	rk_vec3 lx = { m.m[0], m.m[1], m.m[2] };
	rk_vec3 ly = { m.m[4], m.m[5], m.m[6] };
	rk_vec3 lz = { m.m[8], m.m[9], m.m[10] };
	return (rk_vec3){
		rk_vec3_dot(rk_quat_rotate(q, (rk_vec3){ 1, 0, 0 }), lx),
		rk_vec3_dot(rk_quat_rotate(q, (rk_vec3){ 0, 1, 0 }), ly),
		rk_vec3_dot(rk_quat_rotate(q, (rk_vec3){ 0, 0, 1 }), lz),
	};
}

/* Local position that puts valid item i at world position p, through the
 * inverse of its parent's local_to_world. */
static bool rki_hier_solve_local_position(const rk_hierarchy *h, int32_t i, rk_vec3 p, rk_vec3 *out)
{
	int32_t parent = h->parent[i];
	if (parent == RK_NO_PARENT) {
		*out = p;
		return true;
	}
	rk_mat4 inv;
	if (!rk_mat4_invert_affine(rki_hier_l2w(h, parent), &inv)) return false;
	*out = rk_mat4_transform_point(inv, p);
	return true;
}

/* Local rotation that gives valid item i the world rotation q. */
static rk_quat rki_hier_solve_local_rotation(const rk_hierarchy *h, int32_t i, rk_quat q)
{
	rk_quat pw = rki_hier_world_rot(h, h->parent[i]);
	return rk_quat_normalize(rk_quat_mul(rk_quat_conjugate(pw), rk_quat_normalize(q)));
}

/* ---- world values --------------------------------------------------------------- */

rk_mat4 rk_hierarchy_local_to_world(const rk_hierarchy *h, int32_t i)
{
	if (!rki_hier_valid(h, i)) return rk_mat4_identity();
	return rki_hier_l2w(h, i);
}

rk_mat4 rk_hierarchy_world_to_local(const rk_hierarchy *h, int32_t i)
{
	if (!rki_hier_valid(h, i)) return rk_mat4_identity();
	rk_mat4 inv;
	rk_mat4_invert_affine(rki_hier_l2w(h, i), &inv); /* identity when singular */
	return inv;
}

rk_vec3 rk_hierarchy_get_world_position(const rk_hierarchy *h, int32_t i)
{
	if (!rki_hier_valid(h, i)) return (rk_vec3){ 0, 0, 0 };
	return rki_hier_chain_apply(h, i, (rk_vec3){ 0, 0, 0 }, true);
}

rk_quat rk_hierarchy_get_world_rotation(const rk_hierarchy *h, int32_t i)
{
	if (!rki_hier_valid(h, i)) return RK_QUAT_IDENTITY;
	return rki_hier_world_rot(h, i);
}

rk_vec3 rk_hierarchy_get_lossy_scale(const rk_hierarchy *h, int32_t i)
{
	if (!rki_hier_valid(h, i)) return (rk_vec3){ 1, 1, 1 };
	return rki_scale_along(rki_hier_l2w(h, i), rki_hier_world_rot(h, i));
}

bool rk_hierarchy_set_world_position(rk_hierarchy *h, int32_t i, rk_vec3 p)
{
	if (!rki_hier_valid(h, i)) return false;
	rk_vec3 local;
	if (!rki_hier_solve_local_position(h, i, p, &local)) return false;
	h->position[i] = local;
	return true;
}

bool rk_hierarchy_set_world_rotation(rk_hierarchy *h, int32_t i, rk_quat q)
{
	if (!rki_hier_valid(h, i)) return false;
	h->rotation[i] = rki_hier_solve_local_rotation(h, i, q);
	return true;
}

/* ---- points and directions -------------------------------------------------------- */

rk_vec3 rk_hierarchy_transform_point(const rk_hierarchy *h, int32_t i, rk_vec3 local_point)
{
	if (!rki_hier_valid(h, i)) return local_point;
	return rki_hier_chain_apply(h, i, local_point, true);
}

rk_vec3 rk_hierarchy_inverse_transform_point(const rk_hierarchy *h, int32_t i, rk_vec3 world_point)
{
	if (!rki_hier_valid(h, i)) return world_point;
	rk_mat4 inv;
	if (!rk_mat4_invert_affine(rki_hier_l2w(h, i), &inv)) return world_point;
	return rk_mat4_transform_point(inv, world_point);
}

rk_vec3 rk_hierarchy_transform_vector(const rk_hierarchy *h, int32_t i, rk_vec3 local_vector)
{
	if (!rki_hier_valid(h, i)) return local_vector;
	return rki_hier_chain_apply(h, i, local_vector, false);
}

rk_vec3 rk_hierarchy_transform_direction(const rk_hierarchy *h, int32_t i, rk_vec3 local_dir)
{
	if (!rki_hier_valid(h, i)) return local_dir;
	return rk_quat_rotate(rki_hier_world_rot(h, i), local_dir);
}

rk_vec3 rk_hierarchy_inverse_transform_direction(const rk_hierarchy *h, int32_t i, rk_vec3 world_dir)
{
	if (!rki_hier_valid(h, i)) return world_dir;
	return rk_quat_rotate(rk_quat_conjugate(rki_hier_world_rot(h, i)), world_dir);
}

/* ---- re-parenting and helpers -------------------------------------------------- */

bool rk_hierarchy_set_parent(rk_hierarchy *h, int32_t i, int32_t new_parent, bool keep_world)
{
	if (!rki_hier_valid(h, i)) return false;
	if (new_parent != RK_NO_PARENT && !rki_hier_valid(h, new_parent)) return false;
	if (new_parent == h->parent[i]) return true;
	/* A cycle appears exactly when i is new_parent or one of its ancestors. */
	if (new_parent != RK_NO_PARENT && rki_hier_is_self_or_ancestor(h, i, new_parent)) return false;
	if (!keep_world) {
		h->parent[i] = new_parent;
		return true;
	}
	/* Express the current world transform in the new parent's space. */
	rk_mat4 world = rki_hier_l2w(h, i);
	rk_quat world_rot = rki_hier_world_rot(h, i);
	rk_mat4 parent_inv = rk_mat4_identity();
	rk_quat parent_rot = RK_QUAT_IDENTITY;
	if (new_parent != RK_NO_PARENT) {
		if (!rk_mat4_invert_affine(rki_hier_l2w(h, new_parent), &parent_inv)) return false;
		parent_rot = rki_hier_world_rot(h, new_parent);
	}
	rk_mat4 local = rk_mat4_mul(parent_inv, world);
	rk_quat local_rot = rk_quat_normalize(rk_quat_mul(rk_quat_conjugate(parent_rot), world_rot));
	h->position[i] = rk_mat4_get_translation(local);
	h->rotation[i] = local_rot;
	h->scale[i] = rki_scale_along(local, local_rot);
	h->parent[i] = new_parent;
	return true;
}

bool rk_hierarchy_look_at(rk_hierarchy *h, int32_t i, rk_vec3 world_target, rk_vec3 world_up)
{
	if (!rki_hier_valid(h, i)) return false;
	rk_vec3 pos = rki_hier_chain_apply(h, i, (rk_vec3){ 0, 0, 0 }, true);
	rk_vec3 forward = rk_vec3_sub(world_target, pos);
	double dist = rk_vec3_length(forward);
	double mag = fmax(1.0, fmax(rk_vec3_length(pos), rk_vec3_length(world_target)));
	if (!isfinite(dist) || !isfinite(mag) || !(dist >= 1e-12 * mag)) return false;
	rk_quat q = rk_quat_look_rotation(rk_vec3_scale(forward, 1.0 / dist), world_up);
	h->rotation[i] = rki_hier_solve_local_rotation(h, i, q);
	return true;
}

bool rk_hierarchy_rotate_around(rk_hierarchy *h, int32_t i, rk_vec3 world_point, rk_vec3 world_axis, double radians)
{
	if (!rki_hier_valid(h, i)) return false;
	if (!(rk_vec3_length(world_axis) > 0.0)) return false;
	rk_quat q = rk_quat_axis_angle(world_axis, radians);
	rk_vec3 pos = rki_hier_chain_apply(h, i, (rk_vec3){ 0, 0, 0 }, true);
	rk_vec3 new_pos = rk_vec3_add(world_point, rk_quat_rotate(q, rk_vec3_sub(pos, world_point)));
	rk_quat new_rot = rk_quat_mul(q, rki_hier_world_rot(h, i));
	rk_vec3 local_pos;
	if (!rki_hier_solve_local_position(h, i, new_pos, &local_pos)) return false;
	h->position[i] = local_pos;
	h->rotation[i] = rki_hier_solve_local_rotation(h, i, new_rot);
	return true;
}
