/* cli_io.c — whole-file reads and argument parsing for the CLI. */
#include "cli_io.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *gt_read_file(const char *path, size_t *len, char *err, size_t err_len)
{
    int use_stdin = path == NULL || strcmp(path, "-") == 0;
    FILE *in = use_stdin ? stdin : fopen(path, "rb");
    if (in == NULL) {
        snprintf(err, err_len, "%s: %s", path, strerror(errno));
        return NULL;
    }
    size_t cap = 65536, used = 0;
    char *data = malloc(cap);
    while (data != NULL) {
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
        size_t got = fread(data + used, 1, cap - used - 1, in);
        used += got;
        if (got == 0)
            break;
    }
    int failed = data == NULL || ferror(in);
    if (failed)
        snprintf(err, err_len, "%s: %s", use_stdin ? "<stdin>" : path, data == NULL ? "out of memory" : "read error");
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
