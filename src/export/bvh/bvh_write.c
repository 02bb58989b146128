/* src/export/bvh/bvh_write.c - BVH text of a scene's skeleton and one clip
 * (include/rigkit/export.h, BVH WRITER; docs/bvh.md).
 *
 * Two passes over the frames with rk_pose_eval_job: the first finds the
 * joints whose local translation moves (they get position channels), the
 * second prints the values. Per frame only per-joint arrays are kept. */
#include "core/internal.h"
#include "scene/scene_internal.h"
#include "rigkit/anim.h"
#include "rigkit/export.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* rk_rotation_order letters in application order (first applied first). */
static const char *const rki_bw_orders[6] = { "XYZ", "XZY", "YZX", "YXZ", "ZXY", "ZYX" };

typedef struct rki_bw_joint {
	const rk_node *node;
	int32_t parent;            /* index in the joint list, -1 for the ROOT */
	uint32_t child_count;
	rk_rotation_order order;
	bool end_site, translated;
	rk_vec3 offset;            /* BVH OFFSET (output space) */
	rk_quat rest_rotation;     /* Q(rest): static world rotation, scene space */
	double max_move;           /* largest |local translation - OFFSET| over the frames */
	bool has_prev;
	rk_vec3 prev_euler;        /* degrees, previous frame's channels */
} rki_bw_joint;

typedef struct rki_bw {
	const rk_scene *scene;
	rk_bvh_write_opts o;
	rk_error *err;
	rki_alloc alloc;
	rki_buf out;
	rki_bw_joint *joints;
	size_t count, joint_cap;
	size_t pose_bytes;
	rk_mat4 conv;              /* C: scene space -> BVH space */
	rk_quat conv_rotation;     /* proper rotation R with A D A^T = R D R^T */
	const rk_anim_clip *clip;
	size_t frames;
	double frame_time, begin;
	void *pose_mem;
	rk_pose pose;
	rk_quat *world_rot;        /* W per joint (this frame) */
	rk_vec3 *world_pos;        /* P per joint (this frame) */
	rk_node_kind joint_kind;   /* what counts as a joint: JOINT, or NULL in scenes without joints */
	size_t warnings;
} rki_bw;

static bool rki_bw_fail(rki_bw *w, rk_error_code code, const char *fmt, ...) RKI_PRINTF(3, 4);
static bool rki_bw_fail(rki_bw *w, rk_error_code code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	rki_error_setv(w->err, code, fmt, ap);
	va_end(ap);
	return false;
}

static void rki_bw_warn(rki_bw *w, const char *fmt, ...) RKI_PRINTF(2, 3);
static void rki_bw_warn(rki_bw *w, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	rki_warning_emitv(w->o.warning, w->o.warning_user, fmt, ap);
	va_end(ap);
	w->warnings++;
}

static bool rki_bw_order_parse(const char *channels, rk_rotation_order *out)
{
	if (!channels || strlen(channels) != 3) return false;
	char applied[4] = { 0 };
	for (int i = 0; i < 3; i++) {
		char c = channels[i];
		if (c >= 'a' && c <= 'z') c = (char)(c - 'a' + 'A');
		applied[2 - i] = c;   /* the last channel is applied first */
	}
	for (int k = 0; k < 6; k++)
		if (memcmp(applied, rki_bw_orders[k], 3) == 0) {
			*out = (rk_rotation_order)k;
			return true;
		}
	return false;
}

/* ---- skeleton --------------------------------------------------------------- */

/* One past the last node of n's subtree (nodes are depth-first). */
static size_t rki_bw_subtree_end(const rk_scene *s, const rk_node *n)
{
	size_t i = n->index + 1;
	while (i < s->nodes.count && s->nodes.data[i].depth > n->depth) i++;
	return i;
}

