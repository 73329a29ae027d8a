/* glTF round trips, field by field: every file in tests/assets and tests/gltf/odd is
 * imported (A), written with its model as .gltf + .bin and as .glb, imported again (B), and
 * B must equal A in everything glTF can express: the node tree, names (file names too),
 * transforms, kinds, morph weights; meshes and their names, every vertex array and index bit
 * for bit; materials, their names and values; skins (joints, inverse bind matrices,
 * skeleton, names, the raw and the normalized influences); cameras as the file had them;
 * clips (names, targets, interpolation, times and values bit for bit); textures (names,
 * samplers, images: the file bytes bit for bit, decoded pixels, mime types); TEXCOORD_1,
 * TANGENT and COLOR_0 (component type and size too); primitives other
 * than triangles (mode, positions, indices). Also: a clip without
 * tracks, .bin names that need percent-encoding, a clip whose target is outside the loaded
 * scene, the scene list (names, roots, nodes only other scenes hold). The written files and their sources are listed in
 * OROYA_BINARY_DIR/test_gltf_round_trip_out/manifest.txt for
 * tests/gltf/test_gltf_round_trip.sh, which runs the Khronos validator on them. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "oroya/gltf.h"
#include "oroya/skin.h"
#include "gltf_files.h"
#include "oroya_test.h"

#define OUT OROYA_BINARY_DIR "/test_gltf_round_trip_out"

static FILE *manifest;

/* "node_<digits>": the FORMAT.md fallback, which follows the glTF node order. */
static bool fallback_name(const char *s, const char *prefix) {
    size_t n = strlen(prefix);
    if (strncmp(s, prefix, n) != 0 || !s[n]) {
        return false;
    }
    for (s += n; *s; s++) {
        if (*s < '0' || *s > '9') {
            return false;
        }
    }
    return true;
}

static bool same_name(const char *a, const char *b) {
    return !strcmp(a, b) || (fallback_name(a, "node_") && fallback_name(b, "node_"));
}

static bool same_floats(const float *a, const float *b, size_t n) {
    return (a == NULL) == (b == NULL) && (!a || n == 0 || memcmp(a, b, n * sizeof *a) == 0);
}

/* The glTF node of a model at a dense index of its scene. */
static uint32_t gltf_node_at(const oroya_gltf_model *m, uint32_t dense) {
    for (uint32_t i = 0; i < m->node_count; i++) {
        if (m->nodes[i].id && oroya_scene_node_index(m->scene, m->nodes[i]) == dense) {
            return i;
        }
    }
    return OROYA_GLTF_NONE;
}

/* The model's geometry index of g, or NONE; *mesh gets its mesh. */
static uint32_t geometry_of(const oroya_gltf_model *m, const oroya_geometry *g, uint32_t *mesh) {
    for (uint32_t k = 0; g && k < m->geometry_count; k++) {
        if (m->geometries[k] == g) {
            *mesh = 0;
            while (*mesh + 1 < m->mesh_count && m->mesh_first_geometry[*mesh + 1] <= k) {
                (*mesh)++;
            }
            return k;
        }
    }
    return OROYA_GLTF_NONE;
}

static uint32_t material_of(const oroya_gltf_model *m, const oroya_material *mat) {
    for (uint32_t i = 0; i < m->material_count; i++) {
        if (&m->materials[i].material == mat) {
            return i;
        }
    }
    return OROYA_GLTF_NONE;
}

/* Field by field: the struct has padding. */
static bool same_material(const oroya_material *a, const oroya_material *b) {
    return !memcmp(a->base_color, b->base_color, sizeof a->base_color) &&
           !memcmp(&a->metallic, &b->metallic, sizeof a->metallic) &&
           !memcmp(&a->roughness, &b->roughness, sizeof a->roughness) &&
           a->double_sided == b->double_sided;
}

static void compare_geometry(const char *what, uint32_t i, const oroya_geometry *a,
                             const oroya_geometry *b) {
    OT_CHECK_MSG(a->vertex_count == b->vertex_count && a->index_count == b->index_count &&
                     a->morph_target_count == b->morph_target_count,
                 "%s: node %u geometry counts", what, i);
    if (a->vertex_count != b->vertex_count || a->index_count != b->index_count ||
        a->morph_target_count != b->morph_target_count) {
        return;
    }
    size_t v = a->vertex_count, mt = (size_t)a->morph_target_count * v * 3;
    OT_CHECK_MSG(same_floats(a->positions, b->positions, v * 3), "%s: node %u positions", what, i);
    OT_CHECK_MSG(same_floats(a->normals, b->normals, v * 3), "%s: node %u normals", what, i);
    OT_CHECK_MSG(same_floats(a->uvs, b->uvs, v * 2), "%s: node %u uvs", what, i);
    OT_CHECK_MSG(a->index_count == 0 ||
                     !memcmp(a->indices, b->indices, a->index_count * sizeof(uint32_t)),
                 "%s: node %u indices", what, i);
    OT_CHECK_MSG((a->joints == NULL) == (b->joints == NULL) &&
                     (!a->joints || !memcmp(a->joints, b->joints, v * 4 * sizeof(uint16_t))),
                 "%s: node %u joints", what, i);
    OT_CHECK_MSG(same_floats(a->weights, b->weights, v * 4), "%s: node %u weights (as in the file)",
                 what, i);
    OT_CHECK_MSG(same_floats(a->morph_positions, b->morph_positions, mt) &&
                     same_floats(a->morph_normals, b->morph_normals, mt),
                 "%s: node %u morph targets", what, i);
    OT_CHECK(!memcmp(&a->bounds_min, &b->bounds_min, sizeof a->bounds_min) &&
             !memcmp(&a->bounds_max, &b->bounds_max, sizeof a->bounds_max));
}

static void compare_skin(const char *what, uint32_t i, const oroya_skin *a, const oroya_skin *b,
                         const oroya_scene *sa, const oroya_scene *sb) {
    OT_CHECK_MSG((a == NULL) == (b == NULL), "%s: node %u skin", what, i);
    if (!a || !b) {
        return;
    }
    size_t v = a->vertex_count;
    OT_CHECK(a->vertex_count == b->vertex_count);
    if (a->vertex_count != b->vertex_count) {
        return;
    }
    OT_CHECK(!memcmp(a->joints, b->joints, v * 4 * sizeof(uint16_t)));
    OT_CHECK_MSG(same_floats(a->weights, b->weights, v * 4), "%s: node %u skin weights", what, i);
    OT_CHECK((a->joints2 == NULL) == (b->joints2 == NULL));
    OT_CHECK(same_floats(a->weights2, b->weights2, v * 4));
    OT_CHECK(a->bind_mode == b->bind_mode &&
             !memcmp(&a->bind_matrix, &b->bind_matrix, sizeof a->bind_matrix));
    OT_CHECK((a->skeleton == NULL) == (b->skeleton == NULL));
    if (a->skeleton && b->skeleton) {
        OT_EQ_INT(b->skeleton->bone_count, a->skeleton->bone_count);
        for (uint32_t k = 0; k < a->skeleton->bone_count && k < b->skeleton->bone_count; k++) {
            OT_CHECK(oroya_scene_node_index(sa, a->skeleton->bones[k]) ==
                     oroya_scene_node_index(sb, b->skeleton->bones[k]));
        }
    }
}

