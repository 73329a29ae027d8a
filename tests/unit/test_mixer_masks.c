/* Joint masks: building (names, descendants, exclusions, per-joint weights, errors), the
 * equivalence of a masked upper-body wave over a walk with the same scenario whose wave clip
 * holds only the upper-body tracks (joint for joint, on the property path, which is three.js's
 * PropertyMixer, and on the pose kernel path), fractional mask weights on normal and additive
 * actions against a scalar reference of three's accumulate/apply, and no allocation per
 * update. */
#define _POSIX_C_SOURCE 200112L
#include <stdint.h>
#include <stdlib.h>

#include "internal/mixer.h"
#include "oroya/clip.h"
#include "oroya/mixer.h"
#include "oroya/rig.h"
#include "oroya/scene.h"
#include "oroya_test.h"

/* hips -> spine -> chest -> {neck -> head, armL, armR}; hips -> {legL, legR} */
static const char *const JOINTS[] = {"hips", "spine", "chest", "neck", "head",
                                     "armL", "armR",  "legL",  "legR"};
static const int PARENT[] = {-1, 0, 1, 2, 3, 2, 2, 0, 0};
#define NJ 9
static const bool UPPER[NJ] = {false, true, true, true, true, true, true, false, false};

/* Counts the mixer's allocations. */
static int alloc_count;
static void *count_alloc(size_t size, size_t align, void *user) {
    (void)user;
    alloc_count++;
    void *p = NULL;
    return posix_memalign(&p, align < sizeof(void *) ? sizeof(void *) : align, size ? size : 1)
               ? NULL
               : p;
}
static void count_free(void *p, void *user) {
    (void)user;
    free(p);
}

typedef struct {
    oroya_scene *scene;
    oroya_node nodes[NJ];
    oroya_rig *rig;
    oroya_mixer *mixer;
} world;

static void world_make(world *w, bool rig) {
    memset(w, 0, sizeof *w);
    OT_CHECK(oroya_scene_create(NULL, &w->scene) == OROYA_OK);
    for (int i = 0; i < NJ; i++) {
        oroya_node parent = PARENT[i] < 0 ? (oroya_node){0} : w->nodes[PARENT[i]];
        OT_CHECK(oroya_scene_add_node(w->scene, JOINTS[i], parent, OROYA_NODE_BONE, &w->nodes[i]) ==
                 OROYA_OK);
        oroya_transform t;
        oroya_scene_get_transform(w->scene, w->nodes[i], &t);
        t.translation = (oroya_vec3){0.1f * (float)i, 1.0f, 0.05f * (float)i};
        oroya_scene_set_transform(w->scene, w->nodes[i], &t);
    }
    oroya_mixer_desc md = {.allocator = {count_alloc, count_free, NULL}};
    if (rig) {
        oroya_error err = {0};
        OT_CHECK_MSG(oroya_rig_create(&(oroya_rig_desc){.scene = w->scene, .name = "test"}, &w->rig,
                                      &err) == OROYA_OK,
                     "%s", err.message);
        md.rig = w->rig;
    }
    OT_CHECK(oroya_mixer_create(w->scene, &md, &w->mixer) == OROYA_OK);
}

static void world_free(world *w) {
    oroya_mixer_destroy(w->mixer);
    oroya_rig_destroy(w->rig);
    oroya_scene_destroy(w->scene);
}

/* A clip with a rotation and a translation track per joint of `which` (NULL: all): rotations
 * about a per-joint axis, amplitudes from `phase`, 3 linear keys over 1 s. */
