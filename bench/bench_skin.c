/*
 * bench/bench_skin.c - CPU linear blend skinning (rigkit/skin.h) side by
 * side with a naive scalar loop, a memory-bandwidth ceiling and itself on
 * two threads, in one run.
 *
 * usage: bench_skin [-n RUNS] [--quick]
 *   RUNS (default 11, at least 9) timed samples per row; the median is
 *   reported. Each sample repeats the pass enough times to last >= 2 ms
 *   and reports the time per pass. The rows of one size are sampled
 *   round-robin (a, b, c, d, a, b, ...) so drift hits them alike.
 *   --quick: 10k and 100k only.
 *
 * Workload per size (10k / 100k / 1M vertices): 64 joints (4x4 float
 * palette, random rotations + translations), every vertex with 4 influences
 * (random joints, random weights summing to 1), float positions and normals
 * in separate tightly packed arrays (12 + 12 + 8 + 16 = 48 bytes read and
 * 12 + 12 = 24 bytes written per vertex), normals renormalised.
 *
 *   (a) rk_skin_run, RK_SKIN_PATH_AUTO (the best path), calling thread
 *   (b) naive: straightforward C, per vertex, per influence, matrix-vector
 *       multiply of the position and the normal, accumulated with the
 *       weight, then normalised. Compiled as -O2 without vectorisation
 *       whatever the build type: GCC __attribute__((optimize("O2",
 *       "no-tree-vectorize"))); under clang (which ignores `optimize`) the
 *       loop carries `#pragma clang loop vectorize(disable)` and is built at
 *       the file's level.
 *   (c) memory ceiling: reads the same input streams and writes the same
 *       output streams with trivial arithmetic (adds), 4 vertices per step
 *       in 16-byte SSE2 loads and stores (plain C on other targets), so it
 *       runs at the memory / cache bandwidth one core reaches. Plain stores,
 *       like (a).
 *   (d) rk_skin_run_threads(job, 2): creates and joins one thread per pass
 *   (d') the same split on a helper thread kept alive by the bench (the
 *       caller's own worker calling rk_skin_run_range), which separates the
 *       cost of thread creation from the scaling itself
 * Extra rows: the SCALAR, SSE2 and AVX2 paths, the 3x4 palette, the
 * inverse-transpose normal mode and the interleaved 56-byte vertex layout.
 * The machine (CPU model, online CPUs) and /proc/loadavg before and after
 * are printed with the results.
 */
#include "bench_common.h"

#include <rigkit/rigkit.h>
#include <rigkit/skin.h>

#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#if defined(__SSE2__) && !defined(RK_SCALAR_ONLY)
#include <emmintrin.h>
#define BENCH_SSE2 1
#endif

#define JOINTS 64

typedef struct bench_data {
	size_t n;
	float *pos, *nrm, *wgt;
	uint16_t *jnt;
	float pal4[JOINTS * 16], pal3[JOINTS * 12];
	float *out_pos, *out_nrm;
	unsigned char *inter_in, *inter_out;   /* 56-byte interleaved copies */
} bench_data;

static uint64_t rng = 0x243F6A8885A308D3ull;
static double rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (double)(rng >> 11) * (1.0 / 9007199254740992.0);
}

static void *xmalloc(size_t size)
{
	void *p = NULL;
	if (posix_memalign(&p, 64, size) != 0) {
		fprintf(stderr, "bench_skin: out of memory\n");
		exit(1);
	}
	memset(p, 0, size); /* fault the pages in before timing */
	return p;
}

