/* target_wire.c — the reference target's wire layer: corpus cases whose gate
 * is "wire".
 *
 * A wire case carries `"wire": {"op": "strict"|"transform"|"lint"|
 * "grammar_key"|"respond", ...}` (docs/wire.md): `schema` (or, for lint and
 * grammar_key, `schemas`: several schemas of one request), `flavor`
 * (transform, respond: python|typescript), `provider` (lint:
 * anthropic|openai), `strict_tools` and `request` (lint: output_format,
 * citations, prefill). The observation:
 *   - strict/transform converted: verdict accept, output_json = the produced
 *     schema as compact JSON, members in the order produced;
 *   - strict fallback / transform error: reject, gate "wire", reason = the
 *     code, one error {path: schema location, keyword: the code};
 *   - lint: accept when clean; otherwise reject with reason = the first
 *     finding's code and one error per finding (path = location, prefixed
 *     with "/<index>" when the case gives `schemas`; "" for request budgets);
 *   - grammar_key: accept, output {"keys": [...], "same": bool} (seed 004's
 *     grammar cache identity of each schema);
 *   - respond: the SDK path of seed 004 end to end: the schema is transformed
 *     for the wire, and the case's input (the model's response) is checked
 *     against the ORIGINAL schema by the syntax and structure gates; verdict,
 *     gate and errors are theirs, output {"sent": transformed, "value":
 *     accepted value or null}.
 * Not for: comparing with the expectation (run.c does that). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gauntlet/limits.h"
#include "gauntlet/value.h"

#include "gauntlet/parse.h"
#include "gauntlet/wire.h"
#include "reference_hooks.h"

static const gt_value *member(const gt_value *object, const char *key)
{
    return object != NULL && object->type == GT_OBJECT ? gt_value_get(object, key, strlen(key)) : NULL;
}

static const char *string_member(const gt_value *object, const char *key)
{
    const gt_value *value = member(object, key);
    return value != NULL && value->type == GT_STRING ? value->u.str.chars : NULL;
}

static int accept_with(gt_observed *observed, const gt_value *output)
{
    observed->verdict = GT_VERDICT_ACCEPT;
    observed->gates[GT_GATE_WIRE] = GT_GATE_PASSED;
    if (output != NULL) {
        observed->output_json = gt_value_to_json(output, NULL);
        if (observed->output_json == NULL)
            return -1;
    }
    return 0;
}

static int reject_with(gt_observed *observed, const gt_wire_problem *problem)
{
    if (gt_observed_reject(observed, "wire", problem->code, problem->message) != 0)
        return -1;
    return gt_observed_add_error(observed, problem->location, problem->code, problem->message);
}

static int run_lint(const gt_value *wire, gt_observed *observed, char *note, size_t note_len)
{
    gt_wire_lint_options options;
    gt_wire_lint_options_init(&options);
    const char *provider = string_member(wire, "provider");
    if (provider != NULL) {
        int parsed = gt_wire_provider_from_name(provider);
        if (parsed < 0) {
            snprintf(note, note_len, "wire.provider must be anthropic or openai, not '%s'", provider);
            return GT_CHECK_ERROR;
        }
        options.provider = (gt_wire_provider)parsed;
    }
    const gt_value *request = member(wire, "request");
    if (request != NULL) {
        static const char *const features[] = {"output_format", "citations", "prefill"};
        bool *slots[] = {&options.output_format, &options.citations, &options.prefill};
        for (size_t i = 0; request->type == GT_OBJECT && i < request->u.obj.count; i++) {
            const gt_member *feature = &request->u.obj.members[i];
            size_t which = 0;
            while (which < 3 && strcmp(feature->key, features[which]) != 0)
                which++;
            if (which == 3 || (feature->value->type != GT_TRUE && feature->value->type != GT_FALSE)) {
                snprintf(note, note_len, "wire.request.%s: known features are output_format, citations and "
                                         "prefill, each true or false", feature->key);
                return GT_CHECK_ERROR;
            }
            *slots[which] = feature->value->type == GT_TRUE;
        }
        if (request->type != GT_OBJECT) {
            snprintf(note, note_len, "wire.request must be an object");
            return GT_CHECK_ERROR;
        }
    }
    const gt_value *tools = member(wire, "strict_tools");
    if (tools != NULL) {
        if (tools->type != GT_NUMBER || !gt_value_is_integer(tools) || tools->u.num.number < 1) {
            snprintf(note, note_len, "wire.strict_tools must be a positive integer");
            return GT_CHECK_ERROR;
        }
        options.strict_tools = (size_t)gt_number_clamp(tools->u.num.number, 1, GT_COUNT_MAX);
    }
    const gt_value *one = member(wire, "schema"), *many = member(wire, "schemas");
    if ((one == NULL) == (many == NULL) || (many != NULL && (many->type != GT_ARRAY || many->u.arr.count == 0))) {
        snprintf(note, note_len, "a lint case gives either wire.schema or a non-empty wire.schemas array");
        return GT_CHECK_ERROR;
    }
    const gt_value *const *schemas = many != NULL ? (const gt_value *const *)many->u.arr.items : &one;
    size_t count = many != NULL ? many->u.arr.count : 1;
    gt_wire_findings findings = {0};
    int result = gt_wire_lint(schemas, count, &options, &findings);
    int status = GT_CHECK_DONE;
    if (result < 0) {
        snprintf(note, note_len, "reference: out of memory");
        status = GT_CHECK_ERROR;
    } else if (result == 0) {
        observed->verdict = GT_VERDICT_ACCEPT;
        observed->gates[GT_GATE_WIRE] = GT_GATE_PASSED;
    } else if (gt_observed_reject(observed, "wire", findings.items[0].code, findings.items[0].message) != 0) {
        status = GT_CHECK_ERROR;
    } else {
        for (size_t i = 0; i < findings.count && status == GT_CHECK_DONE; i++) {
            const gt_wire_finding *finding = &findings.items[i];
            char path[700];
            if (many != NULL && finding->schema_index != GT_WIRE_REQUEST)
                snprintf(path, sizeof path, "/%zu%s", finding->schema_index, finding->location);
            else
                snprintf(path, sizeof path, "%s", finding->location);
            if (gt_observed_add_error(observed, path, finding->code, finding->message) != 0)
                status = GT_CHECK_ERROR;
        }
        if (status != GT_CHECK_DONE)
            snprintf(note, note_len, "reference: out of memory");
    }
    gt_wire_findings_free(&findings);
    return status;
}

/* Seed 004's grammar cache: the identity of each schema, and whether the
 * first two share a compiled grammar. */
