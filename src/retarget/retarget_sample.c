/*
 * src/retarget/retarget_sample.c - the source side of rk_retarget's frame
 * loop: the humanoid pose of the source clip at increasing times, without
 * evaluating the whole scene (retarget_internal.h, rki_src_sampler).
 *
 * What rk_pose_eval + rki_humanoid_pose_from compute for the humanoid bones,
 * with the per-clip work done once: the nodes evaluated are the humanoid
 * bones and their ancestors only, the tracks applied are the ones on those
 * nodes (found once, each with a key cursor; a track that holds one value
 * and the tracks a later one overrides are applied once, or not at all),
 * and node_to_world is the
 * product of 3x4 affine blocks (no geometry, unscaled or inherit-scale
 * matrices: glTF-style nodes inherit normally). The values agree with the
 * full evaluation to rounding (1e-15 relative): the same key intervals and
 * interpolation (rki_anim_track_eval_hint), the same TRS matrices and
 * products, the rotation read with the same Gram-Schmidt.
 *
 * FBX nodes: the animated Lcl Translation / Rotation / Scaling are
 * sampled (Lcl Rotation kept in degrees, as the evaluator keeps it, limits
 * applied), the chain of rk_fbx_node_to_parent rebuilt with the same steps
 * (pre / post rotation quaternions made once per clip). Inherit modes
 * other than normal are taken as normal where that is the same transform:
 * componentwise scale inheritance when every scale on the evaluated nodes
 * is uniform, positive and not animated (and the root's linear part a
 * uniform scale times a rotation); ignoring the parent's scale when that
 * scale is 1 and not animated (the results then differ from the full
 * evaluation's decompose / recompose by rounding only).
 *
 * RESTRICTIONS (fast == false, the caller evaluates the full pose): nodes
 * with a load adjustment, other inherit mode cases, FBX tracks on other
 * properties than Lcl Translation / Rotation / Scaling (pivots, offsets,
 * pre / post rotation), clips of more than one layer, a clip
 * rk_pose_eval_validate refuses.
 */
#include "retarget/retarget_internal.h"
#include "anim/anim_internal.h"

#include <math.h>
#include <string.h>

enum {
	RKI_APPLY_NONE, RKI_APPLY_T, RKI_APPLY_R_QUAT, RKI_APPLY_R_EULER, RKI_APPLY_S,
	RKI_APPLY_FBX_EULER,             /* FBX node: Lcl Rotation degrees into rotation.x/y/z */
	RKI_APPLY_FBX_QUAT,              /* FBX node: a quaternion, turned into Lcl Rotation degrees */
	RKI_APPLY_FULL                   /* something only the full evaluation does */
};

/* The rotation order an FBX node's Lcl Rotation values are in (anim_eval.c,
 * rki_lcl_order). */
static rk_rotation_order rki_src_lcl_order(const rk_transform_props *p)
{
	if (!p->rotation_active || p->rotation_order == RK_ROTATION_SPHERIC_XYZ) return RK_ROTATION_XYZ;
	return p->rotation_order;
}

/* What rk_pose_eval's track application does (full weight, one layer):
 * which local field the track sets. */
static uint8_t rki_apply_kind(const rk_anim_track *tr)
{
	if (tr->node->has_fbx_props) {
		switch (tr->target) {
		case RK_TARGET_TRANSLATION: return RKI_APPLY_T;
		case RK_TARGET_ROTATION_EULER: return RKI_APPLY_FBX_EULER;
		case RK_TARGET_ROTATION_QUAT: return RKI_APPLY_FBX_QUAT;
		case RK_TARGET_SCALE: return RKI_APPLY_S;
		case RK_TARGET_FBX_PROPERTY: {
			static const char *const other[] = { "RotationOffset", "RotationPivot", "ScalingOffset", "ScalingPivot",
				"PreRotation", "PostRotation", "GeometricTranslation", "GeometricRotation", "GeometricScaling" };
			const char *name = tr->property ? tr->property : "";
			if (strcmp(name, "Lcl Translation") == 0) return RKI_APPLY_T;
			if (strcmp(name, "Lcl Rotation") == 0) return RKI_APPLY_FBX_EULER;
			if (strcmp(name, "Lcl Scaling") == 0) return RKI_APPLY_S;
			for (size_t k = 0; k < sizeof(other) / sizeof(other[0]); k++)
				if (strcmp(name, other[k]) == 0) return RKI_APPLY_FULL;
			return RKI_APPLY_NONE;
		}
		default: return RKI_APPLY_NONE;
		}
	}
	switch (tr->target) {
	case RK_TARGET_TRANSLATION: return RKI_APPLY_T;
	case RK_TARGET_ROTATION_EULER: return RKI_APPLY_R_EULER;
	case RK_TARGET_ROTATION_QUAT: return RKI_APPLY_R_QUAT;
	case RK_TARGET_SCALE: return RKI_APPLY_S;
	case RK_TARGET_FBX_PROPERTY: {
		const char *name = tr->property ? tr->property : "";
		if (strcmp(name, "Lcl Translation") == 0) return RKI_APPLY_T;
		if (strcmp(name, "Lcl Rotation") == 0) return RKI_APPLY_R_EULER;
		if (strcmp(name, "Lcl Scaling") == 0) return RKI_APPLY_S;
		return RKI_APPLY_NONE;
	}
	default: return RKI_APPLY_NONE;
	}
}

