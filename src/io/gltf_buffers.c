/* Buffer sources: the GLB BIN chunk, base64 data: URIs and external files (glTF 2.0
 * section 3.6.1). */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "internal/gltf.h"
#include "internal/io_file.h"

static int b64_value(unsigned char c) {
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 26;
    if (c >= '0' && c <= '9')
        return c - '0' + 52;
    if (c == '+')
        return 62;
    if (c == '/')
        return 63;
    return -1;
}

size_t oroya__base64_decode(const char *in, size_t len, uint8_t *out) {
    if (!in && len) {
        return SIZE_MAX;
    }
    /* Padding is optional, but when present it ends the text and completes a quantum. */
    size_t pad = 0;
    while (len > 0 && in[len - 1] == '=' && pad < 2) {
        len--;
        pad++;
    }
    if (pad && (len + pad) % 4 != 0) {
        return SIZE_MAX;
    }
    if (len % 4 == 1) {
        return SIZE_MAX; /* 6 bits cannot make a byte */
    }
    size_t n = len / 4 * 3 + (len % 4 ? len % 4 - 1 : 0);
    if (!out) {
        for (size_t i = 0; i < len; i++) {
            if (b64_value((unsigned char)in[i]) < 0) {
                return SIZE_MAX;
            }
        }
        return n;
    }
    size_t o = 0;
    uint32_t acc = 0;
    int bits = 0;
    for (size_t i = 0; i < len; i++) {
        int v = b64_value((unsigned char)in[i]);
        if (v < 0) {
            return SIZE_MAX;
        }
        acc = (acc << 6) | (uint32_t)v;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out[o++] = (uint8_t)(acc >> bits);
            acc &= (1u << bits) - 1u;
        }
    }
    return o;
}

oroya_result oroya__data_uri_split(const char *uri, const char **payload, size_t *payload_len,
                                   oroya_error *err, const char *path) {
    const char *comma = strchr(uri, ',');
    if (!comma) {
        return oroya__fail(err, OROYA_ERR_PARSE, "%s: data: URI without a comma", path);
    }
    /* The media type may carry parameters; ";base64" must be the last one. */
    size_t head = (size_t)(comma - uri);
    if (head < 12 || memcmp(comma - 7, ";base64", 7) != 0) {
        return oroya__fail(err, OROYA_ERR_UNSUPPORTED, "%s: only base64 data: URIs are supported",
                           path);
    }
    *payload = comma + 1;
    *payload_len = strlen(comma + 1);
    return OROYA_OK;
}

static oroya_result data_uri_decode(const oroya_allocator *a, oroya__gltf_block **list,
                                    const char *uri, const uint8_t **out, size_t *out_size,
                                    oroya_error *err, const char *path) {
    const char *payload;
    size_t len;
    oroya_result r = oroya__data_uri_split(uri, &payload, &len, err, path);
    if (r) {
        return r;
    }
    size_t n = oroya__base64_decode(payload, len, NULL);
    if (n == SIZE_MAX) {
        return oroya__fail(err, OROYA_ERR_PARSE, "%s: invalid base64 in data: URI", path);
    }
    uint8_t *bytes = (uint8_t *)oroya__arena_alloc(a, list, n ? n : 1, 1);
    if (!bytes) {
        return oroya__fail(err, OROYA_ERR_OUT_OF_MEMORY, "%s: out of memory", path);
    }
    oroya__base64_decode(payload, len, bytes);
    *out = bytes;
    *out_size = n;
    return OROYA_OK;
}

oroya_result oroya__data_uri_decode(oroya__gltf *g, const char *uri, const uint8_t **out,
                                    size_t *out_size, oroya_error *err, const char *path) {
    return data_uri_decode(&g->allocator, &g->blocks, uri, out, out_size, err, path);
}

/* A hexadecimal digit's value, or -1 (isxdigit and isdigit do not depend on the locale). */
static int hex_value(char c) {
    unsigned char u = (unsigned char)c;
    if (!isxdigit(u)) {
        return -1;
    }
    return isdigit(u) ? u - '0' : (u | 0x20) - 'a' + 10;
}

