/* report.c — writer lookup and the escaping every writer shares.
 *
 * The strings a report carries (ids, notes, messages from targets, file
 * names) are not trusted to be printable, valid UTF-8 or free of markup, so
 * escaping lives here once, and each format's rules are written down above
 * its function in report_util.h. Not for: formatting a run (console.c,
 * json.c, junit.c). */
#include <string.h>

#include "gauntlet/report.h"
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

static int console_plain(FILE *out, const gt_run *run)
{
    return gt_report_console(out, run, false);
}

gt_report_writer gt_report_writer_for(const char *format)
{
    if (format == NULL)
        return NULL;
    if (strcmp(format, "console") == 0)
        return console_plain;
    if (strcmp(format, "json") == 0)
        return gt_report_json;
    if (strcmp(format, "junit") == 0)
        return gt_report_junit;
    return NULL;
}
