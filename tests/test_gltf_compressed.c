/*
 * tests/test_gltf_compressed.c - compressed glTF input (docs/gltf.md,
 * "Compressed input"): EXT_meshopt_compression, KHR_draco_mesh_compression,
 * KHR_mesh_quantization, EXT_texture_webp, KHR_texture_basisu, and required
 * extensions that only touch lights / materials / textures.
 *
 * Expectations, none of them rigkit's own output:
 *   - tests/fixtures/rig_*.glb are tests/fixtures/rig.glb compressed by the
 *     tools users run (gltfpack, glTF-Transform; tests/fixtures/make_compressed.sh):
 *     each must pose like rig.glb (world positions of every mesh vertex at
 *     five times of the clip, compared as point sets) within the tool's
 *     quantization error;
 *   - hand-built GLBs encoded here with meshoptimizer's encoders and
 *     filters: the decoded values are the arrays the test encoded (exactly
 *     for lossless streams, within the filter's bit depth otherwise);
 *   - hand-built KHR_mesh_quantization data: the glTF dequantization formulas;
 *   - corrupt streams (every truncation of a meshopt and a Draco payload,
 *     lying counts, decompression bombs, bad versions): an error naming the
 *     bufferView / primitive JSON pointer, never a crash (run under ASan).
 * With RIGKIT_GLTF_SEED_DIR set, the hand-built and corrupt GLBs are written
 * there as fuzz seeds (fuzz/README.md).
 */
#include "rk_test.h"
#include "rk_glb.h"

#include "rigkit/anim.h"
#include "rigkit/export.h"
#include "rigkit/image.h"
#include "rigkit/load.h"
#include "rigkit/scene.h"

#include <meshoptimizer.h>
#include <stdint.h>

#ifndef RK_SOURCE_DIR
#define RK_SOURCE_DIR "."
#endif
#define FIXTURE_DIR RK_SOURCE_DIR "/tests/fixtures/"

/* ---- bytes ------------------------------------------------------------------ */

typedef struct bytes {
	unsigned char *data;
	size_t size, cap;
} bytes;

static void bytes_put(bytes *b, const void *p, size_t n)
{
	if (b->size + n + 4 > b->cap) {
		b->cap = (b->size + n + 4) * 2;
		b->data = (unsigned char *)realloc(b->data, b->cap);
	}
	memcpy(b->data + b->size, p, n);
	b->size += n;
	while (b->size % 4) b->data[b->size++] = 0;
}

static unsigned char *read_file(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	if (!f) return NULL;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	unsigned char *d = (unsigned char *)malloc((size_t)n + 1);
	if (fread(d, 1, (size_t)n, f) != (size_t)n) {
		free(d);
		d = NULL;
	}
	fclose(f);
	*size = (size_t)n;
	return d;
}

static void maybe_write_seed(const char *name, const void *data, size_t size)
{
	const char *dir = getenv("RIGKIT_GLTF_SEED_DIR");
	if (!dir || !dir[0]) return;
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE *f = fopen(path, "wb");
	if (!f) return;
	fwrite(data, 1, size, f);
	fclose(f);
}


/* Splits a GLB into its JSON text (malloc'd, NUL-terminated) and BIN chunk. */
static char *glb_json(const unsigned char *glb, size_t size, const unsigned char **bin, size_t *bin_size)
{
	if (size < 20) return NULL;
	size_t jl = get32(glb + 12);
	char *json = (char *)malloc(jl + 1);
	memcpy(json, glb + 20, jl);
	json[jl] = '\0';
	*bin = NULL;
	*bin_size = 0;
	if (20 + jl + 8 <= size) {
		*bin_size = get32(glb + 20 + jl);
		*bin = glb + 28 + jl;
	}
	return json;
}

/* json with the first occurrence of `from` after `after` (NULL: start)
 * replaced by `to`. malloc'd; NULL when absent. */
static char *replace_after(const char *json, const char *after, const char *from, const char *to)
{
	const char *start = after ? strstr(json, after) : json;
	if (!start) return NULL;
	const char *at = strstr(start, from);
	if (!at) return NULL;
	size_t head = (size_t)(at - json), fl = strlen(from), tl = strlen(to), n = strlen(json);
	char *out = (char *)malloc(n - fl + tl + 1);
	memcpy(out, json, head);
	memcpy(out + head, to, tl);
	memcpy(out + head + tl, at + fl, n - head - fl + 1);
	return out;
}

static bool has_warning(const rk_scene *s, const char *needle)
{
	for (size_t i = 0; i < s->warnings.count; i++)
		if (strstr(s->warnings.data[i].message, needle)) return true;
	return false;
}

static void print_error(const char *what, const rk_error *err)
{
	char text[1024];
	rk_error_format(text, sizeof(text), err);
	fprintf(stderr, "%s: %s\n", what, text);
}

/* ---- posed point sets ------------------------------------------------------------ */

typedef struct points {
	rk_vec3 *p;
	size_t n;
} points;

/* World positions of every mesh vertex of s at time t of its first clip. */
static points posed_points(const rk_scene *s, double t)
{
	points out = { NULL, 0 };
	size_t total = 0;
	for (size_t i = 0; i < s->nodes.count; i++)
		if (s->nodes.data[i].mesh) total += s->nodes.data[i].mesh->vertex_count;
	out.p = (rk_vec3 *)calloc(total + 1, sizeof(rk_vec3));
	size_t mem = rk_pose_memory_size(s);
	void *buf = malloc(mem);
	rk_pose pose;
	rk_pose_init(&pose, s, buf, mem);
	rk_pose_eval_job job = { .scene = s, .clip = s->clips.count ? &s->clips.data[0] : NULL, .time = t, .pose = &pose };
	if (!rk_pose_eval_run(&job)) {
		free(buf);
		return out;
	}
	for (size_t i = 0; i < s->nodes.count; i++) {
		const rk_node *node = &s->nodes.data[i];
		if (!node->mesh || !node->mesh->vertex_count) continue;
		if (rk_mesh_world_positions_eval(s, node, &pose, out.p + out.n)) out.n += node->mesh->vertex_count;
	}
	free(buf);
	return out;
}

static double dist3(rk_vec3 a, rk_vec3 b)
{
	double dx = a.x - b.x, dy = a.y - b.y, dz = a.z - b.z;
	return sqrt(dx * dx + dy * dy + dz * dz);
}

/* Symmetric Hausdorff distance (brute force: the rig has 24 vertices). */
static double hausdorff(points a, points b)
{
	double worst = 0.0;
	for (int pass = 0; pass < 2; pass++) {
		points x = pass ? b : a, y = pass ? a : b;
		for (size_t i = 0; i < x.n; i++) {
			double best = INFINITY;
			for (size_t j = 0; j < y.n; j++) {
				double d = dist3(x.p[i], y.p[j]);
				if (d < best) best = d;
			}
			if (best > worst) worst = best;
		}
	}
	return worst;
}

