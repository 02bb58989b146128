/* src/formats/demo/demo.c - rk_demo_scene(): assembles a sample character
 * (rigkit/demo.h) with the scene builder every reader uses
 * (scene_internal.h): nodes depth-first, material and texture, mesh and
 * skin, clips, then rki_scene_finish(). */
#include "demo_internal.h"

#include <stdio.h>
#include <string.h>

const char *rk_demo_kind_name(rk_demo_kind kind)
{
	switch (kind) {
	case RK_DEMO_MIXAMO_SOURCE: return "mixamo_source";
	case RK_DEMO_AVATAR: return "avatar";
	default: return "unknown";
	}
}

static void rki_sample_node(rk_node *n, uint32_t index, const char *name, rk_node_kind kind, rk_trs local)
{
	n->index = index;
	n->name = name;
	n->source_id = index;
	n->kind = kind;
	n->has_fbx_props = false;
	n->adjust = rk_adjust_transform_identity();
	n->local = local;
	n->props = rk_transform_props_default();
	n->props.translation = local.translation;
	n->props.rotation = rk_quat_to_euler_deg(local.rotation, RK_ROTATION_XYZ);
	n->props.scaling = local.scale;
	n->attribute_type = "";
	n->default_uv_set = "";
	n->visible = true;
}

static bool rki_sample_nodes(rki_scene_ctx *sc, const rki_sample_rig *rig, bool with_body)
{
	rki_arena *ar = sc->arena;
	uint32_t count = RKI_SN_JOINT0 + RKI_SJ_COUNT + (with_body ? 1u : 0u);
	uint32_t parent[RKI_SN_BODY + 1], child_count[RKI_SN_BODY + 1] = { 0 };
	rk_node *nodes = (rk_node *)rki_arena_array(ar, count, sizeof(rk_node));
	rk_node **refs = (rk_node **)rki_arena_array(ar, count - 1, sizeof(rk_node *));
	if (!nodes || !refs) return false;

	parent[RKI_SN_ROOT] = UINT32_MAX;
	parent[RKI_SN_ARMATURE] = RKI_SN_ROOT;
	for (uint32_t j = 0; j < RKI_SJ_COUNT; j++) {
		uint32_t p = rki_sample_joint_parent(j);
		parent[RKI_SN_JOINT0 + j] = p == RKI_SAMPLE_NO_PARENT ? RKI_SN_ARMATURE : RKI_SN_JOINT0 + p;
	}
	if (with_body) parent[RKI_SN_BODY] = RKI_SN_ROOT;

	/* Children lists in node order, packed into `refs`. */
	for (uint32_t i = 1; i < count; i++) child_count[parent[i]]++;
	size_t at = 0;
	for (uint32_t i = 0; i < count; i++) {
		nodes[i].children.data = refs + at;
		at += child_count[i];
	}
	for (uint32_t i = 1; i < count; i++) {
		rk_node *p = &nodes[parent[i]];
		p->children.data[p->children.count++] = &nodes[i];
		nodes[i].parent = p;
	}

	rk_trs identity = rk_trs_identity();
	rki_sample_node(&nodes[RKI_SN_ROOT], RKI_SN_ROOT, "", RK_NODE_ROOT, identity);
	nodes[RKI_SN_ROOT].source_id = 0;
	rk_trs arm = identity;
	arm.rotation = rig->armature_rotation;
	arm.scale = (rk_vec3){ rig->armature_scale, rig->armature_scale, rig->armature_scale };
	rki_sample_node(&nodes[RKI_SN_ARMATURE], RKI_SN_ARMATURE, "Armature", RK_NODE_NULL, arm);
	const char *prefix = rig->kind == RK_DEMO_MIXAMO_SOURCE ? "mixamorig:" : "";
	for (uint32_t j = 0; j < RKI_SJ_COUNT; j++) {
		char name[64];
		int len = snprintf(name, sizeof(name), "%s%s", prefix, rki_sample_joint_name(j));
		const char *stored = rki_arena_strndup(ar, name, (size_t)len);
		if (!stored) return false;
		rk_trs local = rki_sample_local(rig, rig->rest_pos, rig->rest_rot, j);
		rki_sample_node(&nodes[RKI_SN_JOINT0 + j], RKI_SN_JOINT0 + j, stored, RK_NODE_JOINT, local);
	}
	if (with_body) rki_sample_node(&nodes[RKI_SN_BODY], RKI_SN_BODY, "Body", RK_NODE_MESH, identity);

	sc->scene->nodes = (rk_node_list){ nodes, count };
	sc->scene->root = &nodes[RKI_SN_ROOT];
	rki_scene_update_matrices(sc->scene);
	return true;
}

