/* Files from strangers: every index checked whatever the channel path, external URIs kept
 * inside the model's folder, FIFOs and directories never opened for reading, memory bounded
 * by the file's size, and JSON that is not JSON refused. The attack files are written here;
 * docs/robustness.md lists the rules. */
#define _GNU_SOURCE
#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "oroya/gltf.h"
#include "oroya/json.h"
#include "oroya_test.h"
#include "test_robustness_common.h"

#define TMP OROYA_BINARY_DIR "/test_robustness_untrusted_tmp"

static char *fmt(const char *f, ...) __attribute__((format(printf, 1, 2)));
static char *fmt(const char *f, ...) {
    va_list ap;
    va_start(ap, f);
    int n = vsnprintf(NULL, 0, f, ap);
    va_end(ap);
    char *s = malloc((size_t)n + 1);
    va_start(ap, f);
    vsnprintf(s, (size_t)n + 1, f, ap);
    va_end(ap);
    return s;
}

static void write_file(const char *path, const void *data, size_t n) {
    FILE *f = fopen(path, "wb");
    OT_CHECK(f != NULL);
    if (f) {
        OT_CHECK(fwrite(data, 1, n, f) == n);
        fclose(f);
    }
}

static void write_text(const char *path, const char *text) { write_file(path, text, strlen(text)); }

/* parse_file + validate with `desc`; *out is NULL on failure. */
static oroya_result load(const oroya_gltf_desc *desc, const char *path, oroya_gltf_data **out,
                         oroya_error *err) {
    oroya_result r = oroya_gltf_parse_file(desc, path, out, err);
    if (r == OROYA_OK) {
        r = oroya_gltf_validate(*out, err);
        if (r != OROYA_OK) {
            oroya_gltf_free(*out);
            *out = NULL;
        }
    }
    return r;
}

static oroya_result load_json(const char *json, size_t n, oroya_error *err) {
    oroya_gltf_data *g = NULL;
    oroya_result r = oroya_gltf_parse(&(oroya_gltf_desc){.base_dir = TMP "/"}, json, n, &g, err);
    if (r == OROYA_OK) {
        r = oroya_gltf_load_buffers(g, err);
    }
    if (r == OROYA_OK) {
        r = oroya_gltf_validate(g, err);
    }
    oroya_gltf_free(g);
    return r;
}

#define HEAD "{\"asset\":{\"version\":\"2.0\"},"
/* Two key times {0, 1} in a data: URI ("AAAAAAAAgD8=" is 0.0f, 1.0f little-endian). */
#define TIMES_BUF                                                                                  \
    "\"buffers\":[{\"uri\":\"data:application/octet-stream;base64,AAAAAAAAgD8=\","                 \
    "\"byteLength\":8}],\"bufferViews\":[{\"buffer\":0,\"byteLength\":8}],"                        \
    "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":2,\"type\":\"SCALAR\"}],"

/* ---- every index is checked ------------------------------------------------------------- */

/* A channel with a path oroya does not animate ("pointer", from KHR_animation_pointer) is
 * ignored, but its node index is still checked: readers such as `oroya info` name it. */
static void test_unknown_path_node_checked(void) {
    const char *json =
        HEAD TIMES_BUF "\"nodes\":[{}],\"animations\":[{\"samplers\":[{\"input\":0,"
                       "\"output\":0}],\"channels\":[{\"sampler\":0,\"target\":{\"node\":1000000,"
                       "\"path\":\"pointer\"}}]}]}";
    oroya_error err = {0};
    oroya_result r = load_json(json, strlen(json), &err);
    OT_CHECK_MSG(r == OROYA_ERR_OUT_OF_RANGE, "got %s (%s)", oroya_result_string(r), err.message);
    OT_CHECK_MSG(strstr(err.message, "animations[0].channels[0].target.node: index 1000000") !=
                     NULL,
                 "%s", err.message);
    /* The same channel on node 0 is fine (and ignored). */
    const char *ok =
        HEAD TIMES_BUF "\"nodes\":[{}],\"animations\":[{\"samplers\":[{\"input\":0,"
                       "\"output\":0}],\"channels\":[{\"sampler\":0,\"target\":{\"node\":0,"
                       "\"path\":\"pointer\"}}]}]}";
    r = load_json(ok, strlen(ok), &err);
    OT_CHECK_MSG(r == OROYA_OK, "got %s (%s)", oroya_result_string(r), err.message);
}

/* Import counts the channels it ignores (an unknown path, no node) and names the first, so
 * tools can warn (the CLI does); their keys do not count toward the clip's duration. */
