/*
 * src/skin/skin.c - rigkit/skin.h: validation, path selection, ranges and
 * threads, palette conversion. The kernels live in skin_scalar.c,
 * skin_sse2.c, skin_avx2.c, skin_avx512.c and (WebAssembly) skin_wasm128.c.
 */
#include "skin/skin_internal.h"

#include "core/internal.h"
#include "rigkit/tasks.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static bool rki_skin_fail(rk_error *err, rk_error_code code, const char *fmt, ...) RKI_PRINTF(3, 4);
static bool rki_skin_fail(rk_error *err, rk_error_code code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	rki_error_setv(err, code, fmt, ap);
	va_end(ap);
	return false;
}

/* ---------------------------------------------------------------------------
 * Paths
 * ------------------------------------------------------------------------- */

/* libgcc / compiler-rt fill the CPU model in a constructor; reading it is
 * thread safe. AVX features are only reported when the OS saves the
 * YMM / ZMM state. */
static bool rki_skin_cpu_avx2(void)
{
#if defined(RKI_SKIN_HAVE_AVX2)
	return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#else
	return false;
#endif
}

static bool rki_skin_cpu_avx512(void)
{
#if defined(RKI_SKIN_HAVE_AVX512)
	return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl");
#else
	return false;
#endif
}

bool rk_skin_path_supported(rk_skin_path path)
{
	switch (path) {
	case RK_SKIN_PATH_AUTO:
	case RK_SKIN_PATH_SCALAR:
		return true;
	case RK_SKIN_PATH_SSE2: /* == RK_SKIN_PATH_SIMD128 */
#if defined(RKI_SKIN_HAVE_SSE2) || defined(RKI_SKIN_HAVE_WASM128)
		return true;
#else
		return false;
#endif
	case RK_SKIN_PATH_AVX2:
		return rki_skin_cpu_avx2();
	case RK_SKIN_PATH_AVX512:
		return rki_skin_cpu_avx512();
	default:
		return false;
	}
}

rk_skin_path rk_skin_resolve_path(rk_skin_path path)
{
	if (path == RK_SKIN_PATH_AUTO) {
		if (rk_skin_path_supported(RK_SKIN_PATH_AVX512)) return RK_SKIN_PATH_AVX512;
		if (rk_skin_path_supported(RK_SKIN_PATH_AVX2)) return RK_SKIN_PATH_AVX2;
		if (rk_skin_path_supported(RK_SKIN_PATH_SSE2)) return RK_SKIN_PATH_SSE2;
		return RK_SKIN_PATH_SCALAR;
	}
	return rk_skin_path_supported(path) ? path : RK_SKIN_PATH_AUTO;
}

const char *rk_skin_path_name(rk_skin_path path)
{
	switch (path) {
	case RK_SKIN_PATH_AUTO: return "auto";
	case RK_SKIN_PATH_SCALAR: return "scalar";
#if defined(RKI_SKIN_HAVE_WASM128)
	case RK_SKIN_PATH_SIMD128: return "simd128";
#else
	case RK_SKIN_PATH_SSE2: return "sse2";
#endif
	case RK_SKIN_PATH_AVX2: return "avx2";
	case RK_SKIN_PATH_AVX512: return "avx512";
	default: return "unknown";
	}
}

static rki_skin_kernel rki_skin_kernel_for(rk_skin_path resolved)
{
	switch (resolved) {
#if defined(RKI_SKIN_HAVE_AVX512)
	case RK_SKIN_PATH_AVX512: return rki_skin_kernel_avx512;
#endif
#if defined(RKI_SKIN_HAVE_AVX2)
	case RK_SKIN_PATH_AVX2: return rki_skin_kernel_avx2;
#endif
#if defined(RKI_SKIN_HAVE_SSE2)
	case RK_SKIN_PATH_SSE2: return rki_skin_kernel_sse2;
#elif defined(RKI_SKIN_HAVE_WASM128)
	case RK_SKIN_PATH_SIMD128: return rki_skin_kernel_wasm128;
#endif
	default: return rki_skin_kernel_scalar;
	}
}

size_t rk_skin_matrix_floats(rk_skin_matrix_format format)
{
	switch (format) {
	case RK_SKIN_MATRIX_4X4: return 16;
	case RK_SKIN_MATRIX_3X4: return 12;
	default: return 0;
	}
}

