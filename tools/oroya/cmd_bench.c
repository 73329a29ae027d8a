/* oroya bench: the speed figures, one per line as `name value unit`.
 *
 *   oroya bench [HUMANOID.glb] [--skin CROWD.glb] [--runs N] [--char-frames N] [--quick]
 *               [--sweep]
 *   oroya bench --write DIR
 *
 * Without files the characters are built in memory (bench/bench_character.h): the 67-joint
 * humanoid with its walk, run, wave and walk_cubic clips, and its 100k-vertex body for
 * skinning; the glTF load figures then time a .glb of that body written by oroya_gltf_write
 * to a temporary file. HUMANOID.glb replaces the humanoid (its first skin and clips named
 * walk, run, wave, walk_cubic), CROWD.glb the skinned mesh and the file loaded.
 *
 * Each figure is the median of N runs (default 9). --quick shrinks every count so CI can
 * check that the benchmark works; its numbers mean nothing (a --runs given with it is kept).
 * --char-frames N sets the frames of each char_frame run (default 20,000; 50 with --quick):
 * `--quick --runs 1 --char-frames 2000` under callgrind counts 2,000 frames at 60 Hz in
 * char_frames_float and char_frames_compressed (docs/performance.md). --sweep then adds how cost grows
 * with joint count, crowd size and vertex count (tools/oroya/bench_sweep.c, built-in
 * characters). Everything is allocated through a counting allocator, and allocs_per_frame
 * counts what the timed frames allocated (must be 0).
 * Single-thread times are the thread's CPU time (CLOCK_THREAD_CPUTIME_ID), crowd1000_2t_ms is
 * wall-clock; the machine may be shared, hence medians. gltf_load_mb_s is wall-clock (it
 * reads a file): oroya_gltf_load (parse, validate, import) plus the pose skeleton, with memory
 * a previous load freed; gltf_load_cold_mb_s is the process's first load, which also pays
 * the page faults of fresh memory (on a virtual machine they can cost more than the load). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "bench_character.h"
#include "bench_common.h"
#include "cli.h"
#include "cli_util.h"
#include "oroya/gltf.h"
#include "oroya/pose.h"
#include "oroya/rig.h"
#include "oroya/skin.h"

/* A glTF character through the public bridge: the model, the rig of its first skin (its
 * kernel skeleton) and the first skinned mesh's vertex streams (owned by the model). */
typedef struct bench_asset {
    oroya_gltf_model *model;
    oroya_rig *rig;
    const oroya_pose_skeleton *skeleton;
    uint32_t vertex_count;
    const float *positions, *normals, *weights;
    const uint16_t *joints;
} bench_asset;

static void bench_asset_free(bench_asset *as) {
    oroya_rig_destroy(as->rig);
    oroya_gltf_model_free(as->model);
    memset(as, 0, sizeof *as);
}

static oroya_result bench_asset_load(const char *path, const oroya_allocator *a, bench_asset *as,
                                     oroya_error *err) {
    memset(as, 0, sizeof *as);
    oroya_gltf_import_desc desc = {.skip_images = true, .allocator = *a};
    oroya_result res = oroya_gltf_load(path, &desc, &as->model, err);
    if (res == OROYA_OK) {
        res = oroya_rig_create_gltf(as->model, 0, a, &as->rig, err);
    }
    if (res != OROYA_OK) {
        bench_asset_free(as);
        return res;
    }
    as->skeleton = oroya_rig_skeleton(as->rig);
    if (as->model->skinned_mesh_count > 0) {
        const oroya_skin *sk = as->model->skinned_meshes[0];
        as->vertex_count = sk->vertex_count;
        as->positions = sk->positions;
        as->normals = sk->normals;
        as->joints = sk->joints;
        as->weights = sk->weights;
    }
    return OROYA_OK;
}

static const oroya_clip *bench_asset_clip(const bench_asset *as, const char *name) {
    for (uint32_t i = 0; i < as->model->clip_count; i++) {
        if (as->model->clips[i] && !strcmp(as->model->clips[i]->name, name)) {
            return as->model->clips[i];
        }
    }
    return NULL;
}

#define CROWD 1000

typedef struct bench_state {
    bench_counter counter;
    oroya_allocator allocator;
    bench_asset human;         /* HUMANOID.glb, or */
    bench_character generated; /* the built-in character */
    const oroya_pose_skeleton *skeleton;
    oroya_pose_clip *walk, *run, *wave, *walk_cubic;
    oroya_pose_character **chars;
    oroya_pose_layer (*layers)[3];
    oroya_pose_update *updates;
    long frame_allocs;
    long frames;
} bench_state;

