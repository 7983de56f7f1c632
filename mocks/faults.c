/* faults.c — serve a rendered reply with the turn's faults applied: status,
 * body and Content-Type overrides, padding (oversized body), a malformed SSE
 * line, latency before the first byte (server.c sleeps before queueing), slow
 * drip, and an abrupt close after N bytes or after event K.
 *
 * The body is fully rendered before the first byte goes out; faults only
 * decide how much of it goes, how fast, and how it ends. No pause sleeps in
 * the event-loop thread that serves the connection: the connection is parked
 * on the timer (mock_timer.h) and the reader called again when it resumes; a
 * stopping server resumes every parked connection at once. Not for: what the body says (anthropic.c,
 * openai.c). */
#include <microhttpd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <time.h>

#include "mock_faults.h"
#include "mock_timer.h"

/* Insert `len` bytes at `at` in the body, shifting event ends and the cut. */
static int insert_bytes(mock_reply *reply, size_t at, const char *bytes, size_t len, bool new_event)
{
    char *body = malloc(reply->body_len + len + 1);
    if (body == NULL)
        return -1;
    memcpy(body, reply->body, at);
    memcpy(body + at, bytes, len);
    memcpy(body + at + len, reply->body + at, reply->body_len - at);
    body[reply->body_len + len] = '\0';
    free(reply->body);
    reply->body = body;
    reply->body_len += len;
    for (size_t i = 0; i < reply->event_count; i++)
        if (reply->event_ends[i] > at || (reply->event_ends[i] == at && at == 0))
            reply->event_ends[i] += len;
    if (reply->faults.cut_after_bytes >= 0 && (size_t)reply->faults.cut_after_bytes >= at)
        reply->faults.cut_after_bytes += (long)len;
    if (new_event) {
        size_t *grown = realloc(reply->event_ends, (reply->event_count + 1) * sizeof *grown);
        if (grown == NULL)
            return -1;
        reply->event_ends = grown;
        size_t k = 0;
        while (k < reply->event_count && reply->event_ends[k] <= at)
            k++;
        memmove(&reply->event_ends[k + 1], &reply->event_ends[k], (reply->event_count - k) * sizeof *grown);
        reply->event_ends[k] = at + len;
        reply->event_count++;
    }
    return 0;
}

int mock_faults_apply(mock_reply *reply, const mock_faults *faults)
{
    /* the reply may already carry a cut from the script's stream section */
    long script_cut = reply->faults.cut_after_bytes;
    reply->faults = *faults;
    if (faults->cut_after_bytes < 0)
        reply->faults.cut_after_bytes = script_cut;
    reply->has_faults = reply->has_faults || mock_faults_any(faults);
    if (faults->status > 0)
        reply->status = faults->status;
    if (faults->body) {
        free(reply->body);
        free(reply->event_ends);
        reply->event_ends = NULL;
        reply->event_count = 0;
        reply->body = strdup(faults->body);
        if (reply->body == NULL)
            return -1;
        reply->body_len = strlen(reply->body);
        reply->stream = false;
    }
    if (faults->content_type)
        snprintf(reply->content_type, sizeof reply->content_type, "%s", faults->content_type);
    if (faults->retry_after >= 0)
        reply->retry_after = faults->retry_after;
    if (faults->malformed_after_event >= 0 && faults->malformed_line) {
        size_t k = (size_t)faults->malformed_after_event;
        size_t at = k == 0 || reply->event_count == 0 ? 0
                    : reply->event_ends[(k <= reply->event_count ? k : reply->event_count) - 1];
        size_t line_len = strlen(faults->malformed_line);
        char *line = malloc(line_len + 3);
        if (line == NULL)
            return -1;
        memcpy(line, faults->malformed_line, line_len);
        memcpy(line + line_len, "\n\n", 3);
        int rc = insert_bytes(reply, at, line, line_len + 2, true);
        free(line);
        if (rc != 0)
            return -1;
    }
    if (faults->cut_after_event >= 0) {
        size_t k = (size_t)faults->cut_after_event;
        reply->faults.cut_after_bytes =
            k == 0 || reply->event_count == 0 ? 0 : (long)reply->event_ends[(k <= reply->event_count ? k : reply->event_count) - 1];
    }
    if (faults->oversized_bytes > 0) {
        /* leading padding keeps the body valid: JSON whitespace, or an SSE comment */
        size_t pad = (size_t)faults->oversized_bytes;
        char *bytes = malloc(pad + 4);
        if (bytes == NULL)
            return -1;
        size_t len;
        if (reply->stream) {
            bytes[0] = ':';
            memset(bytes + 1, 'x', pad);
            memcpy(bytes + 1 + pad, "\n\n", 2);
            len = pad + 3;
        } else {
            memset(bytes, ' ', pad);
            len = pad;
        }
        int rc = insert_bytes(reply, 0, bytes, len, false);
        free(bytes);
        if (rc != 0)
            return -1;
    }
    return 0;
}

