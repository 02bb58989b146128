/* tools/rigkit/cmd_render.c - `rigkit render IN OUT.png`: a posed scene drawn
 * on the CPU (rigkit/render.h), one frame or a contact sheet. */
#include "cli.h"

#include <rigkit/render.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define CLI_RENDER_MAX_FRAMES 64

typedef struct cli_render_args {
	const char *clip, *with, *with_clip;
	double time;
	bool has_time, is_static, follow, file_front, unlit, texture, untextured;
	long frames, ssaa;
	cli_size size;
	bool has_size;
} cli_render_args;

static int cli_hex(char c)
{
	if (c >= '0' && c <= '9') return c - '0';
	if (c >= 'a' && c <= 'f') return c - 'a' + 10;
	if (c >= 'A' && c <= 'F') return c - 'A' + 10;
	return -1;
}

/* --background: target is rk_render_opts.background (has_background is set after parsing). */
bool cli_parse_colour(const char *s, void *target)
{
	uint8_t *out = (uint8_t *)target;
	if (s[0] == '#') s++;
	size_t n = strlen(s);
	if (n != 6 && n != 8) return false;
	uint8_t c[4] = { 0, 0, 0, 255 };
	for (size_t i = 0; i < n; i += 2) {
		int hi = cli_hex(s[i]), lo = cli_hex(s[i + 1]);
		if (hi < 0 || lo < 0) return false;
		c[i / 2] = (uint8_t)(hi * 16 + lo);
	}
	memcpy(out, c, 4);
	return true;
}

static const cli_opt cli_render_rows[] = {
	{ .name = "--clip", .kind = CLI_OPT_STRING, .offset = offsetof(cli_render_args, clip), .metavar = "NAME",
		.help = "animation clip (default: the first with tracks when --time\nor --frames is given, else the scene as "
			"stored)" },
	{ .name = "--time", .kind = CLI_OPT_DOUBLE, .offset = offsetof(cli_render_args, time),
		.seen = CLI_SEEN(cli_render_args, has_time), .expects = "seconds", .metavar = "T",
		.help = "absolute file time in seconds (default: the clip's start)" },
	{ .name = "--static", .kind = CLI_OPT_FLAG, .offset = offsetof(cli_render_args, is_static),
		.help = "the scene at rest (no animation), even if it has clips:\nthe stored transforms, or the skins' bind pose where\nthat differs (--rest)" },
	{ .name = "--frames", .kind = CLI_OPT_INT, .offset = offsetof(cli_render_args, frames), .min = 1,
		.max = CLI_RENDER_MAX_FRAMES, .metavar = "N",
		.help = "contact sheet: N times of the clip side by side in one PNG,\nt_k = start + k * duration / N (k = "
			"0..N-1), one camera\nframing all of them (1..64 frames)" },
	{ .name = "--follow", .kind = CLI_OPT_FLAG, .offset = offsetof(cli_render_args, follow),
		.help = "with --frames: frame each time on its own instead" },
	{ .name = "--size", .kind = CLI_OPT_SIZE, .offset = offsetof(cli_render_args, size),
		.seen = CLI_SEEN(cli_render_args, has_size), .min = 1, .max = RK_RENDER_MAX_SIZE, .metavar = "WxH",
		.help = "size of the image (of each frame) in pixels, default 512x512" },
	{ .name = "--file-front", .kind = CLI_OPT_FLAG, .offset = offsetof(cli_render_args, file_front),
		.help = "measure --yaw from the file's front axis instead" },
	{ .name = "--unlit", .kind = CLI_OPT_FLAG, .offset = offsetof(cli_render_args, unlit),
		.help = "base colours without lighting" },
	{ .name = "--ssaa", .kind = CLI_OPT_INT, .offset = offsetof(cli_render_args, ssaa), .min = 1, .max = 4,
		.metavar = "N", .help = "N x N supersampling, N = 2..4 (default off)" },
	{ .name = "--with", .kind = CLI_OPT_STRING, .offset = offsetof(cli_render_args, with), .metavar = "OTHER",
		.help = "a second row below: OTHER (e.g. the retargeted avatar) at the\nsame times, its clip of the same name, "
			"one camera framing\nboth rows (per column with --follow)" },
	{ .name = "--with-clip", .kind = CLI_OPT_STRING, .offset = offsetof(cli_render_args, with_clip), .metavar = "NAME",
		.help = "OTHER's clip (default: --clip's name, else its first clip)" },
	{ .name = "--untextured", .kind = CLI_OPT_FLAG, .offset = offsetof(cli_render_args, untextured),
		.help = "no base colour textures (they are drawn by default)" },
	{ .name = "--texture", .kind = CLI_OPT_FLAG, .offset = offsetof(cli_render_args, texture),
		.help = "base colour textures (embedded, or files beside IN): the\ndefault, accepted for older scripts" },
};

