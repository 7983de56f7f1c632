/* gen_from.c — `gauntlet gen --from DIR --out DIR2`: the adversarial
 * variants of each recorded conversation (docs/record.md).
 *
 * For every recorded case of DIR (one with a `recorded` object), the turn
 * that carries the last StructuredOutput call is replaced, one variant at a
 * time. Two kinds of operator: the wire ones, which gen's schema operators
 * cannot express (the call's input cut at each structural boundary — inside
 * a string, between members, before the closing brace — a refusal and a
 * max_tokens stop at the same points, a fallback that retracts it, a second
 * call), and gen's own structure operators (gen_ops.c, through gt_gen with
 * the recorded input as its one sample: coercion near-misses, unknown
 * members, enum and string near-misses, wrong types...), each near-miss fed
 * to the loop as the call's input and followed by the recorded answer. The
 * turns before it stay as recorded. Each variant is tagged with its operator
 * and the rules it proves, and its expectation is the reference loop's
 * verdict on it (gt_corpus_loop_expect). Not for: recording (mocks/record.c). */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cjson/cJSON.h>

#include "gauntlet/arena.h"
#include "gauntlet/runner/corpus.h"
#include "gauntlet/stream.h"
#include "gauntlet/util.h"
#include "gen.h"

/* At most this many cut points and gen near-misses per recorded answer
 * (gt_gen_cap spreads the near-misses over gen's operators), so a long
 * answer makes a corpus one can read. */
#define REC_GEN_MAX_CUTS 24
#define REC_GEN_MAX_NEAR_MISSES 48

/* The rules of the wire operators (gen's near-misses name their own). */
static const char *const rule_truncated[] = {"S2-26", NULL}, *const rule_max_tokens[] = {"S4-12", NULL},
                         *const rule_refusal[] = {"S4-11", NULL}, *const rule_fallback[] = {"S0-21", NULL},
                         *const rule_second_call[] = {"S0-27", NULL};

static const char *str_at(const cJSON *object, const char *name)
{
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(object, name);
    return cJSON_IsString(item) ? item->valuestring : NULL;
}

/* The last StructuredOutput call of a complete recorded stream (`provider`
 * its grammar): its id and input text (malloc'd); NULL for a transport fault
 * or a stream without the call. */
static char *sse_call(const char *sse, const char *provider, char *id, size_t id_len)
{
    gt_arena *arena = gt_arena_new();
    if (arena == NULL)
        return NULL;
    gt_stream_result result;
    gt_stream_assemble(provider && strcmp(provider, "openai") == 0 ? GT_PROVIDER_OPENAI : GT_PROVIDER_ANTHROPIC, sse,
                       strlen(sse), arena, &result);
    char *text = NULL;
    for (size_t i = 0; result.message && !gt_stream_reason_is_transport(result.reason) &&
                       i < result.message->block_count;
         i++) {
        const gt_block *b = &result.message->blocks[i];
        if (b->type != GT_BLOCK_TOOL_USE || b->name == NULL || strcmp(b->name, "StructuredOutput") != 0)
            continue;
        free(text);
        text = strndup(b->input_text ? b->input_text : "", b->input_text ? b->input_len : 0);
        snprintf(id, id_len, "%s", b->id ? b->id : "toolu_recorded");
    }
    gt_arena_free(arena);
    return text;
}

/* The StructuredOutput call a turn answers with (the last one in it): its
 * id and input text (malloc'd); NULL when the turn has none. */
