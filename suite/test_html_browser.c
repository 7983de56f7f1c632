/* test_html_browser.c — the HTML report rendered in headless Chromium runs
 * none of the scripts a hostile corpus puts in it.
 *
 * Every string a report carries (ids, descriptions, notes, messages, error
 * paths, raw input, transcripts, outputs, file names, target and command,
 * load problems, baseline entries) gets injection payloads that would, if
 * they ever became markup, write the sentinel GT + PWNED into the document.
 * The page is rendered without its Content-Security-Policy (so only the
 * escaping stands between the payloads and the browser) and with it; the
 * dumped DOM must hold no sentinel and no element the page does not write
 * itself. The page's own filter script runs (under the CSP, so its hash is
 * right), filters by class and by a hostile reason and text preset from the
 * URL, and no payload plants a second filter control or case list (P_FILTER).
 * A control page with a real script and a real onerror handler
 * proves that this Chromium does run scripts, so "no sentinel" means
 * something. Skips with a line on stdout when Chromium is absent; set
 * GAUNTLET_REQUIRE_BROWSER=1 (make test-browser) to fail instead. */
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gauntlet/runner/report.h"
#include "gt_test.h"
#include "reports/report_util.h"

#define BROWSER_TIMEOUT_S 120
#define SENTINEL "GTPWNED" /* payloads build it as 'GT'+'PWNED', so it is never in the page as text */

/* Payloads that write the sentinel into the document if they ever run. */
#define P_SCRIPT "<script>document.body.setAttribute('data-x','GT'+'PWNED')</script>"
#define P_CLOSE "</script></title></style></textarea></pre><script>document.title='GT'+'PWNED'</script>"
#define P_IMG "\"><img src=x onerror=\"document.body.append('GT'+'PWNED')\">"
#define P_SVG "'><svg onload=document.body.append('GT'+'PWNED')>"
#define P_IFRAME "<iframe srcdoc=\"<script>parent.document.body.append('GT'+'PWNED')</script>\"></iframe>"
#define P_DETAILS "<details open ontoggle=document.body.append('GT'+'PWNED')>"
#define P_COMMENT "<!--<script>document.body.append('GT'+'PWNED')</script>-->"
#define P_BASE "<base href=\"javascript:document.body.append('GT'+'PWNED')//\"><meta http-equiv=refresh content=0>"
/* Tries to take over the filter: end the data-* attribute and claim another
 * class, plant a second search box and case list, run a handler. */
#define P_FILTER                                                                                                       \
    "\" data-class=\"unsafe\"><input id=\"gt-f-q\" autofocus onfocus=\"document.body.append('GT'+'PWNED')\">"          \
    "<div id=\"gt-cases\">"
#define P_BYTES "\x01\x1b[31m\xff\xfe\xe2\x80\xa8\xe2\x80\xa9\xef\xbb\xbf\xc0\xbc" "script\xc0\xbe"

static const char *const payloads[] = {P_SCRIPT,  P_CLOSE,   P_IMG,  P_SVG,   P_IFRAME,
                                       P_DETAILS, P_COMMENT, P_BASE, P_BYTES, P_FILTER};
#define PAYLOAD_COUNT (sizeof payloads / sizeof payloads[0])

static const char *find_browser(void)
{
    const char *configured = getenv("GAUNTLET_CHROMIUM");
    if (configured != NULL && configured[0] != '\0')
        return configured;
    static const char *const names[] = {"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"};
    static char path[512];
    const char *env_path = getenv("PATH");
    for (size_t n = 0; n < sizeof names / sizeof names[0]; n++) {
        char dirs[4096];
        snprintf(dirs, sizeof dirs, "%s", env_path ? env_path : "/usr/bin:/bin");
        for (char *d = strtok(dirs, ":"); d != NULL; d = strtok(NULL, ":")) {
            snprintf(path, sizeof path, "%s/%s", d, names[n]);
            if (access(path, X_OK) == 0)
                return path;
        }
    }
    return NULL;
}

/* Render `page` (file URL plus `fragment`, "" for none) with --dump-dom;
 * returns the DOM (malloc'd). (Scripts off, --dump-dom dumps nothing: what
 * such a browser shows, the filter hidden and the groups as <details>, is
 * the page's own markup, checked by test_report.) */
