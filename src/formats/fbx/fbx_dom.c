/*
 * src/formats/fbx/fbx_dom.c - FBX bytes -> node tree, binary and ASCII (see fbx_dom.h).
 *
 * Both parsers walk the file with an explicit stack of open nodes ("frames")
 * instead of recursion. A finished node is pushed on a temporary stack of
 * nodes; when its parent closes, the parent's children are copied from the top
 * of that stack into one arena array, and the grandchildren's parent pointers
 * are pointed at their final place. So every node is copied twice and there is
 * no per-node malloc.
 *
 * Binary arrays are decoded by rki_fbx_decode_array() into a buffer allocated
 * beforehand: at parse time (eager), on first access (lazy: the property keeps
 * its offset and encoded size, the input stays with the document), or by
 * worker threads in rki_fbx_decode_arrays(), which only inflate into buffers
 * the calling thread allocated and touch nothing shared.
 */
#include "formats/fbx/fbx_dom.h"

#include "core/thread.h"

#include <libdeflate.h>
#include <locale.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* "Kaydara FBX Binary  \0" then 0x1A; byte 22 is the big-endian flag, then u32 version. */
static const unsigned char rki_fbx_magic[22] = {
	'K', 'a', 'y', 'd', 'a', 'r', 'a', ' ', 'F', 'B', 'X', ' ',
	'B', 'i', 'n', 'a', 'r', 'y', ' ', ' ', 0x00, 0x1a
};
#define RKI_FBX_HEADER_SIZE 27u

/* Last 16 bytes of every binary file written by the FBX SDK and by Blender. */
static const unsigned char rki_fbx_footer_magic[16] = {
	0xf8, 0x5a, 0x8c, 0x6a, 0xde, 0xf5, 0xd9, 0x7e,
	0xec, 0xe9, 0x0c, 0xe3, 0x75, 0x8f, 0x29, 0x0b
};

/* Deflate cannot expand one input byte to more than ~1032 output bytes. */
#define RKI_FBX_MAX_INFLATE_RATIO 1032u

/* Longest ASCII number token handed to strtod(). */
#define RKI_FBX_MAX_NUMBER_LEN 200u

/* Element of a zero-length array, so data is never NULL; also its zero pad. */
static const uint64_t rki_fbx_empty_array[RKI_FBX_ARRAY_PAD / 8] = { 0 };

/* Copy of a string or name in the arena (packed, NUL-terminated); "" is shared. */
static const char *rki_fbx_strdup(rki_arena *ar, const char *s, size_t len)
{
	return len ? rki_arena_strndup(ar, s, len) : "";
}

/* Binary array header after the type code: count, encoding, encoded size. */
#define RKI_FBX_ARRAY_HEADER 12u

/* rki_fbx_decode_arrays(): each helper thread should get at least this many decoded bytes. */
#define RKI_FBX_THREAD_MIN_BYTES ((uint64_t)256 << 10)

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
	uint64_t line;          /* ASCII: current 1-based line */
	size_t node_count;
	uint64_t array_bytes;   /* decoded array bytes so far */
	const char *cur_name;   /* node whose header/properties are being read */
	size_t cur_name_len;
	rki_buf frames;         /* rki_fbx_frame stack, frames[0] = root */
	rki_buf nodes;          /* finished nodes waiting for their parent to close */
	rki_buf props;          /* ASCII: properties of the node being read */
	struct libdeflate_decompressor *inflater;
} rki_fbx_parser;

/* ---- node paths ----------------------------------------------------------- */

/* Writes a path backwards (last name first) keeping its tail when it is too long. */
typedef struct rki_fbx_path_writer {
	char *buf;
	size_t cap;
	size_t total;   /* full path length */
	size_t skip;    /* leading path bytes dropped (replaced by "...") */
	size_t at;      /* virtual position, counts down from total */
} rki_fbx_path_writer;

static void rki_fbx_pw_init(rki_fbx_path_writer *w, char *buf, size_t cap, size_t total)
{
	w->buf = buf;
	w->cap = cap;
	w->total = total;
	w->at = total;
	w->skip = 0;
	if (total >= cap) w->skip = cap >= 4 ? total - (cap - 1) + 3 : total;
}

static void rki_fbx_pw_put(rki_fbx_path_writer *w, char c)
{
	w->at--;
	if (w->at < w->skip) return;
	size_t prefix = w->skip ? 3 : 0;
	w->buf[prefix + (w->at - w->skip)] = (unsigned char)c < 0x20 ? '?' : c;
}

static void rki_fbx_pw_name(rki_fbx_path_writer *w, const char *name, size_t len, bool slash)
{
	for (size_t i = len; i > 0; i--) rki_fbx_pw_put(w, name[i - 1]);
	if (slash) rki_fbx_pw_put(w, '/');
}

static void rki_fbx_pw_finish(rki_fbx_path_writer *w)
{
	if (w->cap == 0) return;
	if (w->skip >= w->total && w->total >= w->cap) {
		w->buf[0] = '\0';   /* cap < 4: nothing useful fits */
		return;
	}
	size_t prefix = w->skip ? 3 : 0;
	if (w->skip) memcpy(w->buf, "...", 3);
	w->buf[prefix + (w->total - w->skip)] = '\0';
}

void rki_fbx_node_path(const rki_fbx_node *n, char *buf, size_t cap)
{
	if (!buf || cap == 0) return;
	size_t total = 0;
	for (const rki_fbx_node *m = n; m && m->parent; m = m->parent)
		total += m->name_len + (m->parent->parent ? 1 : 0);
	rki_fbx_path_writer w;
	rki_fbx_pw_init(&w, buf, cap, total);
	for (const rki_fbx_node *m = n; m && m->parent; m = m->parent)
		rki_fbx_pw_name(&w, m->name, m->name_len, m->parent->parent != NULL);
	rki_fbx_pw_finish(&w);
}

/* Path of the node being parsed: the open frames (root excluded) plus cur_name. */
static void rki_fbx_parser_path(const rki_fbx_parser *p, char *buf, size_t cap)
{
	const rki_fbx_frame *frames = (const rki_fbx_frame *)(const void *)p->frames.data;
	size_t nf = p->frames.size / sizeof(rki_fbx_frame);
	size_t total = 0, parts = 0;
	for (size_t i = 1; i < nf; i++, parts++) total += frames[i].node.name_len;
	if (p->cur_name) {
		total += p->cur_name_len;
		parts++;
	}
	if (parts > 1) total += parts - 1;
	rki_fbx_path_writer w;
	rki_fbx_pw_init(&w, buf, cap, total);
	if (p->cur_name) rki_fbx_pw_name(&w, p->cur_name, p->cur_name_len, nf > 1);
	for (size_t i = nf; i-- > 1;) rki_fbx_pw_name(&w, frames[i].node.name, frames[i].node.name_len, i > 1);
	rki_fbx_pw_finish(&w);
}

/* ---- errors ----------------------------------------------------------------- */

/* Records a parse error in p->err (replacing any) at byte `offset`, with the line
 * (ASCII) and the path of the node being parsed; returns false. */
static bool rki_fbx_parse_error(rki_fbx_parser *p, rk_error_code code, uint64_t offset, const char *fmt, ...)
	RKI_PRINTF(4, 5);

static bool rki_fbx_parse_error(rki_fbx_parser *p, rk_error_code code, uint64_t offset, const char *fmt, ...)
{
	if (!p->err) return false;
	va_list ap;
	va_start(ap, fmt);
	rki_error_setv(p->err, code, fmt, ap);
	va_end(ap);
	rki_error_at_byte(p->err, offset);
	if (p->ascii) rki_error_at_line(p->err, p->line);
	char path[RK_ERROR_TEXT_MAX];
	rki_fbx_parser_path(p, path, sizeof(path));
	if (path[0]) rki_error_at_path(p->err, RK_LOCATION_FBX_NODE, path);
	return false;
}

/* Out of memory, or the memory limit, while parsing; returns false. */
static bool rki_fbx_parse_oom(rki_fbx_parser *p)
{
	bool limit = p->tmp->limit_hit || (p->arena->alloc && p->arena->alloc->limit_hit);
	return rki_fbx_parse_error(p, limit ? RK_ERROR_LIMIT : RK_ERROR_OUT_OF_MEMORY, p->pos,
		limit ? "memory limit reached while parsing" : "out of memory while parsing");
}

/* ---- tree building (shared) --------------------------------------------------- */

static size_t rki_fbx_frame_count(const rki_fbx_parser *p)
{
	return p->frames.size / sizeof(rki_fbx_frame);
}

static rki_fbx_frame *rki_fbx_top(rki_fbx_parser *p)
{
	return (rki_fbx_frame *)(void *)(p->frames.data + p->frames.size - sizeof(rki_fbx_frame));
}

/* Counts a new node at depth frame_count and checks the node and depth limits. */
static bool rki_fbx_begin_node(rki_fbx_parser *p, uint64_t offset)
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

static bool rki_fbx_open(rki_fbx_parser *p, const rki_fbx_node *node, uint64_t end)
{
	rki_fbx_frame f;
	memset(&f, 0, sizeof(f));
	f.node = *node;
	f.end = end;
	f.child_start = p->nodes.size / sizeof(rki_fbx_node);
	if (!rki_buf_push(&p->frames, &f, sizeof(f))) return rki_fbx_parse_oom(p);
	return true;
}

/* A node without children is finished right away. */
static bool rki_fbx_add_leaf(rki_fbx_parser *p, const rki_fbx_node *node)
{
	if (!rki_buf_push(&p->nodes, node, sizeof(*node))) return rki_fbx_parse_oom(p);
	return true;
}

/* Closes the top frame: its finished children move into one arena array. */
static bool rki_fbx_close(rki_fbx_parser *p)
{
	size_t nf = rki_fbx_frame_count(p);
	rki_fbx_frame *f = rki_fbx_top(p);
	size_t nn = p->nodes.size / sizeof(rki_fbx_node);
	size_t n = nn - f->child_start;
	rki_fbx_node *kids = NULL;
	if (n > 0) {
		kids = (rki_fbx_node *)rki_arena_alloc_uninit(p->arena, n * sizeof(*kids));  /* n nodes fit in tmp */
		if (!kids) return rki_fbx_parse_oom(p);
		memcpy(kids, (rki_fbx_node *)(void *)p->nodes.data + f->child_start, n * sizeof(*kids));
		for (size_t i = 0; i < n; i++)
			for (size_t j = 0; j < kids[i].child_count; j++) kids[i].children[j].parent = &kids[i];
	}
	rki_fbx_node done = f->node;
	done.children = kids;
	done.child_count = n;
	p->nodes.size -= n * sizeof(*kids);
	p->frames.size -= sizeof(*f);
	if (nf == 1) {
		rki_fbx_node *root = &p->doc->root;
		*root = done;
		root->parent = NULL;
		for (size_t j = 0; j < root->child_count; j++) root->children[j].parent = root;
		return true;
	}
	return rki_fbx_add_leaf(p, &done);
}

static bool rki_fbx_open_root(rki_fbx_parser *p)
{
	rki_fbx_node root;
	memset(&root, 0, sizeof(root));
	root.name = "";
	return rki_fbx_open(p, &root, p->size);
}

/* ---- binary ------------------------------------------------------------------- */

static bool rki_fbx_host_little_endian(void)
{
	const uint16_t one = 1;
	unsigned char b;
	memcpy(&b, &one, 1);
	return b == 1;
}

static uint16_t rki_fbx_rd16(const rki_fbx_parser *p, const unsigned char *b)
{
	return p->big_endian ? (uint16_t)((unsigned)b[0] << 8 | b[1]) : (uint16_t)((unsigned)b[1] << 8 | b[0]);
}

static uint32_t rki_fbx_rd32(const rki_fbx_parser *p, const unsigned char *b)
{
	if (p->big_endian)
		return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | (uint32_t)b[3];
	return (uint32_t)b[3] << 24 | (uint32_t)b[2] << 16 | (uint32_t)b[1] << 8 | (uint32_t)b[0];
}

static uint64_t rki_fbx_rd64(const rki_fbx_parser *p, const unsigned char *b)
{
	uint64_t lo = rki_fbx_rd32(p, b), hi = rki_fbx_rd32(p, b + 4);
	return p->big_endian ? (lo << 32 | hi) : (hi << 32 | lo);
}

static void rki_fbx_swap_elems(void *data, size_t count, size_t esize)
{
	unsigned char *b = (unsigned char *)data;
	for (size_t i = 0; i < count; i++, b += esize) {
		for (size_t j = 0; j < esize / 2; j++) {
			unsigned char t = b[j];
			b[j] = b[esize - 1 - j];
			b[esize - 1 - j] = t;
		}
	}
}

