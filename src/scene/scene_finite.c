/*
 * src/scene/scene_finite.c - the last check of every load: no NaN or
 * infinity in the static data of a finished scene (issue 18, "no quiet
 * garbage"). The readers already refuse non-finite numbers where they read
 * them, with the byte offset / FBX node / JSON pointer (FBX arrays,
 * glTF accessors and JSON numbers), or replace them by a documented default
 * with a warning (FBX transform properties, FBX key values, glTF weights);
 * this pass makes sure nothing else gets through, whatever the reader:
 * node transforms (props, local TRS, matrices), mesh positions, normals,
 * UVs, tangents, colours, blend shape offsets, skin matrices and weights,
 * animation keys. A failure is RK_ERROR_CORRUPT naming the file and the
 * element. Material factors and texture transforms are the exception: a
 * non-finite one becomes its default with a warning.
 */
#include "scene_internal.h"

#include <math.h>
#include <stdarg.h>
#include <string.h>

static bool rki_fin(const double *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!isfinite(v[i])) return false;
	return true;
}

/* Index of the first non-finite rk_vec<dim> of values (count of them), or SIZE_MAX. */
static size_t rki_bad_vec(const double *v, size_t count, size_t dim)
{
	if (!v) return SIZE_MAX;
	if (count <= SIZE_MAX / dim && rki_f64_all_finite(v, count * dim)) return SIZE_MAX;
	for (size_t i = 0; i < count; i++)
		if (!rki_fin(v + i * dim, dim)) return i;
	return SIZE_MAX;
}

static bool rki_finite_fail(rki_scene_ctx *ctx, const char *fmt, ...) RKI_PRINTF(2, 3);

static bool rki_finite_fail(rki_scene_ctx *ctx, const char *fmt, ...)
{
	if (!ctx->err) return false;
	va_list ap;
	va_start(ap, fmt);
	rki_error_setv(ctx->err, RK_ERROR_CORRUPT, fmt, ap);
	va_end(ap);
	rki_error_file(ctx->err, ctx->scene->source_path ? ctx->scene->source_path : "");
	return false;
}

static bool rki_check_node(rki_scene_ctx *ctx, const rk_node *n)
{
	const char *name = n->name ? n->name : "";
	const rk_transform_props *p = &n->props;
	const rk_vec3 props[] = { p->translation, p->rotation, p->scaling, p->rotation_offset, p->rotation_pivot,
		p->scaling_offset, p->scaling_pivot, p->pre_rotation, p->post_rotation, p->geometric_translation,
		p->geometric_rotation, p->geometric_scaling };
	if (rki_bad_vec(&props[0].x, sizeof(props) / sizeof(props[0]), 3) != SIZE_MAX)
		return rki_finite_fail(ctx, "node \"%.80s\": a transform property is not a finite number", name);
	const rk_trs *t = &n->local;
	if (!rki_fin(&t->translation.x, 3) || !rki_fin(&t->rotation.x, 4) || !rki_fin(&t->scale.x, 3))
		return rki_finite_fail(ctx, "node \"%.80s\": local transform is not finite", name);
	if (!rki_fin(n->node_to_world.m, 16) || !rki_fin(n->geometry_to_world.m, 16) || !rki_fin(n->bind_node_to_world.m, 16))
		return rki_finite_fail(ctx, "node \"%.80s\": world matrix is not finite (from its or an ancestor's transform)",
			name);
	return true;
}

/* Index of the first element of `dim` floats that is not finite, SIZE_MAX if none. */
static size_t rki_bad_vec_f32(const float *v, size_t count, size_t dim)
{
	if (!v) return SIZE_MAX;
	for (size_t i = 0; i < count; i++)
		for (size_t d = 0; d < dim; d++)
			if (!isfinite(v[i * dim + d])) return i;
	return SIZE_MAX;
}

/* Values of an attribute held as doubles (v) or floats (vf). */
static bool rki_check_attr(rki_scene_ctx *ctx, const char *mesh, const char *what, const double *v, const float *vf,
	size_t count, size_t dim)
{
	size_t bad = rki_bad_vec(v, count, dim);
	if (bad == SIZE_MAX) bad = rki_bad_vec_f32(vf, count, dim);
	if (bad == SIZE_MAX) return true;
	return rki_finite_fail(ctx, "mesh \"%.80s\": %s value %zu is not a finite number", mesh, what, bad);
}