static char *dump_dom_with(const char *browser, const char *page, const char *fragment)
{
    char profile[] = "/tmp/gt-chromium-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(profile));
    char user_data[64], url[2048];
    snprintf(user_data, sizeof user_data, "--user-data-dir=%s", profile);
    snprintf(url, sizeof url, "file://%s%s", page, fragment);
    char out_path[] = "/tmp/gt-chromium-dom-XXXXXX";
    int out_fd = mkstemp(out_path);
    ck_assert_int_ge(out_fd, 0);
    fflush(NULL);
    pid_t child = fork();
    if (child == 0) {
        setpgid(0, 0);
        dup2(out_fd, 1);
        int null_fd = open("/dev/null", O_WRONLY);
        dup2(null_fd, 2);
        execl(browser, browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
              "--disable-component-update", "--disable-sync", "--no-first-run", "--virtual-time-budget=3000", user_data,
              "--dump-dom", url, (char *)NULL);
        _exit(127);
    }
    int status = 0;
    time_t deadline = time(NULL) + BROWSER_TIMEOUT_S;
    while (waitpid(child, &status, WNOHANG) == 0) {
        if (time(NULL) > deadline) {
            kill(-child, SIGKILL);
            waitpid(child, &status, 0);
            ck_abort_msg("chromium did not finish within %d s", BROWSER_TIMEOUT_S);
        }
        usleep(50000);
    }
    kill(-child, SIGKILL); /* helpers left behind in its process group */
    char command[128];
    snprintf(command, sizeof command, "rm -rf '%s'", profile);
    if (system(command) != 0)
        fprintf(stderr, "cannot remove %s\n", profile);
    off_t len = lseek(out_fd, 0, SEEK_END);
    lseek(out_fd, 0, SEEK_SET);
    char *dom = malloc((size_t)len + 1);
    ssize_t got = read(out_fd, dom, (size_t)len);
    dom[got > 0 ? got : 0] = '\0';
    close(out_fd);
    unlink(out_path);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "chromium failed (status %d)", status);
    return dom;
}

static char *dump_dom(const char *browser, const char *page)
{
    return dump_dom_with(browser, page, "");
}

