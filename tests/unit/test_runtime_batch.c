/* The batch call and joint limits on the mixer's kernel path.
 *
 * test_batch_matches_single: many rig-backed mixers (different clips, time offsets, loop
 * modes, warped cross-fades, additive layers, markers, negative time scales, a scripted
 * set_time and weight changes), half of them updated one by one with oroya_mixer_update and
 * the other half, in the same states, with oroya_mixer_update_batch on a 2-thread pool. The
 * bone matrices (and, for the mixers that own a scene, every node's transform and world
 * matrix) must be equal bit for bit, the events identical and raised on the calling thread,
 * and no update may allocate (a counting allocator backs every mixer, rig and scene).
 *
 * test_limits_kernel_vs_property: oroya_mixer_set_joint_limit on a rig-backed mixer (kernel
 * path) against the same mixer forced onto the property path, within 1e-5 on every node and
 * bone; every limited joint stays inside its limit, checked by a swing-twist split in double
 * written here.
 *
 * test_batch_duplicate_mixer: a mixer given twice in one batch is refused. */
#define _POSIX_C_SOURCE 200809L
#include "internal/mixer.h"
#include "internal/scene.h"
#include "oroya/clip.h"
#include "oroya/mixer.h"
#include "oroya/pose.h"
#include "oroya/rig.h"
#include "oroya/rotation.h"
#include "oroya/scene.h"

#include "bench_character.h"
#include "oroya_test.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- a counting allocator ------------------------------------------------------------- */

static atomic_long alloc_calls;

static void *count_alloc(size_t size, size_t align, void *user) {
    (void)user;
    atomic_fetch_add(&alloc_calls, 1);
    if (align < sizeof(void *))
        align = sizeof(void *);
    void *p = NULL;
    return posix_memalign(&p, align, size ? size : 1) == 0 ? p : NULL;
}

static void count_free(void *p, void *user) {
    (void)user;
    free(p);
}

static const oroya_allocator counting = {count_alloc, count_free, NULL};

/* ---- the batch ------------------------------------------------------------------------- */

enum { FREE_MIXERS = 40, SCENE_MIXERS = 3, MIXERS = FREE_MIXERS + SCENE_MIXERS, FRAMES = 240 };
enum { MAX_ACTIONS = 4, MAX_EVENTS_SEEN = 64 };

typedef struct seen_event {
    int type, direction, action;
    long long loop_delta;
    const oroya_marker *marker;
} seen_event;

typedef struct mixer_slot {
    oroya_mixer *mixer;
    oroya_action *actions[MAX_ACTIONS];
    seen_event seen[MAX_EVENTS_SEEN];
    uint32_t seen_count, seen_lost;
    uint32_t wrong_thread;
} mixer_slot;

static pthread_t main_thread;

static int action_index(const mixer_slot *s, const oroya_action *a) {
    for (int i = 0; i < MAX_ACTIONS; i++)
        if (s->actions[i] == a)
            return i;
    return -1;
}

static void on_event(const oroya_event *e, void *user) {
    mixer_slot *s = user;
    if (!pthread_equal(pthread_self(), main_thread))
        s->wrong_thread++;
    if (s->seen_count == MAX_EVENTS_SEEN) {
        s->seen_lost++;
        return;
    }
    s->seen[s->seen_count++] =
        (seen_event){(int)e->type, (int)e->direction, action_index(s, e->action),
                     (long long)e->loop_delta, e->marker};
}

/* Mixer i's starting state, the same for both halves: walk and run (weights, loop modes),
 * sometimes an additive wave, a warped cross-fade, a negative time scale; time offset i. */
static void setup(mixer_slot *s, int i, const oroya_clip *const clips[4]) {
    oroya_action **a = s->actions;
    OT_CHECK(oroya_mixer_play(s->mixer, clips[0], &a[0]) == OROYA_OK);
    OT_CHECK(oroya_mixer_play(s->mixer, clips[1], &a[1]) == OROYA_OK);
    oroya_action_set_effective_weight(a[0], 0.6);
    oroya_action_set_effective_weight(a[1], 0.4);
    oroya_action_set_loop(a[1], i % 2 ? OROYA_LOOP_PINGPONG : OROYA_LOOP_REPEAT, 2 + i % 3);
    if (i % 3 == 0) {
        OT_CHECK(oroya_action_create(s->mixer, clips[2],
                                     &(oroya_action_desc){.has_blend_mode = true,
                                                          .blend_mode = OROYA_BLEND_ADDITIVE},
                                     &a[2]) == OROYA_OK);
        oroya_action_play(a[2]);
    }
    if (i % 4 == 1)
        oroya_action_cross_fade_to(a[0], a[1], 0.7, true);
    if (i % 5 == 2)
        oroya_action_set_time_scale(a[0], -0.7);
    if (i % 7 == 3) {
        OT_CHECK(oroya_mixer_play(s->mixer, clips[3], &a[3]) == OROYA_OK);
        oroya_action_set_loop(a[3], OROYA_LOOP_ONCE, 1);
        oroya_action_fade_in(a[3], 0.3);
    }
    oroya_mixer_set_time(s->mixer, 0.0173 * i);
}

/* Script changes, applied to both halves before frame f's update. */
static void script(mixer_slot *s, int i, int f) {
    oroya_action **a = s->actions;
    if (f == 60 && i % 2 == 0)
        oroya_action_cross_fade_to(a[1], a[0], 0.4, i % 4 == 0);
    if (f == 90 && i % 3 == 1)
        oroya_action_set_effective_weight(a[1], 0.25);
    if (f == 120)
        oroya_action_set_time_scale(a[0], i % 2 ? -1.3 : 1.6);
    if (f == 150 && i % 5 == 0)
        oroya_mixer_set_time(s->mixer, 1.25 + 0.01 * i);
    if (f == 180 && i % 6 == 5) {
        oroya_action_stop(a[1]);
        oroya_action_fade_in(a[1], 0.2);
        oroya_action_play(a[1]);
    }
}

