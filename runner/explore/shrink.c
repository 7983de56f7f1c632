/* shrink.c — delta debugging on bytes and on JSON structure (shrink.h). */
#include "shrink.h"

#include <stdlib.h>
#include <string.h>

#include "gen_json.h"

static bool budget_left(const gt_shrink_stats *stats)
{
    return stats->tests < (stats->max_tests ? stats->max_tests : GT_SHRINK_DEFAULT_TESTS);
}

static bool run_test(gt_shrink_test test, void *user, gt_shrink_stats *stats, const unsigned char *bytes, size_t len)
{
    stats->tests++;
    return test(user, bytes, len);
}

/* The end (one past) of the bracketed region or string starting at `at`,
 * or 0 when it does not close: strings and escapes are skipped over. */
static size_t region_end(const unsigned char *bytes, size_t len, size_t at)
{
    size_t depth = 0;
    bool in_string = false;
    for (size_t i = at; i < len; i++) {
        unsigned char c = bytes[i];
        if (in_string) {
            if (c == '\\')
                i++;
            else if (c == '"') {
                in_string = false;
                if (depth == 0)
                    return i + 1;
            }
        } else if (c == '"') {
            in_string = true;
        } else if (c == '{' || c == '[') {
            depth++;
        } else if ((c == '}' || c == ']') && depth > 0 && --depth == 0) {
            return i + 1;
        }
    }
    return 0;
}

/* Coarse steps before ddmin: a whole value ({...}, [...], "...") replaced by
 * a shorter one, so that a fence around a large object can become a fence
 * around 0 (ddmin alone stops at a 1-minimal input, where removing any one
 * byte breaks the JSON). Returns the new size. */
static size_t shrink_regions(unsigned char *current, size_t size, unsigned char *candidate, gt_shrink_test test,
                             void *user, gt_shrink_stats *stats)
{
    static const char *const replacements[] = {"0", "", "{}", "\"\""};
    bool changed = true;
    while (changed && budget_left(stats)) {
        changed = false;
        for (size_t at = 0; at < size && !changed && budget_left(stats); at++) {
            if (current[at] != '{' && current[at] != '[' && current[at] != '"')
                continue;
            size_t end = region_end(current, size, at);
            if (end == 0)
                continue;
            for (size_t r = 0; r < 4 && !changed && budget_left(stats); r++) {
                size_t with = strlen(replacements[r]);
                if (with >= end - at)
                    continue;
                memcpy(candidate, current, at);
                memcpy(candidate + at, replacements[r], with);
                memcpy(candidate + at + with, current + end, size - end);
                size_t kept = size - (end - at) + with;
                if (kept > 0 && run_test(test, user, stats, candidate, kept)) {
                    memcpy(current, candidate, kept);
                    size = kept;
                    changed = true;
                }
            }
        }
    }
    return size;
}

unsigned char *gt_shrink_bytes(const unsigned char *raw, size_t len, gt_shrink_test test, void *user,
                               gt_shrink_stats *stats, size_t *out_len)
{
    unsigned char *current = malloc(len + 1), *candidate = malloc(len + 1);
    if (current == NULL || candidate == NULL) {
        free(current);
        free(candidate);
        return NULL;
    }
    memcpy(current, raw, len);
    size_t size = shrink_regions(current, len, candidate, test, user, stats), chunks = 2;
    while (size >= 2 && budget_left(stats)) {
        if (chunks > size)
            chunks = size;
        bool reduced = false;
        /* complements first: drop chunk i, keep the rest */
        for (size_t i = 0; i < chunks && budget_left(stats); i++) {
            size_t from = i * size / chunks, to = (i + 1) * size / chunks;
            size_t kept = size - (to - from);
            memcpy(candidate, current, from);
            memcpy(candidate + from, current + to, size - to);
            if (kept > 0 && run_test(test, user, stats, candidate, kept)) {
                memcpy(current, candidate, kept);
                size = kept;
                chunks = chunks > 2 ? chunks - 1 : 2;
                reduced = true;
                break;
            }
        }
        if (reduced)
            continue;
        if (chunks >= size)
            break;
        chunks = chunks * 2 < size ? chunks * 2 : size;
    }
    free(candidate);
    *out_len = size;
    current[size] = '\0';
    return current;
}

/* Test `root` as compact JSON. */
static bool test_tree(const cJSON *root, gt_shrink_test test, void *user, gt_shrink_stats *stats)
{
    size_t len;
    char *text = gt_json_compact(root, &len);
    bool holds = text != NULL && run_test(test, user, stats, (const unsigned char *)text, len);
    free(text);
    return holds;
}

