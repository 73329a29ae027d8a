/* Image output: PNG through libpng, animated GIF through giflib with a median-cut palette,
 * MP4 through an ffmpeg pipe. See include/oroya/render.h for the contracts. */
#define _POSIX_C_SOURCE 200809L /* popen, pclose, access, fdopen, sigtimedwait */

#include <fcntl.h>
#include <gif_lib.h>
#include <png.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "oroya/render.h"

static bool image_desc_ok(const char *what, const char *path, const oroya_image_desc *desc,
                          oroya_error *err, oroya_result *res) {
    if (!path || !desc || !desc->pixels) {
        *res = oroya_error_set(err, OROYA_ERR_INVALID_ARGUMENT, "%s: path, desc or pixels is NULL",
                               what);
        return false;
    }
    if (desc->width == 0 || desc->height == 0 || desc->width > 65535 || desc->height > 65535) {
        *res = oroya_error_set(err, OROYA_ERR_INVALID_ARGUMENT, "%s: size %ux%u outside 1..65535",
                               what, desc->width, desc->height);
        return false;
    }
    if ((desc->allocator.alloc == NULL) != (desc->allocator.free == NULL)) {
        *res = oroya_error_set(err, OROYA_ERR_INVALID_ARGUMENT,
                               "%s: allocator needs both alloc and free", what);
        return false;
    }
    return true;
}

/* " (a FIFO)", " (a device)"...: the kind of a file that is not a regular one. */
static const char *file_type_note(mode_t mode) {
    return S_ISFIFO(mode)                   ? " (a FIFO)"
           : S_ISCHR(mode) || S_ISBLK(mode) ? " (a device)"
           : S_ISSOCK(mode)                 ? " (a socket)"
           : S_ISDIR(mode)                  ? " (a directory)"
                                            : "";
}

/* Opens `path` for writing an image, truncated, as a regular file only. It never blocks: a FIFO
 * without a reader would hold open() forever, so the open is non-blocking and the type is
 * checked on the descriptor; a FIFO, a device or a directory is refused and left as it is.
 * Returns the descriptor (blocking again), or -1 with `why` set (errno's text or the type). */
static int open_image_file(const char *path, char *why, size_t why_size) {
    errno = 0;
    int fd = open(path, O_WRONLY | O_CREAT | O_NONBLOCK | O_CLOEXEC, 0666);
    if (fd < 0) {
        /* O_NONBLOCK on a FIFO that no one reads (or a socket): ENXIO, "No such device or
         * address"; a directory: EISDIR. Both are named by their type. */
        const int e = errno ? errno : EIO;
        struct stat st;
        if ((e == ENXIO || e == EISDIR) && stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
            snprintf(why, why_size, "not a regular file%s", file_type_note(st.st_mode));
        } else {
            snprintf(why, why_size, "%s", strerror(e));
        }
        return -1;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        snprintf(why, why_size, "not a regular file%s", file_type_note(st.st_mode));
        close(fd);
        return -1;
    }
    const int flags = fcntl(fd, F_GETFL);
    if (ftruncate(fd, 0) != 0 || flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0) {
        snprintf(why, why_size, "%s", strerror(errno ? errno : EIO));
        close(fd);
        remove(path);
        return -1;
    }
    return fd;
}

/* ---- PNG through libpng ------------------------------------------------------------------ */

/* libpng takes an allocator (png_create_write_struct_2), so all of its memory comes from the
 * desc's. A refused allocation makes libpng call the error function, which jumps back to
 * oroya_image_save_png; `out_of_memory` tells that case from a write error. */
typedef struct png_state {
    const oroya_allocator *allocator;
    bool out_of_memory;
    char message[96];
} png_state;

static png_voidp png_alloc_cb(png_structp png, png_alloc_size_t size) {
    png_state *s = (png_state *)png_get_mem_ptr(png);
    void *p = oroya_allocator_alloc(s->allocator, size, 16);
    if (!p) {
        s->out_of_memory = true;
    }
    return p;
}

