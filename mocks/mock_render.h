/* mock_render.h — a loop script's reply (gt_loop_reply) as an HTTP response
 * for the endpoint the client called (render.c). */
#ifndef GT_MOCK_RENDER_H
#define GT_MOCK_RENDER_H

#include "gauntlet/loop.h"
#include "mock_impl.h"

/* Render `reply` for `request`: a message as JSON or as SSE (whichever the
 * request asked for, in the endpoint's API), a stream's bytes verbatim when
 * the client streams in the same API (else the assembled message), an error
 * in the endpoint's error shape (or `error_body` exactly). `cut`: the script
 * cut the stream, so the connection closes abruptly after its bytes. Adds
 * the x-gauntlet-turn and x-gauntlet-notices headers. `fallback`: play the
 * reply's fallback on the wire (the caller's mock_fallback_on_wire verdict,
 * never in mirror mode). Returns 0 or -1 (OOM). */
int mock_render_reply(const mock_request *request, const gt_loop_reply *reply, bool cut, bool fallback,
                      const char *error_body, const char *script_model, gt_arena *arena, mock_reply *out);

/* True when a `fallback` notice of `reply` retracts the message `reply`
 * itself carries: for a client that is not the mirroring reference client,
 * that fallback is rendered on the wire (the message streams completely,
 * then an overloaded_error event ends the stream; a JSON body is cut in half)
 * instead of as an x-gauntlet-notices entry. */
bool mock_fallback_on_wire(const gt_loop_reply *reply, gt_arena *arena);

/* The notices of a reply as the x-gauntlet-notices JSON array (malloc'd), or
 * NULL when there are none. */
char *mock_notices_json(const gt_loop_reply *reply);

#endif
