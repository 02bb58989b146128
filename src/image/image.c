/*
 * src/image/image.c - texture decoding on demand (see rigkit/image.h).
 *
 * Decoders: Debian's libpng (PNG), libjpeg-turbo (JPEG) and libwebp (WebP),
 * maintained and fuzzed upstream (OSS-Fuzz). Every other format is refused
 * by its signature before any decoder runs. For each decoder the header is
 * read first and the size checked against rk_image_opts.max_pixels before
 * the pixel buffer is allocated; decoder errors (libpng's longjmp, libjpeg's
 * error_exit) come back here through a jmp_buf owned by the call, nothing is
 * printed and nothing is global. Pixels go to the caller's allocator; the
 * decoders' own working memory comes from malloc, bounded as noted below.
 */
#include "core/internal.h"
#include "rigkit/image.h"

#include <limits.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>

/* The WebAssembly module (scripts/build-wasm.sh) decodes no images (it
 * neither renders nor decodes textures): the decoders are left out there and
 * every image is RK_ERROR_UNSUPPORTED (docs/wasm.md). */
#if defined(__EMSCRIPTEN__)
#define RKI_IMAGE_NO_DECODERS 1
#endif

#ifndef RKI_IMAGE_NO_DECODERS
#include <jpeglib.h>
#include <png.h>
#include <webp/decode.h>
#else
#define JMSG_LENGTH_MAX 200
#endif

#define RKI_IMAGE_DEFAULT_MAX_PIXELS ((uint64_t)1 << 26)
#define RKI_IMAGE_DEFAULT_MAX_FILE ((size_t)256 << 20)
/* libpng: largest ancillary chunk it will allocate (iCCP, zTXt, ...) and the
 * most ancillary chunks it keeps. */
#define RKI_PNG_CHUNK_MAX ((png_alloc_size_t)8 << 20)
#define RKI_PNG_CHUNK_CACHE 1000
/* libjpeg: working memory (coefficient buffers of progressive images are
 * its large part) and the most scans (a progressive file with thousands of
 * tiny scans costs time out of proportion to its size; TurboJPEG's limit). */
#define RKI_JPEG_MEMORY ((long)1 << 30)
#define RKI_JPEG_MAX_SCANS 500

/* What one decode works with; owned by rk_image_decode_memory (outside the
 * functions that call setjmp, so nothing here is indeterminate after a
 * longjmp). */
typedef struct rki_image_job {
	const unsigned char *data;
	size_t size, pos;
	const char *name;
	uint64_t max_pixels;
	rki_alloc *alloc;
	unsigned char *pixels;     /* result, from alloc */
	size_t bytes;
	uint32_t width, height, channels;
	unsigned char **rows;      /* PNG row pointers, from alloc */
	size_t rows_bytes;
	rk_error *err;
	bool error_set;
	char msg[JMSG_LENGTH_MAX > 200 ? JMSG_LENGTH_MAX : 200];
	jmp_buf jump;
} rki_image_job;

static bool rki_image_fail(rki_image_job *j, rk_error_code code, const char *fmt, const char *detail)
{
	rki_error_set(j->err, code, fmt, j->name, detail);
	j->error_set = true;
	return false;
}

