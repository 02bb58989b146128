/* src/formats/gltf/gltf_material.c - images, samplers, textures and materials of the
 * glTF reader. Images are never decoded: rk_texture keeps the bytes (GLB
 * bufferView or data: URI) or the file name. */
#include "gltf_internal.h"

#include <stdio.h>
#include <string.h>

/* What an image resolves to, shared by the textures that use it. */
typedef struct rki_gltf_image {
	bool done;
	const char *filename;
	const char *resolved_path;
	const unsigned char *content;
	size_t content_size;
	const char *mime_type;
} rki_gltf_image;

static const char *rki_gltf_sniff_mime(const unsigned char *p, size_t n)
{
	if (n >= 8 && memcmp(p, "\x89PNG\r\n\x1a\n", 8) == 0) return "image/png";
	if (n >= 3 && p[0] == 0xFF && p[1] == 0xD8 && p[2] == 0xFF) return "image/jpeg";
	if (n >= 12 && memcmp(p, "RIFF", 4) == 0 && memcmp(p + 8, "WEBP", 4) == 0) return "image/webp";
	if (n >= 12 && memcmp(p, "\xABKTX 20\xBB\r\n\x1a\n", 12) == 0) return "image/ktx2";
	return "";
}

static const char *rki_gltf_mime_from_name(const char *name)
{
	const char *dot = strrchr(name, '.');
	if (!dot) return "";
	char ext[8];
	size_t n = 0;
	for (const char *s = dot + 1; *s && n + 1 < sizeof(ext); s++)
		ext[n++] = (char)((*s >= 'A' && *s <= 'Z') ? *s - 'A' + 'a' : *s);
	ext[n] = '\0';
	if (strcmp(ext, "png") == 0) return "image/png";
	if (strcmp(ext, "jpg") == 0 || strcmp(ext, "jpeg") == 0) return "image/jpeg";
	if (strcmp(ext, "webp") == 0) return "image/webp";
	if (strcmp(ext, "ktx2") == 0) return "image/ktx2";
	return "";
}

/* Embedded WebP (EXT_texture_webp) and KTX2 (KHR_texture_basisu) bytes are
 * not decoded here, but a payload that cannot be one is named now: a
 * warning (a texture never makes geometry unreadable), the image's JSON
 * pointer. WebP: "RIFF" size "WEBP", the RIFF size within the bytes. */
static void rki_gltf_check_image(rki_gltf *g, const rki_gltf_loc *base, size_t i, const rki_gltf_image *img)
{
	const unsigned char *p = img->content;
	size_t n = img->content_size;
	if (!p || !img->mime_type) return;
	if (strcmp(img->mime_type, "image/webp") == 0) {
		if (n < 12 || memcmp(p, "RIFF", 4) != 0 || memcmp(p + 8, "WEBP", 4) != 0)
			rki_gltf_warn(g, base, "image %zu: declared image/webp, but its %zu bytes do not start as a WebP file (RIFF ... WEBP): it will not decode", i, n);
		else if ((uint64_t)rki_le32(p + 4) + 8u > (uint64_t)n)
			rki_gltf_warn(g, base, "image %zu: truncated WebP: its RIFF header says %llu bytes, the image has %zu: it will not decode", i,
				(unsigned long long)rki_le32(p + 4) + 8u, n);
	} else if (strcmp(img->mime_type, "image/ktx2") == 0) {
		if (n < 12 || memcmp(p, "\xABKTX 20\xBB\r\n\x1a\n", 12) != 0)
			rki_gltf_warn(g, base, "image %zu: declared image/ktx2, but its %zu bytes do not start with the KTX2 identifier", i, n);
	}
}