/* True when a sampler-based LINEAR / STEP track holds one value at every
 * key: its value at any time is that value (lerp of equal values; slerp
 * of equal quaternions takes the normalised lerp), so it is applied once. */
static bool rki_track_constant(const rk_anim_track *tr)
{
	if (tr->curves[0] || tr->curves[1] || tr->curves[2] || tr->curves[3] || !tr->times || !rk_track_has_values(tr) ||
		!tr->key_count || tr->interpolation == RK_INTERP_CUBIC)
		return false;
	size_t c = tr->components;
	for (size_t k = 1; k < tr->key_count; k++) {
		if (tr->values_f64 ? memcmp(tr->values_f64 + k * c, tr->values_f64, c * sizeof(double)) != 0
		                   : memcmp(tr->values_f32 + k * c, tr->values_f32, c * sizeof(float)) != 0)
			return false;
	}
	return true;
}

static bool rki_times_sorted(const rk_anim_track *tr)
{
	if (tr->curves[0] || tr->curves[1] || tr->curves[2] || tr->curves[3] || !tr->times) return true;
	for (size_t k = 1; k < tr->key_count; k++)
		if (!(tr->times[k] >= tr->times[k - 1])) return false;
	return true;
}

/* rk_anim_track_eval's values for a LINEAR / STEP sampler track (st->direct),
 * without its generic dispatch; inline in the block's loop over frames. */
RKI_HOT_INLINE void rki_src_track_direct(rki_src_track *st, rk_trs *local, double time)
{
	rk_trs *l = &local[st->slot];
	uint8_t kind = st->kind;
	const rk_anim_track *tr = st->track;
	double u;
	size_t i, h = st->hint, n = tr->key_count;
	const double *tt = tr->times;
	/* rki_sample_locate's answer, inline for sorted keys: before the
	 * first key or from the last on, that key; inside, the last key at
	 * or before time (the binary search's answer), found from the cursor
	 * forwards, alone when time is on it, else its interval (LINEAR) */
	if (st->sorted && n > 1 && time > tt[0] && time >= tt[n - 1]) {
		i = n - 1;
		u = -1.0;
	} else if (st->sorted && (n == 1 || !(time > tt[0]))) {
		i = 0;
		u = -1.0;
	} else if (st->sorted && h + 1 < n && tt[h] <= time) {
		/* tt[0] < time < tt[n - 1]: the loop stops below n - 1 */
		while (tt[h + 1] <= time) h++;
		if (time <= tt[h]) {
			st->hint = i = h;
			u = -1.0;
		} else if (tr->interpolation == RK_INTERP_LINEAR) {
			st->hint = i = h;
			u = (time - tt[h]) / (tt[h + 1] - tt[h]);
		} else {
			i = rki_anim_track_locate(tr, time, &st->hint, &u);
		}
	} else {
		i = rki_anim_track_locate(tr, time, st->sorted ? &st->hint : NULL, &u);
	}
	/* key i (and i + 1 when interpolating) as doubles */
	const double *a;
	double af[8];
	if (tr->values_f64) {
		a = tr->values_f64 + i * tr->components;
	} else {
		/* components is 4 for a rotation, else 3 (st->direct); key i + 1
		 * only when interpolating */
		const float *f = tr->values_f32 + i * tr->components;
		af[0] = f[0], af[1] = f[1], af[2] = f[2];
		if (kind == RKI_APPLY_R_QUAT) {
			af[3] = f[3];
			if (!(u < 0.0)) af[4] = f[4], af[5] = f[5], af[6] = f[6], af[7] = f[7];
		} else if (!(u < 0.0)) {
			af[3] = f[3], af[4] = f[4], af[5] = f[5];
		}
		a = af;
	}
	if (kind == RKI_APPLY_R_QUAT) {
		rk_quat qa = { a[0], a[1], a[2], a[3] }, q;
		if (u < 0.0) {
			q = rki_qnorm(qa);
		} else {
			/* rk_quat_slerp: the normalised lerp of close keys inline */
			rk_quat qb = { a[4], a[5], a[6], a[7] };
			double d = qa.x * qb.x + qa.y * qb.y + qa.z * qb.z + qa.w * qb.w;
			if (d < 0.0) qb = (rk_quat){ -qb.x, -qb.y, -qb.z, -qb.w };
			if (fabs(d) > 0.9995)
				q = rki_qnorm((rk_quat){ qa.x + (qb.x - qa.x) * u, qa.y + (qb.y - qa.y) * u, qa.z + (qb.z - qa.z) * u,
					qa.w + (qb.w - qa.w) * u });
			else
				q = rk_quat_slerp(qa, qb, u);
		}
		l->rotation = rki_qnorm(q);
		return;
	}
	rk_vec3 v = u < 0.0 ? (rk_vec3){ a[0], a[1], a[2] }
		: (rk_vec3){ a[0] + (a[3] - a[0]) * u, a[1] + (a[4] - a[1]) * u, a[2] + (a[5] - a[2]) * u };
	if (kind == RKI_APPLY_T) l->translation = v;
	else l->scale = v;
}

