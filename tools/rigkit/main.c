/* tools/rigkit/main.c - the rigkit command-line tool: dispatch, help, shared helpers. */
#include "cli.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static const cli_command cli_commands[] = {
	{ "info", "describe a scene file (FBX, glTF, GLB, VRM, BVH)", &cli_info_spec, cli_cmd_info },
	{ "convert", "convert a scene to GLB/glTF/VRM/VRMA/BVH/FBX, or evaluate it into a posed OBJ", &cli_convert_spec, cli_cmd_convert },
	{ "pose", "print evaluated node world transforms at given times", &cli_pose_spec, cli_cmd_pose },
	{ "transform", "evaluate the FBX node transform chain for given properties", &cli_transform_spec, cli_cmd_transform },
	{ "sample", "write the built-in sample characters (source.glb, avatar.glb)", &cli_sample_spec, cli_cmd_sample },
	{ "humanoid", "show which node plays which humanoid bone", &cli_humanoid_spec, cli_cmd_humanoid },
	{ "retarget", "play a clip of one humanoid on another, write it as GLB/VRM/VRMA/BVH/FBX", &cli_retarget_spec, cli_cmd_retarget },
	{ "compare", "compare two clips on two humanoids bone by bone, in numbers", &cli_compare_spec, cli_cmd_compare },
	{ "batch", "retarget many motions onto many avatars in parallel", &cli_batch_spec, cli_cmd_batch },
	{ "render", "draw a posed scene into a PNG (no GPU)", &cli_render_spec, cli_cmd_render },
	{ "view", "show a scene in a window on the GPU (OpenGL), or a GPU screenshot", &cli_view_spec, cli_cmd_view },
};

static void cli_print_help(FILE *out)
{
	fprintf(out,
		"rigkit %s - animated-character pipeline tool\n"
		"\n"
		"usage: rigkit COMMAND [ARGS...]\n"
		"       rigkit COMMAND --help\n"
		"       rigkit --help | --version\n"
		"\n"
		"commands:\n", rk_version());
	for (size_t i = 0; i < sizeof(cli_commands) / sizeof(cli_commands[0]); i++)
		fprintf(out, "  %-10s %s\n", cli_commands[i].name, cli_commands[i].summary);
	fprintf(out,
		"\n"
		"exit codes: 0 ok, 1 usage error, 2 bad input, 3 output failure\n"
		"every command accepts --json (one JSON document on stdout, errors too),\n"
		"-q (nothing on stderr but errors) and -v (more detail on stderr);\n"
		"FILE '-' reads stdin, OUT '-' writes stdout where a command takes one file\n");
}

void cli_ctx_free(cli_ctx *ctx)
{
	for (size_t i = 0; i < ctx->owned_count; i++) free(ctx->owned[i]);
	ctx->owned_count = 0;
}

void cli_record(cli_ctx *ctx, const rk_error *err)
{
	if (ctx->failed) return;
	ctx->failed = true;
	ctx->error = *err;
	if (!ctx->error.description) ctx->error.description = rk_error_code_name(err->code);
}

static void cli_record_text(cli_ctx *ctx, rk_error_code code, const char *file, const char *fmt, va_list ap)
{
	rk_error e;
	memset(&e, 0, sizeof(e));
	e.code = code;
	e.description = rk_error_code_name(code);
	vsnprintf(e.message, sizeof(e.message), fmt, ap);
	if (file) snprintf(e.file, sizeof(e.file), "%s", file);
	cli_record(ctx, &e);
}

/* Bytes of the well-formed UTF-8 sequence at s (s[0] >= 0x80), 0 if none. */
static size_t cli_utf8_run(const unsigned char *s)
{
	unsigned c = s[0], lo = 0x80, hi = 0xBF;
	size_t len = c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3 : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
	if (c == 0xE0) lo = 0xA0;
	if (c == 0xED) hi = 0x9F;
	if (c == 0xF0) lo = 0x90;
	if (c == 0xF4) hi = 0x8F;
	if (!len || s[1] < lo || s[1] > hi) return 0;
	for (size_t i = 2; i < len; i++)
		if ((s[i] & 0xC0) != 0x80) return 0;
	return len;
}

