/* src/formats/gltf/gltf_mesh.c - meshes, primitives and morph targets of the glTF
 * reader.
 *
 * One rk_mesh per glTF mesh. The triangle primitives (modes 4, 5, 6) are
 * concatenated: their vertices are appended to one vertex array, strips
 * and fans become triangles, and every face is a triangle whose corners index
 * the concatenated vertices. Per-corner attributes are value tables with
 * indices = vertex_indices. mesh->materials has one slot per primitive (in
 * file order, skipped primitives included) and face_material[f] is the
 * index of the primitive the face came from (NULL, slot 0, for a mesh of
 * one primitive). */
#include "gltf_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RKI_GLTF_MAX_UV 16
#define RKI_GLTF_MAX_COLOR 8

static const char *const rki_gltf_uv_names[RKI_GLTF_MAX_UV] = {
	"TEXCOORD_0", "TEXCOORD_1", "TEXCOORD_2", "TEXCOORD_3", "TEXCOORD_4", "TEXCOORD_5", "TEXCOORD_6", "TEXCOORD_7",
	"TEXCOORD_8", "TEXCOORD_9", "TEXCOORD_10", "TEXCOORD_11", "TEXCOORD_12", "TEXCOORD_13", "TEXCOORD_14", "TEXCOORD_15",
};
static const char *const rki_gltf_color_names[RKI_GLTF_MAX_COLOR] = {
	"COLOR_0", "COLOR_1", "COLOR_2", "COLOR_3", "COLOR_4", "COLOR_5", "COLOR_6", "COLOR_7",
};

/* Where the attributes of one primitive are (accessor indices). */
typedef struct rki_gltf_prim_src {
	bool triangles;              /* a loaded triangle primitive */
	size_t mode;
	size_t position, normal, tangent, indices, material;
	size_t texcoord[RKI_GLTF_MAX_UV];
	size_t color[RKI_GLTF_MAX_COLOR];
	size_t index_count;          /* indices, or vertices when not indexed */
	size_t triangle_max;
	const rki_json *targets;
	size_t target_count;
	/* morph pass: this primitive's accessors of the current target */
	bool has_mpos, has_mnrm;
	rki_gltf_accessor mpos, mnrm;
} rki_gltf_prim_src;

/* Parses "NAME_n" (attr_len bytes) with NAME == prefix. */
static bool rki_gltf_attrib_set(const char *attr, size_t attr_len, const char *prefix, size_t *n)
{
	size_t len = strlen(prefix);
	if (attr_len <= len || memcmp(attr, prefix, len) != 0) return false;
	size_t v = 0;
	for (const char *s = attr + len; s < attr + attr_len; s++) {
		if (*s < '0' || *s > '9' || v > 100000) return false;
		v = v * 10 + (size_t)(*s - '0');
	}
	*n = v;
	return true;
}

bool rki_gltf_scan_meshes(rki_gltf *g)
{
	g->mesh_info = (rki_gltf_mesh *)rki_arena_array(&g->sc.tmp, g->meshes.count, sizeof(rki_gltf_mesh));
	if (!g->mesh_info) return rki_gltf_oom(g);
	for (size_t m = 0; m < g->meshes.count; m++) {
		const rki_gltf_loc *base = RKI_GLTF_IDX(RKI_GLTF_KEY(NULL, "meshes"), m), *ppath = RKI_GLTF_KEY(base, "primitives");
		const rki_json *prims;
		size_t count;
		if (!rki_gltf_array(g, &g->meshes.items[m], base, "primitives", &prims, &count)) return false;
		if (!prims) return rki_gltf_fail(g, RK_ERROR_CORRUPT, ppath, "mesh needs a \"primitives\" array");
		rki_gltf_mesh *info = &g->mesh_info[m];
		info->prim_count = count;
		info->prims = (rki_gltf_prim *)rki_arena_array(&g->sc.tmp, count, sizeof(rki_gltf_prim));
		if (!info->prims) return rki_gltf_oom(g);
		for (size_t k = 0; k < count; k++) {
			const rki_json *p = &prims->u.items[k];
			const rki_gltf_loc *path = RKI_GLTF_IDX(ppath, k);
			if (p->type != RKI_JSON_OBJECT) return rki_gltf_fail(g, RK_ERROR_CORRUPT, path, "expected a primitive object");
			const rki_json *targets;
			size_t tc;
			if (!rki_gltf_array(g, p, path, "targets", &targets, &tc)) return false;
			if (tc > info->target_count) {
				if (k > 0) rki_gltf_warn(g, path, "primitives of a mesh have different numbers of morph targets");
				info->target_count = tc;
			} else if (tc < info->target_count) {
				rki_gltf_warn(g, path, "primitives of a mesh have different numbers of morph targets");
			}
		}
	}
	return true;
}

