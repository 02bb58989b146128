/*
 * src/export/gltf/gltf_write.c - glTF 2.0 / GLB writer, the orchestrator: entry
 * points, the run, space, textures, materials, assembly. It calls down into
 * gltf_write_node.c, gltf_write_mesh.c, gltf_write_anim.c and
 * gltf_write_buffer.c, none of which call back (gltf_write_internal.h).
 *
 * The behaviour (spaces, skins, animation baking, what is written) is
 * documented in include/rigkit/export.h; the order of the passes is in
 * rki_gw_run() below.
 */
#include "export/gltf/gltf_write_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RKI_GW_DEFAULT_MEMORY_LIMIT RKI_DEFAULT_MEMORY_LIMIT

/* ---- space ------------------------------------------------------------------------ */

static bool rki_gw_is_identity(rk_mat4 m)
{
	return rk_mat4_max_diff(m, rk_mat4_identity()) <= 1e-12;
}

static void rki_gw_compute_space(rki_gw *w)
{
	const rk_scene *s = w->scene;
	w->conversion = rk_mat4_identity();
	if (!w->opts.keep_space) {
		rk_axes axes = s->settings.axes;
		if (rk_axes_valid(axes))
			w->conversion = rk_axes_conversion(axes, RK_AXES_RIGHT_HANDED_Y_UP);
		double u = s->settings.unit_meters;
		if (!(u > 0.0) || !isfinite(u)) u = 1.0;
		if (u != 1.0) w->conversion = rk_mat4_mul(rk_mat4_scaling((rk_vec3){ u, u, u }), w->conversion);
	}
	w->root_matrix = rk_mat4_mul(w->conversion, s->root->node_to_parent);
	w->write_root = !rki_gw_is_identity(w->root_matrix);
	w->gltf_input = s->settings.format == RK_FORMAT_GLTF || s->settings.format == RK_FORMAT_GLB;
	w->flip_v = !w->gltf_input;
}

/* ---- textures and materials --------------------------------------------------------- */

static const char *rki_gw_image_mime(const unsigned char *p, size_t n)
{
	static const unsigned char png[8] = { 0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A };
	if (n >= 8 && memcmp(p, png, 8) == 0) return "image/png";
	if (n >= 3 && p[0] == 0xFF && p[1] == 0xD8 && p[2] == 0xFF) return "image/jpeg";
	/* written back as read, through their extensions (rki_gw_image_ext) */
	if (n >= 12 && memcmp(p, "RIFF", 4) == 0 && memcmp(p + 8, "WEBP", 4) == 0) return "image/webp";
	if (n >= 12 && memcmp(p, "\xABKTX 20\xBB\r\n\x1a\n", 12) == 0) return "image/ktx2";
	return NULL;
}

/* The texture extension that carries an image of this type as its source
 * (WebP: EXT_texture_webp, KTX2: KHR_texture_basisu), NULL for PNG/JPEG. */
static const char *rki_gw_image_ext(const char *mime)
{
	if (strcmp(mime, "image/webp") == 0) return "EXT_texture_webp";
	if (strcmp(mime, "image/ktx2") == 0) return "KHR_texture_basisu";
	return NULL;
}

static uint32_t rki_gw_wrap(rk_wrap wrap)
{
	switch (wrap) {
	case RK_WRAP_CLAMP: return 33071;
	case RK_WRAP_MIRROR: return 33648;
	default: return 10497;
	}
}

/* Name of a texture's image: the glTF image's own (image_name), else (other
 * formats) the texture's. */
static const char *rki_gw_image_name(const rki_gw *w, const rk_texture *t)
{
	(void)w;
	if (t->image_name) return t->image_name;
	return t->name ? t->name : "";
}

/* Appends an image file record (separate mode). */
static bool rki_gw_image_file_add(rki_gw *w, const unsigned char *data, size_t size, const char *ext)
{
	if (w->image_file_count == w->image_file_cap) {
		size_t cap = w->image_file_cap ? 2 * w->image_file_cap : 8;
		rki_gw_image_file *grown = (rki_gw_image_file *)rki_arena_array(&w->keep, cap, sizeof(rki_gw_image_file));
		if (!grown) return false;
		if (w->image_file_count) memcpy(grown, w->image_files, w->image_file_count * sizeof(*grown));
		w->image_files = grown;
		w->image_file_cap = cap;
	}
	w->image_files[w->image_file_count++] = (rki_gw_image_file){ data, size, ext };
	return true;
}

