/*
 * src/skin/skin_wasm128.c - WebAssembly SIMD128 skinning kernel: what
 * RK_SKIN_PATH_SIMD128 (the same value as RK_SKIN_PATH_SSE2, the 128-bit
 * path) runs in a build compiled with -msimd128 (__wasm_simd128__).
 *
 * One vertex per iteration, each matrix column (or 3x4 row) in one v128
 * (lane 3 unused), the operation order of skin_internal.h: every lane
 * computes exactly the float operations the scalar kernel does, and
 * f32x4.sqrt / f32x4.div are correctly rounded, so the results are
 * bit-identical to skin_scalar.c. Inputs are read with splats and 16-byte
 * loads of the palette; outputs are written as 8 + 4 bytes (lane stores),
 * so no byte past a vertex's 12 is touched.
 */
#include "skin/skin_internal.h"

#ifdef RKI_SKIN_HAVE_WASM128

#include <math.h>
#include <wasm_simd128.h>

#pragma STDC FP_CONTRACT OFF

#define RKI_W128_SPLAT(v, i) wasm_i32x4_shuffle((v), (v), i, i, i, i)

RKI_SKIN_INLINE const float *rki_w128_matrix(const rki_skin_args *a, uint16_t j, size_t floats)
{
	size_t jk = j;
	if (jk > a->joint_last) jk = a->joint_last;
	return a->matrices + jk * floats;
}

/* ((w0 m0 + w1 m1) + w2 m2) + w3 m3 on the 4 floats at `off` of each matrix. */
RKI_SKIN_INLINE v128_t rki_w128_blend4(const float *const m[4], int off, v128_t w0, v128_t w1, v128_t w2, v128_t w3)
{
	v128_t s = wasm_f32x4_mul(w0, wasm_v128_load(m[0] + off));
	s = wasm_f32x4_add(s, wasm_f32x4_mul(w1, wasm_v128_load(m[1] + off)));
	s = wasm_f32x4_add(s, wasm_f32x4_mul(w2, wasm_v128_load(m[2] + off)));
	s = wasm_f32x4_add(s, wasm_f32x4_mul(w3, wasm_v128_load(m[3] + off)));
	return s;
}

RKI_SKIN_INLINE void rki_w128_store3(unsigned char *dst, v128_t v)
{
	wasm_v128_store64_lane(dst, v, 0);
	wasm_v128_store32_lane(dst + 8, v, 2);
}

/* a x b in lanes 0..2 (lane 3: a.w b.w - a.w b.w, unused). */
RKI_SKIN_INLINE v128_t rki_w128_cross(v128_t a, v128_t b)
{
	const v128_t a_yzx = wasm_i32x4_shuffle(a, a, 1, 2, 0, 3);
	const v128_t a_zxy = wasm_i32x4_shuffle(a, a, 2, 0, 1, 3);
	const v128_t b_yzx = wasm_i32x4_shuffle(b, b, 1, 2, 0, 3);
	const v128_t b_zxy = wasm_i32x4_shuffle(b, b, 2, 0, 1, 3);
	return wasm_f32x4_sub(wasm_f32x4_mul(a_yzx, b_zxy), wasm_f32x4_mul(a_zxy, b_yzx));
}

/* ((v.x u.x + v.y u.y) + v.z u.z) in every lane. */
RKI_SKIN_INLINE v128_t rki_w128_dot3(v128_t v, v128_t u)
{
	const v128_t p = wasm_f32x4_mul(v, u);
	float s = wasm_f32x4_extract_lane(p, 0) + wasm_f32x4_extract_lane(p, 1);
	s = s + wasm_f32x4_extract_lane(p, 2);
	return wasm_f32x4_splat(s);
}

