/*
 * src/formats/gltf/gltf_internal.h - shared state and helpers of the glTF 2.0 / GLB
 * reader (not public API). The feature list, restrictions and the mapping to
 * the neutral scene model are documented at the top of gltf_load.c.
 *
 * FILES
 *   gltf_load.c      entry points, container (GLB / JSON), asset, extensions,
 *                    the order of the passes, settings
 *   gltf_json_parse.c  the JSON reader (why rigkit has its own: see there)
 *   gltf_json.c      JSON pointers, errors, warnings, typed member getters
 *   gltf_buffer.c    buffers (GLB BIN, data: URIs, external files),
 *                    bufferViews, accessors (dense, strided, sparse)
 *   gltf_material.c  images, samplers, textures, materials
 *   gltf_mesh.c      meshes, primitives, morph targets
 *   gltf_node.c      nodes, scenes, hierarchy order, skins
 *   gltf_anim.c      animations
 *   gltf_meshopt.c   EXT_meshopt_compression bufferViews (meshoptimizer's decoders)
 *   gltf_draco.c     KHR_draco_mesh_compression primitives, over
 *   gltf_draco_shim.cpp  the only C++: libdraco behind a C API (gltf_draco.h)
 *   gltf_vrm.c       VRM 1.0 / 0.x / VRM Animation extensions and KHR material
 *                    extensions: kept extension data and the declared
 *                    humanoid (scene->hints)
 *   gltf_extras.c    cameras, KHR_lights_punctual, extras
 *
 * ERRORS
 *   Every function that can fail returns bool; false means g->err holds the
 *   first error (code, message, JSON pointer, file name). Later errors never
 *   overwrite the first one.
 */
#ifndef RIGKIT_GLTF_INTERNAL_H
#define RIGKIT_GLTF_INTERNAL_H

#include "formats/gltf/gltf.h"

#include <string.h>

/* KHR_draco_mesh_compression through Debian's libdraco (gltf_draco_shim.cpp);
 * not in the WebAssembly module, which compiles only the library's C files. */
#if !defined(__EMSCRIPTEN__) && !defined(RKI_GLTF_NO_DRACO)
#define RKI_GLTF_HAVE_DRACO 1
#else
#define RKI_GLTF_HAVE_DRACO 0
#endif

#define RKI_GLTF_NONE SIZE_MAX
#define RKI_GLTF_PATH_MAX 200
/* JOINTS_n / WEIGHTS_n pairs read per primitive (4 influences each). */
#define RKI_GLTF_MAX_INFLUENCE_SETS 8

/* Accessor component types (glTF componentType). */
enum {
	RKI_GLTF_BYTE = 5120,
	RKI_GLTF_UNSIGNED_BYTE = 5121,
	RKI_GLTF_SHORT = 5122,
	RKI_GLTF_UNSIGNED_SHORT = 5123,
	RKI_GLTF_UNSIGNED_INT = 5125,
	RKI_GLTF_FLOAT = 5126
};

/* Bit masks of component types for rki_gltf_accessor_expect(). */
#define RKI_GLTF_CT(t) (1u << ((t) - RKI_GLTF_BYTE))
#define RKI_GLTF_CT_FLOAT RKI_GLTF_CT(RKI_GLTF_FLOAT)
#define RKI_GLTF_CT_UNSIGNED (RKI_GLTF_CT(RKI_GLTF_UNSIGNED_BYTE) | RKI_GLTF_CT(RKI_GLTF_UNSIGNED_SHORT) | RKI_GLTF_CT(RKI_GLTF_UNSIGNED_INT))
#define RKI_GLTF_CT_ANY (RKI_GLTF_CT(RKI_GLTF_BYTE) | RKI_GLTF_CT(RKI_GLTF_SHORT) | RKI_GLTF_CT_UNSIGNED | RKI_GLTF_CT_FLOAT)

/* ---- little-endian binary data ------------------------------------------------
 * glTF buffers are little-endian; on little-endian hosts these are plain
 * (unaligned) loads, elsewhere byte by byte. */

#if defined(__BYTE_ORDER__) && defined(__ORDER_LITTLE_ENDIAN__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define RKI_GLTF_HOST_LE 1
#else
#define RKI_GLTF_HOST_LE 0
#endif

