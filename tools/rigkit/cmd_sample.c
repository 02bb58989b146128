/* tools/rigkit/cmd_sample.c - `rigkit sample OUTDIR`: writes the built-in
 * sample characters (rigkit/demo.h) as GLB files. */
#include "cli.h"

#include <rigkit/export.h>
#include <rigkit/demo.h>

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

static const cli_opt cli_sample_rows[] = {
	{ .name = "--z-up-armature", .kind = CLI_OPT_FLAG, .offset = offsetof(rk_demo_opts, z_up_armature),
		.help = "source.glb only: Armature also rotates -90 degrees about X,\nas Blender exports Mixamo rigs (Hips rest "
			"rotation ~90 deg)" },
};
static const cli_opt_table cli_sample_table = CLI_TABLE("options", cli_sample_rows);

const cli_spec cli_sample_spec = {
	.name = "sample",
	.usage = "usage: rigkit sample OUTDIR [--z-up-armature]\n"
		"\n"
		"Writes the built-in sample characters, generated from code (the same bytes\n"
		"on every run), as GLB files:\n"
		"  OUTDIR/source.glb  Mixamo-style character: 67 'mixamorig:' joints, T-pose,\n"
		"                     centimetres under a 0.01-scaled Armature, Mixamo-like\n"
		"                     bone rolls, clips Idle (3 s breathing loop) and Walk\n"
		"                     (1 s gait cycle, 0.9 m/s root motion along +Z)\n"
		"  OUTDIR/avatar.glb  Avaturn / Ready Player Me style avatar: 67 joints with\n"
		"                     plain names, A-pose, metres, identity bone rolls,\n"
		"                     shorter legs, longer arms, bigger head, no clips\n"
		"Both have a skinned capsule body with a checker texture and face +Z.\n"
		"OUTDIR and missing parents are created; files are replaced atomically.\n"
		"With --json: {out, files: [{path, joints, vertices, triangles, clips}]}.\n"
		"\n",
	.operands = "OUTDIR", .min_operands = 1, .max_operands = 1,
	.tables = { &cli_sample_table },
};

typedef struct cli_sample_file {
	char path[4200];
	size_t joints, vertices, triangles, clip_count;
	char clips[8][64];                 /* names of the first clips */
} cli_sample_file;

/* mkdir -p: false (errno set) when a component cannot be created or is not a directory. */
static bool cli_make_dirs(const char *path)
{
	char buf[4096];
	size_t n = strlen(path);
	if (n == 0 || n >= sizeof(buf)) {
		errno = ENAMETOOLONG;
		return false;
	}
	memcpy(buf, path, n + 1);
	for (size_t i = 1; i <= n; i++) {
		if (buf[i] != '/' && buf[i] != '\0') continue;
		char c = buf[i];
		buf[i] = '\0';
		if (mkdir(buf, 0777) != 0 && errno != EEXIST) return false;
		struct stat st;
		if (stat(buf, &st) != 0) return false;
		if (!S_ISDIR(st.st_mode)) {
			errno = ENOTDIR;
			return false;
		}
		buf[i] = c;
	}
	return true;
}

static int cli_demo_write(cli_ctx *ctx, const char *dir, const char *file, rk_demo_kind kind, const rk_demo_opts *opts,
	cli_sample_file *f)
{
	rk_error err = { 0 };
	size_t len = strlen(dir);
	bool slash = len > 0 && dir[len - 1] == '/';
	snprintf(f->path, sizeof(f->path), "%s%s%s", dir, slash ? "" : "/", file);
	rk_scene *scene = rk_demo_scene(kind, opts, &err);
	if (!scene) return cli_print_error(ctx, &err);
	rk_gltf_write_stats stats = { 0 };
	rk_gltf_write_opts wo = { 0 };
	wo.stats = &stats;
	wo.force = ctx->force;
	bool ok = rk_glb_write(scene, f->path, &wo, &err);
	for (size_t i = 0; i < scene->nodes.count; i++) f->joints += scene->nodes.data[i].kind == RK_NODE_JOINT;
	f->vertices = stats.vertex_count;
	f->triangles = stats.triangle_count;
	f->clip_count = scene->clips.count;
	for (size_t i = 0; i < scene->clips.count && i < 8; i++)
		snprintf(f->clips[i], sizeof(f->clips[i]), "%s", scene->clips.data[i].name ? scene->clips.data[i].name : "");
	if (ok && !ctx->json) {
		printf("wrote %s: %zu joints, %zu vertices, %zu triangles, %zu clips", f->path, f->joints, f->vertices,
			f->triangles, scene->clips.count);
		for (size_t i = 0; i < scene->clips.count; i++)
			printf("%s%s", i ? ", " : " (", scene->clips.data[i].name);
		printf("%s\n", scene->clips.count ? ")" : "");
	}
	rk_scene_free(scene);
	if (!ok) return cli_print_error(ctx, &err);
	return CLI_EXIT_OK;
}

int cli_cmd_sample(cli_ctx *ctx, int argc, char **argv)
{
	rk_demo_opts opts = { 0 };
	cli_operands ops;
	int rc = cli_opts_parse(ctx, &cli_sample_spec, (void *const[]){ &opts }, argc, argv, &ops);
	if (rc) return rc;
	const char *dir = ops.v[0];
	if (!cli_make_dirs(dir))
		return cli_fail(ctx, RK_ERROR_OUTPUT, CLI_EXIT_OUTPUT, dir, "cannot create the output folder: %s", strerror(errno));
	static const char *const names[2] = { "source.glb", "avatar.glb" };
	static const rk_demo_kind kinds[2] = { RK_DEMO_MIXAMO_SOURCE, RK_DEMO_AVATAR };
	cli_sample_file files[2];
	memset(files, 0, sizeof(files));
	for (int k = 0; k < 2; k++)
		if ((rc = cli_demo_write(ctx, dir, names[k], kinds[k], &opts, &files[k])) != CLI_EXIT_OK) return rc;
	if (ctx->json) {
		cli_json j;
		cli_json_document(&j, ctx);
		cli_json_object(&j, NULL);
		cli_json_string(&j, "out", dir);
		cli_json_array(&j, "files");
		for (int k = 0; k < 2; k++) {
			cli_json_object(&j, NULL);
			cli_json_string(&j, "path", files[k].path);
			cli_json_int(&j, "joints", (long long)files[k].joints);
			cli_json_int(&j, "vertices", (long long)files[k].vertices);
			cli_json_int(&j, "triangles", (long long)files[k].triangles);
			cli_json_array(&j, "clips");
			for (size_t c = 0; c < files[k].clip_count && c < 8; c++) cli_json_string(&j, NULL, files[k].clips[c]);
			cli_json_close_array(&j);
			cli_json_close_object(&j);
		}
		cli_json_close_array(&j);
		cli_json_close_object(&j);
		return cli_json_end(&j);
	}
	return CLI_EXIT_OK;
}
