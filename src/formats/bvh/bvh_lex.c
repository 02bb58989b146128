/* src/formats/bvh/bvh_lex.c - words, lines and numbers of BVH text
 * (see bvh_internal.h). Pure functions of the bytes; no allocation. */
#include "bvh_internal.h"

#include <math.h>
#include <string.h>

/* Longest number word converted (longer ones are a syntax error). */
#define RKI_BVH_MAX_NUMBER 64

static bool rki_bvh_space(unsigned char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
}

void rki_bvh_lex_init(rki_bvh_lex *lx, const unsigned char *d, size_t size)
{
	lx->d = d;
	lx->size = size;
	lx->pos = 0;
	lx->line = 1;
	if (size >= 3 && d[0] == 0xEF && d[1] == 0xBB && d[2] == 0xBF) lx->pos = 3;
}

/* Skips whitespace, counting line ends (CR LF once, a lone CR too). */
static void rki_bvh_skip_space(rki_bvh_lex *lx)
{
	while (lx->pos < lx->size && rki_bvh_space(lx->d[lx->pos])) {
		unsigned char c = lx->d[lx->pos++];
		if (c == '\n') lx->line++;
		else if (c == '\r' && (lx->pos >= lx->size || lx->d[lx->pos] != '\n')) lx->line++;
	}
}

rki_bvh_word rki_bvh_next(rki_bvh_lex *lx)
{
	rki_bvh_skip_space(lx);
	rki_bvh_word w = { lx->d + lx->pos, 0, lx->pos, lx->line };
	if (lx->pos >= lx->size) return w;
	unsigned char c = lx->d[lx->pos];
	if (c == '{' || c == '}') {
		lx->pos++;
		w.len = 1;
		return w;
	}
	while (lx->pos < lx->size) {
		c = lx->d[lx->pos];
		if (rki_bvh_space(c) || c == '{' || c == '}') break;
		lx->pos++;
	}
	w.len = lx->pos - w.offset;
	return w;
}

rki_bvh_word rki_bvh_peek(const rki_bvh_lex *lx)
{
	rki_bvh_lex copy = *lx;
	return rki_bvh_next(&copy);
}

rki_bvh_word rki_bvh_rest_of_line(rki_bvh_lex *lx)
{
	while (lx->pos < lx->size && (lx->d[lx->pos] == ' ' || lx->d[lx->pos] == '\t')) lx->pos++;
	rki_bvh_word w = { lx->d + lx->pos, 0, lx->pos, lx->line };
	size_t end = lx->pos;
	while (end < lx->size && lx->d[end] != '\n' && lx->d[end] != '\r' && lx->d[end] != '{') end++;
	lx->pos = end;
	while (end > w.offset && rki_bvh_space(lx->d[end - 1])) end--;
	w.len = end - w.offset;
	return w;
}

bool rki_bvh_is(rki_bvh_word w, const char *keyword)
{
	size_t n = strlen(keyword);
	if (w.len != n) return false;
	for (size_t i = 0; i < n; i++) {
		unsigned char a = w.s[i], b = (unsigned char)keyword[i];
		if (a >= 'A' && a <= 'Z') a = (unsigned char)(a - 'A' + 'a');
		if (b >= 'A' && b <= 'Z') b = (unsigned char)(b - 'A' + 'a');
		if (a != b) return false;
	}
	return true;
}

static bool rki_bvh_digit(unsigned char c)
{
	return c >= '0' && c <= '9';
}

rki_bvh_num rki_bvh_number(rki_bvh_word w, double *out)
{
	const unsigned char *s = w.s;
	size_t n = w.len, i = 0, digits = 0;
	if (n == 0 || n > RKI_BVH_MAX_NUMBER) return RKI_BVH_NUM_SYNTAX;
	if (s[i] == '+' || s[i] == '-') i++;
	while (i < n && rki_bvh_digit(s[i])) i++, digits++;
	if (i < n && s[i] == '.') {
		i++;
		while (i < n && rki_bvh_digit(s[i])) i++, digits++;
	}
	if (digits == 0) return RKI_BVH_NUM_SYNTAX;
	if (i < n && (s[i] == 'e' || s[i] == 'E')) {
		i++;
		if (i < n && (s[i] == '+' || s[i] == '-')) i++;
		size_t exp_digits = 0;
		while (i < n && rki_bvh_digit(s[i])) i++, exp_digits++;
		if (exp_digits == 0) return RKI_BVH_NUM_SYNTAX;
	}
	if (i != n) return RKI_BVH_NUM_SYNTAX;

	double v = 0.0;
	if (!rki_strtod_dot(s, n, &v)) return RKI_BVH_NUM_SYNTAX;
	if (!isfinite(v)) return RKI_BVH_NUM_RANGE;
	*out = v;
	return RKI_BVH_NUM_OK;
}

bool rki_bvh_count(rki_bvh_word w, uint64_t *out)
{
	if (w.len == 0 || w.len > 20) return false;
	uint64_t v = 0;
	for (size_t i = 0; i < w.len; i++) {
		if (!rki_bvh_digit(w.s[i])) return false;
		uint64_t d = (uint64_t)(w.s[i] - '0');
		if (v > (UINT64_MAX - d) / 10) return false;
		v = v * 10 + d;
	}
	*out = v;
	return true;
}
