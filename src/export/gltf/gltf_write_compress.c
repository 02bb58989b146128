/*
 * src/export/gltf/gltf_write_compress.c - glTF writer: compressed output
 * (opts.compress = RK_GLTF_COMPRESS_MESHOPT; the rules are in
 * include/rigkit/export.h COMPRESSION). Runs once every accessor is
 * written: each accessor's view is quantised by what the accessor holds
 * (rki_gw_accessor.use, KHR_mesh_quantization), encoded with
 * meshoptimizer's vertex or index codec (EXT_meshopt_compression) and moved
 * to the fallback buffer; buffer 0 is rebuilt from the encoded bytes and
 * the views that stay as they are (images). Uses gltf_write_buffer.c only.
 */
#include "export/gltf/gltf_write_internal.h"

#include <math.h>
#include <meshoptimizer.h>
#include <string.h>

/* The quantised (or unchanged) element data of one accessor. */
typedef struct rki_gw_qdata {
	const unsigned char *data;
	size_t stride;               /* bytes per element, a multiple of 4 for the vertex codec */
	bool changed;                /* quantised: component type / normalized / min-max updated */
	/* EXPONENTIAL filter (float data): data holds the filtered values, which
	 * only an encoded view may carry; plain the original floats, decoded
	 * what a reader gets back (for min/max) */
	bool exp_filter;
	const unsigned char *plain, *decoded;
} rki_gw_qdata;

/* Mantissa bits of the EXPONENTIAL filter: positions of meshes without
 * skin, morph target deltas (relative error about 2^-bits of each vector's
 * largest component). */
enum { RKI_GW_EXP_BITS_POSITION = 18, RKI_GW_EXP_BITS_MORPH = 16 };

/* Dequantisation cube of the skinned positions: p = centre + h * q / 32767. */
typedef struct rki_gw_cube {
	bool have;
	double centre[3], h;
} rki_gw_cube;

static int16_t rki_gw_snorm16(double x)
{
	double v = floor(x * 32767.0 + 0.5);
	if (!(v >= -32767.0)) v = -32767.0;
	if (v > 32767.0) v = 32767.0;
	return (int16_t)v;
}

static int8_t rki_gw_snorm8(double x)
{
	double v = floor(x * 127.0 + 0.5);
	if (!(v >= -127.0)) v = -127.0;
	if (v > 127.0) v = 127.0;
	return (int8_t)v;
}

static void rki_gw_int_minmax(rki_gw_accessor *a, const unsigned char *data, size_t stride, bool is_signed16)
{
	a->has_minmax = true;
	for (uint32_t c = 0; c < a->components; c++) {
		a->min[c] = INFINITY;
		a->max[c] = -INFINITY;
	}
	for (size_t i = 0; i < a->count; i++) {
		for (uint32_t c = 0; c < a->components; c++) {
			double v;
			if (is_signed16) {
				int16_t x;
				memcpy(&x, data + i * stride + c * 2, 2);
				v = x;
			} else {
				v = (double)(int8_t)data[i * stride + c];
			}
			if (v < a->min[c]) a->min[c] = v;
			if (v > a->max[c]) a->max[c] = v;
		}
	}
}

/* Skinned positions: the cube over every skinned POSITION accessor. */
static rki_gw_cube rki_gw_position_cube(const rki_gw *w)
{
	rki_gw_cube q;
	memset(&q, 0, sizeof(q));
	double lo[3] = { INFINITY, INFINITY, INFINITY }, hi[3] = { -INFINITY, -INFINITY, -INFINITY };
	size_t na = w->accessors.size / sizeof(rki_gw_accessor);
	const rki_gw_accessor *acc = (const rki_gw_accessor *)w->accessors.data;
	for (size_t i = 0; i < na; i++) {
		if (acc[i].use != RKI_GW_USE_POSITION_SKINNED || !acc[i].has_minmax || acc[i].components != 3) continue;
		for (int c = 0; c < 3; c++) {
			if (acc[i].min[c] < lo[c]) lo[c] = acc[i].min[c];
			if (acc[i].max[c] > hi[c]) hi[c] = acc[i].max[c];
		}
		q.have = true;
	}
	if (!q.have) return q;
	q.h = 0.0;
	for (int c = 0; c < 3; c++) {
		if (!isfinite(lo[c]) || !isfinite(hi[c])) {
			q.have = false;
			return q;
		}
		q.centre[c] = 0.5 * (lo[c] + hi[c]);
		if (0.5 * (hi[c] - lo[c]) > q.h) q.h = 0.5 * (hi[c] - lo[c]);
	}
	/* a little margin so the extreme vertices round inside the cube */
	q.h = q.h > 0.0 ? q.h * (1.0 + 1e-6) : 1.0;
	return q;
}

