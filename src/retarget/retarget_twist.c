/*
 * src/retarget/retarget_twist.c - twist distribution onto the twist joints
 * of a target (rigkit/retarget.h, TWIST JOINTS; the joints are found by
 * rk_humanoid_find_twists, rigkit/humanoid.h).
 *
 * RESTRICTIONS
 *   Nodes below a leaf twist joint follow it (they get no tracks). The
 *   twist of a bone relative to its parent is measured against the
 *   parent node's world rotation, whatever that node is.
 */
#include "retarget/retarget_twist.h"
#include "scene/scene_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define RKI_PI 3.14159265358979323846

double rki_twist_angle(rk_quat q, rk_vec3 a)
{
	if (q.w < 0.0) q = (rk_quat){ -q.x, -q.y, -q.z, -q.w };
	double s = q.x * a.x + q.y * a.y + q.z * a.z;
	return 2.0 * atan2(s, q.w);
}

int rki_twist_index(const rki_twist *t, size_t node)
{
	for (size_t i = 0; i < t->count; i++)
		if (t->joints[i].node == node) return (int)i;
	return -1;
}

static bool rki_twist_upper(rk_humanoid_bone b)
{
	return b == RK_HUMANOID_LEFT_UPPER_ARM || b == RK_HUMANOID_RIGHT_UPPER_ARM || b == RK_HUMANOID_LEFT_UPPER_LEG ||
		b == RK_HUMANOID_RIGHT_UPPER_LEG;
}

static rk_vec3 rki_twist_dir(const rk_vec3 *pos, size_t from, size_t to, rk_vec3 fallback)
{
	rk_vec3 d = rk_vec3_sub(pos[to], pos[from]);
	double l = rk_vec3_length(d);
	return l > 1e-12 ? rk_vec3_scale(d, 1.0 / l) : fallback;
}

bool rki_twist_init(rki_twist *t, const rk_scene *target, const rk_humanoid *ht, const bool *use,
	const rk_quat *rest_world, const rk_vec3 *rest_pos, const rk_retarget_opts *opts, rk_error *err)
{
	memset(t, 0, sizeof(*t));
	if (opts->twist == RK_RETARGET_TWIST_OFF) return true;
	if (opts->twist != RK_RETARGET_TWIST_ON) {
		rki_error_set(err, RK_ERROR_INVALID_ARGUMENT, "unknown twist mode %d", (int)opts->twist);
		return false;
	}
	if (opts->twist_weight_count && !opts->twist_weights) {
		rki_error_set(err, RK_ERROR_INVALID_ARGUMENT, "opts.twist_weight_count is %zu but twist_weights is NULL",
			opts->twist_weight_count);
		return false;
	}
	for (size_t w = 0; w < opts->twist_weight_count; w++) {
		double f = opts->twist_weights[w].share;
		if (!opts->twist_weights[w].node || !(f >= 0.0 && f <= 1.0)) {
			rki_error_set(err, RK_ERROR_INVALID_ARGUMENT, "twist weight %zu (%s): the share must be in 0..1, got %g", w,
				opts->twist_weights[w].node ? opts->twist_weights[w].node : "no node name", f);
			return false;
		}
	}
	rk_humanoid_twists found;
	rk_humanoid_find_twists(target, ht, &found);
	for (int s = 0; s < RK_HUMANOID_TWIST_SEGMENTS; s++) {
		const rk_humanoid_twist_segment *hs = &found.segments[s];
		if (!hs->count || !use[hs->bone] || !use[hs->child]) continue;
		rki_twist_seg *seg = &t->segs[s];
		const rk_node *bn = ht->bones[hs->bone], *cn = ht->bones[hs->child];
		if (!(rk_vec3_length(rk_vec3_sub(rest_pos[cn->index], rest_pos[bn->index])) > 1e-12)) continue;   /* no axis */
		seg->used = true;
		seg->bone = bn->index;
		seg->child = cn->index;
		seg->parent = bn->parent ? bn->parent->index : 0;
		rk_vec3 axis = rki_twist_dir(rest_pos, seg->bone, seg->child, (rk_vec3){ 1, 0, 0 });
		rk_quat rb = rest_world[seg->bone], rc = rest_world[seg->child], rp = rest_world[seg->parent];
		seg->axis_b = rk_vec3_normalize(rk_quat_rotate(rk_quat_conjugate(rb), axis));
		seg->axis_p = rk_vec3_normalize(rk_quat_rotate(rk_quat_conjugate(rp), axis));
		seg->rest_cb = rk_quat_normalize(rk_quat_mul(rk_quat_conjugate(rb), rc));
		seg->rest_bp = rk_quat_normalize(rk_quat_mul(rk_quat_conjugate(rp), rb));
		for (size_t i = 0; i < hs->count; i++) {
			const rk_node *jn = hs->joints[i];
			rki_twist_joint *j = &t->joints[t->count++];
			j->node = jn->index;
			j->parent = jn->parent->index;
			j->seg = s;
			j->share = (double)(i + 1) / (double)(hs->count + 1);
			j->from_bone = !hs->in_chain[i] && rki_twist_upper(hs->bone);
			j->axis_rest = axis;
			if (hs->in_chain[i]) {
				/* the next node on the path to the child */
				const rk_node *next = cn;
				while (next->parent && next->parent != jn) next = next->parent;
				j->axis_rest = rki_twist_dir(rest_pos, j->node, next->index, axis);
			}
			for (size_t w = 0; w < opts->twist_weight_count; w++)
				if (jn->name && !strcmp(jn->name, opts->twist_weights[w].node)) j->share = opts->twist_weights[w].share;
		}
	}
	for (size_t w = 0; opts->warning && w < opts->twist_weight_count; w++) {
		bool hit = false;
		for (size_t i = 0; i < t->count && !hit; i++) {
			const char *nm = target->nodes.data[t->joints[i].node].name;
			hit = nm && !strcmp(nm, opts->twist_weights[w].node);
		}
		if (hit) continue;
		rki_warning_emitf(opts->warning, opts->warning_user,
			"twist weight for \"%.150s\": not a twist joint of the target (ignored)", opts->twist_weights[w].node);
	}
	return true;
}

