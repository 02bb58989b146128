/* src/formats/gltf/gltf_buffer.c - GLB container, buffers, URIs, bufferViews and
 * accessors of the glTF reader. Every offset and count read from the file is
 * checked against the bytes that exist, with overflow-checked arithmetic,
 * before anything is read or allocated. */
#include "gltf_internal.h"

#include <stdio.h>
#include <string.h>

#define RKI_GLB_MAGIC 0x46546C67u      /* "glTF" */
#define RKI_GLB_CHUNK_JSON 0x4E4F534Au /* "JSON" */
#define RKI_GLB_CHUNK_BIN 0x004E4942u  /* "BIN\0" */

/* ---- GLB container -------------------------------------------------------- */

/* len (<= 8) bytes at `off` of the input: in memory, or read into dst. */
static const unsigned char *rki_glb_at(rki_gltf *g, uint64_t off, size_t len, unsigned char *dst, const char *what)
{
	if (g->input) return g->input + off;
	return rki_gltf_stream_read(g, off, dst, len, what) ? dst : NULL;
}

bool rki_gltf_parse_glb(rki_gltf *g, const unsigned char **json, size_t *json_size)
{
	size_t size = (size_t)g->input_size;
	unsigned char head[20];
	if (size < 12)
		return rki_gltf_fail_byte(g, RK_ERROR_TRUNCATED, 0, "GLB header needs 12 bytes, the input has %zu", size);
	const unsigned char *data = rki_glb_at(g, 0, size < 20 ? 12 : 20, head, "the GLB header");
	if (!data) return false;
	if (rki_le32(data) != RKI_GLB_MAGIC)
		return rki_gltf_fail_byte(g, RK_ERROR_CORRUPT, 0, "expected the GLB magic \"glTF\"");
	uint32_t version = rki_le32(data + 4);
	if (version != 2)
		return rki_gltf_fail_byte(g, RK_ERROR_UNSUPPORTED, 4, "GLB container version %u; expected 2 (glTF 2.0)", (unsigned)version);
	uint32_t length = rki_le32(data + 8);
	if (length < 20)
		return rki_gltf_fail_byte(g, RK_ERROR_CORRUPT, 8, "GLB length %u is too small (expected at least 20: header and a chunk header)",
			(unsigned)length);
	if (length > size)
		return rki_gltf_fail_byte(g, RK_ERROR_TRUNCATED, 8, "GLB header says %u bytes, the input has only %zu", (unsigned)length, size);
	if (length < size)
		rki_gltf_warn(g, NULL, "%zu bytes after the end of the GLB data (header length %u) ignored", size - length, (unsigned)length);
	size_t end = length;

	size_t off = 12;
	uint32_t clen = rki_le32(data + off), ctype = rki_le32(data + off + 4);
	if (ctype != RKI_GLB_CHUNK_JSON)
		return rki_gltf_fail_byte(g, RK_ERROR_CORRUPT, off + 4, "first GLB chunk has type 0x%08X; expected JSON (0x4E4F534A)", (unsigned)ctype);
	if (clen == 0)
		return rki_gltf_fail_byte(g, RK_ERROR_CORRUPT, off, "GLB JSON chunk is empty");
	if (clen > end - off - 8)
		return rki_gltf_fail_byte(g, RK_ERROR_TRUNCATED, off, "GLB JSON chunk of %u bytes runs past the end of the data (%zu bytes left)",
			(unsigned)clen, end - off - 8);
	if (g->input) {
		*json = g->input + off + 8;
	} else {
		unsigned char *text = (unsigned char *)rki_arena_alloc_uninit(&g->sc.tmp, clen);
		if (!text) return rki_gltf_oom(g);
		if (!rki_gltf_stream_read(g, off + 8, text, clen, "the GLB JSON chunk")) return false;
		*json = text;
	}
	*json_size = clen;
	if (clen % 4 != 0) rki_gltf_warn(g, NULL, "GLB chunk length is not a multiple of 4");
	off += 8 + (size_t)clen;

	while (off < end) {
		if (end - off < 8) {
			rki_gltf_warn(g, NULL, "%zu stray bytes after the last GLB chunk ignored", end - off);
			break;
		}
		const unsigned char *ch = rki_glb_at(g, off, 8, head, "a GLB chunk header");
		if (!ch) return false;
		clen = rki_le32(ch);
		ctype = rki_le32(ch + 4);
		if (clen > end - off - 8)
			return rki_gltf_fail_byte(g, RK_ERROR_TRUNCATED, off, "GLB chunk of %u bytes runs past the end of the data (%zu bytes left)",
				(unsigned)clen, end - off - 8);
		if (ctype == RKI_GLB_CHUNK_BIN) {
			if (!g->has_bin) {
				g->has_bin = true;
				g->bin = g->input ? g->input + off + 8 : NULL;
				g->bin_offset = off + 8;
				g->bin_size = clen;
			} else {
				rki_gltf_warn(g, NULL, "more than one GLB BIN chunk: only the first is used");
			}
		}
		/* Chunks of other types are skipped, as the specification asks. */
		off += 8 + (size_t)clen;
	}
	return true;
}

/* ---- Streamed GLB ------------------------------------------------------------------
 * rk_load_file of a GLB file does not read it whole: the header and JSON
 * chunk are read first, and a bufferView of the BIN chunk is read (pread)
 * into memory of its own the first time an accessor, image, Draco or
 * meshopt stream uses it, then freed at the next rki_gltf_views_release(),
 * which the passes call after each mesh, skin, animation, image and Draco
 * primitive. The load then holds the scene, the JSON document and the views
 * of one item at a time instead of the file (Xbot.glb: 2.9 MB less at its
 * peak; docs/benchmarks.md, "GLB load peak memory"). Every byte read is
 * bounds checked as in memory; a read that fails or comes back short (the
 * file changed under the load) is RK_ERROR_IO at its byte offset. */

