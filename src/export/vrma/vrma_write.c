/*
 * src/export/vrma/vrma_write.c - VRM Animation writer (include/rigkit/vrma.h).
 *
 * One pass: the humanoid bones' rest (static world matrices) and their
 * evaluated world rotations at every frame (rk_pose_eval_job), in glTF space
 * with scale taken out, become local TRS / rotation keys relative to the
 * humanoid parent; then the JSON (rigkit/json.h) and the BIN chunk are put
 * into one GLB. Memory, all from opts.allocator within opts.memory_limit:
 * the pose (rk_pose_memory_size), frames x bones quaternions, the JSON text
 * and the output (given to the caller with a header that remembers the
 * allocator, for rk_vrma_memory_free); the rest is freed before return.
 */
#include "core/internal.h"
#include "scene/scene_internal.h"
#include "rigkit/anim.h"
#include "rigkit/json.h"
#include "rigkit/vrma.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RKI_VRMA_MAX_FRAMES 1000000
#define RKI_VRMA_PI 3.14159265358979323846

typedef struct rki_vrma {
	const rk_scene *scene;
	rk_vrma_write_opts opts;
	rki_alloc alloc;
	rk_error *err;
	size_t warnings;
	rk_humanoid humanoid;
	const rk_anim_clip *clip;
	rk_mat4 space;                    /* scene world -> VRMA world (glTF metres, facing +Z) */
	size_t bones;                     /* written bones */
	int bone_of[RK_HUMANOID_BONE_COUNT];   /* rk_humanoid_bone -> written index, -1 */
	int parent[RK_HUMANOID_BONE_COUNT];    /* written index -> written parent, -1 for hips */
	rk_humanoid_bone which[RK_HUMANOID_BONE_COUNT]; /* written index -> bone */
	size_t frames;
	double duration;
	bool tpose;                       /* rest written: the VRM T-pose built from the scene's rest */
	/* expressions written (EXPRESSIONS of vrma.h) */
	const rk_anim_clip *xclip;        /* the clip of opts.expression_source sampled */
	size_t xcount;
	const char **xname;               /* xcount names (the source's strings) */
	const char **xnode_name;          /* xcount node names */
	bool *xcustom;                    /* xcount: in expressions.custom */
	const rk_anim_track **xtrack;     /* xcount translation tracks */
	float *xweight;                   /* frames x xcount weights */
} rki_vrma;

static void rki_vrma_warn(rki_vrma *v, const char *fmt, ...) RKI_PRINTF(2, 3);

static void rki_vrma_warn(rki_vrma *v, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	rki_warning_emitv(v->opts.warning, v->opts.warning_user, fmt, ap);
	va_end(ap);
	v->warnings++;
}

/* Out of memory, or the memory limit (what the allocator saw). */
static bool rki_vrma_oom(rki_vrma *v, const char *what)
{
	if (v->alloc.limit_hit) rki_error_set(v->err, RK_ERROR_LIMIT, "VRMA writer: %s over the memory limit", what);
	else rki_error_set(v->err, RK_ERROR_OUT_OF_MEMORY, "VRMA writer: out of memory (%s)", what);
	return false;
}

static void *rki_vrma_json_alloc(void *user, size_t size)
{
	return rki_malloc((rki_alloc *)user, size);
}

static void rki_vrma_json_free(void *user, void *ptr, size_t size)
{
	rki_free((rki_alloc *)user, ptr, size);
}

static bool rki_vrma_clip_tracks(const rk_anim_clip *c)
{
	for (size_t l = 0; l < c->layer_count; l++)
		if (c->layers[l].track_count) return true;
	return false;
}

/* `c` is an element of s->clips. */
static bool rki_vrma_clip_of(const rk_scene *s, const rk_anim_clip *c)
{
	uintptr_t p = (uintptr_t)c, b = (uintptr_t)s->clips.data;
	return s->clips.data && p >= b && p < b + s->clips.count * sizeof(rk_anim_clip) && (p - b) % sizeof(rk_anim_clip) == 0;
}

/* The source's translation track of `node` in `clip`'s first layer, or NULL. */
static const rk_anim_track *rki_vrma_translation_track(const rk_anim_clip *clip, const rk_node *node)
{
	if (!clip || !clip->layer_count) return NULL;
	for (size_t i = 0; i < clip->layers[0].track_count; i++) {
		const rk_anim_track *t = &clip->layers[0].tracks[i];
		if (t->node == node && t->target == RK_TARGET_TRANSLATION) return t;
	}
	return NULL;
}

