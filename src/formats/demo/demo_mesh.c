/* src/formats/demo/demo_mesh.c - the sample characters' skinned body: closed
 * capsule-like parts along the bones, smooth per-vertex normals (the shared
 * generator, core/normals.h), cylindrical UVs and skin weights that blend
 * between adjacent joints of each part's chain (see rigkit/demo.h, MESH,
 * SKIN, MATERIAL).
 *
 * A part is a capsule from joint a (moved back by ext0 along the axis) to
 * joint b (moved on by ext1) with an elliptic cross-section whose radii vary
 * linearly from start to end and round caps. Its `chain` lists the joints
 * that drive consecutive stretches of the axis: chain[0] up to the projection
 * of chain[1]'s rest position on the axis, chain[1] from there to chain[2],
 * and so on. Around each such boundary the weight passes from one joint to
 * the next with a smoothstep of half-width `blend` (shrunk to 45% of the
 * distance to neighbouring boundaries), so weights telescope to exactly 1 and
 * a vertex has at most two influences.
 */
#include "demo_internal.h"
#include "core/normals.h"

#include <math.h>
#include <string.h>

#define RKI_MAX_RINGS 64

typedef struct rki_part_def {
	uint8_t a, b;                 /* axis joints (left side for limbs) */
	float ext0, ext1;             /* metres beyond a / b */
	float r0s, r0f, r1s, r1f;     /* radii across (side) and front, start / end */
	uint8_t segs, caps;           /* vertices per ring, rings per cap */
	float step;                   /* ring spacing along the straight part */
	uint8_t chain[4], chain_len;
	float blend;
	uint8_t mirror;               /* also build the right-side twin */
	uint8_t head;                 /* radii use head_radius_scale */
} rki_part_def;

#define L_SH (RKI_SJ_ARM_L + RKI_ARM_SHOULDER)
#define L_ARM (RKI_SJ_ARM_L + RKI_ARM_ARM)
#define L_FORE (RKI_SJ_ARM_L + RKI_ARM_FOREARM)
#define L_HAND (RKI_SJ_ARM_L + RKI_ARM_HAND)
#define L_F(f, k) (RKI_SJ_ARM_L + RKI_ARM_FINGER + 4 * (f) + (k))
#define L_UP (RKI_SJ_LEG_L + RKI_LEG_UPLEG)
#define L_LEG (RKI_SJ_LEG_L + RKI_LEG_LEG)
#define L_FOOT (RKI_SJ_LEG_L + RKI_LEG_FOOT)
#define L_TOE (RKI_SJ_LEG_L + RKI_LEG_TOEBASE)
#define L_END (RKI_SJ_LEG_L + RKI_LEG_TOE_END)
#define RKI_FINGER_PART(f, r0, r1) \
	{ L_F(f, 0), L_F(f, 3), 0.008f, 0.010f, r0, r0, r1, r1, 6, 2, 0.015f, { L_HAND, L_F(f, 0), L_F(f, 1), L_F(f, 2) }, 4, 0.008f, 1, 0 }