/* Simpler values to try in place of `node`, most drastic first. */
static size_t simpler_values(const cJSON *node, cJSON **out)
{
    size_t n = 0;
    if (cJSON_IsObject(node) && node->child != NULL)
        out[n++] = cJSON_CreateObject();
    if (cJSON_IsArray(node) && node->child != NULL)
        out[n++] = cJSON_CreateArray();
    if (cJSON_IsString(node) && node->valuestring[0] != '\0') {
        out[n++] = cJSON_CreateString("");
        size_t len = strlen(node->valuestring);
        if (len > 1) {
            size_t half = len / 2;
            while (half > 0 && ((unsigned char)node->valuestring[half] & 0xC0) == 0x80)
                half--; /* a whole UTF-8 character */
            char *text = strndup(node->valuestring, half);
            if (text != NULL)
                out[n++] = cJSON_CreateString(text);
            free(text);
            text = strdup(node->valuestring + 1);
            if (text != NULL)
                out[n++] = cJSON_CreateString(text);
            free(text);
        }
    }
    if (cJSON_IsNumber(node) && node->valuedouble != 0) {
        out[n++] = cJSON_CreateNumber(0);
        if (node->valuedouble != (double)(long long)node->valuedouble)
            out[n++] = cJSON_CreateNumber((double)(long long)node->valuedouble);
    }
    return n;
}

/* Put `item` back into `parent` before `before` (NULL: at the end), where a
 * detach took it from. Not cJSON_InsertItemInArray: Debian's cJSON 1.7.15
 * (CVE-2023-50471 patch) refuses a detached item there, and the member was
 * lost. cJSON's list: head->prev is the tail, the tail's next is NULL. */
static void put_back(cJSON *parent, cJSON *item, cJSON *before)
{
    if (before == NULL) {
        cJSON_AddItemToArray(parent, item); /* objects too: the name stays */
        return;
    }
    item->next = before;
    item->prev = before->prev;
    if (before == parent->child)
        parent->child = item;
    else
        before->prev->next = item;
    before->prev = item;
}

/* One pass over the tree: the first change that still holds is kept.
 * Returns true when something changed. */
static bool shrink_pass(cJSON *root, cJSON *node, gt_shrink_test test, void *user, gt_shrink_stats *stats)
{
    /* drop a child */
    for (cJSON *child = node->child; child != NULL && budget_left(stats);) {
        cJSON *next = child->next;
        cJSON_DetachItemViaPointer(node, child);
        if (test_tree(root, test, user, stats)) {
            cJSON_Delete(child);
            return true;
        }
        put_back(node, child, next);
        child = next;
    }
    /* a simpler value in place of a child, or something simpler inside it */
    for (cJSON *child = node->child; child != NULL && budget_left(stats); child = child->next) {
        cJSON *options[6];
        size_t count = simpler_values(child, options);
        bool done = false;
        for (size_t i = 0; i < count; i++) {
            cJSON *saved = done || options[i] == NULL || !budget_left(stats) ? NULL : cJSON_Duplicate(child, true);
            if (saved == NULL) {
                cJSON_Delete(options[i]);
                continue;
            }
            if (child->string != NULL && (options[i]->string = strdup(child->string)) == NULL) {
                cJSON_Delete(saved);
                cJSON_Delete(options[i]);
                continue;
            }
            cJSON_ReplaceItemViaPointer(node, child, options[i]); /* frees child */
            if (test_tree(root, test, user, stats)) {
                cJSON_Delete(saved);
                child = options[i];
                done = true;
            } else {
                cJSON_ReplaceItemViaPointer(node, options[i], saved);
                child = saved;
            }
        }
        if (done || shrink_pass(root, child, test, user, stats))
            return true;
    }
    return false;
}

char *gt_shrink_json(const char *raw, size_t len, gt_shrink_test test, void *user, gt_shrink_stats *stats,
                     size_t *out_len)
{
    cJSON *root = cJSON_ParseWithLength(raw, len);
    if (root == NULL)
        return NULL;
    if (!test_tree(root, test, user, stats)) {
        cJSON_Delete(root);
        return NULL;
    }
    while (budget_left(stats) && shrink_pass(root, root, test, user, stats))
        ;
    char *text = gt_json_compact(root, out_len);
    cJSON_Delete(root);
    return text;
}