/* Fills (fill) or counts the animated expressions of opts.expression_source. */
static size_t rki_vrma_expr_pass(rki_vrma *v, const rk_scene *src, bool fill)
{
	const rk_ext_value *x = rk_ext_member(rk_scene_extension(src, "VRMC_vrm_animation"), "expressions");
	size_t n = 0;
	for (int g = 0; g < 2; g++) {
		const rk_ext_value *grp = rk_ext_member(x, g ? "custom" : "preset");
		for (size_t i = 0; grp && grp->kind == RK_EXT_OBJECT && i < grp->count; i++) {
			const rk_ext_value *node = rk_ext_member(&grp->items[i], "node");
			if (!grp->items[i].key || !node || node->kind != RK_EXT_NODE) continue;
			const rk_anim_track *t = rki_vrma_translation_track(v->xclip, (const rk_node *)node->ref);
			if (!t) continue;
			if (fill) {
				const rk_node *nd = (const rk_node *)node->ref;
				v->xname[n] = grp->items[i].key;
				v->xnode_name[n] = nd->name && nd->name[0] ? nd->name : grp->items[i].key;
				v->xcustom[n] = g == 1;
				v->xtrack[n] = t;
			}
			n++;
		}
	}
	return n;
}

static void rki_vrma_expr_free(rki_vrma *v)
{
	size_t n = v->xcount;
	if (v->xname) rki_free(&v->alloc, v->xname, n * sizeof(*v->xname));
	if (v->xnode_name) rki_free(&v->alloc, v->xnode_name, n * sizeof(*v->xnode_name));
	if (v->xcustom) rki_free(&v->alloc, v->xcustom, n * sizeof(*v->xcustom));
	if (v->xtrack) rki_free(&v->alloc, v->xtrack, n * sizeof(*v->xtrack));
	if (v->xweight) rki_free(&v->alloc, v->xweight, n * v->frames * sizeof(float));
}

/* The expressions to write and their weights at every frame. */
static bool rki_vrma_expressions(rki_vrma *v)
{
	const rk_scene *src = v->opts.expression_source ? v->opts.expression_source : v->scene;
	v->xclip = v->opts.expression_clip;
	if (v->xclip) {
		if (!rki_vrma_clip_of(src, v->xclip)) {
			rki_error_set(v->err, RK_ERROR_INVALID_ARGUMENT, "VRMA writer: expression_clip is not a clip of expression_source");
			return false;
		}
	} else if (src == v->scene) {
		v->xclip = v->clip;
	} else {
		for (size_t i = 0; i < src->clips.count && !v->xclip; i++)
			if (rki_vrma_clip_tracks(&src->clips.data[i])) v->xclip = &src->clips.data[i];
	}
	size_t n = v->xclip ? rki_vrma_expr_pass(v, src, false) : 0;
	if (!n) return true;
	v->xname = (const char **)rki_calloc(&v->alloc, n, sizeof(*v->xname));
	v->xnode_name = (const char **)rki_calloc(&v->alloc, n, sizeof(*v->xnode_name));
	v->xcustom = (bool *)rki_calloc(&v->alloc, n, sizeof(*v->xcustom));
	v->xtrack = (const rk_anim_track **)rki_calloc(&v->alloc, n, sizeof(*v->xtrack));
	v->xweight = n <= SIZE_MAX / sizeof(float) / v->frames ? (float *)rki_calloc(&v->alloc, n * v->frames, sizeof(float)) : NULL;
	v->xcount = n;
	if (!v->xname || !v->xnode_name || !v->xcustom || !v->xtrack || !v->xweight) return rki_vrma_oom(v, "expressions");
	rki_vrma_expr_pass(v, src, true);
	for (size_t f = 0; f < v->frames; f++) {
		double t = f + 1 == v->frames ? v->duration : (double)f / v->opts.fps;
		for (size_t e = 0; e < n; e++) {
			double val[4] = { 0, 0, 0, 0 };
			rk_anim_track_eval(v->xtrack[e], v->xclip->time_begin + t, false, val, 4);
			v->xweight[f * n + e] = (float)(isfinite(val[0]) ? val[0] : 0.0);
		}
	}
	return true;
}

static bool rki_vrma_is_vrm0(const rk_scene *s)
{
	for (size_t i = 0; i < s->extensions.count; i++)
		if (s->extensions.data[i].owner == RK_EXT_OWNER_SCENE && s->extensions.data[i].name
			&& strcmp(s->extensions.data[i].name, "VRM") == 0)
			return true;
	return false;
}

/* A VRM (or VRMA) scene: its stored rest is VRM's T-pose by definition. */
static bool rki_vrma_declares_vrm(const rk_scene *s)
{
	for (size_t i = 0; i < s->extensions.count; i++) {
		const char *n = s->extensions.data[i].name;
		if (s->extensions.data[i].owner == RK_EXT_OWNER_SCENE && n
			&& (!strcmp(n, "VRMC_vrm") || !strcmp(n, "VRM") || !strcmp(n, "VRMC_vrm_animation")))
			return true;
	}
	return false;
}

