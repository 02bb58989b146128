/* src/export/fbx/fbx_write_dom.c - the FBX writer's element tree and its two
 * encodings (see fbx_write_internal.h).
 *
 * BINARY (7400: 32-bit record fields, 13-byte null records; 7500: 64-bit,
 * 25 bytes): the 27-byte header "Kaydara FBX Binary  \0\x1a\0" + version,
 * then records {end offset, property count, property bytes, name length,
 * name, properties, children, null record}; a null record closes every
 * child list and follows records that have neither properties nor
 * children. The top level ends with a null record and the footer (the
 * fixed footer id, 4 zero bytes, padding to 16 (a full 16 when aligned),
 * the version, 120 zero bytes, the footer magic). FileId, CreationTime and
 * the footer id are the fixed triple of a 1970-01-01 10:00 file, which the
 * FBX SDK accepts. Arrays of more than 128 bytes are zlib streams
 * (encoding 1).
 *
 * ASCII: "; FBX 7.4.0 project file" then "Name: props {" blocks, arrays as
 * "*N { a: v,v,... }", strings quoted (a '"' becomes &quot;), numbers
 * with 17 significant digits so doubles read back exactly. */
#include "export/fbx/fbx_write_internal.h"

#include <libdeflate.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static const unsigned char rki_fw_head[23] = "Kaydara FBX Binary  \0\x1a";
static const unsigned char rki_fw_foot_id[16] = {
	0xfa, 0xbc, 0xab, 0x09, 0xd0, 0xc8, 0xd4, 0x66, 0xb1, 0x76, 0xfb, 0x83, 0x1c, 0xf7, 0x26, 0x7e
};
static const unsigned char rki_fw_foot_magic[16] = {
	0xf8, 0x5a, 0x8c, 0x6a, 0xde, 0xf5, 0xd9, 0x7e, 0xec, 0xe9, 0x0c, 0xe3, 0x75, 0x8f, 0x29, 0x0b
};

/* ---- errors and memory --------------------------------------------------- */

bool rki_fw_fail(rki_fw *w, rk_error_code code, const char *fmt, ...)
{
	if (!w->failed) {
		va_list ap;
		va_start(ap, fmt);
		rki_error_setv(w->err, code, fmt, ap);
		va_end(ap);
	}
	w->failed = true;
	return false;
}

bool rki_fw_oom(rki_fw *w)
{
	if (w->alloc.limit_hit)
		return rki_fw_fail(w, RK_ERROR_LIMIT, "the FBX writer needs more than its memory limit of %zu bytes",
			w->alloc.memory_limit);
	return rki_fw_fail(w, RK_ERROR_OUT_OF_MEMORY, "out of memory while building the FBX file");
}

void rki_fw_warn(rki_fw *w, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	rki_warning_emitv(w->o.warning, w->o.warning_user, fmt, ap);
	va_end(ap);
	w->warnings++;
}

void *rki_fw_array(rki_fw *w, size_t count, size_t size)
{
	if (w->failed) return NULL;
	void *p = rki_arena_array(&w->arena, count, size);
	if (!p) rki_fw_oom(w);
	return p;
}

int64_t rki_fw_ticks(double seconds)
{
	double t = seconds * RKI_FW_TICKS_PER_SECOND;
	if (!(t > -9.2e18 && t < 9.2e18)) return 0;
	return (int64_t)llround(t);
}

/* ---- building ---------------------------------------------------------- */

rki_fw_elem *rki_fw_add(rki_fw *w, rki_fw_elem *parent, const char *name)
{
	if (w->failed) return NULL;
	rki_fw_elem *e = (rki_fw_elem *)rki_arena_alloc(&w->arena, sizeof(rki_fw_elem));
	if (!e) {
		rki_fw_oom(w);
		return NULL;
	}
	e->name = name;
	if (!parent) parent = &w->root;
	if (parent->last) parent->last->next = e;
	else parent->first = e;
	parent->last = e;
	return e;
}

