/*
 * bench/bench_synth_rig.h - the synthetic 65-joint rig of bench_runtime.c,
 * shared with bench_wasm.c (the same workload natively and in WebAssembly):
 * a humanoid-shaped tree (parents depth-first) with one 1-second clip of
 * translation, rotation and scale tracks of 30 LINEAR keys for every joint,
 * as a plain rk_runtime_clip. frand() is a fixed-seed LCG, so every program
 * builds the same rig.
 */
#ifndef RIGKIT_BENCH_SYNTH_RIG_H
#define RIGKIT_BENCH_SYNTH_RIG_H

#include <rigkit/runtime.h>

#include <math.h>
#include <stdint.h>
#include <string.h>

#define JOINTS 65
#define KEYS 30

static uint32_t rng_state = 0x12345678u;
static float frand(void)
{
	rng_state = rng_state * 1664525u + 1013904223u;
	return (float)(rng_state >> 8) / 16777216.0f;
}

typedef struct synth {
	rk_skeleton sk;
	int32_t parents[JOINTS];
	rk_float3 rest_t[JOINTS], rest_s[JOINTS];
	rk_float4 rest_r[JOINTS];
	rk_runtime_clip clip;
	rk_runtime_track tt[JOINTS], rt[JOINTS], st[JOINTS];
	float times[3 * JOINTS * KEYS];
	rk_float3 tv[JOINTS * KEYS], sv[JOINTS * KEYS];
	rk_float4 rv[JOINTS * KEYS];
} synth;

static rk_float4 quat_small_random(rk_float4 base, float amount)
{
	rk_float4 q = { base.x + amount * (frand() - 0.5f), base.y + amount * (frand() - 0.5f),
		base.z + amount * (frand() - 0.5f), base.w + amount * (frand() - 0.5f) };
	float n = 1.0f / sqrtf(q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w);
	return (rk_float4){ q.x * n, q.y * n, q.z * n, q.w * n };
}

static void synth_init(synth *s)
{
	memset(s, 0, sizeof(*s));
	/* humanoid-like: hips 0, spine chain 1-4, neck/head 5-6, two arms of
	 * shoulder + 3 + 15 finger joints, two legs of 4; the rest hang off the
	 * spine. Depth-first: each parent index < child index. */
	int j = 0;
	s->parents[j++] = -1;                      /* 0 hips */
	for (int k = 0; k < 4; k++, j++) s->parents[j] = j - 1; /* 1..4 spine */
	s->parents[j++] = 4;                       /* 5 neck */
	s->parents[j++] = 5;                       /* 6 head */
	for (int side = 0; side < 2; side++) {
		int shoulder = j;
		s->parents[j++] = 4;
		s->parents[j++] = shoulder;            /* arm */
		s->parents[j++] = shoulder + 1;        /* forearm */
		int hand = j;
		s->parents[j++] = shoulder + 2;        /* hand */
		for (int f = 0; f < 5; f++) {
			s->parents[j] = hand;
			s->parents[j + 1] = j;
			s->parents[j + 2] = j + 1;
			j += 3;
		}
	}
	for (int side = 0; side < 2; side++) {
		s->parents[j++] = 0;
		for (int k = 0; k < 3; k++, j++) s->parents[j] = j - 1;
	}
	while (j < JOINTS) s->parents[j++] = 3;
	for (int i = 0; i < JOINTS; i++) {
		s->rest_t[i] = (rk_float3){ frand() - 0.5f, 0.1f + frand() * 0.2f, frand() - 0.5f };
		s->rest_r[i] = quat_small_random((rk_float4){ 0, 0, 0, 1 }, 0.3f);
		s->rest_s[i] = (rk_float3){ 1, 1, 1 };
	}
	s->sk.joint_count = JOINTS;
	s->sk.parents = s->parents;
	s->sk.rest = (rk_local_pose_view){ JOINTS, s->rest_t, s->rest_r, s->rest_s };

	uint32_t at = 0;
	for (int i = 0; i < JOINTS; i++) {
		rk_runtime_track *tr[3] = { &s->tt[i], &s->rt[i], &s->st[i] };
		for (int c = 0; c < 3; c++) {
			tr[c]->key_begin = at;
			tr[c]->key_count = KEYS;
			tr[c]->value_begin = (uint32_t)(i * KEYS);
			tr[c]->interp = RK_KEY_LINEAR;
			for (int k = 0; k < KEYS; k++) s->times[at++] = (float)k / (KEYS - 1);
		}
		rk_float4 q = s->rest_r[i];
		for (int k = 0; k < KEYS; k++) {
			s->tv[i * KEYS + k] = (rk_float3){ s->rest_t[i].x + 0.01f * frand(), s->rest_t[i].y, s->rest_t[i].z };
			q = quat_small_random(q, 0.2f);     /* a random walk: neighbouring keys 5-10 deg apart */
			s->rv[i * KEYS + k] = q;
			float sc = 1.0f + 0.05f * frand();
			s->sv[i * KEYS + k] = (rk_float3){ sc, sc, sc };
		}
	}
	rk_runtime_clip *c = &s->clip;
	c->name = "synthetic";
	c->duration = 1.0;
	c->joint_count = JOINTS;
	c->translation_tracks = s->tt;
	c->rotation_tracks = s->rt;
	c->scale_tracks = s->st;
	c->time_count = at;
	c->times = s->times;
	c->translation_values = s->tv;
	c->translation_value_count = JOINTS * KEYS;
	c->rotation_values = s->rv;
	c->rotation_value_count = JOINTS * KEYS;
	c->scale_values = s->sv;
	c->scale_value_count = JOINTS * KEYS;
}

#endif
