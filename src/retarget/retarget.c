/*
 * src/retarget/retarget.c - rk_retarget: a clip of one humanoid baked onto
 * another (the rule is in rigkit/retarget.h, THE RETARGETING RULE).
 *
 * FEATURES
 *   Any source/target pair rk_humanoid_detect (or the caller) maps: names,
 *   rest poses (T / A), bone rolls, Z-up armatures, cm / m and facing are
 *   absorbed by the character frames and the per-bone rest alignment.
 *   Targets may be glTF-style nodes (tracks hold the local rotation /
 *   translation) or FBX nodes (tracks hold "Lcl Rotation" as a quaternion and
 *   "Lcl Translation": Pre/PostRotation, pivots, offsets and load
 *   adjustments are solved for, so the evaluated local transform is the one
 *   wanted). Quaternion keys stay in one hemisphere per track (LINEAR keys
 *   slerp the short way).
 *
 * RESTRICTIONS
 *   Unmapped target nodes keep their rest transform (no IK, no finger
 *   curling of bones the source lacks), except twist joints
 *   (retarget_twist.c) and the root node of RK_RETARGET_ROOT_EXTRACT
 *   (retarget_root.c). Local rotations are solved against
 *   the parents' rotations; a parent with non-uniform scale (shear) is taken
 *   by its rotation only. FBX targets with inherit modes other than normal
 *   on a mapped node are solved as if normal. The hips translation assumes
 *   the hips' ancestors are not animated.
 */
#include "retarget/retarget_internal.h"
#include "retarget/contact_internal.h"
#include "retarget/retarget_twist.h"
#include "retarget/retarget_root.h"
#include "scene/scene_internal.h"
#include "core/ik.h"
#include "rigkit/runtime.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>


static bool rki_is_finger(int b)
{
	return b >= RK_HUMANOID_LEFT_THUMB_METACARPAL && b < RK_HUMANOID_BONE_COUNT;
}

/* ---- node track values ------------------------------------------------------- */

static rk_quat rki_rot_only(rk_quat q) { return rk_quat_normalize(q); }

/* The node's node_to_parent for track values (rotation track value q,
 * translation track value t), as the evaluator computes it. */
static rk_mat4 rki_node_ntp(const rk_node *n, rk_quat q, rk_vec3 t)
{
	if (n->has_fbx_props) {
		rk_transform_props p = n->props;
		rk_rotation_order order = p.rotation_active ? p.rotation_order : RK_ROTATION_XYZ;
		p.rotation = rk_quat_to_euler_deg(q, order);
		p.translation = t;
		return rk_fbx_node_to_parent(&p, &n->adjust);
	}
	rk_trs trs = n->local;
	trs.rotation = q;
	trs.translation = t;
	return rk_adjust_transform_apply(rk_mat4_from_trs(trs), &n->adjust);
}

/* Rotation track value that makes the node's local rotation `local`. */
static rk_quat rki_track_rotation(const rk_node *n, rk_quat local)
{
	const rk_adjust_transform *a = &n->adjust;
	rk_quat pre = RK_QUAT_IDENTITY, post = RK_QUAT_IDENTITY;
	if (!rk_adjust_transform_is_identity(a)) {
		pre = a->pre_rotation;
		post = a->post_rotation;
	}
	/* local = pre * X * post  ->  X = pre^-1 * local * post^-1 */
	rk_quat x = rk_quat_mul(rk_quat_conjugate(pre), rk_quat_mul(local, rk_quat_conjugate(post)));
	if (n->has_fbx_props && n->props.rotation_active) {
		/* X = Rpre * Rlcl * Rpost^-1  ->  Rlcl = Rpre^-1 * X * Rpost */
		rk_quat rp = rk_quat_from_euler_deg(n->props.pre_rotation, RK_ROTATION_XYZ);
		rk_quat rq = rk_quat_from_euler_deg(n->props.post_rotation, RK_ROTATION_XYZ);
		x = rk_quat_mul(rk_quat_conjugate(rp), rk_quat_mul(x, rq));
	}
	return rki_rot_only(x);
}

/* Translation track value that puts the node's origin at `local_pos` (in its
 * parent's space) given rotation track value q: node_to_parent's
 * translation is affine in the track value, solved from four evaluations. */
typedef struct rki_translation_solve {
	rk_vec3 t0;                      /* node_to_parent's translation for a zero track value */
	rk_mat4 inv;                     /* inverse of its linear part in the track value */
} rki_translation_solve;

static bool rki_translation_solve_init(const rk_node *n, rk_quat q, rki_translation_solve *s)
{
	rk_vec3 t0 = rk_mat4_get_translation(rki_node_ntp(n, q, (rk_vec3){ 0, 0, 0 }));
	rk_vec3 cx = rk_vec3_sub(rk_mat4_get_translation(rki_node_ntp(n, q, (rk_vec3){ 1, 0, 0 })), t0);
	rk_vec3 cy = rk_vec3_sub(rk_mat4_get_translation(rki_node_ntp(n, q, (rk_vec3){ 0, 1, 0 })), t0);
	rk_vec3 cz = rk_vec3_sub(rk_mat4_get_translation(rki_node_ntp(n, q, (rk_vec3){ 0, 0, 1 })), t0);
	rk_mat4 l = rk_mat4_identity();
	l.m[0] = cx.x, l.m[1] = cx.y, l.m[2] = cx.z;
	l.m[4] = cy.x, l.m[5] = cy.y, l.m[6] = cy.z;
	l.m[8] = cz.x, l.m[9] = cz.y, l.m[10] = cz.z;
	s->t0 = t0;
	return rk_mat4_invert(l, &s->inv);
}

static rk_vec3 rki_translation_solve_apply(const rki_translation_solve *s, rk_vec3 local_pos)
{
	return rk_mat4_transform_vector(s->inv, rk_vec3_sub(local_pos, s->t0));
}

/* A glTF-style node's translation does not depend on its rotation value
 * (node_to_parent's translation is the adjusted track value whatever the
 * rotation), so its solve is made once per clip; an FBX node's (pivots,
 * offsets turned by the rotation) is made for each rotation value. */
static bool rki_translation_depends_on_rotation(const rk_node *n) { return n->has_fbx_props; }

static bool rki_track_translation(const rk_node *n, rk_quat q, rk_vec3 local_pos, rk_vec3 *out)
{
	rki_translation_solve s;
	if (!rki_translation_solve_init(n, q, &s)) return false;
	*out = rki_translation_solve_apply(&s, local_pos);
	return true;
}

/* ---- the job ---------------------------------------------------------------- */

