/*
 * bench/bench_retarget.c - retargeting speed with rigkit (rk_retarget).
 *
 * usage: bench_retarget [-n RUNS] [SOURCE CLIP TARGET]...
 *
 * For each (SOURCE, CLIP, TARGET) triple, after one untimed warm-up run,
 * the median of RUNS (default 9) of (CPU time: the thread's for the
 * rk_retarget rows, the process's end to end - wall time follows the other
 * jobs on a shared machine):
 *   retarget    rk_retarget() alone: the source scene is loaded once; every
 *               run gets a freshly loaded target scene (loaded outside the
 *               timed region: rk_retarget adds a clip to the target and its
 *               clip array moves). Humanoid detection of both skeletons is
 *               part of the call (opts.source_humanoid/target_humanoid
 *               NULL), keys at the source's frame rate (opts.fps 0), root
 *               motion kept, no foot IK, no report (report NULL).
 *   with report the same with a rk_retarget_report, as `rigkit retarget`
 *               passes: rk_retarget then also measures the result (source
 *               and new clip evaluated again at every frame for
 *               max_direction_error), which adds 1.4-1.5 times the
 *               retarget's own time on the default pairs.
 *   end-to-end  rk_load_file(SOURCE) + rk_load_file(TARGET) + rk_retarget
 *               (no report) + rk_gltf_write_memory (the whole GLB in
 *               memory, no disk write) + freeing everything.
 * The word "sample" as SOURCE is the built-in RK_DEMO_MIXAMO_SOURCE and as
 * TARGET RK_DEMO_AVATAR (rigkit/demo.h); their end-to-end run loads the
 * GLB bytes `rigkit sample` writes (made once, untimed) with
 * rk_load_memory. CLIP "" = the source's first clip with tracks.
 *
 * Without triples: sample Walk -> sample, then, when SHARED/assets exists
 * (SHARED = $RIGKIT_SHARED_DIR, else the build's RK_SHARED_DIR),
 * ybot@kick.fbx (its only clip) -> readyplayer.me.glb,
 * Xbot.glb "walk" -> readyplayer.me.glb and Soldier.glb "Walk" ->
 * readyplayer.me.glb.
 *
 * Prints one line per triple:
 *   rigkit-retarget SOURCE CLIP TARGET FRAMES BONES TRACKS RETARGET_S
 *     END_TO_END_S WITH_REPORT_S BONE_FRAMES_PER_S
 * (BONES = humanoid bones mapped in both skeletons, TRACKS = tracks of the
 * new clip, BONE_FRAMES_PER_S = BONES * FRAMES / RETARGET_S).
 * scripts/bench.sh runs this beside bench/peer_three_retarget.mjs (three.js
 * SkeletonUtils.retargetClip) and docs/benchmarks.md records the results.
 */
#include "bench_common.h"

#include <rigkit/rigkit.h>

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

typedef struct side {
	const char *path;                /* file, or NULL for a sample */
	rk_demo_kind kind;
	void *glb;                       /* sample: the GLB bytes (rk_gltf_write_memory) */
	size_t glb_size;
} side;

static void print_err(const char *what, const rk_error *err)
{
	char buf[1024];
	rk_error_format(buf, sizeof(buf), err);
	fprintf(stderr, "bench_retarget: %s: %s\n", what, buf);
}

static bool side_init(side *s, const char *arg, rk_demo_kind kind)
{
	memset(s, 0, sizeof(*s));
	if (strcmp(arg, "sample") != 0) {
		s->path = arg;
		return true;
	}
	s->kind = kind;
	rk_error err;
	rk_scene *scene = rk_demo_scene(kind, NULL, &err);
	if (!scene) {
		print_err(rk_demo_kind_name(kind), &err);
		return false;
	}
	bool ok = rk_gltf_write_memory(scene, NULL, &s->glb, &s->glb_size, &err);
	if (!ok) print_err(rk_demo_kind_name(kind), &err);
	rk_scene_free(scene);
	return ok;
}

static void side_free(side *s)
{
	rk_gltf_memory_free(s->glb);
	s->glb = NULL;
}

static const char *side_name(const side *s)
{
	return s->path ? s->path : s->kind == RK_DEMO_AVATAR ? "sample:avatar" : "sample:mixamo_source";
}

/* The scene for the timed-alone runs: a file load or the sample itself. */
static rk_scene *side_scene(const side *s, rk_error *err)
{
	return s->path ? rk_load_file(s->path, NULL, err) : rk_demo_scene(s->kind, NULL, err);
}

/* The end-to-end load: the file, or the sample's GLB bytes. */
static rk_scene *side_load(const side *s, rk_error *err)
{
	return s->path ? rk_load_file(s->path, NULL, err) : rk_load_memory(s->glb, s->glb_size, NULL, err);
}

static const rk_anim_clip *pick_clip(const rk_scene *scene, const char *name)
{
	if (name && *name) return rk_scene_find_clip(scene, name);
	for (size_t c = 0; c < scene->clips.count; c++) {
		const rk_anim_clip *cl = &scene->clips.data[c];
		for (size_t l = 0; l < cl->layer_count; l++)
			if (cl->layers[l].track_count) return cl;
	}
	return NULL;
}

