/* bench_character.c - see bench_character.h. The math runs in double and rounds to float
 * where a file would store floats, in a fixed order of operations, so that a build is
 * deterministic and the default character matches the benchmark data set bit for bit. */
#include "bench_character.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FPS 30
#define WEIGHT_QUANTUM 65536
#define CHAIN_LENGTH 8
#define PI 3.14159265358979323846

typedef struct v3 {
    double x, y, z;
} v3;
typedef struct q4 {
    double x, y, z, w;
} q4;

/* ---- math (quaternions are x, y, z, w; qmul(a, b) applies b first) ----------------------- */

static double f32(double x) { return (double)(float)x; }
static v3 vadd(v3 a, v3 b) { return (v3){a.x + b.x, a.y + b.y, a.z + b.z}; }
static v3 vsub(v3 a, v3 b) { return (v3){a.x - b.x, a.y - b.y, a.z - b.z}; }
static v3 vscale(v3 a, double s) { return (v3){a.x * s, a.y * s, a.z * s}; }
static double vdot(v3 a, v3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
static v3 vcross(v3 a, v3 b) {
    return (v3){a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
static double vlen(v3 a) { return sqrt(vdot(a, a)); }
static v3 vnorm(v3 a) {
    double n = vlen(a);
    return (v3){a.x / n, a.y / n, a.z / n};
}
static q4 qmul(q4 a, q4 b) {
    return (q4){a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
                a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
                a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w,
                a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z};
}
static q4 qconj(q4 q) { return (q4){-q.x, -q.y, -q.z, q.w}; }
static q4 qnorm(q4 q) {
    double n = sqrt(q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w);
    return (q4){q.x / n, q.y / n, q.z / n, q.w / n};
}
static q4 qneg(q4 q) { return (q4){-q.x, -q.y, -q.z, -q.w}; }
static double qdot(q4 a, q4 b) { return a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w; }
static q4 qaxis(v3 axis, double angle) {
    double s = sin(angle * 0.5);
    return (q4){axis.x * s, axis.y * s, axis.z * s, cos(angle * 0.5)};
}
static v3 qrotate(q4 q, v3 v) {
    q4 p = qmul(qmul(q, (q4){v.x, v.y, v.z, 0.0}), qconj(q));
    return (v3){p.x, p.y, p.z};
}
/* The rotation whose matrix columns are x, y, z (orthonormal, right-handed), w >= 0. */
static q4 qbasis(v3 x, v3 y, v3 z) {
    double m00 = x.x, m01 = y.x, m02 = z.x;
    double m10 = x.y, m11 = y.y, m12 = z.y;
    double m20 = x.z, m21 = y.z, m22 = z.z;
    double tr = m00 + m11 + m22, s;
    q4 q;
    if (tr > 0) {
        s = sqrt(tr + 1.0) * 2;
        q = (q4){(m21 - m12) / s, (m02 - m20) / s, (m10 - m01) / s, 0.25 * s};
    } else if (m00 > m11 && m00 > m22) {
        s = sqrt(1.0 + m00 - m11 - m22) * 2;
        q = (q4){0.25 * s, (m01 + m10) / s, (m02 + m20) / s, (m21 - m12) / s};
    } else if (m11 > m22) {
        s = sqrt(1.0 + m11 - m00 - m22) * 2;
        q = (q4){(m01 + m10) / s, 0.25 * s, (m12 + m21) / s, (m02 - m20) / s};
    } else {
        s = sqrt(1.0 + m22 - m00 - m11) * 2;
        q = (q4){(m02 + m20) / s, (m12 + m21) / s, 0.25 * s, (m10 - m01) / s};
    }
    q = qnorm(q);
    return q.w >= 0 ? q : qneg(q);
}
/* Rx(ax) * Ry(ay) * Rz(az): Rz first. */
static q4 qeuler(v3 a) {
    return qmul(qmul(qaxis((v3){1, 0, 0}, a.x), qaxis((v3){0, 1, 0}, a.y)),
                qaxis((v3){0, 0, 1}, a.z));
}
/* Normalized in double, then rounded to float. */
static q4 qf32(q4 q) {
    q = qnorm(q);
    return (q4){f32(q.x), f32(q.y), f32(q.z), f32(q.w)};
}
static long iround(double x) { return (long)nearbyint(x); } /* ties to even */

/* ---- skeleton ------------------------------------------------------------------------------ */

typedef struct jspec {
    char name[32];
    int parent;    /* index in the same array, -1 for the root */
    v3 head, tail; /* world rest position; the point its +Y aims at */
    bool has_geo, deform;
    v3 ga, gb;         /* capsule axis, world rest space */
    double gr;         /* capsule radius */
    int phase_index;   /* the index the motion's phase is drawn from */
    int chain_segment; /* -1: humanoid joint; else its place in a hanging chain */
    /* computed */
    q4 wrot_design, rest_r, wrot;
    v3 rest_t, wpos;
    float ibm[16];
    int child_count, first_child, next_sibling;
} jspec;

typedef struct specs {
    jspec *j;
    int n, cap;
} specs;

static int add(specs *s, const char *name, int parent, v3 head, v3 tail, const v3 *geo, double r,
               bool deform) {
    jspec *j = &s->j[s->n];
    memset(j, 0, sizeof *j);
    snprintf(j->name, sizeof j->name, "%s", name);
    j->parent = parent;
    j->head = head;
    j->tail = tail;
    j->deform = deform;
    j->chain_segment = -1;
    if (geo) {
        j->has_geo = true;
        j->ga = geo[0];
        j->gb = geo[1];
        j->gr = r;
    }
    return s->n++;
}
#define V(x, y, z) ((v3){(x), (y), (z)})
#define G(a, b) ((const v3[]){a, b})

/* The 67 joints, depth-first, parents before children. */
static void humanoid67(specs *s) {
    int hips = add(s, "hips", -1, V(0.0, 0.95, 0.0), V(0.0, 1.05, 0.0),
                   G(V(-0.09, 0.93, 0.0), V(0.09, 0.93, 0.0)), 0.12, true);
    int spine = add(s, "spine", hips, V(0.0, 1.05, 0.0), V(0.0, 1.15, 0.005),
                    G(V(0.0, 1.05, 0.0), V(0.0, 1.15, 0.005)), 0.115, true);
    int spine1 = add(s, "spine1", spine, V(0.0, 1.15, 0.005), V(0.0, 1.26, 0.0),
                     G(V(0.0, 1.15, 0.005), V(0.0, 1.26, 0.0)), 0.12, true);
    int spine2 = add(s, "spine2", spine1, V(0.0, 1.26, 0.0), V(0.0, 1.37, -0.01),
                     G(V(-0.03, 1.27, 0.0), V(0.03, 1.33, -0.01)), 0.13, true);
    int spine3 = add(s, "spine3", spine2, V(0.0, 1.37, -0.01), V(0.0, 1.49, -0.015),
                     G(V(-0.06, 1.40, -0.01), V(0.06, 1.40, -0.01)), 0.11, true);
    int neck = add(s, "neck", spine3, V(0.0, 1.49, -0.015), V(0.0, 1.545, 0.0),
                   G(V(0.0, 1.49, -0.015), V(0.0, 1.545, 0.0)), 0.05, true);
    int neck1 = add(s, "neck1", neck, V(0.0, 1.545, 0.0), V(0.0, 1.60, 0.01),
                    G(V(0.0, 1.545, 0.0), V(0.0, 1.60, 0.01)), 0.048, true);
    int head = add(s, "head", neck1, V(0.0, 1.60, 0.01), V(0.0, 1.78, 0.015),
                   G(V(0.0, 1.665, 0.02), V(0.0, 1.72, 0.015)), 0.092, true);
    add(s, "head_end", head, V(0.0, 1.78, 0.015), V(0.0, 1.85, 0.015), NULL, 0, false);
    add(s, "jaw", head, V(0.0, 1.63, 0.03), V(0.0, 1.585, 0.095),
        G(V(0.0, 1.625, 0.04), V(0.0, 1.595, 0.085)), 0.035, true);
    for (int e = 0; e < 2; e++) {
        double x = e == 0 ? 0.032 : -0.032;
        add(s, e == 0 ? "eye_L" : "eye_R", head, V(x, 1.685, 0.082), V(x, 1.685, 0.11),
            G(V(x, 1.685, 0.082), V(x, 1.685, 0.082)), 0.013, true);
    }
    static const struct finger {
        const char *name;
        double base[3], dir[3], len[3], r;
    } fingers[5] = {
        {"thumb", {0.745, 1.432, 0.025}, {0.55, -0.12, 0.83}, {0.04, 0.032, 0.028}, 0.011},
        {"index", {0.808, 1.449, 0.024}, {0.99, 0.0, 0.08}, {0.045, 0.027, 0.022}, 0.0095},
        {"middle", {0.812, 1.449, 0.003}, {1.0, 0.0, 0.0}, {0.05, 0.030, 0.024}, 0.0098},
        {"ring", {0.808, 1.448, -0.017}, {0.99, 0.0, -0.07}, {0.046, 0.028, 0.022}, 0.0092},
        {"pinky", {0.800, 1.446, -0.035}, {0.97, 0.0, -0.16}, {0.036, 0.022, 0.019}, 0.0082},
    };
    char nm[32];
    for (int e = 0; e < 2; e++) {
        const double m = e == 0 ? 1.0 : -1.0;
        const char *sd = e == 0 ? "L" : "R";
#define X(x, y, z) V(m *(x), (y), (z))
        snprintf(nm, sizeof nm, "shoulder_%s", sd);
        int sh = add(s, nm, spine3, X(0.03, 1.45, 0.0), X(0.175, 1.455, -0.015),
                     G(X(0.06, 1.45, -0.005), X(0.15, 1.455, -0.015)), 0.055, true);
        snprintf(nm, sizeof nm, "upper_arm_%s", sd);
        int ua = add(s, nm, sh, X(0.175, 1.455, -0.015), X(0.46, 1.45, -0.025),
                     G(X(0.175, 1.455, -0.015), X(0.46, 1.45, -0.025)), 0.046, true);
        snprintf(nm, sizeof nm, "upper_arm_twist_%s", sd);
        add(s, nm, ua, X(0.3175, 1.4525, -0.02), X(0.46, 1.45, -0.025), NULL, 0, true);
        snprintf(nm, sizeof nm, "lower_arm_%s", sd);
        int la = add(s, nm, ua, X(0.46, 1.45, -0.025), X(0.72, 1.447, -0.01),
                     G(X(0.46, 1.45, -0.025), X(0.72, 1.447, -0.01)), 0.038, true);
        snprintf(nm, sizeof nm, "lower_arm_twist_%s", sd);
        add(s, nm, la, X(0.59, 1.4485, -0.0175), X(0.72, 1.447, -0.01), NULL, 0, true);
        snprintf(nm, sizeof nm, "hand_%s", sd);
        int hand = add(s, nm, la, X(0.72, 1.447, -0.01), X(0.80, 1.447, -0.002),
                       G(X(0.735, 1.447, -0.008), X(0.79, 1.447, -0.004)), 0.03, true);
        for (int f = 0; f < 5; f++) {
            const struct finger *fi = &fingers[f];
            v3 d = vnorm(V(fi->dir[0], fi->dir[1], fi->dir[2]));
            int parent = hand;
            v3 p = V(fi->base[0], fi->base[1], fi->base[2]);
            for (int k = 0; k < 3; k++) {
                v3 q = vadd(p, vscale(d, fi->len[k]));
                snprintf(nm, sizeof nm, "%s%d_%s", fi->name, k + 1, sd);
                parent = add(s, nm, parent, X(p.x, p.y, p.z), X(q.x, q.y, q.z),
                             G(X(p.x, p.y, p.z), X(q.x, q.y, q.z)), fi->r * (1.0 - 0.08 * k), true);
                p = q;
            }
        }
        if (e == 1) {
            add(s, "prop_R", hand, X(0.78, 1.42, 0.0), X(0.78, 1.42, 0.10), NULL, 0, false);
        }
    }
    for (int e = 0; e < 2; e++) {
        const double m = e == 0 ? 1.0 : -1.0;
        const char *sd = e == 0 ? "L" : "R";
        snprintf(nm, sizeof nm, "upper_leg_%s", sd);
        int ul = add(s, nm, hips, X(0.09, 0.92, 0.0), X(0.095, 0.50, 0.005),
                     G(X(0.09, 0.90, 0.0), X(0.095, 0.50, 0.005)), 0.075, true);
        snprintf(nm, sizeof nm, "upper_leg_twist_%s", sd);
        add(s, nm, ul, X(0.0925, 0.71, 0.0025), X(0.095, 0.50, 0.005), NULL, 0, true);
        snprintf(nm, sizeof nm, "lower_leg_%s", sd);
        int ll = add(s, nm, ul, X(0.095, 0.50, 0.005), X(0.10, 0.085, -0.025),
                     G(X(0.095, 0.50, 0.005), X(0.10, 0.085, -0.025)), 0.055, true);
        snprintf(nm, sizeof nm, "foot_%s", sd);
        int ft = add(s, nm, ll, X(0.10, 0.085, -0.025), X(0.105, 0.025, 0.12),
                     G(X(0.10, 0.07, -0.03), X(0.105, 0.04, 0.11)), 0.042, true);
        snprintf(nm, sizeof nm, "toe_%s", sd);
        int toe = add(s, nm, ft, X(0.105, 0.025, 0.12), X(0.107, 0.02, 0.185),
                      G(X(0.105, 0.025, 0.12), X(0.107, 0.022, 0.175)), 0.028, true);
        snprintf(nm, sizeof nm, "toe_end_%s", sd);
        add(s, nm, toe, X(0.107, 0.02, 0.185), X(0.107, 0.02, 0.22), NULL, 0, false);
#undef X
    }
    for (int i = 0; i < s->n; i++) {
        s->j[i].phase_index = i;
    }
}

/* The order joints are kept in when there are fewer than 67 (each after its parent). */
static const char *const keep_order[BENCH_CHARACTER_JOINTS] = {"hips",
                                                               "spine",
                                                               "spine1",
                                                               "spine2",
                                                               "spine3",
                                                               "neck",
                                                               "neck1",
                                                               "head",
                                                               "upper_leg_L",
                                                               "upper_leg_R",
                                                               "lower_leg_L",
                                                               "lower_leg_R",
                                                               "foot_L",
                                                               "foot_R",
                                                               "shoulder_L",
                                                               "shoulder_R",
                                                               "upper_arm_L",
                                                               "upper_arm_R",
                                                               "lower_arm_L",
                                                               "lower_arm_R",
                                                               "hand_L",
                                                               "hand_R",
                                                               "toe_L",
                                                               "toe_R",
                                                               "jaw",
                                                               "upper_arm_twist_L",
                                                               "upper_arm_twist_R",
                                                               "lower_arm_twist_L",
                                                               "lower_arm_twist_R",
                                                               "upper_leg_twist_L",
                                                               "upper_leg_twist_R",
                                                               "eye_L",
                                                               "eye_R",
                                                               "head_end",
                                                               "toe_end_L",
                                                               "toe_end_R",
                                                               "prop_R",
                                                               "thumb1_L",
                                                               "thumb1_R",
                                                               "index1_L",
                                                               "index1_R",
                                                               "middle1_L",
                                                               "middle1_R",
                                                               "ring1_L",
                                                               "ring1_R",
                                                               "pinky1_L",
                                                               "pinky1_R",
                                                               "thumb2_L",
                                                               "thumb2_R",
                                                               "index2_L",
                                                               "index2_R",
                                                               "middle2_L",
                                                               "middle2_R",
                                                               "ring2_L",
                                                               "ring2_R",
                                                               "pinky2_L",
                                                               "pinky2_R",
                                                               "thumb3_L",
                                                               "thumb3_R",
                                                               "index3_L",
                                                               "index3_R",
                                                               "middle3_L",
                                                               "middle3_R",
                                                               "ring3_L",
                                                               "ring3_R",
                                                               "pinky3_L",
                                                               "pinky3_R"};

static int find_spec(const specs *s, const char *name) {
    for (int i = 0; i < s->n; i++) {
        if (!strcmp(s->j[i].name, name)) {
            return i;
        }
    }
    return -1;
}

/* Keeps the first `n` joints of keep_order, in depth-first order. */
static void keep_first(specs *s, int n) {
    int map[BENCH_CHARACTER_JOINTS];
    bool keep[BENCH_CHARACTER_JOINTS] = {false};
    for (int k = 0; k < n; k++) {
        keep[find_spec(s, keep_order[k])] = true;
    }
    int m = 0;
    for (int i = 0; i < s->n; i++) {
        map[i] = keep[i] ? m : -1;
        if (keep[i]) {
            jspec j = s->j[i];
            j.parent = j.parent >= 0 ? map[j.parent] : -1;
            s->j[m++] = j;
        }
    }
    s->n = m;
}

/* Chains of up to CHAIN_LENGTH joints hanging from the head, spine3 and hips. */
static void add_chains(specs *s, int total) {
    static const char *const anchors[3] = {"head", "spine3", "hips"};
    for (int c = 0; s->n < total; c++) {
        const int anchor = find_spec(s, anchors[c % 3]);
        const double lateral = 0.025 * (double)((c / 3) % 9 - 4);
        v3 p = vadd(s->j[anchor].head, V(lateral, -0.02, -0.09 - 0.004 * (double)(c / 27)));
        int parent = anchor;
        for (int k = 0; k < CHAIN_LENGTH && s->n < total; k++) {
            v3 q = vadd(p, V(0.0, -0.055, -0.012));
            char nm[32];
            snprintf(nm, sizeof nm, "chain%d_%d", c, k);
            parent = add(s, nm, parent, p, q, G(p, q), 0.012, true);
            s->j[parent].chain_segment = k;
            s->j[parent].phase_index = parent;
            p = q;
        }
    }
}

static void build_skeleton(specs *s) {
    for (int i = 0; i < s->n; i++) {
        jspec *j = &s->j[i];
        v3 y = vnorm(vsub(j->tail, j->head));
        v3 ref = fabs(y.z) < 0.9 ? V(0.0, 0.0, 1.0) : V(1.0, 0.0, 0.0);
        v3 x = vnorm(vcross(y, ref));
        v3 z = vcross(x, y);
        j->wrot_design = qbasis(x, y, z);
    }
    /* Local rest TRS rounded to float; values within 1e-9 of zero are stored as 0. */
    for (int i = 0; i < s->n; i++) {
        jspec *j = &s->j[i];
        q4 rot;
        v3 tr;
        if (j->parent < 0) {
            rot = j->wrot_design;
            tr = j->head;
        } else {
            const jspec *p = &s->j[j->parent];
            rot = qmul(qconj(p->wrot_design), j->wrot_design);
            tr = qrotate(qconj(p->wrot_design), vsub(j->head, p->head));
        }
        q4 r = qf32(rot);
        double *rc[4] = {&r.x, &r.y, &r.z, &r.w};
        for (int c = 0; c < 4; c++) {
            if (fabs(*rc[c]) < 1e-9) {
                *rc[c] = 0.0;
            }
        }
        j->rest_r = r;
        double t[3] = {tr.x, tr.y, tr.z};
        for (int c = 0; c < 3; c++) {
            t[c] = fabs(t[c]) < 1e-9 ? 0.0 : f32(t[c]);
        }
        j->rest_t = V(t[0], t[1], t[2]);
    }
    /* World rest from the stored locals (double), then inverse binds [R^T | -R^T t]. */
    for (int i = 0; i < s->n; i++) {
        jspec *j = &s->j[i];
        if (j->parent < 0) {
            j->wrot = qnorm(j->rest_r);
            j->wpos = j->rest_t;
        } else {
            const jspec *p = &s->j[j->parent];
            j->wrot = qnorm(qmul(p->wrot, j->rest_r));
            j->wpos = vadd(p->wpos, qrotate(p->wrot, j->rest_t));
        }
        const double x = j->wrot.x, y = j->wrot.y, z = j->wrot.z, w = j->wrot.w;
        const double R[3][3] = {
            {1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)},
            {2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)},
            {2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)}};
        const double t[3] = {j->wpos.x, j->wpos.y, j->wpos.z};
        double Rt[3][3], it[3];
        for (int r = 0; r < 3; r++) {
            for (int c = 0; c < 3; c++) {
                Rt[r][c] = R[c][r];
            }
        }
        for (int r = 0; r < 3; r++) {
            it[r] = -(Rt[r][0] * t[0] + Rt[r][1] * t[1] + Rt[r][2] * t[2]);
        }
        for (int c = 0; c < 3; c++) {
            j->ibm[c * 4 + 0] = (float)Rt[0][c];
            j->ibm[c * 4 + 1] = (float)Rt[1][c];
            j->ibm[c * 4 + 2] = (float)Rt[2][c];
            j->ibm[c * 4 + 3] = 0.0f;
        }
        j->ibm[12] = (float)it[0];
        j->ibm[13] = (float)it[1];
        j->ibm[14] = (float)it[2];
        j->ibm[15] = 1.0f;
    }
}

