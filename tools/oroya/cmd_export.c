/* oroya export IN OUT: reads a glTF file and writes it again through oroya's exporter
 * (oroya_gltf_write), as .gltf + .bin or as .glb, with the clip utilities applied on the way:
 * cut subclips, make clips additive, drop clips, and reduce keys under a model-space error bound
 * (--compress, docs/compression.md). */
#define _XOPEN_SOURCE 700 /* realpath */
#include <cjson/cJSON.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli.h"
#include "cli_util.h"
#include "oroya/mixer.h"
#include "oroya/pose.h"
#include "oroya/rig.h"

#define EXPORT_MAX_OPS 64
#define EXPORT_MAX_CLIPS 1024

/* Whether `file` (a real path) is one of the files IN's buffers or images name (their URIs
 * percent-decoded, relative to IN's folder): writing OUT.gltf's sidecar OUT.bin over it would
 * break IN, which still points at it (an export of a.gltf, whose buffer is b.bin, to
 * b.gltf). IN's JSON is read again here, in .gltf or in a .glb's JSON chunk. */
static bool input_references(const char *in, const char *file) {
    FILE *f = fopen(in, "rb");
    if (!f)
        return false;
    char *text = NULL;
    long n = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    if (n > 0 && n < (1L << 30) && fseek(f, 0, SEEK_SET) == 0 && (text = malloc((size_t)n + 1)) &&
        fread(text, 1, (size_t)n, f) != (size_t)n) {
        free(text);
        text = NULL;
    }
    fclose(f);
    if (!text)
        return false;
    text[n] = 0;
    const char *json = text;
    size_t len = (size_t)n;
    if (n >= 20 && !memcmp(text, "glTF", 4)) {
        const uint32_t jl = (uint32_t)(uint8_t)text[12] | (uint32_t)(uint8_t)text[13] << 8 |
                            (uint32_t)(uint8_t)text[14] << 16 | (uint32_t)(uint8_t)text[15] << 24;
        json = text + 20;
        len = jl <= (size_t)n - 20 ? jl : 0;
    }
    cJSON *root = cJSON_ParseWithLength(json, len);
    free(text);
    const char *slash = strrchr(in, '/');
    const size_t dir = slash ? (size_t)(slash - in) + 1 : 0;
    bool found = false;
    static const char *const lists[2] = {"buffers", "images"};
    for (int l = 0; l < 2 && root && !found; l++) {
        const cJSON *item;
        cJSON_ArrayForEach(item, cJSON_GetObjectItemCaseSensitive(root, lists[l])) {
            const cJSON *u = cJSON_GetObjectItemCaseSensitive(item, "uri");
            if (!cJSON_IsString(u) || !strncmp(u->valuestring, "data:", 5))
                continue;
            char path[PATH_MAX], real[PATH_MAX];
            size_t k = dir < sizeof path ? dir : 0;
            memcpy(path, in, k);
            /* Up to a query or fragment, as the loader reads the URI. */
            for (const char *c = u->valuestring;
                 *c && *c != '?' && *c != '#' && k + 1 < sizeof path; c++) {
                unsigned v;
                if (c[0] == '%' && c[1] && c[2] && sscanf(c + 1, "%2x", &v) == 1)
                    path[k++] = (char)v, c += 2;
                else
                    path[k++] = *c;
            }
            path[k] = 0;
            if (realpath(path, real) && !strcmp(real, file)) {
                found = true;
                break;
            }
        }
    }
    cJSON_Delete(root);
    return found;
}

