/* mock_derive.h — a derive turn played against the schema the client sent
 * (derive.c; docs/mock-server.md "Derived turns"). */
#ifndef GT_MOCK_DERIVE_H
#define GT_MOCK_DERIVE_H

#include <stdbool.h>
#include <stddef.h>

#include "gauntlet/derive.h"
#include "mock_impl.h"

/* The schema a request carries for its answer: the answer tool's schema
 * (Anthropic `input_schema`, Chat Completions `function.parameters`,
 * Responses `parameters`) or the native format's (`output_config.format.schema`,
 * `output_format.schema`, `response_format.json_schema.schema`,
 * `text.format.schema`), whichever the request's answer form uses. `where`
 * names it ("tools.0.input_schema"). NULL when the request carries none
 * (`json_object`, no tool). */
const struct cJSON *mock_derive_request_schema(const mock_request *request, char *where, size_t where_len);

/* Replace `reply` (script turn reply->turn, whose derive operator is `spec`)
 * by the answer derived from the request's schema (the script's own schema
 * when the request carries none, or in mirror mode, where the script's
 * resolution is kept). Notices stay. `note` receives the journal's "derive"
 * object; `inexpressible` (else "") the reason the operator cannot apply to
 * the client's schema, in which case the script's answer is kept. 0, or -1
 * when out of memory. */
int mock_derive_apply(const mock_request *request, const gt_derive_spec *spec, gt_arena *arena, gt_loop_reply *reply,
                      char *note, size_t note_len, char *inexpressible, size_t inexpressible_len);

#endif
