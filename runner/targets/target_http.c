/* target_http.c — the "http" target: a vendor's whole client, black box.
 *
 * `--target http:CMD`. For each loop or stream case the runner registers the
 * case's script as a scenario of a private mock server (127.0.0.1, ephemeral
 * port), runs CMD once with the base URLs and the scenario in its environment,
 * reads the client's final result envelope from its stdout, and reads the
 * mock's request journal for that run. The verdict is the client's (success
 * with an object = accept); the journal gives the model calls and API
 * attempts and shows protocol violations: a tool error fed back without an
 * instance path, `strict` still sent after a capability 400.
 *
 * Environment given to CMD (docs/adapter-protocol.md, "Black-box HTTP target"):
 * ANTHROPIC_BASE_URL, OPENAI_BASE_URL, GAUNTLET_BASE_URL, GAUNTLET_SCENARIO,
 * GAUNTLET_RUN_ID, GAUNTLET_SCHEMA_FILE (the caller's schema, as given: it may
 * be invalid on purpose), GAUNTLET_JSON_SCHEMA, GAUNTLET_PROMPT,
 * GAUNTLET_SCRIPT_FILE (the loop script minus its turns: history, limits),
 * GAUNTLET_MAX_TURNS and GAUNTLET_STRICT when the script sets them,
 * GAUNTLET_FORMATS (1 when the case asserts `format`, else 0),
 * GAUNTLET_NO_SCHEMA=1 when the case gives no schema at all,
 * GAUNTLET_DISALLOWED_TOOLS (the script's disallowed_tools, comma-separated),
 * GAUNTLET_BIN (this gauntlet executable; absent when the running program is
 * not gauntlet, e.g. a test binary),
 * ANTHROPIC_API_KEY / OPENAI_API_KEY (gauntlet-<scenario>), and the script's
 * `env` (MAX_STRUCTURED_OUTPUT_RETRIES). Not for: the in-process reference
 * over HTTP (target_http_reference.c). */
#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gauntlet/arena.h"
#include "gauntlet/runner/mock.h"
#include "reap.h"
#include "child.h"
#include "gauntlet/parse.h"
#include "gauntlet/schema.h"
#include "gauntlet/value.h"
#include "gauntlet/runner/run.h"
#include "target_adapter.h"
#include "clean_answer.h"

/* Largest stdout kept from one client run. */
#define HTTP_TARGET_MAX_OUTPUT (16u * 1024u * 1024u)
/* The exit status of a client wrapper that cannot run (not installed, no
 * key): an error for the case, never a rejection. */
#define GT_HTTP_CLIENT_CANNOT_RUN 3
/* Per-scenario deadline: real clients retry with backoff. */
#define HTTP_TARGET_TIMEOUT_MS 120000

typedef struct http_target {
    char *command;
    bool worker; /* http-worker: CMD is one persistent process serving many cases */
    gt_child proc; /* the http-worker process; pid 0: not running (started at the next case) */
    char *worker_line; /* bytes of the reply read so far */
    size_t worker_line_len, worker_line_cap;
    gt_mock_server *server;
    unsigned long runs;
    char dir[64]; /* private temp dir for schema files */
    char name[256];
} http_target;

static long long clock_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int http_open_kind(const char *arg, void **state, char *err, size_t err_len, bool worker)
{
    if (arg == NULL || *arg == '\0') {
        snprintf(err, err_len, "%s needs a client command: --target '%s:CMD'", worker ? "http-worker" : "http",
                 worker ? "http-worker" : "http");
        return -1;
    }
    signal(SIGPIPE, SIG_IGN);
    http_target *target = calloc(1, sizeof *target);
    if (target == NULL || (target->command = strdup(arg)) == NULL) {
        free(target);
        snprintf(err, err_len, "out of memory");
        return -1;
    }
    snprintf(target->dir, sizeof target->dir, "/tmp/gauntlet-http-XXXXXX");
    if (mkdtemp(target->dir) == NULL) {
        snprintf(err, err_len, "cannot create a temporary directory: %s", strerror(errno));
        free(target->command);
        free(target);
        return -1;
    }
    gt_mock_options options = {0};
    options.journal_entries = 4096;
    target->server = gt_mock_start(&options, err, err_len);
    if (target->server == NULL) {
        rmdir(target->dir);
        free(target->command);
        free(target);
        return -1;
    }
    target->worker = worker;
    snprintf(target->name, sizeof target->name, "%s (http client)", arg);
    *state = target;
    return 0;
}

static int http_open(const char *arg, void **state, char *err, size_t err_len)
{
    return http_open_kind(arg, state, err, err_len, false);
}

static int http_worker_open(const char *arg, void **state, char *err, size_t err_len)
{
    return http_open_kind(arg, state, err, err_len, true);
}

static const char *member_string(const gt_value *object, const char *key)
{
    const gt_value *value = object ? gt_value_get(object, key, strlen(key)) : NULL;
    return value != NULL && value->type == GT_STRING ? value->u.str.chars : NULL;
}

/* Append stderr bytes to the tail buffer (the newest bytes kept, as run_client). */
static void keep_tail(char *err_tail, size_t tail_len, size_t *tail, const char *chunk, ssize_t got)
{
    for (ssize_t i = 0; i < got; i++) {
        if (*tail + 1 >= tail_len) {
            memmove(err_tail, err_tail + tail_len / 2, *tail - tail_len / 2);
            *tail -= tail_len / 2;
        }
        err_tail[(*tail)++] = (chunk[i] == '\n' || (unsigned char)chunk[i] < 0x20) ? ' ' : chunk[i];
    }
    err_tail[*tail] = '\0';
}