#define RKI_F64(p) ((p) ? &(p)[0].x : NULL)

static bool rki_check_mesh(rki_scene_ctx *ctx, const rk_mesh *m)
{
	const char *name = m->name ? m->name : "";
	if (!rki_check_attr(ctx, name, "position", RKI_F64(m->positions_f64), m->positions_f32, m->vertex_count, 3)) return false;
	if (m->normals.exists && !rki_check_attr(ctx, name, "normal", RKI_F64(m->normals.values_f64), m->normals.values_f32,
		m->normals.value_count, 3))
		return false;
	for (size_t u = 0; u < m->uv_sets.count; u++) {
		const rk_uv_set *s = &m->uv_sets.data[u];
		if (s->uv.exists && !rki_check_attr(ctx, name, "UV", RKI_F64(s->uv.values_f64), s->uv.values_f32, s->uv.value_count, 2))
			return false;
		if (s->tangent.exists && !rki_check_attr(ctx, name, "tangent", RKI_F64(s->tangent.values_f64), s->tangent.values_f32,
			s->tangent.value_count, 3))
			return false;
		if (s->bitangent.exists && !rki_check_attr(ctx, name, "bitangent", RKI_F64(s->bitangent.values_f64),
			s->bitangent.values_f32, s->bitangent.value_count, 3))
			return false;
	}
	for (size_t c = 0; c < m->colors.count; c++) {
		const rk_attrib_vec4 *a = &m->colors.data[c];
		if (a->exists && !rki_check_attr(ctx, name, "colour", RKI_F64(a->values_f64), a->values_f32, a->value_count, 4))
			return false;
	}
	for (size_t c = 0; c < m->blend_channels.count; c++) {
		const rk_blend_channel *ch = &m->blend_channels.data[c];
		if (!isfinite(ch->default_weight))
			return rki_finite_fail(ctx, "mesh \"%.80s\": blend channel \"%.80s\" weight is not finite", name,
				ch->name ? ch->name : "");
		for (size_t t = 0; t < ch->target_count; t++) {
			const rk_blend_shape *b = &ch->targets[t];
			if (!rki_check_attr(ctx, name, "blend shape position offset", RKI_F64(b->position_offsets_f64),
				b->position_offsets_f32, b->offset_count, 3)
				|| !rki_check_attr(ctx, name, "blend shape normal offset", RKI_F64(b->normal_offsets_f64),
				b->normal_offsets_f32, b->offset_count, 3)
				|| !rki_check_attr(ctx, name, "blend shape weight", b->offset_weights, NULL, b->offset_count, 1))
				return false;
		}
	}
	return true;
}

static bool rki_check_skin(rki_scene_ctx *ctx, const rk_skin_deformer *s)
{
	const char *name = s->name ? s->name : "";
	for (size_t j = 0; j < s->joint_count; j++) {
		const rk_skin_joint *jt = &s->joints[j];
		if (!rki_fin(jt->mesh_to_joint.m, 16) || !rki_fin(jt->joint_to_world_bind.m, 16) || !rki_fin(jt->mesh_to_world_bind.m, 16))
			return rki_finite_fail(ctx, "skin \"%.80s\": a bind matrix of joint %zu is not finite", name, j);
	}
	for (size_t w = 0; w < s->weight_count; w++)
		if (!isfinite(s->weights[w].weight))
			return rki_finite_fail(ctx, "skin \"%.80s\": weight %zu is not finite", name, w);
	return true;
}

