/*
 * tests/test_skin.c - rigkit/skin.h: linear blend skinning.
 *
 * Expectations come from outside the module under test:
 *   - hand-derived cases (one joint translating / rotating, two joints
 *     blended 50/50, non-uniform scale and mirror normals);
 *   - a plain double-precision loop in this file (independent code: rk_mat4
 *     blend, rk_mat4_invert for the normal matrix);
 *   - anim.h's reference deformation (rk_mesh_world_positions_eval /
 *     _normals, all influences, double) on the shared Mixamo characters.
 * Paths are compared with each other: SSE2 against SCALAR bit for bit,
 * AVX2 and AVX512 within 1e-6 of the extent, threads and ranges bit for
 * bit.
 * Built with -DRK_SCALAR_ONLY (cmake -DRIGKIT_SCALAR_ONLY=ON) only SCALAR
 * exists; every test still runs on it.
 */
#define _DEFAULT_SOURCE 1 /* MAP_ANONYMOUS for the guard-page test */

#include "rk_test.h"

#include <rigkit/rigkit.h>
#include <rigkit/skin.h>

#include <float.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#if defined(__has_include)
#if __has_include(<rigkit/mesh.h>)
#include <rigkit/mesh.h>
#define TEST_HAVE_MESH 1
#endif
#endif

/* ---------------------------------------------------------------------------
 * Helpers
 * ------------------------------------------------------------------------- */

static const rk_skin_path all_paths[] = { RK_SKIN_PATH_SCALAR, RK_SKIN_PATH_SSE2, RK_SKIN_PATH_AVX2, RK_SKIN_PATH_AVX512 };
#define PATH_COUNT (sizeof(all_paths) / sizeof(all_paths[0]))

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static double rnd(void) /* [0, 1) */
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (double)(rng_state >> 11) * (1.0 / 9007199254740992.0);
}
static double rnd_range(double a, double b) { return a + (b - a) * rnd(); }

/* Float palette entry j from a double matrix in either format. */
static void put_matrix(float *palette, size_t j, rk_mat4 m, rk_skin_matrix_format f)
{
	rk_skin_palette_from_mat4(palette + j * rk_skin_matrix_floats(f), &m, 1, f);
}

/* Palette entry j back to rk_mat4 (bottom row 0 0 0 1), read independently
 * of the module. */
static rk_mat4 get_matrix(const float *palette, size_t j, rk_skin_matrix_format f)
{
	rk_mat4 m = rk_mat4_identity();
	if (f == RK_SKIN_MATRIX_4X4) {
		for (int e = 0; e < 16; e++) m.m[e] = palette[j * 16 + e];
		m.m[3] = m.m[7] = m.m[11] = 0.0;
		m.m[15] = 1.0;
	} else {
		for (int row = 0; row < 3; row++)
			for (int col = 0; col < 4; col++) m.m[col * 4 + row] = palette[j * 12 + row * 4 + col];
	}
	return m;
}

static const float *fptr(const void *base, size_t stride, size_t elem, size_t v)
{
	return (const float *)(const void *)((const unsigned char *)base + v * (stride ? stride : elem));
}

/* Double-precision reference of a job: out_pos / out_nrm get 3 doubles per
 * vertex (either may be NULL). Indices clamp like the module documents. */
static void ref_skin(const rk_skin_job *job, double *out_pos, double *out_nrm)
{
	for (size_t v = 0; v < job->vertex_count; v++) {
		const uint16_t *j = (const uint16_t *)(const void *)((const unsigned char *)job->joints +
			v * (job->joint_stride ? job->joint_stride : 8));
		const float *w = fptr(job->weights, job->weight_stride, 16, v);
		rk_mat4 m;
		memset(&m, 0, sizeof(m));
		for (int k = 0; k < 4; k++) {
			size_t jk = j[k] < job->joint_count ? j[k] : job->joint_count - 1;
			rk_mat4 mk = get_matrix(job->matrices, jk, job->matrix_format);
			for (int e = 0; e < 16; e++) m.m[e] += (double)w[k] * mk.m[e];
		}
		m.m[3] = m.m[7] = m.m[11] = 0.0;
		m.m[15] = 1.0;
		if (out_pos && job->positions) {
			const float *p = fptr(job->positions, job->position_stride, 12, v);
			rk_vec3 r = rk_mat4_transform_point(m, (rk_vec3){ p[0], p[1], p[2] });
			out_pos[v * 3 + 0] = r.x;
			out_pos[v * 3 + 1] = r.y;
			out_pos[v * 3 + 2] = r.z;
		}
		if (out_nrm && job->normals) {
			const float *n = fptr(job->normals, job->normal_stride, 12, v);
			rk_vec3 nv = { n[0], n[1], n[2] }, r;
			if (job->normal_mode == RK_SKIN_NORMALS_INVERSE_TRANSPOSE) {
				rk_mat4 inv;
				if (!rk_mat4_invert_affine(m, &inv)) memset(&inv, 0, sizeof(inv));
				r = rk_mat4_transform_vector(rk_mat4_transpose(inv), nv);
				if (job->keep_normal_length) r = rk_vec3_scale(r, fabs(rk_mat4_determinant3(m)));
			} else {
				r = rk_mat4_transform_vector(m, nv);
			}
			if (!job->keep_normal_length) {
				double l = rk_vec3_length(r);
				r = l > 0.0 ? rk_vec3_scale(r, 1.0 / l) : (rk_vec3){ 0, 0, 0 };
			}
			out_nrm[v * 3 + 0] = r.x;
			out_nrm[v * 3 + 1] = r.y;
			out_nrm[v * 3 + 2] = r.z;
		}
	}
}

/* Largest side of the box of n points (1 when smaller). */
static double extent_of(const double *p, size_t n)
{
	double lo[3] = { DBL_MAX, DBL_MAX, DBL_MAX }, hi[3] = { -DBL_MAX, -DBL_MAX, -DBL_MAX };
	for (size_t v = 0; v < n; v++)
		for (int c = 0; c < 3; c++) {
			if (p[v * 3 + c] < lo[c]) lo[c] = p[v * 3 + c];
			if (p[v * 3 + c] > hi[c]) hi[c] = p[v * 3 + c];
		}
	double e = 0.0;
	for (int c = 0; c < 3; c++)
		if (hi[c] - lo[c] > e) e = hi[c] - lo[c];
	return e > 1.0 ? e : 1.0;
}

/* Largest |float[v] - double[v]| over n vec3 of a strided float stream. */
static double max_diff_fd(const float *f, size_t stride, const double *d, size_t n)
{
	double m = 0.0;
	for (size_t v = 0; v < n; v++) {
		const float *p = fptr(f, stride, 12, v);
		for (int c = 0; c < 3; c++) {
			double e = fabs((double)p[c] - d[v * 3 + c]);
			if (!(e <= m)) m = e; /* NaN wins */
		}
	}
	return m;
}

static double max_diff_ff(const float *a, const float *b, size_t count)
{
	double m = 0.0;
	for (size_t i = 0; i < count; i++) {
		double e = fabs((double)a[i] - (double)b[i]);
		if (!(e <= m)) m = e;
	}
	return m;
}

/* A random affine joint matrix: rotation up to `max_angle` radians about a
 * random axis, optional non-uniform scale, translation in [-t, t]. */
static rk_mat4 random_matrix(double max_angle, double scale_spread, double t)
{
	rk_vec3 axis = rk_vec3_normalize((rk_vec3){ rnd_range(-1, 1), rnd_range(-1, 1), rnd_range(-1, 1) + 1e-3 });
	rk_quat q = rk_quat_axis_angle(axis, rnd_range(-max_angle, max_angle));
	rk_trs trs = { { rnd_range(-t, t), rnd_range(-t, t), rnd_range(-t, t) }, q,
		{ 1.0 + rnd_range(-scale_spread, scale_spread), 1.0 + rnd_range(-scale_spread, scale_spread),
		  1.0 + rnd_range(-scale_spread, scale_spread) } };
	return rk_mat4_from_trs(trs);
}

/* Random mesh in separate packed arrays. */
typedef struct tmesh {
	size_t n, joint_count;
	float *pos, *nrm, *wgt;
	uint16_t *jnt;
	float *pal4, *pal3; /* the same matrices in both formats */
	float *out_pos, *out_nrm;
} tmesh;