/* Run CMD with `env` added; collect stdout (bounded) and stderr's tail.
 * Returns the exit status (as waitpid), or -1 with `note` on a spawn failure
 * or timeout. */
static int run_client(const char *command, char *const *env, size_t env_count, int timeout_ms, char **out,
                      size_t *out_len, char *err_tail, size_t tail_len, char *note, size_t note_len)
{
    /* everything the client starts is marked, and ends with it (child.h) */
    gt_child child;
    if (gt_child_start(&child, command, env, env_count, false, note, note_len) != 0)
        return -1;
    size_t cap = 65536, len = 0, tail = 0;
    char *buffer = malloc(cap);
    long long deadline = clock_ms() + timeout_ms;
    bool out_open = true, err_open = true, timed_out = false;
    err_tail[0] = '\0';
    while ((out_open || err_open) && buffer != NULL) {
        long long left = deadline - clock_ms();
        if (left <= 0) {
            timed_out = true;
            break;
        }
        struct pollfd fds[2] = {{out_open ? child.out : -1, POLLIN, 0}, {err_open ? child.err : -1, POLLIN, 0}};
        if (poll(fds, 2, (int)(left > 1000 ? 1000 : left)) < 0 && errno != EINTR)
            break;
        if (fds[0].revents & (POLLIN | POLLHUP)) {
            if (len + 4096 > cap && cap < HTTP_TARGET_MAX_OUTPUT) {
                char *grown = realloc(buffer, cap * 2);
                if (grown == NULL)
                    break;
                buffer = grown;
                cap *= 2;
            }
            char sink[4096];
            bool full = len + 4096 > cap;
            ssize_t got = read(child.out, full ? sink : buffer + len, full ? sizeof sink : cap - len - 1);
            if (got <= 0)
                out_open = false;
            else if (!full)
                len += (size_t)got;
        }
        if (fds[1].revents & (POLLIN | POLLHUP)) {
            char chunk[1024];
            ssize_t got = read(child.err, chunk, sizeof chunk);
            if (got <= 0) {
                err_open = false;
            } else {
                keep_tail(err_tail, tail_len, &tail, chunk, got);
            }
        }
    }
    /* a client past its deadline is killed with everything it started; the
     * grandchildren a finished client left behind end with it too */
    int status = gt_child_end(&child, timed_out || buffer == NULL);
    if (buffer == NULL) {
        snprintf(note, note_len, "out of memory reading the client's output");
        return -1;
    }
    buffer[len] = '\0';
    *out = buffer;
    *out_len = len;
    if (timed_out) {
        snprintf(note, note_len, "client timed out after %d ms", timeout_ms);
        return -1;
    }
    if (status < 0)
        snprintf(note, note_len, "waiting for the client failed: %s", strerror(errno));
    return status;
}

/* ---- http-worker: one persistent client process per worker thread ----
 * (docs/adapter-protocol.md, "Persistent clients"). The runner writes one
 * line per case, {"cmd":"case","env":{NAME:VALUE,...}} (the environment a
 * one-shot client gets), and reads one line back, {"status":N,"stdout":TEXT}:
 * the exit status and stdout the one-shot client would have had. The worker's
 * stderr is the case's stderr. A worker that dies, hangs past the deadline or
 * answers garbage makes that case an error; it is stopped (with everything
 * it started, reap.h) and started afresh for the next case. */

static void worker_stop(http_target *target)
{
    gt_child_end(&target->proc, true);
    target->worker_line_len = 0;
}

static int worker_start(http_target *target, char *note, size_t note_len)
{
    char *env[] = {"GAUNTLET_HTTP_WORKER=1"};
    if (gt_child_start(&target->proc, target->command, env, 1, true, note, note_len) != 0)
        return -1;
    target->worker_line_len = 0;
    return 0;
}

static char *worker_request(char *const *env, size_t env_count)
{
    cJSON *root = cJSON_CreateObject(), *vars = cJSON_CreateObject();
    if (root == NULL || vars == NULL) {
        cJSON_Delete(root), cJSON_Delete(vars);
        return NULL;
    }
    cJSON_AddStringToObject(root, "cmd", "case");
    cJSON_AddItemToObject(root, "env", vars);
    for (size_t i = 0; i < env_count; i++) {
        const char *eq = strchr(env[i], '=');
        if (eq == NULL)
            continue;
        char name[256];
        snprintf(name, sizeof name, "%.*s", (int)(eq - env[i]), env[i]);
        cJSON_AddStringToObject(vars, name, eq + 1);
    }
    char *text = cJSON_PrintUnformatted(root);
    cJSON_Delete(root);
    return text;
}

static bool write_all(int fd, const char *data, size_t len)
{
    while (len > 0) {
        ssize_t put = write(fd, data, len);
        if (put < 0 && errno == EINTR)
            continue;
        if (put <= 0)
            return false;
        data += put;
        len -= (size_t)put;
    }
    return true;
}