static float wrap(float t, float d) {
    float r = t - d * (float)(int)(t / d);
    return r < 0 ? r + d : r;
}

/* Sets the layers of character i for frame f: walk/run at 0.6/0.4 with per-character time
 * offsets, plus wave (additive) when asked. */
static uint32_t set_layers(bench_state *s, uint32_t i, long f, const oroya_pose_clip *walk,
                           bool additive) {
    const float t = (float)f * (1.0f / 60.0f) + 0.0137f * (float)i;
    s->layers[i][0] = (oroya_pose_layer){walk, wrap(t, oroya_pose_clip_duration(walk)), 0.6f};
    s->layers[i][1] = (oroya_pose_layer){s->run, wrap(t, oroya_pose_clip_duration(s->run)), 0.4f};
    s->layers[i][2] = (oroya_pose_layer){s->wave, wrap(t, oroya_pose_clip_duration(s->wave)), 1};
    return additive ? 3u : 2u;
}

/* Microseconds per frame of one character (inlined into the callgrind loops below, so that
 * their counts hold the frames and not a tail call). */
static inline __attribute__((always_inline)) double
char_frame(bench_state *s, const oroya_pose_clip *walk, bool additive, int frames) {
    const long a0 = s->counter.allocs;
    double t0 = cpu_s();
    for (int f = 0; f < frames; f++) {
        uint32_t n = set_layers(s, 0, f, walk, additive);
        oroya_pose_character_update(s->chars[0], s->layers[0], n, NULL);
    }
    double t1 = cpu_s();
    s->frame_allocs += s->counter.allocs - a0;
    s->frames += frames;
    return (t1 - t0) * 1e6 / frames;
}

/* The char_frame_us and char_frame_compressed_us loops, apart so that callgrind can count
 * each alone (docs/performance.md: --toggle-collect=char_frames_float and
 * char_frames_compressed; their warm-up frames call char_frame directly and are not counted). */
static __attribute__((noinline)) double char_frames_float(bench_state *s, int frames) {
    return char_frame(s, s->walk, false, frames);
}
static __attribute__((noinline)) double
char_frames_compressed(bench_state *s, const oroya_pose_clip *walk, int frames) {
    return char_frame(s, walk, false, frames);
}

/* Milliseconds per frame of the whole crowd. */
static double crowd_frame(bench_state *s, const oroya_scheduler *sched, int frames) {
    double (*now_s)(void) = sched ? wall_s : cpu_s;
    double best = 0;
    const long a0 = s->counter.allocs;
    double t0 = now_s();
    for (int f = 0; f < frames; f++) {
        for (uint32_t i = 0; i < CROWD; i++) {
            s->updates[i].layer_count = set_layers(s, i, f, s->walk, false);
        }
        oroya_pose_update_batch(s->updates, CROWD, sched, NULL);
    }
    best = (now_s() - t0) * 1e3 / frames;
    s->frame_allocs += s->counter.allocs - a0;
    s->frames += frames;
    return best;
}

/* The one-thread crowd, apart so that callgrind can count it alone
 * (--toggle-collect=crowd_frames_pose; bench_mixer.c has crowd_frames_mixer). */
static __attribute__((noinline)) double crowd_frames_pose(bench_state *s, int frames) {
    return crowd_frame(s, NULL, frames);
}

static int usage(FILE *f) {
    fprintf(f, "usage: oroya bench [HUMANOID.glb] [--skin CROWD.glb] [--runs N] [--char-frames N]\n"
               "                   [--quick] [--sweep]\n"
               "       oroya bench --write DIR\n"
               "  Without files the characters are built in memory: a 67-joint humanoid with\n"
               "  clips walk, run, wave and walk_cubic, and a 100k-vertex skinned body.\n"
               "  HUMANOID.glb: its first skin is the skeleton, and it must have clips named\n"
               "    walk, run, wave (played additively) and walk_cubic on that skin's joints.\n"
               "  CROWD.glb: its first skinned mesh (on a skeleton of as many joints) is skinned,\n"
               "    and the file is what the glTF load figures load.\n"
               "  --runs N: median of N runs (1..64, default 9); --quick: tiny counts, for CI\n"
               "    (3 runs unless --runs is given);\n"
               "  --char-frames N: frames of each single-character run (default 20000, 50 with\n"
               "    --quick);\n"
               "  --write DIR: write the built-in characters as DIR/humanoid67.glb (10k-vertex\n"
               "    body) and DIR/crowd_skin100k.glb (100k), and stop.\n"
               "  --sweep: then how cost grows with joint count (16..1024), crowd size\n"
               "    (1..10,000, 1 and 2 threads) and vertex count (10k..2M, beside the memory\n"
               "    bandwidth of a STREAM triad); built-in characters, ~20 s of CPU time.\n");
    return 2;
}

