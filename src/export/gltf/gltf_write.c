/*
 * src/export/gltf/gltf_write.c - glTF 2.0 / GLB writer: entry points, JSON emitter,
 * binary buffer and accessors, nodes, materials, textures, assembly.
 *
 * The behaviour (spaces, skins, animation baking, what is written) is
 * documented in include/rigkit/export.h; the order of the passes is in
 * rki_gw_run() below.
 */
#include "export/gltf/gltf_write_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RKI_GW_DEFAULT_MEMORY_LIMIT RKI_DEFAULT_MEMORY_LIMIT

/* ---- errors and warnings ---------------------------------------------------- */

bool rki_gw_fail(rki_gw *w, rk_error_code code, const char *fmt, ...)
{
	if (!w->failed && w->err) {
		va_list ap;
		va_start(ap, fmt);
		rki_error_setv(w->err, code, fmt, ap);
		va_end(ap);
	}
	w->failed = true;
	return false;
}

bool rki_gw_oom(rki_gw *w)
{
	if (w->alloc.limit_hit)
		return rki_gw_fail(w, RK_ERROR_LIMIT, "glTF writer: memory limit of %zu bytes reached", w->opts.memory_limit);
	return rki_gw_fail(w, RK_ERROR_OUT_OF_MEMORY, "glTF writer: out of memory");
}

void rki_gw_warn(rki_gw *w, const char *fmt, ...)
{
	char msg[RK_ERROR_TEXT_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	for (rki_gw_warning *x = w->warnings; x; x = x->next) {
		if (strcmp(x->message, msg) == 0) {
			x->count++;
			return;
		}
	}
	if (w->opts.warning) {
		/* reported as recorded (rk_warning_fn), even when the list is full */
		rk_warning now = { msg, UINT64_MAX, "", 1 };
		w->opts.warning(w->opts.warning_user, &now);
	}
	if (w->warning_count >= 1024) return; /* bounded */
	rki_gw_warning *x = (rki_gw_warning *)rki_arena_alloc(&w->keep, sizeof(*x));
	if (!x) return; /* a lost warning is not worth failing the write */
	rki_strlcpy(x->message, msg, sizeof(x->message));
	x->count = 1;
	if (w->warnings_tail) w->warnings_tail->next = x;
	else w->warnings = x;
	w->warnings_tail = x;
	w->warning_count++;
}

void *rki_gw_tmp_array(rki_gw *w, size_t count, size_t size)
{
	void *p = rki_arena_array(&w->tmp, count ? count : 1, size ? size : 1);
	if (!p) rki_gw_oom(w);
	return p;
}

/* ---- JSON emitter ------------------------------------------------------------ */

void rki_gw_json_init(rki_gw_json *j, rki_alloc *alloc, int depth)
{
	memset(j, 0, sizeof(*j));
	rki_buf_init(&j->buf, alloc);
	j->depth = depth;
	for (int i = 0; i < RKI_GW_MAX_DEPTH; i++) j->first[i] = true;
}

void rki_gw_json_raw(rki_gw_json *j, const char *s, size_t n)
{
	if (j->failed) return;
	if (!rki_buf_push(&j->buf, s, n)) j->failed = true;
}

static void rki_gw_json_sep(rki_gw_json *j)
{
	if (j->after_key) {
		j->after_key = false;
		return;
	}
	if (j->depth > 0 && j->depth < RKI_GW_MAX_DEPTH) {
		if (!j->first[j->depth]) rki_gw_json_raw(j, ",", 1);
		j->first[j->depth] = false;
	}
}

static void rki_gw_json_open(rki_gw_json *j, char c)
{
	rki_gw_json_sep(j);
	rki_gw_json_raw(j, &c, 1);
	if (j->depth + 1 >= RKI_GW_MAX_DEPTH) {
		j->failed = true;
		return;
	}
	j->depth++;
	j->first[j->depth] = true;
}

static void rki_gw_json_close(rki_gw_json *j, char c)
{
	rki_gw_json_raw(j, &c, 1);
	if (j->depth > 0) j->depth--;
}

void rki_gw_json_obj(rki_gw_json *j) { rki_gw_json_open(j, '{'); }
void rki_gw_json_obj_end(rki_gw_json *j) { rki_gw_json_close(j, '}'); }
void rki_gw_json_arr(rki_gw_json *j) { rki_gw_json_open(j, '['); }
void rki_gw_json_arr_end(rki_gw_json *j) { rki_gw_json_close(j, ']'); }

/* Length of the valid UTF-8 sequence at s (n bytes available), 0 if invalid. */
static size_t rki_gw_utf8_len(const unsigned char *s, size_t n)
{
	unsigned c = s[0];
	size_t len;
	uint32_t cp;
	if (c < 0x80) return 1;
	if (c >= 0xC2 && c <= 0xDF) { len = 2; cp = c & 0x1F; }
	else if (c >= 0xE0 && c <= 0xEF) { len = 3; cp = c & 0x0F; }
	else if (c >= 0xF0 && c <= 0xF4) { len = 4; cp = c & 0x07; }
	else return 0;
	if (n < len) return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xC0) != 0x80) return 0;
		cp = (cp << 6) | (s[i] & 0x3F);
	}
	if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
		return 0;
	return len;
}

void rki_gw_json_str(rki_gw_json *j, const char *s)
{
	rki_gw_json_sep(j);
	rki_gw_json_raw(j, "\"", 1);
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	size_t n = strlen((const char *)p);
	size_t i = 0;
	while (i < n) {
		unsigned c = p[i];
		if (c == '"' || c == '\\') {
			char e[2] = { '\\', (char)c };
			rki_gw_json_raw(j, e, 2);
			i++;
		} else if (c < 0x20) {
			char e[8];
			int k;
			if (c == '\n') k = snprintf(e, sizeof(e), "\\n");
			else if (c == '\r') k = snprintf(e, sizeof(e), "\\r");
			else if (c == '\t') k = snprintf(e, sizeof(e), "\\t");
			else k = snprintf(e, sizeof(e), "\\u%04x", c);
			rki_gw_json_raw(j, e, (size_t)k);
			i++;
		} else {
			size_t len = rki_gw_utf8_len(p + i, n - i);
			if (len == 0) {
				rki_gw_json_raw(j, "\xEF\xBF\xBD", 3); /* U+FFFD */
				i++;
			} else {
				rki_gw_json_raw(j, (const char *)p + i, len);
				i += len;
			}
		}
	}
	rki_gw_json_raw(j, "\"", 1);
}

