/* tools/rigkit/cmd_retarget.c - `rigkit humanoid FILE` and
 * `rigkit retarget SOURCE TARGET OUT.glb`: humanoid maps and retargeting
 * (include/rigkit/retarget.h). */
#include "cli.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct cli_humanoid_args {
	const char *map;
	int rest;
	bool explain;
} cli_humanoid_args;

static const cli_opt cli_humanoid_rows[] = {
	{ .name = "--map", .kind = CLI_OPT_STRING, .offset = offsetof(cli_humanoid_args, map), .metavar = "FILE",
		.help = "start from the detection, then apply FILE's lines\n('leftUpperArm = Bone.012'; 'bone =' unmaps; '#' "
			"comments)" },
	{ .name = "--explain", .kind = CLI_OPT_FLAG, .offset = offsetof(cli_humanoid_args, explain),
		.help = "say why each bone was chosen (declared, name,\nhierarchy, map file) after its line" },
};
static const cli_opt_table cli_humanoid_table = CLI_TABLE("options", cli_humanoid_rows);

const cli_spec cli_humanoid_spec = {
	.name = "humanoid",
	.usage = "usage: rigkit humanoid FILE [--map FILE] [--explain] [--rest MODE] [--json]\n"
		"\n"
		"Prints which node of FILE ('-' reads stdin) plays which humanoid bone (VRM\n"
		"1.0 bone names), as detected from the node names and the hierarchy, one\n"
		"'bone = node' line per mapped bone: the format --map files use (here and in\n"
		"`rigkit retarget`). --explain adds a '# reason: why' comment to each line\n"
		"(the output stays a valid map file).\n"
		"Exit code 2 when the result is not a valid humanoid (a required bone missing).\n"
		"\n",
	.operands = "FILE", .min_operands = 1, .max_operands = 1,
	.footer = "The '# rest' line tells which rest pose the skeleton is measured in (--rest;\n"
		"docs/retarget.md) and its hips height above the feet in file units.\n",
	.tables = { &cli_humanoid_table, &cli_rest_table, &cli_load_table },
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
	.usage = "usage: rigkit retarget SOURCE TARGET OUT.{glb,gltf,vrm,vrma,bvh} [options]\n"
		"\n"
		"Plays SOURCE's clip(s) on TARGET's skeleton (any humanoid to any humanoid:\n"
		"names, T/A rest poses, bone rolls, axes and units may all differ) and\n"
		"writes TARGET with the new clips (and its own) as GLB or .gltf, or its\n"
		"skeleton with the one new clip as BVH. SOURCE or TARGET '-' reads stdin;\n"
		"OUT '-' writes GLB to stdout. A VRM TARGET stays a VRM (OUT.vrm keeps its\n"
		"VRM extensions); OUT.vrma writes the first new clip as VRM Animation\n"
		"(TARGET's humanoid bones only; docs/vrm.md).\n"
		"Each new clip keeps the source clip's time axis (same start and end\n"
		"times; --rebase-time moves every clip to 0 in glTF output).\n"
		"\n",
	.footer = "With --json: the report (per clip: bones, frames, tracks, hips heights,\n"
		"max bone direction error, contacts: the source's contact runs in seconds and\n"
		"the contact solve's counts) as one JSON document. A contact goal out of\n"
		"reach is a warning on stderr.\n",
	.operands = "SOURCE TARGET OUT", .min_operands = 3, .max_operands = 3,
	.tables = { &cli_retarget_cmd_table, &cli_retarget_table, &cli_gltf_out_table, &cli_load_table },
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
 * valid humanoid (err holds why not); why (may be NULL) gets the reasons,
 * bones the map file changed marked RK_HUMANOID_REASON_MAP. */
static int cli_humanoid_of(cli_ctx *ctx, const rk_scene *s, const char *map, rk_humanoid *h, bool *valid,
	rk_humanoid_explanation *why, rk_error *err)
{
	rk_humanoid_detect_explained(s, h, why, err);
	rk_humanoid_check_declared(s, cli_writer_warning, ctx);
	if (map) {
		rk_humanoid detected = *h;
		int rc = cli_apply_map_file(ctx, map, s, h);
		if (rc) return rc;
		for (int b = 0; why && b < RK_HUMANOID_BONE_COUNT; b++) {
			if (h->bones[b] == detected.bones[b]) continue;
			why->reason[b] = h->bones[b] ? RK_HUMANOID_REASON_MAP : RK_HUMANOID_REASON_NONE;
			snprintf(why->text[b], sizeof(why->text[b]), "%s %s", h->bones[b] ? "set by the map file" : "unmapped by the map file", map);
		}
	}
	*valid = rk_humanoid_validate(h, s, err);
	return CLI_EXIT_OK;
}

/* The rest pose report of `rigkit humanoid` (text or JSON). */
static void cli_rest_print(const rk_character_frame *cf, bool have_frame, rk_rest_mode asked)
{
	const rk_rest_report *r = &cf->rest;
	printf("# rest: %s pose (--rest %s)", r->used == RK_REST_BIND ? "bind" : "stored", rk_rest_mode_name(asked));
	bool differs = r->max_angle > 1e-9 || r->max_distance > 1e-9 * (r->extent > 1.0 ? r->extent : 1.0);
	if (r->joints_bound && differs)
		printf(", stored vs bind: up to %.3g deg, %.3g units%s%s%s", r->max_angle * 180.0 / 3.14159265358979323846,
			r->max_distance, r->worst_node ? " at \"" : "", r->worst_node ? r->worst_node->name : "",
			r->worst_node ? "\"" : "");
	else if (r->joints_bound)
		printf(", stored = bind");
	else
		printf(", no skin binds the skeleton");
	if (r->skin_conflicts) printf(", %zu joints bound differently by two skins", r->skin_conflicts);
	if (have_frame) printf("; hips height %.6g", cf->hips_height);
	printf("\n");
}

static void cli_rest_json(cli_json *j, const rk_character_frame *cf, bool have_frame, rk_rest_mode asked)
{
	const rk_rest_report *r = &cf->rest;
	cli_json_object(j, "rest");
	cli_json_string(j, "mode", rk_rest_mode_name(asked));
	cli_json_string(j, "used", r->used == RK_REST_BIND ? "bind" : "stored");
	cli_json_int(j, "skins_used", (long long)r->skins_used);
	cli_json_int(j, "joints_bound", (long long)r->joints_bound);
	cli_json_int(j, "nodes_changed", (long long)r->nodes_changed);
	cli_json_int(j, "skin_conflicts", (long long)r->skin_conflicts);
	cli_json_number(j, "max_angle_deg", r->max_angle * 180.0 / 3.14159265358979323846);
	cli_json_number(j, "max_distance", r->max_distance);
	cli_json_string(j, "worst_node", r->worst_node ? r->worst_node->name : NULL);
	cli_json_close_object(j);
	if (have_frame) cli_json_number(j, "hips_height", cf->hips_height);
}

int cli_cmd_humanoid(cli_ctx *ctx, int argc, char **argv)
{
	cli_humanoid_args a = { 0 };
	int rest = 0;
	rk_load_opts lo = { 0 };
	cli_operands ops;
	int rc = cli_opts_parse(ctx, &cli_humanoid_spec, (void *const[]){ &a, &rest, &lo }, argc, argv, &ops);
	if (rc) return rc;
	const char *path = ops.v[0], *map = a.map;
	bool json = ctx->json;
	rk_error err;
	rk_scene *s = cli_load(ctx, path, &lo, &rc);
	if (!s) return rc;
	rk_humanoid h;
	bool valid = false;
	static rk_humanoid_explanation why;
	rc = cli_humanoid_of(ctx, s, map, &h, &valid, &why, &err);
	if (rc) {
		rk_scene_free(s);
		return rc;
	}
	size_t mapped = 0;
	for (int b = 0; b < RK_HUMANOID_BONE_COUNT; b++) mapped += h.bones[b] != NULL;
	/* the rest pose; with a valid humanoid also its character frame */
	rk_character_frame cf;
	memset(&cf, 0, sizeof(cf));
	rk_rest_opts rop;
	memset(&rop, 0, sizeof(rop));
	rop.mode = (rk_rest_mode)rest;
	rk_error ferr;
	bool have_frame = valid && rk_character_frame_eval(s, &h, rop.mode, &cf, &ferr);
	if (!have_frame && !rk_rest_pose_eval(s, &rop, NULL, NULL, &cf.rest, &ferr)) {
		cli_print_error(ctx, &ferr);
		rk_scene_free(s);
		return CLI_EXIT_INPUT;
	}
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
		if (a.explain) {
			cli_json_object(&j, "explain");
			for (int b = 0; b < RK_HUMANOID_BONE_COUNT; b++) {
				if (!h.bones[b]) continue;
				cli_json_object(&j, rk_humanoid_bone_name((rk_humanoid_bone)b));
				cli_json_string(&j, "reason", rk_humanoid_reason_name(why.reason[b]));
				cli_json_string(&j, "text", why.text[b]);
				cli_json_close_object(&j);
			}
			cli_json_close_object(&j);
		}
		rk_humanoid_twists twists;
		if (valid && rk_humanoid_find_twists(s, &h, &twists)) {
			cli_json_array(&j, "twist_joints");
			for (int g = 0; g < RK_HUMANOID_TWIST_SEGMENTS; g++)
				for (size_t i = 0; i < twists.segments[g].count; i++) {
					cli_json_object(&j, NULL);
					cli_json_string(&j, "node", twists.segments[g].joints[i]->name);
					cli_json_string(&j, "bone", rk_humanoid_bone_name(twists.segments[g].bone));
					cli_json_string(&j, "child", rk_humanoid_bone_name(twists.segments[g].child));
					cli_json_bool(&j, "in_chain", twists.segments[g].in_chain[i]);
					cli_json_close_object(&j);
				}
			cli_json_close_array(&j);
		}
		cli_rest_json(&j, &cf, have_frame, rop.mode);
		/* where each mapped bone's joint is in that rest (world, file units) */
		rk_mat4 *rw = (rk_mat4 *)malloc((s->nodes.count ? s->nodes.count : 1) * sizeof(rk_mat4));
		if (rw && rk_rest_pose_eval(s, &rop, rw, NULL, NULL, &ferr)) {
			cli_json_object(&j, "rest_joints");
			for (int b = 0; b < RK_HUMANOID_BONE_COUNT; b++) {
				if (!h.bones[b]) continue;
				rk_vec3 p = rk_mat4_get_translation(rw[h.bones[b]->index]);
				cli_json_array(&j, rk_humanoid_bone_name((rk_humanoid_bone)b));
				cli_json_number(&j, NULL, p.x);
				cli_json_number(&j, NULL, p.y);
				cli_json_number(&j, NULL, p.z);
				cli_json_close_array(&j);
			}
			cli_json_close_object(&j);
		}
		free(rw);
		cli_json_close_object(&j);
		if (cli_json_end(&j) != CLI_EXIT_OK) {
			rk_scene_free(s);
			return CLI_EXIT_OUTPUT;
		}
	} else {
		printf("# %s: %zu humanoid bones mapped%s\n", path, mapped, valid ? "" : " (not a valid humanoid)");
		cli_rest_print(&cf, have_frame, rop.mode);
		for (int b = 0; b < RK_HUMANOID_BONE_COUNT; b++) {
			if (!h.bones[b]) continue;
			printf("%s = %s", rk_humanoid_bone_name((rk_humanoid_bone)b), cli_text(ctx, h.bones[b]->name));
			if (a.explain) printf("    # %s: %s", rk_humanoid_reason_name(why.reason[b]), why.text[b]);
			printf("\n");
		}
		rk_humanoid_twists twists;
		if (valid && rk_humanoid_find_twists(s, &h, &twists)) {
			for (int g = 0; g < RK_HUMANOID_TWIST_SEGMENTS; g++) {
				const rk_humanoid_twist_segment *seg = &twists.segments[g];
				if (!seg->count) continue;
				printf("# twist joints %s -> %s:", rk_humanoid_bone_name(seg->bone), rk_humanoid_bone_name(seg->child));
				for (size_t i = 0; i < seg->count; i++)
					printf(" %s (%s)", cli_text(ctx, seg->joints[i]->name), seg->in_chain[i] ? "in chain" : "leaf");
				printf("\n");
			}
		}
		if (!valid) cli_fail(ctx, err.code, CLI_EXIT_INPUT, path, "%s", err.message);
	}
	rk_scene_free(s);
	return valid ? CLI_EXIT_OK : CLI_EXIT_INPUT;
}

