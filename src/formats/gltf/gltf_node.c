/* src/formats/gltf/gltf_node.c - nodes, scenes, hierarchy order and skins of the
 * glTF reader. */
#include "gltf_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- nodes -------------------------------------------------------------------- */

/* Local transform of node i from "matrix" or translation/rotation/scale. */
static bool rki_gltf_node_transform(rki_gltf *g, const rki_json *obj, const rki_gltf_loc *base, rk_trs *out)
{
	double v[16];
	bool has_matrix, present;
	*out = rk_trs_identity();
	if (!rki_gltf_numbers(g, obj, base, "matrix", 16, v, &has_matrix)) return false;
	if (has_matrix) {
		if (rki_gltf_member(obj, "translation") || rki_gltf_member(obj, "rotation") || rki_gltf_member(obj, "scale"))
			rki_gltf_warn(g, base, "node has both matrix and translation/rotation/scale: the matrix is used");
		rk_mat4 m;
		double big = 1.0;
		for (int k = 0; k < 16; k++) {
			m.m[k] = v[k];
			if (k % 4 != 3 && k < 12 && fabs(v[k]) > big) big = fabs(v[k]);
		}
		*out = rk_mat4_decompose(m);
		rk_mat4 back = rk_mat4_from_trs(*out);
		double diff = 0.0;
		for (int k = 0; k < 16; k++) {
			if (k >= 12) continue; /* translation is exact; bottom row checked below */
			double d = fabs(back.m[k] - m.m[k]);
			if (d > diff) diff = d;
		}
		if (diff > 1e-5 * big)
			rki_gltf_warn(g, base, "node matrix has shear: decomposed approximately into translation/rotation/scale");
		if (m.m[3] != 0.0 || m.m[7] != 0.0 || m.m[11] != 0.0 || m.m[15] != 1.0)
			rki_gltf_warn(g, base, "node matrix is not affine (bottom row is not 0 0 0 1): bottom row ignored");
		return true;
	}
	if (!rki_gltf_numbers(g, obj, base, "translation", 3, v, &present)) return false;
	if (present) out->translation = (rk_vec3){ v[0], v[1], v[2] };
	if (!rki_gltf_numbers(g, obj, base, "rotation", 4, v, &present)) return false;
	if (present) {
		rk_quat q = { v[0], v[1], v[2], v[3] };
		double len = sqrt(rk_quat_dot(q, q));
		if (len == 0.0) rki_gltf_warn(g, base, "node rotation is a zero quaternion: identity used");
		else if (fabs(len - 1.0) > 1e-3) rki_gltf_warn(g, base, "node rotation is not a unit quaternion: normalised");
		out->rotation = rk_quat_normalize(q);
	}
	if (!rki_gltf_numbers(g, obj, base, "scale", 3, v, &present)) return false;
	if (present) out->scale = (rk_vec3){ v[0], v[1], v[2] };
	return true;
}

static bool rki_gltf_fill_node(rki_gltf *g, size_t i, rk_node *n)
{
	const rki_gltf_loc *base = RKI_GLTF_IDX(RKI_GLTF_KEY(NULL, "nodes"), i);
	const rki_json *obj = &g->nodes.items[i], *name;
	size_t camera;
	if (!rki_gltf_string(g, obj, base, "name", &name)) return false;
	n->name = rki_gltf_json_strdup(g, g->sc.arena, name); /* "" when unnamed: names stay as in the file */
	if (!n->name) return false;
	n->source_id = i;
	n->attribute_type = "";
	n->visible = true;
	n->has_fbx_props = false;
	n->adjust = rk_adjust_transform_identity();
	if (!rki_gltf_node_transform(g, obj, base, &n->local)) return false;
	n->props = rk_transform_props_default();
	n->props.translation = n->local.translation;
	n->props.rotation = rk_quat_to_euler_deg(n->local.rotation, RK_ROTATION_XYZ);
	n->props.scaling = n->local.scale;
	if (!rki_gltf_index(g, obj, base, "mesh", g->meshes.count, "meshes", false, &g->node_mesh[i])) return false;
	if (!rki_gltf_index(g, obj, base, "skin", g->skins.count, "skins", false, &g->node_skin[i])) return false;
	if (!rki_gltf_index(g, obj, base, "camera", g->cameras.count, "cameras", false, &camera)) return false;
	const rki_json *exts;
	if (!rki_gltf_object(g, obj, base, "extensions", &exts)) return false;
	n->kind = RK_NODE_NULL;
	size_t m = g->node_mesh[i];
	if (m != RKI_GLTF_NONE && g->mesh_info[m].mesh) {
		n->mesh = g->mesh_info[m].mesh;
		n->kind = RK_NODE_MESH;
	} else if (camera != RKI_GLTF_NONE) {
		n->kind = RK_NODE_CAMERA;
	} else if (exts && rki_gltf_member(exts, "KHR_lights_punctual")) {
		n->kind = RK_NODE_LIGHT;
	}
	/* Static morph weights: node.weights, else the mesh defaults. */
	size_t K = n->mesh ? n->mesh->blend_channels.count : 0;
	const rki_json *w = rki_gltf_member(obj, "weights");
	if (w && K == 0 && !g->sc.opts.ignore_geometry) rki_gltf_warn(g, base, "node.weights on a node whose mesh has no morph targets: ignored");
	if (K > 0) {
		double *bw = (double *)rki_arena_array(g->sc.arena, K, sizeof(double));
		if (!bw) return rki_gltf_oom(g);
		for (size_t k = 0; k < K; k++) bw[k] = n->mesh->blend_channels.data[k].default_weight;
		if (w && w->type == RKI_JSON_ARRAY && w->len != K)
			rki_gltf_warn(g, base, "node.weights length differs from the number of morph targets: mesh weights used");
		else if (!rki_gltf_numbers(g, obj, base, "weights", K, bw, NULL))
			return false;
		n->blend_weights = bw;
	}
	return true;
}