static inline uint16_t rki_le16(const unsigned char *p)
{
#if RKI_GLTF_HOST_LE
	uint16_t v;
	memcpy(&v, p, sizeof(v));
	return v;
#else
	return (uint16_t)(p[0] | (p[1] << 8));
#endif
}

static inline uint32_t rki_le32(const unsigned char *p)
{
#if RKI_GLTF_HOST_LE
	uint32_t v;
	memcpy(&v, p, sizeof(v));
	return v;
#else
	return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
#endif
}

static inline float rki_lef32(const unsigned char *p)
{
	uint32_t u = rki_le32(p);
	float f;
	memcpy(&f, &u, sizeof(f));
	return f;
}

/* ---- JSON documents (gltf_json_parse.c) ------------------------------------
 * A parsed document is a read-only tree in the load's temporary arena.
 * Strings are UTF-8 byte spans (of the input text, or decoded copies when
 * they had escapes), NOT NUL-terminated: use len. Numbers are doubles, or
 * (flags != 0) their text, converted by rki_json_number(). The input text
 * must outlive the tree. */

enum { RKI_JSON_NULL, RKI_JSON_FALSE, RKI_JSON_TRUE, RKI_JSON_NUMBER, RKI_JSON_STRING, RKI_JSON_ARRAY, RKI_JSON_OBJECT };
/* rki_json.flags of numbers: text span of len < RKI_JSON_NUMBER_INLINE
 * bytes / NUL-terminated copy with the locale's decimal point. */
enum { RKI_JSON_NUMBER_TEXT = 1, RKI_JSON_NUMBER_CSTR = 2 };
#define RKI_JSON_NUMBER_INLINE 64

typedef struct rki_json rki_json;
typedef struct rki_json_member rki_json_member;

struct rki_json {
	union {
		double number;                  /* NUMBER, flags 0 */
		const char *text;               /* STRING bytes; NUMBER text (flags != 0) */
		const rki_json *items;          /* ARRAY: len items */
		const rki_json_member *members; /* OBJECT: len members in file order */
	} u;
	uint32_t len;                       /* STRING / NUMBER text bytes, items, members */
	uint8_t type;                       /* RKI_JSON_* */
	uint8_t flags;
	uint16_t key_len;                   /* value of an object member: bytes of its key */
};

/* 24 bytes: member names are limited to RKI_JSON_KEY_MAX bytes. */
struct rki_json_member {
	rki_json value;                     /* value.key_len: bytes of key */
	const char *key;                    /* UTF-8 bytes, not NUL-terminated */
};
#define RKI_JSON_KEY_MAX 65535

typedef struct rki_json_doc {
	rki_json root;
	size_t end;                         /* byte offset just after the top-level value */
	char decimal_point[8];              /* the C library locale's, for strtod (NUL-terminated) */
} rki_json_doc;

typedef struct rki_json_error {
	rk_error_code code;                 /* CORRUPT (syntax), LIMIT, OUT_OF_MEMORY */
	size_t offset;                      /* byte offset in the text */
	char message[160];
} rki_json_error;

/* Parses size bytes of text into doc (memory from `ar` and its allocator).
 * At most max_depth nested containers and max_values values. False with
 * *err set on failure. */
bool rki_json_parse(rki_json_doc *doc, const unsigned char *text, size_t size, rki_arena *ar, size_t max_depth, size_t max_values,
	rki_json_error *err);
/* The value of a NUMBER (strtod semantics). */
double rki_json_number(const rki_json_doc *doc, const rki_json *v);
/* dst = src[0..len) with '.' replaced by decimal_point, NUL-terminated
 * (dst holds len + strlen(decimal_point) + 1 bytes). */
void rki_json_number_copy(char *dst, const char *src, size_t len, const char *decimal_point);
/* Member `key` (len bytes) of an object, the first if repeated; NULL when
 * absent or obj is not an object. */
const rki_json *rki_json_get_n(const rki_json *obj, const char *key, size_t len);

static inline const rki_json *rki_json_get(const rki_json *obj, const char *key)
{
	return rki_json_get_n(obj, key, strlen(key));
}

static inline bool rki_json_is(const rki_json *v, int type)
{
	return v && v->type == type;
}

