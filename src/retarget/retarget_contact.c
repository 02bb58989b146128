/*
 * src/retarget/retarget_contact.c - the contact-preserving solve of
 * rk_retarget (rigkit/retarget.h, CONTACT SOLVE), run on every frame after
 * the retargeting rule.
 *
 * FEATURES
 *   Feet and toes the source has on the floor (CONTACTS) sit on the
 *   target's floor and stay put while planted; the solve blends in and out
 *   over blend_time; no foot point goes below the floor unless the source's
 *   does; the hips are lowered where a leg cannot reach; hands on the floor
 *   stay on the target's floor; with hands, hand contacts (each other, the
 *   body) are kept; a shoulder turns where an arm cannot reach. Legs and arms are solved by
 *   the runtime's two-bone IK job (rk_two_bone_ik_job, swing mode), the
 *   knee / elbow staying in the plane the rule gave it.
 *
 * RESTRICTIONS
 *   The floor is flat (the target's rest floor). The feet's contact points
 *   are the ankle, the ball (toes joint) and the toe tip (the toes' first
 *   child node, when both rigs have one); the target's heel and toe tip
 *   come from its skinned mesh when it has one (rki_contact_rig_mesh_sole).
 */
#include "retarget/contact_internal.h"
#include "rigkit/runtime.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

enum { RKI_LIMB_LEFT_LEG, RKI_LIMB_RIGHT_LEG, RKI_LIMB_LEFT_ARM, RKI_LIMB_RIGHT_ARM, RKI_LIMBS };

static const int k_limb[RKI_LIMBS][3] = {
	{ RK_HUMANOID_LEFT_UPPER_LEG, RK_HUMANOID_LEFT_LOWER_LEG, RK_HUMANOID_LEFT_FOOT },
	{ RK_HUMANOID_RIGHT_UPPER_LEG, RK_HUMANOID_RIGHT_LOWER_LEG, RK_HUMANOID_RIGHT_FOOT },
	{ RK_HUMANOID_LEFT_UPPER_ARM, RK_HUMANOID_LEFT_LOWER_ARM, RK_HUMANOID_LEFT_HAND },
	{ RK_HUMANOID_RIGHT_UPPER_ARM, RK_HUMANOID_RIGHT_LOWER_ARM, RK_HUMANOID_RIGHT_HAND },
};

static const int k_foot[2] = { RK_HUMANOID_LEFT_FOOT, RK_HUMANOID_RIGHT_FOOT };
static const int k_toes[2] = { RK_HUMANOID_LEFT_TOES, RK_HUMANOID_RIGHT_TOES };
static const int k_hand[2] = { RK_HUMANOID_LEFT_HAND, RK_HUMANOID_RIGHT_HAND };
static const int k_shoulder[2] = { RK_HUMANOID_LEFT_SHOULDER, RK_HUMANOID_RIGHT_SHOULDER };

/* The most the shoulder (clavicle) is turned to bring a hand in reach. */
#define RKI_SHOULDER_MAX_TURN (30.0 * 3.14159265358979323846 / 180.0)

/* A run of frames where one limb's goal was out of reach (one warning). */
typedef struct rki_miss_run {
	bool open;
	size_t first, last;
	double worst;
} rki_miss_run;

struct rki_contact_solver {
	size_t frames;
	const double *times;
	const rki_humanoid_pose *rest_s, *rest_t;
	rk_quat to_char;                       /* world -> target character frame */
	rk_vec3 ground;                        /* the source's ground velocity (CONTACTS) */
	const rki_humanoid_pose *src;          /* frames source poses (setup's src_poses or below) */
	rk_contact_frame *cf;                  /* frames source contacts */
	double *w[2 + 3 + 2];                  /* frames weights: feet, hand pair, left / right hand body,
	                                          left / right hand on the floor */
	int32_t *own[2 + 3 + 2];               /* frames: first frame of the contact run */
	uint8_t *on;                           /* scratch */
	rki_contact_rig gs, gt;
	bool tip[2];                           /* toe tips on both sides */
	bool use[RK_HUMANOID_BONE_COUNT];
	bool legs[2], arms[2];
	bool hands, hips_locked;
	int up[RK_HUMANOID_BONE_COUNT];        /* nearest retargeted ancestor bone, -1 for the hips */
	rk_vec3 off[RK_HUMANOID_BONE_COUNT];   /* rest offset from it, character units */
	rk_quat kc[RK_HUMANOID_BONE_COUNT];    /* Rs^-1 * Rd: the rotation relative to rest copied */
	int seg[RKI_BODY_SEGMENTS][2];
	size_t segs;
	/* per-frame state */
	rki_humanoid_pose pose;                /* target, character frame (positions, rotations) */
	int32_t anchor_run[2];                 /* contact run of the anchor, -1 none */
	int pin[2];                            /* contact point pinned: RK_CONTACT_LEFT_FOOT+side or _TOES+side */
	rk_vec3 anchor[2];                     /* where the pinned point stays (x, z used) at anchor_time,
	                                          less the hips offset, moving with the ground */
	rk_vec3 prev_off;                      /* last frame's hips offset (target - source, horizontal) */
	double anchor_time[2];
	int32_t hand_run[2];                   /* the same for hands on the floor (the wrist pinned) */
	rk_vec3 hand_anchor[2];
	double hand_time[2];
	rk_vec3 prev_point[2][2];              /* last frame's ankle / toes of each foot */
	rki_miss_run miss[RKI_LIMBS];
	bool touched[RK_HUMANOID_BONE_COUNT];  /* bones the current frame changed */
	rk_quat fk_rot[RK_HUMANOID_BONE_COUNT]; /* pose.rotation as the last rki_fk read it */
	bool fk_ok;                            /* pose.position holds a rki_fk result (fk_rot valid) */
	/* report */
	bool solved[RK_HUMANOID_BONE_COUNT];
	size_t solved_frames, unreached;
	double max_miss, max_drop;
	rk_contact_opts o;
	rk_warning_fn *warning;
	void *warning_user;
	rki_alloc *alloc;
	size_t bytes;
	void *block;
};