/* ---- retarget ----------------------------------------------------------------- */

/* rk_retarget's warnings shown: the contact solve's goals out of reach
 * (the others, bones mapped on one side only, stay quiet as before). */
static void cli_contact_warning(void *user, const rk_warning *w)
{
	if (!strncmp(w->message, "contact solve:", 14)) cli_writer_warning(user, w);
}

/* Contact p of frame f: a floor point (rk_contact_point), then the hands
 * together, the left and the right hand on the body. */
static bool cli_contact_on(const rk_contact_frame *f, int p)
{
	if (p < RK_CONTACT_POINT_COUNT) return ((f->floor >> p) & 1u) != 0;
	if (p == RK_CONTACT_POINT_COUNT) return f->hands_touch;
	return f->hand_body[p - RK_CONTACT_POINT_COUNT - 1] >= 0;
}

/* The contact part of one clip's JSON report: the solve's counts and the
 * source's contacts as runs of [begin, end] seconds per point. */
static void cli_retarget_json_contacts(cli_json *j, const rk_retarget_opts *ro, const rk_retarget_report *r,
	const rk_scene *src, const rk_anim_clip *clip)
{
	cli_json_object(j, "contacts");
	cli_json_string(j, "mode", ro->contacts == RK_RETARGET_CONTACTS_OFF ? "off" : "on");
	cli_json_bool(j, "hand_contacts", ro->hand_contacts);
	if (ro->contacts != RK_RETARGET_CONTACTS_OFF) {
		cli_json_int(j, "solved_frames", (long long)r->solved_frames);
		cli_json_int(j, "unreached_goals", (long long)r->unreached_goals);
		cli_json_number(j, "max_contact_miss", r->max_contact_miss);
		cli_json_number(j, "max_hips_drop", r->max_hips_drop);
		cli_json_array(j, "solved_bones");
		for (int b = 0; b < RK_HUMANOID_BONE_COUNT; b++)
			if (r->solved_bones[b]) cli_json_string(j, NULL, rk_humanoid_bone_name((rk_humanoid_bone)b));
		cli_json_close_array(j);
		cli_json_object(j, "target_sole");
		for (int side = 0; side < 2; side++) {
			const rk_contact_sole *so = &r->target_sole[side];
			cli_json_object(j, side ? "right" : "left");
			cli_json_string(j, "from", so->mesh_vertices ? "mesh" : "joints");
			cli_json_int(j, "mesh_vertices", (long long)so->mesh_vertices);
			cli_json_number(j, "ankle_height", so->ankle_height);
			cli_json_number(j, "heel", so->heel);
			cli_json_number(j, "toe", so->toe);
			cli_json_close_object(j);
		}
		cli_json_close_object(j);
	}
	rk_contacts cs;
	rk_error err;
	if (rk_contacts_detect(src, clip, ro->source_humanoid, ro->rest, ro->fps, ro->contact_opts, NULL, &cs, &err)) {
		cli_json_object(j, "source");
		cli_json_number(j, "fps", cs.fps);
		for (int p = 0; p <= RK_CONTACT_POINT_COUNT + 2; p++) {
			const char *key = p < RK_CONTACT_POINT_COUNT ? rk_contact_point_name((rk_contact_point)p)
				: p == RK_CONTACT_POINT_COUNT ? "handsTogether" : p == RK_CONTACT_POINT_COUNT + 1 ? "leftHandOnBody"
				: "rightHandOnBody";
			cli_json_array(j, key);
			for (size_t k = 0; k < cs.frames; k++) {
				bool on = cli_contact_on(&cs.frame[k], p);
				if (on && (k == 0 || !cli_contact_on(&cs.frame[k - 1], p))) {
					cli_json_array(j, NULL);
					cli_json_number(j, NULL, (double)k / cs.fps);
				}
				if (on && (k + 1 == cs.frames || !cli_contact_on(&cs.frame[k + 1], p))) {
					double t = (double)k / cs.fps, d = clip->time_end - clip->time_begin;
					cli_json_number(j, NULL, t < d ? t : d);
					cli_json_close_array(j);
				}
			}
			cli_json_close_array(j);
		}
		cli_json_close_object(j);
		rk_contacts_free(&cs);
	}
	cli_json_close_object(j);
}

