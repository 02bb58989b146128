/*
 * src/retarget/retarget_expr.c - rk_retarget_expressions: the expression
 * tracks of a VRM Animation source (VRMC_vrm_animation.expressions) turned
 * into morph target weight tracks on a VRM avatar (VRMC_vrm.expressions or
 * VRM 0.x blendShapeMaster), the rule in rigkit/retarget.h (EXPRESSIONS),
 * and its look-at track into eye bone rotations (LOOK-AT, VRM 1.0 bone
 * look-at).
 *
 * Reads only the kept extension trees (scene->extensions, resolved node and
 * mesh references) and the source clip's translation tracks; knows no file
 * format.
 *
 * RESTRICTIONS
 *   Morph target binds only: materialColorBinds and textureTransformBinds
 *   (colour / UV changes) have no counterpart in the scene model and are
 *   not applied. Only the source clip's first layer is read (glTF clips have
 *   one). Look-at: "bone" type only (VRM 1.0 lookAt.type "bone", VRM 0.x
 *   firstPerson.lookAtTypeName "Bone"; no expression / BlendShape look-at);
 *   VRM 0.x degree-map curves are read as linear (as three-vrm does) with a
 *   warning; a VRM 1.0 avatar faces +Z, a 0.x one -Z.
 */
#include "retarget/retarget_internal.h"
#include "scene/scene_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define RKI_XPI 3.14159265358979323846

enum { RKI_OV_NONE = 0, RKI_OV_BLOCK, RKI_OV_BLEND };
enum { RKI_CAT_BLINK = 1, RKI_CAT_LOOKAT = 2, RKI_CAT_MOUTH = 4 };

typedef struct rki_xbind {
	uint32_t node;                   /* rk_node.index of a node with a mesh */
	uint32_t channel;                /* blend channel (morph target) index */
	double weight;                   /* 0..1 (0.x: file weight / 100) */
} rki_xbind;

typedef struct rki_xexpr {
	const char *name;
	bool binary;
	int override_blink, override_lookat, override_mouth;
	int category;
	size_t bind_begin, bind_count;
	const rk_anim_track *track;      /* the source's weight track, NULL = not animated */
	double weight;                   /* per frame: output weight (isBinary applied) */
} rki_xexpr;

static bool rki_ext_is_string(const rk_ext_value *v, const char *s)
{
	return v && v->kind == RK_EXT_STRING && v->string && strcmp(v->string, s) == 0;
}

static double rki_ext_number(const rk_ext_value *v, double fallback)
{
	return v && (v->kind == RK_EXT_NUMBER || v->kind == RK_EXT_BOOL) && isfinite(v->number) ? v->number : fallback;
}

static int rki_override(const rk_ext_value *v)
{
	return rki_ext_is_string(v, "block") ? RKI_OV_BLOCK : rki_ext_is_string(v, "blend") ? RKI_OV_BLEND : RKI_OV_NONE;
}

static const char *const rki_presets[] = { "happy", "angry", "sad", "relaxed", "surprised", "aa", "ih", "ou", "ee",
	"oh", "blink", "blinkLeft", "blinkRight", "lookUp", "lookDown", "lookLeft", "lookRight", "neutral" };

static bool rki_is_preset(const char *name)
{
	for (size_t i = 0; i < sizeof(rki_presets) / sizeof(rki_presets[0]); i++)
		if (strcmp(rki_presets[i], name) == 0) return true;
	return false;
}

/* VRM 0.x presetName -> VRM 1.0 expression name (NULL: not a preset). */
static const char *rki_v0_preset(const rk_ext_value *v)
{
	static const char *const map[][2] = { { "a", "aa" }, { "e", "ee" }, { "i", "ih" }, { "o", "oh" }, { "u", "ou" },
		{ "blink", "blink" }, { "joy", "happy" }, { "angry", "angry" }, { "sorrow", "sad" }, { "fun", "relaxed" },
		{ "lookup", "lookUp" }, { "lookdown", "lookDown" }, { "lookleft", "lookLeft" },
		{ "lookright", "lookRight" }, { "blink_l", "blinkLeft" }, { "blink_r", "blinkRight" },
		{ "neutral", "neutral" } };
	if (!v || v->kind != RK_EXT_STRING || !v->string) return NULL;
	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (strcmp(map[i][0], v->string) == 0) return map[i][1];
	return NULL;
}