typedef struct rki_retarget {
	const rk_scene *source, *target;
	const rk_humanoid *hs, *ht;
	rki_char_frame fs, ft;
	rki_humanoid_pose rest_s, rest_t;
	bool use[RK_HUMANOID_BONE_COUNT];
	rk_quat align[RK_HUMANOID_BONE_COUNT];   /* A(b), character frames */
	rk_quat k[RK_HUMANOID_BONE_COUNT];       /* Rs^-1 * A(b) * Rd */
	int dir_child[RK_HUMANOID_BONE_COUNT];   /* direction child among the bones used, or -1 */
	int *bone_of_node;                       /* target node -> bone or -1 */
	rk_quat *rest_local;                     /* target node rest local rotations */
	rk_quat *world;                          /* target node world rotations at the current frame */
	rk_quat *rest_world;                     /* target node rest world rotations */
	rk_vec3 *rest_pos;                       /* target node rest world positions */
	rk_vec3 *pos;                            /* target node world positions at the current frame */
	rk_quat wbone[RK_HUMANOID_BONE_COUNT];   /* mapped bones' world rotations at the current frame */
	uint8_t *rest_track;                     /* target node -> RKI_REST_* tracks holding its bind rest */
	rk_quat *value;                          /* target node rotation track values at the current frame */
	bool foot_ik;
	const rki_twist *twist;                  /* twist joints (retarget_twist.c); NULL = none */
	const rki_root *root;                    /* root motion (retarget_root.c); NULL or off = none */
	bool skip_dir[RK_HUMANOID_BONE_COUNT];   /* turned by the contact solve: not in max_direction_error */
} rki_retarget;

/* World rotations of every target node for the current frame: mapped
 * nodes take wbone[], the others follow their parent with their rest local
 * rotation. */
static void rki_world_rotations(rki_retarget *r)
{
	size_t nodes = r->target->nodes.count;
	for (size_t i = 0; i < nodes; i++) {
		const rk_node *n = &r->target->nodes.data[i];
		int b = r->bone_of_node[i];
		if (i == 0) r->world[0] = r->rest_local[0];
		else if (b >= 0) r->world[i] = r->wbone[b];
		else if (r->root && r->root->on && i == r->root->node) r->world[i] = r->root->world_rotation;
		else r->world[i] = rki_qnorm(rki_qmul(r->world[n->parent->index], r->rest_local[i]));
	}
}

/* World positions of every target node for the current frame: rest offsets
 * turned by the parents' rotation change; the hips at hips_pos. */
static void rki_world_positions(rki_retarget *r, rk_vec3 hips_pos)
{
	size_t nodes = r->target->nodes.count, hips = r->ht->bones[RK_HUMANOID_HIPS]->index;
	for (size_t i = 0; i < nodes; i++) {
		const rk_node *n = &r->target->nodes.data[i];
		if (i == hips) {
			r->pos[i] = hips_pos;
		} else if (!n->parent) {
			r->pos[i] = r->rest_pos[i];
		} else {
			size_t p = n->parent->index;
			rk_quat turn = rk_quat_mul(r->world[p], rk_quat_conjugate(r->rest_world[p]));
			r->pos[i] = rk_vec3_add(r->pos[p], rk_quat_rotate(turn, rk_vec3_sub(r->rest_pos[i], r->rest_pos[p])));
		}
	}
}

/* Two-bone IK of one leg (rk_two_bone_ik_job in swing mode: the bones turn
 * the shortest way): turns the upper and lower leg (wbone) so that the foot
 * joint reaches `goal` (world; the reach kept 1e-4 off full extension and
 * fold), the knee bending in the plane the retargeted pose already bends it
 * in (else towards `forward`). Returns the remaining distance to the goal
 * (0 unless out of reach). */
static double rki_leg_ik(rki_retarget *r, int upper, int lower, int foot, rk_vec3 goal, rk_vec3 forward)
{
	rk_vec3 h = r->pos[r->ht->bones[upper]->index], k = r->pos[r->ht->bones[lower]->index];
	rk_vec3 hg = rk_vec3_sub(goal, h), hk = rk_vec3_sub(k, h);
	double d = rk_vec3_length(hg);
	if (!(d > 0.0)) return 0.0;
	rk_vec3 u = rk_vec3_scale(hg, 1.0 / d);
	bool straight = rk_vec3_length(rk_vec3_sub(hk, rk_vec3_scale(u, rk_vec3_dot(hk, u)))) < 1e-6 * rk_vec3_length(hk);
	rk_quat cs, cm;
	double miss = 0.0;
	rk_two_bone_ik_job job = {
		.start_position = h, .mid_position = k, .end_position = r->pos[r->ht->bones[foot]->index],
		.start_rotation = r->wbone[upper], .mid_rotation = r->wbone[lower],
		.target = goal, .pole = straight ? forward : hk,
		.weight = 1.0, .reach_margin = 1e-4,
		.start_correction = &cs, .mid_correction = &cm, .miss = &miss,
	};
	if (!rk_two_bone_ik_run(&job)) return 0.0;   /* a zero-length bone: leg left as it is */
	rk_quat ws = r->wbone[upper], wm = r->wbone[lower];
	r->wbone[upper] = rk_quat_normalize(rk_quat_mul(ws, cs));
	r->wbone[lower] = rk_quat_normalize(rk_quat_mul(r->wbone[upper], rk_quat_mul(rk_quat_conjugate(ws), rk_quat_mul(wm, cm))));
	return miss;
}

/* ---- constant tracks holding a bind rest (retarget.h, REST POSE) -------------- */

enum { RKI_REST_ROTATION = 1, RKI_REST_TRANSLATION = 2, RKI_REST_SCALE = 4 };

/* The node's stored rotation track value (what plays without a track). */
static rk_quat rki_stored_rotation_value(const rk_node *n)
{
	if (n->has_fbx_props) {
		rk_rotation_order order = n->props.rotation_active ? n->props.rotation_order : RK_ROTATION_XYZ;
		return rk_quat_from_euler_deg(n->props.rotation, order);
	}
	return n->local.rotation;
}

/* Frame k of the constant tracks: rotation values of unmapped nodes and
 * translation values (solved with the node's rotation value this frame). */
static bool rki_rest_track_values(rki_retarget *r, const rk_mat4 *rest_local, size_t k, size_t frames,
	double *rot, double *trans, double *scale, rk_error *err)
{
	size_t nr = 0, nt = 0, ns = 0;
	for (size_t i = 1; i < r->target->nodes.count; i++) {
		const rk_node *n = &r->target->nodes.data[i];
		uint8_t what = r->rest_track[i];
		if (!what) continue;
		bool animated = r->bone_of_node[i] >= 0 || (r->twist && rki_twist_index(r->twist, i) >= 0);
		rk_quat q = animated ? r->value[i] : rki_stored_rotation_value(n);
		if (what & RKI_REST_ROTATION) {
			q = rki_track_rotation(n, r->rest_local[i]);
			double *dst = rot + (nr++ * frames + k) * 4;
			dst[0] = q.x, dst[1] = q.y, dst[2] = q.z, dst[3] = q.w;
		}
		if (what & RKI_REST_TRANSLATION) {
			rk_vec3 tv;
			if (!rki_track_translation(n, q, rk_mat4_get_translation(rest_local[i]), &tv) || !isfinite(tv.x) ||
				!isfinite(tv.y) || !isfinite(tv.z)) {
				rki_error_set(err, RK_ERROR_INVALID_ARGUMENT,
					"target node \"%s\": its bind-pose translation cannot be solved (degenerate scale)",
					n->name ? n->name : "");
				return false;
			}
			double *dst = trans + (nt++ * frames + k) * 3;
			dst[0] = tv.x, dst[1] = tv.y, dst[2] = tv.z;
		}
		if (what & RKI_REST_SCALE) {
			rk_vec3 sv = rk_mat4_decompose(rest_local[i]).scale;
			double *dst = scale + (ns++ * frames + k) * 3;
			dst[0] = sv.x, dst[1] = sv.y, dst[2] = sv.z;
		}
	}
	return true;
}

