/*
 * src/formats/fbx/fbx_dom.h - the FBX document tree ("DOM"): bytes -> nodes with typed
 * properties. Internal to rigkit (names rki_fbx_*); the scene builder sits on top.
 *
 * OVERVIEW
 *   rki_fbx_parse() turns a whole FBX file held in memory into a tree of
 *   rki_fbx_node. Nothing is interpreted here: no objects, connections,
 *   templates or units, only the generic node/property structure that both
 *   encodings share. All output lives in one caller-owned arena; temporary
 *   memory comes from a separate allocator and is freed before return.
 *
 * FEATURES
 *   - Binary FBX, any version from 3000 to 7999: 32-bit node records before
 *     7500, 64-bit records from 7500 on. Little-endian files and the rare
 *     big-endian ones (header byte 22 = 1, written by some Maya builds) alike.
 *   - Binary property types Y C I F D L S R and arrays f d l i b, raw or zlib
 *     (inflated with libdeflate). Arrays are decoded to native in-memory arrays,
 *     at parse time or, with rki_fbx_parse_opts.lazy_arrays, on first use (see
 *     LAZY ARRAYS); many at once on several threads with rki_fbx_decode_arrays().
 *   - ASCII FBX 5800/6100 and 7.x syntax: ';' comments anywhere outside
 *     strings, numbers, "strings", bare words, 7.x arrays "*N { a: ... }",
 *     property lists continued on following lines (after a trailing comma or
 *     starting the next line with a comma), values starting on the line after
 *     the "Name:" (6100 "Key:" lists), an empty leading value ("Content: , ..."),
 *     CRLF or LF line ends, a UTF-8 BOM.
 *
 * RESTRICTIONS
 *   - Binary versions below 3000 and from 8000 on are RK_ERROR_UNSUPPORTED.
 *   - Bytes after the top-level null record of a binary file (the footer) are
 *     not read. A top-level list that ends without the null record is accepted
 *     only where the footer starts (16 bytes beginning 0xFA 0xBC, and the file
 *     ends with the 16-byte footer magic); anything else there is an error.
 *   - Binary strings are kept byte for byte: object names like
 *     "pCube1\x00\x01Model" keep their "\x00\x01" separator (use the length,
 *     not strlen). Every string and name is also NUL-terminated.
 *   - ASCII strings have no escapes; "&quot;" and the like are kept raw.
 *   - ASCII numbers: integer syntax that fits int64 becomes 'L'; anything
 *     with '.', an exponent, or an integer too large for int64 becomes 'D'.
 *     "1.#INF", "-1.#IND", "1.#QNAN" (MSVC printf output) are read as
 *     infinity / NaN. Decimal -> double is exact (correctly rounded) for up to
 *     19 significant digits within 1e+-22 and otherwise uses strtod() on a
 *     bounded copy of the token, with the decimal point of the current
 *     LC_NUMERIC locale substituted. Number tokens longer than 200 bytes are
 *     RK_ERROR_CORRUPT.
 *   - ASCII 7.x arrays are stored as doubles (type 'd', all_integers set when
 *     every element used integer syntax). Integers beyond 2^53 in such arrays
 *     lose precision; FBX keeps indices and 1/46186158000 s tick times there,
 *     which stay far below that.
 *   - Every float64 array the DOM hands out (stored 'd' arrays and the results
 *     of rki_fbx_array_f64) is followed by at least RKI_FBX_ARRAY_PAD zero
 *     bytes, so a reader can use element `count` as a zero sentinel value
 *     without copying the array.
 *   - 5800/6100 ASCII lists such as "Vertices: 1,2,3,..." stay individual
 *     scalar properties of the node (one per number). rki_fbx_array_*() accept
 *     such a node at index 0: when every property is a numeric scalar, the whole
 *     property list is converted into the array (a node with no properties at
 *     all is an empty array).
 *
 * MEMORY AND LIMITS
 *   Every count read from the file is checked against the bytes that remain
 *   before anything is allocated; node record end offsets must stay inside the
 *   file and inside the parent record; nesting is walked with an explicit stack
 *   (no recursion) bounded by max_depth. A zlib array may not claim more than
 *   1032 decoded bytes per compressed byte (+1 KiB), deflate's maximum ratio,
 *   so a small file cannot request a huge buffer. The decompressed size must
 *   equal count * element size exactly.
 *
 * LAZY ARRAYS
 *   With rki_fbx_parse_opts.lazy_arrays, binary arrays of at least one
 *   element are checked at parse time exactly as in an eager parse (12-byte
 *   header inside the property list, encoding 0 or 1, element and total-byte
 *   limits, raw size == count * element size, the deflate ratio bound) but
 *   their data is left in the input: the property is "pending" (pending != 0,
 *   v.a.data == NULL, v.a.count already set). It is decoded into the
 *   document's arena on first use by rki_fbx_array_*(), rki_fbx_prop_array()
 *   or rki_fbx_decode_arrays(), and then stays decoded. Only at that point
 *   are invalid zlib data and a decompressed size other than the declared one
 *   detected; the error is the one an eager parse gives (same code, message
 *   and byte offset, path of the node), reported by the accessor. Arrays
 *   nobody asks for are never inflated. The input bytes must stay valid and
 *   unchanged while the document has pending arrays.
 *
 * THREAD SAFETY
 *   rki_fbx_parse() uses only its arguments (no globals); run it on many
 *   threads with distinct arenas/allocators. A parsed document is read-only
 *   and can be read from many threads, except that rki_fbx_array_*() allocate
 *   from the arena they are given and, on a lazily parsed document, decode
 *   pending arrays into the document (its arena and properties): calls on one
 *   document or sharing one arena must be serialised. rki_fbx_decode_arrays()
 *   starts its own threads and joins them before it returns.
 */
