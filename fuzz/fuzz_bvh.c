/*
 * fuzz/fuzz_bvh.c - libFuzzer target for the BVH reader (src/formats/bvh)
 * and, on what it loads, the BVH writer (src/export/bvh).
 *
 * Each input is loaded from memory with small limits (64 MiB, 16 MiB input,
 * depth 64, 2^20 elements) and a counting allocator; the last byte also
 * switches ignore_animation on. A loaded scene is walked completely (every
 * node link, every track's curve keys). It is then written back with
 * rk_bvh_write_memory(), and what the writer produced must load again. The
 * target aborts when a failed load has no error code or message or no line,
 * when a link or key array is inconsistent, when memory is still held after
 * rk_scene_free(), or when the writer's own output does not load.
 * See fuzz/README.md.
 */
#include "rigkit/export.h"
#include "rigkit/load.h"
#include "rigkit/scene.h"

#include "fuzz_alloc.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile double fuzz_sink;

static void fuzz_scene(const rk_scene *s)
{
	if (s->nodes.count == 0 || s->root != &s->nodes.data[0] || s->root->parent) abort();
	for (size_t i = 0; i < s->nodes.count; i++) {
		const rk_node *n = &s->nodes.data[i];
		if (n->index != i || !n->name || !n->attribute_type) abort();
		if (i > 0 && (!n->parent || n->parent->index >= i || n->kind != RK_NODE_JOINT)) abort();
		for (size_t c = 0; c < n->children.count; c++)
			if (n->children.data[c]->parent != n) abort();
		fuzz_sink += n->node_to_world.m[12] + n->props.translation.x;
	}
	for (size_t c = 0; c < s->clips.count; c++) {
		const rk_anim_clip *clip = &s->clips.data[c];
		if (!(clip->time_end >= clip->time_begin)) abort();
		for (size_t l = 0; l < clip->layer_count; l++)
			for (size_t t = 0; t < clip->layers[l].track_count; t++) {
				const rk_anim_track *tr = &clip->layers[l].tracks[t];
				if (!tr->node || tr->node->index >= s->nodes.count) abort();
				for (int k = 0; k < 4; k++) {
					const rk_anim_curve *cv = tr->curves[k];
					if (!cv) continue;
					for (size_t i = 0; i < cv->key_count; i++) {
						if (i > 0 && !(cv->times[i] > cv->times[i - 1])) abort();
						fuzz_sink += cv->values[i];
					}
				}
			}
	}
	for (size_t w = 0; w < s->warnings.count; w++)
		if (!s->warnings.data[w].message || !s->warnings.data[w].message[0]) abort();
}

static rk_scene *fuzz_load(const void *data, size_t size, fuzz_counter *counter, bool ignore_animation, rk_error *err)
{
	rk_load_opts opts;
	memset(&opts, 0, sizeof(opts));
	opts.allocator.alloc = fuzz_alloc;
	opts.allocator.free = fuzz_free;
	opts.allocator.user = counter;
	opts.memory_limit = (size_t)64 << 20;
	opts.file_size_limit = (size_t)16 << 20;
	opts.max_depth = 64;
	opts.max_elements = (size_t)1 << 20;
	opts.ignore_animation = ignore_animation;
	return rk_load_memory(data, size, &opts, err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (rk_format_detect(data, size) != RK_FORMAT_BVH) return 0;  /* other parsers have their own targets */
	fuzz_counter counter = { 0, 0 };
	rk_error err;
	rk_scene *s = fuzz_load(data, size, &counter, size > 0 && (data[size - 1] & 0x7) == 2, &err);
	if (s) {
		fuzz_scene(s);
		char *text = NULL;
		size_t text_size = 0;
		rk_error werr;
		if (rk_bvh_write_memory(s, NULL, &text, &text_size, &werr)) {
			fuzz_counter again = { 0, 0 };
			rk_scene *back = fuzz_load(text, text_size, &again, false, &err);
			if (!back) abort();
			fuzz_scene(back);
			rk_scene_free(back);
			if (again.live_bytes || again.live_blocks) abort();
			rk_bvh_memory_free(text);
		} else if (werr.code == RK_OK || !werr.message[0]) {
			abort();
		}
		rk_scene_free(s);
	} else if (err.code == RK_OK || !err.message[0] || !err.description
		|| (err.code != RK_ERROR_OUT_OF_MEMORY && err.code != RK_ERROR_LIMIT && !(err.location & RK_LOCATION_LINE))) {
		abort();
	}
	if (counter.live_bytes != 0 || counter.live_blocks != 0) abort();
	return 0;
}
