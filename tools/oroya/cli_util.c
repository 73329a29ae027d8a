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

/* The code point of a valid UTF-8 sequence of k bytes. */
static uint32_t utf8_code_point(const unsigned char *s, size_t k) {
    if (k == 1)
        return s[0];
    uint32_t c = s[0] & (0x7fu >> k);
    for (size_t i = 1; i < k; i++)
        c = (c << 6) | (s[i] & 0x3fu);
    return c;
}

/* Characters that show nothing but change how a terminal shows what follows (or hide text):
 * the bidi embeddings, overrides and isolates (U+202A-U+202E, U+2066-U+2069) and marks
 * (U+200E, U+200F, U+061C), zero-width characters (U+200B-U+200D, U+2060-U+2064, U+FEFF),
 * line and paragraph separators (U+2028, U+2029), the other invisible format characters
 * (U+00AD, U+180E, U+206A-U+206F, U+FFF9-U+FFFB) and the tag characters (U+E0000-U+E007F). */
static bool invisible_format(uint32_t c) {
    return c == 0xad || c == 0x61c || c == 0x180e || (c >= 0x200b && c <= 0x200f) ||
           (c >= 0x2028 && c <= 0x202e) || (c >= 0x2060 && c <= 0x206f) || c == 0xfeff ||
           (c >= 0xfff9 && c <= 0xfffb) || (c >= 0xe0000 && c <= 0xe007f);
}

/* The escaped form of a character: backslash as \\, C0, DEL and bytes that are not UTF-8 as
 * \xNN, C1 and invisible format characters as \uNNNN (\UNNNNNNNN above U+FFFF). Returns the
 * escape's length (0: written as it is) and the bytes it covers in *take. */
static size_t esc_len(const unsigned char *s, size_t n, size_t *take, uint32_t *cp) {
    *take = 1;
    *cp = s[0];
    if (s[0] == '\\')
        return 2;
    if (s[0] < 0x20 || s[0] == 0x7f)
        return 4;
    if (s[0] < 0x80)
        return 0;
    size_t k = oroya_utf8_sequence_length((const char *)s, n);
    if (k == 0)
        return 4;
    *take = k;
    *cp = utf8_code_point(s, k);
    if ((*cp >= 0x80 && *cp <= 0x9f) || invisible_format(*cp))
        return *cp > 0xffff ? 10 : 6;
    return 0;
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
    uint32_t cp = 0;
    bool any = false;
    for (size_t i = 0; i < n; i += take) {
        size_t e = esc_len(u + i, n - i, &take, &cp);
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
        size_t e = esc_len(u + i, n - i, &take, &cp);
        if (e == 10) {
            snprintf(buf + at, 11, "\\U%08x", (unsigned)cp);
        } else if (e == 6) {
            snprintf(buf + at, 7, "\\u%04x", (unsigned)cp);
        } else if (e == 4) {
            snprintf(buf + at, 5, "\\x%02x", (unsigned)u[i]);
        } else if (e == 2) {
            memcpy(buf + at, "\\\\", 2);
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

/* JSON text as it is, but DEL, C1 and the invisible format characters above written as JSON
 * escapes (\u007f, \u202e, a surrogate pair above U+FFFF): the same JSON, and nothing in it
 * that a terminal acts on. Outside strings JSON text is ASCII, so only strings change. */
int cli_json_write(FILE *f, const char *text, size_t len) {
    const unsigned char *u = (const unsigned char *)text;
    size_t from = 0;
    for (size_t i = 0; i < len; i++) {
        uint32_t cp = u[i];
        size_t k = 1;
        if (u[i] >= 0x80) {
            k = oroya_utf8_sequence_length(text + i, len - i);
            if (k == 0)
                continue;
            cp = utf8_code_point(u + i, k);
        }
        if (cp != 0x7f && !(cp >= 0x80 && cp <= 0x9f) && !invisible_format(cp)) {
            i += k - 1;
            continue;
        }
        if (fwrite(text + from, 1, i - from, f) != i - from)
            return 1;
        if (cp > 0xffff)
            fprintf(f, "\\u%04x\\u%04x", 0xd800u + ((cp - 0x10000u) >> 10),
                    0xdc00u + ((cp - 0x10000u) & 0x3ffu));
        else
            fprintf(f, "\\u%04x", (unsigned)cp);
        i += k - 1;
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
    /* The library names its desc field; on the command line it is an option. */
    static const char *const with_option[] = {"info", "sample", "render", "export", "play"};
    bool has = false;
    for (size_t i = 0; i < sizeof with_option / sizeof with_option[0]; i++)
        has = has || !strcmp(cmd, with_option[i]);
    if (has && strstr(msg, "allow_outside_base_dir permits it"))
        fprintf(stderr, "oroya %s: --allow-outside permits it for a file you trust\n", cmd);
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

void cli_warn_ignored_extras(const char *cmd, const char *path, const oroya_gltf_model *m) {
    if (!m || !m->ignored_extras_count || !m->first_ignored_extras)
        return;
    fprintf(stderr, "oroya %s: %s: warning: %s; ignored (%u animation%s with extras ignored)\n",
            cmd, cli_esc(path), cli_esc(m->first_ignored_extras), m->ignored_extras_count,
            m->ignored_extras_count == 1 ? "" : "s");
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
    cli_warn_ignored_extras(cmd, path, *out);
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

int32_t cli_clip_index(oroya_clip *const *clips, uint32_t count, const char *name) {
    for (uint32_t i = 0; i < count; i++) {
        if (!strcmp(clips[i]->name, name))
            return (int32_t)i;
    }
    int64_t k = numbered(name, "animation_");
    return k >= 0 && k < (int64_t)count ? (int32_t)k : -1;
}

int32_t cli_find_clip(const char *cmd, const char *file, oroya_clip *const *clips, uint32_t count,
                      const char *name) {
    int32_t k = cli_clip_index(clips, count, name);
    if (k >= 0)
        return k;
    fprintf(stderr, "oroya %s: ", cmd);
    if (file)
        fprintf(stderr, "%s: ", cli_esc(file));
    fprintf(stderr, "no clip named '%s'; clips:", cli_esc(name));
    if (!count)
        fprintf(stderr, " (none)");
    for (uint32_t i = 0; i < count; i++)
        fprintf(stderr, " %s", cli_esc(clips[i]->name));
    fputc('\n', stderr);
    return -1;
}

int cli_find_node(const char *cmd, const char *file, const oroya_scene *scene,
                  const oroya_gltf_model *model, const char *name, oroya_node *out) {
    if (oroya_scene_find_node(scene, name, out) == OROYA_OK)
        return 0;
    if (model && oroya_gltf_model_find_node(model, name, out, NULL) == OROYA_OK)
        return 0;
    fprintf(stderr, "oroya %s: ", cmd);
    if (file)
        fprintf(stderr, "%s: ", cli_esc(file));
    fprintf(stderr, "no node named '%s' (oroya info lists them)\n", cli_esc(name));
    return 1;
}

/* Up to five decimal digits from *s (at least one), advancing *s. */
static bool size_digits(const char **s, unsigned *out) {
    unsigned v = 0;
    int n = 0;
    while (**s >= '0' && **s <= '9' && n < 6) {
        v = v * 10u + (unsigned)(**s - '0');
        (*s)++;
        n++;
    }
    *out = v;
    return n >= 1 && n <= 5;
}

bool cli_parse_size(const char *text, unsigned *w, unsigned *h) {
    const char *s = text;
    return size_digits(&s, w) && *s++ == 'x' && size_digits(&s, h) && *s == '\0';
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
