/* target_reference.c — the "reference" target: libgauntlet in process.
 *
 * Syntax and structure cases go through gt_pipeline_check (syntax, then
 * structure when the case has a schema). Semantic and policy cases (and their
 * repair loops), loop/stream and wire cases belong wholly to their layer's
 * hook (reference_hooks.h), which runs the earlier gates itself. Compiled schemas are
 * cached per target instance (one per worker thread), keyed by the schema
 * text and the `formats` option, so a corpus sharing one schema file compiles
 * it once per thread. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gauntlet/arena.h"
#include "gauntlet/pipeline.h"
#include "gauntlet/runner/run.h"
#include "gauntlet/schema.h"
#include "reference_hooks.h"
#include "target_adapter.h"

#include "gauntlet/version.h"

/* One compiled schema (or the reason it does not compile). */
typedef struct schema_slot {
    char *json; /* NULL = empty slot */
    uint64_t hash;
    bool assert_formats;
    const gt_schema_registry *registry; /* the corpus's schemas/ folder it was compiled with */
    const char *remotes_dir;            /* the test suite's remotes/ folder it was compiled with (owned by the case) */
    gt_schema *schema;
    gt_schema_problem problem; /* when schema == NULL */
} schema_slot;

typedef struct reference_state {
    gt_arena *arena; /* the current case's values; reset per case */
    gt_pipeline_outcome outcome;
    schema_slot *slots;
    size_t slot_count, slot_cap; /* open addressing, cap a power of two */
} reference_state;

static uint64_t hash_text(const char *text, bool flag)
{
    uint64_t hash = 1469598103934665603u ^ (flag ? 0x9e3779b97f4a7c15u : 0);
    for (const unsigned char *p = (const unsigned char *)text; *p; p++)
        hash = (hash ^ *p) * 1099511628211u;
    return hash;
}

static bool slots_grow(reference_state *state)
{
    size_t new_cap = state->slot_cap ? state->slot_cap * 2 : 64;
    schema_slot *table = calloc(new_cap, sizeof *table);
    if (table == NULL)
        return false;
    for (size_t i = 0; i < state->slot_cap; i++) {
        if (state->slots[i].json == NULL)
            continue;
        size_t at = (size_t)state->slots[i].hash & (new_cap - 1);
        while (table[at].json != NULL)
            at = (at + 1) & (new_cap - 1);
        table[at] = state->slots[i];
    }
    free(state->slots);
    state->slots = table;
    state->slot_cap = new_cap;
    return true;
}

/* The compiled schema for `json`, compiling it on first use. Returns NULL
 * when out of memory; otherwise a slot whose `schema` may be NULL (then
 * `problem` says why it does not compile). */
static const schema_slot *schema_for(reference_state *state, const gt_case_input *input)
{
    const char *json = input->schema_json;
    bool assert_formats = input->assert_formats;
    const gt_schema_registry *registry = input->schemas;
    if ((state->slot_count + 1) * 2 > state->slot_cap && !slots_grow(state))
        return NULL;
    uint64_t hash = hash_text(json, assert_formats);
    size_t at = (size_t)hash & (state->slot_cap - 1);
    for (; state->slots[at].json != NULL; at = (at + 1) & (state->slot_cap - 1)) {
        const schema_slot *slot = &state->slots[at];
        if (slot->hash == hash && slot->assert_formats == assert_formats && slot->registry == registry &&
            slot->remotes_dir == input->remotes_dir && strcmp(slot->json, json) == 0)
            return slot;
    }
    schema_slot *slot = &state->slots[at];
    slot->json = strdup(json);
    if (slot->json == NULL)
        return NULL;
    slot->hash = hash;
    slot->assert_formats = assert_formats;
    slot->registry = registry;
    slot->remotes_dir = input->remotes_dir;
    gt_schema_options options;
    gt_schema_options_init(&options);
    options.assert_formats = assert_formats;
    options.registry = registry;
    options.remotes_dir = input->remotes_dir;
    slot->schema = gt_schema_compile(json, strlen(json), &options, &slot->problem);
    state->slot_count++;
    return slot;
}

void gt_reference_arm_deadline(gt_schema_errors *errors)
{
    errors->deadline_ms = gt_schema_clock_ms() + gt_adapter_timeout_ms();
}

bool gt_reference_timed_out(const gt_schema_errors *errors, char *note, size_t note_len)
{
    if (errors->failure != GT_SCHEMA_FAILURE_DEADLINE)
        return false;
    snprintf(note, note_len, "reference: timed out after %d ms (evaluation_deadline)", gt_adapter_timeout_ms());
    return true;
}

static int reference_open(const char *arg, void **out, char *err, size_t err_len)
{
    if (arg != NULL && *arg != '\0') {
        snprintf(err, err_len, "the reference target takes no argument (got '%s')", arg);
        return -1;
    }
    reference_state *state = calloc(1, sizeof *state);
    if (state == NULL || (state->arena = gt_arena_new()) == NULL) {
        free(state);
        snprintf(err, err_len, "out of memory");
        return -1;
    }
    gt_pipeline_outcome_init(&state->outcome);
    *out = state;
    return 0;
}

