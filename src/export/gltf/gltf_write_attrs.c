/*
 * src/export/gltf/gltf_write_attrs.c - the glTF writer's cameras and
 * KHR_lights_punctual lights (scene->cameras, scene->lights; scene.h LIGHTS
 * AND CAMERAS), and the side files of separate output (.bin and images).
 * A helper of gltf_write.c and gltf_write_node.c (call graph in
 * gltf_write_internal.h): it calls only gltf_write_buffer.c and
 * gltf_write_ext.c.
 *
 * CAMERAS AND LIGHTS
 *   Every rk_camera becomes glTF camera `index`, every rk_light KHR light
 *   `index`. A node whose camera / light has to_node = identity carries it
 *   itself; otherwise (FBX: cameras look along +X, lights along -Y) one
 *   extra child node with rotation to_node carries it, so it points where
 *   it pointed in the input. Those children are written after the scene's
 *   nodes. Lengths are written as stored (the node's space). Values glTF
 *   does not allow are made valid with a warning naming the element
 *   (perspective znear 0, orthographic zfar 0 or not above znear, spot
 *   angles outside 0 <= inner < outer <= pi/2, colours outside [0, 1]);
 *   area lights are written as point lights (warned).
 */
#include "export/gltf/gltf_write_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define RKI_GW_HALF_PI 1.57079632679489661923

static bool rki_gw_quat_is_identity(rk_quat q)
{
	return fabs(q.x) < 1e-12 && fabs(q.y) < 1e-12 && fabs(q.z) < 1e-12 && fabs(fabs(q.w) - 1.0) < 1e-12;
}

static rk_quat rki_gw_unit_quat(rk_quat q)
{
	double n = sqrt(q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w);
	if (!(n > 1e-300) || !isfinite(n)) return RK_QUAT_IDENTITY;
	return (rk_quat){ q.x / n, q.y / n, q.z / n, q.w / n };
}

static double rki_gw_positive(double v, double def)
{
	return v > 0.0 && isfinite(v) ? v : def;
}

static void rki_gw_camera(rki_gw *w, rk_json_writer *j, const rk_camera *c)
{
	const char *name = c->name ? c->name : "";
	rk_json_object_begin(j, NULL);
	if (name[0]) rk_json_string(j, "name", name);
	if (c->projection == RK_PROJECTION_ORTHOGRAPHIC) {
		rk_json_string(j, "type", "orthographic");
		rk_json_object_begin(j, "orthographic");
		double xmag = c->xmag, ymag = c->ymag, znear = c->znear >= 0.0 && isfinite(c->znear) ? c->znear : 0.0, zfar = c->zfar;
		if (!(xmag != 0.0) || !isfinite(xmag) || !(ymag != 0.0) || !isfinite(ymag)) {
			rki_gw_warn(w, "camera \"%s\": orthographic xmag / ymag must be non-zero: 1 written", name);
			if (!(xmag != 0.0) || !isfinite(xmag)) xmag = 1.0;
			if (!(ymag != 0.0) || !isfinite(ymag)) ymag = 1.0;
		}
		if (!(zfar > znear) || !isfinite(zfar)) {
			rki_gw_warn(w, "camera \"%s\": orthographic zfar must be above znear: znear + 1000 written", name);
			zfar = znear + 1000.0;
		}
		rk_json_number(j, "xmag", xmag);
		rk_json_number(j, "ymag", ymag);
		rk_json_number(j, "znear", znear);
		rk_json_number(j, "zfar", zfar);
	} else {
		rk_json_string(j, "type", "perspective");
		rk_json_object_begin(j, "perspective");
		double znear = c->znear;
		if (!(znear > 0.0) || !isfinite(znear)) {
			rki_gw_warn(w, "camera \"%s\": perspective znear must be > 0: 0.001 written", name);
			znear = 0.001;
		}
		if (c->aspect_ratio > 0.0 && isfinite(c->aspect_ratio)) rk_json_number(j, "aspectRatio", c->aspect_ratio);
		rk_json_number(j, "yfov", rki_gw_positive(c->yfov, 0.8));
		if (c->zfar > znear && isfinite(c->zfar)) rk_json_number(j, "zfar", c->zfar);
		rk_json_number(j, "znear", znear);
	}
	rk_json_object_end(j);
	rki_gw_extras_write(w, j, c->extras);
	rk_json_object_end(j);
}

