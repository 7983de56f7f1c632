/* jsonl_literal.c — decode a `validate --jsonl` line (one JSON string
 * literal) to the raw model output it holds. Plain bytes move 16 at a time
 * (SSE2; 8 with SWAR elsewhere), and a 64-byte chunk whose only escapes are
 * \" (JSON inside a JSON string) is decoded from three bit masks without
 * looking at its bytes one by one. Everything unusual is refused, for
 * gt_parse to decide. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "jsonl_literal.h"
#include "reference/swar.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

static int hex4(const char *p)
{
    int v = 0;
    for (int i = 0; i < 4; i++) {
        char c = p[i];
        int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
        if (d < 0)
            return -1;
        v = v * 16 + d;
    }
    return v;
}

static size_t put_utf8(char *w, unsigned long cp)
{
    if (cp < 0x80)
        return w[0] = (char)cp, 1;
    if (cp < 0x800)
        return w[0] = (char)(0xc0 | (cp >> 6)), w[1] = (char)(0x80 | (cp & 0x3f)), 2;
    if (cp < 0x10000)
        return w[0] = (char)(0xe0 | (cp >> 12)), w[1] = (char)(0x80 | ((cp >> 6) & 0x3f)),
               w[2] = (char)(0x80 | (cp & 0x3f)), 3;
    w[0] = (char)(0xf0 | (cp >> 18)), w[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
    w[2] = (char)(0x80 | ((cp >> 6) & 0x3f)), w[3] = (char)(0x80 | (cp & 0x3f));
    return 4;
}

/* Copies the plain bytes at the front of `in` (`n` available) to `out` and
 * returns how many there were: the run ends at the first '"', '\\' or
 * control byte (< 0x20), or at `n`. Sixteen bytes at a time with SSE2 (eight
 * with SWAR elsewhere); it may write up to 15 bytes past the run, so `out`
 * must have room for `n` bytes. */
static inline size_t copy_plain_run(const char *in, size_t n, char *out)
{
    size_t done = 0;
#if defined(__SSE2__)
    const __m128i quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\'), below = _mm_set1_epi8(0x1f);
    for (; done + 16 <= n; done += 16) {
        __m128i block = _mm_loadu_si128((const __m128i *)(const void *)(in + done));
        _mm_storeu_si128((__m128i *)(void *)(out + done), block);
        __m128i stops = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(block, quote), _mm_cmpeq_epi8(block, backslash)),
                                     _mm_cmpeq_epi8(_mm_min_epu8(block, below), block)); /* unsigned byte <= 0x1f */
        unsigned mask = (unsigned)_mm_movemask_epi8(stops);
        if (mask != 0)
            return done + (unsigned)__builtin_ctz(mask);
    }
#endif
    for (; done + 8 <= n; done += 8) {
        uint64_t word = gt_swar_load((const unsigned char *)in + done);
        memcpy(out + done, &word, sizeof word);
        uint64_t stops = gt_swar_string_stops(word);
        if (stops != 0)
            return done + gt_swar_first(stops);
    }
    for (; done < n; done++) {
        unsigned char c = (unsigned char)in[done];
        if (c == '"' || c == '\\' || c < 0x20)
            break;
        out[done] = (char)c;
    }
    return done;
}

#if defined(__SSE2__)
/* `n` bytes from `in` to `out` in 16-byte blocks: reads and writes up to 16
 * bytes more than `n`. */
static inline void copy_blocks(char *out, const char *in, size_t n)
{
    _mm_storeu_si128((__m128i *)(void *)out, _mm_loadu_si128((const __m128i *)(const void *)in));
    for (size_t k = 16; k < n; k += 16)
        _mm_storeu_si128((__m128i *)(void *)(out + k), _mm_loadu_si128((const __m128i *)(const void *)(in + k)));
}

/* The backslashes to drop from the first `avail` (1 to 64) bytes at `in`,
 * when their only escapes are \" (JSON inside a JSON string, the common
 * case); a backslash in the last byte is left for the next chunk. Sets *take
 * to the bytes the chunk consumes. Returns false when the chunk holds
 * anything else (another escape, a raw quote or control byte), which the
 * byte-wise path then takes. Reads 64 bytes at `in`. */
