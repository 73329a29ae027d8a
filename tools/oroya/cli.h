/* The subcommands of the oroya CLI. Each returns the process exit code:
 * 0 on success, 1 when the input was bad or the work failed, 2 on a usage error. */
#ifndef OROYA_CLI_H
#define OROYA_CLI_H

#include "oroya/base.h"
#include "oroya/math.h"
#include "oroya/scene.h"

int oroya_cmd_play(int argc, char **argv);
int oroya_cmd_info(int argc, char **argv);
int oroya_cmd_sample(int argc, char **argv);
int oroya_cmd_render(int argc, char **argv);
int oroya_cmd_view(int argc, char **argv);
int oroya_cmd_bench(int argc, char **argv);
int oroya_cmd_export(int argc, char **argv);
int oroya_cmd_plot(int argc, char **argv);
/* The mixer's figures (tools/oroya/bench_mixer.c), printed on stdout, for a character: its
 * scene, the skin's joints and inverse binds, its walk, run and wave clips. pool is an
 * oroya_thread_pool of two threads. Adds the timed frames' allocations and frames to the
 * counters. 0 on success. */
struct oroya_scene;
struct oroya_clip;
typedef struct oroya_bench_mixer_character {
    struct oroya_scene *scene;
    const oroya_node *joints;
    uint32_t joint_count;
    const oroya_mat4 *inverse_bind;
    const struct oroya_clip *walk, *run, *wave;
} oroya_bench_mixer_character;
int oroya_bench_mixer(const oroya_bench_mixer_character *c, const oroya_allocator *allocator,
                      const long *alloc_count, void *pool, int runs, int char_frames,
                      int crowd_frames, long *frame_allocs, long *frames);
/* The IK figures of `oroya bench` (tools/oroya/bench_ik.c); 0 on success. */
struct oroya_pose_skeleton;
struct oroya_pose_clip;
int oroya_bench_ik(const oroya_bench_mixer_character *mc, const struct oroya_pose_skeleton *skel,
                   const struct oroya_pose_clip *walk, const struct oroya_pose_clip *run,
                   const oroya_allocator *allocator, int runs, int frames);
/* The joint-mask figures (tools/oroya/bench_features.c), the same way, for the same character. */
int oroya_bench_features(const oroya_bench_mixer_character *c, const oroya_allocator *allocator,
                         const long *alloc_count, int runs, int char_frames, long *frame_allocs,
                         long *frames);

#include <stdbool.h>
/* bench_io.c: export and play scaling figures, printed as `name value unit` lines. */
void oroya_bench_io(bool quick, int runs);
/* tools/oroya/bench_compress.c: prints the compressed-clip figures of `oroya bench` and
 * returns the compressed walk, run and wave (the caller destroys them); 1 on failure. */
#include "oroya/pose.h"
int oroya_bench_compress(const oroya_pose_skeleton *skel, const oroya_clip *const clips[3],
                         oroya_allocator allocator, oroya_pose_clip *out[3]);

#endif
