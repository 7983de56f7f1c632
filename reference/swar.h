/* swar.h — eight bytes at a time in one 64-bit word ("SIMD within a
 * register"), for the byte scans of the syntax gate and the JSONL decoder:
 * the common run of plain string bytes is found a word at a time, and only a
 * word that holds a byte of interest goes back to the byte-by-byte code.
 * Private to libgauntlet and the runner. */
#ifndef GT_SWAR_H
#define GT_SWAR_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#define GT_SWAR_ONES 0x0101010101010101ull
#define GT_SWAR_HIGHS 0x8080808080808080ull

/* The 8 bytes at p, in memory order (no alignment needed). */
static inline uint64_t gt_swar_load(const unsigned char *p)
{
    uint64_t word;
    memcpy(&word, p, sizeof word);
    return word;
}

/* Nonzero exactly when some byte of `word` is below `n` (n <= 128). */
static inline uint64_t gt_swar_has_less(uint64_t word, unsigned n)
{
    return (word - GT_SWAR_ONES * n) & ~word & GT_SWAR_HIGHS;
}

/* Nonzero exactly when some byte of `word` equals `byte`. */
static inline uint64_t gt_swar_has_byte(uint64_t word, unsigned char byte)
{
    return gt_swar_has_less(word ^ (GT_SWAR_ONES * byte), 1);
}

/* Nonzero when some byte of `word` ends a plain run inside a JSON string:
 * '"', '\\' or a control character (< 0x20); bytes >= 0x80 are plain here.
 * The first flagged byte (gt_swar_first) is always a true stop: the tricks
 * above can only flag a byte falsely after a true one. */
static inline uint64_t gt_swar_string_stops(uint64_t word)
{
    return gt_swar_has_byte(word, '"') | gt_swar_has_byte(word, '\\') | gt_swar_has_less(word, 0x20);
}

/* Index (0..7, in memory order) of the first flagged byte of a nonzero mask. */
static inline unsigned gt_swar_first(uint64_t mask)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    return (unsigned)__builtin_clzll(mask) / 8;
#else
    return (unsigned)__builtin_ctzll(mask) / 8;
#endif
}

/* Are the `n` bytes at a and b equal? For the short names of JSON members:
 * a few overlapping word compares instead of a call to memcmp. */
static inline bool gt_swar_same(const char *a, const char *b, size_t n)
{
    const unsigned char *x = (const unsigned char *)a, *y = (const unsigned char *)b;
    if (n >= 8) {
        for (size_t i = 0; i + 8 < n; i += 8)
            if (gt_swar_load(x + i) != gt_swar_load(y + i))
                return false;
        return gt_swar_load(x + n - 8) == gt_swar_load(y + n - 8);
    }
    if (n >= 4) {
        uint32_t x0, y0, x1, y1;
        memcpy(&x0, x, 4), memcpy(&y0, y, 4), memcpy(&x1, x + n - 4, 4), memcpy(&y1, y + n - 4, 4);
        return x0 == y0 && x1 == y1;
    }
    for (size_t i = 0; i < n; i++)
        if (x[i] != y[i])
            return false;
    return true;
}

/* memcpy for the short strings of JSON values: overlapping word moves up to
 * 16 bytes, a call to memcpy beyond. */
static inline void gt_swar_copy(void *dst, const void *src, size_t n)
{
    unsigned char *d = dst;
    const unsigned char *s = src;
    if (n > 16)
        memcpy(d, s, n);
    else if (n >= 8) {
        uint64_t head = gt_swar_load(s), tail = gt_swar_load(s + n - 8);
        memcpy(d, &head, 8), memcpy(d + n - 8, &tail, 8);
    } else if (n >= 4) {
        uint32_t head, tail;
        memcpy(&head, s, 4), memcpy(&tail, s + n - 4, 4);
        memcpy(d, &head, 4), memcpy(d + n - 4, &tail, 4);
    } else
        for (size_t i = 0; i < n; i++)
            d[i] = s[i];
}

#endif
