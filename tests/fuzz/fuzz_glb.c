/* libFuzzer target: GLB containers. The input always gets the "glTF" magic, so the fuzzer
 * spends its time on the header, chunk table and the JSON and BIN inside. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    uint8_t *copy = (uint8_t *)malloc(size + 4);
    if (!copy) {
        return 0;
    }
    if (size >= 4 && memcmp(data, "glTF", 4) == 0) {
        memcpy(copy, data, size);
    } else {
        memcpy(copy, "glTF", 4);
        if (size) {
            memcpy(copy + 4, data, size);
        }
        size += 4;
    }
    fuzz_pipeline(copy, size);
    free(copy);
    return 0;
}
