/* oroya view: an interactive window (GLFW) on a glTF file or the built-in demo. The renderer
 * draws into its offscreen framebuffer with the window's GLES 3 context and blits the result
 * to the window. Scripted runs (--frames, --press, --screenshot) drive it under Xvfb in tests. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli.h"
#include "cli_util.h"
#include "demo_scene.h"

#if defined(OROYA_HAVE_RENDER) && defined(OROYA_HAVE_GLFW)

#define GLFW_INCLUDE_ES3
#include <GLFW/glfw3.h>

#define MAX_PRESSES 64

static const char *usage_text =
    "usage: oroya view [FILE] [--clip NAME] [--size WxH] [--skeleton] [--allow-outside]\n"
    "                  [--frames N] [--press KEY@FRAME]... [--screenshot OUT.png]\n"
    "\n"
    "Opens FILE (glTF 2.0), or the built-in demo, in a window. --clip NAME starts with that\n"
    "clip (its name or animation_<index>, as oroya info lists them). --allow-outside lets\n"
    "the file's buffers and images lie outside its folder (by default \"../x.bin\",\n"
    "absolute paths and links that lead out are refused).\n"
    "  mouse drag / arrows  orbit        scroll / PageUp PageDown  zoom\n"
    "  space  play / pause               n  next clip (then all clips)\n"
    "  1-9    play only that clip        a  all clips\n"
    "  x      cross-fade to the next clip over 0.5 s\n"
    "  + -    speed x2 / x0.5            k  skeleton overlay\n"
    "  r      reset the camera           q, Esc  quit\n"
    "Scripted runs (tests, screenshots): --frames N stops after N frames at a fixed 1/30 s step,\n"
    "--press KEY@FRAME acts as if KEY (space, n, a, x, k, r, plus, minus, left, right, up, down,\n"
    "pageup, pagedown, 1-9, q) was pressed at that frame, --screenshot writes the window's last "
    "frame "
    "as PNG. Each\n"
    "key press prints the new state on stdout.\n";

typedef struct view_state {
    world *w;
    bool playing, skeleton, quit;
    double time, speed;
    int32_t solo; /* -1: every clip */
    float yaw, pitch, distance, base_distance;
    oroya_vec3 target;
    double last_x, last_y;
    bool dragging;
    uint32_t frame;
} view_state;

static void print_state(const view_state *s) {
    printf("state: frame=%u clip=%s playing=%d speed=%g skeleton=%d fading=%d yaw=%.3f zoom=%.4g\n",
           s->frame, s->solo < 0 ? "all" : cli_esc(s->w->clips[s->solo]->name), s->playing ? 1 : 0,
           s->speed, s->skeleton ? 1 : 0, world_fading(s->w) ? 1 : 0, (double)s->yaw,
           s->base_distance > 0 ? (double)(s->distance / s->base_distance) : 1.0);
    fflush(stdout);
}

static void solo_clip(view_state *s, int32_t c) {
    world *w = s->w;
    if (c >= (int32_t)w->clip_count)
        return;
    s->solo = c;
    world_set_clips(w, c < 0 ? (w->clip_count >= 32 ? 0xffffffffu : (1u << w->clip_count) - 1u)
                             : 1u << c);
}

static void reset_camera(view_state *s) {
    s->yaw = 0.0f;
    s->pitch = 0.31f;
    s->distance = s->base_distance;
}

/* Zooming stays within 1/100 and 100 times the framing distance (without a bound, zooming
 * out long enough made the camera matrices overflow and the viewer stop). */
static void zoom(view_state *s, float factor) {
    const float d = s->distance * factor, lo = s->base_distance * 0.01f,
                hi = s->base_distance * 100.0f;
    if (isfinite(d)) {
        s->distance = d < lo ? lo : d > hi ? hi : d;
    }
}

