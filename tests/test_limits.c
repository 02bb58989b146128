/*
 * tests/test_limits.c - issue 18, costs bounded by the input and no quiet
 * garbage: duplicated FBX connections, the memory budget, clip length
 * limits, non-finite numbers, invalid options. Every input is crafted here
 * from the committed fixtures (tests/fixtures) or written inline; the
 * expectations are counts from the clean file and the documented rules.
 */
#include "rk_test.h"

#include <rigkit/rigkit.h>

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

RK_TEST_MAIN(
	RK_TEST_ENTRY(fbx_duplicate_connections_counted_once))
