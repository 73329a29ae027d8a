/* The tutorial's bouncing ball: the height of a ball over two seconds, from five cubic-spline
 * keys in the glTF layout (in-tangent, value, out-tangent per key), printed as a table and a
 * small text plot. Tangents are per second and are multiplied by the key interval before the
 * Hermite basis (glTF 2.0, Appendix C). */
#include <stdio.h>

#include <oroya/oroya.h>

static const float times[5] = {0.0f, 0.5f, 1.0f, 1.5f, 2.0f};
/* (in, value, out) per key, y only. */
static const float keys[5][3] = {{0, 0, 8}, {0, 4, 0}, {-8, 0, 5}, {0, 2, 0}, {-3, 0, 0}};

static float ball_height(float t) {
    if (t <= times[0]) return keys[0][1];
    if (t >= times[4]) return keys[4][1];
    int k = 0;
    while (t >= times[k + 1]) k++;
    float td = times[k + 1] - times[k];
    float u = (t - times[k]) / td;
    return oroya_cubic_spline(u, keys[k][1], keys[k][2] * td, keys[k + 1][1], keys[k + 1][0] * td);
}

int main(void) {
    printf("oroya %s: the bouncing ball (cubic-spline y over 2 s)\n\n", OROYA_VERSION_STRING);
    printf("  t (s)   y      \n");
    for (int i = 0; i <= 40; i++) {
        float t = (float)i * 0.05f;
        float y = ball_height(t);
        int col = (int)(y * 12.0f + 0.5f);
        printf("  %4.2f  %6.3f  |", (double)t, (double)y);
        for (int c = 0; c < col; c++) putchar(' ');
        printf("o\n");
    }
    return 0;
}
