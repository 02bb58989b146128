/*
 * rigkit/image.h - decoding texture images on demand.
 *
 * OVERVIEW
 *   Loaders never decode images: an rk_texture keeps the embedded bytes
 *   (`content`) or the path of a file found beside the input
 *   (`resolved_path`). rk_image_decode() turns either into 8-bit RGBA
 *   pixels when the caller asks, ready for a GPU upload: PNG (libpng: every
 *   colour type and bit depth, palettes, tRNS, interlacing; 16-bit samples
 *   keep their high byte; no gamma or colour-space conversion), JPEG
 *   (libjpeg-turbo: baseline, progressive, grey, Adobe CMYK/YCCK) and WebP
 *   (libwebp: lossy, lossless, alpha). Every other format (BMP, GIF, PSD,
 *   TGA, HDR, PIC, PNM, KTX2, DDS, TIFF, ...) is RK_ERROR_UNSUPPORTED,
 *   decided from the signature before any decoder runs (docs/security.md).
 *
 * OWNERSHIP, ERRORS, THREADS
 *   The pixels are allocated with opts->allocator (zero = malloc) and
 *   released with rk_image_free(). Failures return false with err naming
 *   the texture and what was wrong; nothing is allocated then. The image
 *   size is read from the header and checked against opts->max_pixels
 *   (default 2^26 = 8192 x 8192) before the pixel buffer is allocated or
 *   any pixel decoded, so a hostile header cannot request a huge buffer.
 *   The decoders' own working memory is bounded: libpng keeps ancillary
 *   chunks to 8 MiB each and 1000 in all, libjpeg to 1 GiB and 500 scans.
 *   Decoder errors (libpng's longjmp, libjpeg's error_exit) return here
 *   without leaks; nothing is printed. Thread safe: no shared state (each
 *   call owns its decoder state and jump buffer).
 */
#ifndef RIGKIT_IMAGE_H
#define RIGKIT_IMAGE_H

#include "rigkit/scene.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct rk_image {
	uint32_t width, height;
	uint32_t source_channels;   /* channels stored in the file (1..4) */
	unsigned char *pixels;      /* width * height * 4 bytes, RGBA8, rows top to bottom */
	size_t size;                /* bytes in pixels */
	rk_allocator allocator_;    /* used by rk_image_free */
} rk_image;

typedef struct rk_image_opts {
	rk_allocator allocator;     /* zero = malloc/free */
	uint64_t max_pixels;        /* 0 = 2^26 */
	size_t max_file_size;       /* for resolved_path files; 0 = 256 MiB */
} rk_image_opts;

/* Decodes `texture` (its content, else its resolved_path) into *out.
 * opts may be NULL. */
bool rk_image_decode(const rk_texture *texture, const rk_image_opts *opts, rk_image *out, rk_error *err);
/* Decodes an encoded image held in memory. `name` appears in errors. */
bool rk_image_decode_memory(const void *data, size_t size, const char *name, const rk_image_opts *opts, rk_image *out,
	rk_error *err);
/* Releases the pixels; the struct is zeroed. NULL is fine. */
void rk_image_free(rk_image *image);

#ifdef __cplusplus
}
#endif
#endif