static void png_free_cb(png_structp png, png_voidp ptr) {
    png_state *s = (png_state *)png_get_mem_ptr(png);
    oroya_allocator_free(s->allocator, ptr);
}

static void png_error_cb(png_structp png, png_const_charp message) {
    png_state *s = (png_state *)png_get_error_ptr(png);
    snprintf(s->message, sizeof s->message, "%s", message ? message : "libpng error");
    png_longjmp(png, 1);
}

static void png_warning_cb(png_structp png, png_const_charp message) {
    (void)png, (void)message; /* warnings (none expected when writing RGBA8) are not errors */
}

oroya_result oroya_image_save_png(const char *path, const oroya_image_desc *desc,
                                  oroya_error *err) {
    oroya_result res = OROYA_OK;
    if (!image_desc_ok("oroya_image_save_png", path, desc, err, &res)) {
        return res;
    }
    png_state state = {.allocator = &desc->allocator};
    char why[64];
    const int fd = open_image_file(path, why, sizeof why);
    FILE *volatile file = fd >= 0 ? fdopen(fd, "wb") : NULL;
    if (!file) {
        if (fd >= 0) {
            snprintf(why, sizeof why, "%s", strerror(errno ? errno : EIO));
            close(fd);
            remove(path);
        }
        return oroya_error_set(err, OROYA_ERR_IO, "oroya_image_save_png: cannot write '%s': %s",
                               path, why);
    }
    png_structp png = png_create_write_struct_2(PNG_LIBPNG_VER_STRING, &state, png_error_cb,
                                                png_warning_cb, &state, png_alloc_cb, png_free_cb);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    if (!png || !info) {
        png_destroy_write_struct(png ? &png : NULL, NULL);
        fclose(file);
        remove(path);
        return oroya_error_set(err, OROYA_ERR_OUT_OF_MEMORY,
                               "oroya_image_save_png: out of memory writing '%s'", path);
    }
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        fclose(file);
        remove(path);
        if (state.out_of_memory) {
            return oroya_error_set(err, OROYA_ERR_OUT_OF_MEMORY,
                                   "oroya_image_save_png: out of memory writing '%s'", path);
        }
        return oroya_error_set(err, OROYA_ERR_IO, "oroya_image_save_png: writing '%s' failed (%s)",
                               path, state.message);
    }
    png_init_io(png, file);
    png_set_IHDR(png, info, desc->width, desc->height, 8, PNG_COLOR_TYPE_RGB_ALPHA,
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    const size_t stride = (size_t)desc->width * 4;
    for (uint32_t y = 0; y < desc->height; y++) {
        png_write_row(png, desc->pixels + y * stride);
    }
    png_write_end(png, info);
    png_destroy_write_struct(&png, &info);
    errno = 0;
    if (fclose(file) != 0) {
        const int e = errno ? errno : EIO;
        remove(path);
        return oroya_error_set(err, OROYA_ERR_IO, "oroya_image_save_png: cannot write '%s': %s",
                               path, strerror(e));
    }
    return OROYA_OK;
}

oroya_result oroya_image_write_png(const char *path, uint32_t width, uint32_t height,
                                   const uint8_t *rgba, oroya_error *err) {
    oroya_image_desc desc = {.width = width, .height = height, .pixels = rgba};
    return oroya_image_save_png(path, &desc, err);
}

/* ---- GIF: median-cut palette ----------------------------------------------------------- */

/* The histogram has 5 bits per channel (32768 cells): fine enough that gradients on lit
 * spheres keep their steps below what dithering hides, small enough to stay in cache. Each
 * cell keeps the sum of the exact colors that fell in it, so a palette entry is the mean of
 * real pixel colors, not a cell center. */
#define HIST_BITS 5
#define HIST_SIZE (1u << (3 * HIST_BITS))
/* Nearest-color lookups are cached on 6 bits per channel. */
#define CACHE_BITS 6
#define CACHE_SIZE (1u << (3 * CACHE_BITS))