static int rki_category(const char *name)
{
	if (!strcmp(name, "blink") || !strcmp(name, "blinkLeft") || !strcmp(name, "blinkRight")) return RKI_CAT_BLINK;
	if (!strcmp(name, "lookUp") || !strcmp(name, "lookDown") || !strcmp(name, "lookLeft") || !strcmp(name, "lookRight"))
		return RKI_CAT_LOOKAT;
	if (!strcmp(name, "aa") || !strcmp(name, "ih") || !strcmp(name, "ou") || !strcmp(name, "ee") || !strcmp(name, "oh"))
		return RKI_CAT_MOUTH;
	return 0;
}

/* ---- look-at ------------------------------------------------------------------ */

/* A VRM 1.0 range map: outputScale x clamp(x / inputMaxValue, 0, 1). */
typedef struct rki_range { double in_max, out_scale; } rki_range;

static rki_range rki_range_read(const rk_ext_value *lookat, const char *key, double default_scale)
{
	const rk_ext_value *m = rk_ext_member(lookat, key);
	rki_range r = { rki_ext_number(rk_ext_member(m, "inputMaxValue"), 90.0),
		rki_ext_number(rk_ext_member(m, "outputScale"), default_scale) };
	if (r.in_max < 0.01) r.in_max = 0.01; /* three-vrm's minimum */
	return r;
}

/* A VRM 0.x degree map (firstPerson.lookAt*: xRange, yRange, curve) read as
 * three-vrm reads it: a linear range map with input max xRange (default 90)
 * and output scale yRange (default 10 for a bone look-at, 1 for
 * BlendShape). A curve other than the linear default is not applied (as in
 * three-vrm) and sets *curved. */
static rki_range rki_degree_map_read(const rk_ext_value *first_person, const char *key, double default_scale,
	bool *curved)
{
	const rk_ext_value *m = rk_ext_member(first_person, key);
	rki_range r = { rki_ext_number(rk_ext_member(m, "xRange"), 90.0),
		rki_ext_number(rk_ext_member(m, "yRange"), default_scale) };
	if (r.in_max < 0.01) r.in_max = 0.01;
	const rk_ext_value *c = rk_ext_member(m, "curve");
	static const double linear[8] = { 0, 0, 0, 1, 1, 1, 1, 0 };
	if (c) {
		bool same = c->kind == RK_EXT_ARRAY && c->count == 8;
		for (size_t i = 0; same && i < 8; i++) same = c->items[i].kind == RK_EXT_NUMBER && c->items[i].number == linear[i];
		if (!same) *curved = true;
	}
	return r;
}

static double rki_range_map(rki_range r, double x)
{
	double u = x / r.in_max;
	return r.out_scale * (u < 0 ? 0 : u > 1 ? 1 : u);
}

/* Yaw (about Y) and pitch (about X), degrees, of q read as Euler angles
 * applied Y, then X, then Z (three.js order "YXZ"). */
static void rki_yaw_pitch(rk_quat q, double *yaw, double *pitch)
{
	double m13 = 2 * (q.x * q.z + q.w * q.y), m23 = 2 * (q.y * q.z - q.w * q.x);
	double m33 = 1 - 2 * (q.x * q.x + q.y * q.y), m31 = 2 * (q.x * q.z - q.w * q.y), m11 = 1 - 2 * (q.y * q.y + q.z * q.z);
	double c = m23 < -1 ? -1 : m23 > 1 ? 1 : m23;
	*pitch = asin(-c) * 180.0 / RKI_XPI;
	*yaw = (fabs(c) < 0.9999999 ? atan2(m13, m33) : atan2(-m31, m11)) * 180.0 / RKI_XPI;
}

/* How the target turns a look-at into a pose, as three-vrm's
 * VRMLookAtLoaderPlugin reads it: VRMC_vrm.lookAt (type "expression" ->
 * expressions, anything else -> bones) or VRM 0.x firstPerson
 * (lookAtTypeName "BlendShape" -> expressions, else bones); none without
 * either object. */
enum { RKI_LOOK_NONE = 0, RKI_LOOK_BONE, RKI_LOOK_EXPRESSION };

typedef struct rki_lookat_cfg {
	int type;
	bool vrm0;                       /* VRM 0.x: the avatar faces -Z */
	bool curved;                     /* a 0.x degree map curve that is read as linear */
	rki_range inner, outer, down, up;
} rki_lookat_cfg;