bool cli_is_utf8(const char *s)
{
	for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p;) {
		size_t run = *p >= 0x80 ? cli_utf8_run(p) : 1;
		if (!run) return false;
		p += run;
	}
	return true;
}

size_t cli_escape(char *dst, size_t cap, const char *s)
{
	static const char hex[] = "0123456789abcdef";
	size_t o = 0;
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	while (*p && o + 5 < cap) {
		size_t run = *p >= 0x80 ? cli_utf8_run(p) : (*p >= 0x20 && *p != 0x7f) ? 1 : 0;
		if (run) {
			memcpy(dst + o, p, run);
			o += run;
			p += run;
			continue;
		}
		dst[o++] = '\\';
		dst[o++] = 'x';
		dst[o++] = hex[*p >> 4];
		dst[o++] = hex[*p & 15];
		p++;
	}
	if (cap) dst[o < cap ? o : cap - 1] = '\0';
	return o;
}

const char *cli_text(cli_ctx *ctx, const char *s)
{
	char *b = ctx->text_ring[ctx->text_next++ % 8];
	cli_escape(b, sizeof(ctx->text_ring[0]), s);
	return b;
}

/* One line "rigkit: PREFIX<formatted text>" on stderr, escaped (cli_escape). */
static void cli_stderr_line(const char *prefix, const char *fmt, va_list ap)
{
	char raw[4096], safe[4096];
	vsnprintf(raw, sizeof(raw), fmt, ap);
	cli_escape(safe, sizeof(safe), raw);
	fprintf(stderr, "rigkit: %s%s\n", prefix, safe);
}

static void cli_stderr_printf(const char *prefix, const char *fmt, ...) CLI_PRINTF(2, 3);
static void cli_stderr_printf(const char *prefix, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	cli_stderr_line(prefix, fmt, ap);
	va_end(ap);
}

int cli_print_error(cli_ctx *ctx, const rk_error *err)
{
	char buf[2048];
	rk_error_format(buf, sizeof(buf), err);
	cli_stderr_printf("", "%s", buf);
	cli_record(ctx, err);
	return cli_exit_code(err);
}

int cli_usage(cli_ctx *ctx, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char prefix[128];
	snprintf(prefix, sizeof(prefix), "%s: ", ctx->cmd ? ctx->cmd : "rigkit");
	cli_stderr_line(prefix, fmt, ap);
	va_end(ap);
	va_start(ap, fmt);
	cli_record_text(ctx, RK_ERROR_INVALID_ARGUMENT, NULL, fmt, ap);
	va_end(ap);
	return CLI_EXIT_USAGE;
}

int cli_fail(cli_ctx *ctx, rk_error_code code, int exit_code, const char *file, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char prefix[600];
	cli_escape(prefix, sizeof(prefix) - 2, file ? file : "");
	if (file) strcat(prefix, ": ");
	cli_stderr_line(prefix, fmt, ap);
	va_end(ap);
	va_start(ap, fmt);
	cli_record_text(ctx, code, file, fmt, ap);
	va_end(ap);
	return exit_code;
}

void cli_warn(cli_ctx *ctx, const char *fmt, ...)
{
	if (ctx->quiet) return;
	va_list ap;
	va_start(ap, fmt);
	cli_stderr_line("warning: ", fmt, ap);
	va_end(ap);
}

void cli_note(cli_ctx *ctx, const char *fmt, ...)
{
	if (!ctx->verbose || ctx->quiet) return;
	va_list ap;
	va_start(ap, fmt);
	cli_stderr_line("", fmt, ap);
	va_end(ap);
}

/* The library reports a warning when it first happens (count 1) and once
 * more at the end when it repeated (the total count). */
