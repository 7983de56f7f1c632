/* target_adapter.c — the "adapter" target (docs/adapter-protocol.md).
 *
 * One subprocess per worker thread, started with `sh -c CMD` in its own
 * process group. Every wait has a deadline; every failure of the adapter
 * (exit, signal, hang, garbage, partial or oversized line, wrong seq) becomes
 * GT_CHECK_ERROR for the current case with the evidence in the note, and the
 * adapter is killed and restarted for the next case. */
#include "target_adapter.h"

#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gauntlet/util.h"
#include "reap.h"
#include "child.h"
#include "gauntlet/arena.h"
#include "gauntlet/parse.h"

#include "gauntlet/version.h"

static int default_timeout_ms = GT_ADAPTER_DEFAULT_TIMEOUT_MS; /* set once by the CLI before threads start */

void gt_adapter_set_timeout_ms(int timeout_ms)
{
    default_timeout_ms = timeout_ms > 0 ? timeout_ms : GT_ADAPTER_DEFAULT_TIMEOUT_MS;
}

int gt_adapter_timeout_ms(void) { return default_timeout_ms; }

static size_t default_max_line = GT_ADAPTER_MAX_LINE; /* set before threads start (tests) */

void gt_adapter_set_max_line(size_t bytes) { default_max_line = bytes > 0 ? bytes : GT_ADAPTER_MAX_LINE; }

typedef struct adapter {
    char *command;
    int timeout_ms;
    size_t max_line; /* longest reply line accepted */
    gt_child child; /* the running adapter (in/out/err -1 when not running) */
    char *line;                          /* stdout bytes read but not consumed */
    size_t line_len, line_cap;
    char stderr_tail[2048]; /* the newest stderr bytes */
    size_t stderr_len;
    char name[160];
    unsigned capabilities; /* bit per gt_gate */
    unsigned profiles;     /* the hello's "profiles" (gt_profile bits), 0 when it names none */
    int failed_starts;
    char unavailable[512]; /* non-empty: give up, say why for every case */
    unsigned long long seq;
    gt_arena *arena;
    long long case_deadline; /* when the current case's --timeout runs out (restart, hello and check together) */
} adapter;

static long long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Keep the newest bytes of the adapter's stderr as evidence. */
static void stderr_append(adapter *ad, const char *bytes, size_t len)
{
    size_t cap = sizeof ad->stderr_tail - 1;
    if (len >= cap) {
        memcpy(ad->stderr_tail, bytes + len - cap, cap);
        ad->stderr_len = cap;
    } else {
        if (ad->stderr_len + len > cap) {
            size_t drop = ad->stderr_len + len - cap;
            memmove(ad->stderr_tail, ad->stderr_tail + drop, ad->stderr_len - drop);
            ad->stderr_len -= drop;
        }
        memcpy(ad->stderr_tail + ad->stderr_len, bytes, len);
        ad->stderr_len += len;
    }
    ad->stderr_tail[ad->stderr_len] = '\0';
}

/* The last GT_ADAPTER_STDERR_LINES lines of stderr on one line, " | "-joined. */
static void stderr_evidence(const adapter *ad, char *out, size_t out_len)
{
    out[0] = '\0';
    if (ad->stderr_len == 0)
        return;
    const char *start = ad->stderr_tail, *end = ad->stderr_tail + ad->stderr_len;
    while (end > start && (end[-1] == '\n' || end[-1] == '\r'))
        end--;
    const char *from = end;
    for (int lines = 0; from > start; from--)
        if (from[-1] == '\n' && ++lines == GT_ADAPTER_STDERR_LINES)
            break;
    size_t o = 0;
    o += (size_t)snprintf(out, out_len, "; stderr: ");
    for (const char *p = from; p < end && o + 4 < out_len; p++) {
        if (*p == '\n') {
            o += (size_t)snprintf(out + o, out_len - o, " | ");
        } else if ((unsigned char)*p >= 0x20 || *p == '\t') {
            out[o++] = *p;
            out[o] = '\0';
        }
    }
}

static void drain_stderr(adapter *ad)
{
    char buffer[4096];
    for (;;) {
        ssize_t got = read(ad->child.err, buffer, sizeof buffer);
        if (got <= 0)
            return;
        stderr_append(ad, buffer, (size_t)got);
    }
}

