/*
 * tests/test_gltf_write.c - the glTF 2.0 / GLB writer (include/rigkit/export.h).
 *
 * Expectations are independent of the writer:
 *   - the output is parsed here with cJSON and a small glTF evaluator written
 *     for this test from the glTF 2.0 specification (node TRS -> world
 *     matrices, accessors, skinning as sum w * jointWorld * IBM * v, morph
 *     targets), never with rigkit's own glTF reader;
 *   - hand-built scenes have hand-derived results (an L-shaped hexagon has
 *     area 3 by the shoelace formula; baked geometric transforms; skinning by
 *     the formula in scene.h written out here);
 *   - shared assets are compared with rigkit's scene model and its anim
 *     module (rk_mesh_world_positions_eval, rk_pose_eval_job), converted to
 *     glTF space by the matrix C documented in gltf.h, computed here from the
 *     scene settings;
 *   - round trips (asset -> GLB -> scene -> GLB -> scene) go through the
 *     glTF reader and compare world matrices, skinned vertices and
 *     animation samples.
 * The Khronos glTF-Validator and three.js checks live in
 * tests/test_gltf_interop.sh, which runs this program with
 * RK_GLTF_EXPORT_DIR=<dir> and the filter "export_interop": that test writes
 * every output GLB plus NAME.expected.json (node world positions and mesh
 * bounding boxes at 10 times per clip, from rigkit's evaluation) for
 * tests/node/three_check.mjs.
 */
#include "rk_test.h"

#include "rigkit/anim.h"
#include "rigkit/load.h"
#include "rigkit/export.h"
#include "rigkit/mesh.h"
#include "rigkit/scene.h"
#include "export/gltf/gltf_write_internal.h"
#include "scene/scene_internal.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <meshoptimizer.h>
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---------------------------------------------------------------------------
 * A small independent glTF reader for the checks
 * ------------------------------------------------------------------------- */

typedef struct tg_doc {
	cJSON *json;
	const unsigned char *bin;
	size_t bin_size;
	char error[256];
} tg_doc;

static uint32_t tg_u32(const unsigned char *p)
{
	return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

static bool tg_fail(tg_doc *d, const char *msg)
{
	snprintf(d->error, sizeof(d->error), "%s", msg);
	return false;
}

/* Parses a GLB, checking the container rules of the spec (header length,
 * chunk order and types, 4-byte alignment, padding bytes). */
static bool tg_parse_glb(const void *data, size_t size, tg_doc *d)
{
	memset(d, 0, sizeof(*d));
	const unsigned char *p = (const unsigned char *)data;
	if (size < 20 || memcmp(p, "glTF", 4) != 0) return tg_fail(d, "not GLB");
	if (tg_u32(p + 4) != 2) return tg_fail(d, "GLB version is not 2");
	if (tg_u32(p + 8) != size) return tg_fail(d, "GLB length does not match the size");
	if (size % 4 != 0) return tg_fail(d, "GLB size not a multiple of 4");
	uint32_t jl = tg_u32(p + 12);
	if (memcmp(p + 16, "JSON", 4) != 0 || jl % 4 != 0 || 20 + (size_t)jl > size) return tg_fail(d, "bad JSON chunk");
	/* padding must be spaces */
	size_t end = 20 + jl;
	d->json = cJSON_ParseWithLength((const char *)p + 20, jl);
	if (!d->json) return tg_fail(d, "JSON chunk does not parse");
	if (end < size) {
		if (size - end < 8) return tg_fail(d, "truncated BIN chunk header");
		uint32_t bl = tg_u32(p + end);
		if (memcmp(p + end + 4, "BIN\0", 4) != 0 || bl % 4 != 0 || end + 8 + (size_t)bl != size)
			return tg_fail(d, "bad BIN chunk");
		d->bin = p + end + 8;
		d->bin_size = bl;
	}
	return true;
}

static void tg_free(tg_doc *d)
{
	cJSON_Delete(d->json);
	d->json = NULL;
}

static cJSON *tg_get(const cJSON *o, const char *k) { return cJSON_GetObjectItemCaseSensitive(o, k); }
static int tg_count(const cJSON *a) { return a ? cJSON_GetArraySize(a) : 0; }
static cJSON *tg_at(const cJSON *o, const char *k, int i) { return cJSON_GetArrayItem(tg_get(o, k), i); }
static int tg_int(const cJSON *o, const char *k, int def)
{
	const cJSON *v = tg_get(o, k);
	return cJSON_IsNumber(v) ? (int)v->valuedouble : def;
}

static double tg_num(const cJSON *o, const char *k, double def)
{
	const cJSON *v = tg_get(o, k);
	return cJSON_IsNumber(v) ? v->valuedouble : def;
}

/* Reads accessor `index` as doubles (count * components). NULL on error. */
static double *tg_accessor(const tg_doc *d, int index, int *components, size_t *count)
{
	const cJSON *a = tg_at(d->json, "accessors", index);
	if (!a) return NULL;
	const char *type = cJSON_GetStringValue(tg_get(a, "type"));
	int comp = !type ? 0 : !strcmp(type, "SCALAR") ? 1 : !strcmp(type, "VEC2") ? 2 : !strcmp(type, "VEC3") ? 3
		: !strcmp(type, "VEC4") ? 4 : !strcmp(type, "MAT4") ? 16 : 0;
	int ct = tg_int(a, "componentType", 0);
	size_t n = (size_t)tg_int(a, "count", 0);
	int vi = tg_int(a, "bufferView", -1);
	const cJSON *v = tg_at(d->json, "bufferViews", vi);
	if (!comp || !v || tg_get(v, "byteStride")) return NULL;
	size_t csize = ct == 5126 || ct == 5125 ? 4 : ct == 5123 ? 2 : ct == 5121 ? 1 : 0;
	size_t off = (size_t)tg_int(v, "byteOffset", 0) + (size_t)tg_int(a, "byteOffset", 0);
	size_t len = (size_t)tg_int(v, "byteLength", 0);
	if (!csize || n * comp * csize > len || off + len > d->bin_size || off % csize) return NULL;
	double *out = (double *)malloc((n * comp + 1) * sizeof(double));
	const unsigned char *p = d->bin + off;
	for (size_t i = 0; i < n * (size_t)comp; i++) {
		if (ct == 5126) { float f; memcpy(&f, p + i * 4, 4); out[i] = f; }
		else if (ct == 5125) { uint32_t u; memcpy(&u, p + i * 4, 4); out[i] = u; }
		else if (ct == 5123) { uint16_t u; memcpy(&u, p + i * 2, 2); out[i] = u; }
		else out[i] = p[i];
	}
	*components = comp;
	*count = n;
	return out;
}

static rk_mat4 tg_node_local(const cJSON *node)
{
	const cJSON *m = tg_get(node, "matrix");
	if (m) {
		rk_mat4 r;
		for (int i = 0; i < 16; i++) r.m[i] = cJSON_GetArrayItem(m, i)->valuedouble;
		return r;
	}
	rk_trs t = rk_trs_identity();
	const cJSON *a;
	if ((a = tg_get(node, "translation")))
		t.translation = (rk_vec3){ cJSON_GetArrayItem(a, 0)->valuedouble, cJSON_GetArrayItem(a, 1)->valuedouble, cJSON_GetArrayItem(a, 2)->valuedouble };
	if ((a = tg_get(node, "rotation")))
		t.rotation = (rk_quat){ cJSON_GetArrayItem(a, 0)->valuedouble, cJSON_GetArrayItem(a, 1)->valuedouble,
			cJSON_GetArrayItem(a, 2)->valuedouble, cJSON_GetArrayItem(a, 3)->valuedouble };
	if ((a = tg_get(node, "scale")))
		t.scale = (rk_vec3){ cJSON_GetArrayItem(a, 0)->valuedouble, cJSON_GetArrayItem(a, 1)->valuedouble, cJSON_GetArrayItem(a, 2)->valuedouble };
	return rk_mat4_from_trs(t);
}

static void tg_world_rec(const tg_doc *d, int n, rk_mat4 parent, rk_mat4 *out, int depth)
{
	const cJSON *node = tg_at(d->json, "nodes", n);
	if (!node || depth > 64) return;
	out[n] = rk_mat4_mul(parent, tg_node_local(node));
	const cJSON *ch = tg_get(node, "children");
	for (int i = 0; i < tg_count(ch); i++) tg_world_rec(d, (int)cJSON_GetArrayItem(ch, i)->valuedouble, out[n], out, depth + 1);
}

/* World matrices of every node (array of tg_count(nodes)), from scene 0. */
static rk_mat4 *tg_worlds(const tg_doc *d)
{
	int n = tg_count(tg_get(d->json, "nodes"));
	rk_mat4 *w = (rk_mat4 *)calloc((size_t)(n ? n : 1), sizeof(rk_mat4));
	for (int i = 0; i < n; i++) w[i] = rk_mat4_identity();
	const cJSON *roots = tg_get(tg_at(d->json, "scenes", tg_int(d->json, "scene", 0)), "nodes");
	for (int i = 0; i < tg_count(roots); i++) tg_world_rec(d, (int)cJSON_GetArrayItem(roots, i)->valuedouble, rk_mat4_identity(), w, 0);
	return w;
}

/* World positions of every vertex of node `n`'s mesh (all primitives, in
 * order), per the glTF spec: morph targets with node (else mesh) weights,
 * then skinning sum w * world(joint) * IBM * v, or world(node) * v. */
static rk_vec3 *tg_mesh_world(const tg_doc *d, const rk_mat4 *worlds, int n, const double *weights_override, size_t *out_count)
{
	const cJSON *node = tg_at(d->json, "nodes", n);
	const cJSON *mesh = tg_at(d->json, "meshes", tg_int(node, "mesh", -1));
	*out_count = 0;
	if (!mesh) return NULL;
	const cJSON *prims = tg_get(mesh, "primitives");
	size_t total = 0;
	for (int p = 0; p < tg_count(prims); p++) {
		const cJSON *acc = tg_at(d->json, "accessors", tg_int(tg_get(cJSON_GetArrayItem(prims, p), "attributes"), "POSITION", -1));
		total += (size_t)tg_int(acc, "count", 0);
	}
	rk_vec3 *out = (rk_vec3 *)calloc(total ? total : 1, sizeof(rk_vec3));
	const cJSON *wts = tg_get(node, "weights") ? tg_get(node, "weights") : tg_get(mesh, "weights");
	int skin_i = tg_int(node, "skin", -1);
	const cJSON *skin = tg_at(d->json, "skins", skin_i);
	rk_mat4 *jm = NULL;
	if (skin) {
		const cJSON *joints = tg_get(skin, "joints");
		int nj = tg_count(joints), comp;
		size_t cnt;
		double *ibm = tg_accessor(d, tg_int(skin, "inverseBindMatrices", -1), &comp, &cnt);
		jm = (rk_mat4 *)calloc((size_t)nj, sizeof(rk_mat4));
		for (int j = 0; j < nj; j++) {
			rk_mat4 m;
			memcpy(m.m, ibm + j * 16, sizeof(m.m));
			jm[j] = rk_mat4_mul(worlds[(int)cJSON_GetArrayItem(joints, j)->valuedouble], m);
		}
		free(ibm);
	}
	size_t o = 0;
	for (int p = 0; p < tg_count(prims); p++) {
		const cJSON *prim = cJSON_GetArrayItem(prims, p);
		const cJSON *attr = tg_get(prim, "attributes");
		int comp;
		size_t cnt, c2;
		double *pos = tg_accessor(d, tg_int(attr, "POSITION", -1), &comp, &cnt);
		const cJSON *targets = tg_get(prim, "targets");
		for (int t = 0; t < tg_count(targets); t++) {
			double wt = weights_override ? weights_override[t] : wts ? cJSON_GetArrayItem(wts, t)->valuedouble : 0.0;
			if (wt == 0.0) continue;
			double *dp = tg_accessor(d, tg_int(cJSON_GetArrayItem(targets, t), "POSITION", -1), &comp, &c2);
			for (size_t i = 0; dp && i < cnt * 3; i++) pos[i] += wt * dp[i];
			free(dp);
		}
		double *jo = skin ? tg_accessor(d, tg_int(attr, "JOINTS_0", -1), &comp, &c2) : NULL;
		double *we = skin ? tg_accessor(d, tg_int(attr, "WEIGHTS_0", -1), &comp, &c2) : NULL;
		for (size_t i = 0; i < cnt; i++) {
			rk_vec3 v = { pos[i * 3], pos[i * 3 + 1], pos[i * 3 + 2] };
			if (skin && jo && we) {
				rk_vec3 s = { 0, 0, 0 };
				for (int k = 0; k < 4; k++) {
					double wk = we[i * 4 + k];
					if (wk == 0.0) continue;
					s = rk_vec3_add(s, rk_vec3_scale(rk_mat4_transform_point(jm[(int)jo[i * 4 + k]], v), wk));
				}
				out[o++] = s;
			} else {
				out[o++] = rk_mat4_transform_point(worlds[n], v);
			}
		}
		free(pos);
		free(jo);
		free(we);
	}
	free(jm);
	*out_count = o;
	return out;
}

/* ---------------------------------------------------------------------------
 * Helpers
 * ------------------------------------------------------------------------- */

/* glTF space conversion C, as gltf.h documents it. */
static rk_mat4 conversion_of(const rk_scene *s)
{
	rk_mat4 c = rk_mat4_identity();
	if (rk_axes_valid(s->settings.axes)) c = rk_axes_conversion(s->settings.axes, RK_AXES_RIGHT_HANDED_Y_UP);
	double u = s->settings.unit_meters > 0.0 ? s->settings.unit_meters : 1.0;
	return rk_mat4_mul(rk_mat4_scaling((rk_vec3){ u, u, u }), c);
}

static int cmp_x(const void *a, const void *b)
{
	double x = ((const rk_vec3 *)a)->x, y = ((const rk_vec3 *)b)->x;
	return x < y ? -1 : x > y;
}

/* Largest distance from a point of `a` to its nearest point of `b` (max-norm),
 * looked up only within `window`; returns INFINITY if some point has none. */
static double worst_nearest(const rk_vec3 *a, size_t na, const rk_vec3 *b, size_t nb, double window)
{
	rk_vec3 *s = (rk_vec3 *)malloc((nb ? nb : 1) * sizeof(rk_vec3));
	memcpy(s, b, nb * sizeof(rk_vec3));
	qsort(s, nb, sizeof(rk_vec3), cmp_x);
	double worst = 0.0;
	for (size_t i = 0; i < na; i++) {
		size_t lo = 0, hi = nb;
		while (lo < hi) {
			size_t mid = (lo + hi) / 2;
			if (s[mid].x < a[i].x - window) lo = mid + 1;
			else hi = mid;
		}
		double best = INFINITY;
		for (size_t k = lo; k < nb && s[k].x <= a[i].x + window; k++) {
			double dd = fmax(fabs(s[k].x - a[i].x), fmax(fabs(s[k].y - a[i].y), fabs(s[k].z - a[i].z)));
			if (dd < best) best = dd;
		}
		if (best > worst) worst = best;
	}
	free(s);
	return worst;
}

static double mat_rel_diff(rk_mat4 a, rk_mat4 b)
{
	double mag = 1.0;
	for (int i = 0; i < 16; i++) if (fabs(a.m[i]) > mag) mag = fabs(a.m[i]);
	return rk_mat4_max_diff(a, b) / mag;
}

/* World positions (glTF space) of the vertices of node's mesh used by faces. */
static rk_vec3 *rk_face_vertices_world(const rk_scene *s, const rk_node *n, const rk_pose *pose, rk_mat4 c, size_t *count)
{
	const rk_mesh *m = n->mesh;
	rk_vec3 *all = (rk_vec3 *)malloc((m->vertex_count ? m->vertex_count : 1) * sizeof(rk_vec3));
	*count = 0;
	if (!rk_mesh_world_positions_eval(s, n, pose, all)) {
		free(all);
		return NULL;
	}
	char *used = (char *)calloc(m->vertex_count ? m->vertex_count : 1, 1);
	for (size_t f = 0; f < m->face_count; f++) {
		if (m->faces[f].index_count < 3) continue;
		for (uint32_t k = 0; k < m->faces[f].index_count; k++) {
			uint32_t v = m->vertex_indices[m->faces[f].index_begin + k];
			if (v < m->vertex_count) used[v] = 1;
		}
	}
	rk_vec3 *out = (rk_vec3 *)malloc((m->vertex_count ? m->vertex_count : 1) * sizeof(rk_vec3));
	for (size_t v = 0; v < m->vertex_count; v++) if (used[v]) out[(*count)++] = rk_mat4_transform_point(c, all[v]);
	free(used);
	free(all);
	return out;
}

static bool write_mem(const rk_scene *s, const rk_gltf_write_opts *o, void **data, size_t *size)
{
	rk_error err;
	memset(&err, 0, sizeof(err));
	bool ok = rk_gltf_write_memory(s, o, data, size, &err);
	if (!ok) {
		char msg[1024];
		rk_error_format(msg, sizeof(msg), &err);
		fprintf(stderr, "write failed: %s\n", msg);
	}
	return ok;
}

/* Names of the shared assets (*.glb, *.fbx), sorted; count in *n. */
static char **shared_assets(const char *dir, size_t *n)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/assets", dir);
	DIR *d = opendir(path);
	char **names = NULL;
	*n = 0;
	if (!d) return NULL;
	struct dirent *e;
	while ((e = readdir(d))) {
		size_t l = strlen(e->d_name);
		if (l < 5 || (strcmp(e->d_name + l - 4, ".glb") && strcmp(e->d_name + l - 4, ".fbx"))) continue;
		names = (char **)realloc(names, (*n + 1) * sizeof(char *));
		names[(*n)++] = strdup(e->d_name);
	}
	closedir(d);
	for (size_t i = 1; i < *n; i++)
		for (size_t k = i; k > 0 && strcmp(names[k - 1], names[k]) > 0; k--) {
			char *t = names[k]; names[k] = names[k - 1]; names[k - 1] = t;
		}
	return names;
}

