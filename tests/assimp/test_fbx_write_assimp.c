/* tests/assimp/test_fbx_write_assimp.c - Assimp (Debian libassimp-dev, its
 * own FBX importer) reads rigkit's FBX files: no error, and the node, mesh
 * and animation counts rigkit wrote. Built only when CMake finds assimp
 * (CMakeLists.txt, "FBX writer oracles"); files: the committed fixtures, the
 * demo characters and, when ../shared is present, its assets, written in
 * memory as binary FBX 7400 and 7500.
 *   nodes:      Assimp's root + one node per rigkit node below the synthetic
 *               root, plus Assimp's "$AssimpFbx$" helper nodes only where the
 *               scene has pivots, offsets or pre/post rotations;
 *   meshes:     Assimp makes one mesh per material used by a mesh node's
 *               faces (faces without a material count as one more);
 *   animations: one per clip with tracks. */
#include "rk_test.h"

#include <assimp/cimport.h>
#include <assimp/postprocess.h>
#include <assimp/scene.h>
#include <rigkit/demo.h>
#include <rigkit/export.h>
#include <rigkit/load.h>

#include <stdlib.h>
#include <string.h>

static size_t count_nodes(const struct aiNode *n, size_t *helpers)
{
	size_t c = 1;
	if (strstr(n->mName.data, "$AssimpFbx$")) (*helpers)++;
	for (unsigned i = 0; i < n->mNumChildren; i++) c += count_nodes(n->mChildren[i], helpers);
	return c;
}

static size_t expected_meshes(const rk_scene *s)
{
	size_t total = 0;
	for (size_t i = 0; i < s->nodes.count; i++) {
		const rk_node *n = &s->nodes.data[i];
		if (!n->mesh || !n->mesh->face_count) continue;
		rk_material_ref_list slots = rk_node_material_slots(n);
		size_t used = 0;
		bool none = false;
		for (size_t k = 0; k < slots.count; k++) {
			bool any = false;
			for (size_t f = 0; f < n->mesh->face_count && !any; f++) any = rk_node_face_slot(n, f) == k;
			used += any;
		}
		for (size_t f = 0; f < n->mesh->face_count && !none; f++) none = rk_node_face_slot(n, f) == RK_NO_SLOT;
		total += used + (none || !used ? 1 : 0);
	}
	return total;
}

static void check_file(rk_test_state *rk_t_, const rk_scene *s, const char *what)
{
	for (int v = 0; v < 2; v++) {
		rk_error err;
		void *data;
		size_t size;
		rk_fbx_write_opts o = { .version = v ? 7500 : 7400 };
		RK_REQUIRE(rk_fbx_write_memory(s, &o, &data, &size, &err));
		const struct aiScene *a = aiImportFileFromMemory((const char *)data, (unsigned)size, 0, "fbx");
		if (!a) fprintf(stderr, "%s: Assimp: %s\n", what, aiGetErrorString());
		RK_REQUIRE(a != NULL);
		size_t helpers = 0, nodes = count_nodes(a->mRootNode, &helpers);
		size_t clips = 0;
		for (size_t c = 0; c < s->clips.count; c++) {
			size_t tracks = 0;
			for (size_t l = 0; l < s->clips.data[c].layer_count; l++) tracks += s->clips.data[c].layers[l].track_count;
			clips += tracks > 0;
		}
		fprintf(stderr, "%s %u: %zu nodes (%zu helpers), %u meshes, %u animations; rigkit %zu nodes, %zu meshes, %zu clips\n",
			what, o.version, nodes, helpers, a->mNumMeshes, a->mNumAnimations, s->nodes.count - 1, expected_meshes(s), clips);
		bool chain = false;   /* pivots, offsets, pre/post rotations: Assimp keeps them as helper nodes */
		for (size_t i = 1; i < s->nodes.count; i++) {
			const rk_transform_props *p = &s->nodes.data[i].props;
			rk_vec3 z = { 0, 0, 0 };
			const rk_vec3 *vs[6] = { &p->rotation_offset, &p->rotation_pivot, &p->scaling_offset, &p->scaling_pivot,
				&p->pre_rotation, &p->post_rotation };
			for (int k = 0; k < 6; k++) chain |= s->nodes.data[i].has_fbx_props && memcmp(vs[k], &z, sizeof(z)) != 0;
		}
		if (!chain) RK_CHECK_INT(helpers, 0);
		RK_CHECK_INT(nodes - helpers, s->nodes.count);    /* Assimp's root stands for rigkit's synthetic root */
		RK_CHECK_INT(a->mNumMeshes, expected_meshes(s));
		RK_CHECK_INT(a->mNumAnimations, clips);
		aiReleaseImport(a);
		rk_fbx_memory_free(data);
	}
}

RK_TEST(fixtures_and_demo)
{
	static const char *const files[] = { "rig_7400.fbx", "rig.glb", "humanoid_bind.glb" };
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char path[1024];
		snprintf(path, sizeof(path), RK_SOURCE_DIR "/tests/fixtures/%s", files[i]);
		rk_error err;
		rk_scene *s = rk_load_file(path, NULL, &err);
		RK_REQUIRE(s != NULL);
		check_file(rk_t_, s, files[i]);
		rk_scene_free(s);
	}
	for (int k = 0; k < RK_DEMO_KIND_COUNT_; k++) {
		rk_error err;
		rk_scene *s = rk_demo_scene((rk_demo_kind)k, NULL, &err);
		RK_REQUIRE(s != NULL);
		check_file(rk_t_, s, k ? "demo avatar" : "demo source");
		rk_scene_free(s);
	}
}

RK_TEST(shared_assets)
{
	const char *shared = rk_test_shared_dir();
	if (!shared) RK_SKIP("../shared not found");
	static const char *const files[] = { "ybot.fbx", "ybot@kick.fbx", "Xbot.glb", "Soldier.glb", "Flamingo.glb" };
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char path[1024];
		snprintf(path, sizeof(path), "%s/assets/%s", shared, files[i]);
		rk_error err;
		rk_scene *s = rk_load_file(path, NULL, &err);
		RK_REQUIRE(s != NULL);
		check_file(rk_t_, s, files[i]);
		rk_scene_free(s);
	}
}

RK_TEST_MAIN(RK_TEST_ENTRY(fixtures_and_demo), RK_TEST_ENTRY(shared_assets))