static double rki_gw_unit01(double v)
{
	return v >= 0.0 ? (v <= 1.0 ? v : 1.0) : 0.0;
}

static void rki_gw_light(rki_gw *w, rk_json_writer *j, const rk_light *l)
{
	const char *name = l->name ? l->name : "";
	static const char *const types[] = { [RK_LIGHT_POINT] = "point", [RK_LIGHT_DIRECTIONAL] = "directional",
		[RK_LIGHT_SPOT] = "spot", [RK_LIGHT_AREA] = "point" };
	rk_light_type type = (unsigned)l->type <= (unsigned)RK_LIGHT_AREA ? l->type : RK_LIGHT_POINT;
	if (type == RK_LIGHT_AREA) rki_gw_warn(w, "light \"%s\": area light written as a point light (glTF has no area lights)", name);
	rk_json_object_begin(j, NULL);
	if (name[0]) rk_json_string(j, "name", name);
	rk_json_string(j, "type", types[type]);
	double col[3] = { rki_gw_unit01(l->color.x), rki_gw_unit01(l->color.y), rki_gw_unit01(l->color.z) };
	if (col[0] != l->color.x || col[1] != l->color.y || col[2] != l->color.z)
		rki_gw_warn(w, "light \"%s\": colour outside [0, 1] clamped", name);
	if (col[0] != 1.0 || col[1] != 1.0 || col[2] != 1.0) rk_json_numbers(j, "color", col, 3);
	double intensity = l->intensity >= 0.0 && isfinite(l->intensity) ? l->intensity : 0.0;
	if (intensity != 1.0) rk_json_number(j, "intensity", intensity);
	if (type != RK_LIGHT_DIRECTIONAL && l->range > 0.0 && isfinite(l->range)) rk_json_number(j, "range", l->range);
	if (type == RK_LIGHT_SPOT) {
		double outer = l->outer_cone_angle, inner = l->inner_cone_angle;
		double o2 = outer > 0.0 && isfinite(outer) ? (outer < RKI_GW_HALF_PI ? outer : RKI_GW_HALF_PI) : 0.78539816339744830962;
		double i2 = inner >= 0.0 && isfinite(inner) ? inner : 0.0;
		if (!(i2 < o2)) i2 = 0.0;
		if (o2 != outer || i2 != inner) rki_gw_warn(w, "light \"%s\": spot cone angles made valid (0 <= inner < outer <= pi/2)", name);
		rk_json_object_begin(j, "spot");
		if (i2 != 0.0) rk_json_number(j, "innerConeAngle", i2);
		rk_json_number(j, "outerConeAngle", o2);
		rk_json_object_end(j);
	}
	rki_gw_extras_write(w, j, l->extras);
	rk_json_object_end(j);
}

static bool rki_gw_in_list(const void *p, const void *base, size_t count, size_t size)
{
	uintptr_t a = (uintptr_t)p, b = (uintptr_t)base;
	return base && a >= b && a < b + count * size && (a - b) % size == 0;
}

/* The node's camera / light when it is one of the scene's (else NULL). */
static const rk_camera *rki_gw_node_camera(const rki_gw *w, const rk_node *nd)
{
	const rk_scene *s = w->scene;
	return nd->camera && rki_gw_in_list(nd->camera, s->cameras.data, s->cameras.count, sizeof(rk_camera)) ? nd->camera : NULL;
}

static const rk_light *rki_gw_node_light(const rki_gw *w, const rk_node *nd)
{
	const rk_scene *s = w->scene;
	return nd->light && rki_gw_in_list(nd->light, s->lights.data, s->lights.count, sizeof(rk_light)) ? nd->light : NULL;
}

