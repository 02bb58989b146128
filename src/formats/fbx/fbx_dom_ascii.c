/*
 * src/formats/fbx/fbx_dom_ascii.c - ASCII FBX tokenizer (5800/6100 and 7.x syntax,
 * see fbx_dom.h FEATURES): comments, numbers, strings, bare words and 7.x
 * "*N { a: ... }" arrays -> the tree of fbx_dom_tree.c.
 */
#include "formats/fbx/fbx_dom_private.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Longest ASCII number token handed to strtod(). */
#define RKI_FBX_MAX_NUMBER_LEN 200u

/* ---- ASCII ------------------------------------------------------------------ */

/* Byte classes: one table lookup instead of a chain of comparisons per byte. */
enum {
	RKI_FBX_C_WORD = 1,    /* part of a name or bare word: > 0x20, not 0x7f, not : , { } ; " */
	RKI_FBX_C_BLANK = 2,   /* ' ' \t \r \v \f */
	RKI_FBX_C_SKIP = 4,    /* what rki_fbx_skip_space() skips: blanks, '\n', ';' comments */
	RKI_FBX_C_DIGIT = 8    /* '0'..'9' */
};

static const unsigned char rki_fbx_class[256] = {
	0, 0, 0, 0, 0, 0, 0, 0, 0, 6, 4, 6, 6, 6, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	6, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1,
	9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 0, 4, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 0, 1, 0,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
};

static inline bool rki_fbx_is_word_char(unsigned char c)
{
	return rki_fbx_class[c] & RKI_FBX_C_WORD;
}

/* Skips whitespace and ';' comments. (Lines are not counted as they go by:
 * an error counts the newlines before its position, fbx_dom_tree.c.) */
static void rki_fbx_skip_space_slow(rki_fbx_parser *p)
{
	const unsigned char *d = p->data;
	size_t pos = p->pos, size = p->size;
	while (pos < size) {
		unsigned char c = d[pos];
		unsigned k = rki_fbx_class[c];
		if (k & RKI_FBX_C_BLANK) {
			pos++;
		} else if (c == '\n') {
			pos++;
		} else if (c == ';') {
			const unsigned char *nl = (const unsigned char *)memchr(d + pos, '\n', size - pos);
			pos = nl ? (size_t)(nl - d) : size;
		} else {
			break;
		}
	}
	p->pos = pos;
}

/* Most tokens follow the previous one directly: one lookup decides. */
static inline void rki_fbx_skip_space(rki_fbx_parser *p)
{
	if (p->pos < p->size && (rki_fbx_class[p->data[p->pos]] & RKI_FBX_C_SKIP)) rki_fbx_skip_space_slow(p);
}

/* True when a ':' follows position `pos` after optional spaces/tabs. */
static bool rki_fbx_colon_follows(const rki_fbx_parser *p, size_t pos)
{
	while (pos < p->size && (p->data[pos] == ' ' || p->data[pos] == '\t')) pos++;
	return pos < p->size && p->data[pos] == ':';
}

typedef enum rki_fbx_num_result { RKI_FBX_NUM_OK, RKI_FBX_NUM_INVALID, RKI_FBX_NUM_TOO_LONG } rki_fbx_num_result;

static const double rki_fbx_pow10[23] = {
	1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22
};

/* A mantissa below this has at most 18 digits: one more digit still fits the
 * 19 significant digits uint64 holds. */
#define RKI_FBX_MANT_ROOM 1000000000000000000ull
/* Below this, eight more digits keep the mantissa below RKI_FBX_MANT_ROOM. */
#define RKI_FBX_MANT_ROOM8 10000000000ull

/* True when the 8 bytes at s (all readable) are decimal digits; *val is then
 * their value. The bytes as a little-endian word: s[0], the most significant
 * digit, is the low byte. */
