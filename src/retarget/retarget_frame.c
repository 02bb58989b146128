/* src/retarget/retarget_frame.c - character frames, humanoid poses and pose
 * evaluation scratch shared by rk_retarget and rk_clip_compare
 * (retarget_internal.h; the definitions are in rigkit/retarget.h). */
#include "retarget/retarget_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static rk_vec3 rki_node_position(const rk_mat4 *node_to_world, const rk_node *n)
{
	return rk_mat4_get_translation(node_to_world[n->index]);
}

rk_quat rki_matrix_rotation(rk_mat4 m)
{
	/* Gram-Schmidt on the columns: X, then Y, then Z = X x Y (a mirroring
	 * matrix keeps its handedness out of the rotation). */
	/* The basis is orthonormal to rounding, so the quaternion is read from
	 * it directly (what rk_mat4_decompose of it ends with; its second
	 * Gram-Schmidt only moved the result by rounding). */
	rk_vec3 x = rki_v3norm((rk_vec3){ m.m[0], m.m[1], m.m[2] });
	rk_vec3 y = { m.m[4], m.m[5], m.m[6] };
	double d = rki_v3dot(x, y);
	y = rki_v3norm((rk_vec3){ y.x - x.x * d, y.y - x.y * d, y.z - x.z * d });
	rk_vec3 z = rki_v3cross(x, y);
	double r[3][3] = { { x.x, y.x, z.x }, { x.y, y.y, z.y }, { x.z, y.z, z.z } };
	return rki_qnorm_exact(rki_quat_from_m3(r));
}

