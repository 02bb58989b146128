/* src/load/load_files.c - the access policy for external files (load_files.h). */
#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE 1 /* realpath, before any system header */
#endif
#include "load/load_files.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define RKI_FILES_PATH_MAX 4096
#define RKI_FILES_NAME_PARTS 4

/* ---- paths ----------------------------------------------------------------------- */

/* Normalises `in` ('/' separators) into out: empty and "." parts dropped,
 * ".." removes the part before it. Absolute stays absolute. False when ".."
 * climbs above the start (or "/"), or out is too small. */
static bool rki_files_norm(const char *in, char *out, size_t cap)
{
	size_t n = 0;
	bool abs = in[0] == '/';
	if (abs) {
		if (cap < 2) return false;
		out[n++] = '/';
	}
	size_t floor = n;
	const char *p = in;
	while (*p) {
		while (*p == '/') p++;
		if (!*p) break;
		const char *e = strchr(p, '/');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		if (len == 1 && p[0] == '.') {
			/* nothing */
		} else if (len == 2 && p[0] == '.' && p[1] == '.') {
			if (n == floor) return false;
			while (n > floor && out[n - 1] != '/') n--;
			if (n > floor) n--; /* the separator before the removed part */
		} else {
			if (n > floor && n + 1 < cap) out[n++] = '/';
			if (n + len + 1 > cap) return false;
			memcpy(out + n, p, len);
			n += len;
		}
		p += len;
	}
	out[n] = '\0';
	return true;
}

/* Whether the normalised `path` lies in the tree `root` ("" = any relative path). */
static bool rki_files_within(const char *path, const char *root)
{
	if (!root[0]) return path[0] != '/';
	size_t rl = strlen(root);
	if (rl == 1 && root[0] == '/') return path[0] == '/';
	return strncmp(path, root, rl) == 0 && (path[rl] == '/' || path[rl] == '\0');
}

static bool rki_files_within_any(const rki_files *f, const char *path)
{
	for (size_t i = f->has_base ? 0 : 1; i < f->root_count; i++)
		if (rki_files_within(path, f->roots[i])) return true;
	return false;
}

static bool rki_files_is_drive(const char *ref)
{
	return ((ref[0] >= 'A' && ref[0] <= 'Z') || (ref[0] >= 'a' && ref[0] <= 'z')) && ref[1] == ':';
}

static rki_file_status rki_files_say(rki_file_result *out, rki_file_status st, const char *ref, const char *fmt)
{
	out->status = st;
	snprintf(out->why, sizeof(out->why), fmt, ref);
	return st;
}

/* Resolves one reference ('/' separators, decoded) to the path to open
 * (fs: real path). OK, MISSING or REFUSED (out->why, naming `shown`: the
 * reference as written). */
static rki_file_status rki_files_resolve(const rki_files *f, const char *ref, const char *shown, char *path,
	rki_file_result *out)
{
	char joined[RKI_FILES_PATH_MAX * 2], norm[RKI_FILES_PATH_MAX];
	if (!ref[0]) return rki_files_say(out, RKI_FILE_MISSING, shown, "empty file reference%.0s");
	if (rki_files_is_drive(ref))
		return rki_files_say(out, RKI_FILE_REFUSED, shown, "\"%.120s\" is a drive path outside the input's folder: not opened");
	bool abs = ref[0] == '/';
	if (!abs && !f->has_base)
		return rki_files_say(out, RKI_FILE_MISSING, shown,
			"\"%.120s\" is relative, but the input has no folder to resolve it against (no file name)");
	if (abs) snprintf(joined, sizeof(joined), "%s", ref);
	else if (!f->base[0]) snprintf(joined, sizeof(joined), "%s", ref);
	else snprintf(joined, sizeof(joined), "%s/%s", f->base, ref);
	if (!rki_files_norm(joined, norm, sizeof(norm)))
		return rki_files_say(out, RKI_FILE_REFUSED, shown, "\"%.120s\" leaves the folder of the input: not opened");
	if (!rki_files_within_any(f, norm)) {
		if (abs)
			return rki_files_say(out, RKI_FILE_REFUSED, shown,
				"\"%.120s\" is an absolute path outside the input's folder and allow_paths: not opened");
		return rki_files_say(out, RKI_FILE_REFUSED, shown, "\"%.120s\" leaves the folder of the input: not opened");
	}
	if (!f->fs) {
		memcpy(path, norm, strlen(norm) + 1);
		return RKI_FILE_OK;
	}
	char real[PATH_MAX];
	if (!realpath(norm, real)) {
		out->status = RKI_FILE_MISSING;
		snprintf(out->why, sizeof(out->why), "\"%.120s\": %s", shown, strerror(errno));
		return out->status;
	}
	if (!rki_files_within_any(f, real))
		return rki_files_say(out, RKI_FILE_REFUSED, shown,
			"\"%.120s\" is a symbolic link to a file outside the input's folder: not opened");
	memcpy(path, real, strlen(real) + 1);
	return RKI_FILE_OK;
}

