/* tools/rigkit/cmd_render.c - `rigkit render IN OUT.png`: a posed scene drawn
 * on the CPU (rigkit/render.h), one frame or a contact sheet. */
#include "cli.h"

#include <rigkit/render.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

const char cli_cmd_render_usage[] =
	"usage: rigkit render IN OUT.png [--clip NAME] [--time T | --frames N] [--size WxH]\n"
	"                    [--yaw DEG] [--pitch DEG] [--skeleton] [--texture] [options]\n"
	"\n"
	"Draws IN (FBX, glTF, GLB) posed at a time of an animation clip into a PNG,\n"
	"on the CPU (no GPU needed): every visible mesh skinned and blend-shaped,\n"
	"z-buffered, lit by one directional light plus ambient, seen from the front\n"
	"of the scene (its front axis) and framed to its posed bounds.\n"
	"\n"
	"options:\n"
	"  --clip NAME         animation clip (default: the first with tracks when --time\n"
	"                      or --frames is given, else the scene as stored)\n"
	"  --time T            absolute file time in seconds (default: the clip's start)\n"
	"  --static            the scene as stored (no animation), even if it has clips\n"
	"  --frames N          contact sheet: N times of the clip side by side in one PNG,\n"
	"                      t_k = start + k * duration / N (k = 0..N-1), one camera\n"
	"                      framing all of them (1..64 frames)\n"
	"  --follow            with --frames: frame each time on its own instead\n"
	"  --size WxH          size of the image (of each frame) in pixels, default 512x512\n"
	"  --yaw DEG           orbit about the up axis (90: the character's left side); for a\n"
	"                      humanoid (see rigkit humanoid) 0 is the character's front whatever\n"
	"                      way the file faces it\n"
	"  --file-front        measure --yaw from the file's front axis instead\n"
	"  --pitch DEG         raise the camera (positive looks down), default 0\n"
	"  --fov DEG           vertical field of view, default 30\n"
	"  --ortho             orthographic projection\n"
	"  --skeleton          joints and bones on top\n"
	"  --wireframe         polygon edges on the surface\n"
	"  --texture           base colour textures (embedded, or files beside IN)\n"
	"  --unlit             base colours without lighting\n"
	"  --ssaa N            N x N supersampling, N = 2..4 (default off)\n"
	"  --background HEX    RRGGBB or RRGGBBAA (sRGB), default 282c34\n"
	"  --no-extrapolation  hold each curve's first/last value outside its keys\n"
	"  --axes AXES, --unit-meters U   load-time conversion as in `rigkit convert`\n"
	"Prints one line: the file written, the size, the clip and times, the\n"
	"triangles drawn. Sheets wider than 16384 pixels are refused.\n";

#define CLI_RENDER_MAX_FRAMES 64

static int cli_parse_size(const char *s, uint32_t *w, uint32_t *h)
{
	char *end;
	unsigned long a = strtoul(s, &end, 10);
	if (end == s) return 0;
	unsigned long b = a;
	if (*end == 'x' || *end == 'X') {
		const char *p = end + 1;
		b = strtoul(p, &end, 10);
		if (end == p) return 0;
	}
	if (*end || s[0] == '-' || a < 1 || b < 1 || a > RK_RENDER_MAX_SIZE || b > RK_RENDER_MAX_SIZE) return 0;
	*w = (uint32_t)a;
	*h = (uint32_t)b;
	return 1;
}

static int cli_hex(char c)
{
	if (c >= '0' && c <= '9') return c - '0';
	if (c >= 'a' && c <= 'f') return c - 'a' + 10;
	if (c >= 'A' && c <= 'F') return c - 'A' + 10;
	return -1;
}

static int cli_parse_colour(const char *s, uint8_t out[4])
{
	if (s[0] == '#') s++;
	size_t n = strlen(s);
	if (n != 6 && n != 8) return 0;
	out[3] = 255;
	for (size_t i = 0; i < n; i += 2) {
		int hi = cli_hex(s[i]), lo = cli_hex(s[i + 1]);
		if (hi < 0 || lo < 0) return 0;
		out[i / 2] = (uint8_t)(hi * 16 + lo);
	}
	return 1;
}

static int cli_parse_double(const char *v, double lo, double hi, double *out)
{
	char *end;
	double d = strtod(v, &end);
	if (end == v || *end || !isfinite(d) || d < lo || d > hi) return 0;
	*out = d;
	return 1;
}

static const char *cli_ext(const char *path)
{
	const char *dot = strrchr(path, '.');
	const char *slash = strrchr(path, '/');
	return (dot && (!slash || dot > slash)) ? dot + 1 : "";
}

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
static double cli_character_yaw(const rk_scene *s)
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

