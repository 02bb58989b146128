/*
 * tests/test_render.c - the software preview renderer (rigkit/render.h).
 *
 * Expectations are derived by hand, never from earlier renders:
 *   - hand-made glTF scenes (quads with known corners, normals, UVs and base
 *     colours, built here as JSON with a base64 buffer and loaded with
 *     rk_load_memory) seen by an explicit camera whose projection the test
 *     computes itself: pixel x = (x / (depth * tan(fov / 2) * aspect) + 1) *
 *     width / 2 (perspective), (x / (ortho_height / 2 * aspect) + 1) *
 *     width / 2 (orthographic), y likewise downwards;
 *   - exact coverage from the top-left fill rule: a quad whose edges run
 *     through pixel centres covers exactly the pixels whose centres lie on
 *     its top/left edges or inside, each once (the fragment count shows no
 *     sample of the shared diagonal is drawn twice);
 *   - Lambert's cosine law with sRGB decoded by its formula;
 *   - a hand-built 2x2 PNG texture: each quarter of a quad shows one texel;
 *   - the sample character (rigkit/demo.h): its T-pose silhouette spans
 *     the projected joint positions, its walk changes the image over time,
 *     a load-time axis conversion (even a mirroring one) does not change
 *     the default front view;
 *   - bad arguments are rejected; the same inputs give the same bytes; PNG
 *     files decode (stb_image) back to the pixels written.
 */
#include "rk_test.h"

#include <rigkit/anim.h>
#include <rigkit/export.h>
#include <rigkit/image.h>
#include <rigkit/render.h>
#include <rigkit/rigkit.h>
#include <rigkit/demo.h>

#include <libdeflate.h>
#include <stdarg.h>
#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>

#define PI 3.14159265358979323846

/* ---- building glTF scenes --------------------------------------------------- */

typedef struct tquad {
	float p[4][3];      /* corners in index order (two triangles 0-1-2, 0-2-3) */
	float n[3];         /* the normal of every corner */
	float uv[4][2];
	float col[4][4];    /* COLOR_0 per corner (quad_xy: white) */
	float rgba[4];      /* baseColorFactor */
	bool textured;      /* baseColorTexture = texture 0 */
} tquad;

/* Axis-aligned quad in the plane z, counter-clockwise seen from +Z (glTF
 * front face towards +Z), normal +Z, UV (0, 0) at the top-left corner. */
static tquad quad_xy(float x0, float y0, float x1, float y1, float z, float r, float g, float b)
{
	tquad q;
	memset(&q, 0, sizeof(q));
	const float c[4][2] = { { x0, y1 }, { x0, y0 }, { x1, y0 }, { x1, y1 } };
	const float uv[4][2] = { { 0, 0 }, { 0, 1 }, { 1, 1 }, { 1, 0 } };
	for (int i = 0; i < 4; i++) {
		q.p[i][0] = c[i][0];
		q.p[i][1] = c[i][1];
		q.p[i][2] = z;
		q.uv[i][0] = uv[i][0];
		q.uv[i][1] = uv[i][1];
		for (int k = 0; k < 4; k++) q.col[i][k] = 1.0f;
	}
	q.n[2] = 1;
	q.rgba[0] = r;
	q.rgba[1] = g;
	q.rgba[2] = b;
	q.rgba[3] = 1;
	return q;
}

static char *base64(const void *data, size_t n)
{
	static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	const unsigned char *p = (const unsigned char *)data;
	char *out = (char *)malloc((n + 2) / 3 * 4 + 1);
	size_t o = 0;
	for (size_t i = 0; i < n; i += 3) {
		uint32_t v = (uint32_t)p[i] << 16;
		if (i + 1 < n) v |= (uint32_t)p[i + 1] << 8;
		if (i + 2 < n) v |= p[i + 2];
		out[o++] = tab[(v >> 18) & 63];
		out[o++] = tab[(v >> 12) & 63];
		out[o++] = i + 1 < n ? tab[(v >> 6) & 63] : '=';
		out[o++] = i + 2 < n ? tab[v & 63] : '=';
	}
	out[o] = '\0';
	return out;
}

typedef struct tstr { char *s; size_t n, cap; } tstr;

static void tcat(tstr *t, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	va_list ap2;
	va_copy(ap2, ap);
	int need = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (t->n + (size_t)need + 1 > t->cap) {
		t->cap = (t->n + (size_t)need + 1) * 2;
		t->s = (char *)realloc(t->s, t->cap);
	}
	vsnprintf(t->s + t->n, t->cap - t->n, fmt, ap2);
	va_end(ap2);
	t->n += (size_t)need;
}

static void put_f32(unsigned char *b, size_t *at, float v)
{
	memcpy(b + *at, &v, 4); /* the test machines are little-endian, as glTF */
	*at += 4;
}

/* One node + mesh + material per quad (POSITION, NORMAL, TEXCOORD_0,
 * COLOR_0, uint16 indices); optional embedded image (texture 0,
 * CLAMP_TO_EDGE, nearest filters). */
static rk_scene *load_quads(const tquad *q, size_t count, const unsigned char *image, size_t image_size,
	const rk_load_opts *opts, rk_error *err)
{
	const size_t per = 48 + 48 + 32 + 64 + 12;
	unsigned char *bin = (unsigned char *)calloc(count, per);
	tstr j = { 0 };
	tcat(&j, "{\"asset\":{\"version\":\"2.0\"},\"scene\":0,\"scenes\":[{\"nodes\":[");
	for (size_t i = 0; i < count; i++) tcat(&j, "%s%zu", i ? "," : "", i);
	tcat(&j, "]}],\"nodes\":[");
	for (size_t i = 0; i < count; i++) tcat(&j, "%s{\"name\":\"quad%zu\",\"mesh\":%zu}", i ? "," : "", i, i);
	tcat(&j, "],\"meshes\":[");
	for (size_t i = 0; i < count; i++)
		tcat(&j,
			"%s{\"primitives\":[{\"attributes\":{\"POSITION\":%zu,\"NORMAL\":%zu,\"TEXCOORD_0\":%zu,\"COLOR_0\":%zu},"
			"\"indices\":%zu,\"material\":%zu}]}",
			i ? "," : "", 5 * i, 5 * i + 1, 5 * i + 2, 5 * i + 3, 5 * i + 4, i);
	tcat(&j, "],\"materials\":[");
	for (size_t i = 0; i < count; i++) {
		tcat(&j, "%s{\"pbrMetallicRoughness\":{\"baseColorFactor\":[%.9g,%.9g,%.9g,%.9g]", i ? "," : "", q[i].rgba[0],
			q[i].rgba[1], q[i].rgba[2], q[i].rgba[3]);
		if (q[i].textured) tcat(&j, ",\"baseColorTexture\":{\"index\":0}");
		tcat(&j, "},\"doubleSided\":true}");
	}
	tcat(&j, "],\"accessors\":[");
	size_t at = 0;
	for (size_t i = 0; i < count; i++) {
		float mn[3] = { 1e30f, 1e30f, 1e30f }, mx[3] = { -1e30f, -1e30f, -1e30f };
		for (int c = 0; c < 4; c++)
			for (int k = 0; k < 3; k++) {
				if (q[i].p[c][k] < mn[k]) mn[k] = q[i].p[c][k];
				if (q[i].p[c][k] > mx[k]) mx[k] = q[i].p[c][k];
			}
		tcat(&j,
			"%s{\"bufferView\":%zu,\"componentType\":5126,\"count\":4,\"type\":\"VEC3\",\"min\":[%.9g,%.9g,%.9g],"
			"\"max\":[%.9g,%.9g,%.9g]},",
			i ? "," : "", 5 * i, mn[0], mn[1], mn[2], mx[0], mx[1], mx[2]);
		tcat(&j, "{\"bufferView\":%zu,\"componentType\":5126,\"count\":4,\"type\":\"VEC3\"},", 5 * i + 1);
		tcat(&j, "{\"bufferView\":%zu,\"componentType\":5126,\"count\":4,\"type\":\"VEC2\"},", 5 * i + 2);
		tcat(&j, "{\"bufferView\":%zu,\"componentType\":5126,\"count\":4,\"type\":\"VEC4\"},", 5 * i + 3);
		tcat(&j, "{\"bufferView\":%zu,\"componentType\":5123,\"count\":6,\"type\":\"SCALAR\"}", 5 * i + 4);
		for (int c = 0; c < 4; c++)
			for (int k = 0; k < 3; k++) put_f32(bin, &at, q[i].p[c][k]);
		for (int c = 0; c < 4; c++)
			for (int k = 0; k < 3; k++) put_f32(bin, &at, q[i].n[k]);
		for (int c = 0; c < 4; c++)
			for (int k = 0; k < 2; k++) put_f32(bin, &at, q[i].uv[c][k]);
		for (int c = 0; c < 4; c++)
			for (int k = 0; k < 4; k++) put_f32(bin, &at, q[i].col[c][k]);
		const uint16_t idx[6] = { 0, 1, 2, 0, 2, 3 };
		for (int k = 0; k < 6; k++) {
			bin[at++] = (unsigned char)idx[k];
			bin[at++] = (unsigned char)(idx[k] >> 8);
		}
	}
	tcat(&j, "],\"bufferViews\":[");
	for (size_t i = 0; i < count; i++) {
		size_t base = i * per;
		tcat(&j, "%s{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":48},", i ? "," : "", base);
		tcat(&j, "{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":48},", base + 48);
		tcat(&j, "{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":32},", base + 96);
		tcat(&j, "{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":64},", base + 128);
		tcat(&j, "{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":12}", base + 192);
	}
	char *b64 = base64(bin, count * per);
	tcat(&j, "],\"buffers\":[{\"byteLength\":%zu,\"uri\":\"data:application/octet-stream;base64,%s\"}]", count * per,
		b64);
	free(b64);
	if (image) {
		char *img64 = base64(image, image_size);
		tcat(&j,
			",\"images\":[{\"uri\":\"data:image/png;base64,%s\"}],\"textures\":[{\"source\":0,\"sampler\":0}],"
			"\"samplers\":[{\"magFilter\":9728,\"minFilter\":9728,\"wrapS\":33071,\"wrapT\":33071}]",
			img64);
		free(img64);
	}
	tcat(&j, "}");
	rk_scene *s = rk_load_memory(j.s, j.n, opts, err);
	if (!s) {
		char buf[1024];
		rk_error_format(buf, sizeof(buf), err);
		fprintf(stderr, "load_quads: %s\n", buf);
	}
	free(j.s);
	free(bin);
	return s;
}

