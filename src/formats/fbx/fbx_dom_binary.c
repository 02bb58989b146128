/*
 * src/formats/fbx/fbx_dom_binary.c - binary FBX tokenizer (3000-7999, 32- and 64-bit
 * node records, little- and big-endian): node records and typed properties
 * -> the tree of fbx_dom_tree.c. Arrays are decoded at once (eager) or left
 * pending (lazy) and tied to a running pre-scan batch (fbx_dom_arrays.c).
 */
#include "formats/fbx/fbx_dom_private.h"

#include <libdeflate.h>
#include <string.h>

/* Last 16 bytes of every binary file written by the FBX SDK and by Blender. */
static const unsigned char rki_fbx_footer_magic[16] = {
	0xf8, 0x5a, 0x8c, 0x6a, 0xde, 0xf5, 0xd9, 0x7e,
	0xec, 0xe9, 0x0c, 0xe3, 0x75, 0x8f, 0x29, 0x0b
};

/* ---- binary ------------------------------------------------------------------- */

/* Readers of the file's byte order `be`. The tokenizer's loops are compiled
 * once per byte order (be a constant there), so these become plain or
 * byte-swapped loads instead of a test of p->big_endian per field. */
static RKI_FORCE_INLINE uint16_t rki_fbx_ld16(const unsigned char *b, bool be)
{
	return be ? (uint16_t)((unsigned)b[0] << 8 | b[1]) : (uint16_t)((unsigned)b[1] << 8 | b[0]);
}

static RKI_FORCE_INLINE uint32_t rki_fbx_ld32(const unsigned char *b, bool be)
{
	if (be) return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | (uint32_t)b[3];
	return (uint32_t)b[3] << 24 | (uint32_t)b[2] << 16 | (uint32_t)b[1] << 8 | (uint32_t)b[0];
}

static RKI_FORCE_INLINE uint64_t rki_fbx_ld64(const unsigned char *b, bool be)
{
	uint64_t lo = rki_fbx_ld32(b, be), hi = rki_fbx_ld32(b + 4, be);
	return be ? (lo << 32 | hi) : (hi << 32 | lo);
}

