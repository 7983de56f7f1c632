/* wire_cache.c — what the provider keeps of a schema after the request:
 * the compiled grammar, cached per schema structure (seed 004: "compiled
 * grammars are cached for 24 hours from last use; changing the structure
 * invalidates the cache, changing only name or description does not"), and
 * therefore every property name, enum/const value and pattern in it (seed
 * 004: keep PHI out of them; it belongs in prompts and responses only).
 *
 * gt_wire_grammar_key gives the cache identity of a schema;
 * gt_wire_sensitive_kind recognises values that must not be cached (used by
 * the Anthropic lint, wire_lint.c). Not for: linting keywords or changing the
 * schema. */
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gauntlet/wire.h"
#include "wire_internal.h"

/* ---- grammar cache identity ------------------------------------------------- */

typedef struct key_state {
    uint64_t hash;
    size_t depth_left;
    bool failed;
} key_state;

static void feed(key_state *state, const char *bytes, size_t len)
{
    for (size_t i = 0; i < len; i++)
        state->hash = (state->hash ^ (unsigned char)bytes[i]) * 1099511628211u;
}

static void feed_value(key_state *state, const gt_value *value)
{
    char *json = gt_value_to_json(value, NULL);
    if (json == NULL) {
        state->failed = true;
        return;
    }
    feed(state, json, strlen(json));
    free(json);
}

static void feed_schema(key_state *state, const gt_value *schema);

static void feed_schemas(key_state *state, const gt_value *value, wire_sub_kind kind)
{
    if (kind == WIRE_SUB_MAP && value->type == GT_OBJECT) {
        feed(state, "{", 1);
        for (size_t i = 0; i < value->u.obj.count; i++) {
            feed(state, value->u.obj.members[i].key, value->u.obj.members[i].key_len + 1); /* the NUL separates */
            feed_schema(state, value->u.obj.members[i].value);
        }
        feed(state, "}", 1);
    } else if (value->type == GT_ARRAY) {
        feed(state, "[", 1);
        for (size_t i = 0; i < value->u.arr.count; i++)
            feed_schema(state, value->u.arr.items[i]);
        feed(state, "]", 1);
    } else
        feed_schema(state, value);
}

/* A schema node without its `description` annotations, member order kept. */
static void feed_schema(key_state *state, const gt_value *schema)
{
    if (state->failed)
        return;
    if (schema->type != GT_OBJECT || state->depth_left == 0) {
        feed_value(state, schema);
        return;
    }
    state->depth_left--;
    feed(state, "{", 1);
    for (size_t i = 0; i < schema->u.obj.count && !state->failed; i++) {
        const gt_member *member = &schema->u.obj.members[i];
        if (wire_key_is(member, "description") && member->value->type == GT_STRING)
            continue;
        feed(state, member->key, member->key_len + 1);
        wire_sub_kind kind = wire_subschema_kind(member);
        if (kind == WIRE_SUB_NONE)
            feed_value(state, member->value);
        else
            feed_schemas(state, member->value, kind);
    }
    feed(state, "}", 1);
    state->depth_left++;
}

int gt_wire_grammar_key(const gt_value *schema, char out[17])
{
    key_state state = {.hash = 1469598103934665603u, .depth_left = GT_WIRE_MAX_DEPTH, .failed = false};
    feed_schema(&state, schema);
    if (state.failed)
        return -1;
    snprintf(out, 17, "%016llx", (unsigned long long)state.hash);
    return 0;
}

/* ---- values a cached schema must not hold --------------------------------- */

static bool is_email_local(unsigned char c)
{
    return isalnum(c) || c == '.' || c == '_' || c == '%' || c == '+' || c == '-' || c == '\\';
}

static bool is_domain(unsigned char c)
{
    return isalnum(c) || c == '.' || c == '-' || c == '\\';
}

