/*
 * tests/test_image.c - on-demand texture decoding (rigkit/image.h).
 *
 * Expectations are independent of the decoders: PNG files are built by hand
 * here (chunks with CRCs from libdeflate, zlib streams from libdeflate's
 * compressor, pixel values chosen per colour type, palette, tRNS and bit
 * depth as the PNG specification defines them); JPEG files come from
 * libjpeg's encoder at quality 100 on flat colours (decoded values within a
 * small tolerance) and WebP files from libwebp's lossless encoder (exact);
 * the BMP is built by hand (and must be refused). Hostile headers, every
 * truncation and byte flips must fail cleanly (ASan/UBSan in make sanitize).
 *
 * RIGKIT_IMAGE_SEED_DIR=DIR writes the images built here into DIR as seeds
 * for fuzz/fuzz_image.c (fuzz/README.md).
 */
#include "rk_test.h"

#include <rigkit/rigkit.h>
#include <rigkit/image.h>

#include <libdeflate.h>
#include <stdio.h>
#include <sys/resource.h>
#include <jpeglib.h>
#include <webp/encode.h>

static void put32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)v;
	p[1] = (unsigned char)(v >> 8);
	p[2] = (unsigned char)(v >> 16);
	p[3] = (unsigned char)(v >> 24);
}

static void put32be(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)(v >> 24);
	p[1] = (unsigned char)(v >> 16);
	p[2] = (unsigned char)(v >> 8);
	p[3] = (unsigned char)v;
}

static void seed(const char *name, const void *data, size_t size)
{
	const char *dir = getenv("RIGKIT_IMAGE_SEED_DIR");
	if (!dir || !dir[0]) return;
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE *f = fopen(path, "wb");
	if (!f) return;
	fwrite(data, 1, size, f);
	fclose(f);
}

/* ---- PNG by hand ----------------------------------------------------------------------- */

typedef struct png_buf {
	unsigned char data[65536];
	size_t size;
} png_buf;

static void png_chunk(png_buf *b, const char *type, const unsigned char *body, size_t len)
{
	put32be(b->data + b->size, (uint32_t)len);
	memcpy(b->data + b->size + 4, type, 4);
	if (len) memcpy(b->data + b->size + 8, body, len);
	uint32_t crc = libdeflate_crc32(0, b->data + b->size + 4, len + 4);
	put32be(b->data + b->size + 8 + len, crc);
	b->size += 12 + len;
}

/* A PNG of `raw` (filter byte + row bytes per row, already laid out). */
static void png_make(png_buf *b, uint32_t w, uint32_t h, int depth, int color, const unsigned char *raw, size_t raw_len,
	const unsigned char *plte, size_t plte_len, const unsigned char *trns, size_t trns_len)
{
	b->size = 0;
	memcpy(b->data, "\x89PNG\r\n\x1a\n", 8);
	b->size = 8;
	unsigned char ihdr[13];
	put32be(ihdr, w);
	put32be(ihdr + 4, h);
	ihdr[8] = (unsigned char)depth;
	ihdr[9] = (unsigned char)color;
	ihdr[10] = ihdr[11] = ihdr[12] = 0;
	png_chunk(b, "IHDR", ihdr, 13);
	if (plte) png_chunk(b, "PLTE", plte, plte_len);
	if (trns) png_chunk(b, "tRNS", trns, trns_len);
	struct libdeflate_compressor *c = libdeflate_alloc_compressor(6);
	unsigned char z[16384];
	size_t zn = libdeflate_zlib_compress(c, raw, raw_len, z, sizeof(z));
	libdeflate_free_compressor(c);
	png_chunk(b, "IDAT", z, zn);
	png_chunk(b, "IEND", NULL, 0);
}

