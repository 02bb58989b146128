/*
 * src/formats/gltf/gltf_vrm.c - the VRM extensions of the glTF reader: VRM 1.0
 * (VRMC_vrm and the extensions that travel with it), VRM 0.x (VRM) and VRM
 * Animation (VRMC_vrm_animation). docs/vrm.md describes what is read.
 *
 * Two results:
 *   scene->extensions  the extension objects as the file wrote them, with
 *                      every index field this file knows resolved to the
 *                      scene element it names (rk_ext_value, scene.h), so
 *                      a writer can emit them again with its own numbering;
 *   scene->hints       the declared humanoid: scheme "humanoid", key = the
 *                      VRM 1.0 bone name, node, origin = the extension's
 *                      name. VRM 0.x thumbs are renamed to VRM 1.0's
 *                      (0.x thumbProximal / thumbIntermediate / thumbDistal
 *                      are 1.0 thumbMetacarpal / thumbProximal / thumbDistal).
 *
 * Hostile input: nothing in a VRM extension fails the load. A value of the
 * wrong type, an index out of range, a bone or node declared twice is a
 * warning with its JSON pointer; the value is then kept as plain data (a
 * bad index stays a number) or, for the humanoid, left out. Nesting deeper
 * than RKI_VRM_MAX_DEPTH is cut (warned). Bone names are copied as they are:
 * this layer does not know the humanoid (src/humanoid checks the keys).
 */
#include "gltf_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define RKI_VRM_MAX_DEPTH 48
/* Path segments compared with the index rules (rules are shallower). */
#define RKI_VRM_SEGS 8

/* Where a kept extension sits in the file. */
static const char *const rki_vrm_top[] = { "VRMC_vrm", "VRMC_springBone", "VRMC_vrm_animation", "VRM" };
static const char *const rki_vrm_node_ext[] = { "VRMC_node_constraint" };
static const char *const rki_vrm_material_ext[] = { "VRMC_materials_mtoon", "VRMC_materials_hdr_emissiveMultiplier",
	/* KHR material extensions kept as they are: every textureInfo sits one
	 * level below the extension object ({"clearcoatTexture": {"index": 2}}) */
	"KHR_materials_specular", "KHR_materials_ior", "KHR_materials_clearcoat", "KHR_materials_sheen",
	"KHR_materials_transmission", "KHR_materials_volume", "KHR_materials_emissive_strength", "KHR_materials_iridescence",
	"KHR_materials_anisotropy", "KHR_materials_dispersion", "KHR_materials_diffuse_transmission",
	"KHR_materials_pbrSpecularGlossiness" };
#define RKI_VRM_MATERIAL_EXT_COUNT (sizeof(rki_vrm_material_ext) / sizeof(rki_vrm_material_ext[0]))

/* Which values of an extension are indices: `pattern` is the path below the
 * extension object, '*' any member name or array index. */
typedef struct rki_vrm_rule {
	const char *ext;
	const char *pattern;
	rk_ext_kind kind;
} rki_vrm_rule;