static const rk_node *rki_bw_pick_root(rki_bw *w)
{
	const rk_scene *s = w->scene;
	w->joint_kind = RK_NODE_JOINT;
	bool any = false;
	for (size_t i = 0; i < s->nodes.count && !any; i++) any = s->nodes.data[i].kind == RK_NODE_JOINT;
	if (!any) w->joint_kind = RK_NODE_NULL;  /* transform-only nodes play the skeleton */
	if (w->o.root) return w->o.root;
	const rk_node *best = NULL;
	size_t best_joints = 0, total = 0;
	for (size_t i = 0; i < s->nodes.count; i++) total += s->nodes.data[i].kind == w->joint_kind;
	for (size_t i = 0; i < s->nodes.count; i++) {
		const rk_node *n = &s->nodes.data[i];
		if (n->kind != w->joint_kind) continue;
		bool top = true;
		for (const rk_node *a = n->parent; a && top; a = a->parent) top = a->kind != w->joint_kind;
		if (!top) continue;
		size_t end = rki_bw_subtree_end(s, n), joints = 0;
		for (size_t k = i; k < end; k++) joints += s->nodes.data[k].kind == w->joint_kind;
		if (joints > best_joints) {
			best = n;
			best_joints = joints;
		}
	}
	if (best && best_joints < total)
		rki_bw_warn(w, "%zu joints outside the skeleton under '%s' are not written (BVH: one ROOT)", total - best_joints, best->name);
	return best;
}

static bool rki_bw_ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n > k && strcmp(s + n - k, suffix) == 0;
}

static bool rki_bw_skeleton(rki_bw *w)
{
	const rk_scene *s = w->scene;
	const rk_node *root = rki_bw_pick_root(w);
	if (!root) return rki_bw_fail(w, RK_ERROR_INVALID_ARGUMENT, "rk_bvh_write: the scene has no skeleton (no joint or transform nodes)");
	size_t first = root->index, end = rki_bw_subtree_end(s, root);
	int32_t *map = (int32_t *)rki_malloc(&w->alloc, (end - first) * sizeof(int32_t));
	w->joints = (rki_bw_joint *)rki_calloc(&w->alloc, end - first, sizeof(rki_bw_joint));
	w->joint_cap = w->joints ? end - first : 0;
	if (!map || !w->joints) {
		if (map) rki_free(&w->alloc, map, (end - first) * sizeof(int32_t));
		return rki_bw_fail(w, RK_ERROR_OUT_OF_MEMORY, "rk_bvh_write: out of memory");
	}
	rk_rotation_order fixed = RK_ROTATION_YXZ;  /* channels Zrotation Xrotation Yrotation */
	bool has_fixed = w->o.rotation_order != NULL;
	if (has_fixed) rki_bw_order_parse(w->o.rotation_order, &fixed);
	for (size_t i = first; i < end; i++) {
		const rk_node *n = &s->nodes.data[i];
		map[i - first] = -1;
		if (n != root && n->kind != w->joint_kind) continue;
		int32_t parent = -1;
		for (const rk_node *a = n->parent; n != root && a; a = a->parent)
			if (a->index >= first && map[a->index - first] >= 0) {
				parent = map[a->index - first];
				break;
			}
		rki_bw_joint *j = &w->joints[w->count];
		j->node = n;
		j->parent = parent;
		if (parent >= 0) w->joints[parent].child_count++;
		if (has_fixed) j->order = fixed;
		else if (s->settings.format == RK_FORMAT_BVH && n->has_fbx_props && n->props.rotation_active
			&& n->props.rotation_order <= RK_ROTATION_ZYX)
			j->order = n->props.rotation_order;
		else j->order = RK_ROTATION_YXZ;
		map[i - first] = (int32_t)w->count++;
	}
	rki_free(&w->alloc, map, (end - first) * sizeof(int32_t));
	return true;
}

/* ---- frames ------------------------------------------------------------------ */