static const cli_opt cli_render_look_rows[] = {
	{ .name = "--yaw", .kind = CLI_OPT_DOUBLE, .offset = offsetof(rk_render_opts, camera.yaw_deg), .min = -3600.0, .max = 3600.0, .expects = "degrees",
		.metavar = "DEG",
		.help = "orbit about the up axis (90: the character's left side); for a\nhumanoid (see rigkit humanoid) 0 is the "
			"character's front whatever\nway the file faces it" },
	{ .name = "--pitch", .kind = CLI_OPT_DOUBLE, .offset = offsetof(rk_render_opts, camera.pitch_deg), .min = -3600.0,
		.max = 3600.0, .expects = "degrees", .metavar = "DEG",
		.help = "raise the camera (positive looks down), default 0" },
	{ .name = "--fov", .kind = CLI_OPT_DOUBLE, .offset = offsetof(rk_render_opts, camera.fov_deg), .min = 0.0,
		.max = 170.0, .range = CLI_MIN_OPEN, .expects = "degrees in (0, 170]", .metavar = "DEG",
		.help = "vertical field of view, default 30" },
	{ .name = "--ortho", .kind = CLI_OPT_FLAG, .offset = offsetof(rk_render_opts, camera.orthographic),
		.help = "orthographic projection" },
	{ .name = "--skeleton", .kind = CLI_OPT_FLAG, .offset = offsetof(rk_render_opts, skeleton),
		.help = "joints and bones on top" },
	{ .name = "--wireframe", .kind = CLI_OPT_FLAG, .offset = offsetof(rk_render_opts, wireframe),
		.help = "polygon edges on the surface" },
	{ .name = "--background", .kind = CLI_OPT_CUSTOM, .offset = offsetof(rk_render_opts, background),
		.seen = CLI_SEEN(rk_render_opts, has_background), .parse = cli_parse_colour,
		.expects = "RRGGBB or RRGGBBAA in hex", .metavar = "HEX",
		.help = "RRGGBB or RRGGBBAA (sRGB), default 282c34" },
	{ .name = "--no-extrapolation", .kind = CLI_OPT_FLAG, .offset = offsetof(rk_render_opts, no_extrapolation),
		.help = "hold each curve's first/last value outside its keys" },
};

static const cli_opt_table cli_render_table = CLI_TABLE("options", cli_render_rows);
static const cli_opt_table cli_render_look_table = CLI_TABLE(NULL, cli_render_look_rows);

const cli_spec cli_render_spec = {
	.name = "render",
	.usage = "usage: rigkit render IN OUT.png [--clip NAME] [--time T | --frames N] [--size WxH]\n"
		"                    [--yaw DEG] [--pitch DEG] [--skeleton] [--with OTHER] [options]\n"
		"\n"
		"Draws IN (FBX, glTF, GLB; '-' reads stdin) posed at a time of an animation\n"
		"clip into a PNG, on the CPU (no GPU needed): every visible mesh skinned and\n"
		"blend-shaped, z-buffered, lit by one directional light plus ambient, seen\n"
		"from the front of the scene (its front axis) and framed to its posed bounds,\n"
		"with its base colour textures.\n"
		"\n",
	.footer = "Prints one line: the file written, the size, the clip and times, the\n"
		"triangles drawn (--json: the same as one JSON document). Sheets wider or\n"
		"taller than 16384 pixels are refused. OUT must be a .png file.\n",
	.operands = "IN and OUT.png", .min_operands = 2, .max_operands = 2,
	.tables = { &cli_render_table, &cli_render_look_table, &cli_rest_table, &cli_load_table },
};

