/*
 * src/skin/skin_sse2.c - SSE2 skinning kernel (RK_SKIN_PATH_SSE2), the x86
 * baseline: one vertex per iteration, matrix columns in 128-bit registers
 * (lane 3 unused). Same operation order as the scalar kernel, so results
 * are bit-identical to it. Inputs are read with broadcasts and unaligned
 * loads of exactly their bytes; outputs are written as 8 + 4 bytes.
 */
#include "skin/skin_internal.h"

#ifdef RKI_SKIN_HAVE_SSE2

#include <emmintrin.h>
#include <math.h>

#define RKI_SPLAT(v, i) _mm_shuffle_ps((v), (v), _MM_SHUFFLE(i, i, i, i))

RKI_SKIN_INLINE const float *rki_sse2_matrix(const rki_skin_args *a, uint16_t j, size_t floats)
{
	size_t jk = j;
	if (jk > a->joint_last) jk = a->joint_last;
	return a->matrices + jk * floats;
}

/* Blends 4 vectors at byte offset `off` floats of the four matrices. */
RKI_SKIN_INLINE __m128 rki_sse2_blend4(const float *const m[4], int off, __m128 w0, __m128 w1, __m128 w2, __m128 w3)
{
	__m128 s = _mm_mul_ps(w0, _mm_loadu_ps(m[0] + off));
	s = _mm_add_ps(s, _mm_mul_ps(w1, _mm_loadu_ps(m[1] + off)));
	s = _mm_add_ps(s, _mm_mul_ps(w2, _mm_loadu_ps(m[2] + off)));
	s = _mm_add_ps(s, _mm_mul_ps(w3, _mm_loadu_ps(m[3] + off)));
	return s;
}

RKI_SKIN_INLINE void rki_sse2_store3(unsigned char *dst, __m128 v)
{
	_mm_storel_pi((__m64 *)(void *)dst, v);
	_mm_store_ss((float *)(void *)(dst + 8), _mm_movehl_ps(v, v));
}

RKI_SKIN_INLINE __m128 rki_sse2_cross(__m128 a, __m128 b)
{
	const __m128 a_yzx = _mm_shuffle_ps(a, a, _MM_SHUFFLE(3, 0, 2, 1));
	const __m128 a_zxy = _mm_shuffle_ps(a, a, _MM_SHUFFLE(3, 1, 0, 2));
	const __m128 b_yzx = _mm_shuffle_ps(b, b, _MM_SHUFFLE(3, 0, 2, 1));
	const __m128 b_zxy = _mm_shuffle_ps(b, b, _MM_SHUFFLE(3, 1, 0, 2));
	return _mm_sub_ps(_mm_mul_ps(a_yzx, b_zxy), _mm_mul_ps(a_zxy, b_yzx));
}

/* ((v.x * u.x + v.y * u.y) + v.z * u.z) in every lane. */
RKI_SKIN_INLINE __m128 rki_sse2_dot3(__m128 v, __m128 u)
{
	const __m128 p = _mm_mul_ps(v, u);
	__m128 s = _mm_add_ss(p, _mm_shuffle_ps(p, p, _MM_SHUFFLE(1, 1, 1, 1)));
	s = _mm_add_ss(s, _mm_shuffle_ps(p, p, _MM_SHUFFLE(2, 2, 2, 2)));
	return RKI_SPLAT(s, 0);
}