static void data_make(bench_data *d, size_t n)
{
	memset(d, 0, sizeof(*d));
	d->n = n;
	d->pos = xmalloc(n * 12);
	d->nrm = xmalloc(n * 12);
	d->wgt = xmalloc(n * 16);
	d->jnt = xmalloc(n * 8);
	d->out_pos = xmalloc(n * 12);
	d->out_nrm = xmalloc(n * 12);
	for (size_t j = 0; j < JOINTS; j++) {
		rk_vec3 axis = rk_vec3_normalize((rk_vec3){ rnd() - 0.5, rnd() - 0.5, rnd() - 0.5 + 1e-3 });
		rk_trs trs = { { rnd() * 2 - 1, rnd() * 2 - 1, rnd() * 2 - 1 }, rk_quat_axis_angle(axis, rnd() * 2 - 1), { 1, 1, 1 } };
		rk_mat4 m = rk_mat4_from_trs(trs);
		rk_skin_palette_from_mat4(d->pal4 + j * 16, &m, 1, RK_SKIN_MATRIX_4X4);
		rk_skin_palette_from_mat4(d->pal3 + j * 12, &m, 1, RK_SKIN_MATRIX_3X4);
	}
	for (size_t v = 0; v < n; v++) {
		for (int c = 0; c < 3; c++) d->pos[v * 3 + c] = (float)(rnd() * 2 - 1);
		rk_vec3 nn = rk_vec3_normalize((rk_vec3){ rnd() - 0.5, rnd() - 0.5, rnd() - 0.5 + 1e-3 });
		d->nrm[v * 3 + 0] = (float)nn.x;
		d->nrm[v * 3 + 1] = (float)nn.y;
		d->nrm[v * 3 + 2] = (float)nn.z;
		double w[4], s = 0.0;
		for (int k = 0; k < 4; k++) s += (w[k] = 0.05 + rnd());
		for (int k = 0; k < 4; k++) {
			d->wgt[v * 4 + k] = (float)(w[k] / s);
			d->jnt[v * 4 + k] = (uint16_t)(rnd() * JOINTS);
		}
	}
}

static void data_make_interleaved(bench_data *d)
{
	d->inter_in = xmalloc(d->n * 56);
	d->inter_out = xmalloc(d->n * 56);
	for (size_t v = 0; v < d->n; v++) {
		unsigned char *p = d->inter_in + v * 56;
		memcpy(p + 0, d->pos + v * 3, 12);
		memcpy(p + 12, d->nrm + v * 3, 12);
		memcpy(p + 32, d->jnt + v * 4, 8);
		memcpy(p + 40, d->wgt + v * 4, 16);
	}
}

static void data_free(bench_data *d)
{
	free(d->pos); free(d->nrm); free(d->wgt); free(d->jnt);
	free(d->out_pos); free(d->out_nrm); free(d->inter_in); free(d->inter_out);
}

/* ---- (b) naive scalar loop ---------------------------------------------- */

#if defined(__GNUC__) && !defined(__clang__)
#define NAIVE_ATTR __attribute__((noinline, optimize("O2", "no-tree-vectorize")))
#else
#define NAIVE_ATTR __attribute__((noinline))
#endif

NAIVE_ATTR static void naive_skin(size_t n, const float *pos, const float *nrm, const uint16_t *jnt, const float *wgt,
	const float *mats, float *out_pos, float *out_nrm)
{
#if defined(__clang__)
#pragma clang loop vectorize(disable) interleave(disable)
#endif
	for (size_t v = 0; v < n; v++) {
		const float px = pos[v * 3 + 0], py = pos[v * 3 + 1], pz = pos[v * 3 + 2];
		const float nx = nrm[v * 3 + 0], ny = nrm[v * 3 + 1], nz = nrm[v * 3 + 2];
		float ox = 0, oy = 0, oz = 0, mx = 0, my = 0, mz = 0;
		for (int k = 0; k < 4; k++) {
			const float w = wgt[v * 4 + k];
			const float *m = mats + (size_t)jnt[v * 4 + k] * 16; /* column-major 4x4 */
			ox += w * (m[0] * px + m[4] * py + m[8] * pz + m[12]);
			oy += w * (m[1] * px + m[5] * py + m[9] * pz + m[13]);
			oz += w * (m[2] * px + m[6] * py + m[10] * pz + m[14]);
			mx += w * (m[0] * nx + m[4] * ny + m[8] * nz);
			my += w * (m[1] * nx + m[5] * ny + m[9] * nz);
			mz += w * (m[2] * nx + m[6] * ny + m[10] * nz);
		}
		const float len = sqrtf(mx * mx + my * my + mz * mz);
		if (len > 0.0f) {
			mx /= len;
			my /= len;
			mz /= len;
		}
		out_pos[v * 3 + 0] = ox;
		out_pos[v * 3 + 1] = oy;
		out_pos[v * 3 + 2] = oz;
		out_nrm[v * 3 + 0] = mx;
		out_nrm[v * 3 + 1] = my;
		out_nrm[v * 3 + 2] = mz;
	}
}