static inline bool quote_chunk_drops(const char *in, size_t avail, uint64_t *drops, size_t *take)
{
    const __m128i quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\'), below = _mm_set1_epi8(0x1f);
    uint64_t backslashes = 0, quotes = 0, controls = 0;
#pragma GCC unroll 4
    for (int k = 0; k < 4; k++) {
        __m128i block = _mm_loadu_si128((const __m128i *)(const void *)(in + 16 * k));
        backslashes |= (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(block, backslash)) << (16 * k);
        quotes |= (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(block, quote)) << (16 * k);
        controls |= (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_min_epu8(block, below), block)) << (16 * k);
    }
    uint64_t inside = avail >= 64 ? ~0ull : (1ull << avail) - 1;
    *take = avail - (size_t)((backslashes & inside) >> (avail - 1)); /* an escape cut by the chunk's end waits */
    if (*take == 0)
        return false;
    uint64_t taken = *take >= 64 ? ~0ull : (1ull << *take) - 1;
    backslashes &= taken, quotes &= taken;
    *drops = backslashes;
    return (controls & taken) == 0 && quotes == backslashes << 1 && (backslashes & (quotes >> 1)) == backslashes;
}

/* The chunk of quote_chunk_drops decoded to `out`, a copy per escape. Returns
 * the bytes written; writes up to 16 bytes past them and reads up to 80 at `in`. */
static inline size_t copy_dropping(const char *in, uint64_t drops, size_t take, char *out)
{
    char *w = out;
    size_t from = 0;
    for (; drops != 0; drops &= drops - 1) {
        size_t to = (size_t)__builtin_ctzll(drops); /* copy [from, to), skip the backslash at `to` */
        copy_blocks(w, in + from, to - from);
        w += to - from, from = to + 1;
    }
    copy_blocks(w, in + from, take - from);
    return (size_t)(w - out) + (take - from);
}

#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#include <pthread.h>
#include <tmmintrin.h>
#define GT_HAVE_SSSE3_PATH 1

/* For each 8-bit mask of bytes to drop, the pshufb indices of the bytes kept
 * and how many are dropped (filled once, by compress_init). */
static uint8_t compress_table[256][8];
static uint8_t compress_dropped[256];
static pthread_once_t compress_once = PTHREAD_ONCE_INIT;
static bool have_ssse3, portable_only;

static void compress_init(void)
{
    for (unsigned mask = 0; mask < 256; mask++) {
        unsigned kept = 0;
        for (unsigned bit = 0; bit < 8; bit++)
            if (!((mask >> bit) & 1))
                compress_table[mask][kept++] = (uint8_t)bit;
        compress_dropped[mask] = (uint8_t)(8 - kept);
        while (kept < 8)
            compress_table[mask][kept++] = 0x80;
    }
    __builtin_cpu_init();
    have_ssse3 = __builtin_cpu_supports("ssse3");
}

/* copy_dropping with one shuffle per 8 bytes, whatever the number of escapes.
 * Writes up to 8 bytes past what it returns and reads up to 64 at `in`. */
__attribute__((target("ssse3"))) static inline size_t compress_dropping(const char *in, uint64_t drops, size_t take, char *out)
{
    char *w = out;
    size_t whole = take & ~(size_t)7; /* groups of 8 the chunk consumes entirely */
#pragma GCC unroll 8
    for (size_t k = 0; k < 64; k += 8) {
        if (k >= whole)
            break;
        unsigned mask = (unsigned)(drops >> k) & 0xff;
        __m128i bytes = _mm_loadl_epi64((const __m128i *)(const void *)(in + k));
        __m128i order = _mm_loadl_epi64((const __m128i *)(const void *)compress_table[mask]);
        _mm_storel_epi64((__m128i *)(void *)w, _mm_shuffle_epi8(bytes, order));
        w += 8 - compress_dropped[mask];
    }
    if (whole < take) { /* the last, partial group */
        unsigned mask = (unsigned)(drops >> whole) & 0xff;
        __m128i bytes = _mm_loadl_epi64((const __m128i *)(const void *)(in + whole));
        __m128i order = _mm_loadl_epi64((const __m128i *)(const void *)compress_table[mask]);
        _mm_storel_epi64((__m128i *)(void *)w, _mm_shuffle_epi8(bytes, order));
        w += (take - whole) - compress_dropped[mask];
    }
    return (size_t)(w - out);
}
#endif

/* Decodes chunks from line[*i] on (up to `end`) while each one's only escapes
 * are \" (quote_chunk_drops), writing at `w`; returns where writing stopped
 * and leaves *i where the byte-wise path must take over (`end` when done).
 * A chunk reads 80 bytes: near the line's end it reads a padded copy.
 * `shuffle`: compact with SSSE3 (only from chunks_ssse3). */