/* The worker's reply line: its status (0..255) and stdout, or -1 with `note`. */
static int worker_reply(const char *line, char **out, size_t *out_len, char *note, size_t note_len)
{
    cJSON *root = cJSON_Parse(line);
    const cJSON *status = cJSON_GetObjectItemCaseSensitive(root, "status");
    const cJSON *text = cJSON_GetObjectItemCaseSensitive(root, "stdout");
    if (!cJSON_IsNumber(status) || status->valuedouble < 0 || status->valuedouble > 255 ||
        status->valuedouble != (double)status->valueint || (text != NULL && !cJSON_IsString(text))) {
        snprintf(note, note_len,
                 "the persistent client answered garbage (want {\"status\":0..255,\"stdout\":TEXT}): %.200s", line);
        cJSON_Delete(root);
        return -1;
    }
    const char *chars = text ? text->valuestring : "";
    *out_len = strlen(chars);
    *out = strdup(chars);
    int code = status->valueint;
    cJSON_Delete(root);
    if (*out == NULL) {
        snprintf(note, note_len, "out of memory reading the client's output");
        return -1;
    }
    return code << 8; /* as waitpid reports an exit with that status */
}

/* run_client's contract, served by the persistent worker. */
static int run_worker_client(http_target *target, char *const *env, size_t env_count, int timeout_ms, char **out,
                             size_t *out_len, char *err_tail, size_t tail_len, char *note, size_t note_len)
{
    err_tail[0] = '\0';
    char *request = worker_request(env, env_count);
    if (request == NULL) {
        snprintf(note, note_len, "out of memory");
        return -1;
    }
    size_t request_len = strlen(request);
    request[request_len] = '\n';
    /* a worker that ended between cases is started again before the case begins */
    bool sent = false;
    for (int attempt = 0; attempt < 2 && !sent; attempt++) {
        if (target->proc.pid <= 0 && worker_start(target, note, note_len) != 0) {
            free(request);
            return -1;
        }
        sent = write_all(target->proc.in, request, request_len + 1);
        if (!sent)
            worker_stop(target);
    }
    free(request);
    if (!sent) {
        snprintf(note, note_len, "the persistent client does not read its requests (its stdin closed)");
        return -1;
    }
    size_t tail = 0;
    long long deadline = clock_ms() + timeout_ms;
    bool err_open = true;
    for (;;) {
        char *newline = target->worker_line_len
                            ? memchr(target->worker_line, '\n', target->worker_line_len)
                            : NULL;
        if (newline != NULL) {
            *newline = '\0';
            /* what the worker wrote to stderr before its reply is this case's */
            char chunk[1024];
            ssize_t got;
            struct pollfd drain = {target->proc.err, POLLIN, 0};
            while (err_open && poll(&drain, 1, 0) > 0 && (drain.revents & POLLIN) &&
                   (got = read(target->proc.err, chunk, sizeof chunk)) > 0)
                keep_tail(err_tail, tail_len, &tail, chunk, got);
            int status = worker_reply(target->worker_line, out, out_len, note, note_len);
            size_t rest = target->worker_line_len - (size_t)(newline + 1 - target->worker_line);
            memmove(target->worker_line, newline + 1, rest);
            target->worker_line_len = rest;
            if (status < 0)
                worker_stop(target);
            return status;
        }
        long long left = deadline - clock_ms();
        if (left <= 0) {
            worker_stop(target);
            snprintf(note, note_len, "client timed out after %d ms", timeout_ms);
            return -1;
        }
        struct pollfd fds[2] = {{target->proc.out, POLLIN, 0}, {err_open ? target->proc.err : -1, POLLIN, 0}};
        if (poll(fds, 2, (int)(left > 1000 ? 1000 : left)) < 0 && errno != EINTR)
            break;
        if (fds[1].revents & (POLLIN | POLLHUP)) {
            char chunk[1024];
            ssize_t got = read(target->proc.err, chunk, sizeof chunk);
            if (got <= 0)
                err_open = false;
            else
                keep_tail(err_tail, tail_len, &tail, chunk, got);
        }
        if (fds[0].revents & (POLLIN | POLLHUP)) {
            if (target->worker_line_len + 65536 > target->worker_line_cap) {
                if (target->worker_line_cap >= HTTP_TARGET_MAX_OUTPUT * 2) {
                    worker_stop(target);
                    snprintf(note, note_len, "the persistent client's reply is longer than %u bytes",
                             HTTP_TARGET_MAX_OUTPUT * 2);
                    return -1;
                }
                size_t cap = target->worker_line_cap ? target->worker_line_cap * 2 : 131072;
                char *grown = realloc(target->worker_line, cap);
                if (grown == NULL)
                    break;
                target->worker_line = grown;
                target->worker_line_cap = cap;
            }
            ssize_t got = read(target->proc.out, target->worker_line + target->worker_line_len,
                               target->worker_line_cap - target->worker_line_len - 1);
            if (got > 0) {
                target->worker_line_len += (size_t)got;
                continue;
            }
            /* end of file before a reply: the worker died in this case */
            int status = 0;
            char why[64] = "";
            pid_t pid = target->proc.pid;
            if (waitpid(pid, &status, 0) == pid) {
                target->proc.pid = -pid; /* reaped; worker_stop only closes and cleans up */
                if (WIFSIGNALED(status))
                    snprintf(why, sizeof why, ", killed by signal %d", WTERMSIG(status));
                else if (WIFEXITED(status))
                    snprintf(why, sizeof why, ", exit status %d", WEXITSTATUS(status));
            }
            char chunk[1024];
            while (err_open && (got = read(target->proc.err, chunk, sizeof chunk)) > 0)
                keep_tail(err_tail, tail_len, &tail, chunk, got);
            snprintf(note, note_len, "the persistent client ended during the case without a reply%s%s%.600s", why,
                     err_tail[0] ? "; stderr: " : "", err_tail);
            worker_stop(target);
            return -1;
        }
    }
    worker_stop(target);
    snprintf(note, note_len, "reading the persistent client's reply failed");
    return -1;
}