static bool tmesh_make(tmesh *m, size_t n, size_t joint_count, double max_angle, double scale_spread)
{
	memset(m, 0, sizeof(*m));
	m->n = n;
	m->joint_count = joint_count;
	m->pos = malloc(n * 12);
	m->nrm = malloc(n * 12);
	m->wgt = malloc(n * 16);
	m->jnt = malloc(n * 8);
	m->pal4 = malloc(joint_count * 64);
	m->pal3 = malloc(joint_count * 48);
	m->out_pos = malloc(n * 12);
	m->out_nrm = malloc(n * 12);
	if (!m->pos || !m->nrm || !m->wgt || !m->jnt || !m->pal4 || !m->pal3 || !m->out_pos || !m->out_nrm) return false;
	for (size_t j = 0; j < joint_count; j++) {
		rk_mat4 mj = random_matrix(max_angle, scale_spread, 50.0);
		put_matrix(m->pal4, j, mj, RK_SKIN_MATRIX_4X4);
		put_matrix(m->pal3, j, mj, RK_SKIN_MATRIX_3X4);
	}
	for (size_t v = 0; v < n; v++) {
		for (int c = 0; c < 3; c++) m->pos[v * 3 + c] = (float)rnd_range(-100, 100);
		rk_vec3 nn = rk_vec3_normalize((rk_vec3){ rnd_range(-1, 1), rnd_range(-1, 1), rnd_range(-1, 1) + 1e-3 });
		m->nrm[v * 3 + 0] = (float)nn.x;
		m->nrm[v * 3 + 1] = (float)nn.y;
		m->nrm[v * 3 + 2] = (float)nn.z;
		/* 1 to 4 influences, descending, sum 1 (in float), unused slots joint 0 weight 0. */
		int used = 1 + (int)(rnd() * 4.0);
		double w[4] = { 0, 0, 0, 0 }, s = 0.0;
		for (int k = 0; k < used; k++) s += (w[k] = rnd_range(0.05, 1.0));
		for (int k = 0; k < 4; k++) {
			m->wgt[v * 4 + k] = (float)(w[k] / s);
			m->jnt[v * 4 + k] = k < used ? (uint16_t)(rnd() * (double)joint_count) : 0;
		}
	}
	return true;
}

static void tmesh_free(tmesh *m)
{
	free(m->pos); free(m->nrm); free(m->wgt); free(m->jnt);
	free(m->pal4); free(m->pal3); free(m->out_pos); free(m->out_nrm);
	memset(m, 0, sizeof(*m));
}

static rk_skin_job tmesh_job(tmesh *m, rk_skin_matrix_format f)
{
	rk_skin_job job = { 0 };
	job.vertex_count = m->n;
	job.positions = m->pos;
	job.normals = m->nrm;
	job.joints = m->jnt;
	job.weights = m->wgt;
	job.matrices = f == RK_SKIN_MATRIX_3X4 ? m->pal3 : m->pal4;
	job.matrix_format = f;
	job.joint_count = m->joint_count;
	job.out_positions = m->out_pos;
	job.out_normals = m->out_nrm;
	return job;
}

/* ---------------------------------------------------------------------------
 * Hand-derived cases
 * ------------------------------------------------------------------------- */

/* Skins `n` vertices with every path and both formats; checks positions and
 * normals against the expected values (tolerance tol). */
static void check_hand_case(rk_test_state *rk_t_, const rk_mat4 *mats, size_t joint_count, const float *pos,
	const float *nrm, const uint16_t *jnt, const float *wgt, size_t n, rk_skin_normal_mode mode, bool keep_len,
	const double *exp_pos, const double *exp_nrm, double tol)
{
	float pal[4 * 16];
	float out_pos[4 * 3], out_nrm[4 * 3];
	RK_REQUIRE(joint_count <= 4 && n <= 4);
	for (int f = 0; f < 2; f++) {
		rk_skin_matrix_format fmt = f ? RK_SKIN_MATRIX_3X4 : RK_SKIN_MATRIX_4X4;
		rk_skin_palette_from_mat4(pal, mats, joint_count, fmt);
		for (size_t pi = 0; pi < PATH_COUNT; pi++) {
			if (!rk_skin_path_supported(all_paths[pi])) continue;
			rk_skin_job job = { .vertex_count = n, .positions = pos, .normals = nrm, .joints = jnt, .weights = wgt,
				.matrices = pal, .joint_count = joint_count, .matrix_format = fmt, .out_positions = out_pos,
				.out_normals = out_nrm, .normal_mode = mode, .keep_normal_length = keep_len, .path = all_paths[pi] };
			memset(out_pos, 0xCD, sizeof(out_pos));
			memset(out_nrm, 0xCD, sizeof(out_nrm));
			RK_REQUIRE(rk_skin_run(&job));
			for (size_t i = 0; i < n * 3; i++) {
				RK_CHECK_NEAR(out_pos[i], exp_pos[i], tol);
				RK_CHECK_NEAR(out_nrm[i], exp_nrm[i], tol);
			}
		}
	}
}

RK_TEST(hand_single_joint_translation)
{
	rk_mat4 m = rk_mat4_translation((rk_vec3){ 1, 2, 3 });
	const float pos[] = { 1, 0, 0, -2, 5, 0.5f };
	const float nrm[] = { 1, 0, 0, 0, 0.6f, 0.8f };
	const uint16_t jnt[] = { 0, 0, 0, 0, 0, 0, 0, 0 };
	const float wgt[] = { 1, 0, 0, 0, 1, 0, 0, 0 };
	const double ep[] = { 2, 2, 3, -1, 7, 3.5 };
	const double en[] = { 1, 0, 0, 0, 0.6, 0.8 };
	check_hand_case(rk_t_, &m, 1, pos, nrm, jnt, wgt, 2, RK_SKIN_NORMALS_LINEAR, false, ep, en, 1e-6);
	check_hand_case(rk_t_, &m, 1, pos, nrm, jnt, wgt, 2, RK_SKIN_NORMALS_INVERSE_TRANSPOSE, false, ep, en, 1e-6);
}

RK_TEST(hand_single_joint_rotation)
{
	/* 90 degrees about +Z, then translate (0, 0, 1): (x, y, z) -> (-y, x, z + 1). */
	rk_mat4 m = rk_mat4_mul(rk_mat4_translation((rk_vec3){ 0, 0, 1 }),
		rk_mat4_rotation(rk_quat_axis_angle((rk_vec3){ 0, 0, 1 }, M_PI / 2)));
	const float pos[] = { 1, 0, 0, 2, 3, 4 };
	const float nrm[] = { 1, 0, 0, 0, 1, 0 };
	const uint16_t jnt[] = { 0, 0, 0, 0, 0, 0, 0, 0 };
	const float wgt[] = { 1, 0, 0, 0, 1, 0, 0, 0 };
	const double ep[] = { 0, 1, 1, -3, 2, 5 };
	const double en[] = { 0, 1, 0, -1, 0, 0 };
	check_hand_case(rk_t_, &m, 1, pos, nrm, jnt, wgt, 2, RK_SKIN_NORMALS_LINEAR, false, ep, en, 1e-6);
	check_hand_case(rk_t_, &m, 1, pos, nrm, jnt, wgt, 2, RK_SKIN_NORMALS_INVERSE_TRANSPOSE, false, ep, en, 1e-6);
}

RK_TEST(hand_two_joints_half_half)
{
	/* Joint 0 moves +2 x, joint 1 moves +2 y: 50/50 gives +(1, 1, 0). */
	rk_mat4 mt[2] = { rk_mat4_translation((rk_vec3){ 2, 0, 0 }), rk_mat4_translation((rk_vec3){ 0, 2, 0 }) };
	const float pos[] = { 1, 1, 1 };
	const float nrm[] = { 0, 0, 1 };
	const uint16_t jnt[] = { 0, 1, 0, 0 };
	const float wgt[] = { 0.5f, 0.5f, 0, 0 };
	const double ep[] = { 2, 2, 1 };
	const double en[] = { 0, 0, 1 };
	check_hand_case(rk_t_, mt, 2, pos, nrm, jnt, wgt, 1, RK_SKIN_NORMALS_LINEAR, false, ep, en, 1e-6);

	/* Identity and 90 degrees about Z, 50/50: M = (I + R) / 2 =
	 * [0.5 -0.5 0; 0.5 0.5 0; 0 0 1]. (1, 0, 0) -> (0.5, 0.5, 0); the
	 * normal (1, 0, 0) -> (0.5, 0.5, 0) renormalised = (1/sqrt2, 1/sqrt2, 0)
	 * (M's 3x3 is sqrt(0.5) times a 45-degree rotation in xy, so both normal
	 * modes agree); unnormalised the linear mode keeps length sqrt(0.5). */
	rk_mat4 mr[2] = { rk_mat4_identity(), rk_mat4_rotation(rk_quat_axis_angle((rk_vec3){ 0, 0, 1 }, M_PI / 2)) };
	const float pos2[] = { 1, 0, 0, 0, 0, 3 };
	const float nrm2[] = { 1, 0, 0, 0, 0, 1 };
	const uint16_t jnt2[] = { 0, 1, 0, 0, 1, 0, 0, 0 };
	const float wgt2[] = { 0.5f, 0.5f, 0, 0, 0.5f, 0.5f, 0, 0 };
	const double h = sqrt(0.5);
	const double ep2[] = { 0.5, 0.5, 0, 0, 0, 3 };
	const double en2[] = { h, h, 0, 0, 0, 1 };
	check_hand_case(rk_t_, mr, 2, pos2, nrm2, jnt2, wgt2, 2, RK_SKIN_NORMALS_LINEAR, false, ep2, en2, 1e-6);
	check_hand_case(rk_t_, mr, 2, pos2, nrm2, jnt2, wgt2, 2, RK_SKIN_NORMALS_INVERSE_TRANSPOSE, false, ep2, en2, 1e-6);
	const double en2_raw[] = { 0.5, 0.5, 0, 0, 0, 1 };
	check_hand_case(rk_t_, mr, 2, pos2, nrm2, jnt2, wgt2, 2, RK_SKIN_NORMALS_LINEAR, true, ep2, en2_raw, 1e-6);
	/* Inverse-transpose unnormalised: |det| M^-T n with det = 0.25 + 0.25
	 * = 0.5 and M^-T = [1 -1 0; 1 1 0; 0 0 1]: (1, 0, 0) -> 0.5 (1, 1, 0),
	 * (0, 0, 1) -> 0.5 (0, 0, 1). */
	const double en2_it[] = { 0.5, 0.5, 0, 0, 0, 0.5 };
	check_hand_case(rk_t_, mr, 2, pos2, nrm2, jnt2, wgt2, 2, RK_SKIN_NORMALS_INVERSE_TRANSPOSE, true, ep2, en2_it, 1e-6);
}

