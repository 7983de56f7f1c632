/* smoke.c — "smoke before certify": one always-valid case through a target.
 *
 * After Bowtie's `smoke`: before gauntlet spends a run on an `adapter:` or
 * `http:` target, it plays a built-in case whose answer is beyond dispute
 * (a valid object, a valid StructuredOutput call). A target that cannot
 * produce any verdict for it (cannot start, the handshake fails, the client
 * exits without a result envelope, exits 126/127 or the documented "cannot
 * run" status 3) would otherwise turn every reject case of the corpus into a
 * "pass". The smoke says what ran, how it ended, the last stderr lines and
 * the likely fix. Not for: judging the target (a wrong verdict is still a
 * verdict; the run reports it). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gauntlet/runner/corpus.h"
#include "gauntlet/runner/run.h"
#include "smoke.h"

/* One accept case per kind of target input, tried in order; the first one
 * the target does not skip decides. They live here, not in corpus/, so a
 * selection or an edited corpus can never remove them. */
static const char smoke_cases[] =
    "{\"format\":\"gauntlet-corpus/1\",\"description\":\"gauntlet's built-in smoke cases\",\"cases\":["
    "{\"id\":\"smoke.loop.valid-call\",\"gate\":\"loop\",\"category\":\"smoke\","
    "\"description\":\"The model calls StructuredOutput once with a valid object.\","
    "\"script\":{\"prompt\":\"Analyse why the CI build failed.\","
    "\"json_schema\":{\"type\":\"object\",\"properties\":{\"cause\":{\"type\":\"string\"}},"
    "\"required\":[\"cause\"],\"additionalProperties\":false},"
    "\"turns\":[{\"message\":{\"content\":[{\"type\":\"tool_use\",\"id\":\"toolu_smoke\","
    "\"name\":\"StructuredOutput\",\"input\":{\"cause\":\"the runner's disk is full\"}}],"
    "\"usage\":{\"input_tokens\":100,\"output_tokens\":20}}}]},"
    "\"expect\":{\"verdict\":\"accept\"}},"
    "{\"id\":\"smoke.syntax.object\",\"gate\":\"syntax\",\"category\":\"smoke\","
    "\"description\":\"One JSON object.\",\"input\":\"{\\\"ok\\\": true}\",\"expect\":{\"verdict\":\"accept\"}},"
    "{\"id\":\"smoke.structure.valid\",\"gate\":\"structure\",\"category\":\"smoke\","
    "\"description\":\"An object that satisfies its schema.\","
    "\"schema\":{\"type\":\"object\",\"properties\":{\"ok\":{\"type\":\"boolean\"}},\"required\":[\"ok\"]},"
    "\"input\":\"{\\\"ok\\\": true}\",\"expect\":{\"verdict\":\"accept\"}}"
    "]}";

bool gt_smoke_wanted(const char *target_spec)
{
    return strncmp(target_spec, "http:", 5) == 0 || strncmp(target_spec, "http-worker:", 12) == 0 ||
           strncmp(target_spec, "adapter:", 8) == 0;
}

/* The fix most likely to help, from the target and what the note says. */
static const char *likely_fix(const char *target_spec, const char *note)
{
    if (strstr(target_spec, "claude") != NULL)
        return "run 'make interop' (installs the pinned Claude Code CLI into interop/node), or put 'claude' on "
               "PATH, or set CLAUDE=/path/to/claude";
    if (strstr(note, "status 127") != NULL || strstr(note, "not found") != NULL)
        return "the command was not found: check the path (relative paths start from the current directory) "
               "and that its interpreter is installed";
    if (strstr(note, "status 126") != NULL)
        return "the command is not executable: chmod +x it, or name its interpreter (sh run.sh, python3 "
               "adapter.py)";
    if (strstr(note, "status 3") != NULL)
        return "the wrapper says it cannot run (exit status 3): install what its stderr above names";
    if (strstr(note, "handshake") != NULL || strstr(note, "hello") != NULL)
        return "the adapter must answer {\"cmd\":\"hello\"} with {\"protocol\":1,\"implementation\":{...},"
               "\"capabilities\":[...]} (docs/adapter-protocol.md)";
    return "run the command by hand with the environment docs/adapter-protocol.md describes and read its "
           "stderr";
}

/* `case_id` NULL: the target could not even be started. */
static void explain(FILE *out, const char *target_spec, const char *case_id, const char *what)
{
    if (case_id != NULL)
        fprintf(out,
                "gauntlet: smoke test failed: the target '%s' could not produce a verdict for the built-in, "
                "always-valid case %s, so no verdict of this run could be trusted and nothing was run.\n",
                target_spec, case_id);
    else
        fprintf(out,
                "gauntlet: smoke test failed: the target '%s' could not start, so no verdict of this run could "
                "be trusted and nothing was run.\n",
                target_spec);
    fprintf(out, "  what happened: %s\n  fix: %s\n  check again with: gauntlet run --smoke --target '%s'\n", what,
            likely_fix(target_spec, what), target_spec);
}

