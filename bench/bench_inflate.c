/*
 * bench/bench_inflate.c - how much of a binary FBX load is zlib alone: the
 * floor under rk_load_file's CPU time on files whose meshes are stored
 * compressed (issue 16: ybot.fbx against Assimp).
 *
 * usage: bench_inflate [-n RUNS] FILE...
 * Prints one line per file:
 *   "inflate FILE ARRAYS ENCODED_BYTES DECODED_BYTES MEDIAN_SECONDS MB_PER_S"
 * The arrays are those rk_load_file decodes for meshes, skins and blend
 * shapes (rki_fbx_mesh_array_names(), under Objects, as the loader's
 * pre-scan finds them) that are stored zlib-compressed; each run inflates
 * every one of them once with libdeflate (the library rigkit loads with),
 * one thread, thread CPU time; the median of RUNS (default 15) after one
 * untimed run. Arrays the loader never reads (Edges, NormalsW, ...) are not
 * counted, so the time is what any load of the file must spend in libdeflate.
 */
#include "bench_common.h"

#include "core/internal.h"
#include "formats/fbx/fbx.h"
#include "formats/fbx/fbx_dom.h"

#include <libdeflate.h>
#include <stdio.h>
#include <string.h>

typedef struct zarray {
	const unsigned char *src;
	size_t clen, bytes;
} zarray;

typedef struct zlist {
	zarray *items;
	size_t count, cap;
	const char *const *names;
	size_t name_count;
} zlist;

static bool listed(const zlist *l, const char *name, size_t len)
{
	for (size_t i = 0; i < l->name_count; i++)
		if (strlen(l->names[i]) == len && memcmp(l->names[i], name, len) == 0) return true;
	return false;
}

/* The pending zlib arrays of node n and its descendants (depth levels). */
static bool collect(zlist *l, const unsigned char *data, const rki_fbx_node *n, int depth)
{
	if (listed(l, n->name, n->name_len)) {
		for (size_t i = 0; i < n->prop_count; i++) {
			const rki_fbx_prop *pr = &n->props[i];
			if (pr->pending != 2) continue;   /* 2: zlib, not decoded yet */
			size_t esize = pr->type == 'd' || pr->type == 'l' ? 8 : pr->type == 'f' || pr->type == 'i' ? 4 : 1;
			if (l->count == l->cap) {
				size_t cap = l->cap ? l->cap * 2 : 64;
				zarray *m = (zarray *)realloc(l->items, cap * sizeof(*m));
				if (!m) return false;
				l->items = m;
				l->cap = cap;
			}
			/* encoded data: after the type code and the 12-byte array header */
			l->items[l->count++] = (zarray){ data + pr->offset + 13, pr->encoded_size, pr->v.a.count * esize };
		}
	}
	if (depth > 0)
		for (size_t i = 0; i < n->child_count; i++)
			if (!collect(l, data, &n->children[i], depth - 1)) return false;
	return true;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static int bench_file(const char *path, int runs)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "bench_inflate: cannot open %s\n", path);
		return 1;
	}
	fseek(f, 0, SEEK_END);
	long size = ftell(f);
	fseek(f, 0, SEEK_SET);
	unsigned char *data = size > 0 ? (unsigned char *)malloc((size_t)size) : NULL;
	if (!data || fread(data, 1, (size_t)size, f) != (size_t)size) {
		fprintf(stderr, "bench_inflate: cannot read %s\n", path);
		fclose(f);
		free(data);
		return 1;
	}
	fclose(f);
	rki_alloc alloc, tmp;
	rki_alloc_init(&alloc, NULL, 0, 0);
	rki_alloc_init(&tmp, NULL, 0, 0);
	rki_arena arena;
	rki_arena_init(&arena, &alloc);
	rki_fbx_doc doc;
	rki_fbx_parse_opts opts;
	memset(&opts, 0, sizeof(opts));
	opts.lazy_arrays = true;
	rk_error err;
	int rc = 1;
	zlist l = { 0 };
	l.names = rki_fbx_mesh_array_names(&l.name_count);
	struct libdeflate_decompressor *inf = libdeflate_alloc_decompressor();
	unsigned char *out = NULL;
	double *t = (double *)malloc((size_t)runs * sizeof(double));
	if (!inf || !t || !rki_fbx_parse_ex(&doc, data, (size_t)size, &arena, &tmp, &opts, &err)) {
		fprintf(stderr, "bench_inflate: %s: not a binary FBX file this build reads\n", path);
		goto done;
	}
	const rki_fbx_node *objects = rki_fbx_find_child(&doc.root, "Objects");
	if (!objects || !collect(&l, data, objects, 3)) goto done;
	size_t most = 0, encoded = 0, decoded = 0;
	for (size_t i = 0; i < l.count; i++) {
		if (l.items[i].bytes > most) most = l.items[i].bytes;
		encoded += l.items[i].clen;
		decoded += l.items[i].bytes;
	}
	out = (unsigned char *)malloc(most ? most : 1);
	if (!out) goto done;
	for (int r = -1; r < runs; r++) {
		double t0 = bench_cpu_now();
		for (size_t i = 0; i < l.count; i++) {
			size_t got;
			if (libdeflate_zlib_decompress(inf, l.items[i].src, l.items[i].clen, out, l.items[i].bytes, &got) !=
				LIBDEFLATE_SUCCESS || got != l.items[i].bytes) {
				fprintf(stderr, "bench_inflate: %s: array %zu does not inflate to its declared size\n", path, i);
				goto done;
			}
		}
		double dt = bench_cpu_now() - t0;
		if (r >= 0) t[r] = dt;
	}
	qsort(t, (size_t)runs, sizeof(double), cmp_double);
	double med = t[runs / 2];
	printf("inflate %s %zu %zu %zu %.6f %.1f\n", path, l.count, encoded, decoded, med,
		med > 0 ? (double)decoded / med / 1e6 : 0.0);
	rc = 0;
done:
	free(out);
	free(t);
	free(l.items);
	if (inf) libdeflate_free_decompressor(inf);
	rki_arena_free(&arena);
	free(data);
	return rc;
}

int main(int argc, char **argv)
{
	int runs = 15, a = 1, rc = 0;
	if (a + 1 < argc && strcmp(argv[a], "-n") == 0) {
		runs = atoi(argv[a + 1]);
		a += 2;
	}
	if (runs < 1 || a >= argc) {
		fprintf(stderr, "usage: bench_inflate [-n RUNS] FILE...\n");
		return 2;
	}
	for (; a < argc; a++) rc |= bench_file(argv[a], runs);
	return rc;
}
