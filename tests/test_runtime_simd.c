/*
 * tests/test_runtime_simd.c - the runtime's blocked (SIMD) sampling and
 * local-to-model paths against the scalar reference path
 * (src/runtime/runtime_internal.h, rki_rt_path).
 *
 * TOLERANCE. Both paths perform the same binary32 operations in the same
 * order: the lane code spells out the scalar expressions (the slerp
 * polynomials share their coefficients, selects replace branches), SSE2 and
 * wasm simd128 have no fused multiply-add and their division and square root
 * are correctly rounded, like the scalar code compiled for x86-64 / wasm.
 * The derived tolerance is therefore ZERO: results must be bit-identical,
 * which is what this test asserts (memcmp) where the compiler cannot fuse
 * a*b+c in the scalar code (no __FMA__ / AArch64 FMA). Where it may (a
 * -march with FMA under clang's default -ffp-contract=on), each fused
 * operation may differ by one rounding: a lerp by <= 1 ulp of its largest
 * operand, a rotation component by <= 2e-6 (about 32 ulp at 1: the slerp
 * weights pass through 15 chained polynomial steps and the normalisation),
 * a model matrix entry by <= 1e-5 of the matrix's largest entry (a chain of
 * up to 10 joints): the NEAR checks below.
 */
#include "rk_runtime_test.h"

#include <rigkit/rigkit.h>
#include <rigkit/runtime.h>

#include "runtime/runtime_internal.h"

#include <stdint.h>

#if defined(__FMA__) || defined(__ARM_FEATURE_FMA) || defined(__aarch64__)
#define EXACT 0
#else
#define EXACT 1
#endif

static uint32_t rng = 0x9e3779b9u;
static float frand(void)
{
	rng = rng * 1664525u + 1013904223u;
	return (float)(rng >> 8) / 16777216.0f;
}

static rk_float4 qrand(float spread)
{
	rk_float4 q = { spread * (frand() - 0.5f), spread * (frand() - 0.5f), spread * (frand() - 0.5f), 1.0f };
	float n = 1.0f / sqrtf(q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w);
	return (rk_float4){ q.x * n, q.y * n, q.z * n, q.w * n };
}

/* A hand-made clip that takes every lane case: LINEAR (small arcs: nlerp;
 * large arcs: slerp; opposite hemispheres), STEP, CUBIC, one-key tracks,
 * repeated key times (dt = 0), keys that start late and end early,
 * non-unit and zero quaternions. */
#define HJ 23
#define HK 12
typedef struct hand_clip {
	rk_runtime_clip c;
	rk_runtime_track tt[HJ], rt[HJ], st[HJ];
	float times[3 * HJ * HK];
	rk_float3 tv[3 * HJ * HK], sv[3 * HJ * HK];
	rk_float4 rv[3 * HJ * HK];
} hand_clip;