/* A STRING equal to the NUL-terminated s. */
static inline bool rki_json_eq(const rki_json *v, const char *s)
{
	size_t n = strlen(s);
	return v && v->type == RKI_JSON_STRING && v->len == n && memcmp(v->u.text, s, n) == 0;
}

/* printf arguments for "%.*s" showing at most max bytes of a STRING. */
#define RKI_JSON_STR_ARGS(v, max) (int)((v)->len < (max) ? (v)->len : (max)), (v)->u.text

/* ---- JSON pointers (gltf_json.c) ---------------------------------------------
 * Where a value is, as a chain of member names and array indices up to the
 * top-level object. Building one is a few stores on the stack; the RFC 6901
 * text ("/meshes/0/primitives/1/attributes/POSITION") is formatted only when
 * an error or warning is reported. NULL is the top-level object itself. */

typedef struct rki_gltf_loc {
	const struct rki_gltf_loc *up; /* NULL: a member of the top-level object */
	const char *key;               /* member name; NULL: array element `index` */
	size_t key_len;                /* bytes of key; 0: key is NUL-terminated */
	size_t index;
} rki_gltf_loc;

/* Member `key` (a NUL-terminated string) / element `i` of the value at `up`,
 * valid until the end of the enclosing block. */
#define RKI_GLTF_KEY(up_, key_) (&(const rki_gltf_loc){ (up_), (key_), 0, 0 })
#define RKI_GLTF_IDX(up_, i_) (&(const rki_gltf_loc){ (up_), NULL, 0, (i_) })
/* Member named by len bytes at key (not NUL-terminated, e.g. a JSON key). */
#define RKI_GLTF_MEMBER(up_, key_, len_) (&(const rki_gltf_loc){ (up_), (len_) ? (key_) : "", (len_), 0 })

/* "/accessors", the parent of every rki_gltf_accessor.loc. */
extern const rki_gltf_loc rki_gltf_loc_accessors;

/* A top-level JSON array (its items, all objects). */
typedef struct rki_gltf_list {
	const rki_json *items;
	size_t count;
} rki_gltf_list;

typedef struct rki_gltf_buffer {
	const unsigned char *data;   /* byteLength bytes (GLB BIN, decoded data: URI, or external file) */
	size_t size;                 /* the declared byteLength */
	bool placeholder;            /* no data by design: an EXT_meshopt_compression fallback buffer */
	bool streamed;               /* the BIN chunk of a streamed GLB: data NULL, its bytes at file_offset */
	uint64_t file_offset;
} rki_gltf_buffer;

typedef struct rki_gltf_view {
	const unsigned char *data;   /* inside its buffer, bounds checked; read with rki_gltf_view_data() */
	size_t length;
	size_t stride;               /* byteStride, 0 = tightly packed */
	bool streamed;               /* in a streamed buffer: data is read at file_offset on first use */
	bool held;                   /* data points into such a read, freed by rki_gltf_views_release() */
	uint64_t file_offset;
} rki_gltf_view;

/* An external file held until the end of the load. */

/* A resolved, bounds-checked accessor. */
typedef struct rki_gltf_accessor {
	size_t index;
	uint32_t component_type;     /* RKI_GLTF_BYTE ... */
	uint32_t components;         /* per element: 1, 2, 3, 4, 4 (MAT2), 9, 16 */
	bool matrix;                 /* MATn: column-major, columns padded to 4 bytes */
	uint32_t rows;               /* matrix rows, else `components` */
	size_t comp_size;            /* bytes per component */
	size_t col_stride;           /* bytes between matrix columns */
	size_t elem_size;            /* bytes per element including column padding */
	bool normalized;
	size_t count;
	const unsigned char *data;   /* element 0, NULL when there is no bufferView (zeros) */
	size_t stride;               /* bytes between elements */
	size_t sparse_count;         /* 0 when not sparse */
	uint32_t sparse_index_type;
	const unsigned char *sparse_indices;
	const unsigned char *sparse_values;
	rki_gltf_loc loc;            /* "/accessors/N" */
} rki_gltf_accessor;

/* What the mesh pass leaves for the skin pass, per glTF primitive. */
typedef struct rki_gltf_prim {
	bool loaded;                 /* triangles whose vertices are in the rk_mesh */
	size_t vertex_base;          /* first vertex in the concatenated arrays */
	size_t vertex_count;
	size_t set_count;            /* JOINTS_n / WEIGHTS_n pairs 0 .. set_count-1 */
	size_t joints[RKI_GLTF_MAX_INFLUENCE_SETS];
	size_t weights[RKI_GLTF_MAX_INFLUENCE_SETS];
} rki_gltf_prim;