static size_t rki_fbx_array_elem_size(char type)
{
	switch (type) {
	case 'f': case 'i': return 4;
	case 'd': case 'l': return 8;
	case 'b': return 1;
	default: return 0;
	}
}

/* ---- array decoding (parse time, first access and worker threads) ------------- */

struct rki_fbx_decode_batch;
static void rki_fbx_batch_link(struct rki_fbx_decode_batch *b, rki_fbx_prop *pr);
static void rki_fbx_batch_attach(struct rki_fbx_decode_batch *b, rki_fbx_doc *doc);

typedef enum rki_fbx_decode_result {
	RKI_FBX_DECODE_OK,
	RKI_FBX_DECODE_TOO_BIG,   /* inflates to more than the declared size */
	RKI_FBX_DECODE_INVALID,   /* invalid zlib data */
	RKI_FBX_DECODE_SHORT      /* inflates to fewer bytes than declared */
} rki_fbx_decode_result;

/* Bytes to allocate for a decoded array of `bytes` bytes: f64 arrays carry the zero pad. */
static bool rki_fbx_array_alloc_size(char type, uint64_t bytes, size_t *out)
{
	uint64_t pad = type == 'd' ? RKI_FBX_ARRAY_PAD : 0;
	if (bytes > (uint64_t)SIZE_MAX - pad) return false;
	*out = (size_t)(bytes + pad);
	return true;
}

/* Decodes an array's encoded data src[0..clen) (raw when inflater is NULL) into
 * out[0..bytes), clears out[bytes..alloc) and converts the byte order when
 * `swap`. Touches nothing but its arguments: safe on worker threads. */
static rki_fbx_decode_result rki_fbx_decode_array(struct libdeflate_decompressor *inflater,
	const unsigned char *src, size_t clen, void *out, size_t bytes, size_t alloc, size_t esize, bool swap,
	size_t *got, int *lib_result)
{
	*got = 0;
	*lib_result = 0;
	if (!inflater) {
		memcpy(out, src, bytes);   /* raw: clen == bytes, checked when parsing */
	} else {
		enum libdeflate_result r = libdeflate_zlib_decompress(inflater, src, clen, out, bytes, got);
		*lib_result = (int)r;
		if (r == LIBDEFLATE_INSUFFICIENT_SPACE) return RKI_FBX_DECODE_TOO_BIG;
		if (r != LIBDEFLATE_SUCCESS) return RKI_FBX_DECODE_INVALID;
		if (*got != bytes) return RKI_FBX_DECODE_SHORT;
	}
	if (alloc > bytes) memset((unsigned char *)out + bytes, 0, alloc - bytes);
	if (swap && esize > 1) rki_fbx_swap_elems(out, bytes / esize, esize);
	return RKI_FBX_DECODE_OK;
}

/* The message of a failed rki_fbx_decode_array(), the same at parse time and on access. */
static void rki_fbx_decode_message(char *buf, size_t cap, rki_fbx_decode_result r, int lib_result, size_t got,
	size_t count, size_t esize)
{
	unsigned long long bytes = (unsigned long long)count * esize;
	switch (r) {
	case RKI_FBX_DECODE_TOO_BIG:
		snprintf(buf, cap, "zlib array inflates to more than the declared %zu elements (%llu bytes)", count, bytes);
		break;
	case RKI_FBX_DECODE_INVALID:
		snprintf(buf, cap, "invalid zlib data in array of %zu elements (libdeflate result %d)", count, lib_result);
		break;
	default:
		snprintf(buf, cap, "zlib array inflates to %zu bytes, expected %zu elements * %zu bytes = %llu", got, count,
			esize, bytes);
		break;
	}
}

/* Array property body at p->pos (type code already read); pend = end of the property list. */
static bool rki_fbx_binary_array(rki_fbx_parser *p, rki_fbx_prop *pr, size_t pend)
{
	size_t esize = rki_fbx_array_elem_size(pr->type);
	if (pend - p->pos < RKI_FBX_ARRAY_HEADER)
		return rki_fbx_parse_error(p, RK_ERROR_CORRUPT, p->pos,
			"expected a 12-byte array header, only %zu bytes remain in the property list", pend - p->pos);
	const unsigned char *h = p->data + p->pos;
	uint32_t count = rki_fbx_rd32(p, h), encoding = rki_fbx_rd32(p, h + 4), clen = rki_fbx_rd32(p, h + 8);
	p->pos += RKI_FBX_ARRAY_HEADER;
	if (clen > pend - p->pos)
		return rki_fbx_parse_error(p, RK_ERROR_CORRUPT, pr->offset,
			"array data of %u bytes runs past the end of the property list (%zu bytes remain)",
			(unsigned)clen, pend - p->pos);
	if (count > p->lim.max_array_elems)
		return rki_fbx_parse_error(p, RK_ERROR_LIMIT, pr->offset, "array of %u elements is over the limit of %zu",
			(unsigned)count, p->lim.max_array_elems);
	uint64_t bytes = (uint64_t)count * esize;
	if (bytes > (uint64_t)p->lim.max_total_array_bytes - p->array_bytes)
		return rki_fbx_parse_error(p, RK_ERROR_LIMIT, pr->offset,
			"arrays decode to more than the limit of %zu bytes in total", p->lim.max_total_array_bytes);
	if (encoding == 0) {
		if (bytes != clen)
			return rki_fbx_parse_error(p, RK_ERROR_CORRUPT, pr->offset,
				"raw array of %u elements of %zu bytes needs %llu bytes, but declares %u",
				(unsigned)count, esize, (unsigned long long)bytes, (unsigned)clen);
	} else if (encoding == 1) {
		if (bytes > (uint64_t)clen * RKI_FBX_MAX_INFLATE_RATIO + 1024)
			return rki_fbx_parse_error(p, RK_ERROR_CORRUPT, pr->offset,
				"zlib array claims %u elements (%llu bytes) from only %u compressed bytes",
				(unsigned)count, (unsigned long long)bytes, (unsigned)clen);
	} else {
		return rki_fbx_parse_error(p, RK_ERROR_CORRUPT, pr->offset,
			"unknown array encoding %u (expected 0 = raw or 1 = zlib)", (unsigned)encoding);
	}
	p->array_bytes += bytes;
	pr->v.a.count = count;
	if (count == 0) {
		pr->v.a.data = rki_fbx_empty_array;
		p->pos += clen;
		return true;
	}
	if (p->lazy) {
		pr->v.a.data = NULL;
		pr->pending = (uint8_t)(encoding + 1);
		pr->encoded_size = clen;
		if (p->batch) rki_fbx_batch_link(p->batch, pr);
		p->pos += clen;
		return true;
	}
	size_t alloc;
	void *out = rki_fbx_array_alloc_size(pr->type, bytes, &alloc) ? rki_arena_alloc_uninit(p->arena, alloc) : NULL;
	if (!out) return rki_fbx_parse_oom(p);
	if (encoding == 1 && !p->inflater) {
		p->inflater = libdeflate_alloc_decompressor();
		if (!p->inflater) return rki_fbx_parse_error(p, RK_ERROR_OUT_OF_MEMORY, p->pos, "cannot allocate the zlib decompressor");
	}
	size_t got;
	int lib_result;
	rki_fbx_decode_result r = rki_fbx_decode_array(encoding == 1 ? p->inflater : NULL, p->data + p->pos, clen, out,
		(size_t)bytes, alloc, esize, p->big_endian == rki_fbx_host_little_endian(), &got, &lib_result);
	if (r != RKI_FBX_DECODE_OK) {
		char msg[RK_ERROR_TEXT_MAX];
		rki_fbx_decode_message(msg, sizeof(msg), r, lib_result, got, count, esize);
		return rki_fbx_parse_error(p, RK_ERROR_CORRUPT, pr->offset, "%s", msg);
	}
	pr->v.a.data = out;
	p->pos += clen;
	return true;
}

static bool rki_fbx_binary_props(rki_fbx_parser *p, rki_fbx_node *node, uint64_t nprops, size_t pend)
{
	node->props = NULL;
	node->prop_count = 0;
	if (nprops == 0) return true;
	/* nprops <= the property list length (checked), which is inside the file. */
	rki_fbx_prop *props = (rki_fbx_prop *)rki_arena_array(p->arena, (size_t)nprops, sizeof(*props));
	if (!props) return rki_fbx_parse_oom(p);
	node->props = props;
	node->prop_count = (size_t)nprops;
	const unsigned char *d = p->data;
	for (size_t i = 0; i < (size_t)nprops; i++) {
		rki_fbx_prop *pr = &props[i];
		if (p->pos >= pend)
			return rki_fbx_parse_error(p, RK_ERROR_CORRUPT, p->pos,
				"expected property %zu of %llu, but the property list ended", i + 1,
				(unsigned long long)nprops);
		pr->offset = p->pos;
		pr->type = (char)d[p->pos++];
		size_t left = pend - p->pos, need = 0;
		switch (pr->type) {
		case 'Y': need = 2; break;
		case 'C': need = 1; break;
		case 'I': case 'F': case 'S': case 'R': need = 4; break;
		case 'D': case 'L': need = 8; break;
		case 'f': case 'd': case 'l': case 'i': case 'b':
			if (!rki_fbx_binary_array(p, pr, pend)) return false;
			continue;
		default:
			return rki_fbx_parse_error(p, RK_ERROR_CORRUPT, pr->offset,
				"unknown property type code 0x%02x (expected one of Y C I F D L S R f d l i b)",
				(unsigned)(unsigned char)pr->type);
		}
		if (left < need)
			return rki_fbx_parse_error(p, RK_ERROR_CORRUPT, pr->offset,
				"property of type '%c' needs %zu bytes, only %zu remain in the property list", pr->type, need,
				left);
		const unsigned char *b = d + p->pos;
		p->pos += need;
		switch (pr->type) {
		case 'Y': pr->v.i = (int16_t)rki_fbx_rd16(p, b); break;
		case 'C': pr->v.i = b[0]; break;
		case 'I': pr->v.i = (int32_t)rki_fbx_rd32(p, b); break;
		case 'L': pr->v.i = (int64_t)rki_fbx_rd64(p, b); break;
		case 'F': {
			uint32_t bits = rki_fbx_rd32(p, b);
			float f;
			memcpy(&f, &bits, 4);
			pr->v.f = f;
			break;
		}
		case 'D': {
			uint64_t bits = rki_fbx_rd64(p, b);
			memcpy(&pr->v.f, &bits, 8);
			break;
		}
		default: { /* 'S', 'R' */
			uint32_t len = rki_fbx_rd32(p, b);
			if (len > pend - p->pos)
				return rki_fbx_parse_error(p, RK_ERROR_CORRUPT, pr->offset,
					"string of %u bytes runs past the end of the property list (%zu bytes remain)",
					(unsigned)len, pend - p->pos);
			const char *s = rki_fbx_strdup(p->arena, (const char *)d + p->pos, len);
			if (!s) return rki_fbx_parse_oom(p);
			pr->v.s.data = s;
			pr->v.s.len = len;
			p->pos += len;
			break;
		}
		}
	}
	if (p->pos != pend)
		return rki_fbx_parse_error(p, RK_ERROR_CORRUPT, p->pos,
			"%llu properties end at byte %zu, but the property list is declared to end at byte %zu",
			(unsigned long long)nprops, p->pos, pend);
	return true;
}

/* Where a top-level list without its null record may end: the footer id
 * (starts 0xFA 0xBC) followed by padding, version, zeros and the footer magic. */
static bool rki_fbx_at_footer(const rki_fbx_parser *p)
{
	size_t left = p->size - p->pos;
	if (left < 32 || left > 1024) return false;
	if (p->data[p->pos] != 0xfa || p->data[p->pos + 1] != 0xbc) return false;
	return memcmp(p->data + p->size - 16, rki_fbx_footer_magic, 16) == 0;
}