/* ---- (c) memory ceiling ------------------------------------------------- */

static void copy_ceiling(size_t n, const float *pos, const float *nrm, const uint16_t *jnt, const float *wgt,
	float *out_pos, float *out_nrm)
{
	size_t v = 0;
#ifdef BENCH_SSE2
	/* 4 vertices: 48 B positions, 48 B normals, 32 B joints, 64 B weights in;
	 * 48 + 48 B out. Every input byte is loaded and feeds an output. */
	for (; v + 4 <= n; v += 4) {
		const __m128i j0 = _mm_loadu_si128((const __m128i *)(const void *)(jnt + v * 4));
		const __m128i j1 = _mm_loadu_si128((const __m128i *)(const void *)(jnt + v * 4 + 8));
		const __m128 jf = _mm_mul_ps(_mm_cvtepi32_ps(_mm_xor_si128(j0, j1)), _mm_set1_ps(1e-30f));
		const __m128 w0 = _mm_loadu_ps(wgt + v * 4), w1 = _mm_loadu_ps(wgt + v * 4 + 4);
		const __m128 w2 = _mm_loadu_ps(wgt + v * 4 + 8), w3 = _mm_loadu_ps(wgt + v * 4 + 12);
		const __m128 wa = _mm_add_ps(_mm_add_ps(w0, w1), jf);
		const __m128 wb = _mm_add_ps(w2, w3);
		for (int k = 0; k < 3; k++) {
			const __m128 p = _mm_loadu_ps(pos + v * 3 + k * 4), q = _mm_loadu_ps(nrm + v * 3 + k * 4);
			_mm_storeu_ps(out_pos + v * 3 + k * 4, _mm_add_ps(p, wa));
			_mm_storeu_ps(out_nrm + v * 3 + k * 4, _mm_add_ps(q, wb));
		}
	}
#endif
	for (; v < n; v++) {
		const float t = wgt[v * 4] + wgt[v * 4 + 1] + wgt[v * 4 + 2] + wgt[v * 4 + 3] +
			(float)(jnt[v * 4] ^ jnt[v * 4 + 1] ^ jnt[v * 4 + 2] ^ jnt[v * 4 + 3]) * 1e-30f;
		for (int c = 0; c < 3; c++) {
			out_pos[v * 3 + c] = pos[v * 3 + c] + t;
			out_nrm[v * 3 + c] = nrm[v * 3 + c] + t;
		}
	}
}

/* ---- rows ----------------------------------------------------------------- */

typedef enum row_kind {
	ROW_BEST, ROW_NAIVE, ROW_CEILING, ROW_BEST_2T, ROW_POOL_2T,
	ROW_SCALAR, ROW_SSE2, ROW_AVX2, ROW_3X4, ROW_INVT, ROW_INTERLEAVED,
	ROW_COUNT
} row_kind;

static const char *const row_names[ROW_COUNT] = {
	"(a) best path, 1 thread", "(b) naive scalar -O2", "(c) memory ceiling",
	"(d) best path, 2 threads (rk_skin_run_threads)", "(d') best path, 2 persistent threads (rk_skin_run_range)",
	"    SCALAR path", "    SSE2 path", "    AVX2 path", "    3x4 palette", "    inverse-transpose normals",
	"    interleaved 56 B vertices",
};

