/* form.c — a scripted answer in the form the client asked for.
 *
 * The script's model answers with a `StructuredOutput` call; libraries ask for
 * the answer as a call of their own tool (forced with tool_choice, or the only
 * tool offered) or as JSON text (Anthropic `output_config.format` and beta
 * `output_format`, OpenAI `response_format`, Responses `text.format`). This
 * file reads the request's wish (mock_form_detect), rewrites the turn (a
 * renamed call, or the call's raw input as the text content) and hands it to
 * the API's writer (anthropic.c, openai.c, responses.c). A scripted stream
 * that must change form is read leniently up to its fault and re-rendered,
 * with a fault of the same class (cut, malformed event, error event) applied
 * to the new rendering. Every mapping is described in reply->form_note, which
 * the journal records as "answer_form". Not for: choosing the turn
 * (server.c), the script's own form (render.c) or serving faults (faults.c). */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gauntlet/stream.h"
#include "mock_faults.h"
#include "mock_form.h"

/* The event a malformed stream gets in another form: a delta whose JSON is
 * cut short, under the API's own event name (Chat Completions has none). */
static const char *malformed_event(mock_api api)
{
    switch (api) {
    case MOCK_API_OPENAI: return "data: {\"choices\": [{\"index\": 0, \"delta\": {\"content\": \"gauntlet";
    case MOCK_API_RESPONSES:
        return "event: response.output_text.delta\ndata: {\"type\": \"response.output_text.delta\", \"delta\": \"gauntlet";
    default:
        return "event: content_block_delta\ndata: {\"type\": \"content_block_delta\", \"index\": 0, \"delta\": {\"type";
    }
}

/* Whether `text` is one whole JSON value (a scripted input already cut short is not). */
static bool is_complete_json(const char *text, size_t len)
{
    const char *end = NULL;
    cJSON *value = cJSON_ParseWithLengthOpts(text, len, &end, false);
    bool whole = value != NULL && end != NULL;
    while (whole && end < text + len && (*end == ' ' || *end == '\n' || *end == '\t' || *end == '\r'))
        end++;
    whole = whole && end == text + len;
    cJSON_Delete(value);
    return whole;
}

/* ---- what the request asked for ------------------------------------------- */

/* Whether the request offers a server tool (one the provider runs: an
 * Anthropic tool with a `type` other than "custom", a Responses tool other
 * than "function"); only such loops are paused with pause_turn. */
static bool offers_server_tool(const cJSON *body, mock_api api)
{
    const cJSON *tool;
    cJSON_ArrayForEach(tool, cJSON_GetObjectItemCaseSensitive(body, "tools"))
    {
        const cJSON *type = cJSON_GetObjectItemCaseSensitive(tool, "type");
        if (!cJSON_IsString(type))
            continue;
        if (api == MOCK_API_ANTHROPIC && strcmp(type->valuestring, "custom") != 0)
            return true;
        if (api == MOCK_API_RESPONSES && strcmp(type->valuestring, "function") != 0)
            return true;
    }
    return false;
}

#define PAUSE_WITHOUT_SERVER_TOOL                                                                                  \
    "the script pauses the turn (pause_turn), which the API does only in a server-tool loop, and the client "      \
    "offered no server tool"

static const char *string_at(const cJSON *object, const char *key)
{
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(object, key);
    return cJSON_IsString(item) ? item->valuestring : NULL;
}

/* A tool's name: Anthropic and Responses `name`, Chat Completions `function.name`. */
static const char *tool_name(const cJSON *tool)
{
    const char *name = string_at(tool, "name");
    return name ? name : string_at(cJSON_GetObjectItemCaseSensitive(tool, "function"), "name");
}

static bool offers_tool(const cJSON *body, const char *name)
{
    const cJSON *tool;
    cJSON_ArrayForEach(tool, cJSON_GetObjectItemCaseSensitive(body, "tools"))
    {
        const char *offered = tool_name(tool);
        if (offered && strcmp(offered, name) == 0)
            return true;
    }
    return false;
}

