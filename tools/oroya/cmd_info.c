/* oroya info FILE [--json]: what a glTF file holds, as oroya loads it: the node tree (with
 * the names tracks use), meshes, skins with joint counts, clips with duration, channels and
 * interpolations. */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_util.h"
#include "oroya/gltf.h"
#include "oroya/pose.h"

static const char *const path_names[] = {"unknown", "translation", "rotation", "scale", "weights"};
static const char *const interp_names[] = {"LINEAR", "STEP", "CUBICSPLINE"};
static const char *const kind_names[] = {"object",       "bone",   "mesh",
                                         "skinned mesh", "camera", "light"};

static void usage(FILE *f) {
    fprintf(f, "usage: oroya info FILE [--json] [--allow-outside] [--compress TOL]\n\n"
               "Prints the node tree, meshes, skins and clips of a .gltf or .glb file.\n"
               "Node names are the ones tracks and `oroya sample` use: the glTF name when it\n"
               "is unique, else node_<index>; clips likewise (animation_<index>).\n"
               "Each clip's runtime size (bytes of its pose clip over the scene's nodes) is\n"
               "printed in float storage and compressed at TOL scene units (default 0.0001,\n"
               "0.1 mm in a metre scene) with the error measured in model space (joints and\n"
               "virtual vertices 0.1 from each joint).\n"
               "--allow-outside lets the file's buffers and images lie outside its folder (by\n"
               "default \"../x.bin\", absolute paths and links that lead out are refused).\n");
}

/* The runtime cost of each clip: a pose skeleton over every node of the loaded scene (dense
 * order, parents first), each clip built in float storage and compressed at `tol`. */
typedef struct clip_cost {
    bool ok;
    size_t float_bytes;
    oroya_pose_clip_info info;
    char error[sizeof(((oroya_error *)0)->message)];
} clip_cost;

static clip_cost *clip_costs(const oroya_gltf_model *m, float tol) {
    clip_cost *out = (clip_cost *)calloc((size_t)m->clip_count + 1, sizeof *out);
    const uint32_t n = oroya_scene_node_count(m->scene);
    uint32_t *parents = (uint32_t *)malloc(((size_t)n + 1) * sizeof *parents);
    oroya_transform *rest = (oroya_transform *)malloc(((size_t)n + 1) * sizeof *rest);
    const char **names = (const char **)malloc(((size_t)n + 1) * sizeof *names);
    oroya_pose_skeleton *skel = NULL;
    oroya_error err = {0};
    if (out && parents && rest && names && n > 0 && n <= OROYA_POSE_MAX_JOINTS) {
        const uint32_t *par = oroya_scene_parent_indices(m->scene);
        for (uint32_t j = 0; j < n; j++) {
            parents[j] = par[j];
            rest[j] = (oroya_transform){{0, 0, 0}, {0, 0, 0, 1}, {1, 1, 1}};
            names[j] = "";
        }
        for (uint32_t i = 0; i < m->node_count; i++) {
            const uint32_t j = m->nodes[i].id ? oroya_scene_node_index(m->scene, m->nodes[i]) : n;
            if (j < n) {
                oroya_scene_get_transform(m->scene, m->nodes[i], &rest[j]);
                names[j] = m->node_names[i];
            }
        }
        oroya_pose_skeleton_desc sd = {
            .joint_count = n, .parents = parents, .rest = rest, .names = names};
        if (oroya_pose_skeleton_create(&sd, &skel, &err) != OROYA_OK) {
            skel = NULL;
        }
    }
    for (uint32_t a = 0; out && a < m->clip_count; a++) {
        clip_cost *c = &out[a];
        if (!skel) {
            snprintf(c->error, sizeof c->error, "%s",
                     n > OROYA_POSE_MAX_JOINTS ? "too many nodes for a pose skeleton"
                     : err.message[0]          ? err.message
                                               : "no scene");
            continue;
        }
        oroya_pose_compress cp = {.tolerance = tol};
        oroya_pose_clip_desc d = {.skeleton = skel, .clip = m->clips[a]};
        oroya_pose_clip *pc = NULL;
        if (oroya_pose_clip_create(&d, &pc, &err) == OROYA_OK) {
            oroya_pose_clip_get_info(pc, &c->info);
            c->float_bytes = c->info.bytes;
            oroya_pose_clip_destroy(pc);
            d.compress = &cp;
        }
        if (d.compress && oroya_pose_clip_create(&d, &pc, &err) == OROYA_OK) {
            oroya_pose_clip_get_info(pc, &c->info);
            oroya_pose_clip_destroy(pc);
            c->ok = true;
        } else {
            snprintf(c->error, sizeof c->error, "%s", err.message);
        }
    }
    oroya_pose_skeleton_destroy(skel);
    free(parents);
    free(rest);
    free(names);
    return out;
}