/* Opens (and reads when asked) the resolved `path`. */
static rki_file_status rki_files_fetch(const rki_files *f, const rki_file_ask *ask, const char *ref, const char *shown,
	const char *path, rki_file_result *out, rk_error *err)
{
	size_t limit = f->opts->file_size_limit;
	if (!f->fs) {
		rk_file_request req = { ref, path, limit };
		const void *data = NULL;
		size_t size = 0;
		if (!f->opts->open_file(f->opts->file_user, &req, &data, &size) || (!data && size))
			return rki_files_say(out, RKI_FILE_MISSING, shown, "\"%.120s\": not served by the open_file callback");
		unsigned char *copy = size <= limit ? (unsigned char *)rki_arena_alloc_uninit(ask->arena, size + 1) : NULL;
		if (copy) {
			if (size) memcpy(copy, data, size);
			copy[size] = 0;
		}
		if (f->opts->close_file) f->opts->close_file(f->opts->file_user, data, size);
		if (!copy) {
			if (size > limit) rki_error_set(err, RK_ERROR_LIMIT, "%zu bytes, over the %zu byte file_size_limit", size, limit);
			else rki_error_set(err, ask->arena->alloc->limit_hit ? RK_ERROR_LIMIT : RK_ERROR_OUT_OF_MEMORY,
				"cannot allocate %zu bytes for the file", size);
			rki_error_file(err, path);
			return out->status = RKI_FILE_FAILED;
		}
		out->data = copy;
		out->size = size;
		return out->status = RKI_FILE_OK;
	}
	uint64_t size = 0;
	const char *kind = NULL;
	int fd = rki_open_regular(path, &size, &kind);
	if (fd < 0) {
		out->status = kind ? RKI_FILE_SPECIAL : RKI_FILE_MISSING;
		if (kind) snprintf(out->why, sizeof(out->why), "\"%.120s\" is %s, not a regular file: not opened", shown, kind);
		else snprintf(out->why, sizeof(out->why), "\"%.120s\": %s", shown, strerror(errno));
		return out->status;
	}
	out->path = rki_arena_strndup(ask->arena, path, strlen(path));
	if (!out->path) {
		close(fd);
		rki_error_set(err, RK_ERROR_OUT_OF_MEMORY, "out of memory");
		return out->status = RKI_FILE_FAILED;
	}
	if (!ask->read) {
		close(fd);
		return out->status = RKI_FILE_OK;
	}
	if (size > limit || size >= SIZE_MAX) {
		close(fd);
		rki_error_set(err, RK_ERROR_LIMIT, "file is %llu bytes, over the %zu byte limit", (unsigned long long)size, limit);
		rki_error_file(err, path);
		return out->status = RKI_FILE_FAILED;
	}
	unsigned char *data = (unsigned char *)rki_arena_alloc_uninit(ask->arena, (size_t)size + 1);
	size_t got = 0;
	bool ok = data && rki_read_fd(fd, data, (size_t)size, &got);
	close(fd);
	if (!ok) {
		if (!data)
			rki_error_set(err, ask->arena->alloc->limit_hit ? RK_ERROR_LIMIT : RK_ERROR_OUT_OF_MEMORY,
				"cannot allocate %llu bytes for the file", (unsigned long long)size + 1);
		else rki_error_set(err, RK_ERROR_IO, "short read (%zu of %llu bytes)", got, (unsigned long long)size);
		rki_error_file(err, path);
		return out->status = RKI_FILE_FAILED;
	}
	data[size] = 0;
	out->data = data;
	out->size = (size_t)size;
	return out->status = RKI_FILE_OK;
}

/* ---- references as written ----------------------------------------------------------- */