static void free_names(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++) free(names[i]);
	free(names);
}

static rk_scene *load_asset(const char *dir, const char *name)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/assets/%s", dir, name);
	rk_error err;
	memset(&err, 0, sizeof(err));
	rk_scene *s = rk_load_file(path, NULL, &err);
	if (!s) {
		char msg[1024];
		rk_error_format(msg, sizeof(msg), &err);
		fprintf(stderr, "cannot load %s: %s\n", name, msg);
	}
	return s;
}

/* glTF node index of rk node i (the writer's documented numbering). */
static int gltf_node_of(const tg_doc *d, const rk_scene *s, size_t i)
{
	int n = tg_count(tg_get(d->json, "nodes"));
	/* export.h CAMERAS AND LIGHTS: one extra node after the scene's for each
	 * camera / light whose to_node is not the identity */
	for (size_t k = 0; k < s->nodes.count; k++) {
		const rk_node *nd = &s->nodes.data[k];
		if (nd->camera && fabs(fabs(nd->camera->to_node.w) - 1.0) > 1e-12) n--;
		if (nd->light && fabs(fabs(nd->light->to_node.w) - 1.0) > 1e-12) n--;
	}
	bool has_root = (size_t)n == s->nodes.count;
	return has_root ? (int)i : (int)i - 1;
}

/* ---------------------------------------------------------------------------
 * Hand-built scenes
 * ------------------------------------------------------------------------- */

#define TS_MAX 8

typedef struct test_scene {
	rk_scene s;
	rk_node nodes[TS_MAX];
	rk_node *kids[TS_MAX];
	rk_mesh mesh;
	rk_material mats[2];
	rk_material *slots[2];
} test_scene;

static void ts_begin(test_scene *t, size_t n, rk_file_format fmt)
{
	memset(t, 0, sizeof(*t));
	t->s.settings.format = fmt;
	t->s.settings.axes = t->s.settings.original_axes = RK_AXES_RIGHT_HANDED_Y_UP;
	t->s.settings.unit_meters = t->s.settings.original_unit_meters = 1.0;
	t->s.settings.frame_rate = 30.0;
	t->s.settings.creator = "";
	t->s.nodes.data = t->nodes;
	t->s.nodes.count = n;
	t->s.root = &t->nodes[0];
	t->s.source_path = "";
	for (size_t i = 0; i < n; i++) {
		rk_node *nd = &t->nodes[i];
		nd->index = (uint32_t)i;
		nd->name = "";
		nd->kind = i == 0 ? RK_NODE_ROOT : RK_NODE_NULL;
		nd->props = rk_transform_props_default();
		nd->adjust = rk_adjust_transform_identity();
		nd->local = rk_trs_identity();
		nd->attribute_type = "";
		nd->default_uv_set = "";
		nd->visible = true;
		if (i > 0) nd->parent = &t->nodes[0];
	}
}

/* Children lists from parent pointers, then the cached matrices. */
static void ts_finish(test_scene *t)
{
	size_t k = 0;
	for (size_t i = 0; i < t->s.nodes.count; i++) {
		rk_node *nd = &t->nodes[i];
		nd->children.data = &t->kids[k];
		nd->children.count = 0;
		for (size_t c = i + 1; c < t->s.nodes.count; c++)
			if (t->nodes[c].parent == nd) { t->kids[k++] = &t->nodes[c]; nd->children.count++; }
	}
	rki_scene_update_matrices(&t->s);
}

/* L-shaped hexagon, area 3, listed from (2,1) so that a fan from the first
 * corner would be wrong: (2,1) (1,1) (1,2) (0,2) (0,0) (2,0). */
static const double hex2d[6][2] = { { 2, 1 }, { 1, 1 }, { 1, 2 }, { 0, 2 }, { 0, 0 }, { 2, 0 } };

static double shoelace(const double (*p)[2], size_t n)
{
	double a = 0.0;
	for (size_t i = 0; i < n; i++) a += p[i][0] * p[(i + 1) % n][1] - p[(i + 1) % n][0] * p[i][1];
	return a / 2.0;
}

static rk_vec3 hex_point(size_t i, rk_quat q, rk_vec3 o)
{
	return rk_vec3_add(o, rk_quat_rotate(q, (rk_vec3){ hex2d[i][0], hex2d[i][1], 0.0 }));
}

RK_TEST(triangulate_concave_polygons)
{
	/* the hexagon tilted into a general plane */
	rk_quat q = rk_quat_axis_angle((rk_vec3){ 1, 2, 3 }, 0.7);
	rk_vec3 o = { 5, -3, 2 };
	rk_vec3 pts[6];
	for (size_t i = 0; i < 6; i++) pts[i] = hex_point(i, q, o);
	unsigned char scratch[1024];
	uint32_t tri[12];
	RK_REQUIRE(rk_polygon_triangulate_scratch_size(6) <= sizeof(scratch));
	size_t n = rk_polygon_triangulate(tri, pts, 6, NULL, 6, scratch, sizeof(scratch), NULL);
	RK_CHECK_INT(n, 4);
	double expect = shoelace(hex2d, 6);
	RK_CHECK_NEAR(expect, 3.0, 0.0);
	double sum = 0.0;
	for (size_t t = 0; t < n; t++) {
		const double *a = hex2d[tri[t * 3]], *b = hex2d[tri[t * 3 + 1]], *c = hex2d[tri[t * 3 + 2]];
		double area = ((b[0] - a[0]) * (c[1] - a[1]) - (c[0] - a[0]) * (b[1] - a[1])) / 2.0;
		RK_CHECK(area > 0.0); /* same winding as the polygon, no flipped triangle */
		sum += fabs(area);
	}
	RK_CHECK_NEAR(sum, expect, 1e-12);

	/* reversed (clockwise) input keeps its winding */
	rk_vec3 rev[6];
	double rev2d[6][2];
	for (size_t i = 0; i < 6; i++) {
		rev[i] = pts[5 - i];
		rev2d[i][0] = hex2d[5 - i][0];
		rev2d[i][1] = hex2d[5 - i][1];
	}
	n = rk_polygon_triangulate(tri, rev, 6, NULL, 6, scratch, sizeof(scratch), NULL);
	RK_CHECK_INT(n, 4);
	sum = 0.0;
	for (size_t t = 0; t < n; t++) {
		const double *a = rev2d[tri[t * 3]], *b = rev2d[tri[t * 3 + 1]], *c = rev2d[tri[t * 3 + 2]];
		double area = ((b[0] - a[0]) * (c[1] - a[1]) - (c[0] - a[0]) * (b[1] - a[1])) / 2.0;
		RK_CHECK(area < 0.0);
		sum += area;
	}
	RK_CHECK_NEAR(sum, shoelace((const double (*)[2])rev2d, 6), 1e-12);

	/* a comb with 5 teeth (22 corners, 10 of them reflex), area 10 + 5 * 2 */
	static const double comb[22][2] = { { 0, 0 }, { 10, 0 }, { 10, 3 }, { 9, 3 }, { 9, 1 }, { 8, 1 }, { 8, 3 },
		{ 7, 3 }, { 7, 1 }, { 6, 1 }, { 6, 3 }, { 5, 3 }, { 5, 1 }, { 4, 1 }, { 4, 3 }, { 3, 3 }, { 3, 1 },
		{ 2, 1 }, { 2, 3 }, { 1, 3 }, { 1, 1 }, { 0, 1 } };
	rk_vec3 cp[22];
	for (size_t i = 0; i < 22; i++) cp[i] = rk_vec3_add(o, rk_quat_rotate(q, (rk_vec3){ comb[i][0], comb[i][1], 0 }));
	unsigned char scratch2[4096];
	uint32_t tri2[60];
	n = rk_polygon_triangulate(tri2, cp, 22, NULL, 22, scratch2, sizeof(scratch2), NULL);
	RK_CHECK_INT(n, 20);
	sum = 0.0;
	double abs_sum = 0.0;
	for (size_t t = 0; t < n; t++) {
		const double *a = comb[tri2[t * 3]], *b = comb[tri2[t * 3 + 1]], *c = comb[tri2[t * 3 + 2]];
		double area = ((b[0] - a[0]) * (c[1] - a[1]) - (c[0] - a[0]) * (b[1] - a[1])) / 2.0;
		RK_CHECK(area >= -1e-12);
		sum += area;
		abs_sum += fabs(area);
	}
	double comb_area = shoelace(comb, 22);
	RK_CHECK_NEAR(comb_area, 20.0, 0.0);
	RK_CHECK_NEAR(sum, comb_area, 1e-9);
	RK_CHECK_NEAR(abs_sum, comb_area, 1e-9);

	/* a 3000-corner star (every other corner reflex) and a convex 3000-gon */
	for (int convex = 0; convex < 2; convex++) {
		enum { N = 3000 };
		static double st[N][2];
		static rk_vec3 sp[N];
		static uint32_t stri[3 * (N - 2)];
		for (int i = 0; i < N; i++) {
			double r = convex || i % 2 == 0 ? 1.0 : 0.8, ang = 2.0 * RK_PI * i / N;
			st[i][0] = r * cos(ang);
			st[i][1] = r * sin(ang);
			sp[i] = rk_vec3_add(o, rk_quat_rotate(q, (rk_vec3){ st[i][0], st[i][1], 0 }));
		}
		size_t scr_size = rk_polygon_triangulate_scratch_size(N);
		void *scr = malloc(scr_size ? scr_size : 1);
		n = rk_polygon_triangulate(stri, sp, N, NULL, N, scr, scr_size, NULL);
		free(scr);
		RK_CHECK_INT(n, N - 2);
		double pos_sum = 0.0, abs_total = 0.0;
		for (size_t k = 0; k < n; k++) {
			const double *a = st[stri[k * 3]], *b = st[stri[k * 3 + 1]], *c = st[stri[k * 3 + 2]];
			double area = ((b[0] - a[0]) * (c[1] - a[1]) - (c[0] - a[0]) * (b[1] - a[1])) / 2.0;
			pos_sum += area;
			abs_total += fabs(area);
		}
		double star_area = shoelace((const double (*)[2])st, N);
		RK_CHECK_NEAR(pos_sum, star_area, 1e-9);
		RK_CHECK_NEAR(abs_total, star_area, 1e-9);
	}
}

/* One node with the tilted hexagon as its only face. */
static void build_hexagon_scene(test_scene *t, rk_vec3 *pos, uint32_t *vi, rk_face *face, rk_quat q, rk_vec3 o)
{
	ts_begin(t, 2, RK_FORMAT_FBX);
	for (size_t i = 0; i < 6; i++) {
		pos[i] = hex_point(i, q, o);
		vi[i] = (uint32_t)i;
	}
	face->index_begin = 0;
	face->index_count = 6;
	rk_mesh *m = &t->mesh;
	m->name = "hexagon";
	m->vertex_count = 6;
	m->positions_f64 = pos;
	m->index_count = 6;
	m->vertex_indices = vi;
	m->face_count = 1;
	m->faces = face;
	m->triangle_count_hint = 4;
	t->nodes[1].name = "hex";
	t->nodes[1].kind = RK_NODE_MESH;
	t->nodes[1].mesh = m;
	ts_finish(t);
}

RK_TEST(concave_hexagon_through_writer)
{
	test_scene t;
	rk_vec3 pos[6];
	uint32_t vi[6];
	rk_face face;
	rk_quat q = rk_quat_axis_angle((rk_vec3){ 1, 2, 3 }, 0.7);
	build_hexagon_scene(&t, pos, vi, &face, q, (rk_vec3){ 5, -3, 2 });
	void *data;
	size_t size;
	RK_REQUIRE(write_mem(&t.s, NULL, &data, &size));
	tg_doc d;
	bool parsed = tg_parse_glb(data, size, &d);
	if (!parsed) fprintf(stderr, "%s\n", d.error);
	RK_REQUIRE(parsed);
	const cJSON *prim = tg_at(tg_at(d.json, "meshes", 0), "primitives", 0);
	RK_REQUIRE(prim);
	int comp;
	size_t np, ni;
	double *p = tg_accessor(&d, tg_int(tg_get(prim, "attributes"), "POSITION", -1), &comp, &np);
	double *nrm = tg_accessor(&d, tg_int(tg_get(prim, "attributes"), "NORMAL", -1), &comp, &np);
	double *idx = tg_accessor(&d, tg_int(prim, "indices", -1), &comp, &ni);
	RK_REQUIRE(p && idx && nrm);
	RK_CHECK_INT(np, 6);
	RK_CHECK_INT(ni, 12); /* 4 triangles */
	rk_vec3 plane_n = rk_quat_rotate(q, (rk_vec3){ 0, 0, 1 });
	double total = 0.0;
	for (size_t k = 0; k < ni; k += 3) {
		rk_vec3 v[3];
		for (int c = 0; c < 3; c++) {
			size_t i = (size_t)idx[k + (size_t)c];
			v[c] = (rk_vec3){ p[i * 3], p[i * 3 + 1], p[i * 3 + 2] };
		}
		rk_vec3 cr = rk_vec3_cross(rk_vec3_sub(v[1], v[0]), rk_vec3_sub(v[2], v[0]));
		RK_CHECK(rk_vec3_dot(cr, plane_n) > 0.0);
		total += rk_vec3_length(cr) / 2.0;
	}
	RK_CHECK_NEAR(total, shoelace(hex2d, 6), 1e-5);
	/* computed normals: the plane's normal, unit length */
	for (size_t i = 0; i < np; i++) {
		RK_CHECK_NEAR(nrm[i * 3] * plane_n.x + nrm[i * 3 + 1] * plane_n.y + nrm[i * 3 + 2] * plane_n.z, 1.0, 1e-6);
	}
	/* POSITION min/max are the exact float extremes */
	const cJSON *acc = tg_at(d.json, "accessors", tg_int(tg_get(prim, "attributes"), "POSITION", -1));
	for (int c = 0; c < 3; c++) {
		double mn = INFINITY, mx = -INFINITY;
		for (size_t i = 0; i < np; i++) { mn = fmin(mn, p[i * 3 + (size_t)c]); mx = fmax(mx, p[i * 3 + (size_t)c]); }
		RK_CHECK(tg_at(acc, "min", c)->valuedouble == mn);
		RK_CHECK(tg_at(acc, "max", c)->valuedouble == mx);
	}
	free(p); free(nrm); free(idx);
	tg_free(&d);
	rk_gltf_memory_free(data);
}

/* group (translated, rotated) -> mesh node: a quad and a triangle in two
 * material slots, UVs, no normals. FBX format so V is flipped. */
static rk_vec3 hs_pos[5] = { { 0, 0, 0 }, { 1, 0, 0 }, { 1, 1, 0 }, { 0, 1, 0 }, { 2, 0, 0 } };
static uint32_t hs_vi[7] = { 0, 1, 2, 3, 1, 4, 2 };
static rk_face hs_faces[2] = { { 0, 4 }, { 4, 3 } };
static uint32_t hs_fm[2] = { 0, 1 };
static rk_vec2 hs_uv[5] = { { 0, 0 }, { 1, 0 }, { 1, 1 }, { 0, 1 }, { 0.25, 0.75 } };
static uint32_t hs_uvi[7] = { 0, 1, 2, 3, 1, 4, 2 };
static rk_uv_set hs_set;

