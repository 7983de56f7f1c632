/* cmd_gen.c — `gauntlet gen`: write the adversarial corpus of one contract
 * (docs/explore.md).
 *
 * Contract (relied on by suite/test_gen.c):
 *   gauntlet gen --schema S.json [--sample V.json ...] [--seed N] [--max N]
 *                [--gates LIST] [--formats] [--report FILE] --out DIR
 *   DIR:    schema.json, rules.json and valid / syntax / structure / loop
 *           .cases.json (gauntlet-corpus/1) that `gauntlet run DIR` loads;
 *           the same arguments write the same bytes;
 *   stdout: one line `gauntlet gen: N cases ... in DIR` with the counts;
 *   stderr: why no valid instance could be synthesised, when so;
 *   exit:   0 written, 2 usage, unreadable or bad schema or sample (the
 *           message names the file and the schema location), an output
 *           folder gen did not write, write error. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "gauntlet/runner/corpus.h"
#include "gen_cli.h"
#include "runner/gen.h"

static void gen_usage(FILE *out)
{
    fputs("usage: gauntlet gen --schema FILE [--sample FILE ...] [--seed N] [--max N] [--gates LIST]\n"
          "                    [--formats] [--report FILE] --out DIR\n"
          "\n"
          "Write the adversarial corpus of one contract: valid variants of its instances and mutations\n"
          "(syntax, structure, loop), each tagged with its operator and the rule ids it probes. Every\n"
          "expectation is the reference's verdict; a mutation the reference does not confirm is left out\n"
          "and listed by --report. `gauntlet run DIR` replays the folder.\n" GT_GEN_CLI_HELP
          "  --max N                keep at most N cases, spread evenly over operators and paths\n"
          "  --report FILE          write counts per operator and the ambiguous candidates (JSON)\n"
          "  --out DIR              the corpus folder to write (created when missing; required)\n"
          "exit: 0 written, 2 usage, unreadable or invalid schema or sample, an --out folder gen did not\n"
          "      write (its rules.json or case files), write error\n",
          out);
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
    if (gt_gen_cli_check_out(who, out_dir, false) != 0)
        return 2;
    gt_gen *gen = gt_gen_cli_build(who, cli);
    if (gen == NULL)
        return 2;
    size_t kept = gt_gen_cap(gen, max);
    int status = gt_gen_cli_write(who, gen, out_dir, NULL);
    char err[1024];
    if (status == 0 && report != NULL && gt_gen_write_report(gen, report, err, sizeof err) != 0) {
        fprintf(stderr, "%s: %s\n", who, err);
        status = -1;
    }
    if (status == 0) {
        size_t counts[4] = {0}, ambiguous = 0;
        static const char *const families[] = {"valid", "syntax", "structure", "loop"};
        for (size_t i = 0; i < gt_gen_count(gen); i++) {
            const gt_gen_case *kase = gt_gen_case_at(gen, i);
            ambiguous += !kase->confirmed;
            for (size_t f = 0; f < 4; f++)
                counts[f] += kase->confirmed && !kase->dropped && strcmp(kase->family, families[f]) == 0;
        }
        printf("gauntlet gen: %zu cases (%zu valid, %zu syntax, %zu structure, %zu loop/stream) in %s; "
               "%zu ambiguous candidates left out%s\n",
               kept, counts[0], counts[1], counts[2], counts[3], out_dir, ambiguous,
               report ? " (listed in the report)" : "");
    }
    gt_gen_free(gen);
    return status == 0 ? 0 : 2;
}

int gt_cmd_gen(int argc, char **argv)
{
    gt_gen_cli cli = {.seed = 1};
    int status = gen_main(argc, argv, &cli);
    gt_gen_cli_free(&cli);
    return status;
}
