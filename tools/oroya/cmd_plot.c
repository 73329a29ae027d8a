/* oroya plot: animation curves as people look at them (value over time in seconds, keys
 * marked, several channels or interpolations on one chart, axis labels and a legend), drawn
 * with Cairo to SVG or PNG. Inputs: a glTF file, a scenario (oroya play's format), or the
 * built-in demo's clips when no file is given. */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cli_util.h"
#include "demo_scene.h"
#include "oroya/json.h"
#include "oroya_scenario.h"

#ifdef OROYA_HAVE_CAIRO
#include <cairo-svg.h>
#include <cairo.h>
#include <cjson/cJSON.h>
#include <fontconfig/fontconfig.h>

#define PLOT_MAX_CLIPS 256
#define PLOT_MAX_SERIES 24
#define PLOT_MAX_CHANNELS 16
#define PLOT_SAMPLES 1200
#define STRINGIFY_(x) #x
#define STRINGIFY(x) STRINGIFY_(x) /* a limit's macro as text, for the messages */
#define PI_D 3.14159265358979323846

static const char *usage_text =
    "usage: oroya plot [FILE] [--clip NAME]... [--node NAME]... [--channel CH]...\n"
    "                  [--from T] [--to T] [--size WxH] [--title TEXT]\n"
    "                  [--allow-gltf-dir DIR] -o OUT.svg|.png\n"
    "\n"
    "Draws animation curves: value over time (seconds), keys marked as dots, one line per\n"
    "channel, each labelled in the legend with its node, channel and interpolation.\n"
    "FILE is a glTF 2.0 file (.gltf, .glb) or a scenario (.json, oroya play's format; its\n"
    "\"gltf\" model's clips come too); without FILE, the built-in demo's clips (bounce,\n"
    "comparison, bend, rods: `oroya plot --clip comparison --channel translation.y` is the\n"
    "step / linear / cubic-spline comparison).\n"
    "  --clip NAME     a clip: its name or animation_<index> (oroya info lists them);\n"
    "                  repeatable; default every clip\n"
    "  --node NAME     only tracks on this node (its name, or node_<index> in a glTF file);\n"
    "                  repeatable; default every node\n"
    "  --channel CH    what to draw, repeatable: translation, rotation, scale or weights,\n"
    "                  alone (every component that changes; for rotation, its angle) or with\n"
    "                  a component: translation.y, scale.x, rotation.x|y|z|w (quaternion\n"
    "                  components), rotation.angle (degrees turned from the identity),\n"
    "                  weights.2 (morph target 2). position and quaternion are accepted too.\n"
    "  --from T, --to T  the time range in seconds (default 0 to the longest clip's end)\n"
    "  --size WxH      image size (default 800x450; SVG in points)\n"
    "  --title TEXT    the chart's title (default: the clips' names)\n"
    "  --allow-gltf-dir DIR  a scenario's \"gltf\" may lie in DIR (and its subfolders);\n"
    "                  by default only in the scenario's own folder, as in oroya play\n"
    "  -o OUT          .svg or .png\n";

typedef struct channel_sel {
    int property;  /* oroya_property, -1 none */
    int component; /* -1: every component that changes; -2: rotation angle */
} channel_sel;

typedef struct series {
    const oroya_clip *clip;
    const oroya_track *track;
    int component; /* >= 0 a component; -2 the rotation angle */
    char label[200];
} series;

typedef struct plot_input {
    oroya_clip *clips[PLOT_MAX_CLIPS];
    bool owned[PLOT_MAX_CLIPS];
    uint32_t count;
    oroya_gltf_model *model; /* a glTF file's, or a scenario's "gltf" */
    world demo;
    bool has_demo;
    float *arrays[PLOT_MAX_CLIPS * 64];
    uint32_t array_count;
    cJSON *json;
} plot_input;

static void input_free(plot_input *in) {
    for (uint32_t i = 0; i < in->count; i++) {
        if (in->owned[i])
            oroya_clip_destroy(in->clips[i]);
    }
    for (uint32_t i = 0; i < in->array_count; i++)
        free(in->arrays[i]);
    oroya_gltf_model_free(in->model);
    if (in->has_demo)
        world_free(&in->demo);
    cJSON_Delete(in->json);
}

static int usage_error(const char *fmt, const char *arg) {
    fprintf(stderr, "oroya plot: ");
    fprintf(stderr, fmt, cli_esc(arg));
    fprintf(stderr, "\n(see 'oroya plot --help')\n");
    return 2;
}

static bool ends_with(const char *s, const char *tail) {
    size_t n = strlen(s), k = strlen(tail);
    if (n < k)
        return false;
    for (size_t i = 0; i < k; i++) {
        char c = s[n - k + i];
        if (c >= 'A' && c <= 'Z')
            c = (char)(c - 'A' + 'a');
        if (c != tail[i])
            return false;
    }
    return true;
}