/* Kill the adapter's process group and reap it; describe how it ended. */
static void stop_adapter(adapter *ad, char *how, size_t how_len)
{
    if (how != NULL)
        how[0] = '\0';
    if (ad->child.pid <= 0)
        return;
    if (ad->child.err >= 0)
        drain_stderr(ad);
    int status = 0;
    pid_t done = waitpid(ad->child.pid, &status, WNOHANG);
    if (done == ad->child.pid)
        ad->child.pid = -ad->child.pid; /* reaped: only its group and what it started are left */
    gt_child_end(&ad->child, true);
    if (how != NULL && done == 0) {
        snprintf(how, how_len, "killed by gauntlet");
    } else if (how != NULL && done > 0) {
        if (WIFEXITED(status) && WEXITSTATUS(status) > 128 && WEXITSTATUS(status) < 128 + 65)
            snprintf(how, how_len, "exited with status %d (a shell reporting signal %d, %s)", WEXITSTATUS(status),
                     WEXITSTATUS(status) - 128, strsignal(WEXITSTATUS(status) - 128));
        else if (WIFEXITED(status))
            snprintf(how, how_len, "exited with status %d", WEXITSTATUS(status));
        else if (WIFSIGNALED(status))
            snprintf(how, how_len, "killed by signal %d (%s)", WTERMSIG(status), strsignal(WTERMSIG(status)));
    }
    ad->line_len = 0;
}

static int spawn_adapter(adapter *ad, char *err, size_t err_len)
{
    if (gt_child_start(&ad->child, ad->command, NULL, 0, true, err, err_len) != 0)
        return -1;
    fcntl(ad->child.in, F_SETFL, O_NONBLOCK);
    fcntl(ad->child.out, F_SETFL, O_NONBLOCK);
    fcntl(ad->child.err, F_SETFL, O_NONBLOCK);
    ad->line_len = 0;
    ad->stderr_len = 0;
    ad->stderr_tail[0] = '\0';
    return 0;
}

/* Write everything before the deadline. 0, or -1 (closed / timed out). */
static int write_all(adapter *ad, const char *data, size_t len, long long deadline)
{
    while (len > 0) {
        ssize_t wrote = write(ad->child.in, data, len);
        if (wrote > 0) {
            data += wrote;
            len -= (size_t)wrote;
            continue;
        }
        if (wrote < 0 && errno != EAGAIN && errno != EINTR)
            return -1;
        long long left = deadline - now_ms();
        if (left <= 0)
            return -1;
        struct pollfd fds[2] = {{ad->child.in, POLLOUT, 0}, {ad->child.err, POLLIN, 0}};
        poll(fds, 2, (int)(left > 100 ? 100 : left));
        if (fds[1].revents & POLLIN)
            drain_stderr(ad);
    }
    return 0;
}

enum read_status { READ_LINE = 0, READ_EOF = -1, READ_TIMEOUT = -2, READ_TOO_LONG = -3, READ_NOMEM = -4 };

/* Read one '\n'-terminated line from the adapter before the deadline. The
 * line (without '\n', NUL-terminated) stays in ad->line; *len gets its
 * length. Bytes after it are kept for the next call. */
static int read_line(adapter *ad, long long deadline, size_t *len)
{
    for (;;) {
        char *newline = ad->line_len ? memchr(ad->line, '\n', ad->line_len) : NULL;
        if (newline != NULL) {
            *len = (size_t)(newline - ad->line);
            *newline = '\0';
            return READ_LINE;
        }
        if (ad->line_len > ad->max_line)
            return READ_TOO_LONG;
        if (ad->line_cap - ad->line_len < 65536) {
            size_t cap = ad->line_cap ? ad->line_cap * 2 : 131072;
            char *grown = realloc(ad->line, cap + 1);
            if (grown == NULL)
                return READ_NOMEM;
            ad->line = grown;
            ad->line_cap = cap;
        }
        ssize_t got = read(ad->child.out, ad->line + ad->line_len, ad->line_cap - ad->line_len);
        if (got > 0) {
            ad->line_len += (size_t)got;
            continue;
        }
        if (got == 0)
            return READ_EOF;
        if (errno != EAGAIN && errno != EINTR)
            return READ_EOF;
        long long left = deadline - now_ms();
        if (left <= 0)
            return READ_TIMEOUT;
        struct pollfd fds[2] = {{ad->child.out, POLLIN, 0}, {ad->child.err, POLLIN, 0}};
        if (poll(fds, 2, (int)(left > 1000 ? 1000 : left)) == 0 && ad->child.pid > 0) {
            /* no EOF can come while the wrapper shell keeps its copy of the
             * pipe: an adapter below it that closed its stdout is seen here */
            struct stat pipe_info;
            if (fstat(ad->child.out, &pipe_info) == 0 &&
                gt_reap_pipe_left_to_root(ad->child.pid, (unsigned long)pipe_info.st_ino))
                return READ_EOF;
        }
        if (fds[1].revents & (POLLIN | POLLHUP))
            drain_stderr(ad);
    }
}

