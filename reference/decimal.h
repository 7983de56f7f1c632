/* decimal.h — exact decimal arithmetic on JSON number literals (decimal.c).
 *
 * Private to libgauntlet: the syntax gate uses it for the interoperable range,
 * the value model (gt_number_*, value.h) for equality, order and integrality.
 * A literal is the text of a JSON number as the syntax gate accepted it. */
#ifndef GT_DECIMAL_H
#define GT_DECIMAL_H

#include <stdbool.h>
#include <stddef.h>

#include "gauntlet/limits.h"

/* Compare two literals exactly (or their magnitudes when `magnitude_only`):
 * *out = <0, 0, >0. Returns 0, or -1 when out of memory. */
int gt_decimal_compare_text(const char *x, size_t xlen, const char *y, size_t ylen, bool magnitude_only, int *out);

/* Is the literal's value a whole number (1.0, 1e2 and 10e-1 are)? */
bool gt_decimal_text_is_integer(const char *text, size_t len);

/* Is `value` an integer multiple of `divisor` (> 0)? 1 yes, 0 no, -1 out of memory. */
int gt_decimal_multiple_text(const char *value, size_t value_len, const char *divisor, size_t divisor_len);

/* The shortest decimal ("%.*e") that reads back as `number`, into `out`.
 * Returns its length. */
int gt_decimal_shortest(double number, char *out, size_t size);

#endif
