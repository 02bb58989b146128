/*
 * src/core/json.c - the streaming JSON writer of rigkit/json.h.
 *
 * The text lives in one growable buffer (w->data, always NUL-terminated once
 * allocated). Every public call funnels into rki_json_put(), which is the
 * only place that allocates; the first failure is stored in w->error and
 * turns every later call into a no-op.
 */
#include "rigkit/json.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RKI_JSON_MIN_CAPACITY 256

/* ---- state and buffer --------------------------------------------------- */

static void rki_json_fail(rk_json_writer *w, rk_error_code code)
{
	if (w->error == RK_OK) w->error = code;
}

/* Releases a block of `size` bytes obtained from the writer's allocator. */
static void rki_json_release(const rk_allocator *a, void *p, size_t size)
{
	if (!p) return;
	if (a->alloc) {
		if (a->free) a->free(a->user, p, size);
		/* alloc without free: the user's memory is not ours to release */
	} else {
		free(p);
	}
}

/* Makes room for `extra` more bytes plus the NUL. */
static bool rki_json_reserve(rk_json_writer *w, size_t extra)
{
	if (w->length > SIZE_MAX - 1 || extra > SIZE_MAX - 1 - w->length) {
		rki_json_fail(w, RK_ERROR_LIMIT);
		return false;
	}
	size_t need = w->length + extra + 1;
	if (need <= w->capacity) return true;
	size_t cap = w->capacity >= RKI_JSON_MIN_CAPACITY ? w->capacity : RKI_JSON_MIN_CAPACITY;
	while (cap < need) cap = cap > SIZE_MAX / 2 ? need : cap * 2;
	char *p;
	if (w->allocator.alloc) {
		p = (char *)w->allocator.alloc(w->allocator.user, cap);
		if (p && w->data) memcpy(p, w->data, w->length + 1);
		if (p) rki_json_release(&w->allocator, w->data, w->capacity);
	} else {
		p = (char *)realloc(w->data, cap);
	}
	if (!p) {
		rki_json_fail(w, RK_ERROR_OUT_OF_MEMORY);
		return false;
	}
	w->data = p;
	w->capacity = cap;
	return true;
}

static void rki_json_put(rk_json_writer *w, const char *s, size_t n)
{
	if (w->error != RK_OK || n == 0) return;
	if (!rki_json_reserve(w, n)) return;
	memcpy(w->data + w->length, s, n);
	w->length += n;
	w->data[w->length] = '\0';
}

static void rki_json_putc(rk_json_writer *w, char c)
{
	rki_json_put(w, &c, 1);
}

/* Newline plus two spaces per level (pretty mode only). */
static void rki_json_newline(rk_json_writer *w, int depth)
{
	static const char spaces[] = "                                ";
	size_t n = (size_t)depth * 2;
	rki_json_putc(w, '\n');
	while (n > 0) {
		size_t k = n < sizeof(spaces) - 1 ? n : sizeof(spaces) - 1;
		rki_json_put(w, spaces, k);
		n -= k;
	}
}

static void rki_json_reset(rk_json_writer *w)
{
	unsigned flags = w->flags;
	rk_allocator allocator = w->allocator;
	memset(w, 0, sizeof(*w));
	w->flags = flags;
	w->allocator = allocator;
}

/* ---- strings -------------------------------------------------------------- */

/* Length of the well-formed UTF-8 sequence starting at s[0] (a byte >= 0x80,
 * n bytes available), or 0 when it is not one. The second byte's range
 * excludes overlong forms, surrogates and code points above U+10FFFF. */
static size_t rki_json_utf8_length(const unsigned char *s, size_t n)
{
	unsigned c = s[0];
	size_t len;
	unsigned lo = 0x80, hi = 0xBF;
	if (c >= 0xC2 && c <= 0xDF) len = 2;
	else if (c >= 0xE0 && c <= 0xEF) {
		len = 3;
		if (c == 0xE0) lo = 0xA0;
		else if (c == 0xED) hi = 0x9F;
	} else if (c >= 0xF0 && c <= 0xF4) {
		len = 4;
		if (c == 0xF0) lo = 0x90;
		else if (c == 0xF4) hi = 0x8F;
	} else {
		return 0;
	}
	if (n < len) return 0;
	if (s[1] < lo || s[1] > hi) return 0;
	for (size_t i = 2; i < len; i++)
		if ((s[i] & 0xC0) != 0x80) return 0;
	return len;
}

