/* tools/rigkit/cmd_sample.c - `rigkit sample OUTDIR`: writes the built-in
 * sample characters (rigkit/demo.h) as GLB files. */
#include "cli.h"

#include <rigkit/export.h>
#include <rigkit/demo.h>

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

const char cli_cmd_sample_usage[] =
	"usage: rigkit sample OUTDIR [--z-up-armature]\n"
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
	"\n"
	"options:\n"
	"  --z-up-armature   source.glb only: Armature also rotates -90 degrees about X,\n"
	"                    as Blender exports Mixamo rigs (Hips rest rotation ~90 deg)\n";

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

static int cli_demo_write(const char *dir, const char *file, rk_demo_kind kind, const rk_demo_opts *opts)
{
	char path[4200];
	rk_error err = { 0 };
	size_t len = strlen(dir);
	bool slash = len > 0 && dir[len - 1] == '/';
	snprintf(path, sizeof(path), "%s%s%s", dir, slash ? "" : "/", file);
	rk_scene *scene = rk_demo_scene(kind, opts, &err);
	if (!scene) {
		cli_print_error(&err);
		return cli_exit_code(&err);
	}
	rk_gltf_write_stats stats = { 0 };
	rk_gltf_write_opts wo = { 0 };
	wo.stats = &stats;
	bool ok = rk_glb_write(scene, path, &wo, &err);
	size_t joints = 0;
	for (size_t i = 0; i < scene->nodes.count; i++) joints += scene->nodes.data[i].kind == RK_NODE_JOINT;
	if (ok) {
		printf("wrote %s: %zu joints, %zu vertices, %zu triangles, %zu clips", path, joints, stats.vertex_count,
			stats.triangle_count, scene->clips.count);
		for (size_t i = 0; i < scene->clips.count; i++)
			printf("%s%s", i ? ", " : " (", scene->clips.data[i].name);
		printf("%s\n", scene->clips.count ? ")" : "");
	}
	rk_scene_free(scene);
	if (!ok) {
		cli_print_error(&err);
		return cli_exit_code(&err);
	}
	return CLI_EXIT_OK;
}

int cli_cmd_sample(int argc, char **argv)
{
	const char *dir = NULL;
	rk_demo_opts opts = { 0 };
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--z-up-armature")) {
			opts.z_up_armature = true;
		} else if (a[0] == '-' && a[1] != '\0') {
			cli_fail("sample: unknown option '%s' (see rigkit sample --help)", a);
			return CLI_EXIT_USAGE;
		} else if (!dir) {
			dir = a;
		} else {
			cli_fail("sample: expected one OUTDIR, got '%s' and '%s'", dir, a);
			return CLI_EXIT_USAGE;
		}
	}
	if (!dir) {
		cli_fail("sample: missing OUTDIR (usage: rigkit sample OUTDIR)");
		return CLI_EXIT_USAGE;
	}
	if (!cli_make_dirs(dir)) {
		cli_fail("%s: cannot create the output folder: %s", dir, strerror(errno));
		return CLI_EXIT_OUTPUT;
	}
	int rc = cli_demo_write(dir, "source.glb", RK_DEMO_MIXAMO_SOURCE, &opts);
	if (rc != CLI_EXIT_OK) return rc;
	return cli_demo_write(dir, "avatar.glb", RK_DEMO_AVATAR, &opts);
}
