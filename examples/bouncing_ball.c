/* The tutorial's bouncing ball: the height of a ball over two seconds, from five cubic-spline
 * keys in the glTF layout (in-tangent, value, out-tangent per key), sampled through an oroya
 * clip and printed as a table and a small text plot. Tangents are per second; the track
 * multiplies them by the key interval before the Hermite basis (glTF 2.0, Appendix C). */
#include <stdio.h>

#include <oroya/oroya.h>
#include <oroya/clip.h>
#include <oroya/track.h>

static const float times[5] = {0.0f, 0.5f, 1.0f, 1.5f, 2.0f};
/* Per key: in-tangent (x, y, z), value, out-tangent. Only y moves. */
static const float values[5 * 9] = {
    0, 0,  0, /**/ 0, 0, 0, /**/ 0, 8, 0, /* key 0: (in 0, value 0, out 8) */
    0, 0,  0, /**/ 0, 4, 0, /**/ 0, 0, 0, /* key 1: (0, 4, 0) */
    0, -8, 0, /**/ 0, 0, 0, /**/ 0, 5, 0, /* key 2: (-8, 0, 5) */
    0, 0,  0, /**/ 0, 2, 0, /**/ 0, 0, 0, /* key 3: (0, 2, 0) */
    0, -3, 0, /**/ 0, 0, 0, /**/ 0, 0, 0, /* key 4: (-3, 0, 0) */
};

int main(void) {
    const oroya_track track = {.target = "ball",
                               .property = OROYA_PROPERTY_TRANSLATION,
                               .interpolation = OROYA_INTERP_CUBICSPLINE,
                               .components = 3,
                               .key_count = 5,
                               .times = times,
                               .values = values};
    oroya_clip *clip = NULL;
    oroya_error err = {0};
    if (oroya_clip_create(&(oroya_clip_desc){.name = "bounce", .tracks = &track, .track_count = 1},
                          &clip, &err) != OROYA_OK) {
        fprintf(stderr, "bouncing_ball: %s\n", err.message);
        return 1;
    }
    printf("oroya %s: the bouncing ball (cubic-spline y over 2 s)\n\n", OROYA_VERSION_STRING);
    printf("  t (s)   y      \n");
    uint32_t cursor = 0; /* time only moves forward here: each sample is O(1) */
    for (int i = 0; i <= 40; i++) {
        float t = (float)i * 0.05f;
        float p[3];
        oroya_track_sample(&clip->tracks[0], t, &cursor, NULL, p);
        float y = p[1];
        int col = (int)(y * 12.0f + 0.5f);
        printf("  %4.2f  %6.3f  |", (double)t, (double)y);
        for (int c = 0; c < col; c++)
            putchar(' ');
        printf("o\n");
    }
    oroya_clip_destroy(clip);
    return 0;
}
