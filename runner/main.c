/* main.c — the gauntlet command-line entry point: dispatch to a subcommand. */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "gauntlet/version.h"

typedef struct command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
} command;

static const command commands[] = {
    {"parse", gt_cmd_parse, "syntax gate on one raw output: exit 0 accepted, 1 rejected"},
    {"validate", gt_cmd_validate, "syntax + structure gate against a JSON Schema"},
    {"run", gt_cmd_run, "replay the corpus against a target and report per gate"},
    {"matrix", gt_cmd_matrix, "run many implementations over one selection and report them side by side"},
    {"merge", gt_cmd_merge, "join the JSON reports of 'run --shard K/N' into one run's reports"},
    {"show", gt_cmd_show, "run one case and show everything about it (input, gates, transcript)"},
    {"rules", gt_cmd_rules, "list the seed rules and spec clauses the corpus proves, and those it does not"},
    {"jsts", gt_cmd_jsts, "run JSON-Schema-Test-Suite files against the structure gate"},
    {"loop", gt_cmd_loop, "play a scripted agent loop through the reference StructuredOutput state machine"},
    {"strict", gt_cmd_strict, "strict-subset wire conversion of a schema (seed 000)"},
    {"transform", gt_cmd_transform, "SDK-style wire transform of a schema (seed 004)"},
    {"lint", gt_cmd_lint, "predict provider rejections of a schema"},
    {"repair", gt_cmd_repair, "print the bounded repair request for a failed output"},
    {"serve", gt_cmd_serve, "run the mock model server (Anthropic + OpenAI over HTTP) until SIGINT"},
    {"client", gt_cmd_client, "run the reference pipeline against a base URL over HTTP (libcurl)"},
};

static void usage(FILE *out)
{
    fprintf(out, "usage: gauntlet <command> [options]\n\ncommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].summary);
    fprintf(out, "\n'gauntlet <command> --help' describes one command.\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "help") == 0) {
        usage(stdout);
        return 0;
    }
    if (strcmp(argv[1], "--version") == 0) {
        printf("gauntlet %s\n", GAUNTLET_VERSION);
        return 0;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (strcmp(argv[1], commands[i].name) == 0)
            return commands[i].run(argc - 1, argv + 1);
    fprintf(stderr, "gauntlet: unknown command '%s'\n", argv[1]);
    usage(stderr);
    return 2;
}
