/* cmd_transform.c — `gauntlet transform SCHEMA [--flavor python|typescript]`:
 * the SDK-style wire transform of seed 004.
 *
 * Contract: exit 0 prints the transformed schema as compact JSON on one line;
 * exit 1 prints exactly one line `error <code> at <json-pointer>: <message>`;
 * exit 2 usage, unreadable file or not JSON. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_io.h"
#include "commands.h"
#include "gauntlet/wire.h"
#include "wire_cli.h"

static void transform_usage(FILE *out)
{
    fprintf(out, "usage: gauntlet transform [--flavor python|typescript] [--reject-nul] [--help] SCHEMA|-\n"
                 "\n"
                 "Transform a schema the way the Anthropic SDKs do before sending it: unsupported keywords move\n"
                 "into the description as \"{key: value, ...}\", objects get additionalProperties false.\n"
                 "  --flavor F   how values are written into the description: python (str(), default) or\n"
                 "               typescript (JSON.stringify)\n"
                 GT_CLI_NUL_HELP
                 "exit: 0 transformed (compact JSON), 1 transform error ('error <code> at <json-pointer>: "
                 "<message>'),\n"
                 "      2 usage, unreadable file or not JSON\n");
}

int gt_cmd_transform(int argc, char **argv)
{
    const char *path = NULL;
    bool reject_nul = false;
    gt_wire_flavor flavor = GT_WIRE_FLAVOR_PYTHON;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            transform_usage(stdout);
            return 0;
        } else if (strcmp(arg, "--flavor") == 0 || strncmp(arg, "--flavor=", 9) == 0) {
            const char *name = arg[8] == '=' ? arg + 9 : (i + 1 < argc ? argv[++i] : NULL);
            int parsed = gt_wire_flavor_from_name(name);
            if (parsed < 0) {
                fprintf(stderr, "gauntlet transform: --flavor needs python or typescript, not '%s'\n",
                        name ? name : "");
                return 2;
            }
            flavor = (gt_wire_flavor)parsed;
        } else if (gt_cli_nul_flag(arg, &reject_nul)) {
            continue;
        } else if (arg[0] == '-' && arg[1] != '\0') {
            fprintf(stderr, "gauntlet transform: unknown option '%s'\n", arg);
            gt_cli_hint_option("transform", arg);
            transform_usage(stderr);
            return 2;
        } else if (path != NULL) {
            fprintf(stderr, "gauntlet transform: more than one schema ('%s' and '%s')\n", path, arg);
            return 2;
        } else {
            path = arg;
        }
    }
    if (path == NULL) {
        fprintf(stderr, "gauntlet transform: no schema given\n");
        transform_usage(stderr);
        return 2;
    }
    gt_arena *arena = gt_arena_new();
    if (arena == NULL) {
        fprintf(stderr, "gauntlet transform: out of memory\n");
        return 2;
    }
    int status = 2;
    const gt_value *schema = wire_cli_load_schema("transform", path, reject_nul, arena);
    if (schema != NULL) {
        gt_value *out = NULL;
        gt_wire_problem problem;
        int result = gt_wire_transform(arena, schema, flavor, &out, &problem);
        if (result == GT_WIRE_OK) {
            char *json = gt_value_to_json(out, NULL);
            if (json != NULL) {
                printf("%s\n", json);
                free(json);
                status = 0;
            } else {
                fprintf(stderr, "gauntlet transform: out of memory\n");
            }
        } else if (result == GT_WIRE_REJECTED) {
            printf("error %s at %s: %s\n", problem.code, problem.location, problem.message);
            status = 1;
        } else {
            fprintf(stderr, "gauntlet transform: out of memory\n");
        }
    }
    gt_arena_free(arena);
    return status;
}