static double diagonal(points a)
{
	rk_vec3 lo = a.p[0], hi = a.p[0];
	for (size_t i = 1; i < a.n; i++) {
		lo.x = fmin(lo.x, a.p[i].x), lo.y = fmin(lo.y, a.p[i].y), lo.z = fmin(lo.z, a.p[i].z);
		hi.x = fmax(hi.x, a.p[i].x), hi.y = fmax(hi.y, a.p[i].y), hi.z = fmax(hi.z, a.p[i].z);
	}
	return dist3(lo, hi);
}

/* ---- the compressed fixtures against rig.glb ---------------------------------------- */

/* Tolerances, relative to the bind pose's bounding-box diagonal:
 * gltfpack quantizes positions to 14 bits (2^-14 of the largest extent per
 * axis, half a step of rounding) and animation rotations to 12 bits and
 * resamples clips at 30 Hz; both it and glTF-Transform meshopt store
 * skin weights in 8 bits (1/255 of a weight moves a vertex by up to 0.4% of
 * its distance between two bones): 2e-3. glTF-Transform draco keeps
 * weights as floats and quantizes positions to 14 bits: 2^-13. webp changes
 * no geometry: 1e-9 (float round-off only). */
static const struct {
	const char *file, *ext;
	double tol;
} rk_fixtures[] = {
	{ "rig_meshopt.glb", "EXT_meshopt_compression", 2e-3 },
	{ "rig_quant.glb", "KHR_mesh_quantization", 2e-3 },
	{ "rig_gt_meshopt.glb", "EXT_meshopt_compression", 2e-3 },
	{ "rig_draco.glb", "KHR_draco_mesh_compression", 1.0 / 8192.0 },
	{ "rig_webp.glb", "EXT_texture_webp", 1e-9 },
};

RK_TEST(fixtures_pose_like_the_original)
{
	rk_error err;
	rk_scene *ref = rk_load_file(FIXTURE_DIR "rig.glb", NULL, &err);
	if (!ref) print_error("rig.glb", &err);
	RK_REQUIRE(ref != NULL);
	RK_REQUIRE(ref->clips.count == 1);
	points bind = posed_points(ref, 0.0);
	RK_REQUIRE(bind.n == 24);
	double diag = diagonal(bind);
	free(bind.p);
	for (size_t f = 0; f < sizeof(rk_fixtures) / sizeof(rk_fixtures[0]); f++) {
		char path[1024];
		snprintf(path, sizeof(path), FIXTURE_DIR "%s", rk_fixtures[f].file);
		size_t size;
		unsigned char *data = read_file(path, &size);
		RK_REQUIRE(data != NULL);
		/* the tool did use the extension (the file requires it) */
		RK_CHECK(strstr((const char *)data + 20, rk_fixtures[f].ext) != NULL);
		rk_scene *s = rk_load_memory(data, size, NULL, &err);
		if (!s) print_error(rk_fixtures[f].file, &err);
		RK_CHECK(s != NULL);
		free(data);
		if (!s) continue;
		RK_CHECK_INT(s->clips.count, 1);
		RK_CHECK_INT(s->skins.count, 1);
		RK_CHECK_NEAR(s->clips.data[0].time_end - s->clips.data[0].time_begin, ref->clips.data[0].time_end - ref->clips.data[0].time_begin, 1e-6);
		double worst = 0.0;
		for (int k = 0; k <= 4; k++) {
			double t = ref->clips.data[0].time_begin + 0.25 * k * (ref->clips.data[0].time_end - ref->clips.data[0].time_begin);
			points a = posed_points(ref, t), b = posed_points(s, t);
			RK_CHECK(b.n > 0);
			if (b.n) worst = fmax(worst, hausdorff(a, b) / diag);
			free(a.p);
			free(b.p);
		}
		fprintf(stderr, "%s: posed distance to rig.glb %.3g of the diagonal (tolerance %.3g)\n", rk_fixtures[f].file, worst, rk_fixtures[f].tol);
		RK_CHECK(worst <= rk_fixtures[f].tol);
		rk_scene_free(s);
	}
	rk_scene_free(ref);
}

/* WebP textures: the bytes are kept (and decode to the PNG's size), written
 * back with EXT_texture_webp; a corrupt WebP fails to decode naming it. */
RK_TEST(webp_texture_kept_and_decoded)
{
	rk_error err;
	rk_scene *png = rk_load_file(FIXTURE_DIR "rig.glb", NULL, &err);
	rk_scene *s = rk_load_file(FIXTURE_DIR "rig_webp.glb", NULL, &err);
	RK_REQUIRE(png && s);
	RK_REQUIRE(s->textures.count == 1 && png->textures.count == 1);
	const rk_texture *t = &s->textures.data[0];
	RK_CHECK_STR(t->mime_type, "image/webp");
	RK_REQUIRE(t->content && t->content_size > 12);
	rk_image a, b;
	RK_REQUIRE(rk_image_decode_memory(png->textures.data[0].content, png->textures.data[0].content_size, "checker.png", NULL, &a, &err));
	RK_REQUIRE(rk_image_decode_memory(t->content, t->content_size, "checker.webp", NULL, &b, &err));
	RK_CHECK_INT(a.width, b.width);
	RK_CHECK_INT(a.height, b.height);
	rk_image_free(&a);
	rk_image_free(&b);
	/* truncated WebP payloads: an error naming the image */
	for (size_t n = 0; n < t->content_size; n += 7) {
		rk_image c;
		memset(&err, 0, sizeof(err));
		if (rk_image_decode_memory(t->content, n, "checker.webp", NULL, &c, &err)) {
			rk_image_free(&c);
			RK_CHECK(!"a truncated WebP decoded");
			break;
		}
		RK_CHECK(strstr(err.message, "checker.webp") != NULL);
	}
	/* written back as WebP */
	void *out = NULL;
	size_t out_size = 0;
	RK_REQUIRE(rk_gltf_write_memory(s, NULL, &out, &out_size, &err));
	RK_CHECK(strstr((const char *)out + 20, "\"extensionsRequired\":[\"EXT_texture_webp\"]") != NULL);
	rk_scene *back = rk_load_memory(out, out_size, NULL, &err);
	RK_REQUIRE(back != NULL);
	RK_REQUIRE(back->textures.count == 1);
	RK_CHECK_INT(back->textures.data[0].content_size, t->content_size);
	RK_CHECK(memcmp(back->textures.data[0].content, t->content, t->content_size) == 0);
	rk_scene_free(back);
	rk_gltf_memory_free(out);
	rk_scene_free(s);
	rk_scene_free(png);
}

/* ---- hand-built meshopt streams ------------------------------------------------------- */

#define GRID 9
#define GV (GRID * GRID)
#define GT (2 * (GRID - 1) * (GRID - 1))
#define KEYS 5