/* Drop the line just returned by read_line from the buffer. */
static void consume_line(adapter *ad, size_t len)
{
    size_t rest = ad->line_len - (len + 1);
    memmove(ad->line, ad->line + len + 1, rest);
    ad->line_len = rest;
}

/* Describe a failed read as evidence, stopping the adapter. */
static void read_failure(adapter *ad, int status, const char *waiting_for, int timeout_ms, char *note,
                         size_t note_len)
{
    char how[128], tail[1200];
    size_t pending = ad->line_len;
    if (status == READ_TIMEOUT)
        drain_stderr(ad);
    if (status == READ_EOF && ad->child.pid > 0) {
        /* stdout closes a moment before the exit can be reaped: wait for it
         * (bounded) so the note says how the adapter ended, not "killed by
         * gauntlet" (a loaded machine widens that moment) */
        long long until = now_ms() + 2000;
        if (ad->case_deadline > 0 && until > ad->case_deadline) /* within the case's --timeout, but a moment at least */
            until = ad->case_deadline > now_ms() + 50 ? ad->case_deadline : now_ms() + 50;
        for (;;) {
            siginfo_t info = {0};
            if (waitid(P_PID, (id_t)ad->child.pid, &info, WEXITED | WNOHANG | WNOWAIT) != 0 || info.si_pid != 0 ||
                now_ms() >= until)
                break;
            struct timespec pause = {0, 5 * 1000 * 1000};
            nanosleep(&pause, NULL);
        }
    }
    stop_adapter(ad, how, sizeof how);
    stderr_evidence(ad, tail, sizeof tail);
    switch (status) {
    case READ_TIMEOUT:
        snprintf(note, note_len, "adapter timed out after %d ms waiting for %s%s (%s)%s", timeout_ms, waiting_for,
                 pending ? ", with a partial line and no newline" : "", how, tail);
        break;
    case READ_TOO_LONG:
        snprintf(note, note_len, "adapter wrote a line over %zu bytes while answering %s (%s)%s", ad->max_line,
                 waiting_for, how, tail);
        break;
    case READ_NOMEM: snprintf(note, note_len, "out of memory reading the adapter's %s", waiting_for); break;
    default:
        /* stdout closed while the adapter still ran: say so, not how gauntlet ended it */
        if (strcmp(how, "killed by gauntlet") == 0 || how[0] == '\0')
            snprintf(note, note_len, "adapter closed its stdout before answering %s%s (then %s)%s", waiting_for,
                     pending ? " (it left a partial line without newline)" : "",
                     how[0] ? "killed by gauntlet" : "gone", tail);
        else
            snprintf(note, note_len, "adapter %s before answering %s%s%s", how, waiting_for,
                     pending ? " (it left a partial line without newline)" : "", tail);
        break;
    }
}

/* Printable start of a bad line, for evidence. */
static void excerpt_of(const char *line, size_t len, char *out, size_t out_len)
{
    size_t o = 0;
    for (size_t i = 0; i < len && o + 5 < out_len && i < 120; i++) {
        unsigned char c = (unsigned char)line[i];
        if (c >= 0x20 && c < 0x7f)
            out[o++] = (char)c;
        else
            o += (size_t)snprintf(out + o, out_len - o, "\\x%02x", c);
    }
    out[o] = '\0';
    if (len > 120 && o + 4 < out_len)
        strcat(out, "...");
}

static const char *string_member(const gt_value *object, const char *key)
{
    const gt_value *value = gt_value_get(object, key, strlen(key));
    return value != NULL && value->type == GT_STRING ? value->u.str.chars : NULL;
}

static bool reply_word_char(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
           c == '+' || c == '-';
}

/* `line` with Python's non-finite numbers (json.dumps' default
 * allow_nan=True) written as JSON: Infinity as 1e999, -Infinity as -1e999
 * (numbers beyond a double, which the reply parser keeps as written), NaN as
 * null. Only whole words outside strings are rewritten. A copy in `arena`
 * (*out_len its length), or NULL when there is nothing to rewrite. */
