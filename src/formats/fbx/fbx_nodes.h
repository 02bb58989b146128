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

/* Shared by both node builders (7x and legacy): links every node to its
 * parent's children list (child_counts[f] children of node f, nodes in
 * depth-first order, nodes[0] the root) and stores the list as
 * scene->nodes. False (err set) when the arena is exhausted. */
bool rki_fbx_finish_nodes(rki_fbx_ctx *ctx, rk_node *nodes, size_t count, const size_t *child_counts);

/* The Model properties the node builder reads (Lcl Translation ...
 * ScalingActive): index of the one named s[0..len), or -1; the name of
 * index k; how many there are. */
int rki_fbx_node_prop_index(const char *s, size_t len);
const char *rki_fbx_node_prop_name(int k);
int rki_fbx_node_prop_count(void);

/* Reads every BindPose (after rki_fbx_build_nodes): node->bind_node_to_world
 * for the nodes it lists (the first pose wins). False on a fatal error. */
bool rki_fbx_read_bind_poses(rki_fbx_ctx *ctx);

#endif
