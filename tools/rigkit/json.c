/* tools/rigkit/json.c - a small streaming JSON writer for --json output. */
#include "cli.h"

#include <math.h>
#include <string.h>

static void rk_json_escaped(FILE *out, const char *s)
{
	fputc('"', out);
	for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
		switch (*p) {
		case '"': fputs("\\\"", out); break;
		case '\\': fputs("\\\\", out); break;
		case '\n': fputs("\\n", out); break;
		case '\r': fputs("\\r", out); break;
		case '\t': fputs("\\t", out); break;
		default:
			if (*p < 0x20) fprintf(out, "\\u%04x", *p);
			else fputc(*p, out);
		}
	}
	fputc('"', out);
}

/* Separator, newline + indentation, then "key": when inside an object. */
static void rk_json_key(rk_json *j, const char *key)
{
	if (j->depth > 0) {
		if (j->need_comma[j->depth]) fputc(',', j->out);
		j->need_comma[j->depth] = 1;
		fputc('\n', j->out);
		for (int i = 0; i < j->depth; i++) fputs("  ", j->out);
	}
	if (key) {
		rk_json_escaped(j->out, key);
		fputs(": ", j->out);
	}
}

void rk_json_begin(rk_json *j, FILE *out)
{
	memset(j, 0, sizeof(*j));
	j->out = out;
	j->pretty = 1;
}

void rk_json_end(rk_json *j) { fputc('\n', j->out); }

static void rk_json_open(rk_json *j, const char *key, char c)
{
	rk_json_key(j, key);
	fputc(c, j->out);
	if (j->depth < 63) j->depth++;
	j->need_comma[j->depth] = 0;
}

static void rk_json_close(rk_json *j, char c)
{
	int had = j->need_comma[j->depth];
	if (j->depth > 0) j->depth--;
	if (had) {
		fputc('\n', j->out);
		for (int i = 0; i < j->depth; i++) fputs("  ", j->out);
	}
	fputc(c, j->out);
}

void rk_json_object(rk_json *j, const char *key) { rk_json_open(j, key, '{'); }
void rk_json_array(rk_json *j, const char *key) { rk_json_open(j, key, '['); }
void rk_json_close_object(rk_json *j) { rk_json_close(j, '}'); }
void rk_json_close_array(rk_json *j) { rk_json_close(j, ']'); }

void rk_json_string(rk_json *j, const char *key, const char *value)
{
	rk_json_key(j, key);
	rk_json_escaped(j->out, value);
}

void rk_json_number(rk_json *j, const char *key, double value)
{
	rk_json_key(j, key);
	if (isfinite(value)) fprintf(j->out, "%.17g", value);
	else fputs("null", j->out);
}

void rk_json_int(rk_json *j, const char *key, long long value)
{
	rk_json_key(j, key);
	fprintf(j->out, "%lld", value);
}

void rk_json_bool(rk_json *j, const char *key, int value)
{
	rk_json_key(j, key);
	fputs(value ? "true" : "false", j->out);
}

void rk_json_null(rk_json *j, const char *key)
{
	rk_json_key(j, key);
	fputs("null", j->out);
}

static void rk_json_numbers(rk_json *j, const char *key, const double *v, int n)
{
	rk_json_key(j, key);
	fputc('[', j->out);
	for (int i = 0; i < n; i++) {
		if (isfinite(v[i])) fprintf(j->out, "%s%.17g", i ? ", " : "", v[i]);
		else fprintf(j->out, "%snull", i ? ", " : "");
	}
	fputc(']', j->out);
}

void rk_json_vec3(rk_json *j, const char *key, rk_vec3 v)
{
	double a[3] = { v.x, v.y, v.z };
	rk_json_numbers(j, key, a, 3);
}

void rk_json_quat(rk_json *j, const char *key, rk_quat q)
{
	double a[4] = { q.x, q.y, q.z, q.w };
	rk_json_numbers(j, key, a, 4);
}

void rk_json_mat4(rk_json *j, const char *key, rk_mat4 m)
{
	rk_json_numbers(j, key, m.m, 16);
}