static bool rki_sample_material(rki_scene_ctx *sc, const rki_sample_rig *rig, bool with_texture, rk_material **out)
{
	static const unsigned char colors[2][2][3] = {
		{ { 196, 202, 214 }, { 74, 92, 138 } },   /* source: Mixamo-ish grey and blue */
		{ { 236, 204, 176 }, { 160, 100, 76 } },  /* avatar: warm tones */
	};
	rki_arena *ar = sc->arena;
	rk_material *mat = (rk_material *)rki_arena_alloc(ar, sizeof(rk_material));
	if (!mat) return false;
	rk_texture_ref none = { NULL, "", 0, false, { 0, 0 }, { 1, 1 }, 0.0 };
	mat->index = 0;
	mat->name = "Body";
	mat->shading_model = "pbrMetallicRoughness";
	mat->base_color = (rk_vec4){ 1, 1, 1, 1 };
	mat->base_color_texture = none;
	mat->metallic = 0.0;
	mat->roughness = 0.8;
	mat->metallic_roughness_texture = none;
	mat->normal_texture = none;
	mat->emissive_texture = none;
	mat->alpha_mode = RK_ALPHA_OPAQUE;
	mat->alpha_cutoff = 0.5;
	if (with_texture) {
		rk_texture *tex = (rk_texture *)rki_arena_alloc(ar, sizeof(rk_texture));
		if (!tex) return false;
		const unsigned char(*c)[3] = colors[rig->kind == RK_DEMO_MIXAMO_SOURCE ? 0 : 1];
		if (!rki_sample_checker_png(ar, &sc->tmp, 64, 8, c[0], c[1], &tex->content, &tex->content_size)) return false;
		tex->index = 0;
		tex->name = "checker";
		tex->filename = "";
		tex->resolved_path = NULL;
		tex->mime_type = "image/png";
		tex->wrap_u = tex->wrap_v = RK_WRAP_REPEAT;
		mat->base_color_texture.texture = tex;
		sc->scene->textures = (rk_texture_list){ tex, 1 };
	}
	sc->scene->materials = (rk_material_list){ mat, 1 };
	*out = mat;
	return true;
}

static bool rki_sample_build(rki_scene_ctx *sc, rk_demo_kind kind, const rk_demo_opts *o)
{
	rki_sample_rig rig;
	rki_sample_rig_init(&rig, kind, o->z_up_armature && kind == RK_DEMO_MIXAMO_SOURCE);
	if (!rki_sample_nodes(sc, &rig, !o->no_mesh)) return false;
	rk_node *joints = &sc->scene->nodes.data[RKI_SN_JOINT0];
	if (!o->no_mesh) {
		rk_material *mat = NULL;
		if (!rki_sample_material(sc, &rig, !o->no_texture, &mat)) return false;
		if (!rki_sample_build_mesh(sc, &rig, joints, &sc->scene->nodes.data[RKI_SN_BODY], mat)) return false;
	}
	if (kind == RK_DEMO_MIXAMO_SOURCE && !o->no_animation)
		if (!rki_sample_build_clips(sc, &rig, joints)) return false;

	rk_scene_settings *st = &sc->scene->settings;
	st->format = RK_FORMAT_UNKNOWN;
	st->fbx_version = 0;
	st->ascii = false;
	st->creator = "rigkit sample";
	st->axes = st->original_axes = RK_AXES_RIGHT_HANDED_Y_UP;
	st->unit_meters = st->original_unit_meters = 1.0;
	st->frame_rate = 30.0;
	return true;
}

rk_scene *rk_demo_scene(rk_demo_kind kind, const rk_demo_opts *opts, rk_error *err)
{
	rk_error local;
	if (!err) err = &local;
	rki_error_clear(err);
	if ((unsigned)kind >= (unsigned)RK_DEMO_KIND_COUNT_) {
		rki_error_set(err, RK_ERROR_INVALID_ARGUMENT, "rk_demo_scene: unknown kind %d (expected RK_DEMO_MIXAMO_SOURCE or RK_DEMO_AVATAR)",
			(int)kind);
		return NULL;
	}
	rk_demo_opts o;
	if (opts) o = *opts;
	else memset(&o, 0, sizeof(o));
	rk_load_opts lo;
	memset(&lo, 0, sizeof(lo));
	lo.allocator = o.allocator;
	lo.memory_limit = o.memory_limit;
	lo.allocation_limit = o.allocation_limit;
	lo.warning = o.warning;
	lo.warning_user = o.warning_user;

	rki_scene_ctx sc;
	if (!rki_scene_begin(&sc, &lo, "", 0, err)) return NULL;
	bool ok = rki_sample_build(&sc, kind, &o);
	if (!ok || sc.alloc->failed) {
		if (sc.alloc->failed) rki_scene_oom(&sc);
		else if (err->code == RK_OK) rki_error_set(err, RK_ERROR_OUT_OF_MEMORY, "rk_demo_scene: could not build the %s sample (texture encoder out of memory)",
			rk_demo_kind_name(kind));
		rki_scene_abort(&sc);
		return NULL;
	}
	return rki_scene_finish(&sc);
}
