/*
 * tools/rigkit/opts.h - the one table-driven option parser of the rigkit CLI.
 *
 * A command describes its options as rows (cli_opt): name, kind, where the
 * value goes (an offset into a struct the command owns), the accepted range
 * or names, a metavar and the help text. Rows are grouped in tables
 * (cli_opt_table); a command lists its tables in a cli_spec together with
 * its usage header and footer. The same spec
 *   - parses argv (cli_opts_parse): every table gets a target struct, the
 *     operands are collected, errors are printed as
 *     "rigkit: CMD: --fps expects a number in (0, 1000], got 'x'";
 *   - prints `rigkit CMD --help` (cli_opts_help).
 * Every command also gets the common table (--json, -q, -v, --help), whose
 * target is the command's cli_ctx; those are found before anything else is
 * checked, so even a usage error honours --json.
 *
 * Shared tables: cli_load_table (--axes, --unit-meters, --allow-path into rk_load_opts)
 * for every command that loads scenes, cli_retarget_table (--clip, --fps,
 * --root, --skip-fingers, --foot-ik into cli_retarget_args) for `retarget`
 * and `batch`.
 *
 * Memory: lists (CLI_OPT_LIST, CLI_OPT_PATHS) point into argv; their arrays
 * are owned by the cli_ctx and freed by cli_ctx_free().
 */
#ifndef RIGKIT_CLI_OPTS_H
#define RIGKIT_CLI_OPTS_H

#include <rigkit/rigkit.h>

#include <stddef.h>

struct cli_ctx;

typedef enum cli_opt_kind {
	CLI_OPT_FLAG,    /* bool target = true; no value */
	CLI_OPT_STRING,  /* const char * target = the value */
	CLI_OPT_INT,     /* long target, a decimal integer in [min, max] */
	CLI_OPT_DOUBLE,  /* double target, finite, within the range */
	CLI_OPT_ENUM,    /* int target = the value of the name given (names) */
	CLI_OPT_VEC3,    /* rk_vec3 target from "X,Y,Z" */
	CLI_OPT_SIZE,    /* cli_size target from "WxH" (or "N" for N x N), each in [min, max] */
	CLI_OPT_LIST,    /* cli_list target: every occurrence appends its value, checked as `item` */
	CLI_OPT_PATHS,   /* cli_list target: the arguments that follow, up to the next option (at least one) */
	CLI_OPT_CUSTOM   /* parse(value, target); false = rejected */
} cli_opt_kind;

/* Range flags: the bound itself is excluded. */
enum { CLI_MIN_OPEN = 1u << 0, CLI_MAX_OPEN = 1u << 1 };

typedef struct cli_enum_name {
	const char *name;
	int value;
} cli_enum_name;

/* A list of values (argv strings, not copied): the library's string list, so
 * a list row can fill rk_load_opts.allow_paths directly. */
typedef rk_string_list cli_list;

typedef struct cli_size {
	long width, height;
} cli_size;

typedef struct cli_opt {
	const char *name;              /* "--fps" */
	const char *alias;             /* "-q", or NULL */
	cli_opt_kind kind;
	size_t offset;                 /* of the target within the table's struct */
	size_t seen;                   /* CLI_SEEN(T, member): that bool is set when the option is given; 0 = none */
	double min, max;               /* INT, DOUBLE, SIZE (and LIST items); both 0 = any finite number */
	unsigned range;                /* CLI_MIN_OPEN, CLI_MAX_OPEN */
	const cli_enum_name *names;    /* ENUM: terminated by a NULL name */
	cli_opt_kind item;             /* LIST: how each value is checked (STRING, INT or DOUBLE) */
	size_t max_count;              /* LIST: most occurrences; 0 = no limit */
	bool (*parse)(const char *value, void *target); /* CUSTOM */
	const char *expects;           /* error text after "expects"; NULL = from kind and range */
	const char *metavar;           /* "N", "NAME"; NULL for flags */
	const char *help;              /* may hold '\n' for more lines */
} cli_opt;

