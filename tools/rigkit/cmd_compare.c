/* tools/rigkit/cmd_compare.c - `rigkit compare A B`: two clips on two
 * humanoids, bone by bone, in numbers (rk_clip_compare, rigkit/retarget.h). */
#include "cli.h"

#include <rigkit/retarget.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct cli_compare_args {
	const char *clip[2];
	bool is_static[2];
	rk_compare_opts opts;
	bool bones;
} cli_compare_args;

static const cli_opt cli_compare_rows[] = {
	{ .name = "--clip-a", .kind = CLI_OPT_STRING, .offset = offsetof(cli_compare_args, clip[0]), .metavar = "NAME",
		.help = "clip of A to compare (default: the first with tracks;\na file without clips compares its static pose)" },
	{ .name = "--clip-b", .kind = CLI_OPT_STRING, .offset = offsetof(cli_compare_args, clip[1]), .metavar = "NAME",
		.help = "clip of B" },
	{ .name = "--static-a", .kind = CLI_OPT_FLAG, .offset = offsetof(cli_compare_args, is_static[0]),
		.help = "compare A's static (rest) pose instead" },
	{ .name = "--static-b", .kind = CLI_OPT_FLAG, .offset = offsetof(cli_compare_args, is_static[1]),
		.help = "compare B's static (rest) pose instead" },
	{ .name = "--fps", .kind = CLI_OPT_DOUBLE, .offset = offsetof(cli_compare_args, opts.fps), .min = 0.0,
		.max = 10000.0, .range = CLI_MIN_OPEN, .expects = "a rate in (0, 10000]", .metavar = "N",
		.help = "sampling rate (default 30)" },
	{ .name = "--duration", .kind = CLI_OPT_DOUBLE, .offset = offsetof(cli_compare_args, opts.duration), .min = 0.0,
		.max = INFINITY, .range = CLI_MIN_OPEN, .expects = "positive seconds", .metavar = "S",
		.help = "seconds compared from each clip's start (default: the\nshorter clip; the last sample is exactly at the "
			"end)" },
	{ .name = "--bones", .kind = CLI_OPT_FLAG, .offset = offsetof(cli_compare_args, bones),
		.help = "print the per-bone table (--json always includes it)" },
};
static const cli_opt_table cli_compare_table = CLI_TABLE("options", cli_compare_rows);

const cli_spec cli_compare_spec = {
	.name = "compare",
	.usage = "usage: rigkit compare A B [--clip-a NAME | --static-a] [--clip-b NAME | --static-b]\n"
		"                          [--fps N] [--duration S] [--bones] [--json]\n"
		"\n"
		"Compares a clip of humanoid file A with a clip of humanoid file B, bone by\n"
		"bone, in each skeleton's character frame (hips height = 1, +Y up, facing\n"
		"+Z), so the files' axes, units, bone names and rest poses do not matter.\n"
		"Both clips are sampled at the same times from their starts. Per humanoid\n"
		"bone mapped in both files:\n"
		"  direction  angle between the bones' directions (towards the next mapped\n"
		"             humanoid bone), degrees\n"
		"  rotation   angle between the world rotations relative to rest, degrees\n"
		"  position   distance between the joints relative to the hips, in % of the\n"
		"             hips height\n"
		"A or B '-' reads stdin.\n"
		"\n",
	.footer = "Load options convert both files (they do not change the result). --json:\n"
		"angles in degrees, positions in hips heights.\n"
		"Exit codes: 0 ok, 1 usage, 2 bad input (unreadable file, unknown clip, not a\n"
		"humanoid).\n",
	.operands = "files A B", .min_operands = 2, .max_operands = 2,
	.tables = { &cli_compare_table, &cli_rest_table, &cli_load_table },
};

#define CLI_DEG (180.0 / 3.14159265358979323846)

typedef struct cli_compare_side {
	const char *path, *clip_name;
	bool is_static;
	rk_scene *scene;
	const rk_anim_clip *clip;
} cli_compare_side;

static int cli_compare_load(cli_ctx *ctx, cli_compare_side *s, const rk_load_opts *lo)
{
	int rc;
	s->scene = cli_load(ctx, s->path, lo, &rc);
	if (!s->scene) return rc;
	if (s->clip_name) {
		s->clip = cli_find_clip(ctx, s->scene, s->path, s->clip_name, &rc);
		if (!s->clip) return rc;
	} else if (!s->is_static) {
		s->clip = cli_default_clip(s->scene);
	}
	return CLI_EXIT_OK;
}

static double cli_compare_clip_length(const rk_anim_clip *c) { return c ? c->time_end - c->time_begin : -1.0; }