/* ---- images ------------------------------------------------------------------- */

typedef struct timg {
	uint32_t w, h;
	unsigned char *px;
} timg;

static bool render(const rk_scene *s, const rk_anim_clip *clip, double t, rk_render_opts o, timg *img, rk_error *err)
{
	size_t bytes = rk_render_size(&o, &img->w, &img->h, err);
	img->px = bytes ? (unsigned char *)malloc(bytes) : NULL;
	if (!img->px) return false;
	memset(img->px, 0xcd, bytes);
	bool ok = rk_render(s, clip, t, &o, img->px, 0, err);
	if (!ok) {
		char buf[1024];
		rk_error_format(buf, sizeof(buf), err);
		fprintf(stderr, "rk_render: %s\n", buf);
	}
	return ok;
}

static const unsigned char *px_at(const timg *img, uint32_t x, uint32_t y)
{
	return img->px + ((size_t)y * img->w + x) * 4u;
}

static bool is_bg(const timg *img, uint32_t x, uint32_t y)
{
	const unsigned char *p = px_at(img, x, y);
	return p[0] == 0 && p[1] == 0 && p[2] == 0;
}

static double srgb_decode(unsigned char v)
{
	double c = v / 255.0;
	return c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4);
}

/* Explicit camera at (0, 0, dist) looking at the origin, Y up. */
static rk_render_opts front_camera(uint32_t w, uint32_t h, double dist, double tan_half)
{
	rk_render_opts o = { 0 };
	o.width = w;
	o.height = h;
	o.camera.look_at = true;
	o.camera.eye = (rk_vec3){ 0, 0, dist };
	o.camera.target = (rk_vec3){ 0, 0, 0 };
	o.camera.up = (rk_vec3){ 0, 1, 0 };
	o.camera.fov_deg = 2.0 * atan(tan_half) * 180.0 / PI;
	o.has_background = true;
	o.background[3] = 255; /* opaque black */
	return o;
}

/* ---- coverage ----------------------------------------------------------------- */

/* Orthographic camera, 2 units tall over 64 pixels: pixel x = (x + 1) * 32,
 * pixel y = (1 - y) * 32. Quad x from 16.5 / 32 - 1 to 48.5 / 32 - 1 and y
 * from -(48.5 / 32 - 1) to -(16.5 / 32 - 1): every edge runs through pixel
 * centres (16.5 and 48.5 in both directions). The top-left rule includes
 * the left and top edges and excludes the right and bottom ones: exactly
 * columns 16..47 and rows 16..47 are covered. */
RK_TEST(test_coverage_top_left_rule)
{
	rk_error err;
	float lo = 16.5f / 32.0f - 1.0f, hi = 48.5f / 32.0f - 1.0f;
	tquad q = quad_xy(lo, -hi, hi, -lo, 0.0f, 1, 1, 1);
	rk_scene *s = load_quads(&q, 1, NULL, 0, NULL, &err);
	RK_REQUIRE(s);
	rk_render_stats st;
	for (int flip = 0; flip < 2; flip++) {
		rk_render_opts o = front_camera(64, 64, 5.0, 0.1);
		o.camera.orthographic = true;
		o.camera.ortho_height = 2.0;
		o.shading = RK_SHADE_UNLIT;
		o.cull_back_faces = flip == 1; /* the quad faces the camera: nothing culled */
		o.stats = &st;
		timg img;
		RK_REQUIRE(render(s, NULL, 0.0, o, &img, &err));
		size_t covered = 0, wrong = 0;
		for (uint32_t y = 0; y < 64; y++)
			for (uint32_t x = 0; x < 64; x++) {
				bool inside = x >= 16 && x <= 47 && y >= 16 && y <= 47;
				const unsigned char *p = px_at(&img, x, y);
				bool lit = p[0] == 255 && p[1] == 255 && p[2] == 255 && p[3] == 255;
				covered += lit;
				if (lit != inside || (!lit && !is_bg(&img, x, y))) wrong++;
			}
		RK_CHECK_INT(covered, 32 * 32);
		RK_CHECK_INT(wrong, 0);

		RK_CHECK_INT(st.fragments, 32 * 32); /* the shared diagonal is not drawn twice */
		RK_CHECK_INT(st.triangles, 2);
		RK_CHECK_INT(st.mesh_nodes, 1);
		RK_CHECK(st.orthographic);
		RK_CHECK_NEAR(st.ortho_height, 2.0, 1e-12);
		free(img.px);
	}
	rk_scene_free(s);
}

/* Perspective, tan(fov / 2) = 0.1 from 10 units: the plane z = 0 shows
 * [-1, 1] x [-1, 1], so the quad [-0.5, 0.5]^2 covers pixels 16..48 of 64. */
RK_TEST(test_coverage_perspective)
{
	rk_error err;
	tquad q = quad_xy(-0.5f, -0.5f, 0.5f, 0.5f, 0.0f, 1, 1, 1);
	rk_scene *s = load_quads(&q, 1, NULL, 0, NULL, &err);
	RK_REQUIRE(s);
	rk_render_opts o = front_camera(64, 64, 10.0, 0.1);
	o.shading = RK_SHADE_UNLIT;
	timg img;
	RK_REQUIRE(render(s, NULL, 0.0, o, &img, &err));
	RK_CHECK(!is_bg(&img, 32, 32));
	RK_CHECK(!is_bg(&img, 17, 17) && !is_bg(&img, 46, 46) && !is_bg(&img, 17, 46) && !is_bg(&img, 46, 17));
	RK_CHECK(is_bg(&img, 0, 0) && is_bg(&img, 63, 0) && is_bg(&img, 0, 63) && is_bg(&img, 63, 63));
	RK_CHECK(is_bg(&img, 14, 32) && is_bg(&img, 49, 32) && is_bg(&img, 32, 14) && is_bg(&img, 32, 49));
	size_t covered = 0;
	for (uint32_t i = 0; i < 64u * 64u; i++) covered += img.px[i * 4] != 0;
	RK_CHECK_INT(covered, 32 * 32);
	/* Alpha: opaque background and surface alike. */
	RK_CHECK_INT(px_at(&img, 0, 0)[3], 255);
	RK_CHECK_INT(px_at(&img, 32, 32)[3], 255);
	free(img.px);

	/* Wider image, same vertical field of view: the horizontal extent
	 * follows the aspect ratio (128 x 64 shows x in [-2, 2]). */
	o.width = 128;
	RK_REQUIRE(render(s, NULL, 0.0, o, &img, &err));
	RK_CHECK(is_bg(&img, 46, 32) && !is_bg(&img, 49, 32) && !is_bg(&img, 78, 32) && is_bg(&img, 81, 32));
	free(img.px);
	rk_scene_free(s);
}