/* Escaped bytes without the quotes. Runs of bytes that need no escape are
 * copied with one put. */
static void rki_json_escape(rk_json_writer *w, const unsigned char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	size_t run = 0, i = 0;
	while (i < n && w->error == RK_OK) {
		unsigned c = s[i];
		if (c >= 0x20 && c != '"' && c != '\\' && c < 0x80) {
			i++;
			continue;
		}
		if (c >= 0x80) {
			size_t len = rki_json_utf8_length(s + i, n - i);
			if (len) {
				i += len;
				continue;
			}
		}
		rki_json_put(w, (const char *)s + run, i - run);
		if (c >= 0x80) {
			rki_json_put(w, "\xEF\xBF\xBD", 3); /* U+FFFD for one bad byte */
		} else if (c == '"' || c == '\\') {
			char e[2] = { '\\', (char)c };
			rki_json_put(w, e, 2);
		} else if (c == '\n' && !(w->flags & RK_JSON_ESCAPE_CONTROL_HEX)) {
			rki_json_put(w, "\\n", 2);
		} else if (c == '\r' && !(w->flags & RK_JSON_ESCAPE_CONTROL_HEX)) {
			rki_json_put(w, "\\r", 2);
		} else if (c == '\t' && !(w->flags & RK_JSON_ESCAPE_CONTROL_HEX)) {
			rki_json_put(w, "\\t", 2);
		} else {
			char e[6] = { '\\', 'u', '0', '0', hex[c >> 4], hex[c & 15] };
			rki_json_put(w, e, 6);
		}
		i++;
		run = i;
	}
	rki_json_put(w, (const char *)s + run, i - run);
}

static void rki_json_quoted(rk_json_writer *w, const char *s, size_t n)
{
	rki_json_putc(w, '"');
	rki_json_escape(w, (const unsigned char *)s, n);
	rki_json_putc(w, '"');
}

/* ---- structure -------------------------------------------------------------- */

/* Everything before a value: the misuse checks, the comma, the pretty
 * newline and indentation, and "key":. False when the value must not be
 * written. */
static bool rki_json_prefix(rk_json_writer *w, const char *key)
{
	if (w->error != RK_OK) return false;
	if (w->in_string) {
		rki_json_fail(w, RK_ERROR_INVALID_ARGUMENT);
		return false;
	}
	int d = w->depth;
	if (d == 0) {
		if (w->done || key) {
			rki_json_fail(w, RK_ERROR_INVALID_ARGUMENT);
			return false;
		}
		w->done = true;
		return true;
	}
	if (w->is_object[d] ? key == NULL : key != NULL) {
		rki_json_fail(w, RK_ERROR_INVALID_ARGUMENT);
		return false;
	}
	if (w->has_items[d]) rki_json_putc(w, ',');
	w->has_items[d] = 1;
	if (w->flags & RK_JSON_PRETTY) rki_json_newline(w, d);
	if (key) {
		rki_json_quoted(w, key, strlen(key));
		if (w->flags & RK_JSON_PRETTY) rki_json_put(w, ": ", 2);
		else rki_json_putc(w, ':');
	}
	return w->error == RK_OK;
}

static void rki_json_open(rk_json_writer *w, const char *key, bool object)
{
	if (!rki_json_prefix(w, key)) return;
	if (w->depth >= RK_JSON_MAX_DEPTH) {
		rki_json_fail(w, RK_ERROR_LIMIT);
		return;
	}
	rki_json_putc(w, object ? '{' : '[');
	w->depth++;
	w->is_object[w->depth] = object;
	w->has_items[w->depth] = 0;
}

static void rki_json_close(rk_json_writer *w, bool object)
{
	if (w->error != RK_OK) return;
	if (w->in_string || w->depth == 0 || (bool)w->is_object[w->depth] != object) {
		rki_json_fail(w, RK_ERROR_INVALID_ARGUMENT);
		return;
	}
	bool had = w->has_items[w->depth];
	w->depth--;
	if (had && (w->flags & RK_JSON_PRETTY)) rki_json_newline(w, w->depth);
	rki_json_putc(w, object ? '}' : ']');
}

/* ---- numbers ------------------------------------------------------------------ */

