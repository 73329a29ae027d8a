/* libFuzzer target: data: URIs and base64. The input is the URI. It is decoded directly
 * (measure, then decode; both must agree) and through a glTF buffer that uses it. */
#include <stdio.h>

#include "fuzz_common.h"
#include "internal/gltf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size > 65536) {
        return 0;
    }
    char *uri = (char *)malloc(size + 1);
    if (!uri) {
        return 0;
    }
    memcpy(uri, data, size);
    uri[size] = '\0';
    size_t len = strlen(uri);

    size_t n = oroya__base64_decode(uri, len, NULL);
    if (n != SIZE_MAX) {
        uint8_t *out = (uint8_t *)malloc(n ? n : 1);
        if (out && oroya__base64_decode(uri, len, out) != n) {
            abort(); /* measuring and decoding disagree */
        }
        free(out);
    }
    const char *payload;
    size_t payload_len;
    oroya_error err;
    (void)oroya__data_uri_split(uri, &payload, &payload_len, &err, "uri");

    /* The same URI as buffer 0 of a file, JSON-escaped as \u00XX where needed. */
    char *json = (char *)malloc(len * 6 + 256);
    if (json) {
        size_t o =
            (size_t)sprintf(json, "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"uri\":\"");
        for (size_t i = 0; i < len; i++) {
            unsigned char c = (unsigned char)uri[i];
            if (c < 0x20 || c == '"' || c == '\\' || c >= 0x7f) {
                o += (size_t)sprintf(json + o, "\\u%04x", c);
            } else {
                json[o++] = (char)c;
            }
        }
        o += (size_t)sprintf(json + o, "\",\"byteLength\":%zu}]}", n == SIZE_MAX ? 1 : n);
        fuzz_pipeline((const uint8_t *)json, o);
        free(json);
    }
    free(uri);
    return 0;
}
