/* oroya_scenario.h - the scenario runner behind `oroya play`: runs a scenario of the three.js
 * reference format (nodes, skins, clips, actions, script, steps, record; an optional "gltf"
 * model; docs/scenario.md) through oroya's mixer and returns the result format
 * (JSON text, one frame per line), so oroya can be compared with three.js number by number.
 *
 * Not part of liboroya: test and CLI tooling, the static library oroya_scenario built from
 * tools/scenario/ (not installed; docs/architecture.md). It uses only liboroya's public API
 * and cJSON; link it with liboroya and libcjson (CMake: target_link_libraries(x
 * oroya_scenario)). Everything the runner allocates itself, and the oroya
 * objects it creates (scene, clips, mixer, skeletons, skins, the glTF model), use the desc's
 * allocator. cJSON's own allocations (one per JSON value) go through its global hooks,
 * malloc/free unless the caller set them with cJSON_InitHooks; the library never sets them.
 *
 * Threading: independent runs may go on in parallel threads (cJSON's hooks are shared).
 *
 * Example (given: const char *json, size_t json_len):
 *   oroya_scenario_desc desc = {.base_dir = "scenarios"};
 *   char *text = NULL;
 *   size_t len = 0;
 *   oroya_error err = {0};
 *   if (oroya_scenario_run(json, json_len, &desc, &text, &len, &err) != OROYA_OK)
 *       fprintf(stderr, "%s\n", err.message);
 *   else
 *       fwrite(text, 1, len, stdout);
 *   oroya_scenario_free_output(&desc, text);
 */
#ifndef OROYA_SCENARIO_TOOL_H
#define OROYA_SCENARIO_TOOL_H

#include <stddef.h>
#include <stdint.h>

#include "oroya/base.h"
#include "oroya/gltf.h"

#ifdef __cplusplus
extern "C" {
#endif

/* "steps": {"count"} above this is refused. The dt of {fps, count} and {dt, count} is
 * computed per step (no array of count values), but each step still costs about 130 000
 * instructions and 81 bytes of result text without records (mostly writing the two times as
 * ECMAScript numbers), so 1e8 steps would run for most of an hour into 8 GB of text. 1e6
 * steps: about 30 s and 80 MB. */
#define OROYA_SCENARIO_MAX_STEPS 1000000.0

/* A scenario's text above this many bytes is refused (OROYA_ERR_LIMIT): the limit of a model
 * file, OROYA_GLTF_MAX_FILE_SIZE (2 GiB). `oroya play` applies it to a file and to stdin
 * while reading. */
#define OROYA_SCENARIO_MAX_SIZE OROYA_GLTF_MAX_FILE_SIZE

/* A scenario's JSON values (each array, object, string, number, true, false and null; keys
 * not counted) above this are refused (OROYA_ERR_LIMIT) before cJSON parses the text: a
 * model's limit, OROYA_GLTF_MAX_JSON_VALUES (16 777 216; cJSON's tree about 80 bytes a
 * value, so about 1.3 GB at most). `oroya plot` applies it to the scenarios it reads. */
#define OROYA_SCENARIO_MAX_JSON_VALUES OROYA_GLTF_MAX_JSON_VALUES

/* Which path the steps' mixer updates took (oroya_mixer_kernel_active after each). */
typedef struct oroya_scenario_stats {
    uint64_t updates;        /* mixer updates of the steps */
    uint64_t kernel_updates; /* of those, the ones that went through the pose kernel */
} oroya_scenario_stats;

typedef struct oroya_scenario_desc {
    const char *base_dir; /* a relative "gltf" path is resolved from here; NULL = "." */
    /* The "gltf" model file must lie in base_dir or its subfolders once "..", and symbolic
     * links are resolved (absolute paths too), or in this folder (NULL: none), else
     * OROYA_ERR_ACCESS naming "gltf" and the path. For a trusted tree of scenarios and
     * models (the conformance scenarios name "../../assets/..."). Not used with read_file,
     * which decides itself. */
    const char *allow_gltf_dir;
    oroya_allocator allocator; /* zero = malloc/free; see the top of this header for cJSON */
    /* Called with a one-line message for what the run accepted but the caller should know
     * (non-unit rotation keys normalized, naming the clip and track). NULL = ignored. */
    void (*on_warning)(const char *message, void *user);
    void *user;
    /* The "gltf" model's buffers may lie outside the model's folder (oroya_gltf_desc's
     * allow_outside_base_dir); false: refused with an error naming the URI. */
    bool allow_outside_base_dir;
    /* An application's reader (oroya_gltf_read_fn, called with read_user): when set it reads
     * the "gltf" model file itself (uri: the scenario's string; path: it joined to base_dir;
     * base_dir: the desc's, "." when NULL) and then every external URI of the model (base_dir:
     * the model's folder), and it decides what may be read: no confinement applies to it.
     * NULL: the model file is opened as oroya_gltf_load does (regular files only, never
     * blocking), and its URIs must stay in its folder unless allow_outside_base_dir. */
    oroya_gltf_read_fn read_file;
    void *read_user;
    /* NULL, or filled on success. */
    oroya_scenario_stats *stats;
} oroya_scenario_desc;

/* Runs the scenario in json[0..len) (need not be NUL-terminated). On success *out is the
 * whole result text, NUL-terminated, *out_len its length without the NUL, allocated from the
 * desc's allocator: free it with oroya_scenario_free_output. On failure *out is NULL and err
 * (may be NULL) names the JSON path of the offending value:
 *   OROYA_ERR_INVALID_ARGUMENT  json, desc, out or out_len NULL;
 *   OROYA_ERR_PARSE             not JSON (the message gives the byte offset), a raw NUL
 *                               byte, or text that is not UTF-8;
 *   OROYA_ERR_LIMIT             len over OROYA_SCENARIO_MAX_SIZE (nothing is read), more
 *                               than OROYA_SCENARIO_MAX_JSON_VALUES JSON values (counted
 *                               before cJSON allocates anything), arrays and objects nested
 *                               deeper than 1000 levels;
 *   OROYA_ERR_INVALID_DATA      a scenario docs/scenario.md does not allow, or one oroya refuses
 *                               (a NaN/infinite/negative dt: mixer deviation 1; a glTF file
 *                               that does not load);
 *   OROYA_ERR_ACCESS            the "gltf" path leads outside base_dir and allow_gltf_dir;
 *   OROYA_ERR_OUT_OF_MEMORY     an allocation failed (nothing is leaked). */
oroya_result oroya_scenario_run(const char *json, size_t len, const oroya_scenario_desc *desc,
                                char **out, size_t *out_len, oroya_error *err);

/* The confinement of a scenario's "gltf" (what oroya_scenario_run applies; `oroya plot` uses
 * it too): `path` (the "gltf" string joined to the scenario's folder) is resolved ("..",
 * symbolic links). Returns 1 when it lies in `base_dir` (NULL: ".") or `allow_dir` (NULL:
 * none), subfolders included; 0 when it leads outside; -1 when it does not resolve or is a
 * folder (errno set: EISDIR for a folder, such as "." or ""). *real is the resolved path (malloc'd, free() it) on 1 and 0, NULL on -1: open that,
 * so no link on the way can be swapped after the check. */
int oroya_scenario_gltf_inside(const char *base_dir, const char *allow_dir, const char *path,
                               char **real);

/* Frees a result of oroya_scenario_run with the same desc's allocator. NULL is ignored. */
void oroya_scenario_free_output(const oroya_scenario_desc *desc, char *out);

#ifdef __cplusplus
}
#endif

#endif /* OROYA_SCENARIO_TOOL_H */