/* The other tracks: rk_anim_track_eval's or the curves' values. */
static void rki_src_track_general(rki_src_track *st, rk_trs *local, double time)
{
	rk_trs *l = &local[st->slot];
	double v[4] = { 0.0, 0.0, 0.0, 0.0 };
	const rk_anim_track *tr = st->track;
	if (!rki_anim_track_is_sampled(tr)) {
		/* rk_anim_track_eval's curve values, each curve with its cursor */
		for (int k = 0; k < 4; k++)
			v[k] = tr->curves[k] ? rki_anim_curve_eval_hint(tr->curves[k], time, false,
				st->curves_sorted ? &st->curve_hint[k] : NULL) : tr->default_value[k];
	} else {
		rki_anim_track_eval_hint(tr, time, false, v, 4, st->sorted ? &st->hint : NULL);
	}
	switch (st->kind) {
	case RKI_APPLY_T: l->translation = (rk_vec3){ v[0], v[1], v[2] }; break;
	case RKI_APPLY_R_QUAT: l->rotation = rki_qnorm((rk_quat){ v[0], v[1], v[2], v[3] }); break;
	case RKI_APPLY_R_EULER: l->rotation = rk_quat_from_euler_deg((rk_vec3){ v[0], v[1], v[2] }, RK_ROTATION_XYZ); break;
	case RKI_APPLY_S: l->scale = (rk_vec3){ v[0], v[1], v[2] }; break;
	case RKI_APPLY_FBX_EULER: l->rotation = (rk_quat){ v[0], v[1], v[2], 0.0 }; break;
	case RKI_APPLY_FBX_QUAT: {
		rk_vec3 e = rk_quat_to_euler_deg(rk_quat_normalize((rk_quat){ v[0], v[1], v[2], v[3] }),
			(rk_rotation_order)st->order);
		l->rotation = (rk_quat){ e.x, e.y, e.z, 0.0 };
		break;
	}
	default: break;
	}
}

static void rki_src_track_apply(rki_src_track *st, rk_trs *local, double time)
{
	if (st->direct) rki_src_track_direct(st, local, time);
	else rki_src_track_general(st, local, time);
}

/* An FBX node's constant part of rk_fbx_node_to_parent (transform.c) for
 * the fast path (load adjustment identity). */
typedef struct rki_src_fbx {
	rk_quat pre, post_conj;          /* PreRotation, PostRotation^-1 (RotationActive) */
	rk_vec3 rotation_offset, rotation_pivot, scaling_offset, scaling_pivot;
	uint8_t euler_order;             /* the order rk_fbx_lcl_rotation turns Lcl Rotation with */
	bool active;                     /* RotationActive */
	bool on;                         /* an FBX node */
	bool no_pivots;                  /* pivots and offsets all zero */
} rki_src_fbx;

