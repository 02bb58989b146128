/*
 * rigkit/skin.h - CPU linear blend skinning of float positions and normals,
 * 4 influences per vertex (runtime, single precision, SIMD).
 *
 * OVERVIEW
 *   One job, rk_skin_job: caller-owned input streams (positions, normals,
 *   joint indices, weights), a caller-owned palette of skinning matrices and
 *   caller-owned output streams. The job owns no memory and never allocates.
 *
 *     rk_skin_validate()          checks the job (O(1): pointers, strides,
 *                                 sizes, alignment, enums)
 *     rk_skin_check_joints()      optional O(n) scan: every joint index is
 *                                 < joint_count (runs clamp regardless)
 *     rk_skin_run()               skins every vertex on the calling thread
 *     rk_skin_run_range()         skins vertices [begin, end) only, so the
 *                                 caller can spread ranges over its own
 *                                 threads or job system (rk_skin_split()
 *                                 gives cache-friendly ranges)
 *     rk_skin_run_threads()       convenience: runs the job on N threads
 *                                 (N - 1 pthreads created and joined per
 *                                 call, plus the calling thread, sharing
 *                                 chunks of vertices)
 *     rk_skin_palette_from_mat4() rk_mat4 (double, e.g. from anim.h's
 *                                 rk_skin_matrices_eval) -> float palette
 *
 *   Typical use, every frame:
 *
 *     rk_skin_matrices_eval(scene, skin, &pose, mesh_node, mats);  // double, joint_count
 *     rk_skin_palette_from_mat4(palette, mats, joint_count, RK_SKIN_MATRIX_4X4);
 *     // (or the runtime module's float palette: rk_local_to_model_job's
 *     //  `skinning` rk_float4x4 array is already RK_SKIN_MATRIX_4X4:
 *     //  .matrices = &skinning[0].m[0])
 *     rk_skin_job job = {
 *         .vertex_count = n,
 *         .positions = pos, .normals = nrm, .joints = joints, .weights = weights,
 *         .matrices = palette, .joint_count = joint_count,
 *         .out_positions = out_pos, .out_normals = out_nrm };
 *     if (!rk_skin_validate(&job, &err)) ...;   // once, when buffers change
 *     rk_skin_run(&job);                        // or rk_skin_run_threads(&job, 4)
 *
 * WHAT A RUN COMPUTES, per vertex v (float arithmetic; the order of the
 * sums as written is SCALAR's, see CODE PATHS)
 *   j_k = joints[v][k], w_k = weights[v][k], k = 0..3; an index >=
 *   joint_count is clamped to joint_count - 1 (never a read outside the
 *   palette; rk_skin_check_joints() reports such indices).
 *     M        = ((w_0 M_j0 + w_1 M_j1) + w_2 M_j2) + w_3 M_j3   (affine 3x4)
 *     position = M * (x, y, z, 1)
 *     normal   = N * (nx, ny, nz), N depending on normal_mode:
 *                RK_SKIN_NORMALS_LINEAR (default): the upper 3x3 of M,
 *                  what GPU skinning shaders usually do. Exact after
 *                  renormalisation where that 3x3 is a rotation times a
 *                  uniform scale (one influence, or influences that
 *                  agree); between joints that bend differently a blend of
 *                  rotations is not a rotation and the normals lean
 *                  (docs/skinning.md measures it on Mixamo characters).
 *                RK_SKIN_NORMALS_INVERSE_TRANSPOSE: sign(det A) * cof(A),
 *                  A = upper 3x3 of M, cof the cofactor matrix
 *                  (= det(A) * inverse-transpose of A): the exact normal
 *                  transform for any M, as anim.h's reference uses; about
 *                  1.8x the time of LINEAR on the AVX-512 path.
 *              then, unless keep_normal_length, n / |n| (zero or non-finite
 *              length gives (0, 0, 0)).
 *   Weights are used as given: they are not renormalised, and all four
 *   slots are always evaluated (a slot with weight 0 adds exactly 0 for
 *   finite matrices). A vertex whose weights are all zero collapses to the
 *   origin, like a GPU shader does (see mesh.h RK_UNWEIGHTED_*).
 *   The bottom row of 4x4 matrices is ignored (taken as 0 0 0 1).
 *
 * LAYOUTS
 *   Every vertex stream is a base pointer plus a byte stride (0 = tightly
 *   packed), so both of these work:
 *     separate arrays    positions float[n][3], normals float[n][3],
 *                        joints uint16[n][4], weights float[n][4]
 *     interleaved        one vertex struct, e.g. mesh.h's rk_gpu_vertex
 *                        (stride 56: position at byte 0, normal 12,
 *                        joints 32, weights 40 with RK_WEIGHTS_FLOAT):
 *                          .positions = &v[0].position[0], .position_stride = 56,
 *                          .normals = &v[0].normal[0],     .normal_stride = 56,
 *                          .joints = &v[0].joints[0],      .joint_stride = 56,
 *                          .weights = &v[0].weights[0],    .weight_stride = 56
 *   Component-planar SoA (x[], y[], z[]) and uint16 UNORM weights are not
 *   supported. Outputs are strided the same way, so results can be written
 *   straight into an interleaved GPU vertex buffer; only the 12 bytes of
 *   each output position / normal are written, bytes between them are left
 *   untouched.
 *
 * MATRIX PALETTE (matrices, joint_count entries, consecutive)
 *   RK_SKIN_MATRIX_4X4 (default)  16 floats, column-major m[col * 4 + row],
 *                                 the memory layout of rk_mat4 and glTF;
 *                                 translation in m[12..14]. 64 bytes each.
 *   RK_SKIN_MATRIX_3X4            12 floats, the top three ROWS of the
 *                                 matrix, row-major m[row * 4 + col]
 *                                 (HLSL row_major float3x4, the usual GPU
 *                                 palette); translation in m[3], m[7], m[11].
 *                                 48 bytes each.
 *
 * ALIGNMENT AND SIZES
 *   Floats must be 4-byte aligned, joint indices 2-byte aligned; float
 *   strides are multiples of 4 and >= 12 (positions, normals) or >= 16
 *   (weights); the joint stride is a multiple of 2 and >= 8. No 16-byte
 *   alignment is required anywhere (the SIMD paths use unaligned loads).
 *   Vertex v of a stream
 *   occupies bytes [v * stride, v * stride + element size) from its base
 *   pointer; the run reads and writes nothing else (no over-reads, no
 *   over-writes, also not on the last vertex).
 *
 * ALIASING
 *   Each vertex's inputs are read before its outputs are written, so
 *   in-place skinning is allowed: out_positions == positions with the same
 *   stride (likewise normals). Any other overlap between an output and an
 *   input, or between the two outputs' bytes, gives unspecified values (but
 *   no access outside the streams).
 *
 * CODE PATHS (rk_skin_path)
 *   SCALAR  plain C, always built; the reference the others are tested
 *           against.
 *   SSE2    x86 baseline: one vertex per iteration in 128-bit registers,
 *           the same operation order as SCALAR (bit-identical results when
 *           the compiler does not contract the scalar multiply-adds).
 *   SIMD128 (the same enum value as SSE2) WebAssembly: in a module compiled
 *           with -msimd128 the 128-bit path is the SSE2 kernel's algorithm
 *           in WASM SIMD128 intrinsics, chosen at compile time, also
 *           bit-identical to SCALAR; rk_skin_path_name() calls it
 *           "simd128". A WebAssembly build without -msimd128 has only
 *           SCALAR.
 *   AVX2    AVX2 + FMA: the per-vertex blend on two matrix columns per
 *           256-bit register, vertices in groups of 4 (one register for the
 *           group's joint indices, one square root and one division for its
 *           4 normals, issued one group ahead).
 *   AVX512  AVX-512 F + VL: the whole matrix in one 512-bit register,
 *           groups of 4 as above; separate packed arrays are read and
 *           written 4 vertices (48 bytes per stream) at a time.
 *   AVX2 and AVX512 are compiled with function target attributes and
 *   chosen at run time (__builtin_cpu_supports); they fuse multiply-adds
 *   and sum in other orders, so they agree with SCALAR to a few float ulps,
 *   not bit for bit. Every path uses only IEEE-exact operations (no
 *   approximate reciprocals), so a path gives the same bits on every CPU
 *   that runs it, and a vertex gets the same bits whatever range, group or
 *   thread split it is skinned in.
 *   RK_SKIN_PATH_AUTO picks the best supported path: AVX512, AVX2, SSE2
 *   (or SIMD128), SCALAR in that order. (On Intel CPUs that lower their clock for 512-bit
 *   work, e.g. Skylake-SP, an application that mixes other work on the same
 *   cores may prefer to ask for AVX2.) A build with RK_SCALAR_ONLY (CMake
 *   -DRIGKIT_SCALAR_ONLY=ON) or a non-x86 target has only SCALAR (and
 *   SIMD128 on WebAssembly with -msimd128); a compiler without GCC-style
 *   target attributes has no AVX2 / AVX512. Asking for an unsupported
 *   path fails validation.
 *
 * THREADS
 *   No global state. Any number of jobs may run concurrently; ranges of one
 *   job may run concurrently when their vertex ranges are disjoint (outputs
 *   of different vertices never share bytes, although they may share cache
 *   lines; rk_skin_split() aligns range boundaries to RK_SKIN_SPLIT_ALIGN
 *   vertices to keep that to the range edges). rk_skin_run_threads()
 *   creates its threads on each call and joins them before returning (no
 *   pool is kept alive); creating threads is the one thing here that
 *   allocates (thread stacks, by the C library). For zero allocation per
 *   frame run ranges on your own threads.
 *
 * UNTRUSTED DATA
 *   Validation checks every pointer, stride and size (including overflow
 *   of vertex_count * stride). Joint indices are clamped; weights, positions
 *   and matrices may hold any float (NaN/inf propagate into that vertex's
 *   outputs, or give a zero normal).
 */
