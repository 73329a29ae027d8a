/* libFuzzer target: the scenario JSON of `oroya play` (../shared/oracle/FORMAT.md).
 *
 * The scenario reader exists only inside the CLI (tools/oroya/cmd_play.c, entry point
 * oroya_cmd_play(argc, argv), which reads a file path), so this target compiles the CLI's
 * play sources into itself and hands each input over as a file: a memfd, opened by path
 * through /proc/self/fd. Its stdout and stderr go to /dev/null (stdout/stderr are renamed
 * before the sources are included), so the fuzzer's own output and sanitizer reports stay
 * on fd 2. Each run is the whole pipeline: parse -> validate the scenario -> build the
 * scene, skins, clips and mixer -> step and record -> free.
 *
 * Inputs that ask for more than 512 steps are skipped: `steps` is a declared count that
 * oroya play honours up to 1e8 (docs/robustness.md), and long runs only slow the fuzzer. */
#define _GNU_SOURCE
#include <cjson/cJSON.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

static FILE *fuzz_null_out;
#undef stdout
#undef stderr
#define stdout fuzz_null_out
#define stderr fuzz_null_out
#include "../../tools/oroya/cmd_play.c"
#include "../../tools/oroya/play_format.c"
#undef stdout
#undef stderr

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int fuzz_fd = -1;
static char fuzz_path[64];

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    fuzz_null_out = fopen("/dev/null", "w");
    fuzz_fd = memfd_create("oroya-scenario", 0);
    snprintf(fuzz_path, sizeof fuzz_path, "/proc/self/fd/%d", fuzz_fd);
    return fuzz_null_out && fuzz_fd >= 0 ? 0 : 1;
}

/* true when the scenario asks for more steps than the fuzzer should spend time on. */
static int too_long(const uint8_t *data, size_t size) {
    cJSON *root = cJSON_ParseWithLength((const char *)data, size);
    if (!root) return 0;
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
    if (fuzz_fd < 0 || size > (1u << 20) || too_long(data, size)) return 0;
    if (ftruncate(fuzz_fd, 0) != 0 || pwrite(fuzz_fd, data, size, 0) != (ssize_t)size) abort();
    char *argv[] = {(char *)"play", fuzz_path, NULL};
    int rc = oroya_cmd_play(2, argv);
    if (rc != 0 && rc != 1) abort(); /* 2 is a usage error: never for a readable file */
    return 0;
}