/* Supersampling 2x2: a right edge through the middle of pixel 40 leaves one
 * of its two sample columns covered: coverage 1/2, averaged in linear
 * light (linear_output shows 0.5 * 255). */
RK_TEST(test_supersample_edge)
{
	rk_error err;
	float x1 = 40.5f / 32.0f - 1.0f;
	tquad q = quad_xy(-0.5f, -0.5f, x1, 0.5f, 0.0f, 1, 1, 1);
	rk_scene *s = load_quads(&q, 1, NULL, 0, NULL, &err);
	RK_REQUIRE(s);
	rk_render_opts o = front_camera(64, 64, 5.0, 0.1);
	o.camera.orthographic = true;
	o.camera.ortho_height = 2.0;
	o.shading = RK_SHADE_UNLIT;
	o.linear_output = true;
	o.supersample = 2;
	o.background[3] = 0; /* transparent: alpha carries the coverage */
	timg img;
	RK_REQUIRE(render(s, NULL, 0.0, o, &img, &err));
	const unsigned char *edge = px_at(&img, 40, 32), *in = px_at(&img, 39, 32), *out = px_at(&img, 41, 32);
	RK_CHECK_INT(in[0], 255);
	RK_CHECK_INT(in[3], 255);
	RK_CHECK_INT(out[3], 0);
	RK_CHECK(edge[3] == 127 || edge[3] == 128);
	RK_CHECK_INT(edge[0], 255); /* straight alpha: colour not darkened */
	free(img.px);
	rk_scene_free(s);
}

/* ---- depth -------------------------------------------------------------------- */

/* A red quad at z = 0.5 overlaps a green one at z = 0 in x in [-0.2, 0.2]:
 * the nearer red one wins there whichever node comes first. */
RK_TEST(test_depth_test)
{
	rk_error err;
	for (int order = 0; order < 2; order++) {
		tquad red = quad_xy(-0.6f, -0.3f, 0.2f, 0.3f, 0.5f, 1, 0, 0);
		tquad green = quad_xy(-0.2f, -0.3f, 0.6f, 0.3f, 0.0f, 0, 1, 0);
		tquad q[2] = { order ? green : red, order ? red : green };
		rk_scene *s = load_quads(q, 2, NULL, 0, NULL, &err);
		RK_REQUIRE(s);
		rk_render_opts o = front_camera(64, 64, 10.0, 0.1);
		o.shading = RK_SHADE_UNLIT;
		timg img;
		RK_REQUIRE(render(s, NULL, 0.0, o, &img, &err));
		/* red: x = -0.4 and 0 at depth 9.5 -> pixel (x / 0.95 + 1) * 32 */
		const unsigned char *mid = px_at(&img, 32, 32), *left = px_at(&img, 18, 32), *right = px_at(&img, 45, 32);
		RK_CHECK(mid[0] == 255 && mid[1] == 0);
		RK_CHECK(left[0] == 255 && left[1] == 0);
		RK_CHECK(right[0] == 0 && right[1] == 255);
		free(img.px);
		rk_scene_free(s);
	}
}

/* ---- shading ------------------------------------------------------------------ */

/* Two white-ish quads lit by a light along +Z (towards the camera): one
 * faces it, one is turned 60 degrees about Y (normal (sin 60, 0, cos 60)).
 * Lambert with ambient 0: linear intensities 0.8 and 0.8 cos 60 = 0.4. */
RK_TEST(test_lambert_cosine)
{
	rk_error err;
	tquad a = quad_xy(-0.9f, -0.4f, -0.1f, 0.4f, 0.0f, 0.8f, 0.8f, 0.8f);
	tquad b = quad_xy(-0.4f, -0.4f, 0.4f, 0.4f, 0.0f, 0.8f, 0.8f, 0.8f);
	double th = 60.0 * PI / 180.0;
	for (int i = 0; i < 4; i++) {
		double x = b.p[i][0];
		b.p[i][0] = (float)(0.5 + x * cos(th));
		b.p[i][2] = (float)(-x * sin(th));
	}
	b.n[0] = (float)sin(th);
	b.n[2] = (float)cos(th);
	tquad q[2] = { a, b };
	rk_scene *s = load_quads(q, 2, NULL, 0, NULL, &err);
	RK_REQUIRE(s);
	rk_render_opts o = front_camera(64, 64, 10.0, 0.1);
	o.light_direction = (rk_vec3){ 0, 0, 1 };
	o.ambient = 0.0;
	o.diffuse = 1.0;
	timg img;
	RK_REQUIRE(render(s, NULL, 0.0, o, &img, &err));
	double ia = srgb_decode(px_at(&img, 16, 32)[0]), ib = srgb_decode(px_at(&img, 48, 32)[0]);
	RK_CHECK_NEAR(ia, 0.8, 0.005);
	RK_CHECK_NEAR(ib, 0.4, 0.005);
	RK_CHECK_NEAR(ib / ia, cos(th), 0.01);
	free(img.px);

	/* Light from behind: only ambient (0.25 * 0.8); the default lighting
	 * (ambient 0.3 + diffuse 0.7 from the camera's upper left) is brighter
	 * than ambient and at most the base colour. */
	o.light_direction = (rk_vec3){ 0, 0, -1 };
	o.ambient = 0.25;
	o.diffuse = 0.75;
	RK_REQUIRE(render(s, NULL, 0.0, o, &img, &err));
	RK_CHECK_NEAR(srgb_decode(px_at(&img, 16, 32)[0]), 0.2, 0.004);
	free(img.px);
	o.light_direction = (rk_vec3){ 0, 0, 0 };
	o.ambient = o.diffuse = 0.0;
	RK_REQUIRE(render(s, NULL, 0.0, o, &img, &err));
	double def = srgb_decode(px_at(&img, 16, 32)[0]);
	RK_CHECK(def > 0.3 * 0.8 + 0.05 && def <= 0.8 + 0.004);
	free(img.px);
	rk_scene_free(s);
}

static void put_be32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)(v >> 24);
	p[1] = (unsigned char)(v >> 16);
	p[2] = (unsigned char)(v >> 8);
	p[3] = (unsigned char)v;
}

/* One PNG chunk at buf + at (length, type, body, CRC over type + body). */
static size_t png_chunk(unsigned char *buf, size_t at, const char *type, const unsigned char *body, size_t len)
{
	put_be32(buf + at, (uint32_t)len);
	memcpy(buf + at + 4, type, 4);
	if (len) memcpy(buf + at + 8, body, len);
	put_be32(buf + at + 8 + len, libdeflate_crc32(0, buf + at + 4, len + 4));
	return at + 12 + len;
}

/* 8-bit RGB PNG, 2 x 2, built by hand: top row red, green; bottom row blue, white. */
static size_t make_png(unsigned char *buf)
{
	static const unsigned char rows[2 * 7] = { 0, 255, 0, 0, 0, 255, 0, 0, 0, 0, 255, 255, 255, 255 };
	static const unsigned char ihdr[13] = { 0, 0, 0, 2, 0, 0, 0, 2, 8, 2, 0, 0, 0 };
	unsigned char z[128];
	struct libdeflate_compressor *c = libdeflate_alloc_compressor(6);
	size_t zn = libdeflate_zlib_compress(c, rows, sizeof(rows), z, sizeof(z));
	libdeflate_free_compressor(c);
	memcpy(buf, "\x89PNG\r\n\x1a\n", 8);
	size_t n = png_chunk(buf, 8, "IHDR", ihdr, sizeof(ihdr));
	n = png_chunk(buf, n, "IDAT", z, zn);
	return png_chunk(buf, n, "IEND", NULL, 0);
}

