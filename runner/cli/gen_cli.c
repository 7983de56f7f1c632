/* gen_cli.c — command-line pieces shared by gen and explore (gen_cli.h). */
#include "gen_cli.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_io.h"
#include "commands.h"
#include "gauntlet/runner/corpus.h"
#include "gauntlet/schema.h"
#include "runner/explore/gen_json.h"

bool gt_gen_cli_count(const char *text, size_t *out)
{
    char *end;
    if (text == NULL || *text < '0' || *text > '9')
        return false;
    errno = 0;
    unsigned long long value = strtoull(text, &end, 10);
    if (*end != '\0' || value == 0 || errno == ERANGE)
        return false;
    *out = (size_t)value;
    return true;
}

static int parse_gates(const char *who, const char *list, unsigned *gates)
{
    *gates = 0;
    const char *p = list;
    while (*p) {
        size_t len = strcspn(p, ",");
        if (len == 6 && strncmp(p, "syntax", len) == 0)
            *gates |= GT_GEN_SYNTAX;
        else if (len == 9 && strncmp(p, "structure", len) == 0)
            *gates |= GT_GEN_STRUCTURE;
        else if ((len == 4 && strncmp(p, "loop", len) == 0) || (len == 6 && strncmp(p, "stream", len) == 0))
            *gates |= GT_GEN_LOOP;
        else {
            fprintf(stderr, "%s: --gates: unknown family '%.*s' (syntax, structure, loop)\n", who, (int)len, p);
            return -1;
        }
        p += len + (p[len] == ',');
    }
    if (*gates == 0) {
        fprintf(stderr, "%s: --gates needs at least one of syntax, structure, loop\n", who);
        return -1;
    }
    return 0;
}

int gt_gen_cli_option(const char *who, int argc, char **argv, int *i, gt_gen_cli *cli)
{
    const char *arg = argv[*i];
    bool takes_value = strcmp(arg, "--schema") == 0 || strcmp(arg, "--root") == 0 || strcmp(arg, "--sample") == 0 || strcmp(arg, "--seed") == 0 ||
                       strcmp(arg, "--gates") == 0;
    if (strcmp(arg, "--ref") == 0 || strcmp(arg, "--ref-dir") == 0) {
        if (cli->ref_count == GT_GEN_CLI_MAX_SAMPLES) {
            fprintf(stderr, "%s: at most %d --ref and --ref-dir\n", who, GT_GEN_CLI_MAX_SAMPLES);
            return -1;
        }
        int taken = gt_cli_ref_flag(who, argc, argv, i, &cli->registry);
        if (taken > 0)
            cli->refs[cli->ref_count++] = argv[*i];
        return taken;
    }
    if (strcmp(arg, "--formats") == 0) {
        cli->formats = true;
        return 1;
    }
    if (!takes_value)
        return 0;
    if (*i + 1 >= argc) {
        fprintf(stderr, "%s: %s needs a value\n", who, arg);
        return -1;
    }
    const char *value = argv[++*i];
    if (strcmp(arg, "--schema") == 0) {
        cli->schema_path = value;
    } else if (strcmp(arg, "--root") == 0) {
        if (value[0] != '#' && value[0] != '/') {
            fprintf(stderr, "%s: --root wants a JSON Pointer into the schema ('#/$defs/x'), got '%s'\n", who, value);
            return -1;
        }
        cli->root = value;
    } else if (strcmp(arg, "--sample") == 0) {
        if (cli->sample_count == GT_GEN_CLI_MAX_SAMPLES) {
            fprintf(stderr, "%s: at most %d --sample files\n", who, GT_GEN_CLI_MAX_SAMPLES);
            return -1;
        }
        cli->samples[cli->sample_count++] = value;
    } else if (strcmp(arg, "--seed") == 0) {
        char *end;
        errno = 0;
        cli->seed = strtoull(value, &end, 10);
        if (*value < '0' || *value > '9' || *end != '\0' || errno == ERANGE) { /* not a silent wrap to another seed */
            fprintf(stderr, "%s: --seed wants a non-negative integer, got '%s'\n", who, value);
            return -1;
        }
    } else if (parse_gates(who, value, &cli->gates) != 0) {
        return -1;
    }
    return 1;
}

void gt_gen_cli_free(gt_gen_cli *cli)
{
    gt_schema_registry_free(cli->registry);
    cli->registry = NULL;
}