/* The constant tracks themselves, from `out` on (rotations, translations,
 * then scales). */
static void rki_rest_tracks(const rki_retarget *r, rk_anim_track *out, const double *times, size_t frames,
	double *rot, double *trans, double *scale)
{
	static const struct { uint8_t flag; rk_anim_target target; const char *fbx; uint32_t components; } kinds[3] = {
		{ RKI_REST_ROTATION, RK_TARGET_ROTATION_QUAT, "Lcl Rotation", 4 },
		{ RKI_REST_TRANSLATION, RK_TARGET_TRANSLATION, "Lcl Translation", 3 },
		{ RKI_REST_SCALE, RK_TARGET_SCALE, "Lcl Scaling", 3 },
	};
	double *values[3] = { rot, trans, scale };
	for (int pass = 0; pass < 3; pass++) {
		size_t used = 0;
		for (size_t i = 1; i < r->target->nodes.count; i++) {
			const rk_node *n = &r->target->nodes.data[i];
			if (!(r->rest_track[i] & kinds[pass].flag)) continue;
			rk_anim_track *tr = out++;
			memset(tr, 0, sizeof(*tr));
			tr->node = (rk_node *)(uintptr_t)n;
			tr->target = kinds[pass].target;
			tr->property = n->has_fbx_props ? kinds[pass].fbx : "";
			tr->key_count = frames;
			tr->times = times;
			tr->components = kinds[pass].components;
			tr->values_f64 = values[pass] + used++ * frames * kinds[pass].components;
			tr->interpolation = RK_INTERP_LINEAR;
		}
	}
}

/* Which constant tracks node i needs to hold its rest local transform
 * `rest` (rotation `rest_rot`) instead of the stored one; mapped nodes get
 * no rotation track (the retargeted one), the hips no translation track. */
static uint8_t rki_rest_needs(const rk_node *n, rk_mat4 rest, rk_quat rest_rot, bool mapped, bool hips, double unit)
{
	uint8_t what = 0;
	if (!mapped && rk_quat_angle_between(rest_rot, rki_matrix_rotation(n->node_to_parent)) > 1e-9)
		what |= RKI_REST_ROTATION;
	rk_vec3 d = rk_vec3_sub(rk_mat4_get_translation(rest), rk_mat4_get_translation(n->node_to_parent));
	if (!hips && rk_vec3_length(d) > 1e-9 * unit) what |= RKI_REST_TRANSLATION;
	rk_vec3 sr = rk_mat4_decompose(rest).scale, ss = rk_mat4_decompose(n->node_to_parent).scale;
	if (fabs(sr.x - ss.x) + fabs(sr.y - ss.y) + fabs(sr.z - ss.z) > 1e-9) what |= RKI_REST_SCALE;
	return what;
}

/* A LINEAR track of `frames` keys on node n: its rotation (quaternions) or
 * its translation. */
static void rki_baked_track(rk_anim_track *tr, const rk_node *n, bool rotation, const double *times, size_t frames,
	const double *values)
{
	memset(tr, 0, sizeof(*tr));
	tr->node = (rk_node *)(uintptr_t)n;
	tr->target = rotation ? RK_TARGET_ROTATION_QUAT : RK_TARGET_TRANSLATION;
	tr->property = n->has_fbx_props ? (rotation ? "Lcl Rotation" : "Lcl Translation") : "";
	tr->key_count = frames;
	tr->times = times;
	tr->components = rotation ? 4 : 3;
	tr->values_f64 = values;
	tr->interpolation = RK_INTERP_LINEAR;
}

/* A clip of one override layer `layer` (filled here) over [begin, end]. */
static rk_anim_clip rki_one_layer_clip(rk_anim_layer *layer, const char *layer_name, rk_anim_track *tracks,
	size_t track_count, const char *name, double begin, double end)
{
	memset(layer, 0, sizeof(*layer));
	layer->name = layer_name;
	layer->weight = 1.0;
	layer->blend = RK_LAYER_OVERRIDE;
	layer->track_count = track_count;
	layer->tracks = tracks;
	rk_anim_clip c;
	memset(&c, 0, sizeof(c));
	c.name = name;
	c.time_begin = begin;
	c.time_end = end;
	c.layer_count = 1;
	c.layers = layer;
	return c;
}

static void rki_compute_alignment(rki_retarget *r)
{
	rk_humanoid both;
	memset(&both, 0, sizeof(both));
	for (int b = 0; b < RK_HUMANOID_BONE_COUNT; b++)
		if (r->use[b]) both.bones[b] = r->ht->bones[b];
	for (int b = 0; b < RK_HUMANOID_BONE_COUNT; b++) {
		if (!r->use[b]) continue;
		int c = rki_humanoid_direction_child(&both, (rk_humanoid_bone)b);
		r->dir_child[b] = c;
		rk_quat a = RK_QUAT_IDENTITY;
		bool have = false;
		if (c >= 0) {
			rk_vec3 ds = rk_vec3_sub(r->rest_s.position[c], r->rest_s.position[b]);
			rk_vec3 dt = rk_vec3_sub(r->rest_t.position[c], r->rest_t.position[b]);
			if (rk_vec3_length(ds) > 1e-9 && rk_vec3_length(dt) > 1e-9) {
				a = rki_quat_from_to(rk_vec3_normalize(dt), rk_vec3_normalize(ds));
				have = true;
			}
		}
		if (!have) {
			int p = rk_humanoid_parent(&both, (rk_humanoid_bone)b);
			if (p >= 0) a = r->align[p];   /* parents come first in the enum */
		}
		r->align[b] = a;
		/* Wd = Ws * Rs^-1 * A * Rd */
		r->k[b] = rk_quat_normalize(rk_quat_mul(rk_quat_conjugate(r->rest_s.rotation[b]),
			rk_quat_mul(a, r->rest_t.rotation[b])));
	}
}

/* Direction error of frame values: target bone directions (from evaluated
 * target world positions) against the source's. */
static double rki_direction_error(const rki_retarget *r, const rki_humanoid_pose *src, const rki_humanoid_pose *dst)
{
	rk_humanoid both;
	memset(&both, 0, sizeof(both));
	for (int b = 0; b < RK_HUMANOID_BONE_COUNT; b++)
		if (r->use[b]) both.bones[b] = r->ht->bones[b];
	double worst = 0.0;
	for (int b = 0; b < RK_HUMANOID_BONE_COUNT; b++) {
		if (!r->use[b]) continue;
		if (r->foot_ik && (b == RK_HUMANOID_LEFT_UPPER_LEG || b == RK_HUMANOID_LEFT_LOWER_LEG ||
			b == RK_HUMANOID_RIGHT_UPPER_LEG || b == RK_HUMANOID_RIGHT_LOWER_LEG))
			continue;   /* turned by the foot IK on purpose */
		if (r->skip_dir[b]) continue;   /* and by the contact solve */
		int c = rki_humanoid_direction_child(&both, (rk_humanoid_bone)b);
		if (c < 0) continue;
		rk_vec3 ds = rk_vec3_sub(src->position[c], src->position[b]);
		rk_vec3 dt = rk_vec3_sub(dst->position[c], dst->position[b]);
		if (rk_vec3_length(ds) < 1e-9 || rk_vec3_length(dt) < 1e-9) continue;
		double d = rk_vec3_dot(rk_vec3_normalize(ds), rk_vec3_normalize(dt));
		double ang = acos(d > 1.0 ? 1.0 : d < -1.0 ? -1.0 : d);
		if (ang > worst) worst = ang;
	}
	return worst;
}