static oroya_clip *make_clip(const char *name, double phase, const bool *which, bool additive) {
    oroya_track tracks[2 * NJ];
    static float times[3] = {0, 0.5f, 1};
    static float rv[NJ][2][12], tv[NJ][2][9];
    int slot = additive ? 1 : 0;
    uint32_t n = 0;
    for (int j = 0; j < NJ; j++) {
        if (which && !which[j])
            continue;
        for (int k = 0; k < 3; k++) {
            double ang = (phase + 0.3 * j) * (k == 1 ? 1.0 : 0.35) * (k == 2 ? -1.0 : 1.0);
            double ax[3] = {sin(j + phase), cos(2.0 * j), 0.4 + phase};
            double l = sqrt(ax[0] * ax[0] + ax[1] * ax[1] + ax[2] * ax[2]);
            double s = sin(ang / 2) / l;
            float *q = &rv[j][slot][k * 4];
            q[0] = (float)(ax[0] * s), q[1] = (float)(ax[1] * s), q[2] = (float)(ax[2] * s);
            q[3] = (float)cos(ang / 2);
            float *p = &tv[j][slot][k * 3];
            p[0] = (float)(phase * 0.2 + 0.01 * j * k);
            p[1] = (float)(1.0 + 0.1 * k * phase);
            p[2] = (float)(-0.3 * phase + 0.02 * j);
        }
        tracks[n++] = (oroya_track){.target = JOINTS[j],
                                    .property = OROYA_PROPERTY_ROTATION,
                                    .interpolation = OROYA_INTERP_LINEAR,
                                    .times = times,
                                    .values = rv[j][slot],
                                    .key_count = 3,
                                    .components = 4};
        tracks[n++] = (oroya_track){.target = JOINTS[j],
                                    .property = OROYA_PROPERTY_TRANSLATION,
                                    .interpolation = OROYA_INTERP_LINEAR,
                                    .times = times,
                                    .values = tv[j][slot],
                                    .key_count = 3,
                                    .components = 3};
    }
    oroya_clip_desc cd = {.name = name,
                          .duration = 1,
                          .tracks = tracks,
                          .track_count = n,
                          .blend_mode = additive ? OROYA_BLEND_ADDITIVE : OROYA_BLEND_NORMAL};
    oroya_clip *clip = NULL;
    OT_CHECK(oroya_clip_create(&cd, &clip, NULL) == OROYA_OK);
    return clip;
}

