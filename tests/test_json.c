/* tests/test_json.c - rigkit/json.h, the streaming JSON writer.
 *
 * Every expected text below is written out by hand from the format rules in
 * the header (RFC 8259 escapes, the pretty layout of the CLI's --json output,
 * the number forms); numbers are chosen so their decimal forms are known
 * facts of IEEE doubles (0.1 is 0.1000000000000000055511..., so "%.17g"
 * gives 0.10000000000000001). Every document that finishes is also run
 * through check_json(), a small independent recursive-descent validator
 * (syntax plus UTF-8 decoded to code points), so the writer's output is
 * valid JSON whatever it was given.
 */
#include "rigkit/json.h"
#include "rk_test.h"

#include <limits.h>
#include <stdint.h>

/* ---- an independent JSON validator ----------------------------------------- */

typedef struct jcheck {
	const unsigned char *p, *end;
	int depth;
} jcheck;

static void jc_ws(jcheck *c)
{
	while (c->p < c->end && (*c->p == ' ' || *c->p == '\n' || *c->p == '\r' || *c->p == '\t')) c->p++;
}

static bool jc_lit(jcheck *c, const char *s)
{
	size_t n = strlen(s);
	if ((size_t)(c->end - c->p) < n || memcmp(c->p, s, n) != 0) return false;
	c->p += n;
	return true;
}

/* One UTF-8 character decoded to a code point; false if ill-formed. */
static bool jc_utf8(jcheck *c)
{
	unsigned b = *c->p;
	int extra;
	uint32_t cp, min;
	if (b < 0x80) { c->p++; return true; }
	if ((b & 0xE0) == 0xC0) { extra = 1; cp = b & 0x1F; min = 0x80; }
	else if ((b & 0xF0) == 0xE0) { extra = 2; cp = b & 0x0F; min = 0x800; }
	else if ((b & 0xF8) == 0xF0) { extra = 3; cp = b & 0x07; min = 0x10000; }
	else return false;
	if (c->end - c->p <= extra) return false;
	for (int i = 1; i <= extra; i++) {
		if ((c->p[i] & 0xC0) != 0x80) return false;
		cp = (cp << 6) | (c->p[i] & 0x3F);
	}
	if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
	c->p += extra + 1;
	return true;
}

static bool jc_string(jcheck *c)
{
	if (c->p >= c->end || *c->p != '"') return false;
	c->p++;
	while (c->p < c->end && *c->p != '"') {
		if (*c->p < 0x20) return false;
		if (*c->p == '\\') {
			c->p++;
			if (c->p >= c->end) return false;
			if (*c->p == 'u') {
				for (int i = 1; i <= 4; i++) {
					if (c->p + i >= c->end || !strchr("0123456789abcdefABCDEF", c->p[i]) || !c->p[i]) return false;
				}
				c->p += 5;
			} else if (strchr("\"\\/bfnrt", *c->p) && *c->p) {
				c->p++;
			} else {
				return false;
			}
		} else if (!jc_utf8(c)) {
			return false;
		}
	}
	if (c->p >= c->end) return false;
	c->p++;
	return true;
}

static bool jc_digits(jcheck *c)
{
	const unsigned char *s = c->p;
	while (c->p < c->end && *c->p >= '0' && *c->p <= '9') c->p++;
	return c->p > s;
}

static bool jc_number(jcheck *c)
{
	if (c->p < c->end && *c->p == '-') c->p++;
	if (c->p < c->end && *c->p == '0') c->p++;
	else if (!jc_digits(c)) return false;
	if (c->p < c->end && *c->p == '.') {
		c->p++;
		if (!jc_digits(c)) return false;
	}
	if (c->p < c->end && (*c->p == 'e' || *c->p == 'E')) {
		c->p++;
		if (c->p < c->end && (*c->p == '+' || *c->p == '-')) c->p++;
		if (!jc_digits(c)) return false;
	}
	return true;
}