/* Exit statuses that mean the client never ran: 127 (the shell found no such
 * command), 126 (found, not executable) and 3, the status a wrapper uses to
 * say it cannot run here (docs/adapter-protocol.md). */
static bool client_cannot_run(int status)
{
    if (!WIFEXITED(status))
        return false;
    int code = WEXITSTATUS(status);
    return code == 126 || code == 127 || code == GT_HTTP_CLIENT_CANNOT_RUN;
}

/* The last line of `text` that is a JSON object with "type": "result". */
static const gt_value *find_envelope(gt_arena *arena, char *text, size_t len)
{
    gt_parse_options options;
    gt_parse_options_init(&options);
    options.allow_big_integers = true;
    const gt_value *found = NULL;
    char *line = text;
    while (line < text + len) {
        char *end = memchr(line, '\n', (size_t)(text + len - line));
        size_t line_len = end ? (size_t)(end - line) : (size_t)(text + len - line);
        gt_parse_error error;
        const gt_value *value = gt_parse(arena, line, line_len, &options, &error);
        const char *type = value && value->type == GT_OBJECT ? member_string(value, "type") : NULL;
        if (type != NULL && strcmp(type, "result") == 0)
            found = value;
        line += line_len + 1;
    }
    if (found == NULL) { /* a pretty-printed envelope spanning lines */
        gt_parse_error error;
        const gt_value *value = gt_parse(arena, text, len, &options, &error);
        const char *type = value && value->type == GT_OBJECT ? member_string(value, "type") : NULL;
        if (type != NULL && strcmp(type, "result") == 0)
            found = value;
    }
    return found;
}

/* True when a request carries the StructuredOutput tool (the client's main
 * loop, as opposed to side requests such as title generation). */
static bool structured_request(const gt_value *body)
{
    const gt_value *tools = body ? gt_value_get(body, "tools", 5) : NULL;
    if (tools == NULL || tools->type != GT_ARRAY)
        return false;
    for (size_t i = 0; i < tools->u.arr.count; i++) {
        const gt_value *tool = tools->u.arr.items[i];
        const char *name = member_string(tool, "name");
        const gt_value *function = gt_value_get(tool, "function", 8);
        if (name == NULL && function != NULL)
            name = member_string(function, "name");
        if (name != NULL && strcmp(name, "StructuredOutput") == 0)
            return true;
    }
    return false;
}

static bool sends_strict(const gt_value *body)
{
    const gt_value *tools = body ? gt_value_get(body, "tools", 5) : NULL;
    for (size_t i = 0; tools && tools->type == GT_ARRAY && i < tools->u.arr.count; i++) {
        const gt_value *tool = tools->u.arr.items[i];
        const gt_value *function = gt_value_get(tool, "function", 8);
        const gt_value *strict = gt_value_get(function ? function : tool, "strict", 6);
        if (strict != NULL && strict->type == GT_TRUE)
            return true;
    }
    return false;
}

/* The text of an is_error tool_result block, when it has no instance path. */
static const char *tool_error_without_path(const gt_value *body)
{
    const gt_value *messages = body ? gt_value_get(body, "messages", 8) : NULL;
    if (messages == NULL || messages->type != GT_ARRAY || messages->u.arr.count == 0)
        return NULL;
    const gt_value *last = messages->u.arr.items[messages->u.arr.count - 1];
    const gt_value *content = gt_value_get(last, "content", 7);
    for (size_t i = 0; content && content->type == GT_ARRAY && i < content->u.arr.count; i++) {
        const gt_value *block = content->u.arr.items[i];
        const char *type = member_string(block, "type");
        const gt_value *is_error = gt_value_get(block, "is_error", 8);
        if (type == NULL || strcmp(type, "tool_result") != 0 || is_error == NULL || is_error->type != GT_TRUE)
            continue;
        const gt_value *text = gt_value_get(block, "content", 7);
        char *json = text ? gt_value_to_json(text, NULL) : NULL;
        /* Only a schema mismatch must name paths; input that is not an object
         * has its own error text (seed 000). */
        bool mismatch = json != NULL && strstr(json, "does not match") != NULL;
        bool has_path = json != NULL && (strstr(json, "root") || strstr(json, "$.") || strstr(json, "/") ||
                                         strstr(json, "instancePath") || strstr(json, "at $"));
        free(json);
        if (mismatch && !has_path)
            return "a tool error was fed back without naming the instance path";
    }
    return NULL;
}

/* True when the mock played a fallback on the wire for this request: the
 * model did answer (a model call), the provider then failed the response. */
static bool played_fallback(const gt_value *entry)
{
    const gt_value *faults = gt_value_get(entry, "faults", 6);
    for (size_t i = 0; faults && faults->type == GT_ARRAY && i < faults->u.arr.count; i++) {
        const gt_value *fault = faults->u.arr.items[i];
        if (fault->type == GT_STRING && strcmp(fault->u.str.chars, "fallback") == 0)
            return true;
    }
    return false;
}

/* Why the mock marked a scripted turn of this entry as one no provider would
 * send this client (answer_form.expressible false), or NULL. */
static const char *inexpressible_turn(const gt_value *entry)
{
    const gt_value *form = gt_value_get(entry, "answer_form", 11);
    const gt_value *expressible = form ? gt_value_get(form, "expressible", 11) : NULL;
    if (expressible == NULL || expressible->type != GT_FALSE)
        return NULL;
    const char *why = member_string(form, "inexpressible");
    return why ? why : "a turn the client's request rules out";
}