typedef struct rki_gltf_mesh {
	rk_mesh *mesh;               /* NULL when geometry is ignored */
	size_t target_count;         /* morph targets, also known without geometry */
	size_t prim_count;
	rki_gltf_prim *prims;
	size_t skin_fill;            /* skin pass: mesh->skins filled so far */
} rki_gltf_mesh;

typedef struct rki_gltf {
	rki_scene_ctx sc;
	rk_error *err;               /* never NULL */
	const char *filename;        /* "" for memory input without a name */
	bool is_glb;
	bool has_bin;
	const unsigned char *bin;    /* GLB BIN chunk (NULL when streamed) */
	size_t bin_size;
	uint64_t bin_offset;         /* its first byte in the input */
	const unsigned char *input;  /* the whole input in memory, or NULL: */
	const rki_stream *stream;    /* ... read in pieces (rki_gltf_load_stream) */
	uint64_t input_size;
	rki_buf held_views;          /* size_t indices of the views pointing into held_regions */
	rki_buf held_regions;        /* pieces of the streamed BIN chunk in memory (gltf_buffer.c) */
	rki_json_doc doc;
	const rki_json *json;        /* &doc.root once parsed */

	rki_gltf_list accessors, buffer_views, buffers, nodes, meshes, skins, materials;
	rki_gltf_list textures, images, samplers, animations, cameras, scenes;

	rki_gltf_buffer *buffer_data;/* per buffer */
	rki_gltf_view *views;        /* per bufferView */
	unsigned char *stride_warned;/* per bufferView: non-vertex byteStride warned */
	rki_warning_node *stride_warning;/* that warning, see rki_gltf_warn_repeat() */

	rki_buf scratch[3];          /* reusable temporaries, see rki_gltf_scratch() */

	bool meshopt;                /* extensionsUsed names EXT_meshopt_compression / MESHOPT_compression */
	const unsigned char **acc_data; /* per accessor: decoded data (Draco), tightly packed; NULL = none */
	const double **anim_times;   /* per accessor: its animation times decoded once (scene arena), shared
	                                by every sampler that names it as input; NULL = not yet */

	rki_gltf_mesh *mesh_info;    /* per glTF mesh */
	rk_node **node_map;          /* glTF node index -> scene node */
	size_t *node_mesh;           /* glTF node index -> glTF mesh index or RKI_GLTF_NONE */
	size_t *node_skin;           /* glTF node index -> glTF skin index or RKI_GLTF_NONE */
	rk_material *default_material;
	struct rki_gltf_skin_fixup *skin_fixup; /* per rk_skin_deformer (scene arena: used after rki_scene_finish) */
} rki_gltf;

/* ---- JSON pointers, errors and warnings (gltf_json.c) ------------------- */

/* The JSON pointer text of `loc`, truncated to cap. */
void rki_gltf_loc_format(char *dst, size_t cap, const rki_gltf_loc *loc);

bool rki_gltf_failed(const rki_gltf *g);
/* Records the first error at `loc` (NULL = no JSON location) with the file
 * name. Always returns false. Later errors never overwrite the first one. */
bool rki_gltf_fail(rki_gltf *g, rk_error_code code, const rki_gltf_loc *loc, const char *fmt, ...) RKI_PRINTF(4, 5);
/* Same at member `key` of `base`. */
bool rki_gltf_fail_key(rki_gltf *g, rk_error_code code, const rki_gltf_loc *base, const char *key, const char *fmt, ...) RKI_PRINTF(5, 6);
/* Same at a byte offset of the input (GLB container and JSON syntax errors). */
bool rki_gltf_fail_byte(rki_gltf *g, rk_error_code code, uint64_t offset, const char *fmt, ...) RKI_PRINTF(4, 5);
/* Out of memory / limit, from what the allocator saw. Returns false. */
bool rki_gltf_oom(rki_gltf *g);
/* A warning at `loc` (NULL: path ""). */
void rki_gltf_warn(rki_gltf *g, const rki_gltf_loc *loc, const char *fmt, ...) RKI_PRINTF(3, 4);
/* The same warning (constant text) again and again: formatted once, then
 * only its count grows. *cache starts NULL. */
