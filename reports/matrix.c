/* matrix.c — the implementations matrix as JSON, Markdown and HTML.
 *
 * Input: one gt_run per implementation over the same selection (or none when
 * the implementation could not run). Output: a summary row per
 * implementation, a case x implementation grid grouped by gate and category,
 * and per implementation its deviations in order of concern (unsafe, then
 * fail-closed but different, then harness limits) with the evidence.
 * Everything the clients said (notes, envelopes, versions) is untrusted and
 * escaped for the format; only the hand-written notes are copied as Markdown.
 * The HTML page holds no script and carries the same Content-Security-Policy
 * as the run report; the observation of a cell is one click away in a
 * <details>. Not for: running anything (runner/cli/cmd_matrix.c). */
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "gauntlet/runner/matrix.h"
#include "report_util.h"

/* A gate with more selected cases than this is summarised per category in
 * the Markdown grid (the HTML page always lists every case). */
#define MATRIX_MD_MAX_ROWS_PER_GATE 120

const gt_case_result *gt_matrix_cell(const gt_matrix_column *column, size_t index)
{
    return column->run != NULL && index < column->run->count ? &column->run->results[index] : NULL;
}

gt_matrix_kind gt_matrix_classify(const gt_case_result *result)
{
    return result == NULL ? GT_MATRIX_NOT_RUN : (gt_matrix_kind)gt_case_result_class(result);
}

/* Per kind: the JSON name, the Markdown mark, the HTML mark, and the legend. */
static const struct kind_info {
    const char *name, *md, *html, *legend;
} kinds[GT_MATRIX_KIND_COUNT] = {
    [GT_MATRIX_AGREES] = {"agrees", "✓", "✓", "pass: same verdict, object and figures as the reference"},
    [GT_MATRIX_UNSAFE] = {"unsafe", "**✗!**", "✗!",
                          "unsafe: accepted what must be refused, or returned an object the reference would not "
                          "return as an object (coerced, partial, a refusal's, retracted, another call's)"},
    [GT_MATRIX_REFUSED_VALID] = {"refused_valid", "✗", "✗", "refused valid: refused what the reference accepts"},
    [GT_MATRIX_FIGURES] = {"figures", "≠", "≠",
                           "figures: the verdict is right; attempts, accounting or subtype differ (judged only for "
                           "implementations that claim repair-loop or claude-code for the case); or the verdict "
                           "differs but the object is the complete, valid answer of the turn served last (another "
                           "budget or design, never unsafe)"},
    [GT_MATRIX_OTHER_REASON] = {"other_reason", "≈", "≈",
                                "other reason: verdict and gate right, another reason code or wording (a failure "
                                "only for an implementation that claims reasons)"},
    [GT_MATRIX_ERROR] = {"error", "E", "E",
                         "error: no verdict (crash, timeout, no envelope, or a wrapper limit such as a schema the "
                         "harness cannot convert faithfully)"},
    [GT_MATRIX_SKIP] = {"skip", "–", "–",
                        "skip: the case cannot be expressed for this client (docs/mock-server.md \"Inexpressible "
                        "turns\")"},
    [GT_MATRIX_NOT_APPLICABLE] = {"not_applicable", "n/a", "n/a",
                                  "not applicable: the case belongs to no profile the implementation claims; never "
                                  "sent, in no rate"},
    [GT_MATRIX_NOT_RUN] = {"not_run", "·", "·", "the implementation could not run at all"},
};

const char *gt_matrix_kind_name(gt_matrix_kind kind)
{
    return kind < GT_MATRIX_KIND_COUNT ? kinds[kind].name : "not_run";
}

static const char *kind_name(gt_matrix_kind kind)
{
    return gt_matrix_kind_name(kind);
}

/* The profiles a column was judged on, comma-separated. */
static const char *column_profiles(const gt_matrix_column *column, char *out, size_t out_len)
{
    if (column->run == NULL) {
        snprintf(out, out_len, "%s", "");
        return out;
    }
    return gt_profiles_format(gt_run_claims(column->run), ",", out, out_len);
}

static const char *cell_outcome(const gt_case_result *result)
{
    return result ? gt_outcome_name(result->outcome) : "not_run";
}

static const char *verdict_name(gt_verdict verdict)
{
    return verdict == GT_VERDICT_ACCEPT ? "accept" : verdict == GT_VERDICT_REJECT ? "reject" : NULL;
}

/* Per-column figures. */
typedef struct column_stats {
    gt_run_counts gates[GT_GATE_COUNT + 1];
    gt_run_counts tiers[GT_TIER_COUNT];
    size_t played; /* cases with a verdict (pass or fail) */
    size_t kinds[GT_MATRIX_KIND_COUNT];
} column_stats;

static void stats_of(const gt_matrix *matrix, const gt_matrix_column *column, column_stats *stats)
{
    memset(stats, 0, sizeof *stats);
    if (column->run != NULL) {
        gt_run_count(column->run, stats->gates);
        gt_run_count_tiers(column->run, stats->tiers);
    }
    size_t count = gt_corpus_count(matrix->corpus);
    for (size_t i = 0; i < count; i++) {
        const gt_case_result *result = gt_matrix_cell(column, i);
        stats->kinds[gt_matrix_classify(result)]++;
        if (result && (result->outcome == GT_OUTCOME_PASS || result->outcome == GT_OUTCOME_FAIL))
            stats->played++;
    }
}

/* Gates that have cases in the selection, in pipeline order. */
static bool gate_selected(const gt_matrix *matrix, gt_gate gate)
{
    for (size_t i = 0; i < gt_corpus_count(matrix->corpus); i++)
        if (gt_gate_from_name(gt_corpus_case(matrix->corpus, i)->input.gate) == (int)gate)
            return true;
    return false;
}

static const char *expect_text(const gt_case *kase)
{
    return kase->expect.verdict == GT_VERDICT_ACCEPT ? "accept" : "reject";
}

/* ---- the field section ------------------------------------------------------ */

static const char *const field_status_names[] = {
    [GT_MATRIX_FIELD_STILL] = "still_has_it",
    [GT_MATRIX_FIELD_NOT_REPRODUCED] = "not_reproduced",
    [GT_MATRIX_FIELD_NOT_APPLICABLE] = "not_applicable",
    [GT_MATRIX_FIELD_NOT_EXPRESSIBLE] = "not_expressible",
    [GT_MATRIX_FIELD_NO_VERDICT] = "no_verdict",
    [GT_MATRIX_FIELD_NOT_RUN] = "not_run",
};

const char *gt_matrix_field_status_name(gt_matrix_field_status status)
{
    return status <= GT_MATRIX_FIELD_NOT_RUN ? field_status_names[status] : "not_run";
}

bool gt_matrix_source_in_repos(const char *source, const char *repos, char *thread, size_t thread_len)
{
    size_t repo_len = gt_case_source_thread(source, thread, thread_len);
    for (const char *item = repos; repo_len > 0 && item != NULL && *item;) {
        const char *end = strchr(item, ',');
        size_t len = end ? (size_t)(end - item) : strlen(item);
        if (len == repo_len && strncasecmp(item, thread, len) == 0)
            return true; /* GitHub names are case-insensitive */
        item = end ? end + 1 : NULL;
    }
    return false;
}

