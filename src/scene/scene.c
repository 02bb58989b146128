/* src/scene/scene.c - scene lifetime and the builder readers share (no reader names here). */
#include "scene_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* The scene, its allocator and its arena live in one block. */
typedef struct rki_scene_block {
	rk_scene scene;
	rki_alloc alloc;
	rki_arena arena;
} rki_scene_block;

#define RKI_DEFAULT_FILE_LIMIT ((size_t)2 << 30)
#define RKI_DEFAULT_MAX_DEPTH 256
#define RKI_DEFAULT_MAX_ELEMENTS ((size_t)1 << 28)

size_t rki_load_memory_budget(size_t input_bytes)
{
	size_t cap = RKI_DEFAULT_MEMORY_LIMIT;
	if (input_bytes > cap / RKI_LOAD_BUDGET_PER_BYTE) return cap;
	size_t b = input_bytes * RKI_LOAD_BUDGET_PER_BYTE;
	return b < RKI_LOAD_BUDGET_MIN ? RKI_LOAD_BUDGET_MIN : b;
}

void rki_load_opts_resolve(rk_load_opts *out, const rk_load_opts *in, size_t input_bytes)
{
	if (in) *out = *in;
	else memset(out, 0, sizeof(*out));
	if (!out->memory_limit) out->memory_limit = rki_load_memory_budget(input_bytes);
	if (!out->file_size_limit) out->file_size_limit = RKI_DEFAULT_FILE_LIMIT;
	if (!out->max_depth) out->max_depth = RKI_DEFAULT_MAX_DEPTH;
	if (!out->max_elements) out->max_elements = RKI_DEFAULT_MAX_ELEMENTS;
}

bool rki_load_opts_validate(const rk_load_opts *o, rk_error *err)
{
	if (!o) return true;
	const char *bad = NULL;
	const rk_axes a = o->target_axes;
	bool keep_axes = !a.right && !a.up && !a.front;
	if (!keep_axes && !rk_axes_valid(a))
		bad = "target_axes (expected all RK_AXIS_UNKNOWN = keep, or three distinct known axes)";
	else if (!(o->target_unit_meters == 0.0 || (o->target_unit_meters > 0.0 && isfinite(o->target_unit_meters))))
		bad = "target_unit_meters (expected 0 = keep or a finite number of metres > 0)";
	else if ((unsigned)o->space_conversion > (unsigned)RK_CONVERT_MODIFY_GEOMETRY)
		bad = "space_conversion (expected RK_CONVERT_ADJUST_TRANSFORMS or RK_CONVERT_MODIFY_GEOMETRY)";
	if (!bad) return true;
	rki_error_set(err, RK_ERROR_INVALID_ARGUMENT, "rk_load_opts.%s", bad);
	return false;
}

bool rki_scene_begin(rki_scene_ctx *ctx, const rk_load_opts *opts, const char *filename, size_t input_bytes,
	rk_error *err)
{
	memset(ctx, 0, sizeof(*ctx));
	if (!rki_load_opts_validate(opts, err)) {
		rki_error_file(err, filename);
		return false;
	}
	rki_load_opts_resolve(&ctx->opts, opts, input_bytes);
	ctx->budget_auto = !opts || !opts->memory_limit;
	ctx->err = err;
	rki_alloc bootstrap;
	rki_alloc_init(&bootstrap, &ctx->opts.allocator, ctx->opts.memory_limit, ctx->opts.allocation_limit);
	rki_scene_block *b = (rki_scene_block *)rki_calloc(&bootstrap, 1, sizeof(rki_scene_block));
	if (!b) {
		rki_error_set(err, bootstrap.limit_hit ? RK_ERROR_LIMIT : RK_ERROR_OUT_OF_MEMORY, "cannot allocate the scene (memory budget %zu bytes)",
			ctx->opts.memory_limit);
		rki_error_file(err, filename);
		return false;
	}
	b->alloc = bootstrap;
	rki_arena_init(&b->arena, &b->alloc);
	rki_arena_init(&ctx->tmp, &b->alloc);
	b->scene.internal_ = b;
	ctx->scene = &b->scene;
	ctx->alloc = &b->alloc;
	ctx->arena = &b->arena;
	const char *fn = filename ? filename : "";
	ctx->scene->source_path = rki_arena_strndup(ctx->arena, fn, strlen(fn));
	if (!ctx->scene->source_path) {
		rki_scene_oom(ctx);
		rki_scene_abort(ctx);
		return false;
	}
	ctx->scene->settings.unit_meters = ctx->scene->settings.original_unit_meters = 0.01;
	ctx->scene->settings.creator = "";
	return true;
}

