/* tools/rigkit/cmd_pose.c - `rigkit pose FILE`: evaluated node world transforms at given times. */
#include "cli.h"

#include <rigkit/anim.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define CLI_POSE_MAX_TIMES 4096

typedef struct cli_pose_args {
	const char *clip;
	cli_list times;
	long samples;
	bool joints, no_extrapolation;
} cli_pose_args;

static const cli_opt cli_pose_rows[] = {
	{ .name = "--clip", .kind = CLI_OPT_STRING, .offset = offsetof(cli_pose_args, clip), .metavar = "NAME",
		.help = "animation clip to evaluate (default: the first with tracks)" },
	{ .name = "--time", .kind = CLI_OPT_LIST, .offset = offsetof(cli_pose_args, times), .item = CLI_OPT_DOUBLE,
		.max_count = CLI_POSE_MAX_TIMES, .expects = "seconds", .metavar = "T",
		.help = "absolute file time in seconds; repeat for several" },
	{ .name = "--samples", .kind = CLI_OPT_INT, .offset = offsetof(cli_pose_args, samples), .min = 1,
		.max = CLI_POSE_MAX_TIMES, .metavar = "N", .help = "N times evenly spread over the clip (both ends included)" },
	{ .name = "--joints", .kind = CLI_OPT_FLAG, .offset = offsetof(cli_pose_args, joints),
		.help = "only skeleton joints" },
	{ .name = "--no-extrapolation", .kind = CLI_OPT_FLAG, .offset = offsetof(cli_pose_args, no_extrapolation),
		.help = "hold each curve's first/last value outside its keys" },
};
static const cli_opt_table cli_pose_table = CLI_TABLE("options", cli_pose_rows);

const cli_spec cli_pose_spec = {
	.name = "pose",
	.usage = "usage: rigkit pose FILE [--clip NAME] [--time T]... [--samples N] [--joints] [--json]\n"
		"\n"
		"Evaluates FILE's nodes ('-' reads stdin) and prints their world positions\n"
		"(and with --json also world rotations and node_to_world matrices).\n"
		"\n",
	.footer = "Without --time/--samples the clip's start time (or the static scene) is used.\n",
	.operands = "FILE", .min_operands = 1, .max_operands = 1,
	.tables = { &cli_pose_table, &cli_load_table },
};

