/* Primitive meshes for the built-in demo, with three.js's parameters and vertex order
 * (SphereGeometry, BoxGeometry with one segment per side, CylinderGeometry). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "demo_scene.h"

#define PI_F 3.14159265358979f

static int alloc_mesh(uint32_t vertices, uint32_t indices, world_mesh *m) {
    memset(m, 0, sizeof *m);
    m->positions = malloc((size_t)vertices * 3 * sizeof(float));
    m->normals = malloc((size_t)vertices * 3 * sizeof(float));
    m->indices = malloc((size_t)indices * sizeof(uint32_t));
    if (!m->positions || !m->normals || !m->indices) {
        demo_mesh_free(m);
        return 1;
    }
    return 0;
}

void demo_mesh_free(world_mesh *m) {
    free(m->positions);
    free(m->normals);
    free(m->indices);
    free(m->joints);
    free(m->weights);
    memset(m, 0, sizeof *m);
}

int demo_make_sphere(float radius, uint32_t ws, uint32_t hs, world_mesh *m) {
    if (alloc_mesh((ws + 1) * (hs + 1), ws * hs * 6, m)) return 1;
    uint32_t v = 0;
    for (uint32_t iy = 0; iy <= hs; iy++) {
        float fv = (float)iy / (float)hs;
        for (uint32_t ix = 0; ix <= ws; ix++) {
            float u = (float)ix / (float)ws;
            float x = -radius * cosf(u * 2 * PI_F) * sinf(fv * PI_F);
            float y = radius * cosf(fv * PI_F);
            float z = radius * sinf(u * 2 * PI_F) * sinf(fv * PI_F);
            float len = sqrtf(x * x + y * y + z * z);
            m->positions[v * 3] = x;
            m->positions[v * 3 + 1] = y;
            m->positions[v * 3 + 2] = z;
            m->normals[v * 3] = x / len;
            m->normals[v * 3 + 1] = y / len;
            m->normals[v * 3 + 2] = z / len;
            v++;
        }
    }
    uint32_t k = 0;
    for (uint32_t iy = 0; iy < hs; iy++) {
        for (uint32_t ix = 0; ix < ws; ix++) {
            uint32_t a = iy * (ws + 1) + ix + 1, b = iy * (ws + 1) + ix;
            uint32_t c = (iy + 1) * (ws + 1) + ix, d = (iy + 1) * (ws + 1) + ix + 1;
            /* three.js skips the degenerate triangle at each pole. */
            if (iy != 0) {
                m->indices[k++] = a;
                m->indices[k++] = b;
                m->indices[k++] = d;
            }
            if (iy != hs - 1) {
                m->indices[k++] = b;
                m->indices[k++] = c;
                m->indices[k++] = d;
            }
        }
    }
    m->vertex_count = v;
    m->index_count = k;
    return 0;
}

int demo_make_box(float width, float height, float depth, world_mesh *m) {
    if (alloc_mesh(24, 36, m)) return 1;
    /* Per face: normal, u axis, v axis (u x v = normal), and the half sizes along them. */
    const float hw = width / 2, hh = height / 2, hd = depth / 2;
    const float faces[6][3][3] = {
        {{1, 0, 0}, {0, 0, -1}, {0, 1, 0}}, {{-1, 0, 0}, {0, 0, 1}, {0, 1, 0}},
        {{0, 1, 0}, {1, 0, 0}, {0, 0, -1}}, {{0, -1, 0}, {1, 0, 0}, {0, 0, 1}},
        {{0, 0, 1}, {1, 0, 0}, {0, 1, 0}},  {{0, 0, -1}, {-1, 0, 0}, {0, 1, 0}},
    };
    const float half[3] = {hw, hh, hd};
    static const float corners[4][2] = {{-1, -1}, {1, -1}, {1, 1}, {-1, 1}};
    for (int f = 0; f < 6; f++) {
        for (int c = 0; c < 4; c++) {
            int v = f * 4 + c;
            for (int a = 0; a < 3; a++) {
                float p = faces[f][0][a] + corners[c][0] * faces[f][1][a] + corners[c][1] * faces[f][2][a];
                m->positions[v * 3 + a] = p * half[a];
                m->normals[v * 3 + a] = faces[f][0][a];
            }
        }
        uint32_t b = (uint32_t)f * 4;
        uint32_t tri[6] = {b, b + 1, b + 2, b, b + 2, b + 3};
        memcpy(&m->indices[f * 6], tri, sizeof tri);
    }
    m->vertex_count = 24;
    m->index_count = 36;
    return 0;
}

int demo_make_cylinder(float rt, float rb, float height, uint32_t radial, uint32_t hseg,
                       bool open_ended, world_mesh *m) {
    (void)open_ended; /* the demo only needs the open tube (the tutorial's cylinder) */
    if (alloc_mesh((radial + 1) * (hseg + 1), radial * hseg * 6, m)) return 1;
    float slope = (rb - rt) / height;
    uint32_t v = 0;
    for (uint32_t y = 0; y <= hseg; y++) {
        float fv = (float)y / (float)hseg;
        float r = fv * (rb - rt) + rt;
        for (uint32_t x = 0; x <= radial; x++) {
            float u = (float)x / (float)radial, theta = u * 2 * PI_F;
            float s = sinf(theta), c = cosf(theta);
            m->positions[v * 3] = r * s;
            m->positions[v * 3 + 1] = -fv * height + height / 2;
            m->positions[v * 3 + 2] = r * c;
            float len = sqrtf(s * s + slope * slope + c * c);
            m->normals[v * 3] = s / len;
            m->normals[v * 3 + 1] = slope / len;
            m->normals[v * 3 + 2] = c / len;
            v++;
        }
    }
    uint32_t k = 0;
    for (uint32_t x = 0; x < radial; x++) {
        for (uint32_t y = 0; y < hseg; y++) {
            uint32_t a = y * (radial + 1) + x, b = (y + 1) * (radial + 1) + x;
            uint32_t c = b + 1, d = a + 1;
            uint32_t tri[6] = {a, b, d, b, c, d};
            memcpy(&m->indices[k], tri, sizeof tri);
            k += 6;
        }
    }
    m->vertex_count = v;
    m->index_count = k;
    return 0;
}

int demo_make_disc(float radius, uint32_t segments, world_mesh *m) {
    if (alloc_mesh(segments + 1, segments * 3, m)) return 1;
    memset(m->positions, 0, 3 * sizeof(float));
    for (uint32_t i = 0; i <= segments; i++) {
        m->normals[i * 3] = 0;
        m->normals[i * 3 + 1] = 1;
        m->normals[i * 3 + 2] = 0;
    }
    for (uint32_t i = 0; i < segments; i++) {
        float a = (float)i / (float)segments * 2 * PI_F;
        m->positions[(i + 1) * 3] = radius * cosf(a);
        m->positions[(i + 1) * 3 + 1] = 0;
        m->positions[(i + 1) * 3 + 2] = -radius * sinf(a);
        m->indices[i * 3] = 0;
        m->indices[i * 3 + 1] = i + 1;
        m->indices[i * 3 + 2] = (i + 1) % segments + 1;
    }
    m->vertex_count = segments + 1;
    m->index_count = segments * 3;
    return 0;
}