/* Reads the attributes object, mode and indices of a primitive. */
static bool rki_gltf_prim_source(rki_gltf *g, const rki_json *p, const rki_gltf_loc *path, rki_gltf_prim *info, rki_gltf_prim_src *src)
{
	const rki_gltf_loc *apath = RKI_GLTF_KEY(path, "attributes");
	src->position = src->normal = src->tangent = RKI_GLTF_NONE;
	for (size_t i = 0; i < RKI_GLTF_MAX_UV; i++) src->texcoord[i] = RKI_GLTF_NONE;
	for (size_t i = 0; i < RKI_GLTF_MAX_COLOR; i++) src->color[i] = RKI_GLTF_NONE;
	size_t joints[RKI_GLTF_MAX_INFLUENCE_SETS], weights[RKI_GLTF_MAX_INFLUENCE_SETS];
	for (size_t i = 0; i < RKI_GLTF_MAX_INFLUENCE_SETS; i++) joints[i] = weights[i] = RKI_GLTF_NONE;

	if (!rki_gltf_uint(g, p, path, "mode", 4, 1000, false, &src->mode)) return false;
	if (src->mode > 6) return rki_gltf_fail_key(g, RK_ERROR_CORRUPT, path, "mode", "expected a primitive mode from 0 to 6, got %zu", src->mode);
	if (!rki_gltf_index(g, p, path, "material", g->materials.count, "materials", false, &src->material)) return false;
	if (!rki_gltf_index(g, p, path, "indices", g->accessors.count, "accessors", false, &src->indices)) return false;
	if (!rki_gltf_array(g, p, path, "targets", &src->targets, &src->target_count)) return false;

	const rki_json *attrs;
	if (!rki_gltf_object(g, p, path, "attributes", &attrs)) return false;
	if (!attrs) return rki_gltf_fail(g, RK_ERROR_CORRUPT, apath, "primitive needs an \"attributes\" object");
	for (size_t i = 0; i < attrs->len; i++) {
		const rki_json_member *a = &attrs->u.members[i];
		const char *name = a->key;
		size_t len = a->value.key_len, idx, n;
		if (!rki_gltf_index_value(g, &a->value, RKI_GLTF_MEMBER(apath, name, len), g->accessors.count, "accessors", &idx)) return false;
		if (len == 8 && memcmp(name, "POSITION", 8) == 0) src->position = idx;
		else if (len == 6 && memcmp(name, "NORMAL", 6) == 0) src->normal = idx;
		else if (len == 7 && memcmp(name, "TANGENT", 7) == 0) src->tangent = idx;
		else if (rki_gltf_attrib_set(name, len, "TEXCOORD_", &n)) {
			if (n < RKI_GLTF_MAX_UV) src->texcoord[n] = idx;
			else rki_gltf_warn(g, apath, "TEXCOORD sets from TEXCOORD_16 on are ignored");
		} else if (rki_gltf_attrib_set(name, len, "COLOR_", &n)) {
			if (n < RKI_GLTF_MAX_COLOR) src->color[n] = idx;
			else rki_gltf_warn(g, apath, "COLOR sets from COLOR_8 on are ignored");
		} else if (rki_gltf_attrib_set(name, len, "JOINTS_", &n)) {
			if (n < RKI_GLTF_MAX_INFLUENCE_SETS) joints[n] = idx;
			else rki_gltf_warn(g, apath, "JOINTS/WEIGHTS sets from _8 on are ignored");
		} else if (rki_gltf_attrib_set(name, len, "WEIGHTS_", &n)) {
			if (n < RKI_GLTF_MAX_INFLUENCE_SETS) weights[n] = idx;
		}
		/* Application-specific attributes ("_ID"...) are ignored. */
	}
	info->set_count = 0;
	while (info->set_count < RKI_GLTF_MAX_INFLUENCE_SETS && joints[info->set_count] != RKI_GLTF_NONE
		&& weights[info->set_count] != RKI_GLTF_NONE) {
		info->joints[info->set_count] = joints[info->set_count];
		info->weights[info->set_count] = weights[info->set_count];
		info->set_count++;
	}
	if (info->set_count < RKI_GLTF_MAX_INFLUENCE_SETS
		&& (joints[info->set_count] != RKI_GLTF_NONE || weights[info->set_count] != RKI_GLTF_NONE))
		rki_gltf_warn(g, apath, "JOINTS_n without WEIGHTS_n (or the reverse): that set and later ones are ignored");

	if (src->mode < 4) {
		rki_gltf_warn(g, path, "point and line primitives (modes 0-3) are skipped");
		return true;
	}
	if (src->position == RKI_GLTF_NONE) {
		rki_gltf_warn(g, apath, "primitive without POSITION skipped");
		return true;
	}
	if (src->indices != RKI_GLTF_NONE) {
		const rki_json *acc = &g->accessors.items[src->indices];
		if (!rki_gltf_uint(g, acc, RKI_GLTF_IDX(&rki_gltf_loc_accessors, src->indices), "count", 0, g->sc.opts.max_elements, true, &src->index_count)) return false;
	} else {
		if (!rki_gltf_uint(g, &g->accessors.items[src->position], RKI_GLTF_IDX(&rki_gltf_loc_accessors, src->position), "count", 0,
			g->sc.opts.max_elements, true, &src->index_count))
			return false;
	}
	if (src->mode == 4) {
		src->triangle_max = src->index_count / 3;
		if (src->index_count % 3 != 0) rki_gltf_warn(g, path, "TRIANGLES primitive with a corner count not divisible by 3: the rest is ignored");
	} else {
		src->triangle_max = src->index_count >= 3 ? src->index_count - 2 : 0;
	}
	src->triangles = true;
	return true;
}

/* Opens an attribute accessor of a primitive and checks its count. */
static bool rki_gltf_open_attribute(rki_gltf *g, size_t index, const rki_gltf_loc *prim_path, const char *name, size_t vertex_count,
	uint32_t components, unsigned ctypes, rki_gltf_accessor *acc)
{
	const rki_gltf_loc *path = RKI_GLTF_KEY(RKI_GLTF_KEY(prim_path, "attributes"), name);
	if (!rki_gltf_accessor_open(g, index, true, acc)) return false;
	if (!rki_gltf_accessor_expect(g, acc, path, name, components, false, ctypes)) return false;
	if (acc->count != vertex_count)
		return rki_gltf_fail(g, RK_ERROR_CORRUPT, path, "%s accessor %zu has %zu elements; expected %zu like POSITION",
			name, index, acc->count, vertex_count);
	return true;
}

#define RKI_GLTF_CT_INT_NORM (RKI_GLTF_CT(RKI_GLTF_BYTE) | RKI_GLTF_CT(RKI_GLTF_UNSIGNED_BYTE) | RKI_GLTF_CT(RKI_GLTF_SHORT) | RKI_GLTF_CT(RKI_GLTF_UNSIGNED_SHORT))

