/*
 * src/formats/fbx/fbx_legacy.c - the legacy FBX layout (FBX 3000, 5000, 5800 binary
 * and 5800 ASCII) -> neutral scene.
 *
 * LAYOUT (as written by 3ds Max 6/7 and the 2008 FBX SDK)
 *   There is no Objects, Connections or Definitions section. Every scene
 *   node is a top-level "Model" whose first value is its name: a bare name
 *   in 3000/5000 files ("Box01"), "Model::Box01" in 5800 ASCII and
 *   "Box01\0\x01Model" in 5800 binary. Inside a Model:
 *     Type: "Null" | "LimbNode" | "Camera" | "Light" (TypeFlags: "Skeleton"
 *        also marks bones); no Type with Vertices = a mesh.
 *     Children: "a", "b", ...    names of the child Models (the hierarchy);
 *        a Model no list names is a child of the scene root. "Fbx_Root"
 *        (3000/5000) is an ordinary Model that holds the axis rotation.
 *     Vertices, PolygonVertexIndex (as in 6100/7x: negative = last corner).
 *     Normals: one per vertex (5000 and older prefer this when the count
 *        fits) or one per polygon corner (5800), no index array.
 *     GeometryUVInfo { MappingInformationType, TextureUV, TextureUVVerticeIndex }:
 *        the writers label per-corner UVs "ByPolygon" while writing one index
 *        per polygon corner, so the mapping is decided by the element count
 *        (see rki_lg_uv_mapping).
 *     MaterialAssignation: "AllSame" | "ByPolygon" with Materials: slot
 *        indices into the Model's own inline Material children
 *        (Material: "name" { ShadingModel, Ambient, Diffuse, Specular,
 *        Emissive, Shininess, Alpha }).
 *     Link: "bone" { Indexes, Weights, Transform, TransformLink }: one skin
 *        cluster per Link; all Links of a mesh form one skin. Transform is
 *        the mesh-to-bone matrix at bind (as the 7x cluster Transform).
 *     Shape: "name" { Indexes, Vertices, Normals }: a blend shape, vertex
 *        offsets; every Shape becomes one blend channel with one target.
 *     Channel: "Transform" { Channel: "T"|"R"|"S" { Channel: "X"|"Y"|"Z"
 *        { Default: v [Key...] } } }, Channel: "Visibility" { Default },
 *        Channel: "<shape> (Shape)" { Default: percent }: the node's own
 *        channels (5000 and older).
 *   Takes { Take: "name" { Model: "name" { Channel ... } } } hold the same
 *   channels per animated Model, with keys (read by fbx_anim.c).
 *
 * STATIC VALUES
 *   A legacy Model has no property list: its translation, rotation
 *   (degrees, XYZ), scaling, visibility and blend weights are the "Default"
 *   values of its channels. Sources are read in file order, a later one
 *   overriding an earlier one: the Model's own channels first, then each
 *   Take's entry for that Model (so the last Take wins). This is also what
 *   the 5800 files need, whose Models carry no channels at all.
 *
 * RESTRICTIONS
 *   Keys on a Model's own channels (outside any Take) are not turned into a
 *   clip: their Default values are used (warned). Cameras and lights become
 *   nodes of that kind without their attributes. Textures are not read.
 *   Only the first GeometryUVInfo of a mesh is read.
 *
 * ROBUSTNESS
 *   Every array goes through the DOM accessors; counts are checked against
 *   the arrays they index; out-of-range indices are clamped or dropped with
 *   a warning; unknown children names, duplicate names and hierarchy cycles
 *   are warnings (a cycle is cut), never crashes.
 */
#include "formats/fbx/fbx_legacy.h"
#include "formats/fbx/fbx_deformers.h"
#include "formats/fbx/fbx_geometry.h"
#include "formats/fbx/fbx_nodes.h"
#include "formats/fbx/fbx_objects.h"
#include "formats/fbx/fbx_props.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- helpers --------------------------------------------------------------------- */

/* Name view without the class ("Model::x", binary "x\0\1Model"), cut at the
 * first NUL like the C strings rki_fbx_plain_name() produces. */
static void rki_lg_strip(const char **s, size_t *len)
{
	const char *p = *s;
	size_t n = *len;
	bool binary = false;
	for (size_t i = 0; i + 1 < n; i++) {
		if (p[i] == '\0' && p[i + 1] == '\x01') {
			n = i;
			binary = true;
			break;
		}
	}
	if (!binary) {
		for (size_t i = 0; i + 1 < n; i++) {
			if (p[i] == ':' && p[i + 1] == ':') {
				p += i + 2;
				n -= i + 2;
				break;
			}
		}
	}
	const char *nul = (const char *)memchr(p, '\0', n);
	if (nul) n = (size_t)(nul - p);
	*s = p;
	*len = n;
}

/* strcmp order between a (ptr, len) view and a C string. */
static int rki_lg_cmp(const char *a, size_t alen, const char *b)
{
	size_t blen = strlen(b);
	int c = memcmp(a, b, alen < blen ? alen : blen);
	if (c) return c;
	return alen < blen ? -1 : alen > blen;
}

static bool rki_lg_channel(const rki_fbx_node *ch, const char **s, size_t *len)
{
	return strcmp(ch->name, "Channel") == 0 && rki_fbx_prop_str(ch, 0, s, len);
}

/* "Default: v" of a channel, when finite. */
static bool rki_lg_default(const rki_fbx_node *ch, double *out)
{
	double v;
	if (!rki_fbx_prop_f64(rki_fbx_find_child(ch, "Default"), 0, &v) || !isfinite(v)) return false;
	*out = v;
	return true;
}

/* Up to 3 numbers of child `name` (e.g. "Diffuse: r,g,b"). */
static rk_vec3 rki_lg_vec3(const rki_fbx_node *n, const char *name, rk_vec3 def)
{
	const rki_fbx_node *c = rki_fbx_find_child(n, name);
	rk_vec3 v;
	if (!c || !rki_fbx_prop_f64(c, 0, &v.x) || !rki_fbx_prop_f64(c, 1, &v.y) || !rki_fbx_prop_f64(c, 2, &v.z)) return def;
	if (!isfinite(v.x) || !isfinite(v.y) || !isfinite(v.z)) return def;
	return v;
}

