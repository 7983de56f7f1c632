/* html.c — one self-contained HTML page. A one-screen summary first (the
 * totals, profiles claimed and not, not-applicable cases counted by profile,
 * coverage per claimed profile, counts per verdict class, a bar per gate);
 * then every case that did not pass, grouped by verdict class (unsafe first)
 * and within a class by gate, each group a <details> with its count, with
 * expected vs observed, its errors, its raw input (invisible bytes made
 * visible) and its loop transcript; then the other-reason passes and the
 * skips, folded; then the per-gate tables, gate matrix, baseline diff,
 * attempt accounting and certification. Not-applicable cases were never run
 * and are counted, not listed.
 *
 * The corpus is full of <script> and injection text, so the page loads
 * nothing (no network: styles are inline), runs one script only, its own
 * (filter_script below, allowed by its SHA-256 in the Content-Security-
 * Policy, computed as the page is written), and writes every string it did
 * not produce itself through gt_report_html_text (report.c). The CSP is a
 * second wall, not the first: suite/test_html_browser.c renders the page
 * without it in headless Chromium and checks that no injected markup became
 * an element and no injected script ran. With scripts off the page loses
 * only the filter: the groups are <details>, the index is anchor links. */
#include <stdlib.h>
#include <string.h>

#include "gauntlet/runner/report.h"
#include "gauntlet/util.h"
#include "report_util.h"

static const char page_style[] =
    "body{font:14px/1.45 system-ui,sans-serif;margin:2em auto;max-width:78em;padding:0 1em;color:#1b1b1b}"
    "h1{font-size:1.6em}h2{margin-top:2em;border-bottom:1px solid #ccc}h3{font-size:1.05em;margin:0 0 .5em}"
    "table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;padding:.2em .6em;text-align:left;"
    "vertical-align:top}th{background:#f3f3f3}td.n{text-align:right;font-variant-numeric:tabular-nums}"
    ".pass{color:#176f2c}.fail,.error,.regressed{color:#b3261e;font-weight:600}.skip,.now_skipped{color:#8a6100}"
    "code,pre{font:12.5px/1.4 ui-monospace,monospace}pre{background:#f6f6f6;border:1px solid #ddd;padding:.6em;"
    "white-space:pre-wrap;word-break:break-all;max-height:30em;overflow:auto}"
    ".m{background:#ffe08a;color:#5a3d00;border-radius:3px;padding:0 2px}"
    "section.case{border:1px solid #ddd;border-left:4px solid #b3261e;padding:.8em 1em;margin:1em 0}"
    "section.case.o-skip{border-left-color:#d9a400}dl{display:grid;grid-template-columns:9em 1fr;gap:.2em 1em}"
    "dt{color:#555}dd{margin:0}.diff{background:#fde7e7}.rej{color:#555}"
    "td code.cmd{white-space:pre-wrap;word-break:break-all}svg.chart{display:block;margin:.6em 0;max-width:100%}"
    "details>summary{cursor:pointer;font-weight:600;margin:.6em 0}"
    "section.case.o-pass{border-left-color:#8a6100}h3.group{font-size:1.2em;margin:1.4em 0 .4em}"
    ".cls{font-weight:600}ul.coverage{margin:.3em 0}.low{color:#8a6100;font-weight:600}[hidden]{display:none!important}"
    "details.cases{margin:.2em 0 .2em .4em}details.cases>summary{margin:.3em 0}"
    "ul.index{margin:.3em 0;padding-left:1.2em}"
    "#gt-filter{background:#f6f6f6;border:1px solid #ddd;padding:.4em .6em;margin:.5em 0}"
    "#gt-filter label{margin-right:1em;white-space:nowrap}#gt-filter select{max-width:14em}#gt-f-shown{color:#555}";

/* The filter: shows the listed cases whose data-gate, data-outcome,
 * data-class and data-reason equal the chosen values and whose text holds
 * the typed one; a URL ending in #filter&class=unsafe&q=text presets it,
 * and a link to a folded group opens it. It only reads the page and sets
 * `hidden`, `open` and one textContent: it never builds markup, so no
 * string from a case can become an element or code through it. The CSP
 * allows exactly these bytes (script_src). ES5, so any browser runs it; it
 * holds no '<', so it can never end its own element or read as markup. */
static const char filter_script[] =
    "(function () {\n"
    "  var d = document, box = d.getElementById('gt-filter'), list = d.getElementById('gt-cases');\n"
    "  if (!box || !list) return;\n"
    "  var keys = ['gate', 'outcome', 'class', 'reason'], ctl = {};\n"
    "  keys.concat('q').forEach(function (k) { ctl[k] = d.getElementById('gt-f-' + k); });\n"
    "  var cases = [].slice.call(list.querySelectorAll('section.case'));\n"
    "  var groups = [].slice.call(list.querySelectorAll('details.cases, div.klass'));\n"
    "  var shown = d.getElementById('gt-f-shown');\n"
    "  groups.forEach(function (g) { g.gtOpen = g.open; });\n"
    "  function apply() {\n"
    "    var q = ctl.q.value.trim().toLowerCase(), on = q !== '', n = 0;\n"
    "    keys.forEach(function (k) { on = on || ctl[k].value !== ''; });\n"
    "    cases.forEach(function (c) {\n"
    "      var ok = keys.every(function (k) {\n"
    "        return ctl[k].value === '' || c.getAttribute('data-' + k) === ctl[k].value;\n"
    "      });\n"
    "      if (ok && q !== '') {\n"
    "        if (c.gtText === undefined) c.gtText = c.textContent.toLowerCase();\n"
    "        ok = c.gtText.indexOf(q) >= 0;\n"
    "      }\n"
    "      c.hidden = !ok;\n"
    "      n += ok ? 1 : 0;\n"
    "    });\n"
    "    groups.forEach(function (g) {\n"
    "      var any = g.querySelector('section.case:not([hidden])') !== null;\n"
    "      g.hidden = on && !any;\n"
    "      if (g.tagName === 'DETAILS') g.open = on ? any : g.gtOpen;\n"
    "    });\n"
    "    shown.textContent = on ? n + ' of ' + cases.length + ' listed cases match' : cases.length + ' cases listed';\n"
    "  }\n"
    "  function fromHash() {\n"
    "    var h = location.hash;\n"
    "    if (h.indexOf('#filter') === 0) {\n"
    "      h.slice(7).split('&').forEach(function (p) {\n"
    "        var i = p.indexOf('='), k = p.slice(0, i), v;\n"
    "        if (i === -1 || !Object.prototype.hasOwnProperty.call(ctl, k)) return;\n"
    "        try { v = decodeURIComponent(p.slice(i + 1)); } catch (e) { return; }\n"
    "        ctl[k].value = v;\n"
    "      });\n"
    "    } else if (h.length > 1) {\n"
    "      for (var t = d.getElementById(h.slice(1)); t; t = t.parentElement)\n"
    "        if (t.tagName === 'DETAILS') t.open = t.gtOpen = true;\n"
    "    }\n"
    "    apply();\n"
    "  }\n"
    "  keys.concat('q').forEach(function (k) {\n"
    "    ctl[k].addEventListener('input', apply);\n"
    "    ctl[k].addEventListener('change', apply);\n"
    "  });\n"
    "  window.addEventListener('hashchange', fromHash);\n"
    "  box.hidden = false;\n"
    "  fromHash();\n"
    "})();\n";