void rki_gw_json_key(rki_gw_json *j, const char *key)
{
	rki_gw_json_str(j, key);
	rki_gw_json_raw(j, ":", 1);
	j->after_key = true;
}

void rki_gw_json_uint(rki_gw_json *j, uint64_t v)
{
	char t[32];
	int k = snprintf(t, sizeof(t), "%llu", (unsigned long long)v);
	rki_gw_json_sep(j);
	rki_gw_json_raw(j, t, (size_t)k);
}

/* Shortest %.Ng text (N = 1..17) that reads back as exactly v. */
static int rki_gw_format_number(char *t, size_t cap, double v)
{
	if (!isfinite(v) || v == 0.0) return snprintf(t, cap, "0");
	if (v == floor(v) && fabs(v) < 1e15) return snprintf(t, cap, "%.0f", v);
	int k = 0;
	for (int prec = 1; prec <= 17; prec++) {
		k = snprintf(t, cap, "%.*g", prec, v);
		for (int i = 0; i < k; i++) if (t[i] == ',') t[i] = '.'; /* foreign LC_NUMERIC */
		if (strtod(t, NULL) == v) break;
	}
	return k;
}

void rki_gw_json_num(rki_gw_json *j, double v)
{
	char t[40];
	int k = rki_gw_format_number(t, sizeof(t), v);
	rki_gw_json_sep(j);
	rki_gw_json_raw(j, t, (size_t)k);
}

void rki_gw_json_bool(rki_gw_json *j, bool v)
{
	rki_gw_json_sep(j);
	rki_gw_json_raw(j, v ? "true" : "false", v ? 4 : 5);
}

void rki_gw_json_kstr(rki_gw_json *j, const char *key, const char *s) { rki_gw_json_key(j, key); rki_gw_json_str(j, s); }
void rki_gw_json_kuint(rki_gw_json *j, const char *key, uint64_t v) { rki_gw_json_key(j, key); rki_gw_json_uint(j, v); }
void rki_gw_json_knum(rki_gw_json *j, const char *key, double v) { rki_gw_json_key(j, key); rki_gw_json_num(j, v); }

void rki_gw_json_knums(rki_gw_json *j, const char *key, const double *v, size_t n)
{
	rki_gw_json_key(j, key);
	rki_gw_json_arr(j);
	for (size_t i = 0; i < n; i++) rki_gw_json_num(j, v[i]);
	rki_gw_json_arr_end(j);
}

/* ---- binary buffer, views, accessors -------------------------------------------- */

int32_t rki_gw_view_add(rki_gw *w, const void *data, size_t size, uint32_t target)
{
	if (w->failed) return -1;
	static const unsigned char zeros[4] = { 0, 0, 0, 0 };
	size_t pad = (4 - (w->bin.size & 3)) & 3;
	if (w->views.size / sizeof(rki_gw_view) >= (size_t)INT32_MAX) {
		rki_gw_fail(w, RK_ERROR_UNSUPPORTED, "glTF writer: too many buffer views");
		return -1;
	}
	if (!rki_buf_push(&w->bin, zeros, pad) || !rki_buf_push(&w->bin, data, size)) {
		rki_gw_oom(w);
		return -1;
	}
	rki_gw_view v = { w->bin.size - size, size, target };
	if (!rki_buf_push(&w->views, &v, sizeof(v))) {
		rki_gw_oom(w);
		return -1;
	}
	return (int32_t)(w->views.size / sizeof(rki_gw_view) - 1);
}

static size_t rki_gw_component_size(uint32_t ct)
{
	switch (ct) {
	case RKI_GW_UNSIGNED_BYTE: return 1;
	case RKI_GW_UNSIGNED_SHORT: return 2;
	default: return 4;
	}
}

int32_t rki_gw_accessor_add(rki_gw *w, const void *data, uint32_t component_type, size_t count,
	uint32_t components, uint32_t target, bool want_minmax)
{
	if (w->failed) return -1;
	size_t csize = rki_gw_component_size(component_type), bytes;
	if (count == 0 || components == 0 || components > 16 || !rki_mul_size(count, components, &bytes)
		|| !rki_mul_size(bytes, csize, &bytes)) {
		rki_gw_fail(w, RK_ERROR_INVALID_ARGUMENT, "glTF writer: bad accessor (%zu x %u)", count, components);
		return -1;
	}
	rki_gw_accessor a;
	memset(&a, 0, sizeof(a));
	a.component_type = component_type;
	a.count = count;
	a.components = components;
	if (want_minmax) {
		a.has_minmax = true;
		for (uint32_t c = 0; c < components; c++) {
			a.min[c] = INFINITY;
			a.max[c] = -INFINITY;
		}
		for (size_t i = 0; i < count; i++) {
			for (uint32_t c = 0; c < components; c++) {
				size_t k = i * components + c;
				double v;
				if (component_type == RKI_GW_FLOAT) v = (double)((const float *)data)[k];
				else if (component_type == RKI_GW_UNSIGNED_SHORT) v = (double)((const uint16_t *)data)[k];
				else if (component_type == RKI_GW_UNSIGNED_BYTE) v = (double)((const uint8_t *)data)[k];
				else v = (double)((const uint32_t *)data)[k];
				if (v < a.min[c]) a.min[c] = v;
				if (v > a.max[c]) a.max[c] = v;
			}
		}
	}
	int32_t view = rki_gw_view_add(w, data, bytes, target);
	if (view < 0) return -1;
	a.view = (uint32_t)view;
	if (!rki_buf_push(&w->accessors, &a, sizeof(a))) {
		rki_gw_oom(w);
		return -1;
	}
	return (int32_t)(w->accessors.size / sizeof(rki_gw_accessor) - 1);
}

/* ---- nodes ---------------------------------------------------------------------- */

bool rki_gw_trs_uses_local(const rk_node *n)
{
	return n->kind != RK_NODE_ROOT && !n->has_fbx_props && rk_adjust_transform_is_identity(&n->adjust);
}