static bool rki_vrma_setup(rki_vrma *v)
{
	const rk_scene *s = v->scene;
	if (v->opts.humanoid) {
		v->humanoid = *v->opts.humanoid;
		if (!rk_humanoid_validate(&v->humanoid, s, v->err)) return false;
	} else if (!rk_humanoid_detect(s, &v->humanoid, v->err)) {
		return false;
	}
	v->clip = v->opts.clip;
	if (v->clip) {
		if (!rki_vrma_clip_of(s, v->clip)) {
			rki_error_set(v->err, RK_ERROR_INVALID_ARGUMENT, "VRMA writer: the clip is not a clip of this scene");
			return false;
		}
	} else {
		for (size_t i = 0; i < s->clips.count && !v->clip; i++)
			if (rki_vrma_clip_tracks(&s->clips.data[i])) v->clip = &s->clips.data[i];
		if (!v->clip) {
			rki_error_set(v->err, RK_ERROR_INVALID_ARGUMENT, "VRMA writer: the scene has no animation clip with tracks");
			return false;
		}
	}
	double fps = v->opts.fps;
	if (fps == 0.0) fps = s->settings.frame_rate > 0.0 && isfinite(s->settings.frame_rate) ? s->settings.frame_rate : 30.0;
	if (!(fps > 0.0) || !isfinite(fps) || fps > 1e4) {
		rki_error_set(v->err, RK_ERROR_INVALID_ARGUMENT, "VRMA writer: fps must be in (0, 10000], got %g", fps);
		return false;
	}
	v->opts.fps = fps;
	double d = v->clip->time_end - v->clip->time_begin;
	v->duration = d > 0.0 && isfinite(d) ? d : 0.0;
	double n = floor(v->duration * fps + 1e-6);
	if (n + 2.0 > (double)RKI_VRMA_MAX_FRAMES) {
		rki_error_set(v->err, RK_ERROR_LIMIT, "VRMA writer: %.0f frames (%g s at %g fps), more than %d", n + 1.0, v->duration,
			fps, RKI_VRMA_MAX_FRAMES);
		return false;
	}
	v->frames = (size_t)n + 1;
	if ((double)(v->frames - 1) / fps < v->duration - 1e-9) v->frames++; /* the end, off the grid */

	/* space: axes and unit as the glTF writer converts them, then VRM 0.x's half turn */
	rk_mat4 c = rk_mat4_identity();
	if (rk_axes_valid(s->settings.axes)) c = rk_axes_conversion(s->settings.axes, RK_AXES_RIGHT_HANDED_Y_UP);
	double u = s->settings.unit_meters;
	if (!(u > 0.0) || !isfinite(u)) u = 1.0;
	c = rk_mat4_mul(rk_mat4_scaling((rk_vec3){ u, u, u }), c);
	/* facing: VRMA faces +Z (left = +X). VRM 1.0 / VRMA scenes do by
	 * definition, VRM 0.x ones face -Z: half a turn. Other scenes: the
	 * turn about +Y that takes the character's left (left minus right upper
	 * leg, else upper arm, made horizontal) to +X. */
	double yaw = 0.0;
	if (rki_vrma_is_vrm0(s)) {
		yaw = RKI_VRMA_PI;
	} else if (!rki_vrma_declares_vrm(s)) {
		static const rk_humanoid_bone pairs[2][2] = { { RK_HUMANOID_LEFT_UPPER_LEG, RK_HUMANOID_RIGHT_UPPER_LEG },
			{ RK_HUMANOID_LEFT_UPPER_ARM, RK_HUMANOID_RIGHT_UPPER_ARM } };
		for (int k = 0; k < 2; k++) {
			const rk_node *l = v->humanoid.bones[pairs[k][0]], *r = v->humanoid.bones[pairs[k][1]];
			if (!l || !r) continue;
			rk_vec3 left = rk_vec3_sub(rk_mat4_transform_point(c, rk_mat4_get_translation(l->node_to_world)),
				rk_mat4_transform_point(c, rk_mat4_get_translation(r->node_to_world)));
			if (sqrt(left.x * left.x + left.z * left.z) < 1e-9) continue;
			yaw = atan2(left.z, left.x); /* the turn about +Y by yaw takes (cos yaw, 0, sin yaw) to +X */
			break;
		}
	}
	if (yaw != 0.0) c = rk_mat4_mul(rk_mat4_rotation(rk_quat_axis_angle((rk_vec3){ 0, 1, 0 }, yaw)), c);
	v->space = c;
	if (v->opts.rest == RK_VRMA_REST_AUTO) v->tpose = !rki_vrma_declares_vrm(s);
	else if (v->opts.rest == RK_VRMA_REST_TPOSE) v->tpose = true;
	else if (v->opts.rest == RK_VRMA_REST_SCENE) v->tpose = false;
	else {
		rki_error_set(v->err, RK_ERROR_INVALID_ARGUMENT, "VRMA writer: unknown rest mode %d", (int)v->opts.rest);
		return false;
	}

	v->bones = 0;
	for (int b = 0; b < RK_HUMANOID_BONE_COUNT; b++) {
		v->bone_of[b] = -1;
		if (!v->humanoid.bones[b]) continue;
		int p = rk_humanoid_parent(&v->humanoid, (rk_humanoid_bone)b);
		v->parent[v->bones] = p >= 0 ? v->bone_of[p] : -1;
		v->which[v->bones] = (rk_humanoid_bone)b;
		v->bone_of[b] = (int)v->bones++;
	}
	return true;
}