static const rki_part_def rki_parts[] = {
	/* pelvis, belly, chest */
	{ RKI_SJ_HIPS, RKI_SJ_SPINE, 0.12f, 0.03f, 0.160f, 0.110f, 0.145f, 0.100f, 14, 3, 0.045f,
		{ RKI_SJ_HIPS, RKI_SJ_SPINE }, 2, 0.04f, 0, 0 },
	{ RKI_SJ_SPINE, RKI_SJ_SPINE2, 0.02f, 0.04f, 0.140f, 0.100f, 0.150f, 0.105f, 14, 3, 0.045f,
		{ RKI_SJ_HIPS, RKI_SJ_SPINE, RKI_SJ_SPINE1, RKI_SJ_SPINE2 }, 4, 0.04f, 0, 0 },
	{ RKI_SJ_SPINE2, RKI_SJ_NECK, 0.10f, 0.0f, 0.170f, 0.115f, 0.150f, 0.100f, 14, 3, 0.045f,
		{ RKI_SJ_SPINE1, RKI_SJ_SPINE2, RKI_SJ_NECK }, 3, 0.04f, 0, 0 },
	/* neck, head */
	{ RKI_SJ_NECK, RKI_SJ_HEAD, 0.02f, 0.02f, 0.055f, 0.055f, 0.050f, 0.050f, 10, 2, 0.03f,
		{ RKI_SJ_SPINE2, RKI_SJ_NECK, RKI_SJ_HEAD }, 3, 0.02f, 0, 0 },
	{ RKI_SJ_HEAD, RKI_SJ_HEAD_TOP, 0.06f, 0.005f, 0.085f, 0.095f, 0.080f, 0.090f, 16, 5, 0.03f,
		{ RKI_SJ_NECK, RKI_SJ_HEAD }, 2, 0.03f, 0, 1 },
	/* clavicle, arm, palm */
	{ L_SH, L_ARM, 0.0f, 0.03f, 0.055f, 0.055f, 0.060f, 0.060f, 10, 3, 0.045f, { RKI_SJ_SPINE2, L_SH, L_ARM }, 3, 0.03f, 1, 0 },
	{ L_ARM, L_HAND, 0.04f, 0.0f, 0.050f, 0.050f, 0.033f, 0.030f, 10, 3, 0.045f, { L_SH, L_ARM, L_FORE, L_HAND }, 4, 0.04f, 1, 0 },
	{ L_HAND, L_F(2, 0), 0.01f, 0.015f, 0.022f, 0.045f, 0.016f, 0.048f, 10, 3, 0.03f, { L_FORE, L_HAND }, 2, 0.02f, 1, 0 },
	/* fingers: thumb, index, middle, ring, pinky */
	RKI_FINGER_PART(0, 0.012f, 0.009f),
	RKI_FINGER_PART(1, 0.0095f, 0.008f),
	RKI_FINGER_PART(2, 0.0095f, 0.008f),
	RKI_FINGER_PART(3, 0.0095f, 0.008f),
	RKI_FINGER_PART(4, 0.0085f, 0.007f),
	/* leg, foot */
	{ L_UP, L_FOOT, 0.07f, 0.03f, 0.085f, 0.085f, 0.048f, 0.048f, 12, 3, 0.045f, { RKI_SJ_HIPS, L_UP, L_LEG, L_FOOT }, 4, 0.05f, 1, 0 },
	{ L_FOOT, L_END, 0.05f, 0.01f, 0.042f, 0.040f, 0.045f, 0.030f, 10, 3, 0.04f, { L_LEG, L_FOOT, L_TOE }, 3, 0.03f, 1, 0 },
};
#define RKI_PART_DEFS (sizeof(rki_parts) / sizeof(rki_parts[0]))

/* One concrete part (a definition, possibly mirrored) laid out for a rig. */
typedef struct rki_part {
	rk_vec3 p0, axis, side, front;
	double length, r0s, r0f, r1s, r1f;
	uint32_t segs, rings;                 /* rings exclude the two poles */
	double ring_t[RKI_MAX_RINGS], ring_g[RKI_MAX_RINGS];
	uint32_t chain[4], chain_len;
	double knot[4], blend[4];             /* boundary k (1..chain_len-1) position and half-width */
} rki_part;

