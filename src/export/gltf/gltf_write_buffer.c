/*
 * src/export/gltf/gltf_write_buffer.c - the glTF writer's low-level helpers:
 * errors and warnings, temporary arrays, the streaming JSON emitter, the
 * BIN buffer with its bufferViews and accessors. Every other writer file
 * uses these; this file calls none of them (call graph in
 * gltf_write_internal.h).
 */
#include "export/gltf/gltf_write_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- errors and warnings ---------------------------------------------------- */

bool rki_gw_fail(rki_gw *w, rk_error_code code, const char *fmt, ...)
{
	if (!w->failed && w->err) {
		va_list ap;
		va_start(ap, fmt);
		rki_error_setv(w->err, code, fmt, ap);
		va_end(ap);
	}
	w->failed = true;
	return false;
}

bool rki_gw_oom(rki_gw *w)
{
	if (w->alloc.limit_hit)
		return rki_gw_fail(w, RK_ERROR_LIMIT, "glTF writer: memory limit of %zu bytes reached", w->opts.memory_limit);
	return rki_gw_fail(w, RK_ERROR_OUT_OF_MEMORY, "glTF writer: out of memory");
}

void rki_gw_warn(rki_gw *w, const char *fmt, ...)
{
	char msg[RK_ERROR_TEXT_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	for (rki_gw_warning *x = w->warnings; x; x = x->next) {
		if (strcmp(x->message, msg) == 0) {
			x->count++;
			return;
		}
	}
	if (w->opts.warning) {
		/* reported as recorded (rk_warning_fn), even when the list is full */
		rk_warning now = { msg, UINT64_MAX, "", 1 };
		w->opts.warning(w->opts.warning_user, &now);
	}
	if (w->warning_count >= 1024) return; /* bounded */
	rki_gw_warning *x = (rki_gw_warning *)rki_arena_alloc(&w->keep, sizeof(*x));
	if (!x) return; /* a lost warning is not worth failing the write */
	rki_strlcpy(x->message, msg, sizeof(x->message));
	x->count = 1;
	if (w->warnings_tail) w->warnings_tail->next = x;
	else w->warnings = x;
	w->warnings_tail = x;
	w->warning_count++;
}

void *rki_gw_tmp_array(rki_gw *w, size_t count, size_t size)
{
	void *p = rki_arena_array(&w->tmp, count ? count : 1, size ? size : 1);
	if (!p) rki_gw_oom(w);
	return p;
}

/* ---- JSON emitter ------------------------------------------------------------ */

void rki_gw_json_init(rki_gw_json *j, rki_alloc *alloc, int depth)
{
	memset(j, 0, sizeof(*j));
	rki_buf_init(&j->buf, alloc);
	j->depth = depth;
	for (int i = 0; i < RKI_GW_MAX_DEPTH; i++) j->first[i] = true;
}

void rki_gw_json_raw(rki_gw_json *j, const char *s, size_t n)
{
	if (j->failed) return;
	if (!rki_buf_push(&j->buf, s, n)) j->failed = true;
}

static void rki_gw_json_sep(rki_gw_json *j)
{
	if (j->after_key) {
		j->after_key = false;
		return;
	}
	if (j->depth > 0 && j->depth < RKI_GW_MAX_DEPTH) {
		if (!j->first[j->depth]) rki_gw_json_raw(j, ",", 1);
		j->first[j->depth] = false;
	}
}

static void rki_gw_json_open(rki_gw_json *j, char c)
{
	rki_gw_json_sep(j);
	rki_gw_json_raw(j, &c, 1);
	if (j->depth + 1 >= RKI_GW_MAX_DEPTH) {
		j->failed = true;
		return;
	}
	j->depth++;
	j->first[j->depth] = true;
}

static void rki_gw_json_close(rki_gw_json *j, char c)
{
	rki_gw_json_raw(j, &c, 1);
	if (j->depth > 0) j->depth--;
}

void rki_gw_json_obj(rki_gw_json *j) { rki_gw_json_open(j, '{'); }
void rki_gw_json_obj_end(rki_gw_json *j) { rki_gw_json_close(j, '}'); }
void rki_gw_json_arr(rki_gw_json *j) { rki_gw_json_open(j, '['); }
void rki_gw_json_arr_end(rki_gw_json *j) { rki_gw_json_close(j, ']'); }

/* Length of the valid UTF-8 sequence at s (n bytes available), 0 if invalid. */
static size_t rki_gw_utf8_len(const unsigned char *s, size_t n)
{
	unsigned c = s[0];
	size_t len;
	uint32_t cp;
	if (c < 0x80) return 1;
	if (c >= 0xC2 && c <= 0xDF) { len = 2; cp = c & 0x1F; }
	else if (c >= 0xE0 && c <= 0xEF) { len = 3; cp = c & 0x0F; }
	else if (c >= 0xF0 && c <= 0xF4) { len = 4; cp = c & 0x07; }
	else return 0;
	if (n < len) return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xC0) != 0x80) return 0;
		cp = (cp << 6) | (s[i] & 0x3F);
	}
	if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
		return 0;
	return len;
}

