/* tools/rigkit/json.c - a small streaming JSON writer for --json output. */
#include "cli.h"

#include <math.h>
#include <string.h>

/* Length of the valid UTF-8 sequence at p (1..4), 0 when it is not one
 * (overlong forms, surrogates and code points above U+10FFFF included). */
static int cli_utf8_length(const unsigned char *p)
{
	unsigned c = p[0];
	int n;
	unsigned cp;
	if (c < 0x80) return 1;
	if (c >= 0xc2 && c <= 0xdf) { n = 2; cp = c & 0x1f; }
	else if (c >= 0xe0 && c <= 0xef) { n = 3; cp = c & 0x0f; }
	else if (c >= 0xf0 && c <= 0xf4) { n = 4; cp = c & 0x07; }
	else return 0;
	for (int i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80) return 0;   /* also stops at the NUL */
		cp = (cp << 6) | (p[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

/* A JSON string: quotes, backslash and control bytes escaped, bytes that
 * are not UTF-8 replaced by U+FFFD, so the output is always valid JSON. */
static void cli_json_escaped(FILE *out, const char *s)
{
	fputc('"', out);
	for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p;) {
		switch (*p) {
		case '"': fputs("\\\"", out); break;
		case '\\': fputs("\\\\", out); break;
		case '\n': fputs("\\n", out); break;
		case '\r': fputs("\\r", out); break;
		case '\t': fputs("\\t", out); break;
		default:
			if (*p < 0x20 || *p == 0x7f) {
				fprintf(out, "\\u%04x", *p);
			} else {
				int n = cli_utf8_length(p);
				if (n == 0) {
					fputs("\\ufffd", out);
				} else {
					fwrite(p, 1, (size_t)n, out);
					p += n;
					continue;
				}
			}
		}
		p++;
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

void cli_json_document(cli_json *j, cli_ctx *ctx)
{
	cli_json_begin(j, stdout);
	ctx->document_written = true;
}

void cli_json_end(cli_json *j)
{
	fputc('\n', j->out);
	fflush(j->out);
}

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
	if (value) cli_json_escaped(j->out, value);
	else fputs("null", j->out);
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

/* Stable names of the error codes, for programs reading the JSON (a new
 * code needs its name here). */
_Static_assert(RK_ERROR_COUNT_ == 10, "cli_error_ids: one name per rk_error_code");
static const char *const cli_error_ids[RK_ERROR_COUNT_] = {
	"ok", "invalid_argument", "io", "unknown_format", "unsupported", "truncated", "corrupt", "limit", "out_of_memory",
	"output",
};

void cli_json_error_fields(cli_json *j, const char *key, const rk_error *err)
{
	cli_json_object(j, key);
	cli_json_string(j, "code", (unsigned)err->code < RK_ERROR_COUNT_ ? cli_error_ids[err->code] : "unknown");
	cli_json_string(j, "description", rk_error_code_name(err->code));
	cli_json_string(j, "message", err->message);
	if (err->file[0]) cli_json_string(j, "file", err->file);
	else cli_json_null(j, "file");
	if (err->location & RK_LOCATION_BYTE) cli_json_int(j, "byte_offset", (long long)err->byte_offset);
	else cli_json_null(j, "byte_offset");
	if (err->location & RK_LOCATION_LINE) cli_json_int(j, "line", (long long)err->line);
	else cli_json_null(j, "line");
	cli_json_string(j, "json_pointer", (err->location & RK_LOCATION_JSON) ? err->path : NULL);
	cli_json_string(j, "fbx_node", (err->location & RK_LOCATION_FBX_NODE) ? err->path : NULL);
	cli_json_close_object(j);
}

void cli_json_error(cli_ctx *ctx, int exit_code)
{
	rk_error e = ctx->error;
	if (!ctx->failed) {
		memset(&e, 0, sizeof(e));
		e.code = exit_code == CLI_EXIT_OUTPUT ? RK_ERROR_OUTPUT : exit_code == CLI_EXIT_USAGE ? RK_ERROR_INVALID_ARGUMENT : RK_ERROR_CORRUPT;
		snprintf(e.message, sizeof(e.message), "%s failed", ctx->cmd ? ctx->cmd : "rigkit");
	}
	cli_json j;
	cli_json_document(&j, ctx);
	cli_json_object(&j, NULL);
	cli_json_error_fields(&j, "error", &e);
	cli_json_int(&j, "exit_code", exit_code);
	cli_json_close_object(&j);
	cli_json_end(&j);
}
