/* tools/rigkit/json.c - a small streaming JSON writer for --json output. */
#include "cli.h"

#include <math.h>
#include <string.h>

static void cli_json_escaped(FILE *out, const char *s)
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
static void cli_json_key(cli_json *j, const char *key)
{
	if (j->depth > 0) {
		if (j->need_comma[j->depth]) fputc(',', j->out);
		j->need_comma[j->depth] = 1;
		fputc('\n', j->out);
		for (int i = 0; i < j->depth; i++) fputs("  ", j->out);
	}
	if (key) {
		cli_json_escaped(j->out, key);
		fputs(": ", j->out);
	}
}

void cli_json_begin(cli_json *j, FILE *out)
{
	memset(j, 0, sizeof(*j));
	j->out = out;
	j->pretty = 1;
}

void cli_json_end(cli_json *j) { fputc('\n', j->out); }

static void cli_json_open(cli_json *j, const char *key, char c)
{
	cli_json_key(j, key);
	fputc(c, j->out);
	if (j->depth < 63) j->depth++;
	j->need_comma[j->depth] = 0;
}

static void cli_json_close(cli_json *j, char c)
{
	int had = j->need_comma[j->depth];
	if (j->depth > 0) j->depth--;
	if (had) {
		fputc('\n', j->out);
		for (int i = 0; i < j->depth; i++) fputs("  ", j->out);
	}
	fputc(c, j->out);
}

void cli_json_object(cli_json *j, const char *key) { cli_json_open(j, key, '{'); }
void cli_json_array(cli_json *j, const char *key) { cli_json_open(j, key, '['); }
void cli_json_close_object(cli_json *j) { cli_json_close(j, '}'); }
void cli_json_close_array(cli_json *j) { cli_json_close(j, ']'); }

void cli_json_string(cli_json *j, const char *key, const char *value)
{
	cli_json_key(j, key);
	cli_json_escaped(j->out, value);
}

void cli_json_number(cli_json *j, const char *key, double value)
{
	cli_json_key(j, key);
	if (isfinite(value)) fprintf(j->out, "%.17g", value);
	else fputs("null", j->out);
}

void cli_json_int(cli_json *j, const char *key, long long value)
{
	cli_json_key(j, key);
	fprintf(j->out, "%lld", value);
}

void cli_json_bool(cli_json *j, const char *key, int value)
{
	cli_json_key(j, key);
	fputs(value ? "true" : "false", j->out);
}

void cli_json_null(cli_json *j, const char *key)
{
	cli_json_key(j, key);
	fputs("null", j->out);
}

static void cli_json_numbers(cli_json *j, const char *key, const double *v, int n)
{
	cli_json_key(j, key);
	fputc('[', j->out);
	for (int i = 0; i < n; i++) {
		if (isfinite(v[i])) fprintf(j->out, "%s%.17g", i ? ", " : "", v[i]);
		else fprintf(j->out, "%snull", i ? ", " : "");
	}
	fputc(']', j->out);
}

void cli_json_vec3(cli_json *j, const char *key, rk_vec3 v)
{
	double a[3] = { v.x, v.y, v.z };
	cli_json_numbers(j, key, a, 3);
}

void cli_json_quat(cli_json *j, const char *key, rk_quat q)
{
	double a[4] = { q.x, q.y, q.z, q.w };
	cli_json_numbers(j, key, a, 4);
}

void cli_json_mat4(cli_json *j, const char *key, rk_mat4 m)
{
	cli_json_numbers(j, key, m.m, 16);
}
