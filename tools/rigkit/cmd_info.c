/* tools/rigkit/cmd_info.c - `rigkit info FILE`: describe a scene. */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

typedef struct cli_info_args {
	bool no_tree, meshes;
} cli_info_args;

static const cli_opt cli_info_rows[] = {
	{ .name = "--no-tree", .kind = CLI_OPT_FLAG, .offset = offsetof(cli_info_args, no_tree),
		.help = "omit the node tree" },
	{ .name = "--meshes", .kind = CLI_OPT_FLAG, .offset = offsetof(cli_info_args, meshes),
		.help = "expand every mesh node for the GPU (triangulated, per-material\nparts, top-4 skin influences) and "
			"print per-part counts" },
};
static const cli_opt_table cli_info_table = CLI_TABLE("options", cli_info_rows);

const cli_spec cli_info_spec = {
	.name = "info",
	.usage = "usage: rigkit info FILE [--json] [--no-tree] [--meshes] [load options]\n"
		"\n"
		"Loads FILE (FBX binary/ASCII, glTF, GLB; detected by content; '-' reads\n"
		"stdin) and prints its format and version, creator, axes and units, frame\n"
		"rate, node tree with local transforms, meshes, skins, animation clips with\n"
		"time ranges, cameras and lights, and loader warnings.\n"
		"\n",
	.operands = "FILE", .min_operands = 1, .max_operands = 1,
	.tables = { &cli_info_table, &cli_load_table },
};

static const char *cli_kind_name(rk_node_kind k)
{
	switch (k) {
	case RK_NODE_ROOT: return "root";
	case RK_NODE_JOINT: return "joint";
	case RK_NODE_MESH: return "mesh";
	case RK_NODE_CAMERA: return "camera";
	case RK_NODE_LIGHT: return "light";
	case RK_NODE_OTHER: return "other";
	default: return "null";
	}
}

static const char *cli_light_type_name(rk_light_type t)
{
	switch (t) {
	case RK_LIGHT_DIRECTIONAL: return "directional";
	case RK_LIGHT_SPOT: return "spot";
	case RK_LIGHT_AREA: return "area";
	default: return "point";
	}
}

/* Direction a light / camera points to in its node's space (scene.h). */
static rk_vec3 cli_attr_direction(rk_quat to_node)
{
	return rk_quat_rotate(to_node, (rk_vec3){ 0.0, 0.0, -1.0 });
}

static void cli_axes_text(rk_axes a, char *buf, size_t cap)
{
	const char *named = NULL;
	if (rk_axes_equal(a, RK_AXES_RIGHT_HANDED_Y_UP)) named = "right_handed_y_up";
	else if (rk_axes_equal(a, RK_AXES_LEFT_HANDED_Y_UP)) named = "left_handed_y_up";
	else if (rk_axes_equal(a, RK_AXES_RIGHT_HANDED_Z_UP)) named = "right_handed_z_up";
	else if (rk_axes_equal(a, RK_AXES_LEFT_HANDED_Z_UP)) named = "left_handed_z_up";
	if (!rk_axes_valid(a)) snprintf(buf, cap, "unknown");
	else if (named) snprintf(buf, cap, "right %s, up %s, front %s (%s)", rk_axis_name(a.right), rk_axis_name(a.up), rk_axis_name(a.front), named);
	else snprintf(buf, cap, "right %s, up %s, front %s", rk_axis_name(a.right), rk_axis_name(a.up), rk_axis_name(a.front));
}

static size_t cli_clip_track_count(const rk_anim_clip *c)
{
	size_t n = 0;
	for (size_t l = 0; l < c->layer_count; l++) n += c->layers[l].track_count;
	return n;
}

/* Humanoid bones the file declares (scene->hints, scheme "humanoid") and
 * where from (*origin, when origin is non-NULL). */
static size_t cli_info_declared(const rk_scene *s, const char **origin)
{
	size_t n = 0;
	for (size_t i = 0; i < s->hints.count; i++) {
		if (strcmp(s->hints.data[i].scheme, "humanoid") != 0) continue;
		if (origin && !n) *origin = s->hints.data[i].origin;
		n++;
	}
	return n;
}