static int parse_channel(const char *s, channel_sel *out) {
    char prop[32];
    const char *dot = strchr(s, '.');
    size_t n = dot ? (size_t)(dot - s) : strlen(s);
    if (n >= sizeof prop)
        return 1;
    memcpy(prop, s, n);
    prop[n] = 0;
    if (!strcmp(prop, "translation") || !strcmp(prop, "position"))
        out->property = OROYA_PROPERTY_TRANSLATION;
    else if (!strcmp(prop, "rotation") || !strcmp(prop, "quaternion"))
        out->property = OROYA_PROPERTY_ROTATION;
    else if (!strcmp(prop, "scale"))
        out->property = OROYA_PROPERTY_SCALE;
    else if (!strcmp(prop, "weights"))
        out->property = OROYA_PROPERTY_WEIGHTS;
    else
        return 1;
    out->component = -1;
    if (!dot)
        return 0;
    const char *c = dot + 1;
    if (out->property == OROYA_PROPERTY_WEIGHTS) {
        char *end = NULL;
        long v = strtol(c, &end, 10);
        if (!c[0] || *end || v < 0 || v > 65535)
            return 1;
        out->component = (int)v;
        return 0;
    }
    if (out->property == OROYA_PROPERTY_ROTATION && !strcmp(c, "angle")) {
        out->component = -2;
        return 0;
    }
    static const char *axes = "xyzw";
    int limit = out->property == OROYA_PROPERTY_ROTATION ? 4 : 3;
    for (int i = 0; i < limit; i++) {
        if (c[0] == axes[i] && !c[1]) {
            out->component = i;
            return 0;
        }
    }
    return 1;
}

/* ---- inputs ------------------------------------------------------------------------------- */

static int add_clip(plot_input *in, oroya_clip *c, bool owned) {
    if (in->count == PLOT_MAX_CLIPS) {
        fprintf(stderr, "oroya plot: more than %d clips\n", PLOT_MAX_CLIPS);
        if (owned)
            oroya_clip_destroy(c);
        return 1;
    }
    in->owned[in->count] = owned;
    in->clips[in->count++] = c;
    return 0;
}

static float *numbers(plot_input *in, const cJSON *arr, const char *path, uint32_t *count) {
    if (!cJSON_IsArray(arr)) {
        fprintf(stderr, "oroya plot: %s: expected an array of numbers\n", cli_esc(path));
        return NULL;
    }
    int n = cJSON_GetArraySize(arr);
    if (in->array_count == sizeof in->arrays / sizeof in->arrays[0]) {
        fprintf(stderr, "oroya plot: %s: too many tracks\n", cli_esc(path));
        return NULL;
    }
    float *f = malloc(((size_t)n + 1) * sizeof *f);
    if (!f) {
        fprintf(stderr, "oroya plot: out of memory\n");
        return NULL;
    }
    in->arrays[in->array_count++] = f;
    int i = 0;
    const cJSON *v;
    cJSON_ArrayForEach(v, arr) {
        if (!cJSON_IsNumber(v)) {
            fprintf(stderr, "oroya plot: %s[%d]: expected a number\n", cli_esc(path), i);
            return NULL;
        }
        f[i++] = (float)v->valuedouble;
    }
    *count = (uint32_t)n;
    return f;
}

static const char *string_of(const cJSON *o, const char *key) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* The clips of a scenario (FORMAT: "clips": [{name, tracks: [{node, property,
 * interpolation, times, values}]}]) and of its "gltf" model. */
