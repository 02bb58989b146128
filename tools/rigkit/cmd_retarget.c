/* tools/rigkit/cmd_retarget.c - `rigkit humanoid FILE` and
 * `rigkit retarget SOURCE TARGET OUT.glb`: humanoid maps and retargeting
 * (include/rigkit/retarget.h). */
#include "cli.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

const char cli_cmd_humanoid_usage[] =
	"usage: rigkit humanoid FILE [--map FILE] [--json]\n"
	"\n"
	"Prints which node of FILE plays which humanoid bone (VRM 1.0 bone names),\n"
	"as detected from the node names and the hierarchy, one 'bone = node' line\n"
	"per mapped bone: the format --map files use (here and in `rigkit retarget`).\n"
	"Exit code 2 when the result is not a valid humanoid (a required bone missing).\n"
	"\n"
	"options:\n"
	"  --map FILE          start from the detection, then apply FILE's lines\n"
	"                      ('leftUpperArm = Bone.012'; 'bone =' unmaps; '#' comments)\n"
	"  --axes AXES, --unit-meters U   load-time conversion as in `rigkit convert`\n"
	"  --json              machine-readable output\n";

const char cli_cmd_retarget_usage[] =
	"usage: rigkit retarget SOURCE TARGET OUT.glb [options]\n"
	"\n"
	"Plays SOURCE's clip(s) on TARGET's skeleton (any humanoid to any humanoid:\n"
	"names, T/A rest poses, bone rolls, axes and units may all differ) and\n"
	"writes TARGET with the new clips (and its own) as GLB or .gltf.\n"
	"\n"
	"options:\n"
	"  --clip NAME         source clip to retarget; repeat for several\n"
	"                      (default: every source clip with tracks)\n"
	"  --name NAME         name of the new clip (one clip only; default: the source's)\n"
	"  --fps N             key rate (default: the source's frame rate, else 30)\n"
	"  --root MODE         keep (default): hips travel as the source's, scaled to\n"
	"                      the target's hips height; in-place: horizontal travel\n"
	"                      removed, vertical bob kept; lock: hips held at rest\n"
	"  --skip-fingers      leave the target's fingers at rest\n"
	"  --foot-ik           turn the legs so each foot sits where the source's does\n"
	"                      relative to the hips (planted feet stay planted)\n"
	"  --source-map FILE, --target-map FILE   bone map corrections (see rigkit humanoid)\n"
	"  --drop-target-clips write only the new clips\n"
	"  --json              print the report as JSON\n";

/* ---- map files ------------------------------------------------------------- */

/* Applies a map file to h (rk_humanoid_map_apply_file). 0 ok; prints the
 * error and returns an exit code. */
static int cli_apply_map_file(const char *path, const rk_scene *s, rk_humanoid *h)
{
	rk_error err;
	if (!rk_humanoid_map_apply_file(h, s, path, &err)) {
		if (err.location & RK_LOCATION_LINE) cli_fail("%s:%llu: %s", path, (unsigned long long)err.line, err.message);
		else cli_print_error(&err);
		return CLI_EXIT_INPUT;
	}
	return CLI_EXIT_OK;
}

/* Detection plus an optional map file; *valid tells whether the result is a
 * valid humanoid (err holds why not). */
static int cli_humanoid_of(const rk_scene *s, const char *map, rk_humanoid *h, bool *valid, rk_error *err)
{
	rk_humanoid_detect(s, h, err);
	if (map) {
		int rc = cli_apply_map_file(map, s, h);
		if (rc) return rc;
	}
	*valid = rk_humanoid_validate(h, s, err);
	return CLI_EXIT_OK;
}