/* The name of the only tool offered, or NULL when there are none or several. */
static const char *only_tool(const cJSON *body)
{
    const cJSON *tools = cJSON_GetObjectItemCaseSensitive(body, "tools");
    return cJSON_IsArray(tools) && cJSON_GetArraySize(tools) == 1 ? tool_name(cJSON_GetArrayItem(tools, 0)) : NULL;
}

/* The tool tool_choice forces, or NULL: Anthropic {type:"tool",name},
 * Chat Completions {type:"function",function:{name}}, Responses {type:"function",name}. */
static const char *forced_tool(const cJSON *choice)
{
    const char *type = string_at(choice, "type");
    if (type == NULL || (strcmp(type, "tool") != 0 && strcmp(type, "function") != 0))
        return NULL;
    return tool_name(choice);
}

/* tool_choice that forces some tool without naming it: Anthropic "any",
 * OpenAI "required". */
static bool forces_any_tool(const cJSON *choice)
{
    const char *type = cJSON_IsString(choice) ? choice->valuestring : string_at(choice, "type");
    return type && (strcmp(type, "any") == 0 || strcmp(type, "required") == 0);
}

static void set_tool(mock_form *form, const char *name, const char *why, bool forced)
{
    form->kind = MOCK_FORM_TOOL;
    snprintf(form->tool, sizeof form->tool, "%s", name);
    form->why = why;
    form->forced = forced;
}

/* A JSON format object: {type:"json_schema", ...strict} or {type:"json_object"}.
 * `schema_holder` is where `strict` lives (Chat Completions nests it). */
static bool json_format(const cJSON *format, const cJSON *schema_holder, const char *why, bool always_strict,
                        mock_form *form)
{
    const char *type = string_at(format, "type");
    if (type == NULL || (strcmp(type, "json_schema") != 0 && strcmp(type, "json_object") != 0))
        return false;
    form->kind = MOCK_FORM_JSON_TEXT;
    form->why = why;
    form->forced = always_strict || (strcmp(type, "json_schema") == 0 &&
                                     cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(schema_holder, "strict")));
    return true;
}

void mock_form_detect(const cJSON *body, mock_api api, mock_form *form)
{
    memset(form, 0, sizeof *form);
    if (!cJSON_IsObject(body) || offers_tool(body, GT_LOOP_TOOL_NAME))
        return; /* the script's own tool: nothing to map */
    const cJSON *choice = cJSON_GetObjectItemCaseSensitive(body, "tool_choice");
    const char *forced = forced_tool(choice);
    if (forced != NULL) {
        set_tool(form, forced, "tool_choice", true);
        return;
    }
    switch (api) {
    case MOCK_API_ANTHROPIC: {
        /* native structured output is constrained decoding: always strict */
        const cJSON *output = cJSON_GetObjectItemCaseSensitive(body, "output_config");
        if (json_format(cJSON_GetObjectItemCaseSensitive(output, "format"), NULL, "output_config.format", true, form) ||
            json_format(cJSON_GetObjectItemCaseSensitive(body, "output_format"), NULL, "output_format", true, form))
            return;
        break;
    }
    case MOCK_API_OPENAI: {
        const cJSON *format = cJSON_GetObjectItemCaseSensitive(body, "response_format");
        if (json_format(format, cJSON_GetObjectItemCaseSensitive(format, "json_schema"), "response_format", false,
                        form))
            return;
        break;
    }
    case MOCK_API_RESPONSES: {
        const cJSON *format = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(body, "text"), "format");
        if (json_format(format, format, "text.format", false, form))
            return;
        break;
    }
    }
    const char *only = only_tool(body);
    if (only != NULL)
        set_tool(form, only, "only_tool", forces_any_tool(choice));
}

bool mock_form_rerenders(const mock_request *request)
{
    return !request->mirror && (request->form.kind != MOCK_FORM_AS_SCRIPTED || request->api == MOCK_API_RESPONSES);
}

/* ---- the turn in that form ------------------------------------------------- */

static const char *api_name(mock_api api)
{
    return api == MOCK_API_RESPONSES ? "responses" : api == MOCK_API_OPENAI ? "chat_completions" : "messages";
}