/* Appends the triangles of one primitive to the mesh's faces and corners.
 * vertex_indices has room for 2 more corners than the mesh's triangles:
 * TRIANGLES indices are decoded in place, including an ignored tail. */
static bool rki_gltf_prim_triangles(rki_gltf *g, const rki_gltf_prim_src *src, const rki_gltf_prim *info, const rki_gltf_loc *path,
	uint32_t prim_index, rk_mesh *mesh, uint32_t *vertex_indices, rk_face *faces, uint32_t *face_material)
{
	size_t n = src->index_count;
	uint32_t vb = (uint32_t)info->vertex_base;
	size_t f = mesh->face_count, c = mesh->index_count;
	uint32_t *idx = src->mode == 4 ? vertex_indices + c : (uint32_t *)rki_gltf_scratch(g, 0, n, sizeof(uint32_t));
	if (!idx) return false;
	uint32_t base = src->mode == 4 ? vb : 0;
	if (src->indices != RKI_GLTF_NONE) {
		const rki_gltf_loc *ipath = RKI_GLTF_KEY(path, "indices");
		rki_gltf_accessor acc;
		size_t bad;
		uint32_t bad_value;
		if (!rki_gltf_accessor_open(g, src->indices, false, &acc)) return false;
		if (!rki_gltf_accessor_expect(g, &acc, ipath, "indices", 1, false, RKI_GLTF_CT_UNSIGNED)) return false;
		if (!rki_gltf_accessor_read_indices(&acc, idx, base, (uint32_t)info->vertex_count, &bad, &bad_value))
			return rki_gltf_fail(g, RK_ERROR_CORRUPT, ipath, "index %zu of accessor %zu is %u; expected below the primitive's vertex count %zu",
				bad, src->indices, (unsigned)bad_value, info->vertex_count);
	} else {
		for (size_t i = 0; i < n; i++) idx[i] = base + (uint32_t)i;
	}
	if (src->mode == 4) {
		/* the corners are in place: one face per 3 */
		for (size_t t = 0; t < src->triangle_max; t++) {
			faces[f + t].index_begin = (uint32_t)(c + 3 * t);
			faces[f + t].index_count = 3;
			if (face_material) face_material[f + t] = prim_index;
		}
		mesh->face_count = f + src->triangle_max;
		mesh->index_count = c + 3 * src->triangle_max;
		return true;
	}
	for (size_t t = 0; t < src->triangle_max; t++) {
		uint32_t a, b, d;
		if (src->mode == 5) {
			/* strip: triangle t = (v_t, v_t+1+t%2, v_t+2-t%2) keeps the winding */
			a = idx[t];
			b = idx[t + 1 + t % 2];
			d = idx[t + 2 - t % 2];
		} else {
			/* fan: triangle t = (v_t+1, v_t+2, v_0) */
			a = idx[t + 1];
			b = idx[t + 2];
			d = idx[0];
		}
		if (a == b || b == d || a == d) continue;  /* restart/degenerate */
		vertex_indices[c] = vb + a;
		vertex_indices[c + 1] = vb + b;
		vertex_indices[c + 2] = vb + d;
		faces[f].index_begin = (uint32_t)c;
		faces[f].index_count = 3;
		if (face_material) face_material[f] = prim_index;
		f++;
		c += 3;
	}
	mesh->face_count = f;
	mesh->index_count = c;
	return true;
}

/* 1 when some of the 3 doubles at d is not 0.0 (NaN included, -0.0 not):
 * the bits other than the sign are not all zero. */
static inline size_t rki_gltf_moves(const double *d)
{
	uint64_t a, b, c;
	memcpy(&a, d, sizeof(a));
	memcpy(&b, d + 1, sizeof(b));
	memcpy(&c, d + 2, sizeof(c));
	return ((a | b | c) << 1) != 0;
}

/* The same for 3 little-endian floats at d. */
static inline size_t rki_gltf_moves_f32(const unsigned char *d)
{
	return (uint32_t)((rki_le32(d) | rki_le32(d + 4) | rki_le32(d + 8)) << 1) != 0;
}

