/* cmd_gen.c — `gauntlet gen`: write the adversarial corpus of one contract
 * (docs/explore.md).
 *
 * Contract (relied on by suite/test_gen.c):
 *   gauntlet gen --schema S.json [--sample V.json ...] [--seed N] [--max N]
 *                [--gates LIST] [--root POINTER] [--formats] [--report FILE] --out DIR
 *   DIR:    schema.json, rules.json and valid / syntax / structure / loop
 *           .cases.json (gauntlet-corpus/1) that `gauntlet run DIR` loads;
 *           the same arguments write the same bytes;
 *   stdout: one line `gauntlet gen: N cases ... in DIR` with the counts;
 *           (a document that constrains nothing at its root: one such
 *           folder per definition, DIR/<name>/);
 *   stderr: why no valid instance could be synthesised, when so; that the
 *           root constrains nothing, when so;
 *   exit:   0 written, 2 usage, unreadable or bad schema or sample (the
 *           message names the file and the schema location), an output
 *           folder gen did not write, write error. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli_io.h"
#include "commands.h"
#include "gauntlet/runner/corpus.h"
#include "gen_cli.h"
#include "runner/explore/gen.h"

static void gen_usage(FILE *out)
{
    fputs("usage: gauntlet gen --schema FILE [--sample FILE ...] [--seed N] [--max N] [--gates LIST]\n"
          "                    [--root POINTER] [--formats] [--report FILE] --out DIR\n"
          "       gauntlet gen --from RECORDING --out DIR\n"
          "\n"
          "Write the adversarial corpus of one contract: valid variants of its instances and mutations\n"
          "(syntax, structure, loop), each tagged with its operator and the rule ids it probes. Every\n"
          "expectation is the reference's verdict; a mutation the reference does not confirm is left out\n"
          "and listed by --report. `gauntlet run DIR` replays the folder. A schema that constrains nothing at\n"
          "its root (only $defs / definitions) gets one corpus per definition, in DIR/<name>/ (and the\n"
          "report in FILE.<name>); --root POINTER picks one definition as the contract.\n" GT_GEN_CLI_HELP
          "  --max N                keep at most N cases, spread evenly over operators and paths\n"
          "  --report FILE          write counts per operator and the ambiguous candidates (JSON)\n"
          "  --out DIR              the corpus folder to write (created when missing; required)\n"
          "  --from RECORDING       instead of a schema: the variants of each recorded conversation of a\n"
          "                         `gauntlet record` folder (cut at each structural boundary of the answer,\n"
          "                         refusal and max_tokens there, a retracting fallback, a second call,\n"
          "                         scalar near-misses, an unknown member; docs/record.md); DIR must be new\n"
          "                         or empty\n"
          "exit: 0 written, 2 usage, unreadable or invalid schema or sample, an --out folder gen did not\n"
          "      write (its rules.json or case files), write error\n",
          out);
}

/* Counts of the confirmed, kept cases of `gen` per family, and its ambiguous candidates. */
static void count_cases(gt_gen *gen, size_t counts[4], size_t *ambiguous)
{
    static const char *const families[] = {"valid", "syntax", "structure", "loop"};
    for (size_t i = 0; i < gt_gen_count(gen); i++) {
        const gt_gen_case *kase = gt_gen_case_at(gen, i);
        *ambiguous += !kase->confirmed;
        for (size_t f = 0; f < 4; f++)
            counts[f] += kase->confirmed && !kase->dropped && strcmp(kase->family, families[f]) == 0;
    }
}

/* Generate for `cli` (its --root, if any) into `out_dir`, the report into
 * `report`; add to the counts. Returns 0, or 2 after a message on stderr. */
static int gen_one(const char *who, const gt_gen_cli *cli, const char *out_dir, const char *report, size_t max,
                   size_t *kept, size_t counts[4], size_t *ambiguous)
{
    if (gt_gen_cli_check_out(who, out_dir, false) != 0)
        return 2;
    gt_gen *gen = gt_gen_cli_build(who, cli);
    if (gen == NULL)
        return 2;
    *kept += gt_gen_cap(gen, max);
    int status = gt_gen_cli_write(who, gen, out_dir, NULL);
    char err[1024];
    if (status == 0 && report != NULL && gt_gen_write_report(gen, report, err, sizeof err) != 0) {
        fprintf(stderr, "%s: %s\n", who, err);
        status = -1;
    }
    if (status == 0)
        count_cases(gen, counts, ambiguous);
    gt_gen_free(gen);
    return status == 0 ? 0 : 2;
}

/* The folder name of a definition pointer: its last token, [A-Za-z0-9_-] kept. */
static void definition_folder(const char *pointer, char *out, size_t out_len)
{
    const char *name = strrchr(pointer, '/');
    name = name ? name + 1 : pointer;
    size_t n = 0;
    for (; *name && n + 1 < out_len; name++)
        out[n++] = (char)((*name >= 'a' && *name <= 'z') || (*name >= 'A' && *name <= 'Z') ||
                                  (*name >= '0' && *name <= '9') || *name == '-'
                              ? *name
                              : '_');
    out[n] = '\0';
}

