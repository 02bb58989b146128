/*
 * src/export/gltf/gltf_write_mesh.c - glTF writer: mesh primitives (triangulated by
 * rk_polygon_triangulate of the mesh module),
 * skins and morph targets (see include/rigkit/export.h MESHES, SKINS, MORPH
 * TARGETS for what is written and why).
 */
#include "export/gltf/gltf_write_internal.h"

#include "rigkit/mesh.h"

#include <math.h>
#include <meshoptimizer.h>
#include <stdio.h>
#include <string.h>

/* ---- skins ---------------------------------------------------------------------- */

#define RKI_GW_MAX_INFLUENCES 64

typedef struct rki_gw_influence { uint32_t joint; double weight; } rki_gw_influence;

/* Usable influences of vertex v merged per output joint, largest first.
 * joint_map[j] = output joint slot or -1. Returns the count (<= 4 kept). */
static size_t rki_gw_vertex_influences(const rk_skin_deformer *skin, const int32_t *joint_map, size_t v,
	rki_gw_influence *out4)
{
	rki_gw_influence inf[RKI_GW_MAX_INFLUENCES];
	size_t n = 0;
	if (!skin->weight_begin || !skin->weights || v >= skin->vertex_count) return 0;
	uint32_t b = skin->weight_begin[v], e = skin->weight_begin[v + 1];
	if (e > skin->weight_count) e = (uint32_t)skin->weight_count;
	for (uint32_t k = b; k < e; k++) {
		uint32_t j = skin->weights[k].joint;
		double wt = skin->weights[k].weight;
		if (j >= skin->joint_count || joint_map[j] < 0 || !(wt > 0.0) || !isfinite(wt)) continue;
		uint32_t oj = (uint32_t)joint_map[j];
		size_t q = 0;
		while (q < n && inf[q].joint != oj) q++;
		if (q < n) inf[q].weight += wt;
		else if (n < RKI_GW_MAX_INFLUENCES) inf[n++] = (rki_gw_influence){ oj, wt };
	}
	/* insertion sort, descending */
	for (size_t i = 1; i < n; i++) {
		rki_gw_influence x = inf[i];
		size_t k = i;
		while (k > 0 && inf[k - 1].weight < x.weight) { inf[k] = inf[k - 1]; k--; }
		inf[k] = x;
	}
	if (n > 4) n = 4;
	for (size_t i = 0; i < n; i++) out4[i] = inf[i];
	return n;
}

static void rki_gw_joint_map(const rk_skin_deformer *skin, int32_t *joint_map, size_t *out_count)
{
	size_t c = 0;
	for (size_t j = 0; j < skin->joint_count; j++) joint_map[j] = skin->joints[j].node ? (int32_t)c++ : -1;
	*out_count = c;
}

/* ---- planning ---------------------------------------------------------------------- */

static bool rki_gw_face_ok(const rk_mesh *m, const rk_face *f)
{
	return f->index_count >= 3 && f->index_begin <= m->index_count && f->index_count <= m->index_count - f->index_begin;
}

static const rk_node *rki_gw_top_ancestor(const rk_node *n)
{
	while (n->parent && n->parent->parent) n = n->parent;
	return n;
}

static bool rki_gw_slots_equal(rk_material_ref_list a, rk_material_ref_list b)
{
	if (a.count != b.count) return false;
	if (a.data == b.data) return true;
	for (size_t i = 0; i < a.count; i++) if (a.data[i] != b.data[i]) return false;
	return true;
}

/* The UV set written as TEXCOORD_0 (scene.h UV SET OF A TEXTURE ON A MESH
 * NODE). glTF input keeps its own TEXCOORD numbering (textures keep their
 * texCoord), so set 0 unless the node names a default. Other input writes
 * every texture with texCoord 0: TEXCOORD_0 is the set the first slot with
 * a base colour texture samples; slots whose textures ask for another set
 * are warned about (one glTF material has one texCoord). */
static uint32_t rki_gw_uv_first(rki_gw *w, const rk_node *nd, rk_material_ref_list slots)
{
	int32_t first = RK_NO_UV_SET;
	const rk_material *owner = NULL;
	if (!w->gltf_input) {
		for (size_t s = 0; s < slots.count; s++) {
			const rk_material *mat = slots.data[s];
			if (!mat || !mat->base_color_texture.texture) continue;
			int32_t u = rk_node_material_uv_set(nd, mat);
			if (!owner) {
				owner = mat;
				first = u;
			} else if (u != first && u != RK_NO_UV_SET) {
				rki_gw_warn(w, "node \"%s\": material \"%s\" samples UV set %d but \"%s\" set %d; both written with TEXCOORD_0",
					nd->name, mat->name, (int)u, owner->name, (int)first);
			}
		}
	}
	if (first == RK_NO_UV_SET) first = rk_node_material_uv_set(nd, NULL);
	return first == RK_NO_UV_SET ? 0u : (uint32_t)first;
}