int cli_cmd_humanoid(int argc, char **argv)
{
	const char *path = NULL, *map = NULL;
	bool json = false;
	rk_load_opts lo = { 0 };
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--json")) {
			json = true;
		} else if (!strcmp(a, "--map") || !strcmp(a, "--axes") || !strcmp(a, "--unit-meters")) {
			if (i + 1 >= argc) {
				cli_fail("humanoid: %s needs a value (see rigkit humanoid --help)", a);
				return CLI_EXIT_USAGE;
			}
			const char *v = argv[++i];
			if (!strcmp(a, "--map")) map = v;
			else if (cli_load_option("humanoid", a, v, &lo) < 0) return CLI_EXIT_USAGE;
		} else if (a[0] == '-' && a[1]) {
			cli_fail("humanoid: unknown option '%s' (see rigkit humanoid --help)", a);
			return CLI_EXIT_USAGE;
		} else if (!path) {
			path = a;
		} else {
			cli_fail("humanoid: one FILE expected (see rigkit humanoid --help)");
			return CLI_EXIT_USAGE;
		}
	}
	if (!path) {
		cli_fail("humanoid: FILE expected (see rigkit humanoid --help)");
		return CLI_EXIT_USAGE;
	}
	rk_error err;
	rk_scene *s = rk_load_file(path, &lo, &err);
	if (!s) {
		cli_print_error(&err);
		return cli_exit_code(&err);
	}
	rk_humanoid h;
	bool valid = false;
	int rc = cli_humanoid_of(s, map, &h, &valid, &err);
	if (rc) {
		rk_scene_free(s);
		return rc;
	}
	size_t mapped = 0;
	for (int b = 0; b < RK_HUMANOID_BONE_COUNT; b++) mapped += h.bones[b] != NULL;
	if (json) {
		cli_json j;
		cli_json_begin(&j, stdout);
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
		cli_json_end(&j);
	} else {
		printf("# %s: %zu humanoid bones mapped%s\n", path, mapped, valid ? "" : " (not a valid humanoid)");
		for (int b = 0; b < RK_HUMANOID_BONE_COUNT; b++)
			if (h.bones[b]) printf("%s = %s\n", rk_humanoid_bone_name((rk_humanoid_bone)b), h.bones[b]->name);
		if (!valid) cli_fail("%s: %s", path, err.message);
	}
	rk_scene_free(s);
	return valid ? CLI_EXIT_OK : CLI_EXIT_INPUT;
}

/* ---- retarget ----------------------------------------------------------------- */

#define CLI_RETARGET_MAX_CLIPS 256

static const char *cli_root_name(rk_retarget_root r)
{
	switch (r) {
	case RK_RETARGET_ROOT_IN_PLACE: return "in-place";
	case RK_RETARGET_ROOT_LOCK: return "lock";
	default: return "keep";
	}
}

