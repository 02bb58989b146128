/* src/anim/anim_eval.c - pose evaluation job (see rigkit/anim.h, POSE EVALUATION). */
#include "anim_internal.h"
#include "core/internal.h"

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* ---- pose memory -------------------------------------------------------------- */

size_t rk_pose_blend_layout(const rk_scene *scene, size_t *offsets)
{
	if (!scene || !scene->nodes.data) return 0;
	size_t total = 0;
	for (size_t i = 0; i < scene->nodes.count; i++) {
		if (offsets) offsets[i] = total;
		const rk_mesh *mesh = scene->nodes.data[i].mesh;
		if (mesh) total += mesh->blend_channels.count;
	}
	return total;
}

#define RKI_POSE_ALIGN 16u

/* Adds count * elem bytes (rounded up to the alignment) to *total. */
static bool rki_pose_add(size_t *total, size_t count, size_t elem)
{
	size_t bytes;
	if (!rki_mul_size(count, elem, &bytes)) return false;
	if (!rki_add_size(bytes, RKI_POSE_ALIGN - 1, &bytes)) return false;
	bytes &= ~(size_t)(RKI_POSE_ALIGN - 1);
	return rki_add_size(*total, bytes, total);
}

size_t rk_pose_memory_size(const rk_scene *scene)
{
	if (!scene) return 0;
	size_t n = scene->nodes.count;
	size_t total = RKI_POSE_ALIGN; /* slack to align the caller's block */
	bool ok = rki_pose_add(&total, n, sizeof(rk_transform_props))
		&& rki_pose_add(&total, n, sizeof(rk_trs))
		&& rki_pose_add(&total, n, sizeof(rk_mat4))      /* node_to_parent */
		&& rki_pose_add(&total, n, sizeof(rk_mat4))      /* node_to_world */
		&& rki_pose_add(&total, n, sizeof(rk_mat4))      /* unscaled_node_to_world */
		&& rki_pose_add(&total, n, sizeof(rk_vec3))      /* inherit_scale */
		&& rki_pose_add(&total, n, sizeof(rk_mat4))      /* geometry_to_node */
		&& rki_pose_add(&total, n, sizeof(rk_mat4))      /* geometry_to_world */
		&& rki_pose_add(&total, n, sizeof(size_t))       /* blend_offsets */
		&& rki_pose_add(&total, rk_pose_blend_layout(scene, NULL), sizeof(double));
	return ok ? total : 0;
}

static void *rki_pose_take(unsigned char **cursor, size_t count, size_t elem)
{
	void *p = *cursor;
	size_t bytes = (count * elem + RKI_POSE_ALIGN - 1) & ~(size_t)(RKI_POSE_ALIGN - 1);
	*cursor += bytes;
	return p;
}

bool rk_pose_init(rk_pose *pose, const rk_scene *scene, void *memory, size_t size)
{
	if (!pose) return false;
	memset(pose, 0, sizeof(*pose));
	if (!scene || !memory) return false;
	size_t need = rk_pose_memory_size(scene);
	if (need == 0 || size < need) return false;
	size_t n = scene->nodes.count;
	uintptr_t addr = (uintptr_t)memory;
	size_t pad = (RKI_POSE_ALIGN - (addr & (RKI_POSE_ALIGN - 1))) & (RKI_POSE_ALIGN - 1);
	unsigned char *cur = (unsigned char *)memory + pad;
	pose->node_count = n;
	pose->props = (rk_transform_props *)rki_pose_take(&cur, n, sizeof(rk_transform_props));
	pose->local = (rk_trs *)rki_pose_take(&cur, n, sizeof(rk_trs));
	pose->node_to_parent = (rk_mat4 *)rki_pose_take(&cur, n, sizeof(rk_mat4));
	pose->node_to_world = (rk_mat4 *)rki_pose_take(&cur, n, sizeof(rk_mat4));
	pose->unscaled_node_to_world = (rk_mat4 *)rki_pose_take(&cur, n, sizeof(rk_mat4));
	pose->inherit_scale = (rk_vec3 *)rki_pose_take(&cur, n, sizeof(rk_vec3));
	pose->geometry_to_node = (rk_mat4 *)rki_pose_take(&cur, n, sizeof(rk_mat4));
	pose->geometry_to_world = (rk_mat4 *)rki_pose_take(&cur, n, sizeof(rk_mat4));
	pose->blend_offsets = (size_t *)rki_pose_take(&cur, n, sizeof(size_t));
	pose->blend_weight_count = rk_pose_blend_layout(scene, pose->blend_offsets);
	pose->blend_weights = (double *)rki_pose_take(&cur, pose->blend_weight_count, sizeof(double));
	return true;
}

