/* src/formats/gltf/gltf_draco.c - KHR_draco_mesh_compression primitives of the
 * glTF reader.
 *
 * A compressed primitive names a bufferView holding a Draco stream and maps
 * its attribute names to Draco attribute ids; its accessors (POSITION ...,
 * indices) declare count, type and componentType and usually no bufferView.
 * Before the mesh pass each such stream is decoded once (libdraco through
 * gltf_draco_shim.cpp) and converted to each accessor's own component type,
 * tightly packed, into g->acc_data[accessor]: rki_gltf_accessor_open then
 * reads those bytes instead of a bufferView, so the mesh pass, its checks and
 * KHR_mesh_quantization rules are the same for compressed and plain data.
 *
 * Checked against the accessors before anything is copied: the stream is a
 * triangle mesh with as many points as every attribute accessor's count and
 * 3 x faces == the indices accessor's count, point indices fit the indices'
 * component type; each Draco attribute exists and its values decode. Any
 * failure is RK_ERROR_CORRUPT naming the primitive's extension object (JSON
 * pointer), the bufferView and the accessor. */
#include "gltf_internal.h"

#if RKI_GLTF_HAVE_DRACO
#include "gltf_draco.h"
#endif

#include <stdio.h>
#include <string.h>

#if RKI_GLTF_HAVE_DRACO

/* The indices accessor of a decoded primitive. */
static bool rki_gltf_draco_indices(rki_gltf *g, const rki_draco_mesh *dm, size_t index, const rki_gltf_loc *ipath)
{
	rki_gltf_accessor a;
	if (!rki_gltf_accessor_open(g, index, false, &a)) return false;
	if (!rki_gltf_accessor_expect(g, &a, ipath, "indices", 1, false, RKI_GLTF_CT_UNSIGNED)) return false;
	size_t faces = rki_draco_face_count(dm), points = rki_draco_point_count(dm);
	if (a.count != 3 * faces)
		return rki_gltf_fail(g, RK_ERROR_CORRUPT, ipath, "indices accessor %zu has count %zu; the Draco stream has %zu triangles (%zu indices)",
			index, a.count, faces, 3 * faces);
	size_t max = a.component_type == RKI_GLTF_UNSIGNED_BYTE ? 256 : a.component_type == RKI_GLTF_UNSIGNED_SHORT ? 65536 : (size_t)UINT32_MAX + 1u;
	if (points > max)
		return rki_gltf_fail(g, RK_ERROR_CORRUPT, ipath, "indices accessor %zu is %s but the Draco stream has %zu points",
			index, rki_gltf_ctype_name(a.component_type), points);
	uint32_t *idx = (uint32_t *)rki_gltf_scratch(g, 0, a.count ? a.count : 1, sizeof(uint32_t));
	unsigned char *out = (unsigned char *)rki_gltf_array_uninit(&g->sc.tmp, a.count ? a.count : 1, a.comp_size);
	if (!idx) return false;
	if (!out) return rki_gltf_oom(g);
	rki_draco_indices(dm, idx);
	for (size_t i = 0; i < a.count; i++) {
		if (idx[i] >= points)
			return rki_gltf_fail(g, RK_ERROR_CORRUPT, ipath, "Draco index %zu is %u; the stream has %zu points", i, (unsigned)idx[i], points);
		if (a.comp_size == 1) out[i] = (unsigned char)idx[i];
		else if (a.comp_size == 2) {
			out[2 * i] = (unsigned char)(idx[i] & 0xffu);
			out[2 * i + 1] = (unsigned char)(idx[i] >> 8);
		} else {
			for (int b = 0; b < 4; b++) out[4 * i + (size_t)b] = (unsigned char)(idx[i] >> (8 * b));
		}
	}
	g->acc_data[index] = out;
	return true;
}