/* offsetof + 1, so that 0 means "no seen flag". */
#define CLI_SEEN(type, member) (offsetof(type, member) + 1)

typedef struct cli_opt_table {
	const char *title;             /* heading in --help ("load options"); NULL = none */
	const cli_opt *rows;
	size_t count;
} cli_opt_table;

#define CLI_TABLE(title, rows) { (title), (rows), sizeof(rows) / sizeof((rows)[0]) }

#define CLI_MAX_OPERANDS 4
#define CLI_MAX_TABLES 4

typedef struct cli_spec {
	const char *name;              /* command name */
	const char *usage;             /* help text before the options (ends with a blank line) */
	const char *footer;            /* help text after the options; NULL = none */
	const char *operands;          /* "IN OUT", for errors */
	int min_operands, max_operands;
	const cli_opt_table *tables[CLI_MAX_TABLES]; /* the command's tables, NULL-terminated */
} cli_spec;

typedef struct cli_operands {
	const char *v[CLI_MAX_OPERANDS];
	int count;
} cli_operands;

/* Parses argv[1..argc-1] (argv[0] is the command name): the table
 * spec->tables[k] writes into targets[k]; the common options into ctx.
 * Returns 0, or CLI_EXIT_USAGE after reporting the error. */
int cli_opts_parse(struct cli_ctx *ctx, const cli_spec *spec, void *const *targets, int argc, char **argv,
	cli_operands *out);

/* Prints `rigkit NAME --help`: usage, every table's rows, the common options, footer. */
void cli_opts_help(FILE *out, const cli_spec *spec);

/* Shared tables. */
extern const cli_opt_table cli_load_table;      /* target: rk_load_opts */
extern const cli_opt_table cli_rest_table;      /* --rest MODE; target: int (an rk_rest_mode) */
extern const cli_opt_table cli_retarget_table;  /* target: cli_retarget_args */

/* Target of cli_retarget_table. `root` is an rk_retarget_root; call
 * cli_retarget_args_apply() after parsing. */
/* --twist-weight NODE=SHARE values (names copied: argv holds "NODE=SHARE"). */
#define CLI_RETARGET_MAX_TWIST_WEIGHTS 64
typedef struct cli_twist_weights {
	size_t count;
	rk_twist_weight items[CLI_RETARGET_MAX_TWIST_WEIGHTS];
	char names[CLI_RETARGET_MAX_TWIST_WEIGHTS][128];
} cli_twist_weights;

typedef struct cli_retarget_args {
	rk_retarget_opts ro;           /* fps, skip_fingers, foot_ik */
	int twist;                     /* --twist (rk_retarget_twist) */
	int contacts;                  /* --contacts (rk_retarget_contacts); --hand-contacts: ro.hand_contacts */
	cli_twist_weights twist_weights; /* --twist-weight: ro.twist_weights after apply */
	int root;
	int rest;                      /* --rest (rk_rest_mode) */
	cli_list clips;                /* --clip NAME... */
	long max_frames;               /* --max-frames N: ro.max_frames (and the GLB writer's) */
} cli_retarget_args;

#define CLI_RETARGET_MAX_CLIPS 256

void cli_retarget_args_apply(cli_retarget_args *a);

/* Target of cli_gltf_out_table (--rebase-time, --compress, --compress-anim):
 * glTF output options of `convert`, `retarget` and `batch`. */
typedef struct cli_gltf_out_args {
	bool rebase_time;
	int compress;                  /* an rk_gltf_compression */
	bool compress_anim;
} cli_gltf_out_args;

extern const cli_opt_table cli_gltf_out_table;
/* 0, or CLI_EXIT_USAGE after reporting: --compress-anim without --compress,
 * or any of them with an output that is not glTF (`gltf_out` false). */
int cli_gltf_out_check(struct cli_ctx *ctx, const cli_gltf_out_args *a, bool gltf_out);
/* Copies the options into o (the fields of rk_gltf_write_opts they name). */
void cli_gltf_out_apply(const cli_gltf_out_args *a, rk_gltf_write_opts *o);
const char *cli_retarget_root_name(rk_retarget_root r);

#endif