/* ---------------------------------------------------------------------------
 * Validation
 * ------------------------------------------------------------------------- */

/* One strided stream: alignment, stride, extent. */
static bool rki_skin_check_stream(const void *ptr, size_t stride, size_t elem, size_t align, size_t count,
	const char *name, size_t *out_stride, rk_error *err)
{
	if (stride == 0) stride = elem;
	if (stride < elem)
		return rki_skin_fail(err, RK_ERROR_INVALID_ARGUMENT, "%s stride %zu is smaller than its element (%zu bytes)",
			name, stride, elem);
	if (stride % align != 0)
		return rki_skin_fail(err, RK_ERROR_INVALID_ARGUMENT, "%s stride %zu is not a multiple of %zu", name, stride, align);
	if ((uintptr_t)ptr % align != 0)
		return rki_skin_fail(err, RK_ERROR_INVALID_ARGUMENT, "%s pointer is not %zu-byte aligned", name, align);
	/* (count - 1) * stride + elem bytes from ptr, without wrapping. */
	if (count - 1 > (SIZE_MAX - elem) / stride)
		return rki_skin_fail(err, RK_ERROR_INVALID_ARGUMENT, "%s: %zu vertices of stride %zu overflow size_t", name,
			count, stride);
	size_t extent = (count - 1) * stride + elem;
	if (extent > UINTPTR_MAX - (uintptr_t)ptr)
		return rki_skin_fail(err, RK_ERROR_INVALID_ARGUMENT, "%s: %zu bytes from its pointer wrap the address space",
			name, extent);
	*out_stride = stride;
	return true;
}

/* Validates and fills the kernel arguments. */
static bool rki_skin_prepare(const rk_skin_job *job, rki_skin_args *a, rki_skin_kernel *kernel, rk_error *err)
{
	if (!job) return rki_skin_fail(err, RK_ERROR_INVALID_ARGUMENT, "job is NULL");
	memset(a, 0, sizeof(*a));
	*kernel = NULL;

	const size_t floats = rk_skin_matrix_floats(job->matrix_format);
	if (floats == 0)
		return rki_skin_fail(err, RK_ERROR_INVALID_ARGUMENT, "matrix_format %d is not a known rk_skin_matrix_format",
			(int)job->matrix_format);
	if (job->normal_mode != RK_SKIN_NORMALS_LINEAR && job->normal_mode != RK_SKIN_NORMALS_INVERSE_TRANSPOSE)
		return rki_skin_fail(err, RK_ERROR_INVALID_ARGUMENT, "normal_mode %d is not a known rk_skin_normal_mode",
			(int)job->normal_mode);
	if ((int)job->path < 0 || job->path >= RK_SKIN_PATH_COUNT_)
		return rki_skin_fail(err, RK_ERROR_INVALID_ARGUMENT, "path %d is not a known rk_skin_path", (int)job->path);
	const rk_skin_path resolved = rk_skin_resolve_path(job->path);
	if (resolved == RK_SKIN_PATH_AUTO)
		return rki_skin_fail(err, RK_ERROR_INVALID_ARGUMENT, "path \"%s\" is not supported by this build or CPU",
			rk_skin_path_name(job->path));
	*kernel = rki_skin_kernel_for(resolved);
	if (job->vertex_count == 0) return true;

	if (!job->joints) return rki_skin_fail(err, RK_ERROR_INVALID_ARGUMENT, "joints is NULL");
	if (!job->weights) return rki_skin_fail(err, RK_ERROR_INVALID_ARGUMENT, "weights is NULL");
	if (!job->matrices) return rki_skin_fail(err, RK_ERROR_INVALID_ARGUMENT, "matrices is NULL");
	if (job->joint_count == 0) return rki_skin_fail(err, RK_ERROR_INVALID_ARGUMENT, "joint_count is 0");
	if (!job->positions != !job->out_positions)
		return rki_skin_fail(err, RK_ERROR_INVALID_ARGUMENT, "%s is NULL but %s is not",
			job->positions ? "out_positions" : "positions", job->positions ? "positions" : "out_positions");
	if (!job->normals != !job->out_normals)
		return rki_skin_fail(err, RK_ERROR_INVALID_ARGUMENT, "%s is NULL but %s is not",
			job->normals ? "out_normals" : "normals", job->normals ? "normals" : "out_normals");
	if (!job->positions && !job->normals)
		return rki_skin_fail(err, RK_ERROR_INVALID_ARGUMENT, "neither positions nor normals are set: nothing to skin");

	const size_t n = job->vertex_count;
	if (!rki_skin_check_stream(job->joints, job->joint_stride, 8, 2, n, "joints", &a->jnt_stride, err)) return false;
	if (!rki_skin_check_stream(job->weights, job->weight_stride, 16, 4, n, "weights", &a->wgt_stride, err)) return false;
	if (job->positions) {
		if (!rki_skin_check_stream(job->positions, job->position_stride, 12, 4, n, "positions", &a->pos_stride, err)) return false;
		if (!rki_skin_check_stream(job->out_positions, job->out_position_stride, 12, 4, n, "out_positions",
			&a->out_pos_stride, err)) return false;
	}
	if (job->normals) {
		if (!rki_skin_check_stream(job->normals, job->normal_stride, 12, 4, n, "normals", &a->nrm_stride, err)) return false;
		if (!rki_skin_check_stream(job->out_normals, job->out_normal_stride, 12, 4, n, "out_normals",
			&a->out_nrm_stride, err)) return false;
	}
	size_t unused;
	if (!rki_skin_check_stream(job->matrices, 0, floats * sizeof(float), 4, job->joint_count, "matrices", &unused, err))
		return false;

	a->pos = (const unsigned char *)job->positions;
	a->nrm = (const unsigned char *)job->normals;
	a->jnt = (const unsigned char *)job->joints;
	a->wgt = (const unsigned char *)job->weights;
	a->out_pos = (unsigned char *)job->out_positions;
	a->out_nrm = (unsigned char *)job->out_normals;
	a->matrices = job->matrices;
	a->joint_last = job->joint_count - 1 > UINT16_MAX ? UINT16_MAX : job->joint_count - 1;
	a->format_3x4 = job->matrix_format == RK_SKIN_MATRIX_3X4;
	a->nrm_mode = !job->normals ? RKI_SKIN_NRM_NONE
		: job->normal_mode == RK_SKIN_NORMALS_INVERSE_TRANSPOSE ? RKI_SKIN_NRM_INVT : RKI_SKIN_NRM_LINEAR;
	a->normalize = !job->keep_normal_length;
	return true;
}