static char *rewrite_non_finite(gt_arena *arena, const char *line, size_t len, size_t *out_len)
{
    char *copy = gt_arena_alloc(arena, len + len / 3 + 2); /* NaN -> null grows by 1 in 3 */
    if (copy == NULL)
        return NULL;
    size_t used = 0, rewritten = 0;
    bool in_string = false;
    for (size_t i = 0; i < len;) {
        unsigned char c = (unsigned char)line[i];
        if (in_string) {
            copy[used++] = (char)c;
            if (c == '\\' && i + 1 < len)
                copy[used++] = line[++i];
            else if (c == '"')
                in_string = false;
            i++;
            continue;
        }
        if (c == '"') {
            in_string = true;
            copy[used++] = (char)c;
            i++;
            continue;
        }
        static const struct {
            const char *word, *json;
        } words[] = {{"-Infinity", "-1e999"}, {"Infinity", "1e999"}, {"NaN", "null"}};
        bool replaced = false;
        for (size_t w = 0; w < sizeof words / sizeof words[0] && !replaced; w++) {
            size_t wlen = strlen(words[w].word);
            if (len - i >= wlen && memcmp(line + i, words[w].word, wlen) == 0 &&
                (i == 0 || !reply_word_char((unsigned char)line[i - 1])) &&
                (i + wlen == len || !reply_word_char((unsigned char)line[i + wlen]))) {
                memcpy(copy + used, words[w].json, strlen(words[w].json));
                used += strlen(words[w].json);
                i += wlen;
                replaced = true;
                rewritten++;
            }
        }
        if (!replaced)
            copy[used++] = line[i++];
    }
    copy[used] = '\0';
    *out_len = used;
    return rewritten ? copy : NULL;
}

/* Parse `line` as one reply into `arena` (reset first): any RFC 8259 JSON
 * text (what Python's json.dumps writes, \u0000 and lone surrogates
 * included), limited only in size and depth; a reply that is JSON but for
 * Python's NaN / Infinity / -Infinity is read with those rewritten
 * (rewrite_non_finite): they only appear when an adapter echoes a value its
 * pipeline accepted (1e999 read as a float), and that accept is what the
 * case must judge. NULL with `perr` filled (from the line as sent) when it
 * is not JSON. */
static const gt_value *parse_reply_text(gt_arena *arena, const char *line, size_t len, size_t max_bytes,
                                        gt_parse_error *perr)
{
    gt_parse_options options;
    gt_parse_options_init(&options);
    options.rfc8259 = true;
    options.max_depth = GT_ADAPTER_REPLY_MAX_DEPTH;
    options.max_bytes = max_bytes;
    gt_arena_reset(arena);
    const gt_value *reply = gt_parse(arena, line, len, &options, perr);
    if (reply != NULL || perr->reason != GT_SYNTAX_NON_FINITE_NUMBER)
        return reply;
    gt_parse_error first = *perr;
    size_t rewritten_len;
    char *rewritten = rewrite_non_finite(arena, line, len, &rewritten_len);
    if (rewritten != NULL && rewritten_len <= max_bytes) {
        reply = gt_parse(arena, rewritten, rewritten_len, &options, perr);
        if (reply != NULL)
            return reply;
    }
    *perr = first;
    return NULL;
}

/* Parse the line in ad->line as one reply (parse_reply_text). */
static const gt_value *parse_reply(adapter *ad, size_t len, gt_parse_error *perr)
{
    return parse_reply_text(ad->arena, ad->line, len, ad->max_line, perr);
}

/* Start the adapter and do the hello handshake, by `deadline` (the case's
 * --timeout: a restart is part of the case it runs for). 0, or -1 with `note`. */
