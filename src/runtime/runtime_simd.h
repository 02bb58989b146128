/*
 * src/runtime/runtime_simd.h - a 4-lane float vector for the runtime's
 * blocked sampling and local-to-model paths (not public API).
 *
 *   SSE2            x86-64 (and 32-bit x86 with __SSE2__)
 *   wasm simd128    emscripten / clang with -msimd128 (__wasm_simd128__)
 *   plain C         everything else, and every build with RK_SCALAR_ONLY:
 *                   a struct of four floats, lane by lane
 *
 * RKI_V4_SIMD is 1 for the first two, 0 for plain C. Every operation is
 * one IEEE operation per lane (no fused multiply-add, no approximations), so
 * the three implementations give bit-identical lanes, and the same
 * expression written lane by lane in scalar C gives the same bits too.
 * Masks are vectors whose lanes are all ones or all zeros.
 *
 * Loads and stores touch exactly the bytes they name (load3 / store3 read
 * and write 12 bytes), so arrays need no padding. Everything is inline and
 * allocation free.
 */
#ifndef RIGKIT_RUNTIME_SIMD_H
#define RIGKIT_RUNTIME_SIMD_H

#include <stdint.h>
#include <string.h>

/* Always inlined: the blocked paths are built of small functions over
 * registers, which GCC at -O2 would otherwise call with the lanes spilled. */
#if defined(__GNUC__) || defined(__clang__)
#define RKI_RT_INLINE static inline __attribute__((always_inline))
#else
#define RKI_RT_INLINE static inline
#endif

#if !defined(RK_SCALAR_ONLY) && (defined(__x86_64__) || defined(_M_X64) || (defined(__i386__) && defined(__SSE2__)))
#define RKI_V4_SSE2 1
#elif !defined(RK_SCALAR_ONLY) && defined(__wasm_simd128__)
#define RKI_V4_WASM 1
#endif

#if defined(RKI_V4_SSE2)
/* ---- SSE2 ------------------------------------------------------------------- */
#include <emmintrin.h>
#define RKI_V4_SIMD 1
#define RKI_V4_NAME "sse2"
typedef __m128 rki_v4;

static inline rki_v4 rki_v4_load(const float *p) { return _mm_loadu_ps(p); }
static inline void rki_v4_store(float *p, rki_v4 v) { _mm_storeu_ps(p, v); }
static inline rki_v4 rki_v4_load3(const float *p)
{
	/* movq: 8 bytes at any alignment (_mm_load_sd dereferences a double *,
	 * which UBSan reports for a 4-byte aligned float3) */
	__m128 xy = _mm_castsi128_ps(_mm_loadl_epi64((const __m128i *)(const void *)p));
	return _mm_movelh_ps(xy, _mm_load_ss(p + 2));
}
static inline void rki_v4_store3(float *p, rki_v4 v)
{
	_mm_storel_pi((__m64 *)(void *)p, v);
	_mm_store_ss(p + 2, _mm_movehl_ps(v, v));
}
static inline rki_v4 rki_v4_set1(float x) { return _mm_set1_ps(x); }
static inline rki_v4 rki_v4_set(float x, float y, float z, float w) { return _mm_setr_ps(x, y, z, w); }
static inline rki_v4 rki_v4_add(rki_v4 a, rki_v4 b) { return _mm_add_ps(a, b); }
static inline rki_v4 rki_v4_sub(rki_v4 a, rki_v4 b) { return _mm_sub_ps(a, b); }
static inline rki_v4 rki_v4_mul(rki_v4 a, rki_v4 b) { return _mm_mul_ps(a, b); }
static inline rki_v4 rki_v4_div(rki_v4 a, rki_v4 b) { return _mm_div_ps(a, b); }
static inline rki_v4 rki_v4_sqrt(rki_v4 a) { return _mm_sqrt_ps(a); }
/* a < b ? a : b per lane (b when either is NaN) */
static inline rki_v4 rki_v4_min(rki_v4 a, rki_v4 b) { return _mm_min_ps(a, b); }
static inline rki_v4 rki_v4_gt(rki_v4 a, rki_v4 b) { return _mm_cmpgt_ps(a, b); }
static inline rki_v4 rki_v4_lt(rki_v4 a, rki_v4 b) { return _mm_cmplt_ps(a, b); }
static inline rki_v4 rki_v4_le(rki_v4 a, rki_v4 b) { return _mm_cmple_ps(a, b); }
static inline rki_v4 rki_v4_and(rki_v4 a, rki_v4 b) { return _mm_and_ps(a, b); }
static inline rki_v4 rki_v4_or(rki_v4 a, rki_v4 b) { return _mm_or_ps(a, b); }
/* m ? a : b per lane */
static inline rki_v4 rki_v4_select(rki_v4 m, rki_v4 a, rki_v4 b) { return _mm_or_ps(_mm_and_ps(m, a), _mm_andnot_ps(m, b)); }
/* bit l set when lane l of mask m is set */
static inline int rki_v4_mask_bits(rki_v4 m) { return _mm_movemask_ps(m); }
/* lane l set when bit l of `bits` is */
static inline rki_v4 rki_v4_mask_from_bits(int bits)
{
	const __m128i lanes = _mm_setr_epi32(1, 2, 4, 8);
	return _mm_castsi128_ps(_mm_cmpeq_epi32(_mm_and_si128(_mm_set1_epi32(bits), lanes), lanes));
}
/* pshufd: the source register stays intact, so no copy before each splat
 * (shufps overwrites its first operand) */
