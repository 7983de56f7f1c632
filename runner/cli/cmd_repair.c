/* cmd_repair.c — `gauntlet repair`: print the repair request the reference
 * would send for one raw output, so users can see exactly what the model is
 * told (docs/repair.md).
 *
 *   gauntlet repair --schema S --raw FILE [--rules F] [--context F]
 *                   [--policy F] [--task TEXT] [--max-attempts N] [--json]
 *
 * Exit: 0 the output passes every gate (nothing to repair), 1 a request was
 * built, or the failure escalates / is denied (never repaired), 2 usage or
 * input error. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_io.h"
#include "commands.h"
#include "gauntlet/parse.h"
#include "gauntlet/pipeline.h"
#include "gauntlet/repair.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: gauntlet repair --schema SCHEMA.json --raw OUTPUT.txt [--rules RULES.json]\n"
            "                       [--context CONTEXT.json] [--policy POLICY.json] [--task TEXT]\n"
            "                       [--max-attempts N] [--json]\n"
            "\n"
            "Print the bounded repair request the reference pipeline would send for OUTPUT (docs/repair.md).\n"
            "  --schema FILE        the contract's JSON Schema\n"
            "  --raw FILE           the model output to repair ('-' = standard input)\n"
            "  --rules FILE         semantic rules (docs/rules.md): the semantic gate runs too\n"
            "  --context FILE       trusted facts, one JSON object, for the semantic rules\n"
            "  --policy FILE        the policy table: the policy gate runs too\n"
            "  --task TEXT          the trusted instruction the request repeats\n"
            "  --max-attempts N     repair budget, 1..%d (default %d)\n"
            "  --json               print {\"repair\": accounting, \"request\": text} instead of the request\n"
            "exit: 0 nothing to repair, 1 a request was printed or the failure escalates or is denied,\n"
            "      2 usage or input error\n",
            GT_REPAIR_MAX_ATTEMPTS, GT_REPAIR_DEFAULT_MAX_ATTEMPTS);
}

typedef struct repair_args {
    const char *schema, *raw, *rules, *context, *policy, *task;
    int max_attempts;
    bool json;
} repair_args;

static int parse_args(int argc, char **argv, repair_args *args)
{
    memset(args, 0, sizeof *args);
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        const char **slot = strcmp(arg, "--schema") == 0    ? &args->schema
                            : strcmp(arg, "--raw") == 0     ? &args->raw
                            : strcmp(arg, "--rules") == 0   ? &args->rules
                            : strcmp(arg, "--context") == 0 ? &args->context
                            : strcmp(arg, "--policy") == 0  ? &args->policy
                            : strcmp(arg, "--task") == 0    ? &args->task
                                                            : NULL;
        if (slot != NULL || strcmp(arg, "--max-attempts") == 0) {
            if (i + 1 >= argc) {
                fprintf(stderr, "gauntlet repair: %s needs a value\n", arg);
                return -1;
            }
            if (slot != NULL)
                *slot = argv[++i];
            else {
                char *end = NULL;
                long n = strtol(argv[++i], &end, 10);
                if (end == argv[i] || *end != '\0' || n < 1 || n > GT_REPAIR_MAX_ATTEMPTS) {
                    fprintf(stderr, "gauntlet repair: --max-attempts must be 1..%d\n", GT_REPAIR_MAX_ATTEMPTS);
                    return -1;
                }
                args->max_attempts = (int)n;
            }
        } else if (strcmp(arg, "--json") == 0)
            args->json = true;
        else if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
            usage(stdout);
            return 1;
        } else {
            fprintf(stderr, "gauntlet repair: unknown argument '%s'\n", arg);
            return -1;
        }
    }
    if (args->schema == NULL || args->raw == NULL) {
        fprintf(stderr, "gauntlet repair: --schema and --raw are required\n");
        return -1;
    }
    return 0;
}

/* Everything the command owns, released in one place. */
typedef struct repair_state {
    char *schema_text, *raw, *rules_text, *context_text, *policy_text;
    gt_schema *schema;
    gt_semantic_rules *rules;
    gt_policy *policy;
    gt_arena *arena;
} repair_state;

static void state_free(repair_state *s)
{
    free(s->schema_text), free(s->raw), free(s->rules_text), free(s->context_text), free(s->policy_text);
    gt_schema_free(s->schema);
    gt_semantic_rules_free(s->rules);
    gt_policy_free(s->policy);
    gt_arena_free(s->arena);
}

static char *read_or_report(const char *path, size_t *len)
{
    char err[512];
    char *text = gt_read_file(path, len, err, sizeof err);
    if (text == NULL)
        fprintf(stderr, "gauntlet repair: %s\n", err);
    return text;
}

