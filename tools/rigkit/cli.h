/*
 * tools/rigkit/cli.h - shared pieces of the rigkit command-line tool.
 * The CLI uses only the public API (include/rigkit/).
 *
 * Exit codes: 0 ok, 1 usage, 2 bad input, 3 output failure.
 * Errors go to stderr as "rigkit: FILE: message (at LOCATION)".
 */
#ifndef RIGKIT_CLI_H
#define RIGKIT_CLI_H

#include <rigkit/rigkit.h>

#include <stdio.h>

enum { CLI_EXIT_OK = 0, CLI_EXIT_USAGE = 1, CLI_EXIT_INPUT = 2, CLI_EXIT_OUTPUT = 3 };

typedef struct cli_command {
	const char *name;
	const char *summary;
	const char *usage;           /* full help text for `rigkit NAME --help` */
	int (*run)(int argc, char **argv); /* argv[0] is the command name */
} cli_command;

/* Prints "rigkit: <formatted error>" to stderr. */
void cli_print_error(const rk_error *err);
/* Prints "rigkit: <fmt>" + newline to stderr. */
void cli_fail(const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 1, 2)))
#endif
	;
/* Exit code for a load/save error. */
int cli_exit_code(const rk_error *err);
/* True if argv contains --help or -h. */
int cli_wants_help(int argc, char **argv);
/* Load-conversion options shared by commands that load scenes:
 * "--axes NAME" and "--unit-meters U". Returns 1 when `opt` is one of them
 * and `value` parsed (lo updated), 0 when `opt` is not one of them, -1 after
 * printing a usage error (prefixed with `cmd`). */
int cli_load_option(const char *cmd, const char *opt, const char *value, rk_load_opts *lo);
/* The clip commands use when none is named: the first with any track, else
 * the first, else NULL. */
const rk_anim_clip *cli_default_clip(const rk_scene *s);
/* Parses "x,y,z" into v. */
int cli_parse_vec3(const char *s, rk_vec3 *v);

/* ---- a minimal JSON writer (to a FILE) ---- */
typedef struct cli_json {
	FILE *out;
	int depth;
	int need_comma[64];
	int pretty;
} cli_json;

void cli_json_begin(cli_json *j, FILE *out);
void cli_json_end(cli_json *j);                 /* final newline */
void cli_json_object(cli_json *j, const char *key);   /* key NULL inside arrays / top level */
void cli_json_array(cli_json *j, const char *key);
void cli_json_close_object(cli_json *j);
void cli_json_close_array(cli_json *j);
void cli_json_string(cli_json *j, const char *key, const char *value);
void cli_json_number(cli_json *j, const char *key, double value);
void cli_json_int(cli_json *j, const char *key, long long value);
void cli_json_bool(cli_json *j, const char *key, int value);
void cli_json_null(cli_json *j, const char *key);
void cli_json_vec3(cli_json *j, const char *key, rk_vec3 v);
void cli_json_quat(cli_json *j, const char *key, rk_quat q);
void cli_json_mat4(cli_json *j, const char *key, rk_mat4 m);

/* Commands. */
int cli_cmd_info(int argc, char **argv);
int cli_cmd_transform(int argc, char **argv);
int cli_cmd_convert(int argc, char **argv);
int cli_cmd_pose(int argc, char **argv);
extern const char cli_cmd_pose_usage[];
extern const char cli_cmd_convert_usage[];
extern const char cli_cmd_info_usage[];
extern const char cli_cmd_transform_usage[];
int cli_cmd_sample(int argc, char **argv);
extern const char cli_cmd_sample_usage[];
int cli_cmd_humanoid(int argc, char **argv);
extern const char cli_cmd_humanoid_usage[];
int cli_cmd_retarget(int argc, char **argv);
extern const char cli_cmd_retarget_usage[];
int cli_cmd_compare(int argc, char **argv);
extern const char cli_cmd_compare_usage[];
int cli_cmd_batch(int argc, char **argv);
extern const char cli_cmd_batch_usage[];
int cli_cmd_render(int argc, char **argv);
extern const char cli_cmd_render_usage[];

#endif
