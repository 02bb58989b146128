/*
 * src/formats/fbx/fbx_dom_tree.c - the FBX document tree (see fbx_dom.h): the stack of
 * open nodes both tokenizers build the tree with, parse errors, node paths,
 * child lookup and plain names.
 *
 * Both tokenizers walk the file with an explicit stack of open nodes
 * ("frames") instead of recursion. A finished node is pushed on a temporary
 * stack of nodes; when its parent closes, the parent's children are copied
 * from the top of that stack into one arena array, and the grandchildren's
 * parent pointers are pointed at their final place. So every node is copied
 * twice and there is no per-node malloc.
 */
#include "formats/fbx/fbx_dom_private.h"

#include <stdarg.h>
#include <stddef.h>
#include <string.h>

/* Element of a zero-length array, so data is never NULL; also its zero pad. */
const uint64_t rki_fbx_empty_array[RKI_FBX_ARRAY_PAD / 8] = { 0 };

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

/* ---- parse errors ----------------------------------------------------------------- */

/* ASCII: the 1-based line of the parse position, counted only when an error
 * names it (the tokenizer does not count lines as it goes: a memchr per
 * string for its newlines was 3-4% of an ASCII load). Every newline before
 * p->pos has been consumed, so this is the line the parser is on. */
static uint64_t rki_fbx_line_at(const rki_fbx_parser *p)
{
	size_t end = p->pos < p->size ? p->pos : p->size;
	uint64_t line = 1;
	for (const unsigned char *s = p->data, *e = p->data + end; s < e; s++) {
		s = (const unsigned char *)memchr(s, '\n', (size_t)(e - s));
		if (!s) break;
		line++;
	}
	return line;
}

bool rki_fbx_parse_error(rki_fbx_parser *p, rk_error_code code, uint64_t offset, const char *fmt, ...)
{
	if (!p->err) return false;
	va_list ap;
	va_start(ap, fmt);
	rki_error_setv(p->err, code, fmt, ap);
	va_end(ap);
	rki_error_at_byte(p->err, offset);
	if (p->ascii) rki_error_at_line(p->err, rki_fbx_line_at(p));
	char path[RK_ERROR_TEXT_MAX];
	rki_fbx_parser_path(p, path, sizeof(path));
	if (path[0]) rki_error_at_path(p->err, RK_LOCATION_FBX_NODE, path);
	return false;
}

/* Out of memory, or the memory limit, while parsing; returns false. */
bool rki_fbx_parse_oom(rki_fbx_parser *p)
{
	bool limit = p->tmp->limit_hit || (p->arena->alloc && p->arena->alloc->limit_hit);
	if (limit)
		return rki_fbx_parse_error(p, RK_ERROR_LIMIT, p->pos, "memory budget of %zu bytes exceeded while parsing",
			p->tmp->limit_hit ? p->tmp->memory_limit : p->arena->alloc->memory_limit);
	return rki_fbx_parse_error(p, RK_ERROR_OUT_OF_MEMORY, p->pos, "out of memory while parsing");
}

/* ---- tree building (shared) --------------------------------------------------- */

bool rki_fbx_open(rki_fbx_parser *p, const rki_fbx_node *node, uint64_t end)
{
	rki_fbx_frame f;
	memset(&f, 0, sizeof(f));
	f.node = *node;
	f.end = end;
	f.child_start = p->nodes.size / sizeof(rki_fbx_node);
	if (!rki_buf_push(&p->frames, &f, sizeof(f))) return rki_fbx_parse_oom(p);
	return true;
}

/* Closes the top frame: its finished children move into one arena array. */
bool rki_fbx_close(rki_fbx_parser *p)
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

/* Pool blocks grow from 4 KiB to 256 KiB; a string longer than a quarter of
 * the next block gets memory of its own (the pool's tail stays in use). */
#define RKI_FBX_STR_BLOCK_MIN ((size_t)4 << 10)
#define RKI_FBX_STR_BLOCK_MAX ((size_t)256 << 10)

const char *rki_fbx_strdup_block(rki_fbx_parser *p, const char *s, size_t len)
{
	size_t block = p->str_block < RKI_FBX_STR_BLOCK_MIN ? RKI_FBX_STR_BLOCK_MIN : p->str_block;
	if (len >= block / 4) return rki_arena_strndup(p->arena, s, len);
	char *b = (char *)rki_arena_alloc_uninit(p->arena, block);
	if (!b) return NULL;
	p->str_at = b;
	p->str_left = block;
	p->str_block = block < RKI_FBX_STR_BLOCK_MAX ? block * 2 : block;
	return rki_fbx_strdup(p, s, len);
}

bool rki_fbx_open_root(rki_fbx_parser *p)
{
	rki_fbx_node root;
	memset(&root, 0, sizeof(root));
	root.name = "";
	return rki_fbx_open(p, &root, p->size);
}

/* ---- queries and names ------------------------------------------------------------ */

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

/* The document a node belongs to: its root is doc->root. */
rki_fbx_doc *rki_fbx_doc_of(const rki_fbx_node *n)
{
	while (n->parent) n = n->parent;
	return (rki_fbx_doc *)(void *)((unsigned char *)(uintptr_t)n - offsetof(rki_fbx_doc, root));
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
