/* test_profiles.c — fair verdicts (docs/profiles.md): profile names and
 * lists, the loader's `profiles` field and defaults, what a claim judges
 * (verdict classes, other-reason passes, figures only under a loop claim),
 * object-level keyword errors at the object or the child, not-applicable
 * cases never sent, coverage in the console, JSON (read back too), the
 * badge and the certificate, and the `--profile` / hello / `gauntlet
 * profiles` contracts. */
#include <cJSON.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gauntlet/runner/corpus.h"
#include "gauntlet/runner/report.h"
#include "gauntlet/runner/run.h"
#include "gt_test.h"
#include "runner/cli/commands.h"
#include "runner/targets/clean_answer.h"
#include "gauntlet/arena.h"
#include "gauntlet/parse.h"

#define CORE (1u << GT_PROFILE_CORE)
#define REPAIR (1u << GT_PROFILE_REPAIR_LOOP)
#define CLAUDE (1u << GT_PROFILE_CLAUDE_CODE)
#define REASONS (1u << GT_PROFILE_REASONS)

static char dir[64];

static void setup(void)
{
    snprintf(dir, sizeof dir, "/tmp/gt-profiles-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void teardown(void)
{
    char command[128];
    snprintf(command, sizeof command, "rm -rf '%s'", dir);
    ck_assert_int_eq(system(command), 0);
}

/* Write DIR/NAME; returns its path (one of 8 buffers used in turn). */
static const char *write_in_dir(const char *name, const char *text)
{
    static char paths[8][256];
    static unsigned next;
    char *path = paths[next++ % 8];
    snprintf(path, 256, "%s/%s", dir, name);
    FILE *file = fopen(path, "w");
    ck_assert_ptr_nonnull(file);
    fputs(text, file);
    fclose(file);
    return path;
}

/* ---- names and lists ---------------------------------------------------- */

START_TEST(profile_lists_parse_and_format)
{
    unsigned mask = 0;
    char err[256], text[128];
    ck_assert_int_eq(gt_profiles_parse("core, reasons", &mask, err, sizeof err), 0);
    ck_assert_uint_eq(mask, CORE | REASONS);
    ck_assert_str_eq(gt_profiles_format(mask, ",", text, sizeof text), "core,reasons");
    ck_assert_int_eq(gt_profiles_parse("all", &mask, err, sizeof err), 0);
    ck_assert_uint_eq(mask, GT_PROFILES_ALL);
    ck_assert_int_eq(gt_profiles_parse("core,claude", &mask, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "unknown profile 'claude'") && strstr(err, GT_PROFILE_NAMES), "%s", err);
    ck_assert_int_eq(gt_profiles_parse("core,,reasons", &mask, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "empty profile name"));
    ck_assert_int_eq(gt_profiles_parse("", &mask, err, sizeof err), -1);
    ck_assert_int_eq(gt_profiles_parse("core,reasons,core", &mask, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "profile 'core' is named twice"));
    for (int p = 0; p < GT_PROFILE_COUNT; p++) {
        const char *name = gt_profile_name((gt_profile)p);
        ck_assert_int_eq(gt_profile_from_name(name, strlen(name)), p);
        ck_assert_uint_gt(strlen(gt_profile_statement((gt_profile)p)), 20);
        ck_assert_uint_gt(strlen(gt_profile_sources((gt_profile)p)), 5);
    }
}
END_TEST

START_TEST(defaults_follow_gate_tier_and_rules)
{
    const char *s0[] = {"S0-19"}, *s4[] = {"S4-02"}, *none[] = {"OPENAI-x"};
    ck_assert_uint_eq(gt_profiles_default("syntax", GT_TIER_REQUIRED, "fence", NULL, 0), CORE);
    ck_assert_uint_eq(gt_profiles_default("structure", GT_TIER_OPTIONAL, "types", NULL, 0), REASONS);
    ck_assert_uint_eq(gt_profiles_default("semantic", GT_TIER_REQUIRED, "repair", NULL, 0), REPAIR);
    ck_assert_uint_eq(gt_profiles_default("semantic", GT_TIER_OPTIONAL, "repair", NULL, 0), REASONS);
    ck_assert_uint_eq(gt_profiles_default("stream", GT_TIER_REQUIRED, "x", NULL, 0), CORE);
    ck_assert_uint_eq(gt_profiles_default("stream", GT_TIER_OPTIONAL, "x", s0, 1), CLAUDE);
    ck_assert_uint_eq(gt_profiles_default("stream", GT_TIER_OPTIONAL, "x", none, 1), REASONS);
    ck_assert_uint_eq(gt_profiles_default("loop", GT_TIER_REQUIRED, "attempts", NULL, 0), CLAUDE);
    ck_assert_uint_eq(gt_profiles_default("wire", GT_TIER_REQUIRED, "strict", s0, 1), CLAUDE);
    ck_assert_uint_eq(gt_profiles_default("wire", GT_TIER_REQUIRED, "transform", s4, 1), 1u << GT_PROFILE_SDK_TRANSFORM);
    ck_assert_uint_eq(gt_profiles_default("wire", GT_TIER_REQUIRED, "lint", none, 1), 1u << GT_PROFILE_SDK_TRANSFORM);
}
END_TEST

/* ---- the loader ----------------------------------------------------------- */

START_TEST(loader_reads_profiles_and_rejects_unknown_ones)
{
    const char *text = "{\"format\": \"gauntlet-corpus/1\", \"defaults\": {\"gate\": \"syntax\", \"category\": \"p\",\n"
                       "  \"profiles\": [\"core\", \"reasons\"]},\n"
                       " \"cases\": [\n"
                       "  {\"id\": \"p.inherits\", \"input\": \"1\", \"expect\": {\"verdict\": \"accept\"}},\n"
                       "  {\"id\": \"p.own\", \"profiles\": [\"claude-code\"], \"input\": \"1\", \"expect\": {\"verdict\": \"accept\"}},\n"
                       "  {\"id\": \"p.unknown\", \"profiles\": [\"core\", \"cor\"], \"input\": \"1\", \"expect\": {\"verdict\": \"accept\"}},\n"
                       "  {\"id\": \"p.empty\", \"profiles\": [], \"input\": \"1\", \"expect\": {\"verdict\": \"accept\"}},\n"
                       "  {\"id\": \"p.twice\", \"profiles\": [\"core\", \"core\"], \"input\": \"1\", \"expect\": {\"verdict\": \"accept\"}},\n"
                       "  {\"id\": \"p.string\", \"profiles\": \"core\", \"input\": \"1\", \"expect\": {\"verdict\": \"accept\"}}\n"
                       "]}\n";
    gt_corpus *corpus = gt_corpus_new();
    ck_assert_int_eq(gt_corpus_load_text(corpus, "p.cases.json", text, strlen(text)), 2);
    ck_assert_uint_eq(gt_corpus_case(corpus, 0)->profiles, CORE | REASONS);
    ck_assert(gt_corpus_case(corpus, 0)->profiles_given);
    ck_assert_uint_eq(gt_corpus_case(corpus, 1)->profiles, CLAUDE);
    ck_assert_uint_eq(gt_corpus_problem_count(corpus), 4);
    const gt_load_problem *unknown = gt_corpus_problem(corpus, 0);
    ck_assert_str_eq(unknown->file, "p.cases.json");
    ck_assert_uint_eq(unknown->line, 6);
    ck_assert_str_eq(unknown->field, "/cases/2/profiles/1");
    ck_assert_msg(strstr(unknown->message, "unknown profile 'cor'") && strstr(unknown->message, GT_PROFILE_NAMES),
                  "%s", unknown->message);
    ck_assert_ptr_nonnull(strstr(gt_corpus_problem(corpus, 1)->message, "non-empty array"));
    ck_assert_ptr_nonnull(strstr(gt_corpus_problem(corpus, 2)->message, "named twice"));
    ck_assert_ptr_nonnull(strstr(gt_corpus_problem(corpus, 3)->message, "not a string"));
    gt_corpus_free(corpus);

    /* a case without the field takes its gate's default */
    const char *plain = "{\"format\": \"gauntlet-corpus/1\", \"cases\": [\n"
                        "  {\"id\": \"q.a\", \"gate\": \"loop\", \"category\": \"q\", \"expect\": {\"verdict\": \"accept\"}},\n"
                        "  {\"id\": \"q.b\", \"gate\": \"syntax\", \"category\": \"q\", \"tier\": \"optional\", \"input\": \"1\","
                        " \"expect\": {\"verdict\": \"accept\"}}]}\n";
    corpus = gt_corpus_new();
    ck_assert_int_eq(gt_corpus_load_text(corpus, "q.cases.json", plain, strlen(plain)), 2);
    ck_assert_uint_eq(gt_corpus_case(corpus, 0)->profiles, CLAUDE);
    ck_assert(!gt_corpus_case(corpus, 0)->profiles_given);
    ck_assert_uint_eq(gt_corpus_case(corpus, 1)->profiles, REASONS);
    gt_corpus_free(corpus);
}
END_TEST

/* ---- what a claim judges -------------------------------------------------- */

static gt_outcome judge(const gt_expect *expect, const gt_observed *observed, const char *gate, unsigned case_profiles,
                        unsigned claims, gt_class *verdict_class, char *why, size_t why_len)
{
    return gt_compare_claimed(expect, observed, gate, case_profiles, claims, verdict_class, why, why_len);
}

START_TEST(classes_of_a_wrong_verdict)
{
    char why[512];
    gt_class verdict_class;
    gt_expect reject = {.verdict = GT_VERDICT_REJECT, .gate = "syntax", .reason = "duplicate_key"};
    gt_observed accepted = {.verdict = GT_VERDICT_ACCEPT};
    ck_assert_int_eq(judge(&reject, &accepted, "syntax", CORE, CORE, &verdict_class, why, sizeof why), GT_OUTCOME_FAIL);
    ck_assert_int_eq(verdict_class, GT_CLASS_UNSAFE);

    gt_expect accept = {.verdict = GT_VERDICT_ACCEPT};
    gt_observed refused = {0};
    gt_observed_reject(&refused, "syntax", "unexpected_character", "bad");
    ck_assert_int_eq(judge(&accept, &refused, "syntax", CORE, CORE, &verdict_class, why, sizeof why), GT_OUTCOME_FAIL);
    ck_assert_int_eq(verdict_class, GT_CLASS_REFUSED_VALID);

    /* the right verdict at another gate: a figure, still a failure */
    gt_expect structure = {.verdict = GT_VERDICT_REJECT, .gate = "structure", .reason = "type"};
    ck_assert_int_eq(judge(&structure, &refused, "structure", CORE, CORE, &verdict_class, why, sizeof why),
                     GT_OUTCOME_FAIL);
    ck_assert_int_eq(verdict_class, GT_CLASS_FIGURES);
    gt_observed_clear(&refused);
}
END_TEST

/* A vendor client that returned the complete, valid answer of the turn the
 * mock served last (target_http.c clean_answer) where the reference ends
 * otherwise: a budget or design difference (figures), never unsafe; any
 * other returned object stays unsafe. */
START_TEST(a_clean_later_answer_is_a_figure_not_unsafe)
{
    char why[512];
    gt_class verdict_class;
    gt_expect reject = {.verdict = GT_VERDICT_REJECT, .gate = "loop", .reason = "max_retries"};
    gt_observed later = {.verdict = GT_VERDICT_ACCEPT, .black_box = true, .clean_answer_turn = 4};
    ck_assert_int_eq(judge(&reject, &later, "loop", CLAUDE, CLAUDE, &verdict_class, why, sizeof why), GT_OUTCOME_FAIL);
    ck_assert_int_eq(verdict_class, GT_CLASS_FIGURES);
    ck_assert_msg(strstr(why, "not an unsafe object (script turn 3)") != NULL, "%s", why);
    gt_observed coerced = {.verdict = GT_VERDICT_ACCEPT, .black_box = true};
    ck_assert_int_eq(judge(&reject, &coerced, "loop", CLAUDE, CLAUDE, &verdict_class, why, sizeof why), GT_OUTCOME_FAIL);
    ck_assert_int_eq(verdict_class, GT_CLASS_UNSAFE);
    /* the other of two valid objects survived */
    gt_expect other = {.verdict = GT_VERDICT_ACCEPT, .structured_output_json = "{\"a\":1}"};
    char envelope[] = "{\"subtype\":\"success\",\"structured_output\":{\"a\":2}}";
    gt_observed second = {.verdict = GT_VERDICT_ACCEPT, .black_box = true, .output_json = envelope,
                          .clean_answer_turn = 2};
    ck_assert_int_eq(judge(&other, &second, "loop", CLAUDE, CLAUDE, &verdict_class, why, sizeof why), GT_OUTCOME_FAIL);
    ck_assert_int_eq(verdict_class, GT_CLASS_FIGURES);
    second.clean_answer_turn = 0;
    ck_assert_int_eq(judge(&other, &second, "loop", CLAUDE, CLAUDE, &verdict_class, why, sizeof why), GT_OUTCOME_FAIL);
    ck_assert_int_eq(verdict_class, GT_CLASS_UNSAFE);
}
END_TEST

/* The served turn of the clean-answer rule (clean_answer.c), as a script
 * writes it: `turn_json` parsed into `arena`. */
static const gt_value *turn_of(gt_arena *arena, const char *turn_json)
{
    gt_parse_error error;
    const gt_value *turn = gt_parse(arena, turn_json, strlen(turn_json), NULL, &error);
    ck_assert_msg(turn != NULL, "%s: %s", turn_json, error.message);
    return turn;
}

#define SO_SCHEMA "{\"type\":\"object\",\"properties\":{\"cause\":{\"type\":\"string\"}},\"required\":[\"cause\"]}"
#define SSE_START                                                                                                 \
    "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"content\":[]," \
    "\"stop_reason\":null}}\n\n"                                                                                  \
    "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":"          \
    "{\"type\":\"tool_use\",\"id\":\"t\",\"name\":\"StructuredOutput\",\"input\":{}}}\n\n"
#define SSE_DELTA(json) \
    "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":" \
    "{\"type\":\"input_json_delta\",\"partial_json\":\"" json "\"}}\n\n"
#define SSE_BLOCK_STOP "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n"
#define SSE_STOP_DELTA(stop) \
    "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":" stop "}}\n\n"
#define SSE_MESSAGE_STOP "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"
/* a turn whose SSE text is the C string literal `sse` (escaped once more for the JSON) */
static const gt_value *sse_turn(gt_arena *arena, const char *sse)
{
    gt_value *text = gt_value_new_string(arena, sse, strlen(sse));
    char *escaped = gt_value_to_json(text, NULL);
    size_t len = strlen(escaped) + 32;
    char *json = gt_arena_alloc(arena, len);
    snprintf(json, len, "{\"stream\":{\"sse\":%s}}", escaped);
    free(escaped);
    return turn_of(arena, json);
}

/* The clean-answer rule on raw stream turns: the complete, valid input of a
 * block the stream closed, served to its terminal event with no stop reason
 * that forbids use and no error after it, is clean (figures); a stream cut
 * before its terminal event, a block never closed, a last-wins or other
 * object, a forbidding stop, an error event, or bytes the client did not get
 * as written are not (unsafe stays unsafe). */
START_TEST(a_closed_block_of_a_whole_stream_is_clean)
{
    gt_arena *arena = gt_arena_new();
    const gt_value *object = turn_of(arena, "{\"cause\":\"disk full\"}");
    const gt_value *other = turn_of(arena, "{\"cause\":\"disk\"}");
    const char *delta = SSE_DELTA("{\\\"cause\\\": \\\"disk full\\\"}");
    char sse[2048];
#define CLEAN(...) (snprintf(sse, sizeof sse, __VA_ARGS__), gt_clean_answer(sse_turn(arena, sse), true, object, SO_SCHEMA, false))
    /* figures: a number for a stop reason (stream.faults.message-delta-stop-not-string) */
    ck_assert_int_eq(CLEAN("%s%s%s%s%s", SSE_START, delta, SSE_BLOCK_STOP, SSE_STOP_DELTA("3"), SSE_MESSAGE_STOP),
                     GT_CLEAN_STREAM);
    /* figures: event names that disagree with the data's type, CRLF lines */
    ck_assert_int_eq(CLEAN("%s%s%s%s", SSE_START, "event: ping\r\ndata: {\"type\":\"content_block_delta\",\"index\":0,"
                                                  "\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":"
                                                  "\"{\\\"cause\\\": \\\"disk full\\\"}\"}}\r\n\r\n",
                           SSE_BLOCK_STOP, SSE_MESSAGE_STOP),
                     GT_CLEAN_STREAM);
    /* unsafe: cut before message_stop; the block never closed */
    ck_assert_int_eq(CLEAN("%s%s%s%s", SSE_START, delta, SSE_BLOCK_STOP, SSE_STOP_DELTA("\"tool_use\"")),
                     GT_CLEAN_NONE);
    ck_assert_int_eq(CLEAN("%s%s%s", SSE_START, delta, SSE_MESSAGE_STOP), GT_CLEAN_NONE);
    /* unsafe: a block closed only after the terminal event */
    ck_assert_int_eq(CLEAN("%s%s%s%s", SSE_START, delta, SSE_MESSAGE_STOP, SSE_BLOCK_STOP), GT_CLEAN_NONE);
    /* unsafe: a duplicated key (a last-wins parse), and an object no closed block holds */
    ck_assert_int_eq(CLEAN("%s%s%s%s", SSE_START, SSE_DELTA("{\\\"cause\\\": \\\"x\\\", \\\"cause\\\": \\\"disk full\\\"}"),
                           SSE_BLOCK_STOP, SSE_MESSAGE_STOP),
                     GT_CLEAN_NONE);
    snprintf(sse, sizeof sse, "%s%s%s%s", SSE_START, delta, SSE_BLOCK_STOP, SSE_MESSAGE_STOP);
    ck_assert_int_eq(gt_clean_answer(sse_turn(arena, sse), true, other, SO_SCHEMA, false), GT_CLEAN_NONE);
    /* unsafe: a stop reason that forbids use; an error event after the block */
    ck_assert_int_eq(CLEAN("%s%s%s%s%s", SSE_START, delta, SSE_BLOCK_STOP, SSE_STOP_DELTA("\"max_tokens\""),
                           SSE_MESSAGE_STOP),
                     GT_CLEAN_NONE);
    ck_assert_int_eq(CLEAN("%s%s%s%s%s", SSE_START, delta, SSE_BLOCK_STOP, SSE_MESSAGE_STOP,
                           "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\"}}\n\n"),
                     GT_CLEAN_NONE);
    /* the same whole stream, but not served as written (another API, or not streamed) */
    snprintf(sse, sizeof sse, "%s%s%s%s", SSE_START, delta, SSE_BLOCK_STOP, SSE_MESSAGE_STOP);
    ck_assert_int_eq(gt_clean_answer(sse_turn(arena, sse), false, object, SO_SCHEMA, false), GT_CLEAN_NONE);
    /* invalid against the schema */
    ck_assert_int_eq(gt_clean_answer(sse_turn(arena, sse), true, object,
                                     "{\"type\":\"object\",\"required\":[\"fixes\"]}", false),
                     GT_CLEAN_NONE);
#undef CLEAN
    /* message turns and uncut from_message streams keep the message rule */
    const char *call = "\"content\":[{\"type\":\"tool_use\",\"id\":\"t\",\"name\":\"StructuredOutput\","
                       "\"input\":{\"cause\":\"disk full\"}}]";
    char turn[512];
    snprintf(turn, sizeof turn, "{\"message\":{%s,\"stop_reason\":\"tool_use\"}}", call);
    ck_assert_int_eq(gt_clean_answer(turn_of(arena, turn), false, object, SO_SCHEMA, false), GT_CLEAN_MESSAGE);
    snprintf(turn, sizeof turn, "{\"message\":{%s,\"stop_reason\":\"refusal\"}}", call);
    ck_assert_int_eq(gt_clean_answer(turn_of(arena, turn), false, object, SO_SCHEMA, false), GT_CLEAN_NONE);
    snprintf(turn, sizeof turn, "{\"stream\":{\"from_message\":{%s}}}", call);
    ck_assert_int_eq(gt_clean_answer(turn_of(arena, turn), true, object, SO_SCHEMA, false), GT_CLEAN_MESSAGE);
    snprintf(turn, sizeof turn, "{\"stream\":{\"from_message\":{%s},\"cut\":{\"after_event\":2}}}", call);
    ck_assert_int_eq(gt_clean_answer(turn_of(arena, turn), true, object, SO_SCHEMA, false), GT_CLEAN_NONE);
    gt_arena_free(arena);

    /* the judge names the stream rule */
    char why[768];
    gt_class verdict_class;
    gt_expect reject = {.verdict = GT_VERDICT_REJECT, .gate = "stream", .reason = "sse_bad_event"};
    gt_observed kept = {.verdict = GT_VERDICT_ACCEPT, .black_box = true, .clean_answer_turn = 1,
                        .clean_answer_stream = true};
    ck_assert_int_eq(judge(&reject, &kept, "stream", CLAUDE, CLAUDE, &verdict_class, why, sizeof why), GT_OUTCOME_FAIL);
    ck_assert_int_eq(verdict_class, GT_CLASS_FIGURES);
    ck_assert_msg(strstr(why, "stream protocol strictness") != NULL, "%s", why);
}
END_TEST

/* A black-box client's rejection texts (the envelope's /errors) are
 * wording: a difference there is other_reason, a failure only when `reasons`
 * is claimed; every other place of the envelope stays a figure. */
START_TEST(a_black_box_rejection_wording_is_another_reason)
{
    char why[768];
    gt_class verdict_class;
    gt_expect worded = {.verdict = GT_VERDICT_REJECT, .gate = "loop", .reason = "json_schema_not_object",
                        .output_at_json = "{\"/errors/0\":\"--json-schema must be a JSON object\","
                                          "\"/gauntlet/detail\":\"the value is null\"}"};
    gt_observed silent = {0};
    gt_observed_reject(&silent, "loop", "client_exit", "client exited with status 1 and no result envelope");
    silent.black_box = true;
    ck_assert_int_eq(judge(&worded, &silent, "loop", CLAUDE, CLAUDE, &verdict_class, why, sizeof why), GT_OUTCOME_PASS);
    ck_assert_int_eq(verdict_class, GT_CLASS_OTHER_REASON);
    ck_assert_msg(strstr(why, "a rejection's wording") != NULL, "%s", why);
    ck_assert_int_eq(judge(&worded, &silent, "loop", CLAUDE, CLAUDE | REASONS, &verdict_class, why, sizeof why),
                     GT_OUTCOME_FAIL);
    ck_assert_int_eq(verdict_class, GT_CLASS_OTHER_REASON);
    /* the same wording given: a pass */
    char envelope[] = "{\"subtype\":\"error_invalid_json_schema\",\"errors\":[\"--json-schema must be a JSON object\"]}";
    silent.output_json = envelope;
    ck_assert_int_eq(judge(&worded, &silent, "loop", CLAUDE, CLAUDE | REASONS, &verdict_class, why, sizeof why),
                     GT_OUTCOME_PASS);
    ck_assert_int_eq(verdict_class, GT_CLASS_PASS);
    silent.output_json = NULL;
    /* a place outside /errors (is_error) is still a figure */
    gt_expect flagged = {.verdict = GT_VERDICT_REJECT, .gate = "loop", .output_at_json = "{\"/is_error\":true}"};
    ck_assert_int_eq(judge(&flagged, &silent, "loop", CLAUDE, CLAUDE, &verdict_class, why, sizeof why),
                     GT_OUTCOME_FAIL);
    ck_assert_int_eq(verdict_class, GT_CLASS_FIGURES);
    gt_observed_clear(&silent);
}
END_TEST

START_TEST(another_reason_passes_unless_reasons_is_claimed)
{
    char why[512];
    gt_class verdict_class;
    gt_expect end = {.verdict = GT_VERDICT_REJECT, .gate = "syntax", .reason = "unexpected_end"};
    gt_observed other = {0};
    gt_observed_reject(&other, "syntax", "unexpected_character", "Expecting value");
    ck_assert_int_eq(judge(&end, &other, "syntax", CORE, CORE, &verdict_class, why, sizeof why), GT_OUTCOME_PASS);
    ck_assert_int_eq(verdict_class, GT_CLASS_OTHER_REASON);
    ck_assert_msg(strstr(why, "expected reject syntax/unexpected_end, observed reject syntax/unexpected_character"),
                  "%s", why);
    ck_assert_int_eq(judge(&end, &other, "syntax", CORE, CORE | REASONS, &verdict_class, why, sizeof why),
                     GT_OUTCOME_FAIL);
    ck_assert_int_eq(verdict_class, GT_CLASS_OTHER_REASON);
    /* gt_compare is the reference's claim: every profile */
    ck_assert_int_eq(gt_compare(&end, &other, why, sizeof why), GT_OUTCOME_FAIL);

    /* a message the case asks for: wording, so the same rule */
    gt_expect worded = {.verdict = GT_VERDICT_REJECT, .gate = "syntax", .reason = "unexpected_character",
                        .message_contains_json = "\"at 1:1\""};
    ck_assert_int_eq(judge(&worded, &other, "syntax", CORE, CORE, &verdict_class, why, sizeof why), GT_OUTCOME_PASS);
    ck_assert_int_eq(verdict_class, GT_CLASS_OTHER_REASON);
    ck_assert_int_eq(judge(&worded, &other, "syntax", CORE, REASONS | CORE, &verdict_class, why, sizeof why),
                     GT_OUTCOME_FAIL);
    gt_observed_clear(&other);
}
END_TEST

START_TEST(object_level_errors_match_at_the_object_or_the_child)
{
    char why[512];
    gt_class verdict_class;
    gt_expected_error extra[] = {{"/debug_context", "additionalProperties"}, {"/trace", "additionalProperties"}};
    gt_expect expect = {.verdict = GT_VERDICT_REJECT, .gate = "structure", .reason = "additionalProperties",
                        .errors = extra, .error_count = 2, .errors_given = true};
    gt_observed at_object = {0};
    gt_observed_reject(&at_object, "structure", "additionalProperties", NULL);
    gt_observed_add_error(&at_object, "", "additionalProperties", "Additional properties are not allowed");
    ck_assert_int_eq(judge(&expect, &at_object, "structure", CORE, GT_PROFILES_ALL, &verdict_class, why, sizeof why),
                     GT_OUTCOME_PASS);
    ck_assert_int_eq(verdict_class, GT_CLASS_PASS);

    /* the other way round: the case at the object, the target at the child */
    gt_expected_error missing[] = {{"/order", "required"}};
    gt_expect required = {.verdict = GT_VERDICT_REJECT, .gate = "structure", .reason = "required",
                          .errors = missing, .error_count = 1, .errors_given = true};
    gt_observed child = {0};
    gt_observed_reject(&child, "structure", "required", NULL);
    gt_observed_add_error(&child, "/order/id", "required", NULL);
    ck_assert_int_eq(judge(&required, &child, "structure", CORE, GT_PROFILES_ALL, &verdict_class, why, sizeof why),
                     GT_OUTCOME_PASS);

    /* arrays too: python-jsonschema and ajv report unevaluatedItems at the
     * array, gauntlet at each item it refused */
    gt_expected_error items[] = {{"/1", "unevaluatedItems"}, {"/2", "unevaluatedItems"}};
    gt_expect unevaluated = {.verdict = GT_VERDICT_REJECT, .gate = "structure", .reason = "unevaluatedItems",
                             .errors = items, .error_count = 2, .errors_given = true};
    gt_observed at_array = {0};
    gt_observed_reject(&at_array, "structure", "unevaluatedItems", NULL);
    gt_observed_add_error(&at_array, "", "unevaluatedItems", "Unevaluated items are not allowed");
    ck_assert_int_eq(judge(&unevaluated, &at_array, "structure", CORE, GT_PROFILES_ALL, &verdict_class, why,
                           sizeof why),
                     GT_OUTCOME_PASS);
    ck_assert_int_eq(verdict_class, GT_CLASS_PASS);
    /* ... but not an item's own keyword reported at the array */
    gt_expected_error item_type[] = {{"/1", "type"}};
    unevaluated.errors = item_type, unevaluated.error_count = 1, unevaluated.reason = "type";
    gt_observed array_type = {0};
    gt_observed_reject(&array_type, "structure", "type", NULL);
    gt_observed_add_error(&array_type, "", "type", NULL);
    ck_assert_int_eq(judge(&unevaluated, &array_type, "structure", CORE, GT_PROFILES_ALL, &verdict_class, why,
                           sizeof why),
                     GT_OUTCOME_FAIL);
    gt_observed_clear(&at_array);
    gt_observed_clear(&array_type);

    /* not for keywords that fail at the value itself, nor two levels apart */
    gt_expected_error typed[] = {{"/a/b", "type"}};
    gt_expect type = {.verdict = GT_VERDICT_REJECT, .gate = "structure", .reason = "type",
                      .errors = typed, .error_count = 1, .errors_given = true};
    gt_observed parent = {0};
    gt_observed_reject(&parent, "structure", "type", NULL);
    gt_observed_add_error(&parent, "/a", "type", NULL);
    ck_assert_int_eq(judge(&type, &parent, "structure", CORE, GT_PROFILES_ALL, &verdict_class, why, sizeof why),
                     GT_OUTCOME_FAIL);
    ck_assert_int_eq(verdict_class, GT_CLASS_OTHER_REASON);
    ck_assert_ptr_nonnull(strstr(why, "missing error type at \"/a/b\""));
    gt_observed far = {0};
    gt_observed_reject(&far, "structure", "required", NULL);
    gt_observed_add_error(&far, "", "required", NULL);
    gt_expected_error deep[] = {{"/a/b", "required"}};
    required.errors = deep;
    ck_assert_int_eq(judge(&required, &far, "structure", CORE, GT_PROFILES_ALL, &verdict_class, why, sizeof why),
                     GT_OUTCOME_FAIL);
    gt_observed_clear(&at_object);
    gt_observed_clear(&child);
    gt_observed_clear(&parent);
    gt_observed_clear(&far);
}
END_TEST

START_TEST(figures_are_judged_only_under_a_loop_claim)
{
    char why[512];
    gt_class verdict_class;
    gt_expect expect = {.verdict = GT_VERDICT_ACCEPT, .subtype = "success", .accounting_given = true,
                        .structured_output_json = "{\"a\":1}"};
    gt_accounting_init(&expect.accounting);
    expect.accounting.attempts_used = 2;
    expect.accounting.attempts_limit = 5;
    expect.accounting.model_calls = 2;
    gt_observed observed = {.verdict = GT_VERDICT_ACCEPT, .has_accounting = true, .subtype = "ok",
                            .output_json = "{\"structured_output\":{\"a\":1}}"};
    gt_accounting_init(&observed.accounting);
    observed.accounting.attempts_used = 2;
    observed.accounting.attempts_limit = 3;
    observed.accounting.model_calls = 2;
    unsigned both = CORE | REPAIR | CLAUDE;
    /* core alone: the verdict and the object */
    ck_assert_int_eq(judge(&expect, &observed, "loop", both, CORE, &verdict_class, why, sizeof why), GT_OUTCOME_PASS);
    /* repair-loop: its own limit and subtype are not seed 000's, the attempts are judged */
    ck_assert_int_eq(judge(&expect, &observed, "loop", both, REPAIR, &verdict_class, why, sizeof why), GT_OUTCOME_PASS);
    observed.accounting.attempts_used = 3;
    ck_assert_int_eq(judge(&expect, &observed, "loop", both, REPAIR, &verdict_class, why, sizeof why), GT_OUTCOME_FAIL);
    ck_assert_int_eq(verdict_class, GT_CLASS_FIGURES);
    observed.accounting.attempts_used = 2;
    /* claude-code: everything the case gives */
    ck_assert_int_eq(judge(&expect, &observed, "loop", both, CLAUDE, &verdict_class, why, sizeof why), GT_OUTCOME_FAIL);
    ck_assert_int_eq(verdict_class, GT_CLASS_FIGURES);
    ck_assert_ptr_nonnull(strstr(why, "expected subtype success"));
    /* a claude-code claim is not judged on figures through a case it sees as core only */
    ck_assert_int_eq(judge(&expect, &observed, "loop", CORE | REPAIR, CORE | CLAUDE, &verdict_class, why, sizeof why),
                     GT_OUTCOME_PASS);

    /* the object is judged under every claim: a leaked one is unsafe, a lost one refused_valid */
    observed.output_json = "{\"structured_output\":{\"a\":2}}";
    ck_assert_int_eq(judge(&expect, &observed, "loop", both, CORE, &verdict_class, why, sizeof why), GT_OUTCOME_FAIL);
    ck_assert_int_eq(verdict_class, GT_CLASS_UNSAFE);
    observed.output_json = "{\"structured_output\":null}";
    ck_assert_int_eq(judge(&expect, &observed, "loop", both, CORE, &verdict_class, why, sizeof why), GT_OUTCOME_FAIL);
    ck_assert_int_eq(verdict_class, GT_CLASS_REFUSED_VALID);
}
END_TEST

/* ---- runs: not applicable, coverage, reports ------------------------------ */

static const char *mixed_corpus(void)
{
    return write_in_dir("mixed.cases.json",
                        "{\"format\": \"gauntlet-corpus/1\", \"defaults\": {\"gate\": \"syntax\", \"category\": \"m\"},\n"
                        " \"cases\": [\n"
                        "  {\"id\": \"m.valid\", \"input\": \"{}\", \"expect\": {\"verdict\": \"accept\"}},\n"
                        "  {\"id\": \"m.dup\", \"input\": \"{\\\"a\\\":1,\\\"a\\\":2}\", \"expect\": {\"verdict\": \"reject\","
                        " \"gate\": \"syntax\", \"reason\": \"duplicate_key\"}},\n"
                        "  {\"id\": \"m.end\", \"input\": \"{\", \"expect\": {\"verdict\": \"reject\", \"gate\": \"syntax\","
                        " \"reason\": \"unexpected_end\"}},\n"
                        "  {\"id\": \"m.worded\", \"tier\": \"optional\", \"input\": \"[1,]\", \"expect\": {\"verdict\": \"reject\","
                        " \"gate\": \"syntax\", \"reason\": \"trailing_comma\"}},\n"
                        "  {\"id\": \"m.loop\", \"gate\": \"loop\", \"expect\": {\"verdict\": \"accept\"}}\n"
                        "]}\n");
}

/* A lax adapter: Python's json.loads, one reason for every rejection,
 * syntax only; PROFILES is its hello's "profiles" (empty: none). */
static const char *lax_adapter(const char *profiles)
{
    char text[2048];
    snprintf(text, sizeof text,
             "import base64, json, sys\n"
             "for line in sys.stdin:\n"
             "    req = json.loads(line)\n"
             "    if req['cmd'] == 'hello':\n"
             "        out = {'protocol': 1, 'implementation': {'name': 'lax', 'version': '1'}, 'capabilities': ['syntax']}\n"
             "        if %s: out['profiles'] = %s\n"
             "    elif req['cmd'] == 'check':\n"
             "        try:\n"
             "            json.loads(base64.b64decode(req['raw_base64']))\n"
             "            out = {'seq': req['seq'], 'verdict': 'accept'}\n"
             "        except Exception as e:\n"
             "            out = {'seq': req['seq'], 'verdict': 'reject', 'gate': 'syntax', 'reason': 'unexpected_character'}\n"
             "    else:\n"
             "        break\n"
             "    print(json.dumps(out), flush=True)\n",
             profiles[0] ? "True" : "False", profiles[0] ? profiles : "None");
    static char command[512];
    snprintf(command, sizeof command, "adapter:python3 %s", write_in_dir(profiles[0] ? "lax-claims.py" : "lax.py", text));
    return command;
}

START_TEST(a_core_adapter_is_judged_on_core_alone)
{
    static char out[1 << 16];
    char json[300], badge[300];
    const char *cases = mixed_corpus();
    snprintf(json, sizeof json, "json:%s/r.json,badge:%s/b.json", dir, dir);
    char *run[] = {"run", (char *)cases, "--target", (char *)lax_adapter(""), "--report", json, "--certify", NULL};
    /* the duplicate key is the one unsafe accept: exit 1 */
    int status = gt_test_cli(gt_cmd_run, run, out, sizeof out);
    ck_assert_msg(status == 1, "exit %d: %s", status, out);
    ck_assert_msg(strstr(out, "3 of 5 cases (2 not applicable) against lax 1"), "%s", out);
    ck_assert_msg(strstr(out, "verdicts   1 unsafe, 0 refused_valid, 0 figures, 1 other_reason"), "%s", out);
    ck_assert_msg(strstr(out, "profiles   claimed core; 2 cases not applicable"), "%s", out);
    ck_assert_msg(strstr(out, "coverage   core: 3 of 3 required cases ran (100.0%), 2 passed"), "%s", out);
    ck_assert_msg(strstr(out, "\nFAIL m.dup: expected reject syntax/duplicate_key, observed accept [unsafe]\n"), "%s", out);
    ck_assert_msg(strstr(out, "\nOTHER-REASON m.end: expected reject syntax/unexpected_end, observed reject "
                              "syntax/unexpected_character\n"),
                  "%s", out);
    ck_assert_msg(strstr(out, "  profiles        claimed: core; not claimed: repair-loop, claude-code, sdk-transform, "
                              "reasons (2 cases not applicable)"),
                  "%s", out);
    ck_assert_msg(strstr(out, "\n2 passed, 1 failed, 0 skipped\n"), "%s", out);
    ck_assert_ptr_null(strstr(out, "m.worded"));

    snprintf(json, sizeof json, "%s/r.json", dir);
    char *text = gt_test_slurp(json);
    cJSON *report = cJSON_Parse(text);
    ck_assert_ptr_nonnull(report);
    cJSON *totals = cJSON_GetObjectItem(report, "totals");
    ck_assert_int_eq(cJSON_GetObjectItem(totals, "cases")->valueint, 3);
    ck_assert_int_eq(cJSON_GetObjectItem(totals, "not_applicable")->valueint, 2);
    ck_assert_int_eq(cJSON_GetObjectItem(totals, "other_reason")->valueint, 1);
    ck_assert_int_eq(cJSON_GetObjectItem(totals, "unsafe")->valueint, 1);
    ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(report, "cases")), 3);
    cJSON *not_applicable = cJSON_GetObjectItem(report, "not_applicable");
    ck_assert_int_eq(cJSON_GetArraySize(not_applicable), 2);
    ck_assert_str_eq(cJSON_GetObjectItem(cJSON_GetArrayItem(not_applicable, 0), "id")->valuestring, "m.worded");
    cJSON *end = cJSON_GetArrayItem(cJSON_GetObjectItem(report, "cases"), 2);
    ck_assert_str_eq(cJSON_GetObjectItem(end, "outcome")->valuestring, "pass");
    ck_assert_str_eq(cJSON_GetObjectItem(end, "class")->valuestring, "other_reason");
    cJSON *certification = cJSON_GetObjectItem(report, "certification");
    cJSON *core = cJSON_GetObjectItem(cJSON_GetObjectItem(certification, "coverage"), "core");
    ck_assert_int_eq(cJSON_GetObjectItem(core, "held")->valueint, 3);
    ck_assert_int_eq(cJSON_GetObjectItem(core, "ran")->valueint, 3);
    ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(certification, "profiles_claimed")), 1);
    /* the unsafe acceptance is a required failure: no certificate */
    ck_assert(cJSON_IsFalse(cJSON_GetObjectItem(certification, "certified")));
    ck_assert_str_eq(cJSON_GetObjectItem(certification, "verdict")->valuestring,
                     "not certified: 1 of 3 required cases did not pass (1 failed, 0 errors, 0 skipped or not run)");
    cJSON_Delete(report);

    /* read back, the report formats like the run: n/a and classes survive */
    char err[256];
    gt_report_doc *doc = gt_report_load(json, err, sizeof err);
    ck_assert_msg(doc != NULL, "%s", err);
    const gt_run *back = gt_report_doc_run(doc);
    ck_assert_uint_eq(back->count, 5);
    ck_assert_uint_eq(back->profiles, CORE);
    ck_assert_int_eq(back->results[3].outcome, GT_OUTCOME_NOT_APPLICABLE);
    ck_assert_str_eq(back->results[3].kase->input.id, "m.worded");
    ck_assert_int_eq(back->results[2].verdict_class, GT_CLASS_OTHER_REASON);
    char *again = NULL;
    size_t len = 0;
    FILE *memory = open_memstream(&again, &len);
    gt_report_json(memory, back, gt_report_doc_info(doc));
    fclose(memory);
    cJSON *second = cJSON_Parse(again), *first = cJSON_Parse(text);
    ck_assert(cJSON_Compare(cJSON_GetObjectItem(first, "totals"), cJSON_GetObjectItem(second, "totals"), true));
    ck_assert(cJSON_Compare(cJSON_GetObjectItem(first, "not_applicable"), cJSON_GetObjectItem(second, "not_applicable"),
                            true));
    ck_assert(cJSON_Compare(cJSON_GetObjectItem(cJSON_GetObjectItem(first, "certification"), "coverage"),
                            cJSON_GetObjectItem(cJSON_GetObjectItem(second, "certification"), "coverage"), true));
    ck_assert(cJSON_Compare(cJSON_GetObjectItem(cJSON_GetObjectItem(first, "certification"), "verdict"),
                            cJSON_GetObjectItem(cJSON_GetObjectItem(second, "certification"), "verdict"), true));
    cJSON_Delete(first), cJSON_Delete(second);
    free(again);
    free(text);
    gt_report_doc_free(doc);

    /* the badge names its profile and its coverage */
    snprintf(badge, sizeof badge, "%s/b.json", dir);
    text = gt_test_slurp(badge);
    ck_assert_msg(strstr(text, "\"message\": \"core: 66.6% required (2/3), 100.0% ran\""), "%s", text);
    ck_assert_ptr_null(strstr(text, "green"));
    free(text);
}
END_TEST

