/* oroya_test.h - a tiny single-header test harness.
 *
 *   static void test_something(void) { OT_CHECK(1 + 1 == 2); OT_NEAR(x, 1.0, 1e-6); }
 *   int main(void) { OT_RUN(test_something); return ot_finish(); }
 *
 * Each check counts; a failing one prints file:line and the expression and the test goes
 * on. ot_finish() prints "N passed, N failed" and returns non-zero when any check failed.
 *
 * OROYA_TEST_SHARD=I/N in the environment runs only the OT_RUN tests whose index (from 0, in
 * main's order) is I modulo N: N processes with I = 0 .. N-1 run every test once between them
 * (tests/valgrind/run_valgrind.sh splits its slowest program so). */
#ifndef OROYA_TEST_H
#define OROYA_TEST_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int ot_passed_;
static int ot_failed_;
static const char *ot_current_ = "";

#define OT_CHECK(cond)                                                                             \
    do {                                                                                           \
        if (cond) {                                                                                \
            ot_passed_++;                                                                          \
        } else {                                                                                   \
            ot_failed_++;                                                                          \
            fprintf(stderr, "%s:%d: %s: check failed: %s\n", __FILE__, __LINE__, ot_current_,      \
                    #cond);                                                                        \
        }                                                                                          \
    } while (0)

#define OT_CHECK_MSG(cond, ...)                                                                    \
    do {                                                                                           \
        if (cond) {                                                                                \
            ot_passed_++;                                                                          \
        } else {                                                                                   \
            ot_failed_++;                                                                          \
            fprintf(stderr, "%s:%d: %s: check failed: %s: ", __FILE__, __LINE__, ot_current_,      \
                    #cond);                                                                        \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
        }                                                                                          \
    } while (0)

/* |a - b| <= tol, and neither is NaN. */
#define OT_NEAR(a, b, tol)                                                                         \
    do {                                                                                           \
        double ot_a_ = (double)(a), ot_b_ = (double)(b);                                           \
        if (fabs(ot_a_ - ot_b_) <= (double)(tol)) {                                                \
            ot_passed_++;                                                                          \
        } else {                                                                                   \
            ot_failed_++;                                                                          \
            fprintf(stderr, "%s:%d: %s: %s = %.9g, expected %s = %.9g (tol %g)\n", __FILE__,       \
                    __LINE__, ot_current_, #a, ot_a_, #b, ot_b_, (double)(tol));                   \
        }                                                                                          \
    } while (0)

#define OT_EQ_INT(a, b)                                                                            \
    do {                                                                                           \
        long long ot_a_ = (long long)(a), ot_b_ = (long long)(b);                                  \
        if (ot_a_ == ot_b_) {                                                                      \
            ot_passed_++;                                                                          \
        } else {                                                                                   \
            ot_failed_++;                                                                          \
            fprintf(stderr, "%s:%d: %s: %s = %lld, expected %s = %lld\n", __FILE__, __LINE__,      \
                    ot_current_, #a, ot_a_, #b, ot_b_);                                            \
        }                                                                                          \
    } while (0)

/* Whether the next OT_RUN test is in this process's shard (OROYA_TEST_SHARD=I/N). */
static inline int ot_in_shard_(void) {
    static int index = 0, shard = 0, shards = 1, read = 0;
    if (!read) {
        read = 1;
        const char *env = getenv("OROYA_TEST_SHARD");
        if (env && (sscanf(env, "%d/%d", &shard, &shards) != 2 || shards < 1 || shard < 0 ||
                    shard >= shards)) {
            fprintf(stderr, "OROYA_TEST_SHARD=%s: want I/N with 0 <= I < N\n", env);
            exit(2);
        }
    }
    return index++ % shards == shard;
}

#define OT_RUN(fn)                                                                                 \
    do {                                                                                           \
        if (ot_in_shard_()) {                                                                      \
            ot_current_ = #fn;                                                                     \
            fn();                                                                                  \
        }                                                                                          \
    } while (0)

static inline int ot_finish(void) {
    printf("%d passed, %d failed\n", ot_passed_, ot_failed_);
    return ot_failed_ == 0 && ot_passed_ > 0 ? 0 : 1;
}

/* Whether all n floats at v are finite (a run of matrices: n = 16 per matrix). */
static inline int ot_all_finite(const float *v, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (!isfinite(v[i]))
            return 0;
    return 1;
}

/* A small deterministic generator (xorshift32) so property tests repeat exactly. */
static unsigned ot_rng_state_ = 2463534242u;
static inline float ot_randf(float lo, float hi) {
    unsigned x = ot_rng_state_;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    ot_rng_state_ = x;
    return lo + (hi - lo) * (float)((double)(x >> 8) / 16777216.0);
}

#endif