typedef struct mo_case {
	float pos[GV * 3];
	float nrm[GV * 4];           /* unit xyz + 0 */
	unsigned short idx[GT * 3];
	float times[KEYS], rot[KEYS * 4], tra[KEYS * 3];
	/* encoded */
	bytes bin;
	size_t off[5], len[5];       /* pos, nrm, idx, times, rot+tra streams at these offsets */
	size_t off_tra, len_tra;
} mo_case;

static void mo_build(mo_case *c)
{
	memset(c, 0, sizeof(*c));
	for (int y = 0; y < GRID; y++)
		for (int x = 0; x < GRID; x++) {
			int v = y * GRID + x;
			double h = 0.1 * sin(0.7 * x) * cos(0.5 * y);
			c->pos[3 * v] = (float)(0.125 * x);
			c->pos[3 * v + 1] = (float)h;
			c->pos[3 * v + 2] = (float)(0.125 * y);
			double nx = -0.07 * cos(0.7 * x) * cos(0.5 * y), nz = 0.05 * sin(0.7 * x) * sin(0.5 * y), ny = 1.0;
			double l = sqrt(nx * nx + ny * ny + nz * nz);
			c->nrm[4 * v] = (float)(nx / l);
			c->nrm[4 * v + 1] = (float)(ny / l);
			c->nrm[4 * v + 2] = (float)(nz / l);
		}
	size_t t = 0;
	for (int y = 0; y + 1 < GRID; y++)
		for (int x = 0; x + 1 < GRID; x++) {
			unsigned short a = (unsigned short)(y * GRID + x), b = (unsigned short)(a + 1), d = (unsigned short)(a + GRID), e = (unsigned short)(d + 1);
			unsigned short tri[6] = { a, d, b, b, d, e };
			memcpy(c->idx + 3 * t, tri, sizeof(tri));
			t += 2;
		}
	for (int k = 0; k < KEYS; k++) {
		double ang = 0.4 * k, ax[3] = { 0.6, 0.0, 0.8 };
		c->times[k] = (float)(0.25 * k);
		c->rot[4 * k] = (float)(ax[0] * sin(ang / 2));
		c->rot[4 * k + 1] = (float)(ax[1] * sin(ang / 2));
		c->rot[4 * k + 2] = (float)(ax[2] * sin(ang / 2));
		c->rot[4 * k + 3] = (float)cos(ang / 2);
		c->tra[3 * k] = (float)(0.5 * k);
		c->tra[3 * k + 1] = (float)(1.0 + 0.01 * k * k);
		c->tra[3 * k + 2] = (float)(-3.0e-3 * k);
	}
	unsigned char tmp[8192];
	size_t n;
	/* 0: positions, lossless */
	n = meshopt_encodeVertexBuffer(tmp, sizeof(tmp), c->pos, GV, 12);
	c->off[0] = c->bin.size, c->len[0] = n;
	bytes_put(&c->bin, tmp, n);
	/* 1: normals, OCTAHEDRAL 8-bit (4-byte elements) */
	signed char oct[GV * 4];
	meshopt_encodeFilterOct(oct, GV, 4, 8, c->nrm);
	n = meshopt_encodeVertexBuffer(tmp, sizeof(tmp), oct, GV, 4);
	c->off[1] = c->bin.size, c->len[1] = n;
	bytes_put(&c->bin, tmp, n);
	/* 2: indices, TRIANGLES */
	n = meshopt_encodeIndexBuffer(tmp, sizeof(tmp), (const unsigned int *)NULL, 0);
	{
		unsigned int idx32[GT * 3];
		for (size_t i = 0; i < GT * 3; i++) idx32[i] = c->idx[i];
		n = meshopt_encodeIndexBuffer(tmp, sizeof(tmp), idx32, GT * 3);
	}
	c->off[2] = c->bin.size, c->len[2] = n;
	bytes_put(&c->bin, tmp, n);
	/* 3: key times, INDICES-free lossless attributes */
	n = meshopt_encodeVertexBuffer(tmp, sizeof(tmp), c->times, KEYS, 4);
	c->off[3] = c->bin.size, c->len[3] = n;
	bytes_put(&c->bin, tmp, n);
	/* 4: rotations, QUATERNION 12-bit */
	short q[KEYS * 4];
	meshopt_encodeFilterQuat(q, KEYS, 8, 12, c->rot);
	n = meshopt_encodeVertexBuffer(tmp, sizeof(tmp), q, KEYS, 8);
	c->off[4] = c->bin.size, c->len[4] = n;
	bytes_put(&c->bin, tmp, n);
	/* translations, EXPONENTIAL 15-bit mantissa */
	unsigned int e[KEYS * 3];
	meshopt_encodeFilterExp(e, KEYS, 12, 15, c->tra);
	n = meshopt_encodeVertexBuffer(tmp, sizeof(tmp), e, KEYS, 12);
	c->off_tra = c->bin.size, c->len_tra = n;
	bytes_put(&c->bin, tmp, n);
}

/* The JSON: buffer 0 = BIN (compressed), buffer 1 = fallback placeholder.
 * `pos_len` / `pos_count` override the position stream's byteLength / count
 * (SIZE_MAX / 0 = the true values). */