RK_TEST(hand_scaled_and_mirrored_normals)
{
	/* Non-uniform scale (2, 1, 1): a 45-degree surface normal (1, 1, 0)/sqrt2
	 * becomes (0.5, 1, 0) renormalised under the inverse-transpose, and
	 * (2, 1, 0) renormalised under the plain matrix. */
	rk_mat4 s = rk_mat4_scaling((rk_vec3){ 2, 1, 1 });
	const float h = (float)sqrt(0.5);
	const float pos[] = { 1, 1, 1 };
	const float nrm[] = { h, h, 0 };
	const uint16_t jnt[] = { 0, 0, 0, 0 };
	const float wgt[] = { 1, 0, 0, 0 };
	const double ep[] = { 2, 1, 1 };
	const double a = 1.0 / sqrt(1.25), b = 1.0 / sqrt(5.0);
	const double en_it[] = { 0.5 * a, a, 0 };
	const double en_lin[] = { 2 * b, b, 0 };
	check_hand_case(rk_t_, &s, 1, pos, nrm, jnt, wgt, 1, RK_SKIN_NORMALS_INVERSE_TRANSPOSE, false, ep, en_it, 1e-6);
	check_hand_case(rk_t_, &s, 1, pos, nrm, jnt, wgt, 1, RK_SKIN_NORMALS_LINEAR, false, ep, en_lin, 1e-6);

	/* Mirror x: both modes map the normal (1, 0, 0) to (-1, 0, 0) (the
	 * cofactor alone would give +1: sign(det) fixes it). */
	rk_mat4 mir = rk_mat4_scaling((rk_vec3){ -1, 1, 1 });
	const float nrm2[] = { 1, 0, 0 };
	const double ep2[] = { -1, 1, 1 };
	const double en2[] = { -1, 0, 0 };
	check_hand_case(rk_t_, &mir, 1, pos, nrm2, jnt, wgt, 1, RK_SKIN_NORMALS_INVERSE_TRANSPOSE, false, ep2, en2, 1e-6);
	check_hand_case(rk_t_, &mir, 1, pos, nrm2, jnt, wgt, 1, RK_SKIN_NORMALS_LINEAR, false, ep2, en2, 1e-6);
}

RK_TEST(hand_zero_weights_and_zero_normals)
{
	/* All weights 0: the vertex collapses to the origin, its normal to 0. */
	rk_mat4 m = rk_mat4_translation((rk_vec3){ 5, 5, 5 });
	const float pos[] = { 1, 2, 3 };
	const float nrm[] = { 0, 0, 1 };
	const uint16_t jnt[] = { 0, 0, 0, 0 };
	const float wgt[] = { 0, 0, 0, 0 };
	const double ep[] = { 0, 0, 0 };
	const double en[] = { 0, 0, 0 };
	check_hand_case(rk_t_, &m, 1, pos, nrm, jnt, wgt, 1, RK_SKIN_NORMALS_LINEAR, false, ep, en, 0.0);
	check_hand_case(rk_t_, &m, 1, pos, nrm, jnt, wgt, 1, RK_SKIN_NORMALS_INVERSE_TRANSPOSE, false, ep, en, 0.0);
	/* A zero input normal stays zero (no NaN). */
	const float wgt1[] = { 1, 0, 0, 0 };
	const float nrm0[] = { 0, 0, 0 };
	const double ep1[] = { 6, 7, 8 };
	check_hand_case(rk_t_, &m, 1, pos, nrm0, jnt, wgt1, 1, RK_SKIN_NORMALS_LINEAR, false, ep1, en, 0.0);
	check_hand_case(rk_t_, &m, 1, pos, nrm0, jnt, wgt1, 1, RK_SKIN_NORMALS_INVERSE_TRANSPOSE, false, ep1, en, 0.0);
}

RK_TEST(palette_layouts)
{
	rk_mat4 m;
	for (int e = 0; e < 16; e++) m.m[e] = e + 1; /* column-major: m[col * 4 + row] */
	float p4[16], p3[12];
	rk_skin_palette_from_mat4(p4, &m, 1, RK_SKIN_MATRIX_4X4);
	rk_skin_palette_from_mat4(p3, &m, 1, RK_SKIN_MATRIX_3X4);
	for (int e = 0; e < 16; e++) RK_CHECK_NEAR(p4[e], e + 1, 0);
	/* Row 0 = (m[0], m[4], m[8], m[12]) = 1, 5, 9, 13 ... translation at 3, 7, 11. */
	const float rows[12] = { 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15 };
	for (int e = 0; e < 12; e++) RK_CHECK_NEAR(p3[e], rows[e], 0);
	RK_CHECK_INT(rk_skin_matrix_floats(RK_SKIN_MATRIX_4X4), 16);
	RK_CHECK_INT(rk_skin_matrix_floats(RK_SKIN_MATRIX_3X4), 12);
	RK_CHECK_INT(rk_skin_matrix_floats((rk_skin_matrix_format)7), 0);
	rk_skin_palette_from_mat4(NULL, &m, 1, RK_SKIN_MATRIX_4X4); /* no-op */
}

/* ---------------------------------------------------------------------------
 * Paths, ranges, threads, layouts against each other and the double loop
 * ------------------------------------------------------------------------- */

RK_TEST(paths_supported)
{
	RK_CHECK(rk_skin_path_supported(RK_SKIN_PATH_AUTO));
	RK_CHECK(rk_skin_path_supported(RK_SKIN_PATH_SCALAR));
	RK_CHECK(!rk_skin_path_supported((rk_skin_path)99));
	RK_CHECK(rk_skin_resolve_path(RK_SKIN_PATH_SCALAR) == RK_SKIN_PATH_SCALAR);
	RK_CHECK(rk_skin_resolve_path(RK_SKIN_PATH_AUTO) != RK_SKIN_PATH_AUTO);
	RK_CHECK_STR(rk_skin_path_name(RK_SKIN_PATH_AVX2), "avx2");
	RK_CHECK_STR(rk_skin_path_name((rk_skin_path)99), "unknown");
#if defined(RK_SCALAR_ONLY)
	RK_CHECK(!rk_skin_path_supported(RK_SKIN_PATH_SSE2));
	RK_CHECK(!rk_skin_path_supported(RK_SKIN_PATH_AVX2));
	RK_CHECK(!rk_skin_path_supported(RK_SKIN_PATH_AVX512));
	RK_CHECK(rk_skin_resolve_path(RK_SKIN_PATH_AUTO) == RK_SKIN_PATH_SCALAR);
	fprintf(stderr, "paths_supported: scalar-only build\n");
#elif defined(__x86_64__)
	RK_CHECK(rk_skin_path_supported(RK_SKIN_PATH_SSE2));
	const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
	const bool avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl");
	RK_CHECK(rk_skin_path_supported(RK_SKIN_PATH_AVX2) == avx2);
	RK_CHECK(rk_skin_path_supported(RK_SKIN_PATH_AVX512) == avx512);
	RK_CHECK(rk_skin_resolve_path(RK_SKIN_PATH_AUTO) ==
		(avx512 ? RK_SKIN_PATH_AVX512 : avx2 ? RK_SKIN_PATH_AVX2 : RK_SKIN_PATH_SSE2));
	fprintf(stderr, "paths_supported: auto = %s\n", rk_skin_path_name(rk_skin_resolve_path(RK_SKIN_PATH_AUTO)));
#endif
	/* An unsupported explicit path does not validate. */
	for (size_t pi = 0; pi < PATH_COUNT; pi++) {
		if (rk_skin_path_supported(all_paths[pi])) continue;
		float pal[16] = { 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1 }, p[3] = { 0 }, o[3];
		uint16_t j[4] = { 0 };
		float w[4] = { 1 };
		rk_skin_job job = { .vertex_count = 1, .positions = p, .out_positions = o, .joints = j, .weights = w,
			.matrices = pal, .joint_count = 1, .path = all_paths[pi] };
		rk_error err;
		RK_CHECK(!rk_skin_validate(&job, &err));
		RK_CHECK(strstr(err.message, "not supported") != NULL);
	}
}

