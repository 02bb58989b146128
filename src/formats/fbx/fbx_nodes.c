/*
 * src/formats/fbx/fbx_nodes.c - Model objects -> scene nodes (hierarchy,
 * depth-first order, transform properties) and BindPose matrices (see
 * fbx_nodes.h).
 */
#include "formats/fbx/fbx_nodes.h"
#include "formats/fbx/fbx_objects.h"
#include "formats/fbx/fbx_props.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

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
	RKI_NP_GEO_T, RKI_NP_GEO_R, RKI_NP_GEO_S, RKI_NP_VISIBILITY, RKI_NP_UV_SET, RKI_NP_T_ACTIVE, RKI_NP_S_ACTIVE,
	RKI_NP_COUNT
};

static const struct { const char *name; size_t len; } rki_node_prop_names[RKI_NP_COUNT] = {
#define RKI_NP(s) { s, sizeof(s) - 1 }
	RKI_NP("Lcl Translation"), RKI_NP("Lcl Rotation"), RKI_NP("Lcl Scaling"), RKI_NP("RotationOrder"),
	RKI_NP("RotationOffset"), RKI_NP("RotationPivot"), RKI_NP("ScalingOffset"), RKI_NP("ScalingPivot"),
	RKI_NP("PreRotation"), RKI_NP("PostRotation"), RKI_NP("RotationActive"), RKI_NP("InheritType"),
	RKI_NP("GeometricTranslation"), RKI_NP("GeometricRotation"), RKI_NP("GeometricScaling"), RKI_NP("Visibility"),
	RKI_NP("currentUVSet"), RKI_NP("TranslationActive"), RKI_NP("ScalingActive")
#undef RKI_NP
};

typedef struct rki_node_prop_refs {
	const rki_fbx_node *p[RKI_NP_COUNT];
	size_t vi[RKI_NP_COUNT];
} rki_node_prop_refs;

/* The entries of rki_node_prop_names with each name length (10 to 20), -1
 * after the last: a property name is compared with at most 4 names instead
 * of all 19 (the loop over all of them was 8-10% of loading a small Maya or
 * Max file; docs/benchmarks.md, "FBX load per byte, third pass").
 * tests/test_fbx_dom.c (node_prop_names) checks the table against the names. */
#define RKI_NP_MIN_LEN 10
#define RKI_NP_MAX_LEN 20
static const signed char rki_node_prop_by_len[RKI_NP_MAX_LEN - RKI_NP_MIN_LEN + 1][4] = {
	{ RKI_NP_VISIBILITY, -1, -1, -1 },                                        /* 10 */
	{ RKI_NP_LCL_S, RKI_NP_PRE_ROT, RKI_NP_INHERIT, -1 },                     /* 11 */
	{ RKI_NP_LCL_R, RKI_NP_SCL_PIVOT, RKI_NP_POST_ROT, RKI_NP_UV_SET },        /* 12 */
	{ RKI_NP_ROT_ORDER, RKI_NP_ROT_PIVOT, RKI_NP_SCL_OFFSET, RKI_NP_S_ACTIVE }, /* 13 */
	{ RKI_NP_ROT_OFFSET, RKI_NP_ROT_ACTIVE, -1, -1 },                         /* 14 */
	{ RKI_NP_LCL_T, -1, -1, -1 },                                             /* 15 */
	{ RKI_NP_GEO_S, -1, -1, -1 },                                             /* 16 */
	{ RKI_NP_GEO_R, RKI_NP_T_ACTIVE, -1, -1 },                                /* 17 */
	{ -1, -1, -1, -1 },                                                       /* 18 */
	{ -1, -1, -1, -1 },                                                       /* 19 */
	{ RKI_NP_GEO_T, -1, -1, -1 },                                             /* 20 */
};

/* a[0..len) == b[0..len) for 10 <= len <= 24, by three overlapping 8-byte
 * words (memcmp of a length known only at run time is a library call). */
static bool rki_np_equal(const char *a, const char *b, size_t len)
{
	uint64_t x[3], y[3];
	memcpy(&x[0], a, 8);
	memcpy(&y[0], b, 8);
	memcpy(&x[1], a + len - 8, 8);
	memcpy(&y[1], b + len - 8, 8);
	size_t mid = len > 16 ? 8 : 0;
	memcpy(&x[2], a + mid, 8);
	memcpy(&y[2], b + mid, 8);
	return ((x[0] ^ y[0]) | (x[1] ^ y[1]) | (x[2] ^ y[2])) == 0;
}

