/* report.c — the escaping every writer shares (and their load-problem and
 * case-index helpers, report_util.h).
 *
 * The strings a report carries (ids, notes, messages from targets, file
 * names, raw inputs) are not trusted to be printable, valid UTF-8 or free of
 * markup, so escaping lives here once — JSON, XML, terminal, HTML, Markdown
 * code spans, visible raw bytes, base64 — and each format's rules are
 * written down above its function in report_util.h. Not for: formatting a
 * run (console.c, json.c, junit.c, tap.c, html.c, markdown.c) or finding a
 * writer by name (writers.c): the writers call this file, never the
 * other way round. */
#include <stdlib.h>
#include <string.h>

#include "gauntlet/runner/report.h"
#include "gauntlet/util.h"
#include "report_util.h"

size_t gt_report_utf8_decode(const unsigned char *text, size_t len, uint32_t *code_point)
{
    unsigned char lead = text[0];
    if (lead < 0x80) {
        *code_point = lead;
        return 1;
    }
    size_t need;
    uint32_t value, minimum;
    if (lead >= 0xc2 && lead <= 0xdf) {
        need = 2, value = lead & 0x1fu, minimum = 0x80;
    } else if (lead >= 0xe0 && lead <= 0xef) {
        need = 3, value = lead & 0x0fu, minimum = 0x800;
    } else if (lead >= 0xf0 && lead <= 0xf4) {
        need = 4, value = lead & 0x07u, minimum = 0x10000;
    } else
        return 0;
    if (len < need)
        return 0;
    for (size_t i = 1; i < need; i++) {
        if ((text[i] & 0xc0u) != 0x80u)
            return 0;
        value = value << 6 | (text[i] & 0x3fu);
    }
    if (value < minimum || value > 0x10ffff || (value >= 0xd800 && value <= 0xdfff))
        return 0;
    *code_point = value;
    return need;
}

void gt_report_json_string_n(FILE *out, const char *text, size_t len)
{
    const unsigned char *bytes = (const unsigned char *)text;
    fputc('"', out);
    for (size_t i = 0; i < len;) {
        uint32_t code_point;
        size_t span = gt_report_utf8_decode(bytes + i, len - i, &code_point);
        if (span == 0) {
            fputs("\\ufffd", out);
            i++;
            continue;
        }
        switch (code_point) {
        case '"': fputs("\\\"", out); break;
        case '\\': fputs("\\\\", out); break;
        case '\n': fputs("\\n", out); break;
        case '\r': fputs("\\r", out); break;
        case '\t': fputs("\\t", out); break;
        case '\b': fputs("\\b", out); break;
        case '\f': fputs("\\f", out); break;
        default:
            if (code_point < 0x20 || code_point == 0x7f || code_point == 0x2028 || code_point == 0x2029 ||
                code_point == '<' || code_point == '>' || code_point == '&')
                fprintf(out, "\\u%04x", (unsigned)code_point);
            else
                fwrite(bytes + i, 1, span, out);
        }
        i += span;
    }
    fputc('"', out);
}

void gt_report_json_string(FILE *out, const char *text)
{
    if (text == NULL)
        fputs("null", out);
    else
        gt_report_json_string_n(out, text, strlen(text));
}

void gt_report_xml_text(FILE *out, const char *text, bool attribute)
{
    if (text == NULL)
        return;
    const unsigned char *bytes = (const unsigned char *)text;
    size_t len = strlen(text);
    for (size_t i = 0; i < len;) {
        uint32_t code_point;
        size_t span = gt_report_utf8_decode(bytes + i, len - i, &code_point);
        if (span == 0) {
            fputs("\xef\xbf\xbd", out); /* U+FFFD */
            i++;
            continue;
        }
        bool forbidden = (code_point < 0x20 && code_point != '\t' && code_point != '\n' && code_point != '\r') ||
                         code_point == 0xfffe || code_point == 0xffff;
        if (forbidden)
            fputs("\xef\xbf\xbd", out);
        else if (code_point == '&')
            fputs("&amp;", out);
        else if (code_point == '<')
            fputs("&lt;", out);
        else if (code_point == '>')
            fputs("&gt;", out);
        else if (attribute && code_point == '"')
            fputs("&quot;", out);
        else if (attribute && code_point == '\'')
            fputs("&apos;", out);
        else if (attribute && code_point == '\n')
            fputs("&#10;", out);
        else if (attribute && code_point == '\r')
            fputs("&#13;", out);
        else if (attribute && code_point == '\t')
            fputs("&#9;", out);
        else if (code_point == '\r')
            fputs("&#13;", out); /* a raw CR in text would be normalised away by parsers */
        else
            fwrite(bytes + i, 1, span, out);
        i += span;
    }
}

