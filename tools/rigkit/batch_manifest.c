/* tools/rigkit/batch_manifest.c - `rigkit batch` manifests (JSON Lines, read
 * with cJSON), paths, stable hashes and the per-output sidecars (batch.h,
 * docs/batch.md "Manifest", "Sharding", "Resuming"). */
#include "batch.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

/* A manifest or a sidecar is read whole; more than this is refused. */
#define CLI_BATCH_MANIFEST_MAX ((size_t)1 << 30)
#define CLI_BATCH_SIDECAR_MAX ((size_t)16 << 20)

/* ---- memory ---------------------------------------------------------------- */

void cli_batch_out_of_memory(void)
{
	/* other threads may be running: report and leave at once */
	fputs("rigkit: batch: out of memory\n", stderr);
	fflush(stdout);
	_Exit(CLI_EXIT_INPUT);
}

void *cli_batch_alloc(size_t count, size_t size)
{
	void *p = calloc(count ? count : 1, size ? size : 1);
	if (!p) cli_batch_out_of_memory();
	return p;
}

char *cli_batch_strdup(const char *s)
{
	size_t n = strlen(s) + 1;
	char *p = (char *)cli_batch_alloc(n, 1);
	memcpy(p, s, n);
	return p;
}

char *cli_batch_format(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0) n = 0;
	char *p = (char *)cli_batch_alloc((size_t)n + 1, 1);
	va_start(ap, fmt);
	vsnprintf(p, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return p;
}

cli_batch_jobspec *cli_batch_specs_push(cli_batch_specs *s)
{
	if (s->count == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 16;
		cli_batch_jobspec *d = (cli_batch_jobspec *)realloc(s->data, cap * sizeof(*d));
		if (!d) cli_batch_out_of_memory();
		s->data = d;
		s->cap = cap;
	}
	cli_batch_jobspec *x = &s->data[s->count++];
	memset(x, 0, sizeof(*x));
	return x;
}

void cli_batch_specs_free(cli_batch_specs *s)
{
	for (size_t i = 0; i < s->count; i++) {
		cli_batch_jobspec *x = &s->data[i];
		for (size_t e = 0; e < x->entry_count; e++) {
			free(x->entries[e].source);
			free(x->entries[e].clip);
			free(x->entries[e].name);
		}
		free(x->entries);
		free(x->id);
		free(x->group);
		free(x->output);
		free(x->target);
	}
	free(s->data);
	memset(s, 0, sizeof(*s));
}

/* ---- hashing --------------------------------------------------------------- */

uint64_t cli_batch_fnv(uint64_t h, const void *data, size_t size)
{
	const unsigned char *p = (const unsigned char *)data;
	for (size_t i = 0; i < size; i++) h = (h ^ p[i]) * 1099511628211ull;
	return h;
}

uint64_t cli_batch_fnv_str(uint64_t h, const char *s)
{
	return cli_batch_fnv(h, s, strlen(s) + 1);
}

bool cli_batch_file_digest(const char *path, uint64_t *digest, uint64_t *size)
{
	FILE *f = fopen(path, "rb");
	if (!f) return false;
	unsigned char buf[1 << 16];
	uint64_t h = CLI_BATCH_FNV_OFFSET, n = 0;
	size_t got;
	while ((got = fread(buf, 1, sizeof(buf), f)) > 0) {
		h = cli_batch_fnv(h, buf, got);
		n += got;
	}
	bool ok = !ferror(f);
	fclose(f);
	*digest = h;
	*size = n;
	return ok;
}

size_t cli_batch_shard_of(const char *id, size_t count)
{
	return (size_t)(cli_batch_fnv(CLI_BATCH_FNV_OFFSET, id, strlen(id)) % (uint64_t)count);
}

static bool cli_batch_parse_size(const char *s, size_t len, size_t *out)
{
	if (len == 0 || len > 7) return false;
	size_t v = 0;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9') return false;
		v = v * 10 + (size_t)(s[i] - '0');
	}
	*out = v;
	return true;
}

