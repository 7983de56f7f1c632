/* journal.c — every request the mock server saw, per session.
 *
 * Entries live in one bounded ring (oldest dropped first, counted), so memory
 * stays flat however many requests a benchmark sends; the --journal file gets
 * every entry as one JSON line. Thread-safe: one mutex around the ring and
 * the file. Not for: deciding what goes into an entry (server.c). */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mock_impl.h"

/* Bytes of entry text kept in memory at most (besides the entry cap). */
#define JOURNAL_MAX_BYTES (256u * 1024u * 1024u)

typedef struct journal_entry {
    char *session; /* one allocation: session, NUL, json, NUL */
    char *json;
    size_t len;
} journal_entry;

/* Allocation size for an entry: rounded up to a size class so a freed slot
 * fits the next entry (entries differ by a few bytes; without classes the
 * heap fragments and a long benchmark creeps upwards). */
static size_t size_class(size_t bytes)
{
    if (bytes <= 8192)
        return (bytes + 511) & ~(size_t)511;
    size_t size = 16384;
    while (size < bytes)
        size *= 2;
    return size;
}

struct mock_journal {
    pthread_mutex_t lock;
    journal_entry *ring;
    size_t cap, head, count; /* head = index of the oldest entry */
    size_t bytes;
    unsigned long dropped;
    FILE *file;
};

mock_journal *mock_journal_new(const char *path, size_t max_entries, char *err, size_t err_len)
{
    mock_journal *journal = calloc(1, sizeof *journal);
    if (journal == NULL) {
        snprintf(err, err_len, "out of memory");
        return NULL;
    }
    journal->cap = max_entries ? max_entries : GT_MOCK_DEFAULT_JOURNAL_ENTRIES;
    journal->ring = calloc(journal->cap, sizeof *journal->ring);
    if (journal->ring == NULL) {
        free(journal);
        snprintf(err, err_len, "out of memory");
        return NULL;
    }
    if (path != NULL) {
        journal->file = fopen(path, "a");
        if (journal->file == NULL) {
            snprintf(err, err_len, "cannot open journal %s: %s", path, strerror(errno));
            free(journal->ring);
            free(journal);
            return NULL;
        }
    }
    pthread_mutex_init(&journal->lock, NULL);
    return journal;
}

static void drop_oldest(mock_journal *journal)
{
    journal_entry *oldest = &journal->ring[journal->head];
    journal->bytes -= oldest->len;
    free(oldest->session);
    memset(oldest, 0, sizeof *oldest);
    journal->head = (journal->head + 1) % journal->cap;
    journal->count--;
    journal->dropped++;
}

void mock_journal_free(mock_journal *journal)
{
    if (journal == NULL)
        return;
    while (journal->count > 0)
        drop_oldest(journal);
    free(journal->ring);
    if (journal->file)
        fclose(journal->file);
    pthread_mutex_destroy(&journal->lock);
    free(journal);
}

void mock_journal_add(mock_journal *journal, const char *session, const char *entry_json, size_t len)
{
    size_t session_len = strlen(session);
    char *session_copy = malloc(size_class(session_len + 1 + len + 1));
    if (session_copy == NULL)
        return;
    memcpy(session_copy, session, session_len + 1);
    char *json = session_copy + session_len + 1;
    memcpy(json, entry_json, len);
    json[len] = '\0';
    pthread_mutex_lock(&journal->lock);
    if (journal->file) {
        fwrite(json, 1, len, journal->file);
        fputc('\n', journal->file);
        fflush(journal->file);
    }
    while (journal->count > 0 && (journal->count == journal->cap || journal->bytes + len > JOURNAL_MAX_BYTES))
        drop_oldest(journal);
    journal_entry *slot = &journal->ring[(journal->head + journal->count) % journal->cap];
    slot->session = session_copy;
    slot->json = json;
    slot->len = len;
    journal->count++;
    journal->bytes += len;
    pthread_mutex_unlock(&journal->lock);
}

char *mock_journal_dump(mock_journal *journal, const char *session)
{
    mock_buf buf;
    mock_buf_init(&buf);
    mock_buf_adds(&buf, "{\"session\":");
    mock_buf_add_json_cstr(&buf, session);
    mock_buf_adds(&buf, ",\"entries\":[");
    pthread_mutex_lock(&journal->lock);
    size_t written = 0;
    for (size_t i = 0; i < journal->count; i++) {
        const journal_entry *entry = &journal->ring[(journal->head + i) % journal->cap];
        if (session != NULL && strcmp(entry->session, session) != 0)
            continue;
        if (written++)
            mock_buf_adds(&buf, ",\n");
        mock_buf_add(&buf, entry->json, entry->len);
    }
    mock_buf_addf(&buf, "],\"count\":%zu,\"dropped\":%lu}", written, journal->dropped);
    pthread_mutex_unlock(&journal->lock);
    return mock_buf_take(&buf, NULL);
}

void mock_journal_reset(mock_journal *journal, const char *session)
{
    pthread_mutex_lock(&journal->lock);
    /* compact the ring, keeping entries of other sessions in order */
    size_t kept = 0;
    journal_entry *fresh = calloc(journal->cap, sizeof *fresh);
    if (fresh == NULL) {
        pthread_mutex_unlock(&journal->lock);
        return;
    }
    size_t bytes = 0;
    for (size_t i = 0; i < journal->count; i++) {
        journal_entry *entry = &journal->ring[(journal->head + i) % journal->cap];
        if (session == NULL || strcmp(entry->session, session) == 0) {
            free(entry->session);
            continue;
        }
        bytes += entry->len;
        fresh[kept++] = *entry;
    }
    free(journal->ring);
    journal->ring = fresh;
    journal->head = 0;
    journal->count = kept;
    journal->bytes = bytes;
    pthread_mutex_unlock(&journal->lock);
}
