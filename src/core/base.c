/* Result strings, error formatting and the default allocator. */
#include "internal/base.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const result_strings[OROYA_RESULT_COUNT_] = {
    [OROYA_OK] = "ok",
    [OROYA_ERR_INVALID_ARGUMENT] = "invalid argument",
    [OROYA_ERR_OUT_OF_MEMORY] = "out of memory",
    [OROYA_ERR_IO] = "i/o error",
    [OROYA_ERR_PARSE] = "parse error",
    [OROYA_ERR_INVALID_DATA] = "invalid data",
    [OROYA_ERR_OUT_OF_RANGE] = "out of range",
    [OROYA_ERR_NOT_FOUND] = "not found",
    [OROYA_ERR_STALE_HANDLE] = "stale handle",
    [OROYA_ERR_CYCLE] = "cycle",
    [OROYA_ERR_LIMIT] = "limit exceeded",
    [OROYA_ERR_UNSUPPORTED] = "unsupported",
    [OROYA_ERR_NO_KEYS] = "track has no keys",
    [OROYA_ERR_BAD_TIMES] = "key times not finite or not strictly increasing",
    [OROYA_ERR_VALUE_COUNT] = "value count does not match keys",
    [OROYA_ERR_UNKNOWN_PROPERTY] = "unknown property",
    [OROYA_ERR_NON_FINITE] = "non-finite value",
    [OROYA_ERR_BACKEND] = "graphics backend error",
    [OROYA_ERR_ACCESS] = "access refused",
    [OROYA_ERR_BUSY] = "busy",
};

const char *oroya_result_string(oroya_result result) {
    if ((unsigned)result >= (unsigned)OROYA_RESULT_COUNT_ || !result_strings[result]) {
        return "unknown result";
    }
    return result_strings[result];
}

uint64_t oroya__batch_serial(void) {
    static _Atomic uint64_t next = 1;
    return atomic_fetch_add_explicit(&next, 1, memory_order_relaxed);
}

size_t oroya__mul_size(size_t count, size_t size) {
    if (size != 0 && count > SIZE_MAX / size) {
        return SIZE_MAX;
    }
    return count * size;
}

size_t oroya__take_aligned(size_t *size, size_t count, size_t elem, size_t align) {
    size_t off = *size > SIZE_MAX - align ? SIZE_MAX : (*size + align - 1) & ~(align - 1);
    size_t bytes = oroya__mul_size(count, elem);
    if (off == SIZE_MAX || bytes == SIZE_MAX || off > SIZE_MAX - bytes) {
        *size = SIZE_MAX;
        return 0;
    }
    *size = off + bytes;
    return off;
}

void *oroya__alloc(const oroya_allocator *a, size_t size, size_t align) {
    if (size == 0 || size == SIZE_MAX) {
        return NULL;
    }
    if (a && a->alloc) {
        return a->alloc(size, align, a->user);
    }
    if (align <= _Alignof(max_align_t)) {
        return malloc(size);
    }
    /* aligned_alloc wants a size that is a multiple of the alignment. */
    size_t rounded = (size + align - 1) & ~(align - 1);
    return aligned_alloc(align, rounded);
}

void *oroya__calloc(const oroya_allocator *a, size_t count, size_t size, size_t align) {
    size_t total = oroya__mul_size(count, size);
    void *p = oroya__alloc(a, total, align);
    if (p) {
        memset(p, 0, total);
    }
    return p;
}

void oroya__free(const oroya_allocator *a, void *ptr) {
    if (!ptr) {
        return;
    }
    if (a && a->alloc) {
        if (a->free) {
            a->free(ptr, a->user);
        }
        return;
    }
    free(ptr);
}

void *oroya_allocator_alloc(const oroya_allocator *a, size_t size, size_t align) {
    return oroya__alloc(a, size, align);
}

void *oroya_allocator_calloc(const oroya_allocator *a, size_t count, size_t size, size_t align) {
    return oroya__calloc(a, count, size, align);
}

void oroya_allocator_free(const oroya_allocator *a, void *ptr) { oroya__free(a, ptr); }

oroya_result oroya_error_set(oroya_error *err, oroya_result result, const char *fmt, ...) {
    if (err) {
        va_list ap;
        err->result = result;
        va_start(ap, fmt);
        vsnprintf(err->message, sizeof err->message, fmt, ap);
        va_end(ap);
    }
    return result;
}