static bool rki_gw_trs_reproduces(rk_trs t, rk_mat4 m)
{
	double mag = 1.0;
	for (int c = 0; c < 4; c++)
		for (int r = 0; r < 3; r++)
			if (fabs(m.m[c * 4 + r]) > mag) mag = fabs(m.m[c * 4 + r]);
	return rk_mat4_max_diff(rk_mat4_from_trs(t), m) <= 1e-6 * mag;
}

/* Non-finite parts become identity parts; the rotation is made unit. */
static rk_trs rki_gw_finite_trs(rk_trs t)
{
	double *tv[3] = { &t.translation.x, &t.translation.y, &t.translation.z };
	double *sv[3] = { &t.scale.x, &t.scale.y, &t.scale.z };
	for (int k = 0; k < 3; k++) {
		if (!isfinite(*tv[k])) *tv[k] = 0.0;
		if (!isfinite(*sv[k])) *sv[k] = 1.0;
	}
	rk_quat q = t.rotation;
	double len = sqrt(q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w);
	if (!(len > 1e-300) || !isfinite(len)) t.rotation = RK_QUAT_IDENTITY;
	else t.rotation = (rk_quat){ q.x / len, q.y / len, q.z / len, q.w / len };
	return t;
}

rk_trs rki_gw_local_trs(const rki_gw *w, const rk_node *n, const rk_mat4 *node_to_parent,
	const rk_mat4 *node_to_world, const rk_mat4 *parent_to_world, const rk_trs *local, bool *exact)
{
	(void)w;
	rk_trs t;
	if (rki_gw_trs_uses_local(n) && local) {
		*exact = true;
		return rki_gw_finite_trs(*local);
	}
	rk_mat4 m = *node_to_parent;
	if (n->has_fbx_props && n->props.inherit_mode != RK_INHERIT_NORMAL && parent_to_world) {
		rk_mat4 inv;
		if (rk_mat4_invert_affine(*parent_to_world, &inv)) m = rk_mat4_mul(inv, *node_to_world);
	}
	t = rki_gw_finite_trs(rk_mat4_decompose(m));
	*exact = rki_gw_trs_reproduces(t, m);
	return t;
}

static bool rki_gw_is_identity(rk_mat4 m)
{
	return rk_mat4_max_diff(m, rk_mat4_identity()) <= 1e-12;
}

static void rki_gw_compute_space(rki_gw *w)
{
	const rk_scene *s = w->scene;
	w->conversion = rk_mat4_identity();
	if (!w->opts.keep_space) {
		rk_axes axes = s->settings.axes;
		if (rk_axes_valid(axes))
			w->conversion = rk_axes_conversion(axes, RK_AXES_RIGHT_HANDED_Y_UP);
		double u = s->settings.unit_meters;
		if (!(u > 0.0) || !isfinite(u)) u = 1.0;
		if (u != 1.0) w->conversion = rk_mat4_mul(rk_mat4_scaling((rk_vec3){ u, u, u }), w->conversion);
	}
	w->root_matrix = rk_mat4_mul(w->conversion, s->root->node_to_parent);
	w->write_root = !rki_gw_is_identity(w->root_matrix);
	w->gltf_input = s->settings.format == RK_FORMAT_GLTF || s->settings.format == RK_FORMAT_GLB;
	w->flip_v = !w->gltf_input;
}

static void rki_gw_write_trs(rki_gw_json *j, rk_trs t)
{
	if (t.translation.x != 0.0 || t.translation.y != 0.0 || t.translation.z != 0.0) {
		double v[3] = { t.translation.x, t.translation.y, t.translation.z };
		rki_gw_json_knums(j, "translation", v, 3);
	}
	if (t.rotation.x != 0.0 || t.rotation.y != 0.0 || t.rotation.z != 0.0 || t.rotation.w != 1.0) {
		double v[4] = { t.rotation.x, t.rotation.y, t.rotation.z, t.rotation.w };
		rki_gw_json_knums(j, "rotation", v, 4);
	}
	if (t.scale.x != 1.0 || t.scale.y != 1.0 || t.scale.z != 1.0) {
		double v[3] = { t.scale.x, t.scale.y, t.scale.z };
		rki_gw_json_knums(j, "scale", v, 3);
	}
}

static bool rki_gw_compute_nodes(rki_gw *w)
{
	const rk_scene *s = w->scene;
	size_t n = s->nodes.count;
	for (size_t i = 0; i < n; i++) {
		const rk_node *nd = &s->nodes.data[i];
		if (i == 0) {
			w->node_out[i] = w->write_root ? 0 : -1;
			bool exact = true;
			w->node_trs[i] = rki_gw_finite_trs(rk_mat4_decompose(w->root_matrix));
			exact = rki_gw_trs_reproduces(w->node_trs[i], w->root_matrix);
			if (!exact) rki_gw_warn(w, "root conversion shears; written as the nearest TRS");
			continue;
		}
		if ((size_t)INT32_MAX <= i) return rki_gw_fail(w, RK_ERROR_UNSUPPORTED, "glTF writer: too many nodes");
		w->node_out[i] = (int32_t)(w->write_root ? i : i - 1);
		bool exact = true;
		const rk_mat4 *pw = nd->parent ? &nd->parent->node_to_world : NULL;
		w->node_trs[i] = rki_gw_local_trs(w, nd, &nd->node_to_parent, &nd->node_to_world, pw, &nd->local, &exact);
		if (!exact)
			rki_gw_warn(w, "node \"%s\": transform shears (FBX inherit mode / parent scale), written as the nearest TRS", nd->name);
	}
	return true;
}