static int start_adapter(adapter *ad, long long deadline, char *note, size_t note_len)
{
    char err[256];
    int waited_ms = (int)(deadline - now_ms() > 0 ? deadline - now_ms() : 0); /* what the hello may take */
    if (spawn_adapter(ad, err, sizeof err) != 0) {
        snprintf(note, note_len, "cannot start adapter '%s': %s", ad->command, err);
        return -1;
    }
    char hello[160];
    int n = snprintf(hello, sizeof hello, "{\"cmd\":\"hello\",\"protocol\":%d,\"gauntlet_version\":\"%s\"}\n",
                     GT_ADAPTER_PROTOCOL, GAUNTLET_VERSION);
    if (write_all(ad, hello, (size_t)n, deadline) != 0) {
        read_failure(ad, now_ms() >= deadline ? READ_TIMEOUT : READ_EOF, "hello", waited_ms, note, note_len);
        return -1;
    }
    size_t len;
    int status = read_line(ad, deadline, &len);
    if (status != READ_LINE) {
        read_failure(ad, status, "hello", waited_ms, note, note_len);
        return -1;
    }
    gt_parse_error perr;
    const gt_value *reply = parse_reply(ad, len, &perr);
    const gt_value *protocol = reply ? gt_value_get(reply, "protocol", 8) : NULL;
    const gt_value *impl = reply ? gt_value_get(reply, "implementation", 14) : NULL;
    const gt_value *caps = reply ? gt_value_get(reply, "capabilities", 12) : NULL;
    const char *problem = NULL;
    if (reply == NULL || reply->type != GT_OBJECT)
        problem = "hello reply is not a JSON object";
    else if (protocol == NULL || protocol->type != GT_NUMBER || protocol->u.num.number != GT_ADAPTER_PROTOCOL)
        problem = "hello reply has no \"protocol\": 1 (unsupported protocol version)";
    else if (impl == NULL || impl->type != GT_OBJECT || string_member(impl, "name") == NULL)
        problem = "hello reply has no implementation.name";
    else if (caps == NULL || caps->type != GT_ARRAY)
        problem = "hello reply has no \"capabilities\" array";
    char capability_problem[256] = "";
    for (size_t i = 0; problem == NULL && i < caps->u.arr.count; i++) {
        const gt_value *cap = caps->u.arr.items[i];
        if (cap->type != GT_STRING || gt_gate_from_name(cap->u.str.chars) < 0) {
            snprintf(capability_problem, sizeof capability_problem,
                     "\"capabilities\"[%zu] is %s%.64s%s, not a gate (known: syntax, structure, semantic, policy, "
                     "stream, loop, wire)",
                     i, cap->type == GT_STRING ? "'" : "", cap->type == GT_STRING ? cap->u.str.chars : "not a string",
                     cap->type == GT_STRING ? "'" : "");
            problem = capability_problem;
        }
    }
    if (problem == NULL && caps->u.arr.count == 0)
        problem = "hello reply's \"capabilities\" is empty: declare the gates the adapter implements";
    char profile_problem[256] = "";
    const gt_value *claimed = problem == NULL ? gt_value_get(reply, "profiles", 8) : NULL;
    unsigned profiles = 0;
    if (claimed != NULL && claimed->type != GT_NULL) {
        if (claimed->type != GT_ARRAY)
            snprintf(profile_problem, sizeof profile_problem,
                     "\"profiles\" must be an array of profile names (known profiles: %s)", GT_PROFILE_NAMES);
        for (size_t i = 0; claimed->type == GT_ARRAY && i < claimed->u.arr.count && !profile_problem[0]; i++) {
            const gt_value *name = claimed->u.arr.items[i];
            int profile = name->type == GT_STRING ? gt_profile_from_name(name->u.str.chars, name->u.str.len) : -1;
            if (profile < 0)
                snprintf(profile_problem, sizeof profile_problem,
                         "\"profiles\"[%zu] is %s%.64s%s, not a known profile (known profiles: %s)", i,
                         name->type == GT_STRING ? "'" : "", name->type == GT_STRING ? name->u.str.chars : "not a string",
                         name->type == GT_STRING ? "'" : "", GT_PROFILE_NAMES);
            else
                profiles |= 1u << profile;
        }
        if (profile_problem[0])
            problem = profile_problem;
    }
    if (problem != NULL) {
        char bad[200];
        excerpt_of(ad->line, len, bad, sizeof bad);
        stop_adapter(ad, NULL, 0);
        snprintf(note, note_len, "adapter handshake failed: %s (got: %s)", problem, bad);
        return -1;
    }
    const char *version = string_member(impl, "version");
    snprintf(ad->name, sizeof ad->name, "%s%s%s", string_member(impl, "name"), version ? " " : "",
             version ? version : "");
    ad->profiles = profiles;
    ad->capabilities = 0;
    for (size_t i = 0; i < caps->u.arr.count; i++) {
        const gt_value *cap = caps->u.arr.items[i];
        int gate = cap->type == GT_STRING ? gt_gate_from_name(cap->u.str.chars) : -1;
        if (gate >= 0)
            ad->capabilities |= 1u << gate;
    }
    consume_line(ad, len);
    return 0;
}

static int adapter_open(const char *arg, void **state, char *err, size_t err_len)
{
    if (arg == NULL || *arg == '\0') {
        snprintf(err, err_len, "adapter needs a command: --target adapter:CMD");
        return -1;
    }
    signal(SIGPIPE, SIG_IGN); /* a dead adapter must not kill the runner */
    adapter *ad = calloc(1, sizeof *ad);
    if (ad == NULL || (ad->command = strdup(arg)) == NULL || (ad->arena = gt_arena_new()) == NULL) {
        if (ad != NULL) {
            free(ad->command);
            free(ad);
        }
        snprintf(err, err_len, "out of memory");
        return -1;
    }
    ad->timeout_ms = default_timeout_ms;
    ad->max_line = default_max_line;
    ad->child.in = ad->child.out = ad->child.err = -1;
    /* Start now so a broken command is reported once, up front, and the
     * implementation's name is known for the report header. */
    char note[1024];
    if (start_adapter(ad, now_ms() + ad->timeout_ms, note, sizeof note) != 0) {
        snprintf(err, err_len, "%s", note);
        gt_arena_free(ad->arena);
        free(ad->line);
        free(ad->command);
        free(ad);
        return -1;
    }
    *state = ad;
    return 0;
}