bool cli_batch_parse_shard(const char *text, size_t *index, size_t *count)
{
	const char *slash = strchr(text, '/');
	if (!slash) return false;
	size_t k, n;
	if (!cli_batch_parse_size(text, (size_t)(slash - text), &k) || !cli_batch_parse_size(slash + 1, strlen(slash + 1), &n))
		return false;
	if (n < 1 || n > CLI_BATCH_MAX_SHARDS || k >= n) return false;
	*index = k;
	*count = n;
	return true;
}

/* ---- paths ------------------------------------------------------------------ */

char *cli_batch_dirname(const char *path)
{
	const char *slash = strrchr(path, '/');
	if (!slash) return cli_batch_strdup("");
	if (slash == path) return cli_batch_strdup("/");
	char *d = (char *)cli_batch_alloc((size_t)(slash - path) + 1, 1);
	memcpy(d, path, (size_t)(slash - path));
	return d;
}

char *cli_batch_join(const char *dir, const char *path)
{
	if (path[0] == '/' || !dir[0]) return cli_batch_strdup(path);
	size_t n = strlen(dir);
	return cli_batch_format("%s%s%s", dir, dir[n - 1] == '/' ? "" : "/", path);
}

/* Normalises an absolute path in place: "//", "/./" and "x/.." collapse. */
static void cli_batch_normalize(char *p)
{
	char *out = p;          /* p[0] == '/' */
	const char *s = p;
	while (*s) {
		while (*s == '/') s++;
		if (!*s) break;
		const char *e = strchr(s, '/');
		size_t n = e ? (size_t)(e - s) : strlen(s);
		if (n == 1 && s[0] == '.') {
			/* nothing */
		} else if (n == 2 && s[0] == '.' && s[1] == '.') {
			while (out > p && *--out != '/') {}
		} else {
			*out++ = '/';
			memmove(out, s, n);
			out += n;
		}
		s += n;
	}
	if (out == p) *out++ = '/';
	*out = '\0';
}

char *cli_batch_absolute(const char *path)
{
	char *abs;
	if (path[0] == '/') {
		abs = cli_batch_strdup(path);
	} else {
		char cwd[4096];
		if (!getcwd(cwd, sizeof(cwd))) return NULL;
		abs = cli_batch_format("%s/%s", cwd, path);
	}
	cli_batch_normalize(abs);
	return abs;
}

char *cli_batch_relative(const char *base, const char *path)
{
	/* the longest common run of whole components */
	size_t common = 0;
	for (size_t i = 0;; i++) {
		bool base_end = base[i] == '\0' || base[i] == '/';
		bool path_end = path[i] == '\0' || path[i] == '/';
		if (base_end && path_end) {
			common = i;
			if (!base[i] || !path[i]) break;
			continue;
		}
		if (base[i] != path[i]) break;
	}
	if (!strcmp(base, "/")) common = 0;
	size_t ups = 0;
	for (const char *s = base + common; *s; s++)
		if (*s == '/' && s[1] && s[1] != '/') ups++;
	const char *rest = path + common;
	while (*rest == '/') rest++;
	size_t n = ups * 3 + strlen(rest) + 2;
	char *r = (char *)cli_batch_alloc(n, 1);
	size_t k = 0;
	for (size_t u = 0; u < ups; u++) {
		memcpy(r + k, "../", 3);
		k += 3;
	}
	if (!rest[0] && k) k--;       /* "../.." for a parent folder */
	memcpy(r + k, rest, strlen(rest) + 1);
	if (!r[0]) r[0] = '.';
	return r;
}

int cli_batch_output_format(const char *path)
{
	const char *ext = cli_ext(path);
	for (const cli_enum_name *n = cli_output_formats; n->name; n++)
		if (n->value != CLI_FORMAT_OBJ && !strcasecmp(ext, n->name)) return n->value;
	return CLI_FORMAT_NONE;
}