static void test_ignored_channels_counted(void) {
    /* Times {0, 1} and two scales, {1,1,1} and {2,2,2}. */
    const char *json =
        HEAD "\"buffers\":[{\"uri\":\"data:application/octet-stream;base64,"
             "AAAAAAAAgD8AAIA/AACAPwAAgD8AAABAAAAAQAAAAEA=\",\"byteLength\":32}],"
             "\"bufferViews\":[{\"buffer\":0,\"byteLength\":8},{\"buffer\":0,\"byteOffset\":8,"
             "\"byteLength\":24}],\"accessors\":[{\"bufferView\":0,\"componentType\":5126,"
             "\"count\":2,\"type\":\"SCALAR\",\"min\":[0],\"max\":[1]},{\"bufferView\":1,"
             "\"componentType\":5126,\"count\":2,\"type\":\"VEC3\"}],"
             "\"nodes\":[{}],\"animations\":[{\"samplers\":[{\"input\":0,"
             "\"output\":1}],\"channels\":[{\"sampler\":0,\"target\":{\"node\":0,"
             "\"path\":\"scale\"}}]},{\"samplers\":[{\"input\":0,\"output\":1}],"
             "\"channels\":[{\"sampler\":0,\"target\":{\"path\":\"rotation\"}},"
             "{\"sampler\":0,\"target\":{\"node\":0,\"path\":\"pointer\"}}]}]}";
    oroya_gltf_data *g = NULL;
    oroya_gltf_model *m = NULL;
    oroya_error err = {0};
    oroya_result r =
        oroya_gltf_parse(&(oroya_gltf_desc){.base_dir = TMP "/"}, json, strlen(json), &g, &err);
    if (r == OROYA_OK)
        r = oroya_gltf_load_buffers(g, &err);
    if (r == OROYA_OK)
        r = oroya_gltf_validate(g, &err);
    if (r == OROYA_OK)
        r = oroya_gltf_import(g, &(oroya_gltf_import_desc){0}, &m, &err);
    OT_CHECK_MSG(r == OROYA_OK, "got %s (%s)", oroya_result_string(r), err.message);
    if (m) {
        OT_EQ_INT(m->ignored_channel_count, 2);
        OT_EQ_INT(m->first_ignored_animation, 1);
        OT_EQ_INT(m->first_ignored_channel, 0);
        OT_CHECK(!m->first_ignored_unknown_path); /* the first has no node */
        OT_EQ_INT(m->clip_count, 2);
        OT_CHECK(m->clips[0]->duration == 1.0f);
        OT_EQ_INT(m->clips[1]->track_count, 0);
        OT_CHECK(m->clips[1]->duration == 0.0f);
    }
    oroya_gltf_model_free(m);
    oroya_gltf_free(g);
}

/* ---- files stay in their folder ---------------------------------------------------------- */

/* TMP/model/m.gltf with one 8-byte buffer at `uri`. */
static char *model_with_uri(const char *uri) {
    char *json = fmt(HEAD "\"buffers\":[{\"uri\":\"%s\",\"byteLength\":8}]}", uri);
    char *path = fmt("%s", TMP "/model/m.gltf");
    write_text(path, json);
    free(json);
    return path;
}

static void test_uris_stay_in_folder(void) {
    mkdir(TMP "/model", 0755);
    mkdir(TMP "/model/sub", 0755);
    mkdir(TMP "/outside", 0755);
    write_text(TMP "/outside/secret.bin", "12345678");
    write_text(TMP "/model/sub/in.bin", "12345678");
    char *abs_secret = realpath(TMP "/outside/secret.bin", NULL);
    unlink(TMP "/model/link.bin");
    OT_CHECK(symlink(abs_secret, TMP "/model/link.bin") == 0);
    unlink(TMP "/model/linkdir");
    OT_CHECK(symlink("../outside", TMP "/model/linkdir") == 0);
    char *abs_uri = fmt("%s", abs_secret);
    const char *refused[] = {"../outside/secret.bin",
                             "%2e%2e/outside/secret.bin",
                             "%2E%2E%2Foutside%2Fsecret.bin",
                             "sub/../../outside/secret.bin",
                             "link.bin",
                             "linkdir/secret.bin",
                             abs_uri};
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        char *path = model_with_uri(refused[i]);
        oroya_gltf_data *g = NULL;
        oroya_error err = {0};
        oroya_result r = load(NULL, path, &g, &err);
        OT_CHECK_MSG(r == OROYA_ERR_ACCESS, "%s: got %s (%s)", refused[i], oroya_result_string(r),
                     err.message);
        OT_CHECK_MSG(strstr(err.message, "buffers[0]") && strstr(err.message, refused[i]),
                     "%s: message \"%s\"", refused[i], err.message);
        OT_CHECK(g == NULL);
        /* The application may allow it. */
        r = load(&(oroya_gltf_desc){.allow_outside_base_dir = true}, path, &g, &err);
        OT_CHECK_MSG(r == OROYA_OK, "%s allowed: got %s (%s)", refused[i], oroya_result_string(r),
                     err.message);
        OT_CHECK(g && g->buffers[0].data && !memcmp(g->buffers[0].data, "12345678", 8));
        oroya_gltf_free(g);
        free(path);
    }
    /* Outside and missing, or a device, or under a missing folder: the same refusal as for a
     * file that is there (confinement before the open tells nothing about the outside). */
    const char *missing[] = {"../outside/no_such.bin",
                             "../no_dir/x.bin",
                             "sub/../../outside/no_such.bin",
                             "nope/../../outside/no_such.bin",
                             "../../../../../../../../../dev/null",
                             "linkdir/no_such.bin"};
    for (size_t i = 0; i < sizeof missing / sizeof missing[0]; i++) {
        char *path = model_with_uri(missing[i]);
        oroya_gltf_data *g = NULL;
        oroya_error err = {0};
        oroya_result r = load(NULL, path, &g, &err);
        OT_CHECK_MSG(r == OROYA_ERR_ACCESS, "%s: got %s (%s)", missing[i], oroya_result_string(r),
                     err.message);
        OT_CHECK_MSG(strstr(err.message, "leads outside the model's folder") &&
                         !strstr(err.message, "No such file") && !strstr(err.message, "device"),
                     "%s: message \"%s\"", missing[i], err.message);
        free(path);
    }
    /* Inside the folder, through "." and a sub folder's "..", is fine. */
    const char *inside[] = {"sub/in.bin", "./sub/../sub/in.bin", "sub%2Fin.bin"};
    for (size_t i = 0; i < sizeof inside / sizeof inside[0]; i++) {
        char *path = model_with_uri(inside[i]);
        oroya_gltf_data *g = NULL;
        oroya_error err = {0};
        oroya_result r = load(NULL, path, &g, &err);
        OT_CHECK_MSG(r == OROYA_OK, "%s: got %s (%s)", inside[i], oroya_result_string(r),
                     err.message);
        oroya_gltf_free(g);
        free(path);
    }
    /* oroya_gltf_load passes the import desc's option on. */
    char *path = model_with_uri("../outside/secret.bin");
    oroya_gltf_model *m = NULL;
    oroya_error err = {0};
    OT_EQ_INT(oroya_gltf_load(path, NULL, &m, &err), OROYA_ERR_ACCESS);
    OT_EQ_INT(
        oroya_gltf_load(path, &(oroya_gltf_import_desc){.allow_outside_base_dir = true}, &m, &err),
        OROYA_OK);
    oroya_gltf_model_free(m);
    free(path);
    free(abs_uri);
    free(abs_secret);
}

