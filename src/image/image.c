/* src/image/image.c - texture decoding on demand (see rigkit/image.h). */
#include "core/internal.h"
#include "rigkit/image.h"

#include <limits.h>
#include <string.h>

/* A private copy of stb_image (Debian libstb's header): static functions
 * only, so it cannot clash with another copy in the application; no failure
 * strings (they live in a global). The decoder's allocations go through
 * malloc; the result is copied into the caller's allocator. */
#define STB_IMAGE_STATIC
#define STB_IMAGE_IMPLEMENTATION
#define STBI_NO_FAILURE_STRINGS
#define STBI_NO_STDIO
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wpragmas"
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#pragma GCC diagnostic ignored "-Wshadow"
#pragma GCC diagnostic ignored "-Wstrict-prototypes"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wimplicit-fallthrough"
#endif
#include <stb/stb_image.h>
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

/* Declared static by the header but never defined; referenced nowhere. */
#if defined(__GNUC__)
#pragma GCC diagnostic ignored "-Wunused-function"
#endif

#define RKI_IMAGE_DEFAULT_MAX_PIXELS ((uint64_t)1 << 26)
#define RKI_IMAGE_DEFAULT_MAX_FILE ((size_t)256 << 20)

bool rk_image_decode_memory(const void *data, size_t size, const char *name, const rk_image_opts *opts, rk_image *out,
	rk_error *err)
{
	rki_error_clear(err);
	if (!out) {
		rki_error_set(err, RK_ERROR_INVALID_ARGUMENT, "rk_image_decode_memory: NULL output");
		return false;
	}
	memset(out, 0, sizeof(*out));
	rk_image_opts o = { 0 };
	if (opts) o = *opts;
	if (!o.max_pixels) o.max_pixels = RKI_IMAGE_DEFAULT_MAX_PIXELS;
	if (!data || size == 0 || size > INT_MAX) {
		rki_error_set(err, RK_ERROR_CORRUPT, "image %s: %zu bytes of image data (expected 1 to %d)", name ? name : "",
			size, INT_MAX);
		return false;
	}
	int w = 0, h = 0, comp = 0;
	if (!stbi_info_from_memory((const stbi_uc *)data, (int)size, &w, &h, &comp) || w <= 0 || h <= 0) {
		rki_error_set(err, RK_ERROR_CORRUPT, "image %s: not a readable PNG/JPEG/TGA/BMP/GIF/PSD/HDR/PIC/PNM header",
			name ? name : "");
		rki_error_at_byte(err, 0);
		return false;
	}
	if ((uint64_t)w * (uint64_t)h > o.max_pixels) {
		rki_error_set(err, RK_ERROR_LIMIT, "image %s: %d x %d pixels exceed the limit of %llu", name ? name : "", w, h,
			(unsigned long long)o.max_pixels);
		return false;
	}
	int rw = 0, rh = 0, rc = 0;
	stbi_uc *px = stbi_load_from_memory((const stbi_uc *)data, (int)size, &rw, &rh, &rc, 4);
	if (!px || rw != w || rh != h) {
		stbi_image_free(px);
		rki_error_set(err, RK_ERROR_CORRUPT, "image %s: the %d x %d pixel data could not be decoded", name ? name : "", w, h);
		return false;
	}
	rki_alloc a;
	rki_alloc_init(&a, &o.allocator, 0, 0);
	size_t bytes = (size_t)w * (size_t)h * 4u;
	unsigned char *dst = (unsigned char *)rki_malloc(&a, bytes);
	if (!dst) {
		stbi_image_free(px);
		rki_error_set(err, RK_ERROR_OUT_OF_MEMORY, "image %s: cannot allocate %zu bytes of pixels", name ? name : "", bytes);
		return false;
	}
	memcpy(dst, px, bytes);
	stbi_image_free(px);
	out->width = (uint32_t)w;
	out->height = (uint32_t)h;
	out->source_channels = (uint32_t)rc;
	out->pixels = dst;
	out->size = bytes;
	out->allocator_ = o.allocator;
	return true;
}

bool rk_image_decode(const rk_texture *texture, const rk_image_opts *opts, rk_image *out, rk_error *err)
{
	if (!texture || !out) {
		rki_error_set(err, RK_ERROR_INVALID_ARGUMENT, "rk_image_decode: NULL texture or output");
		return false;
	}
	const char *name = texture->name ? texture->name : "";
	if (texture->content && texture->content_size)
		return rk_image_decode_memory(texture->content, texture->content_size, name, opts, out, err);
	if (!texture->resolved_path) {
		memset(out, 0, sizeof(*out));
		rki_error_set(err, RK_ERROR_IO, "texture %s: no embedded image and no file found for \"%s\"", name,
			texture->filename ? texture->filename : "");
		return false;
	}
	rki_alloc a;
	rki_alloc_init(&a, opts ? &opts->allocator : NULL, 0, 0);
	size_t size = 0;
	size_t limit = opts && opts->max_file_size ? opts->max_file_size : RKI_IMAGE_DEFAULT_MAX_FILE;
	void *data = rki_read_file(&a, texture->resolved_path, limit, &size, err);
	if (!data) {
		memset(out, 0, sizeof(*out));
		return false;
	}
	bool ok = rk_image_decode_memory(data, size, texture->resolved_path, opts, out, err);
	rki_free(&a, data, size + 1);
	if (!ok) rki_error_file(err, texture->resolved_path);
	return ok;
}

void rk_image_free(rk_image *image)
{
	if (!image) return;
	if (image->pixels) {
		rki_alloc a;
		rki_alloc_init(&a, &image->allocator_, 0, 0);
		rki_free(&a, image->pixels, image->size);
	}
	memset(image, 0, sizeof(*image));
}
