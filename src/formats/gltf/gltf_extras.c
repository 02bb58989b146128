/*
 * src/formats/gltf/gltf_extras.c - cameras, KHR_lights_punctual lights and
 * "extras" of the glTF reader (after the node pass: node_map is known).
 *
 *   scene->cameras   one rk_camera per glTF camera, in file order; a node's
 *                    "camera" sets node->camera
 *   scene->lights    one rk_light per KHR_lights_punctual light; a node's
 *                    extensions.KHR_lights_punctual.light sets node->light
 *   extras           asset, loaded scene, node, mesh, material, camera and light extras
 *                    kept as plain JSON trees (rk_ext_value, no index
 *                    resolution: extras mean what the application says)
 *
 * Hostile input: a camera of the wrong shape, or a light member of the
 * wrong type, is a load error at its JSON pointer like every other glTF
 * element; a light without a type or of a type rigkit does not know is read
 * as a point light, and a node's light reference out of range is dropped,
 * both with a warning (a light never makes geometry unreadable). Extras in places the scene
 * model has no room for (skins, animations, textures, images,
 * samplers, primitives, accessors, buffers, the top level) are named in a
 * warning, one per kind of element, and so are the scenes other than the
 * loaded one.
 */
#include "gltf_internal.h"

#include <math.h>
#include <string.h>

#define RKI_GLTF_QUARTER_PI 0.78539816339744830962

static bool rki_gltf_camera(rki_gltf *g, size_t i, rk_camera *c)
{
	const rki_gltf_loc *base = RKI_GLTF_IDX(RKI_GLTF_KEY(NULL, "cameras"), i);
	const rki_json *obj = &g->cameras.items[i], *type, *params;
	c->index = (uint32_t)i;
	c->to_node = RK_QUAT_IDENTITY;
	if (!(c->name = rki_gltf_name(g, obj, base))) return false;
	if (!rki_gltf_string(g, obj, base, "type", &type)) return false;
	bool ortho = type && rki_json_eq(type, "orthographic");
	if (!type || (!ortho && !rki_json_eq(type, "perspective")))
		return rki_gltf_fail_key(g, RK_ERROR_CORRUPT, base, "type", "expected camera type \"perspective\" or \"orthographic\"");
	const char *key = ortho ? "orthographic" : "perspective";
	const rki_gltf_loc *ploc = RKI_GLTF_KEY(base, key);
	if (!rki_gltf_object(g, obj, base, key, &params)) return false;
	if (!params) return rki_gltf_fail_key(g, RK_ERROR_CORRUPT, base, key, "camera of type %s needs its \"%s\" object", key, key);
	c->projection = ortho ? RK_PROJECTION_ORTHOGRAPHIC : RK_PROJECTION_PERSPECTIVE;
	if (ortho) {
		if (!rki_gltf_number(g, params, ploc, "xmag", 1.0, &c->xmag) || !rki_gltf_number(g, params, ploc, "ymag", 1.0, &c->ymag)
			|| !rki_gltf_number(g, params, ploc, "znear", 0.0, &c->znear) || !rki_gltf_number(g, params, ploc, "zfar", 100.0, &c->zfar))
			return false;
		if (!rki_gltf_member(params, "xmag") || !rki_gltf_member(params, "ymag") || !rki_gltf_member(params, "zfar"))
			rki_gltf_warn(g, ploc, "orthographic camera lacks xmag, ymag or zfar (required): 1, 1, 100 used");
	} else {
		if (!rki_gltf_number(g, params, ploc, "yfov", 0.8, &c->yfov) || !rki_gltf_number(g, params, ploc, "znear", 0.01, &c->znear)
			|| !rki_gltf_number(g, params, ploc, "zfar", 0.0, &c->zfar)
			|| !rki_gltf_number(g, params, ploc, "aspectRatio", 0.0, &c->aspect_ratio))
			return false;
		if (!rki_gltf_member(params, "yfov") || !rki_gltf_member(params, "znear"))
			rki_gltf_warn(g, ploc, "perspective camera lacks yfov or znear (required): 0.8 rad, 0.01 used");
		if (!(c->yfov > 0.0)) {
			rki_gltf_warn(g, RKI_GLTF_KEY(ploc, "yfov"), "camera yfov must be > 0: 0.8 rad used");
			c->yfov = 0.8;
		}
		if (c->aspect_ratio < 0.0) c->aspect_ratio = 0.0;
		if (c->zfar < 0.0) c->zfar = 0.0;
	}
	return rki_gltf_keep_json(g, rki_gltf_member(obj, "extras"), RKI_GLTF_KEY(base, "extras"), &c->extras);
}