static bool rki_gltf_resolve_image(rki_gltf *g, size_t i, rki_gltf_image *img)
{
	const rki_gltf_loc *base = RKI_GLTF_IDX(RKI_GLTF_KEY(NULL, "images"), i), *upath = RKI_GLTF_KEY(base, "uri");
	const rki_json *obj = &g->images.items[i], *uri, *mime;
	size_t view;
	if (!rki_gltf_string(g, obj, base, "uri", &uri)) return false;
	if (!rki_gltf_string(g, obj, base, "mimeType", &mime)) return false;
	if (!rki_gltf_index(g, obj, base, "bufferView", g->buffer_views.count, "bufferViews", false, &view)) return false;
	img->done = true;
	img->filename = "";
	img->mime_type = "";
	if (view != RKI_GLTF_NONE) {
		if (uri) rki_gltf_warn(g, base, "image has both uri and bufferView: the bufferView is used");
		const rki_gltf_view *v = &g->views[view];
		/* a streamed view is read straight into the copy */
		bool have = v->data || (v->streamed && v->length > 0);
		const unsigned char *bytes = v->data;
		if (!g->sc.opts.no_embedded_content && v->length > 0 && have) {
			unsigned char *copy = (unsigned char *)rki_arena_alloc_uninit(g->sc.arena, v->length);
			if (!copy) return rki_gltf_oom(g);
			if (v->data) {
				memcpy(copy, v->data, v->length);
			} else {
				char what[64];
				snprintf(what, sizeof(what), "bufferView %zu", view);
				if (!rki_gltf_stream_read(g, v->file_offset, copy, v->length, what)) return false;
			}
			img->content = bytes = copy;
			img->content_size = v->length;
		} else if (!v->data && v->streamed && !mime) {
			if (!rki_gltf_view_data(g, view, &bytes)) return false;  /* for its signature only */
		}
		img->mime_type = mime ? rki_gltf_json_strdup(g, g->sc.arena, mime) : (bytes ? rki_gltf_sniff_mime(bytes, v->length) : "");
		rki_gltf_check_image(g, base, i, img);
		return img->mime_type != NULL;
	}
	if (!uri) {
		rki_gltf_warn(g, base, "image has neither uri nor bufferView");
		return true;
	}
	if (rki_gltf_is_data_uri(uri->u.text, uri->len)) {
		const char *uri_mime = "";
		if (!g->sc.opts.no_embedded_content) {
			unsigned char *data;
			size_t size;
			if (!rki_gltf_decode_data_uri(g, g->sc.arena, uri->u.text, uri->len, upath, &data, &size, &uri_mime)) return false;
			img->content = data;
			img->content_size = size;
			if (!uri_mime[0]) uri_mime = rki_gltf_sniff_mime(data, size);
		}
		img->mime_type = mime ? rki_gltf_json_strdup(g, g->sc.arena, mime) : uri_mime;
		rki_gltf_check_image(g, base, i, img);
		return img->mime_type != NULL;
	}
	rki_file_result res;
	if (!rki_gltf_open_uri(g, uri, upath, false, g->sc.arena, &res)) return false;
	img->filename = res.reference;
	img->mime_type = mime ? rki_gltf_json_strdup(g, g->sc.arena, mime) : rki_gltf_mime_from_name(res.reference);
	if (!img->mime_type) return false;
	if (res.status == RKI_FILE_OK) {
		img->resolved_path = res.path;
		/* served by rk_load_opts.open_file: the bytes come with the scene */
		if (res.data && !g->sc.opts.no_embedded_content) {
			img->content = res.data;
			img->content_size = res.size;
		}
	} else if (res.status != RKI_FILE_MISSING) {
		rki_gltf_warn(g, upath, "image %zu: %s", i, res.why);
	}
	return true;
}

static rk_wrap rki_gltf_wrap(rki_gltf *g, const rki_json *sampler, const rki_gltf_loc *base, const char *key, bool *ok)
{
	size_t mode;
	*ok = rki_gltf_uint(g, sampler, base, key, 10497, 1u << 20, false, &mode);
	switch (mode) {
	case 10497: return RK_WRAP_REPEAT;
	case 33071: return RK_WRAP_CLAMP;
	case 33648: return RK_WRAP_MIRROR;
	default:
		rki_gltf_warn(g, RKI_GLTF_KEY(base, key), "unknown sampler wrap mode (expected 10497, 33071 or 33648): REPEAT used");
		return RK_WRAP_REPEAT;
	}
}

