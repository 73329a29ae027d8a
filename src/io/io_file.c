/* Opening files from strangers: regular files only, never blocking, optionally confined to a
 * folder. POSIX (open, fstat, realpath). */
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal/io_file.h"

#ifndef O_CLOEXEC
#define O_CLOEXEC 0
#endif
#ifndef O_NOCTTY
#define O_NOCTTY 0
#endif

static oroya_result open_error(oroya_error *err, int e, const char *where, const char *shown) {
    oroya_result r = e == ENOENT || e == ENOTDIR ? OROYA_ERR_NOT_FOUND : OROYA_ERR_IO;
    return oroya__fail(err, r, "%s: cannot open \"%.300s\": %s", where, shown, strerror(e));
}

/* Whether `fd` is the file `path` resolves to, and that lies under directory `inside`. */
static oroya_result check_inside(int fd, const char *path, const char *inside, oroya_error *err,
                                 const char *where, const char *shown) {
    char *base = realpath(inside[0] ? inside : ".", NULL);
    if (!base) {
        return oroya__fail(err, OROYA_ERR_IO, "%s: cannot resolve the folder \"%.300s\": %s", where,
                           inside, strerror(errno));
    }
    char *real = realpath(path, NULL);
    oroya_result r = OROYA_OK;
    struct stat a, b;
    size_t n = strlen(base);
    if (!real || fstat(fd, &a) != 0 || stat(real, &b) != 0 || a.st_dev != b.st_dev ||
        a.st_ino != b.st_ino) {
        r = oroya__fail(err, OROYA_ERR_ACCESS, "%s: \"%.300s\" changed while it was opened", where,
                        shown);
    } else if (!(strncmp(real, base, n) == 0 && (real[n] == '/' || (n == 1 && base[0] == '/')))) {
        r = oroya__fail(err, OROYA_ERR_ACCESS,
                        "%s: \"%.300s\" leads outside the model's folder (resolves to \"%.100s\"); "
                        "allow_outside_base_dir permits it",
                        where, shown, real);
    }
    free(real);
    free(base);
    return r;
}

/* Whether `real` (an absolute path without "." or "..") is `base` or lies under it. */
static bool under(const char *real, const char *base) {
    size_t n = strlen(base);
    return strncmp(real, base, n) == 0 &&
           (real[n] == '/' || real[n] == '\0' || (n == 1 && base[0] == '/'));
}

/* Where `p` leads, into out[cap], whether or not it exists: realpath when it resolves; for a
 * link that leads nowhere, where its target would be; else where its folder leads, plus the
 * last component ("." dropped, ".." one folder up). So a path outside the folder is known to
 * be outside before anything is opened, and its existence makes no difference. false when
 * the path is too long or has too many links (the caller refuses it). */
static bool lead(const char *p, char *out, size_t cap, int depth) {
    if (depth > 64 || !p[0]) {
        return false;
    }
    char *r = realpath(p, NULL);
    if (r) {
        size_t n = strlen(r);
        bool ok = n < cap;
        if (ok) {
            memcpy(out, r, n + 1);
        }
        free(r);
        return ok;
    }
    size_t len = strlen(p);
    char *buf = (char *)malloc(len + PATH_MAX + 2);
    if (!buf) {
        return false;
    }
    bool ok = false;
    struct stat st;
    const char *slash = strrchr(p, '/');
    if (lstat(p, &st) == 0 && S_ISLNK(st.st_mode)) {
        /* A link that does not resolve: where its target would lie. */
        char target[PATH_MAX];
        ssize_t t = readlink(p, target, sizeof target - 1);
        if (t > 0) {
            target[t] = '\0';
            if (target[0] == '/' || !slash) {
                memcpy(buf, target, (size_t)t + 1);
            } else {
                size_t d = (size_t)(slash - p) + 1;
                memcpy(buf, p, d);
                memcpy(buf + d, target, (size_t)t + 1);
            }
            ok = lead(buf, out, cap, depth + 1);
        }
        free(buf);
        return ok;
    }
    /* Not there (or not readable): its folder, then the last component. */
    const char *leaf = slash ? slash + 1 : p;
    if (!slash) {
        memcpy(buf, ".", 2);
    } else if (slash == p) {
        memcpy(buf, "/", 2);
    } else {
        memcpy(buf, p, (size_t)(slash - p));
        buf[slash - p] = '\0';
    }
    if (lead(buf, out, cap, depth + 1)) {
        size_t n = strlen(out);
        if (!strcmp(leaf, "..")) {
            char *up = strrchr(out, '/');
            if (up && up != out) {
                *up = '\0';
            } else {
                memcpy(out, "/", 2);
            }
            ok = true;
        } else if (!leaf[0] || !strcmp(leaf, ".")) {
            ok = true;
        } else if (n + 1 + strlen(leaf) < cap) {
            snprintf(out + n, cap - n, "%s%s", n == 1 && out[0] == '/' ? "" : "/", leaf);
            ok = true;
        }
    }
    free(buf);
    return ok;
}

