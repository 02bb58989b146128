/*
 * src/skin/skin_avx2.c - AVX2 + FMA skinning kernel (RK_SKIN_PATH_AVX2).
 *
 * Built into every x86-64 library with GCC-style function target
 * attributes (no per-file -mavx2), and only called after
 * __builtin_cpu_supports() said "avx2" and "fma" (skin.c).
 *   - per vertex, the 4x4 blend works on two columns per 256-bit register:
 *     [c0|c1] and [c2|c3] = sum_k w_k * (two 32-byte loads of matrix k),
 *     eight fused multiply-adds; the 3x4 format blends [row0|row1] and
 *     row2, then transposes to columns;
 *   - position: [c0 x + c2 z | c1 y + c3 * 1], whose two halves sum to the
 *     result; normal: [c0 nx + c2 nz | c1 ny + c3 * 0] likewise; the
 *     cofactor columns of the inverse-transpose mode come from two 256-bit
 *     cross products ([c1|c2] x [c2|c0] = [k0|k1], [c0|c1] x [c1|c2] =
 *     [k2|k0]);
 *   - vertices go in groups of 4: the joint indices of the group are
 *     clamped and scaled in one register; the half sums of two vertices
 *     are one cross-lane permute pair and one add, leaving [v0|v1] and
 *     [v2|v3]; the 4 squared normal lengths share one square root and one
 *     division, issued after the group and consumed after the next one
 *     (software pipelining hides their latency).
 * Fused multiply-adds and a different summation order than SCALAR: results
 * agree with it to a few float ulps, not bit for bit. Every vertex gets the
 * same operations whatever its group, so ranges give identical bits.
 */
#include "skin/skin_internal.h"

#ifdef RKI_SKIN_HAVE_AVX2

#include <immintrin.h>
#include <math.h>
#include <string.h>

#define RKI_AVX2 __attribute__((target("avx2,fma")))
#define RKI_AVX2_INLINE static inline __attribute__((always_inline, target("avx2,fma")))

/* Byte strides; compile-time constants for the packed layout. */
typedef struct rki_avx2_strides {
	size_t jnt, wgt, pos, nrm, out_pos, out_nrm;
} rki_avx2_strides;

typedef struct rki_avx2_in {
	const unsigned char *jnt, *wgt, *pos, *nrm;
} rki_avx2_in;

typedef struct rki_avx2_out {
	unsigned char *pos, *nrm;
} rki_avx2_out;

typedef struct rki_avx2_consts {
	const float *matrices;
	__m256i jlast;
	__m256i spread_xy;      /* [0 0 0 0 | 1 1 1 1] */
	__m256i pack;           /* [x0 y0 z0 _ | x1 y1 z1 _] -> x0 y0 z0 x1 y1 z1 */
	__m256 one, zero, inf;
} rki_avx2_consts;

RKI_AVX2_INLINE void rki_avx2_in_next(rki_avx2_in *c, const rki_avx2_strides *st, bool has_pos, bool has_nrm)
{
	c->wgt += st->wgt;
	if (has_pos) c->pos += st->pos;
	if (has_nrm) c->nrm += st->nrm;
}

/* Byte offsets into the palette of a group's 16 matrices: the 4 vertices'
 * joint indices in one register, clamped by an unsigned min, widened,
 * times the matrix size. */
RKI_AVX2_INLINE void rki_avx2_offsets(uint32_t off[16], __m256i j, __m256i jlast, bool format_3x4)
{
	j = _mm256_min_epu16(j, jlast);
	__m256i lo = _mm256_cvtepu16_epi32(_mm256_castsi256_si128(j));
	__m256i hi = _mm256_cvtepu16_epi32(_mm256_extracti128_si256(j, 1));
	if (format_3x4) {
		lo = _mm256_add_epi32(_mm256_slli_epi32(lo, 5), _mm256_slli_epi32(lo, 4));
		hi = _mm256_add_epi32(_mm256_slli_epi32(hi, 5), _mm256_slli_epi32(hi, 4));
	} else {
		lo = _mm256_slli_epi32(lo, 6);
		hi = _mm256_slli_epi32(hi, 6);
	}
	_mm256_store_si256((__m256i *)(void *)off, lo);
	_mm256_store_si256((__m256i *)(void *)(off + 8), hi);
}

