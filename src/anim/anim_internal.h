/*
 * src/anim/anim_internal.h - helpers shared by the anim module's files.
 */
#ifndef RIGKIT_ANIM_INTERNAL_H
#define RIGKIT_ANIM_INTERNAL_H

#include "rigkit/anim.h"

/* True when the track is sampler-based (glTF keyframes): every curves[]
 * slot is NULL and it has keys. */
bool rki_anim_track_is_sampled(const rk_anim_track *track);

/* Component k of a sampler-based track at `time` (k < components), without
 * quaternion handling (plain step/lerp/Hermite). 0 for bad input. */
double rki_anim_sample_component(const rk_anim_track *track, double time, uint32_t k);

#endif