/* Parent of every glTF node (OROYA_GLTF_NONE for roots), from the children lists; validated
 * data has at most one parent per node. NULL when out of memory. */
static uint32_t *gltf_parents(const oroya_gltf_data *d) {
    uint32_t *p = (uint32_t *)malloc(((size_t)d->node_count + 1) * sizeof *p);
    for (uint32_t i = 0; p && i < d->node_count; i++) {
        p[i] = OROYA_GLTF_NONE;
    }
    for (uint32_t i = 0; p && i < d->node_count; i++) {
        for (uint32_t k = 0; k < d->nodes[i].child_count; k++) {
            p[d->nodes[i].children[k]] = i;
        }
    }
    return p;
}

static void print_tree(const oroya_gltf_data *d, const oroya_gltf_model *m, uint32_t i, int depth) {
    const oroya_gltf_node *n = &d->nodes[i];
    oroya_node_kind kind = OROYA_NODE_OBJECT;
    oroya_scene_node_kind(m->scene, m->nodes[i], &kind);
    printf("  %*s%s", depth * 2, "", cli_esc(m->node_names[i]));
    /* The file's own name too, where the name above is not it (a duplicate, a node_<digits>
     * lookalike): `node_1 "arm"`. */
    if (n->name && n->name[0] && strcmp(n->name, m->node_names[i]) != 0) {
        printf(" \"%s\"", cli_esc(n->name));
    }
    printf(" (%s)", kind_names[kind]);
    if (n->mesh != OROYA_GLTF_NONE) {
        printf(" mesh %u", n->mesh);
    }
    if (n->skin != OROYA_GLTF_NONE) {
        printf(" skin:%u", n->skin);
    }
    if (n->camera != OROYA_GLTF_NONE) {
        printf(" camera %u", n->camera);
    }
    if (m->nodes[i].id == 0) {
        printf(" [not in the loaded scene]");
    }
    printf("\n");
    if (depth > 64) {
        printf("  %*s...\n", depth * 2 + 2, "");
        return;
    }
    for (uint32_t k = 0; k < n->child_count; k++) {
        print_tree(d, m, n->children[k], depth + 1);
    }
}