/* Size check from the header, then the pixel buffer. */
static bool rki_image_alloc(rki_image_job *j, uint64_t w, uint64_t h)
{
	char detail[96];
	snprintf(detail, sizeof(detail), "%llu x %llu", (unsigned long long)w, (unsigned long long)h);
	if (w == 0 || h == 0) return rki_image_fail(j, RK_ERROR_CORRUPT, "image %s: %s pixels in the header", detail);
	if (w > UINT32_MAX / 4 || h > UINT32_MAX || w * h > j->max_pixels) {
		snprintf(detail, sizeof(detail), "%llu x %llu pixels exceed the limit of %llu", (unsigned long long)w,
			(unsigned long long)h, (unsigned long long)j->max_pixels);
		return rki_image_fail(j, RK_ERROR_LIMIT, "image %s: %s", detail);
	}
	j->width = (uint32_t)w;
	j->height = (uint32_t)h;
	j->bytes = (size_t)(w * h * 4u);
	j->pixels = (unsigned char *)rki_malloc(j->alloc, j->bytes);
	if (!j->pixels) {
		snprintf(detail, sizeof(detail), "%zu", j->bytes);
		return rki_image_fail(j, j->alloc->limit_hit ? RK_ERROR_LIMIT : RK_ERROR_OUT_OF_MEMORY,
			"image %s: cannot allocate %s bytes of pixels", detail);
	}
	return true;
}

#ifndef RKI_IMAGE_NO_DECODERS
/* ---- PNG (libpng) ------------------------------------------------------------------ */

static void rki_png_error(png_structp png, png_const_charp msg)
{
	rki_image_job *j = (rki_image_job *)png_get_error_ptr(png);
	snprintf(j->msg, sizeof(j->msg), "%s", msg ? msg : "error");
	png_longjmp(png, 1);
}

static void rki_png_warning(png_structp png, png_const_charp msg)
{
	(void)png;
	(void)msg; /* ancillary-chunk trouble; the image still decodes */
}

static void rki_png_read(png_structp png, png_bytep out, size_t n)
{
	rki_image_job *j = (rki_image_job *)png_get_io_ptr(png);
	if (n > j->size - j->pos) png_error(png, "the PNG data ends early");
	memcpy(out, j->data + j->pos, n);
	j->pos += n;
}

static bool rki_png_run(rki_image_job *j, png_structp png, png_infop info)
{
	if (setjmp(png_jmpbuf(png))) return false;
	png_set_read_fn(png, j, rki_png_read);
	png_set_user_limits(png, 0x7fffffffu, 0x7fffffffu);
	png_set_chunk_malloc_max(png, RKI_PNG_CHUNK_MAX);
	png_set_chunk_cache_max(png, RKI_PNG_CHUNK_CACHE);
	/* Ancillary chunks rigkit does not use are skipped unread (found by
	 * fuzz_image: an iTXt chunk claiming 700 MB was allocated, since libpng
	 * only warns - a "benign error" - when a chunk exceeds chunk_malloc_max). */
	static const png_byte skipped[] = "tEXt\0zTXt\0iTXt\0iCCP\0sPLT\0eXIf\0pCAL\0sCAL\0hIST\0bKGD\0cHRM\0gAMA\0sRGB\0"
		"sBIT\0pHYs\0oFFs\0tIME\0sTER\0";
	png_set_keep_unknown_chunks(png, PNG_HANDLE_CHUNK_NEVER, NULL, 0); /* unknown ones too */
	png_set_keep_unknown_chunks(png, PNG_HANDLE_CHUNK_NEVER, skipped, (int)(sizeof(skipped) / 5));
	png_read_info(png, info);
	png_uint_32 w = 0, h = 0;
	int depth = 0, color = 0, interlace = 0;
	png_get_IHDR(png, info, &w, &h, &depth, &color, &interlace, NULL, NULL);
	bool trns = png_get_valid(png, info, PNG_INFO_tRNS) != 0;
	j->channels = color == PNG_COLOR_TYPE_GRAY ? 1u : color == PNG_COLOR_TYPE_GRAY_ALPHA ? 2u
		: color == PNG_COLOR_TYPE_RGB_ALPHA ? 4u : 3u;
	if (trns && (j->channels == 1 || j->channels == 3)) j->channels++;
	if (!rki_image_alloc(j, w, h)) return false;
	/* to 8-bit RGBA as stored: no gamma or colour-space conversion */
	if (depth == 16) png_set_strip_16(png);
	if (color == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(png);
	if (color == PNG_COLOR_TYPE_GRAY && depth < 8) png_set_expand_gray_1_2_4_to_8(png);
	if (depth < 8) png_set_packing(png);
	if (trns) png_set_tRNS_to_alpha(png);
	if (color == PNG_COLOR_TYPE_GRAY || color == PNG_COLOR_TYPE_GRAY_ALPHA) png_set_gray_to_rgb(png);
	if (!(color & PNG_COLOR_MASK_ALPHA) && !trns) png_set_filler(png, 0xFF, PNG_FILLER_AFTER);
	if (interlace != PNG_INTERLACE_NONE) png_set_interlace_handling(png);
	png_read_update_info(png, info);
	if (png_get_rowbytes(png, info) != (size_t)w * 4u) png_error(png, "unexpected row layout after conversion");
	j->rows_bytes = (size_t)h * sizeof(unsigned char *);
	j->rows = (unsigned char **)rki_malloc(j->alloc, j->rows_bytes);
	if (!j->rows) png_error(png, "out of memory for row pointers");
	for (png_uint_32 y = 0; y < h; y++) j->rows[y] = j->pixels + (size_t)y * w * 4u;
	png_read_image(png, j->rows);
	return true;
}

static bool rki_png_decode(rki_image_job *j)
{
	png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, j, rki_png_error, rki_png_warning);
	png_infop info = png ? png_create_info_struct(png) : NULL;
	if (!info) {
		if (png) png_destroy_read_struct(&png, NULL, NULL);
		return rki_image_fail(j, RK_ERROR_OUT_OF_MEMORY, "image %s: %s", "cannot start the PNG decoder");
	}
	bool ok = rki_png_run(j, png, info);
	png_destroy_read_struct(&png, &info, NULL);
	if (j->rows) rki_free(j->alloc, j->rows, j->rows_bytes);
	j->rows = NULL;
	if (!ok && !j->error_set) rki_image_fail(j, RK_ERROR_CORRUPT, "image %s: PNG: %s", j->msg);
	return ok;
}

