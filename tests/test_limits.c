/*
 * tests/test_limits.c - issue 18, costs bounded by the input and no quiet
 * garbage: duplicated FBX connections, the memory budget, clip length
 * limits, non-finite numbers, invalid options. Every input is crafted here
 * from the committed fixtures (tests/fixtures) or written inline; the
 * expectations are counts from the clean file and the documented rules.
 */
#include "rk_bombs.h"
#include "rk_test.h"

#include <rigkit/rigkit.h>
#include <rigkit/demo.h>
#include <rigkit/export.h>
#include <rigkit/retarget.h>

#include <math.h>
#include <stdint.h>
#include <string.h>

#ifndef RK_SOURCE_DIR
#define RK_SOURCE_DIR "."
#endif
#define FIXTURE_DIR RK_SOURCE_DIR "/tests/fixtures/"

/* A growable text buffer (test helper; aborts the test on OOM via NULL). */
typedef struct tbuf { char *data; size_t len, cap; } tbuf;

static bool tbuf_put(tbuf *b, const char *s, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 4096;
		while (cap < b->len + n + 1) cap *= 2;
		char *d = (char *)realloc(b->data, cap);
		if (!d) return false;
		b->data = d;
		b->cap = cap;
	}
	memcpy(b->data + b->len, s, n);
	b->len += n;
	b->data[b->len] = 0;
	return true;
}

/* `text` with every line that starts (after tabs) with `prefix` repeated
 * `times` times. */
static char *repeat_lines(const char *text, const char *prefix, int times, size_t *len)
{
	tbuf b = { 0 };
	const char *p = text;
	while (*p) {
		const char *e = strchr(p, '\n');
		size_t n = e ? (size_t)(e - p) + 1 : strlen(p);
		const char *q = p;
		while (*q == '\t' || *q == ' ') q++;
		int k = strncmp(q, prefix, strlen(prefix)) == 0 ? times : 1;
		for (int i = 0; i < k; i++)
			if (!tbuf_put(&b, p, n)) { free(b.data); return NULL; }
		p += n;
	}
	*len = b.len;
	return b.data;
}

static size_t clip_tracks(const rk_anim_clip *c)
{
	size_t n = 0;
	for (size_t l = 0; l < c->layer_count; l++) n += c->layers[l].track_count;
	return n;
}

static const rk_warning *find_warning(const rk_scene *s, const char *needle)
{
	for (size_t i = 0; i < s->warnings.count; i++)
		if (strstr(s->warnings.data[i].message, needle)) return &s->warnings.data[i];
	return NULL;
}

/* ---- duplicated FBX connections ------------------------------------------- */

RK_TEST(fbx_duplicate_connections_counted_once)
{
	size_t size;
	char *text = (char *)rk_test_read_file(FIXTURE_DIR "rig_ascii.fbx", &size);
	RK_REQUIRE(text);
	char *t0 = (char *)realloc(text, size + 1);
	RK_REQUIRE(t0);
	t0[size] = 0;
	size_t dup_len;
	char *dup = repeat_lines(t0, "C: ", 40, &dup_len);
	RK_REQUIRE(dup);
	RK_CHECK(dup_len > size + 20 * 39 * 10);  /* 23 connections, each 40 times */
	rk_error err;
	rk_load_opts o = { 0 };
	o.filename = "rig_clean.fbx";
	rk_scene *clean = rk_load_memory(t0, size, &o, &err);
	o.filename = "rig_dup40.fbx";
	rk_scene *d = rk_load_memory(dup, dup_len, &o, &err);
	RK_REQUIRE(clean);
	RK_REQUIRE(d);
	RK_CHECK(find_warning(clean, "duplicate connection") == NULL);
	const rk_warning *w = find_warning(d, "duplicate connection");
	RK_CHECK(w != NULL);
	if (w) RK_CHECK(strstr(w->message, "897 duplicate connections") != NULL);  /* 23 * 39 */
	RK_CHECK_INT(d->nodes.count, clean->nodes.count);
	RK_CHECK_INT(d->meshes.count, clean->meshes.count);
	RK_CHECK_INT(d->skins.count, clean->skins.count);
	RK_CHECK_INT(d->clips.count, clean->clips.count);
	RK_REQUIRE(clean->clips.count == 1 && d->clips.count == 1);
	RK_CHECK_INT(clip_tracks(&clean->clips.data[0]), 2);   /* Hips T and R (fixtures/README.md) */
	RK_CHECK_INT(clip_tracks(&d->clips.data[0]), clip_tracks(&clean->clips.data[0]));
	RK_CHECK_INT(d->clips.data[0].layer_count, clean->clips.data[0].layer_count);
	for (size_t k = 0; k < clean->skins.count && k < d->skins.count; k++)
		RK_CHECK_INT(d->skins.data[k].joint_count, clean->skins.data[k].joint_count);
	for (size_t k = 0; k < clean->nodes.count && k < d->nodes.count; k++)
		RK_CHECK_INT(d->nodes.data[k].children.count, clean->nodes.data[k].children.count);
	rk_scene_free(clean);
	rk_scene_free(d);
	free(t0);
	free(dup);
}