static bool rki_fbx_parse_binary(rki_fbx_parser *p)
{
	const unsigned char *d = p->data;
	if (p->size < RKI_FBX_HEADER_SIZE)
		return rki_fbx_parse_error(p, RK_ERROR_TRUNCATED, p->size,
			"expected the %u-byte binary FBX header, the file has only %zu bytes", RKI_FBX_HEADER_SIZE,
			p->size);
	if (memcmp(d, rki_fbx_magic, sizeof(rki_fbx_magic)) != 0)
		return rki_fbx_parse_error(p, RK_ERROR_CORRUPT, 0, "expected \"Kaydara FBX Binary  \\0\\x1a\" at the start");
	if (d[22] > 1)
		return rki_fbx_parse_error(p, RK_ERROR_CORRUPT, 22, "expected byte order flag 0 or 1, found %u", (unsigned)d[22]);
	p->big_endian = d[22] == 1;
	uint32_t version = rki_fbx_rd32(p, d + 23);
	p->doc->version = version;
	p->doc->header_version = version;
	p->doc->big_endian = p->big_endian;
	if (version < 3000 || version >= 8000)
		return rki_fbx_parse_error(p, RK_ERROR_UNSUPPORTED, 23,
			"binary FBX version %u is not supported (expected 3000 to 7999)", (unsigned)version);
	p->wide = version >= 7500;
	const size_t hdr = p->wide ? 25 : 13;
	p->pos = RKI_FBX_HEADER_SIZE;
	if (!rki_fbx_open_root(p)) return false;

	for (;;) {
		size_t nf = rki_fbx_frame_count(p);
		uint64_t parent_end = rki_fbx_top(p)->end;
		if (nf == 1) {
			if (rki_fbx_at_footer(p)) return rki_fbx_close(p);
			if (p->size - p->pos < hdr)
				return rki_fbx_parse_error(p, RK_ERROR_TRUNCATED, p->pos,
					"expected a %zu-byte node record or the null record ending the top-level list, %zu bytes remain",
					hdr, p->size - p->pos);
		} else {
			if (p->pos == parent_end) {
				if (!rki_fbx_close(p)) return false;
				continue;
			}
			if (parent_end - p->pos < hdr)
				return rki_fbx_parse_error(p, RK_ERROR_CORRUPT, p->pos,
					"expected a %zu-byte node record or null record, only %llu bytes remain in the parent record",
					hdr, (unsigned long long)(parent_end - p->pos));
		}
		const unsigned char *h = d + p->pos;
		uint64_t end, nprops, plen;
		size_t name_len;
		if (p->wide) {
			end = rki_fbx_rd64(p, h);
			nprops = rki_fbx_rd64(p, h + 8);
			plen = rki_fbx_rd64(p, h + 16);
			name_len = h[24];
		} else {
			end = rki_fbx_rd32(p, h);
			nprops = rki_fbx_rd32(p, h + 4);
			plen = rki_fbx_rd32(p, h + 8);
			name_len = h[12];
		}
		uint64_t offset = p->pos;
		if (end == 0) {
			if (nprops != 0 || plen != 0 || name_len != 0)
				return rki_fbx_parse_error(p, RK_ERROR_CORRUPT, offset,
					"node record with end offset 0 is not a null record (other fields are not zero)");
			p->pos += hdr;
			if (nf > 1 && p->pos != parent_end)
				return rki_fbx_parse_error(p, RK_ERROR_CORRUPT, offset,
					"null record ends at byte %zu, but the enclosing record ends at byte %llu", p->pos,
					(unsigned long long)parent_end);
			if (!rki_fbx_close(p)) return false;
			if (nf == 1) return true;  /* the footer after the top-level null record is not read */
			continue;
		}
		if (end > p->size)
			return rki_fbx_parse_error(p, RK_ERROR_TRUNCATED, offset,
				"node record claims to end at byte %llu, past the end of the file (%zu bytes)",
				(unsigned long long)end, p->size);
		if (end > parent_end)
			return rki_fbx_parse_error(p, RK_ERROR_CORRUPT, offset,
				"node record ends at byte %llu, past the end of its parent record (byte %llu)",
				(unsigned long long)end, (unsigned long long)parent_end);
		uint64_t body = (uint64_t)p->pos + hdr + name_len;
		if (end < body || plen > end - body)
			return rki_fbx_parse_error(p, RK_ERROR_CORRUPT, offset,
				"node record ends at byte %llu, before its %zu-byte name and %llu-byte property list",
				(unsigned long long)end, name_len, (unsigned long long)plen);
		if (nprops > plen)
			return rki_fbx_parse_error(p, RK_ERROR_CORRUPT, offset,
				"node declares %llu properties in a property list of only %llu bytes",
				(unsigned long long)nprops, (unsigned long long)plen);
		p->cur_name = (const char *)h + hdr;
		p->cur_name_len = name_len;
		if (!rki_fbx_begin_node(p, offset)) return false;
		rki_fbx_node node;
		memset(&node, 0, sizeof(node));
		node.offset = offset;
		node.name_len = name_len;
		node.name = rki_fbx_strdup(p->arena, (const char *)h + hdr, name_len);
		if (!node.name) return rki_fbx_parse_oom(p);
		p->pos = (size_t)body;
		if (!rki_fbx_binary_props(p, &node, nprops, (size_t)(body + plen))) return false;
		p->cur_name = NULL;
		if (p->pos < end) {
			if (!rki_fbx_open(p, &node, end)) return false;
		} else {
			if (!rki_fbx_add_leaf(p, &node)) return false;
		}
	}
}

/* ---- ASCII ------------------------------------------------------------------ */

static bool rki_fbx_is_word_char(unsigned char c)
{
	if (c <= 0x20 || c == 0x7f) return false;
	switch (c) {
	case ':': case ',': case '{': case '}': case ';': case '"': return false;
	default: return true;
	}
}

/* Skips whitespace and ';' comments, counting lines. */
static void rki_fbx_skip_space(rki_fbx_parser *p)
{
	const unsigned char *d = p->data;
	size_t pos = p->pos, size = p->size;
	while (pos < size) {
		unsigned char c = d[pos];
		if (c == '\n') {
			p->line++;
			pos++;
		} else if (c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f') {
			pos++;
		} else if (c == ';') {
			const unsigned char *nl = (const unsigned char *)memchr(d + pos, '\n', size - pos);
			pos = nl ? (size_t)(nl - d) : size;
		} else {
			break;
		}
	}
	p->pos = pos;
}

/* True when a ':' follows position `pos` after optional spaces/tabs. */
static bool rki_fbx_colon_follows(const rki_fbx_parser *p, size_t pos)
{
	while (pos < p->size && (p->data[pos] == ' ' || p->data[pos] == '\t')) pos++;
	return pos < p->size && p->data[pos] == ':';
}

typedef enum rki_fbx_num_result { RKI_FBX_NUM_OK, RKI_FBX_NUM_INVALID, RKI_FBX_NUM_TOO_LONG } rki_fbx_num_result;

static const double rki_fbx_pow10[23] = {
	1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22
};

/* strtod() on a NUL-terminated bounded copy, with the locale's decimal point. */
static rki_fbx_num_result rki_fbx_strtod(const unsigned char *s, size_t len, double *out)
{
	char buf[RKI_FBX_MAX_NUMBER_LEN + 16];
	if (len > RKI_FBX_MAX_NUMBER_LEN) return RKI_FBX_NUM_TOO_LONG;
	const char *dp = localeconv()->decimal_point;
	size_t dpl = dp ? strlen(dp) : 0;
	if (dpl == 0 || dpl > 8) {
		dp = ".";
		dpl = 1;
	}
	size_t n = 0;
	for (size_t i = 0; i < len; i++) {
		if (s[i] == '.') {
			memcpy(buf + n, dp, dpl);
			n += dpl;
		} else {
			buf[n++] = (char)s[i];
		}
	}
	buf[n] = '\0';
	char *endp = NULL;
	*out = strtod(buf, &endp);
	return endp == buf + n ? RKI_FBX_NUM_OK : RKI_FBX_NUM_INVALID;
}

/* Scans a number token at *ppos (sign, digits, '.', exponent; or MSVC "1.#INF").
 * The token must end at a non-word character. */
static rki_fbx_num_result rki_fbx_scan_number(const unsigned char *d, size_t size, size_t *ppos, bool *is_int,
	int64_t *ival, double *fval)
{
	size_t pos = *ppos, start = pos;
	bool neg = false, has_dot = false, has_exp = false, inexact = false;
	if (pos < size && (d[pos] == '+' || d[pos] == '-')) neg = d[pos++] == '-';
	uint64_t mant = 0;
	int sig = 0;            /* significant digits held in mant (at most 19) */
	int64_t exp10 = 0;
	size_t digits = 0;
	for (; pos < size && d[pos] >= '0' && d[pos] <= '9'; pos++, digits++) {
		unsigned dig = (unsigned)(d[pos] - '0');
		if (sig < 19) {
			mant = mant * 10 + dig;
			if (mant) sig++;
		} else {
			exp10++;
			if (dig) inexact = true;
		}
	}
	double special = 0.0;
	bool is_special = false;
	if (pos < size && d[pos] == '.') {
		has_dot = true;
		pos++;
		for (; pos < size && d[pos] >= '0' && d[pos] <= '9'; pos++, digits++) {
			unsigned dig = (unsigned)(d[pos] - '0');
			if (sig < 19) {
				mant = mant * 10 + dig;
				exp10--;
				if (mant) sig++;
			} else if (dig) {
				inexact = true;
			}
		}
		if (digits > 0 && pos < size && d[pos] == '#') {
			/* MSVC: 1.#INF, -1.#IND, 1.#QNAN, 1.#SNAN (possibly followed by digits). */
			size_t w = pos + 1, wend = w;
			while (wend < size && rki_fbx_is_word_char(d[wend])) wend++;
			size_t wl = wend - w;
			if (wl >= 3 && memcmp(d + w, "INF", 3) == 0) {
				special = HUGE_VAL;
			} else if ((wl >= 3 && memcmp(d + w, "IND", 3) == 0) || (wl >= 4 && memcmp(d + w, "QNAN", 4) == 0) ||
				(wl >= 4 && memcmp(d + w, "SNAN", 4) == 0)) {
				special = NAN;
			} else {
				return RKI_FBX_NUM_INVALID;
			}
			is_special = true;
			pos = wend;
		}
	}
	if (digits == 0) return RKI_FBX_NUM_INVALID;
	if (!is_special && pos < size && (d[pos] == 'e' || d[pos] == 'E')) {
		size_t e = pos + 1;
		bool eneg = false;
		if (e < size && (d[e] == '+' || d[e] == '-')) eneg = d[e++] == '-';
		if (e >= size || d[e] < '0' || d[e] > '9') return RKI_FBX_NUM_INVALID;
		int64_t ev = 0;
		for (; e < size && d[e] >= '0' && d[e] <= '9'; e++)
			if (ev < 100000) ev = ev * 10 + (d[e] - '0');
		exp10 += eneg ? -ev : ev;
		has_exp = true;
		pos = e;
	}
	if (pos < size && rki_fbx_is_word_char(d[pos])) return RKI_FBX_NUM_INVALID;
	*ppos = pos;
	if (is_special) {
		*is_int = false;
		*fval = neg ? -special : special;
		return RKI_FBX_NUM_OK;
	}
	if (!has_dot && !has_exp && !inexact && exp10 == 0) {
		if (mant <= (uint64_t)INT64_MAX) {
			*is_int = true;
			*ival = neg ? -(int64_t)mant : (int64_t)mant;
			return RKI_FBX_NUM_OK;
		}
		if (neg && mant == (uint64_t)INT64_MAX + 1) {
			*is_int = true;
			*ival = INT64_MIN;
			return RKI_FBX_NUM_OK;
		}
	}
	*is_int = false;
	if (mant == 0 && !inexact) {
		*fval = neg ? -0.0 : 0.0;
		return RKI_FBX_NUM_OK;
	}
	if (!inexact && mant <= ((uint64_t)1 << 53) && exp10 >= -22 && exp10 <= 22) {
		/* Exact: both operands are exactly representable, one rounding. */
		double m = (double)mant;
		double v = exp10 >= 0 ? m * rki_fbx_pow10[exp10] : m / rki_fbx_pow10[-exp10];
		*fval = neg ? -v : v;
		return RKI_FBX_NUM_OK;
	}
	return rki_fbx_strtod(d + start, pos - start, fval);
}

static bool rki_fbx_ascii_number(rki_fbx_parser *p, bool *is_int, int64_t *ival, double *fval)
{
	size_t start = p->pos;
	rki_fbx_num_result r = rki_fbx_scan_number(p->data, p->size, &p->pos, is_int, ival, fval);
	if (r == RKI_FBX_NUM_TOO_LONG)
		return rki_fbx_parse_error(p, RK_ERROR_CORRUPT, start, "number longer than %u characters", RKI_FBX_MAX_NUMBER_LEN);
	if (r != RKI_FBX_NUM_OK) {
		size_t end = start;
		while (end < p->size && end - start < 32 && rki_fbx_is_word_char(p->data[end])) end++;
		return rki_fbx_parse_error(p, RK_ERROR_CORRUPT, start, "expected a number, found \"%.*s\"", (int)(end - start),
			(const char *)p->data + start);
	}
	return true;
}

