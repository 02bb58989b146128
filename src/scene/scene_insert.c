/* src/scene/scene_insert.c - rk_scene_insert_parent (rigkit/scene.h): a new
 * node between a node and its parent, the only change a loaded scene's
 * hierarchy ever gets. Nodes stay one depth-first array: the array is
 * rebuilt with the new node in front of its child and every node pointer
 * the scene holds is moved to it. */
#include "scene/scene_internal.h"

#include <string.h>

typedef struct rki_remap {
	const rk_node *old_base;
	size_t old_count, at;
	rk_node *new_base;
} rki_remap;

static rk_node *rki_remap_node(const rki_remap *m, const rk_node *n)
{
	if (!n || n < m->old_base || n >= m->old_base + m->old_count) return (rk_node *)(uintptr_t)n;
	size_t i = (size_t)(n - m->old_base);
	return m->new_base + i + (i >= m->at ? 1 : 0);
}

static void rki_remap_ext(const rki_remap *m, rk_ext_value *v, size_t depth)
{
	if (!v || depth > 512) return;   /* readers bound the depth far below this */
	if (v->kind == RK_EXT_NODE) v->ref = rki_remap_node(m, (const rk_node *)v->ref);
	if (v->kind == RK_EXT_ARRAY || v->kind == RK_EXT_OBJECT)
		for (size_t i = 0; i < v->count; i++) rki_remap_ext(m, (rk_ext_value *)(uintptr_t)&v->items[i], depth + 1);
}

rk_node *rk_scene_insert_parent(rk_scene *scene, const rk_node *child, const char *name, rk_error *err)
{
	rki_error_clear(err);
	if (!scene || !child || !name || child < scene->nodes.data || child >= scene->nodes.data + scene->nodes.count ||
		!child->parent) {
		rki_error_set(err, RK_ERROR_INVALID_ARGUMENT,
			"rk_scene_insert_parent needs a scene, one of its nodes other than the root and a name");
		return NULL;
	}
	rki_arena *ar = rki_scene_arena(scene);
	size_t n = scene->nodes.count, at = child->index;
	if (!ar || n >= UINT32_MAX - 1) {
		rki_error_set(err, RK_ERROR_LIMIT, "the scene cannot take another node");
		return NULL;
	}
	rk_node *nodes = (rk_node *)rki_arena_array(ar, n + 1, sizeof(rk_node));
	rk_node **kids = (rk_node **)rki_arena_array(ar, 1, sizeof(rk_node *));
	char *nm = rki_arena_strndup(ar, name, strlen(name));
	if (!nodes || !kids || !nm) {
		rki_error_set(err, RK_ERROR_OUT_OF_MEMORY, "cannot allocate %zu nodes", n + 1);
		return NULL;
	}
	rki_remap m = { scene->nodes.data, n, at, nodes };
	for (size_t i = 0; i < n; i++) {
		rk_node *d = &nodes[i + (i >= at ? 1 : 0)];
		*d = scene->nodes.data[i];
		d->index = (uint32_t)(i + (i >= at ? 1 : 0));
		d->parent = rki_remap_node(&m, d->parent);
		for (size_t c = 0; c < d->children.count; c++) d->children.data[c] = rki_remap_node(&m, d->children.data[c]);
	}
	rk_node *moved = &nodes[at + 1], *parent = moved->parent, *fresh = &nodes[at];
	memset(fresh, 0, sizeof(*fresh));
	fresh->index = (uint32_t)at;
	fresh->name = nm;
	fresh->kind = RK_NODE_NULL;
	fresh->parent = parent;
	kids[0] = moved;
	fresh->children.data = kids;
	fresh->children.count = 1;
	fresh->props.scaling = (rk_vec3){ 1, 1, 1 };
	fresh->props.geometric_scaling = (rk_vec3){ 1, 1, 1 };
	fresh->has_fbx_props = false;   /* a plain TRS node, identity */
	fresh->adjust = rk_adjust_transform_identity();
	fresh->local.rotation = RK_QUAT_IDENTITY;
	fresh->local.scale = (rk_vec3){ 1, 1, 1 };
	fresh->node_to_parent = rk_mat4_identity();
	fresh->node_to_world = parent->node_to_world;
	fresh->geometry_to_node = rk_mat4_identity();
	fresh->geometry_to_world = parent->node_to_world;
	fresh->unscaled_node_to_world = parent->unscaled_node_to_world;
	fresh->inherit_scale = parent->inherit_scale;
	fresh->attribute_type = "";
	fresh->default_uv_set = "";
	fresh->visible = true;
	fresh->has_bind_pose = false;
	for (size_t c = 0; c < parent->children.count; c++)
		if (parent->children.data[c] == moved) parent->children.data[c] = fresh;
	moved->parent = fresh;
	/* the moved subtree is the run after it of deeper nodes (pre-order) */
	fresh->depth = moved->depth;
	for (size_t j = at + 2; j <= n && nodes[j].depth > fresh->depth; j++) nodes[j].depth++;
	moved->depth++;

	/* every other node pointer of the scene */
	for (size_t s = 0; s < scene->skins.count; s++) {
		rk_skin_deformer *sk = &scene->skins.data[s];
		sk->skeleton_root = rki_remap_node(&m, sk->skeleton_root);
		rk_skin_joint *j = (rk_skin_joint *)(uintptr_t)sk->joints;
		for (size_t k = 0; k < sk->joint_count; k++) j[k].node = rki_remap_node(&m, j[k].node);
	}
	for (size_t c = 0; c < scene->clips.count; c++) {
		const rk_anim_clip *cl = &scene->clips.data[c];
		for (size_t l = 0; l < cl->layer_count; l++) {
			rk_anim_track *t = (rk_anim_track *)(uintptr_t)cl->layers[l].tracks;
			for (size_t k = 0; k < cl->layers[l].track_count; k++) t[k].node = rki_remap_node(&m, t[k].node);
		}
	}
	for (size_t h = 0; h < scene->hints.count; h++) scene->hints.data[h].node = rki_remap_node(&m, scene->hints.data[h].node);
	for (size_t e = 0; e < scene->extensions.count; e++) {
		rk_extension *x = &scene->extensions.data[e];
		x->node = rki_remap_node(&m, x->node);
		rki_remap_ext(&m, &x->value, 0);
	}
	scene->nodes.data = nodes;
	scene->nodes.count = n + 1;
	scene->root = &nodes[0];
	scene->memory_used += (n + 1) * sizeof(rk_node) + sizeof(rk_node *) + strlen(name) + 1;
	return fresh;
}
