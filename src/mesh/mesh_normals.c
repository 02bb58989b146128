/* src/mesh/mesh_normals.c - rk_mesh_smooth_normals (contract in rigkit/mesh.h,
 * SMOOTH NORMALS): the public face of the one smooth-normal generator,
 * rki_smooth_normals in core/normals.c. Mesh expansion and the glTF writer
 * call this, the demo characters' builder calls the core function, so a mesh
 * without normals gets the same normals in a GPU expansion, in a GLB and in
 * the sample characters. */
#include "mesh_internal.h"

#include <stddef.h>

/* rki_smooth_normals reads each face as two uint32 at its start. */
_Static_assert(offsetof(rk_face, index_begin) == 0 && offsetof(rk_face, index_count) == sizeof(uint32_t),
	"rk_face must begin with index_begin, index_count");

size_t rk_mesh_smooth_normals(rk_vec3 *destination, const rk_vec3 *positions, size_t vertex_count,
	const uint32_t *vertex_indices, size_t index_count, const rk_face *faces, size_t face_count)
{
	return rki_smooth_normals(destination, positions, vertex_count, vertex_indices, index_count,
		faces, sizeof(rk_face), face_count);
}
