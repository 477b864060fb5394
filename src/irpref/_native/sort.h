/* Sorting strings in byte order, shared by irpref._native.strings (sort_strings)
 * and irpref._native.scan (the query ids of a qrels file).
 */
#ifndef IRPREF_SORT_H
#define IRPREF_SORT_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The allocator of the sort's scratch space (a source may name its own). */
#ifndef SORT_ALLOC
#define SORT_ALLOC malloc
#define SORT_FREE  free
#endif

/* Strings in byte order (memcmp, then length), by index among equals.
 *
 * Most-significant-digit radix order with 8-byte digits: the strings are
 * sorted by bytes [d, d + 8) read as one big-endian integer (zero-padded),
 * then every group of equal digits by the next 8 bytes, and so on. Zero
 * padding orders a string before its extensions only when no string holds
 * a NUL byte; with a NUL anywhere a plain memcmp sort is used instead.
 */

typedef struct {
    uint64_t word; /* the current digit */
    const unsigned char *ptr;
    int64_t len;
    int64_t index;
} Str;

static int compare_word(const void *a, const void *b) {
    const Str *x = (const Str *)a, *y = (const Str *)b;
    if (x->word != y->word)
        return x->word < y->word ? -1 : 1;
    return x->index < y->index ? -1 : (x->index > y->index);
}

static int compare_str(const void *a, const void *b) {
    const Str *x = (const Str *)a, *y = (const Str *)b;
    int64_t n = x->len < y->len ? x->len : y->len;
    int c = memcmp(x->ptr, y->ptr, (size_t)n);
    if (c)
        return c;
    if (x->len != y->len)
        return x->len < y->len ? -1 : 1;
    return x->index < y->index ? -1 : (x->index > y->index);
}

/* stable LSD radix sort of items by word, 16 bits a pass (large groups) */
static int radix_by_word(Str *items, int64_t n) {
    Str *tmp = (Str *)SORT_ALLOC((size_t)n * sizeof(Str));
    size_t *count = (size_t *)SORT_ALLOC(65536 * sizeof(size_t));
    if (!tmp || !count) {
        SORT_FREE(tmp);
        SORT_FREE(count);
        return -1;
    }
    Str *src = items, *dst = tmp;
    for (int shift = 0; shift < 64; shift += 16) {
        memset(count, 0, 65536 * sizeof(size_t));
        for (int64_t i = 0; i < n; i++)
            count[(src[i].word >> shift) & 0xffff]++;
        if (count[(src[0].word >> shift) & 0xffff] == (size_t)n)
            continue; /* one digit value: this pass would not move anything */
        size_t total = 0;
        for (int v = 0; v < 65536; v++) {
            size_t c = count[v];
            count[v] = total;
            total += c;
        }
        for (int64_t i = 0; i < n; i++)
            dst[count[(src[i].word >> shift) & 0xffff]++] = src[i];
        Str *swap = src;
        src = dst;
        dst = swap;
    }
    if (src != items)
        memcpy(items, src, (size_t)n * sizeof(Str));
    SORT_FREE(tmp);
    SORT_FREE(count);
    return 0;
}

static inline uint64_t digit_at(const Str *s, int64_t d) {
    uint64_t w = 0;
    for (int64_t j = 0; j < 8; j++) {
        int64_t p = d + j;
        w = (w << 8) | (p < s->len ? s->ptr[p] : 0);
    }
    return w;
}

static void sort_digits(Str *items, int64_t n, int64_t d) {
    while (n > 1) {
        int ended = 1;
        for (int64_t i = 0; i < n; i++) {
            items[i].word = digit_at(&items[i], d);
            if (items[i].len > d + 8)
                ended = 0;
        }
        /* items are in index order within the group, so a stable sort by
           word alone gives (word, index) order, as compare_word does */
        if (n < 4096 || radix_by_word(items, n) < 0)
            qsort(items, (size_t)n, sizeof(Str), compare_word);
        if (ended) /* equal digits here mean equal strings: index order */
            return;
        /* recurse into every group of equal digits but the last, loop on it */
        int64_t start = 0;
        for (int64_t i = 1; i < n; i++) {
            if (items[i].word != items[start].word) {
                if (i - start > 1)
                    sort_digits(items + start, i - start, d + 8);
                start = i;
            }
        }
        items += start;
        n -= start;
        d += 8;
    }
}

/* items[0:n) (ptr, len, index set) in byte order; has_nul: some string
 * holds a NUL byte (then a plain memcmp sort). */
static void sort_strs(Str *items, int64_t n, int has_nul) {
    if (has_nul)
        qsort(items, (size_t)n, sizeof(Str), compare_str);
    else
        sort_digits(items, n, 0);
}

#endif