static bool same_events(const mixer_slot *x, const mixer_slot *y) {
    if (x->seen_count != y->seen_count || x->seen_lost != y->seen_lost)
        return false;
    for (uint32_t k = 0; k < x->seen_count; k++) {
        const seen_event *p = &x->seen[k], *q = &y->seen[k];
        if (p->type != q->type || p->direction != q->direction || p->action != q->action ||
            p->loop_delta != q->loop_delta || p->marker != q->marker || p->action < 0)
            return false;
    }
    /* The mixer's own list says the same as the callback. */
    uint32_t nx = 0, ny = 0, dx = 0, dy = 0;
    const oroya_event *ex = oroya_mixer_events(x->mixer, &nx, &dx);
    const oroya_event *ey = oroya_mixer_events(y->mixer, &ny, &dy);
    if (nx != ny || dx != dy)
        return false;
    for (uint32_t k = 0; k < nx; k++)
        if (ex[k].type != ey[k].type || ex[k].loop_delta != ey[k].loop_delta ||
            ex[k].direction != ey[k].direction ||
            action_index(x, ex[k].action) != action_index(y, ey[k].action))
            return false;
    return true;
}

static bool same_scene(const oroya_scene *a, const oroya_node *na, const oroya_scene *b,
                       const oroya_node *nb, uint32_t count) {
    for (uint32_t j = 0; j < count; j++) {
        oroya_transform ta, tb;
        oroya_mat4 wa, wb;
        if (oroya_scene_get_transform(a, na[j], &ta) != OROYA_OK ||
            oroya_scene_get_transform(b, nb[j], &tb) != OROYA_OK)
            return false;
        if (oroya_scene_get_world(a, na[j], &wa) != OROYA_OK ||
            oroya_scene_get_world(b, nb[j], &wb) != OROYA_OK)
            return false;
        if (memcmp(&ta, &tb, sizeof ta) != 0 || memcmp(&wa, &wb, sizeof wa) != 0)
            return false;
    }
    return true;
}

static void test_batch_matches_single(void) {
    oroya_error err = {0};
    main_thread = pthread_self();
    bench_character shared;
    OT_CHECK(bench_character_create(&(bench_character_desc){.allocator = counting}, &shared,
                                    &err) == OROYA_OK);
    /* Walk with markers (events of the third kind), run, wave made additive, walk_cubic. */
    oroya_clip *walk = NULL, *wave = NULL;
    OT_CHECK(oroya_clip_clone(bench_character_clip(&shared, "walk"), &walk, &err) == OROYA_OK);
    const oroya_marker marks[2] = {{.time = 0.1f, .name = "step_l"},
                                   {.time = walk->duration * 0.5f, .name = "step_r"}};
    OT_CHECK(oroya_clip_set_markers(walk, marks, 2, &err) == OROYA_OK);
    OT_CHECK(oroya_clip_clone(bench_character_clip(&shared, "wave"), &wave, &err) == OROYA_OK);
    OT_CHECK(oroya_clip_make_additive(wave, 0, NULL, 30) == OROYA_OK);
    const oroya_clip *const clips[4] = {walk, bench_character_clip(&shared, "run"), wave,
                                        bench_character_clip(&shared, "walk_cubic")};
    OT_CHECK(clips[1] && clips[3]);
    oroya_rig *rig = NULL;
    OT_CHECK(oroya_rig_create(&(oroya_rig_desc){.scene = shared.scene,
                                                .joints = shared.nodes,
                                                .joint_count = shared.joint_count,
                                                .inverse_bind = shared.inverse_bind,
                                                .clips = clips,
                                                .clip_count = 4,
                                                .allocator = counting},
                              &rig, &err) == OROYA_OK);

    /* [0] updated one by one, [1] by the batch. The last SCENE_MIXERS of each half own a
     * character of their own (scene and rig): the lazy write-back is compared too. */
    static mixer_slot slots[2][MIXERS];
    bench_character own[2][SCENE_MIXERS];
    oroya_rig *own_rig[2][SCENE_MIXERS] = {{0}};
    memset(slots, 0, sizeof slots);
    for (int h = 0; h < 2; h++) {
        for (int i = 0; i < MIXERS; i++) {
            mixer_slot *s = &slots[h][i];
            oroya_scene *scene = NULL;
            const oroya_rig *r = rig;
            if (i >= FREE_MIXERS) {
                bench_character *c = &own[h][i - FREE_MIXERS];
                OT_CHECK(bench_character_create(&(bench_character_desc){.allocator = counting}, c,
                                                &err) == OROYA_OK);
                OT_CHECK(oroya_rig_create(&(oroya_rig_desc){.scene = c->scene,
                                                            .joints = c->nodes,
                                                            .joint_count = c->joint_count,
                                                            .inverse_bind = c->inverse_bind,
                                                            .clips = clips,
                                                            .clip_count = 4,
                                                            .allocator = counting},
                                          &own_rig[h][i - FREE_MIXERS], &err) == OROYA_OK);
                scene = c->scene;
                r = own_rig[h][i - FREE_MIXERS];
            }
            OT_CHECK(oroya_mixer_create(
                         scene,
                         &(oroya_mixer_desc){
                             .rig = r, .allocator = counting, .on_event = on_event, .user = s},
                         &s->mixer) == OROYA_OK);
            setup(s, i, clips);
        }
    }
    oroya_thread_pool *pool = NULL;
    OT_CHECK(oroya_thread_pool_create(
                 &(oroya_thread_pool_desc){.thread_count = 2, .allocator = counting}, &pool,
                 &err) == OROYA_OK);
    const oroya_scheduler scheduler = {oroya_thread_pool_parallel_for, pool};
    oroya_mixer *batch[MIXERS];
    for (int i = 0; i < MIXERS; i++)
        batch[i] = slots[1][i].mixer;

    long bone_diffs = 0, scene_diffs = 0, event_diffs = 0, not_kernel = 0, events = 0, markers = 0,
         loops = 0, finished = 0;
    long allocs_in_frames = 0;
    for (int f = 0; f < FRAMES; f++) {
        const double dt = (double)(f % 7) * 0.006; /* 0 now and then */
        for (int h = 0; h < 2; h++)
            for (int i = 0; i < MIXERS; i++) {
                script(&slots[h][i], i, f);
                slots[h][i].seen_count = slots[h][i].seen_lost = 0;
            }
        const long before = atomic_load(&alloc_calls);
        for (int i = 0; i < MIXERS; i++)
            OT_CHECK(oroya_mixer_update(slots[0][i].mixer, dt) == OROYA_OK);
        OT_CHECK(oroya_mixer_update_batch(batch, MIXERS, dt, &scheduler, &err) == OROYA_OK);
        for (int h = 0; h < 2; h++) /* the lazy write-back, read back */
            for (int j = 0; j < SCENE_MIXERS; j++)
                oroya_scene_update_world(own[h][j].scene);
        allocs_in_frames += atomic_load(&alloc_calls) - before;
        for (int i = 0; i < MIXERS; i++) {
            const mixer_slot *x = &slots[0][i], *y = &slots[1][i];
            uint32_t nx = 0, ny = 0;
            const oroya_mat4 *bx = oroya_mixer_bone_matrices(x->mixer, &nx);
            const oroya_mat4 *by = oroya_mixer_bone_matrices(y->mixer, &ny);
            if (nx != shared.joint_count || nx != ny || memcmp(bx, by, nx * sizeof *bx) != 0)
                bone_diffs++;
            if (!oroya_mixer_kernel_active(x->mixer) || !oroya_mixer_kernel_active(y->mixer))
                not_kernel++;
            if (!same_events(x, y))
                event_diffs++;
            for (uint32_t k = 0; k < y->seen_count; k++) {
                markers += y->seen[k].type == OROYA_EVENT_MARKER;
                loops += y->seen[k].type == OROYA_EVENT_LOOP;
                finished += y->seen[k].type == OROYA_EVENT_FINISHED;
            }
            events += y->seen_count;
            if (i >= FREE_MIXERS) {
                const bench_character *cx = &own[0][i - FREE_MIXERS],
                                      *cy = &own[1][i - FREE_MIXERS];
                if (!same_scene(cx->scene, cx->nodes, cy->scene, cy->nodes, cx->joint_count))
                    scene_diffs++;
            }
        }
    }
    printf("batch: %d mixers x %d frames, %ld events (%ld markers)\n", MIXERS, FRAMES, events,
           markers);
    OT_EQ_INT(bone_diffs, 0);
    OT_EQ_INT(scene_diffs, 0);
    OT_EQ_INT(event_diffs, 0);
    OT_EQ_INT(not_kernel, 0);
    OT_EQ_INT(allocs_in_frames, 0);
    /* The script does raise every kind of event, on the calling thread only. */
    OT_CHECK(markers > 100 && loops > 50 && finished > 0 && events == markers + loops + finished);
    for (int h = 0; h < 2; h++)
        for (int i = 0; i < MIXERS; i++)
            OT_EQ_INT(slots[h][i].wrong_thread, 0);
    /* The scene mixers' poses moved (a batch that wrote nothing would still compare equal
     * between halves only if both wrote nothing). */
    oroya_transform t0, t1;
    OT_CHECK(oroya_scene_get_transform(own[1][0].scene, own[1][0].nodes[1], &t0) == OROYA_OK);
    OT_CHECK(oroya_scene_get_transform(shared.scene, shared.nodes[1], &t1) == OROYA_OK);
    OT_CHECK(memcmp(&t0.rotation, &t1.rotation, sizeof t0.rotation) != 0);

    oroya_thread_pool_destroy(pool);
    for (int h = 0; h < 2; h++) {
        for (int i = 0; i < MIXERS; i++)
            oroya_mixer_destroy(slots[h][i].mixer);
        for (int j = 0; j < SCENE_MIXERS; j++) {
            oroya_rig_destroy(own_rig[h][j]);
            bench_character_free(&own[h][j]);
        }
    }
    oroya_rig_destroy(rig);
    oroya_clip_destroy(walk);
    oroya_clip_destroy(wave);
    bench_character_free(&shared);
}

