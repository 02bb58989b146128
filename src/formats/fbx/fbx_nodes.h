/*
 * src/formats/fbx/fbx_nodes.h - scene nodes from Model objects and bind
 * poses (fbx_nodes.c). Calls fbx_objects, fbx_props and fbx_dom only.
 */
#ifndef RIGKIT_FBX_NODES_H
#define RIGKIT_FBX_NODES_H

#include "formats/fbx/fbx_internal.h"

/* Builds scene->nodes (root first, then the Models in depth-first order)
 * with their transform properties; sets object->out = rk_node* and
 * object->node_index for every Model. False on a fatal error (a hierarchy
 * cycle, the element limit, out of memory; err set). */
bool rki_fbx_build_nodes(rki_fbx_ctx *ctx);

/* Reads every BindPose (after rki_fbx_build_nodes): node->bind_node_to_world
 * for the nodes it lists (the first pose wins). False on a fatal error. */
bool rki_fbx_read_bind_poses(rki_fbx_ctx *ctx);

#endif
