/* tools/rigkit/io.c - the CLI's files: loading (a path or "-" for stdin)
 * and writing scenes (a path or "-" for stdout). */
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#define CLI_STDIN_NAME "<stdin>"
#define CLI_STDIN_LIMIT ((size_t)1 << 31)

/* All of stdin into a malloc'd buffer. NULL after reporting. */
static unsigned char *cli_read_stdin(cli_ctx *ctx, size_t *size)
{
	size_t cap = 1 << 16, n = 0;
	unsigned char *buf = (unsigned char *)malloc(cap);
	while (buf) {
		if (n == cap) {
			if (cap >= CLI_STDIN_LIMIT) {
				free(buf);
				cli_fail(ctx, RK_ERROR_LIMIT, CLI_EXIT_INPUT, CLI_STDIN_NAME, "more than %zu bytes", CLI_STDIN_LIMIT);
				return NULL;
			}
			unsigned char *b = (unsigned char *)realloc(buf, cap * 2);
			if (!b) break;
			buf = b;
			cap *= 2;
		}
		size_t got = fread(buf + n, 1, cap - n, stdin);
		n += got;
		if (got == 0) {
			if (ferror(stdin)) {
				free(buf);
				cli_fail(ctx, RK_ERROR_IO, CLI_EXIT_INPUT, CLI_STDIN_NAME, "cannot read standard input");
				return NULL;
			}
			*size = n;
			return buf;
		}
	}
	free(buf);
	cli_fail(ctx, RK_ERROR_OUT_OF_MEMORY, CLI_EXIT_INPUT, CLI_STDIN_NAME, "out of memory reading standard input");
	return NULL;
}

static double cli_now(void)
{
	struct timespec ts;
	timespec_get(&ts, TIME_UTC);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

rk_scene *cli_load(cli_ctx *ctx, const char *path, const rk_load_opts *lo, int *rc)
{
	rk_error err;
	rk_scene *s;
	double t0 = cli_now();
	if (cli_is_stdio(path)) {
		if (ctx->stdin_read) {
			*rc = cli_fail(ctx, RK_ERROR_INVALID_ARGUMENT, CLI_EXIT_USAGE, NULL,
				"%s: standard input ('-') can be read only once", ctx->cmd);
			return NULL;
		}
		ctx->stdin_read = true;
		size_t size = 0;
		unsigned char *data = cli_read_stdin(ctx, &size);
		if (!data) {
			*rc = CLI_EXIT_INPUT;
			return NULL;
		}
		rk_load_opts o;
		if (lo) o = *lo;
		else memset(&o, 0, sizeof(o));
		o.filename = CLI_STDIN_NAME;
		s = rk_load_memory(data, size, &o, &err);
		free(data);
	} else {
		s = rk_load_file(path, lo, &err);
	}
	if (!s) {
		*rc = cli_print_error(ctx, &err);
		return NULL;
	}
	cli_note(ctx, "%s: %s, %zu nodes, %zu meshes, %zu clips, %zu warnings, %zu bytes, %.1f ms", path,
		rk_format_name(s->settings.format), s->nodes.count, s->meshes.count, s->clips.count, s->warnings.count,
		s->memory_used, (cli_now() - t0) * 1000.0);
	for (size_t i = 0; i < s->warnings.count; i++)
		cli_note(ctx, "%s: warning: %s (x%zu)", path, s->warnings.data[i].message, s->warnings.data[i].count);
	*rc = CLI_EXIT_OK;
	return s;
}

int cli_write_stdout(cli_ctx *ctx, const void *data, size_t size)
{
	if (fwrite(data, 1, size, stdout) != size || fflush(stdout) != 0)
		return cli_fail(ctx, RK_ERROR_OUTPUT, CLI_EXIT_OUTPUT, "<stdout>", "cannot write standard output");
	return CLI_EXIT_OK;
}

const cli_enum_name cli_output_formats[] = {
	{ "glb", CLI_FORMAT_GLB }, { "gltf", CLI_FORMAT_GLTF }, { "obj", CLI_FORMAT_OBJ }, { "bvh", CLI_FORMAT_BVH },
	{ "vrma", CLI_FORMAT_VRMA }, { "vrm", CLI_FORMAT_GLB }, { "fbx", CLI_FORMAT_FBX }, { NULL, 0 },
};

const char *cli_output_format_name(int format)
{
	for (const cli_enum_name *n = cli_output_formats; n->name; n++)
		if (n->value == format) return n->name;
	return "";
}

int cli_output_format(cli_ctx *ctx, const char *path, int format, unsigned allowed, int *out)
{
	if (cli_is_stdio(path) && ctx->json)
		return cli_usage(ctx, "--json and the output '-' would both write stdout");
	if (!format) {
		const char *ext = cli_ext(path);
		for (const cli_enum_name *n = cli_output_formats; n->name; n++)
			if (!strcasecmp(ext, n->name)) format = n->value;
		if (!format && cli_is_stdio(path))
			return cli_usage(ctx, "writing to stdout ('-') needs --format (see rigkit %s --help)", ctx->cmd);
	}
	if (!format || !(allowed & (1u << format))) {
		char list[128] = "";
		size_t n = 0;
		for (const cli_enum_name *e = cli_output_formats; e->name; e++)
			if (allowed & (1u << e->value))
				n += (size_t)snprintf(list + n, sizeof(list) - n, "%s.%s", n ? ", " : "", e->name);
		return cli_usage(ctx, "%s: unsupported output format '.%s' (supported: %s)", path, cli_ext(path), list);
	}
	*out = format;
	return CLI_EXIT_OK;
}

/* Bytes of the file `o` describes without compression (built in memory,
 * warnings not reported twice); 0 when it cannot be built. */
static size_t cli_gltf_plain_size(const rk_scene *s, const rk_gltf_write_opts *o)
{
	rk_gltf_write_opts plain = *o;
	plain.compress = RK_GLTF_COMPRESS_NONE;
	plain.compress_animation = false;
	plain.warning = NULL;
	plain.stats = NULL;
	void *data = NULL;
	size_t size = 0;
	rk_error err;
	if (!rk_gltf_write_memory(s, &plain, &data, &size, &err)) return 0;
	rk_gltf_memory_free(data);
	return size;
}

static size_t cli_file_size(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f) return 0;
	long n = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
	fclose(f);
	return n > 0 ? (size_t)n : 0;
}

