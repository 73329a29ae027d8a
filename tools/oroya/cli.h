/* The subcommands of the oroya CLI. Each returns the process exit code:
 * 0 on success, 1 when the input was bad or the work failed, 2 on a usage error. */
#ifndef OROYA_CLI_H
#define OROYA_CLI_H

#include "oroya/base.h"

int oroya_cmd_play(int argc, char **argv);
int oroya_cmd_info(int argc, char **argv);
int oroya_cmd_sample(int argc, char **argv);
int oroya_cmd_render(int argc, char **argv);
int oroya_cmd_view(int argc, char **argv);
int oroya_cmd_bench(int argc, char **argv);
/* The mixer's figures (tools/oroya/bench_mixer.c), printed on stdout; pool is an
 * oroya_thread_pool of two threads. Adds the timed frames' allocations and frames to the
 * counters. 0 on success. */
struct oroya_gltf_model;
int oroya_bench_mixer(const struct oroya_gltf_model *model, const oroya_allocator *allocator,
                      const long *alloc_count, void *pool, int runs, int char_frames,
                      int crowd_frames, long *frame_allocs, long *frames);
/* The joint-mask figures (tools/oroya/bench_features.c), the same way. */
int oroya_bench_features(const struct oroya_gltf_model *model, const oroya_allocator *allocator,
                         const long *alloc_count, int runs, int char_frames, long *frame_allocs,
                         long *frames);

#endif