START_TEST(claims_come_from_the_hello_or_the_flag)
{
    static char out[1 << 16];
    const char *cases = mixed_corpus();
    char *claimed[] = {"run", (char *)cases, "--target", (char *)lax_adapter("['core', 'reasons']"), NULL};
    int status = gt_test_cli(gt_cmd_run, claimed, out, sizeof out);
    ck_assert_msg(status == 1, "exit %d: %s", status, out);
    /* claiming reasons: the other reason fails, and the optional case applies */
    ck_assert_msg(strstr(out, "4 of 5 cases (1 not applicable)"), "%s", out);
    ck_assert_msg(strstr(out, "FAIL m.end: expected reject syntax/unexpected_end, observed reject "
                              "syntax/unexpected_character [other_reason]"),
                  "%s", out);

    /* --profile overrides what the target claims */
    char *flag[] = {"run", (char *)cases, "--target", (char *)lax_adapter("['core', 'reasons']"), "--profile", "core", NULL};
    ck_assert_int_eq(gt_test_cli(gt_cmd_run, flag, out, sizeof out), 1);
    ck_assert_msg(strstr(out, "3 of 5 cases (2 not applicable)"), "%s", out);

    /* an empty applicable selection is never green: exit 2 */
    char *none[] = {"run", (char *)cases, "--id", "m.loop", "--profile", "sdk-transform", NULL};
    ck_assert_int_eq(gt_test_cli(gt_cmd_run, none, out, sizeof out), 2);
    ck_assert_msg(strstr(out, "none of the 1 selected cases is applicable: the target is judged on sdk-transform"), "%s",
                  out);

    /* bad claims: the flag, the hello */
    char *bad_flag[] = {"run", (char *)cases, "--profile", "core,claude", NULL};
    ck_assert_int_eq(gt_test_cli(gt_cmd_run, bad_flag, out, sizeof out), 2);
    ck_assert_msg(strstr(out, "--profile: unknown profile 'claude' (known profiles: core, repair-loop"), "%s", out);
    char *bad_hello[] = {"run", (char *)cases, "--target", (char *)lax_adapter("['core', 'strict']"), NULL};
    ck_assert_int_eq(gt_test_cli(gt_cmd_run, bad_hello, out, sizeof out), 2);
    ck_assert_msg(strstr(out, "\"profiles\"[1] is 'strict', not a known profile (known profiles: core"), "%s", out);
}
END_TEST