static char *turn_call(const cJSON *turn, const char *provider, char *id, size_t id_len)
{
    const cJSON *stream = cJSON_GetObjectItemCaseSensitive(turn, "stream");
    const cJSON *message = cJSON_GetObjectItemCaseSensitive(turn, "message");
    if (message == NULL && stream)
        message = cJSON_GetObjectItemCaseSensitive(stream, "from_message");
    if (message == NULL && str_at(stream, "sse"))
        return sse_call(str_at(stream, "sse"), str_at(stream, "provider") ? str_at(stream, "provider") : provider, id,
                        id_len);
    char *text = NULL;
    const cJSON *block;
    cJSON_ArrayForEach(block, cJSON_GetObjectItemCaseSensitive(message, "content"))
    {
        const char *name = str_at(block, "name");
        if (name == NULL || strcmp(name, "StructuredOutput") != 0)
            continue;
        free(text);
        const cJSON *input = cJSON_GetObjectItemCaseSensitive(block, "input");
        text = str_at(block, "input_text") ? strdup(str_at(block, "input_text"))
               : input                     ? cJSON_PrintUnformatted(input)
                                           : NULL;
        snprintf(id, id_len, "%s", str_at(block, "id") ? str_at(block, "id") : "toolu_recorded");
    }
    return text;
}

/* ---- variant turns ---- */

static cJSON *call_block(const char *id, const char *input_text)
{
    cJSON *block = cJSON_CreateObject();
    cJSON_AddStringToObject(block, "type", "tool_use");
    cJSON_AddStringToObject(block, "id", id);
    cJSON_AddStringToObject(block, "name", "StructuredOutput");
    cJSON_AddStringToObject(block, "input_text", input_text);
    return block;
}

/* A stream that delivers the first `keep` bytes of the call's input and then
 * ends, before the block's stop and the terminal event (a dropped connection). */
static cJSON *cut_turn(const char *provider, const char *id, const char *input, size_t keep)
{
    char *prefix = strndup(input, keep);
    cJSON *turn = cJSON_CreateObject();
    cJSON *stream = cJSON_AddObjectToObject(turn, "stream");
    cJSON_AddStringToObject(stream, "provider", provider);
    cJSON *events = cJSON_AddArrayToObject(stream, "events");
    if (strcmp(provider, "openai") == 0) {
        cJSON *chunk = cJSON_CreateObject();
        cJSON_AddStringToObject(chunk, "id", "chatcmpl-gauntlet-cut");
        cJSON_AddStringToObject(chunk, "object", "chat.completion.chunk");
        cJSON *choices = cJSON_AddArrayToObject(chunk, "choices");
        cJSON *choice = cJSON_CreateObject();
        cJSON_AddItemToArray(choices, choice);
        cJSON_AddNumberToObject(choice, "index", 0);
        cJSON *delta = cJSON_AddObjectToObject(choice, "delta");
        cJSON_AddStringToObject(delta, "role", "assistant");
        cJSON *calls = cJSON_AddArrayToObject(delta, "tool_calls");
        cJSON *call = cJSON_CreateObject();
        cJSON_AddItemToArray(calls, call);
        cJSON_AddNumberToObject(call, "index", 0);
        cJSON_AddStringToObject(call, "id", id);
        cJSON_AddStringToObject(call, "type", "function");
        cJSON *function = cJSON_AddObjectToObject(call, "function");
        cJSON_AddStringToObject(function, "name", "StructuredOutput");
        cJSON_AddStringToObject(function, "arguments", prefix ? prefix : "");
        cJSON_AddNullToObject(choice, "finish_reason");
        cJSON_AddItemToArray(events, chunk);
    } else {
        char text[1024];
        snprintf(text, sizeof text,
                 "{\"type\":\"message_start\",\"message\":{\"id\":\"msg_gauntlet_cut\",\"type\":\"message\","
                 "\"role\":\"assistant\",\"model\":\"gauntlet-recorded\",\"content\":[],\"stop_reason\":null,"
                 "\"usage\":{\"input_tokens\":0,\"output_tokens\":0}}}");
        cJSON_AddItemToArray(events, cJSON_Parse(text));
        cJSON *start = cJSON_Parse("{\"type\":\"content_block_start\",\"index\":0,\"content_block\":"
                                   "{\"type\":\"tool_use\",\"name\":\"StructuredOutput\",\"input\":{}}}");
        cJSON_AddStringToObject(cJSON_GetObjectItemCaseSensitive(start, "content_block"), "id", id);
        cJSON_AddItemToArray(events, start);
        cJSON *delta_event = cJSON_Parse("{\"type\":\"content_block_delta\",\"index\":0,\"delta\":"
                                         "{\"type\":\"input_json_delta\"}}");
        cJSON_AddStringToObject(cJSON_GetObjectItemCaseSensitive(delta_event, "delta"), "partial_json",
                                prefix ? prefix : "");
        cJSON_AddItemToArray(events, delta_event);
    }
    free(prefix);
    return turn;
}