static rk_vec3 cli_axis_vector(rk_axis a, rk_vec3 def)
{
	switch (a) {
	case RK_AXIS_POSITIVE_X: return (rk_vec3){ 1, 0, 0 };
	case RK_AXIS_NEGATIVE_X: return (rk_vec3){ -1, 0, 0 };
	case RK_AXIS_POSITIVE_Y: return (rk_vec3){ 0, 1, 0 };
	case RK_AXIS_NEGATIVE_Y: return (rk_vec3){ 0, -1, 0 };
	case RK_AXIS_POSITIVE_Z: return (rk_vec3){ 0, 0, 1 };
	case RK_AXIS_NEGATIVE_Z: return (rk_vec3){ 0, 0, -1 };
	default: return def;
	}
}

/* Yaw (degrees, render.h's convention) that puts the camera in front of a
 * humanoid: its forward is left x up, left = from the right upper leg to the
 * left one at rest. 0 when the scene is no humanoid or is mirrored. */
double cli_character_yaw(const rk_scene *s)
{
	rk_humanoid h;
	if (!rk_humanoid_detect(s, &h, NULL)) return 0.0;
	rk_axes ax = s->settings.axes;
	rk_vec3 up = cli_axis_vector(ax.up, (rk_vec3){ 0, 1, 0 });
	rk_vec3 front = cli_axis_vector(ax.front, up.y != 0.0 ? (rk_vec3){ 0, 0, 1 } : (rk_vec3){ 0, -1, 0 });
	rk_vec3 right = cli_axis_vector(ax.right, rk_vec3_cross(up, front));
	if (rk_vec3_dot(right, rk_vec3_cross(up, front)) < 0.0) return 0.0;   /* left-handed axes */
	if (rk_mat4_determinant3(h.bones[RK_HUMANOID_HIPS]->node_to_world) < 0.0) return 0.0;
	rk_vec3 left = rk_vec3_sub(rk_mat4_get_translation(h.bones[RK_HUMANOID_LEFT_UPPER_LEG]->node_to_world),
		rk_mat4_get_translation(h.bones[RK_HUMANOID_RIGHT_UPPER_LEG]->node_to_world));
	rk_vec3 fwd = rk_vec3_cross(left, up);
	double x = rk_vec3_dot(fwd, right), z = rk_vec3_dot(fwd, front);
	if (!(x * x + z * z > 0.0)) return 0.0;
	return atan2(x, z) * 180.0 / 3.14159265358979323846;
}


/* One row of the image: a file, its clip and the camera yaw that puts its
 * humanoid's front at --yaw 0. */
typedef struct cli_render_row {
	const char *path;
	rk_scene *scene;
	const rk_anim_clip *clip;
	double yaw;
} cli_render_row;

/* Loads row r's file and picks its clip: `name` if given, else (when the
 * command animates: has_time or frames) the first clip with tracks. */
static int cli_render_row_open(cli_ctx *ctx, cli_render_row *row, const rk_load_opts *lo, const char *name,
	bool animated, long frames, bool file_front, double yaw)
{
	int rc = CLI_EXIT_OK;
	row->scene = cli_load(ctx, row->path, lo, &rc);
	if (!row->scene) return rc;
	row->yaw = yaw + (file_front ? 0.0 : cli_character_yaw(row->scene));
	if (name) {
		row->clip = cli_find_clip(ctx, row->scene, row->path, name, &rc);
		return row->clip ? CLI_EXIT_OK : rc;
	}
	if (animated) {
		row->clip = cli_default_clip(row->scene);
		if (!row->clip && frames) {
			return cli_fail(ctx, RK_ERROR_INVALID_ARGUMENT, CLI_EXIT_INPUT, row->path,
				"--frames needs an animation clip, and the file has none");
		}
	}
	return CLI_EXIT_OK;
}

