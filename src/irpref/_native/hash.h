/* Shared by the C extensions of irpref: 8-byte loads, a 64-bit mixer and
 * the string hash of irpref._native.strings (irpref._native.scan builds its own two-lane
 * hash from the first two).
 *
 * The hash only has to spread strings well: equal hashes are never trusted,
 * callers compare the strings byte for byte.
 */
#ifndef IRPREF_HASH_H
#define IRPREF_HASH_H

#include <stdint.h>
#include <string.h>

static inline uint64_t load64(const unsigned char *p) {
    uint64_t w;
    memcpy(&w, p, 8);
    return w;
}

static inline uint64_t mix64(uint64_t h) { /* murmur3's finalizer */
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ULL;
    h ^= h >> 33;
    return h;
}

static inline uint64_t hash_bytes(const unsigned char *p, int64_t n) {
    uint64_t h = 0x9e3779b97f4a7c15ULL ^ (uint64_t)n;
    while (n >= 8) {
        h = (h ^ load64(p)) * 0x100000001b3ULL;
        h ^= h >> 29;
        p += 8;
        n -= 8;
    }
    if (n > 0) {
        uint64_t w = 0;
        memcpy(&w, p, (size_t)n);
        h = (h ^ w) * 0x100000001b3ULL;
        h ^= h >> 29;
    }
    return mix64(h);
}

#endif
