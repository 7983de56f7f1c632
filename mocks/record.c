/* record.c — `gauntlet record`: a recording HTTP proxy (libmicrohttpd in,
 * libcurl out, both through platform/lazy_net.c).
 *
 * Each request is forwarded to the upstream base URL + its path by a worker
 * thread; the answer's bytes go through a pipe to the client as they arrive
 * (an MHD callback response), so nothing holds the whole answer for the
 * client. A copy up to GT_RECORD_MAX_ANSWER is kept for the recording; when
 * the exchange ends its conversation is written atomically (temp file +
 * rename) as DIR/NAME.NNNN.scenario.json (the recorded bytes, which
 * `gauntlet serve --corpus DIR` replays as scenario NAME.NNNN),
 * DIR/NAME.NNNN.cases.json and DIR/NAME.NNNN.exchange.txt (the requests,
 * headers and dotted JSON fields redacted); NAME is the recording's name.
 * Requests that continue one another make one conversation (record_case.c
 * rec_continues), written as one scenario and one case with the reference's
 * verdict (record_case.c). Not for: record-on-miss (docs/record.md). */
#include <arpa/inet.h>
#include <cjson/cJSON.h>
#include <dirent.h>
#include <curl/curl.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <microhttpd.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "gauntlet/runner/mock.h"
#include "record_impl.h"

/* Conversations a new request is matched against (the most recent ones);
 * an older one stays on disk but is not continued. */
#define REC_OPEN_CONVERSATIONS 64

/* A conversation's files are STEM.scenario.json, STEM.cases.json and
 * STEM.exchange.txt; STEM is NAME.NNNN (the recording's name, then the
 * number), or NNNN for a conversation written before recordings had names,
 * which keeps it (and its case id recorded.NNNN) when it grows. */
#define REC_STEM_MAX (GT_RECORD_NAME_MAX + 24)

typedef struct {
    unsigned long number;
    char stem[REC_STEM_MAX]; /* the files' name and the replay scenario's */
    rec_exchange **exchanges;
    size_t count;
    cJSON *infos; /* what NNNN.exchange.txt lists: each exchange's request, redacted */
} rec_conversation;

static const char *const default_redacted[] = {"x-api-key", "authorization", "openai-organization", "cookie",
                                              "set-cookie", "proxy-authorization", NULL};

struct gt_record_server {
    struct MHD_Daemon *daemon;
    char upstream[1024];
    char out_dir[1024];
    char name[GT_RECORD_NAME_MAX + 1]; /* the recording's name: case ids recorded.NAME.NNNN */
    char base_url[128];
    const char *const *redact;
    size_t redact_count;
    bool record_errors;
    pthread_mutex_t lock;
    unsigned long exchanges;     /* exchanges recorded */
    unsigned long conversations; /* the highest conversation number in DIR */
    rec_conversation *open; /* the latest conversations, which a request may continue (oldest first) */
    size_t open_count, open_cap;
    size_t open_limit;      /* REC_OPEN_CONVERSATIONS; unbounded when replaying (record_missing) */
    bool record_missing;    /* answer a request the recording holds from it; forward and record the rest */
    unsigned long replayed; /* answers served from the recording */
    bool draining;          /* a clean stop began: new requests get a 503 */
    unsigned long in_flight; /* requests accepted whose exchange has not ended (answered and written) */
    pthread_cond_t idle;    /* signalled when in_flight drops */
};

typedef struct {
    char *data;
    size_t len, cap;
    bool truncated;
} rec_buf;

static void buf_add(rec_buf *b, const char *data, size_t len, size_t limit)
{
    if (b->len + len > limit) {
        b->truncated = true;
        len = limit > b->len ? limit - b->len : 0;
    }
    if (len == 0)
        return;
    if (b->len + len + 1 > b->cap) {
        size_t cap = (b->len + len + 1) * 2;
        if (cap > limit + 1)
            cap = limit + 1; /* never more than the recording keeps */
        char *grown = realloc(b->data, cap);
        if (grown == NULL) {
            b->truncated = true;
            return;
        }
        b->data = grown;
        b->cap = cap;
    }
    memcpy(b->data + b->len, data, len);
    b->len += len;
    b->data[b->len] = '\0';
}

typedef struct {
    gt_record_server *server;
    char method[16];
    char path[2048];
    struct curl_slist *headers;
    rec_buf request, request_headers, answer;
    char content_type[256];
    char response_headers[1024]; /* the passed-through headers (REC_PASSED_HEADERS), "name: value\n" each */
    long status;
    int pipe_fd[2];
    pthread_t thread;
    bool thread_started;
    pthread_mutex_t lock;
    pthread_cond_t ready_cond;
    bool ready, done, failed;
    bool cut; /* the upstream's answer broke off after it had started */
    bool counted;         /* in the server's in_flight (accepted before a drain began) */
    char *hit;            /* record-on-miss: the recorded answer served instead of forwarding */
    size_t hit_len, hit_pos;
    char cause[CURL_ERROR_SIZE + 4200];
} exchange;

static bool is_redacted_header(const gt_record_server *s, const char *name, size_t len)
{
    for (size_t i = 0; default_redacted[i]; i++)
        if (strlen(default_redacted[i]) == len && strncasecmp(default_redacted[i], name, len) == 0)
            return true;
    for (size_t i = 0; i < s->redact_count; i++)
        if (strlen(s->redact[i]) == len && strncasecmp(s->redact[i], name, len) == 0)
            return true;
    return false;
}

