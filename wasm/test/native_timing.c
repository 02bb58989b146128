/*
 * wasm/test/native_timing.c - the native side of docs/wasm.md's timing
 * table: the same rkw_* calls wasm/test/wasm_check.mjs times in node,
 * compiled natively, so both columns measure the same work (load from
 * memory, retarget, GLB write into memory; no process start, no file I/O).
 *
 *   cc -O2 -std=c11 -D_POSIX_C_SOURCE=200809L -Iwasm -Iinclude wasm/test/native_timing.c \
 *      wasm/rigkit_wasm.c build/librigkit.a $(pkg-config --libs libdeflate) -lmeshoptimizer \
 *      -lstdc++ -lm -lpthread -o build/native_timing
 *   build/native_timing RUNS                               the sample Walk onto the sample avatar
 *   build/native_timing RUNS SOURCE TARGET CLIP            files
 *
 * Prints the medians of RUNS runs (at most 101) in milliseconds.
 */
#include "rigkit_wasm.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define MAX_RUNS 101

static double now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static unsigned char *read_all(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	if (!f) return NULL;
	unsigned char *data = NULL;
	long n = -1;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0) {
		data = (unsigned char *)malloc((size_t)n + 1);
		if (data && fread(data, 1, (size_t)n, f) != (size_t)n) {
			free(data);
			data = NULL;
		}
	}
	fclose(f);
	*size = n > 0 ? (size_t)n : 0;
	return data;
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), by_value);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int main(int argc, char **argv)
{
	if (argc != 2 && argc != 5) {
		fprintf(stderr, "usage: native_timing RUNS [SOURCE TARGET CLIP]\n");
		return 2;
	}
	int runs = atoi(argv[1]);
	if (runs < 1 || runs > MAX_RUNS) runs = runs < 1 ? 1 : MAX_RUNS;
	bool sample = argc == 2;
	size_t source_size = 0, target_size = 0;
	unsigned char *source_bytes = NULL, *target_bytes = NULL;
	if (!sample) {
		source_bytes = read_all(argv[2], &source_size);
		target_bytes = read_all(argv[3], &target_size);
		if (!source_bytes || !target_bytes) {
			fprintf(stderr, "native_timing: cannot read %s\n", source_bytes ? argv[3] : argv[2]);
			return 2;
		}
	}
	const char *clip = sample ? "Walk" : argv[4];
	rkw_status *st = rkw_status_create();
	double load[MAX_RUNS], work[MAX_RUNS], write[MAX_RUNS], total[MAX_RUNS];
	int rc = 0;
	for (int i = 0; i < runs && rc == 0; i++) {
		double a = now_ms();
		rk_scene *s = sample ? rkw_sample(0, st) : rkw_load(source_bytes, source_size, argv[2], st);
		rk_scene *t = s ? (sample ? rkw_sample(1, st) : rkw_load(target_bytes, target_size, argv[3], st)) : NULL;
		double b = now_ms();
		char *report = t ? rkw_retarget_clip(t, s, clip, 0, 0, NULL, 0, st) : NULL;
		double c = now_ms();
		size_t glb_size = 0;
		uint8_t *glb = report ? rkw_write_glb(t, &glb_size, st) : NULL;
		double e = now_ms();
		if (!glb) {
			fprintf(stderr, "native_timing: %s\n", rkw_status_text(st));
			rc = 1;
		}
		rkw_free_glb(glb);
		rkw_free_bytes(report);
		rkw_free(s);
		rkw_free(t);
		load[i] = b - a;
		work[i] = c - b;
		write[i] = e - c;
		total[i] = e - a;
	}
	if (rc == 0)
		printf("native %s: load %.2f ms, retarget %.2f ms, GLB write %.2f ms, total %.2f ms (medians of %d)\n",
			sample ? "sample Walk" : clip, median(load, runs), median(work, runs), median(write, runs),
			median(total, runs), runs);
	rkw_status_destroy(st);
	free(source_bytes);
	free(target_bytes);
	return rc;
}
