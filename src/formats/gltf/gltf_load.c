/*
 * src/formats/gltf/gltf_load.c - glTF 2.0 (.gltf JSON and .glb binary) scene reader.
 *
 * Features, mapping, restrictions and limits: include/rigkit/load.h,
 * GLTF IMPORTER.
 */
#include "gltf_internal.h"

#include <stdio.h>
#include <string.h>

/* Extensions whose meaning the reader implements. */
static const char *const rki_gltf_understood[] = {
	"KHR_materials_unlit",
	"KHR_texture_transform",
	"KHR_mesh_quantization",
	/* kept for writers and read for the declared humanoid (gltf_vrm.c) */
	"VRMC_vrm", "VRMC_springBone", "VRMC_node_constraint", "VRMC_materials_mtoon",
	"VRMC_materials_hdr_emissiveMultiplier", "VRMC_vrm_animation", "VRM",
	/* scene->lights (gltf_extras.c) */
	"KHR_lights_punctual",
	/* kept for writers (gltf_vrm.c; docs/gltf.md, What convert carries) */
	"KHR_materials_specular", "KHR_materials_ior", "KHR_materials_clearcoat", "KHR_materials_sheen",
	"KHR_materials_transmission", "KHR_materials_volume", "KHR_materials_emissive_strength", "KHR_materials_iridescence",
	"KHR_materials_anisotropy", "KHR_materials_dispersion", "KHR_materials_diffuse_transmission",
	"KHR_materials_pbrSpecularGlossiness",
};

