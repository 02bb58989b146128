/* tools/rigkit/cmd_retarget.c - `rigkit humanoid FILE` and
 * `rigkit retarget SOURCE TARGET OUT.glb`: humanoid maps and retargeting
 * (include/rigkit/retarget.h). */
#include "cli.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const cli_opt cli_humanoid_rows[] = {
	{ .name = "--map", .kind = CLI_OPT_STRING, .offset = 0, .metavar = "FILE",
		.help = "start from the detection, then apply FILE's lines\n('leftUpperArm = Bone.012'; 'bone =' unmaps; '#' "
			"comments)" },
};
static const cli_opt_table cli_humanoid_table = CLI_TABLE("options", cli_humanoid_rows);

const cli_spec cli_humanoid_spec = {
	.name = "humanoid",
	.usage = "usage: rigkit humanoid FILE [--map FILE] [--json]\n"
		"\n"
		"Prints which node of FILE ('-' reads stdin) plays which humanoid bone (VRM\n"
		"1.0 bone names), as detected from the node names and the hierarchy, one\n"
		"'bone = node' line per mapped bone: the format --map files use (here and in\n"
		"`rigkit retarget`).\n"
		"Exit code 2 when the result is not a valid humanoid (a required bone missing).\n"
		"\n",
	.operands = "FILE", .min_operands = 1, .max_operands = 1,
	.tables = { &cli_humanoid_table, &cli_load_table },
};

typedef struct cli_retarget_cmd_args {
	const char *name, *source_map, *target_map;
	bool drop_target;
} cli_retarget_cmd_args;

static const cli_opt cli_retarget_cmd_rows[] = {
	{ .name = "--name", .kind = CLI_OPT_STRING, .offset = offsetof(cli_retarget_cmd_args, name), .metavar = "NAME",
		.help = "name of the new clip (one clip only; default: the source's)" },
	{ .name = "--source-map", .kind = CLI_OPT_STRING, .offset = offsetof(cli_retarget_cmd_args, source_map),
		.metavar = "FILE", .help = "bone map corrections of SOURCE (see rigkit humanoid)" },
	{ .name = "--target-map", .kind = CLI_OPT_STRING, .offset = offsetof(cli_retarget_cmd_args, target_map),
		.metavar = "FILE", .help = "bone map corrections of TARGET" },
	{ .name = "--drop-target-clips", .kind = CLI_OPT_FLAG, .offset = offsetof(cli_retarget_cmd_args, drop_target),
		.help = "write only the new clips" },
};
static const cli_opt_table cli_retarget_cmd_table = CLI_TABLE("options", cli_retarget_cmd_rows);

const cli_spec cli_retarget_spec = {
	.name = "retarget",
	.usage = "usage: rigkit retarget SOURCE TARGET OUT.glb [options]\n"
		"\n"
		"Plays SOURCE's clip(s) on TARGET's skeleton (any humanoid to any humanoid:\n"
		"names, T/A rest poses, bone rolls, axes and units may all differ) and\n"
		"writes TARGET with the new clips (and its own) as GLB or .gltf. SOURCE or\n"
		"TARGET '-' reads stdin; OUT '-' writes GLB to stdout.\n"
		"\n",
	.footer = "With --json: the report (per clip: bones, frames, tracks, hips heights,\n"
		"max bone direction error) as one JSON document.\n",
	.operands = "SOURCE TARGET OUT", .min_operands = 3, .max_operands = 3,
	.tables = { &cli_retarget_cmd_table, &cli_retarget_table, &cli_load_table },
};

/* ---- map files ------------------------------------------------------------- */

/* Applies a map file to h (rk_humanoid_map_apply_file). 0 ok; prints the
 * error and returns an exit code. */
static int cli_apply_map_file(cli_ctx *ctx, const char *path, const rk_scene *s, rk_humanoid *h)
{
	rk_error err;
	if (!rk_humanoid_map_apply_file(h, s, path, &err)) {
		if (err.location & RK_LOCATION_LINE) {
			fprintf(stderr, "rigkit: %s:%llu: %s\n", path, (unsigned long long)err.line, err.message);
			cli_record(ctx, &err);
		} else {
			cli_print_error(ctx, &err);
		}
		return CLI_EXIT_INPUT;
	}
	return CLI_EXIT_OK;
}

/* Detection plus an optional map file; *valid tells whether the result is a
 * valid humanoid (err holds why not). */
static int cli_humanoid_of(cli_ctx *ctx, const rk_scene *s, const char *map, rk_humanoid *h, bool *valid,
	rk_error *err)
{
	rk_humanoid_detect(s, h, err);
	if (map) {
		int rc = cli_apply_map_file(ctx, map, s, h);
		if (rc) return rc;
	}
	*valid = rk_humanoid_validate(h, s, err);
	return CLI_EXIT_OK;
}