void cli_batch_output_formats(char *dst, size_t cap)
{
	size_t n = 0;
	dst[0] = '\0';
	for (const cli_enum_name *e = cli_output_formats; e->name && n < cap; e++)
		if (e->value != CLI_FORMAT_OBJ) n += (size_t)snprintf(dst + n, cap - n, "%s.%s", n ? ", " : "", e->name);
}

bool cli_batch_make_dir(const char *dir)
{
	char *p = cli_batch_strdup(dir);
	for (char *s = p + 1; *s; s++) {
		if (*s != '/') continue;
		*s = '\0';
		if (mkdir(p, 0777) != 0 && errno != EEXIST) {
			free(p);
			return false;
		}
		*s = '/';
	}
	int rc = mkdir(p, 0777);
	int saved = errno;
	free(p);
	if (rc != 0 && saved != EEXIST) {
		errno = saved;
		return false;
	}
	struct stat st;
	if (stat(dir, &st) != 0) return false;
	if (!S_ISDIR(st.st_mode)) {
		errno = ENOTDIR;
		return false;
	}
	return true;
}

bool cli_batch_make_parent(const char *path)
{
	char *dir = cli_batch_dirname(path);
	bool ok = !dir[0] || cli_batch_make_dir(dir);
	int saved = errno;
	free(dir);
	errno = saved;
	return ok;
}

/* ---- reading whole files ---------------------------------------------------- */

char *cli_batch_read_text(const char *path, size_t max, size_t *size)
{
	FILE *f = fopen(path, "rb");
	if (!f) return NULL;
	size_t cap = 1 << 16, n = 0;
	char *buf = (char *)malloc(cap);
	if (!buf) cli_batch_out_of_memory();
	for (;;) {
		if (n + 1 >= cap) {
			if (cap > max) {
				free(buf);
				fclose(f);
				errno = EFBIG;
				return NULL;
			}
			char *b = (char *)realloc(buf, cap * 2);
			if (!b) cli_batch_out_of_memory();
			buf = b;
			cap *= 2;
		}
		size_t got = fread(buf + n, 1, cap - n - 1, f);
		n += got;
		if (got == 0) break;
	}
	int bad = ferror(f);
	fclose(f);
	if (bad || n > max) {
		free(buf);
		errno = bad ? EIO : EFBIG;
		return NULL;
	}
	buf[n] = '\0';
	*size = n;
	return buf;
}

bool cli_batch_json_save(const cli_json *j, const char *path, rk_error *err)
{
	size_t n = 0;
	const char *text = rk_json_writer_text(&j->w, &n);
	if (!text) cli_batch_out_of_memory();   /* the writer's only failures: memory, depth */
	char *copy = (char *)cli_batch_alloc(n + 1, 1);
	memcpy(copy, text, n);
	copy[n] = '\n';                          /* as rk_json_writer_finish ends a pretty document */
	bool ok = rk_file_write_atomic(path, copy, n + 1, err);
	free(copy);
	return ok;
}

/* ---- the manifest reader ------------------------------------------------------ */

typedef struct cli_batch_reader {
	cli_ctx *ctx;
	const char *path;                /* the manifest, for errors */
	char *dir;                       /* its folder: relative paths start there */
	size_t line;
} cli_batch_reader;

/* Prints "rigkit: FILE:LINE: message" (recorded with the line, for --json). */
static int cli_batch_bad(cli_batch_reader *r, const char *fmt, ...) CLI_PRINTF(2, 3);
static int cli_batch_bad(cli_batch_reader *r, const char *fmt, ...)
{
	rk_error e;
	memset(&e, 0, sizeof(e));
	e.code = RK_ERROR_CORRUPT;
	e.description = rk_error_code_name(e.code);
	snprintf(e.file, sizeof(e.file), "%s", r->path);
	e.location = RK_LOCATION_LINE;
	e.line = r->line;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(e.message, sizeof(e.message), fmt, ap);
	va_end(ap);
	cli_record(r->ctx, &e);
	fprintf(stderr, "rigkit: %s:%zu: %s\n", r->path, r->line, e.message);
	return CLI_EXIT_INPUT;
}