/* ---- validation --------------------------------------------------------------- */

static bool rki_node_in_scene(const rk_scene *s, const rk_node *n)
{
	return n && n->index < s->nodes.count && &s->nodes.data[n->index] == n;
}

static bool rki_fail(rk_error *err, const char *fmt, ...) RKI_PRINTF(2, 3);
static bool rki_fail(rk_error *err, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	rki_error_setv(err, RK_ERROR_INVALID_ARGUMENT, fmt, ap);
	va_end(ap);
	return false;
}

static bool rki_check_curve(const rk_anim_curve *c)
{
	return c->key_count == 0 || (c->times && c->values);
}

static bool rki_check_track(const rk_scene *s, const rk_anim_track *tr, size_t li, size_t ti, rk_error *err)
{
	if (!rki_node_in_scene(s, tr->node))
		return rki_fail(err, "rk_pose_eval: clip layer %zu track %zu: node is not a node of this scene", li, ti);
	if ((unsigned)tr->target > (unsigned)RK_TARGET_FBX_PROPERTY)
		return rki_fail(err, "rk_pose_eval: clip layer %zu track %zu: unknown target %d", li, ti, (int)tr->target);
	if (rki_anim_track_is_sampled(tr)) {
		if (!tr->times || !rk_track_has_values(tr))
			return rki_fail(err, "rk_pose_eval: clip layer %zu track %zu: %zu keys but no times/values", li, ti, tr->key_count);
		if ((unsigned)tr->interpolation > (unsigned)RK_INTERP_CUBIC)
			return rki_fail(err, "rk_pose_eval: clip layer %zu track %zu: unknown interpolation %d", li, ti, (int)tr->interpolation);
		uint32_t c = tr->components;
		bool ok;
		switch (tr->target) {
		case RK_TARGET_TRANSLATION:
		case RK_TARGET_ROTATION_EULER:
		case RK_TARGET_SCALE: ok = c == 3; break;
		case RK_TARGET_ROTATION_QUAT: ok = c == 4; break;
		case RK_TARGET_FBX_PROPERTY: ok = c >= 1 && c <= 4; break;
		default: ok = c >= 1; break;
		}
		if (!ok)
			return rki_fail(err, "rk_pose_eval: clip layer %zu track %zu: %u components do not fit its target", li, ti, (unsigned)c);
	} else {
		for (int k = 0; k < 4; k++)
			if (tr->curves[k] && !rki_check_curve(tr->curves[k]))
				return rki_fail(err, "rk_pose_eval: clip layer %zu track %zu: curve %d has keys but no times/values", li, ti, k);
	}
	return true;
}