static bool is_structured_call(const mock_block *block)
{
    return block->kind == MOCK_BLOCK_TOOL_USE && block->name && strcmp(block->name, GT_LOOP_TOOL_NAME) == 0;
}

/* What the mapping did, for the journal. */
typedef struct form_report {
    size_t mapped_calls, dropped_text;
    bool cut_at_max_tokens; /* a JSON text marked max_tokens rendered cut in half */
    bool refusal_without_answer; /* an OpenAI refusal in JSON-text form: prose only, the call's answer left out */
    char inexpressible[240];
    const char *stream_fault; /* set by mock_form_render_stream */
    bool cut_json_body;       /* a cut or malformed stream served to a client that did not stream */
} form_report;

static void write_note(const mock_request *request, const form_report *report, mock_reply *reply)
{
    const mock_form *form = &request->form;
    /* a derive turn the client's schema rules out (derive.c) is inexpressible whatever the form */
    const char *ruled_out = report->inexpressible[0]         ? report->inexpressible
                            : request->derive_inexpressible ? request->derive_inexpressible
                                                            : "";
    if (form->kind == MOCK_FORM_AS_SCRIPTED && ruled_out[0] == '\0' && report->stream_fault == NULL &&
        request->api != MOCK_API_RESPONSES)
        return;
    mock_buf buf;
    mock_buf_init(&buf);
    mock_buf_addf(&buf, "{\"api\":\"%s\",\"form\":\"%s\"", api_name(request->api),
                  form->kind == MOCK_FORM_TOOL ? "tool" : form->kind == MOCK_FORM_JSON_TEXT ? "json_text" : "as_scripted");
    if (form->kind == MOCK_FORM_TOOL) {
        mock_buf_adds(&buf, ",\"tool\":");
        mock_buf_add_json_cstr(&buf, form->tool);
    }
    if (form->why) {
        mock_buf_adds(&buf, ",\"why\":");
        mock_buf_add_json_cstr(&buf, form->why);
    }
    mock_buf_addf(&buf, ",\"forced\":%s,\"mapped_calls\":%zu,\"dropped_text_blocks\":%zu",
                  form->forced ? "true" : "false", report->mapped_calls, report->dropped_text);
    if (report->cut_at_max_tokens)
        mock_buf_adds(&buf, ",\"cut_at_max_tokens\":true");
    if (report->refusal_without_answer)
        mock_buf_adds(&buf, ",\"refusal_without_answer\":true");
    if (report->stream_fault) {
        mock_buf_adds(&buf, ",\"stream_fault\":");
        mock_buf_add_json_cstr(&buf, report->stream_fault);
    }
    if (report->cut_json_body)
        mock_buf_adds(&buf, ",\"cut_json_body\":true");
    mock_buf_addf(&buf, ",\"expressible\":%s", ruled_out[0] ? "false" : "true");
    if (ruled_out[0]) {
        mock_buf_adds(&buf, ",\"inexpressible\":");
        mock_buf_add_json_cstr(&buf, ruled_out);
    }
    mock_buf_adds(&buf, "}");
    if (!buf.failed && buf.len < sizeof reply->form_note)
        memcpy(reply->form_note, buf.data, buf.len + 1);
    mock_buf_free(&buf);
}

/* `in` rewritten into `out` for the request's form; `blocks` has room for
 * in->block_count blocks. */