/* One entry of a column's field section: case `index`, its source line. */
typedef struct field_entry {
    size_t index;
    const char *source;
    char thread[160];
} field_entry;

/* The column's field entries in case order (malloc'd; *count of them), or
 * NULL when it names no repos or out of memory. */
static field_entry *field_entries(const gt_matrix *matrix, const gt_matrix_column *column, size_t *count)
{
    *count = 0;
    if (column->repos == NULL)
        return NULL;
    size_t cases = gt_corpus_count(matrix->corpus), room = 0;
    for (size_t i = 0; i < cases; i++)
        room += gt_corpus_case(matrix->corpus, i)->source_count;
    field_entry *entries = malloc((room ? room : 1) * sizeof *entries);
    for (size_t i = 0; entries != NULL && i < cases; i++) {
        const gt_case *kase = gt_corpus_case(matrix->corpus, i);
        for (size_t s = 0; s < kase->source_count; s++) {
            field_entry *entry = &entries[*count];
            if (gt_matrix_source_in_repos(kase->sources[s], column->repos, entry->thread, sizeof entry->thread)) {
                entry->index = i;
                entry->source = kase->sources[s];
                (*count)++;
            }
        }
    }
    return entries;
}

static gt_matrix_field_status field_status(const gt_case_result *result)
{
    if (result == NULL)
        return GT_MATRIX_FIELD_NOT_RUN;
    switch (result->outcome) {
    case GT_OUTCOME_FAIL: return GT_MATRIX_FIELD_STILL;
    case GT_OUTCOME_PASS: return GT_MATRIX_FIELD_NOT_REPRODUCED;
    case GT_OUTCOME_NOT_APPLICABLE: return GT_MATRIX_FIELD_NOT_APPLICABLE;
    case GT_OUTCOME_SKIP: return GT_MATRIX_FIELD_NOT_EXPRESSIBLE;
    case GT_OUTCOME_ERROR: break;
    }
    return GT_MATRIX_FIELD_NO_VERDICT;
}

/* The case's outcome in --previous, or -1. */
static int previous_outcome(const gt_matrix_column *column, size_t index)
{
    return column->previous_outcomes != NULL ? column->previous_outcomes[index] : -1;
}

/* "fixed" (failed in the previous version, passes now), "new" (the other
 * way), or NULL: nothing changed, no previous cell, or the same version. */
static const char *field_change(const gt_matrix_column *column, size_t index)
{
    int before = previous_outcome(column, index);
    const gt_case_result *result = gt_matrix_cell(column, index);
    if (before < 0 || result == NULL || column->previous_version == NULL ||
        (column->version != NULL && strcmp(column->version, column->previous_version) == 0))
        return NULL;
    if (before == GT_OUTCOME_FAIL && result->outcome == GT_OUTCOME_PASS)
        return "fixed";
    if (before == GT_OUTCOME_PASS && result->outcome == GT_OUTCOME_FAIL)
        return "new";
    return NULL;
}

/* What the entry says, as plain text (the writers escape it). */
static void field_text(const gt_matrix_column *column, const field_entry *entry, char *out, size_t out_len)
{
    const gt_case_result *result = gt_matrix_cell(column, entry->index);
    const char *version = column->version ? column->version : "?";
    const char *note = result && result->note ? result->note : "(no note)";
    int n;
    switch (field_status(result)) {
    case GT_MATRIX_FIELD_STILL: n = snprintf(out, out_len, "still has it in %s: %s", version, note); break;
    case GT_MATRIX_FIELD_NOT_REPRODUCED: n = snprintf(out, out_len, "not reproduced in %s", version); break;
    case GT_MATRIX_FIELD_NOT_APPLICABLE:
        n = snprintf(out, out_len, "not applicable: outside the profiles it claims");
        break;
    case GT_MATRIX_FIELD_NOT_EXPRESSIBLE:
        n = snprintf(out, out_len, "not expressible for this client: %s", note);
        break;
    case GT_MATRIX_FIELD_NO_VERDICT: n = snprintf(out, out_len, "no verdict (error): %s", note); break;
    default: n = snprintf(out, out_len, "not run: the implementation could not run"); break;
    }
    const char *change = field_change(column, entry->index);
    if (change != NULL && n >= 0 && (size_t)n < out_len)
        snprintf(out + n, out_len - (size_t)n, "; %s since %s", change, column->previous_version);
}

/* ---- JSON ------------------------------------------------------------------ */

static void json_counts(FILE *out, const gt_run_counts *row)
{
    fprintf(out, "{\"cases\": %zu, \"pass\": %zu, \"fail\": %zu, \"error\": %zu, \"skip\": %zu}", row->cases,
            row->pass, row->fail, row->error, row->skip);
}

static void json_member(FILE *out, const char *key, const char *value, bool comma)
{
    fprintf(out, "%s\"%s\": ", comma ? ", " : "", key);
    gt_report_json_string(out, value);
}

/* A red cell: one that needs a label (docs/matrix-labels.md). */
static bool needs_label(gt_matrix_kind kind)
{
    return kind == GT_MATRIX_UNSAFE || kind == GT_MATRIX_REFUSED_VALID || kind == GT_MATRIX_FIGURES ||
           kind == GT_MATRIX_ERROR;
}

/* A cell a label may name: a red one, or another reason or a skip. */
static bool may_be_labelled(gt_matrix_kind kind)
{
    return needs_label(kind) || kind == GT_MATRIX_OTHER_REASON || kind == GT_MATRIX_SKIP;
}

static const gt_matrix_label *cell_label(const gt_matrix *matrix, const gt_matrix_column *column, size_t index)
{
    return gt_matrix_labels_find(column->labels, gt_corpus_case(matrix->corpus, index)->input.id);
}

/* Per label of a column (and one more slot, [count], for the unlabelled):
 * its red cells by kind in this run. */
typedef struct label_tally {
    size_t cells, kinds[GT_MATRIX_KIND_COUNT];
} label_tally;

static label_tally *label_tallies(const gt_matrix *matrix, const gt_matrix_column *column)
{
    size_t labels = column->labels ? column->labels->count : 0;
    label_tally *tally = calloc(labels + 1, sizeof *tally);
    if (tally == NULL)
        return NULL;
    for (size_t i = 0; i < gt_corpus_count(matrix->corpus); i++) {
        gt_matrix_kind kind = gt_matrix_classify(gt_matrix_cell(column, i));
        const gt_matrix_label *label = cell_label(matrix, column, i);
        if (!needs_label(kind) && !(label && may_be_labelled(kind)))
            continue;
        label_tally *row = label ? &tally[label - column->labels->items] : &tally[labels];
        row->cells++;
        row->kinds[kind]++;
    }
    return tally;
}

/* "N (M cells)": the column's true-defect labels with a red cell in this
 * run and those cells; "–" when the column has no labels file. */
static void defect_summary(const gt_matrix *matrix, const gt_matrix_column *column, char *out, size_t out_len)
{
    snprintf(out, out_len, "–");
    if (column->labels == NULL || column->run == NULL)
        return;
    label_tally *tally = label_tallies(matrix, column);
    size_t labels = 0, cells = 0;
    for (size_t l = 0; tally && l < column->labels->count; l++)
        if (column->labels->items[l].kind == GT_MATRIX_LABEL_DEFECT && tally[l].cells > 0)
            labels++, cells += tally[l].cells;
    if (tally)
        snprintf(out, out_len, "%zu (%zu cell%s)", labels, cells, cells == 1 ? "" : "s");
    free(tally);
}

