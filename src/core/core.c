/* src/core/core.c - allocation, arenas and errors shared by all modules (file I/O: file_io.c). */
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *rk_version(void) { return RK_VERSION_STRING; }

/* ---- allocation --------------------------------------------------------- */

void rki_alloc_init(rki_alloc *a, const rk_allocator *user, size_t memory_limit, size_t allocation_limit)
{
	memset(a, 0, sizeof(*a));
	if (user) a->user = *user;
	a->memory_limit = memory_limit;
	a->allocation_limit = allocation_limit;
}

void *rki_malloc(rki_alloc *a, size_t size)
{
	if (size == 0) return NULL;
	if (a->allocation_limit && a->allocation_count >= a->allocation_limit) {
		a->failed = a->limit_hit = true;
		return NULL;
	}
	if (a->memory_limit && (size > a->memory_limit || a->bytes_in_use > a->memory_limit - size)) {
		a->failed = a->limit_hit = true;
		return NULL;
	}
	void *p = a->user.alloc ? a->user.alloc(a->user.user, size) : malloc(size);
	if (!p) {
		a->failed = true;
		return NULL;
	}
	a->allocation_count++;
	a->bytes_in_use += size;
	if (a->bytes_in_use > a->peak_bytes) a->peak_bytes = a->bytes_in_use;
	return p;
}

void *rki_calloc(rki_alloc *a, size_t count, size_t size)
{
	size_t total;
	if (!rki_mul_size(count, size, &total)) {
		a->failed = true;
		return NULL;
	}
	void *p = rki_malloc(a, total);
	if (p) memset(p, 0, total);
	return p;
}

void rki_free(rki_alloc *a, void *ptr, size_t size)
{
	if (!ptr) return;
	a->bytes_in_use -= size <= a->bytes_in_use ? size : a->bytes_in_use;
	if (a->user.free) a->user.free(a->user.user, ptr, size);
	else if (!a->user.alloc) free(ptr);
}

/* ---- arena -------------------------------------------------------------- */

void rki_arena_init(rki_arena *ar, rki_alloc *alloc)
{
	memset(ar, 0, sizeof(*ar));
	ar->alloc = alloc;
	ar->chunk_size = 4096;
}

/* Bump allocation without clearing, or NULL. align 16: the size is rounded up
 * to 16 too (*size_out); align 1: packed (strings). */
static void *rki_arena_bump(rki_arena *ar, size_t size, size_t align, size_t *size_out)
{
	size_t need = size;
	if (align > 1) {
		if (!rki_add_size(size, align - 1, &need)) return NULL;
		need &= ~(align - 1);
		if (need == 0) need = align;
	}
	rki_arena_chunk *c = ar->head;
	size_t start = c ? (c->used + align - 1) & ~(align - 1) : 0;
	if (!c || start > c->size || c->size - start < need) {
		bool reserved = ar->reserve >= need;
		size_t want = reserved ? ar->reserve : ar->chunk_size;
		if (want < need) want = need;
		size_t total;
		if (!rki_add_size(want, RKI_CHUNK_HEADER, &total)) return NULL;
		c = (rki_arena_chunk *)rki_malloc(ar->alloc, total);
		if (!c) return NULL;
		c->size = want;
		c->used = 0;
		ar->capacity += want;
		c->next = ar->head;
		ar->head = c;
		if (reserved) ar->reserve = 0;
		else if (ar->chunk_size < ((size_t)1 << 24)) ar->chunk_size *= 2;
		start = 0;
	}
	unsigned char *p = (unsigned char *)c + RKI_CHUNK_HEADER + start;
	ar->total += start - c->used + need;
	c->used = start + need;
	*size_out = need;
	return p;
}

void rki_arena_cap_next(rki_arena *ar, size_t bytes)
{
	if (bytes < 4096) bytes = 4096;
	if (ar->chunk_size > bytes) ar->chunk_size = bytes;
}

void *rki_arena_alloc(rki_arena *ar, size_t size)
{
	void *p = rki_arena_alloc_uninit(ar, size);
	if (p) memset(p, 0, size ? (size + 15) & ~(size_t)15 : 16);  /* what rki_arena_bump hands out */
	return p;
}

void *rki_arena_alloc_uninit_slow(rki_arena *ar, size_t size)
{
	size_t aligned;
	return rki_arena_bump(ar, size, 16, &aligned);
}

void *rki_arena_array(rki_arena *ar, size_t count, size_t size)
{
	size_t total;
	if (!rki_mul_size(count, size, &total)) {
		ar->alloc->failed = true;
		return NULL;
	}
	return rki_arena_alloc(ar, total);
}