static rki_lookat_cfg rki_lookat_config(const rk_scene *target)
{
	rki_lookat_cfg c;
	memset(&c, 0, sizeof(c));
	const rk_ext_value *vrm1 = rk_scene_extension(target, "VRMC_vrm");
	if (vrm1) {
		const rk_ext_value *look = rk_ext_member(vrm1, "lookAt");
		if (!look || look->kind != RK_EXT_OBJECT) return c;
		c.type = rki_ext_is_string(rk_ext_member(look, "type"), "expression") ? RKI_LOOK_EXPRESSION : RKI_LOOK_BONE;
		double scale = c.type == RKI_LOOK_EXPRESSION ? 1.0 : 10.0;
		c.inner = rki_range_read(look, "rangeMapHorizontalInner", scale);
		c.outer = rki_range_read(look, "rangeMapHorizontalOuter", scale);
		c.down = rki_range_read(look, "rangeMapVerticalDown", scale);
		c.up = rki_range_read(look, "rangeMapVerticalUp", scale);
		return c;
	}
	const rk_ext_value *fp = rk_ext_member(rk_scene_extension(target, "VRM"), "firstPerson");
	if (!fp || fp->kind != RK_EXT_OBJECT) return c;
	c.type = rki_ext_is_string(rk_ext_member(fp, "lookAtTypeName"), "BlendShape") ? RKI_LOOK_EXPRESSION : RKI_LOOK_BONE;
	double scale = c.type == RKI_LOOK_EXPRESSION ? 1.0 : 10.0;
	c.inner = rki_degree_map_read(fp, "lookAtHorizontalInner", scale, &c.curved);
	c.outer = rki_degree_map_read(fp, "lookAtHorizontalOuter", scale, &c.curved);
	c.down = rki_degree_map_read(fp, "lookAtVerticalDown", scale, &c.curved);
	c.up = rki_degree_map_read(fp, "lookAtVerticalUp", scale, &c.curved);
	c.vrm0 = true;
	return c;
}

/* The weight of look expression `name` (lookUp, lookDown, lookLeft,
 * lookRight) for a look-at (yaw, pitch) in degrees, as three-vrm's
 * VRMLookAtExpressionApplier sets them: pitch < 0 -> lookUp = up(-pitch),
 * else lookDown = down(pitch); yaw < 0 -> lookRight = outer(-yaw), else
 * lookLeft = outer(yaw) (the outer map on both sides); the others 0. */
static double rki_look_expression_weight(const rki_lookat_cfg *c, const char *name, double yaw, double pitch)
{
	if (!strcmp(name, "lookUp")) return pitch < 0 ? rki_range_map(c->up, -pitch) : 0.0;
	if (!strcmp(name, "lookDown")) return pitch < 0 ? 0.0 : rki_range_map(c->down, pitch);
	if (!strcmp(name, "lookRight")) return yaw < 0 ? rki_range_map(c->outer, -yaw) : 0.0;
	if (!strcmp(name, "lookLeft")) return yaw < 0 ? 0.0 : rki_range_map(c->outer, yaw);
	return 0.0;
}

/* The look-at node of a VRMA and its rotation track, or NULL. */
static const rk_anim_track *rki_lookat_track(const rk_scene *source, const rk_anim_clip *clip)
{
	const rk_ext_value *n = rk_ext_member(rk_ext_member(rk_scene_extension(source, "VRMC_vrm_animation"), "lookAt"), "node");
	if (!n || n->kind != RK_EXT_NODE || !clip->layer_count) return NULL;
	const rk_anim_layer *l = &clip->layers[0];
	for (size_t i = 0; i < l->track_count; i++)
		if (l->tracks[i].node == n->ref && l->tracks[i].target == RK_TARGET_ROTATION_QUAT) return &l->tracks[i];
	return NULL;
}

/* The target's expressions and binds. Two passes: counting (out NULL), then
 * filling. Returns false on a size overflow. */
typedef struct rki_xtable {
	rki_xexpr *expr;
	size_t expr_count;
	rki_xbind *bind;
	size_t bind_count;
	/* an expression look-at: the source's look-at track drives the target's
	 * look expressions (NULL look: none) */
	const rk_anim_track *look;
	rki_lookat_cfg look_cfg;
} rki_xtable;

static bool rki_bind_ok(const rk_node *n, double index)
{
	return n && n->mesh && index >= 0 && index < (double)n->mesh->blend_channels.count && index == floor(index);
}

static void rki_add_bind(rki_xtable *t, bool fill, const rk_node *n, double index, double weight)
{
	if (!rki_bind_ok(n, index)) return;
	if (fill) {
		rki_xbind *b = &t->bind[t->bind_count];
		b->node = n->index;
		b->channel = (uint32_t)index;
		b->weight = weight;
	}
	t->bind_count++;
}