bool rki_gltf_load_nodes(rki_gltf *g)
{
	rk_scene *s = g->sc.scene;
	rki_arena *tmp = &g->sc.tmp;
	size_t N = g->nodes.count;
	if (N >= UINT32_MAX - 1) return rki_gltf_fail(g, RK_ERROR_LIMIT, RKI_GLTF_KEY(NULL, "nodes"), "too many nodes");
	size_t *parent = (size_t *)rki_arena_array(tmp, N, sizeof(size_t));
	size_t *depth = (size_t *)rki_arena_array(tmp, N, sizeof(size_t));
	unsigned char *state = (unsigned char *)rki_arena_array(tmp, N, 1);
	size_t *chain = (size_t *)rki_arena_array(tmp, N, sizeof(size_t));
	size_t *roots = (size_t *)rki_arena_array(tmp, N, sizeof(size_t));
	size_t *bfs = (size_t *)rki_arena_array(tmp, N, sizeof(size_t));
	uint32_t *label = (uint32_t *)rki_arena_array(tmp, N, sizeof(uint32_t));
	/* children of node i: child_list[child_begin[i] .. child_begin[i + 1]) (each node is a child once at most) */
	size_t *child_begin = (size_t *)rki_arena_array(tmp, N + 1, sizeof(size_t));
	size_t *child_list = (size_t *)rki_arena_array(tmp, N, sizeof(size_t));
	g->node_map = (rk_node **)rki_arena_array(tmp, N, sizeof(rk_node *));
	g->node_mesh = (size_t *)rki_arena_array(tmp, N, sizeof(size_t));
	g->node_skin = (size_t *)rki_arena_array(tmp, N, sizeof(size_t));
	if (!parent || !depth || !state || !chain || !roots || !bfs || !label || !child_begin || !child_list || !g->node_map
		|| !g->node_mesh || !g->node_skin)
		return rki_gltf_oom(g);
	for (size_t i = 0; i < N; i++) parent[i] = RKI_GLTF_NONE;

	/* Parent links: every child index valid, at most one parent each. */
	size_t child_total = 0;
	for (size_t i = 0; i < N; i++) {
		const rki_gltf_loc *base = RKI_GLTF_IDX(RKI_GLTF_KEY(NULL, "nodes"), i), *cpath = RKI_GLTF_KEY(base, "children");
		const rki_json *children;
		size_t count;
		if (!rki_gltf_array(g, &g->nodes.items[i], base, "children", &children, &count)) return false;
		child_begin[i] = child_total;
		for (size_t k = 0; k < count; k++) {
			const rki_gltf_loc *path = RKI_GLTF_IDX(cpath, k);
			size_t ci;
			if (!rki_gltf_index_value(g, &children->u.items[k], path, N, "nodes", &ci)) return false;
			if (ci == i) return rki_gltf_fail(g, RK_ERROR_CORRUPT, path, "node %zu lists itself as a child", i);
			if (parent[ci] != RKI_GLTF_NONE)
				return rki_gltf_fail(g, RK_ERROR_CORRUPT, path,
					"node %zu is a child of both node %zu and node %zu; expected at most one parent", ci, parent[ci], i);
			parent[ci] = i;
			child_list[child_total++] = ci;
		}
	}
	child_begin[N] = child_total;
	/* Cycles and depth: walk up from every node (each node is finished once). */
	for (size_t i = 0; i < N; i++) {
		if (state[i] == 2) continue;
		size_t len = 0, v = i;
		while (v != RKI_GLTF_NONE && state[v] == 0) {
			state[v] = 1;
			chain[len++] = v;
			v = parent[v];
		}
		if (v != RKI_GLTF_NONE && state[v] == 1) {
			return rki_gltf_fail_key(g, RK_ERROR_CORRUPT, RKI_GLTF_IDX(RKI_GLTF_KEY(NULL, "nodes"), parent[v]), "children",
				"node hierarchy has a cycle through node %zu; expected a tree (a node cannot be its own ancestor)", v);
		}
		size_t d = v == RKI_GLTF_NONE ? 0 : depth[v];
		while (len > 0) {
			size_t u = chain[--len];
			depth[u] = ++d;
			state[u] = 2;
			if (d > g->sc.opts.max_depth) {
				return rki_gltf_fail(g, RK_ERROR_LIMIT, RKI_GLTF_IDX(RKI_GLTF_KEY(NULL, "nodes"), u), "node nesting depth %zu is over the max_depth limit %zu", d,
					g->sc.opts.max_depth);
			}
		}
	}

	/* Roots: the loaded scene's nodes in order, then parentless nodes of no scene. */
	size_t scene = RKI_GLTF_NONE, root_count = 0;
	if (!rki_gltf_index(g, g->json, NULL, "scene", g->scenes.count, "scenes", false, &scene)) return false;
	if (scene == RKI_GLTF_NONE && g->scenes.count > 0) scene = 0;
	memset(state, 0, N);
	if (scene != RKI_GLTF_NONE) {
		const rki_gltf_loc *base = RKI_GLTF_IDX(RKI_GLTF_KEY(NULL, "scenes"), scene), *npath = RKI_GLTF_KEY(base, "nodes");
		const rki_json *list;
		size_t count;
		if (!rki_gltf_array(g, &g->scenes.items[scene], base, "nodes", &list, &count)) return false;
		if (!(s->scene_name = rki_gltf_name(g, &g->scenes.items[scene], base))) return false;
		for (size_t k = 0; k < count; k++) {
			const rki_gltf_loc *path = RKI_GLTF_IDX(npath, k);
			size_t ni;
			if (!rki_gltf_index_value(g, &list->u.items[k], path, N, "nodes", &ni)) return false;
			if (parent[ni] != RKI_GLTF_NONE) {
				rki_gltf_warn(g, path, "scene lists a node that has a parent: the entry is ignored");
				continue;
			}
			if (state[ni]) {
				rki_gltf_warn(g, path, "scene lists a node twice: the repeat is ignored");
				continue;
			}
			state[ni] = 1;
			roots[root_count++] = ni;
		}
	}
	size_t extra = 0, first_extra = 0;
	for (size_t i = 0; i < N; i++) {
		if (parent[i] != RKI_GLTF_NONE || state[i]) continue;
		if (!extra) first_extra = i;
		extra++;
		roots[root_count++] = i;
	}
	if (extra) {
		const rki_gltf_loc *path = RKI_GLTF_IDX(RKI_GLTF_KEY(NULL, "nodes"), first_extra);
		if (scene != RKI_GLTF_NONE)
			rki_gltf_warn(g, path, "%zu root node(s) are not in the loaded scene %zu: added under the root too", extra, scene);
		else
			rki_gltf_warn(g, path, "file has no scenes: its %zu root node(s) are added under the root", extra);
	}

	/* Breadth-first labels give siblings increasing labels in file order, so
	 * rki_depth_first_order (children in label order) keeps the file order. */
	size_t head = 0, tail = 0;
	for (size_t r = 0; r < root_count; r++) {
		bfs[tail] = roots[r];
		label[roots[r]] = (uint32_t)(++tail);
	}
	while (head < tail) {
		size_t v = bfs[head++];
		for (size_t k = child_begin[v]; k < child_begin[v + 1]; k++) {
			size_t ci = child_list[k];
			bfs[tail] = ci;
			label[ci] = (uint32_t)(++tail);
		}
	}
	if (tail != N) return rki_gltf_fail(g, RK_ERROR_CORRUPT, RKI_GLTF_KEY(NULL, "nodes"), "node hierarchy is not a forest");
	uint32_t *lparent = (uint32_t *)rki_arena_array(tmp, N + 1, sizeof(uint32_t));
	uint32_t *order = (uint32_t *)rki_arena_array(tmp, N + 1, sizeof(uint32_t));
	uint32_t *scratch = (uint32_t *)rki_arena_array(tmp, N + 1, 3 * sizeof(uint32_t));
	rk_node *nodes = (rk_node *)rki_arena_array(g->sc.arena, N + 1, sizeof(rk_node));
	if (!lparent || !order || !scratch || !nodes) return rki_gltf_oom(g);
	lparent[0] = UINT32_MAX;
	for (size_t i = 0; i < N; i++) lparent[label[i]] = parent[i] == RKI_GLTF_NONE ? 0 : label[parent[i]];
	if (!rki_depth_first_order(N + 1, lparent, order, scratch) || order[0] != 0)
		return rki_gltf_fail(g, RK_ERROR_CORRUPT, RKI_GLTF_KEY(NULL, "nodes"), "node hierarchy is not a forest");
	for (size_t k = 1; k <= N; k++) g->node_map[bfs[order[k] - 1]] = &nodes[k];
	s->nodes.data = nodes;
	s->nodes.count = N + 1;
	s->root = &nodes[0];

	rk_node *root = &nodes[0];
	root->name = "";
	root->kind = RK_NODE_ROOT;
	root->attribute_type = "";
	root->visible = true;
	root->local = rk_trs_identity();
	root->props = rk_transform_props_default();
	root->adjust = rk_adjust_transform_identity();
	root->children.data = (rk_node **)rki_arena_array(g->sc.arena, root_count, sizeof(rk_node *));
	if (!root->children.data) return rki_gltf_oom(g);
	root->children.count = root_count;
	for (size_t r = 0; r < root_count; r++) root->children.data[r] = g->node_map[roots[r]];

	for (size_t k = 0; k <= N; k++) nodes[k].index = (uint32_t)k;
	for (size_t i = 0; i < N; i++) {
		rk_node *n = g->node_map[i];
		n->parent = parent[i] == RKI_GLTF_NONE ? root : g->node_map[parent[i]];
		n->depth = (uint32_t)depth[i];
		size_t cb = child_begin[i], cc = child_begin[i + 1] - cb;
		n->children.data = (rk_node **)rki_arena_array(g->sc.arena, cc, sizeof(rk_node *));
		if (!n->children.data) return rki_gltf_oom(g);
		n->children.count = cc;
		for (size_t k = 0; k < cc; k++) n->children.data[k] = g->node_map[child_list[cb + k]];
		if (!rki_gltf_fill_node(g, i, n)) return false;
	}
	return true;
}

