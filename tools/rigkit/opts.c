/* tools/rigkit/opts.c - the table-driven option parser and help printer (opts.h). */
#include "cli.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- the common options: every command, target cli_ctx ----------------------- */

static const cli_opt cli_common_rows[] = {
	{ .name = "--json", .kind = CLI_OPT_FLAG, .offset = offsetof(cli_ctx, json),
		.help = "one JSON document on stdout; on failure\n{\"error\": {code, message, file, ...}, \"exit_code\": N}" },
	{ .name = "--quiet", .alias = "-q", .kind = CLI_OPT_FLAG, .offset = offsetof(cli_ctx, quiet),
		.help = "nothing on stderr but errors" },
	{ .name = "--verbose", .alias = "-v", .kind = CLI_OPT_FLAG, .offset = offsetof(cli_ctx, verbose),
		.help = "more detail on stderr (files loaded, sizes, times)" },
	{ .name = "--help", .alias = "-h", .kind = CLI_OPT_FLAG, .offset = offsetof(cli_ctx, help),
		.help = "this text" },
	{ .name = "--force", .kind = CLI_OPT_FLAG, .offset = offsetof(cli_ctx, force),
		.help = "commands that write: replace a symbolic link, FIFO or\ndevice at an output path (default: refused)" },
	{ .name = "--fbx-ascii", .kind = CLI_OPT_FLAG, .offset = offsetof(cli_ctx, fbx_ascii),
		.help = "commands that write FBX: ASCII FBX 7.4 (for reading by\neye) instead of binary FBX 7400" },
};
static const cli_opt_table cli_common_table = CLI_TABLE("common options", cli_common_rows);

/* ---- shared tables --------------------------------------------------------------- */

static bool cli_parse_axes(const char *value, void *target)
{
	return rk_axes_parse(value, (rk_axes *)target);
}

static const cli_enum_name cli_bvh_position_names[] = {
	{ "auto", RK_BVH_POSITIONS_AUTO },
	{ "offset", RK_BVH_POSITIONS_ADD_OFFSET },
	{ "absolute", RK_BVH_POSITIONS_ABSOLUTE },
	{ NULL, 0 },
};
/* "N", "NK", "NM", "NG" (binary units), at least 1 MiB. */
static bool cli_parse_bytes(const char *value, void *target)
{
	char *end;
	if (value[0] < '0' || value[0] > '9') return false;
	double v = strtod(value, &end);
	double unit = 1.0;
	if (*end == 'K' || *end == 'k') unit = 1024.0;
	else if (*end == 'M' || *end == 'm') unit = 1024.0 * 1024.0;
	else if (*end == 'G' || *end == 'g') unit = 1024.0 * 1024.0 * 1024.0;
	if (unit != 1.0) end++;
	if (*end || !isfinite(v)) return false;
	double bytes = v * unit;
	if (!(bytes >= 1024.0 * 1024.0) || bytes > (double)SIZE_MAX / 2) return false;
	*(size_t *)target = (size_t)bytes;
	return true;
}

static const cli_opt cli_load_rows[] = {
	{ .name = "--axes", .kind = CLI_OPT_CUSTOM, .offset = offsetof(rk_load_opts, target_axes), .parse = cli_parse_axes,
		.expects = "right_handed_y_up, left_handed_y_up, right_handed_z_up or left_handed_z_up", .metavar = "AXES",
		.help = "convert to right_handed_y_up, left_handed_y_up,\nright_handed_z_up or left_handed_z_up" },
	{ .name = "--unit-meters", .kind = CLI_OPT_DOUBLE, .offset = offsetof(rk_load_opts, target_unit_meters),
		.min = 0.0, .max = INFINITY, .range = CLI_MIN_OPEN, .expects = "a positive number", .metavar = "U",
		.help = "convert to U metres per unit" },
	{ .name = "--source-unit-meters", .kind = CLI_OPT_DOUBLE, .offset = offsetof(rk_load_opts, source_unit_meters),
		.min = 0.0, .max = INFINITY, .range = CLI_MIN_OPEN, .expects = "a positive number", .metavar = "U",
		.help = "metres per unit of inputs that do not say (BVH;\ndefault 0.01: centimetres)" },
	{ .name = "--bvh-positions", .kind = CLI_OPT_ENUM, .offset = offsetof(rk_load_opts, bvh_positions),
		.names = cli_bvh_position_names, .metavar = "MODE",
		.help = "BVH position channels: auto (default), offset (added to\nthe OFFSET, as three.js) or absolute (as Blender)" },
	{ .name = "--allow-path", .kind = CLI_OPT_LIST, .offset = offsetof(rk_load_opts, allow_paths), .item = CLI_OPT_STRING,
		.metavar = "DIR",
		.help = "also read buffers and textures an input refers to from\nthe folder tree DIR (repeatable; default: only the\n"
			"input's own folder; docs/security.md)" },
	{ .name = "--max-memory", .kind = CLI_OPT_CUSTOM, .offset = offsetof(rk_load_opts, memory_limit),
		.parse = cli_parse_bytes, .expects = "bytes >= 1M (suffix K, M or G)", .metavar = "BYTES",
		.help = "memory budget of each load (default: max(256M, 64 x the\ninput size), at most 4G); "
			"more is an error naming the file" },
};
const cli_opt_table cli_load_table = CLI_TABLE("load options", cli_load_rows);