/* Every key of obj is in `allowed` (NULL-terminated) and appears once. */
static int cli_batch_keys(cli_batch_reader *r, const cJSON *obj, const char *const *allowed, const char *what)
{
	for (const cJSON *k = obj->child; k; k = k->next) {
		bool known = false;
		for (const char *const *a = allowed; *a && !known; a++) known = !strcmp(*a, k->string);
		if (!known) {
			char list[256] = "";
			size_t n = 0;
			for (const char *const *a = allowed; *a && n < sizeof(list); a++)
				n += (size_t)snprintf(list + n, sizeof(list) - n, "%s%s", n ? ", " : "", *a);
			return cli_batch_bad(r, "unknown key '%s' in %s (expected one of: %s)", k->string, what, list);
		}
		for (const cJSON *o = obj->child; o != k; o = o->next)
			if (!strcmp(o->string, k->string)) return cli_batch_bad(r, "key '%s' appears twice in %s", k->string, what);
	}
	return 0;
}

/* A non-empty string member, or NULL when absent; *rc set when it is of another kind. */
static const char *cli_batch_string(cli_batch_reader *r, const cJSON *obj, const char *key, bool required, int *rc)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
	if (!v) {
		if (required) *rc = cli_batch_bad(r, "missing \"%s\" (a string)", key);
		return NULL;
	}
	if (!cJSON_IsString(v) || !v->valuestring[0]) {
		*rc = cli_batch_bad(r, "\"%s\" must be a non-empty string", key);
		return NULL;
	}
	return v->valuestring;
}

static void cli_batch_add_entry(cli_batch_jobspec *s, size_t *cap, const char *source, const char *clip, const char *name)
{
	if (s->entry_count == *cap) {
		*cap = *cap ? *cap * 2 : 4;
		cli_batch_entry *d = (cli_batch_entry *)realloc(s->entries, *cap * sizeof(*d));
		if (!d) cli_batch_out_of_memory();
		s->entries = d;
	}
	cli_batch_entry *e = &s->entries[s->entry_count++];
	memset(e, 0, sizeof(*e));
	e->source = cli_batch_strdup(source);
	e->clip = clip ? cli_batch_strdup(clip) : NULL;
	e->name = name ? cli_batch_strdup(name) : NULL;
}