static bool rki_v3_zero(rk_vec3 v) { return v.x == 0.0 && v.y == 0.0 && v.z == 0.0; }

void rki_src_sampler_free(rki_src_sampler *s)
{
	if (s->block) rki_free(s->alloc, s->block, s->block_size);
	if (s->block2) rki_free(s->alloc, s->block2, s->block2_size);
	memset(s, 0, sizeof(*s));
}

/* The scale of slot k is static (no track sets it) and equal to v on every
 * axis. */
static bool rki_src_scale_is(const rki_src_sampler *s, size_t k, double v)
{
	rk_vec3 sc = s->base[k].scale;
	return !(s->field_set[k] & 4) && sc.x == v && sc.y == v && sc.z == v;
}

/* True when the linear part of m (a root's load conversion) is a positive
 * uniform scale times a rotation, to rounding. */
static bool rki_mat_uniform(const rk_mat4 *m)
{
	if (m->m[15] == 0.0) return true;   /* identity (rki_node_matrices) */
	rk_vec3 c[3] = { { m->m[0], m->m[1], m->m[2] }, { m->m[4], m->m[5], m->m[6] }, { m->m[8], m->m[9], m->m[10] } };
	double l0 = rki_v3dot(c[0], c[0]), tol = 1e-12 * l0;
	if (!(l0 > 0.0) || !isfinite(l0)) return false;
	if (fabs(rki_v3dot(c[1], c[1]) - l0) > tol || fabs(rki_v3dot(c[2], c[2]) - l0) > tol) return false;
	if (fabs(rki_v3dot(c[0], c[1])) > tol || fabs(rki_v3dot(c[0], c[2])) > tol || fabs(rki_v3dot(c[1], c[2])) > tol)
		return false;
	return rki_v3dot(rki_v3cross(c[0], c[1]), c[2]) > 0.0;
}

/* Whether every evaluated node's world is its parent's world times its
 * node_to_parent, as the fast path computes it (RESTRICTIONS above). */
static bool rki_src_inherit_ok(const rki_src_sampler *s, const rk_scene *scene)
{
	bool uniform = false;
	for (size_t k = 0; k < s->count; k++) {
		const rk_node *x = &scene->nodes.data[s->node[k]];
		if (!s->fbx[k].on || x->props.inherit_mode == RK_INHERIT_NORMAL || s->parent[k] < 0) continue;
		if (x->props.inherit_mode == RK_INHERIT_IGNORE_PARENT_SCALE) {
			/* local = T(t) * S(parent's local scale)^-1 * (node_to_parent - t) */
			if (!rki_src_scale_is(s, (size_t)s->parent[k], 1.0)) return false;
		} else {
			uniform = true;   /* componentwise: the same as normal for uniform scales */
		}
	}
	if (!uniform) return true;
	for (size_t k = 0; k < s->count; k++) {
		const rk_node *x = &scene->nodes.data[s->node[k]];
		if (x->kind == RK_NODE_ROOT) {
			if (!rki_mat_uniform(&x->node_to_parent)) return false;
			continue;
		}
		double v = s->base[k].scale.x;
		if (!(v > 0.0) || !isfinite(v) || !rki_src_scale_is(s, k, v)) return false;
	}
	return true;
}

