/* src/formats/gltf/gltf_json.c - errors, warnings, JSON pointers and typed member
 * getters of the glTF reader. */
#include "gltf_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* ---- errors and warnings -------------------------------------------------- */

bool rki_gltf_failed(const rki_gltf *g)
{
	return g->err->code != RK_OK;
}

static bool rki_gltf_failv(rki_gltf *g, rk_error_code code, const char *path, const char *fmt, va_list ap)
{
	if (rki_gltf_failed(g)) return false;
	rki_error_setv(g->err, code, fmt, ap);
	rki_error_file(g->err, g->filename);
	if (path && path[0]) rki_error_at_path(g->err, RK_LOCATION_JSON, path);
	return false;
}

bool rki_gltf_fail(rki_gltf *g, rk_error_code code, const rki_gltf_loc *loc, const char *fmt, ...)
{
	if (rki_gltf_failed(g)) return false;
	char path[RKI_GLTF_PATH_MAX];
	rki_gltf_loc_format(path, sizeof(path), loc);
	va_list ap;
	va_start(ap, fmt);
	rki_gltf_failv(g, code, path, fmt, ap);
	va_end(ap);
	return false;
}

bool rki_gltf_fail_key(rki_gltf *g, rk_error_code code, const rki_gltf_loc *base, const char *key, const char *fmt, ...)
{
	if (rki_gltf_failed(g)) return false;
	char path[RKI_GLTF_PATH_MAX];
	rki_gltf_loc_format(path, sizeof(path), RKI_GLTF_KEY(base, key));
	va_list ap;
	va_start(ap, fmt);
	rki_gltf_failv(g, code, path, fmt, ap);
	va_end(ap);
	return false;
}

bool rki_gltf_fail_byte(rki_gltf *g, rk_error_code code, uint64_t offset, const char *fmt, ...)
{
	if (rki_gltf_failed(g)) return false;
	va_list ap;
	va_start(ap, fmt);
	rki_gltf_failv(g, code, NULL, fmt, ap);
	va_end(ap);
	rki_error_at_byte(g->err, offset);
	return false;
}

bool rki_gltf_oom(rki_gltf *g)
{
	if (rki_gltf_failed(g)) return false;
	rki_scene_oom(&g->sc);
	rki_error_file(g->err, g->filename);
	return false;
}

