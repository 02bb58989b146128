/* tools/rigkit/main.c - the rigkit command-line tool: dispatch, help, shared helpers. */
#include "cli.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static const cli_command cli_commands[] = {
	{ "info", "describe a scene file (FBX, glTF, GLB)", cli_cmd_info_usage, cli_cmd_info },
	{ "convert", "convert a scene to GLB/glTF, or evaluate it into a posed OBJ", cli_cmd_convert_usage, cli_cmd_convert },
	{ "pose", "print evaluated node world transforms at given times", cli_cmd_pose_usage, cli_cmd_pose },
	{ "transform", "evaluate the FBX node transform chain for given properties", cli_cmd_transform_usage, cli_cmd_transform },
	{ "sample", "write the built-in sample characters (source.glb, avatar.glb)", cli_cmd_sample_usage, cli_cmd_sample },
	{ "humanoid", "show which node plays which humanoid bone", cli_cmd_humanoid_usage, cli_cmd_humanoid },
	{ "retarget", "play a clip of one humanoid on another, write the result as GLB", cli_cmd_retarget_usage, cli_cmd_retarget },
	{ "compare", "compare two clips on two humanoids bone by bone, in numbers", cli_cmd_compare_usage, cli_cmd_compare },
	{ "batch", "retarget many motions onto many avatars in parallel", cli_cmd_batch_usage, cli_cmd_batch },
	{ "render", "draw a posed scene into a PNG (no GPU)", cli_cmd_render_usage, cli_cmd_render },
};

static void cli_print_help(FILE *out)
{
	fprintf(out,
		"rigkit %s - animated-character pipeline tool\n"
		"\n"
		"usage: rigkit COMMAND [ARGS...]\n"
		"       rigkit COMMAND --help\n"
		"       rigkit --help | --version\n"
		"\n"
		"commands:\n", rk_version());
	for (size_t i = 0; i < sizeof(cli_commands) / sizeof(cli_commands[0]); i++)
		fprintf(out, "  %-10s %s\n", cli_commands[i].name, cli_commands[i].summary);
	fprintf(out,
		"\n"
		"exit codes: 0 ok, 1 usage error, 2 bad input, 3 output failure\n"
		"commands that print data accept --json\n");
}

void cli_print_error(const rk_error *err)
{
	char buf[2048];
	rk_error_format(buf, sizeof(buf), err);
	fprintf(stderr, "rigkit: %s\n", buf);
}

void cli_fail(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("rigkit: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

int cli_exit_code(const rk_error *err)
{
	if (err->code == RK_ERROR_OUTPUT) return CLI_EXIT_OUTPUT;
	if (err->code == RK_ERROR_INVALID_ARGUMENT) return CLI_EXIT_USAGE;
	return CLI_EXIT_INPUT;
}

int cli_wants_help(int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) return 1;
	return 0;
}

int cli_load_option(const char *cmd, const char *opt, const char *value, rk_load_opts *lo)
{
	char *end;
	if (strcmp(opt, "--axes") == 0) {
		if (!rk_axes_parse(value, &lo->target_axes)) {
			cli_fail("%s: unknown axes '%s' (right_handed_y_up, left_handed_y_up, right_handed_z_up, left_handed_z_up)",
				cmd, value);
			return -1;
		}
		return 1;
	}
	if (strcmp(opt, "--unit-meters") == 0) {
		lo->target_unit_meters = strtod(value, &end);
		if (end == value || *end || !(lo->target_unit_meters > 0.0)) {
			cli_fail("%s: --unit-meters expects a positive number, got '%s'", cmd, value);
			return -1;
		}
		return 1;
	}
	return 0;
}

const rk_anim_clip *cli_default_clip(const rk_scene *s)
{
	for (size_t i = 0; i < s->clips.count; i++)
		for (size_t l = 0; l < s->clips.data[i].layer_count; l++)
			if (s->clips.data[i].layers[l].track_count) return &s->clips.data[i];
	return s->clips.count ? &s->clips.data[0] : NULL;
}

int cli_parse_vec3(const char *s, rk_vec3 *v)
{
	char *end;
	double c[3];
	const char *p = s;
	for (int i = 0; i < 3; i++) {
		c[i] = strtod(p, &end);
		if (end == p) return 0;
		p = end;
		if (i < 2) {
			if (*p != ',') return 0;
			p++;
		}
	}
	if (*p != '\0') return 0;
	*v = (rk_vec3){ c[0], c[1], c[2] };
	return 1;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		cli_print_help(stderr);
		return CLI_EXIT_USAGE;
	}
	const char *cmd = argv[1];
	if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
		cli_print_help(stdout);
		return CLI_EXIT_OK;
	}
	if (strcmp(cmd, "--version") == 0) {
		printf("rigkit %s\n", rk_version());
		return CLI_EXIT_OK;
	}
	for (size_t i = 0; i < sizeof(cli_commands) / sizeof(cli_commands[0]); i++) {
		if (strcmp(cmd, cli_commands[i].name) != 0) continue;
		if (cli_wants_help(argc - 1, argv + 1)) {
			fputs(cli_commands[i].usage, stdout);
			return CLI_EXIT_OK;
		}
		return cli_commands[i].run(argc - 1, argv + 1);
	}
	cli_fail("unknown command '%s' (see rigkit --help)", cmd);
	return CLI_EXIT_USAGE;
}
