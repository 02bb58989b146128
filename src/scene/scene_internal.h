/*
 * src/scene/scene_internal.h - what format readers share to build an rk_scene.
 *
 * A reader:
 *   1. rki_scene_begin(): allocates the scene with its arena and limits;
 *   2. fills scene->nodes in depth-first pre-order (rki_depth_first_order()
 *      computes that order from parent indices), the root first, and every
 *      other list;
 *   3. rki_scene_finish(): computes cached matrices, applies unit/axis
 *      conversion from the load options, and copies the warnings.
 * On failure it calls rki_scene_abort().
 */
#ifndef RIGKIT_SCENE_INTERNAL_H
#define RIGKIT_SCENE_INTERNAL_H

#include "core/internal.h"
#include "rigkit/scene.h"

#include <stdarg.h>

typedef struct rki_warning_node {
	struct rki_warning_node *next;
	rk_warning warning;
} rki_warning_node;

/* ---- external files ------------------------------------------------------
 * Readers open nothing themselves: every buffer or texture a file refers to
 * goes through the access policy that src/load builds from rk_load_opts
 * (load_files.c) and hands to the reader (rki_scene_ctx.files). */
typedef enum rki_file_status {
	RKI_FILE_OK,        /* found (and read when asked) */
	RKI_FILE_MISSING,   /* no such file, or no folder to resolve a relative reference against */
	RKI_FILE_REFUSED,   /* outside the allowed folders, an absolute path, a URI scheme, an encoded separator */
	RKI_FILE_SPECIAL,   /* exists but is a FIFO, device, folder or socket: not opened */
	RKI_FILE_FAILED     /* read error, over file_size_limit, out of memory, a malformed URI: err is set */
} rki_file_status;

typedef struct rki_file_ask {
	const char *refs[2];     /* the references as written, tried in order (NULL / "" skipped) */
	size_t ref_lens[2];      /* their lengths (not NUL-terminated: JSON strings) */
	bool uri;                /* refs are URIs (glTF): scheme check and %-decoding first */
	bool by_name;            /* FBX textures: when no reference resolves as written, look up its
	                            trailing path parts (at most 4, file name last) inside the input's folder */
	bool read;               /* read the bytes (always done with an rk_load_opts.open_file callback) */
	rki_arena *arena;        /* where path, reference and data go */
} rki_file_ask;

typedef struct rki_file_result {
	rki_file_status status;
	const char *reference;   /* refs[0] as decoded (URI) with '\\' as '/', in the arena ("" if none) */
	const char *path;        /* OK with the file system: the real path opened (arena); else NULL */
	const unsigned char *data; /* OK and read: the bytes (arena, plus a NUL), else NULL */
	size_t size;
	char why[RK_ERROR_TEXT_MAX]; /* not OK: what was refused and why, naming the reference */
} rki_file_result;

typedef struct rki_file_access rki_file_access;
struct rki_file_access {
	void *impl;
	rki_file_status (*open)(const rki_file_access *fa, const rki_file_ask *ask, rki_file_result *out, rk_error *err);
};

typedef struct rki_scene_ctx {
	rk_scene *scene;
	rki_alloc *alloc;        /* limits and accounting, shared by both arenas */
	rki_arena *arena;        /* scene memory (lives with the scene) */
	rki_arena tmp;           /* temporaries, freed by finish/abort */
	rk_load_opts opts;       /* resolved defaults */
	bool budget_auto;        /* opts.memory_limit was 0: the budget follows the input (rki_load_memory_budget) */
	rki_warning_node *warnings, *warnings_tail;
	size_t warning_count;
	rk_error *err;
	const rki_file_access *files; /* external files (set by the reader from its caller); NULL = none */
} rki_scene_ctx;

/* Runs sc->files->open; with no access policy every reference is MISSING. */
rki_file_status rki_scene_open_file(rki_scene_ctx *sc, const rki_file_ask *ask, rki_file_result *out);

/* Resolves option defaults (see rk_load_opts); input_bytes sizes the
 * default memory budget (rki_load_memory_budget). */
