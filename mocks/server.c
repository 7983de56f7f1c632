/* server.c — the mock model server: HTTP (libmicrohttpd), routing, scenario
 * selection, per-session cursors and the journal.
 *
 * One daemon with a pool of event-loop threads; a turn's latency, a drip
 * interval or a cut's linger parks only its own connection on the timer
 * (mock_timer.h), never a pool thread. All state hangs off gt_mock_server:
 * scenarios (read-mostly, rwlock), sessions (mutex; one cursor per
 * "scenario/run-id"; past GT_MOCK_MAX_SESSIONS the least recently used is
 * evicted in O(1))
 * and the journal (its own mutex). Routes:
 *
 *   POST /v1/messages, /v1/messages/count_tokens, GET /v1/models[/ID]  Anthropic
 *   POST /v1/chat/completions                                          OpenAI
 *   POST /v1/responses                                                 OpenAI Responses
 *   GET  /_gauntlet/health, /_gauntlet/journal?session=, /_gauntlet/scenarios
 *   POST /_gauntlet/scenarios?name=N (body = script), /_gauntlet/reset?session=
 *
 * any of them under /s/<scenario>/<run-id>/. Selection rules and the journal
 * format: docs/mock-server.md. Not for: rendering bodies (anthropic.c,
 * openai.c) or serving faults (faults.c). */
#include <arpa/inet.h>
#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "mock_derive.h"
#include "mock_faults.h"
#include "mock_form.h"
#include "mock_impl.h"
#include "gauntlet/runner/corpus.h"
#include "gauntlet/loop.h"
#include "mock_guard.h"
#include "mock_render.h"
#include "mock_timer.h"

#define SCENARIO_NAME_MAX 200
#define RUN_ID_MAX 120

typedef struct session {
    char key[SCENARIO_NAME_MAX + RUN_ID_MAX + 2]; /* "scenario/run"; "" = free slot */
    mock_scenario *scenario;  /* reference held */
    size_t cursor;            /* the next turn of the scenario's shared script (gt_loop_script_play_at) */
    size_t requests;          /* model calls so far */
    char **pending_tools;     /* tool_use ids of the last complete response */
    size_t pending_count;
    uint64_t hash;                  /* of key */
    struct session *newer, *older;  /* recency list: newest first */
} session;

struct gt_mock_server {
    struct MHD_Daemon *daemon;
    char base_url[128];
    unsigned port;
    size_t max_body;
    volatile bool stopping;
    bool quiet_journal_bodies;

    pthread_rwlock_t scenario_lock;
    mock_scenario **scenarios;
    size_t scenario_count, scenario_cap;

    pthread_mutex_t session_lock;
    session **sessions; /* open addressing (linear probing) by key hash; each session malloc'd */
    size_t session_cap, session_count, max_sessions;
    session *newest, *oldest; /* recency list: eviction takes the oldest in O(1) */

    mock_journal *journal;
    mock_guard *guard;  /* request-head deadline, per-address cap sparing loopback */
    mock_timer *timer;  /* parks connections through a fault's pause (mock_timer.h) */
    atomic_ulong requests;
    atomic_ulong ids;
    mock_turn default_turn;
    mock_block default_block;
};

/* Per-request state while the body arrives, and a reply held back by its
 * turn's latency until the timer resumes the connection. */
typedef struct request_state {
    mock_buf body;
    bool too_large;
    struct held_reply *held; /* a reply waiting for its turn's latency, or NULL */
} request_state;

/* A rendered reply parked with its connection until the latency passes
 * (allocated only then: the common request carries none). */
typedef struct held_reply {
    mock_reply reply;
    mock_scenario *scenario; /* reference kept while the reply waits */
    char request_id[40];
} held_reply;

/* ---- scenarios ------------------------------------------------------------ */

static long find_scenario_locked(const gt_mock_server *server, const char *name)
{
    for (size_t i = 0; i < server->scenario_count; i++)
        if (strcmp(server->scenarios[i]->name, name) == 0)
            return (long)i;
    return -1;
}

int gt_mock_add_scenario(gt_mock_server *server, const char *name, const char *script_json,
                         const char *default_schema_json, char *err, size_t err_len)
{
    if (name == NULL || name[0] == '\0' || strlen(name) > SCENARIO_NAME_MAX || strchr(name, '/')) {
        snprintf(err, err_len, "a scenario name must be 1-%d characters without '/'", SCENARIO_NAME_MAX);
        return -1;
    }
    mock_scenario *scenario = mock_scenario_parse(name, script_json, default_schema_json, err, err_len);
    if (scenario == NULL)
        return -1;
    pthread_rwlock_wrlock(&server->scenario_lock);
    long at = find_scenario_locked(server, name);
    if (at < 0) {
        if (server->scenario_count == server->scenario_cap) {
            size_t cap = server->scenario_cap ? server->scenario_cap * 2 : 64;
            mock_scenario **grown = realloc(server->scenarios, cap * sizeof *grown);
            if (grown == NULL) {
                pthread_rwlock_unlock(&server->scenario_lock);
                mock_scenario_release(scenario);
                snprintf(err, err_len, "out of memory");
                return -1;
            }
            server->scenarios = grown;
            server->scenario_cap = cap;
        }
        at = (long)server->scenario_count++;
    } else {
        mock_scenario_release(server->scenarios[at]);
    }
    server->scenarios[at] = scenario;
    pthread_rwlock_unlock(&server->scenario_lock);
    return 0;
}

size_t gt_mock_scenario_count(const gt_mock_server *server)
{
    return server->scenario_count;
}

/* ---- sessions ------------------------------------------------------------- */

static uint64_t hash_key(const char *key)
{
    uint64_t hash = 1469598103934665603u;
    for (const unsigned char *p = (const unsigned char *)key; *p; p++)
        hash = (hash ^ *p) * 1099511628211u;
    return hash;
}

static void session_free(session *s)
{
    mock_scenario_release(s->scenario);
    for (size_t i = 0; i < s->pending_count; i++)
        free(s->pending_tools[i]);
    free(s->pending_tools);
    free(s);
}

/* Table slot holding `key`, or the empty slot where it would go. */
static size_t session_slot(const gt_mock_server *server, const char *key, uint64_t hash)
{
    size_t mask = server->session_cap - 1, at = (size_t)hash & mask;
    while (server->sessions[at] != NULL &&
           (server->sessions[at]->hash != hash || strcmp(server->sessions[at]->key, key) != 0))
        at = (at + 1) & mask;
    return at;
}

static bool sessions_grow(gt_mock_server *server)
{
    size_t cap = server->session_cap ? server->session_cap * 2 : 64;
    session **table = calloc(cap, sizeof *table);
    if (table == NULL)
        return false;
    for (size_t i = 0; i < server->session_cap; i++) {
        session *s = server->sessions[i];
        if (s == NULL)
            continue;
        size_t at = (size_t)s->hash & (cap - 1);
        while (table[at] != NULL)
            at = (at + 1) & (cap - 1);
        table[at] = s;
    }
    free(server->sessions);
    server->sessions = table;
    server->session_cap = cap;
    return true;
}

static void recency_unlink(gt_mock_server *server, session *s)
{
    *(s->newer ? &s->newer->older : &server->newest) = s->older;
    *(s->older ? &s->older->newer : &server->oldest) = s->newer;
    s->newer = s->older = NULL;
}

static void recency_push(gt_mock_server *server, session *s)
{
    s->newer = NULL;
    s->older = server->newest;
    *(server->newest ? &server->newest->newer : &server->oldest) = s;
    server->newest = s;
}

/* Remove the session in slot `at` and free it; backward-shift deletion keeps
 * every probe chain whole without a rehash (O(1) on average). */
static void session_remove_at(gt_mock_server *server, size_t at)
{
    size_t mask = server->session_cap - 1, hole = at;
    session *gone = server->sessions[at];
    server->sessions[hole] = NULL;
    for (size_t j = (hole + 1) & mask; server->sessions[j] != NULL; j = (j + 1) & mask) {
        size_t home = (size_t)server->sessions[j]->hash & mask;
        bool stays = hole <= j ? (hole < home && home <= j) : (hole < home || home <= j);
        if (!stays) {
            server->sessions[hole] = server->sessions[j];
            server->sessions[j] = NULL;
            hole = j;
        }
    }
    recency_unlink(server, gone);
    session_free(gone);
    server->session_count--;
}

/* The session of `key`, made when `create` (evicting the least recently used
 * one past max_sessions). O(1) on average. NULL when absent (or out of
 * memory). Call with session_lock held. */