static const rki_vrm_rule rki_vrm_rules[] = {
	/* VRM 1.0, VRMC_vrm-1.0 schemas */
	{ "VRMC_vrm", "humanoid/humanBones/*/node", RK_EXT_NODE },
	{ "VRMC_vrm", "meta/thumbnailImage", RK_EXT_IMAGE },
	{ "VRMC_vrm", "expressions/*/*/morphTargetBinds/*/node", RK_EXT_NODE },
	{ "VRMC_vrm", "expressions/*/*/materialColorBinds/*/material", RK_EXT_MATERIAL },
	{ "VRMC_vrm", "expressions/*/*/textureTransformBinds/*/material", RK_EXT_MATERIAL },
	{ "VRMC_vrm", "firstPerson/meshAnnotations/*/node", RK_EXT_NODE },
	{ "VRMC_springBone", "colliders/*/node", RK_EXT_NODE },
	{ "VRMC_springBone", "springs/*/joints/*/node", RK_EXT_NODE },
	{ "VRMC_springBone", "springs/*/center", RK_EXT_NODE },
	{ "VRMC_node_constraint", "constraint/*/source", RK_EXT_NODE },
	{ "VRMC_materials_mtoon", "*/index", RK_EXT_TEXTURE },
	{ "KHR_materials_*", "*/index", RK_EXT_TEXTURE },
	/* VRM Animation 1.0 */
	{ "VRMC_vrm_animation", "humanoid/humanBones/*/node", RK_EXT_NODE },
	{ "VRMC_vrm_animation", "expressions/*/*/node", RK_EXT_NODE },
	{ "VRMC_vrm_animation", "lookAt/node", RK_EXT_NODE },
	/* VRM 0.x (UniVRM's vrm.schema.json) */
	{ "VRM", "humanoid/humanBones/*/node", RK_EXT_NODE },
	{ "VRM", "meta/texture", RK_EXT_TEXTURE },
	{ "VRM", "firstPerson/firstPersonBone", RK_EXT_NODE },
	{ "VRM", "firstPerson/meshAnnotations/*/mesh", RK_EXT_MESH },
	{ "VRM", "blendShapeMaster/blendShapeGroups/*/binds/*/mesh", RK_EXT_MESH },
	{ "VRM", "secondaryAnimation/boneGroups/*/bones/*", RK_EXT_NODE },
	{ "VRM", "secondaryAnimation/boneGroups/*/center", RK_EXT_NODE },
	{ "VRM", "secondaryAnimation/colliderGroups/*/node", RK_EXT_NODE },
	{ "VRM", "materialProperties/*/textureProperties/*", RK_EXT_TEXTURE },
};

typedef struct rki_vrm_seg {
	const char *key;             /* NULL: array index */
	size_t len;
} rki_vrm_seg;

typedef struct rki_vrm_conv {
	rki_gltf *g;
	const char *ext;
	rki_vrm_seg segs[RKI_VRM_SEGS];
	size_t depth;
	const size_t *image_texture; /* per image: first texture showing it, or RKI_GLTF_NONE */
	bool *cut_warned;
} rki_vrm_conv;

static bool rki_vrm_match(const rki_vrm_conv *c, const char *pattern)
{
	size_t i = 0;
	const char *p = pattern;
	while (*p) {
		const char *e = strchr(p, '/');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		if (i >= c->depth || i >= RKI_VRM_SEGS) return false;
		if (!(n == 1 && p[0] == '*')) {
			const rki_vrm_seg *s = &c->segs[i];
			if (!s->key || s->len != n || memcmp(s->key, p, n) != 0) return false;
		}
		i++;
		p += n;
		if (*p == '/') p++;
	}
	return i == c->depth;
}

/* Rule name `rule` ("VRM", or a prefix ending in '*') covers extension `ext`. */
static bool rki_vrm_ext_is(const char *rule, const char *ext)
{
	size_t n = strlen(rule);
	if (n > 0 && rule[n - 1] == '*') return strncmp(rule, ext, n - 1) == 0;
	return strcmp(rule, ext) == 0;
}

static rk_ext_kind rki_vrm_index_kind(const rki_vrm_conv *c)
{
	if (c->depth > RKI_VRM_SEGS) return RK_EXT_NUMBER;
	for (size_t i = 0; i < sizeof(rki_vrm_rules) / sizeof(rki_vrm_rules[0]); i++)
		if (rki_vrm_ext_is(rki_vrm_rules[i].ext, c->ext) && rki_vrm_match(c, rki_vrm_rules[i].pattern))
			return rki_vrm_rules[i].kind;
	return RK_EXT_NUMBER;
}

