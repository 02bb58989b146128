/*
 * src/skin/skin_avx512.c - AVX-512 skinning kernel (RK_SKIN_PATH_AVX512).
 *
 * Built with function target attributes ("avx512f,avx512vl"), called only
 * after __builtin_cpu_supports() reported avx512f and avx512vl (skin.c).
 * The whole affine matrix of a vertex lives in one 512-bit register as its
 * four columns [c0|c1|c2|c3]:
 *   - blend: M = (w0 A + w1 B) + (w2 C + w3 D), four 64-byte operations
 *     (AVX2 needs eight 32-byte ones); a 3x4 row-major entry is read with a
 *     12-lane masked load (palette: in L1) and transposed to columns by one
 *     permute;
 *   - position: M * [x x x x | y y y y | z z z z | 1 1 1 1], whose four
 *     128-bit quarters sum to (c0 x + c1 y) + (c2 z + c3);
 *   - normal: M * [nx.. | ny.. | nz.. | 0], summed likewise; the cofactor
 *     columns of the inverse-transpose mode come from one 512-bit cross
 *     product [c1|c2|c0] x [c2|c0|c1] = [k0|k1|k2];
 *   - vertices go in groups of 4: the group's joint indices are clamped
 *     and scaled in one register; the quarter sums of 4 vertices are one
 *     4x4 quarter transpose and two adds, which leaves [v0|v1|v2|v3] in one
 *     register, so one square root and one division normalise 4 normals;
 *     they are issued after the group and consumed after the next one
 *     (software pipelining hides their latency);
 *   - separate packed arrays (strides 8/16/12/12) are read and written 4
 *     vertices at a time: 32 bytes of joints, 48 bytes of positions (32 + 16,
 *     spread per vertex by one two-source permute), 48 bytes of output
 *     (one permute, a 32-byte and a 16-byte store);
 *   - other strides read inputs with broadcasts of exactly their 12 bytes
 *     (masked 3-lane loads do not over-read either, but were measured far
 *     slower than broadcasts when the line is not cached) and write with
 *     3-lane masked stores.
 * Fused multiply-adds and another summation order than SCALAR: results
 * agree with it to a few float ulps, not bit for bit. Every vertex gets the
 * same operations whatever its group, so ranges give identical bits.
 */
#include "skin/skin_internal.h"

#ifdef RKI_SKIN_HAVE_AVX512

#include <immintrin.h>
#include <math.h>
#include <string.h>

#define RKI_AVX512 __attribute__((target("avx512f,avx512vl")))
#define RKI_AVX512_INLINE static inline __attribute__((always_inline, target("avx512f,avx512vl")))

/* Byte strides of the six streams; compile-time constants for the packed
 * layout (so no registers hold them), the job's otherwise. */
typedef struct rki_avx512_strides {
	size_t jnt, wgt, pos, nrm, out_pos, out_nrm;
} rki_avx512_strides;

/* Input stream pointers of the current vertex. */
typedef struct rki_avx512_in {
	const unsigned char *jnt, *wgt, *pos, *nrm;
} rki_avx512_in;

/* Output stream pointers of the next vertex to store. */
typedef struct rki_avx512_out {
	unsigned char *pos, *nrm;
} rki_avx512_out;

RKI_AVX512_INLINE void rki_avx512_in_next(rki_avx512_in *c, const rki_avx512_strides *st, bool has_pos, bool has_nrm)
{
	c->wgt += st->wgt;
	if (has_pos) c->pos += st->pos;
	if (has_nrm) c->nrm += st->nrm;
}

/* Byte offsets into the palette of the 16 matrices of a group: the four
 * vertices' joint indices (8 bytes each) in one register, clamped by an
 * unsigned min, widened, times the matrix size, stored for scalar use. */
RKI_AVX512_INLINE void rki_avx512_offsets(uint32_t off[16], __m256i j, __m256i jlast, bool format_3x4)
{
	__m512i o = _mm512_cvtepu16_epi32(_mm256_min_epu16(j, jlast));
	o = format_3x4 ? _mm512_add_epi32(_mm512_slli_epi32(o, 5), _mm512_slli_epi32(o, 4)) : _mm512_slli_epi32(o, 6);
	_mm512_store_si512((void *)off, o);
}

