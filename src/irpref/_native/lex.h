/* Shared by the C passes of irpref._native.scan (run files, qrels files): splitting
 * lines into tokens, UTF-8 checks, the two-lane id hash, and scores.
 *
 * Every function is static: each source file of the extension gets its own
 * copy, inlined where it is hot.
 */
#ifndef IRPREF_LEX_H
#define IRPREF_LEX_H

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hash.h"

#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* Equal byte strings (inline: most ids are short, a call to memcmp costs more). */
static inline int same_bytes(const unsigned char *a, int64_t na, const unsigned char *b,
                             int64_t nb) {
    if (na != nb)
        return 0;
    for (; na >= 8; a += 8, b += 8, na -= 8)
        if (load64(a) != load64(b))
            return 0;
    while (na-- > 0)
        if (*a++ != *b++)
            return 0;
    return 1;
}

/* Hash of an id (query or document), and whether it is ASCII (when `ascii`
 * is not NULL), in one pass: two lanes
 * of 8 bytes (independent multiply chains, so long ids such as URLs hash at
 * twice the speed of one chain); the high bits of every byte are or-ed. */
static inline uint64_t hash_id(const unsigned char *p, int64_t n, int *ascii) {
    uint64_t a = 0x9e3779b97f4a7c15ULL ^ (uint64_t)n, b = 0xc2b2ae3d27d4eb4fULL, seen = 0;
    for (; n >= 16; p += 16, n -= 16) {
        uint64_t u = load64(p), v = load64(p + 8);
        seen |= u | v;
        a = (a ^ u) * 0x100000001b3ULL;
        b = (b ^ v) * 0x9fb21c651e98df25ULL;
        a ^= a >> 29;
        b ^= b >> 31;
    }
    if (n >= 8) {
        uint64_t u = load64(p);
        seen |= u;
        a = (a ^ u) * 0x100000001b3ULL;
        a ^= a >> 29;
        p += 8;
        n -= 8;
    }
    if (n > 0) {
        uint64_t w = 0;
        memcpy(&w, p, (size_t)n);
        seen |= w;
        b = (b ^ w) * 0x9fb21c651e98df25ULL;
        b ^= b >> 31;
    }
    if (ascii)
        *ascii = (seen & 0x8080808080808080ULL) == 0;
    return mix64(a ^ mix64(b));
}

/* Byte order of two ids, as strcmp (a prefix sorts first): <0, 0, >0. */
static inline int compare_bytes(const unsigned char *a, int64_t na, const unsigned char *b,
                                int64_t nb) {
    int64_t n = na < nb ? na : nb, i = 0;
    for (; i + 8 <= n; i += 8) { /* 8 bytes at a time, compared big-endian */
        uint64_t u = load64(a + i), v = load64(b + i);
        if (u != v) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
            u = __builtin_bswap64(u);
            v = __builtin_bswap64(v);
#endif
            return u < v ? -1 : 1;
        }
    }
    for (; i < n; i++)
        if (a[i] != b[i])
            return a[i] < b[i] ? -1 : 1;
    return (na > nb) - (na < nb);
}

/* ---- lexing --------------------------------------------------------------- */

static inline int is_blank(unsigned char c) {
    return c == ' ' || c == '\t' || c == '\r';
}

/* Tokens of a line: at most MAX_TOKENS are recorded, all are counted. */
#define MAX_TOKENS 7
typedef struct {
    const unsigned char *start[MAX_TOKENS];
    int64_t len[MAX_TOKENS];
    int n;
    const unsigned char *open; /* start of a token still being read, or NULL */
} Tokens;

static inline void token_starts(Tokens *t, const unsigned char *p) {
    t->open = p;
}

static inline void token_ends(Tokens *t, const unsigned char *p) {
    if (t->n < MAX_TOKENS) {
        t->start[t->n] = t->open;
        t->len[t->n] = p - t->open;
    }
    t->n++;
    t->open = NULL;
}

