/* schema_idna.c — host name labels for the hostname / idn-hostname formats:
 * LDH rules (RFC 1123), Punycode decoding of A-labels (RFC 3492) and the
 * IDNA2008 rules that can be checked without Unicode tables (RFC 5891 §4.2.3:
 * hyphen positions, label length). Not for: the full IDNA2008 derived
 * property table; docs/structure-gate.md lists what is not checked. */
#include <stdint.h>
#include <string.h>

#include "schema_impl.h"

enum { PUNY_BASE = 36, PUNY_TMIN = 1, PUNY_TMAX = 26, PUNY_SKEW = 38, PUNY_DAMP = 700, PUNY_BIAS = 72 };

static int puny_digit(char ch)
{
    if (ch >= '0' && ch <= '9')
        return ch - '0' + 26;
    if (ch >= 'a' && ch <= 'z')
        return ch - 'a';
    if (ch >= 'A' && ch <= 'Z')
        return ch - 'A';
    return -1;
}

static uint32_t puny_adapt(uint32_t delta, uint32_t points, bool first)
{
    delta = first ? delta / PUNY_DAMP : delta / 2;
    delta += delta / points;
    uint32_t k = 0;
    while (delta > ((PUNY_BASE - PUNY_TMIN) * PUNY_TMAX) / 2) {
        delta /= PUNY_BASE - PUNY_TMIN;
        k += PUNY_BASE;
    }
    return k + (PUNY_BASE - PUNY_TMIN + 1) * delta / (delta + PUNY_SKEW);
}

/* Decode Punycode `s` into code points; returns the count or -1. */
static int puny_decode(const char *s, size_t n, uint32_t *out, size_t cap)
{
    size_t basic = 0;
    for (size_t i = 0; i < n; i++)
        if (s[i] == '-')
            basic = i;
    size_t count = 0;
    if (basic > 0) {
        for (size_t i = 0; i < basic; i++) {
            if (count >= cap || (unsigned char)s[i] >= 0x80)
                return -1;
            out[count++] = (unsigned char)s[i];
        }
    }
    size_t in = basic > 0 ? basic + 1 : 0;
    uint32_t code = 128, bias = PUNY_BIAS, i = 0;
    while (in < n) {
        uint32_t old = i, w = 1;
        for (uint32_t k = PUNY_BASE;; k += PUNY_BASE) {
            if (in >= n)
                return -1;
            int digit = puny_digit(s[in++]);
            if (digit < 0 || (uint32_t)digit > (UINT32_MAX - i) / w)
                return -1;
            i += (uint32_t)digit * w;
            uint32_t t = k <= bias ? PUNY_TMIN : k >= bias + PUNY_TMAX ? PUNY_TMAX : k - bias;
            if ((uint32_t)digit < t)
                break;
            w *= PUNY_BASE - t;
        }
        bias = puny_adapt(i - old, (uint32_t)count + 1, old == 0);
        code += i / ((uint32_t)count + 1);
        i %= (uint32_t)count + 1;
        if (count >= cap || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff))
            return -1;
        memmove(out + i + 1, out + i, (count - i) * sizeof *out);
        out[i++] = code;
        count++;
    }
    return (int)count;
}

/* Code points a U-label may never hold at the start (combining marks, the
 * ranges most often seen) or at all (IDNA2008 DISALLOWED exceptions). */
static bool is_combining_mark(uint32_t cp)
{
    return (cp >= 0x0300 && cp <= 0x036f) || (cp >= 0x0483 && cp <= 0x0489) || (cp >= 0x0591 && cp <= 0x05bd) ||
           (cp >= 0x0900 && cp <= 0x0903) || (cp >= 0x093a && cp <= 0x094f) || (cp >= 0x1ab0 && cp <= 0x1aff) ||
           (cp >= 0x1dc0 && cp <= 0x1dff) || (cp >= 0x20d0 && cp <= 0x20ff) || (cp >= 0xfe20 && cp <= 0xfe2f);
}

static bool is_disallowed(uint32_t cp)
{
    return cp == 0x0640 || cp == 0x07fa || cp == 0x302e || cp == 0x302f || (cp >= 0x3031 && cp <= 0x3035) ||
           cp == 0x303b || cp < 0x2d || (cp > 0x2d && cp < 0x30) || (cp > 0x39 && cp < 0x61) || (cp > 0x7a && cp < 0xa0);
}