/* Every path, format, normal mode and normalisation on a random mesh:
 * SSE2 == SCALAR bit for bit, AVX2 within 1e-6 of the extent, all within
 * 1e-5 of the extent of the double loop. */
RK_TEST(paths_agree_with_double_reference)
{
	tmesh m;
	const size_t n = 5003; /* odd, not a multiple of anything */
	RK_REQUIRE(tmesh_make(&m, n, 64, 0.7, 0.3));
	double *rp = malloc(n * 3 * sizeof(double)), *rn = malloc(n * 3 * sizeof(double));
	float *sp = malloc(n * 12), *sn = malloc(n * 12);
	RK_REQUIRE(rp && rn && sp && sn);
	for (int f = 0; f < 2; f++)
		for (int mode = 0; mode < 2; mode++)
			for (int keep = 0; keep < 2; keep++) {
				rk_skin_job job = tmesh_job(&m, f ? RK_SKIN_MATRIX_3X4 : RK_SKIN_MATRIX_4X4);
				job.normal_mode = (rk_skin_normal_mode)mode;
				job.keep_normal_length = keep != 0;
				ref_skin(&job, rp, rn);
				const double ext = extent_of(rp, n);
				/* Normal scale: 1 when normalised, else the largest reference length. */
				double nscale = 1.0;
				if (keep)
					for (size_t v = 0; v < n; v++) {
						double l = sqrt(rn[v * 3] * rn[v * 3] + rn[v * 3 + 1] * rn[v * 3 + 1] + rn[v * 3 + 2] * rn[v * 3 + 2]);
						if (l > nscale) nscale = l;
					}
				job.path = RK_SKIN_PATH_SCALAR;
				RK_REQUIRE(rk_skin_run(&job));
				memcpy(sp, m.out_pos, n * 12);
				memcpy(sn, m.out_nrm, n * 12);
				for (size_t pi = 0; pi < PATH_COUNT; pi++) {
					if (!rk_skin_path_supported(all_paths[pi])) continue;
					job.path = all_paths[pi];
					memset(m.out_pos, 0xFF, n * 12);
					memset(m.out_nrm, 0xFF, n * 12);
					RK_REQUIRE(rk_skin_run(&job));
					double dp = max_diff_fd(m.out_pos, 0, rp, n), dn = max_diff_fd(m.out_nrm, 0, rn, n);
					if (dp > 1e-5 * ext || dn > 1e-5 * nscale)
						fprintf(stderr, "%s fmt %d mode %d keep %d: pos %.3g (ext %.3g) nrm %.3g\n",
							rk_skin_path_name(job.path), f, mode, keep, dp, ext, dn);
					RK_CHECK(dp <= 1e-5 * ext);
					RK_CHECK(dn <= 1e-5 * nscale);
					/* In place on packed arrays: the same bits. */
					{
						float *ip = malloc(n * 12), *in_ = malloc(n * 12);
						RK_REQUIRE(ip && in_);
						memcpy(ip, m.pos, n * 12);
						memcpy(in_, m.nrm, n * 12);
						rk_skin_job inplace = job;
						inplace.positions = inplace.out_positions = ip;
						inplace.normals = inplace.out_normals = in_;
						RK_REQUIRE(rk_skin_run(&inplace));
						RK_CHECK(memcmp(ip, m.out_pos, n * 12) == 0);
						RK_CHECK(memcmp(in_, m.out_nrm, n * 12) == 0);
						free(ip);
						free(in_);
					}
					/* Positions only / normals only (packed): the same bits. */
					{
						float *full_p = malloc(n * 12), *full_n = malloc(n * 12);
						RK_REQUIRE(full_p && full_n);
						memcpy(full_p, m.out_pos, n * 12);
						memcpy(full_n, m.out_nrm, n * 12);
						rk_skin_job po = job, no = job;
						po.normals = NULL;
						po.out_normals = NULL;
						no.positions = NULL;
						no.out_positions = NULL;
						memset(m.out_pos, 0, n * 12);
						memset(m.out_nrm, 0, n * 12);
						RK_REQUIRE(rk_skin_run(&po));
						RK_REQUIRE(rk_skin_run(&no));
						RK_CHECK(memcmp(m.out_pos, full_p, n * 12) == 0);
						RK_CHECK(memcmp(m.out_nrm, full_n, n * 12) == 0);
						free(full_p);
						free(full_n);
					}
					double sdp = max_diff_ff(m.out_pos, sp, n * 3), sdn = max_diff_ff(m.out_nrm, sn, n * 3);
					fprintf(stderr, "%-6s %s %s%s: vs double pos %.3g (%.2g of extent %.3g) nrm %.3g; vs scalar pos %.3g nrm %.3g\n",
						rk_skin_path_name(job.path), f ? "3x4" : "4x4", mode ? "inverse-transpose" : "linear",
						keep ? " unnormalised" : "", dp, dp / ext, ext, dn, sdp, sdn);
					if (all_paths[pi] == RK_SKIN_PATH_AVX2 || all_paths[pi] == RK_SKIN_PATH_AVX512) {
						RK_CHECK(sdp <= 1e-6 * ext);
						RK_CHECK(sdn <= 1e-6 * nscale);
					} else {
						/* SCALAR and SSE2 share the operation order. */
						RK_CHECK(memcmp(m.out_pos, sp, n * 12) == 0);
						RK_CHECK(memcmp(m.out_nrm, sn, n * 12) == 0);
					}
				}
			}
	free(rp); free(rn); free(sp); free(sn);
	tmesh_free(&m);
}

/* Ranges and threads give exactly rk_skin_run's bits, for every path. */
RK_TEST(ranges_and_threads_are_exact)
{
	tmesh m;
	const size_t n = 70001;
	RK_REQUIRE(tmesh_make(&m, n, 64, 0.7, 0.2));
	float *ref_p = malloc(n * 12), *ref_n = malloc(n * 12);
	RK_REQUIRE(ref_p && ref_n);
	for (size_t pi = 0; pi < PATH_COUNT; pi++) {
		if (!rk_skin_path_supported(all_paths[pi])) continue;
		rk_skin_job job = tmesh_job(&m, RK_SKIN_MATRIX_4X4);
		job.path = all_paths[pi];
		RK_REQUIRE(rk_skin_run(&job));
		memcpy(ref_p, m.out_pos, n * 12);
		memcpy(ref_n, m.out_nrm, n * 12);
		const size_t threads[] = { 0, 1, 2, 3, 7, 64, 1000 };
		for (size_t t = 0; t < sizeof(threads) / sizeof(threads[0]); t++) {
			memset(m.out_pos, 0, n * 12);
			memset(m.out_nrm, 0, n * 12);
			RK_CHECK(rk_skin_run_threads(&job, threads[t]));
			RK_CHECK(memcmp(m.out_pos, ref_p, n * 12) == 0);
			RK_CHECK(memcmp(m.out_nrm, ref_n, n * 12) == 0);
		}
		/* Uneven manual ranges, run out of order. */
		memset(m.out_pos, 0, n * 12);
		memset(m.out_nrm, 0, n * 12);
		const size_t cuts[] = { 0, 1, 2, 3, 1000, 33333, 69999, n };
		for (size_t c = sizeof(cuts) / sizeof(cuts[0]) - 1; c > 0; c--)
			RK_CHECK(rk_skin_run_range(&job, cuts[c - 1], cuts[c]));
		RK_CHECK(rk_skin_run_range(&job, 5, 5));
		RK_CHECK(memcmp(m.out_pos, ref_p, n * 12) == 0);
		RK_CHECK(memcmp(m.out_nrm, ref_n, n * 12) == 0);
		/* A range touches only its vertices. */
		memset(m.out_pos, 0, n * 12);
		RK_CHECK(rk_skin_run_range(&job, 100, 200));
		bool outside_zero = true;
		for (size_t i = 0; i < n * 3; i++)
			if ((i < 300 || i >= 600) && m.out_pos[i] != 0.0f) outside_zero = false;
		RK_CHECK(outside_zero);
		RK_CHECK(memcmp(m.out_pos + 300, ref_p + 300, 100 * 12) == 0);
	}
	free(ref_p); free(ref_n);
	tmesh_free(&m);
}

