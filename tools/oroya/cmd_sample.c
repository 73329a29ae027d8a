/* oroya sample FILE --clip NAME (--time T | --fps F --frames N): samples one clip of a glTF
 * file and prints, per time, every node's local TRS (and morph weights) and every skin's
 * bone matrices, as JSON. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_util.h"
#include "oroya/gltf.h"

static void usage(FILE *f) {
    fprintf(
        f, "usage: oroya sample FILE --clip NAME (--time T | --fps F --frames N | --times T,T,..)\n"
           "                    [--world] [--allow-outside]\n\n"
           "Samples clip NAME (its glTF name, or animation_<index>) at clip time T seconds,\n"
           "at i / F for i = 0 .. N-1, or at each listed time, without looping (before the\n"
           "first key the first value holds, after the last key the last). Prints JSON, one\n"
           "frame per line:\n"
           "  {\"file\", \"clip\", \"duration\", \"frames\": [{\"time\", \"nodes\": {NAME:\n"
           "   {\"translation\", \"rotation\", \"scale\", \"weights\"?, \"world\"?}}, \"skins\":\n"
           "   {\"skin:J\": [16 floats per joint: jointWorld x inverseBindMatrix]}}]}\n"
           "Matrices are column-major. --world adds each node's world matrix.\n"
           "Node names: the glTF name when unique, else node_<index> (oroya info lists them).\n"
           "--allow-outside lets the file's buffers and images lie outside its folder (by\n"
           "default \"../x.bin\", absolute paths and links that lead out are refused).\n");
}

static bool parse_number(const char *s, double *out) {
    char *end = NULL;
    double v = strtod(s, &end);
    if (!s[0] || *end || !isfinite(v)) {
        return false;
    }
    *out = v;
    return true;
}

static void print_floats(const float *v, uint32_t n) {
    putchar('[');
    for (uint32_t i = 0; i < n; i++) {
        /* %.9g round-trips every float. JSON has no inf or NaN; sampling refuses them
         * (see apply), so null here only keeps the output JSON if one slips through. */
        if (isfinite(v[i])) {
            printf("%s%.9g", i ? "," : "", (double)v[i]);
        } else {
            printf("%snull", i ? "," : "");
        }
    }
    putchar(']');
}

static void print_string(const char *s) {
    putchar('"');
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') {
            printf("\\%c", c);
        } else if (c < 0x20 || c == 0x7f) {
            printf("\\u%04x", c);
        } else if (c == 0xc2 && (unsigned char)s[1] >= 0x80 && (unsigned char)s[1] <= 0x9f) {
            /* C1 controls, which a terminal would act on: escaped as in text output. */
            printf("\\u%04x", (unsigned char)s[1]);
            s++;
        } else if (c >= 0x80) {
            /* Names from files are checked UTF-8; the file name is whatever bytes the
             * shell gave. JSON text must be UTF-8: a bad byte becomes U+FFFD. */
            size_t k = oroya_utf8_sequence_length(s, strlen(s));
            if (k == 0) {
                printf("\\ufffd");
            } else {
                /* Invisible format characters (bidi overrides...) as JSON escapes. */
                cli_json_write(stdout, s, k);
                s += k - 1;
            }
        } else {
            putchar(c);
        }
    }
    putchar('"');
}

/* Track i of the clip writes into the node its target names (dense index), or nowhere. */
typedef struct binding {
    oroya_node node;
    uint32_t cursor;
} binding;

static bool all_finite(const float *v, uint32_t n) {
    for (uint32_t i = 0; i < n; i++) {
        if (!isfinite(v[i])) {
            return false;
        }
    }
    return true;
}

/* Samples every track at t into the scene and updates the world matrices. Returns the
 * index of a track whose value the scene refuses (not finite, or a matrix that overflows),
 * or -1; a refused value would leave the last frame's pose in the output. */
static int64_t apply(oroya_gltf_model *m, const oroya_clip *clip, binding *b, double t) {
    float v[4];
    for (uint32_t i = 0; i < clip->track_count; i++) {
        const oroya_track *tr = &clip->tracks[i];
        if (!b[i].node.id) {
            continue;
        }
        if (tr->property == OROYA_PROPERTY_WEIGHTS) {
            uint32_t n = 0;
            float *w = oroya_scene_weights(m->scene, b[i].node, &n);
            if (w && n == tr->components) {
                oroya_track_sample(tr, t, &b[i].cursor, NULL, w);
                if (!all_finite(w, n)) {
                    return i;
                }
            }
            continue;
        }
        oroya_transform x;
        oroya_scene_get_transform(m->scene, b[i].node, &x);
        oroya_track_sample(tr, t, &b[i].cursor, NULL, v);
        if (tr->property == OROYA_PROPERTY_TRANSLATION) {
            x.translation = (oroya_vec3){v[0], v[1], v[2]};
        } else if (tr->property == OROYA_PROPERTY_ROTATION) {
            x.rotation = (oroya_quat){v[0], v[1], v[2], v[3]};
        } else {
            x.scale = (oroya_vec3){v[0], v[1], v[2]};
        }
        if (oroya_scene_set_transform(m->scene, b[i].node, &x) != OROYA_OK) {
            return i;
        }
    }
    oroya_scene_update_world(m->scene);
    return -1;
}

