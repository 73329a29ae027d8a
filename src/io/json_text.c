/* The public face of the I/O layer's JSON text checks (include/oroya/json.h), for JSON
 * readers built on liboroya; the checks themselves are io_file.c's, shared with the glTF
 * reader. */
#include "oroya/json.h"

#include "internal/io_file.h"

oroya_result oroya_json_text_check(const char *text, size_t len, size_t *json_len,
                                   oroya_error *err) {
    if (!text || !json_len) {
        return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT, "oroya_json_text_check: %s is NULL",
                           !text ? "text" : "json_len");
    }
    size_t bad = 0;
    const char *why = NULL;
    if (!oroya__json_text_check(text, len, json_len, &bad, &why)) {
        return oroya__fail(err, OROYA_ERR_PARSE, "invalid JSON: %s at byte %zu", why, bad);
    }
    return OROYA_OK;
}

oroya_result oroya_json_values_check(const char *text, size_t len, size_t max_values,
                                     size_t *values, oroya_error *err) {
    if (values) {
        *values = 0;
    }
    if (!text && len) {
        return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT,
                           "oroya_json_values_check: text is NULL");
    }
    oroya__json_counts c = {0, SIZE_MAX};
    if (text) {
        oroya__json_scan(text, len, SIZE_MAX, &c);
    }
    if (values) {
        *values = c.values;
    }
    if (c.values > max_values) {
        return oroya__fail(err, OROYA_ERR_LIMIT, "invalid JSON: %zu values, the limit is %zu",
                           c.values, max_values);
    }
    return OROYA_OK;
}

oroya_result oroya_json_failure_describe(const char *text, size_t len, size_t at, size_t limit,
                                         oroya_error *err) {
    /* The byte cJSON stopped at is the one that opened the level too many. */
    size_t upto = at + 1 < len ? at + 1 : len;
    if (text && oroya__json_too_deep(text, upto, limit)) {
        return oroya__fail(err, OROYA_ERR_LIMIT,
                           "invalid JSON: arrays and objects nest deeper than %zu levels at byte "
                           "%zu",
                           limit, at);
    }
    return oroya__fail(err, OROYA_ERR_PARSE, "invalid JSON near byte %zu", at);
}
