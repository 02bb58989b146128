/* tools/rigkit/cmd_view.c - `rigkit view FILE...`: the scene drawn on the
 * GPU (OpenGL 3.3 core) by the viewer in tools/view (docs/view.md): a
 * window, or headless a PNG screenshot / filmstrip, a GL object leak check
 * over many loads, or a frame-time benchmark. Built without SDL2/libepoxy
 * the command only says so. */
#include "cli.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#ifdef RIGKIT_HAVE_VIEW
#include "view/view.h"
#endif

#define CLI_VIEW_MAX_FRAMES 64

typedef struct cli_view_args {
	const char *clip, *screenshot, *anim, *capture, *keys;
	double time;
	bool has_time, is_static, file_front, unlit, texture, untextured, skeleton, in_place, leak_check;
	long frames, repeat, bench, threads, window_frames;
	cli_size size;
	bool has_size;
	double yaw, pitch, fov;
	bool ortho;
	uint8_t background[4];
	bool has_background;
} cli_view_args;

static const cli_opt cli_view_rows[] = {
	{ .name = "--screenshot", .kind = CLI_OPT_STRING, .offset = offsetof(cli_view_args, screenshot),
		.metavar = "OUT.png", .help = "headless: draw one frame offscreen and write it as a PNG\n(no window)" },
	{ .name = "--clip", .kind = CLI_OPT_STRING, .offset = offsetof(cli_view_args, clip), .metavar = "NAME",
		.help = "animation clip (default: the first with tracks; a screenshot\nwithout --clip/--time/--frames shows the "
			"scene as stored)" },
	{ .name = "--time", .kind = CLI_OPT_DOUBLE, .offset = offsetof(cli_view_args, time),
		.seen = CLI_SEEN(cli_view_args, has_time), .expects = "seconds", .metavar = "T",
		.help = "screenshot: absolute file time in seconds (default: the clip's start)" },
	{ .name = "--static", .kind = CLI_OPT_FLAG, .offset = offsetof(cli_view_args, is_static),
		.help = "screenshot: the scene as stored (no animation)" },
	{ .name = "--frames", .kind = CLI_OPT_INT, .offset = offsetof(cli_view_args, frames), .min = 1,
		.max = CLI_VIEW_MAX_FRAMES, .metavar = "N",
		.help = "screenshot: N times of the clip side by side, as rigkit render\n--frames (one camera framing all)" },
	{ .name = "--size", .kind = CLI_OPT_SIZE, .offset = offsetof(cli_view_args, size),
		.seen = CLI_SEEN(cli_view_args, has_size), .min = 1, .max = RK_RENDER_MAX_SIZE, .metavar = "WxH",
		.help = "image (of each frame) or window size, default 512x512 headless,\n960x720 windowed" },
	{ .name = "--yaw", .kind = CLI_OPT_DOUBLE, .offset = offsetof(cli_view_args, yaw), .min = -3600.0, .max = 3600.0,
		.expects = "degrees", .metavar = "DEG",
		.help = "orbit about the up axis, as rigkit render (0: a humanoid's front)" },
	{ .name = "--pitch", .kind = CLI_OPT_DOUBLE, .offset = offsetof(cli_view_args, pitch), .min = -3600.0,
		.max = 3600.0, .expects = "degrees", .metavar = "DEG", .help = "raise the camera (positive looks down)" },
	{ .name = "--fov", .kind = CLI_OPT_DOUBLE, .offset = offsetof(cli_view_args, fov), .min = 0.0, .max = 170.0,
		.range = CLI_MIN_OPEN, .expects = "degrees in (0, 170]", .metavar = "DEG",
		.help = "vertical field of view, default 30" },
	{ .name = "--ortho", .kind = CLI_OPT_FLAG, .offset = offsetof(cli_view_args, ortho),
		.help = "orthographic projection" },
	{ .name = "--file-front", .kind = CLI_OPT_FLAG, .offset = offsetof(cli_view_args, file_front),
		.help = "measure --yaw from the file's front axis instead" },
	{ .name = "--background", .kind = CLI_OPT_CUSTOM, .offset = offsetof(cli_view_args, background),
		.seen = CLI_SEEN(cli_view_args, has_background), .parse = cli_parse_colour,
		.expects = "RRGGBB or RRGGBBAA in hex", .metavar = "HEX",
		.help = "RRGGBB or RRGGBBAA (sRGB), default 282c34 (as rigkit render)" },
	{ .name = "--unlit", .kind = CLI_OPT_FLAG, .offset = offsetof(cli_view_args, unlit),
		.help = "base colours without lighting" },
	{ .name = "--untextured", .kind = CLI_OPT_FLAG, .offset = offsetof(cli_view_args, untextured),
		.help = "no base colour textures (they are drawn by default,\nas in rigkit render)" },
	{ .name = "--texture", .kind = CLI_OPT_FLAG, .offset = offsetof(cli_view_args, texture),
		.help = "base colour textures (embedded, or files beside FILE):\nthe default, accepted for older scripts" },
	{ .name = "--skeleton", .kind = CLI_OPT_FLAG, .offset = offsetof(cli_view_args, skeleton),
		.help = "joints and bones on top" },
	{ .name = "--anim", .kind = CLI_OPT_STRING, .offset = offsetof(cli_view_args, anim), .metavar = "MOTION",
		.help = "retarget every clip of the humanoid MOTION file onto FILE\n(as rigkit retarget) and play those" },
	{ .name = "--in-place", .kind = CLI_OPT_FLAG, .offset = offsetof(cli_view_args, in_place),
		.help = "root motion in place (hips' travel locked; key r toggles)" },
	{ .name = "--leak-check", .kind = CLI_OPT_FLAG, .offset = offsetof(cli_view_args, leak_check),
		.help = "headless: load, upload, draw and unload the FILEs (--repeat\ntimes in all) and compare the live GL "
			"objects with the\ncount before; exit 3 on a leak" },
	{ .name = "--repeat", .kind = CLI_OPT_INT, .offset = offsetof(cli_view_args, repeat), .min = 1, .max = 100000,
		.metavar = "N", .help = "--leak-check: N loads in all, cycling through the FILEs" },
	{ .name = "--bench", .kind = CLI_OPT_INT, .offset = offsetof(cli_view_args, bench), .min = 1, .max = 1000000,
		.metavar = "N",
		.help = "headless: play N frames (1/60 s apart) offscreen and print the\nmedian frame time (sample + skin + "
			"upload + draw + finish)" },
	{ .name = "--threads", .kind = CLI_OPT_INT, .offset = offsetof(cli_view_args, threads), .min = 0, .max = 64,
		.metavar = "N", .help = "skinning threads kept per model, this one included\n(default 0: one per CPU; 1: none started)" },
	{ .name = "--window-frames", .kind = CLI_OPT_INT, .offset = offsetof(cli_view_args, window_frames), .min = 1,
		.max = 100000000, .metavar = "N", .help = "window: close after N frames (tests)" },
	{ .name = "--window-keys", .kind = CLI_OPT_STRING, .offset = offsetof(cli_view_args, keys), .metavar = "KEYS",
		.help = "window: press KEYS, one every 10 frames from frame 5 ('>' '<'\nthe arrows), then print the final "
			"state (tests)" },
	{ .name = "--capture", .kind = CLI_OPT_STRING, .offset = offsetof(cli_view_args, capture), .metavar = "OUT.png",
		.help = "window, with --window-frames: write the last frame (text\noverlay included) as a PNG" },
};

