/*
 * src/retarget/contact_detect.c - contacts found from a clip (rigkit/retarget.h,
 * CONTACTS) and the contact measures of rk_clip_compare (CONTACT MEASURES).
 *
 * FEATURES
 *   Feet, toes and hands on the floor (height above the joint's rest
 *   height and speed, with hysteresis), hands touching each other and
 *   hands touching the body (distance of the hand joint to segments between
 *   body joints), all in the skeleton's character frame so the thresholds
 *   are in hips heights whatever the file's units.
 *
 * RESTRICTIONS
 *   Joints only: the floor under a joint is its rest height (the rest pose
 *   is taken as standing flat on the floor), the body is a set of segments
 *   between joints (no mesh surface), a hand is its wrist joint.
 */
#include "retarget/contact_internal.h"

#include <math.h>
#include <string.h>

void rki_contact_opts_resolve(rk_contact_opts *out, const rk_contact_opts *in)
{
	if (in) *out = *in;
	else memset(out, 0, sizeof(*out));
	if (out->on_height == 0.0) out->on_height = 0.02;
	if (out->off_height == 0.0) out->off_height = out->on_height > 0.04 ? out->on_height : 0.04;
	if (out->on_speed == 0.0) out->on_speed = 0.25;
	if (out->off_speed == 0.0) out->off_speed = out->on_speed > 0.5 ? out->on_speed : 0.5;
	if (out->hand_on_distance == 0.0) out->hand_on_distance = 0.12;
	if (out->hand_off_distance == 0.0)
		out->hand_off_distance = out->hand_on_distance > 0.15 ? out->hand_on_distance : 0.15;
	if (out->blend_time == 0.0) out->blend_time = 0.15;
}

bool rki_contact_opts_check(const rk_contact_opts *o, rk_error *err)
{
	const struct { const char *name; double v; } f[] = {
		{ "on_height", o->on_height }, { "off_height", o->off_height }, { "on_speed", o->on_speed },
		{ "off_speed", o->off_speed }, { "hand_on_distance", o->hand_on_distance },
		{ "hand_off_distance", o->hand_off_distance }, { "blend_time", o->blend_time },
	};
	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
		if (!isfinite(f[i].v) || f[i].v < 0.0 || f[i].v > 1e6) {
			rki_error_set(err, RK_ERROR_INVALID_ARGUMENT, "contact option %s = %g: expected 0 (default) or a positive "
				"finite value", f[i].name, f[i].v);
			return false;
		}
	}
	if (o->off_height < o->on_height || o->off_speed < o->on_speed || o->hand_off_distance < o->hand_on_distance) {
		rki_error_set(err, RK_ERROR_INVALID_ARGUMENT,
			"contact options: an off threshold (height %g, speed %g, distance %g) is below its on threshold (%g, %g, %g)",
			o->off_height, o->off_speed, o->hand_off_distance, o->on_height, o->on_speed, o->hand_on_distance);
		return false;
	}
	return true;
}

static const rk_humanoid_bone k_point_bone[RK_CONTACT_POINT_COUNT] = {
	RK_HUMANOID_LEFT_FOOT, RK_HUMANOID_RIGHT_FOOT, RK_HUMANOID_LEFT_TOES, RK_HUMANOID_RIGHT_TOES,
	RK_HUMANOID_LEFT_HAND, RK_HUMANOID_RIGHT_HAND,
};

const char *rk_contact_point_name(rk_contact_point p)
{
	if ((int)p < 0 || p >= RK_CONTACT_POINT_COUNT) return "unknown";
	return rk_humanoid_bone_name(k_point_bone[p]);
}

void rki_contact_rig_init(rki_contact_rig *g, const rk_humanoid *h, const bool *usable, const rki_char_frame *f,
	const rk_mat4 *rest_world, const rki_humanoid_pose *rest)
{
	memset(g, 0, sizeof(*g));
	for (int p = 0; p < RK_CONTACT_POINT_COUNT; p++) {
		int b = (int)k_point_bone[p];
		g->bone[p] = usable[b] && h->bones[b] ? b : -1;
		g->rest_height[p] = g->bone[p] >= 0 && p < RK_CONTACT_LEFT_HAND ? rest->position[b].y : 0.0;
	}
	for (int side = 0; side < 2; side++) {
		int t = g->bone[RK_CONTACT_LEFT_TOES + side];
		if (t < 0 || !h->bones[t]->children.count) continue;
		/* the toes joint's first child node: the toe tip of Mixamo / RPM rigs */
		const rk_node *c = h->bones[t]->children.data[0];
		g->has_tip[side] = true;
		g->tip_rest[side] = rki_char_point(f, rk_mat4_get_translation(rest_world[c->index]));
	}
	for (int side = 0; side < 2; side++) {
		int a = g->bone[RK_CONTACT_LEFT_FOOT + side], t = g->bone[RK_CONTACT_LEFT_TOES + side];
		if (a < 0) continue;
		double low = rest->position[a].y;
		if (t >= 0 && rest->position[t].y < low) low = rest->position[t].y;
		if (g->has_tip[side] && g->tip_rest[side].y < low) low = g->tip_rest[side].y;
		g->heel_rest[side] = (rk_vec3){ rest->position[a].x, low, rest->position[a].z };
	}
}

/* Foot side (0 / 1) a node is, or is below, in h; -1 for neither. */
static int rki_foot_side(const rk_humanoid *h, const rk_node *n)
{
	for (int depth = 0; n && depth < 64; depth++, n = n->parent) {
		if (n == h->bones[RK_HUMANOID_LEFT_FOOT]) return 0;
		if (n == h->bones[RK_HUMANOID_RIGHT_FOOT]) return 1;
	}
	return -1;
}