static void mark_ready(exchange *ex)
{
    pthread_mutex_lock(&ex->lock);
    ex->ready = true;
    pthread_cond_broadcast(&ex->ready_cond);
    pthread_mutex_unlock(&ex->lock);
}

/* Answer headers a client acts on, passed back and recorded besides
 * content-type: the retry hints the SDKs honour and the request ids. */
static const char *const passed_headers[] = {"retry-after",  "retry-after-ms", "x-should-retry",
                                             "request-id",   "x-request-id",   NULL};

static size_t on_header(char *data, size_t size, size_t count, void *user)
{
    exchange *ex = user;
    size_t n = size * count;
    if (n > 9 && strncmp(data, "HTTP/", 5) == 0) { /* a status line (again after a 1xx) */
        const char *space = memchr(data, ' ', n);
        if (space != NULL)
            ex->status = strtol(space + 1, NULL, 10);
        ex->content_type[0] = '\0';
        ex->response_headers[0] = '\0';
        return n;
    }
    for (size_t i = 0; passed_headers[i]; i++) {
        size_t len = strlen(passed_headers[i]);
        if (n > len + 1 && strncasecmp(data, passed_headers[i], len) == 0 && data[len] == ':') {
            size_t start = len + 1, end = n, used = strlen(ex->response_headers);
            while (start < n && data[start] == ' ')
                start++;
            while (end > start && (data[end - 1] == '\r' || data[end - 1] == '\n'))
                end--;
            snprintf(ex->response_headers + used, sizeof ex->response_headers - used, "%s: %.*s\n", passed_headers[i],
                     (int)(end - start), data + start);
            return n;
        }
    }
    if (n > 13 && strncasecmp(data, "content-type:", 13) == 0) {
        size_t start = 13;
        while (start < n && data[start] == ' ')
            start++;
        size_t end = n;
        while (end > start && (data[end - 1] == '\r' || data[end - 1] == '\n'))
            end--;
        snprintf(ex->content_type, sizeof ex->content_type, "%.*s", (int)(end - start), data + start);
    }
    return n;
}

static size_t on_body(char *data, size_t size, size_t count, void *user)
{
    exchange *ex = user;
    size_t n = size * count;
    if (!ex->ready)
        mark_ready(ex); /* headers are in: the client's response can start */
    buf_add(&ex->answer, data, n, GT_RECORD_MAX_ANSWER);
    size_t off = 0;
    while (off < n && ex->pipe_fd[1] >= 0) {
        ssize_t w = write(ex->pipe_fd[1], data + off, n - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0) { /* the client went away: keep recording */
            close(ex->pipe_fd[1]);
            ex->pipe_fd[1] = -1;
            break;
        }
        off += (size_t)w;
    }
    return n;
}

/* Replace the value at each dotted path of `s->redact` in `json`; the names
 * replaced are appended to `list`. Returns a new malloc'd text or NULL when
 * nothing changed (or the text is not JSON). */
static char *redact_fields(const gt_record_server *s, const char *json, cJSON *list)
{
    if (json == NULL || s->redact_count == 0)
        return NULL;
    cJSON *root = cJSON_Parse(json);
    if (root == NULL)
        return NULL;
    bool changed = false;
    for (size_t i = 0; i < s->redact_count; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s", s->redact[i]);
        cJSON *node = root;
        char *save = NULL;
        char *part = strtok_r(path, ".", &save);
        char *last = NULL;
        cJSON *parent = NULL;
        while (part && node) {
            parent = node;
            last = part;
            node = cJSON_GetObjectItemCaseSensitive(node, part);
            part = strtok_r(NULL, ".", &save);
        }
        if (node && parent && last && node != root) {
            cJSON_ReplaceItemInObjectCaseSensitive(parent, last, cJSON_CreateString("[redacted]"));
            cJSON_AddItemToArray(list, cJSON_CreateString(s->redact[i]));
            changed = true;
        }
    }
    char *text = changed ? cJSON_PrintUnformatted(root) : NULL;
    cJSON_Delete(root);
    return text;
}

/* Write `text` to DIR/NAME through a temp file and rename; 0 or -1. */
static int write_atomic(const char *dir, const char *name, const char *text)
{
    char tmp[2200], final_path[2200];
    snprintf(tmp, sizeof tmp, "%s/.%s.tmp", dir, name);
    snprintf(final_path, sizeof final_path, "%s/%s", dir, name);
    FILE *f = fopen(tmp, "w");
    if (f == NULL)
        return -1;
    int bad = fputs(text, f) < 0;
    bad |= fclose(f) != 0;
    if (bad || rename(tmp, final_path) != 0) {
        unlink(tmp);
        return -1;
    }
    return 0;
}

static void conversation_free(rec_conversation *c)
{
    for (size_t k = 0; k < c->count; k++)
        rec_exchange_free(c->exchanges[k]);
    free(c->exchanges);
    cJSON_Delete(c->infos);
}

/* A new empty slot at the end of the table (the oldest conversation is
 * forgotten when the table is at its limit); NULL when out of memory. */
