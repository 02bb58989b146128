/* src/formats/bvh/bvh.h - the BVH (Biovision Hierarchy) reader's entry points,
 * for src/load only. Features, mapping and restrictions: include/rigkit/load.h,
 * BVH IMPORTER, and docs/bvh.md. */
#ifndef RIGKIT_FORMATS_BVH_H
#define RIGKIT_FORMATS_BVH_H

#include "scene/scene_internal.h"

/* True when the first word of the text (after an optional UTF-8 BOM and
 * whitespace) is HIERARCHY, in any case. `refined` is always set false. */
bool rki_bvh_probe(const void *data, size_t size, bool *refined);

/* Reads a BVH file: one node per ROOT / JOINT / End Site, one clip from
 * MOTION. NULL with err (file, line, byte offset, what was expected) on
 * failure. BVH refers to no other file: `files` is not used. */
rk_scene *rki_bvh_load(const void *data, size_t size, const rk_load_opts *opts, const char *filename,
	const rki_file_access *files, rk_error *err);

#endif