static bool is_greek(uint32_t cp) { return (cp >= 0x0370 && cp <= 0x03ff) || (cp >= 0x1f00 && cp <= 0x1fff); }
static bool is_hebrew(uint32_t cp) { return cp >= 0x0590 && cp <= 0x05ff; }
static bool is_kana_han(uint32_t cp)
{
    return (cp >= 0x3040 && cp <= 0x30ff && cp != 0x30fb) || (cp >= 0x3400 && cp <= 0x4dbf) ||
           (cp >= 0x4e00 && cp <= 0x9fff) || (cp >= 0x20000 && cp <= 0x2ffff);
}
static bool is_virama(uint32_t cp)
{
    return cp == 0x094d || cp == 0x09cd || cp == 0x0a4d || cp == 0x0acd || cp == 0x0b4d || cp == 0x0bcd ||
           cp == 0x0c4d || cp == 0x0ccd || cp == 0x0d4d || cp == 0x0dca || cp == 0x0e3a || cp == 0x1039;
}

/* RFC 5892 contextual rules (CONTEXTJ / CONTEXTO) on a decoded label. */
static bool context_rules_ok(const uint32_t *cp, size_t n)
{
    bool arabic_indic = false, extended_indic = false, has_kana_han = false, has_katakana_dot = false;
    for (size_t i = 0; i < n; i++) {
        uint32_t c = cp[i];
        uint32_t prev = i > 0 ? cp[i - 1] : 0, next = i + 1 < n ? cp[i + 1] : 0;
        if (is_disallowed(c) || (i == 0 && is_combining_mark(c)))
            return false;
        if (c == 0x00b7 && (prev != 'l' || next != 'l'))
            return false;
        if (c == 0x0375 && !is_greek(next))
            return false;
        if ((c == 0x05f3 || c == 0x05f4) && !is_hebrew(prev))
            return false;
        if (c == 0x200d && !is_virama(prev))
            return false;
        if (c == 0x200c && !is_virama(prev)) {
            /* the joining-type regexp: accept only between Arabic letters */
            if (!(prev >= 0x0620 && prev <= 0x06ff && next >= 0x0620 && next <= 0x06ff))
                return false;
        }
        arabic_indic |= c >= 0x0660 && c <= 0x0669;
        extended_indic |= c >= 0x06f0 && c <= 0x06f9;
        has_kana_han |= is_kana_han(c);
        has_katakana_dot |= c == 0x30fb;
    }
    if (arabic_indic && extended_indic)
        return false;
    return !has_katakana_dot || has_kana_han;
}

static size_t utf8_decode_all(const char *s, size_t n, uint32_t *out, size_t cap)
{
    size_t count = 0;
    for (size_t i = 0; i < n && count < cap;) {
        unsigned char b = (unsigned char)s[i];
        uint32_t cp;
        int extra = b < 0x80 ? 0 : b < 0xe0 ? 1 : b < 0xf0 ? 2 : 3;
        cp = extra == 0 ? b : extra == 1 ? b & 0x1fu : extra == 2 ? b & 0x0fu : b & 0x07u;
        for (int k = 1; k <= extra && i + (size_t)k < n; k++)
            cp = (cp << 6) | ((unsigned char)s[i + (size_t)k] & 0x3fu);
        i += (size_t)extra + 1;
        out[count++] = cp;
    }
    return count;
}

static bool hyphen_rules_ok(const uint32_t *cp, size_t n)
{
    if (n == 0 || cp[0] == '-' || cp[n - 1] == '-')
        return false;
    return !(n >= 4 && cp[2] == '-' && cp[3] == '-');
}

/* One label: 1 acceptable, 0 not. ASCII-only callers (hostname) still accept
 * A-labels whose Punycode decodes to an acceptable U-label. */
int sc_punycode_label_ok(const char *s, size_t n, bool ascii_only);
int sc_punycode_label_ok(const char *s, size_t n, bool ascii_only)
{
    uint32_t cps[256];
    bool non_ascii = false;
    for (size_t i = 0; i < n; i++)
        non_ascii |= (unsigned char)s[i] >= 0x80;
    if (n == 0)
        return 0;
    if (non_ascii) {
        if (ascii_only)
            return 0;
        size_t count = utf8_decode_all(s, n, cps, 256);
        if (count > 63 || n > 255)
            return 0;
        for (size_t i = 0; i < count; i++)
            if (cps[i] == 0x3002 || cps[i] == 0xff0e || cps[i] == 0xff61)
                return 0;
        return hyphen_rules_ok(cps, count) && context_rules_ok(cps, count);
    }
    if (n > 63 || s[0] == '-' || s[n - 1] == '-')
        return 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-';
        if (!ok)
            return 0;
    }
    if (n >= 4 && s[2] == '-' && s[3] == '-' && (s[0] == 'x' || s[0] == 'X') && (s[1] == 'n' || s[1] == 'N')) {
        int count = puny_decode(s + 4, n - 4, cps, 256);
        if (count <= 0)
            return 0;
        return hyphen_rules_ok(cps, (size_t)count) && context_rules_ok(cps, (size_t)count);
    }
    return 1;
}