void rki_gw_json_str(rki_gw_json *j, const char *s)
{
	rki_gw_json_sep(j);
	rki_gw_json_raw(j, "\"", 1);
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	size_t n = strlen((const char *)p);
	size_t i = 0;
	while (i < n) {
		unsigned c = p[i];
		if (c == '"' || c == '\\') {
			char e[2] = { '\\', (char)c };
			rki_gw_json_raw(j, e, 2);
			i++;
		} else if (c < 0x20) {
			char e[8];
			int k;
			if (c == '\n') k = snprintf(e, sizeof(e), "\\n");
			else if (c == '\r') k = snprintf(e, sizeof(e), "\\r");
			else if (c == '\t') k = snprintf(e, sizeof(e), "\\t");
			else k = snprintf(e, sizeof(e), "\\u%04x", c);
			rki_gw_json_raw(j, e, (size_t)k);
			i++;
		} else {
			size_t len = rki_gw_utf8_len(p + i, n - i);
			if (len == 0) {
				rki_gw_json_raw(j, "\xEF\xBF\xBD", 3); /* U+FFFD */
				i++;
			} else {
				rki_gw_json_raw(j, (const char *)p + i, len);
				i += len;
			}
		}
	}
	rki_gw_json_raw(j, "\"", 1);
}

void rki_gw_json_key(rki_gw_json *j, const char *key)
{
	rki_gw_json_str(j, key);
	rki_gw_json_raw(j, ":", 1);
	j->after_key = true;
}

void rki_gw_json_uint(rki_gw_json *j, uint64_t v)
{
	char t[32];
	int k = snprintf(t, sizeof(t), "%llu", (unsigned long long)v);
	rki_gw_json_sep(j);
	rki_gw_json_raw(j, t, (size_t)k);
}

/* Shortest %.Ng text (N = 1..17) that reads back as exactly v. */
static int rki_gw_format_number(char *t, size_t cap, double v)
{
	if (!isfinite(v) || v == 0.0) return snprintf(t, cap, "0");
	if (v == floor(v) && fabs(v) < 1e15) return snprintf(t, cap, "%.0f", v);
	int k = 0;
	for (int prec = 1; prec <= 17; prec++) {
		k = snprintf(t, cap, "%.*g", prec, v);
		for (int i = 0; i < k; i++) if (t[i] == ',') t[i] = '.'; /* foreign LC_NUMERIC */
		if (strtod(t, NULL) == v) break;
	}
	return k;
}

void rki_gw_json_num(rki_gw_json *j, double v)
{
	char t[40];
	int k = rki_gw_format_number(t, sizeof(t), v);
	rki_gw_json_sep(j);
	rki_gw_json_raw(j, t, (size_t)k);
}

void rki_gw_json_bool(rki_gw_json *j, bool v)
{
	rki_gw_json_sep(j);
	rki_gw_json_raw(j, v ? "true" : "false", v ? 4 : 5);
}

