/* src/formats/gltf/gltf.h - the glTF 2.0 reader's entry points, for src/load
 * only. Features and restrictions: include/rigkit/load.h, GLTF IMPORTER. */
#ifndef RIGKIT_FORMATS_GLTF_H
#define RIGKIT_FORMATS_GLTF_H

#include "scene/scene_internal.h"

/* True for a GLB header ("glTF", version 2; *is_glb set) or JSON text whose
 * first object has an "asset" member. */
bool rki_gltf_probe(const void *data, size_t size, bool *is_glb);

/* Reads glTF JSON (data: URIs only; see rk_load_opts for external files) or
 * GLB. NULL with err (file, byte offset, JSON pointer) on failure. */
rk_scene *rki_gltf_load(const void *data, size_t size, const rk_load_opts *opts, const char *filename,
	const rki_file_access *files, rk_error *err);

/* The same for a file that starts with the GLB magic, read in pieces: the
 * header and the JSON chunk first, then the BIN chunk's bufferViews only
 * while the reader uses them (a mesh, a skin, an animation, an image at a
 * time; gltf_buffer.c, "Streamed GLB"), so the file is never held whole.
 * Same scene, warnings and errors as rki_gltf_load of the file's bytes; a
 * read that fails (the file shrank while loading) is RK_ERROR_IO at the
 * byte offset. */
rk_scene *rki_gltf_load_stream(const rki_stream *in, const rk_load_opts *opts, const char *filename,
	const rki_file_access *files, rk_error *err);

#endif