/* The accessor's new element type (its data quantised into out). */
static void rki_gw_retype(rki_gw_accessor *a, rki_gw_qdata *out, uint32_t type, bool normalized, size_t stride)
{
	a->component_type = type;
	a->normalized = normalized;
	out->stride = stride;
}

/* Float data through the EXPONENTIAL filter (the accessor stays float). */
static bool rki_gw_exp_filter(rki_gw *w, const rki_gw_accessor *a, const unsigned char *src, int bits, rki_gw_qdata *out)
{
	if (a->component_type != RKI_GW_FLOAT || a->components > 4) return true;
	size_t stride = (size_t)a->components * 4;
	const float *f = (const float *)(const void *)src;
	for (size_t k = 0; k < a->count * a->components; k++)
		if (!isfinite(f[k])) return true; /* the filter takes finite values only */
	unsigned char *enc = (unsigned char *)rki_gw_tmp_array(w, a->count, stride);
	unsigned char *dec = (unsigned char *)rki_gw_tmp_array(w, a->count, stride);
	if (!enc || !dec) return false;
	meshopt_encodeFilterExp(enc, a->count, stride, bits, f);
	memcpy(dec, enc, a->count * stride);
	meshopt_decodeFilterExp(dec, a->count, stride);
	out->exp_filter = true;
	out->data = enc;
	out->plain = src;
	out->decoded = dec;
	return true;
}