/* Index of the node property named s[0..len), or -1. */
int rki_fbx_node_prop_index(const char *s, size_t len)
{
	if (len < RKI_NP_MIN_LEN || len > RKI_NP_MAX_LEN) return -1;
	const signed char *c = rki_node_prop_by_len[len - RKI_NP_MIN_LEN];
	for (int j = 0; j < 4 && c[j] >= 0; j++)
		if (rki_np_equal(rki_node_prop_names[c[j]].name, s, len)) return c[j];
	return -1;
}

/* Name of node property k (0 <= k < rki_fbx_node_prop_count()). */
const char *rki_fbx_node_prop_name(int k)
{
	return k >= 0 && k < RKI_NP_COUNT ? rki_node_prop_names[k].name : NULL;
}

int rki_fbx_node_prop_count(void)
{
	return RKI_NP_COUNT;
}

/* Fills the still-empty entries of r from a Properties70/60 node. */
static void rki_node_props_collect(const rki_fbx_node *props, bool p60, rki_node_prop_refs *r)
{
	if (!props) return;
	for (size_t i = 0; i < props->child_count; i++) {
		const rki_fbx_node *p = &props->children[i];
		const char *s;
		size_t len;
		if (!rki_fbx_prop_str(p, 0, &s, &len)) continue;
		int k = rki_fbx_node_prop_index(s, len);
		if (k < 0 || r->p[k]) continue;
		r->p[k] = p;
		r->vi[k] = p60 ? 3 : 4;
	}
}

/* A non-finite component (NaN, inf, ASCII 1e400) makes the property its
 * default, with a warning naming the node and the property (the FBX SDK
 * loads such values; they would turn every matrix below into NaN). */