/* ---- joint limits ---------------------------------------------------------------------- */

/* root -> a -> b -> c -> d -> tip; the limits go on a, c and tip (tip is never animated and
 * rests outside its limit, so the mixer must clamp it on its own). */
#define LJ 6
static const char *const lnames[LJ] = {"root", "a", "b", "c", "d", "tip"};

typedef struct limit_world {
    oroya_scene *scene;
    oroya_node nodes[LJ];
    oroya_rig *rig;
    oroya_mixer *mixer;
} limit_world;

static const oroya_joint_limit limits[3] = {
    {.twist_axis = {0, 1, 0},
     .swing = OROYA_SWING_CONE,
     .swing_max = {0.5f},
     .has_twist_limit = true,
     .twist_min = -0.3f,
     .twist_max = 0.3f},
    {.twist_axis = {0, 1, 0},
     .swing_axis = {1, 0, 0},
     .swing = OROYA_SWING_ELLIPSE,
     .swing_max = {0.7f, 0.2f}},
    {.twist_axis = {0, 1, 0}, .swing = OROYA_SWING_CONE, .swing_max = {0.25f}},
};
static const int limited[3] = {1, 3, 5};

static oroya_clip *limit_clip(void) {
    static const float times[4] = {0, 0.7f, 1.3f, 2};
    static float rot[4][16];
    static float move[12] = {0, 0, 0, 0.2f, 0.1f, 0, -0.1f, 0.3f, 0.2f, 0, 0, 0};
    oroya_track tr[5] = {{.target = "root",
                          .property = OROYA_PROPERTY_TRANSLATION,
                          .interpolation = OROYA_INTERP_LINEAR,
                          .components = 3,
                          .key_count = 4,
                          .times = times,
                          .values = move}};
    for (int j = 0; j < 4; j++) { /* a, b, c, d: big swings and twists, inside and out */
        for (int k = 0; k < 4; k++) {
            const float s = (float)(j + 1) * 0.4f, t = (float)k;
            const oroya_quat q = oroya_quat_normalize((oroya_quat){
                s * sinf(t + 0.3f), 0.8f * cosf(1.7f * t + (float)j), s * cosf(2.1f * t), 1});
            rot[j][4 * k] = q.x, rot[j][4 * k + 1] = q.y, rot[j][4 * k + 2] = q.z,
                       rot[j][4 * k + 3] = q.w;
        }
        tr[1 + j] = (oroya_track){.target = lnames[1 + j],
                                  .property = OROYA_PROPERTY_ROTATION,
                                  .interpolation = OROYA_INTERP_LINEAR,
                                  .components = 4,
                                  .key_count = 4,
                                  .times = times,
                                  .values = rot[j]};
    }
    oroya_clip *clip = NULL;
    OT_CHECK(oroya_clip_create(&(oroya_clip_desc){.name = "limits", .tracks = tr, .track_count = 5},
                               &clip, NULL) == OROYA_OK);
    return clip;
}

