/* src/render/render_png.c - rk_png_write (rigkit/render.h): RGBA8 -> PNG
 * bytes in memory (rki_png_encode, src/core/png_write.c), then
 * rk_file_write. Equal pixels give equal bytes. */
#include "core/internal.h"
#include "core/png.h"
#include "rigkit/render.h"

#include <stdlib.h>
#include <string.h>

bool rk_png_write(const char *path, const unsigned char *rgba, uint32_t width, uint32_t height, size_t stride,
	rk_error *err)
{
	return rk_png_write_file(path, rgba, width, height, stride, NULL, err);
}

bool rk_png_write_file(const char *path, const unsigned char *rgba, uint32_t width, uint32_t height, size_t stride,
	const rk_file_write_opts *opts, rk_error *err)
{
	rki_error_clear(err);
	if (!path || !rgba) {
		rki_error_set(err, RK_ERROR_INVALID_ARGUMENT, "rk_png_write: NULL path or pixels");
		return false;
	}
	if (width == 0 || height == 0) {
		rki_error_set(err, RK_ERROR_INVALID_ARGUMENT, "rk_png_write: %s: image size %u x %u", path, (unsigned)width,
			(unsigned)height);
		return false;
	}
	size_t row = (size_t)width * 4u;
	if (stride == 0) stride = row;
	if (stride < row) {
		rki_error_set(err, RK_ERROR_INVALID_ARGUMENT, "rk_png_write: %s: stride %zu < width * 4 = %zu", path, stride, row);
		return false;
	}
	unsigned char *png = NULL;
	size_t png_size = 0;
	if (!rki_png_encode(rgba, width, height, 4, stride, &png, &png_size, err)) {
		if (err) {
			char msg[RK_ERROR_TEXT_MAX];
			memcpy(msg, err->message, sizeof(msg));
			msg[sizeof(msg) - 1] = '\0';
			rki_error_set(err, err->code, "rk_png_write: %s: %s", path, msg);
		}
		return false;
	}
	bool written = rk_file_write(path, png, png_size, opts, err);
	free(png);
	return written;
}
