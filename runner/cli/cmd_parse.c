/* cmd_parse.c — `gauntlet parse`: the syntax gate on one raw output.
 *
 * Contract (relied on by external checks): exit 0 accepted (with --print the
 * value as compact JSON on stdout), exit 1 rejected with exactly one line
 * `reject syntax <reason> at L:C: <message>`, exit 2 usage or I/O error. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_io.h"
#include "commands.h"
#include "gauntlet/parse.h"

static void parse_usage(FILE *out)
{
    fprintf(out,
            "usage: gauntlet parse [--print] [--excerpt] [--max-depth N] [--max-bytes N] [--reject-nul]\n"
            "                      [--allow-big-integers] [FILE|-]\n"
            "\n"
            "Run the strict syntax gate on one raw model output (FILE or standard input).\n"
            "  --print                print the accepted value as compact JSON\n"
            "  --excerpt              on rejection, also print the bytes around the error\n"
            "  --max-depth N          nesting limit (default %u)\n"
            "  --max-bytes N          size limit in bytes, k/M/G suffixes allowed (default %u)\n"
            GT_CLI_NUL_HELP
            "  --allow-big-integers   keep numbers beyond 2^53-1 exactly even when a double cannot hold them\n"
            "                         as written, instead of rejecting (number_precision)\n"
            "exit: 0 accepted, 1 rejected ('reject syntax <reason> at L:C: <message>'), 2 usage or I/O error\n",
            GT_PARSE_DEFAULT_MAX_DEPTH, GT_PARSE_DEFAULT_MAX_BYTES);
}

int gt_cmd_parse(int argc, char **argv)
{
    gt_parse_options options;
    gt_parse_options_init(&options);
    bool print = false, excerpt = false;
    const char *path = NULL;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            parse_usage(stdout);
            return 0;
        } else if (strcmp(arg, "--print") == 0) {
            print = true;
        } else if (strcmp(arg, "--excerpt") == 0) {
            excerpt = true;
        } else if (gt_cli_nul_flag(arg, &options.reject_nul)) {
            continue;
        } else if (strcmp(arg, "--allow-big-integers") == 0) {
            options.allow_big_integers = true;
        } else if (strcmp(arg, "--max-depth") == 0 || strcmp(arg, "--max-bytes") == 0) {
            size_t number;
            if (i + 1 >= argc || gt_parse_size(argv[i + 1], &number) != 0 || number == 0) {
                fprintf(stderr, "gauntlet parse: %s needs a positive number\n", arg);
                return 2;
            }
            if (strcmp(arg, "--max-depth") == 0)
                options.max_depth = number;
            else
                options.max_bytes = number;
            i++;
        } else if (arg[0] == '-' && arg[1] != '\0') {
            fprintf(stderr, "gauntlet parse: unknown option '%s'\n", arg);
            gt_cli_hint_option("parse", arg);
            parse_usage(stderr);
            return 2;
        } else if (path != NULL) {
            fprintf(stderr, "gauntlet parse: more than one input ('%s' and '%s')\n", path, arg);
            return 2;
        } else {
            path = arg;
        }
    }
    char err[512];
    gt_arena *arena = gt_arena_new();
    if (arena == NULL) {
        fprintf(stderr, "gauntlet parse: out of memory\n");
        return 2;
    }
    char *text;
    gt_parse_error error;
    gt_value *root = gt_read_and_parse(arena, path, &options, &text, &error, err, sizeof err);
    if (text == NULL) {
        gt_arena_free(arena);
        fprintf(stderr, "gauntlet parse: %s\n", err);
        return 2;
    }
    int status = 0;
    if (root == NULL) {
        printf("reject syntax %s at %u:%u: %s\n", gt_syntax_reason_code(error.reason), error.line, error.column,
               error.message);
        if (excerpt)
            printf("  near: %s\n", error.excerpt);
        status = error.reason == GT_SYNTAX_OUT_OF_MEMORY ? 2 : 1;
    } else if (print) {
        char *json = gt_value_to_json(root, NULL);
        if (json == NULL) {
            fprintf(stderr, "gauntlet parse: out of memory\n");
            status = 2;
        } else {
            printf("%s\n", json);
            free(json);
        }
    }
    gt_arena_free(arena);
    free(text);
    return status;
}
