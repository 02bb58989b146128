/*
 * src/formats/fbx/fbx_dom_private.h - shared by the files of the FBX document
 * parser only (fbx_dom*.c); everything else uses fbx_dom.h, the one API of
 * the DOM.
 *
 * FILES AND CALL GRAPH (an arrow means "calls"; no file calls one above it)
 *
 *   fbx_dom.c         entry points: rki_fbx_parse(_ex) picks the tokenizer,
 *                     then the version; rki_fbx_is_fbx
 *     -> fbx_dom_binary, fbx_dom_ascii, fbx_dom_arrays, fbx_dom_values, fbx_dom_tree
 *   fbx_dom_binary.c  binary tokenizer: node records, typed properties, arrays
 *                     (decoded at once, or left pending and tied to a batch)
 *     -> fbx_dom_arrays, fbx_dom_tree
 *   fbx_dom_ascii.c   ASCII tokenizer: comments, numbers, strings, 7.x arrays
 *     -> fbx_dom_arrays, fbx_dom_tree
 *   fbx_dom_values.c  value conversion: rki_fbx_prop_*, rki_fbx_array_*,
 *                     rki_fbx_prop_array (decoding pending arrays on access)
 *     -> fbx_dom_arrays, fbx_dom_tree
 *   fbx_dom_arrays.c  array decoding: one array (raw/zlib, byte order), batches
 *                     on helper threads (rki_fbx_decode_*), the binary pre-scan
 *     -> fbx_dom_tree
 *   fbx_dom_tree.c    the node tree: frame stack of open nodes, parse errors,
 *                     node paths, rki_fbx_find_child, rki_fbx_plain_name
 *
 * The small per-node helpers below are static inline: both tokenizers call
 * them once or more per node.
 */
#ifndef RIGKIT_FBX_DOM_PRIVATE_H
#define RIGKIT_FBX_DOM_PRIVATE_H

#include "formats/fbx/fbx_dom.h"

#include <string.h>

/* "Kaydara FBX Binary  \0" then 0x1A; byte 22 is the big-endian flag, then u32 version. */
static const unsigned char rki_fbx_magic[22] = {
	'K', 'a', 'y', 'd', 'a', 'r', 'a', ' ', 'F', 'B', 'X', ' ',
	'B', 'i', 'n', 'a', 'r', 'y', ' ', ' ', 0x00, 0x1a
};
#define RKI_FBX_HEADER_SIZE 27u

/* Deflate cannot expand one input byte to more than ~1032 output bytes. */
#define RKI_FBX_MAX_INFLATE_RATIO 1032u

/* Binary array header after the type code: count, encoding, encoded size. */
#define RKI_FBX_ARRAY_HEADER 12u

/* Element of a zero-length array, so data is never NULL; also its zero pad
 * (fbx_dom_tree.c). */
extern const uint64_t rki_fbx_empty_array[RKI_FBX_ARRAY_PAD / 8];

typedef struct rki_fbx_frame {
	rki_fbx_node node;   /* the open node (props set, children pending) */
	uint64_t end;        /* binary: offset where its record ends */
	size_t child_start;  /* index in parser.nodes of its first finished child */
} rki_fbx_frame;

typedef struct rki_fbx_parser {
	const unsigned char *data;
	size_t size;
	size_t pos;
	rki_fbx_doc *doc;
	rki_arena *arena;
	rki_alloc *tmp;
	rk_error *err;
	rki_fbx_limits lim;
	bool ascii;
	bool big_endian;
	bool wide;              /* 64-bit node records (version >= 7500) */
	bool lazy;              /* leave binary arrays pending (rki_fbx_parse_opts.lazy_arrays) */
	struct rki_fbx_decode_batch *batch;  /* rki_fbx_parse_opts.batch: pending arrays are tied to its jobs */
	size_t node_count;
	uint64_t array_bytes;   /* decoded array bytes so far */
	const char *cur_name;   /* node whose header/properties are being read */
	size_t cur_name_len;
	rki_buf frames;         /* rki_fbx_frame stack, frames[0] = root */
	rki_buf nodes;          /* finished nodes waiting for their parent to close */
	rki_buf props;          /* ASCII: properties of the node being read */
	struct libdeflate_decompressor *inflater;
	char *str_at;           /* string pool (rki_fbx_strdup): next free byte of the */
	size_t str_left;        /* current arena block and the bytes left in it */
	size_t str_block;       /* size of the next block */
} rki_fbx_parser;

/* ---- fbx_dom_tree.c: parse errors and the frame stack --------------------------- */

/* Records a parse error in p->err (replacing any) at byte `offset`, with the line
 * (ASCII) and the path of the node being parsed; returns false. */
bool rki_fbx_parse_error(rki_fbx_parser *p, rk_error_code code, uint64_t offset, const char *fmt, ...)
	RKI_PRINTF(4, 5);
/* Out of memory, or the memory limit, while parsing; returns false. */
bool rki_fbx_parse_oom(rki_fbx_parser *p);

/* Opens `node` (its properties read) as the innermost frame; its children
 * follow. `end`: binary, the offset where its record ends; ASCII 0. */
bool rki_fbx_open(rki_fbx_parser *p, const rki_fbx_node *node, uint64_t end);
/* Closes the innermost frame: its finished children become one arena array
 * and the node itself is finished (the root: doc->root). */
bool rki_fbx_close(rki_fbx_parser *p);
/* Opens the root frame (name "", ends at the end of the input). */
bool rki_fbx_open_root(rki_fbx_parser *p);

/* The document a node belongs to: its root is doc->root. */
rki_fbx_doc *rki_fbx_doc_of(const rki_fbx_node *n);

/* ---- the tokenizers (fbx_dom_binary.c, fbx_dom_ascii.c) ------------------------- */