static void usage(FILE *f) {
    fprintf(
        f, "usage: oroya export IN OUT.gltf|OUT.glb [--subclip NAME:START:END:FPS[=NEW]]...\n"
           "                    [--make-additive NAME[:FRAME[:REF]]]... [--drop NAME]...\n"
           "                    [--compress TOL] [--allow-outside]\n\n"
           "Reads IN (glTF 2.0) and writes its scene and clips to OUT through oroya's exporter:\n"
           ".glb as one file, .gltf with a .bin beside it (OUT.gltf -> OUT.bin). Clip names are\n"
           "their glTF names or animation_<index> (oroya info lists them).\n"
           "  --subclip NAME:START:END:FPS[=NEW]\n"
           "                  adds a clip cut from clip NAME: the keys of frames START <= f < END\n"
           "                  at FPS frames per second (three.js AnimationUtils.subclip), shifted\n"
           "                  to start at 0; named NEW, default NAME_START_END\n"
           "  --make-additive NAME[:FRAME[:REF]]\n"
           "                  makes clip NAME relative to frame FRAME (at 30 fps, default 0) of\n"
           "                  clip REF (default NAME itself), as three.js makeClipAdditive; glTF\n"
           "                  has no blend mode, so the file holds the differences and a player\n"
           "                  must know to add them\n"
           "  --drop NAME     leaves clip NAME out of OUT\n"
           "  --compress TOL  reduces the keys of every clip that animates the joints of the\n"
           "                  file's first skin so that joint positions and virtual vertices\n"
           "                  (0.1 from each joint) stay within TOL scene units of the source, in\n"
           "                  model space, and writes rotations as normalized shorts; other\n"
           "                  clips (and every clip of a file without a skin) are written\n"
           "                  unchanged, and rotations then stay float, as they do when shorts\n"
           "                  would miss TOL (said on stderr); applied after the others\n"
           "  --allow-outside lets IN's buffers and images lie outside its folder (by default\n"
           "                  \"../x.bin\", absolute paths and links that lead out are refused)\n"
           "Options apply in the order given (a subclip can then be made additive or dropped).\n"
           "Images, textures and samplers are written back bit for bit. Not written (the\n"
           "exporter's limits): lights, material properties other than the base color\n"
           "(factor and texture), metallic, roughness and double-sided, and extras other\n"
           "than clips' markers and curves (docs/gltf.md lists every loss).\n");
}

/* "A:B:C" fields into parts (at most max); returns their count. The text is modified. */
static uint32_t split(char *text, char **parts, uint32_t max) {
    uint32_t n = 0;
    char *p = text;
    while (n < max) {
        parts[n++] = p;
        char *c = strchr(p, ':');
        if (!c)
            break;
        *c = '\0';
        p = c + 1;
    }
    return n;
}

static bool number(const char *s, double *out) {
    char *end = NULL;
    double v = strtod(s, &end);
    if (!s[0] || *end || !isfinite(v))
        return false;
    *out = v;
    return true;
}

typedef struct clip_list {
    oroya_clip *clips[EXPORT_MAX_CLIPS];
    bool owned[EXPORT_MAX_CLIPS];
    uint32_t count;
} clip_list;

static uint32_t key_count(const oroya_clip *c) {
    uint32_t n = 0;
    for (uint32_t t = 0; t < c->track_count; t++)
        n += c->tracks[t].key_count;
    return n;
}

static bool has_rotations(const oroya_clip *c) {
    for (uint32_t t = 0; t < c->track_count; t++) {
        if (c->tracks[t].property == OROYA_PROPERTY_ROTATION)
            return true;
    }
    return false;
}

/* --compress: each clip that binds joints of skin 0 replaced by its keys reduced under `tol`
 * (oroya_pose_clip_reduce, rotations on the snorm16 grid); the others kept, said on stderr.
 * *snorm16 tells whether every written rotation is on that grid. 0, or 1 after a message. */
