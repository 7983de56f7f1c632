/* gt_test_http.h — the Check suites' HTTP helpers for the mock server: one
 * libcurl request with the body and (lower-cased) headers captured, a mock
 * started with the test scenarios loaded, and a reference client set up to
 * run a loop against it.
 *
 * Shared by suite/test_mock.c, test_mock_forms.c, test_bounds.c and
 * test_client.c so that a change to how tests talk to the mock is made once.
 * Not for: asserting anything about the mock or the client themselves. */
#ifndef GT_TEST_HTTP_H
#define GT_TEST_HTTP_H

#include <check.h>
#include <cjson/cJSON.h>
#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gauntlet/client.h"
#include "gauntlet/loop.h"
#include "gauntlet/runner/mock.h"

/* What one request got back. Free with gt_test_response_free. */
typedef struct gt_test_response {
    long status;    /* HTTP status, 0 when there was no response */
    CURLcode code;  /* the transfer's result */
    char *body;     /* NUL-terminated, never NULL */
    size_t len;
    char headers[8192]; /* the response's header lines, lower-cased (the first 8 KiB) */
    size_t header_len;
    double first_byte_s, total_s;
} gt_test_response;

static inline size_t gt_test_on_body(char *data, size_t size, size_t count, void *user)
{
    gt_test_response *r = user;
    size_t n = size * count;
    char *grown = realloc(r->body, r->len + n + 1);
    if (grown == NULL)
        return 0;
    r->body = grown;
    memcpy(r->body + r->len, data, n);
    r->len += n;
    r->body[r->len] = '\0';
    return n;
}

static inline size_t gt_test_on_header(char *data, size_t size, size_t count, void *user)
{
    gt_test_response *r = user;
    size_t n = size * count;
    if (r->header_len + n < sizeof r->headers) {
        for (size_t i = 0; i < n; i++) /* lower-case for easy matching */
            r->headers[r->header_len + i] = (char)((data[i] >= 'A' && data[i] <= 'Z') ? data[i] + 32 : data[i]);
        r->header_len += n;
        r->headers[r->header_len] = '\0';
    }
    return n;
}

/* Send a JSON request to `url`: a POST of `body` when it is not NULL, else a
 * GET; `method` (may be NULL) overrides the verb; `extra` (NULL-terminated,
 * may be NULL) are more header lines. Times out after 20 s. */
static inline gt_test_response gt_test_http(const char *method, const char *url, const char *body,
                                            const char *const *extra)
{
    gt_test_response r;
    memset(&r, 0, sizeof r);
    CURL *curl = curl_easy_init();
    struct curl_slist *headers = curl_slist_append(NULL, "content-type: application/json");
    for (size_t i = 0; extra && extra[i]; i++)
        headers = curl_slist_append(headers, extra[i]);
    curl_easy_setopt(curl, CURLOPT_URL, url);
    curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
    if (body) {
        curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body);
        curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE, (long)strlen(body));
    }
    if (method)
        curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, method);
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, gt_test_on_body);
    curl_easy_setopt(curl, CURLOPT_WRITEDATA, &r);
    curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, gt_test_on_header);
    curl_easy_setopt(curl, CURLOPT_HEADERDATA, &r);
    curl_easy_setopt(curl, CURLOPT_TIMEOUT, 20L);
    curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
    r.code = curl_easy_perform(curl);
    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &r.status);
    curl_easy_getinfo(curl, CURLINFO_STARTTRANSFER_TIME, &r.first_byte_s);
    curl_easy_getinfo(curl, CURLINFO_TOTAL_TIME, &r.total_s);
    curl_slist_free_all(headers);
    curl_easy_cleanup(curl);
    if (r.body == NULL)
        r.body = calloc(1, 1);
    return r;
}

/* The same at `path` of `server`'s base URL. */
static inline gt_test_response gt_test_mock_request(const gt_mock_server *server, const char *method,
                                                    const char *path, const char *body, const char *const *extra)
{
    char url[1024];
    snprintf(url, sizeof url, "%s%s", gt_mock_base_url(server), path);
    return gt_test_http(method, url, body, extra);
}

/* The item at "a.0.b" below `item` (members and array indexes), or NULL. */
static inline const cJSON *gt_test_json_at(const cJSON *item, const char *path)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", path);
    char *state = NULL;
    for (char *part = strtok_r(buf, ".", &state); part && item; part = strtok_r(NULL, ".", &state))
        item = (part[0] >= '0' && part[0] <= '9') ? cJSON_GetArrayItem(item, atoi(part))
                                                    : cJSON_GetObjectItemCaseSensitive(item, part);
    return item;
}

static inline void gt_test_response_free(gt_test_response *r)
{
    free(r->body);
    r->body = NULL;
}

/* The client-over-HTTP tests' set-up: a reference client (gauntlet/client.h)
 * made from `options` (fails the test when it cannot be), its model in
 * *model, and *config initialised to ask for `schema` through it. Free the
 * client with gt_client_free. */
static inline gt_client *gt_test_client_loop(const gt_client_options *options, const char *schema,
                                             gt_loop_model *model, gt_loop_config *config)
{
    char err[256];
    gt_client *client = gt_client_new(options, err, sizeof err);
    ck_assert_msg(client != NULL, "%s", err);
    gt_client_model(client, model);
    gt_loop_config_init(config);
    config->json_schema_text = schema;
    config->json_schema_len = strlen(schema);
    return client;
}

/* Start a mock on an ephemeral loopback port with `options` (NULL = the
 * defaults) and load the scenarios below `scenarios`; fails the test unless
 * at least `at_least` load. Stop it with gt_mock_stop. */
static inline gt_mock_server *gt_test_mock_start(const gt_mock_options *options, const char *scenarios,
                                                 int at_least)
{
    char err[256];
    gt_mock_options defaults = {0};
    gt_mock_server *server = gt_mock_start(options ? options : &defaults, err, sizeof err);
    ck_assert_msg(server != NULL, "%s", err);
    int loaded = gt_mock_load_corpus(server, scenarios, err, sizeof err);
    ck_assert_msg(loaded >= at_least, "loaded %d scenarios from %s: %s", loaded, scenarios, err);
    return server;
}

#endif