/* The source's humanoid pose at frame k: from the sampler where it applies
 * (retarget_sample.c), else the full evaluation. False with err. */
static bool rki_source_pose(rki_src_sampler *sampler, rki_pose_buffer *pb, const rk_scene *source,
	const rk_anim_clip *clip, const rki_retarget *r, const double *times, size_t k, rki_humanoid_pose *out,
	rk_error *err)
{
	if (sampler->fast) {
		rki_src_sampler_pose(sampler, source, k, &r->fs, out);
		return true;
	}
	if (!rki_pose_buffer_eval(pb, source, clip, times[k], err)) {
		rki_error_file(err, source->source_path);
		return false;
	}
	rki_humanoid_pose_from(r->hs, &r->fs, pb->pose.node_to_world, out);
	return true;
}

rk_anim_clip *rk_retarget(rk_scene *target, const rk_scene *source, const rk_anim_clip *clip,
	const rk_retarget_opts *opts, rk_retarget_report *report, rk_error *err)
{
	rki_error_clear(err);
	if (report) memset(report, 0, sizeof(*report));
	if (!target || !source || !clip || target == source) {
		rki_error_set(err, RK_ERROR_INVALID_ARGUMENT, "rk_retarget needs a target, a different source scene and a clip");
		return NULL;
	}
	if (source->clips.count == 0 || clip < source->clips.data || clip >= source->clips.data + source->clips.count) {
		rki_error_set(err, RK_ERROR_INVALID_ARGUMENT, "the clip is not one of the source scene's clips");
		return NULL;
	}
	rk_retarget_opts o;
	rki_retarget_opts_resolve(&o, opts, source);
	if (o.root != RK_RETARGET_ROOT_KEEP && o.root != RK_RETARGET_ROOT_IN_PLACE && o.root != RK_RETARGET_ROOT_LOCK &&
		o.root != RK_RETARGET_ROOT_EXTRACT) {
		rki_error_set(err, RK_ERROR_INVALID_ARGUMENT, "unknown root motion mode %d", (int)o.root);
		return NULL;
	}
	if (o.contacts != RK_RETARGET_CONTACTS_FEET && o.contacts != RK_RETARGET_CONTACTS_OFF) {
		rki_error_set(err, RK_ERROR_INVALID_ARGUMENT, "unknown contacts mode %d", (int)o.contacts);
		return NULL;
	}
	if (!(o.fps >= 0.0) || !isfinite(o.fps)) {
		rki_error_set(err, RK_ERROR_INVALID_ARGUMENT, "opts.fps must be 0 (default) or a positive rate, got %g", o.fps);
		return NULL;
	}
	double fps = o.fps;
	double duration = clip->time_end - clip->time_begin;
	if (!isfinite(fps) || fps > 10000.0 || !isfinite(duration) || duration < 0.0) {
		rki_error_set(err, RK_ERROR_INVALID_ARGUMENT, "bad key rate %g or clip range [%g, %g]", fps, clip->time_begin,
			clip->time_end);
		return NULL;
	}
	double nf = floor(duration * fps + 0.5) + 1.0;
	if (nf > (double)o.max_frames) {
		rki_error_set(err, RK_ERROR_LIMIT,
			"clip \"%.80s\" would take %.0f frames (%g s at %g fps), more than max_frames %zu (--max-frames N allows more)",
			clip->name ? clip->name : "", nf, duration, fps, o.max_frames);
		rki_error_file(err, source->source_path);
		return NULL;
	}
	size_t frames = (size_t)nf;

	rki_retarget r;
	memset(&r, 0, sizeof(r));
	rki_twist twist;
	memset(&twist, 0, sizeof(twist));
	rki_root root;
	memset(&root, 0, sizeof(root));
	r.source = source;
	r.target = target;
	rk_humanoid hs_store, ht_store;
	/* every error below names the file it is about (err->file) */
	r.hs = rki_humanoid_resolve(source, o.source_humanoid, &hs_store, "source", err);
	if (!r.hs) {
		rki_error_file(err, source->source_path);
		return NULL;
	}
	r.ht = rki_humanoid_resolve(target, o.target_humanoid, &ht_store, "target", err);
	if (!r.ht) {
		rki_error_file(err, target->source_path);
		return NULL;
	}

	size_t nodes = target->nodes.count;
	rki_pose_buffer src_pose, dst_pose;
	rki_src_sampler sampler, dst_sampler;   /* humanoid poses per frame (retarget_sample.c) */
	bool *plain = NULL;        /* target node -> rotation track value = local rotation */
	memset(&sampler, 0, sizeof(sampler));
	memset(&dst_sampler, 0, sizeof(dst_sampler));
	memset(&src_pose, 0, sizeof(src_pose));
	memset(&dst_pose, 0, sizeof(dst_pose));
	rki_rest_table rest_src, rest_dst;
	memset(&rest_src, 0, sizeof(rest_src));
	memset(&rest_dst, 0, sizeof(rest_dst));
	rki_alloc tmp; /* every temporary, within opts.memory_limit */
	rki_alloc_init(&tmp, &o.allocator, o.memory_limit, 0);
	rk_anim_clip *result = NULL;
	rki_contact_solver *contact = NULL;   /* CONTACT SOLVE (retarget_contact.c) */
	rki_humanoid_pose *src_poses = NULL;   /* every frame's source pose, when the contact solve reads them too */
	size_t src_poses_bytes = 0;
	size_t rot_extra = 0, trans_extra = 0, scale_extra = 0;   /* constant tracks holding a bind rest */
	if (!rki_rest_table_init(&rest_src, source, o.rest, &tmp, err) ||
		!rki_char_frame_from_rest(source, r.hs, rest_src.world, &r.fs, err)) {
		rki_error_file(err, source->source_path);
		goto done;
	}
	if (!rki_rest_table_init(&rest_dst, target, o.rest, &tmp, err) ||
		!rki_char_frame_from_rest(target, r.ht, rest_dst.world, &r.ft, err)) {
		rki_error_file(err, target->source_path);
		goto done;
	}
	rki_humanoid_pose_from(r.hs, &r.fs, rest_src.world, &r.rest_s);
	rki_humanoid_pose_from(r.ht, &r.ft, rest_dst.world, &r.rest_t);
	rki_warn_unpaired_bones(o.warning, o.warning_user, r.hs, r.ht, "source", "target", "not retargeted");
	size_t mapped = 0;
	for (int b = 0; b < RK_HUMANOID_BONE_COUNT; b++) {
		r.use[b] = r.hs->bones[b] && r.ht->bones[b] && !(o.skip_fingers && rki_is_finger(b));
		if (r.use[b]) mapped++;
	}
	rki_compute_alignment(&r);

	r.bone_of_node = (int *)rki_malloc(&tmp, nodes * sizeof(int));
	r.rest_local = (rk_quat *)rki_malloc(&tmp, nodes * sizeof(rk_quat));
	r.world = (rk_quat *)rki_malloc(&tmp, nodes * sizeof(rk_quat));
	r.rest_world = (rk_quat *)rki_malloc(&tmp, nodes * sizeof(rk_quat));
	r.rest_pos = (rk_vec3 *)rki_malloc(&tmp, nodes * sizeof(rk_vec3));
	r.pos = (rk_vec3 *)rki_malloc(&tmp, nodes * sizeof(rk_vec3));
	r.value = (rk_quat *)rki_malloc(&tmp, nodes * sizeof(rk_quat));
	r.rest_track = (uint8_t *)rki_malloc(&tmp, nodes);
	plain = (bool *)rki_malloc(&tmp, nodes * sizeof(bool));
	r.foot_ik = o.foot_ik;
	if (!plain || !r.rest_track || !r.value || !r.bone_of_node || !r.rest_local || !r.world || !r.rest_world || !r.rest_pos || !r.pos) {
		rki_error_set(err, tmp.limit_hit ? RK_ERROR_LIMIT : RK_ERROR_OUT_OF_MEMORY,
			"cannot allocate retargeting state for %zu nodes (memory_limit %zu bytes)", nodes, o.memory_limit);
		goto done;
	}
	if (!rki_pose_buffer_init(&src_pose, source, &tmp, err)) goto done;
	if (!rki_src_sampler_init(&sampler, source, clip, r.hs, &src_pose, &tmp, err)) goto done;
	for (size_t i = 0; i < nodes; i++) {
		const rk_node *n = &target->nodes.data[i];
		r.bone_of_node[i] = -1;
		plain[i] = !n->has_fbx_props && rk_adjust_transform_is_identity(&n->adjust);
		r.rest_local[i] = i == 0 ? rki_matrix_rotation(rest_dst.world[0]) : rki_matrix_rotation(rest_dst.local[i]);
		r.rest_world[i] = rki_matrix_rotation(rest_dst.world[i]);
		r.rest_pos[i] = rk_mat4_get_translation(rest_dst.world[i]);
	}
	for (int b = 0; b < RK_HUMANOID_BONE_COUNT; b++)
		if (r.use[b]) r.bone_of_node[r.ht->bones[b]->index] = b;
	/* twist joints (retarget_twist.c): rotation tracks of their own */
	if (!rki_twist_init(&twist, target, r.ht, r.use, r.rest_world, r.rest_pos, &o, err)) goto done;
	r.twist = &twist;
	/* root motion (retarget_root.c): a rotation and a translation track on the root */
	if (!rki_root_init(&root, o.root, target, r.ht, rest_dst.world, err)) goto done;
	r.root = &root;
	/* a bind rest: which nodes need constant tracks to hold it */
	const rk_node *hips = r.ht->bones[RK_HUMANOID_HIPS];
	for (size_t i = 0; i < nodes; i++) {
		r.rest_track[i] = 0;
		if (i == 0 || rest_dst.report.used != RK_REST_BIND) continue;
		const rk_node *n = &target->nodes.data[i];
		bool is_root = root.on && i == root.node;
		bool animated = r.bone_of_node[i] >= 0 || rki_twist_index(&twist, i) >= 0 || is_root;
		r.rest_track[i] = rki_rest_needs(n, rest_dst.local[i], r.rest_local[i], animated, n == hips || is_root,
			r.ft.unit);
		rot_extra += (r.rest_track[i] & RKI_REST_ROTATION) != 0;
		trans_extra += (r.rest_track[i] & RKI_REST_TRANSLATION) != 0;
		scale_extra += (r.rest_track[i] & RKI_REST_SCALE) != 0;
	}

	/* Scene memory for the clip: times, one rotation track per used bone,
	 * one translation track for the hips. */
	rki_arena *ar = rki_scene_arena(target);
	size_t track_count = mapped + 1 + rot_extra + trans_extra + scale_extra + twist.count + (root.on ? 2 : 0);
	double *times = ar ? (double *)rki_arena_array(ar, frames, sizeof(double)) : NULL;
	rk_anim_track *tracks = ar ? (rk_anim_track *)rki_arena_array(ar, track_count, sizeof(rk_anim_track)) : NULL;
	double *rot_values = ar ? (double *)rki_arena_array(ar, frames * mapped, 4 * sizeof(double)) : NULL;
	double *hips_values = ar ? (double *)rki_arena_array(ar, frames, 3 * sizeof(double)) : NULL;
	double *extra_rot = ar && rot_extra ? (double *)rki_arena_array(ar, frames * rot_extra, 4 * sizeof(double)) : NULL;
	double *extra_trans = ar && trans_extra ? (double *)rki_arena_array(ar, frames * trans_extra, 3 * sizeof(double))
		: NULL;
	double *extra_scale = ar && scale_extra ? (double *)rki_arena_array(ar, frames * scale_extra, 3 * sizeof(double))
		: NULL;
	double *twist_values = ar && twist.count ? (double *)rki_arena_array(ar, frames * twist.count, 4 * sizeof(double))
		: NULL;
	double *root_values = ar && root.on ? (double *)rki_arena_array(ar, frames, 7 * sizeof(double)) : NULL;
	rk_anim_layer *layer = ar ? (rk_anim_layer *)rki_arena_alloc(ar, sizeof(rk_anim_layer)) : NULL;
	const char *name_src = o.name ? o.name : clip->name ? clip->name : "";
	char *name = ar ? rki_arena_strndup(ar, name_src, strlen(name_src)) : NULL;
	if (!times || !tracks || !rot_values || !hips_values || !layer || !name || (rot_extra && !extra_rot) ||
		(trans_extra && !extra_trans) || (scale_extra && !extra_scale) || (twist.count && !twist_values) ||
		(root.on && !root_values)) {
		rki_error_set(err, RK_ERROR_OUT_OF_MEMORY, "cannot allocate %zu frames of %zu tracks", frames, track_count);
		goto done;
	}
	int slot_of_bone[RK_HUMANOID_BONE_COUNT];
	size_t slot = 0;
	for (int b = 0; b < RK_HUMANOID_BONE_COUNT; b++) slot_of_bone[b] = r.use[b] ? (int)slot++ : -1;
	/* keys on the source clip's own time axis: begin + k / fps, the last at its end */
	for (size_t k = 0; k < frames; k++) {
		double t = (double)k / fps;
		if (t > duration || k + 1 == frames) t = duration;
		times[k] = k + 1 == frames ? clip->time_end : clip->time_begin + t;
	}

	rki_src_sampler_set_times(&sampler, times, frames, 0.0);   /* times are on the clip's own axis */
	rk_mat4 hips_parent_inv = rk_mat4_identity();
	if (hips->parent && !rk_mat4_invert(rest_dst.world[hips->parent->index], &hips_parent_inv)) {
		rki_error_set(err, RK_ERROR_INVALID_ARGUMENT, "target hips' parent has a singular world matrix");
		rki_error_file(err, target->source_path);
		goto done;
	}
	/* per clip: the source's rest bone directions (the direction swing
	 * below), the hips' translation solve for glTF-style hips */
	rk_vec3 rest_dir[RK_HUMANOID_BONE_COUNT];
	rk_quat rest_conj[RK_HUMANOID_BONE_COUNT];
	bool rest_dir_ok[RK_HUMANOID_BONE_COUNT];
	for (int b = 0; b < RK_HUMANOID_BONE_COUNT; b++) {
		int c = r.use[b] ? r.dir_child[b] : -1;
		rest_dir[b] = c >= 0 ? rk_vec3_sub(r.rest_s.position[c], r.rest_s.position[b]) : (rk_vec3){ 0, 0, 0 };
		rest_dir_ok[b] = c >= 0 && rk_vec3_length(rest_dir[b]) > 1e-9;
		rest_conj[b] = rk_quat_conjugate(r.rest_s.rotation[b]);
	}
	bool hips_solve_once = !rki_translation_depends_on_rotation(hips);
	rki_translation_solve hips_solve;
	memset(&hips_solve, 0, sizeof(hips_solve));
	bool hips_solve_ok = hips_solve_once && rki_translation_solve_init(hips, RK_QUAT_IDENTITY, &hips_solve);
	if (o.contacts == RK_RETARGET_CONTACTS_FEET) {
		/* sampled once here, for the solve and the frame loop */
		src_poses_bytes = frames * sizeof(rki_humanoid_pose);   /* frames <= max_frames: no overflow */
		src_poses = (rki_humanoid_pose *)rki_malloc(&tmp, src_poses_bytes);
		if (!src_poses) {
			rki_error_set(err, tmp.limit_hit ? RK_ERROR_LIMIT : RK_ERROR_OUT_OF_MEMORY,
				"cannot allocate %zu frames of source poses (memory_limit %zu bytes)", frames, o.memory_limit);
			goto done;
		}
		for (size_t k = 0; k < frames; k++)
			if (!rki_source_pose(&sampler, &src_pose, source, clip, &r, times, k, &src_poses[k], err)) goto done;
		rki_contact_setup cset = {
			.source = source, .target = target, .clip = clip, .hs = r.hs, .ht = r.ht, .use = r.use,
			.fs = &r.fs, .ft = &r.ft, .rest_s = &r.rest_s, .rest_t = &r.rest_t, .rest_world_s = rest_src.world,
			.rest_world_t = rest_dst.world, .times = times, .frames = frames, .src_poses = src_poses, .hands = o.hand_contacts,
			.hips_locked = o.root == RK_RETARGET_ROOT_LOCK,
			.opts = o.contact_opts, .warning = o.warning, .warning_user = o.warning_user,
		};
		if (!(contact = rki_contact_solver_create(&cset, &tmp, err))) goto done;
	}
	rk_vec3 first_delta = { 0, 0, 0 };
	rk_quat hips_rot_value = RK_QUAT_IDENTITY;
	double foot_miss = 0.0;
	for (size_t k = 0; k < frames; k++) {
		rki_humanoid_pose ps_frame;
		const rki_humanoid_pose *ps = &ps_frame;
		if (src_poses) ps = &src_poses[k];
		else if (!rki_source_pose(&sampler, &src_pose, source, clip, &r, times, k, &ps_frame, err)) goto done;
		rk_quat to_world = rk_quat_conjugate(r.ft.rotation);
		/* hips position (character units relative to rest) */
		rk_vec3 delta = rk_vec3_sub(ps->position[RK_HUMANOID_HIPS], r.rest_s.position[RK_HUMANOID_HIPS]);
		if (k == 0) first_delta = delta;
		if (o.root == RK_RETARGET_ROOT_IN_PLACE) {
			delta.x = first_delta.x;
			delta.z = first_delta.z;
		} else if (o.root == RK_RETARGET_ROOT_LOCK) {
			delta = (rk_vec3){ 0, 0, 0 };
		}
		rk_vec3 hips_char = rk_vec3_add(r.rest_t.position[RK_HUMANOID_HIPS], delta);
		rk_vec3 world_pos = rki_char_from_world_point(&r.ft, hips_char);
		/* world rotations by the rule; a source bone whose child joint is moved
		 * by a translation track (a stretching leg, as in Xbot's sad_pose)
		 * points elsewhere than its rotation says: swing the result onto the
		 * source's actual direction */
		for (int b = 0; b < RK_HUMANOID_BONE_COUNT; b++) {
			if (!r.use[b]) continue;
			rk_quat wc = rki_qmul(ps->rotation[b], r.k[b]);
			int c = r.dir_child[b];
			if (c >= 0 && rest_dir_ok[b]) {
				rk_vec3 now_dir = rki_v3sub(ps->position[c], ps->position[b]);
				if (sqrt(rki_v3dot(now_dir, now_dir)) > 1e-9) {
					rk_quat turn = rki_qmul(ps->rotation[b], rest_conj[b]);
					rk_vec3 expected = rki_v3norm(rki_qrot(turn, rest_dir[b]));
					rk_vec3 actual = rki_v3norm(now_dir);
					double d = rki_v3dot(expected, actual);
					if (d < 1.0 - 1e-12) {
						/* rki_quat_from_to, its common case inline */
						rk_vec3 cr = rki_v3cross(expected, actual);
						rk_quat swing = d < -1.0 + 1e-12 ? rki_quat_from_to(expected, actual)
							: rki_qnorm((rk_quat){ cr.x, cr.y, cr.z, 1.0 + d });
						wc = rki_qmul(swing, wc);
					}
				}
			}
			r.wbone[b] = rki_qnorm(rki_qmul(to_world, wc));   /* wc drifts by the swings' rounding */
		}
		if (root.on) rki_root_frame(&root, &r.ft, r.wbone[RK_HUMANOID_HIPS], r.rest_world[hips->index], delta);
		/* (the contact solve reads wbone only and the world rotations are made
		 * again after it: without foot IK nothing reads these) */
		if (r.foot_ik || !contact) rki_world_rotations(&r);
		if (r.foot_ik) {
			static const int legs[2][3] = {
				{ RK_HUMANOID_LEFT_UPPER_LEG, RK_HUMANOID_LEFT_LOWER_LEG, RK_HUMANOID_LEFT_FOOT },
				{ RK_HUMANOID_RIGHT_UPPER_LEG, RK_HUMANOID_RIGHT_LOWER_LEG, RK_HUMANOID_RIGHT_FOOT },
			};
			rk_vec3 forward = rk_quat_rotate(to_world, (rk_vec3){ 0, 0, 1 });
			rki_world_positions(&r, world_pos);
			for (int side = 0; side < 2; side++) {
				/* the foot where the source's is relative to its hips, in hips heights */
				rk_vec3 goal = rki_char_from_world_point(&r.ft, rk_vec3_add(hips_char,
					rk_vec3_sub(ps->position[legs[side][2]], ps->position[RK_HUMANOID_HIPS])));
				double miss = rki_leg_ik(&r, legs[side][0], legs[side][1], legs[side][2], goal, forward) / r.ft.unit;
				if (miss > foot_miss) foot_miss = miss;
			}
			rki_world_rotations(&r);
		}
		if (contact) {
			rki_contact_solver_frame(contact, k, r.wbone, &hips_char);
			world_pos = rki_char_from_world_point(&r.ft, hips_char);
			rki_world_rotations(&r);
		}
		if (twist.count) rki_twist_apply(&twist, r.world, r.rest_world);
		/* local rotations -> track values */
		for (size_t i = 1; i < nodes; i++) {
			const rk_node *n = &target->nodes.data[i];
			int b = r.bone_of_node[i], tj = b < 0 && twist.count ? rki_twist_index(&twist, i) : -1;
			if (b < 0 && tj < 0) continue;
			rk_quat local = rki_qnorm(rki_qmul(rki_qconj(r.world[n->parent->index]), r.world[i]));
			/* rki_track_rotation: no pre / post rotations on a plain node */
			rk_quat v = plain[i] ? local : rki_track_rotation(n, local);   /* (local is unit: one normalisation) */
			double *dst = b >= 0 ? rot_values + ((size_t)slot_of_bone[b] * frames + k) * 4
				: twist_values + ((size_t)tj * frames + k) * 4;
			if (k > 0) {
				const double *prev = dst - 4;
				if (prev[0] * v.x + prev[1] * v.y + prev[2] * v.z + prev[3] * v.w < 0.0)
					v = (rk_quat){ -v.x, -v.y, -v.z, -v.w };
			}
			if (!isfinite(v.x) || !isfinite(v.y) || !isfinite(v.z) || !isfinite(v.w)) {
				rki_error_set(err, RK_ERROR_INVALID_ARGUMENT, "%s: the pose at %g s gives a non-finite rotation for %s",
					source->source_path, times[k], b >= 0 ? rk_humanoid_bone_name((rk_humanoid_bone)b) : n->name ? n->name : "");
				rki_error_file(err, source->source_path);
				goto done;
			}
			dst[0] = v.x, dst[1] = v.y, dst[2] = v.z, dst[3] = v.w;
			if (b == RK_HUMANOID_HIPS) hips_rot_value = v;
			r.value[i] = v;
		}
		if (!isfinite(world_pos.x) || !isfinite(world_pos.y) || !isfinite(world_pos.z)) {
			/* the source's pose is broken, not the target */
			rki_error_set(err, RK_ERROR_INVALID_ARGUMENT,
				"source clip \"%.80s\" at %g s gives a non-finite hips position (its node transforms do not evaluate)",
				clip->name ? clip->name : "", times[k]);
			rki_error_file(err, source->source_path);
			goto done;
		}
		if ((rot_extra || trans_extra || scale_extra) &&
			!rki_rest_track_values(&r, rest_dst.local, k, frames, extra_rot, extra_trans, extra_scale, err))
			goto done;
		if (root.on) {
			/* the root's track values; the hips solved against the moving root */
			const rk_node *rn = &target->nodes.data[root.node];
			rk_quat v = rki_track_rotation(rn, rk_quat_normalize(rk_quat_mul(rk_quat_conjugate(r.world[root.parent]),
				r.world[root.node])));
			double *dst = root_values + k * 4;
			if (k > 0 && dst[-4] * v.x + dst[-3] * v.y + dst[-2] * v.z + dst[-1] * v.w < 0.0)
				v = (rk_quat){ -v.x, -v.y, -v.z, -v.w };
			rk_vec3 rt;
			if (!rki_track_translation(rn, v, root.local_position, &rt) || !rk_mat4_invert(root.world, &hips_parent_inv) ||
				!isfinite(rt.x) || !isfinite(rt.y) || !isfinite(rt.z) || !isfinite(v.w)) {
				rki_error_set(err, RK_ERROR_INVALID_ARGUMENT, "root node's transform cannot be solved (degenerate scale)");
				rki_error_file(err, target->source_path);
				goto done;
			}
			dst[0] = v.x, dst[1] = v.y, dst[2] = v.z, dst[3] = v.w;
			double *tdst = root_values + frames * 4 + k * 3;
			tdst[0] = rt.x, tdst[1] = rt.y, tdst[2] = rt.z;
		}
		rk_vec3 local_pos = rk_mat4_transform_point(hips_parent_inv, world_pos);
		rk_vec3 tv = { 0, 0, 0 };
		bool solved = hips_solve_once ? hips_solve_ok : rki_translation_solve_init(hips, hips_rot_value, &hips_solve);
		if (solved) tv = rki_translation_solve_apply(&hips_solve, local_pos);
		if (!solved || !isfinite(tv.x) || !isfinite(tv.y) || !isfinite(tv.z)) {
			rki_error_set(err, RK_ERROR_INVALID_ARGUMENT, "target hips' translation cannot be solved (degenerate scale)");
			rki_error_file(err, target->source_path);
			goto done;
		}
		hips_values[k * 3 + 0] = tv.x;
		hips_values[k * 3 + 1] = tv.y;
		hips_values[k * 3 + 2] = tv.z;
	}

	for (int b = 0; b < RK_HUMANOID_BONE_COUNT; b++) {
		if (!r.use[b]) continue;
		rk_anim_track *tr = &tracks[slot_of_bone[b]];
		memset(tr, 0, sizeof(*tr));
		tr->node = (rk_node *)(uintptr_t)r.ht->bones[b];
		tr->target = RK_TARGET_ROTATION_QUAT;
		tr->property = r.ht->bones[b]->has_fbx_props ? "Lcl Rotation" : "";
		tr->key_count = frames;
		tr->times = times;
		tr->components = 4;
		tr->values_f64 = rot_values + (size_t)slot_of_bone[b] * frames * 4;
		tr->interpolation = RK_INTERP_LINEAR;
	}
	rki_rest_tracks(&r, tracks + mapped + 1, times, frames, extra_rot, extra_trans, extra_scale);
	for (size_t j = 0; j < twist.count; j++)
		rki_baked_track(&tracks[mapped + 1 + rot_extra + trans_extra + scale_extra + j],
			&target->nodes.data[twist.joints[j].node], true, times, frames, twist_values + j * frames * 4);
	if (root.on) {
		rki_baked_track(&tracks[track_count - 2], &target->nodes.data[root.node], true, times, frames, root_values);
		rki_baked_track(&tracks[track_count - 1], &target->nodes.data[root.node], false, times, frames,
			root_values + frames * 4);
	}
	rk_anim_track *ht = &tracks[mapped];
	memset(ht, 0, sizeof(*ht));
	ht->node = (rk_node *)(uintptr_t)hips;
	ht->target = RK_TARGET_TRANSLATION;
	ht->property = hips->has_fbx_props ? "Lcl Translation" : "";
	ht->key_count = frames;
	ht->times = times;
	ht->components = 3;
	ht->values_f64 = hips_values;
	ht->interpolation = RK_INTERP_LINEAR;

	rk_anim_clip c = rki_one_layer_clip(layer, "retarget", tracks, track_count, name, clip->time_begin,
		clip->time_end);
	if (contact) rki_contact_solver_report(contact, report, r.skip_dir);
	/* Report, measured on the result: the new clip evaluated on the target. */
	if (report) {
		report->mapped_bones = mapped;
		report->frames = frames;
		report->tracks = track_count;
		report->source_hips_height = r.fs.unit;
		report->target_hips_height = r.ft.unit;
		report->max_foot_miss = foot_miss;
		report->source_rest = rest_src.report.used;
		report->target_rest = rest_dst.report.used;
		report->rest_tracks = rot_extra + trans_extra + scale_extra;
		report->twist_tracks = twist.count;
		report->root_node = root.on ? &target->nodes.data[root.node] : NULL;
		report->root_travel = root.travel;
		if (!rki_pose_buffer_init(&dst_pose, target, &tmp, err)) goto done;
		/* both poses from samplers where they apply (retarget_sample.c) */
		if (!rki_src_sampler_init(&dst_sampler, target, &c, r.ht, &dst_pose, &tmp, err)) goto done;
		rki_src_sampler_set_times(&sampler, times, frames, 0.0);   /* times are on the clip's own axis */
		rki_src_sampler_set_times(&dst_sampler, times, frames, 0.0);
		for (size_t k = 0; k < frames; k++) {
			rki_humanoid_pose ps, pd;
			const rki_humanoid_pose *psp = src_poses ? &src_poses[k] : &ps;   /* sampled once already */
			if (!src_poses && !sampler.fast && !rki_pose_buffer_eval(&src_pose, source, clip, times[k], err)) goto done;
			if (!dst_sampler.fast && !rki_pose_buffer_eval(&dst_pose, target, &c, times[k], err)) goto done;
			if (!src_poses && sampler.fast) rki_src_sampler_pose(&sampler, source, k, &r.fs, &ps);
			else if (!src_poses) rki_humanoid_pose_from(r.hs, &r.fs, src_pose.pose.node_to_world, &ps);
			if (dst_sampler.fast) rki_src_sampler_pose(&dst_sampler, target, k, &r.ft, &pd);
			else rki_humanoid_pose_from(r.ht, &r.ft, dst_pose.pose.node_to_world, &pd);
			double e = rki_direction_error(&r, psp, &pd);
			if (e > report->max_direction_error) report->max_direction_error = e;
		}
	}

	result = rki_scene_append_clip(target, &c);
	if (!result) {
		rki_error_set(err, RK_ERROR_OUT_OF_MEMORY, "cannot add the clip to the target scene");
		goto done;
	}

done:
	if (result && report) {
		report->source_rest = rest_src.report.used;
		report->target_rest = rest_dst.report.used;
		report->rest_tracks = rot_extra + trans_extra + scale_extra;
	}
	rki_contact_solver_destroy(contact);
	if (src_poses) rki_free(&tmp, src_poses, src_poses_bytes);
	rki_rest_table_free(&rest_src);
	rki_rest_table_free(&rest_dst);
	if (r.rest_track) rki_free(&tmp, r.rest_track, nodes);
	if (r.value) rki_free(&tmp, r.value, nodes * sizeof(rk_quat));
	rki_src_sampler_free(&sampler);
	rki_src_sampler_free(&dst_sampler);
	if (plain) rki_free(&tmp, plain, nodes * sizeof(bool));
	rki_pose_buffer_free(&src_pose);
	rki_pose_buffer_free(&dst_pose);
	if (r.bone_of_node) rki_free(&tmp, r.bone_of_node, nodes * sizeof(int));
	if (r.rest_local) rki_free(&tmp, r.rest_local, nodes * sizeof(rk_quat));
	if (r.world) rki_free(&tmp, r.world, nodes * sizeof(rk_quat));
	if (r.rest_world) rki_free(&tmp, r.rest_world, nodes * sizeof(rk_quat));
	if (r.rest_pos) rki_free(&tmp, r.rest_pos, nodes * sizeof(rk_vec3));
	if (r.pos) rki_free(&tmp, r.pos, nodes * sizeof(rk_vec3));
	return result;
}