/* The CSP's script-src: 'sha256-<base64 of filter_script's digest>', or
 * 'none' when out of memory (the page then works as with scripts off). */
static void script_src(FILE *out)
{
    gt_sha256 sha;
    unsigned char digest[GT_SHA256_SIZE];
    gt_sha256_init(&sha);
    gt_sha256_update(&sha, filter_script, sizeof filter_script - 1);
    gt_sha256_digest(&sha, digest);
    char *encoded = gt_base64_encode(digest, sizeof digest);
    if (encoded == NULL) {
        fputs("script-src 'none'", out);
        return;
    }
    fprintf(out, "script-src 'sha256-%s'", encoded);
    free(encoded);
}

/* Chart colours: the same as the text classes. */
#define HTML_PASS_FILL "#2e8b3e"
#define HTML_FAIL_FILL "#c62828"
#define HTML_ERROR_FILL "#7b1414"
#define HTML_SKIP_FILL "#e0a800"
#define HTML_CHART_BAR_WIDTH 480 /* px for the whole of a gate's cases */

static void text(FILE *out, const char *value)
{
    gt_report_html_text(out, value);
}

static void code(FILE *out, const char *value)
{
    if (value == NULL) {
        fputs("<span class=\"none\">—</span>", out);
        return;
    }
    fputs("<code>", out);
    gt_report_html_text(out, value);
    fputs("</code>", out);
}

static void rate(FILE *out, const gt_run_counts *row)
{
    double value = gt_report_pass_rate(row);
    if (value < 0)
        fputs("n/a", out);
    else
        fprintf(out, "%.2f%%", value * 100.0);
}

static void counts_row(FILE *out, const char *name, const gt_run_counts *row)
{
    fprintf(out,
            "<tr><th>%s</th><td class=\"n\">%zu</td><td class=\"n pass\">%zu</td><td class=\"n%s\">%zu</td>"
            "<td class=\"n%s\">%zu</td><td class=\"n%s\">%zu</td><td class=\"n\">",
            name, row->cases, row->pass, row->fail ? " fail" : "", row->fail, row->error ? " error" : "", row->error,
            row->skip ? " skip" : "", row->skip);
    rate(out, row);
    fputs("</td></tr>\n", out);
}

/* One stacked bar per gate (pass, fail, error, skip), inline SVG: no script,
 * nothing fetched, so the CSP stays default-src 'none'. Each segment has a
 * <title> so hovering names the figure; the numbers are also in the table. */
static void gate_bars(FILE *out, const gt_run_counts counts[GT_GATE_COUNT + 1])
{
    int rows = 0;
    for (int gate = 0; gate <= GT_GATE_COUNT; gate++)
        rows += gate == GT_GATE_COUNT || counts[gate].cases > 0;
    const int row_height = 22, label_width = 80, width = label_width + HTML_CHART_BAR_WIDTH + 140;
    fprintf(out,
            "<svg class=\"chart\" role=\"img\" aria-label=\"pass, fail, error and skip per gate\" width=\"%d\" "
            "height=\"%d\" viewBox=\"0 0 %d %d\" font-size=\"12\" "
            "font-family=\"system-ui,sans-serif\">\n",
            width, rows * row_height + 4, width, rows * row_height + 4);
    int y = 2;
    for (int gate = 0; gate <= GT_GATE_COUNT; gate++) {
        const gt_run_counts *row = &counts[gate];
        if (gate < GT_GATE_COUNT && row->cases == 0)
            continue;
        const char *name = gate == GT_GATE_COUNT ? "total" : gt_gate_name((gt_gate)gate);
        fprintf(out, "<text x=\"0\" y=\"%d\">%s</text>", y + 14, name);
        size_t parts[4] = {row->pass, row->fail, row->error, row->skip};
        static const char *const fills[4] = {HTML_PASS_FILL, HTML_FAIL_FILL, HTML_ERROR_FILL, HTML_SKIP_FILL};
        static const char *const labels[4] = {"passed", "failed", "errored", "skipped"};
        double x = label_width;
        for (int p = 0; p < 4 && row->cases > 0; p++) {
            if (parts[p] == 0)
                continue;
            double w = (double)HTML_CHART_BAR_WIDTH * (double)parts[p] / (double)row->cases;
            fprintf(out, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"16\" fill=\"%s\"><title>%s: %zu %s</title></rect>",
                    x, y + 2, w < 1.0 ? 1.0 : w, fills[p], name, parts[p], labels[p]);
            x += w;
        }
        fprintf(out, "<text x=\"%d\" y=\"%d\">%zu/%zu passed</text>\n", label_width + HTML_CHART_BAR_WIDTH + 8,
                y + 14, row->pass, row->cases);
        y += row_height;
    }
    fputs("</svg>\n", out);
}