/* World rotation and position of a node matrix in VRMA space (no scale). */
static void rki_vrma_rigid(const rki_vrma *v, const rk_mat4 *node_to_world, rk_quat *r, rk_vec3 *p)
{
	rk_mat4 m = rk_mat4_mul(v->space, *node_to_world);
	rk_trs t = rk_mat4_decompose(m);
	*r = rk_quat_normalize(t.rotation);
	*p = t.translation;
}

static rk_quat rki_vrma_relative(rk_quat parent, rk_quat child)
{
	return rk_quat_normalize(rk_quat_mul(rk_quat_conjugate(parent), child));
}

/* The shortest rotation taking unit a to unit b. */
static rk_quat rki_vrma_arc(rk_vec3 a, rk_vec3 b)
{
	double d = rk_vec3_dot(a, b);
	if (d < -1.0 + 1e-12) {
		rk_vec3 axis = rk_vec3_cross(a, fabs(a.x) < 0.9 ? (rk_vec3){ 1, 0, 0 } : (rk_vec3){ 0, 1, 0 });
		return rk_quat_axis_angle(rk_vec3_normalize(axis), RKI_VRMA_PI);
	}
	rk_vec3 c = rk_vec3_cross(a, b);
	return rk_quat_normalize((rk_quat){ c.x, c.y, c.z, 1.0 + d });
}

/* VRM's T-pose direction of a bone (facing +Z, left = +X) and the bone its
 * direction is measured to; false for bones the T-pose does not fix (they
 * keep their parent's correction). */
static bool rki_vrma_tpose_dir(const rk_humanoid *h, rk_humanoid_bone b, rk_vec3 *dir, rk_humanoid_bone *child)
{
	const double r = 0.70710678118654752;
	rk_humanoid_bone c = RK_HUMANOID_BONE_COUNT;
	double side = 0.0;
	bool thumb = false;
	if (b >= RK_HUMANOID_LEFT_UPPER_LEG && b <= RK_HUMANOID_RIGHT_TOES) {
		int k = (b - RK_HUMANOID_LEFT_UPPER_LEG) % 4; /* upperLeg, lowerLeg, foot, toes */
		if (k >= 2) return false;
		*dir = (rk_vec3){ 0, -1, 0 };
		*child = (rk_humanoid_bone)(b + 1);
		return h->bones[b + 1] != NULL;
	}
	if (b >= RK_HUMANOID_LEFT_SHOULDER && b <= RK_HUMANOID_RIGHT_HAND) {
		int k = (b - RK_HUMANOID_LEFT_SHOULDER) % 4; /* shoulder, upperArm, lowerArm, hand */
		if (k == 0) return false;
		side = b < RK_HUMANOID_RIGHT_SHOULDER ? 1.0 : -1.0;
		if (k < 3) {
			c = (rk_humanoid_bone)(b + 1);
		} else {
			rk_humanoid_bone base = side > 0 ? RK_HUMANOID_LEFT_THUMB_METACARPAL : RK_HUMANOID_RIGHT_THUMB_METACARPAL;
			static const int order[4] = { 6, 3, 9, 12 }; /* middle, index, ring, little proximal */
			for (int i = 0; i < 4 && c == RK_HUMANOID_BONE_COUNT; i++)
				if (h->bones[base + order[i]]) c = (rk_humanoid_bone)(base + order[i]);
		}
	} else if (b >= RK_HUMANOID_LEFT_THUMB_METACARPAL && b <= RK_HUMANOID_RIGHT_LITTLE_DISTAL) {
		side = b < RK_HUMANOID_RIGHT_THUMB_METACARPAL ? 1.0 : -1.0;
		int k = (b - RK_HUMANOID_LEFT_THUMB_METACARPAL) % 15;
		thumb = k < 3;
		if (k % 3 == 2) return false; /* distal: no bone beyond it */
		c = (rk_humanoid_bone)(b + 1);
	} else {
		return false;
	}
	if (c == RK_HUMANOID_BONE_COUNT || !h->bones[c]) return false;
	*dir = thumb ? (rk_vec3){ side * r, 0, r } : (rk_vec3){ side, 0, 0 };
	*child = c;
	return true;
}

/* wr/wp (rest world rotations, positions) turned into VRM's T-pose: arms,
 * hands and fingers along +-X, thumbs 45 degrees forward, legs down; each
 * correction is the shortest rotation of the bone's direction, carried to
 * its subtree, so bone lengths and twists stay. */