/* The labelled case ids whose cell in this run is no cell a label may name
 * (it passes, is not applicable, or is not in the selection): the label is
 * stale for them. Calls `each` with the id and the cell (NULL: not selected). */
typedef struct stale_sink {
    FILE *out;
    size_t count;
} stale_sink;

static void stale_labels(const gt_matrix *matrix, const gt_matrix_column *column,
                         void (*each)(stale_sink *, const char *, const char *), stale_sink *sink)
{
    if (column->labels == NULL || column->run == NULL)
        return;
    size_t count = gt_corpus_count(matrix->corpus);
    for (size_t l = 0; l < column->labels->case_count; l++) {
        const char *id = column->labels->cases[l].id;
        const char *why = "not in this selection";
        for (size_t i = 0; i < count; i++)
            if (strcmp(gt_corpus_case(matrix->corpus, i)->input.id, id) == 0) {
                gt_matrix_kind kind = gt_matrix_classify(gt_matrix_cell(column, i));
                why = may_be_labelled(kind) ? NULL : kind_name(kind);
                break;
            }
        if (why != NULL) {
            each(sink, id, why);
            sink->count++;
        }
    }
}

static void json_stale(stale_sink *sink, const char *id, const char *why)
{
    fputs(sink->count ? ", {" : "{", sink->out);
    json_member(sink->out, "case", id, false);
    json_member(sink->out, "cell", why, true);
    fputc('}', sink->out);
}

/* The column's "labels" members: the file's text (for --merge) and per label
 * its red cells in this run; "unlabelled" lists the red cells no label names. */
static void json_labels(FILE *out, const gt_matrix *matrix, const gt_matrix_column *column)
{
    json_member(out, "labels_text", column->labels_text, true);
    char defects[64];
    defect_summary(matrix, column, defects, sizeof defects);
    json_member(out, "true_defects", column->labels ? defects : NULL, true);
    label_tally *tally = label_tallies(matrix, column);
    size_t labels = column->labels ? column->labels->count : 0;
    fputs(", \"labels\": [", out);
    for (size_t l = 0; tally && l < labels; l++) {
        const gt_matrix_label *label = &column->labels->items[l];
        fputs(l ? ", {" : "{", out);
        json_member(out, "id", label->id, false);
        json_member(out, "kind", gt_matrix_label_kind_name(label->kind), true);
        json_member(out, "title", label->title, true);
        fprintf(out, ", \"cells\": %zu}", tally[l].cells);
    }
    fputs("], \"unlabelled\": [", out);
    bool first = true;
    for (size_t i = 0; column->run && i < gt_corpus_count(matrix->corpus); i++)
        if (needs_label(gt_matrix_classify(gt_matrix_cell(column, i))) && cell_label(matrix, column, i) == NULL) {
            fputs(first ? "" : ", ", out);
            gt_report_json_string(out, gt_corpus_case(matrix->corpus, i)->input.id);
            first = false;
        }
    fputs("], \"stale_labels\": [", out);
    stale_sink sink = {out, 0};
    stale_labels(matrix, column, json_stale, &sink);
    fputc(']', out);
    free(tally);
}

/* The column's "field" member: its field entries, or null without repos. */
static void json_field(FILE *out, const gt_matrix *matrix, const gt_matrix_column *column)
{
    size_t count;
    field_entry *entries = field_entries(matrix, column, &count);
    fputs(", \"field\": ", out);
    if (entries == NULL) {
        fputs("null", out);
        return;
    }
    fputc('[', out);
    for (size_t e = 0; e < count; e++) {
        const field_entry *entry = &entries[e];
        int before = previous_outcome(column, entry->index);
        fputs(e ? ", {" : "{", out);
        json_member(out, "thread", entry->thread, false);
        json_member(out, "source", entry->source, true);
        json_member(out, "case", gt_corpus_case(matrix->corpus, entry->index)->input.id, true);
        json_member(out, "status", gt_matrix_field_status_name(field_status(gt_matrix_cell(column, entry->index))),
                    true);
        json_member(out, "previous", before >= 0 ? gt_outcome_name((gt_outcome)before) : NULL, true);
        json_member(out, "change", field_change(column, entry->index), true);
        fputc('}', out);
    }
    fputc(']', out);
    free(entries);
}

int gt_matrix_json(FILE *out, const gt_matrix *matrix)
{
    size_t count = gt_corpus_count(matrix->corpus);
    fprintf(out, "{\"format\": \"%s\", \"merge_version\": %d", GT_MATRIX_FORMAT, GT_MATRIX_MERGE_VERSION);
    json_member(out, "gauntlet_version", GAUNTLET_VERSION, true);
    json_member(out, "generated_at", matrix->generated_at, true);
    json_member(out, "command", matrix->command, true);
    json_member(out, "corpus_sha256", matrix->corpus_sha256, true);
    fprintf(out, ", \"cases_selected\": %zu,\n \"implementations\": [", count);
    for (size_t c = 0; c < matrix->column_count; c++) {
        const gt_matrix_column *column = &matrix->columns[c];
        column_stats stats;
        stats_of(matrix, column, &stats);
        fputs(c ? ",\n  {" : "\n  {", out);
        json_member(out, "name", column->name, false);
        json_member(out, "spec", column->spec, true);
        fprintf(out, ", \"available\": %s", column->run ? "true" : "false");
        json_member(out, "unavailable", column->unavailable, true);
        json_member(out, "about", column->about, true);
        json_member(out, "version", column->version, true);
        json_member(out, "language", column->language, true);
        json_member(out, "packages", column->packages, true);
        fputs(", \"gates\": {", out);
        bool first = true;
        for (int g = 0; g < GT_GATE_COUNT; g++) {
            if (stats.gates[g].cases == 0)
                continue;
            fprintf(out, "%s\"%s\": ", first ? "" : ", ", gt_gate_name((gt_gate)g));
            json_counts(out, &stats.gates[g]);
            first = false;
        }
        fputs("}, \"total\": ", out);
        json_counts(out, &stats.gates[GT_GATE_COUNT]);
        fputs(", \"tiers\": {\"required\": ", out);
        json_counts(out, &stats.tiers[GT_TIER_REQUIRED]);
        fputs(", \"optional\": ", out);
        json_counts(out, &stats.tiers[GT_TIER_OPTIONAL]);
        fputc('}', out);
        char profiles[128];
        json_member(out, "profiles", column->run ? column_profiles(column, profiles, sizeof profiles) : NULL, true);
        json_member(out, "evidence", column->evidence, true);
        json_member(out, "notes", column->notes, true);
        json_labels(out, matrix, column);
        json_member(out, "repos", column->repos, true);
        json_member(out, "previous_version", column->previous_version, true);
        json_field(out, matrix, column);
        fprintf(out, ", \"played\": %zu, \"unsafe\": %zu, \"fail_closed\": %zu, \"limits\": %zu", stats.played,
                stats.kinds[GT_MATRIX_UNSAFE], stats.kinds[GT_MATRIX_REFUSED_VALID] + stats.kinds[GT_MATRIX_FIGURES],
                stats.kinds[GT_MATRIX_ERROR] + stats.kinds[GT_MATRIX_SKIP] + stats.kinds[GT_MATRIX_NOT_RUN]);
        fputs(", \"classes\": {", out);
        for (int k = 0; k < GT_MATRIX_KIND_COUNT; k++)
            fprintf(out, "%s\"%s\": %zu", k ? ", " : "", kinds[k].name, stats.kinds[k]);
        fputs("}}", out);
    }
    fputs("],\n \"cases\": [", out);
    for (size_t i = 0; i < count; i++) {
        const gt_case *kase = gt_corpus_case(matrix->corpus, i);
        fputs(i ? ",\n  {" : "\n  {", out);
        json_member(out, "id", kase->input.id, false);
        json_member(out, "gate", kase->input.gate, true);
        json_member(out, "category", kase->category, true);
        json_member(out, "tier", gt_tier_name(kase->tier), true);
        json_member(out, "expect", expect_text(kase), true);
        char profiles[128];
        json_member(out, "profiles", gt_profiles_format(kase->profiles, ",", profiles, sizeof profiles), true);
        fputs(", \"sources\": [", out);
        for (size_t s = 0; s < kase->source_count; s++) {
            fputs(s ? ", " : "", out);
            gt_report_json_string(out, kase->sources[s]);
        }
        fputs("], \"cells\": [", out);
        for (size_t c = 0; c < matrix->column_count; c++) {
            const gt_case_result *result = gt_matrix_cell(&matrix->columns[c], i);
            fputs(c ? ", {" : "{", out);
            json_member(out, "implementation", matrix->columns[c].name, false);
            json_member(out, "outcome", cell_outcome(result), true);
            json_member(out, "kind", kind_name(gt_matrix_classify(result)), true);
            json_member(out, "class", result ? gt_class_name(gt_case_result_class(result)) : NULL, true);
            json_member(out, "verdict", result ? verdict_name(result->observed.verdict) : NULL, true);
            json_member(out, "subtype", result ? result->observed.subtype : NULL, true);
            json_member(out, "note", result ? result->note : matrix->columns[c].unavailable, true);
            json_member(out, "output", result ? result->observed.output_json : NULL, true);
            fprintf(out, ", \"beyond_script_calls\": %d}", result ? result->observed.beyond_script_calls : 0);
        }
        fputs("]}", out);
    }
    fputs("]}\n", out);
    return ferror(out) ? -1 : 0;
}