static void hand_clip_init(hand_clip *h)
{
	memset(h, 0, sizeof(*h));
	uint32_t at = 0, vt = 0, vr = 0, vs = 0;
	for (int j = 0; j < HJ; j++) {
		rk_runtime_track *tr[3] = { &h->tt[j], &h->rt[j], &h->st[j] };
		for (int a = 0; a < 3; a++) {
			int kind = (j + a) % 6; /* 0-2 LINEAR, 3 STEP, 4 CUBIC, 5 one key */
			uint32_t keys = kind == 5 ? 1u : (uint32_t)(2 + (j * 7 + a) % (HK - 1));
			uint32_t interp = kind == 3 ? RK_KEY_STEP : kind == 4 ? RK_KEY_CUBIC : RK_KEY_LINEAR;
			if (kind == 5) interp = (uint32_t)((j / 6) % 3); /* one-key tracks of every interpolation */
			tr[a]->key_begin = at;
			tr[a]->key_count = keys;
			tr[a]->interp = interp;
			float t0 = (j % 4 == 1) ? 0.3f : 0.0f, t1 = (j % 5 == 2) ? 0.7f : 1.0f;
			for (uint32_t k = 0; k < keys; k++) {
				float t = keys == 1 ? t0 : t0 + (t1 - t0) * (float)k / (float)(keys - 1);
				if (j % 7 == 3 && k == 2 && keys > 3) t = h->times[at - 1]; /* repeated time */
				h->times[at++] = t;
			}
			uint32_t nv = keys * (interp == RK_KEY_CUBIC ? 3u : 1u);
			if (a == 0) {
				tr[a]->value_begin = vt;
				for (uint32_t v = 0; v < nv; v++) h->tv[vt++] = (rk_float3){ frand() - 0.5f, -0.0f, 3.0f * frand() };
			} else if (a == 2) {
				tr[a]->value_begin = vs;
				for (uint32_t v = 0; v < nv; v++) h->sv[vs++] = (rk_float3){ 1.0f + frand(), 0.5f, 2.0f - frand() };
			} else {
				tr[a]->value_begin = vr;
				rk_float4 q = qrand(0.5f);
				for (uint32_t v = 0; v < nv; v++) {
					float spread = (j % 3 == 0) ? 0.05f : (j % 3 == 1) ? 0.6f : 3.0f;
					rk_float4 d = qrand(spread);
					q = (rk_float4){ d.w * q.x + d.x * q.w + d.y * q.z - d.z * q.y, d.w * q.y - d.x * q.z + d.y * q.w + d.z * q.x,
						d.w * q.z + d.x * q.y - d.y * q.x + d.z * q.w, d.w * q.w - d.x * q.x - d.y * q.y - d.z * q.z };
					rk_float4 s = q;
					if (v % 4 == 1) s = (rk_float4){ -q.x, -q.y, -q.z, -q.w };          /* other hemisphere */
					if (j == 8 && v % 3 == 0) s = (rk_float4){ 1.7f * q.x, 1.7f * q.y, 1.7f * q.z, 1.7f * q.w }; /* not unit */
					if (j == 14 && v == 1) s = (rk_float4){ 0, 0, 0, 0 };               /* zero */
					h->rv[vr++] = s;
				}
			}
		}
	}
	rk_runtime_clip *c = &h->c;
	c->name = "hand";
	c->duration = 1.0;
	c->joint_count = HJ;
	c->translation_tracks = h->tt;
	c->rotation_tracks = h->rt;
	c->scale_tracks = h->st;
	c->time_count = at;
	c->times = h->times;
	c->translation_values = h->tv;
	c->translation_value_count = vt;
	c->rotation_values = h->rv;
	c->rotation_value_count = vr;
	c->scale_values = h->sv;
	c->scale_value_count = vs;
}

static bool run_sample(const rk_runtime_clip *c, double t, rk_playback pb, rk_sample_context *ctx, rk_local_pose out,
	rki_rt_path path)
{
	rk_sample_job job;
	memset(&job, 0, sizeof(job));
	job.clip = c;
	job.time = t;
	job.playback = pb;
	job.context = ctx;
	job.output = out;
	return rki_sample_run_path(&job, path);
}

static bool run_model(const rk_skeleton *sk, rk_local_pose p, const rk_float4x4 *root, rk_float4x4 *model,
	size_t skin_n, const uint32_t *skin_joints, const rk_float4x4 *ibm, rk_float4x4 *pal, rki_rt_path path)
{
	rk_local_to_model_job job;
	memset(&job, 0, sizeof(job));
	job.skeleton = sk;
	job.input = rk_local_pose_view_of(p);
	job.root_transform = root;
	job.model = model;
	job.skin_joint_count = skin_n;
	job.skin_joints = skin_joints;
	job.inverse_bind = ibm;
	job.skinning = pal;
	return rki_local_to_model_run_path(&job, path);
}

static float ulp_of(float x)
{
	float a = fabsf(x);
	return nextafterf(a, INFINITY) - a;
}

/* Differences between two poses: count of differing bytes-wise entries
 * and whether every entry is within the FMA tolerance of the header. */
typedef struct pose_diff {
	int differ;       /* entries not bit-identical */
	int outside;      /* entries outside the tolerance */
} pose_diff;

