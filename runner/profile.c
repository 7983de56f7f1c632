/* profile.c — the profiles a case belongs to and an implementation claims
 * (gauntlet/runner/corpus.h, docs/profiles.md): their names, statements and
 * sources, parsing a list of names, and the default profiles of a case that
 * names none. Not for: deciding what a claim changes in a comparison
 * (run.c) or counting coverage (result.c). */
#include "gauntlet/runner/corpus.h"

#include <stdio.h>
#include <string.h>

typedef struct profile_info {
    const char *name;
    const char *statement;
    const char *sources;
} profile_info;

static const profile_info profiles[GT_PROFILE_COUNT] = {
    [GT_PROFILE_CORE] = {"core",
                         "what every structured-output pipeline must do whatever its design: one strict parse, no "
                         "coercion, the schema checked, extra fields refused where the contract says so, a refusal "
                         "or max_tokens/length/content-filter stop checked before the text is used, a cut stream "
                         "never acted on, a retracted or superseded object never returned, a valid answer accepted "
                         "as it is",
                         "seed 002 S2-01..S2-18, S2-25, S2-26; seed 004 S4-08, S4-11, S4-12; RFC 8259; JSON Schema "
                         "2020-12 Validation; WHATWG HTML 9.2 (event streams)"},
    [GT_PROFILE_REPAIR_LOOP] = {"repair-loop",
                                "for pipelines that feed validation errors back and try again: bounded attempts, "
                                "errors with paths in the feedback, no invented evidence, the budget counted",
                                "seed 002 S2-19..S2-22; seed 000 S0-19"},
    [GT_PROFILE_CLAUDE_CODE] = {"claude-code",
                                "seed 000's StructuredOutput contract exactly: the default of 5 attempts and its "
                                "override, the enforce message, last surviving object wins, tombstone and "
                                "late-attachment accounting, capability-400 strict stripping, the terminal "
                                "envelope fields and subtypes",
                                "seed 000 S0-01..S0-32"},
    [GT_PROFILE_SDK_TRANSFORM] = {"sdk-transform",
                                  "seed 004's schema transform (unsupported constraints into the description, "
                                  "additionalProperties forced false) and local re-validation against the original "
                                  "schema; the provider lint",
                                  "seed 004 S4-01..S4-19; provider structured-output documentation"},
    [GT_PROFILE_REASONS] = {"reasons",
                            "gauntlet's own reason-code taxonomy, message texts, positions and error-path spelling "
                            "(docs/reason-codes.md): claimed, a right verdict with another reason is a failure",
                            "docs/reason-codes.md; docs/structure-gate.md"},
};

const char *gt_profile_name(gt_profile profile)
{
    return (int)profile >= 0 && profile < GT_PROFILE_COUNT ? profiles[profile].name : "unknown";
}

const char *gt_profile_statement(gt_profile profile)
{
    return (int)profile >= 0 && profile < GT_PROFILE_COUNT ? profiles[profile].statement : "";
}

const char *gt_profile_sources(gt_profile profile)
{
    return (int)profile >= 0 && profile < GT_PROFILE_COUNT ? profiles[profile].sources : "";
}

int gt_profile_from_name(const char *name, size_t len)
{
    for (int i = 0; name != NULL && i < GT_PROFILE_COUNT; i++)
        if (strlen(profiles[i].name) == len && memcmp(profiles[i].name, name, len) == 0)
            return i;
    return -1;
}

int gt_profiles_parse(const char *list, unsigned *mask, char *err, size_t err_len)
{
    *mask = 0;
    const char *at = list ? list : "";
    for (;;) {
        while (*at == ' ')
            at++;
        const char *end = strchr(at, ',');
        size_t len = end ? (size_t)(end - at) : strlen(at);
        while (len > 0 && at[len - 1] == ' ')
            len--;
        if (len == 0) {
            snprintf(err, err_len, "an empty profile name in '%s' (known profiles: %s)", list ? list : "",
                     GT_PROFILE_NAMES);
            return -1;
        }
        int profile = gt_profile_from_name(at, len);
        if (len == 3 && memcmp(at, "all", 3) == 0)
            *mask |= GT_PROFILES_ALL;
        else if (profile < 0) {
            snprintf(err, err_len, "unknown profile '%.*s' (known profiles: %s, or all)", (int)(len > 64 ? 64 : len),
                     at, GT_PROFILE_NAMES);
            return -1;
        } else if (*mask & (1u << profile)) {
            snprintf(err, err_len, "profile '%s' is named twice in '%s'", profiles[profile].name, list);
            return -1;
        } else
            *mask |= 1u << profile;
        if (end == NULL)
            return 0;
        at = end + 1;
    }
}

char *gt_profiles_format(unsigned mask, const char *separator, char *out, size_t out_len)
{
    size_t used = 0;
    if (out_len == 0)
        return out;
    out[0] = '\0';
    for (int i = 0; i < GT_PROFILE_COUNT; i++) {
        if (!(mask & (1u << i)))
            continue;
        int wrote = snprintf(out + used, out_len - used, "%s%s", used ? separator : "", profiles[i].name);
        if (wrote < 0 || (size_t)wrote >= out_len - used)
            break;
        used += (size_t)wrote;
    }
    return out;
}

static bool names_rule(const char *const *rules, size_t rule_count, const char *prefix)
{
    size_t len = strlen(prefix);
    for (size_t i = 0; i < rule_count; i++)
        if (strncmp(rules[i], prefix, len) == 0)
            return true;
    return false;
}

/* docs/profiles.md#defaults says the same in a table. */
unsigned gt_profiles_default(const char *gate, int tier, const char *category, const char *const *rules,
                             size_t rule_count)
{
    bool optional = tier == GT_TIER_OPTIONAL;
    const unsigned core = 1u << GT_PROFILE_CORE, reasons = 1u << GT_PROFILE_REASONS;
    const unsigned claude = 1u << GT_PROFILE_CLAUDE_CODE, transform = 1u << GT_PROFILE_SDK_TRANSFORM;
    if (gate == NULL)
        return core;
    if (strcmp(gate, "loop") == 0)
        return claude;
    if (strcmp(gate, "wire") == 0) {
        if (names_rule(rules, rule_count, "S4-"))
            return transform;
        return names_rule(rules, rule_count, "S0-") ? claude : transform;
    }
    if (strcmp(gate, "stream") == 0) {
        if (!optional)
            return core;
        return names_rule(rules, rule_count, "S0-") ? claude : reasons;
    }
    if (category != NULL && strcmp(category, "repair") == 0)
        return optional ? reasons : 1u << GT_PROFILE_REPAIR_LOOP;
    return optional ? reasons : core;
}
