/* tools/rigkit/cmd_convert.c - `rigkit convert IN OUT`: evaluated OBJ output (and more formats as they land). */
#include "cli.h"

#include <rigkit/anim.h>

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

const char rk_cmd_convert_usage[] =
	"usage: rigkit convert IN OUT.{obj,glb,gltf} [OPTIONS]\n"
	"\n"
	"Loads IN (FBX, glTF, GLB) and writes OUT in the format its extension names.\n"
	"\n"
	"GLB / glTF output: the whole scene in glTF conventions (metres, Y up, +Z\n"
	"front, right-handed): hierarchy, triangulated meshes with normals, UVs,\n"
	"top-4 skin influences, materials with embedded textures, skins, morph\n"
	"targets, and every animation clip (FBX curves baked at the file frame\n"
	"rate, or --fps, with redundant keys removed). Writer warnings go to stderr.\n"
	"\n"
	"OBJ output: for every node that carries a mesh, in node order:\n"
	"  o <node name>\n"
	"  g <node name> <parent name> ... <outermost ancestor below the root>\n"
	"  world-space evaluated v (skinning and blend shapes applied), vt (the\n"
	"  node's current UV set, else the first), vn (when the mesh has normals),\n"
	"  and one 'f p/t/n ...' per polygon with corners in file order (not\n"
	"  triangulated). Whitespace in names is written as FBXASC + 3-digit byte.\n"
	"\n"
	"options:\n"
	"  --clip NAME          evaluate animation clip (FBX stack) NAME ...\n"
	"  --time SECONDS       ... at this absolute file time (default: clip start;\n"
	"                       without --clip: the first clip with tracks)\n"
	"  --no-extrapolation   hold each curve's first/last value outside its keys\n"
	"  --axes AXES          convert to right_handed_y_up, left_handed_y_up,\n"
	"                       right_handed_z_up or left_handed_z_up\n"
	"  --unit-meters U      convert to U metres per unit\n"
	"  --fps N              (glTF) bake FBX curves at N frames per second\n"
	"Without --clip/--time the static scene (values stored in the file) is written.\n";

/* ---- output buffer ---------------------------------------------------------- */

typedef struct rk_out {
	char *data;
	size_t size, cap;
	int failed;
} rk_out;

static void rk_out_reserve(rk_out *o, size_t extra)
{
	if (o->failed || o->size + extra <= o->cap) return;
	size_t cap = o->cap ? o->cap : 1 << 16;
	while (cap < o->size + extra) cap *= 2;
	char *p = (char *)realloc(o->data, cap);
	if (!p) {
		o->failed = 1;
		return;
	}
	o->data = p;
	o->cap = cap;
}

static void rk_out_printf(rk_out *o, const char *fmt, ...)
{
	va_list ap;
	rk_out_reserve(o, 256);
	if (o->failed) return;
	va_start(ap, fmt);
	int n = vsnprintf(o->data + o->size, o->cap - o->size, fmt, ap);
	va_end(ap);
	if (n < 0) {
		o->failed = 1;
		return;
	}
	if ((size_t)n >= o->cap - o->size) {
		rk_out_reserve(o, (size_t)n + 1);
		if (o->failed) return;
		va_start(ap, fmt);
		vsnprintf(o->data + o->size, o->cap - o->size, fmt, ap);
		va_end(ap);
	}
	o->size += (size_t)n;
}

/* Names: whitespace and control bytes become FBXASC + 3 decimal digits. */
static void rk_out_name(rk_out *o, const char *name)
{
	if (!name[0]) {
		rk_out_printf(o, "FBXASC000");
		return;
	}
	for (const unsigned char *p = (const unsigned char *)name; *p; p++) {
		if (*p <= 0x20 || *p == 0x7f) rk_out_printf(o, "FBXASC%03u", (unsigned)*p);
		else rk_out_printf(o, "%c", *p);
	}
}

static const rk_uv_set *rk_pick_uv_set(const rk_node *node)
{
	const rk_mesh *m = node->mesh;
	if (!m->uv_sets.count) return NULL;
	if (node->default_uv_set && node->default_uv_set[0]) {
		for (size_t i = 0; i < m->uv_sets.count; i++)
			if (m->uv_sets.data[i].name && strcmp(m->uv_sets.data[i].name, node->default_uv_set) == 0) return &m->uv_sets.data[i];
	}
	return &m->uv_sets.data[0];
}