/* World rotations W and positions P of every joint in the current pose. */
static void rki_bw_frame(rki_bw *w, bool rest)
{
	for (size_t k = 0; k < w->count; k++) {
		const rk_node *n = w->joints[k].node;
		rk_mat4 m = rest ? n->node_to_world : w->pose.node_to_world[n->index];
		rk_quat q = rk_mat4_decompose(m).rotation;
		rk_quat d = rk_quat_mul(q, rk_quat_conjugate(w->joints[k].rest_rotation));
		w->world_rot[k] = rk_quat_normalize(rk_quat_mul(rk_quat_mul(w->conv_rotation, d), rk_quat_conjugate(w->conv_rotation)));
		w->world_pos[k] = rk_mat4_transform_point(w->conv, rk_mat4_get_translation(m));
	}
}

static bool rki_bw_eval(rki_bw *w, size_t f)
{
	rk_pose_eval_job job = { 0 };
	job.scene = w->scene;
	job.clip = w->clip;
	job.time = w->begin + (double)f * w->frame_time;
	job.pose = &w->pose;
	if (!rk_pose_eval_validate(&job, w->err) || !rk_pose_eval_run(&job)) return false;
	rki_bw_frame(w, false);
	return true;
}

/* Local translation of joint k (BVH space, parent's frame). */
static rk_vec3 rki_bw_local_translation(const rki_bw *w, size_t k)
{
	int32_t p = w->joints[k].parent;
	return rk_quat_rotate(rk_quat_conjugate(w->world_rot[p]), rk_vec3_sub(w->world_pos[k], w->world_pos[p]));
}

static bool rki_bw_setup(rki_bw *w)
{
	const rk_scene *s = w->scene;
	double unit = s->settings.unit_meters > 0.0 ? s->settings.unit_meters : 1.0;
	double out_unit = w->o.unit_meters > 0.0 ? w->o.unit_meters : 0.01;
	rk_axes axes = rk_axes_valid(s->settings.axes) ? s->settings.axes : RK_AXES_RIGHT_HANDED_Y_UP;
	rk_mat4 a = rk_axes_conversion(axes, RK_AXES_RIGHT_HANDED_Y_UP);
	double k = unit / out_unit;
	w->conv = rk_mat4_mul(rk_mat4_scaling((rk_vec3){ k, k, k }), a);
	if (rk_mat4_determinant3(a) < 0.0)
		for (int c = 0; c < 3; c++)
			for (int r = 0; r < 3; r++) a.m[c * 4 + r] = -a.m[c * 4 + r];
	w->conv_rotation = rk_quat_normalize(rk_mat4_decompose(a).rotation);

	/* frames */
	double fps = w->o.fps > 0.0 ? w->o.fps : s->settings.frame_rate > 0.0 ? s->settings.frame_rate : 30.0;
	w->frame_time = 1.0 / fps;
	w->frames = 1;
	if (w->clip) {
		w->begin = w->clip->time_begin;
		double span = (w->clip->time_end - w->clip->time_begin) * fps;
		if (span > 1e8) return rki_bw_fail(w, RK_ERROR_INVALID_ARGUMENT, "rk_bvh_write: clip '%s' would need %.0f frames at %g fps", w->clip->name, span, fps);
		if (span > 0.0) w->frames = (size_t)llround(span) + 1;
	}

	size_t bytes = rk_pose_memory_size(s);
	w->pose_bytes = bytes ? bytes : 1;
	w->pose_mem = rki_malloc(&w->alloc, w->pose_bytes);
	w->world_rot = (rk_quat *)rki_calloc(&w->alloc, w->count, sizeof(rk_quat));
	w->world_pos = (rk_vec3 *)rki_calloc(&w->alloc, w->count, sizeof(rk_vec3));
	if (!w->pose_mem || !w->world_rot || !w->world_pos || !rk_pose_init(&w->pose, s, w->pose_mem, bytes))
		return rki_bw_fail(w, RK_ERROR_OUT_OF_MEMORY, "rk_bvh_write: out of memory");

	/* rest: OFFSETs from the static pose */
	for (size_t j = 0; j < w->count; j++) w->joints[j].rest_rotation = rk_quat_normalize(rk_mat4_decompose(w->joints[j].node->node_to_world).rotation);
	rki_bw_frame(w, true);
	rk_vec3 lo = w->world_pos[0], hi = w->world_pos[0];
	for (size_t j = 0; j < w->count; j++) {
		rk_vec3 p = w->world_pos[j];
		lo = (rk_vec3){ fmin(lo.x, p.x), fmin(lo.y, p.y), fmin(lo.z, p.z) };
		hi = (rk_vec3){ fmax(hi.x, p.x), fmax(hi.y, p.y), fmax(hi.z, p.z) };
		if (w->joints[j].parent >= 0) w->joints[j].offset = rk_vec3_sub(p, w->world_pos[w->joints[j].parent]);
	}
	double extent = fmax(hi.x - lo.x, fmax(hi.y - lo.y, hi.z - lo.z));

	/* pass 1: which joints' translations move */
	for (size_t f = 0; f < w->frames; f++) {
		if (!rki_bw_eval(w, f)) return false;
		for (size_t j = 1; j < w->count; j++) {
			double d = rk_vec3_length(rk_vec3_sub(rki_bw_local_translation(w, j), w->joints[j].offset));
			if (d > w->joints[j].max_move) w->joints[j].max_move = d;
		}
	}
	double tol = 5e-7 * extent + 1e-12;
	for (size_t j = 1; j < w->count; j++) {
		rki_bw_joint *jt = &w->joints[j];
		jt->translated = jt->max_move > tol;
		const char *attr = jt->node->attribute_type ? jt->node->attribute_type : "";
		const char *name = jt->node->name ? jt->node->name : "";
		jt->end_site = jt->child_count == 0 && !jt->translated
			&& (strcmp(attr, "End Site") == 0 || rki_bw_ends_with(name, "_End") || rki_bw_ends_with(name, "_end"));
	}
	return true;
}

