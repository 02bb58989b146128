/*
 * bench/bench_wasm.c - the workloads of the WebAssembly benchmark
 * (bench/bench_wasm.mjs) and of the SIMD check in tests/test_wasm.sh, built
 * three ways:
 *
 *   build-wasm/rigkit_bench.{mjs,wasm}         emscripten, -msimd128
 *   build-wasm/nosimd/rigkit_bench.{mjs,wasm}  emscripten, no SIMD
 *   build/bench_wasm                           native (this file's main)
 *
 * The module exports the bw_* functions below; JavaScript times them
 * (process.cpuUsage), interleaving the two modules. The native main times
 * the same functions with the thread's CPU time, so the three columns of
 * docs/benchmarks.md run identical C code on identical data.
 *
 * Skinning (rigkit/skin.h):
 *   bw_skin_synth(n)   n vertices, 64 joints (4x4 palette of random
 *                      rotations + translations), 4 influences (random
 *                      joints, weights summing to 1), positions + normals in
 *                      separate packed float arrays, normals renormalised
 *   bw_skin_scene(bytes, size, t)  every skinned mesh of a file: the mesh
 *                      expansion's vertices (its 56-byte layout), palettes
 *                      from rk_skin_matrices_eval of the first clip's pose
 *                      at clip start + t (the static pose without clips);
 *                      outputs packed
 *   bw_skin_run(h, path, reps)  runs every job `reps` times with that path
 * Runtime sampling (rigkit/runtime.h), FRAMES frames per rep:
 *   bw_rt_synth()      bench_synth_rig.h's 65-joint rig
 *   bw_rt_scene(bytes, size, root, clip)  a file's clip on the skeleton
 *                      under node `root`
 *   bw_rt_run(h, mode, reps)  modes as bench_runtime.c: 0 playback (cursor
 *                      context) sample + local-to-model, 1 random access
 *                      (binary search) sample + local-to-model, 2 playback
 *                      sample only, 3 random sample only, 4 local-to-model
 *                      only
 *   bw_rt_model(h)     the model matrices after the last frame (16 floats a
 *                      joint), for comparing builds
 *
 * usage (native): bench_wasm [-n RUNS] [--vertices N] [AVATAR.glb [XBOT.glb]]
 * prints one line per row, "skin|rt <workload> <variant> <seconds per rep>".
 */
#include "bench_common.h"
#include "bench_synth_rig.h"

#include <rigkit/rigkit.h>
#include <rigkit/runtime.h>
#include <rigkit/skin.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef __EMSCRIPTEN__
#define BW_API __attribute__((used, visibility("default")))
#else
#define BW_API
#endif

#define SKIN_JOINTS 64
#define FRAMES 600

/* ---------------------------------------------------------------------------
 * Skinning
 * ------------------------------------------------------------------------- */

typedef struct bw_skin {
	size_t job_count, vertex_count;
	rk_skin_job *jobs;
	float *out_pos, *out_nrm;      /* vertex_count * 3 each, jobs in order */
	/* owned inputs (synthetic) or the scene's */
	float *pos, *nrm, *wgt, *palette;
	uint16_t *jnt;
	rk_scene *scene;
	rk_mesh_expansion *x;
} bw_skin;

static uint64_t bw_rng = 0x9E3779B97F4A7C15ull;
static float bw_rand(void) /* [0, 1) */
{
	bw_rng = bw_rng * 6364136223846793005ull + 1442695040888963407ull;
	return (float)(bw_rng >> 40) * (1.0f / 16777216.0f);
}

BW_API void bw_skin_free(bw_skin *h);
void bw_skin_free(bw_skin *h)
{
	if (!h) return;
	free(h->jobs);
	free(h->out_pos);
	free(h->out_nrm);
	free(h->pos);
	free(h->nrm);
	free(h->wgt);
	free(h->palette);
	free(h->jnt);
	rk_mesh_expansion_free(h->x);
	rk_scene_free(h->scene);
	free(h);
}

static bool bw_skin_outputs(bw_skin *h)
{
	h->out_pos = (float *)calloc(h->vertex_count * 3 + 1, sizeof(float));
	h->out_nrm = (float *)calloc(h->vertex_count * 3 + 1, sizeof(float));
	if (!h->out_pos || !h->out_nrm) return false;
	size_t at = 0;
	for (size_t i = 0; i < h->job_count; i++) {
		h->jobs[i].out_positions = h->out_pos + at * 3;
		h->jobs[i].out_normals = h->out_nrm + at * 3;
		at += h->jobs[i].vertex_count;
	}
	return true;
}