bool rk_skin_validate(const rk_skin_job *job, rk_error *err)
{
	rki_skin_args a;
	rki_skin_kernel k;
	if (!rki_skin_prepare(job, &a, &k, err)) return false;
	rki_error_clear(err);
	return true;
}

bool rk_skin_check_joints(const rk_skin_job *job, rk_error *err)
{
	rki_skin_args a;
	rki_skin_kernel k;
	if (!rki_skin_prepare(job, &a, &k, err)) return false;
	for (size_t v = 0; v < job->vertex_count; v++) {
		const uint16_t *j = (const uint16_t *)(const void *)(a.jnt + v * a.jnt_stride);
		for (int s = 0; s < 4; s++)
			if (j[s] >= job->joint_count)
				return rki_skin_fail(err, RK_ERROR_CORRUPT,
					"vertex %zu: joint index %u (slot %d) is not below joint_count %zu", v, (unsigned)j[s], s,
					job->joint_count);
	}
	rki_error_clear(err);
	return true;
}

/* ---------------------------------------------------------------------------
 * Runs
 * ------------------------------------------------------------------------- */

bool rk_skin_run(const rk_skin_job *job)
{
	return job && rk_skin_run_range(job, 0, job->vertex_count);
}

bool rk_skin_run_range(const rk_skin_job *job, size_t begin, size_t end)
{
	rki_skin_args a;
	rki_skin_kernel kernel;
	if (!rki_skin_prepare(job, &a, &kernel, NULL)) return false;
	if (begin > end || end > job->vertex_count) return false;
	if (begin < end) kernel(&a, begin, end);
	return true;
}