/* One matrix as columns [c0|c1|c2|c3]. */
RKI_AVX512_INLINE __m512 rki_avx512_load_matrix(const float *m, bool format_3x4, __m512i transpose)
{
	if (!format_3x4) return _mm512_loadu_ps(m);
	/* rows [r0|r1|r2|0] -> columns; lane 3 of every column is 0 */
	return _mm512_permutexvar_ps(transpose, _mm512_maskz_loadu_ps(0x0FFF, m));
}

/* 3 floats -> [x x x x | y y y y | z z z z | w w w w] with w = `tail`'s. */
RKI_AVX512_INLINE __m512 rki_avx512_splat3(const unsigned char *p, __m512i spread, __m512 tail)
{
	double xy;
	memcpy(&xy, p, sizeof(xy));
	const __m512 v = _mm512_permutexvar_ps(spread, _mm512_castpd_ps(_mm512_set1_pd(xy)));
	const __m512 z = _mm512_set1_ps(((const float *)(const void *)p)[2]);
	return _mm512_mask_mov_ps(_mm512_mask_mov_ps(v, 0x0F00, z), 0xF000, tail);
}

/* Writes lanes 0..2 of v (12 bytes) with a masked vmovups. The empty asm
 * keeps v in a register: GCC would otherwise fold a quarter extract and
 * this store into `vextractf32x4 m128{k}`, and on some CPUs (seen on an
 * AMD EPYC Zen 5 under KVM; tests/test_skin.c no_access_past_the_streams)
 * that instruction faults on a masked-out lane in an unmapped page, while
 * the masked vmovups suppresses the fault as the ISA specifies. */
RKI_AVX512_INLINE void rki_avx512_store3(unsigned char *dst, __m128 v)
{
	__asm__("" : "+v"(v));
	_mm_mask_storeu_ps((float *)(void *)dst, 0x7, v);
}

typedef struct rki_avx512_consts {
	const float *matrices;
	__m256i jlast;
	__m512i transpose, spread, cols120, cols201;
	__m512i pack;     /* lanes 0-2, 4-6, 8-10, 12-14 -> 0..11 */
	__m512i pick[4]; /* vertex i of 4 packed xyz triples + lane 16 (the other source) */
	__m512 one, zero;
} rki_avx512_consts;

/* One vertex up to the final sums: *tp gets the four quarters whose sum is
 * the position ([c0 x | c1 y | c2 z | c3]), *tn those of the normal. */
