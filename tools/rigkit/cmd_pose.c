/* tools/rigkit/cmd_pose.c - `rigkit pose FILE`: evaluated node world transforms at given times. */
#include "cli.h"

#include <rigkit/anim.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

const char cli_cmd_pose_usage[] =
	"usage: rigkit pose FILE [--clip NAME] [--time T]... [--samples N] [--joints] [--json]\n"
	"\n"
	"Evaluates FILE's nodes and prints their world positions (and with --json\n"
	"also world rotations and node_to_world matrices).\n"
	"\n"
	"options:\n"
	"  --clip NAME         animation clip to evaluate (default: the first with tracks)\n"
	"  --time T            absolute file time in seconds; repeat for several\n"
	"  --samples N         N times evenly spread over the clip (both ends included)\n"
	"  --joints            only skeleton joints\n"
	"  --no-extrapolation  hold each curve's first/last value outside its keys\n"
	"  --axes AXES, --unit-meters U   load-time conversion as in `rigkit convert`\n"
	"  --json              machine-readable output\n"
	"Without --time/--samples the clip's start time (or the static scene) is used.\n";

#define CLI_POSE_MAX_TIMES 4096

int cli_cmd_pose(int argc, char **argv)
{
	const char *path = NULL, *clip_name = NULL;
	static double times[CLI_POSE_MAX_TIMES];
	size_t time_count = 0;
	long samples = 0;
	bool json = false, joints_only = false, no_extra = false;
	rk_load_opts lo = { 0 };
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		char *end;
		if (!strcmp(a, "--json")) { json = true; continue; }
		if (!strcmp(a, "--joints")) { joints_only = true; continue; }
		if (!strcmp(a, "--no-extrapolation")) { no_extra = true; continue; }
		if (!strcmp(a, "--clip") || !strcmp(a, "--time") || !strcmp(a, "--samples") || !strcmp(a, "--axes")
			|| !strcmp(a, "--unit-meters")) {
			if (i + 1 >= argc) {
				cli_fail("pose: %s needs a value (see rigkit pose --help)", a);
				return CLI_EXIT_USAGE;
			}
			const char *v = argv[++i];
			if (!strcmp(a, "--clip")) {
				clip_name = v;
			} else if (!strcmp(a, "--time")) {
				double t = strtod(v, &end);
				if (end == v || *end || !isfinite(t) || time_count >= CLI_POSE_MAX_TIMES) {
					cli_fail("pose: --time expects seconds (at most %d times), got '%s'", CLI_POSE_MAX_TIMES, v);
					return CLI_EXIT_USAGE;
				}
				times[time_count++] = t;
			} else if (!strcmp(a, "--samples")) {
				samples = strtol(v, &end, 10);
				if (end == v || *end || samples < 1 || samples > CLI_POSE_MAX_TIMES) {
					cli_fail("pose: --samples expects 1..%d, got '%s'", CLI_POSE_MAX_TIMES, v);
					return CLI_EXIT_USAGE;
				}
			} else if (cli_load_option("pose", a, v, &lo) < 0) {
				return CLI_EXIT_USAGE;
			}
			continue;
		}
		if (a[0] == '-' && a[1]) {
			cli_fail("pose: unknown option '%s' (see rigkit pose --help)", a);
			return CLI_EXIT_USAGE;
		}
		if (path) {
			cli_fail("pose: one FILE expected (see rigkit pose --help)");
			return CLI_EXIT_USAGE;
		}
		path = a;
	}
	if (!path) {
		cli_fail("pose: missing FILE (see rigkit pose --help)");
		return CLI_EXIT_USAGE;
	}
	rk_error err;
	rk_scene *s = rk_load_file(path, &lo, &err);
	if (!s) {
		cli_print_error(&err);
		return cli_exit_code(&err);
	}
	const rk_anim_clip *clip = NULL;
	if (clip_name) {
		clip = rk_scene_find_clip(s, clip_name);
		if (!clip) {
			cli_fail("%s: no animation clip named '%s' (see rigkit info)", path, clip_name);
			rk_scene_free(s);
			return CLI_EXIT_INPUT;
		}
	} else {
		clip = cli_default_clip(s);
	}
	if (samples > 0) {
		double t0 = clip ? clip->time_begin : 0.0, t1 = clip ? clip->time_end : 0.0;
		for (long k = 0; k < samples && time_count < CLI_POSE_MAX_TIMES; k++)
			times[time_count++] = samples == 1 ? t0 : t0 + (t1 - t0) * (double)k / (double)(samples - 1);
	}
	if (time_count == 0) times[time_count++] = clip ? clip->time_begin : 0.0;

	size_t size = rk_pose_memory_size(s);
	void *mem = malloc(size ? size : 1);
	rk_pose pose;
	if (!mem || !rk_pose_init(&pose, s, mem, size)) {
		free(mem);
		rk_scene_free(s);
		cli_fail("pose: out of memory");
		return CLI_EXIT_INPUT;
	}
	cli_json j;
	if (json) {
		cli_json_begin(&j, stdout);
		cli_json_object(&j, NULL);
		cli_json_string(&j, "file", path);
		if (clip) cli_json_string(&j, "clip", clip->name);
		else cli_json_null(&j, "clip");
		cli_json_array(&j, "samples");
	}
	int rc = CLI_EXIT_OK;
	for (size_t k = 0; k < time_count; k++) {
		rk_pose_eval_job job = { 0 };
		job.scene = s;
		job.clip = clip;
		job.time = times[k];
		job.no_extrapolation = no_extra;
		job.pose = &pose;
		if (!rk_pose_eval_validate(&job, &err) || !rk_pose_eval_run(&job)) {
			cli_print_error(&err);
			rc = CLI_EXIT_INPUT;
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
				printf("  %-40s %12.6f %12.6f %12.6f\n", n->name, p.x, p.y, p.z);
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
		cli_json_end(&j);
	}
	free(mem);
	rk_scene_free(s);
	return rc;
}