int gt_gen_cli_parse(const char *who, int argc, char **argv, gt_gen_cli *cli, const char *const *names,
                     const char **values, void (*usage)(FILE *))
{
    for (size_t n = 0; names[n] != NULL; n++)
        values[n] = NULL;
    for (int i = 1; i < argc; i++) {
        int taken = gt_gen_cli_option(who, argc, argv, &i, cli);
        if (taken < 0)
            return 2;
        if (taken > 0)
            continue;
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage(stdout);
            return 1;
        }
        size_t n = 0;
        while (names[n] != NULL && strcmp(names[n], argv[i]) != 0)
            n++;
        if (names[n] == NULL) {
            fprintf(stderr, "%s: unknown argument '%s'\n", who, argv[i]);
            usage(stderr);
            return 2;
        }
        if (i + 1 >= argc) {
            fprintf(stderr, "%s: %s needs a value\n", who, argv[i]);
            return 2;
        }
        values[n] = argv[++i];
    }
    return 0;
}

/* Keywords that say nothing about an instance. */
static bool annotation_only(const char *keyword)
{
    static const char *const names[] = {"$schema", "$id",     "id",         "title",    "description", "$comment",
                                        "$defs",   "definitions", "$anchor", "$vocabulary", "examples", "default",
                                        "deprecated", "readOnly", "writeOnly", NULL};
    for (size_t i = 0; names[i] != NULL; i++)
        if (strcmp(names[i], keyword) == 0)
            return true;
    return false;
}

char **gt_gen_cli_roots(const char *schema_path)
{
    char err[256];
    size_t len;
    char *text = gt_read_file(schema_path, &len, err, sizeof err);
    cJSON *schema = text ? cJSON_ParseWithLength(text, len) : NULL;
    free(text);
    bool open = cJSON_IsObject(schema);
    for (const cJSON *member = open ? schema->child : NULL; member != NULL; member = member->next)
        open = open && annotation_only(member->string);
    char **roots = NULL;
    size_t count = 0;
    static const char *const containers[] = {"$defs", "definitions"};
    for (size_t c = 0; open && c < 2; c++) {
        const cJSON *defs = cJSON_GetObjectItemCaseSensitive(schema, containers[c]);
        for (const cJSON *def = cJSON_IsObject(defs) ? defs->child : NULL; def != NULL; def = def->next) {
            char *base = gt_pointer_append("#", containers[c]);
            char *pointer = base ? gt_pointer_append(base, def->string) : NULL;
            free(base);
            char **grown = pointer ? realloc(roots, (count + 2) * sizeof *roots) : NULL;
            if (grown == NULL) {
                free(pointer);
                break;
            }
            roots = grown;
            roots[count++] = pointer;
            roots[count] = NULL;
        }
    }
    cJSON_Delete(schema);
    return roots;
}

void gt_gen_cli_roots_free(char **roots)
{
    for (size_t i = 0; roots != NULL && roots[i] != NULL; i++)
        free(roots[i]);
    free(roots);
}

/* The schema document `text` with its root "$ref" set to `pointer` (a JSON
 * Pointer, with or without the leading '#'), pretty-printed; malloc'd, or
 * NULL with `err` when the pointer names no schema of the document. */
static char *rooted_schema(const char *text, size_t len, const char *pointer, size_t *out_len, char *err,
                           size_t err_len)
{
    cJSON *schema = cJSON_ParseWithLength(text, len);
    const char *path = pointer[0] == '#' ? pointer + 1 : pointer;
    const cJSON *target = schema ? gt_pointer_find(schema, path, NULL) : NULL;
    if (!cJSON_IsObject(schema) || target == NULL || !(cJSON_IsObject(target) || cJSON_IsBool(target))) {
        snprintf(err, err_len, "--root %s: %s", pointer,
                 cJSON_IsObject(schema) ? "names no schema in the document" : "the schema is not a JSON object");
        cJSON_Delete(schema);
        return NULL;
    }
    char *ref = malloc(strlen(path) + 2);
    if (ref != NULL) {
        ref[0] = '#';
        strcpy(ref + 1, path);
    }
    cJSON_DeleteItemFromObjectCaseSensitive(schema, "$ref");
    cJSON_AddItemToObject(schema, "$ref", cJSON_CreateString(ref ? ref : "#"));
    free(ref);
    gt_json_style pretty = {.indent = "  "};
    gt_buf buf = {0};
    gt_json_write(&buf, schema, &pretty);
    gt_buf_str(&buf, "\n");
    cJSON_Delete(schema);
    return gt_buf_take(&buf, out_len);
}

