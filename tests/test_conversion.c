/*
 * tests/test_conversion.c - unit/axis conversion on load (rk_load_opts):
 * RK_CONVERT_MODIFY_GEOMETRY must give the same world-space results as
 * RK_CONVERT_ADJUST_TRANSFORMS (which the conformance corpus checks against
 * reference exports), while really rewriting the data.
 *
 * Expectations are independent of either method: a conversion to metres of
 * a centimetre file multiplies every evaluated world position of the
 * unconverted scene by 0.01, and a Z-up -> Y-up conversion maps (x, y, z)
 * to (x, z, -y) (right-handed; derived by hand from the axis tables in
 * ../shared/conformance/README.txt).
 */
#include "rk_test.h"

#include <rigkit/rigkit.h>

typedef struct evaluated {
	rk_scene *scene;
	void *mem;
	rk_pose pose;
} evaluated;

static bool eval_at(evaluated *e, const char *path, const rk_load_opts *o, const char *clip, double t)
{
	rk_error err;
	memset(e, 0, sizeof(*e));
	e->scene = rk_load_file(path, o, &err);
	if (!e->scene) return false;
	size_t ps = rk_pose_memory_size(e->scene);
	e->mem = malloc(ps);
	if (!e->mem || !rk_pose_init(&e->pose, e->scene, e->mem, ps)) return false;
	rk_pose_eval_job job = { 0 };
	job.scene = e->scene;
	job.pose = &e->pose;
	job.clip = clip ? rk_scene_find_clip(e->scene, clip) : NULL;
	job.time = t;
	return rk_pose_eval_run(&job);
}

static void release(evaluated *e)
{
	free(e->mem);
	rk_scene_free(e->scene);
}

/* Max difference between map(a world position) and b's, over joints and
 * every vertex of every mesh node. */
static double compare(const evaluated *a, const evaluated *b, double k, bool z_to_y)
{
	double worst = 0.0;
	const rk_scene *sa = a->scene, *sb = b->scene;
	if (sa->nodes.count != sb->nodes.count) return INFINITY;
	for (size_t i = 0; i < sa->nodes.count; i++) {
		rk_vec3 p = rk_mat4_get_translation(a->pose.node_to_world[i]);
		rk_vec3 q = rk_mat4_get_translation(b->pose.node_to_world[i]);
		rk_vec3 m = z_to_y ? (rk_vec3){ p.x * k, p.z * k, -p.y * k } : rk_vec3_scale(p, k);
		worst = fmax(worst, rk_vec3_length(rk_vec3_sub(m, q)));
		const rk_node *na = &sa->nodes.data[i], *nb = &sb->nodes.data[i];
		if (!na->mesh || !nb->mesh || na->mesh->vertex_count != nb->mesh->vertex_count) continue;
		size_t nv = na->mesh->vertex_count;
		rk_vec3 *va = (rk_vec3 *)malloc((nv + 1) * sizeof(rk_vec3));
		rk_vec3 *vb = (rk_vec3 *)malloc((nv + 1) * sizeof(rk_vec3));
		if (va && vb && rk_mesh_world_positions_eval(sa, na, &a->pose, va) && rk_mesh_world_positions_eval(sb, nb, &b->pose, vb)) {
			for (size_t v = 0; v < nv; v++) {
				rk_vec3 mv = z_to_y ? (rk_vec3){ va[v].x * k, va[v].z * k, -va[v].y * k } : rk_vec3_scale(va[v], k);
				worst = fmax(worst, rk_vec3_length(rk_vec3_sub(mv, vb[v])));
			}
		} else {
			worst = INFINITY;
		}
		free(va);
		free(vb);
	}
	return worst;
}

static void check_file(rk_test_state *rk_t_, const char *path, const char *clip, double t, double k_expected,
	rk_axes target, bool z_to_y, double tol)
{
	evaluated plain, adj, mod;
	rk_load_opts o = { 0 };
	RK_REQUIRE(eval_at(&plain, path, &o, clip, t));
	o.target_unit_meters = 1.0;
	o.target_axes = target;
	RK_REQUIRE(eval_at(&adj, path, &o, clip, t));
	o.space_conversion = RK_CONVERT_MODIFY_GEOMETRY;
	RK_REQUIRE(eval_at(&mod, path, &o, clip, t));
	double d_adj = compare(&plain, &adj, k_expected, z_to_y);
	double d_mod = compare(&plain, &mod, k_expected, z_to_y);
	if (!(d_adj <= tol) || !(d_mod <= tol))
		fprintf(stderr, "%s: adjust differs by %g, modify-geometry by %g (tol %g)\n", path, d_adj, d_mod, tol);
	RK_CHECK(d_adj <= tol);
	RK_CHECK(d_mod <= tol);
	RK_CHECK_NEAR(mod.scene->settings.unit_meters, 1.0, 0.0);
	/* MODIFY_GEOMETRY really rewrote the data and left the root's scale alone. */
	rk_trs root = rk_mat4_decompose(mod.scene->root->node_to_parent);
	RK_CHECK_NEAR(fabs(root.scale.x), 1.0, 1e-12);
	for (size_t i = 0; i < mod.scene->meshes.count && k_expected != 1.0; i++) {
		const rk_mesh *ma = &plain.scene->meshes.data[i], *mm = &mod.scene->meshes.data[i];
		if (ma->vertex_count) RK_CHECK_NEAR(rk_mesh_position(mm, 0).x, rk_mesh_position(ma, 0).x * k_expected, 1e-9);
	}
	release(&plain);
	release(&adj);
	release(&mod);
}