/* ---- the memory budget ------------------------------------------------------ */

/* Loading `data` with `o` fails with RK_ERROR_LIMIT naming o->filename
 * and, when `budget` is not NULL, a message containing it. */
static void check_load_limit(rk_test_state *rk_t_, const void *data, size_t size, const rk_load_opts *o, const char *budget)
{
	rk_error err;
	rk_scene *s = rk_load_memory(data, size, o, &err);
	RK_CHECK(s == NULL);
	RK_CHECK_INT(err.code, RK_ERROR_LIMIT);
	RK_CHECK_STR(err.file, o->filename);
	if (budget) RK_CHECK(strstr(err.message, budget) != NULL);
	rk_scene_free(s);
}

/* 10 arrays of 6 M doubles (480 MB decoded) in a file of well under 1 MB:
 * over the default budget max(256 MiB, 64 x size). */
RK_TEST(memory_budget_refuses_fbx_deflate_bomb)
{
	size_t size;
	unsigned char *bomb = rk_bomb_fbx_deflate(10, 3u << 21, &size);
	RK_REQUIRE(bomb);
	RK_CHECK(size < 1000000);
	rk_error err;
	rk_load_opts o = { 0 };
	o.filename = "deflate_bomb.fbx";
	check_load_limit(rk_t_, bomb, size, &o, "memory budget of 268435456 bytes");
	free(bomb);
	/* the same shape, small enough: loads (2 x 6 MB of vertices) */
	bomb = rk_bomb_fbx_deflate(2, 3u << 18, &size);
	RK_REQUIRE(bomb);
	rk_scene *s = rk_load_memory(bomb, size, &o, &err);
	RK_CHECK(s != NULL);
	if (!s) fprintf(stderr, "  %s\n", err.message);
	rk_scene_free(s);
	/* an explicit budget is the caller's: 4 MiB is too little for it */
	o.memory_limit = (size_t)4 << 20;
	check_load_limit(rk_t_, bomb, size, &o, "memory budget of 4194304 bytes");
	free(bomb);
}

/* One million empty nodes in a 3 MB GLB. */
RK_TEST(memory_budget_refuses_glb_of_a_million_nodes)
{
	size_t size;
	unsigned char *bomb = rk_bomb_glb_nodes(1000000, &size);
	RK_REQUIRE(bomb);
	RK_CHECK(size < 4000000);
	rk_error err;
	rk_load_opts o = { 0 };
	o.filename = "million_nodes.glb";
	check_load_limit(rk_t_, bomb, size, &o, "memory budget of 268435456 bytes");
	free(bomb);
	bomb = rk_bomb_glb_nodes(1000, &size);
	RK_REQUIRE(bomb);
	rk_scene *s = rk_load_memory(bomb, size, &o, &err);
	RK_REQUIRE(s);
	RK_CHECK_INT(s->nodes.count, 1001);  /* + the synthetic root */
	rk_scene_free(s);
	free(bomb);
}

/* ---- clip length ------------------------------------------------------------ */

/* The fixture text with its AnimStack's LocalStop/ReferenceStop moved to
 * `seconds` (the keys stay at 0..2 s). */