/* The file as 64-byte blocks (from its start), each classified once: bit i
 * of `sep` is set when byte i is a blank or a newline, of `nl` when it is a
 * newline. Bytes past the end count as newlines (the last line ends there). */
typedef struct {
    const unsigned char *base, *end;
    int64_t at; /* offset of the classified block, or -64: none yet */
    uint64_t sep, nl;
} Blocks;

static void classify(Blocks *k, int64_t at) {
    const unsigned char *block = k->base + at;
    k->at = at;
    uint64_t sep = 0, nl = 0;
#ifdef __SSE2__
    if (k->end - block >= 64) {
        const __m128i space = _mm_set1_epi8(' '), tab = _mm_set1_epi8('\t'),
                      cr = _mm_set1_epi8('\r'), newline = _mm_set1_epi8('\n');
        for (int i = 0; i < 4; i++) {
            __m128i v = _mm_loadu_si128((const __m128i *)(block + 16 * i));
            __m128i n = _mm_cmpeq_epi8(v, newline);
            __m128i b = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, space), _mm_cmpeq_epi8(v, tab)),
                                     _mm_or_si128(_mm_cmpeq_epi8(v, cr), n));
            sep |= (uint64_t)(unsigned)_mm_movemask_epi8(b) << (16 * i);
            nl |= (uint64_t)(unsigned)_mm_movemask_epi8(n) << (16 * i);
        }
        k->sep = sep;
        k->nl = nl;
        return;
    }
#endif
    for (int i = 0; i < 64; i++) {
        const unsigned char *c = block + i;
        if (c >= k->end || *c == '\n') {
            sep |= 1ULL << i;
            nl |= 1ULL << i;
        } else if (is_blank(*c))
            sep |= 1ULL << i;
    }
    k->sep = sep;
    k->nl = nl;
}

/* Split the line starting at p into tokens separated by blanks; return the
 * byte after its newline (past the end for the last line). The bit masks
 * of the blocks give every token's start and end at once. */
static const unsigned char *split_line(Blocks *k, const unsigned char *p, Tokens *t) {
    t->n = 0;
    t->open = NULL;
    for (;;) {
        int64_t at = (p - k->base) & ~(int64_t)63;
        if (at != k->at)
            classify(k, at);
        int off = (int)(p - k->base - at);
        uint64_t sep = k->sep >> off, nl = k->nl >> off;
        uint64_t stop = nl & -nl; /* the first newline's bit */
        uint64_t upto = stop ? (stop << 1) - 1 : ~0ULL >> off;
        uint64_t inside = ~sep & upto;                       /* token bytes */
        uint64_t before = (inside << 1) | (t->open != NULL); /* the previous byte is one */
        uint64_t events = (inside ^ before) & upto;
        while (events) {
            int b = __builtin_ctzll(events);
            if (t->open)
                token_ends(t, p + b);
            else
                token_starts(t, p + b);
            events &= events - 1;
        }
        if (stop)
            return p + __builtin_ctzll(stop) + 1;
        p = k->base + at + 64;
    }
}

static inline int is_ascii(const unsigned char *p, int64_t n) {
    uint64_t acc = 0;
    while (n >= 8) {
        acc |= load64(p);
        p += 8;
        n -= 8;
    }
    while (n-- > 0)
        acc |= *p++;
    return (acc & 0x8080808080808080ULL) == 0;
}

/* Well-formed UTF-8 (no overlong forms, surrogates or code points > U+10FFFF). */
static int valid_utf8(const unsigned char *p, int64_t n) {
    if (is_ascii(p, n))
        return 1;
    const unsigned char *end = p + n;
    while (p < end) {
        unsigned char c = *p;
        if (c < 0x80) {
            p++;
            continue;
        }
        int more;
        unsigned char lo = 0x80, hi = 0xBF; /* range of the second byte */
        if (c >= 0xC2 && c <= 0xDF)
            more = 1;
        else if (c >= 0xE0 && c <= 0xEF) {
            more = 2;
            if (c == 0xE0)
                lo = 0xA0;
            else if (c == 0xED)
                hi = 0x9F;
        } else if (c >= 0xF0 && c <= 0xF4) {
            more = 3;
            if (c == 0xF0)
                lo = 0x90;
            else if (c == 0xF4)
                hi = 0x8F;
        } else
            return 0;
        if (end - p <= more || p[1] < lo || p[1] > hi)
            return 0;
        for (int k = 2; k <= more; k++)
            if (p[k] < 0x80 || p[k] > 0xBF)
                return 0;
        p += more + 1;
    }
    return 1;
}

