/* oroya render: renders the built-in demo (no FILE) or a glTF file to PNG, GIF or MP4. */
#define _POSIX_C_SOURCE 200809L /* mkdir, isatty */

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "demo_scene.h"

#ifdef OROYA_HAVE_RENDER

static const char *usage_text =
    "usage: oroya render [FILE] [--clip NAME]... [--time T | --fps F --duration D]\n"
    "                    [--size WxH] [--camera auto|NODE] [--msaa N] [--skeleton] [--ik] -o OUT.png|.gif|.mp4\n"
    "\n"
    "Renders FILE (glTF 2.0), or the built-in demo scene when FILE is left out, offscreen\n"
    "(EGL, no window system needed).\n"
    "  --clip NAME     play this clip (repeatable); default: every clip\n"
    "  --time T        render the single frame at T seconds (PNG)\n"
    "  --fps F         frames per second of a GIF or MP4 (default 25)\n"
    "  --duration D    seconds to render (default: the whole animation)\n"
    "  --size WxH      image size in pixels (default 640x360)\n"
    "  --camera auto   frame the animated bounds over the whole clip (default)\n"
    "  --camera NODE   look through the camera node NODE\n"
    "  --msaa N        samples per pixel (default 4; 1 = off)\n"
    "  --skeleton      draw the bones over the meshes\n"
    "  --ik            without FILE: the inverse kinematics demo (a planted foot, a head\n"
    "                  following a ball) instead of the tutorials' demo\n"
    "  -o OUT          output file; .png, .gif or .mp4 (MP4 needs ffmpeg on PATH)\n"
    "With no FILE and no -o: writes out/demo.gif and the poster frame out/demo.png.\n";

typedef enum { OUT_PNG, OUT_GIF, OUT_MP4 } out_kind;

typedef struct options {
    const char *file, *out, *camera;
    const char *clips[WORLD_MAX_CLIPS];
    uint32_t clip_count, width, height, msaa;
    double time, fps, duration;
    bool has_time, has_fps, has_duration, skeleton, ik;
} options;

static int usage_error(const char *fmt, const char *arg) {
    fprintf(stderr, "oroya render: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n(see 'oroya render --help')\n");
    return 2;
}

static bool parse_number(const char *s, double *out) {
    char *end = NULL;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !isfinite(v)) return false;
    *out = v;
    return true;
}

static int parse_args(int argc, char **argv, options *o) {
    memset(o, 0, sizeof *o);
    o->width = 640;
    o->height = 360;
    o->msaa = 4;
    o->camera = "auto";
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        bool takes = !strcmp(a, "--clip") || !strcmp(a, "--time") || !strcmp(a, "--fps") ||
                     !strcmp(a, "--duration") || !strcmp(a, "--size") || !strcmp(a, "--camera") ||
                     !strcmp(a, "--msaa") || !strcmp(a, "-o") || !strcmp(a, "--output");
        if (takes && !v) return usage_error("%s needs a value", a);
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            fputs(usage_text, stdout);
            return -1;
        } else if (!strcmp(a, "--clip")) {
            if (o->clip_count == WORLD_MAX_CLIPS) return usage_error("too many --clip options (at most %s)", "8");
            o->clips[o->clip_count++] = v;
            i++;
        } else if (!strcmp(a, "--time")) {
            if (!parse_number(v, &o->time) || o->time < 0) return usage_error("--time '%s' is not a time >= 0", v);
            o->has_time = true;
            i++;
        } else if (!strcmp(a, "--fps")) {
            if (!parse_number(v, &o->fps) || o->fps <= 0 || o->fps > 100) {
                return usage_error("--fps '%s' is not a number in (0, 100]", v);
            }
            o->has_fps = true;
            i++;
        } else if (!strcmp(a, "--duration")) {
            if (!parse_number(v, &o->duration) || o->duration <= 0 || o->duration > 600) {
                return usage_error("--duration '%s' is not a number of seconds in (0, 600]", v);
            }
            o->has_duration = true;
            i++;
        } else if (!strcmp(a, "--size")) {
            unsigned w = 0, h = 0;
            char tail = 0;
            if (sscanf(v, "%ux%u%c", &w, &h, &tail) != 2 || w < 16 || h < 16 || w > 4096 || h > 4096) {
                return usage_error("--size '%s' is not WxH with 16 <= W, H <= 4096", v);
            }
            o->width = w;
            o->height = h;
            i++;
        } else if (!strcmp(a, "--camera")) {
            o->camera = v;
            i++;
        } else if (!strcmp(a, "--msaa")) {
            double n = 0;
            if (!parse_number(v, &n) || n < 1 || n > 16 || n != floor(n)) {
                return usage_error("--msaa '%s' is not a whole number in 1..16", v);
            }
            o->msaa = (uint32_t)n;
            i++;
        } else if (!strcmp(a, "-o") || !strcmp(a, "--output")) {
            o->out = v;
            i++;
        } else if (!strcmp(a, "--ik")) {
            o->ik = true;
        } else if (!strcmp(a, "--skeleton")) {
            o->skeleton = true;
        } else if (a[0] == '-' && a[1]) {
            return usage_error("unknown option '%s'", a);
        } else if (!o->file) {
            o->file = a;
        } else {
            return usage_error("more than one input file ('%s')", a);
        }
    }
    if (o->has_time && (o->has_fps || o->has_duration)) {
        return usage_error("%s", "--time renders one frame; it cannot go with --fps or --duration");
    }
    return 0;
}