static bool px_is(const rk_image *img, uint32_t x, uint32_t y, int r, int g, int bl, int a, int tol)
{
	const unsigned char *p = img->pixels + ((size_t)y * img->width + x) * 4;
	return abs(p[0] - r) <= tol && abs(p[1] - g) <= tol && abs(p[2] - bl) <= tol && abs(p[3] - a) <= tol;
}

RK_TEST(test_png_colour_types)
{
	rk_image img;
	rk_error err;
	png_buf b;
	/* 8-bit RGBA 3 x 2: pixel (x, y) = (40x, 100y, 7, 255 - 50x) */
	unsigned char raw[256];
	size_t n = 0;
	for (uint32_t y = 0; y < 2; y++) {
		raw[n++] = 0;
		for (uint32_t x = 0; x < 3; x++) {
			raw[n++] = (unsigned char)(40 * x);
			raw[n++] = (unsigned char)(100 * y);
			raw[n++] = 7;
			raw[n++] = (unsigned char)(255 - 50 * x);
		}
	}
	png_make(&b, 3, 2, 8, 6, raw, n, NULL, 0, NULL, 0);
	seed("rgba8.png", b.data, b.size);
	RK_REQUIRE(rk_image_decode_memory(b.data, b.size, "rgba.png", NULL, &img, &err));
	RK_CHECK_INT(img.width, 3);
	RK_CHECK_INT(img.height, 2);
	RK_CHECK_INT(img.source_channels, 4);
	for (uint32_t y = 0; y < 2; y++)
		for (uint32_t x = 0; x < 3; x++) RK_CHECK(px_is(&img, x, y, 40 * (int)x, 100 * (int)y, 7, 255 - 50 * (int)x, 0));
	rk_image_free(&img);

	/* 16-bit RGB 2 x 1: high bytes kept (0x12, 0x34, 0x56), (0xAB, 0xCD, 0xEF); alpha 255 */
	static const unsigned char rgb16[] = { 0, 0x12, 0xFF, 0x34, 0x00, 0x56, 0x80, 0xAB, 0x01, 0xCD, 0x7F, 0xEF, 0x10 };
	png_make(&b, 2, 1, 16, 2, rgb16, sizeof(rgb16), NULL, 0, NULL, 0);
	seed("rgb16.png", b.data, b.size);
	RK_REQUIRE(rk_image_decode_memory(b.data, b.size, "rgb16.png", NULL, &img, &err));
	RK_CHECK_INT(img.source_channels, 3);
	RK_CHECK(px_is(&img, 0, 0, 0x12, 0x34, 0x56, 255, 0));
	RK_CHECK(px_is(&img, 1, 0, 0xAB, 0xCD, 0xEF, 255, 0));
	rk_image_free(&img);

	/* 2-bit palette 4 x 1 with tRNS: indices 0,1,2,3 packed in one byte (00 01 10 11) */
	static const unsigned char plte[] = { 255, 0, 0, 0, 255, 0, 0, 0, 255, 9, 8, 7 };
	static const unsigned char trns[] = { 0, 128 };
	static const unsigned char pal_raw[] = { 0, 0x1B };
	png_make(&b, 4, 1, 2, 3, pal_raw, sizeof(pal_raw), plte, sizeof(plte), trns, sizeof(trns));
	seed("palette2.png", b.data, b.size);
	RK_REQUIRE(rk_image_decode_memory(b.data, b.size, "palette.png", NULL, &img, &err));
	RK_CHECK(px_is(&img, 0, 0, 255, 0, 0, 0, 0));
	RK_CHECK(px_is(&img, 1, 0, 0, 255, 0, 128, 0));
	RK_CHECK(px_is(&img, 2, 0, 0, 0, 255, 255, 0));
	RK_CHECK(px_is(&img, 3, 0, 9, 8, 7, 255, 0));
	rk_image_free(&img);

	/* 1-bit grey 8 x 1 (10110001): 0 -> 0, 1 -> 255, grey replicated to RGB */
	static const unsigned char grey_raw[] = { 0, 0xB1 };
	png_make(&b, 8, 1, 1, 0, grey_raw, sizeof(grey_raw), NULL, 0, NULL, 0);
	seed("grey1.png", b.data, b.size);
	RK_REQUIRE(rk_image_decode_memory(b.data, b.size, "grey.png", NULL, &img, &err));
	RK_CHECK_INT(img.source_channels, 1);
	static const int bits[8] = { 1, 0, 1, 1, 0, 0, 0, 1 };
	for (uint32_t x = 0; x < 8; x++) RK_CHECK(px_is(&img, x, 0, 255 * bits[x], 255 * bits[x], 255 * bits[x], 255, 0));
	rk_image_free(&img);

	/* 8-bit grey + alpha 1 x 2 with an Up filter on row 1: (60, 200), then (60 + 5, 200 - 100) */
	static const unsigned char ga_raw[] = { 0, 60, 200, 2, 5, (unsigned char)(256 - 100) };
	png_make(&b, 1, 2, 8, 4, ga_raw, sizeof(ga_raw), NULL, 0, NULL, 0);
	seed("greyalpha.png", b.data, b.size);
	RK_REQUIRE(rk_image_decode_memory(b.data, b.size, "ga.png", NULL, &img, &err));
	RK_CHECK_INT(img.source_channels, 2);
	RK_CHECK(px_is(&img, 0, 0, 60, 60, 60, 200, 0));
	RK_CHECK(px_is(&img, 0, 1, 65, 65, 65, 100, 0));
	rk_image_free(&img);
}