int cli_cmd_render(int argc, char **argv)
{
	const char *in = NULL, *out = NULL, *clip_name = NULL;
	double time = 0.0;
	bool has_time = false, is_static = false, follow = false, file_front = false;
	long frames = 0;
	rk_render_opts o = { 0 };
	rk_load_opts lo = { 0 };
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--static")) { is_static = true; continue; }
		if (!strcmp(a, "--follow")) { follow = true; continue; }
		if (!strcmp(a, "--ortho")) { o.camera.orthographic = true; continue; }
		if (!strcmp(a, "--file-front")) { file_front = true; continue; }
		if (!strcmp(a, "--skeleton")) { o.skeleton = true; continue; }
		if (!strcmp(a, "--wireframe")) { o.wireframe = true; continue; }
		if (!strcmp(a, "--texture")) { o.textures = true; continue; }
		if (!strcmp(a, "--unlit")) { o.shading = RK_SHADE_UNLIT; continue; }
		if (!strcmp(a, "--no-extrapolation")) { o.no_extrapolation = true; continue; }
		if (!strcmp(a, "--clip") || !strcmp(a, "--time") || !strcmp(a, "--frames") || !strcmp(a, "--size")
			|| !strcmp(a, "--yaw") || !strcmp(a, "--pitch") || !strcmp(a, "--fov") || !strcmp(a, "--ssaa")
			|| !strcmp(a, "--background") || !strcmp(a, "--axes") || !strcmp(a, "--unit-meters")) {
			if (i + 1 >= argc) {
				cli_fail("render: %s needs a value (see rigkit render --help)", a);
				return CLI_EXIT_USAGE;
			}
			const char *v = argv[++i];
			char *end;
			if (!strcmp(a, "--clip")) {
				clip_name = v;
			} else if (!strcmp(a, "--time")) {
				if (!cli_parse_double(v, -HUGE_VAL, HUGE_VAL, &time)) {
					cli_fail("render: --time expects seconds, got '%s'", v);
					return CLI_EXIT_USAGE;
				}
				has_time = true;
			} else if (!strcmp(a, "--frames")) {
				frames = strtol(v, &end, 10);
				if (end == v || *end || frames < 1 || frames > CLI_RENDER_MAX_FRAMES) {
					cli_fail("render: --frames expects 1..%d, got '%s'", CLI_RENDER_MAX_FRAMES, v);
					return CLI_EXIT_USAGE;
				}
			} else if (!strcmp(a, "--size")) {
				if (!cli_parse_size(v, &o.width, &o.height)) {
					cli_fail("render: --size expects WxH with 1..%d pixels each, got '%s'", RK_RENDER_MAX_SIZE, v);
					return CLI_EXIT_USAGE;
				}
			} else if (!strcmp(a, "--yaw") || !strcmp(a, "--pitch")) {
				double *dst = !strcmp(a, "--yaw") ? &o.camera.yaw_deg : &o.camera.pitch_deg;
				if (!cli_parse_double(v, -3600.0, 3600.0, dst)) {
					cli_fail("render: %s expects degrees, got '%s'", a, v);
					return CLI_EXIT_USAGE;
				}
			} else if (!strcmp(a, "--fov")) {
				if (!cli_parse_double(v, 1e-3, 170.0, &o.camera.fov_deg)) {
					cli_fail("render: --fov expects degrees in (0, 170], got '%s'", v);
					return CLI_EXIT_USAGE;
				}
			} else if (!strcmp(a, "--ssaa")) {
				long n = strtol(v, &end, 10);
				if (end == v || *end || n < 1 || n > 4) {
					cli_fail("render: --ssaa expects 1..4, got '%s'", v);
					return CLI_EXIT_USAGE;
				}
				o.supersample = (uint32_t)n;
			} else if (!strcmp(a, "--background")) {
				if (!cli_parse_colour(v, o.background)) {
					cli_fail("render: --background expects RRGGBB or RRGGBBAA in hex, got '%s'", v);
					return CLI_EXIT_USAGE;
				}
				o.has_background = true;
			} else if (cli_load_option("render", a, v, &lo) < 0) {
				return CLI_EXIT_USAGE;
			}
			continue;
		}
		if (a[0] == '-' && a[1]) {
			cli_fail("render: unknown option '%s' (see rigkit render --help)", a);
			return CLI_EXIT_USAGE;
		}
		if (!in) in = a;
		else if (!out) out = a;
		else {
			cli_fail("render: expected IN and OUT.png only (see rigkit render --help)");
			return CLI_EXIT_USAGE;
		}
	}
	if (!in || !out) {
		cli_fail("render: missing IN or OUT.png (see rigkit render --help)");
		return CLI_EXIT_USAGE;
	}
	if (strcasecmp(cli_ext(out), "png") != 0) {
		cli_fail("render: %s: the output must be a .png file", out);
		return CLI_EXIT_USAGE;
	}
	if (frames && has_time) {
		cli_fail("render: --time and --frames exclude each other");
		return CLI_EXIT_USAGE;
	}
	if (is_static && (frames || has_time || clip_name)) {
		cli_fail("render: --static excludes --clip, --time and --frames");
		return CLI_EXIT_USAGE;
	}
	if (follow && !frames) {
		cli_fail("render: --follow needs --frames");
		return CLI_EXIT_USAGE;
	}
	uint32_t w, h;
	rk_error err;
	if (!rk_render_size(&o, &w, &h, &err)) {
		cli_print_error(&err);
		return CLI_EXIT_USAGE;
	}
	long count = frames ? frames : 1;
	if ((uint64_t)w * (uint64_t)count > RK_RENDER_MAX_SIZE) {
		cli_fail("render: %ld frames of %u pixels make a sheet wider than %d pixels (use a smaller --size)", count,
			(unsigned)w, RK_RENDER_MAX_SIZE);
		return CLI_EXIT_USAGE;
	}

	rk_scene *s = rk_load_file(in, &lo, &err);
	if (!s) {
		cli_print_error(&err);
		return cli_exit_code(&err);
	}
	if (!file_front && !o.camera.look_at) o.camera.yaw_deg += cli_character_yaw(s);
	const rk_anim_clip *clip = NULL;
	if (clip_name) {
		clip = rk_scene_find_clip(s, clip_name);
		if (!clip) {
			cli_fail("%s: no animation clip named '%s' (see rigkit info)", in, clip_name);
			rk_scene_free(s);
			return CLI_EXIT_INPUT;
		}
	} else if (has_time || frames) {
		clip = cli_default_clip(s);
		if (!clip && frames) {
			cli_fail("%s: --frames needs an animation clip, and the file has none", in);
			rk_scene_free(s);
			return CLI_EXIT_INPUT;
		}
	}
	if (clip && !has_time) time = clip->time_begin;

	double times[CLI_RENDER_MAX_FRAMES];
	for (long k = 0; k < count; k++)
		times[k] = frames ? clip->time_begin + (clip->time_end - clip->time_begin) * (double)k / (double)count : time;

	int rc = CLI_EXIT_OK;
	if (frames > 1 && !follow) {
		/* One camera for the whole sheet: the union of the posed bounds. */
		for (long k = 0; k < count && rc == CLI_EXIT_OK; k++) {
			rk_vec3 mn, mx;
			if (!rk_render_bounds(s, clip, times[k], &o, &mn, &mx, &err)) {
				cli_print_error(&err);
				rc = CLI_EXIT_INPUT;
				break;
			}
			if (k == 0) {
				o.camera.bounds_min = mn;
				o.camera.bounds_max = mx;
			} else {
				o.camera.bounds_min = (rk_vec3){ fmin(o.camera.bounds_min.x, mn.x), fmin(o.camera.bounds_min.y, mn.y),
					fmin(o.camera.bounds_min.z, mn.z) };
				o.camera.bounds_max = (rk_vec3){ fmax(o.camera.bounds_max.x, mx.x), fmax(o.camera.bounds_max.y, mx.y),
					fmax(o.camera.bounds_max.z, mx.z) };
			}
		}
		o.camera.has_bounds = true;
	}

	size_t stride = (size_t)w * 4u * (size_t)count;
	unsigned char *px = rc == CLI_EXIT_OK ? (unsigned char *)malloc(stride * h) : NULL;
	if (rc == CLI_EXIT_OK && !px) {
		cli_fail("render: out of memory for a %ld x %u image", (long)w * count, (unsigned)h);
		rc = CLI_EXIT_INPUT;
	}
	rk_render_stats st, total = { 0 };
	o.stats = &st;
	for (long k = 0; k < count && rc == CLI_EXIT_OK; k++) {
		if (!rk_render(s, clip, times[k], &o, px + (size_t)k * w * 4u, stride, &err)) {
			cli_print_error(&err);
			/* bad options were caught above; what is left is the input */
			rc = err.code == RK_ERROR_INVALID_ARGUMENT ? CLI_EXIT_INPUT : cli_exit_code(&err);
			break;
		}
		total.triangles += st.triangles;
		total.triangles_rasterized += st.triangles_rasterized;
		if (st.textures_failed && !total.textures_failed) {
			total.textures_failed = st.textures_failed;
			fprintf(stderr, "rigkit: warning: %zu texture(s) could not be decoded, drawn untextured: %s\n",
				st.textures_failed, st.texture_error);
		}
	}
	if (rc == CLI_EXIT_OK && !rk_png_write(out, px, w * (uint32_t)count, h, stride, &err)) {
		cli_print_error(&err);
		rc = err.code == RK_ERROR_OUTPUT ? CLI_EXIT_OUTPUT : CLI_EXIT_INPUT;
	}
	if (rc == CLI_EXIT_OK) {
		printf("wrote %s: ", out);
		if (frames) printf("%ld frames of %u x %u (%u x %u)", count, (unsigned)w, (unsigned)h, (unsigned)(w * count), (unsigned)h);
		else printf("%u x %u", (unsigned)w, (unsigned)h);
		if (!clip) printf(", static scene");
		else if (frames) printf(", clip %s at %.6g..%.6g s", clip->name, times[0], times[count - 1]);
		else printf(", clip %s at %.6g s", clip->name, times[0]);
		printf(", %zu triangles\n", frames ? total.triangles / (size_t)count : total.triangles);
	}
	free(px);
	rk_scene_free(s);
	return rc;
}