/* ---- skins ---------------------------------------------------------------------------- */

typedef struct rki_gltf_skin_src {
	const char *name;
	size_t joint_count;
	size_t *joints;              /* node indices */
	rk_mat4 *ibm;                /* joint_count matrices or NULL (identity) */
	size_t skeleton;
	bool used;
	/* inverses of the inverse bind matrices, shared by the rk_skins of this
	 * skin (made when the first one is built) */
	rk_mat4 *joint_to_mesh;
	unsigned char *singular;     /* scene arena: per joint, the IBM has no inverse */
} rki_gltf_skin_src;

static bool rki_gltf_skin_inverses(rki_gltf *g, rki_gltf_skin_src *src)
{
	size_t n = src->joint_count;
	src->joint_to_mesh = (rk_mat4 *)rki_gltf_array_uninit(&g->sc.tmp, n, sizeof(rk_mat4));
	src->singular = (unsigned char *)rki_arena_array(g->sc.arena, n, 1);
	if (!src->joint_to_mesh || !src->singular) return rki_gltf_oom(g);
	for (size_t j = 0; j < n; j++) {
		if (!src->ibm) src->joint_to_mesh[j] = rk_mat4_identity();
		else if (!rk_mat4_invert(src->ibm[j], &src->joint_to_mesh[j])) src->singular[j] = 1;
	}
	return true;
}