/* A complete answer whose content is the given call blocks. */
static cJSON *message_turn(cJSON *blocks, const char *stop_reason)
{
    cJSON *turn = cJSON_CreateObject();
    cJSON *message = cJSON_AddObjectToObject(turn, "message");
    cJSON_AddItemToObject(message, "content", blocks);
    if (stop_reason)
        cJSON_AddStringToObject(message, "stop_reason", stop_reason);
    return turn;
}

static cJSON *one_call(const char *id, const char *input)
{
    cJSON *blocks = cJSON_CreateArray();
    cJSON_AddItemToArray(blocks, call_block(id, input));
    return blocks;
}

/* ---- structural boundaries of the input text ---- */

typedef struct {
    size_t at;
    const char *operator;
} cut_point;

/* The places a cut means something: inside each string (after its first
 * character), after each member's comma, and before the last closing
 * brace or bracket. Returns how many (at most `max`). */
static size_t cut_points(const char *text, cut_point *out, size_t max)
{
    size_t n = 0, len = strlen(text), last_close = 0;
    bool in_string = false, escaped = false;
    for (size_t i = 0; i < len && n < max; i++) {
        char c = text[i];
        if (in_string) {
            if (escaped)
                escaped = false;
            else if (c == '\\')
                escaped = true;
            else if (c == '"')
                in_string = false;
            continue;
        }
        if (c == '"') {
            in_string = true;
            if (i + 2 < len && text[i + 1] != '"')
                out[n++] = (cut_point){i + 2, "cut_inside_string"};
        } else if (c == ',') {
            out[n++] = (cut_point){i + 1, "cut_between_members"};
        } else if (c == '}' || c == ']') {
            last_close = i;
        }
    }
    if (last_close > 0 && n < max)
        out[n++] = (cut_point){last_close, "cut_before_close"};
    return n;
}

/* ---- writing ---- */

typedef struct {
    const cJSON *recorded; /* the recorded case */
    cJSON *cases;          /* the variants written so far */
    int written, failed;
    int near_misses;       /* of them, gen's structure near-misses */
    int no_sample;         /* recorded answers gen could not take as a sample (the reference rejects them) */
    cJSON *rules_used;     /* the rule ids the variants name (strings, unique) */
    char why[512];
} gen_state;

static void note_rule(gen_state *g, const char *rule)
{
    const cJSON *seen;
    cJSON_ArrayForEach(seen, g->rules_used)
    {
        if (strcmp(seen->valuestring, rule) == 0)
            return;
    }
    cJSON_AddItemToArray(g->rules_used, cJSON_CreateString(rule));
}

/* One variant: the recorded turns before the answer, `turn` in its place,
 * then the turns of `after` (an array, taken; NULL = none). `no_retry` sets
 * max_api_retries 0, so a transport fault ends the query with its stream
 * reason instead of a resend the recording has no answer for. */