char *rki_arena_strndup(rki_arena *ar, const char *s, size_t len)
{
	size_t total;
	if (!rki_add_size(len, 1, &total)) return NULL;
	size_t got;
	char *d = (char *)rki_arena_bump(ar, total, 1, &got);  /* packed: strings need no alignment */
	if (!d) return NULL;
	if (len) memcpy(d, s, len);
	d[len] = '\0';
	return d;
}

void rki_arena_free(rki_arena *ar)
{
	rki_arena_chunk *c = ar->head;
	while (c) {
		rki_arena_chunk *next = c->next;
		rki_free(ar->alloc, c, c->size + RKI_CHUNK_HEADER);
		c = next;
	}
	ar->head = NULL;
	ar->total = 0;
	ar->capacity = 0;
}

void rki_arena_reserve(rki_arena *ar, size_t bytes)
{
	/* never more than half of what a memory limit leaves: the reserve must not
	 * be what makes a load fail */
	const rki_alloc *a = ar->alloc;
	size_t left = a->memory_limit > a->bytes_in_use ? a->memory_limit - a->bytes_in_use : 0;
	if (a->memory_limit && bytes > left / 2) bytes = 0;
	ar->reserve = bytes > ar->chunk_size ? bytes : 0;
}

void rki_arena_reset(rki_arena *ar)
{
	rki_arena_chunk *keep = NULL, *c = ar->head;
	while (c) {
		rki_arena_chunk *next = c->next;
		if (!keep || c->size > keep->size) {
			if (keep) rki_free(ar->alloc, keep, keep->size + RKI_CHUNK_HEADER);
			keep = c;
		} else {
			rki_free(ar->alloc, c, c->size + RKI_CHUNK_HEADER);
		}
		c = next;
	}
	if (keep) {
		keep->next = NULL;
		keep->used = 0;
	}
	ar->head = keep;
	ar->total = 0;
	ar->capacity = keep ? keep->size : 0;
}

/* ---- growable buffer ---------------------------------------------------- */

void rki_buf_init(rki_buf *b, rki_alloc *alloc)
{
	memset(b, 0, sizeof(*b));
	b->alloc = alloc;
}

bool rki_buf_reserve(rki_buf *b, size_t extra)
{
	size_t need;
	if (!rki_add_size(b->size, extra, &need)) return false;
	if (need <= b->cap) return true;
	size_t cap = b->cap ? b->cap : 256;
	while (cap < need) {
		if (cap > SIZE_MAX / 2) { cap = need; break; }
		cap *= 2;
	}
	unsigned char *p = (unsigned char *)rki_malloc(b->alloc, cap);
	if (!p) return false;
	if (b->size) memcpy(p, b->data, b->size);
	rki_free(b->alloc, b->data, b->cap);
	b->data = p;
	b->cap = cap;
	return true;
}

bool rki_buf_push(rki_buf *b, const void *data, size_t size)
{
	if (!rki_buf_reserve(b, size)) return false;
	if (size) memcpy(b->data + b->size, data, size);
	b->size += size;
	return true;
}

void rki_buf_free(rki_buf *b)
{
	rki_free(b->alloc, b->data, b->cap);
	b->data = NULL;
	b->size = b->cap = 0;
}

/* ---- errors --------------------------------------------------------------- */

static const char *const rki_error_names[RK_ERROR_COUNT_] = {
	"no error",
	"invalid argument",
	"cannot read file",
	"unknown file format",
	"unsupported",
	"truncated input",
	"corrupt input",
	"limit exceeded",
	"out of memory",
	"cannot write output",
};

const char *rk_error_code_name(rk_error_code code)
{
	if ((unsigned)code >= RK_ERROR_COUNT_) return "unknown error";
	return rki_error_names[code];
}

void rki_strlcpy(char *dst, const char *src, size_t cap)
{
	if (cap == 0) return;
	size_t n = src ? strlen(src) : 0;
	if (n >= cap) n = cap - 1;
	if (n) memcpy(dst, src, n);
	dst[n] = '\0';
}

void rki_error_clear(rk_error *err)
{
	if (!err) return;
	memset(err, 0, sizeof(*err));
	err->description = rk_error_code_name(RK_OK);
}

void rki_error_setv(rk_error *err, rk_error_code code, const char *fmt, va_list ap)
{
	if (!err) return;
	char file[RK_ERROR_TEXT_MAX];
	memcpy(file, err->file, sizeof(file));
	memset(err, 0, sizeof(*err));
	memcpy(err->file, file, sizeof(file));
	err->code = code;
	err->description = rk_error_code_name(code);
	vsnprintf(err->message, sizeof(err->message), fmt, ap);
}