RK_TEST(split_covers_everything)
{
	const size_t counts[] = { 0, 1, 63, 64, 65, 1000, 4096, 100003 };
	for (size_t ci = 0; ci < sizeof(counts) / sizeof(counts[0]); ci++)
		for (size_t parts = 1; parts <= 9; parts++) {
			size_t next = 0;
			for (size_t i = 0; i < parts; i++) {
				size_t b, e;
				rk_skin_split(counts[ci], parts, i, &b, &e);
				RK_CHECK_INT(b, next);
				RK_CHECK(e >= b);
				RK_CHECK(b % RK_SKIN_SPLIT_ALIGN == 0 || b == counts[ci]);
				RK_CHECK(e % RK_SKIN_SPLIT_ALIGN == 0 || e == counts[ci]);
				next = e;
			}
			RK_CHECK_INT(next, counts[ci]);
		}
	size_t b = 7, e = 7;
	rk_skin_split(100, 0, 0, &b, &e);
	RK_CHECK(b == 0 && e == 0);
	rk_skin_split(100, 2, 2, &b, &e);
	RK_CHECK(b == 0 && e == 0);
	/* Near-equal: 1M vertices in 2 parts differ by at most one block. */
	size_t b0, e0, b1, e1;
	rk_skin_split(1000000, 2, 0, &b0, &e0);
	rk_skin_split(1000000, 2, 1, &b1, &e1);
	RK_CHECK((e0 - b0) - (e1 - b1) <= RK_SKIN_SPLIT_ALIGN);
}

/* The mesh module's interleaved vertex (rk_gpu_vertex: position 0, normal
 * 12, uv 24, joints 32, weights 40, stride 56), declared here so the test
 * does not depend on mesh.h; checked against it when it is available. */
typedef struct gpu_vertex {
	float position[3];
	float normal[3];
	float uv[2];
	uint16_t joints[4];
	float weights[4];
} gpu_vertex;
_Static_assert(sizeof(gpu_vertex) == 56, "gpu_vertex layout");
#ifdef TEST_HAVE_MESH
_Static_assert(sizeof(rk_gpu_vertex) == sizeof(gpu_vertex), "mesh.h vertex size changed");
_Static_assert(offsetof(rk_gpu_vertex, normal) == offsetof(gpu_vertex, normal), "mesh.h normal offset");
_Static_assert(offsetof(rk_gpu_vertex, joints) == offsetof(gpu_vertex, joints), "mesh.h joints offset");
_Static_assert(offsetof(rk_gpu_vertex, weights) == offsetof(gpu_vertex, weights), "mesh.h weights offset");
#endif

RK_TEST(interleaved_strides_and_in_place)
{
	tmesh m;
	const size_t n = 3001;
	RK_REQUIRE(tmesh_make(&m, n, 40, 0.7, 0.2));
	gpu_vertex *in = malloc(n * sizeof(gpu_vertex)), *out = malloc(n * sizeof(gpu_vertex));
	float *ref_p = malloc(n * 12), *ref_n = malloc(n * 12);
	RK_REQUIRE(in && out && ref_p && ref_n);
	for (size_t v = 0; v < n; v++) {
		memcpy(in[v].position, m.pos + v * 3, 12);
		memcpy(in[v].normal, m.nrm + v * 3, 12);
		in[v].uv[0] = (float)v;
		in[v].uv[1] = -(float)v;
		memcpy(in[v].joints, m.jnt + v * 4, 8);
		memcpy(in[v].weights, m.wgt + v * 4, 16);
	}
	for (int f = 0; f < 2; f++)
		for (size_t pi = 0; pi < PATH_COUNT; pi++) {
			if (!rk_skin_path_supported(all_paths[pi])) continue;
			rk_skin_job job = tmesh_job(&m, f ? RK_SKIN_MATRIX_3X4 : RK_SKIN_MATRIX_4X4);
			job.path = all_paths[pi];
			RK_REQUIRE(rk_skin_run(&job));
			memcpy(ref_p, m.out_pos, n * 12);
			memcpy(ref_n, m.out_nrm, n * 12);

			/* Interleaved in, interleaved out (bytes between outputs untouched). */
			memcpy(out, in, n * sizeof(gpu_vertex));
			rk_skin_job ij = job;
			ij.positions = in[0].position;
			ij.normals = in[0].normal;
			ij.joints = in[0].joints;
			ij.weights = in[0].weights;
			ij.position_stride = ij.normal_stride = ij.joint_stride = ij.weight_stride = sizeof(gpu_vertex);
			ij.out_positions = out[0].position;
			ij.out_normals = out[0].normal;
			ij.out_position_stride = ij.out_normal_stride = sizeof(gpu_vertex);
			RK_REQUIRE(rk_skin_run(&ij));
			bool same = true;
			for (size_t v = 0; v < n; v++) {
				if (memcmp(out[v].position, ref_p + v * 3, 12) || memcmp(out[v].normal, ref_n + v * 3, 12)) same = false;
				if (memcmp(out[v].uv, in[v].uv, 8) || memcmp(out[v].joints, in[v].joints, 8) ||
					memcmp(out[v].weights, in[v].weights, 16)) same = false;
			}
			RK_CHECK(same);

			/* Interleaved in, packed out; packed in, interleaved out. */
			rk_skin_job mixed = ij;
			mixed.out_positions = m.out_pos;
			mixed.out_normals = m.out_nrm;
			mixed.out_position_stride = mixed.out_normal_stride = 0;
			memset(m.out_pos, 0, n * 12);
			RK_REQUIRE(rk_skin_run(&mixed));
			RK_CHECK(memcmp(m.out_pos, ref_p, n * 12) == 0);
			RK_CHECK(memcmp(m.out_nrm, ref_n, n * 12) == 0);

			/* In place: the interleaved copy skinned onto itself. */
			memcpy(out, in, n * sizeof(gpu_vertex));
			rk_skin_job ip = ij;
			ip.positions = out[0].position;
			ip.normals = out[0].normal;
			ip.joints = out[0].joints;
			ip.weights = out[0].weights;
			RK_REQUIRE(rk_skin_run_threads(&ip, 2));
			same = true;
			for (size_t v = 0; v < n; v++)
				if (memcmp(out[v].position, ref_p + v * 3, 12) || memcmp(out[v].normal, ref_n + v * 3, 12)) same = false;
			RK_CHECK(same);

			/* Positions only, normals only. */
			rk_skin_job po = job;
			po.normals = NULL;
			po.out_normals = NULL;
			memset(m.out_pos, 0, n * 12);
			RK_REQUIRE(rk_skin_run(&po));
			RK_CHECK(memcmp(m.out_pos, ref_p, n * 12) == 0);
			rk_skin_job no = job;
			no.positions = NULL;
			no.out_positions = NULL;
			memset(m.out_nrm, 0, n * 12);
			RK_REQUIRE(rk_skin_run(&no));
			RK_CHECK(memcmp(m.out_nrm, ref_n, n * 12) == 0);
		}
	free(in); free(out); free(ref_p); free(ref_n);
	tmesh_free(&m);
}

/* Streams that end exactly at an inaccessible page: no path reads or
 * writes past a stream's last element. */
