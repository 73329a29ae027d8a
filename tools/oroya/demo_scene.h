/* A render world for `oroya render` and `oroya view`: an oroya scene with its clips, skeletons
 * and skins, posed at a time t and drawn with the renderer. The built-in demo builds one
 * (demo_scene.c); the glTF importer will build others. demo_world.c poses, frames and draws
 * any of them. */
#ifndef OROYA_DEMO_SCENE_H
#define OROYA_DEMO_SCENE_H

#include "oroya/gltf.h"
#include "oroya/mixer.h"
#include "oroya/oroya.h"
#include "oroya/render.h"

#define WORLD_MAX_CLIPS 16
#define WORLD_MAX_OWNED 32
#define WORLD_MAX_HINTS 32
#define WORLD_MAX_MESHES 256

/* Render-only properties of a node that the scene's material does not carry. */
typedef struct world_hint {
    oroya_node node;
    float grid_spacing; /* > 0: grid lines on the ground */
    bool backdrop;      /* left out of the framed bounds (ground, shadows) */
    bool unlit;
} world_hint;

/* A base color image for meshes drawn with `material` (glTF baseColorTexture). */
typedef struct world_texture {
    const oroya_material *material;
    uint32_t width, height;
    const uint8_t *pixels;        /* RGBA8, top row first, sRGB-encoded */
    oroya_render_sampler sampler; /* the glTF texture's filters and wraps */
} world_texture;

/* Texture coordinates other than the geometry's own for meshes of `geometry` (a glTF
 * baseColorTexture with texCoord 1 samples TEXCOORD_1). */
typedef struct world_uvs {
    const oroya_geometry *geometry;
    const float *uvs; /* vertex_count * 2 */
} world_uvs;

typedef struct world world;
struct world {
    const char *name;
    oroya_scene *scene;
    oroya_clip *clips[WORLD_MAX_CLIPS];
    uint32_t clip_count;
    uint32_t clip_enabled; /* bit i: clips[i] plays */
    oroya_skeleton *skeletons[WORLD_MAX_OWNED];
    uint32_t skeleton_count;
    oroya_skin *skins[WORLD_MAX_OWNED];
    uint32_t skin_count;
    double duration;     /* seconds of a full render (longest clip by default) */
    double poster_time;  /* the PNG poster frame's time */
    float background[4]; /* linear RGB + alpha */
    world_hint hints[WORLD_MAX_HINTS];
    uint32_t hint_count;
    world_texture textures[WORLD_MAX_OWNED];
    uint32_t texture_count;
    world_uvs uvs[WORLD_MAX_OWNED];
    uint32_t uv_count;
    /* Called after the clips are applied and world matrices updated (the demo's blob shadows
     * follow the balls there); it may change transforms and then update the world again. */
    void (*after_pose)(world *w);
    /* Owned by the world when built by the demo; freed by world_free. */
    oroya_geometry *geometries[WORLD_MAX_OWNED];
    uint32_t geometry_count;
    oroya_material materials[WORLD_MAX_OWNED];
    uint32_t material_count;
    bool owns_objects; /* world_free destroys scene, clips, skins, skeletons */
    /* Playback through the mixer (three.js semantics): one action per clip. */
    oroya_mixer *mixer;
    /* A glTF file's skin 0 as the mixer's rig: its joints play through the pose kernel and
     * its skin draws with oroya_mixer_bone_matrices. NULL (no skin, or a skin the kernel
     * cannot hold): the mixer plays on its property path and the skeletons give the bones. */
    oroya_rig *rig;
    const oroya_skeleton *rig_skeleton; /* the skeleton of the rig's skin */
    oroya_action *actions[WORLD_MAX_CLIPS];
    int32_t fade_to; /* the clip a cross-fade fades in, -1: none */
    /* Clips played one after the other (render of a glTF file): sequence[0..sequence_count)
     * are clip indices; world_pose(t) plays the one whose span holds t, from its start.
     * sequence_count 0: the enabled clips play together. */
    uint32_t sequence[WORLD_MAX_CLIPS];
    uint32_t sequence_count;
    int32_t sequence_playing;   /* the clip of the sequence playing now, -1: none yet */
    oroya_node stage_shadow[2]; /* world_add_stage's contact shadow discs */
    float stage_ground_y, stage_radius;
    const char *cmd;               /* the subcommand, for messages ("render") */
    const oroya_gltf_model *model; /* the glTF model of a file's world, NULL for the demo */
    void *user;
    void (*free_user)(world *w); /* called by world_free after the owned objects */
};

/* Builds the built-in demo (the tutorials' bouncing ball with squash and stretch, the
 * step/linear/cubic balls, the 5-bone skinned cylinder, a ground plane). 0 on success; on
 * failure prints why and returns 1. */
int demo_world_create(world *out);

/* The inverse kinematics demo (demo_ik.c): a foot planted on a moving marker, a head
 * following a moving ball. 0 on success; on failure prints why and returns 1. */