static session *session_lookup(gt_mock_server *server, const char *key, bool create)
{
    uint64_t hash = hash_key(key);
    if (server->session_cap > 0) {
        size_t at = session_slot(server, key, hash);
        session *found = server->sessions[at];
        if (found != NULL) {
            recency_unlink(server, found);
            recency_push(server, found);
            return found;
        }
    }
    if (!create)
        return NULL;
    if (server->session_count >= server->max_sessions && server->oldest != NULL)
        session_remove_at(server, session_slot(server, server->oldest->key, server->oldest->hash));
    if ((server->session_count + 1) * 2 > server->session_cap && !sessions_grow(server))
        return NULL;
    session *s = calloc(1, sizeof *s);
    if (s == NULL)
        return NULL;
    snprintf(s->key, sizeof s->key, "%s", key);
    s->hash = hash;
    server->sessions[session_slot(server, key, hash)] = s;
    recency_push(server, s);
    server->session_count++;
    return s;
}

/* Free every session. Call with session_lock held (or at teardown). */
static void sessions_clear(gt_mock_server *server)
{
    if (server->session_cap == 0)
        return;
    for (size_t i = 0; i < server->session_cap; i++)
        if (server->sessions[i] != NULL)
            session_free(server->sessions[i]);
    memset(server->sessions, 0, server->session_cap * sizeof *server->sessions);
    server->session_count = 0;
    server->newest = server->oldest = NULL;
}

void gt_mock_reset(gt_mock_server *server, const char *session_key)
{
    pthread_mutex_lock(&server->session_lock);
    if (session_key == NULL)
        sessions_clear(server);
    else if (server->session_cap > 0) {
        size_t at = session_slot(server, session_key, hash_key(session_key));
        if (server->sessions[at] != NULL)
            session_remove_at(server, at);
    }
    pthread_mutex_unlock(&server->session_lock);
    mock_journal_reset(server->journal, session_key);
}

/* ---- helpers -------------------------------------------------------------- */

static const char *header(struct MHD_Connection *connection, const char *name)
{
    return MHD_lookup_connection_value(connection, MHD_HEADER_KIND, name);
}

static const char *query(struct MHD_Connection *connection, const char *name)
{
    return MHD_lookup_connection_value(connection, MHD_GET_ARGUMENT_KIND, name);
}

/* `value` in lowercase hex, at least `width` digits (as "%0*lx"); the end. */
static char *put_hex(char *at, unsigned long value, int width)
{
    char digits[2 * sizeof value];
    int n = 0;
    do
        digits[n++] = "0123456789abcdef"[value & 15];
    while ((value >>= 4) != 0);
    for (int pad = width - n; pad > 0; pad--)
        *at++ = '0';
    while (n > 0)
        *at++ = digits[--n];
    return at;
}

/* "req_gauntlet" + the port (%08lx) + the request's number (%012lx): unique
 * per server, written without printf (one per request). */
static void new_request_id(gt_mock_server *server, char *out, size_t len)
{
    unsigned long n = atomic_fetch_add(&server->ids, 1) + 1;
    char id[12 + 2 * 2 * sizeof n + 1];
    memcpy(id, "req_gauntlet", 12);
    char *end = put_hex(put_hex(id + 12, (unsigned long)server->port, 8), n, 12);
    size_t id_len = (size_t)(end - id) < len ? (size_t)(end - id) : len - 1;
    memcpy(out, id, id_len);
    out[id_len] = '\0';
}

/* Percent-decode one path segment in place. */
static void url_decode(char *text)
{
    char *out = text;
    for (const char *in = text; *in; in++) {
        if (in[0] == '%' && in[1] && in[2]) {
            char hex[3] = {in[1], in[2], 0};
            char *end;
            long value = strtol(hex, &end, 16);
            if (*end == '\0' && value > 0) {
                *out++ = (char)value;
                in += 2;
                continue;
            }
        }
        *out++ = *in;
    }
    *out = '\0';
}

/* The request's selection: scenario and run id from /s/<scenario>/<run>/...,
 * then the x-gauntlet-scenario / x-gauntlet-run headers, then an API key
 * "gauntlet-<scenario>" or "gauntlet-<scenario>~<run>". */
typedef struct selection {
    char scenario[SCENARIO_NAME_MAX + 1]; /* "" = none */
    char run[RUN_ID_MAX + 1];
    const char *route; /* the path after the prefix */
    const char *by;    /* "path", "header", "api_key" or "none" */
    const char *run_too_long; /* where a run id over RUN_ID_MAX came from (answered 400), or NULL */
    size_t run_too_long_len;
} selection;

/* A run id is never cut to fit: two long ids cut alike would share a session. */
static bool run_fits(selection *sel, const char *where, size_t len)
{
    if (len <= RUN_ID_MAX)
        return true;
    if (sel->run_too_long == NULL)
        sel->run_too_long = where, sel->run_too_long_len = len;
    return false;
}

static void select_from_key(const char *key, selection *sel)
{
    if (key == NULL)
        return;
    if (strncmp(key, "Bearer ", 7) == 0)
        key += 7;
    if (strncmp(key, "gauntlet-", 9) != 0 || key[9] == '\0')
        return;
    key += 9;
    const char *tilde = strchr(key, '~');
    size_t len = tilde ? (size_t)(tilde - key) : strlen(key);
    if (len == 0 || len > SCENARIO_NAME_MAX)
        return;
    memcpy(sel->scenario, key, len);
    sel->scenario[len] = '\0';
    if (tilde && tilde[1] && run_fits(sel, "the API key's ~<run>", strlen(tilde + 1)))
        snprintf(sel->run, sizeof sel->run, "%s", tilde + 1);
    sel->by = "api_key";
}

static void select_scenario(struct MHD_Connection *connection, const char *url, selection *sel)
{
    memset(sel, 0, sizeof *sel);
    sel->route = url;
    sel->by = "none";
    if (strncmp(url, "/s/", 3) == 0) {
        const char *name = url + 3;
        const char *slash = strchr(name, '/');
        size_t len = slash ? (size_t)(slash - name) : strlen(name);
        if (len > 0 && len <= SCENARIO_NAME_MAX) {
            memcpy(sel->scenario, name, len);
            sel->scenario[len] = '\0';
            url_decode(sel->scenario);
            sel->by = "path";
            const char *rest = slash ? slash : "";
            /* an optional run id, unless the next segment already is the API */
            if (rest[0] == '/' && strncmp(rest, "/v1/", 4) != 0 && strncmp(rest, "/_gauntlet/", 11) != 0 &&
                strcmp(rest, "/v1") != 0) {
                const char *run = rest + 1;
                const char *next = strchr(run, '/');
                size_t run_len = next ? (size_t)(next - run) : strlen(run);
                if (run_fits(sel, "the path's /s/<scenario>/<run>", run_len)) {
                    memcpy(sel->run, run, run_len);
                    sel->run[run_len] = '\0';
                    url_decode(sel->run);
                }
                rest = next ? next : "";
            }
            sel->route = rest[0] ? rest : "/";
        }
    }
    if (sel->scenario[0] == '\0') {
        const char *name = header(connection, "x-gauntlet-scenario");
        if (name && name[0] && strlen(name) <= SCENARIO_NAME_MAX) {
            snprintf(sel->scenario, sizeof sel->scenario, "%s", name);
            sel->by = "header";
        }
    }
    if (sel->scenario[0] == '\0') {
        select_from_key(header(connection, "x-api-key"), sel);
        if (sel->scenario[0] == '\0')
            select_from_key(header(connection, "authorization"), sel);
    }
    const char *run = header(connection, "x-gauntlet-run");
    if (sel->run[0] == '\0' && run && run[0] && run_fits(sel, "x-gauntlet-run", strlen(run)))
        snprintf(sel->run, sizeof sel->run, "%s", run);
    if (sel->run[0] == '\0')
        snprintf(sel->run, sizeof sel->run, "default");
}

/* ---- journal entries ------------------------------------------------------ */

typedef struct journal_info {
    const char *method, *url, *route;
    const selection *sel;
    const char *body;
    size_t body_len;
    const cJSON *json;
    long turn;
    bool side;
    int status;
    bool stream;
    const char *deviations[8];
    size_t deviation_count;
    const mock_faults *faults;
    const char *extra_faults[4]; /* faults in the script itself or the on-wire fallback */
    size_t extra_fault_count;
    bool beyond_script;
    const char *request_id;
    const char *answer_form; /* the answer form's JSON object (form.c), or NULL */
    const char *derive;      /* a derive turn's JSON object (derive.c), or NULL */
} journal_info;