bool rki_char_frame_from_rest(const rk_scene *scene, const rk_humanoid *h, const rk_mat4 *rest, rki_char_frame *out,
	rk_error *err)
{
	const rk_node *hips = h->bones[RK_HUMANOID_HIPS], *head = h->bones[RK_HUMANOID_HEAD];
	const rk_node *lul = h->bones[RK_HUMANOID_LEFT_UPPER_LEG], *rul = h->bones[RK_HUMANOID_RIGHT_UPPER_LEG];
	const rk_node *lua = h->bones[RK_HUMANOID_LEFT_UPPER_ARM], *rua = h->bones[RK_HUMANOID_RIGHT_UPPER_ARM];
	if (!hips || !head || !lul || !rul || !lua || !rua) {
		rki_error_set(err, RK_ERROR_INVALID_ARGUMENT, "humanoid lacks hips, head, upper legs or upper arms");
		return false;
	}
	/* A mirrored world (a left-handed load conversion, a negative scale above
	 * the skeleton) has no rotation-only character frame: refuse it rather
	 * than produce a mirrored retarget. */
	if (rk_mat4_determinant3(rest[hips->index]) < 0.0) {
		rki_error_set(err, RK_ERROR_INVALID_ARGUMENT,
			"%s: the skeleton's world is mirrored (left-handed conversion or negative scale): load it without "
			"a handedness change", scene->source_path);
		return false;
	}
	rk_vec3 p_hips = rk_mat4_get_translation(rest[hips->index]);
	rk_vec3 p_head = rk_mat4_get_translation(rest[head->index]);
	rk_vec3 p_lul = rk_mat4_get_translation(rest[lul->index]), p_rul = rk_mat4_get_translation(rest[rul->index]);
	rk_vec3 mid = rk_vec3_scale(rk_vec3_add(p_lul, p_rul), 0.5);
	rk_vec3 up = rk_vec3_sub(p_head, mid);
	double up_len = rk_vec3_length(up);
	if (!(up_len > 0.0) || !isfinite(up_len)) {
		rki_error_set(err, RK_ERROR_INVALID_ARGUMENT, "%s: the rest head sits on the upper legs: no up direction",
			scene->source_path);
		return false;
	}
	up = rk_vec3_scale(up, 1.0 / up_len);
	/* The file's up axis when the skeleton agrees with it (within 30
	 * degrees): a head held forward or a curved spine must not tilt the
	 * floor. Otherwise (axes unknown or wrong) the skeleton decides. */
	rk_axis ua = scene->settings.axes.up;
	if (ua != RK_AXIS_UNKNOWN && ua <= RK_AXIS_NEGATIVE_Z) {
		int idx = (int)(ua - RK_AXIS_POSITIVE_X) / 2;
		double sign = ((int)(ua - RK_AXIS_POSITIVE_X) % 2) ? -1.0 : 1.0;
		rk_vec3 axis = { idx == 0 ? sign : 0.0, idx == 1 ? sign : 0.0, idx == 2 ? sign : 0.0 };
		if (rk_vec3_dot(axis, up) > cos(30.0 * 3.14159265358979323846 / 180.0)) up = axis;
	}
	rk_vec3 left = rk_vec3_sub(p_lul, p_rul);
	left = rk_vec3_sub(left, rk_vec3_scale(up, rk_vec3_dot(left, up)));
	if (rk_vec3_length(left) < 1e-3 * up_len) {
		left = rk_vec3_sub(rk_mat4_get_translation(rest[lua->index]), rk_mat4_get_translation(rest[rua->index]));
		left = rk_vec3_sub(left, rk_vec3_scale(up, rk_vec3_dot(left, up)));
	}
	if (rk_vec3_length(left) < 1e-3 * up_len) {
		rki_error_set(err, RK_ERROR_INVALID_ARGUMENT, "%s: left and right legs and arms coincide: no facing",
			scene->source_path);
		return false;
	}
	left = rk_vec3_normalize(left);
	rk_vec3 fwd = rk_vec3_cross(left, up);
	/* lowest foot-ish joint below the hips along up */
	static const rk_humanoid_bone feet[] = { RK_HUMANOID_LEFT_FOOT, RK_HUMANOID_RIGHT_FOOT, RK_HUMANOID_LEFT_TOES,
		RK_HUMANOID_RIGHT_TOES, RK_HUMANOID_LEFT_LOWER_LEG, RK_HUMANOID_RIGHT_LOWER_LEG };
	double low = 0.0;
	bool any = false;
	for (size_t k = 0; k < sizeof(feet) / sizeof(feet[0]); k++) {
		const rk_node *n = h->bones[feet[k]];
		if (!n) continue;
		double d = rk_vec3_dot(rk_vec3_sub(rk_mat4_get_translation(rest[n->index]), p_hips), up);
		if (!any || d < low) low = d;
		any = true;
	}
	double height = -low;
	if (!any || !(height > 1e-6 * up_len) || !isfinite(height)) {
		rki_error_set(err, RK_ERROR_INVALID_ARGUMENT, "%s: the rest feet are not below the hips", scene->source_path);
		return false;
	}
	/* world -> character: rows left, up, fwd */
	rk_mat4 m = rk_mat4_identity();
	m.m[0] = left.x, m.m[4] = left.y, m.m[8] = left.z;
	m.m[1] = up.x, m.m[5] = up.y, m.m[9] = up.z;
	m.m[2] = fwd.x, m.m[6] = fwd.y, m.m[10] = fwd.z;
	out->rotation = rki_matrix_rotation(m);
	out->origin = rk_vec3_add(p_hips, rk_vec3_scale(up, low));
	out->unit = height;
	return true;
}

rk_vec3 rki_char_point(const rki_char_frame *f, rk_vec3 world)
{
	/* rk_quat_rotate's formula inline (rki_qrot: the same bits) */
	rk_vec3 q = rki_qrot(f->rotation, rki_v3sub(world, f->origin));
	double k = 1.0 / f->unit;
	return (rk_vec3){ q.x * k, q.y * k, q.z * k };
}

rk_vec3 rki_char_from_world_point(const rki_char_frame *f, rk_vec3 c)
{
	return rk_vec3_add(f->origin, rk_quat_rotate(rk_quat_conjugate(f->rotation), rk_vec3_scale(c, f->unit)));
}

