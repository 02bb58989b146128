/*
 * tests/test_skin_conformance.c - the fast float skinning path (skin.h) on
 * every skinned entry of the FBX conformance corpus.
 *
 * The corpus checks rigkit's double-precision reference deformation
 * (anim.h rk_mesh_world_positions_eval) against reference OBJ exports from
 * Maya, Max and Blender (tests/test_conformance.c). Here the same entries go
 * through the runtime path a game would use: skinning matrices from
 * rk_skin_matrices_eval converted to float, the top-4 influences of each
 * vertex renormalised, and rk_skin_run on float positions. Every vertex whose
 * influences all fit in 4 must land within 1e-5 of the mesh extent of the
 * reference (so transitively within the corpus tolerance of the OBJ).
 * Vertices with more than 4 influences are skipped (top-4 truncation changes
 * them by design), as are linear-blend-incompatible methods (dual
 * quaternion) and meshes with blend shapes (the fast path skins the base
 * mesh only).
 */
#include "rk_test.h"

#include <rigkit/rigkit.h>
#include <rigkit/skin.h>

#include <cjson/cJSON.h>

static char *read_text(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f) return NULL;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *d = (char *)malloc((size_t)n + 1);
	if (d && fread(d, 1, (size_t)n, f) != (size_t)n) {
		free(d);
		d = NULL;
	}
	if (d) d[n] = 0;
	fclose(f);
	return d;
}

typedef struct skin_stats { size_t entries, nodes, vertices, skipped_vertices; double worst; } skin_stats;

/* Compares the fast path with the reference for one skinned node. */
static void check_node(rk_test_state *rk_t_, const rk_scene *s, const rk_node *n, const rk_pose *pose, const char *id,
	skin_stats *st)
{
	const rk_mesh *m = n->mesh;
	const rk_skin_deformer *sk = n->skin;
	size_t nv = m->vertex_count, nj = sk->joint_count;
	if (!nv || !nj || sk->vertex_count != nv) return;
	rk_vec3 *ref = (rk_vec3 *)malloc(nv * sizeof(rk_vec3));
	rk_mat4 *mats = (rk_mat4 *)malloc(nj * sizeof(rk_mat4));
	float *fm = (float *)malloc(nj * 16 * sizeof(float));
	float *pos = (float *)malloc(nv * 3 * sizeof(float));
	float *out = (float *)malloc(nv * 3 * sizeof(float));
	uint16_t *joints = (uint16_t *)calloc(nv * 4, sizeof(uint16_t));
	float *weights = (float *)calloc(nv * 4, sizeof(float));
	unsigned char *usable = (unsigned char *)calloc(nv, 1);
	if (!ref || !mats || !fm || !pos || !out || !joints || !weights || !usable) goto done;
	if (!rk_mesh_world_positions_eval(s, n, pose, ref) || !rk_skin_matrices_eval(s, sk, pose, n, mats)) {
		fprintf(stderr, "%s: reference evaluation failed for %s\n", id, n->name);
		rk_t_->failed++;
		goto done;
	}
	for (size_t j = 0; j < nj; j++)
		for (int k = 0; k < 16; k++) fm[j * 16 + k] = (float)mats[j].m[k];
	double lo[3] = { INFINITY, INFINITY, INFINITY }, hi[3] = { -INFINITY, -INFINITY, -INFINITY };
	for (size_t v = 0; v < nv; v++) {
		pos[v * 3] = (float)rk_mesh_position(m, v).x;
		pos[v * 3 + 1] = (float)rk_mesh_position(m, v).y;
		pos[v * 3 + 2] = (float)rk_mesh_position(m, v).z;
		double r[3] = { ref[v].x, ref[v].y, ref[v].z };
		for (int k = 0; k < 3; k++) {
			if (r[k] < lo[k]) lo[k] = r[k];
			if (r[k] > hi[k]) hi[k] = r[k];
		}
		uint32_t b = sk->weight_begin[v], e = sk->weight_begin[v + 1];
		double sum = 0.0;
		size_t used = 0;
		for (uint32_t k = b; k < e; k++) {
			if (sk->joints[sk->weights[k].joint].node == NULL || !(sk->weights[k].weight > 0.0f)) continue;
			if (used == 4) { used = 5; break; }
			joints[v * 4 + used] = (uint16_t)sk->weights[k].joint;
			weights[v * 4 + used] = sk->weights[k].weight;
			sum += sk->weights[k].weight;
			used++;
		}
		if (used == 0 || used > 4 || !(sum > 0.0)) continue; /* unweighted or truncated: not comparable */
		for (size_t k = 0; k < used; k++) weights[v * 4 + k] = (float)(weights[v * 4 + k] / sum);
		usable[v] = 1;
	}
	double extent = 0.0;
	for (int k = 0; k < 3; k++)
		if (hi[k] - lo[k] > extent) extent = hi[k] - lo[k];
	if (!(extent > 0.0)) extent = 1.0;
	rk_skin_job job = { 0 };
	job.vertex_count = nv;
	job.positions = pos;
	job.joints = joints;
	job.weights = weights;
	job.matrices = fm;
	job.joint_count = nj;
	job.out_positions = out;
	rk_error err;
	if (!rk_skin_validate(&job, &err) || !rk_skin_run(&job)) {
		fprintf(stderr, "%s: %s: skin job rejected: %s\n", id, n->name, err.message);
		rk_t_->failed++;
		goto done;
	}
	double worst = 0.0;
	size_t worst_v = 0;
	for (size_t v = 0; v < nv; v++) {
		if (!usable[v]) {
			st->skipped_vertices++;
			continue;
		}
		double d = fmax(fabs(out[v * 3] - ref[v].x), fmax(fabs(out[v * 3 + 1] - ref[v].y), fabs(out[v * 3 + 2] - ref[v].z)));
		if (d > worst) { worst = d; worst_v = v; }
		st->vertices++;
	}
	st->nodes++;
	if (worst / extent > st->worst) st->worst = worst / extent;
	if (worst > 1e-5 * extent) {
		fprintf(stderr, "%s: %s: vertex %zu differs by %g (extent %g)\n", id, n->name, worst_v, worst, extent);
		rk_t_->failed++;
	}
done:
	free(ref); free(mats); free(fm); free(pos); free(out); free(joints); free(weights); free(usable);
}