static rki_fw_prop *rki_fw_prop_new(rki_fw *w, rki_fw_elem *e, char type)
{
	if (!e || w->failed) return NULL;
	if (e->prop_count == e->prop_cap) {
		uint32_t cap = e->prop_cap ? e->prop_cap * 2 : 4;
		rki_fw_prop *np = (rki_fw_prop *)rki_arena_array(&w->arena, cap, sizeof(rki_fw_prop));
		if (!np) {
			rki_fw_oom(w);
			return NULL;
		}
		if (e->prop_count) memcpy(np, e->props, e->prop_count * sizeof(rki_fw_prop));
		e->props = np;
		e->prop_cap = cap;
	}
	rki_fw_prop *p = &e->props[e->prop_count++];
	memset(p, 0, sizeof(*p));
	p->type = type;
	return p;
}

static rki_fw_elem *rki_fw_scalar(rki_fw *w, rki_fw_elem *e, char type, int64_t i, double d)
{
	rki_fw_prop *p = rki_fw_prop_new(w, e, type);
	if (p) {
		p->i = i;
		p->d = d;
	}
	return e;
}

rki_fw_elem *rki_fw_i16(rki_fw *w, rki_fw_elem *e, int v) { return rki_fw_scalar(w, e, 'Y', v, 0.0); }
rki_fw_elem *rki_fw_bool(rki_fw *w, rki_fw_elem *e, bool v) { return rki_fw_scalar(w, e, 'C', v ? 1 : 0, 0.0); }
rki_fw_elem *rki_fw_i32(rki_fw *w, rki_fw_elem *e, int32_t v) { return rki_fw_scalar(w, e, 'I', v, 0.0); }
rki_fw_elem *rki_fw_i64(rki_fw *w, rki_fw_elem *e, int64_t v) { return rki_fw_scalar(w, e, 'L', v, 0.0); }
rki_fw_elem *rki_fw_f64(rki_fw *w, rki_fw_elem *e, double v) { return rki_fw_scalar(w, e, 'D', 0, v); }

static rki_fw_elem *rki_fw_bytes(rki_fw *w, rki_fw_elem *e, char type, const void *data, size_t size, bool copy)
{
	rki_fw_prop *p = rki_fw_prop_new(w, e, type);
	if (!p) return e;
	if (size > 0xFFFFFFFFu) {
		rki_fw_fail(w, RK_ERROR_UNSUPPORTED, "a string or blob of %zu bytes is more than FBX's 4 GiB field", size);
		return e;
	}
	if (copy && size) {
		void *c = rki_arena_alloc_uninit(&w->arena, size);
		if (!c) {
			rki_fw_oom(w);
			return e;
		}
		memcpy(c, data, size);
		data = c;
	}
	p->data = data;
	p->count = size;
	return e;
}

rki_fw_elem *rki_fw_str(rki_fw *w, rki_fw_elem *e, const char *s)
{
	if (!s) s = "";
	return rki_fw_bytes(w, e, 'S', s, strlen(s), true);
}

rki_fw_elem *rki_fw_raw(rki_fw *w, rki_fw_elem *e, const void *data, size_t size)
{
	return rki_fw_bytes(w, e, 'R', data, size, false);
}

rki_fw_elem *rki_fw_name(rki_fw *w, rki_fw_elem *e, const char *name, const char *klass)
{
	rki_fw_bytes(w, e, 'N', name ? name : "", name ? strlen(name) : 0, true);
	if (e && !w->failed) e->props[e->prop_count - 1].klass = klass;
	return e;
}

static void *rki_fw_arr(rki_fw *w, rki_fw_elem *e, char type, size_t count, size_t esize)
{
	if (count > 0x7FFFFFFFu / esize) {
		rki_fw_fail(w, RK_ERROR_UNSUPPORTED, "an array of %zu elements is more than an FBX array holds", count);
		return NULL;
	}
	rki_fw_prop *p = rki_fw_prop_new(w, e, type);
	if (!p) return NULL;
	void *d = rki_arena_array(&w->arena, count ? count : 1, esize);
	if (!d) {
		rki_fw_oom(w);
		return NULL;
	}
	p->data = d;
	p->count = count;
	return d;
}

