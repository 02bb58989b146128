/*
 * bench/peer_ufbx_load.c - the ufbx peer of bench_load: loads FBX files
 * with ufbx (https://github.com/ufbx/ufbx) and prints the same line as
 * bench_load -c: "ufbx FILE BYTES MEDIAN_SECONDS MB_PER_S [PEAK_BYTES]".
 *
 * ufbx is not part of rigkit and is not in the repository: scripts/bench.sh
 * compiles this file against ufbx.c / ufbx.h from the folder named by
 * RIGKIT_PEER_UFBX (a checkout of ufbx made outside the repository) and
 * skips the ufbx rows without it. Default ufbx_load_opts (one thread), the
 * process's CPU time, median of RUNS loads after one untimed load; -m adds
 * the peak of the bytes ufbx holds through its allocator during one load
 * (result and temporary allocators both counted).
 *
 * usage: peer_ufbx_load [-n RUNS] [-m] FILE...
 */
#include "bench_loader.h"

#include "ufbx.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *count_alloc(void *user, size_t size)
{
	void *p = malloc(size);
	if (p) bench_peak_add((bench_peak *)user, size);
	return p;
}

static void *count_realloc(void *user, void *old_ptr, size_t old_size, size_t new_size)
{
	void *p = realloc(old_ptr, new_size);
	if (p) {
		bench_peak_sub((bench_peak *)user, old_size);
		bench_peak_add((bench_peak *)user, new_size);
	}
	return p;
}

static void count_free(void *user, void *ptr, size_t size)
{
	if (ptr) bench_peak_sub((bench_peak *)user, size);
	free(ptr);
}

static void *load_ufbx(void *ctx, const char *path, bench_peak *counter)
{
	(void)ctx;
	ufbx_load_opts opts;
	memset(&opts, 0, sizeof(opts));
	if (counter) {
		ufbx_allocator al = { count_alloc, count_realloc, count_free, NULL, counter };
		opts.temp_allocator.allocator = al;
		opts.result_allocator.allocator = al;
	}
	ufbx_error err;
	ufbx_scene *s = ufbx_load_file(path, &opts, &err);
	if (!s) fprintf(stderr, "peer_ufbx_load: %s: %s\n", path, err.description.data);
	return s;
}

static void unload_ufbx(void *ctx, void *scene, bench_peak *counter)
{
	(void)ctx;
	(void)counter;
	ufbx_free_scene((ufbx_scene *)scene);
}

int main(int argc, char **argv)
{
	bench_load_flags fl;
	int first = bench_load_parse(argc, argv, &fl);
	fl.cpu = true;
	bench_loader l = { "ufbx", load_ufbx, unload_ufbx, NULL };
	return bench_load_files(&l, &fl, first, argc, argv);
}