#ifndef RIGKIT_FBX_DOM_H
#define RIGKIT_FBX_DOM_H

#include "core/internal.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Zero bytes that follow every float64 array (see RESTRICTIONS). */
#define RKI_FBX_ARRAY_PAD 32u

/* Upper bound on rki_fbx_decode_arrays() threads (threads == 0 asks for one per core). */
#define RKI_FBX_MAX_THREADS 8u

/* Defaults used for a zero field of rki_fbx_limits. */
#define RKI_FBX_DEFAULT_MAX_DEPTH 64u
#define RKI_FBX_DEFAULT_MAX_NODES 50000000u
#define RKI_FBX_DEFAULT_MAX_ARRAY_ELEMS 500000000u
#define RKI_FBX_DEFAULT_MAX_TOTAL_ARRAY_BYTES ((uint64_t)2 << 30)

/* Parse limits. A zero field means the default named beside it. Exceeding any
 * limit fails the parse with RK_ERROR_LIMIT. */
typedef struct rki_fbx_limits {
	size_t max_depth;             /* nesting depth, top-level nodes are depth 1; default 64 */
	size_t max_nodes;             /* nodes in the whole file; default 50,000,000 */
	size_t max_array_elems;       /* elements of one array (also: values of one ASCII
	                                 node's property list); default 500,000,000 */
	size_t max_total_array_bytes; /* decoded bytes of all arrays together; default 2 GiB */
} rki_fbx_limits;

/* Property type codes ('type' of rki_fbx_prop). */
enum {
	RKI_FBX_I16 = 'Y', RKI_FBX_BOOL = 'C', RKI_FBX_I32 = 'I', RKI_FBX_F32 = 'F',
	RKI_FBX_F64 = 'D', RKI_FBX_I64 = 'L', RKI_FBX_STRING = 'S', RKI_FBX_RAW = 'R',
	RKI_FBX_ARRAY_F32 = 'f', RKI_FBX_ARRAY_F64 = 'd', RKI_FBX_ARRAY_I64 = 'l',
	RKI_FBX_ARRAY_I32 = 'i', RKI_FBX_ARRAY_BOOL = 'b', RKI_FBX_ARRAY_CHAR = 'c'
};

/* One property value.
 *   type 'Y' 'C' 'I' 'L'  -> v.i (sign-extended; 'C' keeps the stored byte,
 *                            usually 0/1, sometimes 'T'/'Y' in old files)
 *   type 'F' 'D'          -> v.f (a 'F' float widened to double)
 *   type 'S' 'R'          -> v.s: bytes (arena copy, NUL-terminated, may contain NULs)
 *   type 'f' 'd' 'l' 'i' 'b' 'c' -> v.a: count elements of float / double / int64_t /
 *                            int32_t / uint8_t / int8_t in native byte order, arena memory
 *                            (16-byte aligned; a static empty array when count 0).
 * ('c': FbxChar arrays, signed.) ASCII files only produce 'L', 'D', 'S' and 'd'. */