static bool rki_gw_write_textures(rki_gw *w)
{
	const rk_scene *s = w->scene;
	size_t nt = s->textures.count;
	for (size_t i = 0; i < nt; i++) w->texture_out[i] = w->texture_image[i] = -1;
	if (w->opts.no_textures || nt == 0) return true;

	/* Only textures some material uses. */
	bool *used = (bool *)rki_gw_tmp_array(w, nt, sizeof(bool));
	int32_t *image_view = (int32_t *)rki_gw_tmp_array(w, nt, sizeof(int32_t));
	int32_t *image_of = (int32_t *)rki_gw_tmp_array(w, nt, sizeof(int32_t));
	uint64_t *sampler_keys = (uint64_t *)rki_gw_tmp_array(w, nt, sizeof(uint64_t));
	if (!used || !image_view || !image_of || !sampler_keys) return false;
	for (size_t m = 0; m < s->materials.count; m++) {
		const rk_material *mat = &s->materials.data[m];
		const rk_texture_ref *refs[5] = { &mat->base_color_texture, &mat->metallic_roughness_texture,
			&mat->normal_texture, &mat->emissive_texture, &mat->occlusion_texture };
		for (int k = 0; k < 5; k++)
			if (refs[k]->texture && refs[k]->texture->index < nt) used[refs[k]->texture->index] = true;
	}
	rki_gw_ext_mark_textures(w, used);
	size_t image_count = 0, sampler_count = 0;
	for (size_t i = 0; i < nt; i++) {
		if (!used[i]) continue;
		const rk_texture *t = &s->textures.data[i];
		const unsigned char *bytes = NULL;
		size_t size = 0;
		void *file = NULL;
		size_t file_size = 0;
		if (t->content && t->content_size > 0 && rki_gw_image_mime(t->content, t->content_size)) {
			bytes = t->content;
			size = t->content_size;
		} else if (t->resolved_path && t->resolved_path[0] && !w->opts.no_external_images) {
			rk_error ferr;
			memset(&ferr, 0, sizeof(ferr));
			file = rki_read_file(&w->alloc, t->resolved_path, (size_t)1 << 30, &file_size, &ferr);
			if (file && rki_gw_image_mime((const unsigned char *)file, file_size)) {
				bytes = (const unsigned char *)file;
				size = file_size;
			} else if (w->alloc.limit_hit) {
				if (file) rki_free(&w->alloc, file, file_size + 1);
				return rki_gw_oom(w);
			}
		}
		if (!bytes) {
			if (file) rki_free(&w->alloc, file, file_size + 1);
			rki_gw_warn(w, "texture \"%s\" (%s): no PNG/JPEG/WebP/KTX2 content or file, skipped", t->name,
				t->filename && t->filename[0] ? t->filename : "embedded");
			continue;
		}
		/* Same bytes as an earlier image? */
		int32_t img = -1;
		for (size_t k = 0; k < w->image_file_count && img < 0; k++)
			if (w->image_files[k].size == size && memcmp(w->image_files[k].data, bytes, size) == 0) img = (int32_t)k;
		for (size_t k = 0; k < i && img < 0 && !w->separate; k++) {
			if (image_view[k] < 0 || !used[k] || w->texture_out[k] < 0) continue;
			const rki_gw_view *v = &((const rki_gw_view *)w->views.data)[image_view[k]];
			if (v->length == size && memcmp(w->bin.data + v->offset, bytes, size) == 0) img = image_of[k];
		}
		image_view[i] = -1;
		const char *mime = rki_gw_image_mime(bytes, size);
		if (img < 0 && w->separate) {
			/* its own file beside the .gltf (written by rki_gw_write_side_files) */
			unsigned char *copy = (unsigned char *)rki_arena_alloc_uninit(&w->keep, size);
			if (copy) memcpy(copy, bytes, size);
			if (file) rki_free(&w->alloc, file, file_size + 1);
			if (!copy || !rki_gw_image_file_add(w, copy, size, strcmp(mime, "image/png") == 0 ? "png" : "jpg")) return rki_gw_oom(w);
			img = (int32_t)image_count++;
			rk_json_writer *j = rki_gw_section_json(&w->images);
			rk_json_object_begin(j, NULL);
			if (rki_gw_image_name(w, t)[0]) rk_json_string(j, "name", rki_gw_image_name(w, t));
			rki_gw_uri_image(w, j, (size_t)img);
			rk_json_string(j, "mimeType", mime);
			rk_json_object_end(j);
			w->images.count++;
		} else if (img < 0) {
			int32_t view = rki_gw_view_add(w, bytes, size, 0);
			if (file) rki_free(&w->alloc, file, file_size + 1);
			if (view < 0) return false;
			image_view[i] = view;
			img = (int32_t)image_count++;
			rk_json_writer *j = rki_gw_section_json(&w->images);
			rk_json_object_begin(j, NULL);
			if (rki_gw_image_name(w, t)[0]) rk_json_string(j, "name", rki_gw_image_name(w, t));
			rk_json_uint(j, "bufferView", (uint64_t)view);
			rk_json_string(j, "mimeType", mime);
			rk_json_object_end(j);
			w->images.count++;
		} else {
			for (size_t k = 0; k < i; k++)
				if (image_of[k] == img && image_view[k] >= 0) { image_view[i] = image_view[k]; break; }
			if (file) rki_free(&w->alloc, file, file_size + 1);
		}
		image_of[i] = img;
		w->texture_image[i] = img;
		/* One sampler per distinct wrap pair and filters. */
		uint64_t key = ((uint64_t)rki_gw_wrap(t->wrap_u) << 48) | ((uint64_t)rki_gw_wrap(t->wrap_v) << 32)
			| ((uint64_t)(t->mag_filter & 0xffffu) << 16) | (t->min_filter & 0xffffu);
		size_t sampler_index = 0;
		while (sampler_index < sampler_count && sampler_keys[sampler_index] != key) sampler_index++;
		if (sampler_index == sampler_count) {
			sampler_keys[sampler_count++] = key;
			rk_json_writer *js = rki_gw_section_json(&w->samplers);
			rk_json_object_begin(js, NULL);
			if (t->mag_filter) rk_json_uint(js, "magFilter", t->mag_filter & 0xffffu);
			if (t->min_filter) rk_json_uint(js, "minFilter", t->min_filter & 0xffffu);
			rk_json_uint(js, "wrapS", rki_gw_wrap(t->wrap_u));
			rk_json_uint(js, "wrapT", rki_gw_wrap(t->wrap_v));
			rk_json_object_end(js);
			w->samplers.count++;
		}
		rk_json_writer *j = rki_gw_section_json(&w->textures);
		rk_json_object_begin(j, NULL);
		if (t->name && t->name[0]) rk_json_string(j, "name", t->name);
		rk_json_uint(j, "sampler", sampler_index);
		const char *image_ext = rki_gw_image_ext(mime);
		if (image_ext) {
			/* no fallback image: the extension is required */
			rk_json_object_begin(j, "extensions");
			rk_json_object_begin(j, image_ext);
			rk_json_uint(j, "source", (uint64_t)img);
			rk_json_object_end(j);
			rk_json_object_end(j);
			if (image_ext[0] == 'E') w->uses_texture_webp = true;
			else w->uses_texture_basisu = true;
		} else {
			rk_json_uint(j, "source", (uint64_t)img);
		}
		rk_json_object_end(j);
		w->texture_out[i] = (int32_t)w->textures.count++;
	}
	w->stats.image_count = image_count;
	return !w->failed;
}

