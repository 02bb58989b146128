/* tools/rigkit/cmd_transform.c - `rigkit transform`: evaluate the FBX transform chain. */
#include "cli.h"

#include <string.h>

typedef struct cli_transform_args {
	int order;
	bool has_point;
	rk_vec3 point;
} cli_transform_args;

static const cli_enum_name cli_order_names[] = {
	{ "xyz", RK_ROTATION_XYZ }, { "xzy", RK_ROTATION_XZY }, { "yzx", RK_ROTATION_YZX },
	{ "yxz", RK_ROTATION_YXZ }, { "zxy", RK_ROTATION_ZXY }, { "zyx", RK_ROTATION_ZYX }, { NULL, 0 },
};

#define CLI_PROP(opt, member, text) \
	{ .name = opt, .kind = CLI_OPT_VEC3, .offset = offsetof(rk_transform_props, member), .metavar = "V", .help = text }

static const cli_opt cli_transform_props_rows[] = {
	CLI_PROP("--translation", translation, "Lcl Translation (default 0,0,0)"),
	CLI_PROP("--rotation", rotation, "Lcl Rotation (default 0,0,0)"),
	CLI_PROP("--scaling", scaling, "Lcl Scaling (default 1,1,1)"),
	CLI_PROP("--rotation-offset", rotation_offset, "RotationOffset"),
	CLI_PROP("--rotation-pivot", rotation_pivot, "RotationPivot"),
	CLI_PROP("--scaling-offset", scaling_offset, "ScalingOffset"),
	CLI_PROP("--scaling-pivot", scaling_pivot, "ScalingPivot"),
	CLI_PROP("--pre-rotation", pre_rotation, "PreRotation"),
	CLI_PROP("--post-rotation", post_rotation, "PostRotation"),
	{ .name = "--rotation-active", .kind = CLI_OPT_FLAG, .offset = offsetof(rk_transform_props, rotation_active),
		.help = "honour pre/post rotation and order (FBX RotationActive)" },
	CLI_PROP("--geometric-translation", geometric_translation, "GeometricTranslation"),
	CLI_PROP("--geometric-rotation", geometric_rotation, "GeometricRotation"),
	CLI_PROP("--geometric-scaling", geometric_scaling, "GeometricScaling"),
};

static const cli_opt cli_transform_rows[] = {
	{ .name = "--order", .kind = CLI_OPT_ENUM, .offset = offsetof(cli_transform_args, order), .names = cli_order_names,
		.metavar = "ORDER", .help = "RotationOrder: xyz xzy yzx yxz zxy zyx (default xyz)" },
	{ .name = "--point", .kind = CLI_OPT_VEC3, .offset = offsetof(cli_transform_args, point),
		.seen = CLI_SEEN(cli_transform_args, has_point), .metavar = "V",
		.help = "also transform this point by node_to_parent" },
};

static const cli_opt_table cli_transform_props_table =
	CLI_TABLE("options (vectors are X,Y,Z; angles in degrees)", cli_transform_props_rows);
static const cli_opt_table cli_transform_table = CLI_TABLE(NULL, cli_transform_rows);

const cli_spec cli_transform_spec = {
	.name = "transform",
	.usage = "usage: rigkit transform [OPTIONS] [--json]\n"
		"\n"
		"Evaluates an FBX node's transform chain (seed 000):\n"
		"  node_to_parent = T * Roff * Rp * Rpre * R * inv(Rpost) * inv(Rp) * Soff * Sp * S * inv(Sp)\n"
		"and prints node_to_parent, geometry_to_node and their decomposition.\n"
		"\n",
	.operands = "no FILE", .min_operands = 0, .max_operands = 0,
	.tables = { &cli_transform_props_table, &cli_transform_table },
};

static void cli_print_matrix(const char *title, rk_mat4 m)
{
	printf("%s:\n", title);
	for (int row = 0; row < 4; row++) {
		printf("  [");
		for (int col = 0; col < 4; col++) printf(" %11.6f", m.m[col * 4 + row]);
		printf(" ]\n");
	}
}

int cli_cmd_transform(cli_ctx *ctx, int argc, char **argv)
{
	rk_transform_props p = rk_transform_props_default();
	cli_transform_args a = { 0 };
	a.order = (int)p.rotation_order;
	cli_operands ops;
	int rc = cli_opts_parse(ctx, &cli_transform_spec, (void *const[]){ &p, &a }, argc, argv, &ops);
	if (rc) return rc;
	p.rotation_order = (rk_rotation_order)a.order;
	int json = ctx->json, has_point = a.has_point;
	rk_vec3 point = a.point;
	rk_mat4 m = rk_fbx_node_to_parent(&p, NULL);
	rk_mat4 g = rk_fbx_geometry_to_node(&p);
	rk_trs d = rk_mat4_decompose(m);
	rk_vec3 euler = rk_quat_to_euler_deg(d.rotation, RK_ROTATION_XYZ);
	rk_vec3 tp = rk_mat4_transform_point(m, point);
	if (json) {
		cli_json j;
		cli_json_document(&j, ctx);
		cli_json_object(&j, NULL);
		cli_json_mat4(&j, "node_to_parent", m);
		cli_json_mat4(&j, "geometry_to_node", g);
		cli_json_vec3(&j, "translation", d.translation);
		cli_json_quat(&j, "rotation", d.rotation);
		cli_json_vec3(&j, "rotation_euler_xyz_deg", euler);
		cli_json_vec3(&j, "scale", d.scale);
		if (has_point) cli_json_vec3(&j, "point", tp);
		cli_json_close_object(&j);
		return cli_json_end(&j);
	}
	cli_print_matrix("node_to_parent (column vectors)", m);
	cli_print_matrix("geometry_to_node", g);
	printf("decomposed: translation (%.6f, %.6f, %.6f)\n", d.translation.x, d.translation.y, d.translation.z);
	printf("            rotation quat (%.6f, %.6f, %.6f, %.6f) = euler xyz (%.4f, %.4f, %.4f) deg\n",
		d.rotation.x, d.rotation.y, d.rotation.z, d.rotation.w, euler.x, euler.y, euler.z);
	printf("            scale (%.6f, %.6f, %.6f)\n", d.scale.x, d.scale.y, d.scale.z);
	if (has_point)
		printf("point (%.6f, %.6f, %.6f) -> (%.6f, %.6f, %.6f)\n", point.x, point.y, point.z, tp.x, tp.y, tp.z);
	return CLI_EXIT_OK;
}