/* A narrower claim than the baseline's: its cases are not run, never regressed. */
START_TEST(not_applicable_cases_are_not_run_for_a_baseline)
{
    static char out[1 << 16];
    char report[300], baseline[300];
    const char *cases = mixed_corpus();
    snprintf(report, sizeof report, "json:%s/all.json", dir);
    snprintf(baseline, sizeof baseline, "%s/all.json", dir);
    char *all[] = {"run", (char *)cases, "--id", "m.[dvw]*", "--report", report, NULL};
    ck_assert_int_eq(gt_test_cli(gt_cmd_run, all, out, sizeof out), 0);
    char *narrow[] = {"run", (char *)cases, "--id", "m.[dvw]*", "--profile", "core", "--baseline", baseline, NULL};
    ck_assert_int_eq(gt_test_cli(gt_cmd_run, narrow, out, sizeof out), 0);
    ck_assert_msg(strstr(out, "0 regressed, 0 fixed, 0 new, 0 now skipped (3 baseline cases, 1 not run)"), "%s", out);
    /* and the other way: a case not applicable in the baseline is new when it runs */
    snprintf(report, sizeof report, "json:%s/core.json", dir);
    snprintf(baseline, sizeof baseline, "%s/core.json", dir);
    char *core[] = {"run", (char *)cases, "--id", "m.[dvw]*", "--profile", "core", "--report", report, NULL};
    ck_assert_int_eq(gt_test_cli(gt_cmd_run, core, out, sizeof out), 0);
    char *wide[] = {"run", (char *)cases, "--id", "m.[dvw]*", "--baseline", baseline, NULL};
    ck_assert_int_eq(gt_test_cli(gt_cmd_run, wide, out, sizeof out), 0);
    ck_assert_msg(strstr(out, "0 regressed, 0 fixed, 1 new, 0 now skipped (2 baseline cases, 0 not run)"), "%s", out);

    /* claiming reasons turns the lax adapter's other-reason pass into a
     * regression; -q prints it (a gating failure is never silent) and
     * nothing else of the diff */
    snprintf(report, sizeof report, "json:%s/lax.json", dir);
    snprintf(baseline, sizeof baseline, "%s/lax.json", dir);
    const char *lax = lax_adapter("");
    char *before[] = {"run", (char *)cases, "--target", (char *)lax, "--id", "m.[evw]*", "--report", report, NULL};
    ck_assert_int_eq(gt_test_cli(gt_cmd_run, before, out, sizeof out), 0);
    char *after[] = {"run", (char *)cases, "--target", (char *)lax, "--id", "m.[evw]*", "--profile", "core,reasons",
                     "-q", "--baseline", baseline, NULL};
    ck_assert_int_eq(gt_test_cli(gt_cmd_run, after, out, sizeof out), 1);
    ck_assert_msg(strstr(out, "1 regressed, 0 fixed, 1 new") && strstr(out, "\nREGRESSED m.end (pass -> fail)\n"), "%s",
                  out);
    ck_assert_msg(strstr(out, "NEW ") == NULL, "%s", out);
}
END_TEST