static void print_text(const char *file, const oroya_gltf_data *d, const oroya_gltf_model *m,
                       const uint32_t *parents, const clip_cost *costs, float tol) {
    printf("%s: glTF 2.0%s, %u node%s, %u mesh%s, %u skin%s, %u clip%s\n", cli_esc(file),
           d->is_glb ? " (GLB)" : "", d->node_count, d->node_count == 1 ? "" : "s", d->mesh_count,
           d->mesh_count == 1 ? "" : "es", d->skin_count, d->skin_count == 1 ? "" : "s",
           d->animation_count, d->animation_count == 1 ? "" : "s");
    if (d->copyright) {
        printf("copyright: %s\n", cli_esc(d->copyright));
    }
    if (m->unkept_count) {
        printf("not kept (oroya reads past these; export does not write them):\n");
        for (uint32_t i = 0; i < m->unkept_count; i++) {
            printf("  %s\n", cli_esc(m->unkept[i]));
        }
    }
    printf("nodes:\n");
    for (uint32_t i = 0; i < d->node_count; i++) {
        if (parents[i] == OROYA_GLTF_NONE) {
            print_tree(d, m, i, 0);
        }
    }
    if (d->mesh_count) {
        printf("meshes:\n");
    }
    for (uint32_t i = 0; i < d->mesh_count; i++) {
        const oroya_gltf_mesh *mesh = &d->meshes[i];
        printf("  mesh %u%s%s%s: %u primitive%s", i, mesh->name ? " \"" : "", cli_esc(mesh->name),
               mesh->name ? "\"" : "", mesh->primitive_count,
               mesh->primitive_count == 1 ? "" : "s");
        for (uint32_t p = 0; p < mesh->primitive_count; p++) {
            const oroya_geometry *g = m->geometries[m->mesh_first_geometry[i] + p];
            if (g) {
                printf("%s %u vertices, %u triangles%s", p ? ";" : ",", g->vertex_count,
                       g->index_count / 3, g->joints ? ", skinned" : "");
                if (g->morph_target_count) {
                    printf(", %u morph targets", g->morph_target_count);
                }
            } else {
                printf("%s mode %u (not loaded)", p ? ";" : ",", mesh->primitives[p].mode);
            }
        }
        printf("\n");
    }
    if (m->skin_count) {
        printf("skins:\n");
    }
    for (uint32_t s = 0; s < m->skin_count; s++) {
        const oroya_gltf_model_skin *sk = &m->skins[s];
        printf("  skin:%u%s%s%s: %u joints", s, sk->name[0] ? " \"" : "", cli_esc(sk->name),
               sk->name[0] ? "\"" : "", sk->joint_count);
        if (d->skins[s].skeleton != OROYA_GLTF_NONE) {
            printf(", skeleton %s", cli_esc(m->node_names[d->skins[s].skeleton]));
        }
        printf("\n");
    }
    if (m->clip_count) {
        printf("clips:\n");
    }
    for (uint32_t a = 0; a < m->clip_count; a++) {
        const oroya_clip *c = m->clips[a];
        const oroya_gltf_animation *an = &d->animations[a];
        printf("  \"%s\" (animation_%u): %.6g s, %u channel%s\n", cli_esc(c->name), a,
               (double)c->duration, an->channel_count, an->channel_count == 1 ? "" : "s");
        for (uint32_t k = 0; k < an->channel_count; k++) {
            const oroya_gltf_channel *ch = &an->channels[k];
            const oroya_gltf_sampler *s = &an->samplers[ch->sampler];
            printf("    %s.%s %s, %u keys\n",
                   ch->node == OROYA_GLTF_NONE ? "(none)" : cli_esc(m->node_names[ch->node]),
                   path_names[ch->path], interp_names[s->interpolation],
                   d->accessors[s->input].count);
        }
        if (c->normalized_key_count) {
            printf("    %u non-unit rotation key%s normalized on load (first: track %u \"%s\" "
                   "key %u)\n",
                   c->normalized_key_count, c->normalized_key_count == 1 ? "" : "s",
                   c->first_normalized_track, cli_esc(c->tracks[c->first_normalized_track].target),
                   c->first_normalized_key);
        }
        if (costs && costs[a].ok) {
            const oroya_pose_clip_info *in = &costs[a].info;
            printf("    runtime: %zu bytes float; %zu bytes %s at %g, max error %.3g (joints "
                   "%.3g)\n",
                   costs[a].float_bytes, in->bytes, in->compressed ? "compressed" : "kept in float",
                   (double)tol, (double)in->max_error, (double)in->max_joint_error);
        } else if (costs) {
            printf("    runtime: not built: %s\n", cli_esc(costs[a].error));
        }
    }
}

