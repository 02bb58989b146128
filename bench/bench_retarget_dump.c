/*
 * bench/bench_retarget_dump.c - every key value of an rk_retarget result, for
 * comparing two builds of the retargeter (bench/retarget_identity.sh).
 *
 * usage: bench_retarget_dump SOURCE CLIP TARGET [OPTS]
 *
 * CLIP "" = the source's first clip; OPTS holds 'i' (foot IK) and / or 'p'
 * (root in place). Prints the report ("report FRAMES BONES TRACKS
 * MAX_DIRECTION_ERROR MAX_FOOT_MISS"), then per track "track INDEX NODE
 * TARGET KEYS" and its values, one per line, with 17 significant digits.
 * Only the public API: it builds against any rigkit commit.
 */
#include <rigkit/rigkit.h>
#include <stdio.h>
#include <string.h>

#ifndef RK_SCENE_TYPED_VALUES
/* a commit from before tracks kept the file's precision: doubles only */
#define rk_track_value(t, k) ((t)->values[k])
#endif

int main(int argc, char **argv)
{
	rk_error err;
	if (argc < 4) {
		fprintf(stderr, "usage: bench_retarget_dump SOURCE CLIP TARGET [OPTS]\n");
		return 2;
	}
	rk_scene *src = rk_load_file(argv[1], NULL, &err), *dst = rk_load_file(argv[3], NULL, &err);
	if (!src || !dst) {
		fprintf(stderr, "bench_retarget_dump: %s\n", err.message);
		return 1;
	}
	const rk_anim_clip *clip = argv[2][0] ? rk_scene_find_clip(src, argv[2]) : src->clips.count ? &src->clips.data[0] : NULL;
	rk_retarget_opts o;
	memset(&o, 0, sizeof(o));
	if (argc > 4) o.foot_ik = strchr(argv[4], 'i') != NULL;
	if (argc > 4 && strchr(argv[4], 'p')) o.root = RK_RETARGET_ROOT_IN_PLACE;
	rk_retarget_report rep;
	const rk_anim_clip *c = clip ? rk_retarget(dst, src, clip, &o, &rep, &err) : NULL;
	if (!c) {
		fprintf(stderr, "bench_retarget_dump: %s\n", clip ? err.message : "no such clip");
		rk_scene_free(src);
		rk_scene_free(dst);
		return 1;
	}
	printf("report %zu %zu %zu %.17g %.17g\n", rep.frames, rep.mapped_bones, rep.tracks, rep.max_direction_error, rep.max_foot_miss);
	const rk_anim_layer *l = &c->layers[0];
	for (size_t t = 0; t < l->track_count; t++) {
		const rk_anim_track *tr = &l->tracks[t];
		printf("track %zu %s %d %zu\n", t, tr->node->name, (int)tr->target, tr->key_count);
		for (size_t k = 0; k < tr->key_count * tr->components; k++) printf("%.17g\n", rk_track_value(tr, k));
	}
	rk_scene_free(src);
	rk_scene_free(dst);
	return 0;
}