static void rki_vrma_tpose(const rki_vrma *v, rk_quat *wr, rk_vec3 *wp)
{
	rk_quat q[RK_HUMANOID_BONE_COUNT];
	rk_vec3 np[RK_HUMANOID_BONE_COUNT];
	for (size_t i = 0; i < v->bones; i++) {
		int p = v->parent[i];
		rk_quat qp = p >= 0 ? q[p] : (rk_quat){ 0, 0, 0, 1 };
		np[i] = p >= 0 ? rk_vec3_add(np[p], rk_quat_rotate(q[p], rk_vec3_sub(wp[i], wp[p]))) : wp[i];
		q[i] = qp;
		rk_vec3 dir;
		rk_humanoid_bone child;
		if (rki_vrma_tpose_dir(&v->humanoid, v->which[i], &dir, &child)) {
			int k = v->bone_of[child];
			rk_vec3 d = rk_quat_rotate(qp, rk_vec3_sub(wp[k], wp[i]));
			if (rk_vec3_length(d) > 1e-12) q[i] = rk_quat_normalize(rk_quat_mul(rki_vrma_arc(rk_vec3_normalize(d), dir), qp));
		}
	}
	for (size_t i = 0; i < v->bones; i++) {
		wr[i] = rk_quat_normalize(rk_quat_mul(q[i], wr[i]));
		wp[i] = np[i];
	}
}

/* Rest local TRS (rest_r, rest_t per written bone) and the keys: rot[f * bones
 * + i], hips[f]. */
static bool rki_vrma_sample(rki_vrma *v, rk_quat *rest_r, rk_vec3 *rest_t, rk_quat *rot, rk_vec3 *hips)
{
	const rk_scene *s = v->scene;
	size_t nb = v->bones;
	rk_quat wr[RK_HUMANOID_BONE_COUNT];
	rk_vec3 wp[RK_HUMANOID_BONE_COUNT];
	for (size_t i = 0; i < nb; i++) rki_vrma_rigid(v, &v->humanoid.bones[v->which[i]]->node_to_world, &wr[i], &wp[i]);
	if (v->tpose) rki_vrma_tpose(v, wr, wp);
	for (size_t i = 0; i < nb; i++) {
		int p = v->parent[i];
		if (p < 0) {
			rest_r[i] = wr[i];
			rest_t[i] = wp[i];
		} else {
			rest_r[i] = rki_vrma_relative(wr[p], wr[i]);
			rk_vec3 d = { wp[i].x - wp[p].x, wp[i].y - wp[p].y, wp[i].z - wp[p].z };
			rest_t[i] = rk_quat_rotate(rk_quat_conjugate(wr[p]), d);
		}
	}
	/* the T-pose VRMA players assume */
	for (int side = 0; side < 2 && !v->tpose; side++) {
		int ua = v->bone_of[side ? RK_HUMANOID_RIGHT_UPPER_ARM : RK_HUMANOID_LEFT_UPPER_ARM];
		int la = v->bone_of[side ? RK_HUMANOID_RIGHT_LOWER_ARM : RK_HUMANOID_LEFT_LOWER_ARM];
		if (ua < 0 || la < 0) continue;
		rk_vec3 d = { wp[la].x - wp[ua].x, wp[la].y - wp[ua].y, wp[la].z - wp[ua].z };
		double len = sqrt(d.x * d.x + d.y * d.y + d.z * d.z);
		double deg = len > 0.0 ? asin(fabs(d.y) / len) * 180.0 / RKI_VRMA_PI : 0.0;
		if (deg > 20.0) {
			rki_vrma_warn(v, "VRMA: the rest written is not a T-pose (the %s upper arm points %.0f degrees from the horizontal); "
				"VRM Animation players assume VRM's T-pose", side ? "right" : "left", deg);
			break;
		}
	}

	size_t bytes = rk_pose_memory_size(s);
	if (!bytes) bytes = 1;
	void *mem = rki_malloc(&v->alloc, bytes);
	if (!mem) return rki_vrma_oom(v, "pose");
	rk_pose pose;
	if (!rk_pose_init(&pose, s, mem, bytes)) {
		rki_free(&v->alloc, mem, bytes);
		return rki_vrma_oom(v, "pose");
	}
	rk_pose_eval_job job;
	memset(&job, 0, sizeof(job));
	job.scene = s;
	job.clip = v->clip;
	job.pose = &pose;
	job.time = v->clip->time_begin;
	if (!rk_pose_eval_validate(&job, v->err)) {
		rki_free(&v->alloc, mem, bytes);
		return false;
	}
	for (size_t f = 0; f < v->frames; f++) {
		double t = f + 1 == v->frames ? v->duration : (double)f / v->opts.fps;
		job.time = v->clip->time_begin + t;
		rk_pose_eval_run(&job);
		for (size_t i = 0; i < nb; i++)
			rki_vrma_rigid(v, &pose.node_to_world[v->humanoid.bones[v->which[i]]->index], &wr[i], &wp[i]);
		hips[f] = wp[0];
		for (size_t i = 0; i < nb; i++) {
			int p = v->parent[i];
			rk_quat q = p < 0 ? wr[i] : rki_vrma_relative(wr[p], wr[i]);
			if (f > 0 && rk_quat_dot(q, rot[(f - 1) * nb + i]) < 0.0) q = (rk_quat){ -q.x, -q.y, -q.z, -q.w };
			rot[f * nb + i] = q;
		}
	}
	rki_free(&v->alloc, mem, bytes);
	return true;
}