static void cli_bounds_union(rk_render_opts *o, bool first, rk_vec3 mn, rk_vec3 mx)
{
	if (first) {
		o->camera.bounds_min = mn;
		o->camera.bounds_max = mx;
		return;
	}
	o->camera.bounds_min = (rk_vec3){ fmin(o->camera.bounds_min.x, mn.x), fmin(o->camera.bounds_min.y, mn.y),
		fmin(o->camera.bounds_min.z, mn.z) };
	o->camera.bounds_max = (rk_vec3){ fmax(o->camera.bounds_max.x, mx.x), fmax(o->camera.bounds_max.y, mx.y),
		fmax(o->camera.bounds_max.z, mx.z) };
}

/* The union of the posed bounds of every row at times[k0 .. k1) into
 * o->camera (has_bounds set). False with the error printed. */
static bool cli_render_frame_bounds(cli_ctx *ctx, const cli_render_row *rows, int nrows, const double *times, long k0,
	long k1, rk_render_opts *o)
{
	bool first = true;
	rk_error err;
	for (int r = 0; r < nrows; r++) {
		for (long k = k0; k < k1; k++) {
			rk_vec3 mn, mx;
			if (!rk_render_bounds(rows[r].scene, rows[r].clip, times[k], o, &mn, &mx, &err)) {
				cli_print_error(ctx, &err);
				return false;
			}
			cli_bounds_union(o, first, mn, mx);
			first = false;
		}
	}
	o->camera.has_bounds = true;
	return true;
}