/* One rk_skin_deformer: a glTF skin applied to one glTF mesh (mesh NONE = unused skin). */
typedef struct rki_gltf_skin_key {
	size_t skin, mesh, node;
} rki_gltf_skin_key;

static int rki_gltf_skin_key_cmp(const void *pa, const void *pb)
{
	const rki_gltf_skin_key *a = (const rki_gltf_skin_key *)pa, *b = (const rki_gltf_skin_key *)pb;
	if (a->skin != b->skin) return a->skin < b->skin ? -1 : 1;
	if (a->mesh != b->mesh) return a->mesh < b->mesh ? -1 : 1;
	if (a->node != b->node) return a->node < b->node ? -1 : 1;
	return 0;
}

static bool rki_gltf_skin_source(rki_gltf *g, size_t si, rki_gltf_skin_src *src)
{
	const rki_gltf_loc *base = RKI_GLTF_IDX(RKI_GLTF_KEY(NULL, "skins"), si), *jpath = RKI_GLTF_KEY(base, "joints");
	const rki_json *obj = &g->skins.items[si], *list;
	size_t count, ibm;
	if (!(src->name = rki_gltf_name(g, obj, base))) return false;
	if (!rki_gltf_array(g, obj, base, "joints", &list, &count)) return false;
	if (!list) return rki_gltf_fail(g, RK_ERROR_CORRUPT, jpath, "skin needs a \"joints\" array");
	if (count == 0) rki_gltf_warn(g, jpath, "skin has no joints");
	src->joints = (size_t *)rki_arena_array(&g->sc.tmp, count, sizeof(size_t));
	if (!src->joints) return rki_gltf_oom(g);
	for (size_t k = 0; k < count; k++)
		if (!rki_gltf_index_value(g, &list->u.items[k], RKI_GLTF_IDX(jpath, k), g->nodes.count, "nodes", &src->joints[k])) return false;
	src->joint_count = count;
	if (!rki_gltf_index(g, obj, base, "skeleton", g->nodes.count, "nodes", false, &src->skeleton)) return false;
	if (!rki_gltf_index(g, obj, base, "inverseBindMatrices", g->accessors.count, "accessors", false, &ibm)) return false;
	if (ibm != RKI_GLTF_NONE) {
		const rki_gltf_loc *ipath = RKI_GLTF_KEY(base, "inverseBindMatrices");
		rki_gltf_accessor acc;
		if (!rki_gltf_accessor_open(g, ibm, false, &acc)) return false;
		if (!rki_gltf_accessor_expect(g, &acc, ipath, "inverseBindMatrices", 16, true, RKI_GLTF_CT_FLOAT)) return false;
		if (acc.count < count)
			return rki_gltf_fail(g, RK_ERROR_CORRUPT, ipath, "inverseBindMatrices accessor %zu has %zu matrices; expected %zu, one per joint",
				ibm, acc.count, count);
		if (acc.count > count) rki_gltf_warn(g, ipath, "more inverse bind matrices than joints: the extra ones are ignored");
		src->ibm = (rk_mat4 *)rki_arena_array(&g->sc.tmp, acc.count, sizeof(rk_mat4));
		if (!src->ibm) return rki_gltf_oom(g);
		rki_gltf_accessor_read_f64(&acc, src->ibm[0].m, false);
	}
	return true;
}