BW_API bw_skin *bw_skin_synth(uint32_t n);
bw_skin *bw_skin_synth(uint32_t n)
{
	if (n == 0) return NULL;
	bw_skin *h = (bw_skin *)calloc(1, sizeof(bw_skin));
	if (!h) return NULL;
	h->vertex_count = n;
	h->job_count = 1;
	h->jobs = (rk_skin_job *)calloc(1, sizeof(rk_skin_job));
	h->pos = (float *)malloc(sizeof(float) * 3 * n);
	h->nrm = (float *)malloc(sizeof(float) * 3 * n);
	h->wgt = (float *)malloc(sizeof(float) * 4 * n);
	h->jnt = (uint16_t *)malloc(sizeof(uint16_t) * 4 * n);
	h->palette = (float *)malloc(sizeof(float) * 16 * SKIN_JOINTS);
	if (!h->jobs || !h->pos || !h->nrm || !h->wgt || !h->jnt || !h->palette) {
		bw_skin_free(h);
		return NULL;
	}
	for (int k = 0; k < SKIN_JOINTS; k++) {
		/* rotation from a random unit quaternion, column-major, + translation */
		float q[4], l = 0;
		for (int c = 0; c < 4; c++) {
			q[c] = bw_rand() * 2 - 1;
			l += q[c] * q[c];
		}
		l = 1.0f / sqrtf(l > 1e-6f ? l : 1.0f);
		const float x = q[0] * l, y = q[1] * l, z = q[2] * l, w = q[3] * l;
		float *m = h->palette + k * 16;
		m[0] = 1 - 2 * (y * y + z * z), m[1] = 2 * (x * y + z * w), m[2] = 2 * (x * z - y * w), m[3] = 0;
		m[4] = 2 * (x * y - z * w), m[5] = 1 - 2 * (x * x + z * z), m[6] = 2 * (y * z + x * w), m[7] = 0;
		m[8] = 2 * (x * z + y * w), m[9] = 2 * (y * z - x * w), m[10] = 1 - 2 * (x * x + y * y), m[11] = 0;
		m[12] = bw_rand() - 0.5f, m[13] = bw_rand() - 0.5f, m[14] = bw_rand() - 0.5f, m[15] = 1;
	}
	for (uint32_t v = 0; v < n; v++) {
		float s = 0, nl = 0;
		for (int c = 0; c < 3; c++) {
			h->pos[v * 3 + c] = bw_rand() * 2 - 1;
			h->nrm[v * 3 + c] = bw_rand() * 2 - 1;
			nl += h->nrm[v * 3 + c] * h->nrm[v * 3 + c];
		}
		nl = nl > 1e-12f ? 1.0f / sqrtf(nl) : 1.0f;
		for (int c = 0; c < 3; c++) h->nrm[v * 3 + c] *= nl;
		for (int c = 0; c < 4; c++) {
			h->jnt[v * 4 + c] = (uint16_t)(bw_rand() * SKIN_JOINTS);
			h->wgt[v * 4 + c] = 0.05f + bw_rand();
			s += h->wgt[v * 4 + c];
		}
		for (int c = 0; c < 4; c++) h->wgt[v * 4 + c] /= s;
	}
	rk_skin_job *j = &h->jobs[0];
	j->vertex_count = n;
	j->positions = h->pos;
	j->normals = h->nrm;
	j->joints = h->jnt;
	j->weights = h->wgt;
	j->matrices = h->palette;
	j->joint_count = SKIN_JOINTS;
	if (!bw_skin_outputs(h)) {
		bw_skin_free(h);
		return NULL;
	}
	return h;
}

