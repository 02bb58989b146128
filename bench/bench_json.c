/*
 * bench/bench_json.c - the JSON part of a glTF load: libcjson against
 * rigkit's own reader (src/formats/gltf/gltf_json_parse.c), on the same bytes.
 *
 * usage: bench_json [-n RUNS] FILE.glb|FILE.gltf...
 * Prints one line per file:
 *   "json FILE JSON_BYTES CJSON_SECONDS RIGKIT_SECONDS"
 * with the medians of RUNS (default 31) runs after one untimed run of each;
 * each parser's runs follow each other.
 * cJSON: cJSON_ParseWithLength + cJSON_Delete. rigkit: rki_json_parse into
 * a fresh arena + rki_arena_free, with the loader's default limits. Both
 * read the JSON chunk of a GLB (or the whole .gltf) from memory. The numbers
 * are quoted in gltf_json_parse.c and docs/benchmarks.md.
 */
#include "bench_common.h"

#include "formats/gltf/gltf_internal.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <string.h>

static unsigned char *bench_read(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	if (!f) return NULL;
	unsigned char *data = NULL;
	if (fseek(f, 0, SEEK_END) == 0) {
		long n = ftell(f);
		if (n >= 0 && fseek(f, 0, SEEK_SET) == 0 && (data = (unsigned char *)malloc((size_t)n + 1)) != NULL) {
			if (fread(data, 1, (size_t)n, f) != (size_t)n) {
				free(data);
				data = NULL;
			} else {
				*size = (size_t)n;
			}
		}
	}
	fclose(f);
	return data;
}

static double bench_cjson(const unsigned char *json, size_t size)
{
	double t0 = bench_now();
	cJSON *root = cJSON_ParseWithLength((const char *)json, size);
	cJSON_Delete(root);
	double t1 = bench_now();
	return root ? t1 - t0 : -1.0;
}

static double bench_rigkit(const unsigned char *json, size_t size)
{
	rki_alloc alloc;
	rki_arena arena;
	rki_json_doc doc;
	rki_json_error err;
	rki_alloc_init(&alloc, NULL, 0, 0);
	double t0 = bench_now();
	rki_arena_init(&arena, &alloc);
	bool ok = rki_json_parse(&doc, json, size, &arena, 256, (size_t)1 << 28, &err);
	rki_arena_free(&arena);
	double t1 = bench_now();
	if (!ok) fprintf(stderr, "bench_json: byte %zu: %s\n", err.offset, err.message);
	return ok ? t1 - t0 : -1.0;
}

int main(int argc, char **argv)
{
	int runs = 31, first = 1;
	if (argc > 2 && strcmp(argv[1], "-n") == 0) {
		runs = atoi(argv[2]);
		first = 3;
	}
	if (runs < 1 || runs > 1000) runs = 31;
	double *tc = (double *)malloc(sizeof(double) * (size_t)runs), *tr = (double *)malloc(sizeof(double) * (size_t)runs);
	if (!tc || !tr) return 1;
	int status = 0;
	for (int a = first; a < argc; a++) {
		size_t size = 0;
		unsigned char *data = bench_read(argv[a], &size);
		if (!data) {
			fprintf(stderr, "bench_json: cannot read %s\n", argv[a]);
			status = 1;
			continue;
		}
		const unsigned char *json = data;
		size_t json_size = size;
		if (size >= 20 && memcmp(data, "glTF", 4) == 0) {
			uint32_t n = (uint32_t)data[12] | (uint32_t)data[13] << 8 | (uint32_t)data[14] << 16 | (uint32_t)data[15] << 24;
			if (n > size - 20) {
				fprintf(stderr, "bench_json: %s: bad GLB JSON chunk\n", argv[a]);
				free(data);
				status = 1;
				continue;
			}
			json = data + 20;
			json_size = n;
		}
		if (bench_cjson(json, json_size) < 0.0 || bench_rigkit(json, json_size) < 0.0) {
			fprintf(stderr, "bench_json: %s: parse failed\n", argv[a]);
			free(data);
			status = 1;
			continue;
		}
		/* each parser's runs back to back (as a program loading files one
		 * after another would), the untimed first runs above warm the heap */
		for (int r = 0; r < runs; r++) tc[r] = bench_cjson(json, json_size);
		for (int r = 0; r < runs; r++) tr[r] = bench_rigkit(json, json_size);
		printf("json %s %zu %.6f %.6f\n", argv[a], json_size, bench_median(tc, runs), bench_median(tr, runs));
		fflush(stdout);
		free(data);
	}
	free(tc);
	free(tr);
	return status;
}