void rk_skin_split(size_t vertex_count, size_t count, size_t index, size_t *begin, size_t *end)
{
	size_t b = 0, e = 0;
	if (count > 0 && index < count) {
		/* Whole blocks of RK_SKIN_SPLIT_ALIGN vertices, spread as evenly as
		 * possible (the first `extra` ranges get one block more). */
		const size_t blocks = vertex_count / RK_SKIN_SPLIT_ALIGN + (vertex_count % RK_SKIN_SPLIT_ALIGN != 0);
		const size_t per = blocks / count, extra = blocks % count;
		const size_t first = index * per + (index < extra ? index : extra);
		const size_t mine = per + (index < extra ? 1 : 0);
		b = first * RK_SKIN_SPLIT_ALIGN;
		e = (first + mine) * RK_SKIN_SPLIT_ALIGN;
		if (b > vertex_count) b = vertex_count;
		if (e > vertex_count) e = vertex_count;
	}
	if (begin) *begin = b;
	if (end) *end = e;
}

/* Work shared by rk_skin_run_threads: chunk c is vertices
 * [c * chunk, min((c + 1) * chunk, vertex_count)). rk_parallel_for hands the
 * chunks out from an atomic counter, so a thread that starts late (a busy
 * machine) simply takes fewer, and the calling thread never idles while
 * work is left. Chunk boundaries are multiples of RK_SKIN_SPLIT_ALIGN. */
typedef struct rki_skin_shared {
	const rki_skin_args *args;
	rki_skin_kernel kernel;
	size_t vertex_count, chunk;
} rki_skin_shared;

_Static_assert(RK_SKIN_MAX_THREADS <= RK_TASKS_MAX_HELPERS + 1, "rk_parallel_for runs at most RK_TASKS_MAX_HELPERS + 1 threads");

static void rki_skin_chunk(void *user, size_t c, size_t worker)
{
	(void)worker;
	const rki_skin_shared *sh = (const rki_skin_shared *)user;
	const size_t begin = c * sh->chunk;
	const size_t end = sh->vertex_count - begin < sh->chunk ? sh->vertex_count : begin + sh->chunk;
	sh->kernel(sh->args, begin, end);
}

bool rk_skin_run_threads(const rk_skin_job *job, size_t threads)
{
	rki_skin_args a;
	rki_skin_kernel kernel;
	if (!rki_skin_prepare(job, &a, &kernel, NULL)) return false;
	const size_t n = job->vertex_count;
	if (n == 0) return true;

	if (threads == 0) threads = rk_cpu_count(); /* the documented default */
	if (threads > RK_SKIN_MAX_THREADS) threads = RK_SKIN_MAX_THREADS;
	const size_t useful = n / RK_SKIN_MIN_THREAD_VERTICES;
	if (threads > useful) threads = useful > 0 ? useful : 1;
	if (threads == 1) {
		kernel(&a, 0, n);
		return true;
	}

	/* About 8 chunks per thread (load balance), at least
	 * RK_SKIN_MIN_THREAD_VERTICES / 2 vertices each (overhead). */
	size_t chunk = n / (threads * 8);
	if (chunk < RK_SKIN_MIN_THREAD_VERTICES / 2) chunk = RK_SKIN_MIN_THREAD_VERTICES / 2;
	chunk = (chunk + RK_SKIN_SPLIT_ALIGN - 1) / RK_SKIN_SPLIT_ALIGN * RK_SKIN_SPLIT_ALIGN;
	rki_skin_shared sh;
	sh.args = &a;
	sh.kernel = kernel;
	sh.vertex_count = n;
	sh.chunk = chunk;
	/* threads <= n / 1024 and chunk <= n / (8 * threads) or 512 give at
	 * least 2 * threads chunks, so rk_parallel_for never clamps threads. */
	rk_parallel_for((n + chunk - 1) / chunk, threads, rki_skin_chunk, &sh);
	return true;
}

/* ---------------------------------------------------------------------------
 * Palette
 * ------------------------------------------------------------------------- */

void rk_skin_palette_from_mat4(float *dst, const rk_mat4 *src, size_t count, rk_skin_matrix_format format)
{
	if (!dst || !src) return;
	if (format == RK_SKIN_MATRIX_4X4) {
		for (size_t i = 0; i < count; i++)
			for (int e = 0; e < 16; e++) dst[i * 16 + e] = (float)src[i].m[e];
	} else if (format == RK_SKIN_MATRIX_3X4) {
		for (size_t i = 0; i < count; i++)
			for (int row = 0; row < 3; row++)
				for (int col = 0; col < 4; col++) dst[i * 12 + row * 4 + col] = (float)src[i].m[col * 4 + row];
	}
}