RKI_AVX512_INLINE void rki_avx512_stage(const rki_avx512_in *c, const uint32_t off[4], __m512 ps, __m512 ns,
	const rki_avx512_consts *k, bool format_3x4, bool has_pos, int nrm_mode, __m512 *tp, __m512 *tn)
{
	const unsigned char *base = (const unsigned char *)k->matrices;
	const float *m[4];
	RKI_SKIN_UNROLL
	for (int i = 0; i < 4; i++) m[i] = (const float *)(const void *)(base + off[i]);
	const float *wp = (const float *)(const void *)c->wgt;
	const __m512 a0 = _mm512_mul_ps(_mm512_set1_ps(wp[0]), rki_avx512_load_matrix(m[0], format_3x4, k->transpose));
	const __m512 a1 = _mm512_fmadd_ps(_mm512_set1_ps(wp[1]), rki_avx512_load_matrix(m[1], format_3x4, k->transpose), a0);
	const __m512 a2 = _mm512_mul_ps(_mm512_set1_ps(wp[2]), rki_avx512_load_matrix(m[2], format_3x4, k->transpose));
	const __m512 a3 = _mm512_fmadd_ps(_mm512_set1_ps(wp[3]), rki_avx512_load_matrix(m[3], format_3x4, k->transpose), a2);
	const __m512 mm = _mm512_add_ps(a1, a3); /* [c0|c1|c2|c3] = (w0 A + w1 B) + (w2 C + w3 D) */

	if (has_pos) *tp = _mm512_mul_ps(mm, ps);
	if (nrm_mode == RKI_SKIN_NRM_LINEAR) *tn = _mm512_mul_ps(mm, ns);
	if (nrm_mode == RKI_SKIN_NRM_INVT) {
		/* [c1|c2|c0] x [c2|c0|c1] = [k0|k1|k2]; quarter 3 meets a 0 normal lane */
		const __m512 u = _mm512_permutexvar_ps(k->cols120, mm), w = _mm512_permutexvar_ps(k->cols201, mm);
		const __m512 u_yzx = _mm512_permute_ps(u, _MM_SHUFFLE(3, 0, 2, 1)), u_zxy = _mm512_permute_ps(u, _MM_SHUFFLE(3, 1, 0, 2));
		const __m512 w_yzx = _mm512_permute_ps(w, _MM_SHUFFLE(3, 0, 2, 1)), w_zxy = _mm512_permute_ps(w, _MM_SHUFFLE(3, 1, 0, 2));
		const __m512 kk = _mm512_fmsub_ps(u_yzx, w_zxy, _mm512_mul_ps(u_zxy, w_yzx));
		/* det = (c0.x k0.x + c0.y k0.y) + c0.z k0.z */
		const __m128 d = _mm_mul_ps(_mm512_castps512_ps128(mm), _mm512_castps512_ps128(kk));
		__m128 det = _mm_add_ss(d, _mm_shuffle_ps(d, d, _MM_SHUFFLE(1, 1, 1, 1)));
		det = _mm_add_ss(det, _mm_shuffle_ps(d, d, _MM_SHUFFLE(2, 2, 2, 2)));
		const __m512 t = _mm512_mul_ps(kk, ns);
		/* negate every quarter when det < 0 (a sign flip: exact, so doing it
		 * before the sums is the same as after) */
		const __mmask16 neg = _mm512_cmp_ps_mask(_mm512_broadcastss_ps(det), k->zero, _CMP_LT_OQ);
		*tn = _mm512_castsi512_ps(_mm512_mask_xor_epi32(_mm512_castps_si512(t), neg, _mm512_castps_si512(t),
			_mm512_set1_epi32((int)0x80000000u)));
	}
}

/* [s0|s1|s2|s3] with s_i = (q0 + q1) + (q2 + q3) of t_i's quarters. */
RKI_AVX512_INLINE __m512 rki_avx512_sum4(__m512 t0, __m512 t1, __m512 t2, __m512 t3)
{
	const __m512 s01 = _mm512_add_ps(_mm512_shuffle_f32x4(t0, t1, _MM_SHUFFLE(2, 0, 2, 0)),
		_mm512_shuffle_f32x4(t0, t1, _MM_SHUFFLE(3, 1, 3, 1))); /* [t0q0+t0q1, t0q2+t0q3, t1q0+t1q1, t1q2+t1q3] */
	const __m512 s23 = _mm512_add_ps(_mm512_shuffle_f32x4(t2, t3, _MM_SHUFFLE(2, 0, 2, 0)),
		_mm512_shuffle_f32x4(t2, t3, _MM_SHUFFLE(3, 1, 3, 1)));
	return _mm512_add_ps(_mm512_shuffle_f32x4(s01, s23, _MM_SHUFFLE(2, 0, 2, 0)),
		_mm512_shuffle_f32x4(s01, s23, _MM_SHUFFLE(3, 1, 3, 1)));
}

/* Normalisation of the four vectors of n (one per quarter) as the scalar
 * kernel does it: l = (x x + y y) + z z; l in (0, inf) -> n * (1 / sqrt(l)),
 * else 0. Split in two so that the long square root and division can run
 * while the next group is skinned. */
typedef struct rki_avx512_norm {
	__m512 n, inv;
	__mmask16 ok;
} rki_avx512_norm;