bool rki_gw_plan_meshes(rki_gw *w, bool *need_common_root)
{
	const rk_scene *s = w->scene;
	size_t nn = s->nodes.count;
	*need_common_root = false;
	w->node_key = (int32_t *)rki_gw_tmp_array(w, nn, sizeof(int32_t));
	w->mesh_keys = (rki_gw_mesh_key *)rki_gw_tmp_array(w, nn, sizeof(rki_gw_mesh_key));
	if (!w->node_key || !w->mesh_keys) return false;
	for (size_t i = 0; i < nn; i++) {
		const rk_node *nd = &s->nodes.data[i];
		w->node_key[i] = -1;
		if (i == 0 || !nd->mesh) continue;
		const rk_mesh *m = nd->mesh;
		size_t faces = 0;
		for (size_t f = 0; f < m->face_count && m->faces; f++) if (rki_gw_face_ok(m, &m->faces[f])) faces++;
		if (faces == 0 || m->vertex_count == 0 || (!m->positions_f64 && !m->positions_f32) || !m->vertex_indices) {
			rki_gw_warn(w, "mesh \"%s\" has no polygons with 3 or more corners: not written", m->name);
			continue;
		}
		rki_gw_mesh_key k;
		memset(&k, 0, sizeof(k));
		k.mesh = m;
		k.geometry_to_node = nd->geometry_to_node;
		k.slots = rk_node_material_slots(nd);
		k.uv_first = rki_gw_uv_first(w, nd, k.slots);
		k.out_mesh = k.out_skin = -1;
		const rk_skin_deformer *skin = nd->skin;
		if (skin && skin->joint_count > 0 && skin->joints) {
			k.skin = skin;
			if (m->skin_count > 1) rki_gw_warn(w, "mesh \"%s\" has %zu skin deformers: only the node's skin is written", m->name, m->skin_count);
			/* rigkit carries an instanced skinned mesh to each instance by the
			 * instance's transform relative to the bind pose (anim.h); glTF
			 * skinning ignores the mesh node, so that cannot be expressed. */
			size_t instances = 0;
			bool bound = false;
			for (size_t o = 1; o < nn; o++) {
				if (s->nodes.data[o].mesh != m) continue;
				instances++;
				if (s->nodes.data[o].has_bind_pose) bound = true;
			}
			if (instances > 1 && bound)
				rki_gw_warn(w, "skinned mesh \"%s\" is instanced by %zu nodes: every instance is drawn where the skin places it "
					"(glTF skins ignore the instance transforms rigkit applies)", m->name, instances);
			int32_t *jm = (int32_t *)rki_gw_tmp_array(w, skin->joint_count, sizeof(int32_t));
			if (!jm) return false;
			size_t used = 0;
			rki_gw_joint_map(skin, jm, &used);
			/* Does a vertex used by a face lack every usable influence? */
			bool unweighted = used == 0;
			uint8_t *seen = (uint8_t *)rki_gw_tmp_array(w, m->vertex_count, 1); /* each vertex asked once */
			if (!seen) return false;
			for (size_t f = 0; f < m->face_count && !unweighted; f++) {
				const rk_face *fc = &m->faces[f];
				if (!rki_gw_face_ok(m, fc)) continue;
				for (uint32_t c = 0; c < fc->index_count && !unweighted; c++) {
					uint32_t vi = m->vertex_indices[fc->index_begin + c];
					rki_gw_influence inf[4];
					if (vi >= m->vertex_count || seen[vi]) continue;
					seen[vi] = 1;
					if (rki_gw_vertex_influences(skin, jm, vi, inf) == 0) unweighted = true;
				}
			}
			if (unweighted) k.extra_joint = nd;
			/* Common root of the joints (and the extra joint). */
			const rk_node *top = unweighted ? rki_gw_top_ancestor(nd) : NULL;
			for (size_t j = 0; j < skin->joint_count; j++) {
				const rk_node *jn = skin->joints[j].node;
				if (!jn || jn->index >= nn || &s->nodes.data[jn->index] != jn) continue;
				if (jn == s->root) { *need_common_root = true; continue; }
				const rk_node *t = rki_gw_top_ancestor(jn);
				if (!top) top = t;
				else if (t != top) *need_common_root = true;
			}
		}
		/* Share with an earlier equal key. */
		size_t q = 0;
		for (; q < w->mesh_key_count; q++) {
			const rki_gw_mesh_key *o = &w->mesh_keys[q];
			if (o->mesh == k.mesh && o->skin == k.skin && o->extra_joint == k.extra_joint && o->uv_first == k.uv_first
				&& memcmp(&o->geometry_to_node, &k.geometry_to_node, sizeof(rk_mat4)) == 0
				&& rki_gw_slots_equal(o->slots, k.slots))
				break;
		}
		if (q == w->mesh_key_count) w->mesh_keys[w->mesh_key_count++] = k;
		w->node_key[i] = (int32_t)q;
	}
	return true;
}

/* ---- mesh data --------------------------------------------------------------------- */

/* Per-key working data shared by the primitives. */
typedef struct rki_gw_mesh_work {
	const rk_mesh *m;
	const rki_gw_mesh_key *key;
	rk_vec3 *pos;                /* baked positions, per vertex */
	rk_vec3 *mesh_pos;           /* finite mesh-space positions (for computed normals), or NULL */
	rk_vec3 *smooth;             /* computed normals per vertex (NULL if not needed) */
	float *corner_nrm;           /* per mesh corner: the file normal as written (3 floats), when
	                                every corner has a usable one; else NULL */
	bool mirror;
	rk_mat4 normal_matrix;       /* inverse-transpose of geometry_to_node (3x3 part used) */
	uint32_t uv_count;           /* TEXCOORD sets written */
	uint32_t uv_real;            /* of those, from the mesh (the rest are zero) */
	uint32_t *uv_order;          /* uv_real entries: mesh uv set index per TEXCOORD_n */
	bool colors;
	bool tangents;               /* TANGENT from the TEXCOORD_0 set's tangent/bitangent */
	/* skin */
	bool skinned;
	uint16_t *joints;            /* 4 per vertex */
	float *weights;              /* 4 per vertex */
	/* morphs */
	size_t channels;
	const rk_blend_shape **targets;
	bool target_normals;
	float *morph_pos;            /* channels * vertex_count * 3 */
	float *morph_nrm;            /* channels * vertex_count * 3, or NULL */
	/* record layout, in 4-byte words */
	size_t rec_words, off_nrm, off_tan, off_uv, off_col, off_jnt, off_wgt, off_vtx;
} rki_gw_mesh_work;

static rk_vec3 rki_gw_finite3(rk_vec3 v)
{
	if (!isfinite(v.x)) v.x = 0.0;
	if (!isfinite(v.y)) v.y = 0.0;
	if (!isfinite(v.z)) v.z = 0.0;
	return v;
}

/* Computed normals (mesh.h SMOOTH NORMALS, the generator mesh expansion
 * uses) of mesh-space positions `pos`, per vertex, carried to the output
 * space by the normal matrix like file normals; (0, 0, 1) for a vertex
 * without one (glTF wants unit normals). */
static void rki_gw_smooth_normals(const rki_gw_mesh_work *mw, const rk_vec3 *pos, rk_vec3 *out)
{
	const rk_mesh *m = mw->m;
	rk_mesh_smooth_normals(out, pos, m->vertex_count, m->vertex_indices, m->index_count, m->faces, m->face_count);
	for (size_t v = 0; v < m->vertex_count; v++) {
		rk_vec3 n = rk_mat4_transform_vector(mw->normal_matrix, out[v]);
		double len = rk_vec3_length(n);
		out[v] = len > 1e-20 && isfinite(len) ? rk_vec3_scale(n, 1.0 / len) : (rk_vec3){ 0, 0, 1 };
	}
}

/* An attribute table with values in either precision. */
#define RKI_GW_HAS(a) ((a).values_f64 != NULL || (a).values_f32 != NULL)

static bool rki_gw_corner_normal(const rki_gw_mesh_work *mw, size_t c, rk_vec3 *out)
{
	const rk_attrib_vec3 *na = &mw->m->normals;
	if (!na->exists || !RKI_GW_HAS(*na) || !na->indices) return false;
	uint32_t k = na->indices[c];
	if (k >= na->value_count) return false;
	rk_vec3 n = rk_attrib_vec3_value(na, k);
	if (!isfinite(n.x) || !isfinite(n.y) || !isfinite(n.z)) return false;
	n = rk_mat4_transform_vector(mw->normal_matrix, n);
	double len = rk_vec3_length(n);
	if (!(len > 1e-20) || !isfinite(len)) return false;
	*out = rk_vec3_scale(n, 1.0 / len);
	return true;
}

static size_t rki_gw_material_texcoords(const rki_gw *w, const rk_material *mat)
{
	if (!mat) return 0;
	size_t need = 0;
	const rk_texture_ref *refs[5] = { &mat->base_color_texture, &mat->metallic_roughness_texture,
		&mat->normal_texture, &mat->emissive_texture, &mat->occlusion_texture };
	for (int k = 0; k < 5; k++) {
		const rk_texture_ref *r = refs[k];
		if (!r->texture || r->texture->index >= w->scene->textures.count || w->texture_out[r->texture->index] < 0) continue;
		size_t tc = (w->gltf_input ? r->texcoord : 0) + 1;
		if (tc > need) need = tc;
	}
	return need;
}