/* A FIFO, a device or a directory is refused at once (without O_NONBLOCK and the type
 * check, opening the FIFO waits for a writer forever; alarm() turns that into a failure). */
static void test_special_files_do_not_block(void) {
    mkdir(TMP "/model", 0755);
    unlink(TMP "/model/fifo.bin");
    OT_CHECK(mkfifo(TMP "/model/fifo.bin", 0644) == 0);
    unlink(TMP "/model/fifo.gltf");
    OT_CHECK(mkfifo(TMP "/model/fifo.gltf", 0644) == 0);
    unlink(TMP "/model/zero.bin");
    OT_CHECK(symlink("/dev/zero", TMP "/model/zero.bin") == 0);
    mkdir(TMP "/model/dir.bin", 0755);
    alarm(20);
    const char *uris[] = {"fifo.bin", "zero.bin", "dir.bin"};
    const char *kind[] = {"a FIFO", "a device", "a directory"};
    for (size_t i = 0; i < 3; i++) {
        char *path = model_with_uri(uris[i]);
        oroya_gltf_data *g = NULL;
        oroya_error err = {0};
        /* allowed outside, so the device behind the link is reached and refused for its type */
        oroya_result r = load(&(oroya_gltf_desc){.allow_outside_base_dir = true}, path, &g, &err);
        OT_CHECK_MSG(r == OROYA_ERR_IO, "%s: got %s (%s)", uris[i], oroya_result_string(r),
                     err.message);
        OT_CHECK_MSG(strstr(err.message, "is not a regular file") && strstr(err.message, kind[i]),
                     "%s: %s", uris[i], err.message);
        free(path);
    }
    const char *files[] = {TMP "/model/fifo.gltf", "/dev/zero", TMP "/model/dir.bin"};
    for (size_t i = 0; i < 3; i++) {
        oroya_gltf_data *g = NULL;
        oroya_error err = {0};
        oroya_result r = oroya_gltf_parse_file(NULL, files[i], &g, &err);
        OT_CHECK_MSG(r == OROYA_ERR_IO && strstr(err.message, "is not a regular file"),
                     "%s: got %s (%s)", files[i], oroya_result_string(r), err.message);
    }
    alarm(0);
}

/* A missing .gltf and a missing .bin are both NOT_FOUND, with the C library's reason; a file
 * that exists but cannot be read is IO. */
