/* schema_idna.c — host names for the hostname / idn-hostname formats: the LDH
 * rules (RFC 1123) here; IDNA2008 by kept libraries with their Unicode tables:
 * libidn2 for each label (RFC 5891 §4 registration checks: derived property
 * DISALLOWED/UNASSIGNED, CONTEXTJ/CONTEXTO rules, NFC, leading combining
 * marks, hyphen rules, Punycode both ways, the 63-octet A-label), and the Bidi
 * rule (RFC 5893) on libunistring's bidi classes, because libidn2 2.3 checks
 * it one label at a time and skips its rule 4. Not for: UTS #46 mapping (a
 * format asserts the name as written). */
#include <idn2.h>
#include <stdlib.h>
#include <string.h>
#include <unictype.h>
#include <unistr.h>

#include "schema_impl.h"

enum {
    LABEL_OCTETS_MAX = 63, /* RFC 1035 §2.3.4, for the A-label */
    ULABEL_BYTES_MAX = 4 * LABEL_OCTETS_MAX, /* a U-label longer cannot encode in 63 octets */
};

static bool is_ldh(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-';
}

static bool is_alabel(const char *s, size_t n)
{
    return n >= 4 && (s[0] == 'x' || s[0] == 'X') && (s[1] == 'n' || s[1] == 'N') && s[2] == '-' && s[3] == '-';
}

/* The U-label form of an A-label (lower case, NUL-terminated) into `ulabel`. */
static bool alabel_decode(const char *alabel, char ulabel[ULABEL_BYTES_MAX + 1])
{
    char *decoded = NULL;
    bool ok = idn2_to_unicode_8z8z(alabel, &decoded, 0) == IDN2_OK && strlen(decoded) <= ULABEL_BYTES_MAX;
    if (ok)
        strcpy(ulabel, decoded);
    idn2_free(decoded);
    return ok;
}

/* One label checked and put in its U-label form (A-labels decoded, U-labels in
 * NFC, LDH labels as they are) into `ulabel`, NUL-terminated; false when the
 * label is not acceptable. ASCII-only callers (hostname) still accept A-labels. */
static bool label_to_unicode(const char *s, size_t n, bool ascii_only, char ulabel[ULABEL_BYTES_MAX + 1])
{
    bool non_ascii = false;
    for (size_t i = 0; i < n; i++)
        non_ascii |= (unsigned char)s[i] >= 0x80;
    if (n == 0 || memchr(s, '\0', n) != NULL)
        return false;
    uint8_t *alabel = NULL;
    if (non_ascii) {
        if (ascii_only || n > ULABEL_BYTES_MAX)
            return false;
        memcpy(ulabel, s, n);
        ulabel[n] = '\0';
        /* a name that is not in NFC names the host its NFC form names (RFC 5891 §5.2) */
        int rc = idn2_register_u8((const uint8_t *)ulabel, NULL, &alabel, IDN2_NFC_INPUT);
        bool ok = rc == IDN2_OK && alabel_decode((const char *)alabel, ulabel);
        idn2_free(alabel);
        return ok;
    }
    if (n > LABEL_OCTETS_MAX || s[0] == '-' || s[n - 1] == '-')
        return false;
    for (size_t i = 0; i < n; i++) {
        if (!is_ldh(s[i]))
            return false;
        ulabel[i] = s[i] >= 'A' && s[i] <= 'Z' ? (char)(s[i] - 'A' + 'a') : s[i];
    }
    ulabel[n] = '\0';
    if (!is_alabel(s, n))
        return true;
    /* registration of the A-label alone: decodes, checks the U-label and that
     * it encodes back to the same A-label */
    int rc = idn2_register_u8(NULL, (const uint8_t *)ulabel, &alabel, 0);
    idn2_free(alabel);
    return rc == IDN2_OK && alabel_decode(ulabel, ulabel);
}

/* The bidi classes of a U-label, one per code point; returns the count. */
static size_t bidi_classes(const char *ulabel, int classes[ULABEL_BYTES_MAX])
{
    const uint8_t *at = (const uint8_t *)ulabel, *end = at + strlen(ulabel);
    size_t count = 0;
    while (at < end && count < ULABEL_BYTES_MAX) {
        ucs4_t cp;
        at += u8_mbtouc(&cp, at, (size_t)(end - at));
        classes[count++] = uc_bidi_class(cp);
    }
    return count;
}

/* An RTL label holds a character of class R, AL or AN (RFC 5893 §1.4). */
static bool is_rtl_label(const int *classes, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (classes[i] == UC_BIDI_R || classes[i] == UC_BIDI_AL || classes[i] == UC_BIDI_AN)
            return true;
    return false;
}

/* The six conditions of the Bidi rule (RFC 5893 §2) on one label. */
static bool bidi_rule_ok(const int *classes, size_t n)
{
    if (n == 0)
        return false;
    bool rtl = classes[0] == UC_BIDI_R || classes[0] == UC_BIDI_AL;
    if (!rtl && classes[0] != UC_BIDI_L) /* 1 */
        return false;
    bool has_en = false, has_an = false;
    for (size_t i = 0; i < n; i++) {
        int c = classes[i];
        bool common = c == UC_BIDI_EN || c == UC_BIDI_ES || c == UC_BIDI_CS || c == UC_BIDI_ET || c == UC_BIDI_ON ||
                      c == UC_BIDI_BN || c == UC_BIDI_NSM;
        bool allowed = common || (rtl ? c == UC_BIDI_R || c == UC_BIDI_AL || c == UC_BIDI_AN : c == UC_BIDI_L);
        if (!allowed) /* 2, 5 */
            return false;
        has_en |= c == UC_BIDI_EN;
        has_an |= c == UC_BIDI_AN;
    }
    if (rtl && has_en && has_an) /* 4 */
        return false;
    size_t last = n - 1;
    while (last > 0 && classes[last] == UC_BIDI_NSM)
        last--;
    int c = classes[last];
    if (rtl) /* 3 */
        return c == UC_BIDI_R || c == UC_BIDI_AL || c == UC_BIDI_EN || c == UC_BIDI_AN;
    return c == UC_BIDI_L || c == UC_BIDI_EN; /* 6 */
}

/* Walk the labels of `s`; with `check_bidi`, hold each to the Bidi rule,
 * else report in *bidi_domain whether any label is an RTL label. */
static bool walk_labels(const char *s, size_t len, bool ascii_only, bool check_bidi, bool *bidi_domain)
{
    char ulabel[ULABEL_BYTES_MAX + 1];
    int classes[ULABEL_BYTES_MAX];
    size_t start = 0;
    for (size_t i = 0; i <= len; i++) {
        if (i < len && s[i] != '.')
            continue;
        if (!label_to_unicode(s + start, i - start, ascii_only, ulabel))
            return false;
        size_t count = bidi_classes(ulabel, classes);
        if (check_bidi && !bidi_rule_ok(classes, count))
            return false;
        if (!check_bidi)
            *bidi_domain |= is_rtl_label(classes, count);
        start = i + 1;
    }
    return true;
}

int sc_idna_hostname_ok(const char *s, size_t len, bool allow_unicode)
{
    if (len == 0 || len > 253)
        return 0;
    bool bidi_domain = false;
    if (!walk_labels(s, len, !allow_unicode, false, &bidi_domain))
        return 0;
    /* in a Bidi domain name every label meets the Bidi rule (RFC 5893 §2) */
    return !bidi_domain || walk_labels(s, len, !allow_unicode, true, &bidi_domain);
}