bool rk_pose_eval_validate(const rk_pose_eval_job *job, rk_error *err)
{
	rki_error_clear(err);
	if (!job) return rki_fail(err, "rk_pose_eval: job is NULL");
	const rk_scene *s = job->scene;
	if (!s) return rki_fail(err, "rk_pose_eval: job->scene is NULL");
	if (!s->nodes.data || s->nodes.count == 0) return rki_fail(err, "rk_pose_eval: the scene has no nodes");
	for (size_t i = 0; i < s->nodes.count; i++) {
		const rk_node *n = &s->nodes.data[i];
		if (n->index != i) return rki_fail(err, "rk_pose_eval: node %zu has index %u", i, (unsigned)n->index);
		if (n->parent && (!rki_node_in_scene(s, n->parent) || n->parent->index >= i))
			return rki_fail(err, "rk_pose_eval: node %zu: parent is not an earlier node of the scene", i);
	}
	const rk_pose *p = job->pose;
	if (!p) return rki_fail(err, "rk_pose_eval: job->pose is NULL");
	if (p->node_count != s->nodes.count)
		return rki_fail(err, "rk_pose_eval: pose->node_count is %zu, the scene has %zu nodes", p->node_count, s->nodes.count);
	if (!p->props) return rki_fail(err, "rk_pose_eval: pose->props is NULL");
	if (!p->local) return rki_fail(err, "rk_pose_eval: pose->local is NULL");
	if (!p->node_to_parent) return rki_fail(err, "rk_pose_eval: pose->node_to_parent is NULL");
	if (!p->node_to_world) return rki_fail(err, "rk_pose_eval: pose->node_to_world is NULL");
	if (!p->unscaled_node_to_world) return rki_fail(err, "rk_pose_eval: pose->unscaled_node_to_world is NULL");
	if (!p->inherit_scale) return rki_fail(err, "rk_pose_eval: pose->inherit_scale is NULL");
	if (!p->geometry_to_node) return rki_fail(err, "rk_pose_eval: pose->geometry_to_node is NULL");
	if (!p->geometry_to_world) return rki_fail(err, "rk_pose_eval: pose->geometry_to_world is NULL");
	if (p->blend_weights) {
		if (!p->blend_offsets) return rki_fail(err, "rk_pose_eval: pose->blend_weights without pose->blend_offsets");
		for (size_t i = 0; i < s->nodes.count; i++) {
			const rk_mesh *m = s->nodes.data[i].mesh;
			size_t cc = m ? m->blend_channels.count : 0;
			if (cc && (p->blend_offsets[i] > p->blend_weight_count || cc > p->blend_weight_count - p->blend_offsets[i]))
				return rki_fail(err, "rk_pose_eval: node %zu: blend weights %zu..%zu exceed blend_weight_count %zu",
					i, p->blend_offsets[i], p->blend_offsets[i] + cc, p->blend_weight_count);
		}
	}
	if (!isfinite(job->time)) return rki_fail(err, "rk_pose_eval: time is not finite");
	const rk_anim_clip *clip = job->clip;
	if (clip) {
		if (clip->layer_count && !clip->layers) return rki_fail(err, "rk_pose_eval: clip has %zu layers but no array", clip->layer_count);
		for (size_t li = 0; li < clip->layer_count; li++) {
			const rk_anim_layer *l = &clip->layers[li];
			if (l->track_count && !l->tracks) return rki_fail(err, "rk_pose_eval: clip layer %zu has %zu tracks but no array", li, l->track_count);
			for (size_t ti = 0; ti < l->track_count; ti++)
				if (!rki_check_track(s, &l->tracks[ti], li, ti, err)) return false;
		}
	}
	return true;
}

/* ---- layer blending ------------------------------------------------------------- */

typedef struct rki_layer_mode {
	double weight;         /* 0..1 */
	bool assign;           /* full-weight override: plain assignment */
	bool additive;
	bool rot_by_component;
	bool scale_multiply;
} rki_layer_mode;

static double rki_blend_scalar(double base, double v, const rki_layer_mode *m)
{
	if (m->assign) return v;
	if (m->additive) return base + m->weight * v;
	return base + (v - base) * m->weight;
}

static rk_vec3 rki_blend_vec3(rk_vec3 base, rk_vec3 v, const rki_layer_mode *m)
{
	return (rk_vec3){ rki_blend_scalar(base.x, v.x, m), rki_blend_scalar(base.y, v.y, m), rki_blend_scalar(base.z, v.z, m) };
}

static double rki_blend_scale1(double base, double v, const rki_layer_mode *m)
{
	if (m->assign) return v;
	if (!m->additive) return base + (v - base) * m->weight;
	if (m->scale_multiply) return v > 0.0 ? base * pow(v, m->weight) : base * (1.0 + m->weight * (v - 1.0));
	return base + m->weight * v;   /* FBX ScaleAccumulationMode additive, as the SDK evaluates it */
}

static rk_vec3 rki_blend_scale(rk_vec3 base, rk_vec3 v, const rki_layer_mode *m)
{
	return (rk_vec3){ rki_blend_scale1(base.x, v.x, m), rki_blend_scale1(base.y, v.y, m), rki_blend_scale1(base.z, v.z, m) };
}

static rk_quat rki_blend_quat(rk_quat base, rk_quat v, const rki_layer_mode *m)
{
	if (m->assign) return v;
	if (m->additive) return rk_quat_normalize(rk_quat_mul(base, rk_quat_slerp(RK_QUAT_IDENTITY, v, m->weight)));
	return rk_quat_slerp(base, v, m->weight);
}