/* `--meshes` as JSON: the facts rk_mesh_expansion_describe prints. */
static void cli_info_json_expansion(cli_json *j, const rk_mesh_expansion *x)
{
	cli_json_object(j, "mesh_expansion");
	cli_json_int(j, "vertex_stride", (long long)x->format.stride);
	cli_json_int(j, "vertices", (long long)x->vertex_count);
	cli_json_int(j, "triangles", (long long)(x->index_count / 3));
	cli_json_number(j, "radius", x->radius);
	cli_json_vec3(j, "bounds_min", x->bounds_min);
	cli_json_vec3(j, "bounds_max", x->bounds_max);
	cli_json_array(j, "draws");
	for (size_t d = 0; d < x->draw_count; d++) {
		const rk_mesh_draw *dr = &x->draws[d];
		cli_json_object(j, NULL);
		cli_json_string(j, "node", dr->node->name);
		cli_json_string(j, "mesh", dr->mesh->name);
		cli_json_int(j, "vertices", (long long)dr->vertex_count);
		cli_json_int(j, "triangles", (long long)(dr->index_count / 3));
		if (dr->skin) cli_json_int(j, "skin_joints", (long long)dr->skin->joint_count);
		else cli_json_null(j, "skin_joints");
		cli_json_bool(j, "world_space", dr->world_space);
		cli_json_array(j, "parts");
		for (uint32_t k = 0; k < dr->part_count; k++) {
			const rk_mesh_part *pt = &x->parts[dr->first_part + k];
			cli_json_object(j, NULL);
			cli_json_string(j, "material", pt->material ? pt->material->name : NULL);
			if (pt->material_slot != UINT32_MAX) cli_json_int(j, "material_slot", pt->material_slot);
			else cli_json_null(j, "material_slot");
			cli_json_int(j, "uv_set", pt->uv_set);
			cli_json_int(j, "triangles", (long long)(pt->index_count / 3));
			cli_json_int(j, "start_index", pt->start_index);
			cli_json_close_object(j);
		}
		cli_json_close_array(j);
		cli_json_close_object(j);
	}
	cli_json_close_array(j);
	const rk_mesh_stats *st = &x->stats;
	cli_json_object(j, "stats");
	cli_json_int(j, "polygons", (long long)st->polygons);
	cli_json_int(j, "skipped_polygons", (long long)st->skipped_polygons);
	cli_json_int(j, "fallback_polygons", (long long)st->fallback_polygons);
	cli_json_int(j, "degenerate_polygons", (long long)st->degenerate_polygons);
	cli_json_int(j, "invalid_material_slots", (long long)st->invalid_material_slots);
	cli_json_int(j, "unweighted_vertices", (long long)st->unweighted_vertices);
	cli_json_int(j, "truncated_influences", (long long)st->truncated_influences);
	cli_json_int(j, "dropped_weights", (long long)st->dropped_weights);
	cli_json_close_object(j);
	cli_json_close_object(j);
}

