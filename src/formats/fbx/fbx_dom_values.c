/*
 * src/formats/fbx/fbx_dom_values.c - typed access to FBX property values (see
 * fbx_dom.h): scalar conversion (rki_fbx_prop_i64/f64/str) and arrays as
 * double/int32/int64 (rki_fbx_array_*, rki_fbx_prop_array), decoding pending
 * (lazy) arrays on first access or taking them from the running batch.
 */
#include "formats/fbx/fbx_dom_private.h"

#include <libdeflate.h>
#include <stdarg.h>
#include <math.h>
#include <string.h>

/* ---- scalar values ----------------------------------------------------------------- */

static bool rki_fbx_f64_to_i64(double v, int64_t *out)
{
	/* [-2^63, 2^63): both bounds exact in double; NaN fails the comparison. */
	if (!(v >= -9223372036854775808.0 && v < 9223372036854775808.0)) return false;
	int64_t i = (int64_t)v;
	if ((double)i != v) return false;
	*out = i;
	return true;
}

static bool rki_fbx_is_int_type(char t)
{
	return t == 'Y' || t == 'C' || t == 'I' || t == 'L';
}

bool rki_fbx_prop_i64(const rki_fbx_node *n, size_t i, int64_t *out)
{
	if (!n || i >= n->prop_count || !out) return false;
	const rki_fbx_prop *pr = &n->props[i];
	if (rki_fbx_is_int_type(pr->type)) {
		*out = pr->v.i;
		return true;
	}
	if (pr->type == 'F' || pr->type == 'D') return rki_fbx_f64_to_i64(pr->v.f, out);
	return false;
}

bool rki_fbx_prop_f64(const rki_fbx_node *n, size_t i, double *out)
{
	if (!n || i >= n->prop_count || !out) return false;
	const rki_fbx_prop *pr = &n->props[i];
	if (rki_fbx_is_int_type(pr->type)) {
		*out = (double)pr->v.i;
		return true;
	}
	if (pr->type == 'F' || pr->type == 'D') {
		*out = pr->v.f;
		return true;
	}
	return false;
}

bool rki_fbx_prop_str(const rki_fbx_node *n, size_t i, const char **data, size_t *len)
{
	if (!n || i >= n->prop_count) return false;
	const rki_fbx_prop *pr = &n->props[i];
	if (pr->type != 'S' && pr->type != 'R') return false;
	if (data) *data = pr->v.s.data;
	if (len) *len = pr->v.s.len;
	return true;
}

/* ---- array access -------------------------------------------------------------------- */

/* A numeric sequence: one array property, or (type 0) all scalar properties of a node. */
typedef struct rki_fbx_seq {
	char type;
	const void *data;
	size_t count;
	const rki_fbx_prop *props;
	uint64_t offset;
} rki_fbx_seq;

static bool rki_fbx_acc_fail(const rki_fbx_node *n, uint64_t offset, rk_error *err, rk_error_code code,
	const char *fmt, ...) RKI_PRINTF(5, 6);

static bool rki_fbx_acc_fail(const rki_fbx_node *n, uint64_t offset, rk_error *err, rk_error_code code,
	const char *fmt, ...)
{
	if (!err) return false;
	va_list ap;
	va_start(ap, fmt);
	rki_error_setv(err, code, fmt, ap);
	va_end(ap);
	rki_error_at_byte(err, offset);
	char path[RK_ERROR_TEXT_MAX];
	rki_fbx_node_path(n, path, sizeof(path));
	if (path[0]) rki_error_at_path(err, RK_LOCATION_FBX_NODE, path);
	return false;
}

/* With `into` NULL the array is decoded into the document and stays decoded;
 * otherwise into `into` (scratch memory of the caller), *scratch_out points at
 * it and the property stays pending. */
