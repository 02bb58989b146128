/*
 * fuzz/fuzz_fbx_dom.c - libFuzzer target for the FBX document parser
 * (src/formats/fbx/fbx_dom.c), binary and ASCII.
 *
 * Parses the input with small limits and memory caps, then walks the tree and
 * calls every accessor (scalars, array conversions, node paths). Aborts when
 * a failure has no error code/message, or when temporary or arena memory is
 * left allocated. See fuzz/README.md for how to build and run it.
 */
#include "formats/fbx/fbx_dom.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Array conversions are skipped above this size to keep each run fast. */
#define FUZZ_MAX_CONVERT 65536u

static void fuzz_walk(const rki_fbx_node *n, rki_arena *scratch, size_t depth)
{
	char path[64];
	rki_fbx_node_path(n, path, sizeof(path));
	if (strlen(path) >= sizeof(path)) abort();
	for (size_t i = 0; i < n->prop_count; i++) {
		int64_t iv;
		double fv;
		const char *s;
		size_t len;
		(void)rki_fbx_prop_i64(n, i, &iv);
		(void)rki_fbx_prop_f64(n, i, &fv);
		if (rki_fbx_prop_str(n, i, &s, &len) && s[len] != '\0') abort();
		const rki_fbx_prop *pr = &n->props[i];
		bool is_array = strchr("fdlibc", pr->type) != NULL && pr->type != '\0';
		if ((is_array && pr->v.a.count <= FUZZ_MAX_CONVERT) || (i == 0 && n->prop_count <= FUZZ_MAX_CONVERT)) {
			const double *d;
			const int32_t *i32;
			const int64_t *i64;
			size_t count;
			rk_error err;
			if (!rki_fbx_array_f64(n, i, scratch, &d, &count, &err) && (err.code == RK_OK || !err.message[0])) abort();
			if (!rki_fbx_array_i32(n, i, scratch, &i32, &count, &err) && (err.code == RK_OK || !err.message[0])) abort();
			if (!rki_fbx_array_i64(n, i, scratch, &i64, &count, &err) && (err.code == RK_OK || !err.message[0])) abort();
		}
	}
	(void)rki_fbx_find_child(n, "Objects");
	for (size_t i = 0; i < n->child_count; i++) {
		if (n->children[i].parent != n) abort();
		fuzz_walk(&n->children[i], scratch, depth + 1);  /* depth <= max_depth (32) */
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	rki_alloc arena_alloc, tmp, scratch_alloc;
	rki_alloc_init(&arena_alloc, NULL, (size_t)256 << 20, 0);
	rki_alloc_init(&tmp, NULL, (size_t)64 << 20, 0);
	rki_alloc_init(&scratch_alloc, NULL, (size_t)256 << 20, 0);
	rki_arena arena, scratch;
	rki_arena_init(&arena, &arena_alloc);
	rki_arena_init(&scratch, &scratch_alloc);
	rki_fbx_limits lim;
	memset(&lim, 0, sizeof(lim));
	lim.max_depth = 32;
	lim.max_nodes = 200000;
	lim.max_array_elems = (size_t)1 << 22;
	lim.max_total_array_bytes = (size_t)64 << 20;

	(void)rki_fbx_is_fbx(data, size);
	rki_fbx_doc doc;
	rk_error err;
	memset(&err, 0, sizeof(err));
	if (rki_fbx_parse(&doc, data, size, &arena, &tmp, &lim, &err)) {
		if (doc.root.parent != NULL) abort();
		fuzz_walk(&doc.root, &scratch, 0);
	} else {
		if (err.code == RK_OK || !err.message[0] || !(err.location & RK_LOCATION_BYTE) || err.byte_offset > size)
			abort();
	}
	if (tmp.bytes_in_use != 0) abort();
	rki_arena_free(&scratch);
	rki_arena_free(&arena);
	if (arena_alloc.bytes_in_use != 0 || scratch_alloc.bytes_in_use != 0) abort();
	return 0;
}
