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
#include "bench_loader.h"

#include <rigkit/rigkit.h>

#include <stdio.h>
#include <string.h>

static void *peak_alloc(void *user, size_t size)
{
	void *p = malloc(size);
	if (p) bench_peak_add((bench_peak *)user, size);
	return p;
}

static void peak_free(void *user, void *ptr, size_t size)
{
	if (ptr) bench_peak_sub((bench_peak *)user, size);
	free(ptr);
}

/* ctx: the rk_load_opts of every load; a counter adds its allocator. */
static void *load_rigkit(void *ctx, const char *path, bench_peak *counter)
{
	rk_load_opts lo = *(const rk_load_opts *)ctx;
	if (counter) {
		lo.allocator.alloc = peak_alloc;
		lo.allocator.free = peak_free;
		lo.allocator.user = counter;
	}
	rk_error err;
	rk_scene *s = rk_load_file(path, &lo, &err);
	if (!s) {
		char buf[1024];
		rk_error_format(buf, sizeof(buf), &err);
		fprintf(stderr, "bench_load: %s\n", buf);
	}
	return s;
}

static void unload_rigkit(void *ctx, void *scene, bench_peak *counter)
{
	(void)ctx;
	(void)counter;
	rk_scene_free((rk_scene *)scene);
}

int main(int argc, char **argv)
{
	bench_load_flags fl;
	int first = bench_load_parse(argc, argv, &fl);
	rk_load_opts lo;
	memset(&lo, 0, sizeof(lo));
	lo.threads = fl.one_thread ? 1 : 0;
	bench_loader l = { "rigkit", load_rigkit, unload_rigkit, &lo };
	return bench_load_files(&l, &fl, first, argc, argv);
}