static void add_variant(gen_state *g, const cJSON *turns_before, cJSON *turn, cJSON *after, bool no_retry,
                        const char *operator, const char *const *rules, size_t index, const char *detail)
{
    const cJSON *script = cJSON_GetObjectItemCaseSensitive(g->recorded, "script");
    cJSON *kase = cJSON_CreateObject();
    char id[300], text[600];
    snprintf(id, sizeof id, "%s.%s.%zu", str_at(g->recorded, "id"), operator, index);
    for (char *p = id; *p; p++)
        if (*p == '_')
            *p = '-';
    cJSON_AddStringToObject(kase, "id", id);
    cJSON_AddStringToObject(kase, "gate", "loop");
    cJSON_AddStringToObject(kase, "category", "recorded");
    cJSON *tags = cJSON_AddArrayToObject(kase, "tags");
    cJSON_AddItemToArray(tags, cJSON_CreateString("recorded"));
    cJSON_AddItemToArray(tags, cJSON_CreateString("gen"));
    cJSON_AddItemToArray(tags, cJSON_CreateString(operator));
    cJSON_AddStringToObject(kase, "tier", "optional");
    cJSON *rule_list = cJSON_AddArrayToObject(kase, "rules");
    for (size_t r = 0; rules[r]; r++)
        cJSON_AddItemToArray(rule_list, cJSON_CreateString(rules[r]));
    snprintf(text, sizeof text, "%s of %s: %s", operator, str_at(g->recorded, "id"), detail);
    cJSON_AddStringToObject(kase, "description", text);
    cJSON *variant = cJSON_AddObjectToObject(kase, "variant");
    cJSON_AddStringToObject(variant, "of", str_at(g->recorded, "id"));
    cJSON_AddStringToObject(variant, "operator", operator);
    cJSON_AddStringToObject(variant, "rule", rules[0]);
    cJSON_AddStringToObject(variant, "detail", detail);
    const cJSON *schema = cJSON_GetObjectItemCaseSensitive(g->recorded, "schema");
    cJSON_AddItemToObject(kase, "schema", cJSON_Duplicate(schema, true));
    const cJSON *tools = cJSON_GetObjectItemCaseSensitive(g->recorded, "tools");
    if (tools)
        cJSON_AddItemToObject(kase, "tools", cJSON_Duplicate(tools, true));
    cJSON *copy = cJSON_Duplicate(script, true);
    cJSON_DeleteItemFromObjectCaseSensitive(copy, "turns");
    cJSON *turns = cJSON_AddArrayToObject(copy, "turns");
    const cJSON *t;
    cJSON_ArrayForEach(t, turns_before)
    {
        cJSON_AddItemToArray(turns, cJSON_Duplicate(t, true));
    }
    cJSON_AddItemToArray(turns, turn);
    for (cJSON *next = after ? after->child : NULL; next; next = next->next)
        cJSON_AddItemToArray(turns, cJSON_Duplicate(next, true));
    cJSON_Delete(after);
    if (no_retry) {
        cJSON_DeleteItemFromObjectCaseSensitive(copy, "max_api_retries");
        cJSON_AddNumberToObject(copy, "max_api_retries", 0);
    }
    cJSON_AddItemToObject(kase, "script", copy);
    char *script_text = cJSON_PrintUnformatted(copy), *schema_text = cJSON_PrintUnformatted(schema);
    char *expect_text = script_text && schema_text ? gt_corpus_loop_expect(script_text, schema_text, g->why,
                                                                           sizeof g->why)
                                                   : NULL;
    cJSON *expect = cJSON_Parse(expect_text);
    free(script_text);
    free(schema_text);
    free(expect_text);
    if (expect) {
        cJSON_AddItemToObject(kase, "expect", expect);
        cJSON_AddItemToArray(g->cases, kase);
        g->written++;
        for (size_t r = 0; rules[r]; r++)
            note_rule(g, rules[r]);
    } else {
        cJSON_Delete(kase);
        g->failed++;
    }
}

/* The recorded answer once more, after a variant the loop feeds back or
 * resends: the query then ends on the recorded answer, never past the
 * script (a new array). */
static cJSON *recovery(const cJSON *recorded_turn)
{
    cJSON *after = cJSON_CreateArray();
    cJSON_AddItemToArray(after, cJSON_Duplicate(recorded_turn, true));
    return after;
}

