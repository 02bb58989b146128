/*
 * src/core/internal.h - helpers shared by rigkit's modules (not public API).
 *
 * - rki_alloc: an allocator front end with memory and allocation-count limits
 *   and exact accounting, wrapping a user rk_allocator.
 * - rki_arena: bump allocator in chunks, all freed at once. Scene data lives
 *   in one arena; parsers use a second arena for temporaries.
 * - rki_error_*: fill an rk_error with code, message and location.
 * - checked size arithmetic.
 * - inline forms of rigkit/math.h's vector and quaternion operations
 *   (rki_v3*, rki_q*: the same formulas, but rki_qnorm multiplies by the
 *   reciprocal) for the per-frame loops.
 * - rki_read_file / rki_write_file_atomic: whole-file I/O.
 */
#ifndef RIGKIT_CORE_INTERNAL_H
#define RIGKIT_CORE_INTERNAL_H

#include "rigkit/base.h"
#include "rigkit/math.h"

#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#if defined(__GNUC__) || defined(__clang__)
#define RKI_PRINTF(a, b) __attribute__((format(printf, a, b)))
/* A function whose copies are specialised by a constant argument (the FBX
 * tokenizer's byte order), and a rarely taken error path kept out of line. */
#define RKI_FORCE_INLINE inline __attribute__((always_inline))
#define RKI_COLD __attribute__((cold, noinline))
#else
#define RKI_PRINTF(a, b)
#define RKI_FORCE_INLINE inline
#define RKI_COLD
#endif

/* ---- allocation with limits -------------------------------------------- */

/* Default memory limit of loads, writers and renders: 4 GiB, or 1.5 GiB
 * where size_t is 32 bits (WebAssembly: 4 << 30 would wrap to 0, which
 * means "unlimited"). */
#define RKI_DEFAULT_MEMORY_LIMIT (SIZE_MAX > 0xFFFFFFFFu ? (size_t)((uint64_t)4 << 30) : (size_t)3 << 29)

typedef struct rki_alloc {
	rk_allocator user;        /* zeroed = malloc/free */
	size_t memory_limit;      /* 0 = unlimited */
	size_t allocation_limit;  /* 0 = unlimited */
	size_t bytes_in_use;
	size_t peak_bytes;
	size_t allocation_count;  /* successful allocations so far */
	bool failed;              /* set once any allocation failed */
	bool limit_hit;           /* the failure was a configured limit */
} rki_alloc;

void rki_alloc_init(rki_alloc *a, const rk_allocator *user, size_t memory_limit, size_t allocation_limit);
/* Returns NULL on failure (and sets a->failed / a->limit_hit). size 0 -> NULL. */
void *rki_malloc(rki_alloc *a, size_t size);
void *rki_calloc(rki_alloc *a, size_t count, size_t size);
void rki_free(rki_alloc *a, void *ptr, size_t size);

/* ---- arena -------------------------------------------------------------- */

typedef struct rki_arena_chunk {
	struct rki_arena_chunk *next;
	size_t size;  /* usable bytes after the header */
	size_t used;
	/* data follows, 16-byte aligned */
} rki_arena_chunk;

#define RKI_CHUNK_HEADER ((sizeof(rki_arena_chunk) + 15u) & ~(size_t)15u)

typedef struct rki_arena {
	rki_alloc *alloc;
	rki_arena_chunk *head;
	size_t chunk_size;        /* next chunk size, grows geometrically */
	size_t reserve;           /* size of the next chunk when set (rki_arena_reserve) */
	size_t total;             /* bytes handed out */
	size_t capacity;          /* bytes of every chunk together (what the arena holds) */
} rki_arena;

void rki_arena_init(rki_arena *ar, rki_alloc *alloc);
/* 16-byte aligned, zero-filled memory, or NULL. */
void *rki_arena_alloc(rki_arena *ar, size_t size);
/* As rki_arena_alloc but the memory is not cleared (for buffers the caller
 * overwrites completely: no memset, and untouched pages stay untouched). */
static inline void *rki_arena_alloc_uninit(rki_arena *ar, size_t size);
/* The out-of-line part of rki_arena_alloc_uninit: a new chunk, size 0, or a
 * size past 1 GiB. */
void *rki_arena_alloc_uninit_slow(rki_arena *ar, size_t size);
/* Overflow-checked count * size; NULL on overflow or failure. count 0 -> non-NULL dummy. */
void *rki_arena_array(rki_arena *ar, size_t count, size_t size);
/* Copy of s[0..len) plus a NUL, packed (no alignment), or NULL. */
char *rki_arena_strndup(rki_arena *ar, const char *s, size_t len);
void rki_arena_free(rki_arena *ar);

/* The common case inline: the head chunk has room (the FBX parser allocates
 * a property array or a child list per node; the call was 5-8% of loading a
 * small FBX file; docs/benchmarks.md, "FBX load per byte, third pass"). The
 * same bytes as the slow path would hand out. */