/* `text` as a JSON string (malloc'd), or NULL for NULL. */
static char *json_string_or_null(const char *text)
{
    if (text == NULL)
        return NULL;
    gt_value value = {.type = GT_STRING};
    value.u.str.chars = text;
    value.u.str.len = strlen(text);
    return gt_value_to_json(&value, NULL);
}

/* The check request: case fields plus the exact raw bytes and the schema. */
static char *build_request(adapter *ad, const gt_case_input *input)
{
    char *raw64 = gt_base64_encode(input->raw ? input->raw : (const unsigned char *)"", input->raw ? input->raw_len : 0);
    if (raw64 == NULL)
        return NULL;
    char *raw_text = NULL;
    if (input->raw != NULL && gt_utf8_valid((const char *)input->raw, input->raw_len)) {
        gt_value text = {.type = GT_STRING};
        text.u.str.chars = (const char *)input->raw;
        text.u.str.len = input->raw_len;
        raw_text = gt_value_to_json(&text, NULL);
    }
    const char *case_json = input->case_json ? input->case_json : "{}";
    const char *schema = input->schema_json ? input->schema_json : "null";
    char *schemas_dir = json_string_or_null(input->schemas_dir);
    char *remotes_dir = json_string_or_null(input->remotes_dir);
    size_t size = strlen(raw64) + (raw_text ? strlen(raw_text) : 4) + strlen(case_json) + strlen(schema) +
                  strlen(input->id) * 2 + strlen(input->gate) + (schemas_dir ? strlen(schemas_dir) : 4) +
                  (remotes_dir ? strlen(remotes_dir) : 4) + 256;
    char *request = malloc(size);
    if (request != NULL) {
        gt_value id = {.type = GT_STRING};
        id.u.str.chars = input->id;
        id.u.str.len = strlen(input->id);
        char *id_json = gt_value_to_json(&id, NULL);
        snprintf(request, size,
                 "{\"cmd\":\"check\",\"seq\":%llu,\"id\":%s,\"gate\":\"%s\",\"raw\":%s,\"raw_base64\":\"%s\","
                 "\"schema\":%s,\"formats\":%s,\"reject_nul\":%s,\"max_bytes\":%zu,\"schemas_dir\":%s,"
                 "%s%s%s\"case\":%s}\n",
                 ad->seq, id_json ? id_json : "\"\"", input->gate, raw_text ? raw_text : "null", raw64, schema,
                 input->assert_formats ? "true" : "false", input->reject_nul ? "true" : "false", input->max_bytes,
                 schemas_dir ? schemas_dir : "null", remotes_dir ? "\"remotes_dir\":" : "",
                 remotes_dir ? remotes_dir : "", remotes_dir ? "," : "", case_json);
        free(id_json);
    }
    free(schemas_dir);
    free(remotes_dir);
    free(raw64);
    free(raw_text);
    return request;
}

static gt_gate_status status_from(const char *text)
{
    if (text == NULL)
        return GT_GATE_NOT_RUN;
    if (strcmp(text, "passed") == 0)
        return GT_GATE_PASSED;
    if (strcmp(text, "failed") == 0)
        return GT_GATE_FAILED;
    return GT_GATE_NOT_RUN;
}

/* An accounting figure: absent or null is -1 (not given), an integer from 0
 * through INT_MAX is taken; anything else (1e300, 1e23, -1, 1.5, "3") breaks
 * the protocol, named, instead of silently becoming "not given". */
static int figure_member(const gt_value *object, const char *key, int *out, char *why, size_t why_len)
{
    const gt_value *value = gt_value_get(object, key, strlen(key));
    *out = -1;
    if (value == NULL || value->type == GT_NULL)
        return 0;
    if (value->type == GT_NUMBER && gt_value_is_integer(value) && value->u.num.number >= 0 &&
        value->u.num.number <= INT_MAX) {
        *out = (int)value->u.num.number;
        return 0;
    }
    char *text = gt_value_to_json(value, NULL);
    snprintf(why, why_len, "accounting.%s is %.60s: not an integer from 0 through %d", key, text ? text : "?", INT_MAX);
    free(text);
    return -1;
}

/* Fill `observed` from a check response. 0, or -1 with `why` for a response
 * that breaks the protocol. */