/* 7.x array "*N { a: v, v, ... }" at p->pos ('*'). */
static bool rki_fbx_ascii_array(rki_fbx_parser *p, rki_fbx_prop *pr)
{
	const unsigned char *d = p->data;
	size_t star = p->pos;
	p->pos++;
	uint64_t n = 0;
	size_t ndig = 0;
	for (; p->pos < p->size && d[p->pos] >= '0' && d[p->pos] <= '9'; p->pos++, ndig++) {
		if (n > (UINT64_MAX - 9) / 10)
			return rki_fbx_parse_error(p, RK_ERROR_CORRUPT, star, "array element count after '*' is too large");
		n = n * 10 + (uint64_t)(d[p->pos] - '0');
	}
	if (ndig == 0) {
		if (p->pos >= p->size)
			return rki_fbx_parse_error(p, RK_ERROR_TRUNCATED, p->pos, "expected an element count after '*'");
		return rki_fbx_parse_error(p, RK_ERROR_CORRUPT, p->pos, "expected an element count after '*'");
	}
	rki_fbx_skip_space(p);
	if (p->pos >= p->size)
		return rki_fbx_parse_error(p, RK_ERROR_TRUNCATED, p->pos, "expected '{' after array count *%llu",
			(unsigned long long)n);
	if (d[p->pos] != '{')
		return rki_fbx_parse_error(p, RK_ERROR_CORRUPT, p->pos, "expected '{' after array count *%llu",
			(unsigned long long)n);
	p->pos++;
	if (n > p->lim.max_array_elems)
		return rki_fbx_parse_error(p, RK_ERROR_LIMIT, star, "array of %llu elements is over the limit of %zu",
			(unsigned long long)n, p->lim.max_array_elems);
	if (n > ((uint64_t)p->lim.max_total_array_bytes - p->array_bytes) / sizeof(double))
		return rki_fbx_parse_error(p, RK_ERROR_LIMIT, star, "arrays decode to more than the limit of %zu bytes in total",
			p->lim.max_total_array_bytes);
	/* Every element takes at least one digit and all but the last a ',' too. */
	size_t left = p->size - p->pos;
	if (n > left / 2 + 1)
		return rki_fbx_parse_error(p, RK_ERROR_TRUNCATED, star,
			"array *%llu needs at least %llu more bytes, only %zu remain", (unsigned long long)n,
			(unsigned long long)(2 * n - 1), left);
	double *vals = (double *)(void *)rki_fbx_empty_array;
	if (n > 0) {
		size_t alloc;   /* n * 8 is within max_total_array_bytes (checked above) */
		if (!rki_fbx_array_alloc_size('d', n * sizeof(double), &alloc)) return rki_fbx_parse_oom(p);
		vals = (double *)rki_arena_alloc_uninit(p->arena, alloc);
		if (!vals) return rki_fbx_parse_oom(p);
		memset(vals + n, 0, RKI_FBX_ARRAY_PAD);
	}
	p->array_bytes += n * sizeof(double);
	rki_fbx_skip_space(p);
	if (p->pos < p->size && d[p->pos] == 'a' && rki_fbx_colon_follows(p, p->pos + 1)) {
		while (d[p->pos] != ':') p->pos++;
		p->pos++;
	} else if (p->pos < p->size && d[p->pos] != '}') {
		return rki_fbx_parse_error(p, RK_ERROR_CORRUPT, p->pos, "expected \"a:\" inside the array braces");
	}
	size_t k = 0;
	bool all_int = true, want = true;
	for (;;) {
		rki_fbx_skip_space(p);
		if (p->pos >= p->size)
			return rki_fbx_parse_error(p, RK_ERROR_TRUNCATED, p->pos, "expected '}' closing the array *%llu",
				(unsigned long long)n);
		unsigned char c = d[p->pos];
		if (c == '}') {
			p->pos++;
			break;
		}
		if (c == ',') {
			if (want)
				return rki_fbx_parse_error(p, RK_ERROR_CORRUPT, p->pos, "expected a number before ',' in the array");
			p->pos++;
			want = true;
			continue;
		}
		if (!want) return rki_fbx_parse_error(p, RK_ERROR_CORRUPT, p->pos, "expected ',' or '}' after an array element");
		bool is_int = false;
		int64_t iv = 0;
		double fv = 0.0;
		size_t at = p->pos;
		if (!rki_fbx_ascii_number(p, &is_int, &iv, &fv)) return false;
		if (k >= n)
			return rki_fbx_parse_error(p, RK_ERROR_CORRUPT, at, "array declares *%llu elements but has more",
				(unsigned long long)n);
		vals[k++] = is_int ? (double)iv : fv;
		if (!is_int) all_int = false;
		want = false;
	}
	if (k != n)
		return rki_fbx_parse_error(p, RK_ERROR_CORRUPT, star, "array declares *%llu elements but has %zu",
			(unsigned long long)n, k);
	pr->type = 'd';
	pr->v.a.data = vals;
	pr->v.a.count = (size_t)n;
	pr->all_integers = all_int;
	return true;
}

/* Property list after "Name:". Leaves p->pos at '{', '}', the next node's name or the end. */
static bool rki_fbx_ascii_props(rki_fbx_parser *p, rki_fbx_node *node)
{
	const unsigned char *d = p->data;
	size_t start = p->props.size / sizeof(rki_fbx_prop), count = 0;
	bool want = true;  /* a value may come next: at the start or after ',' */
	for (;;) {
		rki_fbx_skip_space(p);
		if (p->pos >= p->size) break;
		unsigned char c = d[p->pos];
		if (c == ',') {
			/* After a value: the list continues. At the start or after another ',':
			 * an empty value ("Content: , ..."), which is skipped. */
			p->pos++;
			want = true;
			continue;
		}
		if (!want || c == '{' || c == '}') break;
		rki_fbx_prop pr;
		memset(&pr, 0, sizeof(pr));
		pr.offset = p->pos;
		if (c == '"') {
			size_t s = p->pos + 1;
			const unsigned char *q = (const unsigned char *)memchr(d + s, '"', p->size - s);
			if (!q) return rki_fbx_parse_error(p, RK_ERROR_TRUNCATED, p->pos, "expected the closing '\"' of a string");
			size_t e = (size_t)(q - d);
			for (const unsigned char *nl = d + s; (nl = (const unsigned char *)memchr(nl, '\n', e - (size_t)(nl - d)));
				nl++)
				p->line++;
			const char *str = rki_fbx_strdup(p->arena, (const char *)d + s, e - s);
			if (!str) return rki_fbx_parse_oom(p);
			pr.type = 'S';
			pr.v.s.data = str;
			pr.v.s.len = e - s;
			p->pos = e + 1;
		} else if (c == '*') {
			if (!rki_fbx_ascii_array(p, &pr)) return false;
		} else if ((c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.') {
			bool is_int = false;
			int64_t iv = 0;
			double fv = 0.0;
			if (!rki_fbx_ascii_number(p, &is_int, &iv, &fv)) return false;
			pr.type = is_int ? 'L' : 'D';
			if (is_int) pr.v.i = iv;
			else pr.v.f = fv;
		} else if (rki_fbx_is_word_char(c)) {
			size_t s = p->pos, e = s;
			while (e < p->size && rki_fbx_is_word_char(d[e])) e++;
			if (rki_fbx_colon_follows(p, e)) break;  /* the next node's name */
			const char *str = rki_fbx_strdup(p->arena, (const char *)d + s, e - s);
			if (!str) return rki_fbx_parse_oom(p);
			pr.type = 'S';
			pr.v.s.data = str;
			pr.v.s.len = e - s;
			p->pos = e;
		} else {
			return rki_fbx_parse_error(p, RK_ERROR_CORRUPT, p->pos,
				"expected a value (number, \"string\", word or *N array), found byte 0x%02x", (unsigned)c);
		}
		if (count >= p->lim.max_array_elems)
			return rki_fbx_parse_error(p, RK_ERROR_LIMIT, pr.offset, "more than the limit of %zu values in one node",
				p->lim.max_array_elems);
		if (!rki_buf_push(&p->props, &pr, sizeof(pr))) return rki_fbx_parse_oom(p);
		count++;
		want = false;
	}
	node->props = NULL;
	node->prop_count = count;
	if (count > 0) {
		node->props = (rki_fbx_prop *)rki_arena_array(p->arena, count, sizeof(rki_fbx_prop));
		if (!node->props) return rki_fbx_parse_oom(p);
		memcpy(node->props, (rki_fbx_prop *)(void *)p->props.data + start, count * sizeof(rki_fbx_prop));
	}
	p->props.size = start * sizeof(rki_fbx_prop);
	return true;
}

/* "; FBX 6.1.0 project file" -> 6100, from the leading comment lines. */
static uint32_t rki_fbx_ascii_comment_version(const unsigned char *d, size_t size)
{
	size_t pos = 0;
	for (int lines = 0; lines < 16 && pos < size; lines++) {
		while (pos < size && (d[pos] == ' ' || d[pos] == '\t' || d[pos] == '\r' || d[pos] == '\n')) pos++;
		if (pos >= size || d[pos] != ';') return 0;
		size_t eol = pos;
		while (eol < size && d[eol] != '\n') eol++;
		for (size_t i = pos; i + 9 < eol; i++) {
			const unsigned char *s = d + i;
			if (memcmp(s, "FBX ", 4) == 0 && s[4] >= '0' && s[4] <= '9' && s[5] == '.' && s[6] >= '0' &&
				s[6] <= '9' && s[7] == '.' && s[8] >= '0' && s[8] <= '9')
				return (uint32_t)((s[4] - '0') * 1000 + (s[6] - '0') * 100 + (s[8] - '0') * 10);
		}
		pos = eol;
	}
	return 0;
}

static bool rki_fbx_parse_ascii(rki_fbx_parser *p)
{
	const unsigned char *d = p->data;
	p->ascii = true;
	p->line = 1;
	p->doc->ascii = true;
	if (p->size >= 3 && d[0] == 0xef && d[1] == 0xbb && d[2] == 0xbf) p->pos = 3;
	if (!rki_fbx_open_root(p)) return false;
	for (;;) {
		rki_fbx_skip_space(p);
		size_t nf = rki_fbx_frame_count(p);
		if (p->pos >= p->size) {
			if (nf > 1)
				return rki_fbx_parse_error(p, RK_ERROR_TRUNCATED, p->pos, "expected '}' closing the node, found the end of the file");
			break;
		}
		unsigned char c = d[p->pos];
		if (c == '}') {
			if (nf == 1) return rki_fbx_parse_error(p, RK_ERROR_CORRUPT, p->pos, "unexpected '}' at the top level");
			p->pos++;
			if (!rki_fbx_close(p)) return false;
			continue;
		}
		if (!rki_fbx_is_word_char(c)) {
			if (c >= 0x20 && c < 0x7f)
				return rki_fbx_parse_error(p, RK_ERROR_CORRUPT, p->pos, "expected a node name, found '%c'", c);
			return rki_fbx_parse_error(p, RK_ERROR_CORRUPT, p->pos, "expected a node name, found byte 0x%02x", (unsigned)c);
		}
		size_t name_start = p->pos;
		while (p->pos < p->size && rki_fbx_is_word_char(d[p->pos])) p->pos++;
		p->cur_name = (const char *)d + name_start;
		p->cur_name_len = p->pos - name_start;
		while (p->pos < p->size && (d[p->pos] == ' ' || d[p->pos] == '\t')) p->pos++;
		if (p->pos >= p->size)
			return rki_fbx_parse_error(p, RK_ERROR_TRUNCATED, p->pos, "expected ':' after the node name");
		if (d[p->pos] != ':')
			return rki_fbx_parse_error(p, RK_ERROR_CORRUPT, p->pos, "expected ':' after the node name");
		p->pos++;
		if (!rki_fbx_begin_node(p, name_start)) return false;
		rki_fbx_node node;
		memset(&node, 0, sizeof(node));
		node.offset = name_start;
		node.name_len = p->cur_name_len;
		node.name = rki_fbx_strdup(p->arena, p->cur_name, p->cur_name_len);
		if (!node.name) return rki_fbx_parse_oom(p);
		if (!rki_fbx_ascii_props(p, &node)) return false;
		p->cur_name = NULL;
		if (p->pos < p->size && d[p->pos] == '{') {
			p->pos++;
			if (!rki_fbx_open(p, &node, 0)) return false;
		} else {
			if (!rki_fbx_add_leaf(p, &node)) return false;
		}
	}
	if (!rki_fbx_close(p)) return false;
	if (p->doc->root.child_count == 0)
		return rki_fbx_parse_error(p, RK_ERROR_TRUNCATED, p->size, "expected at least one FBX node, found none");
	p->doc->version = rki_fbx_ascii_comment_version(d, p->size);
	return true;
}

/* FBXHeaderExtension/FBXVersion, or 0. */
static uint32_t rki_fbx_header_extension_version(const rki_fbx_doc *doc)
{
	int64_t version = 0;
	const rki_fbx_node *hdr = rki_fbx_find_child(&doc->root, "FBXHeaderExtension");
	const rki_fbx_node *ver = hdr ? rki_fbx_find_child(hdr, "FBXVersion") : NULL;
	if (ver && rki_fbx_prop_i64(ver, 0, &version) && version > 0 && version <= (int64_t)UINT32_MAX)
		return (uint32_t)version;
	return 0;
}

/* ---- entry points -------------------------------------------------------------- */

bool rki_fbx_parse(rki_fbx_doc *doc, const void *data, size_t size, rki_arena *arena, rki_alloc *tmp,
	const rki_fbx_limits *limits, rk_error *err)
{
	rki_fbx_parse_opts opts;
	memset(&opts, 0, sizeof(opts));
	if (limits) opts.limits = *limits;
	return rki_fbx_parse_ex(doc, data, size, arena, tmp, &opts, err);
}

bool rki_fbx_parse_ex(rki_fbx_doc *doc, const void *data, size_t size, rki_arena *arena, rki_alloc *tmp,
	const rki_fbx_parse_opts *opts, rk_error *err)
{
	if (!doc || (!data && size) || !arena || !tmp) {
		rki_error_set(err, RK_ERROR_INVALID_ARGUMENT, "rki_fbx_parse: NULL doc, data, arena or allocator");
		return false;
	}
	memset(doc, 0, sizeof(*doc));
	doc->root.name = "";
	rki_fbx_parser p;
	memset(&p, 0, sizeof(p));
	p.data = (const unsigned char *)data;
	p.size = size;
	p.doc = doc;
	p.arena = arena;
	p.tmp = tmp;
	p.err = err;
	if (opts) {
		p.lim = opts->limits;
		p.lazy = opts->lazy_arrays;
		p.batch = opts->lazy_arrays ? opts->batch : NULL;
	}
	if (!p.lim.max_depth) p.lim.max_depth = RKI_FBX_DEFAULT_MAX_DEPTH;
	if (!p.lim.max_nodes) p.lim.max_nodes = RKI_FBX_DEFAULT_MAX_NODES;
	if (!p.lim.max_array_elems) p.lim.max_array_elems = RKI_FBX_DEFAULT_MAX_ARRAY_ELEMS;
	if (!p.lim.max_total_array_bytes) {
		uint64_t def = RKI_FBX_DEFAULT_MAX_TOTAL_ARRAY_BYTES;
		p.lim.max_total_array_bytes = def > SIZE_MAX ? SIZE_MAX : (size_t)def;
	}
	rki_buf_init(&p.frames, tmp);
	rki_buf_init(&p.nodes, tmp);
	rki_buf_init(&p.props, tmp);

	bool ok;
	size_t magic_cmp = size < sizeof(rki_fbx_magic) ? size : sizeof(rki_fbx_magic);
	if (size >= 18 && memcmp(data, rki_fbx_magic, 18) == 0) {
		ok = rki_fbx_parse_binary(&p);
	} else if (size == 0) {
		ok = rki_fbx_parse_error(&p, RK_ERROR_TRUNCATED, 0, "empty input, expected an FBX file");
	} else if (size < sizeof(rki_fbx_magic) && memcmp(data, rki_fbx_magic, magic_cmp) == 0 && size >= 7) {
		ok = rki_fbx_parse_error(&p, RK_ERROR_TRUNCATED, size, "expected the %u-byte binary FBX header, the file has only %zu bytes",
			RKI_FBX_HEADER_SIZE, size);
	} else {
		ok = rki_fbx_parse_ascii(&p);
	}

	rki_buf_free(&p.frames);
	rki_buf_free(&p.nodes);
	rki_buf_free(&p.props);
	if (p.inflater) libdeflate_free_decompressor(p.inflater);
	if (ok) {
		uint32_t v = rki_fbx_header_extension_version(doc);
		if (v) doc->version = v;
		doc->input_ = (const unsigned char *)data;
		doc->input_size_ = size;
		doc->arena_ = arena;
		if (p.batch) rki_fbx_batch_attach(p.batch, doc);
	} else {
		memset(doc, 0, sizeof(*doc));
		doc->root.name = "";
		if (err && err->code == RK_OK) rki_error_set(err, RK_ERROR_CORRUPT, "FBX parse failed");
	}
	return ok;
}

bool rki_fbx_is_fbx(const void *data, size_t size)
{
	if (!data) return false;
	const unsigned char *d = (const unsigned char *)data;
	if (size >= sizeof(rki_fbx_magic) && memcmp(d, rki_fbx_magic, sizeof(rki_fbx_magic)) == 0) return true;
	size_t n = size < 4096 ? size : 4096, pos = 0;
	if (n >= 3 && d[0] == 0xef && d[1] == 0xbb && d[2] == 0xbf) pos = 3;
	for (;;) {
		while (pos < n && (d[pos] == ' ' || d[pos] == '\t' || d[pos] == '\r' || d[pos] == '\n')) pos++;
		if (pos >= n) return false;
		if (d[pos] == ';') {
			size_t eol = pos;
			while (eol < n && d[eol] != '\n') eol++;
			for (size_t i = pos; i + 3 <= eol; i++)
				if (d[i] == 'F' && d[i + 1] == 'B' && d[i + 2] == 'X') return true;
			pos = eol;
			continue;
		}
		static const char *const names[] = { "FBXHeaderExtension", "FBXHeaderVersion", "FBXVersion" };
		for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++) {
			size_t len = strlen(names[k]);
			if (n - pos > len && memcmp(d + pos, names[k], len) == 0) {
				size_t e = pos + len;
				while (e < n && (d[e] == ' ' || d[e] == '\t')) e++;
				if (e < n && d[e] == ':') return true;
			}
		}
		return false;
	}
}