RK_TEST(no_access_past_the_streams)
{
#if defined(MAP_ANONYMOUS)
	const size_t page = (size_t)sysconf(_SC_PAGESIZE);
	const size_t n = 37;
	tmesh m;
	RK_REQUIRE(tmesh_make(&m, n, 8, 0.5, 0.1));
	/* One guarded region per stream: data placed flush against the guard page. */
	unsigned char *region[6];
	for (int i = 0; i < 6; i++) {
		region[i] = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		RK_REQUIRE(region[i] != MAP_FAILED);
		RK_REQUIRE(mprotect(region[i] + page, page, PROT_NONE) == 0);
	}
	float *pos = (float *)(void *)(region[0] + page - n * 12);
	float *nrm = (float *)(void *)(region[1] + page - n * 12);
	uint16_t *jnt = (uint16_t *)(void *)(region[2] + page - n * 8);
	float *wgt = (float *)(void *)(region[3] + page - n * 16);
	float *op = (float *)(void *)(region[4] + page - n * 12);
	float *on = (float *)(void *)(region[5] + page - n * 12);
	memcpy(pos, m.pos, n * 12);
	memcpy(nrm, m.nrm, n * 12);
	memcpy(jnt, m.jnt, n * 8);
	memcpy(wgt, m.wgt, n * 16);
	/* The palette, flush against a guard page too (3x4: 48-byte entries). */
	unsigned char *pr = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	RK_REQUIRE(pr != MAP_FAILED);
	RK_REQUIRE(mprotect(pr + page, page, PROT_NONE) == 0);
	for (int f = 0; f < 2; f++) {
		rk_skin_matrix_format fmt = f ? RK_SKIN_MATRIX_3X4 : RK_SKIN_MATRIX_4X4;
		size_t bytes = m.joint_count * rk_skin_matrix_floats(fmt) * sizeof(float);
		float *pal = (float *)(void *)(pr + page - bytes);
		memcpy(pal, f ? m.pal3 : m.pal4, bytes);
		for (size_t pi = 0; pi < PATH_COUNT; pi++) {
			if (!rk_skin_path_supported(all_paths[pi])) continue;
			for (int mode = 0; mode < 2; mode++) {
				rk_skin_job job = { .vertex_count = n, .positions = pos, .normals = nrm, .joints = jnt, .weights = wgt,
					.matrices = pal, .joint_count = m.joint_count, .matrix_format = fmt, .out_positions = op,
					.out_normals = on, .normal_mode = (rk_skin_normal_mode)mode, .path = all_paths[pi] };
				RK_CHECK(rk_skin_run(&job)); /* a stray access would crash here */
				RK_CHECK(rk_skin_run_threads(&job, 4));
			}
		}
	}
	for (int i = 0; i < 6; i++) munmap(region[i], 2 * page);
	munmap(pr, 2 * page);
	tmesh_free(&m);
#else
	RK_SKIP("no MAP_ANONYMOUS");
#endif
}

RK_TEST(joint_indices_clamped_and_checked)
{
	tmesh m;
	const size_t n = 100;
	RK_REQUIRE(tmesh_make(&m, n, 16, 0.5, 0.1));
	for (size_t pi = 0; pi < PATH_COUNT; pi++) {
		if (!rk_skin_path_supported(all_paths[pi])) continue;
		rk_skin_job job = tmesh_job(&m, RK_SKIN_MATRIX_4X4);
		job.path = all_paths[pi];
		rk_error err;
		RK_CHECK(rk_skin_check_joints(&job, &err));
		RK_CHECK_INT(err.code, RK_OK);
		/* Vertex 42 slot 2 points past the palette: clamped to the last joint. */
		m.jnt[42 * 4 + 2] = 16;
		m.jnt[43 * 4 + 0] = 65535;
		RK_CHECK(!rk_skin_check_joints(&job, &err));
		RK_CHECK_INT(err.code, RK_ERROR_CORRUPT);
		RK_CHECK(strstr(err.message, "vertex 42") != NULL);
		RK_CHECK(strstr(err.message, "slot 2") != NULL);
		RK_REQUIRE(rk_skin_run(&job));
		float bad_p[6], bad_n[6];
		memcpy(bad_p, m.out_pos + 42 * 3, 24);
		memcpy(bad_n, m.out_nrm + 42 * 3, 24);
		m.jnt[42 * 4 + 2] = 15;
		m.jnt[43 * 4 + 0] = 15;
		RK_REQUIRE(rk_skin_run(&job));
		RK_CHECK(memcmp(bad_p, m.out_pos + 42 * 3, 24) == 0);
		RK_CHECK(memcmp(bad_n, m.out_nrm + 42 * 3, 24) == 0);
		/* A one-joint palette: everything maps to joint 0. */
		job.joint_count = 1;
		RK_REQUIRE(rk_skin_run(&job));
		double *rp = malloc(n * 24);
		RK_REQUIRE(rp);
		ref_skin(&job, rp, NULL);
		RK_CHECK(max_diff_fd(m.out_pos, 0, rp, n) <= 1e-5 * extent_of(rp, n));
		free(rp);
	}
	tmesh_free(&m);
}

static void expect_invalid(rk_test_state *rk_t_, const rk_skin_job *job, const char *needle, float *sentinel)
{
	rk_error err;
	memset(&err, 0, sizeof(err));
	float before = sentinel ? sentinel[0] : 0.0f;
	RK_CHECK(!rk_skin_validate(job, &err));
	RK_CHECK_INT(err.code, RK_ERROR_INVALID_ARGUMENT);
	if (!strstr(err.message, needle)) {
		fprintf(stderr, "expected \"%s\" in \"%s\"\n", needle, err.message);
		RK_CHECK(strstr(err.message, needle) != NULL);
	}
	RK_CHECK(!rk_skin_run(job));
	RK_CHECK(!rk_skin_run_range(job, 0, 1));
	RK_CHECK(!rk_skin_run_threads(job, 2));
	RK_CHECK(!rk_skin_check_joints(job, NULL));
	if (sentinel) RK_CHECK(memcmp(&before, sentinel, sizeof(float)) == 0);
	RK_CHECK(!rk_skin_validate(job, NULL)); /* err may be NULL */
}

RK_TEST(bad_inputs_rejected)
{
	float pal[2 * 16] = { 0 };
	_Alignas(16) float pos[8 * 4] = { 0 }, nrm[8 * 4] = { 0 }, wgt[8 * 4] = { 0 };
	_Alignas(16) float op[8 * 4], on[8 * 4];
	_Alignas(16) uint16_t jnt[8 * 4] = { 0 };
	const float sentinel = 12345.0f;
	for (int i = 0; i < 32; i++) op[i] = on[i] = sentinel;
	const rk_skin_job good = { .vertex_count = 2, .positions = pos, .normals = nrm, .joints = jnt, .weights = wgt,
		.matrices = pal, .joint_count = 2, .out_positions = op, .out_normals = on };
	rk_error err;
	RK_CHECK(rk_skin_validate(&good, &err));
	RK_CHECK_INT(err.code, RK_OK);

	RK_CHECK(!rk_skin_validate(NULL, &err));
	RK_CHECK(strstr(err.message, "job is NULL") != NULL);
	RK_CHECK(!rk_skin_run(NULL));
	RK_CHECK(!rk_skin_run_range(NULL, 0, 0));
	RK_CHECK(!rk_skin_run_threads(NULL, 2));

	rk_skin_job j;
#define BAD(stmt, needle) do { j = good; stmt; expect_invalid(rk_t_, &j, needle, op); } while (0)
	BAD(j.joints = NULL, "joints is NULL");
	BAD(j.weights = NULL, "weights is NULL");
	BAD(j.matrices = NULL, "matrices is NULL");
	BAD(j.joint_count = 0, "joint_count is 0");
	BAD(j.out_positions = NULL, "out_positions is NULL");
	BAD(j.positions = NULL, "positions is NULL");
	BAD(j.out_normals = NULL, "out_normals is NULL");
	BAD(j.normals = NULL, "normals is NULL");
	BAD((j.positions = NULL, j.out_positions = NULL, j.normals = NULL, j.out_normals = NULL), "nothing to skin");
	BAD(j.position_stride = 8, "positions stride 8 is smaller");
	BAD(j.normal_stride = 14, "normals stride 14 is not a multiple of 4");
	BAD(j.joint_stride = 6, "joints stride 6 is smaller");
	BAD(j.joint_stride = 9, "joints stride 9 is not a multiple of 2");
	BAD(j.weight_stride = 12, "weights stride 12 is smaller");
	BAD(j.out_position_stride = 13, "out_positions stride 13");
	BAD(j.out_normal_stride = 4, "out_normals stride 4");
	BAD(j.positions = (const float *)(const void *)((const char *)pos + 2), "positions pointer is not 4-byte aligned");
	BAD(j.joints = (const uint16_t *)(const void *)((const char *)jnt + 1), "joints pointer is not 2-byte aligned");
	BAD(j.matrices = (const float *)(const void *)((const char *)pal + 1), "matrices pointer is not 4-byte aligned");
	BAD(j.out_normals = (float *)(void *)((char *)on + 3), "out_normals pointer is not 4-byte aligned");
	BAD(j.matrix_format = (rk_skin_matrix_format)2, "matrix_format 2");
	BAD(j.normal_mode = (rk_skin_normal_mode)5, "normal_mode 5");
	BAD(j.path = (rk_skin_path)17, "path 17");
	BAD(j.path = RK_SKIN_PATH_COUNT_, "path 5");
	BAD((j.vertex_count = SIZE_MAX / 4, j.weight_stride = 16), "overflow");
	BAD((j.position_stride = SIZE_MAX - 3), "overflow");
	BAD(j.joint_count = SIZE_MAX / 32, "matrices");
#undef BAD

	/* Zero vertices: valid with any pointers, runs do nothing. */
	rk_skin_job empty = { 0 };
	RK_CHECK(rk_skin_validate(&empty, NULL));
	RK_CHECK(rk_skin_run(&empty));
	RK_CHECK(rk_skin_run_threads(&empty, 8));
	RK_CHECK(rk_skin_check_joints(&empty, NULL));
	/* Bad ranges. */
	RK_CHECK(!rk_skin_run_range(&good, 1, 0));
	RK_CHECK(!rk_skin_run_range(&good, 0, 3));
	RK_CHECK(rk_skin_run_range(&good, 2, 2));
	for (int i = 0; i < 32; i++) RK_CHECK(op[i] == sentinel && on[i] == sentinel);
}