/* One end-to-end run; false (message printed) on failure. */
static bool end_to_end(const side *src_side, const char *clip_name, const side *dst_side, size_t *glb_bytes)
{
	rk_error err;
	rk_scene *src = side_load(src_side, &err);
	if (!src) {
		print_err(side_name(src_side), &err);
		return false;
	}
	rk_scene *dst = side_load(dst_side, &err);
	if (!dst) {
		print_err(side_name(dst_side), &err);
		rk_scene_free(src);
		return false;
	}
	bool ok = false;
	const rk_anim_clip *clip = pick_clip(src, clip_name);
	void *data = NULL;
	size_t size = 0;
	if (!clip)
		fprintf(stderr, "bench_retarget: %s: no clip '%s'\n", side_name(src_side), clip_name);
	else if (!rk_retarget(dst, src, clip, NULL, NULL, &err))
		print_err("rk_retarget", &err);
	else if (!rk_gltf_write_memory(dst, NULL, &data, &size, &err))
		print_err("rk_gltf_write_memory", &err);
	else
		ok = true;
	rk_gltf_memory_free(data);
	rk_scene_free(dst);
	rk_scene_free(src);
	*glb_bytes = size;
	return ok;
}

static int bench_pair(const char *src_arg, const char *clip_name, const char *dst_arg, int runs, double *t,
	double *t2, double *t3)
{
	side ss, ds;
	if (!side_init(&ss, src_arg, RK_DEMO_MIXAMO_SOURCE)) return 1;
	if (!side_init(&ds, dst_arg, RK_DEMO_AVATAR)) {
		side_free(&ss);
		return 1;
	}
	int status = 1;
	rk_error err;
	rk_scene *src = side_scene(&ss, &err);
	const rk_anim_clip *clip = NULL;
	rk_retarget_report rep;
	memset(&rep, 0, sizeof(rep));
	size_t glb_bytes = 0;
	if (!src) {
		print_err(side_name(&ss), &err);
		goto out;
	}
	clip = pick_clip(src, clip_name);
	if (!clip) {
		fprintf(stderr, "bench_retarget: %s: no clip '%s'\n", side_name(&ss), clip_name);
		goto out;
	}
	/* rk_retarget alone, without (pass 0) and with (pass 1) a report; run -1
	 * warms up */
	for (int pass = 0; pass < 2; pass++) {
		for (int r = -1; r < runs; r++) {
			rk_scene *dst = side_scene(&ds, &err);
			if (!dst) {
				print_err(side_name(&ds), &err);
				goto out;
			}
			double t0 = bench_cpu_now();
			const rk_anim_clip *res = rk_retarget(dst, src, clip, NULL, pass ? &rep : NULL, &err);
			double t1 = bench_cpu_now();
			rk_scene_free(dst);
			if (!res) {
				print_err("rk_retarget", &err);
				goto out;
			}
			if (r >= 0) (pass ? t3 : t)[r] = t1 - t0;
		}
	}
	/* end to end; run -1 warms up */
	for (int r = -1; r < runs; r++) {
		double t0 = bench_proc_cpu_now();
		bool ok = end_to_end(&ss, clip_name, &ds, &glb_bytes);
		double t1 = bench_proc_cpu_now();
		if (!ok) goto out;
		if (r >= 0) t2[r] = t1 - t0;
	}
	double med = bench_median(t, runs), med2 = bench_median(t2, runs), med3 = bench_median(t3, runs);
	printf("rigkit-retarget %s %s %s %zu %zu %zu %.6f %.6f %.6f %.0f\n", side_name(&ss),
		clip->name && *clip->name ? clip->name : "-", side_name(&ds), rep.frames, rep.mapped_bones, rep.tracks, med,
		med2, med3, (double)rep.mapped_bones * (double)rep.frames / med);
	fflush(stdout);
	status = 0;
out:
	rk_scene_free(src);
	side_free(&ds);
	side_free(&ss);
	return status;
}

int main(int argc, char **argv)
{
	int runs = 9, first = 1;
	if (argc > 2 && strcmp(argv[1], "-n") == 0) {
		runs = atoi(argv[2]);
		first = 3;
	}
	if (runs < 1 || runs > 1000) runs = 9;
	if ((argc - first) % 3 != 0) {
		fprintf(stderr, "usage: bench_retarget [-n RUNS] [SOURCE CLIP TARGET]...\n");
		return 2;
	}
	double *t = (double *)malloc(sizeof(double) * (size_t)runs * 3);
	if (!t) return 1;
	int status = 0;
	if (first < argc) {
		for (int a = first; a + 2 < argc; a += 3) status |= bench_pair(argv[a], argv[a + 1], argv[a + 2], runs, t, t + runs, t + 2 * runs);
	} else {
		status |= bench_pair("sample", "Walk", "sample", runs, t, t + runs, t + 2 * runs);
		const char *shared = getenv("RIGKIT_SHARED_DIR");
		if (!shared || !*shared) shared = RK_SHARED_DIR;
		char rpm[4096], src[4096];
		struct stat st;
		snprintf(rpm, sizeof(rpm), "%s/assets/readyplayer.me.glb", shared);
		if (stat(rpm, &st) != 0) {
			fprintf(stderr, "bench_retarget: %s not found: samples only\n", rpm);
		} else {
			static const char *const pairs[3][2] = {
				{ "ybot@kick.fbx", "" }, { "Xbot.glb", "walk" }, { "Soldier.glb", "Walk" }
			};
			for (int p = 0; p < 3; p++) {
				snprintf(src, sizeof(src), "%s/assets/%s", shared, pairs[p][0]);
				status |= bench_pair(src, pairs[p][1], rpm, runs, t, t + runs, t + 2 * runs);
			}
		}
	}
	free(t);
	return status;
}