static void diff_f3(pose_diff *d, rk_float3 a, rk_float3 b, rk_float3 lo, rk_float3 hi)
{
	if (memcmp(&a, &b, sizeof(a)) == 0) return;
	d->differ++;
	float m = fmaxf(fmaxf(fabsf(lo.x), fabsf(hi.x)), fmaxf(fmaxf(fabsf(lo.y), fabsf(hi.y)), fmaxf(fabsf(lo.z), fabsf(hi.z))));
	float tol = ulp_of(m > 1.0f ? m : 1.0f) * 2.0f;
	if (!(fabsf(a.x - b.x) <= tol && fabsf(a.y - b.y) <= tol && fabsf(a.z - b.z) <= tol)) d->outside++;
}

static void diff_q(pose_diff *d, rk_float4 a, rk_float4 b)
{
	if (memcmp(&a, &b, sizeof(a)) == 0) return;
	d->differ++;
	if (!(fabsf(a.x - b.x) <= 2e-6f && fabsf(a.y - b.y) <= 2e-6f && fabsf(a.z - b.z) <= 2e-6f && fabsf(a.w - b.w) <= 2e-6f))
		d->outside++;
}

static void diff_pose(pose_diff *d, const rk_runtime_clip *c, rk_local_pose a, rk_local_pose b)
{
	(void)c;
	for (size_t j = 0; j < a.joint_count; j++) {
		/* the largest translation / scale magnitude in the clip bounds the values */
		diff_f3(d, a.translation[j], b.translation[j], a.translation[j], b.translation[j]);
		diff_q(d, a.rotation[j], b.rotation[j]);
		diff_f3(d, a.scale[j], b.scale[j], a.scale[j], b.scale[j]);
	}
}

static void check_diff(rk_test_state *rk_t_, const pose_diff *d, const char *what)
{
	if (d->differ) fprintf(stderr, "  %s: %d entries differ between the paths (%d outside the tolerance)\n", what, d->differ, d->outside);
	if (EXACT) RK_CHECK_INT(d->differ, 0);
	RK_CHECK_INT(d->outside, 0);
}

/* Sampling: forward playback with cursors (both paths from equal cursor
 * states, the cursors must stay equal), random access without, garbage
 * cursors, CLAMP beyond the ends, LOOP wraps. */
static void compare_sampling(rk_test_state *rk_t_, const rk_runtime_clip *c, const char *name)
{
	RK_REQUIRE(rk_runtime_clip_validate(c, NULL));
	size_t n = c->joint_count, nc = rk_sample_context_size(c);
	rk_test_pose a, b;
	RK_REQUIRE(rk_test_pose_init(&a, n) && rk_test_pose_init(&b, n));
	uint32_t *ca = (uint32_t *)calloc(nc + 1, sizeof(uint32_t)), *cb = (uint32_t *)calloc(nc + 1, sizeof(uint32_t));
	RK_REQUIRE(ca && cb);
	rk_sample_context xa, xb;
	rk_sample_context_init(&xa, ca, nc);
	rk_sample_context_init(&xb, cb, nc);
	pose_diff play = { 0, 0 }, rand_d = { 0, 0 }, garbage = { 0, 0 };
	int cursor_differ = 0, runs = 0, garbage_used = 0;
	double d = c->duration > 0 ? c->duration : 1.0;
	for (int f = -5; f < 400; f++) {
		/* 144 fps for two and a half loops, with a pause and a jump back */
		double t = (f < 200 ? f : f == 200 ? 10 : f - 60) / 144.0 * d * 1.3;
		rk_playback pb = f % 50 < 40 ? RK_PLAYBACK_LOOP : RK_PLAYBACK_CLAMP;
		RK_REQUIRE(run_sample(c, t, pb, &xa, a.pose, RKI_RT_PATH_BLOCKED));
		RK_REQUIRE(run_sample(c, t, pb, &xb, b.pose, RKI_RT_PATH_SCALAR));
		diff_pose(&play, c, a.pose, b.pose);
		if (memcmp(ca, cb, nc * sizeof(uint32_t)) != 0) cursor_differ++;
		runs++;
	}
	for (int i = 0; i < 300; i++) {
		double t = (frand() * 1.4 - 0.2) * d;
		RK_REQUIRE(run_sample(c, t, RK_PLAYBACK_CLAMP, NULL, a.pose, RKI_RT_PATH_BLOCKED));
		RK_REQUIRE(run_sample(c, t, RK_PLAYBACK_CLAMP, NULL, b.pose, RKI_RT_PATH_SCALAR));
		diff_pose(&rand_d, c, a.pose, b.pose);
		/* garbage cursors give the no-context result (hints only). The
		 * context first learns the clip (a sample at another time), or the
		 * next run would reset the cursors; the garbage is written after
		 * rk_sample_context_init, which zeroes them. */
		rk_sample_context_init(&xa, ca, nc);
		RK_REQUIRE(run_sample(c, d - t, RK_PLAYBACK_CLAMP, &xa, a.pose, RKI_RT_PATH_BLOCKED));
		for (size_t k = 0; k < nc; k++) {
			uint32_t r = (uint32_t)(frand() * 4294967040.0f);
			ca[k] = k % 5 == 0 ? UINT32_MAX : k % 5 == 1 ? r % 40 : r;
		}
		memcpy(cb, ca, nc * sizeof(uint32_t));
		RK_REQUIRE(run_sample(c, t, RK_PLAYBACK_CLAMP, &xa, a.pose, RKI_RT_PATH_BLOCKED));
		if (memcmp(ca, cb, nc * sizeof(uint32_t)) != 0) garbage_used++;
		diff_pose(&garbage, c, a.pose, b.pose);
	}
	fprintf(stderr, "  %s (%zu joints): %d playback frames, 300 random times on the %s lanes\n", name, n, runs, rki_rt_vector_name());
	check_diff(rk_t_, &play, "playback");
	check_diff(rk_t_, &rand_d, "random access");
	check_diff(rk_t_, &garbage, "garbage cursors");
	if (nc > 0) RK_CHECK(garbage_used > 0); /* the sampler read (and mended) the garbage cursors */
	RK_CHECK_INT(cursor_differ, 0);
	free(ca);
	free(cb);
	rk_test_pose_free(&a);
	rk_test_pose_free(&b);
}