void rki_gltf_warn_repeat(rki_gltf *g, rki_warning_node **cache, const rki_gltf_loc *loc, const char *msg);

/* ---- typed members (gltf_json.c) -------------------------------------------
 * Each getter reads member `key` of `obj` (whose JSON pointer is `base`). An
 * absent member yields the default; a member of the wrong type or range is a
 * RK_ERROR_CORRUPT error at base/key saying what was expected. */

const rki_json *rki_gltf_member(const rki_json *obj, const char *key);
/* Index into a list of `count` elements named `what` ("accessors").
 * Absent: RKI_GLTF_NONE, or an error when `required`. */
bool rki_gltf_index(rki_gltf *g, const rki_json *obj, const rki_gltf_loc *base, const char *key,
	size_t count, const char *what, bool required, size_t *out);
/* The same for a value already at hand (array item, object member) at `loc`. */
bool rki_gltf_index_value(rki_gltf *g, const rki_json *v, const rki_gltf_loc *loc, size_t count, const char *what, size_t *out);
/* Non-negative integer <= max. Absent: def, or an error when `required`. */
bool rki_gltf_uint(rki_gltf *g, const rki_json *obj, const rki_gltf_loc *base, const char *key,
	size_t def, size_t max, bool required, size_t *out);
/* Finite number. */
bool rki_gltf_number(rki_gltf *g, const rki_json *obj, const rki_gltf_loc *base, const char *key, double def, double *out);
/* Array of exactly n finite numbers; out untouched and *present false when absent. */
bool rki_gltf_numbers(rki_gltf *g, const rki_json *obj, const rki_gltf_loc *base, const char *key,
	size_t n, double *out, bool *present);
bool rki_gltf_bool(rki_gltf *g, const rki_json *obj, const rki_gltf_loc *base, const char *key, bool def, bool *out);
/* A STRING value (use ->u.text / ->len) or NULL when absent. */
bool rki_gltf_string(rki_gltf *g, const rki_json *obj, const rki_gltf_loc *base, const char *key, const rki_json **out);
/* Object or NULL when absent. */
bool rki_gltf_object(rki_gltf *g, const rki_json *obj, const rki_gltf_loc *base, const char *key, const rki_json **out);
/* Array or NULL (count 0) when absent; count checked against max_elements. */
bool rki_gltf_array(rki_gltf *g, const rki_json *obj, const rki_gltf_loc *base, const char *key, const rki_json **out, size_t *count);
/* Top-level array `key` of objects into a list. */
bool rki_gltf_list_init(rki_gltf *g, const char *key, rki_gltf_list *out);
/* Copy into the scene arena; "" for NULL. NULL only when out of memory (error set). */
const char *rki_gltf_strdup(rki_gltf *g, const char *s);
/* A STRING's bytes as a NUL-terminated string in arena `ar` ("" for NULL);
 * NULL only when out of memory (error set). */
const char *rki_gltf_json_strdup(rki_gltf *g, rki_arena *ar, const rki_json *str);
/* The value of a NUMBER. */
static inline double rki_gltf_num(const rki_gltf *g, const rki_json *v)
{
	return v->flags ? rki_json_number(&g->doc, v) : v->u.number;
}
/* `name` member as a scene string, "" when absent. NULL on error. */
const char *rki_gltf_name(rki_gltf *g, const rki_json *obj, const rki_gltf_loc *base);

/* Overflow-checked count * size bytes of arena memory, not cleared (for
 * arrays the caller overwrites; untouched pages stay untouched). NULL on
 * overflow or allocation failure; count 0 gives a valid pointer. */
static inline void *rki_gltf_array_uninit(rki_arena *ar, size_t count, size_t size)
{
	size_t total = 0;
	if (!rki_mul_size(count, size, &total)) {
		ar->alloc->failed = true;
		return NULL;
	}
	return rki_arena_alloc_uninit(ar, total);
}

/* Temporary array of count * size bytes from reusable buffer `slot` (0, 1
 * or 2); contents undefined; valid until the next call with the same slot.
 * NULL on overflow or allocation failure (error set). */
void *rki_gltf_scratch(rki_gltf *g, int slot, size_t count, size_t size);