/* One attribute: Draco id `id` into accessor `index`. */
static bool rki_gltf_draco_attribute(rki_gltf *g, const rki_draco_mesh *dm, size_t index, size_t id, const rki_gltf_loc *apath,
	const char *name, size_t name_len)
{
	rki_gltf_accessor a;
	if (!rki_gltf_accessor_open(g, index, true, &a)) return false;
	size_t points = rki_draco_point_count(dm);
	if (a.matrix)
		return rki_gltf_fail(g, RK_ERROR_CORRUPT, apath, "accessor %zu of Draco attribute %.*s is a matrix", index, (int)name_len, name);
	if (a.count != points)
		return rki_gltf_fail(g, RK_ERROR_CORRUPT, apath, "accessor %zu of attribute %.*s has count %zu; the Draco stream has %zu points",
			index, (int)name_len, name, a.count, points);
	size_t bytes;
	if (!rki_mul_size(points, a.elem_size, &bytes)) return rki_gltf_oom(g);
	unsigned char *out = (unsigned char *)rki_arena_alloc_uninit(&g->sc.tmp, bytes ? bytes : 1);
	if (!out) return rki_gltf_oom(g);
	uint32_t have = 0;
	int rc = rki_draco_attribute(dm, (uint32_t)id, a.component_type, a.components, out, &have);
	if (rc == RKI_DRACO_NO_ATTRIBUTE)
		return rki_gltf_fail(g, RK_ERROR_CORRUPT, apath, "attribute %.*s: the Draco stream has no attribute with id %zu", (int)name_len, name, id);
	if (rc != RKI_DRACO_OK)
		return rki_gltf_fail(g, RK_ERROR_CORRUPT, apath, "attribute %.*s (Draco id %zu, %u components): its values do not convert to accessor %zu (%s x %u)",
			(int)name_len, name, id, (unsigned)have, index, rki_gltf_ctype_name(a.component_type), (unsigned)a.components);
	if (have < a.components)
		rki_gltf_warn(g, apath, "Draco attribute %.*s has %u components; accessor %zu has %u: the rest read as 0", (int)name_len, name,
			(unsigned)have, index, (unsigned)a.components);
	g->acc_data[index] = out;
	return true;
}

