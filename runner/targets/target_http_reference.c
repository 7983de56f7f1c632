/* target_http_reference.c — the "http-reference" target: the reference
 * pipeline replayed over real HTTP.
 *
 * Each loop or stream case's script becomes a scenario of a mock server
 * (mocks/), and the same loop (gt_loop_run) runs with the libcurl model of
 * client.h pointed at BASE/s/<case-id>/<run-id>: the script's bytes cross a
 * socket, through libmicrohttpd and libcurl, and come back to the stream and
 * loop layers. The verdict, subtype and accounting must equal the in-process
 * reference target's (suite/test_client.c asserts it over the whole corpus).
 * The client asks for the script's own form (x-gauntlet-mirror) so a message
 * stays a message and a stream stays the exact byte sequence.
 *
 * Spec: "http-reference" starts a private server on 127.0.0.1:0 per target
 * instance (one per worker thread); "http-reference:URL" uses a running
 * `gauntlet serve` and registers each scenario with POST /_gauntlet/scenarios.
 * Other gates are skipped. Not for: vendor clients (that is the http target). */
#include <cjson/cJSON.h>
#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gauntlet/client.h"
#include "gauntlet/loop.h"
#include "gauntlet/runner/mock.h"
#include "gauntlet/runner/run.h"
#include "reference_hooks.h"

typedef struct http_reference {
    gt_mock_server *server; /* private server, or NULL with remote_url */
    char *remote_url;
    unsigned long runs;
    char name[64];
} http_reference;

static int http_reference_open(const char *arg, void **state, char *err, size_t err_len)
{
    http_reference *target = calloc(1, sizeof *target);
    if (target == NULL) {
        snprintf(err, err_len, "out of memory");
        return -1;
    }
    if (arg && arg[0]) {
        target->remote_url = strdup(arg);
        size_t len = target->remote_url ? strlen(target->remote_url) : 0;
        while (len > 0 && target->remote_url[len - 1] == '/')
            target->remote_url[--len] = '\0';
    } else {
        gt_mock_options options = {0};
        options.journal_entries = 4096;
        target->server = gt_mock_start(&options, err, err_len);
        if (target->server == NULL) {
            free(target);
            return -1;
        }
    }
    snprintf(target->name, sizeof target->name, "gauntlet-reference over HTTP");
    *state = target;
    return 0;
}

static const char *http_reference_name(void *state)
{
    return ((http_reference *)state)->name;
}

static void http_reference_close(void *state)
{
    http_reference *target = state;
    if (target == NULL)
        return;
    gt_mock_stop(target->server);
    free(target->remote_url);
    free(target);
}

/* POST the case to a remote server's scenario endpoint. */
static int register_remote(const char *base, const char *name, const char *case_json, char *err, size_t err_len)
{
    CURL *curl = curl_easy_init();
    if (curl == NULL) {
        snprintf(err, err_len, "out of memory");
        return -1;
    }
    char *escaped = curl_easy_escape(curl, name, 0);
    char url[2048];
    snprintf(url, sizeof url, "%s/_gauntlet/scenarios?name=%s", base, escaped ? escaped : name);
    curl_free(escaped);
    curl_easy_setopt(curl, CURLOPT_URL, url);
    curl_easy_setopt(curl, CURLOPT_POSTFIELDS, case_json);
    curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, 10000L);
    curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
    FILE *sink = fopen("/dev/null", "w");
    if (sink)
        curl_easy_setopt(curl, CURLOPT_WRITEDATA, sink);
    CURLcode rc = curl_easy_perform(curl);
    long status = 0;
    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
    curl_easy_cleanup(curl);
    if (sink)
        fclose(sink);
    if (rc != CURLE_OK || status != 201) {
        snprintf(err, err_len, "cannot register scenario at %s: %s (HTTP %ld)", base, curl_easy_strerror(rc), status);
        return -1;
    }
    return 0;
}

