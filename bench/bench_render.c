/*
 * bench/bench_render.c - rk_render() (rigkit/render.h) on fixed inputs.
 *
 * usage: bench_render [-n RUNS]
 *   RUNS (default 15) timed renders per row; the median is reported, with
 *   the fastest and slowest. Rows are sampled round-robin (a, b, c, a, ...)
 *   so drift hits them alike. One untimed warm-up render per row first.
 *
 * Rows (512 x 512 unless noted, default options = Lambert, auto framing):
 *   sample       the Mixamo-style sample character (rigkit/demo.h), Walk
 *                at 0.5 s: 4.9k triangles, skinned
 *   sample+      the same with --texture, --skeleton, 2x2 supersampling
 *   sample 1024  1024 x 1024
 *   xbot         shared assets/Xbot.glb, its first clip at 0.5 s (49k
 *                triangles, skinned, two meshes), when present
 *   xbot pose    rk_render_bounds() on Xbot: the pose job plus the skinned
 *                positions, the part of a render that is the reference
 *                deformation (normals cost more, see docs/render.md)
 */
#include "bench_common.h"

#include <rigkit/render.h>
#include <rigkit/rigkit.h>
#include <rigkit/demo.h>

#include <stdio.h>
#include <string.h>

#ifndef RK_SHARED_DIR
#define RK_SHARED_DIR "../shared"
#endif

typedef struct bench_row {
	const char *name;
	const rk_scene *scene;
	const rk_anim_clip *clip;
	double time;
	rk_render_opts opts;
	bool bounds_only;
	double *samples;
	unsigned char *px;
	size_t triangles;
} bench_row;

static bool bench_run(bench_row *r)
{
	rk_error err;
	if (r->bounds_only) {
		rk_vec3 mn, mx;
		return rk_render_bounds(r->scene, r->clip, r->time, &r->opts, &mn, &mx, &err);
	}
	rk_render_stats st;
	r->opts.stats = &st;
	bool ok = rk_render(r->scene, r->clip, r->time, &r->opts, r->px, 0, &err);
	r->triangles = st.triangles;
	if (!ok) {
		char buf[1024];
		rk_error_format(buf, sizeof(buf), &err);
		fprintf(stderr, "%s: %s\n", r->name, buf);
	}
	return ok;
}

int main(int argc, char **argv)
{
	int runs = 15;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-n") && i + 1 < argc) runs = atoi(argv[++i]);
	}
	if (runs < 3) runs = 3;
	rk_error err;
	rk_scene *sample = rk_demo_scene(RK_DEMO_MIXAMO_SOURCE, NULL, &err);
	if (!sample) return 1;
	char path[4096];
	snprintf(path, sizeof(path), "%s/assets/Xbot.glb", RK_SHARED_DIR);
	rk_scene *xbot = rk_load_file(path, NULL, &err);
	if (!xbot) fprintf(stderr, "(%s not loaded: xbot rows skipped)\n", path);

	bench_row rows[5];
	int count = 0;
	memset(rows, 0, sizeof(rows));
	rows[count++] = (bench_row){ .name = "sample", .scene = sample, .clip = rk_scene_find_clip(sample, "Walk"), .time = 0.5 };
	rows[count] = rows[0];
	rows[count].name = "sample+";
	rows[count].opts.textures = rows[count].opts.skeleton = true;
	rows[count++].opts.supersample = 2;
	rows[count] = rows[0];
	rows[count].name = "sample 1024";
	rows[count].opts.width = rows[count].opts.height = 1024;
	count++;
	if (xbot) {
		const rk_anim_clip *c = xbot->clips.count ? &xbot->clips.data[0] : NULL;
		rows[count++] = (bench_row){ .name = "xbot", .scene = xbot, .clip = c, .time = 0.5 };
		rows[count++] = (bench_row){ .name = "xbot pose", .scene = xbot, .clip = c, .time = 0.5, .bounds_only = true };
	}
	for (int i = 0; i < count; i++) {
		rows[i].samples = (double *)calloc((size_t)runs, sizeof(double));
		size_t bytes = rk_render_size(&rows[i].opts, NULL, NULL, &err);
		rows[i].px = (unsigned char *)malloc(bytes);
		if (!rows[i].samples || !rows[i].px || !bench_run(&rows[i])) return 1;
	}
	for (int k = 0; k < runs; k++) {
		for (int i = 0; i < count; i++) {
			double t0 = bench_now();
			if (!bench_run(&rows[i])) return 1;
			rows[i].samples[k] = bench_now() - t0;
		}
	}
	printf("%-12s %10s %10s %10s %10s\n", "row", "median ms", "min ms", "max ms", "triangles");
	for (int i = 0; i < count; i++) {
		double mn = rows[i].samples[0], mx = rows[i].samples[0];
		for (int k = 1; k < runs; k++) {
			if (rows[i].samples[k] < mn) mn = rows[i].samples[k];
			if (rows[i].samples[k] > mx) mx = rows[i].samples[k];
		}
		double med = bench_median(rows[i].samples, runs);
		printf("%-12s %10.2f %10.2f %10.2f %10zu\n", rows[i].name, med * 1e3, mn * 1e3, mx * 1e3, rows[i].triangles);
		free(rows[i].samples);
		free(rows[i].px);
	}
	rk_scene_free(xbot);
	rk_scene_free(sample);
	return 0;
}