static rk_vec3 rki_blend_euler(rk_vec3 base, rk_vec3 v, const rki_layer_mode *m, rk_rotation_order order)
{
	if (m->assign) return v;
	if (m->rot_by_component) return rki_blend_vec3(base, v, m);
	rk_quat q = rki_blend_quat(rk_quat_from_euler_deg(base, order), rk_quat_from_euler_deg(v, order), m);
	return rk_quat_to_euler_deg(q, order);
}

static rk_rotation_order rki_lcl_order(const rk_transform_props *p)
{
	if (!p->rotation_active || p->rotation_order == RK_ROTATION_SPHERIC_XYZ) return RK_ROTATION_XYZ;
	return p->rotation_order;
}

/* ---- applying tracks ------------------------------------------------------------- */

typedef enum rki_field_kind { RKI_FIELD_VECTOR, RKI_FIELD_EULER_LCL, RKI_FIELD_EULER_XYZ, RKI_FIELD_SCALE } rki_field_kind;

typedef struct rki_fbx_field {
	const char *name;
	size_t offset;
	rki_field_kind kind;
} rki_fbx_field;

static const rki_fbx_field rki_fbx_fields[] = {
	{ "Lcl Translation", offsetof(rk_transform_props, translation), RKI_FIELD_VECTOR },
	{ "Lcl Rotation", offsetof(rk_transform_props, rotation), RKI_FIELD_EULER_LCL },
	{ "Lcl Scaling", offsetof(rk_transform_props, scaling), RKI_FIELD_SCALE },
	{ "RotationOffset", offsetof(rk_transform_props, rotation_offset), RKI_FIELD_VECTOR },
	{ "RotationPivot", offsetof(rk_transform_props, rotation_pivot), RKI_FIELD_VECTOR },
	{ "ScalingOffset", offsetof(rk_transform_props, scaling_offset), RKI_FIELD_VECTOR },
	{ "ScalingPivot", offsetof(rk_transform_props, scaling_pivot), RKI_FIELD_VECTOR },
	{ "PreRotation", offsetof(rk_transform_props, pre_rotation), RKI_FIELD_EULER_XYZ },
	{ "PostRotation", offsetof(rk_transform_props, post_rotation), RKI_FIELD_EULER_XYZ },
	{ "GeometricTranslation", offsetof(rk_transform_props, geometric_translation), RKI_FIELD_VECTOR },
	{ "GeometricRotation", offsetof(rk_transform_props, geometric_rotation), RKI_FIELD_EULER_XYZ },
	{ "GeometricScaling", offsetof(rk_transform_props, geometric_scaling), RKI_FIELD_SCALE },
};

static void rki_apply_fbx_field(rk_transform_props *p, size_t offset, rki_field_kind kind, rk_vec3 v, const rki_layer_mode *m)
{
	rk_vec3 *f = (rk_vec3 *)((unsigned char *)p + offset);
	switch (kind) {
	case RKI_FIELD_VECTOR: *f = rki_blend_vec3(*f, v, m); break;
	case RKI_FIELD_SCALE: *f = rki_blend_scale(*f, v, m); break;
	case RKI_FIELD_EULER_LCL: *f = rki_blend_euler(*f, v, m, rki_lcl_order(p)); break;
	case RKI_FIELD_EULER_XYZ: *f = rki_blend_euler(*f, v, m, RK_ROTATION_XYZ); break;
	}
}

static void rki_apply_morph(const rk_anim_track *tr, const rk_node *node, rk_pose *pose, double time, bool noex,
	const rki_layer_mode *m)
{
	if (!pose->blend_weights || !node->mesh) return;
	size_t count = node->mesh->blend_channels.count;
	double *w = pose->blend_weights + pose->blend_offsets[node->index];
	if (rki_anim_track_is_sampled(tr)) {
		size_t n = tr->components < count ? tr->components : count;
		for (size_t k = 0; k < n; k++) w[k] = rki_blend_scalar(w[k], rki_anim_sample_component(tr, time, (uint32_t)k), m);
		return;
	}
	if (tr->morph_channel >= count) return;
	double percent = tr->curves[0] ? rk_anim_curve_eval(tr->curves[0], time, noex) : tr->default_value[0];
	w[tr->morph_channel] = rki_blend_scalar(w[tr->morph_channel], percent / 100.0, m);
}

