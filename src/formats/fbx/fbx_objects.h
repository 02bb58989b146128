/*
 * src/formats/fbx/fbx_objects.h - the FBX scene reader's context services
 * (fbx_objects.c): error and warning reports, the object index (7x ids,
 * 6100 names) and the Connections lists, and queries over them.
 *
 * Errors go into the scene error (ctx->sc->err, first error wins) with the
 * file name, the node path and its byte offset; warnings into
 * scene->warnings. Calls fbx_props and fbx_dom only.
 */
#ifndef RIGKIT_FBX_OBJECTS_H
#define RIGKIT_FBX_OBJECTS_H

#include "formats/fbx/fbx_internal.h"

/* Sets the scene error (unless one is set already) with the file name and
 * the location of node n: its path and byte offset (n NULL: no location). */
void rki_fbx_error_at_node(rki_fbx_ctx *ctx, const rki_fbx_node *n, rk_error_code code, const char *fmt, ...) RKI_PRINTF(4, 5);
/* Adds a scene warning located at node n (NULL: no location). */
void rki_fbx_warn(rki_fbx_ctx *ctx, const rki_fbx_node *n, const char *fmt, ...) RKI_PRINTF(3, 4);
/* Sets RK_ERROR_OUT_OF_MEMORY (with the file name); returns false. */
bool rki_fbx_oom(rki_fbx_ctx *ctx);
/* After a DOM accessor (rki_fbx_array_*) failed and filled the scene error:
 * adds the file name; returns false. */
bool rki_fbx_dom_failed(rki_fbx_ctx *ctx);

/* 6100 id of an object named s[0..len) ("Class::name"): a hash of the full
 * string; 0 only for the root "Model::Scene". */
int64_t rki_fbx_name_id(const char *s, size_t len);

/* Fills ctx->objects (children of Objects with an id; 6100: with a name),
 * their property and template nodes, and the id map. Duplicate ids keep the
 * first object (warned). False on a fatal error (err set). */
bool rki_fbx_index_objects(rki_fbx_ctx *ctx);
/* Fills ctx->conns from Connections (after rki_fbx_index_objects): every
 * object's parents, then every object's children, in file order.
 * Connections naming unknown objects are skipped. False when out of memory. */
bool rki_fbx_index_connections(rki_fbx_ctx *ctx);

/* Object index for a 7x id, or UINT32_MAX. */
uint32_t rki_fbx_find_object(const rki_fbx_ctx *ctx, int64_t id);

/* True for Model objects. */
bool rki_fbx_is_model(const rki_fbx_object *o);
/* Child k of o (k < o->children_count) when its element (and sub class, when
 * sub is not NULL) match, else NULL. element NULL matches any. */
rki_fbx_object *rki_fbx_child_of_kind(rki_fbx_ctx *ctx, const rki_fbx_object *o, uint32_t k, const char *element, const char *sub);

#endif