bool rki_gltf_stream_read(rki_gltf *g, uint64_t offset, void *dst, size_t len, const char *what)
{
	if (len == 0) return true;
	if (offset > g->input_size || len > g->input_size - offset || !g->stream->read(g->stream->ctx, offset, dst, len))
		return rki_gltf_fail_byte(g, RK_ERROR_IO, offset, "cannot read %zu bytes of %s at this offset (the file is shorter "
			"than when it was opened, or a read error)", len, what);
	return true;
}

/* A piece of a streamed BIN chunk in memory: views inside it point into it. */
typedef struct rki_gltf_region {
	uint64_t offset;
	size_t length;
	unsigned char *data;
} rki_gltf_region;

/* A view smaller than RKI_GLTF_SMALL_VIEW is read with what follows it in
 * the BIN chunk, up to RKI_GLTF_READ_WINDOW bytes: an animation's hundreds
 * of small outputs lie one after another, and one read then serves many
 * (Xbot.glb, 1407 samplers: 2864 reads of about 10 us each per two loads
 * when every view was read alone, 21 ms against 1.9 ms in memory). Larger
 * views are read exactly: a window after them would be bytes copied for
 * nothing (readyplayer.me.glb: 128 KiB windows after every view cost 0.2
 * ms more per load than these, and 0.3 MB more at the peak). */
#define RKI_GLTF_READ_WINDOW ((size_t)64 * 1024)
#define RKI_GLTF_SMALL_VIEW ((size_t)16 * 1024)

bool rki_gltf_view_data(rki_gltf *g, size_t view, const unsigned char **out)
{
	static const unsigned char empty[1] = { 0 };
	rki_gltf_view *v = &g->views[view];
	if (!v->streamed || v->data) {
		*out = v->data;
		return true;
	}
	if (v->length == 0) {  /* in memory this points into the buffer: never read */
		*out = empty;
		return true;
	}
	*out = NULL;
	if (!rki_buf_reserve(&g->held_views, sizeof(size_t))) return rki_gltf_oom(g);
	const rki_gltf_region *regions = (const rki_gltf_region *)g->held_regions.data;
	const unsigned char *found = NULL;
	for (size_t k = g->held_regions.size / sizeof(rki_gltf_region); k-- > 0 && !found;) {
		const rki_gltf_region *r = &regions[k];
		if (v->file_offset >= r->offset && v->file_offset - r->offset <= r->length && v->length <= r->length - (size_t)(v->file_offset - r->offset))
			found = r->data + (v->file_offset - r->offset);
	}
	if (!found) {
		if (!rki_buf_reserve(&g->held_regions, sizeof(rki_gltf_region))) return rki_gltf_oom(g);
		/* the view and what follows it in the BIN chunk, up to the window */
		uint64_t bin_end = g->bin_offset + g->bin_size;
		size_t len = v->length;
		if (len < RKI_GLTF_SMALL_VIEW && v->file_offset < bin_end)
			len = bin_end - v->file_offset < RKI_GLTF_READ_WINDOW ? (size_t)(bin_end - v->file_offset) : RKI_GLTF_READ_WINDOW;
		if (len < v->length) len = v->length;
		unsigned char *p = (unsigned char *)rki_malloc(g->sc.alloc, len);
		if (!p) return rki_gltf_oom(g);
		rki_gltf_region r = { v->file_offset, len, p };
		rki_buf_push(&g->held_regions, &r, sizeof(r));  /* freed by the release, also after a failed read */
		char what[64];
		snprintf(what, sizeof(what), "bufferView %zu", view);
		if (!rki_gltf_stream_read(g, v->file_offset, p, len, what)) return false;
		found = p;
	}
	rki_buf_push(&g->held_views, &view, sizeof(view));
	v->data = found;
	v->held = true;
	*out = found;
	return true;
}

void rki_gltf_views_release(rki_gltf *g)
{
	size_t n = g->held_views.size / sizeof(size_t);
	for (size_t k = 0; k < n; k++) {
		size_t i;
		memcpy(&i, g->held_views.data + k * sizeof(size_t), sizeof(i));
		g->views[i].data = NULL;
		g->views[i].held = false;
	}
	g->held_views.size = 0;
	rki_gltf_region *regions = (rki_gltf_region *)g->held_regions.data;
	for (size_t k = 0; k < g->held_regions.size / sizeof(rki_gltf_region); k++)
		rki_free(g->sc.alloc, regions[k].data, regions[k].length);
	g->held_regions.size = 0;
}

/* ---- URIs ------------------------------------------------------------------------ */

bool rki_gltf_is_data_uri(const char *uri, size_t len)
{
	return len >= 5 && memcmp(uri, "data:", 5) == 0;
}

static int rki_base64_value(unsigned char c)
{
	if (c >= 'A' && c <= 'Z') return c - 'A';
	if (c >= 'a' && c <= 'z') return c - 'a' + 26;
	if (c >= '0' && c <= '9') return c - '0' + 52;
	if (c == '+' || c == '-') return 62;  /* '-' and '_': the URL-safe alphabet */
	if (c == '/' || c == '_') return 63;
	return -1;
}