static char *mo_json(const mo_case *c, size_t pos_len, size_t pos_count, const char *version_name)
{
	size_t pl = pos_len != SIZE_MAX ? pos_len : c->len[0], pc = pos_count ? pos_count : GV;
	size_t fb = 0, views[6];
	size_t sizes[6] = { pc * 12, GV * 4, GT * 3 * 2, KEYS * 4, KEYS * 8, KEYS * 12 };
	for (int i = 0; i < 6; i++) {
		views[i] = fb;
		fb += sizes[i];
	}
	const char *name = version_name ? version_name : "EXT_meshopt_compression";
	char *json = (char *)malloc(16384);
	snprintf(json, 16384,
		"{\"asset\":{\"version\":\"2.0\"},\"extensionsUsed\":[\"%s\",\"KHR_mesh_quantization\"],"
		"\"extensionsRequired\":[\"%s\",\"KHR_mesh_quantization\"],"
		"\"buffers\":[{\"byteLength\":%zu},{\"byteLength\":%zu,\"extensions\":{\"%s\":{\"fallback\":true}}}],"
		"\"bufferViews\":["
		"{\"buffer\":1,\"byteOffset\":%zu,\"byteLength\":%zu,\"byteStride\":12,\"extensions\":{\"%s\":{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":%zu,\"byteStride\":12,\"count\":%zu,\"mode\":\"ATTRIBUTES\"}}},"
		"{\"buffer\":1,\"byteOffset\":%zu,\"byteLength\":%zu,\"byteStride\":4,\"extensions\":{\"%s\":{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":%zu,\"byteStride\":4,\"count\":%d,\"mode\":\"ATTRIBUTES\",\"filter\":\"OCTAHEDRAL\"}}},"
		"{\"buffer\":1,\"byteOffset\":%zu,\"byteLength\":%zu,\"extensions\":{\"%s\":{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":%zu,\"byteStride\":2,\"count\":%d,\"mode\":\"TRIANGLES\"}}},"
		"{\"buffer\":1,\"byteOffset\":%zu,\"byteLength\":%zu,\"extensions\":{\"%s\":{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":%zu,\"byteStride\":4,\"count\":%d,\"mode\":\"ATTRIBUTES\"}}},"
		"{\"buffer\":1,\"byteOffset\":%zu,\"byteLength\":%zu,\"extensions\":{\"%s\":{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":%zu,\"byteStride\":8,\"count\":%d,\"mode\":\"ATTRIBUTES\",\"filter\":\"QUATERNION\"}}},"
		"{\"buffer\":1,\"byteOffset\":%zu,\"byteLength\":%zu,\"extensions\":{\"%s\":{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":%zu,\"byteStride\":12,\"count\":%d,\"mode\":\"ATTRIBUTES\",\"filter\":\"EXPONENTIAL\"}}}],"
		"\"accessors\":["
		"{\"bufferView\":0,\"componentType\":5126,\"count\":%zu,\"type\":\"VEC3\"},"
		"{\"bufferView\":1,\"componentType\":5120,\"normalized\":true,\"count\":%d,\"type\":\"VEC3\"},"
		"{\"bufferView\":2,\"componentType\":5123,\"count\":%d,\"type\":\"SCALAR\"},"
		"{\"bufferView\":3,\"componentType\":5126,\"count\":%d,\"type\":\"SCALAR\",\"min\":[0],\"max\":[1]},"
		"{\"bufferView\":4,\"componentType\":5122,\"normalized\":true,\"count\":%d,\"type\":\"VEC4\"},"
		"{\"bufferView\":5,\"componentType\":5126,\"count\":%d,\"type\":\"VEC3\"}],"
		"\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0,\"NORMAL\":1},\"indices\":2}]}],"
		"\"nodes\":[{\"name\":\"grid\",\"mesh\":0}],\"scenes\":[{\"nodes\":[0]}],"
		"\"animations\":[{\"name\":\"move\",\"samplers\":[{\"input\":3,\"output\":4},{\"input\":3,\"output\":5}],"
		"\"channels\":[{\"sampler\":0,\"target\":{\"node\":0,\"path\":\"rotation\"}},{\"sampler\":1,\"target\":{\"node\":0,\"path\":\"translation\"}}]}]}",
		name, name, c->bin.size, fb, name,
		views[0], sizes[0], name, c->off[0], pl, pc,
		views[1], sizes[1], name, c->off[1], c->len[1], GV,
		views[2], sizes[2], name, c->off[2], c->len[2], GT * 3,
		views[3], sizes[3], name, c->off[3], c->len[3], KEYS,
		views[4], sizes[4], name, c->off[4], c->len[4], KEYS,
		views[5], sizes[5], name, c->off_tra, c->len_tra, KEYS,
		pc, GV, GT * 3, KEYS, KEYS, KEYS);
	return json;
}

static const rk_anim_track *find_track(const rk_scene *s, rk_anim_target target)
{
	const rk_anim_layer *l = &s->clips.data[0].layers[0];
	for (size_t i = 0; i < l->track_count; i++)
		if (l->tracks[i].target == target) return &l->tracks[i];
	return NULL;
}

/* Rotates (a, b, c) to start at its smallest index: meshopt's triangle codec
 * may rotate a triangle's corners (keeping its winding). */
static void tri_canon(const uint32_t *t, uint32_t *o)
{
	int m = t[0] <= t[1] && t[0] <= t[2] ? 0 : t[1] <= t[2] ? 1 : 2;
	for (int k = 0; k < 3; k++) o[k] = t[(m + k) % 3];
}

RK_TEST(meshopt_streams_decode_to_the_encoded_arrays)
{
	static mo_case c;
	mo_build(&c);
	for (int variant = 0; variant < 2; variant++) {
		char *json = mo_json(&c, SIZE_MAX, 0, variant ? "MESHOPT_compression" : NULL);
		size_t size;
		unsigned char *glb = make_glb(json, c.bin.data, c.bin.size, &size);
		if (variant == 0) maybe_write_seed("meshopt_grid.glb", glb, size);
		rk_error err;
		rk_scene *s = rk_load_memory(glb, size, NULL, &err);
		if (!s) print_error("meshopt grid", &err);
		RK_REQUIRE(s != NULL);
		RK_REQUIRE(s->meshes.count == 1);
		const rk_mesh *m = &s->meshes.data[0];
		RK_REQUIRE(m->vertex_count == GV);
		RK_REQUIRE(m->face_count == GT);
		for (size_t v = 0; v < GV; v++) {
			/* lossless: exactly the encoded floats */
			RK_CHECK(rk_mesh_position(m, v).x == (double)c.pos[3 * v] && rk_mesh_position(m, v).y == (double)c.pos[3 * v + 1]
				&& rk_mesh_position(m, v).z == (double)c.pos[3 * v + 2]);
			/* 8-bit octahedral: a few 1/127 steps, then renormalised by meshopt */
			const rk_vec3 n = rk_attrib_vec3_value(&m->normals, v);
			RK_CHECK_NEAR(n.x, c.nrm[4 * v], 0.02);
			RK_CHECK_NEAR(n.y, c.nrm[4 * v + 1], 0.02);
			RK_CHECK_NEAR(n.z, c.nrm[4 * v + 2], 0.02);
		}
		/* the same triangles in the same order */
		size_t same = 0;
		for (size_t f = 0; f < GT; f++) {
			uint32_t a[3], b[3], want[3] = { c.idx[3 * f], c.idx[3 * f + 1], c.idx[3 * f + 2] };
			tri_canon(m->vertex_indices + m->faces[f].index_begin, a);
			tri_canon(want, b);
			same += a[0] == b[0] && a[1] == b[1] && a[2] == b[2];
		}
		RK_CHECK_INT(same, GT);
		/* animation: times lossless, 12-bit quaternions, 15-bit mantissas */
		RK_REQUIRE(s->clips.count == 1);
		const rk_anim_track *r = find_track(s, RK_TARGET_ROTATION_QUAT), *t = find_track(s, RK_TARGET_TRANSLATION);
		RK_REQUIRE(r && t);
		RK_REQUIRE(r->key_count == KEYS && t->key_count == KEYS);
		for (size_t k = 0; k < KEYS; k++) {
			RK_CHECK(r->times[k] == (double)c.times[k]);
			double dot = 0.0;
			for (int q = 0; q < 4; q++) dot += rk_track_value(r, 4 * k + (size_t)q) * c.rot[4 * k + (size_t)q];
			RK_CHECK(fabs(dot) > 1.0 - 1e-5);  /* angle below ~9e-3 rad */
			/* one exponent per element (meshopt_encodeFilterExp): the error
			 * is relative to the element's largest component */
			double big = fmax(fabs(c.tra[3 * k]), fmax(fabs(c.tra[3 * k + 1]), fabs(c.tra[3 * k + 2])));
			for (int q = 0; q < 3; q++)
				RK_CHECK_NEAR(rk_track_value(t, 3 * k + (size_t)q), c.tra[3 * k + (size_t)q], big * ldexp(1.0, -14) + 1e-12);
		}
		rk_scene_free(s);
		free(glb);
		free(json);
	}
	free(c.bin.data);
}