static void build_hand_scene(test_scene *t)
{
	ts_begin(t, 3, RK_FORMAT_FBX);
	t->nodes[1].name = "group";
	t->nodes[1].local.translation = (rk_vec3){ 1, 2, 3 };
	t->nodes[1].local.rotation = rk_quat_axis_angle((rk_vec3){ 0, 1, 0 }, RK_PI / 2);
	t->nodes[2].name = "shape";
	t->nodes[2].kind = RK_NODE_MESH;
	t->nodes[2].parent = &t->nodes[1];
	t->nodes[2].local.scale = (rk_vec3){ 2, 2, 2 };
	rk_mesh *m = &t->mesh;
	m->name = "quad_and_triangle";
	m->vertex_count = 5;
	m->positions_f64 = hs_pos;
	m->index_count = 7;
	m->vertex_indices = hs_vi;
	m->face_count = 2;
	m->faces = hs_faces;
	m->face_material = hs_fm;
	hs_set.name = "map1";
	hs_set.uv = (rk_attrib_vec2){ true, hs_uv, 5, hs_uvi, NULL };
	m->uv_sets.data = &hs_set;
	m->uv_sets.count = 1;
	t->mats[0].index = 0;
	t->mats[0].name = "paint";
	t->mats[0].base_color = (rk_vec4){ 0.5, 0.25, 1.0, 1.0 };
	t->mats[0].metallic = 0.0;
	t->mats[0].roughness = 0.5;
	t->mats[0].alpha_cutoff = 0.5;
	t->mats[1].index = 1;
	t->mats[1].name = "glow";
	t->mats[1].base_color = (rk_vec4){ 1, 1, 1, 1 };
	t->mats[1].metallic = 1.0;
	t->mats[1].roughness = 1.0;
	t->mats[1].unlit = true;
	t->mats[1].double_sided = true;
	t->mats[1].alpha_mode = RK_ALPHA_MASK;
	t->mats[1].alpha_cutoff = 0.3;
	t->s.materials.data = t->mats;
	t->s.materials.count = 2;
	t->slots[0] = &t->mats[0];
	t->slots[1] = &t->mats[1];
	t->nodes[2].materials.data = t->slots;
	t->nodes[2].materials.count = 2;
	t->nodes[2].mesh = m;
	ts_finish(t);
}

RK_TEST(hand_scene_attributes)
{
	test_scene t;
	build_hand_scene(&t);
	void *data;
	size_t size;
	RK_REQUIRE(write_mem(&t.s, NULL, &data, &size));
	tg_doc d;
	RK_REQUIRE(tg_parse_glb(data, size, &d));
	RK_CHECK_STR(cJSON_GetStringValue(tg_get(tg_get(d.json, "asset"), "version")), "2.0");
	/* identity root: no extra node; names kept */
	RK_CHECK_INT(tg_count(tg_get(d.json, "nodes")), 2);
	RK_CHECK_STR(cJSON_GetStringValue(tg_get(tg_at(d.json, "nodes", 0), "name")), "group");
	RK_CHECK_STR(cJSON_GetStringValue(tg_get(tg_at(d.json, "nodes", 1), "name")), "shape");
	rk_mat4 *wm = tg_worlds(&d);
	RK_CHECK(mat_rel_diff(wm[0], t.nodes[1].node_to_world) < 1e-12);
	RK_CHECK(mat_rel_diff(wm[1], t.nodes[2].node_to_world) < 1e-12);
	free(wm);
	const cJSON *prims = tg_get(tg_at(d.json, "meshes", 0), "primitives");
	RK_REQUIRE(tg_count(prims) == 2);
	int comp;
	size_t n;
	/* slot 0: the quad, 4 shared corners, 2 triangles */
	const cJSON *p0 = cJSON_GetArrayItem(prims, 0), *p1 = cJSON_GetArrayItem(prims, 1);
	RK_CHECK_INT(tg_int(p0, "material", -1), 0);
	RK_CHECK_INT(tg_int(p1, "material", -1), 1);
	double *pos = tg_accessor(&d, tg_int(tg_get(p0, "attributes"), "POSITION", -1), &comp, &n);
	double *uv = tg_accessor(&d, tg_int(tg_get(p0, "attributes"), "TEXCOORD_0", -1), &comp, &n);
	double *nrm = tg_accessor(&d, tg_int(tg_get(p0, "attributes"), "NORMAL", -1), &comp, &n);
	RK_REQUIRE(pos && uv && nrm);
	RK_CHECK_INT(n, 4);
	size_t ni;
	double *idx = tg_accessor(&d, tg_int(p0, "indices", -1), &comp, &ni);
	RK_CHECK_INT(ni, 6);
	RK_CHECK_INT(tg_int(tg_at(d.json, "accessors", tg_int(p0, "indices", -1)), "componentType", 0), 5123);
	for (size_t i = 0; i < n; i++) {
		/* find the source corner by position; UV v flipped (1 - v) */
		int src = -1;
		for (int v = 0; v < 4; v++)
			if (pos[i * 3] == hs_pos[v].x && pos[i * 3 + 1] == hs_pos[v].y && pos[i * 3 + 2] == hs_pos[v].z) src = v;
		RK_REQUIRE(src >= 0);
		RK_CHECK_NEAR(uv[i * 2], hs_uv[src].x, 0.0);
		RK_CHECK_NEAR(uv[i * 2 + 1], 1.0 - hs_uv[src].y, 0.0);
		RK_CHECK_NEAR(nrm[i * 3 + 2], 1.0, 0.0); /* computed: +Z */
	}
	free(pos); free(uv); free(nrm); free(idx);
	pos = tg_accessor(&d, tg_int(tg_get(p1, "attributes"), "POSITION", -1), &comp, &n);
	RK_CHECK_INT(n, 3);
	free(pos);
	/* materials */
	const cJSON *m0 = tg_at(d.json, "materials", 0), *m1 = tg_at(d.json, "materials", 1);
	const cJSON *bc = tg_get(tg_get(m0, "pbrMetallicRoughness"), "baseColorFactor");
	RK_CHECK_NEAR(cJSON_GetArrayItem(bc, 1)->valuedouble, 0.25, 0.0);
	RK_CHECK_NEAR(tg_num(tg_get(m0, "pbrMetallicRoughness"), "metallicFactor", -1), 0.0, 0.0);
	RK_CHECK_NEAR(tg_num(tg_get(m0, "pbrMetallicRoughness"), "roughnessFactor", -1), 0.5, 0.0);
	RK_CHECK_STR(cJSON_GetStringValue(tg_get(m1, "alphaMode")), "MASK");
	RK_CHECK_NEAR(tg_num(m1, "alphaCutoff", -1), 0.3, 0.0);
	RK_CHECK(cJSON_IsTrue(tg_get(m1, "doubleSided")));
	RK_CHECK(tg_get(tg_get(m1, "extensions"), "KHR_materials_unlit") != NULL);
	RK_CHECK_STR(cJSON_GetStringValue(tg_at(d.json, "extensionsUsed", 0)), "KHR_materials_unlit");
	tg_free(&d);
	rk_gltf_memory_free(data);

	/* .gltf JSON container: embedded base64 buffer of byteLength bytes */
	rk_gltf_write_opts o;
	memset(&o, 0, sizeof(o));
	o.container = RK_GLTF_CONTAINER_JSON;
	RK_REQUIRE(write_mem(&t.s, &o, &data, &size));
	cJSON *j = cJSON_ParseWithLength((const char *)data, size);
	RK_REQUIRE(j);
	const cJSON *buf = tg_at(j, "buffers", 0);
	const char *uri = cJSON_GetStringValue(tg_get(buf, "uri"));
	const char *prefix = "data:application/octet-stream;base64,";
	RK_REQUIRE(uri && strncmp(uri, prefix, strlen(prefix)) == 0);
	size_t b64 = strlen(uri) - strlen(prefix);
	size_t pad = b64 >= 2 ? (uri[strlen(uri) - 1] == '=') + (uri[strlen(uri) - 2] == '=') : 0;
	RK_CHECK_INT(b64 % 4, 0);
	RK_CHECK_INT(b64 / 4 * 3 - pad, tg_int(buf, "byteLength", -1));
	cJSON_Delete(j);
	rk_gltf_memory_free(data);
}

/* Geometric transform with a mirror: baked positions, normals through the
 * inverse-transpose, winding reversed so faces still face their normals. */
RK_TEST(geometric_transform_mirror)
{
	static rk_vec3 pos[3] = { { 0, 0, 0 }, { 1, 0, 0 }, { 0, 1, 0 } };
	static uint32_t vi[3] = { 0, 1, 2 };
	static rk_face face = { 0, 3 };
	static rk_vec3 nv[1] = { { 0, 0, 1 } };
	static uint32_t ni[3] = { 0, 0, 0 };
	test_scene t;
	ts_begin(&t, 2, RK_FORMAT_FBX);
	rk_node *nd = &t.nodes[1];
	nd->name = "mirrored";
	nd->kind = RK_NODE_MESH;
	nd->has_fbx_props = true;
	nd->props.translation = (rk_vec3){ 0, 10, 0 };
	nd->props.geometric_scaling = (rk_vec3){ -1, 1, 2 };
	nd->props.geometric_translation = (rk_vec3){ 0, 0, 5 };
	t.mesh.name = "tri";
	t.mesh.vertex_count = 3;
	t.mesh.positions_f64 = pos;
	t.mesh.index_count = 3;
	t.mesh.vertex_indices = vi;
	t.mesh.face_count = 1;
	t.mesh.faces = &face;
	t.mesh.normals = (rk_attrib_vec3){ true, nv, 1, ni, NULL };
	nd->mesh = &t.mesh;
	ts_finish(&t);
	RK_REQUIRE(nd->has_geometry_transform);
	void *data;
	size_t size;
	RK_REQUIRE(write_mem(&t.s, NULL, &data, &size));
	tg_doc d;
	RK_REQUIRE(tg_parse_glb(data, size, &d));
	const cJSON *prim = tg_at(tg_at(d.json, "meshes", 0), "primitives", 0);
	int comp;
	size_t n, nidx;
	double *p = tg_accessor(&d, tg_int(tg_get(prim, "attributes"), "POSITION", -1), &comp, &n);
	double *nr = tg_accessor(&d, tg_int(tg_get(prim, "attributes"), "NORMAL", -1), &comp, &n);
	double *idx = tg_accessor(&d, tg_int(prim, "indices", -1), &comp, &nidx);
	RK_REQUIRE(p && nr && idx && n == 3 && nidx == 3);
	/* expected: G * p = (-x, y, 2z + 5) */
	for (size_t i = 0; i < 3; i++) {
		bool found = false;
		for (int v = 0; v < 3; v++)
			if (p[i * 3] == -pos[v].x && p[i * 3 + 1] == pos[v].y && p[i * 3 + 2] == 5.0) found = true;
		RK_CHECK(found);
		/* inverse-transpose of diag(-1, 1, 2) maps +Z to +Z (normalised) */
		RK_CHECK_NEAR(nr[i * 3 + 2], 1.0, 0.0);
	}
	rk_vec3 v[3];
	for (int c = 0; c < 3; c++) v[c] = (rk_vec3){ p[(size_t)idx[c] * 3], p[(size_t)idx[c] * 3 + 1], p[(size_t)idx[c] * 3 + 2] };
	rk_vec3 cr = rk_vec3_cross(rk_vec3_sub(v[1], v[0]), rk_vec3_sub(v[2], v[0]));
	RK_CHECK(cr.z > 0.0);
	/* the node keeps its own transform (translation only) */
	rk_mat4 *wm = tg_worlds(&d);
	RK_CHECK(mat_rel_diff(wm[0], nd->node_to_world) < 1e-12);
	free(wm);
	free(p); free(nr); free(idx);
	tg_free(&d);
	rk_gltf_memory_free(data);
}

/* A skin with a geometric transform, five influences on one vertex (top 4
 * renormalised), a vertex without weights and one whose only joint has no
 * node (both follow the mesh node through the extra joint). */
RK_TEST(skin_hand_built)
{
	static rk_vec3 pos[6] = { { 0, 0, 0 }, { 1, 0, 0 }, { 1, 1, 0 }, { 0, 1, 0 }, { 2, 0, 0 }, { 2, 1, 0 } };
	static uint32_t vi[8] = { 0, 1, 2, 3, 1, 4, 5, 2 };
	static rk_face faces[2] = { { 0, 4 }, { 4, 4 } };
	test_scene t;
	ts_begin(&t, 6, RK_FORMAT_FBX);
	rk_node *arm = &t.nodes[1], *hand = &t.nodes[2], *tip = &t.nodes[3], *extra = &t.nodes[4], *body = &t.nodes[5];
	arm->name = "arm"; arm->kind = RK_NODE_JOINT;
	arm->local.translation = (rk_vec3){ 0, 1, 0 };
	arm->local.rotation = rk_quat_axis_angle((rk_vec3){ 0, 0, 1 }, 0.3);
	hand->name = "hand"; hand->kind = RK_NODE_JOINT; hand->parent = arm;
	hand->local.translation = (rk_vec3){ 1, 0, 0 };
	hand->local.rotation = rk_quat_axis_angle((rk_vec3){ 1, 0, 0 }, -0.4);
	tip->name = "tip"; tip->kind = RK_NODE_JOINT; tip->parent = hand;
	tip->local.translation = (rk_vec3){ 0.5, 0, 0 };
	extra->name = "extra"; extra->kind = RK_NODE_JOINT; extra->parent = arm;
	extra->local.translation = (rk_vec3){ 0, 0.2, 0 };
	extra->local.scale = (rk_vec3){ 1, 2, 1 };
	body->name = "body"; body->kind = RK_NODE_MESH;
	body->has_fbx_props = true;
	body->props.translation = (rk_vec3){ 0, 0, 2 };
	body->props.geometric_translation = (rk_vec3){ 0, 0, 1 };
	body->props.geometric_rotation = (rk_vec3){ 0, 0, 30 };
	t.mesh.name = "body";
	t.mesh.vertex_count = 6;
	t.mesh.positions_f64 = pos;
	t.mesh.index_count = 8;
	t.mesh.vertex_indices = vi;
	t.mesh.face_count = 2;
	t.mesh.faces = faces;
	body->mesh = &t.mesh;
	ts_finish(&t);

	/* joints: arm, hand, tip, extra, and one without a node */
	rk_skin_joint joints[5];
	memset(joints, 0, sizeof(joints));
	rk_node *jn[5] = { arm, hand, tip, extra, NULL };
	for (int j = 0; j < 5; j++) {
		joints[j].node = jn[j];
		/* bind pose: some other placement, so IBMs are not just inverses */
		rk_mat4 bind = rk_mat4_from_trs((rk_trs){ { 0.1 * j, 0.9, -0.2 }, rk_quat_axis_angle((rk_vec3){ 0, 1, 1 }, 0.1 * j), { 1, 1, 1 } });
		rk_mat4 inv;
		rk_mat4_invert_affine(bind, &inv);
		joints[j].mesh_to_joint = inv;
	}
	/* v0: arm; v1: arm .5 hand .5; v2: five influences; v3: none; v4: the
	 * nodeless joint only; v5: hand */
	static uint32_t wb[7] = { 0, 1, 3, 8, 8, 9, 10 };
	static rk_skin_weight wts[10] = {
		{ 0, 1.0f },
		{ 0, 0.5f }, { 1, 0.5f },
		{ 1, 0.4f }, { 0, 0.3f }, { 2, 0.2f }, { 3, 0.1f }, { 2, 0.05f },
		{ 4, 1.0f },
		{ 1, 2.0f } };
	rk_skin_deformer skin;
	memset(&skin, 0, sizeof(skin));
	skin.name = "skin";
	skin.joint_count = 5;
	skin.joints = joints;
	skin.vertex_count = 6;
	skin.weight_begin = wb;
	skin.weight_count = 10;
	skin.weights = wts;
	skin.max_weights_per_vertex = 5;
	body->skin = &skin;

	void *data;
	size_t size;
	RK_REQUIRE(write_mem(&t.s, NULL, &data, &size));
	tg_doc d;
	RK_REQUIRE(tg_parse_glb(data, size, &d));
	const cJSON *gskin = tg_at(d.json, "skins", 0);
	RK_REQUIRE(gskin);
	/* 4 joints with nodes + the mesh node as the extra joint */
	RK_CHECK_INT(tg_count(tg_get(gskin, "joints")), 5);
	/* the extra joint is not under the skeleton's top node: the root is written */
	RK_CHECK_INT(tg_count(tg_get(d.json, "nodes")), 6);
	int gbody = gltf_node_of(&d, &t.s, 5);
	RK_CHECK_STR(cJSON_GetStringValue(tg_get(tg_at(d.json, "nodes", gbody), "name")), "body");
	RK_CHECK_INT(cJSON_GetArrayItem(tg_get(gskin, "joints"), 4)->valuedouble, gbody);
	rk_mat4 *wm = tg_worlds(&d);
	size_t n;
	rk_vec3 *got = tg_mesh_world(&d, wm, gbody, NULL, &n);
	RK_CHECK_INT(n, 6);
	/* expected by scene.h: sum w_i J_i.world * mesh_to_joint_i * G * p over
	 * the top 4 usable influences renormalised; none -> geometry_to_world */
	rk_mat4 g = body->geometry_to_node;
	for (size_t v = 0; v < 6; v++) {
		rk_vec3 e = { 0, 0, 0 };
		double top_w[4] = { 0 };
		int top_j[4] = { -1, -1, -1, -1 };
		/* merge per joint, drop the nodeless joint, take the top 4 */
		double per[5] = { 0 };
		for (uint32_t k = wb[v]; k < wb[v + 1]; k++) if (jn[wts[k].joint]) per[wts[k].joint] += wts[k].weight;
		for (int r = 0; r < 4; r++) {
			int best = -1;
			for (int j = 0; j < 5; j++) {
				bool taken = false;
				for (int q = 0; q < r; q++) if (top_j[q] == j) taken = true;
				if (!taken && per[j] > 0 && (best < 0 || per[j] > per[best])) best = j;
			}
			if (best < 0) break;
			top_j[r] = best;
			top_w[r] = per[best];
		}
		double sum = top_w[0] + top_w[1] + top_w[2] + top_w[3];
		rk_vec3 p = rk_mat4_transform_point(g, pos[v]);
		if (sum == 0.0) {
			e = rk_mat4_transform_point(body->geometry_to_world, pos[v]);
		} else {
			for (int r = 0; r < 4; r++) {
				if (top_j[r] < 0) continue;
				rk_mat4 jmat = rk_mat4_mul(jn[top_j[r]]->node_to_world, joints[top_j[r]].mesh_to_joint);
				e = rk_vec3_add(e, rk_vec3_scale(rk_mat4_transform_point(jmat, p), top_w[r] / sum));
			}
		}
		/* the glTF vertex with this unskinned position */
		const cJSON *prim = tg_at(tg_at(d.json, "meshes", 0), "primitives", 0);
		int comp;
		size_t np;
		double *gp = tg_accessor(&d, tg_int(tg_get(prim, "attributes"), "POSITION", -1), &comp, &np);
		double *gw = tg_accessor(&d, tg_int(tg_get(prim, "attributes"), "WEIGHTS_0", -1), &comp, &np);
		int match = -1;
		for (size_t i = 0; i < np; i++)
			if (fabs(gp[i * 3] - p.x) < 1e-6 && fabs(gp[i * 3 + 1] - p.y) < 1e-6 && fabs(gp[i * 3 + 2] - p.z) < 1e-6) match = (int)i;
		RK_REQUIRE(match >= 0);
		RK_CHECK_NEAR(got[match].x, e.x, 1e-5);
		RK_CHECK_NEAR(got[match].y, e.y, 1e-5);
		RK_CHECK_NEAR(got[match].z, e.z, 1e-5);
		float fs = (float)gw[match * 4] + (float)gw[match * 4 + 1] + (float)gw[match * 4 + 2] + (float)gw[match * 4 + 3];
		RK_CHECK_NEAR(fs, 1.0, 2e-7);
		free(gp);
		free(gw);
	}
	free(got);
	free(wm);
	tg_free(&d);
	rk_gltf_memory_free(data);
}