/* printf obeys LC_NUMERIC; JSON wants '.'. */
static void rki_json_fix_decimal_point(char *t, int k)
{
	for (int i = 0; i < k; i++)
		if (t[i] == ',') t[i] = '.';
}

/* "%.*g" of v at precision p (1..17) made from d[18], the first 18
 * significant digits of v ("%.17e": d[0].d[1..17] x 10^e10), and `point`,
 * the locale's decimal point; v < 0 when neg. False when the 18 digits do
 * not decide the rounding to p digits (the digits after the p-th are
 * exactly 5000...: the value may be a tie, or below or above it): the
 * caller asks snprintf then. Otherwise the text is exactly snprintf's: d
 * rounded half up at p digits gives the correctly rounded p digits of v
 * (no rounding boundary of p digits lies strictly between v and its
 * 18-digit rounding, and one equal to it is the undecided case), laid out
 * by the %g rules (C11 7.21.6.1: style e when the exponent X < -4 or
 * X >= p, trailing zeros and a bare point removed). */
static bool rki_json_g_from_digits(char *t, size_t cap, int *len, const char *d, int e10, bool neg, char point, int p)
{
	if (d[p] == '5') {
		bool zeros = true;
		for (int i = p + 1; i < 18; i++) zeros = zeros && d[i] == '0';
		if (zeros) return false;
	}
	char r[18];
	memcpy(r, d, (size_t)p);
	int x = e10;
	if (d[p] >= '5') {
		int i = p - 1;
		while (i >= 0 && r[i] == '9') r[i--] = '0';
		if (i >= 0) {
			r[i]++;
		} else {
			r[0] = '1'; /* 99..9 -> 100..0: one more decade */
			for (int k = 1; k < p; k++) r[k] = '0';
			x++;
		}
	}
	int nd = p; /* significant digits after removing trailing zeros */
	while (nd > 1 && r[nd - 1] == '0') nd--;
	char o[48];
	int k = 0;
	if (neg) o[k++] = '-';
	if (x < -4 || x >= p) {
		o[k++] = r[0];
		if (nd > 1) {
			o[k++] = point;
			for (int i = 1; i < nd; i++) o[k++] = r[i];
		}
		int ax = x < 0 ? -x : x;
		o[k++] = 'e';
		o[k++] = x < 0 ? '-' : '+';
		if (ax >= 100) o[k++] = (char)('0' + ax / 100);
		o[k++] = (char)('0' + (ax / 10) % 10);
		o[k++] = (char)('0' + ax % 10);
	} else if (x >= 0) {
		for (int i = 0; i <= x; i++) o[k++] = r[i]; /* x < p: every integer digit is significant */
		if (nd > x + 1) {
			o[k++] = point;
			for (int i = x + 1; i < nd; i++) o[k++] = r[i];
		}
	} else {
		o[k++] = '0';
		o[k++] = point;
		for (int i = 0; i < -x - 1; i++) o[k++] = '0';
		for (int i = 0; i < nd; i++) o[k++] = r[i];
	}
	if ((size_t)k >= cap) return false;
	memcpy(t, o, (size_t)k);
	t[k] = '\0';
	*len = k;
	return true;
}

/* The shortest "%.*g" of finite, non-zero v that reads back as v (the
 * smallest precision from 1 to 17 that round-trips), into t[cap]. The
 * digits come from one "%.17e" and each candidate is read back with
 * strtod; a precision the 18 digits leave undecided asks snprintf. */
static int rki_json_shortest(char *t, size_t cap, double v)
{
	char e[48], d[18];
	int n = snprintf(e, sizeof(e), "%.17e", v);
	/* [-]d<point>ddddddddddddddddde<sign>X..: the point is one byte in the C
	 * and common locales; any other shape goes to snprintf at every precision */
	int i = e[0] == '-' ? 1 : 0;
	bool parsed = n >= 22 && n < (int)sizeof(e) && e[i + 19] == 'e';
	char point = parsed ? e[i + 1] : '.';
	int e10 = 0;
	if (parsed) {
		d[0] = e[i];
		memcpy(d + 1, e + i + 2, 17);
		e10 = atoi(e + i + 20);
	}
	int k = 0;
	for (int prec = 1; prec <= 17; prec++) {
		if (!parsed || !rki_json_g_from_digits(t, cap, &k, d, e10, i == 1, point, prec)) {
			k = snprintf(t, cap, "%.*g", prec, v);
			if (k < 0 || (size_t)k >= cap) return k;
		}
		if (strtod(t, NULL) == v) break; /* read back in the same locale */
	}
	return k;
}