static rki_xexpr *rki_add_expr(rki_xtable *t, bool fill, const char *name)
{
	for (size_t i = 0; fill && i < t->expr_count; i++)
		if (strcmp(t->expr[i].name, name) == 0) return NULL; /* three-vrm keeps the first */
	rki_xexpr *e = fill ? &t->expr[t->expr_count] : NULL;
	if (e) {
		memset(e, 0, sizeof(*e));
		e->name = name;
		e->category = rki_category(name);
		e->bind_begin = t->bind_count;
	}
	t->expr_count++;
	return e;
}

static void rki_vrm1_group(rki_xtable *t, bool fill, const rk_ext_value *group, bool preset)
{
	if (!group || group->kind != RK_EXT_OBJECT) return;
	for (size_t i = 0; i < group->count; i++) {
		const rk_ext_value *x = &group->items[i];
		if (!x->key || x->kind != RK_EXT_OBJECT || rki_is_preset(x->key) != preset) continue;
		rki_xexpr *e = rki_add_expr(t, fill, x->key);
		if (fill && !e) continue;
		if (e) {
			e->binary = rki_ext_number(rk_ext_member(x, "isBinary"), 0) != 0;
			e->override_blink = rki_override(rk_ext_member(x, "overrideBlink"));
			e->override_lookat = rki_override(rk_ext_member(x, "overrideLookAt"));
			e->override_mouth = rki_override(rk_ext_member(x, "overrideMouth"));
		}
		const rk_ext_value *binds = rk_ext_member(x, "morphTargetBinds");
		for (size_t k = 0; binds && binds->kind == RK_EXT_ARRAY && k < binds->count; k++) {
			const rk_ext_value *b = &binds->items[k];
			const rk_ext_value *node = rk_ext_member(b, "node");
			if (!node || node->kind != RK_EXT_NODE) continue;
			rki_add_bind(t, fill, (const rk_node *)node->ref, rki_ext_number(rk_ext_member(b, "index"), -1),
				rki_ext_number(rk_ext_member(b, "weight"), 1.0));
		}
		if (e) e->bind_count = t->bind_count - e->bind_begin;
	}
}

static void rki_vrm0_groups(rki_xtable *t, bool fill, const rk_scene *s, const rk_ext_value *groups)
{
	if (!groups || groups->kind != RK_EXT_ARRAY) return;
	for (size_t i = 0; i < groups->count; i++) {
		const rk_ext_value *g = &groups->items[i];
		if (g->kind != RK_EXT_OBJECT) continue;
		const char *name = rki_v0_preset(rk_ext_member(g, "presetName"));
		const rk_ext_value *nm = rk_ext_member(g, "name");
		if (!name && nm && nm->kind == RK_EXT_STRING) name = nm->string;
		if (!name) continue;
		rki_xexpr *e = rki_add_expr(t, fill, name);
		if (fill && !e) continue;
		if (e) e->binary = rki_ext_number(rk_ext_member(g, "isBinary"), 0) != 0;
		const rk_ext_value *binds = rk_ext_member(g, "binds");
		for (size_t k = 0; binds && binds->kind == RK_EXT_ARRAY && k < binds->count; k++) {
			const rk_ext_value *b = &binds->items[k];
			const rk_ext_value *mesh = rk_ext_member(b, "mesh");
			if (!mesh || mesh->kind != RK_EXT_MESH) continue;
			double index = rki_ext_number(rk_ext_member(b, "index"), -1);
			double weight = 0.01 * rki_ext_number(rk_ext_member(b, "weight"), 100.0);
			for (size_t n = 0; n < s->nodes.count; n++)
				if ((const void *)s->nodes.data[n].mesh == mesh->ref)
					rki_add_bind(t, fill, &s->nodes.data[n], index, weight);
		}
		if (e) e->bind_count = t->bind_count - e->bind_begin;
	}
}

static void rki_target_pass(rki_xtable *t, bool fill, const rk_scene *s)
{
	t->expr_count = 0;
	t->bind_count = 0;
	const rk_ext_value *vrm1 = rk_ext_member(rk_scene_extension(s, "VRMC_vrm"), "expressions");
	if (vrm1) {
		rki_vrm1_group(t, fill, rk_ext_member(vrm1, "preset"), true);
		rki_vrm1_group(t, fill, rk_ext_member(vrm1, "custom"), false);
		return;
	}
	rki_vrm0_groups(t, fill, s,
		rk_ext_member(rk_ext_member(rk_scene_extension(s, "VRM"), "blendShapeMaster"), "blendShapeGroups"));
}

/* The source clip's translation track of `node` (first layer), or NULL. */
static const rk_anim_track *rki_translation_track(const rk_anim_clip *clip, const rk_node *node)
{
	if (!clip || clip->layer_count == 0) return NULL;
	const rk_anim_layer *l = &clip->layers[0];
	for (size_t i = 0; i < l->track_count; i++)
		if (l->tracks[i].node == node && l->tracks[i].target == RK_TARGET_TRANSLATION) return &l->tracks[i];
	return NULL;
}