int32_t *rki_fw_arr_i32(rki_fw *w, rki_fw_elem *e, size_t count) { return (int32_t *)rki_fw_arr(w, e, 'i', count, 4); }
int64_t *rki_fw_arr_i64(rki_fw *w, rki_fw_elem *e, size_t count) { return (int64_t *)rki_fw_arr(w, e, 'l', count, 8); }
float *rki_fw_arr_f32(rki_fw *w, rki_fw_elem *e, size_t count) { return (float *)rki_fw_arr(w, e, 'f', count, 4); }
double *rki_fw_arr_f64(rki_fw *w, rki_fw_elem *e, size_t count) { return (double *)rki_fw_arr(w, e, 'd', count, 8); }

rki_fw_elem *rki_fw_child_i32(rki_fw *w, rki_fw_elem *parent, const char *name, int32_t v)
{
	return rki_fw_i32(w, rki_fw_add(w, parent, name), v);
}

rki_fw_elem *rki_fw_child_i64(rki_fw *w, rki_fw_elem *parent, const char *name, int64_t v)
{
	return rki_fw_i64(w, rki_fw_add(w, parent, name), v);
}

rki_fw_elem *rki_fw_child_f64(rki_fw *w, rki_fw_elem *parent, const char *name, double v)
{
	return rki_fw_f64(w, rki_fw_add(w, parent, name), v);
}

rki_fw_elem *rki_fw_child_str(rki_fw *w, rki_fw_elem *parent, const char *name, const char *v)
{
	return rki_fw_str(w, rki_fw_add(w, parent, name), v);
}

double *rki_fw_child_f64s(rki_fw *w, rki_fw_elem *parent, const char *name, size_t count)
{
	rki_fw_elem *e = rki_fw_add(w, parent, name);
	return e ? rki_fw_arr_f64(w, e, count) : NULL;
}

int32_t *rki_fw_child_i32s(rki_fw *w, rki_fw_elem *parent, const char *name, size_t count)
{
	rki_fw_elem *e = rki_fw_add(w, parent, name);
	return e ? rki_fw_arr_i32(w, e, count) : NULL;
}

rki_fw_elem *rki_fw_p(rki_fw *w, rki_fw_elem *props70, const char *name, const char *type, const char *label,
	const char *flags)
{
	rki_fw_elem *p = rki_fw_add(w, props70, "P");
	rki_fw_str(w, p, name);
	rki_fw_str(w, p, type);
	rki_fw_str(w, p, label);
	rki_fw_str(w, p, flags);
	return p;
}

void rki_fw_p_int(rki_fw *w, rki_fw_elem *p70, const char *name, int32_t v)
{
	rki_fw_i32(w, rki_fw_p(w, p70, name, "int", "Integer", ""), v);
}

void rki_fw_p_enum(rki_fw *w, rki_fw_elem *p70, const char *name, int32_t v)
{
	rki_fw_i32(w, rki_fw_p(w, p70, name, "enum", "", ""), v);
}

void rki_fw_p_bool(rki_fw *w, rki_fw_elem *p70, const char *name, bool v)
{
	rki_fw_i32(w, rki_fw_p(w, p70, name, "bool", "", ""), v ? 1 : 0);
}

void rki_fw_p_double(rki_fw *w, rki_fw_elem *p70, const char *name, double v)
{
	rki_fw_f64(w, rki_fw_p(w, p70, name, "double", "Number", ""), v);
}

void rki_fw_p_number(rki_fw *w, rki_fw_elem *p70, const char *name, double v, bool animatable)
{
	rki_fw_f64(w, rki_fw_p(w, p70, name, "Number", "", animatable ? "A" : ""), v);
}

void rki_fw_p_vec3(rki_fw *w, rki_fw_elem *p70, const char *name, const char *type, const char *label,
	const char *flags, rk_vec3 v)
{
	rki_fw_elem *p = rki_fw_p(w, p70, name, type, label, flags);
	rki_fw_f64(w, p, v.x);
	rki_fw_f64(w, p, v.y);
	rki_fw_f64(w, p, v.z);
}

void rki_fw_p_color(rki_fw *w, rki_fw_elem *p70, const char *name, rk_vec3 v)
{
	rki_fw_p_vec3(w, p70, name, "Color", "", "A", v);
}