/* ---- JPEG (libjpeg-turbo) --------------------------------------------------------------- */

typedef struct rki_jpeg_err {
	struct jpeg_error_mgr mgr;   /* first: libjpeg sees only this */
	rki_image_job *job;
} rki_jpeg_err;

static void rki_jpeg_error_exit(j_common_ptr cinfo)
{
	rki_jpeg_err *e = (rki_jpeg_err *)cinfo->err;
	(*cinfo->err->format_message)(cinfo, e->job->msg);
	longjmp(e->job->jump, 1);
}

static void rki_jpeg_message(j_common_ptr cinfo, int level)
{
	(void)cinfo;
	(void)level; /* warnings (extraneous bytes, premature end) are not fatal, and never printed */
}

static void rki_jpeg_output(j_common_ptr cinfo)
{
	(void)cinfo;
}

static void rki_jpeg_progress(j_common_ptr cinfo)
{
	j_decompress_ptr d = (j_decompress_ptr)cinfo;
	if (cinfo->is_decompressor && d->input_scan_number > RKI_JPEG_MAX_SCANS) {
		rki_jpeg_err *e = (rki_jpeg_err *)cinfo->err;
		snprintf(e->job->msg, sizeof(e->job->msg), "more than %d scans", RKI_JPEG_MAX_SCANS);
		longjmp(e->job->jump, 1);
	}
}