static double rki_lg_f64(const rki_fbx_node *n, const char *name, double def)
{
	double v;
	return rki_fbx_prop_f64(rki_fbx_find_child(n, name), 0, &v) && isfinite(v) ? v : def;
}

/* ---- the legacy document ----------------------------------------------------------- */

typedef struct rki_lg_ref {
	const char *name;
	uint32_t model;
} rki_lg_ref;

typedef struct rki_lg_static {
	rk_vec3 t, r, s;
	bool visible;
} rki_lg_static;

typedef struct rki_lg {
	rki_fbx_ctx *ctx;
	size_t n;                      /* models = ctx->objects[0..n) */
	rki_lg_ref *refs;              /* sorted by (name, model) */
	uint32_t *parent;              /* per model: parent model or UINT32_MAX */
	uint32_t *src_begin;           /* n + 1: channel sources of model m are */
	const rki_fbx_node **srcs;     /*   srcs[src_begin[m] .. src_begin[m + 1]) */
	rki_lg_static *statics;
} rki_lg;

static int rki_lg_ref_cmp(const void *a, const void *b)
{
	const rki_lg_ref *x = (const rki_lg_ref *)a, *y = (const rki_lg_ref *)b;
	int c = strcmp(x->name, y->name);
	if (c) return c;
	return x->model < y->model ? -1 : x->model > y->model;
}

/* First model (in file order) named like the string value i of n, or UINT32_MAX. */
static uint32_t rki_lg_find_prop(const rki_lg *lg, const rki_fbx_node *n, size_t i)
{
	const char *s;
	size_t len;
	if (!rki_fbx_prop_str(n, i, &s, &len)) return UINT32_MAX;
	rki_lg_strip(&s, &len);
	size_t lo = 0, hi = lg->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (rki_lg_cmp(s, len, lg->refs[mid].name) > 0) lo = mid + 1;
		else hi = mid;
	}
	return lo < lg->n && rki_lg_cmp(s, len, lg->refs[lo].name) == 0 ? lg->refs[lo].model : UINT32_MAX;
}

bool rki_fbx_is_legacy(const rki_fbx_ctx *ctx)
{
	const rki_fbx_node *root = &ctx->doc.root;
	if (rki_fbx_find_child(root, "Objects")) return false;
	return rki_fbx_find_child(root, "Model") != NULL;
}

/* Indexes the top-level Models as objects (element "Model", so that the
 * Takes reader of fbx_anim.c finds them by name). */
static bool rki_lg_index(rki_lg *lg)
{
	rki_fbx_ctx *ctx = lg->ctx;
	const rki_fbx_node *root = &ctx->doc.root;
	size_t n = 0;
	for (size_t i = 0; i < root->child_count; i++)
		if (!strcmp(root->children[i].name, "Model")) n++;
	if (n + 1 > ctx->sc->opts.max_elements || n > UINT32_MAX - 4) {
		rki_fbx_error_at_node(ctx, root, RK_ERROR_LIMIT, "%zu models exceed the element limit", n);
		return false;
	}
	ctx->objects = (rki_fbx_object *)rki_arena_array(&ctx->sc->tmp, n ? n : 1, sizeof(rki_fbx_object));
	lg->refs = (rki_lg_ref *)rki_arena_array(&ctx->sc->tmp, n ? n : 1, sizeof(rki_lg_ref));
	lg->parent = (uint32_t *)rki_arena_array(&ctx->sc->tmp, n ? n : 1, sizeof(uint32_t));
	lg->statics = (rki_lg_static *)rki_arena_array(&ctx->sc->tmp, n ? n : 1, sizeof(rki_lg_static));
	if (!ctx->objects || !lg->refs || !lg->parent || !lg->statics) return rki_fbx_oom(ctx);
	size_t k = 0;
	for (size_t i = 0; i < root->child_count; i++) {
		const rki_fbx_node *c = &root->children[i];
		if (strcmp(c->name, "Model") != 0) continue;
		const char *s, *type = "";
		size_t len, type_len = 0;
		if (!rki_fbx_prop_str(c, 0, &s, &len)) {
			rki_fbx_warn(ctx, c, "Model without a name ignored");
			continue;
		}
		if (!rki_fbx_child_str(c, "Type", &type, &type_len)) {
			type = "";
			type_len = 0;
			if (rki_fbx_child_str(c, "TypeFlags", &type, &type_len) && rki_fbx_str_eq(type, type_len, "Skeleton")) {
				type = "LimbNode";
				type_len = 8;
			} else if (rki_fbx_find_child(c, "Vertices")) {
				type = "Mesh";
				type_len = 4;
			} else {
				type = "";
				type_len = 0;
			}
		}
		rki_fbx_object *o = &ctx->objects[k];
		memset(o, 0, sizeof(*o));
		o->id = (int64_t)k + 1;
		o->node = c;
		o->element = "Model";
		o->name = rki_fbx_plain_name(ctx->sc->arena, s, len);
		o->sub_class = rki_arena_strndup(ctx->sc->arena, type, type_len);
		if (!o->name || !o->sub_class) return rki_fbx_oom(ctx);
		o->node_index = UINT32_MAX;
		lg->refs[k].name = o->name;
		lg->refs[k].model = (uint32_t)k;
		lg->parent[k] = UINT32_MAX;
		k++;
	}
	lg->n = k;
	ctx->object_count = k;
	qsort(lg->refs, k, sizeof(rki_lg_ref), rki_lg_ref_cmp);
	for (size_t i = 1; i < k; i++) {
		if (strcmp(lg->refs[i - 1].name, lg->refs[i].name) == 0) {
			rki_fbx_warn(ctx, ctx->objects[lg->refs[i].model].node,
				"several Models are named '%s': references by name use the first", lg->refs[i].name);
		}
	}
	return true;
}

/* Parents from every Model's "Children" list (first parent wins), then
 * cycles are cut so that the hierarchy is a forest. */