void rki_fw_p_string(rki_fw *w, rki_fw_elem *p70, const char *name, const char *v)
{
	rki_fw_str(w, rki_fw_p(w, p70, name, "KString", "", ""), v);
}

void rki_fw_p_time(rki_fw *w, rki_fw_elem *p70, const char *name, int64_t ticks)
{
	rki_fw_i64(w, rki_fw_p(w, p70, name, "KTime", "Time", ""), ticks);
}

void rki_fw_connect(rki_fw *w, int64_t child, int64_t parent)
{
	rki_fw_elem *c = rki_fw_add(w, w->connections, "C");
	rki_fw_str(w, c, "OO");
	rki_fw_i64(w, c, child);
	rki_fw_i64(w, c, parent);
}

void rki_fw_connect_prop(rki_fw *w, int64_t child, int64_t parent, const char *prop)
{
	rki_fw_elem *c = rki_fw_add(w, w->connections, "C");
	rki_fw_str(w, c, "OP");
	rki_fw_i64(w, c, child);
	rki_fw_i64(w, c, parent);
	rki_fw_str(w, c, prop);
}

/* ---- binary ------------------------------------------------------------- */

static size_t rki_fw_esize(char t)
{
	switch (t) {
	case 'b': return 1;
	case 'i': case 'f': return 4;
	default: return 8;
	}
}

/* Packs every array (zlib when larger than 128 bytes) and sizes every record. */
static bool rki_fw_measure(rki_fw *w, rki_fw_elem *e, bool wide, uint64_t *out_size)
{
	uint64_t head = wide ? 25 : 13;
	uint64_t size = head + strlen(e->name);
	for (uint32_t k = 0; k < e->prop_count; k++) {
		rki_fw_prop *p = &e->props[k];
		size += 1;
		switch (p->type) {
		case 'C': size += 1; break;
		case 'Y': size += 2; break;
		case 'I': case 'F': size += 4; break;
		case 'L': case 'D': size += 8; break;
		case 'S': case 'R': size += 4 + p->count; break;
		case 'N': size += 4 + p->count + (p->count || p->klass ? 2 + strlen(p->klass) : 0); break;
		default: {
			size_t raw = p->count * rki_fw_esize(p->type);
			p->packed = p->data;
			p->packed_size = raw;
			p->deflated = false;
			if (raw > 128 && !w->o.no_compression) {
				size_t bound = libdeflate_zlib_compress_bound(w->deflate, raw);
				void *dst = rki_arena_alloc_uninit(&w->arena, bound);
				if (!dst) return rki_fw_oom(w);
				size_t got = libdeflate_zlib_compress(w->deflate, p->data, raw, dst, bound);
				if (got > 0 && got < raw) {
					p->packed = dst;
					p->packed_size = got;
					p->deflated = true;
				}
			}
			size += 12 + p->packed_size;
			break;
		}
		}
	}
	bool children = e->first != NULL;
	for (rki_fw_elem *c = e->first; c; c = c->next) {
		uint64_t cs;
		if (!rki_fw_measure(w, c, wide, &cs)) return false;
		size += cs;
	}
	if (children || e->prop_count == 0) size += head;
	e->size = size;
	*out_size = size;
	return true;
}

static bool rki_fw_put(rki_buf *b, const void *d, size_t n) { return rki_buf_push(b, d, n); }

static bool rki_fw_put_u32(rki_buf *b, uint32_t v)
{
	unsigned char x[4] = { (unsigned char)v, (unsigned char)(v >> 8), (unsigned char)(v >> 16), (unsigned char)(v >> 24) };
	return rki_buf_push(b, x, 4);
}

static bool rki_fw_put_u64(rki_buf *b, uint64_t v)
{
	return rki_fw_put_u32(b, (uint32_t)v) && rki_fw_put_u32(b, (uint32_t)(v >> 32));
}

static bool rki_fw_put_field(rki_buf *b, bool wide, uint64_t v)
{
	return wide ? rki_fw_put_u64(b, v) : rki_fw_put_u32(b, (uint32_t)v);
}

