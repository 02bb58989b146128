/* src/mesh/mesh_internal.h - what the mesh layer's files share (not public API). */
#ifndef RIGKIT_MESH_INTERNAL_H
#define RIGKIT_MESH_INTERNAL_H

#include "core/internal.h"
#include "core/normals.h"   /* rki_smooth_normals, rki_polygon_area_vector */
#include "rigkit/mesh.h"

#endif