/* The file a URI names, into `out`: base_dir + the percent-decoded URI. An absolute path
 * (only with allow_outside_base_dir) is used as it is. */
static oroya_result resolve_path(const oroya__gltf *g, const char *uri, char *out, size_t cap,
                                 oroya_error *err, const char *path) {
    if (!g->base_dir && !g->read_file) {
        return oroya__fail(err, OROYA_ERR_NOT_FOUND,
                           "%s: external file \"%.200s\" but no base directory (parsed from "
                           "memory)",
                           path, uri);
    }
    /* A scheme ("http:", "file:") names no file here. */
    const char *colon = strchr(uri, ':'), *slash = strchr(uri, '/');
    if (colon && (!slash || colon < slash)) {
        return oroya__fail(err, OROYA_ERR_UNSUPPORTED, "%s: URI \"%.200s\" is not a relative path",
                           path, uri);
    }
    bool absolute = uri[0] == '/' || uri[0] == '\\';
    if (absolute && !g->allow_outside_base_dir && !g->read_file) {
        return oroya__fail(err, OROYA_ERR_ACCESS,
                           "%s: URI \"%.200s\" is an absolute path, outside the model's folder; "
                           "allow_outside_base_dir permits it",
                           path, uri);
    }
    size_t n = absolute || !g->base_dir ? 0 : strlen(g->base_dir);
    if (n >= cap) {
        return oroya__fail(err, OROYA_ERR_LIMIT, "%s: path too long", path);
    }
    if (n > 0) {
        memcpy(out, g->base_dir, n);
    }
    /* The base directory may come from the caller without a trailing separator ("dir"):
     * "dir" + "a.bin" must be "dir/a.bin", not "dira.bin". An empty base means the
     * working directory. */
    if (n > 0 && out[n - 1] != '/' && out[n - 1] != '\\') {
        if (n + 1 >= cap) {
            return oroya__fail(err, OROYA_ERR_LIMIT, "%s: path too long", path);
        }
        out[n++] = '/';
    }
    for (const char *s = uri; *s && *s != '?' && *s != '#'; s++) {
        char c = *s;
        if (c == '%') {
            int hi = hex_value(s[1]), lo = hi >= 0 ? hex_value(s[2]) : -1;
            if (hi < 0 || lo < 0 || (hi == 0 && lo == 0)) {
                return oroya__fail(err, OROYA_ERR_PARSE, "%s: bad percent-escape in URI", path);
            }
            c = (char)(hi * 16 + lo);
            s += 2;
        }
        if (n + 1 >= cap) {
            return oroya__fail(err, OROYA_ERR_LIMIT, "%s: path too long", path);
        }
        out[n++] = c;
    }
    out[n] = '\0';
    return OROYA_OK;
}

/* Reads a whole file into memory owned by g; the file's size bounds the allocation. Only a
 * regular file inside the base directory (unless allow_outside_base_dir) is read. */
static oroya_result read_file(const oroya__gltf *g, const oroya_allocator *a,
                              oroya__gltf_block **list, const char *file, const char *uri,
                              const uint8_t **out, uint64_t *out_size, oroya_error *err,
                              const char *path) {
    oroya__file f;
    const char *inside = g->allow_outside_base_dir ? NULL : g->base_dir;
    oroya_result r = oroya__file_open(file, inside, OROYA_GLTF_MAX_FILE_SIZE, &f, err, path, uri);
    if (r != OROYA_OK) {
        return r;
    }
    uint8_t *bytes = (uint8_t *)oroya__arena_alloc(a, list, f.size ? (size_t)f.size : 1, 1);
    if (!bytes) {
        oroya__file_close(&f);
        return oroya__fail(err, OROYA_ERR_OUT_OF_MEMORY, "%s: out of memory", path);
    }
    uint64_t size = f.size;
    r = oroya__file_read_all(&f, bytes, err, path, uri);
    if (r != OROYA_OK) {
        return r;
    }
    *out = bytes;
    *out_size = size;
    return OROYA_OK;
}