static bool rki_fbx_decode_pending(const rki_fbx_node *n, size_t i, rki_arena *into, const void **scratch_out,
	rk_error *err)
{
	rki_fbx_prop *pr = (rki_fbx_prop *)(uintptr_t)&n->props[i];
	rki_fbx_doc *doc = rki_fbx_doc_of(n);
	if (rki_fbx_batch_take(doc, pr)) {   /* decoded by a running batch */
		if (scratch_out) *scratch_out = pr->v.a.data;
		return true;
	}
	rki_arena *dst_arena = into ? into : doc->arena_;
	size_t esize = rki_fbx_array_elem_size(pr->type), count = pr->v.a.count, clen = pr->encoded_size;
	uint64_t bytes = (uint64_t)count * esize;
	uint64_t at = pr->offset + 1 + RKI_FBX_ARRAY_HEADER;
	if (!doc->input_ || !doc->arena_ || esize == 0 || at > doc->input_size_ || clen > doc->input_size_ - at ||
		(pr->pending == 1 && clen != bytes))
		return rki_fbx_acc_fail(n, pr->offset, err, RK_ERROR_CORRUPT, "pending array without its input data");
	size_t alloc;
	void *out = rki_fbx_array_alloc_size(pr->type, bytes, &alloc) ? rki_arena_alloc_uninit(dst_arena, alloc) : NULL;
	if (!out) {
		bool limit = dst_arena->alloc && dst_arena->alloc->limit_hit;
		if (limit)
			return rki_fbx_acc_fail(n, pr->offset, err, RK_ERROR_LIMIT,
				"decoding an array of %zu elements (%llu bytes) exceeds the memory budget of %zu bytes", count,
				(unsigned long long)bytes, dst_arena->alloc->memory_limit);
		return rki_fbx_acc_fail(n, pr->offset, err, RK_ERROR_OUT_OF_MEMORY,
			"cannot allocate %llu bytes to decode an array of %zu elements", (unsigned long long)bytes, count);
	}
	struct libdeflate_decompressor *inflater = NULL;
	bool shared = doc->inflater_ != NULL;   /* kept for the next array (rki_fbx_parse_opts.inflater) */
	if (pr->pending == 2) {
		inflater = shared ? *doc->inflater_ : NULL;
		if (!inflater) inflater = libdeflate_alloc_decompressor();
		if (!inflater)
			return rki_fbx_acc_fail(n, pr->offset, err, RK_ERROR_OUT_OF_MEMORY, "cannot allocate the zlib decompressor");
		if (shared) *doc->inflater_ = inflater;
	}
	size_t got;
	int lib_result;
	rki_fbx_decode_result r = rki_fbx_decode_array(inflater, doc->input_ + at, clen, out, (size_t)bytes, alloc, esize,
		doc->big_endian == rki_fbx_host_little_endian(), &got, &lib_result);
	if (inflater && !shared) libdeflate_free_decompressor(inflater);
	if (r != RKI_FBX_DECODE_OK) {
		char msg[RK_ERROR_TEXT_MAX];
		rki_fbx_decode_message(msg, sizeof(msg), r, lib_result, got, count, esize);
		return rki_fbx_acc_fail(n, pr->offset, err, RK_ERROR_CORRUPT, "%s", msg);
	}
	if (scratch_out) {
		*scratch_out = out;
		return true;
	}
	pr->v.a.data = out;
	pr->pending = 0;
	return true;
}

/* Array property i of n (or, for i == 0, a node whose properties are all
 * numbers) as a sequence. A pending array is decoded into the document, or
 * into `scratch` when that is not NULL (and then stays pending). */
static bool rki_fbx_get_seq(const rki_fbx_node *n, size_t i, rki_arena *scratch, rki_fbx_seq *s, rk_error *err)
{
	memset(s, 0, sizeof(*s));
	if (!n) {
		rki_error_set(err, RK_ERROR_INVALID_ARGUMENT, "expected an array node, got NULL");
		return false;
	}
	s->offset = n->offset;
	if (i < n->prop_count && rki_fbx_array_elem_size(n->props[i].type) != 0) {
		const rki_fbx_prop *pr = &n->props[i];
		const void *data = pr->v.a.data;
		if (pr->pending && !rki_fbx_decode_pending(n, i, scratch, scratch ? &data : NULL, err)) return false;
		if (!scratch) data = pr->v.a.data;
		s->type = pr->type;
		s->data = data;
		s->count = pr->v.a.count;
		s->offset = pr->offset;
		return true;
	}
	if (i == 0) {
		bool all = true;
		for (size_t k = 0; k < n->prop_count && all; k++) {
			char t = n->props[k].type;
			all = rki_fbx_is_int_type(t) || t == 'F' || t == 'D';
		}
		if (all) {
			s->type = 0;
			s->props = n->props;
			s->count = n->prop_count;
			if (n->prop_count) s->offset = n->props[0].offset;
			return true;
		}
	}
	if (i >= n->prop_count)
		return rki_fbx_acc_fail(n, n->offset, err, RK_ERROR_CORRUPT,
			"expected an array as property %zu, but the node has %zu properties", i, n->prop_count);
	const rki_fbx_prop *pr = &n->props[i];
	if (i == 0 && n->prop_count > 0)
		return rki_fbx_acc_fail(n, pr->offset, err, RK_ERROR_CORRUPT,
			"expected a numeric array or a list of numbers, found a property of type '%c'", pr->type);
	return rki_fbx_acc_fail(n, pr->offset, err, RK_ERROR_CORRUPT,
		"expected a numeric array as property %zu, found type '%c'", i, pr->type);
}

