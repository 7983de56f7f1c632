/* cmd_client.c — `gauntlet client`: the reference pipeline (the agent loop of
 * loop.h) against any compatible server over HTTP, through the libcurl model
 * of client.h.
 *
 * Contract: stdout gets exactly one line, the terminal envelope as compact
 * JSON (gt_loop_envelope_json); --transcript puts the loop's turn-by-turn
 * notes on stderr. Exit 0 for subtype success, 1 for any error subtype, 2 for
 * usage or input errors. The API key comes from --api-key, else
 * ANTHROPIC_API_KEY / OPENAI_API_KEY; MAX_STRUCTURED_OUTPUT_RETRIES is read
 * here (the loop never reads the environment). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_io.h"
#include "commands.h"
#include "gauntlet/client.h"
#include "gauntlet/loop.h"
#include "gauntlet/runner/mock.h"

static void client_usage(FILE *out)
{
    fprintf(out,
            "usage: gauntlet client --base-url URL --json-schema SCHEMA [--provider anthropic|openai]\n"
            "                       [--stream|--no-stream] [--model M] [--strict] [--max-attempts N]\n"
            "                       [--api-key KEY] [--max-tokens N] [--timeout MS] [--transcript] PROMPT\n"
            "       gauntlet client --base-url URL --script FILE [options]\n"
            "\n"
            "Run the reference pipeline (StructuredOutput tool, validation, enforce, retries, tombstones,\n"
            "provider errors with backoff honouring retry-after) against a server over HTTP and print the\n"
            "terminal envelope as one JSON line.\n"
            "  --base-url URL       e.g. http://127.0.0.1:PORT/s/<scenario>/<run-id> or https://api.anthropic.com\n"
            "  --json-schema SCHEMA the caller's JSON Schema: JSON text, or @FILE\n"
            "  --script FILE        take schema, prompt, history and limits from a loop script\n"
            "  --provider P         anthropic (default) or openai\n"
            "  --stream / --no-stream   ask for SSE (default) or a JSON body\n"
            "  --model M            model name (default claude-sonnet-4-5 / gpt-4o-mini)\n"
            "  --strict             send the StructuredOutput tool with strict:true\n"
            "  --max-attempts N     StructuredOutput attempts (default 5, or $MAX_STRUCTURED_OUTPUT_RETRIES)\n"
            "  --api-key KEY        default $ANTHROPIC_API_KEY / $OPENAI_API_KEY\n"
            "  --max-tokens N       default 4096\n"
            "  --timeout MS         per-request deadline (default 120000)\n"
            "  --transcript         print the loop's transcript on stderr\n"
            "exit: 0 success, 1 an error subtype, 2 usage or input error\n");
}

static int usage_error(const char *message, const char *detail)
{
    fprintf(stderr, "gauntlet client: %s%s%s\n(gauntlet client --help lists the options)\n", message,
            detail ? " " : "", detail ? detail : "");
    return 2;
}

int gt_cmd_client(int argc, char **argv)
{
    gt_client_options options = {0};
    options.stream = true;
    const char *schema_arg = NULL, *script_path = NULL, *prompt = NULL, *api_key = NULL;
    bool strict = false, transcript = false, mirror = false;
    int max_attempts = -1;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        const char *value = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            client_usage(stdout);
            return 0;
        } else if (strcmp(arg, "--stream") == 0) {
            options.stream = true;
        } else if (strcmp(arg, "--no-stream") == 0) {
            options.stream = false;
        } else if (strcmp(arg, "--strict") == 0) {
            strict = true;
        } else if (strcmp(arg, "--transcript") == 0) {
            transcript = true;
        } else if (strcmp(arg, "--mirror") == 0) {
            mirror = true;
        } else if (arg[0] == '-' && arg[1] == '-') {
            if (value == NULL)
                return usage_error("missing value for", arg);
            i++;
            if (strcmp(arg, "--base-url") == 0)
                options.base_url = value;
            else if (strcmp(arg, "--json-schema") == 0)
                schema_arg = value;
            else if (strcmp(arg, "--script") == 0)
                script_path = value;
            else if (strcmp(arg, "--model") == 0)
                options.model = value;
            else if (strcmp(arg, "--api-key") == 0)
                api_key = value;
            else if (strcmp(arg, "--provider") == 0) {
                int provider = gt_stream_provider_from_name(value);
                if (provider < 0)
                    return usage_error("--provider must be anthropic or openai, not", value);
                options.provider = (gt_stream_provider)provider;
            } else if (strcmp(arg, "--max-attempts") == 0) {
                if (gt_loop_attempts_from_env(value, &max_attempts) != 0)
                    return usage_error("--max-attempts must be an integer, not", value);
            } else if (strcmp(arg, "--max-tokens") == 0) {
                options.max_tokens = strtol(value, NULL, 10);
                if (options.max_tokens <= 0)
                    return usage_error("--max-tokens must be a positive integer, not", value);
            } else if (strcmp(arg, "--timeout") == 0) {
                options.timeout_ms = strtol(value, NULL, 10);
                if (options.timeout_ms <= 0)
                    return usage_error("--timeout must be milliseconds, not", value);
            } else {
                return usage_error("unknown option", arg);
            }
        } else if (prompt == NULL) {
            prompt = arg;
        } else {
            return usage_error("one PROMPT only; unexpected", arg);
        }
    }
    if (options.base_url == NULL)
        return usage_error("--base-url is required", NULL);
    if (schema_arg == NULL && script_path == NULL)
        return usage_error("--json-schema (or --script) is required", NULL);
    if (api_key == NULL)
        api_key = getenv(options.provider == GT_PROVIDER_OPENAI ? "OPENAI_API_KEY" : "ANTHROPIC_API_KEY");
    options.api_key = api_key;
    options.mirror = mirror;

    char err[512];
    char *schema_text = NULL;
    size_t schema_len = 0;
    if (schema_arg != NULL) {
        if (schema_arg[0] == '@') {
            schema_text = gt_read_file(schema_arg + 1, &schema_len, err, sizeof err);
            if (schema_text == NULL) {
                fprintf(stderr, "gauntlet client: %s\n", err);
                return 2;
            }
        } else {
            schema_len = strlen(schema_arg);
            schema_text = malloc(schema_len + 1);
            if (schema_text == NULL)
                return 2;
            memcpy(schema_text, schema_arg, schema_len + 1);
        }
    }
    gt_loop_script *script = NULL;
    gt_loop_config own;
    gt_loop_config *config = &own;
    gt_loop_config_init(&own);
    if (script_path != NULL) {
        size_t len;
        char *text = gt_read_file(script_path, &len, err, sizeof err);
        if (text == NULL) {
            fprintf(stderr, "gauntlet client: %s\n", err);
            free(schema_text);
            return 2;
        }
        /* a mock scenario file may carry faults: the loop never sees them */
        char *case_schema = NULL;
        char *clean = gt_mock_script_text(text, &case_schema, err, sizeof err);
        free(text);
        if (clean == NULL) {
            fprintf(stderr, "gauntlet client: %s: %s\n", script_path, err);
            free(schema_text);
            return 2;
        }
        gt_loop_script_problem problem;
        script = gt_loop_script_load(clean, strlen(clean), schema_text ? schema_text : case_schema, &problem);
        free(clean);
        free(case_schema);
        if (script == NULL) {
            fprintf(stderr, "gauntlet client: %s: %s: %s\n", script_path, problem.pointer[0] ? problem.pointer : "(root)",
                    problem.message);
            free(schema_text);
            return 2;
        }
        config = gt_loop_script_config(script);
    } else {
        config->json_schema_text = schema_text;
        config->json_schema_len = schema_len;
    }
    if (prompt != NULL)
        config->prompt = prompt;
    if (strict)
        config->strict = true;
    const char *env = getenv(GT_LOOP_ATTEMPTS_ENV);
    int env_attempts;
    if (max_attempts == -1 && env != NULL && gt_loop_attempts_from_env(env, &env_attempts) == 0 &&
        !(script && gt_loop_script_sets_env(script, GT_LOOP_ATTEMPTS_ENV)))
        config->max_attempts = env_attempts;
    if (max_attempts != -1)
        config->max_attempts = max_attempts;

    gt_client *client = gt_client_new(&options, err, sizeof err);
    if (client == NULL) {
        fprintf(stderr, "gauntlet client: %s\n", err);
        gt_loop_script_free(script);
        free(schema_text);
        return 2;
    }
    gt_loop_model model;
    gt_client_model(client, &model);
    gt_loop_result result;
    int rc = gt_loop_run(config, &model, &result);
    char *envelope = gt_loop_envelope_json(&result);
    if (transcript && result.transcript)
        fputs(result.transcript, stderr);
    int status = 1;
    if (rc != 0 || envelope == NULL) {
        fprintf(stderr, "gauntlet client: out of memory\n");
        status = 2;
    } else {
        puts(envelope);
        status = result.subtype == GT_LOOP_SUCCESS ? 0 : 1;
    }
    const gt_client_stats *stats = gt_client_get_stats(client);
    if (stats->beyond_script > 0)
        fprintf(stderr,
                "gauntlet client: %zu of %zu replies came after the end of the mock's script: this run id had "
                "already played it (each run id plays a scenario once); use a new run id to replay it\n",
                stats->beyond_script, stats->requests);
    free(envelope);
    gt_loop_result_free(&result);
    gt_client_free(client);
    gt_loop_script_free(script);
    free(schema_text);
    return status;
}