static bool rki_jpeg_run(rki_image_job *j, struct jpeg_decompress_struct *d)
{
	if (setjmp(j->jump)) return false;
	jpeg_create_decompress(d);
	d->mem->max_memory_to_use = RKI_JPEG_MEMORY;
	jpeg_mem_src(d, j->data, (unsigned long)j->size);
	if (jpeg_read_header(d, TRUE) != JPEG_HEADER_OK) {
		snprintf(j->msg, sizeof(j->msg), "no image in the JPEG data");
		return false;
	}
	bool cmyk = d->jpeg_color_space == JCS_CMYK || d->jpeg_color_space == JCS_YCCK;
	j->channels = d->num_components == 1 ? 1u : cmyk ? 4u : 3u;
	if (!rki_image_alloc(j, d->image_width, d->image_height)) return false;
	d->out_color_space = cmyk ? JCS_CMYK : JCS_EXT_RGBA;
	if (d->progressive_mode) d->buffered_image = FALSE;
	jpeg_start_decompress(d);
	if (d->output_width != j->width || d->output_height != j->height || d->output_components != 4) {
		snprintf(j->msg, sizeof(j->msg), "unexpected output layout");
		return false;
	}
	while (d->output_scanline < d->output_height) {
		JSAMPROW row = j->pixels + (size_t)d->output_scanline * j->width * 4u;
		if (jpeg_read_scanlines(d, &row, 1) != 1) {
			snprintf(j->msg, sizeof(j->msg), "no scanline decoded");
			return false;
		}
	}
	if (cmyk) {
		/* Adobe files store CMYK inverted (as libjpeg hands it back); others not */
		bool inverted = d->saw_Adobe_marker;
		for (size_t p = 0; p < (size_t)j->width * j->height; p++) {
			unsigned char *px = j->pixels + p * 4u;
			unsigned k = inverted ? px[3] : 255u - px[3];
			for (int c = 0; c < 3; c++) {
				unsigned v = inverted ? px[c] : 255u - px[c];
				px[c] = (unsigned char)((v * k + 127u) / 255u);
			}
			px[3] = 255;
		}
	}
	return true;
}

static bool rki_jpeg_decode(rki_image_job *j)
{
	struct jpeg_decompress_struct d;
	rki_jpeg_err e;
	struct jpeg_progress_mgr progress;
	memset(&d, 0, sizeof(d));
	memset(&progress, 0, sizeof(progress));
	d.err = jpeg_std_error(&e.mgr);
	e.mgr.error_exit = rki_jpeg_error_exit;
	e.mgr.emit_message = rki_jpeg_message;
	e.mgr.output_message = rki_jpeg_output;
	e.job = j;
	progress.progress_monitor = rki_jpeg_progress;
	d.progress = &progress;
	bool ok = rki_jpeg_run(j, &d);
	jpeg_destroy_decompress(&d);
	if (!ok && !j->error_set) rki_image_fail(j, RK_ERROR_CORRUPT, "image %s: JPEG: %s", j->msg);
	return ok;
}

/* ---- WebP (libwebp) ---------------------------------------------------------------------- */

static bool rki_webp_decode(rki_image_job *j)
{
	WebPBitstreamFeatures f;
	if (WebPGetFeatures(j->data, j->size, &f) != VP8_STATUS_OK)
		return rki_image_fail(j, RK_ERROR_CORRUPT, "image %s: WebP: %s", "not a readable WebP header");
	j->channels = f.has_alpha ? 4u : 3u;
	if (!rki_image_alloc(j, (uint64_t)(f.width > 0 ? f.width : 0), (uint64_t)(f.height > 0 ? f.height : 0))) return false;
	if (!WebPDecodeRGBAInto(j->data, j->size, j->pixels, j->bytes, (int)j->width * 4))
		return rki_image_fail(j, RK_ERROR_CORRUPT, "image %s: WebP: %s", "the pixel data could not be decoded");
	return true;
}

#else
static bool rki_image_none(rki_image_job *j)
{
	(void)rki_image_alloc;
	return rki_image_fail(j, RK_ERROR_UNSUPPORTED, "image %s: %s", "this build decodes no images (WebAssembly)");
}
#define rki_png_decode rki_image_none
#define rki_jpeg_decode rki_image_none
#define rki_webp_decode rki_image_none
#endif

/* ---- formats --------------------------------------------------------------------------- */