int cli_cmd_humanoid(cli_ctx *ctx, int argc, char **argv)
{
	const char *map = NULL;
	rk_load_opts lo = { 0 };
	cli_operands ops;
	int rc = cli_opts_parse(ctx, &cli_humanoid_spec, (void *const[]){ (void *)&map, &lo }, argc, argv, &ops);
	if (rc) return rc;
	const char *path = ops.v[0];
	bool json = ctx->json;
	rk_error err;
	rk_scene *s = cli_load(ctx, path, &lo, &rc);
	if (!s) return rc;
	rk_humanoid h;
	bool valid = false;
	rc = cli_humanoid_of(ctx, s, map, &h, &valid, &err);
	if (rc) {
		rk_scene_free(s);
		return rc;
	}
	size_t mapped = 0;
	for (int b = 0; b < RK_HUMANOID_BONE_COUNT; b++) mapped += h.bones[b] != NULL;
	if (json) {
		cli_json j;
		cli_json_document(&j, ctx);
		cli_json_object(&j, NULL);
		cli_json_string(&j, "file", path);
		cli_json_bool(&j, "valid", valid);
		if (!valid) cli_json_string(&j, "error", err.message);
		cli_json_int(&j, "mapped", (long long)mapped);
		cli_json_object(&j, "bones");
		for (int b = 0; b < RK_HUMANOID_BONE_COUNT; b++)
			if (h.bones[b]) cli_json_string(&j, rk_humanoid_bone_name((rk_humanoid_bone)b), h.bones[b]->name);
		cli_json_close_object(&j);
		cli_json_close_object(&j);
		if (cli_json_end(&j) != CLI_EXIT_OK) {
			rk_scene_free(s);
			return CLI_EXIT_OUTPUT;
		}
	} else {
		printf("# %s: %zu humanoid bones mapped%s\n", path, mapped, valid ? "" : " (not a valid humanoid)");
		for (int b = 0; b < RK_HUMANOID_BONE_COUNT; b++)
			if (h.bones[b]) printf("%s = %s\n", rk_humanoid_bone_name((rk_humanoid_bone)b), cli_text(ctx, h.bones[b]->name));
		if (!valid) cli_fail(ctx, err.code, CLI_EXIT_INPUT, path, "%s", err.message);
	}
	rk_scene_free(s);
	return valid ? CLI_EXIT_OK : CLI_EXIT_INPUT;
}

/* ---- retarget ----------------------------------------------------------------- */