typedef struct rki_fbx_prop {
	char type;
	bool all_integers;  /* ASCII 'd' arrays: every element was written as an integer */
	uint8_t pending;    /* lazy binary array not decoded yet: 1 raw, 2 zlib (v.a.data is
	                       NULL, v.a.count is set); 0 for everything else. Use
	                       rki_fbx_prop_array() or rki_fbx_array_*() to read arrays. */
	uint32_t encoded_size; /* pending arrays: bytes of raw/zlib data after the 12-byte
	                          array header (which follows the type code at `offset`) */
	union {
		int64_t i;
		double f;
		struct { const char *data; size_t len; } s;
		struct { const void *data; size_t count; } a;
	} v;
	uint64_t offset;    /* byte offset of the property (binary: its type code) in the file */
} rki_fbx_prop;

typedef struct rki_fbx_node {
	const char *name;   /* NUL-terminated too; "" for the root */
	size_t name_len;
	rki_fbx_prop *props;
	size_t prop_count;
	struct rki_fbx_node *children;
	size_t child_count;
	struct rki_fbx_node *parent;  /* NULL for the root */
	uint64_t offset;    /* byte offset of the node record (binary) or of its name (ASCII) */
} rki_fbx_node;

/* A parsed file. root.children are the top-level nodes and point back to
 * &doc->root, so do not copy the struct by value after parsing. */
typedef struct rki_fbx_doc {
	uint32_t version;   /* e.g. 7400: FBXHeaderExtension/FBXVersion when present, else
	                       header_version (binary) or the "; FBX 6.1.0 project file"
	                       comment (ASCII), else 0. 5000/5800 binaries say 3000 in
	                       their header but 5000/5800 here. */
	uint32_t header_version; /* binary: the version in the 27-byte header, which selects
	                            32-bit (< 7500) or 64-bit node records; ASCII: 0 */
	bool ascii;
	bool big_endian;    /* binary file stored big-endian (decoded transparently) */
	rki_fbx_node root;
	/* Binary properties with an unknown type code: each one ends its node's
	 * property list (the node keeps the properties before it). Count, and
	 * the code and byte offset of the first. */
	size_t skipped_props;
	char skipped_type;
	uint64_t skipped_offset;
	/* Internal, for pending (lazy) arrays: the input, the document's arena and
	 * the running rki_fbx_decode_start() batch, if any. */
	const unsigned char *input_;
	size_t input_size_;
	rki_arena *arena_;
	struct rki_fbx_decode_batch *batch_;
	struct libdeflate_decompressor **inflater_;   /* rki_fbx_parse_opts.inflater */
} rki_fbx_doc;

typedef struct rki_fbx_decode_batch rki_fbx_decode_batch;

/* Options of rki_fbx_parse_ex(). Zero-initialised = rki_fbx_parse(). */
typedef struct rki_fbx_parse_opts {
	rki_fbx_limits limits;  /* zero fields = defaults */
	bool lazy_arrays;       /* leave binary arrays encoded until first use (see LAZY ARRAYS);
	                           `data` must then outlive every access to the document */
	rki_fbx_decode_batch *batch; /* with lazy_arrays: a batch from rki_fbx_decode_prescan() of
	                           the same data and arena; on success the document takes it over
	                           (its arrays are served by it, see rki_fbx_decode_start). The
	                           caller still finishes it, after the parse on failure too. */
	struct libdeflate_decompressor **inflater; /* with lazy_arrays, optional: the zlib
	                           decompressor pending arrays decoded on access share (on the
	                           thread reading the document). NULL *inflater: allocated at the
	                           first zlib array and stored here; the caller frees it
	                           (libdeflate_free_decompressor) when done with the document.
	                           NULL: each such array allocates and frees its own. */
} rki_fbx_parse_opts;

/* Parses data[0..size). Files starting with the binary magic are read as
 * binary, everything else as ASCII (sniff with rki_fbx_is_fbx() first if the
 * input may be another format). data need not be NUL-terminated.
 * Strings, names, arrays and the tree go into `arena`: the document lives as
 * long as the arena. Temporaries come from `tmp` and are all freed before
 * return, on success and on failure. limits may be NULL (all defaults).
 * On failure returns false, zeroes *doc and fills err: RK_ERROR_TRUNCATED,
 * CORRUPT, LIMIT, OUT_OF_MEMORY or UNSUPPORTED with a message saying what
 * was expected, the byte offset, the line (ASCII) and the node path being
 * parsed ("Objects/Geometry/Vertices"). Partial output stays in the arena
 * until it is freed. err may be NULL. */