/* Room for the converted copy of s (every element is written by the caller),
 * followed by `pad` zero bytes. */
static void *rki_fbx_acc_alloc(const rki_fbx_node *n, const rki_fbx_seq *s, rki_arena *ar, size_t esize,
	size_t pad, rk_error *err)
{
	size_t bytes = 0, alloc = 0;
	void *out = NULL;
	if (rki_mul_size(s->count, esize, &bytes) && rki_add_size(bytes, pad, &alloc))
		out = rki_arena_alloc_uninit(ar, alloc ? alloc : 1);
	else if (ar->alloc)
		ar->alloc->failed = true;
	if (out) {
		memset((unsigned char *)out + bytes, 0, pad);
	} else {
		bool limit = ar->alloc && ar->alloc->limit_hit;
		if (limit)
			rki_fbx_acc_fail(n, s->offset, err, RK_ERROR_LIMIT,
				"%zu array elements of %zu bytes exceed the memory budget of %zu bytes", s->count, esize,
				ar->alloc->memory_limit);
		else
			rki_fbx_acc_fail(n, s->offset, err, RK_ERROR_OUT_OF_MEMORY, "cannot allocate %zu array elements of %zu bytes",
				s->count, esize);
	}
	return out;
}

/* Element k as double (any numeric sequence). */
static double rki_fbx_seq_f64(const rki_fbx_seq *s, size_t k)
{
	switch (s->type) {
	case 'f': return ((const float *)s->data)[k];
	case 'd': return ((const double *)s->data)[k];
	case 'l': return (double)((const int64_t *)s->data)[k];
	case 'i': return ((const int32_t *)s->data)[k];
	case 'b': return ((const uint8_t *)s->data)[k];
	case 'c': return ((const int8_t *)s->data)[k];
	default: {
		const rki_fbx_prop *pr = &s->props[k];
		return rki_fbx_is_int_type(pr->type) ? (double)pr->v.i : pr->v.f;
	}
	}
}

/* Element k as int64 when it is integral. */
static bool rki_fbx_seq_i64(const rki_fbx_seq *s, size_t k, int64_t *out)
{
	switch (s->type) {
	case 'l': *out = ((const int64_t *)s->data)[k]; return true;
	case 'i': *out = ((const int32_t *)s->data)[k]; return true;
	case 'b': *out = ((const uint8_t *)s->data)[k]; return true;
	case 'c': *out = ((const int8_t *)s->data)[k]; return true;
	case 'f': return rki_fbx_f64_to_i64(((const float *)s->data)[k], out);
	case 'd': return rki_fbx_f64_to_i64(((const double *)s->data)[k], out);
	default: {
		const rki_fbx_prop *pr = &s->props[k];
		if (rki_fbx_is_int_type(pr->type)) {
			*out = pr->v.i;
			return true;
		}
		return rki_fbx_f64_to_i64(pr->v.f, out);
	}
	}
}

static bool rki_fbx_not_integer(const rki_fbx_node *n, const rki_fbx_seq *s, size_t k, const char *what,
	rk_error *err)
{
	return rki_fbx_acc_fail(n, s->offset, err, RK_ERROR_CORRUPT, "array element %zu (%.17g) is not %s", k,
		rki_fbx_seq_f64(s, k), what);
}

static bool rki_fbx_array_f64_in(const rki_fbx_node *n, size_t i, rki_arena *ar, bool scratch, bool finite,
	const double **out, size_t *count, rk_error *err)
{
	*out = NULL;
	*count = 0;
	rki_fbx_seq s;
	if (!rki_fbx_get_seq(n, i, scratch ? ar : NULL, &s, err)) return false;
	const double *res;
	if (s.type == 'd') {
		res = (const double *)s.data;
	} else {
		double *dst = (double *)rki_fbx_acc_alloc(n, &s, ar, sizeof(double), RKI_FBX_ARRAY_PAD, err);
		if (!dst) return false;
		if (s.type == 'f') {
			const float *src = (const float *)s.data;
			for (size_t k = 0; k < s.count; k++) dst[k] = src[k];
		} else {
			for (size_t k = 0; k < s.count; k++) dst[k] = rki_fbx_seq_f64(&s, k);
		}
		res = dst;
	}
	if (finite && !rki_f64_all_finite(res, s.count)) {
		for (size_t k = 0; k < s.count; k++) {
			if (!isfinite(res[k]))
				return rki_fbx_acc_fail(n, s.offset, err, RK_ERROR_CORRUPT, "%s element %zu (%g) is not a finite number",
					n->name, k, res[k]);
		}
	}
	*out = res;
	*count = s.count;
	return true;
}