static int load_scenario(plot_input *in, const char *path, const char *allow_gltf_dir) {
    if (cli_check_regular_file("plot", path))
        return 1;
    FILE *f = fopen(path, "rb");
    if (!f)
        return cli_check_readable("plot", path);
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *text = size >= 0 && size < (1L << 30) ? malloc((size_t)size + 1) : NULL;
    size_t got = text ? fread(text, 1, (size_t)size, f) : 0;
    fclose(f);
    if (!text || got != (size_t)size) {
        free(text);
        fprintf(stderr, "oroya plot: %s: cannot read the file\n", cli_esc(path));
        return 1;
    }
    text[size] = 0;
    /* What cJSON misreads (a NUL, text that is not UTF-8), then the values its tree would
     * hold (about 80 bytes each), refused past OROYA_SCENARIO_MAX_JSON_VALUES before cJSON
     * allocates one, as `oroya play` does. */
    oroya_error jerr = {0};
    size_t len = 0, count = 0;
    if (oroya_json_text_check(text, (size_t)size, &len, &jerr) != OROYA_OK) {
        free(text);
        fprintf(stderr, "oroya plot: %s: %s\n", cli_esc(path), cli_esc(jerr.message));
        return 1;
    }
    if (oroya_json_values_check(text, len, (size_t)OROYA_SCENARIO_MAX_JSON_VALUES, &count, NULL) !=
        OROYA_OK) {
        free(text);
        fprintf(stderr,
                "oroya plot: %s: %zu JSON values, the limit is %llu "
                "(OROYA_SCENARIO_MAX_JSON_VALUES)\n",
                cli_esc(path), count, (unsigned long long)OROYA_SCENARIO_MAX_JSON_VALUES);
        return 1;
    }
    in->json = cJSON_ParseWithLength(text, len);
    free(text);
    if (!cJSON_IsObject(in->json)) {
        fprintf(stderr, "oroya plot: %s: not a JSON object (a scenario)\n", cli_esc(path));
        return 1;
    }
    const char *gltf = string_of(in->json, "gltf");
    if (gltf) {
        char full[4096];
        const char *slash = strrchr(path, '/');
        const int fl = gltf[0] == '/' || !slash ? snprintf(full, sizeof full, "%s", gltf)
                                                : snprintf(full, sizeof full, "%.*s/%s",
                                                           (int)(slash - path), path, gltf);
        if (fl < 0 || (size_t)fl >= sizeof full) {
            fprintf(stderr, "oroya plot: %s: gltf: the path is too long (%d bytes, at most %zu)\n",
                    cli_esc(path), fl, sizeof full - 1);
            return 1; /* a cut path would name another file */
        }
        /* A scenario from a stranger names its model: it stays in the scenario's folder or
         * --allow-gltf-dir, as in `oroya play`. */
        char dir[4096];
        snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - path) : 1, slash ? path : ".");
        char *real = NULL;
        const int inside = oroya_scenario_gltf_inside(dir, allow_gltf_dir, full, &real);
        if (inside < 0) {
            const int e = errno;
            if (e == EISDIR)
                fprintf(stderr,
                        "oroya plot: %s: gltf: \"%s\" is not a regular file (a directory)\n",
                        cli_esc(path), cli_esc(gltf));
            else
                fprintf(stderr, "oroya plot: %s: gltf: \"%s\": cannot open: %s\n", cli_esc(path),
                        cli_esc(gltf), strerror(e ? e : EIO));
            return 1; /* nothing opened that the check could not place */
        }
        if (inside == 0) {
            fprintf(stderr,
                    "oroya plot: %s: gltf: \"%s\" leads outside the scenario's folder \"%s\" "
                    "(resolves to \"%s\"); --allow-gltf-dir DIR permits a folder (access "
                    "refused)\n",
                    cli_esc(path), cli_esc(gltf), cli_esc(dir), cli_esc(real));
            free(real);
            return 1;
        }
        oroya_gltf_import_desc d = {.skip_images = true};
        const int failed = cli_gltf_load("plot", real ? real : full, &d, &in->model);
        free(real);
        if (failed)
            return 1;
        for (uint32_t i = 0; i < in->model->clip_count; i++) {
            if (add_clip(in, in->model->clips[i], false))
                return 1;
        }
    }
    const cJSON *clips = cJSON_GetObjectItemCaseSensitive(in->json, "clips");
    int ci = 0;
    const cJSON *c;
    cJSON_ArrayForEach(c, clips) {
        char where[160];
        const cJSON *tracks = cJSON_GetObjectItemCaseSensitive(c, "tracks");
        int tn = cJSON_GetArraySize(tracks), ti = 0;
        oroya_track *tr = calloc((size_t)tn + 1, sizeof *tr);
        if (!tr)
            return 1;
        const cJSON *t;
        int rc = 0;
        cJSON_ArrayForEach(t, tracks) {
            snprintf(where, sizeof where, "%s: clips[%d].tracks[%d]", path, ci, ti);
            channel_sel sel;
            const char *node = string_of(t, "node"), *prop = string_of(t, "property");
            const char *interp = string_of(t, "interpolation");
            if (!node || !prop || parse_channel(prop, &sel) || sel.component != -1 ||
                sel.property == OROYA_PROPERTY_WEIGHTS) {
                fprintf(stderr,
                        "oroya plot: %s: needs \"node\" and a \"property\" (position, quaternion, "
                        "scale)\n",
                        cli_esc(where));
                rc = 1;
                break;
            }
            oroya_interpolation ip = OROYA_INTERP_LINEAR;
            if (interp && (!strcmp(interp, "step") || !strcmp(interp, "discrete")))
                ip = OROYA_INTERP_STEP;
            else if (interp && !strcmp(interp, "cubicspline"))
                ip = OROYA_INTERP_CUBICSPLINE;
            else if (interp && !strcmp(interp, "smooth"))
                ip = sel.property == OROYA_PROPERTY_ROTATION ? OROYA_INTERP_LINEAR
                                                             : OROYA_INTERP_SMOOTH;
            else if (interp && strcmp(interp, "linear")) {
                fprintf(stderr, "oroya plot: %s.interpolation: unknown interpolation '%s'\n",
                        cli_esc(where), cli_esc(interp));
                rc = 1;
                break;
            }
            char sub[200];
            uint32_t nt = 0, nv = 0;
            snprintf(sub, sizeof sub, "%s.times", where);
            float *times = numbers(in, cJSON_GetObjectItemCaseSensitive(t, "times"), sub, &nt);
            snprintf(sub, sizeof sub, "%s.values", where);
            float *values =
                times ? numbers(in, cJSON_GetObjectItemCaseSensitive(t, "values"), sub, &nv) : NULL;
            if (!values) {
                rc = 1;
                break;
            }
            uint32_t comps = sel.property == OROYA_PROPERTY_ROTATION ? 4 : 3;
            tr[ti++] = (oroya_track){.target = node,
                                     .property = (oroya_property)sel.property,
                                     .interpolation = ip,
                                     .components = comps,
                                     .key_count = nt,
                                     .times = times,
                                     .values = values,
                                     .value_count = nv};
        }
        oroya_clip *clip = NULL;
        oroya_error err = {0};
        const char *name = string_of(c, "name");
        if (!rc && oroya_clip_create(&(oroya_clip_desc){.name = name ? name : "",
                                                        .tracks = tr,
                                                        .track_count = (uint32_t)ti},
                                     &clip, &err) != OROYA_OK) {
            fprintf(stderr, "oroya plot: %s: clips[%d]: %s\n", cli_esc(path), ci,
                    cli_esc(err.message));
            rc = 1;
        }
        free(tr);
        if (rc || add_clip(in, clip, true))
            return 1;
        ci++;
    }
    if (!in->count) {
        fprintf(stderr, "oroya plot: %s: the scenario has no clips\n", cli_esc(path));
        return 1;
    }
    return 0;
}