static void compare_camera(const char *what, uint32_t i, const oroya_gltf_model *a, uint32_t ga,
                           const oroya_gltf_model *b, uint32_t gb) {
    uint32_t ca = a->node_cameras[ga], cb = b->node_cameras[gb];
    OT_CHECK_MSG((ca == OROYA_GLTF_NONE) == (cb == OROYA_GLTF_NONE), "%s: node %u camera", what, i);
    if (ca == OROYA_GLTF_NONE || cb == OROYA_GLTF_NONE) {
        return;
    }
    const oroya_gltf_model_camera *x = &a->cameras[ca], *y = &b->cameras[cb];
    OT_CHECK_MSG(!strcmp(x->name, y->name), "%s: camera '%s' vs '%s'", what, x->name, y->name);
    OT_CHECK_MSG(x->orthographic == y->orthographic && x->yfov == y->yfov &&
                     x->aspect_ratio == y->aspect_ratio && x->xmag == y->xmag &&
                     x->ymag == y->ymag && x->znear == y->znear && x->zfar == y->zfar,
                 "%s: camera '%s' fields (aspect %g vs %g, zfar %g vs %g)", what, x->name,
                 (double)x->aspect_ratio, (double)y->aspect_ratio, (double)x->zfar,
                 (double)y->zfar);
    OT_CHECK(!memcmp(&x->camera, &y->camera, sizeof x->camera));
}

/* The glTF mesh of a node: its name, its primitives' materials, and the primitives import
 * kept without geometry (points, lines, strips), mode, positions and indices bit for bit. */
static void compare_mesh(const char *what, uint32_t i, const oroya_gltf_model *a, uint32_t ga,
                         const oroya_gltf_model *b, uint32_t gb) {
    uint32_t ma = a->node_meshes[ga], mb = b->node_meshes[gb];
    OT_CHECK_MSG((ma == OROYA_GLTF_NONE) == (mb == OROYA_GLTF_NONE), "%s: node %u glTF mesh", what,
                 i);
    if (ma == OROYA_GLTF_NONE || mb == OROYA_GLTF_NONE) {
        return;
    }
    OT_CHECK_MSG(!strcmp(a->mesh_names[ma], b->mesh_names[mb]), "%s: node %u mesh '%s' vs '%s'",
                 what, i, a->mesh_names[ma], b->mesh_names[mb]);
    uint32_t fa = a->mesh_first_geometry[ma], fb = b->mesh_first_geometry[mb];
    uint32_t ea = ma + 1 < a->mesh_count ? a->mesh_first_geometry[ma + 1] : a->geometry_count;
    uint32_t eb = mb + 1 < b->mesh_count ? b->mesh_first_geometry[mb + 1] : b->geometry_count;
    OT_CHECK_MSG(ea - fa == eb - fb, "%s: node %u: %u vs %u primitives", what, i, ea - fa, eb - fb);
    for (uint32_t p = 0; p < ea - fa && p < eb - fb; p++) {
        const oroya_gltf_model_primitive *x = &a->primitives[fa + p], *y = &b->primitives[fb + p];
        OT_CHECK((a->geometries[fa + p] == NULL) == (b->geometries[fb + p] == NULL));
        OT_CHECK_MSG(a->geometry_material[fa + p] == b->geometry_material[fb + p],
                     "%s: node %u primitive %u material", what, i, p);
        OT_CHECK_MSG(
            x->mode == y->mode && x->vertex_count == y->vertex_count &&
                x->index_count == y->index_count &&
                same_floats(x->positions, y->positions, (size_t)x->vertex_count * 3) &&
                (x->indices == NULL) == (y->indices == NULL) &&
                (!x->indices || !memcmp(x->indices, y->indices, x->index_count * sizeof(uint32_t))),
            "%s: node %u primitive %u (mode %u vs %u)", what, i, p, x->mode, y->mode);
        size_t v4 = a->geometries[fa + p] ? (size_t)a->geometries[fa + p]->vertex_count * 4 : 0;
        OT_CHECK_MSG((x->weights2 == NULL) == (y->weights2 == NULL) &&
                         (!x->weights2 || (!memcmp(x->joints2, y->joints2, v4 * 2) &&
                                           same_floats(x->weights2, y->weights2, v4))),
                     "%s: node %u primitive %u JOINTS_1/WEIGHTS_1 (as in the file)", what, i, p);
        size_t v = v4 / 4;
        OT_CHECK_MSG(same_floats(x->texcoords1, y->texcoords1, v * 2) &&
                         same_floats(x->tangents, y->tangents, v * 4),
                     "%s: node %u primitive %u TEXCOORD_1/TANGENT", what, i, p);
        OT_CHECK_MSG(x->color_components == y->color_components &&
                         x->color_component_type == y->color_component_type &&
                         same_floats(x->colors, y->colors, v * x->color_components),
                     "%s: node %u primitive %u COLOR_0 (%u x %d vs %u x %d)", what, i, p,
                     x->color_components, (int)x->color_component_type, y->color_components,
                     (int)y->color_component_type);
    }
}

