/*
 * examples/retarget.c - seed 004 in a page of C: play a motion made for one
 * humanoid (a Mixamo download) on another (an Avaturn / Ready Player Me
 * avatar), cross-fade the avatar from the retargeted Idle into the Walk with
 * the runtime, and write the avatar with its new clips.
 *
 *   usage: retarget SOURCE TARGET OUT.glb
 *   e.g.   rigkit sample out && retarget out/source.glb out/avatar.glb avatar_walk.glb
 *
 * With no clips named "Idle" and "Walk" in SOURCE, every clip is retargeted
 * and the cross-fade part is skipped.
 */
#include <rigkit/rigkit.h>

#include <stdio.h>
#include <stdlib.h>

static int fail(const rk_error *err)
{
	char msg[1024];
	rk_error_format(msg, sizeof msg, err);
	fprintf(stderr, "%s\n", msg);
	return 2;
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: %s SOURCE TARGET OUT.glb\n", argv[0]);
		return 1;
	}
	rk_error err;
	rk_scene *source = rk_load_file(argv[1], NULL, &err);
	if (!source) return fail(&err);
	rk_scene *target = rk_load_file(argv[2], NULL, &err);
	if (!target) return fail(&err);

	/* 1. Retarget: names, rest poses (T/A), bone rolls, axes and units are
	 *    handled by rk_retarget (humanoids detected from names + hierarchy). */
	rk_retarget_opts opts = { 0 };
	opts.root = RK_RETARGET_ROOT_IN_PLACE;   /* keep the bob, drop the travel */
	opts.foot_ik = true;                     /* planted feet stay planted */
	size_t count = source->clips.count;
	for (size_t c = 0; c < count; c++) {
		rk_retarget_report report;
		rk_anim_clip *clip = rk_retarget(target, source, &source->clips.data[c], &opts, &report, &err);
		if (!clip) return fail(&err);
		printf("%s: %zu bones, %zu frames, worst bone direction %.2g rad\n", clip->name, report.mapped_bones,
			report.frames, report.max_direction_error);
	}

	/* 2. Play: Idle -> Walk over 0.3 s at 60 fps with the float runtime
	 *    (seed 004's failure 5 was switching at once). */
	rk_anim_clip *idle = rk_scene_find_clip(target, "Idle"), *walk = rk_scene_find_clip(target, "Walk");
	if (idle && walk) {
		rk_skeleton *skel = rk_skeleton_build(target, NULL, &err);
		rk_runtime_clip *ri = skel ? rk_runtime_clip_build(target, idle, skel, NULL, &err) : NULL;
		rk_runtime_clip *rw = skel ? rk_runtime_clip_build(target, walk, skel, NULL, &err) : NULL;
		if (!ri || !rw) return fail(&err);
		size_t n = skel->joint_count, bytes = rk_local_pose_memory_size(n);
		void *m1 = malloc(bytes), *m2 = malloc(bytes), *m3 = malloc(bytes);
		rk_float4x4 *model = malloc(n * sizeof(rk_float4x4));
		rk_local_pose a, b, out;
		if (!m1 || !m2 || !m3 || !model || !rk_local_pose_init(&a, n, m1, bytes) ||
			!rk_local_pose_init(&b, n, m2, bytes) || !rk_local_pose_init(&out, n, m3, bytes))
			return 3;
		rk_humanoid humanoid;
		int32_t hips = rk_humanoid_detect(target, &humanoid, NULL)
			? rk_skeleton_joint_of_node(skel, humanoid.bones[RK_HUMANOID_HIPS]) : RK_JOINT_NONE;
		rk_crossfade fade = { 0 };
		rk_crossfade_start(&fade, 0.0, 0.0, 0.3);
		for (int frame = 0; frame <= 30; frame++) {
			rk_sample_job sa = { .clip = ri, .time = fade.from_time, .playback = RK_PLAYBACK_LOOP, .output = a };
			rk_sample_job sb = { .clip = rw, .time = fade.to_time, .playback = RK_PLAYBACK_LOOP, .output = b };
			rk_blend_layer layers[2];
			rk_crossfade_layers(&fade, rk_local_pose_view_of(a), rk_local_pose_view_of(b), layers);
			rk_blend_job blend = { .skeleton = skel, .layers = layers, .layer_count = 2, .output = out };
			rk_local_to_model_job tm = { .skeleton = skel, .input = rk_local_pose_view_of(out), .model = model };
			if (!rk_sample_run(&sa) || !rk_sample_run(&sb) || !rk_blend_run(&blend) || !rk_local_to_model_run(&tm))
				return 3;
			if (frame % 10 == 0 && hips >= 0)
				printf("t=%.3f s  walk weight %.2f  hips at (%.3f, %.3f, %.3f)\n", frame / 60.0, rk_crossfade_weight(&fade),
					model[hips].m[12], model[hips].m[13], model[hips].m[14]);
			rk_crossfade_advance(&fade, 1.0 / 60.0);
		}
		free(m1), free(m2), free(m3), free(model);
		rk_runtime_clip_free(ri);
		rk_runtime_clip_free(rw);
		rk_skeleton_free(skel);
	}

	/* 3. Write the avatar with its new clips (atomically). */
	if (!rk_glb_write(target, argv[3], NULL, &err)) return fail(&err);
	printf("wrote %s\n", argv[3]);
	rk_scene_free(source);
	rk_scene_free(target);
	return 0;
}