static int load_input(plot_input *in, const char *file, const char *allow_gltf_dir) {
    if (!file) {
        if (demo_world_create(&in->demo))
            return 1;
        in->has_demo = true;
        for (uint32_t i = 0; i < in->demo.clip_count; i++) {
            if (add_clip(in, in->demo.clips[i], false))
                return 1;
        }
        return 0;
    }
    if (ends_with(file, ".json"))
        return load_scenario(in, file, allow_gltf_dir);
    oroya_gltf_import_desc d = {.skip_images = true};
    if (cli_gltf_load("plot", file, &d, &in->model))
        return 1;
    for (uint32_t i = 0; i < in->model->clip_count; i++) {
        if (add_clip(in, in->model->clips[i], false))
            return 1;
    }
    return 0;
}

/* ---- values ------------------------------------------------------------------------------ */

static const char *property_name(oroya_property p) {
    static const char *names[] = {"translation", "rotation", "scale", "weights"};
    return (unsigned)p < 4 ? names[p] : "?";
}

static const char *interp_name(oroya_interpolation i) {
    static const char *names[] = {"step", "linear", "cubic spline", "smooth", "sterp"};
    return (unsigned)i < 5 ? names[i] : "?";
}

/* Degrees a unit quaternion turns (0..180). */
static double angle_of(const float *q) {
    double v = sqrt((double)q[0] * q[0] + (double)q[1] * q[1] + (double)q[2] * q[2]);
    return 2.0 * atan2(v, fabs((double)q[3])) * 180.0 / PI_D;
}

static double pick(const series *s, const float *v) {
    return s->component == -2 ? angle_of(v) : (double)v[s->component];
}

/* Key k's value (for cubic splines the spline vertex, between the tangents). */
static const float *key_value(const oroya_track *t, uint32_t k) {
    uint32_t c = t->components;
    return t->interpolation == OROYA_INTERP_CUBICSPLINE ? t->values + (size_t)k * 3 * c + c
                                                        : t->values + (size_t)k * c;
}