/* A glTF URI to a file reference in dst (capacity len + 1): FAILED (err,
 * malformed), REFUSED (out->why) or OK. */
static rki_file_status rki_files_uri(const rki_files *f, const char *uri, size_t len, char *dst, unsigned char *esc,
	rki_file_result *out, rk_error *err)
{
	char shown[128];
	snprintf(shown, sizeof(shown), "%.*s", (int)(len < 120 ? len : 120), uri);
	if (len == 0 || memchr(uri, 0, len)) {
		rki_error_set(err, RK_ERROR_CORRUPT, len ? "URI contains a NUL character" : "empty URI");
		rki_error_file(err, f->filename);
		return out->status = RKI_FILE_FAILED;
	}
	/* scheme ":" before any '/', '?' or '#' (RFC 3986) */
	for (size_t i = 0; i < len && uri[i] != '/' && uri[i] != '?' && uri[i] != '#'; i++) {
		if (uri[i] == ':') {
			memcpy(dst, uri, len);
			dst[len] = '\0';
			out->status = RKI_FILE_REFUSED;
			snprintf(out->why, sizeof(out->why),
				"\"%s\": URI scheme \"%.*s:\" is not read (only data: URIs and paths relative to the input)", shown,
				(int)(i < 32 ? i : 32), uri);
			return out->status;
		}
	}
	size_t n = rki_percent_decode((unsigned char *)dst, esc, uri, len, false);
	if (n == SIZE_MAX || n == 0) {
		rki_error_set(err, RK_ERROR_CORRUPT, "bad %%-escape in URI (expected %%XX with hex digits, not %%00)");
		rki_error_file(err, f->filename);
		return out->status = RKI_FILE_FAILED;
	}
	dst[n] = '\0';
	for (size_t i = 0; i < n; i++) {
		bool sep = dst[i] == '/' || dst[i] == '\\';
		if (esc[i] && sep)
			return rki_files_say(out, RKI_FILE_REFUSED, shown, "\"%s\": a %%-escape decodes to a path separator: not opened");
		/* a "." or ".." part spelled with escapes */
		if (esc[i] && dst[i] == '.') {
			size_t a = i, b = i;
			while (a > 0 && dst[a - 1] != '/' && dst[a - 1] != '\\') a--;
			while (b < n && dst[b] != '/' && dst[b] != '\\') b++;
			bool dots = true;
			for (size_t k = a; k < b; k++) dots = dots && dst[k] == '.';
			if (dots && b - a <= 2)
				return rki_files_say(out, RKI_FILE_REFUSED, shown, "\"%s\": %%-escapes spell a \".\" or \"..\" part: not opened");
		}
	}
	return RKI_FILE_OK;
}

/* Later failures replace earlier ones only when more telling. */
static void rki_files_keep(rki_file_result *best, const rki_file_result *r)
{
	static const int rank[] = { [RKI_FILE_OK] = 4, [RKI_FILE_MISSING] = 0, [RKI_FILE_REFUSED] = 1,
		[RKI_FILE_SPECIAL] = 2, [RKI_FILE_FAILED] = 3 };
	if (!best->why[0] || rank[r->status] > rank[best->status]) {
		best->status = r->status;
		memcpy(best->why, r->why, sizeof(best->why));
	}
}

/* Resolves and fetches one reference. */
static rki_file_status rki_files_try(const rki_files *f, const rki_file_ask *ask, const char *ref, const char *shown,
	rki_file_result *out, rk_error *err)
{
	char path[PATH_MAX > RKI_FILES_PATH_MAX ? PATH_MAX : RKI_FILES_PATH_MAX];
	rki_file_result r = { 0 };
	r.status = RKI_FILE_MISSING;
	if (rki_files_resolve(f, ref, shown, path, &r) == RKI_FILE_OK) {
		rki_files_fetch(f, ask, ref, shown, path, &r, err);
		if (r.status == RKI_FILE_OK || r.status == RKI_FILE_FAILED) {
			out->status = r.status;
			out->path = r.path;
			out->data = r.data;
			out->size = r.size;
			return r.status;
		}
	}
	rki_files_keep(out, &r);
	return r.status;
}

/* FBX: the trailing parts of `ref` (at most RKI_FILES_NAME_PARTS, after the
 * last ".." and without a drive), longest first, inside the input's folder. */
