/* decimal.c — exact decimal arithmetic on JSON number literals.
 *
 * A JSON number literal is exactly digits × 10^exponent, so every question
 * about a number's value (equal? less? an integer? a multiple of 0.01? inside
 * the interoperable range?) is a question about integers, answered here on the
 * source literal without binary floating point: fmod says 0.07 is not a
 * multiple of 0.01, a double says 1.0000000000000001 is the integer 1. Doubles
 * are used only where they provably give the same answer (see
 * gt_number_compare). Not for: general arithmetic. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decimal.h"
#include "gauntlet/value.h"

/* value = digits × 10^exp; digits without leading or trailing zeros (n = 0 is zero). */
typedef struct decimal {
    bool negative;
    char *digits; /* '0'..'9' characters */
    size_t n;
    long exp;
    char small[64];
} decimal;

static void decimal_free(decimal *d)
{
    if (d->digits != d->small)
        free(d->digits);
}

/* Parse a JSON number literal. Returns false when out of memory. */
static bool decimal_parse(decimal *d, const char *text, size_t len)
{
    memset(d, 0, sizeof *d);
    d->digits = len < sizeof d->small ? d->small : malloc(len + 1);
    if (d->digits == NULL)
        return false;
    size_t i = 0;
    if (i < len && text[i] == '-')
        d->negative = true, i++;
    long frac_digits = 0;
    bool in_frac = false;
    for (; i < len && text[i] != 'e' && text[i] != 'E'; i++) {
        if (text[i] == '.') {
            in_frac = true;
            continue;
        }
        if (d->n == 0 && text[i] == '0') {
            frac_digits += in_frac;
            continue;
        }
        d->digits[d->n++] = text[i];
        frac_digits += in_frac;
    }
    long exponent = 0;
    if (i < len) {
        i++;
        bool neg = false;
        if (i < len && (text[i] == '+' || text[i] == '-'))
            neg = text[i++] == '-';
        for (; i < len; i++)
            if (exponent < 100000000L)
                exponent = exponent * 10 + (text[i] - '0');
        if (neg)
            exponent = -exponent;
    }
    while (d->n > 0 && d->digits[d->n - 1] == '0')
        d->n--, exponent++;
    d->exp = exponent - frac_digits;
    return true;
}

/* (digits of a, then `zeros` zeros) mod b, with b given as digits; true when 0. */
static bool divides_small(const decimal *a, long zeros, uint64_t b)
{
    uint64_t rem = 0;
    for (size_t i = 0; i < a->n; i++)
        rem = (rem * 10 + (uint64_t)(a->digits[i] - '0')) % b;
    for (long z = 0; z < zeros && rem != 0; z++)
        rem = rem * 10 % b;
    return rem == 0;
}

/* rem >= b, both big-endian digit arrays of width w. */
static bool digits_ge(const unsigned char *rem, const unsigned char *b, size_t w)
{
    for (size_t i = 0; i < w; i++)
        if (rem[i] != b[i])
            return rem[i] > b[i];
    return true;
}

static void digits_sub(unsigned char *rem, const unsigned char *b, size_t w)
{
    int borrow = 0;
    for (size_t i = w; i-- > 0;) {
        int v = rem[i] - b[i] - borrow;
        borrow = v < 0;
        rem[i] = (unsigned char)(v < 0 ? v + 10 : v);
    }
}

static bool divides_big(const decimal *a, long zeros, const decimal *b)
{
    size_t w = b->n + 1;
    unsigned char *rem = calloc(2 * w, 1);
    if (rem == NULL)
        return false;
    unsigned char *bd = rem + w;
    for (size_t i = 0; i < b->n; i++)
        bd[i + 1] = (unsigned char)(b->digits[i] - '0');
    size_t total = a->n + (size_t)zeros;
    for (size_t k = 0; k < total; k++) {
        memmove(rem, rem + 1, w - 1);
        rem[w - 1] = (unsigned char)(k < a->n ? a->digits[k] - '0' : 0);
        while (digits_ge(rem, bd, w))
            digits_sub(rem, bd, w);
    }
    bool zero = true;
    for (size_t i = 0; i < w; i++)
        zero &= rem[i] == 0;
    free(rem);
    return zero;
}