static bool rki_gw_write_nodes(rki_gw *w)
{
	const rk_scene *s = w->scene;
	rki_gw_json *j = &w->nodes.json;
	for (size_t i = 0; i < s->nodes.count; i++) {
		const rk_node *nd = &s->nodes.data[i];
		if (w->node_out[i] < 0) continue;
		rki_gw_json_obj(j);
		if (i == 0) rki_gw_json_kstr(j, "name", w->opts.root_name);
		else if (nd->name && nd->name[0]) rki_gw_json_kstr(j, "name", nd->name);
		if (nd->children.count > 0) {
			rki_gw_json_key(j, "children");
			rki_gw_json_arr(j);
			for (size_t c = 0; c < nd->children.count; c++)
				rki_gw_json_uint(j, (uint64_t)w->node_out[nd->children.data[c]->index]);
			rki_gw_json_arr_end(j);
		}
		rki_gw_write_trs(j, w->node_trs[i]);
		if (w->node_mesh[i] >= 0) {
			rki_gw_json_kuint(j, "mesh", (uint64_t)w->node_mesh[i]);
			if (w->node_skin[i] >= 0) rki_gw_json_kuint(j, "skin", (uint64_t)w->node_skin[i]);
			const rk_mesh *m = nd->mesh;
			if (nd->blend_weights && m->blend_channels.count > 0) {
				bool differs = false;
				for (size_t c = 0; c < m->blend_channels.count; c++)
					if (nd->blend_weights[c] != m->blend_channels.data[c].default_weight) differs = true;
				if (differs) rki_gw_json_knums(j, "weights", nd->blend_weights, m->blend_channels.count);
			}
		}
		rki_gw_json_obj_end(j);
		w->nodes.count++;
	}
	return true;
}

/* ---- textures and materials --------------------------------------------------------- */

static const char *rki_gw_image_mime(const unsigned char *p, size_t n)
{
	static const unsigned char png[8] = { 0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A };
	if (n >= 8 && memcmp(p, png, 8) == 0) return "image/png";
	if (n >= 3 && p[0] == 0xFF && p[1] == 0xD8 && p[2] == 0xFF) return "image/jpeg";
	return NULL;
}

static uint32_t rki_gw_wrap(rk_wrap wrap)
{
	switch (wrap) {
	case RK_WRAP_CLAMP: return 33071;
	case RK_WRAP_MIRROR: return 33648;
	default: return 10497;
	}
}

static bool rki_gw_write_textures(rki_gw *w)
{
	const rk_scene *s = w->scene;
	size_t nt = s->textures.count;
	for (size_t i = 0; i < nt; i++) w->texture_out[i] = -1;
	if (w->opts.no_textures || nt == 0) return true;

	/* Only textures some material uses. */
	bool *used = (bool *)rki_gw_tmp_array(w, nt, sizeof(bool));
	int32_t *image_view = (int32_t *)rki_gw_tmp_array(w, nt, sizeof(int32_t));
	int32_t *image_of = (int32_t *)rki_gw_tmp_array(w, nt, sizeof(int32_t));
	uint32_t sampler_keys[9];
	if (!used || !image_view || !image_of) return false;
	for (size_t m = 0; m < s->materials.count; m++) {
		const rk_material *mat = &s->materials.data[m];
		const rk_texture_ref *refs[4] = { &mat->base_color_texture, &mat->metallic_roughness_texture,
			&mat->normal_texture, &mat->emissive_texture };
		for (int k = 0; k < 4; k++)
			if (refs[k]->texture && refs[k]->texture->index < nt) used[refs[k]->texture->index] = true;
	}
	size_t image_count = 0, sampler_count = 0;
	for (size_t i = 0; i < nt; i++) {
		if (!used[i]) continue;
		const rk_texture *t = &s->textures.data[i];
		const unsigned char *bytes = NULL;
		size_t size = 0;
		void *file = NULL;
		size_t file_size = 0;
		if (t->content && t->content_size > 0 && rki_gw_image_mime(t->content, t->content_size)) {
			bytes = t->content;
			size = t->content_size;
		} else if (t->resolved_path && t->resolved_path[0] && !w->opts.no_external_images) {
			rk_error ferr;
			memset(&ferr, 0, sizeof(ferr));
			file = rki_read_file(&w->alloc, t->resolved_path, (size_t)1 << 30, &file_size, &ferr);
			if (file && rki_gw_image_mime((const unsigned char *)file, file_size)) {
				bytes = (const unsigned char *)file;
				size = file_size;
			} else if (w->alloc.limit_hit) {
				if (file) rki_free(&w->alloc, file, file_size + 1);
				return rki_gw_oom(w);
			}
		}
		if (!bytes) {
			if (file) rki_free(&w->alloc, file, file_size + 1);
			rki_gw_warn(w, "texture \"%s\" (%s): no PNG/JPEG content or file, skipped", t->name,
				t->filename && t->filename[0] ? t->filename : "embedded");
			continue;
		}
		/* Same bytes as an earlier image? */
		int32_t img = -1;
		for (size_t k = 0; k < i && img < 0; k++) {
			if (image_view[k] < 0 || !used[k] || w->texture_out[k] < 0) continue;
			const rki_gw_view *v = &((const rki_gw_view *)w->views.data)[image_view[k]];
			if (v->length == size && memcmp(w->bin.data + v->offset, bytes, size) == 0) img = image_of[k];
		}
		image_view[i] = -1;
		const char *mime = rki_gw_image_mime(bytes, size);
		if (img < 0) {
			int32_t view = rki_gw_view_add(w, bytes, size, 0);
			if (file) rki_free(&w->alloc, file, file_size + 1);
			if (view < 0) return false;
			image_view[i] = view;
			img = (int32_t)image_count++;
			rki_gw_json *j = &w->images.json;
			rki_gw_json_obj(j);
			if (t->name && t->name[0]) rki_gw_json_kstr(j, "name", t->name);
			rki_gw_json_kuint(j, "bufferView", (uint64_t)view);
			rki_gw_json_kstr(j, "mimeType", mime);
			rki_gw_json_obj_end(j);
			w->images.count++;
		} else {
			for (size_t k = 0; k < i; k++)
				if (image_of[k] == img && image_view[k] >= 0) { image_view[i] = image_view[k]; break; }
			if (file) rki_free(&w->alloc, file, file_size + 1);
		}
		image_of[i] = img;
		/* One sampler per distinct wrap pair (at most 9). */
		uint32_t key = rki_gw_wrap(t->wrap_u) * 65536u + rki_gw_wrap(t->wrap_v);
		size_t sampler_index = 0;
		while (sampler_index < sampler_count && sampler_keys[sampler_index] != key) sampler_index++;
		if (sampler_index == sampler_count) {
			sampler_keys[sampler_count++] = key;
			rki_gw_json *js = &w->samplers.json;
			rki_gw_json_obj(js);
			rki_gw_json_kuint(js, "wrapS", rki_gw_wrap(t->wrap_u));
			rki_gw_json_kuint(js, "wrapT", rki_gw_wrap(t->wrap_v));
			rki_gw_json_obj_end(js);
			w->samplers.count++;
		}
		rki_gw_json *j = &w->textures.json;
		rki_gw_json_obj(j);
		if (t->name && t->name[0]) rki_gw_json_kstr(j, "name", t->name);
		rki_gw_json_kuint(j, "sampler", sampler_index);
		rki_gw_json_kuint(j, "source", (uint64_t)img);
		rki_gw_json_obj_end(j);
		w->texture_out[i] = (int32_t)w->textures.count++;
	}
	w->stats.image_count = image_count;
	return !w->failed;
}