static bool header_journaled(const char *name)
{
    static const char *const names[] = {"content-type", "anthropic-version", "anthropic-beta", "user-agent",
                                        "x-api-key",    "authorization",     "x-app",          "accept"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcasecmp(name, names[i]) == 0)
            return true;
    return strncasecmp(name, "x-stainless-", 12) == 0 || strncasecmp(name, "x-gauntlet-", 11) == 0 ||
           strncasecmp(name, "anthropic-", 10) == 0 || strncasecmp(name, "openai-", 7) == 0;
}

typedef struct header_walk {
    mock_buf *buf;
    size_t count;
} header_walk;

static enum MHD_Result add_header(void *cls, enum MHD_ValueKind kind, const char *key, const char *value)
{
    (void)kind;
    header_walk *walk = cls;
    if (!header_journaled(key))
        return MHD_YES;
    char lower[64];
    size_t i = 0;
    for (; key[i] && i + 1 < sizeof lower; i++)
        lower[i] = (char)((key[i] >= 'A' && key[i] <= 'Z') ? key[i] + 32 : key[i]);
    lower[i] = '\0';
    if (walk->count++)
        mock_buf_adds(walk->buf, ",");
    mock_buf_add_json_cstr(walk->buf, lower);
    mock_buf_adds(walk->buf, ":");
    /* secrets stay out of the journal; gauntlet-* keys are selections, not secrets */
    bool secret = (strcmp(lower, "x-api-key") == 0 || strcmp(lower, "authorization") == 0) && value &&
                  !strstr(value, "gauntlet-");
    mock_buf_add_json_cstr(walk->buf, secret ? "[redacted]" : value);
    return MHD_YES;
}

static void journal_request(gt_mock_server *server, struct MHD_Connection *connection, const journal_info *info)
{
    mock_buf buf;
    mock_buf_init(&buf);
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    char session_key[SCENARIO_NAME_MAX + RUN_ID_MAX + 2];
    snprintf(session_key, sizeof session_key, "%s/%s", info->sel->scenario[0] ? info->sel->scenario : "default",
             info->sel->run);
    mock_buf_reserve(&buf, 2048); /* an entry's usual size: no regrowth on the way */
    mock_buf_adds(&buf, "{\"seq\":");
    mock_buf_add_int(&buf, (long long)atomic_load(&server->requests));
    mock_buf_adds(&buf, ",\"time_ms\":");
    mock_buf_add_int(&buf, (long long)now.tv_sec * 1000 + now.tv_nsec / 1000000);
    mock_buf_adds(&buf, ",\"session\":");
    mock_buf_add_json_cstr(&buf, session_key);
    mock_buf_adds(&buf, ",\"scenario\":");
    mock_buf_add_json_cstr(&buf, info->sel->scenario[0] ? info->sel->scenario : NULL);
    mock_buf_adds(&buf, ",\"run\":");
    mock_buf_add_json_cstr(&buf, info->sel->run);
    mock_buf_adds(&buf, ",\"selected_by\":");
    mock_buf_add_json_cstr(&buf, info->sel->by);
    mock_buf_adds(&buf, ",\"method\":");
    mock_buf_add_json_cstr(&buf, info->method);
    mock_buf_adds(&buf, ",\"path\":");
    mock_buf_add_json_cstr(&buf, info->url);
    mock_buf_adds(&buf, ",\"route\":");
    mock_buf_add_json_cstr(&buf, info->route);
    const char *beta = query(connection, "beta");
    mock_buf_adds(&buf, ",\"query\":{");
    if (beta) {
        mock_buf_adds(&buf, "\"beta\":");
        mock_buf_add_json_cstr(&buf, beta);
    }
    mock_buf_adds(&buf, "},\"headers\":{");
    header_walk walk = {&buf, 0};
    MHD_get_connection_values(connection, MHD_HEADER_KIND, add_header, &walk);
    mock_buf_adds(&buf, "}");
    bool body_wanted = !server->quiet_journal_bodies || info->sel->scenario[0];
    if (body_wanted && info->json) {
        /* as cJSON_PrintUnformatted prints it, straight into the entry */
        size_t before = buf.len;
        mock_buf_adds(&buf, ",\"body\":");
        if (!mock_buf_add_cjson(&buf, info->json))
            mock_buf_truncate(&buf, before);
    } else if (body_wanted && info->body_len > 0) {
        mock_buf_adds(&buf, ",\"body_text\":");
        mock_buf_add_json_string(&buf, info->body, info->body_len > 65536 ? 65536 : info->body_len);
    }
    mock_buf_adds(&buf, ",\"turn\":");
    if (info->turn >= 0)
        mock_buf_add_int(&buf, info->turn);
    else
        mock_buf_adds(&buf, "null");
    mock_buf_adds(&buf, info->side ? ",\"side\":true" : ",\"side\":false");
    mock_buf_adds(&buf, info->stream ? ",\"stream\":true" : ",\"stream\":false");
    mock_buf_adds(&buf, ",\"status\":");
    mock_buf_add_int(&buf, info->status);
    mock_buf_adds(&buf, ",\"request_id\":");
    mock_buf_add_json_cstr(&buf, info->request_id);
    mock_buf_adds(&buf, ",\"deviations\":[");
    for (size_t i = 0; i < info->deviation_count; i++) {
        if (i)
            mock_buf_adds(&buf, ",");
        mock_buf_add_json_cstr(&buf, info->deviations[i]);
    }
    mock_buf_adds(&buf, "],\"faults\":[");
    if (info->faults) {
        const mock_faults *f = info->faults;
        const char *names[16];
        size_t n = 0;
        if (f->latency_ms >= 0) names[n++] = "latency";
        if (f->drip_bytes > 0) names[n++] = "drip";
        if (f->cut_after_bytes >= 0 || f->cut_after_event >= 0) names[n++] = "cut";
        if (f->malformed_after_event >= 0) names[n++] = "malformed_sse";
        if (f->content_type) names[n++] = "content_type";
        if (f->reset) names[n++] = "reset";
        if (f->oversized_bytes > 0) names[n++] = "oversized";
        if (f->status > 0 || f->body) names[n++] = "http_error";
        for (size_t i = 0; i < info->extra_fault_count; i++) {
            bool listed = false;
            for (size_t j = 0; j < n; j++)
                listed = listed || strcmp(names[j], info->extra_faults[i]) == 0;
            if (!listed)
                names[n++] = info->extra_faults[i];
        }
        for (size_t i = 0; i < n; i++)
            mock_buf_addf(&buf, "%s\"%s\"", i ? "," : "", names[i]);
    }
    mock_buf_addf(&buf, "],\"beyond_script\":%s", info->beyond_script ? "true" : "false");
    if (info->answer_form) {
        mock_buf_adds(&buf, ",\"answer_form\":");
        mock_buf_adds(&buf, info->answer_form);
    }
    if (info->derive) {
        mock_buf_adds(&buf, ",\"derive\":");
        mock_buf_adds(&buf, info->derive);
    }
    mock_buf_adds(&buf, "}");
    if (!buf.failed)
        mock_journal_add(server->journal, session_key, buf.data, buf.len);
    mock_buf_free(&buf);
}

/* ---- responses ------------------------------------------------------------ */

static enum MHD_Result queue_reply(gt_mock_server *server, struct MHD_Connection *connection, mock_reply *reply,
                                   const char *request_id)
{
    if (reply->faults.reset) {
        /* SO_LINGER 0 turns the close into a TCP RST */
        const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
        if (info) {
            struct linger linger = {1, 0};
            setsockopt(info->connect_fd, SOL_SOCKET, SO_LINGER, &linger, sizeof linger);
        }
        return MHD_NO;
    }
    struct MHD_Response *response = mock_response_create(reply, connection, server->timer, &server->stopping);
    if (response == NULL)
        return MHD_NO;
    MHD_add_response_header(response, MHD_HTTP_HEADER_CONTENT_TYPE, reply->content_type);
    if (!reply->faults.no_request_id) {
        MHD_add_response_header(response, "request-id", request_id);
        MHD_add_response_header(response, "x-request-id", request_id);
    }
    if (reply->stream) {
        MHD_add_response_header(response, MHD_HTTP_HEADER_CACHE_CONTROL, "no-cache");
    }
    if (reply->retry_after >= 0) {
        char value[32];
        snprintf(value, sizeof value, "%d", reply->retry_after);
        MHD_add_response_header(response, "retry-after", value);
    }
    if (reply->notices_header)
        MHD_add_response_header(response, "x-gauntlet-notices", reply->notices_header);
    if (reply->turn_header[0])
        MHD_add_response_header(response, "x-gauntlet-turn", reply->turn_header);
    if (reply->beyond_script)
        MHD_add_response_header(response, "x-gauntlet-beyond-script", "true");
    if (reply->provider_header[0])
        MHD_add_response_header(response, "x-gauntlet-provider", reply->provider_header);
    enum MHD_Result rc = MHD_queue_response(connection, (unsigned)reply->status, response);
    MHD_destroy_response(response);
    return rc;
}

