/* Exact decimal arithmetic with Spark SQL's result types: values are
 * 128-bit unscaled integers with a (precision, scale); intermediates that
 * need more (products of two 38-digit values, quotients carried to 38
 * significant digits) are computed in a 512-bit magnitude, never through
 * double. Rounding is HALF_UP throughout. */
#ifndef DELTAC_EXPR_DEC_MATH_H
#define DELTAC_EXPR_DEC_MATH_H

#include <stdbool.h>
#include <stddef.h>

#define DEC_MAX_PRECISION 38

enum { DEC_OK = 0, DEC_OVERFLOW = 1, DEC_DIVZERO = 2 };

/* The result type of a op b for op in + - * / % (Spark's rules, with the
 * allowPrecisionLoss adjustment when the precision would exceed 38: the
 * integral digits are kept and the scale shrinks, but not below
 * min(scale, 6)). */
void dec_result_type(char op, int p1, int s1, int p2, int s2, int *p, int *s);

/* a (scale s1) op b (scale s2) into *out at scale s, failing with
 * DEC_OVERFLOW when it does not fit precision p and DEC_DIVZERO for / and %
 * by zero. As Spark does, * and / are first rounded to 38 significant digits
 * and then to the result scale; + - % are exact before that rounding. */
int dec_apply(char op, __int128 a, int s1, __int128 b, int s2, int p, int s, __int128 *out);

/* v at scale `from` rescaled to scale `to` (HALF_UP); DEC_OVERFLOW when the
 * result does not fit precision p. */
int dec_rescale(__int128 v, int from, int p, int to, __int128 *out);

/* Digits of |v| (1 for 0). */
int dec_digits(__int128 v);

/* "-123.45" into buf (at least 48 bytes); returns the length. */
int dec_format(__int128 v, int scale, char *buf);

/* A double as a decimal(p, s), from its shortest round-trip text (as Spark
 * makes a decimal from a double); DEC_OVERFLOW for NaN, infinities and
 * values that do not fit. */
int dec_from_double(double d, int p, int s, __int128 *out);

/* The nearest double. */
double dec_to_double(__int128 v, int scale);

/* Truncated toward zero to an integer; false when it does not fit int64. */
bool dec_to_int64(__int128 v, int scale, long long *out);

/* Text (sign, digits, optional point; no exponent) rounded HALF_UP to scale
 * s; DEC_OVERFLOW when not a number or it does not fit p. */
int dec_parse(const char *text, size_t len, int p, int s, __int128 *out);

#endif