/* Pause between the last byte before a cut and the abrupt close. Without it
 * a client may see the connection error before it has read the delivered
 * bytes, and which of the two it acts on depends on its scheduling: the same
 * case then gives a different verdict from run to run (docs/mock-server.md,
 * measured with Claude Code: closed at once 1 of 4 runs read the bytes,
 * closed 300 ms after the last byte 4 of 4 did). */
enum { MOCK_CUT_LINGER_MS = 300 };

/* The body of one response, served piece by piece. */
typedef struct body_source {
    char *body;
    size_t len;
    size_t limit; /* bytes served before the close */
    bool cut;     /* close abruptly at `limit` */
    int drip_bytes, drip_interval_ms;
    const volatile bool *stopping;
    struct MHD_Connection *connection; /* parked on `timer` while a pause runs */
    mock_timer *timer;
    uint64_t paused_at;                /* the position whose pause began, or UINT64_MAX */
    long long resume_ms;               /* when that pause ends */
} body_source;

typedef enum pause_state { PAUSE_OVER, PAUSE_WAITING, PAUSE_STOPPED } pause_state;

/* Pause `ms` before serving position `pos`, without blocking the event loop:
 * the first call parks the connection on the timer (PAUSE_WAITING: the reader
 * returns 0), the call after the timer resumed it finds the pause over. */
static pause_state pause_before(body_source *source, uint64_t pos, long ms)
{
    if (source->stopping && *source->stopping)
        return PAUSE_STOPPED;
    if (ms <= 0)
        return PAUSE_OVER;
    long long now = mock_timer_now_ms();
    if (source->paused_at != pos) {
        source->paused_at = pos;
        source->resume_ms = now + ms;
    } else if (now >= source->resume_ms) {
        return PAUSE_OVER;
    }
    return mock_timer_park(source->timer, source->connection, (long)(source->resume_ms - now)) ? PAUSE_WAITING
                                                                                                : PAUSE_STOPPED;
}

static ssize_t body_read(void *cls, uint64_t pos, char *buf, size_t max)
{
    body_source *source = cls;
    if (pos >= source->limit) {
        if (!source->cut)
            return MHD_CONTENT_READER_END_OF_STREAM;
        /* MHD asks for more only once the bytes before the cut are in the
         * kernel; linger so the client reads them before the close, as a
         * connection dropped in the network would deliver them. */
        pause_state linger = pause_before(source, pos, MOCK_CUT_LINGER_MS);
        return linger == PAUSE_WAITING ? 0 : MHD_CONTENT_READER_END_WITH_ERROR;
    }
    size_t n = source->limit - (size_t)pos;
    if (n > max)
        n = max;
    if (source->drip_bytes > 0) {
        if ((size_t)source->drip_bytes < n)
            n = (size_t)source->drip_bytes;
        pause_state gap = pos > 0 ? pause_before(source, pos, source->drip_interval_ms) : PAUSE_OVER;
        if (gap == PAUSE_WAITING)
            return 0;
        if (gap == PAUSE_STOPPED)
            return MHD_CONTENT_READER_END_WITH_ERROR;
    }
    if (source->stopping && *source->stopping)
        return MHD_CONTENT_READER_END_WITH_ERROR;
    memcpy(buf, source->body + pos, n);
    return (ssize_t)n;
}

static void body_free(void *cls)
{
    body_source *source = cls;
    free(source->body);
    free(source);
}

struct MHD_Response *mock_response_create(mock_reply *reply, struct MHD_Connection *connection, mock_timer *timer,
                                          const volatile bool *stopping)
{
    const mock_faults *faults = &reply->faults;
    bool paced = faults->drip_bytes > 0;
    bool cut = (faults->cut_after_bytes >= 0 && (size_t)faults->cut_after_bytes < reply->body_len) ||
               reply->abort_at_end;
    struct MHD_Response *response;
    if (!reply->stream && !paced && !cut) {
        response = MHD_create_response_from_buffer(reply->body_len, reply->body, MHD_RESPMEM_MUST_FREE);
        if (response != NULL)
            reply->body = NULL; /* MHD owns it now */
        return response;
    }
    body_source *source = calloc(1, sizeof *source);
    if (source == NULL)
        return NULL;
    source->body = reply->body;
    source->len = reply->body_len;
    source->limit = faults->cut_after_bytes >= 0 && (size_t)faults->cut_after_bytes < reply->body_len
                        ? (size_t)faults->cut_after_bytes
                        : reply->body_len;
    source->cut = cut;
    source->drip_bytes = faults->drip_bytes;
    source->drip_interval_ms = faults->drip_interval_ms < 0 ? 10 : faults->drip_interval_ms;
    source->stopping = stopping;
    source->connection = connection;
    source->timer = timer;
    source->paused_at = UINT64_MAX;
    /* streams are chunked like the real APIs; a JSON body keeps its length so a
     * cut shows up as a short read */
    uint64_t size = reply->stream ? MHD_SIZE_UNKNOWN : reply->body_len;
    size_t block = paced ? (size_t)faults->drip_bytes : 16 * 1024;
    response = MHD_create_response_from_callback(size, block < 16 ? 16 : block, body_read, source, body_free);
    if (response == NULL) {
        free(source);
        return NULL;
    }
    reply->body = NULL;
    return response;
}