static void outcome_matrix(FILE *out, const gt_run *run, const gt_run_counts counts[GT_GATE_COUNT + 1])
{
    static const char header[] = "<tr><th>%s</th><th>cases</th><th>pass</th><th>fail</th>"
                                 "<th>error</th><th>skip</th><th>pass rate</th></tr>\n";
    fputs("<h2>Per-gate results</h2>\n", out);
    fputs("<table>", out);
    fprintf(out, header, "gate");
    for (int gate = 0; gate <= GT_GATE_COUNT; gate++) {
        if (gate < GT_GATE_COUNT && counts[gate].cases == 0)
            continue;
        counts_row(out, gate == GT_GATE_COUNT ? "total" : gt_gate_name((gt_gate)gate), &counts[gate]);
    }
    fputs("</table>\n<h2>Tiers</h2>\n<p>" GT_REPORT_TIER_NOTE ".</p>\n<table>", out);
    fprintf(out, header, "tier");
    gt_run_counts tiers[GT_TIER_COUNT];
    gt_run_count_tiers(run, tiers);
    for (int tier = 0; tier < GT_TIER_COUNT; tier++)
        counts_row(out, gt_tier_name((gt_tier)tier), &tiers[tier]);
    fputs("</table>\n", out);
}

/* Rows: the gate a case is about; columns: each gate's observed status over
 * those cases (passed / failed; not run is the rest). */
static void gate_matrix(FILE *out, const gt_run *run, const gt_run_counts counts[GT_GATE_COUNT + 1])
{
    size_t passed[GT_GATE_COUNT][GT_GATE_COUNT] = {{0}}, failed[GT_GATE_COUNT][GT_GATE_COUNT] = {{0}};
    size_t wrong[GT_GATE_COUNT][GT_GATE_COUNT] = {{0}}; /* rejections in cases that did not pass */
    for (size_t i = 0; i < run->count; i++) {
        int row = gt_gate_from_name(run->results[i].kase->input.gate);
        if (row < 0)
            continue;
        for (int column = 0; column < GT_GATE_COUNT; column++) {
            gt_gate_status status = run->results[i].observed.gates[column];
            passed[row][column] += status == GT_GATE_PASSED;
            failed[row][column] += status == GT_GATE_FAILED;
            wrong[row][column] += status == GT_GATE_FAILED && run->results[i].outcome != GT_OUTCOME_PASS;
        }
    }
    fputs("<h2>Gate matrix</h2>\n<p>Observed gate verdicts (passed / rejected) by the gate each case is about; "
          "an empty cell means the gate did not run. A rejection the case expects is the gate doing its job "
          "(grey); only rejections in cases that did not pass are red.</p>\n<table><tr><th>case gate \\ observed</th>",
          out);
    for (int column = 0; column < GT_GATE_COUNT; column++)
        fprintf(out, "<th>%s</th>", gt_gate_name((gt_gate)column));
    fputs("</tr>\n", out);
    for (int row = 0; row < GT_GATE_COUNT; row++) {
        if (counts[row].cases == 0)
            continue;
        fprintf(out, "<tr><th>%s</th>", gt_gate_name((gt_gate)row));
        for (int column = 0; column < GT_GATE_COUNT; column++) {
            if (passed[row][column] + failed[row][column] == 0)
                fputs("<td></td>", out);
            else
                fprintf(out, "<td class=\"n\"><span class=\"pass\">%zu</span> / <span class=\"%s\">%zu</span></td>",
                        passed[row][column], wrong[row][column] ? "fail" : "rej", failed[row][column]);
        }
        fputs("</tr>\n", out);
    }
    fputs("</table>\n", out);
}

/* "core, reasons" as code spans, or "none" (the names are ours). */
static void profile_names(FILE *out, unsigned mask)
{
    bool any = false;
    for (int p = 0; p < GT_PROFILE_COUNT; p++)
        if (mask & (1u << p)) {
            fprintf(out, "%s<code>%s</code>", any ? ", " : "", gt_profile_name((gt_profile)p));
            any = true;
        }
    if (!any)
        fputs("none", out);
}

/* One <li> per claimed profile with required cases: its coverage. */
static void coverage_list(FILE *out, const gt_run *run, const gt_report_info *info)
{
    gt_report_profile_coverage rows[GT_PROFILE_COUNT];
    size_t count = gt_report_claimed_coverage(run, info, rows);
    for (size_t i = 0; i < count; i++) {
        fprintf(out, "%s<li%s>%s", i ? "" : "<ul class=\"coverage\">", rows[i].low ? " class=\"low\"" : "",
                rows[i].text);
        if (rows[i].low)
            fprintf(out, " (below %.0f%%)", GT_REPORT_BADGE_MIN_COVERAGE * 100.0);
        fputs("</li>\n", out);
    }
    fputs(count ? "</ul>\n" : "<p>No required case in the claimed profiles.</p>\n", out);
}

/* The summary under the headline: profiles, not applicable, coverage, classes. */
static void summary_verdicts(FILE *out, const gt_run *run, const gt_report_info *info, const gt_run_counts *total)
{
    fputs("<p><strong>Profiles</strong> claimed: ", out);
    profile_names(out, gt_run_claims(run));
    fputs("; not claimed: ", out);
    profile_names(out, GT_PROFILES_ALL & ~gt_run_claims(run));
    fputs(".", out);
    if (total->not_applicable > 0) {
        char text[256];
        fprintf(out, " %zu case%s not applicable, never run (%s).", total->not_applicable,
                total->not_applicable == 1 ? "" : "s", gt_report_not_applicable_text(text, sizeof text, run));
    }
    fputs("</p>\n", out);
    coverage_list(out, run, info);
    fprintf(out,
            "<p><strong>Verdicts</strong>: <span class=\"%s\">%zu unsafe</span>, <span class=\"%s\">%zu "
            "refused_valid</span>, <span class=\"%s\">%zu figures</span>, %zu other_reason (%s), <span "
            "class=\"%s\">%zu error</span>, <span class=\"%s\">%zu skip</span>.</p>\n",
            total->unsafe ? "fail" : "n", total->unsafe, total->refused_valid ? "fail" : "n", total->refused_valid,
            total->figures ? "fail" : "n", total->figures, total->other_reason, gt_report_other_reason_rule(run),
            total->error ? "error" : "n", total->error, total->skip ? "skip" : "n", total->skip);
}