typedef struct hist_cell {
    uint64_t count, sum[3];
} hist_cell;

typedef struct box {
    uint32_t start, end; /* range in the cell list */
    uint64_t count;
    uint32_t axis;   /* widest channel */
    uint32_t lo, hi; /* its range in histogram units */
} box;

static uint32_t cell_channel(uint32_t cell, uint32_t axis) {
    return (cell >> (HIST_BITS * (2 - axis))) & ((1u << HIST_BITS) - 1);
}

static void box_measure(box *b, const uint32_t *cells, const hist_cell *hist) {
    uint32_t lo[3] = {255, 255, 255}, hi[3] = {0, 0, 0};
    b->count = 0;
    for (uint32_t i = b->start; i < b->end; i++) {
        b->count += hist[cells[i]].count;
        for (uint32_t a = 0; a < 3; a++) {
            uint32_t c = cell_channel(cells[i], a);
            if (c < lo[a])
                lo[a] = c;
            if (c > hi[a])
                hi[a] = c;
        }
    }
    b->axis = 0;
    for (uint32_t a = 1; a < 3; a++) {
        if (hi[a] - lo[a] > hi[b->axis] - lo[b->axis])
            b->axis = a;
    }
    b->lo = lo[b->axis];
    b->hi = hi[b->axis];
}

/* Splits at the population-weighted median of the widest channel, so busy color regions
 * (the background, large lit surfaces) get more palette entries than rare ones. */
static bool box_split(box *b, box *out, uint32_t *cells, const hist_cell *hist) {
    if (b->hi == b->lo)
        return false;
    uint64_t per_value[1u << HIST_BITS] = {0};
    for (uint32_t i = b->start; i < b->end; i++) {
        per_value[cell_channel(cells[i], b->axis)] += hist[cells[i]].count;
    }
    uint64_t acc = 0;
    uint32_t split = b->lo;
    for (uint32_t v = b->lo; v < b->hi; v++) {
        acc += per_value[v];
        split = v;
        if (acc * 2 >= b->count)
            break;
    }
    uint32_t i = b->start, j = b->end;
    while (i < j) {
        if (cell_channel(cells[i], b->axis) <= split) {
            i++;
        } else {
            j--;
            uint32_t t = cells[i];
            cells[i] = cells[j];
            cells[j] = t;
        }
    }
    *out = (box){.start = i, .end = b->end};
    b->end = i;
    box_measure(b, cells, hist);
    box_measure(out, cells, hist);
    return true;
}

static int build_palette(const hist_cell *hist, uint32_t *cells, GifColorType *palette) {
    uint32_t n = 0;
    for (uint32_t c = 0; c < HIST_SIZE; c++) {
        if (hist[c].count)
            cells[n++] = c;
    }
    box boxes[256];
    int box_count = 1;
    boxes[0] = (box){.start = 0, .end = n};
    box_measure(&boxes[0], cells, hist);
    while (box_count < 256) {
        int best = -1;
        double best_score = 0.0;
        for (int i = 0; i < box_count; i++) {
            double range = (double)(boxes[i].hi - boxes[i].lo);
            double score = range * range * (double)boxes[i].count;
            if (range > 0 && score > best_score) {
                best_score = score;
                best = i;
            }
        }
        if (best < 0 || !box_split(&boxes[best], &boxes[box_count], cells, hist))
            break;
        box_count++;
    }
    for (int i = 0; i < box_count; i++) {
        uint64_t count = 0, sum[3] = {0, 0, 0};
        for (uint32_t k = boxes[i].start; k < boxes[i].end; k++) {
            const hist_cell *h = &hist[cells[k]];
            count += h->count;
            for (int a = 0; a < 3; a++)
                sum[a] += h->sum[a];
        }
        if (!count)
            count = 1;
        palette[i].Red = (GifByteType)((sum[0] + count / 2) / count);
        palette[i].Green = (GifByteType)((sum[1] + count / 2) / count);
        palette[i].Blue = (GifByteType)((sum[2] + count / 2) / count);
    }
    for (int i = box_count; i < 256; i++)
        palette[i] = (GifColorType){0, 0, 0};
    return box_count;
}