/* factor_key: "scale" (normal) / "strength" (occlusion) with `factor`, or NULL. */
static void rki_gw_texture_info(rki_gw *w, rk_json_writer *j, const char *key, const rk_texture_ref *ref,
	const char *factor_key, double factor)
{
	rk_json_object_begin(j, key);
	rk_json_uint(j, "index", (uint64_t)w->texture_out[ref->texture->index]);
	if (factor_key && factor != 1.0 && isfinite(factor)) rk_json_number(j, factor_key, factor);
	uint32_t tc = w->gltf_input ? ref->texcoord : 0;
	if (tc) rk_json_uint(j, "texCoord", tc);
	if (w->gltf_input && ref->has_transform) {
		rk_json_object_begin(j, "extensions");
		rk_json_object_begin(j, "KHR_texture_transform");
		double off[2] = { ref->offset.x, ref->offset.y }, sc[2] = { ref->scale.x, ref->scale.y };
		rk_json_numbers(j, "offset", off, 2);
		if (ref->rotation != 0.0) rk_json_number(j, "rotation", ref->rotation);
		rk_json_numbers(j, "scale", sc, 2);
		rk_json_object_end(j);
		rk_json_object_end(j);
		w->uses_texture_transform = true;
	}
	rk_json_object_end(j);
}

static double rki_gw_clamp01(double v)
{
	if (!(v >= 0.0)) return 0.0;
	return v > 1.0 ? 1.0 : v;
}

static bool rki_gw_ref_ok(const rki_gw *w, const rk_texture_ref *ref)
{
	return ref->texture && ref->texture->index < w->scene->textures.count && w->texture_out[ref->texture->index] >= 0;
}

static bool rki_gw_write_materials(rki_gw *w)
{
	const rk_scene *s = w->scene;
	rk_json_writer *j = rki_gw_section_json(&w->materials);
	for (size_t m = 0; m < s->materials.count; m++) {
		const rk_material *mat = &s->materials.data[m];
		rk_json_object_begin(j, NULL);
		if (mat->name && mat->name[0]) rk_json_string(j, "name", mat->name);
		rk_json_object_begin(j, "pbrMetallicRoughness");
		double bc[4] = { rki_gw_clamp01(mat->base_color.x), rki_gw_clamp01(mat->base_color.y),
			rki_gw_clamp01(mat->base_color.z), rki_gw_clamp01(mat->base_color.w) };
		if (bc[0] != 1.0 || bc[1] != 1.0 || bc[2] != 1.0 || bc[3] != 1.0) rk_json_numbers(j, "baseColorFactor", bc, 4);
		if (rki_gw_ref_ok(w, &mat->base_color_texture)) rki_gw_texture_info(w, j, "baseColorTexture", &mat->base_color_texture, NULL, 1.0);
		double metal = rki_gw_clamp01(mat->metallic), rough = rki_gw_clamp01(mat->roughness);
		if (metal != 1.0) rk_json_number(j, "metallicFactor", metal);
		if (rough != 1.0) rk_json_number(j, "roughnessFactor", rough);
		if (rki_gw_ref_ok(w, &mat->metallic_roughness_texture))
			rki_gw_texture_info(w, j, "metallicRoughnessTexture", &mat->metallic_roughness_texture, NULL, 1.0);
		rk_json_object_end(j);
		if (rki_gw_ref_ok(w, &mat->normal_texture))
			rki_gw_texture_info(w, j, "normalTexture", &mat->normal_texture, "scale", mat->normal_scale != 0.0 ? mat->normal_scale : 1.0);
		if (rki_gw_ref_ok(w, &mat->occlusion_texture))
			rki_gw_texture_info(w, j, "occlusionTexture", &mat->occlusion_texture, "strength",
				mat->occlusion_strength >= 0.0 && mat->occlusion_strength <= 1.0 ? mat->occlusion_strength : 1.0);
		if (rki_gw_ref_ok(w, &mat->emissive_texture)) rki_gw_texture_info(w, j, "emissiveTexture", &mat->emissive_texture, NULL, 1.0);
		double em[3] = { rki_gw_clamp01(mat->emissive.x), rki_gw_clamp01(mat->emissive.y), rki_gw_clamp01(mat->emissive.z) };
		if (em[0] != 0.0 || em[1] != 0.0 || em[2] != 0.0) rk_json_numbers(j, "emissiveFactor", em, 3);
		if (mat->emissive.x > 1.0 || mat->emissive.y > 1.0 || mat->emissive.z > 1.0)
			rki_gw_warn(w, "material \"%s\": emissive above 1 clamped", mat->name);
		if (mat->alpha_mode == RK_ALPHA_MASK) {
			rk_json_string(j, "alphaMode", "MASK");
			double cut = mat->alpha_cutoff >= 0.0 && isfinite(mat->alpha_cutoff) ? mat->alpha_cutoff : 0.5;
			if (cut != 0.5) rk_json_number(j, "alphaCutoff", cut);
		} else if (mat->alpha_mode == RK_ALPHA_BLEND) {
			rk_json_string(j, "alphaMode", "BLEND");
		}
		if (mat->double_sided) {
			rk_json_bool(j, "doubleSided", true);
		}
		bool kept = rki_gw_ext_has(w, RK_EXT_OWNER_MATERIAL, mat);
		if (mat->unlit || kept) {
			rk_json_object_begin(j, "extensions");
			if (mat->unlit) {
				rk_json_object_begin(j, "KHR_materials_unlit");
				rk_json_object_end(j);
				w->uses_unlit = true;
			}
			if (kept) rki_gw_ext_write(w, j, RK_EXT_OWNER_MATERIAL, mat);
			rk_json_object_end(j);
		}
		rki_gw_extras_write(w, j, mat->extras);
		rk_json_object_end(j);
		w->materials.count++;
	}
	w->stats.material_count = w->materials.count;
	return true;
}