static bool double_is_multiple(double value, double divisor)
{
    double q = value / divisor;
    return q == (double)(long long)q || (q > 9e15 || q < -9e15);
}

/* Parse both literals; false (nothing to free) when out of memory. */
static bool decimal_parse_pair(decimal *a, const char *x, size_t xlen, decimal *b, const char *y, size_t ylen)
{
    if (!decimal_parse(a, x, xlen))
        return false;
    if (!decimal_parse(b, y, ylen)) {
        decimal_free(a);
        return false;
    }
    return true;
}

int gt_decimal_multiple_text(const char *value, size_t value_len, const char *divisor, size_t divisor_len)
{
    decimal a, b;
    if (!decimal_parse_pair(&a, value, value_len, &b, divisor, divisor_len))
        return -1;
    bool result;
    long d = a.exp - b.exp;
    if (a.n == 0)
        result = true;
    else if (b.n == 0 || d < 0)
        result = false; /* a has no trailing zeros, so 10^-d cannot divide it */
    else {
        /* B | A·10^d saturates once d covers B's powers of 2 and 5. */
        long cap = 4 * (long)b.n + 4;
        long zeros = d < cap ? d : cap;
        if (b.n <= 18) {
            uint64_t bv = 0;
            for (size_t i = 0; i < b.n; i++)
                bv = bv * 10 + (uint64_t)(b.digits[i] - '0');
            result = divides_small(&a, zeros, bv);
        } else
            result = divides_big(&a, zeros, &b);
    }
    decimal_free(&a);
    decimal_free(&b);
    return result;
}

static int magnitude_compare(const decimal *a, const decimal *b)
{
    if (a->n == 0 || b->n == 0)
        return (a->n != 0) - (b->n != 0);
    long ta = a->exp + (long)a->n, tb = b->exp + (long)b->n;
    if (ta != tb)
        return ta < tb ? -1 : 1;
    size_t n = a->n < b->n ? a->n : b->n;
    int c = memcmp(a->digits, b->digits, n);
    if (c != 0)
        return c < 0 ? -1 : 1;
    return (a->n > b->n) - (a->n < b->n);
}

int gt_decimal_compare_text(const char *x, size_t xlen, const char *y, size_t ylen, bool magnitude_only, int *out)
{
    decimal a, b;
    if (!decimal_parse_pair(&a, x, xlen, &b, y, ylen))
        return -1;
    if (a.n == 0 || magnitude_only)
        a.negative = false;
    if (b.n == 0 || magnitude_only)
        b.negative = false;
    int result;
    if (a.negative != b.negative)
        result = a.negative ? -1 : 1;
    else {
        result = magnitude_compare(&a, &b);
        if (a.negative)
            result = -result;
    }
    decimal_free(&a);
    decimal_free(&b);
    *out = result;
    return 0;
}

bool gt_decimal_text_is_integer(const char *text, size_t len)
{
    decimal d;
    if (!decimal_parse(&d, text, len))
        return false;
    bool integer = d.n == 0 || d.exp >= 0; /* trailing zeros were moved into exp */
    decimal_free(&d);
    return integer;
}

int gt_decimal_shortest(double number, char *out, size_t size)
{
    for (int precision = 1; precision < 17; precision++) {
        int n = snprintf(out, size, "%.*e", precision - 1, number);
        if (n > 0 && (size_t)n < size && strtod(out, NULL) == number)
            return n;
    }
    return snprintf(out, size, "%.16e", number);
}

/* ---- numbers of the value model ---------------------------------------- */