#define rki_v4_splat(v, i) _mm_castsi128_ps(_mm_shuffle_epi32(_mm_castps_si128(v), _MM_SHUFFLE(i, i, i, i)))
static inline void rki_v4_transpose(rki_v4 *a, rki_v4 *b, rki_v4 *c, rki_v4 *d)
{
	__m128 t0 = _mm_unpacklo_ps(*a, *b), t1 = _mm_unpacklo_ps(*c, *d);
	__m128 t2 = _mm_unpackhi_ps(*a, *b), t3 = _mm_unpackhi_ps(*c, *d);
	*a = _mm_movelh_ps(t0, t1);
	*b = _mm_movehl_ps(t1, t0);
	*c = _mm_movelh_ps(t2, t3);
	*d = _mm_movehl_ps(t3, t2);
}

#elif defined(RKI_V4_WASM)
/* ---- WebAssembly simd128 ------------------------------------------------------ */
#include <wasm_simd128.h>
#define RKI_V4_SIMD 1
#define RKI_V4_NAME "wasm-simd128"
typedef v128_t rki_v4;

static inline rki_v4 rki_v4_load(const float *p) { return wasm_v128_load(p); }
static inline void rki_v4_store(float *p, rki_v4 v) { wasm_v128_store(p, v); }
static inline rki_v4 rki_v4_load3(const float *p) { return wasm_v128_load32_lane(p + 2, wasm_v128_load64_zero(p), 2); }
static inline void rki_v4_store3(float *p, rki_v4 v)
{
	wasm_v128_store64_lane(p, v, 0);
	wasm_v128_store32_lane(p + 2, v, 2);
}
static inline rki_v4 rki_v4_set1(float x) { return wasm_f32x4_splat(x); }
static inline rki_v4 rki_v4_set(float x, float y, float z, float w) { return wasm_f32x4_make(x, y, z, w); }
static inline rki_v4 rki_v4_add(rki_v4 a, rki_v4 b) { return wasm_f32x4_add(a, b); }
static inline rki_v4 rki_v4_sub(rki_v4 a, rki_v4 b) { return wasm_f32x4_sub(a, b); }
static inline rki_v4 rki_v4_mul(rki_v4 a, rki_v4 b) { return wasm_f32x4_mul(a, b); }
static inline rki_v4 rki_v4_div(rki_v4 a, rki_v4 b) { return wasm_f32x4_div(a, b); }
static inline rki_v4 rki_v4_sqrt(rki_v4 a) { return wasm_f32x4_sqrt(a); }
/* pmin(x, y) is y < x ? y : x: SSE's minps with the arguments swapped */
static inline rki_v4 rki_v4_min(rki_v4 a, rki_v4 b) { return wasm_f32x4_pmin(b, a); }
static inline rki_v4 rki_v4_gt(rki_v4 a, rki_v4 b) { return wasm_f32x4_gt(a, b); }
static inline rki_v4 rki_v4_lt(rki_v4 a, rki_v4 b) { return wasm_f32x4_lt(a, b); }
static inline rki_v4 rki_v4_le(rki_v4 a, rki_v4 b) { return wasm_f32x4_le(a, b); }
static inline rki_v4 rki_v4_and(rki_v4 a, rki_v4 b) { return wasm_v128_and(a, b); }
static inline rki_v4 rki_v4_or(rki_v4 a, rki_v4 b) { return wasm_v128_or(a, b); }
static inline rki_v4 rki_v4_select(rki_v4 m, rki_v4 a, rki_v4 b) { return wasm_v128_bitselect(a, b, m); }
static inline int rki_v4_mask_bits(rki_v4 m) { return (int)wasm_i32x4_bitmask(m); }
static inline rki_v4 rki_v4_mask_from_bits(int bits)
{
	const v128_t lanes = wasm_i32x4_make(1, 2, 4, 8);
	return wasm_i32x4_eq(wasm_v128_and(wasm_i32x4_splat(bits), lanes), lanes);
}
#define rki_v4_splat(v, i) wasm_i32x4_shuffle((v), (v), i, i, i, i)
static inline void rki_v4_transpose(rki_v4 *a, rki_v4 *b, rki_v4 *c, rki_v4 *d)
{
	v128_t t0 = wasm_i32x4_shuffle(*a, *b, 0, 4, 1, 5), t1 = wasm_i32x4_shuffle(*c, *d, 0, 4, 1, 5);
	v128_t t2 = wasm_i32x4_shuffle(*a, *b, 2, 6, 3, 7), t3 = wasm_i32x4_shuffle(*c, *d, 2, 6, 3, 7);
	*a = wasm_i32x4_shuffle(t0, t1, 0, 1, 4, 5);
	*b = wasm_i32x4_shuffle(t0, t1, 2, 3, 6, 7);
	*c = wasm_i32x4_shuffle(t2, t3, 0, 1, 4, 5);
	*d = wasm_i32x4_shuffle(t2, t3, 2, 3, 6, 7);
}

