/* cli_io.h — small I/O helpers shared by the CLI commands. */
#ifndef GT_CLI_IO_H
#define GT_CLI_IO_H

#include <stddef.h>
#include <stdio.h>

/* Read a whole file ("-" or NULL = standard input) into a malloc'd buffer with
 * a NUL after the last byte (not counted in *len). Returns NULL and writes a
 * message naming the path into `err` on failure. Caller frees. */
char *gt_read_file(const char *path, size_t *len, char *err, size_t err_len);

/* Parse a non-negative size argument ("1048576", "16M", "64k"). Returns 0, or
 * -1 when it is not a number. */
int gt_parse_size(const char *text, size_t *out);



/* Standard base64 (RFC 4648, with padding) of `len` bytes, malloc'd and
 * NUL-terminated. NULL when out of memory. */
char *gt_base64_encode(const unsigned char *data, size_t len);

/* Decode standard base64 (padding required, no whitespace) into a malloc'd
 * buffer. Returns NULL on invalid input or out of memory. */
unsigned char *gt_base64_decode(const char *text, size_t len, size_t *out_len);

/* Write `len` bytes as a JSON string literal (quoted, escaped) to `out`.
 * Invalid UTF-8 bytes are written as \ufffd. */
void gt_json_write_string(FILE *out, const char *text, size_t len);
#endif