bool rki_gltf_decode_data_uri(rki_gltf *g, rki_arena *ar, const char *uri, size_t uri_len, const rki_gltf_loc *path,
	unsigned char **out, size_t *size, const char **mime)
{
	*out = NULL;
	*size = 0;
	if (!rki_gltf_is_data_uri(uri, uri_len)) return rki_gltf_fail(g, RK_ERROR_CORRUPT, path, "expected a data: URI");
	const char *p = uri + 5;
	const char *comma = (const char *)memchr(p, ',', uri_len - 5);
	if (!comma) return rki_gltf_fail(g, RK_ERROR_CORRUPT, path, "data: URI has no ',' before its data");
	size_t header_len = (size_t)(comma - p);
	bool base64 = header_len >= 7 && memcmp(comma - 7, ";base64", 7) == 0;
	if (mime) {
		size_t mlen = 0;
		while (mlen < header_len && p[mlen] != ';') mlen++;
		*mime = rki_arena_strndup(g->sc.arena, p, mlen);
		if (!*mime) return rki_gltf_oom(g);
	}
	const char *body = comma + 1;
	size_t len = (size_t)(uri + uri_len - body);
	if (!base64) {
		unsigned char *dst = (unsigned char *)rki_arena_alloc_uninit(ar, len + 1);
		if (!dst) return rki_gltf_oom(g);
		size_t n = rki_percent_decode(dst, NULL, body, len, true);
		if (n == SIZE_MAX) return rki_gltf_fail(g, RK_ERROR_CORRUPT, path, "data: URI has a bad %%-escape (expected %%XX with hex digits)");
		*out = dst;
		*size = n;
		return true;
	}
	/* Padding '=' only at the very end; whitespace is not allowed in URIs. */
	size_t data_len = len;
	while (data_len > 0 && body[data_len - 1] == '=' && len - data_len < 2) data_len--;
	if (data_len % 4 == 1) return rki_gltf_fail(g, RK_ERROR_CORRUPT, path, "base64 data of the data: URI has an impossible length");
	size_t cap = data_len / 4 * 3 + 3;
	unsigned char *dst = (unsigned char *)rki_arena_alloc_uninit(ar, cap);
	if (!dst) return rki_gltf_oom(g);
	size_t n = 0;
	uint32_t acc = 0;
	int bits = 0;
	for (size_t i = 0; i < data_len; i++) {
		int v = rki_base64_value((unsigned char)body[i]);
		if (v < 0)
			return rki_gltf_fail(g, RK_ERROR_CORRUPT, path, "invalid base64 character 0x%02X at offset %zu of the data: URI data",
				(unsigned)(unsigned char)body[i], i);
		acc = (acc << 6) | (uint32_t)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			dst[n++] = (unsigned char)(acc >> bits);
			acc &= (1u << bits) - 1u;
		}
	}
	*out = dst;
	*size = n;
	return true;
}

bool rki_gltf_open_uri(rki_gltf *g, const rki_json *uri, const rki_gltf_loc *path, bool read, rki_arena *arena,
	rki_file_result *res)
{
	rki_file_ask ask = { .refs = { uri->u.text }, .ref_lens = { uri->len }, .uri = true, .read = read, .arena = arena };
	if (rki_scene_open_file(&g->sc, &ask, res) != RKI_FILE_FAILED) return true;
	/* the policy named the file; add where it is referenced */
	char p[RKI_GLTF_PATH_MAX];
	rki_gltf_loc_format(p, sizeof(p), path);
	rki_error_at_path(g->err, RK_LOCATION_JSON, p);
	return false;
}

/* ---- buffers and bufferViews ----------------------------------------------------- */

static bool rki_gltf_load_buffer(rki_gltf *g, size_t i)
{
	const rki_gltf_loc *base = RKI_GLTF_IDX(RKI_GLTF_KEY(NULL, "buffers"), i), *upath = RKI_GLTF_KEY(base, "uri");
	const rki_json *obj = &g->buffers.items[i], *uri;
	size_t byte_length;
	if (!rki_gltf_uint(g, obj, base, "byteLength", 0, SIZE_MAX, true, &byte_length)) return false;
	if (!rki_gltf_string(g, obj, base, "uri", &uri)) return false;
	rki_gltf_buffer *b = &g->buffer_data[i];
	size_t have = 0;
	if (uri && rki_gltf_is_data_uri(uri->u.text, uri->len)) {
		unsigned char *data;
		if (!rki_gltf_decode_data_uri(g, &g->sc.tmp, uri->u.text, uri->len, upath, &data, &have, NULL)) return false;
		b->data = data;
	} else if (uri) {
		rki_file_result res;
		rki_scene_budget_input(&g->sc, byte_length);  /* an input too: the default budget follows it */
		if (!rki_gltf_open_uri(g, uri, upath, true, &g->sc.tmp, &res)) return false;
		if (res.status == RKI_FILE_REFUSED) {
			/* the rest of the file still loads: accessors on it read zeros */
			rki_gltf_warn(g, upath, "buffer %zu: %s (its accessors read as zeros)", i, res.why);
			b->data = NULL;
			b->size = byte_length;
			return true;
		}
		if (res.status != RKI_FILE_OK) return rki_gltf_fail(g, RK_ERROR_IO, upath, "buffer %zu: %s", i, res.why);
		b->data = res.data;
		have = res.size;
	} else if (g->is_glb && g->has_bin && i == 0) {
		b->data = g->bin;
		b->streamed = !g->bin;
		b->file_offset = g->bin_offset;
		have = g->bin_size;
	} else if (g->meshopt) {
		/* EXT_meshopt_compression: a placeholder for the decoded bufferViews */
		b->data = NULL;
		b->size = byte_length;
		b->placeholder = true;
		return true;
	} else {
		return rki_gltf_fail(g, RK_ERROR_CORRUPT, base,
			g->is_glb ? "buffer has no uri and is not buffer 0 backed by the GLB BIN chunk"
			          : "buffer has no uri (only buffer 0 of a GLB file may omit it)");
	}
	if (have < byte_length) {
		return rki_gltf_fail_key(g, RK_ERROR_CORRUPT, base, "byteLength", "buffer byteLength is %zu but its data holds only %zu bytes", byte_length, have);
	}
	if (uri && have > byte_length)
		rki_gltf_warn(g, base, "buffer data is longer than its byteLength: the extra bytes are ignored");
	b->size = byte_length;
	return true;
}