static void rki_gw_texture_info(rki_gw *w, rki_gw_json *j, const char *key, const rk_texture_ref *ref,
	bool normal_scale)
{
	(void)normal_scale;
	rki_gw_json_key(j, key);
	rki_gw_json_obj(j);
	rki_gw_json_kuint(j, "index", (uint64_t)w->texture_out[ref->texture->index]);
	uint32_t tc = w->gltf_input ? ref->texcoord : 0;
	if (tc) rki_gw_json_kuint(j, "texCoord", tc);
	if (w->gltf_input && ref->has_transform) {
		rki_gw_json_key(j, "extensions");
		rki_gw_json_obj(j);
		rki_gw_json_key(j, "KHR_texture_transform");
		rki_gw_json_obj(j);
		double off[2] = { ref->offset.x, ref->offset.y }, sc[2] = { ref->scale.x, ref->scale.y };
		rki_gw_json_knums(j, "offset", off, 2);
		if (ref->rotation != 0.0) rki_gw_json_knum(j, "rotation", ref->rotation);
		rki_gw_json_knums(j, "scale", sc, 2);
		rki_gw_json_obj_end(j);
		rki_gw_json_obj_end(j);
		w->uses_texture_transform = true;
	}
	rki_gw_json_obj_end(j);
}

static double rki_gw_clamp01(double v)
{
	if (!(v >= 0.0)) return 0.0;
	return v > 1.0 ? 1.0 : v;
}

static bool rki_gw_ref_ok(const rki_gw *w, const rk_texture_ref *ref)
{
	return ref->texture && ref->texture->index < w->scene->textures.count && w->texture_out[ref->texture->index] >= 0;
}

static bool rki_gw_write_materials(rki_gw *w)
{
	const rk_scene *s = w->scene;
	rki_gw_json *j = &w->materials.json;
	for (size_t m = 0; m < s->materials.count; m++) {
		const rk_material *mat = &s->materials.data[m];
		rki_gw_json_obj(j);
		if (mat->name && mat->name[0]) rki_gw_json_kstr(j, "name", mat->name);
		rki_gw_json_key(j, "pbrMetallicRoughness");
		rki_gw_json_obj(j);
		double bc[4] = { rki_gw_clamp01(mat->base_color.x), rki_gw_clamp01(mat->base_color.y),
			rki_gw_clamp01(mat->base_color.z), rki_gw_clamp01(mat->base_color.w) };
		if (bc[0] != 1.0 || bc[1] != 1.0 || bc[2] != 1.0 || bc[3] != 1.0) rki_gw_json_knums(j, "baseColorFactor", bc, 4);
		if (rki_gw_ref_ok(w, &mat->base_color_texture)) rki_gw_texture_info(w, j, "baseColorTexture", &mat->base_color_texture, false);
		double metal = rki_gw_clamp01(mat->metallic), rough = rki_gw_clamp01(mat->roughness);
		if (metal != 1.0) rki_gw_json_knum(j, "metallicFactor", metal);
		if (rough != 1.0) rki_gw_json_knum(j, "roughnessFactor", rough);
		if (rki_gw_ref_ok(w, &mat->metallic_roughness_texture))
			rki_gw_texture_info(w, j, "metallicRoughnessTexture", &mat->metallic_roughness_texture, false);
		rki_gw_json_obj_end(j);
		if (rki_gw_ref_ok(w, &mat->normal_texture)) rki_gw_texture_info(w, j, "normalTexture", &mat->normal_texture, true);
		if (rki_gw_ref_ok(w, &mat->emissive_texture)) rki_gw_texture_info(w, j, "emissiveTexture", &mat->emissive_texture, false);
		double em[3] = { rki_gw_clamp01(mat->emissive.x), rki_gw_clamp01(mat->emissive.y), rki_gw_clamp01(mat->emissive.z) };
		if (em[0] != 0.0 || em[1] != 0.0 || em[2] != 0.0) rki_gw_json_knums(j, "emissiveFactor", em, 3);
		if (mat->emissive.x > 1.0 || mat->emissive.y > 1.0 || mat->emissive.z > 1.0)
			rki_gw_warn(w, "material \"%s\": emissive above 1 clamped", mat->name);
		if (mat->alpha_mode == RK_ALPHA_MASK) {
			rki_gw_json_kstr(j, "alphaMode", "MASK");
			double cut = mat->alpha_cutoff >= 0.0 && isfinite(mat->alpha_cutoff) ? mat->alpha_cutoff : 0.5;
			if (cut != 0.5) rki_gw_json_knum(j, "alphaCutoff", cut);
		} else if (mat->alpha_mode == RK_ALPHA_BLEND) {
			rki_gw_json_kstr(j, "alphaMode", "BLEND");
		}
		if (mat->double_sided) {
			rki_gw_json_key(j, "doubleSided");
			rki_gw_json_bool(j, true);
		}
		if (mat->unlit) {
			rki_gw_json_key(j, "extensions");
			rki_gw_json_obj(j);
			rki_gw_json_key(j, "KHR_materials_unlit");
			rki_gw_json_obj(j);
			rki_gw_json_obj_end(j);
			rki_gw_json_obj_end(j);
			w->uses_unlit = true;
		}
		rki_gw_json_obj_end(j);
		w->materials.count++;
	}
	w->stats.material_count = w->materials.count;
	return true;
}

/* ---- assembly ---------------------------------------------------------------------- */

