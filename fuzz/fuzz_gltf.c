/*
 * fuzz/fuzz_gltf.c - libFuzzer target for the glTF 2.0 / GLB reader
 * (src/formats/gltf/gltf_load.c and friends), through the public rk_load_memory().
 *
 * Each input is loaded from memory (no file name, so external URIs must fail
 * cleanly) with small limits and a counting allocator. A loaded scene is
 * walked completely: every array the scene promises is read and every index
 * checked against the count it refers to. The target aborts when a failed
 * load has no error code or message, when an index is out of range, or when
 * allocator memory is still held after rk_scene_free(). The last input byte
 * also selects the ignore_geometry / ignore_animation / no_embedded_content
 * options, so those paths are fuzzed too. The declared hints and kept VRM
 * extensions (scene->hints, scene->extensions) are walked as well. See
 * fuzz/README.md.
 */
#include "rigkit/scene.h"
#include "rigkit/load.h"

#include "fuzz_alloc.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile double fuzz_sink;

static void fuzz_attrib3(const rk_attrib_vec3 *a, const rk_mesh *m)
{
	if (!a->exists) return;
	for (size_t c = 0; c < m->index_count; c++) {
		if (a->indices[c] >= a->value_count) abort();
		fuzz_sink += a->values[a->indices[c]].x;
	}
}

static void fuzz_mesh(const rk_mesh *m)
{
	double s = 0.0;
	for (size_t v = 0; v < m->vertex_count; v++) s += m->positions[v].x + m->positions[v].y + m->positions[v].z;
	for (size_t c = 0; c < m->index_count; c++)
		if (m->vertex_indices[c] >= m->vertex_count) abort();
	for (size_t f = 0; f < m->face_count; f++) {
		const rk_face *face = &m->faces[f];
		if ((size_t)face->index_begin + face->index_count > m->index_count) abort();
		if (m->face_material && m->face_material[f] >= m->materials.count) abort();
	}
	fuzz_attrib3(&m->normals, m);
	for (size_t u = 0; u < m->uv_sets.count; u++) {
		const rk_uv_set *set = &m->uv_sets.data[u];
		if (!set->name) abort();
		for (size_t c = 0; set->uv.exists && c < m->index_count; c++) {
			if (set->uv.indices[c] >= set->uv.value_count) abort();
			s += set->uv.values[set->uv.indices[c]].y;
		}
		fuzz_attrib3(&set->tangent, m);
		fuzz_attrib3(&set->bitangent, m);
	}
	for (size_t k = 0; k < m->colors.count; k++) {
		const rk_attrib_vec4 *a = &m->colors.data[k];
		for (size_t c = 0; a->exists && c < m->index_count; c++) {
			if (a->indices[c] >= a->value_count) abort();
			s += a->values[a->indices[c]].w;
		}
	}
	for (size_t k = 0; k < m->materials.count; k++)
		if (!m->materials.data[k] || !m->materials.data[k]->name) abort();
	for (size_t k = 0; k < m->blend_channels.count; k++) {
		const rk_blend_channel *ch = &m->blend_channels.data[k];
		if (ch->index != k || !ch->name) abort();
		for (size_t t = 0; t < ch->target_count; t++) {
			const rk_blend_shape *sh = &ch->targets[t];
			s += ch->target_weights[t];
			for (size_t o = 0; o < sh->offset_count; o++) {
				if (sh->vertex_indices[o] >= m->vertex_count) abort();
				s += sh->position_offsets[o].x + (sh->normal_offsets ? sh->normal_offsets[o].y : 0.0);
			}
		}
	}
	for (size_t k = 0; k < m->skin_count; k++)
		if (!m->skins[k] || m->skins[k]->vertex_count != m->vertex_count) abort();
	fuzz_sink += s;
}

static bool fuzz_in(const void *p, const void *base, size_t count, size_t size)
{
	uintptr_t a = (uintptr_t)p, b = (uintptr_t)base;
	return base && a >= b && a < b + count * size && (a - b) % size == 0;
}

/* A kept extension value: strings, keys and counts as promised, every
 * reference an element of its scene list (scene.h, rk_ext_value). */
static void fuzz_ext_value(const rk_scene *s, const rk_ext_value *v, bool in_object, size_t depth)
{
	if (depth > 64 || (in_object && !v->key)) abort();
	switch (v->kind) {
	case RK_EXT_STRING:
		if (!v->string || v->string[v->length] != 0) abort();
		break;
	case RK_EXT_ARRAY:
	case RK_EXT_OBJECT:
		if (v->count && !v->items) abort();
		for (size_t i = 0; i < v->count; i++) fuzz_ext_value(s, &v->items[i], v->kind == RK_EXT_OBJECT, depth + 1);
		break;
	case RK_EXT_NODE:
		if (!fuzz_in(v->ref, s->nodes.data, s->nodes.count, sizeof(rk_node))) abort();
		break;
	case RK_EXT_MESH:
		if (!fuzz_in(v->ref, s->meshes.data, s->meshes.count, sizeof(rk_mesh))) abort();
		break;
	case RK_EXT_MATERIAL:
		if (!fuzz_in(v->ref, s->materials.data, s->materials.count, sizeof(rk_material))) abort();
		break;
	case RK_EXT_TEXTURE:
	case RK_EXT_IMAGE:
		if (!fuzz_in(v->ref, s->textures.data, s->textures.count, sizeof(rk_texture))) abort();
		break;
	default: fuzz_sink += v->number; break;
	}
}