/* ---- JPEG and WebP from their libraries' encoders ---------------------------------------- */

/* A w x h JPEG: left half (200, 40, 30), right half (20, 90, 220); or grey 150;
 * or Adobe CMYK (inverted, as Photoshop writes it) of (0, 255, 255, 0) = red. */
static size_t jpeg_make(unsigned char **out, int w, int h, J_COLOR_SPACE space, bool progressive)
{
	struct jpeg_compress_struct c;
	struct jpeg_error_mgr e;
	c.err = jpeg_std_error(&e);
	jpeg_create_compress(&c);
	unsigned long size = 0;
	*out = NULL;
	jpeg_mem_dest(&c, out, &size);
	c.image_width = (JDIMENSION)w;
	c.image_height = (JDIMENSION)h;
	c.input_components = space == JCS_GRAYSCALE ? 1 : space == JCS_CMYK ? 4 : 3;
	c.in_color_space = space;
	jpeg_set_defaults(&c);
	jpeg_set_quality(&c, 100, TRUE);
	if (space == JCS_CMYK) {
		jpeg_set_colorspace(&c, JCS_CMYK);
		c.write_Adobe_marker = TRUE;
	}
	if (progressive) jpeg_simple_progression(&c);
	jpeg_start_compress(&c, TRUE);
	unsigned char row[4 * 64];
	while (c.next_scanline < c.image_height) {
		for (int x = 0; x < w; x++) {
			unsigned char *p = row + x * c.input_components;
			if (space == JCS_GRAYSCALE) p[0] = 150;
			else if (space == JCS_CMYK) { p[0] = 255; p[1] = 0; p[2] = 0; p[3] = 255; } /* inverted C=0 M=1 Y=1 K=0 */
			else if (x < w / 2) { p[0] = 200; p[1] = 40; p[2] = 30; }
			else { p[0] = 20; p[1] = 90; p[2] = 220; }
		}
		JSAMPROW r = row;
		jpeg_write_scanlines(&c, &r, 1);
	}
	jpeg_finish_compress(&c);
	jpeg_destroy_compress(&c);
	return size;
}