static char *fixture_with_stop(double seconds, size_t *len)
{
	size_t size;
	char *text = (char *)rk_test_read_file(FIXTURE_DIR "rig_ascii.fbx", &size);
	if (!text) return NULL;
	tbuf b = { 0 };
	char stop[64];
	snprintf(stop, sizeof(stop), "\"\",%.0f\n", seconds * 46186158000.0);
	const char *p = text, *end = text + size;
	while (p < end) {
		const char *e = p;
		while (e < end && *e != '\n') e++;
		size_t n = (size_t)(e - p) + (e < end ? 1 : 0);
		char line[512];
		size_t ln = n < sizeof(line) - 1 ? n : sizeof(line) - 1;
		memcpy(line, p, ln);
		line[ln] = 0;
		const char *q = strstr(line, "\"\",");
		if (q && (strstr(line, "\"LocalStop\"") || strstr(line, "\"ReferenceStop\""))) {
			tbuf_put(&b, line, (size_t)(q - line));
			tbuf_put(&b, stop, strlen(stop));
		} else {
			tbuf_put(&b, p, n);
		}
		p += n;
	}
	free(text);
	*len = b.len;
	return b.data;
}

RK_TEST(baking_refuses_a_clip_longer_than_max_frames)
{
	size_t len;
	char *text = fixture_with_stop(4000.0, &len);
	RK_REQUIRE(text);
	rk_error err;
	rk_load_opts lo = { 0 };
	lo.filename = "rig_4000s.fbx";
	rk_scene *s = rk_load_memory(text, len, &lo, &err);
	RK_REQUIRE(s);
	RK_REQUIRE(s->clips.count == 1);
	RK_CHECK_NEAR(s->clips.data[0].time_end, 4000.0, 1e-6);
	void *out = NULL;
	size_t out_size = 0;
	/* 4000 s at the file's 30 fps: 120001 samples > 100000 */
	RK_CHECK(!rk_gltf_write_memory(s, NULL, &out, &out_size, &err));
	RK_CHECK_INT(err.code, RK_ERROR_LIMIT);
	RK_CHECK_STR(err.file, "rig_4000s.fbx");
	RK_CHECK(strstr(err.message, "\"Wave\"") && strstr(err.message, "120001") && strstr(err.message, "max_frames 100000"));
	RK_CHECK(out == NULL);
	/* at 1 fps: 4001 samples, refused at max_frames 4000, written at 4001 */
	rk_gltf_write_opts wo = { 0 };
	wo.bake_fps = 1.0;
	wo.max_frames = 4000;
	RK_CHECK(!rk_gltf_write_memory(s, &wo, &out, &out_size, &err));
	RK_CHECK_INT(err.code, RK_ERROR_LIMIT);
	wo.max_frames = 4001;
	RK_CHECK(rk_gltf_write_memory(s, &wo, &out, &out_size, &err));
	rk_gltf_memory_free(out);
	rk_scene_free(s);
	free(text);
}

RK_TEST(retarget_refuses_a_clip_longer_than_max_frames)
{
	rk_error err;
	rk_scene *demo = rk_demo_scene(RK_DEMO_MIXAMO_SOURCE, NULL, &err);
	RK_REQUIRE(demo);
	void *glb = NULL;
	size_t glb_size = 0;
	RK_REQUIRE(rk_gltf_write_memory(demo, NULL, &glb, &glb_size, &err));
	rk_scene_free(demo);
	rk_load_opts lo = { 0 };
	lo.filename = "walk_long.glb";
	rk_scene *src = rk_load_memory(glb, glb_size, &lo, &err);
	rk_gltf_memory_free(glb);
	rk_scene *dst = rk_demo_scene(RK_DEMO_AVATAR, NULL, &err);
	RK_REQUIRE(src && dst);
	rk_anim_clip *walk = rk_scene_find_clip(src, "Walk");
	RK_REQUIRE(walk);
	/* a file claiming a 29,000 s clip: 870,001 frames at 30 fps */
	walk->time_end = walk->time_begin + 29000.0;
	rk_retarget_opts ro = { 0 };
	ro.fps = 30.0;
	size_t clips_before = dst->clips.count;
	RK_CHECK(rk_retarget(dst, src, walk, &ro, NULL, &err) == NULL);
	RK_CHECK_INT(err.code, RK_ERROR_LIMIT);
	RK_CHECK_STR(err.file, "walk_long.glb");
	RK_CHECK(strstr(err.message, "\"Walk\"") && strstr(err.message, "870001") && strstr(err.message, "max_frames 100000"));
	RK_CHECK_INT(dst->clips.count, clips_before);
	/* 100 s: 3001 frames; refused at 3000, done at 3001 */
	walk->time_end = walk->time_begin + 100.0;
	ro.max_frames = 3000;
	RK_CHECK(rk_retarget(dst, src, walk, &ro, NULL, &err) == NULL);
	RK_CHECK_INT(err.code, RK_ERROR_LIMIT);
	ro.max_frames = 3001;
	rk_retarget_report rep;
	RK_CHECK(rk_retarget(dst, src, walk, &ro, &rep, &err) != NULL);
	RK_CHECK_INT(rep.frames, 3001);
	/* a broken source (its hips translation keys made NaN after loading,
	 * which no file can do any more): the error is about the source */
	walk->time_end = walk->time_begin + 1.0;
	ro.max_frames = 0;
	rk_node *hips = NULL;
	for (size_t l = 0; l < walk->layer_count; l++)
		for (size_t k = 0; k < walk->layers[l].track_count; k++) {
			const rk_anim_track *t = &walk->layers[l].tracks[k];
			if (t->target == RK_TARGET_TRANSLATION && rk_track_has_values(t) && t->key_count) {
				double *v = (double *)(uintptr_t)t->values_f64;
				float *vf = (float *)(uintptr_t)t->values_f32;
				for (size_t q = 0; q < t->key_count * t->components; q++) {
					if (v) v[q] = NAN;
					else vf[q] = NAN;
				}
				hips = t->node;
			}
		}
	RK_REQUIRE(hips);
	RK_CHECK(rk_retarget(dst, src, walk, &ro, NULL, &err) == NULL);
	RK_CHECK_STR(err.file, "walk_long.glb");
	RK_CHECK(strstr(err.message, "source") != NULL);
	RK_CHECK(strstr(err.message, "target") == NULL);
	rk_scene_free(src);
	rk_scene_free(dst);
}

