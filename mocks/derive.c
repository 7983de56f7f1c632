/* derive.c — derive turns computed from the schema the client sent.
 *
 * A script turn may name an operator (`{"derive": "enum-case"}`) instead of
 * a literal answer; the loop layer resolves it against the script's schema
 * (reference/derive.c). A real client sends its own schema — converted by
 * its SDK, renamed, under another answer form — so the mock derives the
 * answer again from the schema in the request, where the request's answer
 * form keeps it, and then renders it like any scripted answer (form.c). Not
 * for: the operators themselves (reference/derive.c) or answer forms. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "mock_buf.h"
#include "mock_derive.h"

static const cJSON *member(const cJSON *object, const char *key)
{
    return cJSON_GetObjectItemCaseSensitive(object, key);
}

static const char *tool_name_of(const cJSON *tool)
{
    const cJSON *name = member(tool, "name");
    if (!cJSON_IsString(name))
        name = member(member(tool, "function"), "name");
    return cJSON_IsString(name) ? name->valuestring : NULL;
}

/* The schema of the tool named `name`, per API. */
static const cJSON *tool_schema(const cJSON *body, mock_api api, const char *name, char *where, size_t where_len)
{
    const cJSON *tool;
    int index = 0;
    cJSON_ArrayForEach(tool, member(body, "tools"))
    {
        const char *offered = tool_name_of(tool);
        if (offered && strcmp(offered, name) == 0) {
            const char *key = api == MOCK_API_ANTHROPIC ? "input_schema" : "parameters";
            const cJSON *holder = api == MOCK_API_OPENAI ? member(tool, "function") : tool;
            snprintf(where, where_len, "tools.%d.%s%s", index, api == MOCK_API_OPENAI ? "function." : "", key);
            return member(holder, key);
        }
        index++;
    }
    return NULL;
}

const cJSON *mock_derive_request_schema(const mock_request *request, char *where, size_t where_len)
{
    const cJSON *body = request->body;
    const mock_form *form = &request->form;
    where[0] = '\0';
    if (form->kind == MOCK_FORM_JSON_TEXT && form->why) {
        const cJSON *format = NULL;
        if (strcmp(form->why, "output_config.format") == 0)
            format = member(member(body, "output_config"), "format");
        else if (strcmp(form->why, "output_format") == 0)
            format = member(body, "output_format");
        else if (strcmp(form->why, "response_format") == 0)
            format = member(member(body, "response_format"), "json_schema");
        else if (strcmp(form->why, "text.format") == 0)
            format = member(member(body, "text"), "format");
        const cJSON *schema = member(format, "schema");
        if (cJSON_IsObject(schema))
            snprintf(where, where_len, "%s%s.schema", form->why,
                     strcmp(form->why, "response_format") == 0 ? ".json_schema" : "");
        return cJSON_IsObject(schema) ? schema : NULL;
    }
    const char *name = form->kind == MOCK_FORM_TOOL ? form->tool : GT_LOOP_TOOL_NAME;
    const cJSON *schema = tool_schema(body, request->api, name, where, where_len);
    if (schema == NULL)
        where[0] = '\0';
    return schema;
}

static void write_note(const gt_derive_spec *spec, const char *from, const char *inexpressible, char *note,
                       size_t note_len)
{
    mock_buf buf;
    mock_buf_init(&buf);
    mock_buf_adds(&buf, "{\"op\":");
    mock_buf_add_json_cstr(&buf, gt_derive_op_name(spec->op));
    if (spec->op == GT_DERIVE_CUT_AT) {
        mock_buf_adds(&buf, ",\"at\":");
        mock_buf_add_json_cstr(&buf, gt_derive_boundary_name(spec->at));
        if (spec->nth)
            mock_buf_addf(&buf, ",\"nth\":%zu", spec->nth);
        mock_buf_addf(&buf, ",\"end\":\"%s\"", spec->max_tokens ? "max_tokens" : "cut");
    }
    mock_buf_adds(&buf, ",\"schema_from\":");
    mock_buf_add_json_cstr(&buf, from);
    mock_buf_addf(&buf, ",\"expressible\":%s", inexpressible[0] ? "false" : "true");
    if (inexpressible[0]) {
        mock_buf_adds(&buf, ",\"inexpressible\":");
        mock_buf_add_json_cstr(&buf, inexpressible);
    }
    mock_buf_adds(&buf, "}");
    note[0] = '\0';
    if (!buf.failed && buf.len < note_len)
        memcpy(note, buf.data, buf.len + 1);
    mock_buf_free(&buf);
}

int mock_derive_apply(const mock_request *request, const gt_derive_spec *spec, gt_arena *arena, gt_loop_reply *reply,
                      char *note, size_t note_len, char *inexpressible, size_t inexpressible_len)
{
    inexpressible[0] = '\0';
    if (request->mirror) { /* the reference client: the script's own resolution, as the in-process player has it */
        write_note(spec, "script", "", note, note_len);
        return 0;
    }
    char where[96];
    const cJSON *schema = mock_derive_request_schema(request, where, sizeof where);
    if (schema == NULL) { /* json_object mode, or a tool without a schema: the script's schema stands */
        write_note(spec, "script", "", note, note_len);
        return 0;
    }
    char *text = cJSON_PrintUnformatted(schema);
    if (text == NULL)
        return -1;
    gt_stream_provider provider = request->api == MOCK_API_OPENAI ? GT_PROVIDER_OPENAI : GT_PROVIDER_ANTHROPIC;
    gt_loop_reply derived;
    char why[300];
    int rc = gt_derive_reply(spec, text, strlen(text), reply->turn, provider, request->model, arena, &derived, why,
                             sizeof why);
    free(text);
    if (rc < 0)
        return -1;
    if (rc > 0) {
        snprintf(inexpressible, inexpressible_len, "derive %s cannot apply to the client's schema (%s): %s",
                 gt_derive_op_name(spec->op), where, why);
        write_note(spec, where, inexpressible, note, note_len);
        return 0;
    }
    derived.notices = reply->notices;
    derived.notice_count = reply->notice_count;
    *reply = derived;
    write_note(spec, where, "", note, note_len);
    return 0;
}