int ik_world_create(world *out);

/* A world from a glTF 2.0 file (demo_gltf.c): its default scene and clips; the first clip
 * plays. allow_outside: the file's buffers and images may lie outside its folder
 * (oroya_gltf_import_desc.allow_outside_base_dir). 0 on success; on failure prints the
 * importer's message (naming the glTF path). */
int gltf_world_create(const char *cmd, const char *path, bool allow_outside, world *out);

/* The longest duration among the enabled clips (0 when none plays); for a sequence, the sum
 * of its clips' durations. */
double world_clip_duration(const world *w);
/* Plays clips[order[0]], then clips[order[1]], ... one after the other (see `sequence`);
 * duration becomes their total. count 0..WORLD_MAX_CLIPS. */
void world_set_sequence(world *w, const uint32_t *order, uint32_t count);

/* Creates the mixer and one action per clip, plays the clips of clip_enabled, and warns
 * about tracks whose target node is missing and about unreachable bones. Call once the
 * scene, clips and skins are in place. 0 on success. */
int world_prepare(world *w);
void world_free(world *w);

/* Poses the world at time t: mixer set_time(t) (enabled clips loop, three.js LoopRepeat),
 * then world matrices, skeletons and skins. */
void world_pose(world *w, double t);

/* Plays exactly the clips of `mask` (bit i: clips[i]), from their start; the others stop
 * (three.js stop(): their nodes keep the last pose written). */
void world_set_clips(world *w, uint32_t mask);
/* three.js idiom: to.reset().play(); from.crossFadeTo(to, duration, false). 0 on success. */
int world_start_fade(world *w, uint32_t from, uint32_t to, double duration);
/* True while a cross-fade started by world_start_fade is running. */
bool world_fading(const world *w);
/* Advances playback by dt seconds (mixer update), then poses as world_pose does. */
void world_advance(world *w, double dt);

/* Grows lo..hi by the posed world's world-space bounds (visible, non-backdrop meshes; skinned
 * ones skinned on the CPU). Start with lo = +inf, hi = -inf. */
void world_bounds(const world *w, oroya_vec3 *lo, oroya_vec3 *hi);
/* Bounds over the whole animation: `samples` poses over [0, duration]. */
void world_animated_bounds(world *w, uint32_t samples, oroya_vec3 *lo, oroya_vec3 *hi);

/* A camera looking at the middle of lo..hi from direction `from` (toward the camera), fov_y
 * in degrees, at `distance` from the middle, or (distance <= 0) as close as lets the box fill
 * the frame. Returns the distance used. */
float world_frame_bounds(oroya_vec3 lo, oroya_vec3 hi, oroya_vec3 from, float fov_y, float aspect,
                         float distance, oroya_mat4 *view, oroya_mat4 *projection);
/* The unit direction toward a camera at yaw degrees about +y (0: in front, on +z; 90: on
 * +x) and pitch degrees above the horizon. */
oroya_vec3 world_camera_direction(float yaw_degrees, float pitch_degrees);
/* Adds a ground under lo..hi (top face at lo.y, a grid scaled to the figure) and a contact
 * shadow that follows the figure each frame (after_pose). 0 on success; 1 (message printed). */
int world_add_stage(world *w, oroya_vec3 lo, oroya_vec3 hi);
/* The camera node `name` (a node with a camera component): view and projection for the given
 * aspect (perspective cameras take the image's aspect). 0 on success; 1 (message printed,
 * naming the cameras there are) when there is no such camera. */
int world_node_camera(const world *w, const char *name, float aspect, oroya_mat4 *view,
                      oroya_mat4 *projection);

/* GPU side: one render mesh per (geometry, skin) pair found on the scene's mesh nodes. */
typedef struct world_gpu_mesh {
    const oroya_geometry *geometry;
    const oroya_skin *skin;
    oroya_render_mesh mesh;
} world_gpu_mesh;
typedef struct world_gpu {
    world_gpu_mesh meshes[WORLD_MAX_MESHES];
    uint32_t mesh_count;
    oroya_render_texture textures[WORLD_MAX_OWNED]; /* one per world texture */
    oroya_render_mesh bones, joints, joint_rims;    /* skeleton overlay: ribbons, joint discs */
} world_gpu;

oroya_result world_upload(const world *w, oroya_renderer *r, world_gpu *out, oroya_error *err);
void world_release(oroya_renderer *r, world_gpu *g);
/* One frame of the posed world: lights from the scene's light nodes (three.js intensities:
 * the renderer's Lambert has no 1/pi, so they are divided by pi here; a scene without lights
 * gets a default key light and ambient), every visible mesh, and the skeleton overlay. */
oroya_result world_render(const world *w, oroya_renderer *r, world_gpu *g, const oroya_mat4 *view,
                          const oroya_mat4 *projection, bool skeleton, oroya_error *err);

#endif