/* glTF UV (0, 0) is the image's top-left: each quarter of the quad shows
 * one texel. The quad spans pixel centres 16.5..48.5 (orthographic, pixel =
 * (x + 1) * 32), so the quarter centres, pixel centres 24.5 and 40.5, sample
 * UV 0.25 / 0.75: texel centres, exact under bilinear filtering. */
RK_TEST(test_texture)
{
	rk_error err;
	unsigned char png[256];
	size_t n = make_png(png);
	float lo = 16.5f / 32.0f - 1.0f, hi = 48.5f / 32.0f - 1.0f;
	tquad q = quad_xy(lo, -hi, hi, -lo, 0.0f, 1, 1, 1);
	q.textured = true;
	rk_scene *s = load_quads(&q, 1, png, n, NULL, &err);
	RK_REQUIRE(s);
	rk_render_opts o = front_camera(64, 64, 10.0, 0.1);
	o.camera.orthographic = true;
	o.camera.ortho_height = 2.0;
	o.shading = RK_SHADE_UNLIT;
	o.textures = true;
	rk_render_stats st;
	o.stats = &st;
	timg img;
	RK_REQUIRE(render(s, NULL, 0.0, o, &img, &err));
	RK_CHECK_INT(st.textures_decoded, 1);
	RK_CHECK_INT(st.textures_failed, 0);
	const unsigned char *tl = px_at(&img, 24, 24), *tr = px_at(&img, 40, 24), *bl = px_at(&img, 24, 40),
	                    *br = px_at(&img, 40, 40);
	RK_CHECK(tl[0] == 255 && tl[1] == 0 && tl[2] == 0);
	RK_CHECK(tr[0] == 0 && tr[1] == 255 && tr[2] == 0);
	RK_CHECK(bl[0] == 0 && bl[1] == 0 && bl[2] == 255);
	RK_CHECK(br[0] == 255 && br[1] == 255 && br[2] == 255);
	free(img.px);
	/* Without textures: the base colour (white) everywhere. */
	o.textures = false;
	RK_REQUIRE(render(s, NULL, 0.0, o, &img, &err));
	RK_CHECK_INT(st.textures_decoded, 0);
	tl = px_at(&img, 24, 24);
	RK_CHECK(tl[0] == 255 && tl[1] == 255 && tl[2] == 255);
	free(img.px);
	rk_scene_free(s);

	/* A texture that does not decode: counted, drawn untextured. */
	unsigned char junk[16] = "not an image";
	s = load_quads(&q, 1, junk, sizeof(junk), NULL, &err);
	RK_REQUIRE(s);
	o.textures = true;
	RK_REQUIRE(render(s, NULL, 0.0, o, &img, &err));
	RK_CHECK_INT(st.textures_failed, 1);
	RK_CHECK(st.texture_error[0] != '\0');
	tl = px_at(&img, 24, 24);
	RK_CHECK(tl[0] == 255 && tl[1] == 255 && tl[2] == 255);
	free(img.px);
	rk_scene_free(s);
}

/* glTF COLOR_0 multiplies the base colour and is interpolated: left corners
 * red, right corners blue, on a quad spanning pixel centres 16.5..48.5
 * (orthographic): column 32 (centre 32.5) is halfway, (0.5, 0, 0.5) in
 * linear output; base colour (1, 1, 0.5) halves the blue again. */
RK_TEST(test_vertex_colors)
{
	rk_error err;
	float lo = 16.5f / 32.0f - 1.0f, hi = 48.5f / 32.0f - 1.0f;
	tquad q = quad_xy(lo, -hi, hi, -lo, 0.0f, 1.0f, 1.0f, 0.5f);
	const float red[4] = { 1, 0, 0, 1 }, blue[4] = { 0, 0, 1, 1 };
	for (int i = 0; i < 4; i++) memcpy(q.col[i], q.p[i][0] < 0 ? red : blue, sizeof(red));
	rk_scene *s = load_quads(&q, 1, NULL, 0, NULL, &err);
	RK_REQUIRE(s);
	rk_render_opts o = front_camera(64, 64, 5.0, 0.1);
	o.camera.orthographic = true;
	o.camera.ortho_height = 2.0;
	o.shading = RK_SHADE_UNLIT;
	o.linear_output = true;
	timg img;
	RK_REQUIRE(render(s, NULL, 0.0, o, &img, &err));
	const unsigned char *mid = px_at(&img, 32, 32), *left = px_at(&img, 16, 32), *right = px_at(&img, 47, 32);
	RK_CHECK(abs((int)mid[0] - 128) <= 1 && mid[1] == 0 && abs((int)mid[2] - 64) <= 1);
	/* column 16 (centre 16.5, u = 0) and 47 (centre 47.5, u = 31 / 32) */
	RK_CHECK(left[0] == 255 && left[2] == 0);
	RK_CHECK(abs((int)right[0] - 8) <= 1 && abs((int)right[2] - 124) <= 1);
	free(img.px);
	rk_scene_free(s);
}

/* Back-face culling: the quad's corners reversed face -Z (away from the
 * camera): drawn by default, culled on request. */
RK_TEST(test_cull_back_faces)
{
	rk_error err;
	tquad q = quad_xy(-0.5f, -0.5f, 0.5f, 0.5f, 0.0f, 1, 1, 1);
	tquad r = q;
	for (int i = 0; i < 4; i++) memcpy(r.p[i], q.p[3 - i], sizeof(r.p[i]));
	rk_scene *s = load_quads(&r, 1, NULL, 0, NULL, &err);
	RK_REQUIRE(s);
	rk_render_opts o = front_camera(64, 64, 10.0, 0.1);
	timg img;
	RK_REQUIRE(render(s, NULL, 0.0, o, &img, &err));
	RK_CHECK(!is_bg(&img, 32, 32));
	free(img.px);
	o.cull_back_faces = true;
	RK_REQUIRE(render(s, NULL, 0.0, o, &img, &err));
	RK_CHECK(is_bg(&img, 32, 32));
	free(img.px);
	rk_scene_free(s);
}

/* A floor (y = -1, z from -10 to +10) crosses the near plane of a camera
 * at the origin looking along -Z with a 90 degree field of view: it covers
 * the bottom of the image up to its far edge, at y_ndc = -1 / 10 (pixel row
 * 0.55 * 64 = 35.2), and nothing above; no part behind the camera wraps
 * around. */
RK_TEST(test_near_plane_clipping)
{
	rk_error err;
	tquad q;
	memset(&q, 0, sizeof(q));
	const float c[4][3] = { { -10, -1, -10 }, { -10, -1, 10 }, { 10, -1, 10 }, { 10, -1, -10 } };
	memcpy(q.p, c, sizeof(c));
	q.n[1] = 1;
	q.rgba[0] = q.rgba[1] = q.rgba[2] = q.rgba[3] = 1;
	for (int i = 0; i < 4; i++) q.col[i][0] = q.col[i][1] = q.col[i][2] = q.col[i][3] = 1;
	rk_scene *s = load_quads(&q, 1, NULL, 0, NULL, &err);
	RK_REQUIRE(s);
	rk_render_opts o = front_camera(64, 64, 0.0, 1.0);
	o.camera.eye = (rk_vec3){ 0, 0, 0 };
	o.camera.target = (rk_vec3){ 0, 0, -1 };
	o.shading = RK_SHADE_UNLIT;
	rk_render_stats st;
	o.stats = &st;
	timg img;
	RK_REQUIRE(render(s, NULL, 0.0, o, &img, &err));
	size_t wrong = 0;
	for (uint32_t y = 0; y < 64; y++)
		for (uint32_t x = 0; x < 64; x++) {
			/* the floor's far edge x range at depth 10: |x| <= 10 -> whole width */
			bool floor = y >= 35; /* row 35's centre 35.5 is below 35.2 */
			if (floor == is_bg(&img, x, y)) wrong++;
		}
	RK_CHECK_INT(wrong, 0);
	RK_CHECK(st.triangles_rasterized >= 2);
	free(img.px);
	rk_scene_free(s);
}

/* ---- the sample character ------------------------------------------------------- */

static rk_vec3 node_pos(const rk_scene *s, const rk_pose *pose, size_t i)
{
	return rk_mat4_get_translation(pose ? pose->node_to_world[i] : s->nodes.data[i].node_to_world);
}