/* Local-to-model on both paths from the same pose; skinning palette too. */
static void compare_model(rk_test_state *rk_t_, const rk_skeleton *sk, rk_local_pose pose, const char *name)
{
	size_t n = sk->joint_count;
	rk_float4x4 *ma = (rk_float4x4 *)malloc(sizeof(rk_float4x4) * (n + 1)), *mb = (rk_float4x4 *)malloc(sizeof(rk_float4x4) * (n + 1));
	rk_float4x4 *ibm = (rk_float4x4 *)malloc(sizeof(rk_float4x4) * (n + 1));
	rk_float4x4 *pa = (rk_float4x4 *)malloc(sizeof(rk_float4x4) * (n + 1)), *pb = (rk_float4x4 *)malloc(sizeof(rk_float4x4) * (n + 1));
	uint32_t *sj = (uint32_t *)malloc(sizeof(uint32_t) * (n + 1));
	RK_REQUIRE(ma && mb && ibm && pa && pb && sj);
	for (size_t k = 0; k < n; k++) {
		sj[k] = (uint32_t)((k * 7) % n);
		for (int i = 0; i < 16; i++) ibm[k].m[i] = (i % 4 == 3) ? (i == 15 ? 1.0f : 0.0f) : frand() - 0.5f;
	}
	const rk_float4x4 root = { { 0.9f, 0.1f, -0.2f, 0, -0.1f, 1.1f, 0.05f, 0, 0.2f, 0, 0.8f, 0, 3.0f, -1.0f, 0.5f, 1 } };
	for (int variant = 0; variant < 2; variant++) {
		const rk_float4x4 *r = variant ? &root : NULL;
		RK_REQUIRE(run_model(sk, pose, r, ma, n, sj, ibm, pa, RKI_RT_PATH_BLOCKED));
		RK_REQUIRE(run_model(sk, pose, r, mb, n, sj, ibm, pb, RKI_RT_PATH_SCALAR));
		int differ = 0, outside = 0;
		for (size_t j = 0; j < n; j++) {
			for (int pass = 0; pass < 2; pass++) {
				const float *x = pass ? pa[j].m : ma[j].m, *y = pass ? pb[j].m : mb[j].m;
				if (memcmp(x, y, 16 * sizeof(float)) == 0) continue;
				differ++;
				float big = 1.0f;
				for (int i = 0; i < 16; i++) big = fmaxf(big, fabsf(y[i]));
				for (int i = 0; i < 16; i++)
					if (!(fabsf(x[i] - y[i]) <= 1e-5f * big)) {
						outside++;
						break;
					}
			}
		}
		if (differ) fprintf(stderr, "  %s: %d matrices differ between the paths (%d outside the tolerance)\n", name, differ, outside);
		if (EXACT) RK_CHECK_INT(differ, 0);
		RK_CHECK_INT(outside, 0);
	}
	free(ma);
	free(mb);
	free(ibm);
	free(pa);
	free(pb);
	free(sj);
}