/* raw + a whole number of turns, nearest to prev */
static double rki_twist_unwrap(double raw, double prev, bool have)
{
	if (!have) return raw;
	return raw + 2.0 * RKI_PI * floor((prev - raw) / (2.0 * RKI_PI) + 0.5);
}

void rki_twist_apply(rki_twist *t, rk_quat *world, const rk_quat *rest_world)
{
	for (int s = 0; s < RK_HUMANOID_TWIST_SEGMENTS; s++) {
		rki_twist_seg *seg = &t->segs[s];
		if (!seg->used) continue;
		rk_quat wb = world[seg->bone], wc = world[seg->child], wp = world[seg->parent];
		rk_quat dc = rk_quat_normalize(rk_quat_mul(rk_quat_mul(rk_quat_conjugate(wb), wc), rk_quat_conjugate(seg->rest_cb)));
		rk_quat db = rk_quat_normalize(rk_quat_mul(rk_quat_mul(rk_quat_conjugate(wp), wb), rk_quat_conjugate(seg->rest_bp)));
		seg->theta_c = rki_twist_unwrap(rki_twist_angle(dc, seg->axis_b), seg->theta_c, seg->have_prev);
		seg->theta_b = rki_twist_unwrap(rki_twist_angle(db, seg->axis_p), seg->theta_b, seg->have_prev);
		seg->have_prev = true;
	}
	for (size_t i = 0; i < t->count; i++) {
		const rki_twist_joint *j = &t->joints[i];
		const rki_twist_seg *seg = &t->segs[j->seg];
		rk_quat turn = rk_quat_mul(world[seg->bone], rk_quat_conjugate(rest_world[seg->bone]));
		rk_vec3 axis = rk_quat_rotate(turn, j->axis_rest);
		double phi = j->from_bone ? -(1.0 - j->share) * seg->theta_b : j->share * seg->theta_c;
		world[j->node] = rk_quat_normalize(rk_quat_mul(rk_quat_axis_angle(axis, phi), world[j->node]));
	}
}