/* ---- text ----------------------------------------------------------------------- */

static bool rki_bw_printf(rki_bw *w, const char *fmt, ...) RKI_PRINTF(2, 3);
static bool rki_bw_printf(rki_bw *w, const char *fmt, ...)
{
	char line[256];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	bool ok = n >= 0 && (size_t)n < sizeof(line) && rki_buf_push(&w->out, line, (size_t)n);
	return ok || rki_bw_fail(w, RK_ERROR_OUT_OF_MEMORY, "rk_bvh_write: out of memory");
}

static bool rki_bw_indent(rki_bw *w, size_t depth)
{
	for (size_t i = 0; i < depth; i++)
		if (!rki_buf_push(&w->out, "\t", 1)) return rki_bw_fail(w, RK_ERROR_OUT_OF_MEMORY, "rk_bvh_write: out of memory");
	return true;
}

/* " %.6f" without negative zeros; %.17g from 1e15 on (a short word any
 * reader parses). A value that is not finite fails the write. */
static bool rki_bw_number(rki_bw *w, double v, bool first)
{
	if (!isfinite(v))
		return rki_bw_fail(w, RK_ERROR_INVALID_ARGUMENT, "rk_bvh_write: a joint's transform is not finite (value %g)", v);
	if (fabs(v) < 5e-7) v = 0.0;
	if (fabs(v) >= 1e15) return rki_bw_printf(w, first ? "%.17g" : " %.17g", v);
	return rki_bw_printf(w, first ? "%.6f" : " %.6f", v);
}

static bool rki_bw_name(rki_bw *w, size_t j)
{
	const char *name = w->joints[j].node->name ? w->joints[j].node->name : "";
	if (!name[0]) return rki_bw_printf(w, "joint%u", (unsigned)w->joints[j].node->index);
	for (const unsigned char *p = (const unsigned char *)name; *p; p++) {
		unsigned char c = *p;
		if (c <= ' ' || c == 0x7F || c == '{' || c == '}') c = '_';
		if (!rki_buf_push(&w->out, &c, 1)) return rki_bw_fail(w, RK_ERROR_OUT_OF_MEMORY, "rk_bvh_write: out of memory");
	}
	return true;
}

