/* `oroya bench --sweep`: how cost grows with size, one figure per line (`name value unit`).
 *
 *   sweep_char_j<N>_us, _ns_per_joint  one character of N joints (16 .. 1024, the built-in
 *                                      humanoid, bench/bench_character.h), walk 0.6 + run 0.4
 *                                      sampled, blended, model and bone matrices; thread CPU
 *                                      time per frame, and per joint
 *   sweep_crowd_n<N>_ms, _us_per_char  N characters of 67 joints (1 .. 10,000) updated by
 *   sweep_crowd_n<N>_2t_ms, _2t_us_... oroya_pose_update_batch on this thread (thread CPU
 *                                      time) and on 2 threads (wall clock)
 *   sweep_triad_gb_s                   the machine's memory bandwidth as STREAM's triad
 *                                      measures it: a[i] = b[i] + s * c[i] over three arrays
 *                                      of 64 MiB, 24 bytes per element (two reads, one write)
 *   sweep_skin_v<N>_mverts_s, _gb_s,   oroya_skin_job_run on the first N vertices (10k .. 2M)
 *   _triad_frac                        of a 2M-vertex body: vertices per second, the bytes
 *                                      that moves counted as STREAM does (72 per vertex:
 *                                      48 read, 24 written), and that rate over the triad's
 *   sweep_allocs_per_frame             what the timed loops allocated (must be 0)
 *
 * Each figure is the median of the runs. --quick keeps every size but runs each once, for a
 * few frames, with 8 MiB triad arrays: its numbers mean nothing. */
#define _POSIX_C_SOURCE 200809L
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_character.h"
#include "bench_common.h"
#include "cli_util.h"
#include "oroya/skin.h"
#include "oroya/pose.h"

#define SKIN_BYTES_PER_VERTEX                                                                      \
    72.0 /* positions, normals, joints, weights in; positions,
                                      normals out */

typedef struct sweep {
    bench_counter counter;
    oroya_allocator allocator;
    long frame_allocs, frames;
    int runs;
    bool quick;
} sweep;

typedef struct actor {
    bench_character c;
    oroya_pose_clip *walk, *run;
} actor;

static void actor_free(actor *a) {
    oroya_pose_clip_destroy(a->walk);
    oroya_pose_clip_destroy(a->run);
    bench_character_free(&a->c);
}

static int actor_make(sweep *s, uint32_t joints, actor *a) {
    memset(a, 0, sizeof *a);
    oroya_error err = {0};
    if (bench_character_create(
            &(bench_character_desc){.joint_count = joints, .allocator = s->allocator}, &a->c,
            &err) != OROYA_OK ||
        oroya_pose_clip_create(&(oroya_pose_clip_desc){.skeleton = a->c.pose_skeleton,
                                                       .clip = bench_character_clip(&a->c, "walk"),
                                                       .allocator = s->allocator},
                               &a->walk, &err) != OROYA_OK ||
        oroya_pose_clip_create(&(oroya_pose_clip_desc){.skeleton = a->c.pose_skeleton,
                                                       .clip = bench_character_clip(&a->c, "run"),
                                                       .allocator = s->allocator},
                               &a->run, &err) != OROYA_OK) {
        fprintf(stderr, "oroya bench: %u joints: %s\n", joints, cli_esc(err.message));
        actor_free(a);
        return 1;
    }
    return 0;
}

static float wrap(float t, float d) {
    float r = t - d * (float)(int)(t / d);
    return r < 0 ? r + d : r;
}

static void set_layers(const actor *a, oroya_pose_layer *l, long frame, uint32_t i) {
    const float t = (float)frame * (1.0f / 60.0f) + 0.0137f * (float)i;
    l[0] = (oroya_pose_layer){a->walk, wrap(t, oroya_pose_clip_duration(a->walk)), 0.6f};
    l[1] = (oroya_pose_layer){a->run, wrap(t, oroya_pose_clip_duration(a->run)), 0.4f};
}

/* ---- one character against joint count ---------------------------------------------------- */

static int sweep_joints(sweep *s) {
    static const uint32_t counts[] = {16, 32, 67, 128, 256, 512, 1024};
    for (size_t k = 0; k < sizeof counts / sizeof counts[0]; k++) {
        const uint32_t n = counts[k];
        actor a;
        if (actor_make(s, n, &a)) {
            return 1;
        }
        oroya_pose_character *ch = NULL;
        oroya_error err = {0};
        if (oroya_pose_character_create(&(oroya_pose_character_desc){.skeleton = a.c.pose_skeleton,
                                                                     .allocator = s->allocator},
                                        &ch, &err) != OROYA_OK) {
            fprintf(stderr, "oroya bench: %u joints: %s\n", n, cli_esc(err.message));
            actor_free(&a);
            return 1;
        }
        /* About 2.5 M joint updates a run. */
        const long frames = s->quick ? 5 : 2500000 / (long)n;
        oroya_pose_layer l[2];
        for (long f = 0; f < frames / 10 + 1; f++) { /* warm up */
            set_layers(&a, l, f, 0);
            oroya_pose_character_update(ch, l, 2, NULL);
        }
        double v[MAX_RUNS];
        for (int r = 0; r < s->runs; r++) {
            const long a0 = s->counter.allocs;
            const double t0 = cpu_s();
            for (long f = 0; f < frames; f++) {
                set_layers(&a, l, f, 0);
                oroya_pose_character_update(ch, l, 2, NULL);
            }
            v[r] = (cpu_s() - t0) * 1e6 / (double)frames;
            s->frame_allocs += s->counter.allocs - a0;
            s->frames += frames;
        }
        const double us = median(v, s->runs);
        printf("sweep_char_j%u_us %.3f us\n", n, us);
        printf("sweep_char_j%u_ns_per_joint %.2f ns\n", n, us * 1e3 / n);
        fflush(stdout);
        oroya_pose_character_destroy(ch);
        actor_free(&a);
    }
    return 0;
}