int cli_cmd_retarget(cli_ctx *ctx, int argc, char **argv)
{
	cli_retarget_cmd_args a = { 0 };
	cli_retarget_args ra;
	memset(&ra, 0, sizeof(ra));
	cli_gltf_out_args gout = { 0 };
	rk_load_opts lo = { 0 };
	cli_operands ops;
	int rc = cli_opts_parse(ctx, &cli_retarget_spec, (void *const[]){ &a, &ra, &gout, &lo }, argc, argv, &ops);
	if (rc) return rc;
	cli_retarget_args_apply(&ra);
	const char *const *paths = ops.v;
	const char *const *clip_names = ra.clips.items;
	size_t clip_count = ra.clips.count;
	const char *name = a.name, *source_map = a.source_map, *target_map = a.target_map;
	rk_retarget_opts ro = ra.ro;
	ro.warning = cli_contact_warning;
	ro.warning_user = ctx;
	bool json = ctx->json, drop_target = a.drop_target;
	if (name && clip_count > 1) return cli_usage(ctx, "--name needs exactly one --clip");
	int format = 0;
	if ((rc = cli_output_format(ctx, paths[2], cli_is_stdio(paths[2]) ? CLI_FORMAT_GLB : CLI_FORMAT_NONE,
			 CLI_FORMATS_GLTF | (1u << CLI_FORMAT_VRMA) | (1u << CLI_FORMAT_BVH) | (1u << CLI_FORMAT_FBX), &format)))
		return rc;
	if (ro.root == RK_RETARGET_ROOT_EXTRACT && (format == CLI_FORMAT_BVH || format == CLI_FORMAT_VRMA))
		return cli_usage(ctx, "--root extract puts the travel on a root node, which %s output does not keep: write glTF / "
			"GLB, or use --root keep", format == CLI_FORMAT_BVH ? "BVH" : "VRM Animation");
	if ((rc = cli_gltf_out_check(ctx, &gout, format == CLI_FORMAT_GLB || format == CLI_FORMAT_GLTF))) return rc;
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
	if ((rc = cli_humanoid_of(ctx, src, source_map, &hs, &valid_s, NULL, &err)) != 0) goto out;
	if (!valid_s) {
		rc = cli_fail(ctx, err.code, CLI_EXIT_INPUT, paths[0], "not a humanoid: %s (fix with --source-map, see rigkit humanoid)",
			err.message);
		goto out;
	}
	if ((rc = cli_humanoid_of(ctx, dst, target_map, &ht, &valid_t, NULL, &err)) != 0) goto out;
	if (!valid_t) {
		rc = cli_fail(ctx, err.code, CLI_EXIT_INPUT, paths[1], "not a humanoid: %s (fix with --target-map, see rigkit humanoid)",
			err.message);
		goto out;
	}
	/* --root extract onto hips that hang from the scene: a new "root" node
	 * above them carries the root motion (rk_scene_insert_parent; the map is
	 * taken again, the node array moved) */
	bool root_added = false;
	if (ro.root == RK_RETARGET_ROOT_EXTRACT && ht.bones[RK_HUMANOID_HIPS]->parent == dst->root) {
		if (!rk_scene_insert_parent(dst, ht.bones[RK_HUMANOID_HIPS], "root", &err)) {
			rc = cli_fail(ctx, err.code, CLI_EXIT_INPUT, paths[1], "cannot add a root node: %s", err.message);
			goto out;
		}
		root_added = true;
		if ((rc = cli_humanoid_of(ctx, dst, target_map, &ht, &valid_t, NULL, &err)) != 0) goto out;
		if (!valid_t) {
			rc = cli_fail(ctx, err.code, CLI_EXIT_INPUT, paths[1], "not a humanoid after adding a root node: %s",
				err.message);
			goto out;
		}
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
	if (format == CLI_FORMAT_BVH && picked_count > 1) {
		rc = cli_usage(ctx, "%s: a BVH file holds one clip and %s has %zu: pick one with --clip", paths[2], paths[0], picked_count);
		goto out;
	}
	/* --twist-weight names that are no twist joint of the target */
	rk_humanoid_twists twists;
	rk_humanoid_find_twists(dst, &ht, &twists);
	for (size_t w = 0; w < ro.twist_weight_count; w++) {
		bool hit = false;
		for (int g = 0; g < RK_HUMANOID_TWIST_SEGMENTS; g++)
			for (size_t i = 0; i < twists.segments[g].count; i++)
				hit = hit || !strcmp(twists.segments[g].joints[i]->name ? twists.segments[g].joints[i]->name : "",
					ro.twist_weights[w].node);
		if (hit) continue;
		char msg[300];
		snprintf(msg, sizeof(msg), "--twist-weight %.150s: not a twist joint of the target (ignored)", ro.twist_weights[w].node);
		rk_warning wr = { msg, UINT64_MAX, "", 1 };
		cli_writer_warning(ctx, &wr);
	}
	size_t first_new = dst->clips.count;
	rk_retarget_report reports[CLI_RETARGET_MAX_CLIPS];
	for (size_t c = 0; c < picked_count; c++) {
		ro.name = name;
		const rk_anim_clip *cl = &src->clips.data[picked[c]];
		if (!rk_retarget(dst, src, cl, &ro, &reports[c], &err)
			|| !rk_retarget_expressions(dst, &dst->clips.data[dst->clips.count - 1], src, cl,
				&(rk_retarget_opts){ .target_humanoid = &ht, .warning = cli_writer_warning, .warning_user = ctx }, NULL,
				&err)) {
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
	if (format == CLI_FORMAT_VRMA) {
		if (picked_count > 1) cli_warn(ctx, "%s: VRM Animation holds one clip: only '%s' is written", paths[2],
			dst->clips.data[first_new].name);
		if ((rc = cli_write_vrma(ctx, dst, paths[2], &ht, &dst->clips.data[first_new], 0.0, src,
			&src->clips.data[picked[0]])) != CLI_EXIT_OK) goto out;
	} else if (format == CLI_FORMAT_BVH) {
		rk_bvh_write_opts bo = { .clip = &dst->clips.data[first_new], .fps = ro.fps > 0.0 ? ro.fps : src->settings.frame_rate };
		if ((rc = cli_write_bvh(ctx, dst, paths[2], &bo)) != CLI_EXIT_OK) goto out;
	} else if (format == CLI_FORMAT_FBX) {
		rk_fbx_write_opts fo;
		memset(&fo, 0, sizeof(fo));
		if ((rc = cli_write_fbx(ctx, dst, paths[2], &fo)) != CLI_EXIT_OK) goto out;
	} else {
		rk_gltf_write_opts wo;
		memset(&wo, 0, sizeof(wo));
		wo.max_frames = ra.ro.max_frames;
		cli_gltf_out_apply(&gout, &wo);
		if ((rc = cli_write_gltf(ctx, dst, paths[2], format, &wo)) != CLI_EXIT_OK) goto out;
	}
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
			cli_json_string(&j, "source_rest", rk_rest_mode_name(r->source_rest));
			cli_json_string(&j, "target_rest", rk_rest_mode_name(r->target_rest));
			cli_json_int(&j, "rest_tracks", (long long)r->rest_tracks);
			if (ro.foot_ik) cli_json_number(&j, "max_foot_miss", r->max_foot_miss);
			cli_json_int(&j, "twist_tracks", (long long)r->twist_tracks);
			if (r->root_node) {
				cli_json_string(&j, "root_node", r->root_node->name ? r->root_node->name : "");
				cli_json_bool(&j, "root_node_added", root_added);
				cli_json_number(&j, "root_travel_hips", r->root_travel);
			}
			cli_retarget_json_contacts(&j, &ro, r, src, &src->clips.data[picked[c]]);
			cli_json_close_object(&j);
		}
		cli_json_close_array(&j);
		cli_json_compression(&j, ctx);
		cli_json_close_object(&j);
		rc = cli_json_end(&j);
	} else {
		/* the report goes to stderr when the GLB goes to stdout */
		FILE *report = cli_is_stdio(paths[2]) ? stderr : stdout;
		for (size_t c = 0; c < picked_count && !(report == stderr && ctx->quiet); c++) {
			const rk_retarget_report *r = &reports[c];
			fprintf(report, "%s: '%s' -> '%s': %zu bones, %zu frames, hips %.4g -> %.4g (file units), root %s, "
				"max bone direction error %.2g deg%s%s%s",
				paths[2], src->clips.data[picked[c]].name, dst->clips.data[first_new + c].name, r->mapped_bones,
				r->frames, r->source_hips_height, r->target_hips_height, cli_retarget_root_name(ro.root),
				r->max_direction_error * 180.0 / 3.14159265358979323846,
				r->source_rest == RK_REST_BIND ? ", source in its bind pose" : "",
				r->target_rest == RK_REST_BIND ? ", target in its bind pose" : "",
				r->target_rest == RK_REST_BIND ? " (constant tracks hold it)" : "");
			if (r->twist_tracks) fprintf(report, ", %zu twist joints", r->twist_tracks);
			if (r->root_node)
				fprintf(report, ", root motion on '%s'%s", r->root_node->name ? r->root_node->name : "",
					root_added ? " (a node added above the hips)" : "");
			fputc('\n', report);
		}
	}
out:
	rk_scene_free(src);
	rk_scene_free(dst);
	return rc;
}