/* Per joint of one skin, what every vertex it weighs would re-derive: the
 * foot side of its node (rki_foot_side) and its rest skinning matrix
 * rest_world[node] * mesh_to_joint, made on first use (the same product, so
 * the same bits as making it per vertex). */
typedef struct rki_sole_joint {
	int8_t side;        /* rki_foot_side of the joint's node (-1: neither or no node) */
	bool have;          /* m made */
	rk_mat4 m;
} rki_sole_joint;

static const rk_mat4 *rki_sole_matrix(rki_sole_joint *cache, const rk_skin_joint *j, size_t ji, const rk_mat4 *rest_world,
	rk_mat4 *scratch)
{
	if (!cache) {
		*scratch = rk_mat4_mul(rest_world[j->node->index], j->mesh_to_joint);
		return scratch;
	}
	if (!cache[ji].have) {
		cache[ji].m = rk_mat4_mul(rest_world[j->node->index], j->mesh_to_joint);
		cache[ji].have = true;
	}
	return &cache[ji].m;
}

/* Vertex v of mesh m skinned by sk at rest, in the character frame; false
 * when it has no usable weight (the side of its largest weight in *side).
 * cache: sk's joints (rki_sole_joint), or NULL to derive everything here. */
static bool rki_rest_vertex(const rk_mesh *m, const rk_skin_deformer *sk, rki_sole_joint *cache, size_t v,
	const rk_humanoid *h, const rki_char_frame *f, const rk_mat4 *rest_world, int *side, rk_vec3 *out)
{
	uint32_t b = sk->weight_begin[v], e = sk->weight_begin[v + 1];
	if (b >= e || e > sk->weight_count) return false;
	const rk_skin_weight *w = &sk->weights[b];
	if (w[0].joint >= sk->joint_count || !sk->joints[w[0].joint].node) return false;
	*side = cache ? cache[w[0].joint].side : rki_foot_side(h, sk->joints[w[0].joint].node);
	if (*side < 0) return false;
	rk_vec3 sum = { 0, 0, 0 }, pos = rk_mesh_position(m, v);
	double total = 0.0;
	for (uint32_t i = 0; i < e - b; i++) {
		const rk_skin_joint *j = w[i].joint < sk->joint_count ? &sk->joints[w[i].joint] : NULL;
		if (!j || !j->node || !(w[i].weight > 0.0f)) continue;
		rk_mat4 scratch;
		/* rk_mat4_transform_point, rk_vec3_scale and rk_vec3_add inline (the
		 * same formulas, without 128-byte copies) */
		const double *x = rki_sole_matrix(cache, j, w[i].joint, rest_world, &scratch)->m;
		double wt = w[i].weight;
		sum.x = sum.x + (x[0] * pos.x + x[4] * pos.y + x[8] * pos.z + x[12]) * wt;
		sum.y = sum.y + (x[1] * pos.x + x[5] * pos.y + x[9] * pos.z + x[13]) * wt;
		sum.z = sum.z + (x[2] * pos.x + x[6] * pos.y + x[10] * pos.z + x[14]) * wt;
		total += w[i].weight;
	}
	if (!(total > 0.0)) return false;
	double inv = 1.0 / total;
	*out = rki_char_point(f, (rk_vec3){ sum.x * inv, sum.y * inv, sum.z * inv });
	return isfinite(out->x) && isfinite(out->y) && isfinite(out->z);
}

/* The foot vertices of the first pass, in visiting order, for the sole band
 * (rki_contact_rig_mesh_sole): chunks allocated as the vertices come, so
 * the memory follows the feet's vertex count, not the meshes'. */
#define RKI_SOLE_CHUNK 1024
typedef struct rki_sole_chunk {
	struct rki_sole_chunk *next;
	size_t count;
	int8_t side[RKI_SOLE_CHUNK];
	double y[RKI_SOLE_CHUNK], z[RKI_SOLE_CHUNK];   /* character frame */
} rki_sole_chunk;

/* What the vertex passes of rki_contact_rig_mesh_sole gather. */
typedef struct rki_sole_scan {
	const rki_contact_rig *g;
	const rk_scene *scene;
	const rk_humanoid *h;
	const rki_char_frame *f;
	const rk_mat4 *rest_world;
	const rki_humanoid_pose *rest;
	rki_alloc *alloc;
	rki_sole_joint *cache;           /* one skin's joints, or NULL */
	int8_t *node_side;               /* rki_foot_side per scene node once known (-2: not yet), or NULL */
	double low[2], back[2], front[2];
	size_t count[2];
	rki_sole_chunk *first, *last;    /* pass 0's foot vertices */
	bool kept;                       /* every one of them is in the chunks */
} rki_sole_scan;

/* The sole band: within a third of the ankle's height above the lowest. */
static void rki_sole_band(rki_sole_scan *st, int side, double y, double z)
{
	int a = st->g->bone[RK_CONTACT_LEFT_FOOT + side];
	if (y > st->low[side] + (st->rest->position[a].y - st->low[side]) / 3.0) return;
	if (z < st->back[side]) st->back[side] = z;
	if (z > st->front[side]) st->front[side] = z;
}

static void rki_sole_keep(rki_sole_scan *st, int side, double y, double z)
{
	if (!st->kept) return;
	rki_sole_chunk *c = st->last;
	if (!c || c->count == RKI_SOLE_CHUNK) {
		c = (rki_sole_chunk *)rki_malloc(st->alloc, sizeof(*c));
		if (!c) {
			st->kept = false;   /* the second pass reads the vertices again */
			return;
		}
		c->next = NULL;
		c->count = 0;
		if (st->last) st->last->next = c;
		else st->first = c;
		st->last = c;
	}
	c->side[c->count] = (int8_t)side;
	c->y[c->count] = y;
	c->z[c->count] = z;
	c->count++;
}

