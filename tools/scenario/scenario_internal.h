/* The scenario runner's private declarations (tools/scenario/): the state of one run and the
 * functions its files share. Each file keeps to one concern:
 *   scenario_text.c     the result text: a growable buffer, numbers as JavaScript prints them;
 *   scenario_json.c     memory, errors, JSON access, and nodes, clips and actions by name;
 *   scenario_setup.c    the scenario's nodes, skins, clips, actions and steps;
 *   scenario_ops.c      the script: one parse and one run function per op, and the schedule;
 *   scenario_records.c  the record keys, the values and events of each frame, dumpClips;
 *   scenario_oroya.c    the "oroya" key: rotation blend, twist axes, joint limits, IK,
 *                       markers, masks, root motion;
 *   scenario_run.c      the run from setup to the last frame, and oroya_scenario_run.
 * Only liboroya's public headers are used. */
#ifndef OROYA_SCENARIO_INTERNAL_H
#define OROYA_SCENARIO_INTERNAL_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "oroya/clip.h"
#include "oroya/geometry.h"
#include "oroya/gltf.h"
#include "oroya/ik.h"
#include "oroya/mixer.h"
#include "oroya/rig.h"
#include "oroya/scene.h"
#include "oroya/skeleton.h"
#include "oroya/skin.h"
#include "oroya/track.h"
#include "oroya_scenario.h"

/* The output text: a growable buffer, and numbers printed exactly as JavaScript's
 * JSON.stringify prints them, so results diff cleanly against three.js's. */
typedef struct play_buf {
    const oroya_allocator *alloc;
    char *data;
    size_t len, cap;
    bool failed; /* an allocation failed; the content is truncated */
} play_buf;

#define EPS_AT 1e-9 /* an "at" op runs before the first update whose clock >= at - EPS_AT */

typedef struct play_node {
    const char *name;
    oroya_node node;
    oroya_node_kind kind;
    bool gltf; /* a glTF node found by its docs/scenario.md name; the name is owned */
} play_node;

typedef struct play_skin {
    const char *name;
    oroya_skeleton *skeleton;
    oroya_skin *skin;
    float *vertices; /* 3 * vertex_count, skinned positions of the current frame */
} play_skin;

typedef struct play_clip {
    const char *name;
    oroya_clip *clip;
    double duration; /* three's clip.duration (a double): the JSON value, or the last key */
    const char **track_names; /* "node.position" etc., for dumpClips */
    bool gltf;                /* a clip of the glTF model (owned by it); the name is owned */
} play_clip;

typedef struct play_action {
    const char *name;
    int clip;
    bool has_blend_mode;
    oroya_blend_mode blend_mode;
    bool clone;
    oroya_action *action; /* NULL until the script first names it */
    oroya_clip *copy;     /* cloneClip: the clip copy taken at creation */
} play_action;

typedef enum op_kind {
    OP_PLAY,
    OP_STOP,
    OP_RESET,
    OP_FADE_IN,
    OP_FADE_OUT,
    OP_CROSS_FADE_TO,
    OP_CROSS_FADE_FROM,
    OP_SET_EFFECTIVE_WEIGHT,
    OP_SET_EFFECTIVE_TIME_SCALE,
    OP_SET_DURATION,
    OP_SET_LOOP,
    OP_CLAMP_WHEN_FINISHED,
    OP_START_AT,
    OP_SYNC_WITH,
    OP_HALT,
    OP_WARP,
    OP_STOP_FADING,
    OP_STOP_WARPING,
    OP_SET_TIME,
    OP_SET,
    OP_SET_MIXER_TIME_SCALE,
    OP_STOP_ALL_ACTION,
    OP_MAKE_CLIP_ADDITIVE,
    OP_SET_NODE,
    OP_SET_IK,
    OP_SET_MASK, /* oroya's extension: parse_set_mask */
    OP_COUNT
} op_kind;