typedef struct warn_log {
	char text[4096];
	size_t count;
} warn_log;

static void log_warning(void *user, const rk_warning *w)
{
	warn_log *l = (warn_log *)user;
	size_t n = strlen(l->text);
	snprintf(l->text + n, sizeof(l->text) - n, "%s\n", w->message);
	l->count += w->count;
}

/* Embedded PNG/JPEG bytes pass through; a file at resolved_path is read; TGA
 * content is skipped with a warning; equal bytes are stored once; one
 * sampler per wrap pair. */
RK_TEST(textures_embedded)
{
	static const unsigned char png[16] = { 0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A, 1, 2, 3, 4, 5, 6, 7, 8 };
	static const unsigned char jpg[8] = { 0xFF, 0xD8, 0xFF, 0xE0, 9, 9, 9, 9 };
	static const unsigned char tga[8] = { 0, 0, 2, 0, 0, 0, 0, 0 };
	char file[4096];
	snprintf(file, sizeof(file), "%s/gltf_write_texture_%d.jpg", RK_BINARY_DIR, (int)getpid());
	FILE *f = fopen(file, "wb");
	RK_REQUIRE(f);
	fwrite(jpg, 1, sizeof(jpg), f);
	fclose(f);

	test_scene t;
	build_hand_scene(&t);
	rk_texture tex[4];
	memset(tex, 0, sizeof(tex));
	const char *names[4] = { "diffuse", "same_bytes", "from_file", "targa" };
	for (int i = 0; i < 4; i++) {
		tex[i].index = (uint32_t)i;
		tex[i].name = names[i];
		tex[i].filename = "";
		tex[i].mime_type = "";
	}
	tex[0].content = png; tex[0].content_size = sizeof(png); tex[0].mime_type = "image/png";
	tex[1].content = png; tex[1].content_size = sizeof(png); tex[1].wrap_u = RK_WRAP_CLAMP;
	tex[2].resolved_path = file; tex[2].filename = "c:/textures/from_file.jpg";
	tex[3].content = tga; tex[3].content_size = sizeof(tga); tex[3].filename = "skin.tga";
	t.s.textures.data = tex;
	t.s.textures.count = 4;
	t.mats[0].base_color_texture.texture = &tex[0];
	t.mats[0].normal_texture.texture = &tex[1];
	t.mats[0].emissive_texture.texture = &tex[3];
	t.mats[1].base_color_texture.texture = &tex[2];
	warn_log log;
	memset(&log, 0, sizeof(log));
	rk_gltf_write_opts o;
	memset(&o, 0, sizeof(o));
	o.warning = log_warning;
	o.warning_user = &log;
	rk_gltf_write_stats st;
	o.stats = &st;
	void *data;
	size_t size;
	RK_REQUIRE(write_mem(&t.s, &o, &data, &size));
	unlink(file);
	tg_doc d;
	RK_REQUIRE(tg_parse_glb(data, size, &d));
	RK_CHECK_INT(tg_count(tg_get(d.json, "images")), 2);    /* png once, jpg from the file */
	RK_CHECK_INT(tg_count(tg_get(d.json, "textures")), 3);  /* the TGA is skipped */
	RK_CHECK_INT(tg_count(tg_get(d.json, "samplers")), 2);  /* repeat/repeat, clamp/repeat */
	RK_CHECK_INT(st.image_count, 2);
	RK_CHECK(strstr(log.text, "targa") != NULL);
	const cJSON *img1 = tg_at(d.json, "images", 1);
	RK_CHECK_STR(cJSON_GetStringValue(tg_get(img1, "mimeType")), "image/jpeg");
	const cJSON *view = tg_at(d.json, "bufferViews", tg_int(img1, "bufferView", -1));
	RK_REQUIRE(view);
	RK_CHECK_INT(tg_int(view, "byteLength", 0), sizeof(jpg));
	RK_CHECK(memcmp(d.bin + tg_int(view, "byteOffset", 0), jpg, sizeof(jpg)) == 0);
	/* material 0: base colour + normal texture, no emissive texture */
	const cJSON *m0 = tg_at(d.json, "materials", 0);
	RK_CHECK(tg_get(tg_get(m0, "pbrMetallicRoughness"), "baseColorTexture") != NULL);
	RK_CHECK(tg_get(m0, "normalTexture") != NULL);
	RK_CHECK(tg_get(m0, "emissiveTexture") == NULL);
	const cJSON *tx0 = tg_at(d.json, "textures", tg_int(tg_get(tg_get(m0, "pbrMetallicRoughness"), "baseColorTexture"), "index", -1));
	const cJSON *tx1 = tg_at(d.json, "textures", tg_int(tg_get(m0, "normalTexture"), "index", -1));
	RK_CHECK_INT(tg_int(tx0, "source", -1), tg_int(tx1, "source", -2));
	RK_CHECK(tg_int(tx0, "sampler", -1) != tg_int(tx1, "sampler", -1));
	RK_CHECK_INT(tg_int(tg_at(d.json, "samplers", tg_int(tx1, "sampler", 0)), "wrapS", 0), 33071);
	tg_free(&d);
	rk_gltf_memory_free(data);

	/* no_textures: factors only */
	o.no_textures = true;
	RK_REQUIRE(write_mem(&t.s, &o, &data, &size));
	RK_REQUIRE(tg_parse_glb(data, size, &d));
	RK_CHECK(tg_get(d.json, "images") == NULL && tg_get(d.json, "textures") == NULL);
	RK_CHECK(tg_get(tg_get(tg_at(d.json, "materials", 0), "pbrMetallicRoughness"), "baseColorTexture") == NULL);
	tg_free(&d);
	rk_gltf_memory_free(data);
}

/* A blend channel with an in-between: only the full-weight target is
 * written, through the geometric transform; normal deltas are computed
 * when the mesh has no normals. */
RK_TEST(morph_targets)
{
	static rk_vec3 pos[4] = { { 0, 0, 0 }, { 1, 0, 0 }, { 1, 1, 0 }, { 0, 1, 0 } };
	static uint32_t vi[4] = { 0, 1, 2, 3 };
	static rk_face face = { 0, 4 };
	static uint32_t moved[1] = { 2 };
	static rk_vec3 half[1] = { { 0, 0, 0.5 } }, full[1] = { { 0, 0, 2 } };
	static double tw[2] = { 0.5, 1.0 };
	static double node_weights[1] = { 0.25 };
	rk_blend_shape shapes[2];
	memset(shapes, 0, sizeof(shapes));
	shapes[0].name = "half";
	shapes[1].name = "full";
	shapes[0].offset_count = shapes[1].offset_count = 1;
	shapes[0].vertex_indices = shapes[1].vertex_indices = moved;
	shapes[0].position_offsets_f64 = half;
	shapes[1].position_offsets_f64 = full;
	rk_blend_channel ch;
	memset(&ch, 0, sizeof(ch));
	ch.name = "lift";
	ch.default_weight = 0.0;
	ch.target_count = 2;
	ch.targets = shapes;
	ch.target_weights = tw;
	test_scene t;
	ts_begin(&t, 2, RK_FORMAT_FBX);
	rk_node *nd = &t.nodes[1];
	nd->name = "sheet";
	nd->kind = RK_NODE_MESH;
	nd->has_fbx_props = true;
	nd->props.geometric_scaling = (rk_vec3){ 1, 1, 3 };
	nd->blend_weights = node_weights;
	t.mesh.name = "sheet";
	t.mesh.vertex_count = 4;
	t.mesh.positions_f64 = pos;
	t.mesh.index_count = 4;
	t.mesh.vertex_indices = vi;
	t.mesh.face_count = 1;
	t.mesh.faces = &face;
	t.mesh.blend_channels.data = &ch;
	t.mesh.blend_channels.count = 1;
	nd->mesh = &t.mesh;
	ts_finish(&t);
	warn_log log;
	memset(&log, 0, sizeof(log));
	rk_gltf_write_opts o;
	memset(&o, 0, sizeof(o));
	o.warning = log_warning;
	o.warning_user = &log;
	void *data;
	size_t size;
	RK_REQUIRE(write_mem(&t.s, &o, &data, &size));
	RK_CHECK(strstr(log.text, "in-between") != NULL);
	tg_doc d;
	RK_REQUIRE(tg_parse_glb(data, size, &d));
	const cJSON *mesh = tg_at(d.json, "meshes", 0);
	const cJSON *prim = tg_at(mesh, "primitives", 0);
	const cJSON *target = tg_at(prim, "targets", 0);
	RK_REQUIRE(target && tg_count(tg_get(prim, "targets")) == 1);
	RK_CHECK_STR(cJSON_GetStringValue(tg_at(tg_get(mesh, "extras"), "targetNames", 0)), "lift");
	RK_CHECK_NEAR(tg_at(mesh, "weights", 0)->valuedouble, 0.0, 0.0);
	RK_CHECK_NEAR(tg_at(tg_at(d.json, "nodes", 0), "weights", 0)->valuedouble, 0.25, 0.0);
	int comp;
	size_t n, n2, n3;
	double *p = tg_accessor(&d, tg_int(tg_get(prim, "attributes"), "POSITION", -1), &comp, &n);
	double *dp = tg_accessor(&d, tg_int(target, "POSITION", -1), &comp, &n2);
	double *dn = tg_accessor(&d, tg_int(target, "NORMAL", -1), &comp, &n3);
	RK_REQUIRE(p && dp && dn && n == 4 && n2 == 4 && n3 == 4);
	RK_CHECK(tg_get(tg_at(d.json, "accessors", tg_int(target, "POSITION", -1)), "min") != NULL);
	for (size_t i = 0; i < n; i++) {
		bool is_moved = p[i * 3] == 1.0 && p[i * 3 + 1] == 1.0;
		/* full target (0, 0, 2) through GeometricScaling (1, 1, 3) */
		RK_CHECK_NEAR(dp[i * 3 + 2], is_moved ? 6.0 : 0.0, 0.0);
		RK_CHECK_NEAR(dp[i * 3], 0.0, 0.0);
	}
	/* lifting one corner tilts the normals of all four corners (one face) */
	for (size_t i = 0; i < n; i++) RK_CHECK(fabs(dn[i * 3]) + fabs(dn[i * 3 + 1]) > 0.01);
	free(p); free(dp); free(dn);
	tg_free(&d);
	rk_gltf_memory_free(data);
}

/* A mesh without normals gets the same computed normals in a GLB as in its
 * GPU expansion (both use rk_mesh_smooth_normals in mesh space and carry
 * the result by the inverse-transpose of the geometric transform), also
 * under a non-uniform and a mirroring geometric scale. The mesh: an open
 * box of unequal quads plus a non-planar quad on top (which the writer and
 * the expansion triangulate in different spaces). */
RK_TEST(computed_normals_match_expansion)
{
	static rk_vec3 pos[9] = { { 0, 0, 0 }, { 2, 0, 0 }, { 2, 1, 0 }, { 0, 1, 0 },
		{ 0, 0, 3 }, { 2, 0, 3 }, { 2, 1, 3 }, { 0, 1, 3 }, { 1, 0.5, 4 } };
	static uint32_t vi[20] = { 0, 3, 2, 1,  0, 1, 5, 4,  1, 2, 6, 5,  2, 3, 7, 6,  4, 5, 6, 8 };
	static rk_face faces[5] = { { 0, 4 }, { 4, 4 }, { 8, 4 }, { 12, 4 }, { 16, 4 } };
	const rk_vec3 scales[2] = { { 1, 2, 3 }, { -1, 2, 3 } };
	for (int run = 0; run < 2; run++) {
		test_scene t;
		ts_begin(&t, 2, RK_FORMAT_FBX);
		rk_node *nd = &t.nodes[1];
		nd->name = "box";
		nd->kind = RK_NODE_MESH;
		nd->has_fbx_props = true;
		nd->props.geometric_scaling = scales[run];
		nd->props.geometric_rotation = (rk_vec3){ 10, 20, 30 };
		t.mesh.name = "box";
		t.mesh.vertex_count = 9;
		t.mesh.positions_f64 = pos;
		t.mesh.index_count = 20;
		t.mesh.vertex_indices = vi;
		t.mesh.face_count = 5;
		t.mesh.faces = faces;
		nd->mesh = &t.mesh;
		ts_finish(&t);
		void *data;
		size_t size;
		RK_REQUIRE(write_mem(&t.s, NULL, &data, &size));
		tg_doc d;
		RK_REQUIRE(tg_parse_glb(data, size, &d));
		rk_error err;
		rk_mesh_opts mo = { .node = nd };
		rk_mesh_expansion *x = rk_mesh_expansion_build(&t.s, &mo, &err);
		RK_REQUIRE(x);
		RK_CHECK_INT(x->vertex_count, 9);  /* smooth: one vertex per position */
		const cJSON *prims = tg_get(tg_at(d.json, "meshes", 0), "primitives");
		size_t matched = 0;
		for (int p = 0; p < tg_count(prims); p++) {
			const cJSON *attr = tg_get(cJSON_GetArrayItem(prims, p), "attributes");
			int comp;
			size_t np, nn;
			double *gp = tg_accessor(&d, tg_int(attr, "POSITION", -1), &comp, &np);
			double *gn = tg_accessor(&d, tg_int(attr, "NORMAL", -1), &comp, &nn);
			RK_REQUIRE(gp && gn && np == nn);
			for (size_t i = 0; i < np; i++) {
				for (size_t v = 0; v < x->vertex_count; v++) {
					const rk_gpu_vertex *xv = (const rk_gpu_vertex *)((const unsigned char *)x->vertices + v * x->format.stride);
					if (fabs(xv->position[0] - gp[i * 3]) > 1e-5 || fabs(xv->position[1] - gp[i * 3 + 1]) > 1e-5
						|| fabs(xv->position[2] - gp[i * 3 + 2]) > 1e-5)
						continue;
					for (int k = 0; k < 3; k++) RK_CHECK_NEAR(gn[i * 3 + (size_t)k], xv->normal[k], 1e-6);
					matched++;
					break;
				}
			}
			free(gp);
			free(gn);
		}
		RK_CHECK_INT(matched, 9);
		rk_mesh_expansion_free(x);
		tg_free(&d);
		rk_gltf_memory_free(data);
	}
}