static bool component_changes(const oroya_track *t, int comp) {
    for (uint32_t k = 1; k < t->key_count; k++) {
        if (key_value(t, k)[comp] != key_value(t, 0)[comp])
            return true;
    }
    if (t->interpolation == OROYA_INTERP_CUBICSPLINE) {
        for (uint32_t k = 0; k < t->key_count; k++) {
            const float *v = t->values + (size_t)k * 3 * t->components;
            if (v[comp] != 0.0f || v[2 * t->components + (uint32_t)comp] != 0.0f)
                return true;
        }
    }
    return false;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The times a series is sampled at: a uniform grid, every key time, and for step tracks the
 * instant before each key, so steps are drawn upright. */
static double *sample_times(const oroya_track *t, double t0, double t1, uint32_t *count) {
    size_t cap = PLOT_SAMPLES + 1 + 2 * (size_t)t->key_count;
    double *ts = malloc(cap * sizeof *ts);
    if (!ts)
        return NULL;
    size_t n = 0;
    for (uint32_t i = 0; i <= PLOT_SAMPLES; i++)
        ts[n++] = t0 + (t1 - t0) * i / PLOT_SAMPLES;
    double eps = (t1 - t0) * 1e-6;
    for (uint32_t k = 0; k < t->key_count; k++) {
        double kt = t->times[k];
        if (kt < t0 || kt > t1)
            continue;
        ts[n++] = kt;
        if (t->interpolation == OROYA_INTERP_STEP && kt - eps >= t0)
            ts[n++] = kt - eps;
    }
    qsort(ts, n, sizeof *ts, cmp_double);
    *count = (uint32_t)n;
    return ts;
}

/* ---- drawing ----------------------------------------------------------------------------- */

/* Key dots only up to one key per this many pixels of plot width on average (denser, the
 * dots would be a solid band over the curve). */
#define PLOT_DOT_PIXELS 1.0

static const double palette[8][3] = {
    {0.122, 0.467, 0.706}, {1.000, 0.498, 0.055}, {0.173, 0.627, 0.173}, {0.839, 0.153, 0.157},
    {0.580, 0.404, 0.741}, {0.549, 0.337, 0.294}, {0.890, 0.467, 0.761}, {0.498, 0.498, 0.498},
};

static double nice_step(double range, int target) {
    double raw = range / target, p = pow(10.0, floor(log10(raw))), f = raw / p;
    return (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10) * p;
}

static void tick_label(char *buf, size_t n, double v, double step) {
    int decimals = step >= 1 ? 0 : (int)ceil(-log10(step) - 1e-9);
    if (decimals > 6)
        decimals = 6;
    if (fabs(v) < step * 1e-6)
        v = 0;
    snprintf(buf, n, "%.*f", decimals, v);
}

typedef struct frame {
    double x0, y0, x1, y1; /* plot area in device units */
    double t0, t1, v0, v1; /* data range */
} frame;

/* Data map inside the frame with an 8-pixel inset, so dots on the ends show whole. */
static double fx(const frame *f, double t) {
    return f->x0 + 8 + (t - f->t0) / (f->t1 - f->t0) * (f->x1 - f->x0 - 16);
}
static double fy(const frame *f, double v) {
    return f->y1 - (v - f->v0) / (f->v1 - f->v0) * (f->y1 - f->y0);
}

static void curve_to(cairo_t *cr, bool *started, double x, double y) {
    if (*started) {
        cairo_line_to(cr, x, y);
    } else {
        cairo_move_to(cr, x, y);
        *started = true;
    }
}

/* The polyline through the finite points (t[k], y[k]) (times ascending), at most four points
 * a pixel column: each column's first, lowest, highest and last, in time order. The image is
 * the same at the plot's resolution, and the path's size is bounded by the width (a clip of
 * 100,000 STEP keys made 200,000 points: a 121 MB SVG and 723 MB of memory). */
static void draw_curve(cairo_t *cr, const frame *f, const double *t, const double *y, uint32_t n) {
    bool started = false;
    uint32_t k = 0;
    while (k < n) {
        if (!isfinite(y[k])) {
            k++;
            continue;
        }
        const double col = floor(fx(f, t[k]));
        uint32_t lo = k, hi = k, last = k, j = k + 1;
        for (; j < n; j++) {
            if (!isfinite(y[j]))
                continue;
            if (floor(fx(f, t[j])) != col)
                break;
            last = j;
            lo = y[j] < y[lo] ? j : lo;
            hi = y[j] > y[hi] ? j : hi;
        }
        const uint32_t pick[4] = {k, lo < hi ? lo : hi, lo < hi ? hi : lo, last};
        for (int e = 0; e < 4; e++) {
            if (e == 0 || pick[e] != pick[e - 1])
                curve_to(cr, &started, fx(f, t[pick[e]]), fy(f, y[pick[e]]));
        }
        k = j;
    }
}

/* A series sampled: n points (t[i], y[i]), both from one allocation. */
typedef struct curve {
    double *t, *y;
    uint32_t n;
} curve;

static int sample_curve(const series *s, double t0, double t1, curve *out) {
    out->t = sample_times(s->track, t0, t1, &out->n);
    float buf[256];
    float *v = s->track->components <= 256 ? buf : malloc(s->track->components * sizeof *v);
    double *all = out->t ? realloc(out->t, 2 * (size_t)out->n * sizeof *all) : NULL;
    if (!all || !v) {
        free(all ? all : out->t);
        if (v != buf)
            free(v);
        out->t = NULL;
        return 1;
    }
    out->t = all;
    out->y = all + out->n;
    uint32_t cursor = 0;
    for (uint32_t k = 0; k < out->n; k++) {
        oroya_track_sample(s->track, out->t[k], &cursor, NULL, v);
        out->y[k] = pick(s, v);
    }
    if (v != buf)
        free(v);
    return 0;
}

static int draw(cairo_t *cr, double width, double height, const series *s, uint32_t ns, double t0,
                double t1, const char *title, const char *y_label) {
    curve cv[PLOT_MAX_SERIES];
    for (uint32_t i = 0; i < ns; i++) {
        if (sample_curve(&s[i], t0, t1, &cv[i])) {
            for (uint32_t k = 0; k < i; k++)
                free(cv[k].t);
            return 1;
        }
    }
    /* The value range over every sample. */
    double lo = INFINITY, hi = -INFINITY;
    for (uint32_t i = 0; i < ns; i++) {
        for (uint32_t k = 0; k < cv[i].n; k++) {
            if (isfinite(cv[i].y[k]))
                lo = fmin(lo, cv[i].y[k]), hi = fmax(hi, cv[i].y[k]);
        }
    }
    if (!(lo <= hi))
        lo = 0, hi = 1;
    if (hi - lo < 1e-9 * fmax(1.0, fabs(hi)))
        lo -= 1, hi += 1;
    double pad = (hi - lo) * 0.08;
    lo -= pad, hi += pad;
    double vstep = nice_step(hi - lo, 6), tstep = nice_step(t1 - t0, 8);

    cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_paint(cr);
    /* The legend goes under the chart, its entries flowing into rows. */
    cairo_set_font_size(cr, 12);
    cairo_text_extents_t ext;
    double legend_x[PLOT_MAX_SERIES], legend_row[PLOT_MAX_SERIES], cx = 0, row = 0,
                                                                   avail = width - 74 - 24;
    for (uint32_t i = 0; i < ns; i++) {
        cairo_text_extents(cr, s[i].label, &ext);
        double w = ext.x_advance + 44;
        if (cx > 0 && cx + w > avail)
            cx = 0, row++;
        legend_x[i] = cx;
        legend_row[i] = row;
        cx += w + 10;
    }
    double legend_h = 18.0 * (row + 1) + 6;
    frame f = {.x0 = 74,
               .y0 = 44,
               .x1 = width - 24,
               .y1 = height - 56 - legend_h,
               .t0 = t0,
               .t1 = t1,
               .v0 = lo,
               .v1 = hi};
    if (f.x1 - f.x0 < 40 || f.y1 - f.y0 < 40)
        f = (frame){.x0 = 4,
                    .y0 = 4,
                    .x1 = width - 4,
                    .y1 = height - 4,
                    .t0 = t0,
                    .t1 = t1,
                    .v0 = lo,
                    .v1 = hi};
    /* Grid and ticks. */
    char label[64];
    cairo_set_line_width(cr, 1);
    for (double g = ceil(lo / vstep) * vstep; g <= hi + vstep * 1e-9; g += vstep) {
        double y = floor(fy(&f, g)) + 0.5;
        cairo_set_source_rgb(cr, 0.88, 0.88, 0.9);
        cairo_move_to(cr, f.x0, y);
        cairo_line_to(cr, f.x1, y);
        cairo_stroke(cr);
        tick_label(label, sizeof label, g, vstep);
        cairo_text_extents(cr, label, &ext);
        cairo_set_source_rgb(cr, 0.25, 0.25, 0.28);
        cairo_move_to(cr, f.x0 - 8 - ext.x_advance, y + 4);
        cairo_show_text(cr, label);
    }
    for (double g = ceil(t0 / tstep) * tstep; g <= t1 + tstep * 1e-9; g += tstep) {
        double x = floor(fx(&f, g)) + 0.5;
        cairo_set_source_rgb(cr, 0.88, 0.88, 0.9);
        cairo_move_to(cr, x, f.y0);
        cairo_line_to(cr, x, f.y1);
        cairo_stroke(cr);
        tick_label(label, sizeof label, g, tstep);
        cairo_text_extents(cr, label, &ext);
        cairo_set_source_rgb(cr, 0.25, 0.25, 0.28);
        cairo_move_to(cr, x - ext.x_advance / 2, f.y1 + 18);
        cairo_show_text(cr, label);
    }
    cairo_set_source_rgb(cr, 0.35, 0.35, 0.4);
    cairo_rectangle(cr, f.x0 + 0.5, f.y0 + 0.5, f.x1 - f.x0 - 1, f.y1 - f.y0 - 1);
    cairo_stroke(cr);
    /* Axis labels and title. */
    cairo_set_font_size(cr, 13);
    cairo_set_source_rgb(cr, 0.1, 0.1, 0.12);
    cairo_text_extents(cr, "time (s)", &ext);
    cairo_move_to(cr, (f.x0 + f.x1 - ext.x_advance) / 2, f.y1 + 40);
    cairo_show_text(cr, "time (s)");
    cairo_save(cr);
    cairo_text_extents(cr, y_label, &ext);
    cairo_move_to(cr, 20, (f.y0 + f.y1 + ext.x_advance) / 2);
    cairo_rotate(cr, -PI_D / 2);
    cairo_show_text(cr, y_label);
    cairo_restore(cr);
    cairo_set_font_size(cr, 15);
    cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_BOLD);
    cairo_move_to(cr, f.x0, 28);
    cairo_show_text(cr, title);
    cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
    /* Curves, clipped to the plot area, then keys. */
    cairo_save(cr);
    cairo_rectangle(cr, f.x0, f.y0, f.x1 - f.x0, f.y1 - f.y0);
    cairo_clip(cr);
    cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND);
    for (uint32_t i = 0; i < ns; i++) {
        const double *c = palette[i % 8];
        cairo_set_source_rgb(cr, c[0], c[1], c[2]);
        cairo_set_line_width(cr, 2.2);
        draw_curve(cr, &f, cv[i].t, cv[i].y, cv[i].n);
        cairo_stroke(cr);
        free(cv[i].t);
    }
    cairo_restore(cr);
    for (uint32_t i = 0; i < ns; i++) {
        const double *c = palette[i % 8];
        const oroya_track *t = s[i].track;
        /* Dots shrink where keys crowd (under 12 pixels apart). Keys denser than one per
         * PLOT_DOT_PIXELS on average get none: their dots would cover the curve, and 100,000
         * keys drew 100,000 arcs (a 121 MB SVG, a minute for a PNG). */
        uint32_t shown = 0;
        for (uint32_t k = 0; k < t->key_count; k++)
            shown += t->times[k] >= t0 && t->times[k] <= t1;
        if ((double)shown * PLOT_DOT_PIXELS > f.x1 - f.x0)
            continue;
        double gap = INFINITY;
        for (uint32_t k = 1; k < t->key_count; k++)
            gap = fmin(gap, fx(&f, t->times[k]) - fx(&f, t->times[k - 1]));
        double radius = fmax(2.0, fmin(4.0, gap / 3.0));
        for (uint32_t k = 0; k < t->key_count; k++) {
            if (t->times[k] < t0 || t->times[k] > t1)
                continue;
            double y = pick(&s[i], key_value(t, k));
            cairo_arc(cr, fx(&f, t->times[k]), fy(&f, y), radius, 0, 2 * PI_D);
            cairo_set_source_rgb(cr, c[0], c[1], c[2]);
            cairo_fill_preserve(cr);
            cairo_set_source_rgb(cr, 1, 1, 1);
            cairo_set_line_width(cr, 1.2);
            cairo_stroke(cr);
        }
    }
    /* Legend. */
    cairo_set_font_size(cr, 12);
    for (uint32_t i = 0; i < ns; i++) {
        const double *c = palette[i % 8];
        double x = f.x0 + legend_x[i], y = f.y1 + 58 + 18.0 * legend_row[i];
        cairo_set_source_rgb(cr, c[0], c[1], c[2]);
        cairo_set_line_width(cr, 2.2);
        cairo_move_to(cr, x + 4, y - 4);
        cairo_line_to(cr, x + 30, y - 4);
        cairo_stroke(cr);
        cairo_arc(cr, x + 17, y - 4, 3.4, 0, 2 * PI_D);
        cairo_fill(cr);
        cairo_set_source_rgb(cr, 0.1, 0.1, 0.12);
        cairo_move_to(cr, x + 36, y);
        cairo_show_text(cr, s[i].label);
    }
    return 0;
}