static bool jc_value(jcheck *c)
{
	jc_ws(c);
	if (c->p >= c->end) return false;
	unsigned char b = *c->p;
	if (b == '{' || b == '[') {
		if (++c->depth > 200) return false;
		unsigned char close = b == '{' ? '}' : ']';
		c->p++;
		jc_ws(c);
		if (c->p < c->end && *c->p == close) {
			c->p++;
			c->depth--;
			return true;
		}
		for (;;) {
			if (b == '{') {
				jc_ws(c);
				if (!jc_string(c)) return false;
				jc_ws(c);
				if (c->p >= c->end || *c->p != ':') return false;
				c->p++;
			}
			if (!jc_value(c)) return false;
			jc_ws(c);
			if (c->p >= c->end) return false;
			if (*c->p == ',') { c->p++; continue; }
			if (*c->p != close) return false;
			c->p++;
			c->depth--;
			return true;
		}
	}
	if (b == '"') return jc_string(c);
	if (b == 't') return jc_lit(c, "true");
	if (b == 'f') return jc_lit(c, "false");
	if (b == 'n') return jc_lit(c, "null");
	return jc_number(c);
}

/* Exactly one JSON value (surrounded by optional whitespace), valid UTF-8. */
static bool check_json(const char *text, size_t n)
{
	jcheck c = { (const unsigned char *)text, (const unsigned char *)text + n, 0 };
	if (!jc_value(&c)) return false;
	jc_ws(&c);
	return c.p == c.end;
}

/* Finishes w; checks the length and that the text is valid JSON. The caller
 * frees the result with free(). */
static char *finish_valid(rk_test_state *rk_t_, rk_json_writer *w)
{
	size_t n = 12345;
	char *t = rk_json_writer_finish(w, &n);
	RK_CHECK(t != NULL);
	if (!t) return NULL;
	RK_CHECK_INT(n, strlen(t));
	RK_CHECK(check_json(t, n));
	return t;
}

/* ---- documents --------------------------------------------------------------- */

/* The same document, written in both modes by the tests below. */
static void write_sample(rk_json_writer *w)
{
	rk_json_object_begin(w, NULL);
	rk_json_int(w, "a", 1);
	rk_json_array_begin(w, "b");
	rk_json_int(w, NULL, 1);
	rk_json_number(w, NULL, 2.5);
	rk_json_array_end(w);
	rk_json_object_begin(w, "c");
	rk_json_object_end(w);
	rk_json_array_begin(w, "d");
	rk_json_array_end(w);
	rk_json_array_begin(w, "e");
	rk_json_object_begin(w, NULL);
	rk_json_null(w, "x");
	rk_json_bool(w, "y", true);
	rk_json_object_end(w);
	rk_json_array_begin(w, NULL);
	rk_json_array_end(w);
	rk_json_array_end(w);
	rk_json_string(w, "s", "hi");
	rk_json_vec3(w, "v", (rk_vec3){ 1, -2, 0.5 });
	rk_json_bool(w, "f", false);
	rk_json_object_end(w);
}

RK_TEST(compact_nested)
{
	rk_json_writer w;
	rk_json_writer_init(&w, 0);
	write_sample(&w);
	RK_CHECK(rk_json_writer_ok(&w));
	char *t = finish_valid(rk_t_, &w);
	RK_CHECK_STR(t, "{\"a\":1,\"b\":[1,2.5],\"c\":{},\"d\":[],\"e\":[{\"x\":null,\"y\":true},[]],"
		"\"s\":\"hi\",\"v\":[1,-2,0.5],\"f\":false}");
	free(t);
}

RK_TEST(zero_initialised_writer_is_compact)
{
	rk_json_writer w = { 0 };
	rk_json_array_begin(&w, NULL);
	rk_json_uint(&w, NULL, 7);
	rk_json_string(&w, NULL, NULL);
	rk_json_array_end(&w);
	char *t = finish_valid(rk_t_, &w);
	RK_CHECK_STR(t, "[7,\"\"]");
	free(t);
}

/* The layout of the CLI's --json output: one member per line, two spaces
 * per level, "key": value, {} and [] when empty, number triples on one line
 * with ", ", a final newline. */
RK_TEST(pretty_nested)
{
	rk_json_writer w;
	rk_json_writer_init(&w, RK_JSON_PRETTY);
	write_sample(&w);
	char *t = finish_valid(rk_t_, &w);
	RK_CHECK_STR(t,
		"{\n"
		"  \"a\": 1,\n"
		"  \"b\": [\n"
		"    1,\n"
		"    2.5\n"
		"  ],\n"
		"  \"c\": {},\n"
		"  \"d\": [],\n"
		"  \"e\": [\n"
		"    {\n"
		"      \"x\": null,\n"
		"      \"y\": true\n"
		"    },\n"
		"    []\n"
		"  ],\n"
		"  \"s\": \"hi\",\n"
		"  \"v\": [1, -2, 0.5],\n"
		"  \"f\": false\n"
		"}\n");
	free(t);
}