bool rki_gw_write_attrs(rki_gw *w)
{
	const rk_scene *s = w->scene;
	size_t nn = s->nodes.count;
	w->attr_child = (int32_t *)rki_gw_tmp_array(w, nn, 2 * sizeof(int32_t));
	if (!w->attr_child) return false;
	size_t base = w->write_root ? nn : nn - 1, k = 0;
	for (size_t i = 0; i < nn; i++) {
		const rk_node *nd = &s->nodes.data[i];
		w->attr_child[2 * i] = w->attr_child[2 * i + 1] = -1;
		if (w->node_out[i] < 0) continue;
		const rk_camera *c = rki_gw_node_camera(w, nd);
		const rk_light *l = rki_gw_node_light(w, nd);
		if (base + k + 2 >= (size_t)INT32_MAX) return rki_gw_fail(w, RK_ERROR_UNSUPPORTED, "glTF writer: too many nodes");
		if (c && !rki_gw_quat_is_identity(c->to_node)) w->attr_child[2 * i] = (int32_t)(base + k++);
		if (l && !rki_gw_quat_is_identity(l->to_node)) w->attr_child[2 * i + 1] = (int32_t)(base + k++);
		if ((nd->camera && !c) || (nd->light && !l))
			rki_gw_warn(w, "node \"%s\": a camera or light that is not in the scene's lists is left out", nd->name);
	}
	w->attr_child_count = k;
	for (size_t i = 0; i < s->cameras.count; i++) {
		rki_gw_camera(w, rki_gw_section_json(&w->cameras), &s->cameras.data[i]);
		w->cameras.count++;
	}
	for (size_t i = 0; i < s->lights.count; i++) {
		if (i == 0) rk_json_array_begin(&w->lights, NULL);
		rki_gw_light(w, &w->lights, &s->lights.data[i]);
		w->light_count++;
	}
	if (w->light_count) rk_json_array_end(&w->lights);
	return rki_gw_json_check(w, &w->lights);
}

void rki_gw_attr_node(rki_gw *w, rk_json_writer *j, const rk_node *nd, bool *has_light)
{
	*has_light = false;
	if (!w->attr_child) return;
	const rk_camera *c = rki_gw_node_camera(w, nd);
	if (c && w->attr_child[2 * nd->index] < 0) rk_json_uint(j, "camera", c->index);
	*has_light = rki_gw_node_light(w, nd) && w->attr_child[2 * nd->index + 1] < 0;
}

static void rki_gw_light_ref(rk_json_writer *j, const rk_light *l)
{
	rk_json_object_begin(j, "KHR_lights_punctual");
	rk_json_uint(j, "light", l->index);
	rk_json_object_end(j);
}

void rki_gw_attr_node_light(rki_gw *w, rk_json_writer *j, const rk_node *nd)
{
	const rk_light *l = rki_gw_node_light(w, nd);
	if (l) rki_gw_light_ref(j, l);
}

void rki_gw_attr_children(rki_gw *w, rk_json_writer *j, const rk_node *nd)
{
	if (!w->attr_child) return;
	for (int k = 0; k < 2; k++)
		if (w->attr_child[2 * nd->index + (size_t)k] >= 0) rk_json_uint(j, NULL, (uint64_t)w->attr_child[2 * nd->index + (size_t)k]);
}

void rki_gw_attr_write_nodes(rki_gw *w, rk_json_writer *j)
{
	const rk_scene *s = w->scene;
	if (!w->attr_child) return;
	for (size_t i = 0; i < s->nodes.count; i++) {
		for (int k = 0; k < 2; k++) {
			if (w->attr_child[2 * i + (size_t)k] < 0) continue;
			const rk_node *nd = &s->nodes.data[i];
			const rk_camera *c = k == 0 ? rki_gw_node_camera(w, nd) : NULL;
			const rk_light *l = k == 1 ? rki_gw_node_light(w, nd) : NULL;
			const char *name = c ? c->name : l ? l->name : "";
			rk_quat q = rki_gw_unit_quat(c ? c->to_node : l ? l->to_node : RK_QUAT_IDENTITY);
			double r[4] = { q.x, q.y, q.z, q.w };
			rk_json_object_begin(j, NULL);
			if (name && name[0]) rk_json_string(j, "name", name);
			rk_json_numbers(j, "rotation", r, 4);
			if (c) rk_json_uint(j, "camera", c->index);
			if (l) {
				rk_json_object_begin(j, "extensions");
				rki_gw_light_ref(j, l);
				rk_json_object_end(j);
			}
			rk_json_object_end(j);
			w->nodes.count++;
		}
	}
}