static void compare_nodes(const char *what, const oroya_gltf_model *a, const oroya_gltf_model *b) {
    uint32_t n = oroya_scene_node_count(a->scene);
    OT_CHECK_MSG(oroya_scene_node_count(b->scene) == n, "%s: %u vs %u nodes", what, n,
                 oroya_scene_node_count(b->scene));
    if (oroya_scene_node_count(b->scene) != n) {
        return;
    }
    const uint32_t *pa = oroya_scene_parent_indices(a->scene);
    const uint32_t *pb = oroya_scene_parent_indices(b->scene);
    for (uint32_t i = 0; i < n; i++) {
        oroya_node ha = oroya_scene_node_at(a->scene, i), hb = oroya_scene_node_at(b->scene, i);
        OT_CHECK_MSG(pa[i] == pb[i], "%s: node %u parent", what, i);
        oroya_transform ta, tb;
        oroya_scene_get_transform(a->scene, ha, &ta);
        oroya_scene_get_transform(b->scene, hb, &tb);
        OT_CHECK_MSG(memcmp(&ta, &tb, sizeof ta) == 0, "%s: node %u transform", what, i);
        oroya_node_kind ka, kb;
        oroya_scene_node_kind(a->scene, ha, &ka);
        oroya_scene_node_kind(b->scene, hb, &kb);
        OT_CHECK_MSG(ka == kb, "%s: node %u kind %d vs %d", what, i, (int)ka, (int)kb);
        const char *na = oroya_scene_node_name(a->scene, ha);
        const char *nb = oroya_scene_node_name(b->scene, hb);
        OT_CHECK_MSG(same_name(na, nb), "%s: node %u '%s' vs '%s'", what, i, na, nb);
        uint32_t ga = gltf_node_at(a, i), gb = gltf_node_at(b, i);
        OT_CHECK_MSG((ga == OROYA_GLTF_NONE) == (gb == OROYA_GLTF_NONE), "%s: node %u origin", what,
                     i);
        if (ga != OROYA_GLTF_NONE && gb != OROYA_GLTF_NONE) {
            OT_CHECK_MSG(!strcmp(a->node_file_names[ga], b->node_file_names[gb]),
                         "%s: node %u file name '%s' vs '%s'", what, i, a->node_file_names[ga],
                         b->node_file_names[gb]);
            compare_camera(what, i, a, ga, b, gb);
            compare_mesh(what, i, a, ga, b, gb);
        }
        uint32_t wa = 0, wb = 0;
        const float *xa = oroya_scene_weights(a->scene, ha, &wa);
        const float *xb = oroya_scene_weights(b->scene, hb, &wb);
        OT_CHECK_MSG(wa == wb && same_floats(xa, xb, wa), "%s: node %u morph weights", what, i);
        const oroya_geometry *gma = NULL, *gmb = NULL;
        const oroya_material *ma = NULL, *mb = NULL;
        oroya_scene_get_mesh(a->scene, ha, &gma, &ma);
        oroya_scene_get_mesh(b->scene, hb, &gmb, &mb);
        OT_CHECK_MSG((gma == NULL) == (gmb == NULL), "%s: node %u mesh", what, i);
        if (gma && gmb) {
            compare_geometry(what, i, gma, gmb);
            OT_CHECK_MSG(same_material(ma, mb), "%s: node %u material values", what, i);
            uint32_t mesh_a = 0, mesh_b = 0;
            uint32_t ka_ = geometry_of(a, gma, &mesh_a), kb_ = geometry_of(b, gmb, &mesh_b);
            OT_CHECK(ka_ != OROYA_GLTF_NONE && kb_ != OROYA_GLTF_NONE);
            if (ka_ != OROYA_GLTF_NONE && kb_ != OROYA_GLTF_NONE) {
                OT_CHECK_MSG(!strcmp(a->mesh_names[mesh_a], b->mesh_names[mesh_b]),
                             "%s: node %u mesh name '%s' vs '%s'", what, i, a->mesh_names[mesh_a],
                             b->mesh_names[mesh_b]);
                OT_CHECK_MSG(a->geometry_material[ka_] == b->geometry_material[kb_],
                             "%s: node %u material index %u vs %u", what, i,
                             a->geometry_material[ka_], b->geometry_material[kb_]);
            }
            uint32_t ia = material_of(a, ma), ib = material_of(b, mb);
            OT_CHECK(ia == ib);
        }
        compare_skin(what, i, (const oroya_skin *)oroya_scene_get_skin(a->scene, ha),
                     (const oroya_skin *)oroya_scene_get_skin(b->scene, hb), a->scene, b->scene);
        oroya_camera ca, cb;
        bool has_a = oroya_scene_get_camera(a->scene, ha, &ca) == OROYA_OK;
        bool has_b = oroya_scene_get_camera(b->scene, hb, &cb) == OROYA_OK;
        OT_CHECK(has_a == has_b && (!has_a || !memcmp(&ca, &cb, sizeof ca)));
    }
}

/* The own weights the model kept for glTF node g (outside the loaded scene), or NULL. */
static const oroya_gltf_model_node_weights *own_weights(const oroya_gltf_model *m, uint32_t g) {
    for (uint32_t k = 0; k < m->outside_weight_count; k++) {
        OT_CHECK(k == 0 || m->outside_weights[k - 1].node < m->outside_weights[k].node);
        if (m->outside_weights[k].node == g) {
            return &m->outside_weights[k];
        }
    }
    return NULL;
}

/* A node outside the loaded scene and its subtree: file names, transforms, child counts
 * (node indices may differ between the two files). Recursive: the test files are shallow. */
static void compare_outside(const char *what, const oroya_gltf_model *a, uint32_t ga,
                            const oroya_gltf_model *b, uint32_t gb) {
    OT_CHECK_MSG(
        !strcmp(a->node_file_names[ga], b->node_file_names[gb]) &&
            !memcmp(&a->node_transforms[ga], &b->node_transforms[gb], sizeof(oroya_transform)) &&
            (a->nodes[ga].id == 0) == (b->nodes[gb].id == 0),
        "%s: node '%s' (outside the loaded scene) vs '%s'", what, a->node_file_names[ga],
        b->node_file_names[gb]);
    OT_CHECK_MSG(a->node_child_counts[ga] == b->node_child_counts[gb],
                 "%s: node '%s': %u vs %u children", what, a->node_file_names[ga],
                 a->node_child_counts[ga], b->node_child_counts[gb]);
    /* What it shows, though import built nothing for it: its glTF mesh (name, materials,
     * primitives, every geometry array bit for bit), camera, skin and own morph weights. */
    compare_camera(what, ga, a, ga, b, gb);
    compare_mesh(what, ga, a, ga, b, gb);
    uint32_t ma = a->node_meshes[ga], mb = b->node_meshes[gb];
    if (ma != OROYA_GLTF_NONE && mb != OROYA_GLTF_NONE) {
        uint32_t fa = a->mesh_first_geometry[ma], fb = b->mesh_first_geometry[mb];
        uint32_t ea = ma + 1 < a->mesh_count ? a->mesh_first_geometry[ma + 1] : a->geometry_count;
        for (uint32_t p = 0; p < ea - fa; p++) {
            if (a->geometries[fa + p] && b->geometries[fb + p]) {
                compare_geometry(what, ga, a->geometries[fa + p], b->geometries[fb + p]);
            }
        }
    }
    OT_CHECK_MSG(a->node_skins[ga] == b->node_skins[gb], "%s: node '%s' skin %u vs %u", what,
                 a->node_file_names[ga], a->node_skins[ga], b->node_skins[gb]);
    const oroya_gltf_model_node_weights *wa = own_weights(a, ga), *wb = own_weights(b, gb);
    OT_CHECK_MSG(
        (wa == NULL) == (wb == NULL) &&
            (!wa || (wa->count == wb->count && same_floats(wa->weights, wb->weights, wa->count))),
        "%s: node '%s' morph weights", what, a->node_file_names[ga]);
    for (uint32_t k = 0;
         a->node_child_counts[ga] == b->node_child_counts[gb] && k < a->node_child_counts[ga];
         k++) {
        compare_outside(what, a, a->node_children[ga][k], b, b->node_children[gb][k]);
    }
}

/* The scene list: names, which one is loaded, and the roots of each (the loaded scene's
 * nodes are compared by compare_nodes; the others here). */
static void compare_scenes(const char *what, const oroya_gltf_model *a, const oroya_gltf_model *b) {
    OT_CHECK_MSG(b->scene_count == (a->scene_count ? a->scene_count : 1), "%s: %u vs %u scenes",
                 what, a->scene_count, b->scene_count);
    if (a->scene_count == 0 || b->scene_count != a->scene_count) {
        return;
    }
    OT_EQ_INT(b->scene_index, a->scene_index);
    for (uint32_t s = 0; s < a->scene_count; s++) {
        const oroya_gltf_model_scene *x = &a->scenes[s], *y = &b->scenes[s];
        OT_CHECK_MSG(!strcmp(x->name, y->name) && x->node_count == y->node_count,
                     "%s: scene %u '%s' (%u roots) vs '%s' (%u)", what, s, x->name, x->node_count,
                     y->name, y->node_count);
        for (uint32_t r = 0;
             s != a->scene_index && x->node_count == y->node_count && r < x->node_count; r++) {
            compare_outside(what, a, x->nodes[r], b, y->nodes[r]);
        }
    }
}