/* The confinement check that comes before open: the same ACCESS error whether the path
 * outside exists or not, and whatever it is (a FIFO, a device), so a refused URI tells
 * nothing about what lies outside. */
static oroya_result confine(const char *path, const char *inside, oroya_error *err,
                            const char *where, const char *shown) {
    char *base = realpath(inside[0] ? inside : ".", NULL);
    if (!base) {
        return oroya__fail(err, OROYA_ERR_IO, "%s: cannot resolve the folder \"%.300s\": %s", where,
                           inside, strerror(errno));
    }
    char *to = (char *)malloc(PATH_MAX);
    oroya_result r = OROYA_OK;
    if (!to) {
        r = oroya__fail(err, OROYA_ERR_OUT_OF_MEMORY, "%s: out of memory", where);
    } else if (!lead(path, to, PATH_MAX, 0)) {
        r = oroya__fail(err, OROYA_ERR_ACCESS,
                        "%s: \"%.300s\" cannot be resolved (too long, or too many links); "
                        "allow_outside_base_dir permits it",
                        where, shown);
    } else if (!under(to, base)) {
        r = oroya__fail(err, OROYA_ERR_ACCESS,
                        "%s: \"%.300s\" leads outside the model's folder (resolves to \"%.100s\"); "
                        "allow_outside_base_dir permits it",
                        where, shown, to);
    }
    free(to);
    free(base);
    return r;
}

oroya_result oroya__file_open(const char *path, const char *inside, uint64_t max_size,
                              oroya__file *out, oroya_error *err, const char *where,
                              const char *shown) {
    out->fd = -1;
    out->size = 0;
    if (inside) {
        oroya_result r = confine(path, inside, err, where, shown);
        if (r != OROYA_OK) {
            return r;
        }
    }
    /* O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer. */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) {
        return open_error(err, errno, where, shown);
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        return oroya__fail(err, OROYA_ERR_IO, "%s: cannot read \"%.300s\": %s", where, shown,
                           strerror(e));
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        return oroya__fail(err, OROYA_ERR_IO, "%s: \"%.300s\" is not a regular file (%s)", where,
                           shown,
                           S_ISDIR(st.st_mode)                          ? "a directory"
                           : S_ISFIFO(st.st_mode)                       ? "a FIFO"
                           : S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? "a device"
                                                                        : "not a file");
    }
    if (inside) {
        oroya_result r = check_inside(fd, path, inside, err, where, shown);
        if (r != OROYA_OK) {
            close(fd);
            return r;
        }
    }
    if (st.st_size < 0 || (uint64_t)st.st_size > max_size) {
        close(fd);
        return oroya__fail(err, OROYA_ERR_LIMIT,
                           "%s: \"%.300s\" has %lld bytes, over the limit "
                           "of %llu",
                           where, shown, (long long)st.st_size, (unsigned long long)max_size);
    }
    out->fd = fd;
    out->size = (uint64_t)st.st_size;
    return OROYA_OK;
}

oroya_result oroya__file_read_all(oroya__file *f, void *buf, oroya_error *err, const char *where,
                                  const char *shown) {
    uint8_t *p = (uint8_t *)buf;
    uint64_t done = 0;
    oroya_result r = OROYA_OK;
    while (done < f->size) {
        uint64_t want = f->size - done;
        ssize_t got = read(f->fd, p + done, want > (1u << 30) ? (size_t)1 << 30 : (size_t)want);
        if (got < 0 && errno == EINTR) {
            continue;
        }
        if (got <= 0) {
            r = got < 0 ? oroya__fail(err, OROYA_ERR_IO, "%s: cannot read \"%.300s\": %s", where,
                                      shown, strerror(errno))
                        : oroya__fail(err, OROYA_ERR_IO,
                                      "%s: short read of \"%.300s\" (%llu of %llu bytes)", where,
                                      shown, (unsigned long long)done, (unsigned long long)f->size);
            break;
        }
        done += (uint64_t)got;
    }
    oroya__file_close(f);
    return r;
}

void oroya__file_close(oroya__file *f) {
    if (f->fd >= 0) {
        close(f->fd);
    }
    f->fd = -1;
}

/* ---- JSON text from strangers ---------------------------------------------------------- */

size_t oroya_utf8_sequence_length(const char *s, size_t n) {
    return s && n ? oroya__utf8_sequence((const unsigned char *)s, n) : 0;
}

