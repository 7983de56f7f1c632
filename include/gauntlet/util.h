/* util.h — the few helpers every layer uses: bounded whole-file reads,
 * atomic file writes, strict base64 and JSON string literals.
 *
 * One low place (implemented in reference/util.c, part of libgauntlet) that
 * reference/, mocks/, reports/, runner/ and the adapters may all include, so
 * no layer borrows such a helper from a layer above it. Not for: anything
 * that knows about cases, runs or the command line (runner/cli/cli_io.h). */
#ifndef GAUNTLET_UTIL_H
#define GAUNTLET_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

/* Largest file gt_read_file reads (schemas, scripts, reports); it stops
 * reading there, so a pipe or a device cannot make it read forever. */
#define GT_READ_FILE_MAX_BYTES (256u * 1024u * 1024u)

/* Open `path` for reading if it is a regular file: a FIFO, a device, a
 * socket or a folder is refused at once ("<path>: is not a regular file",
 * never a blocking open). Sets *size (may be NULL) to its size. NULL with
 * `err` naming the path on failure. Close with fclose. */
FILE *gt_open_regular(const char *path, off_t *size, char *err, size_t err_len);

/* Read a whole file ("-" or NULL = standard input) into a malloc'd buffer with
 * a NUL after the last byte (not counted in *len). Returns NULL and writes a
 * message naming the path into `err` on failure. Caller frees. */
char *gt_read_file(const char *path, size_t *len, char *err, size_t err_len);

/* gt_read_file that reads at most `max` bytes. With `over` NULL a longer input
 * is an error ("<path>: larger than N bytes"); otherwise the first max + 1
 * bytes are returned with *over set, for the caller to reject as too large.
 * Either way reading stops after max + 1 bytes. */
char *gt_read_file_max(const char *path, size_t max, size_t *len, bool *over, char *err, size_t err_len);

/* Fills `out` with a file's contents from `user`: 0, or -1 on failure. */
typedef int (*gt_file_writer)(FILE *out, const void *user);

/* Write `path` through a temporary file beside it that is renamed into place,
 * so a reader never sees half a file. Returns 0; -1 when the temporary file
 * cannot be created (errno says why); -2 when `write`, the close or the
 * rename failed (the temporary file is removed). A `path` that exists and is
 * neither a regular file nor a folder (/dev/null, /dev/stdout, a FIFO) is
 * written in place: renaming over a device would replace it with a file. */
int gt_write_file_atomic(const char *path, gt_file_writer write, const void *user);

/* gt_write_file_atomic in two steps, for a set of files that must all be
 * replaced or none: write `path`'s temporary ("<path>.tmp.<pid>", its name
 * into `temporary`) and fsync it; stale temporaries of `path` whose writer is
 * gone are removed first. 0, -1 or -2 as gt_write_file_atomic (nothing left
 * behind on failure). Then gt_commit_file_temporary renames it into place and
 * fsyncs the folder (0, or -2 with the temporary removed); or remove() it to
 * leave the old file. For a `path` written in place (not a regular file)
 * `temporary` is "" and the commit does nothing. */
int gt_write_file_temporary(const char *path, gt_file_writer write, const void *user, char *temporary,
                            size_t temporary_len);
int gt_commit_file_temporary(const char *temporary, const char *path);

/* Standard base64 (RFC 4648, with padding) of `len` bytes, malloc'd and
 * NUL-terminated. NULL when out of memory. */
char *gt_base64_encode(const unsigned char *data, size_t len);

/* Strict base64 (RFC 4648 §4: padding to a multiple of four, no whitespace,
 * zero padding bits) into `out` (room for len / 4 * 3 bytes). Returns the
 * decoded length, or -1 with the offending character's index in *bad_at. */
long gt_base64_decode_into(const char *text, size_t len, unsigned char *out, size_t *bad_at);

/* The same into a malloc'd buffer with a NUL after the last byte (not
 * counted in *out_len). NULL on invalid input or out of memory. */
unsigned char *gt_base64_decode(const char *text, size_t len, size_t *out_len);

/* Write `len` bytes as a JSON string literal (quoted, escaped) to `out`.
 * Invalid UTF-8 bytes are written as \ufffd. */
void gt_json_write_string(FILE *out, const char *text, size_t len);

#endif