static void compare_models(const char *what, const oroya_gltf_model *a, const oroya_gltf_model *b) {
    compare_nodes(what, a, b);
    compare_scenes(what, a, b);
    OT_CHECK_MSG(!strcmp(a->scene_name, b->scene_name), "%s: scene '%s' vs '%s'", what,
                 a->scene_name, b->scene_name);
    OT_CHECK_MSG(a->copyright ? b->copyright && !strcmp(a->copyright, b->copyright) : !b->copyright,
                 "%s: copyright '%s' vs '%s'", what, a->copyright ? a->copyright : "(none)",
                 b->copyright ? b->copyright : "(none)");
    OT_EQ_INT(b->material_count, a->material_count);
    for (uint32_t i = 0; i < a->material_count && i < b->material_count; i++) {
        const oroya_gltf_model_material *x = &a->materials[i], *y = &b->materials[i];
        OT_CHECK_MSG(!strcmp(x->name, y->name), "%s: material %u '%s' vs '%s'", what, i, x->name,
                     y->name);
        OT_CHECK(same_material(&x->material, &y->material));
        OT_CHECK_MSG(x->base_color_texture == y->base_color_texture &&
                         x->base_color_texcoord == y->base_color_texcoord &&
                         x->base_color_image == y->base_color_image,
                     "%s: material %u base color texture %u vs %u", what, i, x->base_color_texture,
                     y->base_color_texture);
    }
    /* Textures, their samplers and images: the image files bit for bit, and the pixels. */
    OT_EQ_INT(b->texture_count, a->texture_count);
    for (uint32_t i = 0; i < a->texture_count && i < b->texture_count; i++) {
        const oroya_gltf_model_texture *x = &a->textures[i], *y = &b->textures[i];
        OT_CHECK_MSG(!strcmp(x->name, y->name) && x->image == y->image &&
                         x->sampler == y->sampler && !strcmp(x->sampler_name, y->sampler_name) &&
                         x->mag_filter == y->mag_filter && x->min_filter == y->min_filter &&
                         x->wrap_s == y->wrap_s && x->wrap_t == y->wrap_t,
                     "%s: texture %u (image %u vs %u, filters %u/%u vs %u/%u)", what, i, x->image,
                     y->image, x->mag_filter, x->min_filter, y->mag_filter, y->min_filter);
    }
    OT_EQ_INT(b->image_count, a->image_count);
    for (uint32_t i = 0; i < a->image_count && i < b->image_count; i++) {
        const oroya_gltf_image_data *x = &a->images[i], *y = &b->images[i];
        OT_CHECK_MSG(!strcmp(x->name, y->name) && !strcmp(x->mime_type, y->mime_type) &&
                         x->encoded && y->encoded && x->encoded_size == y->encoded_size &&
                         !memcmp(x->encoded, y->encoded, (size_t)x->encoded_size),
                     "%s: image %u ('%s', %s, %llu vs %llu bytes)", what, i, x->name, x->mime_type,
                     (unsigned long long)x->encoded_size, (unsigned long long)y->encoded_size);
        OT_CHECK_MSG(
            x->width == y->width && x->height == y->height &&
                (x->pixels == NULL) == (y->pixels == NULL) &&
                (!x->pixels || !memcmp(x->pixels, y->pixels, (size_t)x->width * x->height * 4)),
            "%s: image %u pixels", what, i);
    }
    OT_EQ_INT(b->skin_count, a->skin_count);
    OT_EQ_INT(b->skinned_mesh_count, a->skinned_mesh_count);
    for (uint32_t s = 0; s < a->skin_count && s < b->skin_count; s++) {
        const oroya_gltf_model_skin *x = &a->skins[s], *y = &b->skins[s];
        OT_CHECK_MSG(!strcmp(x->name, y->name), "%s: skin %u '%s' vs '%s'", what, s, x->name,
                     y->name);
        OT_CHECK_MSG(oroya_scene_node_index(a->scene, x->skeleton) ==
                         oroya_scene_node_index(b->scene, y->skeleton),
                     "%s: skin %u skeleton", what, s);
        OT_CHECK((a->skeletons[s] == NULL) == (b->skeletons[s] == NULL));
        OT_CHECK_MSG((x->skeleton_gltf_node == OROYA_GLTF_NONE) ==
                             (y->skeleton_gltf_node == OROYA_GLTF_NONE) &&
                         (x->skeleton_gltf_node == OROYA_GLTF_NONE ||
                          !strcmp(a->node_file_names[x->skeleton_gltf_node],
                                  b->node_file_names[y->skeleton_gltf_node])),
                     "%s: skin %u skeleton node", what, s);
        OT_EQ_INT(y->joint_count, x->joint_count);
        for (uint32_t k = 0; k < x->joint_count && k < y->joint_count; k++) {
            OT_CHECK_MSG(!strcmp(a->node_file_names[x->joint_gltf_nodes[k]],
                                 b->node_file_names[y->joint_gltf_nodes[k]]),
                         "%s: skin %u joint %u '%s' vs '%s'", what, s, k,
                         a->node_file_names[x->joint_gltf_nodes[k]],
                         b->node_file_names[y->joint_gltf_nodes[k]]);
            OT_CHECK(oroya_scene_node_index(a->scene, x->joints[k]) ==
                     oroya_scene_node_index(b->scene, y->joints[k]));
            OT_CHECK(!memcmp(&x->inverse_bind_matrices[k], &y->inverse_bind_matrices[k],
                             sizeof(oroya_mat4)));
        }
    }
    OT_EQ_INT(b->clip_count, a->clip_count);
    for (uint32_t c = 0; c < a->clip_count && c < b->clip_count; c++) {
        const oroya_clip *x = a->clips[c], *y = b->clips[c];
        OT_CHECK_MSG(!strcmp(x->name, y->name), "%s: clip %s vs %s", what, x->name, y->name);
        OT_CHECK(oroya_gltf_model_find_clip(b, x->name) == y);
        OT_CHECK(x->duration == y->duration);
        OT_EQ_INT(y->track_count, x->track_count);
        for (uint32_t t = 0; t < x->track_count && t < y->track_count; t++) {
            const oroya_track *p = &x->tracks[t], *q = &y->tracks[t];
            OT_CHECK_MSG(same_name(p->target, q->target), "%s: track %u target %s vs %s", what, t,
                         p->target, q->target);
            oroya_node np, nq;
            bool in_a = oroya_scene_find_node(a->scene, p->target, &np) == OROYA_OK;
            bool in_b = oroya_scene_find_node(b->scene, q->target, &nq) == OROYA_OK;
            OT_CHECK(in_a == in_b && (!in_a || oroya_scene_node_index(a->scene, np) ==
                                                   oroya_scene_node_index(b->scene, nq)));
            OT_CHECK(p->property == q->property && p->interpolation == q->interpolation);
            OT_CHECK(p->key_count == q->key_count && p->components == q->components &&
                     oroya_track_value_count(p) == oroya_track_value_count(q));
            if (p->key_count == q->key_count &&
                oroya_track_value_count(p) == oroya_track_value_count(q)) {
                OT_CHECK(same_floats(p->times, q->times, p->key_count));
                OT_CHECK(same_floats(p->values, q->values, oroya_track_value_count(p)));
            }
        }
    }
}

static int counter;

