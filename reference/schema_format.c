/* schema_format.c — `format` checks (RFC 3339 dates and times, ISO 8601
 * durations, RFC 5321 e-mail, RFC 1123 host names, IP addresses, RFC 3986/3987
 * URIs and IRIs, UUIDs, JSON Pointers, ECMA-262 regexes).
 *
 * Each check takes decoded UTF-8 and returns 1 (conforms) or 0. They run only
 * when a schema asks for format assertion (gt_schema_options.assert_formats);
 * by default `format` is an annotation. Not for: IDNA2008 in full (see
 * docs/structure-gate.md for what idn-* check). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "schema_impl.h"

static bool is_digit(char ch) { return ch >= '0' && ch <= '9'; }
static bool is_alpha(char ch) { return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z'); }
static bool is_hex(char ch) { return is_digit(ch) || (ch >= 'a' && ch <= 'f') || (ch >= 'A' && ch <= 'F'); }

/* Exactly `n` ASCII digits at s as a number, or -1. */
static int digits(const char *s, size_t n)
{
    int v = 0;
    for (size_t i = 0; i < n; i++) {
        if (!is_digit(s[i]))
            return -1;
        v = v * 10 + (s[i] - '0');
    }
    return v;
}

static int days_in_month(int year, int month)
{
    static const int days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    return month == 2 && leap ? 29 : days[month - 1];
}

static int check_date(const char *s, size_t len)
{
    if (len != 10 || s[4] != '-' || s[7] != '-')
        return 0;
    int y = digits(s, 4), m = digits(s + 5, 2), d = digits(s + 8, 2);
    if (y < 0 || m < 1 || m > 12 || d < 1)
        return 0;
    return d <= days_in_month(y, m);
}

static int check_time(const char *s, size_t len)
{
    if (len < 9 || s[2] != ':' || s[5] != ':')
        return 0;
    int h = digits(s, 2), m = digits(s + 3, 2), sec = digits(s + 6, 2);
    if (h < 0 || m < 0 || sec < 0 || h > 23 || m > 59 || sec > 60)
        return 0;
    size_t i = 8;
    if (i < len && s[i] == '.') {
        size_t start = ++i;
        while (i < len && is_digit(s[i]))
            i++;
        if (i == start)
            return 0;
    }
    if (i >= len)
        return 0;
    int offset_minutes = 0;
    if (s[i] == 'Z' || s[i] == 'z') {
        if (i + 1 != len)
            return 0;
    } else if (s[i] == '+' || s[i] == '-') {
        if (len - i != 6 || s[i + 3] != ':')
            return 0;
        int oh = digits(s + i + 1, 2), om = digits(s + i + 4, 2);
        if (oh < 0 || om < 0 || oh > 23 || om > 59)
            return 0;
        offset_minutes = (oh * 60 + om) * (s[i] == '+' ? 1 : -1);
    } else
        return 0;
    if (sec == 60) {
        int utc = ((h * 60 + m - offset_minutes) % 1440 + 1440) % 1440;
        if (utc != 23 * 60 + 59)
            return 0;
    }
    return 1;
}

static int check_date_time(const char *s, size_t len)
{
    if (len < 11 || (s[10] != 'T' && s[10] != 't'))
        return 0;
    return check_date(s, 10) && check_time(s + 11, len - 11);
}

/* ISO 8601 durations as RFC 3339 Appendix A spells them. */
static int check_duration(const char *s, size_t len)
{
    if (len < 2 || s[0] != 'P')
        return 0;
    static const char date_units[] = "YMD", time_units[] = "HMS";
    size_t i = 1;
    int date_pos = 0, time_pos = 0;
    bool in_time = false, any = false, week = false;
    while (i < len) {
        if (s[i] == 'T') {
            if (in_time || i + 1 >= len)
                return 0;
            in_time = true;
            i++;
            continue;
        }
        size_t start = i;
        while (i < len && is_digit(s[i]))
            i++;
        if (i == start || i >= len)
            return 0;
        char unit = s[i++];
        if (unit == 'W') {
            if (in_time || any)
                return 0;
            week = true;
        } else if (week)
            return 0;
        else {
            /* dur-year [dur-month [dur-day]]: after the first unit, only the next one */
            const char *units = in_time ? time_units : date_units;
            int *pos = in_time ? &time_pos : &date_pos;
            const char *at = unit ? strchr(units + *pos, unit) : NULL;
            if (at == NULL || (*pos > 0 && at != units + *pos))
                return 0;
            *pos = (int)(at - units) + 1;
        }
        any = true;
    }
    return any && !(in_time && time_pos == 0);
}