void rki_load_opts_resolve(rk_load_opts *out, const rk_load_opts *in, size_t input_bytes);

/* The default memory budget of a load whose inputs hold `input_bytes`:
 * max(RKI_LOAD_BUDGET_MIN, RKI_LOAD_BUDGET_PER_BYTE x input_bytes), at most
 * RKI_DEFAULT_MEMORY_LIMIT. */
#define RKI_LOAD_BUDGET_MIN ((size_t)256 << 20)
#define RKI_LOAD_BUDGET_PER_BYTE 64u
size_t rki_load_memory_budget(size_t input_bytes);

/* False with RK_ERROR_INVALID_ARGUMENT naming the field when an option holds
 * a value outside the documented ones (unknown axes, a unit that is NaN,
 * infinite or <= 0, an unknown space_conversion). NULL is valid. */
bool rki_load_opts_validate(const rk_load_opts *o, rk_error *err);

/* Allocates an empty scene for an input of input_bytes. False on
 * allocation failure (err filled). */
bool rki_scene_begin(rki_scene_ctx *ctx, const rk_load_opts *opts, const char *filename, size_t input_bytes,
	rk_error *err);

/* Another input of `bytes` joins the load (a glTF buffer in an external
 * file): a default budget grows by RKI_LOAD_BUDGET_PER_BYTE x bytes (up to
 * RKI_DEFAULT_MEMORY_LIMIT); an explicit memory_limit stays. */
void rki_scene_budget_input(rki_scene_ctx *ctx, size_t bytes);
/* Computes matrices, applies conversions, attaches warnings. Returns the
 * scene or NULL (then the scene is already freed). */
rk_scene *rki_scene_finish(rki_scene_ctx *ctx);
void rki_scene_abort(rki_scene_ctx *ctx);
/* False with err (RK_ERROR_CORRUPT naming the file and element) when the
 * finished scene holds a NaN or infinity in its static data or keys
 * (scene_finite.c; rki_scene_finish calls it). */
bool rki_scene_check_finite(rki_scene_ctx *ctx);

/* Adds a warning (deduplicated by message: repeats bump the count). */
void rki_scene_warn(rki_scene_ctx *ctx, uint64_t byte_offset, const char *path, const char *fmt, ...) RKI_PRINTF(4, 5);

/* Sets err to out-of-memory or limit depending on what the allocator saw. */
void rki_scene_oom(rki_scene_ctx *ctx);

/* Depth-first pre-order of a forest given parent indices (UINT32_MAX = no
 * parent), children visited in index order. out_order[k] = old index of the
 * k-th node. Returns false if the parent links contain a cycle or an index
 * out of range. `scratch` must hold 3 * count uint32_t. */
bool rki_depth_first_order(size_t count, const uint32_t *parent, uint32_t *out_order, uint32_t *scratch);

/* Recomputes node_to_parent / node_to_world / geometry matrices and depth
 * of every node from props/local/adjust (nodes must be in depth-first order). */
void rki_scene_update_matrices(rk_scene *scene);

/* After load (modules that add to a finished scene, e.g. retarget): the
 * scene's arena, and appending a clip whose data already lives in it. The
 * append moves scene->clips.data (the old array stays allocated until the
 * scene is freed); returns the new element, or NULL (out of memory, bad
 * arguments). scene->memory_used is updated. */
rki_arena *rki_scene_arena(rk_scene *scene);
rk_anim_clip *rki_scene_append_clip(rk_scene *scene, const rk_anim_clip *clip);

/* Formats a message (truncated to RK_ERROR_TEXT_MAX) and passes it to `fn`
 * as a warning without a file location (byte_offset UINT64_MAX, no path,
 * count 1): the writers', retargeter's and renderer's callback warnings.
 * Nothing when fn is NULL. */
void rki_warning_emitv(rk_warning_fn *fn, void *user, const char *fmt, va_list ap);
void rki_warning_emitf(rk_warning_fn *fn, void *user, const char *fmt, ...) RKI_PRINTF(3, 4);

#endif
