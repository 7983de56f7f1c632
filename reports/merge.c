/* merge.c — join the JSON reports of the shards of one run into the report
 * an unsharded run would have written.
 *
 * `gauntlet run --shard K/N` runs the cases whose position in the selected
 * corpus is K-1 modulo N and writes each case's position ("index") into its
 * report. Merging checks that the shards belong together (same corpus hash,
 * target, command apart from its output options, shard count, problems),
 * that every shard is there once and that the positions cover 0..n-1
 * exactly, then orders the cases by position. Not for: reading reports
 * (read.c). */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "gauntlet/runner/report.h"
#include "report_doc.h"
#include "report_util.h"

static void fail(char *err, size_t err_len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void fail(char *err, size_t err_len, const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    vsnprintf(err, err_len, fmt, args);
    va_end(args);
}

static bool same_text(const char *a, const char *b)
{
    return (a == NULL && b == NULL) || (a != NULL && b != NULL && strcmp(a, b) == 0);
}

/* Length of the shell word starting at `text` (our quoting: plain words and
 * '...' pieces, with ' written as '\''). */
static size_t word_length(const char *text)
{
    size_t i = 0;
    bool quoted = false;
    for (; text[i] != '\0'; i++) {
        if (text[i] == '\'')
            quoted = !quoted;
        else if (text[i] == '\\' && !quoted && text[i + 1] != '\0')
            i++;
        else if (text[i] == ' ' && !quoted)
            break;
    }
    return i;
}

static bool word_is(const char *word, size_t len, const char *option, bool *with_value)
{
    size_t option_len = strlen(option);
    if (len == option_len && strncmp(word, option, len) == 0) {
        *with_value = false;
        return true;
    }
    if (len > option_len && strncmp(word, option, option_len) == 0 && word[option_len] == '=') {
        *with_value = true;
        return true;
    }
    return false;
}

/* The command without the options that only choose outputs or the shard
 * (--shard, --report, --baseline, -j, --certify, --quiet): what must be equal
 * across shards, and what reproduces the merged run. Malloc'd; NULL stays
 * NULL. */
char *gt_report_command_without_outputs(const char *command)
{
    if (command == NULL)
        return NULL;
    size_t len = strlen(command);
    char *out = malloc(len + 1);
    if (out == NULL)
        return NULL;
    size_t used = 0;
    /* -j only decides how many threads ran the cases, never a result */
    static const char *const with_argument[] = {"--shard", "--report", "--baseline", "-j", "--jobs"};
    static const char *const flags[] = {"--certify", "--quiet", "-q"};
    const char *p = command;
    bool skip_next = false;
    while (*p != '\0') {
        while (*p == ' ')
            p++;
        if (*p == '\0')
            break;
        size_t word = word_length(p);
        bool drop = skip_next, inline_value = false;
        skip_next = false;
        for (size_t i = 0; i < sizeof with_argument / sizeof with_argument[0] && !drop; i++)
            if (word_is(p, word, with_argument[i], &inline_value)) {
                drop = true;
                skip_next = !inline_value;
            }
        for (size_t i = 0; i < sizeof flags / sizeof flags[0] && !drop; i++)
            drop = word == strlen(flags[i]) && strncmp(p, flags[i], word) == 0;
        if (!drop) {
            if (used > 0)
                out[used++] = ' ';
            memcpy(out + used, p, word);
            used += word;
        }
        p += word;
    }
    out[used] = '\0';
    return out;
}

static int copy_observed(gt_observed *to, const gt_observed *from)
{
    memset(to, 0, sizeof *to);
    to->verdict = from->verdict;
    memcpy(to->gates, from->gates, sizeof to->gates);
    to->accounting = from->accounting;
    to->has_accounting = from->has_accounting;
    to->black_box = from->black_box;
    to->beyond_script_calls = from->beyond_script_calls;
    const char *sources[7] = {from->gate,    from->reason,     from->message,  from->output_json,
                              from->subtype, from->transcript, from->violation};
    char **targets[7] = {&to->gate,    &to->reason,     &to->message,  &to->output_json,
                         &to->subtype, &to->transcript, &to->violation};
    for (size_t i = 0; i < 7; i++)
        if (sources[i] != NULL && (*targets[i] = strdup(sources[i])) == NULL)
            return -1;
    for (size_t i = 0; i < from->error_count; i++)
        if (gt_observed_add_error(to, from->errors[i].path, from->errors[i].keyword, from->errors[i].message) != 0)
            return -1;
    return 0;
}

/* Every shard must agree on what was run; returns false with `err` filled. */
static bool shards_agree(gt_report_doc *const *shards, size_t count, char **commands, char *err, size_t err_len)
{
    const gt_report_doc *first = shards[0];
    unsigned shard_count = first->info.shard_count;
    if (shard_count == 0 && count > 1) {
        fail(err, err_len, "report 1 is not a shard report (it has no \"shard\"); run with --shard K/N");
        return false;
    }
    if (shard_count != 0 && count != shard_count) {
        fail(err, err_len, "%zu report%s given, but the run was split into %u shards", count, count == 1 ? "" : "s",
             shard_count);
        return false;
    }
    for (size_t i = 0; i < count; i++) {
        const gt_report_doc *doc = shards[i];
        const char *what = NULL;
        if (doc->info.shard_count != shard_count)
            what = "the shard count";
        else if (!same_text(doc->info.corpus_sha256, first->info.corpus_sha256))
            what = "the corpus (sha256)";
        else if (doc->info.selected_cases != first->info.selected_cases)
            what = "the number of selected cases";
        else if (!same_text(doc->run.target, first->run.target))
            what = "the target";
        else if (doc->run.profiles != first->run.profiles)
            what = "the profiles the target was judged on";
        else if (!same_text(commands[i], commands[0]))
            what = "the command (apart from --shard, --report, --baseline, -j, --certify, --quiet)";
        else if (doc->info.problem_count != first->info.problem_count)
            what = "the load problems";
        if (what != NULL) {
            fail(err, err_len, "report %zu differs from report 1 in %s: not shards of one run", i + 1, what);
            return false;
        }
        for (size_t j = 0; j < i; j++)
            if (shard_count != 0 && shards[j]->info.shard_index == doc->info.shard_index) {
                fail(err, err_len, "shard %u/%u given twice (reports %zu and %zu)", doc->info.shard_index,
                     shard_count, j + 1, i + 1);
                return false;
            }
    }
    return true;
}

typedef struct placed {
    const gt_report_doc *doc;
    size_t position;
} placed;

gt_report_doc *gt_report_merge(gt_report_doc *const *shards, size_t count, char *err, size_t err_len)
{
    if (count == 0) {
        fail(err, err_len, "no reports to merge");
        return NULL;
    }
    char **commands = calloc(count, sizeof *commands);
    if (commands == NULL) {
        fail(err, err_len, "out of memory");
        return NULL;
    }
    bool ok = true;
    size_t total = 0;
    for (size_t i = 0; i < count; i++) {
        commands[i] = gt_report_command_without_outputs(shards[i]->info.command);
        if (shards[i]->info.command != NULL && commands[i] == NULL)
            ok = false;
        total += shards[i]->run.count;
    }
    gt_report_doc *merged = NULL;
    placed *order = NULL;
    if (!ok) {
        fail(err, err_len, "out of memory");
        goto done;
    }
    if (!shards_agree(shards, count, commands, err, err_len))
        goto done;
    if (shards[0]->info.corpus_sha256 != NULL && total != shards[0]->info.selected_cases) {
        fail(err, err_len, "the shards hold %zu cases, the run selected %zu", total, shards[0]->info.selected_cases);
        goto done;
    }
    order = calloc(total ? total : 1, sizeof *order);
    merged = gt_report_doc_new(total);
    if (order == NULL || merged == NULL) {
        fail(err, err_len, "out of memory");
        gt_report_doc_free(merged);
        merged = NULL;
        goto done;
    }
    for (size_t i = 0; i < count; i++)
        for (size_t j = 0; j < shards[i]->run.count; j++) {
            size_t index = shards[i]->indices[j];
            if (index >= total || order[index].doc != NULL) {
                fail(err, err_len, "case %s (index %zu) %s", shards[i]->run.results[j].kase->input.id, index,
                     index >= total ? "lies outside the merged run" : "appears in two shards");
                gt_report_doc_free(merged);
                merged = NULL;
                goto done;
            }
            order[index] = (placed){shards[i], j};
        }

    gt_run *run = &merged->run;
    const gt_report_doc *first = shards[0];
    for (size_t index = 0; index < total; index++) {
        const gt_case_result *from = &order[index].doc->run.results[order[index].position];
        gt_case_result *to = &run->results[index];
        to->kase = from->kase;
        to->outcome = from->outcome;
        to->verdict_class = from->verdict_class;
        to->elapsed_ms = from->elapsed_ms;
        merged->indices[index] = index;
        if (copy_observed(&to->observed, &from->observed) != 0 ||
            (from->note != NULL && (to->note = strdup(from->note)) == NULL))
            ok = false;
    }
    run->target = first->run.target ? strdup(first->run.target) : NULL;
    run->profiles = first->run.profiles;
    for (size_t i = 0; i < count && run->target_name == NULL; i++)
        if (shards[i]->run.target_name != NULL)
            run->target_name = strdup(shards[i]->run.target_name);
    /* The merged run started with its first shard and took as long as its
     * slowest one (shards run side by side). */
    snprintf(run->started_at, sizeof run->started_at, "%s", first->run.started_at);
    for (size_t i = 0; i < count; i++) {
        if (strcmp(shards[i]->run.started_at, run->started_at) < 0)
            snprintf(run->started_at, sizeof run->started_at, "%s", shards[i]->run.started_at);
        if (shards[i]->run.elapsed_ms > run->elapsed_ms)
            run->elapsed_ms = shards[i]->run.elapsed_ms;
        if (shards[i]->run.jobs > run->jobs)
            run->jobs = shards[i]->run.jobs;
    }
    merged->info = first->info;
    merged->info.shard_index = merged->info.shard_count = 0;
    merged->info.baseline = NULL;
    merged->info.certify = false;
    merged->command = commands[0];
    commands[0] = NULL;
    merged->info.command = merged->command;
    if (!ok) {
        fail(err, err_len, "out of memory");
        gt_report_doc_free(merged);
        merged = NULL;
    }
done:
    for (size_t i = 0; i < count; i++)
        free(commands[i]);
    free(commands);
    free(order);
    return merged;
}