bool rki_src_sampler_init(rki_src_sampler *s, const rk_scene *scene, const rk_anim_clip *clip, const rk_humanoid *h,
	rki_pose_buffer *check, rki_alloc *alloc, rk_error *err)
{
	memset(s, 0, sizeof(*s));
	s->alloc = alloc;
	size_t n = scene->nodes.count;
	/* the full evaluation's checks, once: a clip they refuse takes the full
	 * path, which reports it at the first frame */
	rk_pose_eval_job job;
	memset(&job, 0, sizeof(job));
	job.scene = scene;
	job.clip = clip;
	job.time = clip->time_begin;
	job.pose = &check->pose;
	if (clip->layer_count > 1 || !rk_pose_eval_validate(&job, NULL)) return true;
	size_t tracks = clip->layer_count ? clip->layers[0].track_count : 0;
	/* two blocks: by node (slot_of_node, parent, node), then by slot, sized
	 * by the nodes evaluated (world, RKI_SRC_BLOCK frames of local TRS,
	 * base, field_set) and the tracks */
	size_t per_node = 2 * sizeof(int32_t) + sizeof(uint32_t);
	size_t per_slot = sizeof(rki_affine) + (RKI_SRC_BLOCK + 1) * sizeof(rk_trs) + sizeof(rki_src_fbx) + 1;
	if (n > SIZE_MAX / 2 / per_slot || tracks > SIZE_MAX / 2 / sizeof(rki_src_track)) {
		rki_error_set(err, RK_ERROR_LIMIT, "%zu nodes / %zu tracks: too many to sample", n, tracks);
		return false;
	}
	s->block_size = n * per_node;
	s->block = s->block_size ? rki_malloc(alloc, s->block_size) : NULL;
	if (!s->block) {
		rki_error_set(err, alloc->limit_hit ? RK_ERROR_LIMIT : RK_ERROR_OUT_OF_MEMORY,
			"cannot allocate the source sampler of %zu nodes", n);
		return false;
	}
	unsigned char *p = (unsigned char *)s->block;
	s->slot_of_node = (int32_t *)p, p += n * sizeof(int32_t);
	s->parent = (int32_t *)p, p += n * sizeof(int32_t);
	s->node = (uint32_t *)p;
	/* needed nodes: humanoid bones and their ancestors */
	for (size_t i = 0; i < n; i++) s->slot_of_node[i] = -1;
	for (int b = 0; b < RK_HUMANOID_BONE_COUNT; b++)
		for (const rk_node *x = h->bones[b]; x && s->slot_of_node[x->index] < 0; x = x->parent)
			s->slot_of_node[x->index] = 0;
	for (size_t i = 0; i < n; i++) {
		if (s->slot_of_node[i] < 0) continue;
		const rk_node *x = &scene->nodes.data[i];
		if (x->kind != RK_NODE_ROOT && !rk_adjust_transform_is_identity(&x->adjust)) return true;
		s->slot_of_node[i] = (int32_t)s->count;
		s->node[s->count] = (uint32_t)i;
		/* parents come first (validated) */
		s->parent[s->count] = x->parent ? s->slot_of_node[x->parent->index] : -1;
		s->count++;
	}
	s->block2_size = s->count * per_slot + tracks * sizeof(rki_src_track) + 64;
	s->block2 = rki_malloc(alloc, s->block2_size);
	if (!s->block2) {
		rki_error_set(err, alloc->limit_hit ? RK_ERROR_LIMIT : RK_ERROR_OUT_OF_MEMORY,
			"cannot allocate the source sampler of %zu nodes", s->count);
		return false;
	}
	p = (unsigned char *)s->block2;
	s->world = (rki_affine *)p, p += s->count * sizeof(rki_affine);
	s->local = (rk_trs *)p, p += RKI_SRC_BLOCK * s->count * sizeof(rk_trs);
	s->base = (rk_trs *)p, p += s->count * sizeof(rk_trs);
	s->track = (rki_src_track *)p, p += tracks * sizeof(rki_src_track);
	s->fbx = (rki_src_fbx *)p, p += s->count * sizeof(rki_src_fbx);
	s->field_set = p;
	memset(s->field_set, 0, s->count);
	for (size_t k = 0; k < s->count; k++) {
		const rk_node *x = &scene->nodes.data[s->node[k]];
		rki_src_fbx *f = &s->fbx[k];
		memset(f, 0, sizeof(*f));
		s->base[k] = x->local;
		if (!x->has_fbx_props || x->kind == RK_NODE_ROOT) continue;
		/* the evaluator's static values: Lcl Rotation stays in degrees */
		const rk_transform_props *pp = &x->props;
		s->base[k].translation = pp->translation;
		s->base[k].rotation = (rk_quat){ pp->rotation.x, pp->rotation.y, pp->rotation.z, 0.0 };
		s->base[k].scale = pp->scaling;
		f->on = true;
		f->active = pp->rotation_active;
		f->euler_order = (uint8_t)(pp->rotation_active ? pp->rotation_order : RK_ROTATION_XYZ);
		f->pre = rk_quat_from_euler_deg(pp->pre_rotation, RK_ROTATION_XYZ);
		f->post_conj = rk_quat_conjugate(rk_quat_from_euler_deg(pp->post_rotation, RK_ROTATION_XYZ));
		f->rotation_offset = pp->rotation_offset;
		f->rotation_pivot = pp->rotation_pivot;
		f->scaling_offset = pp->scaling_offset;
		f->scaling_pivot = pp->scaling_pivot;
		f->no_pivots = rki_v3_zero(pp->rotation_offset) && rki_v3_zero(pp->rotation_pivot) &&
			rki_v3_zero(pp->scaling_offset) && rki_v3_zero(pp->scaling_pivot);
	}
	/* every track sets its field outright (one layer, full weight), so only
	 * the last track on a node's field counts; a constant one goes into
	 * base once */
	for (size_t i = tracks; i-- > 0;) {
		const rk_anim_track *tr = &clip->layers[0].tracks[i];
		if (tr->node->kind == RK_NODE_ROOT) continue;   /* the root keeps the load conversion */
		int32_t slot = s->slot_of_node[tr->node->index];
		uint8_t kind = rki_apply_kind(tr);
		if (slot < 0 || kind == RKI_APPLY_NONE) continue;
		if (kind == RKI_APPLY_FULL) return true;   /* an animated pivot, offset, pre / post rotation */
		uint8_t field = kind == RKI_APPLY_T ? 1 : kind == RKI_APPLY_S ? 4 : 2;
		if (s->field_set[slot] & field) continue;   /* a later track sets it */
		s->field_set[slot] |= field;
		rki_src_track *st = &s->track[s->track_count++];
		st->track = tr;
		st->slot = (uint32_t)slot;
		st->kind = kind;
		st->order = (uint8_t)rki_src_lcl_order(&tr->node->props);
		st->sorted = rki_times_sorted(tr);
		st->hint = 0;
		memset(st->curve_hint, 0, sizeof(st->curve_hint));
		st->curves_sorted = rki_anim_curve_sorted(tr->curves[0]) && rki_anim_curve_sorted(tr->curves[1]) &&
			rki_anim_curve_sorted(tr->curves[2]) && rki_anim_curve_sorted(tr->curves[3]);
		st->direct = !tr->curves[0] && !tr->curves[1] && !tr->curves[2] && !tr->curves[3] && tr->key_count &&
			tr->times && rk_track_has_values(tr) && tr->interpolation != RK_INTERP_CUBIC &&
			((kind == RKI_APPLY_R_QUAT && tr->target == RK_TARGET_ROTATION_QUAT && tr->components == 4) ||
			((kind == RKI_APPLY_T || kind == RKI_APPLY_S) && tr->components == 3 &&
			(tr->target == RK_TARGET_TRANSLATION || tr->target == RK_TARGET_SCALE)));
		if (rki_track_constant(tr)) {
			rki_src_track_apply(st, s->base, clip->time_begin);
			s->track_count--;
		}
	}
	/* back in the clip's order */
	for (size_t a = 0, b = s->track_count; a + 1 < b; a++, b--) {
		rki_src_track t = s->track[a];
		s->track[a] = s->track[b - 1];
		s->track[b - 1] = t;
	}
	for (int b = 0; b < RK_HUMANOID_BONE_COUNT; b++) s->bone_slot[b] = h->bones[b] ? s->slot_of_node[h->bones[b]->index] : -1;
	if (!rki_src_inherit_ok(s, scene)) return true;
	s->fast = true;
	return true;
}