/* An adapter whose hello is `hello` (Python literal) and that accepts everything. */
static const char *hello_adapter(const char *name, const char *hello)
{
    char text[1024];
    snprintf(text, sizeof text,
             "import json, sys\n"
             "for line in sys.stdin:\n"
             "    req = json.loads(line)\n"
             "    if req['cmd'] == 'hello':\n"
             "        out = %s\n"
             "    elif req['cmd'] == 'check':\n"
             "        out = {'seq': req['seq'], 'verdict': 'accept'}\n"
             "    else:\n"
             "        break\n"
             "    print(json.dumps(out), flush=True)\n",
             hello);
    static char command[512];
    snprintf(command, sizeof command, "adapter:python3 %s", write_in_dir(name, text));
    return command;
}

/* Green by accident is impossible: a capability that is no gate, none at
 * all, or a run whose applicable cases were all skipped; and -x does not
 * turn a not-applicable case into a skip. */
START_TEST(nothing_judged_is_never_green)
{
    static char out[1 << 16];
    const char *cases = mixed_corpus();
    char *typo[] = {"run", (char *)cases, "--target",
                    (char *)hello_adapter("typo.py", "{'protocol': 1, 'implementation': {'name': 't'}, "
                                                     "'capabilities': ['sintax']}"),
                    NULL};
    ck_assert_int_eq(gt_test_cli(gt_cmd_run, typo, out, sizeof out), 2);
    ck_assert_msg(strstr(out, "\"capabilities\"[0] is 'sintax', not a gate (known: syntax, structure"), "%s", out);
    char *empty[] = {"run", (char *)cases, "--target",
                     (char *)hello_adapter("empty.py", "{'protocol': 1, 'implementation': {'name': 't'}, "
                                                       "'capabilities': []}"),
                     NULL};
    ck_assert_int_eq(gt_test_cli(gt_cmd_run, empty, out, sizeof out), 2);
    ck_assert_msg(strstr(out, "\"capabilities\" is empty"), "%s", out);
    const char *loop_only = hello_adapter("loop.py", "{'protocol': 1, 'implementation': {'name': 't'}, "
                                                     "'capabilities': ['loop']}");
    char *skipped[] = {"run", (char *)cases, "--id", "m.[dev]*", "--target", (char *)loop_only, NULL};
    ck_assert_int_eq(gt_test_cli(gt_cmd_run, skipped, out, sizeof out), 2);
    ck_assert_msg(strstr(out, "every one of the 3 applicable cases was skipped"), "%s", out);
    ck_assert_msg(strstr(out, "\n0 passed, 0 failed, 3 skipped\n"), "%s", out);

    char *stop[] = {"run", (char *)cases, "--target", (char *)lax_adapter(""), "-x", "-j", "1", NULL};
    ck_assert_int_eq(gt_test_cli(gt_cmd_run, stop, out, sizeof out), 1);
    ck_assert_msg(strstr(out, "3 of 5 cases (2 not applicable)"), "%s", out);
}
END_TEST