static void rki_gw_section_emit(rki_gw_json *out, const char *key, rki_gw_section *sec)
{
	if (sec->count == 0) return;
	rki_gw_json_key(out, key);
	rki_gw_json_raw(out, "[", 1);
	rki_gw_json_raw(out, (const char *)sec->json.buf.data, sec->json.buf.size);
	rki_gw_json_raw(out, "]", 1);
	out->after_key = false;
	if (sec->json.failed) out->failed = true;
}

static void rki_gw_base64(rki_gw_json *j, const unsigned char *p, size_t n)
{
	static const char tbl[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	char out[4 * 256];
	size_t k = 0;
	for (size_t i = 0; i < n; i += 3) {
		uint32_t v = (uint32_t)p[i] << 16;
		if (i + 1 < n) v |= (uint32_t)p[i + 1] << 8;
		if (i + 2 < n) v |= p[i + 2];
		out[k++] = tbl[(v >> 18) & 63];
		out[k++] = tbl[(v >> 12) & 63];
		out[k++] = i + 1 < n ? tbl[(v >> 6) & 63] : '=';
		out[k++] = i + 2 < n ? tbl[v & 63] : '=';
		if (k == sizeof(out)) {
			rki_gw_json_raw(j, out, k);
			k = 0;
		}
	}
	rki_gw_json_raw(j, out, k);
}

static bool rki_gw_build_json(rki_gw *w, rki_gw_json *j, bool embed_buffer)
{
	const rk_scene *s = w->scene;
	rki_gw_json_obj(j);
	rki_gw_json_key(j, "asset");
	rki_gw_json_obj(j);
	rki_gw_json_kstr(j, "generator", w->opts.generator);
	rki_gw_json_kstr(j, "version", "2.0");
	rki_gw_json_obj_end(j);
	if (w->uses_unlit || w->uses_texture_transform) {
		rki_gw_json_key(j, "extensionsUsed");
		rki_gw_json_arr(j);
		if (w->uses_texture_transform) rki_gw_json_str(j, "KHR_texture_transform");
		if (w->uses_unlit) rki_gw_json_str(j, "KHR_materials_unlit");
		rki_gw_json_arr_end(j);
	}
	rki_gw_json_kuint(j, "scene", 0);
	rki_gw_json_key(j, "scenes");
	rki_gw_json_arr(j);
	rki_gw_json_obj(j);
	if (w->nodes.count > 0) {
		rki_gw_json_key(j, "nodes");
		rki_gw_json_arr(j);
		if (w->write_root) {
			rki_gw_json_uint(j, 0);
		} else {
			const rk_node *root = s->root;
			for (size_t c = 0; c < root->children.count; c++)
				rki_gw_json_uint(j, (uint64_t)w->node_out[root->children.data[c]->index]);
		}
		rki_gw_json_arr_end(j);
	}
	rki_gw_json_obj_end(j);
	rki_gw_json_arr_end(j);
	rki_gw_section_emit(j, "nodes", &w->nodes);
	rki_gw_section_emit(j, "meshes", &w->meshes);
	rki_gw_section_emit(j, "skins", &w->skins);
	rki_gw_section_emit(j, "materials", &w->materials);
	rki_gw_section_emit(j, "textures", &w->textures);
	rki_gw_section_emit(j, "images", &w->images);
	rki_gw_section_emit(j, "samplers", &w->samplers);
	rki_gw_section_emit(j, "animations", &w->animations);

	size_t na = w->accessors.size / sizeof(rki_gw_accessor);
	if (na > 0) {
		static const char *const types[17] = { "", "SCALAR", "VEC2", "VEC3", "VEC4", "", "", "", "", "MAT3",
			"", "", "", "", "", "", "MAT4" };
		rki_gw_json_key(j, "accessors");
		rki_gw_json_arr(j);
		const rki_gw_accessor *acc = (const rki_gw_accessor *)w->accessors.data;
		for (size_t i = 0; i < na; i++) {
			const rki_gw_accessor *a = &acc[i];
			rki_gw_json_obj(j);
			rki_gw_json_kuint(j, "bufferView", a->view);
			rki_gw_json_kuint(j, "componentType", a->component_type);
			if (a->normalized) {
				rki_gw_json_key(j, "normalized");
				rki_gw_json_bool(j, true);
			}
			rki_gw_json_kuint(j, "count", a->count);
			rki_gw_json_kstr(j, "type", types[a->components]);
			if (a->has_minmax) {
				rki_gw_json_knums(j, "min", a->min, a->components);
				rki_gw_json_knums(j, "max", a->max, a->components);
			}
			rki_gw_json_obj_end(j);
		}
		rki_gw_json_arr_end(j);
	}
	size_t nv = w->views.size / sizeof(rki_gw_view);
	if (nv > 0) {
		rki_gw_json_key(j, "bufferViews");
		rki_gw_json_arr(j);
		const rki_gw_view *views = (const rki_gw_view *)w->views.data;
		for (size_t i = 0; i < nv; i++) {
			rki_gw_json_obj(j);
			rki_gw_json_kuint(j, "buffer", 0);
			if (views[i].offset) rki_gw_json_kuint(j, "byteOffset", views[i].offset);
			rki_gw_json_kuint(j, "byteLength", views[i].length);
			if (views[i].target) rki_gw_json_kuint(j, "target", views[i].target);
			rki_gw_json_obj_end(j);
		}
		rki_gw_json_arr_end(j);
		rki_gw_json_key(j, "buffers");
		rki_gw_json_arr(j);
		rki_gw_json_obj(j);
		rki_gw_json_kuint(j, "byteLength", w->bin.size);
		if (embed_buffer) {
			rki_gw_json_key(j, "uri");
			rki_gw_json_raw(j, "\"data:application/octet-stream;base64,", 38);
			rki_gw_base64(j, w->bin.data, w->bin.size);
			rki_gw_json_raw(j, "\"", 1);
			j->after_key = false;
		}
		rki_gw_json_obj_end(j);
		rki_gw_json_arr_end(j);
	}
	rki_gw_json_obj_end(j);
	if (j->failed) return rki_gw_oom(w);
	return true;
}

/* Output block: a header remembering the allocator, then the bytes. */
typedef struct rki_gw_out_header {
	rk_allocator allocator;
	size_t total;
	size_t magic;
} rki_gw_out_header;

#define RKI_GW_OUT_MAGIC ((size_t)0x676c5446u)
#define RKI_GW_OUT_HEADER ((sizeof(rki_gw_out_header) + 15u) & ~(size_t)15u)

static unsigned char *rki_gw_out_alloc(rki_gw *w, size_t size)
{
	size_t total;
	if (!rki_add_size(size, RKI_GW_OUT_HEADER, &total)) {
		rki_gw_fail(w, RK_ERROR_LIMIT, "glTF writer: output too large");
		return NULL;
	}
	unsigned char *p = (unsigned char *)rki_malloc(&w->alloc, total);
	if (!p) {
		rki_gw_oom(w);
		return NULL;
	}
	/* The caller owns it now: not counted against later temporaries. */
	w->alloc.bytes_in_use -= total <= w->alloc.bytes_in_use ? total : w->alloc.bytes_in_use;
	rki_gw_out_header h;
	h.allocator = w->opts.allocator;
	h.total = total;
	h.magic = RKI_GW_OUT_MAGIC;
	memcpy(p, &h, sizeof(h));
	return p + RKI_GW_OUT_HEADER;
}

void rk_gltf_memory_free(void *data)
{
	if (!data) return;
	unsigned char *p = (unsigned char *)data - RKI_GW_OUT_HEADER;
	rki_gw_out_header h;
	memcpy(&h, p, sizeof(h));
	if (h.magic != RKI_GW_OUT_MAGIC) return;
	if (h.allocator.free) h.allocator.free(h.allocator.user, p, h.total);
	else if (!h.allocator.alloc) free(p);
}

static void rki_put_u32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)v;
	p[1] = (unsigned char)(v >> 8);
	p[2] = (unsigned char)(v >> 16);
	p[3] = (unsigned char)(v >> 24);
}

