/* cli.c — the command table and top-level dispatch of the gauntlet CLI
 * (git's git.c: one table maps names to cmd_* functions). */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "gauntlet/version.h"

static const gt_cli_command commands[] = {
    {"parse", gt_cmd_parse, "syntax gate on one raw output: exit 0 accepted, 1 rejected"},
    {"validate", gt_cmd_validate, "syntax + structure gate against a JSON Schema"},
    {"run", gt_cmd_run, "replay the corpus against a target and report per gate"},
    {"matrix", gt_cmd_matrix, "run many implementations over one selection and report them side by side"},
    {"merge", gt_cmd_merge, "join the JSON reports of 'run --shard K/N' into one run's reports"},
    {"show", gt_cmd_show, "run one case and show everything about it (input, gates, transcript)"},
    {"gen", gt_cmd_gen, "write the adversarial corpus of one contract (valid variants and mutations)"},
    {"explore", gt_cmd_explore, "generate cases for a contract, run them against a target, shrink a disagreement"},
    {"profiles", gt_cmd_profiles, "list the profiles (contracts) cases belong to and implementations claim"},
    {"rules", gt_cmd_rules, "list the seed rules and spec clauses the corpus proves, and those it does not"},
    {"jsts", gt_cmd_jsts, "run JSON-Schema-Test-Suite files against the structure gate"},
    {"bowtie", gt_cmd_bowtie, "speak Bowtie's harness protocol on stdin/stdout (the structure gate on bowtie.report)"},
    {"loop", gt_cmd_loop, "play a scripted agent loop through the reference StructuredOutput state machine"},
    {"strict", gt_cmd_strict, "strict-subset wire conversion of a schema (seed 000)"},
    {"transform", gt_cmd_transform, "SDK-style wire transform of a schema (seed 004)"},
    {"lint", gt_cmd_lint, "predict provider rejections of a schema"},
    {"repair", gt_cmd_repair, "print the bounded repair request for a failed output"},
    {"serve", gt_cmd_serve, "run the mock model server (Anthropic + OpenAI over HTTP) until SIGINT"},
    {"record", gt_cmd_record, "record provider traffic through a proxy as a replayable corpus"},
    {"client", gt_cmd_client, "run the reference pipeline against a base URL over HTTP (libcurl)"},
    {"help", gt_cmd_help, "print the help of gauntlet or of one command (or its man page)"},
    {"version", gt_cmd_version, "print gauntlet's version"},
    {"completion", gt_cmd_completion, "print a bash or zsh completion script"},
};

const gt_cli_command *gt_cli_commands(size_t *count)
{
    *count = sizeof commands / sizeof commands[0];
    return commands;
}

const gt_cli_command *gt_cli_find(const char *name)
{
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (strcmp(name, commands[i].name) == 0)
            return &commands[i];
    return NULL;
}

/* Optimal string alignment distance (Levenshtein plus adjacent swaps);
 * words are short (command and option names), capped at 64 bytes. */
static size_t edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 64 || lb > 64)
        return (size_t)-1;
    size_t d[65][65];
    for (size_t i = 0; i <= la; i++)
        d[i][0] = i;
    for (size_t j = 0; j <= lb; j++)
        d[0][j] = j;
    for (size_t i = 1; i <= la; i++)
        for (size_t j = 1; j <= lb; j++) {
            size_t best = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
            if (d[i - 1][j] + 1 < best)
                best = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < best)
                best = d[i][j - 1] + 1;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < best)
                best = d[i - 2][j - 2] + 1;
            d[i][j] = best;
        }
    return d[la][lb];
}

const char *gt_cli_nearest(const char *word, const char *const *candidates, size_t count)
{
    size_t len = strlen(word);
    size_t allowed = len <= 4 ? 1 : len <= 8 ? 2 : 3, best_distance = allowed + 1;
    const char *best = NULL;
    for (size_t i = 0; i < count; i++) {
        size_t distance = edit_distance(word, candidates[i]);
        if (distance < best_distance && distance < strlen(candidates[i])) {
            best = candidates[i];
            best_distance = distance;
        }
    }
    return best;
}

void gt_cli_hint_option(const char *name, const char *arg)
{
    char suggestion[64];
    const gt_cli_command *command = gt_cli_find(name);
    if (command != NULL && gt_cli_suggest_option(command, arg, suggestion, sizeof suggestion) != NULL)
        fprintf(stderr, "gauntlet %s: did you mean '%s'?\n", name, suggestion);
}

void gt_cli_usage(FILE *out)
{
    fprintf(out, "usage: gauntlet <command> [options]\n"
                 "       gauntlet --version\n\n"
                 "Replay adversarial model outputs against a structured-output pipeline (the reference,\n"
                 "an adapter or a whole client over HTTP) and report per gate. See README.md and docs/.\n"
                 "\ncommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].summary);
    fprintf(out, "\n'gauntlet help <command>' (or 'gauntlet <command> --help') describes one command.\n"
                 "exit: 0 success, 1 a failure the command reports (rejected, invalid, a case failed),\n"
                 "      2 usage, I/O or input-file error\n");
}

int gt_cli_main(int argc, char **argv)
{
    if (argc < 2) {
        gt_cli_usage(stderr);
        return 2;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        gt_cli_usage(stdout);
        return 0;
    }
    if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0)
        return gt_cmd_version(1, (char *[]){"version", NULL});
    const gt_cli_command *command = gt_cli_find(argv[1]);
    if (command != NULL)
        return command->run(argc - 1, argv + 1);
    fprintf(stderr, "gauntlet: unknown command '%s'\n", argv[1]);
    const char *names[sizeof commands / sizeof commands[0]];
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        names[i] = commands[i].name;
    const char *nearest = argv[1][0] == '-' ? NULL : gt_cli_nearest(argv[1], names, sizeof commands / sizeof commands[0]);
    if (nearest != NULL)
        fprintf(stderr, "gauntlet: did you mean '%s'?\n\n", nearest);
    gt_cli_usage(stderr);
    return 2;
}