static rec_conversation *conversation_new(gt_record_server *s)
{
    if (s->open_count > 0 && s->open_count >= s->open_limit) {
        conversation_free(&s->open[0]);
        memmove(s->open, s->open + 1, (s->open_count - 1) * sizeof *s->open);
        s->open_count--;
    }
    if (s->open_count == s->open_cap) {
        size_t cap = s->open_cap ? s->open_cap * 2 : 16;
        rec_conversation *grown = realloc(s->open, cap * sizeof *grown);
        if (grown == NULL)
            return NULL;
        s->open = grown;
        s->open_cap = cap;
    }
    rec_conversation *c = &s->open[s->open_count++];
    memset(c, 0, sizeof *c);
    return c;
}

/* The conversation `x` continues, or a new one (the oldest open one is
 * forgotten when the table is full). Called with the server's lock held. */
static rec_conversation *conversation_for(gt_record_server *s, const rec_exchange *x)
{
    for (size_t i = s->open_count; i-- > 0;) {
        rec_conversation *c = &s->open[i];
        if (c->count > 0 && rec_continues(c->exchanges[c->count - 1], x)) {
            rec_conversation moved = *c; /* the latest conversation goes last */
            memmove(c, c + 1, (s->open_count - i - 1) * sizeof *c);
            s->open[s->open_count - 1] = moved;
            return &s->open[s->open_count - 1];
        }
    }
    rec_conversation *c = conversation_new(s);
    if (c != NULL) {
        c->number = ++s->conversations;
        snprintf(c->stem, sizeof c->stem, "%s.%04lu", s->name, c->number);
        c->infos = cJSON_CreateArray();
    }
    return c;
}

static cJSON *exchange_info(const exchange *ex, const rec_exchange *x, cJSON *fields)
{
    const gt_record_server *s = ex->server;
    cJSON *redacted = cJSON_CreateArray();
    for (size_t i = 0; default_redacted[i]; i++)
        cJSON_AddItemToArray(redacted, cJSON_CreateString(default_redacted[i]));
    for (size_t i = 0; i < s->redact_count; i++)
        cJSON_AddItemToArray(redacted, cJSON_CreateString(s->redact[i]));
    cJSON *info = cJSON_CreateObject();
    cJSON_AddStringToObject(info, "method", ex->method);
    cJSON_AddStringToObject(info, "path", x->path);
    cJSON_AddNumberToObject(info, "status", (double)x->status);
    cJSON_AddStringToObject(info, "content_type", x->content_type);
    cJSON_AddStringToObject(info, "response_headers", x->response_headers);
    cJSON_AddBoolToObject(info, "answer_cut_at_limit", x->over_limit);
    cJSON_AddBoolToObject(info, "cut", x->cut);
    if (x->unreachable)
        cJSON_AddStringToObject(info, "upstream_error", ex->cause);
    cJSON_AddStringToObject(info, "request_headers", ex->request_headers.data ? ex->request_headers.data : "");
    cJSON_AddStringToObject(info, "request_body", x->request);
    cJSON_AddItemToObject(info, "redacted_headers", redacted);
    cJSON_AddItemToObject(info, "redacted_fields", fields);
    return info;
}

/* Write the conversation's replay script, its case (or the reason it has
 * none) and its exchanges, each file atomically. Lock held. */
static void write_conversation(gt_record_server *s, const rec_conversation *c)
{
    char name[REC_STEM_MAX + 32];
    cJSON *index = cJSON_CreateObject();
    cJSON_AddStringToObject(index, "format", "gauntlet-recording/1");
    cJSON_AddStringToObject(index, "scenario", c->stem);
    char why[512] = "";
    cJSON *cases = rec_case_file(c->exchanges, c->count, s->name, c->stem, why, sizeof why);
    if (cases == NULL)
        cJSON_AddStringToObject(index, "no_case", why);
    cJSON_AddItemReferenceToObject(index, "exchanges", c->infos);
    cJSON *script = rec_replay_script(c->exchanges, c->count);
    char *texts[3] = {cJSON_Print(index), cJSON_Print(script), cases ? cJSON_Print(cases) : NULL};
    const char *suffix[3] = {"exchange.txt", "scenario.json", "cases.json"};
    for (int i = 0; i < 3; i++) {
        snprintf(name, sizeof name, "%s.%s", c->stem, suffix[i]);
        if (texts[i])
            write_atomic(s->out_dir, name, texts[i]);
        else if (i == 2) {
            char path[2200];
            snprintf(path, sizeof path, "%s/%s", s->out_dir, name);
            unlink(path); /* a conversation that no longer makes a case */
        }
        free(texts[i]);
    }
    cJSON_Delete(index);
    cJSON_Delete(script);
    cJSON_Delete(cases);
}

/* Add the finished exchange to its conversation (before the client sees the
 * answer end, so its next request can continue it); its number, 0 when
 * nothing was kept. The files are written by write_number. */
