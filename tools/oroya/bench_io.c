/* `oroya bench` figures for the I/O layer's scaling: glTF export of a chain of nodes, and
 * `oroya play` (the scenario runner) of a scenario with as many nodes as script ops (10
 * steps), each at
 * two sizes ten times apart. The *_scaling figure is the time per node at the large size over
 * the time per node at the small one: about 1 when the work is linear, about 10 when it is
 * quadratic. Wall time, best of `runs`. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "cli_util.h"
#include "oroya/gltf.h"
#include "oroya_scenario.h"
#include "oroya/scene.h"

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Best time in ms to export a chain of n nodes (each the child of the one before) as .glb;
 * a negative value on failure. */
static double export_chain_ms(uint32_t n, int runs, const char *path) {
    oroya_scene *scene = NULL;
    if (oroya_scene_create(&(oroya_scene_desc){.capacity_hint = n}, &scene) != OROYA_OK) {
        return -1;
    }
    oroya_node parent = {0};
    char name[32];
    for (uint32_t i = 0; i < n; i++) {
        snprintf(name, sizeof name, "n%u", i);
        if (oroya_scene_add_node(scene, name, parent, OROYA_NODE_OBJECT, &parent) != OROYA_OK) {
            oroya_scene_destroy(scene);
            return -1;
        }
    }
    double best = -1;
    for (int r = 0; r < runs; r++) {
        oroya_error err = {0};
        double t0 = now_s();
        oroya_result res =
            oroya_gltf_write(scene, &(oroya_gltf_write_desc){.binary = true}, path, &err);
        double ms = (now_s() - t0) * 1e3;
        if (res != OROYA_OK) {
            fprintf(stderr, "oroya bench: export: %s\n", cli_esc(err.message));
            best = -1;
            break;
        }
        best = best < 0 || ms < best ? ms : best;
    }
    remove(path);
    oroya_scene_destroy(scene);
    return best;
}

/* A scenario of n nodes in a chain and n setNode ops spread over 10 steps (a fixed step
 * count: each step's world update is O(n) by nature, the setup and the script must be too). */
static char *play_scenario(uint32_t n, size_t *len) {
    size_t cap = (size_t)n * 160 + 256;
    char *s = malloc(cap);
    if (!s) {
        return NULL;
    }
    size_t k = (size_t)snprintf(s, cap, "{\"name\":\"bench\",\"nodes\":[");
    for (uint32_t i = 0; i < n; i++) {
        k +=
            i ? (size_t)snprintf(s + k, cap - k, ",{\"name\":\"n%u\",\"parent\":\"n%u\"}", i, i - 1)
              : (size_t)snprintf(s + k, cap - k, "{\"name\":\"n0\"}");
    }
    const uint32_t steps = 10;
    k += (size_t)snprintf(s + k, cap - k, "],\"script\":[");
    for (uint32_t i = 0; i < n; i++) {
        k += (size_t)snprintf(s + k, cap - k,
                              "%s{\"step\":%u,\"do\":\"setNode\",\"node\":\"n%u\","
                              "\"position\":[0,1,0]}",
                              i ? "," : "", i % steps, n - 1 - i);
    }
    k += (size_t)snprintf(s + k, cap - k, "],\"steps\":{\"dt\":0.01,\"count\":%u}}", steps);
    *len = k;
    return s;
}

static double play_ms(uint32_t n, int runs) {
    size_t len = 0;
    char *json = play_scenario(n, &len);
    if (!json) {
        return -1;
    }
    double best = -1;
    oroya_scenario_desc desc = {0};
    for (int r = 0; r < runs; r++) {
        char *out = NULL;
        size_t out_len = 0;
        oroya_error err = {0};
        double t0 = now_s();
        oroya_result res = oroya_scenario_run(json, len, &desc, &out, &out_len, &err);
        double ms = (now_s() - t0) * 1e3;
        oroya_scenario_free_output(&desc, out);
        if (res != OROYA_OK) {
            fprintf(stderr, "oroya bench: play: %s\n", cli_esc(err.message));
            best = -1;
            break;
        }
        best = best < 0 || ms < best ? ms : best;
    }
    free(json);
    return best;
}

void oroya_bench_io(bool quick, int runs) {
    runs = quick ? 1 : (runs < 3 ? runs : 3);
    char path[256];
    const char *dir = getenv("TMPDIR");
    snprintf(path, sizeof path, "%s/oroya_bench_export_%ld.glb", dir && dir[0] ? dir : "/tmp",
             (long)getpid());
    const uint32_t big = 100000, small = big / 10;
    double es = export_chain_ms(small, runs, path), eb = export_chain_ms(big, runs, path);
    if (es > 0 && eb > 0) {
        printf("export_%uk_nodes_ms %.3f ms\n", small / 1000, es);
        printf("export_%uk_nodes_ms %.3f ms\n", big / 1000, eb);
        printf("export_nodes_scaling %.2f x\n", (eb / big) / (es / small));
    }
    const uint32_t pbig = 50000, psmall = pbig / 10;
    double ps = play_ms(psmall, runs), pb = play_ms(pbig, runs);
    if (ps > 0 && pb > 0) {
        printf("play_%uk_nodes_ms %.3f ms\n", psmall / 1000, ps);
        printf("play_%uk_nodes_ms %.3f ms\n", pbig / 1000, pb);
        printf("play_nodes_scaling %.2f x\n", (pb / pbig) / (ps / psmall));
    }
    fflush(stdout);
}