/* The element index `x` names for `kind`, or NULL (warned when out of range). */
static const void *rki_vrm_resolve(rki_vrm_conv *c, rk_ext_kind kind, double x, const rki_gltf_loc *loc)
{
	rki_gltf *g = c->g;
	rk_scene *s = g->sc.scene;
	static const char *const what[] = { [RK_EXT_NODE] = "a node", [RK_EXT_MESH] = "a mesh", [RK_EXT_MATERIAL] = "a material",
		[RK_EXT_TEXTURE] = "a texture", [RK_EXT_IMAGE] = "an image" };
	size_t count = 0;
	switch (kind) {
	case RK_EXT_NODE: count = g->nodes.count; break;
	case RK_EXT_MESH: count = g->meshes.count; break;
	case RK_EXT_MATERIAL: count = g->materials.count; break;
	case RK_EXT_TEXTURE: count = g->textures.count; break;
	case RK_EXT_IMAGE: count = g->images.count; break;
	default: return NULL;
	}
	if (!(x >= 0.0 && x < (double)count && floor(x) == x)) {
		if (x != -1.0) /* UniVRM (0.x) writes -1 for "none" (center, meta.texture) */
			rki_gltf_warn(g, loc, "%s: expected %s index below %zu, got %g: kept as a number", c->ext, what[kind], count, x);
		return NULL;
	}
	size_t i = (size_t)x;
	switch (kind) {
	case RK_EXT_NODE: return g->node_map[i];
	case RK_EXT_MESH: return g->mesh_info ? g->mesh_info[i].mesh : NULL;
	case RK_EXT_MATERIAL: return i < s->materials.count ? &s->materials.data[i] : NULL;
	case RK_EXT_TEXTURE: return i < s->textures.count ? &s->textures.data[i] : NULL;
	case RK_EXT_IMAGE: {
		size_t t = c->image_texture[i];
		if (t == RKI_GLTF_NONE) {
			rki_gltf_warn(g, loc, "VRM: image %zu is shown by no texture: kept as a number (not written)", i);
			return NULL;
		}
		return &s->textures.data[t];
	}
	default: return NULL;
	}
}

static bool rki_vrm_convert(rki_vrm_conv *c, const rki_json *v, const rki_gltf_loc *loc, rk_ext_value *out)
{
	rki_gltf *g = c->g;
	rki_arena *ar = g->sc.arena;
	switch (v->type) {
	case RKI_JSON_NULL: out->kind = RK_EXT_NULL; return true;
	case RKI_JSON_FALSE:
	case RKI_JSON_TRUE:
		out->kind = RK_EXT_BOOL;
		out->number = v->type == RKI_JSON_TRUE;
		return true;
	case RKI_JSON_NUMBER: {
		double x = rki_gltf_num(g, v);
		out->kind = RK_EXT_NUMBER;
		out->number = isfinite(x) ? x : 0.0;
		rk_ext_kind kind = rki_vrm_index_kind(c);
		if (kind != RK_EXT_NUMBER) {
			const void *ref = rki_vrm_resolve(c, kind, out->number, loc);
			if (ref) {
				out->kind = kind;
				out->ref = ref;
			}
		}
		return true;
	}
	case RKI_JSON_STRING: {
		char *t = rki_arena_strndup(ar, v->u.text, v->len);
		if (!t) return rki_gltf_oom(g);
		out->kind = RK_EXT_STRING;
		out->string = t;
		out->length = v->len;
		return true;
	}
	default: break;
	}
	bool object = v->type == RKI_JSON_OBJECT;
	out->kind = object ? RK_EXT_OBJECT : RK_EXT_ARRAY;
	if (c->depth >= RKI_VRM_MAX_DEPTH) {
		if (!*c->cut_warned) rki_gltf_warn(g, loc, "%s: nested deeper than %d levels: cut here", c->ext[0] ? c->ext : "extras", RKI_VRM_MAX_DEPTH);
		*c->cut_warned = true;
		out->kind = RK_EXT_NULL;
		return true;
	}
	rk_ext_value *items = (rk_ext_value *)rki_arena_array(ar, v->len, sizeof(rk_ext_value));
	if (!items && v->len) return rki_gltf_oom(g);
	out->items = items;
	out->count = v->len;
	for (size_t i = 0; i < v->len; i++) {
		const rki_json *item = object ? &v->u.members[i].value : &v->u.items[i];
		const rki_json_member *m = object ? &v->u.members[i] : NULL;
		const rki_gltf_loc *iloc = m ? RKI_GLTF_MEMBER(loc, m->key, m->value.key_len) : RKI_GLTF_IDX(loc, i);
		if (c->depth < RKI_VRM_SEGS) c->segs[c->depth] = (rki_vrm_seg){ m ? m->key : NULL, m ? m->value.key_len : 0 };
		if (m) {
			char *key = rki_arena_strndup(ar, m->key, m->value.key_len);
			if (!key) return rki_gltf_oom(g);
			items[i].key = key;
		}
		c->depth++;
		bool ok = rki_vrm_convert(c, item, iloc, &items[i]);
		c->depth--;
		if (!ok) return false;
	}
	return true;
}