/* Quantises accessor a (data: its tight float/integer elements). */
static bool rki_gw_quantise(rki_gw *w, rki_gw_accessor *a, const unsigned char *src, const rki_gw_cube *cube,
	rki_gw_qdata *out)
{
	size_t n = a->count, comps = a->components;
	size_t csize = a->component_type == RKI_GW_FLOAT || a->component_type == RKI_GW_UNSIGNED_INT ? 4
		: a->component_type == RKI_GW_UNSIGNED_SHORT || a->component_type == RKI_GW_SHORT ? 2 : 1;
	out->data = src;
	out->stride = comps * csize;
	out->changed = false;
	out->exp_filter = false;
	out->plain = out->decoded = NULL;
	bool is_float = a->component_type == RKI_GW_FLOAT;
	const float *f = (const float *)(const void *)src;
	unsigned char *q = NULL;
	switch (a->use) {
	case RKI_GW_USE_POSITION:
	case RKI_GW_USE_MORPH_POSITION:
	case RKI_GW_USE_MORPH_NORMAL:
		return rki_gw_exp_filter(w, a, src, a->use == RKI_GW_USE_POSITION ? RKI_GW_EXP_BITS_POSITION : RKI_GW_EXP_BITS_MORPH,
			out);
	case RKI_GW_USE_POSITION_SKINNED:
	case RKI_GW_USE_MORPH_POSITION_SKINNED: {
		if (!is_float || comps != 3 || !cube->have) return true;
		bool delta = a->use == RKI_GW_USE_MORPH_POSITION_SKINNED;
		if (delta) /* deltas in cube units must fit [-1, 1] */
			for (size_t k = 0; k < n * 3; k++)
				if (!(fabs((double)f[k]) <= cube->h)) return rki_gw_exp_filter(w, a, src, RKI_GW_EXP_BITS_MORPH, out);
		if (!(q = (unsigned char *)rki_gw_tmp_array(w, n, 8))) return false;
		for (size_t i = 0; i < n; i++) {
			int16_t e[4] = { 0, 0, 0, 0 };
			for (int c = 0; c < 3; c++) {
				double x = (double)f[i * 3 + (size_t)c];
				e[c] = rki_gw_snorm16(delta ? x / cube->h : (x - cube->centre[c]) / cube->h);
			}
			memcpy(q + i * 8, e, 8);
		}
		rki_gw_retype(a, out, RKI_GW_SHORT, true, 8);
		rki_gw_int_minmax(a, q, 8, true);
		break;
	}
	case RKI_GW_USE_NORMAL:
	case RKI_GW_USE_TANGENT: {
		if (!is_float || comps != (a->use == RKI_GW_USE_NORMAL ? 3u : 4u)) return true;
		if (!(q = (unsigned char *)rki_gw_tmp_array(w, n, 4))) return false;
		for (size_t i = 0; i < n; i++) {
			int8_t e[4] = { 0, 0, 0, 0 };
			for (size_t c = 0; c < comps; c++) e[c] = rki_gw_snorm8((double)f[i * comps + c]);
			if (comps == 4) e[3] = f[i * 4 + 3] < 0.0f ? -127 : 127;
			memcpy(q + i * 4, e, 4);
		}
		rki_gw_retype(a, out, RKI_GW_BYTE, true, 4);
		break;
	}
	case RKI_GW_USE_TEXCOORD: {
		if (!is_float || comps != 2) return true;
		for (size_t k = 0; k < n * 2; k++)
			if (!(f[k] >= 0.0f && f[k] <= 1.0f)) return true; /* would need KHR_texture_transform */
		if (!(q = (unsigned char *)rki_gw_tmp_array(w, n, 4))) return false;
		for (size_t k = 0; k < n * 2; k++) {
			uint16_t e = (uint16_t)floor((double)f[k] * 65535.0 + 0.5);
			memcpy(q + k * 2, &e, 2);
		}
		rki_gw_retype(a, out, RKI_GW_UNSIGNED_SHORT, true, 4);
		break;
	}
	case RKI_GW_USE_COLOR: {
		if (!is_float || comps != 4) return true;
		if (!(q = (unsigned char *)rki_gw_tmp_array(w, n, 8))) return false;
		for (size_t k = 0; k < n * 4; k++) {
			double x = (double)f[k];
			uint16_t e = (uint16_t)floor((x > 1.0 ? 1.0 : x > 0.0 ? x : 0.0) * 65535.0 + 0.5);
			memcpy(q + k * 2, &e, 2);
		}
		rki_gw_retype(a, out, RKI_GW_UNSIGNED_SHORT, true, 8);
		break;
	}
	case RKI_GW_USE_JOINTS: {
		if (a->component_type != RKI_GW_UNSIGNED_SHORT || comps != 4) return true;
		const uint16_t *j = (const uint16_t *)(const void *)src;
		for (size_t k = 0; k < n * 4; k++)
			if (j[k] > 255) return true;
		if (!(q = (unsigned char *)rki_gw_tmp_array(w, n, 4))) return false;
		for (size_t k = 0; k < n * 4; k++) q[k] = (unsigned char)j[k];
		rki_gw_retype(a, out, RKI_GW_UNSIGNED_BYTE, false, 4);
		break;
	}
	case RKI_GW_USE_WEIGHTS: {
		/* uint16: 8 bits would move vertices by up to 1/510 of a bone's reach */
		if (!is_float || comps != 4) return true;
		if (!(q = (unsigned char *)rki_gw_tmp_array(w, n, 8))) return false;
		for (size_t i = 0; i < n; i++) {
			/* round, then give the largest weight what keeps the sum at 65535 */
			long e[4], sum = 0;
			int big = 0;
			for (int c = 0; c < 4; c++) {
				double x = (double)f[i * 4 + (size_t)c];
				e[c] = (long)floor((x > 1.0 ? 1.0 : x > 0.0 ? x : 0.0) * 65535.0 + 0.5);
				sum += e[c];
				if (e[c] > e[big]) big = c;
			}
			if (sum > 0) e[big] += 65535 - sum;
			for (int c = 0; c < 4; c++) {
				uint16_t x = (uint16_t)(e[c] < 0 ? 0 : e[c] > 65535 ? 65535 : e[c]);
				memcpy(q + i * 8 + (size_t)c * 2, &x, 2);
			}
		}
		rki_gw_retype(a, out, RKI_GW_UNSIGNED_SHORT, true, 8);
		break;
	}
	case RKI_GW_USE_ANIM_ROTATION: {
		if (!w->opts.compress_animation || !is_float || comps != 4) return true;
		if (!(q = (unsigned char *)rki_gw_tmp_array(w, n, 8))) return false;
		for (size_t i = 0; i < n; i++) {
			int16_t e[4];
			for (int c = 0; c < 4; c++) e[c] = rki_gw_snorm16((double)f[i * 4 + (size_t)c]);
			memcpy(q + i * 8, e, 8);
		}
		rki_gw_retype(a, out, RKI_GW_SHORT, true, 8);
		break;
	}
	case RKI_GW_USE_IBM: {
		if (!is_float || comps != 16 || !cube->have) return true;
		/* IBM' = IBM * D, D = translation(centre) * scale(h); column-major */
		float *m = (float *)rki_gw_tmp_array(w, n, 64);
		if (!m) return false;
		for (size_t i = 0; i < n; i++) {
			const float *s = f + i * 16;
			float *d = m + i * 16;
			for (int r = 0; r < 4; r++) {
				double col3 = (double)s[12 + r];
				for (int c = 0; c < 3; c++) {
					d[c * 4 + r] = rki_gw_f32((double)s[c * 4 + r] * cube->h);
					col3 += (double)s[c * 4 + r] * cube->centre[c];
				}
				d[12 + r] = rki_gw_f32(col3);
			}
		}
		out->data = (const unsigned char *)m;
		return true; /* still float: not counted as quantised */
	}
	default:
		return true;
	}
	out->data = q;
	out->changed = true;
	w->stats.quantized_accessor_count++;
	return true;
}