static bool rki_check_clip(rki_scene_ctx *ctx, const rk_anim_clip *c)
{
	const char *name = c->name ? c->name : "";
	if (!isfinite(c->time_begin) || !isfinite(c->time_end))
		return rki_finite_fail(ctx, "clip \"%.80s\": time range is not finite", name);
	for (size_t l = 0; l < c->layer_count; l++) {
		const rk_anim_layer *ly = &c->layers[l];
		for (size_t k = 0; k < ly->track_count; k++) {
			const rk_anim_track *t = &ly->tracks[k];
			const char *node = t->node && t->node->name ? t->node->name : "";
			if (!rki_fin(t->default_value, 4))
				return rki_finite_fail(ctx, "clip \"%.80s\": default value of a track of node \"%.80s\" is not finite",
					name, node);
			for (int q = 0; q < 4; q++) {
				const rk_anim_curve *cv = t->curves[q];
				if (cv && (rki_bad_vec(cv->values, cv->key_count, 1) != SIZE_MAX || rki_bad_vec(cv->times, cv->key_count, 1) != SIZE_MAX))
					return rki_finite_fail(ctx, "clip \"%.80s\": a key of node \"%.80s\" is not finite", name, node);
			}
			if (t->key_count && rk_track_has_values(t)) {
				size_t per = t->components * (t->interpolation == RK_INTERP_CUBIC ? 3u : 1u);
				if (rki_bad_vec(t->times, t->key_count, 1) != SIZE_MAX || rki_bad_vec(t->values_f64, t->key_count, per) != SIZE_MAX
					|| rki_bad_vec_f32(t->values_f32, t->key_count, per) != SIZE_MAX)
					return rki_finite_fail(ctx, "clip \"%.80s\": a key of node \"%.80s\" is not finite", name, node);
			}
		}
	}
	return true;
}

/* Material factors are looks, not geometry: a non-finite one becomes its
 * default with a warning (the FBX SDK loads such files), so it never
 * reaches a glTF material. */
static void rki_fix_texture_ref(rki_scene_ctx *ctx, rk_material *m, rk_texture_ref *r, const char *slot)
{
	if (rki_fin(&r->offset.x, 2) && rki_fin(&r->scale.x, 2) && isfinite(r->rotation)) return;
	r->offset = (rk_vec2){ 0, 0 };
	r->scale = (rk_vec2){ 1, 1 };
	r->rotation = 0.0;
	rki_scene_warn(ctx, UINT64_MAX, "", "material \"%.80s\": %s texture transform is not finite: identity used",
		m->name ? m->name : "", slot);
}

static void rki_fix_material(rki_scene_ctx *ctx, rk_material *m)
{
	const char *name = m->name ? m->name : "";
	struct { double *v; size_t n; double def; const char *what; } f[] = {
		{ &m->base_color.x, 4, 1.0, "base colour" }, { &m->metallic, 1, 1.0, "metallic" },
		{ &m->roughness, 1, 1.0, "roughness" }, { &m->emissive.x, 3, 0.0, "emissive colour" },
		{ &m->specular.x, 3, 0.0, "specular colour" }, { &m->shininess, 1, 0.0, "shininess" },
		{ &m->alpha_cutoff, 1, 0.5, "alpha cutoff" },
	};
	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
		if (rki_fin(f[i].v, f[i].n)) continue;
		for (size_t k = 0; k < f[i].n; k++) f[i].v[k] = f[i].def;
		rki_scene_warn(ctx, UINT64_MAX, "", "material \"%.80s\": %s is not finite: the default %g used", name, f[i].what,
			f[i].def);
	}
	rki_fix_texture_ref(ctx, m, &m->base_color_texture, "base colour");
	rki_fix_texture_ref(ctx, m, &m->metallic_roughness_texture, "metallic-roughness");
	rki_fix_texture_ref(ctx, m, &m->normal_texture, "normal");
	rki_fix_texture_ref(ctx, m, &m->emissive_texture, "emissive");
	rki_fix_texture_ref(ctx, m, &m->occlusion_texture, "occlusion");
}

bool rki_scene_check_finite(rki_scene_ctx *ctx)
{
	const rk_scene *s = ctx->scene;
	for (size_t i = 0; i < s->nodes.count; i++)
		if (!rki_check_node(ctx, &s->nodes.data[i])) return false;
	for (size_t i = 0; i < s->meshes.count; i++)
		if (!rki_check_mesh(ctx, &s->meshes.data[i])) return false;
	for (size_t i = 0; i < s->skins.count; i++)
		if (!rki_check_skin(ctx, &s->skins.data[i])) return false;
	for (size_t i = 0; i < s->clips.count; i++)
		if (!rki_check_clip(ctx, &s->clips.data[i])) return false;
	for (size_t i = 0; i < s->materials.count; i++) rki_fix_material(ctx, &s->materials.data[i]);
	return true;
}