static void test_build(void) {
    world w;
    world_make(&w, true);
    oroya_mask *k = NULL;
    const char *inc[] = {"spine"}, *exc[] = {"neck"};
    oroya_mask_entry weights[] = {{"armL", 0.5}};
    oroya_mask_desc d = {.name = "upper",
                         .include = inc,
                         .include_count = 1,
                         .descendants = true,
                         .exclude = exc,
                         .exclude_count = 1,
                         .weights = weights,
                         .weight_count = 1};
    oroya_error err = {0};
    OT_CHECK(oroya_mask_create(w.mixer, &d, &k, &err) == OROYA_OK);
    const double want[NJ] = {0, 1, 1, 0, 0, 0.5, 1, 0, 0}; /* neck and its head excluded */
    for (int j = 0; j < NJ; j++)
        OT_NEAR(oroya_mask_weight(k, w.nodes[j]), want[j], 0);
    OT_CHECK(!strcmp(oroya_mask_name(k), "upper"));
    d.descendants = false;
    OT_CHECK(oroya_mask_create(w.mixer, &d, &k, &err) == OROYA_OK);
    OT_NEAR(oroya_mask_weight(k, w.nodes[1]), 1, 0);
    OT_NEAR(oroya_mask_weight(k, w.nodes[2]), 0, 0);
    OT_NEAR(oroya_mask_weight(k, w.nodes[5]), 0.5, 0);
    /* Errors name the mask and the joint. */
    const char *ghost[] = {"tail"};
    d.include = ghost;
    OT_EQ_INT(oroya_mask_create(w.mixer, &d, &k, &err), OROYA_ERR_NOT_FOUND);
    OT_CHECK_MSG(strstr(err.message, "upper") && strstr(err.message, "tail"), "%s", err.message);
    OT_CHECK(k == NULL);
    d.include = inc;
    weights[0].weight = 1.5;
    OT_EQ_INT(oroya_mask_create(w.mixer, &d, &k, &err), OROYA_ERR_INVALID_DATA);
    OT_CHECK_MSG(strstr(err.message, "armL") && strstr(err.message, "1.5"), "%s", err.message);
    weights[0].weight = NAN;
    OT_EQ_INT(oroya_mask_create(w.mixer, &d, &k, &err), OROYA_ERR_INVALID_DATA);
    /* Just past 1: shown with all its digits (it read "weight 1 is not in [0, 1]"). */
    weights[0].weight = 1.0000000001;
    OT_EQ_INT(oroya_mask_create(w.mixer, &d, &k, &err), OROYA_ERR_INVALID_DATA);
    OT_CHECK_MSG(strstr(err.message, "weight 1.0000000001") != NULL, "%s", err.message);
    weights[0] = (oroya_mask_entry){"wing", 0.5};
    OT_EQ_INT(oroya_mask_create(w.mixer, &d, &k, &err), OROYA_ERR_NOT_FOUND);
    OT_CHECK_MSG(strstr(err.message, "wing") != NULL, "%s", err.message);
    /* A NULL name is the caller's argument, not a joint "(null)" not found. */
    weights[0] = (oroya_mask_entry){NULL, 0.5};
    OT_EQ_INT(oroya_mask_create(w.mixer, &d, &k, &err), OROYA_ERR_INVALID_ARGUMENT);
    OT_CHECK_MSG(strstr(err.message, "weights[0].joint is NULL") != NULL, "%s", err.message);
    weights[0] = (oroya_mask_entry){"armL", 0.5};
    const char *with_null[] = {"spine", NULL};
    d.include = with_null;
    d.include_count = 2;
    OT_EQ_INT(oroya_mask_create(w.mixer, &d, &k, &err), OROYA_ERR_INVALID_ARGUMENT);
    OT_CHECK_MSG(strstr(err.message, "include[1] is NULL") != NULL, "%s", err.message);
    d.include = inc;
    d.include_count = 1;
    /* A mask of another mixer. */
    world v;
    world_make(&v, false);
    oroya_mask *other = NULL;
    OT_CHECK(oroya_mask_create(v.mixer, &(oroya_mask_desc){.name = "o"}, &other, NULL) == OROYA_OK);
    oroya_clip *c = make_clip("c", 0.5, NULL, false);
    oroya_action *a = NULL;
    OT_CHECK(oroya_mixer_clip_action(w.mixer, c, &a) == OROYA_OK);
    OT_EQ_INT(oroya_action_set_mask(a, other), OROYA_ERR_INVALID_ARGUMENT);
    OT_CHECK(oroya_action_mask(a) == NULL);
    world_free(&v);
    world_free(&w);
    oroya_clip_destroy(c);
}

/* Reads every joint's translation and rotation. */
static void read_pose(world *w, float out[NJ][7]) {
    for (int j = 0; j < NJ; j++) {
        oroya_transform t;
        oroya_scene_get_transform(w->scene, w->nodes[j], &t);
        float v[7] = {t.translation.x, t.translation.y, t.translation.z, t.rotation.x,
                      t.rotation.y,    t.rotation.z,    t.rotation.w};
        memcpy(out[j], v, sizeof v);
    }
}

/* Walk at weight 1, a wave at `wave_weight` (fading in over 0.5 s) masked to the upper body,
 * against the same with a wave clip of the upper-body tracks only. */
