/* tools/rigkit/cmd_convert.c - `rigkit convert IN OUT`: evaluated OBJ output (and more formats as they land). */
#include "cli.h"

#include <rigkit/anim.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

const char cli_cmd_convert_usage[] =
	"usage: rigkit convert IN OUT.{obj,glb,gltf} [OPTIONS]\n"
	"\n"
	"Loads IN (FBX, glTF, GLB) and writes OUT in the format its extension names.\n"
	"\n"
	"GLB / glTF output: the whole scene in glTF conventions (metres, Y up, +Z\n"
	"front, right-handed): hierarchy, triangulated meshes with normals, UVs,\n"
	"top-4 skin influences, materials with embedded textures, skins, morph\n"
	"targets, and every animation clip (FBX curves baked at the file frame\n"
	"rate, or --fps, with redundant keys removed). Writer warnings go to stderr.\n"
	"\n"
	"OBJ output: for every node that carries a mesh, in node order:\n"
	"  o <node name>\n"
	"  g <node name> <parent name> ... <outermost ancestor below the root>\n"
	"  world-space evaluated v (skinning and blend shapes applied), vt (the\n"
	"  node's current UV set, else the first), vn (when the mesh has normals),\n"
	"  and one 'f p/t/n ...' per polygon with corners in file order (not\n"
	"  triangulated). Whitespace in names is written as FBXASC + 3-digit byte.\n"
	"\n"
	"options:\n"
	"  --clip NAME          evaluate animation clip (FBX stack) NAME ...\n"
	"  --time SECONDS       ... at this absolute file time (default: clip start;\n"
	"                       without --clip: the first clip with tracks)\n"
	"  --no-extrapolation   hold each curve's first/last value outside its keys\n"
	"  --axes AXES          convert to right_handed_y_up, left_handed_y_up,\n"
	"                       right_handed_z_up or left_handed_z_up\n"
	"  --unit-meters U      convert to U metres per unit\n"
	"  --fps N              (glTF) bake FBX curves at N frames per second\n"
	"Without --clip/--time the static scene (values stored in the file) is written.\n";

static void cli_print_writer_warning(void *user, const rk_warning *w)
{
	(void)user;
	if (w->count > 1) fprintf(stderr, "rigkit: warning: %s (x%zu)\n", w->message, w->count);
	else fprintf(stderr, "rigkit: warning: %s\n", w->message);
}

static int cli_convert_gltf(const rk_scene *s, const char *out, double fps)
{
	rk_gltf_write_opts o = { 0 };
	rk_error err;
	o.bake_fps = fps;
	o.warning = cli_print_writer_warning;
	if (!rk_gltf_write(s, out, &o, &err)) {
		cli_print_error(&err);
		return err.code == RK_ERROR_OUTPUT ? CLI_EXIT_OUTPUT : CLI_EXIT_INPUT;
	}
	return CLI_EXIT_OK;
}

static const char *cli_ext(const char *path)
{
	const char *dot = strrchr(path, '.');
	const char *slash = strrchr(path, '/');
	return (dot && (!slash || dot > slash)) ? dot + 1 : "";
}

int cli_cmd_convert(int argc, char **argv)
{
	const char *in = NULL, *out = NULL, *clip_name = NULL;
	double time = 0.0;
	bool has_time = false, no_extra = false;
	double fps = 0.0;
	rk_load_opts lo = { 0 };
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--no-extrapolation")) { no_extra = true; continue; }
		if (!strcmp(a, "--clip") || !strcmp(a, "--time") || !strcmp(a, "--axes") || !strcmp(a, "--unit-meters")
			|| !strcmp(a, "--fps")) {
			if (i + 1 >= argc) {
				cli_fail("convert: %s needs a value (see rigkit convert --help)", a);
				return CLI_EXIT_USAGE;
			}
			const char *v = argv[++i];
			char *end;
			if (!strcmp(a, "--clip")) clip_name = v;
			else if (!strcmp(a, "--fps")) {
				fps = strtod(v, &end);
				if (end == v || *end || !(fps > 0.0 && fps <= 1000.0)) {
					cli_fail("convert: --fps expects a number in (0, 1000], got '%s'", v);
					return CLI_EXIT_USAGE;
				}
			}
			else if (!strcmp(a, "--time")) {
				time = strtod(v, &end);
				if (end == v || *end || !isfinite(time)) {
					cli_fail("convert: --time expects seconds, got '%s'", v);
					return CLI_EXIT_USAGE;
				}
				has_time = true;
			} else if (cli_load_option("convert", a, v, &lo) < 0) {
				return CLI_EXIT_USAGE;
			}
			continue;
		}
		if (a[0] == '-' && a[1]) {
			cli_fail("convert: unknown option '%s' (see rigkit convert --help)", a);
			return CLI_EXIT_USAGE;
		}
		if (!in) in = a;
		else if (!out) out = a;
		else {
			cli_fail("convert: expected IN and OUT only (see rigkit convert --help)");
			return CLI_EXIT_USAGE;
		}
	}
	if (!in || !out) {
		cli_fail("convert: missing IN or OUT (see rigkit convert --help)");
		return CLI_EXIT_USAGE;
	}
	const char *ext = cli_ext(out);
	bool gltf = !strcasecmp(ext, "glb") || !strcasecmp(ext, "gltf");
	if (strcasecmp(ext, "obj") != 0 && !gltf) {
		cli_fail("convert: %s: unsupported output format '.%s' (supported: .obj, .glb, .gltf)", out, ext);
		return CLI_EXIT_USAGE;
	}
	rk_error err;
	rk_scene *s = rk_load_file(in, &lo, &err);
	if (!s) {
		cli_print_error(&err);
		return cli_exit_code(&err);
	}
	if (gltf) {
		int grc = cli_convert_gltf(s, out, fps);
		rk_scene_free(s);
		return grc;
	}
	const rk_anim_clip *clip = NULL;
	if (clip_name) {
		clip = rk_scene_find_clip(s, clip_name);
		if (!clip) {
			cli_fail("%s: no animation clip named '%s' (see rigkit info)", in, clip_name);
			rk_scene_free(s);
			return CLI_EXIT_INPUT;
		}
		if (!has_time) time = clip->time_begin;
	} else if (has_time) {
		clip = cli_default_clip(s);
	}
	size_t pose_size = rk_pose_memory_size(s);
	void *pose_mem = malloc(pose_size ? pose_size : 1);
	rk_pose pose;
	int rc = CLI_EXIT_OK;
	if (!pose_mem || !rk_pose_init(&pose, s, pose_mem, pose_size)) {
		cli_fail("convert: out of memory");
		rc = CLI_EXIT_INPUT;
	} else {
		rk_pose_eval_job job = { 0 };
		job.scene = s;
		job.clip = clip;
		job.time = time;
		job.no_extrapolation = no_extra;
		job.pose = &pose;
		if (!rk_pose_eval_validate(&job, &err) || !rk_pose_eval_run(&job)) {
			rk_error_code c = err.code;
			(void)c;
			cli_print_error(&err);
			rc = CLI_EXIT_INPUT;
		}
	}
	if (rc == CLI_EXIT_OK) {
		rk_obj_write_opts oo = { .pose = &pose };
		if (!rk_obj_write(s, out, &oo, &err)) {
			cli_print_error(&err);
			rc = err.code == RK_ERROR_OUTPUT ? CLI_EXIT_OUTPUT : CLI_EXIT_INPUT;
		}
	}
	free(pose_mem);
	rk_scene_free(s);
	return rc;
}