static uint32_t rki_fbx_rd32(const rki_fbx_parser *p, const unsigned char *b)
{
	return rki_fbx_ld32(b, p->big_endian);
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

/* A scalar or string header property of type pr->type needs `need` bytes
 * where `left` remain. */
static RKI_COLD bool rki_fbx_prop_short(rki_fbx_parser *p, const rki_fbx_prop *pr, size_t need, size_t left)
{
	return rki_fbx_parse_error(p, RK_ERROR_CORRUPT, pr->offset,
		"property of type '%c' needs %zu bytes, only %zu remain in the property list", pr->type, need, left);
}

static RKI_COLD bool rki_fbx_props_ended(rki_fbx_parser *p, size_t i, uint64_t nprops)
{
	return rki_fbx_parse_error(p, RK_ERROR_CORRUPT, p->pos, "expected property %zu of %llu, but the property list ended",
		i + 1, (unsigned long long)nprops);
}

/* The properties of one node record, file byte order `be` (a constant in
 * each copy). One switch per property both checks its size and reads it. */
static RKI_FORCE_INLINE bool rki_fbx_binary_props(rki_fbx_parser *p, rki_fbx_node *node, uint64_t nprops, size_t pend,
	bool be)
{
	node->props = NULL;
	node->prop_count = 0;
	if (nprops == 0) return true;
	/* nprops <= the property list length (checked), which is inside the file. */
	/* Each element is cleared as it is read (not the whole array up front). */
	rki_fbx_prop *props = (rki_fbx_prop *)rki_arena_alloc_uninit(p->arena, (size_t)nprops * sizeof(*props));
	if (!props) return rki_fbx_parse_oom(p);
	node->props = props;
	node->prop_count = (size_t)nprops;
	const unsigned char *d = p->data;
	for (size_t i = 0; i < (size_t)nprops; i++) {
		rki_fbx_prop *pr = &props[i];
		size_t at = p->pos;
		if (at >= pend) return rki_fbx_props_ended(p, i, nprops);
		*pr = (rki_fbx_prop){ .type = (char)d[at], .offset = at };
		const unsigned char *b = d + at + 1;
		size_t left = pend - at - 1;
		switch (pr->type) {
		case 'Y':
			if (left < 2) return rki_fbx_prop_short(p, pr, 2, left);
			pr->v.i = (int16_t)rki_fbx_ld16(b, be);
			p->pos = at + 3;
			break;
		case 'C':
			if (left < 1) return rki_fbx_prop_short(p, pr, 1, left);
			pr->v.i = b[0];
			p->pos = at + 2;
			break;
		case 'I':
			if (left < 4) return rki_fbx_prop_short(p, pr, 4, left);
			pr->v.i = (int32_t)rki_fbx_ld32(b, be);
			p->pos = at + 5;
			break;
		case 'F': {
			if (left < 4) return rki_fbx_prop_short(p, pr, 4, left);
			uint32_t bits = rki_fbx_ld32(b, be);
			float f;
			memcpy(&f, &bits, 4);
			pr->v.f = f;
			p->pos = at + 5;
			break;
		}
		case 'D': {
			if (left < 8) return rki_fbx_prop_short(p, pr, 8, left);
			uint64_t bits = rki_fbx_ld64(b, be);
			memcpy(&pr->v.f, &bits, 8);
			p->pos = at + 9;
			break;
		}
		case 'L':
			if (left < 8) return rki_fbx_prop_short(p, pr, 8, left);
			pr->v.i = (int64_t)rki_fbx_ld64(b, be);
			p->pos = at + 9;
			break;
		case 'S': case 'R': {
			if (left < 4) return rki_fbx_prop_short(p, pr, 4, left);
			uint32_t len = rki_fbx_ld32(b, be);
			p->pos = at + 5;
			if (len > pend - p->pos)
				return rki_fbx_parse_error(p, RK_ERROR_CORRUPT, pr->offset,
					"string of %u bytes runs past the end of the property list (%zu bytes remain)",
					(unsigned)len, pend - p->pos);
			const char *str = rki_fbx_strdup(p, (const char *)d + p->pos, len);
			if (!str) return rki_fbx_parse_oom(p);
			pr->v.s.data = str;
			pr->v.s.len = len;
			p->pos += len;
			break;
		}
		case 'c': /* signed char array (FbxChar; some exporters write it) */
		case 'f': case 'd': case 'l': case 'i': case 'b':
			p->pos = at + 1;
			if (!rki_fbx_binary_array(p, pr, pend)) return false;
			break;
		default:
			/* An unknown code has no known size: the node keeps the properties
			 * before it, the rest of its list is skipped, and the document
			 * counts it (the loader warns; a needed property then is missing). */
			if (p->doc->skipped_props++ == 0) {
				p->doc->skipped_type = pr->type;
				p->doc->skipped_offset = pr->offset;
			}
			node->prop_count = i;
			p->pos = pend;
			return true;
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

/* The node records after the header, file byte order `be` (compiled once
 * per byte order). */
static RKI_FORCE_INLINE bool rki_fbx_parse_records(rki_fbx_parser *p, const bool be)
{
	const unsigned char *d = p->data;
	const size_t hdr = p->wide ? 25 : 13;
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
			end = rki_fbx_ld64(h, be);
			nprops = rki_fbx_ld64(h + 8, be);
			plen = rki_fbx_ld64(h + 16, be);
			name_len = h[24];
		} else {
			end = rki_fbx_ld32(h, be);
			nprops = rki_fbx_ld32(h + 4, be);
			plen = rki_fbx_ld32(h + 8, be);
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
		node.name = rki_fbx_strdup(p, (const char *)h + hdr, name_len);
		if (!node.name) return rki_fbx_parse_oom(p);
		p->pos = (size_t)body;
		if (!rki_fbx_binary_props(p, &node, nprops, (size_t)(body + plen), be)) return false;
		p->cur_name = NULL;
		if (p->pos < end) {
			if (!rki_fbx_open(p, &node, end)) return false;
		} else {
			if (!rki_fbx_add_leaf(p, &node)) return false;
		}
	}
}

bool rki_fbx_parse_binary(rki_fbx_parser *p)
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
	p->pos = RKI_FBX_HEADER_SIZE;
	if (!rki_fbx_open_root(p)) return false;
	return p->big_endian ? rki_fbx_parse_records(p, true) : rki_fbx_parse_records(p, false);
}
