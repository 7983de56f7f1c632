/* cmd_serve.c — `gauntlet serve`: run the mock model server until SIGINT or
 * SIGTERM.
 *
 * Contract: the first line on stdout is the base URL the server bound
 * ("http://127.0.0.1:PORT"), flushed, so a script can read it and point a
 * client there; then one line per loaded-scenario count on stderr. Exit 0
 * after a clean shutdown, 2 on usage or startup errors. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_io.h"
#include "commands.h"
#include "gauntlet/runner/mock.h"

static void serve_usage(FILE *out)
{
    fprintf(out,
            "usage: gauntlet serve [--host ADDR] [--port N] [--corpus PATH]... [--scenario NAME=FILE]...\n"
            "                      [--journal FILE] [--max-body SIZE] [--allow-remote]\n"
            "       gauntlet serve --corpus DIR --upstream URL --record-missing [--host ADDR] [--port N]\n"
            "                      [--redact NAME]... [--allow-remote]\n"
            "\n"
            "Serve scripted model behaviour over HTTP: Anthropic Messages (/v1/messages) and\n"
            "OpenAI Chat Completions (/v1/chat/completions), JSON and SSE. See docs/mock-server.md.\n"
            "  --host ADDR          address to bind (default 127.0.0.1; others need --allow-remote)\n"
            "  --port N             port (default 0: an ephemeral port; the URL is printed)\n"
            "  --corpus PATH        load loop/stream cases with a script, and *.scenario.json files\n"
            "  --scenario NAME=FILE load one script as scenario NAME\n"
            "  --journal FILE       append every request as one JSON line\n"
            "  --max-body SIZE      largest request body (default 32M; 413 above)\n"
            "  --allow-remote       permit binding a non-loopback address\n"
            "  --upstream URL       with --record-missing: the provider a request DIR does not hold goes to\n"
            "  --record-missing     answer a request the recording DIR holds from it; forward any other to\n"
            "                       URL and record it into DIR (`gauntlet record`, docs/record.md)\n"
            "  --redact NAME        with --record-missing: as `gauntlet record --redact`\n"
            "Select a scenario with a base URL of BASE/s/<scenario>/<run-id>, the x-gauntlet-scenario\n"
            "header, or an API key gauntlet-<scenario>. Stops on SIGINT or SIGTERM.\n"
            "exit: 0 clean shutdown, 2 usage or startup error\n");
}

int gt_cmd_serve(int argc, char **argv)
{
    gt_mock_options options = {0};
    const char *corpora[32];
    size_t corpus_count = 0;
    const char *scenarios[64];
    size_t scenario_count = 0;
    gt_record_options record = {0};
    const char *redact[64];
    bool record_missing = false;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        const char *value = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            serve_usage(stdout);
            return 0;
        } else if (strcmp(arg, "--allow-remote") == 0) {
            options.allow_remote = true;
            continue;
        } else if (strcmp(arg, "--record-missing") == 0) {
            record_missing = true;
            continue;
        }
        if (value == NULL) {
            fprintf(stderr, "gauntlet serve: %s needs a value or is unknown\n(gauntlet serve --help lists the options)\n", arg);
            return 2;
        }
        i++;
        if (strcmp(arg, "--host") == 0) {
            options.host = value;
        } else if (strcmp(arg, "--port") == 0) {
            char *end;
            long port = strtol(value, &end, 10);
            if (*end || port < 0 || port > 65535) {
                fprintf(stderr, "gauntlet serve: --port must be 0-65535, not '%s'\n", value);
                return 2;
            }
            options.port = (unsigned)port;
        } else if (strcmp(arg, "--corpus") == 0 && corpus_count < 32) {
            corpora[corpus_count++] = value;
        } else if (strcmp(arg, "--scenario") == 0 && scenario_count < 64) {
            scenarios[scenario_count++] = value;
        } else if (strcmp(arg, "--journal") == 0) {
            options.journal_path = value;
        } else if (strcmp(arg, "--upstream") == 0) {
            record.upstream = value;
        } else if (strcmp(arg, "--redact") == 0 && record.redact_count < 64) {
            redact[record.redact_count++] = value;
        } else if (strcmp(arg, "--max-body") == 0) {
            if (gt_parse_size(value, &options.max_body) != 0 || options.max_body == 0) {
                fprintf(stderr, "gauntlet serve: --max-body must be a size (64k, 32M), not '%s'\n", value);
                return 2;
            }
        } else {
            fprintf(stderr, "gauntlet serve: unknown option '%s'\n(gauntlet serve --help lists the options)\n", arg);
            return 2;
        }
    }
    if (record_missing || record.upstream || record.redact_count) {
        if (!record_missing || record.upstream == NULL || corpus_count != 1 || scenario_count || options.journal_path) {
            fprintf(stderr, "gauntlet serve: --upstream and --redact go with --record-missing, which needs --upstream "
                            "URL and exactly one --corpus DIR (a recording), and no --scenario or --journal\n");
            return 2;
        }
        record.out_dir = corpora[0];
        record.host = options.host;
        record.port = options.port;
        record.allow_remote = options.allow_remote;
        record.redact = redact;
        record.record_missing = true;
        return gt_record_serve(&record, "gauntlet serve");
    }
    /* Block the stop signals before any thread starts, then wait for them. */
    sigset_t stop;
    sigemptyset(&stop);
    sigaddset(&stop, SIGINT);
    sigaddset(&stop, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &stop, NULL);
    signal(SIGPIPE, SIG_IGN);

    char err[512];
    gt_mock_server *server = gt_mock_start(&options, err, sizeof err);
    if (server == NULL) {
        fprintf(stderr, "gauntlet serve: %s\n", err);
        return 2;
    }
    /* The server's threads started with the stop signals blocked; while this
     * thread loads the corpus (which may take a while) they end the process
     * at once, as before any server existed, instead of waiting unseen. */
    struct sigaction default_action;
    memset(&default_action, 0, sizeof default_action);
    default_action.sa_handler = SIG_DFL;
    sigaction(SIGINT, &default_action, NULL);
    sigaction(SIGTERM, &default_action, NULL);
    pthread_sigmask(SIG_UNBLOCK, &stop, NULL);
    size_t loaded = 0;
    for (size_t i = 0; i < corpus_count; i++) {
        int n = gt_mock_load_corpus(server, corpora[i], err, sizeof err);
        if (n < 0) {
            fprintf(stderr, "gauntlet serve: %s\n", err);
            gt_mock_stop(server);
            return 2;
        }
        if (n == 0) {
            /* an empty selection is never green: a server that plays nothing is a mistake */
            fprintf(stderr,
                    "gauntlet serve: --corpus %s: no scenario found (loop and stream cases with a \"script\", "
                    "or *.scenario.json files)\n",
                    corpora[i]);
            gt_mock_stop(server);
            return 2;
        }
        loaded += (size_t)n;
    }
    for (size_t i = 0; i < scenario_count; i++) {
        const char *eq = strchr(scenarios[i], '=');
        if (eq == NULL || eq == scenarios[i]) {
            fprintf(stderr, "gauntlet serve: --scenario takes NAME=FILE, not '%s'\n", scenarios[i]);
            gt_mock_stop(server);
            return 2;
        }
        char name[256];
        snprintf(name, sizeof name, "%.*s", (int)(eq - scenarios[i]), scenarios[i]);
        size_t len;
        char *text = gt_read_file(eq + 1, &len, err, sizeof err);
        if (text == NULL || gt_mock_add_scenario(server, name, text, NULL, err, sizeof err) != 0) {
            fprintf(stderr, "gauntlet serve: scenario %s: %s\n", name, err);
            free(text);
            gt_mock_stop(server);
            return 2;
        }
        free(text);
        loaded++;
    }
    pthread_sigmask(SIG_BLOCK, &stop, NULL); /* from here on a stop signal is a graceful stop */
    printf("%s\n", gt_mock_base_url(server));
    fflush(stdout);
    fprintf(stderr, "gauntlet serve: %zu scenarios; stop with Ctrl-C\n", loaded);
    int signo = 0;
    while (sigwait(&stop, &signo) != 0 && errno == EINTR)
        ;
    fprintf(stderr, "gauntlet serve: signal %d, %lu requests served, stopping\n", signo, gt_mock_request_count(server));
    gt_mock_stop(server);
    return 0;
}