static void cli_gltf_note_ratio(cli_ctx *ctx, const char *path, size_t bytes, size_t plain)
{
	ctx->gltf_bytes = bytes;
	ctx->gltf_plain_bytes = plain;
	if (!ctx->quiet && plain)
		fprintf(stderr, "rigkit: %s: %zu bytes compressed (meshopt), %.1f%% of the %zu bytes uncompressed\n",
			cli_text(ctx, path), bytes, 100.0 * (double)bytes / (double)plain, plain);
}

void cli_json_compression(cli_json *j, const cli_ctx *ctx)
{
	if (!ctx->gltf_bytes) return;
	cli_json_object(j, "compression");
	cli_json_string(j, "mode", "meshopt");
	cli_json_int(j, "bytes", (long long)ctx->gltf_bytes);
	cli_json_int(j, "uncompressed_bytes", (long long)ctx->gltf_plain_bytes);
	if (ctx->gltf_plain_bytes) cli_json_number(j, "ratio", (double)ctx->gltf_bytes / (double)ctx->gltf_plain_bytes);
	else cli_json_null(j, "ratio");
	cli_json_close_object(j);
}

int cli_write_gltf(cli_ctx *ctx, const rk_scene *s, const char *path, int format, rk_gltf_write_opts *o)
{
	rk_error err;
	if (!strcasecmp(cli_ext(path), "vrm")) {
		bool vrm = false;
		for (size_t i = 0; i < s->extensions.count; i++)
			vrm |= !strcmp(s->extensions.data[i].name, "VRMC_vrm") || !strcmp(s->extensions.data[i].name, "VRM");
		if (!vrm) cli_warn(ctx, "%s: the input declares no VRM (VRMC_vrm / VRM extension): written as a plain GLB", path);
	}
	o->container = format == CLI_FORMAT_GLTF ? RK_GLTF_CONTAINER_JSON : RK_GLTF_CONTAINER_GLB;
	if (!o->warning) {
		o->warning = cli_writer_warning;
		o->warning_user = ctx;
	}
	o->force = o->force || ctx->force;
	if (!cli_is_stdio(path)) {
		if (!rk_gltf_write(s, path, o, &err)) {
			cli_print_error(ctx, &err);
			return err.code == RK_ERROR_OUTPUT ? CLI_EXIT_OUTPUT : CLI_EXIT_INPUT;
		}
		if (o->compress) cli_gltf_note_ratio(ctx, path, cli_file_size(path), cli_gltf_plain_size(s, o));
		return CLI_EXIT_OK;
	}
	void *data = NULL;
	size_t size = 0;
	if (!rk_gltf_write_memory(s, o, &data, &size, &err)) {
		cli_print_error(ctx, &err);
		return CLI_EXIT_INPUT;
	}
	if (o->compress) cli_gltf_note_ratio(ctx, path, size, cli_gltf_plain_size(s, o));
	int rc = cli_write_stdout(ctx, data, size);
	rk_gltf_memory_free(data);
	return rc;
}