static void rki_expr_warn(const rk_retarget_opts *o, const char *fmt, const char *name)
{
	if (!o || !o->warning) return;
	char msg[RK_ERROR_TEXT_MAX];
	snprintf(msg, sizeof(msg), fmt, name);
	rk_warning w = { msg, UINT64_MAX, "", 1 };
	o->warning(o->warning_user, &w);
}

bool rk_scene_has_vrma_expressions(const rk_scene *scene)
{
	if (!scene) return false;
	const rk_ext_value *x = rk_ext_member(rk_scene_extension(scene, "VRMC_vrm_animation"), "expressions");
	const rk_ext_value *p = rk_ext_member(x, "preset"), *c = rk_ext_member(x, "custom");
	return (p && p->count) || (c && c->count);
}

/* Weights of every touched node's channels at one time into `row` (laid out
 * by `offset`), three-vrm's VRMExpressionManager.update() order. */
static void rki_expr_frame(const rki_xtable *t, const rk_scene *s, const size_t *offset, double time, double *row,
	size_t row_count)
{
	/* static weights first, bound channels cleared */
	for (size_t n = 0; n < s->nodes.count; n++) {
		if (offset[n] == SIZE_MAX) continue;
		const rk_node *nd = &s->nodes.data[n];
		for (size_t c = 0; c < nd->mesh->blend_channels.count; c++)
			row[offset[n] + c] = nd->blend_weights ? nd->blend_weights[c] : nd->mesh->blend_channels.data[c].default_weight;
	}
	for (size_t b = 0; b < t->bind_count; b++) row[offset[t->bind[b].node] + t->bind[b].channel] = 0.0;
	double blink = 1, lookat = 1, mouth = 1, yaw = 0, pitch = 0;
	if (t->look) {
		double v[4] = { 0, 0, 0, 1 };
		rk_anim_track_eval(t->look, time, false, v, 4);
		rki_yaw_pitch(rk_quat_normalize((rk_quat){ v[0], v[1], v[2], v[3] }), &yaw, &pitch);
	}
	for (size_t i = 0; i < t->expr_count; i++) {
		rki_xexpr *e = &t->expr[i];
		double w = 0.0;
		if (t->look && (e->category & RKI_CAT_LOOKAT)) {
			/* three-vrm's lookAt.update() sets these after the clip's own
			 * tracks, so the look-at wins */
			w = rki_look_expression_weight(&t->look_cfg, e->name, yaw, pitch);
			w = isfinite(w) ? (w < 0 ? 0 : w > 1 ? 1 : w) : 0.0;
		} else if (e->track) {
			double v[4] = { 0, 0, 0, 0 };
			rk_anim_track_eval(e->track, time, false, v, 4);
			w = isfinite(v[0]) ? (v[0] < 0 ? 0 : v[0] > 1 ? 1 : v[0]) : 0.0;
		}
		e->weight = e->binary ? (w > 0.5 ? 1.0 : 0.0) : w;
		blink -= e->override_blink == RKI_OV_BLOCK ? (e->weight > 0 ? 1 : 0) : e->override_blink == RKI_OV_BLEND ? e->weight : 0;
		lookat -= e->override_lookat == RKI_OV_BLOCK ? (e->weight > 0 ? 1 : 0) : e->override_lookat == RKI_OV_BLEND ? e->weight : 0;
		mouth -= e->override_mouth == RKI_OV_BLOCK ? (e->weight > 0 ? 1 : 0) : e->override_mouth == RKI_OV_BLEND ? e->weight : 0;
	}
	blink = blink < 0 ? 0 : blink;
	lookat = lookat < 0 ? 0 : lookat;
	mouth = mouth < 0 ? 0 : mouth;
	for (size_t i = 0; i < t->expr_count; i++) {
		const rki_xexpr *e = &t->expr[i];
		double m = 1.0;
		if (e->category & RKI_CAT_BLINK) m *= blink;
		if (e->category & RKI_CAT_LOOKAT) m *= lookat;
		if (e->category & RKI_CAT_MOUTH) m *= mouth;
		double a = e->weight * m;
		if (e->binary && a < 1) a = 0;
		for (size_t b = e->bind_begin; b < e->bind_begin + e->bind_count; b++) {
			size_t k = offset[t->bind[b].node] + t->bind[b].channel;
			if (k < row_count) row[k] += t->bind[b].weight * a;
		}
	}
}