static int cli_batch_read_options(cli_batch_reader *r, const cJSON *o, cli_batch_job_opts *opts)
{
	if (!cJSON_IsObject(o)) return cli_batch_bad(r, "\"options\" must be an object");
	static const char *const keys[] = { "root", "fps", "skip_fingers", "foot_ik", "drop_avatar_clips", "rest", "twist",
		"contacts", "hand_contacts", NULL };
	int rc = cli_batch_keys(r, o, keys, "\"options\"");
	if (rc) return rc;
	for (const cJSON *k = o->child; k; k = k->next) {
		if (!strcmp(k->string, "root")) {
			static const struct { const char *name; rk_retarget_root v; } roots[] = {
				{ "keep", RK_RETARGET_ROOT_KEEP }, { "in-place", RK_RETARGET_ROOT_IN_PLACE }, { "lock", RK_RETARGET_ROOT_LOCK },
				{ "extract", RK_RETARGET_ROOT_EXTRACT },
			};
			bool found = false;
			for (size_t i = 0; i < sizeof(roots) / sizeof(roots[0]) && cJSON_IsString(k); i++)
				if (!strcmp(k->valuestring, roots[i].name)) {
					opts->root = roots[i].v;
					found = true;
				}
			if (!found)
				return cli_batch_bad(r, "\"options\": \"root\" must be \"keep\", \"in-place\", \"lock\" or \"extract\"");
		} else if (!strcmp(k->string, "twist")) {
			if (!cJSON_IsString(k) || (strcmp(k->valuestring, "on") && strcmp(k->valuestring, "off")))
				return cli_batch_bad(r, "\"options\": \"twist\" must be \"on\" or \"off\"");
			opts->twist = strcmp(k->valuestring, "off") ? RK_RETARGET_TWIST_ON : RK_RETARGET_TWIST_OFF;
		} else if (!strcmp(k->string, "contacts")) {
			if (!cJSON_IsString(k) || (strcmp(k->valuestring, "on") && strcmp(k->valuestring, "off")))
				return cli_batch_bad(r, "\"options\": \"contacts\" must be \"on\" or \"off\"");
			opts->contacts = strcmp(k->valuestring, "off") ? RK_RETARGET_CONTACTS_FEET : RK_RETARGET_CONTACTS_OFF;
		} else if (!strcmp(k->string, "rest")) {
			if (!cJSON_IsString(k) || !rk_rest_mode_parse(k->valuestring, &opts->rest))
				return cli_batch_bad(r, "\"options\": \"rest\" must be \"auto\", \"bind\" or \"stored\"");
		} else if (!strcmp(k->string, "fps")) {
			if (!cJSON_IsNumber(k) || !(k->valuedouble > 0.0 && k->valuedouble <= 1000.0))
				return cli_batch_bad(r, "\"options\": \"fps\" must be a number in (0, 1000]");
			opts->fps = k->valuedouble;
		} else {
			if (!cJSON_IsBool(k)) return cli_batch_bad(r, "\"options\": \"%s\" must be true or false", k->string);
			bool v = cJSON_IsTrue(k);
			if (!strcmp(k->string, "skip_fingers")) opts->skip_fingers = v;
			else if (!strcmp(k->string, "foot_ik")) opts->foot_ik = v;
			else if (!strcmp(k->string, "hand_contacts")) opts->hand_contacts = v;
			else opts->drop_avatar_clips = v;
		}
	}
	return 0;
}

/* One manifest line (an object) into s. */
static int cli_batch_read_job(cli_batch_reader *r, const cJSON *job, cli_batch_jobspec *s)
{
	static const char *const keys[] = { "id", "output", "target", "source", "clip", "clips", "options", "group", NULL };
	int rc = cli_batch_keys(r, job, keys, "a job");
	if (rc) return rc;
	const char *output = cli_batch_string(r, job, "output", true, &rc);
	const char *target = rc ? NULL : cli_batch_string(r, job, "target", true, &rc);
	const char *id = rc ? NULL : cli_batch_string(r, job, "id", false, &rc);
	const char *source = rc ? NULL : cli_batch_string(r, job, "source", false, &rc);
	const char *clip = rc ? NULL : cli_batch_string(r, job, "clip", false, &rc);
	const char *group = rc ? NULL : cli_batch_string(r, job, "group", false, &rc);
	if (rc) return rc;
	if (group) s->group = cli_batch_strdup(group);
	if (!cli_batch_output_format(output)) {
		char list[64];
		cli_batch_output_formats(list, sizeof(list));
		return cli_batch_bad(r, "\"output\": unsupported format '.%s' (supported: %s)", cli_ext(output), list);
	}
	const cJSON *clips = cJSON_GetObjectItemCaseSensitive(job, "clips");
	const cJSON *options = cJSON_GetObjectItemCaseSensitive(job, "options");
	if (options && (rc = cli_batch_read_options(r, options, &s->opts))) return rc;
	s->id = cli_batch_strdup(id ? id : output);
	s->output = cli_batch_join(r->dir, output);
	s->target = cli_batch_join(r->dir, target);
	char *src = source ? cli_batch_join(r->dir, source) : NULL;
	size_t cap = 0;
	if (clips && clip) rc = cli_batch_bad(r, "give \"clip\" or \"clips\", not both");
	else if (!clips && !source) rc = cli_batch_bad(r, "missing \"source\" (the motion file) or \"clips\"");
	else if (!clips) cli_batch_add_entry(s, &cap, src, clip, NULL);
	else if (!cJSON_IsArray(clips) || !clips->child)
		rc = cli_batch_bad(r, "\"clips\" must be a non-empty array of clip names or {\"source\", \"clip\", \"name\"} objects");
	for (const cJSON *c = clips && !rc ? clips->child : NULL; c && !rc; c = c->next) {
		if (cJSON_IsString(c)) {
			if (!src) rc = cli_batch_bad(r, "clip '%s' has no \"source\" (give one for the job or the clip)", c->valuestring);
			else cli_batch_add_entry(s, &cap, src, c->valuestring, NULL);
			continue;
		}
		if (!cJSON_IsObject(c)) {
			rc = cli_batch_bad(r, "\"clips\" items must be strings or objects");
			break;
		}
		static const char *const ckeys[] = { "source", "clip", "name", NULL };
		if ((rc = cli_batch_keys(r, c, ckeys, "a \"clips\" item"))) break;
		const char *cs = cli_batch_string(r, c, "source", false, &rc);
		const char *cc = rc ? NULL : cli_batch_string(r, c, "clip", false, &rc);
		const cJSON *cn = cJSON_GetObjectItemCaseSensitive(c, "name");
		if (rc) break;
		if (cn && (!cJSON_IsString(cn) || !cn->valuestring[0])) {
			rc = cli_batch_bad(r, "a \"clips\" item: \"name\" must be a non-empty string");
			break;
		}
		if (cn && !cc) {
			rc = cli_batch_bad(r, "a \"clips\" item: \"name\" needs \"clip\" (one clip gets one name)");
			break;
		}
		if (!cs && !src) {
			rc = cli_batch_bad(r, "a \"clips\" item has no \"source\" (give one for the job or the clip)");
			break;
		}
		char *own = cs ? cli_batch_join(r->dir, cs) : NULL;
		cli_batch_add_entry(s, &cap, own ? own : src, cc, cn ? cn->valuestring : NULL);
		free(own);
	}
	free(src);
	return rc;
}