static inline bool rki_fbx_eight_digits(const unsigned char *s, uint64_t *val)
{
	uint64_t x = (uint64_t)s[0] | (uint64_t)s[1] << 8 | (uint64_t)s[2] << 16 | (uint64_t)s[3] << 24 |
		(uint64_t)s[4] << 32 | (uint64_t)s[5] << 40 | (uint64_t)s[6] << 48 | (uint64_t)s[7] << 56;
	uint64_t a = x ^ 0x3030303030303030ull;   /* a digit byte becomes 0..9 */
	/* A byte is not a digit when its high nibble is set or its low nibble is
	 * above 9 (adding 6 carries into bit 4; no carry leaves the byte). */
	if ((a & 0xf0f0f0f0f0f0f0f0ull) | (((a & 0x0f0f0f0f0f0f0f0full) + 0x0606060606060606ull) & 0x1010101010101010ull))
		return false;
	a = (a * 10 + (a >> 8)) & 0x00ff00ff00ff00ffull;        /* 2 digits in each 16 bits */
	a = (a * 100 + (a >> 16)) & 0x0000ffff0000ffffull;      /* 4 digits in each 32 bits */
	*val = (a * 10000 + (a >> 32)) & 0x00000000ffffffffull; /* 8 digits */
	return true;
}

/* Index of the lowest set bit of x (x != 0). */
static inline unsigned rki_fbx_ctz64(uint64_t x)
{
#if defined(__GNUC__) || defined(__clang__)
	return (unsigned)__builtin_ctzll(x);
#else
	unsigned n = 0;
	while (!(x & 1)) {
		x >>= 1;
		n++;
	}
	return n;
#endif
}

/* The leading decimal digits of the 8 bytes at s (all readable): their count
 * n (0..8) and, in *val, their value (the n digits moved to the top bytes,
 * the bytes below them read as leading zeros). */
static inline unsigned rki_fbx_lead_digits(const unsigned char *s, uint64_t *val)
{
	uint64_t x = (uint64_t)s[0] | (uint64_t)s[1] << 8 | (uint64_t)s[2] << 16 | (uint64_t)s[3] << 24 |
		(uint64_t)s[4] << 32 | (uint64_t)s[5] << 40 | (uint64_t)s[6] << 48 | (uint64_t)s[7] << 56;
	uint64_t a = x ^ 0x3030303030303030ull;
	uint64_t bad = (a & 0xf0f0f0f0f0f0f0f0ull) | (((a & 0x0f0f0f0f0f0f0f0full) + 0x0606060606060606ull) & 0x1010101010101010ull);
	unsigned n = bad ? rki_fbx_ctz64(bad) / 8 : 8;
	if (n == 0) {
		*val = 0;
		return 0;
	}
	if (n < 8) a = (a & (((uint64_t)1 << (8 * n)) - 1)) << (8 * (8 - n));
	a = (a * 10 + (a >> 8)) & 0x00ff00ff00ff00ffull;
	a = (a * 100 + (a >> 16)) & 0x0000ffff0000ffffull;
	*val = (a * 10000 + (a >> 32)) & 0x00000000ffffffffull;
	return n;
}

static const uint64_t rki_fbx_pow10_u64[9] = { 1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000 };

/* strtod() of the token, '.' as the decimal point (rki_strtod_dot). */
static rki_fbx_num_result rki_fbx_strtod(const unsigned char *s, size_t len, double *out)
{
	if (len > RKI_FBX_MAX_NUMBER_LEN) return RKI_FBX_NUM_TOO_LONG;
	return rki_strtod_dot(s, len, out) ? RKI_FBX_NUM_OK : RKI_FBX_NUM_INVALID;
}

/* The common number, fast: "[-]D[.D]" with at most 19 digits in all, ending
 * at a byte that is neither a word character nor 'e'/'E'/'#', at least 48
 * bytes before the end of the input (so digit runs need no bounds checks:
 * at most 34 bytes are read, 8 at a time). With at most 19 digits the general scan below
 * (rki_fbx_scan_number) would take every digit into its mantissa (none dropped, nothing inexact)
 * and reach the same integer or the same exact quotient; anything else
 * (more digits, exponents, '+', MSVC specials, mantissas above 2^53, ...)
 * returns false and is left to it. */