/* Hold `reply` (taken: it becomes empty) and `scenario` (its reference
 * taken) in `state` for the latency of its turn: the connection is parked
 * on the timer, and the handler queues the reply when it resumes. MHD_NO
 * when the server is stopping. */
static enum MHD_Result hold_reply(gt_mock_server *server, struct MHD_Connection *connection, request_state *state,
                                  mock_reply *reply, mock_scenario *scenario, const char *request_id)
{
    held_reply *held = malloc(sizeof *held);
    if (held == NULL) {
        mock_scenario_release(scenario);
        return MHD_NO;
    }
    held->reply = *reply;
    mock_reply_init(reply);
    held->scenario = scenario;
    snprintf(held->request_id, sizeof held->request_id, "%s", request_id);
    state->held = held; /* request_completed frees it if the connection ends first */
    return mock_timer_park(server->timer, connection, held->reply.faults.latency_ms) ? MHD_YES : MHD_NO;
}

static void release_held(request_state *state)
{
    if (state->held == NULL)
        return;
    mock_reply_free(&state->held->reply);
    mock_scenario_release(state->held->scenario);
    free(state->held);
    state->held = NULL;
}

/* A tool whose schema is present but not a JSON object (Anthropic
 * `input_schema`, Chat Completions `function.parameters`, Responses
 * `parameters`): the message the API answers into `message`; true when so. */
static bool tool_schema_not_object(const cJSON *body, mock_api api, char *message, size_t message_len)
{
    int index = 0;
    const cJSON *tool;
    cJSON_ArrayForEach(tool, cJSON_GetObjectItemCaseSensitive(body, "tools"))
    {
        const char *key = api == MOCK_API_OPENAI ? "parameters" : api == MOCK_API_RESPONSES ? "parameters" : "input_schema";
        const cJSON *holder = api == MOCK_API_OPENAI ? cJSON_GetObjectItemCaseSensitive(tool, "function") : tool;
        const cJSON *schema = cJSON_GetObjectItemCaseSensitive(holder, key);
        if (schema != NULL && !cJSON_IsObject(schema)) {
            snprintf(message, message_len, "tools.%d.%s%s: Input should be a valid dictionary", index,
                     api == MOCK_API_OPENAI ? "function." : "", key);
            return true;
        }
        index++;
    }
    return false;
}

/* A scripted 400 whose message names a tool field ("tools.0.strict: Extra
 * inputs are not permitted") that the request's tool does not carry: no real
 * provider answers a request so. Writes the journal's answer_form note (the
 * case cannot be expressed for this client) into `note`; true when so. */
static bool names_absent_field(const cJSON *body, const char *message, char *note, size_t note_len)
{
    unsigned index;
    char field[64];
    int used = 0;
    if (message == NULL || sscanf(message, "tools.%u.%63[A-Za-z_]:%n", &index, field, &used) != 2 || used == 0)
        return false;
    const cJSON *tool = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(body, "tools"), (int)index);
    const cJSON *function = cJSON_GetObjectItemCaseSensitive(tool, "function"); /* Chat Completions */
    if (tool == NULL || cJSON_GetObjectItemCaseSensitive(tool, field) != NULL ||
        (function && cJSON_GetObjectItemCaseSensitive(function, field) != NULL))
        return false;
    snprintf(note, note_len,
             "{\"expressible\":false,\"inexpressible\":\"the script answers a 400 naming tools.%u.%s, a field "
             "this request's tool does not carry\"}",
             index, field);
    return true;
}

static int error_reply(mock_api api, mock_reply *reply, int status, const char *type, const char *message,
                       const char *request_id)
{
    if (api != MOCK_API_ANTHROPIC)
        return mock_openai_error(reply, status, type, message);
    return mock_anthropic_error(reply, status, type ? type : mock_anthropic_error_type(status), message, request_id);
}

/* ---- the scripted turn ---------------------------------------------------- */

static bool body_has_strict(const cJSON *body)
{
    const cJSON *tool;
    cJSON_ArrayForEach(tool, cJSON_GetObjectItemCaseSensitive(body, "tools"))
    {
        if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(tool, "strict")))
            return true;
        const cJSON *function = cJSON_GetObjectItemCaseSensitive(tool, "function");
        if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(function, "strict")))
            return true;
    }
    const cJSON *format = cJSON_GetObjectItemCaseSensitive(body, "response_format");
    if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(format, "json_schema"), "strict")))
        return true;
    const cJSON *text_format = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(body, "text"), "format");
    if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(text_format, "strict")))
        return true; /* Responses API */
    const cJSON *output = cJSON_GetObjectItemCaseSensitive(body, "output_config");
    return cJSON_GetObjectItemCaseSensitive(output, "format") != NULL ||
           cJSON_GetObjectItemCaseSensitive(body, "output_format") != NULL;
}

static bool body_has_tool(const cJSON *body, const char *name)
{
    const cJSON *tool;
    cJSON_ArrayForEach(tool, cJSON_GetObjectItemCaseSensitive(body, "tools"))
    {
        const cJSON *tool_name = cJSON_GetObjectItemCaseSensitive(tool, "name");
        if (!cJSON_IsString(tool_name))
            tool_name = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(tool, "function"), "name");
        if (cJSON_IsString(tool_name) && strcmp(tool_name->valuestring, name) == 0)
            return true;
    }
    return false;
}

/* Whether the request answers tool_use `id`: a tool_result block (Anthropic)
 * or a role:"tool" message (OpenAI) naming it. */
static bool body_answers_tool(const cJSON *body, const char *id)
{
    const cJSON *message;
    cJSON_ArrayForEach(message, cJSON_GetObjectItemCaseSensitive(body, "messages"))
    {
        const cJSON *call_id = cJSON_GetObjectItemCaseSensitive(message, "tool_call_id");
        if (cJSON_IsString(call_id) && strcmp(call_id->valuestring, id) == 0)
            return true;
        const cJSON *block;
        cJSON_ArrayForEach(block, cJSON_GetObjectItemCaseSensitive(message, "content"))
        {
            const cJSON *use_id = cJSON_GetObjectItemCaseSensitive(block, "tool_use_id");
            if (cJSON_IsString(use_id) && strcmp(use_id->valuestring, id) == 0)
                return true;
        }
    }
    const cJSON *item; /* Responses API: {"type":"function_call_output","call_id":...} input items */
    cJSON_ArrayForEach(item, cJSON_GetObjectItemCaseSensitive(body, "input"))
    {
        const cJSON *call_id = cJSON_GetObjectItemCaseSensitive(item, "call_id");
        const cJSON *type = cJSON_GetObjectItemCaseSensitive(item, "type");
        if (cJSON_IsString(call_id) && strcmp(call_id->valuestring, id) == 0 && cJSON_IsString(type) &&
            strcmp(type->valuestring, "function_call_output") == 0)
            return true;
    }
    return false;
}

typedef struct play {
    bool played;             /* `reply` holds the scripted response */
    bool beyond_script;      /* every turn was played before this request (after_script applies) */
    bool end_turn_text;      /* answer MOCK_AFTER_SCRIPT_TEXT (after_script "end_turn_text") */
    bool on_wire_fallback;   /* the reply's fallback is played on the wire (mock_fallback_on_wire) */
    const char *stream_fault; /* a scripted stream sent as-is that is itself a fault: "cut", "malformed_sse",
                                 "stream_error" (journal), or NULL */
    gt_loop_reply reply;
    const mock_turn_ext *ext;
    bool cut;                /* the stream ends abruptly after its bytes: a scripted `cut`, or a derived cut-at */
    char derive_note[700];   /* the journal's "derive" object (derive.c), or "" */
    char derive_inexpressible[400]; /* the derive operator cannot apply to the client's schema, or "" */
    long index;
    bool side;
    int error_status;        /* answer this error instead */
    const char *error_type;
    char error_message[600];
    char deviation_text[4][200];
    size_t deviation_count;
    mock_scenario *hold;     /* reference kept while the turn is rendered: the reply points into its script */
} play;

static void add_deviation(play *p, const char *fmt, const char *arg)
{
    if (p->deviation_count < 4)
        snprintf(p->deviation_text[p->deviation_count++], sizeof p->deviation_text[0], fmt, arg ? arg : "");
}

