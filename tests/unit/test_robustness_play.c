/* Robustness of `oroya play`'s scenario loader: every allocation play makes itself failed in
 * turn, on scenarios covering nodes, skins, clips of several interpolations, additive clips,
 * actions, script and records; and cJSON's allocations (one per JSON value, so thousands)
 * failed at the first, second, middle and last. Each failing run must exit 1 and free
 * everything (play's blocks and cJSON's).
 *
 * The scenario reader lives only inside the CLI (tools/oroya/cmd_play.c) and takes no
 * allocator, so this program compiles the CLI's play sources into itself with malloc,
 * calloc, realloc and free renamed to the counting heap, and points cJSON's hooks at the
 * same heap. The oroya objects play creates (scene, clips, mixer) allocate through the
 * library's default allocator; their own failure paths are covered by test_robustness and
 * test_robustness_mixer. stdout and stderr of the CLI go to /dev/null. */
#define _POSIX_C_SOURCE 200809L
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_robustness_common.h"

static rb_heap play_heap, json_heap;

static void *play_malloc(size_t n) { return rb_alloc(n ? n : 1, 16, &play_heap); }
static void *play_calloc(size_t c, size_t n) {
    if (n && c > SIZE_MAX / n) return NULL;
    size_t bytes = c * n;
    void *p = play_malloc(bytes);
    if (p && bytes > 0) memset(p, 0, bytes);
    return p;
}
static void play_free(void *p) { rb_free(p, &play_heap); }
static void *play_realloc(void *old, size_t n) {
    if (!old) return play_malloc(n);
    uint64_t words[3];
    memcpy(words, (unsigned char *)old - sizeof words, sizeof words);
    void *p = play_malloc(n);
    if (!p) return NULL; /* the old block stays, as realloc's contract says */
    memcpy(p, old, words[2] < n ? (size_t)words[2] : n);
    play_free(old);
    return p;
}
/* cJSON's blocks come from their own heap so that they can be failed separately. */
static void *cjson_malloc(size_t n) { return rb_alloc(n ? n : 1, 16, &json_heap); }
static void cjson_free(void *p) { rb_free(p, &json_heap); }

static FILE *play_null;

#define malloc play_malloc
#define calloc play_calloc
#define realloc play_realloc
#define free play_free
#undef stdout
#undef stderr
#define stdout play_null
#define stderr play_null
#include "../../tools/oroya/cmd_play.c"
#include "../../tools/oroya/play_format.c"
#undef stdout
#undef stderr
#undef malloc
#undef calloc
#undef realloc
#undef free

static int run_play(const char *path, long play_fail_at, long json_fail_at) {
    rb_reset(&play_heap, play_fail_at);
    rb_reset(&json_heap, json_fail_at);
    char *argv[] = {(char *)"play", (char *)(uintptr_t)path, NULL};
    return oroya_cmd_play(2, argv);
}

static bool clean_after(const char *name, const char *which, long n, int rc) {
    OT_CHECK_MSG(play_heap.live == 0 && json_heap.live == 0,
                 "%s: %s allocation #%ld refused: %ld + %ld blocks leaked", name, which, n,
                 play_heap.live, json_heap.live);
    OT_CHECK_MSG(play_heap.bad_frees == 0 && json_heap.bad_frees == 0, "%s: #%ld: bad frees",
                 name, n);
    OT_CHECK_MSG(rc == 1, "%s: %s allocation #%ld refused: exit %d", name, which, n, rc);
    return play_heap.live == 0 && json_heap.live == 0;
}

static void fail_each(const char *path) {
    const char *name = strrchr(path, '/') + 1;
    OT_EQ_INT(run_play(path, 0, 0), 0);
    const long own = play_heap.calls, json = json_heap.calls;
    OT_CHECK(own > 10 && json > 10);
    for (long n = 1; n <= own; n++) {
        if (!clean_after(name, "play", n, run_play(path, n, 0))) break;
    }
    const long picks[4] = {1, 2, json / 2, json};
    for (int k = 0; k < 4; k++) clean_after(name, "cJSON", picks[k], run_play(path, 0, picks[k]));
    printf("  %s: %ld allocations of play's own, each failed in turn; %ld of cJSON, 4 failed\n",
           name, own, json);
}

static void test_fault_play(void) {
    /* Four scenarios: every failing run near the end replays the whole script, and the
     * suite also runs under valgrind. */
    static const char *const scenarios[] = {
        OROYA_SOURCE_DIR "/tests/fuzz/scenario_seeds/a_bounce.json",
        OROYA_SOURCE_DIR "/tests/fuzz/scenario_seeds/e_additive_ref_cubic.json",
        OROYA_SOURCE_DIR "/tests/fuzz/scenario_seeds/g_skeleton.json",
        OROYA_SOURCE_DIR "/tests/conformance/gltf/simple_skin.json", /* a glTF scenario */
    };
    for (size_t i = 0; i < sizeof scenarios / sizeof scenarios[0]; i++) fail_each(scenarios[i]);
}

int main(void) {
    play_null = fopen("/dev/null", "w");
    if (!play_null) return 1;
    cJSON_Hooks hooks = {cjson_malloc, cjson_free};
    cJSON_InitHooks(&hooks);
    RB_RUN(test_fault_play);
    cJSON_InitHooks(NULL);
    fclose(play_null);
    return ot_finish();
}
