/*
 * src/formats/fbx/fbx_geometry.c - polygon meshes: Vertices, PolygonVertexIndex
 * and the layer elements (normals, UV sets, colours, tangents, binormals,
 * materials) expressed per polygon corner (see fbx_geometry.h).
 */
#include "formats/fbx/fbx_geometry.h"
#include "formats/fbx/fbx_objects.h"
#include "formats/fbx/fbx_props.h"

#include <stdio.h>
#include <string.h>

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
		return rki_fbx_dom_failed(ctx);
	}
	if (raw_count % components != 0) {
		rki_fbx_error_at_node(ctx, dn, RK_ERROR_CORRUPT, "%s has %zu numbers, not a multiple of %zu", data_name, raw_count, components);
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
				return rki_fbx_dom_failed(ctx);
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
	out->values_f64 = (const rk_vec3 *)(const void *)v;
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
		return rki_fbx_dom_failed(ctx);
	}
	if (pos_count % 3 != 0) {
		rki_fbx_error_at_node(ctx, vn, RK_ERROR_CORRUPT, "Vertices has %zu numbers, not a multiple of 3", pos_count);
		return false;
	}
	m->vertex_count = pos_count / 3;
	m->positions_f64 = pos_count ? (const rk_vec3 *)(const void *)pos : (const rk_vec3 *)rki_arena_alloc(ctx->sc->arena, sizeof(rk_vec3));
	if (!m->positions_f64) return rki_fbx_oom(ctx);
	if (m->vertex_count > UINT32_MAX - 1) {
		rki_fbx_error_at_node(ctx, vn, RK_ERROR_LIMIT, "%zu vertices exceed 32-bit indices", m->vertex_count);
		return false;
	}
	const rki_fbx_node *pn = rki_fbx_find_child(g, "PolygonVertexIndex");
	const int32_t *pvi = NULL;
	size_t pvi_count = 0;
	if (pn && !rki_fbx_array_i32(pn, 0, &ctx->sc->tmp, &pvi, &pvi_count, ctx->sc->err)) {
		return rki_fbx_dom_failed(ctx);
	}
	if (pvi_count > 0 && m->vertex_count == 0) {
		rki_fbx_error_at_node(ctx, pn, RK_ERROR_CORRUPT, "PolygonVertexIndex has %zu entries but the mesh has no vertices", pvi_count);
		return false;
	}
	if (pvi_count > UINT32_MAX - 1 || pvi_count > ctx->sc->opts.max_elements) {
		rki_fbx_error_at_node(ctx, pn, RK_ERROR_LIMIT, "PolygonVertexIndex has %zu entries (limit %zu)", pvi_count, ctx->sc->opts.max_elements);
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

/* Whether a child of a geometry is a "LayerElement..." node: a 6100 Model
 * holds its geometry among its other children, which are skipped by one
 * compare instead of six strcmp each. */
static bool rki_fbx_is_layer_element(const rki_fbx_node *n)
{
	return n->name_len > 12 && memcmp(n->name, "LayerElement", 12) == 0;
}

bool rki_fbx_build_mesh(rki_fbx_ctx *ctx, rki_fbx_object *o, rk_mesh *m)
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
		if (!rki_fbx_is_layer_element(&g->children[i])) continue;
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
		if (!rki_fbx_is_layer_element(l)) continue;
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
			u->uv.values_f64 = (const rk_vec2 *)(const void *)v;
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
			c->values_f64 = (const rk_vec4 *)(const void *)v;
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
				return rki_fbx_dom_failed(ctx);
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

bool rki_fbx_is_geometry_mesh(const rki_fbx_ctx *ctx, const rki_fbx_object *o)
{
	if (ctx->v6) return rki_fbx_is_model(o) && !strcmp(o->sub_class, "Mesh") && rki_fbx_find_child(o->node, "Vertices");
	return !strcmp(o->element, "Geometry") && !strcmp(o->sub_class, "Mesh");
}
