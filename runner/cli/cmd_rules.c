/* cmd_rules.c — `gauntlet rules`: which rules of the corpus's rule list
 * (rules.json) its cases prove, and which none does.
 *
 * Contract (relied on by `make test`):
 *   gauntlet rules [PATH...] [--uncovered] [--cases]
 *   stdout: a table `rule cases accept reject statement`, one row per rule of
 *           the rule list in its order (with --uncovered: only the rules no
 *           case names, as `rule statement`; with --cases: each rule's case
 *           ids below its row, a case whose `source` names issue threads
 *           followed by `  [owner/repo#N, ...]`), then the last line `N of M rules proven`;
 *   stderr: load problems as `<file>:<line>: <field>: <message>`;
 *   exit:   0 every rule is named by at least one case, 1 a rule has no case,
 *           2 usage, no rule list, or load problems.
 * A case proves a rule when its `rules` names it (docs/corpus-format.md); the
 * counts are by the case's expected verdict. Everything from the corpus is
 * escaped for the terminal. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_io.h"
#include "commands.h"
#include "gauntlet/runner/corpus.h"
#include "reports/report_util.h"

#define RULES_MAX_PATHS 256

static void rules_usage(FILE *out)
{
    fputs("usage: gauntlet rules [PATH...] [--uncovered] [--cases]\n"
          "\n"
          "List the rules of the corpus's rule list (rules.json) and the cases that prove each one.\n"
          "  PATH         case files or directories (default: the bundled corpus)\n"
          "  --uncovered  list only the rules no case names\n"
          "  --cases      list each rule's case ids under it, with the issue threads their source names\n"
          "exit: 0 every rule has a case, 1 a rule has none, 2 usage, no rule list or load problems\n",
          out);
}

typedef struct rule_tally {
    size_t accept, reject;
} rule_tally;

static bool names_rule(const gt_case *kase, const char *id)
{
    for (size_t i = 0; i < kase->rule_count; i++)
        if (strcmp(kase->rules[i], id) == 0)
            return true;
    return false;
}

static rule_tally tally(const gt_corpus *corpus, const char *id)
{
    rule_tally counts = {0, 0};
    for (size_t i = 0; i < gt_corpus_count(corpus); i++) {
        const gt_case *kase = gt_corpus_case(corpus, i);
        if (!names_rule(kase, id))
            continue;
        if (kase->expect.verdict == GT_VERDICT_ACCEPT)
            counts.accept++;
        else
            counts.reject++;
    }
    return counts;
}

static void print_padded(FILE *out, const char *text, int width)
{
    gt_report_console_text(out, text);
    for (int pad = width - (int)strlen(text); pad > 0; pad--)
        fputc(' ', out);
}

/* The issue threads a case's `source` names, as `  [owner/repo#N, ...]`;
 * nothing when it names none, so such lines stay as they were. */
static void print_threads(FILE *out, const gt_case *kase)
{
    size_t shown = 0;
    for (size_t i = 0; i < kase->source_count; i++) {
        char thread[256];
        if (gt_case_source_thread(kase->sources[i], thread, sizeof thread) == 0)
            continue;
        fputs(shown++ ? ", " : "  [", out);
        gt_report_console_text(out, thread);
    }
    if (shown)
        fputc(']', out);
}

static void print_cases(FILE *out, const gt_corpus *corpus, const char *id)
{
    for (size_t i = 0; i < gt_corpus_count(corpus); i++) {
        const gt_case *kase = gt_corpus_case(corpus, i);
        if (!names_rule(kase, id))
            continue;
        fprintf(out, "    %s ", kase->expect.verdict == GT_VERDICT_ACCEPT ? "accept" : "reject");
        gt_report_console_text(out, kase->input.id);
        if (kase->tier == GT_TIER_OPTIONAL)
            fputs(" (optional)", out);
        print_threads(out, kase);
        fputc('\n', out);
    }
}

int gt_cmd_rules(int argc, char **argv)
{
    const char *paths[RULES_MAX_PATHS];
    size_t path_count = 0;
    bool uncovered_only = false, list_cases = false;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            rules_usage(stdout);
            return 0;
        } else if (strcmp(argv[i], "--uncovered") == 0)
            uncovered_only = true;
        else if (strcmp(argv[i], "--cases") == 0)
            list_cases = true;
        else if (argv[i][0] == '-' && argv[i][1] != '\0') {
            fprintf(stderr, "gauntlet rules: unknown option '%s'\n", argv[i]);
            rules_usage(stderr);
            return 2;
        } else if (path_count == RULES_MAX_PATHS) {
            fprintf(stderr, "gauntlet rules: more than %d paths\n", RULES_MAX_PATHS);
            return 2;
        } else
            paths[path_count++] = argv[i];
    }
    gt_corpus *corpus = gt_cli_load_corpus("rules", paths, path_count, true);
    if (corpus == NULL)
        return 2;
    size_t rule_count = gt_corpus_rule_count(corpus);
    int status = 0;
    if (rule_count == 0) {
        fprintf(stderr, "gauntlet rules: no %s in the corpus directory or above it\n", GT_CORPUS_RULES_FILE);
        status = 2;
    }
    int width = 4;
    for (size_t i = 0; i < rule_count; i++)
        if ((int)strlen(gt_corpus_rule(corpus, i)->id) > width)
            width = (int)strlen(gt_corpus_rule(corpus, i)->id);
    if (rule_count > 0)
        printf(uncovered_only ? "%-*s  statement\n" : "%-*s  cases  accept  reject  statement\n", width, "rule");
    size_t proven = 0;
    for (size_t i = 0; i < rule_count; i++) {
        const gt_rule *rule = gt_corpus_rule(corpus, i);
        rule_tally counts = tally(corpus, rule->id);
        size_t cases = counts.accept + counts.reject;
        proven += cases > 0;
        if (uncovered_only && cases > 0)
            continue;
        print_padded(stdout, rule->id, width);
        if (!uncovered_only)
            printf("  %5zu  %6zu  %6zu", cases, counts.accept, counts.reject);
        fputs("  ", stdout);
        gt_report_console_text(stdout, rule->statement);
        fputc('\n', stdout);
        if (list_cases)
            print_cases(stdout, corpus, rule->id);
    }
    printf("%zu of %zu rules proven\n", proven, rule_count);
    if (status == 0 && proven < rule_count)
        status = 1;
    if (gt_corpus_problem_count(corpus) > 0) {
        gt_print_load_problems(corpus);
        status = 2;
    }
    gt_corpus_free(corpus);
    return status;
}
