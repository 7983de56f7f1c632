/* cmd_strict.c — `gauntlet strict SCHEMA`: the strict-subset wire conversion
 * of seed 000.
 *
 * Contract: exit 0 prints the strict schema as compact JSON on one line;
 * exit 1 prints exactly one line `fallback <reason> at <json-pointer>:
 * <message>` (an empty pointer is the root; the caller keeps the original
 * schema and local validation); exit 2 usage, unreadable file or not JSON. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_io.h"
#include "commands.h"
#include "gauntlet/wire.h"
#include "wire_cli.h"

static void strict_usage(FILE *out)
{
    fprintf(out, "usage: gauntlet strict [--reject-nul] [--help] SCHEMA|-\n"
                 "\n"
                 "Derive the strict wire schema of seed 000 (allowed keywords $schema, type, description, title,\n"
                 "properties, required, additionalProperties, items, enum, const, anyOf; depth %u; %u nodes).\n"
                 GT_CLI_NUL_HELP
                 "exit: 0 converted (the schema as compact JSON), 1 fallback ('fallback <reason> at <json-pointer>: "
                 "<message>'),\n"
                 "      2 usage, unreadable file or not JSON\n",
            GT_STRICT_MAX_DEPTH, GT_STRICT_MAX_NODES);
}

int gt_cmd_strict(int argc, char **argv)
{
    const char *path = NULL;
    bool reject_nul = false;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            strict_usage(stdout);
            return 0;
        } else if (gt_cli_nul_flag(arg, &reject_nul)) {
            continue;
        } else if (arg[0] == '-' && arg[1] != '\0') {
            fprintf(stderr, "gauntlet strict: unknown option '%s'\n", arg);
            gt_cli_hint_option("strict", arg);
            strict_usage(stderr);
            return 2;
        } else if (path != NULL) {
            fprintf(stderr, "gauntlet strict: more than one schema ('%s' and '%s')\n", path, arg);
            return 2;
        } else {
            path = arg;
        }
    }
    if (path == NULL) {
        fprintf(stderr, "gauntlet strict: no schema given\n");
        strict_usage(stderr);
        return 2;
    }
    gt_arena *arena = gt_arena_new();
    if (arena == NULL) {
        fprintf(stderr, "gauntlet strict: out of memory\n");
        return 2;
    }
    int status = 2;
    const gt_value *schema = wire_cli_load_schema("strict", path, reject_nul, arena);
    if (schema != NULL) {
        gt_value *strict = NULL;
        gt_wire_problem problem;
        int result = gt_wire_strict(arena, schema, &strict, &problem);
        if (result == GT_WIRE_OK) {
            char *json = gt_value_to_json(strict, NULL);
            if (json != NULL) {
                printf("%s\n", json);
                free(json);
                status = 0;
            } else {
                fprintf(stderr, "gauntlet strict: out of memory\n");
            }
        } else if (result == GT_WIRE_REJECTED) {
            printf("fallback %s at %s: %s\n", problem.code, problem.location, problem.message);
            status = 1;
        } else {
            fprintf(stderr, "gauntlet strict: out of memory\n");
        }
    }
    gt_arena_free(arena);
    return status;
}