static int read_response(const gt_value *reply, gt_observed *observed, char *why, size_t why_len)
{
    const gt_value *verdict = gt_value_get(reply, "verdict", 7);
    const char *verdict_text = verdict && verdict->type == GT_STRING ? verdict->u.str.chars : NULL;
    if (verdict_text == NULL || (strcmp(verdict_text, "accept") != 0 && strcmp(verdict_text, "reject") != 0)) {
        snprintf(why, why_len, "response has no \"verdict\" of \"accept\" or \"reject\"");
        return -1;
    }
    if (strcmp(verdict_text, "reject") == 0) {
        const char *gate = string_member(reply, "gate");
        if (gate == NULL || gt_gate_from_name(gate) < 0) {
            snprintf(why, why_len, "a reject response needs a known \"gate\"");
            return -1;
        }
        if (gt_observed_reject(observed, gate, string_member(reply, "reason"), string_member(reply, "message")) != 0)
            return -1;
    } else {
        observed->verdict = GT_VERDICT_ACCEPT;
    }
    const gt_value *errors = gt_value_get(reply, "errors", 6);
    if (errors != NULL && errors->type == GT_ARRAY)
        for (size_t i = 0; i < errors->u.arr.count; i++) {
            const gt_value *error = errors->u.arr.items[i];
            if (error->type != GT_OBJECT)
                continue;
            gt_observed_add_error(observed, string_member(error, "path"), string_member(error, "keyword"),
                                  string_member(error, "message"));
        }
    const gt_value *gates = gt_value_get(reply, "gates", 5);
    if (gates != NULL && gates->type == GT_OBJECT)
        for (size_t i = 0; i < gates->u.obj.count; i++) {
            int gate = gt_gate_from_name(gates->u.obj.members[i].key);
            const gt_value *status = gates->u.obj.members[i].value;
            if (gate >= 0 && status->type == GT_STRING)
                observed->gates[gate] = status_from(status->u.str.chars);
        }
    const gt_value *output = gt_value_get(reply, "output", 6);
    if (output != NULL && output->type != GT_NULL)
        observed->output_json = gt_value_to_json(output, NULL);
    const gt_value *trace = gt_value_get(reply, "trace", 5);
    if (trace != NULL && trace->type == GT_OBJECT)
        observed->trace_json = gt_value_to_json(trace, NULL);
    const char *subtype = string_member(reply, "subtype");
    if (subtype != NULL)
        observed->subtype = strdup(subtype);
    const gt_value *accounting = gt_value_get(reply, "accounting", 10);
    if (accounting != NULL && accounting->type == GT_OBJECT) {
        observed->has_accounting = true;
        gt_accounting *a = &observed->accounting;
        if (figure_member(accounting, "attempts_used", &a->attempts_used, why, why_len) != 0 ||
            figure_member(accounting, "attempts_limit", &a->attempts_limit, why, why_len) != 0 ||
            figure_member(accounting, "retracted", &a->retracted, why, why_len) != 0 ||
            figure_member(accounting, "enforce_messages", &a->enforce_messages, why, why_len) != 0 ||
            figure_member(accounting, "api_attempts", &a->api_attempts, why, why_len) != 0 ||
            figure_member(accounting, "model_calls", &a->model_calls, why, why_len) != 0)
            return -1;
    }
    return 0;
}