BW_API bw_skin *bw_skin_scene(const void *bytes, size_t size, double t);
bw_skin *bw_skin_scene(const void *bytes, size_t size, double t)
{
	bw_skin *h = (bw_skin *)calloc(1, sizeof(bw_skin));
	if (!h) return NULL;
	rk_error err;
	h->scene = rk_load_memory(bytes, size, NULL, &err);
	rk_mesh_opts mo;
	memset(&mo, 0, sizeof(mo));
	h->x = h->scene ? rk_mesh_expansion_build(h->scene, &mo, &err) : NULL;
	if (!h->x) {
		fprintf(stderr, "bw_skin_scene: %s\n", err.message);
		bw_skin_free(h);
		return NULL;
	}
	const rk_mesh_expansion *x = h->x;
	size_t palette_floats = 0;
	for (size_t d = 0; d < x->draw_count; d++)
		if (x->draws[d].skin && x->draws[d].vertex_count > 0) {
			h->job_count++;
			h->vertex_count += x->draws[d].vertex_count;
			palette_floats += x->draws[d].skin->joint_count * 16;
		}
	const size_t pose_bytes = rk_pose_memory_size(h->scene);
	void *pose_mem = malloc(pose_bytes ? pose_bytes : 1);
	rk_mat4 *m4 = NULL;
	size_t m4_count = 0;
	for (size_t d = 0; d < x->draw_count; d++)
		if (x->draws[d].skin && x->draws[d].skin->joint_count > m4_count) m4_count = x->draws[d].skin->joint_count;
	m4 = (rk_mat4 *)malloc(sizeof(rk_mat4) * (m4_count ? m4_count : 1));
	h->jobs = (rk_skin_job *)calloc(h->job_count ? h->job_count : 1, sizeof(rk_skin_job));
	h->palette = (float *)malloc(sizeof(float) * (palette_floats ? palette_floats : 1));
	rk_pose pose;
	bool ok = pose_mem && m4 && h->jobs && h->palette && h->job_count > 0 &&
		rk_pose_init(&pose, h->scene, pose_mem, pose_bytes);
	if (ok) {
		rk_pose_eval_job pj;
		memset(&pj, 0, sizeof(pj));
		pj.scene = h->scene;
		pj.clip = h->scene->clips.count > 0 ? &h->scene->clips.data[0] : NULL;
		pj.time = (pj.clip ? pj.clip->time_begin : 0.0) + t;
		pj.pose = &pose;
		ok = rk_pose_eval_validate(&pj, &err) && rk_pose_eval_run(&pj);
	}
	size_t ji = 0, pal = 0;
	const size_t stride = x->format.stride;
	for (size_t d = 0; ok && d < x->draw_count; d++) {
		const rk_mesh_draw *dr = &x->draws[d];
		if (!dr->skin || dr->vertex_count == 0) continue;
		ok = rk_skin_matrices_eval(h->scene, dr->skin, &pose, dr->node, m4);
		const size_t jc = dr->skin->joint_count;
		rk_skin_palette_from_mat4(h->palette + pal, m4, jc, RK_SKIN_MATRIX_4X4);
		const unsigned char *base = (const unsigned char *)x->vertices + (size_t)dr->first_vertex * stride;
		rk_skin_job *j = &h->jobs[ji++];
		j->vertex_count = dr->vertex_count;
		j->positions = (const float *)(const void *)(base + x->format.position_offset);
		j->normals = (const float *)(const void *)(base + x->format.normal_offset);
		j->joints = (const uint16_t *)(const void *)(base + x->format.joints_offset);
		j->weights = (const float *)(const void *)(base + x->format.weights_offset);
		j->position_stride = j->normal_stride = j->joint_stride = j->weight_stride = stride;
		j->matrices = h->palette + pal;
		j->joint_count = jc;
		pal += jc * 16;
	}
	free(pose_mem);
	free(m4);
	if (!ok || !bw_skin_outputs(h)) {
		fprintf(stderr, "bw_skin_scene: %s\n", h->job_count ? "pose or palette failed" : "no skinned mesh");
		bw_skin_free(h);
		return NULL;
	}
	return h;
}

/* path: rk_skin_path (0 auto, 1 scalar, 2 sse2 / simd128, ...). */
BW_API int bw_skin_run(bw_skin *h, int path, int reps);
int bw_skin_run(bw_skin *h, int path, int reps)
{
	if (!h) return 0;
	for (size_t i = 0; i < h->job_count; i++) h->jobs[i].path = (rk_skin_path)path;
	for (int r = 0; r < reps; r++)
		for (size_t i = 0; i < h->job_count; i++)
			if (!rk_skin_run(&h->jobs[i])) return 0;
	return 1;
}

