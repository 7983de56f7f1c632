/* cli_io.h — small I/O helpers shared by the CLI commands. */
#ifndef GT_CLI_IO_H
#define GT_CLI_IO_H

#include <stddef.h>

/* Read a whole file ("-" or NULL = standard input) into a malloc'd buffer with
 * a NUL after the last byte (not counted in *len). Returns NULL and writes a
 * message naming the path into `err` on failure. Caller frees. */
char *gt_read_file(const char *path, size_t *len, char *err, size_t err_len);

/* Parse a non-negative size argument ("1048576", "16M", "64k"). Returns 0, or
 * -1 when it is not a number. */
int gt_parse_size(const char *text, size_t *out);

#endif