static const cli_opt_table cli_view_table = CLI_TABLE("options", cli_view_rows);

const cli_spec cli_view_spec = {
	.name = "view",
	.usage = "usage: rigkit view FILE... [--anim MOTION] [--clip NAME] [--skeleton] [--untextured]\n"
		"       rigkit view FILE --screenshot OUT.png [--clip NAME] [--time T | --frames N]\n"
		"                   [--yaw DEG] [--pitch DEG] [--size WxH] [--unlit]\n"
		"       rigkit view FILE... --leak-check [--repeat N]\n"
		"       rigkit view FILE --bench N [--size WxH]\n"
		"\n"
		"Draws FILE (FBX, glTF, GLB) on the GPU through OpenGL 3.3: rigkit's mesh\n"
		"expansion uploaded once (one draw per material part with its base colour\n"
		"texture), skinned on the CPU into the vertex buffer every frame, clips\n"
		"played by the runtime with crossfades. In a window: drag to orbit, wheel to\n"
		"zoom, left/right to switch clips, r root motion, k skeleton, h help, n/p\n"
		"next/previous FILE. Headless (--screenshot, --leak-check, --bench; under\n"
		"xvfb-run, or SDL's offscreen driver without a display) the camera is\n"
		"rigkit render's, so both renderers can be compared pixel by pixel.\n"
		"\n",
	.footer = "--screenshot prints one line: the file written, the size, the clip and\n"
		"times, the triangles and the GL renderer (--json: one JSON document).\n"
		"Needs a build with SDL2 and libepoxy (scripts/install-deps.sh view).\n",
	.operands = "FILE (up to 4)", .min_operands = 1, .max_operands = 4,
	.tables = { &cli_view_table, &cli_load_table },
};

/* The command after parsing: the viewer, or (built without it) a message. */
static int cli_view_main(cli_ctx *ctx, cli_view_args *a, rk_load_opts *lo, const cli_operands *ops);

int cli_cmd_view(cli_ctx *ctx, int argc, char **argv)
{
	cli_view_args a;
	memset(&a, 0, sizeof(a));
	rk_load_opts lo = { 0 };
	cli_operands ops;
	int rc = cli_opts_parse(ctx, &cli_view_spec, (void *const[]){ &a, &lo }, argc, argv, &ops);
	if (rc) return rc;
	return cli_view_main(ctx, &a, &lo, &ops);
}