static void test_missing_files_consistent(void) {
    oroya_gltf_data *g = NULL;
    oroya_error err = {0};
    OT_EQ_INT(oroya_gltf_parse_file(NULL, TMP "/no_such.gltf", &g, &err), OROYA_ERR_NOT_FOUND);
    OT_CHECK_MSG(strstr(err.message, "no_such.gltf") &&
                     strstr(err.message, "No such file or directory"),
                 "%s", err.message);
    char *path = model_with_uri("no_such.bin");
    OT_EQ_INT(oroya_gltf_parse_file(NULL, path, &g, &err), OROYA_ERR_NOT_FOUND);
    OT_CHECK_MSG(strstr(err.message, "buffers[0]: cannot open \"no_such.bin\": No such file"), "%s",
                 err.message);
    free(path);
    if (geteuid() != 0) { /* root reads anything */
        write_text(TMP "/model/locked.bin", "12345678");
        chmod(TMP "/model/locked.bin", 0);
        path = model_with_uri("locked.bin");
        OT_EQ_INT(oroya_gltf_parse_file(NULL, path, &g, &err), OROYA_ERR_IO);
        OT_CHECK_MSG(strstr(err.message, "Permission denied"), "%s", err.message);
        free(path);
    }
}

/* ---- memory stays bounded by the file ---------------------------------------------------- */

/* The counting heap, refusing any allocation that would take the live total past
 * `cap_bytes`: an import that grows with nodes x targets fails (OUT_OF_MEMORY) instead of
 * taking the machine's memory, and the test sees that as a failure. */
static size_t cap_bytes;
static void *capped_alloc(size_t size, size_t align, void *user) {
    rb_heap *h = (rb_heap *)user;
    if (h->live_bytes + size > cap_bytes) {
        h->calls++;
        h->refused++;
        return NULL;
    }
    return rb_alloc(size, align, user);
}

/* Growable text for the generated files. */
typedef struct text {
    char *s;
    size_t n, cap;
} text;

static void put(text *t, const char *f, ...) __attribute__((format(printf, 2, 3)));
static void put(text *t, const char *f, ...) {
    va_list ap;
    va_start(ap, f);
    int n = vsnprintf(NULL, 0, f, ap);
    va_end(ap);
    if (t->n + (size_t)n + 1 > t->cap) {
        t->cap = (t->n + (size_t)n + 1) * 2;
        t->s = realloc(t->s, t->cap);
    }
    va_start(ap, f);
    vsnprintf(t->s + t->n, (size_t)n + 1, f, ap);
    va_end(ap);
    t->n += (size_t)n;
}

/* Parse, load, validate and import `json` with the capped counting heap. The stated bound:
 * the peak stays under OROYA_GLTF_MAX_UNBACKED_BYTES (the import's fixed allowance) plus 64
 * times the file's size, and the import either works or stops with OROYA_ERR_LIMIT. */
static void check_bounded(const char *name, const text *json) {
    rb_heap h;
    rb_reset(&h, 0);
    cap_bytes = (size_t)512 << 20;
    oroya_allocator a = {capped_alloc, rb_free, &h};
    oroya_error err = {0};
    oroya_gltf_data *g = NULL;
    oroya_result r =
        oroya_gltf_parse(&(oroya_gltf_desc){.allocator = a}, json->s, json->n, &g, &err);
    if (r == OROYA_OK) {
        r = oroya_gltf_load_buffers(g, &err);
    }
    if (r == OROYA_OK) {
        r = oroya_gltf_validate(g, &err);
    }
    OT_CHECK_MSG(r == OROYA_OK, "%s: %s (%s)", name, oroya_result_string(r), err.message);
    oroya_gltf_model *m = NULL;
    if (r == OROYA_OK) {
        r = oroya_gltf_import(g, &(oroya_gltf_import_desc){.allocator = a}, &m, &err);
    }
    size_t bound = (size_t)OROYA_GLTF_MAX_UNBACKED_BYTES + 64 * json->n;
    printf("  %s: %zu-byte file, import %s, peak %zu bytes (%.1f x the file; bound %zu)\n", name,
           json->n, oroya_result_string(r), h.peak_bytes, (double)h.peak_bytes / (double)json->n,
           bound);
    OT_CHECK_MSG(r == OROYA_OK || r == OROYA_ERR_LIMIT, "%s: %s (%s)", name, oroya_result_string(r),
                 err.message);
    if (r == OROYA_ERR_LIMIT) {
        OT_CHECK_MSG(strstr(err.message, "nodes[") != NULL, "%s: %s", name, err.message);
    }
    OT_CHECK_MSG(h.peak_bytes <= bound, "%s: peak %zu > %zu", name, h.peak_bytes, bound);
    oroya_gltf_model_free(m);
    oroya_gltf_free(g);
    OT_EQ_INT(h.live, 0);
}

/* One triangle, `targets` morph targets, `nodes` nodes that all show the mesh: each node's
 * weights are nodes x targets floats (2000 x 20000 x 4 = 160 MB from a 250 KB file). */