static void round_trip(const char *path, void *user) {
    (void)user;
    oroya_gltf_import_desc skip = {.skip_images = false}; /* images are compared too */
    oroya_gltf_model *a = NULL;
    oroya_error err = {0};
    OT_CHECK_MSG(oroya_gltf_load(path, &skip, &a, &err) == OROYA_OK, "%s: %s", path, err.message);
    if (!a) {
        return;
    }
    const char *base = strrchr(path, '/') + 1;
    /* The one sample model with an asset.copyright (its text in the file). */
    if (!strcmp(base, "MorphStressTest.glb")) {
        OT_CHECK(a->copyright && !strncmp(a->copyright, "CC-BY 4.0 Copyright 2021 Analytical", 35));
    }
    for (int binary = 0; binary < 2; binary++) {
        char out[1200];
        snprintf(out, sizeof out, OUT "/%03d_%.*s.%s", counter++, (int)(strchr(base, '.') - base),
                 base, binary ? "glb" : "gltf");
        oroya_gltf_write_desc wd = {.binary = binary != 0,
                                    .clips = (const oroya_clip *const *)a->clips,
                                    .clip_count = a->clip_count,
                                    .model = a};
        OT_CHECK_MSG(oroya_gltf_write(a->scene, &wd, out, &err) == OROYA_OK, "%s: %s", out,
                     err.message);
        fprintf(manifest, "%s\t%s\n", out, path);
        oroya_gltf_model *b = NULL;
        OT_CHECK_MSG(oroya_gltf_load(out, &skip, &b, &err) == OROYA_OK, "%s: %s", out, err.message);
        if (b) {
            compare_models(out, a, b);
        }
        oroya_gltf_model_free(b);
    }
    oroya_gltf_model_free(a);
}

static void test_sample_models(void) {
    OT_EQ_INT(ot_each_gltf(OROYA_SOURCE_DIR "/tests/assets", round_trip, NULL), 31);
}

/* Names, cameras, skin.skeleton, an unused material, a primitive without material, a clip
 * with a 200-character name that animates a node of another scene. */
static void test_odd_model(void) {
    OT_EQ_INT(ot_each_gltf(OROYA_SOURCE_DIR "/tests/gltf/odd", round_trip, NULL), 3);
    oroya_gltf_model *a = NULL, *b = NULL;
    oroya_error err = {0};
    OT_CHECK(oroya_gltf_load(OROYA_SOURCE_DIR "/tests/gltf/odd/odd.gltf", NULL, &a, &err) ==
             OROYA_OK);
    if (!a) {
        return;
    }
    char name[201];
    memset(name, 'a', 200);
    name[200] = '\0';
    OT_CHECK(a->clip_count == 1 && !strcmp(a->clips[0]->name, name));
    OT_CHECK(oroya_gltf_model_find_clip(a, name) == a->clips[0]);
    OT_CHECK(a->cameras[0].aspect_ratio == 0.0f && a->cameras[0].zfar == 0.0f);
    oroya_gltf_write_desc wd = {
        .clips = (const oroya_clip *const *)a->clips, .clip_count = a->clip_count, .model = a};
    OT_EQ_INT(oroya_gltf_write(a->scene, &wd, OUT "/odd_again.gltf", &err), OROYA_OK);
    OT_EQ_INT(oroya_gltf_load(OUT "/odd_again.gltf", NULL, &b, &err), OROYA_OK);
    if (b) {
        OT_CHECK(!strcmp(a->scene_name, "Main") && !strcmp(b->scene_name, "Main"));
        /* The attributes were there to compare: TEXCOORD_1, TANGENT, three kinds of COLOR_0. */
        const oroya_gltf_model_primitive *tri = &a->primitives[a->mesh_first_geometry[0]];
        const oroya_gltf_model_primitive *plain = &a->primitives[a->mesh_first_geometry[2]];
        OT_CHECK(tri->texcoords1 && tri->texcoords1[2] == 0.75f && tri->tangents &&
                 tri->tangents[11] == -1.0f);
        OT_CHECK(tri->colors && tri->color_components == 3 &&
                 tri->color_component_type == OROYA_GLTF_UNSIGNED_BYTE &&
                 tri->colors[6] == (float)(17.0 / 255.0));
        OT_CHECK(plain->colors && plain->color_components == 4 &&
                 plain->color_component_type == OROYA_GLTF_UNSIGNED_SHORT);
        /* The node of the other scene comes back in that scene, outside the loaded one, still
         * animated. */
        OT_EQ_INT(b->node_count, a->node_count);
        OT_CHECK(b->node_count == 12 && b->nodes[11].id == 0 &&
                 !strcmp(b->node_file_names[11], "Elsewhere"));
        OT_CHECK(b->node_count == 12 &&
                 !memcmp(&b->node_transforms[11], &a->node_transforms[7], sizeof(oroya_transform)));
        OT_CHECK(a->node_transforms[7].translation.z == -3.0f);
        /* The mesh of a triangle and a lines primitive is one node again, with one child
         * node per primitive, as import made it the first time. */
        oroya_node wire;
        OT_CHECK(oroya_scene_find_node(b->scene, "wire", &wire) == OROYA_OK &&
                 oroya_scene_child_count(b->scene, wire) == 2);
        OT_CHECK(b->clips[0]->track_count == 2 &&
                 !strcmp(b->clips[0]->tracks[0].target, "Elsewhere"));
        OT_CHECK(b->skins[0].skeleton.id != 0);
    }
    /* Without the model the scene alone is written: the track's target is unknown. */
    wd.model = NULL;
    OT_EQ_INT(oroya_gltf_write(a->scene, &wd, OUT "/odd_bad.gltf", &err), OROYA_ERR_NOT_FOUND);
    /* A model of another scene is refused. */
    wd.model = b;
    OT_EQ_INT(oroya_gltf_write(a->scene, &wd, OUT "/odd_bad.gltf", &err),
              OROYA_ERR_INVALID_ARGUMENT);
    oroya_gltf_model_free(b);
    oroya_gltf_model_free(a);
}

/* scenes.gltf: four scenes (the loaded one second, one empty, one sharing a node with it),
 * nodes only the other scenes hold, with children and a duplicate name. They come back as
 * the file has them, also after a second round trip. */
