/* record.c — `gauntlet record`: a recording HTTP proxy (libmicrohttpd in,
 * libcurl out, both through platform/lazy_net.c).
 *
 * Each request is forwarded to the upstream base URL + its path by a worker
 * thread; the answer's bytes go through a pipe to the client as they arrive
 * (an MHD callback response), so nothing holds the whole answer for the
 * client. A copy up to GT_RECORD_MAX_ANSWER is kept for the recording; when
 * the exchange ends it is written atomically (temp file + rename) as
 * DIR/NNNN.scenario.json, a script `gauntlet serve --corpus DIR` replays:
 * an SSE answer as a stream turn with "sse", any other answer as an error
 * turn {"status","body"} whose raw body the mock sends as-is. The request
 * (headers redacted, dotted JSON fields redacted) goes to DIR/NNNN.exchange.txt.
 * Not for: grouping conversations, record-on-miss, cases (docs/record.md). */
#include <arpa/inet.h>
#include <cjson/cJSON.h>
#include <dirent.h>
#include <curl/curl.h>
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
#include <unistd.h>

#include "gauntlet/runner/mock.h"

static const char *const default_redacted[] = {"x-api-key", "authorization", "openai-organization", "cookie",
                                              "set-cookie", "proxy-authorization", NULL};

struct gt_record_server {
    struct MHD_Daemon *daemon;
    char upstream[1024];
    char out_dir[1024];
    char base_url[128];
    const char *const *redact;
    size_t redact_count;
    pthread_mutex_t lock;
    unsigned long exchanges;
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
    long status;
    int pipe_fd[2];
    pthread_t thread;
    bool thread_started;
    pthread_mutex_t lock;
    pthread_cond_t ready_cond;
    bool ready, done, failed;
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

static size_t on_header(char *data, size_t size, size_t count, void *user)
{
    exchange *ex = user;
    size_t n = size * count;
    if (n > 9 && strncmp(data, "HTTP/", 5) == 0) { /* a status line (again after a 1xx) */
        const char *space = memchr(data, ' ', n);
        if (space != NULL)
            ex->status = strtol(space + 1, NULL, 10);
        ex->content_type[0] = '\0';
    } else if (n > 13 && strncasecmp(data, "content-type:", 13) == 0) {
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

static void save_exchange(exchange *ex)
{
    gt_record_server *s = ex->server;
    pthread_mutex_lock(&s->lock);
    unsigned long number = ++s->exchanges;
    pthread_mutex_unlock(&s->lock);
    cJSON *redacted = cJSON_CreateArray();
    for (size_t i = 0; default_redacted[i]; i++)
        cJSON_AddItemToArray(redacted, cJSON_CreateString(default_redacted[i]));
    for (size_t i = 0; i < s->redact_count; i++)
        cJSON_AddItemToArray(redacted, cJSON_CreateString(s->redact[i]));
    cJSON *fields = cJSON_CreateArray();
    char *request = redact_fields(s, ex->request.data, fields);
    char *answer = redact_fields(s, ex->answer.data, fields);
    const char *answer_text = answer ? answer : ex->answer.data ? ex->answer.data : "";
    bool sse = strncasecmp(ex->content_type, "text/event-stream", 17) == 0;
    const char *provider = strstr(ex->path, "/v1/messages") ? "anthropic"
                           : strstr(ex->path, "/v1/chat/completions") ? "openai"
                                                                       : NULL;
    cJSON *script = cJSON_CreateObject();
    if (provider)
        cJSON_AddStringToObject(script, "provider", provider);
    cJSON *turns = cJSON_AddArrayToObject(script, "turns");
    cJSON *turn = cJSON_CreateObject();
    if (sse && ex->status == 200) {
        cJSON *stream = cJSON_AddObjectToObject(turn, "stream");
        cJSON_AddStringToObject(stream, "sse", answer_text);
    } else {
        cJSON *error = cJSON_AddObjectToObject(turn, "error");
        cJSON_AddNumberToObject(error, "status", (double)ex->status);
        cJSON_AddStringToObject(error, "body", answer_text);
    }
    cJSON_AddItemToArray(turns, turn);
    cJSON *info = cJSON_CreateObject();
    cJSON_AddStringToObject(info, "format", "gauntlet-recording/1");
    cJSON_AddStringToObject(info, "method", ex->method);
    cJSON_AddStringToObject(info, "path", ex->path);
    cJSON_AddNumberToObject(info, "status", (double)ex->status);
    cJSON_AddStringToObject(info, "content_type", ex->content_type);
    cJSON_AddBoolToObject(info, "answer_cut_at_limit", ex->answer.truncated);
    cJSON_AddStringToObject(info, "request_headers", ex->request_headers.data ? ex->request_headers.data : "");
    cJSON_AddStringToObject(info, "request_body", request ? request : ex->request.data ? ex->request.data : "");
    cJSON_AddItemToObject(info, "redacted_headers", redacted);
    cJSON_AddItemToObject(info, "redacted_fields", fields);
    char *script_text = cJSON_Print(script);
    char *info_text = cJSON_Print(info);
    char name[64];
    if (script_text && info_text) {
        snprintf(name, sizeof name, "%04lu.exchange.txt", number);
        write_atomic(s->out_dir, name, info_text);
        snprintf(name, sizeof name, "%04lu.scenario.json", number);
        write_atomic(s->out_dir, name, script_text);
    }
    free(script_text);
    free(info_text);
    cJSON_Delete(script);
    cJSON_Delete(info);
    free(request);
    free(answer);
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
    if (rc != CURLE_OK && !ex->ready) {
        ex->failed = true;
        snprintf(ex->cause, sizeof ex->cause, "gauntlet record: upstream %s: %s", url,
                 errbuf[0] ? errbuf : curl_easy_strerror(rc));
    } else if (ex->status > 0) {
        save_exchange(ex);
    }
    if (ex->pipe_fd[1] >= 0) {
        close(ex->pipe_fd[1]);
        ex->pipe_fd[1] = -1;
    }
    pthread_mutex_lock(&ex->lock);
    ex->done = ex->ready = true;
    pthread_cond_broadcast(&ex->ready_cond);
    pthread_mutex_unlock(&ex->lock);
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
        return n == 0 ? MHD_CONTENT_READER_END_OF_STREAM : MHD_CONTENT_READER_END_WITH_ERROR;
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
        *con_cls = ex;
        return MHD_YES;
    }
    if (*upload_data_size > 0) {
        buf_add(&ex->request, upload_data, *upload_data_size, GT_RECORD_MAX_ANSWER);
        *upload_data_size = 0;
        return MHD_YES;
    }
    if (ex->request.truncated)
        return reply_text(connection, 413, "gauntlet record: request body over the recording limit\n");
    MHD_get_connection_values(connection, MHD_HEADER_KIND, copy_header, ex);
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
    enum MHD_Result rc = MHD_queue_response(connection, (unsigned)(ex->status > 0 ? ex->status : 502), response);
    MHD_destroy_response(response);
    return rc;
}

static void on_completed(void *cls, struct MHD_Connection *connection, void **con_cls,
                         enum MHD_RequestTerminationCode code)
{
    (void)cls;
    (void)connection;
    (void)code;
    exchange_free(*con_cls);
    *con_cls = NULL;
}

static int prepare_dir(const char *dir, char *err, size_t err_len)
{
    struct stat st;
    if (stat(dir, &st) != 0) {
        if (mkdir(dir, 0777) != 0) {
            snprintf(err, err_len, "--out %s: cannot create: %s", dir, strerror(errno));
            return -1;
        }
        return 0;
    }
    if (!S_ISDIR(st.st_mode)) {
        snprintf(err, err_len, "--out %s: not a directory", dir);
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
        snprintf(err, err_len, "--out %s: not empty and not a recording (no recording.txt); choose a new directory",
                 dir);
        return -1;
    }
    return 0;
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
    if (prepare_dir(options->out_dir, err, err_len) != 0)
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
    s->redact = options->redact;
    s->redact_count = options->redact_count;
    pthread_mutex_init(&s->lock, NULL);
    char marker[4096];
    snprintf(marker, sizeof marker, "gauntlet-recording/1\nupstream %s\n", s->upstream);
    write_atomic(s->out_dir, "recording.txt", marker);
    struct sockaddr_in addr;
    memset(&addr, 0, sizeof addr);
    addr.sin_family = AF_INET;
    addr.sin_port = htons((uint16_t)options->port);
    if (inet_pton(AF_INET, strcmp(host, "localhost") == 0 ? "127.0.0.1" : host, &addr.sin_addr) != 1) {
        snprintf(err, err_len, "--host %s: not an IPv4 address", host);
        free(s);
        return NULL;
    }
    s->daemon = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION, 0, NULL, NULL,
                                 on_request, s, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&addr, MHD_OPTION_NOTIFY_COMPLETED,
                                 on_completed, NULL, MHD_OPTION_END);
    if (s->daemon == NULL) {
        snprintf(err, err_len, "cannot listen on %s:%u", host, options->port);
        free(s);
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
    pthread_mutex_destroy(&server->lock);
    free(server);
}