static const char *extension(const char *path) {
    const char *dot = strrchr(path, '.');
    const char *slash = strrchr(path, '/');
    return dot && (!slash || dot > slash) ? dot : "";
}

static bool ext_is(const char *path, const char *ext) {
    const char *e = extension(path);
    if (strlen(e) != strlen(ext)) return false;
    for (size_t i = 0; e[i]; i++) {
        char c = e[i];
        if (c >= 'A' && c <= 'Z') c = (char)(c - 'A' + 'a');
        if (c != ext[i]) return false;
    }
    return true;
}

/* On a terminal the bar redraws in place every frame; in a log it prints a line at each
 * quarter, so logs stay short. */
static void progress(uint32_t done, uint32_t total) {
    enum { BAR = 30 };
    bool tty = isatty(2);
    if (!tty && done != total && (uint64_t)done * 4 / total == (uint64_t)(done - 1) * 4 / total) return;
    char bar[BAR + 1];
    uint32_t filled = (uint32_t)((uint64_t)done * BAR / total);
    for (uint32_t i = 0; i < BAR; i++) bar[i] = i < filled ? '#' : '-';
    bar[BAR] = 0;
    fprintf(stderr, "%srendering [%s] %u/%u frames", tty ? "\r" : "", bar, done, total);
    if (done == total || !tty) fputc('\n', stderr);
    fflush(stderr);
}

static int fail(const char *what, const oroya_error *err) {
    fprintf(stderr, "oroya render: %s: %s\n", what, err->message[0] ? err->message : oroya_result_string(err->result));
    return 1;
}

static int choose_clips(world *w, const options *o) {
    if (!o->clip_count) return 0;
    uint32_t mask = 0;
    for (uint32_t i = 0; i < o->clip_count; i++) {
        uint32_t k = 0;
        while (k < w->clip_count && strcmp(w->clips[k]->name, o->clips[i])) k++;
        if (k == w->clip_count) {
            fprintf(stderr, "oroya render: no clip named '%s'; clips:", o->clips[i]);
            for (uint32_t j = 0; j < w->clip_count; j++) fprintf(stderr, " %s", w->clips[j]->name);
            fputc('\n', stderr);
            return 1;
        }
        mask |= 1u << k;
    }
    world_set_clips(w, mask);
    return 0;
}