/* FBX textures name their UV set (scene.h UV SET OF A TEXTURE ON A MESH
 * NODE): with sets map1, map2 and a base colour texture asking for map2,
 * TEXCOORD_0 (which every FBX texture is written with) holds map2 and
 * TEXCOORD_1 map1; a second textured slot asking for map1 is warned about. */
RK_TEST(texture_uv_set_becomes_texcoord_0)
{
	static rk_vec2 uv2[5] = { { 0.5, 0.5 }, { 0.5, 0.5 }, { 0.5, 0.5 }, { 0.5, 0.5 }, { 0.5, 0.5 } };
	test_scene t;
	build_hand_scene(&t);
	rk_uv_set sets[2];
	sets[0] = hs_set;
	memset(&sets[1], 0, sizeof(sets[1]));
	sets[1].name = "map2";
	sets[1].uv = (rk_attrib_vec2){ true, uv2, 5, hs_uvi, NULL };
	t.mesh.uv_sets = (rk_uv_set_list){ sets, 2 };
	rk_texture tex;
	memset(&tex, 0, sizeof(tex));
	tex.name = tex.filename = "t.png";
	tex.mime_type = "";
	t.mats[0].base_color_texture.texture = &tex;
	t.mats[0].base_color_texture.uv_set = "map2";
	for (int run = 0; run < 2; run++) {
		warn_log log;
		memset(&log, 0, sizeof(log));
		rk_gltf_write_opts o;
		memset(&o, 0, sizeof(o));
		o.warning = log_warning;
		o.warning_user = &log;
		void *data;
		size_t size;
		RK_REQUIRE(write_mem(&t.s, &o, &data, &size));
		tg_doc d;
		RK_REQUIRE(tg_parse_glb(data, size, &d));
		const cJSON *attr = tg_get(cJSON_GetArrayItem(tg_get(tg_at(d.json, "meshes", 0), "primitives"), 0), "attributes");
		int comp;
		size_t n0, n1;
		double *t0 = tg_accessor(&d, tg_int(attr, "TEXCOORD_0", -1), &comp, &n0);
		double *t1 = tg_accessor(&d, tg_int(attr, "TEXCOORD_1", -1), &comp, &n1);
		RK_REQUIRE(t0 && t1 && n0 == 4 && n1 == 4);
		for (size_t i = 0; i < n0; i++) {
			RK_CHECK_NEAR(t0[i * 2], 0.5, 0.0);
			RK_CHECK_NEAR(t0[i * 2 + 1], 0.5, 0.0);   /* 1 - 0.5 */
		}
		bool map1_seen = false;
		for (size_t i = 0; i < n1; i++) if (t1[i * 2] == 1.0) map1_seen = true;
		RK_CHECK(map1_seen);
		RK_CHECK((strstr(log.text, "samples UV set") != NULL) == (run == 1));
		free(t0);
		free(t1);
		tg_free(&d);
		rk_gltf_memory_free(data);
		/* second run: the other slot's texture asks for map1 */
		t.mats[1].base_color_texture.texture = &tex;
		t.mats[1].base_color_texture.uv_set = "map1";
	}
}

/* FBX-style curve tracks are baked at the frame rate and reduced: a linear
 * translation keeps its 2 end keys, a constant-speed rotation about one
 * axis too (slerp reproduces it), an eased curve keeps more; times are the
 * file's (time_begin 2 s stays 2 s), with rebase_time time - time_begin; a
 * clip holding the static pose keeps one channel. */
RK_TEST(baked_animation)
{
	static double t_lin[2] = { 2.0, 3.0 }, v_lin[2] = { 0.0, 10.0 };
	static double t_rot[2] = { 2.0, 3.0 }, v_rot[2] = { 0.0, 90.0 };
	static double t_ease[3] = { 2.0, 2.5, 3.0 }, v_ease[3] = { 1.0, 1.0, 3.0 };
	static rk_interp ease_interp[3] = { RK_INTERP_CUBIC, RK_INTERP_CUBIC, RK_INTERP_CUBIC };
	static double zero3[3] = { 0, 0, 0 }, third3[3] = { 1.0 / 3, 1.0 / 3, 1.0 / 3 };
	static double t_hold[2] = { 0.0, 1.0 }, v_hold[2] = { 4.0, 4.0 };
	rk_anim_curve lin, rot, ease, hold;
	memset(&lin, 0, sizeof(lin));
	lin.key_count = 2; lin.times = t_lin; lin.values = v_lin;
	rot = lin; rot.times = t_rot; rot.values = v_rot;
	ease = lin; ease.key_count = 3; ease.times = t_ease; ease.values = v_ease; ease.interp = ease_interp;
	ease.right_slope = ease.left_slope = zero3; ease.right_weight = ease.left_weight = third3;
	hold = lin; hold.times = t_hold; hold.values = v_hold;

	test_scene t;
	ts_begin(&t, 3, RK_FORMAT_FBX);
	t.nodes[1].name = "mover";
	t.nodes[1].has_fbx_props = true;
	t.nodes[2].name = "holder";
	t.nodes[2].has_fbx_props = true;
	t.nodes[2].props.translation = (rk_vec3){ 4, 0, 0 };
	ts_finish(&t);
	rk_anim_track tracks[3];
	memset(tracks, 0, sizeof(tracks));
	tracks[0].node = &t.nodes[1]; tracks[0].target = RK_TARGET_TRANSLATION; tracks[0].property = "Lcl Translation";
	tracks[0].curves[0] = &lin;
	tracks[1].node = &t.nodes[1]; tracks[1].target = RK_TARGET_ROTATION_EULER; tracks[1].property = "Lcl Rotation";
	tracks[1].curves[2] = &rot;
	tracks[2].node = &t.nodes[1]; tracks[2].target = RK_TARGET_SCALE; tracks[2].property = "Lcl Scaling";
	tracks[2].curves[1] = &ease;
	tracks[2].default_value[0] = tracks[2].default_value[2] = 1.0;
	rk_anim_layer layer;
	memset(&layer, 0, sizeof(layer));
	layer.name = "base"; layer.weight = 1.0; layer.track_count = 3; layer.tracks = tracks;
	rk_anim_track hold_track;
	memset(&hold_track, 0, sizeof(hold_track));
	hold_track.node = &t.nodes[2]; hold_track.target = RK_TARGET_TRANSLATION; hold_track.property = "Lcl Translation";
	hold_track.curves[0] = &hold;
	rk_anim_layer hold_layer = layer;
	hold_layer.track_count = 1;
	hold_layer.tracks = &hold_track;
	rk_anim_clip clips[2];
	memset(clips, 0, sizeof(clips));
	clips[0].name = "move"; clips[0].time_begin = 2.0; clips[0].time_end = 3.0; clips[0].layer_count = 1; clips[0].layers = &layer;
	clips[1].index = 1; clips[1].name = "hold"; clips[1].time_begin = 0.0; clips[1].time_end = 1.0; clips[1].layer_count = 1; clips[1].layers = &hold_layer;
	t.s.clips.data = clips;
	t.s.clips.count = 2;

	/* pass 0: the file's times (the clip spans [2, 3] s); pass 1:
	 * rebase_time moves it to [0, 1] s */
	for (int pass = 0; pass < 2; pass++) {
	rk_gltf_write_opts wo;
	memset(&wo, 0, sizeof(wo));
	wo.rebase_time = pass == 1;
	double base = pass == 1 ? 0.0 : 2.0;
	void *data;
	size_t size;
	RK_REQUIRE(write_mem(&t.s, &wo, &data, &size));
	tg_doc d;
	RK_REQUIRE(tg_parse_glb(data, size, &d));
	RK_REQUIRE(tg_count(tg_get(d.json, "animations")) == 2);
	const cJSON *anim = tg_at(d.json, "animations", 0);
	RK_CHECK_STR(cJSON_GetStringValue(tg_get(anim, "name")), "move");
	int found = 0;
	for (int c = 0; c < tg_count(tg_get(anim, "channels")); c++) {
		const cJSON *ch = tg_at(anim, "channels", c);
		const cJSON *smp = tg_at(anim, "samplers", tg_int(ch, "sampler", -1));
		const char *path = cJSON_GetStringValue(tg_get(tg_get(ch, "target"), "path"));
		RK_CHECK_INT(tg_int(tg_get(ch, "target"), "node", -1), 0);
		int comp;
		size_t nin, nout;
		double *in = tg_accessor(&d, tg_int(smp, "input", -1), &comp, &nin);
		double *out = tg_accessor(&d, tg_int(smp, "output", -1), &comp, &nout);
		RK_REQUIRE(in && out && nin == nout && nin >= 2);
		RK_CHECK_NEAR(in[0], base, 0.0);
		RK_CHECK_NEAR(in[nin - 1], base + 1.0, 1e-7);
		if (!strcmp(path, "translation")) {
			found |= 1;
			RK_CHECK_INT(nin, 2);
			RK_CHECK_NEAR(out[0], 0.0, 1e-6);
			RK_CHECK_NEAR(out[3], 10.0, 1e-5);
		} else if (!strcmp(path, "rotation")) {
			found |= 2;
			RK_CHECK_INT(nin, 2);
			/* 90 degrees about Z at the end */
			RK_CHECK_NEAR(fabs(out[6]), sin(RK_PI / 4), 1e-6);
			RK_CHECK_NEAR(fabs(out[7]), cos(RK_PI / 4), 1e-6);
		} else if (!strcmp(path, "scale")) {
			found |= 4;
			RK_CHECK(nin > 2 && nin < 31); /* eased: some keys kept, not all 31 frames */
			/* every frame of the curve is reproduced by linear interpolation of the kept keys */
			for (int f = 0; f <= 30; f++) {
				double tt = f / 30.0, y = 0.0;
				size_t k = 0;
				while (k + 2 < nin && in[k + 1] - base < tt) k++;
				double u = (tt + base - in[k]) / (in[k + 1] - in[k]);
				y = out[k * 3 + 1] + (out[(k + 1) * 3 + 1] - out[k * 3 + 1]) * u;
				double expect = rk_anim_curve_eval(&ease, 2.0 + tt, false);
				RK_CHECK_NEAR(y, expect, 1e-4);
			}
		}
		free(in);
		free(out);
	}
	RK_CHECK_INT(found, 7);
	/* the hold clip: one constant 2-key translation channel */
	const cJSON *hold_anim = tg_at(d.json, "animations", 1);
	RK_CHECK_INT(tg_count(tg_get(hold_anim, "channels")), 1);
	tg_free(&d);
	rk_gltf_memory_free(data);
	}
}

/* ---------------------------------------------------------------------------
 * Compressed output (export.h COMPRESSION), read back with meshoptimizer's
 * own decoder (not rigkit's reader)
 * ------------------------------------------------------------------------- */

/* The decoded bytes of bufferView vi (plain: a copy from the BIN chunk;
 * EXT_meshopt_compression ATTRIBUTES: meshopt_decodeVertexBuffer). */
static unsigned char *tc_view(const tg_doc *d, int vi, size_t *size, bool *encoded)
{
	const cJSON *v = tg_at(d->json, "bufferViews", vi);
	if (!v) return NULL;
	const cJSON *x = tg_get(tg_get(v, "extensions"), "EXT_meshopt_compression");
	size_t len = (size_t)tg_int(v, "byteLength", 0);
	unsigned char *out = (unsigned char *)malloc(len ? len : 1);
	if (!out) return NULL;
	*size = len;
	*encoded = x != NULL;
	if (!x) {
		size_t off = (size_t)tg_int(v, "byteOffset", 0);
		if (tg_int(v, "buffer", -1) != 0 || off + len > d->bin_size) { free(out); return NULL; }
		memcpy(out, d->bin + off, len);
		return out;
	}
	size_t off = (size_t)tg_int(x, "byteOffset", 0), elen = (size_t)tg_int(x, "byteLength", 0);
	size_t count = (size_t)tg_int(x, "count", 0), stride = (size_t)tg_int(x, "byteStride", 0);
	const char *mode = cJSON_GetStringValue(tg_get(x, "mode"));
	if (tg_int(x, "buffer", -1) != 0 || off + elen > d->bin_size || count * stride > len || !mode
		|| strcmp(mode, "ATTRIBUTES") != 0 || meshopt_decodeVertexBuffer(out, count, stride, d->bin + off, elen) != 0) {
		free(out);
		return NULL;
	}
	return out;
}

