/* report_util.h — helpers shared by the report writers (reports/report.c,
 * certify.c, sha256.c, merge.c).
 *
 * Private to reports/ and the command line (runner/cli/): escaping for JSON,
 * XML and terminals (the corpus is full of control bytes, invalid UTF-8 and
 * injection strings, so every writer escapes everything it did not write
 * itself), and the pieces of the console report that `gauntlet run` prints
 * around its load problems. Not a public interface. */
#ifndef GT_REPORT_UTIL_H
#define GT_REPORT_UTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <nettle/sha2.h>

#include "gauntlet/runner/report.h"
#include "gauntlet/runner/result.h"

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

/* Write `text` (`len` bytes) escaped for HTML text and for a quoted
 * attribute value: & < > " ' as entities; C0 controls but tab and newline,
 * DEL and C1 controls as the visible text \xNN; U+2028/U+2029 as numeric
 * references; each byte that is not well-formed UTF-8 and U+FFFE/U+FFFF as
 * U+FFFD. The output never contains markup. NULL writes nothing. */
void gt_report_html_text_n(FILE *out, const char *text, size_t len);
void gt_report_html_text(FILE *out, const char *text);

/* Write `text` as a Markdown code span that is safe in a GFM table cell: no
 * markup, emphasis, link or @mention is interpreted; | is escaped; newlines
 * show as the visible "\n"; control bytes as \xNN; ill-formed UTF-8 as
 * U+FFFD. NULL writes an empty string. */
void gt_report_md_code(FILE *out, const char *text);

/* Write raw model output with every invisible byte made visible: control
 * characters, invalid UTF-8, BOM, zero-width and bidirectional characters,
 * unusual spaces and line separators become markers such as <NUL>, <\xff>,
 * <U+FEFF BOM> (written with U+27E8/U+27E9 brackets); a newline shows as a
 * marker followed by a real newline. With `html`, text is HTML-escaped and
 * markers are wrapped in <span class="m">. */
void gt_report_visible(FILE *out, const unsigned char *raw, size_t len, bool html);

/* "invisible", "combining" or NULL for code point `cp`. */
const char *gt_report_code_point_kind(unsigned cp);

/* Under raw text: every non-ASCII code point with its line:column and what
 * it is ("invisible", "combining", or the character itself, so that a
 * homoglyph shows by its number), at most `max_lines` lines; nothing for
 * ASCII text (gauntlet show, gauntlet explore). */
void gt_report_code_points(FILE *out, const unsigned char *raw, size_t raw_len, size_t max_lines);

/* "accept" / "reject", or NULL for no verdict. */
const char *gt_report_verdict_text(gt_verdict verdict);

/* Standard base64 (RFC 4648 section 4, padded) of `len` bytes as a JSON
 * string literal. */
void gt_report_base64_json(FILE *out, const unsigned char *bytes, size_t len);
/* Decode standard padded base64. Returns a malloc'd buffer (NUL-terminated,
 * length in *len), or NULL when `text` is not canonical base64 or out of
 * memory. */
unsigned char *gt_report_base64_decode(const char *text, size_t *len);

/* SHA-256 (FIPS 180-4), incremental, by libnettle. */
typedef struct gt_sha256 {
    struct sha256_ctx ctx;
} gt_sha256;
void gt_sha256_init(gt_sha256 *sha);
void gt_sha256_update(gt_sha256 *sha, const void *data, size_t len);
#define GT_SHA256_SIZE 32 /* bytes of a digest */
void gt_sha256_hex(gt_sha256 *sha, char hex[65]); /* finishes the hash */
void gt_sha256_digest(gt_sha256 *sha, unsigned char digest[GT_SHA256_SIZE]); /* finishes the hash */

/* The load problems a report lists: the corpus's when the run has one, else
 * info->problems (a merged run). */
size_t gt_report_problem_count(const gt_run *run, const gt_report_info *info);
const gt_load_problem *gt_report_problem(const gt_run *run, const gt_report_info *info, size_t index);

/* Position of result `index` in the selected corpus: the same as `index` for
 * an unsharded run; round-robin for shard K of N (index * N + K - 1). */
size_t gt_report_case_index(const gt_report_info *info, size_t index);

