/*
 * src/formats/fbx/fbx_props.c - object property lookup (Properties70/60, then
 * the type's template) and string helpers (see fbx_props.h).
 */
#include "formats/fbx/fbx_props.h"

#include <string.h>

/* ---- string helpers ------------------------------------------------------------ */

bool rki_fbx_str_eq(const char *a, size_t alen, const char *b)
{
	size_t blen = strlen(b);
	return alen == blen && memcmp(a, b, blen) == 0;
}

bool rki_fbx_child_str(const rki_fbx_node *n, const char *child, const char **s, size_t *len)
{
	const rki_fbx_node *c = rki_fbx_find_child(n, child);
	return c && rki_fbx_prop_str(c, 0, s, len);
}

/* ---- properties ------------------------------------------------------------------ */

static const rki_fbx_node *rki_fbx_props_find(const rki_fbx_node *props, bool p60, const char *name, size_t *vi)
{
	if (!props) return NULL;
	size_t name_len = strlen(name);  /* once, not per P node: this scan is hot */
	for (size_t i = 0; i < props->child_count; i++) {
		const rki_fbx_node *p = &props->children[i];
		const char *s;
		size_t len;
		if (!rki_fbx_prop_str(p, 0, &s, &len)) continue;
		if (len == name_len && memcmp(s, name, name_len) == 0) {
			*vi = p60 ? 3 : 4;
			return p;
		}
	}
	return NULL;
}

const rki_fbx_node *rki_fbx_obj_prop(const rki_fbx_object *o, const char *name, size_t *value_index)
{
	const rki_fbx_node *p = rki_fbx_props_find(o->props, o->props60, name, value_index);
	if (p) return p;
	return rki_fbx_props_find(o->templ, false, name, value_index);
}

double rki_fbx_obj_f64(const rki_fbx_object *o, const char *name, double def)
{
	size_t vi;
	double v;
	const rki_fbx_node *p = rki_fbx_obj_prop(o, name, &vi);
	return p && rki_fbx_prop_f64(p, vi, &v) ? v : def;
}

/* Value vi of a P node as an integer (numbers rounded toward 0), or def. */
int64_t rki_fbx_p_i64(const rki_fbx_node *p, size_t vi, int64_t def)
{
	int64_t v;
	double d;
	if (!p) return def;
	if (rki_fbx_prop_i64(p, vi, &v)) return v;
	if (rki_fbx_prop_f64(p, vi, &d) && d > -9e18 && d < 9e18) return (int64_t)d;
	return def;
}

/* Values vi..vi+2 of a P node, or def. */
rk_vec3 rki_fbx_p_vec3(const rki_fbx_node *p, size_t vi, rk_vec3 def)
{
	rk_vec3 v;
	if (!p || !rki_fbx_prop_f64(p, vi, &v.x) || !rki_fbx_prop_f64(p, vi + 1, &v.y) || !rki_fbx_prop_f64(p, vi + 2, &v.z))
		return def;
	return v;
}

int64_t rki_fbx_obj_i64(const rki_fbx_object *o, const char *name, int64_t def)
{
	size_t vi = 0;
	const rki_fbx_node *p = rki_fbx_obj_prop(o, name, &vi);
	return rki_fbx_p_i64(p, vi, def);
}

rk_vec3 rki_fbx_obj_vec3(const rki_fbx_object *o, const char *name, rk_vec3 def)
{
	size_t vi = 0;
	const rki_fbx_node *p = rki_fbx_obj_prop(o, name, &vi);
	return rki_fbx_p_vec3(p, vi, def);
}

const char *rki_fbx_obj_str(const rki_fbx_object *o, const char *name, const char *def)
{
	size_t vi, len;
	const char *s;
	const rki_fbx_node *p = rki_fbx_obj_prop(o, name, &vi);
	return p && rki_fbx_prop_str(p, vi, &s, &len) ? s : def;
}
