/*
 * tools/rigkit/cli.h - shared pieces of the rigkit command-line tool.
 * The CLI uses only the public API (include/rigkit/).
 *
 * Exit codes: 0 ok, 1 usage, 2 bad input, 3 output failure.
 * Errors go to stderr as "rigkit: FILE: message (at LOCATION)".
 *
 * Every command runs with a cli_ctx (one per invocation, no globals): the
 * common options (--json, -q, -v), whether stdin was read, and the first
 * error reported. With --json a command prints exactly one JSON document on
 * stdout; when it fails before printing one, main() prints the error
 * object (cli_json_error) from ctx->error:
 *   {"error": {"code", "description", "message", "file", "byte_offset",
 *    "line", "json_pointer", "fbx_node"}, "exit_code": N}
 */
#ifndef RIGKIT_CLI_H
#define RIGKIT_CLI_H

#include <rigkit/rigkit.h>

#include <stdio.h>

#include "opts.h"

enum { CLI_EXIT_OK = 0, CLI_EXIT_USAGE = 1, CLI_EXIT_INPUT = 2, CLI_EXIT_OUTPUT = 3 };

#define CLI_CTX_MAX_OWNED 8

typedef struct cli_ctx {
	const char *cmd;              /* command name: prefix of usage errors */
	bool json;                    /* --json: one JSON document on stdout */
	bool quiet;                   /* -q: no stderr output except errors */
	bool verbose;                 /* -v: more detail on stderr */
	bool help;                    /* --help (handled by main) */
	bool force;                   /* --force: replace a symbolic link or special file at an output path */
	bool fbx_ascii;               /* --fbx-ascii: FBX outputs as ASCII FBX 7.4 */
	bool stdin_read;              /* "-" was read already */
	bool document_written;        /* a JSON document went to stdout */
	bool failed;                  /* `error` holds the first error reported */
	rk_error error;
	void *owned[CLI_CTX_MAX_OWNED]; /* option lists, freed by cli_ctx_free */
	size_t owned_count;
	char text_ring[8][512];       /* cli_text results */
	unsigned text_next;
	/* the last compressed glTF written by cli_write_gltf (--compress) */
	size_t gltf_bytes, gltf_plain_bytes; /* its size, and the size without compression */
} cli_ctx;

/* Terminal output of names and messages from files: `s` with control bytes
 * (below 0x20 and 0x7f; so no escape sequence reaches the terminal) and
 * bytes that are not well-formed UTF-8 written as \xHH. cli_escape writes
 * into dst (always NUL-terminated, truncated to cap); cli_text returns one
 * of ctx's 8 ring buffers (valid until 8 more calls). JSON output needs
 * neither: rk_json_writer escapes and replaces bad bytes itself. */
size_t cli_escape(char *dst, size_t cap, const char *s);
/* True when s (NULL = "") is well-formed UTF-8. */
bool cli_is_utf8(const char *s);
const char *cli_text(cli_ctx *ctx, const char *s);

typedef struct cli_command {
	const char *name;
	const char *summary;
	const cli_spec *spec;               /* options and help text */
	int (*run)(cli_ctx *ctx, int argc, char **argv); /* argv[0] is the command name */
} cli_command;

void cli_ctx_free(cli_ctx *ctx);

#if defined(__GNUC__)
#define CLI_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define CLI_PRINTF(a, b)
#endif

/* Records err as the command's error (the first one recorded is kept) without printing. */
void cli_record(cli_ctx *ctx, const rk_error *err);
/* Prints "rigkit: <formatted error>" to stderr, records it; returns its exit code. */
int cli_print_error(cli_ctx *ctx, const rk_error *err);
/* A usage error: prints "rigkit: CMD: <fmt>", records it (invalid argument);
 * returns CLI_EXIT_USAGE. */
int cli_usage(cli_ctx *ctx, const char *fmt, ...) CLI_PRINTF(2, 3);
/* Prints "rigkit: FILE: <fmt>" (or "rigkit: <fmt>" when file is NULL),
 * records it with `code`; returns exit_code. */
int cli_fail(cli_ctx *ctx, rk_error_code code, int exit_code, const char *file, const char *fmt, ...)
	CLI_PRINTF(5, 6);
/* "rigkit: warning: <fmt>" unless -q. */
void cli_warn(cli_ctx *ctx, const char *fmt, ...) CLI_PRINTF(2, 3);
/* "rigkit: <fmt>" with -v only. */
void cli_note(cli_ctx *ctx, const char *fmt, ...) CLI_PRINTF(2, 3);
/* Exit code for a load/save error. */
int cli_exit_code(const rk_error *err);
/* True if argv contains --help or -h. */
int cli_wants_help(int argc, char **argv);

/* Loads `path` ("-": all of stdin, named "<stdin>" in errors, read once)
 * with lo (may be NULL). NULL after reporting the error; *rc = exit code. */
