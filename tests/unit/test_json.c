/* oroya/json.h: the JSON text checks for readers built on liboroya. Each bad text is refused
 * with its code and a message that names the byte; good text passes with its NUL padding cut
 * off; a parse failure is described as nesting too deep only when the text up to it is. */
#include <cjson/cJSON.h>
#include <stdio.h>
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

/* The items of cJSON's tree: the count oroya_json_values_check must give for text cJSON
 * accepts (its keys live in the items, not in items of their own). */
static size_t cjson_items(const cJSON *v) {
    size_t n = 1;
    for (const cJSON *c = v->child; c; c = c->next) {
        n += cjson_items(c);
    }
    return n;
}

static void test_values_check(void) {
    static const char *const texts[] = {
        "{}",
        "[]",
        "0",
        "\"s\"",
        " [ 1 , -2.5e+3 , true , false , null ] ",
        "{\"a\":[1,2,{\"b\":null}],\"c\":\"x\"}",
        "{\"a\" : {\"b\" :\t{\"c\"\n:\r[]}}, \"d\": \"e\"}",
        /* Escapes: quotes and backslashes inside strings, brackets and colons in them too. */
        "[\"a\\\"b\", \"c\\\\\", \"d\\\\\\\"e\", \"[{:,}]\", \"\\u0041\"]",
        "{\"k\\\":\":\"v\\\\\",\"\\\\\":[\"\\\\\\\\\"]}",
        "[[[[[[[[[[1]]]]]]]]]]",
        "{\"a\":{},\"b\":[],\"c\":[{}],\"d\":[[],[]]}",
        "[\"\xc3\xa9\", 1e300, -0, 0.5]",
    };
    oroya_error err = {0};
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
        const char *t = texts[i];
        cJSON *root = cJSON_Parse(t);
        OT_CHECK_MSG(root != NULL, "cJSON refused text %zu: %s", i, t);
        if (!root) {
            continue;
        }
        size_t want = cjson_items(root), got = 0;
        cJSON_Delete(root);
        OT_EQ_INT(oroya_json_values_check(t, strlen(t), want, &got, &err), OROYA_OK);
        OT_CHECK_MSG(got == want, "text %zu (%s): %zu values, cJSON made %zu items", i, t, got,
                     want);
        /* One fewer allowed: refused, naming both numbers. */
        OT_EQ_INT(oroya_json_values_check(t, strlen(t), want - 1, &got, &err), OROYA_ERR_LIMIT);
        char msg[96];
        snprintf(msg, sizeof msg, "invalid JSON: %zu values, the limit is %zu", want, want - 1);
        OT_CHECK_MSG(!strcmp(err.message, msg), "%s", err.message);
    }
    /* Text cJSON refuses still gets a count (it bounds what cJSON makes before it stops). */
    size_t got = 0;
    OT_EQ_INT(oroya_json_values_check("[1,,2", 5, 10, &got, &err), OROYA_OK);
    OT_EQ_INT((int)got, 3);
    OT_EQ_INT(oroya_json_values_check("[\"a\":1]", 7, 10, &got, &err), OROYA_OK);
    OT_EQ_INT((int)got, 2); /* "a" taken for a key: cJSON stops at the colon, 2 items */
    OT_EQ_INT(oroya_json_values_check("[\"unterminated", 14, 10, &got, &err), OROYA_OK);
    OT_EQ_INT((int)got, 2);
    OT_EQ_INT(oroya_json_values_check("", 0, 0, &got, &err), OROYA_OK);
    OT_EQ_INT((int)got, 0);
    OT_EQ_INT(oroya_json_values_check(NULL, 0, 0, &got, &err), OROYA_OK);
    OT_EQ_INT(oroya_json_values_check(NULL, 1, 0, &got, &err), OROYA_ERR_INVALID_ARGUMENT);
    OT_EQ_INT(oroya_json_values_check("[1]", 3, 1, NULL, NULL), OROYA_ERR_LIMIT);
}

int main(void) {
    OT_RUN(test_text_check);
    OT_RUN(test_failure_describe);
    OT_RUN(test_values_check);
    return ot_finish();
}