static bool rki_lg_hierarchy(rki_lg *lg)
{
	rki_fbx_ctx *ctx = lg->ctx;
	for (uint32_t m = 0; m < lg->n; m++) {
		const rki_fbx_node *cn = rki_fbx_find_child(ctx->objects[m].node, "Children");
		if (!cn) continue;
		size_t missing = 0, repeated = 0;
		for (size_t i = 0; i < cn->prop_count; i++) {
			uint32_t c = rki_lg_find_prop(lg, cn, i);
			if (c == UINT32_MAX) { missing++; continue; }
			if (c == m || lg->parent[c] != UINT32_MAX) {
				if (lg->parent[c] != m) repeated++;
				continue;
			}
			lg->parent[c] = m;
		}
		if (missing) rki_fbx_warn(ctx, cn, "%zu children are not Models of this file: ignored", missing);
		if (repeated) rki_fbx_warn(ctx, cn, "%zu children already have another parent (or are the Model itself): ignored", repeated);
	}
	/* state: 0 unvisited, m + 1 on the path started at m, UINT32_MAX done. */
	uint32_t *state = (uint32_t *)rki_arena_array(&ctx->sc->tmp, lg->n ? lg->n : 1, sizeof(uint32_t));
	if (!state) return rki_fbx_oom(ctx);
	for (uint32_t m = 0; m < lg->n; m++) {
		if (state[m]) continue;
		uint32_t k = m;
		while (k != UINT32_MAX && state[k] == 0) {
			state[k] = m + 1;
			k = lg->parent[k];
		}
		if (k != UINT32_MAX && state[k] == m + 1) {
			rki_fbx_warn(ctx, ctx->objects[k].node, "the Children lists form a cycle: '%s' is moved to the root",
				ctx->objects[k].name);
			lg->parent[k] = UINT32_MAX;
		}
		for (k = m; k != UINT32_MAX && state[k] == m + 1; k = lg->parent[k]) state[k] = UINT32_MAX;
	}
	return true;
}

/* Channel sources per model: the Model itself, then its entry in each Take. */
static bool rki_lg_sources(rki_lg *lg)
{
	rki_fbx_ctx *ctx = lg->ctx;
	const rki_fbx_node *takes = rki_fbx_find_child(&ctx->doc.root, "Takes");
	lg->src_begin = (uint32_t *)rki_arena_array(&ctx->sc->tmp, lg->n + 1, sizeof(uint32_t));
	if (!lg->src_begin) return rki_fbx_oom(ctx);
	size_t total = lg->n;
	for (uint32_t m = 0; m < lg->n; m++) lg->src_begin[m] = 1;
	for (size_t t = 0; takes && t < takes->child_count; t++) {
		const rki_fbx_node *take = &takes->children[t];
		if (strcmp(take->name, "Take") != 0) continue;
		for (size_t j = 0; j < take->child_count; j++) {
			const rki_fbx_node *e = &take->children[j];
			if (strcmp(e->name, "Model") != 0) continue;
			uint32_t m = rki_lg_find_prop(lg, e, 0);
			if (m == UINT32_MAX) continue; /* warned by the animation reader */
			lg->src_begin[m]++;
			total++;
		}
	}
	if (total > UINT32_MAX - 1) {
		rki_fbx_error_at_node(ctx, takes, RK_ERROR_LIMIT, "too many take entries");
		return false;
	}
	lg->srcs = (const rki_fbx_node **)rki_arena_array(&ctx->sc->tmp, total ? total : 1, sizeof(rki_fbx_node *));
	if (!lg->srcs) return rki_fbx_oom(ctx);
	uint32_t at = 0;
	for (uint32_t m = 0; m < lg->n; m++) {
		uint32_t c = lg->src_begin[m];
		lg->src_begin[m] = at;
		lg->srcs[at] = ctx->objects[m].node;
		at += c;
	}
	lg->src_begin[lg->n] = at;
	/* fill: slot 0 is the model, the rest in take order */
	uint32_t *fill = (uint32_t *)rki_arena_array(&ctx->sc->tmp, lg->n ? lg->n : 1, sizeof(uint32_t));
	if (!fill) return rki_fbx_oom(ctx);
	for (uint32_t m = 0; m < lg->n; m++) fill[m] = lg->src_begin[m] + 1;
	for (size_t t = 0; takes && t < takes->child_count; t++) {
		const rki_fbx_node *take = &takes->children[t];
		if (strcmp(take->name, "Take") != 0) continue;
		for (size_t j = 0; j < take->child_count; j++) {
			const rki_fbx_node *e = &take->children[j];
			if (strcmp(e->name, "Model") != 0) continue;
			uint32_t m = rki_lg_find_prop(lg, e, 0);
			if (m != UINT32_MAX) lg->srcs[fill[m]++] = e;
		}
	}
	return true;
}

/* X/Y/Z sub-channel Defaults of a T/R/S channel into v. */
static void rki_lg_vec_channel(const rki_fbx_node *ch, rk_vec3 *v)
{
	for (size_t i = 0; i < ch->child_count; i++) {
		const rki_fbx_node *sub = &ch->children[i];
		const char *s;
		size_t len;
		double d;
		if (!rki_lg_channel(sub, &s, &len) || !rki_lg_default(sub, &d)) continue;
		if (rki_fbx_str_eq(s, len, "X")) v->x = d;
		else if (rki_fbx_str_eq(s, len, "Y")) v->y = d;
		else if (rki_fbx_str_eq(s, len, "Z")) v->z = d;
	}
}

/* Applies the transform / visibility Defaults of one source. */
static void rki_lg_apply_static(rki_fbx_ctx *ctx, const rki_fbx_node *src, bool own, rki_lg_static *st)
{
	for (size_t i = 0; i < src->child_count; i++) {
		const rki_fbx_node *ch = &src->children[i];
		const char *s;
		size_t len;
		double d;
		if (!rki_lg_channel(ch, &s, &len)) continue;
		if (rki_fbx_str_eq(s, len, "Transform")) {
			for (size_t j = 0; j < ch->child_count; j++) {
				const rki_fbx_node *sub = &ch->children[j];
				const char *ss;
				size_t sl;
				if (!rki_lg_channel(sub, &ss, &sl)) continue;
				if (rki_fbx_str_eq(ss, sl, "T")) rki_lg_vec_channel(sub, &st->t);
				else if (rki_fbx_str_eq(ss, sl, "R")) rki_lg_vec_channel(sub, &st->r);
				else if (rki_fbx_str_eq(ss, sl, "S")) rki_lg_vec_channel(sub, &st->s);
				if (own) {
					for (size_t k = 0; k < sub->child_count; k++) {
						if (rki_fbx_find_child(&sub->children[k], "Key")) {
							rki_fbx_warn(ctx, &sub->children[k],
								"animation keys on a Model outside any Take are not loaded: its Default value is used");
							break;
						}
					}
				}
			}
		} else if (rki_fbx_str_eq(s, len, "Visibility") && rki_lg_default(ch, &d)) {
			st->visible = d != 0.0;
		}
	}
}