void cli_writer_warning(void *user, const rk_warning *w)
{
	if (w->count > 1) cli_warn((cli_ctx *)user, "%s (x%zu in all)", w->message, w->count);
	else cli_warn((cli_ctx *)user, "%s", w->message);
}

int cli_exit_code(const rk_error *err)
{
	if (err->code == RK_ERROR_OUTPUT) return CLI_EXIT_OUTPUT;
	if (err->code == RK_ERROR_INVALID_ARGUMENT) return CLI_EXIT_USAGE;
	return CLI_EXIT_INPUT;
}

int cli_wants_help(int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) return 1;
	return 0;
}

bool cli_is_stdio(const char *path) { return path && path[0] == '-' && path[1] == '\0'; }

const char *cli_ext(const char *path)
{
	const char *dot = strrchr(path, '.');
	const char *slash = strrchr(path, '/');
	return (dot && (!slash || dot > slash)) ? dot + 1 : "";
}

const rk_anim_clip *cli_find_clip(cli_ctx *ctx, const rk_scene *s, const char *file, const char *name, int *rc)
{
	const rk_anim_clip *c = rk_scene_find_clip(s, name);
	if (!c) *rc = cli_fail(ctx, RK_ERROR_INVALID_ARGUMENT, CLI_EXIT_INPUT, file, "no animation clip named '%s' (see rigkit info)", name);
	return c;
}

const rk_anim_clip *cli_default_clip(const rk_scene *s)
{
	for (size_t i = 0; i < s->clips.count; i++)
		for (size_t l = 0; l < s->clips.data[i].layer_count; l++)
			if (s->clips.data[i].layers[l].track_count) return &s->clips.data[i];
	return s->clips.count ? &s->clips.data[0] : NULL;
}

int cli_parse_vec3(const char *s, rk_vec3 *v)
{
	char *end;
	double c[3];
	const char *p = s;
	for (int i = 0; i < 3; i++) {
		c[i] = strtod(p, &end);
		if (end == p) return 0;
		p = end;
		if (i < 2) {
			if (*p != ',') return 0;
			p++;
		}
	}
	if (*p != '\0') return 0;
	*v = (rk_vec3){ c[0], c[1], c[2] };
	return 1;
}

int main(int argc, char **argv)
{
	cli_memtune();
	if (argc < 2) {
		cli_print_help(stderr);
		return CLI_EXIT_USAGE;
	}
	const char *cmd = argv[1];
	if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
		cli_print_help(stdout);
		return CLI_EXIT_OK;
	}
	if (strcmp(cmd, "--version") == 0) {
		printf("rigkit %s\n", rk_version());
		return CLI_EXIT_OK;
	}
	for (size_t i = 0; i < sizeof(cli_commands) / sizeof(cli_commands[0]); i++) {
		if (strcmp(cmd, cli_commands[i].name) != 0) continue;
		if (cli_wants_help(argc - 1, argv + 1)) {
			cli_opts_help(stdout, cli_commands[i].spec);
			return CLI_EXIT_OK;
		}
		cli_ctx ctx;
		memset(&ctx, 0, sizeof(ctx));
		ctx.cmd = cli_commands[i].name;
		int rc = cli_commands[i].run(&ctx, argc - 1, argv + 1);
		if (rc != CLI_EXIT_OK && ctx.json && !ctx.document_written) cli_json_error(&ctx, rc);
		cli_ctx_free(&ctx);
		return rc;
	}
	cli_ctx ctx;
	memset(&ctx, 0, sizeof(ctx));
	for (int i = 2; i < argc; i++) ctx.json |= strcmp(argv[i], "--json") == 0;
	cli_fail(&ctx, RK_ERROR_INVALID_ARGUMENT, CLI_EXIT_USAGE, NULL, "unknown command '%s' (see rigkit --help)", cmd);
	if (ctx.json) cli_json_error(&ctx, CLI_EXIT_USAGE);
	return CLI_EXIT_USAGE;
}