/* T-pose seen from the front (eye at z = 40, tan(fov / 2) = 0.025: 1 m
 * either side of the centre over 200 pixels): the silhouette's leftmost
 * and rightmost columns lie at the projected extreme joints (fingertips),
 * the mesh adding at most a finger's thickness. */
RK_TEST(test_sample_silhouette)
{
	rk_error err;
	rk_scene *s = rk_demo_scene(RK_DEMO_MIXAMO_SOURCE, NULL, &err);
	RK_REQUIRE(s);
	rk_node *arm = rk_scene_find_node(s, "mixamorig:LeftArm");
	RK_REQUIRE(arm);
	double yc = rk_mat4_get_translation(arm->node_to_world).y;
	const double dist = 40.0, t = 0.025;
	const uint32_t W = 400, H = 400;
	rk_render_opts o = front_camera(W, H, dist, t);
	o.camera.eye = (rk_vec3){ 0, yc, dist };
	o.camera.target = (rk_vec3){ 0, yc, 0 };
	timg img;
	RK_REQUIRE(render(s, NULL, 0.0, o, &img, &err));
	int xmin = (int)W, xmax = -1;
	for (uint32_t y = 0; y < H; y++)
		for (uint32_t x = 0; x < W; x++)
			if (!is_bg(&img, x, y)) {
				if ((int)x < xmin) xmin = (int)x;
				if ((int)x > xmax) xmax = (int)x;
			}
	double jmin = 1e9, jmax = -1e9;
	for (size_t i = 0; i < s->nodes.count; i++) {
		if (s->nodes.data[i].kind != RK_NODE_JOINT) continue;
		rk_vec3 p = node_pos(s, NULL, i);
		double px = (p.x / ((dist - p.z) * t) + 1.0) * W / 2.0;
		if (px < jmin) jmin = px;
		if (px > jmax) jmax = px;
	}
	fprintf(stderr, "silhouette %d..%d (centres %.1f..%.1f), joints %.2f..%.2f\n", xmin, xmax, xmin + 0.5, xmax + 0.5,
		jmin, jmax);
	RK_CHECK(jmax - jmin > 0.6 * W); /* the arms really span the image */
	RK_CHECK(xmin + 0.5 <= jmin + 1.0 && xmin + 0.5 >= jmin - 4.0);
	RK_CHECK(xmax + 0.5 >= jmax - 1.0 && xmax + 0.5 <= jmax + 4.0);
	free(img.px);
	rk_scene_free(s);
}

/* Walk: two times of the clip give different images; the same time twice
 * gives the same bytes (with every option on), also into a sub-rectangle
 * of a larger buffer (stride), which leaves the other bytes alone. */
RK_TEST(test_sample_walk_and_determinism)
{
	rk_error err;
	rk_scene *s = rk_demo_scene(RK_DEMO_MIXAMO_SOURCE, NULL, &err);
	RK_REQUIRE(s);
	const rk_anim_clip *walk = rk_scene_find_clip(s, "Walk");
	RK_REQUIRE(walk);
	rk_render_opts o = { 0 };
	o.width = 160;
	o.height = 120;
	o.camera.yaw_deg = 90;
	o.camera.has_bounds = true;
	o.camera.bounds_min = (rk_vec3){ -1, 0, -0.5 };
	o.camera.bounds_max = (rk_vec3){ 1, 1.8, 1.5 };
	timg a, b;
	RK_REQUIRE(render(s, walk, 0.0, o, &a, &err));
	RK_REQUIRE(render(s, walk, 0.25, o, &b, &err));
	size_t differ = 0;
	for (size_t i = 0; i < (size_t)a.w * a.h; i++) differ += memcmp(a.px + i * 4, b.px + i * 4, 4) != 0;
	RK_CHECK(differ > (size_t)a.w * a.h / 50);
	free(a.px);
	free(b.px);

	o.textures = o.skeleton = o.wireframe = true;
	o.supersample = 2;
	o.camera.has_bounds = false;
	RK_REQUIRE(render(s, walk, 0.4, o, &a, &err));
	RK_REQUIRE(render(s, walk, 0.4, o, &b, &err));
	RK_CHECK(memcmp(a.px, b.px, (size_t)a.w * a.h * 4) == 0);

	size_t stride = (size_t)a.w * 4 + 36, total = stride * a.h;
	unsigned char *big = (unsigned char *)malloc(total);
	memset(big, 0x5a, total);
	RK_REQUIRE(rk_render(s, walk, 0.4, &o, big, stride, &err));
	size_t row_diff = 0, pad_touched = 0;
	for (uint32_t y = 0; y < a.h; y++) {
		row_diff += memcmp(big + y * stride, a.px + (size_t)y * a.w * 4, (size_t)a.w * 4) != 0;
		for (size_t k = (size_t)a.w * 4; k < stride; k++) pad_touched += big[y * stride + k] != 0x5a;
	}
	RK_CHECK_INT(row_diff, 0);
	RK_CHECK_INT(pad_touched, 0);
	free(big);
	free(a.px);
	free(b.px);
	rk_scene_free(s);
}

/* Skeleton overlay on a skeleton-only scene: every joint's projected
 * position shows the joint dot colour; without the overlay the image is
 * background only. */
RK_TEST(test_skeleton_overlay)
{
	rk_error err;
	rk_demo_opts so = { 0 };
	so.no_mesh = true;
	rk_scene *s = rk_demo_scene(RK_DEMO_MIXAMO_SOURCE, &so, &err);
	RK_REQUIRE(s);
	const double dist = 20.0, t = 0.05;
	const uint32_t W = 200, H = 200;
	rk_render_opts o = front_camera(W, H, dist, t);
	o.camera.eye = (rk_vec3){ 0, 0.9, dist };
	o.camera.target = (rk_vec3){ 0, 0.9, 0 };
	rk_render_stats st;
	o.stats = &st;
	timg img;
	RK_REQUIRE(render(s, NULL, 0.0, o, &img, &err));
	size_t lit = 0;
	for (uint32_t y = 0; y < H; y++)
		for (uint32_t x = 0; x < W; x++) lit += !is_bg(&img, x, y);
	RK_CHECK_INT(lit, 0);
	RK_CHECK_INT(st.mesh_nodes, 0);
	free(img.px);
	o.skeleton = true;
	RK_REQUIRE(render(s, NULL, 0.0, o, &img, &err));
	size_t joints = 0, hits = 0;
	for (size_t i = 0; i < s->nodes.count; i++) {
		if (s->nodes.data[i].kind != RK_NODE_JOINT) continue;
		rk_vec3 p = node_pos(s, NULL, i);
		double px = (p.x / ((dist - p.z) * t) + 1.0) * W / 2.0;
		double py = (1.0 - (p.y - 0.9) / ((dist - p.z) * t)) * H / 2.0;
		joints++;
		const unsigned char *c = px_at(&img, (uint32_t)px, (uint32_t)py);
		hits += c[0] == 255 && c[1] == 240 && c[2] == 200;
	}
	RK_CHECK_INT(joints, 67);
	RK_CHECK_INT(hits, joints);
	free(img.px);
	rk_scene_free(s);
}

/* Auto framing follows the scene's axes: the default front view of the
 * sample loaded with a Z-up or a left-handed (mirroring) conversion looks
 * like the unconverted one (a few edge pixels may differ by rounding). The
 * character fills the frame inside the margin. */