/* ---- Markdown ----------------------------------------------------------------- */

static const char *md_symbol(const gt_case_result *result)
{
    return kinds[gt_matrix_classify(result)].md;
}

/* The verdict class a kind shows in the legend (gt_class_name; "not_run"). */
static const char *legend_class(int kind)
{
    return kind < GT_CLASS_COUNT ? gt_class_name((gt_class)kind) : "not_run";
}

/* The legend: every mark, what it means. */
static void md_legend(FILE *out)
{
    fputs("Cells (each is the result's verdict class, docs/profiles.md#verdict-classes):\n\n| mark | class | "
          "meaning |\n|:-:|---|---|\n",
          out);
    for (int k = 0; k < GT_MATRIX_KIND_COUNT; k++)
        fprintf(out, "| %s | `%s` | %s |\n", kinds[k].md, legend_class(k), kinds[k].legend);
}

static void md_rate(FILE *out, const gt_run_counts *row)
{
    char text[64];
    gt_report_rate_text(text, sizeof text, row);
    fputs(text, out);
}

/* The summary's class columns, in order of concern. */
static const gt_matrix_kind summary_kinds[] = {GT_MATRIX_UNSAFE, GT_MATRIX_REFUSED_VALID, GT_MATRIX_FIGURES,
                                               GT_MATRIX_OTHER_REASON, GT_MATRIX_ERROR, GT_MATRIX_SKIP,
                                               GT_MATRIX_NOT_APPLICABLE};
#define SUMMARY_KINDS (sizeof summary_kinds / sizeof summary_kinds[0])

static void md_summary(FILE *out, const gt_matrix *matrix)
{
    fputs("| implementation | version | language | profiles claimed | played | ", out);
    for (int g = 0; g < GT_GATE_COUNT; g++)
        if (gate_selected(matrix, (gt_gate)g))
            fprintf(out, "%s | ", gt_gate_name((gt_gate)g));
    fputs("required | optional | true defects |", out);
    for (size_t k = 0; k < SUMMARY_KINDS; k++)
        fprintf(out, " %s %s |", kinds[summary_kinds[k]].md, kinds[summary_kinds[k]].name);
    fputs("\n|---|---|---|---|---:|", out);
    for (int g = 0; g < GT_GATE_COUNT; g++)
        if (gate_selected(matrix, (gt_gate)g))
            fputs("---|", out);
    fputs("---|---|---:|", out);
    for (size_t k = 0; k < SUMMARY_KINDS; k++)
        fputs("---:|", out);
    fputc('\n', out);
    for (size_t c = 0; c < matrix->column_count; c++) {
        const gt_matrix_column *column = &matrix->columns[c];
        column_stats stats;
        stats_of(matrix, column, &stats);
        char profiles[128];
        fputs("| ", out);
        gt_report_md_code(out, column->name);
        fputs(" | ", out);
        gt_report_md_code(out, column->version ? column->version : "?");
        fputs(" | ", out);
        gt_report_md_code(out, column->language ? column->language : "?");
        if (column->run == NULL) {
            fputs(" | | 0 | could not run: see its section | |", out);
            for (int g = 0; g < GT_GATE_COUNT; g++)
                if (gate_selected(matrix, (gt_gate)g))
                    fputs(" |", out);
            for (size_t k = 0; k < SUMMARY_KINDS; k++)
                fputs(" |", out);
            fputc('\n', out);
            continue;
        }
        fputs(" | ", out);
        gt_report_md_code(out, column_profiles(column, profiles, sizeof profiles));
        fprintf(out, " | %zu | ", stats.played);
        for (int g = 0; g < GT_GATE_COUNT; g++)
            if (gate_selected(matrix, (gt_gate)g)) {
                md_rate(out, &stats.gates[g]);
                fputs(" | ", out);
            }
        md_rate(out, &stats.tiers[GT_TIER_REQUIRED]);
        fputs(" | ", out);
        md_rate(out, &stats.tiers[GT_TIER_OPTIONAL]);
        char defects[64];
        defect_summary(matrix, column, defects, sizeof defects);
        fprintf(out, " | %s |", defects);
        for (size_t k = 0; k < SUMMARY_KINDS; k++)
            fprintf(out, " %zu |", stats.kinds[summary_kinds[k]]);
        fputc('\n', out);
    }
}

static void md_grid_head(FILE *out, const gt_matrix *matrix, const char *first)
{
    fprintf(out, "| %s | expect |", first);
    for (size_t c = 0; c < matrix->column_count; c++) {
        fputc(' ', out);
        gt_report_md_code(out, matrix->columns[c].name);
        fputs(" |", out);
    }
    fputs("\n|---|---|", out);
    for (size_t c = 0; c < matrix->column_count; c++)
        fputs(":-:|", out);
    fputc('\n', out);
}

