/* libFuzzer target: the scenario JSON of `oroya play` (docs/scenario.md), through
 * the function behind it, oroya_scenario_run (tools/scenario/oroya_scenario.h). Each run is the
 * whole pipeline: parse -> validate the scenario -> build the scene, skins, clips and mixer
 * -> step and record -> free. A "gltf" key resolves from the directory in the environment
 * variable OROYA_FUZZ_GLTF_DIR (default: the working directory).
 *
 * Inputs that ask for more than 512 steps are skipped: `steps` is a declared count that
 * oroya play honours up to 1e6 (computed per step, so time, not memory), and long runs only
 * slow the fuzzer. */
#include <cjson/cJSON.h>
#include <stdint.h>
#include <stdlib.h>

#include "oroya_scenario.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* true when the scenario asks for more steps than the fuzzer should spend time on. */
static int too_long(const uint8_t *data, size_t size) {
    cJSON *root = cJSON_ParseWithLength((const char *)data, size);
    if (!root)
        return 0;
    int skip = 0;
    const cJSON *steps = cJSON_GetObjectItemCaseSensitive(root, "steps");
    if (cJSON_IsArray(steps)) {
        skip = cJSON_GetArraySize(steps) > 512;
    } else if (cJSON_IsObject(steps)) {
        const cJSON *count = cJSON_GetObjectItemCaseSensitive(steps, "count");
        skip = cJSON_IsNumber(count) && count->valuedouble > 512;
    }
    cJSON_Delete(root);
    return skip;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size > (1u << 20) || too_long(data, size))
        return 0;
    const char *dir = getenv("OROYA_FUZZ_GLTF_DIR");
    oroya_scenario_desc desc = {.base_dir = dir ? dir : "."};
    char *out = NULL;
    size_t len = 0;
    oroya_error err = {0};
    oroya_result r = oroya_scenario_run((const char *)data, size, &desc, &out, &len, &err);
    /* Success gives text, failure a message and no text; anything else is a bug. */
    if (r == OROYA_OK ? !out || len == 0 : out != NULL || !err.message[0])
        abort();
    oroya_scenario_free_output(&desc, out);
    return 0;
}