static void print_frame(oroya_gltf_model *m, double t, float *bones, bool world, bool last) {
    printf("{\"time\":%.17g,\"nodes\":{", t);
    bool first = true;
    for (uint32_t i = 0; i < m->node_count; i++) {
        if (!m->nodes[i].id) {
            continue;
        }
        oroya_transform x;
        oroya_scene_get_transform(m->scene, m->nodes[i], &x);
        if (!first) {
            putchar(',');
        }
        first = false;
        print_string(m->node_names[i]);
        printf(":{\"translation\":");
        print_floats(&x.translation.x, 3);
        printf(",\"rotation\":");
        float q[4] = {x.rotation.x, x.rotation.y, x.rotation.z, x.rotation.w};
        print_floats(q, 4);
        printf(",\"scale\":");
        print_floats(&x.scale.x, 3);
        uint32_t n = 0;
        float *w = oroya_scene_weights(m->scene, m->nodes[i], &n);
        if (w && n) {
            printf(",\"weights\":");
            print_floats(w, n);
        }
        if (world) {
            oroya_mat4 wm;
            oroya_scene_get_world(m->scene, m->nodes[i], &wm);
            printf(",\"world\":");
            print_floats(wm.m, 16);
        }
        putchar('}');
    }
    printf("},\"skins\":{");
    for (uint32_t s = 0; s < m->skin_count; s++) {
        oroya_gltf_model_bone_matrices(m, s, bones);
        printf("%s\"skin:%u\":", s ? "," : "", s);
        print_floats(bones, m->skins[s].joint_count * 16);
    }
    printf("}}%s\n", last ? "" : ",");
}

/* Samples the clip at t into the scene and checks what a frame prints: 0 when every value is
 * finite, else 1 after naming the first that is not (a track, a world matrix with --world, a
 * bone matrix). */
static int check_frame(oroya_gltf_model *m, const oroya_clip *clip, binding *b, float *bones,
                       double t, bool world, const char *file) {
    int64_t bad = apply(m, clip, b, t);
    oroya_node bad_node;
    if (bad >= 0) {
        const oroya_track *tr = &clip->tracks[bad];
        fprintf(stderr,
                "oroya sample: %s: clip '%s' at time %.9g: track %lld (%s) gives a "
                "value that is not finite\n",
                cli_esc(file), cli_esc(clip->name), t, (long long)bad,
                tr->target ? cli_esc(tr->target) : "?");
        return 1;
    }
    if (world && oroya_scene_non_finite_count(m->scene, &bad_node)) {
        const char *name = oroya_scene_node_name(m->scene, bad_node);
        fprintf(stderr,
                "oroya sample: %s: clip '%s' at time %.9g: the world matrix of node "
                "'%s' is not finite (an overflow along its parents)\n",
                cli_esc(file), cli_esc(clip->name), t, name ? cli_esc(name) : "?");
        return 1;
    }
    int64_t bad_skin = -1, bad_joint = -1;
    for (uint32_t s = 0; s < m->skin_count && bad_skin < 0; s++) {
        if (oroya_gltf_model_bone_matrices(m, s, bones) == OROYA_OK) {
            continue;
        }
        bad_skin = s;
        for (uint32_t j = 0; j < m->skins[s].joint_count && bad_joint < 0; j++) {
            if (!all_finite(bones + (size_t)j * 16, 16)) {
                bad_joint = j;
            }
        }
    }
    if (bad_skin >= 0) {
        fprintf(stderr,
                "oroya sample: %s: clip '%s' at time %.9g: skin %lld joint %lld: the bone "
                "matrix (joint world x inverse bind matrix) is not finite\n",
                cli_esc(file), cli_esc(clip->name), t, (long long)bad_skin, (long long)bad_joint);
        return 1;
    }
    return 0;
}

