/* cmd_record.c — `gauntlet record`: run the recording proxy until SIGINT or
 * SIGTERM (docs/record.md).
 *
 * Contract: the first stdout line is the proxy's base URL, flushed, as
 * `serve` prints it. On SIGINT/SIGTERM the exchanges in flight finish and
 * are written while new requests get a 503; then exit 0. Exit 2 on usage or
 * startup errors. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "commands.h"
#include "gauntlet/runner/mock.h"

static void record_usage(FILE *out)
{
    fprintf(out, "usage: gauntlet record --upstream URL --out DIR [--name NAME] [--host ADDR] [--port N]\n"
                 "                       [--redact NAME]... [--allow-remote] [--record-errors]\n"
                 "\n"
                 "Forward every request to URL + its path, stream the answer back as it arrives, and write\n"
                 "each conversation to DIR as a scenario `gauntlet serve --corpus DIR` replays and a case with\n"
                 "the reference's verdict `gauntlet run DIR` checks. See docs/record.md.\n"
                 "  --upstream URL   the provider's base URL (http:// or https://)\n"
                 "  --out DIR        the recording (created; an existing DIR must be empty or a recording)\n"
                 "  --name NAME      the recording's name, in its case ids recorded.NAME.NNNN (default: the one\n"
                 "                   DIR's recording.txt holds, else DIR's last component, sanitised)\n"
                 "  --host ADDR      address to bind (default 127.0.0.1; others need --allow-remote)\n"
                 "  --port N         port (default 0: ephemeral; the URL is printed)\n"
                 "  --redact NAME    also redact this header or dotted JSON field (x-api-key, authorization,\n"
                 "                   openai-organization, cookie, set-cookie, proxy-authorization always are)\n"
                 "  --allow-remote   permit binding a non-loopback address\n"
                 "  --record-errors  also record an upstream that never answered (the 502 the client gets)\n"
                 "SIGINT/SIGTERM: the exchanges in flight finish and are written, new requests get 503, exit 0\n"
                 "exit: 0 clean shutdown, 2 usage or startup error\n");
}

int gt_cmd_record(int argc, char **argv)
{
    gt_record_options options = {0};
    const char *redact[64];
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        const char *value = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            record_usage(stdout);
            return 0;
        } else if (strcmp(arg, "--allow-remote") == 0) {
            options.allow_remote = true;
            continue;
        } else if (strcmp(arg, "--record-errors") == 0) {
            options.record_errors = true;
            continue;
        }
        if (value == NULL) {
            fprintf(stderr, "gauntlet record: %s needs a value or is unknown\n(gauntlet record --help lists the options)\n", arg);
            return 2;
        }
        i++;
        if (strcmp(arg, "--upstream") == 0) {
            options.upstream = value;
        } else if (strcmp(arg, "--out") == 0) {
            options.out_dir = value;
        } else if (strcmp(arg, "--name") == 0) {
            options.name = value;
        } else if (strcmp(arg, "--host") == 0) {
            options.host = value;
        } else if (strcmp(arg, "--port") == 0) {
            char *end;
            long port = strtol(value, &end, 10);
            if (*end || port < 0 || port > 65535) {
                fprintf(stderr, "gauntlet record: --port must be 0-65535, not '%s'\n", value);
                return 2;
            }
            options.port = (unsigned)port;
        } else if (strcmp(arg, "--redact") == 0) {
            if (options.redact_count == 64) {
                fprintf(stderr, "gauntlet record: at most 64 --redact\n");
                return 2;
            }
            redact[options.redact_count++] = value;
        } else {
            fprintf(stderr, "gauntlet record: unknown option '%s'\n(gauntlet record --help lists the options)\n", arg);
            return 2;
        }
    }
    if (options.upstream == NULL || options.out_dir == NULL) {
        fprintf(stderr, "gauntlet record: --upstream URL and --out DIR are required\n");
        return 2;
    }
    options.redact = redact;
    return gt_record_serve(&options, "gauntlet record");
}

int gt_record_serve(const gt_record_options *options, const char *who)
{
    sigset_t stop;
    sigemptyset(&stop);
    sigaddset(&stop, SIGINT);
    sigaddset(&stop, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &stop, NULL);
    signal(SIGPIPE, SIG_IGN);
    char err[1200];
    gt_record_server *server = gt_record_start(options, err, sizeof err);
    if (server == NULL) {
        fprintf(stderr, "%s: %s\n", who, err);
        return 2;
    }
    printf("%s\n", gt_record_base_url(server));
    fflush(stdout);
    fprintf(stderr, "%s: %s %s, writing %s; stop with Ctrl-C\n", who,
            options->record_missing ? "answering from the recording, forwarding misses to" : "forwarding to",
            options->upstream, options->out_dir);
    int signo = 0;
    while (sigwait(&stop, &signo) != 0 && errno == EINTR)
        ;
    /* drain: what is in flight finishes and is written; new requests get a 503; a second signal stops at once */
    unsigned long in_flight = gt_record_drain_begin(server);
    if (in_flight > 0)
        fprintf(stderr, "%s: signal %d, finishing %lu exchange%s in flight (new requests get 503; signal again to "
                        "stop at once)\n", who, signo, in_flight, in_flight == 1 ? "" : "s");
    const struct timespec poll = {0, 0};
    while (gt_record_drain_wait(server, 100) > 0)
        if (sigtimedwait(&stop, NULL, &poll) > 0) {
            fprintf(stderr, "%s: second signal, stopping with %lu exchange%s cut\n", who, gt_record_in_flight(server),
                    gt_record_in_flight(server) == 1 ? "" : "s");
            break;
        }
    unsigned long written = gt_record_exchange_count(server), replayed = gt_record_replayed_count(server);
    gt_record_stop(server);
    if (options->record_missing)
        fprintf(stderr, "%s: signal %d, %lu answered from the recording, %lu exchanges recorded, stopping\n", who,
                signo, replayed, written);
    else
        fprintf(stderr, "%s: signal %d, %lu exchanges recorded, stopping\n", who, signo, written);
    return 0;
}
