/*
 * src/export/gltf/gltf_write_ext.c - the kept extensions of a scene
 * (scene->extensions: VRM 1.0, VRM 0.x, VRM Animation; scene.h) written
 * again: top-level ones into the document's "extensions", node and material
 * ones into their element's. Every resolved reference (rk_ext_value NODE,
 * MESH, MATERIAL, TEXTURE, IMAGE) is written as this writer's index of the
 * element; a reference to an element the writer did not write (a texture
 * without image bytes, say) is left out of its object or array, with a
 * warning. Every name written is listed in extensionsUsed, with the names of
 * extensions nested in them ("extensions" objects inside a kept value).
 * The KHR material extensions the reader keeps travel the same way, and
 * "extras" (plain kept values) are written with the same value writer.
 */
#include "gltf_write_internal.h"

#include <string.h>

#define RKI_GW_EXT_MAX_DEPTH 48

static bool rki_gw_in(const void *p, const void *base, size_t count, size_t size, size_t *index)
{
	uintptr_t a = (uintptr_t)p, b = (uintptr_t)base;
	if (!base || a < b || a >= b + count * size || (a - b) % size) return false;
	*index = (a - b) / size;
	return true;
}

/* This writer's index of the element `v` refers to, or -1. */
static int64_t rki_gw_ext_index(const rki_gw *w, const rk_ext_value *v)
{
	const rk_scene *s = w->scene;
	size_t i;
	switch (v->kind) {
	case RK_EXT_NODE:
		return rki_gw_in(v->ref, s->nodes.data, s->nodes.count, sizeof(rk_node), &i) ? w->node_out[i] : -1;
	case RK_EXT_MATERIAL:
		return rki_gw_in(v->ref, s->materials.data, s->materials.count, sizeof(rk_material), &i) ? (int64_t)i : -1;
	case RK_EXT_TEXTURE:
		return rki_gw_in(v->ref, s->textures.data, s->textures.count, sizeof(rk_texture), &i) ? w->texture_out[i] : -1;
	case RK_EXT_IMAGE:
		return rki_gw_in(v->ref, s->textures.data, s->textures.count, sizeof(rk_texture), &i) ? w->texture_image[i] : -1;
	case RK_EXT_MESH:
		for (size_t k = 0; k < w->mesh_key_count; k++)
			if (w->mesh_keys[k].mesh == v->ref && w->mesh_keys[k].out_mesh >= 0) return w->mesh_keys[k].out_mesh;
		return -1;
	default: return -1;
	}
}

/* Notes `name` for extensionsUsed. */
static void rki_gw_ext_used(rki_gw *w, const char *name)
{
	size_t k = 0;
	while (k < w->ext_used_count && strcmp(w->ext_used[k], name) != 0) k++;
	if (k == w->ext_used_count && k < RKI_GW_EXT_USED_MAX) w->ext_used[w->ext_used_count++] = name;
}

static void rki_gw_ext_value(rki_gw *w, rk_json_writer *j, const char *ext, const char *key, const rk_ext_value *v,
	size_t depth)
{
	/* extensions nested in a kept one (KHR_texture_transform on an MToon
	 * texture, VRMC_springBone_extended_collider ...) are declared too */
	if (v->kind == RK_EXT_OBJECT && key && strcmp(key, "extensions") == 0 && strcmp(ext, "extras") != 0)
		for (size_t i = 0; i < v->count && v->items; i++)
			if (v->items[i].key && v->items[i].key[0]) rki_gw_ext_used(w, v->items[i].key);
	switch (v->kind) {
	case RK_EXT_NULL: rk_json_null(j, key); return;
	case RK_EXT_BOOL: rk_json_bool(j, key, v->number != 0.0); return;
	case RK_EXT_NUMBER: rk_json_number(j, key, v->number); return;
	case RK_EXT_STRING: rk_json_string_n(j, key, v->string ? v->string : "", v->string ? v->length : 0); return;
	case RK_EXT_ARRAY:
	case RK_EXT_OBJECT: {
		if (depth >= RKI_GW_EXT_MAX_DEPTH) {
			rk_json_null(j, key);
			return;
		}
		bool object = v->kind == RK_EXT_OBJECT;
		if (object) rk_json_object_begin(j, key);
		else rk_json_array_begin(j, key);
		for (size_t i = 0; i < v->count && v->items; i++) {
			const rk_ext_value *item = &v->items[i];
			if (object && !item->key) continue;
			rki_gw_ext_value(w, j, ext, object ? item->key : NULL, item, depth + 1);
		}
		if (object) rk_json_object_end(j);
		else rk_json_array_end(j);
		return;
	}
	default: {
		int64_t index = rki_gw_ext_index(w, v);
		if (index >= 0) {
			rk_json_uint(j, key, (uint64_t)index);
			return;
		}
		rki_gw_warn(w, "%s: a reference to an element that is not written (file index %g) is left out", ext, v->number);
		return;
	}
	}
}

static bool rki_gw_ext_owned(const rk_extension *e, rk_ext_owner owner, const void *element)
{
	if (e->owner != owner || !e->name || !e->name[0]) return false;
	if (owner == RK_EXT_OWNER_NODE) return e->node == element;
	if (owner == RK_EXT_OWNER_MATERIAL) return e->material == element;
	return true;
}

bool rki_gw_ext_has(const rki_gw *w, rk_ext_owner owner, const void *element)
{
	if (w->opts.no_extensions) return false;
	for (size_t i = 0; i < w->scene->extensions.count; i++)
		if (rki_gw_ext_owned(&w->scene->extensions.data[i], owner, element)) return true;
	return false;
}

void rki_gw_ext_write(rki_gw *w, rk_json_writer *j, rk_ext_owner owner, const void *element)
{
	if (w->opts.no_extensions) return;
	for (size_t i = 0; i < w->scene->extensions.count; i++) {
		const rk_extension *e = &w->scene->extensions.data[i];
		if (!rki_gw_ext_owned(e, owner, element)) continue;
		rki_gw_ext_value(w, j, e->name, e->name, &e->value, 0);
		rki_gw_ext_used(w, e->name);
	}
}

static void rki_gw_ext_mark(const rk_scene *s, const rk_ext_value *v, bool *used, size_t depth)
{
	size_t i;
	if ((v->kind == RK_EXT_TEXTURE || v->kind == RK_EXT_IMAGE)
		&& rki_gw_in(v->ref, s->textures.data, s->textures.count, sizeof(rk_texture), &i))
		used[i] = true;
	if ((v->kind == RK_EXT_ARRAY || v->kind == RK_EXT_OBJECT) && v->items && depth < RKI_GW_EXT_MAX_DEPTH)
		for (size_t k = 0; k < v->count; k++) rki_gw_ext_mark(s, &v->items[k], used, depth + 1);
}

void rki_gw_ext_mark_textures(const rki_gw *w, bool *used)
{
	if (w->opts.no_extensions) return;
	for (size_t i = 0; i < w->scene->extensions.count; i++) rki_gw_ext_mark(w->scene, &w->scene->extensions.data[i].value, used, 0);
}

void rki_gw_ext_write_value(rki_gw *w, rk_json_writer *j, const char *key, const rk_ext_value *v)
{
	rki_gw_ext_value(w, j, "extras", key, v, 0);
}

void rki_gw_extras_write(rki_gw *w, rk_json_writer *j, const rk_ext_value *v)
{
	if (!v) return;
	/* glTF: extras SHOULD be an object, but any JSON value is allowed */
	rki_gw_ext_value(w, j, "extras", "extras", v, 0);
}
