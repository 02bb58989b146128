/* src/render/render_png.c - rk_write_png (rigkit/render.h): RGBA8 -> PNG
 * bytes in memory with stb_image_write (Debian libstb headers), then
 * rk_write_file_atomic.
 *
 * Like src/sample/sample_texture.c, this file compiles a private copy of
 * stb_image_write's implementation (STB_IMAGE_WRITE_STATIC): every stb symbol
 * stays local to this file, and stb's option globals (compression level 8,
 * adaptive filter, no flip) are only read, so equal pixels give equal bytes.
 * stb allocates its buffers with malloc/free. */
#include "core/internal.h"
#include "rigkit/render.h"

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

typedef struct rki_png_out {
	unsigned char *data;
	size_t size;
	bool failed;
} rki_png_out;

/* stb hands over the finished PNG in one call; concatenate defensively. */
static void rki_png_collect(void *context, void *data, int size)
{
	rki_png_out *o = (rki_png_out *)context;
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

bool rk_write_png(const char *path, const unsigned char *rgba, uint32_t width, uint32_t height, size_t stride,
	rk_error *err)
{
	rki_error_clear(err);
	if (!path || !rgba) {
		rki_error_set(err, RK_ERROR_INVALID_ARGUMENT, "rk_write_png: NULL path or pixels");
		return false;
	}
	if (width == 0 || height == 0) {
		rki_error_set(err, RK_ERROR_INVALID_ARGUMENT, "rk_write_png: %s: image size %u x %u", path, (unsigned)width,
			(unsigned)height);
		return false;
	}
	size_t row = (size_t)width * 4u;
	if (stride == 0) stride = row;
	if (stride < row) {
		rki_error_set(err, RK_ERROR_INVALID_ARGUMENT, "rk_write_png: %s: stride %zu < width * 4 = %zu", path, stride, row);
		return false;
	}
	/* stb's encoder keeps sizes in int: the filtered image is height * (row + 1) bytes. */
	if (width > INT_MAX / 4 || height > INT_MAX || stride > INT_MAX || (row + 1) > (size_t)INT_MAX / height) {
		rki_error_set(err, RK_ERROR_LIMIT, "rk_write_png: %s: %u x %u pixels are too many for the PNG encoder", path,
			(unsigned)width, (unsigned)height);
		return false;
	}
	rki_png_out o = { NULL, 0, false };
	int ok = stbi_write_png_to_func(rki_png_collect, &o, (int)width, (int)height, 4, rgba, (int)stride);
	if (!ok || o.failed || !o.data) {
		free(o.data);
		rki_error_set(err, RK_ERROR_OUT_OF_MEMORY, "rk_write_png: %s: out of memory encoding %u x %u pixels", path,
			(unsigned)width, (unsigned)height);
		return false;
	}
	bool written = rk_write_file_atomic(path, o.data, o.size, err);
	free(o.data);
	return written;
}
