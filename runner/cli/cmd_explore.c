/* cmd_explore.c — `gauntlet explore`: generate cases for a contract, run
 * each against a target and the reference, and shrink the first
 * disagreement to a minimal input (docs/explore.md).
 *
 * Contract (relied on by suite/test_gen.c):
 *   gauntlet explore --schema S.json [--sample V.json] --target T [--seed N]
 *                    [--budget N | --time S] [--save DIR]
 *   stdout: on a disagreement, the case it was found on, the operator chain,
 *           both verdicts, then `shrunk from A to B bytes (K tests):` and the
 *           minimal input with invisible bytes shown, and both verdicts on
 *           it; otherwise `no disagreement in N cases ...`;
 *   stderr: a progress line, only when stderr is a terminal;
 *   exit:   1 a disagreement was found, 0 the budget ended with none,
 *           2 usage, bad schema or sample, a target that cannot start, or
 *           no case that got a verdict from the target (none generated,
 *           every one skipped or errored). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "commands.h"
#include "gen_cli.h"
#include "reports/report_util.h"
#include "runner/explore/gen.h"
#include "runner/explore/shrink.h"

#define EXPLORE_DEFAULT_BUDGET 5000
#define EXPLORE_MAX_MARKS 20 /* non-ASCII code points listed under the shrunk input */

static void explore_usage(FILE *out)
{
    fputs("usage: gauntlet explore --schema FILE [--sample FILE] --target SPEC [--seed N]\n"
          "                        [--budget N | --time S] [--save DIR]\n"
          "\n"
          "Generate cases for a contract as `gauntlet gen` does (then random combinations of\n"
          "mutations), run each against the target and the reference, and shrink the first\n"
          "disagreement to a minimal input while it still disagrees.\n" GT_GEN_CLI_HELP
          "  --target SPEC          reference, adapter:CMD or http:CMD (as `gauntlet run`; required)\n"
          "  --budget N             try at most N cases (default 5000)\n"
          "  --time S               stop trying new cases after S seconds\n"
          "  --save DIR             write the minimal input as a ready case (a corpus folder)\n"
          "exit: 1 a disagreement was found, 0 none within the budget, 2 usage or bad input, or no case\n"
          "      got a verdict from the target\n",
          out);
}

/* Where an outcome stops: the gate index for a rejection, 100 for an
 * accept, -1 for a rejection whose gate is not known (a black box). */
static int stop_rank(const gt_observed *seen)
{
    if (seen->verdict == GT_VERDICT_ACCEPT)
        return 100;
    int gate = seen->gate ? gt_gate_from_name(seen->gate) : -1;
    return seen->verdict == GT_VERDICT_REJECT ? gate : -2;
}

static int sign(int value)
{
    return (value > 0) - (value < 0);
}

typedef struct explore_state {
    gt_gen *gen;
    gt_target *target;
    size_t from; /* the candidate the disagreement was found on */
    int reference_rank, direction, target_verdict;
    const char *reference_reason;
    long last; /* the last candidate that kept the disagreement */
    gt_observed last_target;
} explore_state;

/* Run the target on candidate `index`. Returns GT_CHECK_* and fills `seen`. */
static int run_target(explore_state *state, size_t index, gt_observed *seen, char *note, size_t note_len)
{
    gt_case_input input;
    gt_gen_input(state->gen, gt_gen_case_at(state->gen, index), &input);
    *seen = (gt_observed){0};
    gt_accounting_init(&seen->accounting);
    return gt_target_check(state->target, &input, seen, note, note_len);
}

/* The disagreement of the reference's and the target's outcome. */
static bool disagree(const gt_observed *reference, const gt_observed *target)
{
    if (reference->verdict == GT_VERDICT_NONE)
        return false;
    int target_rank = stop_rank(target);
    if (target_rank == -1)
        return reference->verdict != target->verdict;
    return stop_rank(reference) != target_rank;
}

