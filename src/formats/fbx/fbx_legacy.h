/*
 * src/formats/fbx/fbx_legacy.h - the legacy FBX layout (fbx_legacy.c:
 * FBX 3000-5800 files keep their Models at the top level, without
 * Objects/Connections). Calls fbx_geometry, fbx_deformers, fbx_objects,
 * fbx_props and fbx_dom only.
 */
#ifndef RIGKIT_FBX_LEGACY_H
#define RIGKIT_FBX_LEGACY_H

#include "formats/fbx/fbx_internal.h"

/* True when the document has the legacy layout. */
bool rki_fbx_is_legacy(const rki_fbx_ctx *ctx);

/* Replaces the object/connection path for a legacy document: fills
 * ctx->objects with one "Model" object per top-level Model (out = rk_node*,
 * for the Takes reader) and builds nodes, meshes, skins, blend shapes and
 * materials. False on a fatal error (err set). */
bool rki_fbx_build_legacy(rki_fbx_ctx *ctx);

#endif