/* Little-endian copy of an array's elements (the machine's order otherwise). */
static bool rki_fw_put_le(rki_buf *b, const void *data, size_t count, size_t esize)
{
	const uint16_t probe = 1;
	unsigned char first;
	memcpy(&first, &probe, 1);
	if (first == 1 || esize == 1) return rki_buf_push(b, data, count * esize);
	const unsigned char *s = (const unsigned char *)data;
	for (size_t i = 0; i < count; i++) {
		unsigned char x[8];
		for (size_t k = 0; k < esize; k++) x[k] = s[i * esize + esize - 1 - k];
		if (!rki_buf_push(b, x, esize)) return false;
	}
	return true;
}

static bool rki_fw_emit(rki_fw *w, rki_buf *b, const rki_fw_elem *e, bool wide)
{
	uint64_t start = b->size, props = 0;
	for (uint32_t k = 0; k < e->prop_count; k++) {
		const rki_fw_prop *p = &e->props[k];
		switch (p->type) {
		case 'C': props += 2; break;
		case 'Y': props += 3; break;
		case 'I': case 'F': props += 5; break;
		case 'L': case 'D': props += 9; break;
		case 'S': case 'R': props += 5 + p->count; break;
		case 'N': props += 5 + p->count + (p->count || p->klass ? 2 + strlen(p->klass) : 0); break;
		default: props += 13 + p->packed_size; break;
		}
	}
	size_t nlen = strlen(e->name);
	bool ok = rki_fw_put_field(b, wide, start + e->size) && rki_fw_put_field(b, wide, e->prop_count) &&
		rki_fw_put_field(b, wide, props) && rki_buf_push(b, &(unsigned char){ (unsigned char)nlen }, 1) &&
		rki_fw_put(b, e->name, nlen);
	for (uint32_t k = 0; k < e->prop_count && ok; k++) {
		const rki_fw_prop *p = &e->props[k];
		ok = rki_buf_push(b, &p->type, 1);
		if (p->type == 'N') b->data[b->size - 1] = 'S';
		if (!ok) break;
		switch (p->type) {
		case 'C': ok = rki_buf_push(b, &(unsigned char){ p->i ? 1 : 0 }, 1); break;
		case 'Y': {
			int16_t v = (int16_t)p->i;
			ok = rki_fw_put_le(b, &v, 1, 2);
			break;
		}
		case 'I': ok = rki_fw_put_u32(b, (uint32_t)(int32_t)p->i); break;
		case 'L': ok = rki_fw_put_u64(b, (uint64_t)p->i); break;
		case 'F': {
			float f = (float)p->d;
			ok = rki_fw_put_le(b, &f, 1, 4);
			break;
		}
		case 'D': ok = rki_fw_put_le(b, &p->d, 1, 8); break;
		case 'S': case 'R': ok = rki_fw_put_u32(b, (uint32_t)p->count) && rki_fw_put(b, p->data, p->count); break;
		case 'N': {
			size_t kl = p->count || p->klass ? strlen(p->klass) : 0;
			ok = rki_fw_put_u32(b, (uint32_t)(p->count + (kl || p->klass ? 2 + kl : 0))) && rki_fw_put(b, p->data, p->count);
			if (ok && (kl || p->klass)) ok = rki_fw_put(b, "\0\x01", 2) && rki_fw_put(b, p->klass, kl);
			break;
		}
		default:
			ok = rki_fw_put_u32(b, (uint32_t)p->count) && rki_fw_put_u32(b, p->deflated ? 1u : 0u) &&
				rki_fw_put_u32(b, (uint32_t)p->packed_size) &&
				(p->deflated ? rki_fw_put(b, p->packed, p->packed_size)
							 : rki_fw_put_le(b, p->data, p->count, rki_fw_esize(p->type)));
			break;
		}
	}
	for (const rki_fw_elem *c = e->first; c && ok; c = c->next) ok = rki_fw_emit(w, b, c, wide);
	if (ok && (e->first || e->prop_count == 0)) {
		static const unsigned char zero[25] = { 0 };
		ok = rki_fw_put(b, zero, wide ? 25 : 13);
	}
	return ok || rki_fw_oom(w);
}