static bool rki_gltf_draco_prim(rki_gltf *g, const rki_json *p, const rki_gltf_loc *path, const rki_json *ext, const rki_gltf_loc *epath)
{
	size_t view, mode, indices;
	const rki_json *dattrs, *attrs;
	const rki_gltf_loc *dpath = RKI_GLTF_KEY(epath, "attributes");
	if (!rki_gltf_index(g, ext, epath, "bufferView", g->buffer_views.count, "bufferViews", true, &view)) return false;
	if (!rki_gltf_object(g, ext, epath, "attributes", &dattrs)) return false;
	if (!dattrs) return rki_gltf_fail(g, RK_ERROR_CORRUPT, dpath, "KHR_draco_mesh_compression needs an \"attributes\" object");
	if (!rki_gltf_uint(g, p, path, "mode", 4, 1000, false, &mode)) return false;
	if (mode != 4)
		return rki_gltf_fail_key(g, RK_ERROR_UNSUPPORTED, path, "mode", "a Draco-compressed primitive of mode %zu (rigkit decodes TRIANGLES, mode 4)", mode);
	if (!rki_gltf_index(g, p, path, "indices", g->accessors.count, "accessors", false, &indices)) return false;
	if (!rki_gltf_object(g, p, path, "attributes", &attrs)) return false;
	if (!attrs) return rki_gltf_fail(g, RK_ERROR_CORRUPT, RKI_GLTF_KEY(path, "attributes"), "primitive needs an \"attributes\" object");
	const rki_gltf_view *v = &g->views[view];
	const unsigned char *vdata;
	if (!rki_gltf_view_data(g, view, &vdata)) return false;
	if (!vdata)
		return rki_gltf_fail_key(g, RK_ERROR_IO, epath, "bufferView", "Draco stream in bufferView %zu, whose buffer was not read (see the warnings)", view);
	char msg[200];
	rki_draco_mesh *dm = rki_draco_decode(vdata, v->length, msg, sizeof(msg));
	if (!dm)
		return rki_gltf_fail_key(g, RK_ERROR_CORRUPT, epath, "bufferView", "bufferView %zu (%zu bytes): %s", view, v->length, msg);
	bool ok = true;
	if (indices != RKI_GLTF_NONE) ok = rki_gltf_draco_indices(g, dm, indices, RKI_GLTF_KEY(path, "indices"));
	else ok = rki_gltf_fail_key(g, RK_ERROR_CORRUPT, path, "indices", "a Draco-compressed primitive needs an indices accessor");
	for (size_t i = 0; ok && i < dattrs->len; i++) {
		const rki_json_member *m = &dattrs->u.members[i];
		const rki_gltf_loc *mpath = RKI_GLTF_MEMBER(dpath, m->key, m->value.key_len);
		size_t id, acc;
		if (!rki_gltf_index_value(g, &m->value, mpath, (size_t)UINT32_MAX, "Draco attribute ids", &id)) {
			ok = false;
			break;
		}
		const rki_json *target = rki_json_get_n(attrs, m->key, m->value.key_len);
		if (!target) {
			rki_gltf_warn(g, mpath, "Draco attribute %.*s is not among the primitive's attributes: ignored", (int)m->value.key_len, m->key);
			continue;
		}
		const rki_gltf_loc *tpath = RKI_GLTF_MEMBER(RKI_GLTF_KEY(path, "attributes"), m->key, m->value.key_len);
		if (!rki_gltf_index_value(g, target, tpath, g->accessors.count, "accessors", &acc)) {
			ok = false;
			break;
		}
		ok = rki_gltf_draco_attribute(g, dm, acc, id, mpath, m->key, m->value.key_len);
	}
	rki_draco_free(dm);
	return ok;
}

#endif

bool rki_gltf_decode_draco(rki_gltf *g)
{
	if (g->sc.opts.ignore_geometry) return true;
	for (size_t m = 0; m < g->meshes.count; m++) {
		const rki_gltf_loc *ppath = RKI_GLTF_KEY(RKI_GLTF_IDX(RKI_GLTF_KEY(NULL, "meshes"), m), "primitives");
		const rki_json *prims = rki_gltf_member(&g->meshes.items[m], "primitives");
		for (size_t k = 0; rki_json_is(prims, RKI_JSON_ARRAY) && k < prims->len; k++) {
			const rki_json *p = &prims->u.items[k], *exts, *ext = NULL;
			const rki_gltf_loc *path = RKI_GLTF_IDX(ppath, k), *xpath = RKI_GLTF_KEY(path, "extensions");
			if (p->type != RKI_JSON_OBJECT) continue;  /* the mesh pass reports it */
			if (!rki_gltf_object(g, p, path, "extensions", &exts)) return false;
			if (exts && !rki_gltf_object(g, exts, xpath, "KHR_draco_mesh_compression", &ext)) return false;
			if (!ext) continue;
#if RKI_GLTF_HAVE_DRACO
			if (!g->acc_data) {
				g->acc_data = (const unsigned char **)rki_arena_array(&g->sc.tmp, g->accessors.count, sizeof(*g->acc_data));
				if (!g->acc_data) return rki_gltf_oom(g);
			}
			if (!rki_gltf_draco_prim(g, p, path, ext, RKI_GLTF_KEY(xpath, "KHR_draco_mesh_compression"))) return false;
			rki_gltf_views_release(g);
#else
			rki_gltf_warn(g, RKI_GLTF_KEY(xpath, "KHR_draco_mesh_compression"),
				"this build has no Draco decoder: the primitive's uncompressed fallback (if any) is read");
#endif
		}
	}
	return true;
}