#else
/* ---- plain C ------------------------------------------------------------------ */
#define RKI_V4_SIMD 0
#define RKI_V4_NAME "plain C"
#include <math.h>
typedef struct rki_v4 { float f[4]; } rki_v4;

static inline rki_v4 rki_v4_load(const float *p)
{
	rki_v4 r;
	for (int i = 0; i < 4; i++) r.f[i] = p[i];
	return r;
}
static inline void rki_v4_store(float *p, rki_v4 v)
{
	for (int i = 0; i < 4; i++) p[i] = v.f[i];
}
static inline rki_v4 rki_v4_load3(const float *p)
{
	rki_v4 r = { { p[0], p[1], p[2], 0.0f } };
	return r;
}
static inline void rki_v4_store3(float *p, rki_v4 v)
{
	for (int i = 0; i < 3; i++) p[i] = v.f[i];
}
static inline rki_v4 rki_v4_set(float x, float y, float z, float w)
{
	rki_v4 r = { { x, y, z, w } };
	return r;
}
static inline rki_v4 rki_v4_set1(float x) { return rki_v4_set(x, x, x, x); }
#define RKI_V4_LANES(expr)                              \
	rki_v4 r;                                       \
	for (int i = 0; i < 4; i++) r.f[i] = (expr);    \
	return r
