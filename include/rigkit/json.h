/*
 * rigkit/json.h - a streaming JSON writer into a growable memory buffer.
 *
 * OVERVIEW
 *   rk_json_writer builds one JSON document in memory, value by value:
 *
 *     rk_json_writer w;
 *     rk_json_writer_init(&w, RK_JSON_PRETTY);
 *     rk_json_object_begin(&w, NULL);          // top level: no key
 *     rk_json_string(&w, "name", "Hips");
 *     rk_json_vec3(&w, "translation", t);
 *     rk_json_array_begin(&w, "children");
 *     rk_json_int(&w, NULL, 3);                // inside arrays: no key
 *     rk_json_array_end(&w);
 *     rk_json_object_end(&w);
 *     size_t n;
 *     char *text = rk_json_writer_finish(&w, &n);   // NULL on any error
 *     ...
 *     rk_json_free_text(NULL, text, n);
 *
 *   Every value call takes a `key`: a member name inside an object, NULL
 *   inside an array and at the top level. The writer inserts commas, colons
 *   and (in pretty mode) newlines and indentation; the caller never writes
 *   punctuation. A document holds exactly one top-level value.
 *
 * OUTPUT FORMATS
 *   Compact (flags 0): no whitespace at all: {"a":1,"b":[1,2],"c":{}}
 *   Pretty (RK_JSON_PRETTY): every member / element on its own line,
 *   indented two spaces per level, "key": value with one space, empty
 *   containers as {} and [], and a final "\n" added by finish:
 *       {
 *         "a": 1,
 *         "b": [
 *           1,
 *           2
 *         ],
 *         "c": {}
 *       }
 *   The fixed-size helpers (rk_json_numbers, rk_json_vec3, rk_json_quat,
 *   rk_json_mat4) always write their array on one line: [1, 2, 3] in pretty
 *   mode, [1,2,3] in compact mode.
 *
 *   Numbers (rk_json_number and the helpers):
 *     default               printf "%.17g" (exact, but 0.1 prints as
 *                           0.10000000000000001); NaN and +-inf -> null.
 *     RK_JSON_SHORTEST      0 and -0 -> "0"; integral values below 1e15 in
 *                           magnitude -> "%.0f" (no exponent); otherwise the
 *                           shortest "%.Ng", N = 1..17, that reads back as
 *                           exactly the same double.
 *     RK_JSON_NONFINITE_ZERO  NaN and +-inf -> 0 instead of null.
 *   The decimal separator is always '.', whatever LC_NUMERIC says.
 *   Integers (rk_json_int, rk_json_uint) are printed in full, no exponent.
 *
 *   Strings (values and keys) are escaped per RFC 8259: " and \ as \" and
 *   \\; \n, \r, \t as short escapes; every other byte below 0x20 as \u00XX
 *   (lowercase hex). RK_JSON_ESCAPE_CONTROL_HEX writes \n, \r, \t as \u000a,
 *   \u000d, \u0009 too. '/' and DEL (0x7f) are not escaped. Bytes that are
 *   not part of a well-formed UTF-8 sequence (stray continuation bytes,
 *   truncated sequences, overlong forms, surrogates, > U+10FFFF) are each
 *   replaced by U+FFFD (EF BF BD), so the output is always valid UTF-8 JSON.
 *   A NULL string value is written as "".
 *
 * MEMORY AND OWNERSHIP
 *   The writer struct is caller-owned (stack or heap). Text goes to a heap
 *   buffer obtained from `allocator` (zeroed = malloc/realloc/free), grown
 *   geometrically with overflow-checked sizes. rk_json_writer_finish hands
 *   the buffer to the caller; rk_json_writer_free releases it otherwise.
 *
 * ERRORS
 *   No call returns an error. The first failure is recorded in the writer
 *   and is sticky: every later call does nothing, rk_json_writer_ok() is
 *   false and rk_json_writer_finish() returns NULL. Failures:
 *     RK_ERROR_OUT_OF_MEMORY    the allocator failed
 *     RK_ERROR_LIMIT            more than RK_JSON_MAX_DEPTH open containers,
 *                               or the text would exceed SIZE_MAX bytes
 *     RK_ERROR_INVALID_ARGUMENT misuse: a key missing inside an object or
 *                               given where none belongs, an end call that
 *                               does not match the open container, a second
 *                               top-level value, a call other than
 *                               rk_json_string_append/_end while a streamed
 *                               string is open, NULL data with a length
 *   No call crashes on any of these, and nothing is ever printed.
 *
 * THREAD SAFETY
 *   A writer is single-threaded: one thread at a time may call functions on
 *   a given writer. Different writers are independent; the module has no
 *   global state (not even the locale is changed).
 */
#ifndef RIGKIT_JSON_H
#define RIGKIT_JSON_H

#include "rigkit/base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Most containers that may be open at once; one more is RK_ERROR_LIMIT. */
#define RK_JSON_MAX_DEPTH 64

/* rk_json_writer.flags */
enum {
	RK_JSON_PRETTY = 1u << 0,             /* newlines + 2-space indent, "k": v, final "\n" */
	RK_JSON_SHORTEST = 1u << 1,           /* shortest round-trip numbers (see OVERVIEW) */
	RK_JSON_NONFINITE_ZERO = 1u << 2,     /* NaN / inf -> 0 instead of null */
	RK_JSON_ESCAPE_CONTROL_HEX = 1u << 3  /* \n \r \t as \u000a \u000d \u0009 */
};

/*
 * The writer. Zero-initialising it (or rk_json_writer_init) gives a compact
 * writer using malloc. `flags` and `allocator` may be set, e.g. with a
 * designated initialiser, before the first write and must not change after
 * it. All other fields are private state: read them only through the
 * functions below.
 */