void rki_humanoid_pose_from(const rk_humanoid *h, const rki_char_frame *f, const rk_mat4 *node_to_world,
	rki_humanoid_pose *out)
{
	for (int b = 0; b < RK_HUMANOID_BONE_COUNT; b++) {
		const rk_node *n = h->bones[b];
		if (!n) {
			out->position[b] = (rk_vec3){ 0, 0, 0 };
			out->rotation[b] = RK_QUAT_IDENTITY;
			continue;
		}
		out->position[b] = rki_char_point(f, rki_node_position(node_to_world, n));
		out->rotation[b] = rki_qnorm_exact(rki_qmul(f->rotation, rki_matrix_rotation(node_to_world[n->index])));
	}
}

int rki_humanoid_direction_child(const rk_humanoid *h, rk_humanoid_bone bone)
{
	/* Preferred children, first mapped wins; chains skip unmapped links. */
	static const struct { rk_humanoid_bone bone; rk_humanoid_bone kids[5]; int count; } table[] = {
		{ RK_HUMANOID_HIPS, { RK_HUMANOID_SPINE, RK_HUMANOID_CHEST, RK_HUMANOID_UPPER_CHEST, RK_HUMANOID_NECK, RK_HUMANOID_HEAD }, 5 },
		{ RK_HUMANOID_SPINE, { RK_HUMANOID_CHEST, RK_HUMANOID_UPPER_CHEST, RK_HUMANOID_NECK, RK_HUMANOID_HEAD }, 4 },
		{ RK_HUMANOID_CHEST, { RK_HUMANOID_UPPER_CHEST, RK_HUMANOID_NECK, RK_HUMANOID_HEAD }, 3 },
		{ RK_HUMANOID_UPPER_CHEST, { RK_HUMANOID_NECK, RK_HUMANOID_HEAD }, 2 },
		{ RK_HUMANOID_NECK, { RK_HUMANOID_HEAD }, 1 },
		{ RK_HUMANOID_LEFT_UPPER_LEG, { RK_HUMANOID_LEFT_LOWER_LEG }, 1 },
		{ RK_HUMANOID_LEFT_LOWER_LEG, { RK_HUMANOID_LEFT_FOOT }, 1 },
		{ RK_HUMANOID_LEFT_FOOT, { RK_HUMANOID_LEFT_TOES }, 1 },
		{ RK_HUMANOID_RIGHT_UPPER_LEG, { RK_HUMANOID_RIGHT_LOWER_LEG }, 1 },
		{ RK_HUMANOID_RIGHT_LOWER_LEG, { RK_HUMANOID_RIGHT_FOOT }, 1 },
		{ RK_HUMANOID_RIGHT_FOOT, { RK_HUMANOID_RIGHT_TOES }, 1 },
		{ RK_HUMANOID_LEFT_SHOULDER, { RK_HUMANOID_LEFT_UPPER_ARM }, 1 },
		{ RK_HUMANOID_LEFT_UPPER_ARM, { RK_HUMANOID_LEFT_LOWER_ARM }, 1 },
		{ RK_HUMANOID_LEFT_LOWER_ARM, { RK_HUMANOID_LEFT_HAND }, 1 },
		{ RK_HUMANOID_LEFT_HAND, { RK_HUMANOID_LEFT_MIDDLE_PROXIMAL, RK_HUMANOID_LEFT_RING_PROXIMAL,
			RK_HUMANOID_LEFT_INDEX_PROXIMAL, RK_HUMANOID_LEFT_LITTLE_PROXIMAL }, 4 },
		{ RK_HUMANOID_RIGHT_SHOULDER, { RK_HUMANOID_RIGHT_UPPER_ARM }, 1 },
		{ RK_HUMANOID_RIGHT_UPPER_ARM, { RK_HUMANOID_RIGHT_LOWER_ARM }, 1 },
		{ RK_HUMANOID_RIGHT_LOWER_ARM, { RK_HUMANOID_RIGHT_HAND }, 1 },
		{ RK_HUMANOID_RIGHT_HAND, { RK_HUMANOID_RIGHT_MIDDLE_PROXIMAL, RK_HUMANOID_RIGHT_RING_PROXIMAL,
			RK_HUMANOID_RIGHT_INDEX_PROXIMAL, RK_HUMANOID_RIGHT_LITTLE_PROXIMAL }, 4 },
	};
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
		if (table[i].bone != bone) continue;
		for (int k = 0; k < table[i].count; k++)
			if (h->bones[table[i].kids[k]]) return (int)table[i].kids[k];
		return -1;
	}
	/* fingers: metacarpal -> proximal -> intermediate -> distal (the order of the enum) */
	if (bone >= RK_HUMANOID_LEFT_THUMB_METACARPAL && bone < RK_HUMANOID_BONE_COUNT) {
		int first = bone >= RK_HUMANOID_RIGHT_THUMB_METACARPAL ? RK_HUMANOID_RIGHT_THUMB_METACARPAL
			: RK_HUMANOID_LEFT_THUMB_METACARPAL;
		int pos = ((int)bone - first) % 3;
		if (pos < 2 && h->bones[bone + 1]) return (int)bone + 1;
	}
	return -1;
}