bool rki_gltf_load_textures(rki_gltf *g)
{
	rk_scene *s = g->sc.scene;
	size_t n = g->textures.count;
	rk_texture *tex = (rk_texture *)rki_arena_array(g->sc.arena, n, sizeof(rk_texture));
	rki_gltf_image *images = (rki_gltf_image *)rki_arena_array(&g->sc.tmp, g->images.count, sizeof(rki_gltf_image));
	if (!tex || !images) return rki_gltf_oom(g);
	s->textures.data = tex;
	s->textures.count = n;
	for (size_t t = 0; t < n; t++) {
		const rki_gltf_loc *base = RKI_GLTF_IDX(RKI_GLTF_KEY(NULL, "textures"), t);
		const rki_json *obj = &g->textures.items[t], *name;
		size_t sampler, source;
		if (!rki_gltf_index(g, obj, base, "sampler", g->samplers.count, "samplers", false, &sampler)) return false;
		if (!rki_gltf_index(g, obj, base, "source", g->images.count, "images", false, &source)) return false;
		if (source == RKI_GLTF_NONE) {
			/* Image formats added by extensions keep their source there. */
			static const char *const ext_names[] = { "EXT_texture_webp", "KHR_texture_basisu", "MSFT_texture_dds", "EXT_texture_avif" };
			const rki_json *exts;
			const rki_gltf_loc *epath = RKI_GLTF_KEY(base, "extensions");
			if (!rki_gltf_object(g, obj, base, "extensions", &exts)) return false;
			for (size_t e = 0; exts && e < sizeof(ext_names) / sizeof(ext_names[0]) && source == RKI_GLTF_NONE; e++) {
				const rki_json *ext;
				if (!rki_gltf_object(g, exts, epath, ext_names[e], &ext)) return false;
				if (ext && !rki_gltf_index(g, ext, RKI_GLTF_KEY(epath, ext_names[e]), "source", g->images.count, "images", false, &source)) return false;
			}
			if (source == RKI_GLTF_NONE) rki_gltf_warn(g, base, "texture has no image source");
		}
		rk_texture *x = &tex[t];
		x->index = (uint32_t)t;
		x->filename = "";
		x->mime_type = "";
		x->wrap_u = x->wrap_v = RK_WRAP_REPEAT;
		if (sampler != RKI_GLTF_NONE) {
			const rki_gltf_loc *spath = RKI_GLTF_IDX(RKI_GLTF_KEY(NULL, "samplers"), sampler);
			bool ok_u, ok_v;
			x->wrap_u = rki_gltf_wrap(g, &g->samplers.items[sampler], spath, "wrapS", &ok_u);
			x->wrap_v = rki_gltf_wrap(g, &g->samplers.items[sampler], spath, "wrapT", &ok_v);
			if (!ok_u || !ok_v) return false;
			size_t mag, min;
			if (!rki_gltf_uint(g, &g->samplers.items[sampler], spath, "magFilter", 0, 1u << 16, false, &mag)
				|| !rki_gltf_uint(g, &g->samplers.items[sampler], spath, "minFilter", 0, 1u << 16, false, &min))
				return false;
			x->mag_filter = (mag == 9728 || mag == 9729) ? (uint32_t)mag : 0;
			x->min_filter = (min == 9728 || min == 9729 || (min >= 9984 && min <= 9987)) ? (uint32_t)min : 0;
			if ((mag && !x->mag_filter) || (min && !x->min_filter))
				rki_gltf_warn(g, spath, "unknown sampler filter: left unset");
		}
		if (!rki_gltf_string(g, obj, base, "name", &name)) return false;
		x->image_name = "";
		if (source != RKI_GLTF_NONE) {
			const rki_json *iname;
			if (!rki_gltf_string(g, &g->images.items[source], RKI_GLTF_IDX(RKI_GLTF_KEY(NULL, "images"), source), "name", &iname))
				return false;
			if (!(x->image_name = rki_gltf_json_strdup(g, g->sc.arena, iname))) return false;
			rki_gltf_image *img = &images[source];
			if (!img->done && !rki_gltf_resolve_image(g, source, img)) return false;
			rki_gltf_views_release(g);
			x->filename = img->filename;
			x->resolved_path = img->resolved_path;
			x->content = img->content;
			x->content_size = img->content_size;
			x->mime_type = img->mime_type;
			if (strcmp(img->mime_type, "image/ktx2") == 0)
				rki_gltf_warn(g, base, "texture %zu: its KTX2 image (KHR_texture_basisu) is kept as encoded bytes and written back "
					"unchanged, not decoded (rigkit has no Basis Universal decoder: the renderer shows the material without it)", t);
		}
		x->name = rki_gltf_json_strdup(g, g->sc.arena, name);
		if (!x->name) return false;
	}
	return true;
}