void rki_gltf_warn(rki_gltf *g, const rki_gltf_loc *loc, const char *fmt, ...)
{
	char msg[RK_ERROR_TEXT_MAX], path[RKI_GLTF_PATH_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	rki_gltf_loc_format(path, sizeof(path), loc);
	rki_scene_warn(&g->sc, UINT64_MAX, path, "%s", msg);
}

void rki_gltf_warn_repeat(rki_gltf *g, rki_warning_node **cache, const rki_gltf_loc *loc, const char *msg)
{
	if (*cache) {
		(*cache)->warning.count++;
		return;
	}
	rki_gltf_warn(g, loc, "%s", msg);
	/* rki_scene_warn keeps one node per message (and none past its cap). */
	for (rki_warning_node *w = g->sc.warnings; w; w = w->next) {
		if (strcmp(w->warning.message, msg) == 0) {
			*cache = w;
			break;
		}
	}
}

/* ---- JSON pointers ------------------------------------------------------------ */

const rki_gltf_loc rki_gltf_loc_accessors = { NULL, "accessors", 0, 0 };

void rki_gltf_loc_format(char *dst, size_t cap, const rki_gltf_loc *loc)
{
	if (cap == 0) return;
	const rki_gltf_loc *chain[32];
	size_t depth = 0, n = 0;
	for (; loc && depth < sizeof(chain) / sizeof(chain[0]); loc = loc->up) chain[depth++] = loc;
	while (depth > 0 && n + 1 < cap) {
		const rki_gltf_loc *l = chain[--depth];
		char num[24];
		const char *key = l->key;
		size_t len = l->key_len;
		if (!key) {
			len = (size_t)snprintf(num, sizeof(num), "%zu", l->index);
			key = num;
		} else if (len == 0) {
			len = strlen(key);
		}
		dst[n++] = '/';
		for (size_t i = 0; i < len && n + 1 < cap; i++) {
			/* RFC 6901: '~' -> "~0", '/' -> "~1" */
			char c = key[i];
			if (c == '~' || c == '/') {
				if (n + 2 >= cap) break;
				dst[n++] = '~';
				dst[n++] = c == '~' ? '0' : '1';
			} else {
				dst[n++] = c;
			}
		}
	}
	dst[n] = '\0';
}

/* ---- typed members ------------------------------------------------------------ */

const rki_json *rki_gltf_member(const rki_json *obj, const char *key)
{
	return rki_json_get(obj, key);
}

/* Short description of a JSON value for messages. */
static void rki_gltf_describe(const rki_gltf *g, char *dst, size_t cap, const rki_json *v)
{
	switch (v->type) {
	case RKI_JSON_NUMBER: snprintf(dst, cap, "%.17g", rki_gltf_num(g, v)); break;
	case RKI_JSON_STRING: snprintf(dst, cap, "the string \"%.*s\"", RKI_JSON_STR_ARGS(v, 40)); break;
	case RKI_JSON_TRUE: snprintf(dst, cap, "true"); break;
	case RKI_JSON_FALSE: snprintf(dst, cap, "false"); break;
	case RKI_JSON_NULL: snprintf(dst, cap, "null"); break;
	case RKI_JSON_ARRAY: snprintf(dst, cap, "an array"); break;
	case RKI_JSON_OBJECT: snprintf(dst, cap, "an object"); break;
	default: snprintf(dst, cap, "an invalid value"); break;
	}
}

/* A JSON number that is a non-negative integer <= max. */
static bool rki_gltf_as_uint(const rki_gltf *g, const rki_json *v, size_t max, size_t *out)
{
	if (v->type != RKI_JSON_NUMBER) return false;
	double d = rki_gltf_num(g, v);
	if (!(d >= 0.0) || d != floor(d) || d > 9007199254740992.0 || d > (double)max) return false;
	*out = (size_t)d;
	return *out <= max;
}

bool rki_gltf_index_value(rki_gltf *g, const rki_json *v, const rki_gltf_loc *loc, size_t count, const char *what, size_t *out)
{
	size_t idx;
	*out = RKI_GLTF_NONE;
	if (count == 0 || !rki_gltf_as_uint(g, v, count - 1, &idx)) {
		char got[80];
		rki_gltf_describe(g, got, sizeof(got), v);
		if (count == 0)
			return rki_gltf_fail(g, RK_ERROR_CORRUPT, loc, "expected an index into /%s, which is empty; got %s", what, got);
		return rki_gltf_fail(g, RK_ERROR_CORRUPT, loc, "expected an index into /%s (0..%zu), got %s", what, count - 1, got);
	}
	*out = idx;
	return true;
}

bool rki_gltf_index(rki_gltf *g, const rki_json *obj, const rki_gltf_loc *base, const char *key,
	size_t count, const char *what, bool required, size_t *out)
{
	*out = RKI_GLTF_NONE;
	const rki_json *v = rki_gltf_member(obj, key);
	if (!v) {
		if (required) return rki_gltf_fail_key(g, RK_ERROR_CORRUPT, base, key, "required index into /%s is missing", what);
		return true;
	}
	return rki_gltf_index_value(g, v, RKI_GLTF_KEY(base, key), count, what, out);
}

bool rki_gltf_uint(rki_gltf *g, const rki_json *obj, const rki_gltf_loc *base, const char *key,
	size_t def, size_t max, bool required, size_t *out)
{
	*out = def;
	const rki_json *v = rki_gltf_member(obj, key);
	if (!v) {
		if (required) return rki_gltf_fail_key(g, RK_ERROR_CORRUPT, base, key, "required integer \"%s\" is missing", key);
		return true;
	}
	if (!rki_gltf_as_uint(g, v, max, out)) {
		char got[80];
		rki_gltf_describe(g, got, sizeof(got), v);
		return rki_gltf_fail_key(g, RK_ERROR_CORRUPT, base, key, "expected an integer from 0 to %zu, got %s", max, got);
	}
	return true;
}

bool rki_gltf_number(rki_gltf *g, const rki_json *obj, const rki_gltf_loc *base, const char *key, double def, double *out)
{
	*out = def;
	const rki_json *v = rki_gltf_member(obj, key);
	if (!v) return true;
	double d = v->type == RKI_JSON_NUMBER ? rki_gltf_num(g, v) : 0.0;
	if (v->type != RKI_JSON_NUMBER || !isfinite(d)) {
		char got[80];
		rki_gltf_describe(g, got, sizeof(got), v);
		return rki_gltf_fail_key(g, RK_ERROR_CORRUPT, base, key, "expected a finite number, got %s", got);
	}
	*out = d;
	return true;
}

bool rki_gltf_numbers(rki_gltf *g, const rki_json *obj, const rki_gltf_loc *base, const char *key,
	size_t n, double *out, bool *present)
{
	if (present) *present = false;
	const rki_json *v = rki_gltf_member(obj, key);
	if (!v) return true;
	bool ok = v->type == RKI_JSON_ARRAY && v->len == n;
	for (size_t i = 0; ok && i < n; i++) {
		const rki_json *e = &v->u.items[i];
		double d = e->type == RKI_JSON_NUMBER ? rki_gltf_num(g, e) : 0.0;
		if (e->type != RKI_JSON_NUMBER || !isfinite(d)) ok = false;
		else out[i] = d;
	}
	if (!ok) return rki_gltf_fail_key(g, RK_ERROR_CORRUPT, base, key, "expected an array of %zu finite numbers", n);
	if (present) *present = true;
	return true;
}

bool rki_gltf_bool(rki_gltf *g, const rki_json *obj, const rki_gltf_loc *base, const char *key, bool def, bool *out)
{
	*out = def;
	const rki_json *v = rki_gltf_member(obj, key);
	if (!v) return true;
	if (v->type != RKI_JSON_TRUE && v->type != RKI_JSON_FALSE) {
		char got[80];
		rki_gltf_describe(g, got, sizeof(got), v);
		return rki_gltf_fail_key(g, RK_ERROR_CORRUPT, base, key, "expected true or false, got %s", got);
	}
	*out = v->type == RKI_JSON_TRUE;
	return true;
}

bool rki_gltf_string(rki_gltf *g, const rki_json *obj, const rki_gltf_loc *base, const char *key, const rki_json **out)
{
	*out = NULL;
	const rki_json *v = rki_gltf_member(obj, key);
	if (!v) return true;
	if (v->type != RKI_JSON_STRING) {
		char got[80];
		rki_gltf_describe(g, got, sizeof(got), v);
		return rki_gltf_fail_key(g, RK_ERROR_CORRUPT, base, key, "expected a string, got %s", got);
	}
	*out = v;
	return true;
}

bool rki_gltf_object(rki_gltf *g, const rki_json *obj, const rki_gltf_loc *base, const char *key, const rki_json **out)
{
	*out = NULL;
	const rki_json *v = rki_gltf_member(obj, key);
	if (!v) return true;
	if (v->type != RKI_JSON_OBJECT) {
		char got[80];
		rki_gltf_describe(g, got, sizeof(got), v);
		return rki_gltf_fail_key(g, RK_ERROR_CORRUPT, base, key, "expected an object, got %s", got);
	}
	*out = v;
	return true;
}

bool rki_gltf_array(rki_gltf *g, const rki_json *obj, const rki_gltf_loc *base, const char *key, const rki_json **out, size_t *count)
{
	*out = NULL;
	*count = 0;
	const rki_json *v = rki_gltf_member(obj, key);
	if (!v) return true;
	if (v->type != RKI_JSON_ARRAY) {
		char got[80];
		rki_gltf_describe(g, got, sizeof(got), v);
		return rki_gltf_fail_key(g, RK_ERROR_CORRUPT, base, key, "expected an array, got %s", got);
	}
	size_t n = v->len;
	if (n > g->sc.opts.max_elements)
		return rki_gltf_fail_key(g, RK_ERROR_LIMIT, base, key, "array of %zu items is over the max_elements limit %zu",
			n, g->sc.opts.max_elements);
	*out = v;
	*count = n;
	return true;
}

bool rki_gltf_list_init(rki_gltf *g, const char *key, rki_gltf_list *out)
{
	out->items = NULL;
	out->count = 0;
	const rki_json *arr;
	size_t n;
	if (!rki_gltf_array(g, g->json, NULL, key, &arr, &n)) return false;
	if (!arr) return true;
	for (size_t i = 0; i < n; i++)
		if (arr->u.items[i].type != RKI_JSON_OBJECT)
			return rki_gltf_fail(g, RK_ERROR_CORRUPT, RKI_GLTF_IDX(RKI_GLTF_KEY(NULL, key), i), "expected an object in /%s", key);
	out->items = arr->u.items;
	out->count = n;
	return true;
}

const char *rki_gltf_strdup(rki_gltf *g, const char *s)
{
	if (!s) s = "";
	const char *d = rki_arena_strndup(g->sc.arena, s, strlen(s));
	if (!d) rki_gltf_oom(g);
	return d;
}

const char *rki_gltf_json_strdup(rki_gltf *g, rki_arena *ar, const rki_json *str)
{
	const char *d = str ? rki_arena_strndup(ar, str->u.text, str->len) : rki_arena_strndup(ar, "", 0);
	if (!d) rki_gltf_oom(g);
	return d;
}

const char *rki_gltf_name(rki_gltf *g, const rki_json *obj, const rki_gltf_loc *base)
{
	const rki_json *s;
	if (!rki_gltf_string(g, obj, base, "name", &s)) return NULL;
	return rki_gltf_json_strdup(g, g->sc.arena, s);
}

void *rki_gltf_scratch(rki_gltf *g, int slot, size_t count, size_t size)
{
	size_t bytes;
	rki_buf *b = &g->scratch[slot];
	if (!rki_mul_size(count, size, &bytes)) {
		rki_gltf_fail(g, RK_ERROR_LIMIT, NULL, "temporary array of %zu x %zu bytes is too large", count, size);
		return NULL;
	}
	if (bytes == 0) bytes = 1;
	b->size = 0;
	if (!rki_buf_reserve(b, bytes)) {
		rki_gltf_oom(g);
		return NULL;
	}
	return b->data;
}