static void rki_vrma_put_u32(unsigned char *p, uint32_t x)
{
	p[0] = (unsigned char)x;
	p[1] = (unsigned char)(x >> 8);
	p[2] = (unsigned char)(x >> 16);
	p[3] = (unsigned char)(x >> 24);
}

static void rki_vrma_put_f32(unsigned char *p, double x)
{
	float f = isfinite(x) ? (float)x : 0.0f;
	uint32_t u;
	memcpy(&u, &f, sizeof(u));
	rki_vrma_put_u32(p, u);
}

static void rki_vrma_json(const rki_vrma *v, rk_json_writer *j, const rk_quat *rest_r, const rk_vec3 *rest_t, size_t bin_size)
{
	size_t nb = v->bones, nf = v->frames;
	rk_json_object_begin(j, NULL);
	rk_json_object_begin(j, "asset");
	rk_json_string(j, "generator", v->opts.generator);
	rk_json_string(j, "version", "2.0");
	rk_json_object_end(j);
	rk_json_array_begin(j, "extensionsUsed");
	rk_json_string(j, NULL, "VRMC_vrm_animation");
	rk_json_array_end(j);
	rk_json_object_begin(j, "extensions");
	rk_json_object_begin(j, "VRMC_vrm_animation");
	rk_json_string(j, "specVersion", "1.0");
	rk_json_object_begin(j, "humanoid");
	rk_json_object_begin(j, "humanBones");
	for (size_t i = 0; i < nb; i++) {
		rk_json_object_begin(j, rk_humanoid_bone_name(v->which[i]));
		rk_json_uint(j, "node", i);
		rk_json_object_end(j);
	}
	rk_json_object_end(j);
	rk_json_object_end(j);
	size_t ne = v->xcount;
	if (ne) {
		rk_json_object_begin(j, "expressions");
		for (int g = 0; g < 2; g++) {
			size_t in_group = 0;
			for (size_t e = 0; e < ne; e++) in_group += v->xcustom[e] == (g == 1);
			if (!in_group) continue;
			rk_json_object_begin(j, g ? "custom" : "preset");
			for (size_t e = 0; e < ne; e++) {
				if (v->xcustom[e] != (g == 1)) continue;
				rk_json_object_begin(j, v->xname[e]);
				rk_json_uint(j, "node", nb + e);
				rk_json_object_end(j);
			}
			rk_json_object_end(j);
		}
		rk_json_object_end(j);
	}
	rk_json_object_end(j);
	rk_json_object_end(j);
	rk_json_uint(j, "scene", 0);
	rk_json_array_begin(j, "scenes");
	rk_json_object_begin(j, NULL);
	rk_json_array_begin(j, "nodes");
	rk_json_uint(j, NULL, 0);
	for (size_t e = 0; e < ne; e++) rk_json_uint(j, NULL, nb + e);
	rk_json_array_end(j);
	rk_json_object_end(j);
	rk_json_array_end(j);

	rk_json_array_begin(j, "nodes");
	for (size_t i = 0; i < nb; i++) {
		const rk_node *n = v->humanoid.bones[v->which[i]];
		rk_json_object_begin(j, NULL);
		rk_json_string(j, "name", n->name && n->name[0] ? n->name : rk_humanoid_bone_name(v->which[i]));
		size_t kids = 0;
		for (size_t c = i + 1; c < nb; c++) kids += v->parent[c] == (int)i;
		if (kids) {
			rk_json_array_begin(j, "children");
			for (size_t c = i + 1; c < nb; c++)
				if (v->parent[c] == (int)i) rk_json_uint(j, NULL, c);
			rk_json_array_end(j);
		}
		rk_json_vec3(j, "translation", rest_t[i]);
		rk_json_quat(j, "rotation", rest_r[i]);
		rk_json_object_end(j);
	}
	for (size_t e = 0; e < ne; e++) {
		rk_json_object_begin(j, NULL);
		rk_json_string(j, "name", v->xnode_name[e]);
		rk_json_object_end(j);
	}
	rk_json_array_end(j);

	/* accessors: 0 times, 1 hips translation, 2 + i rotations of bone i,
	 * 2 + nb + e translations of expression e */
	rk_json_array_begin(j, "animations");
	rk_json_object_begin(j, NULL);
	rk_json_string(j, "name", v->clip->name ? v->clip->name : "");
	rk_json_array_begin(j, "samplers");
	for (size_t k = 0; k < nb + 1 + ne; k++) {
		rk_json_object_begin(j, NULL);
		rk_json_uint(j, "input", 0);
		rk_json_uint(j, "output", k + 1);
		rk_json_string(j, "interpolation", "LINEAR");
		rk_json_object_end(j);
	}
	rk_json_array_end(j);
	rk_json_array_begin(j, "channels");
	for (size_t k = 0; k < nb + 1 + ne; k++) {
		rk_json_object_begin(j, NULL);
		rk_json_uint(j, "sampler", k);
		rk_json_object_begin(j, "target");
		rk_json_uint(j, "node", k == 0 ? 0 : k - 1);
		rk_json_string(j, "path", k == 0 || k > nb ? "translation" : "rotation");
		rk_json_object_end(j);
		rk_json_object_end(j);
	}
	rk_json_array_end(j);
	rk_json_object_end(j);
	rk_json_array_end(j);

	rk_json_array_begin(j, "accessors");
	size_t offset = 0;
	for (size_t k = 0; k < nb + 2 + ne; k++) {
		rk_json_object_begin(j, NULL);
		rk_json_uint(j, "bufferView", k);
		rk_json_uint(j, "componentType", 5126);
		rk_json_uint(j, "count", nf);
		rk_json_string(j, "type", k == 0 ? "SCALAR" : k == 1 || k >= nb + 2 ? "VEC3" : "VEC4");
		if (k == 0) {
			double lo = 0.0, hi = (double)(float)v->duration;
			rk_json_numbers(j, "min", &lo, 1);
			rk_json_numbers(j, "max", &hi, 1);
		}
		rk_json_object_end(j);
	}
	rk_json_array_end(j);
	rk_json_array_begin(j, "bufferViews");
	for (size_t k = 0; k < nb + 2 + ne; k++) {
		size_t len = nf * 4 * (k == 0 ? 1 : k == 1 || k >= nb + 2 ? 3 : 4);
		rk_json_object_begin(j, NULL);
		rk_json_uint(j, "buffer", 0);
		if (offset) rk_json_uint(j, "byteOffset", offset);
		rk_json_uint(j, "byteLength", len);
		rk_json_object_end(j);
		offset += len;
	}
	rk_json_array_end(j);
	rk_json_array_begin(j, "buffers");
	rk_json_object_begin(j, NULL);
	rk_json_uint(j, "byteLength", bin_size);
	rk_json_object_end(j);
	rk_json_array_end(j);
	rk_json_object_end(j);
}