static void rki_gw_fill_record(const rki_gw *w, const rki_gw_mesh_work *mw, size_t c, uint32_t *rec)
{
	const rk_mesh *m = mw->m;
	uint32_t vi = m->vertex_indices[c];
	float f[4];
	rk_vec3 p = mw->pos[vi];
	f[0] = rki_gw_f32(p.x); f[1] = rki_gw_f32(p.y); f[2] = rki_gw_f32(p.z);
	memcpy(rec, f, 12);
	rk_vec3 n;
	if (mw->corner_nrm && !mw->tangents) {
		memcpy(rec + mw->off_nrm, mw->corner_nrm + c * 3, 12);
		n = (rk_vec3){ 0, 0, 0 }; /* not read below without tangents */
	} else {
		if (!rki_gw_corner_normal(mw, c, &n)) n = mw->smooth[vi];
		f[0] = (float)n.x; f[1] = (float)n.y; f[2] = (float)n.z;
		memcpy(rec + mw->off_nrm, f, 12);
	}
	if (mw->tangents) {
		/* glTF: xyz unit tangent, w = +-1 handedness with bitangent = cross(n, t) * w */
		const rk_uv_set *set = &m->uv_sets.data[mw->uv_order[0]];
		rk_vec3 t = { 0, 0, 0 }, b = { 0, 0, 0 };
		if (set->tangent.indices[c] < set->tangent.value_count) t = rk_attrib_vec3_corner(&set->tangent, c);
		if (set->bitangent.indices[c] < set->bitangent.value_count) b = rk_attrib_vec3_corner(&set->bitangent, c);
		t = rk_mat4_transform_vector(mw->key->geometry_to_node, rki_gw_finite3(t));
		b = rk_mat4_transform_vector(mw->key->geometry_to_node, rki_gw_finite3(b));
		t = rk_vec3_sub(t, rk_vec3_scale(n, rk_vec3_dot(n, t))); /* orthogonal to the normal */
		double len = rk_vec3_length(t);
		if (!(len > 1e-12) || !isfinite(len)) {
			rk_vec3 axis = fabs(n.x) < 0.9 ? (rk_vec3){ 1, 0, 0 } : (rk_vec3){ 0, 1, 0 };
			t = rk_vec3_normalize(rk_vec3_cross(axis, n));
		} else {
			t = rk_vec3_scale(t, 1.0 / len);
		}
		double hand = rk_vec3_dot(rk_vec3_cross(n, t), b) < 0.0 ? -1.0 : 1.0;
		if (w->flip_v) hand = -hand;
		f[0] = (float)t.x; f[1] = (float)t.y; f[2] = (float)t.z; f[3] = (float)hand;
		memcpy(rec + mw->off_tan, f, 16);
	}
	for (uint32_t t = 0; t < mw->uv_count; t++) {
		f[0] = f[1] = 0.0f;
		if (t < mw->uv_real) {
			const rk_attrib_vec2 *ua = &m->uv_sets.data[mw->uv_order[t]].uv;
			if (ua->exists && RKI_GW_HAS(*ua) && ua->indices && ua->indices[c] < ua->value_count) {
				rk_vec2 uv = rk_attrib_vec2_corner(ua, c);
				double uu = isfinite(uv.x) ? uv.x : 0.0, vv = isfinite(uv.y) ? uv.y : 0.0;
				f[0] = rki_gw_f32(uu);
				f[1] = rki_gw_f32(w->flip_v ? 1.0 - vv : vv);
			}
		}
		memcpy(rec + mw->off_uv + t * 2, f, 8);
	}
	if (mw->colors) {
		const rk_attrib_vec4 *ca = &m->colors.data[0];
		f[0] = f[1] = f[2] = f[3] = 1.0f;
		if (RKI_GW_HAS(*ca) && ca->indices && ca->indices[c] < ca->value_count) {
			rk_vec4 col = rk_attrib_vec4_corner(ca, c);
			double cc[4] = { col.x, col.y, col.z, col.w };
			for (int k = 0; k < 4; k++) f[k] = (float)(!(cc[k] >= 0.0) ? 0.0 : cc[k] > 1.0 ? 1.0 : cc[k]);
		}
		memcpy(rec + mw->off_col, f, 16);
	}
	if (mw->skinned) {
		memcpy(rec + mw->off_jnt, mw->joints + (size_t)vi * 4, 8);
		memcpy(rec + mw->off_wgt, mw->weights + (size_t)vi * 4, 16);
	}
	if (mw->channels) rec[mw->off_vtx] = vi;
}

/* Computes per-vertex joints/weights for the key's skin. */
static bool rki_gw_skin_vertices(rki_gw *w, rki_gw_mesh_work *mw, const int32_t *joint_map, size_t extra_slot)
{
	const rk_mesh *m = mw->m;
	const rk_skin_deformer *skin = mw->key->skin;
	mw->joints = (uint16_t *)rki_gw_tmp_array(w, m->vertex_count, 4 * sizeof(uint16_t));
	mw->weights = (float *)rki_gw_tmp_array(w, m->vertex_count, 4 * sizeof(float));
	if (!mw->joints || !mw->weights) return false;
	for (size_t v = 0; v < m->vertex_count; v++) {
		rki_gw_influence inf[4];
		size_t n = rki_gw_vertex_influences(skin, joint_map, v, inf);
		uint16_t *jo = mw->joints + v * 4;
		float *wo = mw->weights + v * 4;
		for (int k = 0; k < 4; k++) { jo[k] = 0; wo[k] = 0.0f; }
		if (n == 0) {
			/* only reachable when the key has the extra joint (see planning),
			 * or for vertices no face uses */
			jo[0] = (uint16_t)(mw->key->extra_joint ? extra_slot : 0);
			wo[0] = 1.0f;
			continue;
		}
		double sum = 0.0;
		for (size_t k = 0; k < n; k++) sum += inf[k].weight;
		double fsum = 0.0;
		for (size_t k = 0; k < n; k++) {
			jo[k] = (uint16_t)inf[k].joint;
			wo[k] = (float)(inf[k].weight / sum);
			fsum += (double)wo[k];
		}
		wo[0] = (float)((double)wo[0] + (1.0 - fsum));
	}
	return true;
}

/* The same joints with the same inverse bind matrices: one glTF skin serves
 * both (the glTF reader makes one rk_skin_deformer per (skin, mesh) pair, so
 * a skin shared by several meshes comes back as one). */
static bool rki_gw_skins_same(const rk_skin_deformer *a, const rk_skin_deformer *b)
{
	if (a == b) return true;
	if (!a || !b || a->joint_count != b->joint_count || !a->joints || !b->joints) return false;
	for (size_t j = 0; j < a->joint_count; j++)
		if (a->joints[j].node != b->joints[j].node
			|| memcmp(&a->joints[j].mesh_to_joint, &b->joints[j].mesh_to_joint, sizeof(rk_mat4)) != 0)
			return false;
	return true;
}