static int cli_info_json(cli_ctx *ctx, const rk_scene *s, int tree, const rk_mesh_expansion *x)
{
	cli_json j;
	char axes[128];
	cli_json_document(&j, ctx);
	cli_json_object(&j, NULL);
	cli_json_string(&j, "file", s->source_path);
	cli_json_string(&j, "format", rk_format_name(s->settings.format));
	if (s->settings.format == RK_FORMAT_FBX) cli_json_int(&j, "fbx_version", s->settings.fbx_version);
	cli_json_bool(&j, "ascii", s->settings.ascii);
	cli_json_string(&j, "creator", s->settings.creator);
	cli_axes_text(s->settings.axes, axes, sizeof(axes));
	cli_json_object(&j, "axes");
	cli_json_string(&j, "right", rk_axis_name(s->settings.axes.right));
	cli_json_string(&j, "up", rk_axis_name(s->settings.axes.up));
	cli_json_string(&j, "front", rk_axis_name(s->settings.axes.front));
	cli_json_close_object(&j);
	cli_json_number(&j, "unit_meters", s->settings.unit_meters);
	cli_json_number(&j, "original_unit_meters", s->settings.original_unit_meters);
	cli_json_number(&j, "frame_rate", s->settings.frame_rate);
	if (tree) {
		cli_json_array(&j, "nodes");
		for (size_t i = 0; i < s->nodes.count; i++) {
			const rk_node *n = &s->nodes.data[i];
			cli_json_object(&j, NULL);
			cli_json_int(&j, "index", n->index);
			cli_json_name(&j, "name", n->name);
			cli_json_string(&j, "kind", cli_kind_name(n->kind));
			if (n->parent) cli_json_int(&j, "parent", n->parent->index);
			else cli_json_null(&j, "parent");
			cli_json_vec3(&j, "translation", n->local.translation);
			cli_json_quat(&j, "rotation", n->local.rotation);
			cli_json_vec3(&j, "scale", n->local.scale);
			cli_json_vec3(&j, "world_position", rk_mat4_get_translation(n->node_to_world));
			if (n->mesh) cli_json_int(&j, "mesh", n->mesh->index);
			if (n->skin) cli_json_int(&j, "skin", n->skin->index);
			if (n->camera) cli_json_int(&j, "camera", n->camera->index);
			if (n->light) cli_json_int(&j, "light", n->light->index);
			cli_json_close_object(&j);
		}
		cli_json_close_array(&j);
	}
	cli_json_array(&j, "meshes");
	for (size_t i = 0; i < s->meshes.count; i++) {
		const rk_mesh *m = &s->meshes.data[i];
		cli_json_object(&j, NULL);
		cli_json_name(&j, "name", m->name);
		cli_json_int(&j, "vertices", (long long)m->vertex_count);
		cli_json_int(&j, "faces", (long long)m->face_count);
		cli_json_int(&j, "corners", (long long)m->index_count);
		cli_json_int(&j, "triangles", (long long)m->triangle_count_hint);
		cli_json_bool(&j, "normals", m->normals.exists);
		cli_json_array(&j, "uv_sets");
		for (size_t u = 0; u < m->uv_sets.count; u++) cli_json_string(&j, NULL, m->uv_sets.data[u].name);
		cli_json_close_array(&j);
		cli_json_int(&j, "materials", (long long)m->materials.count);
		cli_json_int(&j, "blend_channels", (long long)m->blend_channels.count);
		cli_json_int(&j, "skins", (long long)m->skin_count);
		cli_json_close_object(&j);
	}
	cli_json_close_array(&j);
	cli_json_array(&j, "skins");
	for (size_t i = 0; i < s->skins.count; i++) {
		const rk_skin_deformer *k = &s->skins.data[i];
		cli_json_object(&j, NULL);
		cli_json_name(&j, "name", k->name);
		cli_json_int(&j, "joints", (long long)k->joint_count);
		cli_json_int(&j, "max_weights_per_vertex", (long long)k->max_weights_per_vertex);
		cli_json_close_object(&j);
	}
	cli_json_close_array(&j);
	cli_json_array(&j, "clips");
	for (size_t i = 0; i < s->clips.count; i++) {
		const rk_anim_clip *c = &s->clips.data[i];
		cli_json_object(&j, NULL);
		cli_json_name(&j, "name", c->name);
		cli_json_number(&j, "time_begin", c->time_begin);
		cli_json_number(&j, "time_end", c->time_end);
		cli_json_int(&j, "layers", (long long)c->layer_count);
		cli_json_int(&j, "tracks", (long long)cli_clip_track_count(c));
		cli_json_close_object(&j);
	}
	cli_json_close_array(&j);
	cli_json_array(&j, "cameras");
	for (size_t i = 0; i < s->cameras.count; i++) {
		const rk_camera *c = &s->cameras.data[i];
		cli_json_object(&j, NULL);
		cli_json_name(&j, "name", c->name);
		bool ortho = c->projection == RK_PROJECTION_ORTHOGRAPHIC;
		cli_json_string(&j, "projection", ortho ? "orthographic" : "perspective");
		if (ortho) {
			cli_json_number(&j, "xmag", c->xmag);
			cli_json_number(&j, "ymag", c->ymag);
		} else {
			cli_json_number(&j, "yfov", c->yfov);
			cli_json_number(&j, "aspect_ratio", c->aspect_ratio);
		}
		cli_json_number(&j, "znear", c->znear);
		cli_json_number(&j, "zfar", c->zfar);
		cli_json_vec3(&j, "direction", cli_attr_direction(c->to_node));
		cli_json_close_object(&j);
	}
	cli_json_close_array(&j);
	cli_json_array(&j, "lights");
	for (size_t i = 0; i < s->lights.count; i++) {
		const rk_light *l = &s->lights.data[i];
		cli_json_object(&j, NULL);
		cli_json_name(&j, "name", l->name);
		cli_json_string(&j, "type", cli_light_type_name(l->type));
		cli_json_vec3(&j, "color", l->color);
		cli_json_number(&j, "intensity", l->intensity);
		cli_json_number(&j, "range", l->range);
		if (l->type == RK_LIGHT_SPOT) {
			cli_json_number(&j, "inner_cone_angle", l->inner_cone_angle);
			cli_json_number(&j, "outer_cone_angle", l->outer_cone_angle);
		}
		cli_json_vec3(&j, "direction", cli_attr_direction(l->to_node));
		cli_json_close_object(&j);
	}
	cli_json_close_array(&j);
	cli_json_int(&j, "materials", (long long)s->materials.count);
	cli_json_int(&j, "textures", (long long)s->textures.count);
	cli_json_int(&j, "declared_humanoid_bones", (long long)cli_info_declared(s, NULL));
	cli_json_array(&j, "kept_extensions");
	for (size_t i = 0; i < s->extensions.count; i++) cli_json_string(&j, NULL, s->extensions.data[i].name);
	cli_json_close_array(&j);
	cli_json_array(&j, "warnings");
	for (size_t i = 0; i < s->warnings.count; i++) {
		cli_json_object(&j, NULL);
		cli_json_string(&j, "message", s->warnings.data[i].message);
		cli_json_int(&j, "count", (long long)s->warnings.data[i].count);
		cli_json_close_object(&j);
	}
	cli_json_close_array(&j);
	if (x) cli_info_json_expansion(&j, x);
	cli_json_close_object(&j);
	return cli_json_end(&j);
}