static void expect_failure(rk_test_state *rk_t_, const unsigned char *glb, size_t size, const char *what, const char *path_part,
	const char *message_part)
{
	rk_error err;
	memset(&err, 0, sizeof(err));
	rk_load_opts opts = { .memory_limit = (size_t)64 << 20 };
	rk_scene *s = rk_load_memory(glb, size, &opts, &err);
	if (s) {
		fprintf(stderr, "%s: loaded, expected an error\n", what);
		rk_scene_free(s);
		RK_CHECK(s == NULL);
		return;
	}
	RK_CHECK(err.code != RK_OK && err.message[0]);
	if (path_part && !strstr(err.path, path_part)) {
		print_error(what, &err);
		RK_CHECK(strstr(err.path, path_part) != NULL);
	}
	if (message_part && !strstr(err.message, message_part)) {
		print_error(what, &err);
		RK_CHECK(strstr(err.message, message_part) != NULL);
	}
}

RK_TEST(meshopt_corrupt_streams_fail_naming_the_bufferview)
{
	static mo_case c;
	mo_build(&c);
	char *json;
	size_t size;
	unsigned char *glb;
	/* every truncation of the position stream */
	for (size_t n = 0; n < c.len[0]; n++) {
		json = mo_json(&c, n, 0, NULL);
		glb = make_glb(json, c.bin.data, c.bin.size, &size);
		if (n == c.len[0] / 2) maybe_write_seed("meshopt_truncated.glb", glb, size);
		expect_failure(rk_t_, glb, size, "truncated meshopt", "/bufferViews/0/extensions/EXT_meshopt_compression", NULL);
		free(glb);
		free(json);
	}
	/* lying count: 1000 x the elements, same bytes */
	json = mo_json(&c, SIZE_MAX, GV * 1000, NULL);
	glb = make_glb(json, c.bin.data, c.bin.size, &size);
	maybe_write_seed("meshopt_lying_count.glb", glb, size);
	expect_failure(rk_t_, glb, size, "lying count", "/bufferViews/0/extensions/EXT_meshopt_compression", "cannot hold");
	free(glb);
	free(json);
	/* decompression bomb: 2^26 elements x 12 bytes from a few hundred bytes */
	json = mo_json(&c, SIZE_MAX, (size_t)1 << 26, NULL);
	glb = make_glb(json, c.bin.data, c.bin.size, &size);
	maybe_write_seed("meshopt_bomb.glb", glb, size);
	expect_failure(rk_t_, glb, size, "bomb", "/bufferViews/0/extensions/EXT_meshopt_compression/count", "cannot hold");
	free(glb);
	free(json);
	/* one element short: decodes, then the accessor does not fit */
	json = mo_json(&c, SIZE_MAX, GV - 1, NULL);
	glb = make_glb(json, c.bin.data, c.bin.size, &size);
	expect_failure(rk_t_, glb, size, "short count", NULL, NULL);
	free(glb);
	free(json);
	/* an unknown codec version (header 0xA1: meshoptimizer 0.18 reads 0) */
	{
		json = mo_json(&c, SIZE_MAX, 0, NULL);
		unsigned char saved = c.bin.data[c.off[0]];
		c.bin.data[c.off[0]] = 0xA1;
		glb = make_glb(json, c.bin.data, c.bin.size, &size);
		maybe_write_seed("meshopt_version.glb", glb, size);
		expect_failure(rk_t_, glb, size, "version", "/bufferViews/0/extensions/EXT_meshopt_compression", "0xA1");
		c.bin.data[c.off[0]] = saved;
		free(glb);
		free(json);
	}
	/* corrupt bytes (every byte of the index stream flipped in turn): an
	 * error or a scene, never a crash; out-of-range indices are errors */
	json = mo_json(&c, SIZE_MAX, 0, NULL);
	for (size_t i = 0; i < c.len[2]; i++) {
		c.bin.data[c.off[2] + i] ^= 0x5A;
		glb = make_glb(json, c.bin.data, c.bin.size, &size);
		rk_error err;
		rk_scene *s = rk_load_memory(glb, size, NULL, &err);
		if (s) {
			const rk_mesh *m = &s->meshes.data[0];
			for (size_t k = 0; k < m->index_count; k++) RK_CHECK(m->vertex_indices[k] < m->vertex_count);
			rk_scene_free(s);
		} else {
			RK_CHECK(err.path[0] != '\0');
		}
		c.bin.data[c.off[2] + i] ^= 0x5A;
		free(glb);
	}
	/* rules of the extension, each named */
	static const struct { const char *from, *to, *path; } rules[] = {
		{ "\"byteStride\":2,\"count\"", "\"byteStride\":3,\"count\"", "/bufferViews/2/extensions/EXT_meshopt_compression/byteStride" },
		{ "\"mode\":\"TRIANGLES\"", "\"mode\":\"TRIANGLES\",\"filter\":\"OCTAHEDRAL\"", "/bufferViews/2/extensions/EXT_meshopt_compression/filter" },
		{ "\"mode\":\"TRIANGLES\"", "\"mode\":\"STRIPS\"", "/bufferViews/2/extensions/EXT_meshopt_compression/mode" },
		{ "\"filter\":\"QUATERNION\"", "\"filter\":\"QUATERNIONS\"", "/bufferViews/4/extensions/EXT_meshopt_compression/filter" },
		{ "\"byteStride\":12,\"count\"", "\"byteStride\":260,\"count\"", "/bufferViews/0/extensions/EXT_meshopt_compression/byteStride" },
		{ "\"byteStride\":12,\"extensions\"", "\"byteStride\":16,\"extensions\"", "/bufferViews/0/extensions/EXT_meshopt_compression/byteStride" },
		{ "{\"byteLength\":", "{\"byteLength\":1,\"uri\":\"data:,x\",\"_\":", "/bufferViews/0/extensions/EXT_meshopt_compression/byteLength" },
		{ "\"buffer\":1,\"byteOffset\":0", "\"buffer\":1,\"byteOffset\":0,\"extensionz\":{}", NULL },
	};
	for (size_t r = 0; r < sizeof(rules) / sizeof(rules[0]); r++) {
		char *bad = replace_after(json, NULL, rules[r].from, rules[r].to);
		RK_REQUIRE(bad != NULL);
		glb = make_glb(bad, c.bin.data, c.bin.size, &size);
		if (rules[r].path) expect_failure(rk_t_, glb, size, rules[r].from, rules[r].path, NULL);
		free(glb);
		free(bad);
	}
	/* a view on the placeholder without an extension of its own */
	{
		char *bad = replace_after(json, "\"bufferViews\"", "\"buffer\":1,\"byteOffset\":0,\"byteLength\":972,\"byteStride\":12,\"extensions\"",
			"\"buffer\":1,\"byteOffset\":0,\"byteLength\":972,\"byteStride\":12,\"extensionz\"");
		RK_REQUIRE(bad != NULL);
		glb = make_glb(bad, c.bin.data, c.bin.size, &size);
		expect_failure(rk_t_, glb, size, "placeholder", "/bufferViews/0/buffer", "placeholder");
		free(glb);
		free(bad);
	}
	free(json);
	free(c.bin.data);
}