static void test_morph_weights_bounded(void) {
    text t = {0};
    put(&t, HEAD "\"buffers\":[{\"uri\":\"data:application/octet-stream;base64,"
                 "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA\",\"byteLength\":36}],"
                 "\"bufferViews\":[{\"buffer\":0,\"byteLength\":36}],\"accessors\":[{"
                 "\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\",\"min\":[0,"
                 "0,0],\"max\":[0,0,0]}],"
                 "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0},\"targets\":[");
    const int targets = 2000, nodes = 20000;
    for (int i = 0; i < targets; i++) {
        put(&t, "%s{\"POSITION\":0}", i ? "," : "");
    }
    put(&t, "]}]}],\"nodes\":[");
    for (int i = 0; i < nodes; i++) {
        put(&t, "%s{\"mesh\":0}", i ? "," : "");
    }
    put(&t, "]}");
    check_bounded("morph weights", &t);
    free(t.s);
}

/* One skinned mesh of 19 998 vertices (POSITION, JOINTS_0, WEIGHTS_0: 640 KB of data)
 * shown by 4000 nodes: each node's oroya_skin copies the vertices (4000 x 20 000 x 60 bytes
 * = 4.8 GB). */
static void test_skin_copies_bounded(void) {
    const uint32_t verts = 19998;
    size_t bytes = (size_t)verts * (12 + 4 + 16);
    unsigned char *bin = calloc(1, bytes);
    for (uint32_t v = 0; v < verts; v++) {
        float w = 1.0f;
        memcpy(bin + (size_t)verts * 16 + (size_t)v * 16, &w, 4); /* weights (1, 0, 0, 0) */
    }
    /* An independent base64 encoder (the loader's decoder is under test). */
    static const char abc[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    char *b64 = malloc((bytes + 2) / 3 * 4 + 1);
    size_t o = 0;
    for (size_t i = 0; i < bytes; i += 3) {
        unsigned v = (unsigned)bin[i] << 16 | (i + 1 < bytes ? (unsigned)bin[i + 1] << 8 : 0u) |
                     (i + 2 < bytes ? bin[i + 2] : 0u);
        b64[o++] = abc[v >> 18 & 63];
        b64[o++] = abc[v >> 12 & 63];
        b64[o++] = i + 1 < bytes ? abc[v >> 6 & 63] : '=';
        b64[o++] = i + 2 < bytes ? abc[v & 63] : '=';
    }
    b64[o] = '\0';
    text t = {0};
    put(&t,
        HEAD "\"buffers\":[{\"uri\":\"data:application/octet-stream;base64,%s\","
             "\"byteLength\":%zu}],\"bufferViews\":[{\"buffer\":0,\"byteLength\":%u},"
             "{\"buffer\":0,\"byteOffset\":%u,\"byteLength\":%u},"
             "{\"buffer\":0,\"byteOffset\":%u,\"byteLength\":%u}],"
             "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":%u,"
             "\"type\":\"VEC3\",\"min\":[0,0,0],\"max\":[0,0,0]},"
             "{\"bufferView\":1,\"componentType\":5121,\"count\":%u,\"type\":\"VEC4\"},"
             "{\"bufferView\":2,\"componentType\":5126,\"count\":%u,\"type\":\"VEC4\"}],"
             "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0,\"JOINTS_0\":1,"
             "\"WEIGHTS_0\":2}}]}],\"skins\":[{\"joints\":[0]}],\"nodes\":[{}",
        b64, bytes, verts * 12, verts * 12, verts * 4, verts * 16, verts * 16, verts, verts, verts);
    for (int i = 0; i < 4000; i++) {
        put(&t, ",{\"mesh\":0,\"skin\":0}");
    }
    put(&t, "]}");
    check_bounded("skin copies", &t);
    free(t.s);
    free(b64);
    free(bin);
}

/* A mesh of 1000 primitives shown by 1000 nodes: each node gets a child node per primitive
 * (a million scene nodes from a 70 KB file). */
static void test_primitive_nodes_bounded(void) {
    text t = {0};
    put(&t,
        HEAD "\"buffers\":[{\"uri\":\"data:application/octet-stream;base64,"
             "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA\",\"byteLength\":36}],"
             "\"bufferViews\":[{\"buffer\":0,\"byteLength\":36}],\"accessors\":[{"
             "\"bufferView\":0,\"componentType\":5126,\"count\":3,"
             "\"type\":\"VEC3\",\"min\":[0,0,0],\"max\":[0,0,0]}],\"meshes\":[{\"primitives\":[");
    for (int i = 0; i < 1000; i++) {
        put(&t, "%s{\"attributes\":{\"POSITION\":0}}", i ? "," : "");
    }
    put(&t, "]}],\"nodes\":[");
    for (int i = 0; i < 1000; i++) {
        put(&t, "%s{\"mesh\":0}", i ? "," : "");
    }
    put(&t, "]}");
    check_bounded("primitive nodes", &t);
    free(t.s);
}

/* ---- JSON that is not JSON --------------------------------------------------------------- */

static void expect_json_error(const char *name, const char *json, size_t n, oroya_result want,
                              const char *message) {
    oroya_error err = {0};
    oroya_result r = load_json(json, n, &err);
    OT_CHECK_MSG(r == want, "%s: got %s (%s), expected %s", name, oroya_result_string(r),
                 err.message, oroya_result_string(want));
    OT_CHECK_MSG(strstr(err.message, message) != NULL, "%s: \"%s\" lacks \"%s\"", name, err.message,
                 message);
}

/* A raw NUL inside a string cut the name there; one between tokens was taken for
 * whitespace. Text that is not UTF-8 loaded names with raw bytes that the CLI then printed
 * into its JSON. All are refused now, naming the byte; NUL padding after the text is fine. */
static void test_json_nul_and_utf8(void) {
    static const char in_string[] = HEAD "\"nodes\":[{\"name\":\"na\0me\"}]}";
    expect_json_error("NUL in a string", in_string, sizeof in_string - 1, OROYA_ERR_PARSE,
                      "(json): a NUL byte at byte 47 (line 1, column 48)");
    static const char between[] = HEAD "\"nodes\":\0[{}]}";
    expect_json_error("NUL between tokens", between, sizeof between - 1, OROYA_ERR_PARSE,
                      "a NUL byte at byte 35");
    static const char bad_utf8[] = HEAD "\"nodes\":[{\"name\":\"\xff\xfe\"}]}";
    expect_json_error("invalid UTF-8", bad_utf8, sizeof bad_utf8 - 1, OROYA_ERR_PARSE,
                      "invalid UTF-8 at byte 45");
    static const char overlong[] = HEAD "\"nodes\":[{\"name\":\"\xc0\xaf\"}]}";
    expect_json_error("overlong UTF-8", overlong, sizeof overlong - 1, OROYA_ERR_PARSE,
                      "invalid UTF-8");
    static const char surrogate[] = HEAD "\"nodes\":[{\"name\":\"\xed\xa0\x80\"}]}";
    expect_json_error("UTF-8 surrogate", surrogate, sizeof surrogate - 1, OROYA_ERR_PARSE,
                      "invalid UTF-8");
    static const char cut[] = HEAD "\"nodes\":[{\"name\":\"\xe2\x82\"}]}";
    expect_json_error("cut UTF-8 sequence", cut, sizeof cut - 1, OROYA_ERR_PARSE, "invalid UTF-8");
    /* Good UTF-8 (2, 3 and 4 bytes) and trailing NUL padding load. */
    static const char good[] =
        HEAD "\"nodes\":[{\"name\":\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"}]}"
             "\0\0\0";
    oroya_error err = {0};
    OT_EQ_INT(load_json(good, sizeof good - 1, &err), OROYA_OK);
}

