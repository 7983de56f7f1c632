/* seed_extract.c — build the fuzzers' seed directories from corpus/ and
 * suite/data at run time (nothing is copied into the tree):
 *   syntax/   every case's raw input
 *   schema/   every case schema, a NUL, the case's input (schema + "{}" alone)
 *   wire/     every distinct case schema
 *   reply/    every case's expectation (the shape of an adapter's reply)
 *   stream/   every "sse" string found in cases and mock scenarios, after a
 *             provider byte (0 Anthropic, 1 OpenAI)
 *   mock/     every mock scenario file after the "upload" route byte, and
 *             every case input after the request route bytes
 * Usage: seed_extract OUT_DIR CORPUS_DIR... */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "gauntlet/util.h"
#include "gauntlet/arena.h"
#include "gauntlet/runner/corpus.h"
#include "gauntlet/parse.h"
#include "gauntlet/value.h"

static const char *out_dir;
static unsigned long written;

static void put(const char *kind, unsigned char prefix, bool use_prefix, const void *a, size_t a_len, const void *b,
                size_t b_len)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s/%06lu", out_dir, kind, written++);
    FILE *file = fopen(path, "wb");
    if (file == NULL)
        return;
    if (use_prefix)
        fputc(prefix, file);
    fwrite(a, 1, a_len, file);
    if (b != NULL) {
        fputc('\0', file);
        fwrite(b, 1, b_len, file);
    }
    fclose(file);
}

/* Every string member named "sse" below `v`. */
static void find_sse(const gt_value *v)
{
    if (v->type == GT_ARRAY)
        for (size_t i = 0; i < v->u.arr.count; i++)
            find_sse(v->u.arr.items[i]);
    if (v->type != GT_OBJECT)
        return;
    for (size_t i = 0; i < v->u.obj.count; i++) {
        const gt_member *m = &v->u.obj.members[i];
        if (m->key_len == 3 && memcmp(m->key, "sse", 3) == 0 && m->value->type == GT_STRING) {
            const char *text = m->value->u.str.chars;
            put("stream", strncmp(text, "event:", 6) == 0 ? 0 : 1, true, text, m->value->u.str.len, NULL, 0);
        } else
            find_sse(m->value);
    }
}

static void scan_json_file(const char *path, bool scenario)
{
    char err[256];
    size_t len;
    char *text = gt_read_file(path, &len, err, sizeof err);
    if (text == NULL)
        return;
    gt_arena *arena = gt_arena_new();
    gt_parse_options options;
    gt_parse_options_init(&options);
    options.max_depth = 20000;
    options.max_bytes = 1u << 28;
    gt_parse_error error;
    const gt_value *root = gt_parse(arena, text, len, &options, &error);
    if (root != NULL)
        find_sse(root);
    if (scenario)
        put("mock", 3, true, text, len, NULL, 0); /* route 3: upload a scenario */
    else if (root != NULL && root->type == GT_OBJECT && gt_value_get(root, "cases", 5) == NULL)
        put("wire", 0, false, text, len, NULL, 0); /* a schema file */
    gt_arena_free(arena);
    free(text);
}

static void scan_tree(const char *dir)
{
    DIR *d = opendir(dir);
    if (d == NULL)
        return;
    struct dirent *entry;
    while ((entry = readdir(d)) != NULL) {
        if (entry->d_name[0] == '.')
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, entry->d_name);
        struct stat info;
        if (stat(path, &info) != 0)
            continue;
        size_t n = strlen(entry->d_name);
        if (S_ISDIR(info.st_mode))
            scan_tree(path);
        else if (n > 5 && strcmp(entry->d_name + n - 5, ".json") == 0)
            scan_json_file(path, n > 14 && strcmp(entry->d_name + n - 14, ".scenario.json") == 0);
    }
    closedir(d);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: seed_extract OUT_DIR CORPUS_DIR...\n");
        return 2;
    }
    out_dir = argv[1];
    static const char *const kinds[] = {"syntax", "schema", "wire", "reply", "stream", "mock"};
    mkdir(out_dir, 0755);
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", out_dir, kinds[i]);
        mkdir(path, 0755);
    }
    gt_corpus *corpus = gt_corpus_new();
    for (int a = 2; a < argc; a++) {
        gt_corpus_load(corpus, argv[a]);
        scan_tree(argv[a]);
    }
    for (size_t i = 0; i < gt_corpus_count(corpus); i++) {
        const gt_case *kase = gt_corpus_case(corpus, i);
        const gt_case_input *in = &kase->input;
        if (in->raw != NULL) {
            put("syntax", 0, false, in->raw, in->raw_len, NULL, 0);
            put("mock", (unsigned char)(i % 16), true, in->raw, in->raw_len, NULL, 0);
        }
        if (in->schema_json != NULL)
            put("schema", 0, false, in->schema_json, strlen(in->schema_json), in->raw ? (const char *)in->raw : "{}",
                in->raw ? in->raw_len : 2);
        if (kase->expect.expect_json != NULL)
            put("reply", 0, false, kase->expect.expect_json, strlen(kase->expect.expect_json), NULL, 0);
        if (in->case_json != NULL) {
            gt_arena *arena = gt_arena_new();
            gt_parse_options options;
            gt_parse_options_init(&options);
            options.max_depth = 20000;
            gt_parse_error error;
            const gt_value *root = gt_parse(arena, in->case_json, strlen(in->case_json), &options, &error);
            if (root != NULL)
                find_sse(root);
            gt_arena_free(arena);
        }
    }
    gt_corpus_free(corpus);
    printf("seed_extract: %lu seeds in %s\n", written, out_dir);
    return 0;
}