/* ---- setup -------------------------------------------------------------------- */

rki_contact_solver *rki_contact_solver_create(const rki_contact_setup *s, rki_alloc *alloc, rk_error *err)
{
	rk_contact_opts o;
	rki_contact_opts_resolve(&o, s->opts);
	if (!rki_contact_opts_check(&o, err)) return NULL;
	size_t frames = s->frames;
	if (frames > ((size_t)-1) / (2 * (sizeof(rki_humanoid_pose) + 8 * 64))) {
		rki_error_set(err, RK_ERROR_LIMIT, "%zu frames of contact state overflow the address space", frames);
		return NULL;
	}
	/* one block: the solver, source poses, contact frames, weights, owners, scratch */
	size_t sz_src = s->src_poses ? 0 : frames * sizeof(rki_humanoid_pose), sz_cf = frames * sizeof(rk_contact_frame);
	size_t sz_w = frames * sizeof(double), sz_own = frames * sizeof(int32_t);
	size_t bytes = sizeof(rki_contact_solver) + 16 + sz_src + 16 + sz_cf + 16 + 7 * (sz_w + 16 + sz_own + 16) + frames + 16;
	unsigned char *block = (unsigned char *)rki_calloc(alloc, 1, bytes);
	if (!block) {
		rki_error_set(err, alloc->limit_hit ? RK_ERROR_LIMIT : RK_ERROR_OUT_OF_MEMORY,
			"cannot allocate the contact solve's state for %zu frames (%zu bytes)", frames, bytes);
		return NULL;
	}
	size_t at = 0;
#define RKI_TAKE(T, n) ((T *)(void *)(block + (at = (at + 15) & ~(size_t)15, at += (n), at - (n))))
	rki_contact_solver *cs = RKI_TAKE(rki_contact_solver, sizeof(rki_contact_solver));
	cs->block = block;
	cs->bytes = bytes;
	cs->alloc = alloc;
	rki_humanoid_pose *src = RKI_TAKE(rki_humanoid_pose, sz_src);
	cs->src = s->src_poses ? s->src_poses : src;
	cs->cf = RKI_TAKE(rk_contact_frame, sz_cf);
	for (int i = 0; i < 7; i++) {
		cs->w[i] = RKI_TAKE(double, sz_w);
		cs->own[i] = RKI_TAKE(int32_t, sz_own);
	}
	cs->on = RKI_TAKE(uint8_t, frames);
#undef RKI_TAKE
	cs->frames = frames;
	cs->times = s->times;
	cs->rest_s = s->rest_s;
	cs->rest_t = s->rest_t;
	cs->to_char = s->ft->rotation;
	cs->o = o;
	cs->hands = s->hands;
	cs->hips_locked = s->hips_locked;
	cs->warning = s->warning;
	cs->warning_user = s->warning_user;
	for (int b = 0; b < RK_HUMANOID_BONE_COUNT; b++) cs->use[b] = s->use[b];

	/* the source, sampled at the key times (unless the caller has) */
	if (!s->src_poses) {
		rki_pose_buffer pb;
		if (!rki_pose_buffer_init(&pb, s->source, alloc, err)) {
			rki_contact_solver_destroy(cs);
			return NULL;
		}
		for (size_t k = 0; k < frames; k++) {
			if (!rki_pose_buffer_eval(&pb, s->source, s->clip, s->times[k], err)) {
				rki_error_file(err, s->source->source_path);
				rki_pose_buffer_free(&pb);
				rki_contact_solver_destroy(cs);
				return NULL;
			}
			rki_humanoid_pose_from(s->hs, s->fs, pb.pose.node_to_world, &src[k]);
		}
		rki_pose_buffer_free(&pb);
	}
	rki_contact_rig_init(&cs->gs, s->hs, cs->use, s->fs, s->rest_world_s, s->rest_s);
	rki_contact_rig_init(&cs->gt, s->ht, cs->use, s->ft, s->rest_world_t, s->rest_t);
	rki_contact_rig_mesh_sole(&cs->gt, s->target, s->ht, s->ft, s->rest_world_t, s->rest_t, alloc);
	rki_contact_rig_fit_floor(&cs->gs, s->rest_s, cs->src, frames, o.on_height);
	for (int side = 0; side < 2; side++) cs->tip[side] = cs->gs.has_tip[side] && cs->gt.has_tip[side];
	cs->ground = rki_ground_velocity(&cs->gs, cs->src, s->times, frames, o.off_height);
	rki_contacts_find(&cs->gs, cs->use, cs->src, s->times, frames, &o, cs->ground, cs->cf);
	cs->segs = rki_body_segments(cs->use, cs->seg);

	/* the chain structure among the retargeted bones */
	for (int b = 0; b < RK_HUMANOID_BONE_COUNT; b++) {
		cs->up[b] = -1;
		if (!cs->use[b]) continue;
		cs->kc[b] = rk_quat_normalize(rk_quat_mul(rk_quat_conjugate(s->rest_s->rotation[b]), s->rest_t->rotation[b]));
		for (const rk_node *n = s->ht->bones[b]->parent; n && b != RK_HUMANOID_HIPS; n = n->parent) {
			int found = -1;
			for (int a = 0; a < RK_HUMANOID_BONE_COUNT && found < 0; a++)
				if (cs->use[a] && s->ht->bones[a] == n) found = a;
			if (found >= 0) {
				cs->up[b] = found;
				cs->off[b] = rk_vec3_sub(s->rest_t->position[b], s->rest_t->position[found]);
				break;
			}
		}
	}
	for (int side = 0; side < 2; side++) {
		const int *l = k_limb[side], *a = k_limb[2 + side];
		cs->legs[side] = cs->use[l[0]] && cs->use[l[1]] && cs->use[l[2]] && cs->up[l[1]] == l[0] && cs->up[l[2]] == l[1];
		cs->arms[side] = cs->use[a[0]] && cs->use[a[1]] && cs->use[a[2]] && cs->up[a[1]] == a[0] && cs->up[a[2]] == a[1];
	}
	for (int side = 0; side < 2; side++) {
		int toes = k_toes[side];
		if (cs->use[toes] && cs->up[toes] != k_foot[side]) cs->gt.bone[RK_CONTACT_LEFT_TOES + side] = -1;
	}

	/* blend weights of each contact series */
	for (int side = 0; side < 2; side++) {
		for (size_t k = 0; k < frames; k++)
			cs->on[k] = (cs->cf[k].floor & ((1u << side) | (1u << (side + 2)))) != 0;
		rki_contact_weights(s->times, frames, cs->on, o.blend_time, cs->w[side], cs->own[side]);
	}
	for (size_t k = 0; k < frames; k++) cs->on[k] = cs->cf[k].hands_touch;
	rki_contact_weights(s->times, frames, cs->on, o.blend_time, cs->w[2], cs->own[2]);
	for (int side = 0; side < 2; side++) {
		for (size_t k = 0; k < frames; k++) cs->on[k] = cs->cf[k].hand_body[side] >= 0;
		rki_contact_weights(s->times, frames, cs->on, o.blend_time, cs->w[3 + side], cs->own[3 + side]);
	}
	for (int side = 0; side < 2; side++) {
		for (size_t k = 0; k < frames; k++) cs->on[k] = (cs->cf[k].floor >> (RK_CONTACT_LEFT_HAND + side)) & 1u;
		rki_contact_weights(s->times, frames, cs->on, o.blend_time, cs->w[5 + side], cs->own[5 + side]);
	}
	for (int side = 0; side < 2; side++) cs->anchor_run[side] = cs->hand_run[side] = -1;
	return cs;
}