static void test_extra_scenes(void) {
    oroya_gltf_model *a = NULL, *b = NULL;
    oroya_error err = {0};
    OT_CHECK(oroya_gltf_load(OROYA_SOURCE_DIR "/tests/gltf/odd/scenes.gltf", NULL, &a, &err) ==
             OROYA_OK);
    if (!a) {
        return;
    }
    OT_CHECK(a->scene_count == 4 && a->scene_index == 1 && !strcmp(a->scene_name, "Main"));
    OT_EQ_INT(oroya_scene_node_count(a->scene), 2);
    oroya_gltf_write_desc wd = {.model = a};
    OT_EQ_INT(oroya_gltf_write(a->scene, &wd, OUT "/scenes_again.gltf", &err), OROYA_OK);
    fprintf(manifest, "%s\t-\n", OUT "/scenes_again.gltf");
    OT_EQ_INT(oroya_gltf_load(OUT "/scenes_again.gltf", NULL, &b, &err), OROYA_OK);
    if (b) {
        OT_CHECK(b->scene_count == 4 && b->scene_index == 1);
        static const char *const names[4] = {"Backstage", "Main", "Both", "Bare"};
        static const uint32_t roots[4] = {1, 2, 2, 0};
        for (uint32_t s = 0; s < 4 && b->scene_count == 4; s++) {
            OT_CHECK_MSG(!strcmp(b->scenes[s].name, names[s]) &&
                             b->scenes[s].node_count == roots[s],
                         "scene %u: '%s', %u roots", s, b->scenes[s].name, b->scenes[s].node_count);
        }
        OT_EQ_INT(b->node_count, 6);
        if (b->scene_count == 4 && b->scenes[0].node_count == 1) {
            uint32_t prop = b->scenes[0].nodes[0];
            OT_CHECK(!strcmp(b->node_file_names[prop], "Prop") && b->nodes[prop].id == 0 &&
                     b->node_transforms[prop].translation.z == 3.0f &&
                     b->node_child_counts[prop] == 1);
            uint32_t child = b->node_children[prop][0];
            OT_CHECK(!strcmp(b->node_file_names[child], "PropChild") &&
                     b->node_child_counts[child] == 2 &&
                     !strcmp(b->node_file_names[b->node_children[child][0]], "Leaf") &&
                     !strcmp(b->node_file_names[b->node_children[child][1]], "Leaf"));
            /* "Both" names the loaded scene's Lamp and the same Prop. */
            OT_CHECK(b->scenes[2].node_count == 2 &&
                     !strcmp(b->node_file_names[b->scenes[2].nodes[0]], "Lamp") &&
                     b->nodes[b->scenes[2].nodes[0]].id != 0 && b->scenes[2].nodes[1] == prop);
        }
        compare_models("scenes_again", a, b);
    }
    oroya_gltf_model_free(b);
    oroya_gltf_model_free(a);
    /* A chain of 50 000 nodes that only the other scene holds: written with an explicit stack
     * (no recursion), every link kept. */
    enum { CHAIN = 50000 };
    size_t cap = (size_t)CHAIN * 40 + 256, len = 0;
    char *json = malloc(cap);
    OT_CHECK(json != NULL);
    if (!json) {
        return;
    }
    len +=
        (size_t)snprintf(json + len, cap - len,
                         "{\"asset\":{\"version\":\"2.0\"},\"scene\":1,\"scenes\":[{\"nodes\":[1]},"
                         "{\"nodes\":[0]}],\"nodes\":[{\"name\":\"stage\"}");
    for (uint32_t i = 1; i <= CHAIN; i++) {
        len += (size_t)(i < CHAIN ? snprintf(json + len, cap - len, ",{\"children\":[%u]}", i + 1)
                                  : snprintf(json + len, cap - len, ",{\"name\":\"end\"}"));
    }
    len += (size_t)snprintf(json + len, cap - len, "]}");
    FILE *f = fopen(OUT "/chain.gltf", "wb");
    OT_CHECK(f && fwrite(json, 1, len, f) == len);
    if (f) {
        fclose(f);
    }
    free(json);
    a = b = NULL;
    OT_EQ_INT(oroya_gltf_load(OUT "/chain.gltf", NULL, &a, &err), OROYA_OK);
    if (a) {
        wd = (oroya_gltf_write_desc){.model = a};
        OT_EQ_INT(oroya_gltf_write(a->scene, &wd, OUT "/chain_again.gltf", &err), OROYA_OK);
        OT_EQ_INT(oroya_gltf_load(OUT "/chain_again.gltf", NULL, &b, &err), OROYA_OK);
    }
    if (b) {
        OT_EQ_INT(b->node_count, CHAIN + 1);
        OT_CHECK(b->scene_count == 2 && b->scenes[0].node_count == 1);
        uint32_t g = b->scene_count == 2 ? b->scenes[0].nodes[0] : 0, depth = 1;
        while (b->node_child_counts[g] == 1) {
            g = b->node_children[g][0];
            depth++;
        }
        OT_EQ_INT(depth, CHAIN);
        OT_CHECK(!strcmp(b->node_file_names[g], "end"));
    }
    oroya_gltf_model_free(b);
    oroya_gltf_model_free(a);
}

/* The glTF node named `name` (the first), or NONE. */
static uint32_t file_node(const oroya_gltf_model *m, const char *name) {
    for (uint32_t g = 0; g < m->node_count; g++) {
        if (!strcmp(m->node_file_names[g], name)) {
            return g;
        }
    }
    return OROYA_GLTF_NONE;
}

/* scene_meshes.gltf (make_scene_meshes.py): the meshes, cameras and skin of nodes only the
 * second scene holds, or no scene, come back after a round trip in both forms and after a
 * second one. The expected values are the file's, written by hand here. */