#ifndef RIGKIT_HAVE_VIEW

static int cli_view_main(cli_ctx *ctx, cli_view_args *a, rk_load_opts *lo, const cli_operands *ops)
{
	(void)a;
	(void)lo;
	(void)ops;
	return cli_fail(ctx, RK_ERROR_INVALID_ARGUMENT, CLI_EXIT_USAGE, NULL,
		"view: this rigkit was built without the GPU viewer (it needs SDL2 and libepoxy: "
		"scripts/install-deps.sh view, then rebuild)");
}

#else

#include <dlfcn.h>
#include <unistd.h>

#ifndef RIGKIT_VIEW_MODULE_DIR
#define RIGKIT_VIEW_MODULE_DIR "../lib/rigkit"
#endif
#define CLI_VIEW_MODULE "rigkit-view.so"

/* The viewer module (view.h, "the module"): beside the program (the build
 * folder), then RIGKIT_VIEW_MODULE_DIR relative to the program's folder
 * (the installed layout), then the dynamic loader's own search. The module
 * stays loaded until the process exits (SDL and the GL driver keep
 * threads and exit handlers). NULL after reporting (exit 1). */
static const view_api *cli_view_module_open(cli_ctx *ctx, int *rc)
{
	char exe[4096], path[4200], why[512] = "";
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	const char *dirs[2] = { NULL, NULL };
	if (n > 0) {
		exe[n] = '\0';
		char *slash = strrchr(exe, '/');
		if (slash) {
			*slash = '\0';
			dirs[0] = exe;
			dirs[1] = RIGKIT_VIEW_MODULE_DIR;
		}
	}
	void *h = NULL;
	for (int k = 0; k < 3 && !h; k++) {
		if (k < 2 && !dirs[0]) continue;
		if (k == 0) snprintf(path, sizeof(path), "%s/%s", exe, CLI_VIEW_MODULE);
		else if (k == 1 && dirs[1][0] == '/') snprintf(path, sizeof(path), "%s/%s", dirs[1], CLI_VIEW_MODULE);
		else if (k == 1) snprintf(path, sizeof(path), "%s/%s/%s", exe, dirs[1], CLI_VIEW_MODULE);
		else snprintf(path, sizeof(path), "%s", CLI_VIEW_MODULE);
		if (k < 2 && access(path, F_OK) != 0) continue;
		h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
		if (!h) {
			const char *e = dlerror();
			snprintf(why, sizeof(why), "%.500s", e ? e : "dlopen failed");
		}
	}
	if (!h) {
		*rc = cli_fail(ctx, RK_ERROR_INVALID_ARGUMENT, CLI_EXIT_USAGE, NULL,
			"view: the GPU viewer module %s could not be loaded (%s); it is installed beside rigkit or in "
			"%s relative to it", CLI_VIEW_MODULE, why[0] ? why : "not found", RIGKIT_VIEW_MODULE_DIR);
		return NULL;
	}
	view_api_get_fn *get = (view_api_get_fn *)dlsym(h, VIEW_API_SYMBOL);
	const view_api *v = get ? get() : NULL;
	if (!v || v->version != VIEW_API_VERSION || v->size != sizeof(view_api)) {
		*rc = cli_fail(ctx, RK_ERROR_INVALID_ARGUMENT, CLI_EXIT_USAGE, NULL,
			"view: %s is not this rigkit's viewer module (no %s of version %u)", path, VIEW_API_SYMBOL,
			VIEW_API_VERSION);
		dlclose(h);
		return NULL;
	}
	return v;
}

typedef struct cli_view_job {
	cli_ctx *ctx;
	const cli_view_args *a;
	const rk_load_opts *lo;
	const char *const *files;
	size_t file_count;
	rk_scene *motion;               /* --anim, loaded once */
	const view_api *v;              /* the viewer module's functions */
} cli_view_job;

/* Retargets every clip of the motion onto s (rk_retarget appends them). */
static bool cli_view_retarget(const cli_view_job *j, rk_scene *s, rk_error *err)
{
	if (!j->motion) return true;
	for (size_t i = 0; i < j->motion->clips.count; i++) {
		rk_retarget_opts ro = { 0 };
		if (!rk_retarget(s, j->motion, &j->motion->clips.data[i], &ro, NULL, err)) return false;
	}
	return true;
}

/* view_load_fn for the window: no printing, the window shows errors. */
static rk_scene *cli_view_load_item(void *user, size_t index, rk_error *err)
{
	cli_view_job *j = (cli_view_job *)user;
	rk_scene *s = rk_load_file(j->files[index], j->lo, err);
	if (s && !cli_view_retarget(j, s, err)) {
		rk_scene_free(s);
		return NULL;
	}
	return s;
}

static int cli_view_gl_fail(cli_ctx *ctx, const rk_error *err)
{
	return cli_fail(ctx, RK_ERROR_INVALID_ARGUMENT, CLI_EXIT_INPUT, NULL, "view: %s", err->message);
}

