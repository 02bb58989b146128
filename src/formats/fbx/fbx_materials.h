/*
 * src/formats/fbx/fbx_materials.h - textures and materials (fbx_materials.c).
 * Calls fbx_objects, fbx_props and fbx_dom only.
 */
#ifndef RIGKIT_FBX_MATERIALS_H
#define RIGKIT_FBX_MATERIALS_H

#include "formats/fbx/fbx_internal.h"

/* Builds t (index set by the caller) from a Texture object: file names, the
 * path found on disk beside the FBX file (or NULL), embedded content of a
 * connected Video and its MIME type. False when out of memory. */
bool rki_fbx_build_texture(rki_fbx_ctx *ctx, rki_fbx_object *o, rk_texture *t);

/* Builds m (index set by the caller) from a Material object: Phong/Lambert
 * colours and factors mapped to base colour, roughness and alpha, and the
 * textures already built (texture object->out) that are connected to it.
 * False when out of memory. */
bool rki_fbx_build_material(rki_fbx_ctx *ctx, rki_fbx_object *o, rk_material *m);

#endif