RK_TEST(test_path_selection)
{
#if defined(RK_SCALAR_ONLY)
	/* the scalar-only build samples with the reference path; the blocked
	 * path (still tested below) runs on plain-C lanes */
	RK_CHECK(rki_rt_default_path() == RKI_RT_PATH_SCALAR);
	RK_CHECK_STR(rki_rt_vector_name(), "plain C");
#elif defined(__x86_64__)
	RK_CHECK(rki_rt_default_path() == RKI_RT_PATH_BLOCKED);
	RK_CHECK_STR(rki_rt_vector_name(), "sse2");
#elif defined(__wasm_simd128__)
	RK_CHECK(rki_rt_default_path() == RKI_RT_PATH_BLOCKED);
	RK_CHECK_STR(rki_rt_vector_name(), "wasm-simd128");
#endif
	/* rk_sample_run / rk_local_to_model_run are the default path */
	hand_clip *h = (hand_clip *)malloc(sizeof(hand_clip));
	RK_REQUIRE(h);
	hand_clip_init(h);
	rk_test_pose a, b;
	RK_REQUIRE(rk_test_pose_init(&a, HJ) && rk_test_pose_init(&b, HJ));
	rk_sample_job job;
	memset(&job, 0, sizeof(job));
	job.clip = &h->c;
	job.time = 0.37;
	job.output = a.pose;
	RK_REQUIRE(rk_sample_run(&job));
	RK_REQUIRE(run_sample(&h->c, 0.37, RK_PLAYBACK_CLAMP, NULL, b.pose, rki_rt_default_path()));
	RK_CHECK(memcmp(a.mem, b.mem, rk_local_pose_memory_size(HJ)) == 0 || !EXACT);
	/* bad jobs are refused on both paths */
	job.output.joint_count = HJ - 1;
	RK_CHECK(!rki_sample_run_path(&job, RKI_RT_PATH_BLOCKED));
	RK_CHECK(!rki_sample_run_path(&job, RKI_RT_PATH_SCALAR));
	rk_local_to_model_job mj;
	memset(&mj, 0, sizeof(mj));
	RK_CHECK(!rki_local_to_model_run_path(&mj, RKI_RT_PATH_BLOCKED));
	rk_test_pose_free(&a);
	rk_test_pose_free(&b);
	free(h);
}

/* Hand-made clip with every lane case; sub-clips of 0..7 joints exercise
 * the blocks of 4 and the scalar tail. */