/* out = a * b (affine 3x4 blocks: 3x3 column-major, then translation), the
 * sums in rk_mat4_mul's order. */
RKI_HOT_INLINE void rki_affine_mul(const rki_affine *a, const rki_affine *b, rki_affine *out)
{
	/* written out: GCC -O2 kept the loops, and the c == 3 test in them */
	const double *x = a->m, *y = b->m;
	double *o = out->m;
	double a0 = x[0], a1 = x[1], a2 = x[2], a3 = x[3], a4 = x[4], a5 = x[5], a6 = x[6], a7 = x[7], a8 = x[8];
	double b0 = y[0], b1 = y[1], b2 = y[2];
	o[0] = a0 * b0 + a3 * b1 + a6 * b2, o[1] = a1 * b0 + a4 * b1 + a7 * b2, o[2] = a2 * b0 + a5 * b1 + a8 * b2;
	b0 = y[3], b1 = y[4], b2 = y[5];
	o[3] = a0 * b0 + a3 * b1 + a6 * b2, o[4] = a1 * b0 + a4 * b1 + a7 * b2, o[5] = a2 * b0 + a5 * b1 + a8 * b2;
	b0 = y[6], b1 = y[7], b2 = y[8];
	o[6] = a0 * b0 + a3 * b1 + a6 * b2, o[7] = a1 * b0 + a4 * b1 + a7 * b2, o[8] = a2 * b0 + a5 * b1 + a8 * b2;
	b0 = y[9], b1 = y[10], b2 = y[11];
	o[9] = a0 * b0 + a3 * b1 + a6 * b2 + x[9], o[10] = a1 * b0 + a4 * b1 + a7 * b2 + x[10];
	o[11] = a2 * b0 + a5 * b1 + a8 * b2 + x[11];
}