static void rki_apply_track(const rk_anim_track *tr, rk_pose *pose, double time, bool noex, const rki_layer_mode *m)
{
	const rk_node *node = tr->node;
	size_t ni = node->index;
	if (node->kind == RK_NODE_ROOT && tr->target != RK_TARGET_MORPH_WEIGHTS) return; /* the root keeps the load conversion */
	if (tr->target == RK_TARGET_MORPH_WEIGHTS) {
		rki_apply_morph(tr, node, pose, time, noex, m);
		return;
	}
	double v[4] = { 0.0, 0.0, 0.0, 0.0 };
	rk_anim_track_eval(tr, time, noex, v, 4);
	rk_vec3 v3 = { v[0], v[1], v[2] };
	rk_transform_props *p = &pose->props[ni];
	rk_trs *l = &pose->local[ni];
	bool fbx = node->has_fbx_props;
	switch (tr->target) {
	case RK_TARGET_TRANSLATION:
		if (fbx) p->translation = rki_blend_vec3(p->translation, v3, m);
		else l->translation = rki_blend_vec3(l->translation, v3, m);
		break;
	case RK_TARGET_ROTATION_EULER:
		if (fbx) p->rotation = rki_blend_euler(p->rotation, v3, m, rki_lcl_order(p));
		else l->rotation = rki_blend_quat(l->rotation, rk_quat_from_euler_deg(v3, RK_ROTATION_XYZ), m);
		break;
	case RK_TARGET_ROTATION_QUAT: {
		rk_quat q = rk_quat_normalize((rk_quat){ v[0], v[1], v[2], v[3] });
		if (fbx) p->rotation = rki_blend_euler(p->rotation, rk_quat_to_euler_deg(q, rki_lcl_order(p)), m, rki_lcl_order(p));
		else l->rotation = rki_blend_quat(l->rotation, q, m);
		break;
	}
	case RK_TARGET_SCALE:
		if (fbx) p->scaling = rki_blend_scale(p->scaling, v3, m);
		else l->scale = rki_blend_scale(l->scale, v3, m);
		break;
	case RK_TARGET_FBX_PROPERTY: {
		const char *name = tr->property ? tr->property : "";
		for (size_t k = 0; k < sizeof(rki_fbx_fields) / sizeof(rki_fbx_fields[0]); k++) {
			if (strcmp(name, rki_fbx_fields[k].name) != 0) continue;
			if (fbx) {
				rki_apply_fbx_field(p, rki_fbx_fields[k].offset, rki_fbx_fields[k].kind, v3, m);
			} else if (k == 0) {
				l->translation = rki_blend_vec3(l->translation, v3, m);
			} else if (k == 1) {
				l->rotation = rki_blend_quat(l->rotation, rk_quat_from_euler_deg(v3, RK_ROTATION_XYZ), m);
			} else if (k == 2) {
				l->scale = rki_blend_scale(l->scale, v3, m);
			}
			break;
		}
		break;
	}
	default:
		break;
	}
}

/* ---- matrices --------------------------------------------------------------------- */

/* node_to_parent of n from the pose's props (FBX) or local TRS. */
static rk_mat4 rki_node_to_parent(const rk_node *n, const rk_pose *pose)
{
	size_t i = n->index;
	if (n->kind == RK_NODE_ROOT) {
		rk_mat4 ntp = n->node_to_parent;
		return ntp.m[15] == 0.0 ? rk_mat4_identity() : ntp;
	}
	if (n->has_fbx_props) return rk_fbx_node_to_parent(&pose->props[i], &n->adjust);
	return rk_adjust_transform_apply(rk_mat4_from_trs(pose->local[i]), &n->adjust);
}

static void rki_node_matrices(const rk_node *n, rk_pose *pose)
{
	size_t i = n->index;
	rk_mat4 ntp = rki_node_to_parent(n, pose), g2n;
	if (n->kind == RK_NODE_ROOT) {
		g2n = rk_mat4_identity();
	} else if (n->has_fbx_props) {
		g2n = rk_fbx_geometry_to_node(&pose->props[i]);
		pose->local[i] = rk_mat4_decompose(ntp);
	} else {
		g2n = rk_mat4_identity();
	}
	rk_world_transform w;
	if (n->parent) {
		size_t pi = n->parent->index;
		rk_world_transform pw = { pose->node_to_world[pi], pose->unscaled_node_to_world[pi], pose->inherit_scale[pi] };
		rk_vec3 pls = n->parent->has_fbx_props ? pose->props[pi].scaling : pose->local[pi].scale;
		rk_inherit_mode mode = n->has_fbx_props ? pose->props[i].inherit_mode : RK_INHERIT_NORMAL;
		w = rk_world_transform_compose(&pw, pls, ntp, mode);
	} else {
		w = rk_world_transform_compose(NULL, (rk_vec3){ 1, 1, 1 }, ntp, RK_INHERIT_NORMAL);
	}
	pose->node_to_parent[i] = ntp;
	pose->geometry_to_node[i] = g2n;
	pose->node_to_world[i] = w.node_to_world;
	pose->unscaled_node_to_world[i] = w.unscaled_node_to_world;
	pose->inherit_scale[i] = w.inherit_scale;
	pose->geometry_to_world[i] = rk_mat4_mul(w.node_to_world, g2n);
}