/* ---- scores --------------------------------------------------------------- */

static const double POW10[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                 1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

static inline int lower_is(const unsigned char *p, const char *word, int64_t n) {
    for (int64_t i = 0; i < n; i++)
        if ((p[i] | 0x20) != (unsigned char)word[i])
            return 0;
    return 1;
}

/* Parse a score: [+-] (digits [. digits] | . digits) [(e|E) [+-] digits], or
 * [+-] inf / infinity in any case (what the Python reader accepts; NaN is
 * not). The value is the correctly rounded double, as strtod gives: exact
 * arithmetic when the digits fit 2**53 and the power of ten is exact
 * (Clinger's fast path), strtod otherwise. Returns 0, or -1 if malformed. */
static inline int parse_score(const unsigned char *s, int64_t n, double *out) {
    const unsigned char *p = s, *end = s + n;
    int neg = 0;
    if (p < end && (*p == '+' || *p == '-'))
        neg = *p++ == '-';
    int64_t rest = end - p;
    if (rest > 0 && (*p | 0x20) == 'i') {
        if ((rest == 3 && lower_is(p, "inf", 3)) || (rest == 8 && lower_is(p, "infinity", 8))) {
            *out = neg ? -INFINITY : INFINITY;
            return 0;
        }
        return -1;
    }
    /* digits before and after the point, as one integer while they are at
       most 19 (< 2**64); longer numbers are left to strtod */
    uint64_t mant = 0;
    const unsigned char *first = p;
    for (; p < end && (unsigned)(*p - '0') < 10; p++)
        mant = mant * 10 + (uint64_t)(*p - '0');
    int64_t digits = p - first, scale = 0;
    if (p < end && *p == '.') {
        const unsigned char *frac = ++p;
        for (; p < end && (unsigned)(*p - '0') < 10; p++)
            mant = mant * 10 + (uint64_t)(*p - '0');
        scale = -(p - frac);
        digits -= scale;
    }
    if (digits == 0)
        return -1;
    int64_t exponent = 0;
    if (p < end && (*p | 0x20) == 'e') {
        p++;
        int eneg = 0;
        if (p < end && (*p == '+' || *p == '-'))
            eneg = *p++ == '-';
        if (p == end || *p < '0' || *p > '9')
            return -1;
        for (; p < end && *p >= '0' && *p <= '9'; p++)
            if (exponent < 100000000)
                exponent = exponent * 10 + (*p - '0');
        if (eneg)
            exponent = -exponent;
    }
    if (p != end)
        return -1;
    int exact = digits <= 19;
    if (exact && mant == 0) {
        *out = neg ? -0.0 : 0.0;
        return 0;
    }
    int64_t e10 = scale + exponent;
    if (exact && mant <= (1ULL << 53) && e10 >= -22 && e10 <= 22) {
        double v = (double)mant;
        v = e10 >= 0 ? v * POW10[e10] : v / POW10[-e10];
        *out = neg ? -v : v;
        return 0;
    }
    char local[128];
    char *text = n < (int64_t)sizeof(local) ? local : malloc((size_t)n + 1);
    if (!text)
        return -1;
    memcpy(text, s, (size_t)n);
    text[n] = '\0';
    char *stop;
    errno = 0;
    double v = strtod(text, &stop);
    int ok = stop == text + n;
    if (text != local)
        free(text);
    if (!ok)
        return -1;
    *out = v;
    return 0;
}

#endif