static const cli_enum_name cli_rest_names[] = {
	{ "auto", RK_REST_AUTO },
	{ "bind", RK_REST_BIND },
	{ "stored", RK_REST_STORED },
	{ NULL, 0 },
};

#define CLI_REST_HELP "the skeleton's rest pose: auto (default) = the skins'\nbind pose where it differs from the stored node\ntransforms, else those; bind; stored (docs/retarget.md)"

static const cli_opt cli_rest_rows[] = {
	{ .name = "--rest", .kind = CLI_OPT_ENUM, .offset = 0, .names = cli_rest_names, .metavar = "MODE",
		.help = CLI_REST_HELP },
};
const cli_opt_table cli_rest_table = CLI_TABLE("rest pose", cli_rest_rows);

static const cli_enum_name cli_root_names[] = {
	{ "keep", RK_RETARGET_ROOT_KEEP },
	{ "in-place", RK_RETARGET_ROOT_IN_PLACE },
	{ "lock", RK_RETARGET_ROOT_LOCK },
	{ "extract", RK_RETARGET_ROOT_EXTRACT },
	{ NULL, 0 },
};

static const cli_enum_name cli_contacts_names[] = {
	{ "on", RK_RETARGET_CONTACTS_FEET },
	{ "off", RK_RETARGET_CONTACTS_OFF },
	{ NULL, 0 },
};

static const cli_enum_name cli_twist_names[] = {
	{ "on", RK_RETARGET_TWIST_ON },
	{ "off", RK_RETARGET_TWIST_OFF },
	{ NULL, 0 },
};

/* "NODE=SHARE", SHARE in [0, 1], NODE at most 127 bytes: appended. */
static bool cli_parse_twist_weight(const char *v, void *target)
{
	cli_twist_weights *w = (cli_twist_weights *)target;
	const char *eq = strrchr(v, '=');
	if (!eq || eq == v || (size_t)(eq - v) >= sizeof(w->names[0]) || w->count >= CLI_RETARGET_MAX_TWIST_WEIGHTS)
		return false;
	char *end = NULL;
	double f = strtod(eq + 1, &end);
	if (end == eq + 1 || *end || !(f >= 0.0 && f <= 1.0)) return false;
	memcpy(w->names[w->count], v, (size_t)(eq - v));
	w->names[w->count][eq - v] = '\0';
	w->items[w->count].share = f;
	w->count++;
	return true;
}