RKI_HOT_INLINE void rki_affine_from_trs(const rk_trs *t, rki_affine *out)
{
	rk_quat q = t->rotation;
	double xx = q.x * q.x, yy = q.y * q.y, zz = q.z * q.z;
	double xy = q.x * q.y, xz = q.x * q.z, yz = q.y * q.z;
	double wx = q.w * q.x, wy = q.w * q.y, wz = q.w * q.z;
	double sx = t->scale.x, sy = t->scale.y, sz = t->scale.z;
	out->m[0] = (1 - 2 * (yy + zz)) * sx, out->m[1] = 2 * (xy + wz) * sx, out->m[2] = 2 * (xz - wy) * sx;
	out->m[3] = 2 * (xy - wz) * sy, out->m[4] = (1 - 2 * (xx + zz)) * sy, out->m[5] = 2 * (yz + wx) * sy;
	out->m[6] = 2 * (xz + wy) * sz, out->m[7] = 2 * (yz - wx) * sz, out->m[8] = (1 - 2 * (xx + yy)) * sz;
	out->m[9] = t->translation.x, out->m[10] = t->translation.y, out->m[11] = t->translation.z;
}

static void rki_aff_translate(rki_affine *m, rk_vec3 t, double sign)
{
	if (rki_v3_zero(t)) return;
	m->m[9] += sign * t.x;
	m->m[10] += sign * t.y;
	m->m[11] += sign * t.z;
}

/* rk_fbx_node_to_parent (identity load adjustment) of an FBX node whose
 * Lcl values are in l (Lcl Rotation degrees in rotation.x/y/z): the same
 * steps, right to left, on the 3x4 block. */
static void rki_src_fbx_ntp(const rki_src_fbx *f, const rk_node *n, const rk_trs *l, rki_affine *out)
{
	rk_vec3 t = l->translation, e = { l->rotation.x, l->rotation.y, l->rotation.z }, sc = l->scale;
	if (n->has_limits) {
		rk_transform_props p = n->props;
		p.translation = t;
		p.rotation = e;
		p.scaling = sc;
		rk_transform_limits_apply(&n->limits, &p);
		t = p.translation, e = p.rotation, sc = p.scaling;
	}
	/* rk_fbx_local_rotation */
	rk_quat q = rk_quat_from_euler_deg(e, (rk_rotation_order)f->euler_order);
	if (f->active) q = rki_qnorm_exact(rki_qmul(f->pre, rki_qmul(q, f->post_conj)));
	rki_affine r;
	rki_affine_from_trs(&(rk_trs){ { 0, 0, 0 }, q, { 1, 1, 1 } }, &r);   /* rk_mat4_rotation's entries */
	if (f->no_pivots && sc.x == 1.0 && sc.y == 1.0 && sc.z == 1.0) {
		/* the rotation alone, then the translation (the steps below multiply
		 * by ones and add zeros) */
		*out = r;
		out->m[9] = t.x, out->m[10] = t.y, out->m[11] = t.z;
		return;
	}
	rki_affine m = { { 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0 } };
	rki_aff_translate(&m, f->scaling_pivot, -1.0);
	if (!(sc.x == 1.0 && sc.y == 1.0 && sc.z == 1.0))
		for (int c = 0; c < 4; c++) m.m[c * 3] *= sc.x, m.m[c * 3 + 1] *= sc.y, m.m[c * 3 + 2] *= sc.z;
	rki_aff_translate(&m, f->scaling_pivot, 1.0);
	rki_aff_translate(&m, f->scaling_offset, 1.0);
	rki_aff_translate(&m, f->rotation_pivot, -1.0);
	for (int c = 0; c < 4; c++) {
		double x = m.m[c * 3], y = m.m[c * 3 + 1], z = m.m[c * 3 + 2];
		for (int row = 0; row < 3; row++) out->m[c * 3 + row] = r.m[row] * x + r.m[3 + row] * y + r.m[6 + row] * z;
	}
	rki_aff_translate(out, f->rotation_pivot, 1.0);
	rki_aff_translate(out, f->rotation_offset, 1.0);
	rki_aff_translate(out, t, 1.0);
}