RK_TEST(pretty_top_level_scalars_and_empties)
{
	rk_json_writer w;
	rk_json_writer_init(&w, RK_JSON_PRETTY);
	rk_json_object_begin(&w, NULL);
	rk_json_object_end(&w);
	char *t = finish_valid(rk_t_, &w);
	RK_CHECK_STR(t, "{}\n");
	free(t);
	/* the writer is reusable after finish */
	rk_json_int(&w, NULL, -3);
	t = finish_valid(rk_t_, &w);
	RK_CHECK_STR(t, "-3\n");
	free(t);
	rk_json_writer_init(&w, 0);
	rk_json_string(&w, NULL, "x");
	t = finish_valid(rk_t_, &w);
	RK_CHECK_STR(t, "\"x\"");
	free(t);
}

RK_TEST(vec_quat_mat4_helpers)
{
	rk_mat4 m;
	for (int i = 0; i < 16; i++) m.m[i] = i == 0 || i == 5 || i == 10 || i == 15 ? 1.0 : 0.0;
	m.m[12] = 4; m.m[13] = 5; m.m[14] = 6; /* translation (column 3) */
	rk_json_writer w;
	rk_json_writer_init(&w, RK_JSON_PRETTY);
	rk_json_object_begin(&w, NULL);
	rk_json_quat(&w, "q", (rk_quat){ 0, 0, NAN, 1 });
	rk_json_mat4(&w, "m", m);
	rk_json_numbers(&w, "none", NULL, 0);
	rk_json_object_end(&w);
	char *t = finish_valid(rk_t_, &w);
	RK_CHECK_STR(t,
		"{\n"
		"  \"q\": [0, 0, null, 1],\n"
		"  \"m\": [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 4, 5, 6, 1],\n"
		"  \"none\": []\n"
		"}\n");
	free(t);
	rk_json_writer_init(&w, 0);
	rk_json_array_begin(&w, NULL);
	rk_json_vec3(&w, NULL, (rk_vec3){ 0.25, 0, -1 });
	rk_json_mat4(&w, NULL, m);
	rk_json_array_end(&w);
	t = finish_valid(rk_t_, &w);
	RK_CHECK_STR(t, "[[0.25,0,-1],[1,0,0,0,0,1,0,0,0,0,1,0,4,5,6,1]]");
	free(t);
}

/* ---- strings ----------------------------------------------------------------- */

static char *one_string(unsigned flags, const char *s, size_t n)
{
	rk_json_writer w;
	rk_json_writer_init(&w, flags);
	rk_json_string_n(&w, NULL, s, n);
	return rk_json_writer_finish(&w, NULL);
}

RK_TEST(escapes_every_control_char)
{
	char in[34];
	for (int i = 0; i < 32; i++) in[i] = (char)i;
	in[32] = '"';
	in[33] = '\\';
	char *t = one_string(0, in, sizeof(in));
	RK_REQUIRE(t);
	RK_CHECK(check_json(t, strlen(t)));
	RK_CHECK_STR(t, "\"\\u0000\\u0001\\u0002\\u0003\\u0004\\u0005\\u0006\\u0007"
		"\\u0008\\t\\n\\u000b\\u000c\\r\\u000e\\u000f"
		"\\u0010\\u0011\\u0012\\u0013\\u0014\\u0015\\u0016\\u0017"
		"\\u0018\\u0019\\u001a\\u001b\\u001c\\u001d\\u001e\\u001f\\\"\\\\\"");
	free(t);
	t = one_string(RK_JSON_ESCAPE_CONTROL_HEX, in, sizeof(in));
	RK_REQUIRE(t);
	RK_CHECK_STR(t, "\"\\u0000\\u0001\\u0002\\u0003\\u0004\\u0005\\u0006\\u0007"
		"\\u0008\\u0009\\u000a\\u000b\\u000c\\u000d\\u000e\\u000f"
		"\\u0010\\u0011\\u0012\\u0013\\u0014\\u0015\\u0016\\u0017"
		"\\u0018\\u0019\\u001a\\u001b\\u001c\\u001d\\u001e\\u001f\\\"\\\\\"");
	free(t);
}