void rki_contact_solver_destroy(rki_contact_solver *cs)
{
	if (cs) rki_free(cs->alloc, cs->block, cs->bytes);
}

/* ---- per frame ------------------------------------------------------------------ */

/* Target joint positions (character units) from the rotations in
 * cs->pose.rotation and the hips position: each bone hangs from its
 * nearest retargeted ancestor by its rest offset turned with it. A bone
 * whose ancestor's position and rotation are bit for bit those of the last
 * call keeps its position (the same formula on the same inputs): after a
 * limb's IK only that limb's chain is computed again. */
static void rki_fk(rki_contact_solver *cs, rk_vec3 hips)
{
	rki_humanoid_pose *p = &cs->pose;
	bool all = !cs->fk_ok;
	bool turned[RK_HUMANOID_BONE_COUNT], moved[RK_HUMANOID_BONE_COUNT];   /* since the last call */
	for (int b = 0; b < RK_HUMANOID_BONE_COUNT; b++) {   /* parents come first in the enum */
		if (!cs->use[b]) continue;
		turned[b] = all || memcmp(&p->rotation[b], &cs->fk_rot[b], sizeof(rk_quat)) != 0;
		if (turned[b]) cs->fk_rot[b] = p->rotation[b];
		int a = cs->up[b];
		if (a < 0) {
			moved[b] = all || memcmp(&p->position[b], &hips, sizeof(rk_vec3)) != 0;
			p->position[b] = hips;
			continue;
		}
		moved[b] = all || moved[a] || turned[a];
		if (!moved[b]) continue;
		/* rk_quat_mul / rk_quat_rotate inline (retarget_internal.h: the same formulas) */
		rk_quat turn = rki_qmul(p->rotation[a], rki_qconj(cs->rest_t->rotation[a]));
		rk_vec3 d = rki_qrot(turn, cs->off[b]), at = p->position[a];
		p->position[b] = (rk_vec3){ at.x + d.x, at.y + d.y, at.z + d.z };
	}
	cs->fk_ok = true;
}