/* Remember the tool_use ids of a complete response: the next request must
 * answer each with a tool_result. */
static void set_pending(session *s, const gt_message *message)
{
    for (size_t i = 0; i < s->pending_count; i++)
        free(s->pending_tools[i]);
    s->pending_count = 0;
    if (message == NULL || message->block_count == 0)
        return;
    char **grown = realloc(s->pending_tools, message->block_count * sizeof *grown);
    if (grown == NULL)
        return;
    s->pending_tools = grown;
    for (size_t i = 0; i < message->block_count; i++)
        if (message->blocks[i].type == GT_BLOCK_TOOL_USE && message->blocks[i].id)
            if ((s->pending_tools[s->pending_count] = strdup(message->blocks[i].id)) != NULL)
                s->pending_count++;
}

/* Take the next turn of the session's script for this request. Called with
 * the scenario lock held for reading; takes the session lock itself. */
static void play_script(gt_mock_server *server, mock_scenario *scenario, const char *session_key,
                        const mock_request *request, const char *raw_body, gt_arena *arena, play *p)
{
    /* a client asking for its answer in another form (form.c) is on its main loop */
    if (scenario->side_tool && !body_has_tool(request->body, scenario->side_tool) &&
        request->form.kind == MOCK_FORM_AS_SCRIPTED) {
        p->side = true;
        mock_scenario_retain(scenario);
        p->hold = scenario;
        return;
    }
    pthread_mutex_lock(&server->session_lock);
    session *s = session_lookup(server, session_key, true);
    if (s != NULL && s->scenario == NULL) {
        mock_scenario_retain(scenario);
        s->scenario = scenario;
        s->cursor = 0;
    }
    if (s == NULL) {
        pthread_mutex_unlock(&server->session_lock);
        p->error_status = 500;
        p->error_type = "api_error";
        snprintf(p->error_message, sizeof p->error_message, "gauntlet mock: cannot start the scenario (out of memory)");
        return;
    }
    mock_scenario *sc = s->scenario;
    mock_scenario_retain(sc);
    p->hold = sc;
    gt_loop_request loop_request;
    memset(&loop_request, 0, sizeof loop_request);
    loop_request.api_attempt = ++s->requests;
    loop_request.model_turn = s->requests;
    char err[256] = "";
    p->beyond_script = gt_loop_script_unplayed_at(sc->script, s->cursor) == 0;
    if (p->beyond_script && sc->after_script == MOCK_AFTER_END_TURN_TEXT) {
        /* the script is over; the model keeps playing a model that has nothing more to say */
        set_pending(s, NULL);
        pthread_mutex_unlock(&server->session_lock);
        p->end_turn_text = true;
        return;
    }
    int sent = p->beyond_script && sc->after_script == MOCK_AFTER_REPEAT_LAST
                   ? gt_loop_script_replay_last(sc->script, arena, &p->reply, err, sizeof err)
                   : gt_loop_script_play_at(sc->script, &s->cursor, &loop_request, arena, &p->reply, err, sizeof err);
    if (sent != 0) {
        p->index = -1;
        pthread_mutex_unlock(&server->session_lock);
        add_deviation(p, "script exhausted: %s", err);
        p->error_status = 400;
        p->error_type = "invalid_request_error";
        snprintf(p->error_message, sizeof p->error_message, "gauntlet mock: scenario '%s': %s", sc->name, err);
        return;
    }
    p->played = true;
    p->index = (long)p->reply.turn;
    p->ext = p->reply.turn < sc->turn_count ? &sc->turns[p->reply.turn] : NULL;
    const mock_turn_ext *ext = p->ext;
    const gt_derive_spec *derive = gt_loop_script_turn_derive(sc->script, p->reply.turn);
    p->cut = (ext && ext->cut) || (derive && derive->op == GT_DERIVE_CUT_AT && !derive->max_tokens);
    if (ext == NULL || ext->expect.tool_results)
        for (size_t i = 0; i < s->pending_count; i++)
            if (!body_answers_tool(request->body, s->pending_tools[i]))
                add_deviation(p, "no tool_result for %s", s->pending_tools[i]);
    /* what the next request must answer */
    const gt_message *complete = NULL;
    bool faulted = ext && (ext->faults.cut_after_bytes >= 0 || ext->faults.cut_after_event >= 0 || ext->faults.reset ||
                           ext->faults.status > 0 || ext->faults.body);
    if (!faulted && p->reply.kind == GT_LOOP_REPLY_MESSAGE)
        complete = p->reply.message;
    gt_stream_result assembled;
    if (!faulted && p->reply.kind == GT_LOOP_REPLY_STREAM && !p->cut &&
        gt_stream_assemble(p->reply.provider, p->reply.sse, p->reply.sse_len, arena, &assembled) == GT_STREAM_OK)
        complete = assembled.message;
    p->on_wire_fallback = !request->mirror && mock_fallback_on_wire(&p->reply, arena);
    if (p->on_wire_fallback)
        complete = NULL; /* the client never gets the message whole: nothing to answer */
    set_pending(s, complete);
    if (p->reply.kind == GT_LOOP_REPLY_STREAM && !faulted) {
        gt_stream_result sent_as_is;
        gt_stream_reason why = gt_stream_assemble(p->reply.provider, p->reply.sse, p->reply.sse_len, arena, &sent_as_is);
        p->stream_fault = p->cut                                ? "cut"
                          : why == GT_STREAM_TRUNCATED          ? "cut"
                          : why == GT_STREAM_PROVIDER_ERROR     ? "stream_error"
                          : why >= GT_STREAM_SSE_BAD_JSON && why <= GT_STREAM_SSE_OUT_OF_ORDER ? "malformed_sse"
                                                                : NULL;
    }
    pthread_mutex_unlock(&server->session_lock);
    /* a derive turn: the answer computed again from the schema this client sent (outside the lock: it
     * compiles the schema); its tool ids are the script's, so the pending tool results above still hold */
    if (derive && mock_derive_apply(request, derive, arena, &p->reply, p->derive_note, sizeof p->derive_note,
                                    p->derive_inexpressible, sizeof p->derive_inexpressible) != 0) {
        p->played = false;
        p->error_status = 500;
        p->error_type = "api_error";
        snprintf(p->error_message, sizeof p->error_message, "gauntlet mock: out of memory deriving turn %ld",
                 p->index);
        return;
    }
    if (ext) {
        if (ext->expect.stream >= 0 && ext->expect.stream != (int)request->stream)
            add_deviation(p, "expected stream %s", ext->expect.stream ? "true" : "false");
        if (ext->expect.strict >= 0 && ext->expect.strict != (int)body_has_strict(request->body))
            add_deviation(p, "expected strict %s", ext->expect.strict ? "present" : "absent");
        if (ext->expect.contains && (raw_body == NULL || strstr(raw_body, ext->expect.contains) == NULL))
            add_deviation(p, "expected the request to contain \"%s\"", ext->expect.contains);
    }
    if (p->deviation_count > 0 && !sc->on_deviation.serve) {
        p->played = false;
        p->error_status = sc->on_deviation.status;
        p->error_type = sc->on_deviation.type;
        snprintf(p->error_message, sizeof p->error_message, "%s",
                 sc->on_deviation.message ? sc->on_deviation.message : p->deviation_text[0]);
    }
}

/* ---- the handler ---------------------------------------------------------- */

typedef enum route_kind {
    ROUTE_MESSAGES,
    ROUTE_COUNT_TOKENS,
    ROUTE_MODELS,
    ROUTE_MODEL,
    ROUTE_CHAT,
    ROUTE_RESPONSES,
    ROUTE_HEALTH,
    ROUTE_JOURNAL,
    ROUTE_SCENARIOS,
    ROUTE_RESET,
    ROUTE_UNKNOWN
} route_kind;