static bool rki_gltf_light(rki_gltf *g, const rki_json *obj, const rki_gltf_loc *base, size_t i, rk_light *l)
{
	const rki_json *type, *spot;
	double v[3];
	bool present;
	l->index = (uint32_t)i;
	l->to_node = RK_QUAT_IDENTITY;
	l->color = (rk_vec3){ 1.0, 1.0, 1.0 };
	l->outer_cone_angle = RKI_GLTF_QUARTER_PI;
	if (!(l->name = rki_gltf_name(g, obj, base))) return false;
	if (!rki_gltf_string(g, obj, base, "type", &type)) return false;
	if (!type) rki_gltf_warn(g, base, "light has no \"type\" (point, spot or directional): read as a point light");
	else if (rki_json_eq(type, "directional")) l->type = RK_LIGHT_DIRECTIONAL;
	else if (rki_json_eq(type, "spot")) l->type = RK_LIGHT_SPOT;
	else if (rki_json_eq(type, "point")) l->type = RK_LIGHT_POINT;
	else rki_gltf_warn(g, RKI_GLTF_KEY(base, "type"), "unknown light type \"%.*s\": read as a point light", RKI_JSON_STR_ARGS(type, 40));
	if (!rki_gltf_numbers(g, obj, base, "color", 3, v, &present)) return false;
	if (present) l->color = (rk_vec3){ v[0], v[1], v[2] };
	if (!rki_gltf_number(g, obj, base, "intensity", 1.0, &l->intensity)) return false;
	if (!rki_gltf_number(g, obj, base, "range", 0.0, &l->range)) return false;
	if (l->range < 0.0) {
		rki_gltf_warn(g, RKI_GLTF_KEY(base, "range"), "light range must be > 0: infinite used");
		l->range = 0.0;
	}
	if (!rki_gltf_object(g, obj, base, "spot", &spot)) return false;
	if (spot) {
		const rki_gltf_loc *sloc = RKI_GLTF_KEY(base, "spot");
		if (!rki_gltf_number(g, spot, sloc, "innerConeAngle", 0.0, &l->inner_cone_angle)
			|| !rki_gltf_number(g, spot, sloc, "outerConeAngle", RKI_GLTF_QUARTER_PI, &l->outer_cone_angle))
			return false;
	}
	return rki_gltf_keep_json(g, rki_gltf_member(obj, "extras"), RKI_GLTF_KEY(base, "extras"), &l->extras);
}

static bool rki_gltf_lights(rki_gltf *g)
{
	rk_scene *s = g->sc.scene;
	const rki_gltf_loc *eloc = RKI_GLTF_KEY(NULL, "extensions"), *kloc = RKI_GLTF_KEY(eloc, "KHR_lights_punctual");
	const rki_gltf_loc *lloc = RKI_GLTF_KEY(kloc, "lights");
	const rki_json *exts, *khr = NULL, *list = NULL;
	size_t count = 0;
	if (!rki_gltf_object(g, g->json, NULL, "extensions", &exts)) return false;
	if (exts && !rki_gltf_object(g, exts, eloc, "KHR_lights_punctual", &khr)) return false;
	if (khr && !rki_gltf_array(g, khr, kloc, "lights", &list, &count)) return false;
	if (count) {
		rk_light *lights = (rk_light *)rki_arena_array(g->sc.arena, count, sizeof(rk_light));
		if (!lights) return rki_gltf_oom(g);
		for (size_t i = 0; i < count; i++) {
			const rki_json *item = &list->u.items[i];
			if (item->type != RKI_JSON_OBJECT) return rki_gltf_fail(g, RK_ERROR_CORRUPT, RKI_GLTF_IDX(lloc, i), "expected a light object");
			if (!rki_gltf_light(g, item, RKI_GLTF_IDX(lloc, i), i, &lights[i])) return false;
		}
		s->lights.data = lights;
		s->lights.count = count;
	}
	for (size_t i = 0; i < g->nodes.count; i++) {
		const rki_gltf_loc *nloc = RKI_GLTF_IDX(RKI_GLTF_KEY(NULL, "nodes"), i), *neloc = RKI_GLTF_KEY(nloc, "extensions");
		const rki_json *nexts, *nk;
		size_t li;
		if (!rki_gltf_object(g, &g->nodes.items[i], nloc, "extensions", &nexts)) return false;
		if (!nexts) continue;
		if (!rki_gltf_object(g, nexts, neloc, "KHR_lights_punctual", &nk)) return false;
		if (!nk) continue;
		/* a light is not worth the geometry: a bad reference is a warning */
		const rki_json *lv = rki_gltf_member(nk, "light");
		double x = rki_json_is(lv, RKI_JSON_NUMBER) ? rki_gltf_num(g, lv) : -1.0;
		if (!(x >= 0.0 && x < (double)count && floor(x) == x)) {
			rki_gltf_warn(g, RKI_GLTF_KEY(RKI_GLTF_KEY(neloc, "KHR_lights_punctual"), "light"),
				"expected a KHR_lights_punctual light index below %zu: the node gets no light", count);
			continue;
		}
		li = (size_t)x;
		g->node_map[i]->light = &s->lights.data[li];
	}
	return true;
}

/* Warns once per list `key` when some element has extras (not kept). */
static void rki_gltf_extras_dropped(rki_gltf *g, const char *key, const rki_gltf_list *list)
{
	size_t n = 0, first = 0;
	for (size_t i = 0; i < list->count; i++) {
		if (!rki_gltf_member(&list->items[i], "extras")) continue;
		if (!n) first = i;
		n++;
	}
	if (n)
		rki_gltf_warn(g, RKI_GLTF_KEY(RKI_GLTF_IDX(RKI_GLTF_KEY(NULL, key), first), "extras"),
			"extras of %zu %s are not kept (the scene model has no place for them)", n, key);
}

