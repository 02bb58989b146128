/*
 * fuzz/fuzz_fbx_write.c - libFuzzer target for the FBX writer (src/export/fbx):
 * the fuzzer-made scene is whatever rk_load_memory() makes of the input (any
 * format rigkit reads: FBX binary/ASCII, glTF/GLB, BVH), so every oddity a
 * reader lets through reaches the writer. Each loaded scene is written with
 * rk_fbx_write_memory() (the last input byte picks binary 7400, 7500 without
 * compression, or ASCII) and read back. The target aborts when the write
 * fails with anything but a limit or an unsupported-size error, when the
 * written file does not load, or when the read-back scene has another
 * number of nodes, meshes, skins, materials or clips (FBX adds no node
 * unless the scene root carries a conversion, which default loads never
 * do). Run: see fuzz/README.md; seeds: tests/fixtures.
 */
#include "rigkit/export.h"
#include "rigkit/load.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	rk_load_opts lo;
	memset(&lo, 0, sizeof(lo));
	lo.memory_limit = 64u << 20;
	lo.max_elements = 1u << 16;
	lo.threads = 1;
	rk_error err;
	rk_scene *s = rk_load_memory(data, size, &lo, &err);
	if (!s) return 0;
	unsigned sel = size ? data[size - 1] % 3u : 0u;
	rk_fbx_write_opts o;
	memset(&o, 0, sizeof(o));
	o.version = sel == 1 ? 7500 : 7400;
	o.no_compression = sel == 1;
	o.ascii = sel == 2;
	o.memory_limit = 256u << 20;
	o.max_frames = 20000;
	void *out = NULL;
	size_t out_size = 0;
	if (!rk_fbx_write_memory(s, &o, &out, &out_size, &err)) {
		if (err.code != RK_ERROR_LIMIT && err.code != RK_ERROR_OUT_OF_MEMORY && err.code != RK_ERROR_UNSUPPORTED) abort();
		if (!err.message[0]) abort();
		rk_scene_free(s);
		return 0;
	}
	rk_load_opts lb;
	memset(&lb, 0, sizeof(lb));
	lb.threads = 1;
	rk_scene *b = rk_load_memory(out, out_size, &lb, &err);
	if (!b) abort();
	if (b->nodes.count != s->nodes.count || b->meshes.count != s->meshes.count || b->materials.count != s->materials.count ||
		b->clips.count != s->clips.count)
		abort();
	rk_scene_free(b);
	rk_fbx_memory_free(out);
	rk_scene_free(s);
	return 0;
}