static bool rki_gw_write_skin(rki_gw *w, rki_gw_mesh_key *key, const rk_node *mesh_node, const int32_t *joint_map,
	size_t used)
{
	const rk_skin_deformer *skin = key->skin;
	/* Share a skin written for an earlier key with the same joints. */
	for (rki_gw_mesh_key *o = w->mesh_keys; o < key; o++) {
		if (rki_gw_skins_same(o->skin, skin) && o->extra_joint == key->extra_joint && o->out_skin >= 0) {
			key->out_skin = o->out_skin;
			return true;
		}
	}
	size_t total = used + (key->extra_joint ? 1 : 0);
	if (total > 65535) return rki_gw_fail(w, RK_ERROR_UNSUPPORTED, "skin \"%s\" has %zu joints (glTF writer limit 65535)", skin->name, total);
	float *ibm = (float *)rki_gw_tmp_array(w, total, 16 * sizeof(float));
	if (!ibm) return false;
	size_t k = 0;
	for (size_t j = 0; j < skin->joint_count; j++) {
		if (joint_map[j] < 0) continue;
		rk_mat4 m = skin->joints[j].mesh_to_joint;
		for (int e = 0; e < 16; e++) ibm[k * 16 + (size_t)e] = rki_gw_f32(isfinite(m.m[e]) ? m.m[e] : 0.0);
		ibm[k * 16 + 3] = ibm[k * 16 + 7] = ibm[k * 16 + 11] = 0.0f;
		ibm[k * 16 + 15] = 1.0f;
		k++;
	}
	if (key->extra_joint) {
		for (int e = 0; e < 16; e++) ibm[k * 16 + (size_t)e] = (e % 5 == 0) ? 1.0f : 0.0f;
		k++;
	}
	int32_t acc = rki_gw_accessor_add(w, ibm, RKI_GW_FLOAT, total, 16, 0, false);
	if (acc < 0) return false;
	rki_gw_accessor_use(w, acc, RKI_GW_USE_IBM);
	if (skin->method != RK_SKINNING_LINEAR && skin->method != RK_SKINNING_RIGID)
		rki_gw_warn(w, "skin \"%s\": dual quaternion skinning written as linear (glTF has only linear skinning)", skin->name);
	if (key->extra_joint)
		rki_gw_warn(w, "skin \"%s\": vertices without weights follow the mesh node \"%s\" (added as a joint)", skin->name, mesh_node->name);
	rk_json_writer *j = rki_gw_section_json(&w->skins);
	rk_json_object_begin(j, NULL);
	if (skin->name && skin->name[0]) rk_json_string(j, "name", skin->name);
	rk_json_uint(j, "inverseBindMatrices", (uint64_t)acc);
	rk_json_array_begin(j, "joints");
	for (size_t jj = 0; jj < skin->joint_count; jj++)
		if (joint_map[jj] >= 0) rk_json_uint(j, NULL, (uint64_t)w->node_out[skin->joints[jj].node->index]);
	if (key->extra_joint) rk_json_uint(j, NULL, (uint64_t)w->node_out[key->extra_joint->index]);
	rk_json_array_end(j);
	rk_json_object_end(j);
	key->out_skin = (int32_t)w->skins.count++;
	return true;
}

/* Morph target deltas per channel for every mesh vertex (float). */
static bool rki_gw_morph_data(rki_gw *w, rki_gw_mesh_work *mw)
{
	const rk_mesh *m = mw->m;
	size_t nc = m->blend_channels.count, nv = m->vertex_count, total;
	mw->channels = nc;
	if (nc == 0) return true;
	mw->targets = (const rk_blend_shape **)rki_gw_tmp_array(w, nc, sizeof(rk_blend_shape *));
	if (!mw->targets || !rki_mul_size(nc, nv, &total) || !rki_mul_size(total, 3, &total))
		return mw->targets ? rki_gw_fail(w, RK_ERROR_LIMIT, "mesh \"%s\": morph data too large", m->name) : false;
	bool all_normals = true;
	for (size_t c = 0; c < nc; c++) {
		const rk_blend_channel *ch = &m->blend_channels.data[c];
		const rk_blend_shape *t = NULL;
		if (ch->target_count > 0 && ch->targets) {
			size_t best = ch->target_count - 1;
			if (ch->target_weights) {
				double bd = INFINITY;
				for (size_t k = 0; k < ch->target_count; k++) {
					double d = fabs(ch->target_weights[k] - 1.0);
					if (d <= bd) { bd = d; best = k; }
				}
			}
			t = &ch->targets[best];
			if (ch->target_count > 1)
				rki_gw_warn(w, "blend channel \"%s\": %zu in-between shapes dropped (glTF has one target per channel)",
					ch->name, ch->target_count - 1);
		}
		mw->targets[c] = t;
		if (!t || !rk_blend_shape_has_normals(t)) all_normals = false;
	}
	bool computed = !m->normals.exists;
	mw->target_normals = all_normals || computed;
	mw->morph_pos = (float *)rki_gw_tmp_array(w, total, sizeof(float));
	if (!mw->morph_pos) return false;
	if (mw->target_normals) {
		mw->morph_nrm = (float *)rki_gw_tmp_array(w, total, sizeof(float));
		if (!mw->morph_nrm) return false;
	}
	rk_vec3 *dense = (rk_vec3 *)rki_gw_tmp_array(w, nv, sizeof(rk_vec3));
	rk_vec3 *morphed = computed ? (rk_vec3 *)rki_gw_tmp_array(w, nv, sizeof(rk_vec3)) : NULL;
	rk_vec3 *mnorm = computed ? (rk_vec3 *)rki_gw_tmp_array(w, nv, sizeof(rk_vec3)) : NULL;
	if (!dense || (computed && (!morphed || !mnorm))) return false;
	const rk_mat4 g = mw->key->geometry_to_node;
	for (size_t c = 0; c < nc; c++) {
		const rk_blend_shape *t = mw->targets[c];
		float *pd = mw->morph_pos + c * nv * 3;
		float *nd = mw->morph_nrm ? mw->morph_nrm + c * nv * 3 : NULL;
		for (size_t v = 0; v < nv; v++) dense[v] = (rk_vec3){ 0, 0, 0 };
		if (t && t->vertex_indices && (t->position_offsets_f64 || t->position_offsets_f32)) {
			for (size_t k = 0; k < t->offset_count; k++) {
				uint32_t vi = t->vertex_indices[k];
				double f = t->offset_weights && isfinite(t->offset_weights[k]) ? t->offset_weights[k] : 1.0;
				if (vi < nv) dense[vi] = rk_vec3_add(dense[vi], rk_vec3_scale(rki_gw_finite3(rk_blend_shape_position_offset(t, k)), f));
			}
		}
		for (size_t v = 0; v < nv; v++) {
			rk_vec3 d = rk_mat4_transform_vector(g, dense[v]);
			pd[v * 3] = rki_gw_f32(d.x); pd[v * 3 + 1] = rki_gw_f32(d.y); pd[v * 3 + 2] = rki_gw_f32(d.z);
		}
		if (!nd) continue;
		if (computed) {
			for (size_t v = 0; v < nv; v++) morphed[v] = rk_vec3_add(mw->mesh_pos[v], dense[v]);
			rki_gw_smooth_normals(mw, morphed, mnorm);
			for (size_t v = 0; v < nv; v++) {
				rk_vec3 d = rk_vec3_sub(mnorm[v], mw->smooth[v]);
				nd[v * 3] = rki_gw_f32(d.x); nd[v * 3 + 1] = rki_gw_f32(d.y); nd[v * 3 + 2] = rki_gw_f32(d.z);
			}
		} else {
			for (size_t v = 0; v < nv; v++) dense[v] = (rk_vec3){ 0, 0, 0 };
			for (size_t k = 0; t->vertex_indices && k < t->offset_count; k++) {
				uint32_t vi = t->vertex_indices[k];
				double f = t->offset_weights && isfinite(t->offset_weights[k]) ? t->offset_weights[k] : 1.0;
				if (vi < nv) dense[vi] = rk_vec3_add(dense[vi], rk_vec3_scale(rki_gw_finite3(rk_blend_shape_normal_offset(t, k)), f));
			}
			for (size_t v = 0; v < nv; v++) {
				rk_vec3 d = rk_mat4_transform_vector(mw->normal_matrix, dense[v]);
				nd[v * 3] = rki_gw_f32(d.x); nd[v * 3 + 1] = rki_gw_f32(d.y); nd[v * 3 + 2] = rki_gw_f32(d.z);
			}
		}
	}
	return true;
}