/* One place for keys, whether they come from GLFW or from --press. */
static void handle_key(view_state *s, int key) {
    world *w = s->w;
    switch (key) {
    case GLFW_KEY_SPACE: s->playing = !s->playing; break;
    case GLFW_KEY_N:
        if (w->clip_count)
            solo_clip(s, s->solo + 1 < (int32_t)w->clip_count ? s->solo + 1 : -1);
        break;
    case GLFW_KEY_A: solo_clip(s, -1); break;
    case GLFW_KEY_X:
        if (w->clip_count > 1) {
            uint32_t from = s->solo < 0 ? 0 : (uint32_t)s->solo, to = (from + 1) % w->clip_count;
            if (world_start_fade(w, from, to, 0.5) == 0)
                s->solo = (int32_t)to;
        }
        break;
    case GLFW_KEY_K: s->skeleton = !s->skeleton; break;
    case GLFW_KEY_EQUAL:
    case GLFW_KEY_KP_ADD: s->speed = fmin(s->speed * 2.0, 8.0); break;
    case GLFW_KEY_MINUS:
    case GLFW_KEY_KP_SUBTRACT: s->speed = fmax(s->speed * 0.5, 0.125); break;
    case GLFW_KEY_LEFT: s->yaw -= 0.15f; break;
    case GLFW_KEY_RIGHT: s->yaw += 0.15f; break;
    case GLFW_KEY_UP: s->pitch = fminf(s->pitch + 0.1f, 1.5f); break;
    case GLFW_KEY_DOWN: s->pitch = fmaxf(s->pitch - 0.1f, -1.5f); break;
    case GLFW_KEY_PAGE_UP: zoom(s, 0.9f); break;
    case GLFW_KEY_PAGE_DOWN: zoom(s, 1.1f); break;
    case GLFW_KEY_R: reset_camera(s); break;
    case GLFW_KEY_Q:
    case GLFW_KEY_ESCAPE: s->quit = true; break;
    default:
        if (key >= GLFW_KEY_1 && key <= GLFW_KEY_9)
            solo_clip(s, key - GLFW_KEY_1);
        else
            return;
    }
    print_state(s);
}

static void on_key(GLFWwindow *win, int key, int scancode, int action, int mods) {
    (void)scancode;
    (void)mods;
    if (action == GLFW_PRESS || action == GLFW_REPEAT)
        handle_key(glfwGetWindowUserPointer(win), key);
}

static void on_button(GLFWwindow *win, int button, int action, int mods) {
    (void)mods;
    view_state *s = glfwGetWindowUserPointer(win);
    if (button == GLFW_MOUSE_BUTTON_LEFT) {
        s->dragging = action == GLFW_PRESS;
        glfwGetCursorPos(win, &s->last_x, &s->last_y);
    }
}

static void on_cursor(GLFWwindow *win, double x, double y) {
    view_state *s = glfwGetWindowUserPointer(win);
    if (!s->dragging)
        return;
    s->yaw -= (float)(x - s->last_x) * 0.01f;
    s->pitch = fmaxf(-1.5f, fminf(1.5f, s->pitch + (float)(y - s->last_y) * 0.01f));
    s->last_x = x;
    s->last_y = y;
}

static void on_scroll(GLFWwindow *win, double dx, double dy) {
    (void)dx;
    view_state *s = glfwGetWindowUserPointer(win);
    zoom(s, powf(0.9f, (float)dy));
}

static const struct {
    const char *name;
    int key;
} key_names[] = {
    {"space", GLFW_KEY_SPACE},
    {"n", GLFW_KEY_N},
    {"a", GLFW_KEY_A},
    {"x", GLFW_KEY_X},
    {"k", GLFW_KEY_K},
    {"r", GLFW_KEY_R},
    {"plus", GLFW_KEY_EQUAL},
    {"minus", GLFW_KEY_MINUS},
    {"left", GLFW_KEY_LEFT},
    {"right", GLFW_KEY_RIGHT},
    {"up", GLFW_KEY_UP},
    {"down", GLFW_KEY_DOWN},
    {"q", GLFW_KEY_Q},
    {"pageup", GLFW_KEY_PAGE_UP},
    {"pagedown", GLFW_KEY_PAGE_DOWN},
};