typedef struct rk_json_writer {
	unsigned flags;               /* RK_JSON_* bits; 0 = compact, "%.17g", null for NaN */
	rk_allocator allocator;       /* zeroed = malloc/realloc/free */

	/* private */
	char *data;                   /* the text so far, NUL-terminated when non-NULL */
	size_t length;                /* bytes in data, excluding the NUL */
	size_t capacity;              /* bytes allocated for data */
	rk_error_code error;          /* first failure, RK_OK while fine */
	int depth;                    /* open containers */
	bool in_string;               /* between rk_json_string_begin and _end */
	bool done;                    /* the top-level value is complete */
	unsigned char is_object[RK_JSON_MAX_DEPTH + 1]; /* per level (0 = top) */
	unsigned char has_items[RK_JSON_MAX_DEPTH + 1];
} rk_json_writer;

/* Zeroes *w and sets its flags (allocator: malloc). Never fails, never
 * allocates. Calling it on a writer that holds text leaks that text: call
 * rk_json_writer_free first. */
void rk_json_writer_init(rk_json_writer *w, unsigned flags);

/* True while no error has been recorded. */
bool rk_json_writer_ok(const rk_json_writer *w);

/* The first error recorded (RK_OK while none); see ERRORS above. */
rk_error_code rk_json_writer_error(const rk_json_writer *w);

/* Borrowed view of the text written so far (NUL-terminated; *length, if
 * length is non-NULL, gets its byte count). Valid until the next call on w.
 * Returns NULL (and *length = 0) when nothing was written yet or an error
 * was recorded. Useful to splice one writer's output into another with
 * rk_json_raw. */
const char *rk_json_writer_text(const rk_json_writer *w, size_t *length);

/* Ends the document and transfers the text to the caller: NUL-terminated,
 * *length (if non-NULL) = bytes excluding the NUL. Pretty mode appends the
 * final "\n" (included in *length). Free it with rk_json_free_text using
 * the writer's allocator. Returns NULL (and *length = 0) when an error was
 * recorded, a container is still open, a streamed string is open, or no
 * value was written. Either way the writer gives up its buffer. After a
 * success it is left empty (same flags and allocator), ready for another
 * document; after a failure rk_json_writer_error() still tells why, until
 * rk_json_writer_free clears it. rk_json_writer_free afterwards is always
 * harmless. */
char *rk_json_writer_finish(rk_json_writer *w, size_t *length);

/* Frees the writer's buffer (if any) and clears its state and error, keeping
 * flags and allocator. Safe on a zeroed, finished or failed writer. */
void rk_json_writer_free(rk_json_writer *w);

/* Frees text returned by rk_json_writer_finish. `allocator` is the writer's
 * allocator (NULL or zeroed = free()); `length` is the length finish gave
 * (the block is length + 1 bytes). text NULL is a no-op. */
void rk_json_free_text(const rk_allocator *allocator, char *text, size_t length);

/* ---- containers ----------------------------------------------------------
 * begin opens a container as the value of `key`; end closes the innermost
 * one, which must be of the same kind. */
void rk_json_object_begin(rk_json_writer *w, const char *key);
void rk_json_object_end(rk_json_writer *w);
void rk_json_array_begin(rk_json_writer *w, const char *key);
void rk_json_array_end(rk_json_writer *w);

/* ---- scalar values ------------------------------------------------------ */

/* NUL-terminated string (NULL writes ""), escaped as in OVERVIEW. */
void rk_json_string(rk_json_writer *w, const char *key, const char *value);
/* `length` bytes of value; embedded NULs are written as \u0000. value may be
 * NULL only when length is 0. */
void rk_json_string_n(rk_json_writer *w, const char *key, const char *value, size_t length);
/* A string value written in pieces (e.g. base64 of a large buffer without a
 * second copy): begin writes the key and the opening quote, each append
 * escapes `length` bytes, end writes the closing quote. UTF-8 is checked per
 * append: a sequence split across two appends becomes U+FFFD. */
void rk_json_string_begin(rk_json_writer *w, const char *key);
void rk_json_string_append(rk_json_writer *w, const char *data, size_t length);
void rk_json_string_end(rk_json_writer *w);

/* A double, formatted per the writer's flags (see OVERVIEW). */
void rk_json_number(rk_json_writer *w, const char *key, double value);
void rk_json_int(rk_json_writer *w, const char *key, long long value);
void rk_json_uint(rk_json_writer *w, const char *key, uint64_t value);
void rk_json_bool(rk_json_writer *w, const char *key, bool value);
void rk_json_null(rk_json_writer *w, const char *key);

/* `length` bytes of pre-formatted JSON, copied verbatim as one value (the
 * writer adds the separator and key but does not check the text; in pretty
 * mode it is not re-indented). */
void rk_json_raw(rk_json_writer *w, const char *key, const char *json, size_t length);

/* ---- number arrays on one line ------------------------------------------ */

/* `count` doubles as one array (formatted like rk_json_number). values may
 * be NULL only when count is 0. */
void rk_json_numbers(rk_json_writer *w, const char *key, const double *values, size_t count);
void rk_json_vec3(rk_json_writer *w, const char *key, rk_vec3 v);    /* [x, y, z] */
void rk_json_quat(rk_json_writer *w, const char *key, rk_quat q);    /* [x, y, z, w] */
void rk_json_mat4(rk_json_writer *w, const char *key, rk_mat4 m);    /* m.m[0..15], column-major */

#ifdef __cplusplus
}
#endif

#endif /* RIGKIT_JSON_H */