RK_TEST(test_auto_framing_axes)
{
	rk_error err;
	rk_demo_opts so = { 0 };
	so.no_texture = true;
	rk_scene *src = rk_demo_scene(RK_DEMO_MIXAMO_SOURCE, &so, &err);
	RK_REQUIRE(src);
	char dir[] = "/tmp/rigkit_render_XXXXXX";
	RK_REQUIRE(mkdtemp(dir) != NULL);
	char path[256];
	snprintf(path, sizeof(path), "%s/source.glb", dir);
	RK_REQUIRE(rk_glb_write(src, path, NULL, &err));
	rk_scene_free(src);

	rk_render_opts o = { 0 };
	o.width = 128;
	o.height = 128;
	timg ref;
	rk_scene *s = rk_load_file(path, NULL, &err);
	RK_REQUIRE(s);
	RK_REQUIRE(render(s, NULL, 0.0, o, &ref, &err));
	rk_scene_free(s);
	/* inside the 5% margin (0.05 of the half extent: 3.2 pixels), tall, centred */
	int ymin = 128, ymax = -1, xmin = 128, xmax = -1;
	for (uint32_t y = 0; y < 128; y++)
		for (uint32_t x = 0; x < 128; x++) {
			const unsigned char *p = px_at(&ref, x, y);
			if (p[0] == 40 && p[1] == 44 && p[2] == 52) continue; /* default background */
			if ((int)y < ymin) ymin = (int)y;
			if ((int)y > ymax) ymax = (int)y;
			if ((int)x < xmin) xmin = (int)x;
			if ((int)x > xmax) xmax = (int)x;
		}
	fprintf(stderr, "framing: x %d..%d, y %d..%d\n", xmin, xmax, ymin, ymax);
	RK_CHECK(ymin >= 3 && ymax <= 124 && xmin >= 3 && xmax <= 124);
	RK_CHECK(ymax - ymin > 90);
	RK_CHECK(fabs((xmin + xmax) / 2.0 - 63.5) < 3.0);

	const char *axes[] = { "right_handed_z_up", "left_handed_y_up", "left_handed_z_up" };
	for (int k = 0; k < 3; k++) {
		rk_load_opts lo = { 0 };
		RK_REQUIRE(rk_axes_parse(axes[k], &lo.target_axes));
		s = rk_load_file(path, &lo, &err);
		RK_REQUIRE(s);
		timg img;
		RK_REQUIRE(render(s, NULL, 0.0, o, &img, &err));
		size_t differ = 0;
		for (size_t i = 0; i < 128u * 128u; i++) {
			int d = 0;
			for (int c = 0; c < 3; c++) d += abs((int)img.px[i * 4 + c] - (int)ref.px[i * 4 + c]);
			differ += d > 6;
		}
		if (differ > 40) fprintf(stderr, "%s: %zu pixels differ\n", axes[k], differ);
		RK_CHECK(differ <= 40);
		free(img.px);
		rk_scene_free(s);
	}
	free(ref.px);
	unlink(path);
	rmdir(dir);
}

/* ---- PNG ---------------------------------------------------------------------- */

static unsigned char *read_all(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	if (!f) return NULL;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	unsigned char *buf = (unsigned char *)malloc(n > 0 ? (size_t)n : 1);
	if (buf && n > 0 && fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	*size = n > 0 ? (size_t)n : 0;
	return buf;
}

RK_TEST(test_write_png)
{
	rk_error err;
	const uint32_t w = 37, h = 23;
	size_t stride = w * 4 + 12;
	unsigned char *px = (unsigned char *)malloc(stride * h);
	for (uint32_t y = 0; y < h; y++)
		for (uint32_t x = 0; x < stride; x++) px[y * stride + x] = (unsigned char)(x * 7 + y * 13);
	char dir[] = "/tmp/rigkit_render_XXXXXX";
	RK_REQUIRE(mkdtemp(dir) != NULL);
	char path[256];
	snprintf(path, sizeof(path), "%s/a.png", dir);
	RK_REQUIRE(rk_png_write(path, px, w, h, stride, &err));
	size_t n = 0;
	unsigned char *file = read_all(path, &n);
	RK_REQUIRE(file && n > 33);
	RK_CHECK(memcmp(file, "\x89PNG\r\n\x1a\n", 8) == 0);
	RK_CHECK(memcmp(file + 12, "IHDR", 4) == 0);
	uint32_t fw = (uint32_t)file[16] << 24 | (uint32_t)file[17] << 16 | (uint32_t)file[18] << 8 | file[19];
	uint32_t fh = (uint32_t)file[20] << 24 | (uint32_t)file[21] << 16 | (uint32_t)file[22] << 8 | file[23];
	RK_CHECK_INT(fw, w);
	RK_CHECK_INT(fh, h);
	RK_CHECK_INT(file[24], 8); /* bit depth */
	RK_CHECK_INT(file[25], 6); /* RGBA */
	rk_image img;
	RK_REQUIRE(rk_image_decode_memory(file, n, "a.png", NULL, &img, &err));
	RK_CHECK_INT(img.width, w);
	RK_CHECK_INT(img.height, h);
	size_t bad = 0;
	for (uint32_t y = 0; y < h; y++) bad += memcmp(img.pixels + (size_t)y * w * 4, px + y * stride, (size_t)w * 4) != 0;
	RK_CHECK_INT(bad, 0);
	rk_image_free(&img);
	free(file);
	/* Same pixels, same bytes. */
	char path2[300];
	snprintf(path2, sizeof(path2), "%s/b.png", dir);
	RK_REQUIRE(rk_png_write(path2, px, w, h, stride, &err));
	size_t n2 = 0;
	unsigned char *f1 = read_all(path, &n), *f2 = read_all(path2, &n2);
	RK_CHECK(f1 && f2 && n == n2 && memcmp(f1, f2, n) == 0);
	free(f1);
	free(f2);
	/* Bad arguments and an unwritable path. */
	RK_CHECK(!rk_png_write(NULL, px, w, h, 0, &err) && err.code == RK_ERROR_INVALID_ARGUMENT);
	RK_CHECK(!rk_png_write(path, NULL, w, h, 0, &err) && err.code == RK_ERROR_INVALID_ARGUMENT);
	RK_CHECK(!rk_png_write(path, px, 0, h, 0, &err) && err.code == RK_ERROR_INVALID_ARGUMENT);
	RK_CHECK(!rk_png_write(path, px, w, h, w * 4 - 1, &err) && err.code == RK_ERROR_INVALID_ARGUMENT);
	char bad_path[300];
	snprintf(bad_path, sizeof(bad_path), "%s/missing/c.png", dir);
	RK_CHECK(!rk_png_write(bad_path, px, w, h, stride, &err) && err.code == RK_ERROR_OUTPUT);
	unlink(path);
	unlink(path2);
	rmdir(dir);
	free(px);
}

/* ---- bad arguments -------------------------------------------------------------- */

RK_TEST(test_bad_arguments)
{
	rk_error err;
	uint32_t w = 1, h = 1;
	RK_CHECK_INT(rk_render_size(NULL, &w, &h, &err), 512 * 512 * 4);
	RK_CHECK(w == 512 && h == 512);
	rk_render_opts o = { 0 };
	o.width = 0;
	o.height = 10;
	RK_CHECK_INT(rk_render_size(&o, &w, &h, &err), 0);
	RK_CHECK(err.code == RK_ERROR_INVALID_ARGUMENT && w == 0 && h == 0);
	o.width = 10;
	o.height = 0;
	RK_CHECK_INT(rk_render_size(&o, NULL, NULL, &err), 0);
	o.width = RK_RENDER_MAX_SIZE + 1;
	o.height = 10;
	RK_CHECK_INT(rk_render_size(&o, NULL, NULL, &err), 0);
	RK_CHECK(err.code == RK_ERROR_INVALID_ARGUMENT);
	o.width = RK_RENDER_MAX_SIZE;
	RK_CHECK_INT(rk_render_size(&o, NULL, NULL, &err), (size_t)RK_RENDER_MAX_SIZE * 10 * 4);

	tquad q = quad_xy(-0.5f, -0.5f, 0.5f, 0.5f, 0.0f, 1, 1, 1);
	rk_scene *s = load_quads(&q, 1, NULL, 0, NULL, &err);
	RK_REQUIRE(s);
	rk_scene *other = rk_demo_scene(RK_DEMO_MIXAMO_SOURCE, NULL, &err);
	RK_REQUIRE(other);
	unsigned char *buf = (unsigned char *)malloc(64 * 64 * 4);
	rk_render_opts good = { 0 };
	good.width = good.height = 64;
	RK_CHECK(rk_render(s, NULL, 0.0, &good, buf, 0, &err));
	RK_CHECK(err.code == RK_OK);

#define EXPECT_FAIL(expr) do { err.code = RK_OK; RK_CHECK(!(expr)); RK_CHECK(err.code == RK_ERROR_INVALID_ARGUMENT); \
	RK_CHECK(err.message[0] != '\0'); } while (0)
	EXPECT_FAIL(rk_render(NULL, NULL, 0.0, &good, buf, 0, &err));
	EXPECT_FAIL(rk_render(s, NULL, 0.0, &good, NULL, 0, &err));
	EXPECT_FAIL(rk_render(s, NULL, 0.0, &good, buf, 64 * 4 - 1, &err));
	EXPECT_FAIL(rk_render(s, NULL, NAN, &good, buf, 0, &err));
	EXPECT_FAIL(rk_render(s, NULL, INFINITY, &good, buf, 0, &err));
	/* a clip of another scene */
	EXPECT_FAIL(rk_render(s, &other->clips.data[0], 0.0, &good, buf, 0, &err));
	o = good;
	o.width = 0;
	EXPECT_FAIL(rk_render(s, NULL, 0.0, &o, buf, 0, &err));
	o = good;
	o.height = 20000;
	EXPECT_FAIL(rk_render(s, NULL, 0.0, &o, buf, 0, &err));
	o = good;
	o.camera.fov_deg = 171;
	EXPECT_FAIL(rk_render(s, NULL, 0.0, &o, buf, 0, &err));
	o = good;
	o.camera.fov_deg = -1;
	EXPECT_FAIL(rk_render(s, NULL, 0.0, &o, buf, 0, &err));
	o = good;
	o.camera.margin = 0.95;
	EXPECT_FAIL(rk_render(s, NULL, 0.0, &o, buf, 0, &err));
	o = good;
	o.camera.yaw_deg = NAN;
	EXPECT_FAIL(rk_render(s, NULL, 0.0, &o, buf, 0, &err));
	o = good;
	o.camera.look_at = true;
	o.camera.eye = o.camera.target = (rk_vec3){ 1, 2, 3 };
	EXPECT_FAIL(rk_render(s, NULL, 0.0, &o, buf, 0, &err));
	o = good;
	o.camera.has_bounds = true;
	o.camera.bounds_min = (rk_vec3){ 1, 0, 0 };
	EXPECT_FAIL(rk_render(s, NULL, 0.0, &o, buf, 0, &err));
	o = good;
	o.camera.near = -1;
	EXPECT_FAIL(rk_render(s, NULL, 0.0, &o, buf, 0, &err));
	o = good;
	o.camera.ortho_height = -2;
	EXPECT_FAIL(rk_render(s, NULL, 0.0, &o, buf, 0, &err));
	o = good;
	o.supersample = 5;
	EXPECT_FAIL(rk_render(s, NULL, 0.0, &o, buf, 0, &err));
	o = good;
	o.line_width = 65;
	EXPECT_FAIL(rk_render(s, NULL, 0.0, &o, buf, 0, &err));
	o = good;
	o.ambient = -0.1;
	EXPECT_FAIL(rk_render(s, NULL, 0.0, &o, buf, 0, &err));
	o = good;
	o.shading = (rk_render_shading)7;
	EXPECT_FAIL(rk_render(s, NULL, 0.0, &o, buf, 0, &err));
	o = good;
	o.light_direction.x = NAN;
	EXPECT_FAIL(rk_render(s, NULL, 0.0, &o, buf, 0, &err));
	rk_vec3 mn, mx;
	EXPECT_FAIL(rk_render_bounds(s, NULL, 0.0, NULL, NULL, &mx, &err));
	EXPECT_FAIL(rk_render_bounds(NULL, NULL, 0.0, NULL, &mn, &mx, &err));
	EXPECT_FAIL(rk_render_bounds(s, NULL, NAN, NULL, &mn, &mx, &err));
#undef EXPECT_FAIL
	/* err may be NULL */
	RK_CHECK(!rk_render(NULL, NULL, 0.0, NULL, buf, 0, NULL));
	/* Memory limits too small for the work: LIMIT, nothing leaks (ASan);
	 * larger ones succeed. */
	o = good;
	o.memory_limit = 4096;
	RK_CHECK(!rk_render(other, NULL, 0.0, &o, buf, 0, &err));
	RK_CHECK(err.code == RK_ERROR_LIMIT);
	o.textures = true;
	size_t failed = 0, passed = 0;
	for (size_t limit = 16384; limit < ((size_t)64 << 20); limit = limit * 3 / 2) {
		o.memory_limit = limit;
		if (rk_render(other, NULL, 0.0, &o, buf, 0, &err)) {
			passed++;
		} else {
			failed++;
			RK_CHECK(err.code == RK_ERROR_LIMIT);
		}
	}
	RK_CHECK(failed > 3 && passed > 3);
	/* bounds of the quad */
	RK_REQUIRE(rk_render_bounds(s, NULL, 0.0, NULL, &mn, &mx, &err));
	RK_CHECK_NEAR(mn.x, -0.5, 1e-6);
	RK_CHECK_NEAR(mx.y, 0.5, 1e-6);
	RK_CHECK_NEAR(mn.z, 0.0, 1e-6);
	free(buf);
	rk_scene_free(other);
	rk_scene_free(s);
}