static route_kind route_of(const char *route, const char *method, const char **wanted_method)
{
    static const struct {
        const char *path;
        const char *method;
        route_kind kind;
    } routes[] = {
        {"/v1/messages", "POST", ROUTE_MESSAGES},
        {"/v1/messages/count_tokens", "POST", ROUTE_COUNT_TOKENS},
        {"/v1/models", "GET", ROUTE_MODELS},
        {"/v1/chat/completions", "POST", ROUTE_CHAT},
        {"/chat/completions", "POST", ROUTE_CHAT},
        {"/v1/responses", "POST", ROUTE_RESPONSES},
        {"/responses", "POST", ROUTE_RESPONSES},
        {"/_gauntlet/health", "GET", ROUTE_HEALTH},
        {"/", "GET", ROUTE_HEALTH}, /* clients probing the base URL */
        {"/_gauntlet/journal", "GET", ROUTE_JOURNAL},
        {"/_gauntlet/scenarios", NULL, ROUTE_SCENARIOS},
        {"/_gauntlet/reset", "POST", ROUTE_RESET},
    };
    size_t len = strlen(route);
    while (len > 1 && route[len - 1] == '/')
        len--;
    for (size_t i = 0; i < sizeof routes / sizeof routes[0]; i++) {
        if (strlen(routes[i].path) == len && strncmp(route, routes[i].path, len) == 0) {
            *wanted_method = routes[i].method;
            return routes[i].kind;
        }
    }
    if (strncmp(route, "/v1/models/", 11) == 0 && route[11]) {
        *wanted_method = "GET";
        return ROUTE_MODEL;
    }
    (void)method;
    *wanted_method = NULL;
    return ROUTE_UNKNOWN;
}

static void request_completed(void *cls, struct MHD_Connection *connection, void **con_cls,
                              enum MHD_RequestTerminationCode toe)
{
    gt_mock_server *server = cls;
    (void)toe;
    if (server->guard)
        mock_guard_request_done(server->guard, connection);
    request_state *state = *con_cls;
    if (state) {
        mock_buf_free(&state->body);
        release_held(state);
        free(state);
        *con_cls = NULL;
    }
}

static enum MHD_Result send_simple(gt_mock_server *server, struct MHD_Connection *connection, mock_reply *reply,
                                   const char *request_id)
{
    enum MHD_Result rc = queue_reply(server, connection, reply, request_id);
    mock_reply_free(reply);
    return rc;
}

static enum MHD_Result handle_control(gt_mock_server *server, struct MHD_Connection *connection, route_kind kind,
                                      const char *method, const selection *sel, request_state *state,
                                      const char *request_id)
{
    mock_reply reply;
    mock_reply_init(&reply);
    const char *session_arg = query(connection, "session");
    char session_key[SCENARIO_NAME_MAX + RUN_ID_MAX + 2];
    if (session_arg == NULL && strcmp(sel->by, "path") == 0) {
        snprintf(session_key, sizeof session_key, "%s/%s", sel->scenario, sel->run);
        session_arg = session_key;
    }
    switch (kind) {
    case ROUTE_HEALTH: {
        mock_buf buf;
        mock_buf_init(&buf);
        mock_buf_addf(&buf, "{\"ok\":true,\"scenarios\":%zu,\"requests\":%lu}", server->scenario_count,
                      atomic_load(&server->requests));
        reply.body = mock_buf_take(&buf, &reply.body_len);
        break;
    }
    case ROUTE_JOURNAL:
        reply.body = mock_journal_dump(server->journal, session_arg);
        reply.body_len = reply.body ? strlen(reply.body) : 0;
        break;
    case ROUTE_RESET:
        gt_mock_reset(server, session_arg);
        reply.body = strdup("{\"ok\":true}");
        reply.body_len = reply.body ? strlen(reply.body) : 0;
        break;
    case ROUTE_SCENARIOS:
        if (strcmp(method, "POST") == 0 || strcmp(method, "PUT") == 0) {
            const char *name = query(connection, "name");
            char err[256] = "";
            if (name == NULL || state->body.data == NULL) {
                mock_anthropic_error(&reply, 400, NULL, "POST /_gauntlet/scenarios?name=NAME with the script as body",
                                     request_id);
            } else if (gt_mock_add_scenario(server, name, state->body.data, NULL, err, sizeof err) != 0) {
                mock_anthropic_error(&reply, 400, NULL, err, request_id);
            } else {
                reply.status = 201;
                reply.body = strdup("{\"ok\":true}");
                reply.body_len = reply.body ? strlen(reply.body) : 0;
            }
        } else {
            mock_buf buf;
            mock_buf_init(&buf);
            mock_buf_adds(&buf, "{\"scenarios\":[");
            pthread_rwlock_rdlock(&server->scenario_lock);
            for (size_t i = 0; i < server->scenario_count; i++) {
                if (i)
                    mock_buf_adds(&buf, ",");
                mock_buf_add_json_cstr(&buf, server->scenarios[i]->name);
            }
            pthread_rwlock_unlock(&server->scenario_lock);
            mock_buf_adds(&buf, "]}");
            reply.body = mock_buf_take(&buf, &reply.body_len);
        }
        break;
    default:
        break;
    }
    if (reply.body == NULL)
        mock_anthropic_error(&reply, 500, NULL, "out of memory", request_id);
    return send_simple(server, connection, &reply, request_id);
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *connection, const char *url, const char *method,
                              const char *version, const char *upload_data, size_t *upload_data_size,
                              void **con_cls)
{
    (void)version;
    gt_mock_server *server = cls;
    request_state *state = *con_cls;
    if (state == NULL) {
        state = calloc(1, sizeof *state);
        if (state == NULL)
            return MHD_NO;
        *con_cls = state;
        if (server->guard)
            mock_guard_head_done(server->guard, connection); /* the head arrived in time */
        /* libmicrohttpd decodes only "chunked": any other transfer coding
         * (even "chunked, identity") would leave it waiting for a body it
         * cannot delimit, so it is answered 501 before any body is read */
        const char *coding = header(connection, "transfer-encoding");
        if (coding != NULL && strcasecmp(coding, "chunked") != 0) {
            char request_id[40];
            new_request_id(server, request_id, sizeof request_id);
            char message[300];
            snprintf(message, sizeof message,
                     "gauntlet mock: Transfer-Encoding '%.200s' is not supported (only 'chunked')", coding);
            mock_reply reply;
            mock_reply_init(&reply);
            error_reply(MOCK_API_ANTHROPIC, &reply, 501, "api_error", message, request_id);
            return send_simple(server, connection, &reply, request_id);
        }
        return MHD_YES;
    }
    if (state->held != NULL) { /* resumed by the timer: the turn's latency has passed */
        enum MHD_Result rc =
            server->stopping ? MHD_NO : queue_reply(server, connection, &state->held->reply, state->held->request_id);
        release_held(state);
        return rc;
    }
    if (*upload_data_size > 0) {
        if (!state->too_large) {
            if (state->body.len + *upload_data_size > server->max_body) {
                state->too_large = true;
                mock_buf_free(&state->body);
            } else {
                mock_buf_add(&state->body, upload_data, *upload_data_size);
            }
        }
        *upload_data_size = 0;
        return MHD_YES;
    }

    atomic_fetch_add(&server->requests, 1);
    char request_id[40];
    new_request_id(server, request_id, sizeof request_id);
    selection sel;
    select_scenario(connection, url, &sel);
    const char *wanted = NULL;
    route_kind kind = route_of(sel.route, method, &wanted);
    mock_api api = kind == ROUTE_RESPONSES || strstr(sel.route, "/responses") ? MOCK_API_RESPONSES
                   : kind == ROUTE_CHAT || strstr(sel.route, "/chat/")   ? MOCK_API_OPENAI
                                                                        : MOCK_API_ANTHROPIC;

    journal_info info = {.method = method, .url = url, .route = sel.route, .sel = &sel, .turn = -1,
                         .request_id = request_id};
    mock_reply reply;
    mock_reply_init(&reply);
    cJSON *body = NULL;
    play p;
    memset(&p, 0, sizeof p);
    p.index = -1;
    gt_arena *arena = NULL;

    if (kind == ROUTE_UNKNOWN) {
        char message[300];
        snprintf(message, sizeof message, "gauntlet mock: no route %s %.200s", method, sel.route);
        error_reply(api, &reply, 404, "not_found_error", message, request_id);
        goto respond;
    }
    bool head_of_get = wanted && strcmp(wanted, "GET") == 0 && strcmp(method, "HEAD") == 0;
    if (wanted && strcmp(method, wanted) != 0 && !head_of_get && kind != ROUTE_SCENARIOS) {
        char message[300];
        snprintf(message, sizeof message, "gauntlet mock: %.200s takes %s, not %.20s", sel.route, wanted, method);
        error_reply(api, &reply, 405, "invalid_request_error", message, request_id);
        goto respond;
    }
    if (state->too_large) {
        char message[200];
        snprintf(message, sizeof message, "gauntlet mock: request body over the limit of %zu bytes", server->max_body);
        error_reply(api, &reply, 413, "request_too_large", message, request_id);
        goto respond;
    }
    if (sel.run_too_long) {
        char message[300];
        snprintf(message, sizeof message,
                 "gauntlet mock: the run id in %s is %zu bytes, over the limit of %d bytes (a run id is never cut)",
                 sel.run_too_long, sel.run_too_long_len, RUN_ID_MAX);
        error_reply(api, &reply, 400, "invalid_request_error", message, request_id);
        goto respond;
    }
    if (kind >= ROUTE_HEALTH && kind <= ROUTE_RESET) {
        enum MHD_Result rc = handle_control(server, connection, kind, method, &sel, state, request_id);
        return rc;
    }
    if (kind == ROUTE_MODELS || kind == ROUTE_MODEL) {
        mock_models_list(&reply, kind == ROUTE_MODEL ? sel.route + 11 : NULL);
        goto respond;
    }

    /* POST endpoints: a JSON object body */
    if (state->body.len > 0) {
        const char *end = NULL;
        body = cJSON_ParseWithOpts(state->body.data, &end, 1);
        info.body = state->body.data;
        info.body_len = state->body.len;
    }
    info.json = body;
    if (!cJSON_IsObject(body)) {
        error_reply(api, &reply, 400, "invalid_request_error",
                    state->body.len == 0 ? "gauntlet mock: the request needs a JSON body"
                                         : "gauntlet mock: the request body is not a JSON object",
                    request_id);
        goto respond;
    }
    mock_request request = {.api = api, .path = sel.route, .body = body};
    snprintf(request.request_id, sizeof request.request_id, "%s", request_id);
    const cJSON *model = cJSON_GetObjectItemCaseSensitive(body, "model");
    request.model = cJSON_IsString(model) ? model->valuestring : NULL;
    request.stream = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(body, "stream"));
    request.include_usage = cJSON_IsTrue(
        cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(body, "stream_options"), "include_usage"));
    info.stream = request.stream;
    mock_form_detect(body, api, &request.form);
    if (kind == ROUTE_COUNT_TOKENS) {
        mock_anthropic_count_tokens(&request, &reply);
        goto respond;
    }
    char bad_schema[160];
    if (tool_schema_not_object(body, api, bad_schema, sizeof bad_schema)) {
        /* the real APIs refuse a tool schema that is not an object ([] or true): 400, no model call */
        error_reply(api, &reply, 400, "invalid_request_error", bad_schema, request_id);
        goto respond;
    }

    /* a model call: which scenario, which turn */
    request.mirror = header(connection, "x-gauntlet-mirror") != NULL;
    arena = gt_arena_new();
    if (arena == NULL) {
        error_reply(api, &reply, 500, "api_error", "gauntlet mock: out of memory", request_id);
        goto respond;
    }
    if (sel.scenario[0]) {
        char session_key[SCENARIO_NAME_MAX + RUN_ID_MAX + 2];
        snprintf(session_key, sizeof session_key, "%s/%s", sel.scenario, sel.run);
        pthread_rwlock_rdlock(&server->scenario_lock);
        long at = find_scenario_locked(server, sel.scenario);
        if (at < 0) {
            pthread_rwlock_unlock(&server->scenario_lock);
            char message[300];
            snprintf(message, sizeof message, "gauntlet mock: unknown scenario '%.200s'", sel.scenario);
            error_reply(api, &reply, 404, "not_found_error", message, request_id);
            goto respond;
        }
        play_script(server, server->scenarios[at], session_key, &request, state->body.data, arena, &p);
        pthread_rwlock_unlock(&server->scenario_lock);
        info.turn = p.index;
        info.side = p.side;
        info.beyond_script = p.beyond_script;
    }
    int rendered = 0;
    char absent_field[400] = "";
    const char *error_message = p.error_status > 0                                                  ? p.error_message
                                : p.played && p.reply.kind == GT_LOOP_REPLY_ERROR && p.reply.http_status == 400 ? p.reply.error_message
                                                                                                                : NULL;
    if (error_message && names_absent_field(body, error_message, absent_field, sizeof absent_field))
        info.answer_form = absent_field; /* a 400 the real API would not send this request */
    if (p.error_status > 0) {
        rendered = error_reply(api, &reply, p.error_status, p.error_type, p.error_message, request_id);
    } else if (p.played) {
        const char *script_model = p.hold ? p.hold->model : NULL;
        if (p.derive_inexpressible[0])
            request.derive_inexpressible = p.derive_inexpressible;
        rendered = mock_render_reply(&request, &p.reply, p.cut, p.on_wire_fallback,
                                     p.ext ? p.ext->error_body : NULL, script_model, arena, &reply);
        if (rendered == 0 && p.derive_inexpressible[0])
            mock_form_note(&request, &reply); /* a stream sent verbatim writes no note of its own */
        if (rendered == 0 && p.ext)
            rendered = mock_faults_apply(&reply, &p.ext->faults);
    } else {
        /* no scenario, or a side request: the default turn */
        mock_turn side = server->default_turn;
        mock_block side_block = server->default_block;
        if (p.side && p.hold && p.hold->side_text) {
            side_block.text = p.hold->side_text;
            side_block.text_len = strlen(p.hold->side_text);
        } else if (p.end_turn_text) {
            side_block.text = (char *)MOCK_AFTER_SCRIPT_TEXT;
            side_block.text_len = strlen(MOCK_AFTER_SCRIPT_TEXT);
        }
        side.blocks = &side_block;
        rendered = mock_form_render(&request, &side, false, &reply);
    }
    if (rendered != 0) {
        mock_reply_free(&reply);
        mock_reply_init(&reply);
        error_reply(api, &reply, 500, "api_error", "gauntlet mock: out of memory", request_id);
    }
    info.faults = &reply.faults;
    if (p.stream_fault && reply.body && reply.provider_header[0]) /* sent as the script has it */
        info.extra_faults[info.extra_fault_count++] = p.stream_fault;
    if (p.on_wire_fallback) {
        info.extra_faults[info.extra_fault_count++] = "fallback";
        info.extra_faults[info.extra_fault_count++] = request.stream ? "stream_error" : "http_error";
    }
    if (reply.form_fault) /* the script's stream fault, re-applied in the client's form */
        info.extra_faults[info.extra_fault_count++] = reply.form_fault;
    if (reply.form_note[0])
        info.answer_form = reply.form_note;
    if (p.derive_note[0])
        info.derive = p.derive_note;