typedef struct rki_gw_prim_out {
	int32_t pos, nrm, tan, uv[8], col, jnt, wgt, idx;
	int32_t material;
	int32_t *morph_pos, *morph_nrm; /* per channel accessor */
} rki_gw_prim_out;

#define RKI_GW_MAX_UV 8

/* Builds one primitive from triangle corners (global corner indices). */
static bool rki_gw_build_primitive(rki_gw *w, rki_gw_mesh_work *mw, const uint32_t *corners, size_t corner_count,
	rki_gw_prim_out *po, bool *written)
{
	*written = false;
	size_t stride = mw->rec_words * 4;
	uint32_t *recs = (uint32_t *)rki_gw_tmp_array_uninit(w, corner_count, stride);
	unsigned int *remap = (unsigned int *)rki_gw_tmp_array_uninit(w, corner_count, sizeof(unsigned int));
	if (!recs || !remap) return false;
	/* rki_gw_fill_record writes every word of a record (the layout has no gaps) */
	for (size_t k = 0; k < corner_count; k++) rki_gw_fill_record(w, mw, corners[k], recs + k * mw->rec_words);
	size_t unique = meshopt_generateVertexRemap(remap, NULL, corner_count, recs, corner_count, stride);
	/* Triangles, without those that collapsed. */
	uint32_t *idx = (uint32_t *)rki_gw_tmp_array_uninit(w, corner_count, sizeof(uint32_t));
	if (!idx) return false;
	size_t ni = 0;
	for (size_t t = 0; t + 2 < corner_count; t += 3) {
		uint32_t a = remap[t], b = remap[t + 1], c = remap[t + 2];
		if (a == b || b == c || a == c) continue;
		idx[ni++] = a; idx[ni++] = b; idx[ni++] = c;
	}
	if (ni == 0) return true;
	/* Drop vertices only degenerate triangles used: compact again. */
	unsigned int *used = (unsigned int *)rki_gw_tmp_array_uninit(w, unique, sizeof(unsigned int));
	if (!used) return false;
	for (size_t v = 0; v < unique; v++) used[v] = UINT32_MAX;
	size_t nvert = 0;
	for (size_t k = 0; k < ni; k++) {
		if (used[idx[k]] == UINT32_MAX) used[idx[k]] = (unsigned int)nvert++;
		idx[k] = used[idx[k]];
	}
	uint32_t *vrec = (uint32_t *)rki_gw_tmp_array_uninit(w, nvert, stride);
	if (!vrec) return false;
	for (size_t k = 0; k < corner_count; k++) {
		unsigned int u = used[remap[k]];
		if (u != UINT32_MAX) memcpy(vrec + (size_t)u * mw->rec_words, recs + k * mw->rec_words, stride);
	}
	/* Split into streams. */
	float *fpos = (float *)rki_gw_tmp_array_uninit(w, nvert, 3 * sizeof(float));
	float *fnrm = (float *)rki_gw_tmp_array_uninit(w, nvert, 3 * sizeof(float));
	float *ftan = mw->tangents ? (float *)rki_gw_tmp_array_uninit(w, nvert, 4 * sizeof(float)) : NULL;
	if (!fpos || !fnrm || (mw->tangents && !ftan)) return false;
	for (size_t v = 0; v < nvert; v++) {
		const uint32_t *r = vrec + v * mw->rec_words;
		memcpy(fpos + v * 3, r, 12);
		memcpy(fnrm + v * 3, r + mw->off_nrm, 12);
		if (ftan) memcpy(ftan + v * 4, r + mw->off_tan, 16);
	}
	po->pos = rki_gw_accessor_add(w, fpos, RKI_GW_FLOAT, nvert, 3, RKI_GW_ARRAY_BUFFER, true);
	rki_gw_accessor_use(w, po->pos, mw->skinned ? RKI_GW_USE_POSITION_SKINNED : RKI_GW_USE_POSITION);
	po->nrm = rki_gw_accessor_add(w, fnrm, RKI_GW_FLOAT, nvert, 3, RKI_GW_ARRAY_BUFFER, false);
	rki_gw_accessor_use(w, po->nrm, RKI_GW_USE_NORMAL);
	if (ftan) po->tan = rki_gw_accessor_add(w, ftan, RKI_GW_FLOAT, nvert, 4, RKI_GW_ARRAY_BUFFER, false);
	if (ftan) rki_gw_accessor_use(w, po->tan, RKI_GW_USE_TANGENT);
	for (uint32_t t = 0; t < mw->uv_count; t++) {
		float *fuv = (float *)rki_gw_tmp_array_uninit(w, nvert, 2 * sizeof(float));
		if (!fuv) return false;
		for (size_t v = 0; v < nvert; v++) memcpy(fuv + v * 2, vrec + v * mw->rec_words + mw->off_uv + t * 2, 8);
		po->uv[t] = rki_gw_accessor_add(w, fuv, RKI_GW_FLOAT, nvert, 2, RKI_GW_ARRAY_BUFFER, false);
		rki_gw_accessor_use(w, po->uv[t], RKI_GW_USE_TEXCOORD);
	}
	if (mw->colors) {
		float *fc = (float *)rki_gw_tmp_array_uninit(w, nvert, 4 * sizeof(float));
		if (!fc) return false;
		for (size_t v = 0; v < nvert; v++) memcpy(fc + v * 4, vrec + v * mw->rec_words + mw->off_col, 16);
		po->col = rki_gw_accessor_add(w, fc, RKI_GW_FLOAT, nvert, 4, RKI_GW_ARRAY_BUFFER, false);
		rki_gw_accessor_use(w, po->col, RKI_GW_USE_COLOR);
	}
	if (mw->skinned) {
		uint16_t *fj = (uint16_t *)rki_gw_tmp_array_uninit(w, nvert, 4 * sizeof(uint16_t));
		float *fw = (float *)rki_gw_tmp_array_uninit(w, nvert, 4 * sizeof(float));
		if (!fj || !fw) return false;
		for (size_t v = 0; v < nvert; v++) {
			memcpy(fj + v * 4, vrec + v * mw->rec_words + mw->off_jnt, 8);
			memcpy(fw + v * 4, vrec + v * mw->rec_words + mw->off_wgt, 16);
		}
		po->jnt = rki_gw_accessor_add(w, fj, RKI_GW_UNSIGNED_SHORT, nvert, 4, RKI_GW_ARRAY_BUFFER, false);
		po->wgt = rki_gw_accessor_add(w, fw, RKI_GW_FLOAT, nvert, 4, RKI_GW_ARRAY_BUFFER, false);
		rki_gw_accessor_use(w, po->jnt, RKI_GW_USE_JOINTS);
		rki_gw_accessor_use(w, po->wgt, RKI_GW_USE_WEIGHTS);
	}
	if (mw->channels) {
		po->morph_pos = (int32_t *)rki_gw_tmp_array(w, mw->channels, sizeof(int32_t));
		po->morph_nrm = (int32_t *)rki_gw_tmp_array(w, mw->channels, sizeof(int32_t));
		float *fd = (float *)rki_gw_tmp_array_uninit(w, nvert, 3 * sizeof(float));
		if (!po->morph_pos || !po->morph_nrm || !fd) return false;
		size_t nv = mw->m->vertex_count;
		for (size_t c = 0; c < mw->channels; c++) {
			for (size_t v = 0; v < nvert; v++) {
				uint32_t vi = vrec[v * mw->rec_words + mw->off_vtx];
				memcpy(fd + v * 3, mw->morph_pos + (c * nv + vi) * 3, 12);
			}
			po->morph_pos[c] = rki_gw_accessor_add(w, fd, RKI_GW_FLOAT, nvert, 3, RKI_GW_ARRAY_BUFFER, true);
			rki_gw_accessor_use(w, po->morph_pos[c], mw->skinned ? RKI_GW_USE_MORPH_POSITION_SKINNED : RKI_GW_USE_MORPH_POSITION);
			po->morph_nrm[c] = -1;
			if (mw->morph_nrm) {
				for (size_t v = 0; v < nvert; v++) {
					uint32_t vi = vrec[v * mw->rec_words + mw->off_vtx];
					memcpy(fd + v * 3, mw->morph_nrm + (c * nv + vi) * 3, 12);
				}
				po->morph_nrm[c] = rki_gw_accessor_add(w, fd, RKI_GW_FLOAT, nvert, 3, RKI_GW_ARRAY_BUFFER, false);
				rki_gw_accessor_use(w, po->morph_nrm[c], RKI_GW_USE_MORPH_NORMAL);
			}
		}
	}
	if (nvert <= 65535) {
		uint16_t *i16 = (uint16_t *)rki_gw_tmp_array_uninit(w, ni, sizeof(uint16_t));
		if (!i16) return false;
		for (size_t k = 0; k < ni; k++) i16[k] = (uint16_t)idx[k];
		po->idx = rki_gw_accessor_add(w, i16, RKI_GW_UNSIGNED_SHORT, ni, 1, RKI_GW_ELEMENT_ARRAY_BUFFER, false);
	} else {
		po->idx = rki_gw_accessor_add(w, idx, RKI_GW_UNSIGNED_INT, ni, 1, RKI_GW_ELEMENT_ARRAY_BUFFER, false);
	}
	rki_gw_accessor_use(w, po->idx, RKI_GW_USE_INDICES);
	if (w->failed) return false;
	w->stats.primitive_count++;
	w->stats.triangle_count += ni / 3;
	w->stats.vertex_count += nvert;
	*written = true;
	return true;
}