RK_TEST(test_jpeg_and_webp)
{
	rk_image img;
	rk_error err;
	unsigned char *jpg = NULL;
	size_t n = jpeg_make(&jpg, 32, 16, JCS_RGB, false);
	RK_REQUIRE(n > 0);
	seed("rgb.jpg", jpg, n);
	RK_REQUIRE(rk_image_decode_memory(jpg, n, "rgb.jpg", NULL, &img, &err));
	RK_CHECK_INT(img.width, 32);
	RK_CHECK_INT(img.height, 16);
	RK_CHECK_INT(img.source_channels, 3);
	RK_CHECK(px_is(&img, 4, 8, 200, 40, 30, 255, 6));
	RK_CHECK(px_is(&img, 27, 8, 20, 90, 220, 255, 6));
	rk_image_free(&img);
	free(jpg);

	n = jpeg_make(&jpg, 24, 24, JCS_RGB, true);
	seed("progressive.jpg", jpg, n);
	RK_REQUIRE(rk_image_decode_memory(jpg, n, "progressive.jpg", NULL, &img, &err));
	RK_CHECK(px_is(&img, 2, 20, 200, 40, 30, 255, 6));
	rk_image_free(&img);
	free(jpg);

	n = jpeg_make(&jpg, 16, 8, JCS_GRAYSCALE, false);
	seed("grey.jpg", jpg, n);
	RK_REQUIRE(rk_image_decode_memory(jpg, n, "grey.jpg", NULL, &img, &err));
	RK_CHECK_INT(img.source_channels, 1);
	RK_CHECK(px_is(&img, 5, 5, 150, 150, 150, 255, 2));
	rk_image_free(&img);
	free(jpg);

	n = jpeg_make(&jpg, 16, 16, JCS_CMYK, false);
	seed("cmyk.jpg", jpg, n);
	RK_REQUIRE(rk_image_decode_memory(jpg, n, "cmyk.jpg", NULL, &img, &err));
	RK_CHECK_INT(img.source_channels, 4);
	RK_CHECK(px_is(&img, 8, 8, 255, 0, 0, 255, 4));
	rk_image_free(&img);
	free(jpg);

	/* WebP lossless: exact */
	unsigned char rgba[4 * 4 * 4];
	for (int i = 0; i < 16; i++) {
		rgba[i * 4 + 0] = (unsigned char)(i * 16);
		rgba[i * 4 + 1] = (unsigned char)(255 - i * 16);
		rgba[i * 4 + 2] = 77;
		rgba[i * 4 + 3] = (unsigned char)(i < 8 ? 255 : 100);
	}
	uint8_t *webp = NULL;
	size_t wn = WebPEncodeLosslessRGBA(rgba, 4, 4, 16, &webp);
	RK_REQUIRE(wn > 0);
	seed("lossless.webp", webp, wn);
	RK_REQUIRE(rk_image_decode_memory(webp, wn, "lossless.webp", NULL, &img, &err));
	RK_CHECK_INT(img.width, 4);
	RK_CHECK_INT(img.source_channels, 4);
	RK_CHECK(img.size == sizeof(rgba) && memcmp(img.pixels, rgba, sizeof(rgba)) == 0);
	rk_image_free(&img);
	WebPFree(webp);

	/* WebP lossy (VP8), with alpha: a flat colour within a small tolerance */
	unsigned char flat[16 * 16 * 4];
	for (int i = 0; i < 16 * 16; i++) {
		flat[i * 4 + 0] = 200;
		flat[i * 4 + 1] = 100;
		flat[i * 4 + 2] = 50;
		flat[i * 4 + 3] = 128;
	}
	wn = WebPEncodeRGBA(flat, 16, 16, 64, 90.0f, &webp);
	RK_REQUIRE(wn > 0);
	seed("lossy.webp", webp, wn);
	RK_REQUIRE(rk_image_decode_memory(webp, wn, "lossy.webp", NULL, &img, &err));
	RK_CHECK_INT(img.source_channels, 4);
	RK_CHECK(px_is(&img, 8, 8, 200, 100, 50, 128, 8));
	rk_image_free(&img);
	WebPFree(webp);
}

/* ---- refused formats and hostile data --------------------------------------------------------- */