static uint8_t nearest(const GifColorType *palette, int count, int r, int g, int b) {
    int best = 0;
    long best_d = -1;
    for (int i = 0; i < count; i++) {
        long dr = r - palette[i].Red, dg = g - palette[i].Green, db = b - palette[i].Blue;
        /* Weighted toward green as the eye is most sensitive to it (approximate luma weights). */
        long d = 3 * dr * dr + 4 * dg * dg + 2 * db * db;
        if (best_d < 0 || d < best_d) {
            best_d = d;
            best = i;
        }
    }
    return (uint8_t)best;
}

static int clamp255(int v) { return v < 0 ? 0 : v > 255 ? 255 : v; }

oroya_result oroya_image_save_gif(const char *path, const oroya_image_desc *desc,
                                  oroya_error *err) {
    oroya_result res = OROYA_OK;
    if (!image_desc_ok("oroya_image_save_gif", path, desc, err, &res)) {
        return res;
    }
    const uint32_t width = desc->width, height = desc->height;
    const uint32_t frame_count = desc->frame_count ? desc->frame_count : 1;
    const uint8_t *frames = desc->pixels;
    const bool dither = desc->dither;
    const oroya_allocator *al = &desc->allocator;
    uint32_t delay_cs = desc->delay_cs;
    if (delay_cs == 0) {
        delay_cs = 4;
    }
    if (delay_cs > 65535) {
        delay_cs = 65535;
    }
    size_t pixels = (size_t)width * height;
    /* One block for the histogram, the cell list, the lookup cache and one index frame. */
    const size_t hist_bytes = HIST_SIZE * sizeof(hist_cell);
    const size_t cells_bytes = HIST_SIZE * sizeof(uint32_t);
    const size_t cache_bytes = CACHE_SIZE * sizeof(int16_t);
    unsigned char *block = (unsigned char *)oroya_allocator_calloc(
        al, 1, hist_bytes + cells_bytes + cache_bytes + pixels, 16);
    if (!block) {
        return oroya_error_set(err, OROYA_ERR_OUT_OF_MEMORY,
                               "oroya_image_save_gif: out of memory (%ux%u)", width, height);
    }
    hist_cell *hist = (hist_cell *)(void *)block;
    uint32_t *cells = (uint32_t *)(void *)(block + hist_bytes);
    int16_t *cache = (int16_t *)(void *)(block + hist_bytes + cells_bytes);
    uint8_t *indices = block + hist_bytes + cells_bytes + cache_bytes;
    for (uint32_t f = 0; f < frame_count; f++) {
        const uint8_t *p = frames + (size_t)f * pixels * 4;
        for (size_t i = 0; i < pixels; i++, p += 4) {
            uint32_t c = ((uint32_t)(p[0] >> 3) << 10) | ((uint32_t)(p[1] >> 3) << 5) |
                         (uint32_t)(p[2] >> 3);
            hist[c].count++;
            hist[c].sum[0] += p[0];
            hist[c].sum[1] += p[1];
            hist[c].sum[2] += p[2];
        }
    }
    GifColorType palette[256];
    int color_count = build_palette(hist, cells, palette);
    for (uint32_t i = 0; i < CACHE_SIZE; i++)
        cache[i] = -1;

    int gif_err = 0;
    /* giflib's EGifOpenFileName creates files readable by the owner only; open the file
     * here so the usual umask applies (and a FIFO is refused, not waited on). EGifCloseFile
     * closes the descriptor. */
    char why[64];
    int fd = open_image_file(path, why, sizeof why);
    if (fd < 0) {
        oroya_allocator_free(al, block);
        return oroya_error_set(err, OROYA_ERR_IO, "oroya_image_save_gif: cannot write '%s': %s",
                               path, why);
    }
    GifFileType *gif = EGifOpenFileHandle(fd, &gif_err);
    if (!gif)
        close(fd);
    ColorMapObject *map = gif ? GifMakeMapObject(256, palette) : NULL;
    if (!gif || !map) {
        if (gif)
            EGifCloseFile(gif, &gif_err);
        remove(path);
        oroya_allocator_free(al, block);
        return oroya_error_set(err, OROYA_ERR_IO, "oroya_image_save_gif: cannot open '%s' (%s)",
                               path,
                               GifErrorString(gif_err) ? GifErrorString(gif_err) : "giflib error");
    }
    EGifSetGifVersion(gif, true);
    bool ok = EGifPutScreenDesc(gif, (int)width, (int)height, 8, 0, map) == GIF_OK;
    /* The NETSCAPE2.0 application extension with loop count 0 makes viewers loop forever. */
    static const unsigned char loop[3] = {1, 0, 0};
    ok = ok && EGifPutExtensionLeader(gif, APPLICATION_EXT_FUNC_CODE) == GIF_OK;
    ok = ok && EGifPutExtensionBlock(gif, 11, "NETSCAPE2.0") == GIF_OK;
    ok = ok && EGifPutExtensionBlock(gif, 3, loop) == GIF_OK;
    ok = ok && EGifPutExtensionTrailer(gif) == GIF_OK;
    /* 4x4 Bayer matrix: ordered dithering keeps the pattern fixed from frame to frame, so a
     * still background does not shimmer as error diffusion would make it. */
    static const int bayer[4][4] = {{0, 8, 2, 10}, {12, 4, 14, 6}, {3, 11, 1, 9}, {15, 7, 13, 5}};
    for (uint32_t f = 0; ok && f < frame_count; f++) {
        GraphicsControlBlock gcb = {.DisposalMode = DISPOSE_DO_NOT,
                                    .UserInputFlag = false,
                                    .DelayTime = (int)delay_cs,
                                    .TransparentColor = NO_TRANSPARENT_COLOR};
        GifByteType ext[4];
        EGifGCBToExtension(&gcb, ext);
        ok = EGifPutExtension(gif, GRAPHICS_EXT_FUNC_CODE, 4, ext) == GIF_OK;
        ok = ok && EGifPutImageDesc(gif, 0, 0, (int)width, (int)height, false, NULL) == GIF_OK;
        const uint8_t *p = frames + (size_t)f * pixels * 4;
        for (uint32_t y = 0; y < height; y++) {
            for (uint32_t x = 0; x < width; x++, p += 4) {
                int off = dither ? (bayer[y & 3][x & 3] - 8) / 2 : 0; /* +-4: about half a cell */
                int r = clamp255(p[0] + off), g = clamp255(p[1] + off), b = clamp255(p[2] + off);
                uint32_t key =
                    ((uint32_t)(r >> 2) << 12) | ((uint32_t)(g >> 2) << 6) | (uint32_t)(b >> 2);
                if (cache[key] < 0) {
                    cache[key] =
                        nearest(palette, color_count, (r & ~3) | 2, (g & ~3) | 2, (b & ~3) | 2);
                }
                indices[(size_t)y * width + x] = (uint8_t)cache[key];
            }
        }
        for (uint32_t y = 0; ok && y < height; y++) {
            ok = EGifPutLine(gif, indices + (size_t)y * width, (int)width) == GIF_OK;
        }
    }
    int put_err = gif->Error;
    int close_ok = EGifCloseFile(gif, &gif_err);
    GifFreeMapObject(map);
    oroya_allocator_free(al, block);
    if (!ok || close_ok != GIF_OK) {
        int e = !ok ? put_err : gif_err;
        remove(path);
        return oroya_error_set(err, OROYA_ERR_IO, "oroya_image_save_gif: writing '%s' failed (%s)",
                               path, GifErrorString(e) ? GifErrorString(e) : "giflib error");
    }
    return OROYA_OK;
}