static rki_file_status rki_files_by_name(const rki_files *f, const rki_file_ask *ask, const char *ref,
	const char *shown, rki_file_result *out, rk_error *err)
{
	const char *parts[RKI_FILES_NAME_PARTS];
	size_t lens[RKI_FILES_NAME_PARTS], count = 0;
	const char *p = ref;
	if (rki_files_is_drive(p)) p += 2;
	while (*p) {
		while (*p == '/') p++;
		if (!*p) break;
		const char *e = strchr(p, '/');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		if ((len == 2 && p[0] == '.' && p[1] == '.')) count = 0;
		else if (!(len == 1 && p[0] == '.')) {
			if (count == RKI_FILES_NAME_PARTS) {
				memmove(parts, parts + 1, sizeof(parts[0]) * (count - 1));
				memmove(lens, lens + 1, sizeof(lens[0]) * (count - 1));
				count--;
			}
			parts[count] = p;
			lens[count++] = len;
		}
		p += len;
	}
	for (size_t first = 0; first < count; first++) {
		char cand[RKI_FILES_PATH_MAX];
		size_t n = 0;
		for (size_t k = first; k < count && n < sizeof(cand); k++)
			n += (size_t)snprintf(cand + n, sizeof(cand) - n, "%s%.*s", k > first ? "/" : "", (int)lens[k], parts[k]);
		if (n >= sizeof(cand)) continue;
		if (first == 0 && ref[0] != '/' && !rki_files_is_drive(ref) && !strcmp(cand, ref)) continue; /* tried as written */
		rki_file_status st = rki_files_try(f, ask, cand, shown, out, err);
		if (st == RKI_FILE_OK || st == RKI_FILE_FAILED) return st;
	}
	return out->status;
}

/* Resolves the input's folder (fs: its real path) the first time a
 * reference is opened; base (roots[0], skipped unless has_base) holds it. */
static void rki_files_base(rki_files *f)
{
	if (!f->base_pending) return;
	f->base_pending = false;
	char real[PATH_MAX];
	f->has_base = realpath(f->base, real) && strlen(real) < RKI_FILES_PATH_MAX;
	if (f->has_base) memcpy(f->base, real, strlen(real) + 1);
	else f->base[0] = '\0';
}

static rki_file_status rki_files_open(const rki_file_access *fa, const rki_file_ask *ask, rki_file_result *out,
	rk_error *err)
{
	rki_files *f = (rki_files *)fa->impl;
	rki_files_base(f);
	memset(out, 0, sizeof(*out));
	out->status = RKI_FILE_MISSING;
	out->reference = "";
	char *refs[2] = { NULL, NULL }, *shown[2] = { NULL, NULL };
	for (size_t i = 0; i < 2; i++) {
		const char *r = ask->refs[i];
		size_t len = ask->ref_lens[i];
		if (!r || (!len && !ask->uri)) continue;
		if (len >= RKI_FILES_PATH_MAX) {
			out->status = RKI_FILE_REFUSED;
			snprintf(out->why, sizeof(out->why), "\"%.120s...\": a file reference of %zu bytes: not opened", r, len);
			continue;
		}
		char *dst = (char *)rki_arena_alloc(ask->arena, len + 1);
		char *as_written = (char *)rki_arena_alloc(ask->arena, len + 1);
		unsigned char esc[RKI_FILES_PATH_MAX];
		if (!dst || !as_written) {
			rki_error_set(err, RK_ERROR_OUT_OF_MEMORY, "out of memory");
			return out->status = RKI_FILE_FAILED;
		}
		if (ask->uri) {
			rki_file_result r1 = { 0 };
			rki_file_status st = rki_files_uri(f, r, len, dst, esc, &r1, err);
			if (st == RKI_FILE_FAILED) return out->status = st;
			if (i == 0) out->reference = dst;
			/* past rki_files_uri the escapes are harmless: warnings name the
			 * decoded URI (the escape refusals above name it as written) */
			memcpy(as_written, dst, strlen(dst));
			for (char *c = dst; *c; c++)
				if (*c == '\\') *c = '/';
			if (st != RKI_FILE_OK) {
				rki_files_keep(out, &r1);
				continue;
			}
		} else {
			memcpy(dst, r, len);
			dst[len] = '\0';
			memcpy(as_written, r, len);
			for (char *c = dst; *c; c++)
				if (*c == '\\') *c = '/';
			if (i == 0) out->reference = dst;
		}
		refs[i] = dst;
		shown[i] = as_written;
		rki_file_status st = rki_files_try(f, ask, dst, as_written, out, err);
		if (st == RKI_FILE_OK || st == RKI_FILE_FAILED) return st;
	}
	if (ask->by_name && f->has_base) {
		for (size_t i = 0; i < 2; i++) {
			if (!refs[i]) continue;
			rki_file_status st = rki_files_by_name(f, ask, refs[i], shown[i], out, err);
			if (st == RKI_FILE_OK || st == RKI_FILE_FAILED) return st;
		}
	}
	if (!out->why[0]) snprintf(out->why, sizeof(out->why), "no file reference");
	return out->status;
}

