/* mock_form.h — the form a client asked its answer in, and a scripted turn
 * rendered in that form (form.c).
 *
 * A script says what the model answers: usually a call of the
 * `StructuredOutput` tool. Clients ask for the answer in other forms: a tool
 * of their own forced with tool_choice (LangChain's `extract`, instructor's
 * schema name, the Anthropic SDK's tool helpers), or JSON text through a
 * native format (Anthropic `output_config.format` / beta `output_format`,
 * OpenAI `response_format`, Responses `text.format`). The mock renders the
 * script's answer in the form asked for, and says so in the journal. */
#ifndef GT_MOCK_FORM_H
#define GT_MOCK_FORM_H

#include <stdbool.h>

#include "gauntlet/arena.h"
#include "gauntlet/loop.h"
#include "mock_impl.h"

/* Read the answer form from a request body of `api` into `form`. */
void mock_form_detect(const struct cJSON *body, mock_api api, mock_form *form);

/* Render `turn` for `request` in the request's API and answer form. A
 * StructuredOutput call becomes a call of the form's tool, or JSON text (text
 * blocks beside the call are commentary and are left out). `scripted`: the
 * turn is one the script wrote (not the mock's own past-the-end text), so
 * that a turn the client's request rules out (it forced the tool or a strict
 * format, or the script calls a tool the client never offered) is marked
 * inexpressible in reply->form_note. Returns 0 or -1 (out of memory). */
int mock_form_render(const mock_request *request, const mock_turn *turn, bool scripted, mock_reply *reply);

/* Write the journal's answer_form note into `reply` when no rendering path
 * wrote one (a stream sent verbatim): used for a derive turn the client's
 * schema rules out (request->derive_inexpressible). */
void mock_form_note(const mock_request *request, mock_reply *reply);
/* A scripted stream sent verbatim (`sse`) that stops with pause_turn to a
 * request offering no server tool: note the turn inexpressible (the API
 * pauses only server-tool loops), unless a note is already written. */
void mock_form_check_pause(const mock_request *request, const char *sse, size_t len, mock_reply *reply);

/* Note the turn inexpressible for this request with `why` (the journal's
 * answer_form: "expressible": false), whatever was rendered; nothing for the
 * reference's mirror. */
void mock_form_note_inexpressible(const mock_request *request, const char *why, mock_reply *reply);

/* True when a scripted stream must be re-rendered for this request rather
 * than sent verbatim or converted by render.c: a mapped form, or the
 * Responses API. */
bool mock_form_rerenders(const mock_request *request);

/* A scripted stream (`sse`, in `provider`'s API) for a request that needs it
 * in another form: the content it carries (read leniently, up to any fault)
 * rendered in the request's API and form, then the stream's own fault of the
 * same class applied to that rendering — a cut stream ends abruptly after its
 * content (a JSON body is cut in half), a malformed one gets a malformed
 * `data:` line in the middle (a JSON body is cut in half), a provider error
 * event ends the stream with the API's error event (JSON: the overload
 * error). `fail_after_blocks` plays a fallback on the wire. The fault is
 * named in reply->form_note. Returns 0 or -1 (out of memory). */
int mock_form_render_stream(const mock_request *request, gt_stream_provider provider, const char *sse, size_t len,
                            const char *model, bool fail_after_blocks, gt_arena *arena, mock_reply *reply);

#endif