bool rki_gltf_keep_json(rki_gltf *g, const rki_json *v, const rki_gltf_loc *loc, const rk_ext_value **out)
{
	*out = NULL;
	if (!v) return true;
	rk_ext_value *value = (rk_ext_value *)rki_arena_array(g->sc.arena, 1, sizeof(rk_ext_value));
	if (!value) return rki_gltf_oom(g);
	bool cut = false;
	rki_vrm_conv c;
	memset(&c, 0, sizeof(c));
	c.g = g;
	c.ext = "";                  /* no index rules: plain data */
	c.cut_warned = &cut;
	if (!rki_vrm_convert(&c, v, loc, value)) return false;
	*out = value;
	return true;
}

/* ---- the declared humanoid ---------------------------------------------------- */

typedef struct rki_vrm_hints {
	rki_gltf *g;
	rk_declared_hint *data;
	size_t count, cap;
} rki_vrm_hints;

/* VRM 1.0 name of a VRM 0.x bone: the thumbs shift by one, the rest agree. */
static const char *rki_vrm0_bone(const char *name)
{
	static const char *const map[][2] = {
		{ "leftThumbProximal", "leftThumbMetacarpal" },   { "leftThumbIntermediate", "leftThumbProximal" },
		{ "rightThumbProximal", "rightThumbMetacarpal" }, { "rightThumbIntermediate", "rightThumbProximal" },
	};
	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (strcmp(name, map[i][0]) == 0) return map[i][1];
	return name;
}

static void rki_vrm_hint_add(rki_vrm_hints *h, const char *origin, const char *key, const rk_ext_value *node,
	const rki_gltf_loc *loc)
{
	rki_gltf *g = h->g;
	if (!node || node->kind != RK_EXT_NODE) {
		/* a bad index was warned where it was read */
		if (!node || node->kind != RK_EXT_NUMBER) rki_gltf_warn(g, loc, "%s: humanoid bone '%.40s' names no node: ignored", origin, key);
		return;
	}
	for (size_t i = 0; i < h->count; i++) {
		if (strcmp(h->data[i].key, key) == 0) {
			rki_gltf_warn(g, loc, "%s: humanoid bone '%.40s' declared twice: the first is used", origin, key);
			return;
		}
		if (h->data[i].node == node->ref) {
			rki_gltf_warn(g, loc, "%s: node '%.60s' declared for both '%.40s' and '%.40s': the second is ignored", origin,
				((const rk_node *)node->ref)->name, h->data[i].key, key);
			return;
		}
	}
	if (h->count < h->cap) h->data[h->count++] = (rk_declared_hint){ "humanoid", key, (const rk_node *)node->ref, origin };
}

static const rk_ext_value *rki_vrm_member(const rk_ext_value *obj, const char *key)
{
	if (!obj || obj->kind != RK_EXT_OBJECT) return NULL;
	for (size_t i = 0; i < obj->count; i++)
		if (strcmp(obj->items[i].key, key) == 0) return &obj->items[i];
	return NULL;
}

/* humanoid.humanBones of extension `e` (at /extensions/<name>). VRM 1.0 and
 * VRMA: {boneName: {node}}; VRM 0.x: [{bone, node}]. */