/* ---- nodes ----------------------------------------------------------------------------- */

static rk_node_kind rki_lg_kind(const char *type)
{
	if (!strcmp(type, "LimbNode") || !strcmp(type, "Limb") || !strcmp(type, "Root") || !strcmp(type, "Skeleton"))
		return RK_NODE_JOINT;
	if (!strcmp(type, "Camera") || !strcmp(type, "CameraSwitcher")) return RK_NODE_CAMERA;
	if (!strcmp(type, "Light")) return RK_NODE_LIGHT;
	if (!strcmp(type, "Null") || !strcmp(type, "Mesh") || !type[0]) return RK_NODE_NULL;
	return RK_NODE_OTHER;
}

static bool rki_lg_build_nodes(rki_lg *lg)
{
	rki_fbx_ctx *ctx = lg->ctx;
	size_t count = lg->n + 1;
	uint32_t *par = (uint32_t *)rki_arena_array(&ctx->sc->tmp, count, sizeof(uint32_t));
	uint32_t *order = (uint32_t *)rki_arena_array(&ctx->sc->tmp, count, sizeof(uint32_t));
	uint32_t *scratch = (uint32_t *)rki_arena_array(&ctx->sc->tmp, count * 3, sizeof(uint32_t));
	uint32_t *final_of = (uint32_t *)rki_arena_array(&ctx->sc->tmp, count, sizeof(uint32_t));
	size_t *child_counts = (size_t *)rki_arena_array(&ctx->sc->tmp, count, sizeof(size_t));
	rk_node *nodes = (rk_node *)rki_arena_array(ctx->sc->arena, count, sizeof(rk_node));
	if (!par || !order || !scratch || !final_of || !child_counts || !nodes) return rki_fbx_oom(ctx);
	par[0] = UINT32_MAX;
	for (size_t m = 0; m < lg->n; m++) par[m + 1] = lg->parent[m] == UINT32_MAX ? 0 : lg->parent[m] + 1;
	if (!rki_depth_first_order(count, par, order, scratch)) {
		rki_fbx_error_at_node(ctx, &ctx->doc.root, RK_ERROR_CORRUPT, "the Model hierarchy contains a cycle");
		return false;
	}
	for (uint32_t f = 0; f < count; f++) final_of[order[f]] = f;
	for (uint32_t f = 0; f < count; f++) {
		uint32_t t = order[f];
		rk_node *nd = &nodes[f];
		nd->index = f;
		nd->visible = true;
		nd->default_uv_set = "";
		nd->adjust = rk_adjust_transform_identity();
		if (t == 0) {
			nd->name = "";
			nd->kind = RK_NODE_ROOT;
			nd->props = rk_transform_props_default();
			nd->local = rk_trs_identity();
			nd->node_to_parent = rk_mat4_identity();
			nd->attribute_type = "";
			continue;
		}
		uint32_t m = t - 1;
		rki_fbx_object *o = &ctx->objects[m];
		const rki_lg_static *st = &lg->statics[m];
		nd->name = o->name;
		nd->source_id = (uint64_t)o->id;
		nd->attribute_type = o->sub_class;
		nd->kind = rki_lg_kind(o->sub_class);
		nd->props = rk_transform_props_default();
		nd->props.translation = st->t;
		nd->props.rotation = st->r;
		nd->props.scaling = st->s;
		nd->has_fbx_props = true;
		nd->visible = st->visible;
		nd->parent = &nodes[final_of[par[t]]];
		child_counts[final_of[par[t]]]++;
		o->out = nd;
		o->node_index = f;
	}
	return rki_fbx_finish_nodes(ctx, nodes, count, child_counts);
}

/* ---- bind poses ------------------------------------------------------------------------- */

static bool rki_lg_read_matrix(rki_fbx_ctx *ctx, const rki_fbx_node *n, rk_mat4 *out, bool *ok)
{
	const double *v;
	size_t count;
	*ok = false;
	if (!n) return true;
	if (!rki_fbx_array_f64(n, 0, &ctx->sc->tmp, &v, &count, ctx->sc->err)) return rki_fbx_dom_failed(ctx);
	if (count != 16) {
		rki_fbx_warn(ctx, n, "matrix has %zu numbers, expected 16: ignored", count);
		return true;
	}
	for (int i = 0; i < 16; i++) {
		if (!isfinite(v[i])) {
			rki_fbx_warn(ctx, n, "matrix has a non-finite number: ignored");
			return true;
		}
	}
	memcpy(out->m, v, sizeof(out->m));
	*ok = true;
	return true;
}

static bool rki_lg_pose(rki_lg *lg, const rki_fbx_node *pose)
{
	rki_fbx_ctx *ctx = lg->ctx;
	const char *type;
	size_t tl;
	if (!rki_fbx_child_str(pose, "Type", &type, &tl) || !rki_fbx_str_eq(type, tl, "BindPose")) return true;
	for (size_t k = 0; k < pose->child_count; k++) {
		const rki_fbx_node *pn = &pose->children[k];
		if (strcmp(pn->name, "PoseNode") != 0) continue;
		uint32_t m = rki_lg_find_prop(lg, rki_fbx_find_child(pn, "Node"), 0);
		if (m == UINT32_MAX || !ctx->objects[m].out) continue;
		rk_node *nd = (rk_node *)ctx->objects[m].out;
		if (nd->has_bind_pose) continue;
		rk_mat4 mat;
		bool ok;
		if (!rki_lg_read_matrix(ctx, rki_fbx_find_child(pn, "Matrix"), &mat, &ok)) return false;
		if (!ok) continue;
		nd->bind_node_to_world = mat;
		nd->has_bind_pose = true;
	}
	return true;
}