#ifndef RIGKIT_SKIN_H
#define RIGKIT_SKIN_H

#include "rigkit/base.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum rk_skin_matrix_format {
	RK_SKIN_MATRIX_4X4 = 0,            /* 16 floats, column-major (rk_mat4 layout) */
	RK_SKIN_MATRIX_3X4                 /* 12 floats, top three rows, row-major */
} rk_skin_matrix_format;

typedef enum rk_skin_normal_mode {
	RK_SKIN_NORMALS_LINEAR = 0,        /* upper 3x3 of the blended matrix */
	RK_SKIN_NORMALS_INVERSE_TRANSPOSE  /* sign(det) * cofactor of it (exact for any matrix) */
} rk_skin_normal_mode;

typedef enum rk_skin_path {
	RK_SKIN_PATH_AUTO = 0,             /* best supported path */
	RK_SKIN_PATH_SCALAR,               /* plain C, always available */
	RK_SKIN_PATH_SSE2,                 /* x86 SSE2 intrinsics */
	RK_SKIN_PATH_AVX2,                 /* x86 AVX2 + FMA intrinsics, run-time detected */
	RK_SKIN_PATH_AVX512,               /* x86 AVX-512 F + VL intrinsics, run-time detected */
	RK_SKIN_PATH_COUNT_,
	/* The 128-bit path under its WebAssembly name: a module built with
	 * -msimd128 runs WASM SIMD128 intrinsics for it (name "simd128"). */
	RK_SKIN_PATH_SIMD128 = RK_SKIN_PATH_SSE2
} rk_skin_path;