static inline __attribute__((always_inline)) char *chunk_loop(const char *line, size_t *i, size_t end, char *w,
                                                              bool shuffle)
{
    while (*i < end) {
        char padded[80];
        const char *chunk = line + *i;
        size_t left = end - *i, take;
        if (left < sizeof padded) {
            memcpy(padded, chunk, left);
            memset(padded + left, 'a', sizeof padded - left);
            chunk = padded;
        }
        uint64_t drops;
        if (!quote_chunk_drops(chunk, left < 64 ? left : 64, &drops, &take))
            break;
#if defined(GT_HAVE_SSSE3_PATH)
        w += shuffle ? compress_dropping(chunk, drops, take, w) : copy_dropping(chunk, drops, take, w);
#else
        (void)shuffle;
        w += copy_dropping(chunk, drops, take, w);
#endif
        *i += take;
    }
    return w;
}

static char *chunks_portable(const char *line, size_t *i, size_t end, char *w)
{
    return chunk_loop(line, i, end, w, false);
}

#if defined(GT_HAVE_SSSE3_PATH)
__attribute__((target("ssse3"))) static char *chunks_ssse3(const char *line, size_t *i, size_t end, char *w)
{
    return chunk_loop(line, i, end, w, true);
}
#endif
#endif

void gt_jsonl_use_portable(bool portable)
{
#if defined(GT_HAVE_SSSE3_PATH)
    portable_only = portable;
#else
    (void)portable;
#endif
}

size_t gt_jsonl_decode_literal(const char *line, size_t len, gt_jsonl_buffer *buf)
{
    if (len < 2 || line[0] != '"' || line[len - 1] != '"')
        return (size_t)-1;
    if (buf->cap < len + 64) { /* room for the block copies' over-writes */
        char *grown = realloc(buf->data, len + 64);
        if (grown == NULL)
            return (size_t)-1;
        buf->data = grown, buf->cap = len + 64;
    }
    char *w = buf->data;
    size_t end = len - 1; /* the closing quote */
#if defined(GT_HAVE_SSSE3_PATH)
    pthread_once(&compress_once, compress_init);
#endif
#if defined(__SSE2__)
    size_t bytewise_until = 0; /* after a chunk the fast path refused, its bytes go the slow way */
#endif
    for (size_t i = 1; i < end; i++) {
#if defined(__SSE2__)
        if (i >= bytewise_until) {
#if defined(GT_HAVE_SSSE3_PATH)
            w = have_ssse3 && !portable_only ? chunks_ssse3(line, &i, end, w) : chunks_portable(line, &i, end, w);
#else
            w = chunks_portable(line, &i, end, w);
#endif
            if (i == end)
                break;
            bytewise_until = i + 64; /* a chunk refused: its bytes go the byte-wise way */
        }
#endif
        /* w trails i by at least one byte (the opening quote), so the run's
         * over-write stays inside the buffer */
        size_t run = copy_plain_run(line + i, end - i, w);
        w += run, i += run;
        if (i == end)
            break;
        if (line[i] != '\\') /* a raw quote or control byte */
            return (size_t)-1;
        if (++i >= end)
            return (size_t)-1;
        if (line[i] == '"') { /* the escape of JSON inside JSON */
            *w++ = '"';
            continue;
        }
        switch (line[i]) {
        case '\\': *w++ = '\\'; break;
        case '/': *w++ = '/'; break;
        case 'b': *w++ = '\b'; break;
        case 'f': *w++ = '\f'; break;
        case 'n': *w++ = '\n'; break;
        case 'r': *w++ = '\r'; break;
        case 't': *w++ = '\t'; break;
        case 'u': {
            if (i + 4 >= end)
                return (size_t)-1;
            long cp = hex4(line + i + 1);
            i += 4;
            if (cp < 0 || (cp >= 0xdc00 && cp <= 0xdfff))
                return (size_t)-1;
            if (cp >= 0xd800 && cp <= 0xdbff) {
                if (i + 6 >= end || line[i + 1] != '\\' || line[i + 2] != 'u')
                    return (size_t)-1;
                long lo = hex4(line + i + 3);
                if (lo < 0xdc00 || lo > 0xdfff)
                    return (size_t)-1;
                cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
                i += 6;
            }
            w += put_utf8(w, (unsigned long)cp);
            break;
        }
        default: return (size_t)-1;
        }
    }
    return (size_t)(w - buf->data);
}