RKI_SKIN_INLINE void rki_w128_vertex(const rki_skin_args *a, size_t v, bool format_3x4, int nrm_mode)
{
	const uint16_t *j = (const uint16_t *)(const void *)(a->jnt + v * a->jnt_stride);
	const float *wp = (const float *)(const void *)(a->wgt + v * a->wgt_stride);
	const size_t floats = format_3x4 ? 12 : 16;
	const float *const m[4] = {
		rki_w128_matrix(a, j[0], floats), rki_w128_matrix(a, j[1], floats),
		rki_w128_matrix(a, j[2], floats), rki_w128_matrix(a, j[3], floats)
	};
	const v128_t w = wasm_v128_load(wp);
	const v128_t w0 = RKI_W128_SPLAT(w, 0), w1 = RKI_W128_SPLAT(w, 1);
	const v128_t w2 = RKI_W128_SPLAT(w, 2), w3 = RKI_W128_SPLAT(w, 3);
	v128_t c0, c1, c2, c3;
	if (format_3x4) {
		/* rows r0..r2 -> columns (r0[i], r1[i], r2[i], 0) */
		const v128_t r0 = rki_w128_blend4(m, 0, w0, w1, w2, w3);
		const v128_t r1 = rki_w128_blend4(m, 4, w0, w1, w2, w3);
		const v128_t r2 = rki_w128_blend4(m, 8, w0, w1, w2, w3);
		const v128_t z = wasm_f32x4_splat(0.0f);
		const v128_t lo01 = wasm_i32x4_shuffle(r0, r1, 0, 4, 1, 5);  /* r0.x r1.x r0.y r1.y */
		const v128_t hi01 = wasm_i32x4_shuffle(r0, r1, 2, 6, 3, 7);  /* r0.z r1.z r0.w r1.w */
		const v128_t lo2z = wasm_i32x4_shuffle(r2, z, 0, 4, 1, 5);   /* r2.x 0 r2.y 0 */
		const v128_t hi2z = wasm_i32x4_shuffle(r2, z, 2, 6, 3, 7);   /* r2.z 0 r2.w 0 */
		c0 = wasm_i32x4_shuffle(lo01, lo2z, 0, 1, 4, 5);
		c1 = wasm_i32x4_shuffle(lo01, lo2z, 2, 3, 6, 7);
		c2 = wasm_i32x4_shuffle(hi01, hi2z, 0, 1, 4, 5);
		c3 = wasm_i32x4_shuffle(hi01, hi2z, 2, 3, 6, 7);
	} else {
		c0 = rki_w128_blend4(m, 0, w0, w1, w2, w3);
		c1 = rki_w128_blend4(m, 4, w0, w1, w2, w3);
		c2 = rki_w128_blend4(m, 8, w0, w1, w2, w3);
		c3 = rki_w128_blend4(m, 12, w0, w1, w2, w3);
	}

	/* Read both inputs before writing either output (in-place support). */
	v128_t px = wasm_f32x4_splat(0.0f), py = px, pz = px, nx = px, ny = px, nz = px;
	if (a->pos) {
		const float *p = (const float *)(const void *)(a->pos + v * a->pos_stride);
		px = wasm_f32x4_splat(p[0]);
		py = wasm_f32x4_splat(p[1]);
		pz = wasm_f32x4_splat(p[2]);
	}
	if (nrm_mode != RKI_SKIN_NRM_NONE) {
		const float *n = (const float *)(const void *)(a->nrm + v * a->nrm_stride);
		nx = wasm_f32x4_splat(n[0]);
		ny = wasm_f32x4_splat(n[1]);
		nz = wasm_f32x4_splat(n[2]);
	}
	if (a->pos) {
		v128_t o = wasm_f32x4_mul(c0, px);
		o = wasm_f32x4_add(o, wasm_f32x4_mul(c1, py));
		o = wasm_f32x4_add(o, wasm_f32x4_mul(c2, pz));
		o = wasm_f32x4_add(o, c3);
		rki_w128_store3(a->out_pos + v * a->out_pos_stride, o);
	}
	if (nrm_mode == RKI_SKIN_NRM_NONE) return;

	v128_t o;
	if (nrm_mode == RKI_SKIN_NRM_LINEAR) {
		o = wasm_f32x4_mul(c0, nx);
		o = wasm_f32x4_add(o, wasm_f32x4_mul(c1, ny));
		o = wasm_f32x4_add(o, wasm_f32x4_mul(c2, nz));
	} else {
		const v128_t k0 = rki_w128_cross(c1, c2), k1 = rki_w128_cross(c2, c0), k2 = rki_w128_cross(c0, c1);
		const v128_t det = rki_w128_dot3(c0, k0);
		o = wasm_f32x4_mul(k0, nx);
		o = wasm_f32x4_add(o, wasm_f32x4_mul(k1, ny));
		o = wasm_f32x4_add(o, wasm_f32x4_mul(k2, nz));
		/* negate (flip the sign bit) where det < 0, as the scalar -s */
		const v128_t flip = wasm_v128_and(wasm_f32x4_lt(det, wasm_f32x4_splat(0.0f)), wasm_f32x4_splat(-0.0f));
		o = wasm_v128_xor(o, flip);
	}
	if (a->normalize) {
		const v128_t l = rki_w128_dot3(o, o);
		const v128_t ok = wasm_v128_and(wasm_f32x4_gt(l, wasm_f32x4_splat(0.0f)),
			wasm_f32x4_lt(l, wasm_f32x4_splat(INFINITY)));
		const v128_t inv = wasm_f32x4_div(wasm_f32x4_splat(1.0f), wasm_f32x4_sqrt(l));
		o = wasm_v128_and(wasm_f32x4_mul(o, inv), ok);
	}
	rki_w128_store3(a->out_nrm + v * a->out_nrm_stride, o);
}

#define RKI_W128_LOOP(name, fmt, mode) \
	static void name(const rki_skin_args *a, size_t begin, size_t end) \
	{ for (size_t v = begin; v < end; v++) rki_w128_vertex(a, v, fmt, mode); }

RKI_W128_LOOP(rki_w128_4x4_none, false, RKI_SKIN_NRM_NONE)
RKI_W128_LOOP(rki_w128_4x4_linear, false, RKI_SKIN_NRM_LINEAR)
RKI_W128_LOOP(rki_w128_4x4_invt, false, RKI_SKIN_NRM_INVT)
RKI_W128_LOOP(rki_w128_3x4_none, true, RKI_SKIN_NRM_NONE)
RKI_W128_LOOP(rki_w128_3x4_linear, true, RKI_SKIN_NRM_LINEAR)
RKI_W128_LOOP(rki_w128_3x4_invt, true, RKI_SKIN_NRM_INVT)

void rki_skin_kernel_wasm128(const rki_skin_args *a, size_t begin, size_t end)
{
	static const rki_skin_kernel loops[2][3] = {
		{ rki_w128_4x4_none, rki_w128_4x4_linear, rki_w128_4x4_invt },
		{ rki_w128_3x4_none, rki_w128_3x4_linear, rki_w128_3x4_invt },
	};
	loops[a->format_3x4 ? 1 : 0][a->nrm_mode](a, begin, end);
}

#else

/* ISO C forbids an empty translation unit. */
typedef int rki_skin_wasm128_unused;

#endif