static double cli_view_yaw(const cli_view_args *a, const rk_scene *s)
{
	return a->yaw + (a->file_front ? 0.0 : cli_character_yaw(s));
}

static void cli_view_render_opts(const cli_view_args *a, const rk_scene *s, uint32_t w, uint32_t h, rk_render_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->width = w;
	o->height = h;
	o->camera.yaw_deg = cli_view_yaw(a, s);
	o->camera.pitch_deg = a->pitch;
	o->camera.fov_deg = a->fov;
	o->camera.orthographic = a->ortho;
}

/* The clip named `name` (NULL: the first with tracks), --anim's retargeted
 * clips (appended last) first; NULL after reporting when absent. */
static const rk_anim_clip *cli_view_clip(const cli_view_job *j, const rk_scene *s, const char *file, const char *name,
	int *rc)
{
	if (j->motion) {
		for (size_t i = s->clips.count; i-- > 0;) {
			const rk_anim_clip *c = &s->clips.data[i];
			if (name ? strcmp(c->name, name) == 0 : c->layer_count > 0) return c;
		}
	}
	return name ? cli_find_clip(j->ctx, s, file, name, rc) : cli_default_clip(s);
}

/* Loads FILE (cli_load: errors printed naming the file) and applies --anim. */
static rk_scene *cli_view_load(cli_view_job *j, const char *path, int *rc)
{
	rk_scene *s = cli_load(j->ctx, path, j->lo, rc);
	if (!s) return NULL;
	rk_error err;
	if (!cli_view_retarget(j, s, &err)) {
		*rc = cli_print_error(j->ctx, &err);
		rk_scene_free(s);
		return NULL;
	}
	return s;
}