RKI_AVX512_INLINE rki_avx512_norm rki_avx512_norm_begin(__m512 n, const rki_avx512_consts *k)
{
	const __m512 sq = _mm512_mul_ps(n, n);
	__m512 l = _mm512_add_ps(sq, _mm512_permute_ps(sq, _MM_SHUFFLE(1, 1, 1, 1)));
	l = _mm512_add_ps(l, _mm512_permute_ps(sq, _MM_SHUFFLE(2, 2, 2, 2)));
	l = _mm512_permute_ps(l, _MM_SHUFFLE(0, 0, 0, 0));
	rki_avx512_norm r;
	r.n = n;
	r.ok = _mm512_cmp_ps_mask(l, k->zero, _CMP_GT_OQ) & _mm512_cmp_ps_mask(l, _mm512_set1_ps(INFINITY), _CMP_LT_OQ);
	r.inv = _mm512_div_ps(k->one, _mm512_sqrt_ps(l));
	return r;
}

RKI_AVX512_INLINE __m512 rki_avx512_norm_end(const rki_avx512_norm *r)
{
	return _mm512_maskz_mul_ps(r->ok, r->n, r->inv);
}

/* Packed full group: xyz of the 4 quarters as 48 contiguous bytes (one
 * permute, a 32-byte and a 16-byte store; no masking needed). */
RKI_AVX512_INLINE void rki_avx512_store12(unsigned char *dst, __m512 s, __m512i pack)
{
	const __m512 p = _mm512_permutexvar_ps(pack, s);
	_mm256_storeu_ps((float *)(void *)dst, _mm512_castps512_ps256(p));
	_mm_storeu_ps((float *)(void *)(dst + 32), _mm512_extractf32x4_ps(p, 2));
}

RKI_AVX512_INLINE __m128 rki_avx512_quarter(__m512 v, int i)
{
	switch (i) {
	case 0: return _mm512_castps512_ps128(v);
	case 1: return _mm512_extractf32x4_ps(v, 1);
	case 2: return _mm512_extractf32x4_ps(v, 2);
	default: return _mm512_extractf32x4_ps(v, 3);
	}
}

/* Skins a group of `count` (1..4) vertices starting at the cursors: all
 * inputs of the group are read before any output is written. Stores the
 * positions and returns the normals (one per quarter, not normalised) for
 * the caller to store. Missing members repeat the last vertex and are not
 * stored. Every lane computes the same operations, so a vertex's result
 * does not depend on its group. Advances the input cursor past the group
 * and the position cursor past its positions. */
RKI_AVX512_INLINE __m512 rki_avx512_group(rki_avx512_in *in, rki_avx512_out *out, const rki_avx512_strides *st,
	int count, const rki_avx512_consts *k, bool format_3x4, bool has_pos, int nrm_mode, bool packed)
{
	const bool has_nrm = nrm_mode != RKI_SKIN_NRM_NONE;
	/* Packed full groups read each stream's 4 vertices with wide loads:
	 * joints 32 bytes; positions (normals) 48 bytes (32 + 16), spread per
	 * vertex by one two-source permute that also brings in the 1 (0) of
	 * the fourth quarter. */
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
	_Alignas(64) uint32_t off[16];
	rki_avx512_offsets(off, jv, k->jlast, format_3x4);
	__m512 pg = k->zero, ng = k->zero;
	if (wide && has_pos) {
		const float *pp = (const float *)(const void *)in->pos;
		pg = _mm512_insertf32x4(_mm512_castps256_ps512(_mm256_loadu_ps(pp)), _mm_loadu_ps(pp + 8), 2);
	}
	if (wide && has_nrm) {
		const float *np = (const float *)(const void *)in->nrm;
		ng = _mm512_insertf32x4(_mm512_castps256_ps512(_mm256_loadu_ps(np)), _mm_loadu_ps(np + 8), 2);
	}
	__m512 tp[4], tn[4];
	RKI_SKIN_UNROLL
	for (int i = 0; i < 4; i++) {
		__m512 ps = k->zero, ns = k->zero;
		if (wide) {
			if (has_pos) ps = _mm512_permutex2var_ps(pg, k->pick[i], k->one);
			if (has_nrm) ns = _mm512_permutex2var_ps(ng, k->pick[i], k->zero);
		} else {
			if (has_pos) ps = rki_avx512_splat3(in->pos, k->spread, k->one);
			if (has_nrm) ns = rki_avx512_splat3(in->nrm, k->spread, k->zero);
		}
		tp[i] = tn[i] = k->zero;
		rki_avx512_stage(in, off + 4 * i, ps, ns, k, format_3x4, has_pos, nrm_mode, &tp[i], &tn[i]);
		if (i + 1 < count || count == 4) rki_avx512_in_next(in, st, has_pos, has_nrm);
	}
	if (has_pos) {
		const __m512 s = rki_avx512_sum4(tp[0], tp[1], tp[2], tp[3]);
		if (wide) {
			rki_avx512_store12(out->pos, s, k->pack);
			out->pos += 4 * st->out_pos;
		} else {
			RKI_SKIN_UNROLL
			for (int i = 0; i < 4; i++)
				if (i < count) {
					rki_avx512_store3(out->pos, rki_avx512_quarter(s, i));
					out->pos += st->out_pos;
				}
		}
	}
	return has_nrm ? rki_avx512_sum4(tn[0], tn[1], tn[2], tn[3]) : k->zero;
}

