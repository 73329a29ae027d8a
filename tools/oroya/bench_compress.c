/* oroya bench: the figures of compressed runtime clips on the humanoid (walk, run, wave at a
 * model-space tolerance of 0.1 mm, OROYA_BENCH_COMPRESS_TOL):
 *   clip_bytes_walk, clip_bytes_run, clip_bytes_wave   bytes of the compressed runtime clips
 *   clip_float_bytes_walk, ...                          the same clips in float storage
 *   clip_max_error_mm                                   largest joint-position error of the
 *                                                       three, as measured at create
 *   clip_max_vertex_error_mm                            the same with the virtual vertices
 * The compressed walk and run are handed back for char_frame_compressed_us. */
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "cli_util.h"
#include "oroya/pose.h"

#define BENCH_COMPRESS_TOL 1e-4f /* 0.1 mm in a metre scene */

int oroya_bench_compress(const oroya_pose_skeleton *skel, const oroya_clip *const clips[3],
                         oroya_allocator allocator, oroya_pose_clip *out[3]) {
    static const char *names[3] = {"walk", "run", "wave"};
    oroya_pose_compress cp = {.tolerance = BENCH_COMPRESS_TOL};
    double max_joint = 0, max_vertex = 0;
    for (int i = 0; i < 3; i++) {
        out[i] = NULL;
    }
    for (int i = 0; i < 3; i++) {
        oroya_error err = {0};
        oroya_pose_clip_desc d = {
            .skeleton = skel, .clip = clips[i], .additive = i == 2, .allocator = allocator};
        oroya_pose_clip *flt = NULL;
        if (oroya_pose_clip_create(&d, &flt, &err) != OROYA_OK) {
            fprintf(stderr, "oroya bench: %s: %s\n", names[i], cli_esc(err.message));
            return 1;
        }
        d.compress = &cp;
        if (oroya_pose_clip_create(&d, &out[i], &err) != OROYA_OK) {
            fprintf(stderr, "oroya bench: %s compressed: %s\n", names[i], cli_esc(err.message));
            oroya_pose_clip_destroy(flt);
            return 1;
        }
        oroya_pose_clip_info info, finfo;
        oroya_pose_clip_get_info(out[i], &info);
        oroya_pose_clip_get_info(flt, &finfo);
        oroya_pose_clip_destroy(flt);
        printf("clip_bytes_%s %zu bytes\n", names[i], info.bytes);
        printf("clip_float_bytes_%s %zu bytes\n", names[i], finfo.bytes);
        if (info.max_joint_error > max_joint) {
            max_joint = info.max_joint_error;
        }
        if (info.max_error > max_vertex) {
            max_vertex = info.max_error;
        }
    }
    printf("clip_max_error_mm %.4f mm\n", max_joint * 1e3);
    printf("clip_max_vertex_error_mm %.4f mm\n", max_vertex * 1e3);
    return 0;
}