static void rki_vrm_humanoid(rki_vrm_hints *h, const rk_extension *e)
{
	rki_gltf *g = h->g;
	bool vrm0 = strcmp(e->name, "VRM") == 0;
	const rki_gltf_loc *base = RKI_GLTF_KEY(RKI_GLTF_KEY(NULL, "extensions"), e->name);
	const rki_gltf_loc *hloc = RKI_GLTF_KEY(base, "humanoid"), *bloc = RKI_GLTF_KEY(hloc, "humanBones");
	const rk_ext_value *humanoid = rki_vrm_member(&e->value, "humanoid");
	if (!humanoid) {
		if (strcmp(e->name, "VRMC_vrm_animation") != 0) rki_gltf_warn(g, base, "%s: no humanoid object", e->name);
		return;
	}
	const rk_ext_value *bones = rki_vrm_member(humanoid, "humanBones");
	if (!bones || bones->kind != (vrm0 ? RK_EXT_ARRAY : RK_EXT_OBJECT)) {
		rki_gltf_warn(g, bones ? bloc : hloc, "%s: expected humanoid.humanBones as %s: no declared humanoid", e->name,
			vrm0 ? "an array of {bone, node}" : "an object {boneName: {node}}");
		return;
	}
	size_t need = h->count + bones->count;
	rk_declared_hint *grown = (rk_declared_hint *)rki_arena_array(g->sc.arena, need ? need : 1, sizeof(rk_declared_hint));
	if (!grown) {
		rki_gltf_oom(g);
		return;
	}
	if (h->count) memcpy(grown, h->data, h->count * sizeof(*grown));
	h->data = grown;
	h->cap = need;
	for (size_t i = 0; i < bones->count; i++) {
		const rk_ext_value *b = &bones->items[i];
		const rki_gltf_loc *loc = vrm0 ? RKI_GLTF_IDX(bloc, i) : RKI_GLTF_KEY(bloc, b->key);
		if (b->kind != RK_EXT_OBJECT) {
			rki_gltf_warn(g, loc, "%s: expected a humanoid bone object: ignored", e->name);
			continue;
		}
		const char *key = b->key;
		if (vrm0) {
			const rk_ext_value *name = rki_vrm_member(b, "bone");
			if (!name || name->kind != RK_EXT_STRING || strlen(name->string) != name->length) {
				rki_gltf_warn(g, RKI_GLTF_KEY(loc, "bone"), "VRM: expected a bone name string: ignored");
				continue;
			}
			key = rki_vrm0_bone(name->string);
		}
		rki_vrm_hint_add(h, e->name, key, rki_vrm_member(b, "node"), RKI_GLTF_KEY(loc, "node"));
	}
}

/* ---- the pass ------------------------------------------------------------------ */

static bool rki_vrm_listed(const char *const *names, size_t count, const rki_json_member *m)
{
	for (size_t i = 0; i < count; i++)
		if (strlen(names[i]) == m->value.key_len && memcmp(names[i], m->key, m->value.key_len) == 0) return true;
	return false;
}

typedef struct rki_vrm_pass {
	rki_gltf *g;
	rk_extension *list;
	size_t count, cap;
	const size_t *image_texture;
	bool cut_warned;
} rki_vrm_pass;

/* Keeps the extensions of `exts` (the "extensions" object at `loc`) that
 * `names` lists, for `owner`. With list NULL only counts them. */
static bool rki_vrm_keep(rki_vrm_pass *p, const rki_json *exts, const rki_gltf_loc *loc, const char *const *names, size_t n,
	rk_ext_owner owner, const rk_node *node, const rk_material *material)
{
	if (!rki_json_is(exts, RKI_JSON_OBJECT)) return true;
	for (size_t i = 0; i < exts->len; i++) {
		const rki_json_member *m = &exts->u.members[i];
		if (!rki_vrm_listed(names, n, m)) continue;
		const rki_gltf_loc *eloc = RKI_GLTF_MEMBER(loc, m->key, m->value.key_len);
		if (m->value.type != RKI_JSON_OBJECT) {
			if (p->list) rki_gltf_warn(p->g, eloc, "expected an extension object: %.*s ignored", (int)m->value.key_len, m->key);
			continue;
		}
		if (!p->list) {
			p->cap++;
			continue;
		}
		if (p->count >= p->cap) continue;
		rk_extension *e = &p->list[p->count];
		memset(e, 0, sizeof(*e));
		for (size_t k = 0; k < n; k++)
			if (strlen(names[k]) == m->value.key_len && memcmp(names[k], m->key, m->value.key_len) == 0) e->name = names[k];
		e->owner = owner;
		e->node = node;
		e->material = material;
		rki_vrm_conv c;
		memset(&c, 0, sizeof(c));
		c.g = p->g;
		c.ext = e->name;
		c.image_texture = p->image_texture;
		c.cut_warned = &p->cut_warned;
		if (!rki_vrm_convert(&c, &m->value, eloc, &e->value)) return false;
		p->count++;
	}
	return true;
}