/* Writes the built-in character with a body of about `vertices` vertices as a .glb. */
static int write_character_glb(const char *path, uint32_t vertices, oroya_error *err) {
    bench_character c;
    if (bench_character_create(&(bench_character_desc){.vertex_count = vertices}, &c, err) !=
        OROYA_OK) {
        return -1;
    }
    const oroya_clip *clips[BENCH_CHARACTER_CLIPS];
    for (int i = 0; i < BENCH_CHARACTER_CLIPS; i++) {
        clips[i] = c.clips[i];
    }
    oroya_result r =
        oroya_gltf_write(c.scene,
                         &(oroya_gltf_write_desc){
                             .binary = true, .clips = clips, .clip_count = BENCH_CHARACTER_CLIPS},
                         path, err);
    bench_character_free(&c);
    return r == OROYA_OK ? 0 : -1;
}

/* The built-in 100k-vertex body as a .glb in a new temporary file (the glTF load figures'
 * input without files). Returns 0 and fills path, or -1. */
static int write_generated_glb(char *path, size_t size, oroya_error *err) {
    const char *tmp = getenv("TMPDIR");
    snprintf(path, size, "%s/oroya-bench-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    int fd = mkstemp(path);
    if (fd < 0) {
        snprintf(err->message, sizeof err->message, "%s: cannot create a temporary file", path);
        path[0] = 0;
        return -1;
    }
    close(fd);
    if (write_character_glb(path, 100000, err) != 0) {
        unlink(path);
        path[0] = 0;
        return -1;
    }
    return 0;
}

/* --write DIR: the built-in characters as files, for other engines and for
 * OROYA_EXTRA_ASSETS (tests/unit/test_bench_character.c). */
static int write_files(const char *dir) {
    static const struct {
        const char *name;
        uint32_t vertices;
    } files[2] = {{"humanoid67.glb", 10000}, {"crowd_skin100k.glb", 100000}};
    for (int i = 0; i < 2; i++) {
        char path[4096];
        oroya_error err = {0};
        const int n = snprintf(path, sizeof path, "%s/%s", dir, files[i].name);
        if (n < 0 || (size_t)n >= sizeof path) {
            fprintf(stderr, "oroya bench: --write %s: the path is too long\n", cli_esc(dir));
            return 1; /* a cut path would name another file */
        }
        if (write_character_glb(path, files[i].vertices, &err) != 0) {
            fprintf(stderr, "oroya bench: %s\n", cli_esc(err.message));
            return 1;
        }
        printf("%s\n", path);
    }
    return 0;
}

/* A whole decimal number in 1..max, digits only (atoi took "3x" as 3 and "1e3" as 1; strtol
 * alone takes " 3" and "+3"). */
static bool parse_count(const char *s, int max, int *out) {
    char *end = NULL;
    if (!(*s >= '0' && *s <= '9')) {
        return false;
    }
    errno = 0;
    long v = strtol(s, &end, 10);
    if (end == s || *end || errno || v < 1 || v > max) {
        return false;
    }
    *out = (int)v;
    return true;
}

/* Names the argument (and the option it is the value of), then the usage: exit status 2. */
static int bad_argument(const char *option, const char *value, int max) {
    if (option) {
        fprintf(stderr, "oroya bench: %s '%s' is not a whole number in 1..%d\n", option,
                cli_esc(value), max);
    } else {
        fprintf(stderr, "oroya bench: bad or incomplete argument '%s'\n", cli_esc(value));
    }
    return usage(stderr);
}

int oroya_cmd_bench(int argc, char **argv) {
    const char *human_path = NULL, *skin_path = NULL, *write_dir = NULL;
    int runs = 9, char_frames_arg = 0;
    bool quick = false, sweep = false, runs_given = false;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--quick")) {
            quick = true;
        } else if (!strcmp(argv[i], "--sweep")) {
            sweep = true;
        } else if (!strcmp(argv[i], "--runs") && i + 1 < argc) {
            runs_given = true;
            if (!parse_count(argv[++i], MAX_RUNS, &runs)) {
                return bad_argument("--runs", argv[i], MAX_RUNS);
            }
        } else if (!strcmp(argv[i], "--char-frames") && i + 1 < argc) {
            if (!parse_count(argv[++i], 10000000, &char_frames_arg)) {
                return bad_argument("--char-frames", argv[i], 10000000);
            }
        } else if (!strcmp(argv[i], "--write") && i + 1 < argc) {
            write_dir = argv[++i];
        } else if (!strcmp(argv[i], "--skin") && i + 1 < argc) {
            skin_path = argv[++i];
        } else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage(stdout);
            return 0;
        } else if (argv[i][0] == '-' || human_path) {
            return bad_argument(NULL, argv[i], 0);
        } else {
            human_path = argv[i];
        }
    }
    if (write_dir) {
        return write_files(write_dir);
    }
    if (quick && !runs_given) {
        runs = 3;
    }
    const int char_frames = char_frames_arg ? char_frames_arg : quick ? 50 : 20000;
    const int crowd_frames = quick ? 2 : 40;
    const int skin_iters = quick ? 1 : 10;

    static bench_state st;
    bench_state *s = &st;
    memset(s, 0, sizeof *s);
    s->allocator = (oroya_allocator){bench_alloc, bench_free, &s->counter};
    oroya_error err = {0};
    int status = 1;
    oroya_thread_pool *pool = NULL;
    bench_asset crowd_asset;
    memset(&crowd_asset, 0, sizeof crowd_asset);
    float *out_pos = NULL, *out_nor = NULL;
    char generated_glb[1024] = "";

    if (human_path) {
        if (bench_asset_load(human_path, &s->allocator, &s->human, &err) != OROYA_OK) {
            fprintf(stderr, "oroya bench: %s\n", cli_esc(err.message));
            return 1;
        }
        s->skeleton = s->human.skeleton;
    } else {
        if (bench_character_create(&(bench_character_desc){.allocator = s->allocator},
                                   &s->generated, &err) != OROYA_OK) {
            fprintf(stderr, "oroya bench: %s\n", cli_esc(err.message));
            return 1;
        }
        s->skeleton = s->generated.pose_skeleton;
    }
    const char *names[4] = {"walk", "run", "wave", "walk_cubic"};
    oroya_pose_clip **slots[4] = {&s->walk, &s->run, &s->wave, &s->walk_cubic};
    for (int i = 0; i < 4; i++) {
        const oroya_clip *c = human_path ? bench_asset_clip(&s->human, names[i])
                                         : bench_character_clip(&s->generated, names[i]);
        if (!c) {
            fprintf(stderr,
                    "oroya bench: %s: no clip named %s (a HUMANOID file needs clips named walk, "
                    "run, wave and walk_cubic)\n",
                    human_path, names[i]);
            goto done;
        }
        oroya_pose_clip_desc d = {
            .skeleton = s->skeleton, .clip = c, .additive = i == 2, .allocator = s->allocator};
        if (oroya_pose_clip_create(&d, slots[i], &err) != OROYA_OK) {
            fprintf(stderr, "oroya bench: %s: %s\n", names[i], cli_esc(err.message));
            goto done;
        }
    }
    s->chars = calloc(CROWD, sizeof *s->chars);
    s->layers = calloc(CROWD, sizeof *s->layers);
    s->updates = calloc(CROWD, sizeof *s->updates);
    if (!s->chars || !s->layers || !s->updates) {
        fprintf(stderr, "oroya bench: out of memory\n");
        goto done;
    }
    for (uint32_t i = 0; i < CROWD; i++) {
        oroya_pose_character_desc d = {
            .skeleton = s->skeleton, .max_layers = 3, .allocator = s->allocator};
        if (oroya_pose_character_create(&d, &s->chars[i], &err) != OROYA_OK) {
            fprintf(stderr, "oroya bench: %s\n", cli_esc(err.message));
            goto done;
        }
        s->updates[i] = (oroya_pose_update){s->chars[i], s->layers[i], 2};
    }
    if (oroya_thread_pool_create(
            &(oroya_thread_pool_desc){.thread_count = 2, .allocator = s->allocator}, &pool, &err) !=
        OROYA_OK) {
        fprintf(stderr, "oroya bench: %s\n", cli_esc(err.message));
        goto done;
    }

    double v[MAX_RUNS];
    /* Warm up caches and cursors once before timing. */
    char_frame(s, s->walk, true, char_frames / 10 + 1);
    for (int r = 0; r < runs; r++) {
        v[r] = char_frames_float(s, char_frames);
    }
    const double char_frame_float_us = median(v, runs);
    printf("char_frame_us %.3f us\n", char_frame_float_us);
    for (int r = 0; r < runs; r++) {
        v[r] = char_frame(s, s->walk, true, char_frames);
    }
    printf("char_frame_additive_us %.3f us\n", median(v, runs));
    for (int r = 0; r < runs; r++) {
        v[r] = char_frame(s, s->walk_cubic, false, char_frames);
    }
    printf("char_frame_cubic_us %.3f us\n", median(v, runs));
    /* Compressed clips (tools/oroya/bench_compress.c): the char_frame_us frame with them. */
    const oroya_clip *sources[3];
    for (int i = 0; i < 3; i++) {
        sources[i] = human_path ? bench_asset_clip(&s->human, names[i])
                                : bench_character_clip(&s->generated, names[i]);
    }
    oroya_pose_clip *packed[3] = {NULL, NULL, NULL};
    if (oroya_bench_compress(s->skeleton, sources, s->allocator, packed)) {
        goto done;
    }
    oroya_pose_clip *float_run = s->run;
    s->run = packed[1];
    char_frame(s, packed[0], false, char_frames / 10 + 1);
    for (int r = 0; r < runs; r++) {
        v[r] = char_frames_compressed(s, packed[0], char_frames);
    }
    s->run = float_run;
    for (int i = 0; i < 3; i++) {
        oroya_pose_clip_destroy(packed[i]);
    }
    printf("char_frame_compressed_us %.3f us\n", median(v, runs));
    printf("char_frame_compressed_ratio %.3f x\n",
           char_frame_float_us > 0 ? median(v, runs) / char_frame_float_us : 0.0);

    crowd_frames_pose(s, 1);
    for (int r = 0; r < runs; r++) {
        v[r] = crowd_frames_pose(s, crowd_frames);
    }
    printf("crowd1000_ms %.3f ms\n", median(v, runs));
    oroya_scheduler sched = {oroya_thread_pool_parallel_for, pool};
    crowd_frame(s, &sched, 1);
    for (int r = 0; r < runs; r++) {
        v[r] = crowd_frame(s, &sched, crowd_frames);
    }
    printf("crowd1000_2t_ms %.3f ms\n", median(v, runs));
    fflush(stdout);
    {
        /* The mixer on the same character: its scene, the skin's joints, the clips. */
        oroya_bench_mixer_character mc = {0};
        if (human_path) {
            const oroya_gltf_model *m = s->human.model;
            mc = (oroya_bench_mixer_character){m->scene,
                                               m->skins[0].joints,
                                               m->skins[0].joint_count,
                                               m->skins[0].inverse_bind_matrices,
                                               bench_asset_clip(&s->human, "walk"),
                                               bench_asset_clip(&s->human, "run"),
                                               bench_asset_clip(&s->human, "wave")};
        } else {
            const bench_character *g = &s->generated;
            mc = (oroya_bench_mixer_character){g->scene,        g->nodes,    g->joint_count,
                                               g->inverse_bind, g->clips[0], g->clips[1],
                                               g->clips[2]};
        }
        if (oroya_bench_mixer(&mc, &s->allocator, &s->counter.allocs, pool, runs, char_frames,
                              crowd_frames, &s->frame_allocs, &s->frames) != 0) {
            goto done;
        }
        if (oroya_bench_features(&mc, &s->allocator, &s->counter.allocs, runs, char_frames,
                                 &s->frame_allocs, &s->frames) != 0) {
            goto done;
        }
        if (oroya_bench_ik(&mc, s->skeleton, s->walk, s->run, &s->allocator, runs,
                           char_frames / 4 + 1) != 0) {
            goto done;
        }
    }

    /* Skinning: the 100k mesh (CROWD.glb, or the built-in body written as a .glb and loaded
     * back) posed by character 0's bones. */
    if (!skin_path) {
        if (write_generated_glb(generated_glb, sizeof generated_glb, &err) != 0) {
            fprintf(stderr, "oroya bench: %s\n", cli_esc(err.message));
            goto done;
        }
        skin_path = generated_glb;
    }
    bench_counter load_counter = {0};
    const oroya_allocator plain = {bench_alloc, bench_free, &load_counter};
    /* Load 0 is the process's first: its memory is freshly mapped, so it pays the page
     * faults (gltf_load_cold_mb_s). Loads 1..runs reuse what the previous one freed
     * (gltf_load_mb_s, their median): glibc is told to keep freed memory in the heap rather
     * than give large blocks back to the kernel, as an engine's allocator would, so that
     * figure measures the loader and not the page faults (on this VM, ~100 ms a load). */