static const cli_opt cli_retarget_rows[] = {
	{ .name = "--clip", .kind = CLI_OPT_LIST, .offset = offsetof(cli_retarget_args, clips), .item = CLI_OPT_STRING,
		.max_count = CLI_RETARGET_MAX_CLIPS, .metavar = "NAME",
		.help = "source clip(s) to retarget; repeat for several\n(default: every source clip with tracks)" },
	{ .name = "--fps", .kind = CLI_OPT_DOUBLE, .offset = offsetof(cli_retarget_args, ro.fps), .min = 0.0,
		.max = 1000.0, .range = CLI_MIN_OPEN, .expects = "a rate in (0, 1000]", .metavar = "N",
		.help = "key rate (default: the source's frame rate, else 30)" },
	{ .name = "--root", .kind = CLI_OPT_ENUM, .offset = offsetof(cli_retarget_args, root), .names = cli_root_names,
		.metavar = "MODE",
		.help = "keep (default): hips travel as the source's, scaled to\nthe target's hips height; in-place: horizontal "
			"travel\nremoved, vertical bob kept; lock: hips held at rest;\nextract: travel and facing on the "
			"target's root node\n(the hips' parent), the hips keep the rest (docs/retarget.md)" },
	{ .name = "--twist", .kind = CLI_OPT_ENUM, .offset = offsetof(cli_retarget_args, twist), .names = cli_twist_names,
		.metavar = "MODE",
		.help = "on (default): spread the twist onto the target's twist\njoints (upperarm_twist_01_l, ...); off: "
			"leave them\nat rest (docs/retarget.md, Twist joints)" },
	{ .name = "--twist-weight", .kind = CLI_OPT_CUSTOM, .offset = offsetof(cli_retarget_args, twist_weights),
		.parse = cli_parse_twist_weight, .expects = "NODE=SHARE with SHARE in [0, 1] (at most 64)",
		.metavar = "NODE=F",
		.help = "the share of the twist twist joint NODE carries\n(repeatable; default: an even split)" },
	{ .name = "--contacts", .kind = CLI_OPT_ENUM, .offset = offsetof(cli_retarget_args, contacts),
		.names = cli_contacts_names, .metavar = "on|off",
		.help = "on (default): feet and toes the source has on the floor\nsit on the target's floor and do not "
			"slide (IK);\noff: the bone direction rule alone (docs/retarget.md)" },
	{ .name = "--hand-contacts", .kind = CLI_OPT_FLAG, .offset = offsetof(cli_retarget_args, ro.hand_contacts),
		.help = "also keep the source's hand contacts (hands together,\nhands on the body)" },
	{ .name = "--skip-fingers", .kind = CLI_OPT_FLAG, .offset = offsetof(cli_retarget_args, ro.skip_fingers),
		.help = "leave the target's fingers at rest" },
	{ .name = "--foot-ik", .kind = CLI_OPT_FLAG, .offset = offsetof(cli_retarget_args, ro.foot_ik),
		.help = "turn the legs so each foot sits where the source's does\nrelative to the hips (planted feet stay "
			"planted)" },
	{ .name = "--rest", .kind = CLI_OPT_ENUM, .offset = offsetof(cli_retarget_args, rest), .names = cli_rest_names,
		.metavar = "MODE", .help = CLI_REST_HELP " (both files)" },
	{ .name = "--max-frames", .kind = CLI_OPT_INT, .offset = offsetof(cli_retarget_args, max_frames), .min = 1.0,
		.max = 1e9, .metavar = "N",
		.help = "most keys per track (default 100000); a longer clip\nis an error naming the file and clip" },
};
const cli_opt_table cli_retarget_table = CLI_TABLE("retarget options", cli_retarget_rows);

void cli_retarget_args_apply(cli_retarget_args *a)
{
	a->ro.root = (rk_retarget_root)a->root;
	a->ro.twist = (rk_retarget_twist)a->twist;
	a->ro.contacts = (rk_retarget_contacts)a->contacts;
	for (size_t i = 0; i < a->twist_weights.count; i++) a->twist_weights.items[i].node = a->twist_weights.names[i];
	a->ro.twist_weights = a->twist_weights.count ? a->twist_weights.items : NULL;
	a->ro.twist_weight_count = a->twist_weights.count;
	a->ro.rest = (rk_rest_mode)a->rest;
	if (a->max_frames > 0) a->ro.max_frames = (size_t)a->max_frames;
}

const char *cli_retarget_root_name(rk_retarget_root r)
{
	for (const cli_enum_name *n = cli_root_names; n->name; n++)
		if (n->value == (int)r) return n->name;
	return "keep";
}

static const cli_enum_name cli_compress_names[] = {
	{ "none", RK_GLTF_COMPRESS_NONE },
	{ "meshopt", RK_GLTF_COMPRESS_MESHOPT },
	{ NULL, 0 },
};

static const cli_opt cli_gltf_out_rows[] = {
	{ .name = "--rebase-time", .kind = CLI_OPT_FLAG, .offset = offsetof(cli_gltf_out_args, rebase_time),
		.help = "move every clip to start at 0 (default: key times as\nin the file, e.g. a Blender clip starting at 1/30 s\n"
			"stays there; docs/gltf.md)" },
	{ .name = "--compress", .kind = CLI_OPT_ENUM, .offset = offsetof(cli_gltf_out_args, compress),
		.names = cli_compress_names, .metavar = "MODE",
		.help = "meshopt: quantised vertex data, EXT_meshopt_compression\n+ KHR_mesh_quantization (readers need a meshopt\n"
			"decoder); none (default). Reports the size ratio" },
	{ .name = "--compress-anim", .kind = CLI_OPT_FLAG, .offset = offsetof(cli_gltf_out_args, compress_anim),
		.help = "with --compress: rotation keys as int16 too (default:\nanimation data is encoded losslessly)" },
};
const cli_opt_table cli_gltf_out_table = CLI_TABLE("glTF output options", cli_gltf_out_rows);