START_TEST(profiles_command_lists_the_contracts)
{
    static char out[1 << 16];
    char *all[] = {"profiles", (char *)mixed_corpus(), NULL};
    ck_assert_int_eq(gt_test_cli(gt_cmd_profiles, all, out, sizeof out), 0);
    ck_assert_msg(strstr(out, "profile         cases  accept  reject  required  optional\n"), "%s", out);
    ck_assert_msg(strstr(out, "\ncore                3       1       2         3         0\n"), "%s", out);
    ck_assert_msg(strstr(out, "\nclaude-code         1       1       0         1         0\n"), "%s", out);
    ck_assert_msg(strstr(out, "\nreasons             1       0       1         0         1\n"), "%s", out);
    ck_assert_msg(strstr(out, "5 cases in 5 profiles (0 with profiles of their own)\n"), "%s", out);
    char *one[] = {"profiles", (char *)mixed_corpus(), "--cases", "claude-code", NULL};
    ck_assert_int_eq(gt_test_cli(gt_cmd_profiles, one, out, sizeof out), 0);
    ck_assert_str_eq(out, "m.loop\n");
    char *bad[] = {"profiles", "--cases", "nope", NULL};
    ck_assert_int_eq(gt_test_cli(gt_cmd_profiles, bad, out, sizeof out), 2);
    ck_assert_msg(strstr(out, "unknown profile 'nope' (known profiles: core"), "%s", out);
    /* the bundled corpus: every case in at least one profile, each profile used */
    char *bundled[] = {"profiles", GT_TEST_CORPUS, NULL};
    ck_assert_int_eq(gt_test_cli(gt_cmd_profiles, bundled, out, sizeof out), 0);
    for (int p = 0; p < GT_PROFILE_COUNT; p++) {
        char row[64];
        snprintf(row, sizeof row, "\n%-14s      0 ", gt_profile_name((gt_profile)p));
        ck_assert_msg(strstr(out, row) == NULL, "profile %s holds no case", gt_profile_name((gt_profile)p));
    }
}
END_TEST

