/* src/formats/gltf/gltf_draco.h - the C face of gltf_draco_shim.cpp: Debian's
 * libdraco (C++) decoding one KHR_draco_mesh_compression stream for the glTF
 * reader (gltf_draco.c). Not public API. Nothing here throws: C++ exceptions
 * (out of memory) end in the shim and come back as a failure with a message.
 * libdraco's working memory comes from operator new, outside
 * rk_load_opts.memory_limit (docs/gltf.md, "Compressed input"). */
#ifndef RIGKIT_GLTF_DRACO_H
#define RIGKIT_GLTF_DRACO_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct rki_draco_mesh rki_draco_mesh;

/* Decodes size bytes as a Draco triangle mesh. NULL on failure with the
 * reason in msg (cap bytes, NUL-terminated). Free with rki_draco_free(). */
rki_draco_mesh *rki_draco_decode(const unsigned char *data, size_t size, char *msg, size_t cap);
void rki_draco_free(rki_draco_mesh *m);
uint32_t rki_draco_point_count(const rki_draco_mesh *m);
uint32_t rki_draco_face_count(const rki_draco_mesh *m);
/* 3 x face_count point indices. */
void rki_draco_indices(const rki_draco_mesh *m, uint32_t *dst);

enum { RKI_DRACO_OK = 0, RKI_DRACO_NO_ATTRIBUTE = 1, RKI_DRACO_BAD_VALUE = 2, RKI_DRACO_BAD_TYPE = 3 };
/* Attribute `unique_id`, per point, as `components` values of glTF
 * component type `ctype` (5120 BYTE ... 5126 FLOAT) tightly packed:
 * point_count x components x size(ctype) bytes at dst (missing components
 * 0). *have gets the attribute's own component count. */
int rki_draco_attribute(const rki_draco_mesh *m, uint32_t unique_id, uint32_t ctype, uint32_t components, void *dst, uint32_t *have);

#ifdef __cplusplus
}
#endif

#endif