static void run_equivalence(bool rig, bool reference, double wave_weight, double tol) {
    oroya_clip *walk = make_clip("walk", 0.9, NULL, false);
    oroya_clip *wave = make_clip("wave", -0.6, NULL, false);
    oroya_clip *wave_upper = make_clip("wave", -0.6, UPPER, false);
    world a, b;
    world_make(&a, rig);
    world_make(&b, rig);
    oroya__mixer_set_reference(a.mixer, reference);
    oroya__mixer_set_reference(b.mixer, reference);
    const char *inc[] = {"spine"};
    oroya_mask *upper = NULL;
    OT_CHECK(oroya_mask_create(
                 a.mixer,
                 &(oroya_mask_desc){
                     .name = "upper", .include = inc, .include_count = 1, .descendants = true},
                 &upper, NULL) == OROYA_OK);
    oroya_action *wa, *xa, *wb, *xb;
    OT_CHECK(oroya_mixer_play(a.mixer, walk, &wa) == OROYA_OK);
    OT_CHECK(oroya_mixer_play(a.mixer, wave, &xa) == OROYA_OK);
    OT_CHECK(oroya_action_set_mask(xa, upper) == OROYA_OK);
    OT_CHECK(oroya_mixer_play(b.mixer, walk, &wb) == OROYA_OK);
    OT_CHECK(oroya_mixer_play(b.mixer, wave_upper, &xb) == OROYA_OK);
    oroya_action_set_weight(xa, wave_weight);
    oroya_action_set_weight(xb, wave_weight);
    oroya_action_fade_in(xa, 0.5);
    oroya_action_fade_in(xb, 0.5);
    oroya_action_set_time_scale(xa, 1.4);
    oroya_action_set_time_scale(xb, 1.4);
    double worst = 0;
    for (int f = 0; f < 90; f++) {
        double dt = 1.0 / 60 + 0.003 * (f % 3);
        OT_CHECK(oroya_mixer_update(a.mixer, dt) == OROYA_OK);
        OT_CHECK(oroya_mixer_update(b.mixer, dt) == OROYA_OK);
        float pa[NJ][7], pb[NJ][7];
        read_pose(&a, pa);
        read_pose(&b, pb);
        for (int j = 0; j < NJ; j++)
            for (int c = 0; c < 7; c++)
                worst = fmax(worst, fabs((double)pa[j][c] - (double)pb[j][c]));
    }
    OT_CHECK_MSG(worst <= tol, "rig %d reference %d weight %g: max difference %g", rig, reference,
                 wave_weight, worst);
    /* The mask matters: the legs differ from an unmasked wave. */
    oroya_action_set_mask(xa, NULL);
    OT_CHECK(oroya_mixer_update(a.mixer, 0.01) == OROYA_OK);
    OT_CHECK(oroya_mixer_update(b.mixer, 0.01) == OROYA_OK);
    float pa[NJ][7], pb[NJ][7];
    read_pose(&a, pa);
    read_pose(&b, pb);
    OT_CHECK(fabs(pa[7][3] - pb[7][3]) > 1e-3);
    world_free(&a);
    world_free(&b);
    oroya_clip_destroy(walk);
    oroya_clip_destroy(wave);
    oroya_clip_destroy(wave_upper);
}

static void test_upper_body_equivalence(void) {
    run_equivalence(false, false, 1.0, 0);   /* three's PropertyMixer, no rig */
    run_equivalence(true, true, 1.0, 0);     /* the same with a rig, property path */
    run_equivalence(true, false, 1.0, 1e-6); /* the pose kernel */
    run_equivalence(false, false, 0.6, 0);
    run_equivalence(true, false, 0.6, 1e-6);
}

/* Constant translations: three's accumulate (first copies, then lerp by w / (sum + w)), apply
 * (lerp toward the original by 1 - sum when sum < 1), then additive (+= w * delta), per joint,
 * with each action's weight times the mask's weight of that joint. */