static rk_quat rki_turn(const rki_contact_solver *cs, int b)
{
	return rki_qmul(cs->pose.rotation[b], rki_qconj(cs->rest_t->rotation[b]));   /* rk_quat_mul inline */
}

/* Offsets from the target's ankle of its toes joint and toe tip at the
 * current rotations; false entries when the rig lacks them. */
static void rki_foot_offsets(const rki_contact_solver *cs, int side, rk_vec3 *toes, bool *has_toes, rk_vec3 *tip,
	bool *has_tip)
{
	int foot = k_foot[side], t = cs->gt.bone[RK_CONTACT_LEFT_TOES + side];
	*has_toes = t >= 0;
	*has_tip = *has_toes && cs->tip[side];
	if (!*has_toes) return;
	*toes = rki_qrot(rki_turn(cs, foot), cs->off[t]);
	if (*has_tip)
		*tip = rk_vec3_add(*toes, rki_qrot(rki_turn(cs, t), rk_vec3_sub(cs->gt.tip_rest[side], cs->rest_t->position[t])));
}

/* The ankle height that puts the lowest of the foot's points (ankle, toes,
 * tip, heel) `clear` above its flat height. */
static double rki_ankle_height(const rki_contact_solver *cs, int side, double clear)
{
	rk_vec3 toes, tip;
	bool ht, hp;
	rki_foot_offsets(cs, side, &toes, &ht, &tip, &hp);
	double need = cs->gt.rest_height[RK_CONTACT_LEFT_FOOT + side];
	if (ht && cs->gt.rest_height[RK_CONTACT_LEFT_TOES + side] - toes.y > need)
		need = cs->gt.rest_height[RK_CONTACT_LEFT_TOES + side] - toes.y;
	if (hp && cs->gt.tip_rest[side].y - tip.y > need) need = cs->gt.tip_rest[side].y - tip.y;
	/* the heel turns with the foot */
	int foot = k_foot[side];
	rk_vec3 heel = rki_qrot(rki_turn(cs, foot), rk_vec3_sub(cs->gt.heel_rest[side], cs->rest_t->position[foot]));
	if (cs->gt.heel_rest[side].y - heel.y > need) need = cs->gt.heel_rest[side].y - heel.y;
	return clear + need;
}

/* The source's clearance at frame k: the lowest of its foot points above
 * their flat heights (hips heights). */
static double rki_source_clearance(const rki_contact_solver *cs, size_t k, int side)
{
	const rki_humanoid_pose *p = &cs->src[k];
	double low = INFINITY;
	for (int q = side; q < RK_CONTACT_LEFT_HAND; q += 2) {
		int b = cs->gs.bone[q];
		if (b < 0 || cs->gt.bone[q] < 0) continue;
		double e = p->position[b].y - cs->gs.rest_height[q];
		if (e < low) low = e;
	}
	if (cs->tip[side]) {
		double e = rki_contact_tip(&cs->gs, cs->rest_s, p, side).y - cs->gs.tip_rest[side].y - cs->gs.floor;
		if (e < low) low = e;
	}
	if (cs->gs.bone[RK_CONTACT_LEFT_FOOT + side] >= 0) {
		double e = rki_contact_heel(&cs->gs, cs->rest_s, p, side).y - cs->gs.heel_rest[side].y - cs->gs.floor;
		if (e < low) low = e;
	}
	return isfinite(low) ? low : 0.0;
}

/* Two-bone IK of limb l towards goal (character units); returns the
 * distance left. The bend stays on the side the limb bends now. */
static double rki_limb_ik(rki_contact_solver *cs, int l, rk_vec3 goal)
{
	const int *c = k_limb[l];
	rki_humanoid_pose *p = &cs->pose;
	rk_vec3 s = p->position[c[0]], m = p->position[c[1]], e = p->position[c[2]];
	rk_vec3 sg = rk_vec3_sub(goal, s), sm = rk_vec3_sub(m, s);
	double d = rk_vec3_length(sg);
	if (!(d > 0.0)) return 0.0;
	rk_vec3 u = rk_vec3_scale(sg, 1.0 / d);
	bool straight = rk_vec3_length(rk_vec3_sub(sm, rk_vec3_scale(u, rk_vec3_dot(sm, u)))) < 1e-6 * rk_vec3_length(sm);
	rk_vec3 fallback = l < RKI_LIMB_LEFT_ARM ? (rk_vec3){ 0, 0, 1 } : (rk_vec3){ 0, 0, -1 };
	rk_quat qs, qm;
	double miss = 0.0;
	rk_two_bone_ik_job job = {
		.start_position = s, .mid_position = m, .end_position = e,
		.start_rotation = p->rotation[c[0]], .mid_rotation = p->rotation[c[1]],
		.target = goal, .pole = straight ? fallback : sm,
		.weight = 1.0, .reach_margin = 1e-4,
		.start_correction = &qs, .mid_correction = &qm, .miss = &miss,
	};
	if (!rk_two_bone_ik_run(&job)) return 0.0;   /* a zero-length bone: left as it is */
	rk_quat ws = p->rotation[c[0]], wm = p->rotation[c[1]];
	/* rk_quat_normalize / _mul / _conjugate inline (the same formulas) */
	p->rotation[c[0]] = rki_qnorm_exact(rki_qmul(ws, qs));
	p->rotation[c[1]] = rki_qnorm_exact(rki_qmul(p->rotation[c[0]], rki_qmul(rki_qconj(ws), rki_qmul(wm, qm))));
	cs->touched[c[0]] = cs->touched[c[1]] = true;
	return miss;
}