static rk_skin_job make_job(bench_data *d, row_kind r)
{
	rk_skin_job job = { .vertex_count = d->n, .positions = d->pos, .normals = d->nrm, .joints = d->jnt,
		.weights = d->wgt, .matrices = d->pal4, .joint_count = JOINTS, .out_positions = d->out_pos,
		.out_normals = d->out_nrm };
	switch (r) {
	case ROW_SCALAR: job.path = RK_SKIN_PATH_SCALAR; break;
	case ROW_SSE2: job.path = RK_SKIN_PATH_SSE2; break;
	case ROW_AVX2: job.path = RK_SKIN_PATH_AVX2; break;
	case ROW_3X4: job.matrices = d->pal3; job.matrix_format = RK_SKIN_MATRIX_3X4; break;
	case ROW_INVT: job.normal_mode = RK_SKIN_NORMALS_INVERSE_TRANSPOSE; break;
	case ROW_INTERLEAVED:
		job.positions = (const float *)(const void *)(d->inter_in + 0);
		job.normals = (const float *)(const void *)(d->inter_in + 12);
		job.joints = (const uint16_t *)(const void *)(d->inter_in + 32);
		job.weights = (const float *)(const void *)(d->inter_in + 40);
		job.position_stride = job.normal_stride = job.joint_stride = job.weight_stride = 56;
		job.out_positions = (float *)(void *)(d->inter_out + 0);
		job.out_normals = (float *)(void *)(d->inter_out + 12);
		job.out_position_stride = job.out_normal_stride = 56;
		break;
	default: break;
	}
	return job;
}

static bool row_available(row_kind r)
{
	if (r == ROW_SSE2) return rk_skin_path_supported(RK_SKIN_PATH_SSE2);
	if (r == ROW_AVX2) return rk_skin_path_supported(RK_SKIN_PATH_AVX2);
	return true;
}

/* ---- (d') a persistent helper thread ------------------------------------ */
/* The caller's own worker, as an application would keep one: it spins on a
 * generation counter, skins the second half with rk_skin_run_range, and
 * reports back; the calling thread skins the first half meanwhile. This
 * separates thread creation cost (row d) from the scaling itself. */

typedef struct pool {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	atomic_int active;        /* 1 while a (d') sample runs: the worker polls */
	atomic_int quit;
	atomic_uint generation;   /* bumped to hand out work */
	atomic_uint done;         /* generation the worker finished */
	const rk_skin_job *job;
	size_t begin, end;
} pool;

static void *pool_main(void *arg)
{
	pool *p = (pool *)arg;
	unsigned seen = 0;
	for (;;) {
		pthread_mutex_lock(&p->lock);
		while (!atomic_load(&p->active) && !atomic_load(&p->quit)) pthread_cond_wait(&p->wake, &p->lock);
		pthread_mutex_unlock(&p->lock);
		if (atomic_load(&p->quit)) return NULL;
		while (atomic_load_explicit(&p->active, memory_order_acquire)) {
			const unsigned g = atomic_load_explicit(&p->generation, memory_order_acquire);
			if (g == seen) {
				sched_yield();
				continue;
			}
			rk_skin_run_range(p->job, p->begin, p->end);
			seen = g;
			atomic_store_explicit(&p->done, g, memory_order_release);
		}
	}
}

static pool the_pool;

static void pool_set_active(int on)
{
	pthread_mutex_lock(&the_pool.lock);
	atomic_store(&the_pool.active, on);
	pthread_cond_signal(&the_pool.wake);
	pthread_mutex_unlock(&the_pool.lock);
}

static void pool_run(const rk_skin_job *job)
{
	size_t b0, e0;
	rk_skin_split(job->vertex_count, 2, 0, &b0, &e0);
	rk_skin_split(job->vertex_count, 2, 1, &the_pool.begin, &the_pool.end);
	the_pool.job = job;
	const unsigned g = atomic_load_explicit(&the_pool.generation, memory_order_relaxed) + 1;
	atomic_store_explicit(&the_pool.generation, g, memory_order_release);
	rk_skin_run_range(job, b0, e0);
	while (atomic_load_explicit(&the_pool.done, memory_order_acquire) != g) sched_yield();
}