/* ---- lookups ----------------------------------------------------------------------- */

const rki_fbx_node *rki_fbx_find_child(const rki_fbx_node *n, const char *name)
{
	if (!n || !name) return NULL;
	size_t len = strlen(name);
	for (size_t i = 0; i < n->child_count; i++) {
		const rki_fbx_node *c = &n->children[i];
		if (c->name_len == len && memcmp(c->name, name, len) == 0) return c;
	}
	return NULL;
}

static bool rki_fbx_f64_to_i64(double v, int64_t *out)
{
	/* [-2^63, 2^63): both bounds exact in double; NaN fails the comparison. */
	if (!(v >= -9223372036854775808.0 && v < 9223372036854775808.0)) return false;
	int64_t i = (int64_t)v;
	if ((double)i != v) return false;
	*out = i;
	return true;
}

static bool rki_fbx_is_int_type(char t)
{
	return t == 'Y' || t == 'C' || t == 'I' || t == 'L';
}

bool rki_fbx_prop_i64(const rki_fbx_node *n, size_t i, int64_t *out)
{
	if (!n || i >= n->prop_count || !out) return false;
	const rki_fbx_prop *pr = &n->props[i];
	if (rki_fbx_is_int_type(pr->type)) {
		*out = pr->v.i;
		return true;
	}
	if (pr->type == 'F' || pr->type == 'D') return rki_fbx_f64_to_i64(pr->v.f, out);
	return false;
}

bool rki_fbx_prop_f64(const rki_fbx_node *n, size_t i, double *out)
{
	if (!n || i >= n->prop_count || !out) return false;
	const rki_fbx_prop *pr = &n->props[i];
	if (rki_fbx_is_int_type(pr->type)) {
		*out = (double)pr->v.i;
		return true;
	}
	if (pr->type == 'F' || pr->type == 'D') {
		*out = pr->v.f;
		return true;
	}
	return false;
}

bool rki_fbx_prop_str(const rki_fbx_node *n, size_t i, const char **data, size_t *len)
{
	if (!n || i >= n->prop_count) return false;
	const rki_fbx_prop *pr = &n->props[i];
	if (pr->type != 'S' && pr->type != 'R') return false;
	if (data) *data = pr->v.s.data;
	if (len) *len = pr->v.s.len;
	return true;
}

/* ---- array access -------------------------------------------------------------------- */

/* A numeric sequence: one array property, or (type 0) all scalar properties of a node. */
typedef struct rki_fbx_seq {
	char type;
	const void *data;
	size_t count;
	const rki_fbx_prop *props;
	uint64_t offset;
} rki_fbx_seq;

static bool rki_fbx_acc_fail(const rki_fbx_node *n, uint64_t offset, rk_error *err, rk_error_code code,
	const char *fmt, ...) RKI_PRINTF(5, 6);

static bool rki_fbx_acc_fail(const rki_fbx_node *n, uint64_t offset, rk_error *err, rk_error_code code,
	const char *fmt, ...)
{
	if (!err) return false;
	va_list ap;
	va_start(ap, fmt);
	rki_error_setv(err, code, fmt, ap);
	va_end(ap);
	rki_error_at_byte(err, offset);
	char path[RK_ERROR_TEXT_MAX];
	rki_fbx_node_path(n, path, sizeof(path));
	if (path[0]) rki_error_at_path(err, RK_LOCATION_FBX_NODE, path);
	return false;
}

/* The document a node belongs to: its root is doc->root. */
static rki_fbx_doc *rki_fbx_doc_of(const rki_fbx_node *n)
{
	while (n->parent) n = n->parent;
	return (rki_fbx_doc *)(void *)((unsigned char *)(uintptr_t)n - offsetof(rki_fbx_doc, root));
}

/* Decodes pending array property i of n into the document's arena. */
static bool rki_fbx_batch_take(rki_fbx_doc *doc, const rki_fbx_prop *pr);

/* With `into` NULL the array is decoded into the document and stays decoded;
 * otherwise into `into` (scratch memory of the caller), *scratch_out points at
 * it and the property stays pending. */
static bool rki_fbx_decode_pending(const rki_fbx_node *n, size_t i, rki_arena *into, const void **scratch_out,
	rk_error *err)
{
	rki_fbx_prop *pr = (rki_fbx_prop *)(uintptr_t)&n->props[i];
	rki_fbx_doc *doc = rki_fbx_doc_of(n);
	if (rki_fbx_batch_take(doc, pr)) {   /* decoded by a running batch */
		if (scratch_out) *scratch_out = pr->v.a.data;
		return true;
	}
	rki_arena *dst_arena = into ? into : doc->arena_;
	size_t esize = rki_fbx_array_elem_size(pr->type), count = pr->v.a.count, clen = pr->encoded_size;
	uint64_t bytes = (uint64_t)count * esize;
	uint64_t at = pr->offset + 1 + RKI_FBX_ARRAY_HEADER;
	if (!doc->input_ || !doc->arena_ || esize == 0 || at > doc->input_size_ || clen > doc->input_size_ - at ||
		(pr->pending == 1 && clen != bytes))
		return rki_fbx_acc_fail(n, pr->offset, err, RK_ERROR_CORRUPT, "pending array without its input data");
	size_t alloc;
	void *out = rki_fbx_array_alloc_size(pr->type, bytes, &alloc) ? rki_arena_alloc_uninit(dst_arena, alloc) : NULL;
	if (!out) {
		bool limit = dst_arena->alloc && dst_arena->alloc->limit_hit;
		return rki_fbx_acc_fail(n, pr->offset, err, limit ? RK_ERROR_LIMIT : RK_ERROR_OUT_OF_MEMORY,
			"cannot allocate %llu bytes to decode an array of %zu elements", (unsigned long long)bytes, count);
	}
	struct libdeflate_decompressor *inflater = NULL;
	if (pr->pending == 2) {
		inflater = libdeflate_alloc_decompressor();
		if (!inflater)
			return rki_fbx_acc_fail(n, pr->offset, err, RK_ERROR_OUT_OF_MEMORY, "cannot allocate the zlib decompressor");
	}
	size_t got;
	int lib_result;
	rki_fbx_decode_result r = rki_fbx_decode_array(inflater, doc->input_ + at, clen, out, (size_t)bytes, alloc, esize,
		doc->big_endian == rki_fbx_host_little_endian(), &got, &lib_result);
	if (inflater) libdeflate_free_decompressor(inflater);
	if (r != RKI_FBX_DECODE_OK) {
		char msg[RK_ERROR_TEXT_MAX];
		rki_fbx_decode_message(msg, sizeof(msg), r, lib_result, got, count, esize);
		return rki_fbx_acc_fail(n, pr->offset, err, RK_ERROR_CORRUPT, "%s", msg);
	}
	if (scratch_out) {
		*scratch_out = out;
		return true;
	}
	pr->v.a.data = out;
	pr->pending = 0;
	return true;
}

