/* tools/rigkit/batch_merge.c - `rigkit batch --merge-reports R1.json R2.json
 * ... [-o summary.json]`: the --report files of the shards of one job list
 * into one summary (docs/batch.md "Merging reports").
 *
 * Each report is a `rigkit batch --json` document. The reports must come
 * from one job list (same "jobs_digest", "jobs_total" and shard count).
 * The summary counts the jobs by status, lists every failure with its job,
 * sums the timings, gives the quality numbers (worst bone direction error,
 * mapped bones, frames), and finds jobs reported twice (duplicates: two
 * shards ran one job) and jobs reported by no shard (missing: a shard's
 * report is absent or it did not finish). Everything but "reports" and
 * "timings" depends only on what the jobs did, not on how they were split
 * into shards: the outputs and failures are sorted by job id.
 */
#include "batch.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define CLI_BATCH_REPORT_MAX ((size_t)1 << 30)

typedef struct cli_merge_job {
	const char *id;
	const cJSON *entry;              /* the report's "outputs" element */
	const cJSON *quality;            /* where the numbers are: entry, or its "previous" when up to date */
	size_t report;                   /* which report */
} cli_merge_job;

static int cli_merge_job_cmp(const void *a, const void *b)
{
	const cli_merge_job *x = (const cli_merge_job *)a, *y = (const cli_merge_job *)b;
	int c = strcmp(x->id, y->id);
	return c ? c : (x->report > y->report) - (x->report < y->report);
}

static const char *cli_merge_str(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static double cli_merge_num(const cJSON *o, const char *key, double fallback)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	return cJSON_IsNumber(v) ? v->valuedouble : fallback;
}

/* A count member: a whole number in [0, 2^53], else `fallback` (never a
 * cast of an out-of-range double). */
static size_t cli_merge_count(const cJSON *o, const char *key, size_t fallback)
{
	double v = cli_merge_num(o, key, -1.0);
	if (!(v >= 0.0 && v <= 9007199254740992.0) || v != (double)(uint64_t)v) return fallback;
	return (size_t)v;
}

static size_t cli_merge_shard_count(const cJSON *doc)
{
	const cJSON *s = cJSON_GetObjectItemCaseSensitive(doc, "shard");
	return cJSON_IsObject(s) ? cli_merge_count(s, "count", 0) : 1;
}

static size_t cli_merge_shard_index(const cJSON *doc)
{
	const cJSON *s = cJSON_GetObjectItemCaseSensitive(doc, "shard");
	return cJSON_IsObject(s) ? cli_merge_count(s, "index", (size_t)-1) : 0;
}

/* Reads one report; NULL after printing "rigkit: FILE: ..." */
static cJSON *cli_merge_read(cli_ctx *ctx, const char *path)
{
	size_t n = 0;
	char *buf = cli_batch_read_text(path, CLI_BATCH_REPORT_MAX, &n);
	if (!buf) {
		if (errno == EFBIG) cli_fail(ctx, RK_ERROR_LIMIT, CLI_EXIT_INPUT, path, "report over %zu bytes", CLI_BATCH_REPORT_MAX);
		else cli_fail(ctx, RK_ERROR_IO, CLI_EXIT_INPUT, path, "cannot read the report (%s)", strerror(errno));
		return NULL;
	}
	const char *end = NULL;
	cJSON *doc = cJSON_ParseWithLengthOpts(buf, n, &end, false);
	if (!doc) {
		size_t at = end && end >= buf ? (size_t)(end - buf) : 0, line = 1;
		for (size_t i = 0; i < at && i < n; i++) line += buf[i] == '\n';
		free(buf);
		rk_error e;
		memset(&e, 0, sizeof(e));
		e.code = RK_ERROR_CORRUPT;
		e.description = rk_error_code_name(e.code);
		snprintf(e.file, sizeof(e.file), "%s", path);
		snprintf(e.message, sizeof(e.message), "not a JSON document");
		e.location = RK_LOCATION_LINE | RK_LOCATION_BYTE;
		e.line = line;
		e.byte_offset = at;
		cli_print_error(ctx, &e);
		return NULL;
	}
	free(buf);
	if (!cJSON_IsObject(doc) || !cli_merge_str(doc, "jobs_digest") ||
		!cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(doc, "outputs")) ||
		cli_merge_count(doc, "jobs_total", (size_t)-1) == (size_t)-1) {
		cJSON_Delete(doc);
		cli_fail(ctx, RK_ERROR_CORRUPT, CLI_EXIT_INPUT, path,
			"not a rigkit batch report (no \"jobs_digest\", \"jobs_total\" or \"outputs\"; write one with --report)");
		return NULL;
	}
	size_t shards = cli_merge_shard_count(doc), k = cli_merge_shard_index(doc);
	if (shards < 1 || shards > CLI_BATCH_MAX_SHARDS || k >= shards) {
		cJSON_Delete(doc);
		cli_fail(ctx, RK_ERROR_CORRUPT, CLI_EXIT_INPUT, path, "\"shard\" must be {\"index\": K, \"count\": N} with 0 <= K < N <= %d",
			CLI_BATCH_MAX_SHARDS);
		return NULL;
	}
	return doc;
}