static bool rki_gltf_load_view(rki_gltf *g, size_t i)
{
	const rki_gltf_loc *base = RKI_GLTF_IDX(RKI_GLTF_KEY(NULL, "bufferViews"), i);
	const rki_json *obj = &g->buffer_views.items[i];
	size_t buffer, offset, length, stride;
	if (!rki_gltf_index(g, obj, base, "buffer", g->buffers.count, "buffers", true, &buffer)) return false;
	if (!rki_gltf_uint(g, obj, base, "byteOffset", 0, SIZE_MAX, false, &offset)) return false;
	if (!rki_gltf_uint(g, obj, base, "byteLength", 0, SIZE_MAX, true, &length)) return false;
	if (!rki_gltf_uint(g, obj, base, "byteStride", 0, 1u << 20, false, &stride)) return false;
	if (rki_gltf_member(obj, "byteStride") && (stride < 4 || stride > 252 || stride % 4 != 0))
		rki_gltf_warn(g, base, "bufferView byteStride is not a multiple of 4 in 4..252 as glTF requires: used as stored");
	if (rki_gltf_member(obj, "byteStride") && stride == 0)
		return rki_gltf_fail_key(g, RK_ERROR_CORRUPT, base, "byteStride", "expected a byteStride from 4 to 252, got 0");
	const rki_gltf_buffer *b = &g->buffer_data[buffer];
	size_t end;
	if (!rki_add_size(offset, length, &end) || end > b->size)
		return rki_gltf_fail_key(g, RK_ERROR_CORRUPT, base, "byteLength",
			"byteOffset %zu + byteLength %zu exceeds the byteLength %zu of buffer %zu", offset, length, b->size, buffer);
	g->views[i].data = b->data ? b->data + offset : NULL;
	g->views[i].length = length;
	g->views[i].stride = stride;
	g->views[i].streamed = b->streamed;
	g->views[i].file_offset = b->file_offset + offset;
	const rki_json *exts, *mo = NULL;
	const rki_gltf_loc *epath = RKI_GLTF_KEY(base, "extensions");
	const char *mo_name = "EXT_meshopt_compression";
	if (!rki_gltf_object(g, obj, base, "extensions", &exts)) return false;
	if (exts && !rki_gltf_object(g, exts, epath, mo_name, &mo)) return false;
	if (exts && !mo) {
		mo_name = "MESHOPT_compression";
		if (!rki_gltf_object(g, exts, epath, mo_name, &mo)) return false;
	}
	if (mo && g->meshopt)
		return rki_gltf_meshopt_view(g, i, mo, RKI_GLTF_KEY(epath, mo_name), &g->views[i], rki_gltf_member(obj, "byteStride") != NULL);
	if (b->placeholder)
		return rki_gltf_fail_key(g, RK_ERROR_CORRUPT, base, "buffer",
			"bufferView reads buffer %zu, which has no data (no uri: an EXT_meshopt_compression placeholder), "
			"and has no EXT_meshopt_compression object of its own", buffer);
	return true;
}

bool rki_gltf_load_buffers(rki_gltf *g)
{
	g->buffer_data = (rki_gltf_buffer *)rki_arena_array(&g->sc.tmp, g->buffers.count, sizeof(rki_gltf_buffer));
	g->views = (rki_gltf_view *)rki_arena_array(&g->sc.tmp, g->buffer_views.count, sizeof(rki_gltf_view));
	g->stride_warned = (unsigned char *)rki_arena_array(&g->sc.tmp, g->buffer_views.count, 1);
	if (!g->buffer_data || !g->views || !g->stride_warned) return rki_gltf_oom(g);
	const rki_json *used = rki_gltf_member(g->json, "extensionsUsed");
	for (size_t k = 0; rki_json_is(used, RKI_JSON_ARRAY) && k < used->len; k++)
		if (rki_json_eq(&used->u.items[k], "EXT_meshopt_compression") || rki_json_eq(&used->u.items[k], "MESHOPT_compression")) g->meshopt = true;
	if (g->is_glb && !g->has_bin && !g->meshopt && g->buffers.count > 0 && !rki_gltf_member(&g->buffers.items[0], "uri"))
		return rki_gltf_fail(g, RK_ERROR_CORRUPT, RKI_GLTF_IDX(RKI_GLTF_KEY(NULL, "buffers"), 0), "buffer 0 has no uri but the GLB file has no BIN chunk");
	for (size_t i = 0; i < g->buffers.count; i++)
		if (!rki_gltf_load_buffer(g, i)) return false;
	for (size_t i = 0; i < g->buffer_views.count; i++)
		if (!rki_gltf_load_view(g, i)) return false;
	return true;
}

/* ---- accessors ------------------------------------------------------------------------ */

const char *rki_gltf_ctype_name(uint32_t ctype)
{
	switch (ctype) {
	case RKI_GLTF_BYTE: return "BYTE";
	case RKI_GLTF_UNSIGNED_BYTE: return "UNSIGNED_BYTE";
	case RKI_GLTF_SHORT: return "SHORT";
	case RKI_GLTF_UNSIGNED_SHORT: return "UNSIGNED_SHORT";
	case RKI_GLTF_UNSIGNED_INT: return "UNSIGNED_INT";
	case RKI_GLTF_FLOAT: return "FLOAT";
	default: return "?";
	}
}

static size_t rki_gltf_ctype_size(uint32_t ctype)
{
	switch (ctype) {
	case RKI_GLTF_BYTE:
	case RKI_GLTF_UNSIGNED_BYTE: return 1;
	case RKI_GLTF_SHORT:
	case RKI_GLTF_UNSIGNED_SHORT: return 2;
	case RKI_GLTF_UNSIGNED_INT:
	case RKI_GLTF_FLOAT: return 4;
	default: return 0;
	}
}

static const char *rki_gltf_type_name(uint32_t components, bool matrix)
{
	if (matrix) return components == 4 ? "MAT2" : components == 9 ? "MAT3" : "MAT4";
	switch (components) {
	case 1: return "SCALAR";
	case 2: return "VEC2";
	case 3: return "VEC3";
	default: return "VEC4";
	}
}

static size_t rki_gltf_sparse_index(const rki_gltf_accessor *a, size_t k)
{
	const unsigned char *p = a->sparse_indices;
	switch (a->sparse_index_type) {
	case RKI_GLTF_UNSIGNED_BYTE: return p[k];
	case RKI_GLTF_UNSIGNED_SHORT: return rki_le16(p + 2 * k);
	default: return rki_le32(p + 4 * k);
	}
}

