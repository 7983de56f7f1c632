/* matrix_labels.c — the labels of a matrix column's red cells.
 *
 * matrix/notes/NAME.labels (docs/matrix-labels.md) says, for each red cell
 * of the column NAME, what it is: a true defect of the library, a
 * figures/profile difference, a wrapper or library limit, or a mock
 * artefact. One label names many cells, so one defect is one row however
 * many cases show it. Format, line by line:
 *
 *   # a comment                       (blank lines too)
 *   KIND ID: TITLE                    a label (at the start of the line)
 *     case.id another.case, third.id  its cells (indented; spaces or commas)
 *
 * KIND is defect, difference, limit or mock; ID is [a-z0-9_-]+; TITLE is one
 * line of Markdown. Errors name the file and the line. Not for: deciding
 * what a cell is (the verdict classes, runner/result.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gauntlet/runner/matrix.h"

#define LABELS_MAX_LABELS 256
#define LABELS_MAX_CASES 4096
#define LABELS_MAX_TITLE 2000

static const struct {
    const char *name, *title;
} label_kinds[GT_MATRIX_LABEL_KIND_COUNT] = {
    [GT_MATRIX_LABEL_DEFECT] = {"defect", "true defect"},
    [GT_MATRIX_LABEL_DIFFERENCE] = {"difference", "figures/profile difference"},
    [GT_MATRIX_LABEL_LIMIT] = {"limit", "wrapper/library limit"},
    [GT_MATRIX_LABEL_MOCK] = {"mock", "mock artefact"},
};

const char *gt_matrix_label_kind_name(gt_matrix_label_kind kind)
{
    return kind < GT_MATRIX_LABEL_KIND_COUNT ? label_kinds[kind].name : "?";
}

const char *gt_matrix_label_kind_title(gt_matrix_label_kind kind)
{
    return kind < GT_MATRIX_LABEL_KIND_COUNT ? label_kinds[kind].title : "?";
}

void gt_matrix_labels_free(gt_matrix_labels *labels)
{
    if (labels == NULL)
        return;
    for (size_t i = 0; i < labels->count; i++) {
        free(labels->items[i].id);
        free(labels->items[i].title);
    }
    for (size_t i = 0; i < labels->case_count; i++)
        free(labels->cases[i].id);
    free(labels->items);
    free(labels->cases);
    free(labels);
}

static bool is_id_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
}

static bool is_case_char(char c)
{
    return is_id_char(c) || (c >= 'A' && c <= 'Z') || c == '.';
}

static gt_matrix_labels *fail(gt_matrix_labels *labels, char *err, size_t err_len, const char *path, int line,
                              const char *what, const char *detail)
{
    snprintf(err, err_len, "%s:%d: %s%s%.80s%s", path, line, what, detail ? " '" : "", detail ? detail : "",
             detail ? "'" : "");
    gt_matrix_labels_free(labels);
    return NULL;
}

gt_matrix_labels *gt_matrix_labels_parse(const char *text, const char *path, char *err, size_t err_len)
{
    gt_matrix_labels *labels = calloc(1, sizeof *labels);
    if (labels == NULL)
        return fail(NULL, err, err_len, path, 0, "out of memory", NULL);
    int line_no = 0;
    for (const char *line = text; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
        line_no++;
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        if (len > 0 && line[len - 1] == '\r')
            len--;
        size_t lead = 0;
        while (lead < len && (line[lead] == ' ' || line[lead] == '\t'))
            lead++;
        if (lead == len || line[lead] == '#')
            continue;
        if (lead == 0) { /* KIND ID: TITLE */
            size_t k = 0;
            while (k < len && line[k] != ' ')
                k++;
            int kind = -1;
            for (int i = 0; i < GT_MATRIX_LABEL_KIND_COUNT; i++)
                if (strlen(label_kinds[i].name) == k && strncmp(line, label_kinds[i].name, k) == 0)
                    kind = i;
            char word[64];
            snprintf(word, sizeof word, "%.*s", (int)(k < 60 ? k : 60), line);
            if (kind < 0)
                return fail(labels, err, err_len, path, line_no,
                            "a label line starts with its kind (defect, difference, limit or mock), not", word);
            size_t id = k + 1, id_end = id;
            while (id_end < len && is_id_char(line[id_end]))
                id_end++;
            if (id_end == id || id_end >= len || line[id_end] != ':')
                return fail(labels, err, err_len, path, line_no,
                            "a label line is 'KIND ID: TITLE' with ID of a-z, 0-9, '-' and '_'", NULL);
            size_t title = id_end + 1;
            while (title < len && line[title] == ' ')
                title++;
            if (title == len)
                return fail(labels, err, err_len, path, line_no, "the label has no title after its ':'", NULL);
            if (len - title > LABELS_MAX_TITLE)
                return fail(labels, err, err_len, path, line_no, "the label's title is over 2000 bytes", NULL);
            for (size_t i = 0; i < labels->count; i++)
                if (strlen(labels->items[i].id) == id_end - id && strncmp(labels->items[i].id, line + id, id_end - id) == 0)
                    return fail(labels, err, err_len, path, line_no, "a second label with the id", labels->items[i].id);
            if (labels->count == LABELS_MAX_LABELS)
                return fail(labels, err, err_len, path, line_no, "more than 256 labels", NULL);
            gt_matrix_label *item = realloc(labels->items, (labels->count + 1) * sizeof *item);
            if (item == NULL)
                return fail(labels, err, err_len, path, line_no, "out of memory", NULL);
            labels->items = item;
            item = &labels->items[labels->count++];
            *item = (gt_matrix_label){.kind = (gt_matrix_label_kind)kind, .line = line_no};
            item->id = strndup(line + id, id_end - id);
            item->title = strndup(line + title, len - title);
            if (item->id == NULL || item->title == NULL)
                return fail(labels, err, err_len, path, line_no, "out of memory", NULL);
            continue;
        }
        if (labels->count == 0)
            return fail(labels, err, err_len, path, line_no, "a case id before the first label line", NULL);
        for (size_t at = lead; at < len;) {
            while (at < len && (line[at] == ' ' || line[at] == '\t' || line[at] == ','))
                at++;
            if (at == len)
                break;
            size_t stop = at;
            while (stop < len && is_case_char(line[stop]))
                stop++;
            if (stop == at || (stop < len && line[stop] != ' ' && line[stop] != '\t' && line[stop] != ',')) {
                char bad[96];
                snprintf(bad, sizeof bad, "%.*s", (int)((len - at) < 80 ? len - at : 80), line + at);
                return fail(labels, err, err_len, path, line_no,
                            "a case line holds case ids (a-z, 0-9, '.', '-', '_') separated by spaces or commas, "
                            "not",
                            bad);
            }
            char id[300];
            snprintf(id, sizeof id, "%.*s", (int)(stop - at < 290 ? stop - at : 290), line + at);
            const gt_matrix_label *before = gt_matrix_labels_find(labels, id);
            if (before != NULL) {
                snprintf(err, err_len, "%s:%d: case '%s' is in two labels: '%s' (line %d) and '%s'", path, line_no,
                         id, before->id, before->line, labels->items[labels->count - 1].id);
                gt_matrix_labels_free(labels);
                return NULL;
            }
            if (labels->case_count == LABELS_MAX_CASES)
                return fail(labels, err, err_len, path, line_no, "more than 4096 labelled cases", NULL);
            gt_matrix_labelled *cases = realloc(labels->cases, (labels->case_count + 1) * sizeof *cases);
            if (cases == NULL)
                return fail(labels, err, err_len, path, line_no, "out of memory", NULL);
            labels->cases = cases;
            cases[labels->case_count] = (gt_matrix_labelled){strdup(id), labels->count - 1};
            if (cases[labels->case_count++].id == NULL)
                return fail(labels, err, err_len, path, line_no, "out of memory", NULL);
            at = stop;
        }
    }
    return labels;
}

const gt_matrix_label *gt_matrix_labels_find(const gt_matrix_labels *labels, const char *case_id)
{
    if (labels == NULL || case_id == NULL)
        return NULL;
    for (size_t i = 0; i < labels->case_count; i++)
        if (strcmp(labels->cases[i].id, case_id) == 0)
            return &labels->items[labels->cases[i].label];
    return NULL;
}