static bool rki_fw_encode_binary(rki_fw *w, rki_buf *out)
{
	w->deflate = libdeflate_alloc_compressor(w->o.compression_level > 0 && w->o.compression_level <= 12
		? w->o.compression_level : 6);
	if (!w->deflate) return rki_fw_oom(w);
	bool wide = w->version >= 7500;
	uint64_t total = 27;
	for (rki_fw_elem *c = w->root.first; c; c = c->next) {
		uint64_t cs;
		if (!rki_fw_measure(w, c, wide, &cs)) return false;
		total += cs;
	}
	total += (wide ? 25 : 13) + 16 + 4 + 16 + 4 + 120 + 16;
	if (!wide && total > 0xFFFFFFF0u) {
		if (w->o.version == 7400)
			return rki_fw_fail(w, RK_ERROR_UNSUPPORTED, "the file would be %llu bytes, more than FBX 7400's 32-bit offsets "
				"reach (ask for version 7500)", (unsigned long long)total);
		w->version = 7500;
		rki_fw_warn(w, "the file passes 4 GiB: written as FBX 7500 (64-bit offsets)");
		/* the FBXVersion fields were written for 7400; fix them up */
		for (rki_fw_elem *c = w->root.first; c; c = c->next)
			if (!strcmp(c->name, "FBXHeaderExtension"))
				for (rki_fw_elem *d = c->first; d; d = d->next)
					if (!strcmp(d->name, "FBXVersion") && d->prop_count) d->props[0].i = 7500;
		return rki_fw_encode_binary(w, out);
	}
	if (total > SIZE_MAX / 2) return rki_fw_fail(w, RK_ERROR_LIMIT, "the file would be too large for this machine");
	if (!rki_buf_reserve(out, (size_t)total)) return rki_fw_oom(w);
	rki_buf_push(out, rki_fw_head, sizeof(rki_fw_head));   /* 20 characters, NUL, 0x1a, NUL */
	rki_fw_put_u32(out, w->version);
	for (rki_fw_elem *c = w->root.first; c; c = c->next)
		if (!rki_fw_emit(w, out, c, wide)) return false;
	static const unsigned char zero[128] = { 0 };
	bool ok = rki_fw_put(out, zero, wide ? 25 : 13) && rki_fw_put(out, rki_fw_foot_id, 16) && rki_fw_put(out, zero, 4);
	size_t pad = ((out->size + 15) & ~(size_t)15) - out->size;
	if (pad == 0) pad = 16;
	ok = ok && rki_fw_put(out, zero, pad) && rki_fw_put_u32(out, w->version) && rki_fw_put(out, zero, 120) &&
		rki_fw_put(out, rki_fw_foot_magic, 16);
	return ok || rki_fw_oom(w);
}

/* ---- ASCII -------------------------------------------------------------- */

static bool rki_fw_printf(rki_buf *b, const char *fmt, ...) RKI_PRINTF(2, 3);
static bool rki_fw_printf(rki_buf *b, const char *fmt, ...)
{
	char tmp[96];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	return n >= 0 && (size_t)n < sizeof(tmp) && rki_buf_push(b, tmp, (size_t)n);
}

static bool rki_fw_put_number(rki_buf *b, double v)
{
	if (!isfinite(v)) v = 0.0;
	if (v == floor(v) && fabs(v) < 1e15) return rki_fw_printf(b, "%.0f", v);
	return rki_fw_printf(b, "%.17g", v);
}

static bool rki_fw_put_quoted(rki_buf *b, const char *s, size_t n, const char *klass)
{
	bool ok = rki_buf_push(b, "\"", 1);
	if (klass) ok = ok && rki_fw_put(b, klass, strlen(klass)) && rki_fw_put(b, "::", 2);
	for (size_t i = 0; i < n && ok; i++) {
		if (s[i] == '"') ok = rki_fw_put(b, "&quot;", 6);
		else if ((unsigned char)s[i] < 0x20) ok = rki_fw_printf(b, "FBXASC%03u", (unsigned)(unsigned char)s[i]);
		else ok = rki_buf_push(b, &s[i], 1);
	}
	return ok && rki_buf_push(b, "\"", 1);
}