static unsigned long keep_exchange(exchange *ex)
{
    gt_record_server *s = ex->server;
    rec_exchange *x = calloc(1, sizeof *x);
    if (x == NULL)
        return 0;
    cJSON *fields = cJSON_CreateArray();
    char *request = redact_fields(s, ex->request.data, fields);
    char *answer = redact_fields(s, ex->answer.data, fields);
    x->path = strdup(ex->path);
    x->request = request ? request : strdup(ex->request.data ? ex->request.data : "");
    if (answer) {
        x->answer = answer;
        x->answer_len = strlen(answer);
    } else {
        x->answer = ex->answer.data ? ex->answer.data : strdup(""); /* moved, not copied: up to 16 MiB */
        x->answer_len = ex->answer.len;
        ex->answer.data = NULL;
    }
    x->status = ex->failed ? 502 : ex->status;
    snprintf(x->content_type, sizeof x->content_type, "%s", ex->failed ? "text/plain" : ex->content_type);
    snprintf(x->response_headers, sizeof x->response_headers, "%s", ex->failed ? "" : ex->response_headers);
    x->cut = ex->cut;
    x->over_limit = ex->answer.truncated;
    x->unreachable = ex->failed;
    if (x->unreachable) {
        free(x->answer);
        x->answer = malloc(strlen(ex->cause) + 2);
        if (x->answer)
            sprintf(x->answer, "%s\n", ex->cause);
        x->answer_len = x->answer ? strlen(x->answer) : 0;
    }
    if (x->path == NULL || x->request == NULL || x->answer == NULL) {
        rec_exchange_free(x);
        cJSON_Delete(fields);
        return 0;
    }
    unsigned long number = 0;
    pthread_mutex_lock(&s->lock);
    rec_conversation *c = conversation_for(s, x);
    rec_exchange **grown = c ? realloc(c->exchanges, (c->count + 1) * sizeof *grown) : NULL;
    if (grown != NULL) {
        c->exchanges = grown;
        c->exchanges[c->count++] = x;
        cJSON_AddItemToArray(c->infos, exchange_info(ex, x, fields));
        s->exchanges++;
        number = c->number;
    } else {
        rec_exchange_free(x);
        cJSON_Delete(fields);
    }
    pthread_mutex_unlock(&s->lock);
    return number;
}

/* Write conversation `number` as it stands now (a later exchange of it may
 * have been added meanwhile: the files always hold the whole of it). */
static void write_number(gt_record_server *s, unsigned long number)
{
    pthread_mutex_lock(&s->lock);
    for (size_t i = 0; i < s->open_count; i++)
        if (s->open[i].number == number)
            write_conversation(s, &s->open[i]);
    pthread_mutex_unlock(&s->lock);
}

static void *forward(void *arg)
{
    exchange *ex = arg;
    char url[4096];
    snprintf(url, sizeof url, "%s%s", ex->server->upstream, ex->path);
    CURL *curl = curl_easy_init();
    char errbuf[CURL_ERROR_SIZE] = "";
    CURLcode rc = CURLE_FAILED_INIT;
    if (curl) {
        curl_easy_setopt(curl, CURLOPT_URL, url);
        curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, ex->method);
        curl_easy_setopt(curl, CURLOPT_HTTPHEADER, ex->headers);
        curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, errbuf);
        curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
        curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, on_header);
        curl_easy_setopt(curl, CURLOPT_HEADERDATA, ex);
        curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, on_body);
        curl_easy_setopt(curl, CURLOPT_WRITEDATA, ex);
        if (ex->request.len > 0) {
            curl_easy_setopt(curl, CURLOPT_POSTFIELDS, ex->request.data);
            curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE, (long)ex->request.len);
        }
        rc = curl_easy_perform(curl);
        curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &ex->status);
        curl_easy_cleanup(curl);
    }
    unsigned long kept = 0;
    if (rc != CURLE_OK && !ex->ready) {
        ex->failed = true;
        snprintf(ex->cause, sizeof ex->cause, "gauntlet record: upstream %s: %s", url,
                 errbuf[0] ? errbuf : curl_easy_strerror(rc));
        if (ex->server->record_errors)
            kept = keep_exchange(ex);
    } else if (ex->status > 0) {
        ex->cut = rc != CURLE_OK; /* the upstream's answer broke off: the client's ends the same way */
        kept = keep_exchange(ex);
    }
    if (ex->pipe_fd[1] >= 0) {
        close(ex->pipe_fd[1]);
        ex->pipe_fd[1] = -1;
    }
    pthread_mutex_lock(&ex->lock);
    ex->done = ex->ready = true;
    pthread_cond_broadcast(&ex->ready_cond);
    pthread_mutex_unlock(&ex->lock);
    /* after the client has its whole answer: writing the files (and the
     * reference's verdict) never delays it; the connection's end joins us */
    if (kept)
        write_number(ex->server, kept);
    return NULL;
}

static void exchange_free(void *arg)
{
    exchange *ex = arg;
    if (ex == NULL)
        return;
    if (ex->pipe_fd[0] >= 0)
        close(ex->pipe_fd[0]); /* a blocked writer then fails and the worker finishes */
    if (ex->thread_started)
        pthread_join(ex->thread, NULL);
    curl_slist_free_all(ex->headers);
    free(ex->request.data);
    free(ex->request_headers.data);
    free(ex->answer.data);
    free(ex->hit);
    pthread_mutex_destroy(&ex->lock);
    pthread_cond_destroy(&ex->ready_cond);
    free(ex);
}

static ssize_t read_answer(void *cls, uint64_t pos, char *buf, size_t max)
{
    (void)pos;
    exchange *ex = cls;
    for (;;) {
        ssize_t n = read(ex->pipe_fd[0], buf, max);
        if (n > 0)
            return n;
        if (n < 0 && errno == EINTR)
            continue;
        return n == 0 && !ex->cut ? MHD_CONTENT_READER_END_OF_STREAM : MHD_CONTENT_READER_END_WITH_ERROR;
    }
}