static inline bool rki_fbx_scan_number_fast(const unsigned char *d, size_t size, size_t *ppos, bool *is_int,
	int64_t *ival, double *fval)
{
	size_t pos = *ppos;
	if (size - pos < 48) return false;
	const unsigned char *s = d + pos;
	bool neg = *s == '-';
	s += neg;
	uint64_t m, v;
	size_t nd = rki_fbx_lead_digits(s, &m), frac = 0;   /* integer part: up to 15 digits */
	s += nd;
	if (nd == 8) {
		unsigned n = rki_fbx_lead_digits(s, &v);
		if (n == 8) return false;
		m = m * rki_fbx_pow10_u64[n] + v;
		s += n;
		nd += n;
	}
	bool dot = *s == '.';
	if (dot) {
		s++;
		if (nd + 8 <= 19 && rki_fbx_eight_digits(s, &v)) {
			m = m * 100000000u + v;
			s += 8;
			frac = 8;
		}
		unsigned n = rki_fbx_lead_digits(s, &v);
		if (n == 8 || nd + frac + n > 19) return false;
		m = m * rki_fbx_pow10_u64[n] + v;
		s += n;
		frac += n;
		nd += frac;
	}
	unsigned char end = *s;
	if (nd == 0 || (rki_fbx_class[end] & (RKI_FBX_C_WORD | RKI_FBX_C_DIGIT)) || end == '#' || end == '.') return false;
	if (!dot) {
		if (nd > 18) return false;   /* may not fit int64: the general path decides */
		*is_int = true;
		*ival = neg ? -(int64_t)m : (int64_t)m;
	} else {
		*is_int = false;
		if (m == 0) {
			*fval = neg ? -0.0 : 0.0;
		} else {
			if (m > ((uint64_t)1 << 53) || frac > 22) return false;
			double q = (double)m / rki_fbx_pow10[frac];
			*fval = neg ? -q : q;
		}
	}
	*ppos = (size_t)(s - d);
	return true;
}

/* Scans a number token at *ppos (sign, digits, '.', exponent; or MSVC "1.#INF").
 * The token must end at a non-word character. Digits are taken eight at a
 * time while the mantissa has room for them; the mantissa, exponent and
 * "inexact" flag come out as if taken one by one, so the conversion below
 * sees the same numbers either way. */
