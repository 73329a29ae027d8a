/* Internal helpers shared by oroya's modules: error formatting and allocation. */
#ifndef OROYA_INTERNAL_BASE_H
#define OROYA_INTERNAL_BASE_H

#include "oroya/base.h"

#if defined(__GNUC__) || defined(__clang__)
#define OROYA__PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#else
#define OROYA__PRINTF(fmt, args)
#endif

/* Sets err (when not NULL) to `result` and the formatted message; returns `result`, so
 * error paths read `return oroya__fail(err, OROYA_ERR_X, "path: what");`. The library's
 * short name for the public oroya_error_set (oroya/base.h): one function, since a variadic
 * function cannot forward its arguments to another. */
#define oroya__fail oroya_error_set

/* Allocation through an optional user allocator (NULL or zeroed: malloc/free). */
void *oroya__alloc(const oroya_allocator *a, size_t size, size_t align);
void *oroya__calloc(const oroya_allocator *a, size_t count, size_t size, size_t align);
void oroya__free(const oroya_allocator *a, void *ptr);

/* count * size, or SIZE_MAX when it overflows (so the allocation then fails cleanly). */
size_t oroya__mul_size(size_t count, size_t size);

/* Reserves count * elem bytes at an `align`-byte aligned offset (align a power of two) of a
 * single block being sized (then allocated with at least that alignment): returns the offset
 * and moves *size past it; *size becomes SIZE_MAX on overflow (the allocation then fails). */
size_t oroya__take_aligned(size_t *size, size_t count, size_t elem, size_t align);

/* A number no other call returns in this process (never 0): the batch calls mark their items
 * with it, so that an item given twice is found in one pass with no table. Thread-safe. */
uint64_t oroya__batch_serial(void);

#endif