static void rki_miss_flush(rki_contact_solver *cs, int l)
{
	rki_miss_run *r = &cs->miss[l];
	if (!r->open) return;
	r->open = false;
	rki_warning_emitf(cs->warning, cs->warning_user, "contact solve: the %s's goal is out of reach at frames %zu-%zu "
		"(%.3f-%.3f s), by up to %.4g hips heights", rk_humanoid_bone_name((rk_humanoid_bone)k_limb[l][2]), r->first,
		r->last, cs->times[r->first], cs->times[r->last], r->worst);
}

static void rki_miss_note(rki_contact_solver *cs, int l, size_t k, double miss)
{
	rki_miss_run *r = &cs->miss[l];
	if (miss > cs->max_miss) cs->max_miss = miss;
	if (!(miss > 1e-4)) {
		rki_miss_flush(cs, l);
		return;
	}
	cs->unreached++;
	if (!r->open) {
		r->open = true;
		r->first = k;
		r->worst = 0.0;
	}
	r->last = k;
	if (miss > r->worst) r->worst = miss;
}

/* The source hand's goal for hand `side` from its body contact (segment
 * index s) at frame k: the target's point at the same fraction of the
 * segment plus the source's offset from it. */
static rk_vec3 rki_body_goal(const rki_contact_solver *cs, size_t k, int side, int s)
{
	const rki_humanoid_pose *ps = &cs->src[k];
	int hand = k_hand[side], a = cs->seg[s][0], b = cs->seg[s][1];
	double u = rki_segment_fraction(ps->position[a], ps->position[b], ps->position[hand]);
	rk_vec3 off = rk_vec3_sub(ps->position[hand], rk_vec3_lerp(ps->position[a], ps->position[b], u));
	return rk_vec3_add(rk_vec3_lerp(cs->pose.position[a], cs->pose.position[b], u), off);
}

/* Arm `side`'s goal out of the two-bone chain's reach: the shoulder
 * (clavicle) bone turns its upper-arm joint towards the goal, by the least
 * angle that brings the goal within reach (at most RKI_SHOULDER_MAX_TURN),
 * that angle scaled by the contact weight w (so it blends in and out with the
 * contact). The arm bones keep their world rotations (they move with it). */
static void rki_shoulder_reach(rki_contact_solver *cs, int side, rk_vec3 goal, double w, rk_vec3 hips)
{
	const int *c = k_limb[RKI_LIMB_LEFT_ARM + side];
	int sh = k_shoulder[side];
	if (!(w > 0.0) || !cs->use[sh] || cs->up[c[0]] != sh) return;
	rki_humanoid_pose *p = &cs->pose;
	double reach = (rk_vec3_length(cs->off[c[1]]) + rk_vec3_length(cs->off[c[2]])) * (1.0 - 1e-3);
	rk_vec3 piv = p->position[sh], v = rk_vec3_sub(p->position[c[0]], piv), g = rk_vec3_sub(goal, piv);
	if (rk_vec3_length(rk_vec3_sub(g, v)) <= reach) return;
	rk_vec3 axis = rk_vec3_cross(v, g);
	double al = rk_vec3_length(axis), vl = rk_vec3_length(v), gl = rk_vec3_length(g);
	if (!(al > 1e-9 * vl * gl)) return;   /* the goal straight along (or against) the clavicle */
	axis = rk_vec3_scale(axis, 1.0 / al);
	double top = atan2(al, rk_vec3_dot(v, g));   /* turning further moves the joint away again */
	if (top > RKI_SHOULDER_MAX_TURN) top = RKI_SHOULDER_MAX_TURN;
	double lo = 0.0, hi = top;
	if (rk_vec3_length(rk_vec3_sub(g, rk_quat_rotate(rk_quat_axis_angle(axis, hi), v))) <= reach) {
		/* the distance falls monotonically with the angle up to `top`: bisection */
		for (int i = 0; i < 48; i++) {
			double mid = 0.5 * (lo + hi);
			if (rk_vec3_length(rk_vec3_sub(g, rk_quat_rotate(rk_quat_axis_angle(axis, mid), v))) <= reach) hi = mid;
			else lo = mid;
		}
	}
	rk_quat q = rk_quat_axis_angle(axis, hi * (w < 1.0 ? w : 1.0));
	p->rotation[sh] = rk_quat_normalize(rk_quat_mul(q, p->rotation[sh]));
	cs->touched[sh] = true;
	rki_fk(cs, hips);
}

/* Hand `side` on the floor at frame k (weight w > 0): the wrist's goal, pinned
 * like a foot's point (where the rule puts it at the contact's start, moved
 * as the source's wrist moves until its first contact frame, then with the
 * ground and the hips offset `off`; before and after, moving as the source's
 * wrist moves from the contact's first / last frame), at the source wrist's
 * height above its floor (hips heights). */