/* Pose nodes sit at the top level or in SceneGenericPersistence. */
static bool rki_lg_bind_poses(rki_lg *lg)
{
	const rki_fbx_node *root = &lg->ctx->doc.root;
	for (size_t i = 0; i < root->child_count; i++) {
		const rki_fbx_node *c = &root->children[i];
		if (!strcmp(c->name, "Pose")) {
			if (!rki_lg_pose(lg, c)) return false;
		} else if (!strcmp(c->name, "SceneGenericPersistence")) {
			for (size_t j = 0; j < c->child_count; j++)
				if (!strcmp(c->children[j].name, "Pose") && !rki_lg_pose(lg, &c->children[j])) return false;
		}
	}
	return true;
}

/* ---- materials ------------------------------------------------------------------------------ */

static bool rki_lg_material(rki_fbx_ctx *ctx, const rki_fbx_node *mn, rk_material *m)
{
	const char *s;
	size_t len;
	if (!rki_fbx_prop_str(mn, 0, &s, &len)) { s = ""; len = 0; }
	m->name = rki_fbx_plain_name(ctx->sc->arena, s, len);
	if (!rki_fbx_child_str(mn, "ShadingModel", &s, &len)) { s = ""; len = 0; }
	m->shading_model = rki_arena_strndup(ctx->sc->arena, s, len);
	if (!m->name || !m->shading_model) return rki_fbx_oom(ctx);
	rk_vec3 dc = rki_lg_vec3(mn, "Diffuse", (rk_vec3){ 0.8, 0.8, 0.8 });
	double alpha = rki_lg_f64(mn, "Alpha", 1.0);
	if (!(alpha >= 0.0 && alpha <= 1.0)) alpha = 1.0;
	m->base_color = (rk_vec4){ dc.x, dc.y, dc.z, alpha };
	m->specular = rki_lg_vec3(mn, "Specular", (rk_vec3){ 0.2, 0.2, 0.2 });
	m->emissive = rki_lg_vec3(mn, "Emissive", (rk_vec3){ 0, 0, 0 });
	m->shininess = rki_lg_f64(mn, "Shininess", 20.0);
	m->metallic = 0.0;
	m->roughness = m->shininess > 0.0 ? sqrt(2.0 / (m->shininess + 2.0)) : 1.0;
	m->alpha_mode = alpha < 1.0 ? RK_ALPHA_BLEND : RK_ALPHA_OPAQUE;
	m->alpha_cutoff = 0.5;
	return true;
}

/* Inline Material children of every Model -> scene materials and node slots. */
static bool rki_lg_materials(rki_lg *lg)
{
	rki_fbx_ctx *ctx = lg->ctx;
	rk_scene *s = ctx->sc->scene;
	size_t total = 0;
	for (uint32_t m = 0; m < lg->n; m++) {
		const rki_fbx_node *mn = ctx->objects[m].node;
		for (size_t i = 0; i < mn->child_count; i++)
			if (!strcmp(mn->children[i].name, "Material")) total++;
	}
	s->materials.data = (rk_material *)rki_arena_array(ctx->sc->arena, total ? total : 1, sizeof(rk_material));
	s->textures.data = (rk_texture *)rki_arena_array(ctx->sc->arena, 1, sizeof(rk_texture));
	if (!s->materials.data || !s->textures.data) return rki_fbx_oom(ctx);
	for (uint32_t m = 0; m < lg->n; m++) {
		const rki_fbx_node *mn = ctx->objects[m].node;
		rk_node *nd = (rk_node *)ctx->objects[m].out;
		size_t k = 0;
		for (size_t i = 0; i < mn->child_count; i++)
			if (!strcmp(mn->children[i].name, "Material")) k++;
		if (!k || !nd) continue;
		nd->materials.data = (rk_material **)rki_arena_array(ctx->sc->arena, k, sizeof(rk_material *));
		if (!nd->materials.data) return rki_fbx_oom(ctx);
		for (size_t i = 0; i < mn->child_count; i++) {
			if (strcmp(mn->children[i].name, "Material") != 0) continue;
			rk_material *mat = &s->materials.data[s->materials.count];
			mat->index = (uint32_t)s->materials.count++;
			if (!rki_lg_material(ctx, &mn->children[i], mat)) return false;
			nd->materials.data[nd->materials.count++] = mat;
		}
	}
	return true;
}

/* ---- meshes ----------------------------------------------------------------------------------- */

static bool rki_lg_is_mesh(const rki_fbx_node *n)
{
	return rki_fbx_find_child(n, "Vertices") && rki_fbx_find_child(n, "PolygonVertexIndex");
}

typedef enum { RKI_LG_NONE, RKI_LG_CORNER, RKI_LG_VERTEX, RKI_LG_FACE, RKI_LG_ALL } rki_lg_map;

/* Mapping of a legacy per-mesh attribute with `elems` elements (index
 * entries, or values when there is no index array). The stored mapping name
 * breaks ties; the count decides, since "ByPolygon" UV info holds one entry
 * per polygon corner in every known writer. */
static rki_lg_map rki_lg_uv_mapping(const char *map, size_t map_len, size_t elems, const rk_mesh *m)
{
	bool by_vertex = rki_fbx_str_eq(map, map_len, "ByVertice") || rki_fbx_str_eq(map, map_len, "ByVertex");
	bool by_polygon = rki_fbx_str_eq(map, map_len, "ByPolygon");
	if (by_vertex && elems == m->vertex_count) return RKI_LG_VERTEX;
	if (elems == m->index_count) return RKI_LG_CORNER;
	if (by_polygon && elems == m->face_count) return RKI_LG_FACE;
	if (elems == m->vertex_count) return RKI_LG_VERTEX;
	if (elems == m->face_count) return RKI_LG_FACE;
	if (rki_fbx_str_eq(map, map_len, "AllSame") && elems >= 1) return RKI_LG_ALL;
	return RKI_LG_NONE;
}