static int run_grammar_key(gt_arena *arena, const gt_value *wire, gt_observed *observed, char *note, size_t note_len)
{
    const gt_value *many = member(wire, "schemas");
    if (many == NULL || many->type != GT_ARRAY || many->u.arr.count == 0) {
        snprintf(note, note_len, "a grammar_key case gives a non-empty wire.schemas array");
        return GT_CHECK_ERROR;
    }
    gt_value_builder b = {.arena = arena, .failed = false};
    gt_value *out = gt_build(&b, gt_value_new_object(arena)), *keys = gt_build(&b, gt_value_new_array(arena));
    char first[17] = "", key[17];
    bool same = true;
    for (size_t i = 0; !b.failed && i < many->u.arr.count; i++) {
        b.failed = gt_wire_grammar_key(many->u.arr.items[i], key) != 0 ||
                   gt_value_array_append(arena, keys, gt_build(&b, gt_value_new_string(arena, key, 16))) != 0;
        if (i == 0)
            memcpy(first, key, sizeof first);
        else
            same = same && strcmp(first, key) == 0;
    }
    gt_build_put(&b, out, "keys", keys);
    gt_build_put_bool(&b, out, "same", same);
    if (b.failed || accept_with(observed, out) != 0) {
        snprintf(note, note_len, "reference: out of memory");
        return GT_CHECK_ERROR;
    }
    return GT_CHECK_DONE;
}

/* Seed 004 end to end: transform for the wire, then validate the response
 * against the original schema (never the transformed one, which has lost
 * its bounds). */