/* Per 128-bit lane: a x b in lanes 0..2. */
RKI_AVX2_INLINE __m256 rki_avx2_cross(__m256 a, __m256 b)
{
	const __m256 a_yzx = _mm256_shuffle_ps(a, a, _MM_SHUFFLE(3, 0, 2, 1));
	const __m256 a_zxy = _mm256_shuffle_ps(a, a, _MM_SHUFFLE(3, 1, 0, 2));
	const __m256 b_yzx = _mm256_shuffle_ps(b, b, _MM_SHUFFLE(3, 0, 2, 1));
	const __m256 b_zxy = _mm256_shuffle_ps(b, b, _MM_SHUFFLE(3, 1, 0, 2));
	return _mm256_fmsub_ps(a_yzx, b_zxy, _mm256_mul_ps(a_zxy, b_yzx));
}

/* 3 floats -> [x x x x | y y y y] and [z z z z | t t t t]: an 8-byte
 * broadcast and an in-lane permute, a 4-byte broadcast and a blend. */
RKI_AVX2_INLINE void rki_avx2_splat3(const unsigned char *p, const rki_avx2_consts *k, __m256 tail, __m256 *xy, __m256 *zt)
{
	double d;
	memcpy(&d, p, sizeof(d));
	*xy = _mm256_permutevar_ps(_mm256_castpd_ps(_mm256_set1_pd(d)), k->spread_xy);
	*zt = _mm256_blend_ps(_mm256_broadcast_ss((const float *)(const void *)p + 2), tail, 0xF0);
}

RKI_AVX2_INLINE void rki_avx2_store3(unsigned char *dst, __m128 v)
{
	_mm_storel_pi((__m64 *)(void *)dst, v);
	_mm_store_ss((float *)(void *)(dst + 8), _mm_movehl_ps(v, v));
}

/* One vertex up to the final sums: *tp gets [a|b] with a + b = position,
 * *tn likewise for the normal (sign of det applied). */