static bool rki_lg_normals(rki_fbx_ctx *ctx, const rki_fbx_node *g, rk_mesh *m, const uint32_t *corner_ids)
{
	const rki_fbx_node *nn = rki_fbx_find_child(g, "Normals");
	if (!nn) return true;
	const double *v;
	size_t count;
	if (!rki_fbx_array_f64(nn, 0, ctx->sc->arena, &v, &count, ctx->sc->err)) return rki_fbx_dom_failed(ctx);
	if (count % 3 != 0) {
		rki_fbx_warn(ctx, nn, "Normals has %zu numbers, not a multiple of 3: ignored", count);
		return true;
	}
	size_t n = count / 3;
	bool per_vertex = n == m->vertex_count, per_corner = n == m->index_count;
	/* 5000 and older files write one normal per vertex; prefer that reading
	 * when both counts match. */
	if (per_vertex && (!per_corner || ctx->doc.version <= 5000)) {
		m->normals.indices = m->vertex_indices;
	} else if (per_corner) {
		m->normals.indices = corner_ids;
	} else {
		if (n) rki_fbx_warn(ctx, nn, "%zu normals fit neither the %zu vertices nor the %zu polygon corners: ignored",
			n, m->vertex_count, m->index_count);
		return true;
	}
	if (n == 0) return true;
	m->normals.exists = true;
	m->normals.values_f64 = (const rk_vec3 *)(const void *)v;
	m->normals.value_count = n;
	return true;
}

static bool rki_lg_uvs(rki_fbx_ctx *ctx, const rki_fbx_node *g, rk_mesh *m, const uint32_t *face_of)
{
	const rki_fbx_node *info = rki_fbx_find_child(g, "GeometryUVInfo");
	if (!info) return true;
	const rki_fbx_node *vn = rki_fbx_find_child(info, "TextureUV");
	if (!vn) return true;
	const double *raw;
	size_t raw_count;
	if (!rki_fbx_array_f64(vn, 0, &ctx->sc->tmp, &raw, &raw_count, ctx->sc->err)) return rki_fbx_dom_failed(ctx);
	if (raw_count % 2 != 0) {
		rki_fbx_warn(ctx, vn, "TextureUV has %zu numbers, not a multiple of 2: ignored", raw_count);
		return true;
	}
	size_t values = raw_count / 2;
	if (values > UINT32_MAX - 2) {
		rki_fbx_error_at_node(ctx, vn, RK_ERROR_LIMIT, "TextureUV has %zu values (limit %u)", values, UINT32_MAX - 2);
		return false;
	}
	const int32_t *ref = NULL;
	size_t ref_count = 0;
	const rki_fbx_node *in = rki_fbx_find_child(info, "TextureUVVerticeIndex");
	if (in && !rki_fbx_array_i32(in, 0, &ctx->sc->tmp, &ref, &ref_count, ctx->sc->err)) return rki_fbx_dom_failed(ctx);
	const char *map = "";
	size_t map_len = 0;
	if (!rki_fbx_child_str(info, "MappingInformationType", &map, &map_len)) { map = ""; map_len = 0; }
	size_t elems = in ? ref_count : values;
	rki_lg_map mode = rki_lg_uv_mapping(map, map_len, elems, m);
	if (mode == RKI_LG_NONE || values == 0) {
		if (values) rki_fbx_warn(ctx, info, "UV mapping '%s' with %zu entries fits neither corners, vertices nor polygons: ignored",
			map, elems);
		return true;
	}
	/* values plus one zero sentinel for invalid references */
	rk_vec2 *uv = (rk_vec2 *)rki_arena_array(ctx->sc->arena, values + 1, sizeof(rk_vec2));
	uint32_t *idx = (uint32_t *)rki_arena_array(ctx->sc->arena, m->index_count ? m->index_count : 1, sizeof(uint32_t));
	rk_uv_set *set = (rk_uv_set *)rki_arena_array(ctx->sc->arena, 1, sizeof(rk_uv_set));
	if (!uv || !idx || !set) return rki_fbx_oom(ctx);
	for (size_t i = 0; i < values; i++) uv[i] = (rk_vec2){ raw[i * 2], raw[i * 2 + 1] };
	static const rki_fbx_mapping maps[] = { RKI_MAP_NONE, RKI_MAP_CORNER, RKI_MAP_VERTEX, RKI_MAP_FACE, RKI_MAP_ALL };
	size_t bad = rki_fbx_corner_indices(maps[mode], ref, ref_count, values, m->vertex_indices, face_of, m->index_count, idx);
	if (bad) rki_fbx_warn(ctx, info, "%zu polygon corners reference missing UVs (set to zero)", bad);
	set->name = "UVSet0";
	set->uv.exists = true;
	set->uv.values_f64 = uv;
	set->uv.value_count = values + 1;
	set->uv.indices = idx;
	m->uv_sets.data = set;
	m->uv_sets.count = 1;
	return true;
}

static bool rki_lg_face_materials(rki_fbx_ctx *ctx, const rki_fbx_node *g, const rk_node *nd, rk_mesh *m)
{
	const char *s;
	size_t len;
	const rki_fbx_node *mn = rki_fbx_find_child(g, "Materials");
	if (!mn || !rki_fbx_child_str(g, "MaterialAssignation", &s, &len)) return true;
	bool all_same = rki_fbx_str_eq(s, len, "AllSame"), by_polygon = rki_fbx_str_eq(s, len, "ByPolygon");
	if (!all_same && !by_polygon) {
		rki_fbx_warn(ctx, g, "MaterialAssignation other than AllSame/ByPolygon: per-face materials ignored");
		return true;
	}
	const int32_t *mats;
	size_t count;
	if (!rki_fbx_array_i32(mn, 0, &ctx->sc->tmp, &mats, &count, ctx->sc->err)) return rki_fbx_dom_failed(ctx);
	if (all_same && (count == 0 || mats[0] == 0)) return true;
	uint32_t *fm = (uint32_t *)rki_arena_array(ctx->sc->arena, m->face_count ? m->face_count : 1, sizeof(uint32_t));
	if (!fm) return rki_fbx_oom(ctx);
	size_t slots = nd ? nd->materials.count : 0, bad = 0;
	for (size_t f = 0; f < m->face_count; f++) {
		size_t e = all_same ? 0 : f;
		int32_t v = e < count ? mats[e] : 0;
		if (v < 0 || (size_t)v >= (slots ? slots : 1)) {
			v = 0;
			bad++;
		}
		fm[f] = (uint32_t)v;
	}
	if (bad) rki_fbx_warn(ctx, mn, "%zu polygons use a material slot the Model does not have (slot 0 used)", bad);
	m->face_material = fm;
	return true;
}

