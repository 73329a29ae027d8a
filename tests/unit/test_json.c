/* oroya/json.h: the JSON text checks for readers built on liboroya. Each bad text is refused
 * with its code and a message that names the byte; good text passes with its NUL padding cut
 * off; a parse failure is described as nesting too deep only when the text up to it is. */
#include <cjson/cJSON.h>
#include <string.h>

#include "oroya/json.h"
#include "oroya_test.h"

static void test_text_check(void) {
    oroya_error err = {0};
    size_t n = 0;
    static const char padded[] = "{\"a\": \"\xc3\xa9\"}\0\0"; /* U+00E9, then two NUL bytes */
    OT_EQ_INT(oroya_json_text_check(padded, sizeof padded - 1, &n, &err), OROYA_OK);
    OT_EQ_INT((int)n, (int)strlen(padded));
    static const char nul[] = "{\"na\0me\": 1}";
    OT_EQ_INT(oroya_json_text_check(nul, sizeof nul - 1, &n, &err), OROYA_ERR_PARSE);
    OT_CHECK_MSG(!strcmp(err.message, "invalid JSON: a NUL byte at byte 4"), "%s", err.message);
    static const char overlong[] = "[\"\xc0\xaf\"]"; /* '/' in two bytes */
    OT_EQ_INT(oroya_json_text_check(overlong, strlen(overlong), &n, &err), OROYA_ERR_PARSE);
    OT_CHECK_MSG(!strcmp(err.message, "invalid JSON: invalid UTF-8 at byte 2"), "%s", err.message);
    static const char surrogate[] = "[\"\xed\xa0\x80\"]"; /* U+D800 */
    OT_EQ_INT(oroya_json_text_check(surrogate, strlen(surrogate), &n, NULL), OROYA_ERR_PARSE);
    OT_EQ_INT(oroya_json_text_check(NULL, 0, &n, &err), OROYA_ERR_INVALID_ARGUMENT);
    OT_EQ_INT(oroya_json_text_check("{}", 2, NULL, &err), OROYA_ERR_INVALID_ARGUMENT);
    OT_CHECK(strstr(err.message, "json_len") != NULL);
}

/* What cJSON leaves at a failure, turned into the error. */
static oroya_result describe(const char *text, oroya_error *err) {
    const char *end = NULL;
    size_t len = strlen(text);
    cJSON *root = cJSON_ParseWithLengthOpts(text, len, &end, 0);
    OT_CHECK(root == NULL);
    cJSON_Delete(root);
    return oroya_json_failure_describe(text, len, end ? (size_t)(end - text) : 0,
                                       CJSON_NESTING_LIMIT, err);
}

static void test_failure_describe(void) {
    oroya_error err = {0};
    char deep[CJSON_NESTING_LIMIT + 8];
    memset(deep, '[', sizeof deep - 1);
    deep[sizeof deep - 1] = '\0';
    OT_EQ_INT(describe(deep, &err), OROYA_ERR_LIMIT);
    OT_CHECK_MSG(strstr(err.message, "nest deeper than 1000 levels at byte") != NULL, "%s",
                 err.message);
    /* Deep, but the syntax error comes first: a parse error. */
    char late[CJSON_NESTING_LIMIT + 16] = "[1,,";
    memset(late + 4, '[', sizeof late - 5);
    late[sizeof late - 1] = '\0';
    OT_EQ_INT(describe(late, &err), OROYA_ERR_PARSE);
    OT_CHECK_MSG(!strcmp(err.message, "invalid JSON near byte 3"), "%s", err.message);
    /* Brackets inside strings do not count. */
    char quoted[CJSON_NESTING_LIMIT + 16] = "[\"";
    memset(quoted + 2, '[', sizeof quoted - 6);
    strcpy(quoted + sizeof quoted - 4, "\",}");
    OT_EQ_INT(describe(quoted, &err), OROYA_ERR_PARSE);
    OT_EQ_INT(oroya_json_failure_describe("{", 1, 1, 1000, NULL), OROYA_ERR_PARSE);
}

int main(void) {
    OT_RUN(test_text_check);
    OT_RUN(test_failure_describe);
    return ot_finish();
}