static void limit_world_create(limit_world *w, const oroya_clip *clip, bool reference) {
    OT_CHECK(oroya_scene_create(NULL, &w->scene) == OROYA_OK);
    for (int i = 0; i < LJ; i++) {
        OT_CHECK(oroya_scene_add_node(w->scene, lnames[i], i ? w->nodes[i - 1] : (oroya_node){0},
                                      OROYA_NODE_BONE, &w->nodes[i]) == OROYA_OK);
        oroya_transform t = oroya_transform_identity();
        t.translation = (oroya_vec3){0, i ? 0.5f : 0, 0};
        if (i == 5) /* 60 degrees of swing about x: outside the 0.25 rad cone */
            t.rotation = (oroya_quat){0.5f, 0, 0, 0.8660254f};
        oroya_scene_set_transform(w->scene, w->nodes[i], &t);
    }
    oroya_error err = {0};
    OT_CHECK(oroya_rig_create(&(oroya_rig_desc){.scene = w->scene,
                                                .joints = w->nodes,
                                                .joint_count = LJ,
                                                .clips = &clip,
                                                .clip_count = 1},
                              &w->rig, &err) == OROYA_OK);
    OT_CHECK(oroya_mixer_create(w->scene, &(oroya_mixer_desc){.rig = w->rig}, &w->mixer) ==
             OROYA_OK);
    oroya__mixer_set_reference(w->mixer, reference);
    for (int l = 0; l < 3; l++)
        OT_CHECK(oroya_mixer_set_joint_limit(w->mixer, w->nodes[limited[l]], &limits[l], &err) ==
                 OROYA_OK);
    oroya_action *a = NULL;
    OT_CHECK(oroya_mixer_play(w->mixer, clip, &a) == OROYA_OK);
    oroya_action_set_weight(a, 0.85); /* blends toward the rest pose too */
}

static void limit_world_destroy(limit_world *w) {
    oroya_mixer_destroy(w->mixer);
    oroya_rig_destroy(w->rig);
    oroya_scene_destroy(w->scene);
}

/* How far q (unit, reference identity, twist axis +y) lies outside `l`, in radians; 0 inside.
 * Swing-twist in double: twist = normalize(w, 0, y, 0), swing = q * conj(twist). */
static double limit_excess(const oroya_joint_limit *l, oroya_quat q) {
    const double x = q.x, y = q.y, z = q.z, w = q.w;
    double tn = sqrt(w * w + y * y), tw = w / tn, ty = y / tn;
    if (tw < 0)
        tw = -tw, ty = -ty;
    const double twist = 2 * atan2(ty, tw);
    /* swing = q * conj(twist), conj(twist) = (0, -ty, 0, tw) */
    const double sw = w * tw + y * ty, sx = x * tw + z * ty, sz = z * tw - x * ty;
    const double sang = 2 * atan2(sqrt(sx * sx + sz * sz), fabs(sw));
    double excess = 0;
    if (l->has_twist_limit) {
        excess = fmax(excess, l->twist_min - twist);
        excess = fmax(excess, twist - l->twist_max);
    }
    if (l->swing == OROYA_SWING_CONE) {
        excess = fmax(excess, sang - l->swing_max[0]);
    } else if (l->swing == OROYA_SWING_ELLIPSE) {
        /* rotation vector (about x: swing_axis, about z: y x x = -z) against the ellipse */
        const double vn = sqrt(sx * sx + sz * sz);
        const double rx = vn > 0 ? sang * sx / vn * (sw < 0 ? -1 : 1) : 0;
        const double rz = vn > 0 ? sang * sz / vn * (sw < 0 ? -1 : 1) : 0;
        const double ea = l->swing_max[0], eb = l->swing_max[1];
        const double e = (rx * rx) / (ea * ea) + (rz * rz) / (eb * eb);
        if (e > 1) /* a radial measure of how far outside: enough to catch a violation */
            excess = fmax(excess, sqrt(rx * rx + rz * rz) * (1 - 1 / sqrt(e)));
    }
    return excess;
}

static void test_limits_kernel_vs_property(void) {
    oroya_clip *clip = limit_clip();
    limit_world k, r;
    limit_world_create(&k, clip, false);
    limit_world_create(&r, clip, true);
    double worst_node = 0, worst_bone = 0, worst_excess = 0, worst_excess_unlimited = 0;
    int kernel_frames = 0, reference_kernel = 0;
    enum { LFRAMES = 150 };
    for (int f = 0; f < LFRAMES; f++) {
        const double dt = f == 75 ? 0 : 1.0 / 60;
        OT_CHECK(oroya_mixer_update(k.mixer, dt) == OROYA_OK);
        OT_CHECK(oroya_mixer_update(r.mixer, dt) == OROYA_OK);
        kernel_frames += oroya_mixer_kernel_active(k.mixer);
        reference_kernel += oroya_mixer_kernel_active(r.mixer);
        for (int i = 0; i < LJ; i++) {
            oroya_transform a, b;
            OT_CHECK(oroya_scene_get_transform(k.scene, k.nodes[i], &a) == OROYA_OK);
            OT_CHECK(oroya_scene_get_transform(r.scene, r.nodes[i], &b) == OROYA_OK);
            const float *pa = &a.translation.x, *pb = &b.translation.x;
            const float *qa = &a.rotation.x, *qb = &b.rotation.x;
            for (int e = 0; e < 3; e++)
                worst_node = fmax(worst_node, fabs((double)pa[e] - pb[e]));
            for (int e = 0; e < 4; e++)
                worst_node = fmax(worst_node, fabs((double)qa[e] - qb[e]));
        }
        for (int l = 0; l < 3; l++) {
            oroya_transform a;
            OT_CHECK(oroya_scene_get_transform(k.scene, k.nodes[limited[l]], &a) == OROYA_OK);
            worst_excess = fmax(worst_excess, limit_excess(&limits[l], a.rotation));
            /* b and d carry no limit: the same measure shows the clip does leave the cones */
            oroya_transform u;
            OT_CHECK(oroya_scene_get_transform(k.scene, k.nodes[2 * l + 2 > 4 ? 4 : 2 * l + 2],
                                               &u) == OROYA_OK);
            worst_excess_unlimited =
                fmax(worst_excess_unlimited, limit_excess(&limits[l], u.rotation));
        }
        uint32_t nk = 0, nr = 0;
        const oroya_mat4 *bk = oroya_mixer_bone_matrices(k.mixer, &nk);
        const oroya_mat4 *br = oroya_mixer_bone_matrices(r.mixer, &nr);
        OT_EQ_INT(nk, LJ);
        OT_EQ_INT(nr, LJ);
        for (uint32_t i = 0; i < nk && nk == nr; i++)
            for (int e = 0; e < 16; e++)
                worst_bone = fmax(worst_bone, fabs((double)bk[i].m[e] - br[i].m[e]));
    }
    printf("limits: kernel against property path: nodes %.3g, bones %.3g\n", worst_node,
           worst_bone);
    OT_EQ_INT(kernel_frames, LFRAMES);
    OT_EQ_INT(reference_kernel, 0);
    OT_NEAR(worst_node, 0, 1e-5);
    OT_NEAR(worst_bone, 0, 1e-5);
    OT_NEAR(worst_excess, 0, 1e-5);
    OT_CHECK(worst_excess_unlimited > 0.1);
    /* The never-animated tip was clamped too (its rest rotation is 1.05 rad off). */
    oroya_transform tip;
    OT_CHECK(oroya_scene_get_transform(k.scene, k.nodes[5], &tip) == OROYA_OK);
    OT_NEAR(2 * acos(fmin(1.0, (double)tip.rotation.w)), 0.25, 1e-5);
    limit_world_destroy(&k);
    limit_world_destroy(&r);
    oroya_clip_destroy(clip);
}