static rk_vec3 rki_node_prop_vec3(rki_fbx_ctx *ctx, const rki_fbx_object *o, const rki_node_prop_refs *r, int k,
	rk_vec3 def)
{
	rk_vec3 v = rki_fbx_p_vec3(r->p[k], r->vi[k], def);
	if (isfinite(v.x) && isfinite(v.y) && isfinite(v.z)) return v;
	rki_fbx_warn(ctx, r->p[k], "node \"%.80s\": %s (%g, %g, %g) is not finite: using the default (%g, %g, %g)",
		o->name ? o->name : "", rki_node_prop_names[k].name, v.x, v.y, v.z, def.x, def.y, def.z);
	return def;
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

/* The limit properties of one kind found in a Properties70/60 node: slot 0
 * <kind>Min, 1 <kind>Max, 2-4 <kind>MinX..Z, 5-7 <kind>MaxX..Z; the
 * still-empty slots are filled (the first occurrence wins). */
static void rki_node_limit_collect(const rki_fbx_node *props, bool p60, const char *kind, size_t klen,
	const rki_fbx_node *slot[8], size_t vi[8])
{
	if (!props) return;
	for (size_t i = 0; i < props->child_count; i++) {
		const rki_fbx_node *p = &props->children[i];
		const char *s;
		size_t len;
		if (!rki_fbx_prop_str(p, 0, &s, &len) || (len != klen + 3 && len != klen + 4) || memcmp(s, kind, klen) != 0)
			continue;
		const char *t = s + klen;
		int side = t[0] == 'M' && t[1] == 'i' && t[2] == 'n' ? 0 : t[0] == 'M' && t[1] == 'a' && t[2] == 'x' ? 1 : -1;
		if (side < 0) continue;
		int k = side;
		if (len == klen + 4) {
			if (t[3] < 'X' || t[3] > 'Z') continue;
			k = 2 + side * 3 + (t[3] - 'X');
		}
		if (slot[k]) continue;
		slot[k] = p;
		vi[k] = p60 ? 3 : 4;
	}
}

/* FbxNode limits of one kind ("Translation", "Rotation", "Scaling"): the
 * <kind>Min/<kind>Max vectors and the <kind>MinX ... <kind>MaxZ flags, the
 * object's properties before its template's. Called for a kind whose
 * <kind>Active is set (Maya sets RotationActive on every node): one pass
 * over the properties for all eight (eight lookups, each formatting the
 * name with snprintf and scanning the object and its template, took 4% of
 * loading a Maya ASCII file; docs/benchmarks.md, "FBX load per byte, third pass"). */
static void rki_node_read_limit(const rki_fbx_object *o, const char *kind, rk_vec3 *lo, rk_vec3 *hi, uint8_t *lo_mask,
	uint8_t *hi_mask)
{
	const rki_fbx_node *slot[8] = { NULL };
	size_t vi[8] = { 0 };
	size_t klen = strlen(kind);
	rki_node_limit_collect(o->props, o->props60, kind, klen, slot, vi);
	rki_node_limit_collect(o->templ, false, kind, klen, slot, vi);
	*lo = rki_fbx_p_vec3(slot[0], vi[0], (rk_vec3){ 0, 0, 0 });
	*hi = rki_fbx_p_vec3(slot[1], vi[1], (rk_vec3){ 0, 0, 0 });
	*lo_mask = *hi_mask = 0;
	for (int a = 0; a < 3; a++) {
		if (rki_fbx_p_i64(slot[2 + a], vi[2 + a], 0) != 0) *lo_mask |= (uint8_t)(1u << a);
		if (rki_fbx_p_i64(slot[5 + a], vi[5 + a], 0) != 0) *hi_mask |= (uint8_t)(1u << a);
	}
	if (!(isfinite(lo->x) && isfinite(lo->y) && isfinite(lo->z))) *lo_mask = 0;
	if (!(isfinite(hi->x) && isfinite(hi->y) && isfinite(hi->z))) *hi_mask = 0;
}

/* Reads the node's transform properties; *uv_set = its currentUVSet or "". */
static void rki_fbx_read_node_props(rki_fbx_ctx *ctx, const rki_fbx_object *o, rki_node_templ_cache *cache,
	rk_node *node, const char **uv_set)
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
	p->translation = rki_node_prop_vec3(ctx, o, &r, RKI_NP_LCL_T, zero);
	p->rotation = rki_node_prop_vec3(ctx, o, &r, RKI_NP_LCL_R, zero);
	p->scaling = rki_node_prop_vec3(ctx, o, &r, RKI_NP_LCL_S, one);
	int64_t order = rki_node_prop_i64(&r, RKI_NP_ROT_ORDER, 0);
	p->rotation_order = (order >= 0 && order <= 6) ? (rk_rotation_order)order : RK_ROTATION_XYZ;
	p->rotation_offset = rki_node_prop_vec3(ctx, o, &r, RKI_NP_ROT_OFFSET, zero);
	p->rotation_pivot = rki_node_prop_vec3(ctx, o, &r, RKI_NP_ROT_PIVOT, zero);
	p->scaling_offset = rki_node_prop_vec3(ctx, o, &r, RKI_NP_SCL_OFFSET, zero);
	p->scaling_pivot = rki_node_prop_vec3(ctx, o, &r, RKI_NP_SCL_PIVOT, zero);
	p->pre_rotation = rki_node_prop_vec3(ctx, o, &r, RKI_NP_PRE_ROT, zero);
	p->post_rotation = rki_node_prop_vec3(ctx, o, &r, RKI_NP_POST_ROT, zero);
	p->rotation_active = rki_node_prop_i64(&r, RKI_NP_ROT_ACTIVE, 0) != 0;
	p->inherit_mode = rk_inherit_mode_from_fbx(rki_node_prop_i64(&r, RKI_NP_INHERIT, 1));
	p->geometric_translation = rki_node_prop_vec3(ctx, o, &r, RKI_NP_GEO_T, zero);
	p->geometric_rotation = rki_node_prop_vec3(ctx, o, &r, RKI_NP_GEO_R, zero);
	p->geometric_scaling = rki_node_prop_vec3(ctx, o, &r, RKI_NP_GEO_S, one);
	/* Limits (FbxNode ...Active, ...Min/Max and their axis flags); the stored
	 * values are clamped to them like every evaluated value (anim.h). */
	rk_transform_limits *lim = &node->limits;
	memset(lim, 0, sizeof(*lim));
	if (rki_node_prop_i64(&r, RKI_NP_T_ACTIVE, 0) != 0)
		rki_node_read_limit(o, "Translation", &lim->translation_min, &lim->translation_max, &lim->translation_min_mask,
			&lim->translation_max_mask);
	if (p->rotation_active)
		rki_node_read_limit(o, "Rotation", &lim->rotation_min, &lim->rotation_max, &lim->rotation_min_mask,
			&lim->rotation_max_mask);
	if (rki_node_prop_i64(&r, RKI_NP_S_ACTIVE, 0) != 0)
		rki_node_read_limit(o, "Scaling", &lim->scaling_min, &lim->scaling_max, &lim->scaling_min_mask,
			&lim->scaling_max_mask);
	node->has_limits = (lim->translation_min_mask | lim->translation_max_mask | lim->rotation_min_mask |
		lim->rotation_max_mask | lim->scaling_min_mask | lim->scaling_max_mask) != 0;
	if (node->has_limits) rk_transform_limits_apply(lim, p);
	double vis;
	node->visible = !(r.p[RKI_NP_VISIBILITY] && rki_fbx_prop_f64(r.p[RKI_NP_VISIBILITY], r.vi[RKI_NP_VISIBILITY], &vis) &&
		vis == 0.0);
	node->has_fbx_props = true;
	node->adjust = rk_adjust_transform_identity();
	const char *s;
	size_t len;
	*uv_set = r.p[RKI_NP_UV_SET] && rki_fbx_prop_str(r.p[RKI_NP_UV_SET], r.vi[RKI_NP_UV_SET], &s, &len) ? s : "";
}

