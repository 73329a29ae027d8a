/* The mixer's pose kernel path against its property path (three.js's PropertyMixer in double,
 * kept as the reference), on random rigs, clips and scripts: every node transform within
 * 1e-5 (quaternions up to sign) and identical events on every frame, and the bone matrices
 * within 1e-5 of the reference's pose composed in double (relative to 1 + each element's
 * magnitude).
 *
 * Random rigs: trees of 2..40 nodes, the rig's joints a random subset in a random order (so
 * parents come after children in the palette, and some joints have ancestors that are not
 * joints), tracks on joints and on other nodes, and a target missing from the scene. Clips:
 * STEP / LINEAR / CUBICSPLINE / SMOOTH (and STERP rotations), 1..7 keys, sparse channels;
 * one made additive. Scripts: play, stop, reset, stop then play again in the same frame,
 * reset then play again at a set time, fade in/out, cross-fade with and without warp,
 * weights, time scales (negative too), loop modes with repetitions, clamp, pause, action and
 * mixer set_time, STERP or SLERP rotation blending (mixer-wide and per action). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal/mixer.h"
#include "internal/pose.h" /* oroya__pose_force_baseline */
#include "oroya/clip.h"
#include "oroya/mixer.h"
#include "oroya/rig.h"
#include "oroya/scene.h"
#include "oroya_test.h"

#define MAX_NODES 40
#define MAX_CLIPS 5
#define MAX_EVENTS 256

/* Rotation keys up to 1e-3 off unit length (as files hold them) are on; OROYA_RANDOM_UNIT=1
 * turns them off. OROYA_RANDOM_EXTERNAL=1 adds scene writes between updates, off by default:
 * it shows the one difference documented in docs/mixer.md ("The pose kernel path"), three
 * rewriting a property whose double result moved by rounding only. OROYA_RANDOM_SEED=n runs
 * one seed and prints its clips, ops and differences. */
static int nonunit, external;

static uint64_t rng_state;
static uint32_t rnd(void) {
    rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(rng_state >> 33);
}
static double rndf(void) { return (double)rnd() / 2147483648.0; } /* [0, 1) */
static uint32_t rndn(uint32_t n) { return rnd() % n; }

typedef struct world {
    oroya_scene *scene;
    oroya_node nodes[MAX_NODES];
    oroya_rig *rig;
    oroya_mixer *mixer;
    oroya_action *actions[MAX_CLIPS];
    oroya_event events[MAX_EVENTS];
    uint32_t event_count;
} world;

static void on_event(const oroya_event *e, void *user) {
    world *w = user;
    if (w->event_count < MAX_EVENTS) {
        w->events[w->event_count++] = *e;
    }
}

static int action_index(const world *w, const oroya_action *a) {
    for (int i = 0; i < MAX_CLIPS; i++) {
        if (w->actions[i] == a) {
            return i;
        }
    }
    return -1;
}

typedef struct spec {
    uint32_t node_count;
    uint32_t parent[MAX_NODES];
    oroya_transform rest[MAX_NODES];
    uint32_t joint_count;
    oroya_node joints_of[2][MAX_NODES]; /* per world */
    uint32_t joint_node[MAX_NODES];
    uint32_t clip_count;
    oroya_clip *clips[MAX_CLIPS];
} spec;

static oroya_quat rand_quat(void) {
    double x = rndf() - 0.5, y = rndf() - 0.5, z = rndf() - 0.5, q = rndf() - 0.5;
    double len = sqrt(x * x + y * y + z * z + q * q);
    if (len < 1e-3) {
        return (oroya_quat){0, 0, 0, 1};
    }
    return (oroya_quat){(float)(x / len), (float)(y / len), (float)(z / len), (float)(q / len)};
}