oroya_result oroya_image_write_gif(const char *path, uint32_t width, uint32_t height,
                                   uint32_t frame_count, const uint8_t *frames, uint32_t delay_cs,
                                   bool dither, oroya_error *err) {
    if (frame_count == 0) {
        return oroya_error_set(err, OROYA_ERR_INVALID_ARGUMENT,
                               "oroya_image_write_gif: frame_count is 0");
    }
    oroya_image_desc desc = {.width = width,
                             .height = height,
                             .pixels = frames,
                             .frame_count = frame_count,
                             .delay_cs = delay_cs,
                             .dither = dither};
    return oroya_image_save_gif(path, &desc, err);
}

/* ---- MP4 through ffmpeg ---------------------------------------------------------------- */

struct oroya_video_writer {
    FILE *pipe;
    size_t frame_size;
    uint32_t frames;
};

static bool find_on_path(const char *name, char *out, size_t out_size) {
    const char *path = getenv("PATH");
    if (!path)
        return false;
    while (*path) {
        const char *end = strchr(path, ':');
        size_t len = end ? (size_t)(end - path) : strlen(path);
        if (len && len + strlen(name) + 2 <= out_size) {
            memcpy(out, path, len);
            out[len] = '/';
            strcpy(out + len + 1, name);
            if (access(out, X_OK) == 0)
                return true;
        }
        path += len + (end ? 1 : 0);
    }
    return false;
}