/* ---- assembly ---------------------------------------------------------------------- */

#define RKI_GW_SECTIONS 9

/* Member names of the sections, in document order (as rki_gw_sections). */
static const char *const rki_gw_section_keys[RKI_GW_SECTIONS] = { "nodes", "meshes", "skins", "materials",
	"textures", "images", "samplers", "animations", "cameras" };

/* The document's sections, in document order. */
static void rki_gw_sections(rki_gw *w, rki_gw_section *out[RKI_GW_SECTIONS])
{
	rki_gw_section *const all[RKI_GW_SECTIONS] = { &w->nodes, &w->meshes, &w->skins, &w->materials,
		&w->textures, &w->images, &w->samplers, &w->animations, &w->cameras };
	memcpy(out, all, sizeof(all));
}

/* Appends base64 of p[0..n) to the open string of j. */
static void rki_gw_base64(rk_json_writer *j, const unsigned char *p, size_t n)
{
	static const char tbl[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	char out[4 * 256];
	size_t k = 0;
	for (size_t i = 0; i < n; i += 3) {
		uint32_t v = (uint32_t)p[i] << 16;
		if (i + 1 < n) v |= (uint32_t)p[i + 1] << 8;
		if (i + 2 < n) v |= p[i + 2];
		out[k++] = tbl[(v >> 18) & 63];
		out[k++] = tbl[(v >> 12) & 63];
		out[k++] = i + 1 < n ? tbl[(v >> 6) & 63] : '=';
		out[k++] = i + 2 < n ? tbl[v & 63] : '=';
		if (k == sizeof(out)) {
			rk_json_string_append(j, out, k);
			k = 0;
		}
	}
	rk_json_string_append(j, out, k);
}

static bool rki_gw_build_json(rki_gw *w, rk_json_writer *j, bool embed_buffer)
{
	const rk_scene *s = w->scene;
	rk_json_object_begin(j, NULL);
	rk_json_object_begin(j, "asset");
	rk_json_string(j, "generator", w->opts.generator);
	rk_json_string(j, "version", "2.0");
	rki_gw_extras_write(w, j, s->asset_extras);
	rk_json_object_end(j);
	if (rki_gw_ext_has(w, RK_EXT_OWNER_SCENE, NULL) || w->light_count) {
		rk_json_object_begin(j, "extensions");
		rki_gw_ext_write(w, j, RK_EXT_OWNER_SCENE, NULL);
		if (w->light_count) {
			size_t ln = 0;
			const char *lights = rk_json_writer_text(&w->lights, &ln);
			rk_json_object_begin(j, "KHR_lights_punctual");
			if (lights) rk_json_raw(j, "lights", lights, ln);
			rk_json_object_end(j);
		}
		rk_json_object_end(j);
	}
	if (w->uses_unlit || w->uses_texture_transform || w->ext_used_count || w->uses_texture_webp || w->uses_texture_basisu
		|| w->light_count) {
		rk_json_array_begin(j, "extensionsUsed");
		if (w->light_count) rk_json_string(j, NULL, "KHR_lights_punctual");
		if (w->uses_texture_transform) rk_json_string(j, NULL, "KHR_texture_transform");
		if (w->uses_unlit) rk_json_string(j, NULL, "KHR_materials_unlit");
		for (size_t i = 0; i < w->ext_used_count; i++) {
			const char *name = w->ext_used[i];
			if ((w->uses_texture_transform && !strcmp(name, "KHR_texture_transform"))
				|| (w->uses_unlit && !strcmp(name, "KHR_materials_unlit")))
				continue; /* listed above */
			rk_json_string(j, NULL, name);
		}
		if (w->uses_texture_webp) rk_json_string(j, NULL, "EXT_texture_webp");
		if (w->uses_texture_basisu) rk_json_string(j, NULL, "KHR_texture_basisu");
		rk_json_array_end(j);
	}
	if (w->uses_texture_webp || w->uses_texture_basisu || w->ext_required_count) {
		/* one array: images a reader must decode, then compression */
		rk_json_array_begin(j, "extensionsRequired");
		if (w->uses_texture_webp) rk_json_string(j, NULL, "EXT_texture_webp");
		if (w->uses_texture_basisu) rk_json_string(j, NULL, "KHR_texture_basisu");
		for (size_t i = 0; i < w->ext_required_count; i++) rk_json_string(j, NULL, w->ext_required[i]);
		rk_json_array_end(j);
	}
	rk_json_uint(j, "scene", 0);
	rk_json_array_begin(j, "scenes");
	rk_json_object_begin(j, NULL);
	if (s->scene_name && s->scene_name[0]) rk_json_string(j, "name", s->scene_name);
	if (w->nodes.count > 0) {
		rk_json_array_begin(j, "nodes");
		if (w->write_root) {
			rk_json_uint(j, NULL, 0);
		} else {
			const rk_node *root = s->root;
			for (size_t c = 0; c < root->children.count; c++)
				rk_json_uint(j, NULL, (uint64_t)w->node_out[root->children.data[c]->index]);
		}
		rk_json_array_end(j);
	}
	rki_gw_extras_write(w, j, s->scene_extras);
	rk_json_object_end(j);
	rk_json_array_end(j);
	rki_gw_section *secs[RKI_GW_SECTIONS];
	rki_gw_sections(w, secs);
	for (size_t i = 0; i < RKI_GW_SECTIONS; i++)
		if (!rki_gw_section_emit(w, j, rki_gw_section_keys[i], secs[i])) return false;

	size_t na = w->accessors.size / sizeof(rki_gw_accessor);
	if (na > 0) {
		static const char *const types[17] = { "", "SCALAR", "VEC2", "VEC3", "VEC4", "", "", "", "", "MAT3",
			"", "", "", "", "", "", "MAT4" };
		rk_json_array_begin(j, "accessors");
		const rki_gw_accessor *acc = (const rki_gw_accessor *)w->accessors.data;
		for (size_t i = 0; i < na; i++) {
			const rki_gw_accessor *a = &acc[i];
			rk_json_object_begin(j, NULL);
			rk_json_uint(j, "bufferView", a->view);
			rk_json_uint(j, "componentType", a->component_type);
			if (a->normalized) {
				rk_json_bool(j, "normalized", true);
			}
			rk_json_uint(j, "count", a->count);
			rk_json_string(j, "type", types[a->components]);
			if (a->has_minmax) {
				rk_json_numbers(j, "min", a->min, a->components);
				rk_json_numbers(j, "max", a->max, a->components);
			}
			rk_json_object_end(j);
		}
		rk_json_array_end(j);
	}
	size_t nv = w->views.size / sizeof(rki_gw_view);
	if (nv > 0) {
		rk_json_array_begin(j, "bufferViews");
		const rki_gw_view *views = (const rki_gw_view *)w->views.data;
		for (size_t i = 0; i < nv; i++) {
			const rki_gw_view *vw = &views[i];
			rk_json_object_begin(j, NULL);
			rk_json_uint(j, "buffer", vw->encoded ? 1 : 0);
			if (vw->offset) rk_json_uint(j, "byteOffset", vw->offset);
			rk_json_uint(j, "byteLength", vw->length);
			if (vw->stride) rk_json_uint(j, "byteStride", vw->stride);
			if (vw->target) rk_json_uint(j, "target", vw->target);
			if (vw->encoded) { /* gltf_write_compress.c */
				rk_json_object_begin(j, "extensions");
				rk_json_object_begin(j, "EXT_meshopt_compression");
				rk_json_uint(j, "buffer", 0);
				if (vw->enc_offset) rk_json_uint(j, "byteOffset", vw->enc_offset);
				rk_json_uint(j, "byteLength", vw->enc_length);
				rk_json_uint(j, "byteStride", vw->enc_stride);
				rk_json_uint(j, "count", vw->enc_count);
				rk_json_string(j, "mode", vw->enc_mode ? "TRIANGLES" : "ATTRIBUTES");
				if (vw->enc_filter) rk_json_string(j, "filter", "EXPONENTIAL");
				rk_json_object_end(j);
				rk_json_object_end(j);
			}
			rk_json_object_end(j);
		}
		rk_json_array_end(j);
		rk_json_array_begin(j, "buffers");
		rk_json_object_begin(j, NULL);
		rk_json_uint(j, "byteLength", w->bin.size);
		if (w->separate) {
			rki_gw_uri_buffer(w, j);
		} else if (embed_buffer) {
			static const char prefix[] = "data:application/octet-stream;base64,";
			rk_json_string_begin(j, "uri");
			rk_json_string_append(j, prefix, sizeof(prefix) - 1);
			rki_gw_base64(j, w->bin.data, w->bin.size);
			rk_json_string_end(j);
		}
		rk_json_object_end(j);
		if (w->fallback_size) { /* EXT_meshopt_compression's fallback buffer: no data */
			rk_json_object_begin(j, NULL);
			rk_json_uint(j, "byteLength", w->fallback_size);
			rk_json_object_begin(j, "extensions");
			rk_json_object_begin(j, "EXT_meshopt_compression");
			rk_json_bool(j, "fallback", true);
			rk_json_object_end(j);
			rk_json_object_end(j);
			rk_json_object_end(j);
		}
		rk_json_array_end(j);
	}
	rk_json_object_end(j);
	return rki_gw_json_check(w, j);
}

/* Output block: a header remembering the allocator, then the bytes. */
typedef struct rki_gw_out_header {
	rk_allocator allocator;
	size_t total;
	size_t magic;
} rki_gw_out_header;

#define RKI_GW_OUT_MAGIC ((size_t)0x676c5446u)
#define RKI_GW_OUT_HEADER ((sizeof(rki_gw_out_header) + 15u) & ~(size_t)15u)

static unsigned char *rki_gw_out_alloc(rki_gw *w, size_t size)
{
	size_t total;
	if (!rki_add_size(size, RKI_GW_OUT_HEADER, &total)) {
		rki_gw_fail(w, RK_ERROR_LIMIT, "glTF writer: output too large");
		return NULL;
	}
	unsigned char *p = (unsigned char *)rki_malloc(&w->alloc, total);
	if (!p) {
		rki_gw_oom(w);
		return NULL;
	}
	/* The caller owns it now: not counted against later temporaries. */
	w->alloc.bytes_in_use -= total <= w->alloc.bytes_in_use ? total : w->alloc.bytes_in_use;
	rki_gw_out_header h;
	h.allocator = w->opts.allocator;
	h.total = total;
	h.magic = RKI_GW_OUT_MAGIC;
	memcpy(p, &h, sizeof(h));
	return p + RKI_GW_OUT_HEADER;
}

void rk_gltf_memory_free(void *data)
{
	if (!data) return;
	unsigned char *p = (unsigned char *)data - RKI_GW_OUT_HEADER;
	rki_gw_out_header h;
	memcpy(&h, p, sizeof(h));
	if (h.magic != RKI_GW_OUT_MAGIC) return;
	if (h.allocator.free) h.allocator.free(h.allocator.user, p, h.total);
	else if (!h.allocator.alloc) free(p);
}

static void rki_put_u32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)v;
	p[1] = (unsigned char)(v >> 8);
	p[2] = (unsigned char)(v >> 16);
	p[3] = (unsigned char)(v >> 24);
}

