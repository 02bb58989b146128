/* tools/rigkit/cmd_convert.c - `rigkit convert IN OUT`: GLB/glTF, evaluated OBJ and BVH (skeleton + one clip) output. */
#include "cli.h"

#include <rigkit/anim.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

typedef struct cli_convert_args {
	const char *clip;
	double time;
	bool has_time, no_extrapolation;
	double fps;
	int format;
	const char *rotation_order;
	long max_frames;
	bool separate;
} cli_convert_args;

static const cli_opt cli_convert_rows[] = {
	{ .name = "--clip", .kind = CLI_OPT_STRING, .offset = offsetof(cli_convert_args, clip), .metavar = "NAME",
		.help = "(OBJ) evaluate animation clip (FBX stack) NAME ...;\n(BVH) the clip to write" },
	{ .name = "--time", .kind = CLI_OPT_DOUBLE, .offset = offsetof(cli_convert_args, time),
		.seen = CLI_SEEN(cli_convert_args, has_time), .expects = "seconds", .metavar = "SECONDS",
		.help = "... at this absolute file time (default: clip start;\nwithout --clip: the first clip with tracks)" },
	{ .name = "--no-extrapolation", .kind = CLI_OPT_FLAG, .offset = offsetof(cli_convert_args, no_extrapolation),
		.help = "hold each curve's first/last value outside its keys" },
	{ .name = "--fps", .kind = CLI_OPT_DOUBLE, .offset = offsetof(cli_convert_args, fps), .min = 0.0, .max = 1000.0,
		.range = CLI_MIN_OPEN, .metavar = "N", .help = "(glTF) bake FBX curves at N frames per second;\n(BVH) frames per second" },
	{ .name = "--rotation-order", .kind = CLI_OPT_STRING, .offset = offsetof(cli_convert_args, rotation_order),
		.metavar = "XYZ", .help = "(BVH) rotation channels of every joint, e.g. ZXY\n(default: a BVH input's own, else ZXY)" },
	{ .name = "--max-frames", .kind = CLI_OPT_INT, .offset = offsetof(cli_convert_args, max_frames), .min = 1.0,
		.max = 1e9, .metavar = "N",
		.help = "(glTF) most baked samples per clip (default 100000);\na longer clip is an error naming the file and clip" },
	{ .name = "--separate", .kind = CLI_OPT_FLAG, .offset = offsetof(cli_convert_args, separate),
		.help = "(.gltf) write the binary buffer to OUT-stem.bin and each image to\nOUT-stem_N.png/.jpg beside OUT instead of embedding them" },
	{ .name = "--format", .kind = CLI_OPT_ENUM, .offset = offsetof(cli_convert_args, format),
		.names = cli_output_formats, .metavar = "FMT",
		.help = "glb, gltf, obj, bvh, vrma, fbx (or vrm = glb): the output format\nwhatever OUT's extension; needed when OUT is '-' (stdout)" },
};
static const cli_opt_table cli_convert_table = CLI_TABLE("options", cli_convert_rows);

const cli_spec cli_convert_spec = {
	.name = "convert",
	.usage = "usage: rigkit convert IN OUT.{obj,glb,gltf,vrm,vrma,bvh} [OPTIONS]\n"
		"\n"
		"Loads IN (FBX, glTF, GLB; '-' reads stdin) and writes OUT in the format its\n"
		"extension names (or --format; OUT '-' writes stdout, e.g.\n"
		"`rigkit convert in.fbx - --format obj`).\n"
		"\n"
		"GLB / glTF output: the whole scene in glTF conventions (metres, Y up, +Z\n"
		"front, right-handed): hierarchy, triangulated meshes with normals, UVs,\n"
		"top-4 skin influences, materials with embedded textures, skins, morph\n"
		"targets, and every animation clip (FBX curves baked at the file frame\n"
		"rate, or --fps, with redundant keys removed), each on the file's own time\n"
		"axis (a clip whose first key is at 0.033 s still starts there; --rebase-time\n"
		"moves clips to 0). --compress meshopt writes quantised, meshopt-encoded\n"
		"data (docs/gltf.md). Writer warnings go to stderr.\n"
		"Cameras, lights (KHR_lights_punctual), occlusion textures, KHR material\n"
		"extensions, tangents, extras and names are carried; what cannot be is\n"
		"named in a warning (docs/gltf.md). --separate: .bin and images as files.\n"
		"VRM input keeps its VRM extensions (humanoid, meta, expressions, spring\n"
		"bones, MToon...; docs/vrm.md): OUT.vrm is GLB, still a VRM.\n"
		"\n"
		"VRMA output (VRM Animation): the humanoid bones and one clip (--clip, else\n"
		"the first with tracks) sampled at the file frame rate or --fps.\n"
		"\n"
		"OBJ output: for every node that carries a mesh, in node order:\n"
		"  o <node name>\n"
		"  g <node name> <parent name> ... <outermost ancestor below the root>\n"
		"  world-space evaluated v (skinning and blend shapes applied), vt (the\n"
		"  node's current UV set, else the first), vn (when the mesh has normals),\n"
		"  and one 'f p/t/n ...' per polygon with corners in file order (not\n"
		"  triangulated). Whitespace in names is written as FBXASC + 3-digit byte.\n"
		"\n"
		"BVH output: the skeleton (joint nodes under one ROOT) and one clip (--clip,\n"
		"else the first with tracks) sampled at its frame rate (or --fps), in\n"
		"centimetres, Y up; position channels on the ROOT and on joints whose\n"
		"translation moves; leaf joints named *_End become End Sites (docs/bvh.md).\n"
		"\n"
		"FBX output: the whole scene as binary FBX 7400 (--fbx-ascii: ASCII 7.4)\n"
		"for Unity, Unreal, Maya and Blender: nodes with their FBX transforms,\n"
		"meshes, materials, embedded textures, skins with a bind pose, blend shapes\n"
		"and every clip (FBX curves key for key; quaternion tracks as continuous\n"
		"Euler curves within 4e-6 rad; docs/fbx.md \"## Writer\").\n"
		"\n",
	.footer = "OBJ: without --clip/--time the static scene (values stored in the file) is written.\n"
		"With --json: {input, output, format, clip, time, gltf / bvh: writer counts} on stdout.\n",
	.operands = "IN and OUT", .min_operands = 2, .max_operands = 2,
	.tables = { &cli_convert_table, &cli_gltf_out_table, &cli_load_table },
};