void gt_report_console_text(FILE *out, const char *text)
{
    if (text == NULL)
        return;
    const unsigned char *bytes = (const unsigned char *)text;
    size_t len = strlen(text);
    for (size_t i = 0; i < len;) {
        uint32_t code_point;
        size_t span = gt_report_utf8_decode(bytes + i, len - i, &code_point);
        if (span == 0 || code_point < 0x20 || code_point == 0x7f || (code_point >= 0x80 && code_point < 0xa0)) {
            if (span == 0 || span == 1)
                fprintf(out, "\\x%02x", bytes[i]);
            else
                fprintf(out, "\\u%04x", (unsigned)code_point); /* C1 controls: ESC's 8-bit cousins */
            i += span ? span : 1;
            continue;
        }
        fwrite(bytes + i, 1, span, out);
        i += span;
    }
}

void gt_report_html_text_n(FILE *out, const char *text, size_t len)
{
    if (text == NULL)
        return;
    const unsigned char *bytes = (const unsigned char *)text;
    for (size_t i = 0; i < len;) {
        uint32_t code_point;
        size_t span = gt_report_utf8_decode(bytes + i, len - i, &code_point);
        if (span == 0) {
            fputs("&#xfffd;", out);
            i++;
            continue;
        }
        switch (code_point) {
        case '&': fputs("&amp;", out); break;
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '"': fputs("&quot;", out); break;
        case '\'': fputs("&#39;", out); break;
        case '\t':
        case '\n': fputc((int)code_point, out); break;
        case 0x2028:
        case 0x2029: fprintf(out, "&#x%x;", (unsigned)code_point); break;
        case 0xfffe:
        case 0xffff: fputs("&#xfffd;", out); break;
        default:
            if (code_point < 0x20 || code_point == 0x7f)
                fprintf(out, "\\x%02x", (unsigned)code_point);
            else if (code_point >= 0x80 && code_point < 0xa0)
                fprintf(out, "\\u%04x", (unsigned)code_point);
            else
                fwrite(bytes + i, 1, span, out);
        }
        i += span;
    }
}

void gt_report_html_text(FILE *out, const char *text)
{
    if (text != NULL)
        gt_report_html_text_n(out, text, strlen(text));
}

void gt_report_md_code(FILE *out, const char *text)
{
    if (text == NULL)
        text = "";
    /* The fence is one backtick longer than the longest run inside. */
    size_t longest = 0, run = 0;
    for (const char *p = text; *p; p++) {
        run = *p == '`' ? run + 1 : 0;
        if (run > longest)
            longest = run;
    }
    for (size_t i = 0; i <= longest; i++)
        fputc('`', out);
    fputc(' ', out);
    const unsigned char *bytes = (const unsigned char *)text;
    size_t len = strlen(text);
    for (size_t i = 0; i < len;) {
        uint32_t code_point;
        size_t span = gt_report_utf8_decode(bytes + i, len - i, &code_point);
        if (span == 0) {
            fputs("\xef\xbf\xbd", out);
            i++;
            continue;
        }
        if (code_point == '|')
            fputs("\\|", out);
        else if (code_point == '\n')
            fputs("\\n", out);
        else if (code_point < 0x20 || code_point == 0x7f)
            fprintf(out, "\\x%02x", (unsigned)code_point);
        else if ((code_point >= 0x80 && code_point < 0xa0) || code_point == 0x2028 || code_point == 0x2029)
            fprintf(out, "\\u%04x", (unsigned)code_point);
        else
            fwrite(bytes + i, 1, span, out);
        i += span;
    }
    fputc(' ', out);
    for (size_t i = 0; i <= longest; i++)
        fputc('`', out);
}