static bool rki_bw_offset(rki_bw *w, size_t depth, rk_vec3 v)
{
	return rki_bw_indent(w, depth) && rki_bw_printf(w, "OFFSET") && rki_bw_number(w, v.x, false) && rki_bw_number(w, v.y, false)
		&& rki_bw_number(w, v.z, false) && rki_bw_printf(w, "\n");
}

static bool rki_bw_close(rki_bw *w, size_t depth)
{
	return rki_bw_indent(w, depth) && rki_bw_printf(w, "}\n");
}

static bool rki_bw_hierarchy(rki_bw *w)
{
	size_t *depth = (size_t *)rki_calloc(&w->alloc, w->count, sizeof(size_t));
	int32_t *open = (int32_t *)rki_calloc(&w->alloc, w->count, sizeof(int32_t));
	bool ok = depth && open;
	if (!ok) rki_bw_fail(w, RK_ERROR_OUT_OF_MEMORY, "rk_bvh_write: out of memory");
	size_t top = 0;
	ok = ok && rki_bw_printf(w, "HIERARCHY\n");
	for (size_t j = 0; ok && j < w->count; j++) {
		const rki_bw_joint *jt = &w->joints[j];
		while (ok && top > 0 && open[top - 1] != jt->parent) ok = rki_bw_close(w, depth[open[--top]]);
		if (!ok) break;
		depth[j] = jt->parent < 0 ? 0 : depth[jt->parent] + 1;
		size_t d = depth[j];
		if (jt->end_site) {
			ok = rki_bw_indent(w, d) && rki_bw_printf(w, "End Site\n") && rki_bw_indent(w, d) && rki_bw_printf(w, "{\n")
				&& rki_bw_offset(w, d + 1, jt->offset) && rki_bw_close(w, d);
			continue;
		}
		const char *letters = rki_bw_orders[jt->order];
		bool pos = jt->parent < 0 || jt->translated;
		ok = rki_bw_indent(w, d) && rki_bw_printf(w, "%s ", jt->parent < 0 ? "ROOT" : "JOINT") && rki_bw_name(w, j)
			&& rki_bw_printf(w, "\n") && rki_bw_indent(w, d) && rki_bw_printf(w, "{\n")
			&& rki_bw_offset(w, d + 1, jt->parent < 0 ? (rk_vec3){ 0, 0, 0 } : jt->offset) && rki_bw_indent(w, d + 1)
			&& rki_bw_printf(w, "CHANNELS %d%s %crotation %crotation %crotation\n", pos ? 6 : 3,
				pos ? " Xposition Yposition Zposition" : "", letters[2], letters[1], letters[0]);
		if (ok && jt->child_count == 0)
			ok = rki_bw_indent(w, d + 1) && rki_bw_printf(w, "End Site\n") && rki_bw_indent(w, d + 1) && rki_bw_printf(w, "{\n")
				&& rki_bw_offset(w, d + 2, (rk_vec3){ 0, 0, 0 }) && rki_bw_close(w, d + 1);
		open[top++] = (int32_t)j;
	}
	while (ok && top > 0) ok = rki_bw_close(w, depth[open[--top]]);
	if (depth) rki_free(&w->alloc, depth, w->count * sizeof(size_t));
	if (open) rki_free(&w->alloc, open, w->count * sizeof(int32_t));
	return ok;
}

static double rki_bw_axis(rk_vec3 v, int axis)
{
	return axis == 0 ? v.x : axis == 1 ? v.y : v.z;
}

static void rki_bw_set_axis(rk_vec3 *v, int axis, double x)
{
	if (axis == 0) v->x = x;
	else if (axis == 1) v->y = x;
	else v->z = x;
}

/* e, or the other angle triple of the same rotation (first and last axes
 * + 180, middle 180 - middle), each angle moved by a multiple of 360 to the
 * closest of prev; whichever is closer to prev. */