/* rki_foot_side of a node, computed once per node of the scene (the skins
 * of one skeleton share their joints). */
static int rki_node_side(rki_sole_scan *st, const rk_node *n)
{
	const rk_scene *scene = st->scene;
	bool in_scene = st->node_side && n >= scene->nodes.data && n < scene->nodes.data + scene->nodes.count;
	if (!in_scene) return rki_foot_side(st->h, n);
	int8_t *memo = &st->node_side[n - scene->nodes.data];
	if (*memo == -2) *memo = (int8_t)rki_foot_side(st->h, n);
	return *memo;
}

/* One pass over every skinned vertex: pass 0 finds each foot's lowest
 * height and count (and keeps the foot vertices), pass 1 the sole band. */
static void rki_sole_pass(rki_sole_scan *st, int pass)
{
	const rk_scene *scene = st->scene;
	for (size_t mi = 0; mi < scene->meshes.count; mi++) {
		const rk_mesh *m = &scene->meshes.data[mi];
		for (size_t si = 0; si < m->skin_count; si++) {
			const rk_skin_deformer *sk = m->skins[si];
			if (!sk || !sk->weight_begin || !sk->weights || (!m->positions_f64 && !m->positions_f32)) continue;
			if (st->cache)
				for (size_t j = 0; j < sk->joint_count; j++) {
					st->cache[j].side = (int8_t)(sk->joints[j].node ? rki_node_side(st, sk->joints[j].node) : -1);
					st->cache[j].have = false;
				}
			size_t n = sk->vertex_count < m->vertex_count ? sk->vertex_count : m->vertex_count;
			const rki_sole_joint *cache = st->cache;
			const uint32_t *wb = sk->weight_begin, wc = sk->weight_count;
			const size_t jc = sk->joint_count;
			const rk_skin_weight *ws = sk->weights;
			for (size_t v = 0; v < n; v++) {
				/* a vertex whose largest weight is on neither foot, its weights
				 * out of range or on no node: rki_rest_vertex's false, sooner */
				if (cache) {
					uint32_t b = wb[v], e = wb[v + 1];
					if (b >= e || e > wc || ws[b].joint >= jc || cache[ws[b].joint].side < 0) continue;
				}
				int side;
				rk_vec3 q;
				if (!rki_rest_vertex(m, sk, st->cache, v, st->h, st->f, st->rest_world, &side, &q)) continue;
				if (st->g->bone[RK_CONTACT_LEFT_FOOT + side] < 0) continue;
				if (pass == 1) {
					rki_sole_band(st, side, q.y, q.z);
					continue;
				}
				if (q.y < st->low[side]) st->low[side] = q.y;
				st->count[side]++;
				rki_sole_keep(st, side, q.y, q.z);
			}
		}
	}
}

void rki_contact_rig_mesh_sole(rki_contact_rig *g, const rk_scene *scene, const rk_humanoid *h,
	const rki_char_frame *f, const rk_mat4 *rest_world, const rki_humanoid_pose *rest, rki_alloc *alloc)
{
	rki_sole_scan st = {
		.g = g, .scene = scene, .h = h, .f = f, .rest_world = rest_world, .rest = rest, .alloc = alloc,
		.low = { INFINITY, INFINITY }, .back = { INFINITY, INFINITY }, .front = { -INFINITY, -INFINITY },
		.kept = true,
	};
	/* one skin's joint sides and matrices at a time (none when the allocation
	 * fails: every vertex then derives them, the same results) */
	size_t cache_joints = 0;
	for (size_t mi = 0; mi < scene->meshes.count; mi++)
		for (size_t si = 0; si < scene->meshes.data[mi].skin_count; si++) {
			const rk_skin_deformer *sk = scene->meshes.data[mi].skins[si];
			if (sk && sk->joint_count > cache_joints) cache_joints = sk->joint_count;
		}
	st.cache = cache_joints && cache_joints < SIZE_MAX / sizeof(rki_sole_joint)
		? (rki_sole_joint *)rki_malloc(alloc, cache_joints * sizeof(rki_sole_joint)) : NULL;
	st.node_side = st.cache && scene->nodes.count ? (int8_t *)rki_malloc(alloc, scene->nodes.count) : NULL;
	if (st.node_side) memset(st.node_side, -2, scene->nodes.count);
	rki_sole_pass(&st, 0);
	/* the band from the kept foot vertices, in the order the vertices came
	 * (the same comparisons as a second pass over the meshes), or from a
	 * second pass when a chunk could not be allocated */
	if (st.kept)
		for (const rki_sole_chunk *c = st.first; c; c = c->next)
			for (size_t i = 0; i < c->count; i++) rki_sole_band(&st, c->side[i], c->y[i], c->z[i]);
	else
		rki_sole_pass(&st, 1);
	while (st.first) {
		rki_sole_chunk *next = st.first->next;
		rki_free(alloc, st.first, sizeof(*st.first));
		st.first = next;
	}
	if (st.node_side) rki_free(alloc, st.node_side, scene->nodes.count);
	if (st.cache) rki_free(alloc, st.cache, cache_joints * sizeof(rki_sole_joint));
	for (int side = 0; side < 2; side++) {
		int a = g->bone[RK_CONTACT_LEFT_FOOT + side], t = g->bone[RK_CONTACT_LEFT_TOES + side];
		if (!st.count[side] || a < 0 || !(st.low[side] < rest->position[a].y) || !isfinite(st.back[side])) continue;
		g->sole_vertices[side] = st.count[side];
		g->sole_height[side] = st.low[side];
		/* the heel at least under the ankle (a leg mesh may carry the heel) */
		double heel = st.back[side] < rest->position[a].z ? st.back[side] : rest->position[a].z;
		g->heel_rest[side] = (rk_vec3){ rest->position[a].x, st.low[side], heel };
		if (t >= 0) {
			g->has_tip[side] = true;
			g->tip_rest[side] = (rk_vec3){ rest->position[t].x, st.low[side], st.front[side] };
		}
	}
}

