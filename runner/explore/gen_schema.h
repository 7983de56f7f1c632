/* gen_schema.h — what the generator reads from a JSON Schema (gen_schema.c):
 * the keywords that apply at one instance location, numeric bounds, and
 * synthesis of valid values (patterns included). Not a validator: the
 * reference decides whether what it builds is valid. */
#ifndef GT_GEN_SCHEMA_H
#define GT_GEN_SCHEMA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gen.h"
#include "gen_json.h"

#define GT_GEN_VIEW_PARTS 12
/* Levels below the root where the full instance still adds optional members
 * and second elements; deeper it is minimal, so recursive schemas end. */
#define GT_GEN_FULL_DEPTH 4

/* The schema objects that apply at one location: the schema itself, what its
 * $ref names, its allOf members and the anyOf/oneOf branch the value takes
 * (the first that fits; for synthesis the first, or a random one). A keyword
 * is looked up in that order. */
typedef struct gt_gen_view {
    const cJSON *schema; /* as written at the location */
    const cJSON *parts[GT_GEN_VIEW_PARTS];
    size_t count;
    bool never;      /* the schema is `false` */
    bool unresolved; /* a $ref that is not a local "#..." pointer */
    bool branch;     /* an anyOf/oneOf branch was chosen */
} gt_gen_view;

/* Build the view of `schema` (inside document `root`) for `value` (NULL when
 * synthesising; `choice` NULL picks first branches, else a random one). */
void gt_gen_view_build(const cJSON *root, gt_gen_view *view, const cJSON *schema, const cJSON *value, uint64_t *choice);
/* The first part's `keyword`, or NULL. */
const cJSON *gt_gen_kw(const gt_gen_view *view, const char *keyword);
double gt_gen_kw_number(const gt_gen_view *view, const char *keyword, bool *present);
bool gt_gen_view_type_has(const gt_gen_view *view, const char *name);
/* Whether a `type` keyword (string or array; NULL = any) allows `value`. */
bool gt_gen_type_allows(const cJSON *type, const cJSON *value);
/* The schema of member `name` (properties, else an object additionalProperties), or NULL. */
const cJSON *gt_gen_property_schema(const gt_gen_view *view, const char *name);
/* The schema of array element `index`, or NULL. */
const cJSON *gt_gen_item_schema(const gt_gen_view *view, size_t index);
bool gt_gen_required(const gt_gen_view *view, const char *name);

typedef struct gt_gen_number_facts {
    bool integer;
    double multiple; /* 0 = none */
    bool has_low, low_exclusive, has_high, high_exclusive;
    double low, high;
} gt_gen_number_facts;
void gt_gen_number_facts_read(const gt_gen_view *view, gt_gen_number_facts *facts);
/* The smallest / largest allowed value, when there is a certain one. */
bool gt_gen_number_low(const gt_gen_number_facts *facts, double *out);
bool gt_gen_number_high(const gt_gen_number_facts *facts, double *out);

/* A string matching `pattern` (ECMA-262 subset: literals, classes, groups,
 * alternation, quantifiers, anchors), malloc'd; `rng` NULL = the shortest
 * first choice. NULL with *why set when it uses what the generator cannot
 * satisfy (lookaround, back-references, \p{...}). */
char *gt_gen_pattern_string(const char *pattern, uint64_t *rng, const char **why);
/* A valid example of a known `format`, or NULL. */
const char *gt_gen_format_sample(const char *format);
/* Code points of a UTF-8 string. */
size_t gt_gen_utf8_length(const char *text);
/* Words joined by spaces, exactly `length` ASCII characters, malloc'd. */
char *gt_gen_text_of_length(size_t length, uint64_t *rng);

/* A value for `schema`: `full` includes optional members and draws values
 * from `rng`; `variant` makes siblings differ (uniqueItems). NULL with `why`
 * naming the location ("/ticket_id: pattern ... uses lookaround") when it
 * cannot. */
cJSON *gt_gen_synthesize(const cJSON *root, const cJSON *schema, bool full, uint64_t *rng, unsigned variant, int depth,
                         char *why, size_t why_len, const char *path);
/* As gt_gen_synthesize at the root of `schema`, with the JSON type `kind`
 * ("object", "string", ...) when the schema's type lists it. */
cJSON *gt_gen_synthesize_kind(const cJSON *root, const cJSON *schema, const char *kind, bool full, uint64_t *rng,
                              char *why, size_t why_len);

#endif