static rki_fbx_num_result rki_fbx_scan_number(const unsigned char *d, size_t size, size_t *ppos, bool *is_int,
	int64_t *ival, double *fval)
{
	size_t pos = *ppos, start = pos;
	bool neg = false, has_dot = false, has_exp = false, inexact = false;
	if (pos < size && (d[pos] == '+' || d[pos] == '-')) neg = d[pos++] == '-';
	uint64_t mant = 0;      /* the first 19 significant digits (< RKI_FBX_MANT_ROOM * 10) */
	int64_t exp10 = 0;
	size_t digits = 0;
	for (uint64_t v; size - pos >= 8 && mant < RKI_FBX_MANT_ROOM8 && rki_fbx_eight_digits(d + pos, &v);) {
		mant = mant * 100000000u + v;
		pos += 8;
		digits += 8;
	}
	for (; pos < size && (rki_fbx_class[d[pos]] & RKI_FBX_C_DIGIT); pos++, digits++) {
		unsigned dig = (unsigned)(d[pos] - '0');
		if (mant < RKI_FBX_MANT_ROOM) {
			mant = mant * 10 + dig;
		} else {
			exp10++;
			if (dig) inexact = true;
		}
	}
	double special = 0.0;
	bool is_special = false;
	if (pos < size && d[pos] == '.') {
		has_dot = true;
		pos++;
		for (uint64_t v; size - pos >= 8 && mant < RKI_FBX_MANT_ROOM8 && rki_fbx_eight_digits(d + pos, &v);) {
			mant = mant * 100000000u + v;
			exp10 -= 8;
			pos += 8;
			digits += 8;
		}
		for (; pos < size && (rki_fbx_class[d[pos]] & RKI_FBX_C_DIGIT); pos++, digits++) {
			unsigned dig = (unsigned)(d[pos] - '0');
			if (mant < RKI_FBX_MANT_ROOM) {
				mant = mant * 10 + dig;
				exp10--;
			} else if (dig) {
				inexact = true;
			}
		}
		if (digits > 0 && pos < size && d[pos] == '#') {
			/* MSVC: 1.#INF, -1.#IND, 1.#QNAN, 1.#SNAN (possibly followed by digits). */
			size_t w = pos + 1, wend = w;
			while (wend < size && rki_fbx_is_word_char(d[wend])) wend++;
			size_t wl = wend - w;
			if (wl >= 3 && memcmp(d + w, "INF", 3) == 0) {
				special = HUGE_VAL;
			} else if ((wl >= 3 && memcmp(d + w, "IND", 3) == 0) || (wl >= 4 && memcmp(d + w, "QNAN", 4) == 0) ||
				(wl >= 4 && memcmp(d + w, "SNAN", 4) == 0)) {
				special = NAN;
			} else {
				return RKI_FBX_NUM_INVALID;
			}
			is_special = true;
			pos = wend;
		}
	}
	if (digits == 0) return RKI_FBX_NUM_INVALID;
	if (!is_special && pos < size && (d[pos] == 'e' || d[pos] == 'E')) {
		size_t e = pos + 1;
		bool eneg = false;
		if (e < size && (d[e] == '+' || d[e] == '-')) eneg = d[e++] == '-';
		if (e >= size || d[e] < '0' || d[e] > '9') return RKI_FBX_NUM_INVALID;
		int64_t ev = 0;
		for (; e < size && d[e] >= '0' && d[e] <= '9'; e++)
			if (ev < 100000) ev = ev * 10 + (d[e] - '0');
		exp10 += eneg ? -ev : ev;
		has_exp = true;
		pos = e;
	}
	if (pos < size && rki_fbx_is_word_char(d[pos])) return RKI_FBX_NUM_INVALID;
	*ppos = pos;
	if (is_special) {
		*is_int = false;
		*fval = neg ? -special : special;
		return RKI_FBX_NUM_OK;
	}
	if (!has_dot && !has_exp && !inexact && exp10 == 0) {
		if (mant <= (uint64_t)INT64_MAX) {
			*is_int = true;
			*ival = neg ? -(int64_t)mant : (int64_t)mant;
			return RKI_FBX_NUM_OK;
		}
		if (neg && mant == (uint64_t)INT64_MAX + 1) {
			*is_int = true;
			*ival = INT64_MIN;
			return RKI_FBX_NUM_OK;
		}
	}
	*is_int = false;
	if (mant == 0 && !inexact) {
		*fval = neg ? -0.0 : 0.0;
		return RKI_FBX_NUM_OK;
	}
	if (!inexact && mant <= ((uint64_t)1 << 53) && exp10 >= -22 && exp10 <= 22) {
		/* Exact: both operands are exactly representable, one rounding. */
		double m = (double)mant;
		double v = exp10 >= 0 ? m * rki_fbx_pow10[exp10] : m / rki_fbx_pow10[-exp10];
		*fval = neg ? -v : v;
		return RKI_FBX_NUM_OK;
	}
	return rki_fbx_strtod(d + start, pos - start, fval);
}

static bool rki_fbx_number_error(rki_fbx_parser *p, size_t start, rki_fbx_num_result r)
{
	if (r == RKI_FBX_NUM_TOO_LONG)
		return rki_fbx_parse_error(p, RK_ERROR_CORRUPT, start, "number longer than %u characters", RKI_FBX_MAX_NUMBER_LEN);
	size_t end = start;
	while (end < p->size && end - start < 32 && rki_fbx_is_word_char(p->data[end])) end++;
	return rki_fbx_parse_error(p, RK_ERROR_CORRUPT, start, "expected a number, found \"%.*s\"", (int)(end - start),
		(const char *)p->data + start);
}