static int parse_key(const char *name) {
    if (name[0] >= '1' && name[0] <= '9' && !name[1])
        return GLFW_KEY_1 + (name[0] - '1');
    for (size_t i = 0; i < sizeof key_names / sizeof key_names[0]; i++) {
        if (!strcmp(key_names[i].name, name))
            return key_names[i].key;
    }
    return -1;
}

typedef struct press {
    int key;
    uint32_t frame;
} press;

int oroya_cmd_view(int argc, char **argv) {
    const char *file = NULL, *clip = NULL, *screenshot = NULL;
    uint32_t width = 960, height = 540, frames = 0, press_count = 0;
    bool skeleton = false, allow_outside = false;
    press presses[MAX_PRESSES];
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        bool takes = !strcmp(a, "--clip") || !strcmp(a, "--size") || !strcmp(a, "--frames") ||
                     !strcmp(a, "--press") || !strcmp(a, "--screenshot");
        if (takes && !v) {
            fprintf(stderr, "oroya view: %s needs a value\n", cli_esc(a));
            return 2;
        }
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            fputs(usage_text, stdout);
            return 0;
        } else if (!strcmp(a, "--clip")) {
            clip = argv[++i];
        } else if (!strcmp(a, "--size")) {
            unsigned w = 0, h = 0;
            if (!cli_parse_size(v, &w, &h) || w < 16 || h < 16 || w > 4096 || h > 4096) {
                fprintf(stderr, "oroya view: --size '%s' is not WxH with 16 <= W, H <= 4096\n",
                        cli_esc(v));
                return 2;
            }
            width = w;
            height = h;
            i++;
        } else if (!strcmp(a, "--frames")) {
            char *end = NULL;
            long n = strtol(v, &end, 10);
            if (*end || n < 1 || n > 1000000) {
                fprintf(stderr, "oroya view: --frames '%s' is not a count in 1..1000000\n",
                        cli_esc(v));
                return 2;
            }
            frames = (uint32_t)n;
            i++;
        } else if (!strcmp(a, "--press")) {
            char name[32];
            unsigned at = 0;
            const char *sep = strchr(v, '@');
            int key = -1;
            if (sep && (size_t)(sep - v) < sizeof name) {
                memcpy(name, v, (size_t)(sep - v));
                name[sep - v] = 0;
                key = parse_key(name);
            }
            /* FRAME: decimal digits only (sscanf's %u took "-1" as 4294967295 and "5x" as 5). */
            const char *digits = sep ? sep + 1 : "";
            char *end = NULL;
            unsigned long frame = strtoul(digits, &end, 10);
            if (key < 0 || *digits < '0' || *digits > '9' || *end || frame > 1000000) {
                fprintf(stderr,
                        "oroya view: --press '%s' is not KEY@FRAME (FRAME in 0..1000000; see "
                        "--help for the keys)\n",
                        cli_esc(v));
                return 2;
            }
            if (press_count == MAX_PRESSES) {
                fprintf(stderr, "oroya view: more than %d --press options\n", MAX_PRESSES);
                return 2;
            }
            at = (unsigned)frame;
            presses[press_count++] = (press){key, at};
            i++;
        } else if (!strcmp(a, "--screenshot")) {
            /* A PNG is what it writes: another name is refused, as render's and plot's -o are
             * (it wrote PNG bytes into shot.bmp). */
            const char *dot = strrchr(v, '.');
            if (!dot || strcasecmp(dot, ".png")) {
                fprintf(stderr, "oroya view: --screenshot '%s' must end in .png\n", cli_esc(v));
                return 2;
            }
            screenshot = argv[++i];
        } else if (!strcmp(a, "--skeleton")) {
            skeleton = true;
        } else if (!strcmp(a, "--allow-outside")) {
            allow_outside = true;
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "oroya view: unknown option '%s'\n(see 'oroya view --help')\n",
                    cli_esc(a));
            return 2;
        } else if (!file) {
            file = a;
        } else {
            fprintf(stderr, "oroya view: more than one input file ('%s')\n", cli_esc(a));
            return 2;
        }
    }

    world w;
    if (file ? gltf_world_create("view", file, allow_outside, &w) : demo_world_create(&w))
        return 1;
    view_state s = {.w = &w, .playing = true, .skeleton = skeleton, .speed = 1.0, .solo = -1};
    if (file && w.clip_count)
        s.solo = 0;
    if (clip) {
        int32_t k = cli_find_clip("view", file, w.clips, w.clip_count, clip);
        if (k < 0) {
            world_free(&w);
            return 1;
        }
        solo_clip(&s, k);
    }
    oroya_vec3 lo, hi;
    world_animated_bounds(&w, 40, &lo, &hi);
    s.target = oroya_vec3_scale(oroya_vec3_add(lo, hi), 0.5f);
    {
        oroya_mat4 v, p;
        world_frame_bounds(lo, hi, (oroya_vec3){0, 0.32f, 1}, 40.0f, (float)width / (float)height,
                           0.0f, &v, &p);
        /* The framing camera's distance: the translation of the view matrix along its z axis. */
        oroya_mat4 inv;
        oroya_mat4_invert(v, &inv);
        s.base_distance = oroya_vec3_length(
            oroya_vec3_sub((oroya_vec3){inv.m[12], inv.m[13], inv.m[14]}, s.target));
    }
    reset_camera(&s);
    world_pose(&w, 0.0);

    if (!glfwInit()) {
        const char *desc = NULL;
        glfwGetError(&desc);
        fprintf(stderr,
                "oroya view: cannot open a window (%s); it needs a display: set DISPLAY, or "
                "run under xvfb-run, or use 'oroya render' for files\n",
                desc ? desc : "GLFW init failed");
        world_free(&w);
        return 1;
    }
    glfwWindowHint(GLFW_CLIENT_API, GLFW_OPENGL_ES_API);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 0);
    /* An EGL context: the renderer's GLES calls go through libGLESv2, which dispatches to it. */
    glfwWindowHint(GLFW_CONTEXT_CREATION_API, GLFW_EGL_CONTEXT_API);
    char title[256];
    snprintf(title, sizeof title, "oroya view - %s", file ? file : "demo");
    GLFWwindow *win = glfwCreateWindow((int)width, (int)height, title, NULL, NULL);
    if (!win) {
        const char *desc = NULL;
        glfwGetError(&desc);
        fprintf(stderr, "oroya view: cannot create a GLES 3.0 window: %s\n",
                desc ? desc : "unknown");
        glfwTerminate();
        world_free(&w);
        return 1;
    }
    glfwMakeContextCurrent(win);
    glfwSwapInterval(frames ? 0 : 1);
    glfwSetWindowUserPointer(win, &s);
    glfwSetKeyCallback(win, on_key);
    glfwSetMouseButtonCallback(win, on_button);
    glfwSetCursorPosCallback(win, on_cursor);
    glfwSetScrollCallback(win, on_scroll);

    int rc = 0;
    oroya_error err = {0};
    oroya_renderer *r = NULL;
    world_gpu gpu;
    memset(&gpu, 0, sizeof gpu);
    int fbw = 0, fbh = 0;
    glfwGetFramebufferSize(win, &fbw, &fbh);
    if (oroya_renderer_create(&(oroya_renderer_desc){.width = (uint32_t)fbw,
                                                     .height = (uint32_t)fbh,
                                                     .msaa_samples = 4,
                                                     .use_current_context = true},
                              &r, &err) != OROYA_OK ||
        world_upload(&w, r, &gpu, &err) != OROYA_OK) {
        fprintf(stderr, "oroya view: %s\n", cli_esc(err.message));
        rc = 1;
    }
    double last = glfwGetTime();
    uint8_t *shot = NULL;
    while (!rc && !glfwWindowShouldClose(win) && !s.quit && (!frames || s.frame < frames)) {
        glfwPollEvents();
        for (uint32_t i = 0; i < press_count; i++) {
            if (presses[i].frame == s.frame)
                handle_key(&s, presses[i].key);
        }
        double now = glfwGetTime();
        double dt = frames ? 1.0 / 30.0 : now - last;
        last = now;
        double step = s.playing ? dt * s.speed : 0.0;
        s.time += step;
        glfwGetFramebufferSize(win, &fbw, &fbh);
        if (fbw > 0 && fbh > 0 &&
            oroya_renderer_resize(r, (uint32_t)fbw, (uint32_t)fbh, &err) != OROYA_OK) {
            fprintf(stderr, "oroya view: %s\n", cli_esc(err.message));
            rc = 1;
            break;
        }
        world_advance(&w, step);
        oroya_vec3 dir = {sinf(s.yaw) * cosf(s.pitch), sinf(s.pitch), cosf(s.yaw) * cosf(s.pitch)};
        oroya_vec3 eye = oroya_vec3_add(s.target, oroya_vec3_scale(dir, s.distance));
        oroya_mat4 view = oroya_render_look_at(eye, s.target, (oroya_vec3){0, 1, 0});
        float aspect = fbh > 0 ? (float)fbw / (float)fbh : 1.0f;
        oroya_mat4 proj =
            oroya_render_perspective(40.0f, aspect, s.distance * 0.01f, s.distance * 10.0f + 10.0f);
        if (world_render(&w, r, &gpu, &view, &proj, s.skeleton, &err) != OROYA_OK ||
            oroya_render_present(r, (uint32_t)fbw, (uint32_t)fbh, &err) != OROYA_OK) {
            fprintf(stderr, "oroya view: %s\n", cli_esc(err.message));
            rc = 1;
            break;
        }
        s.frame++;
        /* The last frame: the N-th of --frames, or the one drawn after a quit key or the
         * window's close button (the loop ends before drawing another). */
        const bool last_frame =
            (frames && s.frame == frames) || s.quit || glfwWindowShouldClose(win);
        if (screenshot && last_frame && fbw > 0 && fbh > 0) {
            /* The window's own back buffer, after the blit: what the user sees. */
            shot = malloc((size_t)fbw * (size_t)fbh * 4);
            if (!shot) {
                fprintf(stderr, "oroya view: out of memory for the %dx%d screenshot\n", fbw, fbh);
                rc = 1;
            } else {
                glBindFramebuffer(GL_READ_FRAMEBUFFER, 0);
                glPixelStorei(GL_PACK_ALIGNMENT, 1);
                glReadPixels(0, 0, fbw, fbh, GL_RGBA, GL_UNSIGNED_BYTE, shot);
                size_t row = (size_t)fbw * 4;
                for (int y = 0; y < fbh / 2; y++) {
                    uint8_t *p = shot + (size_t)y * row, *q = shot + (size_t)(fbh - 1 - y) * row;
                    for (size_t k = 0; k < row; k++) {
                        uint8_t t = p[k];
                        p[k] = q[k];
                        q[k] = t;
                    }
                }
                if (oroya_image_write_png(screenshot, (uint32_t)fbw, (uint32_t)fbh, shot, &err) !=
                    OROYA_OK) {
                    fprintf(stderr, "oroya view: %s\n", cli_esc(err.message));
                    rc = 1;
                }
            }
        }
        glfwSwapBuffers(win);
        if (!frames) {
            char t[320];
            snprintf(t, sizeof t, "%s | %s | %s | x%g | t=%.2f", title,
                     s.solo < 0 ? "all clips" : w.clips[s.solo]->name,
                     s.playing ? "playing" : "paused", s.speed, s.time);
            glfwSetWindowTitle(win, t);
        }
    }
    if (!rc && frames)
        print_state(&s);
    free(shot);
    if (r) {
        world_release(r, &gpu);
        oroya_renderer_destroy(r);
    }
    glfwDestroyWindow(win);
    glfwTerminate();
    world_free(&w);
    return rc;
}

#else

int oroya_cmd_view(int argc, char **argv) {
    (void)argc;
    (void)argv;
    fprintf(stderr, "oroya view: this oroya was built without GLFW (Debian: libglfw3-dev) or "
                    "without the renderer; 'oroya render' writes PNG, GIF and MP4 instead\n");
    return 1;
}

#endif