/* No two jobs with one id (outputs false) or one output (true). */
static int cli_batch_unique(cli_batch_reader *r, cli_batch_specs *out, bool outputs)
{
	size_t n = out->count;
	size_t *order = (size_t *)cli_batch_alloc(n, sizeof(size_t));
	char **keys = (char **)cli_batch_alloc(n, sizeof(char *));
	for (size_t i = 0; i < n; i++) {
		order[i] = i;
		keys[i] = outputs ? out->data[i].output : out->data[i].id;
	}
	/* sort the indices by key: a merge sort (C11 qsort has no context argument) */
	size_t *tmp = (size_t *)cli_batch_alloc(n, sizeof(size_t));
	for (size_t w = 1; w < n; w *= 2) {
		for (size_t lo = 0; lo < n; lo += 2 * w) {
			size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
			size_t i = lo, j = mid, k = lo;
			while (i < mid && j < hi) tmp[k++] = strcmp(keys[order[j]], keys[order[i]]) < 0 ? order[j++] : order[i++];
			while (i < mid) tmp[k++] = order[i++];
			while (j < hi) tmp[k++] = order[j++];
		}
		memcpy(order, tmp, n * sizeof(size_t));
	}
	int rc = 0;
	for (size_t i = 1; i < n && !rc; i++) {
		size_t a = order[i - 1], b = order[i];
		if (strcmp(keys[a], keys[b])) continue;
		if (a > b) {
			size_t t = a;
			a = b;
			b = t;
		}
		r->line = out->data[b].line;
		rc = cli_batch_bad(r, outputs ? "output '%s' is also written by line %zu" : "job id '%s' is also line %zu's",
			keys[b], out->data[a].line);
	}
	free(tmp);
	free(keys);
	free(order);
	return rc;
}

