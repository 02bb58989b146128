/*
 * src/formats/fbx/fbx_props.h - property lookup for the FBX scene reader
 * (fbx_props.c): Properties70/60 values of an object, with its type's
 * template as fallback, and small string helpers over DOM values.
 *
 * Pure reads of the document: nothing allocates, nothing reports errors (a
 * missing or mistyped value gives the caller's default). Calls only fbx_dom.
 */
#ifndef RIGKIT_FBX_PROPS_H
#define RIGKIT_FBX_PROPS_H

#include "formats/fbx/fbx_internal.h"

/* True when a[0..alen) equals the C string b. */
bool rki_fbx_str_eq(const char *a, size_t alen, const char *b);

/* First value of n's child `child` as a string; false when there is none. */
bool rki_fbx_child_str(const rki_fbx_node *n, const char *child, const char **s, size_t *len);

/* Property lookup on an object (own Properties70/60 first, then its type's
 * template). Returns the P node, and the index of its first value. */
const rki_fbx_node *rki_fbx_obj_prop(const rki_fbx_object *o, const char *name, size_t *value_index);
double rki_fbx_obj_f64(const rki_fbx_object *o, const char *name, double def);
int64_t rki_fbx_obj_i64(const rki_fbx_object *o, const char *name, int64_t def);
rk_vec3 rki_fbx_obj_vec3(const rki_fbx_object *o, const char *name, rk_vec3 def);
/* String property, or def. */
const char *rki_fbx_obj_str(const rki_fbx_object *o, const char *name, const char *def);

/* Value vi of a P node (NULL: def) as an integer (numbers rounded toward 0),
 * or def; values vi..vi+2 as a vector, or def. */
int64_t rki_fbx_p_i64(const rki_fbx_node *p, size_t vi, int64_t def);
rk_vec3 rki_fbx_p_vec3(const rki_fbx_node *p, size_t vi, rk_vec3 def);

#endif