BW_API uint32_t bw_skin_vertices(const bw_skin *h);
uint32_t bw_skin_vertices(const bw_skin *h) { return h ? (uint32_t)h->vertex_count : 0; }
BW_API const float *bw_skin_out_positions(const bw_skin *h);
const float *bw_skin_out_positions(const bw_skin *h) { return h ? h->out_pos : NULL; }
BW_API const float *bw_skin_out_normals(const bw_skin *h);
const float *bw_skin_out_normals(const bw_skin *h) { return h ? h->out_nrm : NULL; }

/* Job i's inputs for an independent check (wasm32: pointers are 32-bit):
 * out[0..10] = vertex_count, positions, position_stride, normals,
 * normal_stride, joints, joint_stride, weights, weight_stride, matrices
 * (4x4 column-major floats), joint_count; strides in bytes. 0 when i is
 * out of range. */
BW_API int bw_skin_job(const bw_skin *h, uint32_t i, uint32_t *out);
int bw_skin_job(const bw_skin *h, uint32_t i, uint32_t *out)
{
	if (!h || i >= h->job_count || !out) return 0;
	const rk_skin_job *j = &h->jobs[i];
	out[0] = (uint32_t)j->vertex_count;
	out[1] = (uint32_t)(uintptr_t)j->positions;
	out[2] = (uint32_t)(j->position_stride ? j->position_stride : 12);
	out[3] = (uint32_t)(uintptr_t)j->normals;
	out[4] = (uint32_t)(j->normal_stride ? j->normal_stride : 12);
	out[5] = (uint32_t)(uintptr_t)j->joints;
	out[6] = (uint32_t)(j->joint_stride ? j->joint_stride : 8);
	out[7] = (uint32_t)(uintptr_t)j->weights;
	out[8] = (uint32_t)(j->weight_stride ? j->weight_stride : 16);
	out[9] = (uint32_t)(uintptr_t)j->matrices;
	out[10] = (uint32_t)j->joint_count;
	return 1;
}

BW_API uint32_t bw_skin_jobs(const bw_skin *h);
uint32_t bw_skin_jobs(const bw_skin *h) { return h ? (uint32_t)h->job_count : 0; }

/* The name of the path `path` resolves to here ("simd128", "scalar"...),
 * "" when this build cannot run it. */
BW_API const char *bw_skin_path_name(int path);
const char *bw_skin_path_name(int path)
{
	const rk_skin_path p = rk_skin_resolve_path((rk_skin_path)path);
	return p == RK_SKIN_PATH_AUTO ? "" : rk_skin_path_name(p);
}

/* ---------------------------------------------------------------------------
 * Runtime sampling
 * ------------------------------------------------------------------------- */

typedef struct bw_rt {
	synth *syn;                   /* bw_rt_synth */
	rk_scene *scene;              /* bw_rt_scene */
	rk_skeleton *built;
	rk_runtime_clip *built_clip;
	const rk_skeleton *sk;
	const rk_runtime_clip *clip;
	void *pose_mem;
	rk_local_pose pose;
	rk_float4x4 *model;
	uint32_t *cursors;
	rk_sample_context ctx;
	double times[FRAMES];
} bw_rt;

BW_API void bw_rt_free(bw_rt *h);
void bw_rt_free(bw_rt *h)
{
	if (!h) return;
	free(h->cursors);
	free(h->model);
	free(h->pose_mem);
	rk_runtime_clip_free(h->built_clip);
	rk_skeleton_free(h->built);
	rk_scene_free(h->scene);
	free(h->syn);
	free(h);
}