/* Rest point `at` of bone b carried to pose p: p's position of b plus the
 * rest offset turned with b (rk_quat_mul / _rotate / rk_vec3_* inline: the
 * same formulas). */
static rk_vec3 rki_carried(const rki_humanoid_pose *rest, const rki_humanoid_pose *p, int b, rk_vec3 at)
{
	rk_quat turn = rki_qmul(p->rotation[b], rki_qconj(rest->rotation[b]));
	rk_vec3 d = rki_qrot(turn, rki_v3sub(at, rest->position[b])), o = p->position[b];
	return (rk_vec3){ o.x + d.x, o.y + d.y, o.z + d.z };
}

rk_vec3 rki_contact_heel(const rki_contact_rig *g, const rki_humanoid_pose *rest, const rki_humanoid_pose *p, int side)
{
	return rki_carried(rest, p, g->bone[RK_CONTACT_LEFT_FOOT + side], g->heel_rest[side]);
}

rk_vec3 rki_contact_tip(const rki_contact_rig *g, const rki_humanoid_pose *rest, const rki_humanoid_pose *p, int side)
{
	return rki_carried(rest, p, g->bone[RK_CONTACT_LEFT_TOES + side], g->tip_rest[side]);
}

size_t rki_body_segments(const bool *usable, int seg[RKI_BODY_SEGMENTS][2])
{
	static const int trunk[] = { RK_HUMANOID_HIPS, RK_HUMANOID_SPINE, RK_HUMANOID_CHEST, RK_HUMANOID_UPPER_CHEST,
		RK_HUMANOID_NECK, RK_HUMANOID_HEAD };
	size_t n = 0;
	int prev = -1;
	for (size_t i = 0; i < sizeof(trunk) / sizeof(trunk[0]); i++) {
		if (!usable[trunk[i]]) continue;
		if (prev >= 0) seg[n][0] = prev, seg[n][1] = trunk[i], n++;
		prev = trunk[i];
	}
	static const int legs[4][2] = {
		{ RK_HUMANOID_HIPS, RK_HUMANOID_LEFT_UPPER_LEG }, { RK_HUMANOID_HIPS, RK_HUMANOID_RIGHT_UPPER_LEG },
		{ RK_HUMANOID_LEFT_UPPER_LEG, RK_HUMANOID_LEFT_LOWER_LEG },
		{ RK_HUMANOID_RIGHT_UPPER_LEG, RK_HUMANOID_RIGHT_LOWER_LEG },
	};
	for (int i = 0; i < 4; i++)
		if (usable[legs[i][0]] && usable[legs[i][1]]) seg[n][0] = legs[i][0], seg[n][1] = legs[i][1], n++;
	return n;
}

int rki_body_segment_find(int seg[RKI_BODY_SEGMENTS][2], size_t count, int end)
{
	/* a segment is named by its second bone (the hips start three) */
	for (size_t i = 0; i < count; i++)
		if (seg[i][1] == end) return (int)i;
	return -1;
}

/* rki_segment_fraction with the vector math inline (rk_vec3_sub / _dot's
 * formulas: the same bits). */
RKI_HOT_INLINE double rki_segment_fraction_inline(rk_vec3 a, rk_vec3 b, rk_vec3 p)
{
	rk_vec3 ab = rki_v3sub(b, a);
	double l2 = rki_v3dot(ab, ab);
	if (!(l2 > 0.0)) return 0.0;
	double u = rki_v3dot(rki_v3sub(p, a), ab) / l2;
	return u < 0.0 ? 0.0 : u > 1.0 ? 1.0 : u;
}

double rki_segment_fraction(rk_vec3 a, rk_vec3 b, rk_vec3 p) { return rki_segment_fraction_inline(a, b, p); }

/* |p - the point of segment a-b nearest to p| (rk_vec3_lerp / _sub /
 * _length's formulas inline). */
RKI_HOT_INLINE double rki_segment_distance(rk_vec3 a, rk_vec3 b, rk_vec3 p)
{
	double u = rki_segment_fraction_inline(a, b, p);
	rk_vec3 q = { a.x + (b.x - a.x) * u, a.y + (b.y - a.y) * u, a.z + (b.z - a.z) * u };
	rk_vec3 d = rki_v3sub(p, q);
	return sqrt(rki_v3dot(d, d));
}

/* Nearest usable body segment to p within `limit`: its index, or -1. */
static int rki_nearest_segment(int seg[RKI_BODY_SEGMENTS][2], size_t count, const rki_humanoid_pose *pose, rk_vec3 p,
	double limit)
{
	int best = -1;
	double best_d = limit;
	for (size_t i = 0; i < count; i++) {
		double d = rki_segment_distance(pose->position[seg[i][0]], pose->position[seg[i][1]], p);
		if (d < best_d) best_d = d, best = (int)i;
	}
	return best;
}