bool rki_fbx_finish_nodes(rki_fbx_ctx *ctx, rk_node *nodes, size_t count, const size_t *child_counts)
{
	rk_scene *s = ctx->sc->scene;
	for (size_t f = 0; f < count; f++) {
		nodes[f].children.data = (rk_node **)rki_arena_array(ctx->sc->arena, child_counts[f], sizeof(rk_node *));
		if (!nodes[f].children.data) return rki_fbx_oom(ctx);
	}
	for (size_t f = 1; f < count; f++) {
		rk_node *p = nodes[f].parent;
		p->children.data[p->children.count++] = &nodes[f];
	}
	s->nodes.data = nodes;
	s->nodes.count = count;
	s->root = &nodes[0];
	return true;
}

bool rki_fbx_build_nodes(rki_fbx_ctx *ctx)
{
	size_t models = 0;
	for (size_t i = 0; i < ctx->object_count; i++)
		if (rki_fbx_is_model(&ctx->objects[i])) models++;
	size_t count = models + 1;
	if (count > ctx->sc->opts.max_elements) {
		rki_fbx_error_at_node(ctx, ctx->objects_node, RK_ERROR_LIMIT, "%zu nodes exceed the element limit", count);
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
			if (other == RKI_FBX_ROOT_OBJECT) break;
			if (rki_fbx_is_model(&ctx->objects[other])) {
				parent[t] = tmp_of_obj[other];
				break;
			}
		}
		if (parent[t] == t) parent[t] = 0;
	}
	if (!rki_depth_first_order(count, parent, order, scratch)) {
		rki_fbx_error_at_node(ctx, ctx->objects_node, RK_ERROR_CORRUPT, "the node hierarchy contains a cycle (a Model is its own ancestor)");
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
			rki_fbx_read_node_props(ctx, o, &templ_cache, nd, &uvset);
			nd->default_uv_set = rki_arena_strndup(ctx->sc->arena, uvset, strlen(uvset));
			nd->attribute_type = rki_arena_strndup(ctx->sc->arena, o->sub_class, strlen(o->sub_class));
			if (!nd->default_uv_set || !nd->attribute_type) return rki_fbx_oom(ctx);
			o->out = nd;
			o->node_index = f;
			nd->parent = &nodes[final_of_tmp[parent[t]]];
			child_counts[final_of_tmp[parent[t]]]++;
		}
	}
	return rki_fbx_finish_nodes(ctx, nodes, count, child_counts);
}

/* ---- bind poses ---------------------------------------------------------------------------- */


static bool rki_fbx_read_matrix(rki_fbx_ctx *ctx, const rki_fbx_node *n, rk_mat4 *out)
{
	const double *v;
	size_t count;
	if (!n) {
		*out = rk_mat4_identity();
		return true;
	}
	if (!rki_fbx_array_f64(n, 0, &ctx->sc->tmp, &v, &count, ctx->sc->err)) {
		return rki_fbx_dom_failed(ctx);
	}
	if (count != 16) {
		rki_fbx_error_at_node(ctx, n, RK_ERROR_CORRUPT, "matrix has %zu numbers, expected 16", count);
		return false;
	}
	memcpy(out->m, v, sizeof(out->m));
	return true;
}

/* Reads every BindPose: node->bind_node_to_world for listed nodes (first pose wins). */
bool rki_fbx_read_bind_poses(rki_fbx_ctx *ctx)
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