static bw_rt *bw_rt_setup(bw_rt *h)
{
	const size_t n = h->sk->joint_count, bytes = rk_local_pose_memory_size(n), nc = rk_sample_context_size(h->clip);
	h->pose_mem = malloc(bytes);
	h->model = (rk_float4x4 *)malloc(sizeof(rk_float4x4) * n);
	h->cursors = (uint32_t *)calloc(nc ? nc : 1, sizeof(uint32_t));
	if (!h->pose_mem || !h->model || !h->cursors) {
		bw_rt_free(h);
		return NULL;
	}
	rk_local_pose_init(&h->pose, n, h->pose_mem, bytes);
	rk_sample_context_init(&h->ctx, h->cursors, nc);
	for (int f = 0; f < FRAMES; f++) h->times[f] = bw_rand() * h->clip->duration;
	rk_error err;
	rk_sample_job sj;
	memset(&sj, 0, sizeof(sj));
	sj.clip = h->clip;
	sj.output = h->pose;
	rk_local_to_model_job mj;
	memset(&mj, 0, sizeof(mj));
	mj.skeleton = h->sk;
	mj.input = rk_local_pose_view_of(h->pose);
	mj.model = h->model;
	if (!rk_sample_validate(&sj, &err) || !rk_local_to_model_validate(&mj, &err)) {
		fprintf(stderr, "bw_rt: %s\n", err.message);
		bw_rt_free(h);
		return NULL;
	}
	return h;
}

BW_API bw_rt *bw_rt_synth(void);
bw_rt *bw_rt_synth(void)
{
	bw_rt *h = (bw_rt *)calloc(1, sizeof(bw_rt));
	if (!h) return NULL;
	h->syn = (synth *)malloc(sizeof(synth));
	if (!h->syn) {
		bw_rt_free(h);
		return NULL;
	}
	synth_init(h->syn);
	h->sk = &h->syn->sk;
	h->clip = &h->syn->clip;
	return bw_rt_setup(h);
}

BW_API bw_rt *bw_rt_scene(const void *bytes, size_t size, const char *root, const char *clip);
bw_rt *bw_rt_scene(const void *bytes, size_t size, const char *root, const char *clip)
{
	bw_rt *h = (bw_rt *)calloc(1, sizeof(bw_rt));
	if (!h) return NULL;
	rk_error err;
	memset(&err, 0, sizeof(err));
	h->scene = rk_load_memory(bytes, size, NULL, &err);
	if (h->scene) {
		rk_skeleton_opts o;
		memset(&o, 0, sizeof(o));
		o.root = rk_scene_find_node(h->scene, root);
		h->built = o.root ? rk_skeleton_build(h->scene, &o, &err) : NULL;
		const rk_anim_clip *c = rk_scene_find_clip(h->scene, clip);
		h->built_clip = h->built && c ? rk_runtime_clip_build(h->scene, c, h->built, NULL, &err) : NULL;
	}
	if (!h->built_clip) {
		fprintf(stderr, "bw_rt_scene: %s\n", err.message[0] ? err.message : "root node or clip not found");
		bw_rt_free(h);
		return NULL;
	}
	h->sk = h->built;
	h->clip = h->built_clip;
	return bw_rt_setup(h);
}

BW_API int bw_rt_run(bw_rt *h, int mode, int reps);
int bw_rt_run(bw_rt *h, int mode, int reps)
{
	if (!h || mode < 0 || mode > 4) return 0;
	rk_sample_job sj;
	memset(&sj, 0, sizeof(sj));
	sj.clip = h->clip;
	sj.playback = RK_PLAYBACK_LOOP;
	sj.output = h->pose;
	rk_local_to_model_job mj;
	memset(&mj, 0, sizeof(mj));
	mj.skeleton = h->sk;
	mj.input = rk_local_pose_view_of(h->pose);
	mj.model = h->model;
	const bool playback = mode == 0 || mode == 2, sample = mode != 4, model = mode == 0 || mode == 1 || mode == 4;
	sj.context = playback ? &h->ctx : NULL;
	for (int r = 0; r < reps; r++)
		for (int f = 0; f < FRAMES; f++) {
			if (sample) {
				sj.time = playback ? f / 60.0 : h->times[f];
				if (!rk_sample_run(&sj)) return 0;
			}
			if (model && !rk_local_to_model_run(&mj)) return 0;
		}
	return 1;
}

BW_API uint32_t bw_rt_joints(const bw_rt *h);
uint32_t bw_rt_joints(const bw_rt *h) { return h ? (uint32_t)h->sk->joint_count : 0; }
BW_API uint32_t bw_rt_frames(void);
uint32_t bw_rt_frames(void) { return FRAMES; }
BW_API const float *bw_rt_model(const bw_rt *h);
const float *bw_rt_model(const bw_rt *h) { return h ? &h->model[0].m[0] : NULL; }

/* ---------------------------------------------------------------------------
 * Native driver
 * ------------------------------------------------------------------------- */

#ifndef __EMSCRIPTEN__