/* The script's "provider" (the API the client speaks). */
static gt_stream_provider script_provider(const char *script_json)
{
    cJSON *root = cJSON_Parse(script_json);
    const cJSON *provider = cJSON_GetObjectItemCaseSensitive(root, "provider");
    int parsed = cJSON_IsString(provider) ? gt_stream_provider_from_name(provider->valuestring) : -1;
    cJSON_Delete(root);
    return parsed < 0 ? GT_PROVIDER_ANTHROPIC : (gt_stream_provider)parsed;
}

static int http_reference_check(void *state, const gt_case_input *input, gt_observed *observed, char *note,
                                size_t note_len)
{
    http_reference *target = state;
    if (strcmp(input->gate, "loop") != 0 && strcmp(input->gate, "stream") != 0) {
        snprintf(note, note_len, "http-reference replays loop and stream cases only (gate %s)", input->gate);
        return GT_CHECK_SKIPPED;
    }
    if (input->case_json == NULL || strstr(input->case_json, "\"script\"") == NULL) {
        snprintf(note, note_len, "http-reference: %s case '%s' has no \"script\"", input->gate, input->id);
        return GT_CHECK_ERROR;
    }
    char err[512];
    char *case_schema = NULL;
    char *script_json = gt_mock_script_text(input->case_json, &case_schema, err, sizeof err);
    if (script_json == NULL) {
        snprintf(note, note_len, "http-reference: bad script: %s", err);
        return GT_CHECK_ERROR;
    }
    const char *schema = input->schema_json ? input->schema_json : case_schema;
    int registered = target->server
                         ? gt_mock_add_scenario(target->server, input->id, input->case_json, schema, err, sizeof err)
                         : register_remote(target->remote_url, input->id, input->case_json, err, sizeof err);
    gt_loop_script_problem problem;
    gt_loop_script *script =
        registered == 0 ? gt_loop_script_load(script_json, strlen(script_json), schema, &problem) : NULL;
    gt_stream_provider provider = script_provider(script_json);
    free(script_json);
    free(case_schema);
    if (registered != 0 || script == NULL) {
        snprintf(note, note_len, "http-reference: %s", registered != 0 ? err : problem.message);
        return GT_CHECK_ERROR;
    }
    char base_url[1024];
    snprintf(base_url, sizeof base_url, "%s/s/%s/run-%lu",
             target->server ? gt_mock_base_url(target->server) : target->remote_url, input->id, ++target->runs);
    gt_client_options options = {0};
    options.base_url = base_url;
    options.provider = provider;
    options.stream = true;
    options.mirror = true;
    options.backoff_ms = -1;           /* the corpus retries at once; the loop counts, the clock does not */
    options.max_retry_after_ms = 2000;
    options.timeout_ms = 30000;
    gt_client *client = gt_client_new(&options, err, sizeof err);
    if (client == NULL) {
        gt_loop_script_free(script);
        snprintf(note, note_len, "http-reference: %s", err);
        return GT_CHECK_ERROR;
    }
    gt_loop_model model;
    gt_client_model(client, &model);
    gt_loop_result result;
    int status = gt_loop_run(gt_loop_script_config(script), &model, &result);
    int check = GT_CHECK_DONE;
    if (status != 0 || gt_reference_loop_observed(&result, observed) != 0) {
        snprintf(note, note_len, "http-reference: out of memory running the loop");
        check = GT_CHECK_ERROR;
    }
    gt_loop_result_free(&result);
    gt_client_free(client);
    gt_loop_script_free(script);
    return check;
}

/* The reference implements every contract gauntlet judges. */
static unsigned http_reference_profiles(void *state)
{
    (void)state;
    return GT_PROFILES_ALL;
}

const gt_target_ops gt_target_http_reference_ops = {
    .kind = "http-reference",
    .open = http_reference_open,
    .check = http_reference_check,
    .name = http_reference_name,
    .close = http_reference_close,
    .profiles = http_reference_profiles,
};
