/*
 * rigkit/base.h - fundamental types shared by every rigkit module.
 *
 * OVERVIEW
 *   Plain value types (vectors, quaternions, matrices), the fixed-size error
 *   value every fallible call reports into, the allocator hook used by loaders
 *   (so tests can count and fail allocations), and library version queries.
 *
 * CONVENTIONS
 *   - Transforms are double precision. GPU-bound arrays elsewhere are float.
 *   - rk_mat4 is column-major: m[col * 4 + row]; it maps column vectors
 *     (p' = M * p). Translation lives in m[12], m[13], m[14]. This is the
 *     same memory layout as glTF's "matrix".
 *   - Quaternions are (x, y, z, w), w the scalar part, Hamilton convention:
 *     q1 * q2 applies q2 first, then q1.
 *   - Angles in the public API are degrees only where a field says so (FBX
 *     Euler properties); math helpers taking radians say so too.
 *
 * THREAD SAFETY
 *   Everything here is a pure value or a pure function. rk_error values are
 *   owned by the caller; do not share one between threads.
 */
#ifndef RIGKIT_BASE_H
#define RIGKIT_BASE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define RK_VERSION_MAJOR 0
#define RK_VERSION_MINOR 1
#define RK_VERSION_PATCH 0
#define RK_VERSION_STRING "0.1.0"

/* Library version as "MAJOR.MINOR.PATCH" (static string). */
const char *rk_version(void);

typedef struct rk_vec2 { double x, y; } rk_vec2;
typedef struct rk_vec3 { double x, y, z; } rk_vec3;
typedef struct rk_vec4 { double x, y, z, w; } rk_vec4;
typedef struct rk_quat { double x, y, z, w; } rk_quat;
/* Column-major 4x4 matrix, see CONVENTIONS above. */
typedef struct rk_mat4 { double m[16]; } rk_mat4;

/* Translation, rotation, scale. Applied as T * R * S to a column vector. */
typedef struct rk_trs {
	rk_vec3 translation;
	rk_quat rotation;   /* unit quaternion */
	rk_vec3 scale;
} rk_trs;

/* ---------------------------------------------------------------------------
 * Errors
 * ------------------------------------------------------------------------- */

typedef enum rk_error_code {
	RK_OK = 0,
	RK_ERROR_INVALID_ARGUMENT, /* caller passed something unusable */
	RK_ERROR_IO,               /* the file could not be opened/read */
	RK_ERROR_UNKNOWN_FORMAT,   /* the bytes are not a format rigkit reads */
	RK_ERROR_UNSUPPORTED,      /* a known format, but a version/feature we refuse */
	RK_ERROR_TRUNCATED,        /* input ended before a structure was complete */
	RK_ERROR_CORRUPT,          /* input is malformed (bad value, count, index...) */
	RK_ERROR_LIMIT,            /* a configured limit (memory, count, depth) was hit */
	RK_ERROR_OUT_OF_MEMORY,    /* the allocator failed */
	RK_ERROR_OUTPUT,           /* an output file could not be written */
	RK_ERROR_COUNT_
} rk_error_code;

/* Kind of input location recorded with an error. Several may be set at once
 * (e.g. a byte offset and an FBX node path). */
enum {
	RK_LOCATION_BYTE = 1u << 0,    /* rk_error.byte_offset is valid */
	RK_LOCATION_LINE = 1u << 1,    /* rk_error.line is valid (1-based) */
	RK_LOCATION_FBX_NODE = 1u << 2,/* rk_error.path is an FBX node path "Objects/Geometry/Vertices" */
	RK_LOCATION_JSON = 1u << 3     /* rk_error.path is a JSON pointer "/accessors/12/byteOffset" */
};

#define RK_ERROR_TEXT_MAX 256

/* A fixed-size error value: failing never allocates.
 * Zero-initialise it (or let a call fill it); code RK_OK means no error. */
typedef struct rk_error {
	rk_error_code code;
	const char *description;            /* static text for `code`, never NULL once set */
	char message[RK_ERROR_TEXT_MAX];    /* what was wrong and what was expected */
	char file[RK_ERROR_TEXT_MAX];       /* input file name, "" for memory input */
	uint32_t location;                  /* RK_LOCATION_* bits */
	uint64_t byte_offset;               /* byte offset into the input */
	uint64_t line;                      /* 1-based line number (text formats) */
	char path[RK_ERROR_TEXT_MAX];       /* FBX node path or JSON pointer */
} rk_error;

/* Static description of an error code ("truncated input", ...). */
const char *rk_error_code_name(rk_error_code code);

/* Formats `err` as "FILE: message (at byte N, node A/B)" into dst.
 * Always NUL-terminates when cap > 0. Returns the length the full text
 * needs (excluding the NUL), like snprintf; pass dst=NULL, cap=0 to ask. */
size_t rk_error_format(char *dst, size_t cap, const rk_error *err);

/* ---------------------------------------------------------------------------
 * Allocation
 * ------------------------------------------------------------------------- */

/* Optional allocator hook. A zeroed struct means malloc/free.
 * `alloc` returns NULL on failure; `free` receives the size passed to alloc. */
typedef struct rk_allocator {
	void *(*alloc)(void *user, size_t size);
	void (*free)(void *user, void *ptr, size_t size);
	void *user;
} rk_allocator;

/* ---------------------------------------------------------------------------
 * Sampling limits
 * ------------------------------------------------------------------------- */

/* Default maximum number of frames (keys per track) that sampling one clip
 * may produce: rk_retarget (rk_retarget_opts.max_frames) and the glTF
 * writer's baking (rk_gltf_write_opts.max_frames) refuse a clip that would
 * need more with RK_ERROR_LIMIT naming the file and the clip, so a small
 * file claiming a clip of hours cannot make gigabytes of keys. 100,000
 * frames = 55 minutes at 30 fps. The CLI's --max-frames N changes it. */
#define RK_DEFAULT_MAX_FRAMES 100000u

/* ---------------------------------------------------------------------------
 * Output files
 * ------------------------------------------------------------------------- */

/* Options of rk_file_write (zero = defaults). */
typedef struct rk_file_write_opts {
	bool force;   /* default false: a symbolic link, FIFO, device node or socket at `path` is
	                 refused (RK_ERROR_OUTPUT naming it); true: it is replaced by the new
	                 regular file (a link is replaced, never followed). A folder is always refused. */
} rk_file_write_opts;

/* Writes `size` bytes to `path` atomically, so readers see either the old
 * file or the whole new one: the data goes to an unnamed O_TMPFILE file in
 * the same folder, is flushed to disk, and is linked in when complete (a
 * process killed meanwhile leaves nothing behind); where the file system has
 * no O_TMPFILE, to a temporary file with a short name (".rk" + 7
 * characters: outputs whose names are up to NAME_MAX bytes work) renamed over
 * `path`. On failure the temporary file is removed, `path` is untouched, and
 * err gets RK_ERROR_OUTPUT. opts may be NULL. New files get mode 0644 (minus
 * the umask with O_TMPFILE). Thread safety: safe for distinct paths. */
bool rk_file_write(const char *path, const void *data, size_t size, const rk_file_write_opts *opts, rk_error *err);
/* rk_file_write with default options. */
bool rk_file_write_atomic(const char *path, const void *data, size_t size, rk_error *err);

#ifdef __cplusplus
}
#endif
#endif
