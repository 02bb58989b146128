/*
 * src/formats/fbx/fbx_attrs.h - light and camera node attributes of the FBX
 * scene reader (fbx_attrs.c). Calls fbx_objects and fbx_props only.
 */
#ifndef RIGKIT_FBX_ATTRS_H
#define RIGKIT_FBX_ATTRS_H

#include "formats/fbx/fbx_internal.h"

/* After rki_fbx_build_nodes (7x files): scene->lights and scene->cameras
 * from NodeAttribute objects of class Light / Camera, and node->light /
 * node->camera of the Models they are connected to (scene.h LIGHTS AND
 * CAMERAS; the mapping is documented in fbx_attrs.c). False only when out
 * of memory (err set). */
bool rki_fbx_build_attributes(rki_fbx_ctx *ctx);

#endif