/* Output block: a header remembering the allocator, then the GLB. */
typedef struct rki_vrma_out_header {
	rk_allocator allocator;
	size_t total;
	size_t magic;
} rki_vrma_out_header;

#define RKI_VRMA_OUT_MAGIC ((size_t)0x766d7261u)
#define RKI_VRMA_OUT_HEADER ((sizeof(rki_vrma_out_header) + 15u) & ~(size_t)15u)

/* The GLB: JSON chunk (space-padded) and BIN chunk (the keys). */
static bool rki_vrma_build(rki_vrma *v, const rk_quat *rest_r, const rk_vec3 *rest_t, const rk_quat *rot, const rk_vec3 *hips,
	void **out_data, size_t *out_size)
{
	size_t nb = v->bones, nf = v->frames;
	size_t ne = v->xcount;
	if (ne > (SIZE_MAX / 16 - 4 * nb) / (nf ? nf : 1) / 3) {
		rki_error_set(v->err, RK_ERROR_LIMIT, "VRMA writer: %zu expressions x %zu frames, too many", ne, nf);
		return false;
	}
	size_t bin_size = nf * 4 * (1 + 3 + 4 * nb + 3 * ne); /* frames <= 1e6, bones <= 55: checked above for ne */
	rk_json_writer j;
	rk_json_writer_init(&j, RK_JSON_SHORTEST | RK_JSON_NONFINITE_ZERO);
	j.allocator = (rk_allocator){ rki_vrma_json_alloc, rki_vrma_json_free, &v->alloc };
	rk_allocator json_allocator = j.allocator;
	rki_vrma_json(v, &j, rest_r, rest_t, bin_size);
	size_t json_len = 0;
	char *json = rk_json_writer_finish(&j, &json_len);
	if (!json) {
		rk_json_writer_free(&j);
		return rki_vrma_oom(v, "JSON");
	}
	size_t json_pad = (4 - json_len % 4) % 4;
	size_t total = 12 + 8 + json_len + json_pad + 8 + bin_size;
	if (total > 0xFFFFFFFFu) {
		rk_json_free_text(&json_allocator, json, json_len);
		rki_error_set(v->err, RK_ERROR_LIMIT, "VRMA writer: %zu bytes, more than a GLB holds", total);
		return false;
	}
	unsigned char *block = (unsigned char *)rki_malloc(&v->alloc, RKI_VRMA_OUT_HEADER + total);
	if (!block) {
		rk_json_free_text(&json_allocator, json, json_len);
		return rki_vrma_oom(v, "output");
	}
	rki_vrma_out_header h = { v->opts.allocator, RKI_VRMA_OUT_HEADER + total, RKI_VRMA_OUT_MAGIC };
	memcpy(block, &h, sizeof(h));
	unsigned char *out = block + RKI_VRMA_OUT_HEADER;
	memcpy(out, "glTF", 4);
	rki_vrma_put_u32(out + 4, 2);
	rki_vrma_put_u32(out + 8, (uint32_t)total);
	rki_vrma_put_u32(out + 12, (uint32_t)(json_len + json_pad));
	rki_vrma_put_u32(out + 16, 0x4E4F534Au);
	memcpy(out + 20, json, json_len);
	memset(out + 20 + json_len, ' ', json_pad);
	rk_json_free_text(&json_allocator, json, json_len);
	unsigned char *b = out + 20 + json_len + json_pad;
	rki_vrma_put_u32(b, (uint32_t)bin_size);
	rki_vrma_put_u32(b + 4, 0x004E4942u);
	b += 8;
	for (size_t f = 0; f < nf; f++, b += 4) rki_vrma_put_f32(b, f + 1 == nf ? v->duration : (double)f / v->opts.fps);
	for (size_t f = 0; f < nf; f++, b += 12) {
		rki_vrma_put_f32(b, hips[f].x);
		rki_vrma_put_f32(b + 4, hips[f].y);
		rki_vrma_put_f32(b + 8, hips[f].z);
	}
	for (size_t i = 0; i < nb; i++) {
		for (size_t f = 0; f < nf; f++, b += 16) {
			const rk_quat *q = &rot[f * nb + i];
			rki_vrma_put_f32(b, q->x);
			rki_vrma_put_f32(b + 4, q->y);
			rki_vrma_put_f32(b + 8, q->z);
			rki_vrma_put_f32(b + 12, q->w);
		}
	}
	for (size_t e = 0; e < ne; e++) {
		for (size_t f = 0; f < nf; f++, b += 12) {
			rki_vrma_put_f32(b, v->xweight[f * ne + e]);
			rki_vrma_put_f32(b + 4, 0.0);
			rki_vrma_put_f32(b + 8, 0.0);
		}
	}
	*out_data = out;
	*out_size = total;
	return true;
}