/* ---- buffers and accessors (gltf_buffer.c) ------------------------------- */

/* Splits a GLB input (g->input or g->stream, g->input_size bytes) into its
 * JSON text (*json: in the input, or read into the temporary arena) and
 * BIN chunk (g->bin / g->bin_offset). */
bool rki_gltf_parse_glb(rki_gltf *g, const unsigned char **json, size_t *json_size);
/* Reads len bytes at `offset` of the streamed input into dst; false with
 * RK_ERROR_IO at that byte offset, naming `what`, when the read fails. */
bool rki_gltf_stream_read(rki_gltf *g, uint64_t offset, void *dst, size_t len, const char *what);
/* The bytes of bufferView `view` (*out NULL when its buffer was not read).
 * A view of a streamed GLB is read on first use and held until
 * rki_gltf_views_release(). False on a read or allocation error (set). */
bool rki_gltf_view_data(rki_gltf *g, size_t view, const unsigned char **out);
/* Frees the views read from the stream (no-op otherwise): called where no
 * accessor opened before is used again (after each mesh, skin, animation,
 * image, Draco primitive). */
void rki_gltf_views_release(rki_gltf *g);
/* Resolves every buffer and bufferView. */
bool rki_gltf_load_buffers(rki_gltf *g);

bool rki_gltf_is_data_uri(const char *uri, size_t len);
/* Decodes a data: URI (base64 or percent-encoded) into `ar`. *mime gets the
 * media type in the scene arena ("" if none) when mime is non-NULL. */
bool rki_gltf_decode_data_uri(rki_gltf *g, rki_arena *ar, const char *uri, size_t len, const rki_gltf_loc *loc,
	unsigned char **out, size_t *size, const char **mime);
/* Opens the external file a URI names, through the access policy (rk_load_opts,
 * src/load/load_files.h): read = read its bytes into `arena`. False on an error
 * (malformed URI, read error, limit: err set and located at `path`); true
 * otherwise with res->status telling whether it was found, refused (res->why)
 * or missing. res->reference is the decoded URI. */
bool rki_gltf_open_uri(rki_gltf *g, const rki_json *uri, const rki_gltf_loc *path, bool read, rki_arena *arena,
	rki_file_result *res);

/* Resolves accessor `index`: checks type, component type, count, bufferView
 * bounds (offset + stride * (count - 1) + element size <= byteLength) and
 * sparse indices. `vertex_attribute` tells whether byteStride is allowed. */
bool rki_gltf_accessor_open(rki_gltf *g, size_t index, bool vertex_attribute, rki_gltf_accessor *a);
/* As rki_gltf_accessor_open without the finite check (FLOAT accessors
 * otherwise must hold no NaN or infinity): for WEIGHTS_n, whose negative or
 * NaN weights are dropped with a warning (gltf_node.c). */
bool rki_gltf_accessor_open_weights(rki_gltf *g, size_t index, rki_gltf_accessor *a);
/* Fails unless the accessor has `components` components (and is a matrix
 * when `matrix`) and a component type in `ctypes`. `use` names the use in
 * the message ("POSITION"), `use_loc` is where it is referenced. */
bool rki_gltf_accessor_expect(rki_gltf *g, const rki_gltf_accessor *a, const rki_gltf_loc *use_loc, const char *use,
	uint32_t components, bool matrix, unsigned ctypes);
/* Decodes count * components doubles into dst. Integers are normalised
 * (glTF formulas) when `normalize`, else converted as is. */
void rki_gltf_accessor_read_f64(const rki_gltf_accessor *a, double *dst, bool normalize);
/* A FLOAT, non-matrix accessor's values as floats (components per element,
 * sparse values applied); the caller checks the type. Bit-exact copies, so
 * (double) of each equals what rki_gltf_accessor_read_f64 gives. */
void rki_gltf_accessor_read_f32(const rki_gltf_accessor *a, float *dst);
/* Elements first .. first+count-1 only (count * components values). Cost
 * grows with the accessor's sparse count on every call: read sparse
 * accessors whole. */