RKI_AVX2_INLINE void rki_avx2_stage(const rki_avx2_in *c, const uint32_t off[4], const rki_avx2_consts *k,
	bool format_3x4, bool has_pos, int nrm_mode, __m256 *tp, __m256 *tn)
{
	const unsigned char *base = (const unsigned char *)k->matrices;
	const float *m[4];
	RKI_SKIN_UNROLL
	for (int i = 0; i < 4; i++) m[i] = (const float *)(const void *)(base + off[i]);
	const float *wp = (const float *)(const void *)c->wgt;
	const __m256 w0 = _mm256_broadcast_ss(wp + 0), w1 = _mm256_broadcast_ss(wp + 1);
	const __m256 w2 = _mm256_broadcast_ss(wp + 2), w3 = _mm256_broadcast_ss(wp + 3);

	__m256 m01, m23; /* [c0|c1], [c2|c3] */
	if (format_3x4) {
		__m256 r01 = _mm256_mul_ps(w0, _mm256_loadu_ps(m[0]));
		r01 = _mm256_fmadd_ps(w1, _mm256_loadu_ps(m[1]), r01);
		r01 = _mm256_fmadd_ps(w2, _mm256_loadu_ps(m[2]), r01);
		r01 = _mm256_fmadd_ps(w3, _mm256_loadu_ps(m[3]), r01);
		__m128 r2 = _mm_mul_ps(_mm256_castps256_ps128(w0), _mm_loadu_ps(m[0] + 8));
		r2 = _mm_fmadd_ps(_mm256_castps256_ps128(w1), _mm_loadu_ps(m[1] + 8), r2);
		r2 = _mm_fmadd_ps(_mm256_castps256_ps128(w2), _mm_loadu_ps(m[2] + 8), r2);
		r2 = _mm_fmadd_ps(_mm256_castps256_ps128(w3), _mm_loadu_ps(m[3] + 8), r2);
		__m128 c0 = _mm256_castps256_ps128(r01), c1 = _mm256_extractf128_ps(r01, 1), c2 = r2;
		__m128 c3 = _mm_setzero_ps();
		_MM_TRANSPOSE4_PS(c0, c1, c2, c3);
		m01 = _mm256_insertf128_ps(_mm256_castps128_ps256(c0), c1, 1);
		m23 = _mm256_insertf128_ps(_mm256_castps128_ps256(c2), c3, 1);
	} else {
		m01 = _mm256_mul_ps(w0, _mm256_loadu_ps(m[0]));
		m01 = _mm256_fmadd_ps(w1, _mm256_loadu_ps(m[1]), m01);
		m01 = _mm256_fmadd_ps(w2, _mm256_loadu_ps(m[2]), m01);
		m01 = _mm256_fmadd_ps(w3, _mm256_loadu_ps(m[3]), m01);
		m23 = _mm256_mul_ps(w0, _mm256_loadu_ps(m[0] + 8));
		m23 = _mm256_fmadd_ps(w1, _mm256_loadu_ps(m[1] + 8), m23);
		m23 = _mm256_fmadd_ps(w2, _mm256_loadu_ps(m[2] + 8), m23);
		m23 = _mm256_fmadd_ps(w3, _mm256_loadu_ps(m[3] + 8), m23);
	}

	if (has_pos) {
		__m256 xy, z1;
		rki_avx2_splat3(c->pos, k, k->one, &xy, &z1);
		*tp = _mm256_fmadd_ps(m23, z1, _mm256_mul_ps(m01, xy));  /* [c0 x + c2 z | c1 y + c3] */
	}
	if (nrm_mode == RKI_SKIN_NRM_NONE) return;
	__m256 nxy, nz0;
	rki_avx2_splat3(c->nrm, k, k->zero, &nxy, &nz0);
	if (nrm_mode == RKI_SKIN_NRM_LINEAR) {
		*tn = _mm256_fmadd_ps(m23, nz0, _mm256_mul_ps(m01, nxy));  /* [c0 nx + c2 nz | c1 ny + c3 0] */
	} else {
		const __m256 c12 = _mm256_permute2f128_ps(m01, m23, 0x21);  /* [c1|c2] */
		const __m256 c20 = _mm256_permute2f128_ps(m23, m01, 0x20);  /* [c2|c0] */
		const __m256 k01 = rki_avx2_cross(c12, c20);                 /* [k0|k1] */
		const __m256 k20 = rki_avx2_cross(m01, c12);                 /* [k2|k0] */
		/* det = (c0.x k0.x + c0.y k0.y) + c0.z k0.z */
		const __m128 d = _mm_mul_ps(_mm256_castps256_ps128(m01), _mm256_castps256_ps128(k01));
		__m128 det = _mm_add_ss(d, _mm_shuffle_ps(d, d, _MM_SHUFFLE(1, 1, 1, 1)));
		det = _mm_add_ss(det, _mm_shuffle_ps(d, d, _MM_SHUFFLE(2, 2, 2, 2)));
		const __m256 t = _mm256_fmadd_ps(k20, nz0, _mm256_mul_ps(k01, nxy)); /* [k0 nx + k2 nz | k1 ny + k0 0] */
		const __m256 flip = _mm256_and_ps(_mm256_cmp_ps(_mm256_broadcastss_ps(det), k->zero, _CMP_LT_OQ),
			_mm256_set1_ps(-0.0f));
		*tn = _mm256_xor_ps(t, flip);
	}
}

/* [a0 + b0 | a1 + b1] from t0 = [a0|b0], t1 = [a1|b1]. */
RKI_AVX2_INLINE __m256 rki_avx2_sum2(__m256 t0, __m256 t1)
{
	return _mm256_add_ps(_mm256_permute2f128_ps(t0, t1, 0x20), _mm256_permute2f128_ps(t0, t1, 0x31));
}

