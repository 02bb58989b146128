/* tools/rigkit/cmd_info.c - `rigkit info FILE`: describe a scene. */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

const char cli_cmd_info_usage[] =
	"usage: rigkit info FILE [--json] [--no-tree] [--meshes]\n"
	"\n"
	"Loads FILE (FBX binary/ASCII, glTF, GLB; detected by content) and prints\n"
	"its format and version, creator, axes and units, frame rate, node tree\n"
	"with local transforms, meshes, skins, animation clips with time ranges,\n"
	"and loader warnings.\n"
	"\n"
	"options:\n"
	"  --json      machine-readable output\n"
	"  --no-tree   omit the node tree\n"
	"  --meshes    expand every mesh node for the GPU (triangulated, per-material\n"
	"              parts, top-4 skin influences) and print per-part counts\n";

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

static void cli_info_json(const rk_scene *s, int tree)
{
	cli_json j;
	char axes[128];
	cli_json_begin(&j, stdout);
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
			cli_json_string(&j, "name", n->name);
			cli_json_string(&j, "kind", cli_kind_name(n->kind));
			if (n->parent) cli_json_int(&j, "parent", n->parent->index);
			else cli_json_null(&j, "parent");
			cli_json_vec3(&j, "translation", n->local.translation);
			cli_json_quat(&j, "rotation", n->local.rotation);
			cli_json_vec3(&j, "scale", n->local.scale);
			cli_json_vec3(&j, "world_position", rk_mat4_get_translation(n->node_to_world));
			if (n->mesh) cli_json_int(&j, "mesh", n->mesh->index);
			if (n->skin) cli_json_int(&j, "skin", n->skin->index);
			cli_json_close_object(&j);
		}
		cli_json_close_array(&j);
	}
	cli_json_array(&j, "meshes");
	for (size_t i = 0; i < s->meshes.count; i++) {
		const rk_mesh *m = &s->meshes.data[i];
		cli_json_object(&j, NULL);
		cli_json_string(&j, "name", m->name);
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
		cli_json_string(&j, "name", k->name);
		cli_json_int(&j, "joints", (long long)k->joint_count);
		cli_json_int(&j, "max_weights_per_vertex", (long long)k->max_weights_per_vertex);
		cli_json_close_object(&j);
	}
	cli_json_close_array(&j);
	cli_json_array(&j, "clips");
	for (size_t i = 0; i < s->clips.count; i++) {
		const rk_anim_clip *c = &s->clips.data[i];
		cli_json_object(&j, NULL);
		cli_json_string(&j, "name", c->name);
		cli_json_number(&j, "time_begin", c->time_begin);
		cli_json_number(&j, "time_end", c->time_end);
		cli_json_int(&j, "layers", (long long)c->layer_count);
		cli_json_int(&j, "tracks", (long long)cli_clip_track_count(c));
		cli_json_close_object(&j);
	}
	cli_json_close_array(&j);
	cli_json_int(&j, "materials", (long long)s->materials.count);
	cli_json_int(&j, "textures", (long long)s->textures.count);
	cli_json_array(&j, "warnings");
	for (size_t i = 0; i < s->warnings.count; i++) {
		cli_json_object(&j, NULL);
		cli_json_string(&j, "message", s->warnings.data[i].message);
		cli_json_int(&j, "count", (long long)s->warnings.data[i].count);
		cli_json_close_object(&j);
	}
	cli_json_close_array(&j);
	cli_json_close_object(&j);
	cli_json_end(&j);
}