/* ---- Draco --------------------------------------------------------------------------- */

/* The "byteLength":N of bufferView `view` in a GLB JSON written by a tool. */
static char *view_length(const char *json, size_t view, size_t *length)
{
	const char *views = strstr(json, "\"bufferViews\":[");
	if (!views) return NULL;
	const char *p = views;
	for (size_t k = 0; k <= view; k++) {
		p = strchr(p + 1, '{');
		if (!p) return NULL;
	}
	const char *bl = strstr(p, "\"byteLength\":");
	if (!bl) return NULL;
	*length = (size_t)strtoul(bl + 13, NULL, 10);
	return (char *)bl;
}

RK_TEST(draco_corrupt_streams_fail_naming_the_primitive)
{
	size_t size;
	unsigned char *data = read_file(FIXTURE_DIR "rig_draco.glb", &size);
	RK_REQUIRE(data != NULL);
	const unsigned char *bin;
	size_t bin_size;
	char *json = glb_json(data, size, &bin, &bin_size);
	RK_REQUIRE(json && bin);
	const char *ext = strstr(json, "\"KHR_draco_mesh_compression\":{\"bufferView\":");
	RK_REQUIRE(ext != NULL);
	size_t view = (size_t)strtoul(ext + strlen("\"KHR_draco_mesh_compression\":{\"bufferView\":"), NULL, 10), length = 0;
	char *bl = view_length(json, view, &length);
	RK_REQUIRE(bl && length > 16);
	/* every truncation of the Draco stream */
	for (size_t n = 0; n < length; n++) {
		char num[64], from[64];
		snprintf(from, sizeof(from), "\"byteLength\":%zu", length);
		snprintf(num, sizeof(num), "\"byteLength\":%zu", n);
		char *bad = replace_after(json, bl - json + json, from, num);
		RK_REQUIRE(bad != NULL);
		size_t gsize;
		unsigned char *glb = make_glb(bad, bin, bin_size, &gsize);
		if (n == length / 2) maybe_write_seed("draco_truncated.glb", glb, gsize);
		rk_error err;
		rk_scene *s = rk_load_memory(glb, gsize, NULL, &err);
		if (s) {
			/* a prefix that still decodes must be the whole mesh */
			RK_CHECK(s->meshes.count == 1 && s->meshes.data[0].face_count == 12);
			rk_scene_free(s);
		} else {
			RK_CHECK(strstr(err.path, "/meshes/0/primitives/0") != NULL);
		}
		free(glb);
		free(bad);
	}
	/* garbage bytes in the stream: an error or the mesh, never a crash */
	size_t off = 0;
	{
		const char *vo = view_length(json, view, &length);
		const char *obj = vo;
		while (obj > json && *obj != '{') obj--;
		const char *bo = strstr(obj, "\"byteOffset\":");
		if (bo && bo < vo + 40) off = (size_t)strtoul(bo + 13, NULL, 10);
	}
	unsigned char *copy = (unsigned char *)malloc(bin_size);
	for (size_t i = 0; i < length; i += 3) {
		memcpy(copy, bin, bin_size);
		copy[off + i] ^= 0xA5;
		size_t gsize;
		unsigned char *glb = make_glb(json, copy, bin_size, &gsize);
		rk_error err;
		rk_scene *s = rk_load_memory(glb, gsize, NULL, &err);
		if (s) {
			const rk_mesh *m = &s->meshes.data[0];
			for (size_t k = 0; k < m->index_count; k++) RK_CHECK(m->vertex_indices[k] < m->vertex_count);
			rk_scene_free(s);
		}
		free(glb);
	}
	free(copy);
	/* lying counts: the POSITION accessor claims more points than the stream has */
	{
		const char *pos = strstr(json, "\"POSITION\":");
		RK_REQUIRE(pos != NULL);
		size_t acc = (size_t)strtoul(pos + 11, NULL, 10);
		const char *accs = strstr(json, "\"accessors\":[");
		const char *p = accs;
		for (size_t k = 0; k <= acc && p; k++) p = strchr(p + 1, '{');
		RK_REQUIRE(p != NULL);
		const char *cnt = strstr(p, "\"count\":");
		RK_REQUIRE(cnt != NULL);
		char from[64], to[64];
		snprintf(from, sizeof(from), "\"count\":%lu", strtoul(cnt + 8, NULL, 10));
		snprintf(to, sizeof(to), "\"count\":%lu", strtoul(cnt + 8, NULL, 10) * 1000);
		char *bad = replace_after(json, p, from, to);
		RK_REQUIRE(bad != NULL);
		size_t gsize;
		unsigned char *glb = make_glb(bad, bin, bin_size, &gsize);
		maybe_write_seed("draco_lying_count.glb", glb, gsize);
		expect_failure(rk_t_, glb, gsize, "draco lying count", "/meshes/0/primitives/0/extensions/KHR_draco_mesh_compression/attributes/POSITION",
			"points");
		free(glb);
		free(bad);
	}
	/* a Draco attribute id that is not in the stream */
	{
		const char *pos = strstr(ext, "\"POSITION\":");
		RK_REQUIRE(pos != NULL);
		char from[64];
		snprintf(from, sizeof(from), "\"POSITION\":%lu", strtoul(pos + 11, NULL, 10));
		char *bad = replace_after(json, ext, from, "\"POSITION\":77");
		RK_REQUIRE(bad != NULL);
		size_t gsize;
		unsigned char *glb = make_glb(bad, bin, bin_size, &gsize);
		expect_failure(rk_t_, glb, gsize, "draco id", "KHR_draco_mesh_compression/attributes/POSITION", "id 77");
		free(glb);
		free(bad);
	}
	maybe_write_seed("rig_draco.glb", data, size);
	free(json);
	free(data);
}

/* A truncated WebP payload (the image's bufferView cut in half): the file
 * still loads (a texture never makes geometry unreadable) with a warning
 * naming the image; decoding it fails naming it too. */