static rk_vec3 rki_hand_floor_goal(rki_contact_solver *cs, size_t k, int side, rk_vec3 off)
{
	const rki_humanoid_pose *ps = &cs->src[k];
	int hand = k_hand[side], q = RK_CONTACT_LEFT_HAND + side;
	int sb = cs->gs.bone[q];
	int32_t run = cs->own[5 + side][k];
	uint8_t bit = (uint8_t)(1u << q);
	if (cs->hand_run[side] != run) {
		size_t j = (size_t)run;
		rk_vec3 travel = rk_vec3_sub(cs->src[j].position[sb], ps->position[sb]);
		cs->hand_anchor[side] = rk_vec3_add(rk_vec3_sub(cs->pose.position[hand], off), travel);
		cs->hand_time[side] = cs->times[j];
		cs->hand_run[side] = run;
	}
	rk_vec3 at;
	if ((cs->cf[k].floor & bit) || (size_t)run == k) {
		at = rk_vec3_add(rk_vec3_add(cs->hand_anchor[side], off),
			rk_vec3_scale(cs->ground, cs->times[k] - cs->hand_time[side]));
	} else {
		size_t edge = (size_t)run;
		if (k > edge)
			while (edge + 1 < k && (cs->cf[edge + 1].floor & bit)) edge++;
		at = rk_vec3_add(cs->hand_anchor[side], rk_vec3_scale(cs->ground, cs->times[edge] - cs->hand_time[side]));
		at = rk_vec3_add(rk_vec3_add(at, rk_vec3_sub(ps->position[sb], cs->src[edge].position[sb])), off);
	}
	at.y = cs->gt.rest_height[q] + (ps->position[sb].y - cs->gs.rest_height[q]);
	return at;
}