static bool rki_gw_assemble(rki_gw *w, bool glb, void **out_data, size_t *out_size)
{
	rk_json_writer j;
	rki_gw_json_init(w, &j);
	size_t jn = 0;
	const char *json = rki_gw_build_json(w, &j, !glb) ? rk_json_writer_text(&j, &jn) : NULL;
	if (!json) {
		rk_json_writer_free(&j);
		return w->failed ? false : rki_gw_fail(w, RK_ERROR_INVALID_ARGUMENT, "glTF writer: empty JSON document");
	}
	w->stats.json_size = jn;
	w->stats.bin_size = w->bin.size;
	if (!glb) {
		unsigned char *p = rki_gw_out_alloc(w, jn);
		if (p) memcpy(p, json, jn);
		rk_json_writer_free(&j);
		if (!p) return false;
		*out_data = p;
		*out_size = jn;
		return true;
	}
	size_t json_pad = (4 - (jn & 3)) & 3;
	size_t bin_pad = (4 - (w->bin.size & 3)) & 3;
	uint64_t total = 12 + 8 + (uint64_t)jn + json_pad;
	if (w->bin.size) total += 8 + (uint64_t)w->bin.size + bin_pad;
	if (total > UINT32_MAX) {
		rk_json_writer_free(&j);
		return rki_gw_fail(w, RK_ERROR_UNSUPPORTED, "GLB output would be %llu bytes (limit 4 GiB); write .gltf instead",
			(unsigned long long)total);
	}
	unsigned char *p = rki_gw_out_alloc(w, (size_t)total);
	if (!p) {
		rk_json_writer_free(&j);
		return false;
	}
	unsigned char *q = p;
	memcpy(q, "glTF", 4);
	rki_put_u32(q + 4, 2);
	rki_put_u32(q + 8, (uint32_t)total);
	q += 12;
	rki_put_u32(q, (uint32_t)(jn + json_pad));
	memcpy(q + 4, "JSON", 4);
	q += 8;
	memcpy(q, json, jn);
	q += jn;
	memset(q, ' ', json_pad);
	q += json_pad;
	if (w->bin.size) {
		rki_put_u32(q, (uint32_t)(w->bin.size + bin_pad));
		memcpy(q + 4, "BIN\0", 4);
		q += 8;
		memcpy(q, w->bin.data, w->bin.size);
		q += w->bin.size;
		memset(q, 0, bin_pad);
	}
	rk_json_writer_free(&j);
	*out_data = p;
	*out_size = (size_t)total;
	return true;
}

