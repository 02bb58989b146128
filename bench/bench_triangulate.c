/*
 * bench/bench_triangulate.c - rk_polygon_triangulate time against corner
 * count, for big simple polygons (star, comb, spiral band) and a non-simple
 * one (every edge crossing others), the shapes of tests/rk_polygons.h.
 *
 * usage: bench_triangulate [-n RUNS] [MAX_CORNERS]
 * Corner counts 1000, 4000, 16000, 69000 and 100000 (those <= MAX_CORNERS,
 * default 100000). Each case: RUNS (default 5, at least 3) timed calls, the
 * median reported. Prints one line per case:
 *   "triangulate SHAPE CORNERS MEDIAN_MS MEDIAN_CPU_MS FLAGS"
 * MEDIAN_MS is wall-clock time, MEDIAN_CPU_MS the thread's CPU time
 * (CLOCK_THREAD_CPUTIME_ID: meaningful on a loaded machine).
 * FLAGS are the RK_TRIANGULATE_* bits (1 = FALLBACK: expected only for the
 * tangle).
 */
#include "bench_common.h"

#include "../tests/rk_polygons.h"

#include <rigkit/mesh.h>

#include <stdio.h>
#include <string.h>
#include <time.h>

int main(int argc, char **argv)
{
	int runs = 5;
	size_t max_n = 100000;
	for (int a = 1; a < argc; a++) {
		if (strcmp(argv[a], "-n") == 0 && a + 1 < argc) runs = atoi(argv[++a]);
		else max_n = (size_t)strtoull(argv[a], NULL, 10);
	}
	if (runs < 3) runs = 3;
	if (runs > 1000) runs = 1000;
	static const size_t counts[] = { 1002, 4002, 16002, 69002, 100002 };
	static const char *shapes[] = { "star", "comb", "spiral", "tangle" };
	rk_vec3 *p = (rk_vec3 *)malloc(100002 * sizeof(rk_vec3));
	uint32_t *tri = (uint32_t *)malloc(3 * 100002 * sizeof(uint32_t));
	size_t scratch_size = rk_polygon_triangulate_scratch_size(100002);
	void *scratch = malloc(scratch_size);
	double *t = (double *)malloc(2 * (size_t)runs * sizeof(double));
	if (!p || !tri || !scratch || !t) return 1;
	for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++) {
		for (size_t c = 0; c < sizeof(counts) / sizeof(counts[0]); c++) {
			size_t n = counts[c];
			if (n > max_n + 2) continue;
			if (s == 0) rk_poly_star(p, n);
			else if (s == 1) rk_poly_comb(p, n);
			else if (s == 2) rk_poly_spiral(p, n, 20.0);
			else rk_poly_tangle(p, n - 1, (n - 1) / 3);
			size_t corners = s == 3 ? n - 1 : n;
			uint32_t flags = 0;
			for (int r = 0; r < runs; r++) {
				double t0 = bench_now(), c0 = bench_cpu_now();
				size_t k = rk_polygon_triangulate(tri, p, corners, NULL, corners, scratch, scratch_size, &flags);
				t[r] = bench_now() - t0;
				t[runs + r] = bench_cpu_now() - c0;
				if (k != corners - 2) {
					fprintf(stderr, "bench_triangulate: %s %zu: %zu triangles\n", shapes[s], corners, k);
					return 1;
				}
			}
			double wall = bench_median(t, runs), cpu = bench_median(t + runs, runs);
			printf("triangulate %s %zu %.3f %.3f %u\n", shapes[s], corners, 1e3 * wall, 1e3 * cpu, flags);
			fflush(stdout);
		}
	}
	free(p);
	free(tri);
	free(scratch);
	free(t);
	return 0;
}
