/*
 * src/export/gltf/gltf_write_buffer.c - the glTF writer's low-level helpers:
 * errors and warnings, temporary arrays, JSON writers and sections on the
 * run's allocator (rigkit/json.h does the text), the BIN buffer with its
 * bufferViews and accessors. Every other writer file uses these; this file
 * calls none of them (call graph in gltf_write_internal.h).
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

void *rki_gw_tmp_array_uninit(rki_gw *w, size_t count, size_t size)
{
	size_t total;
	void *p = NULL;
	if (rki_mul_size(count ? count : 1, size ? size : 1, &total)) p = rki_arena_alloc_uninit(&w->tmp, total);
	else w->alloc.failed = true;
	if (!p) rki_gw_oom(w);
	return p;
}

/* ---- JSON writers and sections --------------------------------------------------- */

/* rk_allocator over the run's rki_alloc: limits and accounting apply. */
static void *rki_gw_json_alloc(void *user, size_t size)
{
	return rki_malloc((rki_alloc *)user, size);
}

static void rki_gw_json_free(void *user, void *ptr, size_t size)
{
	rki_free((rki_alloc *)user, ptr, size);
}

void rki_gw_json_init(rki_gw *w, rk_json_writer *j)
{
	rk_json_writer_init(j, RKI_GW_JSON_FLAGS);
	j->allocator = (rk_allocator){ rki_gw_json_alloc, rki_gw_json_free, &w->alloc };
}

bool rki_gw_json_check(rki_gw *w, const rk_json_writer *j)
{
	switch (rk_json_writer_error(j)) {
	case RK_OK: return true;
	case RK_ERROR_OUT_OF_MEMORY: return rki_gw_oom(w);
	case RK_ERROR_LIMIT: return rki_gw_fail(w, RK_ERROR_LIMIT, "glTF writer: JSON document too large or too deep");
	default: return rki_gw_fail(w, RK_ERROR_INVALID_ARGUMENT, "glTF writer: malformed JSON call (internal error)");
	}
}

void rki_gw_section_init(rki_gw *w, rki_gw_section *s)
{
	rki_gw_json_init(w, &s->json);
	s->count = 0;
	s->open = false;
}

rk_json_writer *rki_gw_section_json(rki_gw_section *s)
{
	if (!s->open) {
		rk_json_array_begin(&s->json, NULL);
		s->open = true;
	}
	return &s->json;
}

bool rki_gw_section_emit(rki_gw *w, rk_json_writer *out, const char *key, rki_gw_section *s)
{
	if (!rki_gw_json_check(w, &s->json)) return false;
	if (s->count == 0) return true;
	rk_json_array_end(&s->json);
	size_t n = 0;
	const char *text = rk_json_writer_text(&s->json, &n);
	if (!rki_gw_json_check(w, &s->json)) return false;
	rk_json_raw(out, key, text, n);
	return rki_gw_json_check(w, out);
}

void rki_gw_section_free(rki_gw_section *s)
{
	rk_json_writer_free(&s->json);
	s->open = false;
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
	rki_gw_view v;
	memset(&v, 0, sizeof(v));
	v.offset = w->bin.size - size;
	v.length = size;
	v.target = target;
	if (!rki_buf_push(&w->views, &v, sizeof(v))) {
		rki_gw_oom(w);
		return -1;
	}
	return (int32_t)(w->views.size / sizeof(rki_gw_view) - 1);
}

void rki_gw_accessor_use(rki_gw *w, int32_t acc, unsigned use)
{
	if (acc < 0 || (size_t)acc >= w->accessors.size / sizeof(rki_gw_accessor)) return;
	((rki_gw_accessor *)w->accessors.data)[acc].use = (uint8_t)use;
}

static size_t rki_gw_component_size(uint32_t ct)
{
	switch (ct) {
	case RKI_GW_BYTE:
	case RKI_GW_UNSIGNED_BYTE: return 1;
	case RKI_GW_SHORT:
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