static bool rki_vrm_scan(rki_vrm_pass *p)
{
	rki_gltf *g = p->g;
	const rk_scene *s = g->sc.scene;
	const size_t ntop = sizeof(rki_vrm_top) / sizeof(rki_vrm_top[0]);
	if (!rki_vrm_keep(p, rki_json_get(g->json, "extensions"), RKI_GLTF_KEY(NULL, "extensions"), rki_vrm_top, ntop,
		RK_EXT_OWNER_SCENE, NULL, NULL))
		return false;
	for (size_t i = 0; i < g->nodes.count; i++) {
		const rki_gltf_loc *loc = RKI_GLTF_KEY(RKI_GLTF_IDX(RKI_GLTF_KEY(NULL, "nodes"), i), "extensions");
		if (!rki_vrm_keep(p, rki_json_get(&g->nodes.items[i], "extensions"), loc, rki_vrm_node_ext, 1, RK_EXT_OWNER_NODE,
			g->node_map[i], NULL))
			return false;
	}
	for (size_t i = 0; i < g->materials.count && i < s->materials.count; i++) {
		const rki_gltf_loc *loc = RKI_GLTF_KEY(RKI_GLTF_IDX(RKI_GLTF_KEY(NULL, "materials"), i), "extensions");
		if (!rki_vrm_keep(p, rki_json_get(&g->materials.items[i], "extensions"), loc, rki_vrm_material_ext, RKI_VRM_MATERIAL_EXT_COUNT,
			RK_EXT_OWNER_MATERIAL, NULL, &s->materials.data[i]))
			return false;
	}
	return true;
}

bool rki_gltf_load_vrm(rki_gltf *g)
{
	rki_vrm_pass p;
	memset(&p, 0, sizeof(p));
	p.g = g;
	if (!rki_vrm_scan(&p)) return false; /* counts */
	if (p.cap == 0) return true;
	rk_scene *s = g->sc.scene;
	size_t *image_texture = (size_t *)rki_arena_array(&g->sc.tmp, g->images.count ? g->images.count : 1, sizeof(size_t));
	p.list = (rk_extension *)rki_arena_array(g->sc.arena, p.cap, sizeof(rk_extension));
	if (!image_texture || !p.list) return rki_gltf_oom(g);
	for (size_t i = 0; i < g->images.count; i++) image_texture[i] = RKI_GLTF_NONE;
	for (size_t t = g->textures.count; t-- > 0;) {
		const rki_json *src = rki_json_get(&g->textures.items[t], "source");
		if (!rki_json_is(src, RKI_JSON_NUMBER)) continue;
		double x = rki_gltf_num(g, src);
		if (x >= 0.0 && x < (double)g->images.count && floor(x) == x) image_texture[(size_t)x] = t;
	}
	p.image_texture = image_texture;
	if (!rki_vrm_scan(&p)) return false;
	s->extensions.data = p.list;
	s->extensions.count = p.count;

	/* The declared humanoid: VRM 1.0 first, else 0.x, else VRM Animation. */
	rki_vrm_hints h;
	memset(&h, 0, sizeof(h));
	h.g = g;
	static const char *const order[] = { "VRMC_vrm", "VRM", "VRMC_vrm_animation" };
	for (size_t o = 0; o < 3 && h.count == 0; o++) {
		for (size_t i = 0; i < p.count; i++) {
			if (p.list[i].owner == RK_EXT_OWNER_SCENE && strcmp(p.list[i].name, order[o]) == 0) {
				rki_vrm_humanoid(&h, &p.list[i]);
				if (rki_gltf_failed(g)) return false;
			}
		}
	}
	s->hints.data = h.data;
	s->hints.count = h.count;
	return true;
}