void rki_scene_budget_input(rki_scene_ctx *ctx, size_t bytes)
{
	if (!ctx->budget_auto || !ctx->alloc) return;
	size_t cap = RKI_DEFAULT_MEMORY_LIMIT, add = bytes > cap / RKI_LOAD_BUDGET_PER_BYTE ? cap : bytes * RKI_LOAD_BUDGET_PER_BYTE;
	size_t now = ctx->alloc->memory_limit;
	now = now > cap - add ? cap : now + add;
	ctx->alloc->memory_limit = ctx->opts.memory_limit = now;
}

void rki_scene_oom(rki_scene_ctx *ctx)
{
	if (ctx->err && ctx->err->code != RK_OK) return;
	char file[RK_ERROR_TEXT_MAX];
	rki_strlcpy(file, ctx->err && ctx->err->file[0] ? ctx->err->file : ctx->scene && ctx->scene->source_path ? ctx->scene->source_path : "", sizeof(file));
	if (ctx->alloc && ctx->alloc->limit_hit && ctx->opts.allocation_limit && ctx->alloc->allocation_count >= ctx->opts.allocation_limit)
		rki_error_set(ctx->err, RK_ERROR_LIMIT, "allocation count limit reached (%zu allocations)", ctx->opts.allocation_limit);
	else if (ctx->alloc && ctx->alloc->limit_hit)
		rki_error_set(ctx->err, RK_ERROR_LIMIT,
			"memory budget of %zu bytes exceeded (%s; rk_load_opts.memory_limit or --max-memory sets it)",
			ctx->opts.memory_limit, ctx->budget_auto ? "the default: max(256 MiB, 64 x the input size)" : "set by the caller");
	else
		rki_error_set(ctx->err, RK_ERROR_OUT_OF_MEMORY, "out of memory");
	rki_error_file(ctx->err, file);
}

rki_file_status rki_scene_open_file(rki_scene_ctx *sc, const rki_file_ask *ask, rki_file_result *out)
{
	if (sc->files) return sc->files->open(sc->files, ask, out, sc->err);
	memset(out, 0, sizeof(*out));
	out->reference = "";
	out->status = RKI_FILE_MISSING;
	snprintf(out->why, sizeof(out->why), "external files are not available to this reader");
	return out->status;
}

