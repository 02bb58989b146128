/* src/runtime_build/runtime_skeleton.c - offline: skeletons from scenes, skin
 * bindings, and the block / reference helpers the clip build shares. */
#include "runtime_build_internal.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* ---- blocks -------------------------------------------------------------------- */

#define RKI_RT_ALIGN 16u

size_t rki_rt_layout_add(rki_rt_layout *l, size_t count, size_t elem)
{
	size_t offset = l->size, bytes;
	if (!l->ok || !rki_mul_size(count, elem, &bytes) || !rki_add_size(bytes, RKI_RT_ALIGN - 1, &bytes)) {
		l->ok = false;
		return 0;
	}
	bytes &= ~(size_t)(RKI_RT_ALIGN - 1);
	if (!rki_add_size(l->size, bytes, &l->size)) l->ok = false;
	return offset;
}

typedef struct rki_rt_header {
	rk_allocator alloc;
	size_t size;                  /* bytes allocated, header included */
	size_t pad_;                  /* keeps the payload 16-byte aligned */
} rki_rt_header;

#define RKI_RT_HEADER ((sizeof(rki_rt_header) + RKI_RT_ALIGN - 1) & ~(size_t)(RKI_RT_ALIGN - 1))

void *rki_rt_block_alloc(rki_alloc *alloc, size_t size)
{
	size_t total;
	if (!rki_add_size(size, RKI_RT_HEADER, &total)) return NULL;
	unsigned char *p = (unsigned char *)rki_malloc(alloc, total);
	if (!p) return NULL;
	memset(p, 0, total);
	rki_rt_header *h = (rki_rt_header *)(void *)p;
	h->alloc = alloc->user;
	h->size = total;
	return p + RKI_RT_HEADER;
}

void rki_rt_block_free(void *block)
{
	if (!block) return;
	unsigned char *p = (unsigned char *)block - RKI_RT_HEADER;
	rki_rt_header *h = (rki_rt_header *)(void *)p;
	rk_allocator a = h->alloc;
	size_t size = h->size;
	if (a.free) a.free(a.user, p, size);
	else if (!a.alloc) free(p);
}

/* ---- reference local transforms ------------------------------------------------- */

static rk_trs rki_rt_clean(rk_trs t)
{
	t.rotation = rk_quat_normalize(t.rotation);
	return t;
}

rk_trs rki_rt_reference_local(const rk_pose *pose, const rk_node *n)
{
	size_t i = n->index;
	if (n->has_fbx_props && n->props.inherit_mode != RK_INHERIT_NORMAL && n->parent) {
		rk_mat4 inv;
		if (rk_mat4_invert_affine(pose->node_to_world[n->parent->index], &inv))
			return rki_rt_clean(rk_mat4_decompose(rk_mat4_mul(inv, pose->node_to_world[i])));
	}
	if (!n->has_fbx_props && n->kind != RK_NODE_ROOT && rk_adjust_transform_is_identity(&n->adjust))
		return rki_rt_clean(pose->local[i]);
	return rki_rt_clean(rk_mat4_decompose(pose->node_to_parent[i]));
}

/* ---- errors ------------------------------------------------------------------------ */

static void *rki_rt_fail_null(rk_error *err, rk_error_code code, const char *fmt, ...) RKI_PRINTF(3, 4);
static void *rki_rt_fail_null(rk_error *err, rk_error_code code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	rki_error_setv(err, code, fmt, ap);
	va_end(ap);
	return NULL;
}

/* ---- skeleton build ------------------------------------------------------------------ */

static bool rki_rt_node_in_scene(const rk_scene *s, const rk_node *n)
{
	return n && n->index < s->nodes.count && &s->nodes.data[n->index] == n;
}