typedef enum rki_image_kind { RKI_IMAGE_PNG, RKI_IMAGE_JPEG, RKI_IMAGE_WEBP, RKI_IMAGE_OTHER } rki_image_kind;

/* The format by signature; *other names a known format rigkit refuses. */
static rki_image_kind rki_image_sniff(const unsigned char *p, size_t n, const char **other)
{
	*other = NULL;
	if (n >= 8 && !memcmp(p, "\x89PNG\r\n\x1a\n", 8)) return RKI_IMAGE_PNG;
	if (n >= 3 && p[0] == 0xFF && p[1] == 0xD8 && p[2] == 0xFF) return RKI_IMAGE_JPEG;
	if (n >= 12 && !memcmp(p, "RIFF", 4) && !memcmp(p + 8, "WEBP", 4)) return RKI_IMAGE_WEBP;
	static const struct { const char *magic; size_t len; const char *name; } known[] = {
		{ "BM", 2, "BMP" }, { "GIF87a", 6, "GIF" }, { "GIF89a", 6, "GIF" }, { "8BPS", 4, "PSD" },
		{ "#?RADIANCE", 10, "Radiance HDR" }, { "#?RGBE", 6, "Radiance HDR" }, { "\x53\x80\xF6\x34", 4, "Softimage PIC" },
		{ "\xABKTX 20\xBB\r\n\x1a\n", 12, "KTX2" }, { "DDS ", 4, "DDS" }, { "\xFF\x0A", 2, "JPEG XL" },
		{ "\x00\x00\x00\x0CJXL ", 8, "JPEG XL" }, { "II*\x00", 4, "TIFF" }, { "MM\x00*", 4, "TIFF" },
		{ "qoif", 4, "QOI" }, { "\x76\x2F\x31\x01", 4, "OpenEXR" },
	};
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (n >= known[i].len && !memcmp(p, known[i].magic, known[i].len)) *other = known[i].name;
	if (!*other && n >= 12 && !memcmp(p + 4, "ftypavif", 8)) *other = "AVIF";
	if (!*other && n >= 2 && p[0] == 'P' && p[1] >= '1' && p[1] <= '7') *other = "PNM";
	return RKI_IMAGE_OTHER;
}

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
	if (!name) name = "";
	if (!data || size == 0 || size > (size_t)LONG_MAX) {
		rki_error_set(err, RK_ERROR_CORRUPT, "image %s: %zu bytes of image data (expected 1 to %ld)", name, size, LONG_MAX);
		return false;
	}
	rki_alloc a;
	rki_alloc_init(&a, &o.allocator, 0, 0);
	rki_image_job j;
	memset(&j, 0, sizeof(j));
	j.data = (const unsigned char *)data;
	j.size = size;
	j.name = name;
	j.max_pixels = o.max_pixels;
	j.alloc = &a;
	j.err = err;
	const char *other;
	bool ok;
	switch (rki_image_sniff(j.data, size, &other)) {
	case RKI_IMAGE_PNG: ok = rki_png_decode(&j); break;
	case RKI_IMAGE_JPEG: ok = rki_jpeg_decode(&j); break;
	case RKI_IMAGE_WEBP: ok = rki_webp_decode(&j); break;
	default:
		if (other)
			rki_error_set(err, RK_ERROR_UNSUPPORTED, "image %s: %s images are not decoded (rigkit reads PNG, JPEG and WebP)",
				name, other);
		else rki_error_set(err, RK_ERROR_UNSUPPORTED, "image %s: not a PNG, JPEG or WebP image (unknown signature)", name);
		rki_error_at_byte(err, 0);
		return false;
	}
	if (!ok) {
		if (j.pixels) rki_free(&a, j.pixels, j.bytes);
		return false;
	}
	out->width = j.width;
	out->height = j.height;
	out->source_channels = j.channels;
	out->pixels = j.pixels;
	out->size = j.bytes;
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
