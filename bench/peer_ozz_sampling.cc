/*
 * bench/peer_ozz_sampling.cc - the ozz-animation peer of bench_runtime.c:
 * the same synthetic 65-joint rig (bench/bench_synth_rig.h: the same
 * parents, rest pose and 30 LINEAR keys per translation / rotation / scale
 * track, from the same fixed-seed generator) built into an ozz Skeleton and
 * Animation with ozz's offline builders, then timed with ozz's
 * SamplingJob and LocalToModelJob on one thread:
 *   playback   600 frames at 60 fps over the 1 s clip (10 loops), one
 *              SamplingJob::Context kept across frames (ozz's cursors)
 *   random     600 pseudo-random times (ozz has no context-free sampling:
 *              the same context, which resets on every backward seek)
 * Prints bench_runtime's rows (median over RUNS of the thread's CPU time,
 * million joints per second, ns per joint).
 *
 * ozz-animation is not part of rigkit and is not in the repository:
 * scripts/bench.sh compiles this file with ozz's sources from the folder
 * named by RIGKIT_PEER_OZZ (a checkout made outside the repository, with
 * its include/ and src/ folders) and leaves the ozz rows out without it.
 * Note that ozz stores keys quantised (16-bit quaternion components, half
 * float translations and scales), which its sampling decodes.
 *
 * usage: peer_ozz_sampling [-n RUNS]
 */
#include "bench_common.h"
#include "bench_synth_rig.h"

#include "ozz/animation/offline/animation_builder.h"
#include "ozz/animation/offline/raw_animation.h"
#include "ozz/animation/offline/raw_skeleton.h"
#include "ozz/animation/offline/skeleton_builder.h"
#include "ozz/animation/runtime/animation.h"
#include "ozz/animation/runtime/local_to_model_job.h"
#include "ozz/animation/runtime/sampling_job.h"
#include "ozz/animation/runtime/skeleton.h"
#include "ozz/base/maths/simd_math.h"
#include "ozz/base/maths/soa_transform.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace oa = ozz::animation;
namespace oo = ozz::animation::offline;

enum { FRAMES = 600 };

static void add_children(const synth &s, int parent, oo::RawSkeleton::Joint::Children *out)
{
	for (int j = 0; j < JOINTS; j++) {
		if (s.parents[j] != parent) continue;
		oo::RawSkeleton::Joint joint;
		joint.name = "j" + std::to_string(j);
		joint.transform.translation = ozz::math::Float3(s.rest_t[j].x, s.rest_t[j].y, s.rest_t[j].z);
		joint.transform.rotation = ozz::math::Quaternion(s.rest_r[j].x, s.rest_r[j].y, s.rest_r[j].z, s.rest_r[j].w);
		joint.transform.scale = ozz::math::Float3(s.rest_s[j].x, s.rest_s[j].y, s.rest_s[j].z);
		add_children(s, j, &joint.children);
		out->push_back(joint);
	}
}

int main(int argc, char **argv)
{
	int runs = 11;
	if (argc > 2 && std::strcmp(argv[1], "-n") == 0) runs = std::atoi(argv[2]);
	if (runs < 1 || runs > 1000) runs = 11;
	static synth s;
	synth_init(&s);

	oo::RawSkeleton raw_sk;
	add_children(s, -1, &raw_sk.roots);
	ozz::unique_ptr<oa::Skeleton> sk = oo::SkeletonBuilder()(raw_sk);
	if (!sk || sk->num_joints() != JOINTS) {
		std::fprintf(stderr, "peer_ozz_sampling: skeleton build failed\n");
		return 1;
	}
	/* ozz orders joints itself: track k belongs to the joint named at k */
	oo::RawAnimation raw;
	raw.duration = 1.0f;
	raw.tracks.resize(JOINTS);
	for (int k = 0; k < JOINTS; k++) {
		int j = std::atoi(sk->joint_names()[k] + 1);
		oo::RawAnimation::JointTrack &tr = raw.tracks[k];
		for (int i = 0; i < KEYS; i++) {
			const rk_float3 t = s.tv[j * KEYS + i], sc = s.sv[j * KEYS + i];
			const rk_float4 q = s.rv[j * KEYS + i];
			float time = s.times[s.tt[j].key_begin + i];
			tr.translations.push_back({ time, ozz::math::Float3(t.x, t.y, t.z) });
			tr.rotations.push_back({ time, ozz::math::Quaternion(q.x, q.y, q.z, q.w) });
			tr.scales.push_back({ time, ozz::math::Float3(sc.x, sc.y, sc.z) });
		}
	}
	ozz::unique_ptr<oa::Animation> anim = oo::AnimationBuilder()(raw);
	if (!anim) {
		std::fprintf(stderr, "peer_ozz_sampling: animation build failed\n");
		return 1;
	}
	std::vector<ozz::math::SoaTransform> locals((size_t)sk->num_soa_joints());
	std::vector<ozz::math::Float4x4> models((size_t)sk->num_joints());
	oa::SamplingJob::Context ctx(sk->num_joints());
	float random_times[FRAMES];
	for (int f = 0; f < FRAMES; f++) random_times[f] = frand();

	static const char *names[5] = {
		"playback: sample (cursors) + local-to-model",
		"playback: sample (cursors) only",
		"random access: sample (binary search) + local-to-model",
		"random access: sample (binary search) only",
		"local-to-model only",
	};
	std::printf("ozz-animation: synthetic (T, R, S tracks of %d LINEAR keys per joint): %d joints, %d frames per run, median of %d runs\n",
		KEYS, JOINTS, FRAMES, runs);
	std::vector<double> t((size_t)runs);
	volatile float sink = 0;
	for (int mode = 0; mode < 5; mode++) {
		bool sample = mode != 4, model = mode == 0 || mode == 2 || mode == 4, play = mode < 2;
		for (int r = -1; r < runs; r++) {
			double t0 = bench_cpu_now();
			for (int f = 0; f < FRAMES; f++) {
				if (sample) {
					oa::SamplingJob sj;
					sj.animation = anim.get();
					sj.context = &ctx;
					double time = play ? f / 60.0 : random_times[f];
					sj.ratio = (float)(time - (double)(long)time);
					sj.output = ozz::make_span(locals);
					if (!sj.Run()) return 1;
				}
				if (model) {
					oa::LocalToModelJob lj;
					lj.skeleton = sk.get();
					lj.input = ozz::make_span(locals);
					lj.output = ozz::make_span(models);
					if (!lj.Run()) return 1;
				}
			}
			double t1 = bench_cpu_now();
			if (r >= 0) t[(size_t)r] = t1 - t0;
			sink = sink + ozz::math::GetX(models[JOINTS - 1].cols[3]);
		}
		double med = bench_median(t.data(), runs);
		double joints = (double)JOINTS * FRAMES;
		std::printf("  %-56s %7.1f M joints/s  %6.1f ns/joint\n", names[mode], joints / med / 1e6, med / joints * 1e9);
	}
	(void)sink;
	return 0;
}
