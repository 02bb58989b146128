/*
 * tests/test_image.c - on-demand texture decoding (rigkit/image.h).
 *
 * Expectations come from images built by hand in the test (an uncompressed
 * 24-bit BMP: 54-byte header, rows bottom-up in BGR order padded to 4
 * bytes) and from PNG headers read directly (IHDR width/height, big-endian
 * at bytes 16..23).
 */
#include "rk_test.h"

#include <rigkit/rigkit.h>
#include <rigkit/image.h>

static void put32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)v;
	p[1] = (unsigned char)(v >> 8);
	p[2] = (unsigned char)(v >> 16);
	p[3] = (unsigned char)(v >> 24);
}

/* A w x h BMP whose pixel (x, y) (y = 0 at the top) is (r, g, b) = (10x, 20y, 7). */
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
	buf[26] = 1;  /* planes */
	buf[28] = 24; /* bits per pixel */
	put32(buf + 34, (uint32_t)(row * h));
	for (uint32_t y = 0; y < h; y++) {
		unsigned char *r = buf + 54 + row * (h - 1 - y); /* bottom-up */
		for (uint32_t x = 0; x < w; x++) {
			r[x * 3 + 0] = 7;                      /* B */
			r[x * 3 + 1] = (unsigned char)(20 * y); /* G */
			r[x * 3 + 2] = (unsigned char)(10 * x); /* R */
		}
	}
	return size;
}

RK_TEST(test_hand_built_bmp)
{
	unsigned char bmp[1024];
	size_t n = make_bmp(bmp, sizeof(bmp), 5, 3);
	RK_REQUIRE(n > 0);
	rk_image img;
	rk_error err;
	RK_REQUIRE(rk_image_decode_memory(bmp, n, "hand.bmp", NULL, &img, &err));
	RK_CHECK_INT(img.width, 5);
	RK_CHECK_INT(img.height, 3);
	RK_CHECK_INT(img.size, 5 * 3 * 4);
	for (uint32_t y = 0; y < 3; y++) {
		for (uint32_t x = 0; x < 5; x++) {
			const unsigned char *p = img.pixels + (y * 5 + x) * 4;
			RK_CHECK_INT(p[0], 10 * x);
			RK_CHECK_INT(p[1], 20 * y);
			RK_CHECK_INT(p[2], 7);
			RK_CHECK_INT(p[3], 255);
		}
	}
	rk_image_free(&img);
	RK_CHECK(img.pixels == NULL);
}

RK_TEST(test_bad_and_hostile_images)
{
	unsigned char bmp[1024];
	size_t n = make_bmp(bmp, sizeof(bmp), 5, 3);
	rk_image img;
	rk_error err;
	RK_CHECK(!rk_image_decode_memory("not an image at all", 19, "junk", NULL, &img, &err));
	RK_CHECK_INT(err.code, RK_ERROR_CORRUPT);
	RK_CHECK(strstr(err.message, "junk") != NULL);
	RK_CHECK(!rk_image_decode_memory(bmp, 0, "empty", NULL, &img, &err));
	/* A header claiming 100000 x 100000 pixels is refused before decoding. */
	put32(bmp + 18, 100000);
	put32(bmp + 22, 100000);
	RK_CHECK(!rk_image_decode_memory(bmp, n, "huge.bmp", NULL, &img, &err));
	RK_CHECK_INT(err.code, RK_ERROR_LIMIT);
	RK_CHECK(img.pixels == NULL);
	/* Every truncation fails cleanly or decodes. */
	n = make_bmp(bmp, sizeof(bmp), 5, 3);
	for (size_t len = 0; len < n; len++) {
		if (rk_image_decode_memory(bmp, len, "cut.bmp", NULL, &img, &err)) rk_image_free(&img);
		else RK_CHECK(err.code != RK_OK && err.message[0]);
	}
	/* A texture with neither content nor a file. */
	rk_texture t;
	memset(&t, 0, sizeof(t));
	t.name = "missing";
	t.filename = "nowhere.png";
	RK_CHECK(!rk_image_decode(&t, NULL, &img, &err));
	RK_CHECK_INT(err.code, RK_ERROR_IO);
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
	RK_TEST_ENTRY(test_hand_built_bmp),
	RK_TEST_ENTRY(test_bad_and_hostile_images),
	RK_TEST_ENTRY(test_embedded_textures))