/* One row per case of `gate`, under a heading per category. */
static void md_grid_cases(FILE *out, const gt_matrix *matrix, const char *gate)
{
    const char *category = NULL;
    size_t count = gt_corpus_count(matrix->corpus);
    for (size_t i = 0; i < count; i++) {
        const gt_case *kase = gt_corpus_case(matrix->corpus, i);
        if (strcmp(kase->input.gate, gate) != 0)
            continue;
        const char *this_category = kase->category ? kase->category : "(none)";
        if (category == NULL || strcmp(category, this_category) != 0) {
            category = this_category;
            fprintf(out, "\n#### %s / ", gate);
            gt_report_md_code(out, category);
            fputs("\n\n", out);
            md_grid_head(out, matrix, "case");
        }
        fputs("| ", out);
        gt_report_md_code(out, kase->input.id);
        fprintf(out, "%s | %s |", kase->tier == GT_TIER_OPTIONAL ? " (optional)" : "", expect_text(kase));
        for (size_t c = 0; c < matrix->column_count; c++)
            fprintf(out, " %s |", md_symbol(gt_matrix_cell(&matrix->columns[c], i)));
        fputc('\n', out);
    }
}

/* One row per category of `gate`: passed / played per implementation. */
static void md_grid_categories(FILE *out, const gt_matrix *matrix, const char *gate)
{
    fputc('\n', out);
    md_grid_head(out, matrix, "category (passed / played)");
    size_t count = gt_corpus_count(matrix->corpus);
    for (size_t i = 0; i < count; i++) {
        const gt_case *kase = gt_corpus_case(matrix->corpus, i);
        if (strcmp(kase->input.gate, gate) != 0)
            continue;
        bool seen = false; /* a category's row is written at its first case */
        for (size_t j = 0; j < i && !seen; j++) {
            const gt_case *earlier = gt_corpus_case(matrix->corpus, j);
            seen = strcmp(earlier->input.gate, gate) == 0 && earlier->category && kase->category &&
                   strcmp(earlier->category, kase->category) == 0;
        }
        if (seen)
            continue;
        fputs("| ", out);
        gt_report_md_code(out, kase->category);
        fputs(" | |", out);
        for (size_t c = 0; c < matrix->column_count; c++) {
            size_t passed = 0, played = 0;
            for (size_t j = i; j < count; j++) {
                const gt_case *other = gt_corpus_case(matrix->corpus, j);
                if (strcmp(other->input.gate, gate) != 0 || !other->category || !kase->category ||
                    strcmp(other->category, kase->category) != 0)
                    continue;
                const gt_case_result *result = gt_matrix_cell(&matrix->columns[c], j);
                played += result && (result->outcome == GT_OUTCOME_PASS || result->outcome == GT_OUTCOME_FAIL);
                passed += result && result->outcome == GT_OUTCOME_PASS;
            }
            if (played == 0)
                fputs(" – |", out);
            else
                fprintf(out, " %zu/%zu |", passed, played);
        }
        fputc('\n', out);
    }
}

/* The cases of one kind for one implementation, with the evidence. */
/* The cases of one kind for one implementation, with the evidence. */
static void md_kind_list(FILE *out, const gt_matrix *matrix, const gt_matrix_column *column, gt_matrix_kind kind,
                         const char *title)
{
    size_t count = gt_corpus_count(matrix->corpus), listed = 0;
    for (size_t i = 0; i < count; i++)
        listed += gt_matrix_classify(gt_matrix_cell(column, i)) == kind;
    if (listed == 0)
        return;
    /* the heading is bold already: a mark that is bold in the grid (**✗!**)
     * goes in without its own asterisks, or the two would cancel out */
    const char *mark = kinds[kind].md;
    size_t mark_len = strlen(mark);
    if (mark_len > 4 && strncmp(mark, "**", 2) == 0 && strcmp(mark + mark_len - 2, "**") == 0)
        mark += 2, mark_len -= 4;
    fprintf(out, "\n**%.*s %s** (%zu)\n\n", (int)mark_len, mark, title, listed);
    for (size_t i = 0; i < count; i++) {
        const gt_case_result *result = gt_matrix_cell(column, i);
        if (gt_matrix_classify(result) != kind)
            continue;
        const gt_case *kase = gt_corpus_case(matrix->corpus, i);
        fputs("- ", out);
        gt_report_md_code(out, kase->input.id);
        fputs(kase->tier == GT_TIER_OPTIONAL ? " (optional): " : ": ", out);
        char note[400];
        snprintf(note, sizeof note, "%s", result->note ? result->note : "(no note)");
        gt_report_md_code(out, note);
        const gt_matrix_label *label = cell_label(matrix, column, i);
        if (label != NULL) {
            fprintf(out, " — label %s ", label->kind == GT_MATRIX_LABEL_DEFECT ? "**true defect**" : "*");
            if (label->kind != GT_MATRIX_LABEL_DEFECT)
                fprintf(out, "%s* ", gt_matrix_label_kind_title(label->kind));
            gt_report_md_code(out, label->id);
        } else if (needs_label(kind) && column->labels != NULL) {
            fputs(" — **unlabelled**", out);
        }
        fputc('\n', out);
    }
}

/* The label table's columns: the red classes first (the first four). */
static const gt_matrix_kind shown[] = {GT_MATRIX_UNSAFE,      GT_MATRIX_REFUSED_VALID, GT_MATRIX_FIGURES,
                                       GT_MATRIX_ERROR,       GT_MATRIX_OTHER_REASON,  GT_MATRIX_SKIP};

/* The tallies of a column's label table and its red cells in `*red`; NULL
 * when there is no table to show (no label and no red cell). */
static label_tally *labels_table_tally(const gt_matrix *matrix, const gt_matrix_column *column, size_t *red)
{
    label_tally *tally = label_tallies(matrix, column);
    size_t labels = column->labels ? column->labels->count : 0;
    *red = 0;
    for (size_t l = 0; tally && l <= labels; l++)
        for (size_t k = 0; k < 4; k++)
            *red += tally[l].kinds[shown[k]];
    if (tally && *red == 0 && labels == 0) {
        free(tally);
        return NULL;
    }
    return tally;
}

static void md_stale(stale_sink *sink, const char *id, const char *why)
{
    fputs("- ", sink->out);
    gt_report_md_code(sink->out, id);
    fprintf(sink->out, ": %s\n", why);
}

/* "Red cells by label": one row per label (a defect is one row however many
 * cells show it), its cells by kind, then the unlabelled and the stale. */
