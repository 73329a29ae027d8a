/* The image and video writers with outputs that are not plain files, without a GL context:
 *   - a FIFO as the PNG or GIF path: refused at once (OROYA_ERR_IO, "not a regular file"),
 *     never waited on (open() blocked forever for a FIFO no one reads), and left in place;
 *   - a GIF path in a missing folder: the system's reason in the message (it said "giflib
 *     error");
 *   - an `ffmpeg` that exits before reading (as the real one does when it cannot create the
 *     output file): oroya_video_add_frame returns OROYA_ERR_IO instead of the process dying
 *     of SIGPIPE. A stand-in ffmpeg script on PATH plays that part.
 * An alarm turns a hang into a failure of this program rather than of the test run. */
#define _POSIX_C_SOURCE 200809L /* mkfifo, mkdtemp, setenv */

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "oroya/render.h"
#include "oroya_test.h"

static char dir[] = "/tmp/oroya_render_output_XXXXXX";
static uint8_t pixels[64 * 48 * 4];

static void path_in(char *out, size_t size, const char *name) {
    snprintf(out, size, "%s/%s", dir, name);
}

static void test_fifo_refused(void) {
    char png[256], gif[256];
    path_in(png, sizeof png, "f.png");
    path_in(gif, sizeof gif, "f.gif");
    OT_EQ_INT(mkfifo(png, 0600), 0);
    OT_EQ_INT(mkfifo(gif, 0600), 0);
    oroya_error err = {0};
    alarm(30);
    OT_EQ_INT(oroya_image_write_png(png, 64, 48, pixels, &err), OROYA_ERR_IO);
    OT_CHECK_MSG(strstr(err.message, "not a regular file (a FIFO)") != NULL, "%s", err.message);
    OT_CHECK(strstr(err.message, "f.png") != NULL);
    OT_EQ_INT(oroya_image_write_gif(gif, 64, 48, 1, pixels, 4, true, &err), OROYA_ERR_IO);
    OT_CHECK_MSG(strstr(err.message, "not a regular file (a FIFO)") != NULL, "%s", err.message);
    alarm(0);
    struct stat st;
    OT_CHECK(stat(png, &st) == 0 && S_ISFIFO(st.st_mode)); /* left as it was */
    OT_CHECK(stat(gif, &st) == 0 && S_ISFIFO(st.st_mode));
    /* A directory too, by its type (it was the system's "Is a directory"; a FIFO with no
     * reader, which fails open() itself, was "not a regular file" without its type). */
    OT_EQ_INT(oroya_image_write_gif(dir, 64, 48, 1, pixels, 4, true, &err), OROYA_ERR_IO);
    OT_CHECK_MSG(strstr(err.message, "not a regular file (a directory)") != NULL, "%s",
                 err.message);
    OT_EQ_INT(oroya_image_write_png(dir, 64, 48, pixels, &err), OROYA_ERR_IO);
    OT_CHECK_MSG(strstr(err.message, "not a regular file (a directory)") != NULL, "%s",
                 err.message);
    unlink(png);
    unlink(gif);
}

static void test_gif_reason(void) {
    char gif[256];
    path_in(gif, sizeof gif, "missing/x.gif");
    oroya_error err = {0};
    OT_EQ_INT(oroya_image_write_gif(gif, 64, 48, 1, pixels, 4, true, &err), OROYA_ERR_IO);
    OT_CHECK_MSG(strstr(err.message, "No such file or directory") != NULL, "%s", err.message);
    /* A regular file is still written, and replaced whole the next time. */
    path_in(gif, sizeof gif, "ok.gif");
    OT_EQ_INT(oroya_image_write_gif(gif, 64, 48, 1, pixels, 4, true, &err), OROYA_OK);
    OT_EQ_INT(oroya_image_write_gif(gif, 32, 24, 1, pixels, 4, true, &err), OROYA_OK);
    struct stat st;
    OT_CHECK(stat(gif, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0);
    char png[256];
    path_in(png, sizeof png, "ok.png");
    OT_EQ_INT(oroya_image_write_png(png, 64, 48, pixels, &err), OROYA_OK);
    OT_EQ_INT(oroya_image_write_png(png, 16, 8, pixels, &err), OROYA_OK);
    OT_CHECK(stat(png, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 && st.st_size < 1000);
    unlink(gif);
    unlink(png);
}

static void test_ffmpeg_exits_early(void) {
    char bin[256], script[300], out[256];
    path_in(bin, sizeof bin, "bin");
    OT_EQ_INT(mkdir(bin, 0700), 0);
    snprintf(script, sizeof script, "%s/ffmpeg", bin);
    FILE *f = fopen(script, "w");
    OT_CHECK(f != NULL);
    if (!f)
        return;
    fputs("#!/bin/sh\necho 'stand-in ffmpeg: cannot create the output' >&2\nexit 1\n", f);
    fclose(f);
    chmod(script, 0700);
    const char *old_path = getenv("PATH");
    char *saved = old_path ? strdup(old_path) : NULL;
    setenv("PATH", bin, 1);
    path_in(out, sizeof out, "x.mp4");
    /* 512x512 RGBA is 1 MiB a frame, far more than a pipe holds: the writes meet the closed
     * pipe whatever the timing. */
    enum { VW = 512, VH = 512 };
    uint8_t *frame = calloc((size_t)VW * VH * 4, 1);
    oroya_video_writer *w = NULL;
    oroya_error err = {0};
    alarm(60);
    OT_EQ_INT(oroya_video_begin(out, VW, VH, 25, &w, &err), OROYA_OK);
    oroya_result r = OROYA_OK;
    for (int i = 0; w && frame && i < 8 && r == OROYA_OK; i++)
        r = oroya_video_add_frame(w, frame, &err);
    OT_EQ_INT(r, OROYA_ERR_IO); /* reached only if SIGPIPE did not end the process */
    OT_CHECK_MSG(strstr(err.message, "ffmpeg stopped reading") != NULL, "%s", err.message);
    if (w) {
        OT_EQ_INT(oroya_video_finish(w, &err), OROYA_ERR_IO);
        OT_CHECK_MSG(strstr(err.message, "ffmpeg failed (status 1)") != NULL, "%s", err.message);
    }
    alarm(0);
    /* SIGPIPE is not left blocked or pending. */
    sigset_t mask, pending;
    sigprocmask(SIG_BLOCK, NULL, &mask);
    OT_EQ_INT(sigismember(&mask, SIGPIPE), 0);
    sigpending(&pending);
    OT_EQ_INT(sigismember(&pending, SIGPIPE), 0);
    free(frame);
    if (saved) {
        setenv("PATH", saved, 1);
        free(saved);
    }
    unlink(script);
    rmdir(bin);
}

int main(void) {
    if (!mkdtemp(dir)) {
        fprintf(stderr, "mkdtemp: %s\n", strerror(errno));
        return 1;
    }
    for (size_t i = 0; i < sizeof pixels; i++)
        pixels[i] = (uint8_t)(i * 13);
    OT_RUN(test_fifo_refused);
    OT_RUN(test_gif_reason);
    OT_RUN(test_ffmpeg_exits_early);
    rmdir(dir);
    return ot_finish();
}