/* ---- materials --------------------------------------------------------------------- */

static bool rki_gltf_texture_ref(rki_gltf *g, const rki_json *parent, const rki_gltf_loc *parent_path, const char *key, rk_texture_ref *ref)
{
	const rki_json *info;
	const rki_gltf_loc *base = RKI_GLTF_KEY(parent_path, key);
	ref->scale = (rk_vec2){ 1.0, 1.0 };
	ref->uv_set = "";
	if (!rki_gltf_object(g, parent, parent_path, key, &info)) return false;
	if (!info) return true;
	size_t index, texcoord;
	if (!rki_gltf_index(g, info, base, "index", g->textures.count, "textures", true, &index)) return false;
	if (!rki_gltf_uint(g, info, base, "texCoord", 0, 1u << 16, false, &texcoord)) return false;
	const rki_json *exts, *tt = NULL;
	const rki_gltf_loc *epath = RKI_GLTF_KEY(base, "extensions"), *tpath = RKI_GLTF_KEY(epath, "KHR_texture_transform");
	if (!rki_gltf_object(g, info, base, "extensions", &exts)) return false;
	if (exts && !rki_gltf_object(g, exts, epath, "KHR_texture_transform", &tt)) return false;
	if (tt) {
		double v[2];
		bool present;
		ref->has_transform = true;
		if (!rki_gltf_numbers(g, tt, tpath, "offset", 2, v, &present)) return false;
		if (present) ref->offset = (rk_vec2){ v[0], v[1] };
		if (!rki_gltf_numbers(g, tt, tpath, "scale", 2, v, &present)) return false;
		if (present) ref->scale = (rk_vec2){ v[0], v[1] };
		if (!rki_gltf_number(g, tt, tpath, "rotation", 0.0, &ref->rotation)) return false;
		if (!rki_gltf_uint(g, tt, tpath, "texCoord", texcoord, 1u << 16, false, &texcoord)) return false;
	}
	char set[32];
	snprintf(set, sizeof(set), "TEXCOORD_%zu", texcoord);
	ref->uv_set = rki_gltf_strdup(g, set);
	if (!ref->uv_set) return false;
	ref->texture = &g->sc.scene->textures.data[index];
	ref->texcoord = (uint32_t)texcoord;
	return true;
}

static void rki_gltf_material_defaults(rk_material *m)
{
	m->shading_model = "pbrMetallicRoughness";
	m->base_color = (rk_vec4){ 1.0, 1.0, 1.0, 1.0 };
	m->metallic = 1.0;
	m->roughness = 1.0;
	m->alpha_mode = RK_ALPHA_OPAQUE;
	m->alpha_cutoff = 0.5;
	m->normal_scale = 1.0;
	m->occlusion_strength = 1.0;
	rk_texture_ref *refs[] = { &m->base_color_texture, &m->metallic_roughness_texture, &m->normal_texture, &m->emissive_texture,
		&m->occlusion_texture };
	for (size_t i = 0; i < sizeof(refs) / sizeof(refs[0]); i++) {
		refs[i]->uv_set = "";
		refs[i]->scale = (rk_vec2){ 1.0, 1.0 };
	}
}