rk_scene *cli_load(cli_ctx *ctx, const char *path, const rk_load_opts *lo, int *rc);
/* True for the "-" operand. */
bool cli_is_stdio(const char *path);
/* Writes bytes to stdout (for "-" outputs). 0 or CLI_EXIT_OUTPUT after reporting. */
int cli_write_stdout(cli_ctx *ctx, const void *data, size_t size);

/* Output formats (--format NAME, else the extension of OUT). */
enum { CLI_FORMAT_NONE = 0, CLI_FORMAT_GLB, CLI_FORMAT_GLTF, CLI_FORMAT_OBJ, CLI_FORMAT_VRMA, CLI_FORMAT_BVH, CLI_FORMAT_FBX,
	CLI_FORMAT_FBX_ASCII /* FBX with --fbx-ascii (cli_write_scene; never named) */ };
#define CLI_FORMATS_GLTF ((1u << CLI_FORMAT_GLB) | (1u << CLI_FORMAT_GLTF))
/* glb, gltf, obj, bvh, vrma and vrm (= glb: a VRM is a GLB; for --format rows) */
extern const cli_enum_name cli_output_formats[];
/* The name of a format value ("glb" ...). */
const char *cli_output_format_name(int format);
/* The format to write `path` in: `format` when given (--format), else by the
 * extension; "-" (stdout) needs --format and excludes --json. `allowed`:
 * 1 << CLI_FORMAT_* bits. 0 with *out set, or CLI_EXIT_USAGE after reporting. */
int cli_output_format(cli_ctx *ctx, const char *path, int format, unsigned allowed, int *out);
/* Writes glTF/GLB (format) to path or stdout ("-"); o->container is set,
 * writer warnings go to cli_warn unless o->warning is set. 0 or an exit code
 * after reporting (3 for output failures, else 2). */
int cli_write_gltf(cli_ctx *ctx, const rk_scene *s, const char *path, int format, rk_gltf_write_opts *o);
/* (cli_write_gltf with o->compress: also builds the uncompressed file in
 * memory to measure it, prints "OUT: N bytes compressed (meshopt), R% of
 * the M bytes uncompressed" on stderr unless -q, and keeps both sizes in
 * ctx->gltf_bytes / gltf_plain_bytes.) */
/* Writes s to path (a file, not "-") in `format` (a cli_output_formats
 * value) without printing: the writer dispatch of commands that write from
 * worker threads (batch). A new output format gets its case here. false
 * with err set (RK_ERROR_OUTPUT: the file could not be written); force as
 * --force, max_frames as --max-frames (glTF baking; 0 = default). Safe from
 * several threads for distinct paths. */
bool cli_write_scene(const rk_scene *s, const char *path, int format, bool force, size_t max_frames, rk_error *err);
/* As cli_write_scene, glTF output with the --rebase-time / --compress
 * options `g` (NULL = none). With compression, *bytes and *plain_bytes
 * (may be NULL) receive the file's size and the size it has uncompressed. */
bool cli_write_scene_gltf(const rk_scene *s, const char *path, int format, bool force, size_t max_frames,
	const cli_gltf_out_args *g, size_t *bytes, size_t *plain_bytes, rk_error *err);
/* JSON member "compression": {mode, bytes, uncompressed_bytes, ratio} of
 * the last compressed glTF cli_write_gltf wrote (nothing when none). */
struct cli_json;
void cli_json_compression(struct cli_json *j, const cli_ctx *ctx);
/* FBX (rk_fbx_write; ASCII with ctx->fbx_ascii) to path or stdout; writer
 * warnings to cli_warn unless o->warning is set. 0 or an exit code. */
int cli_write_fbx(cli_ctx *ctx, const rk_scene *s, const char *path, rk_fbx_write_opts *o);
/* As cli_write_gltf, OBJ. */
int cli_write_obj(cli_ctx *ctx, const rk_scene *s, const char *path, const rk_obj_write_opts *o);
/* VRM Animation (rigkit/vrma.h) of `clip` (NULL = the first with tracks)
 * with humanoid `h` (NULL = detected) at `fps` (0 = default), to path or
 * stdout; warnings to cli_warn. 0 or an exit code after reporting.
 * `xsrc` / `xclip`: rk_vrma_write_opts.expression_source / _clip (NULL =
 * the scene's own). */
int cli_write_vrma(cli_ctx *ctx, const rk_scene *s, const char *path, const rk_humanoid *h, const rk_anim_clip *clip,
	double fps, const rk_scene *xsrc, const rk_anim_clip *xclip);
