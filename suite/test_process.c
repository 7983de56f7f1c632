/* test_process.c — what the gauntlet binary costs as a whole process: which
 * shared libraries it loads (libcurl and libmicrohttpd only on first HTTP
 * use, platform/lazy_net.c) and how much memory `validate --jsonl` needs
 * (bounded by the longest line, not the file). None of these is timed. */
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "gt_test.h"

static const char *gauntlet(void)
{
    return getenv("GAUNTLET");
}

/* A temporary directory holding a schema and a JSONL file of `lines` copies
 * of one valid line (~230 bytes each). */
static void make_workload(char *dir, size_t lines)
{
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char path[512];
    snprintf(path, sizeof path, "%s/s.json", dir);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs("{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"integer\"},\"pad\":{\"type\":\"string\"}}}", f);
    fclose(f);
    snprintf(path, sizeof path, "%s/d.jsonl", dir);
    f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    char line[300];
    int n = snprintf(line, sizeof line, "\"{\\\"a\\\": 1, \\\"pad\\\": \\\"%0200d\\\"}\"\n", 0);
    for (size_t i = 0; i < lines; i++)
        ck_assert_int_eq(fwrite(line, 1, (size_t)n, f), (size_t)n);
    ck_assert_int_eq(fclose(f), 0);
}

static void remove_workload(const char *dir)
{
    char path[512];
    snprintf(path, sizeof path, "%s/s.json", dir);
    unlink(path);
    snprintf(path, sizeof path, "%s/d.jsonl", dir);
    unlink(path);
    rmdir(dir);
}

/* Run `gauntlet validate --schema DIR/s.json --jsonl DIR/d.jsonl`, its stdout
 * into `out`; returns the child's peak RSS in KiB and its exit code in *code. */
static long jsonl_peak_rss(const char *dir, int *code, char *out, size_t out_len)
{
    char schema[512], data[512], capture[] = "/tmp/gt-test-process-XXXXXX";
    snprintf(schema, sizeof schema, "%s/s.json", dir);
    snprintf(data, sizeof data, "%s/d.jsonl", dir);
    int fd = mkstemp(capture);
    ck_assert_int_ge(fd, 0);
    fflush(NULL);
    pid_t child = fork();
    if (child == 0) {
        dup2(fd, 1);
        /* under `make sanitize`, ASan's quarantine would hold up to 256 MB of
         * freed memory: keep it small so RSS measures what the code keeps */
        char asan[1024];
        const char *given = getenv("ASAN_OPTIONS");
        snprintf(asan, sizeof asan, "%s%squarantine_size_mb=1", given ? given : "", given && *given ? ":" : "");
        setenv("ASAN_OPTIONS", asan, 1);
        execl(gauntlet(), gauntlet(), "validate", "--schema", schema, "--jsonl", data, (char *)NULL);
        _exit(127);
    }
    int status = 0;
    struct rusage usage;
    ck_assert_int_eq(wait4(child, &status, 0, &usage), child);
    ck_assert(WIFEXITED(status));
    *code = WEXITSTATUS(status);
    lseek(fd, 0, SEEK_SET);
    ssize_t got = read(fd, out, out_len - 1);
    out[got > 0 ? got : 0] = '\0';
    close(fd);
    unlink(capture);
    return usage.ru_maxrss;
}

/* The binary's DT_NEEDED closure (what ld.so maps before main) holds neither
 * HTTP library; it still holds the ones the gates need. */
START_TEST(binary_links_no_http_library)
{
    char command[1024], out[16384];
    snprintf(command, sizeof command, "LD_TRACE_LOADED_OBJECTS=1 %s", gauntlet());
    ck_assert_int_eq(gt_test_shell(command, out, sizeof out), 0);
    ck_assert_msg(strstr(out, "libcjson") != NULL && strstr(out, "libpcre2-8") != NULL, "%s", out);
    ck_assert_msg(strstr(out, "libcurl") == NULL, "%s", out);
    ck_assert_msg(strstr(out, "libmicrohttpd") == NULL, "%s", out);
}
END_TEST

/* One-shot commands never open them, not even later by dlopen. */
START_TEST(one_shot_commands_load_no_http_library)
{
    char dir[] = "/tmp/gt-test-process-XXXXXX", command[2048], out[4096];
    make_workload(dir, 3);
    const char *commands[] = {"validate --schema %s/s.json --jsonl %s/d.jsonl", "parse %s/s.json",
                              "run -q --id 'syntax.*' corpus/syntax"};
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
        char args[1024];
        snprintf(args, sizeof args, commands[i], dir, dir);
        snprintf(command, sizeof command, "LD_DEBUG=files %s %s 2>&1 >/dev/null | grep -c 'libcurl\\|libmicrohttpd'",
                 gauntlet(), args);
        gt_test_shell(command, out, sizeof out);
        ck_assert_msg(strcmp(out, "0\n") == 0, "%s loaded an HTTP library (%s)", args, out);
    }
    remove_workload(dir);
}
END_TEST

