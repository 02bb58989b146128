/* src/formats/bvh/bvh_internal.h - the BVH reader's pieces:
 *
 *   bvh_lex.c   words, lines and numbers of the text (no allocation)
 *   bvh_load.c  HIERARCHY, MOTION and the scene (the orchestrator)
 *
 * The text is read as bytes: words are runs of bytes that are not
 * whitespace (space, tab, CR, LF, VT, FF); '{' and '}' are words of their
 * own even when written against another word. Lines end at LF, CR LF or a
 * lone CR; line numbers are 1-based.
 */
#ifndef RIGKIT_BVH_INTERNAL_H
#define RIGKIT_BVH_INTERNAL_H

#include "bvh.h"

typedef struct rki_bvh_lex {
	const unsigned char *d;
	size_t size;
	size_t pos;          /* next byte to read */
	uint64_t line;       /* line of d[pos] */
} rki_bvh_lex;

typedef struct rki_bvh_word {
	const unsigned char *s;
	size_t len;          /* 0 at the end of the input */
	size_t offset;       /* byte offset of s */
	uint64_t line;
} rki_bvh_word;

void rki_bvh_lex_init(rki_bvh_lex *lx, const unsigned char *d, size_t size);
/* The next word (len 0 at the end of the input). */
rki_bvh_word rki_bvh_next(rki_bvh_lex *lx);
/* The next word without consuming it. */
rki_bvh_word rki_bvh_peek(const rki_bvh_lex *lx);
/* The rest of the current line up to a '{' (which is not consumed), with
 * surrounding whitespace trimmed; len 0 when there is nothing. */
rki_bvh_word rki_bvh_rest_of_line(rki_bvh_lex *lx);
/* Case-insensitive comparison of a word with an ASCII keyword. */
bool rki_bvh_is(rki_bvh_word w, const char *keyword);

typedef enum rki_bvh_num { RKI_BVH_NUM_OK, RKI_BVH_NUM_SYNTAX, RKI_BVH_NUM_RANGE } rki_bvh_num;
/* A decimal number: [+-] digits [. digits] [(e|E) [+-] digits], at least one
 * digit before the exponent (".5" and "5." are fine). RANGE when it is not
 * a finite double. The C library's strtod converts it, with the locale's
 * decimal point. */
rki_bvh_num rki_bvh_number(rki_bvh_word w, double *out);
/* A non-negative decimal integer (digits only) that fits in uint64_t. */
bool rki_bvh_count(rki_bvh_word w, uint64_t *out);

#endif