static void md_labels(FILE *out, const gt_matrix *matrix, const gt_matrix_column *column)
{
    size_t labels = column->labels ? column->labels->count : 0, red;
    label_tally *tally = labels_table_tally(matrix, column, &red);
    if (tally == NULL)
        return;
    fprintf(out, "\n**Red cells by label** (%zu red cells; labels: matrix/notes/%s.labels, docs/matrix-labels.md)\n\n",
            red, column->name);
    fputs("| label | kind | cells |", out);
    for (size_t k = 0; k < sizeof shown / sizeof shown[0]; k++)
        fprintf(out, " %s |", kinds[shown[k]].md);
    fputs(" what |\n|---|---|--:|", out);
    for (size_t k = 0; k < sizeof shown / sizeof shown[0]; k++)
        fputs("--:|", out);
    fputs("---|\n", out);
    for (int kind = 0; kind < GT_MATRIX_LABEL_KIND_COUNT; kind++)
        for (size_t l = 0; l < labels; l++) {
            const gt_matrix_label *label = &column->labels->items[l];
            if ((int)label->kind != kind || tally[l].cells == 0)
                continue;
            fputs("| ", out);
            gt_report_md_code(out, label->id);
            fprintf(out, kind == GT_MATRIX_LABEL_DEFECT ? " | **%s** | %zu |" : " | %s | %zu |",
                    gt_matrix_label_kind_title(label->kind), tally[l].cells);
            for (size_t k = 0; k < sizeof shown / sizeof shown[0]; k++)
                fprintf(out, " %zu |", tally[l].kinds[shown[k]]);
            fprintf(out, " %s |\n", label->title); /* hand-written Markdown, trusted */
        }
    if (tally[labels].cells > 0) {
        fprintf(out, "| **unlabelled** | – | %zu |", tally[labels].cells);
        for (size_t k = 0; k < sizeof shown / sizeof shown[0]; k++)
            fprintf(out, " %zu |", tally[labels].kinds[shown[k]]);
        fputs(" red cells no label names (listed below as unlabelled) |\n", out);
    }
    size_t unused = 0;
    for (size_t l = 0; l < labels; l++)
        unused += tally[l].cells == 0;
    if (unused > 0) {
        fputs("\nLabels with no cell in this run: ", out);
        for (size_t l = 0, n = 0; l < labels; l++)
            if (tally[l].cells == 0) {
                fputs(n++ ? ", " : "", out);
                gt_report_md_code(out, column->labels->items[l].id);
            }
        fputs(".\n", out);
    }
    char *text = NULL;
    size_t len = 0;
    stale_sink sink = {open_memstream(&text, &len), 0};
    if (sink.out != NULL) {
        stale_labels(matrix, column, md_stale, &sink);
        fclose(sink.out);
        if (sink.count > 0)
            fprintf(out, "\nLabelled, but in this run no red cell (the label is stale for them):\n\n%s", text);
    }
    free(text);
    free(tally);
}

/* "Reported in the field": each thread of the library's own repositories
 * that a case of the selection comes from, and what its cell says. */
static void md_field(FILE *out, const gt_matrix *matrix, const gt_matrix_column *column)
{
    size_t count;
    field_entry *entries = field_entries(matrix, column, &count);
    if (entries == NULL)
        return;
    fputs("\n**Reported in the field** (threads of ", out);
    gt_report_md_code(out, column->repos);
    fprintf(out, "; %zu case%s)", count, count == 1 ? "" : "s");
    if (count == 0)
        fputs(": no case of the selection comes from these repositories.\n", out);
    else
        fputs("\n\n", out);
    for (size_t e = 0; e < count; e++) {
        char text[600];
        field_text(column, &entries[e], text, sizeof text);
        fprintf(out, "- %s ", md_symbol(gt_matrix_cell(column, entries[e].index)));
        gt_report_md_code(out, entries[e].source);
        fputs(" — ", out);
        gt_report_md_code(out, gt_corpus_case(matrix->corpus, entries[e].index)->input.id);
        fputs(": ", out);
        gt_report_md_code(out, text);
        fputc('\n', out);
    }
    free(entries);
}

static void md_implementation(FILE *out, const gt_matrix *matrix, const gt_matrix_column *column)
{
    fputs("\n### ", out);
    gt_report_md_code(out, column->name);
    fputs("\n\n", out);
    if (column->about) {
        gt_report_md_code(out, column->about);
        fputs(", ", out);
    }
    fputs("run as ", out);
    gt_report_md_code(out, column->spec);
    if (column->packages) {
        fputs("; packages ", out);
        gt_report_md_code(out, column->packages);
    }
    fputs(".\n", out);
    if (column->run != NULL) {
        char profiles[128];
        column_stats stats;
        stats_of(matrix, column, &stats);
        fputs("\nProfiles claimed: ", out);
        gt_report_md_code(out, column_profiles(column, profiles, sizeof profiles));
        if (column->evidence) {
            fputs(" — ", out);
            gt_report_md_code(out, column->evidence);
        }
        fprintf(out, ". Not applicable (outside the claim, never sent): %zu cases.\n",
                stats.kinds[GT_MATRIX_NOT_APPLICABLE]);
    }
    if (column->run != NULL)
        md_labels(out, matrix, column);
    if (column->notes) {
        fputc('\n', out);
        fputs(column->notes, out); /* hand-written Markdown, trusted */
        if (column->notes[0] && column->notes[strlen(column->notes) - 1] != '\n')
            fputc('\n', out);
    }
    md_field(out, matrix, column);
    if (column->run == NULL) {
        fputs("\n**Could not run**: ", out);
        gt_report_md_code(out, column->unavailable ? column->unavailable : "(no reason given)");
        fputc('\n', out);
        return;
    }
    md_kind_list(out, matrix, column, GT_MATRIX_UNSAFE,
                 "Unsafe: accepted what must be refused, or returned an object the reference would not");
    md_kind_list(out, matrix, column, GT_MATRIX_REFUSED_VALID, "Refused valid: refused what the reference accepts");
    md_kind_list(out, matrix, column, GT_MATRIX_FIGURES, "Figures: right verdict, other attempts or accounting");
    md_kind_list(out, matrix, column, GT_MATRIX_OTHER_REASON, "Other reason: right verdict, other wording");
    md_kind_list(out, matrix, column, GT_MATRIX_ERROR, "Error: no verdict (client or wrapper limit)");
    md_kind_list(out, matrix, column, GT_MATRIX_SKIP, "Skipped: cannot be expressed for this client");
}

int gt_matrix_markdown(FILE *out, const gt_matrix *matrix)
{
    fputs("# gauntlet implementations matrix\n\n", out);
    fputs("<!-- Generated; do not edit. Regenerate with `make matrix`. -->\n\n", out);
    fputs("Generated by ", out);
    gt_report_md_code(out, matrix->command);
    fprintf(out, " (gauntlet %s", GAUNTLET_VERSION);
    if (matrix->generated_at)
        fprintf(out, ", %s", matrix->generated_at);
    fprintf(out, ") over %zu cases", gt_corpus_count(matrix->corpus));
    if (matrix->corpus_sha256)
        fprintf(out, " of the corpus `%.16s`", matrix->corpus_sha256);
    fputs(". Every implementation runs unmodified against gauntlet's mock server; its verdict is compared with "
          "the reference's (docs/adapter-protocol.md, \"Black-box HTTP target\").\n\n",
          out);
    md_legend(out);
    fputs("\n## Summary\n\n", out);
    md_summary(out, matrix);
    fputs("\n## Grid\n", out);
    for (int g = 0; g < GT_GATE_COUNT; g++) {
        if (!gate_selected(matrix, (gt_gate)g))
            continue;
        const char *gate = gt_gate_name((gt_gate)g);
        size_t rows = 0;
        for (size_t i = 0; i < gt_corpus_count(matrix->corpus); i++)
            rows += strcmp(gt_corpus_case(matrix->corpus, i)->input.gate, gate) == 0;
        fprintf(out, "\n### %s (%zu cases)\n", gate, rows);
        if (rows > MATRIX_MD_MAX_ROWS_PER_GATE)
            md_grid_categories(out, matrix, gate);
        else
            md_grid_cases(out, matrix, gate);
    }
    fputs("\n## Implementations\n", out);
    for (size_t c = 0; c < matrix->column_count; c++)
        md_implementation(out, matrix, &matrix->columns[c]);
    return ferror(out) ? -1 : 0;
}

