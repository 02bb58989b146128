/* src/formats/gltf/gltf_meshopt.c - EXT_meshopt_compression (and its draft name
 * MESHOPT_compression) bufferViews of the glTF reader, decoded with
 * meshoptimizer's own decoders: meshopt_decodeVertexBuffer (mode ATTRIBUTES)
 * and its filters OCTAHEDRAL / QUATERNION / EXPONENTIAL,
 * meshopt_decodeIndexBuffer (TRIANGLES), meshopt_decodeIndexSequence
 * (INDICES).
 *
 * Every rule of the extension that the decoders rely on is checked first
 * (meshoptimizer asserts on sizes it does not support instead of failing),
 * then the size the stream claims is checked against what its bytes can
 * hold, so a small file cannot ask for gigabytes:
 *   ATTRIBUTES  each 16 elements of one byte column cost at least 2 header
 *               bits, so decoded bytes <= 64 x compressed bytes (+ one block)
 *   TRIANGLES   at least one code byte per triangle: count <= 3 x bytes
 *   INDICES     at least one byte per index: count <= bytes
 * The decoded bytes come from the load's temporary arena (memory_limit
 * applies). The decoders are documented safe on malformed input; a stream
 * they reject is RK_ERROR_CORRUPT naming the bufferView. */
#include "gltf_internal.h"

#include <meshoptimizer.h>
#include <stdio.h>
#include <string.h>

enum { RKI_MO_ATTRIBUTES, RKI_MO_TRIANGLES, RKI_MO_INDICES };
enum { RKI_MO_NONE, RKI_MO_OCTAHEDRAL, RKI_MO_QUATERNION, RKI_MO_EXPONENTIAL };

static bool rki_gltf_mo_enum(rki_gltf *g, const rki_json *ext, const rki_gltf_loc *epath, const char *key,
	const char *const *names, int n, bool required, int *out)
{
	const rki_json *v;
	if (!rki_gltf_string(g, ext, epath, key, &v)) return false;
	if (!v) {
		if (required) return rki_gltf_fail_key(g, RK_ERROR_CORRUPT, epath, key, "EXT_meshopt_compression needs \"%s\"", key);
		*out = 0;
		return true;
	}
	for (int i = 0; i < n; i++) {
		if (rki_json_eq(v, names[i])) {
			*out = i;
			return true;
		}
	}
	return rki_gltf_fail_key(g, RK_ERROR_CORRUPT, epath, key, "unknown %s \"%.*s\" (expected %s%s%s%s%s%s%s)", key,
		RKI_JSON_STR_ARGS(v, 40), names[0], n > 1 ? ", " : "", n > 1 ? names[1] : "", n > 2 ? ", " : "", n > 2 ? names[2] : "",
		n > 3 ? ", " : "", n > 3 ? names[3] : "");
}