static void rki_part_layout(const rki_sample_rig *rig, const rki_part_def *def, bool right, rki_part *p)
{
	uint32_t a = right ? rki_sample_mirror_joint(def->a) : def->a;
	uint32_t b = right ? rki_sample_mirror_joint(def->b) : def->b;
	rk_vec3 pa = rig->rest_pos[a], pb = rig->rest_pos[b];
	rk_vec3 axis = rk_vec3_normalize(rk_vec3_sub(pb, pa));
	double scale = def->head ? rig->head_radius_scale : rig->body_radius_scale;
	p->axis = axis;
	p->p0 = rk_vec3_sub(pa, rk_vec3_scale(axis, def->ext0));
	p->length = rk_vec3_length(rk_vec3_sub(pb, pa)) + def->ext0 + def->ext1;
	rk_vec3 hint = fabs(axis.z) > 0.9 ? (rk_vec3){ 0, 1, 0 } : (rk_vec3){ 0, 0, 1 };
	p->front = rk_vec3_normalize(rk_vec3_sub(hint, rk_vec3_scale(axis, rk_vec3_dot(hint, axis))));
	p->side = rk_vec3_cross(p->front, axis);
	p->r0s = def->r0s * scale;
	p->r0f = def->r0f * scale;
	p->r1s = def->r1s * scale;
	p->r1f = def->r1f * scale;
	p->segs = def->segs;

	/* Rings: start cap, straight part, end cap. */
	double L = p->length;
	double c0 = fmin(0.5 * (p->r0s + p->r0f), 0.5 * L), c1 = fmin(0.5 * (p->r1s + p->r1f), 0.5 * L);
	uint32_t n = 0, caps = def->caps;
	for (uint32_t i = 1; i <= caps; i++) {
		double th = 0.5 * RK_PI * (double)i / caps;
		p->ring_t[n] = c0 * (1.0 - cos(th));
		p->ring_g[n++] = sin(th);
	}
	double mid = L - c0 - c1;
	uint32_t m = mid > 1e-9 ? (uint32_t)ceil(mid / def->step) : 0;
	if (m > 24) m = 24;
	for (uint32_t k = 1; k < m; k++) {
		p->ring_t[n] = c0 + mid * (double)k / m;
		p->ring_g[n++] = 1.0;
	}
	for (uint32_t i = caps; i >= 1; i--) {
		if (i == caps && mid <= 1e-9) continue; /* caps meet: one equator ring */
		double th = 0.5 * RK_PI * (double)i / caps;
		p->ring_t[n] = L - c1 * (1.0 - cos(th));
		p->ring_g[n++] = sin(th);
	}
	p->rings = n;

	p->chain_len = def->chain_len;
	for (uint32_t k = 0; k < def->chain_len; k++) {
		p->chain[k] = right ? rki_sample_mirror_joint(def->chain[k]) : def->chain[k];
		p->knot[k] = rk_vec3_dot(rk_vec3_sub(rig->rest_pos[p->chain[k]], p->p0), axis);
	}
	for (uint32_t k = 1; k < def->chain_len; k++) {
		double bl = def->blend;
		if (k > 1) bl = fmin(bl, 0.45 * (p->knot[k] - p->knot[k - 1]));
		if (k + 1 < def->chain_len) bl = fmin(bl, 0.45 * (p->knot[k + 1] - p->knot[k]));
		p->blend[k] = fmax(bl, 1e-4);
	}
}

static double rki_smoothstep(double x)
{
	if (x <= 0.0) return 0.0;
	if (x >= 1.0) return 1.0;
	return x * x * (3.0 - 2.0 * x);
}

/* Weights at axial position t: up to 4 (joint, weight), sorted by descending
 * weight, summing to 1. Returns the count. */
static uint32_t rki_part_weights(const rki_part *p, double t, rk_skin_weight *out)
{
	double s[5];
	s[0] = 1.0;
	for (uint32_t k = 1; k < p->chain_len; k++) s[k] = rki_smoothstep((t - (p->knot[k] - p->blend[k])) / (2.0 * p->blend[k]));
	s[p->chain_len] = 0.0;
	rk_skin_weight w[4];
	uint32_t n = 0;
	for (uint32_t k = 0; k < p->chain_len; k++) {
		double v = s[k] - s[k + 1];
		if (v <= 1e-6) continue;
		w[n].joint = p->chain[k];
		w[n].weight = (float)v;
		n++;
	}
	/* sort: descending weight, then joint index (deterministic) */
	for (uint32_t i = 1; i < n; i++) {
		for (uint32_t j = i; j > 0; j--) {
			bool swap = w[j].weight > w[j - 1].weight || (w[j].weight == w[j - 1].weight && w[j].joint < w[j - 1].joint);
			if (!swap) break;
			rk_skin_weight tmp = w[j];
			w[j] = w[j - 1];
			w[j - 1] = tmp;
		}
	}
	double fsum = 0.0;
	for (uint32_t i = 0; i < n; i++) fsum += w[i].weight;
	for (uint32_t i = 0; i < n; i++) {
		out[i] = w[i];
		out[i].weight = (float)((double)w[i].weight / fsum);
	}
	return n;
}