/* Stop, play again and set the same time: stopping writes the original values back to the
 * scene (three's restoreOriginalState), and the pose of the next update equals the last one
 * written before the stop; the scene must show it again, on the kernel path as on the
 * property path (oroya render frames characters this way). */
static void test_stop_then_same_pose(void) {
    oroya_clip *clip = limit_clip();
    limit_world k, r;
    limit_world_create(&k, clip, false);
    limit_world_create(&r, clip, true);
    limit_world *w[2] = {&k, &r};
    double worst = 0;
    for (int round = 0; round < 3; round++) {
        for (int i = 0; i < 2; i++) {
            oroya_action *a = NULL;
            OT_CHECK(oroya_mixer_play(w[i]->mixer, clip, &a) == OROYA_OK);
            OT_CHECK(oroya_mixer_set_time(w[i]->mixer, 0.9) == OROYA_OK);
        }
        OT_CHECK(oroya_mixer_kernel_active(k.mixer));
        for (int j = 0; j < LJ; j++) {
            oroya_transform a, b;
            OT_CHECK(oroya_scene_get_transform(k.scene, k.nodes[j], &a) == OROYA_OK);
            OT_CHECK(oroya_scene_get_transform(r.scene, r.nodes[j], &b) == OROYA_OK);
            const float *qa = &a.rotation.x, *qb = &b.rotation.x;
            for (int e = 0; e < 4; e++)
                worst = fmax(worst, fabs((double)qa[e] - qb[e]));
        }
        for (int i = 0; i < 2; i++) {
            oroya_action *a = NULL;
            OT_CHECK(oroya_mixer_clip_action(w[i]->mixer, clip, &a) == OROYA_OK);
            oroya_action_stop(a);
        }
    }
    printf("stop, play, same time: kernel against property path: %.3g\n", worst);
    OT_NEAR(worst, 0, 1e-5);
    limit_world_destroy(&k);
    limit_world_destroy(&r);
    oroya_clip_destroy(clip);
}

/* A rig's hierarchy is fixed when it is built: re-parenting or removing one of its joint nodes
 * afterwards must not leave bone matrices that disagree with the scene. The update is
 * refused (INVALID_DATA), the batch names the joint, and re-parenting back makes it work. */
static void test_hierarchy_change_refused(void) {
    oroya_clip *clip = limit_clip();
    limit_world w;
    limit_world_create(&w, clip, false);
    OT_CHECK(oroya_mixer_update(w.mixer, 1.0 / 60) == OROYA_OK);
    /* "c" (joint 3) moves under "root": the rig still has it under "b". */
    OT_CHECK(oroya_scene_set_parent(w.scene, w.nodes[3], w.nodes[0]) == OROYA_OK);
    OT_CHECK(oroya_mixer_update(w.mixer, 1.0 / 60) == OROYA_ERR_INVALID_DATA);
    /* The refusal is in oroya_mixer_last_error (it was ""), naming the call and the joint. */
    OT_CHECK_MSG(strstr(oroya_mixer_last_error(w.mixer), "oroya_mixer_update: rig") != NULL &&
                     strstr(oroya_mixer_last_error(w.mixer), "joint 3 (\"c\")") != NULL,
                 "%s", oroya_mixer_last_error(w.mixer));
    /* set_time too, and it changes nothing (the times were zeroed before the check). */
    oroya_action *first = oroya_mixer_active_action(w.mixer, 0);
    const double mixer_time = oroya_mixer_time(w.mixer), action_time = oroya_action_time(first);
    OT_CHECK(mixer_time > 0 && action_time > 0);
    OT_EQ_INT(oroya_mixer_set_time(w.mixer, 0.5), OROYA_ERR_INVALID_DATA);
    OT_CHECK(strstr(oroya_mixer_last_error(w.mixer), "oroya_mixer_set_time: rig") != NULL);
    OT_CHECK(oroya_mixer_time(w.mixer) == mixer_time);
    OT_CHECK(oroya_action_time(first) == action_time);
    oroya_error err = {0};
    OT_CHECK(oroya_mixer_update_batch(&w.mixer, 1, 1.0 / 60, NULL, &err) == OROYA_ERR_INVALID_DATA);
    OT_CHECK(strstr(err.message, "joint 3 (\"c\")") != NULL);
    /* Back under "b": the rig's hierarchy again. */
    OT_CHECK(oroya_scene_set_parent(w.scene, w.nodes[3], w.nodes[2]) == OROYA_OK);
    OT_CHECK(oroya_mixer_update(w.mixer, 1.0 / 60) == OROYA_OK);
    /* The rig's root ("root", joint 0) moved under a new node: refused too (it was not
     * checked, and the bone matrices missed the new parent's transform). */
    oroya_node above;
    OT_CHECK(oroya_scene_add_node(w.scene, "above", (oroya_node){0}, OROYA_NODE_OBJECT, &above) ==
             OROYA_OK);
    OT_CHECK(oroya_scene_set_parent(w.scene, w.nodes[0], above) == OROYA_OK);
    OT_CHECK(oroya_mixer_update_batch(&w.mixer, 1, 1.0 / 60, NULL, &err) == OROYA_ERR_INVALID_DATA);
    OT_CHECK_MSG(strstr(err.message, "joint 0 (\"root\")") != NULL, "%s", err.message);
    OT_CHECK(oroya_scene_set_parent(w.scene, w.nodes[0], (oroya_node){0}) == OROYA_OK);
    OT_CHECK(oroya_mixer_update(w.mixer, 1.0 / 60) == OROYA_OK);
    /* Removing a joint node ("tip", joint 5) is refused too. */
    OT_CHECK(oroya_scene_remove_node(w.scene, w.nodes[5]) == OROYA_OK);
    OT_CHECK(oroya_mixer_update(w.mixer, 1.0 / 60) == OROYA_ERR_INVALID_DATA);
    limit_world_destroy(&w);
    oroya_clip_destroy(clip);
}