RK_TEST(meshopt_compressed)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/tests/fixtures/rig.glb", RK_SOURCE_DIR);
	rk_error err;
	rk_scene *s = rk_load_file(path, NULL, &err);
	RK_REQUIRE(s);
	rk_gltf_write_opts wo;
	memset(&wo, 0, sizeof(wo));
	rk_gltf_write_stats st;
	memset(&st, 0, sizeof(st));
	void *plain = NULL, *comp = NULL;
	size_t plain_size = 0, comp_size = 0;
	RK_REQUIRE(write_mem(s, &wo, &plain, &plain_size));
	wo.compress = RK_GLTF_COMPRESS_MESHOPT;
	wo.stats = &st;
	RK_REQUIRE(write_mem(s, &wo, &comp, &comp_size));
	tg_doc a, b;
	RK_REQUIRE(tg_parse_glb(plain, plain_size, &a));
	RK_REQUIRE(tg_parse_glb(comp, comp_size, &b));
	/* both extensions used and required; buffer 1 is the fallback, no data */
	for (int k = 0; k < 2; k++) {
		const char *e = k ? "KHR_mesh_quantization" : "EXT_meshopt_compression";
		bool used = false, req = false;
		for (int i = 0; i < tg_count(tg_get(b.json, "extensionsUsed")); i++)
			used |= !strcmp(cJSON_GetStringValue(cJSON_GetArrayItem(tg_get(b.json, "extensionsUsed"), i)), e);
		for (int i = 0; i < tg_count(tg_get(b.json, "extensionsRequired")); i++)
			req |= !strcmp(cJSON_GetStringValue(cJSON_GetArrayItem(tg_get(b.json, "extensionsRequired"), i)), e);
		RK_CHECK(used && req);
	}
	const cJSON *fb = tg_at(b.json, "buffers", 1);
	RK_REQUIRE(fb);
	RK_CHECK(!tg_get(fb, "uri"));
	RK_CHECK(cJSON_IsTrue(tg_get(tg_get(tg_get(fb, "extensions"), "EXT_meshopt_compression"), "fallback")));
	RK_CHECK_INT((size_t)tg_int(fb, "byteLength", 0), st.fallback_size);
	RK_CHECK(st.compressed_view_count > 0 && st.quantized_accessor_count > 0);

	/* POSITION: int16 normalised; D = inverse(IBM) * IBM' maps it back to
	 * the uncompressed positions within half a step (h / 32767 / 2) */
	const cJSON *pa = tg_get(tg_get(tg_at(tg_at(a.json, "meshes", 0), "primitives", 0), "attributes"), "POSITION");
	const cJSON *pb = tg_get(tg_get(tg_at(tg_at(b.json, "meshes", 0), "primitives", 0), "attributes"), "POSITION");
	RK_REQUIRE(pa && pb);
	const cJSON *acc = tg_at(b.json, "accessors", pb->valueint);
	RK_CHECK_INT(tg_int(acc, "componentType", 0), 5122);
	RK_CHECK(cJSON_IsTrue(tg_get(acc, "normalized")));
	int comp_n;
	size_t n_a, vsize;
	bool enc;
	double *pos = tg_accessor(&a, pa->valueint, &comp_n, &n_a);
	unsigned char *qpos = tc_view(&b, tg_int(acc, "bufferView", -1), &vsize, &enc);
	RK_REQUIRE(pos && qpos && comp_n == 3);
	RK_CHECK(enc);
	RK_CHECK_INT((size_t)tg_int(acc, "count", 0), n_a);
	RK_CHECK_INT(vsize, n_a * 8);
	int sa = tg_int(tg_at(a.json, "nodes", 3), "skin", -1), sb = tg_int(tg_at(b.json, "nodes", 3), "skin", -1);
	double *ibm = tg_accessor(&a, tg_int(tg_at(a.json, "skins", sa), "inverseBindMatrices", -1), &comp_n, &vsize);
	RK_REQUIRE(ibm && comp_n == 16);
	size_t ibsize;
	unsigned char *ibq = tc_view(&b, tg_int(tg_at(b.json, "accessors",
		tg_int(tg_at(b.json, "skins", sb), "inverseBindMatrices", -1)), "bufferView", -1), &ibsize, &enc);
	RK_REQUIRE(ibq && ibsize == vsize * 64);
	rk_mat4 m, mq, inv, dq;
	for (int e = 0; e < 16; e++) {
		float f;
		memcpy(&f, ibq + (size_t)e * 4, 4);
		m.m[e] = ibm[e];
		mq.m[e] = f;
	}
	RK_REQUIRE(rk_mat4_invert(m, &inv));
	dq = rk_mat4_mul(inv, mq);
	double h = dq.m[0], worst = 0.0, extent = 0.0;
	RK_CHECK(h > 0.0);
	for (size_t i = 0; i < n_a; i++) {
		int16_t q[3];
		memcpy(q, qpos + i * 8, 6);
		rk_vec3 p = rk_mat4_transform_point(dq, (rk_vec3){ q[0] / 32767.0, q[1] / 32767.0, q[2] / 32767.0 });
		double e = fmax(fabs(p.x - pos[i * 3]), fmax(fabs(p.y - pos[i * 3 + 1]), fabs(p.z - pos[i * 3 + 2])));
		if (e > worst) worst = e;
		extent = fmax(extent, fabs(pos[i * 3 + 1]));
	}
	RK_CHECK(worst <= h / 32767.0 * 0.5 + 1e-6 * extent);
	RK_CHECK(worst > 0.0); /* it is quantised: an exact match would mean the test reads floats */
	free(pos);
	free(qpos);
	free(ibm);
	free(ibq);
	/* animation keys: float, decoded losslessly, identical to the plain file's */
	const cJSON *smp_a = tg_at(tg_at(a.json, "animations", 0), "samplers", 0);
	const cJSON *smp_b = tg_at(tg_at(b.json, "animations", 0), "samplers", 0);
	RK_REQUIRE(smp_a && smp_b);
	for (int io = 0; io < 2; io++) {
		const char *key = io ? "output" : "input";
		size_t na2, nb2;
		double *va = tg_accessor(&a, tg_int(smp_a, key, -1), &comp_n, &na2);
		const cJSON *ab = tg_at(b.json, "accessors", tg_int(smp_b, key, -1));
		RK_CHECK_INT(tg_int(ab, "componentType", 0), 5126);
		unsigned char *vb = tc_view(&b, tg_int(ab, "bufferView", -1), &nb2, &enc);
		RK_REQUIRE(va && vb && nb2 == na2 * (size_t)comp_n * 4);
		for (size_t k = 0; k < na2 * (size_t)comp_n; k++) {
			float f;
			memcpy(&f, vb + k * 4, 4);
			RK_CHECK_NEAR((double)f, va[k], 0.0);
		}
		free(va);
		free(vb);
	}
	tg_free(&a);
	tg_free(&b);
	rk_gltf_memory_free(plain);
	rk_gltf_memory_free(comp);
	rk_scene_free(s);
}

/* ---------------------------------------------------------------------------
 * Output, bad inputs, memory
 * ------------------------------------------------------------------------- */

static size_t count_entries(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d) return 0;
	size_t n = 0;
	struct dirent *e;
	while ((e = readdir(d))) if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) n++;
	closedir(d);
	return n;
}

RK_TEST(atomic_output)
{
	test_scene t;
	build_hand_scene(&t);
	char dir[4096], path[4200];
	snprintf(dir, sizeof(dir), "%s/gltf_write_atomic_%d", RK_BINARY_DIR, (int)getpid());
	mkdir(dir, 0755);
	/* a file inside a folder that does not exist */
	snprintf(path, sizeof(path), "%s/missing/out.glb", dir);
	rk_error err;
	memset(&err, 0, sizeof(err));
	RK_CHECK(!rk_gltf_write(&t.s, path, NULL, &err));
	RK_CHECK_INT(err.code, RK_ERROR_OUTPUT);
	RK_CHECK_INT(count_entries(dir), 0);
	struct stat st;
	RK_CHECK(stat(path, &st) != 0);
	/* a good write leaves exactly the file (no temporaries), GLB by default,
	 * JSON for .gltf */
	snprintf(path, sizeof(path), "%s/out.glb", dir);
	RK_CHECK(rk_gltf_write(&t.s, path, NULL, &err));
	snprintf(path, sizeof(path), "%s/out.GLTF", dir);
	RK_CHECK(rk_gltf_write(&t.s, path, NULL, &err));
	RK_CHECK_INT(count_entries(dir), 2);
	FILE *f = fopen(path, "rb");
	RK_REQUIRE(f);
	int c = fgetc(f);
	fclose(f);
	RK_CHECK_INT(c, '{');
	snprintf(path, sizeof(path), "%s/out.glb", dir);
	f = fopen(path, "rb");
	RK_REQUIRE(f);
	char magic[4] = { 0 };
	RK_CHECK(fread(magic, 1, 4, f) == 4 && memcmp(magic, "glTF", 4) == 0);
	fclose(f);
	/* rk_glb_write forces GLB whatever the extension */
	snprintf(path, sizeof(path), "%s/forced.gltf", dir);
	RK_CHECK(rk_glb_write(&t.s, path, NULL, &err));
	f = fopen(path, "rb");
	RK_REQUIRE(f);
	RK_CHECK(fread(magic, 1, 4, f) == 4 && memcmp(magic, "glTF", 4) == 0);
	fclose(f);
	/* replacing a file that is a directory fails and keeps it */
	snprintf(path, sizeof(path), "%s/adir", dir);
	mkdir(path, 0755);
	RK_CHECK(!rk_gltf_write(&t.s, path, NULL, &err));
	RK_CHECK_INT(err.code, RK_ERROR_OUTPUT);
	RK_CHECK(stat(path, &st) == 0 && S_ISDIR(st.st_mode));
	RK_CHECK_INT(count_entries(dir), 4);
	rmdir(path);
	const char *files[] = { "out.glb", "out.GLTF", "forced.gltf" };
	for (int i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, files[i]);
		unlink(path);
	}
	rmdir(dir);
}

typedef struct count_alloc {
	size_t live, calls, fail_at;
	bool failed;
} count_alloc;

static void *ca_alloc(void *user, size_t size)
{
	count_alloc *c = (count_alloc *)user;
	if (c->calls++ == c->fail_at) {
		c->failed = true;
		return NULL;
	}
	c->live++;
	return malloc(size);
}

static void ca_free(void *user, void *p, size_t size)
{
	(void)size;
	count_alloc *c = (count_alloc *)user;
	c->live--;
	free(p);
}

RK_TEST(bad_inputs_rejected)
{
	test_scene t;
	build_hand_scene(&t);
	rk_error err;
	void *data = (void *)1;
	size_t size = 1;
	memset(&err, 0, sizeof(err));
	RK_CHECK(!rk_gltf_write_memory(NULL, NULL, &data, &size, &err));
	RK_CHECK_INT(err.code, RK_ERROR_INVALID_ARGUMENT);
	RK_CHECK(data == NULL && size == 0);
	RK_CHECK(!rk_gltf_write(&t.s, NULL, NULL, &err));
	RK_CHECK_INT(err.code, RK_ERROR_INVALID_ARGUMENT);
	RK_CHECK(!rk_gltf_write_memory(&t.s, NULL, NULL, &size, &err));
	RK_CHECK_INT(err.code, RK_ERROR_INVALID_ARGUMENT);
	rk_scene empty;
	memset(&empty, 0, sizeof(empty));
	RK_CHECK(!rk_gltf_write_memory(&empty, NULL, &data, &size, &err));
	RK_CHECK_INT(err.code, RK_ERROR_INVALID_ARGUMENT);
	/* nodes out of order */
	test_scene bad;
	build_hand_scene(&bad);
	bad.nodes[1].index = 2;
	RK_CHECK(!rk_gltf_write_memory(&bad.s, NULL, &data, &size, &err));
	RK_CHECK_INT(err.code, RK_ERROR_INVALID_ARGUMENT);
	/* a tiny memory limit */
	rk_gltf_write_opts o;
	memset(&o, 0, sizeof(o));
	o.memory_limit = 2000;
	RK_CHECK(!rk_gltf_write_memory(&t.s, &o, &data, &size, &err));
	RK_CHECK_INT(err.code, RK_ERROR_LIMIT);
	rk_gltf_memory_free(NULL);
}

RK_TEST(allocation_failures_leak_nothing)
{
	test_scene t;
	build_hand_scene(&t);
	size_t k = 0;
	for (;; k++) {
		count_alloc ca = { 0, 0, k, false };
		rk_gltf_write_opts o;
		memset(&o, 0, sizeof(o));
		o.allocator = (rk_allocator){ ca_alloc, ca_free, &ca };
		void *data = NULL;
		size_t size = 0;
		rk_error err;
		memset(&err, 0, sizeof(err));
		bool ok = rk_gltf_write_memory(&t.s, &o, &data, &size, &err);
		if (ok) {
			RK_CHECK(!ca.failed);
			RK_CHECK_INT(ca.live, 1); /* the output */
			rk_gltf_memory_free(data);
			RK_CHECK_INT(ca.live, 0);
			break;
		}
		RK_CHECK(ca.failed);
		RK_CHECK_INT(err.code, RK_ERROR_OUT_OF_MEMORY);
		RK_CHECK_INT(ca.live, 0);
		RK_CHECK(data == NULL);
		if (k > 10000) break;
	}
	RK_CHECK(k > 5);
}

/* Out-of-range indices and non-finite numbers in a scene must neither crash
 * the writer nor reach the output (JSON has no NaN; the GLB must parse). */
RK_TEST(hostile_scene_values)
{
	static rk_vec3 pos[5] = { { 0, 0, 0 }, { 1, 0, 0 }, { 1, 1, 0 }, { 0, 1, 0 }, { 2, 0, 0 } };
	static uint32_t vi[9] = { 0, 1, 2, 3, 1, 4, 2, 99, 0 };
	static rk_face faces[4] = { { 0, 4 }, { 4, 3 }, { 7, 2 }, { 8, 50 } }; /* bad vertex 99, a line, out of range */
	static uint32_t fm[4] = { 0, 7, 0, 0 };                             /* slot 7 does not exist */
	static rk_vec3 nv[2] = { { 0, 0, 0 }, { 0, 0, 1 } };                 /* a zero normal */
	static uint32_t ni[9] = { 0, 1, 5, 1, 1, 1, 1, 1, 1 };               /* index 5 out of range */
	static rk_vec2 uv[1] = { { 0.5, 0.5 } };
	static uint32_t uvi[9] = { 0, 0, 3, 0, 0, 0, 0, 0, 0 };
	static rk_uv_set set;
	test_scene t;
	ts_begin(&t, 3, RK_FORMAT_FBX);
	t.nodes[1].name = "bad\xff\xfename \"quoted\"\n"; /* invalid UTF-8, quotes, control */
	t.nodes[1].local.translation = (rk_vec3){ NAN, 1, INFINITY };
	t.nodes[2].name = "mesh";
	t.nodes[2].parent = &t.nodes[1];
	t.nodes[2].local.rotation = (rk_quat){ 0, NAN, 0, 0 };
	pos[4].x = NAN;
	t.mesh.name = "broken";
	t.mesh.vertex_count = 5;
	t.mesh.positions_f64 = pos;
	t.mesh.index_count = 9;
	t.mesh.vertex_indices = vi;
	t.mesh.face_count = 4;
	t.mesh.faces = faces;
	t.mesh.face_material = fm;
	t.mesh.normals = (rk_attrib_vec3){ true, nv, 2, ni, NULL };
	set.name = "uv";
	set.uv = (rk_attrib_vec2){ true, uv, 1, uvi, NULL };
	t.mesh.uv_sets.data = &set;
	t.mesh.uv_sets.count = 1;
	t.mats[0].name = "m";
	t.mats[0].base_color = (rk_vec4){ NAN, 2.0, -1.0, 1.0 };
	t.mats[0].roughness = INFINITY;
	t.mats[0].emissive = (rk_vec3){ 5, 0, 0 };
	t.s.materials.data = t.mats;
	t.s.materials.count = 1;
	t.slots[0] = &t.mats[0];
	t.nodes[2].materials.data = t.slots;
	t.nodes[2].materials.count = 1;
	t.nodes[2].mesh = &t.mesh;
	ts_finish(&t);
	warn_log log;
	memset(&log, 0, sizeof(log));
	rk_gltf_write_opts o;
	memset(&o, 0, sizeof(o));
	o.warning = log_warning;
	o.warning_user = &log;
	void *data;
	size_t size;
	RK_REQUIRE(write_mem(&t.s, &o, &data, &size));
	tg_doc d;
	bool ok = tg_parse_glb(data, size, &d);
	if (!ok) fprintf(stderr, "%s\n", d.error);
	RK_REQUIRE(ok);
	RK_CHECK(log.count > 0);
	const char *name = cJSON_GetStringValue(tg_get(tg_at(d.json, "nodes", 0), "name"));
	RK_REQUIRE(name);
	RK_CHECK(strstr(name, "\xEF\xBF\xBD") != NULL && strstr(name, "\"quoted\"\n") != NULL);
	/* 2 triangles from the quad (slot 0) and 1 from the triangle (bad slot) */
	size_t tris = 0;
	const cJSON *prims = tg_get(tg_at(d.json, "meshes", 0), "primitives");
	for (int p = 0; p < tg_count(prims); p++) {
		int comp;
		size_t n;
		double *nrm = tg_accessor(&d, tg_int(tg_get(cJSON_GetArrayItem(prims, p), "attributes"), "NORMAL", -1), &comp, &n);
		RK_REQUIRE(nrm);
		for (size_t i = 0; i < n; i++) RK_CHECK_NEAR(nrm[i * 3] * nrm[i * 3] + nrm[i * 3 + 1] * nrm[i * 3 + 1] + nrm[i * 3 + 2] * nrm[i * 3 + 2], 1.0, 1e-6);
		free(nrm);
		tris += (size_t)tg_int(tg_at(d.json, "accessors", tg_int(cJSON_GetArrayItem(prims, p), "indices", -1)), "count", 0) / 3;
	}
	RK_CHECK_INT(tris, 3);
	/* node rotations are unit quaternions whatever the input */
	for (int i = 0; i < tg_count(tg_get(d.json, "nodes")); i++) {
		const cJSON *r = tg_get(tg_at(d.json, "nodes", i), "rotation");
		if (!r) continue;
		double l = 0.0;
		for (int c = 0; c < 4; c++) l += cJSON_GetArrayItem(r, c)->valuedouble * cJSON_GetArrayItem(r, c)->valuedouble;
		RK_CHECK_NEAR(l, 1.0, 1e-12);
	}
	const cJSON *bc = tg_get(tg_get(tg_at(d.json, "materials", 0), "pbrMetallicRoughness"), "baseColorFactor");
	for (int c = 0; c < 4; c++) {
		double x = cJSON_GetArrayItem(bc, c)->valuedouble;
		RK_CHECK(x >= 0.0 && x <= 1.0);
	}
	tg_free(&d);
	rk_gltf_memory_free(data);
}

/* Scenes the FBX reader accepts from corrupted files are written without
 * crashing (run under the sanitizers by `make sanitize`). */