bool cli_write_scene(const rk_scene *s, const char *path, int format, bool force, size_t max_frames, rk_error *err)
{
	return cli_write_scene_gltf(s, path, format, force, max_frames, NULL, NULL, NULL, err);
}

bool cli_write_scene_gltf(const rk_scene *s, const char *path, int format, bool force, size_t max_frames,
	const cli_gltf_out_args *g, size_t *bytes, size_t *plain_bytes, rk_error *err)
{
	switch (format) {
	case CLI_FORMAT_GLB:
	case CLI_FORMAT_GLTF: {
		rk_gltf_write_opts o;
		memset(&o, 0, sizeof(o));
		o.container = format == CLI_FORMAT_GLTF ? RK_GLTF_CONTAINER_JSON : RK_GLTF_CONTAINER_GLB;
		o.force = force;
		o.max_frames = max_frames;
		if (g) cli_gltf_out_apply(g, &o);
		if (!rk_gltf_write(s, path, &o, err)) return false;
		if (o.compress) {
			if (bytes) *bytes = cli_file_size(path);
			if (plain_bytes) *plain_bytes = cli_gltf_plain_size(s, &o);
		}
		return true;
	}
	case CLI_FORMAT_OBJ:
		return rk_obj_write(s, path, &(rk_obj_write_opts){ .force = force }, err);
	case CLI_FORMAT_BVH:
		return rk_bvh_write(s, path, &(rk_bvh_write_opts){ .force = force }, err);
	case CLI_FORMAT_VRMA:
		return rk_vrma_write(s, path, &(rk_vrma_write_opts){ .force = force }, err);
	case CLI_FORMAT_FBX:
	case CLI_FORMAT_FBX_ASCII:
		return rk_fbx_write(s, path, &(rk_fbx_write_opts){ .force = force, .ascii = format == CLI_FORMAT_FBX_ASCII }, err);
	default:
		memset(err, 0, sizeof(*err));
		err->code = RK_ERROR_UNSUPPORTED;
		err->description = rk_error_code_name(err->code);
		snprintf(err->message, sizeof(err->message), "no writer for the output format of '%s'", path);
		snprintf(err->file, sizeof(err->file), "%s", path);
		return false;
	}
}

int cli_write_fbx(cli_ctx *ctx, const rk_scene *s, const char *path, rk_fbx_write_opts *o)
{
	rk_error err;
	if (!o->warning) {
		o->warning = cli_writer_warning;
		o->warning_user = ctx;
	}
	o->force = o->force || ctx->force;
	o->ascii = o->ascii || ctx->fbx_ascii;
	if (!cli_is_stdio(path)) {
		if (!rk_fbx_write(s, path, o, &err)) {
			cli_print_error(ctx, &err);
			return err.code == RK_ERROR_OUTPUT ? CLI_EXIT_OUTPUT : CLI_EXIT_INPUT;
		}
		return CLI_EXIT_OK;
	}
	void *data = NULL;
	size_t size = 0;
	if (!rk_fbx_write_memory(s, o, &data, &size, &err)) {
		cli_print_error(ctx, &err);
		return CLI_EXIT_INPUT;
	}
	int rc = cli_write_stdout(ctx, data, size);
	rk_fbx_memory_free(data);
	return rc;
}

/* Text writers: to `path` atomically, or built in memory for stdout. */
typedef bool cli_text_file_fn(const rk_scene *s, const char *path, const void *o, rk_error *err);
typedef bool cli_text_memory_fn(const rk_scene *s, const void *o, char **text, size_t *size, rk_error *err);