/* As cli_write_gltf, BVH (writer warnings to cli_warn unless o->warning is set). */
int cli_write_bvh(cli_ctx *ctx, const rk_scene *s, const char *path, rk_bvh_write_opts *o);
/* The extension of a path without the dot ("" when none). */
const char *cli_ext(const char *path);
/* Writer warning callback (rk_gltf_warning_fn): user is the cli_ctx. */
void cli_writer_warning(void *user, const rk_warning *w);
/* The clip commands use when none is named: the first with any track, else
 * the first, else NULL. */
const rk_anim_clip *cli_default_clip(const rk_scene *s);
/* The clip named `name` (reports "FILE: no animation clip named ..." and
 * returns NULL with *rc set when absent). */
const rk_anim_clip *cli_find_clip(cli_ctx *ctx, const rk_scene *s, const char *file, const char *name, int *rc);
/* Yaw (degrees, render.h's camera convention) that puts the camera in front
 * of a humanoid (rigkit render and rigkit view share it): its forward is
 * left x up, left = from the right upper leg to the left one at rest. 0 when
 * the scene is no humanoid or is mirrored. (cmd_render.c) */
double cli_character_yaw(const rk_scene *s);
/* --background values: "RRGGBB" or "RRGGBBAA" hex (optional '#') into the
 * uint8_t[4] at target (alpha 255 when not given). (cmd_render.c) */
bool cli_parse_colour(const char *s, void *target);
/* Parses "x,y,z" into v. */
int cli_parse_vec3(const char *s, rk_vec3 *v);

/* ---- --json output ----
 * Thin CLI names over rk_json_writer (include/rigkit/json.h) in pretty mode:
 * two-space indentation, strings escaped completely (bytes that are not
 * valid UTF-8 become U+FFFD), non-finite numbers null. The document is built
 * in memory; cli_json_end writes it to stdout in one piece. */
typedef struct cli_json {
	rk_json_writer w;
	cli_ctx *ctx;
} cli_json;

/* Begins the command's one document (nothing is written before cli_json_end). */
void cli_json_document(cli_json *j, cli_ctx *ctx);
/* Writes the document and its final newline to stdout and marks
 * ctx->document_written. Returns CLI_EXIT_OK, or CLI_EXIT_OUTPUT after
 * reporting (cli_fail) a writer failure (out of memory; nothing written) or
 * a failed write to stdout. The writer is released either way. */
int cli_json_end(cli_json *j);
void cli_json_object(cli_json *j, const char *key);   /* key NULL inside arrays / top level */
void cli_json_array(cli_json *j, const char *key);
void cli_json_close_object(cli_json *j);
void cli_json_close_array(cli_json *j);
void cli_json_string(cli_json *j, const char *key, const char *value); /* NULL value = null */
/* As cli_json_string, plus KEY_hex (the raw bytes in hex) when name is not
 * well-formed UTF-8 (the string itself then shows U+FFFD for bad bytes). */
void cli_json_name(cli_json *j, const char *key, const char *name);
void cli_json_number(cli_json *j, const char *key, double value);
void cli_json_int(cli_json *j, const char *key, long long value);
void cli_json_bool(cli_json *j, const char *key, bool value);
void cli_json_null(cli_json *j, const char *key);
void cli_json_vec3(cli_json *j, const char *key, rk_vec3 v);
void cli_json_quat(cli_json *j, const char *key, rk_quat q);
void cli_json_mat4(cli_json *j, const char *key, rk_mat4 m);
/* The "error" object of err (inside an object). */
void cli_json_error_fields(cli_json *j, const char *key, const rk_error *err);
/* The error document for a failed command: ctx->error and exit_code. */
void cli_json_error(cli_ctx *ctx, int exit_code);

/* Commands. */
int cli_cmd_info(cli_ctx *ctx, int argc, char **argv);
int cli_cmd_transform(cli_ctx *ctx, int argc, char **argv);
int cli_cmd_convert(cli_ctx *ctx, int argc, char **argv);
int cli_cmd_pose(cli_ctx *ctx, int argc, char **argv);
int cli_cmd_sample(cli_ctx *ctx, int argc, char **argv);
int cli_cmd_humanoid(cli_ctx *ctx, int argc, char **argv);
int cli_cmd_retarget(cli_ctx *ctx, int argc, char **argv);
int cli_cmd_compare(cli_ctx *ctx, int argc, char **argv);
int cli_cmd_batch(cli_ctx *ctx, int argc, char **argv);
int cli_cmd_render(cli_ctx *ctx, int argc, char **argv);
int cli_cmd_view(cli_ctx *ctx, int argc, char **argv);

/* memtune.c: glibc malloc settings for a one-shot process (called first in main). */
void cli_memtune(void);
extern const cli_spec cli_info_spec, cli_transform_spec, cli_convert_spec, cli_pose_spec, cli_sample_spec,
	cli_humanoid_spec, cli_retarget_spec, cli_compare_spec, cli_batch_spec, cli_render_spec,
	cli_view_spec;

#endif