/* Prefixes err's message with "<which> (<file>): ". */
static void rki_prefix_error(rk_error *err, const char *which, const char *file)
{
	if (!err) return;
	char msg[RK_ERROR_TEXT_MAX];
	memcpy(msg, err->message, sizeof(msg));
	msg[sizeof(msg) - 1] = '\0';
	rki_error_set(err, err->code, "%s (%s): %s", which, file && file[0] ? file : "memory", msg);
}

const rk_humanoid *rki_humanoid_resolve(const rk_scene *scene, const rk_humanoid *given, rk_humanoid *storage,
	const char *which, rk_error *err)
{
	if (given) {
		if (!rk_humanoid_validate(given, scene, err)) {
			rki_prefix_error(err, which, scene->source_path);
			return NULL;
		}
		return given;
	}
	if (!rk_humanoid_detect(scene, storage, err)) {
		rki_prefix_error(err, which, scene->source_path);
		return NULL;
	}
	return storage;
}

bool rki_pose_buffer_init(rki_pose_buffer *b, const rk_scene *scene, rki_alloc *alloc, rk_error *err)
{
	memset(b, 0, sizeof(*b));
	size_t bytes = rk_pose_memory_size(scene);
	b->alloc = alloc;
	b->memory = bytes ? rki_malloc(alloc, bytes) : NULL;
	b->size = b->memory ? bytes : 0;
	if (!b->memory || !rk_pose_init(&b->pose, scene, b->memory, bytes)) {
		rki_error_set(err, alloc->limit_hit ? RK_ERROR_LIMIT : RK_ERROR_OUT_OF_MEMORY,
			"cannot allocate a pose of %zu nodes (%zu bytes)", scene->nodes.count, bytes);
		rki_pose_buffer_free(b);
		return false;
	}
	return true;
}

void rki_pose_buffer_free(rki_pose_buffer *b)
{
	if (b->memory) rki_free(b->alloc, b->memory, b->size);
	memset(b, 0, sizeof(*b));
}

void rki_retarget_opts_resolve(rk_retarget_opts *out, const rk_retarget_opts *in, const rk_scene *source)
{
	if (in) *out = *in;
	else memset(out, 0, sizeof(*out));
	if (out->fps == 0.0) out->fps = source->settings.frame_rate > 0.0 ? source->settings.frame_rate : 30.0;
	if (!out->memory_limit) out->memory_limit = RKI_DEFAULT_MEMORY_LIMIT;
	if (!out->max_frames) out->max_frames = RK_DEFAULT_MAX_FRAMES;
}

void rki_compare_opts_resolve(rk_compare_opts *out, const rk_compare_opts *in)
{
	if (in) *out = *in;
	else memset(out, 0, sizeof(*out));
	if (out->fps == 0.0) out->fps = 30.0;
	if (!out->memory_limit) out->memory_limit = RKI_DEFAULT_MEMORY_LIMIT;
}