int cli_batch_manifest_read(cli_ctx *ctx, const char *path, const cli_batch_job_opts *defaults, cli_batch_specs *out)
{
	size_t size = 0;
	char *text = cli_batch_read_text(path, CLI_BATCH_MANIFEST_MAX, &size);
	if (!text && errno == EFBIG)
		return cli_fail(ctx, RK_ERROR_LIMIT, CLI_EXIT_INPUT, path, "manifest over %zu bytes", CLI_BATCH_MANIFEST_MAX);
	if (!text) return cli_fail(ctx, RK_ERROR_IO, CLI_EXIT_INPUT, path, "cannot read the manifest (%s)", strerror(errno));
	cli_batch_reader r = { .ctx = ctx, .path = path, .dir = cli_batch_dirname(path) };
	int rc = 0;
	char *p = text, *end = text + size;
	while (p < end && !rc) {
		char *nl = memchr(p, '\n', (size_t)(end - p));
		char *eol = nl ? nl : end;
		r.line++;
		size_t len = (size_t)(eol - p);
		if (len && p[len - 1] == '\r') len--;
		size_t lead = 0;
		while (lead < len && (p[lead] == ' ' || p[lead] == '\t')) lead++;
		if (lead < len) {
			const char *stop = NULL;
			cJSON *job = cJSON_ParseWithLengthOpts(p, len, &stop, false);
			if (!job) {
				size_t col = stop && stop >= p && stop <= p + len ? (size_t)(stop - p) + 1 : 1;
				rc = cli_batch_bad(&r, "not a JSON value (at column %zu)", col);
			} else {
				const char *after = stop ? stop : p + len;
				while (after < p + len && (*after == ' ' || *after == '\t')) after++;
				if (after < p + len) rc = cli_batch_bad(&r, "more after the JSON object (at column %zu)", (size_t)(after - p) + 1);
				else if (!cJSON_IsObject(job)) rc = cli_batch_bad(&r, "a job must be a JSON object");
				else {
					cli_batch_jobspec *s = cli_batch_specs_push(out);
					s->opts = *defaults;
					s->line = r.line;
					rc = cli_batch_read_job(&r, job, s);
				}
				cJSON_Delete(job);
			}
		}
		p = eol + 1;
	}
	if (!rc && !out->count) {
		r.line = 1;
		rc = cli_batch_bad(&r, "no job in the manifest (one JSON object per line)");
	}
	if (!rc) rc = cli_batch_unique(&r, out, false);
	if (!rc) rc = cli_batch_unique(&r, out, true);
	free(r.dir);
	free(text);
	return rc;
}

/* ---- the manifest writer (--plan) ------------------------------------------------ */

static void cli_batch_json_path(rk_json_writer *w, const char *key, const char *path, const char *base)
{
	char *abs = cli_batch_absolute(path);
	char *rel = abs && base ? cli_batch_relative(base, abs) : NULL;
	rk_json_string(w, key, rel ? rel : path);
	free(rel);
	free(abs);
}

char *cli_batch_manifest_line(const cli_batch_jobspec *s, const char *base, size_t *length)
{
	rk_json_writer wr;
	rk_json_writer *w = &wr;
	rk_json_writer_init(w, RK_JSON_SHORTEST);
	rk_json_object_begin(w, NULL);
	rk_json_string(w, "id", s->id);
	if (s->group) rk_json_string(w, "group", s->group);
	cli_batch_json_path(w, "output", s->output, base);
	cli_batch_json_path(w, "target", s->target, base);
	rk_json_array_begin(w, "clips");
	for (size_t e = 0; e < s->entry_count; e++) {
		const cli_batch_entry *x = &s->entries[e];
		rk_json_object_begin(w, NULL);
		cli_batch_json_path(w, "source", x->source, base);
		if (x->clip) rk_json_string(w, "clip", x->clip);
		if (x->name) rk_json_string(w, "name", x->name);
		rk_json_object_end(w);
	}
	rk_json_array_end(w);
	rk_json_object_begin(w, "options");
	rk_json_string(w, "root", cli_retarget_root_name(s->opts.root));
	if (s->opts.fps > 0.0) rk_json_number(w, "fps", s->opts.fps);
	rk_json_bool(w, "skip_fingers", s->opts.skip_fingers);
	rk_json_bool(w, "foot_ik", s->opts.foot_ik);
	rk_json_bool(w, "drop_avatar_clips", s->opts.drop_avatar_clips);
	if (s->opts.rest != RK_REST_AUTO) rk_json_string(w, "rest", rk_rest_mode_name(s->opts.rest));
	if (s->opts.twist == RK_RETARGET_TWIST_OFF) rk_json_string(w, "twist", "off");
	if (s->opts.contacts == RK_RETARGET_CONTACTS_OFF) rk_json_string(w, "contacts", "off");
	if (s->opts.hand_contacts) rk_json_bool(w, "hand_contacts", true);
	rk_json_object_end(w);
	rk_json_object_end(w);
	size_t n = 0;
	char *text = rk_json_writer_finish(w, &n);
	if (!text) {
		rk_json_writer_free(w);
		cli_batch_out_of_memory();
	}
	char *line = (char *)cli_batch_alloc(n + 1, 1);
	memcpy(line, text, n);
	rk_json_free_text(&w->allocator, text, n);
	*length = n;
	return line;
}