static void *bw_read_file(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	if (!f) return NULL;
	unsigned char *buf = NULL;
	size_t cap = 0, n = 0;
	for (;;) {
		if (n == cap) {
			unsigned char *nb = (unsigned char *)realloc(buf, cap ? cap * 2 : 1 << 20);
			if (!nb) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = nb;
			cap = cap ? cap * 2 : 1 << 20;
		}
		const size_t got = fread(buf + n, 1, cap - n, f);
		n += got;
		if (got == 0) break;
	}
	fclose(f);
	*size = n;
	return buf;
}

/* Median over runs of CPU seconds per rep; rows of one workload round-robin. */
static void bw_time_skin(const char *label, bw_skin *h, int runs, int reps)
{
	static const int paths[] = { RK_SKIN_PATH_SCALAR, RK_SKIN_PATH_SSE2, RK_SKIN_PATH_AUTO };
	double t[3][1000];
	for (int p = 0; p < 3; p++) bw_skin_run(h, paths[p], 1);
	for (int r = 0; r < runs; r++)
		for (int p = 0; p < 3; p++) {
			const double t0 = bench_cpu_now();
			bw_skin_run(h, paths[p], reps);
			t[p][r] = (bench_cpu_now() - t0) / reps;
		}
	for (int p = 0; p < 3; p++)
		if (*bw_skin_path_name(paths[p]))
			printf("skin %s %s %.9f\n", label, paths[p] == RK_SKIN_PATH_AUTO ? "auto" : bw_skin_path_name(paths[p]),
				bench_median(t[p], runs));
	printf("skin %s auto_is %s\n", label, bw_skin_path_name(RK_SKIN_PATH_AUTO));
}

static void bw_time_rt(const char *label, bw_rt *h, int runs, int reps)
{
	static const char *const modes[5] = { "playback", "random", "playback_sample", "random_sample", "model" };
	double t[5][1000];
	for (int m = 0; m < 5; m++) bw_rt_run(h, m, 1);
	for (int r = 0; r < runs; r++)
		for (int m = 0; m < 5; m++) {
			const double t0 = bench_cpu_now();
			bw_rt_run(h, m, reps);
			t[m][r] = (bench_cpu_now() - t0) / reps;
		}
	for (int m = 0; m < 5; m++)
		printf("rt %s %s %.9f %u\n", label, modes[m], bench_median(t[m], runs), bw_rt_joints(h) * FRAMES);
}

int main(int argc, char **argv)
{
	int runs = 9;
	uint32_t n = 1000000;
	const char *files[2] = { NULL, NULL };
	int nf = 0;
	for (int a = 1; a < argc; a++) {
		if (strcmp(argv[a], "-n") == 0 && a + 1 < argc) runs = atoi(argv[++a]);
		else if (strcmp(argv[a], "--vertices") == 0 && a + 1 < argc) n = (uint32_t)strtoul(argv[++a], NULL, 10);
		else if (argv[a][0] != '-' && nf < 2) files[nf++] = argv[a];
		else {
			fprintf(stderr, "usage: bench_wasm [-n RUNS] [--vertices N] [AVATAR.glb [XBOT.glb]]\n");
			return 2;
		}
	}
	if (runs < 1 || runs > 1000) runs = 9;
	bw_skin *s = bw_skin_synth(n);
	if (!s) return 1;
	bw_time_skin("synthetic", s, runs, 1);
	bw_skin_free(s);
	size_t size = 0;
	void *bytes = files[0] ? bw_read_file(files[0], &size) : NULL;
	if (bytes) {
		bw_skin *a = bw_skin_scene(bytes, size, 0.5);
		if (a) bw_time_skin("avatar", a, runs, 20);
		bw_skin_free(a);
		free(bytes);
	}
	bw_rt *r = bw_rt_synth();
	if (!r) return 1;
	bw_time_rt("synthetic", r, runs, 10);
	bw_rt_free(r);
	bytes = files[1] ? bw_read_file(files[1], &size) : NULL;
	if (bytes) {
		bw_rt *x = bw_rt_scene(bytes, size, "mixamorig:Hips", "walk");
		if (x) bw_time_rt("xbot_walk", x, runs, 10);
		bw_rt_free(x);
		free(bytes);
	}
	return 0;
}

#endif