size_t oroya__utf8_sequence(const unsigned char *s, size_t n) {
    unsigned char c = s[0];
    if (c < 0x80) {
        return 1;
    }
    size_t len;
    unsigned char lo = 0x80, hi = 0xBF;
    if (c >= 0xC2 && c <= 0xDF) {
        len = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
        len = 3;
        if (c == 0xE0)
            lo = 0xA0; /* overlong */
        if (c == 0xED)
            hi = 0x9F; /* surrogates */
    } else if (c >= 0xF0 && c <= 0xF4) {
        len = 4;
        if (c == 0xF0)
            lo = 0x90; /* overlong */
        if (c == 0xF4)
            hi = 0x8F; /* past U+10FFFF */
    } else {
        return 0;
    }
    if (n < len || s[1] < lo || s[1] > hi) {
        return 0;
    }
    for (size_t i = 2; i < len; i++) {
        if (s[i] < 0x80 || s[i] > 0xBF) {
            return 0;
        }
    }
    return len;
}

bool oroya__json_text_check(const char *text, size_t len, size_t *json_len, size_t *bad,
                            const char **why) {
    const unsigned char *s = (const unsigned char *)text;
    size_t end = len;
    while (end > 0 && s[end - 1] == 0) {
        end--;
    }
    *json_len = end;
    for (size_t i = 0; i < end;) {
        if (s[i] == 0) {
            *bad = i;
            *why = "a NUL byte";
            return false;
        }
        if (s[i] < 0x80) { /* most of a glTF, data: URIs included, is ASCII */
            /* The escape \u0000 is a NUL too: cJSON puts it in the string, which C then
             * cuts there ("inside.bin\u0000../x" would name "inside.bin"). Backslashes only
             * occur in strings in JSON, and an escaped backslash is skipped whole. */
            if (s[i] == '\\' && i + 1 < end && s[i + 1] == '\\') {
                i += 2;
                continue;
            }
            if (s[i] == '\\' && end - i >= 6 && !memcmp(s + i + 1, "u0000", 5)) {
                *bad = i;
                *why = "an escaped NUL (U+0000)";
                return false;
            }
            i++;
            continue;
        }
        size_t k = oroya__utf8_sequence(s + i, end - i);
        if (k == 0) {
            *bad = i;
            *why = "invalid UTF-8";
            return false;
        }
        i += k;
    }
    return true;
}

void oroya__json_scan(const char *text, size_t len, size_t depth_limit, oroya__json_counts *out) {
    size_t depth = 0, values = 0, too_deep_at = SIZE_MAX;
    bool in_literal = false, after_string = false;
    size_t i = 0;
    if (len >= 3 && !memcmp(text, "\xEF\xBB\xBF", 3)) {
        i = 3; /* a byte order mark, which cJSON skips */
    }
    for (; i < len; i++) {
        const unsigned char c = (unsigned char)text[i];
        if (c <= ' ') { /* cJSON's whitespace: every byte up to the space */
            in_literal = false;
            continue;
        }
        switch (c) {
        case '"': {
            /* The closing quote is the first one after i not escaped: preceded by an even run of
             * backslashes (escapes pair up from the left; the opening quote ends the run). */
            const char *q = text + i;
            for (;;) {
                q = memchr(q + 1, '"', len - (size_t)(q + 1 - text));
                if (!q) {
                    break;
                }
                size_t run = 0;
                while (q - run - 1 > text + i && q[-(ptrdiff_t)run - 1] == '\\') {
                    run++;
                }
                if (run % 2 == 0) {
                    break;
                }
            }
            values++;
            i = q ? (size_t)(q - text) : len;
            after_string = true;
            in_literal = false;
            continue;
        }
        case ':':
            /* The string before a colon is an object's key: cJSON keeps it in the value's item. */
            if (after_string) {
                values--;
            }
            break;
        case '[':
        case '{':
            values++;
            if (++depth > depth_limit && too_deep_at == SIZE_MAX) {
                too_deep_at = i;
            }
            break;
        case ']':
        case '}':
            if (depth > 0) {
                depth--;
            }
            break;
        case ',': break;
        default: /* a number, true, false or null: one value per run of such bytes */
            if (!in_literal) {
                values++;
            }
            in_literal = true;
            after_string = false;
            continue;
        }
        in_literal = false;
        after_string = false;
    }
    out->values = values;
    out->too_deep_at = too_deep_at;
}

bool oroya__json_too_deep(const char *text, size_t len, size_t limit) {
    oroya__json_counts c;
    oroya__json_scan(text, len, limit, &c);
    return c.too_deep_at != SIZE_MAX;
}