/* ---- the job ---------------------------------------------------------------------- */

/* Step 1 for node n: its static values. */
static void rki_node_static(const rk_node *n, rk_pose *pose)
{
	size_t i = n->index;
	pose->props[i] = n->props;
	pose->local[i] = n->local;
	if (pose->blend_weights && n->mesh) {
		double *w = pose->blend_weights + pose->blend_offsets[i];
		const rk_blend_channel_list *ch = &n->mesh->blend_channels;
		for (size_t c = 0; c < ch->count; c++)
			w[c] = n->blend_weights ? n->blend_weights[c] : ch->data[c].default_weight;
	}
}

/* Step 2: the clip's tracks, layer by layer (only those on nodes with
 * in_set[index] set when in_set is not NULL). */
static void rki_apply_clip(const rk_pose_eval_job *job, const uint8_t *in_set)
{
	const rk_anim_clip *clip = job->clip;
	for (size_t li = 0; clip && li < clip->layer_count; li++) {
		const rk_anim_layer *layer = &clip->layers[li];
		rki_layer_mode m;
		double w = layer->weight;
		if (!(w > 0.0)) w = 0.0;
		if (w > 1.0) w = 1.0;
		if (li == 0) w = 1.0;
		if (w == 0.0) continue;
		m.weight = w;
		m.additive = li > 0 && layer->blend == RK_LAYER_ADDITIVE;
		m.assign = !m.additive && w == 1.0;
		m.rot_by_component = layer->rotation_accumulate_by_component;
		m.scale_multiply = layer->scale_accumulate_multiply;
		for (size_t ti = 0; ti < layer->track_count; ti++) {
			const rk_anim_track *tr = &layer->tracks[ti];
			if (in_set && !in_set[tr->node->index]) continue;
			rki_apply_track(tr, job->pose, job->time, job->no_extrapolation, &m);
		}
	}
}

bool rk_pose_eval_run(const rk_pose_eval_job *job)
{
	if (!rk_pose_eval_validate(job, NULL)) return false;
	const rk_scene *s = job->scene;
	rk_pose *pose = job->pose;
	size_t count = s->nodes.count;

	/* 1. static values */
	for (size_t i = 0; i < count; i++) rki_node_static(&s->nodes.data[i], pose);

	/* 2. tracks, layer by layer */
	const rk_anim_clip *clip = job->clip;
	rki_apply_clip(job, NULL);

	/* FBX transform limits clamp the evaluated Lcl values (as the SDK does). */
	for (size_t i = 0; clip && i < count; i++)
		if (s->nodes.data[i].has_limits && s->nodes.data[i].has_fbx_props)
			rk_transform_limits_apply(&s->nodes.data[i].limits, &pose->props[i]);

	/* 3. matrices, parents first */
	for (size_t i = 0; i < count; i++) rki_node_matrices(&s->nodes.data[i], pose);
	return true;
}

void rki_pose_eval_nodes(const rk_pose_eval_job *job, const uint32_t *nodes, size_t count, const uint8_t *in_set)
{
	const rk_scene *s = job->scene;
	rk_pose *pose = job->pose;
	for (size_t q = 0; q < count; q++) rki_node_static(&s->nodes.data[nodes[q]], pose);
	rki_apply_clip(job, in_set);
	for (size_t q = 0; q < count; q++) {
		const rk_node *n = &s->nodes.data[nodes[q]];
		if (job->clip && n->has_limits && n->has_fbx_props) rk_transform_limits_apply(&n->limits, &pose->props[n->index]);
		pose->node_to_parent[n->index] = rki_node_to_parent(n, pose);
	}
}
