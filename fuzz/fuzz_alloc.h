/*
 * fuzz/fuzz_alloc.h - the counting allocator of the fuzz targets (fuzz_gltf,
 * fuzz_bvh, fuzz_image): an rk_allocator whose user is a fuzz_counter;
 * freeing NULL does nothing, freeing more than was allocated aborts, and a
 * target checks that the counter is back at zero after each input.
 */
#ifndef RIGKIT_FUZZ_ALLOC_H
#define RIGKIT_FUZZ_ALLOC_H

#include <stdlib.h>

typedef struct fuzz_counter {
	size_t live_bytes;
	size_t live_blocks;
} fuzz_counter;

static void *fuzz_alloc(void *user, size_t size)
{
	fuzz_counter *c = (fuzz_counter *)user;
	void *p = malloc(size);
	if (p) {
		c->live_bytes += size;
		c->live_blocks++;
	}
	return p;
}

static void fuzz_free(void *user, void *ptr, size_t size)
{
	fuzz_counter *c = (fuzz_counter *)user;
	if (!ptr) return;
	if (size > c->live_bytes || c->live_blocks == 0) abort();
	c->live_bytes -= size;
	c->live_blocks--;
	free(ptr);
}

#endif