static void map_turn(const mock_request *request, const mock_turn *in, bool scripted, mock_turn *out,
                     mock_block *blocks, form_report *report)
{
    const mock_form *form = &request->form;
    *out = *in;
    out->blocks = blocks;
    out->block_count = 0;
    size_t calls = 0;
    for (size_t i = 0; i < in->block_count; i++)
        calls += is_structured_call(&in->blocks[i]);
    /* OpenAI's refusal is the model's explanation (message.refusal, a `refusal` part): in JSON-text form the
     * answer the script's call carries is never written into it, and the script's prose is kept */
    bool openai_refusal = scripted && form->kind == MOCK_FORM_JSON_TEXT && request->api != MOCK_API_ANTHROPIC &&
                          in->stop_reason && strcmp(in->stop_reason, "refusal") == 0;
    bool prose = false;
    for (size_t i = 0; openai_refusal && i < in->block_count; i++)
        prose |= in->blocks[i].kind == MOCK_BLOCK_TEXT && in->blocks[i].text_len > 0;
    for (size_t i = 0; i < in->block_count; i++) {
        mock_block block = in->blocks[i];
        if (openai_refusal && is_structured_call(&block)) {
            report->refusal_without_answer = true;
            if (!prose) { /* a refusal says why: the API's own words stand in for a script without prose */
                static const char said[] = "I'm sorry, but I can't help with that.";
                block = (mock_block){.kind = MOCK_BLOCK_TEXT, .text = (char *)said, .text_len = sizeof said - 1};
                prose = true;
                blocks[out->block_count++] = block;
            }
            continue;
        }
        if (form->kind == MOCK_FORM_JSON_TEXT && calls > 0 && block.kind == MOCK_BLOCK_TEXT && !openai_refusal) {
            report->dropped_text++; /* commentary beside the answer: a JSON-mode model writes only the JSON */
            continue;
        }
        if (is_structured_call(&block) && form->kind == MOCK_FORM_TOOL) {
            block.name = (char *)form->tool;
            report->mapped_calls++;
        } else if (is_structured_call(&block) && form->kind == MOCK_FORM_JSON_TEXT) {
            mock_block text = {.kind = MOCK_BLOCK_TEXT, .text = block.input_raw, .text_len = block.input_len};
            /* a max_tokens stop in JSON-text form is the text cut where the tokens ran out: a complete
             * object marked max_tokens is no answer a provider sends (tool forms keep the partial input) */
            if (scripted && in->stop_reason && strcmp(in->stop_reason, "max_tokens") == 0 && text.text_len > 1 &&
                is_complete_json(text.text, text.text_len)) {
                text.text_len /= 2;
                report->cut_at_max_tokens = true;
            }
            block = text;
            report->mapped_calls++;
        }
        blocks[out->block_count++] = block;
    }
    if (form->kind == MOCK_FORM_JSON_TEXT && report->mapped_calls > 0 && out->stop_reason &&
        strcmp(out->stop_reason, "tool_use") == 0)
        out->stop_reason = "end_turn";
    /* the API pauses only server-tool loops: a pause_turn to a request that offers no server tool is a
     * turn no provider sends, whatever the form (a client served as scripted included; the reference's
     * x-gauntlet-mirror turns every mapping off) */
    if (scripted && !request->mirror && in->stop_reason && strcmp(in->stop_reason, "pause_turn") == 0 &&
        !offers_server_tool(request->body, request->api)) {
        snprintf(report->inexpressible, sizeof report->inexpressible, "%s", PAUSE_WITHOUT_SERVER_TOOL);
        return;
    }
    if (!scripted || form->kind == MOCK_FORM_AS_SCRIPTED)
        return;
    /* an OpenAI refusal is the model's explanation: a scripted refusal whose only text is a JSON value (an
     * Anthropic answer, anthropic-sdk-python#1850) has no OpenAI form */
    if (openai_refusal && !report->refusal_without_answer) {
        size_t texts = 0, json_texts = 0;
        for (size_t i = 0; i < out->block_count; i++) {
            const mock_block *block = &out->blocks[i];
            texts += block->kind == MOCK_BLOCK_TEXT;
            json_texts += block->kind == MOCK_BLOCK_TEXT && is_complete_json(block->text, block->text_len);
        }
        if (texts > 0 && json_texts == texts) {
            snprintf(report->inexpressible, sizeof report->inexpressible,
                     "the script's refusal text is a JSON value, but OpenAI's refusal carries the model's explanation, "
                     "never an answer");
            return;
        }
    }
    /* a turn no real provider would send this request */
    for (size_t i = 0; i < out->block_count; i++) {
        const mock_block *block = &out->blocks[i];
        if (block->kind == MOCK_BLOCK_TOOL_USE && block->name && !offers_tool(request->body, block->name)) {
            snprintf(report->inexpressible, sizeof report->inexpressible,
                     "the script calls the tool '%.80s', which the client did not offer", block->name);
            return;
        }
    }
    if (form->kind == MOCK_FORM_JSON_TEXT && report->mapped_calls > 1) {
        snprintf(report->inexpressible, sizeof report->inexpressible,
                 "a JSON-text answer carries one value, but the script's turn makes %zu StructuredOutput calls",
                 report->mapped_calls);
        return;
    }
    /* a JSON body carries a tool input as a JSON value: a scripted input that is not one ("[", cut in a
     * stream) has no non-streamed form a library could be served, unless the model ran out of tokens
     * (the reference client, served as scripted, reads gauntlet_raw_input) or the stream itself was faulted
     * (cut, malformed): the client then gets a JSON body that never finishes, whatever the input was */
    bool ran_out = in->stop_reason && strcmp(in->stop_reason, "max_tokens") == 0; /* the API sends what parsed */
    bool faulted = report->stream_fault != NULL;
    for (size_t i = 0; form->kind == MOCK_FORM_TOOL && !request->stream && !ran_out && !faulted && i < out->block_count;
         i++) {
        const mock_block *block = &out->blocks[i];
        if (block->kind == MOCK_BLOCK_TOOL_USE && block->input_raw &&
            !is_complete_json(block->input_raw, block->input_len)) {
            snprintf(report->inexpressible, sizeof report->inexpressible,
                     "the script's tool input (%.40s) is not a JSON value, which a non-streamed response cannot carry",
                     block->input_raw);
            return;
        }
    }
    const char *stop = in->stop_reason ? in->stop_reason : "";
    bool cut_short = strcmp(stop, "refusal") == 0 || strcmp(stop, "max_tokens") == 0;
    bool said_something = false; /* an empty turn is a provider fault any client can meet */
    for (size_t i = 0; i < in->block_count; i++)
        said_something |= in->blocks[i].kind != MOCK_BLOCK_THINKING;
    if (form->forced && report->mapped_calls == 0 && !cut_short && said_something)
        snprintf(report->inexpressible, sizeof report->inexpressible,
                 "the client forced its answer (%s%s%s) but the script's turn answers without a StructuredOutput call",
                 form->why ? form->why : "", form->kind == MOCK_FORM_TOOL ? " " : "",
                 form->kind == MOCK_FORM_TOOL ? form->tool : "");
}