static int check_ipv4(const char *s, size_t len)
{
    size_t i = 0;
    for (int part = 0; part < 4; part++) {
        if (part > 0) {
            if (i >= len || s[i] != '.')
                return 0;
            i++;
        }
        size_t start = i;
        int v = 0;
        while (i < len && is_digit(s[i]) && i - start < 4)
            v = v * 10 + (s[i++] - '0');
        size_t n = i - start;
        if (n == 0 || n > 3 || v > 255 || (n > 1 && s[start] == '0'))
            return 0;
    }
    return i == len;
}

static int check_ipv6(const char *s, size_t len)
{
    int groups = 0;
    bool compressed = false;
    size_t i = 0;
    if (len >= 2 && s[0] == ':' && s[1] == ':') {
        compressed = true;
        i = 2;
    } else if (len >= 1 && s[0] == ':')
        return 0;
    while (i < len) {
        size_t start = i;
        while (i < len && is_hex(s[i]))
            i++;
        if (i < len && s[i] == '.') {
            if (!check_ipv4(s + start, len - start) || groups > 6)
                return 0;
            groups += 2;
            i = len;
            break;
        }
        size_t n = i - start;
        if (n == 0 || n > 4)
            return 0;
        groups++;
        if (i == len)
            break;
        if (s[i] != ':')
            return 0;
        i++;
        if (i < len && s[i] == ':') {
            if (compressed)
                return 0;
            compressed = true;
            i++;
        } else if (i == len)
            return 0;
    }
    return compressed ? groups <= 7 : groups == 8;
}

static int check_hostname(const char *s, size_t len) { return sc_idna_hostname_ok(s, len, false); }

static int check_idn_hostname(const char *s, size_t len)
{
    /* U+3002, U+FF0E and U+FF61 separate labels like a dot (RFC 3490 §3.1). */
    char *copy = malloc(len + 1);
    if (copy == NULL)
        return 0;
    size_t n = 0;
    for (size_t i = 0; i < len; i++) {
        const unsigned char *u = (const unsigned char *)s + i;
        if (i + 2 < len && ((u[0] == 0xe3 && u[1] == 0x80 && u[2] == 0x82) ||
                            (u[0] == 0xef && u[1] == 0xbc && u[2] == 0x8e) ||
                            (u[0] == 0xef && u[1] == 0xbd && u[2] == 0xa1))) {
            copy[n++] = '.';
            i += 2;
        } else
            copy[n++] = s[i];
    }
    int ok = sc_utf8_length(copy, n) <= 253 && sc_idna_hostname_ok(copy, n, true);
    free(copy);
    return ok;
}

static bool is_atext(unsigned char ch, bool unicode)
{
    return is_alpha((char)ch) || is_digit((char)ch) || (ch && strchr("!#$%&'*+-/=?^_`{|}~", ch)) ||
           (unicode && ch >= 0x80);
}

static int email_common(const char *s, size_t len, bool unicode)
{
    const char *at = NULL;
    size_t i = 0;
    if (len > 0 && s[0] == '"') {
        for (i = 1; i < len && s[i] != '"'; i++)
            if (s[i] == '\\')
                i++;
        if (i >= len || i + 1 >= len || s[i + 1] != '@')
            return 0;
        at = s + i + 1;
    } else {
        at = memchr(s, '@', len);
        if (at == NULL || at == s)
            return 0;
        for (const char *p = s; p < at; p++) {
            if (*p == '.') {
                if (p == s || p + 1 == at || p[1] == '.')
                    return 0;
            } else if (!is_atext((unsigned char)*p, unicode))
                return 0;
        }
    }
    const char *domain = at + 1;
    size_t dn = len - (size_t)(domain - s);
    if (dn >= 2 && domain[0] == '[' && domain[dn - 1] == ']') {
        if (dn > 7 && memcmp(domain + 1, "IPv6:", 5) == 0)
            return check_ipv6(domain + 6, dn - 7);
        return check_ipv4(domain + 1, dn - 2);
    }
    return unicode ? check_idn_hostname(domain, dn) : check_hostname(domain, dn);
}