/* A group's sums: s[0] = [v0|v1], s[1] = [v2|v3]. */
typedef struct rki_avx2_pair {
	__m256 s[2];
} rki_avx2_pair;

/* Normalisation of the 4 vectors of a pair as the scalar kernel does it:
 * l = (x x + y y) + z z; l in (0, inf) -> n * (1 / sqrt(l)), else 0.
 * Begin issues the square root and division (one of each for 4 vertices),
 * end applies them; the caller puts other work in between. */
typedef struct rki_avx2_norm {
	rki_avx2_pair n;
	__m256 inv, ok; /* [i0 i0 i2 i2 | i1 i1 i3 i3] */
} rki_avx2_norm;

RKI_AVX2_INLINE __m256 rki_avx2_len2(__m256 n)
{
	const __m256 sq = _mm256_mul_ps(n, n);
	const __m256 l = _mm256_add_ps(sq, _mm256_permute_ps(sq, _MM_SHUFFLE(1, 1, 1, 1)));
	return _mm256_add_ps(l, _mm256_permute_ps(sq, _MM_SHUFFLE(2, 2, 2, 2)));
}

RKI_AVX2_INLINE rki_avx2_norm rki_avx2_norm_begin(rki_avx2_pair n, const rki_avx2_consts *k)
{
	const __m256 l = _mm256_shuffle_ps(rki_avx2_len2(n.s[0]), rki_avx2_len2(n.s[1]), _MM_SHUFFLE(0, 0, 0, 0));
	rki_avx2_norm r;
	r.n = n;
	r.ok = _mm256_and_ps(_mm256_cmp_ps(l, k->zero, _CMP_GT_OQ), _mm256_cmp_ps(l, k->inf, _CMP_LT_OQ));
	r.inv = _mm256_div_ps(k->one, _mm256_sqrt_ps(l));
	return r;
}

RKI_AVX2_INLINE rki_avx2_pair rki_avx2_norm_end(const rki_avx2_norm *r)
{
	rki_avx2_pair o;
	o.s[0] = _mm256_and_ps(_mm256_mul_ps(r->n.s[0], _mm256_shuffle_ps(r->inv, r->inv, _MM_SHUFFLE(0, 0, 0, 0))),
		_mm256_shuffle_ps(r->ok, r->ok, _MM_SHUFFLE(0, 0, 0, 0)));
	o.s[1] = _mm256_and_ps(_mm256_mul_ps(r->n.s[1], _mm256_shuffle_ps(r->inv, r->inv, _MM_SHUFFLE(2, 2, 2, 2))),
		_mm256_shuffle_ps(r->ok, r->ok, _MM_SHUFFLE(2, 2, 2, 2)));
	return o;
}

/* Stores `count` vectors of a pair at the cursor (stride `stride`) and
 * advances it. Packed full groups (`wide`) write 2 x 24 contiguous bytes. */
RKI_AVX2_INLINE void rki_avx2_store_pair(unsigned char **cursor, size_t stride, rki_avx2_pair s, int count,
	const rki_avx2_consts *k, bool wide)
{
	unsigned char *dst = *cursor;
	if (wide) {
		RKI_SKIN_UNROLL
		for (int h = 0; h < 2; h++) {
			const __m256 p = _mm256_permutevar8x32_ps(s.s[h], k->pack);
			_mm_storeu_ps((float *)(void *)(dst + 24 * h), _mm256_castps256_ps128(p));
			_mm_storel_pi((__m64 *)(void *)(dst + 24 * h + 16), _mm256_extractf128_ps(p, 1));
		}
		*cursor = dst + 4 * stride;
		return;
	}
	RKI_SKIN_UNROLL
	for (int i = 0; i < 4; i++)
		if (i < count) {
			const __m256 h = s.s[i >> 1];
			rki_avx2_store3(dst, (i & 1) ? _mm256_extractf128_ps(h, 1) : _mm256_castps256_ps128(h));
			dst += stride;
		}
	*cursor = dst;
}