/* True when an entry's applied faults leave its answer whole: none, or only
 * a slower delivery (latency, drip); with `malformed_ok`, also the
 * malformed SSE the mock names for a scripted stream that is malformed by
 * itself (the caller knows no fault was injected into it). */
static bool delivered_whole(const gt_value *entry, bool malformed_ok)
{
    const gt_value *faults = gt_value_get(entry, "faults", 6);
    if (faults == NULL || faults->type != GT_ARRAY)
        return faults == NULL;
    for (size_t i = 0; i < faults->u.arr.count; i++) {
        const gt_value *fault = faults->u.arr.items[i];
        if (fault->type != GT_STRING || (strcmp(fault->u.str.chars, "latency") != 0 &&
                                         strcmp(fault->u.str.chars, "drip") != 0 &&
                                         !(malformed_ok && strcmp(fault->u.str.chars, "malformed_sse") == 0)))
            return false;
    }
    return true;
}

/* The last request of the client's main loop: the script turn that answered
 * it (-1: none, or an answer past the script), whether it was a 200
 * delivered whole, and whether it streamed on the Messages API. */
typedef struct journal_tail {
    int turn;
    bool whole;
    bool whole_but_malformed; /* a 200 whose only faults besides a slower delivery are malformed SSE */
    bool verbatim_stream; /* it streamed on /v1/messages: a scripted Anthropic stream's bytes as written */
} journal_tail;

/* Figures and violations from the journal of one session; `inexpressible`
 * gets the first turn the client's request ruled out ("" when none). */
static void read_journal(http_target *target, const char *session, gt_observed *observed, gt_arena *arena,
                         char *inexpressible, size_t inexpressible_len, journal_tail *tail)
{
    inexpressible[0] = '\0';
    tail->turn = -1, tail->whole = false, tail->whole_but_malformed = false, tail->verbatim_stream = false;
    char *json = gt_mock_journal_json(target->server, session);
    gt_parse_options options;
    gt_parse_options_init(&options);
    options.allow_big_integers = true;
    options.max_bytes = 1u << 30;
    options.max_depth = 10000;
    gt_parse_error error;
    const gt_value *root = json ? gt_parse(arena, json, strlen(json), &options, &error) : NULL;
    const gt_value *entries = root ? gt_value_get(root, "entries", 7) : NULL;
    int api_attempts = 0, model_calls = 0, beyond = 0;
    bool capability_400 = false, any_structured = false;
    char violation[512] = "";
    for (size_t i = 0; entries && entries->type == GT_ARRAY && i < entries->u.arr.count; i++)
        any_structured |= structured_request(gt_value_get(entries->u.arr.items[i], "body", 4));
    for (size_t i = 0; entries && entries->type == GT_ARRAY && i < entries->u.arr.count; i++) {
        const gt_value *entry = entries->u.arr.items[i];
        const gt_value *body = gt_value_get(entry, "body", 4);
        const gt_value *status = gt_value_get(entry, "status", 6);
        const gt_value *side = gt_value_get(entry, "side", 4);
        const char *route = member_string(entry, "route");
        bool model_route = route != NULL && (strcmp(route, "/v1/messages") == 0 ||
                                             strcmp(route, "/v1/chat/completions") == 0 ||
                                             strcmp(route, "/v1/responses") == 0);
        /* The client's main loop: requests carrying StructuredOutput, or, in a
         * run where none does (no schema), every scripted model request. */
        if (any_structured ? !structured_request(body) : (!model_route || (side && side->type == GT_TRUE)))
            continue;
        api_attempts++;
        const char *ruled_out = inexpressible_turn(entry);
        if (ruled_out != NULL && inexpressible[0] == '\0')
            snprintf(inexpressible, inexpressible_len, "request %d: %s", api_attempts, ruled_out);
        const gt_value *form = gt_value_get(entry, "answer_form", 11);
        const gt_value *cut_body = form ? gt_value_get(form, "cut_json_body", 13) : NULL;
        if (cut_body != NULL && cut_body->type == GT_TRUE)
            observed->unstreamed_stream_fault = true;
        const gt_value *past_end = gt_value_get(entry, "beyond_script", 13);
        if (past_end != NULL && past_end->type == GT_TRUE)
            beyond++;
        if ((status && status->type == GT_NUMBER && status->u.num.number == 200) || played_fallback(entry))
            model_calls++;
        const gt_value *turn = gt_value_get(entry, "turn", 4);
        tail->turn = turn && turn->type == GT_NUMBER && !(past_end && past_end->type == GT_TRUE)
                         ? (int)turn->u.num.number
                         : -1;
        bool ok = status && status->type == GT_NUMBER && status->u.num.number == 200;
        tail->whole = ok && delivered_whole(entry, false);
        tail->whole_but_malformed = ok && delivered_whole(entry, true);
        const gt_value *streamed = gt_value_get(entry, "stream", 6);
        tail->verbatim_stream = streamed && streamed->type == GT_TRUE && route && strcmp(route, "/v1/messages") == 0;
        if (capability_400 && sends_strict(body) && violation[0] == '\0')
            snprintf(violation, sizeof violation, "request %d still sends strict after a capability 400",
                     api_attempts);
        const char *missing = tool_error_without_path(body);
        if (missing != NULL && violation[0] == '\0')
            snprintf(violation, sizeof violation, "request %d: %s", api_attempts, missing);
        if (status && status->type == GT_NUMBER && status->u.num.number == 400 && sends_strict(body))
            capability_400 = true;
    }
    observed->has_accounting = true;
    gt_accounting_init(&observed->accounting);
    observed->accounting.api_attempts = api_attempts;
    observed->accounting.model_calls = model_calls;
    observed->beyond_script_calls = beyond;
    if (violation[0] != '\0')
        observed->violation = strdup(violation);
    free(json);
}