static bool rki_lg_build_mesh(rki_lg *lg, uint32_t model, rk_mesh *m)
{
	rki_fbx_ctx *ctx = lg->ctx;
	const rki_fbx_object *o = &ctx->objects[model];
	const rki_fbx_node *g = o->node;
	m->name = o->name;
	m->source_id = (uint64_t)o->id;
	if (!rki_fbx_read_polygons(ctx, g, m)) return false;
	size_t n1 = m->index_count ? m->index_count : 1;
	uint32_t *corner_ids = (uint32_t *)rki_arena_array(ctx->sc->arena, n1, sizeof(uint32_t));
	uint32_t *face_of = (uint32_t *)rki_arena_array(&ctx->sc->tmp, n1, sizeof(uint32_t));
	if (!corner_ids || !face_of) return rki_fbx_oom(ctx);
	for (size_t f = 0; f < m->face_count; f++) {
		for (uint32_t k = 0; k < m->faces[f].index_count; k++) {
			size_t c = (size_t)m->faces[f].index_begin + k;
			corner_ids[c] = (uint32_t)c;
			face_of[c] = (uint32_t)f;
		}
	}
	m->uv_sets.data = NULL;
	m->colors.data = NULL;
	return rki_lg_normals(ctx, g, m, corner_ids) && rki_lg_uvs(ctx, g, m, face_of)
		&& rki_lg_face_materials(ctx, g, (const rk_node *)o->out, m);
}

/* ---- skins ---------------------------------------------------------------------------------- */

/* All "Link" children of a mesh Model form one skin, one joint per Link. */
static bool rki_lg_build_skin(rki_lg *lg, uint32_t model, const rk_mesh *mesh, rk_skin_deformer *skin)
{
	rki_fbx_ctx *ctx = lg->ctx;
	const rki_fbx_node *g = ctx->objects[model].node;
	const rk_node *mesh_node = (const rk_node *)ctx->objects[model].out;
	size_t links = 0;
	for (size_t i = 0; i < g->child_count; i++)
		if (!strcmp(g->children[i].name, "Link")) links++;
	skin->name = ctx->objects[model].name;
	skin->method = RK_SKINNING_LINEAR;
	rki_fbx_cluster *cl = (rki_fbx_cluster *)rki_arena_array(&ctx->sc->tmp, links ? links : 1, sizeof(rki_fbx_cluster));
	if (!cl) return rki_fbx_oom(ctx);
	size_t j = 0;
	for (size_t i = 0; i < g->child_count; i++) {
		const rki_fbx_node *ln = &g->children[i];
		if (strcmp(ln->name, "Link") != 0) continue;
		uint32_t bone = rki_lg_find_prop(lg, ln, 0);
		cl[j].node = ln;
		cl[j].bone = bone != UINT32_MAX ? (rk_node *)ctx->objects[bone].out : NULL;
		j++;
	}
	return rki_fbx_build_skin_from_clusters(ctx, cl, j, mesh, mesh_node, skin);
}

/* ---- blend shapes ------------------------------------------------------------------------------ */

/* Sets the static weight of the channels named s[0..len). */
static void rki_lg_blend_set(const rki_lg_ref *idx, size_t count, rk_blend_channel *chans, const char *s, size_t len, double pct)
{
	size_t lo = 0, hi = count;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (rki_lg_cmp(s, len, idx[mid].name) > 0) lo = mid + 1;
		else hi = mid;
	}
	for (; lo < count && rki_lg_cmp(s, len, idx[lo].name) == 0; lo++) chans[idx[lo].model].default_weight = pct / 100.0;
}

/* Static weights of the blend channels: the Default (percent) of a channel
 * named "<shape>" or "<shape> (Shape)" in the model's sources, the last one
 * wins. One pass over the sources; shape names are looked up in a sorted
 * index (no quadratic scan however many shapes and channels a file has). */
static bool rki_lg_blend_defaults(rki_lg *lg, uint32_t model, rk_blend_channel *chans, size_t count)
{
	static const char suffix[] = " (Shape)";
	const size_t sl = sizeof(suffix) - 1;
	rki_lg_ref *idx = (rki_lg_ref *)rki_arena_array(&lg->ctx->sc->tmp, count ? count : 1, sizeof(rki_lg_ref));
	if (!idx) return rki_fbx_oom(lg->ctx);
	for (size_t i = 0; i < count; i++) {
		idx[i].name = chans[i].name;
		idx[i].model = (uint32_t)i;
	}
	qsort(idx, count, sizeof(rki_lg_ref), rki_lg_ref_cmp);
	for (uint32_t k = lg->src_begin[model]; k < lg->src_begin[model + 1]; k++) {
		const rki_fbx_node *src = lg->srcs[k];
		for (size_t i = 0; i < src->child_count; i++) {
			const char *s;
			size_t len;
			double d;
			if (!rki_lg_channel(&src->children[i], &s, &len) || !rki_lg_default(&src->children[i], &d)) continue;
			rki_lg_blend_set(idx, count, chans, s, len, d);
			if (len > sl && memcmp(s + len - sl, suffix, sl) == 0) rki_lg_blend_set(idx, count, chans, s, len - sl, d);
		}
	}
	return true;
}

static bool rki_lg_build_blend(rki_lg *lg, uint32_t model, rk_mesh *mesh)
{
	rki_fbx_ctx *ctx = lg->ctx;
	const rki_fbx_node *g = ctx->objects[model].node;
	size_t shapes = 0;
	for (size_t i = 0; i < g->child_count; i++)
		if (!strcmp(g->children[i].name, "Shape")) shapes++;
	if (!shapes) return true;
	rk_blend_channel *chans = (rk_blend_channel *)rki_arena_array(ctx->sc->arena, shapes, sizeof(rk_blend_channel));
	rk_blend_shape *targets = (rk_blend_shape *)rki_arena_array(ctx->sc->arena, shapes, sizeof(rk_blend_shape));
	double *tw = (double *)rki_arena_array(ctx->sc->arena, shapes, sizeof(double));
	if (!chans || !targets || !tw) return rki_fbx_oom(ctx);
	size_t c = 0;
	for (size_t i = 0; i < g->child_count; i++) {
		const rki_fbx_node *sn = &g->children[i];
		if (strcmp(sn->name, "Shape") != 0) continue;
		const char *s;
		size_t len;
		if (!rki_fbx_prop_str(sn, 0, &s, &len)) { s = ""; len = 0; }
		const char *name = rki_fbx_plain_name(ctx->sc->arena, s, len);
		if (!name) return rki_fbx_oom(ctx);
		rk_blend_shape *bs = &targets[c];
		size_t ni, kept;
		if (!rki_fbx_read_shape(ctx, sn, name, mesh, bs, &ni, &kept)) return false;
		tw[c] = 1.0;
		rk_blend_channel *ch = &chans[c];
		ch->index = (uint32_t)c;
		ch->name = name;
		ch->default_weight = 0.0;
		ch->target_count = 1;
		ch->targets = bs;
		ch->target_weights = &tw[c];
		c++;
	}
	mesh->blend_channels.data = chans;
	mesh->blend_channels.count = c;
	return rki_lg_blend_defaults(lg, model, chans, c);
}