/* A valid file nested deeper than cJSON's limit (1000) said "syntax error". */
static void test_json_depth_limit(void) {
    text t = {0};
    put(&t, HEAD "\"extras\":");
    for (int i = 0; i < 1200; i++) {
        put(&t, "[");
    }
    for (int i = 0; i < 1200; i++) {
        put(&t, "]");
    }
    put(&t, "}");
    expect_json_error("deep nesting", t.s, t.n, OROYA_ERR_LIMIT,
                      "(json): arrays and objects nest deeper than 1000 levels");
    /* A real syntax error at depth 3 is still one. */
    static const char syntax[] = HEAD "\"extras\":[[[1,]]]}";
    expect_json_error("syntax error", syntax, sizeof syntax - 1, OROYA_ERR_PARSE, "syntax error");
    free(t.s);
}

/* ---- JSON too big for its tree ----------------------------------------------------------- */

/* cJSON's blocks, counted on a heap of their own (cJSON has global hooks only). */
static rb_heap json_heap;
static void *cjson_malloc(size_t n) { return rb_alloc(n ? n : 1, 16, &json_heap); }
static void cjson_free(void *p) { rb_free(p, &json_heap); }

/* `pre`, then `count` copies of `item` joined by commas, then `post`: the generated files. */
static text repeat(const char *pre, const char *item, size_t count, const char *post) {
    size_t a = strlen(pre), b = strlen(item), c = strlen(post);
    text t = {0};
    t.cap = a + count * (b + 1) + c + 1;
    t.s = malloc(t.cap);
    OT_CHECK(t.s != NULL);
    if (!t.s) {
        return t;
    }
    memcpy(t.s, pre, a);
    t.n = a;
    for (size_t i = 0; i < count; i++) {
        if (i) {
            t.s[t.n++] = ',';
        }
        memcpy(t.s + t.n, item, b);
        t.n += b;
    }
    memcpy(t.s + t.n, post, c + 1);
    t.n += c;
    return t;
}

/* Parses `json` (a .gltf, or wrapped in a GLB) with the counting heap and cJSON's blocks
 * counted too; returns the code, the parse's peak in *peak and cJSON's in *cjson_peak. */