RK_TEST(passes_printable_and_valid_utf8)
{
	/* '/', DEL, e-acute (C3 A9), euro (E2 82 AC), U+10FFFF (F4 8F BF BF),
	 * U+1F600 (F0 9F 98 80) stay as they are */
	const char *s = "a/b\x7f\xC3\xA9\xE2\x82\xAC\xF4\x8F\xBF\xBF\xF0\x9F\x98\x80 z";
	char *t = one_string(0, s, strlen(s));
	RK_REQUIRE(t);
	RK_CHECK(check_json(t, strlen(t)));
	RK_CHECK_STR(t, "\"a/b\x7f\xC3\xA9\xE2\x82\xAC\xF4\x8F\xBF\xBF\xF0\x9F\x98\x80 z\"");
	free(t);
}

#define FFFD "\xEF\xBF\xBD"

/* Each byte that does not start a well-formed sequence is one U+FFFD, and
 * decoding resumes at the next byte. */
RK_TEST(invalid_utf8_becomes_replacement_chars)
{
	static const struct { const char *in, *out; } cases[] = {
		{ "\x80", "\"" FFFD "\"" },                                   /* stray continuation */
		{ "a\xFF" "b", "\"a" FFFD "b\"" },                            /* never valid */
		{ "\xC0\xAF", "\"" FFFD FFFD "\"" },                          /* overlong '/' */
		{ "\xC1\xBF", "\"" FFFD FFFD "\"" },                          /* overlong */
		{ "\xE0\x80\xAF", "\"" FFFD FFFD FFFD "\"" },                 /* overlong 3-byte */
		{ "\xF0\x80\x80\xAF", "\"" FFFD FFFD FFFD FFFD "\"" },        /* overlong 4-byte */
		{ "\xED\xA0\x80", "\"" FFFD FFFD FFFD "\"" },                 /* surrogate U+D800 */
		{ "\xF4\x90\x80\x80", "\"" FFFD FFFD FFFD FFFD "\"" },        /* U+110000 */
		{ "\xF5\x80\x80\x80", "\"" FFFD FFFD FFFD FFFD "\"" },        /* lead > F4 */
		{ "\xE2\x82", "\"" FFFD FFFD "\"" },                          /* truncated at the end */
		{ "\xE2\x82x", "\"" FFFD FFFD "x\"" },                        /* truncated mid-string */
		{ "\xF0\x9F\x98" "A\xC3\xA9", "\"" FFFD FFFD FFFD "A\xC3\xA9\"" },
		{ "\xC3\"", "\"" FFFD "\\\"\"" },                             /* lead then quote */
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *t = one_string(0, cases[i].in, strlen(cases[i].in));
		RK_CHECK(t != NULL);
		if (!t) continue;
		RK_CHECK(check_json(t, strlen(t)));
		RK_CHECK_STR(t, cases[i].out);
		free(t);
	}
	/* keys are escaped the same way */
	rk_json_writer w;
	rk_json_writer_init(&w, 0);
	rk_json_object_begin(&w, NULL);
	rk_json_int(&w, "k\xFE\n\"", 1);
	rk_json_object_end(&w);
	char *t = finish_valid(rk_t_, &w);
	RK_CHECK_STR(t, "{\"k" FFFD "\\n\\\"\":1}");
	free(t);
}

RK_TEST(string_n_embedded_nul_and_streamed_string)
{
	char *t = one_string(0, "a\0b", 3);
	RK_CHECK_STR(t, "\"a\\u0000b\"");
	free(t);
	rk_json_writer w;
	rk_json_writer_init(&w, RK_JSON_PRETTY);
	rk_json_object_begin(&w, NULL);
	rk_json_string_begin(&w, "uri");
	rk_json_string_append(&w, "data:;base64,", 13);
	rk_json_string_append(&w, "QUJD", 4);
	rk_json_string_append(&w, NULL, 0);
	rk_json_string_append(&w, "\xC3", 1);  /* a sequence split across appends */
	rk_json_string_append(&w, "\xA9\"", 2);
	rk_json_string_end(&w);
	rk_json_int(&w, "n", 2);
	rk_json_object_end(&w);
	t = finish_valid(rk_t_, &w);
	RK_CHECK_STR(t, "{\n  \"uri\": \"data:;base64,QUJD" FFFD FFFD "\\\"\",\n  \"n\": 2\n}\n");
	free(t);
}

/* ---- numbers ----------------------------------------------------------------- */

static void check_number(rk_test_state *rk_t_, unsigned flags, double v, const char *expect)
{
	rk_json_writer w;
	rk_json_writer_init(&w, flags);
	rk_json_number(&w, NULL, v);
	char *t = rk_json_writer_finish(&w, NULL);
	if (!t || strcmp(t, expect) != 0) {
		fprintf(stderr, "number %.17g flags %u: got \"%s\", expected \"%s\"\n", v, flags, t ? t : "(null)", expect);
		rk_t_->failed++;
	}
	free(t);
}

