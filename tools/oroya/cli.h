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
int oroya_cmd_export(int argc, char **argv);
int oroya_cmd_plot(int argc, char **argv);
/* The IK figures of `oroya bench` (tools/oroya/bench_ik.c); 0 on success. */
struct oroya_pose_skeleton;
struct oroya_pose_clip;
int oroya_bench_ik(const struct oroya_pose_skeleton *skel, const struct oroya_pose_clip *walk,
                   const struct oroya_pose_clip *run, const oroya_allocator *allocator, int runs,
                   int frames);

#endif