/* Fills morph target channel `k` of the mesh from every primitive. */
static bool rki_gltf_morph_channel(rki_gltf *g, size_t m, rki_gltf_prim_src *srcs, const rki_gltf_loc *mesh_path,
	size_t k, bool with_normals, rk_mesh *mesh, rk_blend_channel *ch, const rki_json *target_name)
{
	const rki_gltf_mesh *info = &g->mesh_info[m];
	size_t V = mesh->vertex_count;
	/* the target's accessors in every primitive, checked */
	bool fast = !with_normals;
	/* offsets are kept as floats when every accessor of the target stores FLOAT
	 * (normalized BYTE / SHORT deltas are decoded to doubles, as before) */
	bool as_float = true;
	for (size_t p = 0; p < info->prim_count; p++) {
		rki_gltf_prim_src *src = &srcs[p];
		const rki_gltf_prim *pi = &info->prims[p];
		src->has_mpos = src->has_mnrm = false;
		if (!src->triangles || k >= src->target_count) continue;
		const rki_gltf_loc *tpath = RKI_GLTF_IDX(RKI_GLTF_KEY(RKI_GLTF_IDX(RKI_GLTF_KEY(mesh_path, "primitives"), p), "targets"), k);
		const rki_json *target = &src->targets->u.items[k];
		if (target->type != RKI_JSON_OBJECT) return rki_gltf_fail(g, RK_ERROR_CORRUPT, tpath, "expected a morph target object");
		for (size_t i = 0; i < target->len; i++) {
			const rki_json_member *a = &target->u.members[i];
			bool is_pos = a->value.key_len == 8 && memcmp(a->key, "POSITION", 8) == 0;
			bool is_nrm = a->value.key_len == 6 && memcmp(a->key, "NORMAL", 6) == 0;
			const char *name = is_pos ? "POSITION" : "NORMAL";
			size_t idx;
			const rki_gltf_loc *apath = RKI_GLTF_MEMBER(tpath, a->key, a->value.key_len);
			rki_gltf_accessor *acc = is_pos ? &src->mpos : &src->mnrm;
			if (!rki_gltf_index_value(g, &a->value, apath, g->accessors.count, "accessors", &idx)) return false;
			if (!is_pos && !is_nrm) {
				rki_gltf_warn(g, tpath, "morph target attributes other than POSITION and NORMAL are ignored");
				continue;
			}
			if (!rki_gltf_accessor_open(g, idx, true, acc)) return false;
			if (!rki_gltf_accessor_expect(g, acc, apath, name, 3, false, RKI_GLTF_CT_FLOAT | RKI_GLTF_CT(RKI_GLTF_BYTE) | RKI_GLTF_CT(RKI_GLTF_SHORT)))
				return false;
			if (acc->count != pi->vertex_count)
				return rki_gltf_fail(g, RK_ERROR_CORRUPT, apath, "morph target accessor %zu has %zu elements; expected %zu like POSITION",
					idx, acc->count, pi->vertex_count);
			if (is_pos) src->has_mpos = true;
			else src->has_mnrm = true;
			if (acc->component_type != RKI_GLTF_FLOAT) as_float = false;
		}
		if (src->has_mpos && (src->mpos.component_type != RKI_GLTF_FLOAT || src->mpos.sparse_count || !src->mpos.data)) fast = false;
	}
	rk_blend_shape *shape = (rk_blend_shape *)rki_arena_alloc(g->sc.arena, sizeof(rk_blend_shape));
	double *tw = (double *)rki_arena_alloc(g->sc.arena, sizeof(double));
	if (!shape || !tw) return rki_gltf_oom(g);
	uint32_t *vi;
	rk_vec3 *po = NULL, *no = NULL;
	float *pf = NULL, *nf = NULL;
	size_t moved = 0;
	/* A first pass counts the vertices that move, a second one copies them
	 * in order (stores are unconditional: the arrays have one spare element). */
	if (fast) {
		/* POSITION deltas only, all dense FLOAT: straight from the buffer */
		for (size_t p = 0; p < info->prim_count; p++) {
			const rki_gltf_prim_src *src = &srcs[p];
			if (!src->has_mpos) continue;
			const unsigned char *d = src->mpos.data;
			for (size_t v = 0; v < src->mpos.count; v++, d += src->mpos.stride) moved += rki_gltf_moves_f32(d);
		}
		vi = (uint32_t *)rki_gltf_array_uninit(g->sc.arena, moved + 1, sizeof(uint32_t));
		pf = (float *)rki_gltf_array_uninit(g->sc.arena, moved + 1, 3 * sizeof(float));
		if (!vi || !pf) return rki_gltf_oom(g);
		size_t j = 0;
		for (size_t p = 0; p < info->prim_count; p++) {
			const rki_gltf_prim_src *src = &srcs[p];
			if (!src->has_mpos) continue;
			const unsigned char *d = src->mpos.data;
			uint32_t vb = (uint32_t)info->prims[p].vertex_base;
			for (size_t v = 0; v < src->mpos.count; v++, d += src->mpos.stride) {
				vi[j] = vb + (uint32_t)v;
				pf[3 * j] = rki_lef32(d);
				pf[3 * j + 1] = rki_lef32(d + 4);
				pf[3 * j + 2] = rki_lef32(d + 8);
				j += rki_gltf_moves_f32(d);
			}
		}
	} else {
		/* deltas of every vertex (normals only when some target has them) */
		double *pos = (double *)rki_gltf_scratch(g, 0, V, (with_normals ? 6 : 3) * sizeof(double));
		if (!pos) return false;
		double *nrm = with_normals ? pos + 3 * V : NULL;
		for (size_t p = 0; p < info->prim_count; p++) {
			const rki_gltf_prim_src *src = &srcs[p];
			const rki_gltf_prim *pi = &info->prims[p];
			if (!src->triangles) continue;
			if (src->has_mpos) rki_gltf_accessor_read_f64(&src->mpos, pos + 3 * pi->vertex_base, src->mpos.normalized);
			else memset(pos + 3 * pi->vertex_base, 0, 3 * pi->vertex_count * sizeof(double));
			if (nrm && src->has_mnrm) rki_gltf_accessor_read_f64(&src->mnrm, nrm + 3 * pi->vertex_base, src->mnrm.normalized);
			else if (nrm) memset(nrm + 3 * pi->vertex_base, 0, 3 * pi->vertex_count * sizeof(double));
		}
		if (nrm) {
			for (size_t v = 0; v < V; v++) moved += rki_gltf_moves(pos + 3 * v) | rki_gltf_moves(nrm + 3 * v);
		} else {
			for (size_t v = 0; v < V; v++) moved += rki_gltf_moves(pos + 3 * v);
		}
		vi = (uint32_t *)rki_gltf_array_uninit(g->sc.arena, moved + 1, sizeof(uint32_t));
		if (!vi) return rki_gltf_oom(g);
		size_t j = 0;
		if (as_float) {
			/* every delta is a float widened exactly: narrowing it back is exact */
			pf = (float *)rki_gltf_array_uninit(g->sc.arena, moved + 1, 3 * sizeof(float));
			nf = nrm ? (float *)rki_gltf_array_uninit(g->sc.arena, moved + 1, 3 * sizeof(float)) : NULL;
			if (!pf || (nrm && !nf)) return rki_gltf_oom(g);
			for (size_t v = 0; v < V; v++) {
				vi[j] = (uint32_t)v;
				for (size_t d = 0; d < 3; d++) pf[3 * j + d] = (float)pos[3 * v + d];
				if (nf) for (size_t d = 0; d < 3; d++) nf[3 * j + d] = (float)nrm[3 * v + d];
				j += nrm ? rki_gltf_moves(pos + 3 * v) | rki_gltf_moves(nrm + 3 * v) : rki_gltf_moves(pos + 3 * v);
			}
		} else {
			po = (rk_vec3 *)rki_gltf_array_uninit(g->sc.arena, moved + 1, sizeof(rk_vec3));
			no = nrm ? (rk_vec3 *)rki_gltf_array_uninit(g->sc.arena, moved + 1, sizeof(rk_vec3)) : NULL;
			if (!po || (nrm && !no)) return rki_gltf_oom(g);
			if (nrm) {
				for (size_t v = 0; v < V; v++) {
					vi[j] = (uint32_t)v;
					po[j] = (rk_vec3){ pos[3 * v], pos[3 * v + 1], pos[3 * v + 2] };
					no[j] = (rk_vec3){ nrm[3 * v], nrm[3 * v + 1], nrm[3 * v + 2] };
					j += rki_gltf_moves(pos + 3 * v) | rki_gltf_moves(nrm + 3 * v);
				}
			} else {
				for (size_t v = 0; v < V; v++) {
					vi[j] = (uint32_t)v;
					po[j] = (rk_vec3){ pos[3 * v], pos[3 * v + 1], pos[3 * v + 2] };
					j += rki_gltf_moves(pos + 3 * v);
				}
			}
		}
	}
	char fallback[32];
	snprintf(fallback, sizeof(fallback), "target%zu", k);
	shape->name = rki_json_is(target_name, RKI_JSON_STRING) ? rki_gltf_json_strdup(g, g->sc.arena, target_name) : rki_gltf_strdup(g, fallback);
	if (!shape->name) return false;
	shape->offset_count = moved;
	shape->vertex_indices = vi;
	shape->position_offsets_f64 = po;
	shape->normal_offsets_f64 = no;
	shape->position_offsets_f32 = pf;
	shape->normal_offsets_f32 = nf;
	*tw = 1.0;
	ch->index = (uint32_t)k;
	ch->name = shape->name;
	ch->target_count = 1;
	ch->targets = shape;
	ch->target_weights = tw;
	return true;
}