START_TEST(sources_are_listed_by_rules_and_profiles)
{
    static char out[1 << 16];
    write_in_dir("rules.json", "{\"format\": \"gauntlet-rules/1\", \"rules\": [{\"id\": \"S-1\", \"statement\": \"s\"}]}");
    const char *cases = write_in_dir(
        "s.cases.json",
        "{\"format\": \"gauntlet-corpus/1\", \"defaults\": {\"gate\": \"syntax\", \"category\": \"s\"}, \"cases\": [\n"
        " {\"id\": \"s.two\", \"rules\": [\"S-1\"], \"input\": \"1\", \"expect\": {\"verdict\": \"accept\"},\n"
        "  \"source\": [{\"thread\": \"a/b#7\", \"url\": \"https://github.com/a/b/issues/7\"}, {\"rule\": \"S-1\"},\n"
        "             {\"thread\": \"c/d#9\", \"url\": \"https://github.com/c/d/pull/9\"}]},\n"
        " {\"id\": \"s.spec\", \"rules\": [\"S-1\"], \"input\": \"2\", \"expect\": {\"verdict\": \"accept\"},\n"
        "  \"source\": [{\"rule\": \"S-1\"}]},\n"
        " {\"id\": \"s.none\", \"rules\": [\"S-1\"], \"input\": \"3\", \"expect\": {\"verdict\": \"accept\"}}]}\n");
    char *rules[] = {"rules", (char *)cases, "--cases", NULL};
    ck_assert_int_eq(gt_test_cli(gt_cmd_rules, rules, out, sizeof out), 0);
    ck_assert_msg(strstr(out, "\n    accept s.two  [a/b#7, c/d#9]\n    accept s.spec\n    accept s.none\n1 of 1"), "%s", out);
    char *listing[] = {"profiles", (char *)cases, "--sources", NULL};
    ck_assert_int_eq(gt_test_cli(gt_cmd_profiles, listing, out, sizeof out), 0);
    ck_assert_msg(strstr(out, "core: 1 of 3 cases name an issue thread\n    a/b#7  s.two\n    c/d#9  s.two\n"), "%s", out);
    ck_assert_msg(strstr(out, "\nreasons: 0 of 0 cases name an issue thread\n"), "%s", out);
    ck_assert_ptr_null(strstr(out, "profile "));
    char *both[] = {"profiles", (char *)cases, "--sources", "--cases", "core", NULL};
    ck_assert_int_eq(gt_test_cli(gt_cmd_profiles, both, out, sizeof out), 2);
    ck_assert_msg(strstr(out, "--sources and --cases cannot be combined"), "%s", out);
}
END_TEST