/* Parse p->data as binary (the magic checked by the caller) or ASCII FBX into
 * p->doc; false with p->err set on failure. */
bool rki_fbx_parse_binary(rki_fbx_parser *p);
bool rki_fbx_parse_ascii(rki_fbx_parser *p);

/* ---- fbx_dom_arrays.c: decoding arrays ------------------------------------------ */

typedef enum rki_fbx_decode_result {
	RKI_FBX_DECODE_OK,
	RKI_FBX_DECODE_TOO_BIG,   /* inflates to more than the declared size */
	RKI_FBX_DECODE_INVALID,   /* invalid zlib data */
	RKI_FBX_DECODE_SHORT      /* inflates to fewer bytes than declared */
} rki_fbx_decode_result;

/* Bytes to allocate for a decoded array of `bytes` bytes: f64 arrays carry the zero pad. */
bool rki_fbx_array_alloc_size(char type, uint64_t bytes, size_t *out);

/* Decodes an array's encoded data src[0..clen) (raw when inflater is NULL) into
 * out[0..bytes), clears out[bytes..alloc) and converts the byte order when
 * `swap`. Touches nothing but its arguments: safe on worker threads. */
rki_fbx_decode_result rki_fbx_decode_array(struct libdeflate_decompressor *inflater,
	const unsigned char *src, size_t clen, void *out, size_t bytes, size_t alloc, size_t esize, bool swap,
	size_t *got, int *lib_result);

/* The message of a failed rki_fbx_decode_array(), the same at parse time and on access. */
void rki_fbx_decode_message(char *buf, size_t cap, rki_fbx_decode_result r, int lib_result, size_t got,
	size_t count, size_t esize);

/* Parser hook: a pending array property just read; ties it to its job when the
 * job describes the same array (it was read from the same bytes). */
void rki_fbx_batch_link(rki_fbx_decode_batch *b, rki_fbx_prop *pr);
/* Parse hook: the document serves its pending arrays from the batch from now on. */
void rki_fbx_batch_attach(rki_fbx_decode_batch *b, rki_fbx_doc *doc);
/* Accessor hook: a pending property of the document's batch is waited for
 * instead of decoded again. False when it is not in the batch or its job
 * failed (then the caller decodes it, reporting the error). */
bool rki_fbx_batch_take(rki_fbx_doc *doc, const rki_fbx_prop *pr);

/* ---- small helpers ----------------------------------------------------------------- */

/* Slow path of rki_fbx_strdup (fbx_dom_tree.c): a new pool block, or a string of its own. */
const char *rki_fbx_strdup_block(rki_fbx_parser *p, const char *s, size_t len);

/* Copy of a string or name in the arena (packed, NUL-terminated); "" is
 * shared. Names and strings are copied into blocks of the arena the parser
 * fills one after the other, so most copies are a memcpy and a store. */
static inline const char *rki_fbx_strdup(rki_fbx_parser *p, const char *s, size_t len)
{
	if (!len) return "";
	if (len >= p->str_left) return rki_fbx_strdup_block(p, s, len);
	char *d = p->str_at;
	/* s lies in p->data. Most names and strings are short: two fixed 8-byte
	 * moves when 16 bytes can be read there and written here (the bytes past
	 * the NUL are pool space the next string overwrites) instead of a call. */
	if (len <= 16 && p->str_left > 16 && p->size - (size_t)((const unsigned char *)s - p->data) >= 16) {
		memcpy(d, s, 8);
		memcpy(d + 8, s + 8, 8);
	} else {
		memcpy(d, s, len);
	}
	d[len] = '\0';
	p->str_at += len + 1;
	p->str_left -= len + 1;
	return d;
}

static inline bool rki_fbx_host_little_endian(void)
{
	const uint16_t one = 1;
	unsigned char b;
	memcpy(&b, &one, 1);
	return b == 1;
}

static inline size_t rki_fbx_array_elem_size(char type)
{
	switch (type) {
	case 'f': case 'i': return 4;
	case 'd': case 'l': return 8;
	case 'b': case 'c': return 1;
	default: return 0;
	}
}

static inline size_t rki_fbx_frame_count(const rki_fbx_parser *p)
{
	return p->frames.size / sizeof(rki_fbx_frame);
}

static inline rki_fbx_frame *rki_fbx_top(rki_fbx_parser *p)
{
	return (rki_fbx_frame *)(void *)(p->frames.data + p->frames.size - sizeof(rki_fbx_frame));
}

/* rki_buf_push() of one element, inline while the buffer has room. */
static inline bool rki_fbx_push(rki_buf *b, const void *elem, size_t size)
{
	if (b->cap - b->size < size) return rki_buf_push(b, elem, size);
	memcpy(b->data + b->size, elem, size);
	b->size += size;
	return true;
}

/* A node without children is finished right away. */
static inline bool rki_fbx_add_leaf(rki_fbx_parser *p, const rki_fbx_node *node)
{
	if (!rki_fbx_push(&p->nodes, node, sizeof(*node))) return rki_fbx_parse_oom(p);
	return true;
}

/* Counts a new node at depth frame_count and checks the node and depth limits. */
static inline bool rki_fbx_begin_node(rki_fbx_parser *p, uint64_t offset)
{
	size_t depth = rki_fbx_frame_count(p);
	if (depth > p->lim.max_depth)
		return rki_fbx_parse_error(p, RK_ERROR_LIMIT, offset, "nodes nested deeper than the limit of %zu levels",
			p->lim.max_depth);
	if (p->node_count >= p->lim.max_nodes)
		return rki_fbx_parse_error(p, RK_ERROR_LIMIT, offset, "more than the limit of %zu nodes", p->lim.max_nodes);
	p->node_count++;
	return true;
}

#endif