static int check_email(const char *s, size_t len) { return email_common(s, len, false); }
static int check_idn_email(const char *s, size_t len) { return email_common(s, len, true); }

static int check_uuid(const char *s, size_t len)
{
    if (len != 36)
        return 0;
    for (size_t i = 0; i < 36; i++) {
        bool dash = i == 8 || i == 13 || i == 18 || i == 23;
        if (dash ? s[i] != '-' : !is_hex(s[i]))
            return 0;
    }
    return 1;
}

static int check_json_pointer(const char *s, size_t len)
{
    if (len > 0 && s[0] != '/')
        return 0;
    for (size_t i = 0; i < len; i++)
        if (s[i] == '~' && (i + 1 >= len || (s[i + 1] != '0' && s[i + 1] != '1')))
            return 0;
    return 1;
}

static int check_relative_json_pointer(const char *s, size_t len)
{
    size_t i = 0;
    while (i < len && is_digit(s[i]))
        i++;
    if (i == 0 || (i > 1 && s[0] == '0'))
        return 0;
    if (i < len && s[i] == '#')
        return i + 1 == len;
    return check_json_pointer(s + i, len - i);
}

static int check_regex(const char *s, size_t len)
{
    sc_regex re;
    char why[128];
    if (sc_regex_compile(&re, s, len, why, sizeof why) != 0)
        return 0;
    sc_regex_free(&re);
    return 1;
}

/* --- URIs (RFC 3986) and IRIs (RFC 3987) --- */

static bool uri_char_ok(const char *s, size_t len, size_t *i, const char *extra, bool iri)
{
    unsigned char ch = (unsigned char)s[*i];
    if (ch == '%') {
        if (*i + 2 >= len || !is_hex(s[*i + 1]) || !is_hex(s[*i + 2]))
            return false;
        *i += 3;
        return true;
    }
    if (is_alpha((char)ch) || is_digit((char)ch) || (ch && strchr("-._~!$&'()*+,;=", ch)) ||
        (ch && strchr(extra, ch)) || (iri && ch >= 0x80)) {
        (*i)++;
        return true;
    }
    return false;
}

static bool uri_run(const char *s, size_t len, const char *extra, bool iri)
{
    for (size_t i = 0; i < len;)
        if (!uri_char_ok(s, len, &i, extra, iri))
            return false;
    return true;
}

static bool check_authority(const char *s, size_t len, bool iri)
{
    const char *at = memchr(s, '@', len);
    if (at != NULL) {
        if (!uri_run(s, (size_t)(at - s), ":", iri))
            return false;
        len -= (size_t)(at + 1 - s);
        s = at + 1;
    }
    size_t host_end = len;
    if (len > 0 && s[0] == '[') {
        const char *close = memchr(s, ']', len);
        if (close == NULL)
            return false;
        size_t hn = (size_t)(close - s) - 1;
        if (hn > 0 && (s[1] == 'v' || s[1] == 'V')) {
            if (!uri_run(s + 1, hn, ":", false))
                return false;
        } else if (!check_ipv6(s + 1, hn))
            return false;
        host_end = (size_t)(close - s) + 1;
    } else {
        const char *colon = memchr(s, ':', len);
        host_end = colon ? (size_t)(colon - s) : len;
        if (!uri_run(s, host_end, "", iri))
            return false;
    }
    if (host_end < len) {
        if (s[host_end] != ':')
            return false;
        for (size_t i = host_end + 1; i < len; i++)
            if (!is_digit(s[i]))
                return false;
    }
    return true;
}

/* URI or relative reference; `absolute` requires a scheme. */
static int uri_common(const char *s, size_t len, bool absolute, bool iri)
{
    size_t i = 0;
    while (i < len && (is_alpha(s[i]) || (i > 0 && (is_digit(s[i]) || s[i] == '+' || s[i] == '-' || s[i] == '.'))))
        i++;
    bool has_scheme = i > 0 && i < len && s[i] == ':';
    if (absolute && !has_scheme)
        return 0;
    size_t rest = has_scheme ? i + 1 : 0;
    if (!has_scheme) {
        /* a relative reference's first segment has no colon */
        size_t seg = strcspn(s, "/?#");
        if (memchr(s, ':', seg < len ? seg : len) != NULL)
            return 0;
    }
    size_t end = len;
    const char *hash = memchr(s + rest, '#', len - rest);
    if (hash != NULL) {
        if (!uri_run(hash + 1, len - (size_t)(hash + 1 - s), ":@/?", iri))
            return 0;
        end = (size_t)(hash - s);
    }
    const char *q = memchr(s + rest, '?', end - rest);
    if (q != NULL) {
        if (!uri_run(q + 1, end - (size_t)(q + 1 - s), ":@/?", iri))
            return 0;
        end = (size_t)(q - s);
    }
    const char *p = s + rest;
    size_t pn = end - rest;
    if (pn >= 2 && p[0] == '/' && p[1] == '/') {
        size_t an = 2;
        while (an < pn && p[an] != '/')
            an++;
        if (!check_authority(p + 2, an - 2, iri))
            return 0;
        p += an, pn -= an;
    }
    return uri_run(p, pn, ":@/", iri);
}