/* Reads a URI through the desc's read_file callback: its bytes become part of `list`. */
static oroya_result read_user_file(const oroya__gltf *g, const oroya_allocator *a,
                                   oroya__gltf_block **list, const char *file, const char *uri,
                                   const uint8_t **out, uint64_t *out_size, oroya_error *err,
                                   const char *path) {
    void *bytes = NULL;
    uint64_t size = 0;
    oroya_error mine = {0};
    oroya_result r = g->read_file(g->read_user, uri, file, g->base_dir ? g->base_dir : "",
                                  OROYA_GLTF_MAX_FILE_SIZE, a, &bytes, &size, &mine);
    if (r != OROYA_OK) {
        if ((unsigned)r >= (unsigned)OROYA_RESULT_COUNT_) {
            r = OROYA_ERR_IO;
        }
        mine.message[sizeof mine.message - 1] = '\0';
        return oroya__fail(err, r, "%s: \"%.200s\": %s", path, uri,
                           mine.message[0] ? mine.message : "the read_file callback refused it");
    }
    if (size > OROYA_GLTF_MAX_FILE_SIZE) {
        oroya__free(a, bytes);
        return oroya__fail(err, OROYA_ERR_LIMIT,
                           "%s: \"%.200s\": the read_file callback gave %llu bytes, over the "
                           "limit of %llu",
                           path, uri, (unsigned long long)size,
                           (unsigned long long)OROYA_GLTF_MAX_FILE_SIZE);
    }
    if (!bytes && size) {
        return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT,
                           "%s: \"%.200s\": the read_file callback gave %llu bytes at NULL", path,
                           uri, (unsigned long long)size);
    }
    if (!oroya__arena_adopt(a, list, bytes)) {
        return oroya__fail(err, OROYA_ERR_OUT_OF_MEMORY, "%s: out of memory", path);
    }
    *out = bytes ? (const uint8_t *)bytes : (const uint8_t *)"";
    *out_size = size;
    return OROYA_OK;
}

oroya_result oroya__gltf_load_uri(const oroya__gltf *g, const oroya_allocator *a,
                                  oroya__gltf_block **list, const char *uri, const uint8_t **out,
                                  uint64_t *out_size, oroya_error *err, const char *path) {
    if (!strncmp(uri, "data:", 5)) {
        size_t n = 0;
        oroya_result r = data_uri_decode(a, list, uri, out, &n, err, path);
        *out_size = n;
        return r;
    }
    char file[4096];
    oroya_result r = resolve_path(g, uri, file, sizeof file, err, path);
    if (r != OROYA_OK) {
        return r;
    }
    return g->read_file ? read_user_file(g, a, list, file, uri, out, out_size, err, path)
                        : read_file(g, a, list, file, uri, out, out_size, err, path);
}

oroya_result oroya_gltf_load_buffers(oroya_gltf_data *data, oroya_error *err) {
    if (!data) {
        return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT, "oroya_gltf_load_buffers: NULL");
    }
    oroya__gltf *g = (oroya__gltf *)data;
    if (g->buffers_loaded) {
        return OROYA_OK;
    }
    for (uint32_t i = 0; i < data->buffer_count; i++) {
        oroya_gltf_buffer *b = &data->buffers[i];
        char path[48];
        snprintf(path, sizeof path, "buffers[%u]", i);
        const uint8_t *bytes = NULL;
        uint64_t size = 0;
        oroya_result r;
        if (!b->uri) {
            /* Only the first buffer of a GLB may omit the URI: it is the BIN chunk. */
            if (i != 0 || !g->bin) {
                return oroya__fail(err, OROYA_ERR_NOT_FOUND,
                                   "%s: no uri and no GLB BIN chunk to use", path);
            }
            bytes = g->bin;
            size = g->bin_size;
        } else {
            r = oroya__gltf_load_uri(g, &g->allocator, &g->blocks, b->uri, &bytes, &size, err,
                                     path);
            if (r) {
                return r;
            }
        }
        /* The source may be longer (GLB chunks are padded to 4 bytes), never shorter. */
        if (size < b->byte_length) {
            return oroya__fail(err, OROYA_ERR_INVALID_DATA,
                               "%s: byteLength is %llu but the data has %llu bytes", path,
                               (unsigned long long)b->byte_length, (unsigned long long)size);
        }
        b->data = bytes;
    }
    g->buffers_loaded = true;
    return OROYA_OK;
}
