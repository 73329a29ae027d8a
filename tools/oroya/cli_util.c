/* Shared by the subcommands: input files and name resolution (see cli_util.h). */
#define _POSIX_C_SOURCE 200809L /* stat, access */

#include "cli_util.h"

#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oroya/pose.h"

/* The escaped form of a byte: C0, DEL and bytes that are not UTF-8 as \xNN, C1 as \u00NN. */
static size_t esc_len(const unsigned char *s, size_t n, size_t *take) {
    if (s[0] < 0x20 || s[0] == 0x7f) {
        *take = 1;
        return 4;
    }
    if (s[0] < 0x80) {
        *take = 1;
        return 0;
    }
    size_t k = oroya_utf8_sequence_length((const char *)s, n);
    if (k == 0) {
        *take = 1;
        return 4;
    }
    *take = k;
    return k == 2 && s[0] == 0xc2 && s[1] <= 0x9f ? 6 : 0;
}

const char *cli_esc(const char *s) {
    static char *ring[8];
    static unsigned next;
    if (!s) {
        return "";
    }
    const unsigned char *u = (const unsigned char *)s;
    const size_t n = strlen(s);
    size_t out = 0, take = 0;
    bool any = false;
    for (size_t i = 0; i < n; i += take) {
        size_t e = esc_len(u + i, n - i, &take);
        any |= e != 0;
        out += e ? e : take;
    }
    if (!any) {
        return s;
    }
    char *buf = (char *)malloc(out + 1);
    if (!buf) {
        return "(out of memory)";
    }
    size_t at = 0;
    for (size_t i = 0; i < n; i += take) {
        size_t e = esc_len(u + i, n - i, &take);
        if (e == 6) {
            snprintf(buf + at, 7, "\\u%04x", (unsigned)u[i + 1]);
        } else if (e == 4) {
            snprintf(buf + at, 5, "\\x%02x", (unsigned)u[i]);
        } else {
            memcpy(buf + at, u + i, take);
        }
        at += e ? e : take;
    }
    buf[at] = '\0';
    free(ring[next]);
    ring[next] = buf;
    next = (next + 1) % 8;
    return buf;
}

int cli_json_write(FILE *f, const char *text, size_t len) {
    const unsigned char *u = (const unsigned char *)text;
    size_t from = 0;
    for (size_t i = 0; i < len; i++) {
        const bool del = u[i] == 0x7f,
                   c1 = u[i] == 0xc2 && i + 1 < len && u[i + 1] >= 0x80 && u[i + 1] <= 0x9f;
        if (!del && !c1) {
            continue;
        }
        if (fwrite(text + from, 1, i - from, f) != i - from)
            return 1;
        fprintf(f, "\\u%04x", del ? 0x7fu : (unsigned)u[i + 1]);
        i += c1;
        from = i + 1;
    }
    return fwrite(text + from, 1, len - from, f) != len - from;
}

int cli_check_readable(const char *cmd, const char *path) {
    /* stat and access open nothing, so a FIFO or a device cannot block here; the loaders
     * refuse what is not a regular file with their own message. */
    struct stat st;
    errno = 0;
    if (stat(path, &st) != 0 || access(path, R_OK) != 0) {
        fprintf(stderr, "oroya %s: %s: %s\n", cmd, cli_esc(path), strerror(errno ? errno : ENOENT));
        return 1;
    }
    return 0;
}

int cli_check_regular_file(const char *cmd, const char *path) {
    if (cli_check_readable(cmd, path))
        return 1;
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        fprintf(stderr, "oroya %s: %s: not a regular file\n", cmd, cli_esc(path));
        return 1;
    }
    return 0;
}

void cli_report(const char *cmd, const char *path, const oroya_error *err) {
    const char *msg = err->message[0] ? err->message : oroya_result_string(err->result);
    /* The result's name too ("access refused"), when the message is more than that. */
    const char *kind = err->message[0] ? oroya_result_string(err->result) : NULL;
    fprintf(stderr, "oroya %s: ", cmd);
    if (!strstr(msg, path))
        fprintf(stderr, "%s: ", cli_esc(path));
    fprintf(stderr, kind ? "%s (%s)\n" : "%s\n", cli_esc(msg), kind);
}

void cli_warn_ignored_channels(const char *cmd, const char *path, const oroya_gltf_model *m) {
    if (!m || !m->ignored_channel_count)
        return;
    fprintf(stderr,
            "oroya %s: %s: warning: animations[%u].channels[%u].target.%s; the channel is "
            "ignored and its keys do not count toward the clip's duration (%u channel%s "
            "ignored in all)\n",
            cmd, cli_esc(path), m->first_ignored_animation, m->first_ignored_channel,
            m->first_ignored_unknown_path
                ? "path: not a path oroya animates (translation, rotation, scale, weights)"
                : "node: absent",
            m->ignored_channel_count, m->ignored_channel_count == 1 ? "" : "s");
}

int cli_gltf_load(const char *cmd, const char *path, const oroya_gltf_import_desc *desc,
                  oroya_gltf_model **out) {
    *out = NULL;
    if (cli_check_readable(cmd, path))
        return 1;
    oroya_error err = {0};
    if (oroya_gltf_load(path, desc, out, &err) != OROYA_OK) {
        cli_report(cmd, path, &err);
        return 1;
    }
    cli_warn_ignored_channels(cmd, path, *out);
    return 0;
}

/* i when name is "animation_<i>" (decimal, no leading zeros), else -1. */
static int64_t numbered(const char *name, const char *prefix) {
    size_t n = strlen(prefix);
    if (strncmp(name, prefix, n) || !name[n] || (name[n] == '0' && name[n + 1]))
        return -1;
    int64_t v = 0;
    for (const char *c = name + n; *c; c++) {
        if (*c < '0' || *c > '9' || v > 100000000)
            return -1;
        v = v * 10 + (*c - '0');
    }
    return v;
}

int32_t cli_find_clip(const char *cmd, oroya_clip *const *clips, uint32_t count, const char *name) {
    for (uint32_t i = 0; i < count; i++) {
        if (!strcmp(clips[i]->name, name))
            return (int32_t)i;
    }
    int64_t k = numbered(name, "animation_");
    if (k >= 0 && k < (int64_t)count)
        return (int32_t)k;
    fprintf(stderr, "oroya %s: no clip named '%s'; clips:", cmd, cli_esc(name));
    if (!count)
        fprintf(stderr, " (none)");
    for (uint32_t i = 0; i < count; i++)
        fprintf(stderr, " %s", cli_esc(clips[i]->name));
    fputc('\n', stderr);
    return -1;
}

int cli_find_node(const char *cmd, const oroya_scene *scene, const oroya_gltf_model *model,
                  const char *name, oroya_node *out) {
    if (oroya_scene_find_node(scene, name, out) == OROYA_OK)
        return 0;
    if (model && oroya_gltf_model_find_node(model, name, out, NULL) == OROYA_OK)
        return 0;
    fprintf(stderr, "oroya %s: no node named '%s' (oroya info lists them)\n", cmd, cli_esc(name));
    return 1;
}

int cli_parse_tolerance(const char *cmd, const char *text, float *out) {
    char *end = NULL;
    const double v = strtod(text, &end);
    if (!text[0] || !end || *end || !(v > 0 && v <= OROYA_POSE_MAX_TOLERANCE)) {
        fprintf(stderr,
                "oroya %s: --compress %s: the tolerance must be a number in (0, %g] "
                "(scene units)\n",
                cmd, cli_esc(text), (double)OROYA_POSE_MAX_TOLERANCE);
        return 2;
    }
    *out = (float)v;
    return 0;
}