static int cli_view_screenshot(cli_view_job *j, view_gl *g)
{
	cli_ctx *ctx = j->ctx;
	const cli_view_args *a = j->a;
	const char *in = j->files[0], *out = a->screenshot;
	int rc = CLI_EXIT_OK;
	uint32_t w = a->has_size ? (uint32_t)a->size.width : RK_RENDER_DEFAULT_SIZE;
	uint32_t h = a->has_size ? (uint32_t)a->size.height : RK_RENDER_DEFAULT_SIZE;
	long count = a->frames ? a->frames : 1;
	if ((uint64_t)w * (uint64_t)count > RK_RENDER_MAX_SIZE)
		return cli_usage(ctx, "%ld frames of %u pixels make a sheet wider than %d pixels", count, (unsigned)w,
			RK_RENDER_MAX_SIZE);
	rk_scene *s = cli_view_load(j, in, &rc);
	if (!s) return rc;
	const rk_anim_clip *clip = NULL;
	if (a->clip) {
		clip = cli_view_clip(j, s, in, a->clip, &rc);
		if (!clip) {
			rk_scene_free(s);
			return rc;
		}
	} else if (a->has_time || a->frames || j->motion) {
		clip = cli_view_clip(j, s, in, NULL, &rc);
		if (!clip && a->frames) {
			rc = cli_fail(ctx, RK_ERROR_INVALID_ARGUMENT, CLI_EXIT_INPUT, in,
				"--frames needs an animation clip, and the file has none");
			rk_scene_free(s);
			return rc;
		}
	}
	double time = clip && !a->has_time ? clip->time_begin : a->time;
	double times[CLI_VIEW_MAX_FRAMES];
	for (long k = 0; k < count; k++)
		times[k] = a->frames ? clip->time_begin + (clip->time_end - clip->time_begin) * (double)k / (double)count : time;
	rk_render_opts ro;
	cli_view_render_opts(a, s, w, h, &ro);
	rk_error err;
	if (count > 1) {   /* one camera for the sheet: the union of the posed bounds (as rigkit render) */
		for (long k = 0; k < count; k++) {
			rk_vec3 mn, mx;
			if (!rk_render_bounds(s, clip, times[k], &ro, &mn, &mx, &err)) {
				rc = cli_print_error(ctx, &err);
				rk_scene_free(s);
				return CLI_EXIT_INPUT;
			}
			if (k == 0) {
				ro.camera.bounds_min = mn;
				ro.camera.bounds_max = mx;
			} else {
				ro.camera.bounds_min = (rk_vec3){ fmin(ro.camera.bounds_min.x, mn.x), fmin(ro.camera.bounds_min.y, mn.y),
					fmin(ro.camera.bounds_min.z, mn.z) };
				ro.camera.bounds_max = (rk_vec3){ fmax(ro.camera.bounds_max.x, mx.x), fmax(ro.camera.bounds_max.y, mx.y),
					fmax(ro.camera.bounds_max.z, mx.z) };
			}
		}
		ro.camera.has_bounds = true;
	}
	view_pose poses[CLI_VIEW_MAX_FRAMES];
	view_draw_opts draws[CLI_VIEW_MAX_FRAMES];
	memset(poses, 0, sizeof(poses));
	memset(draws, 0, sizeof(draws));
	for (long k = 0; k < count && rc == CLI_EXIT_OK; k++) {
		poses[k].clip = clip;
		poses[k].time = times[k];
		poses[k].in_place = a->in_place;
		if (!rk_render_camera_eval(s, clip, times[k], &ro, &draws[k].camera, &err)) {
			cli_print_error(ctx, &err);
			rc = CLI_EXIT_INPUT;
		}
		draws[k].unlit = a->unlit;
		draws[k].skeleton = a->skeleton;
		const uint8_t bg[4] = { 40, 44, 52, 255 };
		memcpy(draws[k].background, a->has_background ? a->background : bg, 4);
	}
	view_model *m = NULL;
	if (rc == CLI_EXIT_OK) {
		view_model_opts mo = { 0 };
		mo.textures = !a->untextured;
		mo.skin_threads = (size_t)a->threads;
		m = j->v->model_create(g, s, &mo, &err);
		if (!m) rc = cli_fail(ctx, err.code, CLI_EXIT_INPUT, in, "%s", err.message);
	}
	size_t stride = (size_t)w * 4u * (size_t)count;
	unsigned char *px = rc == CLI_EXIT_OK ? (unsigned char *)malloc(stride * h) : NULL;
	if (rc == CLI_EXIT_OK && !px)
		rc = cli_fail(ctx, RK_ERROR_OUT_OF_MEMORY, CLI_EXIT_INPUT, NULL, "view: out of memory for the image");
	if (rc == CLI_EXIT_OK && !j->v->offscreen(g, m, w, h, (size_t)count, poses, draws, px, stride, &err))
		rc = cli_fail(ctx, err.code, CLI_EXIT_INPUT, in, "%s", err.message);
	const char *tex_msg = "";
	if (rc == CLI_EXIT_OK && j->v->model_texture_failures(m, &tex_msg))
		cli_warn(ctx, "%zu texture(s) could not be decoded, drawn untextured: %s", j->v->model_texture_failures(m, NULL),
			tex_msg);
	if (rc == CLI_EXIT_OK && !rk_png_write(out, px, w * (uint32_t)count, h, stride, &err)) {
		cli_print_error(ctx, &err);
		rc = err.code == RK_ERROR_OUTPUT ? CLI_EXIT_OUTPUT : CLI_EXIT_INPUT;
	}
	size_t triangles = 0;
	j->v->model_sizes(m, &triangles, NULL, NULL);
	if (rc == CLI_EXIT_OK && ctx->json) {
		cli_json jd;
		cli_json_document(&jd, ctx);
		cli_json_object(&jd, NULL);
		cli_json_string(&jd, "input", in);
		cli_json_string(&jd, "output", out);
		cli_json_int(&jd, "width", (long long)w * count);
		cli_json_int(&jd, "height", h);
		cli_json_int(&jd, "frames", count);
		cli_json_string(&jd, "clip", clip ? clip->name : NULL);
		cli_json_array(&jd, "times");
		for (long k = 0; clip && k < count; k++) cli_json_number(&jd, NULL, times[k]);
		cli_json_close_array(&jd);
		cli_json_int(&jd, "triangles", (long long)triangles);
		cli_json_string(&jd, "renderer", j->v->gl_renderer(g));
		cli_json_close_object(&jd);
		rc = cli_json_end(&jd);
	} else if (rc == CLI_EXIT_OK) {
		printf("wrote %s: ", out);
		if (a->frames) printf("%ld frames of %u x %u", count, (unsigned)w, (unsigned)h);
		else printf("%u x %u", (unsigned)w, (unsigned)h);
		if (!clip) printf(", static scene");
		else if (a->frames) printf(", clip %s at %.6g..%.6g s", clip->name, times[0], times[count - 1]);
		else printf(", clip %s at %.6g s", clip->name, times[0]);
		printf(", %zu triangles, GPU: %s\n", triangles, j->v->gl_renderer(g));
	}
	free(px);
	j->v->model_destroy(m);
	rk_scene_free(s);
	return rc;
}

static bool cli_counts_equal(const view_gl_counts *x, const view_gl_counts *y)
{
	return x->buffers == y->buffers && x->textures == y->textures && x->vertex_arrays == y->vertex_arrays
		&& x->programs == y->programs && x->shaders == y->shaders && x->framebuffers == y->framebuffers
		&& x->renderbuffers == y->renderbuffers;
}

static void cli_json_counts(cli_json *jd, const char *key, const view_gl_counts *c)
{
	cli_json_object(jd, key);
	cli_json_int(jd, "buffers", (long long)c->buffers);
	cli_json_int(jd, "textures", (long long)c->textures);
	cli_json_int(jd, "vertex_arrays", (long long)c->vertex_arrays);
	cli_json_int(jd, "programs", (long long)c->programs);
	cli_json_int(jd, "shaders", (long long)c->shaders);
	cli_json_int(jd, "framebuffers", (long long)c->framebuffers);
	cli_json_int(jd, "renderbuffers", (long long)c->renderbuffers);
	cli_json_close_object(jd);
}