static bool rki_gw_write_mesh(rki_gw *w, rki_gw_mesh_key *key, const rk_node *first_node)
{
	const rk_mesh *m = key->mesh;
	rki_gw_mesh_work mw;
	memset(&mw, 0, sizeof(mw));
	mw.m = m;
	mw.key = key;
	mw.mirror = rk_mat4_determinant3(key->geometry_to_node) < 0.0;
	rk_mat4 inv;
	if (!rk_mat4_invert_affine(key->geometry_to_node, &inv)) {
		rki_gw_warn(w, "node \"%s\": singular geometric transform", first_node->name);
		inv = rk_mat4_identity();
	}
	mw.normal_matrix = rk_mat4_transpose(inv);
	mw.normal_matrix.m[3] = mw.normal_matrix.m[7] = mw.normal_matrix.m[11] = 0.0;

	size_t nv = m->vertex_count;
	mw.pos = (rk_vec3 *)rki_gw_tmp_array_uninit(w, nv, sizeof(rk_vec3));
	if (!mw.pos) return false;
	bool bad_pos = false;
	for (size_t v = 0; v < nv; v++) {
		rk_vec3 p = rk_mesh_position(m, v);
		if (!isfinite(p.x) || !isfinite(p.y) || !isfinite(p.z)) bad_pos = true;
		mw.pos[v] = rki_gw_finite3(rk_mat4_transform_point(key->geometry_to_node, rki_gw_finite3(p)));
	}
	if (bad_pos) rki_gw_warn(w, "mesh \"%s\": non-finite positions written as 0", m->name);

	/* Normals: computed when missing or when some stored normal is unusable. */
	bool need_smooth = !m->normals.exists || !RKI_GW_HAS(m->normals) || !m->normals.indices;
	if (!need_smooth) {
		/* each corner's normal once: checked here, kept for the records */
		float *cn = (float *)rki_gw_tmp_array_uninit(w, m->index_count, 3 * sizeof(float));
		if (!cn) return false;
		for (size_t c = 0; c < m->index_count && !need_smooth; c++) {
			rk_vec3 n;
			if (!rki_gw_corner_normal(&mw, c, &n)) {
				need_smooth = true;
				break;
			}
			cn[c * 3] = (float)n.x; cn[c * 3 + 1] = (float)n.y; cn[c * 3 + 2] = (float)n.z;
		}
		if (!need_smooth) mw.corner_nrm = cn;
	}
	if (need_smooth) {
		mw.smooth = (rk_vec3 *)rki_gw_tmp_array(w, nv, sizeof(rk_vec3));
		mw.mesh_pos = (rk_vec3 *)rki_gw_tmp_array(w, nv, sizeof(rk_vec3));
		if (!mw.smooth || !mw.mesh_pos) return false;
		for (size_t v = 0; v < nv; v++) mw.mesh_pos[v] = rki_gw_finite3(rk_mesh_position(m, v));
		rki_gw_smooth_normals(&mw, mw.mesh_pos, mw.smooth);
	}

	/* UV sets: uv_first, then the others; padded with zero sets when a
	 * material needs more. */
	size_t nuv = m->uv_sets.count;
	if (nuv > RKI_GW_MAX_UV) {
		rki_gw_warn(w, "mesh \"%s\": %zu UV sets, only %d written", m->name, nuv, RKI_GW_MAX_UV);
		nuv = RKI_GW_MAX_UV;
	}
	mw.uv_order = (uint32_t *)rki_gw_tmp_array(w, nuv ? nuv : 1, sizeof(uint32_t));
	if (!mw.uv_order) return false;
	{
		size_t k = 0;
		if (nuv > 0) mw.uv_order[k++] = key->uv_first;
		for (size_t u = 0; u < m->uv_sets.count && k < nuv; u++)
			if (u != key->uv_first) mw.uv_order[k++] = (uint32_t)u;
	}
	mw.uv_real = (uint32_t)nuv;
	size_t need_uv = 0;
	for (size_t s = 0; s < key->slots.count; s++) {
		size_t n = rki_gw_material_texcoords(w, key->slots.data[s]);
		if (n > need_uv) need_uv = n;
	}
	if (need_uv > RKI_GW_MAX_UV) need_uv = RKI_GW_MAX_UV;
	mw.uv_count = (uint32_t)(need_uv > nuv ? need_uv : nuv);
	if (need_uv > nuv)
		rki_gw_warn(w, "mesh \"%s\": its material uses TEXCOORD_%zu but the mesh has %zu UV sets; zero UVs written",
			m->name, need_uv - 1, nuv);
	if (!need_smooth && nuv > 0) {
		const rk_uv_set *set = &m->uv_sets.data[mw.uv_order[0]];
		mw.tangents = set->tangent.exists && RKI_GW_HAS(set->tangent) && set->tangent.indices
			&& set->bitangent.exists && RKI_GW_HAS(set->bitangent) && set->bitangent.indices;
	}
	mw.colors = m->colors.count > 0 && m->colors.data && m->colors.data[0].exists
		&& (w->gltf_input || w->opts.fbx_vertex_colors);
	/* what the mesh holds that glTF output leaves out is named */
	for (size_t u = 0; u < m->uv_sets.count; u++) {
		const rk_uv_set *set = &m->uv_sets.data[u];
		if (!set->tangent.exists || (mw.tangents && u == mw.uv_order[0])) continue;
		rki_gw_warn(w, "mesh \"%s\": tangents of UV set \"%s\" not written (%s)", m->name, set->name ? set->name : "",
			need_smooth ? "some normals had to be computed" : u == mw.uv_order[0] ? "no bitangents" : "glTF has one TANGENT, for TEXCOORD_0");
	}
	if (mw.colors && m->colors.count > 1)
		rki_gw_warn(w, "mesh \"%s\": %zu colour sets, only COLOR_0 written", m->name, m->colors.count);
	if (key->skin && key->skin->max_weights_per_vertex > 4)
		rki_gw_warn(w, "skin \"%s\": up to %zu influences per vertex, the 4 largest written (renormalised)", key->skin->name,
			key->skin->max_weights_per_vertex);

	/* Skin */
	int32_t *joint_map = NULL;
	size_t used_joints = 0;
	if (key->skin) {
		joint_map = (int32_t *)rki_gw_tmp_array(w, key->skin->joint_count, sizeof(int32_t));
		if (!joint_map) return false;
		rki_gw_joint_map(key->skin, joint_map, &used_joints);
		if (used_joints < key->skin->joint_count)
			rki_gw_warn(w, "skin \"%s\": %zu joints without a node left out", key->skin->name, key->skin->joint_count - used_joints);
		mw.skinned = true;
		if (!rki_gw_skin_vertices(w, &mw, joint_map, used_joints)) return false;
	}
	if (!rki_gw_morph_data(w, &mw)) return false;

	/* Record layout (4-byte words). */
	size_t o = 3;
	mw.off_nrm = o; o += 3;
	mw.off_tan = o; if (mw.tangents) o += 4;
	mw.off_uv = o; o += 2 * (size_t)mw.uv_count;
	mw.off_col = o; if (mw.colors) o += 4;
	mw.off_jnt = o; if (mw.skinned) o += 2;
	mw.off_wgt = o; if (mw.skinned) o += 4;
	mw.off_vtx = o; if (mw.channels) o += 1;
	mw.rec_words = o;

	/* Triangulate every face once; corners grouped by slot afterwards (one
	 * primitive per slot, faces with an out-of-range slot in one more group,
	 * scene.h MATERIAL SLOTS). */
	size_t tri_total = 0, max_n = 3, dropped = 0;
	for (size_t f = 0; f < m->face_count; f++) {
		const rk_face *fc = &m->faces[f];
		if (!rki_gw_face_ok(m, fc)) { dropped++; continue; }
		bool ok = true;
		for (uint32_t c = 0; c < fc->index_count; c++) if (m->vertex_indices[fc->index_begin + c] >= nv) ok = false;
		if (!ok) { dropped++; continue; }
		tri_total += fc->index_count - 2;
		if (fc->index_count > max_n) max_n = fc->index_count;
	}
	if (dropped) rki_gw_warn(w, "mesh \"%s\": faces with fewer than 3 corners or bad vertex indices dropped", m->name);
	const size_t slot_count = key->slots.count, nslots = slot_count + 1;
	uint32_t *tri_corners = (uint32_t *)rki_gw_tmp_array_uninit(w, tri_total, 3 * sizeof(uint32_t));
	uint32_t *tri_slot = (uint32_t *)rki_gw_tmp_array_uninit(w, tri_total, sizeof(uint32_t));
	size_t *slot_tris = (size_t *)rki_gw_tmp_array(w, nslots, sizeof(size_t));
	rk_vec3 *poly = (rk_vec3 *)rki_gw_tmp_array(w, max_n, sizeof(rk_vec3));
	uint32_t *local = (uint32_t *)rki_gw_tmp_array(w, max_n, 3 * sizeof(uint32_t));
	size_t scratch_size = rk_polygon_triangulate_scratch_size(max_n);
	void *scratch = rki_gw_tmp_array(w, 1, scratch_size ? scratch_size : 1);
	if (!tri_corners || !tri_slot || !slot_tris || !poly || !local || !scratch) return false;
	size_t nt = 0;
	for (size_t f = 0; f < m->face_count; f++) {
		const rk_face *fc = &m->faces[f];
		if (!rki_gw_face_ok(m, fc)) continue;
		bool ok = true;
		for (uint32_t c = 0; c < fc->index_count; c++) if (m->vertex_indices[fc->index_begin + c] >= nv) ok = false;
		if (!ok) continue;
		size_t s = rk_node_face_slot(first_node, f);
		if (s == RK_NO_SLOT) s = slot_count;
		for (uint32_t c = 0; c < fc->index_count; c++) poly[c] = mw.pos[m->vertex_indices[fc->index_begin + c]];
		uint32_t tri_flags = 0;
		size_t k = rk_polygon_triangulate(local, poly, fc->index_count, NULL, fc->index_count, scratch, scratch_size,
			&tri_flags);
		for (size_t t = 0; t < k; t++) {
			uint32_t a = local[t * 3], b = local[t * 3 + 1], c = local[t * 3 + 2];
			if (mw.mirror) { uint32_t x = b; b = c; c = x; }
			tri_corners[nt * 3] = fc->index_begin + a;
			tri_corners[nt * 3 + 1] = fc->index_begin + b;
			tri_corners[nt * 3 + 2] = fc->index_begin + c;
			tri_slot[nt] = (uint32_t)s;
			slot_tris[s]++;
			nt++;
		}
	}

	rki_gw_prim_out *prims = (rki_gw_prim_out *)rki_gw_tmp_array(w, nslots, sizeof(rki_gw_prim_out));
	bool *prim_ok = (bool *)rki_gw_tmp_array(w, nslots, sizeof(bool));
	if (!prims || !prim_ok) return false;
	size_t written_prims = 0;
	bool bad_slot = false;
	for (size_t s = 0; s < nslots; s++) {
		if (slot_tris[s] == 0) continue;
		uint32_t *corners = (uint32_t *)rki_gw_tmp_array_uninit(w, slot_tris[s], 3 * sizeof(uint32_t));
		if (!corners) return false;
		size_t k = 0;
		for (size_t t = 0; t < nt; t++) {
			if (tri_slot[t] != s) continue;
			memcpy(corners + k * 3, tri_corners + t * 3, 3 * sizeof(uint32_t));
			k++;
		}
		rki_gw_prim_out *po = &prims[s];
		memset(po, 0, sizeof(*po));
		po->material = -1;
		if (s < slot_count && key->slots.data[s]) po->material = (int32_t)key->slots.data[s]->index;
		else if (s == slot_count && slot_count > 0) bad_slot = true;
		if (!rki_gw_build_primitive(w, &mw, corners, k * 3, po, &prim_ok[s])) return false;
		if (prim_ok[s]) written_prims++;
	}
	if (bad_slot) rki_gw_warn(w, "mesh \"%s\": faces use material slots the node does not have (written without material)", m->name);
	if (written_prims == 0) {
		rki_gw_warn(w, "mesh \"%s\": every triangle is degenerate; not written", m->name);
		return true;
	}
	if (key->skin && !rki_gw_write_skin(w, key, first_node, joint_map, used_joints)) return false;

	rk_json_writer *j = rki_gw_section_json(&w->meshes);
	rk_json_object_begin(j, NULL);
	if (m->name && m->name[0]) rk_json_string(j, "name", m->name);
	rk_json_array_begin(j, "primitives");
	for (size_t s = 0; s < nslots; s++) {
		if (slot_tris[s] == 0 || !prim_ok[s]) continue;
		const rki_gw_prim_out *po = &prims[s];
		rk_json_object_begin(j, NULL);
		rk_json_object_begin(j, "attributes");
		rk_json_uint(j, "POSITION", (uint64_t)po->pos);
		rk_json_uint(j, "NORMAL", (uint64_t)po->nrm);
		if (mw.tangents) rk_json_uint(j, "TANGENT", (uint64_t)po->tan);
		for (uint32_t t = 0; t < mw.uv_count; t++) {
			char name[32];
			snprintf(name, sizeof(name), "TEXCOORD_%u", t);
			rk_json_uint(j, name, (uint64_t)po->uv[t]);
		}
		if (mw.colors) rk_json_uint(j, "COLOR_0", (uint64_t)po->col);
		if (mw.skinned) {
			rk_json_uint(j, "JOINTS_0", (uint64_t)po->jnt);
			rk_json_uint(j, "WEIGHTS_0", (uint64_t)po->wgt);
		}
		rk_json_object_end(j);
		rk_json_uint(j, "indices", (uint64_t)po->idx);
		if (po->material >= 0) rk_json_uint(j, "material", (uint64_t)po->material);
		if (mw.channels) {
			rk_json_array_begin(j, "targets");
			for (size_t c = 0; c < mw.channels; c++) {
				rk_json_object_begin(j, NULL);
				rk_json_uint(j, "POSITION", (uint64_t)po->morph_pos[c]);
				if (po->morph_nrm[c] >= 0) rk_json_uint(j, "NORMAL", (uint64_t)po->morph_nrm[c]);
				rk_json_object_end(j);
			}
			rk_json_array_end(j);
		}
		rk_json_object_end(j);
	}
	rk_json_array_end(j);
	if (mw.channels) {
		rk_json_array_begin(j, "weights");
		for (size_t c = 0; c < mw.channels; c++) {
			double dw = m->blend_channels.data[c].default_weight;
			rk_json_number(j, NULL, isfinite(dw) ? dw : 0.0);
		}
		rk_json_array_end(j);
	}
	if (mw.channels || m->extras) {
		/* the mesh's own extras, with targetNames (three.js convention) for
		 * its morph targets in place of a stored one */
		const rk_ext_value *x = m->extras;
		if (x && (x->kind != RK_EXT_OBJECT || !mw.channels)) {
			if (mw.channels) rki_gw_warn(w, "mesh \"%s\": extras that are not an object replaced by targetNames", m->name);
			else rki_gw_extras_write(w, j, x);
		}
		if (mw.channels) {
			rk_json_object_begin(j, "extras");
			for (size_t k = 0; x && x->kind == RK_EXT_OBJECT && k < x->count; k++)
				if (x->items[k].key && strcmp(x->items[k].key, "targetNames") != 0) rki_gw_ext_write_value(w, j, x->items[k].key, &x->items[k]);
			rk_json_array_begin(j, "targetNames");
			for (size_t c = 0; c < mw.channels; c++) {
				const char *nm = m->blend_channels.data[c].name;
				rk_json_string(j, NULL, nm ? nm : "");
			}
			rk_json_array_end(j);
			rk_json_object_end(j);
		}
	}
	rk_json_object_end(j);
	key->out_mesh = (int32_t)w->meshes.count++;
	return !w->failed;
}

