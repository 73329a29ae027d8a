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
#include "cli_util.h"
#include "demo_scene.h"

#ifdef OROYA_HAVE_RENDER

static const char *usage_text =
    "usage: oroya render [FILE] [--clip NAME]... [--time T | --fps F --duration D]\n"
    "                    [--size WxH] [--camera auto|NODE] [--yaw DEG] [--pitch DEG]\n"
    "                    [--distance D] [--orbit] [--no-ground] [--msaa N] [--skeleton]\n"
    "                    [--ik] [--allow-outside] -o OUT.png|.gif|.mp4\n"
    "\n"
    "Renders FILE (glTF 2.0), or the built-in demo scene when FILE is left out, offscreen\n"
    "(EGL, no window system needed).\n"
    "  --clip NAME     play this clip: its name or animation_<index> (oroya info lists them);\n"
    "                  repeatable, in the order given. Default: every clip. Clips that\n"
    "                  animate different nodes play together; when two animate the same\n"
    "                  node (a character's walk and run), they play one after the other.\n"
    "  --time T        render the single frame at T seconds (PNG); with several clips in a\n"
    "                  row, T counts from the first clip's start\n"
    "  --fps F         frames per second of a GIF or MP4 (default 25)\n"
    "  --duration D    seconds to render (default: the whole animation, every clip played)\n"
    "  --size WxH      image size in pixels (default 640x360)\n"
    "  --camera auto   frame what moves: the bounds of the meshes over the whole animation\n"
    "                  (default)\n"
    "  --camera NODE   look through the camera node NODE\n"
    "  --yaw DEG       auto camera: degrees around the vertical axis (0: from the front,\n"
    "                  +z; 90: from the right side, +x; default 0)\n"
    "  --pitch DEG     auto camera: degrees above the horizon (-89..89, default 18)\n"
    "  --distance D    auto camera: distance from the middle of the bounds, in scene units\n"
    "                  (default: as close as keeps everything in the frame)\n"
    "  --orbit         auto camera: turn once around the figure over the animation (a\n"
    "                  turntable GIF or MP4), starting at --yaw\n"
    "  --no-ground     a file's scene without the ground and contact shadow oroya adds\n"
    "  --msaa N        samples per pixel (default 4; 1 = off)\n"
    "  --skeleton      draw the bones (ribbons) and joints (discs) over the meshes\n"
    "  --ik            without FILE: the inverse kinematics demo (a planted foot, a head\n"
    "                  following a ball) instead of the tutorials' demo\n"
    "  --allow-outside the file's buffers and images may lie outside its folder (by\n"
    "                  default \"../x.bin\", absolute paths and links that lead out are\n"
    "                  refused)\n"
    "  -o OUT          output file; .png, .gif or .mp4 (MP4 needs ffmpeg on PATH)\n"
    "With no FILE and no -o: writes out/demo.gif and the poster frame out/demo.png.\n";

typedef enum { OUT_PNG, OUT_GIF, OUT_MP4 } out_kind;

typedef struct options {
    const char *file, *out, *camera;
    const char *clips[WORLD_MAX_CLIPS];
    uint32_t clip_count, width, height, msaa;
    double time, fps, duration, yaw, pitch, distance;
    bool has_time, has_fps, has_duration, skeleton, orbit, no_ground, has_view_angles, ik;
    bool allow_outside;
} options;

#define STRINGIFY_(x) #x
#define STRINGIFY(x) STRINGIFY_(x) /* a limit's macro as text, for the messages */

static int usage_error(const char *fmt, const char *arg) {
    fprintf(stderr, "oroya render: ");
    fprintf(stderr, fmt, cli_esc(arg));
    fprintf(stderr, "\n(see 'oroya render --help')\n");
    return 2;
}

static bool parse_number(const char *s, double *out) {
    char *end = NULL;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !isfinite(v))
        return false;
    *out = v;
    return true;
}

