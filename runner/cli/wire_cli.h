/* wire_cli.h — what `gauntlet strict`, `transform` and `lint` share: reading
 * one schema file into a value. */
#ifndef GT_WIRE_CLI_H
#define GT_WIRE_CLI_H

#include <stdbool.h>

#include "gauntlet/arena.h"
#include "gauntlet/value.h"

/* Read and parse the schema at `path` ("-" = standard input) into `arena`.
 * \u0000 is kept (SchemaStore patterns hold it) unless `reject_nul`
 * (--reject-nul). Returns the value, or NULL after printing "gauntlet
 * <command>: ..." naming the file to standard error (unreadable, or not JSON). */
const gt_value *wire_cli_load_schema(const char *command, const char *path, bool reject_nul, gt_arena *arena);

#endif
