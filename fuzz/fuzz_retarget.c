/*
 * fuzz/fuzz_retarget.c - libFuzzer target for humanoid detection,
 * retargeting and comparison on hostile scenes (src/retarget/).
 *
 * The input is loaded as glTF/GLB or FBX with rk_load_memory(); whatever
 * loads is used as the TARGET of the built-in sample source's Walk (and as
 * the SOURCE onto the built-in avatar for each of its clips, at most 4),
 * then compared with the sample. Every call must return a result or an
 * error with a message, never crash; every key written must be finite. The
 * sample characters are built once per process (read-only afterwards).
 * Seeds: the shared GLB/FBX characters (scripts/fuzz.sh retarget).
 */
#include "rigkit/rigkit.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static rk_scene *fuzz_source, *fuzz_avatar_template;

static void fuzz_check_clip(const rk_anim_clip *c)
{
	for (size_t l = 0; l < c->layer_count; l++)
		for (size_t t = 0; t < c->layers[l].track_count; t++) {
			const rk_anim_track *tr = &c->layers[l].tracks[t];
			for (size_t v = 0; v < tr->key_count * tr->components; v++)
				if (!isfinite(tr->values[v])) abort();
		}
}

static void fuzz_expect_error(const rk_error *err)
{
	if (err->code == RK_OK || !err->message[0]) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	rk_error err;
	if (!fuzz_source) {
		fuzz_source = rk_demo_scene(RK_DEMO_MIXAMO_SOURCE, NULL, &err);
		fuzz_avatar_template = rk_demo_scene(RK_DEMO_AVATAR, NULL, &err);
		if (!fuzz_source || !fuzz_avatar_template) abort();
	}
	rk_load_opts lo;
	memset(&lo, 0, sizeof(lo));
	lo.memory_limit = (size_t)256 << 20;
	rk_scene *s = rk_load_memory(data, size, &lo, &err);
	if (!s) return 0;
	const rk_anim_clip *walk = rk_scene_find_clip(fuzz_source, "Walk");
	rk_retarget_opts o;
	memset(&o, 0, sizeof(o));
	o.fps = 10.0;
	o.foot_ik = size % 2 == 0;
	rk_anim_clip *c = rk_retarget(s, fuzz_source, walk, &o, NULL, &err);
	if (c) fuzz_check_clip(c);
	else fuzz_expect_error(&err);
	for (size_t k = 0; k < s->clips.count && k < 4; k++) {
		rk_scene *avatar = rk_demo_scene(RK_DEMO_AVATAR, NULL, &err);
		if (!avatar) abort();
		const rk_anim_clip *sc = &s->clips.data[k];
		if (sc->time_end - sc->time_begin > 60.0) {
			rk_scene_free(avatar);
			continue;   /* keep runs short: a 60 s clip at 10 fps is plenty */
		}
		rk_anim_clip *d = rk_retarget(avatar, s, sc, &o, NULL, &err);
		if (d) fuzz_check_clip(d);
		else fuzz_expect_error(&err);
		rk_scene_free(avatar);
	}
	rk_compare_result cr;
	rk_compare_opts co;
	memset(&co, 0, sizeof(co));
	co.fps = 5.0;
	co.duration = 1.0;
	if (!rk_clip_compare(fuzz_source, walk, s, NULL, &co, &cr, &err)) fuzz_expect_error(&err);
	rk_scene_free(s);
	return 0;
}
