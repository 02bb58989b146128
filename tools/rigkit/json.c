/* tools/rigkit/json.c - --json output: the CLI's names over rk_json_writer
 * (include/rigkit/json.h), which does all escaping and number formatting.
 * A document is built in memory and written to stdout in one piece. */
#include "cli.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

void cli_json_document(cli_json *j, cli_ctx *ctx)
{
	rk_json_writer_init(&j->w, RK_JSON_PRETTY);
	j->ctx = ctx;
}

int cli_json_end(cli_json *j)
{
	size_t n = 0;
	char *text = rk_json_writer_finish(&j->w, &n);
	if (!text) {
		rk_error_code code = rk_json_writer_error(&j->w);
		rk_json_writer_free(&j->w);
		return cli_fail(j->ctx, code, CLI_EXIT_OUTPUT, NULL, "cannot build the JSON document: %s",
			rk_error_code_name(code));
	}
	size_t wrote = fwrite(text, 1, n, stdout);
	int flushed = fflush(stdout);
	int errno_value = errno;
	rk_json_free_text(&j->w.allocator, text, n);
	j->ctx->document_written = true; /* even a partial one: no second document after it */
	if (wrote != n || flushed != 0)
		return cli_fail(j->ctx, RK_ERROR_OUTPUT, CLI_EXIT_OUTPUT, "stdout", "cannot write the JSON document: %s",
			strerror(errno_value));
	return CLI_EXIT_OK;
}

void cli_json_object(cli_json *j, const char *key) { rk_json_object_begin(&j->w, key); }
void cli_json_array(cli_json *j, const char *key) { rk_json_array_begin(&j->w, key); }
void cli_json_close_object(cli_json *j) { rk_json_object_end(&j->w); }
void cli_json_close_array(cli_json *j) { rk_json_array_end(&j->w); }

void cli_json_string(cli_json *j, const char *key, const char *value)
{
	if (value) rk_json_string(&j->w, key, value);
	else rk_json_null(&j->w, key);
}

void cli_json_name(cli_json *j, const char *key, const char *name)
{
	cli_json_string(j, key, name);
	if (!name || cli_is_utf8(name)) return;
	/* the JSON text has U+FFFD for the bad bytes: the exact bytes as hex too */
	static const char hex[] = "0123456789abcdef";
	char buf[2 * 256 + 1];
	size_t n = 0;
	for (const unsigned char *p = (const unsigned char *)name; *p && n + 2 < sizeof(buf); p++) {
		buf[n++] = hex[*p >> 4];
		buf[n++] = hex[*p & 15];
	}
	buf[n] = '\0';
	char hkey[64];
	snprintf(hkey, sizeof(hkey), "%s_hex", key);
	rk_json_string(&j->w, hkey, buf);
}

void cli_json_number(cli_json *j, const char *key, double value) { rk_json_number(&j->w, key, value); }
void cli_json_int(cli_json *j, const char *key, long long value) { rk_json_int(&j->w, key, value); }
void cli_json_bool(cli_json *j, const char *key, bool value) { rk_json_bool(&j->w, key, value); }
void cli_json_null(cli_json *j, const char *key) { rk_json_null(&j->w, key); }
void cli_json_vec3(cli_json *j, const char *key, rk_vec3 v) { rk_json_vec3(&j->w, key, v); }
void cli_json_quat(cli_json *j, const char *key, rk_quat q) { rk_json_quat(&j->w, key, q); }
void cli_json_mat4(cli_json *j, const char *key, rk_mat4 m) { rk_json_mat4(&j->w, key, m); }

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
	(void)cli_json_end(&j); /* its failure is reported on stderr; exit_code stands */
}