/* rki_matrix_rotation of the block's 3x3 (Gram-Schmidt on the columns). */
static rk_quat rki_affine_rotation(const rki_affine *a)
{
	rk_vec3 x = rki_v3norm((rk_vec3){ a->m[0], a->m[1], a->m[2] });
	rk_vec3 y = { a->m[3], a->m[4], a->m[5] };
	double d = x.x * y.x + x.y * y.y + x.z * y.z;
	y = rki_v3norm((rk_vec3){ y.x - x.x * d, y.y - x.y * d, y.z - x.z * d });
	rk_vec3 z = { x.y * y.z - x.z * y.y, x.z * y.x - x.x * y.z, x.x * y.y - x.y * y.x };
	double r[3][3] = { { x.x, y.x, z.x }, { x.y, y.y, z.y }, { x.z, y.z, z.z } };
	return rki_quat_from_m3(r);
}

/* The local TRS of frames first .. first + RKI_SRC_BLOCK - 1 (as far as
 * there are frames), track by track: a track's keys are read in order
 * instead of one key of every track per frame (the clip's keys are more
 * than the caches hold; a frame at a time missed them at every track). */
static void rki_src_fill_block(rki_src_sampler *s, size_t first)
{
	size_t count = s->frames - first < RKI_SRC_BLOCK ? s->frames - first : RKI_SRC_BLOCK;
	for (size_t j = 0; j < count; j++) memcpy(s->local + j * s->count, s->base, s->count * sizeof(rk_trs));
	for (size_t i = 0; i < s->track_count; i++) {
		rki_src_track *st = &s->track[i];
		if (st->direct) {
			for (size_t j = 0; j < count; j++)
				rki_src_track_direct(st, s->local + j * s->count, s->time_offset + s->times[first + j]);
		} else {
			for (size_t j = 0; j < count; j++)
				rki_src_track_general(st, s->local + j * s->count, s->time_offset + s->times[first + j]);
		}
	}
	s->block_first = first;
	s->block_count = count;
}

void rki_src_sampler_set_times(rki_src_sampler *s, const double *times, size_t frames, double offset)
{
	s->times = times;
	s->frames = frames;
	s->time_offset = offset;
	s->block_count = 0;
}

void rki_src_sampler_pose(rki_src_sampler *s, const rk_scene *scene, size_t frame, const rki_char_frame *f,
	rki_humanoid_pose *out)
{
	if (frame < s->block_first || frame >= s->block_first + s->block_count) rki_src_fill_block(s, frame);
	const rk_trs *local = s->local + (frame - s->block_first) * s->count;
	for (size_t k = 0; k < s->count; k++) {
		const rk_node *n = &scene->nodes.data[s->node[k]];
		rki_affine ntp;
		if (n->kind == RK_NODE_ROOT) {
			const double *m = n->node_to_parent.m;
			bool id = m[15] == 0.0;
			for (int c = 0; c < 4; c++)
				for (int r = 0; r < 3; r++) ntp.m[c * 3 + r] = id ? (c == r ? 1.0 : 0.0) : m[c * 4 + r];
		} else if (s->fbx[k].on) {
			rki_src_fbx_ntp(&s->fbx[k], n, &local[k], &ntp);
		} else {
			rki_affine_from_trs(&local[k], &ntp);
		}
		if (s->parent[k] >= 0) rki_affine_mul(&s->world[s->parent[k]], &ntp, &s->world[k]);
		else s->world[k] = ntp;
	}
	rk_quat fr = f->rotation;
	double inv_unit = 1.0 / f->unit;
	for (int b = 0; b < RK_HUMANOID_BONE_COUNT; b++) {
		int32_t slot = s->bone_slot[b];
		if (slot < 0) {
			out->position[b] = (rk_vec3){ 0, 0, 0 };
			out->rotation[b] = RK_QUAT_IDENTITY;
			continue;
		}
		const rki_affine *w = &s->world[slot];
		/* rki_char_point */
		rk_vec3 cp = rki_qrot(fr, rki_v3sub((rk_vec3){ w->m[9], w->m[10], w->m[11] }, f->origin));
		out->position[b] = (rk_vec3){ cp.x * inv_unit, cp.y * inv_unit, cp.z * inv_unit };
		/* a product of unit quaternions (to rounding): rki_humanoid_pose_from
		 * normalises it again, which moves it by an ulp */
		out->rotation[b] = rki_qmul(fr, rki_affine_rotation(w));
	}
}