static void write_text(const char *path, const char *text)
{
    FILE *file = fopen(path, "w");
    if (file != NULL) {
        fputs(text, file);
        fclose(file);
    }
}

/* The first turn that only exists inside a client, or NULL. A fallback
 * that retracts the response it follows is played on the wire by the mock
 * (the message streams completely, then the stream fails), so a real client
 * meets it; a fallback that retracts an older message, and a late
 * attachment, are events inside the client's own message queue that no
 * provider response can cause. */
static const char *client_internal_turn(const gt_value *script)
{
    const gt_value *turns = script ? gt_value_get(script, "turns", 5) : NULL;
    char latest_id[64] = "";
    for (size_t i = 0; turns && turns->type == GT_ARRAY && i < turns->u.arr.count; i++) {
        const gt_value *turn = turns->u.arr.items[i];
        const gt_value *fallback = gt_value_get(turn, "fallback", 8);
        if (fallback != NULL) {
            const char *retract = member_string(fallback, "retract");
            if (retract != NULL && strcmp(retract, latest_id) != 0)
                return "a model fallback that retracts an earlier message than the one it follows";
            continue;
        }
        if (gt_value_get(turn, "late_attachment", 15) != NULL)
            return "a late attachment";
        const gt_value *message = gt_value_get(turn, "message", 7);
        const char *id = message ? member_string(message, "id") : NULL;
        if (id != NULL)
            snprintf(latest_id, sizeof latest_id, "%s", id);
        else
            snprintf(latest_id, sizeof latest_id, "msg_t%zu", i); /* the script's default id */
    }
    return NULL;
}

/* The script text a client reads from GAUNTLET_SCRIPT_FILE, carrying the
 * schema the case runs with: a script without its own "json_schema" uses the
 * case's (its schema_file or inline schema), as the in-process loop does.
 * Takes `text` (malloc'd); returns it or a malloc'd replacement. */
static char *with_schema(char *text, const gt_value *script, const char *schema_json)
{
    if (text == NULL || schema_json == NULL || (script && gt_value_get(script, "json_schema", 11) != NULL))
        return text;
    const char *rest = text + 1; /* after the opening brace */
    while (*rest == ' ' || *rest == '\n')
        rest++;
    size_t len = strlen(schema_json) + strlen(text) + 32;
    char *out = malloc(len);
    if (out == NULL)
        return text;
    snprintf(out, len, "{\"json_schema\":%s%s%s", schema_json, *rest == '}' ? "" : ",", rest);
    free(text);
    return out;
}

/* The script's "disallowed_tools" as one comma-separated list (malloc'd), or
 * NULL when it names none. */
static char *disallowed_tools(const gt_value *script)
{
    const gt_value *tools = script ? gt_value_get(script, "disallowed_tools", 16) : NULL;
    if (tools == NULL || tools->type != GT_ARRAY || tools->u.arr.count == 0)
        return NULL;
    size_t len = 1;
    for (size_t i = 0; i < tools->u.arr.count; i++)
        if (tools->u.arr.items[i]->type == GT_STRING)
            len += strlen(tools->u.arr.items[i]->u.str.chars) + 1;
    char *list = calloc(1, len);
    for (size_t i = 0; list && i < tools->u.arr.count; i++)
        if (tools->u.arr.items[i]->type == GT_STRING) {
            if (list[0])
                strcat(list, ",");
            strcat(list, tools->u.arr.items[i]->u.str.chars);
        }
    return list;
}

/* One environment entry "NAME=value", malloc'd. */
static char *env_entry(const char *name, const char *value)
{
    size_t len = strlen(name) + strlen(value) + 2;
    char *entry = malloc(len);
    if (entry != NULL)
        snprintf(entry, len, "%s=%s", name, value);
    return entry;
}

/* Which clean answer (clean_answer.h) `object` is of the script turn the
 * mock served last (`tail`): none unless that turn was a 200 delivered whole;
 * a raw stream with no injected `faults` of its own may be malformed by
 * itself (the mock then names `malformed_sse`), which clean_answer.c reads. */
static gt_clean_kind clean_answer(const gt_value *script, const journal_tail *tail, const gt_value *object,
                                  const char *schema_json, bool assert_formats)
{
    const gt_value *turns = script ? gt_value_get(script, "turns", 5) : NULL;
    if (tail->turn < 0 || turns == NULL || turns->type != GT_ARRAY || (size_t)tail->turn >= turns->u.arr.count)
        return GT_CLEAN_NONE;
    const gt_value *turn = turns->u.arr.items[tail->turn];
    bool own_stream = gt_value_get(turn, "stream", 6) != NULL && gt_value_get(turn, "faults", 6) == NULL;
    if (!(tail->whole || (own_stream && tail->whole_but_malformed)))
        return GT_CLEAN_NONE;
    return gt_clean_answer(turn, tail->verbatim_stream, object, schema_json,
                           assert_formats);
}