int oroya_cmd_sample(int argc, char **argv) {
    const char *file = NULL, *clip_name = NULL;
    double time = 0.0, fps = 0.0, frames = 0.0;
    bool has_time = false, has_fps = false, has_frames = false, world = false;
    bool allow_outside = false;
    const char *times = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "--world")) {
            world = true;
        } else if (!strcmp(a, "--allow-outside")) {
            allow_outside = true;
        } else if (!strcmp(a, "--times") && v) {
            times = v;
            i++;
        } else if (!strcmp(a, "--clip") && v) {
            clip_name = v;
            i++;
        } else if (!strcmp(a, "--time") && v && parse_number(v, &time)) {
            has_time = true;
            i++;
        } else if (!strcmp(a, "--fps") && v && parse_number(v, &fps) && fps > 0) {
            has_fps = true;
            i++;
        } else if (!strcmp(a, "--frames") && v && parse_number(v, &frames) && frames >= 1 &&
                   frames <= 1e7 && frames == floor(frames)) {
            has_frames = true;
            i++;
        } else if (a[0] != '-' && !file) {
            file = a;
        } else {
            fprintf(stderr, "oroya sample: bad or incomplete argument '%s'\n", cli_esc(a));
            usage(stderr);
            return 2;
        }
    }
    int modes = (has_time ? 1 : 0) + (has_fps || has_frames ? 1 : 0) + (times ? 1 : 0);
    if (!file || !clip_name || modes != 1 || (has_fps != has_frames)) {
        usage(stderr);
        return 2;
    }
    /* Frame f is at f / fps: a tiny fps makes that inf (it printed "time":inf, which is not
     * JSON, and exited 0). */
    if (has_fps && !isfinite((frames - 1) / fps)) {
        fprintf(stderr,
                "oroya sample: --fps %g with --frames %.0f: the last frame's time (frames - 1) / "
                "fps is not finite\n",
                fps, frames);
        return 2;
    }
    /* The --times list is read whole before anything is loaded or printed: a bad entry is a
     * usage error with nothing on stdout (it used to stop after the frames before it). */
    uint32_t count = has_time ? 1u : (uint32_t)frames;
    double *time_list = NULL;
    if (times) {
        count = 1;
        for (const char *c = times; *c; c++) {
            count += *c == ',';
        }
        time_list = (double *)malloc((size_t)count * sizeof *time_list);
        if (!time_list) {
            fprintf(stderr, "oroya sample: out of memory\n");
            return 1;
        }
        const char *next = times;
        for (uint32_t f = 0; f < count; f++) {
            char *end = NULL;
            time_list[f] = strtod(next, &end);
            if (end == next || (*end != ',' && *end != '\0') || !isfinite(time_list[f])) {
                fprintf(stderr, "oroya sample: bad time in --times at '%s'\n", cli_esc(next));
                free(time_list);
                return 2;
            }
            next = *end ? end + 1 : end;
        }
    }
    oroya_gltf_model *m = NULL;
    oroya_gltf_import_desc desc = {0};
    desc.skip_images = true;
    desc.allow_outside_base_dir = allow_outside;
    if (cli_gltf_load("sample", file, &desc, &m)) {
        free(time_list);
        return 1;
    }
    int32_t clip_index = cli_find_clip("sample", file, m->clips, m->clip_count, clip_name);
    if (clip_index < 0) {
        free(time_list);
        oroya_gltf_model_free(m);
        return 1;
    }
    const oroya_clip *clip = m->clips[clip_index];
    uint32_t max_joints = 0;
    for (uint32_t s = 0; s < m->skin_count; s++) {
        if (m->skins[s].joint_count > max_joints) {
            max_joints = m->skins[s].joint_count;
        }
    }
    binding *b = (binding *)calloc(clip->track_count ? clip->track_count : 1, sizeof *b);
    float *bones = (float *)malloc((size_t)(max_joints ? max_joints : 1) * 16 * sizeof(float));
    if (!b || !bones) {
        fprintf(stderr, "oroya sample: out of memory\n");
        free(b);
        free(bones);
        free(time_list);
        oroya_gltf_model_free(m);
        return 1;
    }
    for (uint32_t i = 0; i < clip->track_count; i++) {
        /* Targets are scene names, so the scene's own lookup binds them. A target outside the
         * loaded scene stays unbound, as three.js's mixer leaves it. */
        oroya_scene_find_node(m->scene, clip->tracks[i].target, &b[i].node);
    }
    /* Every frame is checked before the first is printed: a value that is not finite stops
     * the command with nothing on stdout (it printed the frames before it, then "]}" after a
     * trailing comma: a JSON document cut short). Sampling is deterministic in t, so the
     * printing pass samples again. */
    int rc = 0;
    for (uint32_t f = 0; f < count && !rc; f++) {
        double t = has_time ? time : time_list ? time_list[f] : (double)f / fps;
        rc = check_frame(m, clip, b, bones, t, world, file);
    }
    if (!rc) {
        printf("{\"file\":");
        print_string(file);
        printf(",\"clip\":");
        print_string(clip->name);
        printf(",\"duration\":%.9g,\"frames\":[\n", (double)clip->duration);
        for (uint32_t f = 0; f < count; f++) {
            double t = has_time ? time : time_list ? time_list[f] : (double)f / fps;
            apply(m, clip, b, t);
            print_frame(m, t, bones, world, f + 1 == count);
        }
        printf("]}\n");
    }
    free(b);
    free(bones);
    free(time_list);
    oroya_gltf_model_free(m);
    return rc;
}