/* Overwrites the rotation keys of the eye bones' tracks in `layer` with the
 * look-at rule (rigkit/retarget.h, LOOK-AT). Returns the tracks changed. */
static size_t rki_lookat_apply(rk_scene *target, const rk_anim_layer *layer, const rk_humanoid *ht, const rk_scene *source,
	const rk_anim_clip *source_clip, double shift, const rk_anim_track *keys, rk_anim_track *tracks,
	const rk_retarget_opts *o)
{
	const rk_anim_track *la = rki_lookat_track(source, source_clip);
	if (!la) return 0;
	rki_lookat_cfg cfg = rki_lookat_config(target);
	if (cfg.type != RKI_LOOK_BONE) return 0;
	/* VRM 0.x: the avatar faces -Z; three-vrm's faceFront (0, 0, -1) turns
	 * the eye rotation by 180 degrees about Y, which negates the pitch and
	 * keeps the yaw */
	rki_range inner = cfg.inner, outer = cfg.outer, down = cfg.down, up = cfg.up;
	bool vrm0 = cfg.vrm0;
	size_t changed = 0;
	for (int side = 0; side < 2; side++) {
		const rk_node *eye = ht->bones[side ? RK_HUMANOID_RIGHT_EYE : RK_HUMANOID_LEFT_EYE];
		if (!eye || eye->has_fbx_props || !eye->parent) continue;
		rk_anim_track *t = NULL;
		for (size_t i = 0; i < layer->track_count; i++)
			if (tracks[i].node == eye && tracks[i].target == RK_TARGET_ROTATION_QUAT && tracks[i].components == 4
				&& tracks[i].key_count == keys->key_count && tracks[i].interpolation == RK_INTERP_LINEAR) t = &tracks[i];
		if (!t) continue;
		rk_quat p = rk_quat_normalize(rk_mat4_decompose(eye->parent->node_to_world).rotation);
		rk_quat rest = rk_quat_normalize(eye->local.rotation);
		double *vals = (double *)rki_arena_array(rki_scene_arena(target), keys->key_count, 4 * sizeof(double));
		if (!vals) return SIZE_MAX;
		for (size_t f = 0; f < keys->key_count; f++) {
			double v[4] = { 0, 0, 0, 1 };
			rk_anim_track_eval(la, keys->times[f] + shift, false, v, 4);
			double yaw, pitch;
			rki_yaw_pitch(rk_quat_normalize((rk_quat){ v[0], v[1], v[2], v[3] }), &yaw, &pitch);
			double ex = pitch < 0 ? -rki_range_map(down, -pitch) : rki_range_map(up, pitch);
			if (vrm0) ex = -ex;
			rki_range yin = side ? outer : inner, yout = side ? inner : outer;
			double ey = yaw < 0 ? -rki_range_map(yin, -yaw) : rki_range_map(yout, yaw);
			rk_quat e = rk_quat_mul(rk_quat_axis_angle((rk_vec3){ 0, 1, 0 }, ey * RKI_XPI / 180.0),
				rk_quat_axis_angle((rk_vec3){ 1, 0, 0 }, ex * RKI_XPI / 180.0));
			rk_quat q = rk_quat_mul(rk_quat_mul(rk_quat_conjugate(p), rk_quat_mul(e, p)), rest);
			if (f > 0 && q.x * vals[4 * f - 4] + q.y * vals[4 * f - 3] + q.z * vals[4 * f - 2] + q.w * vals[4 * f - 1] < 0)
				q = (rk_quat){ -q.x, -q.y, -q.z, -q.w };
			vals[4 * f] = q.x;
			vals[4 * f + 1] = q.y;
			vals[4 * f + 2] = q.z;
			vals[4 * f + 3] = q.w;
		}
		t->values_f64 = vals;
		changed++;
	}
	return changed;
}