/* `text` percent-encoded for a URL fragment (malloc'd). */
static char *fragment_escape(const char *text)
{
    char *out = malloc(3 * strlen(text) + 1), *at = out;
    for (const unsigned char *c = (const unsigned char *)text; *c; c++)
        if ((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '.')
            *at++ = (char)*c;
        else
            at += sprintf(at, "%%%02X", *c);
    *at = '\0';
    return out;
}

static void write_page(const char *path, const char *text)
{
    FILE *out = fopen(path, "w");
    ck_assert_ptr_nonnull(out);
    fputs(text, out);
    fclose(out);
}

/* Every element in the dumped DOM is one the report writes itself. */
static void assert_only_own_elements(const char *dom)
{
    static const char *const own[] = {"!DOCTYPE", "html", "head", "meta", "title", "style", "body", "h1", "h2",
                                      "h3", "p", "strong", "table", "tbody", "tr", "th", "td", "code", "span",
                                      "pre", "section", "dl", "dt", "dd", "br", "details", "summary", "svg", "rect",
                                      "text", "ul", "li", "a", "div", "label", "select", "option", "input",
                                      "script"};
    for (const char *at = strchr(dom, '<'); at != NULL; at = strchr(at + 1, '<')) {
        const char *name = at + 1 + (at[1] == '/');
        size_t len = strcspn(name, " >\n");
        bool known = false;
        for (size_t i = 0; i < sizeof own / sizeof own[0] && !known; i++)
            known = strlen(own[i]) == len && strncasecmp(own[i], name, len) == 0;
        ck_assert_msg(known, "the browser built an element the report never writes: %.60s", at);
    }
}

static char *payload_text(size_t index, const char *prefix)
{
    char *text = malloc(strlen(prefix) + strlen(payloads[index % PAYLOAD_COUNT]) + 1);
    strcpy(text, prefix);
    strcat(text, payloads[index % PAYLOAD_COUNT]);
    return text;
}

/* A run whose every string is hostile: one failing case per payload (so each
 * payload reaches every field the page shows), plus an error, a skip, a
 * loop case with accounting and a transcript, and (the first) an
 * other-reason pass, listed apart; every case is in `core`, the claim, so
 * the coverage line shows too. */
typedef struct hostile {
    gt_run *run;
    gt_case *cases;
    char **strings;
    size_t string_count;
    gt_load_problem problems[PAYLOAD_COUNT];
    gt_baseline_diff diff;
    gt_baseline_entry entries[PAYLOAD_COUNT];
    gt_expected_error expected_errors[PAYLOAD_COUNT];
    const char *tags[PAYLOAD_COUNT][2];
} hostile;

static const char *keep(hostile *h, char *text)
{
    h->strings = realloc(h->strings, (h->string_count + 1) * sizeof *h->strings);
    h->strings[h->string_count++] = text;
    return text;
}

static void hostile_build(hostile *h)
{
    memset(h, 0, sizeof *h);
    size_t count = PAYLOAD_COUNT + 2;
    h->cases = calloc(count, sizeof *h->cases);
    h->run = calloc(1, sizeof *h->run);
    h->run->results = calloc(count, sizeof *h->run->results);
    h->run->count = count;
    h->run->target = strdup("adapter:" P_SCRIPT);
    h->run->target_name = strdup(P_IMG " 1.0");
    strcpy(h->run->started_at, "2026-01-02T03:04:05Z");
    h->run->jobs = 1;
    for (size_t i = 0; i < count; i++) {
        gt_case *kase = &h->cases[i];
        gt_case_result *result = &h->run->results[i];
        kase->input.id = keep(h, payload_text(i, "id."));
        kase->input.gate = i == count - 1 ? "loop" : "syntax";
        kase->category = keep(h, payload_text(i + 1, "cat"));
        kase->description = keep(h, payload_text(i + 2, "description "));
        kase->file = keep(h, payload_text(i + 3, "corpus/"));
        kase->line = (unsigned)i + 1;
        h->tags[i % PAYLOAD_COUNT][0] = keep(h, payload_text(i + 4, "tag"));
        kase->tags = h->tags[i % PAYLOAD_COUNT];
        kase->tag_count = 1;
        const char *raw = keep(h, payload_text(i + 5, "```json\n"));
        kase->input.raw = (const unsigned char *)raw;
        kase->input.raw_len = strlen(raw);
        kase->expect.verdict = GT_VERDICT_REJECT;
        kase->expect.gate = "syntax";
        kase->expect.reason = keep(h, payload_text(i + 6, "reason"));
        h->expected_errors[i % PAYLOAD_COUNT] = (gt_expected_error){keep(h, payload_text(i + 7, "/p")), "type"};
        kase->expect.errors = &h->expected_errors[i % PAYLOAD_COUNT];
        kase->expect.error_count = 1;
        kase->expect.errors_given = true;
        kase->expect.output_json = keep(h, payload_text(i + 8, "{\"o\": \""));
        gt_accounting_init(&kase->expect.accounting);
        kase->profiles = 1u << GT_PROFILE_CORE;
        result->kase = kase;
        result->outcome = i == count - 2 ? GT_OUTCOME_SKIP : i == count - 3 ? GT_OUTCOME_ERROR : GT_OUTCOME_FAIL;
        if (i == 0)
            result->outcome = GT_OUTCOME_PASS, result->verdict_class = GT_CLASS_OTHER_REASON;
        result->note = payload_text(i, "note ");
        result->elapsed_ms = 1;
        gt_observed *observed = &result->observed;
        char *message = payload_text(i + 1, "message ");
        gt_observed_reject(observed, "syntax", payloads[i % PAYLOAD_COUNT], message);
        free(message);
        char *path = payload_text(i + 2, "/"), *error_message = payload_text(i + 3, "expected ");
        gt_observed_add_error(observed, path, payloads[(i + 4) % PAYLOAD_COUNT], error_message);
        free(path);
        free(error_message);
        observed->output_json = payload_text(i + 5, "{\"x\": ");
        observed->subtype = payload_text(i + 6, "subtype ");
        observed->transcript = payload_text(i + 7, "turn 1\n-> request\n");
    }
    gt_case *loop = &h->cases[count - 1];
    loop->expect.accounting_given = true;
    loop->expect.accounting.attempts_used = 2;
    loop->expect.accounting.model_calls = 3;
    loop->expect.subtype = P_SVG;
    h->run->results[count - 1].observed.has_accounting = true;
    gt_accounting_init(&h->run->results[count - 1].observed.accounting);
    h->run->results[count - 1].observed.accounting.attempts_used = 4;

    for (size_t i = 0; i < PAYLOAD_COUNT; i++) {
        h->problems[i] = (gt_load_problem){keep(h, payload_text(i, "corpus/")), (unsigned)i,
                                           keep(h, payload_text(i + 1, "/cases/")),
                                           keep(h, payload_text(i + 2, "message "))};
        h->entries[i] = (gt_baseline_entry){(char *)keep(h, payload_text(i, "base.")),
                                            (gt_baseline_kind)(i % GT_BASELINE_KIND_COUNT), 0, GT_OUTCOME_FAIL};
        h->diff.counts[i % GT_BASELINE_KIND_COUNT]++;
    }
    h->diff.file = (char *)keep(h, payload_text(3, "baseline"));
    h->diff.entries = h->entries;
    h->diff.entry_count = PAYLOAD_COUNT;
}

static void hostile_free(hostile *h)
{
    gt_run_free(h->run);
    free(h->cases);
    for (size_t i = 0; i < h->string_count; i++)
        free(h->strings[i]);
    free(h->strings);
}

static gt_report_info hostile_info(hostile *h)
{
    return (gt_report_info){.command = "gauntlet run --target '" P_CLOSE "'",
                            .corpus_version = P_DETAILS,
                            .corpus_sha256 = P_COMMENT,
                            .corpus_cases = 3,
                            .selected_cases = 3,
                            .problems = h->problems,
                            .problem_count = PAYLOAD_COUNT,
                            .baseline = &h->diff};
}

static char *render_page(hostile *h, bool csp)
{
    gt_report_info info = hostile_info(h);
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    ck_assert_int_eq(gt_report_html_page(out, h->run, &info, csp), 0);
    fclose(out);
    return text;
}

START_TEST(hostile_strings_stay_text_in_chromium)
{
    const char *browser = find_browser();
    if (browser == NULL) {
        const char *required = getenv("GAUNTLET_REQUIRE_BROWSER");
        ck_assert_msg(required == NULL || strcmp(required, "1") != 0,
                      "GAUNTLET_REQUIRE_BROWSER=1 but no chromium in PATH (apt-get install -y chromium)");
        printf("SKIP test_html_browser: chromium not found (apt-get install -y chromium, then make test-browser); "
               "the escaping is still checked by test_report\n");
        return;
    }
    char dir[] = "/tmp/gt-html-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char control[256], bare[256], guarded[256];
    snprintf(control, sizeof control, "%s/control.html", dir);
    snprintf(bare, sizeof bare, "%s/no-csp.html", dir);
    snprintf(guarded, sizeof guarded, "%s/report.html", dir);

    /* the control: this browser, with these flags, runs scripts and handlers */
    write_page(control, "<!DOCTYPE html><html><head><title>c</title></head><body><p>control</p>"
                        "<script>document.body.setAttribute('data-x','GT'+'PWNED')</script>"
                        "<img src=x onerror=\"document.body.append('GT'+'PWNED')\"></body></html>");
    char *dom = dump_dom(browser, control);
    ck_assert_msg(strstr(dom, "data-x=\"" SENTINEL "\"") != NULL, "control script did not run: %.300s", dom);
    ck_assert_msg(strstr(dom, "</p>" SENTINEL) != NULL || strstr(dom, ">" SENTINEL "</body>") != NULL ||
                      strstr(dom, SENTINEL "</body>") != NULL,
                  "control onerror did not run: %.300s", dom);
    free(dom);

    hostile h;
    hostile_build(&h);
    for (int pass = 0; pass < 2; pass++) {
        const char *path = pass == 0 ? bare : guarded;
        char *page = render_page(&h, pass == 1);
        ck_assert_uint_eq(gt_test_count_of(page, "<script"), 1); /* the page's own filter */
        write_page(path, page);
        free(page);
        dom = dump_dom(browser, path);
        ck_assert_msg(strstr(dom, "gauntlet report") != NULL, "the page did not render: %.300s", dom);
        ck_assert_msg(strstr(dom, SENTINEL) == NULL, "an injected script ran (%s CSP): %s",
                      pass == 0 ? "without" : "with", strstr(dom, SENTINEL) - 80);
        assert_only_own_elements(dom);
        /* the payloads are on the page, as text */
        ck_assert_ptr_nonnull(strstr(dom, "&lt;script&gt;document.body.setAttribute('data-x','GT'+'PWNED')"
                                          "&lt;/script&gt;"));
        ck_assert_ptr_nonnull(strstr(dom, "&lt;img src=x onerror=\"document.body.append('GT'+'PWNED')\"&gt;"));
        ck_assert_ptr_nonnull(strstr(dom, "<title>gauntlet: 1 passed, 10 failed, 1 skipped</title>"));
        ck_assert_ptr_nonnull(strstr(dom, "right verdict, other reason"));
        ck_assert_ptr_nonnull(strstr(dom, "<li class=\"low\">core: 10 of 12 required cases ran"));
        /* the script ran (with the CSP: its hash is right) and showed the filter;
         * no payload planted a second control or case list */
        ck_assert_ptr_nonnull(strstr(dom, "<div id=\"gt-filter\">"));
        ck_assert_ptr_nonnull(strstr(dom, "<span id=\"gt-f-shown\">12 cases listed</span>"));
        ck_assert_uint_eq(gt_test_count_of(dom, "<input id=\"gt-f-q\""), 1);
        ck_assert_uint_eq(gt_test_count_of(dom, "<div id=\"gt-cases\""), 1);
        free(dom);
    }
    /* the filter under the CSP: a class picks the one error (no case can
     * claim another class); a hostile reason and hostile text, preset from
     * the URL, match as values and run nothing */
    dom = dump_dom_with(browser, guarded, "#filter&class=error");
    ck_assert_msg(strstr(dom, "<span id=\"gt-f-shown\">1 of 12 listed cases match</span>") != NULL,
                  "the class filter did not apply: %s", strstr(dom, "gt-f-shown"));
    ck_assert_uint_eq(gt_test_count_of(dom, "<section class=\"case"), 12);
    ck_assert_uint_eq(gt_test_count_of(dom, " hidden=\"\">\n<h3>"), 11); /* every other case hidden */
    free(dom);
    char *reason = fragment_escape(P_FILTER), *query = fragment_escape("<IMG src=x onerror"), fragment[1024];
    snprintf(fragment, sizeof fragment, "#filter&reason=%s&q=%s", reason, query);
    free(reason);
    free(query);
    dom = dump_dom_with(browser, guarded, fragment);
    ck_assert_msg(strstr(dom, "<span id=\"gt-f-shown\">1 of 12 listed cases match</span>") != NULL,
                  "the reason and text filter did not apply: %s", strstr(dom, "gt-f-shown"));
    ck_assert_ptr_null(strstr(dom, SENTINEL));
    assert_only_own_elements(dom);
    free(dom);
    hostile_free(&h);
    char command[128];
    snprintf(command, sizeof command, "rm -rf '%s'", dir);
    ck_assert_int_eq(system(command), 0);
}
END_TEST

START_TEST(hostile_page_is_self_contained)
{
    hostile h;
    hostile_build(&h);
    char *page = render_page(&h, true);
    ck_assert_uint_eq(gt_test_count_of(page, "<script"), 1); /* the page's own filter, allowed by its hash */
    ck_assert_ptr_nonnull(strstr(page, "script-src 'sha256-"));
    ck_assert_ptr_null(strstr(page, "<img"));
    ck_assert_ptr_null(strstr(page, "<link"));
    ck_assert_ptr_null(strstr(page, "http://"));
    ck_assert_ptr_null(strstr(page, "https://"));
    ck_assert_ptr_null(strstr(page, "url("));
    ck_assert_ptr_null(strstr(page, "@import"));
    ck_assert_ptr_nonnull(strstr(page, "default-src 'none'"));
    free(page);
    hostile_free(&h);
}
END_TEST

static Suite *make_suite(void)
{
    Suite *suite = suite_create("html_browser");
    TCase *browser = tcase_create("browser");
    tcase_set_timeout(browser, 6 * BROWSER_TIMEOUT_S + 30);
    tcase_add_test(browser, hostile_page_is_self_contained);
    tcase_add_test(browser, hostile_strings_stay_text_in_chromium);
    suite_add_tcase(suite, browser);
    return suite;
}

GT_TEST_MAIN()