static int render_in_api(const mock_request *request, const mock_turn *turn, mock_reply *reply)
{
    switch (request->api) {
    case MOCK_API_OPENAI: return mock_openai_render(request, turn, reply);
    case MOCK_API_RESPONSES: return mock_responses_render(request, turn, reply);
    default: return mock_anthropic_render(request, turn, reply);
    }
}

static int render_mapped(const mock_request *request, const mock_turn *turn, bool scripted, form_report *report,
                         mock_reply *reply)
{
    if (request->mirror)
        return render_in_api(request, turn, reply);
    mock_block *blocks = malloc((turn->block_count + 1) * sizeof *blocks);
    if (blocks == NULL)
        return -1;
    mock_turn mapped;
    map_turn(request, turn, scripted, &mapped, blocks, report);
    int rc = render_in_api(request, &mapped, reply);
    write_note(request, report, reply);
    free(blocks);
    return rc;
}

void mock_form_note(const mock_request *request, mock_reply *reply)
{
    form_report report = {0};
    if (reply->form_note[0] == '\0')
        write_note(request, &report, reply);
}

void mock_form_check_pause(const mock_request *request, const char *sse, size_t len, mock_reply *reply)
{
    static const char pause[] = "\"pause_turn\"";
    if (request->mirror || reply->form_note[0] != '\0' || memmem(sse, len, pause, sizeof pause - 1) == NULL ||
        offers_server_tool(request->body, request->api))
        return;
    form_report report = {0};
    snprintf(report.inexpressible, sizeof report.inexpressible, "%s", PAUSE_WITHOUT_SERVER_TOOL);
    write_note(request, &report, reply);
}

void mock_form_note_inexpressible(const mock_request *request, const char *why, mock_reply *reply)
{
    if (request->mirror)
        return;
    form_report report = {0};
    snprintf(report.inexpressible, sizeof report.inexpressible, "%s", why);
    write_note(request, &report, reply);
}