/* ---------------------------------------------------------------------------
 * Shared Mixamo characters against anim.h's reference deformation
 * ------------------------------------------------------------------------- */

typedef struct test_pose {
	rk_pose pose;
	void *mem;
} test_pose;

/* Top-4 usable influences of every mesh vertex, renormalised in double
 * (mesh.h's rule, plus: joints without a node are unusable, as in anim.h).
 * Returns the number of vertices with at most 4 usable influences;
 * exact[v] tells which. */
static size_t build_influences(const rk_scene *s, const rk_skin_deformer *skin, size_t vertex_count, uint16_t *jnt,
	float *wgt, bool *exact)
{
	size_t exact_count = 0;
	for (size_t v = 0; v < vertex_count; v++) {
		uint32_t best_j[4] = { 0, 0, 0, 0 };
		double best_w[4] = { 0, 0, 0, 0 };
		size_t usable = 0;
		if (v < skin->vertex_count) {
			for (uint32_t k = skin->weight_begin[v]; k < skin->weight_begin[v + 1]; k++) {
				const rk_skin_weight *sw = &skin->weights[k];
				double w = sw->weight;
				if (sw->joint >= skin->joint_count || !(w > 0.0) || !isfinite(w)) continue;
				const rk_node *jn = skin->joints[sw->joint].node;
				if (!jn || jn->index >= s->nodes.count || &s->nodes.data[jn->index] != jn) continue;
				usable++;
				/* insertion into the descending top 4 (ties: smaller joint first) */
				for (int slot = 0; slot < 4; slot++)
					if (w > best_w[slot] || (w == best_w[slot] && best_w[slot] > 0.0 && sw->joint < best_j[slot])) {
						for (int m = 3; m > slot; m--) {
							best_w[m] = best_w[m - 1];
							best_j[m] = best_j[m - 1];
						}
						best_w[slot] = w;
						best_j[slot] = sw->joint;
						break;
					}
			}
		}
		double sum = best_w[0] + best_w[1] + best_w[2] + best_w[3];
		for (int k = 0; k < 4; k++) {
			jnt[v * 4 + k] = (uint16_t)best_j[k];
			wgt[v * 4 + k] = sum > 0.0 ? (float)(best_w[k] / sum) : 0.0f;
		}
		exact[v] = usable >= 1 && usable <= 4;
		exact_count += exact[v];
	}
	return exact_count;
}

/* Skins every LINEAR-skinned, shape-free mesh node of `file` at a pose and
 * compares with rk_mesh_world_positions_eval / _normals. */
static void check_character(rk_test_state *rk_t_, const char *dir, const char *file, size_t *meshes_checked)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/assets/%s", dir, file);
	rk_error err;
	rk_scene *s = rk_load_file(path, NULL, &err);
	if (!s) {
		char msg[1024];
		rk_error_format(msg, sizeof(msg), &err);
		fprintf(stderr, "%s\n", msg);
	}
	RK_REQUIRE(s != NULL);
	test_pose tp;
	size_t bytes = rk_pose_memory_size(s);
	tp.mem = malloc(bytes);
	RK_REQUIRE(tp.mem && rk_pose_init(&tp.pose, s, tp.mem, bytes));
	const rk_anim_clip *clip = s->clips.count ? &s->clips.data[0] : NULL;
	double t = clip ? 0.5 * (clip->time_begin + clip->time_end) : 0.0;
	rk_pose_eval_job pj = { .scene = s, .clip = clip, .time = t, .pose = &tp.pose };
	RK_REQUIRE(rk_pose_eval_run(&pj));
	/* Bend every joint a little more (about its own origin), so the static
	 * FBX bind pose also gives a real deformation. Both the skin matrices
	 * and the reference read these pose matrices. */
	rng_state = 0x1234567ull;
	for (size_t i = 0; i < s->nodes.count; i++) {
		if (s->nodes.data[i].kind != RK_NODE_JOINT) continue;
		rk_vec3 axis = rk_vec3_normalize((rk_vec3){ rnd_range(-1, 1), rnd_range(-1, 1), rnd_range(-1, 1) + 1e-3 });
		tp.pose.node_to_world[i] = rk_mat4_mul(tp.pose.node_to_world[i],
			rk_mat4_rotation(rk_quat_axis_angle(axis, rnd_range(-0.4, 0.4))));
	}

	for (size_t ni = 0; ni < s->nodes.count; ni++) {
		const rk_node *node = &s->nodes.data[ni];
		const rk_mesh *mesh = node->mesh;
		const rk_skin_deformer *skin = node->skin;
		if (!mesh || !skin || skin->method != RK_SKINNING_LINEAR || mesh->blend_channels.count > 0) continue;
		if ((!mesh->positions_f64 && !mesh->positions_f32) || mesh->vertex_count == 0 || skin->joint_count == 0) continue;
		const size_t nv = mesh->vertex_count, nj = skin->joint_count, nc = mesh->index_count;
		rk_mat4 *mats = malloc(nj * sizeof(rk_mat4));
		float *pal = malloc(nj * 64);
		float *pos = malloc(nv * 12), *out_pos = malloc(nv * 12);
		uint16_t *jnt = malloc(nv * 8);
		float *wgt = malloc(nv * 16);
		bool *exact = malloc(nv);
		rk_vec3 *ref_pos = malloc(nv * sizeof(rk_vec3));
		double *loop_pos = malloc(nv * 24);
		RK_REQUIRE(mats && pal && pos && out_pos && jnt && wgt && exact && ref_pos && loop_pos);
		RK_REQUIRE(rk_skin_matrices_eval(s, skin, &tp.pose, node, mats));
		RK_REQUIRE(rk_mesh_world_positions_eval(s, node, &tp.pose, ref_pos));
		for (size_t v = 0; v < nv; v++) {
			pos[v * 3 + 0] = (float)rk_mesh_position(mesh, v).x;
			pos[v * 3 + 1] = (float)rk_mesh_position(mesh, v).y;
			pos[v * 3 + 2] = (float)rk_mesh_position(mesh, v).z;
		}
		size_t exact_count = build_influences(s, skin, nv, jnt, wgt, exact);
		RK_CHECK(exact_count > nv / 2);

		/* Corner streams for normals (anim.h gives one normal per corner). */
		const bool have_normals = mesh->normals.exists && nc > 0;
		float *cpos = NULL, *cnrm = NULL, *cout_n = NULL, *cwgt = NULL;
		uint16_t *cjnt = NULL;
		rk_vec3 *ref_nrm = NULL;
		double *cref_n = NULL;
		if (have_normals) {
			cref_n = malloc(nc * 24);
			cpos = malloc(nc * 12);
			cnrm = malloc(nc * 12);
			cout_n = malloc(nc * 12);
			cwgt = malloc(nc * 16);
			cjnt = malloc(nc * 8);
			ref_nrm = malloc(nc * sizeof(rk_vec3));
			RK_REQUIRE(cpos && cnrm && cout_n && cwgt && cjnt && ref_nrm && cref_n);
			RK_REQUIRE(rk_mesh_world_normals_eval(s, node, &tp.pose, ref_nrm));
			for (size_t c = 0; c < nc; c++) {
				uint32_t v = mesh->vertex_indices[c];
				uint32_t ni2 = mesh->normals.indices[c];
				rk_vec3 nn = ni2 < mesh->normals.value_count ? rk_attrib_vec3_value(&mesh->normals, ni2) : (rk_vec3){ 0, 0, 0 };
				memcpy(cpos + c * 3, pos + (size_t)v * 3, 12);
				cnrm[c * 3 + 0] = (float)nn.x;
				cnrm[c * 3 + 1] = (float)nn.y;
				cnrm[c * 3 + 2] = (float)nn.z;
				memcpy(cjnt + c * 4, jnt + (size_t)v * 4, 8);
				memcpy(cwgt + c * 4, wgt + (size_t)v * 4, 16);
			}
		}

		for (int f = 0; f < 2; f++) {
			rk_skin_matrix_format fmt = f ? RK_SKIN_MATRIX_3X4 : RK_SKIN_MATRIX_4X4;
			rk_skin_palette_from_mat4(pal, mats, nj, fmt);
			rk_skin_job job = { .vertex_count = nv, .positions = pos, .joints = jnt, .weights = wgt, .matrices = pal,
				.joint_count = nj, .matrix_format = fmt, .out_positions = out_pos };
			RK_REQUIRE(rk_skin_check_joints(&job, NULL));
			ref_skin(&job, loop_pos, NULL);
			const double ext = extent_of(loop_pos, nv);
			for (size_t pi = 0; pi < PATH_COUNT; pi++) {
				if (!rk_skin_path_supported(all_paths[pi])) continue;
				job.path = all_paths[pi];
				RK_REQUIRE(rk_skin_run_threads(&job, 2));
				/* vs the double loop: every vertex */
				double d_loop = max_diff_fd(out_pos, 0, loop_pos, nv);
				/* vs anim.h (all influences): vertices with <= 4 */
				double d_anim = 0.0;
				for (size_t v = 0; v < nv; v++) {
					if (!exact[v]) continue;
					const double r[3] = { ref_pos[v].x, ref_pos[v].y, ref_pos[v].z };
					for (int c = 0; c < 3; c++) {
						double e = fabs((double)out_pos[v * 3 + c] - r[c]);
						if (!(e <= d_anim)) d_anim = e;
					}
				}
				fprintf(stderr, "%s %s %s %s: %zu/%zu vertices <= 4 influences, extent %.4g, max |d| loop %.3g anim %.3g"
					" (%.2g, %.2g of extent)\n", file, node->name, rk_skin_path_name(job.path), f ? "3x4" : "4x4",
					exact_count, nv, ext, d_loop, d_anim, d_loop / ext, d_anim / ext);
				RK_CHECK(d_loop <= 1e-5 * ext);
				RK_CHECK(d_anim <= 1e-5 * ext);

				if (!have_normals) continue;
				for (int mode = 0; mode < 2; mode++) {
					rk_skin_job nj_ = { .vertex_count = nc, .positions = NULL, .normals = cnrm, .joints = cjnt,
						.weights = cwgt, .matrices = pal, .joint_count = nj, .matrix_format = fmt,
						.out_normals = cout_n, .normal_mode = (rk_skin_normal_mode)mode, .path = job.path };
					RK_REQUIRE(rk_skin_run(&nj_));
					ref_skin(&nj_, NULL, cref_n);
					const double d_loop_n = max_diff_fd(cout_n, 0, cref_n, nc);
					double d_n = 0.0;
					size_t compared = 0;
					for (size_t c = 0; c < nc; c++) {
						if (!exact[mesh->vertex_indices[c]]) continue;
						compared++;
						const double r[3] = { ref_nrm[c].x, ref_nrm[c].y, ref_nrm[c].z };
						for (int k = 0; k < 3; k++) {
							double e = fabs((double)cout_n[c * 3 + k] - r[k]);
							if (!(e <= d_n)) d_n = e;
						}
					}
					fprintf(stderr, "%s %s %s %s normals %s: %zu corners, max |d| loop %.3g anim %.3g\n", file,
						node->name, rk_skin_path_name(job.path), f ? "3x4" : "4x4",
						mode ? "inverse-transpose" : "linear", compared, d_loop_n, d_n);
					RK_CHECK(d_loop_n <= 1e-5);
					/* anim.h uses the exact inverse-transpose of the blended
					 * matrix: the INVERSE_TRANSPOSE mode must match it. The
					 * LINEAR mode's difference is the usual LBS approximation
					 * (a blend of rotations is not a rotation), reported only. */
					if (mode == RK_SKIN_NORMALS_INVERSE_TRANSPOSE) RK_CHECK(d_n <= 1e-5);
				}
			}
		}
		(*meshes_checked)++;
		free(mats); free(pal); free(pos); free(out_pos); free(jnt); free(wgt); free(exact); free(ref_pos); free(loop_pos);
		free(cpos); free(cnrm); free(cout_n); free(cwgt); free(cjnt); free(ref_nrm); free(cref_n);
	}
	free(tp.mem);
	rk_scene_free(s);
}