/* The batch's check reads a mixer's first line only while bounds kept from its last update
 * hold (chk_rate, chk_time in mixer.c): every call that raises a scheduled action's time or
 * time scale, or schedules an action, must make the next batch check the actions again. Each
 * case below passes a batch, then makes one action able to overflow with a dt that did not
 * before: the batch must refuse (as oroya_mixer_update does) and change nothing. */
static void expect_refused(oroya_mixer *m, double dt, const char *what) {
    oroya_error err = {0};
    const double t0 = oroya_mixer_time(m);
    const oroya_result single = oroya_mixer_update(m, dt);
    const oroya_result batch = oroya_mixer_update_batch(&m, 1, dt, NULL, &err);
    if (single != OROYA_ERR_INVALID_ARGUMENT || batch != OROYA_ERR_INVALID_ARGUMENT)
        fprintf(stderr, "  %s: update %d, batch %d (want %d)\n", what, (int)single, (int)batch,
                (int)OROYA_ERR_INVALID_ARGUMENT);
    OT_EQ_INT(single, OROYA_ERR_INVALID_ARGUMENT);
    OT_EQ_INT(batch, OROYA_ERR_INVALID_ARGUMENT);
    OT_CHECK(strstr(err.message, "mixers[0]") != NULL);
    OT_CHECK(oroya_mixer_time(m) == t0);
}

static void batch_ok(oroya_mixer *m, double dt) {
    oroya_error err = {0};
    OT_EQ_INT(oroya_mixer_update_batch(&m, 1, dt, NULL, &err), OROYA_OK);
}

static void test_batch_check_bounds(void) {
    oroya_clip *clip = limit_clip();
    for (int c = 0; c < 7; c++) {
        limit_world w;
        limit_world_create(&w, clip, false);
        oroya_action *a = oroya_mixer_active_action(w.mixer, 0), *b = NULL;
        OT_CHECK(a != NULL);
        /* b: an action of its own (independent), not scheduled, with a huge time scale. */
        OT_CHECK(oroya_action_create(w.mixer, clip, &(oroya_action_desc){.independent = true},
                                     &b) == OROYA_OK);
        OT_EQ_INT(oroya_action_set_time_scale(b, 1e300), OROYA_OK);
        batch_ok(w.mixer, 1.0 / 60);
        batch_ok(w.mixer, 1e10); /* b is not scheduled: no overflow yet */
        switch (c) {
        case 0:
            OT_EQ_INT(oroya_action_set_time_scale(a, 1e300), OROYA_OK);
            expect_refused(w.mixer, 1e10, "set_time_scale");
            break;
        case 1:
            OT_EQ_INT(oroya_action_set_effective_time_scale(a, 1e300), OROYA_OK);
            expect_refused(w.mixer, 1e10, "set_effective_time_scale");
            break;
        case 2:
            /* Within the loop arithmetic's range (DBL_MAX / 4), until a step of 1e307. */
            OT_EQ_INT(oroya_action_set_time(a, 4e307), OROYA_OK);
            expect_refused(w.mixer, 1e307, "set_time");
            break;
        case 3:
            OT_EQ_INT(oroya_action_set_duration(a, 1e-300), OROYA_OK);
            expect_refused(w.mixer, 1e10, "set_duration");
            break;
        case 4:
            OT_EQ_INT(oroya_action_sync_with(a, b), OROYA_OK);
            expect_refused(w.mixer, 1e10, "sync_with");
            break;
        case 5:
            /* A warp raises the time scale within the update: its end bounds the step
             * (it was the last frame's time scale, 1, and the time became inf). */
            OT_EQ_INT(oroya_action_warp(a, 1, 3e38, 1), OROYA_OK);
            expect_refused(w.mixer, 1e270, "warp");
            break;
        default:
            oroya_action_play(b);
            expect_refused(w.mixer, 1e10, "play");
            break;
        }
        /* Nothing changed: a small step still goes through. */
        batch_ok(w.mixer, 1.0 / 60);
        limit_world_destroy(&w);
    }
    oroya_clip_destroy(clip);
}

/* The bench character with a rig for its walk and a 2-thread pool (the batch tests below). */
typedef struct walk_world {
    bench_character bc;
    const oroya_clip *walk;
    oroya_rig *rig;
    oroya_thread_pool *pool;
    oroya_scheduler sched;
} walk_world;

static void walk_world_create(walk_world *w) {
    memset(w, 0, sizeof *w);
    oroya_error err = {0};
    OT_CHECK(bench_character_create(NULL, &w->bc, &err) == OROYA_OK);
    w->walk = bench_character_clip(&w->bc, "walk");
    OT_CHECK(oroya_rig_create(&(oroya_rig_desc){.scene = w->bc.scene,
                                                .joints = w->bc.nodes,
                                                .joint_count = w->bc.joint_count,
                                                .inverse_bind = w->bc.inverse_bind,
                                                .clips = &w->walk,
                                                .clip_count = 1},
                              &w->rig, &err) == OROYA_OK);
    OT_CHECK(oroya_thread_pool_create(&(oroya_thread_pool_desc){.thread_count = 2}, &w->pool,
                                      &err) == OROYA_OK);
    w->sched = (oroya_scheduler){oroya_thread_pool_parallel_for, w->pool};
}

static void walk_world_destroy(walk_world *w) {
    oroya_thread_pool_destroy(w->pool);
    oroya_rig_destroy(w->rig);
    bench_character_free(&w->bc);
}

/* An event callback of mixers[0] that changes mixers[1] (a time scale of 1e300, accepted)
 * after the batch's first check: mixers[1] is checked again before its update and refused as
 * oroya_mixer_update would refuse it (left as it was, time 0), mixers[0] and mixers[2] are
 * updated, and the batch returns the refusal naming mixers[1]. The batch used to update it
 * unchecked: time inf, action time NaN, every later update refused. With and without a
 * scheduler. */