gt_gen *gt_gen_cli_build(const char *who, const gt_gen_cli *cli)
{
    char err[1024];
    size_t len;
    char *schema = gt_read_file(cli->schema_path, &len, err, sizeof err);
    if (schema == NULL) {
        fprintf(stderr, "%s: %s\n", who, err);
        return NULL;
    }
    if (cli->root != NULL) {
        char *rooted = rooted_schema(schema, len, cli->root, &len, err, sizeof err);
        free(schema);
        if (rooted == NULL) {
            fprintf(stderr, "%s: %s: %s\n", who, cli->schema_path, err);
            return NULL;
        }
        schema = rooted;
    }
    gt_gen_options options = {.seed = cli->seed,
                              .gates = cli->gates,
                              .formats = cli->formats,
                              .origin = cli->schema_path,
                              .registry = cli->registry,
                              .ref_paths = cli->refs,
                              .ref_count = cli->ref_count,
                              .id_scope = cli->id_scope};
    gt_gen *gen = gt_gen_new(schema, len, &options, err, sizeof err);
    free(schema);
    if (gen == NULL) {
        fprintf(stderr, "%s: bad schema: %s\n", who, err);
        return NULL;
    }
    for (size_t i = 0; i < cli->sample_count; i++) {
        char *text = gt_read_file(cli->samples[i], &len, err, sizeof err);
        if (text == NULL || gt_gen_add_sample(gen, text, len, cli->samples[i], err, sizeof err) != 0) {
            fprintf(stderr, "%s: %s\n", who, err);
            free(text);
            gt_gen_free(gen);
            return NULL;
        }
        free(text);
    }
    if (gt_gen_generate(gen, err, sizeof err) != 0) {
        fprintf(stderr, "%s: %s\n", who, err);
        gt_gen_free(gen);
        return NULL;
    }
    if (gt_gen_unsatisfiable(gen)) { /* every case would rest on an invalid base: write none */
        fprintf(stderr, "%s: %s\n%s: no instance satisfies %s; nothing written\n", who, gt_gen_synthesis_note(gen), who,
                cli->schema_path);
        gt_gen_free(gen);
        return NULL;
    }
    if (gt_gen_synthesis_note(gen) != NULL)
        fprintf(stderr, "%s: %s\n", who, gt_gen_synthesis_note(gen));
    return gen;
}

/* The rule list the ids come from: the bundled corpus's rules.json. */
static gt_corpus *bundled_rules(void)
{
    char dir[4096];
    gt_corpus *corpus = gt_corpus_new();
    if (corpus == NULL)
        return NULL;
    if (!gt_cmd_default_corpus(dir, sizeof dir) || gt_corpus_load_rules(corpus, dir) != 1 ||
        gt_corpus_rule_count(corpus) == 0) {
        gt_corpus_free(corpus);
        return NULL;
    }
    return corpus;
}

/* The rules of `corpus` as one array (malloc'd). */
static gt_rule *rules_array(const gt_corpus *corpus, size_t *count)
{
    *count = gt_corpus_rule_count(corpus);
    gt_rule *rules = calloc(*count + 1, sizeof *rules);
    for (size_t i = 0; rules != NULL && i < *count; i++)
        rules[i] = *gt_corpus_rule(corpus, i);
    return rules;
}

int gt_gen_cli_from_recording(const char *from, const char *out, gt_gen_from_counts *counts)
{
    gt_corpus *corpus = bundled_rules();
    if (corpus == NULL) {
        fprintf(stderr, "gauntlet gen: cannot find gauntlet's rules.json (./corpus or the bundled corpus next to the "
                        "binary)\n");
        return -1;
    }
    size_t rule_count;
    gt_rule *rules = rules_array(corpus, &rule_count);
    char err[1200] = "out of memory";
    int status = rules ? gt_gen_from_recording(from, out, rules, rule_count, counts, err, sizeof err) : -1;
    if (status != 0)
        fprintf(stderr, "gauntlet gen: %s\n", err);
    free(rules);
    gt_corpus_free(corpus);
    return status;
}

int gt_gen_cli_write(const char *who, const gt_gen *gen, const char *dir, const bool *keep)
{
    gt_corpus *corpus = bundled_rules();
    if (corpus == NULL) {
        fprintf(stderr, "%s: cannot find gauntlet's rules.json (./corpus or the bundled corpus next to the binary)\n",
                who);
        return -1;
    }
    size_t rule_count;
    gt_rule *rules = rules_array(corpus, &rule_count);
    char err[1024];
    int status = rules ? gt_make_parent_dirs(dir, err, sizeof err) : -1; /* --out out/x: out/ may be missing */
    if (status == 0)
        status = gt_gen_write_corpus(gen, dir, keep, rules, rule_count, err, sizeof err);
    if (status != 0)
        fprintf(stderr, "%s: %s\n", who, rules ? err : "out of memory");
    free(rules);
    gt_corpus_free(corpus);
    return status;
}

int gt_gen_cli_check_out(const char *who, const char *dir, bool no_cases)
{
    char err[4200];
    if (gt_gen_check_out_dir(dir, no_cases, err, sizeof err) == 0)
        return 0;
    fprintf(stderr, "%s: %s\n", who, err);
    return -1;
}