/* A document that constrains nothing at its root: one corpus per definition,
 * in DIR/<name>/, the report in REPORT.<name>. */
static int gen_definitions(const char *who, gt_gen_cli *cli, char **roots, const char *out_dir, const char *report,
                           size_t max, size_t *kept, size_t counts[4], size_t *ambiguous)
{
    fprintf(stderr,
            "%s: %s constrains nothing at its root (it accepts any value): generating for each definition "
            "(--root picks one)\n",
            who, cli->schema_path);
    if (mkdir(out_dir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "%s: cannot create %s: %s\n", who, out_dir, strerror(errno));
        return 2;
    }
    int status = 0;
    for (size_t i = 0; status == 0 && roots[i] != NULL; i++) {
        char name[128], dir[4096], report_path[4096];
        definition_folder(roots[i], name, sizeof name);
        snprintf(dir, sizeof dir, "%s/%s", out_dir, name);
        snprintf(report_path, sizeof report_path, "%s.%s", report ? report : "", name);
        cli->root = roots[i];
        cli->id_scope = name;
        status = gen_one(who, cli, dir, report ? report_path : NULL, max, kept, counts, ambiguous);
    }
    cli->root = NULL;
    cli->id_scope = NULL;
    return status;
}

static int gen_main(int argc, char **argv, gt_gen_cli *cli)
{
    static const char who[] = "gauntlet gen";
    static const char *const names[] = {"--out", "--report", "--max", NULL};
    const char *values[3];
    int parsed = gt_gen_cli_parse(who, argc, argv, cli, names, values, gen_usage);
    if (parsed != 0)
        return parsed == 1 ? 0 : 2;
    const char *out_dir = values[0], *report = values[1];
    size_t max = 0;
    if (values[2] != NULL && !gt_gen_cli_count(values[2], &max)) {
        fprintf(stderr, "%s: --max wants a positive integer, got '%s'\n", who, values[2]);
        return 2;
    }
    if (cli->schema_path == NULL || out_dir == NULL) {
        fprintf(stderr, "%s: %s is required\n", who, cli->schema_path == NULL ? "--schema" : "--out");
        gen_usage(stderr);
        return 2;
    }
    char why[PATH_MAX + 64];
    if (report != NULL && gt_make_parent_dirs(report, why, sizeof why) != 0) {
        fprintf(stderr, "%s: cannot write the report '%s': %s\n", who, report, why);
        return 2;
    }
    size_t kept = 0, counts[4] = {0}, ambiguous = 0;
    char **roots = cli->root == NULL ? gt_gen_cli_roots(cli->schema_path) : NULL;
    int status = roots != NULL ? gen_definitions(who, cli, roots, out_dir, report, max, &kept, counts, &ambiguous)
                               : gen_one(who, cli, out_dir, report, max, &kept, counts, &ambiguous);
    if (status == 0)
        printf("gauntlet gen: %zu cases (%zu valid, %zu syntax, %zu structure, %zu loop/stream) in %s; "
               "%zu ambiguous candidates left out%s\n",
               kept, counts[0], counts[1], counts[2], counts[3], out_dir, ambiguous,
               report ? " (listed in the report)" : "");
    gt_gen_cli_roots_free(roots);
    return status;
}

/* `gauntlet gen --from RECORDING --out DIR` (runner/explore/gen_from.c). */
static int gen_from_recording(int argc, char **argv)
{
    const char *from = NULL, *out = NULL;
    for (int i = 1; i < argc; i++) {
        const char **slot = strcmp(argv[i], "--from") == 0 ? &from : strcmp(argv[i], "--out") == 0 ? &out : NULL;
        if (slot == NULL || i + 1 == argc) {
            fprintf(stderr, "gauntlet gen: --from takes only --out DIR beside it, not '%s'\n", argv[i]);
            return 2;
        }
        *slot = argv[++i];
    }
    if (from == NULL || out == NULL) {
        fprintf(stderr, "gauntlet gen: --from RECORDING needs --out DIR\n");
        return 2;
    }
    gt_gen_from_counts counts;
    if (gt_gen_cli_from_recording(from, out, &counts) != 0)
        return 2;
    printf("gauntlet gen: %d variants of the recorded conversations of %s written to %s (%d of them gen's structure "
           "near-misses", counts.variants, from, out, counts.near_misses);
    if (counts.no_sample > 0)
        printf("; %d recorded answer%s the reference rejects: wire operators only", counts.no_sample,
               counts.no_sample == 1 ? "" : "s");
    printf(")\n");
    return 0;
}

int gt_cmd_gen(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--from") == 0)
            return gen_from_recording(argc, argv);
    gt_gen_cli cli = {.seed = 1};
    int status = gen_main(argc, argv, &cli);
    gt_gen_cli_free(&cli);
    return status;
}