/* Lowest common ancestor of the joints; NULL when only the synthetic root is. */
static rk_node *rki_gltf_common_ancestor(rki_gltf *g, const rki_gltf_skin_src *src)
{
	rk_node *a = NULL;
	for (size_t j = 0; j < src->joint_count; j++) {
		rk_node *b = g->node_map[src->joints[j]];
		if (!a) {
			a = b;
			continue;
		}
		while (a->depth > b->depth) a = a->parent;
		while (b->depth > a->depth) b = b->parent;
		while (a != b) {
			a = a->parent;
			b = b->parent;
		}
	}
	return a && a->kind != RK_NODE_ROOT ? a : NULL;
}

/* Influences of every vertex of mesh m for a skin of `joint_count` joints.
 * Vertices are visited in order (the loaded primitives' vertex ranges are
 * consecutive), in blocks whose JOINTS/WEIGHTS are decoded into small
 * reusable buffers; each vertex's list is sorted in a block buffer and
 * appended to the CSR arrays. skin->weights is allocated for the worst case
 * (every influence non-zero) without clearing: only what is written is
 * touched. */
#define RKI_GLTF_SKIN_BLOCK 512

static bool rki_gltf_skin_influences(rki_gltf *g, size_t si, size_t m, size_t joint_count, rk_skin_deformer *skin)
{
	const rki_gltf_mesh *info = &g->mesh_info[m];
	const rk_mesh *mesh = info->mesh;
	size_t V = mesh->vertex_count, K = 0;
	for (size_t p = 0; p < info->prim_count; p++)
		if (info->prims[p].loaded && 4 * info->prims[p].set_count > K) K = 4 * info->prims[p].set_count;
	skin->vertex_count = V;
	if (K == 0) {
		uint32_t *begin = (uint32_t *)rki_arena_array(g->sc.arena, V + 1, sizeof(uint32_t));
		if (!begin) return rki_gltf_oom(g);
		skin->weight_begin = begin;
		rki_gltf_warn(g, RKI_GLTF_IDX(RKI_GLTF_KEY(NULL, "meshes"), m), "skinned mesh has no JOINTS_0/WEIGHTS_0: its vertices have no influences");
		skin->weights = (const rk_skin_weight *)rki_arena_alloc(g->sc.arena, sizeof(rk_skin_weight));
		return skin->weights ? true : rki_gltf_oom(g);
	}
	size_t work;
	if (!rki_mul_size(V, K, &work) || work > g->sc.opts.max_elements || work > UINT32_MAX)
		return rki_gltf_fail(g, RK_ERROR_LIMIT, NULL, "%zu vertices x %zu influences is over the max_elements limit", V, K);
	uint32_t *begin = (uint32_t *)rki_gltf_array_uninit(g->sc.arena, V + 1, sizeof(uint32_t));
	rk_skin_weight *out = (rk_skin_weight *)rki_gltf_array_uninit(g->sc.arena, work, sizeof(rk_skin_weight));
	if (!begin || !out) return rki_gltf_oom(g);
	skin->weight_begin = begin;
	skin->weights = out;
	bool warned_range = false, warned_negative = false;
	size_t total = 0, max_per = 0;
	for (size_t p = 0; p < info->prim_count; p++) {
		const rki_gltf_prim *pi = &info->prims[p];
		if (!pi->loaded) continue;
		static const char *const jnames[RKI_GLTF_MAX_INFLUENCE_SETS] = {
			"JOINTS_0", "JOINTS_1", "JOINTS_2", "JOINTS_3", "JOINTS_4", "JOINTS_5", "JOINTS_6", "JOINTS_7" };
		static const char *const wnames[RKI_GLTF_MAX_INFLUENCE_SETS] = {
			"WEIGHTS_0", "WEIGHTS_1", "WEIGHTS_2", "WEIGHTS_3", "WEIGHTS_4", "WEIGHTS_5", "WEIGHTS_6", "WEIGHTS_7" };
		const rki_gltf_loc *apath = RKI_GLTF_KEY(RKI_GLTF_IDX(RKI_GLTF_KEY(RKI_GLTF_IDX(RKI_GLTF_KEY(NULL, "meshes"), m), "primitives"), p),
			"attributes");
		rki_gltf_accessor ja[RKI_GLTF_MAX_INFLUENCE_SETS], wa[RKI_GLTF_MAX_INFLUENCE_SETS];
		bool sparse = false;
		for (size_t set = 0; set < pi->set_count; set++) {
			const rki_gltf_loc *jpath = RKI_GLTF_KEY(apath, jnames[set]), *wpath = RKI_GLTF_KEY(apath, wnames[set]);
			if (!rki_gltf_accessor_open(g, pi->joints[set], true, &ja[set])) return false;
			if (!rki_gltf_accessor_expect(g, &ja[set], jpath, "JOINTS", 4, false, RKI_GLTF_CT_UNSIGNED)) return false;
			if (!rki_gltf_accessor_open_weights(g, pi->weights[set], &wa[set])) return false;
			if (!rki_gltf_accessor_expect(g, &wa[set], wpath, "WEIGHTS", 4, false,
				RKI_GLTF_CT_FLOAT | RKI_GLTF_CT(RKI_GLTF_UNSIGNED_BYTE) | RKI_GLTF_CT(RKI_GLTF_UNSIGNED_SHORT)))
				return false;
			if (ja[set].count != pi->vertex_count || wa[set].count != pi->vertex_count)
				return rki_gltf_fail(g, RK_ERROR_CORRUPT, ja[set].count != pi->vertex_count ? jpath : wpath,
					"JOINTS/WEIGHTS accessors have %zu/%zu elements; expected %zu like POSITION", ja[set].count, wa[set].count,
					pi->vertex_count);
			if (!wa[set].normalized && wa[set].component_type != RKI_GLTF_FLOAT)
				rki_gltf_warn(g, wpath, "integer WEIGHTS not marked normalized: normalised anyway");
			if (ja[set].sparse_count || wa[set].sparse_count) sparse = true;
		}
		size_t vc = pi->vertex_count;
		if (pi->set_count == 1 && !sparse && ja[0].data && wa[0].data && wa[0].component_type == RKI_GLTF_FLOAT
			&& ja[0].component_type != RKI_GLTF_UNSIGNED_INT) {
			/* the common case: one set, FLOAT weights, u8/u16 joints, read in place */
			const unsigned char *jd = ja[0].data, *wd = wa[0].data;
			bool j16 = ja[0].component_type == RKI_GLTF_UNSIGNED_SHORT;
			for (size_t v = 0; v < vc; v++, jd += ja[0].stride, wd += wa[0].stride) {
				rk_skin_weight list[4];
				size_t n = 0;
				for (size_t c = 0; c < 4; c++) {
					float w = rki_lef32(wd + 4 * c);
					uint32_t j = j16 ? rki_le16(jd + 2 * c) : jd[c];
					if (!(w > 0.0f)) {
						if (w != 0.0f && !warned_negative) {
							rki_gltf_warn(g, RKI_GLTF_KEY(apath, wnames[0]), "negative or NaN skin weights dropped");
							warned_negative = true;
						}
						if (w == 0.0f && j >= joint_count && !warned_range) {
							rki_gltf_warn(g, RKI_GLTF_KEY(apath, jnames[0]), "out-of-range joint indices with zero weight ignored");
							warned_range = true;
						}
						continue;
					}
					if (j >= joint_count)
						return rki_gltf_fail(g, RK_ERROR_CORRUPT, RKI_GLTF_KEY(apath, jnames[0]),
							"joint index %u of vertex %zu is out of range: skin %zu has %zu joints", (unsigned)j, v, si, joint_count);
					/* insertion keeps descending weight, earlier entries first on ties */
					size_t k = n++;
					while (k > 0 && list[k - 1].weight < w) {
						list[k] = list[k - 1];
						k--;
					}
					list[k].joint = j;
					list[k].weight = w;
				}
				begin[pi->vertex_base + v] = (uint32_t)total;
				memcpy(out + total, list, n * sizeof(rk_skin_weight));
				total += n;
				if (n > max_per) max_per = n;
			}
			continue;
		}
		/* sparse accessors are read whole (a range read scans every sparse entry) */
		size_t B = sparse ? vc : (vc < RKI_GLTF_SKIN_BLOCK ? vc : RKI_GLTF_SKIN_BLOCK);
		uint32_t *joints = (uint32_t *)rki_gltf_scratch(g, 0, B, 4 * sizeof(uint32_t));
		double *weights = joints ? (double *)rki_gltf_scratch(g, 1, B, 4 * sizeof(double)) : NULL;
		rk_skin_weight *lists = weights ? (rk_skin_weight *)rki_gltf_scratch(g, 2, B, K * sizeof(rk_skin_weight) + sizeof(uint32_t)) : NULL;
		if (!lists) return false;
		uint32_t *counts = (uint32_t *)(lists + B * K);
		for (size_t v0 = 0; v0 < vc; v0 += B) {
			size_t nb = vc - v0 < B ? vc - v0 : B;
			memset(counts, 0, nb * sizeof(uint32_t));
			for (size_t set = 0; set < pi->set_count; set++) {
				rki_gltf_accessor_read_u32_range(&ja[set], v0, nb, joints);
				rki_gltf_accessor_read_f64_range(&wa[set], v0, nb, weights, true);
				for (size_t v = 0; v < nb; v++) {
					rk_skin_weight *list = lists + v * K;
					for (size_t c = 0; c < 4; c++) {
						double w = weights[4 * v + c];
						uint32_t j = joints[4 * v + c];
						if (!(w > 0.0)) {
							if (w != 0.0 && !warned_negative) {
								rki_gltf_warn(g, RKI_GLTF_KEY(apath, wnames[set]), "negative or NaN skin weights dropped");
								warned_negative = true;
							}
							if (w == 0.0 && j >= joint_count && !warned_range) {
								rki_gltf_warn(g, RKI_GLTF_KEY(apath, jnames[set]), "out-of-range joint indices with zero weight ignored");
								warned_range = true;
							}
							continue;
						}
						if (j >= joint_count)
							return rki_gltf_fail(g, RK_ERROR_CORRUPT, RKI_GLTF_KEY(apath, jnames[set]),
								"joint index %u of vertex %zu is out of range: skin %zu has %zu joints", (unsigned)j, v0 + v, si, joint_count);
						/* insertion keeps descending weight, earlier entries first on ties */
						size_t n = counts[v]++;
						while (n > 0 && list[n - 1].weight < (float)w) {
							list[n] = list[n - 1];
							n--;
						}
						list[n].joint = j;
						list[n].weight = (float)w;
					}
				}
			}
			for (size_t v = 0; v < nb; v++) {
				size_t c = counts[v];
				begin[pi->vertex_base + v0 + v] = (uint32_t)total;
				if (c) memcpy(out + total, lists + v * K, c * sizeof(rk_skin_weight));
				total += c;
				if (c > max_per) max_per = c;
			}
		}
	}
	begin[V] = (uint32_t)total;
	skin->weight_count = total;
	skin->max_weights_per_vertex = max_per;
	return true;
}