typedef enum set_field {
    F_WEIGHT,
    F_TIME_SCALE,
    F_TIME,
    F_ENABLED,
    F_PAUSED,
    F_CLAMP,
    F_ZERO_SLOPE_START,
    F_ZERO_SLOPE_END,
    F_REPETITIONS,
    F_LOOP,
    F_BLEND_MODE,
    F_COUNT
} set_field;

typedef struct play_op {
    const cJSON *json; /* the script entry (run_op reads it again) */
    op_kind kind;
    bool by_step;
    double at;
    double step;
    bool done;
    int action, other; /* action slots (-1 = none) */
    double n[3];
    bool flag;
    int mode; /* loop mode / blend mode / set field */
    int field;
    int node, clip, ref_clip;
    bool has_pos, has_rot, has_scale;
    double pos[3], rot[4], scale[3];
} play_op;

typedef enum rec_kind {
    R_MIXER_TIME,
    R_MIXER_TIME_SCALE,
    R_ACTIVE_ACTIONS,
    R_STATS,
    R_ACTION,
    R_POSITION,
    R_QUATERNION,
    R_SCALE,
    R_MATRIX,
    R_MATRIX_WORLD,
    R_WEIGHTS,
    R_SKIN_BONES,
    R_SKIN_VERTICES,
    R_GLTF_BONES,
    R_ROOT_DELTA, /* oroya's extension: rootMotion.delta / .total / .deltaLocal */
    R_ROOT_TOTAL,
    R_ROOT_LOCAL,
    R_CURVE,     /* curve:<name> (slot: the mixer's curve index) */
    R_INTENSITY, /* typed properties: <node>.intensity / .fov / .color / .visible */
    R_FOV,
    R_COLOR,
    R_VISIBLE
} rec_kind;

typedef enum action_field {
    A_EFFECTIVE_WEIGHT,
    A_WEIGHT,
    A_TIME,
    A_EFFECTIVE_TIME_SCALE,
    A_TIME_SCALE,
    A_ENABLED,
    A_PAUSED,
    A_RUNNING,
    A_SCHEDULED,
    A_LOOP_COUNT,
    A_REPETITIONS,
    A_FADING,
    A_WARPING,
    A_COUNT
} action_field;

typedef struct play_record {
    const char *key;
    rec_kind kind;
    int slot;
    action_field field;
    int node;
    int skin;       /* scenario skin, or glTF skin index for R_GLTF_BONES */
    float *scratch; /* R_GLTF_BONES: 16 floats per joint */
} play_record;

typedef struct play_event {
    oroya_event_type type;
    oroya_action *action;
    int32_t direction;
    int64_t loop_delta;
    const oroya_marker *marker; /* OROYA_EVENT_MARKER */
} play_event;