bool rki_gltf_load_extras(rki_gltf *g)
{
	rk_scene *s = g->sc.scene;
	size_t nc = g->cameras.count;
	if (nc) {
		rk_camera *cams = (rk_camera *)rki_arena_array(g->sc.arena, nc, sizeof(rk_camera));
		if (!cams) return rki_gltf_oom(g);
		for (size_t i = 0; i < nc; i++)
			if (!rki_gltf_camera(g, i, &cams[i])) return false;
		s->cameras.data = cams;
		s->cameras.count = nc;
	}
	for (size_t i = 0; i < g->nodes.count; i++) {
		const rki_gltf_loc *nloc = RKI_GLTF_IDX(RKI_GLTF_KEY(NULL, "nodes"), i);
		size_t ci;
		if (!rki_gltf_index(g, &g->nodes.items[i], nloc, "camera", nc, "cameras", false, &ci)) return false;
		if (ci != RKI_GLTF_NONE) g->node_map[i]->camera = &s->cameras.data[ci];
	}
	if (!rki_gltf_lights(g)) return false;

	/* Extras the scene model keeps. */
	const rki_json *asset = rki_gltf_member(g->json, "asset");
	if (!rki_gltf_keep_json(g, rki_gltf_member(asset, "extras"), RKI_GLTF_KEY(RKI_GLTF_KEY(NULL, "asset"), "extras"), &s->asset_extras))
		return false;
	for (size_t i = 0; i < g->nodes.count; i++) {
		const rki_json *x = rki_gltf_member(&g->nodes.items[i], "extras");
		if (x && !rki_gltf_keep_json(g, x, RKI_GLTF_KEY(RKI_GLTF_IDX(RKI_GLTF_KEY(NULL, "nodes"), i), "extras"), &g->node_map[i]->extras))
			return false;
	}
	for (size_t i = 0; i < g->meshes.count; i++) {
		const rki_json *x = rki_gltf_member(&g->meshes.items[i], "extras");
		rk_mesh *m = g->mesh_info ? g->mesh_info[i].mesh : NULL;
		if (x && m && !rki_gltf_keep_json(g, x, RKI_GLTF_KEY(RKI_GLTF_IDX(RKI_GLTF_KEY(NULL, "meshes"), i), "extras"), &m->extras))
			return false;
	}
	for (size_t i = 0; i < g->materials.count && i < s->materials.count; i++) {
		const rki_json *x = rki_gltf_member(&g->materials.items[i], "extras");
		if (x && !rki_gltf_keep_json(g, x, RKI_GLTF_KEY(RKI_GLTF_IDX(RKI_GLTF_KEY(NULL, "materials"), i), "extras"),
			&s->materials.data[i].extras))
			return false;
	}

	/* Extras it has no place for. */
	if (rki_gltf_member(g->json, "extras")) rki_gltf_warn(g, RKI_GLTF_KEY(NULL, "extras"), "top-level extras are not kept");
	size_t scene = RKI_GLTF_NONE;
	if (!rki_gltf_index(g, g->json, NULL, "scene", g->scenes.count, "scenes", false, &scene)) return false;
	if (scene == RKI_GLTF_NONE && g->scenes.count > 0) scene = 0;
	if (scene != RKI_GLTF_NONE) {
		const rki_json *x = rki_gltf_member(&g->scenes.items[scene], "extras");
		if (x && !rki_gltf_keep_json(g, x, RKI_GLTF_KEY(RKI_GLTF_IDX(RKI_GLTF_KEY(NULL, "scenes"), scene), "extras"), &s->scene_extras))
			return false;
	}
	rki_gltf_extras_dropped(g, "skins", &g->skins);
	rki_gltf_extras_dropped(g, "animations", &g->animations);
	rki_gltf_extras_dropped(g, "textures", &g->textures);
	rki_gltf_extras_dropped(g, "images", &g->images);
	rki_gltf_extras_dropped(g, "samplers", &g->samplers);
	rki_gltf_extras_dropped(g, "accessors", &g->accessors);
	rki_gltf_extras_dropped(g, "bufferViews", &g->buffer_views);
	rki_gltf_extras_dropped(g, "buffers", &g->buffers);
	if (g->scenes.count > 1)
		rki_gltf_warn(g, RKI_GLTF_KEY(NULL, "scenes"), "%zu scenes: only the loaded one is kept (its nodes, the others' roots under it)",
			g->scenes.count);
	size_t prim_extras = 0;
	for (size_t i = 0; i < g->meshes.count; i++) {
		const rki_json *prims = rki_gltf_member(&g->meshes.items[i], "primitives");
		for (size_t k = 0; rki_json_is(prims, RKI_JSON_ARRAY) && k < prims->len; k++)
			if (rki_gltf_member(&prims->u.items[k], "extras")) prim_extras++;
	}
	if (prim_extras) rki_gltf_warn(g, NULL, "extras of %zu mesh primitives are not kept", prim_extras);
	return true;
}