#ifdef __GLIBC__
    mallopt(M_MMAP_THRESHOLD, 256 << 20);
    mallopt(M_TRIM_THRESHOLD, 512 << 20);
#endif
    double cold_mb_s = 0;
    for (int r = -1; r < runs; r++) {
        double t0 = wall_s();
        oroya_result res = bench_asset_load(skin_path, &plain, &crowd_asset, &err);
        double t1 = wall_s();
        if (res != OROYA_OK) {
            fprintf(stderr, "oroya bench: %s\n", cli_esc(err.message));
            goto done;
        }
        FILE *f = fopen(skin_path, "rb");
        long size = 0;
        if (f && fseek(f, 0, SEEK_END) == 0) {
            size = ftell(f);
        }
        if (f) {
            fclose(f);
        }
        const double mb_s = (double)size / 1e6 / (t1 - t0);
        if (r < 0) {
            cold_mb_s = mb_s;
        } else {
            v[r] = mb_s;
        }
        if (r + 1 < runs) {
            bench_asset_free(&crowd_asset);
        }
    }
    const double load_mb_s = median(v, runs);
    if (!crowd_asset.positions || !crowd_asset.normals ||
        oroya_pose_skeleton_joint_count(crowd_asset.skeleton) !=
            oroya_pose_skeleton_joint_count(s->skeleton)) {
        fprintf(stderr, "oroya bench: %s: no skinned mesh for this skeleton\n", cli_esc(skin_path));
        goto done;
    }
    const uint32_t vc = crowd_asset.vertex_count;
    out_pos = malloc((size_t)vc * 3 * sizeof(float));
    out_nor = malloc((size_t)vc * 3 * sizeof(float));
    if (!out_pos || !out_nor) {
        goto done;
    }
    oroya_skin_job job = {.count = vc,
                          .positions = crowd_asset.positions,
                          .normals = crowd_asset.normals,
                          .joints = crowd_asset.joints,
                          .weights = crowd_asset.weights,
                          .palette_count = oroya_pose_skeleton_joint_count(s->skeleton),
                          .palette = oroya_pose_character_bones(s->chars[0])->m,
                          .out_positions = out_pos,
                          .out_normals = out_nor};
    if (oroya_skin_job_run(&job, &err) != OROYA_OK) {
        fprintf(stderr, "oroya bench: skinning: %s\n", cli_esc(err.message));
        goto done;
    }
    for (int r = 0; r < runs; r++) {
        const long a0 = s->counter.allocs;
        double t0 = cpu_s();
        for (int k = 0; k < skin_iters; k++) {
            oroya_skin_job_run(&job, NULL);
        }
        double t1 = cpu_s();
        s->frame_allocs += s->counter.allocs - a0;
        v[r] = (double)vc * skin_iters / (t1 - t0) / 1e6;
    }
    printf("skin_mverts_s %.1f Mverts/s\n", median(v, runs));
    printf("gltf_load_mb_s %.1f MB/s\n", load_mb_s);
    printf("gltf_load_cold_mb_s %.1f MB/s\n", cold_mb_s);
    printf("allocs_per_frame %g allocs\n", (double)s->frame_allocs / (double)s->frames);
    oroya_bench_io(quick, runs);
    fflush(stdout);
    status = sweep ? oroya_bench_sweep(runs, quick) : 0;

done:
    free(out_pos);
    free(out_nor);
    bench_asset_free(&crowd_asset);
    oroya_thread_pool_destroy(pool);
    for (uint32_t i = 0; s->chars && i < CROWD; i++) {
        oroya_pose_character_destroy(s->chars[i]);
    }
    free(s->chars);
    free(s->layers);
    free(s->updates);
    for (int i = 0; i < 4; i++) {
        oroya_pose_clip_destroy(*slots[i]);
    }
    bench_asset_free(&s->human);
    bench_character_free(&s->generated);
    if (generated_glb[0]) {
        unlink(generated_glb);
    }
    return status;
}