RK_TEST(numbers_default_17g)
{
	check_number(rk_t_, 0, 0.0, "0");
	check_number(rk_t_, 0, -0.0, "-0");
	check_number(rk_t_, 0, 1.0, "1");
	check_number(rk_t_, 0, -2.5, "-2.5");
	check_number(rk_t_, 0, 0.1, "0.10000000000000001");
	check_number(rk_t_, 0, 1e15, "1000000000000000");
	check_number(rk_t_, 0, 1e17, "1e+17");
	check_number(rk_t_, 0, 1e300, "1.0000000000000001e+300");
	check_number(rk_t_, 0, 5e-324, "4.9406564584124654e-324");
	check_number(rk_t_, 0, NAN, "null");
	check_number(rk_t_, 0, INFINITY, "null");
	check_number(rk_t_, 0, -INFINITY, "null");
	check_number(rk_t_, RK_JSON_NONFINITE_ZERO, NAN, "0");
	check_number(rk_t_, RK_JSON_NONFINITE_ZERO, -INFINITY, "0");
}

RK_TEST(numbers_shortest)
{
	const unsigned s = RK_JSON_SHORTEST;
	check_number(rk_t_, s, 0.0, "0");
	check_number(rk_t_, s, -0.0, "0");
	check_number(rk_t_, s, 0.1, "0.1");
	check_number(rk_t_, s, 0.1 + 0.2, "0.30000000000000004");
	check_number(rk_t_, s, 1.0 / 3.0, "0.3333333333333333");
	check_number(rk_t_, s, -1.5, "-1.5");
	check_number(rk_t_, s, 100000000000000.0, "100000000000000");   /* 1e14: integral, < 1e15 */
	check_number(rk_t_, s, -999999999999999.0, "-999999999999999");
	check_number(rk_t_, s, 1e15, "1e+15");
	check_number(rk_t_, s, 1.25e-7, "1.25e-07");
	check_number(rk_t_, s, 5e-324, "5e-324");          /* denormal minimum */
	check_number(rk_t_, s, NAN, "null");
	check_number(rk_t_, s | RK_JSON_NONFINITE_ZERO, INFINITY, "0");
}

/* The definition RK_JSON_SHORTEST documents, the slow way: the smallest
 * "%.*g" precision whose text strtod reads back as v (integral values below
 * 1e15 as "%.0f"). The writer builds its candidates from one "%.17e"
 * (src/core/json.c); they must be the same texts. */
static void shortest_reference(char *t, size_t cap, double v)
{
	if (v == 0.0) {
		snprintf(t, cap, "0");
	} else if (v == floor(v) && fabs(v) < 1e15) {
		snprintf(t, cap, "%.0f", v);
	} else {
		for (int prec = 1; prec <= 17; prec++) {
			snprintf(t, cap, "%.*g", prec, v);
			if (strtod(t, NULL) == v) break;
		}
	}
}

static uint64_t xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

RK_TEST(numbers_shortest_match_the_definition)
{
	uint64_t seed = 0x9e3779b97f4a7c15ull;
	size_t bad = 0, n = 0;
	for (int i = 0; i < 120000; i++) {
		uint64_t r = xorshift(&seed);
		double v;
		switch (i % 6) {
		case 0: memcpy(&v, &r, sizeof(v)); break;                       /* any bit pattern */
		case 1: { uint32_t b = (uint32_t)r; float f; memcpy(&f, &b, sizeof(f)); v = f; break; } /* float data */
		case 2: v = (double)(int64_t)(r % 2000001) / 1000.0 - 1000.0; break; /* decimal fractions */
		case 3: v = (double)(r % 100000) * pow(10.0, (double)(int)((r >> 32) % 40) - 25.0); break; /* decades */
		case 4: v = ((double)(r % 1000) + 0.5) * pow(10.0, (double)(int)((r >> 40) % 30) - 20.0); break; /* halves */
		default: v = nextafter(pow(10.0, (double)(int)(r % 60) - 30.0), (r >> 63) ? INFINITY : 0.0); break; /* at 10^k */
		}
		if (!isfinite(v)) continue;
		char expect[64];
		shortest_reference(expect, sizeof(expect), v);
		rk_json_writer w;
		rk_json_writer_init(&w, RK_JSON_SHORTEST);
		rk_json_number(&w, NULL, v);
		char *t = rk_json_writer_finish(&w, NULL);
		n++;
		if (!t || strcmp(t, expect) != 0) {
			if (bad++ < 10) fprintf(stderr, "number %a: got \"%s\", expected \"%s\"\n", v, t ? t : "(null)", expect);
		}
		free(t);
	}
	RK_CHECK(n > 100000);
	RK_CHECK_INT((long long)bad, 0);
}

