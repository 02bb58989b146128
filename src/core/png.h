/* src/core/png.h - PNG encoding for the library's own images
 * (the sample characters' texture, rendered previews). */
#ifndef RIGKIT_CORE_PNG_H
#define RIGKIT_CORE_PNG_H

#include "core/internal.h"

/* Encodes width x height pixels of `comps` 8-bit channels (1-4), rows
 * `stride` bytes apart, as PNG. On success *out holds *out_size bytes
 * allocated with malloc (the caller frees them). False for bad arguments,
 * sizes the encoder cannot take (RK_ERROR_LIMIT in err) or no memory.
 * Deterministic: equal pixels give equal bytes. Thread safe. */
bool rki_png_encode(const unsigned char *pixels, uint32_t width, uint32_t height, int comps, size_t stride,
	unsigned char **out, size_t *out_size, rk_error *err);

#endif