/* ---- command ----------------------------------------------------------------------------- */

static bool parse_number(const char *s, double *out) {
    char *end = NULL;
    double v = strtod(s, &end);
    if (!s[0] || *end || !isfinite(v))
        return false;
    *out = v;
    return true;
}

int oroya_cmd_plot(int argc, char **argv) {
    const char *file = NULL, *out = NULL, *title = NULL, *allow_gltf_dir = NULL;
    const char *clip_names[PLOT_MAX_CLIPS], *node_names[PLOT_MAX_SERIES];
    uint32_t clip_count = 0, node_count = 0, channel_count = 0;
    channel_sel channels[PLOT_MAX_CHANNELS];
    double from = 0, to = 0;
    bool has_from = false, has_to = false;
    unsigned width = 800, height = 450;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        bool takes = !strcmp(a, "--clip") || !strcmp(a, "--node") || !strcmp(a, "--channel") ||
                     !strcmp(a, "--from") || !strcmp(a, "--to") || !strcmp(a, "--size") ||
                     !strcmp(a, "--title") || !strcmp(a, "-o") || !strcmp(a, "--output") ||
                     !strcmp(a, "--allow-gltf-dir");
        if (takes && !v)
            return usage_error("%s needs a value", a);
        if (takes)
            i++;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            fputs(usage_text, stdout);
            return 0;
        } else if (!strcmp(a, "--allow-gltf-dir")) {
            allow_gltf_dir = v;
        } else if (!strcmp(a, "--clip")) {
            if (clip_count == PLOT_MAX_CLIPS)
                return usage_error(
                    "%s", "too many --clip options (at most " STRINGIFY(PLOT_MAX_CLIPS) ")");
            clip_names[clip_count++] = v;
        } else if (!strcmp(a, "--node")) {
            if (node_count == PLOT_MAX_SERIES)
                return usage_error(
                    "%s", "too many --node options (at most " STRINGIFY(PLOT_MAX_SERIES) ")");
            node_names[node_count++] = v;
        } else if (!strcmp(a, "--channel")) {
            if (channel_count == PLOT_MAX_CHANNELS)
                return usage_error(
                    "%s", "too many --channel options (at most " STRINGIFY(PLOT_MAX_CHANNELS) ")");
            if (parse_channel(v, &channels[channel_count])) {
                return usage_error(
                    "--channel '%s' is not translation|rotation|scale|weights[.COMPONENT]", v);
            }
            channel_count++;
        } else if (!strcmp(a, "--from")) {
            if (!parse_number(v, &from))
                return usage_error("--from '%s' is not a time", v);
            has_from = true;
        } else if (!strcmp(a, "--to")) {
            if (!parse_number(v, &to))
                return usage_error("--to '%s' is not a time", v);
            has_to = true;
        } else if (!strcmp(a, "--size")) {
            if (!cli_parse_size(v, &width, &height) || width < 160 || height < 120 ||
                width > 8192 || height > 8192) {
                return usage_error("--size '%s' is not WxH with 160 <= W <= 8192, 120 <= H <= 8192",
                                   v);
            }
        } else if (!strcmp(a, "--title")) {
            title = v;
        } else if (!strcmp(a, "-o") || !strcmp(a, "--output")) {
            out = v;
        } else if (a[0] == '-' && a[1]) {
            return usage_error("unknown option '%s'", a);
        } else if (!file) {
            file = a;
        } else {
            return usage_error("more than one input file ('%s')", a);
        }
    }
    if (!out)
        return usage_error("%s", "-o OUT.svg|.png is required");
    bool svg = ends_with(out, ".svg");
    if (!svg && !ends_with(out, ".png"))
        return usage_error("output '%s' must end in .svg or .png", out);
    if (has_from && has_to && !(from < to))
        return usage_error("%s", "--from must be before --to");

    plot_input *in = calloc(1, sizeof *in);
    if (!in)
        return 1;
    int rc = load_input(in, file, allow_gltf_dir);
    /* Clips. */
    const oroya_clip *clips[PLOT_MAX_CLIPS];
    uint32_t nc = 0;
    for (uint32_t i = 0; !rc && i < clip_count; i++) {
        int32_t k = cli_find_clip("plot", file, in->clips, in->count, clip_names[i]);
        if (k < 0)
            rc = 1;
        else
            clips[nc++] = in->clips[k];
    }
    if (!rc && !clip_count) {
        for (uint32_t i = 0; i < in->count; i++)
            clips[nc++] = in->clips[i];
    }
    if (!rc && !nc) {
        fprintf(stderr, "oroya plot: %s has no clips\n", file ? cli_esc(file) : "the demo");
        rc = 1;
    }
    /* Nodes, by the names tracks use. */
    const char *nodes[PLOT_MAX_SERIES];
    const oroya_scene *scene = in->model ? in->model->scene : in->has_demo ? in->demo.scene : NULL;
    for (uint32_t i = 0; !rc && i < node_count; i++) {
        oroya_node n;
        nodes[i] = node_names[i];
        if (scene) {
            if (cli_find_node("plot", file, scene, in->model, node_names[i], &n))
                rc = 1;
            else
                nodes[i] = oroya_scene_node_name(scene, n);
        }
    }
    /* Series: every (clip, track, component) that the selection takes. */
    static series s[PLOT_MAX_SERIES];
    uint32_t ns = 0, skipped = 0;
    for (uint32_t c = 0; !rc && c < nc; c++) {
        for (uint32_t t = 0; t < clips[c]->track_count; t++) {
            const oroya_track *tr = &clips[c]->tracks[t];
            bool node_ok = !node_count;
            for (uint32_t k = 0; k < node_count; k++)
                node_ok = node_ok || !strcmp(tr->target, nodes[k]);
            if (!node_ok)
                continue;
            for (uint32_t ch = 0; ch < (channel_count ? channel_count : 1); ch++) {
                channel_sel sel =
                    channel_count ? channels[ch]
                                  : (channel_sel){.property = (int)tr->property, .component = -1};
                if (sel.property != (int)tr->property)
                    continue;
                int comps[256], n = 0;
                if (sel.component == -1 && tr->property == OROYA_PROPERTY_ROTATION) {
                    comps[n++] = -2;
                } else if (sel.component == -1) {
                    for (uint32_t k = 0; k < tr->components && n < 256; k++) {
                        if (component_changes(tr, (int)k))
                            comps[n++] = (int)k;
                    }
                } else if (sel.component == -2 || sel.component < (int)tr->components) {
                    comps[n++] = sel.component;
                }
                for (int k = 0; k < n; k++) {
                    if (ns == PLOT_MAX_SERIES) {
                        skipped++;
                        continue;
                    }
                    series *o = &s[ns++];
                    o->clip = clips[c];
                    o->track = tr;
                    o->component = comps[k];
                    char comp[16];
                    if (comps[k] == -2)
                        snprintf(comp, sizeof comp, ".angle");
                    else if (tr->property == OROYA_PROPERTY_WEIGHTS)
                        snprintf(comp, sizeof comp, ".%d", comps[k]);
                    else
                        snprintf(comp, sizeof comp, ".%c", "xyzw"[comps[k]]);
                    snprintf(o->label, sizeof o->label, "%s%s%s %s%s (%s)",
                             nc > 1 ? clips[c]->name : "", nc > 1 ? ": " : "", tr->target,
                             property_name(tr->property), comp, interp_name(tr->interpolation));
                }
            }
        }
    }
    if (!rc && !ns) {
        fprintf(stderr, "oroya plot: nothing to draw: no track of the chosen clips matches the "
                        "--node and --channel choices\n");
        rc = 1;
    }
    if (!rc && skipped) {
        fprintf(stderr,
                "oroya plot: note: %u more curves left out (at most %d on one chart); choose with "
                "--node or --channel\n",
                skipped, PLOT_MAX_SERIES);
    }
    /* Written beside OUT and renamed over it when complete: a failed write leaves no
     * partial file (and OUT as it was); a folder that cannot take it gives the system's
     * reason up front. */
    char tmp[4200];
    if (!rc) {
        const int tl = snprintf(tmp, sizeof tmp, "%s.oroya-tmp-%ld", out, (long)getpid());
        FILE *probe = tl > 0 && (size_t)tl < sizeof tmp ? fopen(tmp, "wb") : NULL;
        if (!probe) {
            const int e = tl > 0 && (size_t)tl < sizeof tmp ? errno : ENAMETOOLONG;
            fprintf(stderr, "oroya plot: cannot write '%s': %s\n", cli_esc(out),
                    strerror(e ? e : EIO));
            rc = 1;
        } else {
            fclose(probe);
        }
    }
    if (!rc) {
        double t0 = has_from ? from : 0.0, t1 = 0.0;
        for (uint32_t c = 0; c < nc; c++)
            t1 = fmax(t1, (double)clips[c]->duration);
        if (has_to)
            t1 = to;
        if (!(t1 > t0))
            t1 = t0 + 1.0;
        char default_title[300] = "";
        if (!title) {
            size_t len = 0;
            for (uint32_t c = 0; c < nc && len + 4 < sizeof default_title; c++) {
                len += (size_t)snprintf(default_title + len, sizeof default_title - len, "%s%s",
                                        c ? ", " : "", clips[c]->name);
                if (len >= sizeof default_title)
                    len = sizeof default_title - 1;
            }
            title = default_title;
        }
        bool all_angles = true, same = true;
        for (uint32_t i = 0; i < ns; i++) {
            all_angles = all_angles && s[i].component == -2;
            same = same && s[i].track->property == s[0].track->property;
        }
        static const char *labels[] = {"translation", "quaternion component", "scale",
                                       "morph weight"};
        const char *y_label = all_angles ? "angle (degrees)"
                              : same     ? labels[s[0].track->property]
                                         : "value";
        cairo_surface_t *surf =
            svg ? cairo_svg_surface_create(tmp, width, height)
                : cairo_image_surface_create(CAIRO_FORMAT_ARGB32, (int)width, (int)height);
        cairo_t *cr = cairo_create(surf);
        if (draw(cr, width, height, s, ns, t0, t1, title, y_label)) {
            fprintf(stderr, "oroya plot: out of memory\n");
            rc = 1;
        }
        cairo_destroy(cr);
        cairo_status_t st = CAIRO_STATUS_SUCCESS;
        if (!rc && !svg)
            st = cairo_surface_write_to_png(surf, tmp);
        cairo_surface_finish(surf);
        if (st == CAIRO_STATUS_SUCCESS)
            st = cairo_surface_status(surf);
        cairo_surface_destroy(surf);
        if (!rc && st != CAIRO_STATUS_SUCCESS) {
            fprintf(stderr, "oroya plot: cannot write '%s': %s\n", cli_esc(out),
                    cairo_status_to_string(st));
            rc = 1;
        } else if (!rc && rename(tmp, out) != 0) {
            fprintf(stderr, "oroya plot: cannot write '%s': %s\n", cli_esc(out),
                    strerror(errno ? errno : EIO));
            rc = 1;
        }
        if (rc) {
            unlink(tmp);
        } else {
            fprintf(stderr, "wrote %s (%u curve%s)\n", cli_esc(out), ns, ns == 1 ? "" : "s");
        }
    }
    input_free(in);
    free(in);
    /* Cairo's font caches and fontconfig's configuration live until process exit; freeing
     * them here keeps leak checkers quiet about memory that is not a leak of oroya's. */
    cairo_debug_reset_static_data();
    FcFini();
    return rc;
}

#else

int oroya_cmd_plot(int argc, char **argv) {
    (void)argc;
    (void)argv;
    fprintf(stderr, "oroya plot: this oroya was built without Cairo (Debian: libcairo2-dev)\n");
    return 1;
}

#endif