/* Location of the bytes of a sparse indices/values object. */
static bool rki_gltf_sparse_part(rki_gltf *g, const rki_json *obj, const rki_gltf_loc *base, size_t bytes, const unsigned char **out)
{
	size_t view, offset, end;
	if (!rki_gltf_index(g, obj, base, "bufferView", g->buffer_views.count, "bufferViews", true, &view)) return false;
	if (!rki_gltf_uint(g, obj, base, "byteOffset", 0, SIZE_MAX, false, &offset)) return false;
	const rki_gltf_view *v = &g->views[view];
	if (!rki_add_size(offset, bytes, &end) || end > v->length)
		return rki_gltf_fail_key(g, RK_ERROR_CORRUPT, base, "byteOffset",
			"byteOffset %zu + %zu bytes of sparse data exceeds the byteLength %zu of bufferView %zu", offset, bytes, v->length, view);
	const unsigned char *vdata;
	if (!rki_gltf_view_data(g, view, &vdata)) return false;
	if (!vdata)
		return rki_gltf_fail_key(g, RK_ERROR_IO, base, "bufferView",
			"sparse data in bufferView %zu, whose buffer was not read (see the warnings)", view);
	*out = vdata + offset;
	return true;
}

static bool rki_gltf_open_sparse(rki_gltf *g, const rki_json *sparse, rki_gltf_accessor *a)
{
	const rki_gltf_loc *base = RKI_GLTF_KEY(&a->loc, "sparse"), *ipath = RKI_GLTF_KEY(base, "indices"),
		*vpath = RKI_GLTF_KEY(base, "values");
	size_t count;
	const rki_json *indices, *values;
	if (!rki_gltf_uint(g, sparse, base, "count", 0, a->count, true, &count)) return false;
	if (!rki_gltf_object(g, sparse, base, "indices", &indices)) return false;
	if (!rki_gltf_object(g, sparse, base, "values", &values)) return false;
	if (!indices) return rki_gltf_fail(g, RK_ERROR_CORRUPT, ipath, "sparse accessor needs an \"indices\" object");
	if (!values) return rki_gltf_fail(g, RK_ERROR_CORRUPT, vpath, "sparse accessor needs a \"values\" object");
	if (count == 0) return true;
	size_t ctype;
	if (!rki_gltf_uint(g, indices, ipath, "componentType", 0, 100000, true, &ctype)) return false;
	if (ctype != RKI_GLTF_UNSIGNED_BYTE && ctype != RKI_GLTF_UNSIGNED_SHORT && ctype != RKI_GLTF_UNSIGNED_INT)
		return rki_gltf_fail_key(g, RK_ERROR_CORRUPT, ipath, "componentType",
			"expected sparse index componentType 5121, 5123 or 5125 (unsigned), got %zu", ctype);
	size_t ibytes, vbytes;
	if (!rki_mul_size(count, rki_gltf_ctype_size((uint32_t)ctype), &ibytes) || !rki_mul_size(count, a->elem_size, &vbytes))
		return rki_gltf_fail_key(g, RK_ERROR_CORRUPT, base, "count", "sparse count %zu is too large", count);
	if (!rki_gltf_sparse_part(g, indices, ipath, ibytes, &a->sparse_indices)) return false;
	if (!rki_gltf_sparse_part(g, values, vpath, vbytes, &a->sparse_values)) return false;
	a->sparse_count = count;
	a->sparse_index_type = (uint32_t)ctype;
	size_t prev = 0;
	bool warned = false;
	for (size_t k = 0; k < count; k++) {
		size_t idx = rki_gltf_sparse_index(a, k);
		if (idx >= a->count)
			return rki_gltf_fail(g, RK_ERROR_CORRUPT, ipath, "sparse index %zu is %zu; expected below the accessor count %zu", k, idx, a->count);
		if (k > 0 && idx <= prev && !warned) {
			rki_gltf_warn(g, ipath, "sparse accessor indices are not strictly increasing: later values win");
			warned = true;
		}
		prev = idx;
	}
	return true;
}

/* A FLOAT element whose exponent bits are all ones (NaN or infinity). */
static bool rki_gltf_f32_bad(const unsigned char *p)
{
	return (p[3] & 0x7fu) == 0x7fu && (p[2] & 0x80u) == 0x80u;
}

/* FLOAT accessors hold only finite numbers: a NaN or infinity (in the
 * elements or the sparse values) is RK_ERROR_CORRUPT naming the accessor,
 * the element and the component, so it never reaches a scene. */
static bool rki_gltf_accessor_finite(rki_gltf *g, const rki_gltf_accessor *a, const rki_gltf_loc *base)
{
	if (a->component_type != RKI_GLTF_FLOAT) return true;
	size_t off[16];
	for (uint32_t c = 0; c < a->components && c < 16; c++)
		off[c] = (c / a->rows) * a->col_stride + (c % a->rows) * a->comp_size;
	for (int part = 0; part < 2; part++) {
		const unsigned char *src = part ? a->sparse_values : a->data;
		size_t n = part ? a->sparse_count : a->count, stride = part ? a->elem_size : a->stride;
		if (!src) continue;
		for (size_t i = 0; i < n; i++, src += stride)
			for (uint32_t c = 0; c < a->components; c++)
				if (rki_gltf_f32_bad(src + off[c]))
					return rki_gltf_fail(g, RK_ERROR_CORRUPT, base,
						"accessor %zu %s %zu, component %u, is not a finite number (NaN or infinity)", a->index,
						part ? "sparse value" : "element", i, c);
	}
	return true;
}