/* ---- crowds -------------------------------------------------------------------------------- */

static int sweep_crowds(sweep *s) {
    enum { MAX_CROWD = 10000 };
    static const uint32_t sizes[] = {1, 10, 100, 1000, MAX_CROWD};
    actor a;
    if (actor_make(s, BENCH_CHARACTER_JOINTS, &a)) {
        return 1;
    }
    int status = 1;
    oroya_error err = {0};
    oroya_thread_pool *pool = NULL;
    oroya_pose_character **chars = calloc(MAX_CROWD, sizeof *chars);
    oroya_pose_layer(*layers)[2] = calloc(MAX_CROWD, sizeof *layers);
    oroya_pose_update *updates = calloc(MAX_CROWD, sizeof *updates);
    if (!chars || !layers || !updates) {
        fprintf(stderr, "oroya bench: out of memory\n");
        goto done;
    }
    for (uint32_t i = 0; i < MAX_CROWD; i++) {
        if (oroya_pose_character_create(&(oroya_pose_character_desc){.skeleton = a.c.pose_skeleton,
                                                                     .allocator = s->allocator},
                                        &chars[i], &err) != OROYA_OK) {
            fprintf(stderr, "oroya bench: %s\n", cli_esc(err.message));
            goto done;
        }
        updates[i] = (oroya_pose_update){chars[i], layers[i], 2};
    }
    if (oroya_thread_pool_create(
            &(oroya_thread_pool_desc){.thread_count = 2, .allocator = s->allocator}, &pool, &err) !=
        OROYA_OK) {
        fprintf(stderr, "oroya bench: %s\n", cli_esc(err.message));
        goto done;
    }
    const oroya_scheduler two = {oroya_thread_pool_parallel_for, pool};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        const uint32_t n = sizes[k];
        /* About 20,000 character updates a run. */
        const long frames = s->quick ? 1 : (20000 + n - 1) / n;
        for (int threads = 1; threads <= 2; threads++) {
            const oroya_scheduler *sched = threads == 2 ? &two : NULL;
            double (*now_s)(void) = sched ? wall_s : cpu_s;
            double v[MAX_RUNS];
            for (int r = -1; r < s->runs; r++) { /* run -1 warms up */
                const long a0 = s->counter.allocs;
                const double t0 = now_s();
                for (long f = 0; f < frames; f++) {
                    for (uint32_t i = 0; i < n; i++) {
                        set_layers(&a, layers[i], f, i);
                    }
                    oroya_pose_update_batch(updates, n, sched, NULL);
                }
                const double ms = (now_s() - t0) * 1e3 / (double)frames;
                if (r >= 0) {
                    v[r] = ms;
                    s->frame_allocs += s->counter.allocs - a0;
                    s->frames += frames;
                }
            }
            const double ms = median(v, s->runs);
            const char *tag = threads == 2 ? "_2t" : "";
            printf("sweep_crowd_n%u%s_ms %.4f ms\n", n, tag, ms);
            printf("sweep_crowd_n%u%s_us_per_char %.3f us\n", n, tag, ms * 1e3 / n);
            fflush(stdout);
        }
    }
    status = 0;
done:
    oroya_thread_pool_destroy(pool);
    for (uint32_t i = 0; chars && i < MAX_CROWD; i++) {
        oroya_pose_character_destroy(chars[i]);
    }
    free(chars);
    free(layers);
    free(updates);
    actor_free(&a);
    return status;
}

/* ---- memory bandwidth and skinning ------------------------------------------------------- */

/* STREAM's triad on three arrays of n doubles; GB/s (1e9 bytes), 24 bytes an element. */
static double triad_gb_s(sweep *s, size_t n) {
    double *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *c = malloc(n * sizeof *c);
    double result = -1;
    if (a && b && c) {
        for (size_t i = 0; i < n; i++) { /* touch every page before timing */
            a[i] = 0;
            b[i] = 1.0 + (double)(i & 7);
            c[i] = 0.5;
        }
        const double q = 3.0;
        double v[MAX_RUNS];
        for (int r = 0; r < s->runs; r++) {
            const double t0 = cpu_s();
            for (size_t i = 0; i < n; i++) {
                a[i] = b[i] + q * c[i];
            }
            v[r] = 24.0 * (double)n / (cpu_s() - t0) / 1e9;
            b[(size_t)r % n] = a[((size_t)r * 7919) % n]; /* keep the stores live */
        }
        double check = 0;
        for (size_t i = 0; i < n; i += 4096) {
            check += a[i];
        }
        result = check == check ? median(v, s->runs) : -1;
    }
    free(a);
    free(b);
    free(c);
    return result;
}