static oroya_mixer *speed_victim;
static void speed_up_victim(const oroya_event *e, void *user) {
    (void)e;
    (void)user;
    OT_EQ_INT(oroya_mixer_set_time_scale(speed_victim, 1e300), OROYA_OK);
}

static void test_batch_callback_changes_later_mixer(void) {
    walk_world ww;
    walk_world_create(&ww);
    oroya_error err = {0};
    for (int with_pool = 0; ww.rig && with_pool < 2; with_pool++) {
        oroya_mixer *m[3] = {NULL, NULL, NULL};
        oroya_action *a[3] = {NULL, NULL, NULL};
        for (int i = 0; i < 3; i++) {
            OT_CHECK(
                oroya_mixer_create(
                    NULL,
                    &(oroya_mixer_desc){.rig = ww.rig, .on_event = i == 0 ? speed_up_victim : NULL},
                    &m[i]) == OROYA_OK);
            OT_CHECK(m[i] && oroya_mixer_play(m[i], ww.walk, &a[i]) == OROYA_OK);
        }
        if (!m[0] || !m[1] || !m[2]) {
            break;
        }
        speed_victim = m[1];
        const uint32_t bones = oroya_mixer_bone_matrices(m[1], NULL) ? 1 : 0;
        OT_CHECK(bones == 1);
        oroya_mat4 before;
        memcpy(&before, oroya_mixer_bone_matrices(m[1], NULL) + 5, sizeof before);
        err = (oroya_error){0};
        /* dt 1e10 loops mixers[0]'s walk: a LOOP event, its callback runs. */
        OT_EQ_INT(oroya_mixer_update_batch(m, 3, 1e10, with_pool ? &ww.sched : NULL, &err),
                  OROYA_ERR_INVALID_ARGUMENT);
        OT_CHECK_MSG(strstr(err.message, "mixers[1]") &&
                         strstr(err.message, "after an event callback"),
                     "%s", err.message);
        OT_CHECK(oroya_mixer_time(m[0]) == 1e10 && oroya_mixer_time(m[2]) == 1e10);
        OT_CHECK(oroya_mixer_time(m[1]) == 0 && oroya_action_time(a[1]) == 0);
        OT_CHECK(!memcmp(&before, oroya_mixer_bone_matrices(m[1], NULL) + 5, sizeof before));
        /* The refused mixer is not stuck: at a time scale it can hold, it updates. */
        OT_EQ_INT(oroya_mixer_set_time_scale(m[1], 1), OROYA_OK);
        OT_EQ_INT(oroya_mixer_update(m[1], 0.25), OROYA_OK);
        OT_CHECK(oroya_mixer_time(m[1]) == 0.25 && isfinite(oroya_action_time(a[1])));
        for (int i = 0; i < 3; i++) {
            oroya_mixer_destroy(m[i]);
        }
    }
    walk_world_destroy(&ww);
}

/* A mixer given twice in a batch (each check passes): refused before anything is updated,
 * naming both places, with and without a scheduler. It used to be updated twice (its time
 * advanced by 2 dt; with a scheduler its kernel ran on two threads at once, and a mixer its
 * own callback destroyed was destroyed twice). The next batch with it once goes through. */
static void test_batch_duplicate_mixer(void) {
    walk_world ww;
    walk_world_create(&ww);
    oroya_error err = {0};
    for (int with_pool = 0; ww.rig && with_pool < 2; with_pool++) {
        oroya_mixer *m[2] = {NULL, NULL};
        for (int i = 0; i < 2; i++) {
            OT_CHECK(oroya_mixer_create(NULL, &(oroya_mixer_desc){.rig = ww.rig}, &m[i]) ==
                     OROYA_OK);
            OT_CHECK(m[i] && oroya_mixer_play(m[i], ww.walk, NULL) == OROYA_OK);
        }
        if (!m[0] || !m[1]) {
            break;
        }
        oroya_mixer *batch[3] = {m[0], m[1], m[0]};
        err = (oroya_error){0};
        OT_EQ_INT(oroya_mixer_update_batch(batch, 3, 0.25, with_pool ? &ww.sched : NULL, &err),
                  OROYA_ERR_INVALID_ARGUMENT);
        OT_CHECK_MSG(!strcmp(err.message, "mixers[2]: the mixer of mixers[0] again (each mixer "
                                          "may appear once in a batch); nothing was updated"),
                     "%s", err.message);
        OT_CHECK(oroya_mixer_time(m[0]) == 0 && oroya_mixer_time(m[1]) == 0);
        OT_EQ_INT(oroya_mixer_update_batch(batch, 2, 0.25, with_pool ? &ww.sched : NULL, &err),
                  OROYA_OK);
        OT_EQ_INT(oroya_mixer_update_batch(batch + 1, 2, 0.25, with_pool ? &ww.sched : NULL, &err),
                  OROYA_OK);
        OT_CHECK(oroya_mixer_time(m[0]) == 0.5 && oroya_mixer_time(m[1]) == 0.5);
        for (int i = 0; i < 2; i++) {
            oroya_mixer_destroy(m[i]);
        }
    }
    walk_world_destroy(&ww);
}

/* Root motion, property path against kernel path (they disagreed): turning it off or
 * changing its mode while the action is paused (the property path kept the held root: its
 * binding writes only a changed value), the last action on the root stopped (the property
 * path held the restored original), and a root nothing animates moved by hand (the property
 * path put it back). Each case, the hips on both paths within 1e-5. */
