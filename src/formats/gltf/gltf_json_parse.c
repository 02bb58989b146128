/*
 * src/formats/gltf/gltf_json_parse.c - the strict JSON (RFC 8259) reader behind the
 * glTF reader: one pass over the text into a read-only tree in an arena.
 *
 * WHY NOT cJSON
 *   rigkit prefers a well-kept Debian library over its own code, and the
 *   glTF reader used libcjson until the load-time contract (each shared GLB
 *   at least 3x faster than Assimp) could not be met with it: cJSON's parse
 *   and delete alone take more than the whole budget of Soldier.glb and
 *   three quarters of Xbot's, before a single vertex is decoded. Measured
 *   with bench/bench_json (the JSON chunk parsed from memory, median of 31
 *   runs, 3 sessions; Release, gcc 12.2 -O2, Debian libcjson 1.7.15), the
 *   budget being Assimp 5.2.5's whole load (peer_assimp_load) / 3:
 *
 *     file                JSON bytes  cJSON parse+delete  this reader  budget
 *     Flamingo.glb             5848        0.027 ms          0.005 ms   0.040 ms
 *     Horse.glb                6100        0.029 ms          0.005 ms   0.051 ms
 *     Soldier.glb            351976        1.637 ms          0.282 ms   1.19 ms
 *     Xbot.glb               328164        1.505 ms          0.340 ms   2.05 ms
 *     readyplayer.me.glb      32096        0.156 ms          0.025 ms   0.46 ms
 *
 *   (docs/benchmarks.md has the command lines.) cJSON allocates every value
 *   and every key with malloc (about 50,000 allocations for Xbot.glb) and
 *   converts every number with strtod; glTF documents are mostly small
 *   integers and keys, and most of their floats (accessor min/max) a loader
 *   never reads. This reader allocates from the load's temporary arena,
 *   keeps unescaped strings as spans of the input, converts integers of up
 *   to 19 digits exactly while scanning and keeps other numbers as text that
 *   rki_json_number() converts when (if) they are read.
 *
 * WHAT IT ACCEPTS
 *   Exactly RFC 8259 JSON: one value with optional whitespace (space, tab,
 *   LF, CR) around it; the caller decides what to do with bytes after it
 *   (rki_json_doc.end). Strings must be valid UTF-8 (RFC 3629: no overlong
 *   forms, no UTF-16 surrogates, nothing above U+10FFFF) without raw control
 *   characters; escapes are \" \\ \/ \b \f \n \r \t and \uXXXX, where a high
 *   surrogate must be followed by an escaped low surrogate (the pair becomes
 *   one 4-byte UTF-8 character) and a lone surrogate is an error. \u0000 is
 *   kept as a NUL byte inside the string (strings carry their length).
 *   Numbers follow the RFC grammar (-? int frac? exp?; no leading zeros, no
 *   '+', no bare '.', no NaN/Infinity). Object keys may repeat; lookups find
 *   the first.
 *
 * SAFETY
 *   - No recursion: containers are parsed with an explicit stack whose
 *     depth is limited by max_depth; the number of values by max_values.
 *   - Every allocation goes through the load's counting allocator (memory
 *     and allocation-count limits apply) and is bounded by the input: items
 *     are 16 bytes, object members 24, decoded strings at most their raw
 *     length. Member names longer than RKI_JSON_KEY_MAX (65535) bytes are an
 *     RK_ERROR_LIMIT error.
 *   - The text is never read past `size` (it need not be NUL-terminated: a
 *     GLB JSON chunk is followed by binary data).
 *   - Syntax errors report the byte offset of the offending byte.
 *   - Numbers: strtod on a NUL-terminated copy of at most the number's own
 *     bytes, with '.' replaced by the C library locale's decimal point (read
 *     once per document from snprintf("%.1f", 0.5), which unlike
 *     localeconv() is thread-safe), so results are strtod's correctly
 *     rounded ones in any locale. Two shortcuts give the same
 *     doubles (in the default round-to-nearest mode): integers of up to 19
 *     digits are converted while scanning (the uint64 -> double conversion
 *     rounds to nearest even like strtod), and a decimal m * 10^e with
 *     m <= 2^53 and |e| <= 22 is one multiplication or division of two
 *     exact doubles, which IEEE 754 rounds correctly (Clinger's fast path;
 *     only where FLT_EVAL_METHOD is 0, i.e. no extended precision).
 *   Fuzzed through fuzz/fuzz_gltf.c (see fuzz/README.md).
 */
