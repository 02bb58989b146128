/*
 * src/skin/skin_scalar.c - the plain C skinning kernel (RK_SKIN_PATH_SCALAR).
 *
 * Always built, also with RK_SCALAR_ONLY; the reference the SIMD kernels are
 * tested against. Operation order as documented in skin_internal.h; every
 * multiply and add is a separate float operation (ISO C mode: GCC does not
 * contract them, and clang is told below).
 */
#include "skin/skin_internal.h"

#include <math.h>
#include <string.h>

#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif

/* Columns c[0..3] (xyz each) of the blended matrix of one vertex. */
RKI_SKIN_INLINE void rki_scalar_blend(float c[4][3], const rki_skin_args *a, const uint16_t *j, const float *w,
	bool format_3x4)
{
	const size_t floats = format_3x4 ? 12 : 16;
	const float *m[4];
	for (int k = 0; k < 4; k++) {
		size_t jk = j[k];
		if (jk > a->joint_last) jk = a->joint_last;
		m[k] = a->matrices + jk * floats;
	}
	for (int col = 0; col < 4; col++)
		for (int row = 0; row < 3; row++) {
			const int e = format_3x4 ? row * 4 + col : col * 4 + row;
			float s = w[0] * m[0][e];
			s = s + w[1] * m[1][e];
			s = s + w[2] * m[2][e];
			s = s + w[3] * m[3][e];
			c[col][row] = s;
		}
}

RKI_SKIN_INLINE void rki_scalar_cross(float out[3], const float a[3], const float b[3])
{
	out[0] = a[1] * b[2] - a[2] * b[1];
	out[1] = a[2] * b[0] - a[0] * b[2];
	out[2] = a[0] * b[1] - a[1] * b[0];
}

RKI_SKIN_INLINE void rki_scalar_vertex(const rki_skin_args *a, size_t v, bool format_3x4, int nrm_mode)
{
	const uint16_t *j = (const uint16_t *)(const void *)(a->jnt + v * a->jnt_stride);
	const float *w = (const float *)(const void *)(a->wgt + v * a->wgt_stride);
	float c[4][3];
	rki_scalar_blend(c, a, j, w, format_3x4);

	/* Read both inputs before writing either output (in-place support). */
	float p[3] = { 0, 0, 0 }, n[3] = { 0, 0, 0 };
	if (a->pos) memcpy(p, a->pos + v * a->pos_stride, sizeof(p));
	if (nrm_mode != RKI_SKIN_NRM_NONE) memcpy(n, a->nrm + v * a->nrm_stride, sizeof(n));

	if (a->pos) {
		float o[3];
		for (int r = 0; r < 3; r++) {
			float s = c[0][r] * p[0];
			s = s + c[1][r] * p[1];
			s = s + c[2][r] * p[2];
			s = s + c[3][r];
			o[r] = s;
		}
		memcpy(a->out_pos + v * a->out_pos_stride, o, sizeof(o));
	}
	if (nrm_mode == RKI_SKIN_NRM_NONE) return;

	float o[3];
	if (nrm_mode == RKI_SKIN_NRM_LINEAR) {
		for (int r = 0; r < 3; r++) {
			float s = c[0][r] * n[0];
			s = s + c[1][r] * n[1];
			s = s + c[2][r] * n[2];
			o[r] = s;
		}
	} else {
		float k[3][3];
		rki_scalar_cross(k[0], c[1], c[2]);
		rki_scalar_cross(k[1], c[2], c[0]);
		rki_scalar_cross(k[2], c[0], c[1]);
		float det = c[0][0] * k[0][0];
		det = det + c[0][1] * k[0][1];
		det = det + c[0][2] * k[0][2];
		for (int r = 0; r < 3; r++) {
			float s = k[0][r] * n[0];
			s = s + k[1][r] * n[1];
			s = s + k[2][r] * n[2];
			o[r] = det < 0.0f ? -s : s;
		}
	}
	if (a->normalize) {
		float l = o[0] * o[0];
		l = l + o[1] * o[1];
		l = l + o[2] * o[2];
		if (l > 0.0f && l < INFINITY) {
			float inv = 1.0f / sqrtf(l);
			o[0] *= inv;
			o[1] *= inv;
			o[2] *= inv;
		} else {
			o[0] = o[1] = o[2] = 0.0f;
		}
	}
	memcpy(a->out_nrm + v * a->out_nrm_stride, o, sizeof(o));
}

/* One loop per (format, normal mode) so the per-vertex code has no
 * loop-invariant branches left to predict. */
#define RKI_SCALAR_LOOP(name, fmt, mode) \
	static void name(const rki_skin_args *a, size_t begin, size_t end) \
	{ for (size_t v = begin; v < end; v++) rki_scalar_vertex(a, v, fmt, mode); }

RKI_SCALAR_LOOP(rki_scalar_4x4_none, false, RKI_SKIN_NRM_NONE)
RKI_SCALAR_LOOP(rki_scalar_4x4_linear, false, RKI_SKIN_NRM_LINEAR)
RKI_SCALAR_LOOP(rki_scalar_4x4_invt, false, RKI_SKIN_NRM_INVT)
RKI_SCALAR_LOOP(rki_scalar_3x4_none, true, RKI_SKIN_NRM_NONE)
RKI_SCALAR_LOOP(rki_scalar_3x4_linear, true, RKI_SKIN_NRM_LINEAR)
RKI_SCALAR_LOOP(rki_scalar_3x4_invt, true, RKI_SKIN_NRM_INVT)

void rki_skin_kernel_scalar(const rki_skin_args *a, size_t begin, size_t end)
{
	static const rki_skin_kernel loops[2][3] = {
		{ rki_scalar_4x4_none, rki_scalar_4x4_linear, rki_scalar_4x4_invt },
		{ rki_scalar_3x4_none, rki_scalar_3x4_linear, rki_scalar_3x4_invt },
	};
	loops[a->format_3x4 ? 1 : 0][a->nrm_mode](a, begin, end);
}