/* A short name for an invisible or confusable code point, or NULL when the
 * code point shows as itself. */
static const char *invisible_name(uint32_t code_point)
{
    switch (code_point) {
    case 0x00: return "NUL";
    case 0x09: return "TAB";
    case 0x0d: return "CR";
    case 0x1b: return "ESC";
    case 0x7f: return "DEL";
    case 0xa0: return "U+00A0 NBSP";
    case 0xad: return "U+00AD SHY";
    case 0x200b: return "U+200B ZWSP";
    case 0x200c: return "U+200C ZWNJ";
    case 0x200d: return "U+200D ZWJ";
    case 0x200e: return "U+200E LRM";
    case 0x200f: return "U+200F RLM";
    case 0x2028: return "U+2028 LS";
    case 0x2029: return "U+2029 PS";
    case 0x202e: return "U+202E RLO";
    case 0x2060: return "U+2060 WJ";
    case 0xfeff: return "U+FEFF BOM";
    }
    return NULL;
}

static bool is_invisible(uint32_t code_point)
{
    return code_point < 0x20 || (code_point >= 0x7f && code_point <= 0xa0) || code_point == 0xad ||
           code_point == 0x34f || code_point == 0x61c || code_point == 0x115f || code_point == 0x1160 ||
           code_point == 0x17b4 || code_point == 0x17b5 || code_point == 0x180e ||
           (code_point >= 0x2000 && code_point <= 0x200f) || (code_point >= 0x2028 && code_point <= 0x202f) ||
           (code_point >= 0x205f && code_point <= 0x206f) || code_point == 0x3000 || code_point == 0x3164 ||
           (code_point >= 0xfe00 && code_point <= 0xfe0f) || code_point == 0xfeff ||
           (code_point >= 0xfff9 && code_point <= 0xfffb) || code_point == 0xfffe || code_point == 0xffff ||
           (code_point >= 0xe0000 && code_point <= 0xe007f);
}

static void visible_marker(FILE *out, const char *text, bool html)
{
    fputs(html ? "<span class=\"m\">\xe2\x9f\xa8" : "\xe2\x9f\xa8", out); /* U+27E8 */
    fputs(text, out); /* our own ASCII: nothing to escape */
    fputs(html ? "\xe2\x9f\xa9</span>" : "\xe2\x9f\xa9", out);
}

void gt_report_visible(FILE *out, const unsigned char *raw, size_t len, bool html)
{
    if (raw == NULL)
        return;
    for (size_t i = 0; i < len;) {
        uint32_t code_point;
        size_t span = gt_report_utf8_decode(raw + i, len - i, &code_point);
        char marker[32];
        if (span == 0) {
            snprintf(marker, sizeof marker, "\\x%02x", raw[i]);
            visible_marker(out, marker, html);
            i++;
            continue;
        }
        if (code_point == '\n') {
            visible_marker(out, "LF", html);
            fputc('\n', out);
        } else if (is_invisible(code_point)) {
            const char *name = invisible_name(code_point);
            if (name == NULL) {
                if (code_point < 0x100)
                    snprintf(marker, sizeof marker, "\\x%02x", (unsigned)code_point);
                else
                    snprintf(marker, sizeof marker, "U+%04X", (unsigned)code_point);
                name = marker;
            }
            visible_marker(out, name, html);
        } else if (html) {
            gt_report_html_text_n(out, (const char *)raw + i, span);
        } else {
            fwrite(raw + i, 1, span, out);
        }
        i += span;
    }
}

/* "invisible", "combining" or NULL for a code point worth a mark: format
 * and space characters that look like nothing (or like a space), and
 * combining marks that change the letter before them. */