static void check_scene_meshes(const char *what, const oroya_gltf_model *b) {
    OT_CHECK_MSG(b->scene_count == 2 && b->scene_index == 0 && b->scenes[1].node_count == 2,
                 "%s: scenes", what);
    OT_EQ_INT(oroya_scene_node_count(b->scene), 1); /* Stage */
    uint32_t body = file_node(b, "Body"), eye = file_node(b, "Eye"), blob = file_node(b, "Blob"),
             loose = file_node(b, "Loose"), stage = file_node(b, "Stage");
    OT_CHECK_MSG(body != OROYA_GLTF_NONE && eye != OROYA_GLTF_NONE && blob != OROYA_GLTF_NONE &&
                     loose != OROYA_GLTF_NONE && stage != OROYA_GLTF_NONE,
                 "%s: nodes", what);
    if (body == OROYA_GLTF_NONE || eye == OROYA_GLTF_NONE || blob == OROYA_GLTF_NONE ||
        loose == OROYA_GLTF_NONE || stage == OROYA_GLTF_NONE) {
        return;
    }
    OT_CHECK(b->nodes[body].id == 0 && b->nodes[eye].id == 0 && b->nodes[loose].id == 0);
    /* Body: "Body mesh", material "Body material", skin "Leg skin" (Hip Knee Foot Toe,
     * skeleton Hip), the file's two sets of influences. */
    uint32_t m = b->node_meshes[body], s = b->node_skins[body];
    OT_CHECK_MSG(m != OROYA_GLTF_NONE && !strcmp(b->mesh_names[m], "Body mesh"), "%s: Body mesh",
                 what);
    OT_CHECK_MSG(s != OROYA_GLTF_NONE && s < b->skin_count && !strcmp(b->skins[s].name, "Leg skin"),
                 "%s: Body skin", what);
    if (m != OROYA_GLTF_NONE && s != OROYA_GLTF_NONE && s < b->skin_count) {
        uint32_t k = b->mesh_first_geometry[m];
        const oroya_geometry *g = b->geometries[k];
        OT_CHECK(b->geometry_material[k] != OROYA_GLTF_NONE &&
                 !strcmp(b->materials[b->geometry_material[k]].name, "Body material"));
        static const uint16_t j0[12] = {0, 1, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0};
        static const float w0[12] = {0.5f, 0.25f, 0, 0, 0.5f, 0.25f, 0, 0, 0.25f, 0.5f, 0, 0};
        static const uint16_t j1[12] = {2, 3, 0, 0, 2, 3, 0, 0, 2, 3, 0, 0};
        static const float w1[12] = {0.125f, 0.125f, 0,      0,      0.125f, 0.125f,
                                     0,      0,      0.125f, 0.125f, 0,      0};
        OT_CHECK_MSG(g && g->vertex_count == 3 && g->joints && g->weights && g->normals &&
                         !memcmp(g->joints, j0, sizeof j0) && !memcmp(g->weights, w0, sizeof w0),
                     "%s: Body JOINTS_0/WEIGHTS_0", what);
        const oroya_gltf_model_primitive *kp = &b->primitives[k];
        OT_CHECK_MSG(kp->joints2 && kp->weights2 && !memcmp(kp->joints2, j1, sizeof j1) &&
                         !memcmp(kp->weights2, w1, sizeof w1),
                     "%s: Body JOINTS_1/WEIGHTS_1", what);
        const oroya_gltf_model_skin *sk = &b->skins[s];
        static const char *const joints[4] = {"Hip", "Knee", "Foot", "Toe"};
        OT_EQ_INT(sk->joint_count, 4);
        for (uint32_t j = 0; j < 4 && sk->joint_count == 4; j++) {
            OT_CHECK_MSG(!strcmp(b->node_file_names[sk->joint_gltf_nodes[j]], joints[j]),
                         "%s: joint %u", what, j);
        }
        OT_CHECK(sk->skeleton_gltf_node != OROYA_GLTF_NONE &&
                 !strcmp(b->node_file_names[sk->skeleton_gltf_node], "Hip"));
        /* Toe's inverse bind: translation (0, -0.25, -0.1). */
        OT_CHECK(sk->joint_count == 4 && sk->inverse_bind_matrices[3].m[13] == -0.25f &&
                 sk->inverse_bind_matrices[3].m[14] == -0.1f);
    }
    /* Eye: camera "Eye camera", yfov 0.9, no aspect ratio, infinite zfar. */
    uint32_t c = b->node_cameras[eye];
    OT_CHECK_MSG(c != OROYA_GLTF_NONE && !strcmp(b->cameras[c].name, "Eye camera") &&
                     !b->cameras[c].orthographic && b->cameras[c].yfov == 0.9f &&
                     b->cameras[c].aspect_ratio == 0.0f && b->cameras[c].zfar == 0.0f &&
                     b->cameras[c].znear == 0.1f,
                 "%s: Eye camera", what);
    /* Blob: "Blob mesh" with one morph target, its own weights (0.25). */
    m = b->node_meshes[blob];
    OT_CHECK_MSG(m != OROYA_GLTF_NONE && !strcmp(b->mesh_names[m], "Blob mesh") &&
                     b->geometries[b->mesh_first_geometry[m]] &&
                     b->geometries[b->mesh_first_geometry[m]]->morph_target_count == 1 &&
                     own_weights(b, blob) && own_weights(b, blob)->count == 1 &&
                     own_weights(b, blob)->weights[0] == 0.25f,
                 "%s: Blob", what);
    /* Loose, in no scene: "Loose mesh" (a triangle, and a lines primitive with the blob's
     * material) and the orthographic camera "Map" that Stage uses too. */
    m = b->node_meshes[loose];
    OT_CHECK_MSG(m != OROYA_GLTF_NONE && !strcmp(b->mesh_names[m], "Loose mesh") &&
                     b->primitives[b->mesh_first_geometry[m] + 1].mode == 1 &&
                     b->primitives[b->mesh_first_geometry[m] + 1].vertex_count == 2,
                 "%s: Loose mesh", what);
    c = b->node_cameras[loose];
    OT_CHECK_MSG(c != OROYA_GLTF_NONE && !strcmp(b->cameras[c].name, "Map") &&
                     b->cameras[c].orthographic && c == b->node_cameras[stage] &&
                     b->camera_count == 2,
                 "%s: Loose camera", what);
    bool in_scene = false;
    for (uint32_t r = 0; r < b->scene_count; r++) {
        for (uint32_t k = 0; k < b->scenes[r].node_count; k++) {
            in_scene |= b->scenes[r].nodes[k] == loose;
        }
    }
    OT_CHECK_MSG(!in_scene && b->node_transforms[loose].rotation.z == 0.6f, "%s: Loose", what);
}

static void test_scene_meshes(void) {
    oroya_gltf_model *a = NULL;
    oroya_error err = {0};
    OT_CHECK(oroya_gltf_load(OROYA_SOURCE_DIR "/tests/gltf/odd/scene_meshes.gltf", NULL, &a,
                             &err) == OROYA_OK);
    if (!a) {
        return;
    }
    check_scene_meshes("source", a);
    for (int binary = 0; binary < 2; binary++) {
        const char *out1 = binary ? OUT "/scene_meshes_1.glb" : OUT "/scene_meshes_1.gltf";
        const char *out2 = binary ? OUT "/scene_meshes_2.glb" : OUT "/scene_meshes_2.gltf";
        oroya_gltf_model *b = NULL, *c = NULL;
        oroya_gltf_write_desc wd = {.binary = binary != 0, .model = a};
        OT_CHECK_MSG(oroya_gltf_write(a->scene, &wd, out1, &err) == OROYA_OK, "%s", err.message);
        fprintf(manifest, "%s\t%s\n", out1, OROYA_SOURCE_DIR "/tests/gltf/odd/scene_meshes.gltf");
        OT_CHECK_MSG(oroya_gltf_load(out1, NULL, &b, &err) == OROYA_OK, "%s", err.message);
        if (b) {
            check_scene_meshes(out1, b);
            compare_models(out1, a, b);
            wd.model = b;
            OT_CHECK_MSG(oroya_gltf_write(b->scene, &wd, out2, &err) == OROYA_OK, "%s",
                         err.message);
            OT_CHECK_MSG(oroya_gltf_load(out2, NULL, &c, &err) == OROYA_OK, "%s", err.message);
        }
        if (c) {
            check_scene_meshes(out2, c);
            compare_models(out2, b, c);
        }
        oroya_gltf_model_free(c);
        oroya_gltf_model_free(b);
    }
    oroya_gltf_model_free(a);
}

/* What was changed in the scene after import is written as the scene has it, not as the
 * model remembers the file. */
static void test_changed_scene(void) {
    oroya_gltf_model *a = NULL, *b = NULL;
    oroya_error err = {0};
    OT_CHECK(oroya_gltf_load(OROYA_SOURCE_DIR "/tests/gltf/odd/odd.gltf", NULL, &a, &err) ==
             OROYA_OK);
    if (!a) {
        return;
    }
    oroya_node eye, top;
    OT_CHECK(oroya_scene_find_node(a->scene, "eye", &eye) == OROYA_OK);
    OT_CHECK(oroya_scene_find_node(a->scene, "top", &top) == OROYA_OK);
    OT_CHECK(oroya_scene_set_name(a->scene, top, "renamed") == OROYA_OK);
    oroya_camera cam = oroya_camera_perspective(50.0f, 2.0f, 0.5f, 100.0f);
    OT_CHECK(oroya_scene_set_camera(a->scene, eye, &cam) == OROYA_OK);
    oroya_gltf_write_desc wd = {
        .clips = (const oroya_clip *const *)a->clips, .clip_count = a->clip_count, .model = a};
    OT_EQ_INT(oroya_gltf_write(a->scene, &wd, OUT "/odd_changed.gltf", &err), OROYA_OK);
    fprintf(manifest, "%s\t-\n", OUT "/odd_changed.gltf");
    OT_EQ_INT(oroya_gltf_load(OUT "/odd_changed.gltf", NULL, &b, &err), OROYA_OK);
    if (b) {
        oroya_node n;
        oroya_camera got;
        OT_CHECK(oroya_scene_find_node(b->scene, "renamed", &n) == OROYA_OK);
        OT_CHECK(oroya_scene_find_node(b->scene, "eye", &n) == OROYA_OK &&
                 oroya_scene_get_camera(b->scene, n, &got) == OROYA_OK);
        OT_CHECK(got.aspect == 2.0f && got.zfar == 100.0f && got.znear == 0.5f);
        OT_NEAR(got.fov_y, 50.0f, 1e-4);
        /* The untouched camera still comes back as the file had it. */
        OT_CHECK(oroya_scene_find_node(b->scene, "renamed", &n) == OROYA_OK);
        uint32_t g = OROYA_GLTF_NONE;
        OT_CHECK(oroya_gltf_model_find_node(b, "renamed", &n, &g) == OROYA_OK);
        OT_CHECK(g != OROYA_GLTF_NONE && b->node_cameras[g] != OROYA_GLTF_NONE &&
                 !strcmp(b->cameras[b->node_cameras[g]].name, "Map"));
    }
    oroya_gltf_model_free(b);
    oroya_gltf_model_free(a);
}