/* ---- content -------------------------------------------------------------------------------------- */

static bool rki_lg_build_content(rki_lg *lg)
{
	rki_fbx_ctx *ctx = lg->ctx;
	rk_scene *s = ctx->sc->scene;
	size_t nmesh = 0, nskin = 0;
	if (!ctx->sc->opts.ignore_geometry) {
		for (uint32_t m = 0; m < lg->n; m++) {
			const rki_fbx_node *g = ctx->objects[m].node;
			if (!rki_lg_is_mesh(g)) continue;
			nmesh++;
			if (rki_fbx_find_child(g, "Link")) nskin++;
		}
	}
	s->meshes.data = (rk_mesh *)rki_arena_array(ctx->sc->arena, nmesh ? nmesh : 1, sizeof(rk_mesh));
	s->skins.data = (rk_skin_deformer *)rki_arena_array(ctx->sc->arena, nskin ? nskin : 1, sizeof(rk_skin_deformer));
	if (!s->meshes.data || !s->skins.data) return rki_fbx_oom(ctx);
	if (!rki_lg_materials(lg)) return false;
	if (ctx->sc->opts.ignore_geometry) return true;
	for (uint32_t m = 0; m < lg->n; m++) {
		rki_fbx_object *o = &ctx->objects[m];
		if (!rki_lg_is_mesh(o->node)) {
			if (rki_fbx_find_child(o->node, "Vertices"))
				rki_fbx_warn(ctx, o->node, "Model has Vertices but no PolygonVertexIndex (not a polygon mesh): not loaded");
			continue;
		}
		rk_mesh *mesh = &s->meshes.data[s->meshes.count];
		mesh->index = (uint32_t)s->meshes.count++;
		if (!rki_lg_build_mesh(lg, m, mesh) || !rki_lg_build_blend(lg, m, mesh)) return false;
		rk_node *nd = (rk_node *)o->out;
		o->geom_out = mesh;
		if (rki_fbx_find_child(o->node, "Link")) {
			rk_skin_deformer *sk = &s->skins.data[s->skins.count];
			sk->index = (uint32_t)s->skins.count++;
			if (!rki_lg_build_skin(lg, m, mesh, sk)) return false;
			mesh->skins = (rk_skin_deformer **)rki_arena_array(ctx->sc->arena, 1, sizeof(rk_skin_deformer *));
			if (!mesh->skins) return rki_fbx_oom(ctx);
			mesh->skins[0] = sk;
			mesh->skin_count = 1;
		}
		if (!nd) continue;
		nd->mesh = mesh;
		nd->kind = RK_NODE_MESH;
		if (mesh->skin_count) nd->skin = mesh->skins[0];
		if (mesh->blend_channels.count) {
			double *w = (double *)rki_arena_array(ctx->sc->arena, mesh->blend_channels.count, sizeof(double));
			if (!w) return rki_fbx_oom(ctx);
			for (size_t c = 0; c < mesh->blend_channels.count; c++) w[c] = mesh->blend_channels.data[c].default_weight;
			nd->blend_weights = w;
		}
	}
	for (size_t i = 0; i < s->skins.count; i++) {
		for (size_t j = 0; j < s->skins.data[i].joint_count; j++) {
			rk_node *jn = s->skins.data[i].joints[j].node;
			if (jn && jn->kind == RK_NODE_NULL) jn->kind = RK_NODE_JOINT;
		}
	}
	return true;
}

/* Frame rate from "Settings: { FrameRate: "30" }" when present. */
static void rki_lg_settings(rki_fbx_ctx *ctx)
{
	const rki_fbx_node *st = rki_fbx_find_child(&ctx->doc.root, "Settings");
	const rki_fbx_node *fr = st ? rki_fbx_find_child(st, "FrameRate") : NULL;
	const char *s;
	size_t len;
	double rate = 0.0;
	if (fr && rki_fbx_prop_str(fr, 0, &s, &len)) {
		char buf[32];
		if (len < sizeof(buf)) {
			memcpy(buf, s, len);
			buf[len] = '\0';
			char *end;
			rate = strtod(buf, &end);
			if (end == buf) rate = 0.0;
		}
	} else if (fr) {
		rki_fbx_prop_f64(fr, 0, &rate);
	}
	if (isfinite(rate) && rate > 0.0 && rate <= 1e6) {
		ctx->sc->scene->settings.frame_rate = rate;
		ctx->frame_rate = rate;
	}
}

bool rki_fbx_build_legacy(rki_fbx_ctx *ctx)
{
	rki_lg lg;
	memset(&lg, 0, sizeof(lg));
	lg.ctx = ctx;
	ctx->v6 = true; /* Takes, named objects */
	rki_lg_settings(ctx);
	if (!rki_lg_index(&lg) || !rki_lg_hierarchy(&lg) || !rki_lg_sources(&lg)) return false;
	for (uint32_t m = 0; m < lg.n; m++) {
		rki_lg_static *st = &lg.statics[m];
		st->t = (rk_vec3){ 0, 0, 0 };
		st->r = (rk_vec3){ 0, 0, 0 };
		st->s = (rk_vec3){ 1, 1, 1 };
		st->visible = true;
		for (uint32_t k = lg.src_begin[m]; k < lg.src_begin[m + 1]; k++)
			rki_lg_apply_static(ctx, lg.srcs[k], k == lg.src_begin[m], st);
	}
	if (!rki_lg_build_nodes(&lg)) return false;
	/* Static matrices (file space) for the bind-pose fallbacks of skins. */
	rki_scene_update_matrices(ctx->sc->scene);
	return rki_lg_bind_poses(&lg) && rki_lg_build_content(&lg);
}