/* A counting allocator: every temporary goes through it (textures too) and
 * comes back with the size it was allocated with. */
typedef struct count_alloc { size_t allocs, frees, live, bad_sizes; } count_alloc;

static void *count_alloc_fn(void *user, size_t size)
{
	count_alloc *c = (count_alloc *)user;
	size_t *p = (size_t *)malloc(size + 16);
	if (!p) return NULL;
	p[0] = size;
	c->allocs++;
	c->live += size;
	return (unsigned char *)p + 16;
}

static void count_free_fn(void *user, void *ptr, size_t size)
{
	count_alloc *c = (count_alloc *)user;
	size_t *p = (size_t *)((unsigned char *)ptr - 16);
	if (p[0] != size) c->bad_sizes++;
	c->frees++;
	c->live -= p[0];
	free(p);
}

RK_TEST(test_allocator)
{
	rk_error err;
	rk_scene *s = rk_demo_scene(RK_DEMO_MIXAMO_SOURCE, NULL, &err);
	RK_REQUIRE(s);
	count_alloc c = { 0, 0, 0, 0 };
	rk_render_opts o = { 0 };
	o.width = o.height = 64;
	o.textures = true;
	o.allocator = (rk_allocator){ count_alloc_fn, count_free_fn, &c };
	timg img;
	RK_REQUIRE(render(s, rk_scene_find_clip(s, "Walk"), 0.5, o, &img, &err));
	RK_CHECK(c.allocs > 5);
	RK_CHECK_INT(c.frees, c.allocs);
	RK_CHECK_INT(c.live, 0);
	RK_CHECK_INT(c.bad_sizes, 0);
	rk_vec3 mn, mx;
	RK_REQUIRE(rk_render_bounds(s, NULL, 0.0, &o, &mn, &mx, &err));
	RK_CHECK_INT(c.frees, c.allocs);
	RK_CHECK_INT(c.live, 0);
	RK_CHECK(mx.y > 1.7 && mn.y < 0.05); /* the sample stands on y = 0, about 1.79 m tall */
	free(img.px);
	rk_scene_free(s);
}

/* Malformed mesh data in a (hand-edited) scene: faces with a corner range
 * outside the mesh, fewer than 3 corners or a bad position index are
 * skipped and counted; a NaN position drops its triangle; the valid faces
 * (the quad) still draw exactly as before. */
RK_TEST(test_malformed_mesh)
{
	rk_error err;
	float lo = 16.5f / 32.0f - 1.0f, hi = 48.5f / 32.0f - 1.0f;
	tquad q = quad_xy(lo, -hi, hi, -lo, 0.0f, 1, 1, 1);
	rk_scene *s = load_quads(&q, 1, NULL, 0, NULL, &err);
	RK_REQUIRE(s);
	rk_mesh *m = s->nodes.data[1].mesh;
	RK_REQUIRE(m && m->vertex_count == 4);
	rk_vec3 pos[5];
	for (size_t v = 0; v < 4; v++) pos[v] = rk_mesh_position(m, v);
	pos[4] = (rk_vec3){ NAN, 0, 0 };
	const uint32_t vi[15] = { 0, 1, 2, 0, 2, 3, 0, 1, 9, 0, 1, 0, 1, 4, 2 };
	const rk_face faces[6] = { { 0, 3 }, { 3, 3 }, { 6, 3 }, { 9, 2 }, { 12, 3 }, { 13, 5 } };
	m->positions_f64 = pos;
	m->positions_f32 = NULL;
	m->vertex_count = 5;
	m->vertex_indices = vi;
	m->index_count = 15;
	m->faces = faces;
	m->face_count = 6;
	m->normals.exists = false;
	m->uv_sets.count = 0;
	m->face_material = NULL;
	rk_render_opts o = front_camera(64, 64, 5.0, 0.1);
	o.camera.orthographic = true;
	o.camera.ortho_height = 2.0;
	o.shading = RK_SHADE_UNLIT;
	rk_render_stats st;
	o.stats = &st;
	timg img;
	RK_REQUIRE(render(s, NULL, 0.0, o, &img, &err));
	RK_CHECK_INT(st.skipped_faces, 3);  /* bad index, 2 corners, range past the end */
	RK_CHECK_INT(st.triangles, 3);      /* the quad's two and the NaN one */
	RK_CHECK_INT(st.fragments, 32 * 32);
	size_t covered = 0;
	for (uint32_t i = 0; i < 64u * 64u; i++) covered += img.px[i * 4] == 255;
	RK_CHECK_INT(covered, 32 * 32);
	free(img.px);
	rk_scene_free(s);
}