static bool rki_gw_assemble(rki_gw *w, bool glb, void **out_data, size_t *out_size)
{
	rki_gw_json j;
	rki_gw_json_init(&j, &w->alloc, 0);
	bool ok = rki_gw_build_json(w, &j, !glb);
	if (!ok) {
		rki_buf_free(&j.buf);
		return false;
	}
	w->stats.json_size = j.buf.size;
	w->stats.bin_size = w->bin.size;
	if (!glb) {
		unsigned char *p = rki_gw_out_alloc(w, j.buf.size);
		if (p) memcpy(p, j.buf.data, j.buf.size);
		rki_buf_free(&j.buf);
		if (!p) return false;
		*out_data = p;
		*out_size = w->stats.json_size;
		return true;
	}
	size_t json_pad = (4 - (j.buf.size & 3)) & 3;
	size_t bin_pad = (4 - (w->bin.size & 3)) & 3;
	uint64_t total = 12 + 8 + (uint64_t)j.buf.size + json_pad;
	if (w->bin.size) total += 8 + (uint64_t)w->bin.size + bin_pad;
	if (total > UINT32_MAX) {
		rki_buf_free(&j.buf);
		return rki_gw_fail(w, RK_ERROR_UNSUPPORTED, "GLB output would be %llu bytes (limit 4 GiB); write .gltf instead",
			(unsigned long long)total);
	}
	unsigned char *p = rki_gw_out_alloc(w, (size_t)total);
	if (!p) {
		rki_buf_free(&j.buf);
		return false;
	}
	unsigned char *q = p;
	memcpy(q, "glTF", 4);
	rki_put_u32(q + 4, 2);
	rki_put_u32(q + 8, (uint32_t)total);
	q += 12;
	rki_put_u32(q, (uint32_t)(j.buf.size + json_pad));
	memcpy(q + 4, "JSON", 4);
	q += 8;
	memcpy(q, j.buf.data, j.buf.size);
	q += j.buf.size;
	memset(q, ' ', json_pad);
	q += json_pad;
	if (w->bin.size) {
		rki_put_u32(q, (uint32_t)(w->bin.size + bin_pad));
		memcpy(q + 4, "BIN\0", 4);
		q += 8;
		memcpy(q, w->bin.data, w->bin.size);
		q += w->bin.size;
		memset(q, 0, bin_pad);
	}
	rki_buf_free(&j.buf);
	*out_data = p;
	*out_size = (size_t)total;
	return true;
}

/* ---- the run ------------------------------------------------------------------------ */

static void rki_gw_section_init(rki_gw *w, rki_gw_section *s)
{
	rki_gw_json_init(&s->json, &w->alloc, 1);
	s->count = 0;
}

static void rki_gw_free(rki_gw *w)
{
	rki_gw_section *secs[] = { &w->nodes, &w->meshes, &w->skins, &w->materials, &w->textures, &w->images,
		&w->samplers, &w->animations };
	for (size_t i = 0; i < sizeof(secs) / sizeof(secs[0]); i++) rki_buf_free(&secs[i]->json.buf);
	rki_buf_free(&w->bin);
	rki_buf_free(&w->views);
	rki_buf_free(&w->accessors);
	rki_arena_free(&w->tmp);
	rki_arena_free(&w->keep);
}

static bool rki_gw_sections_ok(rki_gw *w)
{
	rki_gw_section *secs[] = { &w->nodes, &w->meshes, &w->skins, &w->materials, &w->textures, &w->images,
		&w->samplers, &w->animations };
	for (size_t i = 0; i < sizeof(secs) / sizeof(secs[0]); i++)
		if (secs[i]->json.failed) return rki_gw_oom(w);
	return true;
}