/* A w x h 24-bit BMP (refused: only PNG, JPEG and WebP are decoded). */
static size_t make_bmp(unsigned char *buf, size_t cap, uint32_t w, uint32_t h)
{
	size_t row = ((size_t)w * 3 + 3) & ~(size_t)3;
	size_t size = 54 + row * h;
	if (size > cap) return 0;
	memset(buf, 0, size);
	buf[0] = 'B';
	buf[1] = 'M';
	put32(buf + 2, (uint32_t)size);
	put32(buf + 10, 54);
	put32(buf + 14, 40);
	put32(buf + 18, w);
	put32(buf + 22, h);
	buf[26] = 1;
	buf[28] = 24;
	return size;
}

RK_TEST(test_other_formats_refused)
{
	rk_image img;
	rk_error err;
	unsigned char bmp[1024];
	size_t n = make_bmp(bmp, sizeof(bmp), 5, 3);
	RK_CHECK(!rk_image_decode_memory(bmp, n, "hand.bmp", NULL, &img, &err));
	RK_CHECK_INT(err.code, RK_ERROR_UNSUPPORTED);
	RK_CHECK(strstr(err.message, "hand.bmp") && strstr(err.message, "BMP images are not decoded"));
	RK_CHECK(img.pixels == NULL);
	static const struct { const char *bytes; size_t len; const char *name; } others[] = {
		{ "GIF89a\x01\x00\x01\x00\x00\x00\x00", 13, "GIF" }, { "8BPS\x00\x01\x00\x00\x00\x00\x00\x00", 12, "PSD" },
		{ "#?RADIANCE\n", 11, "Radiance HDR" }, { "P6\n1 1\n255\n\x01\x02\x03", 14, "PNM" },
		{ "\x53\x80\xF6\x34\x00\x00", 6, "Softimage PIC" }, { "qoif\x00\x00\x00\x01", 8, "QOI" },
	};
	for (size_t i = 0; i < sizeof(others) / sizeof(others[0]); i++) {
		RK_CHECK(!rk_image_decode_memory(others[i].bytes, others[i].len, "x", NULL, &img, &err));
		RK_CHECK_INT(err.code, RK_ERROR_UNSUPPORTED);
		RK_CHECK(strstr(err.message, others[i].name) != NULL);
	}
	/* TGA has no signature: unknown */
	static const unsigned char tga[18 + 3] = { 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 24, 0, 1, 2, 3 };
	RK_CHECK(!rk_image_decode_memory(tga, sizeof(tga), "x.tga", NULL, &img, &err));
	RK_CHECK_INT(err.code, RK_ERROR_UNSUPPORTED);
	RK_CHECK(!rk_image_decode_memory("not an image at all", 19, "junk", NULL, &img, &err));
	RK_CHECK(strstr(err.message, "junk") != NULL);
	RK_CHECK(!rk_image_decode_memory(bmp, 0, "empty", NULL, &img, &err));
	RK_CHECK_INT(err.code, RK_ERROR_CORRUPT);
}

typedef struct counting {
	size_t live, peak, calls;
} counting;

static void *count_alloc(void *user, size_t size)
{
	counting *c = (counting *)user;
	c->live += size;
	c->calls++;
	if (c->live > c->peak) c->peak = c->live;
	return malloc(size);
}

static void count_free(void *user, void *p, size_t size)
{
	counting *c = (counting *)user;
	c->live -= size;
	free(p);
}

