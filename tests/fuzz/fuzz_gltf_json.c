/* libFuzzer target: glTF JSON text through parse, load_buffers, validate and decoding. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_pipeline(data, size);
    return 0;
}
