/* src/core/png_write.c - rki_png_encode (image_internal.h) with
 * stb_image_write (Debian libstb headers).
 *
 * The one file of the library that compiles stb_image_write's
 * implementation. It does so with STB_IMAGE_WRITE_STATIC, so every stb
 * symbol is private to this file: no clash with the copy libstb itself
 * exports, and the bytes depend only on the header compiled in. stb's own
 * option globals (compression level 8, adaptive filter, no flip) are only
 * read here, never written. stb allocates its buffers with malloc/free. */
#include "core/png.h"

#include <limits.h>
#include <stdlib.h>
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
	unsigned char *data;
	size_t size;
	bool failed;
} rki_png_sink;

/* stb hands over the finished PNG in one call; concatenate defensively. */
static void rki_png_collect(void *context, void *data, int size)
{
	rki_png_sink *o = (rki_png_sink *)context;
	if (o->failed || size <= 0) return;
	size_t total;
	if (!rki_add_size(o->size, (size_t)size, &total)) {
		o->failed = true;
		return;
	}
	unsigned char *p = (unsigned char *)realloc(o->data, total);
	if (!p) {
		o->failed = true;
		return;
	}
	memcpy(p + o->size, data, (size_t)size);
	o->data = p;
	o->size = total;
}

bool rki_png_encode(const unsigned char *pixels, uint32_t width, uint32_t height, int comps, size_t stride,
	unsigned char **out, size_t *out_size, rk_error *err)
{
	*out = NULL;
	*out_size = 0;
	if (!pixels || width == 0 || height == 0 || comps < 1 || comps > 4) {
		rki_error_set(err, RK_ERROR_INVALID_ARGUMENT, "PNG encoder: no pixels or a %u x %u x %d image", (unsigned)width,
			(unsigned)height, comps);
		return false;
	}
	size_t row = (size_t)width * (size_t)comps;
	if (stride == 0) stride = row;
	if (stride < row) {
		rki_error_set(err, RK_ERROR_INVALID_ARGUMENT, "PNG encoder: stride %zu < width * %d = %zu", stride, comps, row);
		return false;
	}
	/* stb keeps sizes in int: the filtered image is height * (row + 1) bytes. */
	if (width > (uint32_t)(INT_MAX / 4) || height > (uint32_t)INT_MAX || stride > (size_t)INT_MAX ||
		(row + 1) > (size_t)INT_MAX / height) {
		rki_error_set(err, RK_ERROR_LIMIT, "PNG encoder: %u x %u pixels are too many", (unsigned)width, (unsigned)height);
		return false;
	}
	rki_png_sink o = { NULL, 0, false };
	int ok = stbi_write_png_to_func(rki_png_collect, &o, (int)width, (int)height, comps, pixels, (int)stride);
	if (!ok || o.failed || !o.data) {
		free(o.data);
		rki_error_set(err, RK_ERROR_OUT_OF_MEMORY, "PNG encoder: out of memory encoding %u x %u pixels", (unsigned)width,
			(unsigned)height);
		return false;
	}
	*out = o.data;
	*out_size = o.size;
	return true;
}