int cli_cmd_pose(cli_ctx *ctx, int argc, char **argv)
{
	cli_pose_args a = { 0 };
	rk_load_opts lo = { 0 };
	cli_operands ops;
	int rc = cli_opts_parse(ctx, &cli_pose_spec, (void *const[]){ &a, &lo }, argc, argv, &ops);
	if (rc) return rc;
	const char *path = ops.v[0], *clip_name = a.clip;
	size_t time_count = 0;
	long samples = a.samples;
	bool json = ctx->json, joints_only = a.joints, no_extra = a.no_extrapolation;
	rk_scene *s = cli_load(ctx, path, &lo, &rc);
	if (!s) return rc;
	double *times = (double *)malloc((a.times.count + (size_t)samples + 1) * sizeof(double));
	if (!times) {
		rk_scene_free(s);
		return cli_fail(ctx, RK_ERROR_OUT_OF_MEMORY, CLI_EXIT_INPUT, NULL, "pose: out of memory");
	}
	for (size_t k = 0; k < a.times.count; k++) times[time_count++] = strtod(a.times.items[k], NULL);
	rk_error err;
	const rk_anim_clip *clip = NULL;
	if (clip_name) {
		clip = cli_find_clip(ctx, s, path, clip_name, &rc);
		if (!clip) {
			free(times);
			rk_scene_free(s);
			return rc;
		}
	} else {
		clip = cli_default_clip(s);
	}
	if (samples > 0) {
		double t0 = clip ? clip->time_begin : 0.0, t1 = clip ? clip->time_end : 0.0;
		for (long k = 0; k < samples; k++)
			times[time_count++] = samples == 1 ? t0 : t0 + (t1 - t0) * (double)k / (double)(samples - 1);
	}
	if (time_count == 0) times[time_count++] = clip ? clip->time_begin : 0.0;

	size_t size = rk_pose_memory_size(s);
	void *mem = malloc(size ? size : 1);
	rk_pose pose;
	if (!mem || !rk_pose_init(&pose, s, mem, size)) {
		free(mem);
		free(times);
		rk_scene_free(s);
		return cli_fail(ctx, RK_ERROR_OUT_OF_MEMORY, CLI_EXIT_INPUT, NULL, "pose: out of memory");
	}
	/* the job is checked once before anything is printed (only the time
	 * changes between samples), so --json never prints half a document */
	rk_pose_eval_job check = { 0 };
	check.scene = s;
	check.clip = clip;
	check.time = times[0];
	check.pose = &pose;
	if (!rk_pose_eval_validate(&check, &err)) {
		cli_print_error(ctx, &err);
		rc = CLI_EXIT_INPUT;
		free(mem);
		free(times);
		rk_scene_free(s);
		return rc;
	}
	cli_json j;
	if (json) {
		cli_json_document(&j, ctx);
		cli_json_object(&j, NULL);
		cli_json_string(&j, "file", path);
		if (clip) cli_json_string(&j, "clip", clip->name);
		else cli_json_null(&j, "clip");
		cli_json_array(&j, "samples");
	}
	for (size_t k = 0; k < time_count; k++) {
		rk_pose_eval_job job = { 0 };
		job.scene = s;
		job.clip = clip;
		job.time = times[k];
		job.no_extrapolation = no_extra;
		job.pose = &pose;
		if (!rk_pose_eval_validate(&job, &err) || !rk_pose_eval_run(&job)) {
			if (err.code == RK_OK) {
				rc = cli_fail(ctx, RK_ERROR_CORRUPT, CLI_EXIT_INPUT, path, "the pose at %g s cannot be evaluated", times[k]);
			} else {
				cli_print_error(ctx, &err);
				rc = CLI_EXIT_INPUT;
			}
			break;
		}
		/* never print nan/inf: finite keys can still overflow (1e300 x a scale) */
		size_t bad = 0;
		for (size_t i = 1; i < s->nodes.count && !bad; i++)
			for (int c = 0; c < 16; c++)
				if (!isfinite(pose.node_to_world[i].m[c])) bad = i;
		if (bad) {
			rc = cli_fail(ctx, RK_ERROR_CORRUPT, CLI_EXIT_INPUT, path,
				"the pose at %g s gives node \"%s\" a non-finite transform", times[k], s->nodes.data[bad].name);
			break;
		}
		if (json) {
			cli_json_object(&j, NULL);
			cli_json_number(&j, "time", times[k]);
			cli_json_object(&j, "nodes");
		} else {
			printf("time %.6g\n", times[k]);
		}
		for (size_t i = 1; i < s->nodes.count; i++) {
			const rk_node *n = &s->nodes.data[i];
			if (joints_only && n->kind != RK_NODE_JOINT) continue;
			rk_mat4 m = pose.node_to_world[i];
			rk_vec3 p = rk_mat4_get_translation(m);
			if (json) {
				cli_json_object(&j, n->name);
				cli_json_vec3(&j, "position", p);
				cli_json_quat(&j, "rotation", rk_mat4_decompose(m).rotation);
				cli_json_mat4(&j, "node_to_world", m);
				cli_json_close_object(&j);
			} else {
				printf("  %-40s %12.6f %12.6f %12.6f\n", cli_text(ctx, n->name), p.x, p.y, p.z);
			}
		}
		if (json) {
			cli_json_close_object(&j);
			cli_json_close_object(&j);
		}
	}
	if (json) {
		cli_json_close_array(&j);
		cli_json_close_object(&j);
		int jrc = cli_json_end(&j);
		if (rc == CLI_EXIT_OK) rc = jrc;
	}
	free(mem);
	free(times);
	rk_scene_free(s);
	return rc;
}