/* The certificate's profile rows: claimed, not claimed, coverage per claimed
 * profile, not-applicable cases by profile, skips by reason. */
static void certification_profiles(FILE *out, const gt_run *run, const gt_report_info *info)
{
    fputs("<tr><th>profiles claimed</th><td>", out);
    profile_names(out, gt_run_claims(run));
    fputs("</td></tr>\n<tr><th>profiles not claimed</th><td>", out);
    profile_names(out, GT_PROFILES_ALL & ~gt_run_claims(run));
    fputs("</td></tr>\n<tr><th>coverage</th><td>", out);
    gt_report_profile_coverage rows[GT_PROFILE_COUNT];
    size_t rows_count = gt_report_claimed_coverage(run, info, rows);
    for (size_t i = 0; i < rows_count; i++)
        fprintf(out, "%s%s", i ? "<br>" : "", rows[i].text);
    bool any = rows_count > 0;
    gt_run_counts counts[GT_GATE_COUNT + 1];
    gt_run_count(run, counts);
    size_t not_applicable = counts[GT_GATE_COUNT].not_applicable;
    fprintf(out, "%s</td></tr>\n<tr><th>not applicable</th><td>%zu case%s",
            any ? "" : "no required case in the claimed profiles", not_applicable, not_applicable == 1 ? "" : "s");
    if (not_applicable > 0) {
        char text[256];
        fprintf(out, " (%s)", gt_report_not_applicable_text(text, sizeof text, run));
    }
    fputs("</td></tr>\n<tr><th>skips by reason</th><td>", out);
    size_t reasons = 0;
    for (size_t i = 0; i < run->count; i++) {
        size_t count = gt_report_skip_group(run, i);
        if (count == 0)
            continue;
        if (reasons++ == GT_REPORT_CERT_SKIP_REASONS) {
            fputs("<br>… more reasons (see the skipped cases)", out);
            break;
        }
        fprintf(out, "%s%zu ", reasons > 1 ? "<br>" : "", count);
        code(out, run->results[i].note ? run->results[i].note : "");
    }
    fputs(reasons ? "</td></tr>\n" : "none</td></tr>\n", out);
}

static void certification(FILE *out, const gt_run *run, const gt_report_info *info)
{
    char name[256], version[128];
    gt_report_split_name(run->target_name, name, sizeof name, version, sizeof version);
    fputs("<h2>Certification</h2>\n<table>\n<tr><th>implementation</th><td>", out);
    code(out, name[0] ? name : run->target);
    fputs(" version ", out);
    if (version[0])
        code(out, version);
    else
        fputs("not reported", out);
    fputs("</td></tr>\n<tr><th>target</th><td>", out);
    code(out, run->target);
    fputs("</td></tr>\n<tr><th>corpus</th><td>" GT_CORPUS_FORMAT, out);
    if (info && info->corpus_version) {
        fputs(" version ", out);
        code(out, info->corpus_version);
    }
    if (info && info->corpus_sha256) {
        fputs(", sha256 ", out);
        code(out, info->corpus_sha256);
        fprintf(out, " (%zu cases, %zu selected)", info->corpus_cases, info->selected_cases);
    }
    char required[64], optional[64], verdict[256];
    gt_report_tier_rates(run, required, optional);
    bool certified = gt_report_certified(run, info, verdict, sizeof verdict);
    fprintf(out, "</td></tr>\n<tr><th>verdict</th><td class=\"%s\"><strong>", certified ? "cls" : "low");
    text(out, verdict);
    fprintf(out,
            "</strong></td></tr>\n<tr><th>required tier</th><td><strong>%s</strong> (" GT_REPORT_TIER_NOTE
            ")</td></tr>\n<tr><th>optional tier</th><td>%s",
            required, optional);
    gt_report_accounting_totals totals;
    gt_report_accounting_sum(run, &totals);
    fprintf(out,
            "</td></tr>\n<tr><th>attempt accounting</th><td>%zu cases: %zu matched, %zu mismatched, %zu not "
            "reported; attempts %ld / %ld, model calls %ld / %ld (expected / observed)%s</td></tr>\n",
            totals.cases, totals.matched, totals.mismatched, totals.missing, totals.expected[0], totals.observed[0],
            totals.expected[5], totals.observed[5],
            gt_report_figures_judged(run) ? ""
                                          : "; not judged (the target claims neither claude-code nor repair-loop)");
    certification_profiles(out, run, info);
    fputs("<tr><th>run</th><td>", out);
    text(out, run->started_at);
    fprintf(out, ", %u job%s, %.2f s, gauntlet " GAUNTLET_VERSION "</td></tr>\n<tr><th>reproduce</th><td>",
            run->jobs, run->jobs == 1 ? "" : "s", run->elapsed_ms / 1000.0);
    fputs("<code class=\"cmd\">", out);
    text(out, info && info->command ? info->command : "(command not recorded)");
    fputs("</code></td></tr>\n</table>\n", out);
}

