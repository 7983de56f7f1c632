/* cmd_loop.c — `gauntlet loop`: play one loop script through the reference
 * StructuredOutput state machine and print the terminal envelope.
 *
 * Contract: the envelope as one line of JSON on stdout; exit 0 for subtype
 * success, 1 for an error subtype, 2 for usage errors and bad scripts (the
 * message names the file and the JSON Pointer of the bad field). The real
 * MAX_STRUCTURED_OUTPUT_RETRIES applies only when the script's env does not
 * set it (a script is a reproducible scenario). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_io.h"
#include "commands.h"
#include "gauntlet/loop.h"

static void loop_usage(FILE *out)
{
    fprintf(out,
            "usage: gauntlet loop --script SCRIPT.json [--transcript]\n"
            "\n"
            "Play a scripted model (docs/loop-scripts.md) through the reference StructuredOutput\n"
            "agent loop (seed 000) and print the terminal envelope as one line of JSON.\n"
            "  --script FILE   the loop script ('-' = standard input)\n"
            "  --transcript    print the turn-by-turn transcript to standard error\n"
            "environment: %s overrides the attempt limit (default %d) unless the script's env sets it\n"
            "exit: 0 success, 1 an error subtype, 2 usage error or bad script\n",
            GT_LOOP_ATTEMPTS_ENV, GT_LOOP_DEFAULT_MAX_ATTEMPTS);
}

int gt_cmd_loop(int argc, char **argv)
{
    const char *path = NULL;
    bool transcript = false;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            loop_usage(stdout);
            return 0;
        } else if (strcmp(arg, "--transcript") == 0) {
            transcript = true;
        } else if (strcmp(arg, "--script") == 0) {
            if (i + 1 >= argc) {
                fprintf(stderr, "gauntlet loop: --script needs a file\n");
                return 2;
            }
            path = argv[++i];
        } else if (strncmp(arg, "--script=", 9) == 0) {
            path = arg + 9;
        } else {
            fprintf(stderr, "gauntlet loop: unknown %s '%s'\n", arg[0] == '-' ? "option" : "argument", arg);
            loop_usage(stderr);
            return 2;
        }
    }
    if (path == NULL || path[0] == '\0') {
        fprintf(stderr, "gauntlet loop: --script SCRIPT.json is required\n");
        loop_usage(stderr);
        return 2;
    }
    char err[512];
    size_t len;
    char *text = gt_read_file(path, &len, err, sizeof err);
    if (text == NULL) {
        fprintf(stderr, "gauntlet loop: %s\n", err);
        return 2;
    }
    const char *shown = strcmp(path, "-") == 0 ? "<stdin>" : path;
    gt_loop_script_problem problem;
    gt_loop_script *script = gt_loop_script_load(text, len, NULL, &problem);
    free(text);
    if (script == NULL) {
        fprintf(stderr, "gauntlet loop: %s: bad script at \"%s\": %s\n", shown, problem.pointer, problem.message);
        return 2;
    }
    gt_loop_config *config = gt_loop_script_config(script);
    const char *env = getenv(GT_LOOP_ATTEMPTS_ENV);
    if (env != NULL && !gt_loop_script_sets_env(script, GT_LOOP_ATTEMPTS_ENV)) {
        if (gt_loop_attempts_from_env(env, &config->max_attempts) != 0) {
            fprintf(stderr, "gauntlet loop: %s must be an integer, not '%s'\n", GT_LOOP_ATTEMPTS_ENV, env);
            gt_loop_script_free(script);
            return 2;
        }
    }
    gt_loop_model model;
    gt_loop_script_model(script, &model);
    gt_loop_result result;
    int status = gt_loop_run(config, &model, &result);
    char *envelope = status == 0 ? gt_loop_envelope_json(&result) : NULL;
    int exit_code;
    if (envelope == NULL) {
        fprintf(stderr, "gauntlet loop: out of memory\n");
        exit_code = 2;
    } else {
        if (transcript) {
            fputs(result.transcript, stderr);
            size_t unplayed = gt_loop_script_unplayed(script);
            if (unplayed > 0)
                fprintf(stderr, "note: %zu script turn%s not played\n", unplayed, unplayed == 1 ? "" : "s");
        }
        printf("%s\n", envelope);
        exit_code = result.subtype == GT_LOOP_SUCCESS ? 0 : 1;
    }
    free(envelope);
    gt_loop_result_free(&result);
    gt_loop_script_free(script);
    return exit_code;
}