void rki_contact_solver_frame(rki_contact_solver *cs, size_t k, rk_quat *wbone, rk_vec3 *hips)
{
	if (k >= cs->frames) return;
	rki_humanoid_pose *p = &cs->pose;
	const rki_humanoid_pose *ps = &cs->src[k];
	for (int b = 0; b < RK_HUMANOID_BONE_COUNT; b++)
		if (cs->use[b]) p->rotation[b] = rki_qnorm_exact(rki_qmul(cs->to_char, wbone[b]));   /* the same bits */
	rk_vec3 h = *hips;
	bool changed = false;
	memset(cs->touched, 0, sizeof(cs->touched));

	/* where the rule puts the feet (anchors of new contacts), and the offset
	 * of the target's hips from the source's: planted feet are held in the
	 * space that moves with it (so --root in-place / lock keep them planted
	 * on the target's treadmill) and with the source's ground */
	rki_fk(cs, h);
	rk_vec3 rule_pt[2][2];
	for (int side = 0; side < 2; side++) {
		if (!cs->legs[side]) continue;
		int t = cs->gt.bone[RK_CONTACT_LEFT_TOES + side];
		rule_pt[side][0] = p->position[k_foot[side]];
		rule_pt[side][1] = t >= 0 ? p->position[t] : rule_pt[side][0];
	}
	rk_vec3 off = rk_vec3_sub(h, ps->position[RK_HUMANOID_HIPS]);
	off.y = 0.0;

	/* feet: rotations relative to rest (the sole turns as the source's),
	 * then the ankle goal */
	rk_vec3 goal[2];
	bool want[2] = { false, false };
	double w[2];
	for (int side = 0; side < 2; side++) {
		w[side] = cs->w[side][k];
		if (!cs->legs[side]) continue;
		int foot = k_foot[side], toes = k_toes[side];
		if (w[side] > 0.0) {
			const int bones[2] = { foot, toes };
			for (int i = 0; i < 2; i++) {
				int b = bones[i];
				if (!cs->use[b]) continue;
				rk_quat c = rki_qnorm_exact(rki_qmul(ps->rotation[b], cs->kc[b])), r = p->rotation[b];
				if (c.x * r.x + c.y * r.y + c.z * r.z + c.w * r.w < 0.0) c = (rk_quat){ -c.x, -c.y, -c.z, -c.w };
				p->rotation[b] = w[side] >= 1.0 ? c : rk_quat_normalize(rk_quat_slerp(p->rotation[b], c, w[side]));
				cs->touched[b] = true;
			}
			changed = true;
		} else {
			cs->anchor_run[side] = -1;
		}
	}
	rki_fk(cs, h);
	double clear[2] = { 0.0, 0.0 };
	rk_vec3 contact[2];
	for (int side = 0; side < 2; side++) {
		if (!cs->legs[side]) continue;
		clear[side] = rki_source_clearance(cs, k, side);
		if (!(w[side] > 0.0)) continue;
		/* the pinned point: the toes when the source's toes touch, else the ankle */
		int32_t run = cs->own[side][k];
		const rk_contact_frame *cf = &cs->cf[k];
		bool in = (cf->floor & ((1u << side) | (1u << (side + 2)))) != 0;
		int pin = cs->gt.bone[RK_CONTACT_LEFT_TOES + side] >= 0 && (cf->floor & (1u << (side + 2)))
			? RK_CONTACT_LEFT_TOES + side : RK_CONTACT_LEFT_FOOT + side;
		rk_vec3 toes, tip;
		bool ht, hp;
		rki_foot_offsets(cs, side, &toes, &ht, &tip, &hp);
		if (cs->anchor_run[side] != run) {
			/* a new contact (or its blend-in): where the rule puts the pinned
			 * point now, moved as the source's moves until its first contact
			 * frame j (so the target keeps its own stance width) */
			size_t j = (size_t)run;
			const rk_contact_frame *cj = &cs->cf[j];
			pin = cs->gt.bone[RK_CONTACT_LEFT_TOES + side] >= 0 && (cj->floor & (1u << (side + 2)))
				? RK_CONTACT_LEFT_TOES + side : RK_CONTACT_LEFT_FOOT + side;
			int sb = cs->gs.bone[pin];
			rk_vec3 travel = rk_vec3_sub(cs->src[j].position[sb], ps->position[sb]);
			cs->anchor[side] = rk_vec3_add(rk_vec3_sub(rule_pt[side][pin == RK_CONTACT_LEFT_TOES + side], off), travel);
			cs->anchor_time[side] = cs->times[j];
			cs->anchor_run[side] = run;
			cs->pin[side] = pin;
		} else if (in && pin != cs->pin[side]) {
			/* heel-off (or toes lifting first): pin the other point where it was */
			cs->anchor[side] = rk_vec3_sub(cs->prev_point[side][pin == RK_CONTACT_LEFT_TOES + side], cs->prev_off);
			cs->anchor_time[side] = k > 0 ? cs->times[k - 1] : cs->times[k];
			cs->pin[side] = pin;
		}
		rk_vec3 at;
		if (in || (size_t)run == k) {
			at = rk_vec3_add(rk_vec3_add(cs->anchor[side], off),
				rk_vec3_scale(cs->ground, cs->times[k] - cs->anchor_time[side]));
		} else {
			/* blending in or out: the pinned point moves as the source's does
			 * from the contact's first (last) frame */
			size_t edge = (size_t)run;
			if (k > edge)
				while (edge + 1 < k && (cs->cf[edge + 1].floor & ((1u << side) | (1u << (side + 2))))) edge++;
			int sb = cs->gs.bone[cs->pin[side]];
			rk_vec3 q = rk_vec3_add(cs->anchor[side], rk_vec3_scale(cs->ground, cs->times[edge] - cs->anchor_time[side]));
			q = rk_vec3_add(q, rk_vec3_sub(ps->position[sb], cs->src[edge].position[sb]));
			at = rk_vec3_add(q, off);
		}
		rk_vec3 pin_off = cs->pin[side] == RK_CONTACT_LEFT_TOES + side ? toes : (rk_vec3){ 0, 0, 0 };
		contact[side] = (rk_vec3){ at.x - pin_off.x, rki_ankle_height(cs, side, clear[side]), at.z - pin_off.z };
	}
	/* hips lowered so that every leg reaches its (blended) goal */
	double drop = 0.0;
	for (int side = 0; side < 2; side++) {
		if (!cs->legs[side] || !(w[side] > 0.0)) continue;
		const int *c = k_limb[side];
		rk_vec3 s = p->position[c[0]], free = p->position[c[2]];
		double reach = (rk_vec3_length(cs->off[c[1]]) + rk_vec3_length(cs->off[c[2]])) * (1.0 - 1e-3);
		rk_vec3 v = rk_vec3_add(rk_vec3_scale(rk_vec3_sub(contact[side], s), w[side]),
			rk_vec3_scale(rk_vec3_sub(free, s), 1.0 - w[side]));
		double hz2 = v.x * v.x + v.z * v.z;
		if (rk_vec3_length(v) <= reach || hz2 >= reach * reach) continue;
		/* |v + w drop up| = reach, the foot below the hip */
		double need = (-sqrt(reach * reach - hz2) - v.y) / w[side];
		if (need > drop) drop = need;
	}
	if (drop > 0.25) drop = 0.25;
	if (cs->hips_locked) drop = 0.0;
	if (drop > 0.0) {
		h.y -= drop;
		rki_fk(cs, h);
		changed = true;
		if (drop > cs->max_drop) cs->max_drop = drop;
	}
	for (int side = 0; side < 2; side++) {
		if (!cs->legs[side]) continue;
		rk_vec3 free = p->position[k_limb[side][2]];
		goal[side] = w[side] > 0.0 ? rk_vec3_lerp(free, contact[side], w[side]) : free;
		/* nothing below the floor that is not below it in the source */
		double low = rki_ankle_height(cs, side, clear[side] < 0.0 ? clear[side] : 0.0);
		if (goal[side].y < low) goal[side].y = low;
		want[side] = w[side] > 0.0 || rk_vec3_length(rk_vec3_sub(goal[side], free)) > 1e-12;
	}
	for (int side = 0; side < 2; side++) {
		if (!want[side]) {
			rki_miss_flush(cs, side);
			continue;
		}
		changed = true;
		rki_miss_note(cs, side, k, rki_limb_ik(cs, side, goal[side]));
		rki_fk(cs, h);
	}
	cs->prev_off = off;
	for (int side = 0; side < 2; side++) {
		if (!cs->legs[side]) continue;
		cs->prev_point[side][0] = p->position[k_foot[side]];
		int t = cs->gt.bone[RK_CONTACT_LEFT_TOES + side];
		cs->prev_point[side][1] = t >= 0 ? p->position[t] : p->position[k_foot[side]];
	}

	/* hands: on the floor (always), on the body or together (cs->hands) */
	{
		rk_vec3 hand_goal[2], full[2];
		double hand_w[2] = { 0.0, 0.0 };
		bool hand_want[2] = { false, false };
		int lh = RK_HUMANOID_LEFT_HAND, rh = RK_HUMANOID_RIGHT_HAND;
		for (int side = 0; side < 2; side++) {
			if (!cs->arms[side] || cs->gs.bone[RK_CONTACT_LEFT_HAND + side] < 0) continue;
			double wf = cs->w[5 + side][k];
			if (wf > 0.0) {
				full[side] = rki_hand_floor_goal(cs, k, side, off);
				hand_w[side] = wf;
				hand_want[side] = true;
			} else {
				cs->hand_run[side] = -1;
			}
		}
		for (int side = 0; side < 2 && cs->hands; side++) {
			if (!cs->arms[side] || hand_want[side]) continue;
			double wb = cs->w[3 + side][k], wp = cs->w[2][k];
			if (wb > 0.0) {
				/* the segment of the contact run */
				int8_t named = cs->cf[(size_t)cs->own[3 + side][k]].hand_body[side];
				int s = rki_body_segment_find(cs->seg, cs->segs, named);
				if (s < 0) continue;
				full[side] = rki_body_goal(cs, k, side, s);
				hand_w[side] = wb;
				hand_want[side] = true;
			} else if (wp > 0.0 && cs->arms[1 - side]) {
				rk_vec3 mid = rk_vec3_scale(rk_vec3_add(p->position[lh], p->position[rh]), 0.5);
				rk_vec3 half = rk_vec3_scale(rk_vec3_sub(ps->position[lh], ps->position[rh]), side ? -0.5 : 0.5);
				full[side] = rk_vec3_add(mid, half);
				hand_w[side] = wp;
				hand_want[side] = true;
			}
		}
		/* goals out of the arm's reach: the shoulder turns first; then the
		 * blended goal from where the hand is now */
		for (int side = 0; side < 2; side++) {
			if (!hand_want[side]) continue;
			rki_shoulder_reach(cs, side, full[side], hand_w[side], h);
		}
		for (int side = 0; side < 2; side++)
			if (hand_want[side]) hand_goal[side] = rk_vec3_lerp(p->position[k_hand[side]], full[side], hand_w[side]);
		for (int side = 0; side < 2; side++) {
			if (!hand_want[side]) {
				rki_miss_flush(cs, RKI_LIMB_LEFT_ARM + side);
				continue;
			}
			changed = true;
			rki_miss_note(cs, RKI_LIMB_LEFT_ARM + side, k, rki_limb_ik(cs, RKI_LIMB_LEFT_ARM + side, hand_goal[side]));
			rki_fk(cs, h);
		}
	}

	if (!changed) return;
	cs->solved_frames++;
	rk_quat to_world = rk_quat_conjugate(cs->to_char);
	for (int b = 0; b < RK_HUMANOID_BONE_COUNT; b++) {
		if (!cs->use[b] || !cs->touched[b]) continue;
		wbone[b] = rki_qnorm_exact(rki_qmul(to_world, p->rotation[b]));
		cs->solved[b] = true;
	}
	*hips = h;
}