static void fuzz_scene(const rk_scene *s)
{
	for (size_t i = 0; i < s->hints.count; i++) {
		const rk_declared_hint *h = &s->hints.data[i];
		if (!h->scheme || !h->key || !h->origin || !fuzz_in(h->node, s->nodes.data, s->nodes.count, sizeof(rk_node))) abort();
	}
	for (size_t i = 0; i < s->extensions.count; i++) {
		const rk_extension *e = &s->extensions.data[i];
		if (!e->name || e->value.kind != RK_EXT_OBJECT) abort();
		if (e->owner == RK_EXT_OWNER_NODE && !fuzz_in(e->node, s->nodes.data, s->nodes.count, sizeof(rk_node))) abort();
		if (e->owner == RK_EXT_OWNER_MATERIAL
			&& !fuzz_in(e->material, s->materials.data, s->materials.count, sizeof(rk_material)))
			abort();
		fuzz_ext_value(s, &e->value, false, 0);
	}
	if (s->nodes.count == 0 || s->root != &s->nodes.data[0] || s->root->parent) abort();
	for (size_t i = 0; i < s->nodes.count; i++) {
		const rk_node *n = &s->nodes.data[i];
		if (n->index != i || !n->name) abort();
		if (i > 0 && (!n->parent || n->parent->index >= i)) abort();
		for (size_t c = 0; c < n->children.count; c++)
			if (n->children.data[c]->parent != n) abort();
		fuzz_sink += n->node_to_world.m[12] + n->props.rotation.x;
		if (n->light && !fuzz_in(n->light, s->lights.data, s->lights.count, sizeof(rk_light))) abort();
		if (n->camera && !fuzz_in(n->camera, s->cameras.data, s->cameras.count, sizeof(rk_camera))) abort();
		if (n->extras) fuzz_ext_value(s, n->extras, false, 0);
		if (n->mesh && n->blend_weights)
			for (size_t k = 0; k < n->mesh->blend_channels.count; k++) fuzz_sink += n->blend_weights[k];
	}
	for (size_t m = 0; m < s->meshes.count; m++) fuzz_mesh(&s->meshes.data[m]);
	for (size_t k = 0; k < s->lights.count; k++) fuzz_sink += s->lights.data[k].intensity + s->lights.data[k].to_node.w;
	for (size_t k = 0; k < s->cameras.count; k++) fuzz_sink += s->cameras.data[k].yfov + s->cameras.data[k].zfar;
	if (s->asset_extras) fuzz_ext_value(s, s->asset_extras, false, 0);
	for (size_t k = 0; k < s->skins.count; k++) {
		const rk_skin_deformer *sk = &s->skins.data[k];
		for (size_t j = 0; j < sk->joint_count; j++) fuzz_sink += sk->joints[j].joint_to_world_bind.m[0] + (double)sk->joints[j].node->index;
		if (sk->weight_begin[0] != 0 || sk->weight_begin[sk->vertex_count] != sk->weight_count) abort();
		for (size_t v = 0; v < sk->vertex_count; v++) {
			if (sk->weight_begin[v + 1] < sk->weight_begin[v]) abort();
			if (sk->weight_begin[v + 1] - sk->weight_begin[v] > sk->max_weights_per_vertex) abort();
		}
		for (size_t w = 0; w < sk->weight_count; w++)
			if (sk->weights[w].joint >= sk->joint_count) abort();
	}
	for (size_t t = 0; t < s->textures.count; t++) {
		const rk_texture *x = &s->textures.data[t];
		if (!x->name || !x->filename || !x->mime_type) abort();
		for (size_t b = 0; b < x->content_size; b++) fuzz_sink += x->content[b];
	}
	for (size_t c = 0; c < s->clips.count; c++) {
		const rk_anim_clip *clip = &s->clips.data[c];
		for (size_t l = 0; l < clip->layer_count; l++) {
			for (size_t t = 0; t < clip->layers[l].track_count; t++) {
				const rk_anim_track *tr = &clip->layers[l].tracks[t];
				size_t per = tr->components * (tr->interpolation == RK_INTERP_CUBIC ? 3u : 1u);
				if (!tr->node) abort();
				for (size_t k = 0; k < tr->key_count; k++) {
					fuzz_sink += tr->times[k];
					for (size_t v = 0; v < per; v++) fuzz_sink += tr->values[k * per + v];
				}
			}
		}
	}
	for (size_t w = 0; w < s->warnings.count; w++)
		if (!s->warnings.data[w].message || !s->warnings.data[w].message[0] || !s->warnings.data[w].path) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_counter counter = { 0, 0 };
	rk_load_opts opts;
	memset(&opts, 0, sizeof(opts));
	opts.allocator.alloc = fuzz_alloc;
	opts.allocator.free = fuzz_free;
	opts.allocator.user = &counter;
	opts.memory_limit = (size_t)64 << 20;
	opts.file_size_limit = (size_t)16 << 20;
	opts.max_depth = 64;
	opts.max_elements = (size_t)1 << 20;
	if (size > 0) {
		uint8_t last = data[size - 1];
		opts.ignore_geometry = (last & 0x7) == 1;
		opts.ignore_animation = (last & 0x7) == 2;
		opts.no_embedded_content = (last & 0x7) == 3;
	}
	rk_file_format format = rk_format_detect(data, size);
	if (format != RK_FORMAT_GLTF && format != RK_FORMAT_GLB) return 0;  /* other parsers have their own targets */
	rk_error err;
	rk_scene *s = rk_load_memory(data, size, &opts, &err);
	if (s) {
		fuzz_scene(s);
		rk_scene_free(s);
	} else if (err.code == RK_OK || !err.message[0] || !err.description) {
		abort();
	}
	if (counter.live_bytes != 0 || counter.live_blocks != 0) abort();
	return 0;
}