int cli_gltf_out_check(cli_ctx *ctx, const cli_gltf_out_args *a, bool gltf_out)
{
	if (a->compress_anim && !a->compress) return cli_usage(ctx, "--compress-anim needs --compress meshopt");
	if (!gltf_out && (a->rebase_time || a->compress))
		return cli_usage(ctx, "--rebase-time and --compress are glTF / GLB output options");
	return CLI_EXIT_OK;
}

void cli_gltf_out_apply(const cli_gltf_out_args *a, rk_gltf_write_opts *o)
{
	o->rebase_time = a->rebase_time;
	o->compress = (rk_gltf_compression)a->compress;
	o->compress_animation = a->compress_anim;
}

/* ---- values ------------------------------------------------------------------------ */

static bool cli_in_range(const cli_opt *o, double v)
{
	if (o->min == 0.0 && o->max == 0.0) return true;
	if ((o->range & CLI_MIN_OPEN) ? !(v > o->min) : !(v >= o->min)) return false;
	if ((o->range & CLI_MAX_OPEN) ? !(v < o->max) : !(v <= o->max)) return false;
	return true;
}

static bool cli_value_double(const cli_opt *o, const char *v, double *out)
{
	char *end;
	double d = strtod(v, &end);
	if (end == v || *end || !isfinite(d) || !cli_in_range(o, d)) return false;
	*out = d;
	return true;
}

static bool cli_value_long(const cli_opt *o, const char *v, long *out)
{
	char *end;
	long n = strtol(v, &end, 10);
	if (end == v || *end || !cli_in_range(o, (double)n)) return false;
	*out = n;
	return true;
}

static bool cli_value_size(const cli_opt *o, const char *v, cli_size *out)
{
	char *end;
	if (v[0] == '-' || v[0] == '+') return false;
	long a = strtol(v, &end, 10);
	if (end == v) return false;
	long b = a;
	if (*end == 'x' || *end == 'X') {
		const char *p = end + 1;
		if (*p == '-' || *p == '+') return false;
		b = strtol(p, &end, 10);
		if (end == p) return false;
	}
	if (*end || !cli_in_range(o, (double)a) || !cli_in_range(o, (double)b)) return false;
	out->width = a;
	out->height = b;
	return true;
}

/* "a number in (0, 1000]", "one of keep, in-place, lock", ... */
static void cli_expects(const cli_opt *o, char *buf, size_t cap)
{
	if (o->expects) {
		snprintf(buf, cap, "%s", o->expects);
		return;
	}
	cli_opt_kind k = o->kind == CLI_OPT_LIST ? o->item : o->kind;
	const char *what = k == CLI_OPT_INT ? "an integer" : k == CLI_OPT_SIZE ? "WxH with" : "a number";
	switch (k) {
	case CLI_OPT_ENUM: {
		size_t n = (size_t)snprintf(buf, cap, "one of");
		for (const cli_enum_name *e = o->names; e->name && n < cap; e++)
			n += (size_t)snprintf(buf + n, cap - n, "%s %s", e == o->names ? "" : ",", e->name);
		return;
	}
	case CLI_OPT_VEC3: snprintf(buf, cap, "X,Y,Z numbers"); return;
	case CLI_OPT_INT:
	case CLI_OPT_DOUBLE:
	case CLI_OPT_SIZE:
		if (o->min == 0.0 && o->max == 0.0) snprintf(buf, cap, "%s", what);
		else if (isinf(o->max))
			snprintf(buf, cap, "%s %s %g", what, (o->range & CLI_MIN_OPEN) ? ">" : ">=", o->min);
		else if (k == CLI_OPT_DOUBLE)
			snprintf(buf, cap, "%s in %c%g, %g%c", what, (o->range & CLI_MIN_OPEN) ? '(' : '[', o->min, o->max,
				(o->range & CLI_MAX_OPEN) ? ')' : ']');
		else
			snprintf(buf, cap, "%s %g..%g", what, o->min, o->max);
		return;
	default: snprintf(buf, cap, "a value"); return;
	}
}