static inline rki_v4 rki_v4_add(rki_v4 a, rki_v4 b) { RKI_V4_LANES(a.f[i] + b.f[i]); }
static inline rki_v4 rki_v4_sub(rki_v4 a, rki_v4 b) { RKI_V4_LANES(a.f[i] - b.f[i]); }
static inline rki_v4 rki_v4_mul(rki_v4 a, rki_v4 b) { RKI_V4_LANES(a.f[i] * b.f[i]); }
static inline rki_v4 rki_v4_div(rki_v4 a, rki_v4 b) { RKI_V4_LANES(a.f[i] / b.f[i]); }
static inline rki_v4 rki_v4_sqrt(rki_v4 a) { RKI_V4_LANES(sqrtf(a.f[i])); }
static inline rki_v4 rki_v4_min(rki_v4 a, rki_v4 b) { RKI_V4_LANES(a.f[i] < b.f[i] ? a.f[i] : b.f[i]); }
static inline float rki_v4_bits_(uint32_t u)
{
	float f;
	memcpy(&f, &u, sizeof(f));
	return f;
}
static inline uint32_t rki_v4_u_(float f)
{
	uint32_t u;
	memcpy(&u, &f, sizeof(u));
	return u;
}
static inline rki_v4 rki_v4_gt(rki_v4 a, rki_v4 b) { RKI_V4_LANES(rki_v4_bits_(a.f[i] > b.f[i] ? 0xffffffffu : 0u)); }
static inline rki_v4 rki_v4_lt(rki_v4 a, rki_v4 b) { RKI_V4_LANES(rki_v4_bits_(a.f[i] < b.f[i] ? 0xffffffffu : 0u)); }
static inline rki_v4 rki_v4_le(rki_v4 a, rki_v4 b) { RKI_V4_LANES(rki_v4_bits_(a.f[i] <= b.f[i] ? 0xffffffffu : 0u)); }
static inline rki_v4 rki_v4_and(rki_v4 a, rki_v4 b) { RKI_V4_LANES(rki_v4_bits_(rki_v4_u_(a.f[i]) & rki_v4_u_(b.f[i]))); }
static inline rki_v4 rki_v4_or(rki_v4 a, rki_v4 b) { RKI_V4_LANES(rki_v4_bits_(rki_v4_u_(a.f[i]) | rki_v4_u_(b.f[i]))); }
static inline rki_v4 rki_v4_select(rki_v4 m, rki_v4 a, rki_v4 b)
{
	RKI_V4_LANES(rki_v4_bits_((rki_v4_u_(m.f[i]) & rki_v4_u_(a.f[i])) | (~rki_v4_u_(m.f[i]) & rki_v4_u_(b.f[i]))));
}
static inline int rki_v4_mask_bits(rki_v4 m)
{
	int bits = 0;
	for (int i = 0; i < 4; i++) bits |= (int)(rki_v4_u_(m.f[i]) >> 31) << i;
	return bits;
}
static inline rki_v4 rki_v4_mask_from_bits(int bits)
{
	RKI_V4_LANES(rki_v4_bits_((bits >> i) & 1 ? 0xffffffffu : 0u));
}
#undef RKI_V4_LANES
static inline rki_v4 rki_v4_splat_(rki_v4 v, int i) { return rki_v4_set1(v.f[i]); }
#define rki_v4_splat(v, i) rki_v4_splat_((v), (i))
static inline void rki_v4_transpose(rki_v4 *a, rki_v4 *b, rki_v4 *c, rki_v4 *d)
{
	rki_v4 *v[4] = { a, b, c, d };
	rki_v4 m[4];
	for (int r = 0; r < 4; r++)
		for (int k = 0; k < 4; k++) m[k].f[r] = v[r]->f[k];
	for (int r = 0; r < 4; r++) *v[r] = m[r];
}
#endif

#endif