/* Stores a group's normals (`count` of them) at the cursor and advances it. */
RKI_AVX512_INLINE void rki_avx512_store_normals(rki_avx512_out *out, const rki_avx512_strides *st, __m512 s, int count,
	const rki_avx512_consts *k, bool wide)
{
	if (wide) {
		rki_avx512_store12(out->nrm, s, k->pack);
		out->nrm += 4 * st->out_nrm;
		return;
	}
	RKI_SKIN_UNROLL
	for (int i = 0; i < 4; i++)
		if (i < count) {
			rki_avx512_store3(out->nrm, rki_avx512_quarter(s, i));
			out->nrm += st->out_nrm;
		}
}

RKI_AVX512_INLINE void rki_avx512_loop(const rki_skin_args *args, size_t begin, size_t end, bool format_3x4, int nrm_mode,
	bool packed)
{
	const rki_skin_args a = *args; /* a local copy: output stores cannot alias it */
	const bool has_pos = a.pos != NULL, has_nrm = nrm_mode != RKI_SKIN_NRM_NONE;
	rki_avx512_strides st;
	if (packed) {
		st = (rki_avx512_strides){ 8, 16, 12, 12, 12, 12 };
	} else {
		st = (rki_avx512_strides){ a.jnt_stride, a.wgt_stride, a.pos_stride, a.nrm_stride, a.out_pos_stride,
			a.out_nrm_stride };
	}
	rki_avx512_consts k;
	k.matrices = a.matrices;
	k.jlast = _mm256_set1_epi16((short)(uint16_t)a.joint_last);
	k.transpose = _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
	k.spread = _mm512_setr_epi32(0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3);
	k.cols120 = _mm512_setr_epi32(4, 5, 6, 7, 8, 9, 10, 11, 0, 1, 2, 3, 12, 13, 14, 15);
	k.cols201 = _mm512_setr_epi32(8, 9, 10, 11, 0, 1, 2, 3, 4, 5, 6, 7, 12, 13, 14, 15);
	k.pack = _mm512_setr_epi32(0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, 15, 15, 15, 15);
	RKI_SKIN_UNROLL
	for (int i = 0; i < 4; i++) {
		const int x = 3 * i;
		k.pick[i] = _mm512_setr_epi32(x, x, x, x, x + 1, x + 1, x + 1, x + 1, x + 2, x + 2, x + 2, x + 2, 16, 16, 16, 16);
	}
	k.one = _mm512_set1_ps(1.0f);
	k.zero = _mm512_setzero_ps();
	rki_avx512_in in = { a.jnt + begin * st.jnt, a.wgt + begin * st.wgt, has_pos ? a.pos + begin * st.pos : NULL,
		has_nrm ? a.nrm + begin * st.nrm : NULL };
	rki_avx512_out out = { has_pos ? a.out_pos + begin * st.out_pos : NULL, has_nrm ? a.out_nrm + begin * st.out_nrm : NULL };
	size_t v = begin;
	if (has_nrm && a.normalize) {
		/* Software pipeline: group g's square roots and divisions are issued
		 * after it is skinned, its normals stored after group g + 1 is. */
		rki_avx512_norm pending;
		pending.n = pending.inv = k.zero; /* (stored only once set) */
		pending.ok = 0;
		bool have = false;
		for (; v + 4 <= end; v += 4) {
			const rki_avx512_norm r = rki_avx512_norm_begin(
				rki_avx512_group(&in, &out, &st, 4, &k, format_3x4, has_pos, nrm_mode, packed), &k);
			if (have) rki_avx512_store_normals(&out, &st, rki_avx512_norm_end(&pending), 4, &k, packed);
			pending = r;
			have = true;
		}
		if (have) rki_avx512_store_normals(&out, &st, rki_avx512_norm_end(&pending), 4, &k, packed);
		if (v < end) {
			const int count = (int)(end - v);
			const rki_avx512_norm r = rki_avx512_norm_begin(
				rki_avx512_group(&in, &out, &st, count, &k, format_3x4, has_pos, nrm_mode, packed), &k);
			rki_avx512_store_normals(&out, &st, rki_avx512_norm_end(&r), count, &k, false);
		}
		return;
	}
	for (; v + 4 <= end; v += 4) {
		const __m512 n = rki_avx512_group(&in, &out, &st, 4, &k, format_3x4, has_pos, nrm_mode, packed);
		if (has_nrm) rki_avx512_store_normals(&out, &st, n, 4, &k, packed);
	}
	if (v < end) {
		const int count = (int)(end - v);
		const __m512 n = rki_avx512_group(&in, &out, &st, count, &k, format_3x4, has_pos, nrm_mode, packed);
		if (has_nrm) rki_avx512_store_normals(&out, &st, n, count, &k, false);
	}
}