#include "gltf_internal.h"

#include <float.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct rki_json_frame {
	uint32_t first;              /* first pending member of this container (its own slot is first - 1) */
	uint8_t type;                /* RKI_JSON_ARRAY / RKI_JSON_OBJECT */
} rki_json_frame;

typedef struct rki_json_parser {
	const unsigned char *text, *end;
	rki_arena *ar;
	rki_json_doc *doc;
	rki_json_error *err;
	rki_json_member *pending;    /* children of the open containers, innermost last */
	size_t pending_count, pending_cap;
	rki_json_frame *frames;
	size_t depth, frame_cap, max_depth;
	size_t values, max_values;
} rki_json_parser;

/* ---- errors --------------------------------------------------------------- */

static bool rki_json_fail(rki_json_parser *ps, rk_error_code code, const unsigned char *at, const char *fmt, ...) RKI_PRINTF(4, 5);

static bool rki_json_fail(rki_json_parser *ps, rk_error_code code, const unsigned char *at, const char *fmt, ...)
{
	rki_json_error *e = ps->err;
	if (e->code != RK_OK) return false;
	e->code = code;
	e->offset = (size_t)(at - ps->text);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(e->message, sizeof(e->message), fmt, ap);
	va_end(ap);
	return false;
}

static bool rki_json_oom(rki_json_parser *ps, const unsigned char *at)
{
	return rki_json_fail(ps, RK_ERROR_OUT_OF_MEMORY, at, "out of memory while parsing JSON");
}

/* What is at `p`, for messages. */
static void rki_json_what(char *dst, size_t cap, const rki_json_parser *ps, const unsigned char *p)
{
	if (p >= ps->end) snprintf(dst, cap, "the end of the JSON text");
	else if (*p >= 0x21 && *p < 0x7F) snprintf(dst, cap, "'%c'", *p);
	else snprintf(dst, cap, "byte 0x%02X", (unsigned)*p);
}

static bool rki_json_expected(rki_json_parser *ps, const unsigned char *p, const char *what)
{
	char got[40];
	rki_json_what(got, sizeof(got), ps, p);
	return rki_json_fail(ps, RK_ERROR_CORRUPT, p, "JSON syntax error: expected %s, got %s", what, got);
}

/* ---- lexical helpers -------------------------------------------------------- */