void rki_gw_json_kstr(rki_gw_json *j, const char *key, const char *s) { rki_gw_json_key(j, key); rki_gw_json_str(j, s); }
void rki_gw_json_kuint(rki_gw_json *j, const char *key, uint64_t v) { rki_gw_json_key(j, key); rki_gw_json_uint(j, v); }
void rki_gw_json_knum(rki_gw_json *j, const char *key, double v) { rki_gw_json_key(j, key); rki_gw_json_num(j, v); }

void rki_gw_json_knums(rki_gw_json *j, const char *key, const double *v, size_t n)
{
	rki_gw_json_key(j, key);
	rki_gw_json_arr(j);
	for (size_t i = 0; i < n; i++) rki_gw_json_num(j, v[i]);
	rki_gw_json_arr_end(j);
}

/* ---- binary buffer, views, accessors -------------------------------------------- */

int32_t rki_gw_view_add(rki_gw *w, const void *data, size_t size, uint32_t target)
{
	if (w->failed) return -1;
	static const unsigned char zeros[4] = { 0, 0, 0, 0 };
	size_t pad = (4 - (w->bin.size & 3)) & 3;
	if (w->views.size / sizeof(rki_gw_view) >= (size_t)INT32_MAX) {
		rki_gw_fail(w, RK_ERROR_UNSUPPORTED, "glTF writer: too many buffer views");
		return -1;
	}
	if (!rki_buf_push(&w->bin, zeros, pad) || !rki_buf_push(&w->bin, data, size)) {
		rki_gw_oom(w);
		return -1;
	}
	rki_gw_view v = { w->bin.size - size, size, target };
	if (!rki_buf_push(&w->views, &v, sizeof(v))) {
		rki_gw_oom(w);
		return -1;
	}
	return (int32_t)(w->views.size / sizeof(rki_gw_view) - 1);
}

static size_t rki_gw_component_size(uint32_t ct)
{
	switch (ct) {
	case RKI_GW_UNSIGNED_BYTE: return 1;
	case RKI_GW_UNSIGNED_SHORT: return 2;
	default: return 4;
	}
}

int32_t rki_gw_accessor_add(rki_gw *w, const void *data, uint32_t component_type, size_t count,
	uint32_t components, uint32_t target, bool want_minmax)
{
	if (w->failed) return -1;
	size_t csize = rki_gw_component_size(component_type), bytes;
	if (count == 0 || components == 0 || components > 16 || !rki_mul_size(count, components, &bytes)
		|| !rki_mul_size(bytes, csize, &bytes)) {
		rki_gw_fail(w, RK_ERROR_INVALID_ARGUMENT, "glTF writer: bad accessor (%zu x %u)", count, components);
		return -1;
	}
	rki_gw_accessor a;
	memset(&a, 0, sizeof(a));
	a.component_type = component_type;
	a.count = count;
	a.components = components;
	if (want_minmax) {
		a.has_minmax = true;
		for (uint32_t c = 0; c < components; c++) {
			a.min[c] = INFINITY;
			a.max[c] = -INFINITY;
		}
		for (size_t i = 0; i < count; i++) {
			for (uint32_t c = 0; c < components; c++) {
				size_t k = i * components + c;
				double v;
				if (component_type == RKI_GW_FLOAT) v = (double)((const float *)data)[k];
				else if (component_type == RKI_GW_UNSIGNED_SHORT) v = (double)((const uint16_t *)data)[k];
				else if (component_type == RKI_GW_UNSIGNED_BYTE) v = (double)((const uint8_t *)data)[k];
				else v = (double)((const uint32_t *)data)[k];
				if (v < a.min[c]) a.min[c] = v;
				if (v > a.max[c]) a.max[c] = v;
			}
		}
	}
	int32_t view = rki_gw_view_add(w, data, bytes, target);
	if (view < 0) return -1;
	a.view = (uint32_t)view;
	if (!rki_buf_push(&w->accessors, &a, sizeof(a))) {
		rki_gw_oom(w);
		return -1;
	}
	return (int32_t)(w->accessors.size / sizeof(rki_gw_accessor) - 1);
}