respond:
    info.status = reply.faults.reset ? 0 : reply.status;
    info.stream = reply.stream;
    for (size_t i = 0; i < p.deviation_count; i++)
        info.deviations[info.deviation_count++] = p.deviation_text[i];
    journal_request(server, connection, &info);
    reply.beyond_script = p.beyond_script;
    enum MHD_Result rc;
    if (reply.faults.latency_ms > 0 && !reply.faults.reset) {
        rc = hold_reply(server, connection, state, &reply, p.hold, request_id);
        p.hold = NULL;
    } else {
        rc = queue_reply(server, connection, &reply, request_id);
    }
    mock_reply_free(&reply);
    mock_scenario_release(p.hold);
    gt_arena_free(arena);
    cJSON_Delete(body);
    return rc;
}

/* ---- loading a corpus ----------------------------------------------------- */

static int load_scenario_files(gt_mock_server *server, const char *dir, int depth, char *err, size_t err_len)
{
    struct dirent **names = NULL;
    int count = scandir(dir, &names, NULL, alphasort);
    if (count < 0)
        return 0;
    int loaded = 0;
    for (int i = 0; i < count; i++) {
        const char *name = names[i]->d_name;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, name);
        struct stat st;
        size_t len = strlen(name);
        if (loaded >= 0 && name[0] != '.' && stat(path, &st) == 0) {
            if (S_ISDIR(st.st_mode) && depth < 32) {
                int more = load_scenario_files(server, path, depth + 1, err, err_len);
                loaded = more < 0 ? -1 : loaded + more;
            } else if (S_ISREG(st.st_mode) && len > 14 && strcmp(name + len - 14, ".scenario.json") == 0) {
                FILE *file = fopen(path, "rb");
                mock_buf buf;
                mock_buf_init(&buf);
                char chunk[8192];
                size_t n;
                while (file && (n = fread(chunk, 1, sizeof chunk, file)) > 0)
                    mock_buf_add(&buf, chunk, n);
                if (file)
                    fclose(file);
                char scenario_name[SCENARIO_NAME_MAX + 1];
                snprintf(scenario_name, sizeof scenario_name, "%.*s", (int)(len - 14), name);
                char inner[256];
                if (buf.data == NULL ||
                    gt_mock_add_scenario(server, scenario_name, buf.data, NULL, inner, sizeof inner) != 0) {
                    snprintf(err, err_len, "%s: %s", path, buf.data ? inner : "cannot read");
                    loaded = -1;
                } else {
                    loaded++;
                }
                mock_buf_free(&buf);
            }
        }
        free(names[i]);
    }
    free(names);
    return loaded;
}

