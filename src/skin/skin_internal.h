/*
 * src/skin/skin_internal.h - the skinning kernels behind rigkit/skin.h.
 *
 * rk_skin_validate() turns a job into rki_skin_args (resolved strides, byte
 * pointers); a kernel skins vertices [begin, end) of it. Every kernel
 * computes, per vertex and in this order (see skin.h WHAT A RUN COMPUTES):
 *   columns c0..c3 of M = ((w0 A + w1 B) + w2 C) + w3 D, element-wise;
 *   position = ((c0 x + c1 y) + c2 z) + c3;
 *   normal   = ((c0 nx + c1 ny) + c2 nz), or with the inverse-transpose
 *              mode ((k0 nx + k1 ny) + k2 nz), k0 = c1 x c2, k1 = c2 x c0,
 *              k2 = c0 x c1, negated when det = (c0.x k0.x + c0.y k0.y)
 *              + c0.z k0.z < 0;
 *   normalise: l = (x x + y y) + z z; l in (0, inf): n * (1 / sqrt(l)),
 *              else 0.
 * SCALAR, SSE2 and WASM128 follow it operation by operation
 * (bit-identical); AVX2 and AVX512 fuse multiply-adds and sum in other
 * orders (a few ulps).
 */
#ifndef RIGKIT_SKIN_INTERNAL_H
#define RIGKIT_SKIN_INTERNAL_H

#include "rigkit/skin.h"

#if !defined(RK_SCALAR_ONLY) && (defined(__x86_64__) || defined(_M_X64) || (defined(__i386__) && defined(__SSE2__)))
#define RKI_SKIN_HAVE_SSE2 1
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define RKI_SKIN_HAVE_AVX2 1
#define RKI_SKIN_HAVE_AVX512 1
#endif
#endif
/* WebAssembly built with -msimd128: the 128-bit path (RK_SKIN_PATH_SSE2 ==
 * RK_SKIN_PATH_SIMD128) runs skin_wasm128.c. Chosen at compile time: an
 * engine without SIMD rejects the whole module, so there is nothing to
 * detect at run time. */
#if !defined(RK_SCALAR_ONLY) && defined(__wasm_simd128__)
#define RKI_SKIN_HAVE_WASM128 1
#endif

/* What the normal stream gets. */
enum {
	RKI_SKIN_NRM_NONE = 0,        /* no normal streams */
	RKI_SKIN_NRM_LINEAR,          /* upper 3x3 of M */
	RKI_SKIN_NRM_INVT             /* sign(det) * cofactor */
};

typedef struct rki_skin_args {
	const unsigned char *pos, *nrm, *jnt, *wgt;   /* inputs (pos / nrm may be NULL) */
	size_t pos_stride, nrm_stride, jnt_stride, wgt_stride;
	unsigned char *out_pos, *out_nrm;             /* outputs (NULL iff the input is) */
	size_t out_pos_stride, out_nrm_stride;
	const float *matrices;
	size_t joint_last;                            /* joint_count - 1 clamped to UINT16_MAX: indices clamp to it */
	bool format_3x4;                              /* else 4x4 column-major */
	int nrm_mode;                                 /* RKI_SKIN_NRM_* */
	bool normalize;
} rki_skin_args;

typedef void (*rki_skin_kernel)(const rki_skin_args *a, size_t begin, size_t end);

void rki_skin_kernel_scalar(const rki_skin_args *a, size_t begin, size_t end);
#ifdef RKI_SKIN_HAVE_SSE2
void rki_skin_kernel_sse2(const rki_skin_args *a, size_t begin, size_t end);
#endif
#ifdef RKI_SKIN_HAVE_WASM128
void rki_skin_kernel_wasm128(const rki_skin_args *a, size_t begin, size_t end);
#endif
#ifdef RKI_SKIN_HAVE_AVX2
void rki_skin_kernel_avx2(const rki_skin_args *a, size_t begin, size_t end);
#endif
#ifdef RKI_SKIN_HAVE_AVX512
void rki_skin_kernel_avx512(const rki_skin_args *a, size_t begin, size_t end);
#endif

#if defined(__GNUC__) || defined(__clang__)
#define RKI_SKIN_INLINE static inline __attribute__((always_inline))
/* Fully unroll the short fixed loops over a group's members: at -O2 GCC
 * would otherwise keep the group's registers in stack arrays (measured
 * about 1.4x slower than -O3). */
#define RKI_SKIN_UNROLL _Pragma("GCC unroll 4")
#else
#define RKI_SKIN_INLINE static inline
#define RKI_SKIN_UNROLL
#endif

#endif
