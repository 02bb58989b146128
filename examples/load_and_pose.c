/*
 * examples/load_and_pose.c - load a character (FBX, glTF or GLB), evaluate
 * an animation clip at a time and print the joints' world positions.
 *
 *   usage: load_and_pose FILE [CLIP] [SECONDS]
 *
 * The scene is converted to metres, Y up on load; the pose lives in one
 * caller-owned block (no allocation per evaluation).
 */
#include <rigkit/rigkit.h>

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: %s FILE [CLIP] [SECONDS]\n", argv[0]);
		return 1;
	}
	rk_error err;
	rk_load_opts opts = { 0 };
	opts.target_axes = RK_AXES_RIGHT_HANDED_Y_UP;
	opts.target_unit_meters = 1.0;
	rk_scene *scene = rk_load_file(argv[1], &opts, &err);
	if (!scene) {
		char msg[1024];
		rk_error_format(msg, sizeof msg, &err);
		fprintf(stderr, "%s\n", msg);
		return 2;
	}
	const rk_anim_clip *clip = argc > 2 ? rk_scene_find_clip(scene, argv[2]) : (scene->clips.count ? &scene->clips.data[0] : NULL);
	double time = argc > 3 ? atof(argv[3]) : (clip ? clip->time_begin : 0.0);

	size_t size = rk_pose_memory_size(scene);
	void *memory = malloc(size);
	rk_pose pose;
	if (!memory || !rk_pose_init(&pose, scene, memory, size)) return 3;
	rk_pose_eval_job job = { 0 };
	job.scene = scene;
	job.clip = clip;
	job.time = time;
	job.pose = &pose;
	if (!rk_pose_eval_validate(&job, &err) || !rk_pose_eval_run(&job)) {
		fprintf(stderr, "cannot evaluate: %s\n", err.message);
		return 2;
	}
	printf("%s at %.3f s (%s)\n", argv[1], time, clip ? clip->name : "static");
	for (size_t i = 0; i < scene->nodes.count; i++) {
		const rk_node *n = &scene->nodes.data[i];
		if (n->kind != RK_NODE_JOINT) continue;
		rk_vec3 p = rk_mat4_get_translation(pose.node_to_world[i]);
		printf("  %-32s %9.4f %9.4f %9.4f\n", n->name, p.x, p.y, p.z);
	}
	free(memory);
	rk_scene_free(scene);
	return 0;
}
