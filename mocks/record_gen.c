/* record_gen.c — `gauntlet gen --from DIR --out DIR2`: the adversarial
 * variants of each recorded conversation (docs/record.md).
 *
 * For every `recorded.NNNN` case of DIR, the turn that carries the last
 * StructuredOutput call is replaced, one variant at a time, by that answer
 * gone wrong the way providers and networks make it go wrong: cut at each
 * structural boundary of the call's input text (inside a string, between
 * members, before the closing brace), a refusal and a max_tokens stop at the
 * same points, a fallback that retracts it, a second call, a coercion
 * near-miss of each scalar ("4" for 4, "true" and 1 for true), an unknown
 * member. The turns before it stay as recorded. Each variant is tagged with
 * its operator and the rule it proves, and its expectation is the reference
 * loop's verdict on it. Not for: schema-derived cases (runner/explore/). */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "gauntlet/runner/mock.h"
#include "gauntlet/util.h"
#include "record_impl.h"

/* At most this many cut points and scalars per recorded answer, so a long
 * answer makes a corpus one can read. */
#define REC_GEN_MAX_CUTS 24
#define REC_GEN_MAX_SCALARS 32

typedef struct {
    const char *id, *statement;
} gen_rule;

/* The rules the variants prove (../shared/research/seed-rules.md), written
 * to DIR2/rules.json so the cases can name them. */
static const gen_rule gen_rules[] = {
    {"S2-25", "streaming: a prefix is incomplete, not invalid; parse once at block end after a valid terminal event"},
    {"S2-26", "streaming: a disconnected stream is discarded or quarantined; no downstream action"},
    {"S4-11", "refusal stop_reason: the output may not match the schema; check stop_reason before parse"},
    {"S4-12", "max_tokens: the output is truncated; check stop_reason before parse"},
    {"S0-21", "a fallback tombstone retracts a StructuredOutput message: attachment deleted, retracted attempt counted"},
    {"S0-27", "the terminal structured_output is the last surviving attachment"},
    {"S2-05", "no coercion: \"4\" is not an integer"},
    {"S2-06", "no coercion: 1 is not a boolean"},
    {"S2-07", "no coercion: \"false\" is not false"},
    {"S2-12", "an extra field is rejected"},
};

static const char *str_at(const cJSON *object, const char *name)
{
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(object, name);
    return cJSON_IsString(item) ? item->valuestring : NULL;
}

/* The StructuredOutput call a turn answers with (the last one in it): its
 * id and input text (malloc'd); NULL when the turn has none. */