#define CLI_VIEW_PROBE 65536u

/* Loads, uploads, draws (first clip at its start, 64 x 64) and unloads the
 * files --repeat times in all; compares live GL names before and after. */
static int cli_view_leak_check(cli_view_job *j, view_gl *g)
{
	cli_ctx *ctx = j->ctx;
	const cli_view_args *a = j->a;
	long loads = a->repeat ? a->repeat : (long)j->file_count;
	view_gl_counts before, after, peak;
	j->v->gl_count_objects(g, CLI_VIEW_PROBE, &before);
	memset(&peak, 0, sizeof(peak));
	long failed = 0, drawn = 0;
	size_t max_buffers = 0;
	unsigned char px[64 * 64 * 4];
	for (long k = 0; k < loads; k++) {
		const char *in = j->files[(size_t)k % j->file_count];
		int rc = 0;
		rk_scene *s = cli_view_load(j, in, &rc);
		if (!s) {
			failed++;
			continue;
		}
		rk_error err;
		view_model_opts mo = { 0 };
		mo.textures = true;
		mo.skin_threads = (size_t)a->threads;
		view_model *m = j->v->model_create(g, s, &mo, &err);
		if (!m) {
			cli_fail(ctx, err.code, CLI_EXIT_INPUT, in, "%s", err.message);
			failed++;
			rk_scene_free(s);
			continue;
		}
		const rk_anim_clip *clip = cli_view_clip(j, s, in, NULL, &rc);
		view_pose p = { 0 };
		p.clip = clip;
		p.time = clip ? clip->time_begin : 0.0;
		view_draw_opts d = { 0 };
		rk_render_opts ro;
		cli_view_render_opts(a, s, 64, 64, &ro);
		if (rk_render_camera_eval(s, clip, p.time, &ro, &d.camera, &err)
			&& j->v->offscreen(g, m, 64, 64, 1, &p, &d, px, 0, &err))
			drawn++;
		else
			cli_fail(ctx, err.code, CLI_EXIT_INPUT, in, "%s", err.message);
		if (k == 0 || (size_t)k < j->file_count) {
			view_gl_counts live;
			j->v->gl_count_objects(g, CLI_VIEW_PROBE, &live);
			if (live.buffers > max_buffers) {
				max_buffers = live.buffers;
				peak = live;
			}
		}
		j->v->model_destroy(m);
		rk_scene_free(s);
	}
	j->v->gl_count_objects(g, CLI_VIEW_PROBE, &after);
	bool same = cli_counts_equal(&before, &after);
	int rc = !same ? CLI_EXIT_OUTPUT : failed ? CLI_EXIT_INPUT : CLI_EXIT_OK;
	if (ctx->json) {
		cli_json jd;
		cli_json_document(&jd, ctx);
		cli_json_object(&jd, NULL);
		cli_json_int(&jd, "loads", loads);
		cli_json_int(&jd, "failed", failed);
		cli_json_int(&jd, "drawn", drawn);
		cli_json_counts(&jd, "before", &before);
		cli_json_counts(&jd, "loaded", &peak);
		cli_json_counts(&jd, "after", &after);
		cli_json_bool(&jd, "leak", !same);
		cli_json_string(&jd, "renderer", j->v->gl_renderer(g));
		cli_json_close_object(&jd);
		int jrc = cli_json_end(&jd);
		if (jrc) rc = jrc;
	} else {
		printf("leak check: %ld loads (%ld failed, %ld drawn); GL buffers/textures/vertex arrays/framebuffers/"
			"renderbuffers before %zu/%zu/%zu/%zu/%zu, with the largest file %zu/%zu/%zu/%zu/%zu, after "
			"%zu/%zu/%zu/%zu/%zu: %s\n",
			loads, failed, drawn, before.buffers, before.textures, before.vertex_arrays, before.framebuffers,
			before.renderbuffers, peak.buffers, peak.textures, peak.vertex_arrays, peak.framebuffers,
			peak.renderbuffers, after.buffers, after.textures, after.vertex_arrays, after.framebuffers,
			after.renderbuffers, same ? "no leak" : "LEAK");
	}
	return rc;
}

static int cli_cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;
	return a < b ? -1 : a > b;
}

static double cli_wall_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

/* The interactive loop's work per frame, offscreen: sample + skin + upload
 * (view_model_pose) + draw + glFinish, frames 1/60 s apart. */
