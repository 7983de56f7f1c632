/* wire_cli.c — schema loading shared by the wire commands. */
#include <stdio.h>
#include <stdlib.h>

#include "cli_io.h"
#include "gauntlet/parse.h"
#include "wire_cli.h"

const gt_value *wire_cli_load_schema(const char *command, const char *path, bool reject_nul, gt_arena *arena)
{
    char err[512];
    size_t len;
    char *text = gt_read_file(path, &len, err, sizeof err);
    if (text == NULL) {
        fprintf(stderr, "gauntlet %s: %s\n", command, err);
        return NULL;
    }
    gt_parse_options options;
    gt_parse_options_init(&options);
    options.allow_big_integers = true; /* a schema may hold big integer bounds: keep them exact */
    options.reject_nul = reject_nul;
    gt_parse_error error;
    const gt_value *schema = gt_parse(arena, text, len, &options, &error);
    if (schema == NULL)
        fprintf(stderr, "gauntlet %s: %s is not JSON: %s at %u:%u: %s\n", command,
                path == NULL || path[0] == '-' ? "standard input" : path, gt_syntax_reason_code(error.reason),
                error.line, error.column, error.message);
    free(text);
    return schema;
}