RKI_SKIN_INLINE void rki_sse2_vertex(const rki_skin_args *a, size_t v, bool format_3x4, int nrm_mode)
{
	const uint16_t *j = (const uint16_t *)(const void *)(a->jnt + v * a->jnt_stride);
	const float *wp = (const float *)(const void *)(a->wgt + v * a->wgt_stride);
	const size_t floats = format_3x4 ? 12 : 16;
	const float *const m[4] = {
		rki_sse2_matrix(a, j[0], floats), rki_sse2_matrix(a, j[1], floats),
		rki_sse2_matrix(a, j[2], floats), rki_sse2_matrix(a, j[3], floats)
	};
	const __m128 w = _mm_loadu_ps(wp);
	const __m128 w0 = RKI_SPLAT(w, 0), w1 = RKI_SPLAT(w, 1), w2 = RKI_SPLAT(w, 2), w3 = RKI_SPLAT(w, 3);
	__m128 c0, c1, c2, c3;
	if (format_3x4) {
		c0 = rki_sse2_blend4(m, 0, w0, w1, w2, w3);   /* rows */
		c1 = rki_sse2_blend4(m, 4, w0, w1, w2, w3);
		c2 = rki_sse2_blend4(m, 8, w0, w1, w2, w3);
		c3 = _mm_setzero_ps();
		_MM_TRANSPOSE4_PS(c0, c1, c2, c3);            /* -> columns */
	} else {
		c0 = rki_sse2_blend4(m, 0, w0, w1, w2, w3);
		c1 = rki_sse2_blend4(m, 4, w0, w1, w2, w3);
		c2 = rki_sse2_blend4(m, 8, w0, w1, w2, w3);
		c3 = rki_sse2_blend4(m, 12, w0, w1, w2, w3);
	}

	/* Read both inputs before writing either output (in-place support). */
	__m128 px = _mm_setzero_ps(), py = px, pz = px, nx = px, ny = px, nz = px;
	if (a->pos) {
		const float *p = (const float *)(const void *)(a->pos + v * a->pos_stride);
		px = _mm_set1_ps(p[0]);
		py = _mm_set1_ps(p[1]);
		pz = _mm_set1_ps(p[2]);
	}
	if (nrm_mode != RKI_SKIN_NRM_NONE) {
		const float *n = (const float *)(const void *)(a->nrm + v * a->nrm_stride);
		nx = _mm_set1_ps(n[0]);
		ny = _mm_set1_ps(n[1]);
		nz = _mm_set1_ps(n[2]);
	}
	if (a->pos) {
		__m128 o = _mm_mul_ps(c0, px);
		o = _mm_add_ps(o, _mm_mul_ps(c1, py));
		o = _mm_add_ps(o, _mm_mul_ps(c2, pz));
		o = _mm_add_ps(o, c3);
		rki_sse2_store3(a->out_pos + v * a->out_pos_stride, o);
	}
	if (nrm_mode == RKI_SKIN_NRM_NONE) return;

	__m128 o;
	if (nrm_mode == RKI_SKIN_NRM_LINEAR) {
		o = _mm_mul_ps(c0, nx);
		o = _mm_add_ps(o, _mm_mul_ps(c1, ny));
		o = _mm_add_ps(o, _mm_mul_ps(c2, nz));
	} else {
		const __m128 k0 = rki_sse2_cross(c1, c2), k1 = rki_sse2_cross(c2, c0), k2 = rki_sse2_cross(c0, c1);
		const __m128 det = rki_sse2_dot3(c0, k0);
		o = _mm_mul_ps(k0, nx);
		o = _mm_add_ps(o, _mm_mul_ps(k1, ny));
		o = _mm_add_ps(o, _mm_mul_ps(k2, nz));
		const __m128 flip = _mm_and_ps(_mm_cmplt_ps(det, _mm_setzero_ps()), _mm_set1_ps(-0.0f));
		o = _mm_xor_ps(o, flip);
	}
	if (a->normalize) {
		const __m128 l = rki_sse2_dot3(o, o);
		const __m128 ok = _mm_and_ps(_mm_cmpgt_ps(l, _mm_setzero_ps()), _mm_cmplt_ps(l, _mm_set1_ps(INFINITY)));
		const __m128 inv = _mm_div_ps(_mm_set1_ps(1.0f), _mm_sqrt_ps(l));
		o = _mm_and_ps(_mm_mul_ps(o, inv), ok);
	}
	rki_sse2_store3(a->out_nrm + v * a->out_nrm_stride, o);
}

#define RKI_SSE2_LOOP(name, fmt, mode) \
	static void name(const rki_skin_args *a, size_t begin, size_t end) \
	{ for (size_t v = begin; v < end; v++) rki_sse2_vertex(a, v, fmt, mode); }

RKI_SSE2_LOOP(rki_sse2_4x4_none, false, RKI_SKIN_NRM_NONE)
RKI_SSE2_LOOP(rki_sse2_4x4_linear, false, RKI_SKIN_NRM_LINEAR)
RKI_SSE2_LOOP(rki_sse2_4x4_invt, false, RKI_SKIN_NRM_INVT)
RKI_SSE2_LOOP(rki_sse2_3x4_none, true, RKI_SKIN_NRM_NONE)
RKI_SSE2_LOOP(rki_sse2_3x4_linear, true, RKI_SKIN_NRM_LINEAR)
RKI_SSE2_LOOP(rki_sse2_3x4_invt, true, RKI_SKIN_NRM_INVT)

void rki_skin_kernel_sse2(const rki_skin_args *a, size_t begin, size_t end)
{
	static const rki_skin_kernel loops[2][3] = {
		{ rki_sse2_4x4_none, rki_sse2_4x4_linear, rki_sse2_4x4_invt },
		{ rki_sse2_3x4_none, rki_sse2_3x4_linear, rki_sse2_3x4_invt },
	};
	loops[a->format_3x4 ? 1 : 0][a->nrm_mode](a, begin, end);
}

#else

/* ISO C forbids an empty translation unit. */
typedef int rki_skin_sse2_unused;

#endif