/* Skinning job. Zero-initialise, then set the fields; every zero field is
 * its default. Strides are in bytes, 0 = tightly packed (the element size).
 * Either stream pair (positions -> out_positions, normals -> out_normals)
 * may be absent (both pointers NULL), not both. */
typedef struct rk_skin_job {
	size_t vertex_count;               /* vertices in every stream */

	/* inputs */
	const float *positions;            /* float x3 per vertex (mesh / bind space), NULL = none */
	size_t position_stride;            /* default 12 */
	const float *normals;              /* float x3 per vertex, NULL = none */
	size_t normal_stride;              /* default 12 */
	const uint16_t *joints;            /* uint16 x4 per vertex: palette indices, required */
	size_t joint_stride;               /* default 8 */
	const float *weights;              /* float x4 per vertex, used as given, required */
	size_t weight_stride;              /* default 16 */
	const float *matrices;             /* joint_count matrices in matrix_format, required */
	size_t joint_count;                /* >= 1 */
	rk_skin_matrix_format matrix_format; /* default RK_SKIN_MATRIX_4X4 */

	/* outputs */
	float *out_positions;              /* float x3 per vertex; set iff positions is */
	size_t out_position_stride;        /* default 12 */
	float *out_normals;                /* float x3 per vertex; set iff normals is */
	size_t out_normal_stride;          /* default 12 */

	/* options */
	rk_skin_normal_mode normal_mode;   /* default RK_SKIN_NORMALS_LINEAR */
	bool keep_normal_length;           /* default false: normals are renormalised */
	rk_skin_path path;                 /* default RK_SKIN_PATH_AUTO */
} rk_skin_job;

/* Checks the job without running it. Rules, each reported with its own
 * message in err (code RK_ERROR_INVALID_ARGUMENT; err may be NULL):
 *   job is non-NULL; vertex_count == 0 is valid with any pointers (a run
 *   does nothing); otherwise joints, weights and matrices are non-NULL;
 *   joint_count >= 1; positions and out_positions are both set or both
 *   NULL, likewise normals and out_normals, and at least one pair is set;
 *   float pointers are 4-byte aligned, joints 2-byte aligned; every stride
 *   is 0 or at least its element size (12, 12, 8, 16; outputs 12) and a
 *   multiple of 4 (joints: 2); (vertex_count - 1) * stride + element size
 *   and joint_count * matrix size fit in size_t (and in the address space
 *   after their base pointer); matrix_format, normal_mode and path are
 *   known values and path is supported by this build and CPU
 *   (rk_skin_path_supported). O(1): joint indices are not scanned (see
 *   rk_skin_check_joints). Thread safe, no allocation. */