static int choose_camera(world *w, const options *o, oroya_mat4 *view, oroya_mat4 *proj) {
    float aspect = (float)o->width / (float)o->height;
    if (!strcmp(o->camera, "auto")) {
        oroya_vec3 lo, hi;
        world_animated_bounds(w, 60, &lo, &hi);
        world_frame_bounds(lo, hi, (oroya_vec3){0, 0.32f, 1}, 40.0f, aspect, view, proj);
        return 0;
    }
    return world_node_camera(w, o->camera, aspect, view, proj);
}

static int ensure_dir(const char *dir) {
    if (mkdir(dir, 0777) == 0 || errno == EEXIST) return 0;
    fprintf(stderr, "oroya render: cannot create directory '%s': %s\n", dir, strerror(errno));
    return 1;
}

static int write_png(const char *path, uint32_t w, uint32_t h, const uint8_t *px) {
    oroya_error err = {0};
    if (oroya_image_write_png(path, w, h, px, &err) != OROYA_OK) return fail("writing the PNG", &err);
    fprintf(stderr, "wrote %s (%ux%u)\n", path, w, h);
    return 0;
}

static int render_main(const options *o_in) {
    options o = *o_in;
    bool demo_defaults = !o.file && !o.out;
    if (demo_defaults) {
        if (ensure_dir("out")) return 1;
        o.out = "out/demo.gif";
    }
    if (!o.out) return usage_error("%s", "-o OUT.png|.gif|.mp4 is required with a FILE");
    out_kind kind;
    if (ext_is(o.out, ".png")) kind = OUT_PNG;
    else if (ext_is(o.out, ".gif")) kind = OUT_GIF;
    else if (ext_is(o.out, ".mp4")) kind = OUT_MP4;
    else return usage_error("output '%s' must end in .png, .gif or .mp4", o.out);
    if (kind == OUT_PNG && (o.has_fps || o.has_duration)) {
        return usage_error("%s", "a PNG holds one frame: use --time T, or write .gif or .mp4");
    }
    if (kind == OUT_MP4 && (o.width % 2 || o.height % 2)) {
        return usage_error("%s", "MP4 (yuv420p) needs an even width and height");
    }
    if (kind == OUT_MP4 && !oroya_video_available()) {
        fprintf(stderr, "oroya render: MP4 output needs ffmpeg, which is not on PATH; install "
                        "ffmpeg (Debian: apt-get install ffmpeg) or write .gif or .png instead\n");
        return 1;
    }
    world w;
    if (o.file && o.ik) return usage_error("%s", "--ik shows the built-in IK demo; it takes no FILE");
    if (o.file ? gltf_world_create(o.file, &w) : o.ik ? ik_world_create(&w) : demo_world_create(&w)) return 1;
    int rc = choose_clips(&w, &o);
    if (!rc && o.clip_count) {
        double d = world_clip_duration(&w);
        w.duration = d > 0.0 ? d : 1.0;
    }
    oroya_mat4 view, proj;
    if (!rc) rc = choose_camera(&w, &o, &view, &proj);
    if (rc) {
        world_free(&w);
        return rc;
    }
    double fps = o.has_fps ? o.fps : 25.0;
    double duration = o.has_duration ? o.duration : w.duration;
    uint32_t frames = 1;
    if (kind != OUT_PNG && !o.has_time && !(duration <= 600.0)) {
        /* The clip's own length, unchecked like --duration: 1e30 s made llround overflow
         * and a 1-frame file. */
        fprintf(stderr, "oroya render: the animation lasts %g s, more than the 600 s a GIF or "
                        "MP4 may take; pass --duration D (at most 600)\n", duration);
        world_free(&w);
        return 1;
    }
    if (kind != OUT_PNG && !o.has_time) {
        frames = (uint32_t)llround(duration * fps);
        if (frames < 1) frames = 1;
    }
    if (kind == OUT_GIF && frames > 1 && fps > 50.0) {
        fprintf(stderr, "oroya render: note: GIF frame delays are in 1/100 s and viewers clamp "
                        "delays under 2/100 s; %g fps will play slower\n", fps);
    }
    size_t frame_bytes = (size_t)o.width * o.height * 4;
    size_t keep = kind == OUT_GIF ? frames : 1;
    if ((double)frame_bytes * (double)keep > 2e9) {
        fprintf(stderr, "oroya render: %u frames of %ux%u need more than 2 GB; lower --size, --fps or --duration\n",
                frames, o.width, o.height);
        world_free(&w);
        return 2;
    }
    uint8_t *pixels = malloc(frame_bytes * keep);
    oroya_renderer *r = NULL;
    oroya_error err = {0};
    world_gpu gpu;
    memset(&gpu, 0, sizeof gpu);
    oroya_video_writer *video = NULL;
    if (!pixels) {
        fprintf(stderr, "oroya render: out of memory for %u frames\n", frames);
        rc = 1;
    }
    if (!rc && oroya_renderer_create(&(oroya_renderer_desc){.width = o.width, .height = o.height,
                                                            .msaa_samples = o.msaa}, &r, &err) != OROYA_OK) {
        rc = fail("cannot start the renderer", &err);
    }
    if (!rc && world_upload(&w, r, &gpu, &err) != OROYA_OK) rc = fail("uploading meshes", &err);
    if (!rc && kind == OUT_MP4 && oroya_video_begin(o.out, o.width, o.height, (float)fps, &video, &err) != OROYA_OK) {
        rc = fail("starting ffmpeg", &err);
    }
    double t0 = o.has_time ? o.time : (kind == OUT_PNG ? (o.file ? 0.0 : w.poster_time) : 0.0);
    for (uint32_t f = 0; !rc && f < frames; f++) {
        double t = t0 + (double)f / fps;
        uint8_t *dst = pixels + (kind == OUT_GIF ? frame_bytes * f : 0);
        world_pose(&w, t);
        if (world_render(&w, r, &gpu, &view, &proj, o.skeleton, &err) != OROYA_OK ||
            oroya_render_read_pixels(r, dst, frame_bytes, &err) != OROYA_OK) {
            rc = fail("rendering", &err);
            break;
        }
        if (video && oroya_video_add_frame(video, dst, &err) != OROYA_OK) rc = fail("writing the MP4", &err);
        if (frames > 1) progress(f + 1, frames);
    }
    if (video) {
        if (oroya_video_finish(video, &err) != OROYA_OK && !rc) rc = fail("writing the MP4", &err);
        if (!rc) fprintf(stderr, "wrote %s (%u frames, %ux%u, %g fps)\n", o.out, frames, o.width, o.height, fps);
    }
    if (!rc && kind == OUT_PNG) rc = write_png(o.out, o.width, o.height, pixels);
    if (!rc && kind == OUT_GIF) {
        uint32_t delay = (uint32_t)lround(100.0 / fps);
        if (oroya_image_write_gif(o.out, o.width, o.height, frames, pixels, delay ? delay : 1, true, &err) != OROYA_OK) {
            rc = fail("writing the GIF", &err);
        } else {
            fprintf(stderr, "wrote %s (%u frames, %ux%u, %g fps)\n", o.out, frames, o.width, o.height, fps);
        }
    }
    if (!rc && demo_defaults) {
        world_pose(&w, w.poster_time);
        if (world_render(&w, r, &gpu, &view, &proj, o.skeleton, &err) != OROYA_OK ||
            oroya_render_read_pixels(r, pixels, frame_bytes, &err) != OROYA_OK) {
            rc = fail("rendering the poster", &err);
        } else {
            rc = write_png("out/demo.png", o.width, o.height, pixels);
        }
    }
    if (r) {
        world_release(r, &gpu);
        oroya_renderer_destroy(r);
    }
    free(pixels);
    world_free(&w);
    return rc;
}

int oroya_cmd_render(int argc, char **argv) {
    options o;
    int rc = parse_args(argc, argv, &o);
    if (rc == -1) return 0;
    if (rc) return rc;
    return render_main(&o);
}

#else

int oroya_cmd_render(int argc, char **argv) {
    (void)argc;
    (void)argv;
    fprintf(stderr, "oroya render: this oroya was built without the renderer (OROYA_BUILD_RENDER=OFF)\n");
    return 1;
}

#endif