typedef struct play {
    const oroya_allocator *alloc;
    const oroya_scenario_desc *desc;
    oroya_gltf_model *model;
    /* Per glTF animation (model->clip_count): an animation with a channel that reads the same
     * output accessor as one of this one's (itself when two of its own channels do), and
     * that accessor; UINT32_MAX when none (normalized accessors aside: GLTFLoader scales
     * those into an array per channel). three's GLTFLoader gives such tracks one array,
     * which makeClipAdditive rewrites in place (run_make_clip_additive refuses). */
    uint32_t *gltf_shared_anim, *gltf_shared_accessor;
    char error[1024];
    cJSON *root;
    oroya_scene *scene;
    oroya_mixer *mixer;
    oroya_rig *rig; /* every node of the scene: joint tracks play through the pose kernel */
    play_node *nodes;
    int node_count, node_cap;
    int *node_hash; /* open addressing over nodes by name: index + 1, 0 = empty */
    int node_hash_cap;
    play_skin *skins;
    int skin_count;
    play_clip *clips;
    int clip_count, clip_cap;
    play_action *actions;
    int action_count, action_cap;
    play_op *ops;
    int op_count;
    play_record *records;
    int record_count;
    double *dts; /* an explicit list of dt, or NULL: every step is fixed_dt */
    double fixed_dt;
    size_t dt_count;
    play_event *events;
    /* "oroya": {"masks": {...}}: the masks in the object's order, named by its keys */
    oroya_mask **masks;
    const char **mask_names;
    int mask_count;
    bool root_motion; /* "oroya": {"rootMotion"} */
    size_t event_count, event_cap;
    bool events_failed;
    oroya_result fail_code;       /* set with the error when it is not INVALID_DATA */
    bool out_of_memory;           /* an allocation failed (the error is then OUT_OF_MEMORY) */
    oroya_allocator user_alloc;   /* the desc's */
    oroya_allocator watch;        /* forwards to user_alloc and notes failures; p->alloc */
    oroya_ik *iks;                /* "oroya": {"ik": [...]}, applied after each update */
    oroya_joint_limit *ik_limits; /* OROYA_IK_MAX_CHAIN per IK */
    oroya_ik *kiks;               /* the same on the rig's kernel joints (oroya_mixer_set_ik),
                                 * or NULL: the IKs run on the scene (oroya_ik_scene_apply) */
    int ik_count;
    oroya_mat4 *ik_world; /* OROYA_IK_MAX_CHAIN per IK: the chain's world matrices and */
    oroya_quat *ik_rot;   /* local rotations at set-up, for the field checks of setIk */
    char ik_fallback[OROYA_ERROR_MESSAGE_MAX + 1]; /* the run-time IK fallbacks last warned of
                                                    * ("" none): warned again when they change */
    oroya_geometry *mesh_geometry;                 /* shared by the "mesh" nodes */
    oroya_material *materials;  /* one per scenario node (used by "mesh" nodes) */
    oroya_scenario_stats stats; /* mixer updates, and those on the pose kernel */
} play;

/* The script's schedule (scenario_ops.c). */
typedef struct op_key {
    double key;
    int index;
} op_key;

typedef struct op_queue {
    op_key *by_time, *by_step;
    int time_count, step_count, time_next, step_next;
    int *batch;
} op_queue;

/* One op of the script (scenario_ops.c's table): its "do" name, the number its entry carries
 * (for the ops that share one parse function; NULL for the others), the parse function, run
 * at setup so that a bad entry fails before the first step, and the run function, called when
 * the op is due with its actions resolved. */
typedef struct op_call {
    const play_op *op;
    oroya_action *a, *b; /* the op's action and other action (NULL = none) */
    const char *path;    /* "script[i]" */
    const char *what;    /* the op's name, for errors */
} op_call;

typedef struct op_def {
    const char *name;
    const char *number;
    int (*parse)(play *p, const cJSON *o, const char *path, play_op *op);
    int (*run)(play *p, const op_call *c);
} op_def;

/* ---- scenario_text.c ---- */
void play_buf_free(play_buf *b);
void play_buf_putn(play_buf *b, const char *s, size_t n);
void play_buf_put(play_buf *b, const char *s);
void play_buf_string(play_buf *b, const char *s);
void play_buf_number(play_buf *b, double v);