int cli_cmd_retarget(int argc, char **argv)
{
	const char *paths[3] = { NULL, NULL, NULL };
	size_t path_count = 0;
	const char *clip_names[CLI_RETARGET_MAX_CLIPS];
	size_t clip_count = 0;
	const char *name = NULL, *source_map = NULL, *target_map = NULL;
	rk_retarget_opts ro;
	memset(&ro, 0, sizeof(ro));
	bool json = false, drop_target = false;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--json")) { json = true; continue; }
		if (!strcmp(a, "--skip-fingers")) { ro.skip_fingers = true; continue; }
		if (!strcmp(a, "--foot-ik")) { ro.foot_ik = true; continue; }
		if (!strcmp(a, "--drop-target-clips")) { drop_target = true; continue; }
		if (!strcmp(a, "--clip") || !strcmp(a, "--name") || !strcmp(a, "--fps") || !strcmp(a, "--root") ||
			!strcmp(a, "--source-map") || !strcmp(a, "--target-map")) {
			if (i + 1 >= argc) {
				cli_fail("retarget: %s needs a value (see rigkit retarget --help)", a);
				return CLI_EXIT_USAGE;
			}
			const char *v = argv[++i];
			if (!strcmp(a, "--clip")) {
				if (clip_count >= CLI_RETARGET_MAX_CLIPS) {
					cli_fail("retarget: at most %d --clip options", CLI_RETARGET_MAX_CLIPS);
					return CLI_EXIT_USAGE;
				}
				clip_names[clip_count++] = v;
			} else if (!strcmp(a, "--name")) {
				name = v;
			} else if (!strcmp(a, "--fps")) {
				char *end;
				ro.fps = strtod(v, &end);
				if (end == v || *end || !(ro.fps > 0.0) || ro.fps > 1000.0) {
					cli_fail("retarget: --fps expects a rate in (0, 1000], got '%s'", v);
					return CLI_EXIT_USAGE;
				}
			} else if (!strcmp(a, "--root")) {
				if (!strcmp(v, "keep")) ro.root = RK_RETARGET_ROOT_KEEP;
				else if (!strcmp(v, "in-place")) ro.root = RK_RETARGET_ROOT_IN_PLACE;
				else if (!strcmp(v, "lock")) ro.root = RK_RETARGET_ROOT_LOCK;
				else {
					cli_fail("retarget: --root expects keep, in-place or lock, got '%s'", v);
					return CLI_EXIT_USAGE;
				}
			} else if (!strcmp(a, "--source-map")) {
				source_map = v;
			} else {
				target_map = v;
			}
			continue;
		}
		if (a[0] == '-' && a[1]) {
			cli_fail("retarget: unknown option '%s' (see rigkit retarget --help)", a);
			return CLI_EXIT_USAGE;
		}
		if (path_count >= 3) {
			cli_fail("retarget: SOURCE TARGET OUT expected (see rigkit retarget --help)");
			return CLI_EXIT_USAGE;
		}
		paths[path_count++] = a;
	}
	if (path_count != 3) {
		cli_fail("retarget: SOURCE TARGET OUT expected (see rigkit retarget --help)");
		return CLI_EXIT_USAGE;
	}
	if (name && clip_count > 1) {
		cli_fail("retarget: --name needs exactly one --clip");
		return CLI_EXIT_USAGE;
	}
	rk_error err;
	rk_scene *src = rk_load_file(paths[0], NULL, &err);
	if (!src) {
		cli_print_error(&err);
		return cli_exit_code(&err);
	}
	rk_scene *dst = rk_load_file(paths[1], NULL, &err);
	if (!dst) {
		cli_print_error(&err);
		rk_scene_free(src);
		return cli_exit_code(&err);
	}
	int rc = CLI_EXIT_OK;
	rk_humanoid hs, ht;
	bool valid_s = false, valid_t = false;
	if ((rc = cli_humanoid_of(src, source_map, &hs, &valid_s, &err)) != 0) goto out;
	if (!valid_s) {
		cli_fail("%s: not a humanoid: %s (fix with --source-map, see rigkit humanoid)", paths[0], err.message);
		rc = CLI_EXIT_INPUT;
		goto out;
	}
	if ((rc = cli_humanoid_of(dst, target_map, &ht, &valid_t, &err)) != 0) goto out;
	if (!valid_t) {
		cli_fail("%s: not a humanoid: %s (fix with --target-map, see rigkit humanoid)", paths[1], err.message);
		rc = CLI_EXIT_INPUT;
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
				cli_fail("%s: no clip named '%s' (see rigkit info)", paths[0], clip_names[c]);
				rc = CLI_EXIT_INPUT;
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
		cli_fail("%s: no animation clip to retarget", paths[0]);
		rc = CLI_EXIT_INPUT;
		goto out;
	}
	size_t first_new = dst->clips.count;
	rk_retarget_report reports[CLI_RETARGET_MAX_CLIPS];
	for (size_t c = 0; c < picked_count; c++) {
		ro.name = name;
		const rk_anim_clip *cl = &src->clips.data[picked[c]];
		if (!rk_retarget(dst, src, cl, &ro, &reports[c], &err)) {
			cli_print_error(&err);
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
	if (!rk_gltf_write(dst, paths[2], &wo, &err)) {
		cli_print_error(&err);
		rc = cli_exit_code(&err);
		goto out;
	}
	if (json) {
		cli_json j;
		cli_json_begin(&j, stdout);
		cli_json_object(&j, NULL);
		cli_json_string(&j, "source", paths[0]);
		cli_json_string(&j, "target", paths[1]);
		cli_json_string(&j, "output", paths[2]);
		cli_json_string(&j, "root", cli_root_name(ro.root));
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
		cli_json_end(&j);
	} else {
		for (size_t c = 0; c < picked_count; c++) {
			const rk_retarget_report *r = &reports[c];
			printf("%s: '%s' -> '%s': %zu bones, %zu frames, hips %.4g -> %.4g (file units), root %s, "
				"max bone direction error %.2g deg\n",
				paths[2], src->clips.data[picked[c]].name, dst->clips.data[first_new + c].name, r->mapped_bones,
				r->frames, r->source_hips_height, r->target_hips_height, cli_root_name(ro.root),
				r->max_direction_error * 180.0 / 3.14159265358979323846);
		}
	}
out:
	rk_scene_free(src);
	rk_scene_free(dst);
	return rc;
}