RK_TEST(webp_truncated_payload_named)
{
	size_t size;
	unsigned char *data = read_file(FIXTURE_DIR "rig_webp.glb", &size);
	RK_REQUIRE(data != NULL);
	const unsigned char *bin;
	size_t bin_size;
	char *json = glb_json(data, size, &bin, &bin_size);
	RK_REQUIRE(json && bin);
	const char *img = strstr(json, "\"images\":[{");
	RK_REQUIRE(img != NULL);
	const char *bv = strstr(img, "\"bufferView\":");
	RK_REQUIRE(bv != NULL);
	size_t view = (size_t)strtoul(bv + 13, NULL, 10), length = 0;
	char *bl = view_length(json, view, &length);
	RK_REQUIRE(bl && length > 32);
	char from[64], to[64];
	snprintf(from, sizeof(from), "\"byteLength\":%zu", length);
	snprintf(to, sizeof(to), "\"byteLength\":%zu", length / 2);
	char *bad = replace_after(json, bl, from, to);
	RK_REQUIRE(bad != NULL);
	size_t gsize;
	unsigned char *glb = make_glb(bad, bin, bin_size, &gsize);
	maybe_write_seed("webp_truncated.glb", glb, gsize);
	rk_error err;
	rk_scene *s = rk_load_memory(glb, gsize, NULL, &err);
	if (!s) print_error("webp truncated", &err);
	RK_REQUIRE(s != NULL);
	bool named = false;
	for (size_t i = 0; i < s->warnings.count; i++)
		named |= strstr(s->warnings.data[i].message, "truncated WebP") && strcmp(s->warnings.data[i].path, "/images/0") == 0;
	RK_CHECK(named);
	RK_CHECK(s->meshes.count == 1 && s->meshes.data[0].face_count == 12);
	RK_REQUIRE(s->textures.count == 1);
	rk_image im;
	RK_CHECK(!rk_image_decode_memory(s->textures.data[0].content, s->textures.data[0].content_size, "checker.webp", NULL, &im, &err));
	RK_CHECK(strstr(err.message, "checker.webp") != NULL);
	rk_scene_free(s);
	free(glb);
	free(bad);
	free(json);
	free(data);
}

/* ---- KHR_mesh_quantization -------------------------------------------------------------- */

RK_TEST(quantized_attributes_follow_the_gltf_formulas)
{
	/* 4 vertices: SHORT positions (not normalized, scaled by the node),
	 * BYTE normalized normals, UNSIGNED_SHORT normalized UVs, UNSIGNED_BYTE
	 * (not normalized) UVs, a BYTE morph target (not normalized) */
	const short pos[4 * 4] = { 0, 0, 0, 0, 1000, 0, 0, 0, 0, -1000, 32767, 0, -32768, 7, 12, 0 };
	const signed char nrm[4 * 4] = { 0, 127, 0, 0, 0, -128, 0, 0, 90, 90, 0, 0, -127, 0, 0, 0 };
	const unsigned short uv[4 * 2] = { 0, 0, 65535, 0, 0, 65535, 32768, 1 };
	const unsigned char uv1[4 * 2] = { 0, 1, 2, 3, 250, 251, 255, 0 };
	const signed char morph[4 * 4] = { 1, 2, 3, 0, -1, -2, -3, 0, 0, 0, 0, 0, 127, -128, 5, 0 };
	const unsigned short idx[6] = { 0, 1, 2, 2, 1, 3 };
	bytes b = { NULL, 0, 0 };
	bytes_put(&b, pos, sizeof(pos));
	bytes_put(&b, nrm, sizeof(nrm));
	bytes_put(&b, uv, sizeof(uv));
	bytes_put(&b, uv1, sizeof(uv1));
	bytes_put(&b, morph, sizeof(morph));
	bytes_put(&b, idx, sizeof(idx));
	char json[4096];
	snprintf(json, sizeof(json),
		"{\"asset\":{\"version\":\"2.0\"},\"extensionsUsed\":[\"KHR_mesh_quantization\"],\"extensionsRequired\":[\"KHR_mesh_quantization\"],"
		"\"buffers\":[{\"byteLength\":%zu}],\"bufferViews\":["
		"{\"buffer\":0,\"byteOffset\":0,\"byteLength\":32,\"byteStride\":8},{\"buffer\":0,\"byteOffset\":32,\"byteLength\":16,\"byteStride\":4},"
		"{\"buffer\":0,\"byteOffset\":48,\"byteLength\":16},{\"buffer\":0,\"byteOffset\":64,\"byteLength\":8},"
		"{\"buffer\":0,\"byteOffset\":72,\"byteLength\":16,\"byteStride\":4},{\"buffer\":0,\"byteOffset\":88,\"byteLength\":12}],"
		"\"accessors\":[{\"bufferView\":0,\"componentType\":5122,\"count\":4,\"type\":\"VEC3\"},"
		"{\"bufferView\":1,\"componentType\":5120,\"normalized\":true,\"count\":4,\"type\":\"VEC3\"},"
		"{\"bufferView\":2,\"componentType\":5123,\"normalized\":true,\"count\":4,\"type\":\"VEC2\"},"
		"{\"bufferView\":3,\"componentType\":5121,\"count\":4,\"type\":\"VEC2\"},"
		"{\"bufferView\":4,\"componentType\":5120,\"count\":4,\"type\":\"VEC3\"},"
		"{\"bufferView\":5,\"componentType\":5123,\"count\":6,\"type\":\"SCALAR\"}],"
		"\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0,\"NORMAL\":1,\"TEXCOORD_0\":2,\"TEXCOORD_1\":3},\"indices\":5,"
		"\"targets\":[{\"POSITION\":4}]}]}],"
		"\"nodes\":[{\"mesh\":0,\"scale\":[0.001,0.001,0.001],\"translation\":[1,2,3]}],\"scenes\":[{\"nodes\":[0]}]}",
		b.size);
	size_t size;
	unsigned char *glb = make_glb(json, b.data, b.size, &size);
	maybe_write_seed("quantized.glb", glb, size);
	rk_error err;
	rk_scene *s = rk_load_memory(glb, size, NULL, &err);
	if (!s) print_error("quantized", &err);
	RK_REQUIRE(s != NULL);
	const rk_mesh *m = &s->meshes.data[0];
	RK_REQUIRE(m->vertex_count == 4);
	for (int v = 0; v < 4; v++) {
		RK_CHECK(rk_mesh_position(m, v).x == pos[4 * v] && rk_mesh_position(m, v).y == pos[4 * v + 1] && rk_mesh_position(m, v).z == pos[4 * v + 2]);
		for (int k = 0; k < 3; k++) {
			/* glTF: max(c / 127, -1) */
			double want = fmax(nrm[4 * v + k] / 127.0, -1.0);
			const rk_vec3 nv = rk_attrib_vec3_value(&m->normals, v);
			const double n[3] = { nv.x, nv.y, nv.z };
			RK_CHECK_NEAR(n[k], want, 1e-15);
		}
		RK_CHECK_NEAR(rk_attrib_vec2_value(&m->uv_sets.data[0].uv, v).x, uv[2 * v] / 65535.0, 1e-15);
		RK_CHECK_NEAR(rk_attrib_vec2_value(&m->uv_sets.data[0].uv, v).y, uv[2 * v + 1] / 65535.0, 1e-15);
		RK_CHECK(rk_attrib_vec2_value(&m->uv_sets.data[1].uv, v).x == uv1[2 * v] && rk_attrib_vec2_value(&m->uv_sets.data[1].uv, v).y == uv1[2 * v + 1]);
	}
	RK_REQUIRE(m->blend_channels.count == 1);
	const rk_blend_shape *bs = &m->blend_channels.data[0].targets[0];
	RK_CHECK_INT(bs->offset_count, 3);  /* vertex 2 does not move */
	RK_CHECK(rk_blend_shape_position_offset(bs, 2).x == 127 && rk_blend_shape_position_offset(bs, 2).y == -128 && rk_blend_shape_position_offset(bs, 2).z == 5);
	/* the node's scale and translation place the integer positions */
	const rk_node *node = NULL;
	for (size_t i = 0; i < s->nodes.count; i++)
		if (s->nodes.data[i].mesh) node = &s->nodes.data[i];
	RK_REQUIRE(node != NULL);
	rk_vec3 w[4];
	RK_REQUIRE(rk_mesh_world_positions_eval(s, node, NULL, w));
	RK_CHECK_NEAR(w[2].y, 2.0 - 1.0, 1e-9);
	RK_CHECK_NEAR(w[2].z, 3.0 + 32.767, 1e-9);
	RK_CHECK_NEAR(w[3].x, 1.0 - 32.768, 1e-9);
	rk_scene_free(s);
	free(glb);
	free(b.data);
}