/* Central-difference velocity of bone b at frame k (hips heights / s). */
static rk_vec3 rki_velocity(const rki_humanoid_pose *poses, const double *times, size_t frames, size_t k, int b)
{
	size_t k0 = k > 0 ? k - 1 : k, k1 = k + 1 < frames ? k + 1 : k;
	double dt = times[k1] - times[k0];
	if (!(dt > 0.0)) return (rk_vec3){ 0, 0, 0 };
	rk_vec3 d = rki_v3sub(poses[k1].position[b], poses[k0].position[b]);
	double s = 1.0 / dt;   /* rk_vec3_scale's products */
	return (rk_vec3){ d.x * s, d.y * s, d.z * s };
}

rk_vec3 rki_ground_velocity(const rki_contact_rig *g, const rki_humanoid_pose *poses, const double *times,
	size_t frames, double near)
{
	/* the horizontal velocity of the lowest foot point on the frames where
	 * it is within `near` of its floor height, averaged, then averaged
	 * again over the frames close to that average (twice, the band
	 * narrowing: steps and toe-offs left out); under 0.05 hips heights / s
	 * it is no treadmill but noise: 0 */
	rk_vec3 mean = { 0, 0, 0 };
	size_t used = 0;
	for (int pass = 0; pass < 3; pass++) {
		rk_vec3 sum = { 0, 0, 0 };
		size_t n = 0;
		double speed = rk_vec3_length(mean);
		double band = pass == 1 ? (speed / 4 > 0.5 ? speed / 4 : 0.5) : (speed / 10 > 0.1 ? speed / 10 : 0.1);
		for (size_t k = 0; k < frames; k++) {
			int low = -1;
			double low_e = INFINITY;
			for (int p = 0; p < RK_CONTACT_LEFT_HAND; p++) {
				if (g->bone[p] < 0) continue;
				double e = poses[k].position[g->bone[p]].y - g->rest_height[p];
				if (e < low_e) low_e = e, low = g->bone[p];
			}
			if (low < 0 || !(low_e < near)) continue;
			rk_vec3 v = rki_velocity(poses, times, frames, k, low);
			v.y = 0.0;
			if (pass > 0 && rk_vec3_length(rk_vec3_sub(v, mean)) > band) continue;
			sum = rk_vec3_add(sum, v);
			n++;
		}
		used = n;
		if (!n) break;
		mean = rk_vec3_scale(sum, 1.0 / (double)n);
	}
	/* fewer than 5 such frames (a pose, a jump) tell nothing */
	if (used < 5 || rk_vec3_length(mean) < 0.05) mean = (rk_vec3){ 0, 0, 0 };
	return mean;
}

void rki_contacts_find(const rki_contact_rig *g, const bool *usable, const rki_humanoid_pose *poses,
	const double *times, size_t frames, const rk_contact_opts *o, rk_vec3 ground, rk_contact_frame *out)
{
	int seg[RKI_BODY_SEGMENTS][2];
	size_t segs = rki_body_segments(usable, seg);
	bool on[RK_CONTACT_POINT_COUNT] = { false };
	bool pair = false;
	int body[2] = { -1, -1 };
	for (size_t k = 0; k < frames; k++) {
		rk_contact_frame *c = &out[k];
		memset(c, 0, sizeof(*c));
		c->hand_body[0] = c->hand_body[1] = -1;
		for (int p = 0; p < RK_CONTACT_POINT_COUNT; p++) {
			int b = g->bone[p];
			if (b < 0) continue;
			double e = poses[k].position[b].y - g->rest_height[p];
			rk_vec3 vel = rki_v3sub(rki_velocity(poses, times, frames, k, b), ground);
			double v = hypot(vel.x, vel.z);   /* sliding; lifting is the height's business */
			if (!on[p] && e < o->on_height && v < o->on_speed) on[p] = true;
			else if (on[p] && (e > o->off_height || v > o->off_speed)) on[p] = false;
			if (on[p]) c->floor |= (uint8_t)(1u << p);
		}
		int lh = g->bone[RK_CONTACT_LEFT_HAND], rh = g->bone[RK_CONTACT_RIGHT_HAND];
		if (lh >= 0 && rh >= 0) {
			double d = rk_vec3_length(rk_vec3_sub(poses[k].position[lh], poses[k].position[rh]));
			pair = pair ? d <= o->hand_off_distance : d < o->hand_on_distance;
			c->hands_touch = pair;
		}
		for (int side = 0; side < 2; side++) {
			int hb = side ? rh : lh;
			if (hb < 0) continue;
			rk_vec3 p = poses[k].position[hb];
			if (body[side] >= 0) {
				/* held until past the off distance from the same segment */
				double d = rki_segment_distance(poses[k].position[seg[body[side]][0]],
					poses[k].position[seg[body[side]][1]], p);
				if (d > o->hand_off_distance) body[side] = -1;
			}
			if (body[side] < 0) body[side] = rki_nearest_segment(seg, segs, &poses[k], p, o->hand_on_distance);
			c->hand_body[side] = (int8_t)(body[side] >= 0 ? seg[body[side]][1] : -1);
		}
	}
}