static oroya_result parse_counted(const text *json, bool glb, oroya_error *err, size_t *peak,
                                  size_t *cjson_peak, uint32_t *node_count) {
    unsigned char *buf = NULL;
    const void *data = json->s;
    size_t n = json->n;
    if (glb) {
        size_t padded = (json->n + 3) & ~(size_t)3;
        n = 12 + 8 + padded;
        buf = malloc(n);
        OT_CHECK(buf != NULL);
        if (!buf) {
            return OROYA_ERR_OUT_OF_MEMORY;
        }
        uint32_t words[5] = {0x46546C67u, 2, (uint32_t)n, (uint32_t)padded, 0x4E4F534Au};
        memcpy(buf, words, sizeof words); /* little-endian, as every machine this runs on */
        memcpy(buf + 20, json->s, json->n);
        memset(buf + 20 + json->n, ' ', padded - json->n);
        data = buf;
    }
    rb_heap h;
    rb_reset(&h, 0);
    rb_reset(&json_heap, 0);
    cJSON_Hooks hooks = {cjson_malloc, cjson_free};
    cJSON_InitHooks(&hooks);
    oroya_gltf_data *g = NULL;
    oroya_result r =
        oroya_gltf_parse(&(oroya_gltf_desc){.allocator = rb_allocator(&h)}, data, n, &g, err);
    cJSON_InitHooks(NULL);
    *node_count = g ? g->node_count : 0;
    oroya_gltf_free(g);
    OT_EQ_INT(h.live, 0);
    OT_EQ_INT(json_heap.live, 0);
    *peak = h.peak_bytes;
    *cjson_peak = json_heap.peak_bytes;
    free(buf);
    return r;
}

/* A file of more than OROYA_GLTF_MAX_JSON_VALUES values is refused before cJSON allocates
 * anything (a 2 GiB file of "{}," made 715 million values: some 57 GB of cJSON's tree). The
 * file here: HEAD (3 values: the root, asset, "2.0"), "extras" (1) holding zeros. */
static void test_json_value_limit(void) {
    const size_t limit = (size_t)OROYA_GLTF_MAX_JSON_VALUES;
    text t = repeat(HEAD "\"extras\":[", "0", limit - 3, "]}");
    if (!t.s) {
        return;
    }
    /* The count at the boundary: limit + 1 values, then the last zero blanked: the limit. */
    size_t values = 0;
    oroya_error err = {0};
    OT_EQ_INT(oroya_json_values_check(t.s, t.n, limit, &values, &err), OROYA_ERR_LIMIT);
    OT_CHECK_MSG(values == limit + 1, "%zu values", values);
    char msg[128];
    snprintf(msg, sizeof msg, "invalid JSON: %zu values, the limit is %zu", limit + 1, limit);
    OT_CHECK_MSG(!strcmp(err.message, msg), "%s", err.message);
    t.s[t.n - 4] = ' '; /* "...,0,0]}" -> "...,0, ]}" */
    t.s[t.n - 3] = ' ';
    OT_EQ_INT(oroya_json_values_check(t.s, t.n, limit, &values, &err), OROYA_OK);
    OT_CHECK_MSG(values == limit, "%zu values", values);
    t.s[t.n - 4] = ',';
    t.s[t.n - 3] = '0';
    snprintf(msg, sizeof msg, "(json): %zu values, the limit is %zu (OROYA_GLTF_MAX_JSON_VALUES)",
             limit + 1, limit);
    for (int glb = 0; glb < 2; glb++) {
        size_t peak = 0, cjson_peak = 0;
        uint32_t nodes = 0;
        oroya_result r = parse_counted(&t, glb, &err, &peak, &cjson_peak, &nodes);
        printf("  %zu values (%zu bytes%s): %s, parse peak %zu bytes, cJSON %zu bytes\n", limit + 1,
               t.n, glb ? ", GLB" : "", oroya_result_string(r), peak, cjson_peak);
        OT_CHECK_MSG(r == OROYA_ERR_LIMIT && !strcmp(err.message, msg), "%s: %s",
                     oroya_result_string(r), err.message);
        OT_CHECK_MSG(json_heap.calls == 0, "cJSON allocated %ld blocks", json_heap.calls);
        OT_CHECK_MSG(peak < 4096, "the parse kept %zu bytes", peak);
    }
    free(t.s);
}

/* Every glTF node becomes a scene node, and a scene holds OROYA_SCENE_MAX_NODES: more nodes
 * were parsed (160 bytes each) and imported until the scene refused one (1 100 000 nodes:
 * 843 MB). Now refused at parse, naming the array, before any parsed array is allocated;
 * so are node lists longer than that (a skin's joints, a scene's nodes, a node's children). */