static void baseline(FILE *out, const gt_baseline_diff *diff)
{
    if (diff == NULL)
        return;
    fputs("<h2>Baseline</h2>\n<p>Compared with ", out);
    code(out, diff->file);
    fprintf(out,
            ": <span class=\"regressed\">%zu regressed</span>, %zu fixed, %zu new, %zu now skipped (%zu baseline "
            "cases, %zu not run).</p>\n",
            diff->counts[GT_BASELINE_REGRESSED], diff->counts[GT_BASELINE_FIXED], diff->counts[GT_BASELINE_NEW],
            diff->counts[GT_BASELINE_NOW_SKIPPED], diff->baseline_cases, diff->not_run);
    if (diff->entry_count == 0)
        return;
    fputs("<table><tr><th>change</th><th>case</th><th>before</th><th>now</th></tr>\n", out);
    for (int kind = 0; kind < GT_BASELINE_KIND_COUNT; kind++)
        for (size_t i = 0; i < diff->entry_count; i++) {
            const gt_baseline_entry *entry = &diff->entries[i];
            if (entry->kind != (gt_baseline_kind)kind)
                continue;
            const char *name = gt_baseline_kind_name(entry->kind);
            fprintf(out, "<tr><td class=\"%s\">%s</td><td>", name, name);
            code(out, entry->id);
            fprintf(out, "</td><td>%s</td><td>%s</td></tr>\n",
                    entry->before < 0 ? "absent" : gt_outcome_name((gt_outcome)entry->before),
                    gt_outcome_name(entry->after));
        }
    fputs("</table>\n", out);
}

/* Expected and observed sums of each accounting figure, side by side: the
 * comparison at a glance before the per-case table. */
static void accounting_bars(FILE *out, const gt_run *run)
{
    gt_report_accounting_totals totals;
    gt_report_accounting_sum(run, &totals);
    long most = 1;
    for (size_t f = 0; f < 6; f++) {
        most = totals.expected[f] > most ? totals.expected[f] : most;
        most = totals.observed[f] > most ? totals.observed[f] : most;
    }
    const int label_width = 130, row_height = 30, bar = 300, width = label_width + bar + 150;
    fprintf(out,
            "<svg class=\"chart\" role=\"img\" aria-label=\"expected and observed accounting totals\" width=\"%d\" "
            "height=\"%d\" viewBox=\"0 0 %d %d\" font-size=\"12\" "
            "font-family=\"system-ui,sans-serif\">\n",
            width, 6 * row_height + 4, width, 6 * row_height + 4);
    for (size_t f = 0; f < 6; f++) {
        int y = 2 + (int)f * row_height;
        long want = totals.expected[f], got = totals.observed[f];
        fprintf(out, "<text x=\"0\" y=\"%d\">%s</text>", y + 16, gt_report_accounting_names[f]);
        fprintf(out,
                "<rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"11\" fill=\"#8a8a8a\"><title>expected: %ld</title></rect>"
                "<rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"11\" fill=\"%s\"><title>observed: %ld</title></rect>"
                "<text x=\"%d\" y=\"%d\">%ld / %ld</text>\n",
                label_width, y + 2, (double)bar * (double)want / (double)most, want, label_width, y + 14,
                (double)bar * (double)got / (double)most, want == got ? HTML_PASS_FILL : HTML_FAIL_FILL, got,
                label_width + bar + 8, y + 16, want, got);
    }
    fputs("</svg>\n<p>Totals over the cases that give each figure: grey expected, then observed (green when the "
          "sums agree).</p>\n",
          out);
}

static void accounting_table(FILE *out, const gt_run *run)
{
    static const char *const headers[6] = {"attempts used", "limit", "retracted", "enforce messages",
                                           "API attempts",  "model calls"};
    size_t rows = 0;
    for (size_t i = 0; i < run->count; i++)
        rows += gt_report_has_accounting(&run->results[i]);
    if (rows == 0)
        return;
    fputs("<h2>Attempt accounting</h2>\n", out);
    accounting_bars(out, run);
    fputs("<details><summary>Per case</summary>\n<p>expected / observed; – not given, ? not reported by the "
          "target.</p>\n<table><tr><th>case</th>",
          out);
    for (size_t f = 0; f < 6; f++)
        fprintf(out, "<th>%s</th>", headers[f]);
    fputs("</tr>\n", out);
    for (size_t i = 0; i < run->count; i++) {
        const gt_case_result *result = &run->results[i];
        if (!gt_report_has_accounting(result))
            continue;
        fputs("<tr><td>", out);
        code(out, result->kase->input.id);
        fputs("</td>", out);
        for (size_t f = 0; f < 6; f++) {
            int want = gt_report_accounting_figure(&result->kase->expect.accounting, f);
            int got = gt_report_accounting_figure(&result->observed.accounting, f);
            bool differs = gt_report_figure_differs(result, f);
            fprintf(out, "<td class=\"n%s\">", differs ? " diff" : "");
            if (want >= 0)
                fprintf(out, "%d", want);
            else
                fputs("–", out);
            fputs(" / ", out);
            if (!result->observed.has_accounting)
                fputs("?", out);
            else if (got >= 0)
                fprintf(out, "%d", got);
            else
                fputs("–", out);
            fputs("</td>", out);
        }
        fputs("</tr>\n", out);
    }
    fputs("</table>\n</details>\n", out);
}

static void expected_errors(FILE *out, const gt_expect *expect)
{
    if (!expect->errors_given) {
        fputs("(not asserted)", out);
        return;
    }
    if (expect->error_count == 0)
        fputs("none", out);
    for (size_t i = 0; i < expect->error_count; i++) {
        fputs(i ? "<br>" : "", out);
        code(out, expect->errors[i].keyword);
        fputs(" at ", out);
        code(out, expect->errors[i].path);
    }
}

static void observed_errors(FILE *out, const gt_observed *observed)
{
    if (observed->error_count == 0)
        fputs("none", out);
    for (size_t i = 0; i < observed->error_count; i++) {
        fputs(i ? "<br>" : "", out);
        code(out, observed->errors[i].keyword);
        fputs(" at ", out);
        code(out, observed->errors[i].path);
        if (observed->errors[i].message) {
            fputs(": ", out);
            text(out, observed->errors[i].message);
        }
    }
}

static void compare_row(FILE *out, const char *label, const char *want, const char *got)
{
    bool differs = want != NULL && (got == NULL || strcmp(want, got) != 0);
    fprintf(out, "<tr><th>%s</th><td>", label);
    code(out, want);
    fprintf(out, "</td><td%s>", differs ? " class=\"diff\"" : "");
    code(out, got);
    fputs("</td></tr>\n", out);
}