static void test_fractional_weights(void) {
    static const double mask_w[NJ] = {0, 0.25, 0.5, 1, 0.75, 0.125, 1, 0, 0.5};
    for (int path = 0; path < 2; path++) {
        world w;
        world_make(&w, path == 1);
        oroya_mask_entry entries[NJ];
        for (int j = 0; j < NJ; j++)
            entries[j] = (oroya_mask_entry){JOINTS[j], mask_w[j]};
        oroya_mask *k = NULL;
        OT_CHECK(oroya_mask_create(
                     w.mixer,
                     &(oroya_mask_desc){.name = "f", .weights = entries, .weight_count = NJ}, &k,
                     NULL) == OROYA_OK);
        static float times[1] = {0};
        static float va[NJ][3], vb[NJ][3], vc[NJ][3];
        oroya_track ta[NJ], tb[NJ], tc[NJ];
        for (int j = 0; j < NJ; j++) {
            for (int c = 0; c < 3; c++) {
                va[j][c] = (float)(0.5 + j + c);
                vb[j][c] = (float)(-1.5 * j + 0.25 * c);
                vc[j][c] = (float)(0.125 * (c + 1));
            }
            ta[j] = (oroya_track){.target = JOINTS[j],
                                  .property = OROYA_PROPERTY_TRANSLATION,
                                  .interpolation = OROYA_INTERP_STEP,
                                  .times = times,
                                  .values = va[j],
                                  .key_count = 1,
                                  .components = 3};
            tb[j] = ta[j], tb[j].values = vb[j];
            tc[j] = ta[j], tc[j].values = vc[j];
        }
        oroya_clip *ca, *cb, *cc;
        OT_CHECK(
            oroya_clip_create(
                &(oroya_clip_desc){.name = "a", .duration = 1, .tracks = ta, .track_count = NJ},
                &ca, NULL) == OROYA_OK);
        OT_CHECK(
            oroya_clip_create(
                &(oroya_clip_desc){.name = "b", .duration = 1, .tracks = tb, .track_count = NJ},
                &cb, NULL) == OROYA_OK);
        OT_CHECK(oroya_clip_create(&(oroya_clip_desc){.name = "c",
                                                      .duration = 1,
                                                      .tracks = tc,
                                                      .track_count = NJ,
                                                      .blend_mode = OROYA_BLEND_ADDITIVE},
                                   &cc, NULL) == OROYA_OK);
        oroya_action *aa, *ab, *ac;
        OT_CHECK(oroya_mixer_play(w.mixer, ca, &aa) == OROYA_OK);
        OT_CHECK(oroya_mixer_play(w.mixer, cb, &ab) == OROYA_OK);
        OT_CHECK(oroya_mixer_play(w.mixer, cc, &ac) == OROYA_OK);
        const double wa = 0.3, wb = 0.6, wc = 0.8;
        oroya_action_set_weight(aa, wa);
        oroya_action_set_weight(ab, wb);
        oroya_action_set_weight(ac, wc);
        OT_CHECK(oroya_action_set_mask(ab, k) == OROYA_OK);
        OT_CHECK(oroya_action_set_mask(ac, k) == OROYA_OK);
        float orig[NJ][7];
        read_pose(&w, orig);
        OT_CHECK(oroya_mixer_update(w.mixer, 0.1) == OROYA_OK);
        float got[NJ][7];
        read_pose(&w, got);
        const double tol = path == 1 ? 2e-6 : 1e-6; /* float scene values; the kernel in float */
        for (int j = 0; j < NJ; j++) {
            for (int c = 0; c < 3; c++) {
                double acc = va[j][c], sum = wa;
                double w2 = wb * mask_w[j];
                if (w2 > 0) {
                    sum += w2;
                    acc = acc + (vb[j][c] - acc) * (w2 / sum);
                }
                if (sum < 1)
                    acc = acc + ((double)orig[j][c] - acc) * (1 - sum);
                acc += wc * mask_w[j] * vc[j][c];
                OT_NEAR(got[j][c], acc, tol);
            }
        }
        /* Updates allocate nothing (the mask weights were resolved by set_mask), also when
         * the mask is cleared and set again. */
        int before = alloc_count;
        for (int f = 0; f < 20; f++) {
            OT_CHECK(oroya_mixer_update(w.mixer, 0.05) == OROYA_OK);
            if (f == 10) {
                OT_CHECK(oroya_action_set_mask(ab, NULL) == OROYA_OK);
                OT_CHECK(oroya_action_set_mask(ab, k) == OROYA_OK);
            }
        }
        OT_EQ_INT(alloc_count, before);
        world_free(&w);
        oroya_clip_destroy(ca);
        oroya_clip_destroy(cb);
        oroya_clip_destroy(cc);
    }
}

int main(void) {
    OT_RUN(test_build);
    OT_RUN(test_upper_body_equivalence);
    OT_RUN(test_fractional_weights);
    return ot_finish();
}