void rki_contact_weights(const double *times, size_t frames, const uint8_t *on, double blend, double *w,
	int32_t *owner)
{
	for (size_t k = 0; k < frames; k++) w[k] = 0.0, owner[k] = -1;
	size_t k = 0, prev_end = 0;
	bool have_prev = false;
	while (k < frames) {
		if (!on[k]) {
			k++;
			continue;
		}
		size_t a = k;
		while (k < frames && on[k]) k++;
		size_t b = k - 1;   /* run [a, b] */
		size_t next = k;
		while (next < frames && !on[next]) next++;
		double before = blend, after = blend;
		if (have_prev && (times[a] - times[prev_end]) * 0.5 < before) before = (times[a] - times[prev_end]) * 0.5;
		if (next < frames && (times[next] - times[b]) * 0.5 < after) after = (times[next] - times[b]) * 0.5;
		for (size_t j = a; j <= b; j++) w[j] = 1.0, owner[j] = (int32_t)a;
		for (size_t j = a; j-- > 0;) {
			double d = times[a] - times[j];
			if (!(d < before)) break;
			double s = 1.0 - d / before;
			w[j] = s * s * (3.0 - 2.0 * s);
			owner[j] = (int32_t)a;
		}
		for (size_t j = b + 1; j < frames; j++) {
			double d = times[j] - times[b];
			if (!(d < after)) break;
			double s = 1.0 - d / after;
			w[j] = s * s * (3.0 - 2.0 * s);
			owner[j] = (int32_t)a;
		}
		prev_end = b;
		have_prev = true;
	}
}

/* ---- measures ------------------------------------------------------------------ */

/* Lowest e_p of one foot's points at pose p (feet and toes; the tip when
 * both rigs have one). */
static double rki_foot_clearance(const rki_contact_rig *g, const rki_humanoid_pose *rest, const rki_humanoid_pose *p,
	int side, bool tip)
{
	double low = INFINITY;
	for (int q = side; q < RK_CONTACT_LEFT_HAND; q += 2) {
		if (g->bone[q] < 0) continue;
		double e = p->position[g->bone[q]].y - g->rest_height[q];
		if (e < low) low = e;
	}
	if (tip && g->has_tip[side]) {
		double e = rki_contact_tip(g, rest, p, side).y - g->tip_rest[side].y - g->floor;
		if (e < low) low = e;
	}
	if (g->bone[RK_CONTACT_LEFT_FOOT + side] >= 0) {
		double e = rki_contact_heel(g, rest, p, side).y - g->heel_rest[side].y - g->floor;
		if (e < low) low = e;
	}
	return low;
}

void rki_contact_rig_fit_floor(rki_contact_rig *g, const rki_humanoid_pose *rest, const rki_humanoid_pose *poses,
	size_t frames, double on_height)
{
	double low = 0.0;
	for (size_t k = 0; k < frames; k++)
		for (int side = 0; side < 2; side++) {
			double e = rki_foot_clearance(g, rest, &poses[k], side, true);
			if (isfinite(e) && e < low) low = e;
		}
	if (!(low < -on_height)) return;
	g->floor += low;
	for (int p = 0; p < RK_CONTACT_LEFT_HAND; p++) g->rest_height[p] += low;
}

/* B's heel or toe tip (which = 0 / 1) on the floor at frame k: within
 * on_height of its rest height and sliding slower than off_speed (a foot
 * standing on the tips of longer toes than A's, or on its heel with the
 * ankle higher than A's). */
static rk_vec3 rki_sole_point(const rki_contact_rig *g, const rki_humanoid_pose *rest, const rki_humanoid_pose *p,
	int side, int which)
{
	return which ? rki_contact_tip(g, rest, p, side) : rki_contact_heel(g, rest, p, side);
}

static bool rki_sole_touches(const rki_contact_rig *g, const rki_humanoid_pose *rest, const rki_humanoid_pose *p,
	const double *times, size_t frames, size_t k, int side, int which, const rk_contact_opts *o, rk_vec3 ground)
{
	if (which ? !g->has_tip[side] : g->bone[RK_CONTACT_LEFT_FOOT + side] < 0) return false;
	double rest_y = (which ? g->tip_rest[side].y : g->heel_rest[side].y) + g->floor;
	if (rki_sole_point(g, rest, &p[k], side, which).y - rest_y >= o->on_height) return false;
	size_t k0 = k > 0 ? k - 1 : k, k1 = k + 1 < frames ? k + 1 : k;
	double dt = times[k1] - times[k0];
	if (!(dt > 0.0)) return true;
	rk_vec3 v = rk_vec3_sub(rk_vec3_scale(rk_vec3_sub(rki_sole_point(g, rest, &p[k1], side, which),
		rki_sole_point(g, rest, &p[k0], side, which)), 1.0 / dt), ground);
	return hypot(v.x, v.z) < o->off_speed;
}