RK_TEST(test_hand_clip_paths)
{
	hand_clip *h = (hand_clip *)malloc(sizeof(hand_clip));
	RK_REQUIRE(h);
	hand_clip_init(h);
	compare_sampling(rk_t_, &h->c, "hand clip");
	for (size_t n = 0; n < 8; n++) {
		rk_runtime_clip sub = h->c;
		sub.joint_count = n;
		char name[64];
		snprintf(name, sizeof(name), "hand clip, first %zu joints", n);
		compare_sampling(rk_t_, &sub, name);
	}
	/* key times out of order: no reads out of bounds (ASan), same result on
	 * both paths for the same cursors */
	hand_clip *u = (hand_clip *)malloc(sizeof(hand_clip));
	RK_REQUIRE(u);
	memcpy(u, h, sizeof(*h));
	u->c.times = u->times;
	u->c.translation_tracks = u->tt;
	u->c.rotation_tracks = u->rt;
	u->c.scale_tracks = u->st;
	u->c.translation_values = u->tv;
	u->c.rotation_values = u->rv;
	u->c.scale_values = u->sv;
	for (size_t i = 0; i < u->c.time_count; i++) u->times[i] = frand();
	rk_test_pose a, b;
	RK_REQUIRE(rk_test_pose_init(&a, HJ) && rk_test_pose_init(&b, HJ));
	size_t nc = rk_sample_context_size(&u->c);
	uint32_t ca[3 * HJ], cb[3 * HJ];
	memset(ca, 0, sizeof(ca));
	rk_sample_context xa, xb;
	rk_sample_context_init(&xa, ca, nc);
	rk_sample_context_init(&xb, cb, nc);
	pose_diff d = { 0, 0 };
	for (int f = 0; f < 200; f++) {
		double t = f / 150.0;
		RK_REQUIRE(run_sample(&u->c, t, RK_PLAYBACK_LOOP, &xa, a.pose, RKI_RT_PATH_BLOCKED));
		RK_REQUIRE(run_sample(&u->c, t, RK_PLAYBACK_LOOP, &xb, b.pose, RKI_RT_PATH_SCALAR));
		diff_pose(&d, &u->c, a.pose, b.pose);
		RK_CHECK(memcmp(ca, cb, sizeof(ca)) == 0);
		memcpy(cb, ca, sizeof(ca));
	}
	check_diff(rk_t_, &d, "unordered times");
	rk_test_pose_free(&a);
	rk_test_pose_free(&b);
	free(u);

	/* local-to-model on a hand skeleton (parents depth-first, several roots) */
	int32_t parents[HJ];
	for (int j = 0; j < HJ; j++) parents[j] = j == 0 || j == 9 ? -1 : (j % 4 == 0 ? j / 2 : j - 1);
	rk_skeleton sk;
	memset(&sk, 0, sizeof(sk));
	rk_test_pose p;
	RK_REQUIRE(rk_test_pose_init(&p, HJ));
	RK_REQUIRE(run_sample(&h->c, 0.41, RK_PLAYBACK_CLAMP, NULL, p.pose, RKI_RT_PATH_SCALAR));
	sk.parents = parents;
	for (size_t n = 0; n <= HJ; n += (n < 9 ? 1 : 7)) {
		sk.joint_count = n;
		rk_local_pose sub = p.pose;
		sub.joint_count = n;
		compare_model(rk_t_, &sk, sub, "hand skeleton");
	}
	rk_test_pose_free(&p);
	free(h);
}

/* The bench's synthetic rig: 65 joints, 30 LINEAR keys per track. */
RK_TEST(test_synthetic_rig_paths)
{
	enum { J = 65, K = 30 };
	static int32_t parents[J];
	static rk_runtime_track tt[J], rt[J], st[J];
	static float times[3 * J * K];
	static rk_float3 tv[J * K], sv[J * K];
	static rk_float4 rv[J * K];
	uint32_t at = 0;
	for (int j = 0; j < J; j++) {
		parents[j] = j == 0 ? -1 : (j % 5 == 0 ? j / 3 : j - 1);
		rk_runtime_track *tr[3] = { &tt[j], &rt[j], &st[j] };
		for (int a = 0; a < 3; a++) {
			*tr[a] = (rk_runtime_track){ at, K, (uint32_t)(j * K), RK_KEY_LINEAR };
			for (int k = 0; k < K; k++) times[at++] = (float)k / (K - 1);
		}
		rk_float4 q = qrand(0.3f);
		for (int k = 0; k < K; k++) {
			tv[j * K + k] = (rk_float3){ frand() - 0.5f, 0.1f + 0.2f * frand(), frand() - 0.5f };
			rk_float4 d = qrand(0.2f);
			q = (rk_float4){ d.w * q.x + d.x * q.w + d.y * q.z - d.z * q.y, d.w * q.y - d.x * q.z + d.y * q.w + d.z * q.x,
				d.w * q.z + d.x * q.y - d.y * q.x + d.z * q.w, d.w * q.w - d.x * q.x - d.y * q.y - d.z * q.z };
			rv[j * K + k] = q;
			float s = 1.0f + 0.05f * frand();
			sv[j * K + k] = (rk_float3){ s, s, s };
		}
	}
	rk_runtime_clip c;
	memset(&c, 0, sizeof(c));
	c.duration = 1.0;
	c.joint_count = J;
	c.translation_tracks = tt;
	c.rotation_tracks = rt;
	c.scale_tracks = st;
	c.time_count = at;
	c.times = times;
	c.translation_values = tv;
	c.translation_value_count = J * K;
	c.rotation_values = rv;
	c.rotation_value_count = J * K;
	c.scale_values = sv;
	c.scale_value_count = J * K;
	compare_sampling(rk_t_, &c, "synthetic rig");
	rk_skeleton sk;
	memset(&sk, 0, sizeof(sk));
	sk.joint_count = J;
	sk.parents = parents;
	rk_test_pose p;
	RK_REQUIRE(rk_test_pose_init(&p, J));
	for (int i = 0; i < 20; i++) {
		RK_REQUIRE(run_sample(&c, i / 19.0, RK_PLAYBACK_CLAMP, NULL, p.pose, RKI_RT_PATH_SCALAR));
		compare_model(rk_t_, &sk, p.pose, "synthetic rig");
	}
	rk_test_pose_free(&p);
}