RK_TEST(test_fast_skinning_on_corpus)
{
	const char *shared = rk_test_shared_dir();
	if (!shared) RK_SKIP("../shared not found (set RIGKIT_SHARED_DIR)");
	char path[4096];
	snprintf(path, sizeof(path), "%s/conformance/manifest.json", shared);
	char *text = read_text(path);
	if (!text) RK_SKIP("conformance/manifest.json not found");
	cJSON *man = cJSON_Parse(text);
	free(text);
	RK_REQUIRE(man && cJSON_IsArray(man));
	skin_stats st = { 0 };
	cJSON *e;
	cJSON_ArrayForEach(e, man) {
		cJSON *feat = cJSON_GetObjectItemCaseSensitive(e, "features");
		bool skinned = false, out_of_scope = false;
		cJSON *f;
		cJSON_ArrayForEach(f, feat) {
			if (cJSON_IsString(f) && !strcmp(f->valuestring, "skinning")) skinned = true;
			if (cJSON_IsString(f) && !strcmp(f->valuestring, "out_of_scope")) out_of_scope = true;
		}
		const char *mode = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "mode"));
		if (!skinned || out_of_scope || !mode || !strcmp(mode, "pose")) continue;
		const char *id = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "id"));
		const char *fbx = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "fbx"));
		const char *stack = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "stack"));
		cJSON *time = cJSON_GetObjectItemCaseSensitive(e, "time");
		if (!id || !fbx) continue;
		snprintf(path, sizeof(path), "%s/conformance/data/%s", shared, fbx);
		rk_error err;
		rk_scene *s = rk_load_file(path, NULL, &err);
		if (!s) {
			fprintf(stderr, "%s: load failed: %s\n", id, err.message);
			rk_t_->failed++;
			continue;
		}
		size_t ps = rk_pose_memory_size(s);
		void *mem = malloc(ps);
		rk_pose pose;
		if (mem && rk_pose_init(&pose, s, mem, ps)) {
			rk_pose_eval_job job = { 0 };
			job.scene = s;
			job.pose = &pose;
			if (!strcmp(mode, "animated") && stack) {
				job.clip = rk_scene_find_clip(s, stack);
				job.time = cJSON_IsNumber(time) ? time->valuedouble : 0.0;
			}
			if (rk_pose_eval_run(&job)) {
				st.entries++;
				for (size_t i = 0; i < s->nodes.count; i++) {
					const rk_node *n = &s->nodes.data[i];
					if (!n->mesh || !n->skin || n->skin->method != RK_SKINNING_LINEAR) continue;
					if (n->mesh->blend_channels.count) continue;
					check_node(rk_t_, s, n, &pose, id, &st);
				}
			}
		}
		free(mem);
		rk_scene_free(s);
	}
	cJSON_Delete(man);
	printf("fast skinning: %zu entries, %zu skinned nodes, %zu vertices compared (%zu skipped: >4 or no influences), "
		"worst %.3g of the mesh extent\n", st.entries, st.nodes, st.vertices, st.skipped_vertices, st.worst);
	RK_CHECK(st.nodes >= 50);
}

RK_TEST_MAIN(RK_TEST_ENTRY(test_fast_skinning_on_corpus))