RK_TEST(corrupted_fbx_scenes_write)
{
	const char *dir = rk_test_shared_dir();
	if (!dir) RK_SKIP("shared assets not found");
	const char *files[] = { "conformance/data/blender_279_default_7400_binary.fbx", "conformance/data/maya_cube_big_endian_6100_binary.fbx",
		"conformance/data/blender_293_half_skinned_7400_binary.fbx", "conformance/data/max7_blend_cube_5000_binary.fbx" };
	size_t rounds = getenv("RIGKIT_TEST_QUICK") ? 40 : 200, written = 0, loaded_total = 0;
	uint32_t x = 0x9e3779b9u;
	for (size_t fi = 0; fi < sizeof(files) / sizeof(files[0]); fi++) {
		char path[4096];
		snprintf(path, sizeof(path), "%s/%s", dir, files[fi]);
		FILE *f = fopen(path, "rb");
		if (!f) continue;
		fseek(f, 0, SEEK_END);
		long len = ftell(f);
		fseek(f, 0, SEEK_SET);
		unsigned char *orig = (unsigned char *)malloc((size_t)len), *buf = (unsigned char *)malloc((size_t)len);
		RK_REQUIRE(orig && buf && fread(orig, 1, (size_t)len, f) == (size_t)len);
		fclose(f);
		for (size_t r = 0; r < rounds; r++) {
			memcpy(buf, orig, (size_t)len);
			size_t n = (size_t)len;
			for (int k = 0; k < 4; k++) {
				x ^= x << 13; x ^= x >> 17; x ^= x << 5;
				buf[x % (uint32_t)len] ^= (unsigned char)(1u << (x >> 29));
			}
			if (r % 4 == 3) n = (size_t)len / 2 + x % ((uint32_t)len / 2);
			rk_error err;
			memset(&err, 0, sizeof(err));
			rk_scene *s = rk_load_memory(buf, n, NULL, &err);
			if (!s) continue;
			loaded_total++;
			void *data = NULL;
			size_t size = 0;
			if (rk_gltf_write_memory(s, NULL, &data, &size, &err)) {
				tg_doc d;
				RK_CHECK(tg_parse_glb(data, size, &d));
				tg_free(&d);
				written++;
			} else {
				RK_CHECK(err.message[0] != '\0');
			}
			rk_gltf_memory_free(data);
			rk_scene_free(s);
		}
		free(orig);
		free(buf);
	}
	printf("corrupted FBX: %zu scenes loaded, %zu written\n", loaded_total, written);
}

/* ---------------------------------------------------------------------------
 * Shared assets
 * ------------------------------------------------------------------------- */

/* Static checks of one written GLB against the scene it came from. */
static void check_static(rk_test_state *rk_t_, const char *name, const rk_scene *s, const void *data, size_t size)
{
	tg_doc d;
	bool ok = tg_parse_glb(data, size, &d);
	if (!ok) fprintf(stderr, "%s: %s\n", name, d.error);
	RK_REQUIRE(ok);
	rk_mat4 c = conversion_of(s);
	rk_mat4 *wm = tg_worlds(&d);
	int nn = tg_count(tg_get(d.json, "nodes"));
	RK_CHECK(nn == (int)s->nodes.count || nn == (int)s->nodes.count - 1);
	double worst = 0.0;
	for (size_t i = 1; i < s->nodes.count; i++) {
		int g = gltf_node_of(&d, s, i);
		const char *gn = cJSON_GetStringValue(tg_get(tg_at(d.json, "nodes", g), "name"));
		if (s->nodes.data[i].name[0]) RK_CHECK_STR(gn, s->nodes.data[i].name);
		double e = mat_rel_diff(wm[g], rk_mat4_mul(c, s->nodes.data[i].node_to_world));
		if (e > worst) worst = e;
	}
	if (worst > 1e-9) fprintf(stderr, "%s: world matrix relative difference %g\n", name, worst);
	RK_CHECK(worst <= 1e-9);
	/* vertices: every glTF vertex lies on a rigkit vertex and vice versa */
	for (size_t i = 1; i < s->nodes.count; i++) {
		const rk_node *nd = &s->nodes.data[i];
		int g = gltf_node_of(&d, s, i);
		if (!nd->mesh || tg_int(tg_at(d.json, "nodes", g), "mesh", -1) < 0) continue;
		size_t ne = 0, ng = 0;
		rk_vec3 *exp = rk_face_vertices_world(s, nd, NULL, c, &ne);
		rk_vec3 *got = tg_mesh_world(&d, wm, g, NULL, &ng);
		RK_REQUIRE(exp && got);
		double lo[3] = { INFINITY, INFINITY, INFINITY }, hi[3] = { -INFINITY, -INFINITY, -INFINITY };
		for (size_t v = 0; v < ne; v++) {
			double p[3] = { exp[v].x, exp[v].y, exp[v].z };
			for (int k = 0; k < 3; k++) { lo[k] = fmin(lo[k], p[k]); hi[k] = fmax(hi[k], p[k]); }
		}
		double ext = fmax(hi[0] - lo[0], fmax(hi[1] - lo[1], hi[2] - lo[2]));
		double tol = 1e-5 * (ext > 0 ? ext : 1.0);
		double a = worst_nearest(got, ng, exp, ne, tol), b = worst_nearest(exp, ne, got, ng, tol);
		if (!(a <= tol && b <= tol))
			fprintf(stderr, "%s: mesh node %s: vertex distance %g / %g (tol %g, %zu vs %zu vertices)\n", name, nd->name, a, b, tol, ng, ne);
		RK_CHECK(a <= tol && b <= tol);
		free(exp);
		free(got);
	}
	free(wm);
	tg_free(&d);
}

RK_TEST(shared_assets_static)
{
	const char *dir = rk_test_shared_dir();
	if (!dir) RK_SKIP("shared assets not found");
	size_t n;
	char **names = shared_assets(dir, &n);
	RK_REQUIRE(n > 0);
	for (size_t i = 0; i < n; i++) {
		rk_scene *s = load_asset(dir, names[i]);
		if (!s) continue; /* the reader's tests report it */
		void *data;
		size_t size;
		rk_gltf_write_stats st;
		rk_gltf_write_opts o;
		memset(&o, 0, sizeof(o));
		o.stats = &st;
		RK_CHECK(write_mem(s, &o, &data, &size));
		if (data) {
			check_static(rk_t_, names[i], s, data, size);
			printf("%-20s %3zu nodes %2zu meshes %6zu triangles %6zu vertices %2zu skins %2zu images %zu animations (%zu channels, %zu baked) %zu warnings\n",
				names[i], st.node_count, st.mesh_count, st.triangle_count, st.vertex_count, st.skin_count, st.image_count,
				st.animation_count, st.channel_count, st.baked_channel_count, st.warning_count);
			rk_gltf_memory_free(data);
		}
		rk_scene_free(s);
	}
	free_names(names, n);
}

/* glTF-space world positions of named nodes and all mesh vertices of a GLB. */
static void glb_world_summary(const void *data, size_t size, rk_vec3 *node_pos, const char **names, size_t nnames,
	rk_vec3 **verts, size_t *nverts)
{
	tg_doc d;
	*verts = NULL;
	*nverts = 0;
	if (!tg_parse_glb(data, size, &d)) return;
	rk_mat4 *wm = tg_worlds(&d);
	int nn = tg_count(tg_get(d.json, "nodes"));
	for (size_t k = 0; k < nnames; k++) {
		node_pos[k] = (rk_vec3){ NAN, NAN, NAN };
		for (int i = 0; i < nn; i++)
			if (!strcmp(cJSON_GetStringValue(tg_get(tg_at(d.json, "nodes", i), "name")) ? cJSON_GetStringValue(tg_get(tg_at(d.json, "nodes", i), "name")) : "", names[k])) {
				node_pos[k] = rk_mat4_get_translation(wm[i]);
				break;
			}
	}
	for (int i = 0; i < nn; i++) {
		if (tg_int(tg_at(d.json, "nodes", i), "mesh", -1) < 0) continue;
		size_t n;
		rk_vec3 *v = tg_mesh_world(&d, wm, i, NULL, &n);
		*verts = (rk_vec3 *)realloc(*verts, (*nverts + n + 1) * sizeof(rk_vec3));
		memcpy(*verts + *nverts, v, n * sizeof(rk_vec3));
		*nverts += n;
		free(v);
	}
	free(wm);
	tg_free(&d);
}

/* Converting in the loader (target axes/unit, either conversion method) or
 * leaving it to the writer gives the same glTF world. */
RK_TEST(load_conversions_agree)
{
	const char *dir = rk_test_shared_dir();
	if (!dir) RK_SKIP("shared assets not found");
	const char *files[] = { "assets/ybot.fbx", "conformance/data/blender_340_z_up_7400_binary.fbx" };
	for (size_t fi = 0; fi < 2; fi++) {
		char path[4096];
		snprintf(path, sizeof(path), "%s/%s", dir, files[fi]);
		rk_vec3 *ref_v = NULL;
		size_t ref_n = 0;
		rk_vec3 ref_pos[64];
		const char *names[64];
		size_t nnames = 0;
		double size_ref = 1.0;
		for (int variant = 0; variant < 3; variant++) {
			rk_load_opts lo;
			memset(&lo, 0, sizeof(lo));
			if (variant > 0) {
				lo.target_axes = RK_AXES_RIGHT_HANDED_Y_UP;
				lo.target_unit_meters = 1.0;
				lo.space_conversion = variant == 2 ? RK_CONVERT_MODIFY_GEOMETRY : RK_CONVERT_ADJUST_TRANSFORMS;
			}
			rk_error err;
			memset(&err, 0, sizeof(err));
			rk_scene *s = rk_load_file(path, &lo, &err);
			if (!s) { fprintf(stderr, "%s: %s\n", path, err.message); RK_CHECK(s != NULL); break; }
			if (variant == 0) {
				RK_CHECK(!rk_axes_equal(s->settings.axes, RK_AXES_RIGHT_HANDED_Y_UP) || s->settings.unit_meters != 1.0);
				for (size_t i = 1; i < s->nodes.count && nnames < 64; i++)
					if (s->nodes.data[i].name[0]) names[nnames++] = strdup(s->nodes.data[i].name);
			}
			void *data;
			size_t size;
			RK_REQUIRE(write_mem(s, NULL, &data, &size));
			rk_vec3 pos[64], *v = NULL;
			size_t nv = 0;
			memset(pos, 0, sizeof(pos));
			glb_world_summary(data, size, pos, names, nnames, &v, &nv);
			if (variant == 0) {
				memcpy(ref_pos, pos, sizeof(pos));
				ref_v = v;
				ref_n = nv;
				double lo3[3] = { INFINITY, INFINITY, INFINITY }, hi3[3] = { -INFINITY, -INFINITY, -INFINITY };
				for (size_t k = 0; k < nv; k++) {
					double q[3] = { v[k].x, v[k].y, v[k].z };
					for (int c = 0; c < 3; c++) { lo3[c] = fmin(lo3[c], q[c]); hi3[c] = fmax(hi3[c], q[c]); }
				}
				size_ref = nv ? fmax(hi3[0] - lo3[0], fmax(hi3[1] - lo3[1], hi3[2] - lo3[2])) : 1.0;
				/* glTF is Y-up: the model's vertical extent is along Y */
				if (nv && fi == 0) RK_CHECK(hi3[1] - lo3[1] > 2.0 * (hi3[2] - lo3[2])); /* standing, not lying */
			} else {
				double tol = 1e-6 * size_ref;
				for (size_t k = 0; k < nnames; k++) {
					double e = rk_vec3_length(rk_vec3_sub(pos[k], ref_pos[k]));
					if (!(e <= tol)) fprintf(stderr, "%s variant %d: node %s differs by %g\n", files[fi], variant, names[k], e);
					RK_CHECK(e <= tol);
				}
				RK_CHECK_INT(nv, ref_n);
				double e1 = worst_nearest(v, nv, ref_v, ref_n, tol), e2 = worst_nearest(ref_v, ref_n, v, nv, tol);
				if (!(e1 <= tol && e2 <= tol)) fprintf(stderr, "%s variant %d: vertices differ by %g / %g\n", files[fi], variant, e1, e2);
				RK_CHECK(e1 <= tol && e2 <= tol);
				free(v);
			}
			rk_gltf_memory_free(data);
			rk_scene_free(s);
		}
		free(ref_v);
		for (size_t k = 0; k < nnames; k++) free((char *)names[k]);
	}
}

/* Sample times of a clip for comparisons: 10 frames on the bake grid. */
static size_t clip_times(const rk_scene *s, const rk_anim_clip *clip, double *out)
{
	double fps = s->settings.frame_rate > 0 ? s->settings.frame_rate : 30.0;
	double dur = clip->time_end - clip->time_begin;
	if (!(dur > 0)) { out[0] = clip->time_begin; return 1; }
	double frames = floor(dur * fps + 1e-6);
	for (int k = 0; k < 10; k++) {
		double f = floor(k * frames / 9.0 + 0.5);
		out[k] = fmin(clip->time_begin + f / fps, clip->time_end);
	}
	return 10;
}

typedef struct posed {
	rk_pose pose;
	void *mem;
} posed;

static bool pose_at(const rk_scene *s, const rk_anim_clip *clip, double t, posed *p)
{
	if (!p->mem) {
		size_t sz = rk_pose_memory_size(s);
		p->mem = malloc(sz);
		if (!rk_pose_init(&p->pose, s, p->mem, sz)) return false;
	}
	rk_pose_eval_job job;
	memset(&job, 0, sizeof(job));
	job.scene = s;
	job.clip = clip;
	job.time = t;
	job.pose = &p->pose;
	return rk_pose_eval_run(&job);
}

/* Compares scene b (read from a GLB written from a) with a: node worlds
 * (a converted by C), static skinned vertices, and every clip at 10 times.
 * Nodes correspond by order (b may have the extra root node first). */
static void compare_scenes(rk_test_state *rk_t_, const char *what, const rk_scene *a, const rk_scene *b, double anim_tol_rel)
{
	rk_mat4 c = conversion_of(a);
	size_t shift = b->nodes.count == a->nodes.count + 1 ? 1 : 0;
	RK_REQUIRE(b->nodes.count == a->nodes.count + shift);
	double worst = 0.0;
	for (size_t i = 1; i < a->nodes.count; i++) {
		const rk_node *na = &a->nodes.data[i], *nb = &b->nodes.data[i + shift];
		if (na->name[0]) RK_CHECK_STR(nb->name, na->name);
		double e = mat_rel_diff(rk_mat4_mul(c, na->node_to_world), nb->node_to_world);
		if (e > worst) worst = e;
	}
	if (worst > 1e-5) fprintf(stderr, "%s: node world relative difference %g\n", what, worst);
	RK_CHECK(worst <= 1e-5);
	/* height: extent of the static node positions and mesh vertices */
	double lo[3] = { INFINITY, INFINITY, INFINITY }, hi[3] = { -INFINITY, -INFINITY, -INFINITY };
	for (size_t i = 1; i < a->nodes.count; i++) {
		rk_vec3 p = rk_mat4_get_translation(rk_mat4_mul(c, a->nodes.data[i].node_to_world));
		double q[3] = { p.x, p.y, p.z };
		for (int k = 0; k < 3; k++) { lo[k] = fmin(lo[k], q[k]); hi[k] = fmax(hi[k], q[k]); }
	}
	for (size_t i = 1; i < a->nodes.count; i++) {
		const rk_node *na = &a->nodes.data[i], *nb = &b->nodes.data[i + shift];
		if (!na->mesh || !nb->mesh) continue;
		size_t ne, ng;
		rk_vec3 *pa = rk_face_vertices_world(a, na, NULL, c, &ne);
		rk_vec3 *pb = rk_face_vertices_world(b, nb, NULL, rk_mat4_identity(), &ng);
		RK_REQUIRE(pa && pb);
		for (size_t v = 0; v < ne; v++) {
			double q[3] = { pa[v].x, pa[v].y, pa[v].z };
			for (int k = 0; k < 3; k++) { lo[k] = fmin(lo[k], q[k]); hi[k] = fmax(hi[k], q[k]); }
		}
		double ext = fmax(hi[0] - lo[0], fmax(hi[1] - lo[1], hi[2] - lo[2]));
		double tol = 1e-5 * (ext > 0 ? ext : 1.0);
		double e1 = worst_nearest(pb, ng, pa, ne, tol), e2 = worst_nearest(pa, ne, pb, ng, tol);
		if (!(e1 <= tol && e2 <= tol)) fprintf(stderr, "%s: %s skinned vertices differ by %g / %g (tol %g)\n", what, na->name, e1, e2, tol);
		RK_CHECK(e1 <= tol && e2 <= tol);
		free(pa);
		free(pb);
	}
	double height = fmax(hi[0] - lo[0], fmax(hi[1] - lo[1], hi[2] - lo[2]));
	if (!(height > 0)) height = 1.0;
	/* animation: clips in order, those b kept matched by name */
	posed pa = { 0 }, pb = { 0 };
	size_t kb = 0;
	for (size_t ci = 0; ci < a->clips.count && kb < b->clips.count; ci++) {
		const rk_anim_clip *ca = &a->clips.data[ci], *cb = &b->clips.data[kb];
		if (strcmp(ca->name, cb->name) != 0) continue; /* a clip with nothing to write */
		kb++;
		double times[10];
		size_t nt = clip_times(a, ca, times);
		double worst_pos = 0.0;
		for (size_t k = 0; k < nt; k++) {
			RK_REQUIRE(pose_at(a, ca, times[k], &pa));
			RK_REQUIRE(pose_at(b, cb, cb->time_begin + (times[k] - ca->time_begin), &pb));
			for (size_t i = 1; i < a->nodes.count; i++) {
				rk_vec3 x = rk_mat4_get_translation(rk_mat4_mul(c, pa.pose.node_to_world[i]));
				rk_vec3 y = rk_mat4_get_translation(pb.pose.node_to_world[i + shift]);
				double e = rk_vec3_length(rk_vec3_sub(x, y));
				if (e > worst_pos) worst_pos = e;
			}
			/* deformed vertices (skinning, morph weights) at a few times */
			if (k % 3 != 0) continue;
			for (size_t i = 1; i < a->nodes.count; i++) {
				const rk_node *na = &a->nodes.data[i], *nb = &b->nodes.data[i + shift];
				if (!na->mesh || !nb->mesh) continue;
				size_t ne, ng;
				rk_vec3 *va = rk_face_vertices_world(a, na, &pa.pose, c, &ne);
				rk_vec3 *vb = rk_face_vertices_world(b, nb, &pb.pose, rk_mat4_identity(), &ng);
				RK_REQUIRE(va && vb);
				double tol = anim_tol_rel * height;
				double e1 = worst_nearest(vb, ng, va, ne, tol), e2 = worst_nearest(va, ne, vb, ng, tol);
				if (!(e1 <= tol && e2 <= tol))
					fprintf(stderr, "%s: clip %s t=%g: %s vertices differ by %g / %g (tol %g)\n", what, ca->name, times[k], na->name, e1, e2, tol);
				RK_CHECK(e1 <= tol && e2 <= tol);
				free(va);
				free(vb);
			}
		}
		if (worst_pos > anim_tol_rel * height)
			fprintf(stderr, "%s: clip %s: node positions differ by %g (height %g)\n", what, ca->name, worst_pos, height);
		RK_CHECK(worst_pos <= anim_tol_rel * height);
	}
	free(pa.mem);
	free(pb.mem);
}

