/* Interned strings and name-compression tables, including ids a hostile file could pick. */
#include "ctest.h"
#include "idmap.h"
#include "strtab.h"

int main(void) {
    strtab t;
    CHECK_INT(0, strtab_init(&t, 12345));
    CHECK_STR("", strtab_get(&t, 0));
    int64_t a = strtab_intern(&t, "main", 4);
    int64_t b = strtab_intern(&t, "mainly", 4); /* the same four bytes */
    int64_t c = strtab_intern(&t, "fact'2", 6);
    CHECK(a > 0);
    CHECK_INT(a, b);
    CHECK(c != a);
    CHECK_STR("fact'2", strtab_get(&t, (uint32_t)c));
    CHECK_INT(3, t.count); /* "", main (mainly's first four bytes) and fact'2 */
    char name[32];
    for (int i = 0; i < 100000; i++) {
        int len = snprintf(name, sizeof name, "fn%d", i);
        int64_t id = strtab_intern(&t, name, (size_t)len);
        CHECK(id >= 0);
        if (i % 9973 == 0) CHECK_STR(name, strtab_get(&t, (uint32_t)id));
    }
    CHECK_INT(100003, t.count);
    CHECK_INT(a, strtab_intern(&t, "main", 4));
    strtab_free(&t);

    idmap m;
    idmap_init(&m, 777);
    CHECK_INT(-1, idmap_get(&m, 1));
    CHECK_INT(0, idmap_set(&m, 1, 10));
    CHECK_INT(0, idmap_set(&m, 730, 11));
    CHECK_INT(0, idmap_set(&m, 4000000000u, 12));
    CHECK_INT(0, idmap_set(&m, UINT64_MAX, 13));
    CHECK_INT(10, idmap_get(&m, 1));
    CHECK_INT(11, idmap_get(&m, 730));
    CHECK_INT(12, idmap_get(&m, 4000000000u));
    CHECK_INT(13, idmap_get(&m, UINT64_MAX));
    CHECK_INT(-1, idmap_get(&m, 3999999999u));
    CHECK(m.dense_cap < 1000000); /* the huge ids went to the sparse map */
    /* a bound dense id keeps a memo, zero until written, zeroed when bound again */
    uint32_t *memo = idmap_memo(&m, 730);
    CHECK(memo != NULL);
    CHECK_INT(0, memo[0] | memo[1] | memo[2]);
    memo[0] = 5, memo[1] = 6, memo[2] = 7;
    CHECK_INT(0, idmap_set(&m, 1, 10)); /* another id, grown or not, leaves it */
    CHECK_INT(7, idmap_memo(&m, 730)[2]);
    CHECK(idmap_memo(&m, 2) == NULL);           /* not bound */
    CHECK(idmap_memo(&m, 4000000000u) == NULL); /* sparse */
    CHECK_INT(0, idmap_set(&m, 730, 20));
    CHECK_INT(20, idmap_get(&m, 730));
    memo = idmap_memo(&m, 730);
    CHECK_INT(0, memo[0] | memo[1] | memo[2]);
    memo[2] = 9;
    CHECK_INT(4, m.defined);
    for (uint64_t id = 1; id < 300000; id++) CHECK_INT(0, idmap_set(&m, id * 3, (uint32_t)id));
    CHECK_INT(99999, idmap_get(&m, 299997));
    CHECK_INT(9, idmap_memo(&m, 730)[2]); /* kept while the array grew */
    CHECK_INT(12, idmap_get(&m, 4000000000u));
    idmap_clear(&m);
    CHECK_INT(-1, idmap_get(&m, 1));
    CHECK_INT(-1, idmap_get(&m, 4000000000u));
    CHECK(idmap_memo(&m, 730) == NULL);
    CHECK_INT(0, idmap_set(&m, 730, 20));
    CHECK_INT(0, idmap_memo(&m, 730)[2]); /* cleared with the bindings */
    idmap_free(&m);
    return ctest_report("test_tables");
}