RK_TEST(mixamo_characters_match_anim_reference)
{
	const char *dir = rk_test_shared_dir();
	if (!dir) RK_SKIP("shared assets not found");
	const char *files[] = { "ybot.fbx", "Xbot.glb", "Soldier.glb" };
	size_t meshes = 0;
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) check_character(rk_t_, dir, files[i], &meshes);
	RK_CHECK(meshes >= 3);
}

#ifdef TEST_HAVE_MESH
/* The mesh module's interleaved output skinned in place of its streams
 * (stride 56), against the double loop on the same bytes. */
RK_TEST(mesh_module_vertices)
{
	const char *dir = rk_test_shared_dir();
	if (!dir) RK_SKIP("shared assets not found");
	char path[4096];
	snprintf(path, sizeof(path), "%s/assets/Xbot.glb", dir);
	rk_error err;
	rk_scene *s = rk_load_file(path, NULL, &err);
	RK_REQUIRE(s != NULL);
	rk_mesh_expansion *x = rk_mesh_expansion_build(s, NULL, &err);
	RK_REQUIRE(x != NULL);
	RK_REQUIRE(x->format.stride == sizeof(gpu_vertex) && x->format.joints_offset == 32 && x->format.weights_offset == 40);
	size_t checked = 0;
	for (size_t d = 0; d < x->draw_count; d++) {
		const rk_mesh_draw *dr = &x->draws[d];
		if (!dr->skin || dr->vertex_count == 0) continue;
		const size_t nj = dr->skin->joint_count, nv = dr->vertex_count;
		rk_mat4 *mats = malloc(nj * sizeof(rk_mat4));
		float *pal = malloc(nj * 64);
		float *op = malloc(nv * 12), *on = malloc(nv * 12);
		double *rp = malloc(nv * 24), *rn = malloc(nv * 24);
		RK_REQUIRE(mats && pal && op && on && rp && rn);
		RK_REQUIRE(rk_skin_matrices_eval(s, dr->skin, NULL, dr->node, mats));
		rk_skin_palette_from_mat4(pal, mats, nj, RK_SKIN_MATRIX_4X4);
		const gpu_vertex *vb = (const gpu_vertex *)x->vertices + dr->first_vertex;
		rk_skin_job job = { .vertex_count = nv, .positions = vb[0].position, .position_stride = 56,
			.normals = vb[0].normal, .normal_stride = 56, .joints = vb[0].joints, .joint_stride = 56,
			.weights = vb[0].weights, .weight_stride = 56, .matrices = pal, .joint_count = nj,
			.out_positions = op, .out_normals = on };
		RK_CHECK(rk_skin_check_joints(&job, NULL));
		RK_REQUIRE(rk_skin_run(&job));
		ref_skin(&job, rp, rn);
		const double ext = extent_of(rp, nv);
		RK_CHECK(max_diff_fd(op, 0, rp, nv) <= 1e-5 * ext);
		RK_CHECK(max_diff_fd(on, 0, rn, nv) <= 1e-5);
		checked++;
		free(mats); free(pal); free(op); free(on); free(rp); free(rn);
	}
	RK_CHECK(checked > 0);
	rk_mesh_expansion_free(x);
	rk_scene_free(s);
}
#define MESH_TEST RK_TEST_ENTRY(mesh_module_vertices),
#else
#define MESH_TEST
#endif

RK_TEST_MAIN(
	RK_TEST_ENTRY(hand_single_joint_translation),
	RK_TEST_ENTRY(hand_single_joint_rotation),
	RK_TEST_ENTRY(hand_two_joints_half_half),
	RK_TEST_ENTRY(hand_scaled_and_mirrored_normals),
	RK_TEST_ENTRY(hand_zero_weights_and_zero_normals),
	RK_TEST_ENTRY(palette_layouts),
	RK_TEST_ENTRY(paths_supported),
	RK_TEST_ENTRY(paths_agree_with_double_reference),
	RK_TEST_ENTRY(ranges_and_threads_are_exact),
	RK_TEST_ENTRY(split_covers_everything),
	RK_TEST_ENTRY(interleaved_strides_and_in_place),
	RK_TEST_ENTRY(no_access_past_the_streams),
	RK_TEST_ENTRY(joint_indices_clamped_and_checked),
	RK_TEST_ENTRY(bad_inputs_rejected),
	MESH_TEST
	RK_TEST_ENTRY(mixamo_characters_match_anim_reference))
