/*
 * bench/bench_load.c - load time of scene files with rigkit.
 *
 * usage: bench_load [-n RUNS] [-1] [-c] FILE...
 * Prints one line per file: "rigkit FILE BYTES MEDIAN_SECONDS MB_PER_S".
 * -1: one thread (rk_load_opts.threads = 1: no helper threads for FBX
 * array decoding); -c: the process's CPU time instead of wall time (every
 * thread; what a loaded, shared machine still measures reliably); -m: also
 * the peak of the bytes the load holds through rk_load_opts.allocator
 * (scene arena and temporaries, one load), printed as a sixth column.
 * Each run reads the file from disk (page cache warm after the first
 * untimed run) and builds the whole scene; the median of RUNS (default 9)
 * is reported. scripts/bench.sh runs this beside the Assimp peer.
 */
#include "bench_common.h"

#include <rigkit/rigkit.h>

#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

typedef struct peak_counter { size_t now, peak; } peak_counter;

static void *peak_alloc(void *user, size_t size)
{
	peak_counter *c = (peak_counter *)user;
	void *p = malloc(size);
	if (p) {
		c->now += size;
		if (c->now > c->peak) c->peak = c->now;
	}
	return p;
}

static void peak_free(void *user, void *ptr, size_t size)
{
	peak_counter *c = (peak_counter *)user;
	if (ptr) c->now -= size;
	free(ptr);
}

int main(int argc, char **argv)
{
	int runs = 9;
	int first = 1;
	bool one_thread = false, cpu = false, peak = false;
	for (;;) {
		if (argc > first + 1 && strcmp(argv[first], "-n") == 0) {
			runs = atoi(argv[first + 1]);
			first += 2;
		} else if (argc > first && strcmp(argv[first], "-1") == 0) {
			one_thread = true;
			first++;
		} else if (argc > first && strcmp(argv[first], "-c") == 0) {
			cpu = true;
			first++;
		} else if (argc > first && strcmp(argv[first], "-m") == 0) {
			peak = true;
			first++;
		} else {
			break;
		}
	}
	rk_load_opts lo;
	memset(&lo, 0, sizeof(lo));
	lo.threads = one_thread ? 1 : 0;
	if (runs < 1 || runs > 1000) runs = 9;
	double *t = (double *)malloc(sizeof(double) * (size_t)runs);
	if (!t) return 1;
	int status = 0;
	for (int a = first; a < argc; a++) {
		struct stat st;
		if (stat(argv[a], &st) != 0) {
			fprintf(stderr, "bench_load: cannot stat %s\n", argv[a]);
			status = 1;
			continue;
		}
		rk_error err;
		rk_scene *warm = rk_load_file(argv[a], &lo, &err);
		if (!warm) {
			char buf[1024];
			rk_error_format(buf, sizeof(buf), &err);
			fprintf(stderr, "bench_load: %s\n", buf);
			status = 1;
			continue;
		}
		rk_scene_free(warm);
		for (int r = 0; r < runs; r++) {
			double t0 = cpu ? bench_proc_cpu_now() : bench_now();
			rk_scene *s = rk_load_file(argv[a], &lo, &err);
			double t1 = cpu ? bench_proc_cpu_now() : bench_now();
			rk_scene_free(s);
			t[r] = t1 - t0;
		}
		double med = bench_median(t, runs);
		printf("rigkit %s %lld %.6f %.1f", argv[a], (long long)st.st_size, med, (double)st.st_size / med / 1e6);
		if (peak) {
			peak_counter pc = { 0, 0 };
			rk_load_opts po = lo;
			po.allocator.alloc = peak_alloc;
			po.allocator.free = peak_free;
			po.allocator.user = &pc;
			rk_scene *s = rk_load_file(argv[a], &po, &err);
			printf(" %zu", s ? pc.peak : (size_t)0);
			rk_scene_free(s);
		}
		printf("\n");
		fflush(stdout);
	}
	free(t);
	return status;
}