static void cli_info_text(cli_ctx *ctx, const rk_scene *s, int tree)
{
	char axes[128];
	printf("file:        %s\n", cli_text(ctx, s->source_path));
	if (s->settings.format == RK_FORMAT_FBX)
		printf("format:      FBX %u %s\n", s->settings.fbx_version, s->settings.ascii ? "ascii" : "binary");
	else
		printf("format:      %s\n", rk_format_name(s->settings.format));
	printf("creator:     %s\n", s->settings.creator[0] ? cli_text(ctx, s->settings.creator) : "(none)");
	cli_axes_text(s->settings.axes, axes, sizeof(axes));
	printf("axes:        %s\n", axes);
	printf("unit:        %g m per unit", s->settings.unit_meters);
	if (s->settings.unit_meters != s->settings.original_unit_meters)
		printf(" (file: %g m)", s->settings.original_unit_meters);
	printf("\n");
	if (s->settings.frame_rate > 0) printf("frame rate:  %g fps\n", s->settings.frame_rate);
	printf("nodes:       %zu\n", s->nodes.count);
	if (tree) {
		for (size_t i = 1; i < s->nodes.count; i++) {
			const rk_node *n = &s->nodes.data[i];
			rk_vec3 e = rk_quat_to_euler_deg(n->local.rotation, RK_ROTATION_XYZ);
			printf("  %*s%s [%s] t=(%.4g, %.4g, %.4g) r=(%.4g, %.4g, %.4g) s=(%.4g, %.4g, %.4g)%s%s",
				(int)(2 * (n->depth > 0 ? n->depth - 1 : 0)), "", n->name[0] ? cli_text(ctx, n->name) : "(unnamed)",
				cli_kind_name(n->kind), n->local.translation.x, n->local.translation.y, n->local.translation.z, e.x, e.y, e.z,
				n->local.scale.x, n->local.scale.y, n->local.scale.z,
				n->mesh ? " mesh=" : "", n->mesh ? cli_text(ctx, n->mesh->name) : "");
			if (n->camera) printf(" camera=%s", n->camera->name[0] ? cli_text(ctx, n->camera->name) : "(unnamed)");
			if (n->light) printf(" light=%s", n->light->name[0] ? cli_text(ctx, n->light->name) : "(unnamed)");
			printf("\n");
		}
	}
	printf("meshes:      %zu\n", s->meshes.count);
	for (size_t i = 0; i < s->meshes.count; i++) {
		const rk_mesh *m = &s->meshes.data[i];
		printf("  %s: %zu vertices, %zu faces, %zu triangles, normals %s, %zu uv sets, %zu materials, %zu blend channels%s\n",
			cli_text(ctx, m->name), m->vertex_count, m->face_count, m->triangle_count_hint, m->normals.exists ? "yes" : "no",
			m->uv_sets.count, m->materials.count, m->blend_channels.count, m->skin_count ? ", skinned" : "");
	}
	printf("skins:       %zu\n", s->skins.count);
	for (size_t i = 0; i < s->skins.count; i++)
		printf("  %s: %zu joints, up to %zu influences per vertex\n", cli_text(ctx, s->skins.data[i].name),
			s->skins.data[i].joint_count, s->skins.data[i].max_weights_per_vertex);
	printf("clips:       %zu\n", s->clips.count);
	for (size_t i = 0; i < s->clips.count; i++) {
		const rk_anim_clip *c = &s->clips.data[i];
		printf("  %s: %.4g .. %.4g s (%.4g s), %zu tracks\n", cli_text(ctx, c->name), c->time_begin, c->time_end,
			c->time_end - c->time_begin, cli_clip_track_count(c));
	}
	if (s->cameras.count) printf("cameras:     %zu\n", s->cameras.count);
	for (size_t i = 0; i < s->cameras.count; i++) {
		const rk_camera *c = &s->cameras.data[i];
		if (c->projection == RK_PROJECTION_ORTHOGRAPHIC)
			printf("  %s: orthographic %g x %g, near %g, far %g\n", c->name[0] ? cli_text(ctx, c->name) : "(unnamed)", 2.0 * c->xmag, 2.0 * c->ymag, c->znear, c->zfar);
		else
			printf("  %s: perspective, vertical fov %.4g deg, aspect %s%.4g, near %g, far %s%g\n",
				c->name[0] ? cli_text(ctx, c->name) : "(unnamed)",
				c->yfov * 57.29577951308232, c->aspect_ratio > 0.0 ? "" : "(viewport) ", c->aspect_ratio, c->znear,
				c->zfar > 0.0 ? "" : "infinite ", c->zfar);
	}
	if (s->lights.count) printf("lights:      %zu\n", s->lights.count);
	for (size_t i = 0; i < s->lights.count; i++) {
		const rk_light *l = &s->lights.data[i];
		printf("  %s: %s, colour (%.4g, %.4g, %.4g), intensity %g", l->name[0] ? cli_text(ctx, l->name) : "(unnamed)",
			cli_light_type_name(l->type),
			l->color.x, l->color.y, l->color.z, l->intensity);
		if (l->range > 0.0) printf(", range %g", l->range);
		if (l->type == RK_LIGHT_SPOT)
			printf(", cone %.4g..%.4g deg", l->inner_cone_angle * 57.29577951308232, l->outer_cone_angle * 57.29577951308232);
		printf("\n");
	}
	printf("materials:   %zu\n", s->materials.count);
	printf("textures:    %zu\n", s->textures.count);
	const char *origin = NULL;
	size_t declared = cli_info_declared(s, &origin);
	if (declared) {
		printf("vrm:         %zu declared humanoid bones%s%s, %zu kept extensions:", declared, origin ? " from " : "",
			origin ? origin : "", s->extensions.count);
		for (size_t i = 0; i < s->extensions.count; i++) printf(" %s", s->extensions.data[i].name);
		printf("\n");
	} else if (s->extensions.count) {
		printf("extensions:  %zu kept:", s->extensions.count);
		for (size_t i = 0; i < s->extensions.count; i++) printf(" %s", s->extensions.data[i].name);
		printf("\n");
	}
	printf("warnings:    %zu\n", s->warnings.count);
	for (size_t i = 0; i < s->warnings.count; i++) {
		if (s->warnings.data[i].count > 1)
			printf("  %s (x%zu)\n", cli_text(ctx, s->warnings.data[i].message), s->warnings.data[i].count);
		else
			printf("  %s\n", cli_text(ctx, s->warnings.data[i].message));
	}
}

