/* src/load/load.c - the only code that names every reader: format
 * detection, dispatch and the file read. A new reader adds its header
 * (src/formats/<fmt>/<fmt>.h) and one row to rki_readers below. */
#include "formats/bvh/bvh.h"
#include "formats/fbx/fbx.h"
#include "formats/gltf/gltf.h"
#include "load/load_files.h"
#include "rigkit/load.h"

#include <string.h>

typedef struct rki_reader {
	rk_file_format format;   /* what a match reports (GLB refines GLTF) */
	bool (*probe)(const void *data, size_t size, bool *refined);
	/* files: the access policy for external files (load_files.h), never NULL */
	rk_scene *(*load)(const void *data, size_t size, const rk_load_opts *opts, const char *filename,
		const rki_file_access *files, rk_error *err);
} rki_reader;

static bool rki_probe_fbx(const void *data, size_t size, bool *refined)
{
	*refined = false;
	return rki_fbx_probe(data, size);
}

/* Probed in order: binary signatures first, text formats after. */
static const rki_reader rki_readers[] = {
	{ RK_FORMAT_FBX, rki_probe_fbx, rki_fbx_load },
	{ RK_FORMAT_GLTF, rki_gltf_probe, rki_gltf_load },
	{ RK_FORMAT_BVH, rki_bvh_probe, rki_bvh_load },
};

static const rki_reader *rki_reader_for(const void *data, size_t size, rk_file_format *format)
{
	for (size_t i = 0; i < sizeof(rki_readers) / sizeof(rki_readers[0]); i++) {
		bool refined = false;
		if (rki_readers[i].probe(data, size, &refined)) {
			*format = rki_readers[i].format;
			if (refined && *format == RK_FORMAT_GLTF) *format = RK_FORMAT_GLB;
			return &rki_readers[i];
		}
	}
	*format = RK_FORMAT_UNKNOWN;
	return NULL;
}

rk_file_format rk_format_detect(const void *data, size_t size)
{
	rk_file_format f = RK_FORMAT_UNKNOWN;
	if (!data) return RK_FORMAT_UNKNOWN;
	rki_reader_for(data, size, &f);
	return f;
}

static rk_scene *rki_load_dispatch(const void *data, size_t size, const rk_load_opts *opts, const char *filename,
	rki_alloc *alloc, rk_error *err)
{
	rk_file_format f;
	const rki_reader *r = rki_reader_for(data, size, &f);
	if (!r) {
		rki_error_set(err, RK_ERROR_UNKNOWN_FORMAT,
			"not a format rigkit reads (expected binary/ASCII FBX, glTF JSON, GLB or BVH)");
		rki_error_at_byte(err, 0);
		rki_error_file(err, filename);
		return NULL;
	}
	rk_load_opts resolved;
	rki_load_opts_resolve(&resolved, opts, size);
	rki_files files;
	if (!rki_files_init(&files, alloc, &resolved, filename, err)) {
		rki_error_file(err, filename);
		return NULL;
	}
	rk_scene *s = r->load(data, size, opts, filename, &files.access, err);
	rki_files_free(&files);
	return s;
}

rk_scene *rk_load_memory(const void *data, size_t size, const rk_load_opts *opts, rk_error *err)
{
	rki_error_clear(err);
	const char *fn = opts && opts->filename ? opts->filename : "";
	if (!data && size) {
		rki_error_set(err, RK_ERROR_INVALID_ARGUMENT, "rk_load_memory: NULL data");
		return NULL;
	}
	rk_load_opts o;
	rki_load_opts_resolve(&o, opts, size);
	rki_alloc a;
	rki_alloc_init(&a, &o.allocator, 0, 0);
	return rki_load_dispatch(data ? data : "", size, opts, fn, &a, err);
}

rk_scene *rk_load_file(const char *path, const rk_load_opts *opts, rk_error *err)
{
	rki_error_clear(err);
	if (!path) {
		rki_error_set(err, RK_ERROR_INVALID_ARGUMENT, "rk_load_file: NULL path");
		return NULL;
	}
	if (!rki_load_opts_validate(opts, err)) {
		rki_error_file(err, path);
		return NULL;
	}
	rk_load_opts o;
	rki_load_opts_resolve(&o, opts, 0);
	rki_alloc a;
	rki_alloc_init(&a, &o.allocator, 0, 0);
	size_t size = 0;
	void *data = rki_read_file(&a, path, o.file_size_limit, &size, err);
	if (!data) return NULL;
	rk_load_opts o2 = opts ? *opts : (rk_load_opts){ 0 };
	o2.filename = path;
	rk_scene *s = rki_load_dispatch(data, size, &o2, path, &a, err);
	rki_free(&a, data, size + 1);
	return s;
}