/* ---- the run ------------------------------------------------------------------------ */

static void rki_gw_free(rki_gw *w)
{
	rki_gw_section *secs[RKI_GW_SECTIONS];
	rki_gw_sections(w, secs);
	for (size_t i = 0; i < RKI_GW_SECTIONS; i++) rki_gw_section_free(secs[i]);
	rk_json_writer_free(&w->lights);
	rki_buf_free(&w->bin);
	rki_buf_free(&w->views);
	rki_buf_free(&w->accessors);
	rki_arena_free(&w->tmp);
	rki_arena_free(&w->keep);
}

static bool rki_gw_sections_ok(rki_gw *w)
{
	rki_gw_section *secs[RKI_GW_SECTIONS];
	rki_gw_sections(w, secs);
	for (size_t i = 0; i < RKI_GW_SECTIONS; i++)
		if (!rki_gw_json_check(w, &secs[i]->json)) return false;
	return true;
}

/* out_path: the file being written (NULL for memory); side files of
 * separate output are written here, before the caller writes the .gltf. */
static bool rki_gw_run(const rk_scene *scene, const rk_gltf_write_opts *opts, bool glb, const char *out_path,
	void **out_data, size_t *out_size, rk_error *err)
{
	*out_data = NULL;
	*out_size = 0;
	if (!scene || scene->nodes.count == 0 || !scene->nodes.data || !scene->root) {
		rki_error_set(err, RK_ERROR_INVALID_ARGUMENT, "glTF writer: %s", scene ? "scene has no nodes" : "NULL scene");
		return false;
	}
	rki_gw state;
	rki_gw *w = &state;
	memset(w, 0, sizeof(*w));
	rk_allocator ua;
	memset(&ua, 0, sizeof(ua));
	if (opts) ua = opts->allocator;
	w->scene = scene;
	if (opts) w->opts = *opts;
	/* values outside the documented ones are the caller's error, never a silent default */
	const char *bad = NULL;
	if ((unsigned)w->opts.container > (unsigned)RK_GLTF_CONTAINER_JSON) bad = "container (expected AUTO, GLB or JSON)";
	else if ((unsigned)w->opts.compress > (unsigned)RK_GLTF_COMPRESS_MESHOPT) bad = "compress (expected NONE or MESHOPT)";
	else if (!(w->opts.bake_fps == 0.0 || (w->opts.bake_fps > 0.0 && isfinite(w->opts.bake_fps))))
		bad = "bake_fps (expected 0 = default or a finite rate > 0)";
	else if (!(w->opts.translation_tolerance == 0.0 || (w->opts.translation_tolerance > 0.0 && isfinite(w->opts.translation_tolerance))))
		bad = "translation_tolerance (expected 0 = default or a finite value > 0)";
	else if (!(w->opts.rotation_tolerance == 0.0 || (w->opts.rotation_tolerance > 0.0 && isfinite(w->opts.rotation_tolerance))))
		bad = "rotation_tolerance (expected 0 = default or a finite value > 0)";
	else if (w->opts.separate_files && (glb || !out_path))
		bad = "separate_files (needs .gltf (JSON) output to a file: rk_gltf_write with a .gltf path or container JSON)";
	if (bad) {
		rki_error_set(err, RK_ERROR_INVALID_ARGUMENT, "rk_gltf_write_opts.%s", bad);
		return false;
	}
	w->separate = w->opts.separate_files;
	w->out_path = out_path;
	if (!w->opts.memory_limit) w->opts.memory_limit = RKI_GW_DEFAULT_MEMORY_LIMIT;
	if (!w->opts.max_frames) w->opts.max_frames = RK_DEFAULT_MAX_FRAMES;
	if (!w->opts.root_name) w->opts.root_name = "RootNode";
	if (!w->opts.generator) w->opts.generator = "rigkit " RK_VERSION_STRING;
	if (!(w->opts.translation_tolerance > 0.0)) w->opts.translation_tolerance = 1e-5;
	if (!(w->opts.rotation_tolerance > 0.0)) w->opts.rotation_tolerance = 1e-5;
	if (!(w->opts.bake_fps > 0.0) || !isfinite(w->opts.bake_fps)) {
		w->opts.bake_fps = scene->settings.frame_rate > 0.0 && isfinite(scene->settings.frame_rate)
			? scene->settings.frame_rate : 30.0;
	}
	w->err = err;
	rki_error_clear(err);
	rki_alloc_init(&w->alloc, &ua, w->opts.memory_limit, 0);
	rki_arena_init(&w->tmp, &w->alloc);
	rki_arena_init(&w->keep, &w->alloc);
	rki_buf_init(&w->bin, &w->alloc);
	rki_buf_init(&w->views, &w->alloc);
	rki_buf_init(&w->accessors, &w->alloc);
	rki_gw_section *secs[RKI_GW_SECTIONS];
	rki_gw_sections(w, secs);
	for (size_t i = 0; i < RKI_GW_SECTIONS; i++) rki_gw_section_init(w, secs[i]);
	rki_gw_json_init(w, &w->lights);

	size_t nn = scene->nodes.count;
	bool ok = true;
	w->node_out = (int32_t *)rki_gw_tmp_array(w, nn, sizeof(int32_t));
	w->node_trs = (rk_trs *)rki_gw_tmp_array(w, nn, sizeof(rk_trs));
	w->node_mesh = (int32_t *)rki_gw_tmp_array(w, nn, sizeof(int32_t));
	w->node_skin = (int32_t *)rki_gw_tmp_array(w, nn, sizeof(int32_t));
	w->texture_out = (int32_t *)rki_gw_tmp_array(w, scene->textures.count, sizeof(int32_t));
	w->texture_image = (int32_t *)rki_gw_tmp_array(w, scene->textures.count, sizeof(int32_t));
	ok = !w->failed;
	if (ok) {
		for (size_t i = 0; i < nn; i++) w->node_mesh[i] = w->node_skin[i] = -1;
		for (size_t i = 0; i < nn; i++) {
			if (scene->nodes.data[i].index != i || (i > 0 && (!scene->nodes.data[i].parent
				|| scene->nodes.data[i].parent->index >= i))) {
				ok = rki_gw_fail(w, RK_ERROR_INVALID_ARGUMENT,
					"glTF writer: node %zu is out of order (indices must match positions, parents come first)", i);
				break;
			}
		}
	}
	if (ok) {
		rki_gw_compute_space(w);
		bool need_common_root = false;
		ok = rki_gw_plan_meshes(w, &need_common_root);
		if (ok && need_common_root && !w->write_root) w->write_root = true;
	}
	ok = ok && rki_gw_compute_nodes(w) && rki_gw_write_attrs(w) && rki_gw_write_textures(w) && rki_gw_write_materials(w)
		&& rki_gw_write_meshes(w) && rki_gw_write_nodes(w);
	if (ok && !w->opts.no_animation) ok = rki_gw_write_animations(w);
	ok = ok && rki_gw_compress(w);
	ok = ok && rki_gw_sections_ok(w);
	if (ok) {
		w->stats.node_count = w->nodes.count;
		w->stats.mesh_count = w->meshes.count;
		w->stats.skin_count = w->skins.count;
		w->stats.animation_count = w->animations.count;
		w->stats.wrote_root_node = w->write_root;
		ok = rki_gw_assemble(w, glb, out_data, out_size);
		if (ok && w->separate) {
			rk_file_write_opts fo = { .force = w->opts.force };
			ok = rki_gw_write_side_files(w, &fo);
			w->stats.file_count = 1 + (w->bin.size ? 1 : 0) + w->image_file_count;
			if (!ok) {
				rk_gltf_memory_free(*out_data);
				*out_data = NULL;
				*out_size = 0;
			}
		}
		w->stats.warning_count = w->warning_count; /* the document's kept extensions may warn too */
	}
	if (w->opts.warning) /* repeated warnings once more, with their total count */
		for (rki_gw_warning *x = w->warnings; x; x = x->next) {
			if (x->count < 2) continue;
			rk_warning total = { x->message, UINT64_MAX, "", x->count };
			w->opts.warning(w->opts.warning_user, &total);
		}
	if (ok && w->opts.stats) *w->opts.stats = w->stats;
	rki_gw_free(w);
	return ok;
}