int cli_cmd_info(cli_ctx *ctx, int argc, char **argv)
{
	cli_info_args a = { 0 };
	rk_load_opts lo = { 0 };
	cli_operands ops;
	int rc = cli_opts_parse(ctx, &cli_info_spec, (void *const[]){ &a, &lo }, argc, argv, &ops);
	if (rc) return rc;
	const char *path = ops.v[0];
	rk_scene *s = cli_load(ctx, path, &lo, &rc);
	if (!s) return rc;
	/* --meshes first: with --json a failure prints only the error document */
	rk_mesh_expansion *x = NULL;
	rk_error err;
	if (a.meshes) {
		x = rk_mesh_expansion_build(s, NULL, &err);
		if (!x && ctx->json) {
			rc = cli_print_error(ctx, &err);
			rk_scene_free(s);
			return rc;
		}
	}
	if (ctx->json) {
		rc = cli_info_json(ctx, s, !a.no_tree, x);
	} else {
		cli_info_text(ctx, s, !a.no_tree);
		if (a.meshes && !x) {
			rc = cli_print_error(ctx, &err);
		} else if (x) {
			size_t n = rk_mesh_expansion_describe(NULL, 0, x);
			char *text = (char *)malloc(n + 1);
			if (text) {
				rk_mesh_expansion_describe(text, n + 1, x);
				printf("expanded meshes:\n%s", text);
				free(text);
			}
		}
	}
	rk_mesh_expansion_free(x);
	rk_scene_free(s);
	return rc;
}