static inline bool rki_fbx_ascii_number(rki_fbx_parser *p, bool *is_int, int64_t *ival, double *fval)
{
	if (rki_fbx_scan_number_fast(p->data, p->size, &p->pos, is_int, ival, fval)) return true;
	size_t start = p->pos;
	rki_fbx_num_result r = rki_fbx_scan_number(p->data, p->size, &p->pos, is_int, ival, fval);
	if (r != RKI_FBX_NUM_OK) return rki_fbx_number_error(p, start, r);
	return true;
}

/* 7.x array "*N { a: v, v, ... }" at p->pos ('*'). */
static bool rki_fbx_ascii_array(rki_fbx_parser *p, rki_fbx_prop *pr)
{
	const unsigned char *d = p->data;
	size_t star = p->pos;
	p->pos++;
	uint64_t n = 0;
	size_t ndig = 0;
	for (; p->pos < p->size && d[p->pos] >= '0' && d[p->pos] <= '9'; p->pos++, ndig++) {
		if (n > (UINT64_MAX - 9) / 10)
			return rki_fbx_parse_error(p, RK_ERROR_CORRUPT, star, "array element count after '*' is too large");
		n = n * 10 + (uint64_t)(d[p->pos] - '0');
	}
	if (ndig == 0) {
		if (p->pos >= p->size)
			return rki_fbx_parse_error(p, RK_ERROR_TRUNCATED, p->pos, "expected an element count after '*'");
		return rki_fbx_parse_error(p, RK_ERROR_CORRUPT, p->pos, "expected an element count after '*'");
	}
	rki_fbx_skip_space(p);
	if (p->pos >= p->size)
		return rki_fbx_parse_error(p, RK_ERROR_TRUNCATED, p->pos, "expected '{' after array count *%llu",
			(unsigned long long)n);
	if (d[p->pos] != '{')
		return rki_fbx_parse_error(p, RK_ERROR_CORRUPT, p->pos, "expected '{' after array count *%llu",
			(unsigned long long)n);
	p->pos++;
	if (n > p->lim.max_array_elems)
		return rki_fbx_parse_error(p, RK_ERROR_LIMIT, star, "array of %llu elements is over the limit of %zu",
			(unsigned long long)n, p->lim.max_array_elems);
	if (n > ((uint64_t)p->lim.max_total_array_bytes - p->array_bytes) / sizeof(double))
		return rki_fbx_parse_error(p, RK_ERROR_LIMIT, star, "arrays decode to more than the limit of %zu bytes in total",
			p->lim.max_total_array_bytes);
	/* Every element takes at least one digit and all but the last a ',' too. */
	size_t left = p->size - p->pos;
	if (n > left / 2 + 1)
		return rki_fbx_parse_error(p, RK_ERROR_TRUNCATED, star,
			"array *%llu needs at least %llu more bytes, only %zu remain", (unsigned long long)n,
			(unsigned long long)(2 * n - 1), left);
	double *vals = (double *)(void *)rki_fbx_empty_array;
	if (n > 0) {
		size_t alloc;   /* n * 8 is within max_total_array_bytes (checked above) */
		if (!rki_fbx_array_alloc_size('d', n * sizeof(double), &alloc)) return rki_fbx_parse_oom(p);
		vals = (double *)rki_arena_alloc_uninit(p->arena, alloc);
		if (!vals) return rki_fbx_parse_oom(p);
		memset(vals + n, 0, RKI_FBX_ARRAY_PAD);
	}
	p->array_bytes += n * sizeof(double);
	rki_fbx_skip_space(p);
	if (p->pos < p->size && d[p->pos] == 'a' && rki_fbx_colon_follows(p, p->pos + 1)) {
		while (d[p->pos] != ':') p->pos++;
		p->pos++;
	} else if (p->pos < p->size && d[p->pos] != '}') {
		return rki_fbx_parse_error(p, RK_ERROR_CORRUPT, p->pos, "expected \"a:\" inside the array braces");
	}
	size_t k = 0;
	bool all_int = true, want = true;
	for (;;) {
		rki_fbx_skip_space(p);
		if (p->pos >= p->size)
			return rki_fbx_parse_error(p, RK_ERROR_TRUNCATED, p->pos, "expected '}' closing the array *%llu",
				(unsigned long long)n);
		unsigned char c = d[p->pos];
		if (c == '}') {
			p->pos++;
			break;
		}
		if (c == ',') {
			if (want)
				return rki_fbx_parse_error(p, RK_ERROR_CORRUPT, p->pos, "expected a number before ',' in the array");
			p->pos++;
			want = true;
			continue;
		}
		if (!want) return rki_fbx_parse_error(p, RK_ERROR_CORRUPT, p->pos, "expected ',' or '}' after an array element");
		/* an element, then each element directly after its ',' (as the loop
		 * would take it, without its tests) */
		for (;;) {
			bool is_int = false;
			int64_t iv = 0;
			double fv = 0.0;
			size_t at = p->pos;
			if (!rki_fbx_ascii_number(p, &is_int, &iv, &fv)) return false;
			if (k >= n)
				return rki_fbx_parse_error(p, RK_ERROR_CORRUPT, at, "array declares *%llu elements but has more",
					(unsigned long long)n);
			vals[k++] = is_int ? (double)iv : fv;
			if (!is_int) all_int = false;
			size_t q = p->pos;
			if (q + 1 >= p->size || d[q] != ',' || !((d[q + 1] >= '0' && d[q + 1] <= '9') || d[q + 1] == '-')) break;
			p->pos = q + 1;
		}
		want = false;
	}
	if (k != n)
		return rki_fbx_parse_error(p, RK_ERROR_CORRUPT, star, "array declares *%llu elements but has %zu",
			(unsigned long long)n, k);
	pr->type = 'd';
	pr->v.a.data = vals;
	pr->v.a.count = (size_t)n;
	pr->all_integers = all_int;
	return true;
}