int cli_batch_merge(cli_ctx *ctx, const char *const *paths, size_t count, const char *out)
{
	cJSON **docs = (cJSON **)cli_batch_alloc(count, sizeof(cJSON *));
	int rc = CLI_EXIT_OK;
	for (size_t i = 0; i < count && !rc; i++)
		if (!(docs[i] = cli_merge_read(ctx, paths[i]))) rc = CLI_EXIT_INPUT;
	const char *digest = NULL;
	size_t total = 0, shards = 1;
	for (size_t i = 0; i < count && !rc; i++) {
		const char *d = cli_merge_str(docs[i], "jobs_digest");
		size_t t = cli_merge_count(docs[i], "jobs_total", 0), n = cli_merge_shard_count(docs[i]);
		if (!i) {
			digest = d;
			total = t;
			shards = n;
		} else if (strcmp(d, digest) || t != total || n != shards) {
			rc = cli_fail(ctx, RK_ERROR_INVALID_ARGUMENT, CLI_EXIT_INPUT, paths[i],
				"not a shard of the job list of %s (jobs_digest %s, %zu jobs, %zu shards; that one: %s, %zu, %zu)",
				paths[0], d, t, n, digest, total, shards);
		}
	}
	if (rc) {
		for (size_t i = 0; i < count; i++) cJSON_Delete(docs[i]);
		free(docs);
		return rc;
	}

	/* every job of every report, sorted by id */
	size_t jobs = 0;
	for (size_t i = 0; i < count; i++) jobs += (size_t)cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(docs[i], "outputs"));
	cli_merge_job *all = (cli_merge_job *)cli_batch_alloc(jobs, sizeof(*all));
	size_t n = 0;
	for (size_t i = 0; i < count; i++) {
		const cJSON *o;
		cJSON_ArrayForEach(o, cJSON_GetObjectItemCaseSensitive(docs[i], "outputs"))
		{
			const char *id = cli_merge_str(o, "id");
			if (!id) continue;
			const cJSON *prev = cJSON_GetObjectItemCaseSensitive(o, "previous");
			all[n++] = (cli_merge_job){ id, o, cJSON_IsObject(prev) ? prev : o, i };
		}
	}
	qsort(all, n, sizeof(*all), cli_merge_job_cmp);

	/* shards seen, twice, never */
	size_t *per_shard = (size_t *)cli_batch_alloc(shards, sizeof(size_t));
	for (size_t i = 0; i < count; i++) {
		size_t k = cli_merge_shard_index(docs[i]);
		if (k < shards) per_shard[k]++;
	}

	size_t distinct = 0, dups = 0, written = 0, up_to_date = 0, partial = 0, failed = 0, not_run = 0, clips = 0, frames = 0;
	size_t bones_min = 0, bones_max = 0, failures = 0;
	bool any_bones = false;
	double worst = 0.0, ms_sum = 0.0, ms_max = 0.0, wall_max = 0.0, wall_sum = 0.0;
	for (size_t k = 0; k < n; k++) {
		if (k && !strcmp(all[k].id, all[k - 1].id)) {
			dups++;
			continue;
		}
		distinct++;
		const char *st = cli_merge_str(all[k].entry, "status");
		st = st ? st : "";
		if (!strcmp(st, "written")) written++;
		else if (!strcmp(st, "up_to_date")) up_to_date++;
		else if (!strcmp(st, "partial")) partial++;
		else if (!strcmp(st, "not_run")) not_run++;
		else failed++;
		const cJSON *q = all[k].quality;
		if (!strcmp(st, "written") || !strcmp(st, "partial") || !strcmp(st, "up_to_date")) {
			clips += cli_merge_count(q, "clips_ok", 0);
			frames += cli_merge_count(q, "frames", 0);
			double w = cli_merge_num(q, "max_direction_error_deg", 0.0);
			if (w > worst) worst = w;
			if (cJSON_GetObjectItemCaseSensitive(q, "mapped_bones_min")) {
				size_t lo = cli_merge_count(q, "mapped_bones_min", 0), hi = cli_merge_count(q, "mapped_bones_max", 0);
				if (!any_bones || lo < bones_min) bones_min = lo;
				if (hi > bones_max) bones_max = hi;
				any_bones = true;
			}
		}
		double ms = cli_merge_num(all[k].entry, "ms", 0.0);
		ms_sum += ms;
		if (ms > ms_max) ms_max = ms;
		failures += (size_t)cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(all[k].entry, "failures"));
	}
	for (size_t i = 0; i < count; i++) {
		double w = cli_merge_num(cJSON_GetObjectItemCaseSensitive(docs[i], "summary"), "wall_s", 0.0);
		wall_sum += w;
		if (w > wall_max) wall_max = w;
	}
	size_t missing = total > distinct ? total - distinct : 0;
	size_t missing_shards = 0, duplicate_shards = 0;
	for (size_t k = 0; k < shards; k++) {
		missing_shards += per_shard[k] == 0;
		duplicate_shards += per_shard[k] > 1;
	}
	int exit_code = CLI_EXIT_OK;
	if (failed || partial || not_run || missing || dups || missing_shards || duplicate_shards) exit_code = CLI_EXIT_INPUT;

	cli_json j;
	cli_json_document(&j, ctx);
	cli_json_object(&j, NULL);
	cli_json_string(&j, "report", "rigkit batch merge");
	cli_json_string(&j, "version", rk_version());
	cli_json_string(&j, "jobs_digest", digest);
	cli_json_int(&j, "jobs_total", (long long)total);
	cli_json_int(&j, "shard_count", (long long)shards);
	cli_json_array(&j, "reports");
	for (size_t i = 0; i < count; i++) {
		const cJSON *sum = cJSON_GetObjectItemCaseSensitive(docs[i], "summary");
		cli_json_object(&j, NULL);
		cli_json_string(&j, "file", paths[i]);
		cli_json_int(&j, "shard", (long long)cli_merge_shard_index(docs[i]));
		cli_json_int(&j, "jobs", (long long)cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(docs[i], "outputs")));
		cli_json_number(&j, "wall_s", cli_merge_num(sum, "wall_s", 0.0));
		cli_json_int(&j, "exit_code", (long long)cli_merge_count(sum, "exit_code", 0));
		cli_json_close_object(&j);
	}
	cli_json_close_array(&j);
	cli_json_array(&j, "shards_missing");
	for (size_t k = 0; k < shards; k++)
		if (!per_shard[k]) cli_json_int(&j, NULL, (long long)k);
	cli_json_close_array(&j);
	cli_json_array(&j, "shards_repeated");
	for (size_t k = 0; k < shards; k++)
		if (per_shard[k] > 1) cli_json_int(&j, NULL, (long long)k);
	cli_json_close_array(&j);

	cli_json_object(&j, "summary");
	cli_json_int(&j, "jobs", (long long)distinct);
	cli_json_int(&j, "written", (long long)written);
	cli_json_int(&j, "up_to_date", (long long)up_to_date);
	cli_json_int(&j, "partial", (long long)partial);
	cli_json_int(&j, "failed", (long long)failed);
	cli_json_int(&j, "not_run", (long long)not_run);
	cli_json_int(&j, "missing", (long long)missing);
	cli_json_int(&j, "duplicates", (long long)dups);
	cli_json_int(&j, "failures", (long long)failures);
	cli_json_int(&j, "clips_retargeted", (long long)clips);
	cli_json_int(&j, "frames", (long long)frames);
	cli_json_int(&j, "mapped_bones_min", (long long)bones_min);
	cli_json_int(&j, "mapped_bones_max", (long long)bones_max);
	cli_json_number(&j, "max_direction_error_deg", worst);
	cli_json_int(&j, "exit_code", exit_code);
	cli_json_close_object(&j);

	cli_json_object(&j, "timings");
	cli_json_number(&j, "wall_s_max", wall_max);
	cli_json_number(&j, "wall_s_sum", wall_sum);
	cli_json_number(&j, "job_ms_sum", ms_sum);
	cli_json_number(&j, "job_ms_max", ms_max);
	cli_json_number(&j, "clips_per_s", wall_max > 0.0 ? (double)clips / wall_max : 0.0);
	cli_json_close_object(&j);

	cli_json_array(&j, "failures");
	for (size_t k = 0; k < n; k++) {
		if (k && !strcmp(all[k].id, all[k - 1].id)) continue;
		const cJSON *f;
		cJSON_ArrayForEach(f, cJSON_GetObjectItemCaseSensitive(all[k].entry, "failures"))
		{
			cli_json_object(&j, NULL);
			cli_json_string(&j, "id", all[k].id);
			cli_json_string(&j, "output", cli_merge_str(all[k].entry, "output"));
			cli_json_string(&j, "file", cli_merge_str(f, "file"));
			cli_json_string(&j, "stage", cli_merge_str(f, "stage"));
			cli_json_string(&j, "error", cli_merge_str(f, "error"));
			cli_json_int(&j, "exit_code", (long long)cli_merge_count(f, "exit_code", 0));
			cli_json_close_object(&j);
		}
	}
	cli_json_close_array(&j);

	cli_json_array(&j, "duplicates");
	for (size_t k = 1; k < n; k++) {
		if (strcmp(all[k].id, all[k - 1].id) || (k > 1 && !strcmp(all[k - 1].id, all[k - 2].id))) continue;
		cli_json_object(&j, NULL);
		cli_json_string(&j, "id", all[k].id);
		cli_json_array(&j, "reports");
		for (size_t m = k - 1; m < n && !strcmp(all[m].id, all[k].id); m++) cli_json_string(&j, NULL, paths[all[m].report]);
		cli_json_close_array(&j);
		cli_json_close_object(&j);
	}
	cli_json_close_array(&j);

	cli_json_array(&j, "outputs");
	for (size_t k = 0; k < n; k++) {
		if (k && !strcmp(all[k].id, all[k - 1].id)) continue;
		const cJSON *q = all[k].quality;
		cli_json_object(&j, NULL);
		cli_json_string(&j, "id", all[k].id);
		cli_json_string(&j, "output", cli_merge_str(all[k].entry, "output"));
		cli_json_string(&j, "status", cli_merge_str(all[k].entry, "status"));
		const char *st = cli_merge_str(q, "status");
		bool has = st && strcmp(st, "not_run") && strcmp(st, "up_to_date") && cJSON_GetObjectItemCaseSensitive(q, "clips_ok");
		if (has) {
			cli_json_int(&j, "clips_ok", (long long)cli_merge_count(q, "clips_ok", 0));
			cli_json_int(&j, "frames", (long long)cli_merge_count(q, "frames", 0));
			cli_json_number(&j, "max_direction_error_deg", cli_merge_num(q, "max_direction_error_deg", 0.0));
		}
		cli_json_close_object(&j);
	}
	cli_json_close_array(&j);
	cli_json_close_object(&j);

	int wrc = CLI_EXIT_OK;
	rk_error err;
	if (out && !cli_is_stdio(out) && !cli_batch_make_parent(out))
		wrc = cli_fail(ctx, RK_ERROR_OUTPUT, CLI_EXIT_OUTPUT, out, "cannot create the folder (%s)", strerror(errno));
	else if (out && !cli_is_stdio(out) && !cli_batch_json_save(&j, out, &err))
		wrc = cli_print_error(ctx, &err);
	if (ctx->json || (out && cli_is_stdio(out))) {
		int jrc = cli_json_end(&j);
		if (jrc > wrc) wrc = jrc;
	} else {
		rk_json_writer_free(&j.w);
	}
	if (!ctx->json && !(out && cli_is_stdio(out))) {
		printf("batch: merged %zu report%s of %zu shard%s: %zu of %zu jobs, %zu written, %zu up to date, %zu partial, "
			"%zu failed, %zu not run, %zu missing, %zu duplicate%s; %zu clips, max bone direction error %.2g deg\n",
			count, count == 1 ? "" : "s", shards, shards == 1 ? "" : "s", distinct, total, written, up_to_date, partial,
			failed, not_run, missing, dups, dups == 1 ? "" : "s", clips, worst);
		for (size_t k = 0; k < shards; k++)
			if (!per_shard[k]) fprintf(stderr, "rigkit: batch: no report for shard %zu/%zu\n", k, shards);
			else if (per_shard[k] > 1) fprintf(stderr, "rigkit: batch: %zu reports for shard %zu/%zu\n", per_shard[k], k, shards);
	}
	free(per_shard);
	free(all);
	for (size_t i = 0; i < count; i++) cJSON_Delete(docs[i]);
	free(docs);
	return wrc > exit_code ? wrc : exit_code;
}