void rki_contact_measure(const rki_contact_rig *ga, const rki_contact_rig *gb, const bool *usable,
	const rki_humanoid_pose *rest_a, const rki_humanoid_pose *rest_b, const rki_humanoid_pose *pa,
	rki_humanoid_pose *pb, const double *times, size_t frames, const rk_contact_opts *o,
	double b_meters_per_unit, rk_contact_frame *ca, rk_contact_frame *cb, rk_compare_contacts *out)
{
	memset(out, 0, sizeof(*out));
	/* B in the space that moves with its hips' horizontal offset from A's
	 * (a --root in-place result is measured like a --root keep one) */
	for (size_t k = 0; k < frames; k++) {
		rk_vec3 d = rk_vec3_sub(pb[k].position[RK_HUMANOID_HIPS], pa[k].position[RK_HUMANOID_HIPS]);
		d.y = 0.0;
		for (int b = 0; b < RK_HUMANOID_BONE_COUNT; b++)
			if (usable[b]) pb[k].position[b] = rk_vec3_sub(pb[k].position[b], d);
	}
	/* B follows A's ground (in hips heights / s): an in-place walk's
	 * treadmill moves B's planted feet as fast as A's */
	rki_contact_rig fa = *ga;
	rki_contact_rig_fit_floor(&fa, rest_a, pa, frames, o->on_height);
	ga = &fa;
	rk_vec3 ground = rki_ground_velocity(ga, pa, times, frames, o->off_height);
	rki_contacts_find(ga, usable, pa, times, frames, o, ground, ca);
	rki_contacts_find(gb, usable, pb, times, frames, o, ground, cb);
	int seg[RKI_BODY_SEGMENTS][2];
	size_t segs = rki_body_segments(usable, seg);
	double slide_sum = 0.0;
	size_t slide_n = 0;
	for (size_t k = 0; k < frames; k++) {
		for (int side = 0; side < 2; side++) {
			bool tip = ga->has_tip[side] && gb->has_tip[side];
			double eb = rki_foot_clearance(gb, rest_b, &pb[k], side, tip);
			double ea = rki_foot_clearance(ga, rest_a, &pa[k], side, tip);
			if (isfinite(eb) && -eb > out->b_floor_penetration_any) out->b_floor_penetration_any = -eb;
			if (isfinite(ea) && -ea > out->a_floor_penetration_any) out->a_floor_penetration_any = -ea;
			uint8_t mask = (uint8_t)((1u << side) | (1u << (side + 2)));
			if ((ca[k].floor & mask) && isfinite(eb) && -eb > out->floor_penetration) out->floor_penetration = -eb;
			if (ca[k].floor & mask) {
				out->a_contact_frames++;
				if ((cb[k].floor & mask) || rki_sole_touches(gb, rest_b, pb, times, frames, k, side, 0, o, ground) ||
					(tip && rki_sole_touches(gb, rest_b, pb, times, frames, k, side, 1, o, ground)))
					out->kept_frames++;
			}
			/* slide of the contact point: the toes when A's toes touch, else the ankle */
			if (k == 0) continue;
			int q = (ca[k].floor & (1u << (side + 2))) ? side + 2 : (ca[k].floor & (1u << side)) ? side : -1;
			if (q < 0 || !(ca[k - 1].floor & (1u << q)) || ga->bone[q] < 0 || gb->bone[q] < 0) continue;
			double dt = times[k] - times[k - 1];
			if (!(dt > 0.0)) continue;
			int b = gb->bone[q];
			rk_vec3 d = rk_vec3_sub(rk_vec3_sub(pb[k].position[b], pb[k - 1].position[b]), rk_vec3_scale(ground, dt));
			double v = sqrt(d.x * d.x + d.z * d.z) / dt;
			rk_vec3 da = rk_vec3_sub(rk_vec3_sub(pa[k].position[b], pa[k - 1].position[b]), rk_vec3_scale(ground, dt));
			double va = sqrt(da.x * da.x + da.z * da.z) / dt;
			if (v > out->foot_slide) out->foot_slide = v;
			if (va > out->a_foot_slide) out->a_foot_slide = va;
			slide_sum += v;
			slide_n++;
		}
		/* hand contacts */
		int lh = ga->bone[RK_CONTACT_LEFT_HAND], rh = ga->bone[RK_CONTACT_RIGHT_HAND];
		if (lh < 0 || rh < 0 || gb->bone[RK_CONTACT_LEFT_HAND] < 0 || gb->bone[RK_CONTACT_RIGHT_HAND] < 0) continue;
		bool any = false;
		if (ca[k].hands_touch) {
			rk_vec3 da = rk_vec3_sub(pa[k].position[lh], pa[k].position[rh]);
			rk_vec3 db = rk_vec3_sub(pb[k].position[lh], pb[k].position[rh]);
			double e = rk_vec3_length(rk_vec3_sub(da, db));
			if (e > out->hand_contact_error) out->hand_contact_error = e;
			any = true;
		}
		for (int side = 0; side < 2; side++) {
			int s = ca[k].hand_body[side] >= 0 ? rki_body_segment_find(seg, segs, ca[k].hand_body[side]) : -1;
			if (s < 0) continue;
			int hb = side ? rh : lh;
			rk_vec3 a0 = pa[k].position[seg[s][0]], a1 = pa[k].position[seg[s][1]];
			double u = rki_segment_fraction(a0, a1, pa[k].position[hb]);
			rk_vec3 oa = rk_vec3_sub(pa[k].position[hb], rk_vec3_lerp(a0, a1, u));
			rk_vec3 ob = rk_vec3_sub(pb[k].position[hb], rk_vec3_lerp(pb[k].position[seg[s][0]], pb[k].position[seg[s][1]], u));
			double e = rk_vec3_length(rk_vec3_sub(oa, ob));
			if (e > out->hand_contact_error) out->hand_contact_error = e;
			any = true;
		}
		if (any) out->hand_contact_frames++;
	}
	out->agreement = out->a_contact_frames ? (double)out->kept_frames / (double)out->a_contact_frames : 1.0;
	out->mean_foot_slide = slide_n ? slide_sum / (double)slide_n : 0.0;
	out->foot_slide_mps = out->foot_slide * b_meters_per_unit;
}

/* ---- rk_contacts_detect -------------------------------------------------------- */