static enum MHD_Result copy_header(void *cls, enum MHD_ValueKind kind, const char *key, const char *value)
{
    (void)kind;
    exchange *ex = cls;
    size_t len = strlen(key);
    if (strcasecmp(key, "host") == 0 || strcasecmp(key, "content-length") == 0 ||
        strcasecmp(key, "accept-encoding") == 0 || strcasecmp(key, "connection") == 0 ||
        strcasecmp(key, "expect") == 0)
        return MHD_YES;
    char line[8192];
    snprintf(line, sizeof line, "%s: %s", key, value ? value : "");
    ex->headers = curl_slist_append(ex->headers, line);
    bool secret = is_redacted_header(ex->server, key, len);
    snprintf(line, sizeof line, "%s: %s\n", key, secret ? "[redacted]" : value ? value : "");
    buf_add(&ex->request_headers, line, strlen(line), 1 << 20);
    return MHD_YES;
}

/* Append one query argument to the path sent upstream, escaped again. */
static enum MHD_Result copy_argument(void *cls, enum MHD_ValueKind kind, const char *key, const char *value)
{
    (void)kind;
    exchange *ex = cls;
    char *k = curl_easy_escape(NULL, key, 0), *v = value ? curl_easy_escape(NULL, value, 0) : NULL;
    size_t used = strlen(ex->path);
    if (k)
        snprintf(ex->path + used, sizeof ex->path - used, "%s%s%s%s", strchr(ex->path, '?') ? "&" : "?", k,
                 v ? "=" : "", v ? v : "");
    curl_free(k);
    curl_free(v);
    return MHD_YES;
}

static enum MHD_Result reply_text(struct MHD_Connection *connection, unsigned status, const char *text)
{
    struct MHD_Response *response =
        MHD_create_response_from_buffer(strlen(text), (void *)text, MHD_RESPMEM_MUST_COPY);
    if (response == NULL)
        return MHD_NO;
    MHD_add_response_header(response, "content-type", "text/plain");
    enum MHD_Result rc = MHD_queue_response(connection, status, response);
    MHD_destroy_response(response);
    return rc;
}

static ssize_t read_hit(void *cls, uint64_t pos, char *buf, size_t max)
{
    (void)pos;
    exchange *ex = cls;
    if (ex->hit_pos == ex->hit_len)
        return ex->cut ? MHD_CONTENT_READER_END_WITH_ERROR : MHD_CONTENT_READER_END_OF_STREAM;
    size_t n = ex->hit_len - ex->hit_pos < max ? ex->hit_len - ex->hit_pos : max;
    memcpy(buf, ex->hit + ex->hit_pos, n);
    ex->hit_pos += n;
    return (ssize_t)n;
}

/* Record-on-miss: the recorded exchange that answers this request (the first
 * not yet replayed, else the last one), copied into `ex`, its conversation's
 * scenario name in `scenario`; false on a miss. */
static bool find_recorded(gt_record_server *s, exchange *ex, char *scenario, size_t scenario_len)
{
    cJSON *unused = cJSON_CreateArray();
    char *redacted = redact_fields(s, ex->request.data, unused);
    cJSON_Delete(unused);
    const char *request = redacted ? redacted : ex->request.data ? ex->request.data : "";
    pthread_mutex_lock(&s->lock);
    rec_exchange *found = NULL;
    const char *found_in = NULL;
    for (size_t i = 0; i < s->open_count && (found == NULL || found->replayed); i++)
        for (size_t k = 0; k < s->open[i].count && (found == NULL || found->replayed); k++)
            if (rec_same_request(s->open[i].exchanges[k], ex->path, request)) {
                found = s->open[i].exchanges[k];
                found_in = s->open[i].stem;
            }
    if (found) {
        found->replayed = true;
        ex->hit = malloc(found->answer_len + 1);
        if (ex->hit) {
            memcpy(ex->hit, found->answer, found->answer_len);
            ex->hit_len = found->answer_len;
            ex->status = found->status;
            ex->cut = found->cut || found->over_limit;
            snprintf(ex->content_type, sizeof ex->content_type, "%s", found->content_type);
            snprintf(ex->response_headers, sizeof ex->response_headers, "%s", found->response_headers);
            snprintf(scenario, scenario_len, "%s", found_in);
            s->replayed++;
        }
    }
    pthread_mutex_unlock(&s->lock);
    free(redacted);
    return ex->hit != NULL;
}

/* Add each "name: value" line of `lines` to `response`. */
static void add_passed_headers(struct MHD_Response *response, const char *lines)
{
    while (lines && *lines) {
        const char *end = strchr(lines, '\n'), *colon = strchr(lines, ':');
        if (end == NULL || colon == NULL || colon > end)
            break;
        char name[64], value[512];
        snprintf(name, sizeof name, "%.*s", (int)(colon - lines), lines);
        snprintf(value, sizeof value, "%.*s", (int)(end - colon - 2 > 0 ? end - colon - 2 : 0), colon + 2);
        MHD_add_response_header(response, name, value);
        lines = end + 1;
    }
}