/* Skins a group of `count` (1..4) vertices starting at the cursors: all
 * inputs of the group are read before any output is written. Stores the
 * positions, returns the normal sums (not normalised) for the caller to
 * store. Missing members repeat the last vertex and are not stored. */
RKI_AVX2_INLINE rki_avx2_pair rki_avx2_group(rki_avx2_in *in, rki_avx2_out *out, const rki_avx2_strides *st,
	int count, const rki_avx2_consts *k, bool format_3x4, bool has_pos, int nrm_mode, bool packed)
{
	const bool has_nrm = nrm_mode != RKI_SKIN_NRM_NONE;
	const bool wide = packed && count == 4;
	__m256i jv;
	if (wide) {
		jv = _mm256_loadu_si256((const __m256i *)(const void *)in->jnt);
		in->jnt += 4 * st->jnt;
	} else {
		uint64_t jw[4];
		RKI_SKIN_UNROLL
		for (int i = 0; i < 4; i++) {
			memcpy(&jw[i], in->jnt, sizeof(jw[i]));
			if (i + 1 < count || count == 4) in->jnt += st->jnt;
		}
		jv = _mm256_setr_epi64x((long long)jw[0], (long long)jw[1], (long long)jw[2], (long long)jw[3]);
	}
	_Alignas(32) uint32_t off[16];
	rki_avx2_offsets(off, jv, k->jlast, format_3x4);
	__m256 tp[4], tn[4];
	RKI_SKIN_UNROLL
	for (int i = 0; i < 4; i++) {
		tp[i] = tn[i] = k->zero;
		rki_avx2_stage(in, off + 4 * i, k, format_3x4, has_pos, nrm_mode, &tp[i], &tn[i]);
		if (i + 1 < count || count == 4) rki_avx2_in_next(in, st, has_pos, has_nrm);
	}
	if (has_pos) {
		const rki_avx2_pair s = { { rki_avx2_sum2(tp[0], tp[1]), rki_avx2_sum2(tp[2], tp[3]) } };
		rki_avx2_store_pair(&out->pos, st->out_pos, s, count, k, wide);
	}
	const rki_avx2_pair n = { { rki_avx2_sum2(tn[0], tn[1]), rki_avx2_sum2(tn[2], tn[3]) } };
	return n;
}

