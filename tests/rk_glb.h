/*
 * tests/rk_glb.h - GLB containers for the glTF tests (test_gltf_read.c,
 * test_gltf_compressed.c): a GLB from JSON text and BIN bytes, built by
 * hand after the GLB layout of the glTF 2.0 specification.
 */
#ifndef RK_GLB_H
#define RK_GLB_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static inline void put32(unsigned char *p, uint32_t v)
{
	for (int k = 0; k < 4; k++) p[k] = (unsigned char)(v >> (8 * k));
}

static inline uint32_t get32(const unsigned char *p)
{
	return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

/* GLB from JSON text and BIN bytes (both padded to 4: JSON with spaces, BIN
 * with zeros; bin NULL = no BIN chunk). Returns malloc'd data, *size bytes. */
static inline unsigned char *make_glb(const char *json, const void *bin, size_t bin_size, size_t *size)
{
	size_t jl = strlen(json), jp = (jl + 3) & ~(size_t)3, bp = (bin_size + 3) & ~(size_t)3;
	size_t total = 12 + 8 + jp + (bin ? 8 + bp : 0);
	unsigned char *d = (unsigned char *)calloc(1, total);
	memcpy(d, "glTF", 4);
	put32(d + 4, 2);
	put32(d + 8, (uint32_t)total);
	put32(d + 12, (uint32_t)jp);
	put32(d + 16, 0x4E4F534A);
	memcpy(d + 20, json, jl);
	for (size_t i = jl; i < jp; i++) d[20 + i] = ' ';
	if (bin) {
		put32(d + 20 + jp, (uint32_t)bp);
		put32(d + 24 + jp, 0x004E4942);
		memcpy(d + 28 + jp, bin, bin_size);
	}
	*size = total;
	return d;
}

#endif