bool oroya_video_available(void) {
    char buf[4096];
    return find_on_path("ffmpeg", buf, sizeof buf);
}

oroya_result oroya_video_begin(const char *path, uint32_t width, uint32_t height, float fps,
                               oroya_video_writer **out, oroya_error *err) {
    if (out)
        *out = NULL;
    if (!path || !out)
        return oroya_error_set(err, OROYA_ERR_INVALID_ARGUMENT,
                               "oroya_video_begin: path or out is NULL");
    if (!width || !height || width % 2 || height % 2 || width > 16384 || height > 16384) {
        return oroya_error_set(
            err, OROYA_ERR_INVALID_ARGUMENT,
            "oroya_video_begin: size %ux%u must be even and at most 16384 (yuv420p)", width,
            height);
    }
    if (!(fps > 0.0f && fps <= 1000.0f)) {
        return oroya_error_set(err, OROYA_ERR_INVALID_ARGUMENT,
                               "oroya_video_begin: fps %g outside (0, 1000]", (double)fps);
    }
    char exe[4096];
    if (!find_on_path("ffmpeg", exe, sizeof exe)) {
        return oroya_error_set(err, OROYA_ERR_UNSUPPORTED,
                               "MP4 output needs ffmpeg, which is not on PATH; install ffmpeg "
                               "(Debian: apt-get install ffmpeg) or write .gif or .png instead");
    }
    /* The output path goes to the shell single-quoted, with each ' written as '\'', and to
     * ffmpeg behind its file: protocol, so that ffmpeg takes no name for an option ("-x.mp4")
     * or another protocol ("a:b.mp4", "pipe:1.mp4"). */
    char quoted[4096 + 64];
    size_t q = 0;
    quoted[q++] = '\'';
    memcpy(quoted + q, "file:", 5);
    q += 5;
    for (const char *c = path; *c; c++) {
        if (q + 6 >= sizeof quoted) {
            return oroya_error_set(err, OROYA_ERR_INVALID_ARGUMENT,
                                   "oroya_video_begin: path too long");
        }
        if (*c == '\'') {
            memcpy(quoted + q, "'\\''", 4);
            q += 4;
        } else {
            quoted[q++] = *c;
        }
    }
    quoted[q++] = '\'';
    quoted[q] = 0;
    char cmd[8192 + 512];
    snprintf(cmd, sizeof cmd,
             "ffmpeg -y -loglevel error -f rawvideo -pixel_format rgba -video_size %ux%u "
             "-framerate %g -i - -c:v libx264 -pix_fmt yuv420p -movflags +faststart %s",
             width, height, (double)fps, quoted);
    oroya_video_writer *w = calloc(1, sizeof *w);
    if (!w)
        return oroya_error_set(err, OROYA_ERR_OUT_OF_MEMORY, "oroya_video_begin: out of memory");
    w->frame_size = (size_t)width * height * 4;
    w->pipe = popen(cmd, "w");
    if (!w->pipe) {
        free(w);
        return oroya_error_set(err, OROYA_ERR_IO, "oroya_video_begin: cannot start ffmpeg");
    }
    *out = w;
    return OROYA_OK;
}

