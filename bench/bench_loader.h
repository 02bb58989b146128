/* bench/bench_loader.h - what the load benches share (bench_load.c and the
 * peers peer_ufbx_load.c, peer_cgltf_load.c): their flags, a counter of the
 * bytes held at the peak, and the result line scripts/bench.sh reads:
 * "WHO FILE BYTES MEDIAN_SECONDS MB_PER_S" (+ " PEAK_BYTES" with -m). */
#ifndef RIGKIT_BENCH_LOADER_H
#define RIGKIT_BENCH_LOADER_H

#include "bench_common.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

typedef struct bench_load_flags {
	int runs;        /* -n RUNS, default 9 (1..1000) */
	bool one_thread; /* -1 */
	bool cpu;        /* -c: process CPU time instead of wall time */
	bool peak;       /* -m: print the peak bytes of one more load */
} bench_load_flags;

/* Parses the leading flags; returns the index of the first file argument. */
static inline int bench_load_parse(int argc, char **argv, bench_load_flags *f)
{
	int first = 1;
	f->runs = 9;
	f->one_thread = f->cpu = f->peak = false;
	for (;;) {
		if (argc > first + 1 && strcmp(argv[first], "-n") == 0) {
			f->runs = atoi(argv[first + 1]);
			first += 2;
		} else if (argc > first && strcmp(argv[first], "-1") == 0) {
			f->one_thread = true;
			first++;
		} else if (argc > first && strcmp(argv[first], "-c") == 0) {
			f->cpu = true;
			first++;
		} else if (argc > first && strcmp(argv[first], "-m") == 0) {
			f->peak = true;
			first++;
		} else {
			break;
		}
	}
	if (f->runs < 1 || f->runs > 1000) f->runs = 9;
	return first;
}

/* Bytes held now and at the peak, counted by the benches' allocators. */
typedef struct bench_peak { size_t now, peak; } bench_peak;

static inline void bench_peak_add(bench_peak *c, size_t n)
{
	c->now += n;
	if (c->now > c->peak) c->peak = c->now;
}

static inline void bench_peak_sub(bench_peak *c, size_t n) { c->now -= n; }

/* One loader under test: load(ctx, path, counter) returns the loaded
 * result (NULL on failure, after printing why to stderr), counting the
 * bytes it holds in `counter` when that is not NULL; unload frees it (with
 * the same counter). */
typedef struct bench_loader {
	const char *who;                         /* first word of the result line */
	void *(*load)(void *ctx, const char *path, bench_peak *counter);
	void (*unload)(void *ctx, void *result, bench_peak *counter);
	void *ctx;
} bench_loader;

/* The benches' main: for each FILE, one untimed load, then the median time
 * of fl->runs loads (each unloaded untimed), then with -m one more load's
 * peak bytes. Returns the exit status (1 if a file failed). */
static inline int bench_load_files(const bench_loader *l, const bench_load_flags *fl, int first, int argc, char **argv)
{
	double *t = (double *)malloc(sizeof(double) * (size_t)fl->runs);
	if (!t) return 1;
	int status = 0;
	for (int a = first; a < argc; a++) {
		struct stat st;
		void *warm = stat(argv[a], &st) == 0 ? l->load(l->ctx, argv[a], NULL) : NULL;
		if (!warm) {
			fprintf(stderr, "%s: cannot load %s\n", l->who, argv[a]);
			status = 1;
			continue;
		}
		l->unload(l->ctx, warm, NULL);
		for (int r = 0; r < fl->runs; r++) {
			double t0 = fl->cpu ? bench_proc_cpu_now() : bench_now();
			void *s = l->load(l->ctx, argv[a], NULL);
			double t1 = fl->cpu ? bench_proc_cpu_now() : bench_now();
			if (s) l->unload(l->ctx, s, NULL);
			t[r] = t1 - t0;
		}
		double med = bench_median(t, fl->runs);
		printf("%s %s %lld %.6f %.1f", l->who, argv[a], (long long)st.st_size, med, (double)st.st_size / med / 1e6);
		if (fl->peak) {
			bench_peak pc = { 0, 0 };
			void *s = l->load(l->ctx, argv[a], &pc);
			printf(" %zu", s ? pc.peak : (size_t)0);
			if (s) l->unload(l->ctx, s, &pc);
		}
		printf("\n");
		fflush(stdout);
	}
	free(t);
	return status;
}

#endif
