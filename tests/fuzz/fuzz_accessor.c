/* libFuzzer target: accessor decoding. The first 24 bytes choose one accessor's fields
 * (component type, type, normalized, count, offsets, stride, sparse block); the rest is the
 * GLB BIN chunk it reads. Every combination goes through validate before decoding. */
#include <stdio.h>

#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint32_t u16at(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8; }

static void put32(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 24 || size > 65536) {
        return 0;
    }
    static const unsigned cts[] = {5120, 5121, 5122, 5123, 5125, 5126};
    static const char *const types[] = {"SCALAR", "VEC2", "VEC3", "VEC4", "MAT2", "MAT3", "MAT4"};
    const uint8_t *p = data;
    const uint8_t *bin = data + 24;
    size_t bin_len = size - 24;
    unsigned ct = cts[p[0] % 6], sct = cts[1 + p[11] % 3 * 2 % 6];
    const char *type = types[p[1] % 7];
    int normalized = p[2] & 1, has_view = !(p[2] & 2), sparse = p[2] & 4;
    uint32_t count = u16at(p + 3), stride = p[5];
    uint32_t view_off = u16at(p + 6), view_len = u16at(p + 8), acc_off = p[10];
    uint32_t sp_count = p[12], sp_ioff = p[13], sp_voff = p[14];
    if (p[15] & 1) {
        count = count * 65536u + u16at(p + 16); /* sometimes a huge count */
    }
    if (sct != 5121 && sct != 5123 && sct != 5125) {
        sct = 5125;
    }
    char stride_s[32] = "";
    if (stride) {
        snprintf(stride_s, sizeof stride_s, ",\"byteStride\":%u", stride);
    }
    char json[1024];
    int n = snprintf(json, sizeof json,
                     "{\"asset\":{\"version\":\"2.0\"},\"extensionsUsed\":[%s],"
                     "\"buffers\":[{\"byteLength\":%zu}],"
                     "\"bufferViews\":[{\"buffer\":0,\"byteOffset\":%u,\"byteLength\":%u%s}],"
                     "\"accessors\":[{%s\"byteOffset\":%u,\"componentType\":%u,"
                     "\"normalized\":%s,\"count\":%u,\"type\":\"%s\"",
                     (p[2] & 8) ? "\"KHR_mesh_quantization\"" : "", bin_len, view_off, view_len,
                     stride_s, has_view ? "\"bufferView\":0," : "", has_view ? acc_off : 0, ct,
                     normalized ? "true" : "false", count, type);
    if (sparse && n > 0 && (size_t)n < sizeof json) {
        n += snprintf(json + n, sizeof json - (size_t)n,
                      ",\"sparse\":{\"count\":%u,\"indices\":{\"bufferView\":0,\"byteOffset\":%u,"
                      "\"componentType\":%u},\"values\":{\"bufferView\":0,\"byteOffset\":%u}}",
                      sp_count, sp_ioff, sct, sp_voff);
    }
    if (n <= 0 || (size_t)n + 4 >= sizeof json) {
        return 0;
    }
    n += snprintf(json + n, sizeof json - (size_t)n, "}]}");
    size_t jl = (size_t)n, jp = (jl + 3) & ~(size_t)3, bp = (bin_len + 3) & ~(size_t)3;
    size_t total = 28 + jp + bp;
    uint8_t *glb = (uint8_t *)calloc(1, total);
    if (!glb) {
        return 0;
    }
    memcpy(glb, "glTF", 4);
    put32(glb + 4, 2);
    put32(glb + 8, (uint32_t)total);
    put32(glb + 12, (uint32_t)jp);
    memcpy(glb + 16, "JSON", 4);
    memset(glb + 20, ' ', jp);
    memcpy(glb + 20, json, jl);
    put32(glb + 20 + jp, (uint32_t)bp);
    memcpy(glb + 24 + jp, "BIN\0", 4);
    if (bin_len) {
        memcpy(glb + 28 + jp, bin, bin_len);
    }
    fuzz_pipeline(glb, total);
    free(glb);
    return 0;
}