static rk_vec3 rki_bw_continuous(rk_vec3 e, rk_rotation_order order, rk_vec3 prev)
{
	int mid = rki_bw_orders[order][1] - 'X';
	rk_vec3 alt = e;
	for (int a = 0; a < 3; a++)
		rki_bw_set_axis(&alt, a, a == mid ? 180.0 - rki_bw_axis(e, a) : rki_bw_axis(e, a) + 180.0);
	rk_vec3 best = e;
	double best_d = INFINITY;
	for (int c = 0; c < 2; c++) {
		rk_vec3 v = c ? alt : e;
		double d = 0.0;
		for (int a = 0; a < 3; a++) {
			double x = rki_bw_axis(v, a), p = rki_bw_axis(prev, a);
			x -= 360.0 * floor((x - p) / 360.0 + 0.5);
			rki_bw_set_axis(&v, a, x);
			d += fabs(x - p);
		}
		if (d < best_d) {
			best = v;
			best_d = d;
		}
	}
	return best;
}

static bool rki_bw_motion(rki_bw *w)
{
	if (!rki_bw_printf(w, "MOTION\nFrames: %zu\nFrame Time: %.9g\n", w->frames, w->frame_time)) return false;
	for (size_t f = 0; f < w->frames; f++) {
		if (!rki_bw_eval(w, f)) return false;
		bool first = true;
		for (size_t j = 0; j < w->count; j++) {
			rki_bw_joint *jt = &w->joints[j];
			if (jt->end_site) continue;
			rk_quat local = w->world_rot[j];
			if (jt->parent >= 0) {
				local = rk_quat_mul(rk_quat_conjugate(w->world_rot[jt->parent]), w->world_rot[j]);
				if (jt->translated) {
					rk_vec3 t = rk_vec3_sub(rki_bw_local_translation(w, j), jt->offset);
					if (!rki_bw_number(w, t.x, first) || !rki_bw_number(w, t.y, false) || !rki_bw_number(w, t.z, false)) return false;
					first = false;
				}
			} else {
				rk_vec3 p = w->world_pos[j];
				if (!rki_bw_number(w, p.x, first) || !rki_bw_number(w, p.y, false) || !rki_bw_number(w, p.z, false)) return false;
				first = false;
			}
			rk_vec3 e = rk_quat_to_euler_deg(rk_quat_normalize(local), jt->order);
			if (jt->has_prev) e = rki_bw_continuous(e, jt->order, jt->prev_euler);
			jt->prev_euler = e;
			jt->has_prev = true;
			const char *letters = rki_bw_orders[jt->order];
			for (int c = 2; c >= 0; c--) {
				if (!rki_bw_number(w, rki_bw_axis(e, letters[c] - 'X'), first)) return false;
				first = false;
			}
		}
		if (!rki_bw_printf(w, "\n")) return false;
	}
	return true;
}

/* ---- entry points ------------------------------------------------------------ */

static const rk_anim_clip *rki_bw_default_clip(const rk_scene *s)
{
	for (size_t c = 0; c < s->clips.count; c++)
		for (size_t l = 0; l < s->clips.data[c].layer_count; l++)
			if (s->clips.data[c].layers[l].track_count) return &s->clips.data[c];
	return s->clips.count ? &s->clips.data[0] : NULL;
}

