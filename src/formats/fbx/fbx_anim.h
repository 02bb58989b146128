/*
 * src/formats/fbx/fbx_anim.h - FBX animation (fbx_anim.c; FEATURES there).
 * Calls fbx_objects, fbx_props and fbx_dom only.
 */
#ifndef RIGKIT_FBX_ANIM_H
#define RIGKIT_FBX_ANIM_H

#include "formats/fbx/fbx_internal.h"

/* Builds scene->clips from AnimationStack/Layer/CurveNode/Curve objects (7x)
 * or Takes (6100 and legacy). Needs nodes (object->out = rk_node*) and blend
 * channels (object->out = rk_blend_channel*) built first. False on a fatal
 * error (err set). */
bool rki_fbx_read_animation(rki_fbx_ctx *ctx);

#endif