bool rk_vrma_write_memory(const rk_scene *scene, const rk_vrma_write_opts *opts, void **out_data, size_t *out_size,
	rk_error *err)
{
	if (out_data) *out_data = NULL;
	if (out_size) *out_size = 0;
	rki_error_clear(err);
	if (!scene || !out_data || !out_size || !scene->nodes.count) {
		rki_error_set(err, RK_ERROR_INVALID_ARGUMENT, "rk_vrma_write: scene (with nodes) and outputs are required");
		return false;
	}
	rki_vrma v;
	memset(&v, 0, sizeof(v));
	v.scene = scene;
	if (opts) v.opts = *opts;
	if (!v.opts.generator) v.opts.generator = "rigkit " RK_VERSION_STRING;
	v.err = err;
	rki_alloc_init(&v.alloc, &v.opts.allocator, v.opts.memory_limit ? v.opts.memory_limit : RKI_DEFAULT_MEMORY_LIMIT, 0);
	if (!rki_vrma_setup(&v)) return false;
	size_t nb = v.bones, nf = v.frames;
	rk_quat *rot = (rk_quat *)rki_calloc(&v.alloc, nf * nb + 1, sizeof(rk_quat));
	rk_vec3 *hips = (rk_vec3 *)rki_calloc(&v.alloc, nf, sizeof(rk_vec3));
	rk_quat rest_r[RK_HUMANOID_BONE_COUNT];
	rk_vec3 rest_t[RK_HUMANOID_BONE_COUNT];
	bool ok = rot && hips;
	if (!ok) rki_vrma_oom(&v, "keys");
	ok = ok && rki_vrma_expressions(&v);
	ok = ok && rki_vrma_sample(&v, rest_r, rest_t, rot, hips);
	ok = ok && rki_vrma_build(&v, rest_r, rest_t, rot, hips, out_data, out_size);
	if (rot) rki_free(&v.alloc, rot, (nf * nb + 1) * sizeof(rk_quat));
	if (hips) rki_free(&v.alloc, hips, nf * sizeof(rk_vec3));
	rki_vrma_expr_free(&v);
	if (ok && v.opts.stats) {
		v.opts.stats->expression_count = v.xcount;
		v.opts.stats->bone_count = nb;
		v.opts.stats->frame_count = nf;
		v.opts.stats->duration = v.duration;
		v.opts.stats->warning_count = v.warnings;
		v.opts.stats->size = *out_size;
	}
	return ok;
}

void rk_vrma_memory_free(void *data)
{
	if (!data) return;
	unsigned char *block = (unsigned char *)data - RKI_VRMA_OUT_HEADER;
	rki_vrma_out_header h;
	memcpy(&h, block, sizeof(h));
	if (h.magic != RKI_VRMA_OUT_MAGIC) return;
	rki_alloc a;
	rki_alloc_init(&a, &h.allocator, 0, 0);
	a.bytes_in_use = h.total;
	rki_free(&a, block, h.total);
}

bool rk_vrma_write(const rk_scene *scene, const char *path, const rk_vrma_write_opts *opts, rk_error *err)
{
	if (!path) {
		rki_error_set(err, RK_ERROR_INVALID_ARGUMENT, "rk_vrma_write: path is required");
		return false;
	}
	void *data = NULL;
	size_t size = 0;
	if (!rk_vrma_write_memory(scene, opts, &data, &size, err)) return false;
	rk_file_write_opts fo = { .force = opts && opts->force };
	bool ok = rk_file_write(path, data, size, &fo, err);
	rk_vrma_memory_free(data);
	return ok;
}