rk_skeleton *rk_skeleton_build(const rk_scene *scene, const rk_skeleton_opts *opts, rk_error *err)
{
	rki_error_clear(err);
	rk_skeleton_opts o;
	memset(&o, 0, sizeof(o));
	if (opts) o = *opts;
	if (!scene || !scene->nodes.data || scene->nodes.count == 0)
		return rki_rt_fail_null(err, RK_ERROR_INVALID_ARGUMENT, "rk_skeleton_build: scene is NULL or has no nodes");
	const size_t count = scene->nodes.count;
	const rk_node *root = o.root ? o.root : &scene->nodes.data[0];
	if (!rki_rt_node_in_scene(scene, root))
		return rki_rt_fail_null(err, RK_ERROR_INVALID_ARGUMENT, "rk_skeleton_build: opts->root is not a node of the scene");

	rki_alloc alloc;
	rki_alloc_init(&alloc, &o.allocator, 0, 0);
	rk_skeleton *result = NULL;
	int32_t *joint_of = NULL;
	void *pose_mem = NULL;
	size_t pose_bytes = rk_pose_memory_size(scene);

	joint_of = (int32_t *)rki_malloc(&alloc, count * sizeof(int32_t));
	if (pose_bytes) pose_mem = rki_malloc(&alloc, pose_bytes);
	if (!joint_of || !pose_mem) {
		rki_error_set(err, RK_ERROR_OUT_OF_MEMORY, "rk_skeleton_build: out of memory");
		goto done;
	}

	/* Membership: the subtree of root (parents precede children). */
	for (size_t i = 0; i < count; i++) joint_of[i] = RK_JOINT_NONE;
	joint_of[root->index] = 0;
	for (size_t i = root->index + 1; i < count; i++) {
		const rk_node *n = &scene->nodes.data[i];
		if (n->index != i || (n->parent && !rki_rt_node_in_scene(scene, n->parent))) {
			rki_error_set(err, RK_ERROR_INVALID_ARGUMENT, "rk_skeleton_build: node %zu is inconsistent (index or parent)", i);
			goto done;
		}
		if (n->parent && n->parent->index < i && joint_of[n->parent->index] == 0) joint_of[i] = 0;
	}
	if (o.joints_only) {
		/* keep a node when its subtree holds a joint: mark upwards (children after parents) */
		for (size_t i = count; i-- > root->index;) {
			const rk_node *n = &scene->nodes.data[i];
			if (joint_of[i] == RK_JOINT_NONE) continue;
			if (n->kind == RK_NODE_JOINT) joint_of[i] = 1;
			if (joint_of[i] == 1 && n != root && n->parent) joint_of[n->parent->index] = 1;
		}
		for (size_t i = root->index; i < count; i++)
			if (joint_of[i] != RK_JOINT_NONE) joint_of[i] = (joint_of[i] == 1 || i == root->index) ? 0 : RK_JOINT_NONE;
	}
	size_t joints = 0, name_bytes = 0;
	for (size_t i = root->index; i < count; i++) {
		if (joint_of[i] == RK_JOINT_NONE) continue;
		if (joints >= (size_t)INT32_MAX) {
			rki_error_set(err, RK_ERROR_LIMIT, "rk_skeleton_build: more than %d joints", INT32_MAX);
			goto done;
		}
		joint_of[i] = (int32_t)joints++;
		const char *name = scene->nodes.data[i].name ? scene->nodes.data[i].name : "";
		size_t len = strlen(name) + 1;
		if (!rki_add_size(name_bytes, len, &name_bytes)) {
			rki_error_set(err, RK_ERROR_LIMIT, "rk_skeleton_build: names too long");
			goto done;
		}
	}

	/* Static pose, evaluated by the reference path. */
	rk_pose pose;
	rk_pose_eval_job job;
	memset(&job, 0, sizeof(job));
	if (!rk_pose_init(&pose, scene, pose_mem, pose_bytes)) {
		rki_error_set(err, RK_ERROR_INVALID_ARGUMENT, "rk_skeleton_build: cannot set up a pose for the scene");
		goto done;
	}
	pose.blend_weights = NULL;
	job.scene = scene;
	job.pose = &pose;
	if (!rk_pose_eval_validate(&job, err)) goto done;
	rk_pose_eval_run(&job);

	rki_rt_layout l = { 0, true };
	size_t off_skel = rki_rt_layout_add(&l, 1, sizeof(rk_skeleton));
	size_t off_par = rki_rt_layout_add(&l, joints, sizeof(int32_t));
	size_t off_names = rki_rt_layout_add(&l, joints, sizeof(char *));
	size_t off_nodes = rki_rt_layout_add(&l, joints, sizeof(uint32_t));
	size_t off_t = rki_rt_layout_add(&l, joints, sizeof(rk_float3));
	size_t off_r = rki_rt_layout_add(&l, joints, sizeof(rk_float4));
	size_t off_s = rki_rt_layout_add(&l, joints, sizeof(rk_float3));
	size_t off_chars = rki_rt_layout_add(&l, name_bytes, 1);
	if (!l.ok) {
		rki_error_set(err, RK_ERROR_LIMIT, "rk_skeleton_build: size overflow");
		goto done;
	}
	unsigned char *block = (unsigned char *)rki_rt_block_alloc(&alloc, l.size);
	if (!block) {
		rki_error_set(err, RK_ERROR_OUT_OF_MEMORY, "rk_skeleton_build: out of memory (%zu bytes)", l.size);
		goto done;
	}
	rk_skeleton *sk = (rk_skeleton *)(void *)(block + off_skel);
	int32_t *parents = (int32_t *)(void *)(block + off_par);
	const char **names = (const char **)(void *)(block + off_names);
	uint32_t *nodes = (uint32_t *)(void *)(block + off_nodes);
	rk_float3 *rt = (rk_float3 *)(void *)(block + off_t);
	rk_float4 *rr = (rk_float4 *)(void *)(block + off_r);
	rk_float3 *rs = (rk_float3 *)(void *)(block + off_s);
	char *chars = (char *)(block + off_chars);
	size_t j = 0;
	for (size_t i = root->index; i < count; i++) {
		if (joint_of[i] == RK_JOINT_NONE) continue;
		const rk_node *n = &scene->nodes.data[i];
		parents[j] = (n == root || !n->parent) ? RK_JOINT_NONE : joint_of[n->parent->index];
		nodes[j] = (uint32_t)i;
		const char *name = n->name ? n->name : "";
		size_t len = strlen(name) + 1;
		memcpy(chars, name, len);
		names[j] = chars;
		chars += len;
		rk_trs local = rki_rt_reference_local(&pose, n);
		rt[j] = rki_to_f3(local.translation);
		rr[j] = rki_f4_normalize(rki_to_f4(local.rotation));
		rs[j] = rki_to_f3(local.scale);
		j++;
	}
	sk->joint_count = joints;
	sk->parents = parents;
	sk->names = names;
	sk->node_indices = nodes;
	sk->rest.joint_count = joints;
	sk->rest.translation = rt;
	sk->rest.rotation = rr;
	sk->rest.scale = rs;
	sk->internal_ = block;
	result = sk;

done:
	rki_free(&alloc, pose_mem, pose_bytes);
	rki_free(&alloc, joint_of, count * sizeof(int32_t));
	return result;
}

