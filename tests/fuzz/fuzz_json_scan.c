/* libFuzzer target: the value count that refuses JSON too big for cJSON's tree
 * (oroya_json_values_check, include/oroya/json.h; the glTF reader and the scenario runner use
 * it before cJSON). For every text cJSON accepts whole (only whitespace after the value), the
 * count must be cJSON's item count, neither less (the limit would let more through) nor more
 * (good files would be refused early); for every text, cJSON must make no more items than
 * the count plus two (the member it started when it stopped). The nesting scan must agree
 * with the failure description. */
#include <cjson/cJSON.h>
#include <stdint.h>
#include <stdlib.h>

#include "oroya/json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static size_t items_made; /* cJSON items allocated during one parse */

static void *count_malloc(size_t n) {
    if (n == sizeof(cJSON))
        items_made++; /* strings of exactly 64 bytes count too: an upper bound */
    return malloc(n);
}

static size_t items(const cJSON *v) {
    size_t n = 1;
    for (const cJSON *c = v->child; c; c = c->next)
        n += items(c);
    return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const char *text = (const char *)data;
    size_t values = 0;
    if (oroya_json_values_check(text, size, SIZE_MAX, &values, NULL) != OROYA_OK)
        abort();
    if (oroya_json_values_check(text, size, values, NULL, NULL) != OROYA_OK ||
        (values > 0 &&
         oroya_json_values_check(text, size, values - 1, NULL, NULL) != OROYA_ERR_LIMIT))
        abort();
    cJSON_Hooks hooks = {count_malloc, free};
    cJSON_InitHooks(&hooks);
    items_made = 0;
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts(text, size, &end, 0);
    cJSON_InitHooks(NULL);
    if (root) {
        size_t at = end ? (size_t)(end - text) : size;
        while (at < size &&
               (text[at] == ' ' || text[at] == '\t' || text[at] == '\n' || text[at] == '\r'))
            at++;
        if (at == size && items(root) != values)
            abort();
        cJSON_Delete(root);
    } else {
        /* Strings of 64 bytes are counted as items too, so only a small text is exact. */
        if (size < 64 && items_made > values + 2)
            abort();
        size_t at = end ? (size_t)(end - text) : 0;
        (void)oroya_json_failure_describe(text, size, at, CJSON_NESTING_LIMIT, NULL);
    }
    return 0;
}