static void run_row(bench_data *d, row_kind r, const rk_skin_job *job)
{
	switch (r) {
	case ROW_NAIVE: naive_skin(d->n, d->pos, d->nrm, d->jnt, d->wgt, d->pal4, d->out_pos, d->out_nrm); break;
	case ROW_CEILING: copy_ceiling(d->n, d->pos, d->nrm, d->jnt, d->wgt, d->out_pos, d->out_nrm); break;
	case ROW_BEST_2T: rk_skin_run_threads(job, 2); break;
	case ROW_POOL_2T: pool_run(job); break;
	default: rk_skin_run(job); break;
	}
}

/* One sample: seconds per pass over `reps` passes. */
static double sample(bench_data *d, row_kind r, const rk_skin_job *job, int reps)
{
	if (r == ROW_POOL_2T) pool_set_active(1);
	double t0 = bench_now();
	for (int i = 0; i < reps; i++) run_row(d, r, job);
	double t = (bench_now() - t0) / reps;
	if (r == ROW_POOL_2T) pool_set_active(0);
	return t;
}

static void read_loadavg(char *dst, size_t cap)
{
	snprintf(dst, cap, "unknown");
	FILE *f = fopen("/proc/loadavg", "r");
	if (!f) return;
	if (fgets(dst, (int)cap, f)) {
		size_t l = strlen(dst);
		while (l > 0 && (dst[l - 1] == '\n' || dst[l - 1] == '\r')) dst[--l] = '\0';
	}
	fclose(f);
}

static void cpu_model(char *dst, size_t cap)
{
	snprintf(dst, cap, "unknown CPU");
	FILE *f = fopen("/proc/cpuinfo", "r");
	if (!f) return;
	char line[512];
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "model name", 10) == 0) {
			const char *c = strchr(line, ':');
			if (c) {
				c++;
				while (*c == ' ' || *c == '\t') c++;
				snprintf(dst, cap, "%s", c);
				size_t l = strlen(dst);
				while (l > 0 && (dst[l - 1] == '\n' || dst[l - 1] == '\r')) dst[--l] = '\0';
			}
			break;
		}
	}
	fclose(f);
}

