/* oroya/json.h - checks for JSON text from strangers, for code that parses JSON with cJSON
 * on top of liboroya as the glTF reader does (the scenario runner of `oroya play` uses them).
 *
 * What it does: oroya_json_text_check refuses what cJSON would misread (a raw NUL byte, which
 * cJSON takes for whitespace or the end of a string; the escape \u0000, which cuts the string
 * for C; text that is not UTF-8, RFC 8259 section 8.1); oroya_json_failure_describe turns
 * cJSON's failure position into the error the glTF reader gives (nesting too deep, or a
 * syntax error near a byte); oroya_json_values_check counts the values cJSON would make of
 * the text and refuses more than a limit before cJSON allocates one (cJSON's tree costs
 * about 80 bytes a value: 2 GiB of "{}," would be 715 million values, 57 GB).
 * What it does not do: parse. Neither function allocates; both are thread-safe.
 *
 * Example (given: const char *text, size_t len, size_t stop):
 *   oroya_error err = {0};
 *   size_t json_len = 0;
 *   if (oroya_json_text_check(text, len, &json_len, &err) != OROYA_OK ||
 *       oroya_json_values_check(text, json_len, 1 << 24, NULL, &err) != OROYA_OK)
 *       return;
 *   ... parse text[0..json_len) with cJSON; when it fails at byte `stop`:
 *   oroya_json_failure_describe(text, json_len, stop, 1000, &err);
 */
#ifndef OROYA_JSON_H
#define OROYA_JSON_H

#include <stddef.h>

#include "oroya/base.h"

#ifdef __cplusplus
extern "C" {
#endif
OROYA_API_BEGIN

/* Checks that text[0..len) has no raw NUL byte, no escaped one (\u0000, which cJSON writes
 * into the string, where C cuts it), and is well-formed UTF-8 (no overlong forms, no
 * surrogates, nothing past U+10FFFF). NUL bytes after the text (padding some writers
 * leave) are allowed: *json_len (not NULL) gets the length without them. On a bad byte
 * returns OROYA_ERR_PARSE and fills err (may be NULL) with "invalid JSON: a NUL byte at byte
 * N", "invalid JSON: an escaped NUL (U+0000) at byte N" or "invalid JSON: invalid UTF-8 at
 * byte N"; OROYA_ERR_INVALID_ARGUMENT when text or json_len is NULL. Never allocates. */
oroya_result oroya_json_text_check(const char *text, size_t len, size_t *json_len,
                                   oroya_error *err);

/* Counts the values in text[0..len) as cJSON makes them, one item each: every array,
 * object, string, number, true, false and null (an object's keys are not values: cJSON keeps
 * each in its value's item). For text cJSON accepts this is its item count; for text it
 * refuses, cJSON stops after at most two more. One pass, strings skipped; the text need not
 * be valid. *values (may be NULL) gets the count. More than max_values: OROYA_ERR_LIMIT,
 * err (may be NULL) "invalid JSON: N values, the limit is MAX"; OROYA_ERR_INVALID_ARGUMENT
 * when text is NULL and len is not 0. Never allocates. */
oroya_result oroya_json_values_check(const char *text, size_t len, size_t max_values,
                                     size_t *values, oroya_error *err);

/* The error of a JSON parse of text[0..len) that stopped at byte `at` (cJSON's
 * cJSON_GetErrorPtr or the return_parse_end of cJSON_ParseWithLengthOpts, as an offset):
 * OROYA_ERR_LIMIT, "invalid JSON: arrays and objects nest deeper than LIMIT levels at byte
 * N", when arrays and objects up to there nest deeper than `limit` (strings skipped; cJSON's
 * CJSON_NESTING_LIMIT); otherwise OROYA_ERR_PARSE, "invalid JSON near byte N". Returns the
 * code and fills err (may be NULL). Never allocates. */
oroya_result oroya_json_failure_describe(const char *text, size_t len, size_t at, size_t limit,
                                         oroya_error *err);

OROYA_API_END
#ifdef __cplusplus
}
#endif

#endif /* OROYA_JSON_H */
