/* report_util.h — helpers shared by the report writers (reports/report.c).
 *
 * Private to reports/ and the runner: escaping for JSON, XML and terminals
 * (the corpus is full of control bytes, invalid UTF-8 and injection strings,
 * so every writer escapes everything it did not write itself), and the
 * pieces of the console report that `gauntlet run` prints around its load
 * problems. Not a public interface. */
#ifndef GT_REPORT_UTIL_H
#define GT_REPORT_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "gauntlet/run.h"

#include "gauntlet/version.h"

/* Decode one UTF-8 sequence at `text` (strict: no overlongs, no surrogates,
 * nothing above U+10FFFF). Returns the bytes it spans (1-4) and the code
 * point, or 0 when the bytes there are not well-formed UTF-8 (the caller
 * replaces one byte and moves on). `len` must be at least 1. */
size_t gt_report_utf8_decode(const unsigned char *text, size_t len, uint32_t *code_point);

/* Write `text` as a JSON string literal, or `null` when `text` is NULL.
 * Escapes ", \, every control character, U+007F, U+2028/U+2029 and < > &
 * (as \u003c...) so the output can sit inside an HTML <script>; each byte
 * that is not well-formed UTF-8 becomes \ufffd. */
void gt_report_json_string(FILE *out, const char *text);
void gt_report_json_string_n(FILE *out, const char *text, size_t len);

/* Write `text` escaped for XML 1.0 character data, or for an attribute value
 * when `attribute` (then also " ' and tab/newline/CR as references). Bytes
 * that XML 1.0 forbids (C0 controls other than tab/LF/CR, U+FFFE, U+FFFF) and
 * bytes that are not well-formed UTF-8 become U+FFFD. NULL writes nothing. */
void gt_report_xml_text(FILE *out, const char *text, bool attribute);

/* Write `text` for a terminal: control bytes, DEL and ill-formed UTF-8 are
 * shown as \xNN, so a case can never move the cursor or change colours. */
void gt_report_console_text(FILE *out, const char *text);

/* The console report's body: the per-gate table and one line per case that
 * did not pass (FAIL / ERROR / SKIP with its note). Colour when `colour`. */
void gt_report_console_summary(FILE *out, const gt_run *run, bool colour);

/* The final totals line: "N passed, N failed, N skipped" (errors count as
 * failed). */
void gt_report_console_totals(FILE *out, const gt_run *run);

#endif