RK_TEST(round_trip_shared_assets)
{
	const char *dir = rk_test_shared_dir();
	if (!dir) RK_SKIP("shared assets not found");
	size_t n;
	char **names = shared_assets(dir, &n);
	for (size_t i = 0; i < n; i++) {
		rk_scene *a = load_asset(dir, names[i]);
		if (!a) continue;
		void *d1 = NULL, *d2 = NULL;
		size_t s1 = 0, s2 = 0;
		rk_error err;
		memset(&err, 0, sizeof(err));
		RK_CHECK(write_mem(a, NULL, &d1, &s1));
		rk_scene *b = d1 ? rk_load_memory(d1, s1, NULL, &err) : NULL;
		if (d1 && !b && err.code == RK_ERROR_UNSUPPORTED) {
			rk_scene_free(a);
			rk_gltf_memory_free(d1);
			free_names(names, n);
			RK_SKIP("the glTF reader is not available");
		}
		if (!b) {
			char msg[1024];
			rk_error_format(msg, sizeof(msg), &err);
			fprintf(stderr, "%s: written GLB does not load: %s\n", names[i], msg);
		}
		RK_CHECK(b != NULL);
		rk_scene *c = NULL;
		if (b) {
			RK_CHECK(write_mem(b, NULL, &d2, &s2));
			c = d2 ? rk_load_memory(d2, s2, NULL, &err) : NULL;
			RK_CHECK(c != NULL);
		}
		char what[256];
		if (b) {
			snprintf(what, sizeof(what), "%s -> glb", names[i]);
			compare_scenes(rk_t_, what, a, b, 1e-4);
		}
		if (b && c) {
			snprintf(what, sizeof(what), "%s -> glb -> glb", names[i]);
			RK_CHECK_INT(c->nodes.count, b->nodes.count);
			RK_CHECK_INT(c->clips.count, b->clips.count);
			if (c->nodes.count == b->nodes.count) compare_scenes(rk_t_, what, b, c, 1e-5);
		}
		rk_scene_free(c);
		rk_scene_free(b);
		rk_scene_free(a);
		rk_gltf_memory_free(d1);
		rk_gltf_memory_free(d2);
	}
	free_names(names, n);
}

/* ---------------------------------------------------------------------------
 * Files for tests/test_gltf_interop.sh
 * ------------------------------------------------------------------------- */

static void json_vec(FILE *f, rk_vec3 v)
{
	fprintf(f, "[%.9g,%.9g,%.9g]", v.x, v.y, v.z);
}

/* Mesh world bounding boxes (glTF space) of every mesh node written. */
static void json_mesh_boxes(FILE *f, const rk_scene *s, const rk_pose *pose, rk_mat4 c, const tg_doc *d)
{
	fprintf(f, "[");
	bool first = true;
	for (size_t i = 1; i < s->nodes.count; i++) {
		const rk_node *nd = &s->nodes.data[i];
		int g = gltf_node_of(d, s, i);
		if (!nd->mesh || tg_int(tg_at(d->json, "nodes", g), "mesh", -1) < 0) continue;
		size_t n;
		rk_vec3 *p = rk_face_vertices_world(s, nd, pose, c, &n);
		if (!p || n == 0) { free(p); continue; }
		rk_vec3 lo = p[0], hi = p[0];
		for (size_t v = 1; v < n; v++) {
			lo.x = fmin(lo.x, p[v].x); lo.y = fmin(lo.y, p[v].y); lo.z = fmin(lo.z, p[v].z);
			hi.x = fmax(hi.x, p[v].x); hi.y = fmax(hi.y, p[v].y); hi.z = fmax(hi.z, p[v].z);
		}
		free(p);
		fprintf(f, "%s{\"node\":%d,\"min\":", first ? "" : ",", g);
		json_vec(f, lo);
		fprintf(f, ",\"max\":");
		json_vec(f, hi);
		fprintf(f, "}");
		first = false;
	}
	fprintf(f, "]");
}

static void json_positions(FILE *f, const rk_scene *s, const rk_mat4 *worlds, rk_mat4 c)
{
	fprintf(f, "[");
	for (size_t i = 1; i < s->nodes.count; i++) {
		if (i > 1) fprintf(f, ",");
		json_vec(f, rk_mat4_get_translation(rk_mat4_mul(c, worlds[i])));
	}
	fprintf(f, "]");
}

/* Warnings that announce a documented approximation (gltf.h). */
typedef struct approx_list {
	char text[1024];
} approx_list;

static void collect_approx(void *user, const rk_warning *w)
{
	const char *message = w->message;
	approx_list *a = (approx_list *)user;
	static const char *const keys[] = { "shears", "dual quaternion", "in-between", "instanced by" };
	for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
		if (!strstr(message, keys[k]) || strstr(a->text, keys[k])) continue;
		size_t l = strlen(a->text);
		snprintf(a->text + l, sizeof(a->text) - l, "%s\"%s\"", l ? "," : "", keys[k]);
	}
}

/* Writes OUT/NAME.glb and OUT/NAME.expected.json. */
static void export_one(rk_test_state *rk_t_, const char *out, const char *name, const rk_scene *s)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s.glb", out, name);
	rk_error err;
	memset(&err, 0, sizeof(err));
	approx_list approx;
	approx.text[0] = '\0';
	rk_gltf_write_opts wo;
	memset(&wo, 0, sizeof(wo));
	wo.warning = collect_approx;
	wo.warning_user = &approx;
	bool wrote = rk_gltf_write(s, path, &wo, &err);
	RK_CHECK(wrote);
	if (!wrote) return;
	void *data;
	size_t size;
	RK_REQUIRE(write_mem(s, NULL, &data, &size));
	tg_doc d;
	if (!tg_parse_glb(data, size, &d)) {
		rk_gltf_memory_free(data);
		RK_CHECK(!"written GLB parses");
		return;
	}
	snprintf(path, sizeof(path), "%s/%s.expected.json", out, name);
	FILE *f = fopen(path, "w");
	if (!f) {
		tg_free(&d);
		rk_gltf_memory_free(data);
		RK_CHECK(!"cannot create the expected.json file");
		return;
	}
	rk_mat4 c = conversion_of(s);
	/* height: extent of the static scene (nodes and mesh vertices) */
	double lo[3] = { INFINITY, INFINITY, INFINITY }, hi[3] = { -INFINITY, -INFINITY, -INFINITY };
	for (size_t i = 1; i < s->nodes.count; i++) {
		rk_vec3 p = rk_mat4_get_translation(rk_mat4_mul(c, s->nodes.data[i].node_to_world));
		double q[3] = { p.x, p.y, p.z };
		for (int k = 0; k < 3; k++) { lo[k] = fmin(lo[k], q[k]); hi[k] = fmax(hi[k], q[k]); }
		if (!s->nodes.data[i].mesh) continue;
		size_t n;
		rk_vec3 *v = rk_face_vertices_world(s, &s->nodes.data[i], NULL, c, &n);
		for (size_t k2 = 0; v && k2 < n; k2++) {
			double r[3] = { v[k2].x, v[k2].y, v[k2].z };
			for (int k = 0; k < 3; k++) { lo[k] = fmin(lo[k], r[k]); hi[k] = fmax(hi[k], r[k]); }
		}
		free(v);
	}
	double height = fmax(hi[0] - lo[0], fmax(hi[1] - lo[1], hi[2] - lo[2]));
	if (!(height > 0) || !isfinite(height)) height = 1.0;
	fprintf(f, "{\"glb\":\"%s.glb\",\"height\":%.9g,\"tolerance\":%.9g,\"approximate\":[%s],\"nodes\":[", name, height,
		1e-4 * height, approx.text);
	for (size_t i = 1; i < s->nodes.count; i++) fprintf(f, "%s%d", i > 1 ? "," : "", gltf_node_of(&d, s, i));
	fprintf(f, "],\"static\":{\"positions\":");
	rk_mat4 *sw = (rk_mat4 *)malloc(s->nodes.count * sizeof(rk_mat4));
	for (size_t i = 0; i < s->nodes.count; i++) sw[i] = s->nodes.data[i].node_to_world;
	json_positions(f, s, sw, c);
	free(sw);
	fprintf(f, ",\"meshes\":");
	json_mesh_boxes(f, s, NULL, c, &d);
	fprintf(f, "},\"clips\":[");
	const cJSON *anims = tg_get(d.json, "animations");
	int ga = 0;
	posed p = { 0 };
	bool first = true;
	for (size_t ci = 0; ci < s->clips.count && ga < tg_count(anims); ci++) {
		const rk_anim_clip *clip = &s->clips.data[ci];
		const char *gname = cJSON_GetStringValue(tg_get(cJSON_GetArrayItem(anims, ga), "name"));
		if (!gname || strcmp(gname, clip->name) != 0) continue;
		double times[10];
		size_t nt = clip_times(s, clip, times);
		fprintf(f, "%s{\"name\":\"%s\",\"animation\":%d,\"samples\":[", first ? "" : ",", clip->name, ga);
		first = false;
		for (size_t k = 0; k < nt; k++) {
			if (!pose_at(s, clip, times[k], &p)) break;
			/* glTF times are the file's (only a negative start is moved to 0) */
			fprintf(f, "%s{\"time\":%.9g,\"positions\":", k ? "," : "",
				times[k] - (clip->time_begin < 0.0 ? clip->time_begin : 0.0));
			json_positions(f, s, p.pose.node_to_world, c);
			fprintf(f, ",\"meshes\":");
			json_mesh_boxes(f, s, &p.pose, c, &d);
			fprintf(f, "}");
		}
		fprintf(f, "]}");
		ga++;
	}
	fprintf(f, "]}\n");
	free(p.mem);
	fclose(f);
	tg_free(&d);
	rk_gltf_memory_free(data);
}

RK_TEST(export_interop)
{
	const char *out = getenv("RK_GLTF_EXPORT_DIR");
	if (!out || !out[0]) RK_SKIP("RK_GLTF_EXPORT_DIR not set (run by tests/test_gltf_interop.sh)");
	mkdir(out, 0755);
	/* hand-built scenes */
	test_scene t;
	build_hand_scene(&t);
	export_one(rk_t_, out, "hand_quad_triangle", &t.s);
	/* the .gltf container, for the validator */
	char gpath[4096];
	rk_error gerr;
	memset(&gerr, 0, sizeof(gerr));
	snprintf(gpath, sizeof(gpath), "%s/hand_quad_triangle_json.gltf", out);
	RK_CHECK(rk_gltf_write(&t.s, gpath, NULL, &gerr));
	rk_vec3 pos[6];
	uint32_t vi[6];
	rk_face face;
	build_hexagon_scene(&t, pos, vi, &face, rk_quat_axis_angle((rk_vec3){ 1, 2, 3 }, 0.7), (rk_vec3){ 5, -3, 2 });
	export_one(rk_t_, out, "hand_concave_hexagon", &t.s);
	/* every shared asset, and the conformance FBX files when asked */
	const char *dir = rk_test_shared_dir();
	if (!dir) return;
	size_t n;
	char **names = shared_assets(dir, &n);
	for (size_t i = 0; i < n; i++) {
		rk_scene *s = load_asset(dir, names[i]);
		if (!s) continue;
		char stem[256];
		snprintf(stem, sizeof(stem), "%s", names[i]);
		char *dot = strrchr(stem, '.');
		if (dot) { *dot = '_'; } /* ybot.fbx -> ybot_fbx */
		export_one(rk_t_, out, stem, s);
		snprintf(gpath, sizeof(gpath), "%s/%s_json.gltf", out, stem);
		RK_CHECK(rk_gltf_write(s, gpath, NULL, &gerr));
		rk_scene_free(s);
	}
	free_names(names, n);
	if (getenv("RK_GLTF_EXPORT_CONFORMANCE")) {
		char cdir[4096];
		snprintf(cdir, sizeof(cdir), "%s/conformance/data", dir);
		DIR *dd = opendir(cdir);
		struct dirent *e;
		while (dd && (e = readdir(dd))) {
			size_t l = strlen(e->d_name);
			if (l < 5 || strcmp(e->d_name + l - 4, ".fbx") != 0) continue;
			char path[4400];
			snprintf(path, sizeof(path), "%s/%s", cdir, e->d_name);
			rk_error err;
			memset(&err, 0, sizeof(err));
			rk_scene *s = rk_load_file(path, NULL, &err);
			if (!s) continue;
			char stem[300];
			snprintf(stem, sizeof(stem), "conformance_%.*s", (int)(l - 4), e->d_name);
			export_one(rk_t_, out, stem, s);
			rk_scene_free(s);
		}
		if (dd) closedir(dd);
	}
}

RK_TEST_MAIN(
	RK_TEST_ENTRY(triangulate_concave_polygons),
	RK_TEST_ENTRY(concave_hexagon_through_writer),
	RK_TEST_ENTRY(hand_scene_attributes),
	RK_TEST_ENTRY(geometric_transform_mirror),
	RK_TEST_ENTRY(skin_hand_built),
	RK_TEST_ENTRY(textures_embedded),
	RK_TEST_ENTRY(morph_targets),
	RK_TEST_ENTRY(computed_normals_match_expansion),
	RK_TEST_ENTRY(texture_uv_set_becomes_texcoord_0),
	RK_TEST_ENTRY(baked_animation),
	RK_TEST_ENTRY(meshopt_compressed),
	RK_TEST_ENTRY(atomic_output),
	RK_TEST_ENTRY(bad_inputs_rejected),
	RK_TEST_ENTRY(allocation_failures_leak_nothing),
	RK_TEST_ENTRY(hostile_scene_values),
	RK_TEST_ENTRY(corrupted_fbx_scenes_write),
	RK_TEST_ENTRY(shared_assets_static),
	RK_TEST_ENTRY(load_conversions_agree),
	RK_TEST_ENTRY(round_trip_shared_assets),
	RK_TEST_ENTRY(export_interop))