int main(int argc, char **argv)
{
	int runs = 11;
	bool quick = false;
	for (int a = 1; a < argc; a++) {
		if (strcmp(argv[a], "-n") == 0 && a + 1 < argc) runs = atoi(argv[++a]);
		else if (strcmp(argv[a], "--quick") == 0) quick = true;
		else {
			fprintf(stderr, "usage: bench_skin [-n RUNS] [--quick]\n");
			return 1;
		}
	}
	if (runs < 9) runs = 9;
	if (runs > 1000) runs = 1000;

	char cpu[256];
	cpu_model(cpu, sizeof(cpu));
	printf("bench_skin: %d joints, 4 influences, positions + normals (renormalised), separate packed float streams\n",
		JOINTS);
	printf("machine: %s, %ld online CPUs; best path = %s; median of %d samples (each >= 2 ms of passes)\n", cpu,
		sysconf(_SC_NPROCESSORS_ONLN), rk_skin_path_name(rk_skin_resolve_path(RK_SKIN_PATH_AUTO)), runs);
	char loadavg[128];
	read_loadavg(loadavg, sizeof(loadavg));
	printf("load average before: %s (other processes share these CPUs)\n", loadavg);
	printf("bytes per vertex: 48 read + 24 written = 72 (GB/s below counts these, not write-allocate traffic)\n\n");

	atomic_init(&the_pool.generation, 0);
	atomic_init(&the_pool.done, 0);
	atomic_init(&the_pool.active, 0);
	atomic_init(&the_pool.quit, 0);
	pthread_mutex_init(&the_pool.lock, NULL);
	pthread_cond_init(&the_pool.wake, NULL);
	if (pthread_create(&the_pool.thread, NULL, pool_main, &the_pool) != 0) {
		fprintf(stderr, "bench_skin: cannot create the helper thread\n");
		return 1;
	}

	const size_t sizes[] = { 10000, 100000, 1000000 };
	const size_t size_count = quick ? 2 : 3;
	double med[3][ROW_COUNT];
	double *samples = malloc(sizeof(double) * (size_t)runs * ROW_COUNT);
	if (!samples) return 1;

	for (size_t si = 0; si < size_count; si++) {
		bench_data d;
		data_make(&d, sizes[si]);
		data_make_interleaved(&d);
		rk_skin_job jobs[ROW_COUNT];
		int reps[ROW_COUNT];
		for (int r = 0; r < ROW_COUNT; r++) {
			jobs[r] = make_job(&d, (row_kind)r);
			if (!row_available((row_kind)r)) continue;
			if (r != ROW_NAIVE && r != ROW_CEILING) {
				rk_error err;
				if (!rk_skin_validate(&jobs[r], &err)) {
					fprintf(stderr, "bench_skin: %s: %s\n", row_names[r], err.message);
					return 1;
				}
			}
			/* Warm-up and calibration: enough passes for >= 2 ms. */
			sample(&d, (row_kind)r, &jobs[r], 1);
			double one = sample(&d, (row_kind)r, &jobs[r], 1);
			int k = (int)(2e-3 / (one > 1e-9 ? one : 1e-9)) + 1;
			reps[r] = k > 100000 ? 100000 : k;
		}
		for (int s = 0; s < runs; s++)
			for (int r = 0; r < ROW_COUNT; r++)
				if (row_available((row_kind)r))
					samples[r * runs + s] = sample(&d, (row_kind)r, &jobs[r], reps[r]);
		for (int r = 0; r < ROW_COUNT; r++)
			med[si][r] = row_available((row_kind)r) ? bench_median(samples + r * runs, runs) : NAN;
		data_free(&d);
	}

	printf("| vertices | row | ms / pass | ns / vertex | GB/s | vs (a) |\n");
	printf("|---:|---|---:|---:|---:|---:|\n");
	for (size_t si = 0; si < size_count; si++)
		for (int r = 0; r < ROW_COUNT; r++) {
			double t = med[si][r];
			if (isnan(t)) continue;
			printf("| %zu | %s | %.3f | %.2f | %.1f | %.2fx |\n", sizes[si], row_names[r], t * 1e3, t * 1e9 / (double)sizes[si],
				72.0 * (double)sizes[si] / t * 1e-9, med[si][ROW_BEST] / t);
		}

	printf("\n| vertices | (a)/(b) speed-up vs naive | (a) as %% of (c) ceiling throughput | (d)/(a) 2-thread scaling | (d')/(a) |\n");
	printf("|---:|---:|---:|---:|---:|\n");
	for (size_t si = 0; si < size_count; si++)
		printf("| %zu | %.2fx | %.0f%% | %.2fx | %.2fx |\n", sizes[si], med[si][ROW_NAIVE] / med[si][ROW_BEST],
			100.0 * med[si][ROW_CEILING] / med[si][ROW_BEST], med[si][ROW_BEST] / med[si][ROW_BEST_2T],
			med[si][ROW_BEST] / med[si][ROW_POOL_2T]);
	if (size_count == 3) {
		const double *m = med[2];
		printf("\ntargets at 1M vertices: (a) >= 5x (b): %s (%.2fx); (a) >= 60%% of (c): %s (%.0f%%); (d) >= 1.7x (a): %s (%.2fx)\n",
			m[ROW_NAIVE] / m[ROW_BEST] >= 5.0 ? "met" : "MISSED", m[ROW_NAIVE] / m[ROW_BEST],
			m[ROW_CEILING] / m[ROW_BEST] >= 0.6 ? "met" : "MISSED", 100.0 * m[ROW_CEILING] / m[ROW_BEST],
			m[ROW_BEST] / m[ROW_BEST_2T] >= 1.7 ? "met" : "MISSED", m[ROW_BEST] / m[ROW_BEST_2T]);
	}
	pthread_mutex_lock(&the_pool.lock);
	atomic_store(&the_pool.quit, 1);
	pthread_cond_signal(&the_pool.wake);
	pthread_mutex_unlock(&the_pool.lock);
	pthread_join(the_pool.thread, NULL);
	read_loadavg(loadavg, sizeof(loadavg));
	printf("\nload average after: %s\n", loadavg);
	free(samples);
	return 0;
}
