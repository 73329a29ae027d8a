/* The user reader of external URIs (oroya_gltf_desc.read_file): buffers and images served
 * from memory, a reader that refuses, a reader that claims more bytes than the budget, and
 * what it is given (the URI, the resolved path, the base directory). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oroya/gltf.h"
#include "oroya_test.h"

/* A 2 x 1 RGBA PNG: a red pixel and a half-transparent blue one. */
static const uint8_t PNG_2X1[] = {
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44,
    0x52, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0xf4,
    0x22, 0x7f, 0x8a, 0x00, 0x00, 0x00, 0x0e, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9c, 0x63, 0xf8,
    0xcf, 0xc0, 0x00, 0x42, 0x0d, 0x00, 0x0f, 0x7a, 0x03, 0x7e, 0x77, 0xe9, 0x7f, 0x97, 0x00,
    0x00, 0x00, 0x00, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82};

/* Key times {0, 1} and translations {(0,0,0), (1,2,3)}. */
static const float ANIM_BIN[8] = {0.0f, 1.0f, 0.0f, 0.0f, 0.0f, 1.0f, 2.0f, 3.0f};

#define MODEL_JSON                                                                                 \
    "{\"asset\":{\"version\":\"2.0\"},\"scene\":0,\"scenes\":[{\"nodes\":[0]}],"                   \
    "\"nodes\":[{\"name\":\"box\"}],"                                                              \
    "\"buffers\":[{\"uri\":\"%s\",\"byteLength\":32}],"                                            \
    "\"bufferViews\":[{\"buffer\":0,\"byteLength\":8},"                                            \
    "{\"buffer\":0,\"byteOffset\":8,\"byteLength\":24}],"                                          \
    "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":2,\"type\":\"SCALAR\","     \
    "\"min\":[0],\"max\":[1]},"                                                                    \
    "{\"bufferView\":1,\"componentType\":5126,\"count\":2,\"type\":\"VEC3\"}],"                    \
    "\"animations\":[{\"name\":\"move\",\"samplers\":[{\"input\":0,\"output\":1}],"                \
    "\"channels\":[{\"sampler\":0,\"target\":{\"node\":0,\"path\":\"translation\"}}]}],"           \
    "\"images\":[{\"uri\":\"%s\"}],\"textures\":[{\"source\":0}],"                                 \
    "\"materials\":[{\"pbrMetallicRoughness\":{\"baseColorTexture\":{\"index\":0}}}]}"

/* What the reader saw, and what it is to do. */
typedef struct reader {
    int calls;
    int refuse;    /* 1: refuse every URI */
    int overclaim; /* 1: say the file is one byte over max_size */
    int undersize; /* 1: say the file has 4 bytes */
    char last_uri[256], last_path[256], last_base[256];
    uint64_t last_max;
} reader;

static oroya_result serve(void *user, const char *uri, const char *path, const char *base_dir,
                          uint64_t max_size, const oroya_allocator *allocator, void **bytes,
                          uint64_t *size, oroya_error *err) {
    reader *rd = (reader *)user;
    rd->calls++;
    snprintf(rd->last_uri, sizeof rd->last_uri, "%s", uri);
    snprintf(rd->last_path, sizeof rd->last_path, "%s", path);
    snprintf(rd->last_base, sizeof rd->last_base, "%s", base_dir);
    rd->last_max = max_size;
    if (rd->refuse) {
        return oroya_error_set(err, OROYA_ERR_ACCESS, "not in the archive");
    }
    const void *src = NULL;
    size_t n = 0;
    const char *name = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    if (!strcmp(name, "anim data.bin")) {
        src = ANIM_BIN;
        n = sizeof ANIM_BIN;
    } else if (!strcmp(name, "tex.png")) {
        src = PNG_2X1;
        n = sizeof PNG_2X1;
    } else {
        return oroya_error_set(err, OROYA_ERR_NOT_FOUND, "no entry \"%s\"", path);
    }
    *bytes = oroya_allocator_alloc(allocator, n, 1);
    if (!*bytes) {
        return OROYA_ERR_OUT_OF_MEMORY;
    }
    memcpy(*bytes, src, n);
    *size = rd->overclaim ? max_size + 1 : rd->undersize ? 4 : n;
    return OROYA_OK;
}

/* Counts live allocations, so every byte the reader hands over is shown to be freed. */
static long live_blocks;
static void *count_alloc(size_t size, size_t align, void *user) {
    (void)user;
    (void)align;
    void *p = malloc(size + 16);
    if (p) {
        live_blocks++;
        return (char *)p + 16;
    }
    return NULL;
}
static void count_free(void *ptr, void *user) {
    (void)user;
    if (ptr) {
        live_blocks--;
        free((char *)ptr - 16);
    }
}
static const oroya_allocator COUNTING = {count_alloc, count_free, NULL};

static char json_buf[4096];
static const char *model_json(const char *bin_uri, const char *image_uri) {
    snprintf(json_buf, sizeof json_buf, MODEL_JSON, bin_uri, image_uri);
    return json_buf;
}