int cli_cmd_render(cli_ctx *ctx, int argc, char **argv)
{
	cli_render_args a;
	memset(&a, 0, sizeof(a));
	rk_render_opts o = { 0 };
	rk_load_opts lo = { 0 };
	int rest = 0;
	cli_operands ops;
	int rc = cli_opts_parse(ctx, &cli_render_spec, (void *const[]){ &a, &o, &rest, &lo }, argc, argv, &ops);
	if (rc) return rc;
	const char *in = ops.v[0], *out = ops.v[1], *clip_name = a.clip;
	double time = a.time;
	bool has_time = a.has_time, is_static = a.is_static, follow = a.follow, file_front = a.file_front;
	long frames = a.frames;
	if (a.has_size) {
		o.width = (uint32_t)a.size.width;
		o.height = (uint32_t)a.size.height;
	}
	if (a.unlit) o.shading = RK_SHADE_UNLIT;
	if (a.ssaa) o.supersample = (uint32_t)a.ssaa;
	if (a.texture && a.untextured) return cli_usage(ctx, "--texture and --untextured exclude each other");
	o.textures = !a.untextured;
	if (strcasecmp(cli_ext(out), "png") != 0) return cli_usage(ctx, "%s: the output must be a .png file", out);
	if (frames && has_time) return cli_usage(ctx, "--time and --frames exclude each other");
	if (is_static && (frames || has_time || clip_name || a.with_clip))
		return cli_usage(ctx, "--static excludes --clip, --with-clip, --time and --frames");
	if (follow && !frames) return cli_usage(ctx, "--follow needs --frames");
	if (a.with_clip && !a.with) return cli_usage(ctx, "--with-clip needs --with");
	int nrows = a.with ? 2 : 1;
	uint32_t w, h;
	rk_error err;
	if (!rk_render_size(&o, &w, &h, &err)) {
		cli_print_error(ctx, &err);
		return CLI_EXIT_USAGE;
	}
	long count = frames ? frames : 1;
	if ((uint64_t)w * (uint64_t)count > RK_RENDER_MAX_SIZE) {
		return cli_usage(ctx, "%ld frames of %u pixels make a sheet wider than %d pixels (use a smaller --size)", count,
			(unsigned)w, RK_RENDER_MAX_SIZE);
	}
	if ((uint64_t)h * (uint64_t)nrows > RK_RENDER_MAX_SIZE) {
		return cli_usage(ctx, "%d rows of %u pixels make a sheet taller than %d pixels (use a smaller --size)", nrows,
			(unsigned)h, RK_RENDER_MAX_SIZE);
	}

	cli_render_row rows[2] = { { .path = in }, { .path = a.with } };
	bool animated = has_time || frames;
	double base_yaw = o.camera.yaw_deg;
	for (int r = 0; r < nrows && rc == CLI_EXIT_OK; r++) {
		const char *name = r == 0 ? clip_name : a.with_clip ? a.with_clip : clip_name;
		rc = cli_render_row_open(ctx, &rows[r], &lo, name, animated || (r == 1 && rows[0].clip), frames, file_front,
			base_yaw);
	}
	if (rc != CLI_EXIT_OK) {
		for (int r = 0; r < nrows; r++) rk_scene_free(rows[r].scene);
		return rc;
	}
	/* a row without a clip: the scene at rest, in the bind pose where that
	 * differs (rest.h); rest_report is row 0's */
	rk_rest_report rest_report;
	memset(&rest_report, 0, sizeof(rest_report));
	rest_report.used = RK_REST_STORED;
	bool rest_clip = false;
	for (int r = 0; r < nrows; r++) {
		if (rows[r].clip) continue;
		rk_rest_report rep;
		rk_error rerr;
		const rk_anim_clip *rc_clip = rk_rest_clip_add(rows[r].scene, (rk_rest_mode)rest, "rest", &rep, &rerr);
		if (!rc_clip) {
			cli_print_error(ctx, &rerr);
			for (int q = 0; q < nrows; q++) rk_scene_free(rows[q].scene);
			return CLI_EXIT_INPUT;
		}
		if (r == 0) {
			rest_report = rep;
			rest_clip = true;
		}
		if (rep.used == RK_REST_BIND) rows[r].clip = rc_clip;   /* else the stored pose: the static scene as before */
	}
	const rk_anim_clip *clip = rows[0].clip;
	if (rest_clip) time = 0.0;
	else if (clip && !has_time) time = clip->time_begin;

	double times[CLI_RENDER_MAX_FRAMES];
	for (long k = 0; k < count; k++)
		times[k] = frames ? clip->time_begin + (clip->time_end - clip->time_begin) * (double)k / (double)count : time;

	/* One camera for the sheet (the union of the posed bounds of every frame
	 * and row); with --follow one per column; a single frame and row frames
	 * itself. */
	bool shared_camera = !follow && (count > 1 || nrows > 1);
	if (shared_camera) {
		o.camera.yaw_deg = rows[0].yaw;
		if (!cli_render_frame_bounds(ctx, rows, nrows, times, 0, count, &o)) rc = CLI_EXIT_INPUT;
	}

	size_t stride = (size_t)w * 4u * (size_t)count;
	unsigned char *px = rc == CLI_EXIT_OK ? (unsigned char *)malloc(stride * h * (size_t)nrows) : NULL;
	if (rc == CLI_EXIT_OK && !px) {
		rc = cli_fail(ctx, RK_ERROR_OUT_OF_MEMORY, CLI_EXIT_INPUT, NULL, "render: out of memory for a %ld x %u image",
			(long)w * count, (unsigned)h * (unsigned)nrows);
	}
	rk_render_stats st, total = { 0 };
	o.stats = &st;
	size_t triangles_row0 = 0;
	for (long k = 0; k < count && rc == CLI_EXIT_OK; k++) {
		if (follow && nrows > 1) {
			o.camera.yaw_deg = rows[0].yaw;
			if (!cli_render_frame_bounds(ctx, rows, nrows, times, k, k + 1, &o)) {
				rc = CLI_EXIT_INPUT;
				break;
			}
		}
		for (int r = 0; r < nrows; r++) {
			o.camera.yaw_deg = rows[r].yaw;
			unsigned char *dst = px + (size_t)r * h * stride + (size_t)k * w * 4u;
			if (!rk_render(rows[r].scene, rows[r].clip, times[k], &o, dst, stride, &err)) {
				cli_print_error(ctx, &err);
				/* bad options were caught above; what is left is the input */
				rc = err.code == RK_ERROR_INVALID_ARGUMENT ? CLI_EXIT_INPUT : cli_exit_code(&err);
				break;
			}
			total.triangles += st.triangles;
			if (r == 0) triangles_row0 += st.triangles;
			total.triangles_rasterized += st.triangles_rasterized;
			if (st.textures_failed && !total.textures_failed) {
				total.textures_failed = st.textures_failed;
				cli_warn(ctx, "%s: %zu texture(s) could not be decoded, drawn untextured: %s", rows[r].path,
					st.textures_failed, st.texture_error);
			}
		}
	}
	if (rc == CLI_EXIT_OK &&
		!rk_png_write_file(out, px, w * (uint32_t)count, h * (uint32_t)nrows, stride, &(rk_file_write_opts){ .force = ctx->force }, &err)) {
		cli_print_error(ctx, &err);
		rc = err.code == RK_ERROR_OUTPUT ? CLI_EXIT_OUTPUT : CLI_EXIT_INPUT;
	}
	size_t triangles = frames ? triangles_row0 / (size_t)count : triangles_row0;
	size_t with_triangles = frames ? (total.triangles - triangles_row0) / (size_t)count : total.triangles - triangles_row0;
	if (rc == CLI_EXIT_OK && ctx->json) {
		cli_json j;
		cli_json_document(&j, ctx);
		cli_json_object(&j, NULL);
		cli_json_string(&j, "input", in);
		cli_json_string(&j, "output", out);
		cli_json_int(&j, "width", (long long)w * count);
		cli_json_int(&j, "height", (long long)h * nrows);
		cli_json_int(&j, "frames", count);
		cli_json_int(&j, "frame_width", w);
		cli_json_string(&j, "clip", clip && !rest_clip ? clip->name : NULL);
		if (rest_clip) cli_json_string(&j, "rest", rest_report.used == RK_REST_BIND ? "bind" : "stored");
		cli_json_array(&j, "times");
		for (long k = 0; clip && !rest_clip && k < count; k++) cli_json_number(&j, NULL, times[k]);
		cli_json_close_array(&j);
		cli_json_int(&j, "triangles", (long long)triangles);
		cli_json_int(&j, "textures_failed", (long long)total.textures_failed);
		cli_json_bool(&j, "textures", o.textures);
		if (nrows > 1) {
			cli_json_object(&j, "with");
			cli_json_string(&j, "input", a.with);
			cli_json_string(&j, "clip", rows[1].clip ? rows[1].clip->name : NULL);
			cli_json_int(&j, "triangles", (long long)with_triangles);
			cli_json_close_object(&j);
		}
		cli_json_close_object(&j);
		rc = cli_json_end(&j);
	} else if (rc == CLI_EXIT_OK) {
		printf("wrote %s: ", out);
		if (frames) printf("%ld frames of %u x %u (%u x %u)", count, (unsigned)w, (unsigned)h, (unsigned)(w * count),
			(unsigned)(h * (uint32_t)nrows));
		else printf("%u x %u", (unsigned)w, (unsigned)(h * (uint32_t)nrows));
		if (rest_clip) printf(", static scene%s", rest_report.used == RK_REST_BIND ? " (bind pose)" : "");
		else if (frames) printf(", clip %s at %.6g..%.6g s", cli_text(ctx, clip->name), times[0], times[count - 1]);
		else printf(", clip %s at %.6g s", cli_text(ctx, clip->name), times[0]);
		printf(", %zu triangles", triangles);
		if (nrows > 1) {
			printf("; below: %s", cli_text(ctx, a.with));
			if (rows[1].clip) printf(", clip %s", cli_text(ctx, rows[1].clip->name));
			printf(", %zu triangles", with_triangles);
		}
		printf("\n");
	}
	free(px);
	for (int r = 0; r < nrows; r++) rk_scene_free(rows[r].scene);
	return rc;
}