static bool rki_fw_indent(rki_buf *b, int depth)
{
	for (int i = 0; i < depth; i++)
		if (!rki_buf_push(b, "\t", 1)) return false;
	return true;
}

static bool rki_fw_emit_ascii(rki_fw *w, rki_buf *b, const rki_fw_elem *e, int depth)
{
	bool ok = rki_fw_indent(b, depth) && rki_fw_put(b, e->name, strlen(e->name)) && rki_fw_put(b, ": ", 2);
	bool array_block = false;
	for (uint32_t k = 0; k < e->prop_count && ok; k++) {
		const rki_fw_prop *p = &e->props[k];
		if (k) ok = rki_fw_put(b, ", ", 2);
		switch (p->type) {
		case 'C': ok = ok && rki_fw_put(b, p->i ? "T" : "F", 1); break;
		case 'Y': case 'I': case 'L': ok = ok && rki_fw_printf(b, "%lld", (long long)p->i); break;
		case 'F': case 'D': ok = ok && rki_fw_put_number(b, p->d); break;
		case 'S': ok = ok && rki_fw_put_quoted(b, (const char *)p->data, p->count, NULL); break;
		case 'N': ok = ok && rki_fw_put_quoted(b, (const char *)p->data, p->count, p->klass); break;
		case 'R': ok = ok && rki_fw_put(b, "\"\"", 2); break;
		default: {
			ok = ok && rki_fw_printf(b, "*%zu {\n", p->count) && rki_fw_indent(b, depth + 1) && rki_fw_put(b, "a: ", 3);
			for (size_t i = 0; i < p->count && ok; i++) {
				if (i) ok = rki_fw_put(b, i % 16 ? "," : ",\n", i % 16 ? 1 : 2);
				switch (p->type) {
				case 'i': ok = ok && rki_fw_printf(b, "%d", ((const int32_t *)p->data)[i]); break;
				case 'l': ok = ok && rki_fw_printf(b, "%lld", (long long)((const int64_t *)p->data)[i]); break;
				case 'b': ok = ok && rki_fw_printf(b, "%d", ((const unsigned char *)p->data)[i]); break;
				case 'f': {
					double v = ((const float *)p->data)[i];
					ok = ok && (v == floor(v) && fabs(v) < 1e15 ? rki_fw_printf(b, "%.0f", v) : rki_fw_printf(b, "%.9g", v));
					break;
				}
				default: ok = ok && rki_fw_put_number(b, ((const double *)p->data)[i]); break;
				}
			}
			ok = ok && rki_fw_put(b, "\n", 1) && rki_fw_indent(b, depth) && rki_fw_put(b, "}", 1);
			array_block = true;
			break;
		}
		}
	}
	if (ok && (e->first || (e->prop_count == 0 && !array_block))) {
		ok = rki_fw_put(b, e->prop_count ? " {\n" : "{\n", e->prop_count ? 3 : 2);
		for (const rki_fw_elem *c = e->first; c && ok; c = c->next) ok = rki_fw_emit_ascii(w, b, c, depth + 1);
		ok = ok && rki_fw_indent(b, depth) && rki_fw_put(b, "}", 1);
	}
	ok = ok && rki_fw_put(b, "\n", 1);
	return ok || rki_fw_oom(w);
}

static bool rki_fw_encode_ascii(rki_fw *w, rki_buf *out)
{
	const char *head = "; FBX 7.4.0 project file\n; Created by rigkit\n; ----------------------------------------------------\n\n";
	if (!rki_fw_put(out, head, strlen(head))) return rki_fw_oom(w);
	for (rki_fw_elem *c = w->root.first; c; c = c->next)
		if (!rki_fw_emit_ascii(w, out, c, 0)) return false;
	return true;
}

bool rki_fw_encode(rki_fw *w, rki_buf *out)
{
	if (w->failed) return false;
	return w->o.ascii ? rki_fw_encode_ascii(w, out) : rki_fw_encode_binary(w, out);
}