static int cli_convert_json(cli_ctx *ctx, const char *in, const char *out, int format, const rk_anim_clip *clip,
	double time, const rk_gltf_write_stats *st, const rk_bvh_write_stats *bst)
{
	cli_json j;
	cli_json_document(&j, ctx);
	cli_json_object(&j, NULL);
	cli_json_string(&j, "input", in);
	cli_json_string(&j, "output", out);
	cli_json_string(&j, "format", cli_output_format_name(format));
	cli_json_string(&j, "clip", clip ? clip->name : NULL);
	if (clip) cli_json_number(&j, "time", time);
	else cli_json_null(&j, "time");
	if (st) {
		cli_json_object(&j, "gltf");
		cli_json_int(&j, "nodes", (long long)st->node_count);
		cli_json_int(&j, "meshes", (long long)st->mesh_count);
		cli_json_int(&j, "primitives", (long long)st->primitive_count);
		cli_json_int(&j, "triangles", (long long)st->triangle_count);
		cli_json_int(&j, "vertices", (long long)st->vertex_count);
		cli_json_int(&j, "skins", (long long)st->skin_count);
		cli_json_int(&j, "materials", (long long)st->material_count);
		cli_json_int(&j, "images", (long long)st->image_count);
		cli_json_int(&j, "animations", (long long)st->animation_count);
		cli_json_int(&j, "channels", (long long)st->channel_count);
		cli_json_int(&j, "baked_channels", (long long)st->baked_channel_count);
		cli_json_int(&j, "warnings", (long long)st->warning_count);
		cli_json_int(&j, "json_bytes", (long long)st->json_size);
		cli_json_int(&j, "bin_bytes", (long long)st->bin_size);
		cli_json_close_object(&j);
		cli_json_compression(&j, ctx);
	}
	if (bst) {
		cli_json_object(&j, "bvh");
		cli_json_int(&j, "joints", (long long)bst->joint_count);
		cli_json_int(&j, "end_sites", (long long)bst->end_site_count);
		cli_json_int(&j, "frames", (long long)bst->frame_count);
		cli_json_number(&j, "frame_time", bst->frame_time);
		cli_json_int(&j, "channels", (long long)bst->channel_count);
		cli_json_int(&j, "translated_joints", (long long)bst->translated_joint_count);
		cli_json_int(&j, "warnings", (long long)bst->warning_count);
		cli_json_close_object(&j);
	}
	cli_json_close_object(&j);
	return cli_json_end(&j);
}

