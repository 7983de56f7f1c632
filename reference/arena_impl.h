/* arena_impl.h — the insides of gt_arena (arena.c), for the allocation-heavy
 * loops of libgauntlet (the syntax gate allocates a value per token): an
 * inline bump that falls back to gt_arena_alloc only when the current block
 * is full. Private to libgauntlet; callers outside use arena.h. */
#ifndef GT_ARENA_IMPL_H
#define GT_ARENA_IMPL_H

#include <stddef.h>

#include "gauntlet/arena.h"

#define ARENA_ALIGN 16u

typedef struct arena_block {
    struct arena_block *next;
    size_t size; /* usable bytes after the header */
    size_t used;
    max_align_t data[]; /* aligned payload */
} arena_block;

struct gt_arena {
    arena_block *head; /* current block, newest first */
    size_t total_used;
};

/* gt_arena_alloc, with the common case (room in the current block) inline. */
static inline void *gt_arena_bump(gt_arena *arena, size_t size)
{
    size_t rounded = (size + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1);
    arena_block *block = arena->head;
    if (rounded < size || block == NULL || block->size - block->used < rounded)
        return gt_arena_alloc(arena, size);
    void *out = (char *)block->data + block->used;
    block->used += rounded;
    arena->total_used += rounded;
    return out;
}

#endif
