/* The reference text's rod: a rod of length 10 along its local +x axis points left, then swings
 * over the top to point right (160 degrees away) while twisting 120 degrees about its own
 * length. Slerp turns it about one fixed axis, so its tip wanders off the shortest path; sterp
 * (swing-twist interpolation, twist axis = the rod's length) keeps the tip on the great
 * circle. The program measures both tip paths on a 10,000-segment polyline and prints them
 * beside the great-circle arc. It also shows the exactly opposite case, where the two agree. */
#include <math.h>
#include <stdio.h>

#include <oroya/math.h>
#include <oroya/rotation.h>

#define PI 3.14159265358979323846
#define SEGMENTS 10000

static const float rod_length = 10.0f;

static oroya_vec3 tip(oroya_quat q) {
    return oroya_quat_rotate(q, (oroya_vec3){rod_length, 0.0f, 0.0f});
}

static double path_length(oroya_quat a, oroya_quat b, oroya_vec3 axis, int use_sterp) {
    double len = 0.0;
    oroya_vec3 prev = tip(a);
    for (int i = 1; i <= SEGMENTS; i++) {
        float t = (float)i / (float)SEGMENTS;
        oroya_quat q = use_sterp ? oroya_quat_sterp(a, b, axis, t) : oroya_quat_slerp(a, b, t);
        oroya_vec3 p = tip(q);
        len += oroya_vec3_length(oroya_vec3_sub(p, prev));
        prev = p;
    }
    return len;
}

static void compare(const char *title, float swing_degrees, float twist_degrees) {
    const oroya_vec3 rod_axis = {1.0f, 0.0f, 0.0f};
    /* a: local +x points to world -x. b: swing the tip over the top, then twist about the rod. */
    oroya_quat a = oroya_quat_from_axis_angle((oroya_vec3){0, 0, 1}, (float)PI);
    oroya_quat swing =
        oroya_quat_from_axis_angle((oroya_vec3){0, 0, -1}, swing_degrees * (float)(PI / 180.0));
    oroya_quat twist = oroya_quat_from_axis_angle(rod_axis, twist_degrees * (float)(PI / 180.0));
    oroya_quat b = oroya_quat_mul(swing, oroya_quat_mul(a, twist));

    oroya_vec3 ta = tip(a), tb = tip(b);
    double cos_angle = oroya_vec3_dot(ta, tb) / ((double)rod_length * rod_length);
    double arc = rod_length * acos(fmax(-1.0, fmin(1.0, cos_angle)));

    printf("%s: swing %.0f deg, twist %.0f deg\n", title, (double)swing_degrees,
           (double)twist_degrees);
    printf("  great-circle arc   %9.4f\n", arc);
    printf("  sterp tip path     %9.4f\n", path_length(a, b, rod_axis, 1));
    printf("  slerp tip path     %9.4f\n", path_length(a, b, rod_axis, 0));
    printf("  tip at t =          sterp                      slerp\n");
    for (int i = 0; i <= 4; i++) {
        float t = (float)i / 4.0f;
        oroya_vec3 s = tip(oroya_quat_sterp(a, b, rod_axis, t));
        oroya_vec3 l = tip(oroya_quat_slerp(a, b, t));
        printf("    %.2f   (%6.2f %6.2f %6.2f)   (%6.2f %6.2f %6.2f)\n", (double)t, (double)s.x,
               (double)s.y, (double)s.z, (double)l.x, (double)l.y, (double)l.z);
    }
    printf("\n");
}

int main(void) {
    printf("oroya: slerp vs sterp on a rod of length %.0f (tip path lengths)\n\n",
           (double)rod_length);
    compare("left to right-and-up", 160.0f, 120.0f);
    /* Exactly opposite is the singular case of the decomposition: the twist cannot be told
     * apart from the swing, sterp uses twist = identity and both follow the same half circle. */
    compare("left to exactly right", 180.0f, 120.0f);
    return 0;
}