RK_TEST(integers_full_range)
{
	rk_json_writer w;
	rk_json_writer_init(&w, 0);
	rk_json_array_begin(&w, NULL);
	rk_json_int(&w, NULL, LLONG_MIN);
	rk_json_int(&w, NULL, LLONG_MAX);
	rk_json_uint(&w, NULL, UINT64_MAX);
	rk_json_uint(&w, NULL, 0);
	rk_json_raw(&w, NULL, "{\"pre\":1}", 9);
	rk_json_array_end(&w);
	char *t = finish_valid(rk_t_, &w);
	RK_CHECK_STR(t, "[-9223372036854775808,9223372036854775807,18446744073709551615,0,{\"pre\":1}]");
	free(t);
}

/* ---- errors ------------------------------------------------------------------ */

RK_TEST(depth_limit)
{
	rk_json_writer w;
	rk_json_writer_init(&w, 0);
	for (int i = 0; i < RK_JSON_MAX_DEPTH; i++) rk_json_array_begin(&w, NULL);
	RK_CHECK(rk_json_writer_ok(&w));
	for (int i = 0; i < RK_JSON_MAX_DEPTH; i++) rk_json_array_end(&w);
	char *t = finish_valid(rk_t_, &w);
	RK_CHECK(t && strlen(t) == 2 * RK_JSON_MAX_DEPTH);
	free(t);

	for (int i = 0; i < RK_JSON_MAX_DEPTH + 1; i++) rk_json_object_begin(&w, i ? "k" : NULL);
	RK_CHECK(!rk_json_writer_ok(&w));
	RK_CHECK_INT(rk_json_writer_error(&w), RK_ERROR_LIMIT);
	for (int i = 0; i < RK_JSON_MAX_DEPTH + 1; i++) rk_json_object_end(&w);
	RK_CHECK_INT(rk_json_writer_error(&w), RK_ERROR_LIMIT); /* sticky, first error kept */
	RK_CHECK(rk_json_writer_text(&w, NULL) == NULL);
	size_t n = 99;
	RK_CHECK(rk_json_writer_finish(&w, &n) == NULL);
	RK_CHECK_INT(n, 0);
	RK_CHECK_INT(rk_json_writer_error(&w), RK_ERROR_LIMIT); /* still tells why */
	rk_json_writer_free(&w);
	RK_CHECK(rk_json_writer_ok(&w));

	/* an inline number array is one more level too */
	for (int i = 0; i < RK_JSON_MAX_DEPTH; i++) rk_json_array_begin(&w, NULL);
	rk_json_vec3(&w, NULL, (rk_vec3){ 1, 2, 3 });
	RK_CHECK_INT(rk_json_writer_error(&w), RK_ERROR_LIMIT);
	rk_json_writer_free(&w);
	rk_json_writer_free(&w); /* harmless twice */
}

typedef void (*misuse_fn)(rk_json_writer *w);
static void mis_key_in_array(rk_json_writer *w) { rk_json_array_begin(w, NULL); rk_json_int(w, "k", 1); rk_json_array_end(w); }
static void mis_no_key_in_object(rk_json_writer *w) { rk_json_object_begin(w, NULL); rk_json_int(w, NULL, 1); rk_json_object_end(w); }
static void mis_key_at_top(rk_json_writer *w) { rk_json_object_begin(w, "k"); rk_json_object_end(w); }
static void mis_wrong_end(rk_json_writer *w) { rk_json_object_begin(w, NULL); rk_json_array_end(w); }
static void mis_extra_end(rk_json_writer *w) { rk_json_array_begin(w, NULL); rk_json_array_end(w); rk_json_array_end(w); }
static void mis_two_values(rk_json_writer *w) { rk_json_int(w, NULL, 1); rk_json_int(w, NULL, 2); }
static void mis_unclosed(rk_json_writer *w) { rk_json_array_begin(w, NULL); rk_json_int(w, NULL, 1); }
static void mis_nothing(rk_json_writer *w) { (void)w; }
static void mis_append_outside(rk_json_writer *w) { rk_json_string_append(w, "x", 1); rk_json_int(w, NULL, 1); }
static void mis_value_in_string(rk_json_writer *w) { rk_json_array_begin(w, NULL); rk_json_string_begin(w, NULL); rk_json_int(w, NULL, 1); rk_json_string_end(w); rk_json_array_end(w); }
static void mis_string_open(rk_json_writer *w) { rk_json_string_begin(w, NULL); }
static void mis_end_outside(rk_json_writer *w) { rk_json_string(w, NULL, "x"); rk_json_string_end(w); }
static void mis_null_data(rk_json_writer *w) { rk_json_string_n(w, NULL, NULL, 3); }
static void mis_null_numbers(rk_json_writer *w) { rk_json_numbers(w, NULL, NULL, 3); }
static void mis_null_raw(rk_json_writer *w) { rk_json_raw(w, NULL, NULL, 3); }

