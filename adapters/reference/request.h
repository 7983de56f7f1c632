/* request.h — the reference adapter's reader of one `check` request
 * (docs/adapter-protocol.md): every member it takes is type- and
 * range-checked before use, so a hostile request is a protocol error naming
 * the field, never undefined behaviour. Header-only: main.c and the fuzz
 * harness (fuzz/fuzz_adapter_request.c) include it.
 * Not for: running the case (main.c). */
#ifndef GT_ADAPTER_REFERENCE_REQUEST_H
#define GT_ADAPTER_REFERENCE_REQUEST_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gauntlet/limits.h"
#include "gauntlet/util.h"
#include "gauntlet/value.h"

/* Largest `max_bytes` a request may give: 2^53, the largest integer a JSON
 * number carries exactly (GT_COUNT_MAX); a larger or fractional one is a
 * protocol error, not a float-to-integer conversion out of range. */
#define GT_REF_ADAPTER_MAX_BYTES_LIMIT GT_COUNT_MAX

/* One check request as read: strings borrowed from the parsed request,
 * `raw`, `schema_json` and `case_json` malloc'd (gt_ref_request_clear). */
typedef struct gt_ref_request {
    const gt_value *seq;
    const char *id, *gate, *schemas_dir, *remotes_dir;
    unsigned char *raw;
    size_t raw_len;
    char *schema_json, *case_json;
    int formats, reject_nul; /* 0 / 1 */
    size_t max_bytes;        /* 0 = the target's default */
} gt_ref_request;

static inline const char *gt_ref_string_member(const gt_value *object, const char *key)
{
    const gt_value *value = gt_value_get(object, key, strlen(key));
    return value != NULL && value->type == GT_STRING ? value->u.str.chars : NULL;
}

static inline void gt_ref_request_clear(gt_ref_request *r)
{
    free(r->raw);
    free(r->schema_json);
    free(r->case_json);
    memset(r, 0, sizeof *r);
}

/* A boolean member: absent = 0; true / false; anything else an error. */
static inline int gt_ref_flag(const gt_value *request, const char *key, int *out, char *why, size_t why_len)
{
    const gt_value *value = gt_value_get(request, key, strlen(key));
    *out = value != NULL && value->type == GT_TRUE;
    if (value != NULL && value->type != GT_TRUE && value->type != GT_FALSE && value->type != GT_NULL) {
        snprintf(why, why_len, "%s must be true or false", key);
        return -1;
    }
    return 0;
}

/* Read `request` (a parsed object) into `out`. 0, or -1 with `why` naming
 * the member that is missing, of the wrong type or out of range (`out`
 * cleared); -1 with "out of memory" too. */
static inline int gt_ref_request_read(const gt_value *request, gt_ref_request *out, char *why, size_t why_len)
{
    memset(out, 0, sizeof *out);
    out->seq = gt_value_get(request, "seq", 3);
    out->id = gt_ref_string_member(request, "id");
    out->gate = gt_ref_string_member(request, "gate");
    const char *raw64 = gt_ref_string_member(request, "raw_base64");
    if (out->seq == NULL || out->id == NULL || out->gate == NULL || raw64 == NULL) {
        snprintf(why, why_len, "check request needs seq, id, gate and raw_base64");
        return -1;
    }
    const gt_value *max_bytes = gt_value_get(request, "max_bytes", 9);
    if (max_bytes != NULL && max_bytes->type != GT_NULL) {
        /* checked as a double before any conversion: 1e300 or -1 never reach (size_t) */
        if (!gt_value_is_integer(max_bytes) || !(max_bytes->u.num.number >= 0) ||
            !(max_bytes->u.num.number <= (double)GT_REF_ADAPTER_MAX_BYTES_LIMIT)) {
            snprintf(why, why_len, "max_bytes must be an integer from 0 (the default) through %lld", (long long)GT_COUNT_MAX);
            return -1;
        }
        out->max_bytes = (size_t)max_bytes->u.num.number;
    }
    if (gt_ref_flag(request, "formats", &out->formats, why, why_len) != 0 ||
        gt_ref_flag(request, "reject_nul", &out->reject_nul, why, why_len) != 0)
        return -1;
    out->schemas_dir = gt_ref_string_member(request, "schemas_dir");
    out->remotes_dir = gt_ref_string_member(request, "remotes_dir");
    out->raw = gt_base64_decode(raw64, strlen(raw64), &out->raw_len);
    if (out->raw == NULL) {
        snprintf(why, why_len, "raw_base64 is not valid base64");
        return -1;
    }
    const gt_value *schema = gt_value_get(request, "schema", 6);
    const gt_value *kase = gt_value_get(request, "case", 4);
    out->schema_json = schema && schema->type != GT_NULL ? gt_value_to_json(schema, NULL) : NULL;
    out->case_json = kase ? gt_value_to_json(kase, NULL) : NULL;
    if ((schema && schema->type != GT_NULL && out->schema_json == NULL) || (kase && out->case_json == NULL)) {
        gt_ref_request_clear(out);
        snprintf(why, why_len, "out of memory");
        return -1;
    }
    return 0;
}

#endif