static int compress_clips(const oroya_gltf_model *m, clip_list *list, float tol, bool *snorm16) {
    *snorm16 = true;
    oroya_rig *rig = NULL;
    oroya_error err = {0};
    if (!m->skin_count) {
        fprintf(stderr,
                "oroya export: --compress: the file has no skin; clips written unchanged\n");
    } else if (oroya_rig_create_gltf(m, 0, NULL, &rig, &err) != OROYA_OK) {
        fprintf(stderr, "oroya export: --compress: %s\n", cli_esc(err.message));
        return 1;
    }
    oroya_pose_compress cp = {.tolerance = tol};
    int rc = 0;
    bool unchanged_rotations = false; /* a clip written unchanged has rotations */
    for (uint32_t i = 0; !rc && i < list->count; i++) {
        oroya_clip *c = list->clips[i];
        oroya_pose_clip_desc d = {.skeleton = oroya_rig_skeleton(rig), .clip = c, .compress = &cp};
        oroya_pose_clip *pc = NULL;
        bool bound = false;
        if (rig &&
            oroya_pose_clip_create(&(oroya_pose_clip_desc){.skeleton = d.skeleton, .clip = c}, &pc,
                                   &err) == OROYA_OK) {
            bound = oroya_pose_clip_ignored_tracks(pc) < c->track_count;
            oroya_pose_clip_destroy(pc);
        }
        if (!bound) {
            if (rig && err.message[0]) {
                fprintf(stderr,
                        "oroya export: --compress: clip '%s' cannot be compressed (%s); written "
                        "unchanged\n",
                        cli_esc(c->name), cli_esc(err.message));
            } else if (rig) {
                fprintf(stderr,
                        "oroya export: --compress: clip '%s' animates no joint of skin 0; written "
                        "unchanged\n",
                        cli_esc(c->name));
            }
            if (has_rotations(c)) {
                *snorm16 = false;
                unchanged_rotations = true;
            }
            err.message[0] = '\0';
            continue;
        }
        oroya_clip *r = NULL;
        float e = 0;
        if (oroya_pose_clip_reduce(&d, true, &r, &e, &err) != OROYA_OK) {
            fprintf(stderr, "oroya export: --compress %g: clip '%s': %s\n", (double)tol,
                    cli_esc(c->name), cli_esc(err.message));
            rc = 1;
            break;
        }
        fprintf(stderr, "clip '%s': %u keys -> %u, max error %.3g (tolerance %g)\n",
                cli_esc(c->name), key_count(c), key_count(r), (double)e, (double)tol);
        if (!oroya_clip_rotations_snorm16(r)) {
            fprintf(stderr,
                    "oroya export: --compress %g: clip '%s': rotations as normalized shorts "
                    "miss the bound; rotations stay float\n",
                    (double)tol, cli_esc(c->name));
            *snorm16 = false;
        }
        if (list->owned[i])
            oroya_clip_destroy(c);
        list->clips[i] = r;
        list->owned[i] = true;
    }
    if (!rc && unchanged_rotations) {
        fprintf(
            stderr,
            "oroya export: --compress: rotations stay float (a clip written unchanged has some)\n");
    }
    oroya_rig_destroy(rig);
    return rc;
}