/* The shrinker's property: the reference still stops at the same gate for
 * the same reason, and the target still stops on the same side of it. */
static bool still_disagrees(void *user, const unsigned char *bytes, size_t len)
{
    explore_state *state = user;
    long index = gt_gen_variant(state->gen, state->from, bytes, len);
    if (index < 0)
        return false;
    const gt_observed *reference = &gt_gen_case_at(state->gen, (size_t)index)->reference;
    if (stop_rank(reference) != state->reference_rank ||
        (reference->verdict == GT_VERDICT_REJECT &&
         (reference->reason == NULL || strcmp(reference->reason, state->reference_reason) != 0)))
        return false;
    gt_observed seen;
    char note[512];
    if (run_target(state, (size_t)index, &seen, note, sizeof note) != GT_CHECK_DONE) {
        gt_observed_clear(&seen);
        return false;
    }
    int rank = stop_rank(&seen);
    bool holds = rank == -1 ? (int)seen.verdict == state->target_verdict
                            : sign(rank - state->reference_rank) == state->direction;
    if (holds) {
        gt_observed_clear(&state->last_target);
        state->last_target = seen;
        state->last = index;
    } else {
        gt_observed_clear(&seen);
    }
    return holds;
}

static void print_outcome(const char *label, const gt_observed *seen)
{
    char text[256];
    gt_gen_outcome_text(seen->verdict, seen->gate, seen->reason, text, sizeof text);
    printf("  %-10s %s", label, text);
    if (seen->verdict == GT_VERDICT_REJECT && seen->error_count > 0 && seen->errors[0].path)
        printf(" at \"%s\"", seen->errors[0].path);
    putchar('\n');
}

static void print_input(const gt_gen_case *kase)
{
    fputs("    ", stdout);
    if (kase->raw == NULL) /* a loop script: its JSON, on one line */
        gt_report_visible(stdout, (const unsigned char *)kase->script_json, strlen(kase->script_json), false);
    else
        gt_report_visible(stdout, kase->raw, kase->raw_len, false);
    putchar('\n');
}

/* Write candidate `index` alone as a ready case in `save_dir`, described as
 * `description` (taken). Returns 1 (a disagreement), or 2 on a write error. */
static int save_finding(explore_state *state, size_t index, char *description, const char *save_dir)
{
    gt_gen_case *kase = gt_gen_case_at(state->gen, index);
    bool *keep = calloc(gt_gen_count(state->gen), sizeof *keep);
    if (keep == NULL) {
        free(description);
        return 2;
    }
    keep[index] = true;
    free(kase->description);
    kase->description = description;
    int status = gt_gen_cli_write("gauntlet explore", state->gen, save_dir, keep);
    free(keep);
    if (status != 0)
        return 2;
    printf("saved as %s in %s (gauntlet run %s)\n", kase->id, save_dir, save_dir);
    return 1;
}

/* "found by gauntlet explore (OPS), WHAT; the target said VERDICT" (malloc'd). */
static char *finding_text(const char *ops, const char *what, const gt_observed *target_seen)
{
    char text[256], *description = NULL;
    gt_gen_outcome_text(target_seen->verdict, target_seen->gate, target_seen->reason, text, sizeof text);
    if (asprintf(&description, "found by gauntlet explore (%s), %s; the target said %s", ops, what, text) < 0)
        return NULL;
    return description;
}

static double seconds_now(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec + now.tv_nsec / 1e9;
}