RK_TEST(test_limits_before_decoding)
{
	rk_image img;
	rk_error err;
	counting cnt = { 0 };
	rk_image_opts o = { .allocator = { count_alloc, count_free, &cnt } };
	png_buf b;
	static const unsigned char raw[] = { 0, 1, 2, 3 };
	png_make(&b, 1, 1, 8, 2, raw, sizeof(raw), NULL, 0, NULL, 0);
	/* IHDR claims 100000 x 100000: refused from the header, nothing allocated */
	put32be(b.data + 16, 100000);
	put32be(b.data + 20, 100000);
	put32be(b.data + 29, libdeflate_crc32(0, b.data + 12, 17));
	RK_CHECK(!rk_image_decode_memory(b.data, b.size, "huge.png", &o, &img, &err));
	RK_CHECK_INT(err.code, RK_ERROR_LIMIT);
	RK_CHECK(strstr(err.message, "100000 x 100000") != NULL);
	RK_CHECK_INT(cnt.calls, 0);
	/* a lower max_pixels applies too */
	png_make(&b, 1, 1, 8, 2, raw, sizeof(raw), NULL, 0, NULL, 0);
	put32be(b.data + 16, 300);
	put32be(b.data + 29, libdeflate_crc32(0, b.data + 12, 17));
	o.max_pixels = 299;
	RK_CHECK(!rk_image_decode_memory(b.data, b.size, "wide.png", &o, &img, &err));
	RK_CHECK_INT(err.code, RK_ERROR_LIMIT);
	o.max_pixels = 0;

	/* an iTXt chunk claiming 721 MB (found by fuzz_image): skipped unread,
	 * never allocated (libpng only warns when a chunk exceeds its limit) */
	static const unsigned char itxt[] = { 0x89, 0x50, 0x4e, 0x47, 0xd, 0xa, 0x1a, 0xa, 0x0, 0x0, 0x0, 0xd, 0x49, 0x48,
		0x44, 0x52, 0x0, 0x0, 0x0, 0x3, 0x0, 0x0, 0x0, 0x2, 0x8, 0x6, 0x0, 0x0, 0x0, 0x9d, 0x74, 0x66, 0x1a, 0x2b, 0x0,
		0x0, 0x25, 0x69, 0x54, 0x58, 0x74, 0x15, 0x84, 0x49, 0x44, 0x41, 0x54, 0x78, 0x0, 0x0, 0x2, 0x0, 0x3, 0xb1, 0xbb,
		0x51, 0x42, 0x60, 0x82 };
	struct rusage ru0, ru1;
	getrusage(RUSAGE_SELF, &ru0);
	RK_CHECK(!rk_image_decode_memory(itxt, sizeof(itxt), "itxt.png", &o, &img, &err));
	RK_CHECK(strstr(err.message, "itxt.png") != NULL);
	getrusage(RUSAGE_SELF, &ru1);
	RK_CHECK(ru1.ru_maxrss - ru0.ru_maxrss < 100 * 1024); /* peak RSS (KiB) grew by less than 100 MB */

	/* JPEG SOF claiming 65000 x 65000 */
	unsigned char *jpg = NULL;
	size_t n = jpeg_make(&jpg, 16, 16, JCS_RGB, false);
	for (size_t i = 0; i + 9 < n; i++) {
		if (jpg[i] == 0xFF && jpg[i + 1] == 0xC0) {
			jpg[i + 5] = jpg[i + 7] = 0xFD;
			jpg[i + 6] = jpg[i + 8] = 0xE8;
			break;
		}
	}
	cnt.calls = 0;
	RK_CHECK(!rk_image_decode_memory(jpg, n, "huge.jpg", &o, &img, &err));
	RK_CHECK_INT(err.code, RK_ERROR_LIMIT);
	RK_CHECK_INT(cnt.calls, 0);
	free(jpg);
	RK_CHECK_INT(cnt.live, 0);
}