/* ---- scenario_json.c ---- */
void *sc_malloc(const play *p, size_t n);
void *sc_calloc(const play *p, size_t count, size_t size);
void sc_free(const play *p, void *m);
void *sc_realloc(const play *p, void *old, size_t old_size, size_t new_size);
/* Sets the run's error (p->error) and returns -1, as every fallible function here does. */
int sc_fail(play *p, const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
int sc_check_world(play *p, const char *where);
void sc_warn_normalized(const play *p, const char *where, const oroya_clip *clip);
void sc_warn_ignored_channels(const play *p, const oroya_gltf_model *m);
void sc_warn_ignored_extras(const play *p, const oroya_gltf_model *m);
bool sc_is_name(const char *s);
const char *sc_entry_name(play *p, const cJSON *o, const char *path);
int sc_get_number(play *p, const cJSON *obj, const char *key, const char *path, double *out);
int sc_get_number_opt(play *p, const cJSON *obj, const char *key, const char *path, double *out);
int sc_get_vec(play *p, const cJSON *v, int n, const char *path, double *out);
int sc_get_vec_member(play *p, const cJSON *obj, const char *key, int n, const char *path,
                      double *out);
int sc_get_trs(play *p, const cJSON *obj, const char *path, double pos[3], double rot[4],
               double scale[3], bool *has_pos, bool *has_rot, bool *has_scale);
const char *sc_get_string(const cJSON *obj, const char *key);
const cJSON *sc_top_array(play *p, const char *key, const char *expected, int *n);
const cJSON *sc_oroya_member(const play *p, const char *key);
/* Fails naming "<path>.<key>: unknown field" for a member of object o not in keys[0..n):
 * oroya's own keys are checked (a typo there would silently do the wrong thing); three.js's
 * are not (unknown top-level keys stay ignored, docs/scenario.md). */
int sc_known_keys(play *p, const cJSON *o, const char *path, const char *const *keys, size_t n);
#define SC_KNOWN_KEYS(p, o, path, ...)                                                             \
    sc_known_keys(p, o, path, (const char *const[]){__VA_ARGS__},                                  \
                  sizeof((const char *const[]){__VA_ARGS__}) / sizeof(const char *))
int sc_blend_mode_of(const cJSON *v);
bool sc_grow(play *p, void **array, int *cap, int count, size_t size);
char *sc_dup_string(play *p, const char *s);
bool sc_node_hash_add(play *p, int index);
int sc_find_scenario_node(const play *p, const char *name);
int sc_find_node(play *p, const char *name);
int sc_find_scenario_clip(const play *p, const char *name);
int sc_find_clip(play *p, const char *name);
int sc_find_declared_action(const play *p, const char *name);
int sc_find_action(play *p, const char *name);

/* ---- scenario_setup.c ---- */
int sc_setup_nodes(play *p);
int sc_setup_skins(play *p);
int sc_update_skins(play *p);
int sc_find_skin(const play *p, const char *name);
int sc_setup_clips(play *p);
int sc_check_scenario_curves(play *p);
void sc_sync_mixer_ik(play *p);
int sc_make_additive(play *p, int clip, const cJSON *obj, const char *path);
int sc_setup_actions(play *p);
int sc_action_of(play *p, int slot, const char *path);
const char *sc_action_name(const play *p, const oroya_action *a);
int sc_setup_steps(play *p);

/* ---- scenario_ops.c ---- */
int sc_op_action(play *p, const cJSON *o, const char *key, const char *path, int *out);
int sc_mixer_call(play *p, oroya_result r, const char *path, const char *what);
int sc_setup_script(play *p);
int sc_op_queue_init(play *p, op_queue *q);
void sc_op_queue_free(play *p, op_queue *q);
int sc_run_due_ops(play *p, op_queue *q, size_t step, double clock);

/* ---- scenario_records.c ---- */
int sc_setup_records(play *p);
void sc_on_event(const oroya_event *e, void *user);
void sc_put_clips(play *p, play_buf *b);
int sc_write_frame(play *p, play_buf *b, size_t step, double clock);

/* ---- scenario_oroya.c ---- */
int sc_setup_oroya_extension(play *p);
int sc_setup_oroya_markers(play *p);
int sc_setup_oroya_masks(play *p);
int sc_setup_oroya_root_motion(play *p);
int sc_parse_set_ik(play *p, const cJSON *o, const char *path, int *out);
int sc_run_set_ik(play *p, const op_call *c);
int sc_parse_set_mask(play *p, const cJSON *o, const char *path, play_op *op);
int sc_run_set_mask(play *p, const op_call *c);

#endif