void rk_skeleton_free(rk_skeleton *skeleton)
{
	if (!skeleton) return;
	rki_rt_block_free(skeleton->internal_);
}

int32_t rk_skeleton_find_joint(const rk_skeleton *skeleton, const char *name)
{
	if (!skeleton || !skeleton->names || !name) return RK_JOINT_NONE;
	for (size_t j = 0; j < skeleton->joint_count && j <= (size_t)INT32_MAX; j++)
		if (skeleton->names[j] && strcmp(skeleton->names[j], name) == 0) return (int32_t)j;
	return RK_JOINT_NONE;
}

int32_t rk_skeleton_joint_of_node(const rk_skeleton *skeleton, const rk_node *node)
{
	if (!skeleton || !skeleton->node_indices || !node) return RK_JOINT_NONE;
	for (size_t j = 0; j < skeleton->joint_count && j <= (size_t)INT32_MAX; j++)
		if (skeleton->node_indices[j] == node->index) return (int32_t)j;
	return RK_JOINT_NONE;
}

/* ---- skin binding ----------------------------------------------------------------------- */

bool rk_skeleton_skin_binding(const rk_skeleton *skeleton, const rk_scene *scene, const rk_skin_deformer *skin,
	const rk_node *mesh_node, uint32_t *out_joints, rk_float4x4 *out_inverse_bind, rk_error *err)
{
	rki_error_clear(err);
	if (!skeleton || !skeleton->node_indices || !scene || !skin || !mesh_node) {
		rki_error_set(err, RK_ERROR_INVALID_ARGUMENT, "rk_skeleton_skin_binding: NULL argument (or a skeleton without node_indices)");
		return false;
	}
	if (!rki_rt_node_in_scene(scene, mesh_node)) {
		rki_error_set(err, RK_ERROR_INVALID_ARGUMENT, "rk_skeleton_skin_binding: mesh_node is not a node of the scene");
		return false;
	}
	if (skin->joint_count && !skin->joints) {
		rki_error_set(err, RK_ERROR_INVALID_ARGUMENT, "rk_skeleton_skin_binding: skin has no joint array");
		return false;
	}
	for (size_t k = 0; k < skin->joint_count; k++) {
		const rk_node *n = skin->joints[k].node;
		int32_t j = rki_rt_node_in_scene(scene, n) ? rk_skeleton_joint_of_node(skeleton, n) : RK_JOINT_NONE;
		if (j == RK_JOINT_NONE) {
			rki_error_set(err, RK_ERROR_INVALID_ARGUMENT, "rk_skeleton_skin_binding: skin joint %zu (%s) is not a joint of the skeleton",
				k, n && n->name ? n->name : "no node");
			return false;
		}
		if (out_joints) out_joints[k] = (uint32_t)j;
		if (out_inverse_bind) {
			rk_mat4 m = rk_mat4_mul(skin->joints[k].mesh_to_joint, mesh_node->geometry_to_node);
			for (int e = 0; e < 16; e++) out_inverse_bind[k].m[e] = (float)m.m[e];
		}
	}
	return true;
}