static enum MHD_Result serve_recorded(struct MHD_Connection *connection, exchange *ex, const char *scenario)
{
    struct MHD_Response *response = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 16384, read_hit, ex, NULL);
    if (response == NULL)
        return MHD_NO;
    if (ex->content_type[0])
        MHD_add_response_header(response, "content-type", ex->content_type);
    add_passed_headers(response, ex->response_headers);
    MHD_add_response_header(response, "x-gauntlet-recorded", scenario);
    enum MHD_Result rc = MHD_queue_response(connection, (unsigned)(ex->status > 0 ? ex->status : 502), response);
    MHD_destroy_response(response);
    return rc;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *connection, const char *url, const char *method,
                                  const char *version, const char *upload_data, size_t *upload_data_size,
                                  void **con_cls)
{
    (void)version;
    gt_record_server *s = cls;
    exchange *ex = *con_cls;
    if (ex == NULL) {
        ex = calloc(1, sizeof *ex);
        if (ex == NULL)
            return MHD_NO;
        ex->server = s;
        ex->pipe_fd[0] = ex->pipe_fd[1] = -1;
        pthread_mutex_init(&ex->lock, NULL);
        pthread_cond_init(&ex->ready_cond, NULL);
        snprintf(ex->method, sizeof ex->method, "%s", method);
        snprintf(ex->path, sizeof ex->path, "%s", url);
        pthread_mutex_lock(&s->lock);
        ex->counted = !s->draining;
        if (ex->counted)
            s->in_flight++;
        pthread_mutex_unlock(&s->lock);
        *con_cls = ex;
        return MHD_YES;
    }
    if (*upload_data_size > 0) {
        buf_add(&ex->request, upload_data, *upload_data_size, GT_RECORD_MAX_ANSWER);
        *upload_data_size = 0;
        return MHD_YES;
    }
    if (!ex->counted)
        return reply_text(connection, 503, "gauntlet record: shutting down (SIGINT/SIGTERM received): the request "
                                           "was not forwarded or recorded\n");
    if (ex->request.truncated)
        return reply_text(connection, 413, "gauntlet record: request body over the recording limit\n");
    MHD_get_connection_values(connection, MHD_HEADER_KIND, copy_header, ex);
    MHD_get_connection_values(connection, MHD_GET_ARGUMENT_KIND, copy_argument, ex);
    char scenario[REC_STEM_MAX];
    if (s->record_missing && find_recorded(s, ex, scenario, sizeof scenario))
        return serve_recorded(connection, ex, scenario);
    if (pipe(ex->pipe_fd) != 0)
        return reply_text(connection, 500, "gauntlet record: cannot create a pipe\n");
    if (pthread_create(&ex->thread, NULL, forward, ex) != 0)
        return reply_text(connection, 500, "gauntlet record: cannot start a thread\n");
    ex->thread_started = true;
    pthread_mutex_lock(&ex->lock);
    while (!ex->ready)
        pthread_cond_wait(&ex->ready_cond, &ex->lock);
    pthread_mutex_unlock(&ex->lock);
    if (ex->failed) {
        char text[sizeof ex->cause + 2];
        snprintf(text, sizeof text, "%s\n", ex->cause);
        return reply_text(connection, 502, text);
    }
    struct MHD_Response *response = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 16384, read_answer, ex, NULL);
    if (response == NULL)
        return MHD_NO;
    if (ex->content_type[0])
        MHD_add_response_header(response, "content-type", ex->content_type);
    add_passed_headers(response, ex->response_headers);
    enum MHD_Result rc = MHD_queue_response(connection, (unsigned)(ex->status > 0 ? ex->status : 502), response);
    MHD_destroy_response(response);
    return rc;
}

static void on_completed(void *cls, struct MHD_Connection *connection, void **con_cls,
                         enum MHD_RequestTerminationCode code)
{
    (void)connection;
    (void)code;
    gt_record_server *s = cls;
    exchange *ex = *con_cls;
    bool counted = ex != NULL && ex->counted;
    exchange_free(ex); /* joins the worker: the exchange's files are written */
    *con_cls = NULL;
    if (counted) {
        pthread_mutex_lock(&s->lock);
        s->in_flight--;
        pthread_cond_broadcast(&s->idle);
        pthread_mutex_unlock(&s->lock);
    }
}

/* The recording's name: --name as given (lowercase letters, digits, '-', '_'), else
 * the one recording.txt holds, else DIR's last component lowercased, every
 * other character as '-' (case ids are [a-z0-9._-]). A --name other than the stored one is refused: case ids
 * stay what they were. 0, or -1 with `err`. */
static int recording_name(const char *dir, const char *given, char *out, char *err, size_t err_len)
{
    char stored[GT_RECORD_NAME_MAX + 1] = "", marker[1100], line[256];
    snprintf(marker, sizeof marker, "%s/recording.txt", dir);
    FILE *f = fopen(marker, "r");
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, "name ", 5) == 0)
            snprintf(stored, sizeof stored, "%.*s", (int)strcspn(line + 5, "\r\n"), line + 5);
    if (f)
        fclose(f);
    if (given) {
        size_t len = strlen(given);
        bool ok = len > 0 && len <= GT_RECORD_NAME_MAX && strspn(given, "abcdefghijklmnopqrstuvwxyz0123456789-_") == len;
        if (!ok) {
            snprintf(err, err_len, "--name %s: use 1-%d lowercase letters, digits, '-' or '_' (case ids are [a-z0-9._-])", given, GT_RECORD_NAME_MAX);
            return -1;
        }
        if (stored[0] && strcmp(stored, given) != 0) {
            snprintf(err, err_len, "--name %s: %s is the recording %s (recording.txt); its case ids keep that name: "
                                   "drop --name or choose a new directory", given, dir, stored);
            return -1;
        }
        snprintf(out, GT_RECORD_NAME_MAX + 1, "%s", given);
        return 0;
    }
    if (stored[0]) {
        snprintf(out, GT_RECORD_NAME_MAX + 1, "%s", stored);
        return 0;
    }
    size_t end = strlen(dir);
    while (end > 1 && dir[end - 1] == '/')
        end--;
    size_t start = end;
    while (start > 0 && dir[start - 1] != '/')
        start--;
    size_t n = 0;
    for (size_t i = start; i < end && n < GT_RECORD_NAME_MAX; i++) {
        char c = dir[i];
        bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
        if (keep)
            out[n++] = (char)tolower((unsigned char)c);
        else if (n > 0 && out[n - 1] != '-')
            out[n++] = '-';
    }
    while (n > 0 && out[n - 1] == '-')
        n--;
    out[n] = '\0';
    if (n == 0)
        snprintf(out, GT_RECORD_NAME_MAX + 1, "recording");
    return 0;
}