static bool rki_gltf_accessor_open_in(rki_gltf *g, size_t index, bool vertex_attribute, bool finite, rki_gltf_accessor *a)
{
	memset(a, 0, sizeof(*a));
	a->index = index;
	a->loc = (rki_gltf_loc){ &rki_gltf_loc_accessors, NULL, 0, index };
	const rki_gltf_loc *base = &a->loc;
	const rki_json *obj = &g->accessors.items[index], *type;
	size_t ctype, count, view, offset;
	if (!rki_gltf_uint(g, obj, base, "componentType", 0, 100000, true, &ctype)) return false;
	a->comp_size = rki_gltf_ctype_size((uint32_t)ctype);
	if (a->comp_size == 0)
		return rki_gltf_fail_key(g, RK_ERROR_CORRUPT, base, "componentType",
			"expected componentType 5120, 5121, 5122, 5123, 5125 or 5126, got %zu", ctype);
	a->component_type = (uint32_t)ctype;
	if (!rki_gltf_bool(g, obj, base, "normalized", false, &a->normalized)) return false;
	if (!rki_gltf_uint(g, obj, base, "count", 0, SIZE_MAX, true, &count)) return false;
	if (count > g->sc.opts.max_elements)
		return rki_gltf_fail_key(g, RK_ERROR_LIMIT, base, "count", "accessor count %zu is over the max_elements limit %zu",
			count, g->sc.opts.max_elements);
	a->count = count;
	if (!rki_gltf_string(g, obj, base, "type", &type)) return false;
	if (!type) return rki_gltf_fail_key(g, RK_ERROR_CORRUPT, base, "type", "required accessor type is missing");
	static const struct { const char *name; uint32_t components; bool matrix; } types[] = {
		{ "SCALAR", 1, false }, { "VEC2", 2, false }, { "VEC3", 3, false }, { "VEC4", 4, false },
		{ "MAT2", 4, true }, { "MAT3", 9, true }, { "MAT4", 16, true },
	};
	for (size_t t = 0; t < sizeof(types) / sizeof(types[0]); t++) {
		if (rki_json_eq(type, types[t].name)) {
			a->components = types[t].components;
			a->matrix = types[t].matrix;
		}
	}
	if (a->components == 0)
		return rki_gltf_fail_key(g, RK_ERROR_CORRUPT, base, "type",
			"expected type SCALAR, VEC2, VEC3, VEC4, MAT2, MAT3 or MAT4, got \"%.*s\"", RKI_JSON_STR_ARGS(type, 40));
	if (a->matrix) {
		a->rows = a->components == 4 ? 2 : a->components == 9 ? 3 : 4;
		a->col_stride = (a->rows * a->comp_size + 3u) & ~(size_t)3u;
		a->elem_size = a->col_stride * a->rows;
	} else {
		a->rows = a->components;
		a->elem_size = a->components * a->comp_size;
		a->col_stride = a->elem_size;
	}
	if (a->normalized && a->component_type == RKI_GLTF_FLOAT) {
		rki_gltf_warn(g, base, "accessor of FLOAT is marked normalized: flag ignored");
		a->normalized = false;
	}
	if (!rki_gltf_index(g, obj, base, "bufferView", g->buffer_views.count, "bufferViews", false, &view)) return false;
	if (!rki_gltf_uint(g, obj, base, "byteOffset", 0, SIZE_MAX, false, &offset)) return false;
	if (g->acc_data && g->acc_data[index]) {
		/* decoded from a Draco stream (gltf_draco.c): tightly packed, no sparse part */
		a->data = g->acc_data[index];
		a->stride = a->elem_size;
		return !finite || rki_gltf_accessor_finite(g, a, base);
	}
	if (view != RKI_GLTF_NONE) {
		const rki_gltf_view *v = &g->views[view];
		a->stride = v->stride ? v->stride : a->elem_size;
		if (v->stride && !vertex_attribute && !g->stride_warned[view]) {
			rki_gltf_warn_repeat(g, &g->stride_warning, RKI_GLTF_IDX(RKI_GLTF_KEY(NULL, "bufferViews"), view),
				"byteStride on a bufferView that does not hold vertex attributes (not allowed by glTF): stride honoured");
			g->stride_warned[view] = 1;
		}
		if (a->stride < a->elem_size) {
			return rki_gltf_fail_key(g, RK_ERROR_CORRUPT, RKI_GLTF_IDX(RKI_GLTF_KEY(NULL, "bufferViews"), view), "byteStride",
				"byteStride %zu is smaller than the %zu-byte elements of accessor %zu", a->stride, a->elem_size, index);
		}
		if (count > 0) {
			size_t span, end;
			if (offset > v->length)
				return rki_gltf_fail_key(g, RK_ERROR_CORRUPT, base, "byteOffset",
					"byteOffset %zu is beyond the byteLength %zu of bufferView %zu", offset, v->length, view);
			if (!rki_mul_size(a->stride, count - 1, &span) || !rki_add_size(span, a->elem_size, &span)
				|| !rki_add_size(span, offset, &end) || end > v->length)
				return rki_gltf_fail_key(g, RK_ERROR_CORRUPT, base, "count",
					"byteOffset %zu + stride %zu * (count %zu - 1) + element size %zu exceeds the byteLength %zu of bufferView %zu",
					offset, a->stride, count, a->elem_size, v->length, view);
			const unsigned char *vdata;
			if (!rki_gltf_view_data(g, view, &vdata)) return false;
			a->data = vdata ? vdata + offset : NULL;
		}
	}
	const rki_json *sparse;
	if (!rki_gltf_object(g, obj, base, "sparse", &sparse)) return false;
	if (sparse && !rki_gltf_open_sparse(g, sparse, a)) return false;
	return !finite || rki_gltf_accessor_finite(g, a, base);
}

bool rki_gltf_accessor_open(rki_gltf *g, size_t index, bool vertex_attribute, rki_gltf_accessor *a)
{
	return rki_gltf_accessor_open_in(g, index, vertex_attribute, true, a);
}

bool rki_gltf_accessor_open_weights(rki_gltf *g, size_t index, rki_gltf_accessor *a)
{
	return rki_gltf_accessor_open_in(g, index, true, false, a);
}