bool rk_skin_validate(const rk_skin_job *job, rk_error *err);

/* Scans every vertex's four joint indices against joint_count. Returns
 * true when all are < joint_count; false with err naming the first bad
 * vertex, slot and index (RK_ERROR_CORRUPT), or with the rk_skin_validate
 * error when the job is invalid. Use it once when the data is loaded: runs
 * clamp such indices to joint_count - 1 and never fail on them.
 * O(vertex_count), thread safe, no allocation. */
bool rk_skin_check_joints(const rk_skin_job *job, rk_error *err);

/* Skins every vertex (WHAT A RUN COMPUTES) on the calling thread. Returns
 * false without writing anything when rk_skin_validate() would fail (call
 * it yourself to learn why). No allocation. */
bool rk_skin_run(const rk_skin_job *job);

/* Skins vertices [begin, end) only: reads and writes only those vertices'
 * bytes. Returns false without writing when the job is invalid or
 * begin > end or end > vertex_count; begin == end is a valid no-op. Results
 * per vertex do not depend on the range (a vertex skinned by any range
 * split gets the bits rk_skin_run gives it). Safe to call concurrently on
 * one job with disjoint ranges. No allocation. */
bool rk_skin_run_range(const rk_skin_job *job, size_t begin, size_t end);

/* Vertex alignment of rk_skin_split() boundaries (64 vertices: range edges
 * fall on whole cache lines of every packed float x3 / x4 stream). */
#define RK_SKIN_SPLIT_ALIGN 64

/* Range `index` of `count` near-equal parts of [0, vertex_count):
 * boundaries are multiples of RK_SKIN_SPLIT_ALIGN (except vertex_count
 * itself), ranges are disjoint, ascending and cover everything; some may be
 * empty when vertex_count is small. Writes *begin = *end = 0 when count == 0
 * or index >= count. Pure. */
void rk_skin_split(size_t vertex_count, size_t count, size_t index, size_t *begin, size_t *end);

/* Most threads rk_skin_run_threads() uses. */
#define RK_SKIN_MAX_THREADS 64

/* Runs the job on `threads` threads, the calling one included (the same
 * meaning as rk_load_opts.threads): 0 = default, one per CPU this process
 * can use (rk_cpu_count(), rigkit/tasks.h); 1 = never start a thread.
 * Clamped to RK_SKIN_MAX_THREADS and to one thread per
 * RK_SKIN_MIN_THREAD_VERTICES vertices so tiny jobs do not pay for thread
 * creation. It is one rk_parallel_for() over chunks of vertices (multiples
 * of RK_SKIN_SPLIT_ALIGN, about 8 per thread): threads - 1 helpers and the
 * calling thread take chunks from a shared atomic counter until none are
 * left; all helpers are joined before returning. A thread
 * that starts late (a busy machine) just takes fewer chunks, and when a
 * thread cannot be created the others do its share, so the result is
 * always complete. Results are bit-identical to rk_skin_run. Returns false
 * without writing when the job is invalid. Allocation: only what thread
 * creation does; no state survives the call. For per-frame use on many
 * small meshes, prefer rk_skin_run_range on threads you keep: creating
 * threads costs tens of microseconds, more on a loaded machine. */
bool rk_skin_run_threads(const rk_skin_job *job, size_t threads);

/* See rk_skin_run_threads. */
#define RK_SKIN_MIN_THREAD_VERTICES 1024

/* Whether `path` can run in this build on this CPU. AUTO and SCALAR always
 * can; unknown values cannot. Thread safe. */
bool rk_skin_path_supported(rk_skin_path path);

/* The path a job with `path` runs: AUTO resolves to the best supported
 * path (AVX512, AVX2, SSE2, SCALAR); a supported explicit path is
 * returned as is; an unsupported one gives RK_SKIN_PATH_AUTO (such a job
 * does not validate). Thread safe. */
rk_skin_path rk_skin_resolve_path(rk_skin_path path);

/* Static name of a path ("auto", "scalar", "sse2" ("simd128" in a
 * WebAssembly SIMD build), "avx2", "avx512"; "unknown"). */
const char *rk_skin_path_name(rk_skin_path path);

/* Floats per matrix of a format: 16 (4X4), 12 (3X4), 0 for unknown values. */
size_t rk_skin_matrix_floats(rk_skin_matrix_format format);

/* Converts count double matrices (rk_mat4, column-major, bottom row
 * ignored) to floats in `format`: dst gets count * rk_skin_matrix_floats()
 * floats (4X4 keeps the bottom row as stored). Does nothing for NULL
 * pointers or an unknown format. Pure, thread safe, no allocation. */
void rk_skin_palette_from_mat4(float *dst, const rk_mat4 *src, size_t count, rk_skin_matrix_format format);

#ifdef __cplusplus
}
#endif
#endif