/* docs/profiles.md's table and README's corpus size are read by vendors
 * choosing what to claim: they must be the bundled corpus's counts. Each
 * profile row's last cell starts "N (R required" or "N (all required)"; the
 * README says "corpus of N cases". Counted here from the loaded corpus. */
static long leading_count(const char *text)
{
    long n = 0;
    bool any = false;
    for (; *text == ' '; text++)
        ;
    for (; (*text >= '0' && *text <= '9') || *text == ','; text++)
        if (*text != ',')
            n = n * 10 + (*text - '0'), any = true;
    return any ? n : -1;
}

static char *read_text(const char *path)
{
    FILE *in = fopen(path, "rb");
    ck_assert_msg(in != NULL, "%s: cannot open", path);
    static char buf[1 << 20];
    size_t got = fread(buf, 1, sizeof buf - 1, in);
    fclose(in);
    buf[got] = '\0';
    return buf;
}

START_TEST(docs_count_the_bundled_corpus)
{
    gt_corpus *corpus = gt_corpus_new();
    ck_assert_int_gt(gt_corpus_load(corpus, GT_TEST_CORPUS), 0);
    ck_assert_uint_eq(gt_corpus_problem_count(corpus), 0);
    size_t total = gt_corpus_count(corpus), cases[GT_PROFILE_COUNT] = {0}, required[GT_PROFILE_COUNT] = {0};
    for (size_t i = 0; i < total; i++) {
        const gt_case *kase = gt_corpus_case(corpus, i);
        for (int p = 0; p < GT_PROFILE_COUNT; p++)
            if (kase->profiles & (1u << p))
                cases[p]++, required[p] += kase->tier == GT_TIER_REQUIRED;
    }
    gt_corpus_free(corpus);
    char *doc = read_text("docs/profiles.md");
    for (int p = 0; p < GT_PROFILE_COUNT; p++) {
        char head[64];
        snprintf(head, sizeof head, "\n| `%s` |", gt_profile_name((gt_profile)p));
        char *row = strstr(doc, head);
        ck_assert_msg(row != NULL, "docs/profiles.md: no table row for profile %s", gt_profile_name((gt_profile)p));
        char *end = strchr(row + 1, '\n');
        ck_assert_ptr_nonnull(end);
        *end = '\0';
        char *last = strrchr(row, '|');
        *last = '\0';
        char *cell = strrchr(row, '|') + 1;
        long n = leading_count(cell);
        const char *paren = strchr(cell, '(');
        long r = paren == NULL ? -1 : strncmp(paren, "(all required", 13) == 0 ? n : leading_count(paren + 1);
        ck_assert_msg(n == (long)cases[p] && r == (long)required[p],
                      "docs/profiles.md, row %s: says %ld cases (%ld required), the corpus has %zu (%zu required)",
                      gt_profile_name((gt_profile)p), n, r, cases[p], required[p]);
        *last = '|', *end = '\n';
    }
    char *readme = read_text("README.md");
    char *at = strstr(readme, "corpus of ");
    ck_assert_msg(at != NULL, "README.md: no \"corpus of N cases\"");
    ck_assert_msg(leading_count(at + strlen("corpus of ")) == (long)total, "README.md: says a corpus of %ld cases, it has %zu",
                  leading_count(at + strlen("corpus of ")), total);
}
END_TEST