int mock_form_render(const mock_request *request, const mock_turn *turn, bool scripted, mock_reply *reply)
{
    form_report report = {0};
    return render_mapped(request, turn, scripted, &report, reply);
}

/* ---- a scripted stream in another form ------------------------------------ */

/* The content of a stream as far as it goes, read leniently: every text and
 * tool block that a delta touched, whatever faults surround it. */
typedef struct lenient_reader {
    gt_stream_provider provider;
    gt_arena *arena;
    mock_block blocks[16];
    size_t count;
    long index_map[16]; /* Anthropic content index / OpenAI tool_call index -> block */
    mock_buf text[16];  /* text or tool input so far */
    char *start_input[16]; /* a tool_use start's own input, when not {}: the input if no delta follows */
    long other[16]; /* content indexes of other blocks (server_tool_use, thinking, ...): their deltas are not ours */
    size_t other_count;
    const char *stop_reason;
} lenient_reader;

static mock_block *reader_block(lenient_reader *reader, long index, mock_block_kind kind)
{
    for (size_t i = 0; i < reader->count; i++)
        if (reader->index_map[i] == index && reader->blocks[i].kind == kind)
            return &reader->blocks[i];
    if (reader->count == sizeof reader->blocks / sizeof reader->blocks[0])
        return NULL;
    mock_block *block = &reader->blocks[reader->count];
    memset(block, 0, sizeof *block);
    block->kind = kind;
    reader->index_map[reader->count] = index;
    mock_buf_init(&reader->text[reader->count]);
    reader->count++;
    return block;
}

static mock_buf *reader_text(lenient_reader *reader, const mock_block *block)
{
    return &reader->text[block - reader->blocks];
}

static char *arena_strdup(gt_arena *arena, const char *text)
{
    if (text == NULL)
        return NULL;
    size_t len = strlen(text);
    char *copy = gt_arena_alloc(arena, len + 1);
    if (copy)
        memcpy(copy, text, len + 1);
    return copy;
}

/* An event's "index" (-1 when absent or not a number). */
static long event_index(const cJSON *object)
{
    const cJSON *index = cJSON_GetObjectItemCaseSensitive(object, "index");
    return cJSON_IsNumber(index) && index->valuedouble >= 0 && index->valuedouble < 1e9 ? (long)index->valuedouble : -1;
}

static void read_anthropic(lenient_reader *reader, const cJSON *data)
{
    const char *type = string_at(data, "type");
    long index = event_index(data);
    if (type == NULL)
        return;
    if (strcmp(type, "content_block_start") == 0) {
        const cJSON *start = cJSON_GetObjectItemCaseSensitive(data, "content_block");
        const char *kind = string_at(start, "type");
        if (kind && strcmp(kind, "tool_use") == 0) {
            mock_block *block = reader_block(reader, index, MOCK_BLOCK_TOOL_USE);
            if (block) {
                block->id = arena_strdup(reader->arena, string_at(start, "id"));
                block->name = arena_strdup(reader->arena, string_at(start, "name"));
                const cJSON *input = cJSON_GetObjectItemCaseSensitive(start, "input");
                if (input && !(cJSON_IsObject(input) && input->child == NULL)) {
                    char *json = cJSON_PrintUnformatted(input);
                    reader->start_input[block - reader->blocks] = json ? arena_strdup(reader->arena, json) : NULL;
                    free(json);
                }
            }
        } else if (kind && strcmp(kind, "text") == 0) {
            reader_block(reader, index, MOCK_BLOCK_TEXT);
        } else if (reader->other_count < sizeof reader->other / sizeof reader->other[0]) {
            reader->other[reader->other_count++] = index; /* a server tool's input is not a call of the client's */
        }
    } else if (strcmp(type, "content_block_delta") == 0) {
        for (size_t i = 0; i < reader->other_count; i++)
            if (reader->other[i] == index)
                return;
        const cJSON *delta = cJSON_GetObjectItemCaseSensitive(data, "delta");
        const char *piece = string_at(delta, "partial_json");
        mock_block *block = piece ? reader_block(reader, index, MOCK_BLOCK_TOOL_USE) : NULL;
        if (piece == NULL && (piece = string_at(delta, "text")) != NULL)
            block = reader_block(reader, index, MOCK_BLOCK_TEXT);
        if (block)
            mock_buf_adds(reader_text(reader, block), piece);
    } else if (strcmp(type, "message_delta") == 0) {
        const char *stop = string_at(cJSON_GetObjectItemCaseSensitive(data, "delta"), "stop_reason");
        if (stop)
            reader->stop_reason = arena_strdup(reader->arena, stop);
    } else if (strcmp(type, "message_start") == 0) {
        /* a replayed finished message carries its stop_reason here (a null one in message_delta keeps it) */
        const char *stop = string_at(cJSON_GetObjectItemCaseSensitive(data, "message"), "stop_reason");
        if (stop)
            reader->stop_reason = arena_strdup(reader->arena, stop);
    }
}