/* The first HTTP call loads libcurl and the call works (here: a connection
 * refused, reported as the client's terminal envelope, not a crash). */
START_TEST(client_loads_libcurl_on_first_use)
{
    char command[1024], out[16384];
    snprintf(command, sizeof command,
             "LD_DEBUG=files %s client --base-url http://127.0.0.1:1 --json-schema '{}' --max-attempts 1 "
             "--timeout 500 hi 2>&1 | grep -c 'file=libcurl.*dynamically loaded\\|connection error'",
             gauntlet());
    gt_test_shell(command, out, sizeof out);
    ck_assert_msg(strcmp(out, "2\n") == 0, "%s", out);
}
END_TEST

/* `serve` loads libmicrohttpd when it starts the daemon and prints its URL. */
START_TEST(serve_loads_libmicrohttpd_on_first_use)
{
    char command[2048], out[16384];
    snprintf(command, sizeof command,
             "d=$(mktemp -d); LD_DEBUG=files %s serve --corpus corpus/loop >$d/out 2>$d/err & p=$!; i=0; "
             "while [ ! -s $d/out ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i+1)); done; kill $p; wait $p; "
             "head -n 1 $d/out; grep -c 'file=libmicrohttpd.*dynamically loaded' $d/err; rm -rf $d",
             gauntlet());
    gt_test_shell(command, out, sizeof out);
    ck_assert_msg(strncmp(out, "http://127.0.0.1:", 17) == 0 && strstr(out, "\n1\n") != NULL, "%s", out);
}
END_TEST

/* `--jsonl` streams: ~50 MB of lines cost no more memory than a few lines.
 * Before it read (mapped) the whole file: peak RSS grew by the file size. */
START_TEST(jsonl_memory_is_bounded_by_the_longest_line)
{
    char small[] = "/tmp/gt-test-process-XXXXXX", big[] = "/tmp/gt-test-process-XXXXXX", out[4096];
    const size_t big_lines = 220000; /* ~50 MB */
    make_workload(small, 100);
    make_workload(big, big_lines);
    int code;
    long small_rss = jsonl_peak_rss(small, &code, out, sizeof out);
    ck_assert_int_eq(code, 0);
    ck_assert_str_eq(out, "100 valid, 0 invalid\n");
    long big_rss = jsonl_peak_rss(big, &code, out, sizeof out);
    ck_assert_int_eq(code, 0);
    ck_assert_str_eq(out, "220000 valid, 0 invalid\n");
    ck_assert_msg(big_rss - small_rss < 8 * 1024, "peak RSS %ld KiB for 50 MB against %ld KiB for 100 lines", big_rss,
                  small_rss);
    remove_workload(small);
    remove_workload(big);
}
END_TEST

/* Streaming keeps the line contract: stdin ("-"), a last line without a
 * newline, blank and CR-only lines skipped, line numbers in errors. */
START_TEST(jsonl_stream_keeps_the_line_contract)
{
    char dir[] = "/tmp/gt-test-process-XXXXXX", command[2048], out[4096];
    make_workload(dir, 1);
    snprintf(command, sizeof command,
             "printf '\"{\\\\\"a\\\\\": 1}\"\\n\\n\\r\\n\"{\\\\\"a\\\\\": \\\\\"x\\\\\"}\"\\n\"{\"' | "
             "%s validate --schema %s/s.json --jsonl -",
             gauntlet(), dir);
    ck_assert_int_eq(gt_test_shell(command, out, sizeof out), 1);
    ck_assert_str_eq(out, "1 valid, 2 invalid\nstructure type 1\nsyntax unexpected_end 1\n");
    snprintf(command, sizeof command, "printf '\"{}\"\\n{}\\n' | %s validate --schema %s/s.json --jsonl - 2>&1",
             gauntlet(), dir);
    ck_assert_int_eq(gt_test_shell(command, out, sizeof out), 2);
    ck_assert_str_eq(out, "gauntlet validate: -:2: not a JSON string literal\n");
    snprintf(command, sizeof command, "%s validate --schema %s/s.json --jsonl %s/missing 2>&1", gauntlet(), dir, dir);
    ck_assert_int_eq(gt_test_shell(command, out, sizeof out), 2);
    ck_assert_msg(strstr(out, "missing: No such file or directory") != NULL, "%s", out);
    remove_workload(dir);
}
END_TEST

/* DIR/NAME opened for writing (asserted). */
static FILE *create_in(const char *dir, const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    return f;
}

/* The line decoder copies plain bytes 16 at a time (SSE2; 8 with SWAR
 * elsewhere), then byte by byte: an escape (\", \n, \u00e9) or a raw control
 * byte at any offset, inside a block, across two or in the tail, decodes to
 * the same text as the byte-by-byte path. */