static Suite *make_suite(void)
{
    Suite *suite = suite_create("profiles");
    TCase *names = tcase_create("names");
    tcase_add_test(names, profile_lists_parse_and_format);
    tcase_add_test(names, defaults_follow_gate_tier_and_rules);
    tcase_add_test(names, loader_reads_profiles_and_rejects_unknown_ones);
    suite_add_tcase(suite, names);
    TCase *judging = tcase_create("judging");
    tcase_add_test(judging, classes_of_a_wrong_verdict);
    tcase_add_test(judging, a_clean_later_answer_is_a_figure_not_unsafe);
    tcase_add_test(judging, a_closed_block_of_a_whole_stream_is_clean);
    tcase_add_test(judging, a_black_box_rejection_wording_is_another_reason);
    tcase_add_test(judging, another_reason_passes_unless_reasons_is_claimed);
    tcase_add_test(judging, object_level_errors_match_at_the_object_or_the_child);
    tcase_add_test(judging, figures_are_judged_only_under_a_loop_claim);
    suite_add_tcase(suite, judging);
    TCase *runs = tcase_create("runs");
    tcase_add_checked_fixture(runs, setup, teardown);
    tcase_set_timeout(runs, 60);
    tcase_add_test(runs, a_core_adapter_is_judged_on_core_alone);
    tcase_add_test(runs, claims_come_from_the_hello_or_the_flag);
    tcase_add_test(runs, not_applicable_cases_are_not_run_for_a_baseline);
    tcase_add_test(runs, nothing_judged_is_never_green);
    tcase_add_test(runs, profiles_command_lists_the_contracts);
    tcase_add_test(runs, sources_are_listed_by_rules_and_profiles);
    tcase_add_test(runs, docs_count_the_bundled_corpus);
    suite_add_tcase(suite, runs);
    return suite;
}

GT_TEST_MAIN()