typedef struct rki_mesh_counts { size_t vertices, faces, corners, uvs, triangles; } rki_mesh_counts;

static void rki_part_count(const rki_part *p, rki_mesh_counts *c)
{
	size_t S = p->segs, R = p->rings;
	c->vertices += 2 + R * S;
	c->faces += S * (R - 1) + 2 * S;
	c->corners += 4 * S * (R - 1) + 6 * S;
	c->uvs += R * (S + 1) + 2 * S;
	c->triangles += 2 * S * (R - 1) + 2 * S;
}

typedef struct rki_mesh_out {
	rk_vec3 *pos;
	rk_vec2 *uv;
	uint32_t *vidx, *uvidx;
	rk_face *faces;
	rk_skin_weight *w4;   /* 4 per vertex */
	uint8_t *wn;          /* weights used per vertex */
	rki_mesh_counts at;   /* running offsets */
} rki_mesh_out;

static void rki_part_emit(const rki_part *p, rki_mesh_out *o)
{
	uint32_t S = p->segs, R = p->rings;
	uint32_t v0 = (uint32_t)o->at.vertices, uv0 = (uint32_t)o->at.uvs;
	double L = p->length;
	/* vertices: pole 0, rings, pole 1 */
	uint32_t pole0 = v0, pole1 = v0 + 1 + R * S;
	o->pos[pole0] = p->p0;
	o->pos[pole1] = rk_vec3_add(p->p0, rk_vec3_scale(p->axis, L));
	o->wn[pole0] = (uint8_t)rki_part_weights(p, 0.0, &o->w4[(size_t)pole0 * 4]);
	o->wn[pole1] = (uint8_t)rki_part_weights(p, L, &o->w4[(size_t)pole1 * 4]);
	for (uint32_t i = 0; i < R; i++) {
		double t = p->ring_t[i], g = p->ring_g[i], u = t / L;
		double rs = (p->r0s + (p->r1s - p->r0s) * u) * g, rf = (p->r0f + (p->r1f - p->r0f) * u) * g;
		rk_vec3 c = rk_vec3_add(p->p0, rk_vec3_scale(p->axis, t));
		rk_skin_weight w[4];
		uint32_t wn = rki_part_weights(p, t, w);
		for (uint32_t j = 0; j < S; j++) {
			double phi = 2.0 * RK_PI * (double)j / S;
			uint32_t v = v0 + 1 + i * S + j;
			o->pos[v] = rk_vec3_add(c, rk_vec3_add(rk_vec3_scale(p->side, rs * cos(phi)), rk_vec3_scale(p->front, rf * sin(phi))));
			o->wn[v] = (uint8_t)wn;
			memcpy(&o->w4[(size_t)v * 4], w, sizeof(w));
		}
		for (uint32_t j = 0; j <= S; j++) o->uv[uv0 + i * (S + 1) + j] = (rk_vec2){ (double)j / S, u };
	}
	uint32_t uvp0 = uv0 + R * (S + 1), uvp1 = uvp0 + S;
	for (uint32_t j = 0; j < S; j++) {
		o->uv[uvp0 + j] = (rk_vec2){ (j + 0.5) / S, 0.0 };
		o->uv[uvp1 + j] = (rk_vec2){ (j + 0.5) / S, 1.0 };
	}
	o->at.vertices += 2 + (size_t)R * S;
	o->at.uvs += (size_t)R * (S + 1) + 2 * (size_t)S;

	size_t c = o->at.corners, f = o->at.faces;
#define RKI_RING_V(i, j) (v0 + 1 + (i) * S + ((j) % S))
#define RKI_RING_UV(i, j) (uv0 + (i) * (S + 1) + (j))
#define RKI_CORNER(v, t) do { o->vidx[c] = (v); o->uvidx[c] = (t); c++; } while (0)
	for (uint32_t j = 0; j < S; j++) {
		o->faces[f++] = (rk_face){ (uint32_t)c, 3 };
		RKI_CORNER(pole0, uvp0 + j);
		RKI_CORNER(RKI_RING_V(0, j + 1), RKI_RING_UV(0, j + 1));
		RKI_CORNER(RKI_RING_V(0, j), RKI_RING_UV(0, j));
	}
	for (uint32_t i = 0; i + 1 < R; i++) {
		for (uint32_t j = 0; j < S; j++) {
			o->faces[f++] = (rk_face){ (uint32_t)c, 4 };
			RKI_CORNER(RKI_RING_V(i, j), RKI_RING_UV(i, j));
			RKI_CORNER(RKI_RING_V(i, j + 1), RKI_RING_UV(i, j + 1));
			RKI_CORNER(RKI_RING_V(i + 1, j + 1), RKI_RING_UV(i + 1, j + 1));
			RKI_CORNER(RKI_RING_V(i + 1, j), RKI_RING_UV(i + 1, j));
		}
	}
	for (uint32_t j = 0; j < S; j++) {
		o->faces[f++] = (rk_face){ (uint32_t)c, 3 };
		RKI_CORNER(pole1, uvp1 + j);
		RKI_CORNER(RKI_RING_V(R - 1, j), RKI_RING_UV(R - 1, j));
		RKI_CORNER(RKI_RING_V(R - 1, j + 1), RKI_RING_UV(R - 1, j + 1));
	}
#undef RKI_CORNER
#undef RKI_RING_UV
#undef RKI_RING_V
	o->at.corners = c;
	o->at.faces = f;
}