/* Real clips: the Xbot walk (glTF LINEAR keys copied) and ybot@kick.fbx
 * (resampled: CUBIC keys, the scalar fallback lanes; and LINEAR keys). */
RK_TEST(test_shared_clip_paths)
{
	static const char *files[] = { "Xbot.glb", "ybot@kick.fbx" };
	int done = 0;
	for (int fi = 0; fi < 2; fi++) {
		rk_scene *s = rk_test_load_asset(files[fi]);
		if (!s) continue;
		rk_error err;
		rk_skeleton *sk = rk_skeleton_build(s, NULL, &err);
		RK_REQUIRE(sk);
		const rk_anim_clip *clip = fi == 0 ? rk_scene_find_clip(s, "walk") : &s->clips.data[0];
		RK_REQUIRE(clip);
		for (int linear = 0; linear < 2; linear++) {
			rk_runtime_clip_opts o;
			memset(&o, 0, sizeof(o));
			o.linear_keys = linear;
			rk_runtime_clip *rc = rk_runtime_clip_build(s, clip, sk, &o, &err);
			RK_REQUIRE(rc);
			char name[256];
			snprintf(name, sizeof(name), "%s %s%s", files[fi], clip->name ? clip->name : "", linear ? " (linear keys)" : "");
			compare_sampling(rk_t_, rc, name);
			rk_test_pose p;
			RK_REQUIRE(rk_test_pose_init(&p, sk->joint_count));
			for (int i = 0; i < 8; i++) {
				RK_REQUIRE(run_sample(rc, rc->duration * i / 7.0, RK_PLAYBACK_CLAMP, NULL, p.pose, RKI_RT_PATH_SCALAR));
				compare_model(rk_t_, sk, p.pose, name);
			}
			rk_test_pose_free(&p);
			rk_runtime_clip_free(rc);
		}
		rk_skeleton_free(sk);
		rk_scene_free(s);
		done++;
	}
	if (!done) RK_SKIP("shared assets not found");
}

/* The lane header holds no allocation either (the per-frame sources are
 * checked by test_runtime's test_allocations). */
RK_TEST(test_simd_header_allocates_nothing)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/src/runtime/runtime_simd.h", RK_SOURCE_DIR);
	size_t len;
	unsigned char *text = rk_test_read_file(path, &len);
	RK_REQUIRE(text);
	char *z = (char *)realloc(text, len + 1);
	RK_REQUIRE(z);
	z[len] = 0;
	static const char *forbidden[] = { "malloc", "calloc", "realloc", "free(", "alloca(", "rki_arena", "rki_buf" };
	for (size_t k = 0; k < sizeof(forbidden) / sizeof(forbidden[0]); k++) RK_CHECK(strstr(z, forbidden[k]) == NULL);
	free(z);
}

RK_TEST_MAIN(RK_TEST_ENTRY(test_path_selection), RK_TEST_ENTRY(test_hand_clip_paths), RK_TEST_ENTRY(test_synthetic_rig_paths),
	RK_TEST_ENTRY(test_shared_clip_paths), RK_TEST_ENTRY(test_simd_header_allocates_nothing))