/* ---- HTML --------------------------------------------------------------------- */

static const char matrix_style[] =
    "body{font:14px/1.45 system-ui,sans-serif;margin:2em;color:#1b1b1b}h2{margin-top:2em;border-bottom:1px solid "
    "#ccc}table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;padding:.15em .4em;text-align:"
    "left;vertical-align:top}th{background:#f3f3f3}td.n{text-align:right}code,pre{font:12px/1.4 ui-monospace,"
    "monospace}pre{background:#f6f6f6;padding:.4em;white-space:pre-wrap;word-break:break-all;max-width:40em}"
    ".agrees{background:#e6f4ea}.unsafe{background:#f9c9c5;font-weight:700}.refused_valid{background:#fde7e7}"
    ".figures{background:#e8e4f8}.other_reason{background:#eef6ee}.error,.skip{background:#fff3cd}"
    ".not_applicable{background:repeating-linear-gradient(45deg,#fff,#fff 4px,#eee 4px,#eee 8px);color:#777}"
    ".not_run{background:#eee}summary{cursor:pointer}pre.notes{max-width:60em;white-space:pre-wrap;word-break:normal}";

static void html_cell(FILE *out, const gt_matrix_column *column, const gt_case_result *result)
{
    gt_matrix_kind kind = gt_matrix_classify(result);
    fprintf(out, "<td class=\"%s\"><details><summary>%s</summary>", kind_name(kind), kinds[kind].html);
    fputs("<p>", out);
    gt_report_html_text(out, column->name);
    fprintf(out, ": %s", cell_outcome(result));
    if (result != NULL && verdict_name(result->observed.verdict)) {
        fprintf(out, ", observed %s", verdict_name(result->observed.verdict));
        if (result->observed.subtype) {
            fputs(" (", out);
            gt_report_html_text(out, result->observed.subtype);
            fputs(")", out);
        }
    }
    fputs("</p>", out);
    const char *note = result ? result->note : column->unavailable;
    if (note) {
        fputs("<p>", out);
        gt_report_html_text(out, note);
        fputs("</p>", out);
    }
    if (result != NULL && result->observed.output_json) {
        fputs("<pre>", out);
        gt_report_html_text_n(out, result->observed.output_json, strnlen(result->observed.output_json, 4000));
        fputs("</pre>", out);
    }
    fputs("</details></td>", out);
}

/* The field section, as md_field. */
static void html_field(FILE *out, const gt_matrix *matrix, const gt_matrix_column *column)
{
    size_t count;
    field_entry *entries = field_entries(matrix, column, &count);
    if (entries == NULL)
        return;
    fputs("<p><b>Reported in the field</b> (threads of <code>", out);
    gt_report_html_text(out, column->repos);
    fprintf(out, "</code>; %zu case%s)%s</p>\n", count, count == 1 ? "" : "s",
            count == 0 ? ": no case of the selection comes from these repositories." : "");
    if (count > 0)
        fputs("<ul>\n", out);
    for (size_t e = 0; e < count; e++) {
        const gt_case_result *result = gt_matrix_cell(column, entries[e].index);
        char text[600];
        field_text(column, &entries[e], text, sizeof text);
        fprintf(out, "<li class=\"%s\">%s <code>", kind_name(gt_matrix_classify(result)),
                kinds[gt_matrix_classify(result)].html);
        gt_report_html_text(out, entries[e].source);
        fputs("</code> — <code>", out);
        gt_report_html_text(out, gt_corpus_case(matrix->corpus, entries[e].index)->input.id);
        fputs("</code>: ", out);
        gt_report_html_text(out, text);
        fputs("</li>\n", out);
    }
    if (count > 0)
        fputs("</ul>\n", out);
    free(entries);
}

static void html_stale(stale_sink *sink, const char *id, const char *why)
{
    fputs("<li><code>", sink->out);
    gt_report_html_text(sink->out, id);
    fprintf(sink->out, "</code>: %s</li>\n", why);
}

/* "Red cells by label", as md_labels. */
static void html_labels(FILE *out, const gt_matrix *matrix, const gt_matrix_column *column)
{
    size_t labels = column->labels ? column->labels->count : 0, red;
    label_tally *tally = labels_table_tally(matrix, column, &red);
    if (tally == NULL)
        return;
    fprintf(out, "<p><b>Red cells by label</b> (%zu red cells)</p>\n<table><tr><th>label</th><th>kind</th>"
                 "<th>cells</th>", red);
    for (size_t k = 0; k < sizeof shown / sizeof shown[0]; k++)
        fprintf(out, "<th>%s</th>", kinds[shown[k]].html);
    fputs("<th>what</th></tr>\n", out);
    for (int kind = 0; kind < GT_MATRIX_LABEL_KIND_COUNT; kind++)
        for (size_t l = 0; l <= labels; l++) {
            const gt_matrix_label *label = l < labels ? &column->labels->items[l] : NULL;
            if (tally[l].cells == 0 || (label ? (int)label->kind != kind : kind != GT_MATRIX_LABEL_KIND_COUNT - 1))
                continue;
            fputs("<tr><td><code>", out);
            gt_report_html_text(out, label ? label->id : "unlabelled");
            fprintf(out, "</code></td><td%s>%s</td><td class=\"n\">%zu</td>",
                    label && label->kind == GT_MATRIX_LABEL_DEFECT ? " class=\"unsafe\"" : "",
                    label ? gt_matrix_label_kind_title(label->kind) : "–", tally[l].cells);
            for (size_t k = 0; k < sizeof shown / sizeof shown[0]; k++)
                fprintf(out, "<td class=\"n\">%zu</td>", tally[l].kinds[shown[k]]);
            fputs("<td>", out);
            gt_report_html_text(out, label ? label->title : "red cells no label names");
            fputs("</td></tr>\n", out);
        }
    fputs("</table>\n", out);
    char *text = NULL;
    size_t len = 0;
    stale_sink sink = {open_memstream(&text, &len), 0};
    if (sink.out != NULL) {
        stale_labels(matrix, column, html_stale, &sink);
        fclose(sink.out);
        if (sink.count > 0)
            fprintf(out, "<p>Labelled, but in this run no red cell (the label is stale for them):</p>\n<ul>\n%s</ul>\n",
                    text);
    }
    free(text);
    free(tally);
}

/* One implementation's cells in order of concern, as md_implementation; the
 * hand-written notes are shown as text (escaped), not rendered. */
