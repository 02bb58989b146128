/* src/formats/fbx/fbx.h - the FBX reader's entry points, for src/load only.
 * Features and restrictions: include/rigkit/load.h, FBX IMPORTER. */
#ifndef RIGKIT_FORMATS_FBX_H
#define RIGKIT_FORMATS_FBX_H

#include "scene/scene_internal.h"

/* True when `data` starts like binary FBX ("Kaydara FBX Binary  \0") or
 * looks like ASCII FBX (FBXHeaderExtension / "; FBX" comment). */
bool rki_fbx_probe(const void *data, size_t size);

/* Reads binary (3000-7700) or ASCII FBX. NULL with err (file, byte offset,
 * node path) on failure. `opts` is not resolved yet (zero = default). */
rk_scene *rki_fbx_load(const void *data, size_t size, const rk_load_opts *opts, const char *filename,
	const rki_file_access *files, rk_error *err);

/* The names of the binary arrays rki_fbx_load decodes for meshes, skins and
 * blend shapes (Vertices, Normals, ... TransformLink) and how many there are:
 * bench/bench_inflate.c times the zlib part of a load with them. */
const char *const *rki_fbx_mesh_array_names(size_t *count);

#endif