/* <dt>label</dt><dd> each item as code </dd>, or nothing for an empty list. */
static void code_list(FILE *out, const char *label, const char *const *items, size_t count)
{
    if (count == 0)
        return;
    fprintf(out, "<dt>%s</dt><dd>", label);
    for (size_t i = 0; i < count; i++) {
        fputs(i ? " " : "", out);
        code(out, items[i]);
    }
    fputs("</dd>", out);
}

/* What the reason menu matches: a skip's note (why it was skipped), else the
 * reason code the target gave. Never NULL. */
static const char *filter_reason(const gt_case_result *result)
{
    const char *reason = result->outcome == GT_OUTCOME_SKIP ? result->note : result->observed.reason;
    return reason ? reason : "";
}

static void case_section(FILE *out, const gt_case_result *result, size_t index)
{
    const gt_case *kase = result->kase;
    const gt_observed *observed = &result->observed;
    const char *outcome = gt_outcome_name(result->outcome);
    gt_class verdict_class = gt_case_result_class(result);
    fprintf(out, "<section class=\"case o-%s\" id=\"case-%zu\" data-outcome=\"%s\" data-class=\"%s\" data-gate=\"",
            outcome, index, outcome, gt_class_name(verdict_class));
    text(out, kase->input.gate ? kase->input.gate : "");
    fputs("\" data-reason=\"", out);
    text(out, filter_reason(result));
    fprintf(out, "\">\n<h3><span class=\"%s\">%s</span> ", outcome, outcome);
    if (verdict_class != GT_CLASS_SKIP && verdict_class != GT_CLASS_ERROR && verdict_class != GT_CLASS_PASS)
        fprintf(out, "<span class=\"cls\">%s</span> ", gt_class_name(verdict_class));
    code(out, kase->input.id);
    fputs("</h3>\n<dl><dt>note</dt><dd>", out);
    text(out, result->note ? result->note : "");
    fputs("</dd><dt>file</dt><dd>", out);
    code(out, kase->file);
    fprintf(out, " line %u</dd><dt>gate</dt><dd>", kase->line);
    code(out, kase->input.gate);
    fputs(" / ", out);
    code(out, kase->category);
    fputs("</dd>", out);
    code_list(out, "tags", kase->tags, kase->tag_count);
    fprintf(out, "<dt>tier</dt><dd>%s</dd>", gt_tier_name(kase->tier));
    code_list(out, "rules", kase->rules, kase->rule_count);
    code_list(out, "reported in", kase->sources, kase->source_count);
    if (kase->description) {
        fputs("<dt>description</dt><dd>", out);
        text(out, kase->description);
        fputs("</dd>", out);
    }
    fprintf(out, "<dt>time</dt><dd>%.3f ms</dd></dl>\n", result->elapsed_ms);

    fputs("<table><tr><th></th><th>expected</th><th>observed</th></tr>\n", out);
    compare_row(out, "verdict", gt_report_verdict_text(kase->expect.verdict),
                gt_report_verdict_text(observed->verdict));
    compare_row(out, "gate", kase->expect.gate, observed->gate);
    compare_row(out, "reason", kase->expect.reason, observed->reason);
    if (kase->expect.subtype || observed->subtype)
        compare_row(out, "subtype", kase->expect.subtype, observed->subtype);
    fputs("<tr><th>errors</th><td>", out);
    expected_errors(out, &kase->expect);
    fputs("</td><td>", out);
    observed_errors(out, observed);
    fputs("</td></tr>\n<tr><th>message</th><td></td><td>", out);
    text(out, observed->message ? observed->message : "");
    fputs("</td></tr>\n<tr><th>gates</th><td></td><td>", out);
    for (int gate = 0; gate < GT_GATE_COUNT; gate++) {
        gt_gate_status status = observed->gates[gate];
        if (status == GT_GATE_NOT_RUN)
            continue;
        fprintf(out, "%s <span class=\"%s\">%s</span>; ", gt_gate_name((gt_gate)gate),
                status == GT_GATE_PASSED ? "pass" : "fail", status == GT_GATE_PASSED ? "passed" : "failed");
    }
    fputs("</td></tr>\n", out);
    if (kase->expect.output_json || observed->output_json) {
        fputs("<tr><th>output</th><td><pre>", out);
        text(out, kase->expect.output_json ? kase->expect.output_json : "");
        fputs("</pre></td><td><pre>", out);
        text(out, observed->output_json ? observed->output_json : "");
        fputs("</pre></td></tr>\n", out);
    }
    fputs("</table>\n", out);

    if (kase->input.raw != NULL) {
        size_t shown = kase->input.raw_len < GT_REPORT_HTML_MAX_INPUT ? kase->input.raw_len : GT_REPORT_HTML_MAX_INPUT;
        fprintf(out, "<p>raw input, %zu bytes (invisible bytes marked):</p>\n<pre class=\"raw\">", kase->input.raw_len);
        gt_report_visible(out, kase->input.raw, shown, true);
        if (shown < kase->input.raw_len)
            fprintf(out, "\n… %zu more bytes", kase->input.raw_len - shown);
        fputs("</pre>\n", out);
    }
    if (observed->transcript != NULL) {
        fputs("<p>transcript:</p>\n<pre class=\"transcript\">", out);
        text(out, observed->transcript);
        fputs("</pre>\n", out);
    }
    fputs("</section>\n", out);
}

/* The lists of cases that are not plain passes, in page order: the failure
 * groups (unsafe first), then the other-reason passes, then the skips. */
enum { LIST_OTHER_PASS = GT_REPORT_FAILURE_GROUPS, LIST_SKIP, LIST_COUNT };
/* Gate slots of a list: each gate, then GT_GATE_COUNT for a gate we do not know. */
#define GATE_SLOTS (GT_GATE_COUNT + 1)