/* ---- setup ------------------------------------------------------------------------ */

bool rki_files_init(rki_files *f, rki_alloc *alloc, const rk_load_opts *opts, const char *filename, rk_error *err)
{
	memset(f, 0, sizeof(*f));
	f->access.impl = f;
	f->access.open = rki_files_open;
	f->opts = opts;
	f->alloc = alloc;
	f->filename = filename ? filename : "";
	f->fs = opts->open_file == NULL;
	size_t count = 1 + opts->allow_paths.count;
	if (opts->allow_paths.count && !opts->allow_paths.items) {
		rki_error_set(err, RK_ERROR_INVALID_ARGUMENT, "rk_load_opts.allow_paths: %zu entries but no items",
			opts->allow_paths.count);
		return false;
	}
	size_t bytes;
	if (!rki_mul_size(count, sizeof(char *) + RKI_FILES_PATH_MAX, &bytes)) {
		rki_error_set(err, RK_ERROR_INVALID_ARGUMENT, "rk_load_opts.allow_paths: too many entries");
		return false;
	}
	f->block = rki_malloc(alloc, bytes);
	if (!f->block) {
		rki_error_set(err, alloc->limit_hit ? RK_ERROR_LIMIT : RK_ERROR_OUT_OF_MEMORY, "cannot allocate the file access policy");
		return false;
	}
	f->block_size = bytes;
	f->roots = (char **)f->block;
	char *text = (char *)f->block + count * sizeof(char *);
	/* roots[0]: the input's folder */
	char dir[RKI_FILES_PATH_MAX];
	const char *slash = strrchr(f->filename, '/');
	if (slash) snprintf(dir, sizeof(dir), "%.*s", (int)(slash == f->filename ? 1 : slash - f->filename), f->filename);
	else snprintf(dir, sizeof(dir), ".");
	f->base = text;
	if (f->fs) {
		/* realpath() of the folder waits for the first reference
		 * (rki_files_base): most loads open no other file, and resolving
		 * took a readlink per path part on every load (5% of a 30 KB FBX
		 * load; docs/benchmarks.md, "FBX load per byte, third pass"). */
		f->base_pending = f->filename[0] != '\0';
		memcpy(f->base, dir, strlen(dir) + 1);
		if (!f->base_pending) f->base[0] = '\0';
	} else {
		f->has_base = rki_files_norm(slash ? dir : "", f->base, RKI_FILES_PATH_MAX);
		if (!f->has_base) f->base[0] = '\0';
	}
	f->roots[f->root_count++] = f->base;
	for (size_t i = 0; i < opts->allow_paths.count; i++) {
		const char *a = opts->allow_paths.items[i];
		char *dst = text + (i + 1) * RKI_FILES_PATH_MAX;
		struct stat st;
		char real[PATH_MAX];
		bool ok = a && a[0];
		if (ok && f->fs)
			ok = realpath(a, real) && stat(real, &st) == 0 && S_ISDIR(st.st_mode) && strlen(real) < RKI_FILES_PATH_MAX;
		if (ok && f->fs) memcpy(dst, real, strlen(real) + 1);
		else if (ok) ok = rki_files_norm(a, dst, RKI_FILES_PATH_MAX);
		if (!ok) {
			rki_error_set(err, RK_ERROR_INVALID_ARGUMENT, "rk_load_opts.allow_paths[%zu] \"%.120s\" is not an existing folder",
				i, a ? a : "(null)");
			rki_files_free(f);
			return false;
		}
		f->roots[f->root_count++] = dst;
	}
	return true;
}

void rki_files_free(rki_files *f)
{
	if (f->block) rki_free(f->alloc, f->block, f->block_size);
	f->block = NULL;
	f->roots = NULL;
	f->root_count = 0;
}
