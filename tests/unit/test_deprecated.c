/* The deprecated names still link and behave as their replacements, for one release (the
 * list is in docs/api.md, "Naming"). This program alone is compiled with
 * -Wno-deprecated-declarations (tests/CMakeLists.txt). Each alias is called and its result
 * compared with the new function's on the same input. */
#include <math.h>
#include <string.h>

#include "oroya/oroya.h"
#include "oroya_test.h"

static bool same_geometry(const oroya_geometry *a, const oroya_geometry *b) {
    if (!a || !b || a->vertex_count != b->vertex_count || a->index_count != b->index_count) {
        return false;
    }
    const size_t v = a->vertex_count;
    return memcmp(a->positions, b->positions, v * 3 * sizeof(float)) == 0 &&
           memcmp(a->normals, b->normals, v * 3 * sizeof(float)) == 0 &&
           memcmp(a->uvs, b->uvs, v * 2 * sizeof(float)) == 0 &&
           memcmp(a->indices, b->indices, a->index_count * sizeof(uint32_t)) == 0;
}

static void check_same(oroya_result ra, oroya_geometry *a, oroya_result rb, oroya_geometry *b,
                       const char *what) {
    OT_CHECK_MSG(ra == OROYA_OK && rb == OROYA_OK && same_geometry(a, b), "%s differs", what);
    oroya_geometry_destroy(a);
    oroya_geometry_destroy(b);
}

static void test_geometry_positional(void) {
    oroya_geometry *a = NULL, *b = NULL;
    oroya_result ra, rb;
    ra = oroya_geometry_create_box(2, 3, 4, 2, 3, 4, NULL, &a, NULL);
    rb = oroya_geometry_box(&(oroya_box_desc){.width = 2,
                                              .height = 3,
                                              .depth = 4,
                                              .width_segments = 2,
                                              .height_segments = 3,
                                              .depth_segments = 4},
                            &b, NULL);
    check_same(ra, a, rb, b, "box");
    ra = oroya_geometry_create_sphere(0.5f, 7, 5, NULL, &a, NULL);
    rb = oroya_geometry_sphere(
        &(oroya_sphere_desc){.radius = 0.5f, .width_segments = 7, .height_segments = 5}, &b, NULL);
    check_same(ra, a, rb, b, "sphere");
    ra = oroya_geometry_create_cylinder(1, 0.25f, 1.5f, 5, 2, true, NULL, &a, NULL);
    rb = oroya_geometry_cylinder(&(oroya_cylinder_desc){.radius_top = 1,
                                                        .radius_bottom = 0.25f,
                                                        .height = 1.5f,
                                                        .radial_segments = 5,
                                                        .height_segments = 2,
                                                        .open_ended = true},
                                 &b, NULL);
    check_same(ra, a, rb, b, "cylinder");
    /* A zero radius in the positional form is a pointed end. */
    ra = oroya_geometry_create_cylinder(0, 1, 2, 8, 3, false, NULL, &a, NULL);
    rb = oroya_geometry_cone(
        &(oroya_cone_desc){.radius = 1, .height = 2, .radial_segments = 8, .height_segments = 3},
        &b, NULL);
    check_same(ra, a, rb, b, "cylinder as cone");
    ra = oroya_geometry_create_cylinder(1, 0, 1, 16, 4, false, NULL, &a, NULL);
    rb = oroya_geometry_cylinder(
        &(oroya_cylinder_desc){.radial_segments = 16, .height_segments = 4, .pointed_bottom = true},
        &b, NULL);
    check_same(ra, a, rb, b, "cylinder pointed bottom");
    ra = oroya_geometry_create_plane(4, 2, 3, 5, NULL, &a, NULL);
    rb = oroya_geometry_plane(
        &(oroya_plane_desc){.width = 4, .height = 2, .width_segments = 3, .height_segments = 5}, &b,
        NULL);
    check_same(ra, a, rb, b, "plane");

    /* In the positional form zero is a value, not a default: zero segments and a zero
     * cylinder height are refused, a zero sphere segment count is clamped as in three.js. */
    oroya_geometry *g = (oroya_geometry *)&g;
    OT_EQ_INT(oroya_geometry_create_box(1, 1, 1, 0, 1, 1, NULL, &g, NULL),
              OROYA_ERR_INVALID_ARGUMENT);
    OT_CHECK(g == NULL);
    OT_EQ_INT(oroya_geometry_create_cylinder(1, 1, 0, 8, 1, false, NULL, &g, NULL),
              OROYA_ERR_INVALID_ARGUMENT);
    OT_EQ_INT(oroya_geometry_create_cylinder(1, 1, 1, 0, 1, false, NULL, &g, NULL),
              OROYA_ERR_INVALID_ARGUMENT);
    OT_EQ_INT(oroya_geometry_create_cylinder(1, 1, 1, 8, 0, false, NULL, &g, NULL),
              OROYA_ERR_INVALID_ARGUMENT);
    OT_EQ_INT(oroya_geometry_create_plane(1, 1, 1, 0, NULL, &g, NULL), OROYA_ERR_INVALID_ARGUMENT);
    OT_EQ_INT(oroya_geometry_create_sphere(1, 0, 0, NULL, &g, NULL), OROYA_OK);
    OT_EQ_INT(g->vertex_count, 12);
    oroya_geometry_destroy(g);
    /* A flat box (zero depth) is a value here. */
    OT_EQ_INT(oroya_geometry_create_box(1, 1, 0, 1, 1, 1, NULL, &g, NULL), OROYA_OK);
    OT_CHECK(g->bounds_min.z == 0 && g->bounds_max.z == 0);
    oroya_geometry_destroy(g);
}

int main(void) {
    OT_RUN(test_geometry_positional);
    return ot_finish();
}