/* Shrink the disagreement on candidate `from`, print it, save it. */
static int report_disagreement(explore_state *state, const gt_observed *target_seen, size_t tried, const char *save_dir)
{
    gt_gen_case *found = gt_gen_case_at(state->gen, state->from);
    printf("disagreement after %zu cases on %s (%s)\n", tried, found->id, found->description ? found->description : "");
    printf("  %-10s %s\n", "operators", found->ops);
    print_outcome("reference", &found->reference);
    print_outcome("target", target_seen);
    state->reference_rank = stop_rank(&found->reference);
    state->reference_reason = found->reference.reason ? found->reference.reason : "";
    state->direction = sign(stop_rank(target_seen) - state->reference_rank);
    state->target_verdict = (int)target_seen->verdict;
    state->last = -1;
    if (found->raw == NULL) { /* a loop script: nothing to shrink on bytes */
        printf("input (not shrunk: a loop script):\n");
        print_input(found);
        return save_dir == NULL ? 1
                                : save_finding(state, state->from,
                                               finding_text(found->ops, "not shrunk (a loop script)", target_seen),
                                               save_dir);
    }
    /* copy: the candidate array grows (moves) while shrinking; `found` is
     * not used after it */
    size_t original_len = found->raw_len;
    unsigned char *original = malloc(original_len + 1);
    char *ops = strdup(found->ops);
    if (original == NULL || ops == NULL) {
        free(original);
        free(ops);
        return 1;
    }
    memcpy(original, found->raw, original_len);
    found = NULL;
    bool syntax = state->reference_rank == GT_GATE_SYNTAX ||
                  (stop_rank(target_seen) == GT_GATE_SYNTAX && state->reference_rank != GT_GATE_SYNTAX);
    gt_shrink_stats stats = {0};
    size_t len = 0;
    unsigned char *minimal = NULL;
    if (!syntax)
        minimal =
            (unsigned char *)gt_shrink_json((const char *)original, original_len, still_disagrees, state, &stats, &len);
    if (minimal == NULL)
        minimal = gt_shrink_bytes(original, original_len, still_disagrees, state, &stats, &len);
    else if (still_disagrees(state, minimal, len)) { /* then the bytes of the smallest value */
        unsigned char *smaller = gt_shrink_bytes(minimal, len, still_disagrees, state, &stats, &len);
        free(minimal);
        minimal = smaller;
    }
    free(original);
    if (minimal == NULL || !still_disagrees(state, minimal, len) || state->last < 0) {
        printf("the disagreement did not reproduce while shrinking (a flaky target?)\n");
        free(minimal);
        free(ops);
        return 1;
    }
    free(minimal);
    gt_gen_case *shrunk = gt_gen_case_at(state->gen, (size_t)state->last);
    printf("shrunk from %zu to %zu bytes (%zu tests); invisible bytes shown as \xe2\x9f\xa8...\xe2\x9f\xa9:\n",
           original_len, shrunk->raw_len, stats.tests);
    print_input(shrunk);
    gt_report_code_points(stdout, shrunk->raw, shrunk->raw_len, EXPLORE_MAX_MARKS); /* a homoglyph looks like ASCII */
    print_outcome("reference", &shrunk->reference);
    print_outcome("target", &state->last_target);
    int status = 1;
    if (save_dir != NULL) {
        char what[64];
        snprintf(what, sizeof what, "shrunk from %zu bytes", original_len);
        status = save_finding(state, (size_t)state->last, finding_text(ops, what, &state->last_target), save_dir);
    }
    free(ops);
    return status;
}

