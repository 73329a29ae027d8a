/* bench_common.h - what `oroya bench` and its sweeps share: a counting allocator (so
 * allocs_per_frame can count what timed frames allocate), the clocks and the median. */
#ifndef OROYA_BENCH_COMMON_H
#define OROYA_BENCH_COMMON_H

#include <stdlib.h>
#include <time.h>

#include "oroya/base.h"

typedef struct bench_counter {
    long allocs;
} bench_counter;

static inline void *bench_alloc(size_t size, size_t align, void *user) {
    ((bench_counter *)user)->allocs++;
    if (align < 16) {
        align = 16;
    }
    size_t rounded = (size + align - 1) & ~(align - 1);
    return aligned_alloc(align, rounded ? rounded : align);
}
static inline void bench_free(void *p, void *user) {
    (void)user;
    free(p);
}

/* Single-thread figures use the thread's CPU time: on a shared machine the wall clock also
 * counts the time other processes hold the core. Two-thread figures need the wall clock. */
static inline double cpu_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
static inline double wall_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static inline int bench_cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}
/* Sorts v. */
static inline double median(double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, bench_cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Runs of one figure: at most this many. */
#define MAX_RUNS 64

/* `oroya bench --sweep` (bench_sweep.c): how cost grows with joints, crowd size and vertex
 * count. Prints its figures; returns 0, or 1 after printing an error. */
int oroya_bench_sweep(int runs, bool quick);

#endif