RK_TEST(misuse_is_rejected)
{
	static const misuse_fn fns[] = { mis_key_in_array, mis_no_key_in_object, mis_key_at_top, mis_wrong_end,
		mis_extra_end, mis_two_values, mis_unclosed, mis_nothing, mis_append_outside, mis_value_in_string,
		mis_string_open, mis_end_outside, mis_null_data, mis_null_numbers, mis_null_raw };
	for (size_t i = 0; i < sizeof(fns) / sizeof(fns[0]); i++) {
		for (unsigned flags = 0; flags <= RK_JSON_PRETTY; flags++) {
			rk_json_writer w;
			rk_json_writer_init(&w, flags);
			fns[i](&w);
			char *t = rk_json_writer_finish(&w, NULL);
			if (t || rk_json_writer_error(&w) != RK_ERROR_INVALID_ARGUMENT) {
				fprintf(stderr, "misuse case %zu (flags %u) was accepted: %s\n", i, flags, t ? t : "");
				rk_t_->failed++;
			}
			free(t);
			/* the error is visible before finish */
			rk_json_writer_init(&w, flags);
			fns[i](&w);
			if (i != 6 && i != 7 && i != 10) RK_CHECK_INT(rk_json_writer_error(&w), RK_ERROR_INVALID_ARGUMENT);
			rk_json_writer_free(&w);
		}
	}
}

/* ---- allocation failure ---------------------------------------------------------- */

typedef struct test_alloc {
	int fail_at;        /* 1-based allocation to fail; 0 = never */
	int count;
	size_t live_bytes;
	int live_blocks;
	int bad_free;       /* free with a size other than the one allocated */
	void *ptrs[64];
	size_t sizes[64];
} test_alloc;

static void *ta_alloc(void *user, size_t size)
{
	test_alloc *a = (test_alloc *)user;
	a->count++;
	if (a->fail_at && a->count == a->fail_at) return NULL;
	void *p = malloc(size);
	if (!p) return NULL;
	for (int i = 0; i < 64; i++) {
		if (!a->ptrs[i]) {
			a->ptrs[i] = p;
			a->sizes[i] = size;
			break;
		}
	}
	a->live_bytes += size;
	a->live_blocks++;
	return p;
}

static void ta_free(void *user, void *ptr, size_t size)
{
	test_alloc *a = (test_alloc *)user;
	int found = 0;
	for (int i = 0; i < 64; i++) {
		if (a->ptrs[i] == ptr) {
			if (a->sizes[i] != size) a->bad_free++;
			a->live_bytes -= a->sizes[i];
			a->ptrs[i] = NULL;
			found = 1;
			break;
		}
	}
	if (!found) a->bad_free++;
	a->live_blocks--;
	free(ptr);
}

/* A document of a few kilobytes, so the buffer grows several times. */
static void write_big(rk_json_writer *w)
{
	rk_json_object_begin(w, NULL);
	rk_json_array_begin(w, "values");
	for (int i = 0; i < 400; i++) rk_json_number(w, NULL, i * 0.1);
	rk_json_array_end(w);
	rk_json_string(w, "tail", "end\n\xFF");
	rk_json_object_end(w);
}