static void test_node_count_limit(void) {
    const size_t max = OROYA_SCENE_MAX_NODES;
    oroya_error err = {0};
    size_t peak = 0, cjson_peak = 0;
    uint32_t nodes = 0;
    text t = repeat(HEAD "\"nodes\":[", "{}", max + 1, "]}");
    if (!t.s) {
        return;
    }
    oroya_result r = parse_counted(&t, false, &err, &peak, &cjson_peak, &nodes);
    printf("  %zu nodes (%zu bytes): %s, parse peak %zu bytes, cJSON %zu bytes\n", max + 1, t.n,
           oroya_result_string(r), peak, cjson_peak);
    OT_CHECK_MSG(
        r == OROYA_ERR_LIMIT &&
            !strcmp(err.message,
                    "nodes: 1048576 entries, the limit is 1048575 (OROYA_SCENE_MAX_NODES)"),
        "%s: %s", oroya_result_string(r), err.message);
    OT_CHECK_MSG(peak < 4096, "the parse kept %zu bytes", peak);
    /* The limit itself parses: "]}" moved back over the last ",{}". */
    memcpy(t.s + t.n - 5, "]}", 3);
    t.n -= 3;
    r = parse_counted(&t, false, &err, &peak, &cjson_peak, &nodes);
    printf("  %zu nodes (%zu bytes): %s, parse peak %zu bytes, cJSON %zu bytes\n", max, t.n,
           oroya_result_string(r), peak, cjson_peak);
    OT_CHECK_MSG(r == OROYA_OK && nodes == max, "%s: %s, %u nodes", oroya_result_string(r),
                 err.message, nodes);
    free(t.s);
    static const struct {
        const char *pre, *post, *message;
    } lists[] = {
        {HEAD "\"nodes\":[{}],\"skins\":[{\"joints\":[", "]}]}", "skins[0].joints: 1048576"},
        {HEAD "\"nodes\":[{}],\"scenes\":[{},{\"nodes\":[", "]}]}", "scenes[1].nodes: 1048576"},
        {HEAD "\"nodes\":[{},{\"children\":[", "]}]}", "nodes[1].children: 1048576"},
    };
    for (size_t i = 0; i < sizeof lists / sizeof lists[0]; i++) {
        t = repeat(lists[i].pre, "0", max + 1, lists[i].post);
        if (!t.s) {
            return;
        }
        r = parse_counted(&t, false, &err, &peak, &cjson_peak, &nodes);
        OT_CHECK_MSG(
            r == OROYA_ERR_LIMIT && strstr(err.message, lists[i].message) &&
                strstr(err.message, "entries, the limit is 1048575 (OROYA_SCENE_MAX_NODES)"),
            "%s: %s", oroya_result_string(r), err.message);
        /* Only what the nodes before the list took: no room for the list. */
        OT_CHECK_MSG(peak < 64 * 1024, "%s: the parse kept %zu bytes", lists[i].message, peak);
        free(t.s);
    }
}

/* glTF 2.0 requires animation input times >= 0. */
static void test_negative_first_time(void) {
    /* {-1, 1}: "AACAvwAAgD8=" */
    const char *json = HEAD "\"buffers\":[{\"uri\":\"data:application/octet-stream;base64,"
                            "AACAvwAAgD8=\",\"byteLength\":8}],\"bufferViews\":[{\"buffer\":0,"
                            "\"byteLength\":8}],\"accessors\":[{\"bufferView\":0,\"componentType\":"
                            "5126,\"count\":2,\"type\":\"SCALAR\"}],\"animations\":[{\"samplers\":"
                            "[{\"input\":0,\"output\":0}]}]}";
    expect_json_error("negative first time", json, strlen(json), OROYA_ERR_BAD_TIMES,
                      "animations[0].samplers[0].input: key 0 time -1 is negative");
}

/* A node rotation of (1e20, 0, 0, 1e20) is finite but overflows the node's matrix: the
 * import refuses it naming the node. */
static void test_huge_node_rotation(void) {
    const char *json = HEAD "\"nodes\":[{},{\"rotation\":[1e20,0,0,1e20]}]}";
    oroya_gltf_data *g = NULL;
    oroya_error err = {0};
    OT_EQ_INT(oroya_gltf_parse(NULL, json, strlen(json), &g, &err), OROYA_OK);
    OT_EQ_INT(oroya_gltf_load_buffers(g, &err), OROYA_OK);
    OT_EQ_INT(oroya_gltf_validate(g, &err), OROYA_OK);
    oroya_gltf_model *m = NULL;
    OT_EQ_INT(oroya_gltf_import(g, NULL, &m, &err), OROYA_ERR_NON_FINITE);
    OT_CHECK_MSG(strstr(err.message, "nodes[1]: transform rejected"), "%s", err.message);
    OT_CHECK(m == NULL);
    oroya_gltf_free(g);
}

int main(void) {
    mkdir(TMP, 0755);
    OT_RUN(test_unknown_path_node_checked);
    OT_RUN(test_ignored_channels_counted);
    OT_RUN(test_uris_stay_in_folder);
    OT_RUN(test_special_files_do_not_block);
    OT_RUN(test_missing_files_consistent);
    OT_RUN(test_morph_weights_bounded);
    OT_RUN(test_skin_copies_bounded);
    OT_RUN(test_primitive_nodes_bounded);
    OT_RUN(test_json_nul_and_utf8);
    OT_RUN(test_json_depth_limit);
    OT_RUN(test_json_value_limit);
    OT_RUN(test_node_count_limit);
    OT_RUN(test_negative_first_time);
    OT_RUN(test_huge_node_rotation);
    return ot_finish();
}
