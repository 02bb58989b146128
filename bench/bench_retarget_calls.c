/*
 * bench/bench_retarget_calls.c - a fixed number of rk_retarget calls, for
 * instruction counts (docs/benchmarks.md, "Retargeting: where the time
 * went", fourth pass):
 *
 *   valgrind --tool=callgrind --toggle-collect=rk_retarget \
 *     bench_retarget_calls SOURCE CLIP TARGET [CALLS]
 *
 * Loads SOURCE once, then CALLS times (default 2) loads TARGET, calls
 * rk_retarget with default options and no report, and frees the target.
 * CLIP "" = the source's first clip with tracks. Prints nothing on success;
 * instructions per call = callgrind's total / CALLS.
 */
#include <rigkit/rigkit.h>

#include <stdio.h>
#include <stdlib.h>

static const rk_anim_clip *first_clip(const rk_scene *s, const char *name)
{
	if (name && *name) return rk_scene_find_clip(s, name);
	for (size_t c = 0; c < s->clips.count; c++)
		for (size_t l = 0; l < s->clips.data[c].layer_count; l++)
			if (s->clips.data[c].layers[l].track_count) return &s->clips.data[c];
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc < 4) {
		fprintf(stderr, "usage: bench_retarget_calls SOURCE CLIP TARGET [CALLS]\n");
		return 2;
	}
	int calls = argc > 4 ? atoi(argv[4]) : 2;
	if (calls < 1 || calls > 1000) calls = 2;
	rk_error err;
	rk_scene *src = rk_load_file(argv[1], NULL, &err);
	if (!src) {
		fprintf(stderr, "bench_retarget_calls: cannot load %s\n", argv[1]);
		return 1;
	}
	const rk_anim_clip *clip = first_clip(src, argv[2]);
	int status = clip ? 0 : 1;
	if (!clip) fprintf(stderr, "bench_retarget_calls: %s: no clip '%s'\n", argv[1], argv[2]);
	for (int i = 0; i < calls && status == 0; i++) {
		rk_scene *dst = rk_load_file(argv[3], NULL, &err);
		if (!dst || !rk_retarget(dst, src, clip, NULL, NULL, &err)) {
			fprintf(stderr, "bench_retarget_calls: %s onto %s failed\n", argv[1], argv[3]);
			status = 1;
		}
		rk_scene_free(dst);
	}
	rk_scene_free(src);
	return status;
}
