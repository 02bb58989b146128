/* src/scene/scene_rules.c - the rules every consumer of a scene shares:
 * which materials a mesh node's faces use and which UV set a texture
 * samples (documented in rigkit/scene.h, "Scene rules"). */
#include "scene_internal.h"

#include <string.h>

rk_material_ref_list rk_node_material_slots(const rk_node *node)
{
	rk_material_ref_list none = { NULL, 0 };
	if (!node) return none;
	if (node->materials.count > 0) return node->materials;
	return node->mesh ? node->mesh->materials : none;
}

uint32_t rk_node_face_slot(const rk_node *node, size_t face)
{
	if (!node || !node->mesh || face >= node->mesh->face_count) return RK_NO_SLOT;
	const rk_mesh *mesh = node->mesh;
	uint32_t s = mesh->face_material ? mesh->face_material[face] : 0u;
	return s < rk_node_material_slots(node).count ? s : RK_NO_SLOT;
}

rk_material *rk_node_face_material(const rk_node *node, size_t face)
{
	uint32_t s = rk_node_face_slot(node, face);
	return s == RK_NO_SLOT ? NULL : rk_node_material_slots(node).data[s];
}

static bool rki_uv_set_usable(const rk_mesh *mesh, size_t u)
{
	return u < mesh->uv_sets.count && mesh->uv_sets.data[u].uv.exists;
}

static int32_t rki_uv_set_named(const rk_mesh *mesh, const char *name)
{
	if (!name || !name[0]) return RK_NO_UV_SET;
	for (size_t u = 0; u < mesh->uv_sets.count && u <= INT32_MAX; u++) {
		const rk_uv_set *s = &mesh->uv_sets.data[u];
		if (s->uv.exists && s->name && strcmp(s->name, name) == 0) return (int32_t)u;
	}
	return RK_NO_UV_SET;
}

int32_t rk_node_texture_uv_set(const rk_node *node, const rk_texture_ref *texture)
{
	if (!node || !node->mesh || !node->mesh->uv_sets.data) return RK_NO_UV_SET;
	const rk_mesh *mesh = node->mesh;
	const rk_texture_ref *t = texture && texture->texture ? texture : NULL;
	int32_t u = t ? rki_uv_set_named(mesh, t->uv_set) : RK_NO_UV_SET;                         /* a */
	if (u == RK_NO_UV_SET) u = rki_uv_set_named(mesh, node->default_uv_set);                  /* b */
	if (u == RK_NO_UV_SET && t && (!t->uv_set || !t->uv_set[0]) && rki_uv_set_usable(mesh, t->texcoord))
		u = (int32_t)t->texcoord;                                                            /* c */
	if (u == RK_NO_UV_SET && rki_uv_set_usable(mesh, 0)) u = 0;                              /* d */
	return u;
}

int32_t rk_node_material_uv_set(const rk_node *node, const rk_material *material)
{
	return rk_node_texture_uv_set(node, material ? &material->base_color_texture : NULL);
}
