/* A render world: what `oroya render` and `oroya view` draw, whatever its source (the built-in
 * demo, later a glTF file). The world owns CPU copies of its meshes (for upload and for the
 * animated bounds that `--camera auto` frames) and, at each time t, produces draw items. */
#ifndef OROYA_DEMO_SCENE_H
#define OROYA_DEMO_SCENE_H

#include "oroya/render.h"

#define WORLD_MAX_ITEMS 32
#define WORLD_MAX_BONES 128
#define WORLD_MAX_LIGHTS 8
#define WORLD_MAX_CAMERAS 4
#define WORLD_MAX_CLIPS 8

typedef struct world_mesh {
    float *positions, *normals;
    uint32_t *indices;
    uint16_t *joints;
    float *weights;
    uint32_t vertex_count, index_count;
} world_mesh;

typedef struct world_item {
    uint32_t mesh;                 /* index into world.meshes */
    oroya_render_material material;
    oroya_mat4 model;
    uint32_t bone_count;           /* > 0: skinned with bones[] */
    float bones[WORLD_MAX_BONES * 16];
    oroya_mat4 bind, bind_inverse;
    bool visible;
    bool backdrop;                 /* ground and the like: left out of the framed bounds */
} world_item;

typedef struct world_camera {
    const char *name;
    oroya_vec3 position, target;
    float fov_y_degrees, near, far;
} world_camera;

typedef struct world world;
struct world {
    const char *name;
    world_mesh meshes[WORLD_MAX_ITEMS];
    uint32_t mesh_count;
    world_item items[WORLD_MAX_ITEMS];
    uint32_t item_count;
    oroya_render_light lights[WORLD_MAX_LIGHTS];
    uint32_t light_count;
    float background[4];
    world_camera cameras[WORLD_MAX_CAMERAS];
    uint32_t camera_count;
    const char *clips[WORLD_MAX_CLIPS];   /* names of the clips that can be chosen */
    uint32_t clip_count;
    uint32_t clip_enabled;                /* bit i: clip i plays */
    double duration;                      /* seconds covered by a full render */
    double poster_time;                   /* time of the PNG poster frame */
    /* Poses the world at time t (seconds): fills items[].model, bones, visibility. */
    void (*evaluate)(world *w, double t);
    /* Skeleton overlay: writes up to max line segments (pairs of world points) for bones. */
    uint32_t (*bone_lines)(const world *w, oroya_vec3 *out, uint32_t max);
    void *user;
};

/* Builds the built-in demo (the tutorials' bouncing ball with squash and stretch, the
 * step/linear/cubic balls, the 5-bone skinned cylinder, a ground plane). 0 on success. */
int demo_world_create(world *out);
void world_free(world *w);

/* Grows lo..hi by the world-space bounds of the posed world's visible, non-backdrop items
 * (skinned meshes skinned on the CPU). Start with lo = +inf, hi = -inf. */
void world_bounds(const world *w, oroya_vec3 *lo, oroya_vec3 *hi);

/* Drawing (demo_draw.c). */
typedef struct world_gpu {
    oroya_render_mesh meshes[WORLD_MAX_ITEMS];
    oroya_render_mesh lines;       /* skeleton overlay buffer, 0 when unused */
} world_gpu;
oroya_result world_upload(const world *w, oroya_renderer *r, world_gpu *out, oroya_error *err);
void world_release(oroya_renderer *r, world_gpu *g);
/* Camera that frames the bounds lo..hi from direction `from` (toward the camera), fov_y in
 * degrees, for the given aspect ratio. */
void world_frame_bounds(oroya_vec3 lo, oroya_vec3 hi, oroya_vec3 from, float fov_y, float aspect,
                        oroya_mat4 *view, oroya_mat4 *projection);
/* Bounds over the whole animation: samples `samples` times over [0, duration]. */
void world_animated_bounds(world *w, uint32_t samples, oroya_vec3 *lo, oroya_vec3 *hi);
/* One frame: begin, draw every visible item (and the skeleton overlay when asked), end. */
oroya_result world_render(world *w, oroya_renderer *r, world_gpu *g, const oroya_mat4 *view,
                          const oroya_mat4 *projection, bool skeleton, oroya_error *err);

/* Geometry in three.js's vertex order (demo_geometry.c); 0 on success, allocates. */
int demo_make_sphere(float radius, uint32_t width_segments, uint32_t height_segments, world_mesh *out);
int demo_make_box(float width, float height, float depth, world_mesh *out);
int demo_make_cylinder(float radius_top, float radius_bottom, float height, uint32_t radial_segments,
                       uint32_t height_segments, bool open_ended, world_mesh *out);
int demo_make_disc(float radius, uint32_t segments, world_mesh *out); /* in the xz plane, facing +y */
void demo_mesh_free(world_mesh *m);

#endif
