/* Private parts of the glTF loader, shared by src/gltf_*.c and the fuzz targets. */
#ifndef OROYA_INTERNAL_GLTF_H
#define OROYA_INTERNAL_GLTF_H

#include "internal/base.h"
#include "oroya/gltf.h"

/* Returns the result of `expr` from the calling function unless it is OROYA_OK. */
#define TRY(expr)                                                                                  \
    do {                                                                                           \
        oroya_result r_ = (expr);                                                                  \
        if (r_ != OROYA_OK) {                                                                      \
            return r_;                                                                             \
        }                                                                                          \
    } while (0)

/* Every allocation the data owns is a block in one list, so oroya_gltf_free is one walk
 * and an error halfway through parsing frees everything already made. */
typedef struct oroya__gltf_block {
    struct oroya__gltf_block *next;
    size_t size;
    void *adopted; /* memory from a user reader, freed with the block */
} oroya__gltf_block;

typedef struct oroya__gltf {
    oroya_gltf_data pub; /* first, so the public pointer is this struct */
    oroya_allocator allocator;
    oroya__gltf_block *blocks;
    char *base_dir;               /* NULL: external URIs refused */
    bool allow_outside_base_dir;  /* the desc's option: URIs may leave base_dir */
    oroya_gltf_read_fn read_file; /* the desc's reader of external URIs, or NULL */
    void *read_user;
    const uint8_t *bin; /* GLB BIN chunk (owned copy), NULL if none */
    uint64_t bin_size;
    bool buffers_loaded;
    bool validated; /* set by a successful oroya_gltf_validate */
} oroya__gltf;

/* A list of zeroed blocks freed together: count * size bytes, NULL on overflow or failure. */
void *oroya__arena_alloc(const oroya_allocator *a, oroya__gltf_block **list, size_t count,
                         size_t size);
/* Makes `ptr` (from oroya__alloc(a, ...), may be NULL) part of the list, so releasing the
 * list frees it. On failure (out of memory) frees ptr and returns false. */
bool oroya__arena_adopt(const oroya_allocator *a, oroya__gltf_block **list, void *ptr);
void oroya__arena_release(const oroya_allocator *a, oroya__gltf_block **list);

/* The bytes of a buffer or image URI (base64 data: URI, or a file relative to the data's
 * base directory), allocated into `list`. `path` names the JSON place for errors. */
oroya_result oroya__gltf_load_uri(const oroya__gltf *g, const oroya_allocator *a,
                                  oroya__gltf_block **list, const char *uri, const uint8_t **out,
                                  uint64_t *out_size, oroya_error *err, const char *path);

/* Allocation owned by g, zeroed. NULL when out of memory or size overflowed. */
void *oroya__gltf_alloc(oroya__gltf *g, size_t count, size_t size);
char *oroya__gltf_strdup(oroya__gltf *g, const char *s, size_t len);

/* A name and an index, sorted by name then index (qsort with oroya__name_index_compare), so
 * that the importer and the writer look names up in O(log n). */
typedef struct oroya__name_index {
    const char *name;
    uint32_t index;
} oroya__name_index;
int oroya__name_index_compare(const void *a, const void *b);
/* The index of the first entry named `name` (the lowest index), or OROYA_GLTF_NONE. e may be
 * NULL when n is 0. */
uint32_t oroya__name_index_find(const oroya__name_index *e, uint32_t n, const char *name);

/* snprintf for JSON paths. Paths are at most a few dozen bytes; a longer one is cut, never
 * overflowed. (A function, so the compiler does not flag every possible cut.) */
void oroya__gltf_path(char *out, size_t cap, const char *fmt, ...) OROYA__PRINTF(3, 4);

/* Base64 (RFC 4648, standard alphabet, '=' padding optional but only at the end).
 * Returns the decoded size, or SIZE_MAX when `in` is not valid base64. With out == NULL
 * only validates and measures. out must hold the measured size. */
size_t oroya__base64_decode(const char *in, size_t len, uint8_t *out);

/* Splits "data:[mediatype][;base64],payload". Sets *payload and *payload_len. Returns
 * OROYA_OK, or OROYA_ERR_PARSE when `uri` is a data URI without a comma, or
 * OROYA_ERR_UNSUPPORTED when it is not base64. The caller checks the "data:" prefix. */
oroya_result oroya__data_uri_split(const char *uri, const char **payload, size_t *payload_len,
                                   oroya_error *err, const char *path);

/* Decodes a data: URI into bytes owned by g. */
oroya_result oroya__data_uri_decode(oroya__gltf *g, const char *uri, const uint8_t **out,
                                    size_t *out_size, oroya_error *err, const char *path);

/* Element size in bytes including the column padding of MAT2/MAT3 with 1- or 2-byte
 * components (glTF 3.6.2.4). 0 for bad enums. */
uint32_t oroya__gltf_element_size(oroya_gltf_component_type ct, oroya_gltf_type type);
uint32_t oroya__gltf_component_size(oroya_gltf_component_type ct);

/* Element `index` of a validated accessor as floats (sparse-aware, no allocation). Used by
 * validate to read key times and by loaders that want one element. */
void oroya__gltf_read_floats_at(const oroya_gltf_data *d, uint32_t accessor, uint32_t index,
                                float *out);
/* Sparse index k of a sparse block whose ranges were checked. */
uint32_t oroya__gltf_sparse_index(const oroya_gltf_data *d, const oroya_gltf_sparse *s, uint32_t k);

#endif