static bool rki_gw_run(const rk_scene *scene, const rk_gltf_write_opts *opts, bool glb,
	void **out_data, size_t *out_size, rk_error *err)
{
	*out_data = NULL;
	*out_size = 0;
	if (!scene || scene->nodes.count == 0 || !scene->nodes.data || !scene->root) {
		rki_error_set(err, RK_ERROR_INVALID_ARGUMENT, "glTF writer: %s", scene ? "scene has no nodes" : "NULL scene");
		return false;
	}
	rki_gw state;
	rki_gw *w = &state;
	memset(w, 0, sizeof(*w));
	rk_allocator ua;
	memset(&ua, 0, sizeof(ua));
	if (opts) ua = opts->allocator;
	w->scene = scene;
	if (opts) w->opts = *opts;
	if (!w->opts.memory_limit) w->opts.memory_limit = RKI_GW_DEFAULT_MEMORY_LIMIT;
	if (!w->opts.root_name) w->opts.root_name = "RootNode";
	if (!w->opts.generator) w->opts.generator = "rigkit " RK_VERSION_STRING;
	if (!(w->opts.translation_tolerance > 0.0)) w->opts.translation_tolerance = 1e-5;
	if (!(w->opts.rotation_tolerance > 0.0)) w->opts.rotation_tolerance = 1e-5;
	if (!(w->opts.bake_fps > 0.0) || !isfinite(w->opts.bake_fps)) {
		w->opts.bake_fps = scene->settings.frame_rate > 0.0 && isfinite(scene->settings.frame_rate)
			? scene->settings.frame_rate : 30.0;
	}
	w->err = err;
	rki_error_clear(err);
	rki_alloc_init(&w->alloc, &ua, w->opts.memory_limit, 0);
	rki_arena_init(&w->tmp, &w->alloc);
	rki_arena_init(&w->keep, &w->alloc);
	rki_buf_init(&w->bin, &w->alloc);
	rki_buf_init(&w->views, &w->alloc);
	rki_buf_init(&w->accessors, &w->alloc);
	rki_gw_section *secs[] = { &w->nodes, &w->meshes, &w->skins, &w->materials, &w->textures, &w->images,
		&w->samplers, &w->animations };
	for (size_t i = 0; i < sizeof(secs) / sizeof(secs[0]); i++) rki_gw_section_init(w, secs[i]);

	size_t nn = scene->nodes.count;
	bool ok = true;
	w->node_out = (int32_t *)rki_gw_tmp_array(w, nn, sizeof(int32_t));
	w->node_trs = (rk_trs *)rki_gw_tmp_array(w, nn, sizeof(rk_trs));
	w->node_mesh = (int32_t *)rki_gw_tmp_array(w, nn, sizeof(int32_t));
	w->node_skin = (int32_t *)rki_gw_tmp_array(w, nn, sizeof(int32_t));
	w->texture_out = (int32_t *)rki_gw_tmp_array(w, scene->textures.count, sizeof(int32_t));
	ok = !w->failed;
	if (ok) {
		for (size_t i = 0; i < nn; i++) w->node_mesh[i] = w->node_skin[i] = -1;
		for (size_t i = 0; i < nn; i++) {
			if (scene->nodes.data[i].index != i || (i > 0 && (!scene->nodes.data[i].parent
				|| scene->nodes.data[i].parent->index >= i))) {
				ok = rki_gw_fail(w, RK_ERROR_INVALID_ARGUMENT,
					"glTF writer: node %zu is out of order (indices must match positions, parents come first)", i);
				break;
			}
		}
	}
	if (ok) {
		rki_gw_compute_space(w);
		bool need_common_root = false;
		ok = rki_gw_plan_meshes(w, &need_common_root);
		if (ok && need_common_root && !w->write_root) w->write_root = true;
	}
	ok = ok && rki_gw_compute_nodes(w) && rki_gw_write_textures(w) && rki_gw_write_materials(w)
		&& rki_gw_write_meshes(w) && rki_gw_write_nodes(w);
	if (ok && !w->opts.no_animation) ok = rki_gw_write_animations(w);
	ok = ok && rki_gw_sections_ok(w);
	if (ok) {
		w->stats.node_count = w->nodes.count;
		w->stats.mesh_count = w->meshes.count;
		w->stats.skin_count = w->skins.count;
		w->stats.animation_count = w->animations.count;
		w->stats.wrote_root_node = w->write_root;
		w->stats.warning_count = w->warning_count;
		ok = rki_gw_assemble(w, glb, out_data, out_size);
	}
	if (w->opts.warning) /* repeated warnings once more, with their total count */
		for (rki_gw_warning *x = w->warnings; x; x = x->next) {
			if (x->count < 2) continue;
			rk_warning total = { x->message, UINT64_MAX, "", x->count };
			w->opts.warning(w->opts.warning_user, &total);
		}
	if (ok && w->opts.stats) *w->opts.stats = w->stats;
	rki_gw_free(w);
	return ok;
}

static bool rki_gw_path_is_gltf(const char *path)
{
	size_t n = strlen(path);
	if (n < 5) return false;
	const char *e = path + n - 5;
	const char *ext = ".gltf";
	for (int i = 0; i < 5; i++) {
		char c = e[i];
		if (c >= 'A' && c <= 'Z') c = (char)(c - 'A' + 'a');
		if (c != ext[i]) return false;
	}
	return true;
}

static bool rki_gw_write_file(const rk_scene *scene, const char *path, const rk_gltf_write_opts *opts, bool glb,
	rk_error *err)
{
	if (!path) {
		rki_error_set(err, RK_ERROR_INVALID_ARGUMENT, "glTF writer: NULL path");
		return false;
	}
	void *data = NULL;
	size_t size = 0;
	if (!rki_gw_run(scene, opts, glb, &data, &size, err)) {
		rki_error_file(err, path);
		return false;
	}
	bool ok = rk_file_write_atomic(path, data, size, err);
	rk_gltf_memory_free(data);
	return ok;
}

bool rk_gltf_write(const rk_scene *scene, const char *path, const rk_gltf_write_opts *opts, rk_error *err)
{
	rk_gltf_container c = opts ? opts->container : RK_GLTF_CONTAINER_AUTO;
	bool glb = c == RK_GLTF_CONTAINER_GLB || (c != RK_GLTF_CONTAINER_JSON && !(path && rki_gw_path_is_gltf(path)));
	return rki_gw_write_file(scene, path, opts, glb, err);
}

bool rk_glb_write(const rk_scene *scene, const char *path, const rk_gltf_write_opts *opts, rk_error *err)
{
	return rki_gw_write_file(scene, path, opts, true, err);
}

bool rk_gltf_write_memory(const rk_scene *scene, const rk_gltf_write_opts *opts,
	void **out_data, size_t *out_size, rk_error *err)
{
	if (!out_data || !out_size) {
		rki_error_set(err, RK_ERROR_INVALID_ARGUMENT, "rk_gltf_write_memory: NULL output pointer");
		return false;
	}
	bool glb = !(opts && opts->container == RK_GLTF_CONTAINER_JSON);
	return rki_gw_run(scene, opts, glb, out_data, out_size, err);
}