/* Certification figures computed from a run (reports/certify.c). */
typedef struct gt_report_accounting_totals {
    size_t cases;      /* cases not skipped whose expectation gives accounting figures */
    size_t matched;    /* every given figure equal */
    size_t mismatched; /* a figure differs */
    size_t missing;    /* the target reported no accounting */
    long expected[6];  /* sums of the given expected figures (order of gt_accounting) */
    long observed[6];  /* sums of the observed figures where the case expects that figure */
} gt_report_accounting_totals;

/* Names of the six gt_accounting figures, in struct order. */
extern const char *const gt_report_accounting_names[6];
/* Figure `i` of an accounting record (-1 = not given). */
int gt_report_accounting_figure(const gt_accounting *accounting, size_t i);
/* True when the case has accounting to compare: its expectation gives
 * figures, and it was neither skipped nor not applicable. Every report
 * counts these cases (one definition: console, HTML, Markdown, JSON). */
bool gt_report_has_accounting(const gt_case_result *result);
/* Does figure `f` the case gives differ from the target's? A target that
 * reported no accounting differs; a figure a black box cannot observe (null)
 * does not. */
bool gt_report_figure_differs(const gt_case_result *result, size_t f);
void gt_report_accounting_sum(const gt_run *run, gt_report_accounting_totals *totals);
/* Does the run's claim judge attempt accounting (claude-code or repair-loop)? */
bool gt_report_figures_judged(const gt_run *run);
/* Pass rate of a counts row: pass / (cases - skip), or -1 when every case
 * was skipped or there are none. */
double gt_report_pass_rate(const gt_run_counts *row);
/* A row's pass rate as text: "98.44% (630/640)" (pass / cases not skipped),
 * or "n/a (0 cases)". */
void gt_report_rate_text(char *text, size_t len, const gt_run_counts *row);
/* The two tiers' rate texts of a run. */
void gt_report_tier_rates(const gt_run *run, char required[64], char optional[64]);
/* What the required cases of a set of profiles came to in a run: the
 * coverage a certificate rests on (docs/profiles.md#coverage). */
typedef struct gt_report_coverage {
    size_t held;     /* required cases of the profiles in the loaded corpus (or the run, when unknown) */
    size_t ran;      /* of them, run to a verdict (pass or fail) */
    size_t passed;   /* of them, passed (an other-reason pass included) */
    size_t skipped;  /* of them, skipped (the target cannot express them) or never run */
    size_t not_applicable; /* of them, found not applicable to the client when played (a stream fault to a
                              client that did not stream) */
    size_t errors;   /* of them, errors */
} gt_report_coverage;
/* Coverage of the required cases in any profile of `mask`. */
void gt_report_coverage_of(const gt_run *run, const gt_report_info *info, unsigned mask, gt_report_coverage *out);
/* The coverage of each claimed profile that holds required cases, in
 * profile order (what every report lists): at most GT_PROFILE_COUNT rows;
 * returns how many. */
typedef struct gt_report_profile_coverage {
    gt_profile profile;
    gt_report_coverage coverage;
    bool low;       /* under GT_REPORT_BADGE_MIN_COVERAGE */
    char text[320]; /* gt_report_coverage_text, then "; N skipped, N error" when there are any */
} gt_report_profile_coverage;
size_t gt_report_claimed_coverage(const gt_run *run, const gt_report_info *info,
                                  gt_report_profile_coverage rows[GT_PROFILE_COUNT]);
/* ran / held (0 when held is 0). */
double gt_report_coverage_share(const gt_report_coverage *coverage);
/* One line per claimed profile: "core: 1,212 of 1,240 required cases ran (97.7%), 1,198 passed". */
void gt_report_coverage_text(char *text, size_t len, const char *profile, const gt_report_coverage *coverage);
/* The certificate's verdict: certified when the claimed profiles hold
 * required cases and every one of them ran and passed (an other-reason pass
 * counts; a skip, an error, a filtered-out or another shard's case does not).
 * `why` gets the one-line verdict: "certified: ..." or "not certified: ...". */
bool gt_report_certified(const gt_run *run, const gt_report_info *info, char *why, size_t len);
/* The skips of a run grouped by their note (what the target could not
 * express), in order of first appearance: at most `max` groups into
 * `groups`; returns how many there are. Notes are borrowed from the run. */
typedef struct gt_report_skip_reason {
    const char *note;
    size_t cases;
} gt_report_skip_reason;
size_t gt_report_skip_groups(const gt_run *run, gt_report_skip_reason *groups, size_t max);
/* How many skip groups a certificate lists (the rest are counted). */
#define GT_REPORT_MAX_SKIP_GROUPS 64
/* A count with thousands separators ("1,240") into `text`. */
char *gt_report_thousands(char *text, size_t len, size_t value);

