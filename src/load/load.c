/* src/load/load.c - the only code that names every reader: format
 * detection, dispatch and the file read. A new reader adds its header
 * (src/formats/<fmt>/<fmt>.h) and one row to rki_readers below. */
#include "formats/bvh/bvh.h"
#include "formats/fbx/fbx.h"
#include "formats/gltf/gltf.h"
#include "load/load_files.h"
#include "rigkit/load.h"

#include <string.h>
#include <unistd.h>

typedef struct rki_reader {
	rk_file_format format;   /* what a match reports (GLB refines GLTF) */
	bool (*probe)(const void *data, size_t size, bool *refined);
	/* files: the access policy for external files (load_files.h), never NULL */
	rk_scene *(*load)(const void *data, size_t size, const rk_load_opts *opts, const char *filename,
		const rki_file_access *files, rk_error *err);
	/* the same from a file read in pieces (NULL: the reader needs the whole
	 * file); taken by rk_load_file when stream_magic starts the file */
	rk_scene *(*load_stream)(const rki_stream *in, const rk_load_opts *opts, const char *filename,
		const rki_file_access *files, rk_error *err);
	const char *stream_magic;  /* 4 bytes */
} rki_reader;

static bool rki_probe_fbx(const void *data, size_t size, bool *refined)
{
	*refined = false;
	return rki_fbx_probe(data, size);
}

/* Probed in order: binary signatures first, text formats after. */
static const rki_reader rki_readers[] = {
	{ RK_FORMAT_FBX, rki_probe_fbx, rki_fbx_load, NULL, NULL },
	/* GLB files: the JSON chunk is read, the BIN chunk's views only while
	 * the reader uses them (gltf.h, rki_gltf_load_stream) */
	{ RK_FORMAT_GLTF, rki_gltf_probe, rki_gltf_load, rki_gltf_load_stream, "glTF" },
	{ RK_FORMAT_BVH, rki_bvh_probe, rki_bvh_load, NULL, NULL },
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

/* data/size: the input in memory, or stream (data NULL): a reader with load_stream. */
static rk_scene *rki_load_run(const rki_reader *r, const void *data, size_t size, const rki_stream *stream,
	const rk_load_opts *opts, const char *filename, rki_alloc *alloc, rk_error *err)
{
	rk_load_opts resolved;
	rki_load_opts_resolve(&resolved, opts, stream ? (size_t)stream->size : size);
	rki_files files;
	if (!rki_files_init(&files, alloc, &resolved, filename, err)) {
		rki_error_file(err, filename);
		return NULL;
	}
	rk_scene *s = stream ? r->load_stream(stream, opts, filename, &files.access, err)
	                     : r->load(data, size, opts, filename, &files.access, err);
	rki_files_free(&files);
	return s;
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
	return rki_load_run(r, data, size, NULL, opts, filename, alloc, err);
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

/* rki_stream.read of an open file */
static bool rki_fd_read(void *ctx, uint64_t offset, void *dst, size_t len)
{
	return rki_pread_full(*(const int *)ctx, offset, dst, len, NULL);
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
	uint64_t fsize = 0;
	int fd = rki_open_input(path, o.file_size_limit, &fsize, err);
	if (fd < 0) return NULL;
	rk_load_opts o2 = opts ? *opts : (rk_load_opts){ 0 };
	o2.filename = path;
	/* A reader that streams its format (the probes agree: no other format
	 * starts with its magic) gets the open file instead of its bytes. */
	unsigned char magic[4];
	if (fsize >= sizeof(magic) && rki_pread_full(fd, 0, magic, sizeof(magic), NULL)) {
		for (size_t i = 0; i < sizeof(rki_readers) / sizeof(rki_readers[0]); i++) {
			const rki_reader *r = &rki_readers[i];
			if (!r->load_stream || memcmp(magic, r->stream_magic, sizeof(magic)) != 0) continue;
			rki_stream in = { fsize, &fd, rki_fd_read };
			rk_scene *s = rki_load_run(r, NULL, 0, &in, &o2, path, &a, err);
			close(fd);
			return s;
		}
	}
	void *data = rki_read_input(&a, fd, fsize, path, err);
	close(fd);
	if (!data) return NULL;
	size_t size = (size_t)fsize;
	rk_scene *s = rki_load_dispatch(data, size, &o2, path, &a, err);
	rki_free(&a, data, size + 1);
	return s;
}