bool rki_fbx_parse(rki_fbx_doc *doc, const void *data, size_t size, rki_arena *arena,
	rki_alloc *tmp, const rki_fbx_limits *limits, rk_error *err);

/* rki_fbx_parse() with options (opts may be NULL: defaults, eager arrays). */
bool rki_fbx_parse_ex(rki_fbx_doc *doc, const void *data, size_t size, rki_arena *arena,
	rki_alloc *tmp, const rki_fbx_parse_opts *opts, rk_error *err);

/* True when data starts with the binary magic "Kaydara FBX Binary  \0\x1a",
 * or looks like ASCII FBX: after an optional UTF-8 BOM and whitespace, a ';'
 * comment line containing "FBX", or a first node named FBXHeaderExtension,
 * FBXHeaderVersion or FBXVersion. Reads at most the first 4 KiB. */
bool rki_fbx_is_fbx(const void *data, size_t size);

/* First child of n named `name` (exact bytes, NUL-terminated name), or NULL. */
const rki_fbx_node *rki_fbx_find_child(const rki_fbx_node *n, const char *name);

/* Scalar property i of n with conversion. False if n is NULL, i is out of
 * range or the type does not convert:
 *   _i64: 'Y' 'C' 'I' 'L', and 'F'/'D' holding an integral value in int64 range.
 *   _f64: any numeric scalar.
 *   _str: 'S' and 'R' (data is NUL-terminated; len excludes the NUL). */
bool rki_fbx_prop_i64(const rki_fbx_node *n, size_t i, int64_t *out);
bool rki_fbx_prop_f64(const rki_fbx_node *n, size_t i, double *out);
bool rki_fbx_prop_str(const rki_fbx_node *n, size_t i, const char **data, size_t *len);

/* Array property i of n as double / int32 / int64. Accepts every numeric array
 * type ('f' 'd' 'l' 'i' 'b' 'c', ASCII 'd') and, at i == 0, a node whose
 * properties are all numeric scalars (5800/6100 ASCII lists; see RESTRICTIONS).
 * When the stored type already matches (_f64 of 'd', _i32 of 'i', _i64 of 'l')
 * *out points at the document's own array; otherwise a converted copy is
 * allocated from `ar`. Integer outputs require every value to be integral and
 * in range. On failure returns false and fills err (RK_ERROR_CORRUPT for a
 * missing property, wrong type or unconvertible value; OUT_OF_MEMORY or LIMIT
 * when `ar` fails) with the property's byte offset and the node path.
 * *out and *count are set to NULL/0 on failure. err may be NULL.
 * rki_fbx_array_f64 and _f64_scratch also refuse (RK_ERROR_CORRUPT, "not a
 * finite number") an element that is NaN or infinite (ASCII 1e400, binary
 * NaN bit patterns): positions, normals, UVs, weights and matrices never
 * carry them into a scene. _f64_any_scratch does not: for KeyAttrDataFloat
 * (words that are bit patterns) and KeyValueFloat (the animation reader
 * replaces non-finite keys by 0 with a warning, as documented in fbx_anim.c). */
bool rki_fbx_array_f64(const rki_fbx_node *n, size_t i, rki_arena *ar, const double **out,
	size_t *count, rk_error *err);
bool rki_fbx_array_i32(const rki_fbx_node *n, size_t i, rki_arena *ar, const int32_t **out,
	size_t *count, rk_error *err);
bool rki_fbx_array_i64(const rki_fbx_node *n, size_t i, rki_arena *ar, const int64_t **out,
	size_t *count, rk_error *err);
/* As rki_fbx_array_f64/_i64, for arrays read once: a pending array is
 * decoded into `ar` and stays pending (the document keeps no copy), so the
 * result lives as long as `ar`'s memory (or the document, when the array was
 * already decoded there). */
bool rki_fbx_array_f64_scratch(const rki_fbx_node *n, size_t i, rki_arena *ar, const double **out,
	size_t *count, rk_error *err);
bool rki_fbx_array_i64_scratch(const rki_fbx_node *n, size_t i, rki_arena *ar, const int64_t **out,
	size_t *count, rk_error *err);
bool rki_fbx_array_f64_any_scratch(const rki_fbx_node *n, size_t i, rki_arena *ar, const double **out,
	size_t *count, rk_error *err);