static int rk_write_obj(const rk_scene *s, const rk_pose *pose, bool mirrored, rk_out *o)
{
	size_t v_base = 1, t_base = 1, n_base = 1;
	size_t max_v = 0, max_c = 0;
	for (size_t i = 0; i < s->nodes.count; i++) {
		const rk_mesh *m = s->nodes.data[i].mesh;
		if (!m) continue;
		if (m->vertex_count > max_v) max_v = m->vertex_count;
		if (m->index_count > max_c) max_c = m->index_count;
	}
	rk_vec3 *pos = (rk_vec3 *)malloc((max_v ? max_v : 1) * sizeof(rk_vec3));
	rk_vec3 *nrm = (rk_vec3 *)malloc((max_c ? max_c : 1) * sizeof(rk_vec3));
	if (!pos || !nrm) {
		free(pos);
		free(nrm);
		rk_cli_fail("convert: out of memory");
		return RK_EXIT_INPUT;
	}
	rk_out_printf(o, "# rigkit %s\n", rk_version());
	for (size_t i = 0; i < s->nodes.count; i++) {
		const rk_node *n = &s->nodes.data[i];
		const rk_mesh *m = n->mesh;
		if (!m) continue;
		if (!rk_eval_mesh_world_positions(s, n, pose, pos)) continue;
		bool has_n = m->normals.exists && rk_eval_mesh_world_normals(s, n, pose, nrm);
		const rk_uv_set *uv = rk_pick_uv_set(n);
		rk_out_printf(o, "o ");
		rk_out_name(o, n->name);
		rk_out_printf(o, "\ng ");
		for (const rk_node *a = n; a && a->parent; a = a->parent) {
			if (a != n) rk_out_printf(o, " ");
			rk_out_name(o, a->name);
		}
		rk_out_printf(o, "\n");
		for (size_t v = 0; v < m->vertex_count; v++)
			rk_out_printf(o, "v %.9g %.9g %.9g\n", pos[v].x, pos[v].y, pos[v].z);
		if (uv)
			for (size_t t = 0; t < uv->uv.value_count; t++)
				rk_out_printf(o, "vt %.9g %.9g\n", uv->uv.values[t].x, uv->uv.values[t].y);
		if (has_n)
			for (size_t c = 0; c < m->index_count; c++)
				rk_out_printf(o, "vn %.9g %.9g %.9g\n", nrm[c].x, nrm[c].y, nrm[c].z);
		for (size_t f = 0; f < m->face_count; f++) {
			const rk_face *face = &m->faces[f];
			rk_out_printf(o, "f");
			for (uint32_t k = 0; k < face->index_count; k++) {
				/* A mirroring conversion reverses the winding, keeping the first corner. */
				uint32_t kk = (mirrored && k > 0) ? face->index_count - k : k;
				size_t c = face->index_begin + kk;
				rk_out_printf(o, " %zu", v_base + m->vertex_indices[c]);
				if (uv && has_n) rk_out_printf(o, "/%zu/%zu", t_base + uv->uv.indices[c], n_base + c);
				else if (uv) rk_out_printf(o, "/%zu", t_base + uv->uv.indices[c]);
				else if (has_n) rk_out_printf(o, "//%zu", n_base + c);
			}
			rk_out_printf(o, "\n");
		}
		v_base += m->vertex_count;
		if (uv) t_base += uv->uv.value_count;
		if (has_n) n_base += m->index_count;
	}
	free(pos);
	free(nrm);
	return RK_EXIT_OK;
}

static void rk_print_writer_warning(void *user, const char *message, size_t count)
{
	(void)user;
	if (count > 1) fprintf(stderr, "rigkit: warning: %s (x%zu)\n", message, count);
	else fprintf(stderr, "rigkit: warning: %s\n", message);
}

static int rk_convert_gltf(const rk_scene *s, const char *out, double fps)
{
	rk_gltf_write_opts o = { 0 };
	rk_error err;
	o.bake_fps = fps;
	o.warning = rk_print_writer_warning;
	if (!rk_write_gltf(s, out, &o, &err)) {
		rk_cli_print_error(&err);
		return err.code == RK_ERROR_OUTPUT ? RK_EXIT_OUTPUT : RK_EXIT_INPUT;
	}
	return RK_EXIT_OK;
}

static const char *rk_ext(const char *path)
{
	const char *dot = strrchr(path, '.');
	const char *slash = strrchr(path, '/');
	return (dot && (!slash || dot > slash)) ? dot + 1 : "";
}