/* True when accessor `index` (NONE: true) stores FLOAT components: its values
 * are then kept as floats in the scene (rk_attrib_vec3.values_f32). Other
 * types, and malformed members (reported when the accessor is opened), give
 * false. */
static bool rki_gltf_accessor_is_float(rki_gltf *g, size_t index)
{
	if (index == RKI_GLTF_NONE) return true;
	const rki_json *ct = rki_gltf_member(&g->accessors.items[index], "componentType");
	return rki_json_is(ct, RKI_JSON_NUMBER) && rki_gltf_num(g, ct) == (double)RKI_GLTF_FLOAT;
}

static bool rki_gltf_load_mesh(rki_gltf *g, size_t m, rk_mesh *mesh)
{
	const rki_gltf_loc *base = RKI_GLTF_IDX(RKI_GLTF_KEY(NULL, "meshes"), m), *prims_path = RKI_GLTF_KEY(base, "primitives");
	const rki_json *obj = &g->meshes.items[m];
	rki_gltf_mesh *info = &g->mesh_info[m];
	size_t P = info->prim_count;
	mesh->index = (uint32_t)m;
	mesh->source_id = m;
	if (!(mesh->name = rki_gltf_name(g, obj, base))) return false;
	info->mesh = mesh;

	rki_gltf_prim_src *srcs = (rki_gltf_prim_src *)rki_arena_array(&g->sc.tmp, P, sizeof(rki_gltf_prim_src));
	if (!srcs) return rki_gltf_oom(g);
	const rki_json *prims = rki_gltf_member(obj, "primitives");

	/* Pass 1: sizes. */
	size_t V = 0, T = 0, uv_mask = 0, color_mask = 0;
	bool any_normal = false, any_tangent = false, any_target_normal = false;
	/* which tables stay floats: every loaded primitive's accessor is FLOAT */
	bool pos_f32 = true, nrm_f32 = true, uv_f32[RKI_GLTF_MAX_UV], color_f32[RKI_GLTF_MAX_COLOR];
	for (size_t i = 0; i < RKI_GLTF_MAX_UV; i++) uv_f32[i] = true;
	for (size_t i = 0; i < RKI_GLTF_MAX_COLOR; i++) color_f32[i] = true;
	size_t k;
	for (k = 0; k < P; k++) {
		const rki_gltf_loc *path = RKI_GLTF_IDX(prims_path, k);
		rki_gltf_prim_src *src = &srcs[k];
		rki_gltf_prim *pi = &info->prims[k];
		if (!rki_gltf_prim_source(g, &prims->u.items[k], path, pi, src)) return false;
		if (!src->triangles) continue;
		size_t vc;
		if (!rki_gltf_uint(g, &g->accessors.items[src->position], RKI_GLTF_IDX(&rki_gltf_loc_accessors, src->position), "count", 0, g->sc.opts.max_elements, true, &vc)) return false;
		pi->loaded = true;
		pi->vertex_base = V;
		pi->vertex_count = vc;
		if (!rki_add_size(V, vc, &V) || V > UINT32_MAX || !rki_add_size(T, src->triangle_max, &T) || T > UINT32_MAX / 3
			|| V > g->sc.opts.max_elements || T > g->sc.opts.max_elements)
			return rki_gltf_fail(g, RK_ERROR_LIMIT, base, "mesh has too many vertices or triangles (limit %zu, and 2^32 corners)",
				g->sc.opts.max_elements);
		if (src->normal != RKI_GLTF_NONE) any_normal = true;
		if (src->tangent != RKI_GLTF_NONE) any_tangent = true;
		pos_f32 = pos_f32 && rki_gltf_accessor_is_float(g, src->position);
		nrm_f32 = nrm_f32 && rki_gltf_accessor_is_float(g, src->normal);
		for (size_t i = 0; i < RKI_GLTF_MAX_UV; i++) {
			if (src->texcoord[i] != RKI_GLTF_NONE) uv_mask |= (size_t)1 << i;
			uv_f32[i] = uv_f32[i] && rki_gltf_accessor_is_float(g, src->texcoord[i]);
		}
		for (size_t i = 0; i < RKI_GLTF_MAX_COLOR; i++) {
			if (src->color[i] != RKI_GLTF_NONE) color_mask |= (size_t)1 << i;
			color_f32[i] = color_f32[i] && rki_gltf_accessor_is_float(g, src->color[i]);
		}
		for (size_t t = 0; t < src->target_count; t++)
			if (rki_gltf_member(&src->targets->u.items[t], "NORMAL")) any_target_normal = true;
	}

	/* Allocation. */
	rki_arena *ar = g->sc.arena;
	size_t uv_count = 0, color_count = 0;
	for (size_t i = 0; i < RKI_GLTF_MAX_UV; i++) uv_count += (uv_mask >> i) & 1u;
	for (size_t i = 0; i < RKI_GLTF_MAX_COLOR; i++) color_count += (color_mask >> i) & 1u;
	if (any_tangent && (!uv_count || !any_normal)) {
		rki_gltf_warn(g, base, "TANGENT without NORMAL and TEXCOORD is ignored");
		any_tangent = false;
	}
	/* Vertex and face arrays are not cleared: pass 2 writes every vertex of
	 * every loaded primitive (zeros / white where a primitive lacks an
	 * attribute) and the first face_count faces. */
	rk_vec3 *positions = NULL;
	float *positions_f = NULL;
	if (pos_f32) positions_f = (float *)rki_gltf_array_uninit(ar, V, 3 * sizeof(float));
	else positions = (rk_vec3 *)rki_gltf_array_uninit(ar, V, sizeof(rk_vec3));
	/* 2 spare corners: see rki_gltf_prim_triangles() */
	uint32_t *vertex_indices = (uint32_t *)rki_gltf_array_uninit(ar, 3 * T + 2, sizeof(uint32_t));
	rk_face *faces = (rk_face *)rki_gltf_array_uninit(ar, T, sizeof(rk_face));
	/* one primitive: every face is slot 0, which face_material NULL says */
	uint32_t *face_material = P > 1 ? (uint32_t *)rki_gltf_array_uninit(ar, T, sizeof(uint32_t)) : NULL;
	rk_material **mats = (rk_material **)rki_arena_array(ar, P, sizeof(rk_material *));
	rk_vec3 *normals = NULL;
	float *normals_f = NULL;
	if (any_normal && nrm_f32) normals_f = (float *)rki_gltf_array_uninit(ar, V, 3 * sizeof(float));
	else if (any_normal) normals = (rk_vec3 *)rki_gltf_array_uninit(ar, V, sizeof(rk_vec3));
	rk_uv_set *uv_sets = (rk_uv_set *)rki_arena_array(ar, uv_count, sizeof(rk_uv_set));
	rk_attrib_vec4 *colors = (rk_attrib_vec4 *)rki_arena_array(ar, color_count, sizeof(rk_attrib_vec4));
	if ((!positions && !positions_f) || !vertex_indices || !faces || (P > 1 && !face_material) || !mats || (any_normal && !normals && !normals_f)
		|| !uv_sets || !colors)
		return rki_gltf_oom(g);
	size_t uv_slot[RKI_GLTF_MAX_UV], color_slot[RKI_GLTF_MAX_COLOR];
	size_t j = 0;
	for (size_t i = 0; i < RKI_GLTF_MAX_UV; i++) {
		uv_slot[i] = RKI_GLTF_NONE;
		if (!((uv_mask >> i) & 1u)) continue;
		rk_uv_set *set = &uv_sets[j];
		set->name = rki_gltf_strdup(g, rki_gltf_uv_names[i]);
		void *values = rki_gltf_array_uninit(ar, V, uv_f32[i] ? 2 * sizeof(float) : sizeof(rk_vec2));
		if (!set->name || !values) return rki_gltf_oom(g);
		if (uv_f32[i]) set->uv = (rk_attrib_vec2){ true, NULL, V, vertex_indices, (const float *)values };
		else set->uv = (rk_attrib_vec2){ true, (const rk_vec2 *)values, V, vertex_indices, NULL };
		uv_slot[i] = j++;
	}
	j = 0;
	for (size_t i = 0; i < RKI_GLTF_MAX_COLOR; i++) {
		color_slot[i] = RKI_GLTF_NONE;
		if (!((color_mask >> i) & 1u)) continue;
		void *values = rki_gltf_array_uninit(ar, V, color_f32[i] ? 4 * sizeof(float) : sizeof(rk_vec4));
		if (!values) return rki_gltf_oom(g);
		if (color_f32[i]) colors[j] = (rk_attrib_vec4){ true, NULL, V, vertex_indices, (const float *)values };
		else colors[j] = (rk_attrib_vec4){ true, (const rk_vec4 *)values, V, vertex_indices, NULL };
		color_slot[i] = j++;
	}
	rk_vec3 *tangents = NULL, *bitangents = NULL;
	if (any_tangent) {
		tangents = (rk_vec3 *)rki_gltf_array_uninit(ar, V, sizeof(rk_vec3));
		bitangents = (rk_vec3 *)rki_gltf_array_uninit(ar, V, sizeof(rk_vec3));
		if (!tangents || !bitangents) return rki_gltf_oom(g);
		uv_sets[0].tangent = (rk_attrib_vec3){ true, tangents, V, vertex_indices, NULL };
		uv_sets[0].bitangent = (rk_attrib_vec3){ true, bitangents, V, vertex_indices, NULL };
	}
	mesh->vertex_count = V;
	mesh->positions_f64 = positions;
	mesh->positions_f32 = positions_f;
	mesh->vertex_indices = vertex_indices;
	mesh->faces = faces;
	mesh->face_material = face_material;
	mesh->materials.data = mats;
	mesh->materials.count = P;
	mesh->uv_sets.data = uv_sets;
	mesh->uv_sets.count = uv_count;
	mesh->colors.data = colors;
	mesh->colors.count = color_count;
	if (any_normal) mesh->normals = (rk_attrib_vec3){ true, normals, V, vertex_indices, normals_f };
	mesh->is_gltf_primitive_split = P > 1;

	/* Pass 2: data. */
	for (k = 0; k < P; k++) {
		const rki_gltf_loc *path = RKI_GLTF_IDX(prims_path, k);
		const rki_gltf_prim_src *src = &srcs[k];
		const rki_gltf_prim *pi = &info->prims[k];
		mats[k] = src->material != RKI_GLTF_NONE ? &g->sc.scene->materials.data[src->material] : g->default_material;
		if (!src->triangles) continue;
		size_t vc = pi->vertex_count, vb = pi->vertex_base;
		rki_gltf_accessor acc;
		if (!rki_gltf_open_attribute(g, src->position, path, "POSITION", vc, 3, RKI_GLTF_CT_FLOAT | RKI_GLTF_CT_INT_NORM, &acc)) return false;
		if (positions_f) rki_gltf_accessor_read_f32(&acc, positions_f + 3 * vb);
		else rki_gltf_accessor_read_f64(&acc, &positions[vb].x, acc.normalized);
		if (src->normal != RKI_GLTF_NONE) {
			if (!rki_gltf_open_attribute(g, src->normal, path, "NORMAL", vc, 3,
				RKI_GLTF_CT_FLOAT | RKI_GLTF_CT(RKI_GLTF_BYTE) | RKI_GLTF_CT(RKI_GLTF_SHORT), &acc)) return false;
			if (normals_f) rki_gltf_accessor_read_f32(&acc, normals_f + 3 * vb);
			else rki_gltf_accessor_read_f64(&acc, &normals[vb].x, true);
		} else if (any_normal) {
			rki_gltf_warn(g, path, "primitive has no NORMAL while others of its mesh do: zero normals used");
			if (normals_f) memset(normals_f + 3 * vb, 0, vc * 3 * sizeof(float));
			else memset(normals + vb, 0, vc * sizeof(rk_vec3));
		}
		for (size_t i = 0; i < RKI_GLTF_MAX_UV; i++) {
			if (uv_slot[i] == RKI_GLTF_NONE) continue;
			rk_vec2 *values = (rk_vec2 *)uv_sets[uv_slot[i]].uv.values_f64;
			float *values_f = (float *)uv_sets[uv_slot[i]].uv.values_f32;
			if (src->texcoord[i] == RKI_GLTF_NONE) {
				rki_gltf_warn(g, path, "primitive lacks a TEXCOORD set other primitives of its mesh have: zero UVs used");
				if (values_f) memset(values_f + 2 * vb, 0, vc * 2 * sizeof(float));
				else memset(values + vb, 0, vc * sizeof(rk_vec2));
				continue;
			}
			if (!rki_gltf_open_attribute(g, src->texcoord[i], path, rki_gltf_uv_names[i], vc, 2, RKI_GLTF_CT_FLOAT | RKI_GLTF_CT_INT_NORM, &acc))
				return false;
			if (values_f) rki_gltf_accessor_read_f32(&acc, values_f + 2 * vb);
			else rki_gltf_accessor_read_f64(&acc, &values[vb].x, acc.normalized);
		}
		for (size_t i = 0; i < RKI_GLTF_MAX_COLOR; i++) {
			if (color_slot[i] == RKI_GLTF_NONE) continue;
			const char *name = rki_gltf_color_names[i];
			const rki_gltf_loc *cpath = RKI_GLTF_KEY(RKI_GLTF_KEY(path, "attributes"), name);
			rk_vec4 *values = (rk_vec4 *)colors[color_slot[i]].values_f64;
			float *values_f = (float *)colors[color_slot[i]].values_f32;
			if (src->color[i] == RKI_GLTF_NONE) {
				if (values_f) for (size_t v = 0; v < 4 * vc; v++) values_f[4 * vb + v] = 1.0f;
				else for (size_t v = 0; v < vc; v++) values[vb + v] = (rk_vec4){ 1.0, 1.0, 1.0, 1.0 };
				continue;
			}
			if (!rki_gltf_accessor_open(g, src->color[i], true, &acc)) return false;
			unsigned ct = RKI_GLTF_CT_FLOAT | RKI_GLTF_CT(RKI_GLTF_UNSIGNED_BYTE) | RKI_GLTF_CT(RKI_GLTF_UNSIGNED_SHORT);
			uint32_t comps = acc.components == 3 ? 3 : 4;
			if (!rki_gltf_accessor_expect(g, &acc, cpath, name, comps, false, ct)) return false;
			if (acc.count != vc)
				return rki_gltf_fail(g, RK_ERROR_CORRUPT, cpath, "%s accessor has %zu elements; expected %zu like POSITION", name, acc.count, vc);
			if (values_f && comps == 4) {
				rki_gltf_accessor_read_f32(&acc, values_f + 4 * vb);
			} else if (values_f) {
				float *tmp = (float *)rki_gltf_scratch(g, 0, vc, 3 * sizeof(float));
				if (!tmp) return false;
				rki_gltf_accessor_read_f32(&acc, tmp);
				for (size_t v = 0; v < vc; v++) {
					float *d = values_f + 4 * (vb + v);
					d[0] = tmp[3 * v];
					d[1] = tmp[3 * v + 1];
					d[2] = tmp[3 * v + 2];
					d[3] = 1.0f;
				}
			} else if (comps == 4) {
				rki_gltf_accessor_read_f64(&acc, &values[vb].x, true);
			} else {
				double *tmp = (double *)rki_gltf_scratch(g, 0, vc, 3 * sizeof(double));
				if (!tmp) return false;
				rki_gltf_accessor_read_f64(&acc, tmp, true);
				for (size_t v = 0; v < vc; v++) values[vb + v] = (rk_vec4){ tmp[3 * v], tmp[3 * v + 1], tmp[3 * v + 2], 1.0 };
			}
		}
		if (any_tangent && src->tangent != RKI_GLTF_NONE) {
			if (!rki_gltf_open_attribute(g, src->tangent, path, "TANGENT", vc, 4,
				RKI_GLTF_CT_FLOAT | RKI_GLTF_CT(RKI_GLTF_BYTE) | RKI_GLTF_CT(RKI_GLTF_SHORT), &acc)) return false;
			/* blocks of 256 through a small buffer (sparse accessors whole) */
			size_t B = acc.sparse_count ? vc : 256;
			double *tmp = (double *)rki_gltf_scratch(g, 0, B < vc ? B : vc, 4 * sizeof(double));
			if (!tmp) return false;
			for (size_t v0 = 0; v0 < vc; v0 += B) {
				size_t nb = vc - v0 < B ? vc - v0 : B;
				rki_gltf_accessor_read_f64_range(&acc, v0, nb, tmp, true);
				for (size_t v = 0; v < nb; v++) {
					rk_vec3 t = { tmp[4 * v], tmp[4 * v + 1], tmp[4 * v + 2] };
					double w = tmp[4 * v + 3] < 0.0 ? -1.0 : 1.0;
					tangents[vb + v0 + v] = t;
					/* glTF: bitangent = cross(normal, tangent.xyz) * tangent.w (rk_vec3_cross, rk_vec3_scale) */
					size_t nvi = vb + v0 + v;
					rk_vec3 nv = normals_f ? (rk_vec3){ normals_f[3 * nvi], normals_f[3 * nvi + 1], normals_f[3 * nvi + 2] } : normals[nvi];
					bitangents[vb + v0 + v] = (rk_vec3){ (nv.y * t.z - nv.z * t.y) * w, (nv.z * t.x - nv.x * t.z) * w, (nv.x * t.y - nv.y * t.x) * w };
				}
			}
		} else if (any_tangent) {
			memset(tangents + vb, 0, vc * sizeof(rk_vec3));
			memset(bitangents + vb, 0, vc * sizeof(rk_vec3));
		}
		if (!rki_gltf_prim_triangles(g, src, pi, path, (uint32_t)k, mesh, vertex_indices, faces, face_material)) return false;
	}
	mesh->triangle_count_hint = mesh->face_count;

	/* Morph targets. */
	size_t K = info->target_count;
	if (K > 0) {
		rk_blend_channel *chans = (rk_blend_channel *)rki_arena_array(ar, K, sizeof(rk_blend_channel));
		if (!chans) return rki_gltf_oom(g);
		const rki_json *extras, *names = NULL;
		const rki_gltf_loc *epath = RKI_GLTF_KEY(base, "extras");
		if (!rki_gltf_object(g, obj, base, "extras", &extras)) return false;
		if (extras) {
			names = rki_gltf_member(extras, "targetNames");
			if (names && names->type != RKI_JSON_ARRAY) {
				rki_gltf_warn(g, epath, "extras.targetNames is not an array: ignored");
				names = NULL;
			}
		}
		double *defaults = (double *)rki_gltf_scratch(g, 1, K, sizeof(double));
		if (!defaults) return false;
		bool present = false;
		memset(defaults, 0, K * sizeof(double));
		const rki_json *w = rki_gltf_member(obj, "weights");
		if (w && w->type == RKI_JSON_ARRAY && w->len != K) {
			rki_gltf_warn(g, base, "mesh.weights length differs from the number of morph targets: ignored");
		} else if (!rki_gltf_numbers(g, obj, base, "weights", K, defaults, &present)) {
			return false;
		}
		size_t work;
		if (!rki_mul_size(K, V, &work) || work > g->sc.opts.max_elements)
			return rki_gltf_fail(g, RK_ERROR_LIMIT, base, "%zu morph targets x %zu vertices is over the max_elements limit %zu",
				K, V, g->sc.opts.max_elements);
		for (k = 0; k < K; k++) {
			const rki_json *name = names && k < names->len ? &names->u.items[k] : NULL;
			if (!rki_gltf_morph_channel(g, m, srcs, base, k, any_target_normal, mesh, &chans[k], name)) return false;
			chans[k].default_weight = defaults[k];
		}
		mesh->blend_channels.data = chans;
		mesh->blend_channels.count = K;
	}
	return true;
}

bool rki_gltf_load_meshes(rki_gltf *g)
{
	if (g->sc.opts.ignore_geometry) return true;
	rk_scene *s = g->sc.scene;
	rk_mesh *meshes = (rk_mesh *)rki_arena_array(g->sc.arena, g->meshes.count, sizeof(rk_mesh));
	if (!meshes) return rki_gltf_oom(g);
	s->meshes.data = meshes;
	s->meshes.count = g->meshes.count;
	for (size_t m = 0; m < g->meshes.count; m++) {
		if (!rki_gltf_load_mesh(g, m, &meshes[m])) return false;
		rki_gltf_views_release(g);
	}
	return true;
}