bool rk_contacts_detect(const rk_scene *scene, const rk_anim_clip *clip, const rk_humanoid *h, rk_rest_mode rest,
	double fps, const rk_contact_opts *opts, const rk_allocator *allocator, rk_contacts *out, rk_error *err)
{
	rki_error_clear(err);
	if (out) memset(out, 0, sizeof(*out));
	if (!scene || !clip || !out) {
		rki_error_set(err, RK_ERROR_INVALID_ARGUMENT, "rk_contacts_detect needs a scene, a clip and a result");
		return false;
	}
	if (!scene->clips.count || clip < scene->clips.data || clip >= scene->clips.data + scene->clips.count) {
		rki_error_set(err, RK_ERROR_INVALID_ARGUMENT, "the clip is not one of the scene's clips");
		return false;
	}
	if (fps == 0.0) fps = scene->settings.frame_rate > 0.0 ? scene->settings.frame_rate : 30.0;
	double duration = clip->time_end - clip->time_begin;
	if (!isfinite(fps) || fps < 0.0 || fps > 10000.0 || !isfinite(duration) || duration < 0.0 ||
		!isfinite(clip->time_begin)) {
		rki_error_set(err, RK_ERROR_INVALID_ARGUMENT, "bad rate %g fps or clip range [%g, %g]", fps, clip->time_begin,
			clip->time_end);
		return false;
	}
	double nf = floor(duration * fps + 0.5) + 1.0;
	if (nf > (double)RK_DEFAULT_MAX_FRAMES) {
		rki_error_set(err, RK_ERROR_LIMIT, "%.0f frames (%g s at %g fps) exceed %d", nf, duration, fps,
			(int)RK_DEFAULT_MAX_FRAMES);
		return false;
	}
	rk_contact_opts o;
	rki_contact_opts_resolve(&o, opts);
	if (!rki_contact_opts_check(&o, err)) return false;
	rk_humanoid store;
	const rk_humanoid *hm = rki_humanoid_resolve(scene, h, &store, "scene", err);
	if (!hm) {
		rki_error_file(err, scene->source_path);
		return false;
	}
	size_t frames = (size_t)nf;
	rki_alloc tmp;
	rki_alloc_init(&tmp, allocator, RKI_DEFAULT_MEMORY_LIMIT, 0);
	rki_rest_table rt;
	memset(&rt, 0, sizeof(rt));
	rki_pose_buffer pb;
	memset(&pb, 0, sizeof(pb));
	rki_humanoid_pose *poses = NULL;
	double *times = NULL;
	rk_contact_frame *cf = NULL;
	bool ok = false;
	rki_char_frame f;
	if (!rki_rest_table_init(&rt, scene, rest, &tmp, err) || !rki_char_frame_from_rest(scene, hm, rt.world, &f, err)) {
		rki_error_file(err, scene->source_path);
		goto done;
	}
	poses = (rki_humanoid_pose *)rki_calloc(&tmp, frames, sizeof(*poses));
	times = (double *)rki_calloc(&tmp, frames, sizeof(double));
	if (!poses || !times || !rki_pose_buffer_init(&pb, scene, &tmp, err)) {
		if (!poses || !times) rki_error_set(err, RK_ERROR_OUT_OF_MEMORY, "cannot allocate %zu frames of poses", frames);
		goto done;
	}
	for (size_t k = 0; k < frames; k++) {
		double t = (double)k / fps;
		if (t > duration || k + 1 == frames) t = duration;
		times[k] = t;
		if (!rki_pose_buffer_eval(&pb, scene, clip, clip->time_begin + t, err)) {
			rki_error_file(err, scene->source_path);
			goto done;
		}
		rki_humanoid_pose_from(hm, &f, pb.pose.node_to_world, &poses[k]);
	}
	bool usable[RK_HUMANOID_BONE_COUNT];
	for (int b = 0; b < RK_HUMANOID_BONE_COUNT; b++) usable[b] = hm->bones[b] != NULL;
	rki_humanoid_pose rest_pose;
	rki_humanoid_pose_from(hm, &f, rt.world, &rest_pose);
	rki_contact_rig g;
	rki_contact_rig_init(&g, hm, usable, &f, rt.world, &rest_pose);
	rki_contact_rig_fit_floor(&g, &rest_pose, poses, frames, o.on_height);
	/* the result lives in the caller's allocator, outside the temporaries' limit */
	rki_alloc res;
	rki_alloc_init(&res, allocator, RKI_DEFAULT_MEMORY_LIMIT, 0);
	cf = (rk_contact_frame *)rki_calloc(&res, frames, sizeof(*cf));
	if (!cf) {
		rki_error_set(err, RK_ERROR_OUT_OF_MEMORY, "cannot allocate %zu contact frames", frames);
		goto done;
	}
	out->ground_velocity = rki_ground_velocity(&g, poses, times, frames, o.off_height);
	rki_contacts_find(&g, usable, poses, times, frames, &o, out->ground_velocity, cf);
	out->frames = frames;
	out->fps = fps;
	out->time_begin = clip->time_begin;
	out->frame = cf;
	if (allocator) out->allocator = *allocator;
	for (int p = 0; p < RK_CONTACT_POINT_COUNT; p++) out->rest_height[p] = g.rest_height[p];
	for (size_t k = 0; k < frames; k++) {
		for (int p = 0; p < RK_CONTACT_POINT_COUNT; p++) out->contact_frames[p] += (cf[k].floor >> p) & 1u;
		out->hand_pair_frames += cf[k].hands_touch;
		out->hand_body_frames[0] += cf[k].hand_body[0] >= 0;
		out->hand_body_frames[1] += cf[k].hand_body[1] >= 0;
	}
	ok = true;
done:
	rki_pose_buffer_free(&pb);
	if (poses) rki_free(&tmp, poses, frames * sizeof(*poses));
	if (times) rki_free(&tmp, times, frames * sizeof(double));
	rki_rest_table_free(&rt);
	return ok;
}

void rk_contacts_free(rk_contacts *c)
{
	if (!c) return;
	if (c->frame) {
		rki_alloc a;
		rki_alloc_init(&a, &c->allocator, RKI_DEFAULT_MEMORY_LIMIT, 0);
		rki_free(&a, c->frame, c->frames * sizeof(*c->frame));
	}
	memset(c, 0, sizeof(*c));
}