/* ---- rk_rest_clip_add --------------------------------------------------------------- */

rk_anim_clip *rk_rest_clip_add(rk_scene *scene, rk_rest_mode rest, const char *name, rk_rest_report *report,
	rk_error *err)
{
	rki_error_clear(err);
	if (report) memset(report, 0, sizeof(*report));
	if (!scene || !scene->nodes.count) {
		rki_error_set(err, RK_ERROR_INVALID_ARGUMENT, "rk_rest_clip_add needs a scene with nodes");
		return NULL;
	}
	size_t nodes = scene->nodes.count;
	rki_alloc tmp;
	rki_alloc_init(&tmp, NULL, RKI_DEFAULT_MEMORY_LIMIT, 0);
	rki_rest_table t;
	if (!rki_rest_table_init(&t, scene, rest, &tmp, err)) return NULL;
	if (report) *report = t.report;
	rki_retarget r;
	memset(&r, 0, sizeof(r));
	r.target = scene;
	r.bone_of_node = (int *)rki_malloc(&tmp, nodes * sizeof(int));
	r.rest_local = (rk_quat *)rki_malloc(&tmp, nodes * sizeof(rk_quat));
	r.rest_track = (uint8_t *)rki_malloc(&tmp, nodes);
	rk_anim_clip *result = NULL;
	if (!r.bone_of_node || !r.rest_local || !r.rest_track) {
		rki_error_set(err, RK_ERROR_OUT_OF_MEMORY, "cannot allocate the rest clip's state for %zu nodes", nodes);
		goto done;
	}
	size_t rot = 0, trans = 0, scl = 0;
	for (size_t i = 0; i < nodes; i++) {
		const rk_node *n = &scene->nodes.data[i];
		r.bone_of_node[i] = -1;
		r.rest_track[i] = 0;
		r.rest_local[i] = rki_matrix_rotation(t.local[i]);
		if (i == 0 || t.report.used != RK_REST_BIND) continue;
		r.rest_track[i] = rki_rest_needs(n, t.local[i], r.rest_local[i], false, false,
			t.report.extent > 1.0 ? t.report.extent : 1.0);
		rot += (r.rest_track[i] & RKI_REST_ROTATION) != 0;
		trans += (r.rest_track[i] & RKI_REST_TRANSLATION) != 0;
		scl += (r.rest_track[i] & RKI_REST_SCALE) != 0;
	}
	rki_arena *ar = rki_scene_arena(scene);
	const char *nm = name ? name : "rest";
	static const double zero = 0.0;
	double *times = ar ? (double *)rki_arena_array(ar, 1, sizeof(double)) : NULL;
	size_t count = rot + trans + scl;
	rk_anim_track *tracks = ar && count ? (rk_anim_track *)rki_arena_array(ar, count, sizeof(rk_anim_track)) : NULL;
	double *rv = ar && rot ? (double *)rki_arena_array(ar, rot, 4 * sizeof(double)) : NULL;
	double *tv = ar && trans ? (double *)rki_arena_array(ar, trans, 3 * sizeof(double)) : NULL;
	double *sv = ar && scl ? (double *)rki_arena_array(ar, scl, 3 * sizeof(double)) : NULL;
	rk_anim_layer *layer = ar ? (rk_anim_layer *)rki_arena_alloc(ar, sizeof(rk_anim_layer)) : NULL;
	char *cname = ar ? rki_arena_strndup(ar, nm, strlen(nm)) : NULL;
	if (!times || !layer || !cname || (count && !tracks) || (rot && !rv) || (trans && !tv) || (scl && !sv)) {
		rki_error_set(err, RK_ERROR_OUT_OF_MEMORY, "cannot allocate the rest clip");
		goto done;
	}
	times[0] = zero;
	if (!rki_rest_track_values(&r, t.local, 0, 1, rv, tv, sv, err)) goto done;
	if (count) rki_rest_tracks(&r, tracks, times, 1, rv, tv, sv);
	rk_anim_clip c = rki_one_layer_clip(layer, "rest", tracks, count, cname, 0.0, 0.0);
	result = rki_scene_append_clip(scene, &c);
	if (!result) rki_error_set(err, RK_ERROR_OUT_OF_MEMORY, "cannot add the rest clip to the scene");
done:
	if (r.bone_of_node) rki_free(&tmp, r.bone_of_node, nodes * sizeof(int));
	if (r.rest_local) rki_free(&tmp, r.rest_local, nodes * sizeof(rk_quat));
	if (r.rest_track) rki_free(&tmp, r.rest_track, nodes);
	rki_rest_table_free(&t);
	return result;
}