/* gen's structure operators on the recorded input (gt_gen with it as the
 * one sample, structure family only): each near-miss the reference confirms
 * as a structure rejection becomes the call's input, then the recorded
 * answer. Operator and rules are gen's (`gen.structure.OP.N`). A recorded
 * answer the reference rejects is no sample: counted in no_sample. */
static void near_misses(gen_state *g, const cJSON *before, const cJSON *recorded_turn, const char *id,
                        const char *input)
{
    char *schema_text = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(g->recorded, "schema"));
    gt_gen_options options = {.seed = 1, .gates = GT_GEN_STRUCTURE, .origin = str_at(g->recorded, "id")};
    char err[512];
    gt_gen *gen = schema_text ? gt_gen_new(schema_text, strlen(schema_text), &options, err, sizeof err) : NULL;
    free(schema_text);
    if (gen == NULL || gt_gen_add_sample(gen, input, strlen(input), "the recorded answer", err, sizeof err) != 0 ||
        gt_gen_generate(gen, err, sizeof err) != 0) {
        g->no_sample++;
        gt_gen_free(gen);
        return;
    }
    gt_gen_cap(gen, REC_GEN_MAX_NEAR_MISSES);
    for (size_t i = 0; i < gt_gen_count(gen); i++) {
        const gt_gen_case *c = gt_gen_case_at(gen, i);
        if (!c->confirmed || c->dropped || c->raw == NULL || strcmp(c->family, "structure") != 0)
            continue;
        char *text = strndup((const char *)c->raw, c->raw_len);
        const char *number = strrchr(c->id, '.');
        const char *rules[5] = {NULL};
        for (size_t r = 0; r < c->rule_count && r < 4; r++)
            rules[r] = c->rules[r];
        if (rules[0] == NULL) { /* gen's structure operators all name their rules: none is not ours to guess */
            free(text);
            continue;
        }
        char detail[600];
        snprintf(detail, sizeof detail, "gen's %s, then the recorded answer", c->description ? c->description : c->ops);
        int before_count = g->written;
        add_variant(g, before, message_turn(one_call(id, text ? text : input), NULL), recovery(recorded_turn), false,
                    c->ops, rules, number ? strtoul(number + 1, NULL, 10) : i, detail);
        g->near_misses += g->written - before_count;
        free(text);
    }
    gt_gen_free(gen);
}