static bool rki_gw_path_is_gltf(const char *path)
{
	size_t n = strlen(path);
	if (n < 5) return false;
	const char *e = path + n - 5;
	const char *ext = ".gltf";
	for (int i = 0; i < 5; i++) {
		char c = e[i];
		if (c >= 'A' && c <= 'Z') c = (char)(c - 'A' + 'a');
		if (c != ext[i]) return false;
	}
	return true;
}

static bool rki_gw_write_file(const rk_scene *scene, const char *path, const rk_gltf_write_opts *opts, bool glb,
	rk_error *err)
{
	if (!path) {
		rki_error_set(err, RK_ERROR_INVALID_ARGUMENT, "glTF writer: NULL path");
		return false;
	}
	void *data = NULL;
	size_t size = 0;
	if (!rki_gw_run(scene, opts, glb, path, &data, &size, err)) {
		if (err && !err->file[0]) rki_error_file(err, path);  /* else the error is about an input */
		return false;
	}
	rk_file_write_opts fo = { .force = opts && opts->force };
	bool ok = rk_file_write(path, data, size, &fo, err);
	rk_gltf_memory_free(data);
	return ok;
}

bool rk_gltf_write(const rk_scene *scene, const char *path, const rk_gltf_write_opts *opts, rk_error *err)
{
	rk_gltf_container c = opts ? opts->container : RK_GLTF_CONTAINER_AUTO;
	bool glb = c == RK_GLTF_CONTAINER_GLB || (c != RK_GLTF_CONTAINER_JSON && !(path && rki_gw_path_is_gltf(path)));
	return rki_gw_write_file(scene, path, opts, glb, err);
}

bool rk_glb_write(const rk_scene *scene, const char *path, const rk_gltf_write_opts *opts, rk_error *err)
{
	return rki_gw_write_file(scene, path, opts, true, err);
}

bool rk_gltf_write_memory(const rk_scene *scene, const rk_gltf_write_opts *opts,
	void **out_data, size_t *out_size, rk_error *err)
{
	if (!out_data || !out_size) {
		rki_error_set(err, RK_ERROR_INVALID_ARGUMENT, "rk_gltf_write_memory: NULL output pointer");
		return false;
	}
	bool glb = !(opts && opts->container == RK_GLTF_CONTAINER_JSON);
	return rki_gw_run(scene, opts, glb, NULL, out_data, out_size, err);
}