int rk_cmd_convert(int argc, char **argv)
{
	const char *in = NULL, *out = NULL, *clip_name = NULL;
	double time = 0.0;
	bool has_time = false, no_extra = false;
	double fps = 0.0;
	rk_load_opts lo = { 0 };
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--no-extrapolation")) { no_extra = true; continue; }
		if (!strcmp(a, "--clip") || !strcmp(a, "--time") || !strcmp(a, "--axes") || !strcmp(a, "--unit-meters")
			|| !strcmp(a, "--fps")) {
			if (i + 1 >= argc) {
				rk_cli_fail("convert: %s needs a value (see rigkit convert --help)", a);
				return RK_EXIT_USAGE;
			}
			const char *v = argv[++i];
			char *end;
			if (!strcmp(a, "--clip")) clip_name = v;
			else if (!strcmp(a, "--fps")) {
				fps = strtod(v, &end);
				if (end == v || *end || !(fps > 0.0 && fps <= 1000.0)) {
					rk_cli_fail("convert: --fps expects a number in (0, 1000], got '%s'", v);
					return RK_EXIT_USAGE;
				}
			}
			else if (!strcmp(a, "--time")) {
				time = strtod(v, &end);
				if (end == v || *end || !isfinite(time)) {
					rk_cli_fail("convert: --time expects seconds, got '%s'", v);
					return RK_EXIT_USAGE;
				}
				has_time = true;
			} else if (rk_cli_load_option("convert", a, v, &lo) < 0) {
				return RK_EXIT_USAGE;
			}
			continue;
		}
		if (a[0] == '-' && a[1]) {
			rk_cli_fail("convert: unknown option '%s' (see rigkit convert --help)", a);
			return RK_EXIT_USAGE;
		}
		if (!in) in = a;
		else if (!out) out = a;
		else {
			rk_cli_fail("convert: expected IN and OUT only (see rigkit convert --help)");
			return RK_EXIT_USAGE;
		}
	}
	if (!in || !out) {
		rk_cli_fail("convert: missing IN or OUT (see rigkit convert --help)");
		return RK_EXIT_USAGE;
	}
	const char *ext = rk_ext(out);
	bool gltf = !strcasecmp(ext, "glb") || !strcasecmp(ext, "gltf");
	if (strcasecmp(ext, "obj") != 0 && !gltf) {
		rk_cli_fail("convert: %s: unsupported output format '.%s' (supported: .obj, .glb, .gltf)", out, ext);
		return RK_EXIT_USAGE;
	}
	rk_error err;
	rk_scene *s = rk_load_file(in, &lo, &err);
	if (!s) {
		rk_cli_print_error(&err);
		return rk_cli_exit_code(&err);
	}
	if (gltf) {
		int grc = rk_convert_gltf(s, out, fps);
		rk_free_scene(s);
		return grc;
	}
	const rk_anim_clip *clip = NULL;
	if (clip_name) {
		clip = rk_find_clip(s, clip_name);
		if (!clip) {
			rk_cli_fail("%s: no animation clip named '%s' (see rigkit info)", in, clip_name);
			rk_free_scene(s);
			return RK_EXIT_INPUT;
		}
		if (!has_time) time = clip->time_begin;
	} else if (has_time) {
		clip = rk_cli_default_clip(s);
	}
	size_t pose_size = rk_pose_memory_size(s);
	void *pose_mem = malloc(pose_size ? pose_size : 1);
	rk_pose pose;
	int rc = RK_EXIT_OK;
	if (!pose_mem || !rk_pose_init(&pose, s, pose_mem, pose_size)) {
		rk_cli_fail("convert: out of memory");
		rc = RK_EXIT_INPUT;
	} else {
		rk_eval_pose_job job = { 0 };
		job.scene = s;
		job.clip = clip;
		job.time = time;
		job.no_extrapolation = no_extra;
		job.pose = &pose;
		if (!rk_eval_pose_validate(&job, &err) || !rk_eval_pose_run(&job)) {
			rk_error_code c = err.code;
			(void)c;
			rk_cli_print_error(&err);
			rc = RK_EXIT_INPUT;
		}
	}
	if (rc == RK_EXIT_OK) {
		rk_out o = { 0 };
		bool mirrored = rk_mat4_determinant3(s->root->node_to_parent) < 0.0;
		rc = rk_write_obj(s, &pose, mirrored, &o);
		if (rc == RK_EXIT_OK && o.failed) {
			rk_cli_fail("convert: out of memory writing %s", out);
			rc = RK_EXIT_OUTPUT;
		}
		if (rc == RK_EXIT_OK && !rk_write_file_atomic(out, o.data, o.size, &err)) {
			rk_cli_print_error(&err);
			rc = RK_EXIT_OUTPUT;
		}
		free(o.data);
	}
	free(pose_mem);
	rk_free_scene(s);
	return rc;
}