RK_TEST(test_fbx_centimetres_to_metres_animated)
{
	const char *shared = rk_test_shared_dir();
	if (!shared) RK_SKIP("../shared not found (set RIGKIT_SHARED_DIR)");
	char path[4096];
	/* ybot.fbx: cm, Y up, two skinned meshes; ybot@kick: animated hips translation. */
	snprintf(path, sizeof(path), "%s/assets/ybot.fbx", shared);
	check_file(rk_t_, path, NULL, 0.0, 0.01, RK_AXES_RIGHT_HANDED_Y_UP, false, 1e-9);
	snprintf(path, sizeof(path), "%s/assets/ybot@kick.fbx", shared);
	check_file(rk_t_, path, "mixamo.com", 0.9, 0.01, RK_AXES_RIGHT_HANDED_Y_UP, false, 1e-9);
}

RK_TEST(test_fbx_z_up_to_y_up)
{
	const char *shared = rk_test_shared_dir();
	if (!shared) RK_SKIP("../shared not found (set RIGKIT_SHARED_DIR)");
	char path[4096];
	/* blender_340_z_up: a Z-up Blender export (manifest file_info: unit 0.01? read from the file). */
	snprintf(path, sizeof(path), "%s/conformance/data/blender_340_z_up_7400_binary.fbx", shared);
	rk_error err;
	rk_scene *s = rk_load_file(path, NULL, &err);
	if (!s) RK_SKIP("blender_340_z_up_7400_binary.fbx not found");
	double k = s->settings.unit_meters; /* to metres */
	bool z_up = rk_axes_equal(s->settings.axes, RK_AXES_RIGHT_HANDED_Z_UP);
	rk_scene_free(s);
	RK_REQUIRE(z_up);
	check_file(rk_t_, path, NULL, 0.0, k, RK_AXES_RIGHT_HANDED_Y_UP, true, 1e-9);
}

RK_TEST(test_gltf_metres_to_centimetres_animated)
{
	const char *shared = rk_test_shared_dir();
	if (!shared) RK_SKIP("../shared not found (set RIGKIT_SHARED_DIR)");
	char path[4096];
	snprintf(path, sizeof(path), "%s/assets/Soldier.glb", shared);
	evaluated plain, adj, mod;
	rk_load_opts o = { 0 };
	RK_REQUIRE(eval_at(&plain, path, &o, "Walk", 0.4));
	o.target_unit_meters = 0.01;
	RK_REQUIRE(eval_at(&adj, path, &o, "Walk", 0.4));
	o.space_conversion = RK_CONVERT_MODIFY_GEOMETRY;
	RK_REQUIRE(eval_at(&mod, path, &o, "Walk", 0.4));
	double d_adj = compare(&plain, &adj, 100.0, false), d_mod = compare(&plain, &mod, 100.0, false);
	RK_CHECK(d_adj <= 1e-7);
	RK_CHECK(d_mod <= 1e-7);
	if (!(d_mod <= 1e-7)) fprintf(stderr, "Soldier: adjust %g, modify %g\n", d_adj, d_mod);
	release(&plain);
	release(&adj);
	release(&mod);
}

RK_TEST(test_mirroring_stays_at_root)
{
	const char *shared = rk_test_shared_dir();
	if (!shared) RK_SKIP("../shared not found (set RIGKIT_SHARED_DIR)");
	char path[4096];
	snprintf(path, sizeof(path), "%s/assets/ybot.fbx", shared);
	rk_error err;
	rk_load_opts o = { 0 };
	o.target_axes = RK_AXES_LEFT_HANDED_Y_UP;
	o.space_conversion = RK_CONVERT_MODIFY_GEOMETRY;
	rk_scene *s = rk_load_file(path, &o, &err);
	RK_REQUIRE(s);
	/* Right- to left-handed Y up flips Z: det(root) = -1. */
	RK_CHECK_NEAR(rk_mat4_determinant3(s->root->node_to_parent), -1.0, 1e-12);
	rk_scene_free(s);
}

RK_TEST_MAIN(
	RK_TEST_ENTRY(test_fbx_centimetres_to_metres_animated),
	RK_TEST_ENTRY(test_fbx_z_up_to_y_up),
	RK_TEST_ENTRY(test_gltf_metres_to_centimetres_animated),
	RK_TEST_ENTRY(test_mirroring_stays_at_root))
