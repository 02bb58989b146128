/*
 * bench/peer_cgltf_load.c - the cgltf peer of bench_load for glTF / GLB:
 * cgltf (https://github.com/jkuhlmann/cgltf) parses the file, loads its
 * buffers, validates, and unpacks every accessor into floats (indices into
 * uint32), the work a loader that hands out plain arrays does. Prints
 * "cgltf FILE BYTES MEDIAN_SECONDS MB_PER_S [PEAK_BYTES]" like bench_load -c.
 *
 * cgltf is not part of rigkit and is not in the repository: scripts/bench.sh
 * compiles this file against cgltf.h from the folder named by
 * RIGKIT_PEER_CGLTF (a checkout made outside the repository) and skips the
 * cgltf rows without it. The process's CPU time, median of RUNS loads after
 * one untimed load (frees are not timed); -m adds the peak of the bytes held by one load:
 * cgltf's own allocations (its memory callbacks) plus the unpacked arrays.
 *
 * usage: peer_cgltf_load [-n RUNS] [-m] FILE...
 */
#define CGLTF_IMPLEMENTATION
#include "bench_loader.h"

#include "cgltf.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Each block carries its size in front so frees can be counted. */
typedef union block_head { size_t size; max_align_t align; } block_head;

static void *count_alloc(void *user, cgltf_size size)
{
	block_head *h = (block_head *)malloc(sizeof(block_head) + size);
	if (!h) return NULL;
	h->size = size;
	if (user) bench_peak_add((bench_peak *)user, size);
	return h + 1;
}

static void count_free(void *user, void *ptr)
{
	if (!ptr) return;
	block_head *h = (block_head *)ptr - 1;
	if (user) bench_peak_sub((bench_peak *)user, h->size);
	free(h);
}

/* A load's result: cgltf's data and the unpacked accessors. */
typedef struct cgltf_result_set { cgltf_data *data; size_t count; void *arrays[]; } cgltf_result_set;

static void unload_cgltf(void *ctx, void *result, bench_peak *counter)
{
	(void)ctx;
	cgltf_result_set *r = (cgltf_result_set *)result;
	for (size_t i = 0; i < r->count; i++) count_free(counter, r->arrays[i]);
	cgltf_free(r->data);
	count_free(counter, r);
}

/* One load: parse, buffers, validate, every accessor unpacked (indices of
 * primitives to uint32, everything else to float). */
static void *load_cgltf(void *ctx, const char *path, bench_peak *counter)
{
	(void)ctx;
	cgltf_options o;
	memset(&o, 0, sizeof(o));
	o.memory.alloc_func = count_alloc;
	o.memory.free_func = count_free;
	o.memory.user_data = counter;
	cgltf_data *d = NULL;
	if (cgltf_parse_file(&o, path, &d) != cgltf_result_success) return NULL;
	cgltf_result_set *r = NULL;
	if (cgltf_load_buffers(&o, d, path) == cgltf_result_success && cgltf_validate(d) == cgltf_result_success)
		r = (cgltf_result_set *)count_alloc(counter, sizeof(*r) + sizeof(void *) * d->accessors_count);
	if (!r) {
		cgltf_free(d);
		return NULL;
	}
	r->data = d;
	r->count = 0;
	for (size_t i = 0; i < d->accessors_count; i++) {
		const cgltf_accessor *acc = &d->accessors[i];
		bool is_index = false;
		for (size_t m = 0; m < d->meshes_count && !is_index; m++)
			for (size_t p = 0; p < d->meshes[m].primitives_count; p++)
				if (d->meshes[m].primitives[p].indices == acc) is_index = true;
		size_t n = is_index ? acc->count : cgltf_num_components(acc->type) * acc->count;
		void *v = count_alloc(counter, 4 * (n ? n : 1));
		if (!v) {
			unload_cgltf(NULL, r, counter);
			return NULL;
		}
		if (is_index)
			cgltf_accessor_unpack_indices(acc, v, sizeof(uint32_t), n);
		else
			cgltf_accessor_unpack_floats(acc, (float *)v, n);
		r->arrays[r->count++] = v;
	}
	return r;
}

int main(int argc, char **argv)
{
	bench_load_flags fl;
	int first = bench_load_parse(argc, argv, &fl);
	fl.cpu = true;
	bench_loader l = { "cgltf", load_cgltf, unload_cgltf, NULL };
	return bench_load_files(&l, &fl, first, argc, argv);
}