static void html_implementation(FILE *out, const gt_matrix *matrix, const gt_matrix_column *column)
{
    static const gt_matrix_kind order[] = {GT_MATRIX_UNSAFE,       GT_MATRIX_REFUSED_VALID, GT_MATRIX_FIGURES,
                                           GT_MATRIX_OTHER_REASON, GT_MATRIX_ERROR,         GT_MATRIX_SKIP};
    fputs("<h3><code>", out);
    gt_report_html_text(out, column->name);
    fputs("</code></h3>\n<p>run as <code>", out);
    gt_report_html_text(out, column->spec);
    fputs("</code>", out);
    if (column->packages) {
        fputs("; packages <code>", out);
        gt_report_html_text(out, column->packages);
        fputs("</code>", out);
    }
    fputs("</p>\n", out);
    if (column->run != NULL)
        html_labels(out, matrix, column);
    if (column->notes) {
        fputs("<pre class=\"notes\">", out);
        gt_report_html_text(out, column->notes);
        fputs("</pre>\n", out);
    }
    html_field(out, matrix, column);
    if (column->run == NULL) {
        fputs("<p><b>Could not run</b>: ", out);
        gt_report_html_text(out, column->unavailable ? column->unavailable : "(no reason given)");
        fputs("</p>\n", out);
        return;
    }
    size_t count = gt_corpus_count(matrix->corpus);
    for (size_t k = 0; k < sizeof order / sizeof order[0]; k++) {
        size_t listed = 0;
        for (size_t i = 0; i < count; i++)
            listed += gt_matrix_classify(gt_matrix_cell(column, i)) == order[k];
        if (listed == 0)
            continue;
        fprintf(out, "<p><b>%s %s</b> (%zu)</p>\n<ul>\n", kinds[order[k]].html, kinds[order[k]].name, listed);
        for (size_t i = 0; i < count; i++) {
            const gt_case_result *result = gt_matrix_cell(column, i);
            if (gt_matrix_classify(result) != order[k])
                continue;
            fputs("<li><code>", out);
            gt_report_html_text(out, gt_corpus_case(matrix->corpus, i)->input.id);
            fputs("</code>: ", out);
            gt_report_html_text(out, result->note ? result->note : "(no note)");
            const gt_matrix_label *label = cell_label(matrix, column, i);
            if (label != NULL) {
                fprintf(out, " — label <i>%s</i> <code>", gt_matrix_label_kind_title(label->kind));
                gt_report_html_text(out, label->id);
                fputs("</code>", out);
            } else if (needs_label(order[k]) && column->labels != NULL) {
                fputs(" — <b>unlabelled</b>", out);
            }
            fputs("</li>\n", out);
        }
        fputs("</ul>\n", out);
    }
}

int gt_matrix_html(FILE *out, const gt_matrix *matrix)
{
    fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
          "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; "
          "base-uri 'none'; form-action 'none'\">"
          "<title>gauntlet implementations matrix</title><style>",
          out);
    fputs(matrix_style, out);
    fputs("</style></head><body>\n<h1>gauntlet implementations matrix</h1>\n<p>", out);
    gt_report_html_text(out, matrix->command);
    fprintf(out, " — %zu cases, gauntlet %s", gt_corpus_count(matrix->corpus), GAUNTLET_VERSION);
    if (matrix->generated_at) {
        fputs(", ", out);
        gt_report_html_text(out, matrix->generated_at);
    }
    fputs("</p>\n<h2>Legend</h2>\n<table><tr><th>mark</th><th>class</th><th>meaning</th></tr>\n", out);
    for (int k = 0; k < GT_MATRIX_KIND_COUNT; k++) {
        fprintf(out, "<tr><td class=\"%s\">%s</td><td><code>%s</code></td><td>", kinds[k].name, kinds[k].html,
                legend_class(k));
        gt_report_html_text(out, kinds[k].legend);
        fputs("</td></tr>\n", out);
    }
    fputs("</table>\n<h2>Summary</h2>\n<table><tr><th>implementation</th><th>version</th><th>language</th>"
          "<th>profiles claimed</th><th>played</th><th>required</th><th>optional</th><th>true defects</th>",
          out);
    for (size_t k = 0; k < SUMMARY_KINDS; k++)
        fprintf(out, "<th>%s %s</th>", kinds[summary_kinds[k]].html, kinds[summary_kinds[k]].name);
    fputs("</tr>\n", out);
    for (size_t c = 0; c < matrix->column_count; c++) {
        const gt_matrix_column *column = &matrix->columns[c];
        column_stats stats;
        stats_of(matrix, column, &stats);
        char required[64], optional[64], profiles[128];
        gt_report_rate_text(required, sizeof required, &stats.tiers[GT_TIER_REQUIRED]);
        gt_report_rate_text(optional, sizeof optional, &stats.tiers[GT_TIER_OPTIONAL]);
        fputs("<tr><td><code>", out);
        gt_report_html_text(out, column->name);
        fputs("</code><br>", out);
        gt_report_html_text(out, column->about ? column->about : column->spec);
        fputs("</td><td>", out);
        gt_report_html_text(out, column->version ? column->version : "?");
        fputs("</td><td>", out);
        gt_report_html_text(out, column->language ? column->language : "?");
        if (column->run == NULL) {
            fprintf(out, "</td><td colspan=\"%zu\" class=\"not_run\">could not run: ", SUMMARY_KINDS + 5);
            gt_report_html_text(out, column->unavailable);
            fputs("</td></tr>\n", out);
            continue;
        }
        fputs("</td><td><code>", out);
        gt_report_html_text(out, column_profiles(column, profiles, sizeof profiles));
        fputs("</code>", out);
        if (column->evidence) {
            fputs("<br>", out);
            gt_report_html_text(out, column->evidence);
        }
        char defects[64];
        defect_summary(matrix, column, defects, sizeof defects);
        fprintf(out, "</td><td class=\"n\">%zu</td><td>%s</td><td>%s</td><td class=\"n\">%s</td>", stats.played,
                required, optional, defects);
        for (size_t k = 0; k < SUMMARY_KINDS; k++)
            fprintf(out, "<td class=\"n\">%zu</td>", stats.kinds[summary_kinds[k]]);
        fputs("</tr>\n", out);
    }
    fputs("</table>\n<h2>Grid</h2>\n<table><tr><th>case</th><th>expect</th>", out);
    for (size_t c = 0; c < matrix->column_count; c++) {
        fputs("<th>", out);
        gt_report_html_text(out, matrix->columns[c].name);
        fputs("</th>", out);
    }
    fputs("</tr>\n", out);
    const char *group_gate = NULL, *group_category = NULL;
    for (size_t i = 0; i < gt_corpus_count(matrix->corpus); i++) {
        const gt_case *kase = gt_corpus_case(matrix->corpus, i);
        const char *category = kase->category ? kase->category : "(none)";
        if (group_gate == NULL || strcmp(group_gate, kase->input.gate) != 0 || strcmp(group_category, category) != 0) {
            group_gate = kase->input.gate;
            group_category = category;
            fprintf(out, "<tr><th colspan=\"%zu\">", matrix->column_count + 2);
            gt_report_html_text(out, group_gate);
            fputs(" / ", out);
            gt_report_html_text(out, group_category);
            fputs("</th></tr>\n", out);
        }
        fputs("<tr><td><code>", out);
        gt_report_html_text(out, kase->input.id);
        fprintf(out, "</code></td><td>%s</td>", expect_text(kase));
        for (size_t c = 0; c < matrix->column_count; c++)
            html_cell(out, &matrix->columns[c], gt_matrix_cell(&matrix->columns[c], i));
        fputs("</tr>\n", out);
    }
    fputs("</table>\n<h2>Implementations</h2>\n", out);
    for (size_t c = 0; c < matrix->column_count; c++)
        html_implementation(out, matrix, &matrix->columns[c]);
    fputs("</body></html>\n", out);
    return ferror(out) ? -1 : 0;
}