/* A clip without tracks has no glTF form (an animation needs a channel): it is left out, and
 * the file stays valid. */
static void test_empty_clip(void) {
    oroya_scene *scene = NULL;
    oroya_error err = {0};
    OT_CHECK(oroya_scene_create(NULL, &scene) == OROYA_OK);
    oroya_node n;
    OT_CHECK(oroya_scene_add_node(scene, "n", (oroya_node){0}, OROYA_NODE_OBJECT, &n) == OROYA_OK);
    oroya_clip *clip = NULL;
    oroya_clip_desc cd = {.name = "empty"};
    OT_CHECK(oroya_clip_create(&cd, &clip, &err) == OROYA_OK);
    const oroya_clip *clips[] = {clip};
    oroya_gltf_write_desc wd = {.clips = clips, .clip_count = 1};
    OT_EQ_INT(oroya_gltf_write(scene, &wd, OUT "/empty_clip.gltf", &err), OROYA_OK);
    fprintf(manifest, "%s\t-\n", OUT "/empty_clip.gltf");
    FILE *f = fopen(OUT "/empty_clip.gltf", "rb");
    char buf[4096] = "";
    if (f) {
        size_t got = fread(buf, 1, sizeof buf - 1, f);
        buf[got] = '\0';
        fclose(f);
    }
    OT_CHECK(strstr(buf, "\"animations\"") == NULL && strstr(buf, "\"samplers\"") == NULL);
    oroya_gltf_model *m = NULL;
    OT_EQ_INT(oroya_gltf_load(OUT "/empty_clip.gltf", NULL, &m, &err), OROYA_OK);
    oroya_gltf_model_free(m);
    oroya_clip_destroy(clip);
    oroya_scene_destroy(scene);
}

/* File names with characters a URI reserves: the .bin URI is percent-encoded and loads. */
static void test_uri_escapes(void) {
    oroya_gltf_model *a = NULL;
    oroya_error err = {0};
    OT_CHECK(oroya_gltf_load(OROYA_SOURCE_DIR "/tests/assets/BoxAnimated/glTF-Binary/"
                                              "BoxAnimated.glb",
                             NULL, &a, &err) == OROYA_OK);
    if (!a) {
        return;
    }
    static const char *const names[] = {"hash#1", "what?", "100%", "c:d", "sp ace", "a#b?c%d:e"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char out[512];
        snprintf(out, sizeof out, OUT "/%s.gltf", names[i]);
        oroya_gltf_write_desc wd = {.model = a};
        OT_CHECK_MSG(oroya_gltf_write(a->scene, &wd, out, &err) == OROYA_OK, "%s: %s", out,
                     err.message);
        fprintf(manifest, "%s\t-\n", out);
        oroya_gltf_model *b = NULL;
        OT_CHECK_MSG(oroya_gltf_load(out, NULL, &b, &err) == OROYA_OK, "%s: %s", out, err.message);
        OT_CHECK(b && oroya_scene_node_count(b->scene) == oroya_scene_node_count(a->scene));
        oroya_gltf_model_free(b);
    }
    oroya_gltf_model_free(a);
}

static oroya_result parse_validate(const char *json) {
    oroya_gltf_data *g = NULL;
    oroya_error err = {0};
    oroya_result r = oroya_gltf_parse(NULL, json, strlen(json), &g, &err);
    if (r == OROYA_OK) {
        r = oroya_gltf_load_buffers(g, &err);
    }
    if (r == OROYA_OK) {
        r = oroya_gltf_validate(g, &err);
    }
    oroya_gltf_free(g);
    return r;
}

/* A texture's sampler: filters and wraps kept through a round trip (an image in a buffer view
 * without mimeType, TEXCOORD_1 as the base color set, a texture without source); values
 * glTF does not allow and out-of-range indices refused at validate. */
static void test_texture_samplers(void) {
    round_trip(OROYA_SOURCE_DIR
               "/tests/fuzz/regressions/gltf_json/textured-colour-tangent-texcoord1.gltf",
               NULL);
    oroya_gltf_model *m = NULL;
    oroya_error err = {0};
    OT_EQ_INT(oroya_gltf_load(OROYA_SOURCE_DIR "/tests/fuzz/regressions/gltf_json/"
                                               "textured-colour-tangent-texcoord1.gltf",
                              NULL, &m, &err),
              OROYA_OK);
    if (m) {
        OT_CHECK(m->texture_count == 2 && m->textures[0].sampler && m->textures[0].image == 0 &&
                 m->textures[0].mag_filter == 9729 && m->textures[0].min_filter == 9987 &&
                 m->textures[0].wrap_s == 33071 && m->textures[0].wrap_t == 33648 &&
                 m->textures[1].image == OROYA_GLTF_NONE);
        OT_CHECK(!strcmp(m->images[0].mime_type, "image/png") && m->images[0].width == 2 &&
                 !strcmp(m->images[0].name, "px"));
        OT_CHECK(m->materials[0].base_color_texture == 0 &&
                 m->materials[0].base_color_texcoord == 1);
    }
    oroya_gltf_model_free(m);
    OT_EQ_INT(
        parse_validate("{\"asset\":{\"version\":\"2.0\"},\"samplers\":[{\"magFilter\":9987}]}"),
        OROYA_ERR_INVALID_DATA);
    OT_EQ_INT(parse_validate("{\"asset\":{\"version\":\"2.0\"},\"samplers\":[{\"wrapT\":1}]}"),
              OROYA_ERR_INVALID_DATA);
    OT_EQ_INT(parse_validate("{\"asset\":{\"version\":\"2.0\"},\"samplers\":[{\"minFilter\":9984,"
                             "\"magFilter\":9728,\"wrapS\":10497}]}"),
              OROYA_OK);
    OT_EQ_INT(parse_validate("{\"asset\":{\"version\":\"2.0\"},\"textures\":[{\"sampler\":1}],"
                             "\"samplers\":[{}]}"),
              OROYA_ERR_OUT_OF_RANGE);
}

int main(void) {
    if (mkdir(OUT, 0755) != 0 && errno != EEXIST) {
        perror(OUT);
    }
    manifest = fopen(OUT "/manifest.txt", "w");
    if (!manifest) {
        perror(OUT "/manifest.txt");
        return 1;
    }
    OT_RUN(test_sample_models);
    OT_RUN(test_odd_model);
    OT_RUN(test_texture_samplers);
    OT_RUN(test_extra_scenes);
    OT_RUN(test_scene_meshes);
    OT_RUN(test_changed_scene);
    OT_RUN(test_empty_clip);
    OT_RUN(test_uri_escapes);
    fclose(manifest);
    return ot_finish();
}