static inline void *rki_arena_alloc_uninit(rki_arena *ar, size_t size)
{
	rki_arena_chunk *c = ar->head;
	if (c && size - 1 < ((size_t)1 << 30)) {
		size_t need = (size + 15) & ~(size_t)15;
		size_t start = (c->used + 15) & ~(size_t)15;
		if (start <= c->size && c->size - start >= need) {
			unsigned char *p = (unsigned char *)c + RKI_CHUNK_HEADER + start;
			ar->total += start - c->used + need;
			c->used = start + need;
			return p;
		}
	}
	return rki_arena_alloc_uninit_slow(ar, size);
}
/* Makes the next chunk `bytes` long (when that is larger than the next chunk
 * would be): one block for the bulk of a load, sized from an estimate. Later
 * chunks grow from the usual sizes again. Pages of it that are never used are
 * never touched; capped at half of what a memory limit leaves. Why: with glibc, many geometrically growing chunks add up
 * to more than twice the largest one, so free() returns the memory to the
 * kernel after every load and the next load faults it in again page by page;
 * one block that holds the load stays in the heap (measured: Xbot.glb 1200
 * page faults per load before, 50 after; FBX numbers in fbx_load.c). */
void rki_arena_reserve(rki_arena *ar, size_t bytes);
/* Caps the size of the chunks the arena asks for from now on at `bytes`
 * (at least 4 KiB; they grow again from there): for temporaries whose
 * bulk is already allocated, so that one more small need does not take a
 * chunk twice the size of all the others. */
void rki_arena_cap_next(rki_arena *ar, size_t bytes);
/* Forgets every allocation but keeps the largest chunk for reuse (scratch
 * memory reused per item: its pages stay mapped and warm). */
void rki_arena_reset(rki_arena *ar);

/* ---- growable buffer (temporary memory) --------------------------------- */

typedef struct rki_buf {
	unsigned char *data;
	size_t size, cap;
	rki_alloc *alloc;
} rki_buf;

void rki_buf_init(rki_buf *b, rki_alloc *alloc);
bool rki_buf_reserve(rki_buf *b, size_t extra);
bool rki_buf_push(rki_buf *b, const void *data, size_t size);
void rki_buf_free(rki_buf *b);

/* ---- finite checks ------------------------------------------------------ */

/* True when v[0..n) holds no infinity and no NaN, without a branch per value:
 * x * 0 is 0 for every finite x and NaN otherwise, and a NaN survives the
 * four independent sums. */
static inline bool rki_f64_all_finite(const double *v, size_t n)
{
	double a0 = 0.0, a1 = 0.0, a2 = 0.0, a3 = 0.0;
	size_t i = 0;
	for (; i + 4 <= n; i += 4) {
		a0 += v[i] * 0.0;
		a1 += v[i + 1] * 0.0;
		a2 += v[i + 2] * 0.0;
		a3 += v[i + 3] * 0.0;
	}
	for (; i < n; i++) a0 += v[i] * 0.0;
	return (a0 + a1) + (a2 + a3) == 0.0;
}

/* ---- matrix product ------------------------------------------------------ */

/* *r = a * b, rk_mat4_mul's sums in its order (the same bits), read through
 * pointers instead of 128-byte copies; r may be a or b. */
static inline void rki_mat4_mul_to(rk_mat4 *r, const rk_mat4 *a, const rk_mat4 *b)
{
	rk_mat4 p;
	for (int col = 0; col < 4; col++)
		for (int row = 0; row < 4; row++) {
			double s = 0.0;
			for (int k = 0; k < 4; k++) s += a->m[k * 4 + row] * b->m[col * 4 + k];
			p.m[col * 4 + row] = s;
		}
	*r = p;
}

/* ---- checked arithmetic ------------------------------------------------- */

static inline bool rki_mul_size(size_t a, size_t b, size_t *out)
{
	if (b != 0 && a > SIZE_MAX / b) return false;
	*out = a * b;
	return true;
}

static inline bool rki_add_size(size_t a, size_t b, size_t *out)
{
	if (a > SIZE_MAX - b) return false;
	*out = a + b;
	return true;
}

/* ---- errors --------------------------------------------------------------- */

/* Set code and message (printf). Clears any previous location. err may be NULL. */
void rki_error_set(rk_error *err, rk_error_code code, const char *fmt, ...) RKI_PRINTF(3, 4);
void rki_error_setv(rk_error *err, rk_error_code code, const char *fmt, va_list ap);
void rki_error_clear(rk_error *err);
void rki_error_file(rk_error *err, const char *file);
void rki_error_at_byte(rk_error *err, uint64_t offset);
void rki_error_at_line(rk_error *err, uint64_t line);
/* kind: RK_LOCATION_FBX_NODE or RK_LOCATION_JSON */
void rki_error_at_path(rk_error *err, uint32_t kind, const char *path);
/* Bounded strncpy that always NUL-terminates. */
void rki_strlcpy(char *dst, const char *src, size_t cap);