bool rki_gw_write_meshes(rki_gw *w)
{
	const rk_scene *s = w->scene;
	for (size_t k = 0; k < w->mesh_key_count; k++) {
		const rk_node *first = NULL;
		for (size_t i = 0; i < s->nodes.count && !first; i++)
			if (w->node_key[i] == (int32_t)k) first = &s->nodes.data[i];
		/* Temporaries of one mesh are released before the next. */
		rki_arena saved = w->tmp;
		rki_arena_init(&w->tmp, &w->alloc);
		bool ok = rki_gw_write_mesh(w, &w->mesh_keys[k], first);
		rki_arena_free(&w->tmp);
		w->tmp = saved;
		if (!ok) return false;
	}
	/* Skins no mesh uses (the glTF reader keeps them without vertices) are
	 * written too, unless an equal one was. The spare entry after the keys
	 * (mesh_keys has room for one per node, the root never has one) holds
	 * each in turn. */
	for (size_t i = 0; i < s->skins.count && w->mesh_key_count < s->nodes.count; i++) {
		const rk_skin_deformer *sk = &s->skins.data[i];
		if (sk->vertex_count != 0 || sk->joint_count == 0 || !sk->joints) continue;
		rki_gw_mesh_key *spare = &w->mesh_keys[w->mesh_key_count];
		memset(spare, 0, sizeof(*spare));
		spare->skin = sk;
		spare->out_mesh = spare->out_skin = -1;
		rki_arena saved = w->tmp;
		rki_arena_init(&w->tmp, &w->alloc);
		int32_t *jm = (int32_t *)rki_gw_tmp_array(w, sk->joint_count, sizeof(int32_t));
		size_t used = 0;
		bool ok = jm != NULL;
		if (ok) rki_gw_joint_map(sk, jm, &used);
		if (ok && used > 0) ok = rki_gw_write_skin(w, spare, NULL, jm, used);
		rki_arena_free(&w->tmp);
		w->tmp = saved;
		if (!ok) return false;
	}
	for (size_t i = 0; i < s->nodes.count; i++) {
		if (w->node_key[i] < 0) continue;
		const rki_gw_mesh_key *k = &w->mesh_keys[w->node_key[i]];
		w->node_mesh[i] = k->out_mesh;
		w->node_skin[i] = k->out_mesh >= 0 ? k->out_skin : -1;
	}
	return true;
}