/* Every variant of one recorded case. */
static void gen_case(gen_state *g)
{
    const cJSON *script = cJSON_GetObjectItemCaseSensitive(g->recorded, "script");
    const cJSON *turns = cJSON_GetObjectItemCaseSensitive(script, "turns");
    const char *provider = str_at(script, "provider") ? str_at(script, "provider") : "anthropic";
    char id[256] = "";
    char *input = NULL;
    int at = -1;
    for (int i = cJSON_GetArraySize(turns); i-- > 0 && input == NULL;) {
        input = turn_call(cJSON_GetArrayItem(turns, i), provider, id, sizeof id);
        at = i;
    }
    if (input == NULL)
        return; /* the conversation never called StructuredOutput: nothing to vary */
    const cJSON *recorded_turn = cJSON_GetArrayItem(turns, at);
    cJSON *before = cJSON_CreateArray();
    for (int i = 0; i < at; i++)
        cJSON_AddItemToArray(before, cJSON_Duplicate(cJSON_GetArrayItem(turns, i), true));
    cut_point points[REC_GEN_MAX_CUTS];
    size_t n = cut_points(input, points, REC_GEN_MAX_CUTS);
    char detail[200];
    for (size_t i = 0; i < n; i++) {
        char *prefix = strndup(input, points[i].at);
        snprintf(detail, sizeof detail, "the call's input cut after %zu of %zu bytes", points[i].at, strlen(input));
        add_variant(g, before, cut_turn(provider, id, input, points[i].at), NULL, true, points[i].operator,
                    rule_truncated, i, detail);
        snprintf(detail, sizeof detail, "stop_reason max_tokens after %zu of %zu bytes of the input", points[i].at,
                 strlen(input));
        add_variant(g, before, message_turn(one_call(id, prefix ? prefix : ""), "max_tokens"), NULL, false,
                    "max_tokens_at", rule_max_tokens, i, detail);
        snprintf(detail, sizeof detail, "stop_reason refusal after %zu of %zu bytes of the input", points[i].at,
                 strlen(input));
        add_variant(g, before, message_turn(one_call(id, prefix ? prefix : ""), "refusal"), NULL, false,
                    "refusal_at", rule_refusal, i, detail);
        free(prefix);
    }
    cJSON *retract = recovery(recorded_turn);
    cJSON_InsertItemInArray(retract, 0, cJSON_Parse("{\"fallback\":{}}"));
    add_variant(g, before, message_turn(one_call(id, input), NULL), retract, false, "fallback_retracts", rule_fallback, 0,
                "the recorded call, retracted by a fallback, then the recorded answer again");
    cJSON *two = one_call(id, input);
    char second_id[300];
    snprintf(second_id, sizeof second_id, "%s_second", id);
    cJSON_AddItemToArray(two, call_block(second_id, input));
    add_variant(g, before, message_turn(two, NULL), NULL, false, "second_call", rule_second_call, 0,
                "the recorded call made twice in one answer");
    near_misses(g, before, recorded_turn, id, input);
    cJSON_Delete(before);
    free(input);
}

static int put_text(FILE *out, const void *text)
{
    return fputs(text, out) < 0 ? -1 : 0;
}

static int write_file(const char *dir, const char *name, const cJSON *value, char *err, size_t err_len)
{
    char path[2200];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    char *text = cJSON_Print(value);
    int rc = text ? gt_write_file_atomic(path, put_text, text) : -1;
    if (rc != 0)
        snprintf(err, err_len, "%s: cannot write: %s", path, text ? strerror(errno) : "out of memory");
    free(text);
    return rc == 0 ? 0 : -1;
}

/* DIR2 must be new, empty, or an earlier `gen --from` output (it holds our
 * rules.json marker); anything else is refused. */
static int prepare_out(const char *dir, char *err, size_t err_len)
{
    struct stat st;
    if (stat(dir, &st) != 0)
        return mkdir(dir, 0777) == 0 ? 0 : (snprintf(err, err_len, "--out %s: cannot create: %s", dir, strerror(errno)), -1);
    DIR *listing = opendir(dir);
    if (listing == NULL) {
        snprintf(err, err_len, "--out %s: not a folder", dir);
        return -1;
    }
    int status = 0;
    for (struct dirent *e; (e = readdir(listing)) != NULL;)
        if (e->d_name[0] != '.') {
            snprintf(err, err_len, "--out %s holds %s: give a new or empty folder", dir, e->d_name);
            status = -1;
            break;
        }
    closedir(listing);
    return status;
}

/* DIR2/rules.json: each rule the variants name, with its statement and
 * source from gauntlet's rules (`rules`); 0, or -1 naming a missing one. */