static void make_spec(spec *s) {
    memset(s, 0, sizeof *s);
    s->node_count = 2 + rndn(MAX_NODES - 1);
    for (uint32_t i = 0; i < s->node_count; i++) {
        s->parent[i] = i == 0 || rndn(8) == 0 ? UINT32_MAX : rndn(i);
        oroya_quat q = rand_quat();
        s->rest[i] = (oroya_transform){
            {(float)(rndf() - 0.5), (float)rndf(), (float)(rndf() - 0.5)}, q, {1, 1, 1}};
        if (rndn(5) == 0) {
            s->rest[i].scale = (oroya_vec3){(float)(0.5 + rndf()), 1, (float)(0.5 + rndf())};
        }
    }
    /* Joints: a random subset (at least one) in a random order. */
    uint32_t order[MAX_NODES];
    for (uint32_t i = 0; i < s->node_count; i++) {
        order[i] = i;
    }
    for (uint32_t i = s->node_count; i-- > 1;) {
        uint32_t j = rndn(i + 1), t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    s->joint_count = 1 + rndn(s->node_count);
    for (uint32_t i = 0; i < s->joint_count; i++) {
        s->joint_node[i] = order[i];
    }
    /* Clips: sparse channels of random nodes (joints or not), plus a missing target. */
    s->clip_count = 2 + rndn(MAX_CLIPS - 1);
    for (uint32_t c = 0; c < s->clip_count; c++) {
        oroya_track tracks[3 * MAX_NODES + 1];
        float *bufs[3 * MAX_NODES + 1];
        char names[3 * MAX_NODES + 1][16];
        uint32_t n = 0;
        for (uint32_t node = 0; node < s->node_count; node++) {
            for (uint32_t p = 0; p < 3; p++) {
                if (rndn(3) != 0) {
                    continue;
                }
                const oroya_property prop = p == 0   ? OROYA_PROPERTY_TRANSLATION
                                            : p == 1 ? OROYA_PROPERTY_ROTATION
                                                     : OROYA_PROPERTY_SCALE;
                const uint32_t comps = p == 1 ? 4 : 3;
                /* SMOOTH on every channel, STERP on rotations: tracks the kernel has no
                 * sampler for, which the mixer samples and hands to it per lane. */
                uint32_t pick = rndn(p == 1 ? 5 : 4);
                oroya_interpolation interp = pick == 0   ? OROYA_INTERP_STEP
                                             : pick == 1 ? OROYA_INTERP_LINEAR
                                             : pick == 2 ? OROYA_INTERP_CUBICSPLINE
                                             : pick == 3 ? OROYA_INTERP_SMOOTH
                                                         : OROYA_INTERP_STERP;
                const uint32_t keys = 1 + rndn(7);
                const uint32_t per = interp == OROYA_INTERP_CUBICSPLINE ? 3 : 1;
                float *buf = malloc(sizeof(float) * keys * (1 + comps * per));
                float *times = buf, *values = buf + keys;
                float t = (float)(rndf() * 0.3);
                for (uint32_t k = 0; k < keys; k++) {
                    times[k] = t;
                    t += (float)(0.05 + rndf() * 0.5);
                    for (uint32_t part = 0; part < per; part++) {
                        float *v = values + (k * per + part) * comps;
                        const bool value_part = per == 1 || part == 1;
                        if (p == 1) {
                            oroya_quat q = rand_quat();
                            /* Some keys repeated; with OROYA_RANDOM_NONUNIT some a little off
                             * unit length (kept as they are below OROYA_CLIP_UNIT_TOLERANCE). */
                            if (k > 0 && rndn(6) == 0 && per == 1) {
                                memcpy(v, v - comps, comps * sizeof(float));
                                continue;
                            }
                            const float f =
                                (value_part ? 1.0f : 0.3f) *
                                (nonunit && rndn(3) == 0 ? (float)(1 - rndf() * 0.0009) : 1.0f);
                            v[0] = q.x * f, v[1] = q.y * f, v[2] = q.z * f, v[3] = q.w * f;
                        } else {
                            for (uint32_t e = 0; e < 3; e++) {
                                v[e] = p == 2 && value_part ? (float)(0.5 + rndf())
                                                            : (float)(rndf() - 0.5);
                            }
                        }
                    }
                }
                snprintf(names[n], sizeof names[n], "n%u", node);
                const oroya_quat axis = rand_quat(); /* a random twist axis for STERP */
                tracks[n] = (oroya_track){.target = names[n],
                                          .property = prop,
                                          .interpolation = interp,
                                          .components = comps,
                                          .key_count = keys,
                                          .times = times,
                                          .values = values,
                                          .twist_axis = {axis.x, axis.y, axis.z + 0.1f}};
                bufs[n++] = buf;
            }
        }
        if (rndn(2) == 0) {
            /* A target no node has: sampled, written nowhere. */
            static const float times[2] = {0, 1}, values[6] = {0, 0, 0, 1, 1, 1};
            tracks[n] = (oroya_track){.target = "missing",
                                      .property = OROYA_PROPERTY_TRANSLATION,
                                      .interpolation = OROYA_INTERP_LINEAR,
                                      .components = 3,
                                      .key_count = 2,
                                      .times = times,
                                      .values = values};
            bufs[n++] = NULL;
        }
        oroya_clip_desc d = {.name = "c",
                             .tracks = tracks,
                             .track_count = n,
                             .duration = rndn(3) == 0 ? (float)(0.2 + rndf()) : 0};
        oroya_error err = {0};
        OT_CHECK_MSG(oroya_clip_create(&d, &s->clips[c], &err) == OROYA_OK, "%s", err.message);
        for (uint32_t i = 0; i < n; i++) {
            free(bufs[i]);
        }
    }
    /* One clip additive, relative to its first frame. */
    if (rndn(2) == 0 && s->clips[s->clip_count - 1]) {
        oroya_clip_make_additive(s->clips[s->clip_count - 1], 0, NULL, 30);
    }
}

static bool make_world(const spec *s, world *w, bool reference, int which) {
    memset(w, 0, sizeof *w);
    if (oroya_scene_create(NULL, &w->scene) != OROYA_OK) {
        return false;
    }
    for (uint32_t i = 0; i < s->node_count; i++) {
        char name[16];
        snprintf(name, sizeof name, "n%u", i);
        oroya_node parent = s->parent[i] == UINT32_MAX ? (oroya_node){0} : w->nodes[s->parent[i]];
        if (oroya_scene_add_node(w->scene, name, parent, OROYA_NODE_OBJECT, &w->nodes[i]) !=
            OROYA_OK) {
            return false;
        }
        oroya_scene_set_transform(w->scene, w->nodes[i], &s->rest[i]);
    }
    oroya_node joints[MAX_NODES];
    for (uint32_t i = 0; i < s->joint_count; i++) {
        joints[i] = w->nodes[s->joint_node[i]];
    }
    (void)which;
    oroya_error err = {0};
    if (oroya_rig_create(&(oroya_rig_desc){.scene = w->scene,
                                           .joints = joints,
                                           .joint_count = s->joint_count,
                                           .clips = (const oroya_clip *const *)s->clips,
                                           .clip_count = s->clip_count},
                         &w->rig, &err) != OROYA_OK) {
        OT_CHECK_MSG(0, "%s", err.message);
        return false;
    }
    oroya_mixer_desc md = {.rig = w->rig, .on_event = on_event, .user = w, .max_events = 64};
    if (oroya_mixer_create(w->scene, &md, &w->mixer) != OROYA_OK) {
        return false;
    }
    oroya__mixer_set_reference(w->mixer, reference);
    for (uint32_t c = 0; c < s->clip_count; c++) {
        if (oroya_mixer_clip_action(w->mixer, s->clips[c], &w->actions[c]) != OROYA_OK) {
            return false;
        }
    }
    return true;
}

static void free_world(world *w) {
    oroya_mixer_destroy(w->mixer);
    oroya_rig_destroy(w->rig);
    oroya_scene_destroy(w->scene);
}

/* One random script step, applied to both worlds alike. */
static int verbose;
/* Returns true when the next update should not move time (dt 0): after a stop and a play at
 * the same time, so the pose equals the last one written. */
static bool random_op(world *w[2], uint32_t clip_count, uint32_t node_count) {
    const uint32_t op = rndn(external ? 20 : 19);
    if (verbose) {
        printf("op %u\n", op);
    }
    if (op == 19) {
        /* A write from outside: three keeps it until the mixer's value changes. */
        const uint32_t n = rndn(node_count);
        oroya_transform t;
        oroya_scene_get_transform(w[0]->scene, w[0]->nodes[n], &t);
        t.translation.x += 0.25f;
        t.rotation = rand_quat();
        if (verbose) {
            printf("write n%u q %g %g %g %g\n", n, t.rotation.x, t.rotation.y, t.rotation.z,
                   t.rotation.w);
        }
        for (int s = 0; s < 2; s++) {
            oroya_scene_set_transform(w[s]->scene, w[s]->nodes[n], &t);
        }
        return false;
    }
    const uint32_t i = rndn(clip_count), j = rndn(clip_count);
    const double d = rndf() * 0.6, x = rndf();
    const int k = (int)rndn(3);
    const double reps = k == 0 ? 1 : (double)rndn(4);
    const double t_i = oroya_action_time(w[1]->actions[i]); /* the reference's */
    for (int s = 0; s < 2; s++) {
        oroya_action *a = w[s]->actions[i], *b = w[s]->actions[j];
        switch (op) {
        case 0:
        case 1: oroya_action_play(a); break;
        case 2: oroya_action_stop(a); break;
        case 3: oroya_action_fade_in(a, d); break;
        case 4: oroya_action_fade_out(a, d); break;
        case 5:
            if (i != j) {
                oroya_action_play(b);
                oroya_action_cross_fade_to(a, b, d, x < 0.5);
            }
            break;
        case 6: oroya_action_set_effective_weight(a, x * 1.5); break;
        case 7: oroya_action_set_weight(a, x); break;
        case 8: oroya_action_set_time_scale(a, (x - 0.3) * 3); break;
        case 9: oroya_action_set_loop(a, (oroya_loop_mode)k, reps); break;
        case 10: oroya_action_set_clamp_when_finished(a, x < 0.5); break;
        case 11: oroya_action_reset(a); break;
        case 12: oroya_action_set_time(a, x * 2); break;
        case 13: oroya_action_set_paused(a, x < 0.3); break;
        case 14:
            if (x < 0.2) {
                oroya_mixer_set_time(w[s]->mixer, x * 3);
            }
            break;
        case 15:
            oroya_action_set_blend_mode(a, x < 0.2 ? OROYA_BLEND_ADDITIVE : OROYA_BLEND_NORMAL);
            break;
        case 16:
            /* Stop, then play again at the same time before the next update: the same pose
             * comes back (an earlier kernel path bug left the scene at the original then, as
             * the write-back found the pose unchanged). Or play again from the start. */
            oroya_action_stop(a);
            oroya_action_play(a);
            if (x < 0.7) {
                oroya_action_set_time(a, t_i);
            }
            break;
        case 17:
            /* Reset and play again at a time of the clip, or stop and reset. */
            if (x < 0.5) {
                oroya_action_reset(a);
                oroya_action_set_time(a, x * 2);
                oroya_action_play(a);
            } else {
                oroya_action_stop(a);
                oroya_action_reset(a);
            }
            break;
        default:
            /* STERP blending (about each joint's long axis), mixer-wide or per action. */
            if (x < 0.3) {
                oroya_mixer_set_rotation_blend(w[s]->mixer, (oroya_rotation_blend)k);
            } else {
                oroya_action_set_rotation_blend(a, (oroya_rotation_blend)k);
            }
            break;
        }
    }
    return op == 16 && x < 0.35;
}

/* Whether a scheduled action blends its rotations with STERP. */
static bool uses_sterp(const world *w, uint32_t clip_count) {
    for (uint32_t c = 0; c < clip_count; c++) {
        const oroya_action *a = w->actions[c];
        oroya_rotation_blend r = oroya_action_rotation_blend(a);
        if (r == OROYA_ROTATION_BLEND_DEFAULT) {
            r = oroya_mixer_rotation_blend(w->mixer);
        }
        if (oroya_action_is_scheduled(a) && r == OROYA_ROTATION_BLEND_STERP) {
            return true;
        }
    }
    return false;
}

/* Whether a scheduled action blended as additive has a rotation track on node i. */
static bool additive_rotation_on(const world *w, uint32_t clip_count, uint32_t i) {
    char name[16];
    snprintf(name, sizeof name, "n%u", i);
    for (uint32_t c = 0; c < clip_count; c++) {
        const oroya_action *a = w->actions[c];
        if (!oroya_action_is_scheduled(a) || oroya_action_blend_mode(a) != OROYA_BLEND_ADDITIVE) {
            continue;
        }
        const oroya_clip *clip = oroya_action_clip(a);
        for (uint32_t t = 0; t < clip->track_count; t++) {
            if (clip->tracks[t].property == OROYA_PROPERTY_ROTATION &&
                !strcmp(clip->tracks[t].target, name)) {
                return true;
            }
        }
    }
    return false;
}

/* The documented rounding-dependent difference (docs/mixer.md): under an additive rotation
 * whose sum is the identity to within rounding, three renormalizes a rotation that is not
 * quite unit, or not, by the last bit of a double. Both then point the same way, and one of
 * them is unit. */
static long renormalized_frames, renormalized_bone_frames;
static bool renormalized_small;
static double quat_norm_diff(const float *pa, const float *pb) {
    double na = 0, nb = 0;
    for (int e = 0; e < 4; e++) {
        na += (double)pa[e] * pa[e];
        nb += (double)pb[e] * pb[e];
    }
    return fabs(sqrt(na) - sqrt(nb));
}
static bool same_up_to_renormalization(const float *pa, const float *pb) {
    double na = 0, nb = 0, d = 0;
    for (int e = 0; e < 4; e++) {
        na += (double)pa[e] * pa[e];
        nb += (double)pb[e] * pb[e];
    }
    na = sqrt(na), nb = sqrt(nb);
    if (!(fabs(na - 1) < 1e-6 || fabs(nb - 1) < 1e-6) || fabs(na - 1) > 1.5e-3 ||
        fabs(nb - 1) > 1.5e-3) {
        return false;
    }
    for (int e = 0; e < 4; e++) {
        d = fmax(d, fabs(pa[e] / na - pb[e] / nb));
    }
    return d <= 1e-5;
}

static double max_diff_frame(world *a, world *b, uint32_t n, uint32_t clip_count, int *which) {
    double worst = 0;
    for (uint32_t i = 0; i < n; i++) {
        oroya_transform ta, tb;
        oroya_scene_get_transform(a->scene, a->nodes[i], &ta);
        oroya_scene_get_transform(b->scene, b->nodes[i], &tb);
        const float *pa = &ta.translation.x, *pb = &tb.translation.x;
        double dq_plus = 0, dq_minus = 0;
        for (int e = 0; e < 10; e++) {
            double scale = 1 + fabs((double)pb[e]);
            if (e >= 3 && e < 7) {
                dq_plus = fmax(dq_plus, fabs((double)pa[e] - pb[e]) / scale);
                dq_minus = fmax(dq_minus, fabs((double)pa[e] + pb[e]) / scale);
                continue;
            }
            double dd = fabs((double)pa[e] - pb[e]) / scale;
            if (!(dd <= worst)) {
                worst = dd;
                *which = (int)i;
            }
        }
        double dq = fmin(dq_plus, dq_minus);
        if (dq > 1e-5 && nonunit && additive_rotation_on(a, clip_count, i) &&
            same_up_to_renormalization(pa + 3, pb + 3)) {
            renormalized_frames++;
            dq = 0;
        } else if (nonunit && quat_norm_diff(pa + 3, pb + 3) > 1e-6 &&
                   additive_rotation_on(a, clip_count, i) &&
                   same_up_to_renormalization(pa + 3, pb + 3)) {
            /* The same case with a key less than 1e-5 off unit length: the node check holds,
             * but a matrix of a quaternion q is scaled by |q|^2, so the bones are apart by
             * twice the norm difference (seen: 2.3e-5 from 1.04e-5). */
            renormalized_small = true;
        }
        if (!(dq <= worst)) {
            worst = dq;
            *which = (int)i;
        }
    }
    return worst;
}

/* The world matrices of a world's scene composed in double from its node transforms (no
 * inverse binds here, so bone = world). Both paths' float bones are compared with these: the
 * kernel's with its own scene's (the float rounding of its matrices alone) and with the
 * reference's (the criterion, 1e-5), the reference's float bones with its own scene's
 * (the rounding the reference's own float composition adds). */
static void scene_model_double(const spec *s, const world *w, double model[][16]) {
    for (uint32_t i = 0; i < s->node_count; i++) {
        oroya_transform t;
        oroya_scene_get_transform(w->scene, w->nodes[i], &t);
        const double x = t.rotation.x, y = t.rotation.y, z = t.rotation.z, q = t.rotation.w;
        const double sx = t.scale.x, sy = t.scale.y, sz = t.scale.z;
        const double local[16] = {(1 - 2 * (y * y + z * z)) * sx,
                                  2 * (x * y + z * q) * sx,
                                  2 * (x * z - y * q) * sx,
                                  0,
                                  2 * (x * y - z * q) * sy,
                                  (1 - 2 * (x * x + z * z)) * sy,
                                  2 * (y * z + x * q) * sy,
                                  0,
                                  2 * (x * z + y * q) * sz,
                                  2 * (y * z - x * q) * sz,
                                  (1 - 2 * (x * x + y * y)) * sz,
                                  0,
                                  t.translation.x,
                                  t.translation.y,
                                  t.translation.z,
                                  1};
        if (s->parent[i] == UINT32_MAX) {
            memcpy(model[i], local, sizeof local);
            continue;
        }
        const double *p = model[s->parent[i]]; /* parents come first */
        for (int c = 0; c < 4; c++) {
            for (int r = 0; r < 4; r++) {
                double v = 0;
                for (int k = 0; k < 4; k++) {
                    v += p[k * 4 + r] * local[c * 4 + k];
                }
                model[i][c * 4 + r] = v;
            }
        }
    }
}

/* The largest difference of float bones from double ones, each element relative to 1 + its
 * magnitude (translations grow along a chain). */
static double bone_diff(const spec *s, const oroya_mat4 *bones, double model[][16]) {
    double worst = 0;
    for (uint32_t b = 0; b < s->joint_count; b++) {
        for (int e = 0; e < 16; e++) {
            const double ref = model[s->joint_node[b]][e];
            worst = fmax(worst, fabs((double)bones[b].m[e] - ref) / (1 + fabs(ref)));
        }
    }
    return worst;
}

static void test_random_runs(void) {
    double worst = 0, worst_bones = 0, worst_own_bones = 0, worst_ref_bones = 0;
    double worst_float_bones = 0;
    long frames = 0, events = 0, kernel_frames = 0, sterp_frames = 0;
    const char *only = getenv("OROYA_RANDOM_SEED");
    nonunit = getenv("OROYA_RANDOM_UNIT") == NULL;
    external = getenv("OROYA_RANDOM_EXTERNAL") != NULL;
    verbose = only != NULL;
    for (uint64_t seed = 1; seed <= 120; seed++) {
        if (only && seed != strtoull(only, NULL, 10)) {
            continue;
        }
        rng_state = seed * 0x9E3779B97F4A7C15ull;
        spec s;
        make_spec(&s);
        for (uint32_t c = 0; verbose && c < s.clip_count; c++) {
            for (uint32_t t = 0; t < s.clips[c]->track_count; t++) {
                const oroya_track *tr = &s.clips[c]->tracks[t];
                printf("clip %u blend %d dur %g track %s prop %d interp %d keys %u t0 %g\n", c,
                       s.clips[c]->blend_mode, s.clips[c]->duration, tr->target, tr->property,
                       tr->interpolation, tr->key_count, tr->times[0]);
            }
        }
        world wk, wr;
        bool ok = make_world(&s, &wk, false, 0) && make_world(&s, &wr, true, 1);
        OT_CHECK(ok);
        world *w[2] = {&wk, &wr};
        for (int f = 0; ok && f < 240; f++) {
            const bool hold = rndn(4) == 0 && random_op(w, s.clip_count, s.node_count);
            wk.event_count = wr.event_count = 0;
            const double dt_draw = rndn(10) == 0 ? 0 : rndf() * 0.05;
            const double dt = hold ? 0 : dt_draw;
            OT_CHECK(oroya_mixer_update(wk.mixer, dt) == OROYA_OK);
            OT_CHECK(oroya_mixer_update(wr.mixer, dt) == OROYA_OK);
            kernel_frames += oroya_mixer_kernel_active(wk.mixer);
            sterp_frames += uses_sterp(&wk, s.clip_count);
            int node = -1;
            const long renormalized_before = renormalized_frames;
            renormalized_small = false;
            /* Odd seeds read the scenes every third frame only: the kernel's lazy write-back
             * then covers several updates at once. */
            const bool read_scene = seed % 2 == 0 || f % 3 == 0;
            const double d =
                read_scene ? max_diff_frame(&wk, &wr, s.node_count, s.clip_count, &node) : 0;
            /* A joint renormalized on one side only has bones apart by twice as much (up to
             * 3e-3); frames that do not read the scene cannot tell, so their bones are not
             * compared. */
            const bool compare_bones =
                read_scene && renormalized_frames == renormalized_before && !renormalized_small;
            renormalized_bone_frames += read_scene && !compare_bones;
            if (d > worst) {
                worst = d;
            }
            if (verbose && d > 1e-5) {
                oroya_transform ta, tb;
                oroya_scene_get_transform(wk.scene, wk.nodes[node], &ta);
                oroya_scene_get_transform(wr.scene, wr.nodes[node], &tb);
                printf("frame %d n%d t %g %g %g / %g %g %g q %g %g %g %g / %g %g %g %g s %g %g %g "
                       "/ %g %g %g\n",
                       f, node, ta.translation.x, ta.translation.y, ta.translation.z,
                       tb.translation.x, tb.translation.y, tb.translation.z, ta.rotation.x,
                       ta.rotation.y, ta.rotation.z, ta.rotation.w, tb.rotation.x, tb.rotation.y,
                       tb.rotation.z, tb.rotation.w, ta.scale.x, ta.scale.y, ta.scale.z, tb.scale.x,
                       tb.scale.y, tb.scale.z);
            }
            if (verbose) {
                printf("frame %d dt %g kernel %d\n", f, dt, oroya_mixer_kernel_active(wk.mixer));
                for (uint32_t c = 0; c < s.clip_count; c++) {
                    const oroya_action *a = wk.actions[c];
                    printf("  action %u scheduled %d blend %d weight %g time %.9g\n", c,
                           oroya_action_is_scheduled(a), oroya_action_blend_mode(a),
                           oroya_action_effective_weight(a), oroya_action_time(a));
                }
            }
            OT_CHECK_MSG(d <= 1e-5, "seed %llu frame %d: node n%d differs by %g",
                         (unsigned long long)seed, f, node, d);
            OT_CHECK_MSG(wk.event_count == wr.event_count, "seed %llu frame %d: %u vs %u events",
                         (unsigned long long)seed, f, wk.event_count, wr.event_count);
            for (uint32_t e = 0; e < wk.event_count && e < wr.event_count; e++) {
                const oroya_event *x = &wk.events[e], *y = &wr.events[e];
                OT_CHECK_MSG(x->type == y->type && x->direction == y->direction &&
                                 x->loop_delta == y->loop_delta &&
                                 action_index(&wk, x->action) == action_index(&wr, y->action),
                             "seed %llu frame %d: event %u differs: type %d/%d dir %d/%d loops "
                             "%lld/%lld action %d/%d",
                             (unsigned long long)seed, f, e, x->type, y->type, x->direction,
                             y->direction, (long long)x->loop_delta, (long long)y->loop_delta,
                             action_index(&wk, x->action), action_index(&wr, y->action));
            }
            events += wk.event_count;
            /* Bone matrices: the kernel's against those of the reference's scene. */
            uint32_t nb = 0, nr = 0;
            const oroya_mat4 *bk = oroya_mixer_bone_matrices(wk.mixer, &nb);
            const oroya_mat4 *br = oroya_mixer_bone_matrices(wr.mixer, &nr);
            OT_CHECK(nb == s.joint_count && nr == nb);
            static double model_k[MAX_NODES][16], model_r[MAX_NODES][16];
            if (nb == s.joint_count) {
                scene_model_double(&s, &wk, model_k);
                worst_own_bones = fmax(worst_own_bones, bone_diff(&s, bk, model_k));
            }
            if (compare_bones && nb == s.joint_count && nr == nb) {
                scene_model_double(&s, &wr, model_r);
                const double dk = bone_diff(&s, bk, model_r);
                OT_CHECK_MSG(dk <= 1e-5, "seed %llu frame %d: bones differ by %g",
                             (unsigned long long)seed, f, dk);
                worst_bones = fmax(worst_bones, dk);
                worst_ref_bones = fmax(worst_ref_bones, bone_diff(&s, br, model_r));
                for (uint32_t b = 0; b < nb; b++) {
                    for (int e = 0; e < 16; e++) {
                        const double dd =
                            fabs((double)bk[b].m[e] - br[b].m[e]) / (1 + fabs(br[b].m[e]));
                        worst_float_bones = fmax(worst_float_bones, dd);
                    }
                }
            }
            frames++;
        }
        free_world(&wk);
        free_world(&wr);
        for (uint32_t c = 0; c < s.clip_count; c++) {
            oroya_clip_destroy(s.clips[c]);
        }
    }
    /* The bones (checked on every frame above): the kernel's float matrices within 1e-5 of
     * the reference's pose composed in double. The kernel's against its own pose in double
     * isolate its float rounding; the reference's float bones against the same double
     * matrices show the rounding of the reference's own float composition, which is what
     * separates the two float palettes (printed, not checked: it is not the kernel's). */
    OT_CHECK_MSG(worst_own_bones <= 1e-5, "bone matrices differ from their scene by %g",
                 worst_own_bones);
    /* The rounding case is rare; a systematic renormalization difference would not be. */
    OT_CHECK_MSG(renormalized_frames * 200 <= frames, "%ld frames renormalized",
                 renormalized_frames);
    OT_CHECK_MSG(renormalized_bone_frames * 200 <= frames,
                 "%ld frames' bones not compared (renormalized)", renormalized_bone_frames);
    /* The kernel path must really have run, STERP blending included. */
    OT_CHECK(kernel_frames == frames);
    OT_CHECK_MSG(sterp_frames > frames / 10, "%ld frames with STERP blending", sterp_frames);
    OT_CHECK(events > 50);
    printf("  %ld frames, %ld events, max node difference %.3g, max bone difference from the "
           "reference's pose in double %.3g (%.3g from the kernel's own; the reference's float "
           "bones %.3g from it, the two float palettes %.3g apart), %ld node frames "
           "renormalized by three's rounding only (%ld frames' bones not compared for it)\n",
           frames, events, worst, worst_bones, worst_own_bones, worst_ref_bones, worst_float_bones,
           renormalized_frames, renormalized_bone_frames);
}

/* The bones come out in palette order whatever the joint order: a rig whose palette lists
 * a child before its parent and skips an intermediate node gives, for joint i, world(node i)
 * x inverse bind i, world from the scene. */
static void test_palette_order(void) {
    oroya_scene *scene = NULL;
    OT_CHECK(oroya_scene_create(NULL, &scene) == OROYA_OK);
    oroya_node a, b, c;
    oroya_scene_add_node(scene, "a", (oroya_node){0}, OROYA_NODE_OBJECT, &a);
    oroya_scene_add_node(scene, "b", a, OROYA_NODE_OBJECT, &b);
    oroya_scene_add_node(scene, "c", b, OROYA_NODE_OBJECT, &c);
    oroya_transform t = {{1, 2, 3}, {0, 0, 0.6f, 0.8f}, {1, 2, 1}};
    oroya_scene_set_transform(scene, a, &t);
    t.translation = (oroya_vec3){0, 1, 0};
    oroya_scene_set_transform(scene, b, &t);
    oroya_scene_set_transform(scene, c, &t);
    oroya_node joints[2] = {c, a}; /* b is an ancestor, not a joint */
    oroya_mat4 ibm[2] = {oroya_mat4_identity(), oroya_mat4_identity()};
    ibm[0].m[12] = 5;
    oroya_rig *rig = NULL;
    oroya_error err = {0};
    OT_CHECK_MSG(oroya_rig_create(
                     &(oroya_rig_desc){
                         .scene = scene, .joints = joints, .joint_count = 2, .inverse_bind = ibm},
                     &rig, &err) == OROYA_OK,
                 "%s", err.message);
    OT_EQ_INT(oroya_rig_joint_count(rig), 2);
    OT_EQ_INT(oroya_rig_kernel_joint_count(rig), 3);
    oroya_mixer *m = NULL;
    OT_CHECK(oroya_mixer_create(scene, &(oroya_mixer_desc){.rig = rig}, &m) == OROYA_OK);
    OT_CHECK(oroya_mixer_update(m, 0.1) == OROYA_OK);
    oroya_scene_update_world(scene);
    uint32_t n = 0;
    const oroya_mat4 *bones = oroya_mixer_bone_matrices(m, &n);
    OT_EQ_INT(n, 2);
    for (uint32_t i = 0; i < 2; i++) {
        oroya_mat4 wm;
        oroya_scene_get_world(scene, joints[i], &wm);
        oroya_mat4 want = oroya_mat4_mul(wm, ibm[i]);
        for (int e = 0; e < 16; e++) {
            OT_NEAR(bones[i].m[e], want.m[e], 1e-5);
        }
    }
    /* A node listed twice is an error that names it. */
    oroya_node twice[2] = {b, b};
    oroya_rig *bad = NULL;
    OT_CHECK(oroya_rig_create(
                 &(oroya_rig_desc){
                     .scene = scene, .joints = twice, .joint_count = 2, .name = "skins[3]"},
                 &bad, &err) == OROYA_ERR_INVALID_DATA);
    OT_CHECK(bad == NULL);
    OT_CHECK(strstr(err.message, "\"b\"") != NULL && strstr(err.message, "skins[3]") != NULL);
    oroya_mixer_destroy(m);
    oroya_rig_destroy(rig);
    oroya_scene_destroy(scene);
}

/* Input the kernel has no sampler for, and input it cannot take. STERP rotations, SMOOTH
 * translations and a track past OROYA_POSE_MAX_KEYS keys play on the kernel path (the mixer
 * samples them and the kernel blends them), within 1e-5 of the property path; two tracks on
 * one joint channel fall back to the property path (and the rig says why, naming the joint
 * and the rig); a rig past the kernel's joint limit is refused with a message. */
static void test_fallbacks(void) {
    oroya_scene *scene = NULL;
    OT_CHECK(oroya_scene_create(NULL, &scene) == OROYA_OK);
    oroya_node root, arm;
    oroya_scene_add_node(scene, "root", (oroya_node){0}, OROYA_NODE_OBJECT, &root);
    oroya_scene_add_node(scene, "arm", root, OROYA_NODE_OBJECT, &arm);
    const float times[3] = {0, 1, 1.5f};
    const float rot[12] = {0, 0, 0, 1, 0.6f, 0.3f, 0, 0.7416198f, 0, 0.6f, 0, 0.8f};
    const float pos[9] = {0, 0, 0, 1, 2, 3, -1, 0.5f, 2};
    enum { LONG_KEYS = OROYA_POSE_MAX_KEYS + 5 };
    float *long_times = malloc(LONG_KEYS * sizeof(float));
    float *long_values = malloc(LONG_KEYS * 3 * sizeof(float));
    OT_CHECK(long_times && long_values);
    for (uint32_t k = 0; long_times && long_values && k < LONG_KEYS; k++) {
        long_times[k] = (float)k * (1.0f / 4096);
        long_values[k * 3] = (float)sin(k * 0.01);
        long_values[k * 3 + 1] = (float)(k % 7) * 0.1f;
        long_values[k * 3 + 2] = 1;
    }
    oroya_track tracks[5] = {{.target = "arm",
                              .property = OROYA_PROPERTY_ROTATION,
                              .interpolation = OROYA_INTERP_STERP,
                              .components = 4,
                              .key_count = 3,
                              .times = times,
                              .values = rot,
                              .twist_axis = {1, 0, 0}},
                             {.target = "root",
                              .property = OROYA_PROPERTY_TRANSLATION,
                              .interpolation = OROYA_INTERP_SMOOTH,
                              .components = 3,
                              .key_count = 3,
                              .times = times,
                              .values = pos},
                             {.target = "arm",
                              .property = OROYA_PROPERTY_TRANSLATION,
                              .interpolation = OROYA_INTERP_LINEAR,
                              .components = 3,
                              .key_count = LONG_KEYS,
                              .times = long_times,
                              .values = long_values},
                             {.target = "arm",
                              .property = OROYA_PROPERTY_ROTATION,
                              .interpolation = OROYA_INTERP_LINEAR,
                              .components = 4,
                              .key_count = 3,
                              .times = times,
                              .values = rot},
                             {.target = "arm",
                              .property = OROYA_PROPERTY_ROTATION,
                              .interpolation = OROYA_INTERP_STEP,
                              .components = 4,
                              .key_count = 3,
                              .times = times,
                              .values = rot}};
    /* sterp + smooth + a linear rotation on another joint, the long track, and two rotation
     * tracks on "arm". */
    oroya_track renamed = tracks[3];
    renamed.target = "root";
    const oroya_track mix[3] = {tracks[0], tracks[1], renamed};
    oroya_clip *clips[3] = {NULL, NULL, NULL};
    oroya_error err = {0};
    OT_CHECK(oroya_clip_create(
                 &(oroya_clip_desc){.name = "sterp_smooth", .tracks = mix, .track_count = 3},
                 &clips[0], &err) == OROYA_OK);
    OT_CHECK(oroya_clip_create(
                 &(oroya_clip_desc){.name = "long", .tracks = tracks + 2, .track_count = 1},
                 &clips[1], &err) == OROYA_OK);
    OT_CHECK(oroya_clip_create(
                 &(oroya_clip_desc){.name = "twice", .tracks = tracks + 3, .track_count = 2},
                 &clips[2], &err) == OROYA_OK);
    oroya_rig *rig = NULL;
    OT_CHECK(oroya_rig_create(&(oroya_rig_desc){.scene = scene,
                                                .clips = (const oroya_clip *const *)clips,
                                                .clip_count = 2,
                                                .name = "skins[0]"},
                              &rig, &err) == OROYA_OK);
    OT_CHECK(oroya_rig_clip_status(rig, clips[0], &err) == OROYA_OK);
    OT_CHECK(oroya_rig_clip_status(rig, clips[1], &err) == OROYA_OK);
    /* The pose layer alone would play the stand-ins: no runtime clip for it. */
    OT_CHECK(oroya_rig_clip(rig, clips[0]) == NULL && oroya_rig_clip(rig, clips[1]) == NULL);
    OT_CHECK(oroya_rig_clip_status(rig, clips[2], &err) == OROYA_ERR_UNSUPPORTED);
    OT_CHECK(strstr(err.message, "\"arm\"") && strstr(err.message, "skins[0]") &&
             strstr(err.message, "two"));
    /* Played (each clip alone, then the first two together under a loop mode whose SMOOTH
     * endings differ), every frame equals the property path's within 1e-5. */
    for (int c = 0; c < 4; c++) {
        oroya_mixer *m = NULL, *ref = NULL;
        oroya_scene *scene2 = NULL;
        oroya_node r2, a2;
        oroya_scene_create(NULL, &scene2);
        oroya_scene_add_node(scene2, "root", (oroya_node){0}, OROYA_NODE_OBJECT, &r2);
        oroya_scene_add_node(scene2, "arm", r2, OROYA_NODE_OBJECT, &a2);
        const oroya_transform identity = {{0, 0, 0}, {0, 0, 0, 1}, {1, 1, 1}};
        oroya_scene_set_transform(scene, root, &identity); /* as the last round left them */
        oroya_scene_set_transform(scene, arm, &identity);
        OT_CHECK(oroya_mixer_create(scene, &(oroya_mixer_desc){.rig = rig}, &m) == OROYA_OK);
        OT_CHECK(oroya_mixer_create(scene2, NULL, &ref) == OROYA_OK);
        oroya_mixer *both[2] = {m, ref};
        for (int s = 0; s < 2; s++) {
            oroya_action *a = NULL, *b = NULL;
            oroya_mixer_play(both[s], clips[c == 3 ? 0 : c], &a);
            if (c == 3) {
                oroya_mixer_play(both[s], clips[1], &b);
                oroya_action_set_loop(a, OROYA_LOOP_PINGPONG, INFINITY);
                oroya_action_set_effective_weight(a, 0.7);
                oroya_action_set_effective_weight(b, 0.5);
            }
        }
        for (int f = 0; f < 40; f++) {
            oroya_mixer_update(m, 0.07);
            oroya_mixer_update(ref, 0.07);
            OT_CHECK(oroya_mixer_kernel_active(m) == (c != 2));
            for (int n = 0; n < 2; n++) {
                oroya_transform x, y;
                oroya_scene_get_transform(scene, n ? arm : root, &x);
                oroya_scene_get_transform(scene2, n ? a2 : r2, &y);
                const float *p = &x.translation.x, *q = &y.translation.x;
                double d = 0;
                for (int e = 0; e < 10; e++) {
                    d = fmax(d, fabs((double)p[e] - q[e]));
                }
                OT_CHECK_MSG(d <= 1e-5, "clip %d frame %d node %d: %g", c, f, n, d);
            }
        }
        oroya_mixer_destroy(m);
        oroya_mixer_destroy(ref);
        oroya_scene_destroy(scene2);
    }
    oroya_rig_destroy(rig);
    free(long_times);
    free(long_values);
    /* More joints than the kernel holds. */
    oroya_node prev = root;
    for (uint32_t i = 0; i < OROYA_POSE_MAX_JOINTS; i++) {
        oroya_scene_add_node(scene, "", prev, OROYA_NODE_OBJECT, &prev);
    }
    rig = NULL;
    OT_CHECK(oroya_rig_create(&(oroya_rig_desc){.scene = scene, .name = "skins[1]"}, &rig, &err) ==
             OROYA_ERR_LIMIT);
    OT_CHECK(rig == NULL && strstr(err.message, "skins[1]") != NULL);
    for (int c = 0; c < 3; c++) {
        oroya_clip_destroy(clips[c]);
    }
    oroya_scene_destroy(scene);
}

/* Two skins sharing joints (as in glTF's RecursiveSkeletons sample), one of them not one tree,
 * played by a clip whose tracks target joints of either skin, a node of no skin and a name
 * the scene does not have. Each skin's rig runs on the kernel path: every node transform, the
 * mixer's palette and the other skin's bones from the scene's world matrices equal the
 * property path's (the reference) within 1e-5. */
enum { SK_NODES = 8 };
static const char *const sk_names[SK_NODES] = {"hips", "spine", "head", "arm",
                                               "hand", "body",  "prop", "prop_tip"};
static const uint32_t sk_parent[SK_NODES] = {UINT32_MAX, 0, 1, 1, 3, 0, UINT32_MAX, 6};
/* Skin A: a child before its parent. Skin B: shares arm and hand, and its joints are two
 * trees (prop, the ancestor of prop_tip, is no joint). */
static const uint32_t sk_a[4] = {2, 1, 0, 3}, sk_b[3] = {4, 3, 7};

static oroya_scene *sk_scene(oroya_node nodes[SK_NODES]) {
    oroya_scene *scene = NULL;
    OT_CHECK(oroya_scene_create(NULL, &scene) == OROYA_OK);
    for (uint32_t i = 0; i < SK_NODES; i++) {
        const oroya_node parent =
            sk_parent[i] == UINT32_MAX ? (oroya_node){0} : nodes[sk_parent[i]];
        OT_CHECK(oroya_scene_add_node(scene, sk_names[i], parent, OROYA_NODE_OBJECT, &nodes[i]) ==
                 OROYA_OK);
        const oroya_transform t = {{0.1f * (float)i, 1, 0}, {0, 0, 0, 1}, {1, 1, 1}};
        oroya_scene_set_transform(scene, nodes[i], &t);
    }
    return scene;
}

static oroya_rig *sk_rig(oroya_scene *scene, const oroya_node *nodes, const uint32_t *idx,
                         uint32_t n, const oroya_mat4 *ibm, const char *name,
                         const oroya_clip *clip) {
    oroya_node joints[4];
    for (uint32_t i = 0; i < n; i++) {
        joints[i] = nodes[idx[i]];
    }
    oroya_rig *rig = NULL;
    oroya_error err = {0};
    OT_CHECK_MSG(oroya_rig_create(&(oroya_rig_desc){.scene = scene,
                                                    .joints = joints,
                                                    .joint_count = n,
                                                    .inverse_bind = ibm,
                                                    .clips = &clip,
                                                    .clip_count = 1,
                                                    .name = name},
                                  &rig, &err) == OROYA_OK,
                 "%s", err.message);
    return rig;
}

static void test_shared_skins(void) {
    /* Tracks on every node (translation and rotation), and one on a name no node has. */
    enum { KEYS = 4 };
    float times[KEYS] = {0, 0.4f, 0.9f, 1.5f};
    float rot[SK_NODES][KEYS * 4], pos[SK_NODES][KEYS * 3];
    oroya_track tracks[2 * SK_NODES + 1];
    rng_state = 77;
    for (uint32_t i = 0; i < SK_NODES; i++) {
        for (uint32_t k = 0; k < KEYS; k++) {
            const oroya_quat q = rand_quat();
            memcpy(&rot[i][k * 4], &q, sizeof q);
            for (uint32_t e = 0; e < 3; e++) {
                pos[i][k * 3 + e] = (float)(rndf() - 0.5);
            }
        }
        tracks[2 * i] = (oroya_track){.target = sk_names[i],
                                      .property = OROYA_PROPERTY_ROTATION,
                                      .interpolation = OROYA_INTERP_LINEAR,
                                      .components = 4,
                                      .key_count = KEYS,
                                      .times = times,
                                      .values = rot[i]};
        tracks[2 * i + 1] =
            (oroya_track){.target = sk_names[i],
                          .property = OROYA_PROPERTY_TRANSLATION,
                          .interpolation = i % 2 ? OROYA_INTERP_CUBICSPLINE : OROYA_INTERP_LINEAR,
                          .components = 3,
                          .key_count = i % 2 ? 1 : KEYS,
                          .times = times,
                          .values = pos[i]};
    }
    tracks[2 * SK_NODES] = (oroya_track){.target = "ghost",
                                         .property = OROYA_PROPERTY_SCALE,
                                         .interpolation = OROYA_INTERP_LINEAR,
                                         .components = 3,
                                         .key_count = 1,
                                         .times = times,
                                         .values = pos[0]};
    oroya_clip *clip = NULL;
    oroya_error err = {0};
    OT_CHECK_MSG(
        oroya_clip_create(
            &(oroya_clip_desc){.name = "both", .tracks = tracks, .track_count = 2 * SK_NODES + 1},
            &clip, &err) == OROYA_OK,
        "%s", err.message);
    oroya_mat4 ibm_a[4], ibm_b[3];
    for (uint32_t i = 0; i < 4; i++) {
        ibm_a[i] = oroya_mat4_identity();
        ibm_a[i].m[13] = -(float)i;
    }
    for (uint32_t i = 0; i < 3; i++) {
        ibm_b[i] = oroya_mat4_identity();
        ibm_b[i].m[12] = 0.5f * (float)i;
    }
    for (int which = 0; which < 2; which++) {
        oroya_node nk[SK_NODES], nr[SK_NODES];
        oroya_scene *sk = sk_scene(nk), *sr = sk_scene(nr);
        const uint32_t *idx = which ? sk_b : sk_a, n = which ? 3 : 4;
        const uint32_t *other = which ? sk_a : sk_b, on = which ? 4 : 3;
        const oroya_mat4 *ibm = which ? ibm_b : ibm_a, *oibm = which ? ibm_a : ibm_b;
        const char *name = which ? "skins[1]" : "skins[0]";
        oroya_rig *rk = sk_rig(sk, nk, idx, n, ibm, name, clip);
        oroya_rig *rr = sk_rig(sr, nr, idx, n, ibm, name, clip);
        /* The other skin's rig on the same scene: shared joints are no error. */
        oroya_rig *ro = sk_rig(sk, nk, other, on, oibm, which ? "skins[0]" : "skins[1]", clip);
        OT_EQ_INT(oroya_rig_kernel_joint_count(rk), which ? 6 : 4);
        OT_CHECK(oroya_rig_clip_status(rk, clip, &err) == OROYA_OK);
        oroya_mixer *mk = NULL, *mr = NULL;
        OT_CHECK(oroya_mixer_create(sk, &(oroya_mixer_desc){.rig = rk}, &mk) == OROYA_OK);
        OT_CHECK(oroya_mixer_create(sr, &(oroya_mixer_desc){.rig = rr}, &mr) == OROYA_OK);
        oroya__mixer_set_reference(mr, true);
        oroya_action *ak = NULL, *ar = NULL;
        OT_CHECK(oroya_mixer_clip_action(mk, clip, &ak) == OROYA_OK);
        OT_CHECK(oroya_mixer_clip_action(mr, clip, &ar) == OROYA_OK);
        oroya_action_set_weight(ak, 0.7);
        oroya_action_set_weight(ar, 0.7);
        oroya_action_play(ak);
        oroya_action_play(ar);
        double worst = 0;
        for (int f = 0; f < 60; f++) {
            OT_CHECK(oroya_mixer_update(mk, 0.037) == OROYA_OK);
            OT_CHECK(oroya_mixer_update(mr, 0.037) == OROYA_OK);
            OT_CHECK(oroya_mixer_kernel_active(mk) && !oroya_mixer_kernel_active(mr));
            int node = -1;
            world wk = {.scene = sk}, wr = {.scene = sr};
            memcpy(wk.nodes, nk, sizeof nk);
            memcpy(wr.nodes, nr, sizeof nr);
            worst = fmax(worst, max_diff_frame(&wk, &wr, SK_NODES, 0, &node));
            uint32_t ck = 0, cr = 0;
            const oroya_mat4 *bk = oroya_mixer_bone_matrices(mk, &ck);
            const oroya_mat4 *br = oroya_mixer_bone_matrices(mr, &cr);
            OT_CHECK(ck == n && cr == n);
            for (uint32_t b = 0; b < n && ck == n && cr == n; b++) {
                for (int e = 0; e < 16; e++) {
                    worst = fmax(worst, fabs((double)bk[b].m[e] - br[b].m[e]) /
                                            (1 + fabs((double)br[b].m[e])));
                }
            }
            /* The other skin, from the scene as any skinning or rendering code reads it. */
            oroya_scene_update_world(sk);
            oroya_scene_update_world(sr);
            for (uint32_t b = 0; b < on; b++) {
                oroya_mat4 wk4, wr4;
                oroya_scene_get_world(sk, nk[other[b]], &wk4);
                oroya_scene_get_world(sr, nr[other[b]], &wr4);
                const oroya_mat4 x = oroya_mat4_mul(wk4, oibm[b]), y = oroya_mat4_mul(wr4, oibm[b]);
                for (int e = 0; e < 16; e++) {
                    worst = fmax(worst, fabs((double)x.m[e] - y.m[e]) / (1 + fabs((double)y.m[e])));
                }
            }
        }
        OT_CHECK_MSG(worst <= 1e-5, "%s: kernel and property path differ by %g", name, worst);
        oroya_mixer_destroy(mk);
        oroya_mixer_destroy(mr);
        oroya_rig_destroy(rk);
        oroya_rig_destroy(rr);
        oroya_rig_destroy(ro);
        oroya_scene_destroy(sk);
        oroya_scene_destroy(sr);
    }
    oroya_clip_destroy(clip);
}

/* An outside write to a joint channel an action animates stays in the scene until the mixer's
 * value changes (three's rule), and the mixer's bones show it meanwhile, as bones computed
 * from the scene do. */
static void test_outside_write_bones(void) {
    oroya_scene *scene = NULL;
    OT_CHECK(oroya_scene_create(NULL, &scene) == OROYA_OK);
    oroya_node a, b;
    oroya_scene_add_node(scene, "a", (oroya_node){0}, OROYA_NODE_OBJECT, &a);
    oroya_scene_add_node(scene, "b", a, OROYA_NODE_OBJECT, &b);
    const oroya_transform t = {{0, 1, 0}, {0, 0, 0, 1}, {1, 1, 1}};
    oroya_scene_set_transform(scene, b, &t);
    /* A constant rotation on a (STEP, one value) and a moving translation on b. */
    const float times[2] = {0, 1}, rot[8] = {0, 0.6f, 0, 0.8f, 0, 0.6f, 0, 0.8f};
    const float pos[6] = {0, 1, 0, 1, 1, 0};
    const oroya_track tracks[2] = {{.target = "a",
                                    .property = OROYA_PROPERTY_ROTATION,
                                    .interpolation = OROYA_INTERP_STEP,
                                    .components = 4,
                                    .key_count = 2,
                                    .times = times,
                                    .values = rot},
                                   {.target = "b",
                                    .property = OROYA_PROPERTY_TRANSLATION,
                                    .interpolation = OROYA_INTERP_LINEAR,
                                    .components = 3,
                                    .key_count = 2,
                                    .times = times,
                                    .values = pos}};
    oroya_clip *clip = NULL;
    OT_CHECK(oroya_clip_create(&(oroya_clip_desc){.name = "c", .tracks = tracks, .track_count = 2},
                               &clip, NULL) == OROYA_OK);
    oroya_rig *rig = NULL;
    OT_CHECK(oroya_rig_create(&(oroya_rig_desc){.scene = scene,
                                                .clips = (const oroya_clip *const *)&clip,
                                                .clip_count = 1},
                              &rig, NULL) == OROYA_OK);
    oroya_mixer *m = NULL;
    OT_CHECK(oroya_mixer_create(scene, &(oroya_mixer_desc){.rig = rig}, &m) == OROYA_OK);
    oroya_mixer_play(m, clip, NULL);
    OT_CHECK(oroya_mixer_update(m, 0.1) == OROYA_OK);
    oroya_transform x;
    oroya_scene_get_transform(scene, a, &x);
    x.rotation = (oroya_quat){0.6f, 0, 0, 0.8f};
    oroya_scene_set_transform(scene, a, &x);
    for (int f = 0; f < 3; f++) {
        OT_CHECK(oroya_mixer_update(m, 0.1) == OROYA_OK);
        OT_CHECK(oroya_mixer_kernel_active(m));
        oroya_transform y;
        oroya_scene_get_transform(scene, a, &y);
        OT_CHECK(!memcmp(&y.rotation, &x.rotation, sizeof y.rotation)); /* kept */
        oroya_scene_update_world(scene);
        uint32_t n = 0;
        const oroya_mat4 *bones = oroya_mixer_bone_matrices(m, &n);
        OT_EQ_INT(n, 2);
        for (uint32_t i = 0; i < 2 && n == 2; i++) {
            oroya_mat4 w;
            oroya_scene_get_world(scene, i ? b : a, &w);
            for (int e = 0; e < 16; e++) {
                OT_NEAR(bones[i].m[e], w.m[e], 1e-6);
            }
        }
    }
    oroya_mixer_destroy(m);
    oroya_rig_destroy(rig);
    oroya_clip_destroy(clip);
    oroya_scene_destroy(scene);
}

/* The loop logic itself, which both paths share (update_time in mixer.c), so the comparison
 * above cannot see a change to it: a ping-pong action playing as a repeat, say, moves both
 * worlds alike. Here one action at weight 1 plays on each path against a model of three's
 * AnimationAction._updateTime written from its source (three.js 0.187) and docs/mixer.md's
 * deviation 2: once, and repeat and ping-pong with 1..4 or infinite repetitions, clamp or not,
 * time scales from -1.2 to 2.4 and 0, updates that cross up to several loops at once, set_time
 * (inside the clip and past it) and reset + play. Every frame: the action's time and loop
 * count equal the model's, and every node equals the clip sampled at the model's clip time
 * (the rest pose where the clip has no track, or once the action finished unclamped), within
 * the random runs' 1e-5. */
typedef struct loop_model {
    double time, reps;
    int64_t count;
    bool once, pingpong, clamp, enabled, paused;
} loop_model;

/* One update of dt (mixer time scale 1): the clip time three samples at. */
static double loop_model_update(loop_model *m, double d, double dt, double time_scale) {
    const double delta = m->paused ? 0 : dt * time_scale;
    if (!m->enabled) {
        return m->time;
    }
    double time = m->time + delta;
    int64_t count = m->count;
    if (delta == 0) {
        if (count == -1) {
            return time;
        }
        return m->pingpong && (count & 1) ? d - time : time;
    }
    if (m->once) {
        if (count == -1) {
            m->count = 0;
        }
        if (time >= d || time < 0) {
            time = time >= d ? d : 0;
            if (m->clamp) {
                m->paused = true;
            } else {
                m->enabled = false;
            }
        }
        m->time = time;
        return time;
    }
    if (count == -1 && delta >= 0) {
        count = 0;
    }
    if (time >= d || time < 0) {
        const double loop_delta = floor(time / d);
        time -= d * loop_delta;
        const int64_t before = count;
        count += (int64_t)fabs(loop_delta);
        if (m->reps - (double)count <= 0) {
            if (m->clamp) {
                m->paused = true;
            } else {
                m->enabled = false;
            }
            time = delta > 0 ? d : 0;
            m->time = time;
            /* Deviation 2: the end of the last round played (the current one when the
             * repetitions were already used up), not three's count of the wraps made (three
             * does not store the count here: the later frames keep the earlier count). */
            const int64_t last = before + (int64_t)fmax(1, ceil(m->reps - (double)before)) - 1;
            return m->pingpong && (last & 1) ? d - time : time;
        }
        m->count = count;
        m->time = time;
    } else {
        m->count = count;
        m->time = time;
    }
    return m->pingpong && (count & 1) ? d - time : time;
}

static double transform_diff(const oroya_transform *x, const oroya_transform *y) {
    const float *pa = &x->translation.x, *pb = &y->translation.x;
    double worst = 0, dq_plus = 0, dq_minus = 0;
    for (int e = 0; e < 10; e++) {
        const double scale = 1 + fabs((double)pb[e]);
        if (e >= 3 && e < 7) {
            dq_plus = fmax(dq_plus, fabs((double)pa[e] - pb[e]) / scale);
            dq_minus = fmax(dq_minus, fabs((double)pa[e] + pb[e]) / scale);
        } else {
            worst = fmax(worst, fabs((double)pa[e] - pb[e]) / scale);
        }
    }
    return fmax(worst, fmin(dq_plus, dq_minus));
}

static void test_loop_model(void) {
    const int nonunit_was = nonunit;
    nonunit = 0;
    long frames = 0, reflected = 0, multi = 0, finished = 0;
    double worst = 0;
    for (uint64_t seed = 1; seed <= 60; seed++) {
        rng_state = seed * 0xD1B54A32D192ED03ull;
        spec s;
        make_spec(&s);
        /* Clip 0 is never the additive one; SMOOTH tracks (whose endings depend on the round)
         * are left out of the check. */
        const oroya_clip *clip = s.clips[0];
        const double d = clip->duration;
        if (!(d > 0)) {
            for (uint32_t c = 0; c < s.clip_count; c++) {
                oroya_clip_destroy(s.clips[c]);
            }
            continue;
        }
        world w[2];
        bool ok = make_world(&s, &w[0], false, 0) && make_world(&s, &w[1], true, 1);
        OT_CHECK(ok);
        for (int path = 0; ok && path < 2; path++) {
            const uint64_t script = rng_state;
            oroya_action *a = w[path].actions[0];
            loop_model m = {.time = 0, .count = -1, .enabled = true};
            double time_scale = 1;
            for (int f = 0; f < 200; f++) {
                const uint32_t op = rndn(12);
                const double x = rndf();
                if (f == 0 || op == 0) {
                    const uint32_t mode = rndn(5);
                    m.once = mode == 0;
                    m.pingpong = mode >= 2;
                    m.reps = rndn(4) == 0 ? INFINITY : (double)(1 + rndn(4));
                    oroya_action_set_loop(a,
                                          m.once       ? OROYA_LOOP_ONCE
                                          : m.pingpong ? OROYA_LOOP_PINGPONG
                                                       : OROYA_LOOP_REPEAT,
                                          m.reps);
                }
                if (f == 0 || op == 1) {
                    m.clamp = x < 0.5;
                    oroya_action_set_clamp_when_finished(a, m.clamp);
                }
                if (f == 0 || op == 2) {
                    time_scale = x < 0.1 ? 0 : (x - 0.4) * 4;
                    oroya_action_set_time_scale(a, time_scale);
                }
                if (f == 0 || op == 3) {
                    oroya_action_reset(a);
                    oroya_action_play(a);
                    m.time = 0, m.count = -1, m.enabled = true, m.paused = false;
                }
                if (op == 4) {
                    m.time = x * 1.5 * d;
                    oroya_action_set_time(a, m.time);
                }
                /* Mostly small steps, some across several loops. */
                const double dt = rndn(6) == 0 ? rndf() * 5 * d : rndf() * 0.1;
                multi += fabs(dt * time_scale) > d;
                const bool was_enabled = m.enabled && !m.paused;
                const double ct = loop_model_update(&m, d, dt, time_scale);
                finished += was_enabled && !(m.enabled && !m.paused);
                reflected += m.pingpong && fabs(ct - m.time) > 1e-9;
                OT_CHECK(oroya_mixer_update(w[path].mixer, dt) == OROYA_OK);
                OT_CHECK_MSG(fabs(oroya_action_time(a) - m.time) <= 1e-9 &&
                                 oroya_action_loop_count(a) == m.count,
                             "seed %llu path %d frame %d: time %.17g loop %lld, model %.17g %lld",
                             (unsigned long long)seed, path, f, oroya_action_time(a),
                             (long long)oroya_action_loop_count(a), m.time, (long long)m.count);
                /* The expected scene: the rest pose, with the clip's tracks at ct on top. */
                oroya_transform want[MAX_NODES];
                bool check[MAX_NODES];
                for (uint32_t i = 0; i < s.node_count; i++) {
                    want[i] = s.rest[i];
                    check[i] = true;
                }
                for (uint32_t t = 0; m.enabled && t < clip->track_count; t++) {
                    const oroya_track *tr = &clip->tracks[t];
                    unsigned node;
                    if (sscanf(tr->target, "n%u", &node) != 1 || node >= s.node_count) {
                        continue;
                    }
                    if (tr->interpolation == OROYA_INTERP_SMOOTH) {
                        check[node] = false;
                        continue;
                    }
                    double v[4];
                    oroya_track_sample_f64(tr, ct, NULL, NULL, v);
                    float *dst = tr->property == OROYA_PROPERTY_TRANSLATION
                                     ? &want[node].translation.x
                                 : tr->property == OROYA_PROPERTY_ROTATION ? &want[node].rotation.x
                                                                           : &want[node].scale.x;
                    for (uint32_t c = 0; c < tr->components; c++) {
                        dst[c] = (float)v[c];
                    }
                }
                for (uint32_t i = 0; i < s.node_count; i++) {
                    if (!check[i]) {
                        continue;
                    }
                    oroya_transform got;
                    oroya_scene_get_transform(w[path].scene, w[path].nodes[i], &got);
                    const double diff = transform_diff(&got, &want[i]);
                    worst = fmax(worst, diff);
                    OT_CHECK_MSG(diff <= 1e-5,
                                 "seed %llu path %d frame %d: node %u %g from the clip at %.9g "
                                 "(%s, reps %g, time %.9g loop %lld)",
                                 (unsigned long long)seed, path, f, i, diff, ct,
                                 m.once       ? "once"
                                 : m.pingpong ? "pingpong"
                                              : "repeat",
                                 m.reps, m.time, (long long)m.count);
                }
                frames++;
            }
            if (path == 0) {
                rng_state = script; /* the same script on the property path */
            }
        }
        for (int p = 0; ok && p < 2; p++) {
            free_world(&w[p]);
        }
        for (uint32_t c = 0; c < s.clip_count; c++) {
            oroya_clip_destroy(s.clips[c]);
        }
    }
    printf("loop model: %ld frames (%ld ping-pong reflected, %ld updates over a loop, %ld "
           "finishes), worst %.3g\n",
           frames, reflected, multi, finished, worst);
    OT_CHECK(reflected > 1000 && multi > 500 && finished > 100);
    nonunit = nonunit_was;
}

/* The mixer's pose kernel in both widths: test_random_runs's scripts on two kernel worlds,
 * one through the AVX2 kernel (where the CPU has it), one through the SSE2 baseline
 * (oroya__pose_force_baseline), which a CPU with AVX2 never runs otherwise. Both promise
 * bit-identical results (src/internal/pose.h): every node transform and every bone and model
 * matrix equal bit for bit, every frame. */
static void test_kernel_widths(void) {
    const int nonunit_was = nonunit;
    nonunit = 1;
    long frames = 0, two_layer_frames = 0;
    for (uint64_t seed = 1; seed <= 60; seed++) {
        rng_state = seed * 0x2545F4914F6CDD1Dull;
        spec s;
        make_spec(&s);
        world wa, wb;
        bool ok = make_world(&s, &wa, false, 0) && make_world(&s, &wb, false, 1);
        OT_CHECK(ok);
        world *w[2] = {&wa, &wb};
        for (int f = 0; ok && f < 240; f++) {
            const bool hold = rndn(4) == 0 && random_op(w, s.clip_count, s.node_count);
            const double dt = hold ? 0 : rndn(10) == 0 ? 0 : rndf() * 0.05;
            OT_CHECK(oroya_mixer_update(wa.mixer, dt) == OROYA_OK);
            oroya__pose_force_baseline = true;
            OT_CHECK(oroya_mixer_update(wb.mixer, dt) == OROYA_OK);
            uint32_t na = 0, nb = 0, ma = 0, mb = 0;
            const oroya_mat4 *ba = oroya_mixer_bone_matrices(wa.mixer, &na);
            const oroya_mat4 *bb = oroya_mixer_bone_matrices(wb.mixer, &nb);
            const oroya_mat4 *xa = oroya_mixer_model_matrices(wa.mixer, &ma);
            const oroya_mat4 *xb = oroya_mixer_model_matrices(wb.mixer, &mb);
            oroya__pose_force_baseline = false;
            OT_CHECK(oroya_mixer_kernel_active(wa.mixer) && oroya_mixer_kernel_active(wb.mixer));
            OT_EQ_INT(na, nb);
            OT_EQ_INT(ma, mb);
            OT_CHECK_MSG(na == nb && ba && bb && !memcmp(ba, bb, na * sizeof *ba),
                         "seed %llu frame %d: the bone matrices differ", (unsigned long long)seed,
                         f);
            OT_CHECK_MSG(ma == mb && xa && xb && !memcmp(xa, xb, ma * sizeof *xa),
                         "seed %llu frame %d: the model matrices differ", (unsigned long long)seed,
                         f);
            for (uint32_t i = 0; i < s.node_count; i++) {
                oroya_transform ta, tb;
                oroya_scene_get_transform(wa.scene, wa.nodes[i], &ta);
                oroya_scene_get_transform(wb.scene, wb.nodes[i], &tb);
                OT_CHECK_MSG(!memcmp(&ta, &tb, sizeof ta), "seed %llu frame %d: node %u differs",
                             (unsigned long long)seed, f, i);
            }
            uint32_t normal = 0;
            for (uint32_t c = 0; c < s.clip_count; c++) {
                const oroya_action *a = wa.actions[c];
                normal += oroya_action_is_running(a) && oroya_action_effective_weight(a) > 0 &&
                          oroya_action_blend_mode(a) == OROYA_BLEND_NORMAL;
            }
            two_layer_frames += normal == 2;
            frames++;
        }
        for (int p = 0; ok && p < 2; p++) {
            free_world(w[p]);
        }
        for (uint32_t c = 0; c < s.clip_count; c++) {
            oroya_clip_destroy(s.clips[c]);
        }
    }
    printf("kernel widths: %ld frames, %ld with two normal actions (pk_blend_two)\n", frames,
           two_layer_frames);
    OT_CHECK(two_layer_frames > 1000);
    nonunit = nonunit_was;
}

int main(void) {
    OT_RUN(test_fallbacks);
    OT_RUN(test_palette_order);
    OT_RUN(test_shared_skins);
    OT_RUN(test_outside_write_bones);
    OT_RUN(test_random_runs);
    OT_RUN(test_loop_model);
    OT_RUN(test_kernel_widths);
    return ot_finish();
}