RK_TEST(test_truncated_and_flipped)
{
	rk_image img;
	rk_error err;
	counting cnt = { 0 };
	rk_image_opts o = { .allocator = { count_alloc, count_free, &cnt } };
	png_buf b;
	unsigned char raw[8 * 33];
	for (size_t i = 0; i < sizeof(raw); i++) raw[i] = (unsigned char)(i * 37);
	for (size_t y = 0; y < 8; y++) raw[y * 33] = (unsigned char)(y % 5); /* every filter type */
	png_make(&b, 8, 8, 8, 6, raw, 8 * 33, NULL, 0, NULL, 0);
	unsigned char *jpg = NULL;
	size_t jn = jpeg_make(&jpg, 24, 24, JCS_RGB, true);
	const unsigned char *files[2] = { b.data, jpg };
	size_t sizes[2] = { b.size, jn };
	size_t decoded = 0, failed = 0;
	for (int f = 0; f < 2; f++) {
		for (size_t len = 0; len < sizes[f]; len++) {
			if (rk_image_decode_memory(files[f], len, "cut", &o, &img, &err)) {
				decoded++;
				rk_image_free(&img);
			} else {
				failed++;
				RK_CHECK(err.code != RK_OK && err.message[0]);
				RK_CHECK(img.pixels == NULL);
			}
		}
		unsigned char copy[65536];
		for (size_t i = 0; i < sizes[f]; i++) {
			memcpy(copy, files[f], sizes[f]);
			copy[i] ^= (unsigned char)(0x5A + i);
			if (rk_image_decode_memory(copy, sizes[f], "flip", &o, &img, &err)) rk_image_free(&img);
			else RK_CHECK(err.code != RK_OK && err.message[0]);
		}
	}
	RK_CHECK(failed > 0);
	RK_CHECK_INT(cnt.live, 0);
	free(jpg);
	(void)decoded;
}

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

RK_TEST(test_embedded_textures)
{
	/* The built-in source character embeds a PNG; its IHDR states the size. */
	rk_error err;
	rk_scene *s = rk_demo_scene(RK_DEMO_MIXAMO_SOURCE, NULL, &err);
	RK_REQUIRE(s);
	RK_REQUIRE(s->textures.count >= 1);
	const rk_texture *t = &s->textures.data[0];
	RK_REQUIRE(t->content && t->content_size > 24);
	RK_REQUIRE(memcmp(t->content, "\x89PNG", 4) == 0);
	rk_image img;
	RK_REQUIRE(rk_image_decode(t, NULL, &img, &err));
	RK_CHECK_INT(img.width, be32(t->content + 16));
	RK_CHECK_INT(img.height, be32(t->content + 20));
	rk_image_free(&img);
	rk_scene_free(s);

	/* A texture with neither content nor a file. */
	rk_texture none;
	memset(&none, 0, sizeof(none));
	none.name = "missing";
	none.filename = "nowhere.png";
	RK_CHECK(!rk_image_decode(&none, NULL, &img, &err));
	RK_CHECK_INT(err.code, RK_ERROR_IO);

	const char *shared = rk_test_shared_dir();
	if (!shared) RK_SKIP("../shared not found (set RIGKIT_SHARED_DIR)");
	char path[4096];
	snprintf(path, sizeof(path), "%s/assets/Soldier.glb", shared);
	s = rk_load_file(path, NULL, &err);
	RK_REQUIRE(s);
	size_t decoded = 0;
	for (size_t i = 0; i < s->textures.count; i++) {
		if (!s->textures.data[i].content) continue;
		RK_REQUIRE(rk_image_decode(&s->textures.data[i], NULL, &img, &err));
		RK_CHECK(img.width > 0 && img.height > 0 && img.size == (size_t)img.width * img.height * 4);
		rk_image_free(&img);
		decoded++;
	}
	RK_CHECK(decoded >= 1);
	rk_scene_free(s);
}

RK_TEST_MAIN(
	RK_TEST_ENTRY(test_png_colour_types),
	RK_TEST_ENTRY(test_jpeg_and_webp),
	RK_TEST_ENTRY(test_other_formats_refused),
	RK_TEST_ENTRY(test_limits_before_decoding),
	RK_TEST_ENTRY(test_truncated_and_flipped),
	RK_TEST_ENTRY(test_embedded_textures))
