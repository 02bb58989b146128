/*
 * src/formats/fbx/fbx_load.c - FBX scene reader: DOM -> neutral scene.
 *
 * Features and restrictions: include/rigkit/load.h, FBX IMPORTER.
 */
#include "formats/fbx/fbx_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- errors --------------------------------------------------------------- */

void rki_fbx_fail(rki_fbx_ctx *ctx, const rki_fbx_node *n, rk_error_code code, const char *fmt, ...)
{
	rk_error *err = ctx->sc->err;
	if (!err || err->code != RK_OK) return;
	va_list ap;
	va_start(ap, fmt);
	rki_error_setv(err, code, fmt, ap);
	va_end(ap);
	rki_error_file(err, ctx->filename);
	if (n) {
		char path[RK_ERROR_TEXT_MAX];
		rki_fbx_node_path(n, path, sizeof(path));
		rki_error_at_path(err, RK_LOCATION_FBX_NODE, path);
		rki_error_at_byte(err, n->offset);
	}
}

void rki_fbx_warn(rki_fbx_ctx *ctx, const rki_fbx_node *n, const char *fmt, ...)
{
	char msg[RK_ERROR_TEXT_MAX];
	char path[RK_ERROR_TEXT_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	path[0] = '\0';
	if (n) rki_fbx_node_path(n, path, sizeof(path));
	rki_scene_warn(ctx->sc, n ? n->offset : UINT64_MAX, path, "%s", msg);
}

static bool rki_fbx_oom(rki_fbx_ctx *ctx)
{
	rki_scene_oom(ctx->sc);
	rki_error_file(ctx->sc->err, ctx->filename);
	return false;
}

/* ---- string helpers ------------------------------------------------------------ */

static bool rki_fbx_str_eq(const char *a, size_t alen, const char *b)
{
	size_t blen = strlen(b);
	return alen == blen && memcmp(a, b, blen) == 0;
}

static bool rki_fbx_child_str(const rki_fbx_node *n, const char *child, const char **s, size_t *len)
{
	const rki_fbx_node *c = rki_fbx_find_child(n, child);
	return c && rki_fbx_prop_str(c, 0, s, len);
}

static uint64_t rki_fnv1a(const char *s, size_t len)
{
	uint64_t h = 1469598103934665603ull;
	for (size_t i = 0; i < len; i++) {
		h ^= (unsigned char)s[i];
		h *= 1099511628211ull;
	}
	return h;
}

/* 6100 objects are named "Class::name"; use a hash of the full string as id
 * (0 is reserved for the root "Model::Scene"). */
static int64_t rki_fbx_name_id(const char *s, size_t len)
{
	if (rki_fbx_str_eq(s, len, "Model::Scene")) return 0;
	int64_t id = (int64_t)(rki_fnv1a(s, len) & 0x7fffffffffffffffull);
	return id == 0 ? 1 : id;
}

/* ---- object index ------------------------------------------------------------------ */

typedef struct rki_id_slot { int64_t id; uint32_t index; } rki_id_slot;

typedef struct rki_id_map {
	rki_id_slot *slots;
	size_t mask;
} rki_id_map;

static uint64_t rki_hash_id(int64_t id)
{
	uint64_t x = (uint64_t)id;
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	return x;
}

uint32_t rki_fbx_find_object(const rki_fbx_ctx *ctx, int64_t id)
{
	const rki_id_map *m = (const rki_id_map *)(const void *)ctx->sorted_ids;
	if (!m || !m->slots) return UINT32_MAX;
	for (size_t i = rki_hash_id(id) & m->mask;; i = (i + 1) & m->mask) {
		if (m->slots[i].index == UINT32_MAX) return UINT32_MAX;
		if (m->slots[i].id == id) return m->slots[i].index;
	}
}

static const rki_fbx_node *rki_fbx_find_template(rki_fbx_ctx *ctx, const char *element)
{
	const rki_fbx_node *defs = rki_fbx_find_child(&ctx->doc.root, "Definitions");
	if (!defs) return NULL;
	for (size_t i = 0; i < defs->child_count; i++) {
		const rki_fbx_node *ot = &defs->children[i];
		const char *s;
		size_t len;
		if (strcmp(ot->name, "ObjectType") != 0 || !rki_fbx_prop_str(ot, 0, &s, &len)) continue;
		if (!rki_fbx_str_eq(s, len, element)) continue;
		const rki_fbx_node *pt = rki_fbx_find_child(ot, "PropertyTemplate");
		return pt ? rki_fbx_find_child(pt, "Properties70") : NULL;
	}
	return NULL;
}

static bool rki_fbx_index_objects(rki_fbx_ctx *ctx)
{
	const rki_fbx_node *objs = rki_fbx_find_child(&ctx->doc.root, "Objects");
	ctx->objects_node = objs;
	size_t n = objs ? objs->child_count : 0;
	ctx->objects = (rki_fbx_object *)rki_arena_array(&ctx->sc->tmp, n ? n : 1, sizeof(rki_fbx_object));
	size_t cap = 16;
	while (cap < n * 2 + 2) cap *= 2;
	rki_id_map *map = (rki_id_map *)rki_arena_alloc(&ctx->sc->tmp, sizeof(rki_id_map));
	if (!ctx->objects || !map) return rki_fbx_oom(ctx);
	map->slots = (rki_id_slot *)rki_arena_array(&ctx->sc->tmp, cap, sizeof(rki_id_slot));
	if (!map->slots) return rki_fbx_oom(ctx);
	for (size_t i = 0; i < cap; i++) map->slots[i].index = UINT32_MAX;
	map->mask = cap - 1;
	ctx->sorted_ids = (int64_t *)(void *)map;

	/* Templates per element kind, looked up once per distinct element name. */
	const char *last_element = NULL;
	const rki_fbx_node *last_templ = NULL;
	size_t count = 0;
	for (size_t i = 0; i < n; i++) {
		const rki_fbx_node *c = &objs->children[i];
		rki_fbx_object *o = &ctx->objects[count];
		memset(o, 0, sizeof(*o));
		const char *name = NULL, *sub = "";
		size_t name_len = 0, sub_len = 0;
		int64_t id;
		if (!ctx->v6) {
			if (!rki_fbx_prop_i64(c, 0, &id)) continue; /* e.g. GlobalSettings-like entries */
			if (!rki_fbx_prop_str(c, 1, &name, &name_len)) { name = ""; name_len = 0; }
			if (!rki_fbx_prop_str(c, 2, &sub, &sub_len)) { sub = ""; sub_len = 0; }
		} else {
			if (!rki_fbx_prop_str(c, 0, &name, &name_len)) continue;
			if (!rki_fbx_prop_str(c, 1, &sub, &sub_len)) { sub = ""; sub_len = 0; }
			id = rki_fbx_name_id(name, name_len);
		}
		o->id = id;
		o->node = c;
		o->element = c->name;
		o->name = rki_fbx_plain_name(ctx->sc->arena, name, name_len);
		o->sub_class = rki_arena_strndup(&ctx->sc->tmp, sub, sub_len);
		if (!o->name || !o->sub_class) return rki_fbx_oom(ctx);
		o->props = rki_fbx_find_child(c, "Properties70");
		if (!o->props) {
			o->props = rki_fbx_find_child(c, "Properties60");
			o->props60 = o->props != NULL;
		}
		if (!ctx->v6) {
			if (!last_element || strcmp(last_element, c->name) != 0) {
				last_element = c->name;
				last_templ = rki_fbx_find_template(ctx, c->name);
			}
			o->templ = last_templ;
		}
		o->node_index = UINT32_MAX;
		/* Insert into the id map; duplicates keep the first object. */
		size_t slot = rki_hash_id(id) & map->mask;
		bool dup = false;
		while (map->slots[slot].index != UINT32_MAX) {
			if (map->slots[slot].id == id) { dup = true; break; }
			slot = (slot + 1) & map->mask;
		}
		if (dup) {
			rki_fbx_warn(ctx, c, "duplicate object id %lld: later object ignored", (long long)id);
			continue;
		}
		map->slots[slot].id = id;
		map->slots[slot].index = (uint32_t)count;
		count++;
	}
	ctx->object_count = count;
	return true;
}

typedef struct rki_raw_conn { uint32_t child, parent; const char *prop; } rki_raw_conn;

static bool rki_fbx_index_connections(rki_fbx_ctx *ctx)
{
	const rki_fbx_node *cn = rki_fbx_find_child(&ctx->doc.root, "Connections");
	size_t n = cn ? cn->child_count : 0;
	rki_raw_conn *raw = (rki_raw_conn *)rki_arena_array(&ctx->sc->tmp, n ? n : 1, sizeof(rki_raw_conn));
	if (!raw) return rki_fbx_oom(ctx);
	size_t count = 0;
	for (size_t i = 0; i < n; i++) {
		const rki_fbx_node *c = &cn->children[i];
		if (strcmp(c->name, "C") != 0 && strcmp(c->name, "Connect") != 0) continue;
		const char *type, *prop = NULL;
		size_t type_len, prop_len = 0;
		if (!rki_fbx_prop_str(c, 0, &type, &type_len)) continue;
		int64_t child_id, parent_id;
		if (!ctx->v6) {
			if (!rki_fbx_prop_i64(c, 1, &child_id) || !rki_fbx_prop_i64(c, 2, &parent_id)) {
				rki_fbx_warn(ctx, c, "connection without two object ids ignored");
				continue;
			}
		} else {
			const char *a, *b;
			size_t al, bl;
			if (!rki_fbx_prop_str(c, 1, &a, &al) || !rki_fbx_prop_str(c, 2, &b, &bl)) {
				rki_fbx_warn(ctx, c, "connection without two object names ignored");
				continue;
			}
			child_id = rki_fbx_name_id(a, al);
			parent_id = rki_fbx_name_id(b, bl);
		}
		if (type_len >= 2 && type[1] == 'P') rki_fbx_prop_str(c, 3, &prop, &prop_len);
		uint32_t ci = rki_fbx_find_object(ctx, child_id);
		if (ci == UINT32_MAX) continue; /* connections of non-objects (e.g. to the root's children) */
		uint32_t pi = parent_id == 0 ? UINT32_MAX - 1 : rki_fbx_find_object(ctx, parent_id);
		if (pi == UINT32_MAX) continue;
		raw[count].child = ci;
		raw[count].parent = pi;
		raw[count].prop = prop ? rki_arena_strndup(&ctx->sc->tmp, prop, prop_len) : NULL;
		if (prop && !raw[count].prop) return rki_fbx_oom(ctx);
		count++;
	}
	/* CSR: parents of each object, then children of each object, in file order. */
	size_t total;
	if (!rki_mul_size(count, 2, &total)) return rki_fbx_oom(ctx);
	ctx->conns = (rki_fbx_conn *)rki_arena_array(&ctx->sc->tmp, total ? total : 1, sizeof(rki_fbx_conn));
	if (!ctx->conns) return rki_fbx_oom(ctx);
	for (size_t i = 0; i < count; i++) {
		ctx->objects[raw[i].child].parents_count++;
		if (raw[i].parent != UINT32_MAX - 1) ctx->objects[raw[i].parent].children_count++;
	}
	uint32_t at = 0;
	for (size_t i = 0; i < ctx->object_count; i++) {
		ctx->objects[i].parents_begin = at;
		at += ctx->objects[i].parents_count;
		ctx->objects[i].parents_count = 0;
	}
	for (size_t i = 0; i < ctx->object_count; i++) {
		ctx->objects[i].children_begin = at;
		at += ctx->objects[i].children_count;
		ctx->objects[i].children_count = 0;
	}
	for (size_t i = 0; i < count; i++) {
		rki_fbx_object *c = &ctx->objects[raw[i].child];
		rki_fbx_conn *pc = &ctx->conns[c->parents_begin + c->parents_count++];
		pc->other = raw[i].parent; /* UINT32_MAX - 1 = the root */
		pc->prop = raw[i].prop;
		if (raw[i].parent != UINT32_MAX - 1) {
			rki_fbx_object *p = &ctx->objects[raw[i].parent];
			rki_fbx_conn *cc = &ctx->conns[p->children_begin + p->children_count++];
			cc->other = raw[i].child;
			cc->prop = raw[i].prop;
		}
	}
	ctx->conn_count = count;
	return true;
}

#define RKI_ROOT_OBJECT (UINT32_MAX - 1)

/* ---- properties ------------------------------------------------------------------ */

static const rki_fbx_node *rki_fbx_props_find(const rki_fbx_node *props, bool p60, const char *name, size_t *vi)
{
	if (!props) return NULL;
	size_t name_len = strlen(name);  /* once, not per P node: this scan is hot */
	for (size_t i = 0; i < props->child_count; i++) {
		const rki_fbx_node *p = &props->children[i];
		const char *s;
		size_t len;
		if (!rki_fbx_prop_str(p, 0, &s, &len)) continue;
		if (len == name_len && memcmp(s, name, name_len) == 0) {
			*vi = p60 ? 3 : 4;
			return p;
		}
	}
	return NULL;
}

const rki_fbx_node *rki_fbx_obj_prop(const rki_fbx_object *o, const char *name, size_t *value_index)
{
	const rki_fbx_node *p = rki_fbx_props_find(o->props, o->props60, name, value_index);
	if (p) return p;
	return rki_fbx_props_find(o->templ, false, name, value_index);
}

double rki_fbx_obj_f64(const rki_fbx_object *o, const char *name, double def)
{
	size_t vi;
	double v;
	const rki_fbx_node *p = rki_fbx_obj_prop(o, name, &vi);
	return p && rki_fbx_prop_f64(p, vi, &v) ? v : def;
}

/* Value vi of a P node as an integer (numbers rounded toward 0), or def. */
static int64_t rki_fbx_p_i64(const rki_fbx_node *p, size_t vi, int64_t def)
{
	int64_t v;
	double d;
	if (!p) return def;
	if (rki_fbx_prop_i64(p, vi, &v)) return v;
	if (rki_fbx_prop_f64(p, vi, &d) && d > -9e18 && d < 9e18) return (int64_t)d;
	return def;
}

/* Values vi..vi+2 of a P node, or def. */
static rk_vec3 rki_fbx_p_vec3(const rki_fbx_node *p, size_t vi, rk_vec3 def)
{
	rk_vec3 v;
	if (!p || !rki_fbx_prop_f64(p, vi, &v.x) || !rki_fbx_prop_f64(p, vi + 1, &v.y) || !rki_fbx_prop_f64(p, vi + 2, &v.z))
		return def;
	return v;
}

int64_t rki_fbx_obj_i64(const rki_fbx_object *o, const char *name, int64_t def)
{
	size_t vi = 0;
	const rki_fbx_node *p = rki_fbx_obj_prop(o, name, &vi);
	return rki_fbx_p_i64(p, vi, def);
}

rk_vec3 rki_fbx_obj_vec3(const rki_fbx_object *o, const char *name, rk_vec3 def)
{
	size_t vi = 0;
	const rki_fbx_node *p = rki_fbx_obj_prop(o, name, &vi);
	return rki_fbx_p_vec3(p, vi, def);
}

const char *rki_fbx_obj_str(const rki_fbx_object *o, const char *name, const char *def)
{
	size_t vi, len;
	const char *s;
	const rki_fbx_node *p = rki_fbx_obj_prop(o, name, &vi);
	return p && rki_fbx_prop_str(p, vi, &s, &len) ? s : def;
}

/* ---- settings ------------------------------------------------------------------------ */

static rk_axis rki_fbx_axis(int64_t axis, int64_t sign)
{
	if (axis < 0 || axis > 2) return RK_AXIS_UNKNOWN;
	return (rk_axis)(1 + axis * 2 + (sign < 0 ? 1 : 0));
}

static double rki_fbx_frame_rate(int64_t mode, double custom)
{
	switch (mode) {
	case 1: return 120.0;
	case 2: return 100.0;
	case 3: return 60.0;
	case 4: return 50.0;
	case 5: return 48.0;
	case 6: case 7: return 30.0;
	case 8: case 9: return 30000.0 / 1001.0;
	case 10: return 25.0;
	case 11: return 24.0;
	case 12: return 1000.0;
	case 13: return 24000.0 / 1001.0;
	case 14: return custom > 0.0 ? custom : 24.0;
	case 15: return 96.0;
	case 16: return 72.0;
	case 17: return 60000.0 / 1001.0;
	case 18: return 120000.0 / 1001.0;
	default: return 24.0;
	}
}

static void rki_fbx_read_settings(rki_fbx_ctx *ctx)
{
	rk_scene_settings *st = &ctx->sc->scene->settings;
	const rki_fbx_node *gs = rki_fbx_find_child(&ctx->doc.root, "GlobalSettings");
	if (!gs && ctx->objects_node) gs = rki_fbx_find_child(ctx->objects_node, "GlobalSettings");
	rki_fbx_object o;
	memset(&o, 0, sizeof(o));
	if (gs) {
		o.node = gs;
		o.props = rki_fbx_find_child(gs, "Properties70");
		if (!o.props) {
			o.props = rki_fbx_find_child(gs, "Properties60");
			o.props60 = o.props != NULL;
		}
	}
	st->unit_meters = 0.01;
	st->axes = (rk_axes){ RK_AXIS_UNKNOWN, RK_AXIS_UNKNOWN, RK_AXIS_UNKNOWN };
	st->frame_rate = 24.0;
	if (!o.props) return;
	size_t vi;
	if (rki_fbx_obj_prop(&o, "UpAxis", &vi)) {
		rk_axes a;
		a.up = rki_fbx_axis(rki_fbx_obj_i64(&o, "UpAxis", 1), rki_fbx_obj_i64(&o, "UpAxisSign", 1));
		a.front = rki_fbx_axis(rki_fbx_obj_i64(&o, "FrontAxis", 2), rki_fbx_obj_i64(&o, "FrontAxisSign", 1));
		a.right = rki_fbx_axis(rki_fbx_obj_i64(&o, "CoordAxis", 0), rki_fbx_obj_i64(&o, "CoordAxisSign", 1));
		if (rk_axes_valid(a)) st->axes = a;
		else rki_fbx_warn(ctx, gs, "GlobalSettings axes are not three distinct axes: ignored");
	}
	double usf = rki_fbx_obj_f64(&o, "UnitScaleFactor", 1.0);
	if (usf > 0.0 && isfinite(usf)) st->unit_meters = usf * 0.01;
	else rki_fbx_warn(ctx, gs, "UnitScaleFactor %g is not a positive number: using centimetres", usf);
	st->frame_rate = rki_fbx_frame_rate(rki_fbx_obj_i64(&o, "TimeMode", 0), rki_fbx_obj_f64(&o, "CustomFrameRate", 0.0));
}

/* ---- nodes ------------------------------------------------------------------------------ */

static rk_node_kind rki_fbx_node_kind(const char *sub)
{
	if (!strcmp(sub, "LimbNode") || !strcmp(sub, "Limb") || !strcmp(sub, "Root") || !strcmp(sub, "Skeleton")) return RK_NODE_JOINT;
	if (!strcmp(sub, "Mesh")) return RK_NODE_MESH;
	if (!strcmp(sub, "Camera") || !strcmp(sub, "CameraSwitcher")) return RK_NODE_CAMERA;
	if (!strcmp(sub, "Light")) return RK_NODE_LIGHT;
	if (!strcmp(sub, "Null") || !sub[0]) return RK_NODE_NULL;
	return RK_NODE_OTHER;
}

/* The Model properties a node reads. One pass over the object's P nodes and
 * one (cached) pass over its template find them all: looking each name up
 * separately scanned Maya's ~80-entry Model template 17 times per node
 * (5% of ybot@kick.fbx's load, perf). The first occurrence wins, the
 * object's before the template's, exactly as rki_fbx_obj_prop(). */
enum {
	RKI_NP_LCL_T, RKI_NP_LCL_R, RKI_NP_LCL_S, RKI_NP_ROT_ORDER, RKI_NP_ROT_OFFSET, RKI_NP_ROT_PIVOT,
	RKI_NP_SCL_OFFSET, RKI_NP_SCL_PIVOT, RKI_NP_PRE_ROT, RKI_NP_POST_ROT, RKI_NP_ROT_ACTIVE, RKI_NP_INHERIT,
	RKI_NP_GEO_T, RKI_NP_GEO_R, RKI_NP_GEO_S, RKI_NP_VISIBILITY, RKI_NP_UV_SET, RKI_NP_COUNT
};

static const struct { const char *name; size_t len; } rki_node_prop_names[RKI_NP_COUNT] = {
#define RKI_NP(s) { s, sizeof(s) - 1 }
	RKI_NP("Lcl Translation"), RKI_NP("Lcl Rotation"), RKI_NP("Lcl Scaling"), RKI_NP("RotationOrder"),
	RKI_NP("RotationOffset"), RKI_NP("RotationPivot"), RKI_NP("ScalingOffset"), RKI_NP("ScalingPivot"),
	RKI_NP("PreRotation"), RKI_NP("PostRotation"), RKI_NP("RotationActive"), RKI_NP("InheritType"),
	RKI_NP("GeometricTranslation"), RKI_NP("GeometricRotation"), RKI_NP("GeometricScaling"), RKI_NP("Visibility"),
	RKI_NP("currentUVSet")
#undef RKI_NP
};

typedef struct rki_node_prop_refs {
	const rki_fbx_node *p[RKI_NP_COUNT];
	size_t vi[RKI_NP_COUNT];
} rki_node_prop_refs;

/* Fills the still-empty entries of r from a Properties70/60 node. */
static void rki_node_props_collect(const rki_fbx_node *props, bool p60, rki_node_prop_refs *r)
{
	if (!props) return;
	for (size_t i = 0; i < props->child_count; i++) {
		const rki_fbx_node *p = &props->children[i];
		const char *s;
		size_t len;
		if (!rki_fbx_prop_str(p, 0, &s, &len)) continue;
		for (int k = 0; k < RKI_NP_COUNT; k++) {
			if (r->p[k] || rki_node_prop_names[k].len != len || memcmp(rki_node_prop_names[k].name, s, len) != 0)
				continue;
			r->p[k] = p;
			r->vi[k] = p60 ? 3 : 4;
			break;
		}
	}
}

static rk_vec3 rki_node_prop_vec3(const rki_node_prop_refs *r, int k, rk_vec3 def)
{
	return rki_fbx_p_vec3(r->p[k], r->vi[k], def);
}

static int64_t rki_node_prop_i64(const rki_node_prop_refs *r, int k, int64_t def)
{
	return rki_fbx_p_i64(r->p[k], r->vi[k], def);
}

/* Template property references, computed once per template node. */
typedef struct rki_node_templ_cache {
	const rki_fbx_node *templ;
	rki_node_prop_refs refs;
} rki_node_templ_cache;

/* Reads the node's transform properties; *uv_set = its currentUVSet or "". */
static void rki_fbx_read_node_props(const rki_fbx_object *o, rki_node_templ_cache *cache, rk_node *node,
	const char **uv_set)
{
	rki_node_prop_refs r;
	memset(&r, 0, sizeof(r));
	rki_node_props_collect(o->props, o->props60, &r);
	if (o->templ) {
		if (cache->templ != o->templ) {
			memset(&cache->refs, 0, sizeof(cache->refs));
			rki_node_props_collect(o->templ, false, &cache->refs);
			cache->templ = o->templ;
		}
		for (int k = 0; k < RKI_NP_COUNT; k++) {
			if (r.p[k]) continue;
			r.p[k] = cache->refs.p[k];
			r.vi[k] = cache->refs.vi[k];
		}
	}
	rk_transform_props *p = &node->props;
	*p = rk_transform_props_default();
	const rk_vec3 zero = { 0, 0, 0 }, one = { 1, 1, 1 };
	p->translation = rki_node_prop_vec3(&r, RKI_NP_LCL_T, zero);
	p->rotation = rki_node_prop_vec3(&r, RKI_NP_LCL_R, zero);
	p->scaling = rki_node_prop_vec3(&r, RKI_NP_LCL_S, one);
	int64_t order = rki_node_prop_i64(&r, RKI_NP_ROT_ORDER, 0);
	p->rotation_order = (order >= 0 && order <= 6) ? (rk_rotation_order)order : RK_ROTATION_XYZ;
	p->rotation_offset = rki_node_prop_vec3(&r, RKI_NP_ROT_OFFSET, zero);
	p->rotation_pivot = rki_node_prop_vec3(&r, RKI_NP_ROT_PIVOT, zero);
	p->scaling_offset = rki_node_prop_vec3(&r, RKI_NP_SCL_OFFSET, zero);
	p->scaling_pivot = rki_node_prop_vec3(&r, RKI_NP_SCL_PIVOT, zero);
	p->pre_rotation = rki_node_prop_vec3(&r, RKI_NP_PRE_ROT, zero);
	p->post_rotation = rki_node_prop_vec3(&r, RKI_NP_POST_ROT, zero);
	p->rotation_active = rki_node_prop_i64(&r, RKI_NP_ROT_ACTIVE, 0) != 0;
	p->inherit_mode = rk_inherit_mode_from_fbx(rki_node_prop_i64(&r, RKI_NP_INHERIT, 1));
	p->geometric_translation = rki_node_prop_vec3(&r, RKI_NP_GEO_T, zero);
	p->geometric_rotation = rki_node_prop_vec3(&r, RKI_NP_GEO_R, zero);
	p->geometric_scaling = rki_node_prop_vec3(&r, RKI_NP_GEO_S, one);
	double vis;
	node->visible = !(r.p[RKI_NP_VISIBILITY] && rki_fbx_prop_f64(r.p[RKI_NP_VISIBILITY], r.vi[RKI_NP_VISIBILITY], &vis) &&
		vis == 0.0);
	node->has_fbx_props = true;
	node->adjust = rk_adjust_transform_identity();
	const char *s;
	size_t len;
	*uv_set = r.p[RKI_NP_UV_SET] && rki_fbx_prop_str(r.p[RKI_NP_UV_SET], r.vi[RKI_NP_UV_SET], &s, &len) ? s : "";
}

static bool rki_fbx_is_model(const rki_fbx_object *o) { return strcmp(o->element, "Model") == 0; }

static bool rki_fbx_build_nodes(rki_fbx_ctx *ctx)
{
	rk_scene *s = ctx->sc->scene;
	size_t models = 0;
	for (size_t i = 0; i < ctx->object_count; i++)
		if (rki_fbx_is_model(&ctx->objects[i])) models++;
	size_t count = models + 1;
	if (count > ctx->sc->opts.max_elements) {
		rki_fbx_fail(ctx, ctx->objects_node, RK_ERROR_LIMIT, "%zu nodes exceed the element limit", count);
		return false;
	}
	/* Temporary numbering: 0 = root, 1.. = models in object order. */
	uint32_t *obj_of = (uint32_t *)rki_arena_array(&ctx->sc->tmp, count, sizeof(uint32_t));
	uint32_t *parent = (uint32_t *)rki_arena_array(&ctx->sc->tmp, count, sizeof(uint32_t));
	uint32_t *order = (uint32_t *)rki_arena_array(&ctx->sc->tmp, count, sizeof(uint32_t));
	uint32_t *scratch = (uint32_t *)rki_arena_array(&ctx->sc->tmp, count * 3 + 1, sizeof(uint32_t));
	uint32_t *tmp_of_obj = (uint32_t *)rki_arena_array(&ctx->sc->tmp, ctx->object_count + 1, sizeof(uint32_t));
	if (!obj_of || !parent || !order || !scratch || !tmp_of_obj) return rki_fbx_oom(ctx);
	obj_of[0] = UINT32_MAX;
	parent[0] = UINT32_MAX;
	uint32_t k = 1;
	for (size_t i = 0; i < ctx->object_count; i++) {
		tmp_of_obj[i] = UINT32_MAX;
		if (!rki_fbx_is_model(&ctx->objects[i])) continue;
		tmp_of_obj[i] = k;
		obj_of[k++] = (uint32_t)i;
	}
	for (uint32_t t = 1; t < count; t++) {
		const rki_fbx_object *o = &ctx->objects[obj_of[t]];
		parent[t] = 0;
		for (uint32_t c = 0; c < o->parents_count; c++) {
			uint32_t other = ctx->conns[o->parents_begin + c].other;
			if (ctx->conns[o->parents_begin + c].prop) continue;
			if (other == RKI_ROOT_OBJECT) break;
			if (rki_fbx_is_model(&ctx->objects[other])) {
				parent[t] = tmp_of_obj[other];
				break;
			}
		}
		if (parent[t] == t) parent[t] = 0;
	}
	if (!rki_depth_first_order(count, parent, order, scratch)) {
		rki_fbx_fail(ctx, ctx->objects_node, RK_ERROR_CORRUPT, "the node hierarchy contains a cycle (a Model is its own ancestor)");
		return false;
	}
	rk_node *nodes = (rk_node *)rki_arena_array(ctx->sc->arena, count, sizeof(rk_node));
	uint32_t *final_of_tmp = scratch; /* reuse */
	if (!nodes) return rki_fbx_oom(ctx);
	for (uint32_t f = 0; f < count; f++) final_of_tmp[order[f]] = f;
	size_t *child_counts = (size_t *)rki_arena_array(&ctx->sc->tmp, count, sizeof(size_t));
	if (!child_counts) return rki_fbx_oom(ctx);
	rki_node_templ_cache templ_cache;
	memset(&templ_cache, 0, sizeof(templ_cache));
	for (uint32_t f = 0; f < count; f++) {
		uint32_t t = order[f];
		rk_node *nd = &nodes[f];
		nd->index = f;
		if (t == 0) {
			nd->name = "";
			nd->kind = RK_NODE_ROOT;
			nd->props = rk_transform_props_default();
			nd->adjust = rk_adjust_transform_identity();
			nd->local = rk_trs_identity();
			nd->node_to_parent = rk_mat4_identity();
			nd->attribute_type = "";
			nd->default_uv_set = "";
			nd->visible = true;
		} else {
			rki_fbx_object *o = &ctx->objects[obj_of[t]];
			nd->name = o->name;
			nd->source_id = (uint64_t)o->id;
			nd->attribute_type = o->sub_class;
			nd->kind = rki_fbx_node_kind(o->sub_class);
			const char *uvset;
			rki_fbx_read_node_props(o, &templ_cache, nd, &uvset);
			nd->default_uv_set = rki_arena_strndup(ctx->sc->arena, uvset, strlen(uvset));
			nd->attribute_type = rki_arena_strndup(ctx->sc->arena, o->sub_class, strlen(o->sub_class));
			if (!nd->default_uv_set || !nd->attribute_type) return rki_fbx_oom(ctx);
			o->out = nd;
			o->node_index = f;
			nd->parent = &nodes[final_of_tmp[parent[t]]];
			child_counts[final_of_tmp[parent[t]]]++;
		}
	}
	for (uint32_t f = 0; f < count; f++) {
		nodes[f].children.data = (rk_node **)rki_arena_array(ctx->sc->arena, child_counts[f], sizeof(rk_node *));
		if (!nodes[f].children.data) return rki_fbx_oom(ctx);
	}
	for (uint32_t f = 1; f < count; f++) {
		rk_node *p = nodes[f].parent;
		p->children.data[p->children.count++] = &nodes[f];
	}
	s->nodes.data = nodes;
	s->nodes.count = count;
	s->root = &nodes[0];
	return true;
}

/* ---- geometry ---------------------------------------------------------------------------- */

typedef rki_fbx_mapping rki_mapping;

size_t rki_fbx_corner_indices(rki_fbx_mapping map, const int32_t *ref, size_t ref_count, size_t value_count,
	const uint32_t *vertex_indices, const uint32_t *face_of, size_t index_count, uint32_t *idx)
{
	size_t bad = 0;
	for (size_t c = 0; c < index_count; c++) {
		size_t e;
		switch (map) {
		case RKI_MAP_CORNER: e = c; break;
		case RKI_MAP_VERTEX: e = vertex_indices[c]; break;
		case RKI_MAP_FACE: e = face_of[c]; break;
		default: e = 0; break;
		}
		size_t v = SIZE_MAX;
		if (ref) {
			if (e < ref_count && ref[e] >= 0) v = (size_t)ref[e];
		} else {
			v = e;
		}
		if (v >= value_count) {
			v = value_count;
			bad++;
		}
		idx[c] = (uint32_t)v;
	}
	return bad;
}

static rki_mapping rki_fbx_layer_mapping(const rki_fbx_node *layer)
{
	const char *s;
	size_t len;
	if (!rki_fbx_child_str(layer, "MappingInformationType", &s, &len)) return RKI_MAP_CORNER;
	if (rki_fbx_str_eq(s, len, "ByPolygonVertex")) return RKI_MAP_CORNER;
	if (rki_fbx_str_eq(s, len, "ByVertice") || rki_fbx_str_eq(s, len, "ByVertex") || rki_fbx_str_eq(s, len, "ByControlPoint"))
		return RKI_MAP_VERTEX;
	if (rki_fbx_str_eq(s, len, "ByPolygon")) return RKI_MAP_FACE;
	if (rki_fbx_str_eq(s, len, "AllSame")) return RKI_MAP_ALL;
	return RKI_MAP_NONE;
}

static bool rki_fbx_indexed(const rki_fbx_node *layer)
{
	const char *s;
	size_t len;
	if (!rki_fbx_child_str(layer, "ReferenceInformationType", &s, &len)) return false;
	return rki_fbx_str_eq(s, len, "IndexToDirect") || rki_fbx_str_eq(s, len, "Index");
}

typedef struct rki_mesh_topo {
	size_t vertex_count, index_count, face_count;
	const uint32_t *vertex_indices;
	const rk_face *faces;
	const uint32_t *face_of_corner;  /* made on first use (ByPolygon layers) */
	const uint32_t *corners;         /* 0, 1, 2, ...: made on first use, shared by Direct layers */
} rki_mesh_topo;

/* An index array the layer can share instead of building its own, when every
 * corner finds a value without translation or clamping: the corner numbers
 * (ByPolygonVertex Direct), the mesh's vertex indices (ByVertice Direct), or
 * the document's own IndexToDirect array (ByPolygonVertex; it lives in the
 * scene arena). NULL otherwise. */
static const uint32_t *rki_fbx_shared_indices(rki_fbx_ctx *ctx, rki_mesh_topo *t, rki_mapping map, const int32_t *ref,
	size_t ref_count, bool ref_is_doc, size_t value_count)
{
	if (t->index_count == 0) return NULL;
	if (map == RKI_MAP_VERTEX && !ref && t->vertex_count <= value_count) return t->vertex_indices;
	if (map != RKI_MAP_CORNER) return NULL;
	if (!ref) {
		if (t->index_count > value_count) return NULL;
		if (!t->corners) {
			uint32_t *c = (uint32_t *)rki_arena_alloc_uninit(ctx->sc->arena, t->index_count * sizeof(uint32_t));
			if (!c) return NULL;
			for (size_t i = 0; i < t->index_count; i++) c[i] = (uint32_t)i;
			t->corners = c;
		}
		return t->corners;
	}
	if (!ref_is_doc || ref_count < t->index_count) return NULL;
	for (size_t c = 0; c < t->index_count; c++)
		if (ref[c] < 0 || (size_t)ref[c] >= value_count) return NULL;
	return (const uint32_t *)(const void *)ref;
}

/* Reads a layer element's values (`components` doubles each) and expresses it
 * per corner. Invalid references point at an extra zero value. */
static bool rki_fbx_layer(rki_fbx_ctx *ctx, const rki_fbx_node *layer, const char *data_name, const char *index_name,
	const char *index_name2, size_t components, rki_mesh_topo *t, const double **values_out, size_t *value_count_out,
	const uint32_t **indices_out, bool *exists)
{
	*exists = false;
	const rki_fbx_node *dn = rki_fbx_find_child(layer, data_name);
	if (!dn) return true;
	rki_mapping map = rki_fbx_layer_mapping(layer);
	if (map == RKI_MAP_NONE) {
		rki_fbx_warn(ctx, layer, "unsupported mapping of %s (only ByPolygonVertex/ByVertice/ByPolygon/AllSame): ignored", data_name);
		return true;
	}
	const double *raw;
	size_t raw_count;
	if (!rki_fbx_array_f64(dn, 0, ctx->sc->arena, &raw, &raw_count, ctx->sc->err)) {
		rki_error_file(ctx->sc->err, ctx->filename);
		return false;
	}
	if (raw_count % components != 0) {
		rki_fbx_fail(ctx, dn, RK_ERROR_CORRUPT, "%s has %zu numbers, not a multiple of %zu", data_name, raw_count, components);
		return false;
	}
	size_t value_count = raw_count / components;
	/* No copy: every f64 array from the DOM (in the scene arena here) is followed
	 * by RKI_FBX_ARRAY_PAD zero bytes, so raw[value_count] is the zero sentinel. */
	const double *vals = raw;
	const int32_t *ref = NULL;
	size_t ref_count = 0;
	bool ref_is_doc = false;
	if (rki_fbx_indexed(layer)) {
		const rki_fbx_node *in = rki_fbx_find_child(layer, index_name);
		if (!in && index_name2) in = rki_fbx_find_child(layer, index_name2);
		if (in) {
			if (!rki_fbx_array_i32(in, 0, &ctx->sc->tmp, &ref, &ref_count, ctx->sc->err)) {
				rki_error_file(ctx->sc->err, ctx->filename);
				return false;
			}
			ref_is_doc = in->prop_count > 0 && (const void *)ref == in->props[0].v.a.data;
		} else {
			rki_fbx_warn(ctx, layer, "%s is IndexToDirect without an index array: read as Direct", data_name);
		}
	}
	const uint32_t *shared = rki_fbx_shared_indices(ctx, t, map, ref, ref_count, ref_is_doc, value_count);
	if (shared) {
		*values_out = vals;
		*value_count_out = value_count + 1;
		*indices_out = shared;
		*exists = value_count > 0;
		return true;
	}
	if (map == RKI_MAP_FACE && !t->face_of_corner) {
		uint32_t *foc = (uint32_t *)rki_arena_alloc_uninit(&ctx->sc->tmp, t->index_count ? t->index_count * sizeof(uint32_t) : 1);
		if (!foc) return rki_fbx_oom(ctx);
		for (size_t f = 0; f < t->face_count; f++)
			for (uint32_t k = 0; k < t->faces[f].index_count; k++) foc[t->faces[f].index_begin + k] = (uint32_t)f;
		t->face_of_corner = foc;
	}
	uint32_t *idx = (uint32_t *)rki_arena_alloc_uninit(ctx->sc->arena, t->index_count ? t->index_count * sizeof(uint32_t) : 1);
	if (!idx) return rki_fbx_oom(ctx);
	size_t bad = rki_fbx_corner_indices(map, ref, ref_count, value_count, t->vertex_indices, t->face_of_corner, t->index_count, idx);
	if (bad && value_count > 0)
		rki_fbx_warn(ctx, layer, "%s: %zu corners reference missing values (set to zero)", data_name, bad);
	*values_out = vals;
	*value_count_out = value_count + 1;
	*indices_out = idx;
	*exists = value_count > 0 || t->index_count == 0;
	return true;
}

static bool rki_fbx_vec3_layer(rki_fbx_ctx *ctx, const rki_fbx_node *layer, const char *data, const char *index, const char *index2,
	rki_mesh_topo *t, rk_attrib_vec3 *out)
{
	const double *v;
	size_t n;
	const uint32_t *idx;
	bool exists;
	if (!rki_fbx_layer(ctx, layer, data, index, index2, 3, t, &v, &n, &idx, &exists)) return false;
	if (!exists) return true;
	out->exists = true;
	out->values = (const rk_vec3 *)(const void *)v;
	out->value_count = n;
	out->indices = idx;
	return true;
}

static const char *rki_fbx_layer_name(rki_fbx_ctx *ctx, const rki_fbx_node *layer, size_t ordinal)
{
	const char *s;
	size_t len;
	if (rki_fbx_child_str(layer, "Name", &s, &len) && len > 0) return rki_arena_strndup(ctx->sc->arena, s, len);
	char buf[32];
	snprintf(buf, sizeof(buf), "UVSet%zu", ordinal);
	return rki_arena_strndup(ctx->sc->arena, buf, strlen(buf));
}

bool rki_fbx_read_polygons(rki_fbx_ctx *ctx, const rki_fbx_node *g, rk_mesh *m)
{
	const rki_fbx_node *vn = rki_fbx_find_child(g, "Vertices");
	const double *pos = NULL;
	size_t pos_count = 0;
	if (vn && !rki_fbx_array_f64(vn, 0, ctx->sc->arena, &pos, &pos_count, ctx->sc->err)) {
		rki_error_file(ctx->sc->err, ctx->filename);
		return false;
	}
	if (pos_count % 3 != 0) {
		rki_fbx_fail(ctx, vn, RK_ERROR_CORRUPT, "Vertices has %zu numbers, not a multiple of 3", pos_count);
		return false;
	}
	m->vertex_count = pos_count / 3;
	m->positions = pos_count ? (const rk_vec3 *)(const void *)pos : (const rk_vec3 *)rki_arena_alloc(ctx->sc->arena, sizeof(rk_vec3));
	if (!m->positions) return rki_fbx_oom(ctx);
	if (m->vertex_count > UINT32_MAX - 1) {
		rki_fbx_fail(ctx, vn, RK_ERROR_LIMIT, "%zu vertices exceed 32-bit indices", m->vertex_count);
		return false;
	}
	const rki_fbx_node *pn = rki_fbx_find_child(g, "PolygonVertexIndex");
	const int32_t *pvi = NULL;
	size_t pvi_count = 0;
	if (pn && !rki_fbx_array_i32(pn, 0, &ctx->sc->tmp, &pvi, &pvi_count, ctx->sc->err)) {
		rki_error_file(ctx->sc->err, ctx->filename);
		return false;
	}
	if (pvi_count > 0 && m->vertex_count == 0) {
		rki_fbx_fail(ctx, pn, RK_ERROR_CORRUPT, "PolygonVertexIndex has %zu entries but the mesh has no vertices", pvi_count);
		return false;
	}
	if (pvi_count > UINT32_MAX - 1 || pvi_count > ctx->sc->opts.max_elements) {
		rki_fbx_fail(ctx, pn, RK_ERROR_LIMIT, "PolygonVertexIndex has %zu entries (limit %zu)", pvi_count, ctx->sc->opts.max_elements);
		return false;
	}
	/* pvi_count < UINT32_MAX (checked): no overflow; every element is written below. */
	uint32_t *vi = (uint32_t *)rki_arena_alloc_uninit(ctx->sc->arena, pvi_count ? pvi_count * sizeof(uint32_t) : 1);
	size_t faces = 0;
	for (size_t i = 0; i < pvi_count; i++)
		if (pvi[i] < 0 || i + 1 == pvi_count) faces++;
	rk_face *fc = (rk_face *)rki_arena_array(ctx->sc->arena, faces ? faces : 1, sizeof(rk_face));
	if (!vi || !fc) return rki_fbx_oom(ctx);
	size_t f = 0, begin = 0, bad = 0, tris = 0;
	bool unterminated = false;
	for (size_t i = 0; i < pvi_count; i++) {
		int64_t v = pvi[i];
		bool end = v < 0;
		if (end) v = -v - 1;
		if ((uint64_t)v >= m->vertex_count) {
			v = 0;
			bad++;
		}
		vi[i] = (uint32_t)v;
		if (end || i + 1 == pvi_count) {
			if (!end) unterminated = true;
			fc[f].index_begin = (uint32_t)begin;
			fc[f].index_count = (uint32_t)(i + 1 - begin);
			if (fc[f].index_count >= 3) tris += fc[f].index_count - 2;
			f++;
			begin = i + 1;
		}
	}
	if (bad) rki_fbx_warn(ctx, pn, "%zu polygon vertex indices out of range (clamped to vertex 0)", bad);
	if (unterminated) rki_fbx_warn(ctx, pn, "last polygon is not terminated by a negative index");
	m->index_count = pvi_count;
	m->vertex_indices = vi;
	m->face_count = faces;
	m->faces = fc;
	m->triangle_count_hint = tris;
	return true;
}

static bool rki_fbx_build_mesh(rki_fbx_ctx *ctx, rki_fbx_object *o, rk_mesh *m)
{
	const rki_fbx_node *g = o->node;
	m->name = o->name;
	m->source_id = (uint64_t)o->id;
	if (!rki_fbx_read_polygons(ctx, g, m)) return false;
	const uint32_t *vi = m->vertex_indices;
	const rk_face *fc = m->faces;
	size_t pvi_count = m->index_count, faces = m->face_count;
	rki_mesh_topo t = { m->vertex_count, pvi_count, faces, vi, fc, NULL, NULL };

	/* Layer elements in file order. */
	size_t uv_n = 0, color_n = 0;
	for (size_t i = 0; i < g->child_count; i++) {
		if (!strcmp(g->children[i].name, "LayerElementUV")) uv_n++;
		else if (!strcmp(g->children[i].name, "LayerElementColor")) color_n++;
	}
	rk_uv_set *uvs = (rk_uv_set *)rki_arena_array(ctx->sc->arena, uv_n ? uv_n : 1, sizeof(rk_uv_set));
	rk_attrib_vec4 *cols = (rk_attrib_vec4 *)rki_arena_array(ctx->sc->arena, color_n ? color_n : 1, sizeof(rk_attrib_vec4));
	if (!uvs || !cols) return rki_fbx_oom(ctx);
	const rki_fbx_node *tangents = NULL, *binormals = NULL;
	bool have_normals = false, have_material = false;
	for (size_t i = 0; i < g->child_count; i++) {
		const rki_fbx_node *l = &g->children[i];
		if (!strcmp(l->name, "LayerElementNormal") && !have_normals) {
			have_normals = true;
			if (!rki_fbx_vec3_layer(ctx, l, "Normals", "NormalsIndex", "NormalIndex", &t, &m->normals)) return false;
		} else if (!strcmp(l->name, "LayerElementUV")) {
			rk_uv_set *u = &uvs[m->uv_sets.count];
			const double *v;
			size_t n;
			const uint32_t *idx;
			bool exists;
			if (!rki_fbx_layer(ctx, l, "UV", "UVIndex", NULL, 2, &t, &v, &n, &idx, &exists)) return false;
			if (!exists) continue;
			u->name = rki_fbx_layer_name(ctx, l, m->uv_sets.count);
			if (!u->name) return rki_fbx_oom(ctx);
			u->uv.exists = true;
			u->uv.values = (const rk_vec2 *)(const void *)v;
			u->uv.value_count = n;
			u->uv.indices = idx;
			m->uv_sets.count++;
		} else if (!strcmp(l->name, "LayerElementColor")) {
			const double *v;
			size_t n;
			const uint32_t *idx;
			bool exists;
			if (!rki_fbx_layer(ctx, l, "Colors", "ColorIndex", NULL, 4, &t, &v, &n, &idx, &exists)) return false;
			if (!exists) continue;
			rk_attrib_vec4 *c = &cols[m->colors.count++];
			c->exists = true;
			c->values = (const rk_vec4 *)(const void *)v;
			c->value_count = n;
			c->indices = idx;
		} else if (!strcmp(l->name, "LayerElementTangent") && !tangents) {
			tangents = l;
		} else if (!strcmp(l->name, "LayerElementBinormal") && !binormals) {
			binormals = l;
		} else if (!strcmp(l->name, "LayerElementMaterial") && !have_material) {
			have_material = true;
			const rki_fbx_node *mn = rki_fbx_find_child(l, "Materials");
			const int32_t *mats = NULL;
			size_t mat_count = 0;
			if (!mn) continue;
			if (!rki_fbx_array_i32(mn, 0, &ctx->sc->tmp, &mats, &mat_count, ctx->sc->err)) {
				rki_error_file(ctx->sc->err, ctx->filename);
				return false;
			}
			uint32_t *fm = (uint32_t *)rki_arena_array(ctx->sc->arena, faces ? faces : 1, sizeof(uint32_t));
			if (!fm) return rki_fbx_oom(ctx);
			rki_mapping map = rki_fbx_layer_mapping(l);
			for (size_t k = 0; k < faces; k++) {
				size_t e = map == RKI_MAP_FACE ? k : 0;
				int32_t v = e < mat_count ? mats[e] : 0;
				fm[k] = v >= 0 ? (uint32_t)v : 0;
			}
			m->face_material = fm;
		}
	}
	m->uv_sets.data = uvs;
	m->colors.data = cols;
	if (uv_n && (tangents || binormals)) {
		if (tangents && !rki_fbx_vec3_layer(ctx, tangents, "Tangents", "TangentsIndex", "TangentIndex", &t, &uvs[0].tangent)) return false;
		if (binormals && !rki_fbx_vec3_layer(ctx, binormals, "Binormals", "BinormalsIndex", "BinormalIndex", &t, &uvs[0].bitangent)) return false;
	}
	return true;
}

static bool rki_fbx_is_geometry_mesh(const rki_fbx_ctx *ctx, const rki_fbx_object *o)
{
	if (ctx->v6) return rki_fbx_is_model(o) && !strcmp(o->sub_class, "Mesh") && rki_fbx_find_child(o->node, "Vertices");
	return !strcmp(o->element, "Geometry") && !strcmp(o->sub_class, "Mesh");
}

/* ---- deformers ---------------------------------------------------------------------------- */

static rki_fbx_object *rki_fbx_child_of_kind(rki_fbx_ctx *ctx, const rki_fbx_object *o, uint32_t k, const char *element, const char *sub)
{
	rki_fbx_object *c = &ctx->objects[ctx->conns[o->children_begin + k].other];
	if (element && strcmp(c->element, element) != 0) return NULL;
	if (sub && strcmp(c->sub_class, sub) != 0) return NULL;
	return c;
}

static bool rki_fbx_read_matrix(rki_fbx_ctx *ctx, const rki_fbx_node *n, rk_mat4 *out)
{
	const double *v;
	size_t count;
	if (!n) {
		*out = rk_mat4_identity();
		return true;
	}
	if (!rki_fbx_array_f64(n, 0, &ctx->sc->tmp, &v, &count, ctx->sc->err)) {
		rki_error_file(ctx->sc->err, ctx->filename);
		return false;
	}
	if (count != 16) {
		rki_fbx_fail(ctx, n, RK_ERROR_CORRUPT, "matrix has %zu numbers, expected 16", count);
		return false;
	}
	memcpy(out->m, v, sizeof(out->m));
	return true;
}

static int rki_weight_cmp(const void *a, const void *b)
{
	const rk_skin_weight *x = (const rk_skin_weight *)a, *y = (const rk_skin_weight *)b;
	if (x->weight != y->weight) return x->weight > y->weight ? -1 : 1;
	return x->joint < y->joint ? -1 : x->joint > y->joint;
}

/* A cluster matrix: 1 when read, 0 when absent or not 16 finite numbers
 * (warned; the caller falls back), -1 on a fatal error (err set). */
static int rki_fbx_cluster_matrix(rki_fbx_ctx *ctx, const rki_fbx_node *cluster, const char *name, rk_mat4 *out)
{
	const rki_fbx_node *n = rki_fbx_find_child(cluster, name);
	const double *v;
	size_t count;
	if (!n) return 0;
	if (!rki_fbx_array_f64(n, 0, &ctx->sc->tmp, &v, &count, ctx->sc->err)) {
		if (ctx->sc->err && (ctx->sc->err->code == RK_ERROR_OUT_OF_MEMORY || ctx->sc->err->code == RK_ERROR_LIMIT)) {
			rki_error_file(ctx->sc->err, ctx->filename);
			return -1;
		}
		rki_error_clear(ctx->sc->err);
		count = 0;
	}
	bool finite = count == 16;
	for (size_t i = 0; finite && i < 16; i++) finite = isfinite(v[i]);
	if (!finite) {
		rki_fbx_warn(ctx, n, "%s is not 16 finite numbers: derived from the bind pose instead", name);
		return 0;
	}
	memcpy(out->m, v, sizeof(out->m));
	return 1;
}

bool rki_fbx_build_skin_from_clusters(rki_fbx_ctx *ctx, const rki_fbx_cluster *clusters, size_t count,
	const rk_mesh *mesh, const rk_node *mesh_node, rk_skin_deformer *skin)
{
	size_t c1 = count ? count : 1;
	rk_skin_joint *joints = (rk_skin_joint *)rki_arena_array(ctx->sc->arena, c1, sizeof(rk_skin_joint));
	const int32_t **cidx = (const int32_t **)rki_arena_array(&ctx->sc->tmp, c1, sizeof(int32_t *));
	const double **cw = (const double **)rki_arena_array(&ctx->sc->tmp, c1, sizeof(double *));
	size_t *cn = (size_t *)rki_arena_array(&ctx->sc->tmp, c1, sizeof(size_t));
	uint32_t *begin = (uint32_t *)rki_arena_array(ctx->sc->arena, mesh->vertex_count + 1, sizeof(uint32_t));
	if (!joints || !cidx || !cw || !cn || !begin) return rki_fbx_oom(ctx);
	size_t total = 0;
	for (size_t j = 0; j < count; j++) {
		const rki_fbx_node *cnode = clusters[j].node;
		rk_skin_joint *jt = &joints[j];
		jt->node = clusters[j].bone;
		if (!jt->node) rki_fbx_warn(ctx, cnode, "cluster without a bone: its weights are ignored");
		/* Missing cluster matrices come from the bind pose, else from the
		 * static scene: TransformLink = bone world at bind, Transform =
		 * inv(TransformLink) * mesh world at bind. */
		rk_mat4 transform, link = rk_mat4_identity();
		int has_t = rki_fbx_cluster_matrix(ctx, cnode, "Transform", &transform);
		int has_l = rki_fbx_cluster_matrix(ctx, cnode, "TransformLink", &link);
		if (has_t < 0 || has_l < 0) return false;
		if (!has_l && jt->node) link = jt->node->has_bind_pose ? jt->node->bind_node_to_world : jt->node->node_to_world;
		if (!has_t) {
			rk_mat4 mesh_bind = rk_mat4_identity(), inv_link;
			if (mesh_node) mesh_bind = mesh_node->has_bind_pose ? mesh_node->bind_node_to_world : mesh_node->node_to_world;
			transform = rk_mat4_invert(link, &inv_link) ? rk_mat4_mul(inv_link, mesh_bind) : rk_mat4_identity();
		}
		jt->mesh_to_joint = transform;
		jt->joint_to_world_bind = link;
		jt->mesh_to_world_bind = rk_mat4_mul(link, transform);
		const rki_fbx_node *in = rki_fbx_find_child(cnode, "Indexes");
		const rki_fbx_node *wn = rki_fbx_find_child(cnode, "Weights");
		cidx[j] = NULL;
		cw[j] = NULL;
		cn[j] = 0;
		if (!in || !wn) continue;
		size_t ni, nw;
		if (!rki_fbx_array_i32(in, 0, &ctx->sc->tmp, &cidx[j], &ni, ctx->sc->err)
			|| !rki_fbx_array_f64(wn, 0, &ctx->sc->tmp, &cw[j], &nw, ctx->sc->err)) {
			rki_error_file(ctx->sc->err, ctx->filename);
			return false;
		}
		if (ni != nw) {
			rki_fbx_warn(ctx, wn, "cluster has %zu Indexes but %zu Weights: the extra entries are ignored", ni, nw);
			if (nw < ni) ni = nw;
		}
		cn[j] = ni;
		size_t bad = 0;
		for (size_t i = 0; i < ni; i++) {
			int32_t v = cidx[j][i];
			if (v < 0 || (size_t)v >= mesh->vertex_count || !isfinite(cw[j][i])) { bad++; continue; }
			if (!jt->node) continue;
			begin[v]++;
			total++;
		}
		if (bad) rki_fbx_warn(ctx, in, "cluster: %zu out-of-range vertex indices or non-finite weights ignored", bad);
	}
	if (total > UINT32_MAX - 1) {
		rki_fbx_fail(ctx, NULL, RK_ERROR_LIMIT, "skin has %zu weights", total);
		return false;
	}
	/* CSR offsets, then fill, then sort each vertex's influences. */
	uint32_t acc = 0;
	for (size_t v = 0; v < mesh->vertex_count; v++) {
		uint32_t c = begin[v];
		begin[v] = acc;
		acc += c;
	}
	begin[mesh->vertex_count] = acc;
	rk_skin_weight *w = (rk_skin_weight *)rki_arena_array(ctx->sc->arena, total ? total : 1, sizeof(rk_skin_weight));
	uint32_t *fill = (uint32_t *)rki_arena_array(&ctx->sc->tmp, mesh->vertex_count + 1, sizeof(uint32_t));
	if (!w || !fill) return rki_fbx_oom(ctx);
	memcpy(fill, begin, (mesh->vertex_count + 1) * sizeof(uint32_t));
	for (size_t c = 0; c < count; c++) {
		if (!joints[c].node) continue;
		for (size_t i = 0; i < cn[c]; i++) {
			int32_t v = cidx[c][i];
			if (v < 0 || (size_t)v >= mesh->vertex_count || !isfinite(cw[c][i])) continue;
			w[fill[v]].joint = (uint32_t)c;
			w[fill[v]].weight = (float)cw[c][i];
			fill[v]++;
		}
	}
	size_t maxw = 0;
	for (size_t v = 0; v < mesh->vertex_count; v++) {
		size_t n = begin[v + 1] - begin[v];
		if (n > 1) qsort(w + begin[v], n, sizeof(rk_skin_weight), rki_weight_cmp);
		if (n > maxw) maxw = n;
	}
	skin->joint_count = count;
	skin->joints = joints;
	skin->vertex_count = mesh->vertex_count;
	skin->weight_begin = begin;
	skin->weight_count = total;
	skin->weights = w;
	skin->max_weights_per_vertex = maxw;
	/* Deepest common ancestor of the joints' parents as the skeleton root. */
	rk_node *anc = NULL;
	for (size_t c = 0; c < count; c++) {
		rk_node *n = joints[c].node;
		if (!n) continue;
		if (!anc) {
			anc = n->parent ? n->parent : n;
			continue;
		}
		while (anc->depth > n->depth && anc->parent) anc = anc->parent;
		for (;;) {
			const rk_node *p = n;
			while (p && p != anc) p = p->parent;
			if (p || !anc->parent) break;
			anc = anc->parent;
		}
	}
	skin->skeleton_root = anc;
	return true;
}

static bool rki_fbx_build_skin(rki_fbx_ctx *ctx, rki_fbx_object *so, const rk_mesh *mesh, const rk_node *mesh_node, rk_skin_deformer *skin)
{
	skin->name = so->name;
	const char *st;
	size_t st_len;
	skin->method = RK_SKINNING_LINEAR;
	if (rki_fbx_child_str(so->node, "SkinningType", &st, &st_len) || (st = rki_fbx_obj_str(so, "SkinningType", NULL)) != NULL) {
		if (!strcmp(st, "DualQuaternion")) skin->method = RK_SKINNING_DUAL_QUATERNION;
		else if (!strcmp(st, "Blend")) skin->method = RK_SKINNING_BLENDED_DQ;
		else if (!strcmp(st, "Rigid")) skin->method = RK_SKINNING_RIGID;
	}
	size_t count = 0;
	for (uint32_t k = 0; k < so->children_count; k++)
		if (rki_fbx_child_of_kind(ctx, so, k, "Deformer", "Cluster")) count++;
	rki_fbx_cluster *cl = (rki_fbx_cluster *)rki_arena_array(&ctx->sc->tmp, count ? count : 1, sizeof(rki_fbx_cluster));
	if (!cl) return rki_fbx_oom(ctx);
	size_t j = 0;
	for (uint32_t k = 0; k < so->children_count; k++) {
		rki_fbx_object *co = rki_fbx_child_of_kind(ctx, so, k, "Deformer", "Cluster");
		if (!co) continue;
		cl[j].node = co->node;
		cl[j].bone = NULL;
		for (uint32_t b = 0; b < co->children_count; b++) {
			rki_fbx_object *bo = rki_fbx_child_of_kind(ctx, co, b, "Model", NULL);
			if (bo && bo->out) {
				cl[j].bone = (rk_node *)bo->out;
				break;
			}
		}
		j++;
	}
	if (!rki_fbx_build_skin_from_clusters(ctx, cl, j, mesh, mesh_node, skin)) return false;
	if (skin->method == RK_SKINNING_BLENDED_DQ) {
		float *dq = (float *)rki_arena_array(ctx->sc->arena, mesh->vertex_count ? mesh->vertex_count : 1, sizeof(float));
		if (!dq) return rki_fbx_oom(ctx);
		const rki_fbx_node *bi = rki_fbx_find_child(so->node, "Indexes");
		const rki_fbx_node *bw = rki_fbx_find_child(so->node, "BlendWeights");
		if (bi && bw) {
			const int32_t *ii;
			const double *ww;
			size_t ni, nw;
			if (!rki_fbx_array_i32(bi, 0, &ctx->sc->tmp, &ii, &ni, ctx->sc->err)
				|| !rki_fbx_array_f64(bw, 0, &ctx->sc->tmp, &ww, &nw, ctx->sc->err)) {
				rki_error_file(ctx->sc->err, ctx->filename);
				return false;
			}
			for (size_t i = 0; i < ni && i < nw; i++)
				if (ii[i] >= 0 && (size_t)ii[i] < mesh->vertex_count && isfinite(ww[i])) dq[ii[i]] = (float)ww[i];
		}
		skin->dq_weights = dq;
	}
	return true;
}

/* Reads a Shape (7x Geometry "Shape" object or 6100 Shape child) into bs:
 * Indexes, Vertices (offsets), optional Normals. *ni = indexes in the file,
 * *kept = offsets kept (in-range vertex indices). */
bool rki_fbx_read_shape(rki_fbx_ctx *ctx, const rki_fbx_node *sn, const char *name, const rk_mesh *mesh,
	rk_blend_shape *bs, size_t *ni_out, size_t *kept_out)
{
	bs->name = name;
	const rki_fbx_node *in = rki_fbx_find_child(sn, "Indexes");
	const rki_fbx_node *vn = rki_fbx_find_child(sn, "Vertices");
	const rki_fbx_node *nn = rki_fbx_find_child(sn, "Normals");
	const int32_t *ii = NULL;
	const double *vv = NULL, *nv = NULL;
	size_t ni = 0, nvv = 0, nnv = 0;
	if ((in && !rki_fbx_array_i32(in, 0, &ctx->sc->tmp, &ii, &ni, ctx->sc->err))
		|| (vn && !rki_fbx_array_f64(vn, 0, &ctx->sc->tmp, &vv, &nvv, ctx->sc->err))
		|| (nn && !rki_fbx_array_f64(nn, 0, &ctx->sc->tmp, &nv, &nnv, ctx->sc->err))) {
		rki_error_file(ctx->sc->err, ctx->filename);
		return false;
	}
	if (nvv / 3 < ni) {
		rki_fbx_warn(ctx, sn, "Shape has %zu Indexes but %zu vertex numbers: the extra indices are ignored", ni, nvv);
		ni = nvv / 3;
	}
	if (nv && nnv / 3 < ni) {
		rki_fbx_warn(ctx, sn, "Shape has fewer normals than Indexes: its normals are ignored");
		nv = NULL;
	}
	uint32_t *oi = (uint32_t *)rki_arena_array(ctx->sc->arena, ni ? ni : 1, sizeof(uint32_t));
	rk_vec3 *op = (rk_vec3 *)rki_arena_array(ctx->sc->arena, ni ? ni : 1, sizeof(rk_vec3));
	rk_vec3 *on = nv ? (rk_vec3 *)rki_arena_array(ctx->sc->arena, ni ? ni : 1, sizeof(rk_vec3)) : NULL;
	if (!oi || !op || (nv && !on)) return rki_fbx_oom(ctx);
	size_t kept = 0;
	for (size_t i = 0; i < ni; i++) {
		if (ii[i] < 0 || (size_t)ii[i] >= mesh->vertex_count) continue;
		oi[kept] = (uint32_t)ii[i];
		op[kept] = (rk_vec3){ vv[i * 3], vv[i * 3 + 1], vv[i * 3 + 2] };
		if (on) on[kept] = (rk_vec3){ nv[i * 3], nv[i * 3 + 1], nv[i * 3 + 2] };
		kept++;
	}
	if (kept != ni) rki_fbx_warn(ctx, in, "shape: %zu vertex indices out of range ignored", ni - kept);
	bs->offset_count = kept;
	bs->vertex_indices = oi;
	bs->position_offsets = op;
	bs->normal_offsets = on;
	*ni_out = ni;
	*kept_out = kept;
	return true;
}

/* 6100: Shape children of the geometry, one channel each (named like the
 * shape; the model's property of that name holds the percent weight). */
static bool rki_fbx_build_v6_shapes(rki_fbx_ctx *ctx, const rki_fbx_object *o, rk_mesh *mesh, rk_blend_channel *out, size_t *out_count)
{
	for (size_t k = 0; k < o->node->child_count; k++) {
		const rki_fbx_node *sn = &o->node->children[k];
		const char *nm;
		size_t nl, ni, kept;
		if (strcmp(sn->name, "Shape") != 0) continue;
		if (!rki_fbx_prop_str(sn, 0, &nm, &nl)) nm = "", nl = 0;
		rk_blend_channel *c = &out[*out_count];
		rk_blend_shape *bs = (rk_blend_shape *)rki_arena_alloc(ctx->sc->arena, sizeof(rk_blend_shape));
		double *tw = (double *)rki_arena_alloc(ctx->sc->arena, sizeof(double));
		const char *name = rki_fbx_plain_name(ctx->sc->arena, nm, nl);
		if (!bs || !tw || !name) return rki_fbx_oom(ctx);
		if (!rki_fbx_read_shape(ctx, sn, name, mesh, bs, &ni, &kept)) return false;
		c->index = (uint32_t)*out_count;
		c->name = name;
		c->default_weight = rki_fbx_obj_f64(o, name, 0.0) / 100.0;
		*tw = 1.0;
		c->target_count = 1;
		c->targets = bs;
		c->target_weights = tw;
		(*out_count)++;
	}
	return true;
}

static bool rki_fbx_build_blend(rki_fbx_ctx *ctx, rki_fbx_object *bo, rk_mesh *mesh, rk_blend_channel *out, size_t *out_count)
{
	for (uint32_t k = 0; k < bo->children_count; k++) {
		rki_fbx_object *ch = rki_fbx_child_of_kind(ctx, bo, k, "Deformer", "BlendShapeChannel");
		if (!ch) continue;
		rk_blend_channel *c = &out[*out_count];
		c->index = (uint32_t)*out_count;
		c->name = ch->name;
		double pct = rki_fbx_obj_f64(ch, "DeformPercent", 0.0);
		const rki_fbx_node *dp = rki_fbx_find_child(ch->node, "DeformPercent");
		if (dp && !rki_fbx_obj_prop(ch, "DeformPercent", &(size_t){ 0 })) rki_fbx_prop_f64(dp, 0, &pct);
		c->default_weight = pct / 100.0;
		size_t shapes = 0;
		for (uint32_t s = 0; s < ch->children_count; s++)
			if (rki_fbx_child_of_kind(ctx, ch, s, "Geometry", "Shape")) shapes++;
		rk_blend_shape *targets = (rk_blend_shape *)rki_arena_array(ctx->sc->arena, shapes ? shapes : 1, sizeof(rk_blend_shape));
		double *tw = (double *)rki_arena_array(ctx->sc->arena, shapes ? shapes : 1, sizeof(double));
		if (!targets || !tw) return rki_fbx_oom(ctx);
		const double *full = NULL;
		size_t full_count = 0;
		const rki_fbx_node *fw = rki_fbx_find_child(ch->node, "FullWeights");
		if (fw && !rki_fbx_array_f64(fw, 0, &ctx->sc->tmp, &full, &full_count, ctx->sc->err)) {
			rki_error_file(ctx->sc->err, ctx->filename);
			return false;
		}
		size_t t = 0;
		for (uint32_t s = 0; s < ch->children_count; s++) {
			rki_fbx_object *so = rki_fbx_child_of_kind(ctx, ch, s, "Geometry", "Shape");
			if (!so) continue;
			rk_blend_shape *bs = &targets[t];
			size_t ni = 0, kept = 0;
			if (!rki_fbx_read_shape(ctx, so->node, so->name, mesh, bs, &ni, &kept)) return false;
			tw[t] = t < full_count ? full[t] / 100.0 : (double)(t + 1) / (double)shapes;
			if (shapes == 1 && full_count > 1 && full_count == ni && kept == ni) {
				/* One target with one FullWeights value per offset: per-vertex
				 * weights (percent), not an in-between weight. */
				double *ow = (double *)rki_arena_array(ctx->sc->arena, ni, sizeof(double));
				if (!ow) return rki_fbx_oom(ctx);
				for (size_t i = 0; i < ni; i++) ow[i] = full[i] / 100.0;
				bs->offset_weights = ow;
				tw[t] = 1.0;
			}
			t++;
		}
		c->target_count = t;
		c->targets = targets;
		c->target_weights = tw;
		ch->out = c;
		(*out_count)++;
	}
	return true;
}

/* ---- materials and textures ------------------------------------------------------------ */

static const char *rki_fbx_texture_path(rki_fbx_ctx *ctx, const char *rel, const char *abs)
{
	/* Try the path relative to the FBX file, then as written. */
	const char *cands[2] = { rel, abs };
	const char *fn = ctx->filename ? ctx->filename : "";
	const char *slash = strrchr(fn, '/');
	size_t dir_len = slash ? (size_t)(slash - fn + 1) : 0;
	for (int i = 0; i < 2; i++) {
		const char *c = cands[i];
		if (!c || !c[0]) continue;
		char buf[4096];
		char norm[2048];
		rki_strlcpy(norm, c, sizeof(norm));
		for (char *p = norm; *p; p++)
			if (*p == '\\') *p = '/';
		if (norm[0] == '/' || (norm[0] && norm[1] == ':')) snprintf(buf, sizeof(buf), "%s", norm);
		else snprintf(buf, sizeof(buf), "%.*s%s", (int)dir_len, fn, norm);
		FILE *f = fopen(buf, "rb");
		if (f) {
			fclose(f);
			return rki_arena_strndup(ctx->sc->arena, buf, strlen(buf));
		}
		/* also just the base name beside the file */
		const char *base = strrchr(norm, '/');
		if (base) {
			snprintf(buf, sizeof(buf), "%.*s%s", (int)dir_len, fn, base + 1);
			f = fopen(buf, "rb");
			if (f) {
				fclose(f);
				return rki_arena_strndup(ctx->sc->arena, buf, strlen(buf));
			}
		}
	}
	return NULL;
}

static const char *rki_mime_of(const unsigned char *p, size_t n)
{
	if (n >= 8 && !memcmp(p, "\x89PNG\r\n\x1a\n", 8)) return "image/png";
	if (n >= 3 && p[0] == 0xFF && p[1] == 0xD8 && p[2] == 0xFF) return "image/jpeg";
	return "";
}

static bool rki_fbx_build_texture(rki_fbx_ctx *ctx, rki_fbx_object *o, rk_texture *t)
{
	t->name = o->name;
	const char *fn = "", *rel = "";
	size_t len;
	if (!rki_fbx_child_str(o->node, "FileName", &fn, &len) && !rki_fbx_child_str(o->node, "Filename", &fn, &len)) fn = "";
	if (!rki_fbx_child_str(o->node, "RelativeFilename", &rel, &len)) rel = "";
	const char *chosen = rel[0] ? rel : fn;
	t->filename = rki_arena_strndup(ctx->sc->arena, chosen, strlen(chosen));
	if (!t->filename) return rki_fbx_oom(ctx);
	t->mime_type = "";
	/* Embedded content lives in a Video connected to the texture. */
	for (uint32_t k = 0; k < o->children_count; k++) {
		rki_fbx_object *v = rki_fbx_child_of_kind(ctx, o, k, "Video", NULL);
		if (!v) continue;
		const rki_fbx_node *cn = rki_fbx_find_child(v->node, "Content");
		const char *data;
		size_t dlen;
		if (cn && !ctx->sc->opts.no_embedded_content) {
			for (size_t pi = 0; pi < cn->prop_count; pi++) {
				if (!rki_fbx_prop_str(cn, pi, &data, &dlen) || dlen == 0) continue;
				if (cn->props[pi].type == 'R') {
					t->content = (const unsigned char *)data;
					t->content_size = dlen;
				}
				break;
			}
		}
		if (!t->filename[0]) {
			const char *vf;
			if (rki_fbx_child_str(v->node, "RelativeFilename", &vf, &len) || rki_fbx_child_str(v->node, "Filename", &vf, &len))
				t->filename = rki_arena_strndup(ctx->sc->arena, vf, strlen(vf));
			if (!t->filename) return rki_fbx_oom(ctx);
		}
		break;
	}
	if (t->content) t->mime_type = rki_mime_of(t->content, t->content_size);
	t->resolved_path = rki_fbx_texture_path(ctx, rel, fn);
	if (!t->mime_type[0] && t->filename[0]) {
		const char *dot = strrchr(t->filename, '.');
		if (dot && (!strcmp(dot, ".png") || !strcmp(dot, ".PNG"))) t->mime_type = "image/png";
		else if (dot && (!strcmp(dot, ".jpg") || !strcmp(dot, ".jpeg") || !strcmp(dot, ".JPG"))) t->mime_type = "image/jpeg";
	}
	const char *uvset = rki_fbx_obj_str(o, "UVSet", "");
	(void)uvset;
	return true;
}

static bool rki_fbx_build_material(rki_fbx_ctx *ctx, rki_fbx_object *o, rk_material *m)
{
	m->name = o->name;
	const char *sm;
	size_t len;
	m->shading_model = rki_fbx_child_str(o->node, "ShadingModel", &sm, &len) ? rki_arena_strndup(ctx->sc->arena, sm, len)
		: rki_fbx_obj_str(o, "ShadingModel", "");
	if (!m->shading_model) return rki_fbx_oom(ctx);
	rk_vec3 dc = rki_fbx_obj_vec3(o, "DiffuseColor", rki_fbx_obj_vec3(o, "Diffuse", (rk_vec3){ 0.8, 0.8, 0.8 }));
	double df = rki_fbx_obj_f64(o, "DiffuseFactor", 1.0);
	double opacity = 1.0;
	size_t vi;
	if (rki_fbx_obj_prop(o, "Opacity", &vi)) opacity = rki_fbx_obj_f64(o, "Opacity", 1.0);
	else opacity = 1.0 - rki_fbx_obj_f64(o, "TransparencyFactor", 0.0);
	if (!(opacity >= 0.0 && opacity <= 1.0)) opacity = 1.0;
	m->base_color = (rk_vec4){ dc.x * df, dc.y * df, dc.z * df, opacity };
	rk_vec3 sc = rki_fbx_obj_vec3(o, "SpecularColor", (rk_vec3){ 0.2, 0.2, 0.2 });
	double sf = rki_fbx_obj_f64(o, "SpecularFactor", 1.0);
	m->specular = rk_vec3_scale(sc, sf);
	m->shininess = rki_fbx_obj_f64(o, "ShininessExponent", rki_fbx_obj_f64(o, "Shininess", 20.0));
	rk_vec3 ec = rki_fbx_obj_vec3(o, "EmissiveColor", (rk_vec3){ 0, 0, 0 });
	m->emissive = rk_vec3_scale(ec, rki_fbx_obj_f64(o, "EmissiveFactor", 1.0));
	m->metallic = 0.0;
	/* Phong exponent -> roughness (Blinn-Phong to GGX approximation). */
	m->roughness = m->shininess > 0.0 ? sqrt(2.0 / (m->shininess + 2.0)) : 1.0;
	m->alpha_mode = opacity < 1.0 ? RK_ALPHA_BLEND : RK_ALPHA_OPAQUE;
	m->alpha_cutoff = 0.5;
	for (uint32_t k = 0; k < o->children_count; k++) {
		const rki_fbx_conn *c = &ctx->conns[o->children_begin + k];
		rki_fbx_object *to = &ctx->objects[c->other];
		if (strcmp(to->element, "Texture") != 0 || !to->out || !c->prop) continue;
		rk_texture_ref *slot = NULL;
		if (!strcmp(c->prop, "DiffuseColor") || !strcmp(c->prop, "Diffuse") || !strcmp(c->prop, "Maya|baseColor")) slot = &m->base_color_texture;
		else if (!strcmp(c->prop, "NormalMap") || !strcmp(c->prop, "Bump")) slot = &m->normal_texture;
		else if (!strcmp(c->prop, "EmissiveColor")) slot = &m->emissive_texture;
		if (!slot || slot->texture) continue;
		slot->texture = (rk_texture *)to->out;
		const char *uvset = rki_fbx_obj_str(to, "UVSet", "");
		slot->uv_set = rki_arena_strndup(ctx->sc->arena, uvset, strlen(uvset));
		if (!slot->uv_set) return rki_fbx_oom(ctx);
		slot->scale = (rk_vec2){ 1, 1 };
	}
	return true;
}

/* ---- bind poses ---------------------------------------------------------------------------- */

/* Reads every BindPose: node->bind_node_to_world for listed nodes (first pose wins). */
static bool rki_fbx_read_bind_poses(rki_fbx_ctx *ctx)
{
	for (size_t i = 0; i < ctx->object_count; i++) {
		rki_fbx_object *o = &ctx->objects[i];
		if (strcmp(o->element, "Pose") != 0) continue;
		const char *type;
		size_t tl;
		bool bind = !strcmp(o->sub_class, "BindPose");
		if (rki_fbx_child_str(o->node, "Type", &type, &tl)) bind = rki_fbx_str_eq(type, tl, "BindPose");
		if (!bind) continue;
		for (size_t k = 0; k < o->node->child_count; k++) {
			const rki_fbx_node *pn = &o->node->children[k];
			if (strcmp(pn->name, "PoseNode") != 0) continue;
			const rki_fbx_node *nn = rki_fbx_find_child(pn, "Node");
			int64_t id;
			const char *nm;
			size_t nl;
			if (!nn) continue;
			if (rki_fbx_prop_i64(nn, 0, &id)) {
			} else if (rki_fbx_prop_str(nn, 0, &nm, &nl)) {
				id = rki_fbx_name_id(nm, nl);
			} else {
				continue;
			}
			uint32_t oi = rki_fbx_find_object(ctx, id);
			if (oi == UINT32_MAX || !rki_fbx_is_model(&ctx->objects[oi]) || !ctx->objects[oi].out) continue;
			rk_node *nd = (rk_node *)ctx->objects[oi].out;
			if (nd->has_bind_pose) continue;
			rk_mat4 m;
			if (!rki_fbx_read_matrix(ctx, rki_fbx_find_child(pn, "Matrix"), &m)) return false;
			nd->bind_node_to_world = m;
			nd->has_bind_pose = true;
		}
	}
	return true;
}

/* The first Model using a geometry object (6100: the model itself). */
static rk_node *rki_fbx_geometry_node(rki_fbx_ctx *ctx, const rki_fbx_object *g)
{
	if (ctx->v6) return rki_fbx_is_model(g) ? (rk_node *)g->out : NULL;
	for (uint32_t k = 0; k < g->parents_count; k++) {
		uint32_t p = ctx->conns[g->parents_begin + k].other;
		if (p != RKI_ROOT_OBJECT && rki_fbx_is_model(&ctx->objects[p]) && ctx->objects[p].out) return (rk_node *)ctx->objects[p].out;
	}
	return NULL;
}

/* ---- assembly ---------------------------------------------------------------------------------- */

static bool rki_fbx_build_content(rki_fbx_ctx *ctx)
{
	rk_scene *s = ctx->sc->scene;
	size_t nmesh = 0, nskin = 0, nmat = 0, ntex = 0;
	for (size_t i = 0; i < ctx->object_count; i++) {
		rki_fbx_object *o = &ctx->objects[i];
		if (rki_fbx_is_geometry_mesh(ctx, o)) nmesh++;
		else if (!strcmp(o->element, "Deformer") && !strcmp(o->sub_class, "Skin")) nskin++;
		else if (!strcmp(o->element, "Material")) nmat++;
		else if (!strcmp(o->element, "Texture")) ntex++;
		else if (!strcmp(o->element, "Geometry") && strcmp(o->sub_class, "Shape") != 0 && strcmp(o->sub_class, "Mesh") != 0)
			rki_fbx_warn(ctx, o->node, "geometry type '%s' is not loaded (only polygon meshes)", o->sub_class);
	}
	if (ctx->sc->opts.ignore_geometry) nmesh = nskin = 0;
	s->meshes.data = (rk_mesh *)rki_arena_array(ctx->sc->arena, nmesh ? nmesh : 1, sizeof(rk_mesh));
	s->skins.data = (rk_skin_deformer *)rki_arena_array(ctx->sc->arena, nskin ? nskin : 1, sizeof(rk_skin_deformer));
	s->materials.data = (rk_material *)rki_arena_array(ctx->sc->arena, nmat ? nmat : 1, sizeof(rk_material));
	s->textures.data = (rk_texture *)rki_arena_array(ctx->sc->arena, ntex ? ntex : 1, sizeof(rk_texture));
	if (!s->meshes.data || !s->skins.data || !s->materials.data || !s->textures.data) return rki_fbx_oom(ctx);

	/* Textures, then materials (which reference textures). */
	for (size_t i = 0; i < ctx->object_count; i++) {
		rki_fbx_object *o = &ctx->objects[i];
		if (strcmp(o->element, "Texture") != 0) continue;
		rk_texture *t = &s->textures.data[s->textures.count];
		t->index = (uint32_t)s->textures.count++;
		if (!rki_fbx_build_texture(ctx, o, t)) return false;
		o->out = t;
	}
	for (size_t i = 0; i < ctx->object_count; i++) {
		rki_fbx_object *o = &ctx->objects[i];
		if (strcmp(o->element, "Material") != 0) continue;
		rk_material *m = &s->materials.data[s->materials.count];
		m->index = (uint32_t)s->materials.count++;
		if (!rki_fbx_build_material(ctx, o, m)) return false;
		o->out = m;
	}
	/* Per-node material slots: materials connected to the model, in order. */
	for (size_t i = 0; i < ctx->object_count; i++) {
		rki_fbx_object *o = &ctx->objects[i];
		if (!rki_fbx_is_model(o) || !o->out) continue;
		rk_node *nd = (rk_node *)o->out;
		size_t n = 0;
		for (uint32_t k = 0; k < o->children_count; k++)
			if (rki_fbx_child_of_kind(ctx, o, k, "Material", NULL)) n++;
		if (!n) continue;
		nd->materials.data = (rk_material **)rki_arena_array(ctx->sc->arena, n, sizeof(rk_material *));
		if (!nd->materials.data) return rki_fbx_oom(ctx);
		for (uint32_t k = 0; k < o->children_count; k++) {
			rki_fbx_object *mo = rki_fbx_child_of_kind(ctx, o, k, "Material", NULL);
			if (mo && mo->out) nd->materials.data[nd->materials.count++] = (rk_material *)mo->out;
		}
	}
	if (ctx->sc->opts.ignore_geometry) return true;

	for (size_t i = 0; i < ctx->object_count; i++) {
		rki_fbx_object *o = &ctx->objects[i];
		if (!rki_fbx_is_geometry_mesh(ctx, o)) continue;
		rk_mesh *m = &s->meshes.data[s->meshes.count];
		m->index = (uint32_t)s->meshes.count++;
		if (!rki_fbx_build_mesh(ctx, o, m)) return false;
		/* Deformers attached to this geometry. */
		size_t nsk = 0, nch = 0;
		for (uint32_t k = 0; k < o->children_count; k++) {
			rki_fbx_object *d = rki_fbx_child_of_kind(ctx, o, k, "Deformer", NULL);
			if (!d) continue;
			if (!strcmp(d->sub_class, "Skin")) nsk++;
			else if (!strcmp(d->sub_class, "BlendShape")) {
				for (uint32_t c = 0; c < d->children_count; c++)
					if (rki_fbx_child_of_kind(ctx, d, c, "Deformer", "BlendShapeChannel")) nch++;
			}
		}
		if (ctx->v6)
			for (size_t k = 0; k < o->node->child_count; k++)
				if (!strcmp(o->node->children[k].name, "Shape")) nch++;
		if (nsk) {
			m->skins = (rk_skin_deformer **)rki_arena_array(ctx->sc->arena, nsk, sizeof(rk_skin_deformer *));
			if (!m->skins) return rki_fbx_oom(ctx);
		}
		rk_blend_channel *chans = nch ? (rk_blend_channel *)rki_arena_array(ctx->sc->arena, nch, sizeof(rk_blend_channel)) : NULL;
		if (nch && !chans) return rki_fbx_oom(ctx);
		size_t made = 0;
		for (uint32_t k = 0; k < o->children_count; k++) {
			rki_fbx_object *d = rki_fbx_child_of_kind(ctx, o, k, "Deformer", NULL);
			if (!d) continue;
			if (!strcmp(d->sub_class, "Skin") && s->skins.count < nskin) {
				rk_skin_deformer *sk = d->out ? (rk_skin_deformer *)d->out : &s->skins.data[s->skins.count];
				if (!d->out) {
					sk->index = (uint32_t)s->skins.count++;
					if (!rki_fbx_build_skin(ctx, d, m, rki_fbx_geometry_node(ctx, o), sk)) return false;
					d->out = sk;
				}
				m->skins[m->skin_count++] = sk;
			} else if (!strcmp(d->sub_class, "BlendShape")) {
				if (!rki_fbx_build_blend(ctx, d, m, chans, &made)) return false;
			}
		}
		if (ctx->v6 && !rki_fbx_build_v6_shapes(ctx, o, m, chans, &made)) return false;
		m->blend_channels.data = chans;
		m->blend_channels.count = made;
		o->geom_out = m;
	}
	/* Link nodes to meshes. */
	for (size_t i = 0; i < ctx->object_count; i++) {
		rki_fbx_object *o = &ctx->objects[i];
		if (!rki_fbx_is_model(o) || o->node_index == UINT32_MAX) continue;
		rk_node *nd = &s->nodes.data[o->node_index];
		rk_mesh *mesh = NULL;
		if (ctx->v6) {
			mesh = (rk_mesh *)o->geom_out; /* 6100: the model holds its own geometry */
		} else {
			for (uint32_t k = 0; k < o->children_count && !mesh; k++) {
				rki_fbx_object *g = rki_fbx_child_of_kind(ctx, o, k, "Geometry", "Mesh");
				if (g && g->geom_out) mesh = (rk_mesh *)g->geom_out;
			}
		}
		if (!mesh) continue;
		nd->mesh = mesh;
		nd->kind = RK_NODE_MESH;
		if (mesh->skin_count > 0) nd->skin = mesh->skins[0];
		if (mesh->skin_count > 1) rki_fbx_warn(ctx, o->node, "mesh has %zu skin deformers: only the first is used", mesh->skin_count);
		if (mesh->blend_channels.count) {
			double *w = (double *)rki_arena_array(ctx->sc->arena, mesh->blend_channels.count, sizeof(double));
			if (!w) return rki_fbx_oom(ctx);
			for (size_t c = 0; c < mesh->blend_channels.count; c++) w[c] = mesh->blend_channels.data[c].default_weight;
			nd->blend_weights = w;
		}
	}
	for (size_t i = 0; i < s->skins.count; i++) {
		for (size_t j = 0; j < s->skins.data[i].joint_count; j++) {
			rk_node *jn = (rk_node *)s->skins.data[i].joints[j].node;
			if (jn && jn->kind == RK_NODE_NULL) jn->kind = RK_NODE_JOINT;
		}
	}
	return true;
}

static const char *rki_fbx_creator(rki_fbx_ctx *ctx)
{
	const char *s;
	size_t len;
	if (rki_fbx_child_str(&ctx->doc.root, "Creator", &s, &len)) return rki_arena_strndup(ctx->sc->arena, s, len);
	const rki_fbx_node *h = rki_fbx_find_child(&ctx->doc.root, "FBXHeaderExtension");
	if (h && rki_fbx_child_str(h, "Creator", &s, &len)) return rki_arena_strndup(ctx->sc->arena, s, len);
	return "";
}

/* Arrays of meshes, skins and blend shapes, at most 3 levels below Objects
 * (Objects/Geometry/LayerElementNormal/Normals): decoded ahead on threads. */
/* The objects holding them: 7x Geometry (meshes, shapes) and Deformer
 * (clusters); 5000-6100 Models (their geometry) and Deformers. Others (e.g.
 * a Mixamo clip's thousands of AnimationCurve records) are skipped unread:
 * an array outside these is still decoded when read, on the reading thread. */
static const char *const rki_fbx_mesh_objects[] = { "Geometry", "Deformer", "Model" };

static const char *const rki_fbx_mesh_arrays[] = {
	"Vertices", "PolygonVertexIndex", "Normals", "NormalsIndex", "NormalIndex", "UV", "UVIndex", "Colors",
	"ColorIndex", "Tangents", "TangentsIndex", "TangentIndex", "Binormals", "BinormalsIndex", "BinormalIndex",
	"Materials", "Indexes", "Weights", "BlendWeights", "FullWeights", "Transform", "TransformLink"
};

rk_scene *rki_fbx_load(const void *data, size_t size, const rk_load_opts *opts, const char *filename, rk_error *err)
{
	rki_scene_ctx sc;
	if (!rki_scene_begin(&sc, opts, filename, err)) return NULL;
	rki_fbx_ctx ctx;
	memset(&ctx, 0, sizeof(ctx));
	ctx.sc = &sc;
	ctx.filename = filename;
	rki_fbx_parse_opts popts;
	memset(&popts, 0, sizeof(popts));
	popts.limits.max_depth = sc.opts.max_depth < 64 ? sc.opts.max_depth : 64;
	popts.limits.max_array_elems = sc.opts.max_elements;
	popts.lazy_arrays = true;   /* arrays are decoded when used (fbx_dom.h, LAZY ARRAYS) */
	/* The arrays meshes and skins read are decoded on helper threads (one per
	 * core) straight from the bytes, while the tree is parsed and objects,
	 * nodes and bind poses are built (binary files; ASCII arrays are parsed). */
	rki_fbx_decode_batch *arrays = sc.opts.ignore_geometry ? NULL : rki_fbx_decode_prescan(data, size, "Objects",
		rki_fbx_mesh_objects, sizeof(rki_fbx_mesh_objects) / sizeof(rki_fbx_mesh_objects[0]), rki_fbx_mesh_arrays, sizeof(rki_fbx_mesh_arrays) / sizeof(rki_fbx_mesh_arrays[0]), 3, sc.opts.threads, &popts.limits, sc.arena,
		sc.alloc);
	popts.batch = arrays;
	/* One block for the document and the scene (core/internal.h,
	 * rki_arena_reserve): they take 1.9x-4.9x the file's size on the shared
	 * assets and the ten largest conformance files. Loads measured with
	 * bench_load: ybot@kick.fbx 0.70 -> 0.39 ms, kenney 1.33 -> 0.75 ms,
	 * ybot.fbx 4.0 -> 3.4 ms (page faults per load 1040 -> 23). A smaller
	 * block that overflows costs more than it saves (3x: ybot.fbx 5.4 ms). */
	if (size <= (SIZE_MAX - 262144) / 6) rki_arena_reserve(sc.arena, size * 6 + 262144);
	if (!rki_fbx_parse_ex(&ctx.doc, data, size, sc.arena, sc.alloc, &popts, err)) {
		rki_fbx_decode_finish(arrays);
		rki_error_file(err, filename);
		rki_scene_abort(&sc);
		return NULL;
	}
	rk_scene *s = sc.scene;
	s->settings.format = RK_FORMAT_FBX;
	s->settings.fbx_version = ctx.doc.version;
	s->settings.ascii = ctx.doc.ascii;
	ctx.v6 = ctx.doc.version < 7000;
	s->settings.creator = rki_fbx_creator(&ctx);
	bool ok = s->settings.creator != NULL;
	if (!ok) rki_fbx_oom(&ctx);
	if (ok) {
		ok = rki_fbx_index_objects(&ctx) && rki_fbx_index_connections(&ctx);
	}
	if (ok) {
		rki_fbx_read_settings(&ctx);
		s->settings.original_axes = s->settings.axes;
		s->settings.original_unit_meters = s->settings.unit_meters;
		ctx.frame_rate = s->settings.frame_rate;
		ok = rki_fbx_build_nodes(&ctx);
		if (ok) {
			/* Static matrices (file space) for bind-pose fallbacks; recomputed by finish. */
			rki_scene_update_matrices(s);
			ok = rki_fbx_read_bind_poses(&ctx);
		}
	}
	/* Meshes and skins read the batch's arrays as they go: each is waited for
	 * (or decoded here) when first read, while the helpers decode the rest. */
	if (ok) ok = rki_fbx_is_legacy(&ctx) ? rki_fbx_build_legacy(&ctx) : rki_fbx_build_content(&ctx);
	if (ok && !sc.opts.ignore_animation) ok = rki_fbx_read_animation(&ctx);
	rki_fbx_decode_finish(arrays);  /* on every path: joins the decoding threads */
	if (!ok) {
		if (err && err->code == RK_OK) rki_scene_oom(&sc);
		rki_error_file(err, filename);
		rki_scene_abort(&sc);
		return NULL;
	}
	return rki_scene_finish(&sc);
}

bool rki_fbx_probe(const void *data, size_t size)
{
	return rki_fbx_is_fbx(data, size);
}