/* Packed layout: separate tightly packed arrays (the common case), whose
 * constant strides free the registers the pointer arithmetic needs. */
static bool rki_avx512_packed(const rki_skin_args *a)
{
	return a->jnt_stride == 8 && a->wgt_stride == 16 && (!a->pos || (a->pos_stride == 12 && a->out_pos_stride == 12)) &&
		(!a->nrm || (a->nrm_stride == 12 && a->out_nrm_stride == 12));
}

#define RKI_AVX512_LOOP(name, fmt, mode) \
	RKI_AVX512 static void name(const rki_skin_args *a, size_t begin, size_t end) \
	{ \
		if (rki_avx512_packed(a)) rki_avx512_loop(a, begin, end, fmt, mode, true); \
		else rki_avx512_loop(a, begin, end, fmt, mode, false); \
	}

RKI_AVX512_LOOP(rki_avx512_4x4_none, false, RKI_SKIN_NRM_NONE)
RKI_AVX512_LOOP(rki_avx512_4x4_linear, false, RKI_SKIN_NRM_LINEAR)
RKI_AVX512_LOOP(rki_avx512_4x4_invt, false, RKI_SKIN_NRM_INVT)
RKI_AVX512_LOOP(rki_avx512_3x4_none, true, RKI_SKIN_NRM_NONE)
RKI_AVX512_LOOP(rki_avx512_3x4_linear, true, RKI_SKIN_NRM_LINEAR)
RKI_AVX512_LOOP(rki_avx512_3x4_invt, true, RKI_SKIN_NRM_INVT)

void rki_skin_kernel_avx512(const rki_skin_args *a, size_t begin, size_t end)
{
	static const rki_skin_kernel loops[2][3] = {
		{ rki_avx512_4x4_none, rki_avx512_4x4_linear, rki_avx512_4x4_invt },
		{ rki_avx512_3x4_none, rki_avx512_3x4_linear, rki_avx512_3x4_invt },
	};
	loops[a->format_3x4 ? 1 : 0][a->nrm_mode](a, begin, end);
}

#else

/* ISO C forbids an empty translation unit. */
typedef int rki_skin_avx512_unused;

#endif
