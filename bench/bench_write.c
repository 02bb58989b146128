/*
 * bench/bench_write.c - GLB write time with rigkit.
 *
 * usage: bench_write [-n RUNS] FILE...
 * Loads each FILE once (FBX, glTF, GLB), then times rk_gltf_write_memory()
 * (the whole GLB built in memory; no disk I/O). Prints one line per file:
 * "rigkit-write FILE GLB_BYTES MEDIAN_SECONDS MB_PER_S" (MB of GLB output).
 */
#include "bench_common.h"

#include <rigkit/rigkit.h>

#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
	int runs = 9, first = 1;
	if (argc > 2 && strcmp(argv[1], "-n") == 0) {
		runs = atoi(argv[2]);
		first = 3;
	}
	if (runs < 1 || runs > 1000) runs = 9;
	double *t = (double *)malloc(sizeof(double) * (size_t)runs);
	if (!t) return 1;
	int status = 0;
	for (int a = first; a < argc; a++) {
		rk_error err;
		rk_scene *s = rk_load_file(argv[a], NULL, &err);
		if (!s) {
			char buf[1024];
			rk_error_format(buf, sizeof(buf), &err);
			fprintf(stderr, "bench_write: %s\n", buf);
			status = 1;
			continue;
		}
		size_t bytes = 0;
		for (int r = -1; r < runs; r++) {
			void *data = NULL;
			size_t size = 0;
			double t0 = bench_now();
			bool ok = rk_gltf_write_memory(s, NULL, &data, &size, &err);
			double t1 = bench_now();
			rk_gltf_memory_free(data);
			if (!ok) {
				fprintf(stderr, "bench_write: %s: %s\n", argv[a], err.message);
				status = 1;
				break;
			}
			bytes = size;
			if (r >= 0) t[r] = t1 - t0; /* run -1 warms caches */
		}
		double med = bench_median(t, runs);
		printf("rigkit-write %s %zu %.6f %.1f\n", argv[a], bytes, med, (double)bytes / med / 1e6);
		fflush(stdout);
		rk_scene_free(s);
	}
	free(t);
	return status;
}