int gt_mock_load_corpus(gt_mock_server *server, const char *path, char *err, size_t err_len)
{
    gt_corpus *corpus = gt_corpus_new();
    if (corpus == NULL || gt_corpus_load(corpus, path) < 0) {
        gt_corpus_free(corpus);
        snprintf(err, err_len, "out of memory");
        return -1;
    }
    int loaded = 0;
    for (size_t i = 0; i < gt_corpus_count(corpus); i++) {
        const gt_case *kase = gt_corpus_case(corpus, i);
        if (kase->input.case_json == NULL || strstr(kase->input.case_json, "\"script\"") == NULL)
            continue;
        if (strcmp(kase->input.gate, "loop") != 0 && strcmp(kase->input.gate, "stream") != 0)
            continue;
        char inner[256];
        if (gt_mock_add_scenario(server, kase->input.id, kase->input.case_json, kase->input.schema_json, inner,
                                 sizeof inner) != 0) {
            snprintf(err, err_len, "%s:%u: %s: %s", kase->file, kase->line, kase->input.id, inner);
            gt_corpus_free(corpus);
            return -1;
        }
        loaded++;
    }
    gt_corpus_free(corpus);
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        int more = load_scenario_files(server, path, 0, err, err_len);
        if (more < 0)
            return -1;
        loaded += more;
    }
    return loaded;
}

/* ---- lifecycle ------------------------------------------------------------- */

/* libmicrohttpd's event-loop threads: one per processor, at least two, at
 * most GT_MOCK_MAX_EVENT_THREADS (connections are spread over them; none of
 * them ever sleeps in a fault: mock_timer.h). */
static unsigned event_threads(void)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    if (cpus < 2)
        return 2;
    return cpus > GT_MOCK_MAX_EVENT_THREADS ? GT_MOCK_MAX_EVENT_THREADS : (unsigned)cpus;
}

static bool loopback(const char *host)
{
    return strcmp(host, "127.0.0.1") == 0 || strcmp(host, "localhost") == 0 || strncmp(host, "127.", 4) == 0 ||
           strcmp(host, "::1") == 0;
}

gt_mock_server *gt_mock_start(const gt_mock_options *options, char *err, size_t err_len)
{
    gt_mock_options defaults = {0};
    if (options == NULL)
        options = &defaults;
    const char *host = options->host ? options->host : "127.0.0.1";
    if (strcmp(host, "localhost") == 0)
        host = "127.0.0.1";
    if (!loopback(host) && !options->allow_remote) {
        snprintf(err, err_len, "refusing to bind %s: only loopback unless --allow-remote is given", host);
        return NULL;
    }
    struct sockaddr_storage addr;
    memset(&addr, 0, sizeof addr);
    bool ipv6 = strchr(host, ':') != NULL;
    struct sockaddr_in *addr4 = (struct sockaddr_in *)&addr;
    struct sockaddr_in6 *addr6 = (struct sockaddr_in6 *)&addr;
    if (ipv6) {
        addr6->sin6_family = AF_INET6;
        addr6->sin6_port = htons((uint16_t)options->port);
    } else {
        addr4->sin_family = AF_INET;
        addr4->sin_port = htons((uint16_t)options->port);
    }
    if (ipv6 ? inet_pton(AF_INET6, host, &addr6->sin6_addr) != 1 : inet_pton(AF_INET, host, &addr4->sin_addr) != 1) {
        snprintf(err, err_len, "not an IPv4 or IPv6 address: %s", host);
        return NULL;
    }
    gt_mock_server *server = calloc(1, sizeof *server);
    if (server == NULL) {
        snprintf(err, err_len, "out of memory");
        return NULL;
    }
    server->max_body = options->max_body ? options->max_body : GT_MOCK_DEFAULT_MAX_BODY;
    server->max_sessions = options->max_sessions ? options->max_sessions : GT_MOCK_MAX_SESSIONS;
    server->quiet_journal_bodies = options->quiet_journal_bodies;
    pthread_rwlock_init(&server->scenario_lock, NULL);
    pthread_mutex_init(&server->session_lock, NULL);
    atomic_init(&server->requests, 0);
    atomic_init(&server->ids, 0);
    server->journal = mock_journal_new(options->journal_path, options->journal_entries, err, err_len);
    if (server->journal == NULL) {
        gt_mock_stop(server);
        return NULL;
    }
    /* the turn answered when no scenario is selected (and to side requests) */
    server->default_block.kind = MOCK_BLOCK_TEXT;
    server->default_block.text = (char *)"gauntlet mock: no scenario selected";
    server->default_block.text_len = strlen(server->default_block.text);
    server->default_turn.blocks = &server->default_block;
    server->default_turn.block_count = 1;
    server->default_turn.stop_reason = "end_turn";
    server->default_turn.input_tokens = 10;
    server->default_turn.output_tokens = 8;

    if (options->corpus_dir && gt_mock_load_corpus(server, options->corpus_dir, err, err_len) < 0) {
        gt_mock_stop(server);
        return NULL;
    }
    /* the request-head deadline and the per-address cap (loopback spared)
     * are the guard's (guard.c); the total cap and the idle timeout stay
     * libmicrohttpd's */
    server->guard = mock_guard_new(options->head_timeout_ms ? options->head_timeout_ms
                                                            : (unsigned)GT_MOCK_REQUEST_HEAD_TIMEOUT_MS,
                                   (unsigned)GT_MOCK_MAX_CONNECTIONS_PER_IP);
    server->timer = mock_timer_new();
    if (server->guard == NULL || server->timer == NULL) {
        snprintf(err, err_len, "out of memory");
        gt_mock_stop(server);
        return NULL;
    }
    /* poll(), not select(): with select a connection whose descriptor is
     * >= FD_SETSIZE (1024) is refused, so ~1,000 idle connections locked every
     * other client out. Limits and timeout: mock.h (slowloris). */
    server->daemon = MHD_start_daemon(
        MHD_USE_AUTO_INTERNAL_THREAD | MHD_ALLOW_SUSPEND_RESUME | (ipv6 ? MHD_USE_IPv6 : 0), 0, NULL, NULL, handle,
        server, MHD_OPTION_THREAD_POOL_SIZE, event_threads(), MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&addr,
        MHD_OPTION_NOTIFY_COMPLETED,
        request_completed, server, MHD_OPTION_NOTIFY_CONNECTION, mock_guard_notify, server->guard,
        MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)GT_MOCK_CONNECTION_MEMORY, MHD_OPTION_CONNECTION_TIMEOUT,
        (unsigned)GT_MOCK_CONNECTION_TIMEOUT_S, MHD_OPTION_CONNECTION_LIMIT, (unsigned)GT_MOCK_MAX_CONNECTIONS,
        MHD_OPTION_LISTEN_BACKLOG_SIZE, (unsigned)1024, MHD_OPTION_END);
    if (server->daemon == NULL) {
        snprintf(err, err_len, "cannot listen on %s:%u (%s)", host, options->port, strerror(errno ? errno : EADDRINUSE));
        gt_mock_stop(server);
        return NULL;
    }
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(server->daemon, MHD_DAEMON_INFO_BIND_PORT);
    server->port = info ? info->port : options->port;
    snprintf(server->base_url, sizeof server->base_url, ipv6 ? "http://[%s]:%u" : "http://%s:%u", host, server->port);
    return server;
}

const char *gt_mock_base_url(const gt_mock_server *server)
{
    return server->base_url;
}

unsigned gt_mock_port(const gt_mock_server *server)
{
    return server->port;
}

unsigned long gt_mock_request_count(const gt_mock_server *server)
{
    return atomic_load(&((gt_mock_server *)server)->requests);
}

char *gt_mock_journal_json(gt_mock_server *server, const char *session_key)
{
    return mock_journal_dump(server->journal, session_key);
}

void gt_mock_stop(gt_mock_server *server)
{
    if (server == NULL)
        return;
    server->stopping = true;
    mock_timer_stop(server->timer); /* no connection may stay suspended through MHD_stop_daemon */
    if (server->daemon)
        MHD_stop_daemon(server->daemon);
    mock_timer_free(server->timer);
    mock_guard_free(server->guard);
    sessions_clear(server);
    free(server->sessions);
    for (size_t i = 0; i < server->scenario_count; i++)
        mock_scenario_release(server->scenarios[i]);
    free(server->scenarios);
    mock_journal_free(server->journal);
    pthread_rwlock_destroy(&server->scenario_lock);
    pthread_mutex_destroy(&server->session_lock);
    free(server);
}