static void root_case(int kernel, int c, oroya_transform *out) {
    bench_character ch;
    oroya_error err = {0};
    OT_CHECK(bench_character_create(NULL, &ch, &err) == OROYA_OK);
    oroya_rig *rig = NULL;
    if (kernel)
        OT_CHECK(oroya_rig_create(&(oroya_rig_desc){.scene = ch.scene,
                                                    .joints = ch.nodes,
                                                    .joint_count = ch.joint_count,
                                                    .inverse_bind = ch.inverse_bind,
                                                    .clips = (const oroya_clip *const *)ch.clips,
                                                    .clip_count = 4},
                                  &rig, &err) == OROYA_OK);
    oroya_mixer *m = NULL;
    OT_CHECK(oroya_mixer_create(ch.scene, &(oroya_mixer_desc){.rig = rig}, &m) == OROYA_OK);
    const oroya_node hips = ch.nodes[0];
    oroya_action *walk = NULL;
    if (c == 3) {
        /* Stopped, then a new action whose first update has weight 0 (a fade's start): it
         * blends to the restored original, so its binding writes nothing, and the root is
         * still held while it animates (a first fix held only written values). */
        oroya_action *run = NULL;
        OT_CHECK(oroya_mixer_play(m, ch.clips[0], &walk) == OROYA_OK);
        OT_CHECK(oroya_mixer_update(m, 1 / 30.0) == OROYA_OK);
        OT_CHECK(oroya_mixer_set_root_motion(m, hips, OROYA_ROOT_Y, &err) == OROYA_OK);
        OT_CHECK(oroya_mixer_update(m, 2 / 30.0) == OROYA_OK);
        oroya_mixer_stop_all(m);
        OT_CHECK(oroya_mixer_update(m, 0) == OROYA_OK);
        OT_CHECK(oroya_mixer_play(m, ch.clips[1], &run) == OROYA_OK);
        OT_CHECK(oroya_action_set_weight(run, 0) == OROYA_OK);
        OT_CHECK(oroya_mixer_update(m, 0) == OROYA_OK);
        oroya_scene_get_transform(ch.scene, hips, &out[0]);
        oroya_mixer_destroy(m);
        oroya_rig_destroy(rig);
        bench_character_free(&ch);
        return;
    }
    if (c < 2)
        OT_CHECK(oroya_mixer_set_root_motion(m, hips, OROYA_ROOT_XZ, &err) == OROYA_OK);
    OT_CHECK(oroya_mixer_play(m, ch.clips[0], &walk) == OROYA_OK);
    for (int f = 0; f < 10; f++)
        OT_CHECK(oroya_mixer_update(m, 1 / 30.0) == OROYA_OK);
    if (c < 2) {
        oroya_action_set_paused(walk, true);
        OT_CHECK(oroya_mixer_update(m, 1 / 30.0) == OROYA_OK);
        OT_CHECK(oroya_mixer_set_root_motion(m, hips, c == 0 ? OROYA_ROOT_NONE : OROYA_ROOT_Y,
                                             &err) == OROYA_OK);
    } else {
        OT_CHECK(oroya_mixer_set_root_motion(m, hips, OROYA_ROOT_XZ_YAW, &err) == OROYA_OK);
        OT_CHECK(oroya_mixer_update(m, 1 / 30.0) == OROYA_OK);
        oroya_action_stop(walk);
    }
    OT_CHECK(oroya_mixer_update(m, 1 / 30.0) == OROYA_OK);
    OT_CHECK(oroya_mixer_update(m, 1 / 30.0) == OROYA_OK);
    oroya_scene_get_transform(ch.scene, hips, &out[0]);
    if (c == 2) {
        oroya_transform t = out[0];
        t.translation.x = 3;
        OT_CHECK(oroya_scene_set_transform(ch.scene, hips, &t) == OROYA_OK);
        OT_CHECK(oroya_mixer_update(m, 1 / 30.0) == OROYA_OK);
        oroya_scene_get_transform(ch.scene, hips, &out[1]);
        OT_CHECK_MSG(out[1].translation.x == 3, "%s path: a root moved by hand was moved back",
                     kernel ? "kernel" : "property");
    }
    oroya_mixer_destroy(m);
    oroya_rig_destroy(rig);
    bench_character_free(&ch);
}

static void test_root_motion_paths_agree(void) {
    for (int c = 0; c < 4; c++) {
        oroya_transform p[2] = {0}, k[2] = {0};
        root_case(0, c, p);
        root_case(1, c, k);
        const float d[7] = {
            p[0].translation.x - k[0].translation.x, p[0].translation.y - k[0].translation.y,
            p[0].translation.z - k[0].translation.z, p[0].rotation.x - k[0].rotation.x,
            p[0].rotation.y - k[0].rotation.y,       p[0].rotation.z - k[0].rotation.z,
            p[0].rotation.w - k[0].rotation.w};
        float worst = 0;
        for (int i = 0; i < 7; i++)
            worst = fmaxf(worst, fabsf(d[i]));
        OT_CHECK_MSG(worst <= 1e-5f, "case %d: property (%g %g %g) kernel (%g %g %g): %g apart", c,
                     (double)p[0].translation.x, (double)p[0].translation.y,
                     (double)p[0].translation.z, (double)k[0].translation.x,
                     (double)k[0].translation.y, (double)k[0].translation.z, (double)worst);
    }
}

/* oroya_rig_create takes a const scene and only reads it: rigs for several characters may be
 * built from one shared scene on several threads once nothing is pending (scene.h,
 * "Threading"). It took the transforms through oroya_scene_transforms, which moves the
 * scene's write epoch (a write: two threads raced on it). */
static void test_rig_create_reads_only(void) {
    oroya_clip *clip = limit_clip();
    limit_world w;
    limit_world_create(&w, clip, false);
    OT_CHECK(oroya_mixer_update(w.mixer, 1.0 / 60) == OROYA_OK);
    oroya_scene_update_world(w.scene); /* nothing pending from here on */
    const uint32_t epoch = oroya__scene_epoch(w.scene);
    const uint32_t layout = oroya_scene_layout_version(w.scene);
    oroya_rig *rig = NULL;
    oroya_error err = {0};
    const oroya_clip *clips[1] = {clip};
    OT_CHECK(oroya_rig_create(&(oroya_rig_desc){.scene = w.scene,
                                                .joints = w.nodes,
                                                .joint_count = LJ,
                                                .clips = clips,
                                                .clip_count = 1},
                              &rig, &err) == OROYA_OK);
    OT_EQ_INT(oroya__scene_epoch(w.scene), epoch);
    OT_EQ_INT(oroya_scene_layout_version(w.scene), layout);
    oroya_rig_destroy(rig);
    limit_world_destroy(&w);
    oroya_clip_destroy(clip);
}

int main(void) {
    OT_RUN(test_batch_matches_single);
    OT_RUN(test_stop_then_same_pose);
    OT_RUN(test_limits_kernel_vs_property);
    OT_RUN(test_hierarchy_change_refused);
    OT_RUN(test_rig_create_reads_only);
    OT_RUN(test_batch_check_bounds);
    OT_RUN(test_batch_callback_changes_later_mixer);
    OT_RUN(test_batch_duplicate_mixer);
    OT_RUN(test_root_motion_paths_agree);
    return ot_finish();
}
