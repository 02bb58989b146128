/*
 * src/formats/fbx/fbx_dom.c - FBX bytes -> node tree, binary and ASCII (see
 * fbx_dom.h): the entry points. rki_fbx_parse_ex() sets up the parser, runs
 * the binary or the ASCII tokenizer and reads the version; the other jobs
 * live in the files of the call graph in fbx_dom_private.h, none of which
 * calls back into this file.
 */
#include "formats/fbx/fbx_dom_private.h"

#include <libdeflate.h>
#include <string.h>

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
		doc->inflater_ = p.lazy ? opts->inflater : NULL;
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