static bool cli_list_push(cli_ctx *c, cli_list *l, int argc, const char *v)
{
	if (!l->items) {
		if (c->owned_count >= CLI_CTX_MAX_OWNED) return false;
		l->items = (const char **)calloc((size_t)(argc > 0 ? argc : 1), sizeof(char *));
		if (!l->items) return false;
		c->owned[c->owned_count++] = (void *)l->items;
	}
	l->items[l->count++] = v;     /* at most one item per argument: never beyond argc */
	return true;
}

static int cli_bad_value(cli_ctx *c, const cli_opt *o, const char *v)
{
	char buf[256];
	cli_expects(o, buf, sizeof(buf));
	return cli_usage(c, "%s expects %s, got '%s'", o->name, buf, v);
}

/* Stores value v of row o into target. 0 or CLI_EXIT_USAGE. */
static int cli_store(cli_ctx *c, const cli_opt *o, char *target, int argc, const char *v)
{
	void *t = target + o->offset;
	switch (o->kind) {
	case CLI_OPT_FLAG: *(bool *)t = true; break;
	case CLI_OPT_STRING: *(const char **)t = v; break;
	case CLI_OPT_INT:
		if (!cli_value_long(o, v, (long *)t)) return cli_bad_value(c, o, v);
		break;
	case CLI_OPT_DOUBLE:
		if (!cli_value_double(o, v, (double *)t)) return cli_bad_value(c, o, v);
		break;
	case CLI_OPT_ENUM: {
		const cli_enum_name *e = o->names;
		while (e->name && strcmp(e->name, v) != 0) e++;
		if (!e->name) return cli_bad_value(c, o, v);
		*(int *)t = e->value;
		break;
	}
	case CLI_OPT_VEC3:
		if (!cli_parse_vec3(v, (rk_vec3 *)t)) return cli_bad_value(c, o, v);
		break;
	case CLI_OPT_SIZE:
		if (!cli_value_size(o, v, (cli_size *)t)) return cli_bad_value(c, o, v);
		break;
	case CLI_OPT_CUSTOM:
		if (!o->parse(v, t)) return cli_bad_value(c, o, v);
		break;
	case CLI_OPT_LIST: {
		cli_list *l = (cli_list *)t;
		double d;
		long n;
		if ((o->item == CLI_OPT_DOUBLE && !cli_value_double(o, v, &d)) ||
			(o->item == CLI_OPT_INT && !cli_value_long(o, v, &n)))
			return cli_bad_value(c, o, v);
		if (o->max_count && l->count >= o->max_count) return cli_usage(c, "at most %zu %s options", o->max_count, o->name);
		if (!cli_list_push(c, l, argc, v)) return cli_usage(c, "out of memory");
		break;
	}
	case CLI_OPT_PATHS:
		if (!cli_list_push(c, (cli_list *)t, argc, v)) return cli_usage(c, "out of memory");
		break;
	}
	if (o->seen) *(bool *)(target + o->seen - 1) = true;
	return 0;
}

static bool cli_is_option(const char *a) { return a[0] == '-' && a[1] != '\0'; }

/* The row named `a` in the spec's tables (k: its table; CLI_MAX_TABLES for
 * the common one), or NULL. */
static const cli_opt *cli_find_row(const cli_spec *spec, const char *a, int *k)
{
	for (int t = 0; t <= CLI_MAX_TABLES; t++) {
		const cli_opt_table *tab = t < CLI_MAX_TABLES ? spec->tables[t] : &cli_common_table;
		if (!tab) {
			t = CLI_MAX_TABLES - 1;
			continue;
		}
		for (size_t r = 0; r < tab->count; r++) {
			const cli_opt *o = &tab->rows[r];
			if (!strcmp(o->name, a) || (o->alias && !strcmp(o->alias, a))) {
				*k = t;
				return o;
			}
		}
	}
	return NULL;
}

/* One walk over argv. dry: only the common options are stored and nothing
 * is reported (so --json, -q and -v hold for every error of the real walk). */