static int cli_view_bench(cli_view_job *j, view_gl *g)
{
	cli_ctx *ctx = j->ctx;
	const cli_view_args *a = j->a;
	const char *in = j->files[0];
	uint32_t w = a->has_size ? (uint32_t)a->size.width : RK_RENDER_DEFAULT_SIZE;
	uint32_t h = a->has_size ? (uint32_t)a->size.height : RK_RENDER_DEFAULT_SIZE;
	int rc = 0;
	rk_scene *s = cli_view_load(j, in, &rc);
	if (!s) return rc;
	const rk_anim_clip *clip = cli_view_clip(j, s, in, a->clip, &rc);
	if (a->clip && !clip) {
		rk_scene_free(s);
		return rc;
	}
	rk_error err;
	view_model_opts mo = { 0 };
	mo.textures = !a->untextured;
	mo.skin_threads = (size_t)a->threads;
	view_model *m = j->v->model_create(g, s, &mo, &err);
	if (!m) {
		rc = cli_fail(ctx, err.code, CLI_EXIT_INPUT, in, "%s", err.message);
		rk_scene_free(s);
		return rc;
	}
	view_draw_opts d = { 0 };
	rk_render_opts ro;
	cli_view_render_opts(a, s, w, h, &ro);
	double t0 = clip ? clip->time_begin : 0.0;
	size_t n = (size_t)a->bench;
	double *frame = (double *)malloc(sizeof(double) * n * 2);
	unsigned char *px = (unsigned char *)malloc((size_t)w * h * 4u);
	if (!frame || !px || !rk_render_camera_eval(s, clip, t0, &ro, &d.camera, &err)) {
		rc = frame && px ? cli_print_error(ctx, &err) : cli_fail(ctx, RK_ERROR_OUT_OF_MEMORY, CLI_EXIT_INPUT, NULL, "view: out of memory");
	} else {
		/* one offscreen frame first: builds the runtime clip, warms caches */
		view_pose p = { 0 };
		p.clip = clip;
		p.time = t0;
		p.loop = true;
		p.in_place = a->in_place;
		d.unlit = a->unlit;
		if (!j->v->offscreen(g, m, w, h, 1, &p, &d, px, 0, &err)) rc = cli_fail(ctx, err.code, CLI_EXIT_INPUT, in, "%s", err.message);
		double *skin = frame + n;
		if (rc == 0 && !j->v->gl_bind_target(g, w, h, &err)) rc = cli_fail(ctx, err.code, CLI_EXIT_INPUT, in, "%s", err.message);
		for (size_t k = 0; k < n && rc == 0; k++) {
			p.time = t0 + (double)k / 60.0;
			double start = cli_wall_ms();
			if (!j->v->model_pose(m, &p, &skin[k], &err)) {
				rc = cli_print_error(ctx, &err);
				break;
			}
			view_draw_opts dk = d;
			dk.width = w;
			dk.height = h;
			dk.clear = true;
			j->v->model_draw(m, &dk);
			j->v->gl_finish(g);
			frame[k] = cli_wall_ms() - start;
		}
		if (rc == 0) {
			qsort(frame, n, sizeof(double), cli_cmp_double);
			qsort(skin, n, sizeof(double), cli_cmp_double);
			size_t tris = 0, verts = 0;
			j->v->model_sizes(m, &tris, &verts, NULL);
			if (ctx->json) {
				cli_json jd;
				cli_json_document(&jd, ctx);
				cli_json_object(&jd, NULL);
				cli_json_string(&jd, "input", in);
				cli_json_string(&jd, "clip", clip ? clip->name : NULL);
				cli_json_int(&jd, "frames", (long long)n);
				cli_json_int(&jd, "width", w);
				cli_json_int(&jd, "height", h);
				cli_json_int(&jd, "vertices", (long long)verts);
				cli_json_int(&jd, "triangles", (long long)tris);
				cli_json_number(&jd, "frame_ms_median", frame[n / 2]);
				cli_json_number(&jd, "frame_ms_p90", frame[(n * 9) / 10]);
				cli_json_number(&jd, "skin_upload_ms_median", skin[n / 2]);
				cli_json_string(&jd, "renderer", j->v->gl_renderer(g));
				cli_json_close_object(&jd);
				rc = cli_json_end(&jd);
			} else {
				printf("%s: %zu frames of %u x %u, clip %s, %zu vertices, %zu triangles: frame (sample + skin + upload + "
					"draw + finish) median %.3f ms, p90 %.3f ms; skin + upload median %.3f ms; GPU: %s\n",
					in, n, (unsigned)w, (unsigned)h, clip ? clip->name : "(static)", verts, tris, frame[n / 2],
					frame[(n * 9) / 10], skin[n / 2], j->v->gl_renderer(g));
			}
		}
	}
	free(frame);
	free(px);
	j->v->model_destroy(m);
	rk_scene_free(s);
	return rc;
}

static double cli_view_window_yaw(const rk_scene *s)
{
	return cli_character_yaw(s);
}