/* Array property i of n (or, for i == 0, a node whose properties are all
 * numbers) as a sequence. A pending array is decoded into the document, or
 * into `scratch` when that is not NULL (and then stays pending). */
static bool rki_fbx_get_seq(const rki_fbx_node *n, size_t i, rki_arena *scratch, rki_fbx_seq *s, rk_error *err)
{
	memset(s, 0, sizeof(*s));
	if (!n) {
		rki_error_set(err, RK_ERROR_INVALID_ARGUMENT, "expected an array node, got NULL");
		return false;
	}
	s->offset = n->offset;
	if (i < n->prop_count && rki_fbx_array_elem_size(n->props[i].type) != 0) {
		const rki_fbx_prop *pr = &n->props[i];
		const void *data = pr->v.a.data;
		if (pr->pending && !rki_fbx_decode_pending(n, i, scratch, scratch ? &data : NULL, err)) return false;
		if (!scratch) data = pr->v.a.data;
		s->type = pr->type;
		s->data = data;
		s->count = pr->v.a.count;
		s->offset = pr->offset;
		return true;
	}
	if (i == 0) {
		bool all = true;
		for (size_t k = 0; k < n->prop_count && all; k++) {
			char t = n->props[k].type;
			all = rki_fbx_is_int_type(t) || t == 'F' || t == 'D';
		}
		if (all) {
			s->type = 0;
			s->props = n->props;
			s->count = n->prop_count;
			if (n->prop_count) s->offset = n->props[0].offset;
			return true;
		}
	}
	if (i >= n->prop_count)
		return rki_fbx_acc_fail(n, n->offset, err, RK_ERROR_CORRUPT,
			"expected an array as property %zu, but the node has %zu properties", i, n->prop_count);
	const rki_fbx_prop *pr = &n->props[i];
	if (i == 0 && n->prop_count > 0)
		return rki_fbx_acc_fail(n, pr->offset, err, RK_ERROR_CORRUPT,
			"expected a numeric array or a list of numbers, found a property of type '%c'", pr->type);
	return rki_fbx_acc_fail(n, pr->offset, err, RK_ERROR_CORRUPT,
		"expected a numeric array as property %zu, found type '%c'", i, pr->type);
}

/* Room for the converted copy of s (every element is written by the caller),
 * followed by `pad` zero bytes. */
static void *rki_fbx_acc_alloc(const rki_fbx_node *n, const rki_fbx_seq *s, rki_arena *ar, size_t esize,
	size_t pad, rk_error *err)
{
	size_t bytes = 0, alloc = 0;
	void *out = NULL;
	if (rki_mul_size(s->count, esize, &bytes) && rki_add_size(bytes, pad, &alloc))
		out = rki_arena_alloc_uninit(ar, alloc ? alloc : 1);
	else if (ar->alloc)
		ar->alloc->failed = true;
	if (out) {
		memset((unsigned char *)out + bytes, 0, pad);
	} else {
		bool limit = ar->alloc && ar->alloc->limit_hit;
		rki_fbx_acc_fail(n, s->offset, err, limit ? RK_ERROR_LIMIT : RK_ERROR_OUT_OF_MEMORY,
			"cannot allocate %zu array elements of %zu bytes", s->count, esize);
	}
	return out;
}

/* Element k as double (any numeric sequence). */
static double rki_fbx_seq_f64(const rki_fbx_seq *s, size_t k)
{
	switch (s->type) {
	case 'f': return ((const float *)s->data)[k];
	case 'd': return ((const double *)s->data)[k];
	case 'l': return (double)((const int64_t *)s->data)[k];
	case 'i': return ((const int32_t *)s->data)[k];
	case 'b': return ((const uint8_t *)s->data)[k];
	default: {
		const rki_fbx_prop *pr = &s->props[k];
		return rki_fbx_is_int_type(pr->type) ? (double)pr->v.i : pr->v.f;
	}
	}
}

/* Element k as int64 when it is integral. */
static bool rki_fbx_seq_i64(const rki_fbx_seq *s, size_t k, int64_t *out)
{
	switch (s->type) {
	case 'l': *out = ((const int64_t *)s->data)[k]; return true;
	case 'i': *out = ((const int32_t *)s->data)[k]; return true;
	case 'b': *out = ((const uint8_t *)s->data)[k]; return true;
	case 'f': return rki_fbx_f64_to_i64(((const float *)s->data)[k], out);
	case 'd': return rki_fbx_f64_to_i64(((const double *)s->data)[k], out);
	default: {
		const rki_fbx_prop *pr = &s->props[k];
		if (rki_fbx_is_int_type(pr->type)) {
			*out = pr->v.i;
			return true;
		}
		return rki_fbx_f64_to_i64(pr->v.f, out);
	}
	}
}

static bool rki_fbx_not_integer(const rki_fbx_node *n, const rki_fbx_seq *s, size_t k, const char *what,
	rk_error *err)
{
	return rki_fbx_acc_fail(n, s->offset, err, RK_ERROR_CORRUPT, "array element %zu (%.17g) is not %s", k,
		rki_fbx_seq_f64(s, k), what);
}

static bool rki_fbx_array_f64_in(const rki_fbx_node *n, size_t i, rki_arena *ar, bool scratch,
	const double **out, size_t *count, rk_error *err)
{
	*out = NULL;
	*count = 0;
	rki_fbx_seq s;
	if (!rki_fbx_get_seq(n, i, scratch ? ar : NULL, &s, err)) return false;
	if (s.type == 'd') {
		*out = (const double *)s.data;
		*count = s.count;
		return true;
	}
	double *dst = (double *)rki_fbx_acc_alloc(n, &s, ar, sizeof(double), RKI_FBX_ARRAY_PAD, err);
	if (!dst) return false;
	if (s.type == 'f') {
		const float *src = (const float *)s.data;
		for (size_t k = 0; k < s.count; k++) dst[k] = src[k];
	} else {
		for (size_t k = 0; k < s.count; k++) dst[k] = rki_fbx_seq_f64(&s, k);
	}
	*out = dst;
	*count = s.count;
	return true;
}

bool rki_fbx_array_f64(const rki_fbx_node *n, size_t i, rki_arena *ar, const double **out, size_t *count,
	rk_error *err)
{
	return rki_fbx_array_f64_in(n, i, ar, false, out, count, err);
}

bool rki_fbx_array_f64_scratch(const rki_fbx_node *n, size_t i, rki_arena *ar, const double **out, size_t *count,
	rk_error *err)
{
	return rki_fbx_array_f64_in(n, i, ar, true, out, count, err);
}

bool rki_fbx_array_i32(const rki_fbx_node *n, size_t i, rki_arena *ar, const int32_t **out, size_t *count,
	rk_error *err)
{
	*out = NULL;
	*count = 0;
	rki_fbx_seq s;
	if (!rki_fbx_get_seq(n, i, NULL, &s, err)) return false;
	if (s.type == 'i') {
		*out = (const int32_t *)s.data;
		*count = s.count;
		return true;
	}
	int32_t *dst = (int32_t *)rki_fbx_acc_alloc(n, &s, ar, sizeof(int32_t), 0, err);
	if (!dst) return false;
	for (size_t k = 0; k < s.count; k++) {
		int64_t v;
		if (!rki_fbx_seq_i64(&s, k, &v) || v < INT32_MIN || v > INT32_MAX)
			return rki_fbx_not_integer(n, &s, k, "an integer in int32 range", err);
		dst[k] = (int32_t)v;
	}
	*out = dst;
	*count = s.count;
	return true;
}

static bool rki_fbx_array_i64_in(const rki_fbx_node *n, size_t i, rki_arena *ar, bool scratch,
	const int64_t **out, size_t *count, rk_error *err)
{
	*out = NULL;
	*count = 0;
	rki_fbx_seq s;
	if (!rki_fbx_get_seq(n, i, scratch ? ar : NULL, &s, err)) return false;
	if (s.type == 'l') {
		*out = (const int64_t *)s.data;
		*count = s.count;
		return true;
	}
	int64_t *dst = (int64_t *)rki_fbx_acc_alloc(n, &s, ar, sizeof(int64_t), 0, err);
	if (!dst) return false;
	for (size_t k = 0; k < s.count; k++) {
		if (!rki_fbx_seq_i64(&s, k, &dst[k])) return rki_fbx_not_integer(n, &s, k, "an integer in int64 range", err);
	}
	*out = dst;
	*count = s.count;
	return true;
}

bool rki_fbx_array_i64(const rki_fbx_node *n, size_t i, rki_arena *ar, const int64_t **out, size_t *count,
	rk_error *err)
{
	return rki_fbx_array_i64_in(n, i, ar, false, out, count, err);
}

bool rki_fbx_array_i64_scratch(const rki_fbx_node *n, size_t i, rki_arena *ar, const int64_t **out, size_t *count,
	rk_error *err)
{
	return rki_fbx_array_i64_in(n, i, ar, true, out, count, err);
}

bool rki_fbx_prop_array(const rki_fbx_node *n, size_t i, const void **data, size_t *count, rk_error *err)
{
	*data = NULL;
	*count = 0;
	if (!n) {
		rki_error_set(err, RK_ERROR_INVALID_ARGUMENT, "expected an array node, got NULL");
		return false;
	}
	if (i >= n->prop_count)
		return rki_fbx_acc_fail(n, n->offset, err, RK_ERROR_CORRUPT,
			"expected an array as property %zu, but the node has %zu properties", i, n->prop_count);
	const rki_fbx_prop *pr = &n->props[i];
	if (rki_fbx_array_elem_size(pr->type) == 0)
		return rki_fbx_acc_fail(n, pr->offset, err, RK_ERROR_CORRUPT,
			"expected a numeric array as property %zu, found type '%c'", i, pr->type);
	if (pr->pending && !rki_fbx_decode_pending(n, i, NULL, NULL, err)) return false;
	*data = pr->v.a.data;
	*count = pr->v.a.count;
	return true;
}

/* ---- decoding many pending arrays on several threads ---------------------------------- */

/* Job states. A job is claimed (QUEUED -> RUNNING) by exactly one thread with a
 * compare-and-swap: a helper taking the next job in size order, or the calling
 * thread taking any job, in particular one an accessor is waiting for. */
enum { RKI_FBX_JOB_QUEUED, RKI_FBX_JOB_RUNNING, RKI_FBX_JOB_OK, RKI_FBX_JOB_FAILED };

/* Everything a worker needs, read from the input: workers never touch the
 * document (only the calling thread reads and writes properties and the arena).
 * Jobs are identified by the byte offset of their property (its type code). */
typedef struct rki_fbx_decode_job {
	uint64_t offset;
	rki_fbx_prop *prop;  /* set by the calling thread once the property exists */
	const unsigned char *src;
	size_t clen;
	void *out;          /* NULL: no memory, the array stays pending */
	size_t bytes, alloc, esize;
	char type;
	bool zlib;
	bool published;
	atomic_int state;
} rki_fbx_decode_job;

typedef struct rki_fbx_decode_worker {
	struct rki_fbx_decode_batch *batch;
	struct libdeflate_decompressor *inflater;
	pthread_t thread;
} rki_fbx_decode_worker;

struct rki_fbx_decode_batch {
	rki_alloc *tmp;
	rki_fbx_doc *doc;           /* NULL until a parse attaches the batch */
	rki_buf jobs;               /* rki_fbx_decode_job by increasing offset */
	rki_buf order;              /* size_t job indices, largest first: the helpers' queue */
	size_t count;
	atomic_size_t next;         /* next position in order */
	bool swap;
	bool sync;                  /* mutex and cond initialised */
	pthread_mutex_t mutex;      /* with cond: waiting for a job another thread runs */
	pthread_cond_t cond;
	rki_fbx_decode_worker workers[RKI_FBX_MAX_THREADS];
	size_t worker_count;        /* workers[0] is the calling thread's */
	size_t started;             /* helper threads running: workers[1..started) */
};

