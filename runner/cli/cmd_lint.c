/* cmd_lint.c — `gauntlet lint SCHEMA... [--provider anthropic|openai]
 * [--strict-tools N]`: predict what the provider rejects.
 *
 * Contract: one line per finding on standard output,
 * `<schema file>: <code> at <json-pointer>: <message>` (per-request budgets:
 * `request: <code>: <message>`); exit 0 clean (nothing printed), 1 findings,
 * 2 usage, unreadable file or not JSON. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_io.h"
#include "commands.h"
#include "gauntlet/wire.h"
#include "wire_cli.h"

static void lint_usage(FILE *out)
{
    fprintf(out,
            "usage: gauntlet lint [--provider anthropic|openai] [--strict-tools N] [--reject-nul] [--help] SCHEMA...\n"
            "\n"
            "Predict what the provider rejects in these schemas (all sent in one request).\n"
            "  --provider P       anthropic (default) or openai\n"
            "  --strict-tools N   strict tools in the request (default: one per SCHEMA); Anthropic allows %u\n"
            GT_CLI_NUL_HELP
            "anthropic: unsupported keywords and formats, numeric/string bounds, array constraints beyond\n"
            "  minItems 0/1, additionalProperties other than false, complex enums, external/unresolved/recursive\n"
            "  $ref, pattern features (backreferences, lookaround, \\b, {n,m} above %u), per-request budgets\n"
            "  (%u strict tools, %u optional parameters, %u parameters with anyOf or type arrays)\n"
            "openai: root object and not anyOf, every property required, additionalProperties false,\n"
            "  unsupported keywords, %u properties, %u nesting levels, %u enum values, %u characters\n"
            "exit: 0 clean, 1 findings ('<file>: <code> at <json-pointer>: <message>'), 2 usage or input error\n",
            GT_WIRE_ANTHROPIC_MAX_STRICT_TOOLS, GT_WIRE_ANTHROPIC_PATTERN_MAX_REPEAT,
            GT_WIRE_ANTHROPIC_MAX_STRICT_TOOLS, GT_WIRE_ANTHROPIC_MAX_OPTIONAL_PARAMS,
            GT_WIRE_ANTHROPIC_MAX_UNION_PARAMS, GT_WIRE_OPENAI_MAX_PROPERTIES, GT_WIRE_OPENAI_MAX_NESTING,
            GT_WIRE_OPENAI_MAX_ENUM_VALUES, GT_WIRE_OPENAI_MAX_TOTAL_CHARS);
}

int gt_cmd_lint(int argc, char **argv)
{
    gt_wire_lint_options options;
    gt_wire_lint_options_init(&options);
    const char **paths = calloc((size_t)argc, sizeof *paths);
    const gt_value **schemas = calloc((size_t)argc, sizeof *schemas);
    gt_arena *arena = gt_arena_new();
    size_t count = 0;
    int status = 2;
    bool reject_nul = false;
    if (paths == NULL || schemas == NULL || arena == NULL) {
        fprintf(stderr, "gauntlet lint: out of memory\n");
        goto done;
    }
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            lint_usage(stdout);
            status = 0;
            goto done;
        } else if (strcmp(arg, "--provider") == 0 || strncmp(arg, "--provider=", 11) == 0) {
            const char *name = arg[10] == '=' ? arg + 11 : (i + 1 < argc ? argv[++i] : NULL);
            int provider = gt_wire_provider_from_name(name);
            if (provider < 0) {
                fprintf(stderr, "gauntlet lint: --provider needs anthropic or openai, not '%s'\n", name ? name : "");
                goto done;
            }
            options.provider = (gt_wire_provider)provider;
        } else if (strcmp(arg, "--strict-tools") == 0 || strncmp(arg, "--strict-tools=", 15) == 0) {
            const char *number = arg[14] == '=' ? arg + 15 : (i + 1 < argc ? argv[++i] : NULL);
            size_t tools;
            if (number == NULL || strspn(number, "0123456789") != strlen(number) ||
                gt_parse_size(number, &tools) != 0 || tools == 0) {
                fprintf(stderr, "gauntlet lint: --strict-tools needs a positive number, not '%s'\n",
                        number ? number : "");
                goto done;
            }
            options.strict_tools = tools;
        } else if (gt_cli_nul_flag(arg, &reject_nul)) {
            continue;
        } else if (arg[0] == '-' && arg[1] != '\0') {
            fprintf(stderr, "gauntlet lint: unknown option '%s'\n", arg);
            gt_cli_hint_option("lint", arg);
            lint_usage(stderr);
            goto done;
        } else {
            paths[count++] = arg;
        }
    }
    if (count == 0) {
        fprintf(stderr, "gauntlet lint: no schema given\n");
        lint_usage(stderr);
        goto done;
    }
    for (size_t i = 0; i < count; i++) {
        schemas[i] = wire_cli_load_schema("lint", paths[i], reject_nul, arena);
        if (schemas[i] == NULL)
            goto done;
    }
    gt_wire_findings findings = {0};
    int result = gt_wire_lint(schemas, count, &options, &findings);
    if (result < 0) {
        fprintf(stderr, "gauntlet lint: out of memory\n");
    } else {
        for (size_t i = 0; i < findings.count; i++) {
            const gt_wire_finding *finding = &findings.items[i];
            if (finding->schema_index == GT_WIRE_REQUEST)
                printf("request: %s: %s\n", finding->code, finding->message);
            else
                printf("%s: %s at %s: %s\n", paths[finding->schema_index], finding->code, finding->location,
                       finding->message);
        }
        status = result;
    }
    gt_wire_findings_free(&findings);
done:
    gt_arena_free(arena);
    free(paths);
    free(schemas);
    return status;
}
