/* util.c — bounded whole-file reads, atomic file writes, strict base64 and
 * JSON string literals: the helpers every layer uses (gauntlet/util.h).
 * Not for: anything that knows about cases, runs or the command line. */
#include "gauntlet/util.h"

#include "gauntlet/parse.h"
#include "gauntlet/value.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

FILE *gt_open_regular(const char *path, off_t *size, char *err, size_t err_len)
{
    /* O_NONBLOCK: opening a FIFO that nobody writes returns at once instead
     * of blocking, so it can be refused below */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) {
        snprintf(err, err_len, "%s: %s", path, strerror(errno));
        return NULL;
    }
    struct stat st;
    bool stat_ok = fstat(fd, &st) == 0;
    if (!stat_ok || !S_ISREG(st.st_mode)) {
        snprintf(err, err_len, "%s: %s", path,
                 !stat_ok                ? strerror(errno)
                 : S_ISDIR(st.st_mode) ? strerror(EISDIR)
                                       : "is not a regular file (give - to read standard input)");
        close(fd);
        return NULL;
    }
    int flags = fcntl(fd, F_GETFL);
    if (flags >= 0)
        fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
    FILE *in = fdopen(fd, "rb");
    if (in == NULL) {
        snprintf(err, err_len, "%s: %s", path, strerror(errno));
        close(fd);
        return NULL;
    }
    if (size != NULL)
        *size = st.st_size;
    return in;
}

char *gt_read_file(const char *path, size_t *len, char *err, size_t err_len)
{
    return gt_read_file_max(path, GT_READ_FILE_MAX_BYTES, len, NULL, err, err_len);
}

char *gt_read_file_max(const char *path, size_t max, size_t *len, bool *over, char *err, size_t err_len)
{
    int use_stdin = path == NULL || strcmp(path, "-") == 0;
    off_t size = 0;
    FILE *in = use_stdin ? stdin : gt_open_regular(path, &size, err, err_len);
    if (in == NULL)
        return NULL;
    if (!use_stdin && over == NULL && size > 0 && (uintmax_t)size > (uintmax_t)max) { /* before reading */
        snprintf(err, err_len, "%s: larger than %zu bytes", path, max);
        fclose(in);
        return NULL;
    }
    size_t cap = 65536, used = 0;
    bool too_big = false;
    int read_errno = 0;
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
        if (got == 0) {
            read_errno = ferror(in) ? errno : 0; /* EISDIR for a folder */
            break;
        }
    }
    int failed = data == NULL || ferror(in) || (too_big && over == NULL);
    if (failed && too_big && data != NULL)
        snprintf(err, err_len, "%s: larger than %zu bytes", use_stdin ? "<stdin>" : path, max);
    else if (failed)
        snprintf(err, err_len, "%s: %s", use_stdin ? "<stdin>" : path,
                 data == NULL ? "out of memory" : read_errno ? strerror(read_errno) : "read error");
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

/* The folder part of `path` ("." when none) into `out`. */
static void folder_of(const char *path, char *out, size_t out_len)
{
    const char *slash = strrchr(path, '/');
    if (slash == NULL)
        snprintf(out, out_len, ".");
    else if (slash == path)
        snprintf(out, out_len, "/");
    else
        snprintf(out, out_len, "%.*s", (int)(slash - path), path);
}

/* Remove "<path>.tmp.<pid>" files beside `path` whose writer is gone (a
 * run killed while writing leaves them); a live writer's are kept. */
static void remove_stale_temporaries(const char *path)
{
    char folder[PATH_MAX];
    folder_of(path, folder, sizeof folder);
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    size_t base_len = strlen(base);
    DIR *dir = opendir(folder);
    if (dir == NULL)
        return;
    struct dirent *entry;
    while ((entry = readdir(dir)) != NULL) {
        const char *name = entry->d_name;
        if (strncmp(name, base, base_len) != 0 || strncmp(name + base_len, ".tmp.", 5) != 0)
            continue;
        char *end;
        long pid = strtol(name + base_len + 5, &end, 10);
        if (*end != '\0' || pid <= 0 || end == name + base_len + 5)
            continue;
        if (pid != (long)getpid() && kill((pid_t)pid, 0) != 0 && errno == ESRCH) {
            char stale[PATH_MAX + 256];
            snprintf(stale, sizeof stale, "%s/%s", folder, name);
            unlink(stale);
        }
    }
    closedir(dir);
}

int gt_write_file_temporary(const char *path, gt_file_writer write, const void *user, char *temporary,
                            size_t temporary_len)
{
    /* Not a regular file (/dev/null, /dev/stdout, a FIFO): written in place.
     * A rename would replace the device with a file (as root) or fail. */
    struct stat info;
    if (stat(path, &info) == 0 && !S_ISREG(info.st_mode) && !S_ISDIR(info.st_mode)) {
        temporary[0] = '\0';
        FILE *out = fopen(path, "w");
        if (out == NULL)
            return -1;
        int status = write(out, user);
        if (fclose(out) != 0)
            status = -1;
        return status != 0 ? -2 : 0;
    }
    remove_stale_temporaries(path);
    snprintf(temporary, temporary_len, "%s.tmp.%ld", path, (long)getpid());
    FILE *out = fopen(temporary, "w");
    if (out == NULL)
        return -1;
    int status = write(out, user);
    /* on disk before it can replace the old file: a crash leaves old or new, never empty */
    if (fflush(out) != 0 || fsync(fileno(out)) != 0)
        status = -1;
    if (fclose(out) != 0)
        status = -1;
    if (status != 0) {
        int saved = errno;
        remove(temporary);
        errno = saved;
        return -2;
    }
    return 0;
}

int gt_commit_file_temporary(const char *temporary, const char *path)
{
    if (temporary[0] == '\0')
        return 0; /* written in place: not a regular file */
    if (rename(temporary, path) != 0) {
        int saved = errno;
        remove(temporary);
        errno = saved;
        return -2;
    }
    char folder[PATH_MAX];
    folder_of(path, folder, sizeof folder);
    int dir_fd = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir_fd >= 0) { /* the rename itself, on disk */
        fsync(dir_fd);
        close(dir_fd);
    }
    return 0;
}

int gt_write_file_atomic(const char *path, gt_file_writer write, const void *user)
{
    char temporary[PATH_MAX + 32];
    int status = gt_write_file_temporary(path, write, user, temporary, sizeof temporary);
    return status != 0 ? status : gt_commit_file_temporary(temporary, path);
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
    out[decoded] = '\0';
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
