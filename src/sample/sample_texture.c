/* src/sample/sample_texture.c - the sample characters' checker texture as
 * PNG bytes, encoded with stb_image_write (Debian libstb headers).
 *
 * This is the one file of the library that compiles stb_image_write's
 * implementation. It does so with STB_IMAGE_WRITE_STATIC, so every stb
 * symbol is private to this file: no clash with the copy libstb itself
 * exports, and the bytes depend only on the header compiled in. stb's own
 * globals (compression level, filter, flip flag) are only read here. stb
 * allocates its temporary buffers with malloc/free (not the scene's
 * allocator); the finished PNG is copied into the scene arena. */
#include "sample_internal.h"

#include <string.h>

#define STB_IMAGE_WRITE_STATIC
#define STB_IMAGE_WRITE_IMPLEMENTATION
#define STBI_WRITE_NO_STDIO
#if defined(__GNUC__) || defined(__clang__)
/* Unused stb functions are reported at the end of the file (one of them,
 * stbi_write_hdr_to_func, is declared but not defined with NO_STDIO), so this
 * one stays off for the whole (small) file. */
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-variable"
#pragma GCC diagnostic ignored "-Wshadow"
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#pragma GCC diagnostic ignored "-Wsign-compare"
#endif
#include <stb/stb_image_write.h>
#if defined(__GNUC__) || defined(__clang__)
#pragma GCC diagnostic pop
#endif

typedef struct rki_png_sink {
	rki_arena *arena;
	unsigned char *data;
	size_t size;
	bool failed;
} rki_png_sink;

static void rki_png_write(void *context, void *data, int size)
{
	rki_png_sink *s = (rki_png_sink *)context;
	if (s->failed || size <= 0) return;
	size_t total;
	if (!rki_add_size(s->size, (size_t)size, &total)) {
		s->failed = true;
		return;
	}
	unsigned char *p = (unsigned char *)rki_arena_alloc_uninit(s->arena, total);
	if (!p) {
		s->failed = true;
		return;
	}
	if (s->size) memcpy(p, s->data, s->size);
	memcpy(p + s->size, data, (size_t)size);
	s->data = p;
	s->size = total;
}

bool rki_sample_checker_png(rki_arena *arena, rki_arena *tmp, uint32_t size, uint32_t cell, const unsigned char a[3],
	const unsigned char b[3], const unsigned char **out_data, size_t *out_size)
{
	*out_data = NULL;
	*out_size = 0;
	if (size == 0 || size > 1024 || cell == 0) return false;
	size_t bytes = (size_t)size * size * 3;
	unsigned char *pixels = (unsigned char *)rki_arena_alloc_uninit(tmp, bytes);
	if (!pixels) return false;
	for (uint32_t y = 0; y < size; y++) {
		for (uint32_t x = 0; x < size; x++) {
			const unsigned char *c = ((x / cell) + (y / cell)) % 2 ? b : a;
			memcpy(pixels + ((size_t)y * size + x) * 3, c, 3);
		}
	}
	rki_png_sink sink = { arena, NULL, 0, false };
	int ok = stbi_write_png_to_func(rki_png_write, &sink, (int)size, (int)size, 3, pixels, (int)(size * 3));
	if (!ok || sink.failed || !sink.data) return false;
	*out_data = sink.data;
	*out_size = sink.size;
	return true;
}