/* ---- motion -------------------------------------------------------------------------------- */

static double joint_phase(int i) { return 2.0 * PI * fmod(0.6180339887498949 * (i + 1), 1.0); }

/* thumb1, index2, ...: a finger name and one segment digit. */
static bool is_finger(const char *base) {
    static const char *const fingers[5] = {"thumb", "index", "middle", "ring", "pinky"};
    const size_t bl = strlen(base);
    for (int f = 0; f < 5; f++) {
        if (bl == strlen(fingers[f]) + 1 && !strncmp(base, fingers[f], bl - 1)) {
            return true;
        }
    }
    return false;
}

static bool ends_with(const char *s, const char *suffix) {
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && !strcmp(s + a - b, suffix);
}

enum { CLIP_WALK, CLIP_RUN, CLIP_WAVE, CLIP_WALK_CUBIC };

/* The rotation delta (radians about the parent-carried rest world axes, Rx*Ry*Rz) of joint j
 * at cycle phase p; false when the clip does not animate the joint. Integer harmonics of p,
 * so every motion loops. Amplitudes are plausible, not captured. */
static bool motion(int clip, const jspec *j, double p, v3 *out) {
    const char *name = j->name;
    const double ph = joint_phase(j->phase_index);
    if (clip == CLIP_WAVE) {
        if (!strcmp(name, "shoulder_R")) {
            *out = V(0.0, 0.02 * sin(p), -0.15 - 0.03 * sin(p));
        } else if (!strcmp(name, "upper_arm_R")) {
            *out = V(0.05 * sin(p), -0.10, -0.55 + 0.05 * sin(p + 0.4));
        } else if (!strcmp(name, "upper_arm_twist_R")) {
            *out = V(0.0, 0.10 * sin(2 * p), 0.0);
        } else if (!strcmp(name, "lower_arm_R")) {
            *out = V(0.0, 0.15, -1.25 + 0.35 * sin(4 * p));
        } else if (!strcmp(name, "lower_arm_twist_R")) {
            *out = V(0.0, 0.12 * sin(4 * p + 0.5), 0.0);
        } else if (!strcmp(name, "hand_R")) {
            *out = V(0.05 * sin(2 * p), 0.0, 0.20 * sin(4 * p + 0.7));
        } else {
            return false;
        }
        return true;
    }
    const bool run = clip == CLIP_RUN;
    if (j->chain_segment >= 0) {
        const double sg = (double)j->chain_segment;
        *out = V((run ? 0.12 : 0.06) * sin(p + 0.5 * sg + ph), 0.0, 0.04 * sin(p + ph));
        return true;
    }
    const double side = ends_with(name, "_L") ? 1.0 : ends_with(name, "_R") ? -1.0 : 0.0;
    const double k = run ? 1.6 : 1.0;
    const double leg = p + (side > 0 ? 0.0 : PI); /* left leg leads */
    const double arm = p + (side > 0 ? PI : 0.0); /* arms oppose the legs */
    char base[32];
    snprintf(base, sizeof base, "%s", name);
    if (side != 0) {
        base[strlen(base) - 2] = 0;
    }
    const size_t bl = strlen(base);
    if (!strcmp(base, "hips")) {
        *out =
            V(0.03 * k * sin(2 * p) + (run ? 0.08 : 0.0), 0.08 * k * sin(p), 0.04 * sin(p + 0.5));
    } else if (!strcmp(base, "spine") || !strcmp(base, "spine1") || !strcmp(base, "spine2") ||
               !strcmp(base, "spine3")) {
        const int n = base[bl - 1] >= '0' && base[bl - 1] <= '9' ? base[bl - 1] - '0' : 0;
        *out = V((run ? 0.04 : 0.0) + 0.02 * sin(2 * p + 0.3 * n), -0.03 * k * sin(p),
                 0.015 * sin(p + n));
    } else if (!strcmp(base, "neck") || !strcmp(base, "neck1") || !strcmp(base, "head")) {
        *out = V(-(run && !strcmp(base, "head") ? 0.05 : 0.0) + 0.02 * sin(2 * p + 1.0),
                 0.02 * sin(p + 0.3), 0.01 * sin(p + ph));
    } else if (!strcmp(base, "jaw")) {
        *out = V(0.04 + 0.02 * sin(2 * p + ph), 0.0, 0.0);
    } else if (!strcmp(base, "eye")) {
        *out = V(0.02 * sin(2 * p + ph), 0.06 * sin(p + ph), 0.0);
    } else if (!strcmp(base, "upper_leg")) {
        *out = V(-(run ? 0.30 : 0.12) - 0.42 * k * sin(leg), 0.05 * sin(leg),
                 side * (0.03 + 0.02 * cos(leg)));
    } else if (!strcmp(base, "upper_leg_twist")) {
        *out = V(0.0, 0.05 * sin(leg), 0.0);
    } else if (!strcmp(base, "lower_leg")) {
        *out = V((run ? 0.35 : 0.15) + (run ? 0.9 : 0.45) * (0.5 + 0.5 * sin(leg - 0.8)) +
                     0.08 * sin(2 * leg),
                 0.0, 0.0);
    } else if (!strcmp(base, "foot")) {
        *out = V(0.22 * k * sin(leg + 1.2), 0.03 * sin(leg), 0.0);
    } else if (!strcmp(base, "toe")) {
        *out = V(-0.1 - 0.1 * sin(leg + 2.0), 0.0, 0.0);
    } else if (!strcmp(base, "shoulder")) {
        *out = V(0.03 * k * sin(arm), 0.0, side * (-0.05 + 0.02 * sin(arm)));
    } else if (!strcmp(base, "upper_arm")) {
        *out = V(-0.35 * k * sin(arm), side * 0.05, -side * 1.25);
    } else if (!strcmp(base, "upper_arm_twist") || !strcmp(base, "lower_arm_twist")) {
        *out = V(0.0, 0.08 * sin(arm + ph), 0.0);
    } else if (!strcmp(base, "lower_arm")) {
        *out = V(0.0, -side * ((run ? 1.35 : 0.3) + 0.15 * k * sin(arm)), 0.0);
    } else if (!strcmp(base, "hand")) {
        *out = V(0.05 * sin(arm), 0.0, side * 0.1 * sin(arm + 0.5));
    } else if (is_finger(base)) {
        const int seg = base[bl - 1] - '0';
        const double curl = (run ? 0.35 : 0.2) + 0.08 * seg + 0.1 * sin(arm + 0.3 * seg + ph);
        *out =
            !strncmp(base, "thumb", 5) ? V(0.0, side * 0.5 * curl, 0.0) : V(0.0, 0.0, -side * curl);
    } else {
        /* head_end, toe_end_*, prop_R: a tiny motion so every joint has a live track. */
        *out = V(0.01 * sin(p + ph), 0.01 * sin(2 * p + ph), 0.0);
    }
    return true;
}