static bool in_list(const gt_case_result *result, int list)
{
    if (list < GT_REPORT_FAILURE_GROUPS)
        return gt_report_in_failure_group(result, gt_report_failure_groups[list]);
    if (list == LIST_OTHER_PASS)
        return gt_report_other_reason_pass(result);
    return result->outcome == GT_OUTCOME_SKIP;
}

static bool listed(const gt_case_result *result)
{
    for (int list = 0; list < LIST_COUNT; list++)
        if (in_list(result, list))
            return true;
    return false;
}

/* The part of a group's element id that names the list (ours, no escaping). */
static const char *list_id(int list)
{
    if (list < GT_REPORT_FAILURE_GROUPS)
        return gt_class_name(gt_report_failure_groups[list]);
    return list == LIST_OTHER_PASS ? "other_reason_pass" : "skip";
}

static int gate_slot(const gt_case_result *result)
{
    int gate = gt_gate_from_name(result->kase->input.gate);
    return gate < 0 ? GT_GATE_COUNT : gate;
}

static const char *slot_name(int slot)
{
    return slot == GT_GATE_COUNT ? "other" : gt_gate_name((gt_gate)slot);
}

static int compare_strings(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* <option>s for the distinct non-empty values of `value_of` over the listed
 * cases, sorted, at most GT_REPORT_HTML_MAX_OPTIONS (the rest counted). */
static void value_options(FILE *out, const gt_run *run, const char *(*value_of)(const gt_case_result *))
{
    const char **values = malloc((run->count + 1) * sizeof *values);
    if (values == NULL)
        return;
    size_t count = 0;
    for (size_t i = 0; i < run->count; i++) {
        const char *value = listed(&run->results[i]) ? value_of(&run->results[i]) : NULL;
        if (value != NULL && value[0] != '\0')
            values[count++] = value;
    }
    qsort(values, count, sizeof *values, compare_strings);
    size_t distinct = 0;
    for (size_t i = 0; i < count; i++) {
        if (i > 0 && strcmp(values[i], values[i - 1]) == 0)
            continue;
        if (distinct++ >= GT_REPORT_HTML_MAX_OPTIONS)
            continue;
        fputs("<option value=\"", out);
        text(out, values[i]);
        fputs("\">", out);
        text(out, values[i]);
        fputs("</option>", out);
    }
    if (distinct > GT_REPORT_HTML_MAX_OPTIONS)
        fprintf(out, "<option value=\"\" disabled>… %zu more (use the text filter)</option>",
                distinct - GT_REPORT_HTML_MAX_OPTIONS);
    free(values);
}

static const char *case_gate(const gt_case_result *result)
{
    return result->kase->input.gate;
}

/* The filter's controls, hidden until the script shows them (scripts off,
 * the page has no dead controls). Values are matched, never interpreted. */
static void filter_controls(FILE *out, const gt_run *run)
{
    fputs("<div id=\"gt-filter\" hidden>\n<label>gate <select id=\"gt-f-gate\"><option value=\"\">any</option>", out);
    value_options(out, run, case_gate);
    fputs("</select></label>\n<label>outcome <select id=\"gt-f-outcome\"><option value=\"\">any</option>", out);
    static const gt_outcome outcomes[] = {GT_OUTCOME_FAIL, GT_OUTCOME_ERROR, GT_OUTCOME_SKIP, GT_OUTCOME_PASS};
    for (size_t o = 0; o < sizeof outcomes / sizeof outcomes[0]; o++)
        fprintf(out, "<option value=\"%s\">%s</option>", gt_outcome_name(outcomes[o]), gt_outcome_name(outcomes[o]));
    fputs("</select></label>\n<label>class <select id=\"gt-f-class\"><option value=\"\">any</option>", out);
    static const gt_class classes[] = {GT_CLASS_UNSAFE,       GT_CLASS_REFUSED_VALID, GT_CLASS_FIGURES,
                                       GT_CLASS_OTHER_REASON, GT_CLASS_ERROR,         GT_CLASS_SKIP};
    for (size_t c = 0; c < sizeof classes / sizeof classes[0]; c++)
        fprintf(out, "<option value=\"%s\">%s</option>", gt_class_name(classes[c]), gt_class_name(classes[c]));
    fputs("</select></label>\n<label>reason <select id=\"gt-f-reason\"><option value=\"\">any</option>", out);
    value_options(out, run, filter_reason);
    fputs("</select></label>\n<label>text <input id=\"gt-f-q\" type=\"search\" size=\"24\" "
          "placeholder=\"id, note, message…\"></label>\n<span id=\"gt-f-shown\"></span>\n</div>\n",
          out);
}

/* One <details> per gate of `list` with its count; open for unsafe. */
static void list_groups(FILE *out, const gt_run *run, const gt_report_info *info, int list,
                        const size_t members[GATE_SLOTS])
{
    for (int slot = 0; slot < GATE_SLOTS; slot++) {
        if (members[slot] == 0)
            continue;
        fprintf(out, "<details class=\"cases\" id=\"g-%s-%s\"%s><summary>%s (%zu)</summary>\n", list_id(list),
                slot_name(slot), list == 0 ? " open" : "", slot_name(slot), members[slot]);
        for (size_t i = 0; i < run->count; i++)
            if (in_list(&run->results[i], list) && gate_slot(&run->results[i]) == slot)
                case_section(out, &run->results[i], gt_report_case_index(info, i));
        fputs("</details>\n", out);
    }
}

/* The index: one line per list, its count and a link to each gate group. */
static void list_index(FILE *out, const size_t members[LIST_COUNT][GATE_SLOTS], const size_t sizes[LIST_COUNT])
{
    fputs("<ul class=\"index\">\n", out);
    for (int list = 0; list < LIST_COUNT; list++) {
        if (sizes[list] == 0)
            continue;
        const char *label = list < GT_REPORT_FAILURE_GROUPS ? gt_class_name(gt_report_failure_groups[list])
                            : list == LIST_OTHER_PASS       ? "other-reason passes"
                                                            : "skipped";
        fprintf(out, "<li><a href=\"#g-%s\" class=\"%s\">%s</a> %zu:", list_id(list),
                list < GT_REPORT_FAILURE_GROUPS ? (gt_report_failure_groups[list] == GT_CLASS_ERROR ? "error" : "fail")
                                                : "n",
                label, sizes[list]);
        const char *separator = " ";
        for (int slot = 0; slot < GATE_SLOTS; slot++) {
            if (members[list][slot] == 0)
                continue;
            fprintf(out, "%s<a href=\"#g-%s-%s\">%s %zu</a>", separator, list_id(list), slot_name(slot),
                    slot_name(slot), members[list][slot]);
            separator = ", ";
        }
        fputs("</li>\n", out);
    }
    fputs("</ul>\n", out);
}

/* Every case that did not pass, right after the summary: the failure groups
 * (unsafe open, the others folded per gate), then the other-reason passes
 * and the skips folded, the index and the filter above them. */
static void case_lists(FILE *out, const gt_run *run, const gt_report_info *info, const gt_run_counts *total)
{
    size_t members[LIST_COUNT][GATE_SLOTS] = {{0}}, sizes[LIST_COUNT] = {0};
    for (size_t i = 0; i < run->count; i++)
        for (int list = 0; list < LIST_COUNT; list++)
            if (in_list(&run->results[i], list)) {
                members[list][gate_slot(&run->results[i])]++;
                sizes[list]++;
            }
    size_t not_passed = total->fail + total->error + total->skip;
    fprintf(out, "<h2 id=\"not-passed\">Cases that did not pass (%zu)</h2>\n", not_passed);
    if (not_passed == 0)
        fputs("<p>Every case passed.</p>\n", out);
    bool any = false;
    for (int list = 0; list < LIST_COUNT; list++)
        any = any || sizes[list] > 0;
    if (!any)
        return;
    list_index(out, members, sizes);
    filter_controls(out, run);
    fputs("<div id=\"gt-cases\">\n", out);
    for (int list = 0; list < GT_REPORT_FAILURE_GROUPS; list++) {
        if (sizes[list] == 0)
            continue;
        gt_class group = gt_report_failure_groups[list];
        fprintf(out,
                "<div class=\"klass\" id=\"g-%s\">\n<h3 class=\"group\"><span class=\"%s\">%s</span> (%zu): %s</h3>\n",
                list_id(list), group == GT_CLASS_ERROR ? "error" : "fail", gt_class_name(group), sizes[list],
                gt_report_class_meaning(group));
        list_groups(out, run, info, list, members[list]);
        fputs("</div>\n", out);
    }
    if (sizes[LIST_OTHER_PASS] > 0) {
        fprintf(out,
                "<div class=\"klass\" id=\"g-%s\">\n<details class=\"cases\"><summary>%zu right verdict, other "
                "reason — a pass unless reasons is claimed</summary>\n",
                list_id(LIST_OTHER_PASS), sizes[LIST_OTHER_PASS]);
        list_groups(out, run, info, LIST_OTHER_PASS, members[LIST_OTHER_PASS]);
        fputs("</details>\n</div>\n", out);
    }
    if (sizes[LIST_SKIP] > 0) {
        fprintf(out,
                "<div class=\"klass\" id=\"g-%s\">\n<details class=\"cases\"><summary>%zu skipped case%s</summary>\n",
                list_id(LIST_SKIP), sizes[LIST_SKIP], sizes[LIST_SKIP] == 1 ? "" : "s");
        list_groups(out, run, info, LIST_SKIP, members[LIST_SKIP]);
        fputs("</details>\n</div>\n", out);
    }
    fputs("</div>\n", out);
}

int gt_report_html_page(FILE *out, const gt_run *run, const gt_report_info *info, bool csp)
{
    gt_run_counts counts[GT_GATE_COUNT + 1];
    gt_run_count(run, counts);
    const gt_run_counts *total = &counts[GT_GATE_COUNT];
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n", out);
    if (csp) {
        fputs("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; ", out);
        script_src(out);
        fputs("; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'\">\n", out);
    }
    fprintf(out, "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>gauntlet: %zu "
                 "passed, %zu failed, %zu skipped</title>\n<style>%s</style>\n</head>\n<body>\n",
            total->pass, total->fail + total->error, total->skip, page_style);
    fputs("<h1>gauntlet report</h1>\n<p>", out);
    fprintf(out, "<strong>%zu passed, %zu failed, %zu skipped</strong> of %zu cases against ", total->pass,
            total->fail + total->error, total->skip, total->cases);
    code(out, run->target_name ? run->target_name : run->target);
    fputs(".</p>\n", out);
    summary_verdicts(out, run, info, total);

    gate_bars(out, counts);

    case_lists(out, run, info, total);

    outcome_matrix(out, run, counts);
    gate_matrix(out, run, counts);
    baseline(out, info ? info->baseline : NULL);
    accounting_table(out, run);
    certification(out, run, info);

    size_t problems = gt_report_problem_count(run, info);
    if (problems > 0) {
        fprintf(out, "<h2>Corpus problems (%zu)</h2>\n<table><tr><th>file</th><th>line</th><th>field</th>"
                     "<th>message</th></tr>\n",
                problems);
        for (size_t i = 0; i < problems; i++) {
            const gt_load_problem *problem = gt_report_problem(run, info, i);
            fputs("<tr><td>", out);
            code(out, problem->file);
            fprintf(out, "</td><td class=\"n\">%u</td><td>", problem->line);
            code(out, problem->field);
            fputs("</td><td>", out);
            text(out, problem->message);
            fputs("</td></tr>\n", out);
        }
        fputs("</table>\n", out);
    }
    fprintf(out, "<script>%s</script>\n</body>\n</html>\n", filter_script);
    fflush(out);
    return ferror(out) ? -1 : 0;
}

int gt_report_html(FILE *out, const gt_run *run, const gt_report_info *info)
{
    return gt_report_html_page(out, run, info, true);
}
