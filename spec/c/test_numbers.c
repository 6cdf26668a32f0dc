/* The format's numbers: decimal and hex, 64-bit limits, signs, and what ends a token. */
#include "ctest.h"
#include "numparse.h"

static int u64(const char *text, uint64_t *out, const char **rest) {
    const char *s = text;
    int rc = parse_u64(&s, text + strlen(text), out);
    if (rest) *rest = s;
    return rc;
}

static int cost(const char *text, int64_t *out) {
    const char *s = text;
    return parse_cost(&s, text + strlen(text), out);
}

int main(void) {
    uint64_t v = 0;
    const char *rest;
    CHECK_INT(ST_OK, u64("0", &v, NULL));
    CHECK_INT(0, v);
    CHECK_INT(ST_OK, u64("12345 678", &v, &rest));
    CHECK_INT(12345, v);
    CHECK_STR(" 678", rest);
    CHECK_INT(ST_OK, u64("42\t", &v, NULL));
    CHECK_INT(42, v);
    CHECK_INT(ST_OK, u64("0x80001234", &v, NULL));
    CHECK(v == 0x80001234u);
    CHECK_INT(ST_OK, u64("0XfF", &v, NULL));
    CHECK_INT(255, v);
    CHECK_INT(ST_OK, u64("18446744073709551615", &v, NULL));
    CHECK(v == UINT64_MAX);
    CHECK_INT(ST_OK, u64("0xffffffffffffffff", &v, NULL));
    CHECK(v == UINT64_MAX);
    CHECK_INT(ST_OK, u64("9999999999999999999", &v, NULL)); /* 19 digits */
    CHECK(v == 9999999999999999999u);
    CHECK_INT(ST_OK, u64("10000000000000000000 1", &v, &rest)); /* 20 */
    CHECK(v == 10000000000000000000u);
    CHECK_STR(" 1", rest);
    CHECK_INT(ST_OK, u64("000000000000000000000000018446744073709551615", &v, NULL));
    CHECK(v == UINT64_MAX);
    CHECK_INT(ST_OVERFLOW, u64("18446744073709551616", &v, NULL));
    CHECK_INT(ST_OVERFLOW, u64("000000000000000000000000018446744073709551616", &v, NULL));
    CHECK_INT(ST_OVERFLOW, u64("99999999999999999999999", &v, NULL));
    CHECK_INT(ST_OVERFLOW, u64("0x10000000000000000", &v, NULL));
    CHECK_INT(ST_BAD, u64("", &v, NULL));
    CHECK_INT(ST_BAD, u64("x1", &v, NULL));
    CHECK_INT(ST_BAD, u64("0x", &v, NULL));
    CHECK_INT(ST_BAD, u64("9a", &v, NULL));
    CHECK_INT(ST_BAD, u64("99999999999999999999999z", &v, NULL));
    CHECK_INT(ST_BAD, u64("1/2", &v, NULL));

    int64_t c = 0;
    CHECK_INT(ST_OK, cost("-1000", &c));
    CHECK_INT(-1000, c);
    CHECK_INT(ST_OK, cost("+7", &c));
    CHECK_INT(7, c);
    CHECK_INT(ST_OK, cost("9223372036854775807", &c));
    CHECK(c == INT64_MAX);
    CHECK_INT(ST_OK, cost("-9223372036854775808", &c));
    CHECK(c == INT64_MIN);
    CHECK_INT(ST_OVERFLOW, cost("9223372036854775808", &c));
    CHECK_INT(ST_OVERFLOW, cost("-9223372036854775809", &c));
    CHECK_INT(ST_BAD, cost("-", &c));
    CHECK_INT(ST_BAD, cost("hello", &c));
    return ctest_report("test_numbers");
}