static int cli_view_main(cli_ctx *ctx, cli_view_args *ap, rk_load_opts *lo, const cli_operands *opsp)
{
	const cli_view_args a = *ap;
	const cli_operands ops = *opsp;
	int rc = 0;
	int modes = (a.screenshot != NULL) + a.leak_check + (a.bench > 0);
	if (modes > 1) return cli_usage(ctx, "--screenshot, --leak-check and --bench exclude each other");
	if (a.screenshot && strcasecmp(cli_ext(a.screenshot), "png") != 0)
		return cli_usage(ctx, "%s: the screenshot must be a .png file", a.screenshot);
	if ((a.screenshot || a.bench) && ops.count > 1) return cli_usage(ctx, "--screenshot and --bench take one FILE");
	if (!a.screenshot && (a.has_time || a.frames || a.is_static))
		return cli_usage(ctx, "--time, --frames and --static are for --screenshot");
	if (a.frames && a.has_time) return cli_usage(ctx, "--time and --frames exclude each other");
	if (a.is_static && (a.frames || a.has_time || a.clip))
		return cli_usage(ctx, "--static excludes --clip, --time and --frames");
	if (a.repeat && !a.leak_check) return cli_usage(ctx, "--repeat needs --leak-check");
	if (a.capture && (!a.window_frames || modes)) return cli_usage(ctx, "--capture needs --window-frames (and a window)");
	if (a.capture && strcasecmp(cli_ext(a.capture), "png") != 0)
		return cli_usage(ctx, "%s: the capture must be a .png file", a.capture);
	bool headless = modes > 0;
	for (int i = 0; !headless && i < ops.count; i++)
		if (cli_is_stdio(ops.v[i])) return cli_usage(ctx, "the window cannot read '-' (use --screenshot)");

	cli_view_job j = { 0 };
	j.v = cli_view_module_open(ctx, &rc);
	if (!j.v) return rc;
	j.ctx = ctx;
	j.a = &a;
	j.lo = lo;
	j.files = ops.v;
	j.file_count = (size_t)ops.count;
	if (a.anim) {
		j.motion = cli_load(ctx, a.anim, lo, &rc);
		if (!j.motion) return rc;
	}
	rk_error err;
	view_gl_opts go = { 0 };
	go.hidden = headless;
	if (!headless && a.has_size) {
		go.width = (uint32_t)a.size.width;
		go.height = (uint32_t)a.size.height;
	}
	view_gl *g = j.v->gl_create(&go, &err);
	if (!g) {
		rc = cli_view_gl_fail(ctx, &err);
		rk_scene_free(j.motion);
		return rc;
	}
	cli_note(ctx, "view: %s", j.v->gl_renderer(g));
	if (a.screenshot) {
		rc = cli_view_screenshot(&j, g);
	} else if (a.leak_check) {
		rc = cli_view_leak_check(&j, g);
	} else if (a.bench) {
		rc = cli_view_bench(&j, g);
	} else {
		view_window_opts wo = { 0 };
		wo.count = j.file_count;
		wo.load = cli_view_load_item;
		wo.user = &j;
		wo.names = j.files;
		wo.clip = a.clip;
		wo.clip_from_end = j.motion != NULL;
		wo.start_yaw = a.yaw;
		wo.yaw_of = a.file_front ? NULL : cli_view_window_yaw;
		wo.unlit = a.unlit;
		wo.textures = !a.untextured;
		wo.skeleton = a.skeleton;
		wo.in_place = a.in_place;
		wo.frames_limit = (double)a.window_frames;
		wo.skin_threads = (size_t)a.threads;
		wo.capture_png = a.capture;
		wo.keys = a.keys;
		view_window_report rep;
		rc = j.v->window_run(g, &wo, &rep, &err);
		if (rc) {
			rc = cli_print_error(ctx, &err);
		} else if (ctx->json) {
			cli_json jd;
			cli_json_document(&jd, ctx);
			cli_json_object(&jd, NULL);
			cli_json_int(&jd, "frames", (long long)rep.frames);
			cli_json_string(&jd, "file", j.files[rep.item]);
			cli_json_bool(&jd, "loaded", rep.loaded);
			cli_json_string(&jd, "clip", rep.clip[0] ? rep.clip : NULL);
			cli_json_int(&jd, "crossfades", (long long)rep.crossfades);
			cli_json_string(&jd, "root_motion", rep.in_place ? "in place" : "keep");
			cli_json_bool(&jd, "skeleton", rep.skeleton);
			cli_json_bool(&jd, "unlit", rep.unlit);
			cli_json_string(&jd, "error", rep.error[0] ? rep.error : NULL);
			cli_json_close_object(&jd);
			rc = cli_json_end(&jd);
		} else if (a.window_frames) {
			printf("window: %zu frames, %s%s, clip %s, %zu crossfades, root %s%s%s\n", rep.frames, j.files[rep.item],
				rep.loaded ? "" : " (not loaded)", rep.clip[0] ? rep.clip : "-", rep.crossfades,
				rep.in_place ? "in place" : "keep", rep.error[0] ? ", error: " : "", rep.error);
		}
	}
	j.v->gl_destroy(g);
	rk_scene_free(j.motion);
	return rc;
}

#endif
