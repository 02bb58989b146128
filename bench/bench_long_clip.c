/*
 * bench/bench_long_clip.c - makes a long clip for the retargeting benchmark
 * out of a short one (no long humanoid clip is among the shared assets).
 *
 * usage: bench_long_clip IN CLIP FRAMES FPS OUT.glb
 *
 * Loads IN, keeps only its clip CLIP and repeats that clip's keys (every
 * sampler track; curve tracks are refused) end to end until the clip spans
 * (FRAMES - 1) / FPS seconds, so that retargeting it at FPS gives FRAMES
 * frames and its tracks hold FRAMES / (clip frames) times the keys. Writes
 * the scene as OUT.glb (rk_glb_write, defaults). The repeated walk is not a
 * seamless loop (a jump at every seam) - it only has to cost what a long
 * clip of real keys costs. scripts/bench.sh makes the 248- and 548-frame
 * clips of the retargeting section with it, for rigkit and three.js alike.
 */
#include "bench_common.h"

#include <rigkit/rigkit.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Track tr repeated over [0, span]: key times of copy c are t + c * period
 * (a copy's first key dropped when it falls on the previous copy's last). */
static bool tile_track(rk_anim_track *tr, double begin, double period, double span, double **tbuf, double **vbuf)
{
	size_t n = tr->key_count, per = tr->components * (tr->interpolation == RK_INTERP_CUBIC ? 3u : 1u);
	if (!n || !tr->times || !rk_track_has_values(tr) || !(period > 0.0)) return true;
	size_t copies = (size_t)ceil(span / period) + 1, cap = copies * n, count = 0;
	double *t = (double *)malloc(cap * sizeof(double)), *v = (double *)malloc(cap * per * sizeof(double));
	if (!t || !v) {
		free(t);
		free(v);
		return false;
	}
	for (size_t c = 0; c < copies; c++) {
		for (size_t k = 0; k < n; k++) {
			double time = tr->times[k] - begin + (double)c * period;
			if (count && time <= t[count - 1] + 1e-9) continue;
			if (time > span + 1e-9) break;
			t[count] = time;
			for (size_t q = 0; q < per; q++) v[count * per + q] = rk_track_value(tr, k * per + q);
			count++;
		}
	}
	tr->times = t;
	tr->values_f64 = v;
	tr->values_f32 = NULL;
	tr->key_count = count;
	*tbuf = t;
	*vbuf = v;
	return true;
}

int main(int argc, char **argv)
{
	if (argc != 6) {
		fprintf(stderr, "usage: bench_long_clip IN CLIP FRAMES FPS OUT.glb\n");
		return 2;
	}
	int frames = atoi(argv[3]);
	double fps = atof(argv[4]);
	if (frames < 2 || !(fps > 0.0)) {
		fprintf(stderr, "bench_long_clip: FRAMES >= 2 and FPS > 0\n");
		return 2;
	}
	rk_error err;
	rk_scene *s = rk_load_file(argv[1], NULL, &err);
	if (!s) {
		char buf[1024];
		rk_error_format(buf, sizeof(buf), &err);
		fprintf(stderr, "bench_long_clip: %s\n", buf);
		return 1;
	}
	rk_anim_clip *clip = rk_scene_find_clip(s, argv[2]);
	if (!clip) {
		fprintf(stderr, "bench_long_clip: %s: no clip '%s'\n", argv[1], argv[2]);
		rk_scene_free(s);
		return 1;
	}
	double period = clip->time_end - clip->time_begin, span = (double)(frames - 1) / fps;
	size_t tracks = 0;
	for (size_t l = 0; l < clip->layer_count; l++) tracks += clip->layers[l].track_count;
	double **bufs = (double **)calloc(2 * tracks + 1, sizeof(double *));
	int status = bufs ? 0 : 1;
	size_t used = 0;
	for (size_t l = 0; l < clip->layer_count && !status; l++) {
		rk_anim_layer *layer = (rk_anim_layer *)&clip->layers[l];
		for (size_t i = 0; i < layer->track_count && !status; i++) {
			rk_anim_track *tr = (rk_anim_track *)&layer->tracks[i];
			if (tr->curves[0] || tr->curves[1] || tr->curves[2] || tr->curves[3]) {
				fprintf(stderr, "bench_long_clip: %s: curve tracks are not repeated\n", argv[1]);
				status = 1;
			} else if (!tile_track(tr, clip->time_begin, period, span, &bufs[used], &bufs[used + 1])) {
				fprintf(stderr, "bench_long_clip: out of memory\n");
				status = 1;
			}
			used += 2;
		}
	}
	if (!status) {
		clip->time_begin = 0.0;
		clip->time_end = span;
		rk_anim_clip keep = *clip;
		s->clips.data[0] = keep;
		s->clips.data[0].index = 0;
		s->clips.count = 1;
		if (!rk_glb_write(s, argv[5], NULL, &err)) {
			char buf[1024];
			rk_error_format(buf, sizeof(buf), &err);
			fprintf(stderr, "bench_long_clip: %s\n", buf);
			status = 1;
		}
	}
	for (size_t i = 0; bufs && i < used; i++) free(bufs[i]);
	free(bufs);
	rk_scene_free(s);
	return status;
}