static int cli_write_text(cli_ctx *ctx, const rk_scene *s, const char *path, const void *o, cli_text_file_fn *to_file,
	cli_text_memory_fn *to_memory, void (*release)(char *))
{
	rk_error err;
	if (!cli_is_stdio(path)) {
		if (!to_file(s, path, o, &err)) {
			cli_print_error(ctx, &err);
			return err.code == RK_ERROR_OUTPUT ? CLI_EXIT_OUTPUT : CLI_EXIT_INPUT;
		}
		return CLI_EXIT_OK;
	}
	char *text = NULL;
	size_t size = 0;
	if (!to_memory(s, o, &text, &size, &err)) {
		cli_print_error(ctx, &err);
		return CLI_EXIT_INPUT;
	}
	int rc = cli_write_stdout(ctx, text, size);
	release(text);
	return rc;
}

int cli_write_vrma(cli_ctx *ctx, const rk_scene *s, const char *path, const rk_humanoid *h, const rk_anim_clip *clip,
	double fps, const rk_scene *xsrc, const rk_anim_clip *xclip)
{
	rk_error err;
	rk_vrma_write_stats st = { 0 };
	rk_vrma_write_opts o = { 0 };
	o.stats = &st;
	o.humanoid = h;
	o.clip = clip;
	o.fps = fps;
	o.expression_source = xsrc;
	o.expression_clip = xclip;
	o.warning = cli_writer_warning;
	o.warning_user = ctx;
	o.force = ctx->force;
	if (!h) rk_humanoid_check_declared(s, cli_writer_warning, ctx);
	if (!cli_is_stdio(path)) {
		if (!rk_vrma_write(s, path, &o, &err)) {
			cli_print_error(ctx, &err);
			return err.code == RK_ERROR_OUTPUT ? CLI_EXIT_OUTPUT : CLI_EXIT_INPUT;
		}
		cli_note(ctx, "%s: VRM Animation, %zu humanoid bones, %zu frames, %.3g s, %zu bytes%s", path, st.bone_count,
			st.frame_count, st.duration, st.size, st.expression_count ? ", with expressions" : "");
		return CLI_EXIT_OK;
	}
	void *data = NULL;
	size_t size = 0;
	if (!rk_vrma_write_memory(s, &o, &data, &size, &err)) {
		cli_print_error(ctx, &err);
		return CLI_EXIT_INPUT;
	}
	int rc = cli_write_stdout(ctx, data, size);
	rk_vrma_memory_free(data);
	return rc;
}

static bool cli_obj_file(const rk_scene *s, const char *path, const void *o, rk_error *err)
{
	return rk_obj_write(s, path, (const rk_obj_write_opts *)o, err);
}

static bool cli_obj_memory(const rk_scene *s, const void *o, char **text, size_t *size, rk_error *err)
{
	return rk_obj_write_memory(s, (const rk_obj_write_opts *)o, text, size, err);
}

int cli_write_obj(cli_ctx *ctx, const rk_scene *s, const char *path, const rk_obj_write_opts *o)
{
	rk_obj_write_opts fo;
	if (o) fo = *o;
	else memset(&fo, 0, sizeof(fo));
	fo.force = fo.force || ctx->force;
	return cli_write_text(ctx, s, path, &fo, cli_obj_file, cli_obj_memory, rk_obj_memory_free);
}

static bool cli_bvh_file(const rk_scene *s, const char *path, const void *o, rk_error *err)
{
	return rk_bvh_write(s, path, (const rk_bvh_write_opts *)o, err);
}

static bool cli_bvh_memory(const rk_scene *s, const void *o, char **text, size_t *size, rk_error *err)
{
	return rk_bvh_write_memory(s, (const rk_bvh_write_opts *)o, text, size, err);
}

int cli_write_bvh(cli_ctx *ctx, const rk_scene *s, const char *path, rk_bvh_write_opts *o)
{
	if (!o->warning) {
		o->warning = cli_writer_warning;
		o->warning_user = ctx;
	}
	o->force = o->force || ctx->force;
	return cli_write_text(ctx, s, path, o, cli_bvh_file, cli_bvh_memory, rk_bvh_memory_free);
}