static void read_openai(lenient_reader *reader, const cJSON *data)
{
    const cJSON *choice = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(data, "choices"), 0);
    const cJSON *delta = cJSON_GetObjectItemCaseSensitive(choice, "delta");
    const char *content = string_at(delta, "content");
    const char *refusal = string_at(delta, "refusal");
    if (content || refusal) {
        mock_block *block = reader_block(reader, -1, MOCK_BLOCK_TEXT);
        if (block)
            mock_buf_adds(reader_text(reader, block), content ? content : refusal);
    }
    if (refusal)
        reader->stop_reason = "refusal";
    const cJSON *call;
    cJSON_ArrayForEach(call, cJSON_GetObjectItemCaseSensitive(delta, "tool_calls"))
    {
        long index = event_index(call);
        mock_block *block = reader_block(reader, index, MOCK_BLOCK_TOOL_USE);
        if (block == NULL)
            continue;
        const cJSON *function = cJSON_GetObjectItemCaseSensitive(call, "function");
        if (string_at(call, "id") && block->id == NULL)
            block->id = arena_strdup(reader->arena, string_at(call, "id"));
        if (string_at(function, "name") && block->name == NULL)
            block->name = arena_strdup(reader->arena, string_at(function, "name"));
        if (string_at(function, "arguments"))
            mock_buf_adds(reader_text(reader, block), string_at(function, "arguments"));
    }
    const char *finish = string_at(choice, "finish_reason");
    if (finish && reader->stop_reason == NULL)
        reader->stop_reason = strcmp(finish, "tool_calls") == 0 ? "tool_use"
                              : strcmp(finish, "length") == 0   ? "max_tokens"
                              : strcmp(finish, "content_filter") == 0 ? "refusal"
                                                                      : "end_turn";
}

static int reader_event(void *user, const gt_sse_event *event)
{
    lenient_reader *reader = user;
    if (!event->has_data)
        return 0;
    cJSON *data = cJSON_ParseWithLength(event->data, event->data_len);
    if (cJSON_IsObject(data)) {
        if (reader->provider == GT_PROVIDER_OPENAI)
            read_openai(reader, data);
        else
            read_anthropic(reader, data);
    }
    cJSON_Delete(data);
    return 0;
}

/* The turn the stream's content makes (blocks and texts in the arena). */
static int lenient_turn(lenient_reader *reader, const char *sse, size_t len, mock_turn *turn)
{
    gt_sse_parser *parser = gt_sse_parser_new(reader_event, reader);
    if (parser == NULL)
        return -1;
    int rc = gt_sse_parser_feed(parser, sse, len);
    gt_sse_parser_free(parser);
    bool any_tool = false;
    for (size_t i = 0; i < reader->count; i++) {
        mock_block *block = &reader->blocks[i];
        mock_buf *text = &reader->text[i];
        char *copy = gt_arena_alloc(reader->arena, text->len + 1);
        if (copy == NULL || text->failed)
            rc = -1;
        else {
            if (text->len)
                memcpy(copy, text->data, text->len);
            copy[text->len] = '\0';
        }
        if (block->kind == MOCK_BLOCK_TOOL_USE) {
            any_tool = true;
            block->input_raw = copy;
            block->input_len = text->len;
            if (text->len == 0 && reader->start_input[i] != NULL) { /* no delta: the start's input is the input */
                block->input_raw = reader->start_input[i];
                block->input_len = strlen(reader->start_input[i]);
            }
            if (block->id == NULL)
                block->id = (char *)"toolu_gauntlet";
            if (block->name == NULL)
                block->name = (char *)GT_LOOP_TOOL_NAME;
        } else {
            block->text = copy;
            block->text_len = text->len;
        }
        mock_buf_free(text);
    }
    turn->blocks = reader->blocks;
    turn->block_count = reader->count;
    turn->stop_reason = reader->stop_reason ? reader->stop_reason : any_tool ? "tool_use" : "end_turn";
    return rc == 0 ? 0 : -1;
}