/* ---- separate files -------------------------------------------------------------- */

/* The .gltf path split into folder (with its '/') and stem (file name
 * without ".gltf"). */
static void rki_gw_split_path(const char *path, size_t *dir_len, const char **stem, size_t *stem_len)
{
	const char *slash = strrchr(path, '/');
	const char *file = slash ? slash + 1 : path;
	size_t n = strlen(file);
	if (n > 5) {
		const char *e = file + n - 5;
		bool gltf = e[0] == '.' && (e[1] | 32) == 'g' && (e[2] | 32) == 'l' && (e[3] | 32) == 't' && (e[4] | 32) == 'f';
		if (gltf) n -= 5;
	}
	*dir_len = (size_t)(file - path);
	*stem = file;
	*stem_len = n;
}

static void rki_gw_uri(rki_gw *w, rk_json_writer *j, const char *suffix)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t dir_len, stem_len;
	const char *stem;
	rki_gw_split_path(w->out_path, &dir_len, &stem, &stem_len);
	rk_json_string_begin(j, "uri");
	for (size_t i = 0; i < stem_len; i++) {
		unsigned char c = (unsigned char)stem[i];
		bool plain = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.'
			|| c == '_' || c == '~';
		char esc[3] = { '%', hex[c >> 4], hex[c & 15] };
		if (plain) rk_json_string_append(j, (const char *)&stem[i], 1);
		else rk_json_string_append(j, esc, 3);
	}
	rk_json_string_append(j, suffix, strlen(suffix));
	rk_json_string_end(j);
}

static void rki_gw_image_suffix(const rki_gw *w, size_t n, char *buf, size_t cap)
{
	snprintf(buf, cap, "_%zu.%s", n, w->image_files[n].ext);
}

void rki_gw_uri_image(rki_gw *w, rk_json_writer *j, size_t n)
{
	char suffix[48];
	rki_gw_image_suffix(w, n, suffix, sizeof(suffix));
	rki_gw_uri(w, j, suffix);
}

void rki_gw_uri_buffer(rki_gw *w, rk_json_writer *j)
{
	rki_gw_uri(w, j, ".bin");
}

static bool rki_gw_side_file(rki_gw *w, const char *suffix, const void *data, size_t size, const rk_file_write_opts *fo)
{
	size_t dir_len, stem_len;
	const char *stem;
	rki_gw_split_path(w->out_path, &dir_len, &stem, &stem_len);
	size_t n = dir_len + stem_len + strlen(suffix) + 1;
	char *path = (char *)rki_gw_tmp_array(w, n, 1);
	if (!path) return false;
	memcpy(path, w->out_path, dir_len + stem_len);
	memcpy(path + dir_len + stem_len, suffix, strlen(suffix) + 1);
	return rk_file_write(path, data, size, fo, w->err) ? true : (w->failed = true, false);
}

bool rki_gw_write_side_files(rki_gw *w, const rk_file_write_opts *fo)
{
	if (w->bin.size && !rki_gw_side_file(w, ".bin", w->bin.data, w->bin.size, fo)) return false;
	for (size_t i = 0; i < w->image_file_count; i++) {
		char suffix[48];
		rki_gw_image_suffix(w, i, suffix, sizeof(suffix));
		if (!rki_gw_side_file(w, suffix, w->image_files[i].data, w->image_files[i].size, fo)) return false;
	}
	return true;
}