void rki_gltf_accessor_read_f64_range(const rki_gltf_accessor *a, size_t first, size_t count, double *dst, bool normalize);
/* Decodes count * components unsigned integers (unsigned component types only). */
void rki_gltf_accessor_read_u32(const rki_gltf_accessor *a, uint32_t *dst);
void rki_gltf_accessor_read_u32_range(const rki_gltf_accessor *a, size_t first, size_t count, uint32_t *dst);
/* Vertex indices of a SCALAR unsigned accessor: dst[i] = index[i] + base.
 * False when some index is >= limit: *bad is the first such element and
 * *bad_value its index (dst then holds partial data). */
bool rki_gltf_accessor_read_indices(const rki_gltf_accessor *a, uint32_t *dst, uint32_t base, uint32_t limit, size_t *bad,
	uint32_t *bad_value);
/* Name of a component type ("UNSIGNED_SHORT"). */
const char *rki_gltf_ctype_name(uint32_t ctype);

/* ---- compressed input (gltf_meshopt.c, gltf_draco.c) ---------------------
 * Decoded data lives in the temporary arena (accessor reads copy it out). */

/* Decodes bufferView i whose EXT_meshopt_compression (or MESHOPT_compression)
 * object is `ext` at `epath`: v holds the parent's byteLength and byteStride
 * (has_stride: byteStride given) and gets the decoded bytes as its data. */
bool rki_gltf_meshopt_view(rki_gltf *g, size_t i, const rki_json *ext, const rki_gltf_loc *epath, rki_gltf_view *v, bool has_stride);
/* Decodes every primitive's KHR_draco_mesh_compression stream into
 * g->acc_data for the accessors the primitive names (after the buffers,
 * before the meshes). Without Draco in the build, a primitive with the
 * extension is RK_ERROR_UNSUPPORTED. */
bool rki_gltf_decode_draco(rki_gltf *g);

/* ---- passes ------------------------------------------------------------------ */

/* gltf_load.c: after each pass (and each mesh / clip): once the bulk chunk
 * of the scene arena exists, restores the arena's chunk growth. */

bool rki_gltf_load_textures(rki_gltf *g);   /* gltf_material.c: scene->textures */
bool rki_gltf_load_materials(rki_gltf *g);  /* gltf_material.c: scene->materials (+ "default") */
bool rki_gltf_scan_meshes(rki_gltf *g);     /* gltf_mesh.c: mesh_info target counts, primitive counts */
bool rki_gltf_load_meshes(rki_gltf *g);     /* gltf_mesh.c: scene->meshes */
bool rki_gltf_load_nodes(rki_gltf *g);      /* gltf_node.c: scene->nodes, node_map */
bool rki_gltf_load_skins(rki_gltf *g);      /* gltf_node.c: scene->skins */
/* What rki_gltf_finish_skins() needs per rk_skin_deformer. */
typedef struct rki_gltf_skin_fixup {
	rk_node *mesh_node;            /* the first node using the skin; NULL for unused skins */
	const unsigned char *singular; /* per joint: the inverse bind matrix has no inverse */
} rki_gltf_skin_fixup;
/* gltf_node.c: bind matrices, once rki_scene_finish() computed world
 * matrices: mesh_to_world_bind = the mesh node's node_to_world (identity for
 * unused skins), joint_to_world_bind = mesh_to_world_bind * inverse(IBM), or
 * the joint's node_to_world when the IBM has no inverse. */
void rki_gltf_finish_skins(rk_scene *scene, const rki_gltf_skin_fixup *fixup);
bool rki_gltf_load_animations(rki_gltf *g); /* gltf_anim.c: scene->clips */
/* gltf_vrm.c, last: scene->extensions (kept VRM extensions, indices resolved)
 * and scene->hints (the declared humanoid). Problems are warnings; false
 * only when out of memory. */
bool rki_gltf_load_vrm(rki_gltf *g);
/* gltf_vrm.c: a JSON value kept as plain data (no index rules) in the
 * scene arena; *out NULL when v is NULL. False only when out of memory. */
bool rki_gltf_keep_json(rki_gltf *g, const rki_json *v, const rki_gltf_loc *loc, const rk_ext_value **out);
/* gltf_extras.c, after the nodes: scene->cameras, scene->lights
 * (KHR_lights_punctual), node->camera / node->light, the extras of the
 * asset, nodes, meshes, materials, cameras and lights; warnings naming the
 * extras that are not kept. */
bool rki_gltf_load_extras(rki_gltf *g);

#endif