static uint32_t key_count(double duration) { return (uint32_t)iround(duration * FPS) + 1; }

/* n keys over one loop; key n-1 is key 0. */
static void rotation_keys(const jspec *j, int clip, uint32_t n, float *out) {
    const q4 W = j->wrot;
    q4 prev = {0, 0, 0, 1};
    for (uint32_t k = 0; k + 1 < n; k++) {
        const double p = 2.0 * PI * k / (n - 1);
        v3 d;
        motion(clip, j, p, &d);
        q4 q = qnorm(qmul(j->rest_r, qmul(qconj(W), qmul(qeuler(d), W))));
        if (k > 0 ? qdot(q, prev) < 0 : q.w < 0) {
            q = qneg(q);
        }
        prev = q;
        q4 f = qf32(q);
        out[k * 4 + 0] = (float)f.x;
        out[k * 4 + 1] = (float)f.y;
        out[k * 4 + 2] = (float)f.z;
        out[k * 4 + 3] = (float)f.w;
    }
    memcpy(out + (n - 1) * 4, out, 4 * sizeof(float));
}

static void hips_translation_keys(const jspec *hips, int clip, uint32_t n, float *out) {
    const bool run = clip == CLIP_RUN;
    for (uint32_t k = 0; k + 1 < n; k++) {
        const double p = 2.0 * PI * k / (n - 1);
        v3 off =
            V((run ? 0.015 : 0.025) * sin(p),
              (run ? -0.03 : 0.0) + (run ? 0.045 : 0.02) * cos(2 * p), 0.01 * sin(2 * p + 0.5));
        v3 t = vadd(hips->rest_t, off);
        out[k * 3 + 0] = (float)t.x;
        out[k * 3 + 1] = (float)t.y;
        out[k * 3 + 2] = (float)t.z;
    }
    memcpy(out + (n - 1) * 3, out, 3 * sizeof(float));
}