static int prepare_dir(const char *dir, const char *flag, char *err, size_t err_len)
{
    struct stat st;
    if (stat(dir, &st) != 0) {
        if (mkdir(dir, 0777) != 0) {
            snprintf(err, err_len, "%s %s: cannot create: %s", flag, dir, strerror(errno));
            return -1;
        }
        return 0;
    }
    if (!S_ISDIR(st.st_mode)) {
        snprintf(err, err_len, "%s %s: not a directory", flag, dir);
        return -1;
    }
    char marker[1100];
    snprintf(marker, sizeof marker, "%s/recording.txt", dir);
    if (access(marker, F_OK) == 0)
        return 0;
    DIR *listing = opendir(dir);
    int nonempty = listing == NULL;
    for (struct dirent *entry; listing && (entry = readdir(listing)) != NULL;)
        if (strcmp(entry->d_name, ".") != 0 && strcmp(entry->d_name, "..") != 0)
            nonempty = 1;
    if (listing)
        closedir(listing);
    if (nonempty) {
        snprintf(err, err_len, "%s %s: not empty and not a recording (no recording.txt); choose a new directory",
                 flag, dir);
        return -1;
    }
    return 0;
}

/* Free a server whose daemon is stopped or never started. */
static void gt_record_stop_free(gt_record_server *server)
{
    for (size_t i = 0; i < server->open_count; i++)
        conversation_free(&server->open[i]);
    free(server->open);
    pthread_mutex_destroy(&server->lock);
    pthread_cond_destroy(&server->idle);
    free(server);
}

/* The conversation number of a file stem NAME.NNNN or NNNN (the digits after
 * its last '.'); false when the stem is not one of a conversation. */
static bool stem_number(const char *stem, unsigned long *number)
{
    const char *dot = strrchr(stem, '.'), *digits = dot ? dot + 1 : stem;
    if (digits[0] == '\0' || strspn(digits, "0123456789") != strlen(digits))
        return false;
    *number = strtoul(digits, NULL, 10);
    return true;
}

/* The stem of DIR entry `name` when it is a conversation's file
 * (STEM.exchange.txt, .scenario.json or .cases.json), in `stem`; false
 * otherwise. `only_index` takes exchange.txt alone. */
static bool conversation_stem(const char *name, bool only_index, char *stem, size_t stem_len, unsigned long *number)
{
    static const char *const suffixes[] = {".exchange.txt", ".scenario.json", ".cases.json"};
    size_t len = strlen(name);
    for (size_t i = 0; i < (only_index ? 1 : 3); i++) {
        size_t slen = strlen(suffixes[i]);
        if (name[0] != '.' && len > slen && len - slen < stem_len && strcmp(name + len - slen, suffixes[i]) == 0) {
            snprintf(stem, stem_len, "%.*s", (int)(len - slen), name);
            return stem_number(stem, number);
        }
    }
    return false;
}

/* Read the conversations DIR already holds (STEM.exchange.txt with its
 * STEM.scenario.json), in name order, so that a request may continue one
 * or, with record_missing, be answered from it. 0, or -1 with `err`. */
static int load_recording(gt_record_server *s, char *err, size_t err_len)
{
    struct dirent **names = NULL;
    int n = scandir(s->out_dir, &names, NULL, alphasort);
    int rc = 0;
    for (int i = 0; i < n; i++) {
        char stem[REC_STEM_MAX];
        unsigned long number = 0;
        if (rc == 0 && conversation_stem(names[i]->d_name, true, stem, sizeof stem, &number)) {
            rec_exchange **list = NULL;
            cJSON *infos = NULL;
            err[0] = '\0';
            int count = rec_load_conversation(s->out_dir, stem, &list, &infos, err, err_len);
            rec_conversation *c = count >= 0 ? conversation_new(s) : NULL;
            if (c == NULL) {
                if (count >= 0) {
                    for (int k = 0; k < count; k++)
                        rec_exchange_free(list[k]);
                    free(list);
                    cJSON_Delete(infos);
                    snprintf(err, err_len, "out of memory");
                }
                rc = -1;
            } else {
                c->number = number;
                snprintf(c->stem, sizeof c->stem, "%s", stem);
                c->exchanges = list;
                c->count = (size_t)count;
                c->infos = infos;
            }
        }
        free(names[i]);
    }
    free(names);
    return rc;
}

/* The highest conversation number of DIR's files (0 when none). */
static unsigned long highest_number(const char *dir)
{
    unsigned long highest = 0;
    DIR *listing = opendir(dir);
    for (struct dirent *entry; listing && (entry = readdir(listing)) != NULL;) {
        char stem[REC_STEM_MAX];
        unsigned long n = 0;
        if (conversation_stem(entry->d_name, false, stem, sizeof stem, &n) && n > highest)
            highest = n;
    }
    if (listing)
        closedir(listing);
    return highest;
}