static void test_memory_reader_serves_buffers_and_images(void) {
    reader rd = {0};
    const char *json = model_json("anim%20data.bin", "tex.png");
    oroya_gltf_data *g = NULL;
    oroya_error err = {0};
    /* Parsed from memory with no base directory: only a reader can give external URIs. */
    oroya_gltf_desc desc = {.allocator = COUNTING, .read_file = serve, .read_user = &rd};
    oroya_result r = oroya_gltf_parse(&desc, json, strlen(json), &g, &err);
    OT_CHECK_MSG(r == OROYA_OK, "%s", err.message);
    r = r ? r : oroya_gltf_load_buffers(g, &err);
    OT_CHECK_MSG(r == OROYA_OK, "%s", err.message);
    r = r ? r : oroya_gltf_validate(g, &err);
    OT_CHECK_MSG(r == OROYA_OK, "%s", err.message);
    OT_EQ_INT(rd.calls, 1);
    OT_CHECK(!strcmp(rd.last_uri, "anim%20data.bin"));
    OT_CHECK(!strcmp(rd.last_path, "anim data.bin")); /* percent-escapes decoded */
    OT_CHECK(!strcmp(rd.last_base, ""));
    OT_CHECK(rd.last_max == OROYA_GLTF_MAX_FILE_SIZE);
    if (r == OROYA_OK) {
        OT_CHECK(g->buffers[0].data != NULL &&
                 !memcmp(g->buffers[0].data, ANIM_BIN, sizeof ANIM_BIN));
        oroya_gltf_model *m = NULL;
        r = oroya_gltf_import(g, &(oroya_gltf_import_desc){.allocator = COUNTING}, &m, &err);
        OT_CHECK_MSG(r == OROYA_OK, "%s", err.message);
        OT_EQ_INT(rd.calls, 2); /* the image, read at import through the same reader */
        OT_CHECK(!strcmp(rd.last_path, "tex.png"));
        if (m) {
            OT_EQ_INT(m->image_count, 1);
            OT_EQ_INT(m->images[0].width, 2);
            OT_EQ_INT(m->images[0].height, 1);
            const uint8_t want[8] = {255, 0, 0, 255, 0, 0, 255, 128};
            OT_CHECK(m->images[0].pixels && !memcmp(m->images[0].pixels, want, 8));
            OT_EQ_INT(m->clip_count, 1);
            OT_NEAR(m->clips[0]->duration, 1.0, 0.0);
        }
        oroya_gltf_model_free(m);
    }
    oroya_gltf_free(g);
    OT_EQ_INT(live_blocks, 0);
}

static void test_reader_through_load(void) {
    /* oroya_gltf_load passes the reader on; the base directory is the file's folder. */
    const char *dir = OROYA_BINARY_DIR "/test_gltf_read_callback_tmp";
    char file[512];
    snprintf(file, sizeof file, "%s.gltf", dir);
    FILE *f = fopen(file, "wb");
    OT_CHECK(f != NULL);
    if (!f) {
        return;
    }
    /* "../" and an absolute path are the reader's to judge: they reach it. */
    fputs(model_json("../up/anim%20data.bin", "/abs/tex.png"), f);
    fclose(f);
    reader rd = {0};
    oroya_gltf_model *m = NULL;
    oroya_error err = {0};
    oroya_result r = oroya_gltf_load(
        file, &(oroya_gltf_import_desc){.read_file = serve, .read_user = &rd}, &m, &err);
    OT_CHECK_MSG(r == OROYA_OK, "%s", err.message);
    OT_EQ_INT(rd.calls, 2);
    OT_CHECK(!strcmp(rd.last_uri, "/abs/tex.png"));
    OT_CHECK(!strcmp(rd.last_path, "/abs/tex.png"));
    OT_CHECK(!strcmp(rd.last_base, OROYA_BINARY_DIR "/"));
    OT_CHECK(m && m->images[0].width == 2);
    oroya_gltf_model_free(m);
    remove(file);
}

static void test_refusing_reader(void) {
    reader rd = {.refuse = 1};
    const char *json = model_json("anim%20data.bin", "tex.png");
    oroya_gltf_data *g = NULL;
    oroya_error err = {0};
    oroya_gltf_desc desc = {.allocator = COUNTING, .read_file = serve, .read_user = &rd};
    oroya_result r = oroya_gltf_parse(&desc, json, strlen(json), &g, &err);
    OT_CHECK(r == OROYA_OK);
    r = oroya_gltf_load_buffers(g, &err);
    OT_EQ_INT(r, OROYA_ERR_ACCESS);
    OT_EQ_INT(err.result, OROYA_ERR_ACCESS);
    OT_CHECK_MSG(strstr(err.message, "buffers[0]") && strstr(err.message, "anim%20data.bin") &&
                     strstr(err.message, "not in the archive"),
                 "%s", err.message);
    oroya_gltf_free(g);
    OT_EQ_INT(live_blocks, 0);
    /* A scheme is refused before the reader is called. */
    rd = (reader){0};
    json = model_json("http://example.com/a.bin", "tex.png");
    r = oroya_gltf_parse(&desc, json, strlen(json), &g, &err);
    OT_CHECK(r == OROYA_OK);
    r = oroya_gltf_load_buffers(g, &err);
    OT_EQ_INT(r, OROYA_ERR_UNSUPPORTED);
    OT_EQ_INT(rd.calls, 0);
    oroya_gltf_free(g);
    OT_EQ_INT(live_blocks, 0);
}