static bool rki_bw_run(rki_bw *w)
{
	const rk_scene *s = w->scene;
	if (!s || !s->nodes.count) return rki_bw_fail(w, RK_ERROR_INVALID_ARGUMENT, "rk_bvh_write: NULL or empty scene");
	if (w->o.root && (w->o.root < s->nodes.data || w->o.root >= s->nodes.data + s->nodes.count || w->o.root->kind == RK_NODE_ROOT))
		return rki_bw_fail(w, RK_ERROR_INVALID_ARGUMENT, "rk_bvh_write: opts.root is not a node of this scene (or is its synthetic root)");
	rk_rotation_order order;
	if (w->o.rotation_order && !rki_bw_order_parse(w->o.rotation_order, &order))
		return rki_bw_fail(w, RK_ERROR_INVALID_ARGUMENT, "rk_bvh_write: rotation order '%s': expected three distinct letters of XYZ, e.g. ZXY",
			w->o.rotation_order);
	if (!(w->o.fps >= 0.0 && w->o.fps <= 1e6) || !(w->o.unit_meters >= 0.0 && isfinite(w->o.unit_meters)))
		return rki_bw_fail(w, RK_ERROR_INVALID_ARGUMENT, "rk_bvh_write: fps %g / unit_meters %g out of range", w->o.fps, w->o.unit_meters);
	w->clip = w->o.clip ? w->o.clip : rki_bw_default_clip(s);
	if (w->clip && (w->clip < s->clips.data || w->clip >= s->clips.data + s->clips.count))
		return rki_bw_fail(w, RK_ERROR_INVALID_ARGUMENT, "rk_bvh_write: opts.clip is not a clip of this scene");
	if (!rki_bw_skeleton(w) || !rki_bw_setup(w) || !rki_bw_hierarchy(w) || !rki_bw_motion(w)) return false;
	if (!rki_buf_reserve(&w->out, 1)) return rki_bw_fail(w, RK_ERROR_OUT_OF_MEMORY, "rk_bvh_write: out of memory");
	w->out.data[w->out.size] = 0;
	if (w->o.stats) {
		rk_bvh_write_stats *st = w->o.stats;
		memset(st, 0, sizeof(*st));
		for (size_t j = 0; j < w->count; j++) {
			const rki_bw_joint *jt = &w->joints[j];
			if (jt->end_site) {
				st->end_site_count++;
				continue;
			}
			st->joint_count++;
			st->channel_count += jt->parent < 0 || jt->translated ? 6 : 3;
			st->translated_joint_count += jt->parent >= 0 && jt->translated;
		}
		st->frame_count = w->frames;
		st->frame_time = w->frame_time;
		st->warning_count = w->warnings;
	}
	return true;
}

bool rk_bvh_write_memory(const rk_scene *scene, const rk_bvh_write_opts *opts, char **out_text, size_t *out_size,
	rk_error *err)
{
	rki_error_clear(err);
	if (out_text) *out_text = NULL;
	if (out_size) *out_size = 0;
	if (!out_text || !out_size) {
		rki_error_set(err, RK_ERROR_INVALID_ARGUMENT, "rk_bvh_write_memory: NULL output pointer");
		return false;
	}
	rki_bw w;
	memset(&w, 0, sizeof(w));
	w.scene = scene;
	if (opts) w.o = *opts;
	w.err = err;
	rki_alloc_init(&w.alloc, NULL, 0, 0);
	rki_buf_init(&w.out, &w.alloc);
	bool ok = rki_bw_run(&w);
	rki_free(&w.alloc, w.pose_mem, w.pose_bytes);
	rki_free(&w.alloc, w.world_rot, w.count * sizeof(rk_quat));
	rki_free(&w.alloc, w.world_pos, w.count * sizeof(rk_vec3));
	rki_free(&w.alloc, w.joints, w.joint_cap * sizeof(rki_bw_joint));
	if (!ok) {
		rki_buf_free(&w.out);
		return false;
	}
	*out_text = (char *)w.out.data;
	*out_size = w.out.size;
	return true;
}

void rk_bvh_memory_free(char *text)
{
	free(text);
}

bool rk_bvh_write(const rk_scene *scene, const char *path, const rk_bvh_write_opts *opts, rk_error *err)
{
	if (!path) {
		rki_error_set(err, RK_ERROR_INVALID_ARGUMENT, "rk_bvh_write: NULL path");
		return false;
	}
	char *text = NULL;
	size_t size = 0;
	if (!rk_bvh_write_memory(scene, opts, &text, &size, err)) return false;
	rk_file_write_opts fo = { .force = opts && opts->force };
	bool ok = rk_file_write(path, text, size, &fo, err);
	rk_bvh_memory_free(text);
	return ok;
}