static char *turn_call(const cJSON *turn, const char *provider, char *id, size_t id_len)
{
    const cJSON *stream = cJSON_GetObjectItemCaseSensitive(turn, "stream");
    const cJSON *message = cJSON_GetObjectItemCaseSensitive(turn, "message");
    cJSON *assembled = NULL;
    if (message == NULL && stream)
        message = cJSON_GetObjectItemCaseSensitive(stream, "from_message");
    if (message == NULL && str_at(stream, "sse")) {
        const char *sse = str_at(stream, "sse");
        const char *grammar = str_at(stream, "provider") ? str_at(stream, "provider") : provider;
        assembled = rec_stream_message(sse, strlen(sse), grammar && strcmp(grammar, "openai") == 0);
        message = assembled;
    }
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
    cJSON_Delete(assembled);
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

/* ---- scalar near-misses ---- */

typedef struct {
    cJSON *root;
    cJSON *leaves[REC_GEN_MAX_SCALARS];
    size_t count;
} scalar_walk;

static void collect_scalars(cJSON *node, scalar_walk *walk)
{
    for (cJSON *child = node ? node->child : NULL; child && walk->count < REC_GEN_MAX_SCALARS; child = child->next) {
        if (cJSON_IsObject(child) || cJSON_IsArray(child))
            collect_scalars(child, walk);
        else if (cJSON_IsNumber(child) || cJSON_IsBool(child))
            walk->leaves[walk->count++] = child;
    }
}

/* Swap `leaf` for `replacement` in place, print the whole value, swap back. */
static char *print_with(cJSON *root, cJSON *leaf, cJSON *replacement)
{
    cJSON saved = *leaf;
    cJSON swapped = *replacement;
    swapped.next = leaf->next;
    swapped.prev = leaf->prev;
    swapped.string = leaf->string;
    *leaf = swapped;
    char *text = cJSON_PrintUnformatted(root);
    *leaf = saved;
    return text;
}

/* ---- writing ---- */

typedef struct {
    const cJSON *recorded; /* the recorded case */
    cJSON *cases;          /* the variants written so far */
    int written, failed;
    char why[512];
} gen_state;

/* One variant: the recorded turns before the answer, `turn` in its place,
 * then the turns of `after` (an array, taken; NULL = none). `no_retry` sets
 * max_api_retries 0, so a transport fault ends the query with its stream
 * reason instead of a resend the recording has no answer for. */
static void add_variant(gen_state *g, const cJSON *turns_before, cJSON *turn, cJSON *after, bool no_retry,
                        const char *operator, const char *rule, size_t index, const char *detail)
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
    cJSON *rules = cJSON_AddArrayToObject(kase, "rules");
    cJSON_AddItemToArray(rules, cJSON_CreateString(rule));
    snprintf(text, sizeof text, "%s of %s: %s", operator, str_at(g->recorded, "id"), detail);
    cJSON_AddStringToObject(kase, "description", text);
    cJSON *variant = cJSON_AddObjectToObject(kase, "variant");
    cJSON_AddStringToObject(variant, "of", str_at(g->recorded, "id"));
    cJSON_AddStringToObject(variant, "operator", operator);
    cJSON_AddStringToObject(variant, "rule", rule);
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
    if (rec_expect(kase, copy, schema, g->why, sizeof g->why)) {
        cJSON_AddItemToArray(g->cases, kase);
        g->written++;
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
        add_variant(g, before, cut_turn(provider, id, input, points[i].at), NULL, true, points[i].operator, "S2-26",
                    i, detail);
        snprintf(detail, sizeof detail, "stop_reason max_tokens after %zu of %zu bytes of the input", points[i].at,
                 strlen(input));
        add_variant(g, before, message_turn(one_call(id, prefix ? prefix : ""), "max_tokens"), NULL, false,
                    "max_tokens_at", "S4-12", i, detail);
        snprintf(detail, sizeof detail, "stop_reason refusal after %zu of %zu bytes of the input", points[i].at,
                 strlen(input));
        add_variant(g, before, message_turn(one_call(id, prefix ? prefix : ""), "refusal"), NULL, false,
                    "refusal_at", "S4-11", i, detail);
        free(prefix);
    }
    cJSON *retract = recovery(recorded_turn);
    cJSON_InsertItemInArray(retract, 0, cJSON_Parse("{\"fallback\":{}}"));
    add_variant(g, before, message_turn(one_call(id, input), NULL), retract, false, "fallback_retracts", "S0-21", 0,
                "the recorded call, retracted by a fallback, then the recorded answer again");
    cJSON *two = one_call(id, input);
    char second_id[300];
    snprintf(second_id, sizeof second_id, "%s_second", id);
    cJSON_AddItemToArray(two, call_block(second_id, input));
    add_variant(g, before, message_turn(two, NULL), NULL, false, "second_call", "S0-27", 0,
                "the recorded call made twice in one answer");
    scalar_walk walk = {.root = cJSON_Parse(input)};
    collect_scalars(walk.root, &walk);
    for (size_t i = 0; i < walk.count; i++) {
        cJSON *leaf = walk.leaves[i];
        char *scalar = cJSON_PrintUnformatted(leaf);
        cJSON *as_string = cJSON_CreateString(scalar ? scalar : "");
        char *text = print_with(walk.root, leaf, as_string);
        snprintf(detail, sizeof detail, "member %s: %s as the string \"%s\", then the recorded answer",
                 leaf->string ? leaf->string : "(item)", scalar ? scalar : "", scalar ? scalar : "");
        add_variant(g, before, message_turn(one_call(id, text ? text : input), NULL), recovery(recorded_turn), false,
                    "coerce_to_string", cJSON_IsBool(leaf) ? "S2-07" : "S2-05", i, detail);
        free(text);
        cJSON_Delete(as_string);
        if (cJSON_IsBool(leaf)) {
            cJSON *as_int = cJSON_CreateNumber(cJSON_IsTrue(leaf) ? 1 : 0);
            text = print_with(walk.root, leaf, as_int);
            snprintf(detail, sizeof detail, "member %s: %s as %d, then the recorded answer",
                     leaf->string ? leaf->string : "(item)", scalar ? scalar : "", cJSON_IsTrue(leaf) ? 1 : 0);
            add_variant(g, before, message_turn(one_call(id, text ? text : input), NULL), recovery(recorded_turn),
                        false, "coerce_bool_to_int", "S2-06", i, detail);
            free(text);
            cJSON_Delete(as_int);
        }
        free(scalar);
    }
    if (cJSON_IsObject(walk.root)) {
        cJSON_AddStringToObject(walk.root, "gauntlet_unknown_member", "x");
        char *text = cJSON_PrintUnformatted(walk.root);
        add_variant(g, before, message_turn(one_call(id, text ? text : input), NULL), recovery(recorded_turn), false,
                    "unknown_field", "S2-12", 0, "an extra member gauntlet_unknown_member at the root, then the recorded "
                                                 "answer");
        free(text);
    }
    cJSON_Delete(walk.root);
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

int gt_record_gen(const char *from_dir, const char *out_dir, int *variants, char *err, size_t err_len)
{
    *variants = 0;
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
            gen_state g = {.cases = cJSON_CreateArray()};
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
                *variants += g.written;
            }
            cJSON_Delete(g.cases);
            cJSON_Delete(file);
        }
        free(names[i]);
    }
    free(names);
    if (status == 0 && recorded == 0) {
        snprintf(err, err_len, "--from %s: no recorded case (a recording's NNNN.cases.json, docs/record.md)", from_dir);
        status = -1;
    }
    if (status == 0) {
        cJSON *rules = cJSON_CreateObject();
        cJSON_AddStringToObject(rules, "format", "gauntlet-rules/1");
        cJSON_AddStringToObject(rules, "description", "the rules gauntlet gen --from's variants prove");
        cJSON *list = cJSON_AddArrayToObject(rules, "rules");
        for (size_t i = 0; i < sizeof gen_rules / sizeof *gen_rules; i++) {
            cJSON *rule = cJSON_CreateObject();
            cJSON_AddStringToObject(rule, "id", gen_rules[i].id);
            cJSON_AddStringToObject(rule, "statement", gen_rules[i].statement);
            cJSON_AddItemToArray(list, rule);
        }
        status = write_file(out_dir, "rules.json", rules, err, err_len);
        cJSON_Delete(rules);
    }
    return status;
}