static int explore_main(int argc, char **argv, gt_gen_cli *cli)
{
    static const char who[] = "gauntlet explore";
    static const char *const names[] = {"--target", "--save", "--budget", "--time", NULL};
    const char *values[4];
    int parsed = gt_gen_cli_parse(who, argc, argv, cli, names, values, explore_usage);
    if (parsed != 0)
        return parsed == 1 ? 0 : 2;
    const char *target_spec = values[0], *save_dir = values[1];
    size_t budget = 0, seconds = 0;
    for (int n = 2; n < 4; n++) {
        if (values[n] != NULL && !gt_gen_cli_count(values[n], n == 2 ? &budget : &seconds)) {
            fprintf(stderr, "%s: %s wants a positive integer, got '%s'\n", who, names[n], values[n]);
            return 2;
        }
    }
    if (cli->schema_path == NULL || target_spec == NULL) {
        fprintf(stderr, "%s: %s is required\n", who, cli->schema_path == NULL ? "--schema" : "--target");
        explore_usage(stderr);
        return 2;
    }
    if (budget > 0 && seconds > 0) {
        fprintf(stderr, "%s: --budget and --time exclude each other\n", who);
        return 2;
    }
    if (budget == 0 && seconds == 0)
        budget = EXPLORE_DEFAULT_BUDGET;
    if (save_dir != NULL && gt_gen_cli_check_out(who, save_dir, true) != 0)
        return 2;
    explore_state state = {0};
    char err[1024];
    if (gt_target_open(target_spec, &state.target, err, sizeof err) != 0) {
        fprintf(stderr, "%s: --target %s: %s\n", who, target_spec, err);
        return 2;
    }
    state.gen = gt_gen_cli_build(who, cli);
    if (state.gen == NULL) {
        gt_target_close(state.target);
        return 2;
    }
    printf("gauntlet explore: %s against %s (seed %llu)\n", cli->schema_path, gt_target_name(state.target),
           (unsigned long long)cli->seed);
    fflush(stdout);
    size_t count = gt_gen_count(state.gen);
    size_t *order = calloc(count + 1, sizeof *order);
    size_t ordered = order ? gt_gen_spread_order(state.gen, order) : 0;
    bool progress = isatty(STDERR_FILENO);
    double deadline = seconds ? seconds_now() + (double)seconds : 0;
    size_t tried = 0, skipped = 0, errors = 0, combos = 0;
    int status = 0;
    for (size_t step = 0; status == 0 && (budget == 0 || tried < budget); step++) {
        if (deadline && seconds_now() >= deadline)
            break;
        long index;
        if (step < ordered) {
            index = (long)order[step];
        } else {
            index = gt_gen_combination(state.gen);
            combos++;
            if (index < 0) {
                if (combos > 100 && combos > tried)
                    break; /* nothing to combine: no valid instance */
                continue;
            }
        }
        gt_gen_case *kase = gt_gen_case_at(state.gen, (size_t)index);
        if (kase->reference.verdict == GT_VERDICT_NONE)
            continue;
        gt_observed seen;
        char note[512] = "";
        int checked = run_target(&state, (size_t)index, &seen, note, sizeof note);
        tried++;
        if (progress && tried % 50 == 0)
            fprintf(stderr, "\rexplore: %zu cases tried, %zu skipped, %zu errors", tried, skipped, errors);
        if (checked == GT_CHECK_SKIPPED) {
            skipped++;
        } else if (checked != GT_CHECK_DONE) { /* counted, never a finding; the first one's note is shown */
            if (errors++ == 0)
                fprintf(stderr, "%s: %s: %s\n", who, kase->id, note);
        } else if (disagree(&kase->reference, &seen)) {
            if (progress)
                fputs("\r\033[K", stderr);
            state.from = (size_t)index;
            status = report_disagreement(&state, &seen, tried, save_dir);
        }
        gt_observed_clear(&seen);
    }
    if (progress && status == 0)
        fputs("\r\033[K", stderr);
    if (status == 0)
        printf("no disagreement in %zu cases (%zu skipped by the target, %zu errors)\n", tried, skipped, errors);
    if (status == 0 && tried == skipped + errors) { /* nothing was compared: never a green run */
        fprintf(stderr,
                "%s: the target gave no verdict on any case (%zu tried, %zu skipped, %zu errors): nothing was "
                "explored\n",
                who, tried, skipped, errors);
        status = 2;
    }
    gt_observed_clear(&state.last_target);
    free(order);
    gt_gen_free(state.gen);
    gt_target_close(state.target);
    return status;
}

int gt_cmd_explore(int argc, char **argv)
{
    gt_gen_cli cli = {.seed = 1};
    int status = explore_main(argc, argv, &cli);
    gt_gen_cli_free(&cli);
    return status;
}