/* Every shared asset, when present: renders with textures, wireframe and
 * (every other file) supersampling at its first clip; those with meshes
 * cover pixels and stay inside the frame; again with the skeleton. Xbot (two skinned meshes, 49k
 * triangles) in more detail. */
RK_TEST(test_shared_assets)
{
	const char *dir = rk_test_shared_dir();
	if (!dir) RK_SKIP("shared assets not found");
	static const char *const files[] = { "Flamingo.glb", "Horse.glb", "Soldier.glb", "Xbot.glb", "readyplayer.me.glb",
		"ybot.fbx", "ybot@kick.fbx" };
	for (size_t f = 0; f < sizeof(files) / sizeof(files[0]); f++) {
		char path[4096];
		snprintf(path, sizeof(path), "%s/assets/%s", dir, files[f]);
		rk_error err;
		rk_scene *s = rk_load_file(path, NULL, &err);
		RK_REQUIRE(s);
		rk_render_opts o = { 0 };
		o.width = 96;
		o.height = 96;
		o.textures = o.wireframe = true;
		o.supersample = f % 2 ? 2 : 0;
		rk_render_stats st;
		o.stats = &st;
		timg img;
		const rk_anim_clip *clip = s->clips.count ? &s->clips.data[0] : NULL;
		bool ok = render(s, clip, clip ? clip->time_begin + 0.3 : 0.0, o, &img, &err);
		RK_CHECK(ok);
		if (!ok) {
			free(img.px);
			rk_scene_free(s);
			continue;
		}
		size_t lit = 0, border = 0;
		for (uint32_t y = 0; y < 96; y++)
			for (uint32_t x = 0; x < 96; x++) {
				const unsigned char *p = px_at(&img, x, y);
				bool bg = p[0] == 40 && p[1] == 44 && p[2] == 52;
				lit += !bg;
				if (!bg && (x < 2 || y < 2 || x > 93 || y > 93)) border++;
			}
		if (st.triangles) {
			if (border) fprintf(stderr, "%s: %zu border pixels\n", files[f], border);
			RK_CHECK(lit > 96 * 96 / 50);
			RK_CHECK_INT(border, 0);
		}
		RK_CHECK_INT(st.textures_failed, 0);
		if (!strcmp(files[f], "Xbot.glb")) RK_CHECK(st.mesh_nodes == 2 && st.triangles > 40000);
		free(img.px);
		/* the skeleton overlay (joint dots may reach past the margin) */
		o.skeleton = true;
		RK_CHECK(render(s, clip, clip ? clip->time_begin + 0.3 : 0.0, o, &img, &err));
		free(img.px);
		rk_scene_free(s);
	}
}

/* rk_render_camera_eval is the camera rk_render reports using (the same
 * bits), for auto framing from several directions, orthographic, explicit
 * look_at and shared bounds; and it rejects what rk_render rejects. */
RK_TEST(test_camera_eval_matches_render)
{
	rk_error err;
	rk_scene *s = rk_demo_scene(RK_DEMO_MIXAMO_SOURCE, NULL, &err);
	RK_REQUIRE(s);
	const rk_anim_clip *walk = rk_scene_find_clip(s, "Walk");
	RK_REQUIRE(walk);
	for (int k = 0; k < 5; k++) {
		rk_render_opts o = { 0 };
		o.width = 96;
		o.height = 64;
		o.camera.yaw_deg = 70.0 * k;
		o.camera.pitch_deg = k == 2 ? 30.0 : 0.0;
		o.camera.orthographic = k == 3;
		if (k == 4) {
			o.camera.look_at = true;
			o.camera.eye = (rk_vec3){ 2, 1.5, 3 };
			o.camera.target = (rk_vec3){ 0, 1, 0 };
		}
		if (k == 1) {
			o.camera.has_bounds = true;
			o.camera.bounds_min = (rk_vec3){ -1, 0, -0.5 };
			o.camera.bounds_max = (rk_vec3){ 1, 1.8, 1.5 };
		}
		rk_render_stats st, cam;
		o.stats = &st;
		unsigned char *px = (unsigned char *)malloc((size_t)o.width * o.height * 4);
		RK_REQUIRE(px);
		RK_REQUIRE(rk_render(s, walk, 0.3, &o, px, 0, &err));
		free(px);
		RK_REQUIRE(rk_render_camera_eval(s, walk, 0.3, &o, &cam, &err));
		RK_CHECK(memcmp(&cam.eye, &st.eye, sizeof(rk_vec3)) == 0);
		RK_CHECK(memcmp(&cam.target, &st.target, sizeof(rk_vec3)) == 0);
		RK_CHECK(memcmp(&cam.forward, &st.forward, sizeof(rk_vec3)) == 0);
		RK_CHECK(memcmp(&cam.right, &st.right, sizeof(rk_vec3)) == 0);
		RK_CHECK(memcmp(&cam.up, &st.up, sizeof(rk_vec3)) == 0);
		RK_CHECK(memcmp(&cam.bounds_min, &st.bounds_min, sizeof(rk_vec3)) == 0);
		RK_CHECK(memcmp(&cam.bounds_max, &st.bounds_max, sizeof(rk_vec3)) == 0);
		RK_CHECK(cam.orthographic == st.orthographic);
		RK_CHECK(cam.fov_deg == st.fov_deg);
		RK_CHECK(cam.ortho_height == st.ortho_height);
		RK_CHECK(cam.near == st.near);
		RK_CHECK_INT(cam.triangles, 0);   /* nothing drawn, nothing counted */
	}
	rk_render_stats cam;
	rk_render_opts bad = { 0 };
	bad.camera.fov_deg = 200;
	RK_CHECK(!rk_render_camera_eval(s, walk, 0.0, &bad, &cam, &err));
	RK_CHECK_INT(err.code, RK_ERROR_INVALID_ARGUMENT);
	bad.camera.fov_deg = 0;
	bad.width = 10;
	RK_CHECK(!rk_render_camera_eval(s, walk, 0.0, &bad, &cam, &err));
	RK_CHECK(!rk_render_camera_eval(s, walk, NAN, NULL, &cam, &err));
	RK_CHECK(!rk_render_camera_eval(NULL, NULL, 0.0, NULL, &cam, &err));
	RK_CHECK(!rk_render_camera_eval(s, NULL, 0.0, NULL, NULL, &err));
	rk_scene_free(s);
}

RK_TEST_MAIN(
	RK_TEST_ENTRY(test_camera_eval_matches_render),
	RK_TEST_ENTRY(test_coverage_top_left_rule),
	RK_TEST_ENTRY(test_coverage_perspective),
	RK_TEST_ENTRY(test_supersample_edge),
	RK_TEST_ENTRY(test_depth_test),
	RK_TEST_ENTRY(test_lambert_cosine),
	RK_TEST_ENTRY(test_texture),
	RK_TEST_ENTRY(test_vertex_colors),
	RK_TEST_ENTRY(test_cull_back_faces),
	RK_TEST_ENTRY(test_near_plane_clipping),
	RK_TEST_ENTRY(test_sample_silhouette),
	RK_TEST_ENTRY(test_sample_walk_and_determinism),
	RK_TEST_ENTRY(test_skeleton_overlay),
	RK_TEST_ENTRY(test_auto_framing_axes),
	RK_TEST_ENTRY(test_write_png),
	RK_TEST_ENTRY(test_bad_arguments),
	RK_TEST_ENTRY(test_allocator),
	RK_TEST_ENTRY(test_malformed_mesh),
	RK_TEST_ENTRY(test_shared_assets))