int mock_form_render_stream(const mock_request *request, gt_stream_provider provider, const char *sse, size_t len,
                            const char *model, bool fail_after_blocks, gt_arena *arena, mock_reply *reply)
{
    gt_stream_result assembled;
    gt_stream_reason why = gt_stream_assemble(provider, sse, len, arena, &assembled);
    const char *fault = why == GT_STREAM_TRUNCATED          ? "cut"
                        : why == GT_STREAM_PROVIDER_ERROR   ? "stream_error"
                        : why >= GT_STREAM_SSE_BAD_JSON && why <= GT_STREAM_SSE_OUT_OF_ORDER ? "malformed_sse"
                                                                                                 : NULL;
    lenient_reader reader = {.provider = provider, .arena = arena};
    mock_turn turn;
    memset(&turn, 0, sizeof turn);
    turn.model = model;
    turn.input_tokens = (long)assembled.usage.input_tokens;
    turn.output_tokens = (long)assembled.usage.output_tokens;
    turn.cache_read_tokens = turn.cache_creation_tokens = -1;
    if (lenient_turn(&reader, sse, len, &turn) != 0)
        return -1;
    if (assembled.message != NULL) { /* a stream that finished: its own id and stop reason */
        turn.message_id = assembled.message->id;
        turn.stop_reason = assembled.message->stop_reason;
    }
    if (fault && strcmp(fault, "stream_error") == 0)
        fail_after_blocks = true;
    form_report report = {.stream_fault = fault};
    /* whatever was cut or malformed, a client that did not stream gets one JSON body cut in half */
    report.cut_json_body = fault != NULL && strcmp(fault, "stream_error") != 0 && !request->stream;
    reply->form_fault = fault;
    if (fail_after_blocks && !request->stream) {
        /* the provider failed the response: a JSON client gets the overload error */
        int rc = request->api == MOCK_API_ANTHROPIC
                     ? mock_anthropic_error(reply, 529, "overloaded_error", "Overloaded", request->request_id)
                     : mock_openai_error(reply, 503, "server_error", "The server is overloaded");
        write_note(request, &report, reply);
        return rc;
    }
    turn.fail_after_blocks = fail_after_blocks;
    if (render_mapped(request, &turn, true, &report, reply) != 0)
        return -1;
    if (fault == NULL || strcmp(fault, "stream_error") == 0)
        return 0;
    if (!reply->stream || strcmp(fault, "cut") != 0) {
        if (!reply->stream) { /* a JSON body that never finishes */
            reply->faults.cut_after_bytes = (long)(reply->body_len / 2);
            reply->has_faults = true;
            return 0;
        }
        /* malformed: a broken data line in the middle of the rendering */
        mock_faults malformed;
        mock_faults_init(&malformed);
        malformed.malformed_after_event = (int)(reply->event_count / 2);
        malformed.malformed_line = (char *)malformed_event(request->api);
        return mock_faults_apply(reply, &malformed);
    }
    /* cut: every content event goes out, the terminal ones never do */
    size_t keep = reply->event_count > 2 ? reply->event_count - 2 : 0;
    reply->faults.cut_after_bytes = keep ? (long)reply->event_ends[keep - 1] : 0;
    reply->abort_at_end = true;
    reply->has_faults = true;
    return 0;
}
