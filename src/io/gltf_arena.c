/* The glTF data's memory: one list of zeroed blocks freed together, and the JSON-path
 * formatter for error messages. The lowest file of the glTF I/O layer: gltf_buffers.c
 * (buffer and image bytes) and gltf_parse.c (JSON and GLB, which then loads the buffers)
 * both build on it, so neither needs the other's internals. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "internal/gltf.h"

void oroya__gltf_path(char *out, size_t cap, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(out, cap, fmt, ap);
    va_end(ap);
}

/* ---- allocation ------------------------------------------------------------------------ */

void *oroya__arena_alloc(const oroya_allocator *a, oroya__gltf_block **list, size_t count,
                         size_t size) {
    size_t bytes = oroya__mul_size(count, size);
    if (bytes == SIZE_MAX || bytes > SIZE_MAX - sizeof(oroya__gltf_block) - 16) {
        return NULL;
    }
    /* The header is padded to 16 bytes so the payload keeps max_align_t alignment. */
    size_t header = (sizeof(oroya__gltf_block) + 15) & ~(size_t)15;
    oroya__gltf_block *b = (oroya__gltf_block *)oroya__alloc(a, header + bytes, 16);
    if (!b) {
        return NULL;
    }
    b->next = *list;
    b->size = bytes;
    b->adopted = NULL;
    *list = b;
    uint8_t *p = (uint8_t *)b + header;
    memset(p, 0, bytes);
    return p;
}

bool oroya__arena_adopt(const oroya_allocator *a, oroya__gltf_block **list, void *ptr) {
    if (!ptr) {
        return true;
    }
    if (!oroya__arena_alloc(a, list, 0, 1)) {
        oroya__free(a, ptr);
        return false;
    }
    (*list)->adopted = ptr;
    return true;
}

void oroya__arena_release(const oroya_allocator *a, oroya__gltf_block **list) {
    oroya__gltf_block *b = *list;
    while (b) {
        oroya__gltf_block *next = b->next;
        if (b->adopted) {
            oroya__free(a, b->adopted);
        }
        oroya__free(a, b);
        b = next;
    }
    *list = NULL;
}

void *oroya__gltf_alloc(oroya__gltf *g, size_t count, size_t size) {
    return oroya__arena_alloc(&g->allocator, &g->blocks, count, size);
}

char *oroya__gltf_strdup(oroya__gltf *g, const char *s, size_t len) {
    char *c = (char *)oroya__gltf_alloc(g, len + 1, 1);
    if (c) {
        memcpy(c, s, len);
        c[len] = '\0';
    }
    return c;
}