/* An ffmpeg that exits early (it cannot create the output file) closes the pipe: a write to it
 * then raises SIGPIPE, which would end the calling process without a word. The writes (and the
 * flush in pclose) run with SIGPIPE blocked in this thread; one they raised is taken back
 * before the mask is restored, so the failure comes back as EPIPE and an error. A SIGPIPE that
 * was already pending is left pending. */
typedef struct sigpipe_guard {
    sigset_t old;
    bool blocked, was_pending;
} sigpipe_guard;

static void sigpipe_guard_begin(sigpipe_guard *g) {
    sigset_t set, pending;
    sigemptyset(&set);
    sigaddset(&set, SIGPIPE);
    sigemptyset(&pending);
    g->blocked = pthread_sigmask(SIG_BLOCK, &set, &g->old) == 0;
    g->was_pending = g->blocked && sigpending(&pending) == 0 && sigismember(&pending, SIGPIPE) == 1;
}

static void sigpipe_guard_end(sigpipe_guard *g) {
    if (!g->blocked) {
        return;
    }
    sigset_t set, pending;
    sigemptyset(&set);
    sigaddset(&set, SIGPIPE);
    sigemptyset(&pending);
    if (!g->was_pending && sigpending(&pending) == 0 && sigismember(&pending, SIGPIPE) == 1) {
        const struct timespec zero = {0, 0};
        const int saved = errno;
        while (sigtimedwait(&set, NULL, &zero) < 0 && errno == EINTR) {}
        errno = saved;
    }
    pthread_sigmask(SIG_SETMASK, &g->old, NULL);
}

oroya_result oroya_video_add_frame(oroya_video_writer *w, const uint8_t *rgba, oroya_error *err) {
    if (!w || !rgba)
        return oroya_error_set(err, OROYA_ERR_INVALID_ARGUMENT,
                               "oroya_video_add_frame: writer or rgba is NULL");
    sigpipe_guard guard;
    sigpipe_guard_begin(&guard);
    const bool failed =
        fwrite(rgba, 1, w->frame_size, w->pipe) != w->frame_size || fflush(w->pipe) != 0;
    sigpipe_guard_end(&guard);
    if (failed) {
        return oroya_error_set(err, OROYA_ERR_IO,
                               "oroya_video_add_frame: ffmpeg stopped reading at frame %u",
                               w->frames);
    }
    w->frames++;
    return OROYA_OK;
}

oroya_result oroya_video_finish(oroya_video_writer *w, oroya_error *err) {
    if (!w)
        return oroya_error_set(err, OROYA_ERR_INVALID_ARGUMENT,
                               "oroya_video_finish: writer is NULL");
    sigpipe_guard guard;
    sigpipe_guard_begin(&guard);
    int status = pclose(w->pipe);
    sigpipe_guard_end(&guard);
    free(w);
    if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        return oroya_error_set(err, OROYA_ERR_IO, "oroya_video_finish: ffmpeg failed (status %d)",
                               status == -1        ? -1
                               : WIFEXITED(status) ? WEXITSTATUS(status)
                                                   : -1);
    }
    return OROYA_OK;
}