/* Array property i of n in its stored type ('f' 'd' 'l' 'i' 'b' 'c'): *data points
 * at count elements (see rki_fbx_prop), decoding a pending lazy array first
 * (into the document's arena). False with err filled when property i is not
 * an array (RK_ERROR_CORRUPT), or when decoding fails: RK_ERROR_CORRUPT for
 * bad zlib data or a wrong decompressed size, OUT_OF_MEMORY or LIMIT when
 * the arena fails; the location is the property's byte offset and the node
 * path. *data and *count are NULL and 0 on failure. err may be NULL. */
bool rki_fbx_prop_array(const rki_fbx_node *n, size_t i, const void **data, size_t *count, rk_error *err);

/* Decodes now the pending arrays of every node at most max_depth levels below
 * `under` whose name is one of names[0..name_count) (all pending arrays there
 * when names is NULL), on up to `threads` threads including the calling one
 * (0 = one per online core, at most RKI_FBX_MAX_THREADS; helper threads are
 * started only when there are enough bytes to share, and joined before
 * return). Output buffers are allocated from the document's arena on the
 * calling thread, in tree order, so the result does not depend on the thread
 * count. Best effort: an array that cannot be decoded (bad data, no memory)
 * stays pending and its accessor reports the error when it is read. The job
 * list comes from `tmp` and is freed before return. Returns the number of
 * arrays decoded. Not on a document other threads are reading. */
size_t rki_fbx_decode_arrays(const rki_fbx_node *under, const char *const *names, size_t name_count,
	size_t max_depth, size_t threads, rki_alloc *tmp);

/* rki_fbx_decode_arrays() in two halves, so the caller keeps working while
 * helper threads decode: _start() allocates the buffers, starts threads - 1
 * helpers (largest arrays first) and returns at once; _finish() decodes what
 * is left on the calling thread, joins the helpers, publishes the results
 * (pending = 0) and frees the batch, returning the number of arrays decoded.
 * In between, the calling thread uses the document as usual (reads, arena
 * allocations; helpers only write into their own buffers and never touch the
 * document). Reading an array of the batch (rki_fbx_array_*, rki_fbx_prop_array)
 * does not decode it a second time: the reader decodes it itself if no helper
 * has started it, else helps with other queued arrays and then waits for it.
 * One batch per document at a time; only the thread that started it may use
 * the document until it is finished. Every non-NULL batch must be finished
 * exactly once, on error paths too, before the document or its input goes
 * away. _start() returns NULL when there is nothing to do, another batch is
 * running or memory is short (then _finish(NULL) returns 0). */
rki_fbx_decode_batch *rki_fbx_decode_start(const rki_fbx_node *under, const char *const *names, size_t name_count,
	size_t max_depth, size_t threads, rki_alloc *tmp);
size_t rki_fbx_decode_finish(rki_fbx_decode_batch *batch);

/* A batch started before the parse, straight from binary input: walks the node
 * records below the top-level node named `under` (max_depth levels, at most 16;
 * with `containers` non-NULL only below its children named in
 * containers[0..container_count), other subtrees are skipped unread)
 * and queues the arrays of nodes named in names[0..name_count), with the
 * checks the parse makes (array header inside the property list, element and
 * total-byte limits from `limits` (NULL = defaults), raw size, deflate ratio);
 * anything malformed is skipped and left to the parse to report. Buffers come
 * from `arena`, which must be the arena the parse then uses. Pass the batch as
 * rki_fbx_parse_opts.batch to a lazy parse of the same data: the parse ties
 * each pending array to its job, and the helpers decode while the tree is
 * being built. NULL when the input is not binary FBX or nothing is listed. The
 * batch must be finished (rki_fbx_decode_finish) before `data` or `arena` go
 * away, also when the parse fails. Also NULL when fewer than two threads would
 * decode (threads == 1, one core, or less than 256 KiB listed): lazy decoding
 * on access is then just as fast. */
rki_fbx_decode_batch *rki_fbx_decode_prescan(const void *data, size_t size, const char *under,
	const char *const *containers, size_t container_count, const char *const *names, size_t name_count,
	size_t max_depth, size_t threads, const rki_fbx_limits *limits, rki_arena *arena, rki_alloc *tmp);

/* Writes the node path "Objects/Geometry/Vertices" (root excluded) into buf,
 * always NUL-terminated when cap > 0. A path that does not fit keeps its end
 * and starts with "...". Name bytes below 0x20 are written as '?'. */
void rki_fbx_node_path(const rki_fbx_node *n, char *buf, size_t cap);

/* Strips an FBX class prefix ("Model::x" or binary "x\0\1Model") and
 * returns the plain name in the arena. */
const char *rki_fbx_plain_name(rki_arena *ar, const char *s, size_t len);

#endif
