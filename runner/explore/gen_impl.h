/* gen_impl.h — what the generator's files share (gen_candidate.c: adding and
 * checking a candidate; gen.c: bases, caps, combinations; gen_ops.c: the
 * operators; gen_write.c: the corpus folder and the report). The calls run
 * one way: gen.c -> gen_ops.c -> gen_candidate.c, and gen.c, gen_write.c ->
 * gen_candidate.c. Not a public API: gen.h is. */
#ifndef GT_GEN_IMPL_H
#define GT_GEN_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gen.h"
#include "gen_json.h"

typedef struct gen_base {
    cJSON *value;
    char *raw; /* the exact text (a sample as given; else compact JSON) */
    size_t raw_len;
    char *name; /* "sample a.json", "the minimal instance", ... */
    bool valid; /* the reference accepts it */
} gen_base;

typedef struct op_counter {
    char *name;
    unsigned count;
} op_counter;

struct gt_gen {
    gt_gen_options options;
    char *schema_text;    /* as given (written to schema.json) */
    char *schema_compact; /* what targets are given */
    cJSON *schema;
    gt_target *reference;
    uint64_t rng;
    gen_base *bases;
    size_t base_count;
    gt_gen_case *cases;
    size_t count, cap;
    uint64_t *seen; /* open-addressing set of candidate hashes (0 = empty) */
    size_t seen_count, seen_cap;
    op_counter *counters;
    size_t counter_count;
    char *note;
    bool unsatisfiable; /* the reference refuses the schema itself for every instance (a $ref cycle) */
    bool out_of_memory;
};

/* Where operators put what they build. */
typedef struct gen_sink gen_sink;
struct gen_sink {
    /* A value for family "valid" (want accept) or "structure" (want a structure rejection at `path`). */
    void (*tree)(gt_gen *gen, gen_sink *sink, const char *family, const char *op, const char *path, cJSON *root,
                 const char *const *rules, char *what);
    /* A raw text for family "syntax", wanting rejection `reason`. */
    void (*text)(gt_gen *gen, gen_sink *sink, const char *op, const char *path, char *raw, size_t len,
                 const char *const *rules, const char *reason, char *what);
    void *user;
};

/* An instance location of a base, with the schema written there. */
typedef struct gen_site {
    char *path;
    const cJSON *schema; /* NULL = none applies */
    cJSON *node;         /* in the base */
} gen_site;

typedef struct site_list {
    gen_site *items;
    size_t count, cap;
} site_list;

/* printf into a malloc'd string (NULL when out of memory). */
char *gen_format_text(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Add a candidate and check it with the reference; takes `raw`, `script`
 * and `what`. NULL for a duplicate of an earlier one (same gate and bytes,
 * when `dedupe`) or out of memory. */
gt_gen_case *gen_add_candidate(gt_gen *gen, const char *family, const char *gate, const char *ops, const char *path,
                               char *raw, size_t raw_len, char *script, const char *const *rules, gt_verdict verdict,
                               const char *want_gate, const char *want_reason, char *what, bool dedupe);
/* Free what a candidate owns (not the candidate itself: it lives in gen->cases). */
void gen_case_free(gt_gen_case *kase);

/* Every location of `value` (root first, then members and elements in
 * order) with the schema that applies there. */
void gen_collect_sites(const cJSON *root_schema, cJSON *value, const cJSON *schema, const char *path, site_list *list,
                       int depth);
void gen_sites_free(site_list *list);

/* The operator families (gen_ops.c), each over one base and its sites. */
void gen_valid(gt_gen *gen, gen_sink *sink, const gen_base *base, const site_list *sites);
void gen_syntax(gt_gen *gen, gen_sink *sink, const gen_base *base, const site_list *sites);
void gen_structure(gt_gen *gen, gen_sink *sink, const gen_base *base, const site_list *sites);
/* Loop and stream scripts on `base`; bad objects come from the confirmed
 * structure candidates from index `structure_from` on. */
void gen_loop(gt_gen *gen, const gen_base *base, size_t structure_from);

#endif