gt_record_server *gt_record_start(const gt_record_options *options, char *err, size_t err_len)
{
    const char *host = options->host ? options->host : "127.0.0.1";
    if (!options->allow_remote && strcmp(host, "127.0.0.1") != 0 && strcmp(host, "localhost") != 0 &&
        strcmp(host, "::1") != 0) {
        snprintf(err, err_len, "--host %s is not loopback: add --allow-remote to bind it", host);
        return NULL;
    }
    if (strncmp(options->upstream, "http://", 7) != 0 && strncmp(options->upstream, "https://", 8) != 0) {
        snprintf(err, err_len, "--upstream %s: needs an http:// or https:// URL", options->upstream);
        return NULL;
    }
    char name[GT_RECORD_NAME_MAX + 1];
    if (recording_name(options->out_dir, options->name, name, err, err_len) != 0 || /* before DIR is made */
        prepare_dir(options->out_dir, options->record_missing ? "--corpus" : "--out", err, err_len) != 0)
        return NULL;
    gt_record_server *s = calloc(1, sizeof *s);
    if (s == NULL) {
        snprintf(err, err_len, "out of memory");
        return NULL;
    }
    snprintf(s->upstream, sizeof s->upstream, "%s", options->upstream);
    size_t ulen = strlen(s->upstream);
    while (ulen > 0 && s->upstream[ulen - 1] == '/')
        s->upstream[--ulen] = '\0';
    snprintf(s->out_dir, sizeof s->out_dir, "%s", options->out_dir);
    snprintf(s->name, sizeof s->name, "%s", name);
    s->redact = options->redact;
    s->redact_count = options->redact_count;
    s->record_errors = options->record_errors;
    s->conversations = highest_number(s->out_dir); /* an existing recording grows, never overwritten */
    s->record_missing = options->record_missing;
    s->open_limit = options->record_missing ? (size_t)-1 : REC_OPEN_CONVERSATIONS;
    pthread_mutex_init(&s->lock, NULL);
    pthread_cond_init(&s->idle, NULL);
    if (load_recording(s, err, err_len) != 0) {
        gt_record_stop_free(s);
        return NULL;
    }
    char marker[4096];
    snprintf(marker, sizeof marker, "gauntlet-recording/1\nupstream %s\nname %s\n", s->upstream, s->name);
    write_atomic(s->out_dir, "recording.txt", marker);
    struct sockaddr_in addr;
    memset(&addr, 0, sizeof addr);
    addr.sin_family = AF_INET;
    addr.sin_port = htons((uint16_t)options->port);
    if (inet_pton(AF_INET, strcmp(host, "localhost") == 0 ? "127.0.0.1" : host, &addr.sin_addr) != 1) {
        snprintf(err, err_len, "--host %s: not an IPv4 address", host);
        gt_record_stop_free(s);
        return NULL;
    }
    s->daemon = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION, 0, NULL, NULL,
                                 on_request, s, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&addr, MHD_OPTION_NOTIFY_COMPLETED,
                                 on_completed, s, MHD_OPTION_END);
    if (s->daemon == NULL) {
        snprintf(err, err_len, "cannot listen on %s:%u", host, options->port);
        gt_record_stop_free(s);
        return NULL;
    }
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(s->daemon, MHD_DAEMON_INFO_BIND_PORT);
    snprintf(s->base_url, sizeof s->base_url, "http://%s:%u", strcmp(host, "localhost") == 0 ? "127.0.0.1" : host,
             info ? (unsigned)info->port : options->port);
    return s;
}

const char *gt_record_base_url(const gt_record_server *server)
{
    return server->base_url;
}

unsigned long gt_record_exchange_count(gt_record_server *server)
{
    pthread_mutex_lock(&server->lock);
    unsigned long n = server->exchanges;
    pthread_mutex_unlock(&server->lock);
    return n;
}

void gt_record_stop(gt_record_server *server)
{
    if (server == NULL)
        return;
    MHD_stop_daemon(server->daemon);
    gt_record_stop_free(server);
}

unsigned long gt_record_drain_begin(gt_record_server *server)
{
    pthread_mutex_lock(&server->lock);
    server->draining = true;
    unsigned long n = server->in_flight;
    pthread_mutex_unlock(&server->lock);
    return n;
}

unsigned long gt_record_in_flight(gt_record_server *server)
{
    pthread_mutex_lock(&server->lock);
    unsigned long n = server->in_flight;
    pthread_mutex_unlock(&server->lock);
    return n;
}

unsigned long gt_record_drain_wait(gt_record_server *server, int timeout_ms)
{
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += timeout_ms / 1000;
    until.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
    if (until.tv_nsec >= 1000000000L) {
        until.tv_sec++;
        until.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&server->lock);
    while (server->in_flight > 0 && pthread_cond_timedwait(&server->idle, &server->lock, &until) == 0)
        ;
    unsigned long n = server->in_flight;
    pthread_mutex_unlock(&server->lock);
    return n;
}

unsigned long gt_record_replayed_count(gt_record_server *server)
{
    pthread_mutex_lock(&server->lock);
    unsigned long n = server->replayed;
    pthread_mutex_unlock(&server->lock);
    return n;
}