int cli_cmd_convert(cli_ctx *ctx, int argc, char **argv)
{
	cli_convert_args a = { 0 };
	cli_gltf_out_args gout = { 0 };
	rk_load_opts lo = { 0 };
	cli_operands ops;
	int rc = cli_opts_parse(ctx, &cli_convert_spec, (void *const[]){ &a, &gout, &lo }, argc, argv, &ops);
	if (rc) return rc;
	const char *in = ops.v[0], *out = ops.v[1];
	int format = 0;
	if ((rc = cli_output_format(ctx, out, a.format,
			 CLI_FORMATS_GLTF | (1u << CLI_FORMAT_OBJ) | (1u << CLI_FORMAT_VRMA) | (1u << CLI_FORMAT_BVH) |
			 (1u << CLI_FORMAT_FBX), &format)))
		return rc;
	if ((rc = cli_gltf_out_check(ctx, &gout, format == CLI_FORMAT_GLB || format == CLI_FORMAT_GLTF))) return rc;
	rk_scene *s = cli_load(ctx, in, &lo, &rc);
	if (!s) return rc;
	if (format == CLI_FORMAT_VRMA) {
		const rk_anim_clip *clip = a.clip ? cli_find_clip(ctx, s, in, a.clip, &rc) : NULL;
		if (!a.clip || clip) rc = cli_write_vrma(ctx, s, out, NULL, clip, a.fps, NULL, NULL);
		if (rc == CLI_EXIT_OK && ctx->json) rc = cli_convert_json(ctx, in, out, format, clip, 0.0, NULL, NULL);
		rk_scene_free(s);
		return rc;
	}
	if (format == CLI_FORMAT_BVH) {
		rk_bvh_write_stats st = { 0 };
		rk_bvh_write_opts o = { .fps = a.fps, .rotation_order = a.rotation_order, .stats = &st };
		if (a.clip && !(o.clip = cli_find_clip(ctx, s, in, a.clip, &rc))) {
			rk_scene_free(s);
			return rc;
		}
		if (!o.clip) o.clip = cli_default_clip(s);
		rc = cli_write_bvh(ctx, s, out, &o);
		if (rc == CLI_EXIT_OK) {
			cli_note(ctx, "%s: %zu joints, %zu end sites, %zu frames at %g fps, %zu channels", out, st.joint_count,
				st.end_site_count, st.frame_count, 1.0 / st.frame_time, st.channel_count);
			if (ctx->json) rc = cli_convert_json(ctx, in, out, format, o.clip, o.clip ? o.clip->time_begin : 0.0, NULL, &st);
		}
		rk_scene_free(s);
		return rc;
	}
	if (format == CLI_FORMAT_FBX) {
		rk_fbx_write_stats st = { 0 };
		rk_fbx_write_opts o = { .stats = &st, .max_frames = a.max_frames > 0 ? (size_t)a.max_frames : 0 };
		rc = cli_write_fbx(ctx, s, out, &o);
		if (rc == CLI_EXIT_OK) {
			cli_note(ctx, "%s: FBX %u%s, %zu models, %zu meshes, %zu skins, %zu clips, %zu curves, %zu bytes", out,
				(unsigned)st.version, ctx->fbx_ascii ? " ASCII" : "", st.model_count, st.geometry_count, st.skin_count,
				st.stack_count, st.curve_count, st.size);
			if (ctx->json) rc = cli_convert_json(ctx, in, out, format, NULL, 0.0, NULL, NULL);
		}
		rk_scene_free(s);
		return rc;
	}
	if (format != CLI_FORMAT_OBJ) {
		/* what the input holds that the output will not: the loader's warnings
		 * name it (with -v they were printed already) */
		for (size_t i = 0; i < s->warnings.count && !ctx->verbose; i++) {
			const rk_warning *w = &s->warnings.data[i];
			cli_warn(ctx, "%s: %s%s%s%s", in, w->message, w->path[0] ? " (at " : "", w->path, w->path[0] ? ")" : "");
		}
		rk_gltf_write_stats st = { 0 };
		rk_gltf_write_opts o = { 0 };
		o.bake_fps = a.fps;
		o.max_frames = a.max_frames > 0 ? (size_t)a.max_frames : 0;
		o.separate_files = a.separate;
		cli_gltf_out_apply(&gout, &o);
		o.stats = &st;
		rc = cli_write_gltf(ctx, s, out, format, &o);
		if (rc == CLI_EXIT_OK) {
			cli_note(ctx, "%s: %zu nodes, %zu meshes, %zu triangles, %zu animations, %zu + %zu bytes", out, st.node_count,
				st.mesh_count, st.triangle_count, st.animation_count, st.json_size, st.bin_size);
			if (ctx->json) rc = cli_convert_json(ctx, in, out, format, NULL, 0.0, &st, NULL);
		}
		rk_scene_free(s);
		return rc;
	}
	const rk_anim_clip *clip = NULL;
	double time = a.time;
	if (a.clip) {
		clip = cli_find_clip(ctx, s, in, a.clip, &rc);
		if (!clip) {
			rk_scene_free(s);
			return rc;
		}
		if (!a.has_time) time = clip->time_begin;
	} else if (a.has_time) {
		clip = cli_default_clip(s);
	}
	size_t pose_size = rk_pose_memory_size(s);
	void *pose_mem = malloc(pose_size ? pose_size : 1);
	rk_pose pose;
	rk_error err;
	if (!pose_mem || !rk_pose_init(&pose, s, pose_mem, pose_size)) {
		rc = cli_fail(ctx, RK_ERROR_OUT_OF_MEMORY, CLI_EXIT_INPUT, NULL, "convert: out of memory");
	} else {
		rk_pose_eval_job job = { 0 };
		job.scene = s;
		job.clip = clip;
		job.time = time;
		job.no_extrapolation = a.no_extrapolation;
		job.pose = &pose;
		if (!rk_pose_eval_validate(&job, &err) || !rk_pose_eval_run(&job)) {
			cli_print_error(ctx, &err);
			rc = CLI_EXIT_INPUT;
		}
	}
	if (rc == CLI_EXIT_OK) {
		rk_obj_write_opts oo = { .pose = &pose };
		rc = cli_write_obj(ctx, s, out, &oo);
	}
	if (rc == CLI_EXIT_OK && ctx->json) rc = cli_convert_json(ctx, in, out, format, clip, time, NULL, NULL);
	free(pose_mem);
	rk_scene_free(s);
	return rc;
}