RKI_AVX2_INLINE void rki_avx2_loop(const rki_skin_args *args, size_t begin, size_t end, bool format_3x4, int nrm_mode,
	bool packed)
{
	const rki_skin_args a = *args; /* a local copy: output stores cannot alias it */
	const bool has_pos = a.pos != NULL, has_nrm = nrm_mode != RKI_SKIN_NRM_NONE;
	rki_avx2_strides st;
	if (packed) {
		st = (rki_avx2_strides){ 8, 16, 12, 12, 12, 12 };
	} else {
		st = (rki_avx2_strides){ a.jnt_stride, a.wgt_stride, a.pos_stride, a.nrm_stride, a.out_pos_stride,
			a.out_nrm_stride };
	}
	rki_avx2_consts k;
	k.matrices = a.matrices;
	k.jlast = _mm256_set1_epi16((short)(uint16_t)a.joint_last);
	k.spread_xy = _mm256_setr_epi32(0, 0, 0, 0, 1, 1, 1, 1);
	k.pack = _mm256_setr_epi32(0, 1, 2, 4, 5, 6, 7, 7);
	k.one = _mm256_set1_ps(1.0f);
	k.zero = _mm256_setzero_ps();
	k.inf = _mm256_set1_ps(INFINITY);
	rki_avx2_in in = { a.jnt + begin * st.jnt, a.wgt + begin * st.wgt, has_pos ? a.pos + begin * st.pos : NULL,
		has_nrm ? a.nrm + begin * st.nrm : NULL };
	rki_avx2_out out = { has_pos ? a.out_pos + begin * st.out_pos : NULL, has_nrm ? a.out_nrm + begin * st.out_nrm : NULL };
	size_t v = begin;
	if (has_nrm && a.normalize) {
		/* Software pipeline: a group's square roots and divisions are issued
		 * after it is skinned, its normals stored after the next group is. */
		rki_avx2_norm pending;
		pending.n.s[0] = pending.n.s[1] = pending.inv = pending.ok = k.zero; /* (stored only once set) */
		bool have = false;
		for (; v + 4 <= end; v += 4) {
			const rki_avx2_norm r = rki_avx2_norm_begin(
				rki_avx2_group(&in, &out, &st, 4, &k, format_3x4, has_pos, nrm_mode, packed), &k);
			if (have) rki_avx2_store_pair(&out.nrm, st.out_nrm, rki_avx2_norm_end(&pending), 4, &k, packed);
			pending = r;
			have = true;
		}
		if (have) rki_avx2_store_pair(&out.nrm, st.out_nrm, rki_avx2_norm_end(&pending), 4, &k, packed);
		if (v < end) {
			const int count = (int)(end - v);
			const rki_avx2_norm r = rki_avx2_norm_begin(
				rki_avx2_group(&in, &out, &st, count, &k, format_3x4, has_pos, nrm_mode, packed), &k);
			rki_avx2_store_pair(&out.nrm, st.out_nrm, rki_avx2_norm_end(&r), count, &k, false);
		}
		return;
	}
	for (; v + 4 <= end; v += 4) {
		const rki_avx2_pair n = rki_avx2_group(&in, &out, &st, 4, &k, format_3x4, has_pos, nrm_mode, packed);
		if (has_nrm) rki_avx2_store_pair(&out.nrm, st.out_nrm, n, 4, &k, packed);
	}
	if (v < end) {
		const int count = (int)(end - v);
		const rki_avx2_pair n = rki_avx2_group(&in, &out, &st, count, &k, format_3x4, has_pos, nrm_mode, packed);
		if (has_nrm) rki_avx2_store_pair(&out.nrm, st.out_nrm, n, count, &k, false);
	}
}

/* Separate tightly packed arrays: constant strides free the registers the
 * pointer arithmetic would need. */
static bool rki_avx2_packed(const rki_skin_args *a)
{
	return a->jnt_stride == 8 && a->wgt_stride == 16 && (!a->pos || (a->pos_stride == 12 && a->out_pos_stride == 12)) &&
		(!a->nrm || (a->nrm_stride == 12 && a->out_nrm_stride == 12));
}

#define RKI_AVX2_LOOP(name, fmt, mode) \
	RKI_AVX2 static void name(const rki_skin_args *a, size_t begin, size_t end) \
	{ \
		if (rki_avx2_packed(a)) rki_avx2_loop(a, begin, end, fmt, mode, true); \
		else rki_avx2_loop(a, begin, end, fmt, mode, false); \
	}

RKI_AVX2_LOOP(rki_avx2_4x4_none, false, RKI_SKIN_NRM_NONE)
RKI_AVX2_LOOP(rki_avx2_4x4_linear, false, RKI_SKIN_NRM_LINEAR)
RKI_AVX2_LOOP(rki_avx2_4x4_invt, false, RKI_SKIN_NRM_INVT)
RKI_AVX2_LOOP(rki_avx2_3x4_none, true, RKI_SKIN_NRM_NONE)
RKI_AVX2_LOOP(rki_avx2_3x4_linear, true, RKI_SKIN_NRM_LINEAR)
RKI_AVX2_LOOP(rki_avx2_3x4_invt, true, RKI_SKIN_NRM_INVT)

void rki_skin_kernel_avx2(const rki_skin_args *a, size_t begin, size_t end)
{
	static const rki_skin_kernel loops[2][3] = {
		{ rki_avx2_4x4_none, rki_avx2_4x4_linear, rki_avx2_4x4_invt },
		{ rki_avx2_3x4_none, rki_avx2_3x4_linear, rki_avx2_3x4_invt },
	};
	loops[a->format_3x4 ? 1 : 0][a->nrm_mode](a, begin, end);
}

#else

/* ISO C forbids an empty translation unit. */
typedef int rki_skin_avx2_unused;

#endif