static rki_fbx_decode_job *rki_fbx_job(rki_fbx_decode_batch *b, size_t k)
{
	return (rki_fbx_decode_job *)(void *)b->jobs.data + k;
}

/* Runs a job this thread has claimed and wakes whoever waits for it. */
static void rki_fbx_job_run(rki_fbx_decode_batch *b, rki_fbx_decode_job *job, struct libdeflate_decompressor *inflater)
{
	size_t got;
	int lib_result;
	bool ok = job->out && (!job->zlib || inflater) &&
		rki_fbx_decode_array(job->zlib ? inflater : NULL, job->src, job->clen, job->out, job->bytes, job->alloc,
			job->esize, b->swap, &got, &lib_result) == RKI_FBX_DECODE_OK;
	if (b->sync) pthread_mutex_lock(&b->mutex);
	atomic_store_explicit(&job->state, ok ? RKI_FBX_JOB_OK : RKI_FBX_JOB_FAILED, memory_order_release);
	if (b->sync) {
		pthread_cond_broadcast(&b->cond);
		pthread_mutex_unlock(&b->mutex);
	}
}

static bool rki_fbx_job_claim(rki_fbx_decode_job *job)
{
	int expected = RKI_FBX_JOB_QUEUED;
	return atomic_compare_exchange_strong_explicit(&job->state, &expected, RKI_FBX_JOB_RUNNING,
		memory_order_acquire, memory_order_relaxed);
}

/* Claims and runs the next queued job in size order; false when none is left. */
static bool rki_fbx_job_run_next(rki_fbx_decode_batch *b, struct libdeflate_decompressor *inflater)
{
	const size_t *order = (const size_t *)(const void *)b->order.data;
	for (;;) {
		size_t k = atomic_fetch_add_explicit(&b->next, 1, memory_order_relaxed);
		if (k >= b->count) return false;
		rki_fbx_decode_job *job = rki_fbx_job(b, order[k]);
		if (!rki_fbx_job_claim(job)) continue;   /* the calling thread took it out of turn */
		rki_fbx_job_run(b, job, inflater);
		return true;
	}
}

static void *rki_fbx_decode_thread(void *arg)
{
	rki_fbx_decode_worker *w = (rki_fbx_decode_worker *)arg;
	while (rki_fbx_job_run_next(w->batch, w->inflater)) {}
	return NULL;
}

/* Calling thread: makes the job finished (running it, or helping with other
 * jobs and then waiting while a helper runs it) and publishes a success into
 * its property. True when the array is decoded. */
static bool rki_fbx_job_complete(rki_fbx_decode_batch *b, rki_fbx_decode_job *job)
{
	struct libdeflate_decompressor *inflater = b->worker_count ? b->workers[0].inflater : NULL;
	if (rki_fbx_job_claim(job)) rki_fbx_job_run(b, job, inflater);
	while (atomic_load_explicit(&job->state, memory_order_acquire) == RKI_FBX_JOB_RUNNING) {
		if (rki_fbx_job_run_next(b, inflater)) continue;
		pthread_mutex_lock(&b->mutex);   /* RUNNING here means a helper has it: sync is set */
		while (atomic_load_explicit(&job->state, memory_order_acquire) == RKI_FBX_JOB_RUNNING)
			pthread_cond_wait(&b->cond, &b->mutex);
		pthread_mutex_unlock(&b->mutex);
	}
	if (atomic_load_explicit(&job->state, memory_order_acquire) != RKI_FBX_JOB_OK || !job->prop) return false;
	if (!job->published) {
		job->prop->v.a.data = job->out;
		job->prop->pending = 0;
		job->published = true;
	}
	return true;
}

/* The job of the property at byte `offset`, or NULL. */
static rki_fbx_decode_job *rki_fbx_batch_find(rki_fbx_decode_batch *b, uint64_t offset)
{
	size_t lo = 0, hi = b->count;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		rki_fbx_decode_job *job = rki_fbx_job(b, mid);
		if (job->offset == offset) return job;
		if (job->offset < offset) lo = mid + 1;
		else hi = mid;
	}
	return NULL;
}

/* Parser hook: a pending array property just read; ties it to its job when the
 * job describes the same array (it was read from the same bytes). */
static void rki_fbx_batch_link(rki_fbx_decode_batch *b, rki_fbx_prop *pr)
{
	rki_fbx_decode_job *job = rki_fbx_batch_find(b, pr->offset);
	if (job && !job->prop && job->type == pr->type && job->bytes == pr->v.a.count * job->esize &&
		job->clen == pr->encoded_size && job->zlib == (pr->pending == 2))
		job->prop = pr;
}

/* Parse hook: the document serves its pending arrays from the batch from now on. */
static void rki_fbx_batch_attach(rki_fbx_decode_batch *b, rki_fbx_doc *doc)
{
	if (b->doc || doc->batch_) return;
	b->doc = doc;
	doc->batch_ = b;
}

/* Accessor hook: a pending property of the document's batch is waited for
 * instead of decoded again. False when it is not in the batch or its job
 * failed (then the caller decodes it, reporting the error). */
static bool rki_fbx_batch_take(rki_fbx_doc *doc, const rki_fbx_prop *pr)
{
	rki_fbx_decode_batch *b = doc->batch_;
	if (!b) return false;
	rki_fbx_decode_job *job = rki_fbx_batch_find(b, pr->offset);
	return job && job->prop == pr && rki_fbx_job_complete(b, job);
}

/* Node names a batch decodes, with their lengths (the first RKI_FBX_FILTER_LENS;
 * further names are measured when compared). len_mask has bit n set when a
 * listed name has length n < 64. */
#define RKI_FBX_FILTER_LENS 32u
typedef struct rki_fbx_name_filter {
	const char *const *names;   /* NULL: every node */
	size_t count;
	size_t lens[RKI_FBX_FILTER_LENS];
	uint64_t len_mask;
	bool long_names;            /* a listed name is 64 bytes or longer */
} rki_fbx_name_filter;

static void rki_fbx_filter_init(rki_fbx_name_filter *f, const char *const *names, size_t name_count)
{
	memset(f, 0, sizeof(*f));
	f->names = names;
	f->count = name_count;
	for (size_t k = 0; names && k < name_count; k++) {
		size_t len = names[k] ? strlen(names[k]) : 0;
		if (k < RKI_FBX_FILTER_LENS) f->lens[k] = len;
		if (len < 64) f->len_mask |= (uint64_t)1 << len;
		else f->long_names = true;
	}
}

static bool rki_fbx_name_listed(const rki_fbx_name_filter *f, const char *name, size_t name_len)
{
	if (!f->names) return true;
	if (name_len < 64 ? !(f->len_mask >> name_len & 1) : !f->long_names) return false;
	for (size_t k = 0; k < f->count; k++) {
		const char *listed = f->names[k];
		if (!listed || (name_len && listed[0] != name[0])) continue;
		size_t len = k < RKI_FBX_FILTER_LENS ? f->lens[k] : strlen(listed);
		if (len == name_len && memcmp(listed, name, len) == 0) return true;
	}
	return false;
}

/* Appends a job for every pending array below n (depth levels at most). Recursion depth <= max_depth. */
static bool rki_fbx_collect_pending(rki_buf *jobs, const rki_fbx_doc *doc, const rki_fbx_node *n,
	const rki_fbx_name_filter *f, size_t depth)
{
	for (size_t c = 0; c < n->child_count; c++) {
		const rki_fbx_node *ch = &n->children[c];
		if (ch->prop_count && rki_fbx_name_listed(f, ch->name, ch->name_len)) {
			for (size_t i = 0; i < ch->prop_count; i++) {
				rki_fbx_prop *pr = (rki_fbx_prop *)(uintptr_t)&ch->props[i];
				if (!pr->pending) continue;
				uint64_t at = pr->offset + 1 + RKI_FBX_ARRAY_HEADER;
				if (at > doc->input_size_ || pr->encoded_size > doc->input_size_ - at) continue;
				rki_fbx_decode_job job;
				memset(&job, 0, sizeof(job));
				job.offset = pr->offset;
				job.prop = pr;
				job.type = pr->type;
				job.esize = rki_fbx_array_elem_size(pr->type);
				job.bytes = pr->v.a.count * job.esize;   /* <= max_total_array_bytes */
				job.clen = pr->encoded_size;
				job.zlib = pr->pending == 2;
				job.src = doc->input_ + at;
				if (!rki_buf_push(jobs, &job, sizeof(job))) return false;
			}
		}
		if (depth > 1 && ch->child_count && !rki_fbx_collect_pending(jobs, doc, ch, f, depth - 1)) return false;
	}
	return true;
}

typedef struct rki_fbx_job_key { uint64_t offset; size_t bytes; size_t index; } rki_fbx_job_key;