int oroya_cmd_export(int argc, char **argv) {
    const char *in = NULL, *out = NULL;
    const char *ops[EXPORT_MAX_OPS][2];
    uint32_t op_count = 0;
    float tol = 0;
    bool allow_outside = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "--allow-outside")) {
            allow_outside = true;
        } else if (!strcmp(a, "--subclip") || !strcmp(a, "--make-additive") ||
                   !strcmp(a, "--drop")) {
            if (i + 1 >= argc) {
                fprintf(stderr, "oroya export: %s needs a value\n(see 'oroya export --help')\n",
                        cli_esc(a));
                return 2;
            }
            if (op_count == EXPORT_MAX_OPS) {
                fprintf(stderr, "oroya export: more than %d clip options\n", EXPORT_MAX_OPS);
                return 2;
            }
            ops[op_count][0] = a;
            ops[op_count++][1] = argv[++i];
        } else if (!strcmp(a, "--compress")) {
            if (i + 1 >= argc) {
                fprintf(stderr, "oroya export: %s needs a value\n(see 'oroya export --help')\n",
                        cli_esc(a));
                return 2;
            }
            if (cli_parse_tolerance("export", argv[++i], &tol))
                return 2;
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "oroya export: unknown option '%s'\n(see 'oroya export --help')\n",
                    cli_esc(a));
            return 2;
        } else if (!in) {
            in = a;
        } else if (!out) {
            out = a;
        } else {
            fprintf(stderr,
                    "oroya export: more than two files ('%s')\n(see 'oroya export --help')\n",
                    cli_esc(a));
            return 2;
        }
    }
    if (!in || !out) {
        usage(stderr);
        return 2;
    }
    const char *dot = strrchr(out, '.');
    bool binary = dot && !strcasecmp(dot, ".glb");
    if (!dot || (!binary && strcasecmp(dot, ".gltf"))) {
        fprintf(stderr, "oroya export: output '%s' must end in .gltf or .glb\n", cli_esc(out));
        return 2;
    }
    /* OUT.gltf's OUT.bin must not replace a file IN reads (unless OUT is IN itself: then
     * both are replaced together). */
    if (!binary) {
        char side[PATH_MAX], real_side[PATH_MAX], real_in[PATH_MAX], real_out[PATH_MAX];
        const size_t stem = (size_t)(dot - out);
        if (stem + 5 <= sizeof side) {
            memcpy(side, out, stem);
            memcpy(side + stem, ".bin", 5);
            const bool same =
                realpath(in, real_in) && realpath(out, real_out) && !strcmp(real_in, real_out);
            if (!same && realpath(side, real_side) && input_references(in, real_side)) {
                fprintf(stderr,
                        "oroya export: %s: writing it would replace '%s', which %s reads; "
                        "choose another output name\n",
                        cli_esc(out), cli_esc(side), cli_esc(in));
                return 1;
            }
        }
    }
    oroya_gltf_model *m = NULL;
    oroya_gltf_import_desc desc = {0};
    desc.skip_image_decode = true; /* the file's bytes go back out; no pixels needed */
    desc.allow_outside_base_dir = allow_outside;
    if (cli_gltf_load("export", in, &desc, &m))
        return 1;
    clip_list *list = calloc(1, sizeof *list);
    int rc = list ? 0 : 1;
    if (!list)
        fprintf(stderr, "oroya export: out of memory\n");
    for (uint32_t i = 0; list && i < m->clip_count && i < EXPORT_MAX_CLIPS; i++)
        list->clips[list->count++] = m->clips[i];
    if (list && m->clip_count > EXPORT_MAX_CLIPS) {
        fprintf(stderr, "oroya export: %s has %u clips; at most %d are written\n", cli_esc(in),
                m->clip_count, EXPORT_MAX_CLIPS);
        rc = 1;
    }
    for (uint32_t o = 0; !rc && o < op_count; o++) {
        char text[512];
        if (strlen(ops[o][1]) >= sizeof text) {
            fprintf(stderr, "oroya export: %s value too long\n", ops[o][0]);
            rc = 2;
            break;
        }
        strcpy(text, ops[o][1]);
        if (!strcmp(ops[o][0], "--subclip")) {
            char *new_name = strchr(text, '=');
            if (new_name)
                *new_name++ = '\0';
            char *f[5];
            double start = 0, end = 0, fps = 0;
            if (split(text, f, 5) != 4 || !number(f[1], &start) || !number(f[2], &end) ||
                !number(f[3], &fps) || fps <= 0 || end <= start) {
                fprintf(stderr,
                        "oroya export: --subclip '%s' is not NAME:START:END:FPS with START < END "
                        "and FPS > 0\n",
                        cli_esc(ops[o][1]));
                rc = 2;
                break;
            }
            int32_t k = cli_find_clip("export", in, list->clips, list->count, f[0]);
            if (k < 0) {
                rc = 1;
                break;
            }
            char name[600];
            if (new_name && new_name[0])
                snprintf(name, sizeof name, "%s", new_name);
            else
                snprintf(name, sizeof name, "%s_%s_%s", list->clips[k]->name, f[1], f[2]);
            /* A name another clip answers to would take that clip's name from it on the next
             * read (glTF names are kept only when unique) and make a later --drop or
             * --make-additive of the name pick the first of the two. */
            int32_t taken = cli_clip_index(list->clips, list->count, name);
            if (taken >= 0) {
                fprintf(stderr,
                        "oroya export: --subclip %s: clip %d is named '%s' already; name the "
                        "subclip with =NEW\n",
                        cli_esc(ops[o][1]), taken, cli_esc(name));
                rc = 1;
                break;
            }
            if (list->count == EXPORT_MAX_CLIPS) {
                fprintf(stderr, "oroya export: more than %d clips\n", EXPORT_MAX_CLIPS);
                rc = 1;
                break;
            }
            oroya_clip *sub = NULL;
            oroya_error err = {0};
            if (oroya_clip_subclip(list->clips[k], name, start, end, fps, &sub, &err) != OROYA_OK) {
                fprintf(stderr, "oroya export: --subclip %s: %s\n", cli_esc(ops[o][1]),
                        cli_esc(err.message));
                rc = 1;
                break;
            }
            if (!sub->track_count) {
                fprintf(stderr,
                        "oroya export: --subclip %s: no key of clip '%s' lies in frames %g..%g at "
                        "%g fps\n",
                        cli_esc(ops[o][1]), cli_esc(list->clips[k]->name), start, end, fps);
                oroya_clip_destroy(sub);
                rc = 1;
                break;
            }
            list->owned[list->count] = true;
            list->clips[list->count++] = sub;
        } else if (!strcmp(ops[o][0], "--make-additive")) {
            char *f[4];
            uint32_t n = split(text, f, 4);
            double frame = 0;
            if (n > 3 || (n >= 2 && !number(f[1], &frame))) {
                fprintf(stderr, "oroya export: --make-additive '%s' is not NAME[:FRAME[:REF]]\n",
                        cli_esc(ops[o][1]));
                rc = 2;
                break;
            }
            int32_t k = cli_find_clip("export", in, list->clips, list->count, f[0]);
            int32_t ref = n == 3 ? cli_find_clip("export", in, list->clips, list->count, f[2]) : k;
            if (k < 0 || ref < 0) {
                rc = 1;
                break;
            }
            /* In place on the clip the file gave us: it is the one written. */
            oroya_result r =
                oroya_clip_make_additive(list->clips[k], frame, list->clips[ref], 30.0);
            if (r != OROYA_OK) {
                fprintf(stderr, "oroya export: --make-additive %s: %s\n", cli_esc(ops[o][1]),
                        oroya_result_string(r));
                rc = 1;
                break;
            }
        } else {
            int32_t k = cli_find_clip("export", in, list->clips, list->count, text);
            if (k < 0) {
                rc = 1;
                break;
            }
            if (list->owned[k])
                oroya_clip_destroy(list->clips[k]);
            memmove(&list->clips[k], &list->clips[k + 1],
                    (list->count - (uint32_t)k - 1) * sizeof list->clips[0]);
            memmove(&list->owned[k], &list->owned[k + 1],
                    (list->count - (uint32_t)k - 1) * sizeof list->owned[0]);
            list->count--;
        }
    }
    bool snorm16 = false;
    if (!rc && tol > 0)
        rc = compress_clips(m, list, tol, &snorm16);
    if (!rc) {
        oroya_error err = {0};
        /* .model: what the scene does not hold (names, cameras as the file had them, skin.skeleton,
         * line primitives, nodes outside the scene that a clip animates) comes back as read. */
        oroya_gltf_write_desc wd = {.binary = binary,
                                    .clips = (const oroya_clip *const *)list->clips,
                                    .clip_count = list->count,
                                    .snorm16_rotations = snorm16,
                                    .model = m};
        if (oroya_gltf_write(m->scene, &wd, out, &err) != OROYA_OK) {
            cli_report("export", out, &err);
            rc = 1;
        } else {
            /* A clip with no channel (only curves, or none) has no glTF animation. */
            uint32_t written = 0;
            for (uint32_t i = 0; i < list->count; i++) {
                bool channel = false;
                for (uint32_t t = 0; t < list->clips[i]->track_count && !channel; t++) {
                    channel = list->clips[i]->tracks[t].property != OROYA_PROPERTY_CURVE;
                }
                written += channel;
            }
            fprintf(stderr, "wrote %s (%u clip%s%s)\n", cli_esc(out), written,
                    written == 1 ? "" : "s",
                    written < list->count ? ", clips without channels left out" : "");
            /* What import read past (docs/gltf.md, "Export"): one note per kind. */
            for (uint32_t i = 0; i < m->unkept_count; i++) {
                fprintf(stderr, "oroya export: note: %s\n", cli_esc(m->unkept[i]));
            }
            /* Core glTF holds PNG and JPEG images; the exporter leaves others out with the
             * textures that use them (docs/gltf.md): say which. */
            for (uint32_t i = 0; i < m->image_count; i++) {
                const char *mt = m->images[i].mime_type;
                if (m->images[i].encoded && mt &&
                    (!strcmp(mt, "image/png") || !strcmp(mt, "image/jpeg")))
                    continue;
                fprintf(stderr,
                        "oroya export: note: images[%u] (\"%s\", %s) left out with the textures "
                        "that use it: glTF without extensions holds PNG and JPEG only\n",
                        i, cli_esc(m->images[i].name ? m->images[i].name : ""),
                        mt && mt[0] ? cli_esc(mt) : "not PNG or JPEG");
            }
        }
    }
    for (uint32_t i = 0; list && i < list->count; i++) {
        if (list->owned[i])
            oroya_clip_destroy(list->clips[i]);
    }
    free(list);
    oroya_gltf_model_free(m);
    return rc;
}