int gt_smoke_run(const char *target_spec, FILE *out, FILE *err)
{
    return gt_smoke_run_why(target_spec, out, err, NULL, 0);
}

int gt_smoke_run_why(const char *target_spec, FILE *out, FILE *err, char *why, size_t why_len)
{
    char open_err[1024] = "";
    gt_target *target = NULL;
    if (why != NULL && why_len > 0)
        why[0] = '\0';
    if (gt_target_open(target_spec, &target, open_err, sizeof open_err) != 0) {
        explain(err, target_spec, NULL, open_err);
        if (why != NULL)
            snprintf(why, why_len, "%s", open_err);
        return -1;
    }
    gt_corpus *corpus = gt_corpus_new();
    if (corpus == NULL || gt_corpus_load_text(corpus, "(built-in smoke cases)", smoke_cases, strlen(smoke_cases)) < 0 ||
        gt_corpus_problem_count(corpus) > 0) {
        fprintf(err, "gauntlet: smoke test: the built-in smoke cases did not load (out of memory?)\n");
        gt_corpus_free(corpus);
        gt_target_close(target);
        return -1;
    }
    int status = -1;
    const char *skipped_all = "the target skipped every smoke case (it declares none of loop, syntax, structure)";
    for (size_t i = 0; i < gt_corpus_count(corpus); i++) {
        const gt_case *kase = gt_corpus_case(corpus, i);
        gt_observed observed;
        memset(&observed, 0, sizeof observed);
        gt_accounting_init(&observed.accounting);
        char note[2048] = "";
        int rc = gt_target_check(target, &kase->input, &observed, note, sizeof note);
        if (rc == GT_CHECK_SKIPPED) {
            gt_observed_clear(&observed);
            continue;
        }
        bool no_envelope = rc == GT_CHECK_DONE && observed.reason != NULL && strcmp(observed.reason, "client_exit") == 0;
        if (rc == GT_CHECK_ERROR || no_envelope) {
            explain(err, target_spec, kase->input.id, no_envelope && observed.message ? observed.message : note);
            if (why != NULL)
                snprintf(why, why_len, "%s: %s", kase->input.id,
                         no_envelope && observed.message ? observed.message : note);
        } else {
            status = 0;
            /* out NULL (quiet): a working smoke says nothing, a warning goes to err */
            if (observed.verdict == GT_VERDICT_ACCEPT && out != NULL)
                fprintf(out, "smoke: ok: %s accepted %s\n", gt_target_name(target), kase->input.id);
            else if (observed.verdict != GT_VERDICT_ACCEPT)
                fprintf(out != NULL ? out : err, "smoke: ok, but %s rejected the always-valid %s (%s): its verdicts will be judged\n",
                        gt_target_name(target), kase->input.id, observed.message ? observed.message : "no message");
        }
        gt_observed_clear(&observed);
        skipped_all = NULL;
        break;
    }
    if (skipped_all != NULL) {
        /* the handshake worked: a verdict-less smoke is not a broken target */
        if (out != NULL)
            fprintf(out, "smoke: ok: %s started and answered the handshake; %s\n", gt_target_name(target), skipped_all);
        status = 0;
    }
    gt_corpus_free(corpus);
    gt_target_close(target);
    return status;
}

/* ---- the run a failed smoke still reports --------------------------------- */

/* A target whose every case is an error carrying the smoke's failure: its
 * spec's argument is the failure text. */
static int failed_open(const char *arg, void **state, char *err, size_t err_len)
{
    (void)err, (void)err_len;
    *state = strdup(arg ? arg : "");
    return *state != NULL ? 0 : -1;
}

static int failed_check(void *state, const gt_case_input *input, gt_observed *observed, char *note, size_t note_len)
{
    (void)input, (void)observed;
    snprintf(note, note_len, "not run: the target failed its smoke test (%s)", (const char *)state);
    return GT_CHECK_ERROR;
}

static const char *failed_name(void *state)
{
    (void)state;
    return "(failed its smoke test)";
}

static const gt_target_ops failed_ops = {"gauntlet-smoke-failed", failed_open, failed_check, failed_name, free, NULL};

gt_run *gt_smoke_failed_run(const gt_corpus *corpus, const char *target_spec, const char *why, unsigned profiles)
{
    if (gt_target_register(&failed_ops) != 0)
        return NULL;
    size_t len = strlen(failed_ops.kind) + 1 + strlen(why) + 1;
    char *spec = malloc(len);
    if (spec == NULL)
        return NULL;
    snprintf(spec, len, "%s:%s", failed_ops.kind, why);
    gt_run_options how = {spec, 1, 0, NULL, NULL, profiles ? profiles : GT_PROFILES_DEFAULT_CLAIM};
    char err[256];
    gt_run *run = gt_run_cases_with(corpus, &how, err, sizeof err);
    free(spec);
    if (run != NULL) {
        char *named = strdup(target_spec);
        if (named != NULL) {
            free(run->target);
            run->target = named;
        }
    }
    return run;
}