static int write_rules(const char *out_dir, const cJSON *used, const gt_rule *rules, size_t rule_count, char *err,
                       size_t err_len)
{
    cJSON *file = cJSON_CreateObject();
    cJSON_AddStringToObject(file, "format", GT_CORPUS_RULES_FORMAT);
    cJSON_AddStringToObject(file, "description", "the rules gauntlet gen --from's variants prove (from gauntlet's "
                                                 "rules.json)");
    cJSON *list = cJSON_AddArrayToObject(file, "rules");
    int status = 0;
    const cJSON *id;
    cJSON_ArrayForEach(id, used)
    {
        const gt_rule *rule = NULL;
        for (size_t r = 0; r < rule_count && rule == NULL; r++)
            if (strcmp(rules[r].id, id->valuestring) == 0)
                rule = &rules[r];
        if (rule == NULL) {
            snprintf(err, err_len, "rule id '%s' is not in gauntlet's rules.json", id->valuestring);
            status = -1;
            break;
        }
        cJSON *item = cJSON_CreateObject();
        cJSON_AddStringToObject(item, "id", rule->id);
        if (rule->source)
            cJSON_AddStringToObject(item, "source", rule->source);
        cJSON_AddStringToObject(item, "statement", rule->statement);
        cJSON_AddItemToArray(list, item);
    }
    if (status == 0)
        status = write_file(out_dir, "rules.json", file, err, err_len);
    cJSON_Delete(file);
    return status;
}

int gt_gen_from_recording(const char *from_dir, const char *out_dir, const gt_rule *rules, size_t rule_count,
                          gt_gen_from_counts *counts, char *err, size_t err_len)
{
    *counts = (gt_gen_from_counts){0};
    cJSON *rules_used = cJSON_CreateArray();
    struct dirent **names = NULL;
    int n = scandir(from_dir, &names, NULL, alphasort);
    if (n < 0) {
        snprintf(err, err_len, "--from %s: cannot read: %s", from_dir, strerror(errno));
        return -1;
    }
    int recorded = 0, status = 0;
    bool prepared = false;
    for (int i = 0; i < n; i++) {
        const char *name = names[i]->d_name;
        size_t len = strlen(name);
        if (status == 0 && len > 11 && name[0] != '.' && strcmp(name + len - 11, ".cases.json") == 0) {
            char path[2200];
            snprintf(path, sizeof path, "%s/%s", from_dir, name);
            size_t text_len;
            char *text = gt_read_file(path, &text_len, err, err_len);
            cJSON *file = text ? cJSON_Parse(text) : NULL;
            free(text);
            if (text != NULL && file == NULL) {
                snprintf(err, err_len, "%s: not JSON", path);
                status = -1;
            }
            if (status == 0 && !prepared) {
                status = prepare_out(out_dir, err, err_len);
                prepared = true;
            }
            gen_state g = {.cases = cJSON_CreateArray(), .rules_used = rules_used};
            const cJSON *kase;
            cJSON_ArrayForEach(kase, cJSON_GetObjectItemCaseSensitive(file, "cases"))
            {
                if (status != 0 || !cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(kase, "recorded")))
                    continue;
                g.recorded = kase;
                recorded++;
                gen_case(&g);
            }
            if (status == 0 && g.failed > 0) {
                snprintf(err, err_len, "%s: %d variants the reference loop refused (%s)", path, g.failed, g.why);
                status = -1;
            }
            if (status == 0 && g.written > 0) {
                cJSON *out = cJSON_CreateObject();
                cJSON_AddStringToObject(out, "format", "gauntlet-corpus/1");
                cJSON_AddStringToObject(out, "description", "adversarial variants of a recorded conversation "
                                                            "(gauntlet gen --from, docs/record.md)");
                cJSON_AddItemToObject(out, "cases", g.cases);
                g.cases = NULL;
                status = write_file(out_dir, name, out, err, err_len);
                cJSON_Delete(out);
                counts->variants += g.written;
                counts->near_misses += g.near_misses;
            }
            counts->no_sample += g.no_sample;
            cJSON_Delete(g.cases);
            cJSON_Delete(file);
        }
        free(names[i]);
    }
    free(names);
    if (status == 0 && recorded == 0) {
        snprintf(err, err_len, "--from %s: no recorded case (a recording's NAME.NNNN.cases.json, docs/record.md)", from_dir);
        status = -1;
    }
    counts->recorded = recorded;
    if (status == 0)
        status = write_rules(out_dir, rules_used, rules, rule_count, err, err_len);
    cJSON_Delete(rules_used);
    return status;
}
