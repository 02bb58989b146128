/*
 * fuzz/fuzz_image.c - libFuzzer target for rk_image_decode_memory()
 * (src/image/image.c: libpng, libjpeg-turbo and libwebp behind rigkit's
 * signature check, header limits and error handling).
 *
 * Each input is decoded with a counting allocator and max_pixels = 2^22
 * (so a valid header claiming a huge image is refused before decoding, as
 * the default limit does at 2^26). A decoded image must have a non-zero
 * size, pixels of width * height * 4 bytes (all read here, so ASan sees
 * any short buffer) and a channel count of 1..4; a failure must carry an
 * error code and a message naming the input; no memory may be held by the
 * allocator afterwards. Seeds: fuzz/seeds-image-{png,jpeg,webp}/, written
 * by tests/test_image.c (fuzz/README.md).
 */
#include "rigkit/image.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_alloc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_counter c = { 0, 0 };
	rk_image_opts o;
	memset(&o, 0, sizeof(o));
	o.allocator.alloc = fuzz_alloc;
	o.allocator.free = fuzz_free;
	o.allocator.user = &c;
	o.max_pixels = (uint64_t)1 << 22;
	rk_image img;
	rk_error err;
	if (rk_image_decode_memory(data, size, "fuzz", &o, &img, &err)) {
		if (!img.width || !img.height || !img.pixels || img.size != (size_t)img.width * img.height * 4u ||
			img.source_channels < 1 || img.source_channels > 4)
			abort();
		unsigned sum = 0;
		for (size_t i = 0; i < img.size; i++) sum += img.pixels[i];
		if (sum == 0xFFFFFFFFu) abort(); /* keeps the read */
		rk_image_free(&img);
	} else {
		if (err.code == RK_OK || !err.message[0] || !strstr(err.message, "fuzz")) abort();
		if (img.pixels) abort();
	}
	if (c.live_bytes || c.live_blocks) abort();
	return 0;
}
