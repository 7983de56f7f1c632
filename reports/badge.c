/* badge.c — a README badge of the required-tier pass rate.
 *
 * `badge` writes a shields.io endpoint document
 * (https://shields.io/badges/endpoint-badge: schemaVersion, label, message,
 * color) that img.shields.io/endpoint?url=... renders; `svg` writes the
 * same badge as a self-contained static SVG (flat style), for a README that
 * should not depend on a badge service. The rate is the required tier's:
 * passed / (cases - skipped), the figure a certificate rests on, floored to
 * one decimal so a badge never rounds a failure up to 100%. The counts
 * follow it, so a run that skipped most cases cannot hide behind its rate,
 * and so does the coverage: the share of the claimed profiles' required
 * cases that ran to a verdict. Below GT_REPORT_BADGE_MIN_COVERAGE the badge
 * is at best yellow, and its text names the profiles it covers.
 * Not for: the optional tier (gauntlet's own conventions). */
#include <math.h>
#include <string.h>

#include "gauntlet/runner/report.h"
#include "report_util.h"

typedef struct badge {
    char message[192];
    const char *color; /* shields.io colour name */
    const char *hex;   /* the same colour for the static SVG */
} badge;

/* The profiles a badge names: "core", "core+claude-code", "all profiles". */
static void badge_profiles(const gt_run *run, char *text, size_t len)
{
    if (gt_run_claims(run) == GT_PROFILES_ALL)
        snprintf(text, len, "all profiles");
    else
        gt_profiles_format(gt_run_claims(run), "+", text, len);
}

static void badge_of(const gt_run *run, const gt_report_info *info, badge *out)
{
    gt_run_counts tiers[GT_TIER_COUNT];
    gt_run_count_tiers(run, tiers);
    const gt_run_counts *row = &tiers[GT_TIER_REQUIRED];
    double rate = gt_report_pass_rate(row);
    char profiles[128];
    badge_profiles(run, profiles, sizeof profiles);
    if (rate < 0) {
        snprintf(out->message, sizeof out->message, "%s: no required case ran", profiles);
        out->color = "lightgrey", out->hex = "#9f9f9f";
        return;
    }
    gt_report_coverage coverage;
    gt_report_coverage_of(run, info, gt_run_claims(run), &coverage);
    double ran = floor(gt_report_coverage_share(&coverage) * 1000.0) / 10.0;
    double percent = floor(rate * 1000.0) / 10.0;
    snprintf(out->message, sizeof out->message,
             percent == 100.0 ? "%s: %.0f%% required (%zu/%zu), %.1f%% ran" : "%s: %.1f%% required (%zu/%zu), %.1f%% ran",
             profiles,
             percent, row->pass, row->cases - row->skip, ran);
    static const struct {
        double at_least;
        const char *color, *hex;
    } scale[] = {{100.0, "brightgreen", "#4c1"}, {95.0, "green", "#97ca00"},  {90.0, "yellowgreen", "#a4a61d"},
                 {80.0, "yellow", "#dfb317"},    {60.0, "orange", "#fe7d37"}, {0.0, "red", "#e05d44"}};
    size_t step = 0;
    while (step + 1 < sizeof scale / sizeof scale[0] && percent < scale[step].at_least)
        step++;
    /* a badge over too little of its claim is never green, whatever its rate */
    if (ran < GT_REPORT_BADGE_MIN_COVERAGE * 100.0 && step < 3)
        step = 3;
    out->color = scale[step].color, out->hex = scale[step].hex;
}

int gt_report_badge(FILE *out, const gt_run *run, const gt_report_info *info)
{
    badge b;
    badge_of(run, info, &b);
    fprintf(out, "{\"schemaVersion\": 1, \"label\": \"" GT_REPORT_BADGE_LABEL "\", \"message\": ");
    gt_report_json_string(out, b.message);
    fprintf(out, ", \"color\": \"%s\"}\n", b.color);
    fflush(out);
    return ferror(out) ? -1 : 0;
}

/* Width in pixels of `text` in 11 px Verdana (the flat badge's font), near
 * enough that the text fits its box. */
static int text_width(const char *text)
{
    double width = 0;
    for (const char *p = text; *p; p++) {
        char c = *p;
        width += strchr(" ()/.,:;'|!il", c)         ? 4.0
                 : c == '%' || c == 'm' || c == 'w' ? 11.0
                 : (c >= 'A' && c <= 'Z')           ? 7.5
                                                    : 7.0;
    }
    return (int)ceil(width);
}

static void svg_text(FILE *out, double x, const char *text)
{
    fprintf(out, "<text x=\"%.1f\" y=\"15\" fill=\"#010101\" fill-opacity=\".3\">", x);
    gt_report_xml_text(out, text, false);
    fprintf(out, "</text><text x=\"%.1f\" y=\"14\">", x);
    gt_report_xml_text(out, text, false);
    fputs("</text>", out);
}

int gt_report_badge_svg(FILE *out, const gt_run *run, const gt_report_info *info)
{
    badge b;
    badge_of(run, info, &b);
    const char *label = GT_REPORT_BADGE_LABEL;
    int left = text_width(label) + 10, right = text_width(b.message) + 10, width = left + right;
    fprintf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"20\" role=\"img\" aria-label=\"",
            width);
    gt_report_xml_text(out, label, true);
    fputs(": ", out);
    gt_report_xml_text(out, b.message, true);
    fputs("\"><title>", out);
    gt_report_xml_text(out, label, false);
    fputs(": ", out);
    gt_report_xml_text(out, b.message, false);
    fprintf(out,
            "</title><linearGradient id=\"s\" x2=\"0\" y2=\"100%%\"><stop offset=\"0\" stop-color=\"#bbb\" "
            "stop-opacity=\".1\"/><stop offset=\"1\" stop-opacity=\".1\"/></linearGradient>"
            "<clipPath id=\"r\"><rect width=\"%d\" height=\"20\" rx=\"3\" fill=\"#fff\"/></clipPath>"
            "<g clip-path=\"url(#r)\"><rect width=\"%d\" height=\"20\" fill=\"#555\"/>"
            "<rect x=\"%d\" width=\"%d\" height=\"20\" fill=\"%s\"/><rect width=\"%d\" height=\"20\" "
            "fill=\"url(#s)\"/></g>"
            "<g fill=\"#fff\" text-anchor=\"middle\" font-family=\"Verdana,Geneva,DejaVu Sans,sans-serif\" "
            "font-size=\"11\">",
            width, left, left, right, b.hex, width);
    svg_text(out, left / 2.0, label);
    svg_text(out, left + right / 2.0, b.message);
    fputs("</g></svg>\n", out);
    fflush(out);
    return ferror(out) ? -1 : 0;
}