static int parse_args(int argc, char **argv, options *o) {
    memset(o, 0, sizeof *o);
    o->width = 640;
    o->height = 360;
    o->msaa = 4;
    o->camera = "auto";
    o->pitch = 18.0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        bool takes = !strcmp(a, "--clip") || !strcmp(a, "--time") || !strcmp(a, "--fps") ||
                     !strcmp(a, "--duration") || !strcmp(a, "--size") || !strcmp(a, "--camera") ||
                     !strcmp(a, "--msaa") || !strcmp(a, "-o") || !strcmp(a, "--output") ||
                     !strcmp(a, "--yaw") || !strcmp(a, "--pitch") || !strcmp(a, "--distance");
        if (takes && !v)
            return usage_error("%s needs a value", a);
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            fputs(usage_text, stdout);
            return -1;
        } else if (!strcmp(a, "--clip")) {
            if (o->clip_count == WORLD_MAX_CLIPS)
                return usage_error("too many --clip options (at most %s)",
                                   STRINGIFY(WORLD_MAX_CLIPS));
            o->clips[o->clip_count++] = v;
            i++;
        } else if (!strcmp(a, "--time")) {
            if (!parse_number(v, &o->time) || o->time < 0)
                return usage_error("--time '%s' is not a time >= 0", v);
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
            if (!cli_parse_size(v, &w, &h) || w < 16 || h < 16 || w > 4096 || h > 4096) {
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
        } else if (!strcmp(a, "--yaw")) {
            if (!parse_number(v, &o->yaw) || fabs(o->yaw) > 3600)
                return usage_error("--yaw '%s' is not a number of degrees", v);
            o->has_view_angles = true;
            i++;
        } else if (!strcmp(a, "--pitch")) {
            if (!parse_number(v, &o->pitch) || fabs(o->pitch) > 89) {
                return usage_error("--pitch '%s' is not a number of degrees in -89..89", v);
            }
            o->has_view_angles = true;
            i++;
        } else if (!strcmp(a, "--distance")) {
            if (!parse_number(v, &o->distance) || o->distance <= 0 || o->distance > 1e7) {
                return usage_error("--distance '%s' is not a distance > 0", v);
            }
            o->has_view_angles = true;
            i++;
        } else if (!strcmp(a, "--orbit")) {
            o->orbit = true;
        } else if (!strcmp(a, "--no-ground")) {
            o->no_ground = true;
        } else if (!strcmp(a, "--ik")) {
            o->ik = true;
        } else if (!strcmp(a, "--skeleton")) {
            o->skeleton = true;
        } else if (!strcmp(a, "--allow-outside")) {
            o->allow_outside = true;
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
    if ((o->has_view_angles || o->orbit) && strcmp(o->camera, "auto")) {
        return usage_error("%s", "--yaw, --pitch, --distance and --orbit move the auto camera; "
                                 "they cannot go with --camera NODE");
    }
    if (o->orbit && o->has_time)
        return usage_error("%s", "--orbit turns over an animation; it cannot go with --time");
    return 0;
}

static const char *extension(const char *path) {
    const char *dot = strrchr(path, '.');
    const char *slash = strrchr(path, '/');
    return dot && (!slash || dot > slash) ? dot : "";
}

static bool ext_is(const char *path, const char *ext) {
    const char *e = extension(path);
    if (strlen(e) != strlen(ext))
        return false;
    for (size_t i = 0; e[i]; i++) {
        char c = e[i];
        if (c >= 'A' && c <= 'Z')
            c = (char)(c - 'A' + 'a');
        if (c != ext[i])
            return false;
    }
    return true;
}

/* On a terminal the bar redraws in place every frame; in a log it prints a line at each
 * quarter, so logs stay short. */
static void progress(uint32_t done, uint32_t total) {
    enum { BAR = 30 };
    bool tty = isatty(2);
    if (!tty && done != total && (uint64_t)done * 4 / total == (uint64_t)(done - 1) * 4 / total)
        return;
    char bar[BAR + 1];
    uint32_t filled = (uint32_t)((uint64_t)done * BAR / total);
    for (uint32_t i = 0; i < BAR; i++)
        bar[i] = i < filled ? '#' : '-';
    bar[BAR] = 0;
    fprintf(stderr, "%srendering [%s] %u/%u frames", tty ? "\r" : "", bar, done, total);
    if (done == total || !tty)
        fputc('\n', stderr);
    fflush(stderr);
}

static int fail(const char *what, const oroya_error *err) {
    fprintf(stderr, "oroya render: %s: %s\n", cli_esc(what),
            cli_esc(err->message[0] ? err->message : oroya_result_string(err->result)));
    return 1;
}

/* True when two clips animate a node in common. */
static bool share_a_node(const oroya_clip *a, const oroya_clip *b) {
    for (uint32_t i = 0; i < a->track_count; i++) {
        for (uint32_t k = 0; k < b->track_count; k++) {
            if (!strcmp(a->tracks[i].target, b->tracks[k].target))
                return true;
        }
    }
    return false;
}

/* The clips to play (--clip, default every clip). Clips that animate different nodes play
 * together (the demo's examples, a file's independent objects); as soon as two of them
 * animate the same node (a character's walk and run), they play one after the other. */
static int choose_clips(world *w, const options *o) {
    uint32_t order[WORLD_MAX_CLIPS], n = 0;
    for (uint32_t i = 0; i < o->clip_count; i++) {
        int32_t k = cli_find_clip("render", o->file, w->clips, w->clip_count, o->clips[i]);
        if (k < 0)
            return 1;
        order[n++] = (uint32_t)k;
    }
    bool chosen = n > 0;
    if (!n) {
        for (uint32_t i = 0; i < w->clip_count; i++)
            order[n++] = i;
    }
    bool together = true;
    for (uint32_t i = 0; i < n && together; i++) {
        for (uint32_t k = i + 1; k < n && together; k++) {
            together =
                order[i] != order[k] && !share_a_node(w->clips[order[i]], w->clips[order[k]]);
        }
    }
    if (!together) {
        world_set_sequence(w, order, n);
        return 0;
    }
    uint32_t mask = 0;
    for (uint32_t i = 0; i < n; i++)
        mask |= 1u << order[i];
    world_set_clips(w, mask);
    /* The demo keeps its own length (two loops of the ball clips) unless --clip chooses. */
    if (chosen || o->file) {
        double d = world_clip_duration(w);
        w->duration = d > 0.0 ? d : 1.0;
    }
    return 0;
}

/* The auto camera at `yaw` degrees; orbits keep the distance that fits every yaw, so the
 * figure does not breathe as the camera turns. */
static void auto_camera(const options *o, oroya_vec3 lo, oroya_vec3 hi, double yaw, float aspect,
                        oroya_mat4 *view, oroya_mat4 *proj) {
    float distance = (float)o->distance;
    if (o->orbit && distance <= 0.0f) {
        for (int k = 0; k < 36; k++) {
            oroya_mat4 v, p;
            oroya_vec3 from = world_camera_direction((float)(o->yaw + 10.0 * k), (float)o->pitch);
            float d = world_frame_bounds(lo, hi, from, 40.0f, aspect, 0.0f, &v, &p);
            if (d > distance)
                distance = d;
        }
    }
    world_frame_bounds(lo, hi, world_camera_direction((float)yaw, (float)o->pitch), 40.0f, aspect,
                       distance, view, proj);
}

static int ensure_dir(const char *dir) {
    if (mkdir(dir, 0777) == 0 || errno == EEXIST)
        return 0;
    fprintf(stderr, "oroya render: cannot create directory '%s': %s\n", cli_esc(dir),
            strerror(errno));
    return 1;
}

static int write_png(const char *path, uint32_t w, uint32_t h, const uint8_t *px) {
    oroya_error err = {0};
    if (oroya_image_write_png(path, w, h, px, &err) != OROYA_OK)
        return fail("writing the PNG", &err);
    fprintf(stderr, "wrote %s (%ux%u)\n", cli_esc(path), w, h);
    return 0;
}

static int render_main(const options *o_in) {
    options o = *o_in;
    bool demo_defaults = !o.file && !o.out;
    if (demo_defaults) {
        if (ensure_dir("out"))
            return 1;
        o.out = "out/demo.gif";
    }
    if (!o.out)
        return usage_error("%s", "-o OUT.png|.gif|.mp4 is required with a FILE");
    out_kind kind;
    if (ext_is(o.out, ".png"))
        kind = OUT_PNG;
    else if (ext_is(o.out, ".gif"))
        kind = OUT_GIF;
    else if (ext_is(o.out, ".mp4"))
        kind = OUT_MP4;
    else
        return usage_error("output '%s' must end in .png, .gif or .mp4", o.out);
    if (kind == OUT_PNG && (o.has_fps || o.has_duration)) {
        return usage_error("%s", "a PNG holds one frame: use --time T, or write .gif or .mp4");
    }
    if (kind == OUT_MP4 && (o.width % 2 || o.height % 2)) {
        return usage_error("%s", "MP4 (yuv420p) needs an even width and height");
    }
    /* An output that exists and is no regular file (a directory, a FIFO) is refused before
     * rendering: oroya_image_write_* would refuse it too, but only after every frame. */
    struct stat ost;
    if (stat(o.out, &ost) == 0 && !S_ISREG(ost.st_mode)) {
        fprintf(stderr, "oroya render: cannot write '%s': %s; nothing was rendered\n",
                cli_esc(o.out), S_ISDIR(ost.st_mode) ? "a directory" : "not a regular file");
        return 1;
    }
    if (kind == OUT_MP4 && !oroya_video_available()) {
        fprintf(stderr, "oroya render: MP4 output needs ffmpeg, which is not on PATH; install "
                        "ffmpeg (Debian: apt-get install ffmpeg) or write .gif or .png instead\n");
        return 1;
    }
    world w;
    if (o.file && o.ik)
        return usage_error("%s", "--ik shows the built-in IK demo; it takes no FILE");
    if (o.file ? gltf_world_create("render", o.file, o.allow_outside, &w)
        : o.ik ? ik_world_create(&w)
               : demo_world_create(&w))
        return 1;
    int rc = choose_clips(&w, &o);
    oroya_mat4 view, proj;
    oroya_vec3 lo = {0, 0, 0}, hi = {0, 0, 0};
    bool auto_cam = !strcmp(o.camera, "auto");
    float aspect = (float)o.width / (float)o.height;
    if (!rc && (auto_cam || (o.file && !o.no_ground))) {
        /* What moves, over the whole animation (every clip of a sequence). */
        world_animated_bounds(&w, 90, &lo, &hi);
    }
    if (!rc && o.file && !o.no_ground)
        rc = world_add_stage(&w, lo, hi);
    if (!rc && auto_cam)
        auto_camera(&o, lo, hi, o.yaw, aspect, &view, &proj);
    if (!rc && !auto_cam)
        rc = world_node_camera(&w, o.camera, aspect, &view, &proj);
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
        fprintf(stderr,
                "oroya render: the animation lasts %g s, more than the 600 s a GIF or "
                "MP4 may take; pass --duration D (at most 600)\n",
                duration);
        world_free(&w);
        return 1;
    }
    if (kind != OUT_PNG && !o.has_time) {
        frames = (uint32_t)llround(duration * fps);
        if (frames < 1)
            frames = 1;
    }
    if (kind == OUT_GIF && frames > 1 && fps > 50.0) {
        fprintf(stderr,
                "oroya render: note: GIF frame delays are in 1/100 s and viewers clamp "
                "delays under 2/100 s; %g fps will play slower\n",
                fps);
    }
    size_t frame_bytes = (size_t)o.width * o.height * 4;
    size_t keep = kind == OUT_GIF ? frames : 1;
    if ((double)frame_bytes * (double)keep > 2e9) {
        fprintf(stderr,
                "oroya render: %u frames of %ux%u need more than 2 GB; lower --size, --fps or "
                "--duration\n",
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
    if (!rc &&
        oroya_renderer_create(
            &(oroya_renderer_desc){.width = o.width, .height = o.height, .msaa_samples = o.msaa},
            &r, &err) != OROYA_OK) {
        rc = fail("cannot start the renderer", &err);
    }
    if (!rc && world_upload(&w, r, &gpu, &err) != OROYA_OK)
        rc = fail("uploading meshes", &err);
    if (!rc && kind == OUT_MP4 &&
        oroya_video_begin(o.out, o.width, o.height, (float)fps, &video, &err) != OROYA_OK) {
        rc = fail("starting ffmpeg", &err);
    }
    double t0 = o.has_time ? o.time : (kind == OUT_PNG ? (o.file ? 0.0 : w.poster_time) : 0.0);
    for (uint32_t f = 0; !rc && f < frames; f++) {
        double t = t0 + (double)f / fps;
        uint8_t *dst = pixels + (kind == OUT_GIF ? frame_bytes * f : 0);
        world_pose(&w, t);
        if (o.orbit)
            auto_camera(&o, lo, hi, o.yaw + 360.0 * (double)f / (double)frames, aspect, &view,
                        &proj);
        if (world_render(&w, r, &gpu, &view, &proj, o.skeleton, &err) != OROYA_OK ||
            oroya_render_read_pixels(r, dst, frame_bytes, &err) != OROYA_OK) {
            rc = fail("rendering", &err);
            break;
        }
        if (video && oroya_video_add_frame(video, dst, &err) != OROYA_OK)
            rc = fail("writing the MP4", &err);
        if (frames > 1)
            progress(f + 1, frames);
    }
    if (video) {
        if (oroya_video_finish(video, &err) != OROYA_OK && !rc)
            rc = fail("writing the MP4", &err);
        if (!rc)
            fprintf(stderr, "wrote %s (%u frames, %ux%u, %g fps)\n", cli_esc(o.out), frames,
                    o.width, o.height, fps);
    }
    if (!rc && kind == OUT_PNG)
        rc = write_png(o.out, o.width, o.height, pixels);
    if (!rc && kind == OUT_GIF) {
        uint32_t delay = (uint32_t)lround(100.0 / fps);
        if (oroya_image_write_gif(o.out, o.width, o.height, frames, pixels, delay ? delay : 1, true,
                                  &err) != OROYA_OK) {
            rc = fail("writing the GIF", &err);
        } else {
            fprintf(stderr, "wrote %s (%u frames, %ux%u, %g fps)\n", cli_esc(o.out), frames,
                    o.width, o.height, fps);
        }
    }
    if (!rc && demo_defaults) {
        world_pose(&w, w.poster_time);
        if (o.orbit)
            auto_camera(&o, lo, hi, o.yaw, aspect, &view, &proj);
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
    if (rc == -1)
        return 0;
    if (rc)
        return rc;
    return render_main(&o);
}

#else

int oroya_cmd_render(int argc, char **argv) {
    (void)argc;
    (void)argv;
    fprintf(stderr,
            "oroya render: this oroya was built without the renderer (OROYA_BUILD_RENDER=OFF)\n");
    return 1;
}

#endif