void rki_error_set(rk_error *err, rk_error_code code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	rki_error_setv(err, code, fmt, ap);
	va_end(ap);
}

void rki_error_file(rk_error *err, const char *file)
{
	if (err) rki_strlcpy(err->file, file ? file : "", sizeof(err->file));
}

void rki_error_at_byte(rk_error *err, uint64_t offset)
{
	if (!err) return;
	err->location |= RK_LOCATION_BYTE;
	err->byte_offset = offset;
}

void rki_error_at_line(rk_error *err, uint64_t line)
{
	if (!err) return;
	err->location |= RK_LOCATION_LINE;
	err->line = line;
}

void rki_error_at_path(rk_error *err, uint32_t kind, const char *path)
{
	if (!err) return;
	err->location |= kind;
	rki_strlcpy(err->path, path, sizeof(err->path));
}

size_t rk_error_format(char *dst, size_t cap, const rk_error *err)
{
	char loc[RK_ERROR_TEXT_MAX * 2];
	size_t ln = 0;
	loc[0] = '\0';
	if (!err) return (size_t)snprintf(dst, cap, "no error information");
	if (err->location & RK_LOCATION_BYTE)
		ln += (size_t)snprintf(loc + ln, sizeof(loc) - ln, "byte %llu", (unsigned long long)err->byte_offset);
	if ((err->location & RK_LOCATION_LINE) && ln < sizeof(loc))
		ln += (size_t)snprintf(loc + ln, sizeof(loc) - ln, "%sline %llu", ln ? ", " : "", (unsigned long long)err->line);
	if ((err->location & RK_LOCATION_FBX_NODE) && ln < sizeof(loc))
		ln += (size_t)snprintf(loc + ln, sizeof(loc) - ln, "%snode %s", ln ? ", " : "", err->path);
	if ((err->location & RK_LOCATION_JSON) && ln < sizeof(loc))
		ln += (size_t)snprintf(loc + ln, sizeof(loc) - ln, "%sJSON %s", ln ? ", " : "", err->path);
	const char *msg = err->message[0] ? err->message : rk_error_code_name(err->code);
	int n;
	if (err->file[0])
		n = ln ? snprintf(dst, cap, "%s: %s (at %s)", err->file, msg, loc) : snprintf(dst, cap, "%s: %s", err->file, msg);
	else
		n = ln ? snprintf(dst, cap, "%s (at %s)", msg, loc) : snprintf(dst, cap, "%s", msg);
	return n < 0 ? 0 : (size_t)n;
}

bool rki_strtod_dot(const unsigned char *s, size_t len, double *out)
{
	char buf[RKI_STRTOD_MAX + 16];
	if (len == 0 || len > RKI_STRTOD_MAX) return false;
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
	return endp == buf + n;
}

static int rki_hex(int c)
{
	if (c >= '0' && c <= '9') return c - '0';
	if (c >= 'a' && c <= 'f') return c - 'a' + 10;
	if (c >= 'A' && c <= 'F') return c - 'A' + 10;
	return -1;
}

size_t rki_percent_decode(unsigned char *dst, unsigned char *escaped, const char *s, size_t len, bool allow_nul)
{
	size_t n = 0;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		bool esc = c == '%';
		if (esc) {
			if (len - i < 3) return SIZE_MAX;
			int hi = rki_hex(s[i + 1]), lo = rki_hex(s[i + 2]);
			if (hi < 0 || lo < 0) return SIZE_MAX;
			c = (unsigned char)(hi * 16 + lo);
			if (c == 0 && !allow_nul) return SIZE_MAX;
			i += 2;
		}
		if (escaped) escaped[n] = esc;
		dst[n++] = c;
	}
	return n;
}

const void *rki_memmem(const void *hay, size_t hay_len, const void *needle, size_t needle_len)
{
	const unsigned char *h = (const unsigned char *)hay, *n = (const unsigned char *)needle;
	if (needle_len == 0) return hay;
	if (hay_len < needle_len) return NULL;
	for (size_t i = 0; i + needle_len <= hay_len; i++) {
		const unsigned char *p = (const unsigned char *)memchr(h + i, n[0], hay_len - needle_len + 1 - i);
		if (!p) return NULL;
		i = (size_t)(p - h);
		if (memcmp(p, n, needle_len) == 0) return p;
	}
	return NULL;
}
