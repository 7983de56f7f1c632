/* arena.c — bump allocation in chained blocks; see arena.h. */
#include "gauntlet/arena.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "arena_impl.h"

#define ARENA_BLOCK_MIN (64u * 1024u)
/* gt_arena_reset keeps one block of at most this size for the next round:
 * enough for the tree of a ~1 MB document (about 4.7 MB, in an 8 MiB block),
 * so a loop over such documents does not take and free 8 MiB per document
 * (glibc then pays to consolidate whatever the process freed before). */
#define ARENA_KEEP_MAX (16u * 1024u * 1024u)


static arena_block *block_new(size_t size)
{
    arena_block *block = malloc(sizeof *block + size);
    if (block == NULL)
        return NULL;
    block->next = NULL;
    block->size = size;
    block->used = 0;
    return block;
}

gt_arena *gt_arena_new(void)
{
    gt_arena *arena = calloc(1, sizeof *arena);
    return arena;
}

void gt_arena_free(gt_arena *arena)
{
    if (arena == NULL)
        return;
    arena_block *block = arena->head;
    while (block != NULL) {
        arena_block *next = block->next;
        free(block);
        block = next;
    }
    free(arena);
}

void gt_arena_reset(gt_arena *arena)
{
    /* Keep the largest block up to ARENA_KEEP_MAX, so a loop over many
     * documents of similar size (validate --jsonl, a corpus run) allocates
     * nothing after its first document; free the others. */
    arena_block *head = arena->head;
    if (head != NULL && head->next == NULL && head->size <= ARENA_KEEP_MAX) { /* the common case: one block kept */
        head->used = 0;
        arena->total_used = 0;
        return;
    }
    arena_block *keep = NULL;
    for (arena_block *block = arena->head; block != NULL; block = block->next)
        if (block->size <= ARENA_KEEP_MAX && (keep == NULL || block->size > keep->size))
            keep = block;
    arena_block *block = arena->head;
    while (block != NULL) {
        arena_block *next = block->next;
        if (block != keep)
            free(block);
        block = next;
    }
    if (keep != NULL) {
        keep->used = 0;
        keep->next = NULL;
    }
    arena->head = keep;
    arena->total_used = 0;
}

void *gt_arena_alloc(gt_arena *arena, size_t size)
{
    size_t rounded = (size + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1);
    if (rounded < size)
        return NULL;
    arena_block *block = arena->head;
    if (block == NULL || block->size - block->used < rounded) {
        size_t want = rounded > ARENA_BLOCK_MIN ? rounded : ARENA_BLOCK_MIN;
        /* Grow geometrically so huge documents need few blocks. */
        if (block != NULL && block->size * 2 > want && block->size < 64u * 1024u * 1024u)
            want = block->size * 2;
        arena_block *fresh = block_new(want);
        if (fresh == NULL)
            return NULL;
        if (block != NULL && rounded > ARENA_BLOCK_MIN && block->size - block->used >= ARENA_BLOCK_MIN / 4) {
            /* A big one-off allocation: put it behind the current block so the
             * current block's free space stays usable. */
            fresh->next = block->next;
            block->next = fresh;
            fresh->used = rounded;
            arena->total_used += rounded;
            return fresh->data;
        }
        fresh->next = block;
        arena->head = fresh;
        block = fresh;
    }
    void *out = (char *)block->data + block->used;
    block->used += rounded;
    arena->total_used += rounded;
    return out;
}

char *gt_arena_strndup(gt_arena *arena, const char *text, size_t len)
{
    char *copy = gt_arena_alloc(arena, len + 1);
    if (copy == NULL)
        return NULL;
    if (len > 0)
        memcpy(copy, text, len);
    copy[len] = '\0';
    return copy;
}

size_t gt_arena_used(const gt_arena *arena)
{
    return arena->total_used;
}
