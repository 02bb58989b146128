/*
 * bench/bench_runtime.c - animation runtime throughput (rigkit/runtime.h).
 *
 * usage: bench_runtime [-n RUNS] [-m MODE] [-s] [XBOT.glb]
 *
 * A synthetic 65-joint rig (a humanoid-shaped tree, parents depth-first)
 * with one 1-second clip: translation, rotation and scale tracks of 30
 * LINEAR keys each for every joint (195 tracks, rotations slerped), built as
 * a plain rk_runtime_clip. Each run times, on one thread:
 *   playback   600 frames at 60 fps (10 loops), sample with a cursor
 *              context, then local-to-model
 *   random     600 pseudo-random times, sample without context (binary
 *              search per track), then local-to-model
 * and the parts alone (the thread's CPU time: wall time follows the other
 * jobs on a shared machine). Prints the median over RUNS (default 11) in million
 * joints per second (joints * frames / seconds) and nanoseconds per joint.
 * With the shared Xbot.glb (argument or RK_SHARED_DIR) it also times its
 * "walk" clip on the 67-joint Hips skeleton (glTF, converted exactly).
 * -m MODE (0-4, the rows in the order printed) times that row alone, for
 * instruction counts: valgrind --tool=callgrind bench_runtime -n 1 -m 0.
 * -s times the scalar reference paths of both jobs instead of the default
 * (blocked SIMD) ones (src/runtime/runtime_internal.h, rki_rt_path).
 */
#include "bench_common.h"
#include "bench_synth_rig.h"

#include <rigkit/rigkit.h>
#include <rigkit/runtime.h>

#include "runtime/runtime_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define FRAMES 600

typedef struct bench_state {
	const rk_skeleton *sk;
	const rk_runtime_clip *clip;
	rk_local_pose pose;
	rk_float4x4 *model;
	rk_sample_context ctx;
	double times[FRAMES];
	volatile float sink;
} bench_state;

enum { MODE_PLAY_FULL, MODE_PLAY_SAMPLE, MODE_RANDOM_FULL, MODE_RANDOM_SAMPLE, MODE_MODEL_ONLY, MODE_COUNT };
static const char *mode_names[MODE_COUNT] = {
	"playback: sample (cursors) + local-to-model",
	"playback: sample (cursors) only",
	"random access: sample (binary search) + local-to-model",
	"random access: sample (binary search) only",
	"local-to-model only",
};

static rki_rt_path bench_path = RKI_RT_PATH_DEFAULT;

static double run_once(bench_state *b, int mode)
{
	rk_sample_job sj;
	memset(&sj, 0, sizeof(sj));
	sj.clip = b->clip;
	sj.playback = RK_PLAYBACK_LOOP;
	sj.output = b->pose;
	rk_local_to_model_job mj;
	memset(&mj, 0, sizeof(mj));
	mj.skeleton = b->sk;
	mj.input = rk_local_pose_view_of(b->pose);
	mj.model = b->model;
	bool playback = mode == MODE_PLAY_FULL || mode == MODE_PLAY_SAMPLE;
	bool sample = mode != MODE_MODEL_ONLY;
	bool model = mode == MODE_PLAY_FULL || mode == MODE_RANDOM_FULL || mode == MODE_MODEL_ONLY;
	sj.context = playback ? &b->ctx : NULL;
	double t0 = bench_cpu_now();
	for (int f = 0; f < FRAMES; f++) {
		if (sample) {
			sj.time = playback ? f / 60.0 : b->times[f];
			rki_sample_run_path(&sj, bench_path);
		}
		if (model) rki_local_to_model_run_path(&mj, bench_path);
	}
	double t1 = bench_cpu_now();
	b->sink = b->model[b->sk->joint_count - 1].m[12] + b->pose.translation[0].x;
	return t1 - t0;
}