bool rki_gltf_meshopt_view(rki_gltf *g, size_t i, const rki_json *ext, const rki_gltf_loc *epath, rki_gltf_view *v, bool has_stride)
{
	static const char *const modes[] = { "ATTRIBUTES", "TRIANGLES", "INDICES" };
	static const char *const filters[] = { "NONE", "OCTAHEDRAL", "QUATERNION", "EXPONENTIAL" };
	size_t buffer, offset, length, stride, count;
	int mode, filter;
	if (!rki_gltf_index(g, ext, epath, "buffer", g->buffers.count, "buffers", true, &buffer)) return false;
	if (!rki_gltf_uint(g, ext, epath, "byteOffset", 0, SIZE_MAX, false, &offset)) return false;
	if (!rki_gltf_uint(g, ext, epath, "byteLength", 0, SIZE_MAX, true, &length)) return false;
	if (!rki_gltf_uint(g, ext, epath, "byteStride", 0, SIZE_MAX, true, &stride)) return false;
	if (!rki_gltf_uint(g, ext, epath, "count", 0, SIZE_MAX, true, &count)) return false;
	if (!rki_gltf_mo_enum(g, ext, epath, "mode", modes, 3, true, &mode)) return false;
	if (!rki_gltf_mo_enum(g, ext, epath, "filter", filters, 4, false, &filter)) return false;

	/* the extension's validity rules */
	if (mode == RKI_MO_ATTRIBUTES && (stride == 0 || stride % 4 != 0 || stride > 256))
		return rki_gltf_fail_key(g, RK_ERROR_CORRUPT, epath, "byteStride",
			"ATTRIBUTES needs a byteStride that is a multiple of 4 from 4 to 256, got %zu", stride);
	if (mode != RKI_MO_ATTRIBUTES && stride != 2 && stride != 4)
		return rki_gltf_fail_key(g, RK_ERROR_CORRUPT, epath, "byteStride", "%s needs a byteStride of 2 or 4, got %zu", modes[mode], stride);
	if (mode == RKI_MO_TRIANGLES && count % 3 != 0)
		return rki_gltf_fail_key(g, RK_ERROR_CORRUPT, epath, "count", "TRIANGLES needs a count divisible by 3, got %zu", count);
	if (mode != RKI_MO_ATTRIBUTES && filter != RKI_MO_NONE)
		return rki_gltf_fail_key(g, RK_ERROR_CORRUPT, epath, "filter", "filter %s is only allowed with mode ATTRIBUTES", filters[filter]);
	if ((filter == RKI_MO_OCTAHEDRAL && stride != 4 && stride != 8) || (filter == RKI_MO_QUATERNION && stride != 8))
		return rki_gltf_fail_key(g, RK_ERROR_CORRUPT, epath, "filter", "filter %s cannot use a byteStride of %zu (OCTAHEDRAL: 4 or 8, QUATERNION: 8)",
			filters[filter], stride);
	if (has_stride && v->stride != stride)
		return rki_gltf_fail_key(g, RK_ERROR_CORRUPT, epath, "byteStride",
			"byteStride %zu differs from the bufferView's byteStride %zu", stride, v->stride);
	size_t bytes;
	if (!rki_mul_size(stride, count, &bytes) || bytes != v->length)
		return rki_gltf_fail_key(g, RK_ERROR_CORRUPT, epath, "count",
			"byteStride %zu x count %zu must equal the bufferView's byteLength %zu (the decoded size)", stride, count, v->length);
	if (count > g->sc.opts.max_elements)
		return rki_gltf_fail_key(g, RK_ERROR_LIMIT, epath, "count", "count %zu is over the max_elements limit %zu", count, g->sc.opts.max_elements);

	/* the compressed bytes */
	const rki_gltf_buffer *b = &g->buffer_data[buffer];
	size_t end;
	if (!rki_add_size(offset, length, &end) || end > b->size)
		return rki_gltf_fail_key(g, RK_ERROR_CORRUPT, epath, "byteLength",
			"byteOffset %zu + byteLength %zu exceeds the byteLength %zu of buffer %zu", offset, length, b->size, buffer);
	if (!b->data && !b->streamed)
		return rki_gltf_fail_key(g, b->placeholder ? RK_ERROR_CORRUPT : RK_ERROR_IO, epath, "buffer",
			b->placeholder ? "compressed data in buffer %zu, a placeholder without data" : "compressed data in buffer %zu, which was not read (see the warnings)",
			buffer);

	/* what the bytes can hold */
	double room = mode == RKI_MO_ATTRIBUTES ? 64.0 * (double)length + 256.0 * (double)stride
		: mode == RKI_MO_TRIANGLES ? 3.0 * (double)length : (double)length;
	double claimed = mode == RKI_MO_ATTRIBUTES ? (double)bytes : (double)count;
	if (claimed > room)
		return rki_gltf_fail_key(g, RK_ERROR_CORRUPT, epath, "count",
			"%zu compressed bytes cannot hold %zu %s of %zu bytes (%s streams decode to at most %s): lying count or truncated stream",
			length, count, mode == RKI_MO_ATTRIBUTES ? "elements" : "indices", stride, modes[mode],
			mode == RKI_MO_ATTRIBUTES ? "64 bytes per byte" : mode == RKI_MO_TRIANGLES ? "3 indices per byte" : "1 index per byte");

	unsigned char *dst = (unsigned char *)rki_arena_alloc_uninit(&g->sc.tmp, bytes ? bytes : 1);
	if (!dst) return rki_gltf_oom(g);
	/* the compressed bytes: in memory, or read from a streamed GLB for the decoder alone */
	const unsigned char *src = b->data ? b->data + offset : NULL;
	unsigned char *read = NULL;
	if (!src && count > 0) {
		read = (unsigned char *)rki_malloc(g->sc.alloc, length ? length : 1);
		if (!read) return rki_gltf_oom(g);
		char what[64];
		snprintf(what, sizeof(what), "bufferView %zu", i);
		if (!rki_gltf_stream_read(g, b->file_offset + offset, read, length, what)) {
			rki_free(g->sc.alloc, read, length ? length : 1);
			return false;
		}
		src = read;
	}
	int rc = 0;
	if (count > 0) {
		switch (mode) {
		case RKI_MO_ATTRIBUTES: rc = meshopt_decodeVertexBuffer(dst, count, stride, src, length); break;
		case RKI_MO_TRIANGLES: rc = meshopt_decodeIndexBuffer(dst, count, stride, src, length); break;
		default: rc = meshopt_decodeIndexSequence(dst, count, stride, src, length); break;
		}
	}
	unsigned header = length > 0 && src ? src[0] : 0u;
	if (read) rki_free(g->sc.alloc, read, length ? length : 1);
	if (rc != 0) {
		return rki_gltf_fail(g, RK_ERROR_CORRUPT, epath,
			"bufferView %zu: the %s stream (%zu bytes at byteOffset %zu of buffer %zu, header byte 0x%02X) does not decode to %zu x %zu bytes "
			"(meshoptimizer: %s)", i, modes[mode], length, offset, buffer, header, count, stride,
			rc == -1 ? "not a version 0 stream: unknown header byte or codec version" : "truncated or malformed data");
	}
	switch (filter) {
	case RKI_MO_OCTAHEDRAL: meshopt_decodeFilterOct(dst, count, stride); break;
	case RKI_MO_QUATERNION: meshopt_decodeFilterQuat(dst, count, stride); break;
	case RKI_MO_EXPONENTIAL: meshopt_decodeFilterExp(dst, count, stride); break;
	default: break;
	}
	v->data = dst;
	return true;
}