/* ---- KTX2 / Basis Universal, required side extensions ------------------------------- */

RK_TEST(basisu_texture_kept_warned_and_written_back)
{
	/* a KTX2 file's first bytes are enough: rigkit keeps them, never decodes; a
	 * made-up future material extension stands for the required side
	 * extensions rigkit neither reads nor carries (sheen is carried now) */
	unsigned char ktx[64] = { 0xAB, 'K', 'T', 'X', ' ', '2', '0', 0xBB, '\r', '\n', 0x1A, '\n' };
	for (size_t i = 12; i < sizeof(ktx); i++) ktx[i] = (unsigned char)(i * 37);
	const float pos[9] = { 0, 0, 0, 1, 0, 0, 0, 1, 0 };
	const float uv[6] = { 0, 0, 1, 0, 0, 1 };
	bytes b = { NULL, 0, 0 };
	bytes_put(&b, pos, sizeof(pos));
	bytes_put(&b, uv, sizeof(uv));
	bytes_put(&b, ktx, sizeof(ktx));
	char json[4096];
	snprintf(json, sizeof(json),
		"{\"asset\":{\"version\":\"2.0\"},\"extensionsUsed\":[\"KHR_texture_basisu\",\"KHR_lights_punctual\",\"KHR_materials_future_x\"],"
		"\"extensionsRequired\":[\"KHR_texture_basisu\",\"KHR_lights_punctual\",\"KHR_materials_future_x\"],"
		"\"buffers\":[{\"byteLength\":%zu}],\"bufferViews\":[{\"buffer\":0,\"byteLength\":36},{\"buffer\":0,\"byteOffset\":36,\"byteLength\":24},"
		"{\"buffer\":0,\"byteOffset\":60,\"byteLength\":64}],"
		"\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\"},{\"bufferView\":1,\"componentType\":5126,\"count\":3,\"type\":\"VEC2\"}],"
		"\"images\":[{\"bufferView\":2,\"mimeType\":\"image/ktx2\"}],"
		"\"textures\":[{\"extensions\":{\"KHR_texture_basisu\":{\"source\":0}}}],"
		"\"materials\":[{\"pbrMetallicRoughness\":{\"baseColorTexture\":{\"index\":0}},\"extensions\":{\"KHR_materials_future_x\":{}}}],"
		"\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0,\"TEXCOORD_0\":1},\"material\":0}]}],"
		"\"extensions\":{\"KHR_lights_punctual\":{\"lights\":[{\"type\":\"point\"}]}},"
		"\"nodes\":[{\"mesh\":0}],\"scenes\":[{\"nodes\":[0]}]}",
		b.size);
	size_t size;
	unsigned char *glb = make_glb(json, b.data, b.size, &size);
	maybe_write_seed("basisu.glb", glb, size);
	rk_error err;
	rk_scene *s = rk_load_memory(glb, size, NULL, &err);
	if (!s) print_error("basisu", &err);
	RK_REQUIRE(s != NULL);
	RK_CHECK(has_warning(s, "KTX2"));
	RK_CHECK(has_warning(s, "not decoded"));
	RK_CHECK(has_warning(s, "KHR_materials_future_x"));
	RK_CHECK(s->meshes.count == 1 && s->meshes.data[0].face_count == 1);
	RK_REQUIRE(s->textures.count == 1);
	RK_CHECK_STR(s->textures.data[0].mime_type, "image/ktx2");
	RK_CHECK_INT(s->textures.data[0].content_size, sizeof(ktx));
	void *out = NULL;
	size_t out_size = 0;
	RK_REQUIRE(rk_gltf_write_memory(s, NULL, &out, &out_size, &err));
	RK_CHECK(strstr((const char *)out + 20, "\"KHR_texture_basisu\":{\"source\":0}") != NULL);
	rk_scene *back = rk_load_memory(out, out_size, NULL, &err);
	RK_REQUIRE(back != NULL);
	RK_REQUIRE(back->textures.count == 1);
	RK_CHECK_INT(back->textures.data[0].content_size, sizeof(ktx));
	RK_CHECK(memcmp(back->textures.data[0].content, ktx, sizeof(ktx)) == 0);
	rk_scene_free(back);
	rk_gltf_memory_free(out);
	rk_scene_free(s);
	free(glb);

	/* an unknown required extension may change geometry: refused, named */
	char *bad = replace_after(json, NULL, "\"extensionsRequired\":[\"KHR_texture_basisu\"", "\"extensionsRequired\":[\"EXT_mesh_gpu_instancing\"");
	RK_REQUIRE(bad != NULL);
	glb = make_glb(bad, b.data, b.size, &size);
	memset(&err, 0, sizeof(err));
	RK_CHECK(rk_load_memory(glb, size, NULL, &err) == NULL);
	RK_CHECK_INT(err.code, RK_ERROR_UNSUPPORTED);
	RK_CHECK_STR(err.path, "/extensionsRequired/0");
	free(glb);
	free(bad);
	free(b.data);
}

RK_TEST_MAIN(
	RK_TEST_ENTRY(fixtures_pose_like_the_original),
	RK_TEST_ENTRY(webp_texture_kept_and_decoded),
	RK_TEST_ENTRY(meshopt_streams_decode_to_the_encoded_arrays),
	RK_TEST_ENTRY(meshopt_corrupt_streams_fail_naming_the_bufferview),
	RK_TEST_ENTRY(draco_corrupt_streams_fail_naming_the_primitive),
	RK_TEST_ENTRY(webp_truncated_payload_named),
	RK_TEST_ENTRY(quantized_attributes_follow_the_gltf_formulas),
	RK_TEST_ENTRY(basisu_texture_kept_warned_and_written_back))