static int print_json(const char *file, const oroya_gltf_data *d, const oroya_gltf_model *m,
                      const uint32_t *parents, const clip_cost *costs, float tol) {
    cJSON *root = cJSON_CreateObject();
    /* JSON text must be UTF-8; the file name is whatever bytes the shell gave (names from
     * the file itself are checked at load). A bad byte becomes U+FFFD. */
    size_t flen = strlen(file);
    char *clean = (char *)malloc(flen * 3 + 1);
    size_t at = 0;
    for (size_t i = 0; clean && i < flen;) {
        size_t k = oroya_utf8_sequence_length(file + i, flen - i);
        if (k == 0) {
            memcpy(clean + at, "\xef\xbf\xbd", 3);
            at += 3;
            i++;
        } else {
            memcpy(clean + at, file + i, k);
            at += k;
            i += k;
        }
    }
    if (clean) {
        clean[at] = '\0';
    }
    cJSON_AddStringToObject(root, "file", clean ? clean : "");
    free(clean);
    cJSON_AddBoolToObject(root, "glb", d->is_glb);
    if (d->copyright) {
        cJSON_AddStringToObject(root, "copyright", d->copyright);
    }
    cJSON *unkept = cJSON_AddArrayToObject(root, "notKept");
    for (uint32_t i = 0; i < m->unkept_count; i++) {
        cJSON_AddItemToArray(unkept, cJSON_CreateString(m->unkept[i]));
    }
    cJSON *nodes = cJSON_AddArrayToObject(root, "nodes");
    for (uint32_t i = 0; i < d->node_count; i++) {
        const oroya_gltf_node *n = &d->nodes[i];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "index", i);
        cJSON_AddStringToObject(o, "name", m->node_names[i]);
        if (n->name) {
            cJSON_AddStringToObject(o, "gltfName", n->name);
        }
        oroya_node_kind kind = OROYA_NODE_OBJECT;
        oroya_scene_node_kind(m->scene, m->nodes[i], &kind);
        cJSON_AddStringToObject(o, "kind", kind_names[kind]);
        cJSON_AddBoolToObject(o, "inScene", m->nodes[i].id != 0);
        uint32_t parent = parents[i];
        if (parent == OROYA_GLTF_NONE) {
            cJSON_AddNullToObject(o, "parent");
        } else {
            cJSON_AddNumberToObject(o, "parent", parent);
        }
        cJSON *ch = cJSON_AddArrayToObject(o, "children");
        for (uint32_t k = 0; k < n->child_count; k++) {
            cJSON_AddItemToArray(ch, cJSON_CreateNumber(n->children[k]));
        }
        if (n->mesh != OROYA_GLTF_NONE)
            cJSON_AddNumberToObject(o, "mesh", n->mesh);
        if (n->skin != OROYA_GLTF_NONE)
            cJSON_AddNumberToObject(o, "skin", n->skin);
        if (n->camera != OROYA_GLTF_NONE)
            cJSON_AddNumberToObject(o, "camera", n->camera);
        cJSON_AddItemToArray(nodes, o);
    }
    cJSON *meshes = cJSON_AddArrayToObject(root, "meshes");
    for (uint32_t i = 0; i < d->mesh_count; i++) {
        cJSON *o = cJSON_CreateObject();
        if (d->meshes[i].name) {
            cJSON_AddStringToObject(o, "name", d->meshes[i].name);
        }
        cJSON *prims = cJSON_AddArrayToObject(o, "primitives");
        for (uint32_t p = 0; p < d->meshes[i].primitive_count; p++) {
            const oroya_geometry *g = m->geometries[m->mesh_first_geometry[i] + p];
            cJSON *po = cJSON_CreateObject();
            cJSON_AddNumberToObject(po, "mode", d->meshes[i].primitives[p].mode);
            cJSON_AddBoolToObject(po, "loaded", g != NULL);
            if (g) {
                cJSON_AddNumberToObject(po, "vertices", g->vertex_count);
                cJSON_AddNumberToObject(po, "triangles", g->index_count / 3);
                cJSON_AddNumberToObject(po, "morphTargets", g->morph_target_count);
                cJSON_AddBoolToObject(po, "skinned", g->joints != NULL);
            }
            cJSON_AddItemToArray(prims, po);
        }
        cJSON_AddItemToArray(meshes, o);
    }
    cJSON *skins = cJSON_AddArrayToObject(root, "skins");
    for (uint32_t s = 0; s < m->skin_count; s++) {
        cJSON *o = cJSON_CreateObject();
        char name[32];
        snprintf(name, sizeof name, "skin:%u", s);
        cJSON_AddStringToObject(o, "name", name);
        cJSON_AddStringToObject(o, "gltfName", m->skins[s].name);
        cJSON_AddNumberToObject(o, "jointCount", m->skins[s].joint_count);
        cJSON *j = cJSON_AddArrayToObject(o, "joints");
        for (uint32_t k = 0; k < m->skins[s].joint_count; k++) {
            cJSON_AddItemToArray(j, cJSON_CreateString(m->node_names[d->skins[s].joints[k]]));
        }
        cJSON_AddItemToArray(skins, o);
    }
    cJSON *clips = cJSON_AddArrayToObject(root, "clips");
    for (uint32_t a = 0; a < m->clip_count; a++) {
        const oroya_gltf_animation *an = &d->animations[a];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "name", m->clips[a]->name);
        cJSON_AddNumberToObject(o, "index", a);
        cJSON_AddNumberToObject(o, "duration", (double)m->clips[a]->duration);
        if (m->clips[a]->normalized_key_count) {
            cJSON_AddNumberToObject(o, "normalized_rotation_keys",
                                    m->clips[a]->normalized_key_count);
        }
        cJSON *chs = cJSON_AddArrayToObject(o, "channels");
        for (uint32_t k = 0; k < an->channel_count; k++) {
            const oroya_gltf_channel *ch = &an->channels[k];
            const oroya_gltf_sampler *s = &an->samplers[ch->sampler];
            cJSON *co = cJSON_CreateObject();
            if (ch->node == OROYA_GLTF_NONE) {
                cJSON_AddNullToObject(co, "node");
            } else {
                cJSON_AddStringToObject(co, "node", m->node_names[ch->node]);
            }
            cJSON_AddStringToObject(co, "path", path_names[ch->path]);
            cJSON_AddStringToObject(co, "interpolation", interp_names[s->interpolation]);
            cJSON_AddNumberToObject(co, "keys", d->accessors[s->input].count);
            cJSON_AddItemToArray(chs, co);
        }
        if (costs && costs[a].ok) {
            cJSON *rt = cJSON_AddObjectToObject(o, "runtime");
            cJSON_AddNumberToObject(rt, "float_bytes", (double)costs[a].float_bytes);
            cJSON_AddNumberToObject(rt, "tolerance", (double)tol);
            cJSON_AddBoolToObject(rt, "compressed", costs[a].info.compressed);
            cJSON_AddNumberToObject(rt, "bytes", (double)costs[a].info.bytes);
            cJSON_AddNumberToObject(rt, "max_error", (double)costs[a].info.max_error);
            cJSON_AddNumberToObject(rt, "max_joint_error", (double)costs[a].info.max_joint_error);
        }
        cJSON_AddItemToArray(clips, o);
    }
    char *text = cJSON_Print(root);
    int rc = text ? 0 : 1;
    if (text) {
        rc = cli_json_write(stdout, text, strlen(text)) || putchar('\n') == EOF;
        cJSON_free(text);
    } else {
        fprintf(stderr, "oroya info: out of memory\n");
    }
    cJSON_Delete(root);
    return rc;
}

