/* src/runtime_build/runtime_build_internal.h - what the offline builders
 * (skeletons, runtime clips) share. The per-frame jobs in src/runtime never
 * see this: they take built objects only. */
#ifndef RIGKIT_RUNTIME_BUILD_INTERNAL_H
#define RIGKIT_RUNTIME_BUILD_INTERNAL_H

#include "rigkit/anim.h"
#include "runtime/runtime_internal.h"

/* ---- offline helpers (runtime_skeleton.c) ------------------------------------------ */

/* Size of one built object: aligned sub-arrays appended in order. */
typedef struct rki_rt_layout {
	size_t size;
	bool ok;
} rki_rt_layout;

/* Reserves count * elem bytes (16-byte aligned) and returns their offset. */
size_t rki_rt_layout_add(rki_rt_layout *l, size_t count, size_t elem);

/* One block with a private header recording the allocator and size; returns
 * the zeroed block (16-byte aligned) or NULL. rki_rt_block_free takes it back. */
void *rki_rt_block_alloc(rki_alloc *alloc, size_t size);
void rki_rt_block_free(void *block);

/* The local transform a runtime joint must have for node `n` in an evaluated
 * pose (runtime.h FIDELITY): decompose(node_to_parent), pose.local for glTF
 * nodes without load adjustment, decompose(inverse(parent world) * world) for
 * FBX inherit modes other than NORMAL. Rotation normalised. */
rk_trs rki_rt_reference_local(const rk_pose *pose, const rk_node *n);

#endif