int cli_cmd_retarget(cli_ctx *ctx, int argc, char **argv)
{
	cli_retarget_cmd_args a = { 0 };
	cli_retarget_args ra;
	memset(&ra, 0, sizeof(ra));
	rk_load_opts lo = { 0 };
	cli_operands ops;
	int rc = cli_opts_parse(ctx, &cli_retarget_spec, (void *const[]){ &a, &ra, &lo }, argc, argv, &ops);
	if (rc) return rc;
	cli_retarget_args_apply(&ra);
	const char *const *paths = ops.v;
	const char *const *clip_names = ra.clips.items;
	size_t clip_count = ra.clips.count;
	const char *name = a.name, *source_map = a.source_map, *target_map = a.target_map;
	rk_retarget_opts ro = ra.ro;
	bool json = ctx->json, drop_target = a.drop_target;
	if (name && clip_count > 1) return cli_usage(ctx, "--name needs exactly one --clip");
	int format = 0;
	if ((rc = cli_output_format(ctx, paths[2], cli_is_stdio(paths[2]) ? CLI_FORMAT_GLB : CLI_FORMAT_NONE,
			 CLI_FORMATS_GLTF, &format)))
		return rc;
	rk_error err;
	rk_scene *src = cli_load(ctx, paths[0], &lo, &rc);
	if (!src) return rc;
	rk_scene *dst = cli_load(ctx, paths[1], &lo, &rc);
	if (!dst) {
		rk_scene_free(src);
		return rc;
	}
	rk_humanoid hs, ht;
	bool valid_s = false, valid_t = false;
	if ((rc = cli_humanoid_of(ctx, src, source_map, &hs, &valid_s, &err)) != 0) goto out;
	if (!valid_s) {
		rc = cli_fail(ctx, err.code, CLI_EXIT_INPUT, paths[0], "not a humanoid: %s (fix with --source-map, see rigkit humanoid)",
			err.message);
		goto out;
	}
	if ((rc = cli_humanoid_of(ctx, dst, target_map, &ht, &valid_t, &err)) != 0) goto out;
	if (!valid_t) {
		rc = cli_fail(ctx, err.code, CLI_EXIT_INPUT, paths[1], "not a humanoid: %s (fix with --target-map, see rigkit humanoid)",
			err.message);
		goto out;
	}
	ro.source_humanoid = &hs;
	ro.target_humanoid = &ht;

	/* which source clips */
	size_t picked[CLI_RETARGET_MAX_CLIPS];
	size_t picked_count = 0;
	if (clip_count) {
		for (size_t c = 0; c < clip_count; c++) {
			const rk_anim_clip *cl = rk_scene_find_clip(src, clip_names[c]);
			if (!cl) {
				rc = cli_fail(ctx, RK_ERROR_INVALID_ARGUMENT, CLI_EXIT_INPUT, paths[0], "no clip named '%s' (see rigkit info)",
					clip_names[c]);
				goto out;
			}
			picked[picked_count++] = cl->index;
		}
	} else {
		for (size_t c = 0; c < src->clips.count && picked_count < CLI_RETARGET_MAX_CLIPS; c++) {
			const rk_anim_clip *cl = &src->clips.data[c];
			size_t tracks = 0;
			for (size_t l = 0; l < cl->layer_count; l++) tracks += cl->layers[l].track_count;
			if (tracks) picked[picked_count++] = c;
		}
	}
	if (!picked_count) {
		rc = cli_fail(ctx, RK_ERROR_INVALID_ARGUMENT, CLI_EXIT_INPUT, paths[0], "no animation clip to retarget");
		goto out;
	}
	size_t first_new = dst->clips.count;
	rk_retarget_report reports[CLI_RETARGET_MAX_CLIPS];
	for (size_t c = 0; c < picked_count; c++) {
		ro.name = name;
		const rk_anim_clip *cl = &src->clips.data[picked[c]];
		if (!rk_retarget(dst, src, cl, &ro, &reports[c], &err)) {
			cli_print_error(ctx, &err);
			rc = CLI_EXIT_INPUT;
			goto out;
		}
	}
	if (drop_target && first_new) {
		/* keep only the new clips (the list's storage belongs to the scene) */
		dst->clips.data += first_new;
		dst->clips.count -= first_new;
		for (size_t c = 0; c < dst->clips.count; c++) dst->clips.data[c].index = (uint32_t)c;
		first_new = 0;
	}
	rk_gltf_write_opts wo;
	memset(&wo, 0, sizeof(wo));
	wo.max_frames = ra.ro.max_frames;
	if ((rc = cli_write_gltf(ctx, dst, paths[2], format, &wo)) != CLI_EXIT_OK) goto out;
	if (json) {
		cli_json j;
		cli_json_document(&j, ctx);
		cli_json_object(&j, NULL);
		cli_json_string(&j, "source", paths[0]);
		cli_json_string(&j, "target", paths[1]);
		cli_json_string(&j, "output", paths[2]);
		cli_json_string(&j, "root", cli_retarget_root_name(ro.root));
		cli_json_array(&j, "clips");
		for (size_t c = 0; c < picked_count; c++) {
			const rk_retarget_report *r = &reports[c];
			cli_json_object(&j, NULL);
			cli_json_string(&j, "source_clip", src->clips.data[picked[c]].name);
			cli_json_string(&j, "clip", dst->clips.data[first_new + c].name);
			cli_json_int(&j, "mapped_bones", (long long)r->mapped_bones);
			cli_json_int(&j, "frames", (long long)r->frames);
			cli_json_int(&j, "tracks", (long long)r->tracks);
			cli_json_number(&j, "source_hips_height", r->source_hips_height);
			cli_json_number(&j, "target_hips_height", r->target_hips_height);
			cli_json_number(&j, "max_direction_error_deg", r->max_direction_error * 180.0 / 3.14159265358979323846);
			if (ro.foot_ik) cli_json_number(&j, "max_foot_miss", r->max_foot_miss);
			cli_json_close_object(&j);
		}
		cli_json_close_array(&j);
		cli_json_close_object(&j);
		rc = cli_json_end(&j);
	} else {
		/* the report goes to stderr when the GLB goes to stdout */
		FILE *report = cli_is_stdio(paths[2]) ? stderr : stdout;
		for (size_t c = 0; c < picked_count && !(report == stderr && ctx->quiet); c++) {
			const rk_retarget_report *r = &reports[c];
			fprintf(report, "%s: '%s' -> '%s': %zu bones, %zu frames, hips %.4g -> %.4g (file units), root %s, "
				"max bone direction error %.2g deg\n",
				paths[2], src->clips.data[picked[c]].name, dst->clips.data[first_new + c].name, r->mapped_bones,
				r->frames, r->source_hips_height, r->target_hips_height, cli_retarget_root_name(ro.root),
				r->max_direction_error * 180.0 / 3.14159265358979323846);
		}
	}
out:
	rk_scene_free(src);
	rk_scene_free(dst);
	return rc;
}