/* "name@host.tld" anywhere (a backslash may escape a dot in a pattern). */
static bool has_email(const char *text, size_t len)
{
    for (size_t at = 1; at + 1 < len; at++) {
        if (text[at] != '@' || !is_email_local((unsigned char)text[at - 1]))
            continue;
        size_t end = at + 1, last_dot = 0;
        while (end < len && is_domain((unsigned char)text[end])) {
            if (text[end] == '.')
                last_dot = end;
            end++;
        }
        if (last_dot > at + 1 && end - last_dot > 2 && isalpha((unsigned char)text[last_dot + 1]) &&
            isalpha((unsigned char)text[last_dot + 2]))
            return true;
    }
    return false;
}

static bool digits_at(const char *text, size_t len, size_t at, size_t count)
{
    for (size_t i = 0; i < count; i++)
        if (at + i >= len || !isdigit((unsigned char)text[at + i]))
            return false;
    return true;
}

/* A US social security number: ddd-dd-dddd, not part of a longer number. */
static bool has_ssn(const char *text, size_t len)
{
    for (size_t i = 0; i + 11 <= len; i++) {
        if (i > 0 && isdigit((unsigned char)text[i - 1]))
            continue;
        if (digits_at(text, len, i, 3) && text[i + 3] == '-' && digits_at(text, len, i + 4, 2) &&
            text[i + 6] == '-' && digits_at(text, len, i + 7, 4) &&
            (i + 11 == len || !isdigit((unsigned char)text[i + 11])))
            return true;
    }
    return false;
}

/* A payment card number: 13 to 19 digits (single spaces or hyphens between
 * groups allowed) that pass the Luhn check. */
static bool has_card_number(const char *text, size_t len)
{
    for (size_t start = 0; start < len; start++) {
        if (!isdigit((unsigned char)text[start]) || (start > 0 && isdigit((unsigned char)text[start - 1])))
            continue;
        char digits[20];
        size_t count = 0, i = start;
        while (i < len && count < 20) {
            if (isdigit((unsigned char)text[i]))
                digits[count++] = text[i++];
            else if ((text[i] == ' ' || text[i] == '-') && i + 1 < len && isdigit((unsigned char)text[i + 1]))
                i++;
            else
                break;
        }
        if (count < 13 || count > 19)
            continue;
        int sum = 0;
        for (size_t k = 0; k < count; k++) {
            int digit = digits[count - 1 - k] - '0';
            if (k % 2 == 1)
                digit = digit * 2 > 9 ? digit * 2 - 9 : digit * 2;
            sum += digit;
        }
        if (sum % 10 == 0)
            return true;
    }
    return false;
}

/* Credentials by their published shapes: a prefix and enough token characters. */
static bool has_credential(const char *text, size_t len)
{
    static const struct {
        const char *prefix;
        size_t min_tail; /* [A-Za-z0-9_-] characters after the prefix */
    } shapes[] = {
        {"sk-", 20},          /* OpenAI / Anthropic (sk-ant-...) secret keys */
        {"AKIA", 16},         /* AWS access key id */
        {"ghp_", 30},         /* GitHub tokens */
        {"gho_", 30},         {"github_pat_", 30}, {"xoxb-", 20}, /* Slack */
        {"xoxp-", 20},        {"eyJ", 30},         /* a JWT header */
        {"-----BEGIN", 0},    /* a PEM private key or certificate */
    };
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        size_t prefix_len = strlen(shapes[s].prefix);
        for (size_t i = 0; i + prefix_len <= len; i++) {
            if (memcmp(text + i, shapes[s].prefix, prefix_len) != 0 || (i > 0 && isalnum((unsigned char)text[i - 1])))
                continue; /* "task-..." is not "sk-..." */
            size_t tail = 0;
            while (i + prefix_len + tail < len &&
                   (isalnum((unsigned char)text[i + prefix_len + tail]) || text[i + prefix_len + tail] == '_' ||
                    text[i + prefix_len + tail] == '-' || text[i + prefix_len + tail] == '.'))
                tail++;
            if (tail >= shapes[s].min_tail)
                return true;
        }
    }
    return false;
}

const char *gt_wire_sensitive_kind(const char *text, size_t len)
{
    if (text == NULL)
        return NULL;
    if (has_credential(text, len))
        return "a credential";
    if (has_email(text, len))
        return "an e-mail address";
    if (has_ssn(text, len))
        return "a social security number";
    if (has_card_number(text, len))
        return "a payment card number";
    return NULL;
}