/* Inline forms of the rigkit/math.h quaternion and vector operations the
 * per-frame loops (retargeting, two-bone IK) use (the same formulas,
 * rki_qnorm multiplying by the reciprocal: results within an ulp; the
 * library's math functions are out of line and pass structs in memory). */
#if defined(__GNUC__) || defined(__clang__)
#define RKI_HOT_INLINE static inline __attribute__((always_inline))
#else
#define RKI_HOT_INLINE static inline
#endif
RKI_HOT_INLINE rk_quat rki_qmul(rk_quat a, rk_quat b)
{
	return (rk_quat){
		a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
		a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
		a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w,
		a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z,
	};
}
RKI_HOT_INLINE rk_quat rki_qconj(rk_quat q) { return (rk_quat){ -q.x, -q.y, -q.z, q.w }; }
RKI_HOT_INLINE rk_quat rki_qnorm(rk_quat q)
{
	double n = sqrt(q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w);
	if (!(n > 0.0)) return RK_QUAT_IDENTITY;
	double k = 1.0 / n;   /* one division: results within an ulp of rk_quat_normalize's */
	return (rk_quat){ q.x * k, q.y * k, q.z * k, q.w * k };
}
/* rk_quat_normalize inline, its divisions kept (the same bits). */
RKI_HOT_INLINE rk_quat rki_qnorm_exact(rk_quat q)
{
	double n = sqrt(q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w);
	if (!(n > 0.0)) return RK_QUAT_IDENTITY;
	return (rk_quat){ q.x / n, q.y / n, q.z / n, q.w / n };
}
RKI_HOT_INLINE rk_vec3 rki_v3sub(rk_vec3 a, rk_vec3 b) { return (rk_vec3){ a.x - b.x, a.y - b.y, a.z - b.z }; }
RKI_HOT_INLINE rk_vec3 rki_v3add(rk_vec3 a, rk_vec3 b) { return (rk_vec3){ a.x + b.x, a.y + b.y, a.z + b.z }; }
RKI_HOT_INLINE rk_vec3 rki_v3scale(rk_vec3 a, double s) { return (rk_vec3){ a.x * s, a.y * s, a.z * s }; }
RKI_HOT_INLINE double rki_v3dot(rk_vec3 a, rk_vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
RKI_HOT_INLINE rk_vec3 rki_v3cross(rk_vec3 a, rk_vec3 b)
{
	return (rk_vec3){ a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x };
}
RKI_HOT_INLINE double rki_v3len(rk_vec3 a) { return sqrt(rki_v3dot(a, a)); }
RKI_HOT_INLINE rk_vec3 rki_v3norm(rk_vec3 a)
{
	double len = sqrt(rki_v3dot(a, a));
	if (!(len > 0.0)) return (rk_vec3){ 0, 0, 0 };
	double k = 1.0 / len;
	return (rk_vec3){ a.x * k, a.y * k, a.z * k };
}
RKI_HOT_INLINE rk_vec3 rki_qrot(rk_quat q, rk_vec3 v)
{
	rk_vec3 u = { q.x, q.y, q.z };
	rk_vec3 c = rki_v3cross(u, v);
	rk_vec3 t = { c.x * 2.0, c.y * 2.0, c.z * 2.0 };
	rk_vec3 a = { v.x + t.x * q.w, v.y + t.y * q.w, v.z + t.z * q.w };
	rk_vec3 b = rki_v3cross(u, t);
	return (rk_vec3){ a.x + b.x, a.y + b.y, a.z + b.z };
}

/* The quaternion of a rotation matrix r[row][col] (the conversion
 * rk_mat4_decompose ends with, before its normalisation: unit to rounding
 * when r is orthonormal); inline for the retarget sampler's bones. */
static inline rk_quat rki_quat_from_m3(const double r[3][3])
{
	double tr = r[0][0] + r[1][1] + r[2][2];
	rk_quat q;
	if (tr > 0.0) {
		double s = sqrt(tr + 1.0) * 2.0;
		q.w = 0.25 * s;
		q.x = (r[2][1] - r[1][2]) / s;
		q.y = (r[0][2] - r[2][0]) / s;
		q.z = (r[1][0] - r[0][1]) / s;
	} else if (r[0][0] > r[1][1] && r[0][0] > r[2][2]) {
		double s = sqrt(1.0 + r[0][0] - r[1][1] - r[2][2]) * 2.0;
		q.w = (r[2][1] - r[1][2]) / s;
		q.x = 0.25 * s;
		q.y = (r[0][1] + r[1][0]) / s;
		q.z = (r[0][2] + r[2][0]) / s;
	} else if (r[1][1] > r[2][2]) {
		double s = sqrt(1.0 + r[1][1] - r[0][0] - r[2][2]) * 2.0;
		q.w = (r[0][2] - r[2][0]) / s;
		q.x = (r[0][1] + r[1][0]) / s;
		q.y = 0.25 * s;
		q.z = (r[1][2] + r[2][1]) / s;
	} else {
		double s = sqrt(1.0 + r[2][2] - r[0][0] - r[1][1]) * 2.0;
		q.w = (r[1][0] - r[0][1]) / s;
		q.x = (r[0][2] + r[2][0]) / s;
		q.y = (r[1][2] + r[2][1]) / s;
		q.z = 0.25 * s;
	}
	return q;
}

/* Percent-decodes s[0..len) into dst (capacity >= len); escaped (NULL or
 * capacity >= len) gets 1 for each output byte that came from a %XX escape.
 * Returns the decoded length or SIZE_MAX on a bad escape; NUL bytes are
 * refused when !allow_nul. */
size_t rki_percent_decode(unsigned char *dst, unsigned char *escaped, const char *s, size_t len, bool allow_nul);

/* First occurrence of needle in hay (like GNU memmem), NULL if absent. */
const void *rki_memmem(const void *hay, size_t hay_len, const void *needle, size_t needle_len);

/* Longest text rki_strtod_dot() converts. */
#define RKI_STRTOD_MAX 200u
/* strtod() of the len bytes at s (not NUL-terminated), reading '.' as the
 * decimal point whatever the C locale says (a bounded copy with the
 * locale's point in its place). False when len is 0 or over RKI_STRTOD_MAX
 * or when strtod does not consume all of it. Text readers validate the
 * syntax they accept first (strtod also takes "inf", hex, ...). */
bool rki_strtod_dot(const unsigned char *s, size_t len, double *out);

/* ---- files (file_io.c) ------------------------------------------------------ */

/* "a FIFO", "a character device", "a folder" ... for a struct stat st_mode. */
const char *rki_file_kind(unsigned mode);

/* Opens `path` for reading only when it is a regular file: stat() first (a
 * FIFO or device is never opened), then open(O_NONBLOCK) and fstat() again.
 * Returns the descriptor with *size = its length, or -1: errno set, and
 * *kind = rki_file_kind() when the path exists but is not a regular file. */
int rki_open_regular(const char *path, uint64_t *size, const char **kind);
/* Reads exactly `size` bytes (retrying short reads); false on error or EOF first. */
bool rki_read_fd(int fd, void *dst, size_t size, size_t *got);

/* Reads exactly `size` bytes at `offset` (pread, retrying short reads);
 * false on error or EOF first. *got (may be NULL) = bytes read. */
bool rki_pread_full(int fd, uint64_t offset, void *dst, size_t size, size_t *got);

/* rki_open_regular() for an input: the errors of rki_read_file (RK_ERROR_IO
 * naming what the path is, RK_ERROR_LIMIT over max_size, 0 = unlimited),
 * located at `path`. Returns the descriptor (close it) or -1. */
int rki_open_input(const char *path, size_t max_size, uint64_t *size, rk_error *err);
/* All `fsize` bytes of the open input fd, as rki_read_file returns them. */
void *rki_read_input(rki_alloc *alloc, int fd, uint64_t fsize, const char *path, rk_error *err);

/* An input read in pieces at byte offsets instead of held whole (rk_load_file
 * of a GLB file: src/load/load.c). read() fills dst with exactly len bytes
 * at offset, false on an I/O error or a short read (the file shrank). */
typedef struct rki_stream {
	uint64_t size;
	void *ctx;
	bool (*read)(void *ctx, uint64_t offset, void *dst, size_t len);
} rki_stream;

/* Reads a whole regular file into memory from `alloc` (free with
 * rki_free(alloc, p, *size + 1)). The buffer has one extra NUL byte after the
 * data. max_size 0 = unlimited. FIFOs, devices and folders are RK_ERROR_IO
 * naming what they are, without blocking or reading them. */
void *rki_read_file(rki_alloc *alloc, const char *path, size_t max_size, size_t *size, rk_error *err);

/* Writes `size` bytes to `path` atomically (see file_io.c: O_TMPFILE +
 * linkat, else a short-named temporary file + rename). On failure nothing is
 * left behind and err is RK_ERROR_OUTPUT. A symbolic link, FIFO, device or
 * socket at `path` is refused unless `force` (then it is replaced, never
 * followed or written into); a folder always. */
bool rki_write_file(const char *path, const void *data, size_t size, bool force, rk_error *err);
/* rki_write_file without force. */
bool rki_write_file_atomic(const char *path, const void *data, size_t size, rk_error *err);

#endif