void rki_contact_solver_report(rki_contact_solver *cs, rk_retarget_report *report, bool *solved)
{
	for (int l = 0; l < RKI_LIMBS; l++) rki_miss_flush(cs, l);
	for (int b = 0; b < RK_HUMANOID_BONE_COUNT; b++) solved[b] = cs->solved[b];
	if (!report) return;
	for (size_t k = 0; k < cs->frames; k++) {
		for (int p = 0; p < RK_CONTACT_POINT_COUNT; p++) report->contact_frames[p] += (cs->cf[k].floor >> p) & 1u;
		report->hand_pair_frames += cs->cf[k].hands_touch;
		report->hand_body_frames[0] += cs->cf[k].hand_body[0] >= 0;
		report->hand_body_frames[1] += cs->cf[k].hand_body[1] >= 0;
	}
	for (int b = 0; b < RK_HUMANOID_BONE_COUNT; b++) report->solved_bones[b] = cs->solved[b];
	report->solved_frames = cs->solved_frames;
	report->unreached_goals = cs->unreached;
	report->max_contact_miss = cs->max_miss;
	report->max_hips_drop = cs->max_drop;
	for (int side = 0; side < 2; side++) {
		rk_contact_sole *so = &report->target_sole[side];
		int a = k_foot[side];
		if (!cs->use[a]) continue;
		rk_vec3 ankle = cs->rest_t->position[a], heel = cs->gt.heel_rest[side];
		so->mesh_vertices = cs->gt.sole_vertices[side];
		so->ankle_height = ankle.y - heel.y;
		so->heel = ankle.z - heel.z;
		int t = cs->gt.bone[RK_CONTACT_LEFT_TOES + side];
		so->toe = cs->gt.has_tip[side] ? cs->gt.tip_rest[side].z - ankle.z : t >= 0 ? cs->rest_t->position[t].z - ankle.z : 0.0;
	}
}