static bool rki_gltf_load_material(rki_gltf *g, size_t i, rk_material *m)
{
	const rki_gltf_loc *base = RKI_GLTF_IDX(RKI_GLTF_KEY(NULL, "materials"), i), *ppath = RKI_GLTF_KEY(base, "pbrMetallicRoughness");
	const rki_json *obj = &g->materials.items[i], *pbr, *exts;
	m->index = (uint32_t)i;
	rki_gltf_material_defaults(m);
	if (!(m->name = rki_gltf_name(g, obj, base))) return false;
	if (!rki_gltf_object(g, obj, base, "pbrMetallicRoughness", &pbr)) return false;
	if (pbr) {
		double c[4];
		bool present;
		if (!rki_gltf_numbers(g, pbr, ppath, "baseColorFactor", 4, c, &present)) return false;
		if (present) m->base_color = (rk_vec4){ c[0], c[1], c[2], c[3] };
		if (!rki_gltf_number(g, pbr, ppath, "metallicFactor", 1.0, &m->metallic)) return false;
		if (!rki_gltf_number(g, pbr, ppath, "roughnessFactor", 1.0, &m->roughness)) return false;
		if (!rki_gltf_texture_ref(g, pbr, ppath, "baseColorTexture", &m->base_color_texture)) return false;
		if (!rki_gltf_texture_ref(g, pbr, ppath, "metallicRoughnessTexture", &m->metallic_roughness_texture)) return false;
	}
	if (!rki_gltf_texture_ref(g, obj, base, "normalTexture", &m->normal_texture)) return false;
	if (!rki_gltf_texture_ref(g, obj, base, "emissiveTexture", &m->emissive_texture)) return false;
	if (!rki_gltf_texture_ref(g, obj, base, "occlusionTexture", &m->occlusion_texture)) return false;
	const rki_json *info = rki_gltf_member(obj, "normalTexture");
	if (rki_json_is(info, RKI_JSON_OBJECT) && !rki_gltf_number(g, info, RKI_GLTF_KEY(base, "normalTexture"), "scale", 1.0, &m->normal_scale))
		return false;
	info = rki_gltf_member(obj, "occlusionTexture");
	if (rki_json_is(info, RKI_JSON_OBJECT)
		&& !rki_gltf_number(g, info, RKI_GLTF_KEY(base, "occlusionTexture"), "strength", 1.0, &m->occlusion_strength))
		return false;
	double e[3];
	bool present;
	if (!rki_gltf_numbers(g, obj, base, "emissiveFactor", 3, e, &present)) return false;
	if (present) m->emissive = (rk_vec3){ e[0], e[1], e[2] };
	const rki_json *alpha;
	if (!rki_gltf_string(g, obj, base, "alphaMode", &alpha)) return false;
	if (alpha) {
		if (rki_json_eq(alpha, "OPAQUE")) m->alpha_mode = RK_ALPHA_OPAQUE;
		else if (rki_json_eq(alpha, "MASK")) m->alpha_mode = RK_ALPHA_MASK;
		else if (rki_json_eq(alpha, "BLEND")) m->alpha_mode = RK_ALPHA_BLEND;
		else rki_gltf_warn(g, RKI_GLTF_KEY(base, "alphaMode"), "unknown alphaMode (expected OPAQUE, MASK or BLEND): OPAQUE used");
	}
	if (!rki_gltf_number(g, obj, base, "alphaCutoff", 0.5, &m->alpha_cutoff)) return false;
	if (!rki_gltf_bool(g, obj, base, "doubleSided", false, &m->double_sided)) return false;
	if (!rki_gltf_object(g, obj, base, "extensions", &exts)) return false;
	if (exts && rki_gltf_member(exts, "KHR_materials_unlit")) m->unlit = true;
	return true;
}

/* Whether some primitive of some mesh has no material. */
static bool rki_gltf_needs_default_material(rki_gltf *g)
{
	if (g->sc.opts.ignore_geometry) return false;
	for (size_t i = 0; i < g->meshes.count; i++) {
		const rki_json *prims = rki_gltf_member(&g->meshes.items[i], "primitives");
		if (!rki_json_is(prims, RKI_JSON_ARRAY)) continue;
		for (size_t k = 0; k < prims->len; k++)
			if (!rki_gltf_member(&prims->u.items[k], "material")) return true;
	}
	return false;
}

bool rki_gltf_load_materials(rki_gltf *g)
{
	rk_scene *s = g->sc.scene;
	size_t n = g->materials.count, total = n;
	bool need_default = rki_gltf_needs_default_material(g);
	if (need_default) total++;
	rk_material *mats = (rk_material *)rki_arena_array(g->sc.arena, total, sizeof(rk_material));
	if (!mats) return rki_gltf_oom(g);
	s->materials.data = mats;
	s->materials.count = total;
	for (size_t i = 0; i < n; i++)
		if (!rki_gltf_load_material(g, i, &mats[i])) return false;
	if (need_default) {
		rk_material *m = &mats[n];
		m->index = (uint32_t)n;
		m->name = "default";
		rki_gltf_material_defaults(m);
		g->default_material = m;
	}
	return true;
}
