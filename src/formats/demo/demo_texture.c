/* src/formats/demo/demo_texture.c - the sample characters' checker texture as
 * PNG bytes (rki_png_encode, src/core/png_write.c: stb_image_write, which
 * allocates its temporary buffers with malloc/free, not the scene's
 * allocator); the finished PNG is copied into the scene arena. */
#include "demo_internal.h"
#include "core/png.h"

#include <stdlib.h>
#include <string.h>

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
	unsigned char *png = NULL;
	size_t png_size = 0;
	if (!rki_png_encode(pixels, size, size, 3, (size_t)size * 3, &png, &png_size, NULL)) return false;
	unsigned char *copy = (unsigned char *)rki_arena_alloc_uninit(arena, png_size);
	if (copy) memcpy(copy, png, png_size);
	free(png);
	if (!copy) return false;
	*out_data = copy;
	*out_size = png_size;
	return true;
}