/* ---- sidecars ------------------------------------------------------------------- */

char *cli_batch_sidecar_path(const char *output)
{
	return cli_batch_format("%s.rigkit.json", output);
}

bool cli_batch_sidecar_matches(const char *output, const char *digest, char **report)
{
	*report = NULL;
	struct stat st;
	if (stat(output, &st) != 0 || !S_ISREG(st.st_mode)) return false;
	char *path = cli_batch_sidecar_path(output);
	size_t size = 0;
	char *text = cli_batch_read_text(path, CLI_BATCH_SIDECAR_MAX, &size);
	free(path);
	if (!text) return false;
	cJSON *doc = cJSON_ParseWithLength(text, size);
	free(text);
	if (!doc) return false;
	const cJSON *d = cJSON_GetObjectItemCaseSensitive(doc, "digest");
	bool ok = cJSON_IsString(d) && !strcmp(d->valuestring, digest);
	const cJSON *rep = cJSON_GetObjectItemCaseSensitive(doc, "report");
	if (ok && cJSON_IsObject(rep)) {
		char *s = cJSON_PrintUnformatted(rep);
		if (!s) cli_batch_out_of_memory();
		*report = cli_batch_strdup(s);
		cJSON_free(s);
	}
	cJSON_Delete(doc);
	return ok;
}

static int cli_batch_strcmp_p(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

size_t cli_batch_remove_stale_temps(const char *const *outputs, size_t count)
{
	/* one scan per folder: a temporary is NAME.tmpXXXXXX (mkstemp), NAME an
	 * output of the list or its sidecar */
	size_t removed = 0;
	char *last_dir = NULL;
	for (size_t i = 0; i < count; i++) {
		char *dir = cli_batch_dirname(outputs[i]);
		if (last_dir && !strcmp(dir, last_dir)) {
			free(dir);
			continue;
		}
		free(last_dir);
		last_dir = dir;
		DIR *d = opendir(dir[0] ? dir : ".");
		if (!d) continue;
		for (struct dirent *e; (e = readdir(d)) != NULL;) {
			size_t n = strlen(e->d_name);
			if (n < 11 || strncmp(e->d_name + n - 10, ".tmp", 4)) continue;
			char *full = cli_batch_join(dir, e->d_name);
			size_t fn = strlen(full) - 10;
			full[fn] = '\0';
			static const char side[] = ".rigkit.json";
			bool found = bsearch(&full, outputs, count, sizeof(*outputs), cli_batch_strcmp_p) != NULL;
			if (!found && fn > sizeof(side) - 1 && !strcmp(full + fn - (sizeof(side) - 1), side)) {
				full[fn - (sizeof(side) - 1)] = '\0';
				found = bsearch(&full, outputs, count, sizeof(*outputs), cli_batch_strcmp_p) != NULL;
			}
			free(full);
			if (!found) continue;
			full = cli_batch_join(dir, e->d_name);
			if (unlink(full) == 0) removed++;
			free(full);
		}
		closedir(d);
	}
	free(last_dir);
	return removed;
}