static int run_respond(gt_arena *arena, const gt_value *wire, const gt_case_input *input, gt_observed *observed,
                       char *note, size_t note_len)
{
    /* The contract is the case's schema (wire.schema may stand in for it). */
    const gt_value *schema = member(wire, "schema");
    if (schema == NULL && input->schema_json != NULL) {
        gt_parse_options schema_options;
        gt_parse_options_init(&schema_options);
        schema_options.allow_big_integers = true;
        schema_options.max_depth = GT_SCHEMA_PARSE_MAX_DEPTH;
        gt_parse_error schema_error;
        schema = gt_parse(arena, input->schema_json, strlen(input->schema_json), &schema_options, &schema_error);
    }
    const char *flavor_name = string_member(wire, "flavor");
    int flavor = flavor_name != NULL ? gt_wire_flavor_from_name(flavor_name) : GT_WIRE_FLAVOR_PYTHON;
    if (schema == NULL || flavor < 0 || input->raw == NULL) {
        snprintf(note, note_len, "a respond case needs a schema (the case's, or wire.schema), a known wire.flavor and "
                                 "the response as input");
        return GT_CHECK_ERROR;
    }
    gt_value *sent = NULL;
    gt_wire_problem problem;
    int result = gt_wire_transform(arena, schema, (gt_wire_flavor)flavor, &sent, &problem);
    if (result == GT_WIRE_REJECTED)
        return reject_with(observed, &problem) == 0 ? GT_CHECK_DONE : GT_CHECK_ERROR;
    char *original = result == GT_WIRE_OK ? gt_value_to_json(schema, NULL) : NULL;
    if (original == NULL) {
        snprintf(note, note_len, "reference: out of memory");
        return GT_CHECK_ERROR;
    }
    gt_case_input checked = *input;
    checked.schema_json = original;
    checked.schema_origin = "wire.schema";
    int status = gt_reference_check_gates(&checked, observed, note, note_len);
    free(original);
    if (status != GT_CHECK_DONE)
        return status;
    gt_parse_options options;
    gt_parse_options_init(&options);
    options.allow_big_integers = true;
    gt_parse_error error;
    const gt_value *value = observed->verdict == GT_VERDICT_ACCEPT && observed->output_json != NULL
                                ? gt_parse(arena, observed->output_json, strlen(observed->output_json), &options, &error)
                                : NULL;
    gt_value_builder b = {.arena = arena, .failed = false};
    gt_value *out = gt_build(&b, gt_value_new_object(arena));
    gt_build_put(&b, out, "sent", sent);
    gt_build_put(&b, out, "value", value ? (gt_value *)value : gt_build(&b, gt_value_new_null(arena)));
    char *json = b.failed ? NULL : gt_value_to_json(out, NULL);
    if (json == NULL) {
        snprintf(note, note_len, "reference: out of memory");
        return GT_CHECK_ERROR;
    }
    free(observed->output_json);
    observed->output_json = json;
    observed->gates[GT_GATE_WIRE] = GT_GATE_PASSED;
    return GT_CHECK_DONE;
}

int gt_reference_check_wire(const gt_case_input *input, gt_observed *observed, char *note, size_t note_len)
{
    if (input->case_json == NULL) {
        snprintf(note, note_len, "wire case %s has no case object", input->id ? input->id : "?");
        return GT_CHECK_ERROR;
    }
    gt_arena *arena = gt_arena_new();
    if (arena == NULL) {
        snprintf(note, note_len, "reference: out of memory");
        return GT_CHECK_ERROR;
    }
    gt_parse_options options;
    gt_parse_options_init(&options);
    options.allow_big_integers = true;
    gt_parse_error error;
    const gt_value *kase = gt_parse(arena, input->case_json, strlen(input->case_json), &options, &error);
    const gt_value *wire = member(kase, "wire");
    const char *op = string_member(wire, "op");
    int status = GT_CHECK_DONE;
    if (wire == NULL || op == NULL) {
        snprintf(note, note_len, "a wire case needs \"wire\": {\"op\": \"strict\"|\"transform\"|\"lint\"|"
                                 "\"grammar_key\"|\"respond\", ...}");
        status = GT_CHECK_ERROR;
    } else if (strcmp(op, "lint") == 0) {
        status = run_lint(wire, observed, note, note_len);
    } else if (strcmp(op, "grammar_key") == 0) {
        status = run_grammar_key(arena, wire, observed, note, note_len);
    } else if (strcmp(op, "respond") == 0) {
        status = run_respond(arena, wire, input, observed, note, note_len);
    } else if (strcmp(op, "strict") == 0 || strcmp(op, "transform") == 0) {
        const gt_value *schema = member(wire, "schema");
        const char *flavor_name = string_member(wire, "flavor");
        int flavor = flavor_name != NULL ? gt_wire_flavor_from_name(flavor_name) : GT_WIRE_FLAVOR_PYTHON;
        if (schema == NULL) {
            snprintf(note, note_len, "a %s case needs wire.schema", op);
            status = GT_CHECK_ERROR;
        } else if (flavor < 0) {
            snprintf(note, note_len, "wire.flavor must be python or typescript, not '%s'", flavor_name);
            status = GT_CHECK_ERROR;
        } else {
            gt_value *out = NULL;
            gt_wire_problem problem;
            int result = strcmp(op, "strict") == 0
                             ? gt_wire_strict(arena, schema, &out, &problem)
                             : gt_wire_transform(arena, schema, (gt_wire_flavor)flavor, &out, &problem);
            int failed = result == GT_WIRE_OK         ? accept_with(observed, out)
                         : result == GT_WIRE_REJECTED ? reject_with(observed, &problem)
                                                      : -1;
            if (failed != 0) {
                snprintf(note, note_len, "reference: out of memory");
                status = GT_CHECK_ERROR;
            }
        }
    } else {
        snprintf(note, note_len, "unknown wire.op '%s' (strict, transform, lint, grammar_key or respond)", op);
        status = GT_CHECK_ERROR;
    }
    gt_arena_free(arena);
    return status;
}
