/*
 * rigkit/rigkit.h - umbrella header: includes every public rigkit module.
 *
 * Modules, bottom to top (a module only uses the ones above it):
 *   base.h       value types, errors, allocator hook, atomic file output
 *   math.h       vectors, quaternions, matrices, Euler angles
 *   transform.h  the FBX transform chain and inherit modes
 *   scene.h      the neutral scene model and rk_load_file()
 *   hierarchy.h  a mutable parent/child transform hierarchy (local <-> world)
 *   anim.h       curve/track sampling, pose evaluation, reference deformation
 *   mesh.h       GPU-ready mesh expansion (triangulation, parts, top-4 skin influences)
 *   gltf.h       glTF 2.0 / GLB writer
 *   image.h      texture images decoded on demand (RGBA8)
 *   runtime.h    float runtime: skeletons, clips, sampling/blending/local-to-model jobs, root motion
 *   sample.h     built-in procedural sample characters (Mixamo-style source, RPM-style avatar)
 *   retarget.h   humanoid bone maps, retargeting any humanoid to any humanoid, clip comparison
 *   render.h     CPU preview rendering of a posed scene into RGBA / PNG (no GPU)
 */
#ifndef RIGKIT_RIGKIT_H
#define RIGKIT_RIGKIT_H

#include "rigkit/base.h"
#include "rigkit/math.h"
#include "rigkit/transform.h"
#include "rigkit/json.h"
#include "rigkit/tasks.h"
#include "rigkit/scene.h"
#include "rigkit/load.h"
#include "rigkit/hierarchy.h"
#include "rigkit/anim.h"
#include "rigkit/mesh.h"
#include "rigkit/export.h"
#include "rigkit/image.h"
#include "rigkit/runtime.h"
#include "rigkit/demo.h"
#include "rigkit/retarget.h"
#include "rigkit/humanoid.h"
#include "rigkit/rest.h"
#include "rigkit/vrma.h"
#include "rigkit/render.h"

#endif