static void reference_close(void *opaque)
{
    reference_state *state = opaque;
    if (state == NULL)
        return;
    for (size_t i = 0; i < state->slot_cap; i++) {
        free(state->slots[i].json);
        gt_schema_free(state->slots[i].schema);
    }
    free(state->slots);
    gt_pipeline_outcome_free(&state->outcome);
    gt_arena_free(state->arena);
    free(state);
}

static const char *reference_name(void *state)
{
    return "gauntlet-reference " GAUNTLET_VERSION;
}

/* The hook that owns the rest of a case of gate `case_gate` after syntax and
 * structure accept, or NULL when the pipeline covers it. */
typedef int (*reference_hook)(const gt_case_input *input, gt_observed *observed, char *note, size_t note_len);

static bool is_gate(const char *case_gate, const char *name)
{
    return case_gate != NULL && strcmp(case_gate, name) == 0;
}

static reference_hook layer_hook(const char *case_gate)
{
    if (is_gate(case_gate, "loop") || is_gate(case_gate, "stream"))
        return gt_reference_check_loop;
    if (is_gate(case_gate, "wire"))
        return gt_reference_check_wire;
    if (is_gate(case_gate, "semantic") || is_gate(case_gate, "policy"))
        return gt_reference_check_gates; /* runs all four gates itself, and the repair loop */
    return NULL;
}

static gt_gate_status status_of(gt_pipeline_status status)
{
    return status == GT_PIPELINE_PASSED ? GT_GATE_PASSED
           : status == GT_PIPELINE_FAILED ? GT_GATE_FAILED
                                          : GT_GATE_NOT_RUN;
}

static int reference_check(void *opaque, const gt_case_input *input, gt_observed *observed, char *note,
                           size_t note_len)
{
    reference_state *state = opaque;
    reference_hook hook = layer_hook(input->gate);
    if (hook != NULL)
        return hook(input, observed, note, note_len); /* the layer owns the whole case */
    if (input->raw == NULL) {
        snprintf(note, note_len, "reference: a %s case needs input or input_base64", input->gate);
        return GT_CHECK_ERROR;
    }
    gt_arena_reset(state->arena);

    const schema_slot *slot = NULL;
    if (input->schema_json != NULL) {
        slot = schema_for(state, input);
        if (slot == NULL) {
            snprintf(note, note_len, "reference: out of memory compiling the schema");
            return GT_CHECK_ERROR;
        }
    }
    const gt_schema *schema = slot ? slot->schema : NULL;
    gt_parse_options parse;
    gt_parse_options_init(&parse);
    parse.reject_nul = input->reject_nul;
    if (input->max_bytes > 0)
        parse.max_bytes = input->max_bytes;
    gt_reference_arm_deadline(&state->outcome.errors);
    if (gt_pipeline_check((const char *)input->raw, input->raw_len, schema, &parse, state->arena, &state->outcome) !=
        0) {
        snprintf(note, note_len, "reference: validation failed (out of memory)");
        return GT_CHECK_ERROR;
    }
    const gt_pipeline_outcome *outcome = &state->outcome;
    if (gt_reference_timed_out(&outcome->errors, note, note_len))
        return GT_CHECK_ERROR;
    for (int gate = 0; gate < GT_PIPELINE_GATE_COUNT; gate++)
        observed->gates[gate] = status_of(outcome->status[gate]); /* pipeline gates share run.h's order */

    if (!outcome->accepted) {
        const char *gate = gt_pipeline_gate_name(outcome->failed_gate);
        if (gt_observed_reject(observed, gate, outcome->reason ? outcome->reason : "unknown", outcome->message) != 0)
            goto out_of_memory;
        for (size_t i = 0; outcome->failed_gate == GT_PIPELINE_STRUCTURE && i < outcome->errors.count; i++) {
            const gt_schema_error *error = &outcome->errors.items[i];
            if (gt_observed_add_error(observed, error->instance_path, error->keyword, error->message) != 0)
                goto out_of_memory;
        }
        return GT_CHECK_DONE;
    }
    if (slot != NULL && slot->schema == NULL) {
        /* The contract itself is broken: the structure gate cannot pass. */
        char message[600];
        snprintf(message, sizeof message, "schema from %s does not compile at \"%s\": %s",
                 input->schema_origin ? input->schema_origin : "the case", slot->problem.location,
                 slot->problem.message);
        observed->gates[GT_GATE_STRUCTURE] = GT_GATE_FAILED;
        if (gt_observed_reject(observed, "structure", gt_schema_problem_code_str(slot->problem.code), message) != 0)
            goto out_of_memory;
        return GT_CHECK_DONE;
    }
    observed->verdict = GT_VERDICT_ACCEPT;
    if (outcome->value != NULL) {
        observed->output_json = gt_value_to_json(outcome->value, NULL);
        if (observed->output_json == NULL)
            goto out_of_memory;
    }
    return GT_CHECK_DONE;

out_of_memory:
    snprintf(note, note_len, "reference: out of memory");
    return GT_CHECK_ERROR;
}

/* The reference implements every contract gauntlet judges. */
static unsigned reference_profiles(void *state)
{
    (void)state;
    return GT_PROFILES_ALL;
}

const gt_target_ops gt_target_reference_ops = {
    .kind = "reference",
    .open = reference_open,
    .check = reference_check,
    .name = reference_name,
    .close = reference_close,
    .profiles = reference_profiles,
};