bool rki_gltf_load_skins(rki_gltf *g)
{
	rk_scene *s = g->sc.scene;
	size_t S = g->skins.count, N = g->nodes.count;
	rki_gltf_skin_src *srcs = (rki_gltf_skin_src *)rki_arena_array(&g->sc.tmp, S, sizeof(rki_gltf_skin_src));
	size_t key_cap;
	if (!srcs || !rki_add_size(S, N, &key_cap)) return rki_gltf_oom(g);
	rki_gltf_skin_key *keys = (rki_gltf_skin_key *)rki_arena_array(&g->sc.tmp, key_cap, sizeof(rki_gltf_skin_key));
	if (!keys) return rki_gltf_oom(g);
	for (size_t si = 0; si < S; si++) {
		if (!rki_gltf_skin_source(g, si, &srcs[si])) return false;
		rki_gltf_views_release(g);
	}

	size_t nk = 0;
	for (size_t i = 0; i < N; i++) {
		if (g->node_skin[i] == RKI_GLTF_NONE) continue;
		if (g->node_mesh[i] == RKI_GLTF_NONE) {
			rki_gltf_warn(g, RKI_GLTF_IDX(RKI_GLTF_KEY(NULL, "nodes"), i), "node has a skin but no mesh: the skin is not applied there");
			continue;
		}
		keys[nk++] = (rki_gltf_skin_key){ g->node_skin[i], g->node_mesh[i], i };
		srcs[g->node_skin[i]].used = true;
	}
	for (size_t si = 0; si < S; si++)
		if (!srcs[si].used) keys[nk++] = (rki_gltf_skin_key){ si, RKI_GLTF_NONE, RKI_GLTF_NONE };
	qsort(keys, nk, sizeof(keys[0]), rki_gltf_skin_key_cmp);
	size_t unique = 0;
	for (size_t k = 0; k < nk; k++) {
		if (unique > 0 && keys[unique - 1].skin == keys[k].skin && keys[unique - 1].mesh == keys[k].mesh) continue;
		keys[unique++] = keys[k];  /* keeps the first (lowest) node of each pair */
	}

	rk_skin_deformer *skins = (rk_skin_deformer *)rki_arena_array(g->sc.arena, unique, sizeof(rk_skin_deformer));
	g->skin_fixup = (rki_gltf_skin_fixup *)rki_arena_array(g->sc.arena, unique, sizeof(rki_gltf_skin_fixup));
	if (!skins || !g->skin_fixup) return rki_gltf_oom(g);
	s->skins.data = skins;
	s->skins.count = unique;

	/* mesh->skins: one slot per rk_skin_deformer that deforms the mesh. */
	for (size_t u = 0; u < unique; u++) {
		if (keys[u].mesh == RKI_GLTF_NONE || !g->mesh_info[keys[u].mesh].mesh) continue;
		g->mesh_info[keys[u].mesh].mesh->skin_count++;
	}
	for (size_t m = 0; m < g->meshes.count; m++) {
		rk_mesh *mesh = g->mesh_info[m].mesh;
		if (!mesh || !mesh->skin_count) continue;
		mesh->skins = (rk_skin_deformer **)rki_arena_array(g->sc.arena, mesh->skin_count, sizeof(rk_skin_deformer *));
		if (!mesh->skins) return rki_gltf_oom(g);
	}

	for (size_t u = 0; u < unique; u++) {
		rki_gltf_skin_src *src = &srcs[keys[u].skin];
		rk_skin_deformer *skin = &skins[u];
		skin->index = (uint32_t)u;
		skin->name = src->name;
		skin->method = RK_SKINNING_LINEAR;
		if (!src->singular && !rki_gltf_skin_inverses(g, src)) return false;
		/* joint_to_world_bind holds joint_to_mesh until rki_gltf_finish_skins(),
		 * which also sets mesh_to_world_bind */
		rk_skin_joint *joints = (rk_skin_joint *)rki_gltf_array_uninit(g->sc.arena, src->joint_count, sizeof(rk_skin_joint));
		if (!joints) return rki_gltf_oom(g);
		rk_mat4 identity = rk_mat4_identity();
		for (size_t j = 0; j < src->joint_count; j++) {
			joints[j].node = g->node_map[src->joints[j]];
			joints[j].mesh_to_joint = src->ibm ? src->ibm[j] : identity;
			joints[j].joint_to_world_bind = src->joint_to_mesh[j];
			joints[j].mesh_to_world_bind = identity;
			if (joints[j].node->kind == RK_NODE_NULL) joints[j].node->kind = RK_NODE_JOINT;
		}
		g->skin_fixup[u].singular = src->singular;
		skin->joint_count = src->joint_count;
		skin->joints = joints;
		skin->skeleton_root = src->skeleton != RKI_GLTF_NONE ? g->node_map[src->skeleton] : rki_gltf_common_ancestor(g, src);
		size_t m = keys[u].mesh;
		rk_mesh *mesh = m != RKI_GLTF_NONE ? g->mesh_info[m].mesh : NULL;
		g->skin_fixup[u].mesh_node = keys[u].node != RKI_GLTF_NONE ? g->node_map[keys[u].node] : NULL;
		if (mesh) {
			if (!rki_gltf_skin_influences(g, keys[u].skin, m, src->joint_count, skin)) return false;
			rki_gltf_views_release(g);
			mesh->skins[g->mesh_info[m].skin_fill++] = skin;
		} else {
			uint32_t *begin = (uint32_t *)rki_arena_alloc(g->sc.arena, sizeof(uint32_t));
			skin->weights = (const rk_skin_weight *)rki_arena_alloc(g->sc.arena, sizeof(rk_skin_weight));
			if (!begin || !skin->weights) return rki_gltf_oom(g);
			skin->weight_begin = begin;
		}
	}

	/* node->skin: the rk_skin_deformer of its (skin, mesh) pair. */
	for (size_t i = 0; i < N; i++) {
		if (g->node_skin[i] == RKI_GLTF_NONE || g->node_mesh[i] == RKI_GLTF_NONE) continue;
		rki_gltf_skin_key key = { g->node_skin[i], g->node_mesh[i], 0 };
		size_t lo = 0, hi = unique;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			const rki_gltf_skin_key *k = &keys[mid];
			if (k->skin < key.skin || (k->skin == key.skin && k->mesh < key.mesh)) lo = mid + 1;
			else hi = mid;
		}
		if (lo < unique && g->node_map[i]->mesh) g->node_map[i]->skin = &skins[lo];
	}
	return true;
}