/* ---- mesh ---------------------------------------------------------------------------------- */

typedef struct capsule {
    int radial, hemi, body, rings;
} capsule;

static capsule capsule_counts(const jspec *j, double edge) {
    capsule c;
    double length = vlen(vsub(j->gb, j->ga));
    long radial = iround(2 * PI * j->gr / edge), hemi = iround(0.5 * PI * j->gr / edge);
    c.radial = radial > 6 ? (int)radial : 6;
    c.hemi = hemi > 2 ? (int)hemi : 2;
    long body = iround(length / edge);
    c.body = length > 1e-9 ? (body > 1 ? (int)body : 1) : 0;
    c.rings = 2 * (c.hemi - 1) + (c.body ? c.body + 1 : 1);
    return c;
}

static double mesh_vertex_count(const specs *s, double edge) {
    double n = 0;
    for (int i = 0; i < s->n; i++) {
        if (s->j[i].has_geo) {
            capsule c = capsule_counts(&s->j[i], edge);
            n += (double)c.rings * c.radial + 2;
        }
    }
    return n;
}

/* The capsule edge length whose vertex count is nearest `target` (geometric bisection). */
static double choose_edge(const specs *s, double target) {
    double lo = 0.0005, hi = 0.5, best = 0, best_n = -1;
    for (int it = 0; it < 60; it++) {
        double mid = sqrt(lo * hi);
        double n = mesh_vertex_count(s, mid);
        if (best_n < 0 || fabs(n - target) < fabs(best_n - target)) {
            best = mid;
            best_n = n;
        }
        if (n > target) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    return best;
}

typedef struct seg {
    v3 a, ab;
    double ab2;
} seg;

static double seg_dist2(v3 p, const seg *s) {
    v3 ap = vsub(p, s->a);
    double t = s->ab2 > 0 ? vdot(ap, s->ab) / s->ab2 : 0.0;
    t = t < 0.0 ? 0.0 : (t > 1.0 ? 1.0 : t);
    double dx = ap.x - s->ab.x * t, dy = ap.y - s->ab.y * t, dz = ap.z - s->ab.z * t;
    return dx * dx + dy * dy + dz * dz;
}

typedef struct skin_ctx {
    const specs *s;
    seg *segs;
    int *cand; /* per joint: candidates at cand + cand_first[j], cand_count[j] */
    int *cand_first, *cand_count;
} skin_ctx;

/* (d2, k) pairs compare as tuples. */
static bool pair_less(double da, int ka, double db, int kb) {
    return da < db || (da == db && ka < kb);
}

/* The 4 nearest deforming bones among the owner's candidates (the owner itself always among
 * them), weights ~ 1/d^4 quantized to k/65536 (every k >= 1, sum exactly 65536). */
static void vertex_weights(const skin_ctx *sc, v3 p, int owner, uint16_t *joints, float *weights) {
    double bd[5];
    int bk[5], m = 0;
    const int *c = sc->cand + sc->cand_first[owner];
    for (int i = 0; i < sc->cand_count[owner]; i++) {
        const int k = c[i];
        const double d2 = seg_dist2(p, &sc->segs[k]);
        /* Insert into the sorted best-4 (a 5th slot takes the overflow). */
        int at = m;
        while (at > 0 && pair_less(d2, k, bd[at - 1], bk[at - 1])) {
            bd[at] = bd[at - 1];
            bk[at] = bk[at - 1];
            at--;
        }
        bd[at] = d2;
        bk[at] = k;
        m = m < 4 ? m + 1 : 4;
    }
    bool has_owner = false;
    for (int i = 0; i < m; i++) {
        has_owner |= bk[i] == owner;
    }
    if (!has_owner) {
        for (int q = m < 4 ? m : 3; q > 0; q--) {
            bd[q] = bd[q - 1];
            bk[q] = bk[q - 1];
        }
        bd[0] = seg_dist2(p, &sc->segs[owner]);
        bk[0] = owner;
        m = m < 4 ? m + 1 : 4;
    }
    double raw[4], tot = 0;
    for (int i = 0; i < m; i++) {
        raw[i] = 1.0 / pow(bd[i] > 1e-8 ? bd[i] : 1e-8, 2);
        tot += raw[i];
    }
    long q[4], sum = 0;
    int imax = 0;
    for (int i = 0; i < m; i++) {
        q[i] = iround(WEIGHT_QUANTUM * raw[i] / tot);
        q[i] = q[i] > 1 ? q[i] : 1;
        sum += q[i];
        if (q[i] > q[imax]) {
            imax = i;
        }
    }
    q[imax] += WEIGHT_QUANTUM - sum;
    for (int i = 0; i < 4; i++) {
        joints[i] = (uint16_t)(i < m ? bk[i] : bk[0]);
        weights[i] = i < m ? (float)((double)q[i] / WEIGHT_QUANTUM) : 0.0f;
    }
}

typedef struct mesh_out {
    float *positions, *normals, *weights;
    uint16_t *joints;
    uint32_t *indices;
    uint32_t vertex_count, triangle_count;
} mesh_out;

static void put_vertex(const skin_ctx *sc, mesh_out *m, uint32_t v, v3 pos, v3 nrm, int owner) {
    m->positions[v * 3 + 0] = (float)pos.x;
    m->positions[v * 3 + 1] = (float)pos.y;
    m->positions[v * 3 + 2] = (float)pos.z;
    v3 n = vnorm(nrm);
    m->normals[v * 3 + 0] = (float)n.x;
    m->normals[v * 3 + 1] = (float)n.y;
    m->normals[v * 3 + 2] = (float)n.z;
    vertex_weights(sc, pos, owner, m->joints + v * 4, m->weights + v * 4);
}

static void build_capsule(const skin_ctx *sc, int owner, double edge, mesh_out *m) {
    const jspec *j = &sc->s->j[owner];
    const capsule cc = capsule_counts(j, edge);
    const v3 a = j->ga, b = j->gb;
    const double r = j->gr;
    v3 axis_v = vsub(b, a);
    double length = vlen(axis_v);
    v3 axis = length > 1e-9 ? vnorm(axis_v) : V(0.0, 1.0, 0.0);
    v3 ref = fabs(axis.z) < 0.9 ? V(0.0, 0.0, 1.0) : V(1.0, 0.0, 0.0);
    v3 u = vnorm(vcross(axis, ref));
    v3 w = vcross(axis, u);
    const uint32_t base = m->vertex_count;
    uint32_t v = base;
    put_vertex(sc, m, v++, vsub(a, vscale(axis, r)), vscale(axis, -1.0), owner);
    /* Profile rings: (center along the axis, cos(lat), sin(lat)). */
    for (int ri = 0; ri < cc.rings; ri++) {
        double c, cl, sl;
        if (ri < cc.hemi - 1) {
            double lat = -0.5 * PI + 0.5 * PI * (ri + 1) / cc.hemi;
            c = 0.0, cl = cos(lat), sl = sin(lat);
        } else if (ri < cc.hemi - 1 + (cc.body ? cc.body + 1 : 1)) {
            int s = ri - (cc.hemi - 1);
            c = cc.body ? length * s / cc.body : 0.0, cl = 1.0, sl = 0.0;
        } else {
            int h = ri - (cc.hemi - 1) - (cc.body ? cc.body + 1 : 1) + 1;
            double lat = 0.5 * PI * h / cc.hemi;
            c = length, cl = cos(lat), sl = sin(lat);
        }
        v3 center = vadd(a, vscale(axis, c));
        for (int s = 0; s < cc.radial; s++) {
            double th = 2.0 * PI * s / cc.radial;
            v3 rad = vadd(vscale(u, cos(th)), vscale(w, sin(th)));
            v3 n = vadd(vscale(rad, cl), vscale(axis, sl));
            put_vertex(sc, m, v++, vadd(center, vscale(n, r)), n, owner);
        }
    }
    put_vertex(sc, m, v++, vadd(b, vscale(axis, r)), axis, owner);
    m->vertex_count = v;
    const uint32_t bottom = base, top = base + 1 + (uint32_t)(cc.rings * cc.radial);
    const uint32_t R = (uint32_t)cc.radial;
#define RING(ri, s) (base + 1 + (uint32_t)(ri)*R + ((uint32_t)(s) % R))
    uint32_t *t = m->indices + (size_t)m->triangle_count * 3;
    for (uint32_t s = 0; s < R; s++) { /* bottom fan, counter-clockwise seen from outside */
        *t++ = bottom, *t++ = RING(0, s + 1), *t++ = RING(0, s);
    }
    for (int ri = 0; ri + 1 < cc.rings; ri++) {
        for (uint32_t s = 0; s < R; s++) {
            uint32_t a0 = RING(ri, s), a1 = RING(ri, s + 1), b0 = RING(ri + 1, s),
                     b1 = RING(ri + 1, s + 1);
            *t++ = a0, *t++ = a1, *t++ = b1;
            *t++ = a0, *t++ = b1, *t++ = b0;
        }
    }
    for (uint32_t s = 0; s < R; s++) {
        *t++ = top, *t++ = RING(cc.rings - 1, s), *t++ = RING(cc.rings - 1, s + 1);
    }
#undef RING
    m->triangle_count += 2 * R * (uint32_t)cc.rings;
}

/* ---- the character ------------------------------------------------------------------------ */

typedef struct priv {
    void *blocks[64];
    int block_count;
    oroya_allocator a;
} priv;

static void *palloc(priv *p, size_t size) {
    if (p->block_count == (int)(sizeof p->blocks / sizeof p->blocks[0])) {
        return NULL;
    }
    void *m = p->a.alloc(size ? size : 1, 16, p->a.user);
    if (m) {
        memset(m, 0, size);
        p->blocks[p->block_count++] = m;
    }
    return m;
}

static void *default_alloc(size_t size, size_t align, void *user) {
    (void)user;
    size_t rounded = (size + align - 1) & ~(align - 1);
    return aligned_alloc(align, rounded);
}
static void default_free(void *p, void *user) {
    (void)user;
    free(p);
}

static oroya_result fail(oroya_error *err, oroya_result r, const char *msg) {
    if (err) {
        err->result = r;
        snprintf(err->message, sizeof err->message, "bench character: %s", msg);
    }
    return r;
}

void bench_character_free(bench_character *c) {
    if (!c) {
        return;
    }
    for (int i = 0; i < BENCH_CHARACTER_CLIPS; i++) {
        oroya_clip_destroy(c->clips[i]);
    }
    oroya_skin_destroy(c->skin);
    oroya_skeleton_destroy(c->skeleton);
    oroya_scene_destroy(c->scene);
    oroya_geometry_destroy(c->geometry);
    oroya_pose_skeleton_destroy(c->pose_skeleton);
    priv *p = c->priv_;
    if (p) {
        const oroya_allocator a = p->a;
        for (int i = p->block_count - 1; i >= 0; i--) {
            a.free(p->blocks[i], a.user);
        }
        a.free(p, a.user);
    }
    memset(c, 0, sizeof *c);
}

const oroya_clip *bench_character_clip(const bench_character *c, const char *name) {
    for (int i = 0; c && i < BENCH_CHARACTER_CLIPS; i++) {
        if (c->clips[i] && !strcmp(c->clips[i]->name, name)) {
            return c->clips[i];
        }
    }
    return NULL;
}

static oroya_result make_clips(bench_character *c, priv *pv, const specs *s, oroya_error *err) {
    static const struct {
        const char *name;
        double duration;
        int motion;
        bool cubic;
    } table[BENCH_CHARACTER_CLIPS] = {{"walk", 1.2, CLIP_WALK, false},
                                      {"run", 0.7, CLIP_RUN, false},
                                      {"wave", 2.0, CLIP_WAVE, false},
                                      {"walk_cubic", 1.2, CLIP_WALK, true}};
    for (int ci = 0; ci < BENCH_CHARACTER_CLIPS; ci++) {
        const uint32_t n = key_count(table[ci].duration);
        float *times = palloc(pv, n * sizeof(float));
        oroya_track *tracks = palloc(pv, ((size_t)s->n + 1) * sizeof *tracks);
        float *values = palloc(pv, ((size_t)s->n * 12 + 3) * n * sizeof(float));
        float *keys = palloc(pv, (size_t)n * 4 * sizeof(float));
        if (!times || !tracks || !values || !keys) {
            return fail(err, OROYA_ERR_OUT_OF_MEMORY, "out of memory");
        }
        for (uint32_t k = 0; k < n; k++) {
            times[k] = (float)((double)k / FPS);
        }
        uint32_t tc = 0;
        float *vp = values;
        if (table[ci].motion != CLIP_WAVE) {
            hips_translation_keys(&s->j[0], table[ci].motion, n, vp);
            tracks[tc++] = (oroya_track){.target = c->names[0],
                                         .property = OROYA_PROPERTY_TRANSLATION,
                                         .interpolation = OROYA_INTERP_LINEAR,
                                         .components = 3,
                                         .key_count = n,
                                         .times = times,
                                         .values = vp};
            vp += 3 * n;
        }
        for (int i = 0; i < s->n; i++) {
            v3 d;
            if (!motion(table[ci].motion, &s->j[i], 0.0, &d)) {
                continue;
            }
            rotation_keys(&s->j[i], table[ci].motion, n, keys);
            oroya_track t = {.target = c->names[i],
                             .property = OROYA_PROPERTY_ROTATION,
                             .interpolation = OROYA_INTERP_LINEAR,
                             .components = 4,
                             .key_count = n,
                             .times = times,
                             .values = vp};
            if (table[ci].cubic) {
                /* Central differences over the loop (the last key repeats the first). */
                const uint32_t m = n - 1;
                const double dt = 1.0 / FPS;
                for (uint32_t k = 0; k < n; k++) {
                    const uint32_t kk = k % m, a = (kk + m - 1) % m, b = (kk + 1) % m;
                    for (uint32_t q = 0; q < 4; q++) {
                        float tan =
                            (float)(((double)keys[b * 4 + q] - keys[a * 4 + q]) / (2.0 * dt));
                        vp[k * 12 + q] = tan;
                        vp[k * 12 + 4 + q] = keys[k * 4 + q];
                        vp[k * 12 + 8 + q] = tan;
                    }
                }
                t.interpolation = OROYA_INTERP_CUBICSPLINE;
                vp += 12 * n;
            } else {
                memcpy(vp, keys, (size_t)n * 4 * sizeof(float));
                vp += 4 * n;
            }
            tracks[tc++] = t;
        }
        if (tc == 0) {
            /* No right-arm joint left: the wave moves the last joint. */
            int last = s->n - 1;
            rotation_keys(&s->j[last], CLIP_WALK, n, vp);
            tracks[tc++] = (oroya_track){.target = c->names[last],
                                         .property = OROYA_PROPERTY_ROTATION,
                                         .interpolation = OROYA_INTERP_LINEAR,
                                         .components = 4,
                                         .key_count = n,
                                         .times = times,
                                         .values = vp};
        }
        oroya_clip_desc cd = {
            .name = table[ci].name, .tracks = tracks, .track_count = tc, .allocator = pv->a};
        oroya_result r = oroya_clip_create(&cd, &c->clips[ci], err);
        if (r != OROYA_OK) {
            return r;
        }
    }
    return OROYA_OK;
}

static oroya_result make_body(bench_character *c, priv *pv, const specs *s, uint32_t target,
                              mesh_out *m, oroya_error *err) {
    const double edge = choose_edge(s, (double)target);
    uint32_t nv = 0, nt = 0;
    for (int i = 0; i < s->n; i++) {
        if (s->j[i].has_geo) {
            capsule cc = capsule_counts(&s->j[i], edge);
            nv += (uint32_t)(cc.rings * cc.radial + 2);
            nt += 2u * (uint32_t)(cc.radial * cc.rings);
        }
    }
    if (nv == 0) {
        return fail(err, OROYA_ERR_INVALID_ARGUMENT, "no joint has a capsule");
    }
    /* Skin candidates: deforming joints within 3 hierarchy hops (eyes only for their own
     * capsule), in index order. Hops by breadth-first search over parent and child links. */
    skin_ctx sc = {.s = s};
    sc.segs = palloc(pv, (size_t)s->n * sizeof *sc.segs);
    sc.cand_first = palloc(pv, (size_t)s->n * sizeof(int));
    sc.cand_count = palloc(pv, (size_t)s->n * sizeof(int));
    int *dist = palloc(pv, (size_t)s->n * sizeof(int));
    int *queue = palloc(pv, (size_t)s->n * sizeof(int));
    if (!sc.segs || !sc.cand_first || !sc.cand_count || !dist || !queue) {
        return fail(err, OROYA_ERR_OUT_OF_MEMORY, "out of memory");
    }
    size_t total = 0;
    for (int pass = 0; pass < 2; pass++) {
        for (int i = 0; i < s->n; i++) {
            if (!s->j[i].has_geo) {
                continue;
            }
            for (int k = 0; k < s->n; k++) {
                dist[k] = -1;
            }
            int head = 0, tail = 0;
            dist[i] = 0;
            queue[tail++] = i;
            while (head < tail) {
                const int q = queue[head++];
                if (dist[q] == 3) {
                    continue;
                }
                const jspec *jq = &s->j[q];
                for (int ch = jq->first_child; ch >= 0; ch = s->j[ch].next_sibling) {
                    if (dist[ch] < 0) {
                        dist[ch] = dist[q] + 1;
                        queue[tail++] = ch;
                    }
                }
                if (jq->parent >= 0 && dist[jq->parent] < 0) {
                    dist[jq->parent] = dist[q] + 1;
                    queue[tail++] = jq->parent;
                }
            }
            int count = 0;
            for (int k = 0; k < s->n; k++) {
                if (dist[k] >= 0 && s->j[k].deform &&
                    (k == i || strncmp(s->j[k].name, "eye_", 4) != 0)) {
                    if (pass == 1) {
                        sc.cand[sc.cand_first[i] + count] = k;
                    }
                    count++;
                }
            }
            if (pass == 0) {
                sc.cand_first[i] = (int)total;
                sc.cand_count[i] = count;
                total += (size_t)count;
            }
        }
        if (pass == 0) {
            sc.cand = palloc(pv, (total ? total : 1) * sizeof(int));
            if (!sc.cand) {
                return fail(err, OROYA_ERR_OUT_OF_MEMORY, "out of memory");
            }
        }
    }
    for (int k = 0; k < s->n; k++) {
        v3 ab = vsub(s->j[k].tail, s->j[k].wpos);
        sc.segs[k] = (seg){s->j[k].wpos, ab, vdot(ab, ab)};
    }
    m->positions = palloc(pv, (size_t)nv * 3 * sizeof(float));
    m->normals = palloc(pv, (size_t)nv * 3 * sizeof(float));
    m->weights = palloc(pv, (size_t)nv * 4 * sizeof(float));
    m->joints = palloc(pv, (size_t)nv * 4 * sizeof(uint16_t));
    m->indices = palloc(pv, (size_t)nt * 3 * sizeof(uint32_t));
    if (!m->positions || !m->normals || !m->weights || !m->joints || !m->indices) {
        return fail(err, OROYA_ERR_OUT_OF_MEMORY, "out of memory");
    }
    for (int i = 0; i < s->n; i++) {
        if (s->j[i].has_geo) {
            build_capsule(&sc, i, edge, m);
        }
    }
    (void)c;
    return OROYA_OK;
}

oroya_result bench_character_create(const bench_character_desc *desc, bench_character *out,
                                    oroya_error *err) {
    if (!out) {
        return fail(err, OROYA_ERR_INVALID_ARGUMENT, "out is NULL");
    }
    memset(out, 0, sizeof *out);
    bench_character_desc d = desc ? *desc : (bench_character_desc){0};
    const int n = d.joint_count ? (int)d.joint_count : BENCH_CHARACTER_JOINTS;
    if (d.joint_count > BENCH_CHARACTER_MAX_JOINTS) {
        return fail(err, OROYA_ERR_INVALID_ARGUMENT, "joint_count above 4096");
    }
    if (d.vertex_count > BENCH_CHARACTER_MAX_VERTICES) {
        return fail(err, OROYA_ERR_INVALID_ARGUMENT, "vertex_count above 8000000");
    }
    if (!d.allocator.alloc || !d.allocator.free) {
        d.allocator = (oroya_allocator){default_alloc, default_free, NULL};
    }
    priv *pv = d.allocator.alloc(sizeof *pv, 16, d.allocator.user);
    if (!pv) {
        return fail(err, OROYA_ERR_OUT_OF_MEMORY, "out of memory");
    }
    memset(pv, 0, sizeof *pv);
    pv->a = d.allocator;
    out->priv_ = pv;
    out->allocator_ = d.allocator;
    oroya_result r = OROYA_OK;

    specs s = {.cap = n > BENCH_CHARACTER_JOINTS ? n : BENCH_CHARACTER_JOINTS};
    s.j = palloc(pv, (size_t)s.cap * sizeof *s.j);
    if (!s.j) {
        r = fail(err, OROYA_ERR_OUT_OF_MEMORY, "out of memory");
        goto done;
    }
    humanoid67(&s);
    if (n < BENCH_CHARACTER_JOINTS) {
        keep_first(&s, n);
    } else {
        add_chains(&s, n);
    }
    for (int i = 0; i < s.n; i++) {
        s.j[i].first_child = s.j[i].next_sibling = -1;
    }
    for (int i = s.n - 1; i > 0; i--) { /* children in index order */
        jspec *p = &s.j[s.j[i].parent];
        s.j[i].next_sibling = p->first_child;
        p->first_child = i;
    }
    build_skeleton(&s);

    /* Pose-layer arrays. */
    uint32_t *parents = palloc(pv, (size_t)n * sizeof *parents);
    oroya_transform *rest = palloc(pv, (size_t)n * sizeof *rest);
    oroya_mat4 *ibm = palloc(pv, (size_t)n * sizeof *ibm);
    const char **names = palloc(pv, (size_t)n * sizeof *names);
    char *name_buf = palloc(pv, (size_t)n * 32);
    oroya_node *nodes = palloc(pv, ((size_t)n + 1) * sizeof *nodes);
    if (!parents || !rest || !ibm || !names || !name_buf || !nodes) {
        r = fail(err, OROYA_ERR_OUT_OF_MEMORY, "out of memory");
        goto done;
    }
    for (int i = 0; i < n; i++) {
        const jspec *j = &s.j[i];
        parents[i] = j->parent < 0 ? UINT32_MAX : (uint32_t)j->parent;
        rest[i] = (oroya_transform){
            .translation = {(float)j->rest_t.x, (float)j->rest_t.y, (float)j->rest_t.z},
            .rotation = {(float)j->rest_r.x, (float)j->rest_r.y, (float)j->rest_r.z,
                         (float)j->rest_r.w},
            .scale = {1, 1, 1}};
        memcpy(ibm[i].m, j->ibm, sizeof j->ibm);
        memcpy(name_buf + (size_t)i * 32, j->name, 32);
        names[i] = name_buf + (size_t)i * 32;
    }
    out->joint_count = (uint32_t)n;
    out->parents = parents;
    out->rest = rest;
    out->inverse_bind = ibm;
    out->names = names;
    out->nodes = nodes;
    r = oroya_pose_skeleton_create(&(oroya_pose_skeleton_desc){.joint_count = (uint32_t)n,
                                                               .parents = parents,
                                                               .rest = rest,
                                                               .inverse_bind = ibm,
                                                               .names = names,
                                                               .allocator = d.allocator},
                                   &out->pose_skeleton, err);
    if (r != OROYA_OK) {
        goto done;
    }

    /* The scene: joints as bones, then the body. */
    r = oroya_scene_create(
        &(oroya_scene_desc){.capacity_hint = (uint32_t)n + 1, .allocator = d.allocator},
        &out->scene);
    if (r != OROYA_OK) {
        fail(err, r, "cannot create the scene");
        goto done;
    }
    for (int i = 0; i < n && r == OROYA_OK; i++) {
        oroya_node parent = parents[i] == UINT32_MAX ? (oroya_node){0} : nodes[parents[i]];
        r = oroya_scene_add_node(out->scene, names[i], parent, OROYA_NODE_BONE, &nodes[i]);
        if (r == OROYA_OK) {
            r = oroya_scene_set_transform(out->scene, nodes[i], &rest[i]);
        }
    }
    if (r == OROYA_OK) {
        r = oroya_scene_add_node(out->scene, "body", (oroya_node){0},
                                 d.vertex_count && !d.streams_only ? OROYA_NODE_SKINNED_MESH
                                                                   : OROYA_NODE_OBJECT,
                                 &nodes[n]);
    }
    if (r != OROYA_OK) {
        fail(err, r, "cannot build the scene");
        goto done;
    }
    r = oroya_skeleton_create(out->scene,
                              &(oroya_skeleton_desc){.bones = nodes,
                                                     .bone_count = (uint32_t)n,
                                                     .bone_inverses = ibm,
                                                     .allocator = d.allocator},
                              &out->skeleton, err);
    if (r != OROYA_OK) {
        goto done;
    }
    r = make_clips(out, pv, &s, err);
    if (r != OROYA_OK || d.vertex_count == 0) {
        goto done;
    }

    mesh_out m = {0};
    r = make_body(out, pv, &s, d.vertex_count, &m, err);
    if (r != OROYA_OK) {
        goto done;
    }
    out->vertex_count = m.vertex_count;
    out->triangle_count = m.triangle_count;
    if (d.streams_only) {
        out->positions = m.positions;
        out->normals = m.normals;
        out->joints = m.joints;
        out->weights = m.weights;
        goto done;
    }
    r = oroya_geometry_create(&(oroya_geometry_desc){.vertex_count = m.vertex_count,
                                                     .positions = m.positions,
                                                     .normals = m.normals,
                                                     .indices = m.indices,
                                                     .index_count = m.triangle_count * 3,
                                                     .joints = m.joints,
                                                     .weights = m.weights,
                                                     .allocator = d.allocator},
                              &out->geometry, err);
    if (r == OROYA_OK) {
        r = oroya_scene_set_mesh(out->scene, nodes[n], out->geometry, NULL);
    }
    if (r == OROYA_OK) {
        r = oroya_skin_create(&(oroya_skin_desc){.mesh = nodes[n],
                                                 .vertex_count = m.vertex_count,
                                                 .positions = m.positions,
                                                 .normals = m.normals,
                                                 .joints = m.joints,
                                                 .weights = m.weights,
                                                 .allocator = d.allocator},
                              &out->skin, err);
    }
    if (r == OROYA_OK) {
        const oroya_mat4 identity = {{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}};
        r = oroya_skin_bind(out->skin, out->scene, out->skeleton, &identity, err);
    }
    if (r == OROYA_OK) {
        r = oroya_scene_set_skin(out->scene, nodes[n], out->skin);
    }
    if (r != OROYA_OK) {
        if (err && err->result == OROYA_OK) {
            fail(err, r, "cannot build the body");
        }
        goto done;
    }
    out->positions = out->skin->positions;
    out->normals = out->skin->normals;
    out->joints = out->skin->joints;
    out->weights = out->skin->weights;
    /* The build arrays were copied by the geometry and the skin. */
    for (int i = 0; i < pv->block_count; i++) {
        void *b = pv->blocks[i];
        if (b == m.positions || b == m.normals || b == m.weights || b == m.joints ||
            b == m.indices) {
            pv->a.free(b, pv->a.user);
            pv->blocks[i--] = pv->blocks[--pv->block_count];
        }
    }

done:
    if (r != OROYA_OK) {
        bench_character_free(out);
    }
    return r;
}