bool rki_fbx_array_f64(const rki_fbx_node *n, size_t i, rki_arena *ar, const double **out, size_t *count,
	rk_error *err)
{
	return rki_fbx_array_f64_in(n, i, ar, false, true, out, count, err);
}

bool rki_fbx_array_f64_scratch(const rki_fbx_node *n, size_t i, rki_arena *ar, const double **out, size_t *count,
	rk_error *err)
{
	return rki_fbx_array_f64_in(n, i, ar, true, true, out, count, err);
}

bool rki_fbx_array_f64_any_scratch(const rki_fbx_node *n, size_t i, rki_arena *ar, const double **out,
	size_t *count, rk_error *err)
{
	return rki_fbx_array_f64_in(n, i, ar, true, false, out, count, err);
}

bool rki_fbx_array_i32(const rki_fbx_node *n, size_t i, rki_arena *ar, const int32_t **out, size_t *count,
	rk_error *err)
{
	*out = NULL;
	*count = 0;
	rki_fbx_seq s;
	if (!rki_fbx_get_seq(n, i, NULL, &s, err)) return false;
	if (s.type == 'i') {
		*out = (const int32_t *)s.data;
		*count = s.count;
		return true;
	}
	int32_t *dst = (int32_t *)rki_fbx_acc_alloc(n, &s, ar, sizeof(int32_t), 0, err);
	if (!dst) return false;
	for (size_t k = 0; k < s.count; k++) {
		int64_t v;
		if (!rki_fbx_seq_i64(&s, k, &v) || v < INT32_MIN || v > INT32_MAX)
			return rki_fbx_not_integer(n, &s, k, "an integer in int32 range", err);
		dst[k] = (int32_t)v;
	}
	*out = dst;
	*count = s.count;
	return true;
}

static bool rki_fbx_array_i64_in(const rki_fbx_node *n, size_t i, rki_arena *ar, bool scratch,
	const int64_t **out, size_t *count, rk_error *err)
{
	*out = NULL;
	*count = 0;
	rki_fbx_seq s;
	if (!rki_fbx_get_seq(n, i, scratch ? ar : NULL, &s, err)) return false;
	if (s.type == 'l') {
		*out = (const int64_t *)s.data;
		*count = s.count;
		return true;
	}
	int64_t *dst = (int64_t *)rki_fbx_acc_alloc(n, &s, ar, sizeof(int64_t), 0, err);
	if (!dst) return false;
	for (size_t k = 0; k < s.count; k++) {
		if (!rki_fbx_seq_i64(&s, k, &dst[k])) return rki_fbx_not_integer(n, &s, k, "an integer in int64 range", err);
	}
	*out = dst;
	*count = s.count;
	return true;
}

bool rki_fbx_array_i64(const rki_fbx_node *n, size_t i, rki_arena *ar, const int64_t **out, size_t *count,
	rk_error *err)
{
	return rki_fbx_array_i64_in(n, i, ar, false, out, count, err);
}

bool rki_fbx_array_i64_scratch(const rki_fbx_node *n, size_t i, rki_arena *ar, const int64_t **out, size_t *count,
	rk_error *err)
{
	return rki_fbx_array_i64_in(n, i, ar, true, out, count, err);
}

bool rki_fbx_prop_array(const rki_fbx_node *n, size_t i, const void **data, size_t *count, rk_error *err)
{
	*data = NULL;
	*count = 0;
	if (!n) {
		rki_error_set(err, RK_ERROR_INVALID_ARGUMENT, "expected an array node, got NULL");
		return false;
	}
	if (i >= n->prop_count)
		return rki_fbx_acc_fail(n, n->offset, err, RK_ERROR_CORRUPT,
			"expected an array as property %zu, but the node has %zu properties", i, n->prop_count);
	const rki_fbx_prop *pr = &n->props[i];
	if (rki_fbx_array_elem_size(pr->type) == 0)
		return rki_fbx_acc_fail(n, pr->offset, err, RK_ERROR_CORRUPT,
			"expected a numeric array as property %zu, found type '%c'", i, pr->type);
	if (pr->pending && !rki_fbx_decode_pending(n, i, NULL, NULL, err)) return false;
	*data = pr->v.a.data;
	*count = pr->v.a.count;
	return true;
}