bool rki_gltf_accessor_expect(rki_gltf *g, const rki_gltf_accessor *a, const rki_gltf_loc *use_path, const char *use,
	uint32_t components, bool matrix, unsigned ctypes)
{
	if (a->components == components && a->matrix == matrix && (RKI_GLTF_CT(a->component_type) & ctypes)) return true;
	char allowed[128];
	size_t n = 0;
	allowed[0] = '\0';
	static const uint32_t all[] = { RKI_GLTF_BYTE, RKI_GLTF_UNSIGNED_BYTE, RKI_GLTF_SHORT, RKI_GLTF_UNSIGNED_SHORT,
		RKI_GLTF_UNSIGNED_INT, RKI_GLTF_FLOAT };
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
		if (!(ctypes & RKI_GLTF_CT(all[i]))) continue;
		int w = snprintf(allowed + n, sizeof(allowed) - n, "%s%s", n ? "/" : "", rki_gltf_ctype_name(all[i]));
		if (w < 0 || (size_t)w >= sizeof(allowed) - n) break;
		n += (size_t)w;
	}
	return rki_gltf_fail(g, RK_ERROR_CORRUPT, use_path, "%s needs a %s accessor of %s; accessor %zu is %s of %s",
		use, rki_gltf_type_name(components, matrix), allowed, a->index,
		rki_gltf_type_name(a->components, a->matrix), rki_gltf_ctype_name(a->component_type));
}

/* ---- decoding ------------------------------------------------------------------------
 * Every accessor read goes through one switch on the component type per call,
 * with the loops inside: FLOAT elements are n contiguous floats (also matrix
 * columns: 4-byte components need no column padding), decoded with a
 * constant n, and as one flat loop the compiler vectorises when the data is
 * tightly packed. Integer types use per-component byte offsets (matrix
 * columns of 1- and 2-byte components are padded to 4 bytes). */

/* `count` elements of n contiguous floats, `stride` bytes apart. */
static void rki_gltf_decode_f32(const unsigned char *src, size_t stride, size_t count, size_t n, double *restrict dst)
{
#if RKI_GLTF_HOST_LE
	if (stride == 4 * n) {
		size_t total = count * n;
		for (size_t i = 0; i < total; i++) {
			float f;
			memcpy(&f, src + 4 * i, sizeof(f));
			dst[i] = (double)f;
		}
		return;
	}
#endif
	switch (n) {
	case 1:
		for (size_t i = 0; i < count; i++, src += stride) dst[i] = (double)rki_lef32(src);
		break;
	case 2:
		for (size_t i = 0; i < count; i++, src += stride) {
			dst[2 * i] = (double)rki_lef32(src);
			dst[2 * i + 1] = (double)rki_lef32(src + 4);
		}
		break;
	case 3:
		for (size_t i = 0; i < count; i++, src += stride) {
			dst[3 * i] = (double)rki_lef32(src);
			dst[3 * i + 1] = (double)rki_lef32(src + 4);
			dst[3 * i + 2] = (double)rki_lef32(src + 8);
		}
		break;
	case 4:
		for (size_t i = 0; i < count; i++, src += stride) {
			dst[4 * i] = (double)rki_lef32(src);
			dst[4 * i + 1] = (double)rki_lef32(src + 4);
			dst[4 * i + 2] = (double)rki_lef32(src + 8);
			dst[4 * i + 3] = (double)rki_lef32(src + 12);
		}
		break;
	default:
		for (size_t i = 0; i < count; i++, src += stride)
			for (size_t c = 0; c < n; c++) dst[i * n + c] = (double)rki_lef32(src + 4 * c);
		break;
	}
}

/* Decodes `count` elements of `n` components at byte offsets off[] within
 * each element, `stride` bytes apart, into dst (n doubles per element). */
static void rki_gltf_decode(const unsigned char *src, size_t stride, size_t count, const size_t *off, size_t n,
	uint32_t ctype, bool norm, double *restrict dst)
{
	switch (ctype) {
	case RKI_GLTF_FLOAT:
		rki_gltf_decode_f32(src, stride, count, n, dst);
		break;
	case RKI_GLTF_UNSIGNED_BYTE:
		for (size_t i = 0; i < count; i++, src += stride)
			for (size_t c = 0; c < n; c++) {
				double v = (double)src[off[c]];
				dst[i * n + c] = norm ? v / 255.0 : v;
			}
		break;
	case RKI_GLTF_BYTE:
		for (size_t i = 0; i < count; i++, src += stride)
			for (size_t c = 0; c < n; c++) {
				double v = (double)(int8_t)src[off[c]];
				dst[i * n + c] = norm ? (v < -127.0 ? -1.0 : v / 127.0) : v;
			}
		break;
	case RKI_GLTF_UNSIGNED_SHORT:
		for (size_t i = 0; i < count; i++, src += stride)
			for (size_t c = 0; c < n; c++) {
				double v = (double)rki_le16(src + off[c]);
				dst[i * n + c] = norm ? v / 65535.0 : v;
			}
		break;
	case RKI_GLTF_SHORT:
		for (size_t i = 0; i < count; i++, src += stride)
			for (size_t c = 0; c < n; c++) {
				double v = (double)(int16_t)rki_le16(src + off[c]);
				dst[i * n + c] = norm ? (v < -32767.0 ? -1.0 : v / 32767.0) : v;
			}
		break;
	default: /* UNSIGNED_INT */
		for (size_t i = 0; i < count; i++, src += stride)
			for (size_t c = 0; c < n; c++) {
				double v = (double)rki_le32(src + off[c]);
				dst[i * n + c] = norm ? v / 4294967295.0 : v;
			}
		break;
	}
}

static void rki_gltf_offsets(const rki_gltf_accessor *a, size_t *off)
{
	for (uint32_t c = 0; c < a->components; c++)
		off[c] = (c / a->rows) * a->col_stride + (c % a->rows) * a->comp_size;
}

void rki_gltf_accessor_read_f64_range(const rki_gltf_accessor *a, size_t first, size_t count, double *dst, bool normalize)
{
	size_t off[16], n = a->components;
	rki_gltf_offsets(a, off);
	if (a->data) rki_gltf_decode(a->data + first * a->stride, a->stride, count, off, n, a->component_type, normalize, dst);
	else if (count) memset(dst, 0, count * n * sizeof(double));
	for (size_t k = 0; k < a->sparse_count; k++) {
		size_t idx = rki_gltf_sparse_index(a, k);
		if (idx < first || idx - first >= count) continue;
		rki_gltf_decode(a->sparse_values + k * a->elem_size, a->elem_size, 1, off, n, a->component_type, normalize,
			dst + (idx - first) * n);
	}
}