static void cli_info_text(const rk_scene *s, int tree)
{
	char axes[128];
	printf("file:        %s\n", s->source_path);
	if (s->settings.format == RK_FORMAT_FBX)
		printf("format:      FBX %u %s\n", s->settings.fbx_version, s->settings.ascii ? "ascii" : "binary");
	else
		printf("format:      %s\n", rk_format_name(s->settings.format));
	printf("creator:     %s\n", s->settings.creator[0] ? s->settings.creator : "(none)");
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
			printf("  %*s%s [%s] t=(%.4g, %.4g, %.4g) r=(%.4g, %.4g, %.4g) s=(%.4g, %.4g, %.4g)%s%s\n",
				(int)(2 * (n->depth > 0 ? n->depth - 1 : 0)), "", n->name, cli_kind_name(n->kind),
				n->local.translation.x, n->local.translation.y, n->local.translation.z, e.x, e.y, e.z,
				n->local.scale.x, n->local.scale.y, n->local.scale.z,
				n->mesh ? " mesh=" : "", n->mesh ? n->mesh->name : "");
		}
	}
	printf("meshes:      %zu\n", s->meshes.count);
	for (size_t i = 0; i < s->meshes.count; i++) {
		const rk_mesh *m = &s->meshes.data[i];
		printf("  %s: %zu vertices, %zu faces, %zu triangles, normals %s, %zu uv sets, %zu materials, %zu blend channels%s\n",
			m->name, m->vertex_count, m->face_count, m->triangle_count_hint, m->normals.exists ? "yes" : "no",
			m->uv_sets.count, m->materials.count, m->blend_channels.count, m->skin_count ? ", skinned" : "");
	}
	printf("skins:       %zu\n", s->skins.count);
	for (size_t i = 0; i < s->skins.count; i++)
		printf("  %s: %zu joints, up to %zu influences per vertex\n", s->skins.data[i].name,
			s->skins.data[i].joint_count, s->skins.data[i].max_weights_per_vertex);
	printf("clips:       %zu\n", s->clips.count);
	for (size_t i = 0; i < s->clips.count; i++) {
		const rk_anim_clip *c = &s->clips.data[i];
		printf("  %s: %.4g .. %.4g s (%.4g s), %zu tracks\n", c->name, c->time_begin, c->time_end,
			c->time_end - c->time_begin, cli_clip_track_count(c));
	}
	printf("materials:   %zu\n", s->materials.count);
	printf("textures:    %zu\n", s->textures.count);
	printf("warnings:    %zu\n", s->warnings.count);
	for (size_t i = 0; i < s->warnings.count; i++) {
		if (s->warnings.data[i].count > 1)
			printf("  %s (x%zu)\n", s->warnings.data[i].message, s->warnings.data[i].count);
		else
			printf("  %s\n", s->warnings.data[i].message);
	}
}

int cli_cmd_info(int argc, char **argv)
{
	const char *path = NULL;
	int json = 0, tree = 1, meshes = 0;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--json") == 0) json = 1;
		else if (strcmp(argv[i], "--no-tree") == 0) tree = 0;
		else if (strcmp(argv[i], "--meshes") == 0) meshes = 1;
		else if (argv[i][0] == '-' && argv[i][1] != '\0') {
			cli_fail("info: unknown option '%s' (see rigkit info --help)", argv[i]);
			return CLI_EXIT_USAGE;
		} else if (!path) path = argv[i];
		else {
			cli_fail("info: one FILE expected (see rigkit info --help)");
			return CLI_EXIT_USAGE;
		}
	}
	if (!path) {
		cli_fail("info: missing FILE (see rigkit info --help)");
		return CLI_EXIT_USAGE;
	}
	rk_error err;
	rk_scene *s = rk_load_file(path, NULL, &err);
	if (!s) {
		cli_print_error(&err);
		return cli_exit_code(&err);
	}
	if (json) cli_info_json(s, tree);
	else cli_info_text(s, tree);
	int rc = CLI_EXIT_OK;
	if (meshes) {
		rk_mesh_expansion *x = rk_mesh_expansion_build(s, NULL, &err);
		if (!x) {
			cli_print_error(&err);
			rc = cli_exit_code(&err);
		} else {
			size_t n = rk_mesh_expansion_describe(NULL, 0, x);
			char *text = (char *)malloc(n + 1);
			if (text) {
				rk_mesh_expansion_describe(text, n + 1, x);
				printf("%s%s", json ? "" : "expanded meshes:\n", text);
				free(text);
			}
			rk_mesh_expansion_free(x);
		}
	}
	rk_scene_free(s);
	return rc;
}