static int bench_rig(const char *label, const rk_skeleton *sk, const rk_runtime_clip *clip, int runs, int only)
{
	bench_state *b = (bench_state *)calloc(1, sizeof(bench_state));
	size_t bytes = rk_local_pose_memory_size(sk->joint_count);
	void *mem = malloc(bytes);
	size_t nc = rk_sample_context_size(clip);
	uint32_t *cur = (uint32_t *)calloc(nc, sizeof(uint32_t));
	double *samples = (double *)malloc(sizeof(double) * (size_t)runs);
	if (!b || !mem || !cur || !samples) return 1;
	b->sk = sk;
	b->clip = clip;
	rk_local_pose_init(&b->pose, sk->joint_count, mem, bytes);
	b->model = (rk_float4x4 *)malloc(sizeof(rk_float4x4) * sk->joint_count);
	if (!b->model) return 1;
	rk_sample_context_init(&b->ctx, cur, nc);
	for (int f = 0; f < FRAMES; f++) b->times[f] = frand() * clip->duration;
	/* check once that the jobs accept the inputs */
	rk_error err;
	rk_sample_job sj;
	memset(&sj, 0, sizeof(sj));
	sj.clip = clip;
	sj.output = b->pose;
	rk_local_to_model_job mj;
	memset(&mj, 0, sizeof(mj));
	mj.skeleton = sk;
	mj.input = rk_local_pose_view_of(b->pose);
	mj.model = b->model;
	if (!rk_sample_validate(&sj, &err) || !rk_local_to_model_validate(&mj, &err)) {
		fprintf(stderr, "bench_runtime: %s\n", err.message);
		return 1;
	}
	printf("%s: %zu joints, %zu keys, %d frames per run, median of %d runs\n", label, sk->joint_count, clip->time_count, FRAMES, runs);
	for (int mode = 0; mode < MODE_COUNT; mode++) {
		if (only >= 0 && mode != only) continue;
		run_once(b, mode); /* warm-up */
		for (int r = 0; r < runs; r++) samples[r] = run_once(b, mode);
		double med = bench_median(samples, runs);
		double joints = (double)sk->joint_count * FRAMES;
		printf("  %-56s %7.1f M joints/s  %6.1f ns/joint\n", mode_names[mode], joints / med / 1e6, med / joints * 1e9);
	}
	free(samples);
	free(cur);
	free(mem);
	free(b->model);
	free(b);
	return 0;
}

int main(int argc, char **argv)
{
	int runs = 11, only = -1, a = 1;
	for (;;) {
		if (a < argc && strcmp(argv[a], "-s") == 0) {
			bench_path = RKI_RT_PATH_SCALAR;
			a++;
		} else if (a + 1 < argc && (strcmp(argv[a], "-n") == 0 || strcmp(argv[a], "-m") == 0)) {
			if (argv[a][1] == 'n') runs = atoi(argv[a + 1]);
			else only = atoi(argv[a + 1]);
			a += 2;
		} else {
			break;
		}
	}
	printf("paths: %s (lanes: %s)\n", bench_path == RKI_RT_PATH_SCALAR ? "scalar" : "default", rki_rt_vector_name());
	if (only >= MODE_COUNT) only = -1;
	if (runs < 1 || runs > 1000) runs = 11;
	synth *s = (synth *)malloc(sizeof(synth));
	if (!s) return 1;
	synth_init(s);
	int status = bench_rig("synthetic (T, R, S tracks of 30 LINEAR keys per joint)", &s->sk, &s->clip, runs, only);

	char path[4096];
	const char *file = a < argc ? argv[a] : NULL;
	if (!file) {
		snprintf(path, sizeof(path), "%s/assets/Xbot.glb", RK_SHARED_DIR);
		file = path;
	}
	rk_error err;
	rk_scene *scene = rk_load_file(file, NULL, &err);
	if (scene) {
		rk_skeleton_opts o;
		memset(&o, 0, sizeof(o));
		o.root = rk_scene_find_node(scene, "mixamorig:Hips");
		rk_skeleton *sk = o.root ? rk_skeleton_build(scene, &o, &err) : NULL;
		const rk_anim_clip *walk = rk_scene_find_clip(scene, "walk");
		rk_runtime_clip *rc = sk && walk ? rk_runtime_clip_build(scene, walk, sk, NULL, &err) : NULL;
		if (rc) status |= bench_rig("Xbot.glb walk (Hips skeleton, glTF keys copied)", sk, rc, runs, only);
		rk_runtime_clip_free(rc);
		rk_skeleton_free(sk);
		rk_scene_free(scene);
	} else {
		printf("(Xbot.glb not found: %s)\n", file);
	}
	free(s);
	return status;
}