void rki_gltf_accessor_read_f64(const rki_gltf_accessor *a, double *dst, bool normalize)
{
	rki_gltf_accessor_read_f64_range(a, 0, a->count, dst, normalize);
}

/* FLOAT elements of n contiguous components, `stride` bytes apart, copied as floats. */
static void rki_gltf_copy_f32(const unsigned char *src, size_t stride, size_t count, size_t n, float *restrict dst)
{
#if RKI_GLTF_HOST_LE
	if (stride == 4 * n) {
		if (count) memcpy(dst, src, count * n * sizeof(float));
		return;
	}
#endif
	for (size_t i = 0; i < count; i++, src += stride)
		for (size_t c = 0; c < n; c++) dst[i * n + c] = rki_lef32(src + 4 * c);
}

void rki_gltf_accessor_read_f32(const rki_gltf_accessor *a, float *dst)
{
	size_t n = a->components;
	if (a->data) rki_gltf_copy_f32(a->data, a->stride, a->count, n, dst);
	else if (a->count) memset(dst, 0, a->count * n * sizeof(float));
	for (size_t k = 0; k < a->sparse_count; k++) {
		size_t idx = rki_gltf_sparse_index(a, k);
		rki_gltf_copy_f32(a->sparse_values + k * a->elem_size, a->elem_size, 1, n, dst + idx * n);
	}
}

/* Unsigned integers, n components at off[]; other types give UINT32_MAX
 * (callers accept only unsigned types). */
static void rki_gltf_decode_u32(const unsigned char *src, size_t stride, size_t count, const size_t *off, size_t n,
	uint32_t ctype, uint32_t *restrict dst)
{
	switch (ctype) {
	case RKI_GLTF_UNSIGNED_BYTE:
		if (n == 4 && off[3] == 3) {
			for (size_t i = 0; i < count; i++, src += stride) {
				dst[4 * i] = src[0];
				dst[4 * i + 1] = src[1];
				dst[4 * i + 2] = src[2];
				dst[4 * i + 3] = src[3];
			}
		} else {
			for (size_t i = 0; i < count; i++, src += stride)
				for (size_t c = 0; c < n; c++) dst[i * n + c] = src[off[c]];
		}
		break;
	case RKI_GLTF_UNSIGNED_SHORT:
		if (n == 1) {
			for (size_t i = 0; i < count; i++, src += stride) dst[i] = rki_le16(src);
		} else if (n == 4 && off[3] == 6) {
			for (size_t i = 0; i < count; i++, src += stride) {
				dst[4 * i] = rki_le16(src);
				dst[4 * i + 1] = rki_le16(src + 2);
				dst[4 * i + 2] = rki_le16(src + 4);
				dst[4 * i + 3] = rki_le16(src + 6);
			}
		} else {
			for (size_t i = 0; i < count; i++, src += stride)
				for (size_t c = 0; c < n; c++) dst[i * n + c] = rki_le16(src + off[c]);
		}
		break;
	case RKI_GLTF_UNSIGNED_INT:
		for (size_t i = 0; i < count; i++, src += stride)
			for (size_t c = 0; c < n; c++) dst[i * n + c] = rki_le32(src + off[c]);
		break;
	default:
		for (size_t i = 0; i < count * n; i++) dst[i] = UINT32_MAX;
		break;
	}
}

void rki_gltf_accessor_read_u32_range(const rki_gltf_accessor *a, size_t first, size_t count, uint32_t *dst)
{
	size_t off[16], n = a->components;
	rki_gltf_offsets(a, off);
	if (a->data) rki_gltf_decode_u32(a->data + first * a->stride, a->stride, count, off, n, a->component_type, dst);
	else if (count) memset(dst, 0, count * n * sizeof(uint32_t));
	for (size_t k = 0; k < a->sparse_count; k++) {
		size_t idx = rki_gltf_sparse_index(a, k);
		if (idx < first || idx - first >= count) continue;
		rki_gltf_decode_u32(a->sparse_values + k * a->elem_size, a->elem_size, 1, off, n, a->component_type, dst + (idx - first) * n);
	}
}

void rki_gltf_accessor_read_u32(const rki_gltf_accessor *a, uint32_t *dst)
{
	rki_gltf_accessor_read_u32_range(a, 0, a->count, dst);
}

bool rki_gltf_accessor_read_indices(const rki_gltf_accessor *a, uint32_t *dst, uint32_t base, uint32_t limit, size_t *bad,
	uint32_t *bad_value)
{
	size_t n = a->count;
	const unsigned char *src = a->data;
	size_t stride = a->stride;
	*bad = SIZE_MAX;
	if (a->sparse_count || !src) {
		/* rare: decode, then check */
		rki_gltf_accessor_read_u32(a, dst);
		for (size_t i = 0; i < n; i++) {
			if (dst[i] >= limit) {
				*bad = i;
				*bad_value = dst[i];
				return false;
			}
			dst[i] += base;
		}
		return true;
	}
	uint32_t over = 0;
	switch (a->component_type) {
	case RKI_GLTF_UNSIGNED_SHORT:
		for (size_t i = 0; i < n; i++, src += stride) {
			uint32_t v = rki_le16(src);
			over |= (uint32_t)(v >= limit);
			dst[i] = v + base;
		}
		break;
	case RKI_GLTF_UNSIGNED_INT:
		for (size_t i = 0; i < n; i++, src += stride) {
			uint32_t v = rki_le32(src);
			over |= (uint32_t)(v >= limit);
			dst[i] = v + base;
		}
		break;
	case RKI_GLTF_UNSIGNED_BYTE:
		for (size_t i = 0; i < n; i++, src += stride) {
			uint32_t v = src[0];
			over |= (uint32_t)(v >= limit);
			dst[i] = v + base;
		}
		break;
	default:
		*bad = 0;
		*bad_value = UINT32_MAX;
		return false;
	}
	if (!over) return true;
	for (size_t i = 0; i < n; i++) {
		if (dst[i] - base >= limit) {
			*bad = i;
			*bad_value = dst[i] - base;
			return false;
		}
	}
	return false;
}