static void cli_compare_json_side(cli_json *j, const char *key, const cli_compare_side *s)
{
	cli_json_object(j, key);
	cli_json_string(j, "file", s->path);
	if (s->clip) {
		cli_json_string(j, "clip", s->clip->name);
		cli_json_number(j, "clip_duration", cli_compare_clip_length(s->clip));
	} else {
		cli_json_null(j, "clip");
	}
	cli_json_close_object(j);
}

static void cli_compare_print_side(cli_ctx *ctx, const char *label, const cli_compare_side *s)
{
	if (s->clip)
		printf("%s: %s  clip '%s' (%.6g s)\n", label, cli_text(ctx, s->path), cli_text(ctx, s->clip->name),
			cli_compare_clip_length(s->clip));
	else
		printf("%s: %s  static pose\n", label, cli_text(ctx, s->path));
}

int cli_cmd_compare(cli_ctx *ctx, int argc, char **argv)
{
	cli_compare_args a;
	memset(&a, 0, sizeof(a));
	rk_load_opts lo = { 0 };
	int rest = 0;
	cli_operands ops;
	int rc = cli_opts_parse(ctx, &cli_compare_spec, (void *const[]){ &a, &rest, &lo }, argc, argv, &ops);
	if (rc) return rc;
	cli_compare_side side[2];
	memset(side, 0, sizeof(side));
	for (int k = 0; k < 2; k++) {
		side[k].path = ops.v[k];
		side[k].clip_name = a.clip[k];
		side[k].is_static = a.is_static[k];
		if (side[k].is_static && side[k].clip_name)
			return cli_usage(ctx, "--static-%c and --clip-%c exclude each other", 'a' + k, 'a' + k);
	}
	rk_compare_opts opts = a.opts;
	opts.rest = (rk_rest_mode)rest;
	bool json = ctx->json, bones = a.bones;

	rc = cli_compare_load(ctx, &side[0], &lo);
	if (rc == CLI_EXIT_OK) rc = cli_compare_load(ctx, &side[1], &lo);
	rk_compare_result res;
	rk_error err;
	if (rc == CLI_EXIT_OK
		&& !rk_clip_compare(side[0].scene, side[0].clip, side[1].scene, side[1].clip, &opts, &res, &err)) {
		cli_print_error(ctx, &err);
		rc = err.code == RK_ERROR_LIMIT ? CLI_EXIT_USAGE : CLI_EXIT_INPUT;
	}
	if (rc != CLI_EXIT_OK) {
		rk_scene_free(side[0].scene);
		rk_scene_free(side[1].scene);
		return rc;
	}

	/* the compared span, as rk_clip_compare chose it */
	double fps = opts.fps > 0.0 ? opts.fps : 30.0;
	double la = cli_compare_clip_length(side[0].clip), lb = cli_compare_clip_length(side[1].clip);
	double duration = opts.duration;
	if (duration == 0.0) duration = la >= 0.0 && lb >= 0.0 ? (la < lb ? la : lb) : la >= 0.0 ? la : lb >= 0.0 ? lb : 0.0;
	int worst = -1;
	for (int k = 0; k < RK_HUMANOID_BONE_COUNT; k++)
		if (res.bones[k].compared && (worst < 0 || res.bones[k].max_rotation_angle > res.bones[worst].max_rotation_angle))
			worst = k;

	rc = CLI_EXIT_OK;
	if (json) {
		cli_json j;
		cli_json_document(&j, ctx);
		cli_json_object(&j, NULL);
		cli_compare_json_side(&j, "a", &side[0]);
		cli_compare_json_side(&j, "b", &side[1]);
		cli_json_number(&j, "fps", fps);
		cli_json_number(&j, "duration", duration);
		cli_json_int(&j, "frames", (long long)res.frames);
		cli_json_int(&j, "bones_compared", (long long)res.bones_compared);
		cli_json_string(&j, "a_rest", rk_rest_mode_name(res.a_rest));
		cli_json_string(&j, "b_rest", rk_rest_mode_name(res.b_rest));
		cli_json_number(&j, "max_direction_deg", res.max_direction_angle * CLI_DEG);
		cli_json_number(&j, "max_rotation_deg", res.max_rotation_angle * CLI_DEG);
		cli_json_number(&j, "max_position_hips", res.max_position_error);
		if (worst >= 0) cli_json_string(&j, "worst_bone", rk_humanoid_bone_name((rk_humanoid_bone)worst));
		else cli_json_null(&j, "worst_bone");
		if (side[0].clip && side[1].clip) {
			const rk_compare_contacts *ct = &res.contacts;
			cli_json_object(&j, "contacts");
			cli_json_int(&j, "a_contact_frames", (long long)ct->a_contact_frames);
			cli_json_int(&j, "kept_frames", (long long)ct->kept_frames);
			cli_json_number(&j, "agreement", ct->agreement);
			cli_json_number(&j, "floor_penetration_hips", ct->floor_penetration);
			cli_json_number(&j, "b_floor_penetration_any_hips", ct->b_floor_penetration_any);
			cli_json_number(&j, "a_floor_penetration_any_hips", ct->a_floor_penetration_any);
			cli_json_number(&j, "foot_slide_hips_per_s", ct->foot_slide);
			cli_json_number(&j, "mean_foot_slide_hips_per_s", ct->mean_foot_slide);
			cli_json_number(&j, "foot_slide_m_per_s", ct->foot_slide_mps);
			cli_json_number(&j, "a_foot_slide_hips_per_s", ct->a_foot_slide);
			cli_json_int(&j, "hand_contact_frames", (long long)ct->hand_contact_frames);
			cli_json_number(&j, "hand_contact_error_hips", ct->hand_contact_error);
			cli_json_close_object(&j);
		}
		cli_json_array(&j, "bones");
		for (int k = 0; k < RK_HUMANOID_BONE_COUNT; k++) {
			const rk_compare_bone *c = &res.bones[k];
			if (!c->compared) continue;
			cli_json_object(&j, NULL);
			cli_json_string(&j, "bone", rk_humanoid_bone_name((rk_humanoid_bone)k));
			cli_json_number(&j, "max_direction_deg", c->max_direction_angle * CLI_DEG);
			cli_json_number(&j, "mean_direction_deg", c->mean_direction_angle * CLI_DEG);
			cli_json_number(&j, "max_rotation_deg", c->max_rotation_angle * CLI_DEG);
			cli_json_number(&j, "mean_rotation_deg", c->mean_rotation_angle * CLI_DEG);
			cli_json_number(&j, "max_position_hips", c->max_position_error);
			cli_json_number(&j, "mean_position_hips", c->mean_position_error);
			cli_json_number(&j, "worst_time", c->worst_time);
			cli_json_close_object(&j);
		}
		cli_json_close_array(&j);
		cli_json_close_object(&j);
		rc = cli_json_end(&j);
	} else {
		cli_compare_print_side(ctx, "a", &side[0]);
		cli_compare_print_side(ctx, "b", &side[1]);
		printf("%zu frame%s at %.6g fps over %.6g s, %zu humanoid bones in both\n", res.frames,
			res.frames == 1 ? "" : "s", fps, duration, res.bones_compared);
		if (bones) {
			printf("\n%-24s %9s %9s %9s %9s %9s %8s\n", "bone", "dir max", "dir mean", "rot max", "rot mean", "pos max",
				"worst t");
			printf("%-24s %9s %9s %9s %9s %9s %8s\n", "", "deg", "deg", "deg", "deg", "% hips", "s");
			for (int k = 0; k < RK_HUMANOID_BONE_COUNT; k++) {
				const rk_compare_bone *c = &res.bones[k];
				if (!c->compared) continue;
				printf("%-24s %9.2f %9.2f %9.2f %9.2f %9.2f %8.3f\n", rk_humanoid_bone_name((rk_humanoid_bone)k),
					c->max_direction_angle * CLI_DEG, c->mean_direction_angle * CLI_DEG, c->max_rotation_angle * CLI_DEG,
					c->mean_rotation_angle * CLI_DEG, c->max_position_error * 100.0, c->worst_time);
			}
			printf("\n");
		}
		printf("max direction %.2f deg, max rotation %.2f deg, max position %.2f%% of hips height",
			res.max_direction_angle * CLI_DEG, res.max_rotation_angle * CLI_DEG, res.max_position_error * 100.0);
		if (worst >= 0 && res.bones[worst].max_rotation_angle * CLI_DEG >= 0.005)
			printf(" (largest rotation: %s, %.2f deg at %.3f s)", rk_humanoid_bone_name((rk_humanoid_bone)worst),
				res.bones[worst].max_rotation_angle * CLI_DEG, res.bones[worst].worst_time);
		printf("\n");
		if (side[0].clip && side[1].clip) {
			const rk_compare_contacts *ct = &res.contacts;
			printf("contacts (a = source): %zu foot/toe contact frames in a, %.1f%% kept in b; floor penetration %.2f%% "
				"of hips height at a's contacts (%.2f%% any frame; a: %.2f%%); planted-foot slide max %.4f hips heights/s "
				"(%.4f m/s; a: %.4f); %zu hand contact frames, hand contact error %.2f%% of hips height\n",
				ct->a_contact_frames, ct->agreement * 100.0, ct->floor_penetration * 100.0,
				ct->b_floor_penetration_any * 100.0, ct->a_floor_penetration_any * 100.0, ct->foot_slide,
				ct->foot_slide_mps, ct->a_foot_slide, ct->hand_contact_frames, ct->hand_contact_error * 100.0);
		}
	}
	rk_scene_free(side[0].scene);
	rk_scene_free(side[1].scene);
	return rc;
}