/* Property list after "Name:". Leaves p->pos at '{', '}', the next node's name or the end. */
static bool rki_fbx_ascii_props(rki_fbx_parser *p, rki_fbx_node *node)
{
	const unsigned char *d = p->data;
	size_t start = p->props.size / sizeof(rki_fbx_prop), count = 0;
	bool want = true;  /* a value may come next: at the start or after ',' */
	bool at_value = false;   /* p->pos is at the first byte of a value that follows ", " or "," */
	for (;;) {
		unsigned char c;
		if (at_value) {
			c = d[p->pos];
			at_value = false;
		} else {
			rki_fbx_skip_space(p);
			if (p->pos >= p->size) break;
			c = d[p->pos];
			if (c == ',') {
				/* After a value: the list continues. At the start or after another ',':
				 * an empty value ("Content: , ..."), which is skipped. */
				p->pos++;
				want = true;
				continue;
			}
			if (!want || c == '{' || c == '}') break;
		}
		/* built in place at the end of p->props (no copy of a cleared local) */
		if (p->props.cap - p->props.size < sizeof(rki_fbx_prop) && !rki_buf_reserve(&p->props, sizeof(rki_fbx_prop)))
			return rki_fbx_parse_oom(p);
		rki_fbx_prop *pr = (rki_fbx_prop *)(void *)(p->props.data + p->props.size);
		*pr = (rki_fbx_prop){ .offset = p->pos };
		if (c == '"') {
			size_t s = p->pos + 1;
			const unsigned char *q = (const unsigned char *)memchr(d + s, '"', p->size - s);
			if (!q) return rki_fbx_parse_error(p, RK_ERROR_TRUNCATED, p->pos, "expected the closing '\"' of a string");
			size_t e = (size_t)(q - d);
			const char *str = rki_fbx_strdup(p, (const char *)d + s, e - s);
			if (!str) return rki_fbx_parse_oom(p);
			pr->type = 'S';
			pr->v.s.data = str;
			pr->v.s.len = e - s;
			p->pos = e + 1;
		} else if (c == '*') {
			if (!rki_fbx_ascii_array(p, pr)) return false;
		} else if ((c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.') {
			/* A number, then every number that follows its ',' directly: 5800/6100
			 * files store their arrays and keys as such value lists, and these
			 * take the same steps as the general loop (which would skip no
			 * space, see the ',', then dispatch on the digit) without its tests. */
			for (;;) {
				bool is_int = false;
				int64_t iv = 0;
				double fv = 0.0;
				if (!rki_fbx_ascii_number(p, &is_int, &iv, &fv)) return false;
				pr->type = is_int ? 'L' : 'D';
				if (is_int) pr->v.i = iv;
				else pr->v.f = fv;
				size_t q = p->pos;
				if (q + 1 >= p->size || d[q] != ',' || !((d[q + 1] >= '0' && d[q + 1] <= '9') || d[q + 1] == '-')) break;
				if (count >= p->lim.max_array_elems)
					return rki_fbx_parse_error(p, RK_ERROR_LIMIT, pr->offset, "more than the limit of %zu values in one node",
						p->lim.max_array_elems);
				p->props.size += sizeof(rki_fbx_prop);
				count++;
				p->pos = q + 1;
				if (p->props.cap - p->props.size < sizeof(rki_fbx_prop) && !rki_buf_reserve(&p->props, sizeof(rki_fbx_prop)))
					return rki_fbx_parse_oom(p);
				pr = (rki_fbx_prop *)(void *)(p->props.data + p->props.size);
				*pr = (rki_fbx_prop){ .offset = p->pos };
			}
		} else if (rki_fbx_is_word_char(c)) {
			size_t s = p->pos, e = s;
			while (e < p->size && rki_fbx_is_word_char(d[e])) e++;
			if (rki_fbx_colon_follows(p, e)) break;  /* the next node's name */
			const char *str = rki_fbx_strdup(p, (const char *)d + s, e - s);
			if (!str) return rki_fbx_parse_oom(p);
			pr->type = 'S';
			pr->v.s.data = str;
			pr->v.s.len = e - s;
			p->pos = e;
		} else {
			return rki_fbx_parse_error(p, RK_ERROR_CORRUPT, p->pos,
				"expected a value (number, \"string\", word or *N array), found byte 0x%02x", (unsigned)c);
		}
		if (count >= p->lim.max_array_elems)
			return rki_fbx_parse_error(p, RK_ERROR_LIMIT, pr->offset, "more than the limit of %zu values in one node",
				p->lim.max_array_elems);
		p->props.size += sizeof(rki_fbx_prop);
		count++;
		want = false;
		/* The next value right after ',' or ", " (a P line's strings, a value
		 * list): where the loop would skip that space, see the ',' and dispatch
		 * on a '"', digit or '-', it goes there at once. */
		size_t q = p->pos;
		if (p->size - q > 2 && d[q] == ',') {
			size_t v = q + 1 + (d[q + 1] == ' ');
			unsigned char n = d[v];
			if (n == '"' || (n >= '0' && n <= '9') || n == '-') {
				p->pos = v;
				want = true;
				at_value = true;
			}
		}
	}
	node->props = NULL;
	node->prop_count = count;
	if (count > 0) {
		/* count <= max_array_elems props, all held in p->props already: no overflow */
		node->props = (rki_fbx_prop *)rki_arena_alloc_uninit(p->arena, count * sizeof(rki_fbx_prop));
		if (!node->props) return rki_fbx_parse_oom(p);
		memcpy(node->props, (rki_fbx_prop *)(void *)p->props.data + start, count * sizeof(rki_fbx_prop));
	}
	p->props.size = start * sizeof(rki_fbx_prop);
	return true;
}

/* "; FBX 6.1.0 project file" -> 6100, from the leading comment lines. */
static uint32_t rki_fbx_ascii_comment_version(const unsigned char *d, size_t size)
{
	size_t pos = 0;
	for (int lines = 0; lines < 16 && pos < size; lines++) {
		while (pos < size && (d[pos] == ' ' || d[pos] == '\t' || d[pos] == '\r' || d[pos] == '\n')) pos++;
		if (pos >= size || d[pos] != ';') return 0;
		size_t eol = pos;
		while (eol < size && d[eol] != '\n') eol++;
		for (size_t i = pos; i + 9 < eol; i++) {
			const unsigned char *s = d + i;
			if (memcmp(s, "FBX ", 4) == 0 && s[4] >= '0' && s[4] <= '9' && s[5] == '.' && s[6] >= '0' &&
				s[6] <= '9' && s[7] == '.' && s[8] >= '0' && s[8] <= '9')
				return (uint32_t)((s[4] - '0') * 1000 + (s[6] - '0') * 100 + (s[8] - '0') * 10);
		}
		pos = eol;
	}
	return 0;
}

bool rki_fbx_parse_ascii(rki_fbx_parser *p)
{
	const unsigned char *d = p->data;
	p->ascii = true;
	p->doc->ascii = true;
	if (p->size >= 3 && d[0] == 0xef && d[1] == 0xbb && d[2] == 0xbf) p->pos = 3;
	if (!rki_fbx_open_root(p)) return false;
	for (;;) {
		rki_fbx_skip_space(p);
		size_t nf = rki_fbx_frame_count(p);
		if (p->pos >= p->size) {
			if (nf > 1)
				return rki_fbx_parse_error(p, RK_ERROR_TRUNCATED, p->pos, "expected '}' closing the node, found the end of the file");
			break;
		}
		unsigned char c = d[p->pos];
		if (c == '}') {
			if (nf == 1) return rki_fbx_parse_error(p, RK_ERROR_CORRUPT, p->pos, "unexpected '}' at the top level");
			p->pos++;
			if (!rki_fbx_close(p)) return false;
			continue;
		}
		if (!rki_fbx_is_word_char(c)) {
			if (c >= 0x20 && c < 0x7f)
				return rki_fbx_parse_error(p, RK_ERROR_CORRUPT, p->pos, "expected a node name, found '%c'", c);
			return rki_fbx_parse_error(p, RK_ERROR_CORRUPT, p->pos, "expected a node name, found byte 0x%02x", (unsigned)c);
		}
		/* scanned with a local position: p->pos would be stored and reloaded
		 * per byte (a byte read may alias it) */
		size_t name_start = p->pos, e = name_start, size = p->size;
		while (e < size && rki_fbx_is_word_char(d[e])) e++;
		p->cur_name = (const char *)d + name_start;
		p->cur_name_len = e - name_start;
		while (e < size && (d[e] == ' ' || d[e] == '\t')) e++;
		p->pos = e;
		if (p->pos >= p->size)
			return rki_fbx_parse_error(p, RK_ERROR_TRUNCATED, p->pos, "expected ':' after the node name");
		if (d[p->pos] != ':')
			return rki_fbx_parse_error(p, RK_ERROR_CORRUPT, p->pos, "expected ':' after the node name");
		p->pos++;
		if (!rki_fbx_begin_node(p, name_start)) return false;
		rki_fbx_node node;
		memset(&node, 0, sizeof(node));
		node.offset = name_start;
		node.name_len = p->cur_name_len;
		node.name = rki_fbx_strdup(p, p->cur_name, p->cur_name_len);
		if (!node.name) return rki_fbx_parse_oom(p);
		if (!rki_fbx_ascii_props(p, &node)) return false;
		p->cur_name = NULL;
		if (p->pos < p->size && d[p->pos] == '{') {
			p->pos++;
			if (!rki_fbx_open(p, &node, 0)) return false;
		} else {
			if (!rki_fbx_add_leaf(p, &node)) return false;
		}
	}
	if (!rki_fbx_close(p)) return false;
	if (p->doc->root.child_count == 0)
		return rki_fbx_parse_error(p, RK_ERROR_TRUNCATED, p->size, "expected at least one FBX node, found none");
	p->doc->version = rki_fbx_ascii_comment_version(d, p->size);
	return true;
}