static int sweep_skinning(sweep *s) {
    static const struct {
        const char *tag;
        uint32_t vertices;
    } sizes[] = {{"10k", 10000},   {"30k", 30000},  {"100k", 100000},
                 {"300k", 300000}, {"1m", 1000000}, {"2m", 2000000}};
    const double triad = triad_gb_s(s, s->quick ? (size_t)1 << 20 : (size_t)1 << 23);
    if (triad <= 0) {
        fprintf(stderr, "oroya bench: triad: out of memory\n");
        return 1;
    }
    printf("sweep_triad_gb_s %.2f GB/s\n", triad);
    fflush(stdout);

    actor a;
    if (actor_make(s, BENCH_CHARACTER_JOINTS, &a)) {
        return 1;
    }
    /* The body, streams only (one copy of 2M vertices), built with malloc: load-time work. */
    bench_character body;
    oroya_error err = {0};
    int status = 1;
    oroya_pose_character *ch = NULL;
    float *out_pos = NULL, *out_nor = NULL;
    if (bench_character_create(
            &(bench_character_desc){.vertex_count = 2010000, .streams_only = true}, &body, &err) !=
        OROYA_OK) {
        fprintf(stderr, "oroya bench: body: %s\n", cli_esc(err.message));
        actor_free(&a);
        return 1;
    }
    const uint32_t total = body.vertex_count;
    out_pos = malloc((size_t)total * 3 * sizeof(float));
    out_nor = malloc((size_t)total * 3 * sizeof(float));
    if (!out_pos || !out_nor ||
        oroya_pose_character_create(
            &(oroya_pose_character_desc){.skeleton = a.c.pose_skeleton, .allocator = s->allocator},
            &ch, &err) != OROYA_OK) {
        fprintf(stderr, "oroya bench: skinning: %s\n",
                cli_esc(out_pos && out_nor ? err.message : "out of memory"));
        goto done;
    }
    oroya_pose_layer l[2];
    set_layers(&a, l, 17, 0);
    oroya_pose_character_update(ch, l, 2, NULL);
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        const uint32_t n = sizes[k].vertices < total ? sizes[k].vertices : total;
        oroya_skin_job job = {.count = n,
                              .positions = body.positions,
                              .normals = body.normals,
                              .joints = body.joints,
                              .weights = body.weights,
                              .palette_count = BENCH_CHARACTER_JOINTS,
                              .palette = oroya_pose_character_bones(ch)->m,
                              .out_positions = out_pos,
                              .out_normals = out_nor};
        if (oroya_skin_job_run(&job, &err) != OROYA_OK) { /* also the warm-up */
            fprintf(stderr, "oroya bench: skinning: %s\n", cli_esc(err.message));
            goto done;
        }
        /* About 20 M vertices a run. */
        const long iters = s->quick ? 1 : (20000000 + n - 1) / n;
        double v[MAX_RUNS];
        for (int r = 0; r < s->runs; r++) {
            const long a0 = s->counter.allocs;
            const double t0 = cpu_s();
            for (long it = 0; it < iters; it++) {
                oroya_skin_job_run(&job, NULL);
            }
            v[r] = (double)n * (double)iters / (cpu_s() - t0) / 1e6;
            s->frame_allocs += s->counter.allocs - a0;
            s->frames += iters;
        }
        const double mverts = median(v, s->runs);
        const double gb_s = mverts * 1e6 * SKIN_BYTES_PER_VERTEX / 1e9;
        printf("sweep_skin_v%s_mverts_s %.1f Mverts/s\n", sizes[k].tag, mverts);
        printf("sweep_skin_v%s_gb_s %.2f GB/s\n", sizes[k].tag, gb_s);
        printf("sweep_skin_v%s_triad_frac %.3f fraction\n", sizes[k].tag, gb_s / triad);
        fflush(stdout);
    }
    status = 0;
done:
    free(out_pos);
    free(out_nor);
    oroya_pose_character_destroy(ch);
    bench_character_free(&body);
    actor_free(&a);
    return status;
}

int oroya_bench_sweep(int runs, bool quick) {
    sweep s = {.runs = quick ? 1 : runs, .quick = quick};
    s.allocator = (oroya_allocator){bench_alloc, bench_free, &s.counter};
    if (sweep_joints(&s) || sweep_crowds(&s) || sweep_skinning(&s)) {
        return 1;
    }
    printf("sweep_allocs_per_frame %g allocs\n", (double)s.frame_allocs / (double)s.frames);
    return 0;
}