static int check_uri(const char *s, size_t len) { return uri_common(s, len, true, false); }
static int check_uri_reference(const char *s, size_t len) { return uri_common(s, len, false, false); }
static int check_iri(const char *s, size_t len) { return uri_common(s, len, true, true); }
static int check_iri_reference(const char *s, size_t len) { return uri_common(s, len, false, true); }

/* RFC 6570: literals, and expressions {op varspec,varspec} with
 * varspec = varname [":" 1-9999 | "*"], varname = varchar *(["."] varchar). */
static bool template_literal_ok(unsigned char ch)
{
    return ch > 0x20 && ch != 0x7f && !strchr("\"<>\\^`|", ch);
}

static size_t template_varspec(const char *s, size_t i, size_t end)
{
    size_t start = i;
    bool dot_ok = false;
    while (i < end) {
        if (is_alpha(s[i]) || is_digit(s[i]) || s[i] == '_')
            i++, dot_ok = true;
        else if (s[i] == '%' && i + 2 < end && is_hex(s[i + 1]) && is_hex(s[i + 2]))
            i += 3, dot_ok = true;
        else if (s[i] == '.' && dot_ok && i + 1 < end && s[i + 1] != '.' && s[i + 1] != ',' && s[i + 1] != ':')
            i++, dot_ok = false;
        else
            break;
    }
    if (i == start || s[i - 1] == '.')
        return 0;
    if (i < end && s[i] == '*')
        return i + 1;
    if (i < end && s[i] == ':') {
        size_t d = ++i;
        while (i < end && is_digit(s[i]))
            i++;
        if (i == d || i - d > 4 || s[d] == '0')
            return 0;
    }
    return i;
}

static int check_uri_template(const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        if (s[i] == '}')
            return 0;
        if (s[i] != '{') {
            if (!template_literal_ok((unsigned char)s[i]))
                return 0;
            continue;
        }
        const char *close = memchr(s + i, '}', len - i);
        if (close == NULL)
            return 0;
        size_t end = (size_t)(close - s), j = i + 1;
        if (j < end && strchr("+#./;?&=,!@|", s[j]))
            j++;
        for (;;) {
            size_t next = template_varspec(s, j, end);
            if (next == 0)
                return 0;
            if (next == end)
                break;
            if (s[next] != ',')
                return 0;
            j = next + 1;
        }
        i = end;
    }
    return 1;
}

typedef struct format_entry {
    const char *name;
    sc_format_fn check;
} format_entry;

static const format_entry formats[] = {
    {"date", check_date},
    {"date-time", check_date_time},
    {"time", check_time},
    {"duration", check_duration},
    {"email", check_email},
    {"idn-email", check_idn_email},
    {"hostname", check_hostname},
    {"idn-hostname", check_idn_hostname},
    {"ipv4", check_ipv4},
    {"ipv6", check_ipv6},
    {"uri", check_uri},
    {"uri-reference", check_uri_reference},
    {"iri", check_iri},
    {"iri-reference", check_iri_reference},
    {"uri-template", check_uri_template},
    {"uuid", check_uuid},
    {"json-pointer", check_json_pointer},
    {"relative-json-pointer", check_relative_json_pointer},
    {"regex", check_regex},
};

sc_format_fn sc_format_lookup(const char *name)
{
    for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++)
        if (strcmp(formats[i].name, name) == 0)
            return formats[i].check;
    return NULL;
}

int gt_schema_format_check(const char *format, const char *text, size_t len)
{
    sc_format_fn check = sc_format_lookup(format);
    return check == NULL ? -1 : check(text, len);
}
