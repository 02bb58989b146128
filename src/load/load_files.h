/*
 * src/load/load_files.h - the access policy for external files (buffers,
 * textures): the one place that decides which file a reference in an input
 * may open. rk_load_file / rk_load_memory build one per load from
 * rk_load_opts and pass its rki_file_access to the reader; readers call
 * rki_scene_open_file() and never open files themselves.
 *
 * POLICY (docs/security.md)
 *   A reference resolves only inside the allowed folder trees: the input
 *   file's folder, plus rk_load_opts.allow_paths.
 *   - Relative references are joined to the input's folder and normalised
 *     ("." and empty parts dropped, ".." removes a part); one that climbs
 *     above its start or lands outside every allowed tree is REFUSED.
 *   - Absolute paths ("/x", "//server/x", "C:/x") are REFUSED unless inside
 *     an allowed tree (never a drive-letter path).
 *   - URIs (glTF): a scheme other than data: (the reader handles data:) is
 *     REFUSED; %-escapes are decoded, and one that decodes to '/' or '\',
 *     or a "." / ".." part spelled with escapes, is REFUSED. '\' counts as
 *     a separator everywhere.
 *   - With the file system: realpath() of the result must still lie inside
 *     an allowed tree (a symbolic link out is REFUSED); only regular files
 *     are opened (stat, then open(O_NONBLOCK) + fstat: FIFOs, devices,
 *     folders and sockets are SPECIAL, never opened or read); at most
 *     rk_load_opts.file_size_limit bytes are read.
 *   - With rk_load_opts.open_file: the same lexical checks (no symlink
 *     resolution), then the callback serves the bytes, which are copied.
 *   - by_name (FBX textures): when no reference resolves as written, its
 *     trailing parts are tried inside the input's folder, longest first:
 *     "B:\Users\me\proj\tex\wood.jpg" tries "Users/me/proj/tex/wood.jpg",
 *     "me/proj/tex/wood.jpg" ... at most the last 4 parts, ending with
 *     "wood.jpg"; parts before the last ".." are dropped. No folder is
 *     scanned.
 *
 * THREAD SAFETY: one per load, used by the loading thread only.
 */
#ifndef RIGKIT_LOAD_FILES_H
#define RIGKIT_LOAD_FILES_H

#include "scene/scene_internal.h"

typedef struct rki_files {
	rki_file_access access;  /* what readers get (impl = this struct) */
	const rk_load_opts *opts;
	const char *filename;    /* the input, for errors */
	rki_alloc *alloc;
	bool fs;                 /* no open_file callback: the file system */
	bool has_base;           /* base is the input's folder */
	bool base_pending;       /* fs: base is not yet a real path (rki_files_base) */
	char *base;              /* = roots[0]: the input's folder, or "" when it has none */
	char **roots;            /* normalised (fs: real) folders; count root_count */
	size_t root_count;
	void *block;             /* one allocation holding roots */
	size_t block_size;
} rki_files;

/* Builds the policy for an input named `filename` ("" = memory without a
 * name: only absolute references inside allow_paths, or the callback, can
 * resolve). opts must be resolved (file_size_limit set) and outlive f.
 * False with err (RK_ERROR_INVALID_ARGUMENT naming the entry) when an
 * allow_paths folder does not exist. */
bool rki_files_init(rki_files *f, rki_alloc *alloc, const rk_load_opts *opts, const char *filename, rk_error *err);
void rki_files_free(rki_files *f);

#endif
