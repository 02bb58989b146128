/*
 * src/formats/fbx/fbx_objects.c - the reader context: error and warning reports,
 * the object index (7x ids, 6100 names hashed to ids) and the Connections
 * lists (see fbx_objects.h).
 */
#include "formats/fbx/fbx_objects.h"
#include "formats/fbx/fbx_props.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* ---- errors --------------------------------------------------------------- */

void rki_fbx_error_at_node(rki_fbx_ctx *ctx, const rki_fbx_node *n, rk_error_code code, const char *fmt, ...)
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

bool rki_fbx_oom(rki_fbx_ctx *ctx)
{
	rki_scene_oom(ctx->sc);
	rki_error_file(ctx->sc->err, ctx->filename);
	return false;
}

bool rki_fbx_dom_failed(rki_fbx_ctx *ctx)
{
	rki_error_file(ctx->sc->err, ctx->filename);
	return false;
}

/* ---- 6100 ids ------------------------------------------------------------------ */

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
int64_t rki_fbx_name_id(const char *s, size_t len)
{
	if (rki_fbx_str_eq(s, len, "Model::Scene")) return 0;
	int64_t id = (int64_t)(rki_fnv1a(s, len) & 0x7fffffffffffffffull);
	return id == 0 ? 1 : id;
}

/* ---- object index ------------------------------------------------------------------ */

typedef struct rki_id_slot { int64_t id; uint32_t index; } rki_id_slot;

typedef struct rki_fbx_id_map {
	rki_id_slot *slots;
	size_t mask;
} rki_fbx_id_map;

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
	const rki_fbx_id_map *m = ctx->id_map;
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

bool rki_fbx_index_objects(rki_fbx_ctx *ctx)
{
	const rki_fbx_node *objs = rki_fbx_find_child(&ctx->doc.root, "Objects");
	ctx->objects_node = objs;
	size_t n = objs ? objs->child_count : 0;
	ctx->objects = (rki_fbx_object *)rki_arena_array(&ctx->sc->tmp, n ? n : 1, sizeof(rki_fbx_object));
	size_t cap = 16;
	while (cap < n * 2 + 2) cap *= 2;
	rki_fbx_id_map *map = (rki_fbx_id_map *)rki_arena_alloc(&ctx->sc->tmp, sizeof(rki_fbx_id_map));
	if (!ctx->objects || !map) return rki_fbx_oom(ctx);
	map->slots = (rki_id_slot *)rki_arena_array(&ctx->sc->tmp, cap, sizeof(rki_id_slot));
	if (!map->slots) return rki_fbx_oom(ctx);
	for (size_t i = 0; i < cap; i++) map->slots[i].index = UINT32_MAX;
	map->mask = cap - 1;
	ctx->id_map = map;

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

static uint64_t rki_conn_hash(const rki_raw_conn *r)
{
	uint64_t h = ((uint64_t)r->child * 0x9e3779b97f4a7c15ull) ^ ((uint64_t)r->parent * 0xc2b2ae3d27d4eb4full);
	for (const unsigned char *p = (const unsigned char *)r->prop; p && *p; p++) h = (h ^ *p) * 0x100000001b3ull;
	return h ^ (h >> 29);
}

static bool rki_conn_equal(const rki_raw_conn *a, const rki_raw_conn *b)
{
	if (a->child != b->child || a->parent != b->parent) return false;
	if (!a->prop || !b->prop) return a->prop == b->prop;
	return strcmp(a->prop, b->prop) == 0;
}

/* Drops connections repeating an earlier one (same child, parent and
 * property): a file repeating each link K times would otherwise multiply
 * what is built from them (K^3 animation tracks through stack -> layer ->
 * curve node -> curve). Keeps file order; one warning with the count.
 * Returns the new count, or SIZE_MAX when out of memory. */
static size_t rki_conn_dedup(rki_fbx_ctx *ctx, rki_raw_conn *raw, size_t count, const rki_fbx_node *where)
{
	if (count < 2) return count;
	size_t cap = 16;
	while (cap < 2 * count) cap *= 2;
	uint32_t *slots = (uint32_t *)rki_arena_array(&ctx->sc->tmp, cap, sizeof(uint32_t));
	if (!slots) return SIZE_MAX;
	memset(slots, 0xff, cap * sizeof(uint32_t));
	size_t kept = 0;
	for (size_t i = 0; i < count; i++) {
		size_t slot = (size_t)rki_conn_hash(&raw[i]) & (cap - 1);
		bool dup = false;
		while (slots[slot] != UINT32_MAX) {
			if (rki_conn_equal(&raw[slots[slot]], &raw[i])) { dup = true; break; }
			slot = (slot + 1) & (cap - 1);
		}
		if (dup) continue;
		raw[kept] = raw[i];
		slots[slot] = (uint32_t)kept;
		kept++;
	}
	if (kept < count)
		rki_fbx_warn(ctx, where, "%zu duplicate connections ignored (same child, parent and property as an earlier one)",
			count - kept);
	return kept;
}

bool rki_fbx_index_connections(rki_fbx_ctx *ctx)
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
		uint32_t pi = parent_id == 0 ? RKI_FBX_ROOT_OBJECT : rki_fbx_find_object(ctx, parent_id);
		if (pi == UINT32_MAX) continue;
		raw[count].child = ci;
		raw[count].parent = pi;
		raw[count].prop = prop ? rki_arena_strndup(&ctx->sc->tmp, prop, prop_len) : NULL;
		if (prop && !raw[count].prop) return rki_fbx_oom(ctx);
		count++;
	}
	count = rki_conn_dedup(ctx, raw, count, cn);
	if (count == SIZE_MAX) return rki_fbx_oom(ctx);
	/* CSR: parents of each object, then children of each object, in file order. */
	size_t total;
	if (!rki_mul_size(count, 2, &total)) return rki_fbx_oom(ctx);
	ctx->conns = (rki_fbx_conn *)rki_arena_array(&ctx->sc->tmp, total ? total : 1, sizeof(rki_fbx_conn));
	if (!ctx->conns) return rki_fbx_oom(ctx);
	for (size_t i = 0; i < count; i++) {
		ctx->objects[raw[i].child].parents_count++;
		if (raw[i].parent != RKI_FBX_ROOT_OBJECT) ctx->objects[raw[i].parent].children_count++;
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
		pc->other = raw[i].parent; /* RKI_FBX_ROOT_OBJECT = the root */
		pc->prop = raw[i].prop;
		if (raw[i].parent != RKI_FBX_ROOT_OBJECT) {
			rki_fbx_object *p = &ctx->objects[raw[i].parent];
			rki_fbx_conn *cc = &ctx->conns[p->children_begin + p->children_count++];
			cc->other = raw[i].child;
			cc->prop = raw[i].prop;
		}
	}
	ctx->conn_count = count;
	return true;
}

/* ---- object kinds ---------------------------------------------------------------- */

bool rki_fbx_is_model(const rki_fbx_object *o)
{
	return strcmp(o->element, "Model") == 0;
}

rki_fbx_object *rki_fbx_child_of_kind(rki_fbx_ctx *ctx, const rki_fbx_object *o, uint32_t k, const char *element, const char *sub)
{
	rki_fbx_object *c = &ctx->objects[ctx->conns[o->children_begin + k].other];
	if (element && strcmp(c->element, element) != 0) return NULL;
	if (sub && strcmp(c->sub_class, sub) != 0) return NULL;
	return c;
}