/* The text of v per the writer's flags into t[cap] (cap >= 40); returns its
 * length. */
static int rki_json_format_number(char *t, size_t cap, double v, unsigned flags)
{
	int k;
	if (!isfinite(v)) return snprintf(t, cap, "%s", (flags & RK_JSON_NONFINITE_ZERO) ? "0" : "null");
	if (!(flags & RK_JSON_SHORTEST)) {
		k = snprintf(t, cap, "%.17g", v);
	} else if (v == 0.0) {
		k = snprintf(t, cap, "0");
	} else if (v == floor(v) && fabs(v) < 1e15) {
		k = snprintf(t, cap, "%.0f", v);
	} else {
		k = rki_json_shortest(t, cap, v);
	}
	if (k < 0 || (size_t)k >= cap) return snprintf(t, cap, "null"); /* cannot happen with cap >= 40 */
	rki_json_fix_decimal_point(t, k);
	return k;
}

static void rki_json_put_number(rk_json_writer *w, double v)
{
	char t[48];
	int k = rki_json_format_number(t, sizeof(t), v, w->flags);
	rki_json_put(w, t, (size_t)k);
}

/* ---- public: lifetime ------------------------------------------------------------ */

void rk_json_writer_init(rk_json_writer *w, unsigned flags)
{
	memset(w, 0, sizeof(*w));
	w->flags = flags;
}

bool rk_json_writer_ok(const rk_json_writer *w)
{
	return w->error == RK_OK;
}

rk_error_code rk_json_writer_error(const rk_json_writer *w)
{
	return w->error;
}

const char *rk_json_writer_text(const rk_json_writer *w, size_t *length)
{
	bool have = w->error == RK_OK && w->data != NULL;
	if (length) *length = have ? w->length : 0;
	return have ? w->data : NULL;
}

char *rk_json_writer_finish(rk_json_writer *w, size_t *length)
{
	if (length) *length = 0;
	if (w->error == RK_OK && (w->depth != 0 || w->in_string || !w->done))
		rki_json_fail(w, RK_ERROR_INVALID_ARGUMENT);
	if (w->flags & RK_JSON_PRETTY) rki_json_putc(w, '\n');
	if (w->error != RK_OK || !w->data) {
		rk_error_code e = w->error != RK_OK ? w->error : RK_ERROR_INVALID_ARGUMENT;
		rk_json_writer_free(w);
		w->error = e; /* kept so the caller can ask why */
		return NULL;
	}
	char *text = w->data;
	size_t n = w->length;
	if (w->capacity != n + 1) {
		/* hand over a block of exactly n + 1 bytes, so that
		 * rk_json_free_text can tell a user allocator its size */
		if (w->allocator.alloc) {
			char *p = (char *)w->allocator.alloc(w->allocator.user, n + 1);
			if (!p) {
				rk_json_writer_free(w);
				w->error = RK_ERROR_OUT_OF_MEMORY;
				return NULL;
			}
			memcpy(p, text, n + 1);
			rki_json_release(&w->allocator, text, w->capacity);
			text = p;
		} else {
			char *p = (char *)realloc(text, n + 1);
			if (p) text = p; /* a failed shrink keeps the larger block */
		}
	}
	rki_json_reset(w);
	if (length) *length = n;
	return text;
}

void rk_json_writer_free(rk_json_writer *w)
{
	rki_json_release(&w->allocator, w->data, w->capacity);
	rki_json_reset(w);
}

void rk_json_free_text(const rk_allocator *allocator, char *text, size_t length)
{
	static const rk_allocator none = { 0 };
	if (!text) return;
	rki_json_release(allocator ? allocator : &none, text, length + 1);
}

/* ---- public: containers ------------------------------------------------------------ */

void rk_json_object_begin(rk_json_writer *w, const char *key) { rki_json_open(w, key, true); }
void rk_json_object_end(rk_json_writer *w) { rki_json_close(w, true); }
void rk_json_array_begin(rk_json_writer *w, const char *key) { rki_json_open(w, key, false); }
void rk_json_array_end(rk_json_writer *w) { rki_json_close(w, false); }

