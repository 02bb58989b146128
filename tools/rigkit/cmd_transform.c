/* tools/rigkit/cmd_transform.c - `rigkit transform`: evaluate the FBX transform chain. */
#include "cli.h"

#include <string.h>

const char cli_cmd_transform_usage[] =
	"usage: rigkit transform [OPTIONS] [--json]\n"
	"\n"
	"Evaluates an FBX node's transform chain (seed 000):\n"
	"  node_to_parent = T * Roff * Rp * Rpre * R * inv(Rpost) * inv(Rp) * Soff * Sp * S * inv(Sp)\n"
	"and prints node_to_parent, geometry_to_node and their decomposition.\n"
	"\n"
	"options (vectors are X,Y,Z; angles in degrees):\n"
	"  --translation V      Lcl Translation (default 0,0,0)\n"
	"  --rotation V         Lcl Rotation (default 0,0,0)\n"
	"  --scaling V          Lcl Scaling (default 1,1,1)\n"
	"  --order ORDER        RotationOrder: xyz xzy yzx yxz zxy zyx (default xyz)\n"
	"  --rotation-offset V  --rotation-pivot V  --scaling-offset V  --scaling-pivot V\n"
	"  --pre-rotation V     --post-rotation V\n"
	"  --rotation-active    honour pre/post rotation and order (FBX RotationActive)\n"
	"  --geometric-translation V  --geometric-rotation V  --geometric-scaling V\n"
	"  --point V            also transform this point by node_to_parent\n"
	"  --json               machine-readable output\n";

static int cli_parse_order(const char *s, rk_rotation_order *o)
{
	static const char *const names[] = { "xyz", "xzy", "yzx", "yxz", "zxy", "zyx" };
	for (int i = 0; i < 6; i++) {
		if (strcmp(s, names[i]) == 0) {
			*o = (rk_rotation_order)i;
			return 1;
		}
	}
	return 0;
}

static void cli_print_matrix(const char *title, rk_mat4 m)
{
	printf("%s:\n", title);
	for (int row = 0; row < 4; row++) {
		printf("  [");
		for (int col = 0; col < 4; col++) printf(" %11.6f", m.m[col * 4 + row]);
		printf(" ]\n");
	}
}

int cli_cmd_transform(int argc, char **argv)
{
	rk_transform_props p = rk_transform_props_default();
	int json = 0, has_point = 0;
	rk_vec3 point = { 0, 0, 0 };
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		rk_vec3 *target = NULL;
		if (strcmp(a, "--json") == 0) { json = 1; continue; }
		if (strcmp(a, "--rotation-active") == 0) { p.rotation_active = true; continue; }
		if (i + 1 >= argc) {
			cli_fail("transform: %s needs a value (see rigkit transform --help)", a);
			return CLI_EXIT_USAGE;
		}
		const char *v = argv[++i];
		if (strcmp(a, "--order") == 0) {
			if (!cli_parse_order(v, &p.rotation_order)) {
				cli_fail("transform: unknown rotation order '%s' (xyz xzy yzx yxz zxy zyx)", v);
				return CLI_EXIT_USAGE;
			}
			continue;
		}
		if (strcmp(a, "--translation") == 0) target = &p.translation;
		else if (strcmp(a, "--rotation") == 0) target = &p.rotation;
		else if (strcmp(a, "--scaling") == 0) target = &p.scaling;
		else if (strcmp(a, "--rotation-offset") == 0) target = &p.rotation_offset;
		else if (strcmp(a, "--rotation-pivot") == 0) target = &p.rotation_pivot;
		else if (strcmp(a, "--scaling-offset") == 0) target = &p.scaling_offset;
		else if (strcmp(a, "--scaling-pivot") == 0) target = &p.scaling_pivot;
		else if (strcmp(a, "--pre-rotation") == 0) target = &p.pre_rotation;
		else if (strcmp(a, "--post-rotation") == 0) target = &p.post_rotation;
		else if (strcmp(a, "--geometric-translation") == 0) target = &p.geometric_translation;
		else if (strcmp(a, "--geometric-rotation") == 0) target = &p.geometric_rotation;
		else if (strcmp(a, "--geometric-scaling") == 0) target = &p.geometric_scaling;
		else if (strcmp(a, "--point") == 0) { target = &point; has_point = 1; }
		else {
			cli_fail("transform: unknown option '%s' (see rigkit transform --help)", a);
			return CLI_EXIT_USAGE;
		}
		if (!cli_parse_vec3(v, target)) {
			cli_fail("transform: %s expects X,Y,Z numbers, got '%s'", a, v);
			return CLI_EXIT_USAGE;
		}
	}
	rk_mat4 m = rk_fbx_node_to_parent(&p, NULL);
	rk_mat4 g = rk_fbx_geometry_to_node(&p);
	rk_trs d = rk_mat4_decompose(m);
	rk_vec3 euler = rk_quat_to_euler_deg(d.rotation, RK_ROTATION_XYZ);
	rk_vec3 tp = rk_mat4_transform_point(m, point);
	if (json) {
		cli_json j;
		cli_json_begin(&j, stdout);
		cli_json_object(&j, NULL);
		cli_json_mat4(&j, "node_to_parent", m);
		cli_json_mat4(&j, "geometry_to_node", g);
		cli_json_vec3(&j, "translation", d.translation);
		cli_json_quat(&j, "rotation", d.rotation);
		cli_json_vec3(&j, "rotation_euler_xyz_deg", euler);
		cli_json_vec3(&j, "scale", d.scale);
		if (has_point) cli_json_vec3(&j, "point", tp);
		cli_json_close_object(&j);
		cli_json_end(&j);
		return CLI_EXIT_OK;
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
