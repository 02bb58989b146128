/*
 * bench/bench_mesh.c - time to expand every mesh node of a scene into GPU
 * vertex/index buffers (rk_mesh_expansion_build, default options).
 *
 * usage: bench_mesh [-n RUNS] [--optimize] [FILE]
 * FILE defaults to RK_SHARED_DIR/assets/ybot.fbx. The file is loaded once
 * (not timed); one untimed warm-up expansion, then RUNS (default 15, at
 * least 9) timed rk_mesh_expansion_build() calls (their allocations included, the
 * rk_mesh_expansion_free() after each not). The median is reported.
 * Prints one line:
 *   "rigkit-mesh FILE NODES VERTICES TRIANGLES MEDIAN_MS MEDIAN_CPU_MS"
 * MEDIAN_MS is wall-clock time; MEDIAN_CPU_MS the calling thread's CPU time
 * (CLOCK_THREAD_CPUTIME_ID), which stays meaningful on a loaded machine.
 */
#include "bench_common.h"

#include <rigkit/rigkit.h>
#include <rigkit/mesh.h>

#include <stdio.h>
#include <string.h>
#include <time.h>

int main(int argc, char **argv)
{
	int runs = 15;
	bool optimize = false;
	const char *path = NULL;
	static char default_path[4096];
	for (int a = 1; a < argc; a++) {
		if (strcmp(argv[a], "-n") == 0 && a + 1 < argc) runs = atoi(argv[++a]);
		else if (strcmp(argv[a], "--optimize") == 0) optimize = true;
		else path = argv[a];
	}
	if (runs < 9) runs = 9;
	if (runs > 10000) runs = 10000;
	if (!path) {
		snprintf(default_path, sizeof(default_path), "%s/assets/ybot.fbx", RK_SHARED_DIR);
		path = default_path;
	}
	rk_error err;
	rk_scene *scene = rk_load_file(path, NULL, &err);
	if (!scene) {
		char buf[1024];
		rk_error_format(buf, sizeof(buf), &err);
		fprintf(stderr, "bench_mesh: %s\n", buf);
		return 1;
	}
	rk_mesh_opts opts = { 0 };
	opts.optimize = optimize;
	rk_mesh_expansion *x = rk_mesh_expansion_build(scene, &opts, &err);
	if (!x) {
		char buf[1024];
		rk_error_format(buf, sizeof(buf), &err);
		fprintf(stderr, "bench_mesh: %s\n", buf);
		rk_scene_free(scene);
		return 1;
	}
	size_t nodes = x->draw_count, vertices = x->vertex_count, triangles = x->index_count / 3;
	rk_mesh_expansion_free(x);
	double *t = (double *)malloc(sizeof(double) * (size_t)runs * 2);
	if (!t) return 1;
	double *cpu = t + runs;
	for (int r = 0; r < runs; r++) {
		double t0 = bench_now(), c0 = bench_cpu_now();
		x = rk_mesh_expansion_build(scene, &opts, &err);
		double t1 = bench_now(), c1 = bench_cpu_now();
		cpu[r] = c1 - c0;
		if (!x) {
			fprintf(stderr, "bench_mesh: expansion failed on run %d\n", r);
			free(t);
			rk_scene_free(scene);
			return 1;
		}
		rk_mesh_expansion_free(x);
		t[r] = t1 - t0;
	}
	double med = bench_median(t, runs), med_cpu = bench_median(cpu, runs);
	printf("rigkit-mesh%s %s %zu %zu %zu %.3f %.3f\n", optimize ? "-optimize" : "", path, nodes, vertices, triangles,
		med * 1e3, med_cpu * 1e3);
	free(t);
	rk_scene_free(scene);
	return 0;
}