static bool rki_gltf_mat4_is_identity(const rk_mat4 *m)
{
	for (int k = 0; k < 16; k++)
		if (m->m[k] != (k % 5 == 0 ? 1.0 : 0.0)) return false;
	return true;
}

static bool rki_gltf_mat4_is_finite(const rk_mat4 *m)
{
	for (int k = 0; k < 16; k++)
		if (!isfinite(m->m[k])) return false;
	return true;
}

void rki_gltf_finish_skins(rk_scene *scene, const rki_gltf_skin_fixup *fixup)
{
	for (size_t u = 0; u < scene->skins.count; u++) {
		rk_skin_deformer *skin = &scene->skins.data[u];
		rk_mat4 mesh_world = fixup[u].mesh_node ? fixup[u].mesh_node->node_to_world : rk_mat4_identity();
		bool identity = rki_gltf_mat4_is_identity(&mesh_world);
		rk_skin_joint *joints = (rk_skin_joint *)skin->joints;
		for (size_t j = 0; j < skin->joint_count; j++) {
			joints[j].mesh_to_world_bind = mesh_world;
			if (fixup[u].singular[j])
				joints[j].joint_to_world_bind = joints[j].node->node_to_world;
			else if (!identity || !rki_gltf_mat4_is_finite(&joints[j].joint_to_world_bind))
				joints[j].joint_to_world_bind = rk_mat4_mul(mesh_world, joints[j].joint_to_world_bind);
			/* else identity * joint_to_mesh == joint_to_mesh exactly */
		}
	}
}
