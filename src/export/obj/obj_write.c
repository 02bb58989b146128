/* src/export/obj/obj_write.c - Wavefront OBJ of a scene's evaluated meshes
 * (include/rigkit/export.h, OBJ WRITER). */
#include "core/internal.h"
#include "rigkit/anim.h"
#include "rigkit/export.h"

#include <stdarg.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct rki_obj_out {
	char *data;
	size_t size, cap;
	bool failed;
} rki_obj_out;

static void rki_obj_reserve(rki_obj_out *o, size_t extra)
{
	if (o->failed || extra <= o->cap - o->size) return;
	size_t cap = o->cap ? o->cap : (size_t)1 << 16;
	while (cap - o->size < extra) {
		if (cap > SIZE_MAX / 2) {
			o->failed = true;
			return;
		}
		cap *= 2;
	}
	char *p = (char *)realloc(o->data, cap);
	if (!p) {
		o->failed = true;
		return;
	}
	o->data = p;
	o->cap = cap;
}

static void rki_obj_printf(rki_obj_out *o, const char *fmt, ...) RKI_PRINTF(2, 3);
static void rki_obj_printf(rki_obj_out *o, const char *fmt, ...)
{
	va_list ap;
	rki_obj_reserve(o, 256);
	if (o->failed) return;
	va_start(ap, fmt);
	int n = vsnprintf(o->data + o->size, o->cap - o->size, fmt, ap);
	va_end(ap);
	if (n < 0) {
		o->failed = true;
		return;
	}
	if ((size_t)n >= o->cap - o->size) {
		rki_obj_reserve(o, (size_t)n + 1);
		if (o->failed) return;
		va_start(ap, fmt);
		vsnprintf(o->data + o->size, o->cap - o->size, fmt, ap);
		va_end(ap);
	}
	o->size += (size_t)n;
}

/* Names: whitespace and control bytes become FBXASC + 3 decimal digits. */
static void rki_obj_name(rki_obj_out *o, const char *name)
{
	if (!name || !name[0]) {
		rki_obj_printf(o, "FBXASC000");
		return;
	}
	for (const unsigned char *p = (const unsigned char *)name; *p; p++) {
		if (*p <= 0x20 || *p == 0x7f) rki_obj_printf(o, "FBXASC%03u", (unsigned)*p);
		else rki_obj_printf(o, "%c", *p);
	}
}

/* The one UV set an OBJ mesh carries (OBJ writes no materials): the rule
 * of scene.h without a texture, i.e. node->default_uv_set, else set 0. */
static const rk_uv_set *rki_obj_uv_set(const rk_node *node)
{
	int32_t u = rk_node_texture_uv_set(node, NULL);
	return u == RK_NO_UV_SET ? NULL : &node->mesh->uv_sets.data[u];
}