int oroya_cmd_info(int argc, char **argv) {
    const char *file = NULL;
    bool json = false, allow_outside = false;
    float tol = 1e-4f;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--json")) {
            json = true;
        } else if (!strcmp(argv[i], "--allow-outside")) {
            allow_outside = true;
        } else if (!strcmp(argv[i], "--compress") && i + 1 < argc) {
            if (cli_parse_tolerance("info", argv[++i], &tol)) {
                return 2;
            }
        } else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage(stdout);
            return 0;
        } else if (argv[i][0] == '-' || file) {
            fprintf(stderr, "oroya info: unexpected argument '%s'\n", cli_esc(argv[i]));
            usage(stderr);
            return 2;
        } else {
            file = argv[i];
        }
    }
    if (!file) {
        usage(stderr);
        return 2;
    }
    oroya_gltf_data *d = NULL;
    oroya_gltf_model *m = NULL;
    oroya_error err = {0};
    oroya_gltf_import_desc desc = {0};
    desc.skip_images = true;
    if (cli_check_readable("info", file)) {
        return 1;
    }
    oroya_result r = oroya_gltf_parse_file(
        &(oroya_gltf_desc){.allow_outside_base_dir = allow_outside}, file, &d, &err);
    if (r == OROYA_OK)
        r = oroya_gltf_validate(d, &err);
    if (r == OROYA_OK)
        r = oroya_gltf_import(d, &desc, &m, &err);
    int rc = 1;
    uint32_t *parents = r == OROYA_OK ? gltf_parents(d) : NULL;
    if (r != OROYA_OK) {
        cli_report("info", file, &err);
    } else if (!parents) {
        fprintf(stderr, "oroya info: out of memory\n");
    } else {
        cli_warn_ignored_channels("info", file, m);
        cli_warn_ignored_extras("info", file, m);
        clip_cost *costs = clip_costs(m, tol);
        rc = json ? print_json(file, d, m, parents, costs, tol)
                  : (print_text(file, d, m, parents, costs, tol), 0);
        free(costs);
    }
    free(parents);
    oroya_gltf_model_free(m);
    oroya_gltf_free(d);
    return rc;
}