/* ---- public: values -------------------------------------------------------------------- */

void rk_json_string(rk_json_writer *w, const char *key, const char *value)
{
	if (!rki_json_prefix(w, key)) return;
	rki_json_quoted(w, value ? value : "", value ? strlen(value) : 0);
}

void rk_json_string_n(rk_json_writer *w, const char *key, const char *value, size_t length)
{
	if (!value && length) {
		rki_json_fail(w, RK_ERROR_INVALID_ARGUMENT);
		return;
	}
	if (!rki_json_prefix(w, key)) return;
	rki_json_quoted(w, value ? value : "", length);
}

void rk_json_string_begin(rk_json_writer *w, const char *key)
{
	if (!rki_json_prefix(w, key)) return;
	rki_json_putc(w, '"');
	w->in_string = true;
}

void rk_json_string_append(rk_json_writer *w, const char *data, size_t length)
{
	if (w->error != RK_OK) return;
	if (!w->in_string || (!data && length)) {
		rki_json_fail(w, RK_ERROR_INVALID_ARGUMENT);
		return;
	}
	if (length) rki_json_escape(w, (const unsigned char *)data, length);
}

void rk_json_string_end(rk_json_writer *w)
{
	if (w->error != RK_OK) return;
	if (!w->in_string) {
		rki_json_fail(w, RK_ERROR_INVALID_ARGUMENT);
		return;
	}
	w->in_string = false;
	rki_json_putc(w, '"');
}

void rk_json_number(rk_json_writer *w, const char *key, double value)
{
	if (!rki_json_prefix(w, key)) return;
	rki_json_put_number(w, value);
}

void rk_json_int(rk_json_writer *w, const char *key, long long value)
{
	char t[32];
	if (!rki_json_prefix(w, key)) return;
	int k = snprintf(t, sizeof(t), "%lld", value);
	rki_json_put(w, t, (size_t)k);
}

void rk_json_uint(rk_json_writer *w, const char *key, uint64_t value)
{
	char t[32];
	if (!rki_json_prefix(w, key)) return;
	int k = snprintf(t, sizeof(t), "%llu", (unsigned long long)value);
	rki_json_put(w, t, (size_t)k);
}

void rk_json_bool(rk_json_writer *w, const char *key, bool value)
{
	if (!rki_json_prefix(w, key)) return;
	if (value) rki_json_put(w, "true", 4);
	else rki_json_put(w, "false", 5);
}

void rk_json_null(rk_json_writer *w, const char *key)
{
	if (!rki_json_prefix(w, key)) return;
	rki_json_put(w, "null", 4);
}

void rk_json_raw(rk_json_writer *w, const char *key, const char *json, size_t length)
{
	if (!json && length) {
		rki_json_fail(w, RK_ERROR_INVALID_ARGUMENT);
		return;
	}
	if (!rki_json_prefix(w, key)) return;
	rki_json_put(w, json, length);
}

/* ---- public: number arrays ------------------------------------------------------------- */

void rk_json_numbers(rk_json_writer *w, const char *key, const double *values, size_t count)
{
	if (!values && count) {
		rki_json_fail(w, RK_ERROR_INVALID_ARGUMENT);
		return;
	}
	if (!rki_json_prefix(w, key)) return;
	if (w->depth >= RK_JSON_MAX_DEPTH) {
		rki_json_fail(w, RK_ERROR_LIMIT); /* the array is one more level */
		return;
	}
	bool pretty = (w->flags & RK_JSON_PRETTY) != 0;
	rki_json_putc(w, '[');
	for (size_t i = 0; i < count && w->error == RK_OK; i++) {
		if (i) rki_json_put(w, pretty ? ", " : ",", pretty ? 2 : 1);
		rki_json_put_number(w, values[i]);
	}
	rki_json_putc(w, ']');
}

void rk_json_vec3(rk_json_writer *w, const char *key, rk_vec3 v)
{
	double a[3] = { v.x, v.y, v.z };
	rk_json_numbers(w, key, a, 3);
}

void rk_json_quat(rk_json_writer *w, const char *key, rk_quat q)
{
	double a[4] = { q.x, q.y, q.z, q.w };
	rk_json_numbers(w, key, a, 4);
}

void rk_json_mat4(rk_json_writer *w, const char *key, rk_mat4 m)
{
	rk_json_numbers(w, key, m.m, 16);
}