void rki_warn_unpaired_bones(rk_warning_fn *fn, void *user, const rk_humanoid *a, const rk_humanoid *b,
	const char *a_name, const char *b_name, const char *what)
{
	if (!fn) return;
	for (int k = 0; k < RK_HUMANOID_BONE_COUNT; k++) {
		if (!a->bones[k] == !b->bones[k]) continue;
		rki_warning_emitf(fn, user, "humanoid bone %s is mapped in the %s skeleton only: %s",
			rk_humanoid_bone_name((rk_humanoid_bone)k), a->bones[k] ? a_name : b_name, what);
	}
}

bool rki_pose_buffer_eval(rki_pose_buffer *b, const rk_scene *scene, const rk_anim_clip *clip, double t,
	rk_error *err)
{
	rk_pose_eval_job job;
	memset(&job, 0, sizeof(job));
	job.scene = scene;
	job.clip = clip;
	job.time = t;
	job.pose = &b->pose;
	if (!rk_pose_eval_validate(&job, err)) return false;
	return rk_pose_eval_run(&job);
}

bool rki_rest_table_init(rki_rest_table *t, const rk_scene *scene, rk_rest_mode mode, rki_alloc *alloc, rk_error *err)
{
	memset(t, 0, sizeof(*t));
	size_t n = scene->nodes.count;
	if (n > SIZE_MAX / (2 * sizeof(rk_mat4))) {
		rki_error_set(err, RK_ERROR_LIMIT, "%zu nodes", n);
		return false;
	}
	t->alloc = alloc;
	t->count = n;
	t->world = n ? (rk_mat4 *)rki_malloc(alloc, 2 * n * sizeof(rk_mat4)) : NULL;
	if (!t->world) {
		rki_error_set(err, alloc->limit_hit ? RK_ERROR_LIMIT : RK_ERROR_OUT_OF_MEMORY,
			"cannot allocate the rest pose of %zu nodes", n);
		t->count = 0;
		return false;
	}
	t->local = t->world + n;
	rk_rest_opts ro;
	memset(&ro, 0, sizeof(ro));
	ro.mode = mode;
	ro.allocator = alloc->user;
	/* the rest of the caller's budget (0 = unlimited there) */
	if (alloc->memory_limit)
		ro.memory_limit = alloc->memory_limit > alloc->bytes_in_use ? alloc->memory_limit - alloc->bytes_in_use : 1;
	else
		ro.memory_limit = SIZE_MAX;
	if (!rk_rest_pose_eval(scene, &ro, t->world, t->local, &t->report, err)) {
		rki_rest_table_free(t);
		return false;
	}
	return true;
}

void rki_rest_table_free(rki_rest_table *t)
{
	if (t->world) rki_free(t->alloc, t->world, 2 * t->count * sizeof(rk_mat4));
	memset(t, 0, sizeof(*t));
}

bool rk_character_frame_eval(const rk_scene *scene, const rk_humanoid *h, rk_rest_mode rest, rk_character_frame *out,
	rk_error *err)
{
	if (out) memset(out, 0, sizeof(*out));
	if (!scene || !out) {
		rki_error_set(err, RK_ERROR_INVALID_ARGUMENT, "rk_character_frame_eval: scene and out are required");
		return false;
	}
	rk_humanoid store;
	const rk_humanoid *hm = rki_humanoid_resolve(scene, h, &store, "skeleton", err);
	if (!hm) return false;
	rki_alloc alloc;
	rki_alloc_init(&alloc, NULL, RKI_DEFAULT_MEMORY_LIMIT, 0);
	rki_rest_table t;
	if (!rki_rest_table_init(&t, scene, rest, &alloc, err)) return false;
	rki_char_frame f;
	bool ok = rki_char_frame_from_rest(scene, hm, t.world, &f, err);
	if (ok) {
		rk_quat to_world = rk_quat_conjugate(f.rotation);
		out->rest = t.report;
		out->hips_height = f.unit;
		out->origin = f.origin;
		out->left = rk_quat_rotate(to_world, (rk_vec3){ 1, 0, 0 });
		out->up = rk_quat_rotate(to_world, (rk_vec3){ 0, 1, 0 });
		out->forward = rk_quat_rotate(to_world, (rk_vec3){ 0, 0, 1 });
		rki_error_clear(err);
	}
	rki_rest_table_free(&t);
	return ok;
}