static int cli_walk(cli_ctx *c, const cli_spec *spec, void *const *targets, int argc, char **argv, cli_operands *out,
	bool dry)
{
	const cli_opt *paths = NULL;      /* a PATHS option taking the arguments that follow */
	char *paths_target = NULL;
	bool paths_empty = false;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!cli_is_option(a)) {
			if (paths) {
				paths_empty = false;
				if (!dry && cli_store(c, paths, paths_target, argc, a)) return CLI_EXIT_USAGE;
				continue;
			}
			if (dry) continue;
			if (out->count >= spec->max_operands) {
				if (spec->max_operands == 0)
					return cli_usage(c, "unexpected argument '%s' (see rigkit %s --help)", a, spec->name);
				return cli_usage(c, "expected %s only, got '%s' too (see rigkit %s --help)", spec->operands, a,
					spec->name);
			}
			out->v[out->count++] = a;
			continue;
		}
		if (paths && paths_empty && !dry)
			return cli_usage(c, "%s needs at least one %s (see rigkit %s --help)", paths->name, paths->metavar,
				spec->name);
		paths = NULL;
		int k = 0;
		const cli_opt *o = cli_find_row(spec, a, &k);
		if (!o) {
			if (dry) continue;
			return cli_usage(c, "unknown option '%s' (see rigkit %s --help)", a, spec->name);
		}
		char *target = k == CLI_MAX_TABLES ? (char *)c : (char *)targets[k];
		if (o->kind == CLI_OPT_FLAG) {
			if ((!dry || k == CLI_MAX_TABLES) && cli_store(c, o, target, argc, NULL)) return CLI_EXIT_USAGE;
			continue;
		}
		if (o->kind == CLI_OPT_PATHS) {
			paths = o;
			paths_target = target;
			paths_empty = true;
			if (!dry && o->seen) *(bool *)(target + o->seen - 1) = true;
			continue;
		}
		if (i + 1 >= argc) {
			if (dry) continue;
			return cli_usage(c, "%s needs a value (see rigkit %s --help)", a, spec->name);
		}
		const char *v = argv[++i];
		if (!dry && cli_store(c, o, target, argc, v)) return CLI_EXIT_USAGE;
	}
	if (dry) return 0;
	if (paths && paths_empty)
		return cli_usage(c, "%s needs at least one %s (see rigkit %s --help)", paths->name, paths->metavar, spec->name);
	if (out->count < spec->min_operands)
		return cli_usage(c, "missing %s (see rigkit %s --help)", spec->operands, spec->name);
	return 0;
}

int cli_opts_parse(cli_ctx *c, const cli_spec *spec, void *const *targets, int argc, char **argv, cli_operands *out)
{
	memset(out, 0, sizeof(*out));
	c->cmd = spec->name;
	cli_walk(c, spec, targets, argc, argv, out, true);
	return cli_walk(c, spec, targets, argc, argv, out, false);
}

/* ---- help ---------------------------------------------------------------------------- */

#define CLI_HELP_COLUMN 22

static void cli_help_rows(FILE *out, const cli_opt_table *t, bool first)
{
	if (t->title) fprintf(out, "%s%s:\n", first ? "" : "\n", t->title);
	for (size_t r = 0; r < t->count; r++) {
		const cli_opt *o = &t->rows[r];
		char head[96];
		int n = snprintf(head, sizeof(head), "  %s%s%s%s%s", o->alias ? o->alias : "", o->alias ? ", " : "", o->name,
			o->metavar ? " " : "", o->metavar ? o->metavar : "");
		if (o->kind == CLI_OPT_PATHS || (o->kind == CLI_OPT_LIST && o->max_count != 1))
			n += snprintf(head + n, sizeof(head) - (size_t)n, "%s", o->kind == CLI_OPT_PATHS ? "..." : "");
		fputs(head, out);
		const char *h = o->help ? o->help : "";
		if (n + 1 > CLI_HELP_COLUMN) fprintf(out, "\n%*s", CLI_HELP_COLUMN, "");
		else fprintf(out, "%*s", CLI_HELP_COLUMN - n, "");
		for (const char *p = h; *p; p++) {
			fputc(*p, out);
			if (*p == '\n') fprintf(out, "%*s", CLI_HELP_COLUMN, "");
		}
		fputc('\n', out);
	}
}

void cli_opts_help(FILE *out, const cli_spec *spec)
{
	fputs(spec->usage, out);
	for (int t = 0; t < CLI_MAX_TABLES && spec->tables[t]; t++) cli_help_rows(out, spec->tables[t], t == 0);
	cli_help_rows(out, &cli_common_table, !spec->tables[0]);
	if (spec->footer) fprintf(out, "\n%s", spec->footer);
}
