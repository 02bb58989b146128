/*
 * tests/rk_bombs.h - small files that claim a lot (issue 18): built in
 * memory, shared by tests/test_limits.c and bench/bench_bombs.c. Written
 * from the format descriptions in tests/fixtures/README.md (binary FBX) and
 * the glTF 2.0 GLB layout; header-only, libdeflate for the zlib streams.
 * Each returns a malloc'd buffer (free it) and its size, NULL on OOM.
 */
#ifndef RK_BOMBS_H
#define RK_BOMBS_H

#include <libdeflate.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct rk_bomb_buf { unsigned char *data; size_t len, cap; bool failed; } rk_bomb_buf;

static inline void rk_bomb_put(rk_bomb_buf *b, const void *src, size_t n)
{
	if (b->failed) return;
	if (b->len + n > b->cap) {
		size_t cap = b->cap ? b->cap : 4096;
		while (cap < b->len + n) cap *= 2;
		unsigned char *d = (unsigned char *)realloc(b->data, cap);
		if (!d) { b->failed = true; return; }
		b->data = d;
		b->cap = cap;
	}
	memcpy(b->data + b->len, src, n);
	b->len += n;
}

static inline void rk_bomb_u32_at(rk_bomb_buf *b, size_t at, uint32_t v)
{
	if (b->failed) return;
	for (int i = 0; i < 4; i++) b->data[at + (size_t)i] = (unsigned char)(v >> (8 * i));
}

static inline void rk_bomb_u32(rk_bomb_buf *b, uint32_t v)
{
	unsigned char x[4] = { (unsigned char)v, (unsigned char)(v >> 8), (unsigned char)(v >> 16), (unsigned char)(v >> 24) };
	rk_bomb_put(b, x, 4);
}

/* FBX 7400 node record header; returns its start (end offset patched by
 * rk_bomb_fbx_end). */
static inline size_t rk_bomb_fbx_begin(rk_bomb_buf *b, const char *name, uint32_t props, uint32_t props_len)
{
	size_t at = b->len;
	rk_bomb_u32(b, 0);
	rk_bomb_u32(b, props);
	rk_bomb_u32(b, props_len);
	unsigned char n = (unsigned char)strlen(name);
	rk_bomb_put(b, &n, 1);
	rk_bomb_put(b, name, n);
	return at;
}

static inline void rk_bomb_fbx_end(rk_bomb_buf *b, size_t at, bool nested)
{
	static const unsigned char null_record[13] = { 0 };
	if (nested) rk_bomb_put(b, null_record, 13);
	rk_bomb_u32_at(b, at, (uint32_t)b->len);
}

/* Binary FBX 7400 whose Objects hold `arrays` Geometry nodes, each with a
 * "Vertices" double array of `doubles` zeros stored zlib-compressed (a few
 * KB each): the file is tiny, the decoded arrays arrays x doubles x 8
 * bytes. */
static inline unsigned char *rk_bomb_fbx_deflate(size_t arrays, uint32_t doubles, size_t *size)
{
	rk_bomb_buf b = { 0 };
	rk_bomb_put(&b, "Kaydara FBX Binary  \0\x1a\0", 23);
	rk_bomb_u32(&b, 7400);
	size_t raw_size = (size_t)doubles * 8;
	unsigned char *raw = (unsigned char *)calloc(raw_size ? raw_size : 1, 1);
	struct libdeflate_compressor *c = libdeflate_alloc_compressor(12);
	size_t zcap = c ? libdeflate_zlib_compress_bound(c, raw_size) : 0;
	unsigned char *z = (unsigned char *)malloc(zcap ? zcap : 1);
	size_t zlen = raw && c && z ? libdeflate_zlib_compress(c, raw, raw_size, z, zcap) : 0;
	free(raw);
	if (c) libdeflate_free_compressor(c);
	if (!zlen) {
		free(z);
		free(b.data);
		return NULL;
	}
	size_t objects = rk_bomb_fbx_begin(&b, "Objects", 0, 0);
	for (size_t i = 0; i < arrays; i++) {
		/* Geometry: L id, S "Geo\0\1Geometry", S "Mesh" */
		char name[32];
		int nl = snprintf(name, sizeof(name), "Geo%zu", i);
		const char cls[] = "\x00\x01Geometry";
		uint32_t sl = (uint32_t)nl + (uint32_t)sizeof(cls) - 1;
		uint32_t plen = 9 + (5 + sl) + (5 + 4);
		size_t g = rk_bomb_fbx_begin(&b, "Geometry", 3, plen);
		unsigned char t = 'L';
		rk_bomb_put(&b, &t, 1);
		int64_t id = 1000 + (int64_t)i;
		rk_bomb_put(&b, &id, 8);
		t = 'S';
		rk_bomb_put(&b, &t, 1);
		rk_bomb_u32(&b, sl);
		rk_bomb_put(&b, name, (size_t)nl);
		rk_bomb_put(&b, cls, sizeof(cls) - 1);
		rk_bomb_put(&b, &t, 1);
		rk_bomb_u32(&b, 4);
		rk_bomb_put(&b, "Mesh", 4);
		size_t v = rk_bomb_fbx_begin(&b, "Vertices", 1, (uint32_t)(13 + zlen));
		t = 'd';
		rk_bomb_put(&b, &t, 1);
		rk_bomb_u32(&b, doubles);
		rk_bomb_u32(&b, 1);
		rk_bomb_u32(&b, (uint32_t)zlen);
		rk_bomb_put(&b, z, zlen);
		rk_bomb_fbx_end(&b, v, false);
		rk_bomb_fbx_end(&b, g, true);
	}
	rk_bomb_fbx_end(&b, objects, true);
	static const unsigned char null_record[13] = { 0 };
	rk_bomb_put(&b, null_record, 13);
	free(z);
	if (b.failed) {
		free(b.data);
		return NULL;
	}
	*size = b.len;
	return b.data;
}

/* GLB of `nodes` empty nodes ({} each, all roots of scene 0 by omission). */
static inline unsigned char *rk_bomb_glb_nodes(size_t nodes, size_t *size)
{
	rk_bomb_buf j = { 0 };
	const char head[] = "{\"asset\":{\"version\":\"2.0\"},\"nodes\":[";
	rk_bomb_put(&j, head, sizeof(head) - 1);
	for (size_t i = 0; i < nodes; i++) rk_bomb_put(&j, i ? ",{}" : "{}", i ? 3 : 2);
	rk_bomb_put(&j, "]}", 2);
	while (j.len % 4) rk_bomb_put(&j, " ", 1);
	rk_bomb_buf b = { 0 };
	rk_bomb_put(&b, "glTF", 4);
	rk_bomb_u32(&b, 2);
	rk_bomb_u32(&b, (uint32_t)(12 + 8 + j.len));
	rk_bomb_u32(&b, (uint32_t)j.len);
	rk_bomb_put(&b, "JSON", 4);
	if (!j.failed) rk_bomb_put(&b, j.data, j.len);
	free(j.data);
	if (j.failed || b.failed) {
		free(b.data);
		return NULL;
	}
	*size = b.len;
	return b.data;
}

#endif