static int load(const repair_args *args, repair_state *s, gt_pipeline_config *config, size_t *raw_len)
{
    size_t len = 0;
    if ((s->arena = gt_arena_new()) == NULL)
        return -1;
    if ((s->schema_text = read_or_report(args->schema, &len)) == NULL)
        return -1;
    gt_schema_problem problem;
    s->schema = gt_schema_compile(s->schema_text, len, NULL, &problem);
    if (s->schema == NULL) {
        fprintf(stderr, "gauntlet repair: %s: schema does not compile at \"%s\": %s\n", args->schema,
                problem.location, problem.message);
        return -1;
    }
    config->schema = s->schema;
    if ((s->raw = read_or_report(args->raw, raw_len)) == NULL)
        return -1;
    if (args->rules != NULL) {
        if ((s->rules_text = read_or_report(args->rules, &len)) == NULL)
            return -1;
        gt_semantic_problem rule_problem;
        if ((s->rules = gt_semantic_compile(s->rules_text, len, &rule_problem)) == NULL) {
            fprintf(stderr, "gauntlet repair: %s at \"%s\": %s\n", args->rules, rule_problem.location,
                    rule_problem.message);
            return -1;
        }
        config->rules = s->rules;
    }
    if (args->policy != NULL) {
        if ((s->policy_text = read_or_report(args->policy, &len)) == NULL)
            return -1;
        gt_policy_problem policy_problem;
        if ((s->policy = gt_policy_compile(s->policy_text, len, &policy_problem)) == NULL) {
            fprintf(stderr, "gauntlet repair: %s at \"%s\": %s\n", args->policy, policy_problem.location,
                    policy_problem.message);
            return -1;
        }
        config->policy = s->policy;
    }
    if (args->context != NULL) {
        if ((s->context_text = read_or_report(args->context, &len)) == NULL)
            return -1;
        gt_parse_error error;
        config->context = gt_parse(s->arena, s->context_text, len, NULL, &error);
        if (config->context == NULL || config->context->type != GT_OBJECT) {
            fprintf(stderr, "gauntlet repair: %s: the context must be one JSON object\n", args->context);
            return -1;
        }
        config->today = NULL;
    }
    return 0;
}

static const char *schema_id(repair_state *s)
{
    gt_parse_error error;
    const gt_value *root = gt_parse(s->arena, s->schema_text, strlen(s->schema_text), NULL, &error);
    const gt_value *id = root && root->type == GT_OBJECT ? gt_value_get(root, "$id", 3) : NULL;
    return id && id->type == GT_STRING ? id->u.str.chars : NULL;
}

int gt_cmd_repair(int argc, char **argv)
{
    repair_args args;
    int parsed = parse_args(argc, argv, &args);
    if (parsed != 0) {
        if (parsed < 0)
            usage(stderr);
        return parsed < 0 ? 2 : 0;
    }
    repair_state state;
    memset(&state, 0, sizeof state);
    gt_pipeline_config config;
    memset(&config, 0, sizeof config);
    size_t raw_len = 0;
    if (load(&args, &state, &config, &raw_len) != 0) {
        state_free(&state);
        return 2;
    }
    gt_repair_config repair = {
        .pipeline = &config,
        .max_attempts = args.max_attempts,
        .task = args.task,
        .context_json = state.context_text,
        .contract_name = schema_id(&state),
        .contract_summary = state.schema_text,
    };
    gt_pipeline_outcome outcome;
    gt_pipeline_outcome_init(&outcome);
    gt_repair_result result;
    int exit_code = 1;
    if (gt_repair_run(&repair, state.raw, raw_len, state.arena, &outcome, &result) != 0) {
        fprintf(stderr, "gauntlet repair: out of memory\n");
        exit_code = 2;
    } else if (args.json) {
        char *accounting = gt_repair_result_json(&result);
        gt_value *request = result.last_request
                                ? gt_value_new_string(state.arena, result.last_request, strlen(result.last_request))
                                : gt_value_new_null(state.arena);
        char *request_json = request ? gt_value_to_json(request, NULL) : NULL;
        if (accounting == NULL || request_json == NULL) {
            fprintf(stderr, "gauntlet repair: out of memory\n");
            exit_code = 2;
        } else {
            printf("{\"repair\":%s,\"request\":%s}\n", accounting, request_json);
            exit_code = result.status == GT_REPAIR_ACCEPTED ? 0 : 1;
        }
        free(accounting);
        free(request_json);
    } else if (result.status == GT_REPAIR_ACCEPTED) {
        printf("accepted: the output passes every gate; nothing to repair\n");
        exit_code = 0;
    } else if (result.status == GT_REPAIR_ESCALATED || result.status == GT_REPAIR_DENIED) {
        printf("%s: %s gate, %s: %s\nno repair request: %s\n", gt_repair_status_name(result.status),
               gt_pipeline_gate_name(result.gate), result.reason, result.message,
               result.status == GT_REPAIR_DENIED ? "a policy denial is final"
                                                 : "repairing would invent facts; escalate to a human");
    } else if (result.status == GT_REPAIR_EXHAUSTED) {
        printf("repair_exhausted: --max-attempts 1 allows no repair (%s gate, %s)\n",
               gt_pipeline_gate_name(result.gate), outcome.reason ? outcome.reason : "");
    } else
        fputs(result.last_request ? result.last_request : "", stdout);
    gt_repair_result_free(&result);
    gt_pipeline_outcome_free(&outcome);
    state_free(&state);
    return exit_code;
}
