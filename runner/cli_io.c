/* cli_io.c — whole-file reads and argument parsing for the CLI. */
#include "cli_io.h"

#include "gauntlet/corpus.h"
#include "gauntlet/parse.h"
#include "gauntlet/schema.h"
#include "gauntlet/value.h"
#include "report_util.h"

#include <errno.h>
#include <unistd.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *gt_read_file(const char *path, size_t *len, char *err, size_t err_len)
{
    return gt_read_file_max(path, GT_CLI_MAX_FILE_BYTES, len, NULL, err, err_len);
}

gt_value *gt_read_and_parse(gt_arena *arena, const char *path, const gt_parse_options *options, char **text,
                            gt_parse_error *error, char *err, size_t err_len)
{
    size_t max = options != NULL && options->max_bytes != 0 ? options->max_bytes : GT_PARSE_DEFAULT_MAX_BYTES;
    size_t len;
    bool over = false;
    *text = gt_read_file_max(path, max, &len, &over, err, err_len);
    if (*text == NULL)
        return NULL;
    gt_value *value = gt_parse(arena, *text, len, options, error);
    if (value == NULL && over) /* the parser saw max + 1 bytes: say that reading stopped there */
        snprintf(error->message, sizeof error->message, "input is over the limit of %zu bytes (reading stopped there)",
                 max);
    return value;
}

char *gt_read_file_max(const char *path, size_t max, size_t *len, bool *over, char *err, size_t err_len)
{
    int use_stdin = path == NULL || strcmp(path, "-") == 0;
    FILE *in = use_stdin ? stdin : fopen(path, "rb");
    if (in == NULL) {
        snprintf(err, err_len, "%s: %s", path, strerror(errno));
        return NULL;
    }
    size_t cap = 65536, used = 0;
    bool too_big = false;
    char *data = malloc(cap);
    while (data != NULL) {
        if (used > max) {
            too_big = true;
            break;
        }
        if (used + 1 >= cap) {
            char *grown = realloc(data, cap * 2);
            if (grown == NULL) {
                free(data);
                data = NULL;
                break;
            }
            data = grown;
            cap *= 2;
        }
        size_t want = cap - used - 1;
        if (want > max + 1 - used)
            want = max + 1 - used;
        size_t got = fread(data + used, 1, want, in);
        used += got;
        if (got == 0)
            break;
    }
    int failed = data == NULL || ferror(in) || (too_big && over == NULL);
    if (failed && too_big && data != NULL)
        snprintf(err, err_len, "%s: larger than %zu bytes", use_stdin ? "<stdin>" : path, max);
    else if (failed)
        snprintf(err, err_len, "%s: %s", use_stdin ? "<stdin>" : path, data == NULL ? "out of memory" : "read error");
    if (over != NULL)
        *over = too_big;
    if (!use_stdin)
        fclose(in);
    if (failed) {
        free(data);
        return NULL;
    }
    data[used] = '\0';
    *len = used;
    return data;
}

int gt_cli_ref_flag(const char *who, int argc, char **argv, int *i, struct gt_schema_registry **registry)
{
    const char *arg = argv[*i];
    bool dir = strcmp(arg, "--ref-dir") == 0;
    if (!dir && strcmp(arg, "--ref") != 0)
        return 0;
    if (*i + 1 >= argc) {
        fprintf(stderr, "%s: %s needs a %s\n", who, arg, dir ? "directory" : "file");
        return -1;
    }
    const char *path = argv[++*i];
    if (*registry == NULL && (*registry = gt_schema_registry_new()) == NULL) {
        fprintf(stderr, "%s: out of memory\n", who);
        return -1;
    }
    gt_schema_problem problem;
    int rc = dir ? gt_schema_registry_add_dir(*registry, path, &problem)
                 : gt_schema_registry_add_file(*registry, path, &problem);
    if (rc != 0) {
        fprintf(stderr, "%s: %s %s: %s\n", who, arg, path, problem.message);
        return -1;
    }
    return 1;
}

bool gt_cli_nul_flag(const char *arg, bool *reject_nul)
{
    if (strcmp(arg, "--reject-nul") == 0)
        *reject_nul = true;
    return strcmp(arg, "--reject-nul") == 0 || strcmp(arg, "--allow-nul") == 0;
}