static int http_check(void *state, const gt_case_input *input, gt_observed *observed, char *note, size_t note_len)
{
    http_target *target = state;
    observed->black_box = true;
    gt_accounting_init(&observed->accounting);
    if (strcmp(input->gate, "loop") != 0 && strcmp(input->gate, "stream") != 0) {
        snprintf(note, note_len, "the http target plays loop and stream scenarios only (this case: %s)", input->gate);
        return GT_CHECK_SKIPPED;
    }
    char err[512];
    if (gt_mock_add_scenario(target->server, input->id, input->case_json, input->schema_json, err, sizeof err) != 0) {
        snprintf(note, note_len, "the case has no playable script: %s", err);
        return GT_CHECK_SKIPPED;
    }
    gt_arena *arena = gt_arena_new();
    gt_parse_error perr;
    const gt_value *kase = arena ? gt_parse(arena, input->case_json, strlen(input->case_json), NULL, &perr) : NULL;
    const gt_value *script = kase ? gt_value_get(kase, "script", 6) : NULL;
    const gt_value *schema = script ? gt_value_get(script, "json_schema", 11) : NULL;
    const char *schema_text = member_string(script, "json_schema_text"); /* raw CLI text, maybe invalid */
    char *schema_json = schema_text ? strdup(schema_text)
                        : schema    ? gt_value_to_json(schema, NULL)
                                    : strdup(input->schema_json ? input->schema_json : "{\"type\":\"object\"}");
    const char *prompt = member_string(script, "prompt");
    const char *internal = client_internal_turn(script);
    if (internal != NULL) {
        snprintf(note, note_len,
                 "the script needs a client-internal event (%s) that a black-box client cannot be driven into "
                 "over HTTP",
                 internal);
        free(schema_json);
        gt_arena_free(arena);
        return GT_CHECK_SKIPPED;
    }
    const gt_value *max_turns = script ? gt_value_get(script, "max_turns", 9) : NULL;
    const gt_value *strict = script ? gt_value_get(script, "strict", 6) : NULL;
    char *script_text = with_schema(gt_mock_script_text(input->case_json, NULL, err, sizeof err), script,
                                    schema_text == NULL ? input->schema_json : NULL);

    char run_id[32], session[512], base[600], openai_base[640], schema_file[128], script_file[128], key[520];
    snprintf(run_id, sizeof run_id, "r%lu", ++target->runs);
    snprintf(session, sizeof session, "%s/%s", input->id, run_id);
    snprintf(base, sizeof base, "%s/s/%s", gt_mock_base_url(target->server), session);
    snprintf(openai_base, sizeof openai_base, "%s/v1", base);
    snprintf(schema_file, sizeof schema_file, "%s/schema-%lu.json", target->dir, target->runs);
    snprintf(key, sizeof key, "gauntlet-%s", input->id);
    snprintf(script_file, sizeof script_file, "%s/script-%lu.json", target->dir, target->runs);
    write_text(schema_file, schema_json ? schema_json : "{}");
    write_text(script_file, script_text ? script_text : "{}");
    char *env[32];
    size_t env_count = 0;
    env[env_count++] = env_entry("ANTHROPIC_BASE_URL", base);
    env[env_count++] = env_entry("OPENAI_BASE_URL", openai_base);
    env[env_count++] = env_entry("GAUNTLET_BASE_URL", base);
    env[env_count++] = env_entry("GAUNTLET_SCENARIO", input->id);
    env[env_count++] = env_entry("GAUNTLET_RUN_ID", run_id);
    env[env_count++] = env_entry("GAUNTLET_SCHEMA_FILE", schema_file);
    env[env_count++] = env_entry("GAUNTLET_JSON_SCHEMA", schema_json ? schema_json : "{}");
    env[env_count++] = env_entry("GAUNTLET_PROMPT", prompt ? prompt : "Complete the task.");
    env[env_count++] = env_entry("GAUNTLET_SCRIPT_FILE", script_file);
    char self[4096];
    ssize_t self_len = readlink("/proc/self/exe", self, sizeof self - 1);
    if (self_len > 0) {
        self[self_len] = '\0';
        /* for wrappers that call gauntlet itself; only when this process is
         * gauntlet (a test binary hosting the target must not be re-run as
         * "gauntlet client": that recursion forks without end) */
        const char *exe_name = strrchr(self, '/');
        if (strncmp(exe_name ? exe_name + 1 : self, "gauntlet", 8) == 0)
            env[env_count++] = env_entry("GAUNTLET_BIN", self);
    }
    if (max_turns != NULL && max_turns->type == GT_NUMBER)
        env[env_count++] = env_entry("GAUNTLET_MAX_TURNS", max_turns->u.num.text);
    if (strict != NULL && strict->type == GT_TRUE)
        env[env_count++] = env_entry("GAUNTLET_STRICT", "1");
    /* the case's "formats" option: `format` asserted (1) or an annotation (0) */
    env[env_count++] = env_entry("GAUNTLET_FORMATS", input->assert_formats ? "1" : "0");
    /* no --json-schema at all (GAUNTLET_JSON_SCHEMA then holds a stand-in) */
    if (schema_text == NULL && schema == NULL && input->schema_json == NULL)
        env[env_count++] = env_entry("GAUNTLET_NO_SCHEMA", "1");
    char *disallowed = disallowed_tools(script);
    if (disallowed != NULL) {
        env[env_count++] = env_entry("GAUNTLET_DISALLOWED_TOOLS", disallowed);
        free(disallowed);
    }
    env[env_count++] = env_entry("ANTHROPIC_API_KEY", key);
    env[env_count++] = env_entry("OPENAI_API_KEY", key);
    const gt_value *script_env = script ? gt_value_get(script, "env", 3) : NULL;
    for (size_t i = 0; script_env && script_env->type == GT_OBJECT && i < script_env->u.obj.count && env_count < 32;
         i++) {
        const gt_value *value = script_env->u.obj.members[i].value;
        char *text = value->type == GT_STRING ? strdup(value->u.str.chars) : gt_value_to_json(value, NULL);
        if (text != NULL)
            env[env_count++] = env_entry(script_env->u.obj.members[i].key, text);
        free(text);
    }
    char *out = NULL, tail[600];
    size_t out_len = 0;
    int status = target->worker ? run_worker_client(target, env, env_count, HTTP_TARGET_TIMEOUT_MS, &out, &out_len,
                                                    tail, sizeof tail, note, note_len)
                                : run_client(target->command, env, env_count, HTTP_TARGET_TIMEOUT_MS, &out, &out_len,
                                             tail, sizeof tail, note, note_len);
    int result = GT_CHECK_DONE;
    char inexpressible[300] = "";
    const gt_value *envelope = status >= 0 && arena ? find_envelope(arena, out, out_len) : NULL;
    if (status < 0) {
        result = GT_CHECK_ERROR;
    } else if (envelope == NULL && client_cannot_run(status)) {
        /* not installed, not executable, or the wrapper's own "cannot run":
         * no verdict at all, never a rejection */
        snprintf(note, note_len, "the client could not run (exit status %d%s) and printed no result envelope%s%.600s",
                 WEXITSTATUS(status),
                 WEXITSTATUS(status) == 127   ? ": command not found"
                 : WEXITSTATUS(status) == 126 ? ": not executable"
                                              : ": the wrapper's 'cannot run'",
                 tail[0] ? "; stderr: " : "", tail);
        result = GT_CHECK_ERROR;
    } else if (envelope == NULL && WIFEXITED(status) && WEXITSTATUS(status) != 0) {
        /* The client refused or failed without an object: nothing to act on.
         * That is a rejection (a refused --json-schema is exactly this). */
        char message[800];
        snprintf(message, sizeof message, "client exited with status %d and no result envelope%s%.600s",
                 WEXITSTATUS(status), tail[0] ? "; stderr: " : "", tail);
        gt_observed_reject(observed, input->gate, "client_exit", message);
        journal_tail last;
        read_journal(target, session, observed, arena, inexpressible, sizeof inexpressible, &last);
    } else if (envelope == NULL) {
        snprintf(note, note_len, "the client printed no result envelope (exit status %d)%s%s",
                 WIFEXITED(status) ? WEXITSTATUS(status) : -1, tail[0] ? "; stderr: " : "", tail);
        result = GT_CHECK_ERROR;
    } else {
        const char *subtype = member_string(envelope, "subtype");
        const gt_value *is_error = gt_value_get(envelope, "is_error", 8);
        const gt_value *object = gt_value_get(envelope, "structured_output", 17);
        bool accepted = subtype && strcmp(subtype, "success") == 0 && (is_error == NULL || is_error->type != GT_TRUE) &&
                        object != NULL && object->type != GT_NULL;
        observed->subtype = subtype ? strdup(subtype) : NULL;
        observed->output_json = gt_value_to_json(envelope, NULL);
        if (accepted) {
            observed->verdict = GT_VERDICT_ACCEPT;
        } else {
            char message[300];
            snprintf(message, sizeof message, "client ended with subtype %s%s%s", subtype ? subtype : "(none)",
                     is_error && is_error->type == GT_TRUE ? ", is_error" : "",
                     object == NULL || object->type == GT_NULL ? ", no structured_output" : "");
            gt_observed_reject(observed, input->gate,
                               subtype && strcmp(subtype, "success") == 0 ? "success_without_object"
                                                                          : (subtype ? subtype : "no_subtype"),
                               message);
        }
        journal_tail last;
        read_journal(target, session, observed, arena, inexpressible, sizeof inexpressible, &last);
        gt_clean_kind clean = accepted ? clean_answer(script, &last, object, schema_json, input->assert_formats)
                                       : GT_CLEAN_NONE;
        if (clean != GT_CLEAN_NONE) {
            observed->clean_answer_turn = last.turn + 1;
            observed->clean_answer_stream = clean == GT_CLEAN_STREAM;
        }
    }
    if (inexpressible[0] != '\0') {
        /* the script needs a model answer this client's request rules out
         * (docs/mock-server.md, "Inexpressible turns"): no verdict either way */
        snprintf(note, note_len, "the case cannot be expressed for this client: %s", inexpressible);
        result = GT_CHECK_SKIPPED;
    }
    for (size_t i = 0; i < env_count; i++)
        free(env[i]);
    free(out);
    free(schema_json);
    free(script_text);
    unlink(schema_file);
    unlink(script_file);
    gt_mock_reset(target->server, session);
    gt_arena_free(arena);
    return result;
}

static const char *http_name(void *state)
{
    return ((http_target *)state)->name;
}

static void http_close(void *state)
{
    http_target *target = state;
    worker_stop(target);
    free(target->worker_line);
    gt_mock_stop(target->server);
    rmdir(target->dir);
    free(target->command);
    free(target);
}

const gt_target_ops gt_target_http_ops = {
    .kind = "http",
    .open = http_open,
    .check = http_check,
    .name = http_name,
    .close = http_close,
};

/* `--target http-worker:CMD`: the same black-box judgement, CMD started once
 * per worker thread and kept for many cases (run_worker_client). */
const gt_target_ops gt_target_http_worker_ops = {
    .kind = "http-worker",
    .open = http_worker_open,
    .check = http_check,
    .name = http_name,
    .close = http_close,
};