static int rki_fbx_key_by_size(const void *a, const void *b)
{
	const rki_fbx_job_key *x = (const rki_fbx_job_key *)a, *y = (const rki_fbx_job_key *)b;
	if (x->bytes != y->bytes) return x->bytes > y->bytes ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

static int rki_fbx_job_by_offset(const void *a, const void *b)
{
	const rki_fbx_decode_job *x = (const rki_fbx_decode_job *)a, *y = (const rki_fbx_decode_job *)b;
	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

static size_t rki_fbx_online_cores(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (size_t)n : 1;
}

/* Threads (the calling one included) for `count` arrays of `total` decoded bytes. */
static size_t rki_fbx_thread_count(size_t threads, uint64_t total, size_t count)
{
	size_t want = threads ? threads : rki_fbx_online_cores();
	if (want > RKI_FBX_MAX_THREADS) want = RKI_FBX_MAX_THREADS;
	if ((uint64_t)want > 1 + total / RKI_FBX_THREAD_MIN_BYTES) want = (size_t)(1 + total / RKI_FBX_THREAD_MIN_BYTES);
	if (want > count) want = count;
	return want;
}

static rki_fbx_decode_batch *rki_fbx_batch_new(rki_alloc *tmp)
{
	rki_fbx_decode_batch *b = (rki_fbx_decode_batch *)rki_malloc(tmp, sizeof(*b));
	if (!b) return NULL;
	memset(b, 0, sizeof(*b));
	b->tmp = tmp;
	rki_buf_init(&b->jobs, tmp);
	rki_buf_init(&b->order, tmp);
	return b;
}

static void rki_fbx_batch_free(rki_fbx_decode_batch *b)
{
	for (size_t k = 0; k < b->worker_count; k++)
		if (b->workers[k].inflater) libdeflate_free_decompressor(b->workers[k].inflater);
	if (b->sync) {
		pthread_cond_destroy(&b->cond);
		pthread_mutex_destroy(&b->mutex);
	}
	rki_buf_free(&b->jobs);
	rki_buf_free(&b->order);
	rki_free(b->tmp, b, sizeof(*b));
}

/* Jobs collected: sorts them by offset, allocates their buffers from `arena`
 * (on this thread, in offset order), queues them largest first and starts the
 * helpers. NULL (batch freed) when there is nothing to decode. */
static rki_fbx_decode_batch *rki_fbx_batch_begin(rki_fbx_decode_batch *b, rki_arena *arena, bool swap, size_t threads)
{
	b->count = b->jobs.size / sizeof(rki_fbx_decode_job);
	if (b->count == 0 || !rki_buf_reserve(&b->order, b->count * sizeof(size_t))) {
		rki_fbx_batch_free(b);
		return NULL;
	}
	rki_fbx_decode_job *jobs = rki_fbx_job(b, 0);
	for (size_t k = 1; k < b->count; k++) {
		if (jobs[k].offset > jobs[k - 1].offset) continue;
		qsort(jobs, b->count, sizeof(*jobs), rki_fbx_job_by_offset);   /* file order already, normally */
		break;
	}
	uint64_t total = 0;
	bool any_zlib = false;
	for (size_t k = 0; k < b->count; k++) {
		rki_fbx_decode_job *job = &jobs[k];
		atomic_init(&job->state, RKI_FBX_JOB_QUEUED);
		if (k > 0 && job->offset == jobs[k - 1].offset) continue;   /* never: one job per property */
		if (!rki_fbx_array_alloc_size(job->type, job->bytes, &job->alloc)) continue;
		job->out = rki_arena_alloc_uninit(arena, job->alloc);
		if (!job->out) break;   /* the rest stays pending: accessors report the failure */
		total += job->bytes;
		any_zlib = any_zlib || job->zlib;
	}
	rki_buf keys;
	rki_buf_init(&keys, b->tmp);
	if (!rki_buf_reserve(&keys, b->count * sizeof(rki_fbx_job_key))) {
		rki_buf_free(&keys);
		rki_fbx_batch_free(b);
		return NULL;
	}
	rki_fbx_job_key *key = (rki_fbx_job_key *)(void *)keys.data;
	for (size_t k = 0; k < b->count; k++) {
		key[k].offset = jobs[k].offset;
		key[k].bytes = jobs[k].bytes;
		key[k].index = k;
	}
	qsort(key, b->count, sizeof(*key), rki_fbx_key_by_size);
	size_t *order = (size_t *)(void *)b->order.data;
	for (size_t k = 0; k < b->count; k++) order[k] = key[k].index;
	b->order.size = b->count * sizeof(size_t);
	rki_buf_free(&keys);
	b->swap = swap;
	atomic_init(&b->next, 0);

	size_t want = rki_fbx_thread_count(threads, total, b->count);
	for (; b->worker_count < want; b->worker_count++) {
		rki_fbx_decode_worker *w = &b->workers[b->worker_count];
		w->batch = b;
		w->inflater = NULL;
		if (any_zlib && !(w->inflater = libdeflate_alloc_decompressor())) break;
	}
	if (b->worker_count > 1 && pthread_mutex_init(&b->mutex, NULL) == 0) {
		if (pthread_cond_init(&b->cond, NULL) == 0) b->sync = true;
		else pthread_mutex_destroy(&b->mutex);
	}
	b->started = 1;
	if (b->sync)
		for (; b->started < b->worker_count; b->started++)
			if (!rki_thread_start(&b->workers[b->started].thread, rki_fbx_decode_thread, &b->workers[b->started]))
				break;
	return b;
}

rki_fbx_decode_batch *rki_fbx_decode_start(const rki_fbx_node *under, const char *const *names, size_t name_count,
	size_t max_depth, size_t threads, rki_alloc *tmp)
{
	if (!under || !tmp || max_depth == 0) return NULL;
	rki_fbx_doc *doc = rki_fbx_doc_of(under);
	if (!doc->input_ || !doc->arena_ || doc->batch_) return NULL;
	rki_fbx_decode_batch *b = rki_fbx_batch_new(tmp);
	if (!b) return NULL;
	rki_fbx_name_filter filter;
	rki_fbx_filter_init(&filter, names, name_count);
	if (!rki_fbx_collect_pending(&b->jobs, doc, under, &filter, max_depth)) b->jobs.size = 0;
	b = rki_fbx_batch_begin(b, doc->arena_, doc->big_endian == rki_fbx_host_little_endian(), threads);
	if (b) {
		b->doc = doc;
		doc->batch_ = b;
	}
	return b;
}

/* ---- pre-scan: decoding while the tree is still being parsed ------------------------------ */

typedef struct rki_fbx_prescan {
	const unsigned char *d;
	size_t size;
	bool be, wide;
	rki_fbx_name_filter filter;
	rki_fbx_limits lim;
	uint64_t array_bytes;
	rki_buf *jobs;
	bool failed;        /* out of memory: stop */
} rki_fbx_prescan;

static uint32_t rki_fbx_ps32(const rki_fbx_prescan *s, const unsigned char *b)
{
	if (s->be) return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | (uint32_t)b[3];
	return (uint32_t)b[3] << 24 | (uint32_t)b[2] << 16 | (uint32_t)b[1] << 8 | (uint32_t)b[0];
}

static uint64_t rki_fbx_ps64(const rki_fbx_prescan *s, const unsigned char *b)
{
	uint64_t lo = rki_fbx_ps32(s, b), hi = rki_fbx_ps32(s, b + 4);
	return s->be ? (lo << 32 | hi) : (hi << 32 | lo);
}

/* A node record at pos inside [.., end): false when it is the null record or
 * does not fit (the parse proper reports that). */
static bool rki_fbx_ps_record(const rki_fbx_prescan *s, size_t pos, size_t end, size_t *rec_end, size_t *body,
	uint64_t *nprops, size_t *plen, const char **name, size_t *name_len)
{
	size_t hdr = s->wide ? 25 : 13;
	if (pos > end || end - pos < hdr) return false;
	const unsigned char *h = s->d + pos;
	uint64_t e = s->wide ? rki_fbx_ps64(s, h) : rki_fbx_ps32(s, h);
	uint64_t np = s->wide ? rki_fbx_ps64(s, h + 8) : rki_fbx_ps32(s, h + 4);
	uint64_t pl = s->wide ? rki_fbx_ps64(s, h + 16) : rki_fbx_ps32(s, h + 8);
	size_t nl = h[hdr - 1];
	if (e == 0 || e > end || e < (uint64_t)pos + hdr + nl || pl > e - (pos + hdr + nl)) return false;
	*rec_end = (size_t)e;
	*body = pos + hdr + nl;
	*nprops = np;
	*plen = (size_t)pl;
	*name = (const char *)h + hdr;
	*name_len = nl;
	return true;
}

/* The array properties of one listed node, with the parse's own checks. */
static void rki_fbx_ps_props(rki_fbx_prescan *s, size_t pos, size_t pend, uint64_t nprops)
{
	for (uint64_t i = 0; i < nprops && pos < pend && !s->failed; i++) {
		size_t at = pos++;
		char t = (char)s->d[at];
		size_t fixed = 0;
		switch (t) {
		case 'Y': fixed = 2; break;
		case 'C': fixed = 1; break;
		case 'I': case 'F': fixed = 4; break;
		case 'D': case 'L': fixed = 8; break;
		case 'S': case 'R':
			if (pend - pos < 4) return;
			fixed = 4 + (size_t)rki_fbx_ps32(s, s->d + pos);
			if (fixed < 4) return;
			break;
		case 'f': case 'd': case 'l': case 'i': case 'b': {
			if (pend - pos < RKI_FBX_ARRAY_HEADER) return;
			const unsigned char *h = s->d + pos;
			uint32_t count = rki_fbx_ps32(s, h), encoding = rki_fbx_ps32(s, h + 4), clen = rki_fbx_ps32(s, h + 8);
			pos += RKI_FBX_ARRAY_HEADER;
			if (clen > pend - pos) return;
			size_t esize = rki_fbx_array_elem_size(t);
			uint64_t bytes = (uint64_t)count * esize;
			bool ok = count > 0 && count <= s->lim.max_array_elems &&
				bytes <= (uint64_t)s->lim.max_total_array_bytes - s->array_bytes &&
				((encoding == 0 && bytes == clen) ||
					(encoding == 1 && bytes <= (uint64_t)clen * RKI_FBX_MAX_INFLATE_RATIO + 1024));
			if (ok) {
				rki_fbx_decode_job job;
				memset(&job, 0, sizeof(job));
				job.offset = at;
				job.type = t;
				job.esize = esize;
				job.bytes = (size_t)bytes;
				job.clen = clen;
				job.zlib = encoding == 1;
				job.src = s->d + pos;
				s->array_bytes += bytes;
				if (!rki_buf_push(s->jobs, &job, sizeof(job))) s->failed = true;
			}
			pos += clen;
			continue;
		}
		default:
			return;
		}
		if (pend - pos < fixed) return;
		pos += fixed;
	}
}

/* Children of a node in [pos, end), depth levels at most; with `only`, just
 * the children it lists (this level only). Recursion depth <= max_depth (<= 16). */
static void rki_fbx_ps_children(rki_fbx_prescan *s, size_t pos, size_t end, size_t depth,
	const rki_fbx_name_filter *only)
{
	size_t rec_end, body, plen, name_len;
	uint64_t nprops;
	const char *name;
	while (!s->failed && rki_fbx_ps_record(s, pos, end, &rec_end, &body, &nprops, &plen, &name, &name_len)) {
		if (only && !rki_fbx_name_listed(only, name, name_len)) {
			pos = rec_end;   /* a whole subtree skipped in O(1): records know their end */
			continue;
		}
		if (nprops && rki_fbx_name_listed(&s->filter, name, name_len)) rki_fbx_ps_props(s, body, body + plen, nprops);
		if (depth > 1 && body + plen < rec_end) rki_fbx_ps_children(s, body + plen, rec_end, depth - 1, NULL);
		pos = rec_end;
	}
}

rki_fbx_decode_batch *rki_fbx_decode_prescan(const void *data, size_t size, const char *under,
	const char *const *containers, size_t container_count, const char *const *names, size_t name_count,
	size_t max_depth, size_t threads, const rki_fbx_limits *limits, rki_arena *arena, rki_alloc *tmp)
{
	const unsigned char *d = (const unsigned char *)data;
	if (!d || !under || !arena || !tmp || max_depth == 0 || max_depth > 16 || size < RKI_FBX_HEADER_SIZE ||
		memcmp(d, rki_fbx_magic, sizeof(rki_fbx_magic)) != 0 || d[22] > 1)
		return NULL;
	rki_fbx_prescan s;
	memset(&s, 0, sizeof(s));
	s.d = d;
	s.size = size;
	s.be = d[22] == 1;
	uint32_t version = rki_fbx_ps32(&s, d + 23);
	if (version < 3000 || version >= 8000) return NULL;
	s.wide = version >= 7500;
	rki_fbx_filter_init(&s.filter, names, name_count);
	rki_fbx_name_filter top;
	rki_fbx_filter_init(&top, containers, container_count);
	if (limits) s.lim = *limits;
	if (!s.lim.max_array_elems) s.lim.max_array_elems = RKI_FBX_DEFAULT_MAX_ARRAY_ELEMS;
	if (!s.lim.max_total_array_bytes) {
		uint64_t def = RKI_FBX_DEFAULT_MAX_TOTAL_ARRAY_BYTES;
		s.lim.max_total_array_bytes = def > SIZE_MAX ? SIZE_MAX : (size_t)def;
	}
	rki_fbx_decode_batch *b = rki_fbx_batch_new(tmp);
	if (!b) return NULL;
	s.jobs = &b->jobs;
	size_t under_len = strlen(under), pos = RKI_FBX_HEADER_SIZE, rec_end, body, plen, name_len;
	uint64_t nprops;
	const char *name;
	while (!s.failed && rki_fbx_ps_record(&s, pos, size, &rec_end, &body, &nprops, &plen, &name, &name_len)) {
		if (name_len == under_len && memcmp(name, under, under_len) == 0 && body + plen < rec_end)
			rki_fbx_ps_children(&s, body + plen, rec_end, max_depth, containers ? &top : NULL);
		pos = rec_end;
	}
	if (s.failed) b->jobs.size = 0;
	/* Without a helper thread a batch only costs: lazy decoding on access does the same. */
	if (rki_fbx_thread_count(threads, s.array_bytes, b->jobs.size / sizeof(rki_fbx_decode_job)) < 2) {
		rki_fbx_batch_free(b);
		return NULL;
	}
	return rki_fbx_batch_begin(b, arena, s.be == rki_fbx_host_little_endian(), threads);
}

size_t rki_fbx_decode_finish(rki_fbx_decode_batch *b)
{
	if (!b) return 0;
	/* The calling thread works through what is left, then the helpers are joined. */
	struct libdeflate_decompressor *inflater = b->worker_count ? b->workers[0].inflater : NULL;
	while (rki_fbx_job_run_next(b, inflater)) {}
	for (size_t k = 1; k < b->started; k++) pthread_join(b->workers[k].thread, NULL);
	b->started = 1;
	size_t decoded = 0;
	for (size_t k = 0; b->doc && k < b->count; k++)
		if (rki_fbx_job_complete(b, rki_fbx_job(b, k))) decoded++;   /* every job is finished here */
	if (b->doc) b->doc->batch_ = NULL;
	rki_fbx_batch_free(b);
	return decoded;
}

size_t rki_fbx_decode_arrays(const rki_fbx_node *under, const char *const *names, size_t name_count,
	size_t max_depth, size_t threads, rki_alloc *tmp)
{
	return rki_fbx_decode_finish(rki_fbx_decode_start(under, names, name_count, max_depth, threads, tmp));
}

/* Object names: strips the class part ("Model::x" in ASCII, "x\0\1Model"
 * in binary) and copies the plain name into the arena. */
const char *rki_fbx_plain_name(rki_arena *ar, const char *s, size_t len)
{
	/* Binary FBX: "name\x00\x01Class". */
	for (size_t i = 0; i + 1 < len; i++) {
		if (s[i] == '\0' && s[i + 1] == '\x01') return rki_arena_strndup(ar, s, i);
	}
	/* ASCII FBX: "Class::name". */
	for (size_t i = 0; i + 1 < len; i++) {
		if (s[i] == ':' && s[i + 1] == ':') {
			s += i + 2;
			len -= i + 2;
			break;
		}
	}
	return rki_arena_strndup(ar, s, len);
}