const char *gt_report_code_point_kind(unsigned cp)
{
    if (cp == 0x00A0 || cp == 0x00AD || cp == 0x034F || cp == 0x061C || cp == 0x115F || cp == 0x1160 ||
        cp == 0x180E || (cp >= 0x2000 && cp <= 0x200F) || (cp >= 0x2028 && cp <= 0x202F) ||
        (cp >= 0x205F && cp <= 0x206F) || cp == 0x3000 || cp == 0x3164 || cp == 0xFEFF || cp == 0xFFA0 ||
        (cp >= 0xFE00 && cp <= 0xFE0F) || (cp >= 0xE0000 && cp <= 0xE007F))
        return "invisible";
    if ((cp >= 0x0300 && cp <= 0x036F) || (cp >= 0x1AB0 && cp <= 0x1AFF) || (cp >= 0x1DC0 && cp <= 0x1DFF) ||
        (cp >= 0x20D0 && cp <= 0x20FF) || (cp >= 0xFE20 && cp <= 0xFE2F))
        return "combining";
    return NULL;
}

/* Every non-ASCII code point of the raw input, with its line:column (in
 * code points, as the syntax gate counts) and what it is: a homoglyph, a
 * combining mark or an invisible character looks like nothing special in
 * the raw text above. At most `max_lines` lines. */
void gt_report_code_points(FILE *out, const unsigned char *raw, size_t raw_len, size_t max_lines)
{
    unsigned line = 1, column = 1;
    size_t shown = 0, more = 0;
    for (size_t at = 0; at < raw_len;) {
        uint32_t cp;
        size_t len = gt_report_utf8_decode(raw + at, raw_len - at, &cp);
        bool valid = len > 0;
        if (!valid) /* one invalid byte, shown as itself */
            len = 1, cp = raw[at];
        if (cp >= 0x80 || !valid) {
            if (shown == 0)
                fputs("\nnon-ASCII code points (line:column):\n", out);
            if (shown == max_lines) {
                more++;
            } else {
                const char *kind = valid ? gt_report_code_point_kind(cp) : "invalid UTF-8 byte";
                if (valid)
                    fprintf(out, "    %u:%u  U+%04X", line, column, cp);
                else
                    fprintf(out, "    %u:%u  byte 0x%02X", line, column, cp);
                if (kind != NULL)
                    fprintf(out, "  %s", kind);
                else if (valid) { /* shown as itself: a homoglyph is visible only by its number */
                    fputs("  \xe2\x80\x9c", out);
                    fwrite(raw + at, 1, len, out);
                    fputs("\xe2\x80\x9d", out);
                }
                fputc('\n', out);
                shown++;
            }
        }
        if (cp == '\n') {
            line++;
            column = 1;
        } else {
            column++;
        }
        at += len;
    }
    if (more > 0)
        fprintf(out, "    ... and %zu more\n", more);
}

const char *gt_report_verdict_text(gt_verdict verdict)
{
    return verdict == GT_VERDICT_ACCEPT ? "accept" : verdict == GT_VERDICT_REJECT ? "reject" : NULL;
}

void gt_report_base64_json(FILE *out, const unsigned char *bytes, size_t len)
{
    char *text = gt_base64_encode(bytes, len);
    fputc('"', out);
    if (text != NULL)
        fputs(text, out);
    fputc('"', out);
    free(text);
}

unsigned char *gt_report_base64_decode(const char *text, size_t *len)
{
    return gt_base64_decode(text, strlen(text), len);
}

size_t gt_report_problem_count(const gt_run *run, const gt_report_info *info)
{
    if (run->corpus != NULL)
        return gt_corpus_problem_count(run->corpus);
    return info ? info->problem_count : 0;
}

const gt_load_problem *gt_report_problem(const gt_run *run, const gt_report_info *info, size_t index)
{
    if (run->corpus != NULL)
        return gt_corpus_problem(run->corpus, index);
    return &info->problems[index];
}

size_t gt_report_case_index(const gt_report_info *info, size_t index)
{
    if (info == NULL || info->shard_count == 0 || info->shard_index == 0)
        return index;
    return index * info->shard_count + info->shard_index - 1;
}
