/* test_robustness_common.h - the counting, failing allocator and the fault-injection loop
 * shared by the test_robustness*.c programs.
 *
 * rb_heap counts every allocation an oroya call makes through an oroya_allocator: calls,
 * live blocks and bytes, the peak, and can refuse exactly the Nth allocation. Fresh blocks
 * are filled with 0xA5 so code that relies on zeroed memory from malloc shows up.
 *
 * rb_fail_each(name, path, ctx) runs `path` with the Nth allocation refused, for N = 1, 2,
 * ... until a run makes fewer than N allocations (the path then succeeded untouched). Each
 * failing run must return OROYA_ERR_OUT_OF_MEMORY (not OK, not another code, no crash),
 * with a message, and must have freed everything (live == 0). A path creates, uses and
 * destroys everything itself, so "freed everything" is checked by the counter, and ASan or
 * valgrind check the rest. */
#ifndef TEST_ROBUSTNESS_COMMON_H
#define TEST_ROBUSTNESS_COMMON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "oroya/base.h"
#include "oroya_test.h"

typedef struct rb_heap {
    long fail_at; /* 1-based index of the allocation to refuse; 0 = none */
    long calls;   /* allocation requests, refused ones included */
    long refused;
    long live; /* blocks not yet freed */
    size_t live_bytes;
    size_t peak_bytes;  /* largest live_bytes seen */
    size_t largest;     /* largest single request */
    size_t total_bytes; /* sum of all granted requests */
    long bad_frees;     /* frees of pointers this heap did not hand out */
    size_t max_request; /* requests above this are refused; 0 = no cap */
} rb_heap;

#define RB_MAGIC 0x6f726f7961ull /* "oroya" */

/* Block layout: [pad ...][hdr u64][magic u64][size u64] user data. The header is `hdr` bytes
 * (the alignment, at least 32), so the user pointer keeps the requested alignment. */
static inline void *rb_alloc(size_t size, size_t align, void *user) {
    rb_heap *h = (rb_heap *)user;
    h->calls++;
    if ((h->fail_at > 0 && h->calls == h->fail_at) || (h->max_request && size > h->max_request)) {
        h->refused++;
        return NULL;
    }
    if (align < 32) {
        align = 32;
    }
    size_t hdr = align;
    if (size > SIZE_MAX - hdr - align) {
        return NULL;
    }
    size_t total = (hdr + size + align - 1) & ~(align - 1);
    unsigned char *base = (unsigned char *)aligned_alloc(align, total);
    if (!base) {
        return NULL;
    }
    unsigned char *p = base + hdr;
    uint64_t words[3] = {(uint64_t)hdr, RB_MAGIC, (uint64_t)size};
    memcpy(p - sizeof words, words, sizeof words);
    memset(p, 0xA5, size < 65536 ? size : 65536); /* enough to show reliance on zeroes */
    h->live++;
    h->live_bytes += size;
    h->total_bytes += size;
    if (h->live_bytes > h->peak_bytes) {
        h->peak_bytes = h->live_bytes;
    }
    if (size > h->largest) {
        h->largest = size;
    }
    return p;
}

static inline void rb_free(void *ptr, void *user) {
    rb_heap *h = (rb_heap *)user;
    if (!ptr) {
        return;
    }
    unsigned char *p = (unsigned char *)ptr;
    uint64_t words[3];
    memcpy(words, p - sizeof words, sizeof words);
    if (words[1] != RB_MAGIC) {
        h->bad_frees++;
        return;
    }
    words[1] = 0;
    memcpy(p - sizeof words, words, sizeof words);
    h->live--;
    h->live_bytes -= (size_t)words[2];
    free(p - words[0]);
}

static inline oroya_allocator rb_allocator(rb_heap *h) {
    oroya_allocator a = {rb_alloc, rb_free, h};
    return a;
}

static inline void rb_reset(rb_heap *h, long fail_at) {
    memset(h, 0, sizeof *h);
    h->fail_at = fail_at;
}

/* A path: make everything with `a`, use it, free it; return the first failure. */
typedef oroya_result (*rb_path_fn)(const oroya_allocator *a, void *ctx, oroya_error *err);

/* Runs the fault-injection loop; returns the allocations of the clean run (-1 if the loop
 * never finished). with_message: the path's calls fill an oroya_error (scene calls do not). */
static inline long rb_fail_each(const char *name, rb_path_fn path, void *ctx, bool with_message) {
    rb_heap h;
    const long cap = 200000;
    for (long n = 1; n <= cap; n++) {
        rb_reset(&h, n);
        oroya_allocator a = rb_allocator(&h);
        oroya_error err = {0};
        oroya_result r = path(&a, ctx, &err);
        OT_CHECK_MSG(h.live == 0 && h.live_bytes == 0,
                     "%s: fail #%ld: %ld blocks (%zu bytes) "
                     "leaked",
                     name, n, h.live, h.live_bytes);
        OT_CHECK_MSG(h.bad_frees == 0, "%s: fail #%ld: %ld bad frees", name, n, h.bad_frees);
        if (h.calls < n) {
            OT_CHECK_MSG(r == OROYA_OK, "%s: clean run returned %s: %s", name,
                         oroya_result_string(r), err.message);
            return h.calls;
        }
        OT_CHECK_MSG(r == OROYA_ERR_OUT_OF_MEMORY, "%s: allocation #%ld refused, got %s (%s)", name,
                     n, oroya_result_string(r), err.message);
        if (r == OROYA_ERR_OUT_OF_MEMORY && with_message) {
            OT_CHECK_MSG(err.result == OROYA_ERR_OUT_OF_MEMORY && err.message[0] != '\0',
                         "%s: allocation #%ld refused: err not filled (result %d, \"%s\")", name, n,
                         (int)err.result, err.message);
        }
    }
    OT_CHECK_MSG(0, "%s: more than %ld allocations", name, cap);
    return -1;
}

/* OT_RUN that also prints the CPU time each test took (tests must stay fast under ASan). */
#define RB_RUN(fn)                                                                                 \
    do {                                                                                           \
        clock_t rb_c0_ = clock();                                                                  \
        OT_RUN(fn);                                                                                \
        printf("%-32s %.2f s CPU\n", #fn, (double)(clock() - rb_c0_) / CLOCKS_PER_SEC);            \
    } while (0)

#endif