START_TEST(jsonl_decoder_handles_escapes_at_every_offset)
{
    char dir[] = "/tmp/gt-test-process-XXXXXX", command[2048], out[4096];
    static const char as[] = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"; /* 40 */
    make_workload(dir, 1);
    FILE *f = create_in(dir, "s.json");
    /* k: 39 'a' and one special character (a quote, a newline or an e-acute) */
    fputs("{\"required\":[\"k\"],\"properties\":{\"k\":{\"type\":\"string\",\"minLength\":40,\"maxLength\":40,"
          "\"pattern\":\"^a*(\\\"|\\n|\u00e9)a*$\"}}}",
          f);
    fclose(f);
    f = create_in(dir, "d.jsonl");
    static const char *const specials[] = {"\\\\\\\"", "\\\\n", "\\u00e9"}; /* in the line: \\\" \\n \u00e9 */
    for (size_t kind = 0; kind < 3; kind++)
        for (int at = 0; at < 40; at++)
            fprintf(f, "\"{\\\"k\\\": \\\"%.*s%s%.*s\\\"}\"\n", at, as, specials[kind], 39 - at, as);
    ck_assert_int_eq(fclose(f), 0);
    snprintf(command, sizeof command, "%s validate --schema %s/s.json --jsonl %s/d.jsonl", gauntlet(), dir, dir);
    ck_assert_int_eq(gt_test_shell(command, out, sizeof out), 0);
    ck_assert_str_eq(out, "120 valid, 0 invalid\n");
    for (int at = 1; at < 40; at++) { /* a raw tab: not a JSON string literal, at any offset */
        snprintf(command, sizeof command,
                 "printf '\"{\\\\\"k\\\\\": \\\\\"%.*s\\t%.*s\\\\\"}\"\\n' | %s validate --schema %s/s.json --jsonl - 2>&1",
                 at, as, 39 - at, as, gauntlet(), dir);
        ck_assert_int_eq(gt_test_shell(command, out, sizeof out), 2);
        ck_assert_str_eq(out, "gauntlet validate: -:1: not a JSON string literal\n");
    }
    remove_workload(dir);
}
END_TEST

/* Lines are handed out from 256 KiB reads: a line longer than a read, and
 * lines across the boundary of two reads, arrive whole. */
START_TEST(jsonl_lines_longer_than_a_read)
{
    char dir[] = "/tmp/gt-test-process-XXXXXX", command[2048], out[4096];
    make_workload(dir, 1);
    FILE *f = create_in(dir, "d.jsonl");
    for (int i = 0; i < 3000; i++) /* ~90 KB of short lines, then one of 700 KB, then more */
        fputs("\"{\\\"a\\\": 1, \\\"pad\\\": \\\"abcdefghij\\\"}\"\n", f);
    fputs("\"{\\\"a\\\": 2, \\\"pad\\\": \\\"", f);
    for (int i = 0; i < 70000; i++)
        fputs("0123456789", f);
    fputs("\\\"}\"\n", f);
    for (int i = 0; i < 9000; i++)
        fputs(i % 2 ? "\"{\\\"a\\\": 3}\"\n" : "\"{\\\"a\\\": \\\"x\\\"}\"\n", f);
    fputs("\"{\\\"a\\\": 4}\"", f); /* no newline at the end */
    ck_assert_int_eq(fclose(f), 0);
    snprintf(command, sizeof command, "%s validate --schema %s/s.json --jsonl %s/d.jsonl", gauntlet(), dir, dir);
    ck_assert_int_eq(gt_test_shell(command, out, sizeof out), 1);
    ck_assert_str_eq(out, "7502 valid, 4500 invalid\nstructure type 4500\n");
    remove_workload(dir);
}
END_TEST

static Suite *make_suite(void)
{
    Suite *suite = suite_create("process");
    TCase *libs = tcase_create("libraries");
    tcase_set_timeout(libs, 60);
    tcase_add_test(libs, binary_links_no_http_library);
    tcase_add_test(libs, one_shot_commands_load_no_http_library);
    tcase_add_test(libs, client_loads_libcurl_on_first_use);
    tcase_add_test(libs, serve_loads_libmicrohttpd_on_first_use);
    suite_add_tcase(suite, libs);
    TCase *jsonl = tcase_create("jsonl");
    tcase_set_timeout(jsonl, 120);
    tcase_add_test(jsonl, jsonl_memory_is_bounded_by_the_longest_line);
    tcase_add_test(jsonl, jsonl_stream_keeps_the_line_contract);
    tcase_add_test(jsonl, jsonl_decoder_handles_escapes_at_every_offset);
    tcase_add_test(jsonl, jsonl_lines_longer_than_a_read);
    suite_add_tcase(suite, jsonl);
    return suite;
}

GT_TEST_MAIN()
