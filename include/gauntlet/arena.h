/* arena.h — a bump allocator that owns everything of one case.
 *
 * Parsing a model output allocates many small values; an arena makes that a
 * pointer bump and makes freeing the whole case one call. Not thread-safe: one
 * arena per thread or per case. Not for long-lived data that is freed piece by
 * piece. */
#ifndef GAUNTLET_ARENA_H
#define GAUNTLET_ARENA_H

#include <stddef.h>

typedef struct gt_arena gt_arena;

/* Create an empty arena. Returns NULL when out of memory. Free with
 * gt_arena_free. */
gt_arena *gt_arena_new(void);

/* Free the arena and everything allocated from it. NULL is a no-op. */
void gt_arena_free(gt_arena *arena);

/* Forget every allocation but keep the largest block (up to 4 MiB) for reuse: a
 * loop over many cases calls this instead of free/new and, once warm,
 * allocates nothing more for cases of similar size. */
void gt_arena_reset(gt_arena *arena);

/* Allocate `size` bytes aligned for any type. Returns NULL when out of memory.
 * The memory lives until gt_arena_free or gt_arena_reset. */
void *gt_arena_alloc(gt_arena *arena, size_t size);

/* Copy `len` bytes into the arena and add a terminating NUL. */
char *gt_arena_strndup(gt_arena *arena, const char *text, size_t len);

/* Total bytes handed out since creation or the last reset. */
size_t gt_arena_used(const gt_arena *arena);

#endif