void rki_scene_warn(rki_scene_ctx *ctx, uint64_t byte_offset, const char *path, const char *fmt, ...)
{
	char msg[RK_ERROR_TEXT_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	for (rki_warning_node *w = ctx->warnings; w; w = w->next) {
		if (strcmp(w->warning.message, msg) == 0) {
			w->warning.count++;
			return;
		}
	}
	if (ctx->opts.warning) {
		/* reported as recorded, even when the list below is full */
		rk_warning now = { msg, byte_offset, path ? path : "", 1 };
		ctx->opts.warning(ctx->opts.warning_user, &now);
	}
	if (ctx->warning_count >= 1024) return; /* bounded: hostile files cannot grow this */
	rki_warning_node *w = (rki_warning_node *)rki_arena_alloc(ctx->arena, sizeof(*w));
	if (!w) return;
	w->warning.message = rki_arena_strndup(ctx->arena, msg, strlen(msg));
	w->warning.byte_offset = byte_offset;
	const char *p = path ? path : "";
	w->warning.path = rki_arena_strndup(ctx->arena, p, strlen(p));
	w->warning.count = 1;
	if (!w->warning.message || !w->warning.path) return;
	if (ctx->warnings_tail) ctx->warnings_tail->next = w;
	else ctx->warnings = w;
	ctx->warnings_tail = w;
	ctx->warning_count++;
}

void rki_scene_abort(rki_scene_ctx *ctx)
{
	if (!ctx->scene) return;
	rki_arena_free(&ctx->tmp);
	rk_scene_free(ctx->scene);
	ctx->scene = NULL;
}

/* Root conversion: axis change and unit scale as the root's node_to_parent. */
/* Copy of n vec3 held as doubles (src) or floats (src_f, 3 per value),
 * scaled by k into doubles (arena); NULL on allocation failure. */
static rk_vec3 *rki_scaled_copy(rki_arena *ar, const rk_vec3 *src, const float *src_f, size_t n, double k)
{
	rk_vec3 *d = (rk_vec3 *)rki_arena_array(ar, n ? n : 1, sizeof(rk_vec3));
	if (!d) return NULL;
	if (src)
		for (size_t i = 0; i < n; i++) d[i] = rk_vec3_scale(src[i], k);
	else if (src_f)
		for (size_t i = 0; i < n; i++) d[i] = rk_vec3_scale((rk_vec3){ src_f[3 * i], src_f[3 * i + 1], src_f[3 * i + 2] }, k);
	return d;
}

static void rki_scale_translation(rk_mat4 *m, double k)
{
	m->m[12] *= k;
	m->m[13] *= k;
	m->m[14] *= k;
}

/* RK_CONVERT_MODIFY_GEOMETRY for a unit factor k: every translation (node
 * chains through adjust.translation_scale, so animated translations and
 * pivots follow), vertex position, blend shape offset, geometric
 * translation and bind matrix is scaled by k. Arrays are rewritten as
 * scaled copies (they may be shared). False on allocation failure. */
static bool rki_modify_geometry_units(rki_scene_ctx *ctx, double k)
{
	rk_scene *s = ctx->scene;
	for (size_t i = 1; i < s->nodes.count; i++) {
		rk_node *n = &s->nodes.data[i];
		n->adjust.translation_scale *= k;
		n->props.geometric_translation = rk_vec3_scale(n->props.geometric_translation, k);
		if (n->has_bind_pose) rki_scale_translation(&n->bind_node_to_world, k);
	}
	for (size_t i = 0; i < s->meshes.count; i++) {
		rk_mesh *m = &s->meshes.data[i];
		if (m->vertex_count) {
			rk_vec3 *p = rki_scaled_copy(ctx->arena, m->positions_f64, m->positions_f32, m->vertex_count, k);
			if (!p) return false;
			m->positions_f64 = p;
			m->positions_f32 = NULL;
		}
		for (size_t c = 0; c < m->blend_channels.count; c++) {
			rk_blend_channel *ch = &m->blend_channels.data[c];
			for (size_t t = 0; t < ch->target_count; t++) {
				rk_blend_shape *bs = (rk_blend_shape *)&ch->targets[t];
				if (!bs->offset_count) continue;
				rk_vec3 *o = rki_scaled_copy(ctx->arena, bs->position_offsets_f64, bs->position_offsets_f32, bs->offset_count, k);
				if (!o) return false;
				bs->position_offsets_f64 = o;
				bs->position_offsets_f32 = NULL;
			}
		}
	}
	for (size_t i = 0; i < s->skins.count; i++) {
		rk_skin_deformer *sk = &s->skins.data[i];
		for (size_t j = 0; j < sk->joint_count; j++) {
			rk_skin_joint *jt = (rk_skin_joint *)&sk->joints[j];
			rki_scale_translation(&jt->mesh_to_joint, k);
			rki_scale_translation(&jt->joint_to_world_bind, k);
			rki_scale_translation(&jt->mesh_to_world_bind, k);
		}
	}
	return true;
}

/* Unit and axis conversion (rk_load_opts). ADJUST_TRANSFORMS (default): the
 * whole conversion is the synthetic root's node_to_parent. MODIFY_GEOMETRY:
 * units are applied to the data (rki_modify_geometry_units) and the axis
 * rotation goes into the root children's adjust.pre_rotation; a mirroring
 * axis change (left <-> right handed) stays at the root in both modes. */
static bool rki_apply_conversion(rki_scene_ctx *ctx)
{
	rk_scene *s = ctx->scene;
	rk_node *root = s->root;
	rk_mat4 axes = rk_mat4_identity();
	double k = 1.0;
	if (rk_axes_valid(ctx->opts.target_axes) && rk_axes_valid(s->settings.original_axes)
		&& !rk_axes_equal(ctx->opts.target_axes, s->settings.original_axes)) {
		axes = rk_axes_conversion(s->settings.original_axes, ctx->opts.target_axes);
		s->settings.axes = ctx->opts.target_axes;
	} else if (rk_axes_valid(ctx->opts.target_axes) && !rk_axes_valid(s->settings.original_axes)) {
		rki_scene_warn(ctx, UINT64_MAX, "", "file does not state its axes: target_axes ignored");
	}
	if (ctx->opts.target_unit_meters > 0.0 && s->settings.original_unit_meters > 0.0
		&& fabs(ctx->opts.target_unit_meters - s->settings.original_unit_meters) > 1e-15) {
		k = s->settings.original_unit_meters / ctx->opts.target_unit_meters;
		s->settings.unit_meters = ctx->opts.target_unit_meters;
	}
	if (!root) return true;
	rk_mat4 at_root = rk_mat4_identity();
	if (ctx->opts.space_conversion == RK_CONVERT_MODIFY_GEOMETRY) {
		if (k != 1.0 && !rki_modify_geometry_units(ctx, k)) return false;
		if (rk_mat4_determinant3(axes) > 0.0) {
			rk_quat q = rk_mat4_decompose(axes).rotation;
			for (size_t i = 0; i < root->children.count; i++) {
				rk_adjust_transform *a = &root->children.data[i]->adjust;
				a->pre_rotation = rk_quat_normalize(rk_quat_mul(q, a->pre_rotation));
			}
		} else {
			at_root = axes;
		}
	} else {
		at_root = rk_mat4_mul(rk_mat4_scaling((rk_vec3){ k, k, k }), axes);
	}
	root->node_to_parent = at_root;
	root->local = rk_mat4_decompose(at_root);
	return true;
}

rk_scene *rki_scene_finish(rki_scene_ctx *ctx)
{
	rk_scene *s = ctx->scene;
	rki_arena_reserve(ctx->arena, 0);   /* a load's unused reservation must not size later additions */
	if (!s->settings.original_axes.up) s->settings.original_axes = s->settings.axes;
	if (s->settings.original_unit_meters <= 0.0) s->settings.original_unit_meters = s->settings.unit_meters;
	if (s->nodes.count > 0) s->root = &s->nodes.data[0];
	if (!rki_apply_conversion(ctx)) {
		rki_scene_oom(ctx);
		rki_scene_abort(ctx);
		return NULL;
	}
	rki_scene_update_matrices(s);
	if (!rki_scene_check_finite(ctx)) {
		rki_scene_abort(ctx);
		return NULL;
	}
	if (ctx->warning_count) {
		rk_warning *w = (rk_warning *)rki_arena_array(ctx->arena, ctx->warning_count, sizeof(rk_warning));
		if (w) {
			size_t i = 0;
			for (rki_warning_node *n = ctx->warnings; n; n = n->next) {
				w[i++] = n->warning;
				if (ctx->opts.warning && n->warning.count > 1) ctx->opts.warning(ctx->opts.warning_user, &n->warning);
			}
			s->warnings.data = w;
			s->warnings.count = i;
		}
	}
	rki_arena_free(&ctx->tmp);
	rki_scene_block *b = (rki_scene_block *)s->internal_;
	s->memory_used = b->arena.total + sizeof(*b);
	return s;
}

void rk_scene_free(rk_scene *scene)
{
	if (!scene) return;
	rki_scene_block *b = (rki_scene_block *)scene->internal_;
	if (!b) return;
	rki_arena_free(&b->arena);
	rki_alloc a = b->alloc;
	rki_free(&a, b, sizeof(*b));
}

/* ---- additions after load ----------------------------------------------------- */

rki_arena *rki_scene_arena(rk_scene *scene)
{
	rki_scene_block *b = scene ? (rki_scene_block *)scene->internal_ : NULL;
	return b ? &b->arena : NULL;
}

rk_anim_clip *rki_scene_append_clip(rk_scene *scene, const rk_anim_clip *clip)
{
	rki_scene_block *b = scene ? (rki_scene_block *)scene->internal_ : NULL;
	if (!b || !clip || scene->clips.count >= UINT32_MAX) return NULL;
	size_t n = scene->clips.count;
	rk_anim_clip *list = (rk_anim_clip *)rki_arena_array(&b->arena, n + 1, sizeof(rk_anim_clip));
	if (!list) return NULL;
	if (n) memcpy(list, scene->clips.data, n * sizeof(rk_anim_clip));
	list[n] = *clip;
	list[n].index = (uint32_t)n;
	scene->clips.data = list;
	scene->clips.count = n + 1;
	scene->memory_used = b->arena.total + sizeof(*b);
	return &list[n];
}

/* ---- hierarchy helpers ------------------------------------------------------ */

bool rki_depth_first_order(size_t count, const uint32_t *parent, uint32_t *out_order, uint32_t *scratch)
{
	/* scratch: first_child[count], next_sibling[count], stack[count] */
	uint32_t *first = scratch, *next = scratch + count, *stack = scratch + 2 * count;
	for (size_t i = 0; i < count; i++) first[i] = next[i] = UINT32_MAX;
	/* Link children in reverse so that the lists come out in index order. */
	for (size_t k = count; k-- > 0;) {
		uint32_t p = parent[k];
		if (p == UINT32_MAX) continue;
		if (p >= count || p == k) return false;
		next[k] = first[p];
		first[p] = (uint32_t)k;
	}
	size_t n = 0;
	for (size_t r = 0; r < count; r++) {
		if (parent[r] != UINT32_MAX) continue;
		size_t sp = 0;
		stack[sp++] = (uint32_t)r;
		while (sp > 0) {
			uint32_t v = stack[--sp];
			if (n >= count) return false;
			out_order[n++] = v;
			/* push children reversed so the first child pops first */
			uint32_t tmp_count = 0;
			for (uint32_t c = first[v]; c != UINT32_MAX; c = next[c]) tmp_count++;
			if (sp + tmp_count > count) return false;
			uint32_t idx = (uint32_t)(sp + tmp_count);
			for (uint32_t c = first[v]; c != UINT32_MAX; c = next[c]) stack[--idx] = c;
			sp += tmp_count;
		}
	}
	/* Nodes on a cycle are never reached from a root. */
	return n == count;
}

void rki_scene_update_matrices(rk_scene *scene)
{
	rk_node *nodes = scene->nodes.data;
	for (size_t i = 0; i < scene->nodes.count; i++) {
		rk_node *n = &nodes[i];
		if (n->kind == RK_NODE_ROOT) {
			/* node_to_parent holds the load conversion (identity without one). */
			if (n->node_to_parent.m[15] == 0.0) n->node_to_parent = rk_mat4_identity();
			n->geometry_to_node = rk_mat4_identity();
			n->depth = 0;
		} else if (n->has_fbx_props) {
			n->node_to_parent = rk_fbx_node_to_parent(&n->props, &n->adjust);
			n->geometry_to_node = rk_fbx_geometry_to_node(&n->props);
			n->local = rk_mat4_decompose(n->node_to_parent);
		} else {
			/* Tadj(Spre * Radj_pre * Tpre * (T R S) * Spost * Radj_post), as in transform.h */
			n->node_to_parent = rk_adjust_transform_apply(rk_mat4_from_trs(n->local), &n->adjust);
			n->geometry_to_node = rk_mat4_identity();
		}
		n->has_geometry_transform = rk_mat4_max_diff(n->geometry_to_node, rk_mat4_identity()) > 0.0;
		rk_world_transform w;
		if (n->parent) {
			rk_node *p = n->parent;
			rk_world_transform pw = { p->node_to_world, p->unscaled_node_to_world, p->inherit_scale };
			rk_vec3 pls = p->has_fbx_props ? p->props.scaling : p->local.scale;
			rk_inherit_mode mode = n->has_fbx_props ? n->props.inherit_mode : RK_INHERIT_NORMAL;
			w = rk_world_transform_compose(&pw, pls, n->node_to_parent, mode);
			n->depth = p->depth + 1;
		} else {
			w = rk_world_transform_compose(NULL, (rk_vec3){ 1, 1, 1 }, n->node_to_parent, RK_INHERIT_NORMAL);
		}
		n->node_to_world = w.node_to_world;
		n->unscaled_node_to_world = w.unscaled_node_to_world;
		n->inherit_scale = w.inherit_scale;
		n->geometry_to_world = rk_mat4_mul(n->node_to_world, n->geometry_to_node);
	}
}

const char *rk_format_name(rk_file_format format)
{
	switch (format) {
	case RK_FORMAT_FBX: return "fbx";
	case RK_FORMAT_GLTF: return "gltf";
	case RK_FORMAT_GLB: return "glb";
	case RK_FORMAT_OBJ: return "obj";
	case RK_FORMAT_BVH: return "bvh";
	default: return "unknown";
	}
}

rk_node *rk_scene_find_node(const rk_scene *scene, const char *name)
{
	if (!scene || !name) return NULL;
	for (size_t i = 0; i < scene->nodes.count; i++)
		if (scene->nodes.data[i].name && strcmp(scene->nodes.data[i].name, name) == 0) return &scene->nodes.data[i];
	return NULL;
}

rk_anim_clip *rk_scene_find_clip(const rk_scene *scene, const char *name)
{
	if (!scene || !name) return NULL;
	for (size_t i = 0; i < scene->clips.count; i++)
		if (scene->clips.data[i].name && strcmp(scene->clips.data[i].name, name) == 0) return &scene->clips.data[i];
	return NULL;
}

const rk_ext_value *rk_scene_extension(const rk_scene *scene, const char *name)
{
	if (!scene || !name) return NULL;
	for (size_t i = 0; i < scene->extensions.count; i++)
		if (scene->extensions.data[i].owner == RK_EXT_OWNER_SCENE && strcmp(scene->extensions.data[i].name, name) == 0)
			return &scene->extensions.data[i].value;
	return NULL;
}

const rk_ext_value *rk_ext_member(const rk_ext_value *obj, const char *key)
{
	if (!obj || !key || obj->kind != RK_EXT_OBJECT) return NULL;
	for (size_t i = 0; i < obj->count; i++)
		if (obj->items[i].key && strcmp(obj->items[i].key, key) == 0) return &obj->items[i];
	return NULL;
}

/* ---- axes ------------------------------------------------------------------------ */

const char *rk_axis_name(rk_axis axis)
{
	static const char *const names[] = { "?", "+X", "-X", "+Y", "-Y", "+Z", "-Z" };
	return (unsigned)axis < 7u ? names[axis] : "?";
}

bool rk_axes_equal(rk_axes a, rk_axes b)
{
	return a.right == b.right && a.up == b.up && a.front == b.front;
}

static int rki_axis_dim(rk_axis a) { return a == RK_AXIS_UNKNOWN ? -1 : ((int)a - 1) / 2; }
static double rki_axis_sign(rk_axis a) { return (((int)a - 1) % 2) ? -1.0 : 1.0; }

bool rk_axes_valid(rk_axes a)
{
	int r = rki_axis_dim(a.right), u = rki_axis_dim(a.up), f = rki_axis_dim(a.front);
	if ((unsigned)a.right > 6u || (unsigned)a.up > 6u || (unsigned)a.front > 6u) return false;
	return r >= 0 && u >= 0 && f >= 0 && r != u && u != f && r != f;
}

bool rk_axes_parse(const char *text, rk_axes *out)
{
	if (!text) return false;
	if (strcmp(text, "right_handed_y_up") == 0) *out = RK_AXES_RIGHT_HANDED_Y_UP;
	else if (strcmp(text, "left_handed_y_up") == 0) *out = RK_AXES_LEFT_HANDED_Y_UP;
	else if (strcmp(text, "right_handed_z_up") == 0) *out = RK_AXES_RIGHT_HANDED_Z_UP;
	else if (strcmp(text, "left_handed_z_up") == 0) *out = RK_AXES_LEFT_HANDED_Z_UP;
	else return false;
	return true;
}

rk_mat4 rk_axes_conversion(rk_axes from, rk_axes to)
{
	/* M(axes) maps an abstract (right, up, front) frame to file coordinates:
	 * abstract axis k lies along coordinate dim(axes[k]) with its sign. So
	 * p_to = M(to) * M(from)^-1 * p_from, and M is a signed permutation whose
	 * inverse is its transpose. */
	if (!rk_axes_valid(from) || !rk_axes_valid(to)) return rk_mat4_identity();
	const rk_axis fa[3] = { from.right, from.up, from.front };
	const rk_axis ta[3] = { to.right, to.up, to.front };
	rk_mat4 mf, mt;
	memset(&mf, 0, sizeof(mf));
	memset(&mt, 0, sizeof(mt));
	mf.m[15] = mt.m[15] = 1.0;
	for (int k = 0; k < 3; k++) {
		mf.m[k * 4 + rki_axis_dim(fa[k])] = rki_axis_sign(fa[k]);
		mt.m[k * 4 + rki_axis_dim(ta[k])] = rki_axis_sign(ta[k]);
	}
	/* file coords -> abstract: mf^T; abstract -> target coords: mt. */
	return rk_mat4_mul(mt, rk_mat4_transpose(mf));
}

void rki_warning_emitv(rk_warning_fn *fn, void *user, const char *fmt, va_list ap)
{
	if (!fn) return;
	char msg[RK_ERROR_TEXT_MAX];
	vsnprintf(msg, sizeof(msg), fmt, ap);
	rk_warning w = { msg, UINT64_MAX, "", 1 };
	fn(user, &w);
}

void rki_warning_emitf(rk_warning_fn *fn, void *user, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	rki_warning_emitv(fn, user, fmt, ap);
	va_end(ap);
}