static bool rki_gw_push_aligned(rki_gw *w, rki_buf *b, const void *data, size_t size, size_t *offset)
{
	static const unsigned char zeros[4] = { 0, 0, 0, 0 };
	if (!rki_buf_push(b, zeros, (4 - (b->size & 3)) & 3)) return rki_gw_oom(w);
	*offset = b->size;
	if (size && !rki_buf_push(b, data, size)) return rki_gw_oom(w);
	return true;
}

/* Encodes one accessor's elements; *enc_size 0 = not encodable. */
static unsigned char *rki_gw_encode(rki_gw *w, const rki_gw_accessor *a, const rki_gw_view *v, unsigned char *data,
	size_t stride, size_t *enc_size, uint8_t *mode)
{
	*enc_size = 0;
	size_t n = a->count;
	if (a->use == RKI_GW_USE_INDICES && v->target == RKI_GW_ELEMENT_ARRAY_BUFFER && n % 3 == 0 && a->components == 1
		&& (a->component_type == RKI_GW_UNSIGNED_SHORT || a->component_type == RKI_GW_UNSIGNED_INT)) {
		unsigned int *idx = (unsigned int *)rki_gw_tmp_array(w, n, sizeof(unsigned int));
		unsigned int *opt = (unsigned int *)rki_gw_tmp_array(w, n, sizeof(unsigned int));
		if (!idx || !opt) return NULL;
		size_t vertices = 0;
		for (size_t k = 0; k < n; k++) {
			if (a->component_type == RKI_GW_UNSIGNED_SHORT) {
				uint16_t x;
				memcpy(&x, data + k * 2, 2);
				idx[k] = x;
			} else {
				memcpy(&idx[k], data + k * 4, 4);
			}
			if ((size_t)idx[k] + 1 > vertices) vertices = (size_t)idx[k] + 1;
		}
		meshopt_optimizeVertexCache(opt, idx, n, vertices);
		/* the fallback bytes follow the new order too */
		for (size_t k = 0; k < n; k++) {
			if (a->component_type == RKI_GW_UNSIGNED_SHORT) {
				uint16_t x = (uint16_t)opt[k];
				memcpy(data + k * 2, &x, 2);
			} else {
				memcpy(data + k * 4, &opt[k], 4);
			}
		}
		size_t bound = meshopt_encodeIndexBufferBound(n, vertices);
		unsigned char *out = (unsigned char *)rki_gw_tmp_array(w, bound, 1);
		if (!out) return NULL;
		*enc_size = meshopt_encodeIndexBuffer(out, bound, opt, n);
		*mode = 1;
		return out;
	}
	if (stride == 0 || stride % 4 != 0 || stride > 256) return NULL;
	size_t bound = meshopt_encodeVertexBufferBound(n, stride);
	unsigned char *out = (unsigned char *)rki_gw_tmp_array(w, bound, 1);
	if (!out) return NULL;
	*enc_size = meshopt_encodeVertexBuffer(out, bound, data, n, stride);
	*mode = 0;
	return out;
}

static void rki_gw_note_ext(rki_gw *w, const char *name)
{
	for (size_t i = 0; i < w->ext_used_count; i++)
		if (!strcmp(w->ext_used[i], name)) goto required;
	if (w->ext_used_count < RKI_GW_EXT_USED_MAX) w->ext_used[w->ext_used_count++] = name;
required:
	for (size_t i = 0; i < w->ext_required_count; i++)
		if (!strcmp(w->ext_required[i], name)) return;
	if (w->ext_required_count < sizeof(w->ext_required) / sizeof(w->ext_required[0]))
		w->ext_required[w->ext_required_count++] = name;
}