static int adapter_check(void *state, const gt_case_input *input, gt_observed *observed, char *note, size_t note_len)
{
    adapter *ad = state;
    gt_accounting_init(&observed->accounting);
    if (ad->unavailable[0] != '\0') {
        snprintf(note, note_len, "%s", ad->unavailable);
        return GT_CHECK_ERROR;
    }
    /* --timeout bounds the whole case: a restart, its hello and the check */
    long long deadline = now_ms() + ad->timeout_ms;
    ad->case_deadline = deadline;
    if (ad->child.pid <= 0) {
        if (start_adapter(ad, deadline, note, note_len) != 0) {
            if (++ad->failed_starts >= GT_ADAPTER_MAX_FAILED_STARTS)
                snprintf(ad->unavailable, sizeof ad->unavailable,
                         "adapter unavailable after %d failed starts; last: %.400s", ad->failed_starts, note);
            return GT_CHECK_ERROR;
        }
        ad->failed_starts = 0;
    }
    int gate = gt_gate_from_name(input->gate);
    if (gate < 0 || !(ad->capabilities & (1u << gate))) {
        snprintf(note, note_len, "adapter does not declare capability '%s'", input->gate);
        return GT_CHECK_SKIPPED;
    }
    ad->seq++;
    char *request = build_request(ad, input);
    if (request == NULL) {
        snprintf(note, note_len, "out of memory building the request");
        return GT_CHECK_ERROR;
    }
    int wrote = write_all(ad, request, strlen(request), deadline);
    free(request);
    if (wrote != 0) {
        read_failure(ad, now_ms() >= deadline ? READ_TIMEOUT : READ_EOF, "the check request", ad->timeout_ms, note,
                     note_len);
        return GT_CHECK_ERROR;
    }
    size_t len;
    int status = read_line(ad, deadline, &len);
    if (status != READ_LINE) {
        read_failure(ad, status, "the check request", ad->timeout_ms, note, note_len);
        return GT_CHECK_ERROR;
    }
    gt_parse_error perr;
    const gt_value *reply = parse_reply(ad, len, &perr);
    const gt_value *seq = reply && reply->type == GT_OBJECT ? gt_value_get(reply, "seq", 3) : NULL;
    char why[256] = "";
    if (reply == NULL || reply->type != GT_OBJECT)
        snprintf(why, sizeof why, "garbage on stdout (not a JSON object: %s at %u:%u)",
                 reply ? "other JSON" : gt_syntax_reason_code(perr.reason), perr.line, perr.column);
    else if (seq == NULL || seq->type != GT_NUMBER || seq->u.num.number != (double)ad->seq)
        snprintf(why, sizeof why, "response seq does not match request seq %llu", ad->seq);
    if (why[0] != '\0') {
        char bad[200], how[128], tail[1200];
        excerpt_of(ad->line, len, bad, sizeof bad);
        stop_adapter(ad, how, sizeof how); /* the stream is out of step: restart */
        stderr_evidence(ad, tail, sizeof tail);
        snprintf(note, note_len, "%s; got: %s%s", why, bad, tail);
        return GT_CHECK_ERROR;
    }
    consume_line(ad, len);
    const gt_value *flag = gt_value_get(reply, "errored", 7);
    if (flag != NULL && flag->type == GT_TRUE) {
        const char *message = string_member(reply, "message");
        snprintf(note, note_len, "adapter reported an internal error: %s", message ? message : "(no message)");
        return GT_CHECK_ERROR;
    }
    flag = gt_value_get(reply, "skipped", 7);
    if (flag != NULL && flag->type == GT_TRUE) {
        const char *message = string_member(reply, "message");
        snprintf(note, note_len, "adapter skipped the case: %s", message ? message : "(no message)");
        return GT_CHECK_SKIPPED;
    }
    if (read_response(reply, observed, why, sizeof why) != 0) {
        gt_observed_clear(observed);
        gt_accounting_init(&observed->accounting);
        snprintf(note, note_len, "malformed response: %s", why[0] ? why : "out of memory");
        return GT_CHECK_ERROR;
    }
    return GT_CHECK_DONE;
}

static const char *adapter_name(void *state)
{
    adapter *ad = state;
    return ad->name[0] ? ad->name : ad->command;
}

static void adapter_close(void *state)
{
    adapter *ad = state;
    if (ad->child.pid > 0) {
        static const char stop[] = "{\"cmd\":\"stop\"}\n";
        long long deadline = now_ms() + 2000;
        if (write_all(ad, stop, sizeof stop - 1, deadline) == 0) {
            /* give it a moment to exit cleanly */
            while (now_ms() < deadline && waitpid(ad->child.pid, NULL, WNOHANG) == 0) {
                struct timespec pause = {0, 10 * 1000 * 1000};
                nanosleep(&pause, NULL);
            }
        }
        stop_adapter(ad, NULL, 0);
    }
    gt_arena_free(ad->arena);
    free(ad->line);
    free(ad->command);
    free(ad);
}

/* The hello's "profiles", or 0 (the runner then judges on core alone). */
static unsigned adapter_profiles(void *state)
{
    return ((const adapter *)state)->profiles;
}

const gt_target_ops gt_target_adapter_ops = {
    .kind = "adapter",
    .open = adapter_open,
    .check = adapter_check,
    .name = adapter_name,
    .close = adapter_close,
    .profiles = adapter_profiles,
};

int gt_adapter_reply_read(const char *line, size_t len, gt_observed *observed, char *why, size_t why_len)
{
    gt_arena *arena = gt_arena_new();
    if (arena == NULL)
        return -1;
    gt_parse_error perr;
    const gt_value *reply = parse_reply_text(arena, line, len, GT_ADAPTER_MAX_LINE, &perr);
    int status = -1;
    if (reply == NULL || reply->type != GT_OBJECT)
        snprintf(why, why_len, "not a JSON object");
    else
        status = read_response(reply, observed, why, why_len);
    gt_arena_free(arena);
    return status;
}