/* ---- non-finite numbers ----------------------------------------------------- */

/* The whole fixture file, NUL-terminated. */
static char *read_fixture(const char *name, size_t *size)
{
	char path[512];
	snprintf(path, sizeof(path), "%s%s", FIXTURE_DIR, name);
	unsigned char *d = rk_test_read_file(path, size);
	if (!d) return NULL;
	char *t = (char *)realloc(d, *size + 1);
	if (!t) { free(d); return NULL; }
	t[*size] = 0;
	return t;
}

/* text with the first `old` replaced by `rep` (malloc'd), NULL if absent. */
static char *replace_once(const char *text, const char *old, const char *rep, size_t *len)
{
	const char *at = strstr(text, old);
	if (!at) return NULL;
	tbuf b = { 0 };
	if (!tbuf_put(&b, text, (size_t)(at - text)) || !tbuf_put(&b, rep, strlen(rep))
		|| !tbuf_put(&b, at + strlen(old), strlen(at + strlen(old)))) {
		free(b.data);
		return NULL;
	}
	*len = b.len;
	return b.data;
}

RK_TEST(fbx_non_finite_arrays_are_errors)
{
	size_t size, len;
	char *t0 = read_fixture("rig_ascii.fbx", &size);
	RK_REQUIRE(t0);
	static const struct { const char *old, *rep, *node; } cases[] = {
		{ "a: -10,100,-10,10,100,-10", "a: -10,1e400,-10,10,100,-10", "Vertices" },
		{ "a: -10,100,-10,10,100,-10", "a: -10,100,-10,10,-1e999,-10", "Vertices" },
		{ "a: 0,-1,0,0,-1,0,0,-1,0", "a: 0,-1,0,0,-1,0,0,1e500,0", "Normals" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *t = replace_once(t0, cases[i].old, cases[i].rep, &len);
		RK_REQUIRE(t);
		rk_error err;
		rk_load_opts o = { 0 };
		o.filename = "rig_nonfinite.fbx";
		rk_scene *s = rk_load_memory(t, len, &o, &err);
		RK_CHECK(s == NULL);
		RK_CHECK_INT(err.code, RK_ERROR_CORRUPT);
		RK_CHECK_STR(err.file, "rig_nonfinite.fbx");
		RK_CHECK(strstr(err.message, "not a finite number") != NULL);
		RK_CHECK(strstr(err.path, cases[i].node) != NULL);
		RK_CHECK(err.location & RK_LOCATION_BYTE);
		rk_scene_free(s);
		free(t);
	}
	free(t0);
}

/* Transform properties: the FBX SDK loads them; rigkit uses the default
 * (0 for translations, 1 for scaling) and warns, so no NaN reaches a pose. */
RK_TEST(fbx_non_finite_properties_default_with_warning)
{
	size_t size, len;
	char *t0 = read_fixture("rig_ascii.fbx", &size);
	RK_REQUIRE(t0);
	char *t = replace_once(t0, "\"A\",0,100,0", "\"A\",0,1e400,0", &len);
	RK_REQUIRE(t);
	rk_error err;
	rk_load_opts o = { 0 };
	o.filename = "rig_inf_translation.fbx";
	rk_scene *s = rk_load_memory(t, len, &o, &err);
	RK_REQUIRE(s);
	const rk_warning *w = find_warning(s, "Lcl Translation");
	RK_CHECK(w != NULL && strstr(w->message, "\"Hips\"") && strstr(w->message, "not finite"));
	const rk_node *hips = rk_scene_find_node(s, "Hips");
	RK_REQUIRE(hips);
	RK_CHECK(hips->props.translation.x == 0 && hips->props.translation.y == 0 && hips->props.translation.z == 0);
	for (size_t i = 0; i < s->nodes.count; i++)
		for (int k = 0; k < 16; k++) RK_CHECK(isfinite(s->nodes.data[i].node_to_world.m[k]));
	rk_scene_free(s);
	free(t);
	/* material colours: the default with a warning, never a NaN in a glTF */
	char *tm = replace_once(t0, "0.8,0.6,0.4", "0.8,1e400,0.4", &len);
	RK_REQUIRE(tm);
	o.filename = "rig_inf_colour.fbx";
	s = rk_load_memory(tm, len, &o, &err);
	RK_REQUIRE(s);
	RK_CHECK(find_warning(s, "base colour is not finite") != NULL);
	RK_REQUIRE(s->materials.count >= 1);
	RK_CHECK(s->materials.data[0].base_color.x == 1.0 && s->materials.data[0].base_color.y == 1.0);
	rk_scene_free(s);
	free(tm);
	/* finite values whose product overflows (1e200 x 1e200 down the
	 * hierarchy): caught by the last check of the load, naming the node */
	char *t1 = replace_once(t0, "\"A\",0,100,0", "\"A\",1e200,100,0", &len);
	RK_REQUIRE(t1);
	char *t2 = replace_once(t1, "\"A\",0,20,0", "\"A\",1e200,20,0\n\t\t\tP: \"Lcl Scaling\", \"Lcl Scaling\", \"\", \"A\",1e200,1e200,1e200", &len);
	RK_REQUIRE(t2);
	o.filename = "rig_overflow.fbx";
	s = rk_load_memory(t2, len, &o, &err);
	RK_CHECK(s == NULL);
	RK_CHECK_INT(err.code, RK_ERROR_CORRUPT);
	RK_CHECK_STR(err.file, "rig_overflow.fbx");
	RK_CHECK(strstr(err.message, "not finite") != NULL);
	rk_scene_free(s);
	free(t1);
	free(t2);
	free(t0);
}

/* GLB float accessors with a NaN or infinity: an error at /accessors/N. */
RK_TEST(gltf_non_finite_accessors_and_numbers_are_errors)
{
	size_t size;
	unsigned char *glb = rk_test_read_file(FIXTURE_DIR "rig.glb", &size);
	RK_REQUIRE(glb && size > 20);
	uint32_t jl = (uint32_t)glb[12] | (uint32_t)glb[13] << 8 | (uint32_t)glb[14] << 16 | (uint32_t)glb[15] << 24;
	size_t bin = 20 + (size_t)jl + 8;
	RK_REQUIRE(bin + 600 < size);
	/* POSITION (accessor 0, bufferView 0 at 0), NORMAL (1, at 288), TEXCOORD_0 (2, at 576) */
	static const struct { size_t at; uint32_t bits; const char *pointer; } cases[] = {
		{ 0, 0x7fc00000u, "/accessors/0" }, { 4, 0x7f800000u, "/accessors/0" },
		{ 288 + 8, 0xff800000u, "/accessors/1" }, { 576, 0x7fa00001u, "/accessors/2" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		unsigned char *d = (unsigned char *)malloc(size);
		RK_REQUIRE(d);
		memcpy(d, glb, size);
		for (int k = 0; k < 4; k++) d[bin + cases[i].at + (size_t)k] = (unsigned char)(cases[i].bits >> (8 * k));
		rk_error err;
		rk_load_opts o = { 0 };
		o.filename = "rig_nan.glb";
		rk_scene *s = rk_load_memory(d, size, &o, &err);
		RK_CHECK(s == NULL);
		RK_CHECK_INT(err.code, RK_ERROR_CORRUPT);
		RK_CHECK_STR(err.file, "rig_nan.glb");
		RK_CHECK_STR(err.path, cases[i].pointer);
		RK_CHECK(strstr(err.message, "not a finite number") != NULL);
		rk_scene_free(s);
		free(d);
	}
	free(glb);
	/* JSON numbers out of double range (1e400) in node TRS */
	size_t tsize, len;
	char *text = read_fixture("rig.gltf", &tsize);
	RK_REQUIRE(text);
	char *t = replace_once(text, "\"translation\": [\n    0,\n    1,", "\"translation\": [\n    0,\n    1e400,", &len);
	RK_REQUIRE(t);
	rk_error err;
	rk_load_opts o = { 0 };
	o.filename = "rig_inf.gltf";
	rk_scene *s = rk_load_memory(t, len, &o, &err);
	RK_CHECK(s == NULL);
	RK_CHECK_INT(err.code, RK_ERROR_CORRUPT);
	RK_CHECK_STR(err.file, "rig_inf.gltf");
	RK_CHECK(strstr(err.path, "/nodes/") && strstr(err.path, "translation"));
	rk_scene_free(s);
	free(t);
	free(text);
}

/* A finite scene whose evaluated positions overflow (Lcl and Geometric
 * scaling of 1e154 each, so 1e308, times vertices at y = 150): the OBJ
 * writer refuses rather than print inf. */
RK_TEST(obj_writer_never_writes_non_finite_numbers)
{
	size_t size, len;
	char *t0 = read_fixture("rig_ascii.fbx", &size);
	RK_REQUIRE(t0);
	char *t = replace_once(t0, "\t\t\tP: \"currentUVSet\", \"KString\", \"\", \"U\", \"map1\"\n",
		"\t\t\tP: \"currentUVSet\", \"KString\", \"\", \"U\", \"map1\"\n\t\t\tP: \"Lcl Scaling\", \"Lcl Scaling\", \"\", \"A\",1e154,1e154,1e154\n\t\t\tP: \"GeometricScaling\", \"Vector3D\", \"Vector\", \"\",1e154,1e154,1e154\n", &len);
	RK_REQUIRE(t);
	/* unskinned (skinned vertices follow the joints, not the node) */
	char *t1 = replace_once(t, "\tC: \"OO\",5000,3000\n", "", &len);
	RK_REQUIRE(t1);
	free(t);
	t = t1;
	rk_error err;
	rk_load_opts o = { 0 };
	o.filename = "rig_huge_scale.fbx";
	rk_scene *s = rk_load_memory(t, len, &o, &err);
	RK_REQUIRE(s);
	char *text = NULL;
	size_t n = 0;
	RK_CHECK(!rk_obj_write_memory(s, NULL, &text, &n, &err));
	RK_CHECK(text == NULL);
	RK_CHECK_INT(err.code, RK_ERROR_CORRUPT);
	RK_CHECK_STR(err.file, "rig_huge_scale.fbx");
	RK_CHECK(strstr(err.message, "non-finite") != NULL);
	rk_scene_free(s);
	free(t);
	/* the clean fixture writes */
	s = rk_load_memory(t0, size, &o, &err);
	RK_REQUIRE(s);
	RK_CHECK(rk_obj_write_memory(s, NULL, &text, &n, &err));
	RK_CHECK(text && !strstr(text, "nan") && !strstr(text, "inf"));
	rk_obj_memory_free(text);
	rk_scene_free(s);
	free(t0);
}

/* ---- invalid option values ----------------------------------------------- */

RK_TEST(invalid_load_options_name_the_field)
{
	size_t size;
	char *text = read_fixture("rig_ascii.fbx", &size);
	RK_REQUIRE(text);
	static const struct { rk_axes axes; double unit; int conv; const char *field; } cases[] = {
		{ { (rk_axis)99, RK_AXIS_POSITIVE_Y, RK_AXIS_POSITIVE_Z }, 0, 0, "target_axes" },
		{ { RK_AXIS_POSITIVE_X, RK_AXIS_UNKNOWN, RK_AXIS_UNKNOWN }, 0, 0, "target_axes" },
		{ { RK_AXIS_POSITIVE_X, RK_AXIS_NEGATIVE_X, RK_AXIS_POSITIVE_Z }, 0, 0, "target_axes" },
		{ { 0, 0, 0 }, NAN, 0, "target_unit_meters" },
		{ { 0, 0, 0 }, INFINITY, 0, "target_unit_meters" },
		{ { 0, 0, 0 }, -1.0, 0, "target_unit_meters" },
		{ { 0, 0, 0 }, 0, 7, "space_conversion" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		rk_load_opts o = { 0 };
		o.target_axes = cases[i].axes;
		o.target_unit_meters = cases[i].unit;
		o.space_conversion = (rk_space_conversion)cases[i].conv;
		o.filename = "rig.fbx";
		rk_error err;
		rk_scene *s = rk_load_memory(text, size, &o, &err);
		RK_CHECK(s == NULL);
		RK_CHECK_INT(err.code, RK_ERROR_INVALID_ARGUMENT);
		RK_CHECK(strstr(err.message, "rk_load_opts.") && strstr(err.message, cases[i].field));
		rk_scene_free(s);
		o.filename = NULL;
		s = rk_load_file(FIXTURE_DIR "rig_ascii.fbx", &o, &err);
		RK_CHECK(s == NULL);
		RK_CHECK_INT(err.code, RK_ERROR_INVALID_ARGUMENT);
		RK_CHECK(strstr(err.message, cases[i].field) != NULL);
		rk_scene_free(s);
	}
	/* the documented values load */
	rk_load_opts o = { 0 };
	o.target_axes = RK_AXES_RIGHT_HANDED_Z_UP;
	o.target_unit_meters = 1.0;
	o.space_conversion = RK_CONVERT_MODIFY_GEOMETRY;
	rk_error err;
	rk_scene *s = rk_load_memory(text, size, &o, &err);
	RK_CHECK(s != NULL);
	rk_scene_free(s);
	free(text);
}

RK_TEST(invalid_gltf_write_options_name_the_field)
{
	rk_error err;
	rk_scene *s = rk_load_file(FIXTURE_DIR "rig_ascii.fbx", NULL, &err);
	RK_REQUIRE(s);
	static const struct { int container; double fps, ttol, rtol; const char *field; } cases[] = {
		{ 99, 0, 0, 0, "container" }, { -1, 0, 0, 0, "container" },
		{ 0, -30, 0, 0, "bake_fps" }, { 0, NAN, 0, 0, "bake_fps" }, { 0, INFINITY, 0, 0, "bake_fps" },
		{ 0, 0, NAN, 0, "translation_tolerance" }, { 0, 0, -1e-3, 0, "translation_tolerance" },
		{ 0, 0, 0, INFINITY, "rotation_tolerance" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		rk_gltf_write_opts wo = { 0 };
		wo.container = (rk_gltf_container)cases[i].container;
		wo.bake_fps = cases[i].fps;
		wo.translation_tolerance = cases[i].ttol;
		wo.rotation_tolerance = cases[i].rtol;
		void *out = NULL;
		size_t n = 0;
		RK_CHECK(!rk_gltf_write_memory(s, &wo, &out, &n, &err));
		RK_CHECK_INT(err.code, RK_ERROR_INVALID_ARGUMENT);
		RK_CHECK(strstr(err.message, "rk_gltf_write_opts.") && strstr(err.message, cases[i].field));
		RK_CHECK(out == NULL);
	}
	rk_scene_free(s);
}

RK_TEST_MAIN(
	RK_TEST_ENTRY(fbx_duplicate_connections_counted_once),
	RK_TEST_ENTRY(memory_budget_refuses_fbx_deflate_bomb),
	RK_TEST_ENTRY(memory_budget_refuses_glb_of_a_million_nodes),
	RK_TEST_ENTRY(baking_refuses_a_clip_longer_than_max_frames),
	RK_TEST_ENTRY(retarget_refuses_a_clip_longer_than_max_frames),
	RK_TEST_ENTRY(fbx_non_finite_arrays_are_errors),
	RK_TEST_ENTRY(fbx_non_finite_properties_default_with_warning),
	RK_TEST_ENTRY(gltf_non_finite_accessors_and_numbers_are_errors),
	RK_TEST_ENTRY(obj_writer_never_writes_non_finite_numbers),
	RK_TEST_ENTRY(invalid_load_options_name_the_field),
	RK_TEST_ENTRY(invalid_gltf_write_options_name_the_field))