bool rki_sample_build_mesh(rki_scene_ctx *sc, const rki_sample_rig *rig, rk_node *joint_nodes, rk_node *body,
	rk_material *material)
{
	rki_arena *ar = sc->arena, *tmp = &sc->tmp;
	enum { MAX_PARTS = 2 * sizeof(rki_parts) / sizeof(rki_parts[0]) };
	rki_part *parts = (rki_part *)rki_arena_array(tmp, MAX_PARTS, sizeof(rki_part));
	if (!parts) return false;
	size_t np = 0;
	rki_mesh_counts cnt = { 0 };
	for (size_t d = 0; d < RKI_PART_DEFS; d++) {
		for (int side = 0; side < (rki_parts[d].mirror ? 2 : 1); side++) {
			rki_part_layout(rig, &rki_parts[d], side == 1, &parts[np]);
			rki_part_count(&parts[np], &cnt);
			np++;
		}
	}

	rk_mesh *mesh = (rk_mesh *)rki_arena_alloc(ar, sizeof(rk_mesh));
	rk_skin_deformer *skin = (rk_skin_deformer *)rki_arena_alloc(ar, sizeof(rk_skin_deformer));
	rk_skin_deformer **mesh_skins = (rk_skin_deformer **)rki_arena_alloc(ar, sizeof(rk_skin_deformer *));
	rk_material **slots = (rk_material **)rki_arena_alloc(ar, sizeof(rk_material *));
	rk_uv_set *uv_set = (rk_uv_set *)rki_arena_alloc(ar, sizeof(rk_uv_set));
	rki_mesh_out o;
	memset(&o, 0, sizeof(o));
	o.pos = (rk_vec3 *)rki_arena_array(ar, cnt.vertices, sizeof(rk_vec3));
	o.uv = (rk_vec2 *)rki_arena_array(ar, cnt.uvs, sizeof(rk_vec2));
	o.vidx = (uint32_t *)rki_arena_array(ar, cnt.corners, sizeof(uint32_t));
	o.uvidx = (uint32_t *)rki_arena_array(ar, cnt.corners, sizeof(uint32_t));
	o.faces = (rk_face *)rki_arena_array(ar, cnt.faces, sizeof(rk_face));
	o.w4 = (rk_skin_weight *)rki_arena_array(tmp, cnt.vertices * 4, sizeof(rk_skin_weight));
	o.wn = (uint8_t *)rki_arena_array(tmp, cnt.vertices, 1);
	rk_vec3 *normals = (rk_vec3 *)rki_arena_array(ar, cnt.vertices, sizeof(rk_vec3));
	uint32_t *weight_begin = (uint32_t *)rki_arena_array(ar, cnt.vertices + 1, sizeof(uint32_t));
	rk_skin_joint *joints = (rk_skin_joint *)rki_arena_array(ar, RKI_SJ_COUNT, sizeof(rk_skin_joint));
	if (!mesh || !skin || !mesh_skins || !slots || !uv_set || !o.pos || !o.uv || !o.vidx || !o.uvidx || !o.faces || !o.w4
		|| !o.wn || !normals || !weight_begin || !joints)
		return false;
	for (size_t i = 0; i < np; i++) rki_part_emit(&parts[i], &o);

	/* Smooth normals: the one generator (core/normals.h, corner angle x
	 * polygon area, as rk_mesh_smooth_normals). Every face here has 3 or 4
	 * corners over emitted vertices, so none is skipped. */
	rki_smooth_normals(normals, o.pos, cnt.vertices, o.vidx, cnt.corners, o.faces, sizeof(rk_face), cnt.faces);

	/* Influences in CSR form. */
	size_t wc = 0, max_w = 0;
	for (size_t v = 0; v < cnt.vertices; v++) {
		weight_begin[v] = (uint32_t)wc;
		wc += o.wn[v];
		if (o.wn[v] > max_w) max_w = o.wn[v];
	}
	weight_begin[cnt.vertices] = (uint32_t)wc;
	rk_skin_weight *weights = (rk_skin_weight *)rki_arena_array(ar, wc, sizeof(rk_skin_weight));
	if (!weights) return false;
	for (size_t v = 0; v < cnt.vertices; v++)
		memcpy(&weights[weight_begin[v]], &o.w4[v * 4], o.wn[v] * sizeof(rk_skin_weight));

	/* Skin: inverse bind matrices = inverse rest joint world matrices (the
	 * body node is the identity at the root). */
	for (uint32_t j = 0; j < RKI_SJ_COUNT; j++) {
		rk_node *jn = &joint_nodes[j];
		joints[j].node = jn;
		if (!rk_mat4_invert_affine(jn->node_to_world, &joints[j].mesh_to_joint)) return false;
		joints[j].mesh_to_joint = rk_mat4_mul(joints[j].mesh_to_joint, body->node_to_world);
		joints[j].joint_to_world_bind = jn->node_to_world;
		joints[j].mesh_to_world_bind = body->node_to_world;
	}
	skin->index = 0;
	skin->name = "Armature";
	skin->method = RK_SKINNING_LINEAR;
	skin->skeleton_root = &joint_nodes[RKI_SJ_HIPS];
	skin->joint_count = RKI_SJ_COUNT;
	skin->joints = joints;
	skin->vertex_count = cnt.vertices;
	skin->weight_begin = weight_begin;
	skin->weight_count = wc;
	skin->weights = weights;
	skin->dq_weights = NULL;
	skin->max_weights_per_vertex = max_w;
	mesh_skins[0] = skin;

	uv_set->name = "UVMap";
	uv_set->uv = (rk_attrib_vec2){ true, o.uv, cnt.uvs, o.uvidx, NULL };

	mesh->index = 0;
	mesh->name = "Body";
	mesh->source_id = 0;
	mesh->vertex_count = cnt.vertices;
	mesh->positions_f64 = o.pos;
	mesh->index_count = cnt.corners;
	mesh->vertex_indices = o.vidx;
	mesh->face_count = cnt.faces;
	mesh->faces = o.faces;
	mesh->triangle_count_hint = cnt.triangles;
	mesh->normals = (rk_attrib_vec3){ true, normals, cnt.vertices, o.vidx, NULL };
	mesh->uv_sets = (rk_uv_set_list){ uv_set, 1 };
	mesh->face_material = NULL;
	slots[0] = material;
	mesh->materials = (rk_material_ref_list){ slots, material ? 1u : 0u };
	mesh->skin_count = 1;
	mesh->skins = mesh_skins;

	body->mesh = mesh;
	body->skin = skin;
	sc->scene->meshes = (rk_mesh_list){ mesh, 1 };
	sc->scene->skins = (rk_skin_deformer_list){ skin, 1 };
	return true;
}