static bool rki_obj_build(const rk_scene *s, const rk_pose *pose, rki_obj_out *o, rk_error *err)
{
	bool mirrored = rk_mat4_determinant3(s->root->node_to_parent) < 0.0;
	size_t v_base = 1, t_base = 1, n_base = 1;
	size_t max_v = 0, max_c = 0;
	for (size_t i = 0; i < s->nodes.count; i++) {
		const rk_mesh *m = s->nodes.data[i].mesh;
		if (!m) continue;
		if (m->vertex_count > max_v) max_v = m->vertex_count;
		if (m->index_count > max_c) max_c = m->index_count;
	}
	if (max_v > SIZE_MAX / sizeof(rk_vec3) || max_c > SIZE_MAX / sizeof(rk_vec3)) {
		rki_error_set(err, RK_ERROR_LIMIT, "rk_obj_write: mesh too large");
		return false;
	}
	rk_vec3 *pos = (rk_vec3 *)malloc((max_v ? max_v : 1) * sizeof(rk_vec3));
	rk_vec3 *nrm = (rk_vec3 *)malloc((max_c ? max_c : 1) * sizeof(rk_vec3));
	if (!pos || !nrm) {
		free(pos);
		free(nrm);
		rki_error_set(err, RK_ERROR_OUT_OF_MEMORY, "rk_obj_write: out of memory");
		return false;
	}
	rki_obj_printf(o, "# rigkit %s\n", rk_version());
	for (size_t i = 0; i < s->nodes.count; i++) {
		const rk_node *n = &s->nodes.data[i];
		const rk_mesh *m = n->mesh;
		if (!m) continue;
		if (!rk_mesh_world_positions_eval(s, n, pose, pos)) continue;
		bool has_n = m->normals.exists && rk_mesh_world_normals_eval(s, n, pose, nrm);
		const rk_uv_set *uv = rki_obj_uv_set(n);
		/* a pose can overflow (finite keys of 1e300 times a scale): never write nan/inf */
		bool finite = true;
		for (size_t v = 0; v < m->vertex_count && finite; v++)
			finite = isfinite(pos[v].x) && isfinite(pos[v].y) && isfinite(pos[v].z);
		for (size_t c = 0; has_n && c < m->index_count && finite; c++)
			finite = isfinite(nrm[c].x) && isfinite(nrm[c].y) && isfinite(nrm[c].z);
		if (!finite) {
			free(pos);
			free(nrm);
			rki_error_set(err, RK_ERROR_CORRUPT, "rk_obj_write: the pose gives node \"%.80s\" non-finite positions or normals",
				n->name ? n->name : "");
			rki_error_file(err, s->source_path);
			return false;
		}
		rki_obj_printf(o, "o ");
		rki_obj_name(o, n->name);
		rki_obj_printf(o, "\ng ");
		for (const rk_node *a = n; a && a->parent; a = a->parent) {
			if (a != n) rki_obj_printf(o, " ");
			rki_obj_name(o, a->name);
		}
		rki_obj_printf(o, "\n");
		for (size_t v = 0; v < m->vertex_count; v++)
			rki_obj_printf(o, "v %.9g %.9g %.9g\n", pos[v].x, pos[v].y, pos[v].z);
		if (uv)
			for (size_t t = 0; t < uv->uv.value_count; t++)
				{
					rk_vec2 t2 = rk_attrib_vec2_value(&uv->uv, t);
					rki_obj_printf(o, "vt %.9g %.9g\n", t2.x, t2.y);
				}
		if (has_n)
			for (size_t c = 0; c < m->index_count; c++)
				rki_obj_printf(o, "vn %.9g %.9g %.9g\n", nrm[c].x, nrm[c].y, nrm[c].z);
		for (size_t f = 0; f < m->face_count; f++) {
			const rk_face *face = &m->faces[f];
			rki_obj_printf(o, "f");
			for (uint32_t k = 0; k < face->index_count; k++) {
				/* A mirroring conversion reverses the winding, keeping the first corner. */
				uint32_t kk = (mirrored && k > 0) ? face->index_count - k : k;
				size_t c = face->index_begin + kk;
				rki_obj_printf(o, " %zu", v_base + m->vertex_indices[c]);
				if (uv && has_n) rki_obj_printf(o, "/%zu/%zu", t_base + uv->uv.indices[c], n_base + c);
				else if (uv) rki_obj_printf(o, "/%zu", t_base + uv->uv.indices[c]);
				else if (has_n) rki_obj_printf(o, "//%zu", n_base + c);
			}
			rki_obj_printf(o, "\n");
		}
		v_base += m->vertex_count;
		if (uv) t_base += uv->uv.value_count;
		if (has_n) n_base += m->index_count;
	}
	free(pos);
	free(nrm);
	if (o->failed) {
		rki_error_set(err, RK_ERROR_OUT_OF_MEMORY, "rk_obj_write: out of memory");
		return false;
	}
	return true;
}

bool rk_obj_write_memory(const rk_scene *scene, const rk_obj_write_opts *opts, char **out_text, size_t *out_size,
	rk_error *err)
{
	rki_error_clear(err);
	if (out_text) *out_text = NULL;
	if (out_size) *out_size = 0;
	if (!scene || !scene->root || !out_text || !out_size) {
		rki_error_set(err, RK_ERROR_INVALID_ARGUMENT, "rk_obj_write_memory: scene, out_text and out_size are required");
		return false;
	}
	const rk_pose *pose = opts ? opts->pose : NULL;
	rk_pose own;
	void *own_mem = NULL;
	if (!pose) {
		size_t bytes = rk_pose_memory_size(scene);
		own_mem = malloc(bytes ? bytes : 1);
		if (!own_mem || !rk_pose_init(&own, scene, own_mem, bytes)) {
			free(own_mem);
			rki_error_set(err, RK_ERROR_OUT_OF_MEMORY, "rk_obj_write: out of memory");
			return false;
		}
		rk_pose_eval_job job = { .scene = scene, .pose = &own };
		if (!rk_pose_eval_validate(&job, err)) {
			free(own_mem);
			return false;
		}
		if (!rk_pose_eval_run(&job)) {
			free(own_mem);
			rki_error_set(err, RK_ERROR_CORRUPT, "rk_obj_write: the static pose cannot be evaluated (non-finite transforms)");
			rki_error_file(err, scene->source_path);
			return false;
		}
		pose = &own;
	}
	rki_obj_out o = { 0 };
	bool ok = rki_obj_build(scene, pose, &o, err);
	free(own_mem);
	if (!ok) {
		free(o.data);
		return false;
	}
	if (!o.data) {
		o.data = (char *)malloc(1);
		if (!o.data) {
			rki_error_set(err, RK_ERROR_OUT_OF_MEMORY, "rk_obj_write: out of memory");
			return false;
		}
	}
	*out_text = o.data;
	*out_size = o.size;
	return true;
}

void rk_obj_memory_free(char *text)
{
	free(text);
}

bool rk_obj_write(const rk_scene *scene, const char *path, const rk_obj_write_opts *opts, rk_error *err)
{
	char *text = NULL;
	size_t size = 0;
	if (!path) {
		rki_error_clear(err);
		rki_error_set(err, RK_ERROR_INVALID_ARGUMENT, "rk_obj_write: NULL path");
		return false;
	}
	if (!rk_obj_write_memory(scene, opts, &text, &size, err)) return false;
	rk_file_write_opts fo = { .force = opts && opts->force };
	bool ok = rk_file_write(path, text, size, &fo, err);
	free(text);
	return ok;
}