bool rki_gw_compress(rki_gw *w)
{
	if (w->opts.compress == RK_GLTF_COMPRESS_NONE) return true;
	if (w->opts.compress != RK_GLTF_COMPRESS_MESHOPT)
		return rki_gw_fail(w, RK_ERROR_INVALID_ARGUMENT, "glTF writer: unknown compression %d", (int)w->opts.compress);
	size_t na = w->accessors.size / sizeof(rki_gw_accessor), nv = w->views.size / sizeof(rki_gw_view);
	rki_gw_accessor *acc = (rki_gw_accessor *)w->accessors.data;
	rki_gw_view *views = (rki_gw_view *)w->views.data;
	int32_t *owner = (int32_t *)rki_gw_tmp_array(w, nv, sizeof(int32_t));
	if (!owner) return false;
	for (size_t v = 0; v < nv; v++) owner[v] = -1;
	for (size_t i = 0; i < na; i++) {
		if (acc[i].view >= nv) continue;
		owner[acc[i].view] = owner[acc[i].view] == -1 ? (int32_t)i : -2; /* shared views stay as they are */
	}
	rki_gw_cube cube = rki_gw_position_cube(w);
	rki_buf nb;
	rki_buf_init(&nb, &w->alloc);
	size_t fallback = 0;
	bool ok = true;
	for (size_t v = 0; v < nv && ok; v++) {
		rki_gw_view *view = &views[v];
		const unsigned char *src = w->bin.data + view->offset;
		size_t off;
		if (owner[v] < 0) { /* images and the like: bytes unchanged in buffer 0 */
			ok = rki_gw_push_aligned(w, &nb, src, view->length, &off);
			view->offset = off;
			continue;
		}
		rki_gw_accessor *a = &acc[owner[v]];
		rki_gw_qdata qd;
		if (!(ok = rki_gw_quantise(w, a, src, &cube, &qd))) break;
		size_t raw;
		if (!rki_mul_size(a->count, qd.stride, &raw)) {
			ok = rki_gw_fail(w, RK_ERROR_LIMIT, "glTF writer: accessor too large to compress");
			break;
		}
		unsigned char *data = (unsigned char *)rki_gw_tmp_array(w, raw, 1);
		if (!data) { ok = false; break; }
		memcpy(data, qd.data, raw);
		size_t enc_size = 0;
		uint8_t mode = 0;
		unsigned char *enc = rki_gw_encode(w, a, view, data, qd.stride, &enc_size, &mode);
		if (w->failed) { ok = false; break; }
		bool vertex_attr = view->target == RKI_GW_ARRAY_BUFFER;
		view->stride = vertex_attr && qd.changed ? (uint32_t)qd.stride : 0;
		if (qd.exp_filter && !(enc && enc_size > 0 && enc_size < raw)) {
			/* the filtered values need the extension: plain floats instead */
			memcpy(data, qd.plain, raw);
			enc = rki_gw_encode(w, a, view, data, qd.stride, &enc_size, &mode);
			if (w->failed) { ok = false; break; }
			qd.exp_filter = false;
		}
		if (enc && enc_size > 0 && enc_size < raw) {
			if (qd.exp_filter && a->has_minmax) /* what a reader decodes */
				for (uint32_t c = 0; c < a->components; c++) {
					a->min[c] = INFINITY;
					a->max[c] = -INFINITY;
					for (size_t i = 0; i < a->count; i++) {
						float x;
						memcpy(&x, qd.decoded + (i * a->components + c) * 4, 4);
						if (x < a->min[c]) a->min[c] = x;
						if (x > a->max[c]) a->max[c] = x;
					}
				}
			view->enc_filter = qd.exp_filter;
			if (qd.exp_filter) w->stats.quantized_accessor_count++;
			if (!(ok = rki_gw_push_aligned(w, &nb, enc, enc_size, &off))) break;
			view->encoded = true;
			view->enc_mode = mode;
			view->enc_offset = off;
			view->enc_length = enc_size;
			view->enc_count = a->count;
			/* the decoder's element size: the stride, or the index size */
			view->enc_stride = mode == 1 ? (a->component_type == RKI_GW_UNSIGNED_SHORT ? 2u : 4u) : (uint32_t)qd.stride;
			view->offset = fallback;
			view->length = raw;
			if (vertex_attr) view->stride = (uint32_t)qd.stride;
			fallback += (raw + 3) & ~(size_t)3;
			w->stats.compressed_view_count++;
			continue;
		}
		ok = rki_gw_push_aligned(w, &nb, data, raw, &off);
		view->offset = off;
		view->length = raw;
	}
	if (!ok) {
		rki_buf_free(&nb);
		return false;
	}
	rki_buf_free(&w->bin);
	w->bin = nb;
	w->fallback_size = fallback;
	w->stats.fallback_size = fallback;
	if (fallback) rki_gw_note_ext(w, "EXT_meshopt_compression");
	if (w->stats.quantized_accessor_count) rki_gw_note_ext(w, "KHR_mesh_quantization");
	return true;
}