/* The double is the literal's exact value: an integer literal inside the
 * safe range (the parser reads those without rounding). */
static bool double_is_exact(const gt_value *v)
{
    return (v->flags & GT_NUM_INTEGER_LITERAL) && !(v->flags & GT_NUM_BIG) &&
           fabs(v->u.num.number) <= GT_PARSE_MAX_SAFE_INTEGER;
}

int gt_number_compare(const gt_value *a, const gt_value *b)
{
    double x = a->u.num.number, y = b->u.num.number;
    /* Rounding to nearest is monotone: different doubles order their exact
     * values the same way. Only equal doubles need the literals. */
    if (x != y || a->u.num.text == NULL || b->u.num.text == NULL || (double_is_exact(a) && double_is_exact(b)))
        return (x > y) - (x < y);
    int result;
    if (gt_decimal_compare_text(a->u.num.text, a->u.num.text_len, b->u.num.text, b->u.num.text_len, false, &result) !=
        0)
        return 0; /* out of memory: the doubles are equal */
    return result;
}

bool gt_number_is_integer(const gt_value *v)
{
    if (v->flags & GT_NUM_INTEGER_LITERAL)
        return true;
    double number = v->u.num.number;
    /* An exact integer never rounds to a non-integer double. */
    if (!isfinite(number) || floor(number) != number)
        return false;
    return v->u.num.text == NULL || gt_decimal_text_is_integer(v->u.num.text, v->u.num.text_len);
}

/* A literal without exponent and of at most 18 digits: its digits as an
 * integer and how many of them follow the point (12.50 is 1250 and 2). */
static bool plain_literal(const char *text, size_t len, uint64_t *digits_out, int *fraction_out)
{
    uint64_t digits = 0;
    int count = 0, fraction = 0;
    bool in_fraction = false;
    for (size_t i = text[0] == '-'; i < len; i++) {
        char ch = text[i];
        if (ch == '.') {
            in_fraction = true;
            continue;
        }
        if (ch < '0' || ch > '9' || ++count > 18)
            return false;
        digits = digits * 10 + (uint64_t)(ch - '0');
        fraction += in_fraction;
    }
    *digits_out = digits, *fraction_out = fraction;
    return true;
}

/* The common multipleOf (19.99 of 0.01, 40 of 5) in 64-bit integers: value
 * a / 10^fa, divisor b / 10^fb, so value / divisor is a * 10^(fb - fa) / b.
 * 1 a multiple, 0 not, -1 when the literals need the digit-string code. */
static int plain_multiple(const gt_value *value, const gt_value *divisor)
{
    uint64_t a, b;
    int fa, fb;
    if (!plain_literal(value->u.num.text, value->u.num.text_len, &a, &fa) ||
        !plain_literal(divisor->u.num.text, divisor->u.num.text_len, &b, &fb) || b == 0)
        return -1;
    if (a == 0)
        return 1;
    if (fa > fb) { /* b * 10^(fa - fb) must divide a */
        for (int k = fb; k < fa; k++) {
            if (b > UINT64_MAX / 10)
                return -1;
            b *= 10;
        }
        return a % b == 0;
    }
    uint64_t rem = a % b; /* b < 10^18: rem * 10 fits */
    for (int k = fa; k < fb && rem != 0; k++)
        rem = rem * 10 % b;
    return rem == 0;
}

bool gt_number_is_multiple(const gt_value *value, const gt_value *divisor)
{
    if (value->u.num.text == NULL || divisor->u.num.text == NULL)
        return double_is_multiple(value->u.num.number, divisor->u.num.number);
    int plain = plain_multiple(value, divisor);
    if (plain >= 0)
        return plain == 1;
    int r = gt_decimal_multiple_text(value->u.num.text, value->u.num.text_len, divisor->u.num.text,
                                     divisor->u.num.text_len);
    return r < 0 ? double_is_multiple(value->u.num.number, divisor->u.num.number) : r == 1;
}