static oroya_result refuse_silently(void *user, const char *uri, const char *path,
                                    const char *base_dir, uint64_t max_size,
                                    const oroya_allocator *allocator, void **bytes, uint64_t *size,
                                    oroya_error *err) {
    (void)user, (void)uri, (void)path, (void)base_dir, (void)max_size, (void)allocator;
    (void)bytes, (void)size, (void)err;
    return (oroya_result)1000; /* not a result code: taken as an I/O error */
}

static void test_refusing_reader_without_message(void) {
    const char *json = model_json("a.bin", "tex.png");
    oroya_gltf_data *g = NULL;
    oroya_error err = {0};
    oroya_gltf_desc desc = {.read_file = refuse_silently};
    OT_CHECK(oroya_gltf_parse(&desc, json, strlen(json), &g, &err) == OROYA_OK);
    OT_EQ_INT(oroya_gltf_load_buffers(g, &err), OROYA_ERR_IO);
    OT_CHECK_MSG(strstr(err.message, "buffers[0]: \"a.bin\": the read_file callback refused it"),
                 "%s", err.message);
    oroya_gltf_free(g);
}

static void test_reader_over_budget(void) {
    reader rd = {.overclaim = 1};
    const char *json = model_json("anim%20data.bin", "tex.png");
    oroya_gltf_data *g = NULL;
    oroya_error err = {0};
    oroya_gltf_desc desc = {.allocator = COUNTING, .read_file = serve, .read_user = &rd};
    OT_CHECK(oroya_gltf_parse(&desc, json, strlen(json), &g, &err) == OROYA_OK);
    oroya_result r = oroya_gltf_load_buffers(g, &err);
    OT_EQ_INT(r, OROYA_ERR_LIMIT);
    OT_CHECK_MSG(strstr(err.message, "buffers[0]") && strstr(err.message, "anim%20data.bin") &&
                     strstr(err.message, "over the limit"),
                 "%s", err.message);
    oroya_gltf_free(g);
    OT_EQ_INT(live_blocks, 0); /* the reader's bytes were freed */
    /* Fewer bytes than byteLength: the usual check of a buffer's source. */
    rd = (reader){.undersize = 1};
    OT_CHECK(oroya_gltf_parse(&desc, json, strlen(json), &g, &err) == OROYA_OK);
    OT_EQ_INT(oroya_gltf_load_buffers(g, &err), OROYA_ERR_INVALID_DATA);
    OT_CHECK_MSG(strstr(err.message, "buffers[0]: byteLength is 32 but the data has 4 bytes"), "%s",
                 err.message);
    oroya_gltf_free(g);
    OT_EQ_INT(live_blocks, 0);
}

/* Percent-escapes with upper- and lower-case hex digits decode; a cut, non-hex or NUL
 * escape is an error naming the buffer. */
static void test_percent_escapes(void) {
    static const struct {
        const char *uri, *path; /* path NULL: a parse error is expected */
    } cases[] = {
        {"anim%20data.bin", "anim data.bin"},
        {"%61nim%20d%41ta.bin", "anim dAta.bin"},
        {"%41%4a%4F%7a%7E.bin", "AJOz~.bin"},
        {"sub%2fanim%2Fdata.bin", "sub/anim/data.bin"},
        {"anim%2", NULL},
        {"anim%", NULL},
        {"anim%g0.bin", NULL},
        {"anim%0G.bin", NULL},
        {"anim%00.bin", NULL},
        {"anim%/0.bin", NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        reader rd = {0};
        const char *json = model_json(cases[i].uri, "tex.png");
        oroya_gltf_data *g = NULL;
        oroya_error err = {0};
        oroya_gltf_desc desc = {.read_file = serve, .read_user = &rd};
        oroya_result r = oroya_gltf_parse(&desc, json, strlen(json), &g, &err);
        OT_CHECK_MSG(r == OROYA_OK, "%s", err.message);
        r = r ? r : oroya_gltf_load_buffers(g, &err);
        if (cases[i].path) {
            OT_CHECK_MSG(rd.calls == 1 && !strcmp(rd.last_path, cases[i].path),
                         "%s: reader saw \"%s\"", cases[i].uri, rd.last_path);
        } else {
            OT_CHECK_MSG(r == OROYA_ERR_PARSE && rd.calls == 0 &&
                             strstr(err.message, "buffers[0]") &&
                             strstr(err.message, "bad percent-escape in URI"),
                         "%s: %d %s", cases[i].uri, (int)r, err.message);
        }
        oroya_gltf_free(g);
    }
}

int main(void) {
    OT_RUN(test_memory_reader_serves_buffers_and_images);
    OT_RUN(test_reader_through_load);
    OT_RUN(test_refusing_reader);
    OT_RUN(test_refusing_reader_without_message);
    OT_RUN(test_reader_over_budget);
    OT_RUN(test_percent_escapes);
    return ot_finish();
}