static bool rki_gltf_is_ws(unsigned char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

bool rki_gltf_probe(const void *data, size_t size, bool *is_glb)
{
	static const char *const keys[] = {
		"asset", "accessors", "animations", "bufferViews", "buffers", "cameras", "extensionsUsed",
		"extensionsRequired", "images", "materials", "meshes", "nodes", "samplers", "scene", "scenes", "skins", "textures",
	};
	const unsigned char *p = (const unsigned char *)data;
	*is_glb = false;
	if (size >= 4 && memcmp(p, "glTF", 4) == 0) {
		*is_glb = true;
		return true;
	}
	size_t i = 0;
	if (size >= 3 && p[0] == 0xEF && p[1] == 0xBB && p[2] == 0xBF) i = 3;
	while (i < size && rki_gltf_is_ws(p[i])) i++;
	if (i >= size || p[i] != '{') return false;
	size_t start = i;
	/* The first key of the top-level object is near the start whatever the size. */
	i++;
	while (i < size && rki_gltf_is_ws(p[i])) i++;
	if (i < size && p[i] == '"') {
		size_t k = i + 1, len = 0;
		while (k + len < size && p[k + len] != '"' && len < 32) len++;
		for (size_t j = 0; j < sizeof(keys) / sizeof(keys[0]); j++)
			if (strlen(keys[j]) == len && memcmp(p + k, keys[j], len) == 0) return true;
	}
	size_t window = size - start < 65536 ? size - start : 65536;
	return rki_memmem(p + start, window, "\"asset\"", 7) != NULL;
}

/* "major.minor" (digits, then anything): like sscanf "%u.%u" on a STRING. */
static bool rki_gltf_version(const rki_json *v, unsigned *major, unsigned *minor)
{
	const char *s = v->u.text, *e = s + v->len;
	unsigned *out[2] = { major, minor };
	for (int part = 0; part < 2; part++) {
		if (part == 1) {
			if (s >= e || *s != '.') return false;
			s++;
		}
		if (s >= e || *s < '0' || *s > '9') return false;
		unsigned x = 0;
		while (s < e && *s >= '0' && *s <= '9') {
			if (x > 100000) return false;
			x = x * 10 + (unsigned)(*s++ - '0');
		}
		*out[part] = x;
	}
	return true;
}

static bool rki_gltf_asset(rki_gltf *g)
{
	const rki_json *asset, *version, *min_version, *generator;
	const rki_gltf_loc *base = RKI_GLTF_KEY(NULL, "asset");
	if (!rki_gltf_object(g, g->json, NULL, "asset", &asset)) return false;
	if (!asset) return rki_gltf_fail(g, RK_ERROR_CORRUPT, base, "glTF needs an \"asset\" object with its version");
	if (!rki_gltf_string(g, asset, base, "version", &version)) return false;
	if (!rki_gltf_string(g, asset, base, "minVersion", &min_version)) return false;
	if (!rki_gltf_string(g, asset, base, "generator", &generator)) return false;
	if (!version) {
		rki_gltf_warn(g, base, "asset.version is missing: 2.0 assumed");
	} else {
		unsigned major = 0, minor = 0;
		if (!rki_gltf_version(version, &major, &minor))
			return rki_gltf_fail_key(g, RK_ERROR_CORRUPT, base, "version", "expected a version \"major.minor\", got \"%.*s\"",
				RKI_JSON_STR_ARGS(version, 40));
		if (major != 2)
			return rki_gltf_fail_key(g, RK_ERROR_UNSUPPORTED, base, "version", "glTF version %.*s is not supported (expected 2.x)",
				RKI_JSON_STR_ARGS(version, 40));
	}
	if (min_version) {
		unsigned major = 0, minor = 0;
		if (!rki_gltf_version(min_version, &major, &minor) || major != 2 || minor > 0)
			return rki_gltf_fail_key(g, RK_ERROR_UNSUPPORTED, base, "minVersion", "file needs glTF %.*s; rigkit reads 2.0",
				RKI_JSON_STR_ARGS(min_version, 40));
	}
	g->sc.scene->settings.creator = rki_gltf_json_strdup(g, g->sc.arena, generator);
	return g->sc.scene->settings.creator != NULL;
}

static bool rki_gltf_understands(const rki_json *ext)
{
	for (size_t i = 0; i < sizeof(rki_gltf_understood) / sizeof(rki_gltf_understood[0]); i++)
		if (rki_json_eq(ext, rki_gltf_understood[i])) return true;
	return false;
}

/* ---- compressed input (docs/gltf.md, "Compressed input") ----------------------
 * Extensions whose data the reader decodes (gltf_meshopt.c, gltf_draco.c) or
 * keeps as it is (EXT_texture_webp: the image bytes go to rk_texture, which
 * rk_image_decode() reads; KHR_texture_basisu: KTX2 bytes kept, not
 * decoded, warned per texture in gltf_material.c). */
static const char *const rki_gltf_decoded[] = {
	"EXT_meshopt_compression", "MESHOPT_compression", "EXT_texture_webp", "KHR_texture_basisu",
#if RKI_GLTF_HAVE_DRACO
	"KHR_draco_mesh_compression",
#endif
};

/* Required extensions that change only data other than geometry and
 * animation (lights, cameras, materials, textures, metadata): a file that
 * requires one still loads, with a warning naming what is not read. An
 * unknown required extension may change geometry or animation: refused. */
static const char *const rki_gltf_side_prefixes[] = {
	"KHR_lights_", "EXT_lights_", "KHR_materials_", "EXT_materials_", "KHR_texture_", "EXT_texture_", "MSFT_texture_",
	"KHR_xmp", "ADOBE_materials_",
};

static bool rki_gltf_decodes(const rki_json *ext)
{
	for (size_t i = 0; i < sizeof(rki_gltf_decoded) / sizeof(rki_gltf_decoded[0]); i++)
		if (rki_json_eq(ext, rki_gltf_decoded[i])) return true;
	return false;
}

static bool rki_gltf_side_data(const rki_json *ext)
{
	for (size_t i = 0; i < sizeof(rki_gltf_side_prefixes) / sizeof(rki_gltf_side_prefixes[0]); i++) {
		size_t n = strlen(rki_gltf_side_prefixes[i]);
		if (ext->len >= n && memcmp(ext->u.text, rki_gltf_side_prefixes[i], n) == 0) return true;
	}
	return false;
}

static bool rki_gltf_extensions(rki_gltf *g)
{
	const rki_json *list;
	size_t count;
	if (!rki_gltf_array(g, g->json, NULL, "extensionsRequired", &list, &count)) return false;
	for (size_t k = 0; k < count; k++) {
		const rki_json *e = &list->u.items[k];
		const rki_gltf_loc *path = RKI_GLTF_IDX(RKI_GLTF_KEY(NULL, "extensionsRequired"), k);
		if (e->type != RKI_JSON_STRING) return rki_gltf_fail(g, RK_ERROR_CORRUPT, path, "expected an extension name string");
		if (rki_gltf_understands(e) || rki_gltf_decodes(e)) continue;
		if (rki_gltf_side_data(e)) {
			rki_gltf_warn(g, path, "required extension %.*s is not supported: its data (lights, material or texture "
				"properties) is not read; geometry and animation are", RKI_JSON_STR_ARGS(e, 80));
			continue;
		}
		if (rki_json_eq(e, "KHR_draco_mesh_compression"))
			return rki_gltf_fail(g, RK_ERROR_UNSUPPORTED, path, "required extension KHR_draco_mesh_compression: this build has no Draco decoder");
		return rki_gltf_fail(g, RK_ERROR_UNSUPPORTED, path,
			"required extension %.*s is not supported and may change geometry or animation (rigkit decodes KHR_mesh_quantization, "
			"EXT_meshopt_compression, KHR_draco_mesh_compression, EXT_texture_webp, KHR_texture_basisu (kept, not decoded), "
			"and reads files whose required lights, material and texture extensions it does not know, with a warning)",
			RKI_JSON_STR_ARGS(e, 80));
	}
	const rki_json *required = list;
	size_t required_count = count;
	if (!rki_gltf_array(g, g->json, NULL, "extensionsUsed", &list, &count)) return false;
	for (size_t k = 0; k < count; k++) {
		const rki_json *e = &list->u.items[k];
		const rki_gltf_loc *path = RKI_GLTF_IDX(RKI_GLTF_KEY(NULL, "extensionsUsed"), k);
		if (e->type != RKI_JSON_STRING) return rki_gltf_fail(g, RK_ERROR_CORRUPT, path, "expected an extension name string");
		if (rki_gltf_understands(e) || rki_gltf_decodes(e)) continue;
		bool warned = false;  /* as required, above */
		for (size_t r = 0; r < required_count && !warned; r++)
			warned = required->u.items[r].len == e->len && memcmp(required->u.items[r].u.text, e->u.text, e->len) == 0;
		if (!warned) rki_gltf_warn(g, path, "extension %.*s is not supported: ignored", RKI_JSON_STR_ARGS(e, 80));
	}
	return true;
}

/* ---- scene memory ------------------------------------------------------------
 * The scene's bulk (vertex, corner and face arrays, keys, skin weights, image
 * bytes) is about 8 bytes per accessor value (4 for the float data kept as
 * floats; see rki_gltf_float_accessors) plus the embedded images and the
 * nodes, skin joints and animation tracks. It is asked for as one arena
 * chunk of that size (+1/16 + 64 KiB): the arena's
 * geometric growth would otherwise spread a 5 MB scene over a dozen chunks
 * doubling up to 4 MB, the largest allocated last and mostly unused. Fewer,
 * better sized chunks also keep glibc's malloc from giving the heap back to
 * the kernel after every load and faulting it in again on the next one
 * (Xbot.glb, repeated loads: ~1200 page faults per load before, ~50 after).
 * The estimate is capped by 4 x the input size + 1 MiB and by half of what
 * memory_limit leaves; pages of the chunk that are never used are never
 * touched, and scene->memory_used counts only what is used. */

static bool rki_gltf_is_float_accessor(rki_gltf *g, double index)
{
	if (!(index >= 0.0 && index < (double)g->accessors.count)) return false;
	const rki_json *ct = rki_json_get(&g->accessors.items[(size_t)index], "componentType");
	return rki_json_is(ct, RKI_JSON_NUMBER) && rki_gltf_num(g, ct) == (double)RKI_GLTF_FLOAT;
}

/* Sets bytes[i], the scene bytes per value of accessor i, where it is not
 * the default 8 (a double, or a 4-byte index with its share of the face
 * array and face slots): the accessors kept as floats, FLOAT POSITION,
 * NORMAL, TEXCOORD_n and COLOR_n (4; a VEC3 colour is stored with a fourth
 * component), FLOAT morph target deltas (16/3: a float and a 4-byte vertex
 * index per moving vertex, per 3 values) and FLOAT animation outputs (4);
 * JOINTS_n (1: the joints go into the weight records, counted with
 * WEIGHTS_n, and leave one 4-byte offset per vertex); the indices of a
 * one-primitive mesh (20/3: no face slots). Malformed members are skipped
 * here; the mesh pass reports them. */
static void rki_gltf_float_accessors(rki_gltf *g, double *bytes)
{
	for (size_t a = 0; a < g->animations.count; a++) {
		const rki_json *smps = rki_json_get(&g->animations.items[a], "samplers");
		for (size_t k = 0; rki_json_is(smps, RKI_JSON_ARRAY) && k < smps->len; k++) {
			const rki_json *out = rki_json_get(&smps->u.items[k], "output");
			if (rki_json_is(out, RKI_JSON_NUMBER) && rki_gltf_is_float_accessor(g, rki_gltf_num(g, out)))
				bytes[(size_t)rki_gltf_num(g, out)] = 4.0;
		}
	}
	for (size_t m = 0; m < g->meshes.count; m++) {
		const rki_json *prims = rki_json_get(&g->meshes.items[m], "primitives");
		if (!rki_json_is(prims, RKI_JSON_ARRAY)) continue;
		for (size_t p = 0; p < prims->len; p++) {
			const rki_json *ind = rki_json_get(&prims->u.items[p], "indices");
			if (prims->len == 1 && rki_json_is(ind, RKI_JSON_NUMBER)) {
				double d = rki_gltf_num(g, ind);
				if (d >= 0.0 && d < (double)g->accessors.count) bytes[(size_t)d] = 20.0 / 3.0;
			}
			const rki_json *attrs = rki_json_get(&prims->u.items[p], "attributes");
			for (size_t k = 0; rki_json_is(attrs, RKI_JSON_OBJECT) && k < attrs->len; k++) {
				const rki_json *v = &attrs->u.members[k].value;
				const rki_json_member *mb = &attrs->u.members[k];
				if (!rki_json_is(v, RKI_JSON_NUMBER)) continue;
				double d = rki_gltf_num(g, v);
				if (mb->value.key_len > 7 && memcmp(mb->key, "JOINTS_", 7) == 0 && d >= 0.0 && d < (double)g->accessors.count)
					bytes[(size_t)d] = 1.0;
				if (!rki_gltf_is_float_accessor(g, d)) continue;
				bool color = mb->value.key_len > 6 && memcmp(mb->key, "COLOR_", 6) == 0;
				if ((mb->value.key_len == 8 && memcmp(mb->key, "POSITION", 8) == 0) || (mb->value.key_len == 6 && memcmp(mb->key, "NORMAL", 6) == 0)
					|| (mb->value.key_len > 9 && memcmp(mb->key, "TEXCOORD_", 9) == 0) || color)
					bytes[(size_t)d] = color ? 16.0 / 3.0 : 4.0;
			}
			const rki_json *targets = rki_json_get(&prims->u.items[p], "targets");
			for (size_t t = 0; rki_json_is(targets, RKI_JSON_ARRAY) && t < targets->len; t++) {
				const rki_json *tg = &targets->u.items[t];
				for (size_t k = 0; rki_json_is(tg, RKI_JSON_OBJECT) && k < tg->len; k++) {
					const rki_json *v = &tg->u.members[k].value;
					if (!rki_json_is(v, RKI_JSON_NUMBER)) continue;
					double d = rki_gltf_num(g, v);
					if (rki_gltf_is_float_accessor(g, d)) bytes[(size_t)d] = 16.0 / 3.0;
				}
			}
		}
	}
}

/* input_size: the file's bytes (caps the estimate); held: what the load
 * holds of it beside the scene (the file, or of a streamed GLB its JSON
 * chunk: the views of one item at a time are freed before the next). */
static void rki_gltf_reserve_scene(rki_gltf *g, size_t input_size, size_t held)
{
	if (g->sc.opts.ignore_geometry || g->sc.opts.ignore_animation) return;
	double est = 0.0;
	double *bytes = (double *)rki_arena_array(&g->sc.tmp, g->accessors.count ? g->accessors.count : 1, sizeof(double));
	if (!bytes) return;  /* no reservation: the arena grows as it goes */
	for (size_t i = 0; i < g->accessors.count; i++) bytes[i] = 8.0;
	rki_gltf_float_accessors(g, bytes);
	for (size_t i = 0; i < g->accessors.count; i++) {
		const rki_json *a = &g->accessors.items[i], *count = rki_json_get(a, "count"), *type = rki_json_get(a, "type");
		if (!rki_json_is(count, RKI_JSON_NUMBER) || !rki_json_is(type, RKI_JSON_STRING)) continue;
		double n = rki_gltf_num(g, count), comps = 4.0;
		if (rki_json_eq(type, "SCALAR")) comps = 1.0;
		else if (rki_json_eq(type, "VEC2")) comps = 2.0;
		else if (rki_json_eq(type, "VEC3")) comps = 3.0;
		else if (rki_json_eq(type, "MAT3")) comps = 9.0;
		else if (rki_json_eq(type, "MAT4")) comps = 16.0;
		if (n > 0.0 && n < 1e15) est += n * comps * bytes[i];
	}
	/* per object: nodes, skin joints (three matrices each), animation tracks */
	est += (double)g->nodes.count * (double)(sizeof(rk_node) + 64);
	for (size_t i = 0; i < g->skins.count; i++) {
		const rki_json *j = rki_json_get(&g->skins.items[i], "joints");
		if (rki_json_is(j, RKI_JSON_ARRAY)) est += (double)j->len * (double)sizeof(rk_skin_joint);
	}
	for (size_t i = 0; i < g->animations.count; i++) {
		const rki_json *c = rki_json_get(&g->animations.items[i], "channels");
		if (rki_json_is(c, RKI_JSON_ARRAY)) est += (double)c->len * (double)sizeof(rk_anim_track);
	}
	for (size_t i = 0; i < g->images.count && !g->sc.opts.no_embedded_content; i++) {
		const rki_json *v = rki_json_get(&g->images.items[i], "bufferView");
		if (!rki_json_is(v, RKI_JSON_NUMBER)) continue;
		double d = rki_gltf_num(g, v);
		if (d >= 0.0 && d < (double)g->buffer_views.count) est += (double)g->views[(size_t)d].length;
	}
	est += est / 16.0 + 65536.0;
	/* At least the input and the temporaries, so that this block stays the
	 * load's largest and its others fit beside it: glibc's malloc gives the
	 * top of the heap back to the kernel on free once it exceeds twice the
	 * largest block it has seen, and a process loading files one after
	 * another then faults the whole heap in again on every load (Soldier.glb,
	 * whose floats kept as floats made this block smaller than the file plus
	 * the temporaries: 14.3 against 1.0 ms per load, 1276 page faults
	 * against 60). The temporaries' later chunks are capped (their bulk, the
	 * JSON document, is allocated by now). Pages of the block that are
	 * never used are never touched (no resident memory); the allocator's
	 * count includes them. */
	rki_arena_cap_next(&g->sc.tmp, 131072);
	double floor = ((double)held + (double)g->sc.tmp.capacity + 131072.0) * 1.125;
	if (est < floor) est = floor;
	double cap = 4.0 * (double)input_size + 1048576.0;
	if (est > cap) est = cap;
	rki_arena_reserve(g->sc.arena, (size_t)est);
}

/* g->input (in memory) or g->stream (a GLB read in pieces), g->input_size bytes */
static bool rki_gltf_run(rki_gltf *g)
{
	rk_scene_settings *st = &g->sc.scene->settings;
	if (g->input_size > g->sc.opts.file_size_limit)
		return rki_gltf_fail_byte(g, RK_ERROR_LIMIT, 0, "input is %zu bytes, over the file_size_limit %zu", (size_t)g->input_size,
			g->sc.opts.file_size_limit);
	size_t size = (size_t)g->input_size;
	const unsigned char *json = g->input;
	size_t json_size = size;
	g->is_glb = g->stream || (size >= 4 && memcmp(g->input, "glTF", 4) == 0);
	if (g->is_glb && !rki_gltf_parse_glb(g, &json, &json_size)) return false;
	/* the JSON chunk starts after the 12-byte header and its 8-byte chunk header */
	uint64_t json_offset = g->is_glb ? 20u : 0u;
	if (json_size >= 3 && json[0] == 0xEF && json[1] == 0xBB && json[2] == 0xBF) {
		json += 3;
		json_size -= 3;
		json_offset += 3;
	}
	rki_json_error jerr;
	if (!rki_json_parse(&g->doc, json, json_size, &g->sc.tmp, g->sc.opts.max_depth, g->sc.opts.max_elements, &jerr)) {
		if (jerr.code == RK_ERROR_OUT_OF_MEMORY) return rki_gltf_oom(g);
		return rki_gltf_fail_byte(g, jerr.code, json_offset + jerr.offset, "%s", jerr.message);
	}
	g->json = &g->doc.root;
	if (g->json->type != RKI_JSON_OBJECT) return rki_gltf_fail_byte(g, RK_ERROR_CORRUPT, json_offset, "expected a JSON object at the top level");
	for (size_t i = g->doc.end; i < json_size; i++) {
		if (!rki_gltf_is_ws(json[i]) && json[i] != 0) {
			rki_gltf_warn(g, NULL, "bytes after the JSON document ignored");
			break;
		}
	}
	if (!rki_gltf_asset(g) || !rki_gltf_extensions(g)) return false;
	if (!rki_gltf_list_init(g, "accessors", &g->accessors) || !rki_gltf_list_init(g, "bufferViews", &g->buffer_views)
		|| !rki_gltf_list_init(g, "buffers", &g->buffers) || !rki_gltf_list_init(g, "nodes", &g->nodes)
		|| !rki_gltf_list_init(g, "meshes", &g->meshes) || !rki_gltf_list_init(g, "skins", &g->skins)
		|| !rki_gltf_list_init(g, "materials", &g->materials) || !rki_gltf_list_init(g, "textures", &g->textures)
		|| !rki_gltf_list_init(g, "images", &g->images) || !rki_gltf_list_init(g, "samplers", &g->samplers)
		|| !rki_gltf_list_init(g, "animations", &g->animations) || !rki_gltf_list_init(g, "cameras", &g->cameras)
		|| !rki_gltf_list_init(g, "scenes", &g->scenes))
		return false;
	if (!rki_gltf_load_buffers(g)) return false;
	if (!rki_gltf_decode_draco(g)) return false;
	/* held during the load: the file, or of a streamed GLB its JSON chunk and the views of one item */
	rki_gltf_reserve_scene(g, size, g->stream ? json_size : size);
	if (!rki_gltf_load_textures(g)) return false;
	if (!rki_gltf_load_materials(g)) return false;
	if (!rki_gltf_scan_meshes(g)) return false;
	if (!rki_gltf_load_meshes(g)) return false;
	if (!rki_gltf_load_nodes(g)) return false;
	if (!rki_gltf_load_skins(g)) return false;
	if (!rki_gltf_load_animations(g)) return false;
	if (!rki_gltf_load_vrm(g)) return false;
	if (!rki_gltf_load_extras(g)) return false;

	st->format = g->is_glb ? RK_FORMAT_GLB : RK_FORMAT_GLTF;
	st->fbx_version = 0;
	st->ascii = !g->is_glb;
	st->axes = st->original_axes = RK_AXES_RIGHT_HANDED_Y_UP;
	st->unit_meters = st->original_unit_meters = 1.0;
	st->frame_rate = 0.0;
	return true;
}

static rk_scene *rki_gltf_load_any(const unsigned char *data, const rki_stream *stream, uint64_t size,
	const rk_load_opts *opts, const char *filename, const rki_file_access *files, rk_error *err)
{
	rk_error local;
	if (!err) err = &local;
	rki_error_clear(err);
	rki_gltf g;
	memset(&g, 0, sizeof(g));
	g.err = err;
	g.filename = filename ? filename : "";
	g.input = data;
	g.stream = stream;
	g.input_size = size;
	if (size >= SIZE_MAX) {
		rki_error_set(err, RK_ERROR_LIMIT, "input of %llu bytes is too large", (unsigned long long)size);
		rki_error_file(err, g.filename);
		return NULL;
	}
	if (!rki_scene_begin(&g.sc, opts, g.filename, (size_t)size, err)) return NULL;
	g.sc.files = files;
	for (size_t i = 0; i < sizeof(g.scratch) / sizeof(g.scratch[0]); i++) rki_buf_init(&g.scratch[i], g.sc.alloc);
	rki_buf_init(&g.held_views, g.sc.alloc);
	rki_buf_init(&g.held_regions, g.sc.alloc);
	bool ok = rki_gltf_run(&g);
	if (ok && g.sc.alloc->failed && !rki_gltf_failed(&g)) ok = rki_gltf_oom(&g);
	g.json = NULL;  /* the tree is in the temporary arena */
	for (size_t i = 0; i < sizeof(g.scratch) / sizeof(g.scratch[0]); i++) rki_buf_free(&g.scratch[i]);
	if (g.views) rki_gltf_views_release(&g);
	rki_buf_free(&g.held_views);
	rki_buf_free(&g.held_regions);
	if (!ok) {
		rki_scene_abort(&g.sc);
		return NULL;
	}
	const rki_gltf_skin_fixup *skin_fixup = g.skin_fixup;
	rk_scene *s = rki_scene_finish(&g.sc);
	if (s) rki_gltf_finish_skins(s, skin_fixup);
	return s;
}

rk_scene *rki_gltf_load(const void *data, size_t size, const rk_load_opts *opts, const char *filename,
	const rki_file_access *files, rk_error *err)
{
	return rki_gltf_load_any((const unsigned char *)data, NULL, size, opts, filename, files, err);
}

rk_scene *rki_gltf_load_stream(const rki_stream *in, const rk_load_opts *opts, const char *filename,
	const rki_file_access *files, rk_error *err)
{
	return rki_gltf_load_any(NULL, in, in->size, opts, filename, files, err);
}