int gt_parse_size(const char *text, size_t *out)
{
    char *end;
    errno = 0;
    unsigned long long number = strtoull(text, &end, 10);
    if (end == text || errno != 0 || text[0] == '-')
        return -1;
    unsigned long long scale = 1;
    if (*end == 'k' || *end == 'K')
        scale = 1024ull, end++;
    else if (*end == 'm' || *end == 'M')
        scale = 1024ull * 1024ull, end++;
    else if (*end == 'g' || *end == 'G')
        scale = 1024ull * 1024ull * 1024ull, end++;
    if (*end != '\0')
        return -1;
    *out = (size_t)(number * scale);
    return 0;
}

char *gt_base64_encode(const unsigned char *data, size_t len)
{
    static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    char *out = malloc((len + 2) / 3 * 4 + 1);
    if (out == NULL)
        return NULL;
    size_t o = 0, i = 0;
    for (; i + 2 < len; i += 3) {
        unsigned v = (unsigned)data[i] << 16 | (unsigned)data[i + 1] << 8 | data[i + 2];
        out[o++] = alphabet[v >> 18];
        out[o++] = alphabet[(v >> 12) & 63];
        out[o++] = alphabet[(v >> 6) & 63];
        out[o++] = alphabet[v & 63];
    }
    if (i < len) {
        unsigned v = (unsigned)data[i] << 16 | (i + 1 < len ? (unsigned)data[i + 1] << 8 : 0u);
        out[o++] = alphabet[v >> 18];
        out[o++] = alphabet[(v >> 12) & 63];
        out[o++] = i + 1 < len ? alphabet[(v >> 6) & 63] : '=';
        out[o++] = '=';
    }
    out[o] = '\0';
    return out;
}

/* Strict base64 (RFC 4648 §4): standard alphabet, '=' padding to a multiple
 * of four, no whitespace, zero padding bits. Returns the decoded length, or
 * -1 and the offending character index in *bad_at. */
static int base64_value(unsigned char c)
{
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 26;
    if (c >= '0' && c <= '9')
        return c - '0' + 52;
    if (c == '+')
        return 62;
    if (c == '/')
        return 63;
    return -1;
}

long gt_base64_decode_into(const char *text, size_t len, unsigned char *out, size_t *bad_at)
{
    *bad_at = 0;
    if (len % 4 != 0) {
        *bad_at = len;
        return -1;
    }
    size_t written = 0;
    for (size_t i = 0; i < len; i += 4) {
        int sextets[4];
        int pad = 0;
        for (int j = 0; j < 4; j++) {
            unsigned char c = (unsigned char)text[i + j];
            if (c == '=' && i + 4 == len && j >= 2) {
                sextets[j] = 0;
                pad++;
                continue;
            }
            sextets[j] = base64_value(c);
            if (sextets[j] < 0 || pad > 0) {
                *bad_at = i + j;
                return -1;
            }
        }
        uint32_t bits = (uint32_t)sextets[0] << 18 | (uint32_t)sextets[1] << 12 | (uint32_t)sextets[2] << 6 |
                        (uint32_t)sextets[3];
        if ((pad == 1 && (bits & 0xffu)) || (pad == 2 && (bits & 0xffffu))) {
            *bad_at = i + 3 - (size_t)pad;
            return -1; /* non-zero padding bits: two spellings for one byte string */
        }
        out[written++] = (unsigned char)(bits >> 16);
        if (pad < 2)
            out[written++] = (unsigned char)(bits >> 8);
        if (pad < 1)
            out[written++] = (unsigned char)bits;
    }
    return (long)written;
}

unsigned char *gt_base64_decode(const char *text, size_t len, size_t *out_len)
{
    unsigned char *out = malloc(len / 4 * 3 + 1);
    size_t bad_at;
    long decoded = out ? gt_base64_decode_into(text, len, out, &bad_at) : -1;
    if (decoded < 0) {
        free(out);
        return NULL;
    }
    *out_len = (size_t)decoded;
    return out;
}

