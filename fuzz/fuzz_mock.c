/* fuzz_mock.c — the mock server's request handling, end to end over
 * loopback: one server per fuzzing process (127.0.0.1, ephemeral port, the
 * suite's scenarios). The first byte picks a route and the rest is the body;
 * a first byte >= 0xf0 sends the rest as raw bytes (request line, headers and
 * all). Property: a well-formed request always gets an HTTP status line. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdbool.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "fuzz.h"
#include "gauntlet/runner/mock.h"

static gt_mock_server *server;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    char err[256];
    gt_mock_options options = {0};
    options.max_body = 256 * 1024;
    options.journal_entries = 64;
    options.quiet_journal_bodies = true;
    options.max_sessions = 1024;
    server = gt_mock_start(&options, err, sizeof err);
    if (server == NULL || gt_mock_load_corpus(server, "suite/data/mock", err, sizeof err) < 0) {
        fprintf(stderr, "fuzz_mock: %s (run from the repository root)\n", err);
        exit(1);
    }
    return 0;
}

/* Routes that never sleep: no scenario with latency or a slow drip, and an
 * uploaded script is parsed but never played. */
static const char *const routes[] = {
    "POST /v1/messages",
    "POST /v1/chat/completions",
    "POST /v1/messages/count_tokens",
    "POST /_gauntlet/scenarios?name=fuzz-upload",
    "POST /s/ok-message/r1/v1/messages",
    "POST /s/ok-stream/r1/v1/messages",
    "POST /s/openai-tool-call/r1/chat/completions",
    "POST /s/invalid-then-valid/r1/v1/messages",
    "POST /s/malformed-sse/r1/v1/messages",
    "POST /_gauntlet/reset?session=ok-message/r1",
    "GET /_gauntlet/journal?session=ok-stream/r1",
    "GET /v1/models",
    "POST /s/raw-sse/r1/v1/messages",
    "POST /s/fallback-retracts/r1/v1/messages",
    "POST /s/refusal/r1/v1/messages",
    "POST /s/oversized/r1/v1/messages",
};

static int connect_server(void)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons((uint16_t)gt_mock_port(server))};
    inet_pton(AF_INET, "127.0.0.1", &addr.sin_addr);
    if (fd >= 0 && connect(fd, (struct sockaddr *)&addr, sizeof addr) != 0) {
        close(fd);
        fd = -1;
    }
    return fd;
}

static void send_all(int fd, const void *data, size_t len)
{
    const char *p = data;
    while (len > 0) {
        ssize_t n = send(fd, p, len, MSG_NOSIGNAL);
        if (n <= 0)
            return;
        p += n, len -= (size_t)n;
    }
}

/* Read the reply until the server closes (3 s at most in all); its first
 * bytes go to `head`. */
static size_t read_reply(int fd, char *head, size_t head_len)
{
    size_t got = 0;
    char buffer[65536];
    for (int waited_ms = 0; waited_ms < 3000;) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        int ready = poll(&p, 1, 100);
        if (ready < 0)
            break;
        if (ready == 0) {
            waited_ms += 100;
            continue;
        }
        ssize_t n = recv(fd, buffer, sizeof buffer, 0);
        if (n <= 0)
            break;
        if (got < head_len - 1) {
            size_t take = (size_t)n < head_len - 1 - got ? (size_t)n : head_len - 1 - got;
            memcpy(head + got, buffer, take);
        }
        got += (size_t)n;
    }
    head[got < head_len - 1 ? got : head_len - 1] = '\0';
    return got;
}

/* Send one request; the number of reply bytes, the first ones in `head`. */
static size_t exchange(const uint8_t *data, size_t size, char *head, size_t head_len)
{
    int fd = connect_server();
    if (fd < 0)
        return 0;
    const uint8_t *body = data + 1;
    size_t body_len = size - 1;
    if (data[0] >= 0xf0)
        send_all(fd, body, body_len);
    else {
        const char *route = routes[data[0] % (sizeof routes / sizeof routes[0])];
        char header[512];
        int n = snprintf(header, sizeof header,
                         "%s HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                         "Connection: close\r\nContent-Length: %zu\r\n\r\n",
                         route, body_len);
        send_all(fd, header, (size_t)n);
        send_all(fd, body, body_len);
    }
    shutdown(fd, SHUT_WR);
    size_t got = read_reply(fd, head, head_len);
    close(fd);
    return got;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    char head[64];
    size_t got = exchange(data, size, head, sizeof head);
    /* Closed without a byte: the connection limits (256 per address) can
     * refuse a connection while the threads of earlier ones are still
     * winding down on a loaded machine. Try again before judging. */
    for (int retry = 0; got == 0 && retry < 2; retry++) {
        usleep(100000);
        got = exchange(data, size, head, sizeof head);
    }
    if (data[0] < 0xf0 && got > 0)
        FUZZ_CHECK(strncmp(head, "HTTP/1.1 ", 9) == 0, "a well-formed request gets a status line");
    return 0;
}