RK_TEST(allocation_failure_every_k)
{
	/* the reference text, from the default allocator */
	rk_json_writer w;
	rk_json_writer_init(&w, RK_JSON_PRETTY);
	write_big(&w);
	size_t ref_n = 0;
	char *ref = rk_json_writer_finish(&w, &ref_n);
	RK_REQUIRE(ref);

	int successes = 0;
	for (int k = 1; k < 64 && successes == 0; k++) {
		test_alloc ta;
		memset(&ta, 0, sizeof(ta));
		ta.fail_at = k;
		rk_json_writer_init(&w, RK_JSON_PRETTY);
		w.allocator = (rk_allocator){ ta_alloc, ta_free, &ta };
		write_big(&w);
		size_t n = 0;
		char *t = rk_json_writer_finish(&w, &n);
		if (t) {
			successes++;
			RK_CHECK(k > 2);               /* it really did fail earlier runs */
			RK_CHECK_INT(n, ref_n);
			RK_CHECK(memcmp(t, ref, ref_n + 1) == 0);
			RK_CHECK_INT(ta.live_blocks, 1);
			RK_CHECK_INT(ta.live_bytes, n + 1); /* handed over at exactly n + 1 bytes */
			rk_json_free_text(&w.allocator, t, n);
		} else {
			RK_CHECK_INT(n, 0);
			RK_CHECK_INT(rk_json_writer_error(&w), RK_ERROR_OUT_OF_MEMORY);
		}
		rk_json_writer_free(&w);
		RK_CHECK_INT(ta.live_blocks, 0);
		RK_CHECK_INT(ta.live_bytes, 0);
		RK_CHECK_INT(ta.bad_free, 0);
	}
	RK_CHECK_INT(successes, 1);

	/* failure mid-document, then freeing without finish */
	test_alloc ta;
	memset(&ta, 0, sizeof(ta));
	ta.fail_at = 2;
	rk_json_writer_init(&w, 0);
	w.allocator = (rk_allocator){ ta_alloc, ta_free, &ta };
	write_big(&w);
	RK_CHECK_INT(rk_json_writer_error(&w), RK_ERROR_OUT_OF_MEMORY);
	RK_CHECK(rk_json_writer_text(&w, NULL) == NULL);
	rk_json_writer_free(&w);
	RK_CHECK_INT(ta.live_blocks, 0);
	RK_CHECK_INT(ta.bad_free, 0);
	free(ref);
}

RK_TEST(text_view_and_splice)
{
	/* a section written by one writer, spliced into another with raw */
	rk_json_writer sec;
	rk_json_writer_init(&sec, 0);
	size_t n = 7;
	RK_CHECK(rk_json_writer_text(&sec, &n) == NULL);
	RK_CHECK_INT(n, 0);
	rk_json_array_begin(&sec, NULL);
	rk_json_object_begin(&sec, NULL);
	rk_json_string(&sec, "name", "a");
	rk_json_object_end(&sec);
	rk_json_array_end(&sec);
	const char *s = rk_json_writer_text(&sec, &n);
	RK_REQUIRE(s);
	RK_CHECK_STR(s, "[{\"name\":\"a\"}]");

	rk_json_writer w;
	rk_json_writer_init(&w, 0);
	rk_json_object_begin(&w, NULL);
	rk_json_raw(&w, "nodes", s, n);
	rk_json_uint(&w, "scene", 0);
	rk_json_object_end(&w);
	char *t = finish_valid(rk_t_, &w);
	RK_CHECK_STR(t, "{\"nodes\":[{\"name\":\"a\"}],\"scene\":0}");
	free(t);
	rk_json_writer_free(&sec);
}

RK_TEST_MAIN(
	RK_TEST_ENTRY(compact_nested),
	RK_TEST_ENTRY(zero_initialised_writer_is_compact),
	RK_TEST_ENTRY(pretty_nested),
	RK_TEST_ENTRY(pretty_top_level_scalars_and_empties),
	RK_TEST_ENTRY(vec_quat_mat4_helpers),
	RK_TEST_ENTRY(escapes_every_control_char),
	RK_TEST_ENTRY(passes_printable_and_valid_utf8),
	RK_TEST_ENTRY(invalid_utf8_becomes_replacement_chars),
	RK_TEST_ENTRY(string_n_embedded_nul_and_streamed_string),
	RK_TEST_ENTRY(numbers_default_17g),
	RK_TEST_ENTRY(numbers_shortest),
	RK_TEST_ENTRY(numbers_shortest_match_the_definition),
	RK_TEST_ENTRY(integers_full_range),
	RK_TEST_ENTRY(depth_limit),
	RK_TEST_ENTRY(misuse_is_rejected),
	RK_TEST_ENTRY(allocation_failure_every_k),
	RK_TEST_ENTRY(text_view_and_splice)
)