void gt_json_write_string(FILE *out, const char *text, size_t len)
{
    gt_value value = {.type = GT_STRING};
    char *clean = NULL;
    if (!gt_utf8_valid(text, len)) {
        /* Replace each ill-formed byte with U+FFFD so the output stays JSON. */
        clean = malloc(len * 3 + 1);
        if (clean == NULL) {
            fputs("\"\"", out);
            return;
        }
        size_t o = 0;
        for (size_t i = 0; i < len;) {
            size_t n = 1;
            while (n <= 4 && i + n <= len && !gt_utf8_valid(text + i, n))
                n++;
            if (n <= 4 && i + n <= len) {
                memcpy(clean + o, text + i, n);
                o += n;
                i += n;
            } else {
                memcpy(clean + o, "\xef\xbf\xbd", 3);
                o += 3;
                i++;
            }
        }
        text = clean;
        len = o;
    }
    value.u.str.chars = text;
    value.u.str.len = len;
    size_t json_len;
    char *json = gt_value_to_json(&value, &json_len);
    if (json != NULL)
        fwrite(json, 1, json_len, out);
    else
        fputs("\"\"", out);
    free(json);
    free(clean);
}

int gt_write_report_file(const char *who, const char *format,
                         int (*writer)(FILE *, const struct gt_run *, const struct gt_report_info *),
                         const char *path, const struct gt_run *run, const struct gt_report_info *info)
{
    if (strcmp(path, "-") == 0) {
        if (writer(stdout, run, info) != 0) {
            fprintf(stderr, "%s: cannot write the %s report to standard output\n", who, format);
            return -1;
        }
        return 0;
    }
    char temporary[PATH_MAX];
    snprintf(temporary, sizeof temporary, "%s.tmp.%ld", path, (long)getpid());
    FILE *out = fopen(temporary, "w");
    if (out == NULL) {
        fprintf(stderr, "%s: cannot write %s report '%s': %s\n", who, format, path, strerror(errno));
        return -1;
    }
    int status = writer(out, run, info);
    if (fclose(out) != 0)
        status = -1;
    if (status != 0 || rename(temporary, path) != 0) {
        fprintf(stderr, "%s: cannot write %s report '%s'\n", who, format, path);
        remove(temporary);
        return -1;
    }
    if (strcmp(format, "badge") == 0) {
        /* badge:FILE also writes the static SVG beside it (x.json -> x.svg) */
        char svg[PATH_MAX];
        size_t stem = strlen(path);
        if (stem > 5 && strcmp(path + stem - 5, ".json") == 0)
            stem -= 5;
        snprintf(svg, sizeof svg, "%.*s.svg", (int)stem, path);
        return gt_write_report_file(who, "svg", gt_report_badge_svg, svg, run, info);
    }
    return 0;
}

int gt_report_specs_parse(char *value, gt_report_spec *specs, size_t *count, size_t max, char *err, size_t err_len)
{
    for (char *item = value, *next; item != NULL; item = next) {
        next = strchr(item, ',');
        if (next != NULL)
            *next++ = '\0';
        char *colon = strchr(item, ':');
        if (colon == NULL || colon == item || colon[1] == '\0') {
            snprintf(err, err_len, "--report needs FORMAT:FILE (e.g. json:report.json), got '%s'", item);
            return -1;
        }
        *colon = '\0';
        gt_report_writer writer = gt_report_writer_for(item);
        if (writer == NULL) {
            snprintf(err, err_len, "unknown report format '%s' (known: " GT_REPORT_FORMATS ")", item);
            return -1;
        }
        if (*count == max) {
            snprintf(err, err_len, "too many reports (at most %zu)", max);
            return -1;
        }
        specs[(*count)++] = (gt_report_spec){item, colon + 1, writer};
    }
    return 0;
}

void gt_print_load_problem(const gt_load_problem *problem)
{
    gt_report_console_text(stderr, problem->file);
    fprintf(stderr, ":%u: ", problem->line);
    gt_report_console_text(stderr, problem->field[0] ? problem->field : "(file)");
    fputs(": ", stderr);
    gt_report_console_text(stderr, problem->message);
    fputc('\n', stderr);
}

void gt_print_load_problems(const gt_corpus *corpus)
{
    for (size_t i = 0; i < gt_corpus_problem_count(corpus); i++)
        gt_print_load_problem(gt_corpus_problem(corpus, i));
}