static inline const unsigned char *rki_json_ws(const unsigned char *p, const unsigned char *end)
{
	while (p < end && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t')) p++;
	return p;
}

static inline bool rki_json_digit(unsigned char c)
{
	return (unsigned)(c - '0') < 10u;
}

static int rki_json_hex(unsigned char c)
{
	if (c >= '0' && c <= '9') return c - '0';
	if (c >= 'a' && c <= 'f') return c - 'a' + 10;
	if (c >= 'A' && c <= 'F') return c - 'A' + 10;
	return -1;
}

/* Length of the valid UTF-8 sequence starting with a byte >= 0x80 at p, or 0. */
static size_t rki_json_utf8(const unsigned char *p, const unsigned char *end)
{
	unsigned char c = p[0];
	size_t n = (size_t)(end - p);
	unsigned char lo = 0x80, hi = 0xBF;
	size_t len;
	if (c < 0xC2) return 0;                          /* continuation byte or overlong 2-byte lead */
	if (c < 0xE0) len = 2;
	else if (c < 0xF0) {
		len = 3;
		if (c == 0xE0) lo = 0xA0;                    /* overlong */
		if (c == 0xED) hi = 0x9F;                    /* UTF-16 surrogates */
	} else if (c < 0xF5) {
		len = 4;
		if (c == 0xF0) lo = 0x90;                    /* overlong */
		if (c == 0xF4) hi = 0x8F;                    /* above U+10FFFF */
	} else {
		return 0;
	}
	if (n < len || p[1] < lo || p[1] > hi) return 0;
	for (size_t i = 2; i < len; i++)
		if ((p[i] & 0xC0) != 0x80) return 0;
	return len;
}

/* Any byte of w that is '"', '\\', below 0x20 or above 0x7F (may report
 * false positives, never misses one). */
static inline bool rki_json_special8(uint64_t w)
{
	const uint64_t ones = 0x0101010101010101ull, high = 0x8080808080808080ull;
	uint64_t q = w ^ (ones * '"'), b = w ^ (ones * '\\');
	uint64_t t = ((q - ones) & ~q) | ((b - ones) & ~b) | (w - ones * 0x20) | w;
	return (t & high) != 0;
}

static inline void rki_json_put_utf8(unsigned char **dst, uint32_t cp)
{
	unsigned char *d = *dst;
	if (cp < 0x80) {
		*d++ = (unsigned char)cp;
	} else if (cp < 0x800) {
		*d++ = (unsigned char)(0xC0 | (cp >> 6));
		*d++ = (unsigned char)(0x80 | (cp & 0x3F));
	} else if (cp < 0x10000) {
		*d++ = (unsigned char)(0xE0 | (cp >> 12));
		*d++ = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
		*d++ = (unsigned char)(0x80 | (cp & 0x3F));
	} else {
		*d++ = (unsigned char)(0xF0 | (cp >> 18));
		*d++ = (unsigned char)(0x80 | ((cp >> 12) & 0x3F));
		*d++ = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
		*d++ = (unsigned char)(0x80 | (cp & 0x3F));
	}
	*dst = d;
}

/* The code unit of "\uXXXX" at p (p[0] == '\\'), or -1. */
static long rki_json_u4(const unsigned char *p, const unsigned char *end)
{
	if (end - p < 6 || p[0] != '\\' || p[1] != 'u') return -1;
	long v = 0;
	for (int i = 2; i < 6; i++) {
		int h = rki_json_hex(p[i]);
		if (h < 0) return -1;
		v = v * 16 + h;
	}
	return v;
}

/* ---- strings ----------------------------------------------------------------- */

/* Checks the escape at p (p[0] == '\\'); returns its length, or 0 with the
 * error set. *cp gets the character (UINT32_MAX for none). */
static size_t rki_json_escape(rki_json_parser *ps, const unsigned char *p, uint32_t *cp)
{
	if (ps->end - p < 2) {
		rki_json_expected(ps, p + 1, "an escape character after a backslash");
		return 0;
	}
	switch (p[1]) {
	case '"': *cp = '"'; return 2;
	case '\\': *cp = '\\'; return 2;
	case '/': *cp = '/'; return 2;
	case 'b': *cp = '\b'; return 2;
	case 'f': *cp = '\f'; return 2;
	case 'n': *cp = '\n'; return 2;
	case 'r': *cp = '\r'; return 2;
	case 't': *cp = '\t'; return 2;
	case 'u': {
		long u = rki_json_u4(p, ps->end);
		if (u < 0) {
			rki_json_fail(ps, RK_ERROR_CORRUPT, p, "JSON syntax error: \\u needs 4 hexadecimal digits");
			return 0;
		}
		if (u >= 0xDC00 && u <= 0xDFFF) {
			rki_json_fail(ps, RK_ERROR_CORRUPT, p, "JSON string has a UTF-16 low surrogate \\u%04lX without a high surrogate before it", u);
			return 0;
		}
		if (u >= 0xD800 && u <= 0xDBFF) {
			long lo = rki_json_u4(p + 6, ps->end);
			if (lo < 0xDC00 || lo > 0xDFFF) {
				rki_json_fail(ps, RK_ERROR_CORRUPT, p,
					"JSON string has a UTF-16 high surrogate \\u%04lX not followed by an escaped low surrogate", u);
				return 0;
			}
			*cp = 0x10000u + (((uint32_t)u - 0xD800u) << 10) + ((uint32_t)lo - 0xDC00u);
			return 12;
		}
		*cp = (uint32_t)u;
		return 6;
	}
	default:
		rki_json_fail(ps, RK_ERROR_CORRUPT, p, "JSON syntax error: unknown escape '\\%c' (expected one of \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\u)",
			p[1] >= 0x21 && p[1] < 0x7F ? p[1] : '?');
		return 0;
	}
}

/* The string whose opening quote is at q. *out / *len get its UTF-8 bytes
 * (a span of the input, or a decoded copy in the arena when it has
 * escapes). Returns the position after the closing quote, or NULL. */
static const unsigned char *rki_json_string(rki_json_parser *ps, const unsigned char *q, const char **out, uint32_t *len)
{
	const unsigned char *p = q + 1, *end = ps->end;
	bool escaped = false;
	for (;;) {
		while (end - p >= 8) {
			uint64_t w;
			memcpy(&w, p, sizeof(w));
			if (rki_json_special8(w)) break;
			p += 8;
		}
		if (p >= end) {
			rki_json_fail(ps, RK_ERROR_CORRUPT, q, "JSON syntax error: string not terminated before the end of the JSON text");
			return NULL;
		}
		unsigned char c = *p;
		if (c == '"') break;
		if (c == '\\') {
			uint32_t cp;
			size_t n = rki_json_escape(ps, p, &cp);
			if (!n) return NULL;
			escaped = true;
			p += n;
		} else if (c < 0x20) {
			rki_json_fail(ps, RK_ERROR_CORRUPT, p, "JSON syntax error: control character 0x%02X in a string (must be escaped)", (unsigned)c);
			return NULL;
		} else if (c >= 0x80) {
			size_t n = rki_json_utf8(p, end);
			if (!n) {
				rki_json_fail(ps, RK_ERROR_CORRUPT, p, "JSON string is not valid UTF-8 (byte 0x%02X)", (unsigned)c);
				return NULL;
			}
			p += n;
		} else {
			p++;
		}
	}
	size_t raw = (size_t)(p - q - 1);
	if (raw > UINT32_MAX) {
		rki_json_fail(ps, RK_ERROR_LIMIT, q, "JSON string of %zu bytes is too long", raw);
		return NULL;
	}
	if (!escaped) {
		*out = (const char *)q + 1;
		*len = (uint32_t)raw;
		return p + 1;
	}
	/* Escapes never make a string longer: decode into raw bytes (+1 for a NUL). */
	unsigned char *dst = (unsigned char *)rki_arena_alloc_uninit(ps->ar, raw + 1), *d = dst;
	if (!dst) {
		rki_json_oom(ps, q);
		return NULL;
	}
	for (const unsigned char *s = q + 1; s < p;) {
		if (*s != '\\') {
			*d++ = *s++;
			continue;
		}
		uint32_t cp;
		size_t n = rki_json_escape(ps, s, &cp);  /* validated above */
		rki_json_put_utf8(&d, cp);
		s += n;
	}
	*d = '\0';
	*out = (const char *)dst;
	*len = (uint32_t)(d - dst);
	return p + 1;
}

/* ---- numbers ------------------------------------------------------------------ */

static const unsigned char *rki_json_scan_number(rki_json_parser *ps, const unsigned char *p, rki_json *v)
{
	const unsigned char *start = p, *end = ps->end;
	bool neg = false, integer = true;
	uint64_t m = 0;
	size_t digits = 0;
	if (*p == '-') {
		neg = true;
		p++;
	}
	if (p >= end || !rki_json_digit(*p)) {
		rki_json_expected(ps, p, "a digit");
		return NULL;
	}
	if (*p == '0') {
		p++;
	} else {
		while (p < end && rki_json_digit(*p)) {
			if (digits < 19) m = m * 10 + (uint64_t)(*p - '0');
			digits++;
			p++;
		}
	}
	if (p < end && *p == '.') {
		integer = false;
		p++;
		if (p >= end || !rki_json_digit(*p)) {
			rki_json_expected(ps, p, "a digit after the decimal point");
			return NULL;
		}
		while (p < end && rki_json_digit(*p)) p++;
	}
	if (p < end && (*p == 'e' || *p == 'E')) {
		integer = false;
		p++;
		if (p < end && (*p == '+' || *p == '-')) p++;
		if (p >= end || !rki_json_digit(*p)) {
			rki_json_expected(ps, p, "a digit in the exponent");
			return NULL;
		}
		while (p < end && rki_json_digit(*p)) p++;
	}
	v->type = RKI_JSON_NUMBER;
	if (integer && digits <= 19) {
		double d = (double)m;  /* rounds to nearest even, like strtod */
		v->u.number = neg ? -d : d;
		return p;
	}
	size_t len = (size_t)(p - start);
	if (len > UINT32_MAX) {
		rki_json_fail(ps, RK_ERROR_LIMIT, start, "JSON number of %zu characters is too long", len);
		return NULL;
	}
	v->len = (uint32_t)len;
	if (len < RKI_JSON_NUMBER_INLINE) {
		v->flags = RKI_JSON_NUMBER_TEXT;
		v->u.text = (const char *)start;
		return p;
	}
	/* Long numbers: a NUL-terminated copy with the locale's decimal point
	 * (a valid number has at most one '.'). */
	size_t cap;
	if (!rki_add_size(len, sizeof(ps->doc->decimal_point), &cap)) {
		rki_json_fail(ps, RK_ERROR_LIMIT, start, "JSON number of %zu characters is too long", len);
		return NULL;
	}
	char *copy = (char *)rki_arena_alloc_uninit(ps->ar, cap);
	if (!copy) {
		rki_json_oom(ps, start);
		return NULL;
	}
	rki_json_number_copy(copy, (const char *)start, len, ps->doc->decimal_point);
	v->flags = RKI_JSON_NUMBER_CSTR;
	v->u.text = copy;
	return p;
}

void rki_json_number_copy(char *dst, const char *src, size_t len, const char *decimal_point)
{
	size_t n = 0;
	for (size_t i = 0; i < len; i++) {
		if (src[i] == '.') {
			for (const char *d = decimal_point; *d; d++) dst[n++] = *d;
		} else {
			dst[n++] = src[i];
		}
	}
	dst[n] = '\0';
}

/* Clinger's fast path for a valid JSON number: true with *out when the
 * significant digits fit 2^53 and the decimal exponent is within +-22. */
static bool rki_json_fast_number(const char *s, size_t len, double *out)
{
#if defined(FLT_EVAL_METHOD) && FLT_EVAL_METHOD == 0
	static const double p10[23] = { 1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
		1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22 };
	const char *e = s + len;
	bool neg = *s == '-';
	if (neg) s++;
	uint64_t m = 0;
	long exp10 = 0;
	for (; s < e && rki_json_digit((unsigned char)*s); s++) {
		if (m > (UINT64_C(1) << 53) / 10) return false;
		m = m * 10 + (uint64_t)(*s - '0');
	}
	if (s < e && *s == '.') {
		for (s++; s < e && rki_json_digit((unsigned char)*s); s++) {
			if (m > (UINT64_C(1) << 53) / 10) return false;
			m = m * 10 + (uint64_t)(*s - '0');
			exp10--;
		}
	}
	if (m > (UINT64_C(1) << 53)) return false;
	if (s < e) {  /* 'e' or 'E' */
		s++;
		bool eneg = *s == '-';
		if (*s == '-' || *s == '+') s++;
		long x = 0;
		for (; s < e; s++) {
			if (x > 10000) return false;
			x = x * 10 + (*s - '0');
		}
		exp10 += eneg ? -x : x;
	}
	double d = (double)m;
	if (m == 0) d = 0.0;
	else if (exp10 >= 0 && exp10 <= 22) d *= p10[exp10];
	else if (exp10 < 0 && exp10 >= -22) d /= p10[-exp10];
	else return false;
	*out = neg ? -d : d;
	return true;
#else
	(void)s;
	(void)len;
	(void)out;
	return false;
#endif
}

double rki_json_number(const rki_json_doc *doc, const rki_json *v)
{
	if (v->flags == RKI_JSON_NUMBER_CSTR) return strtod(v->u.text, NULL);
	if (v->flags != RKI_JSON_NUMBER_TEXT) return v->u.number;
	double fast;
	if (rki_json_fast_number(v->u.text, v->len, &fast)) return fast;
	char buf[RKI_JSON_NUMBER_INLINE + sizeof(doc->decimal_point)];
	rki_json_number_copy(buf, v->u.text, v->len, doc->decimal_point);
	return strtod(buf, NULL);
}

/* ---- containers ---------------------------------------------------------------- */

static bool rki_json_grow(rki_json_parser *ps, void **data, size_t *cap, size_t elem, const unsigned char *at)
{
	size_t n = *cap ? *cap * 2 : 64, bytes, old;
	if (!rki_mul_size(n, elem, &bytes) || !rki_mul_size(*cap, elem, &old)) return rki_json_oom(ps, at);
	void *p = rki_malloc(ps->ar->alloc, bytes);
	if (!p) return rki_json_oom(ps, at);
	if (old) memcpy(p, *data, old);
	rki_free(ps->ar->alloc, *data, old);
	*data = p;
	*cap = n;
	return true;
}

bool rki_json_parse(rki_json_doc *doc, const unsigned char *text, size_t size, rki_arena *ar, size_t max_depth, size_t max_values,
	rki_json_error *err)
{
	memset(doc, 0, sizeof(*doc));
	memset(err, 0, sizeof(*err));
	{
		/* strtod reads the locale's decimal point; keep it for rki_json_number().
		 * Printed by snprintf (MT-safe, unlike localeconv): "0" dp "5". */
		char half[16];
		int n = snprintf(half, sizeof(half), "%.1f", 0.5);
		size_t dp_len = n >= 3 && (size_t)n < sizeof(half) && half[0] == '0' && half[n - 1] == '5' ? (size_t)n - 2 : 0;
		if (dp_len == 0 || dp_len >= sizeof(doc->decimal_point)) {
			doc->decimal_point[0] = '.';
			doc->decimal_point[1] = '\0';
		} else {
			memcpy(doc->decimal_point, half + 1, dp_len);
			doc->decimal_point[dp_len] = '\0';
		}
	}
	rki_json_parser ps = { 0 };
	ps.text = text;
	ps.end = text + size;
	ps.ar = ar;
	ps.doc = doc;
	ps.err = err;
	ps.max_depth = max_depth;
	ps.max_values = max_values;

	/* Every value gets its slot on the pending stack before it is parsed and
	 * is written there in place (the document's own slot is the first); a
	 * container's children follow its slot until the container closes. */
	const unsigned char *p = text, *end = ps.end;
	const char *key = NULL;      /* key of the value being parsed, inside an object */
	uint32_t key_len = 0;
	rki_json *v;
	bool ok = false;

value:
	p = rki_json_ws(p, end);
	if (++ps.values > ps.max_values) {
		rki_json_fail(&ps, RK_ERROR_LIMIT, p, "JSON has more than %zu values, over the max_elements limit", ps.max_values);
		goto done;
	}
	if (ps.pending_count == ps.pending_cap
		&& !rki_json_grow(&ps, (void **)&ps.pending, &ps.pending_cap, sizeof(rki_json_member), p))
		goto done;
	{
		rki_json_member *slot = &ps.pending[ps.pending_count++];
		slot->key = key;
		slot->value = (rki_json){ .key_len = (uint16_t)key_len };  /* checked when the key was read */
		v = &slot->value;
	}
	if (p >= end) {
		rki_json_expected(&ps, p, "a JSON value");
		goto done;
	}
	switch (*p) {
	case '{':
	case '[': {
		if (ps.depth >= ps.max_depth) {
			rki_json_fail(&ps, RK_ERROR_LIMIT, p, "JSON nesting is deeper than the max_depth limit %zu", ps.max_depth);
			goto done;
		}
		if (ps.depth == ps.frame_cap && !rki_json_grow(&ps, (void **)&ps.frames, &ps.frame_cap, sizeof(rki_json_frame), p)) goto done;
		rki_json_frame *f = &ps.frames[ps.depth++];
		f->first = (uint32_t)ps.pending_count;
		f->type = *p == '{' ? RKI_JSON_OBJECT : RKI_JSON_ARRAY;
		p = rki_json_ws(p + 1, end);
		if (f->type == RKI_JSON_ARRAY) {
			if (p < end && *p == ']') {
				p++;
				goto close;
			}
			key = NULL;
			key_len = 0;
			goto value;
		}
		if (p < end && *p == '}') {
			p++;
			goto close;
		}
		goto member;
	}
	case '"':
		v->type = RKI_JSON_STRING;
		p = rki_json_string(&ps, p, &v->u.text, &v->len);
		if (!p) goto done;
		break;
	case 't':
		if (end - p < 4 || memcmp(p, "true", 4) != 0) {
			rki_json_expected(&ps, p, "a JSON value");
			goto done;
		}
		v->type = RKI_JSON_TRUE;
		p += 4;
		break;
	case 'f':
		if (end - p < 5 || memcmp(p, "false", 5) != 0) {
			rki_json_expected(&ps, p, "a JSON value");
			goto done;
		}
		v->type = RKI_JSON_FALSE;
		p += 5;
		break;
	case 'n':
		if (end - p < 4 || memcmp(p, "null", 4) != 0) {
			rki_json_expected(&ps, p, "a JSON value");
			goto done;
		}
		v->type = RKI_JSON_NULL;
		p += 4;
		break;
	default:
		if (*p != '-' && !rki_json_digit(*p)) {
			rki_json_expected(&ps, p, "a JSON value");
			goto done;
		}
		p = rki_json_scan_number(&ps, p, v);
		if (!p) goto done;
		break;
	}

next:
	/* a value is complete: the document, or the next child of the innermost container */
	if (ps.depth == 0) {
		doc->root = ps.pending[0].value;
		doc->root.key_len = 0;
		doc->end = (size_t)(p - text);
		ok = true;
		goto done;
	}
	p = rki_json_ws(p, end);
	if (ps.frames[ps.depth - 1].type == RKI_JSON_ARRAY) {
		if (p < end && *p == ',') {
			p++;
			key = NULL;
			key_len = 0;
			goto value;
		}
		if (p < end && *p == ']') {
			p++;
			goto close;
		}
		rki_json_expected(&ps, p, "',' or ']' after an array element");
		goto done;
	}
	if (p < end && *p == '}') {
		p++;
		goto close;
	}
	if (p >= end || *p != ',') {
		rki_json_expected(&ps, p, "',' or '}' after an object member");
		goto done;
	}
	p = rki_json_ws(p + 1, end);

member:
	/* p is at the key of an object member */
	if (p >= end || *p != '"') {
		rki_json_expected(&ps, p, "a member name string");
		goto done;
	}
	{
		const unsigned char *q = p;
		p = rki_json_string(&ps, p, &key, &key_len);
		if (!p) goto done;
		if (key_len > RKI_JSON_KEY_MAX) {
			rki_json_fail(&ps, RK_ERROR_LIMIT, q, "JSON member name of %u bytes is longer than %u", (unsigned)key_len, RKI_JSON_KEY_MAX);
			goto done;
		}
	}
	p = rki_json_ws(p, end);
	if (p >= end || *p != ':') {
		rki_json_expected(&ps, p, "':' after a member name");
		goto done;
	}
	p++;
	goto value;

close: {
	/* the innermost container ends at p - 1: move its children to the arena */
	rki_json_frame *f = &ps.frames[--ps.depth];
	size_t n = ps.pending_count - f->first;
	const rki_json_member *src = ps.pending + f->first;
	rki_json *cv = &ps.pending[f->first - 1].value;
	if (n > UINT32_MAX) {
		rki_json_fail(&ps, RK_ERROR_LIMIT, p - 1, "JSON container of %zu values is too large", n);
		goto done;
	}
	cv->type = f->type;
	cv->len = (uint32_t)n;
	if (n > 0) {
		if (f->type == RKI_JSON_OBJECT) {
			rki_json_member *dst = (rki_json_member *)rki_arena_alloc_uninit(ar, n * sizeof(rki_json_member));
			if (!dst) {
				rki_json_oom(&ps, p - 1);
				goto done;
			}
			memcpy(dst, src, n * sizeof(rki_json_member));
			cv->u.members = dst;
		} else {
			rki_json *dst = (rki_json *)rki_arena_alloc_uninit(ar, n * sizeof(rki_json));
			if (!dst) {
				rki_json_oom(&ps, p - 1);
				goto done;
			}
			for (size_t i = 0; i < n; i++) dst[i] = src[i].value;
			cv->u.items = dst;
		}
	}
	ps.pending_count = f->first;
	goto next;
}

done:
	rki_free(ar->alloc, ps.pending, ps.pending_cap * sizeof(rki_json_member));
	rki_free(ar->alloc, ps.frames, ps.frame_cap * sizeof(rki_json_frame));
	return ok;
}

/* ---- lookups -------------------------------------------------------------------- */

const rki_json *rki_json_get_n(const rki_json *obj, const char *key, size_t len)
{
	if (!obj || obj->type != RKI_JSON_OBJECT) return NULL;
	const rki_json_member *m = obj->u.members;
	if (len == 0) {
		for (uint32_t i = 0; i < obj->len; i++)
			if (m[i].value.key_len == 0) return &m[i].value;
		return NULL;
	}
	for (uint32_t i = 0; i < obj->len; i++)
		if (m[i].value.key_len == len && m[i].key[0] == key[0] && memcmp(m[i].key, key, len) == 0) return &m[i].value;
	return NULL;
}
