/* cmd_profiles.c — `gauntlet profiles`: the contracts a case can belong to
 * and an implementation can claim (docs/profiles.md), with how many cases of
 * the corpus each holds.
 *
 * Contract (relied on by `make test`):
 *   gauntlet profiles [PATH...] [--cases PROFILE | --sources]
 *   stdout: a table `profile cases accept reject required optional`, one row
 *           per profile in docs/profiles.md's order, each followed by its
 *           statement and sources on indented lines; then the last line
 *           `N cases in M profiles (K with profiles of their own)`; with
 *           --cases PROFILE: that profile's case ids, one per line, instead;
 *           with --sources: per profile a line `PROFILE: N of M cases name an
 *           issue thread`, then `    owner/repo#N  case-id` for each thread a
 *           case's `source` names, instead;
 *   stderr: load problems as `<file>:<line>: <field>: <message>`;
 *   exit:   0 listed, 2 usage (an unknown profile names the known ones) or
 *           load problems.
 * A case counts under each of its profiles (its own `profiles`, else the
 * default of its gate and tier), so the rows may add up to more than the
 * corpus holds. Everything from the corpus is escaped for the terminal. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_io.h"
#include "commands.h"
#include "gauntlet/runner/corpus.h"
#include "reports/report_util.h"

#define PROFILES_MAX_PATHS 256

static void profiles_usage(FILE *out)
{
    fputs("usage: gauntlet profiles [PATH...] [--cases PROFILE | --sources]\n"
          "\n"
          "List the profiles (the contracts a case belongs to and an implementation claims), what each\n"
          "claims, its sources and how many cases of the corpus it holds.\n"
          "  PATH             case files or directories (default: the bundled corpus)\n"
          "  --cases PROFILE  list the ids of that profile's cases instead, one per line\n"
          "  --sources        list per profile the issue threads its cases' source names instead\n"
          "exit: 0 listed, 2 usage, an unknown profile or load problems\n",
          out);
}

/* `--sources`: per profile, how many of its cases name an issue thread in
 * their `source`, then each thread beside the case id. */
static void print_sources(const gt_corpus *corpus)
{
    for (int p = 0; p < GT_PROFILE_COUNT; p++) {
        size_t cases = 0, with_thread = 0;
        for (size_t i = 0; i < gt_corpus_count(corpus); i++) {
            const gt_case *kase = gt_corpus_case(corpus, i);
            if (!(kase->profiles & (1u << p)))
                continue;
            cases++;
            for (size_t s = 0; s < kase->source_count; s++)
                if (gt_case_source_thread(kase->sources[s], NULL, 0) > 0) {
                    with_thread++;
                    break;
                }
        }
        printf("%s: %zu of %zu cases name an issue thread\n", gt_profile_name((gt_profile)p), with_thread, cases);
        for (size_t i = 0; i < gt_corpus_count(corpus); i++) {
            const gt_case *kase = gt_corpus_case(corpus, i);
            if (!(kase->profiles & (1u << p)))
                continue;
            for (size_t s = 0; s < kase->source_count; s++) {
                char thread[256];
                if (gt_case_source_thread(kase->sources[s], thread, sizeof thread) == 0)
                    continue;
                fputs("    ", stdout);
                gt_report_console_text(stdout, thread);
                fputs("  ", stdout);
                gt_report_console_text(stdout, kase->input.id);
                fputc('\n', stdout);
            }
        }
    }
}

typedef struct profile_tally {
    size_t cases, accept, reject, required, optional;
} profile_tally;

int gt_cmd_profiles(int argc, char **argv)
{
    const char *paths[PROFILES_MAX_PATHS];
    size_t path_count = 0;
    int only = -1;
    bool sources = false;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            profiles_usage(stdout);
            return 0;
        } else if (strcmp(argv[i], "--cases") == 0) {
            if (i + 1 >= argc) {
                fputs("gauntlet profiles: --cases needs a profile name (" GT_PROFILE_NAMES ")\n", stderr);
                return 2;
            }
            const char *name = argv[++i];
            only = gt_profile_from_name(name, strlen(name));
            if (only < 0) {
                fputs("gauntlet profiles: --cases: unknown profile '", stderr);
                gt_report_console_text(stderr, name);
                fputs("' (known profiles: " GT_PROFILE_NAMES ")\n", stderr);
                return 2;
            }
        } else if (strcmp(argv[i], "--sources") == 0)
            sources = true;
        else if (argv[i][0] == '-' && argv[i][1] != '\0') {
            fputs("gauntlet profiles: unknown option '", stderr);
            gt_report_console_text(stderr, argv[i]);
            fputs("'\n", stderr);
            profiles_usage(stderr);
            return 2;
        } else if (path_count == PROFILES_MAX_PATHS) {
            fprintf(stderr, "gauntlet profiles: more than %d paths\n", PROFILES_MAX_PATHS);
            return 2;
        } else
            paths[path_count++] = argv[i];
    }
    gt_corpus *corpus = gt_cli_load_corpus("profiles", paths, path_count, false);
    if (corpus == NULL)
        return 2;
    if (gt_corpus_problem_count(corpus) > 0 && gt_corpus_count(corpus) == 0) {
        gt_print_load_problems(corpus); /* nothing loaded: no table of zeros */
        gt_corpus_free(corpus);
        return 2;
    }
    if (sources && only >= 0) {
        fputs("gauntlet profiles: --sources and --cases cannot be combined\n", stderr);
        gt_corpus_free(corpus);
        return 2;
    }
    if (sources)
        only = GT_PROFILE_COUNT; /* no table; the listing follows */
    profile_tally tallies[GT_PROFILE_COUNT] = {{0}};
    size_t own = 0;
    for (size_t i = 0; i < gt_corpus_count(corpus); i++) {
        const gt_case *kase = gt_corpus_case(corpus, i);
        own += kase->profiles_given;
        if (only >= 0) {
            if (only < GT_PROFILE_COUNT && (kase->profiles & (1u << only))) {
                gt_report_console_text(stdout, kase->input.id);
                fputc('\n', stdout);
            }
            continue;
        }
        for (int p = 0; p < GT_PROFILE_COUNT; p++) {
            if (!(kase->profiles & (1u << p)))
                continue;
            profile_tally *tally = &tallies[p];
            tally->cases++;
            tally->accept += kase->expect.verdict == GT_VERDICT_ACCEPT;
            tally->reject += kase->expect.verdict != GT_VERDICT_ACCEPT;
            tally->required += kase->tier == GT_TIER_REQUIRED;
            tally->optional += kase->tier == GT_TIER_OPTIONAL;
        }
    }
    if (only < 0) {
        printf("%-14s %6s %7s %7s %9s %9s\n", "profile", "cases", "accept", "reject", "required", "optional");
        for (int p = 0; p < GT_PROFILE_COUNT; p++) {
            const profile_tally *tally = &tallies[p];
            printf("%-14s %6zu %7zu %7zu %9zu %9zu\n", gt_profile_name((gt_profile)p), tally->cases, tally->accept,
                   tally->reject, tally->required, tally->optional);
            printf("    claims:  %s\n    sources: %s\n", gt_profile_statement((gt_profile)p),
                   gt_profile_sources((gt_profile)p));
        }
        printf("%zu cases in %d profiles (%zu with profiles of their own)\n", gt_corpus_count(corpus),
               GT_PROFILE_COUNT, own);
    }
    if (sources)
        print_sources(corpus);
    int status = 0;
    if (gt_corpus_problem_count(corpus) > 0) {
        gt_print_load_problems(corpus);
        status = 2;
    }
    gt_corpus_free(corpus);
    return status;
}