/* Verdict classes as every writer shows them (reports/verdicts.c). Failures
 * are listed in groups in this order: unsafe first, then refused_valid,
 * figures, other_reason (a failure only when the target claims `reasons`)
 * and error. */
#define GT_REPORT_FAILURE_GROUPS 5
extern const gt_class gt_report_failure_groups[GT_REPORT_FAILURE_GROUPS];
/* One line: what a verdict class means. */
const char *gt_report_class_meaning(gt_class verdict_class);
/* Is `result` a fail or an error of class `group` (a failure group member)? */
bool gt_report_in_failure_group(const gt_case_result *result, gt_class group);
/* Is `result` an other-reason pass: the right verdict, another reason, a pass
 * because the target does not claim `reasons` (listed apart)? */
bool gt_report_other_reason_pass(const gt_case_result *result);
/* What other_reason is for this run: "passes: reasons is not claimed" or
 * "failures: reasons is claimed". */
const char *gt_report_other_reason_rule(const gt_run *run);
/* The run's not-applicable cases per profile (a case counts under each of
 * its profiles), into `text`: "claude-code 2, repair-loop 1", "" when none. */
char *gt_report_not_applicable_text(char *text, size_t len, const gt_run *run);
/* The not-applicable cases that are in a claimed profile: the client put
 * them out (a stream fault played to a client that did not stream). */
size_t gt_report_not_applicable_to_client(const gt_run *run);
/* Skips grouped by reason (their note): for the first skip of a reason, the
 * number of skips with that note; 0 for any other result. */
size_t gt_report_skip_group(const gt_run *run, size_t index);

/* What a report says about the tiers: the certificate rests on the required one. */
#define GT_REPORT_TIER_NOTE "a certificate rests on the required tier; optional cases test gauntlet's own conventions"
/* Split the target's self-reported name ("acme-guard 2.3.1") into name and
 * version (a last word starting with a digit or 'v' followed by a digit).
 * Writes "" for a missing part. */
void gt_report_split_name(const char *target_name, char *name, size_t name_len, char *version, size_t version_len);

/* The console's attempt-accounting table (cases with accounting only; writes
 * nothing when none has any), the baseline lists and the certification
 * footer. */
void gt_report_console_accounting(FILE *out, const gt_run *run, bool colour);
void gt_report_console_baseline(FILE *out, const gt_baseline_diff *diff, bool colour);
/* The baseline's count line and only its REGRESSED lines (`run -q`: a
 * gating failure is never silent, and nothing else is printed). */
void gt_report_console_regressions(FILE *out, const gt_baseline_diff *diff);
void gt_report_console_certification(FILE *out, const gt_run *run, const gt_report_info *info);

/* A recorded command line without the options that only choose outputs or
 * the shard (--shard, --report, --baseline, --certify, --quiet). Malloc'd;
 * NULL for NULL or when out of memory. */
char *gt_report_command_without_outputs(const char *command);

/* The HTML page; `csp` false leaves out the Content-Security-Policy (tests
 * use it to prove the escaping alone keeps injected markup inert). */
int gt_report_html_page(FILE *out, const gt_run *run, const gt_report_info *info, bool csp);

/* The console report's body: the per-gate table and one line per case that
 * did not pass (FAIL / ERROR / SKIP with its note). Colour when `colour`. */
void gt_report_console_summary(FILE *out, const gt_run *run, const gt_report_info *info, bool colour);
/* The verdict-class line and the claimed profiles with the not-applicable
 * count, and one coverage line per claimed profile (part of the summary). */
void gt_report_console_classes(FILE *out, const gt_run *run, bool colour);
void gt_report_console_coverage(FILE *out, const gt_run *run, const gt_report_info *info, bool colour);

/* The final totals line: "N passed, N failed, N skipped" (errors count as
 * failed). */
void gt_report_console_totals(FILE *out, const gt_run *run);

/* printf into `err` (cut to `err_len`): the message of a reader that fails. */
static inline void gt_report_errorf(char *err, size_t err_len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static inline void gt_report_errorf(char *err, size_t err_len, const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    vsnprintf(err, err_len, fmt, args);
    va_end(args);
}

#endif
