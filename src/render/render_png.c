/* src/render/render_png.c - rk_write_png (rigkit/render.h): RGBA8 -> PNG
 * bytes in memory (rki_png_encode, src/image/png_write.c), then
 * rk_write_file_atomic. Equal pixels give equal bytes. */
#include "core/internal.h"
#include "image/image_internal.h"
#include "rigkit/render.h"

#include <stdlib.h>
#include <string.h>

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
	unsigned char *png = NULL;
	size_t png_size = 0;
	if (!rki_png_encode(rgba, width, height, 4, stride, &png, &png_size, err)) {
		if (err) {
			char msg[RK_ERROR_TEXT_MAX];
			memcpy(msg, err->message, sizeof(msg));
			msg[sizeof(msg) - 1] = '\0';
			rki_error_set(err, err->code, "rk_write_png: %s: %s", path, msg);
		}
		return false;
	}
	bool written = rk_write_file_atomic(path, png, png_size, err);
	free(png);
	return written;
}