bool rk_retarget_expressions(rk_scene *target, rk_anim_clip *clip, const rk_scene *source,
	const rk_anim_clip *source_clip, const rk_retarget_opts *opts, rk_expression_report *report, rk_error *err)
{
	if (report) memset(report, 0, sizeof(*report));
	if (!target || !clip || !source || !source_clip || clip < target->clips.data
		|| clip >= target->clips.data + target->clips.count || source_clip < source->clips.data
		|| source_clip >= source->clips.data + source->clips.count) {
		rki_error_set(err, RK_ERROR_INVALID_ARGUMENT, "rk_retarget_expressions: NULL scene or clip, or a clip not of its scene");
		return false;
	}
	const rk_ext_value *x = rk_ext_member(rk_scene_extension(source, "VRMC_vrm_animation"), "expressions");
	const rk_anim_track *look = rki_lookat_track(source, source_clip);
	if (!rk_scene_has_vrma_expressions(source) && !look) return true;
	const rk_anim_track *keys = clip->layer_count && clip->layers[0].track_count ? &clip->layers[0].tracks[0] : NULL;
	if (!keys || keys->key_count == 0 || !keys->times) {
		rki_error_set(err, RK_ERROR_INVALID_ARGUMENT, "rk_retarget_expressions: the clip has no keys to sample at");
		return false;
	}
	/* source time of a key: the clip keeps the source clip's time axis
	 * (rk_retarget), shifted when it was moved */
	double shift = source_clip->time_begin - clip->time_begin;
	rk_retarget_opts o;
	memset(&o, 0, sizeof(o));
	if (opts) o = *opts;
	rki_alloc al;
	rki_alloc_init(&al, &o.allocator, o.memory_limit ? o.memory_limit : RKI_DEFAULT_MEMORY_LIMIT, 0);

	rki_xtable t;
	memset(&t, 0, sizeof(t));
	rki_lookat_cfg look_cfg = rki_lookat_config(target);
	if (look && look_cfg.type == RKI_LOOK_NONE)
		rki_expr_warn(&o, "%s: the target declares no VRM look-at: not retargeted", "the VRM Animation's look-at track");
	if (look && look_cfg.curved)
		rki_expr_warn(&o, "%s: the avatar's VRM 0.x look-at degree map curves are not applied (read as linear, as three-vrm does)",
			"the VRM Animation's look-at track");
	rki_target_pass(&t, false, target);
	size_t ecap = t.expr_count, bcap = t.bind_count, n_nodes = target->nodes.count;
	size_t total = 0, tracks = 0;
	double *row = NULL;
	bool ok = false;
	rki_xexpr *expr = ecap ? (rki_xexpr *)rki_calloc(&al, ecap, sizeof(rki_xexpr)) : NULL;
	rki_xbind *bind = bcap ? (rki_xbind *)rki_calloc(&al, bcap, sizeof(rki_xbind)) : NULL;
	size_t *offset = (size_t *)rki_calloc(&al, n_nodes ? n_nodes : 1, sizeof(size_t));
	if ((ecap && !expr) || (bcap && !bind) || !offset) {
		rki_error_set(err, al.limit_hit ? RK_ERROR_LIMIT : RK_ERROR_OUT_OF_MEMORY,
			"rk_retarget_expressions: out of memory for %zu expressions and %zu binds", ecap, bcap);
		goto done;
	}
	t.expr = expr;
	t.bind = bind;
	rki_target_pass(&t, true, target);
	size_t look_exprs = 0;
	if (look && look_cfg.type == RKI_LOOK_EXPRESSION) {
		t.look = look;
		t.look_cfg = look_cfg;
		for (size_t k = 0; k < t.expr_count; k++) look_exprs += (t.expr[k].category & RKI_CAT_LOOKAT) != 0;
		if (!look_exprs)
			rki_expr_warn(&o, "%s: the target's expression look-at has no lookUp/lookDown/lookLeft/lookRight expressions: not retargeted",
				"the VRM Animation's look-at track");
	}

	/* the source's animated expressions, matched by name */
	size_t matched = 0, animated = 0;
	for (int g = 0; g < 2; g++) {
		const rk_ext_value *grp = rk_ext_member(x, g ? "custom" : "preset");
		for (size_t i = 0; grp && grp->kind == RK_EXT_OBJECT && i < grp->count; i++) {
			const rk_ext_value *node = rk_ext_member(&grp->items[i], "node");
			const char *name = grp->items[i].key;
			if (!name || !node || node->kind != RK_EXT_NODE) continue;
			const rk_anim_track *tr = rki_translation_track(source_clip, (const rk_node *)node->ref);
			if (!tr) continue;
			animated++;
			size_t k = 0;
			while (k < t.expr_count && strcmp(t.expr[k].name, name) != 0) k++;
			if (k == t.expr_count) {
				rki_expr_warn(&o, t.expr_count
					? "expression '%s' of the VRM Animation has no counterpart on the target: not retargeted"
					: "expression '%s' of the VRM Animation: the target declares no VRM expressions: not retargeted",
					name);
				continue;
			}
			if (!t.expr[k].track) matched++;
			t.expr[k].track = tr;
			if (t.look && (t.expr[k].category & RKI_CAT_LOOKAT))
				rki_expr_warn(&o, "expression '%s' of the VRM Animation is overridden by its look-at track (as three-vrm does)", name);
		}
	}
	if (report) {
		report->source_expressions = animated;
		report->matched = matched;
		report->look_at_expressions = look_exprs;
	}
	if (matched == 0 && !look_exprs && (!look || look_cfg.type != RKI_LOOK_BONE)) {
		ok = true;
		goto done;
	}

	/* the mesh nodes any expression binds: each gets one weights track */
	bool weights = matched || look_exprs;
	for (size_t n = 0; n < n_nodes; n++) offset[n] = SIZE_MAX;
	for (size_t b = 0; weights && b < t.bind_count; b++) {
		uint32_t n = t.bind[b].node;
		if (offset[n] != SIZE_MAX) continue;
		offset[n] = total;
		total += target->nodes.data[n].mesh->blend_channels.count;
		tracks++;
	}
	const rk_anim_layer *old = &clip->layers[0];
	size_t frames = keys->key_count;
	rki_arena *ar = rki_scene_arena(target);
	rk_anim_layer *layer = ar ? (rk_anim_layer *)rki_arena_alloc(ar, sizeof(rk_anim_layer)) : NULL;
	rk_anim_track *all = ar ? (rk_anim_track *)rki_arena_array(ar, old->track_count + tracks, sizeof(rk_anim_track)) : NULL;
	double *values = ar ? (double *)rki_arena_array(ar, frames, total * sizeof(double)) : NULL;
	row = total ? (double *)rki_calloc(&al, total, sizeof(double)) : NULL;
	if (!layer || !all || (total && (!values || !row))) {
		rki_error_set(err, al.limit_hit ? RK_ERROR_LIMIT : RK_ERROR_OUT_OF_MEMORY,
			"rk_retarget_expressions: out of memory for %zu frames of %zu morph weights", frames, total);
		goto done;
	}
	for (size_t f = 0; weights && f < frames; f++) {
		rki_expr_frame(&t, target, offset, keys->times[f] + shift, row, total);
		/* values of node n at frame f: values + frames * offset[n] + f * channels */
		for (size_t n = 0; n < n_nodes; n++) {
			if (offset[n] == SIZE_MAX) continue;
			size_t ch = target->nodes.data[n].mesh->blend_channels.count;
			memcpy(values + frames * offset[n] + f * ch, row + offset[n], ch * sizeof(double));
		}
	}
	*layer = *old;
	memcpy(all, old->tracks, old->track_count * sizeof(rk_anim_track));
	size_t k = old->track_count;
	for (size_t n = 0; n < n_nodes; n++) {
		if (offset[n] == SIZE_MAX) continue;
		rk_anim_track *tr = &all[k++];
		memset(tr, 0, sizeof(*tr));
		tr->node = &target->nodes.data[n];
		tr->target = RK_TARGET_MORPH_WEIGHTS;
		tr->property = "";
		tr->key_count = frames;
		tr->times = keys->times;
		tr->components = (uint32_t)target->nodes.data[n].mesh->blend_channels.count;
		tr->values_f64 = values + frames * offset[n];
		tr->interpolation = RK_INTERP_LINEAR;
	}
	layer->tracks = all;
	layer->track_count = k;
	if (look) {
		rk_humanoid ht;
		if (opts && opts->target_humanoid) ht = *opts->target_humanoid;
		else if (!rk_humanoid_detect(target, &ht, err)) goto done;
		size_t eyes = rki_lookat_apply(target, old, &ht, source, source_clip, shift, keys, all, &o);
		if (eyes == SIZE_MAX) {
			rki_error_set(err, RK_ERROR_OUT_OF_MEMORY, "rk_retarget_expressions: out of memory for the eye keys");
			goto done;
		}
		if (report) report->look_at_tracks = eyes;
	}
	if (clip->layer_count == 1) {
		clip->layers = layer;
	} else {
		rk_anim_layer *layers = (rk_anim_layer *)rki_arena_array(ar, clip->layer_count, sizeof(rk_anim_layer));
		if (!layers) {
			rki_error_set(err, RK_ERROR_OUT_OF_MEMORY, "rk_retarget_expressions: out of memory");
			goto done;
		}
		memcpy(layers, clip->layers, clip->layer_count * sizeof(rk_anim_layer));
		layers[0] = *layer;
		clip->layers = layers;
	}
	if (report) report->tracks = tracks;
	ok = true;
done:
	if (row) rki_free(&al, row, total * sizeof(double));
	rki_free(&al, expr, ecap * sizeof(rki_xexpr));
	rki_free(&al, bind, bcap * sizeof(rki_xbind));
	rki_free(&al, offset, (n_nodes ? n_nodes : 1) * sizeof(size_t));
	return ok;
}
