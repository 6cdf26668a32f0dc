/* Functions sorted by name (the lookups' order): strcmp's order over names that share long
 * beginnings, end inside or right at an eight-byte boundary, or hold bytes above 0x7f; equal
 * names (other files) in the order the functions were first met. */
#include <stdio.h>
#include <stdlib.h>

#include "callgrind.h"
#include "ctest.h"
#include "model.h"

static const char *const names[] = {
    "0x00000000000033f0'call_init'_dl_init",
    "0x00000000000033f0'call_init'_dl_init'x",
    "0x00000000000033b0'_dl_call_fini",
    "0x00000000000033f0'call_init'_dl_inis",
    "0x00000000000033f0",
    "0x0000000000003",
    "0x00000000",
    "0x0000000",
    "b\xc3\xa9",
    "bz",
    "b",
    "a",
    "abcdefgh",
    "abcdefghi",
    "abcdefg",
    "main",
    "main",
    "std::vector<int, std::allocator<int> >::push_back(int const&)",
    "std::vector<int, std::allocator<int> >::_M_realloc_insert(int const&)",
    "std::vector<int, std::allocator<int> >::push_back(int const&)",
};
enum { NNAMES = sizeof names / sizeof names[0] };

int main(void) {
    char text[8192];
    size_t len = (size_t)snprintf(text, sizeof text, "events: Ir\n");
    for (int i = 0; i < NNAMES; i++) /* equal names in other files: other functions */
        len += (size_t)snprintf(text + len, sizeof text - len, "fl=f%d.c\nfn=%s\n%d 1\n", i,
                                names[i], i + 1);
    cg_error err;
    cg_profile *p = cg_load_buffer(text, len, "names", NULL, &err);
    CHECK(p != NULL);
    if (!p) return ctest_report("test_names");
    CHECK_INT(NNAMES, p->nfns);
    CHECK(p->name_order == NULL); /* made by the first lookup, not by the load */
    const uint32_t *order = profile_name_order(p);
    CHECK(order != NULL && order == p->name_order);
    if (!order) return ctest_report("test_names");
    for (size_t i = 1; i < p->nfns; i++) {
        const char *a = strtab_get(&p->strings, p->fns[order[i - 1]].name);
        const char *b = strtab_get(&p->strings, p->fns[order[i]].name);
        int c = strcmp(a, b);
        CHECK(c < 0 || (c == 0 && order[i - 1] < order[i]));
    }
    CHECK_STR("0x00000000", strtab_get(&p->strings, p->fns[order[1]].name));
    CHECK_STR("b\xc3\xa9", strtab_get(&p->strings, p->fns[order[NNAMES - 6]].name));
    /* lookups walk the functions of one name in the order they were met */
    size_t first = cg_find_function(p, "main", NULL, NULL, CG_NONE);
    size_t second = cg_find_function(p, "main", NULL, NULL, first);
    CHECK_INT(15, first);
    CHECK_INT(16, second);
    CHECK_INT(CG_NONE, cg_find_function(p, "main", NULL, NULL, second));
    CHECK_INT(16, cg_find_function(p, "main", "f16.c", NULL, CG_NONE));
    CHECK_INT(CG_NONE, cg_find_function(p, "mai", NULL, NULL, CG_NONE));
    cg_profile_free(p);
    return ctest_report("test_names");
}
